// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom registry: the named filters of each network namespace, their
 * generations, limits, swap/rename/flush/destroy and rebuild transactions.
 * See internal.h for the objects, lifetimes and lock order.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/sched.h>

#include "internal.h"

static atomic64_t kb_gen_seq = ATOMIC64_INIT(0);
static atomic64_t kb_set_ids = ATOMIC64_INIT(0);

/* payloads of 2 MiB and more get huge vmalloc mappings where possible */
#define KB_HUGE_MIN	(2UL << 20)

bool kb_name_ok(const char *name, struct netlink_ext_ack *extack)
{
	size_t len = strnlen(name, KB_NAME_MAX);

	if (len < KB_NAME_MAX && kb_name_valid(name, len))
		return true;
	NL_SET_ERR_MSG_MOD(extack, "bad filter name (1..31 of [A-Za-z0-9_.:-])");
	return false;
}

/*
 * A sizing field of another mode, or a seed the hash does not use, is
 * refused rather than ignored: the caller asked for something the filter
 * would silently not do.  Returns the field as its netlink attribute (for
 * the extack offset; the ioctl fields have the same names), 0 if none.
 */
int kb_spec_unused(const struct kb_spec *s, struct netlink_ext_ack *extack)
{
	if (s->fpr_ppb && s->sizing != KB_SIZING_FPR) {
		NL_SET_ERR_MSG_MOD(extack, "FPR_PPB is only for sizing by items + FPR_PPB");
		return KB_A_FPR_PPB;
	}
	if (s->bits_per_key && s->sizing != KB_SIZING_BPK) {
		NL_SET_ERR_MSG_MOD(extack, "BITS_PER_KEY is only for sizing by bits per key");
		return KB_A_BITS_PER_KEY;
	}
	if (s->m && s->sizing != KB_SIZING_MK) {
		NL_SET_ERR_MSG_MOD(extack, "M is only for sizing by M + K");
		return KB_A_M;
	}
	if (s->k && s->sizing != KB_SIZING_MK) {
		NL_SET_ERR_MSG_MOD(extack, "K is only for sizing by M + K");
		return KB_A_K;
	}
	if (s->has_seed && s->hash == KB_HASH_LEVELDB) {
		NL_SET_ERR_MSG_MOD(extack, "SEED: the leveldb hash (classic filters) takes no seed");
		return KB_A_SEED;
	}
	if (s->has_seed && s->hash == KB_HASH_XXH64 && s->seed[1]) {
		NL_SET_ERR_MSG_MOD(extack, "SEED: xxh64 uses only the first word (the second must be 0)");
		return KB_A_SEED;
	}
	return 0;
}

int kb_params_from_spec(struct kb_params *p, const struct kb_spec *s,
			struct netlink_ext_ack *extack)
{
	u64 max = READ_ONCE(kb_max_filter_bytes);
	int ret;

	if (kb_spec_unused(s, extack))
		return -EINVAL;

	ret = kb_params_init(p, s->kind);
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack, "unknown filter kind");
		return ret;
	}
	p->key_type = s->key_type;
	p->hash = s->hash;
	switch (s->sizing) {
	case KB_SIZING_FPR:
		ret = kb_params_from_fpr(p, s->items, s->fpr_ppb, max);
		break;
	case KB_SIZING_BPK:
		ret = kb_params_from_bpk(p, s->items, s->bits_per_key, max);
		break;
	case KB_SIZING_MK:
		p->items = s->items;
		ret = kb_params_from_mk(p, s->m, s->k, max);
		break;
	default:
		ret = -EINVAL;
	}
	if (ret) {
		if (ret == -E2BIG)
			NL_SET_ERR_MSG_MOD(extack, "filter larger than max_filter_bytes");
		else
			NL_SET_ERR_MSG_MOD(extack, "bad sizing parameters");
		return ret;
	}
	if (s->has_seed) {
		p->seed[0] = s->seed[0];
		p->seed[1] = s->seed[1];
	} else if (p->hash == KB_HASH_XXH64) {
		p->seed[0] = get_random_u64();
	} else if (p->hash == KB_HASH_SIPHASH) {
		p->seed[0] = get_random_u64();
		p->seed[1] = get_random_u64();
	}
	ret = kb_params_validate(p, max);
	if (ret)
		NL_SET_ERR_MSG_MOD(extack, "invalid parameters (hash, key type or seed)");
	return ret;
}

