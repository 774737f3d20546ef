// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: per-filter grants over netlink (uapi section 4, KB_CMD_GRANT;
 * KB_A_READERS and KB_A_WRITERS of KB_CMD_CREATE and KB_CMD_GET).
 *
 * A group travels as a gid of the user namespace that owns the filter's
 * network namespace (the socket's): a gid that namespace does not map
 * cannot be granted, so a user-namespace root grants only groups of its
 * own namespace.  The kernel keeps the kgid; GET translates it back.
 */
#include <linux/uidgid.h>
#include <net/sock.h>

#include "netlink.h"

static int kb_nl_gid(struct genl_info *info, int attr, kgid_t *g)
{
	struct nlattr *a = info->attrs[attr];
	u32 v = nla_get_u32(a);

	*g = INVALID_GID;
	if (v == KB_GID_NONE)
		return 0;
	*g = make_kgid(genl_info_net(info)->user_ns, v);
	if (gid_valid(*g))
		return 0;
	NL_SET_ERR_MSG_ATTR(info->extack, a,
			    "kbloom: the group is not mapped in the user namespace owning the network namespace");
	return -EINVAL;
}

int kb_nl_grant_parse(struct genl_info *info, struct kb_grant *gr)
{
	int ret = 0;

	memset(gr, 0, sizeof(*gr));
	gr->readers = INVALID_GID;
	gr->writers = INVALID_GID;
	if (info->attrs[KB_A_READERS]) {
		gr->set_readers = true;
		ret = kb_nl_gid(info, KB_A_READERS, &gr->readers);
	}
	if (!ret && info->attrs[KB_A_WRITERS]) {
		gr->set_writers = true;
		ret = kb_nl_gid(info, KB_A_WRITERS, &gr->writers);
	}
	return ret;
}

int kb_nl_grant_put(struct sk_buff *skb, struct user_namespace *ns,
		    const struct kb_info *i)
{
	if (gid_valid(i->readers) &&
	    nla_put_u32(skb, KB_A_READERS, from_kgid_munged(ns, i->readers)))
		return -EMSGSIZE;
	if (gid_valid(i->writers) &&
	    nla_put_u32(skb, KB_A_WRITERS, from_kgid_munged(ns, i->writers)))
		return -EMSGSIZE;
	return 0;
}

int kb_nl_grant(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *name = info->attrs[KB_A_NAME];
	char buf[KB_NAME_MAX];
	struct kb_grant gr;
	int ret;

	if (!name) {
		NL_SET_ERR_ATTR_MISS(extack, NULL, KB_A_NAME);
		kb_nl_msg(extack, kb_missing_msg[KB_A_NAME]);
		return -EINVAL;
	}
	nla_strscpy(buf, name, KB_NAME_MAX);
	if (!kb_name_ok(buf, NULL)) {
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "kbloom: bad filter name (1..31 of [A-Za-z0-9_.:-])");
		return -EINVAL;
	}
	if (!info->attrs[KB_A_READERS] && !info->attrs[KB_A_WRITERS]) {
		NL_SET_ERR_ATTR_MISS(extack, NULL, KB_A_READERS);
		NL_SET_ERR_MSG(extack,
			       "kbloom: missing attribute READERS or WRITERS (the groups to set)");
		return -EINVAL;
	}
	ret = kb_nl_grant_parse(info, &gr);
	if (ret)
		return ret;
	ret = kb_reg_grant(genl_info_net(info), buf, &gr, extack);
	if (ret == -ENOENT)
		NL_SET_BAD_ATTR(extack, name);
	return ret;
}
