// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom rebuild transactions: a staging generation nobody else sees,
 * filled through an open /dev/kbloom and published by kb_txn_commit() in
 * one pointer swap.  A transaction names its filter by id and holds no
 * reference to it, so a destroyed filter's memory is not pinned by an open
 * transaction (its commit then answers ENOENT).
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

struct kb_txn *kb_txn_begin(struct net *net, const char *name,
			    const struct kb_params *p, const struct kb_shape *sh,
			    struct netlink_ext_ack *extack)
{
	struct kb_set *s = kb_set_find(net, name, false);
	struct kb_txn *t;
	struct kb_gen *g;
	u64 id = 0;		/* 0: created at commit */

	if (PTR_ERR(s) == -EINTR)
		return ERR_CAST(s);
	if (!IS_ERR(s)) {
		id = s->id;
		if (s->key_type != p->key_type) {
			kb_set_put(s);
			NL_SET_ERR_MSG_MOD(extack, "the key type of a filter cannot change");
			return ERR_PTR(-EINVAL);
		}
		/* only the id is kept: no reference pins it until commit */
		kb_set_put(s);
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return ERR_PTR(-ENOMEM);
	g = kb_gen_new(net, p, sh, true, extack);
	if (IS_ERR(g)) {
		kfree(t);
		return ERR_CAST(g);
	}
	t->net = get_net(net);
	t->set_id = id;
	t->gen = g;
	strscpy(t->name, name, KB_NAME_MAX);
	return t;
}

/* replace the staging generation (an uploaded image) */
int kb_txn_set_gen(struct kb_txn *t, struct kb_gen *g,
		   struct netlink_ext_ack *extack)
{
	int ret;

	/* the staging generation has the filter's key type (begin checks) */
	if (g->f.p.key_type != t->gen->f.p.key_type) {
		NL_SET_ERR_MSG_MOD(extack, "the key type of a filter cannot change");
		return -EINVAL;
	}
	if (kb_gen_sliced(t->gen) && !kb_gen_sliced(g)) {
		NL_SET_ERR_MSG_MOD(extack, "a window or growing filter takes images slice by slice");
		return -EOPNOTSUPP;
	}
	ret = kb_txn_use(t, KB_TXN_KEYS);
	if (ret)
		return ret;
	/* an image has no cap: the one begin gave (or its default) stays */
	if (!g->shape.max_fpr_ppb)
		g->shape.max_fpr_ppb = t->gen->shape.max_fpr_ppb;
	kb_gen_discard(t->gen);
	t->gen = g;
	return 0;
}

/* t is filled the way how from now on; EBUSY if it was the other way */
int kb_txn_use(struct kb_txn *t, enum kb_txn_fill how)
{
	if (t->fill != KB_TXN_EMPTY && t->fill != how)
		return -EBUSY;
	t->fill = how;
	return 0;
}

/*
 * Raw payload bytes into the staging generation (its owner's lock held, a
 * bounded piece: the caller copied it from the user without the lock).
 * The bounds are checked here, against the generation of now: a begin
 * after an abort between two pieces may have changed its size.
 */
int kb_txn_write(struct kb_txn *t, u64 off, const void *buf, u64 len)
{
	struct kb_gen *g = t->gen;
	int ret;

	if (off > g->f.bytes || len > g->f.bytes - off)
		return -EINVAL;
	ret = kb_txn_use(t, KB_TXN_RAW);
	if (ret)
		return ret;
	memcpy((u8 *)g->f.payload + off, buf, len);
	g->seq++;		/* an export of the transaction restarts */
	return 0;
}

/*
 * A raw-written payload is checked as an upload's (gozero: no bit past m;
 * classic: its k byte), brought to CPU order, and counted for statistics.
 */
static int kb_txn_attach(struct kb_txn *t, struct netlink_ext_ack *extack)
{
	struct kb_gen *g = t->gen;
	struct kb_params p = g->f.p;
	int ret;

	ret = kb_filter_attach(&g->f, &p, g->f.payload, g->f.bytes);
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack, "the written payload is invalid");
		return ret;
	}
	kb_gen_fill(g);
	return 0;
}

static void kb_txn_free(struct kb_txn *t)
{
	put_net(t->net);
	kfree(t);
}

/*
 * Publish the staging generation; the transaction ends either way; on
 * success *gen_id is the id of the generation it published.  The
 * guard and the capacity check read the fill tracker (no payload scan)
 * before the generation is published: after it, adds may run.
 */
int kb_txn_commit(struct kb_txn *t, u32 max_fpr_ppb, u64 *gen_id,
		  struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(t->net);
	char name[KB_NAME_MAX];
	struct kb_set *s;
	bool over = false;
	int ret;

	strscpy(name, t->name, sizeof(name));
	if (t->fill == KB_TXN_RAW) {
		ret = kb_txn_attach(t, extack);
		if (ret)
			goto out;
	}
	ret = kb_gen_guard(t->net, t->gen, name, max_fpr_ppb, extack);
	if (ret)
		goto out;
	over = kb_gen_over(t->gen);
	/*
	 * Its id now, while it is ours: once published, a flush may give it
	 * another, and a rebuild may replace and free it
	 */
	*gen_id = t->gen->id;
	if (t->set_id) {
		s = kb_set_find_id(t->net, t->set_id);
		if (IS_ERR(s)) {
			NL_SET_ERR_MSG_MOD(extack, "the filter was destroyed");
			ret = PTR_ERR(s);
		} else {
			ret = kb_set_replace(t->net, s, t->gen, extack);
			/* the event names the filter as it is called now */
			kb_set_name(s, name);
			kb_set_put(s);
		}
	} else {
		ret = mutex_lock_killable(&kn->lock);
		if (!ret) {
			ret = kb_set_insert(t->net, t->name, t->gen, NULL,
					    extack);
			mutex_unlock(&kn->lock);
		}
	}
out:
	if (ret) {
		kb_gen_discard(t->gen);
	} else {
		kb_reg_announce(t->net, t->set_id ? KB_EVENT_REBUILT :
				KB_EVENT_CREATED, name, NULL);
		if (over)
			kb_reg_announce(t->net, KB_EVENT_OVER_CAPACITY, name,
					NULL);
	}
	kb_txn_free(t);
	return ret;
}

void kb_txn_abort(struct kb_txn *t)
{
	kb_gen_discard(t->gen);
	kb_txn_free(t);
}
