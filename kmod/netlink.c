// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: the generic netlink family "kbloom" (uapi section 4).
 *
 * Every handler validates its attributes (strict policies; anything the
 * policies cannot say is checked here with an extack naming the
 * attribute), then calls the registry exactly as the ioctls do (dev.c).
 * The family runs with parallel_ops: the registry does its own locking.
 *
 * Dumps: KB_CMD_GET walks the namespace's filter list by position
 * (cb->args[0]) and marks messages with NLM_F_DUMP_INTR when kb_net.reg_gen
 * changed since the previous step.  KB_CMD_EXPORT: netlink_export.c.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/capability.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "netlink.h"

MODULE_ALIAS_GENL_FAMILY(KB_GENL_NAME);

/*
 * The request policies, one per command, are generated from uapi/kbloom.yaml
 * (netlink_gen.c, make regen).  The op table stays here: the generator
 * writes either split ops (6.2 and later) or a table without .start/.done
 * that assumes every command has a "do" (scripts/ynl-gen).
 */
#define KB_NL_POLICY(p)	.policy = (p), .maxattr = ARRAY_SIZE(p) - 1

/* ---- helpers -------------------------------------------------------------- */

const char * const kb_missing_msg[KB_A_MAX + 1] = {
	[KB_A_NAME] = "kbloom: missing attribute NAME (the filter name)",
	[KB_A_NAME2] = "kbloom: missing attribute NAME2 (the second filter name)",
	[KB_A_KEYS] = "kbloom: missing attribute KEYS (the key batch)",
	[KB_A_K] = "kbloom: missing attribute K (sizing by M needs K)",
	[KB_A_ITEMS] = "kbloom: missing attribute ITEMS (sizing by FPR_PPB needs ITEMS)",
	[KB_A_FPR_PPB] = "kbloom: missing sizing attribute: FPR_PPB + ITEMS, BITS_PER_KEY or M + K",
};

/* true (and an extack naming attr) if a required attribute is missing */
static bool kb_nl_missing(struct genl_info *info, int attr)
{
	if (!GENL_REQ_ATTR_CHECK(info, attr))
		return false;
	kb_nl_msg(info->extack, kb_missing_msg[attr]);
	return true;
}

/* the (required) filter name in attribute attr */
static int kb_nl_name(struct genl_info *info, int attr, char *name)
{
	struct nlattr *a = info->attrs[attr];

	if (kb_nl_missing(info, attr))
		return -EINVAL;
	nla_strscpy(name, a, KB_NAME_MAX);
	if (!kb_name_ok(name, NULL)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "kbloom: bad filter name (1..31 of [A-Za-z0-9_.:-])");
		return -EINVAL;
	}
	return 0;
}

static u32 kb_nl_u32(struct nlattr **tb, int attr, u32 def)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : def;
}

/* name the attribute of a registry failure about one filter */
static void kb_nl_blame(struct netlink_ext_ack *extack, int ret,
			struct nlattr *a)
{
	if (ret == -ENOENT || ret == -EEXIST || ret == -EBUSY ||
	    ret == -EINVAL)
		NL_SET_BAD_ATTR(extack, a);
}

