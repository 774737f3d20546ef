// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: KB_CMD_EXPORT, a filter's image (uapi section 2) as a dump of
 * chunks (uapi section 4).
 *
 * ->start binds the export to the filter's id (kb_set.id), generation id,
 * change counter (kb_gen.seq) and prefix bitmaps and builds the image
 * header.  No reference is held between steps (an idle dump socket must not
 * pin a destroyed filter's memory): every dump step re-finds the filter by
 * id (gone: the dump ends with ENOENT), takes its mutex (writers are
 * excluded while it copies),
 * checks that none of those changed (else the dump ends with EAGAIN:
 * "filter changed during export, retry"), and fills the skb with chunks
 * that the core's image cursor (struct kb_image_cur) writes, CRC trailer
 * included.  So a completed export is one consistent image,
 * byte-identical to KB_IOC_EXPORT's, without copying the filter first.
 * A window or growing filter is exported slice by slice (KB_A_SLICE_INDEX,
 * slices_image.c): its chunks carry the index and the slice's age.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/capability.h>
#include <net/sock.h>

#include "netlink.h"
#include "slices_image.h"

struct kb_export {
	u64 set_id;			/* kb_set.id; 0: start failed */
	u32 slice;			/* KB_A_SLICE_INDEX, 0: the filter */
	u64 age_ms;			/* the slice's, at the start */
	u64 gen_id;
	u64 seq;
	u64 plen4;
	u64 plen6[3];
	struct kb_image_cur cur;	/* header, offset, CRC */
	char name[KB_NAME_MAX];
	int err;			/* a failed start (6.1), or 0 */
	const char *err_msg;
};

/* bind x to the filter the request names; extack may be a local one */
static int kb_nl_export_begin(struct netlink_callback *cb,
			      struct kb_export *x,
			      struct netlink_ext_ack *extack)
{
	struct net *net = sock_net(cb->skb->sk);
	struct nlattr *tb[ARRAY_SIZE(kbloom_export_nl_policy)];
	const struct kb_filter *f;
	struct kb_set *s;
	struct kb_gen *g;
	u64 count;
	int ret;

	/* validated by the core already: this only finds the attributes */
	ret = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, ARRAY_SIZE(tb) - 1,
			  kbloom_export_nl_policy, extack);
	if (ret)
		return ret;
	if (!tb[KB_A_NAME]) {
		NL_SET_ERR_ATTR_MISS(extack, NULL, KB_A_NAME);
		kb_nl_msg(extack, kb_missing_msg[KB_A_NAME]);
		return -EINVAL;
	}
	nla_strscpy(x->name, tb[KB_A_NAME], KB_NAME_MAX);
	if (!kb_name_ok(x->name, NULL)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KB_A_NAME],
				    "kbloom: bad filter name (1..31 of [A-Za-z0-9_.:-])");
		return -EINVAL;
	}
	s = kb_set_find(net, x->name, false);
	if (IS_ERR(s)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KB_A_NAME], "kbloom: no such filter");
		return PTR_ERR(s);
	}
	if (tb[KB_A_SLICE_INDEX])
		x->slice = nla_get_u32(tb[KB_A_SLICE_INDEX]);
	mutex_lock(&s->lock);
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	ret = kb_gen_slice_out(g, x->slice, &f, &count, &x->age_ms, extack);
	if (ret) {
		mutex_unlock(&s->lock);
		kb_set_put(s);
		NL_SET_BAD_ATTR(extack, tb[KB_A_SLICE_INDEX]);
		return ret;
	}
	x->set_id = s->id;
	x->gen_id = g->id;
	x->seq = g->seq;
	x->plen4 = f->p.plen4;
	memcpy(x->plen6, f->p.plen6, sizeof(x->plen6));
	kb_image_cur_write_begin(&x->cur, &f->p, count);
	mutex_unlock(&s->lock);
	kb_set_put(s);
	return 0;
}

/*
 * 6.12 gives ->start() the request's extack: a failure is the request's
 * NLMSG_ERROR ack.  6.1 does not (cb->extack is NULL there): the failure
 * and its message are then kept for the first dump step and arrive in
 * NLMSG_DONE, so the message reaches the caller on both kernels.
 */
int kb_nl_export_start(struct netlink_callback *cb)
{
	struct netlink_ext_ack local = {};
	struct kb_export *x;
	int ret;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	ret = kb_nl_export_begin(cb, x, cb->extack ?: &local);
	if (ret && cb->extack) {
		kfree(x);
		return ret;
	}
	x->err = ret;
	x->err_msg = local._msg;
	cb->args[0] = (unsigned long)x;
	return 0;
}

int kb_nl_export_done(struct netlink_callback *cb)
{
	struct kb_export *x = (struct kb_export *)cb->args[0];

	kfree(x);
	return 0;
}

int kb_nl_export_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kb_export *x = (struct kb_export *)cb->args[0];
	const struct kb_filter *f = NULL;
	struct nlattr *chunk;
	struct kb_set *s;
	struct kb_gen *g;
	u64 count, age;
	int ret = 0, room;
	void *hdr;
	u32 len;

	if (x->err) {
		kb_nl_msg(cb->extack, x->err_msg);
		return x->err;
	}
	if (x->cur.off >= x->cur.total)
		return 0;
	s = kb_set_find_id(sock_net(cb->skb->sk), x->set_id);
	if (IS_ERR(s)) {
		NL_SET_ERR_MSG(cb->extack,
			       "kbloom: filter destroyed during export");
		return PTR_ERR(s);
	}
	if (mutex_lock_killable(&s->lock)) {
		kb_set_put(s);
		return -EINTR;
	}
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	if (s->dead) {
		ret = -ENOENT;
		NL_SET_ERR_MSG(cb->extack,
			       "kbloom: filter destroyed during export");
	} else if (g->id != x->gen_id || g->seq != x->seq ||
		   kb_gen_slice_out(g, x->slice, &f, &count, &age, NULL) ||
		   f->p.plen4 != x->plen4 ||
		   memcmp(f->p.plen6, x->plen6, sizeof(x->plen6))) {
		ret = -EAGAIN;
		NL_SET_ERR_MSG(cb->extack,
			       "kbloom: filter changed during export, retry");
	}
	if (ret) {
		mutex_unlock(&s->lock);
		kb_set_put(s);
		return ret;
	}
	while (x->cur.off < x->cur.total) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &kb_genl_family,
				  NLM_F_MULTI, KB_CMD_EXPORT);
		if (!hdr)
			break;
		if (nla_put_string(skb, KB_A_NAME, x->name) ||
		    kb_nl_put_u64(skb, KB_A_IMAGE_SIZE, x->cur.total) ||
		    kb_nl_put_u64(skb, KB_A_OFFSET, x->cur.off) ||
		    (x->slice &&
		     (nla_put_u32(skb, KB_A_SLICE_INDEX, x->slice) ||
		      kb_nl_put_u64(skb, KB_A_AGE_MS, x->age_ms)))) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		room = (int)skb_tailroom(skb) - nla_total_size(0) - 8;
		if (room < 64) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		len = min_t(u64, x->cur.total - x->cur.off,
			    min_t(u32, KB_NL_CHUNK_MAX, room & ~7));
		chunk = nla_reserve(skb, KB_A_CHUNK, len);
		if (!chunk) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		kb_image_cur_produce(&x->cur, f, nla_data(chunk), len);
		genlmsg_end(skb, hdr);
	}
	mutex_unlock(&s->lock);
	kb_set_put(s);
	if (!skb->len)
		ret = -EMSGSIZE;
	return ret ?: skb->len;
}