/* ---- generations -------------------------------------------------------- */

/* the final free of a generation: its payload is uncharged only now */
static void kb_gen_release(struct kb_gen *g)
{
	kb_acct_uncharge(g->acct, g->f.bytes);
	kb_acct_put(g->acct);
	kvfree(g->f.payload);
	kfree(g->fill);
	kfree(g);
}

static void kb_gen_free_rcu(struct rcu_head *head)
{
	kb_gen_release(container_of(head, struct kb_gen, rcu));
}

static void kb_gen_free(struct kb_gen *g)
{
	if (g)
		call_rcu(&g->rcu, kb_gen_free_rcu);
}

/*
 * The payload, with little rounding: kvmalloc() tries kmalloc() first,
 * which rounds up to a power of two (a 1.85 MiB filter would hold 2 MiB, a
 * 189 KiB one 256 KiB), and huge vmalloc rounds up to whole 2 MiB pages.
 * Exact-size page mappings cost a few more TLB entries; 2 MiB pages and
 * kmalloc are used when they waste at most 1/16.
 */
static void *kb_payload_alloc(u64 bytes, gfp_t gfp)
{
	if (bytes <= PAGE_SIZE ||
	    (bytes <= KMALLOC_MAX_SIZE &&
	     roundup_pow_of_two(bytes) - bytes <= bytes / 16))
		return kvmalloc(bytes, gfp);
	if (bytes >= KB_HUGE_MIN &&
	    round_up(bytes, KB_HUGE_MIN) - bytes <= bytes / 16)
		return kb_vmalloc_big(bytes, gfp);
	return __vmalloc(bytes, gfp);
}

/*
 * A new generation for p, charged to net.  clear: an empty filter (zeroed
 * by the allocator, page by page with rescheduling points, not by one
 * memset); else the caller fills g->f.payload (g->f.bytes long), binds it
 * with kb_filter_attach(&g->f, ...) and counts it with kb_gen_fill().  The
 * fill tracker (~4 KiB) is not charged to the namespace: it is not payload.
 */
struct kb_gen *kb_gen_new(struct net *net, const struct kb_params *p,
			  bool clear, struct netlink_ext_ack *extack)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN;
	struct kb_acct *acct = kb_net(net)->acct;
	u64 bytes = kb_params_payload_bytes(p);
	struct kb_fill *fill;
	struct kb_gen *g;
	void *payload;
	int ret;

	/* (size_t) for 32-bit kernels, where a u64 size would truncate */
	if (bytes > READ_ONCE(kb_max_filter_bytes) || (size_t)bytes != bytes) {
		NL_SET_ERR_MSG_MOD(extack, "filter larger than max_filter_bytes");
		return ERR_PTR(-E2BIG);
	}
	ret = kb_acct_charge(acct, bytes, extack);
	if (ret)
		return ERR_PTR(ret);
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	payload = kb_payload_alloc(bytes, clear ? gfp | __GFP_ZERO : gfp);
	fill = kmalloc(kb_fill_bytes(p), GFP_KERNEL_ACCOUNT);
	if (!g || !payload || !fill) {
		kfree(g);
		kvfree(payload);
		kfree(fill);
		kb_acct_uncharge(acct, bytes);
		NL_SET_ERR_MSG_MOD(extack, "out of memory for the filter");
		return ERR_PTR(-ENOMEM);
	}
	g->acct = kb_acct_get(acct);
	g->f.payload = payload;
	g->f.bytes = bytes;
	g->f.p = *p;
	g->fill = fill;
	g->id = atomic64_inc_return(&kb_gen_seq);
	if (clear) {
		ret = kb_filter_init_zeroed(&g->f, p, payload, bytes);
		if (ret) {
			kb_gen_discard(g);
			NL_SET_ERR_MSG_MOD(extack, "invalid parameters");
			return ERR_PTR(ret);
		}
		kb_fill_init_empty(g->fill, &g->f);
	}
	return g;
}

/*
 * Count an attached payload (an upload) into g's fill tracker: one scan,
 * yielding, before g is published and outside any lock.
 */
void kb_gen_fill(struct kb_gen *g)
{
	kb_fill_init(g->fill, &g->f);
}