/* ns: the user namespace the grants' gids are told in */
static int kb_nl_fill_info(struct sk_buff *skb, struct kb_set *s,
			   const char *name, struct user_namespace *ns)
{
	struct kb_info i;
	int ret;

	ret = kb_set_info(s, &i);
	if (ret)
		return ret;
	if (nla_put_string(skb, KB_A_NAME, name) ||
	    nla_put_u32(skb, KB_A_KIND, i.p.kind) ||
	    nla_put_u32(skb, KB_A_KEY_TYPE, i.p.key_type) ||
	    nla_put_u32(skb, KB_A_HASH, i.p.hash) ||
	    kb_nl_put_u64(skb, KB_A_M, i.p.m) ||
	    nla_put_u32(skb, KB_A_K, i.p.k) ||
	    kb_nl_put_u64(skb, KB_A_ITEMS, i.p.items) ||
	    nla_put_u32(skb, KB_A_FPR_PPB, i.p.fpr_ppb) ||
	    nla_put(skb, KB_A_SEED, sizeof(i.p.seed), i.p.seed) ||
	    kb_nl_put_u64(skb, KB_A_PLEN4, i.p.plen4) ||
	    nla_put(skb, KB_A_PLEN6, sizeof(i.p.plen6), i.p.plen6) ||
	    kb_nl_put_u64(skb, KB_A_BYTES, i.st.bytes) ||
	    nla_put_u32(skb, KB_A_EXPECTED_FPR_PPB, i.st.expected_fpr_ppb) ||
	    kb_nl_put_u64(skb, KB_A_COUNT, i.count) ||
	    kb_nl_put_u64(skb, KB_A_BITS_SET, i.st.bits_set) ||
	    kb_nl_put_u64(skb, KB_A_EST_ITEMS, i.st.est_items) ||
	    nla_put_u32(skb, KB_A_FILL_PPM, i.st.fill_ppm) ||
	    nla_put_u32(skb, KB_A_EST_FPR_PPB, i.st.est_fpr_ppb) ||
	    nla_put_u8(skb, KB_A_OVER_CAPACITY, !!i.st.over_capacity) ||
	    nla_put_u32(skb, KB_A_REFS, i.refs) ||
	    kb_nl_put_u64(skb, KB_A_LOOKUPS, i.lookups) ||
	    kb_nl_put_u64(skb, KB_A_HITS, i.hits) ||
	    kb_nl_put_u64(skb, KB_A_ADDS, i.adds) ||
	    kb_nl_put_u64(skb, KB_A_GENERATION, i.gen_id) ||
	    kb_nl_put_u64(skb, KB_A_ID, i.set_id) ||
	    nla_put_u32(skb, KB_A_PREFIXES, i.st.nplens) ||
	    nla_put_u32(skb, KB_A_EXCEPT_COUNT, i.exceptions) ||
	    nla_put_u32(skb, KB_A_MAX_FPR_PPB, i.max_fpr_ppb) ||
	    kb_nl_put_u64(skb, KB_A_LEARN_REFUSED, i.learn_refused))
		return -EMSGSIZE;
	return kb_nl_grant_put(skb, ns, &i) ?: kb_nl_slices_put(skb, s);
}

/* ---- create --------------------------------------------------------------- */

