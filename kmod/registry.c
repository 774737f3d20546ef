// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom registry: the named filters of each network namespace: key
 * batches on the live generation, create, upload, destroy, flush, swap,
 * the walk behind dumps, and namespace setup and teardown.  The index
 * (lookup by name and by id) and rename are in registry_index.c,
 * generations in gen.c, transactions in txn.c, the limits in limits.c.
 * See internal.h for the objects, lifetimes and lock order.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/sched.h>

#include "internal.h"
#include "lookup.h"
#include "registry.h"

static atomic64_t kb_set_ids = ATOMIC64_INIT(0);

/* ---- filters ------------------------------------------------------------ */

static void kb_set_free_rcu(struct rcu_head *head)
{
	struct kb_set *s = container_of(head, struct kb_set, rcu);

	/* a mapping may hold the generation on */
	kb_gen_put_rcu(rcu_dereference_protected(s->gen, true));
	kb_exc_release(rcu_dereference_protected(s->exc, true));
	kfree(rcu_dereference_protected(s->nm, true));
	free_percpu(s->stats);
	kfree(s);
}

/* the groups gr flags into s; s->lock held (or s not yet published) */
static void kb_set_grant(struct kb_set *s, const struct kb_grant *gr)
{
	if (gr && gr->set_readers)
		WRITE_ONCE(s->readers, gr->readers);
	if (gr && gr->set_writers)
		WRITE_ONCE(s->writers, gr->writers);
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
 * Called with s->lock held, after a lookup: true (and the extack says so)
 * if s was destroyed since it was looked up.
 */
static bool kb_set_dead(struct kb_set *s, struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&s->lock);
	if (!s->dead)
		return false;
	NL_SET_ERR_MSG_MOD(extack, "the filter was destroyed");
	return true;
}

/*
 * kb_gen_keys() on the live generation: tests under RCU only, changes
 * under the filter's mutex (so they are serialized; concurrent tests see
 * bits only go 0 -> 1).
 */
int kb_set_keys(struct kb_set *s, enum kb_op op, const struct kb_key *keys,
		u32 n, u64 *bitmap, u32 *bad, bool *over,
		struct netlink_ext_ack *extack)
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
		/*
		 * the answers of every consumer: excepted keys are absent,
		 * also those before a malformed one, which are answered too
		 */
		if (ret > 0)
			ret -= kb_exc_test_keys(s, keys, n, bitmap);
		else if (ret == -EINVAL)
			kb_exc_test_keys(s, keys, *bad, bitmap);
		if (ret >= 0)
			kb_set_count(s, n, ret, 0);
		return ret;
	}
	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	if (kb_set_dead(s, extack)) {
		mutex_unlock(&s->lock);
		return -ENOENT;
	}
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	if (unlikely(g->nslices > 1 || g->shape.grow))
		ret = kb_slices_keys(s, op, keys, n, bitmap, bad, extack);
	else
		ret = kb_gen_keys(g, op, keys, n, bitmap, bad, extack);
	/* a growth may have published a new generation */
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	if (ret >= 0 && op != KB_OP_DEL && over && kb_gen_over(g) &&
	    kb_set_over_once(s))
		*over = true;
	/* adds may note new prefix lengths (even before a bad key) */
	if (op != KB_OP_DEL && !s->dead)
		kb_map_sync(s, g);
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
		info->learn_refused += READ_ONCE(c->learn_refused);
	}
	info->refs = atomic_read(&s->users);
	info->exceptions = kb_exc_count(s);
	/* the mutex keeps the generation, its params and fill stable */
	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	/* the packet path's adds: merged, then the CPUs' pending ones */
	kb_learn_sync(g);
	info->max_fpr_ppb = kb_learn_cap(g);
	info->p = g->f.p;
	/* a sliced filter's sizing is the whole filter's, as created */
	if (g->shape.items) {
		info->p.items = g->shape.items;
		info->p.fpr_ppb = g->shape.fpr_ppb;
	}
	info->count = g->count;
	info->gen_id = g->id;
	info->set_id = s->id;
	info->readers = s->readers;
	info->writers = s->writers;
	f = g->f;
	/* the counters only: kb_filter_stats_fill() reads no term */
	fill = *g->fill;
	kb_learn_fill_read(g, &fill);
	mutex_unlock(&s->lock);
	f.fill = &fill;
	kb_filter_stats_fill(&f, &info->st);
	return 0;
}