/* free (after a grace period) a generation that is not or no longer live */
void kb_gen_discard(struct kb_gen *g)
{
	kb_gen_free(g);
}

/*
 * Validate keys[0..n) for g's key type (recording prefix lengths for adds
 * to net types) and apply op.  A bad key at index j: keys [0, j) are
 * processed, *bad = j, -EINVAL.  Returns the number of bits set in bitmap
 * (maybe present / new / deleted) otherwise.  Writers serialize.
 */
int kb_gen_keys(struct kb_gen *g, enum kb_op op, const struct kb_key *keys,
		u32 n, u64 *bitmap, u32 *bad, struct netlink_ext_ack *extack)
{
	bool adding = op == KB_OP_ADD || op == KB_OP_TEST_ADD;
	u32 i, good = n;
	int ret = 0;

	if (op == KB_OP_DEL && g->f.p.kind != KB_KIND_COUNTING) {
		NL_SET_ERR_MSG_MOD(extack, "delete needs a counting filter");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < n; i++) {
		if (adding)
			ret = kb_params_note_prefix(&g->f.p, keys[i].data,
						    keys[i].len);
		else
			ret = kb_key_validate(g->f.p.key_type, keys[i].data,
					      keys[i].len);
		if (ret) {
			good = i;
			*bad = i;
			NL_SET_ERR_MSG_MOD(extack, "malformed key for the filter's key type");
			break;
		}
	}
	if (!good)
		return ret;
	switch (op) {
	case KB_OP_ADD: {
		/* count distinct keys, as offline image builds do */
		u32 new = kb_filter_test_and_add_many(&g->f, keys, good, NULL);

		WRITE_ONCE(g->count, g->count + new);
		/* no new key, no new bit (counting: counters still move) */
		if (new || g->f.p.kind == KB_KIND_COUNTING)
			g->seq++;
		if (bitmap)
			memset(bitmap, 0, DIV_ROUND_UP(good, 64) * 8);
		break;
	}
	case KB_OP_TEST: {
		/* the keys before a bad one are processed: their answers too */
		u32 hits = kb_filter_test_many(&g->f, keys, good, bitmap);

		ret = ret ?: hits;
		break;
	}
	case KB_OP_TEST_ADD: {
		u32 new = kb_filter_test_and_add_many(&g->f, keys, good, bitmap);

		WRITE_ONCE(g->count, g->count + new);
		if (new || g->f.p.kind == KB_KIND_COUNTING)
			g->seq++;
		ret = ret ?: new;
		break;
	}
	case KB_OP_DEL: {
		int del = kb_filter_del_many(&g->f, keys, good, bitmap);

		if (del > 0) {
			WRITE_ONCE(g->count, g->count - min_t(u64, del, g->count));
			g->seq++;
		}
		ret = ret ?: del;
		break;
	}
	}
	return ret;
}

/* ---- filters ------------------------------------------------------------ */

static struct kb_set *kb_set_lookup(struct kb_net *kn, const char *name)
{
	struct kb_set *s;

	lockdep_assert_held(&kn->lock);
	list_for_each_entry(s, &kn->sets, node)
		if (!strncmp(s->name, name, KB_NAME_MAX))
			return s;
	return NULL;
}

/*
 * A referenced filter by name (user: a consumer reference), or ERR_PTR
 * (-ENOENT, -EINTR when killed waiting for the registry lock).
 */
struct kb_set *kb_set_find(struct net *net, const char *name, bool user)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *s;

	if (mutex_lock_killable(&kn->lock))
		return ERR_PTR(-EINTR);
	s = kb_set_lookup(kn, name);
	if (s) {
		refcount_inc(&s->ref);
		if (user)
			atomic_inc(&s->users);
	}
	mutex_unlock(&kn->lock);
	return s ?: ERR_PTR(-ENOENT);
}

/*
 * A referenced filter by id (kb_set.id), or ERR_PTR(-ENOENT) once it is
 * destroyed.  For holders that must not pin a filter between steps: a walk
 * of at most max_filters entries.
 */
struct kb_set *kb_set_find_id(struct net *net, u64 id)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *s, *found = NULL;

	mutex_lock(&kn->lock);
	list_for_each_entry(s, &kn->sets, node) {
		if (s->id == id) {
			refcount_inc(&s->ref);
			found = s;
			break;
		}
	}
	mutex_unlock(&kn->lock);
	return found ?: ERR_PTR(-ENOENT);
}