static int kb_nl_create(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	char name[KB_NAME_MAX];
	struct kb_spec sp = {};
	struct kb_shape sh;
	struct kb_grant gr;
	struct kb_params p;
	struct nlattr *mode;
	int ret, unused;

	ret = kb_nl_name(info, KB_A_NAME, name);
	if (ret)
		return ret;
	sp.kind = kb_nl_u32(tb, KB_A_KIND, KB_KIND_BLOCKED);
	sp.key_type = kb_nl_u32(tb, KB_A_KEY_TYPE, KB_KEY_BYTES);
	sp.hash = kb_nl_u32(tb, KB_A_HASH, kb_kind_default_hash(sp.kind));
	if (!kb_kind_hash_ok(sp.kind, sp.hash)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KB_A_HASH] ?: tb[KB_A_KIND],
				    "kbloom: HASH leveldb is the only hash of classic filters, murmur3 that of gozero, others take xxh64 or siphash");
		return -EINVAL;
	}
	if (tb[KB_A_SEED]) {
		memcpy(sp.seed, nla_data(tb[KB_A_SEED]), sizeof(sp.seed));
		sp.has_seed = true;
	}
	if (tb[KB_A_ITEMS])
		sp.items = nla_get_u64(tb[KB_A_ITEMS]);
	if (tb[KB_A_M]) {
		mode = tb[KB_A_M];
		if (kb_nl_missing(info, KB_A_K))
			return -EINVAL;
		sp.sizing = KB_SIZING_MK;
		sp.m = nla_get_u64(tb[KB_A_M]);
		sp.k = nla_get_u32(tb[KB_A_K]);
	} else if (tb[KB_A_BITS_PER_KEY]) {
		mode = tb[KB_A_BITS_PER_KEY];
		sp.sizing = KB_SIZING_BPK;
		sp.bits_per_key = nla_get_u32(mode);
	} else {
		if (kb_nl_missing(info, KB_A_FPR_PPB) ||
		    kb_nl_missing(info, KB_A_ITEMS))
			return -EINVAL;
		mode = tb[KB_A_FPR_PPB];
		sp.sizing = KB_SIZING_FPR;
		sp.fpr_ppb = nla_get_u32(mode);
		if (!sp.items) {
			NL_SET_ERR_MSG_ATTR(extack, tb[KB_A_ITEMS],
					    "kbloom: ITEMS must be > 0 with FPR_PPB");
			return -EINVAL;
		}
	}
	/* every sizing attribute given: those of another mode are refused */
	if (tb[KB_A_FPR_PPB])
		sp.fpr_ppb = nla_get_u32(tb[KB_A_FPR_PPB]);
	if (tb[KB_A_BITS_PER_KEY])
		sp.bits_per_key = nla_get_u32(tb[KB_A_BITS_PER_KEY]);
	if (tb[KB_A_M])
		sp.m = nla_get_u64(tb[KB_A_M]);
	if (tb[KB_A_K])
		sp.k = nla_get_u32(tb[KB_A_K]);
	if (tb[KB_A_PREFIXES])
		sp.prefixes = nla_get_u32(tb[KB_A_PREFIXES]);
	ret = kb_nl_shape_parse(info, &sp, &sh);
	if (ret)
		return ret;
	ret = kb_params_from_spec(&p, &sp, extack);
	unused = ret == -EINVAL ? kb_spec_unused(&sp, NULL) : 0;
	if (unused) {
		NL_SET_BAD_ATTR(extack, tb[unused]);
	} else if (ret == -EINVAL) {
		if (sp.sizing == KB_SIZING_MK)
			NL_SET_ERR_MSG_ATTR(extack, mode,
					    "kbloom: bad M or K for the kind (M: multiple of 512 blocked, 128 counting, 8 classic, gozero 1..2^32; K: 1..32, classic 1..30, gozero 14)");
		else
			NL_SET_ERR_MSG_ATTR(extack, mode,
					    "kbloom: bad sizing parameters for the kind");
	}
	if (ret == -ERANGE)
		NL_SET_BAD_ATTR(extack, mode);
	if (!ret)
		ret = kb_nl_grant_parse(info, &gr);
	if (ret)
		return ret;
	ret = kb_reg_create(genl_info_net(info), name, &p, &sh, &gr, extack);
	kb_nl_blame(extack, ret, tb[KB_A_NAME]);
	return ret;
}

/* ---- destroy, flush, swap, rename ------------------------------------- */

static int kb_nl_destroy(struct sk_buff *skb, struct genl_info *info)
{
	char name[KB_NAME_MAX];
	int ret;

	ret = kb_nl_name(info, KB_A_NAME, name);
	if (ret)
		return ret;
	ret = kb_reg_destroy(genl_info_net(info), name, info->extack);
	kb_nl_blame(info->extack, ret, info->attrs[KB_A_NAME]);
	return ret;
}

static int kb_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	char name[KB_NAME_MAX];
	int ret;

	ret = kb_nl_name(info, KB_A_NAME, name);
	if (ret)
		return ret;
	ret = kb_reg_flush(genl_info_net(info), name, info->extack);
	kb_nl_blame(info->extack, ret, info->attrs[KB_A_NAME]);
	return ret;
}

static int kb_nl_name2(struct genl_info *info, bool swap)
{
	struct netlink_ext_ack *extack = info->extack;
	char a[KB_NAME_MAX], b[KB_NAME_MAX];
	struct net *net = genl_info_net(info);
	int ret;

	ret = kb_nl_name(info, KB_A_NAME, a);
	if (!ret)
		ret = kb_nl_name(info, KB_A_NAME2, b);
	if (ret)
		return ret;
	if (swap) {
		ret = kb_reg_swap(net, a, b, extack);
		if (ret == -EINVAL)
			NL_SET_BAD_ATTR(extack, info->attrs[KB_A_NAME2]);
	} else {
		ret = kb_reg_rename(net, a, b, extack);
		kb_nl_blame(extack, ret, info->attrs[ret == -EEXIST ?
						     KB_A_NAME2 : KB_A_NAME]);
	}
	return ret;
}