/* insert a new filter holding generation g (charged); kn->lock held */
int kb_set_insert(struct net *net, const char *name, struct kb_gen *g,
		  const struct kb_grant *gr, struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(net);
	struct kb_name *nm;
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
	nm = kb_name_new(s, name);
	if (!nm) {
		free_percpu(s->stats);
		kfree(s);
		return -ENOMEM;
	}
	RCU_INIT_POINTER(s->nm, nm);
	s->id = atomic64_inc_return(&kb_set_ids);
	s->key_type = g->f.p.key_type;
	s->bpf.id = s->id;
	s->bpf.key_type = s->key_type;
	s->bpf.kind = g->f.p.kind;
	s->readers = INVALID_GID;
	s->writers = INVALID_GID;
	kb_set_grant(s, gr);
	mutex_init(&s->lock);
	mutex_init(&s->merge_lock);
	init_waitqueue_head(&s->wq);
	kb_learn_set_init(s);
	refcount_set(&s->ref, 1);
	kb_slices_init_set(s, net);
	RCU_INIT_POINTER(s->gen, g);
	kb_slices_arm(s);
	list_add_tail(&s->node, &kn->sets);
	/* published last: lockless readers find a complete filter */
	hlist_add_head_rcu(&s->id_node, kb_id_chain(kn, s->id));
	hlist_add_head_rcu(&nm->node, kb_name_chain(kn, nm->name, nm->len));
	kn->nsets++;
	kn->reg_gen++;
	return 0;
}

/* what the kernel log says of each event: "filter NAME <what> [NAME2]" */
static const char * const kb_event_what[KB_EVENT_MAX + 1] = {
	[KB_EVENT_CREATED] = "created",
	[KB_EVENT_DESTROYED] = "destroyed",
	[KB_EVENT_SWAPPED] = "swapped with",
	[KB_EVENT_RENAMED] = "renamed to",
	[KB_EVENT_FLUSHED] = "flushed",
	[KB_EVENT_REBUILT] = "rebuilt",
	[KB_EVENT_OVER_CAPACITY] =
		"over its configured capacity: it may match almost any key",
	[KB_EVENT_REFUSED] =
		"refused a saturated payload: the old contents serve on",
	[KB_EVENT_GRANTED] = "had its grants changed",
	[KB_EVENT_ROTATED] = "rotated",
	[KB_EVENT_GREW] = "grew a slice",
};

void kb_reg_announce(struct net *net, enum kb_nl_event ev, const char *name,
		     const char *name2)
{
	/*
	 * Names are validated ([A-Za-z0-9_.:-]): safe to log as they are.  A
	 * blocklist about to match everything is a warning, with its own rate
	 * limit, so that a burst of creates cannot hide it; so is a refused
	 * saturated payload.
	 */
	if (ev == KB_EVENT_OVER_CAPACITY || ev == KB_EVENT_REFUSED)
		pr_warn_ratelimited("netns %u: filter %s %s\n", net->ns.inum,
				    name, kb_event_what[ev]);
	else if (ev != KB_EVENT_ROTATED)	/* every window / S: pr_debug */
		pr_info_ratelimited("netns %u: filter %s %s%s%s\n",
				    net->ns.inum, name, kb_event_what[ev],
				    name2 ? " " : "", name2 ? name2 : "");
	kb_nl_notify(net, ev, name, name2);
}

int kb_reg_create(struct net *net, const char *name,
		  const struct kb_params *p, const struct kb_shape *sh,
		  const struct kb_grant *gr, struct netlink_ext_ack *extack)
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
	g = kb_gen_new(net, p, sh, true, extack);
	if (IS_ERR(g))
		return PTR_ERR(g);
	ret = mutex_lock_killable(&kn->lock);
	if (!ret) {
		ret = kb_set_insert(net, name, g, gr, extack);
		mutex_unlock(&kn->lock);
	}
	if (ret)
		kb_gen_discard(g);
	else
		kb_reg_announce(net, KB_EVENT_CREATED, name, NULL);
	return ret;
}

/* publish g in s (charged to net); old generation freed after a GP */
int kb_set_replace(struct net *net, struct kb_set *s, struct kb_gen *g,
			  struct netlink_ext_ack *extack)
{
	struct kb_gen *old;

	if (g->f.p.key_type != s->key_type) {
		NL_SET_ERR_MSG_MOD(extack, "the key type of a filter cannot change");
		return -EINVAL;
	}
	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	if (kb_set_dead(s, extack)) {
		mutex_unlock(&s->lock);
		return -ENOENT;
	}
	old = rcu_replace_pointer(s->gen, g, lockdep_is_held(&s->lock));
	WRITE_ONCE(s->bpf.kind, g->f.p.kind);
	kb_slices_arm(s);
	kb_map_retire(old, KB_MAP_REPLACED);
	mutex_unlock(&s->lock);
	kb_map_wake(s);
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
		ret = kb_set_insert(net, name, g, NULL, extack);
	else if (!s)
		ret = -ENOENT;
	else if (kb_set_sliced(s))
		ret = -EOPNOTSUPP;	/* its images are slices */
	else
		ret = kb_set_replace(net, s, g, extack);
	if (ret == -EOPNOTSUPP)
		NL_SET_ERR_MSG_MOD(extack, "a window or growing filter takes images slice by slice");
	mutex_unlock(&kn->lock);
	if (ret == -ENOENT && !s)
		NL_SET_ERR_MSG_MOD(extack, "no such filter");
	if (!ret)
		kb_reg_announce(net, s ? KB_EVENT_REBUILT : KB_EVENT_CREATED,
				name, NULL);
	return ret;
}