static void kb_set_free_rcu(struct rcu_head *head)
{
	struct kb_set *s = container_of(head, struct kb_set, rcu);

	kb_gen_release(rcu_dereference_protected(s->gen, true));
	free_percpu(s->stats);
	kfree(s);
}

void kb_set_put(struct kb_set *s)
{
	if (refcount_dec_and_test(&s->ref))
		call_rcu(&s->rcu, kb_set_free_rcu);
}

/* this_cpu ops: consumers count from any context on the same CPU */
static void kb_set_count(struct kb_set *s, u64 lookups, u64 hits, u64 adds)
{
	this_cpu_add(s->stats->lookups, lookups);
	this_cpu_add(s->stats->hits, hits);
	this_cpu_add(s->stats->adds, adds);
}

/*
 * Called with s->lock held, after a lookup: 0 if s is still live, else
 * unlocks and -ENOENT (destroyed since it was looked up).
 */
static int kb_set_unless_dead(struct kb_set *s, struct netlink_ext_ack *extack)
{
	if (!s->dead)
		return 0;
	mutex_unlock(&s->lock);
	NL_SET_ERR_MSG_MOD(extack, "the filter was destroyed");
	return -ENOENT;
}

/*
 * kb_gen_keys() on the live generation: tests under RCU only, changes
 * under the filter's mutex (so they are serialized; concurrent tests see
 * bits only go 0 -> 1).
 */
int kb_set_keys(struct kb_set *s, enum kb_op op, const struct kb_key *keys,
		u32 n, u64 *bitmap, u32 *bad, struct netlink_ext_ack *extack)
{
	struct kb_gen *g;
	int ret;

	if (op == KB_OP_TEST) {
		rcu_read_lock();
		g = rcu_dereference(s->gen);
		/* as for the changes: destroyed since looked up is gone */
		if (READ_ONCE(s->dead)) {
			rcu_read_unlock();
			NL_SET_ERR_MSG_MOD(extack, "the filter was destroyed");
			return -ENOENT;
		}
		ret = kb_gen_keys(g, op, keys, n, bitmap, bad, extack);
		rcu_read_unlock();
		if (ret >= 0)
			kb_set_count(s, n, ret, 0);
		return ret;
	}
	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	ret = kb_set_unless_dead(s, extack);
	if (ret)
		return ret;
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	ret = kb_gen_keys(g, op, keys, n, bitmap, bad, extack);
	mutex_unlock(&s->lock);
	if (ret >= 0 && op == KB_OP_ADD)
		kb_set_count(s, 0, 0, n);
	else if (ret >= 0 && op == KB_OP_TEST_ADD)
		kb_set_count(s, n, n - ret, n);
	return ret;
}

/*
 * The statistics come from the generation's fill tracker, copied under the
 * filter mutex (writers update it under that mutex) and computed after:
 * no payload scan, and a critical section of a few copies.
 */
int kb_set_info(struct kb_set *s, struct kb_info *info)
{
	struct kb_filter f;
	struct kb_fill fill;
	struct kb_gen *g;
	int cpu;

	memset(info, 0, sizeof(*info));
	for_each_possible_cpu(cpu) {
		struct kb_pcpu *c = per_cpu_ptr(s->stats, cpu);

		info->lookups += READ_ONCE(c->lookups);
		info->hits += READ_ONCE(c->hits);
		info->adds += READ_ONCE(c->adds);
	}
	info->refs = atomic_read(&s->users);
	/* the mutex keeps the generation, its params and fill stable */
	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	info->p = g->f.p;
	info->count = g->count;
	info->gen_id = g->id;
	f = g->f;
	/* the counters only: kb_filter_stats_fill() reads no term */
	fill = *g->fill;
	mutex_unlock(&s->lock);
	f.fill = &fill;
	kb_filter_stats_fill(&f, &info->st);
	return 0;
}