static int kb_nl_swap(struct sk_buff *skb, struct genl_info *info)
{
	return kb_nl_name2(info, true);
}

static int kb_nl_rename(struct sk_buff *skb, struct genl_info *info)
{
	return kb_nl_name2(info, false);
}

/* ---- get (do and dump) ------------------------------------------------- */

static int kb_nl_get(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	char name[KB_NAME_MAX];
	struct sk_buff *msg;
	struct kb_set *s;
	void *hdr;
	int ret;

	ret = kb_nl_name(info, KB_A_NAME, name);
	if (ret)
		return ret;
	s = kb_set_find(net, name, false);
	if (IS_ERR(s)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KB_A_NAME],
				    "kbloom: no such filter");
		return PTR_ERR(s);
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		kb_set_put(s);
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &kb_genl_family, 0, KB_CMD_GET);
	ret = hdr ? kb_nl_fill_info(msg, s, name, net->user_ns) : -EMSGSIZE;
	kb_set_put(s);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

struct kb_dump_arg {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const u64 *reg_gen;
};

static int kb_nl_dump_one(struct kb_set *s, const char *name, void *arg)
{
	struct kb_dump_arg *a = arg;
	struct netlink_callback *cb = a->cb;
	void *hdr;
	int ret;

	/* +1: nl_dump_check_consistent() ignores a previous seq of 0 */
	cb->seq = (unsigned int)*a->reg_gen + 1;
	hdr = genlmsg_put(a->skb, NETLINK_CB(cb->skb).portid,
			  cb->nlh->nlmsg_seq, &kb_genl_family, NLM_F_MULTI,
			  KB_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	ret = kb_nl_fill_info(a->skb, s, name,
			      sock_net(cb->skb->sk)->user_ns);
	if (ret) {
		genlmsg_cancel(a->skb, hdr);
		return ret;
	}
	genlmsg_end(a->skb, hdr);
	return 0;
}

static int kb_nl_get_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	unsigned long pos = cb->args[0];
	u64 reg_gen = 0;
	struct kb_dump_arg a = {
		.skb = skb, .cb = cb, .reg_gen = &reg_gen,
	};
	int ret;

	ret = kb_reg_walk(net, &pos, &reg_gen, kb_nl_dump_one, &a);
	/*
	 * Also when this step put no filter: the NLMSG_DONE check then sees
	 * a registry that changed since the last step (NLM_F_DUMP_INTR).
	 */
	cb->seq = (unsigned int)reg_gen + 1;
	cb->args[0] = pos;
	if (ret == -EINTR)
		return ret;
	/*
	 * An error before any filter of this step (ENOMEM of a filter's
	 * slice info; EMSGSIZE cannot happen, a filter is ~300 bytes and
	 * its slices ~1 KiB): the dump fails.  Returning 0 would end it,
	 * silently short of that filter and the rest.
	 */
	if (ret && !skb->len)
		return ret;
	return skb->len;
}

/* ---- keys ---------------------------------------------------------------- */

int kb_nl_keys_count(const struct nlattr *batch, u32 *n,
		     struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int rem;

	*n = 0;
	nla_for_each_nested(a, batch, rem) {
		if (++*n > KB_NL_KEYS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "kbloom: KEYS holds more than 1024 keys");
			return -EINVAL;
		}
	}
	if (!*n) {
		NL_SET_ERR_MSG_ATTR(extack, batch, "kbloom: KEYS holds no key");
		return -EINVAL;
	}
	return 0;
}