/* unlink s from the table; kn->lock held; drops the table's reference */
static void kb_set_unlink(struct net *net, struct kb_set *s)
{
	struct kb_net *kn = kb_net(net);

	mutex_lock(&s->lock);
	WRITE_ONCE(s->dead, true);	/* TEST reads it without the lock */
	kb_map_retire(rcu_dereference_protected(s->gen,
						lockdep_is_held(&s->lock)),
		      KB_MAP_DESTROYED);
	mutex_unlock(&s->lock);
	kb_slices_stop(s);
	kb_map_wake(s);
	/* s->nm stays for readers that hold s; freed with s */
	hlist_del_rcu(&rcu_dereference_protected(s->nm,
						 lockdep_is_held(&kn->lock))->node);
	hlist_del_rcu(&s->id_node);
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
		kb_reg_announce(net, KB_EVENT_DESTROYED, name, NULL);
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
	if (kb_set_dead(s, extack)) {
		mutex_unlock(&s->lock);
		kb_set_put(s);
		return -ENOENT;
	}
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	/*
	 * mappings see the bits go, and their header says replaced: map
	 * again, as after a rebuild (the same memory, a new id)
	 */
	kb_map_retire(g, KB_MAP_REPLACED);
	kb_gen_renew(g);
	kb_filter_clear(&g->f);
	kb_slices_flush(g);
	WRITE_ONCE(g->f.p.plen4, 0);
	for (i = 0; i < ARRAY_SIZE(g->f.p.plen6); i++)
		WRITE_ONCE(g->f.p.plen6[i], 0);
	g->count = 0;
	g->over_told = false;
	clear_bit(0, &s->over);
	kb_learn_reset(g);
	g->seq++;
	mutex_unlock(&s->lock);
	kb_map_wake(s);
	kb_set_put(s);
	kb_reg_announce(net, KB_EVENT_FLUSHED, name, NULL);
	return 0;
}

/*
 * Grants belong to the filter, not to a generation: rebuilds, uploads,
 * swaps (each keeps its own, as its exceptions) and renames keep them.
 */
int kb_reg_grant(struct net *net, const char *name, const struct kb_grant *gr,
		 struct netlink_ext_ack *extack)
{
	struct kb_set *s = kb_set_find(net, name, false);
	int ret;

	if (IS_ERR(s)) {
		if (PTR_ERR(s) == -ENOENT)
			NL_SET_ERR_MSG_MOD(extack, "no such filter");
		return PTR_ERR(s);
	}
	ret = mutex_lock_killable(&s->lock);
	if (!ret) {
		ret = kb_set_dead(s, extack) ? -ENOENT : 0;
		if (!ret)
			kb_set_grant(s, gr);
		mutex_unlock(&s->lock);
	}
	kb_set_put(s);
	if (!ret)
		kb_reg_announce(net, KB_EVENT_GRANTED, name, NULL);
	return ret;
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
	WRITE_ONCE(sa->bpf.kind, gb->f.p.kind);
	WRITE_ONCE(sb->bpf.kind, ga->f.p.kind);
	kb_slices_arm(sa);
	kb_slices_arm(sb);
	/* each now serves the other filter: new headers (id, exceptions) */
	kb_map_retire(ga, KB_MAP_REPLACED);
	kb_map_retire(gb, KB_MAP_REPLACED);
	mutex_unlock(&second->lock);
	mutex_unlock(&first->lock);
	kb_map_wake(sa);
	kb_map_wake(sb);
	kn->reg_gen++;
	mutex_unlock(&kn->lock);
	kb_reg_announce(net, KB_EVENT_SWAPPED, a, b);
	return 0;
out:
	mutex_unlock(&kn->lock);
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
			strscpy(names[n], rcu_dereference_protected(s->nm,
					lockdep_is_held(&kn->lock))->name,
				KB_NAME_MAX);
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

/* ---- namespaces --------------------------------------------------------- */

int kb_net_init(struct net *net)
{
	struct kb_net *kn = kb_net(net);

	mutex_init(&kn->lock);
	INIT_LIST_HEAD(&kn->sets);
	/* the heads are zeroed (empty hlists) with the rest of kn */
	kn->seed = get_random_u32();
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