/* insert a new filter holding generation g (charged); kn->lock held */
static int kb_set_insert(struct net *net, const char *name, struct kb_gen *g,
			 struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *s;

	lockdep_assert_held(&kn->lock);
	if (kb_set_lookup(kn, name)) {
		NL_SET_ERR_MSG_MOD(extack, "a filter of that name exists");
		return -EEXIST;
	}
	if (kn->nsets >= READ_ONCE(kb_max_filters)) {
		NL_SET_ERR_MSG_MOD(extack, "namespace has max_filters filters");
		return -ENOSPC;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	s->stats = alloc_percpu_gfp(struct kb_pcpu, GFP_KERNEL_ACCOUNT);
	if (!s->stats) {
		kfree(s);
		return -ENOMEM;
	}
	strscpy(s->name, name, KB_NAME_MAX);
	s->id = atomic64_inc_return(&kb_set_ids);
	s->key_type = g->f.p.key_type;
	mutex_init(&s->lock);
	refcount_set(&s->ref, 1);
	RCU_INIT_POINTER(s->gen, g);
	list_add_tail(&s->node, &kn->sets);
	kn->nsets++;
	kn->reg_gen++;
	return 0;
}

int kb_reg_create(struct net *net, const char *name,
		  const struct kb_params *p, struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(net);
	struct kb_gen *g;
	int ret;

	/* cheap checks first, so that a doomed create allocates nothing */
	if (mutex_lock_killable(&kn->lock))
		return -EINTR;
	ret = kb_set_lookup(kn, name) ? -EEXIST : 0;
	if (!ret && kn->nsets >= READ_ONCE(kb_max_filters))
		ret = -ENOSPC;
	mutex_unlock(&kn->lock);
	if (ret) {
		if (ret == -EEXIST)
			NL_SET_ERR_MSG_MOD(extack, "a filter of that name exists");
		else
			NL_SET_ERR_MSG_MOD(extack, "namespace has max_filters filters");
		return ret;
	}
	g = kb_gen_new(net, p, true, extack);
	if (IS_ERR(g))
		return PTR_ERR(g);
	ret = mutex_lock_killable(&kn->lock);
	if (!ret) {
		ret = kb_set_insert(net, name, g, extack);
		mutex_unlock(&kn->lock);
	}
	if (ret)
		kb_gen_discard(g);
	else
		kb_nl_notify(net, KB_REG_CREATED, name, NULL);
	return ret;
}

/* publish g in s (charged to net); old generation freed after a GP */
static int kb_set_replace(struct net *net, struct kb_set *s, struct kb_gen *g,
			  struct netlink_ext_ack *extack)
{
	struct kb_gen *old;

	if (g->f.p.key_type != s->key_type) {
		NL_SET_ERR_MSG_MOD(extack, "the key type of a filter cannot change");
		return -EINVAL;
	}
	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	if (kb_set_unless_dead(s, extack))
		return -ENOENT;
	old = rcu_replace_pointer(s->gen, g, lockdep_is_held(&s->lock));
	mutex_unlock(&s->lock);
	kb_gen_discard(old);
	return 0;
}

int kb_reg_upload(struct net *net, const char *name, struct kb_gen *g,
		  bool create, struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *s;
	int ret;

	if (mutex_lock_killable(&kn->lock))
		return -EINTR;
	s = kb_set_lookup(kn, name);
	if (!s && create)
		ret = kb_set_insert(net, name, g, extack);
	else if (!s)
		ret = -ENOENT;
	else
		ret = kb_set_replace(net, s, g, extack);
	mutex_unlock(&kn->lock);
	if (ret == -ENOENT && !s)
		NL_SET_ERR_MSG_MOD(extack, "no such filter");
	if (!ret)
		kb_nl_notify(net, s ? KB_REG_REBUILT : KB_REG_CREATED, name,
			     NULL);
	return ret;
}

/* unlink s from the table; kn->lock held; drops the table's reference */
static void kb_set_unlink(struct net *net, struct kb_set *s)
{
	struct kb_net *kn = kb_net(net);

	mutex_lock(&s->lock);
	WRITE_ONCE(s->dead, true);	/* TEST reads it without the lock */
	mutex_unlock(&s->lock);
	list_del(&s->node);
	kn->nsets--;
	kn->reg_gen++;
	kb_set_put(s);
}

int kb_reg_destroy(struct net *net, const char *name,
		   struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *s;
	int ret = 0;

	if (mutex_lock_killable(&kn->lock))
		return -EINTR;
	s = kb_set_lookup(kn, name);
	if (!s) {
		NL_SET_ERR_MSG_MOD(extack, "no such filter");
		ret = -ENOENT;
	} else if (atomic_read(&s->users)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "filter held by %d in-kernel consumers",
				       atomic_read(&s->users));
		ret = -EBUSY;
	} else {
		kb_set_unlink(net, s);
	}
	mutex_unlock(&kn->lock);
	if (!ret)
		kb_nl_notify(net, KB_REG_DESTROYED, name, NULL);
	return ret;
}