int kb_nl_keys_fill(const struct nlattr *batch, u32 key_type,
		    struct kb_key *keys, struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int rem, i = 0;

	nla_for_each_nested(a, batch, rem) {
		keys[i].data = nla_data(a);
		keys[i].len = nla_len(a);
		if (kb_key_validate(key_type, keys[i].data, keys[i].len)) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "kbloom: malformed key for the filter's key type");
			return -EINVAL;
		}
		i++;
	}
	return 0;
}

static int kb_nl_keys(struct sk_buff *skb, struct genl_info *info,
		      enum kb_op op, u8 cmd)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *batch, *res;
	struct kb_key *keys = NULL;
	char name[KB_NAME_MAX];
	struct sk_buff *msg;
	u64 *bits = NULL;
	u32 n = 0, i, bad, hits = 0;
	bool over = false;
	struct kb_set *s;
	void *hdr;
	int ret;

	ret = kb_nl_name(info, KB_A_NAME, name);
	if (ret)
		return ret;
	if (kb_nl_missing(info, KB_A_KEYS))
		return -EINVAL;
	batch = info->attrs[KB_A_KEYS];
	ret = kb_nl_keys_count(batch, &n, extack);
	if (ret)
		return ret;
	s = kb_set_find(genl_info_net(info), name, false);
	if (IS_ERR(s)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[KB_A_NAME],
				    "kbloom: no such filter");
		return PTR_ERR(s);
	}
	keys = kmalloc_array(n, sizeof(*keys), GFP_KERNEL);
	bits = kcalloc(DIV_ROUND_UP(n, 64), sizeof(*bits), GFP_KERNEL);
	if (!keys || !bits) {
		ret = -ENOMEM;
		goto out;
	}
	/* the whole batch is validated before anything is done */
	ret = kb_nl_keys_fill(batch, s->key_type, keys, extack);
	if (ret)
		goto out;
	ret = kb_set_keys(s, op, keys, n, bits, &bad, &over, extack);
	if (ret < 0)
		goto out;
	if (over)
		kb_reg_announce(genl_info_net(info), KB_EVENT_OVER_CAPACITY,
				name, NULL);
	ret = 0;
	if (op == KB_OP_ADD)
		goto out;
	msg = genlmsg_new(nla_total_size(n) + NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	hdr = genlmsg_put_reply(msg, info, &kb_genl_family, 0, cmd);
	res = hdr && !nla_put_string(msg, KB_A_NAME, name) ?
		nla_reserve(msg, KB_A_RESULT, n) : NULL;
	if (res) {
		u8 *r = nla_data(res);

		for (i = 0; i < n; i++) {
			r[i] = (bits[i / 64] >> (i % 64)) & 1;
			hits += r[i];
		}
	}
	if (!res || nla_put_u32(msg, KB_A_MATCHES, hits)) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out:
	kfree(bits);
	kfree(keys);
	kb_set_put(s);
	return ret;
}

static int kb_nl_add(struct sk_buff *skb, struct genl_info *info)
{
	return kb_nl_keys(skb, info, KB_OP_ADD, KB_CMD_ADD);
}

static int kb_nl_test(struct sk_buff *skb, struct genl_info *info)
{
	return kb_nl_keys(skb, info, KB_OP_TEST, KB_CMD_TEST);
}

static int kb_nl_del(struct sk_buff *skb, struct genl_info *info)
{
	return kb_nl_keys(skb, info, KB_OP_DEL, KB_CMD_DEL);
}

static int kb_nl_test_add(struct sk_buff *skb, struct genl_info *info)
{
	return kb_nl_keys(skb, info, KB_OP_TEST_ADD, KB_CMD_TEST_ADD);
}

/* ---- family ---------------------------------------------------------------- */

