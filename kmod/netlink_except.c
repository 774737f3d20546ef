// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: KB_CMD_EXCEPT_ADD, _DEL, _FLUSH and _LIST, a filter's exception
 * set (except.c; uapi section 4).
 *
 * The list is a dump: the set can hold more than a message.  No reference
 * is held between steps (an idle dump socket must not pin a destroyed
 * filter): each step re-finds the filter by id and walks the set from its
 * position; a set replaced since the first step ends the dump with EAGAIN.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <net/sock.h>

#include "netlink.h"

/* the filter named by the request's KB_A_NAME (a reference), or ERR_PTR */
static struct kb_set *kb_nl_exc_set(struct net *net, struct nlattr *name,
				    struct netlink_ext_ack *extack)
{
	char buf[KB_NAME_MAX];
	struct kb_set *s;

	if (!name) {
		NL_SET_ERR_ATTR_MISS(extack, NULL, KB_A_NAME);
		kb_nl_msg(extack, kb_missing_msg[KB_A_NAME]);
		return ERR_PTR(-EINVAL);
	}
	nla_strscpy(buf, name, KB_NAME_MAX);
	if (!kb_name_ok(buf, NULL)) {
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "kbloom: bad filter name (1..31 of [A-Za-z0-9_.:-])");
		return ERR_PTR(-EINVAL);
	}
	s = kb_set_find(net, buf, false);
	if (IS_ERR(s))
		NL_SET_ERR_MSG_ATTR(extack, name, "kbloom: no such filter");
	return s;
}

static int kb_nl_exc_change(struct genl_info *info, bool add)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *a, *batch = info->attrs[KB_A_KEYS];
	struct kb_key *keys = NULL;
	struct kb_set *s;
	u32 n = 0, i, bad = 0;
	int rem, ret;

	s = kb_nl_exc_set(genl_info_net(info), info->attrs[KB_A_NAME], extack);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (!batch) {
		NL_SET_ERR_ATTR_MISS(extack, NULL, KB_A_KEYS);
		kb_nl_msg(extack, kb_missing_msg[KB_A_KEYS]);
		ret = -EINVAL;
		goto out;
	}
	ret = kb_nl_keys_count(batch, &n, extack);
	if (ret)
		goto out;
	keys = kmalloc_array(n, sizeof(*keys), GFP_KERNEL);
	if (!keys) {
		ret = -ENOMEM;
		goto out;
	}
	ret = kb_nl_keys_fill(batch, s->key_type, keys, extack);
	if (ret)
		goto out;
	ret = kb_exc_change(genl_info_net(info), s, add, keys, n,
			    nla_get_flag(info->attrs[KB_A_EXIST]), &bad, extack);
	if (ret == -EEXIST || (ret == -ENOENT && !READ_ONCE(s->dead))) {
		/* point at the key */
		i = 0;
		nla_for_each_nested(a, batch, rem)
			if (i++ == bad)
				NL_SET_BAD_ATTR(extack, a);
	}
out:
	kfree(keys);
	kb_set_put(s);
	return ret;
}

int kb_nl_except_add(struct sk_buff *skb, struct genl_info *info)
{
	return kb_nl_exc_change(info, true);
}

int kb_nl_except_del(struct sk_buff *skb, struct genl_info *info)
{
	return kb_nl_exc_change(info, false);
}

int kb_nl_except_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_set *s;
	int ret;

	s = kb_nl_exc_set(genl_info_net(info), info->attrs[KB_A_NAME],
			  info->extack);
	if (IS_ERR(s))
		return PTR_ERR(s);
	ret = kb_exc_flush(s, info->extack);
	kb_set_put(s);
	return ret;
}

/* cb->args: the filter's id, the position, the set's version (0: first) */
struct kb_exc_dump {
	struct sk_buff *skb;
	struct nlattr *nest;
	u32 n;
};

static int kb_nl_exc_put(const void *key, u32 len, void *arg)
{
	struct kb_exc_dump *d = arg;

	if (nla_put(d->skb, KB_KA_DATA, len, key))
		return -EMSGSIZE;
	d->n++;
	return 0;
}

int kb_nl_except_list(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[ARRAY_SIZE(kbloom_except_list_nl_policy)];
	struct net *net = sock_net(cb->skb->sk);
	struct kb_exc_dump d = { .skb = skb };
	char name[KB_NAME_MAX];
	struct kb_set *s;
	u64 ver = cb->args[2];
	u32 pos = cb->args[1];
	void *hdr;
	int ret;

	if (cb->args[3])		/* the last step put everything */
		return 0;
	if (!cb->args[0]) {
		/* validated by the core already: this only finds the name */
		ret = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, ARRAY_SIZE(tb) - 1,
				  kbloom_except_list_nl_policy, cb->extack);
		if (ret)
			return ret;
		s = kb_nl_exc_set(net, tb[KB_A_NAME], cb->extack);
		if (IS_ERR(s))
			return PTR_ERR(s);
		cb->args[0] = s->id;
	} else {
		s = kb_set_find_id(net, cb->args[0]);
		if (IS_ERR(s)) {
			NL_SET_ERR_MSG(cb->extack,
				       "kbloom: filter destroyed during the list");
			return PTR_ERR(s);
		}
	}
	kb_set_name(s, name);
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &kb_genl_family, NLM_F_MULTI, KB_CMD_EXCEPT_LIST);
	if (!hdr || nla_put_string(skb, KB_A_NAME, name)) {
		kb_set_put(s);
		return -EMSGSIZE;
	}
	d.nest = nla_nest_start(skb, KB_A_KEYS);
	if (!d.nest) {
		genlmsg_cancel(skb, hdr);
		kb_set_put(s);
		return -EMSGSIZE;
	}
	ret = kb_exc_walk(s, &pos, &ver, kb_nl_exc_put, &d);
	kb_set_put(s);
	if (ret == -EAGAIN) {
		genlmsg_cancel(skb, hdr);
		NL_SET_ERR_MSG(cb->extack,
			       "kbloom: exceptions changed during the list, retry");
		return ret;
	}
	/* an empty set: one message with an empty nest, then done */
	if (!ret)
		cb->args[3] = 1;
	if (ret == -EMSGSIZE && !d.n) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, d.nest);
	genlmsg_end(skb, hdr);
	cb->args[1] = pos;
	cb->args[2] = ver;
	return skb->len;
}