/* zero the live generation in place (bits may go 1 -> 0 for readers) */
int kb_reg_flush(struct net *net, const char *name,
		 struct netlink_ext_ack *extack)
{
	struct kb_set *s = kb_set_find(net, name, false);
	struct kb_gen *g;
	u32 i;

	if (IS_ERR(s)) {
		if (PTR_ERR(s) == -ENOENT)
			NL_SET_ERR_MSG_MOD(extack, "no such filter");
		return PTR_ERR(s);
	}
	if (mutex_lock_killable(&s->lock)) {
		kb_set_put(s);
		return -EINTR;
	}
	if (kb_set_unless_dead(s, extack)) {
		kb_set_put(s);
		return -ENOENT;
	}
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	kb_filter_clear(&g->f);
	WRITE_ONCE(g->f.p.plen4, 0);
	for (i = 0; i < ARRAY_SIZE(g->f.p.plen6); i++)
		WRITE_ONCE(g->f.p.plen6[i], 0);
	g->count = 0;
	g->seq++;
	mutex_unlock(&s->lock);
	kb_set_put(s);
	kb_nl_notify(net, KB_REG_FLUSHED, name, NULL);
	return 0;
}

int kb_reg_swap(struct net *net, const char *a, const char *b,
		struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *sa, *sb, *first, *second;
	struct kb_gen *ga, *gb;
	int ret = 0;

	if (mutex_lock_killable(&kn->lock))
		return -EINTR;
	sa = kb_set_lookup(kn, a);
	sb = kb_set_lookup(kn, b);
	if (!sa || !sb) {
		NL_SET_ERR_MSG_MOD(extack, "no such filter");
		ret = -ENOENT;
		goto out;
	}
	if (sa == sb)
		goto out;
	if (sa->key_type != sb->key_type) {
		NL_SET_ERR_MSG_MOD(extack, "swap needs filters of the same key type");
		ret = -EINVAL;
		goto out;
	}
	/* both live (kn->lock): lock the two filters in address order */
	first = sa < sb ? sa : sb;
	second = sa < sb ? sb : sa;
	if (mutex_lock_killable(&first->lock)) {
		ret = -EINTR;
		goto out;
	}
	if (mutex_lock_killable_nested(&second->lock, SINGLE_DEPTH_NESTING)) {
		mutex_unlock(&first->lock);
		ret = -EINTR;
		goto out;
	}
	ga = rcu_dereference_protected(sa->gen, lockdep_is_held(&sa->lock));
	gb = rcu_dereference_protected(sb->gen, lockdep_is_held(&sb->lock));
	rcu_assign_pointer(sa->gen, gb);
	rcu_assign_pointer(sb->gen, ga);
	mutex_unlock(&second->lock);
	mutex_unlock(&first->lock);
	kn->reg_gen++;
	mutex_unlock(&kn->lock);
	kb_nl_notify(net, KB_REG_SWAPPED, a, b);
	return 0;
out:
	mutex_unlock(&kn->lock);
	return ret;
}

int kb_reg_rename(struct net *net, const char *from, const char *to,
		  struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *s;
	int ret = 0;

	if (mutex_lock_killable(&kn->lock))
		return -EINTR;
	s = kb_set_lookup(kn, from);
	if (!s) {
		NL_SET_ERR_MSG_MOD(extack, "no such filter");
		ret = -ENOENT;
	} else if (kb_set_lookup(kn, to)) {
		NL_SET_ERR_MSG_MOD(extack, "a filter of the new name exists");
		ret = -EEXIST;
	} else if (atomic_read(&s->users)) {
		/* like ipset: a referenced set keeps its name */
		NL_SET_ERR_MSG_MOD(extack, "filter in use by an in-kernel consumer");
		ret = -EBUSY;
	} else {
		strscpy(s->name, to, KB_NAME_MAX);
		kn->reg_gen++;
	}
	mutex_unlock(&kn->lock);
	if (!ret)
		kb_nl_notify(net, KB_REG_RENAMED, from, to);
	return ret;
}