static const struct genl_ops kb_genl_ops[] = {
	{
		.cmd = KB_CMD_CREATE,
		.doit = kb_nl_create,
		KB_NL_POLICY(kbloom_create_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_DESTROY,
		.doit = kb_nl_destroy,
		KB_NL_POLICY(kbloom_destroy_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_GET,
		.doit = kb_nl_get,
		.dumpit = kb_nl_get_dump,
		KB_NL_POLICY(kbloom_get_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_ADD,
		.doit = kb_nl_add,
		KB_NL_POLICY(kbloom_add_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_TEST,
		.doit = kb_nl_test,
		KB_NL_POLICY(kbloom_test_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_DEL,
		.doit = kb_nl_del,
		KB_NL_POLICY(kbloom_del_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_TEST_ADD,
		.doit = kb_nl_test_add,
		KB_NL_POLICY(kbloom_test_add_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_SWAP,
		.doit = kb_nl_swap,
		KB_NL_POLICY(kbloom_swap_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_RENAME,
		.doit = kb_nl_rename,
		KB_NL_POLICY(kbloom_rename_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_FLUSH,
		.doit = kb_nl_flush,
		KB_NL_POLICY(kbloom_flush_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_EXPORT,
		.start = kb_nl_export_start,
		.dumpit = kb_nl_export_dump,
		.done = kb_nl_export_done,
		KB_NL_POLICY(kbloom_export_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_EXCEPT_ADD,
		.doit = kb_nl_except_add,
		KB_NL_POLICY(kbloom_except_add_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_EXCEPT_DEL,
		.doit = kb_nl_except_del,
		KB_NL_POLICY(kbloom_except_del_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_EXCEPT_FLUSH,
		.doit = kb_nl_except_flush,
		KB_NL_POLICY(kbloom_except_flush_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_EXCEPT_LIST,
		.dumpit = kb_nl_except_list,
		KB_NL_POLICY(kbloom_except_list_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = KB_CMD_GRANT,
		.doit = kb_nl_grant,
		KB_NL_POLICY(kbloom_grant_nl_policy),
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group kb_genl_mcgrps[] = {
	[KBLOOM_NLGRP_EVENTS] = {
		.name = KB_GENL_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

/*
 * resv_start_op stays 0: every command gets strict validation (unknown
 * attributes, reserved genlmsghdr field) on 6.1 and 6.12 alike.
 */
struct genl_family kb_genl_family = {
	.name = KB_GENL_NAME,
	.version = KB_GENL_VERSION,
	.maxattr = KB_A_MAX,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = kb_genl_ops,
	.n_ops = ARRAY_SIZE(kb_genl_ops),
	.mcgrps = kb_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(kb_genl_mcgrps),
};

void kb_nl_notify(struct net *net, enum kb_nl_event ev, const char *name,
		  const char *name2)
{
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&kb_genl_family, net, KBLOOM_NLGRP_EVENTS))
		return;
	skb = genlmsg_new(nla_total_size(sizeof(u32)) +
			  2 * nla_total_size(KB_NAME_MAX), GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &kb_genl_family, 0, KB_CMD_EVENT);
	if (!hdr || nla_put_u32(skb, KB_A_EVENT, ev) ||
	    nla_put_string(skb, KB_A_NAME, name) ||
	    (name2 && nla_put_string(skb, KB_A_NAME2, name2))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&kb_genl_family, net, skb, 0,
				KBLOOM_NLGRP_EVENTS, GFP_KERNEL);
}

int kb_nl_init(void)
{
	/*
	 * Released in 0.1.0: numbers of commands, attributes and events
	 * never change; new ones go after these (uapi/kbloom.yaml, make
	 * regen: the order of its lists is the ABI)
	 */
	BUILD_BUG_ON(KB_CMD_EXPORT != 11 || KB_CMD_EVENT != 12);
	BUILD_BUG_ON(KB_A_CHUNK != 34 || KB_KA_MAX != 1);
	BUILD_BUG_ON(KB_EVENT_REBUILT != 6);
	/* and those of 0.2.0 (exceptions) */
	BUILD_BUG_ON(KB_CMD_EXCEPT_LIST != 16 || KB_A_EXIST != 38);
	BUILD_BUG_ON(KB_EVENT_REFUSED != 8);
	return genl_register_family(&kb_genl_family);
}

void kb_nl_exit(void)
{
	genl_unregister_family(&kb_genl_family);
}
