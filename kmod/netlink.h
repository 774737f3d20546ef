/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom: what the generic netlink files (netlink.c: the family and its
 * commands, netlink_export.c: the chunked image export) share.
 */
#ifndef _KB_KMOD_NETLINK_H
#define _KB_KMOD_NETLINK_H

#include <net/genetlink.h>

#include "internal.h"
#include "netlink_gen.h"

extern struct genl_family kb_genl_family;
/* "kbloom: missing attribute X (...)" by attribute type */
extern const char * const kb_missing_msg[KB_A_MAX + 1];

/* a message from a table (NL_SET_ERR_MSG() wants a literal) */
static inline void kb_nl_msg(struct netlink_ext_ack *extack, const char *msg)
{
	if (extack)
		extack->_msg = msg;
}

static inline int kb_nl_put_u64(struct sk_buff *skb, int attr, u64 v)
{
	return nla_put_u64_64bit(skb, attr, v, KB_A_PAD);
}

/* KB_CMD_EXPORT (netlink_export.c) */
/*
 * A KB_A_KEYS nest: kb_nl_keys_count() counts its keys (1..KB_NL_KEYS_MAX,
 * else -EINVAL with extack); kb_nl_keys_fill() points keys[] at them, each
 * validated for key_type (-EINVAL with extack at the first malformed one)
 */
int kb_nl_keys_count(const struct nlattr *batch, u32 *n,
		     struct netlink_ext_ack *extack);
int kb_nl_keys_fill(const struct nlattr *batch, u32 key_type,
		    struct kb_key *keys, struct netlink_ext_ack *extack);

int kb_nl_export_start(struct netlink_callback *cb);
int kb_nl_export_dump(struct sk_buff *skb, struct netlink_callback *cb);
int kb_nl_export_done(struct netlink_callback *cb);

/* KB_CMD_EXCEPT_* (netlink_except.c) */
int kb_nl_except_add(struct sk_buff *skb, struct genl_info *info);
int kb_nl_except_del(struct sk_buff *skb, struct genl_info *info);
int kb_nl_except_flush(struct sk_buff *skb, struct genl_info *info);
int kb_nl_except_list(struct sk_buff *skb, struct netlink_callback *cb);

/*
 * Grants (netlink_grant.c): kb_nl_grant_parse() reads the request's
 * KB_A_READERS and KB_A_WRITERS (-EINVAL with extack for a gid the netns's
 * user namespace does not map); kb_nl_grant_put() puts those set in i,
 * as gids of ns
 */
int kb_nl_grant_parse(struct genl_info *info, struct kb_grant *gr);
int kb_nl_grant_put(struct sk_buff *skb, struct user_namespace *ns,
		    const struct kb_info *i);
int kb_nl_grant(struct sk_buff *skb, struct genl_info *info);

/*
 * Slices (netlink_slices.c): kb_nl_shape_parse() reads a create's
 * KB_A_WINDOW_MS, _SLICES, _GROW, _MAX_BYTES into sh and sizes sp's
 * slices (-EINVAL with an extack naming the attribute); kb_nl_slices_put()
 * puts a filter's slices for KB_CMD_GET
 */
int kb_nl_shape_parse(struct genl_info *info, struct kb_spec *sp,
		      struct kb_shape *sh);
int kb_nl_slices_put(struct sk_buff *skb, struct kb_set *s);

#endif /* _KB_KMOD_NETLINK_H */