/* filters taken per kb_net.lock section of a walk */
#define KB_WALK_BATCH	8

int kb_reg_walk(struct net *net, unsigned long *pos, u64 *reg_gen,
		int (*fn)(struct kb_set *s, const char *name, void *arg),
		void *arg)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *batch[KB_WALK_BATCH];
	char names[KB_WALK_BATCH][KB_NAME_MAX];
	struct kb_set *s;
	int ret = 0;

	for (;;) {
		unsigned long i = 0;
		u32 n = 0, j;

		if (mutex_lock_killable(&kn->lock))
			return -EINTR;
		*reg_gen = kn->reg_gen;
		list_for_each_entry(s, &kn->sets, node) {
			if (i++ < *pos)
				continue;
			refcount_inc(&s->ref);
			strscpy(names[n], s->name, KB_NAME_MAX);
			batch[n++] = s;
			if (n == KB_WALK_BATCH)
				break;
		}
		mutex_unlock(&kn->lock);
		for (j = 0; j < n; j++) {
			if (!ret)
				ret = fn(batch[j], names[j], arg);
			if (!ret)
				(*pos)++;
			kb_set_put(batch[j]);
		}
		if (ret || n < KB_WALK_BATCH)
			return ret;
	}
}

/* ---- transactions ------------------------------------------------------- */

struct kb_txn *kb_txn_begin(struct net *net, const char *name,
			    const struct kb_params *p,
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
	g = kb_gen_new(net, p, true, extack);
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
	/* the staging generation has the filter's key type (begin checks) */
	if (g->f.p.key_type != t->gen->f.p.key_type) {
		NL_SET_ERR_MSG_MOD(extack, "the key type of a filter cannot change");
		return -EINVAL;
	}
	kb_gen_discard(t->gen);
	t->gen = g;
	return 0;
}

static void kb_txn_free(struct kb_txn *t)
{
	put_net(t->net);
	kfree(t);
}

/* publish the staging generation; the transaction ends either way */
int kb_txn_commit(struct kb_txn *t, struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(t->net);
	char name[KB_NAME_MAX];
	struct kb_set *s;
	int ret;

	strscpy(name, t->name, sizeof(name));
	if (t->set_id) {
		s = kb_set_find_id(t->net, t->set_id);
		if (IS_ERR(s)) {
			NL_SET_ERR_MSG_MOD(extack, "the filter was destroyed");
			ret = PTR_ERR(s);
		} else {
			ret = kb_set_replace(t->net, s, t->gen, extack);
			/* the event names the filter as it is called now */
			mutex_lock(&kn->lock);
			strscpy(name, s->name, sizeof(name));
			mutex_unlock(&kn->lock);
			kb_set_put(s);
		}
	} else {
		ret = mutex_lock_killable(&kn->lock);
		if (!ret) {
			ret = kb_set_insert(t->net, t->name, t->gen, extack);
			mutex_unlock(&kn->lock);
		}
	}
	if (ret)
		kb_gen_discard(t->gen);
	else
		kb_nl_notify(t->net, t->set_id ? KB_REG_REBUILT :
			     KB_REG_CREATED, name, NULL);
	kb_txn_free(t);
	return ret;
}

void kb_txn_abort(struct kb_txn *t)
{
	kb_gen_discard(t->gen);
	kb_txn_free(t);
}

/* ---- namespaces --------------------------------------------------------- */

int kb_net_init(struct net *net)
{
	struct kb_net *kn = kb_net(net);

	mutex_init(&kn->lock);
	INIT_LIST_HEAD(&kn->sets);
	kn->acct = kb_acct_netns_new(net);
	return kn->acct ? 0 : -ENOMEM;
}

void kb_net_exit(struct net *net)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *s, *tmp;

	mutex_lock(&kn->lock);
	list_for_each_entry_safe(s, tmp, &kn->sets, node)
		kb_set_unlink(net, s);
	mutex_unlock(&kn->lock);
	/* filters still held (consumers, RCU) keep the account alive */
	kb_acct_put(kn->acct);
}
