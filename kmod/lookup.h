/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-packet lookup: a filter found by id in a netns's index, and an
 * address tested in it.  Inlined into its callers, api.c (the exported
 * kbloom_test_addr_rcu() behind xt_bloom) and the XDP and tc kfuncs
 * (bpf.c), because a call and its return cost more than the rest of a
 * lookup that hits a cached block, under retpolines as under emulation.
 *
 * Every caller is inside an RCU read-side section already: a netfilter
 * hook, or a BPF program of a type that cannot sleep (XDP, SCHED_CLS),
 * which the kernel runs under rcu_read_lock() or with BH disabled, both
 * RCU readers since the flavours were consolidated (4.20; PREEMPT_RT's
 * local_bh_disable() takes rcu_read_lock()).  So nothing here takes one,
 * and the checks below accept any flavour.
 */
#ifndef _KB_KMOD_LOOKUP_H
#define _KB_KMOD_LOOKUP_H

#include <linux/hash.h>
#include <linux/socket.h>

#include "internal.h"
#include "kb_blocked.h"

/*
 * kb_net() without net_generic()'s own rcu_read_lock()/unlock() pair (two
 * calls under PREEMPT_RCU, which Debian's kernels have): the same two
 * loads, under the caller's RCU section.
 */
static __always_inline struct kb_net *kb_net_rcu(const struct net *net)
{
	const struct net_generic *ng;

	ng = rcu_dereference_check(net->gen, rcu_read_lock_any_held());
	return ng->ptr[kb_net_id];
}

static __always_inline struct hlist_head *kb_id_chain(struct kb_net *kn,
						      u64 id)
{
	return &kn->ids[hash_64(id, KB_NET_HASH_BITS)];
}

/* the filter of id in kn, or NULL; RCU or kn->lock held */
static __always_inline struct kb_set *kb_index_id(struct kb_net *kn, u64 id)
{
	struct kb_set *s;

	hlist_for_each_entry_rcu(s, kb_id_chain(kn, id), id_node,
				 lockdep_is_held(&kn->lock))
		if (s->id == id)
			return s;
	return NULL;
}

/*
 * this_cpu ops: safe against interrupts on this CPU.  Most tested keys are
 * absent, so a lookup usually costs one per-CPU increment.
 */
static __always_inline void kb_set_count_lookup(struct kb_set *s, bool hit)
{
	struct kb_pcpu __percpu *c = s->stats;

	this_cpu_inc(c->lookups);
	if (unlikely(hit))
		this_cpu_inc(c->hits);
}

/*
 * After a maybe only (most tested keys are absent, and those cost nothing
 * more): whether the filter's exception set (except.c) holds the address,
 * or for net key types a prefix of it.  A filter without exceptions costs
 * one load; the search is out of line.
 */
static __always_inline bool kb_set_excepted_addr(struct kb_set *s,
						 int family, const void *addr)
{
	const struct kb_exc *e;

	e = rcu_dereference_check(s->exc, rcu_read_lock_any_held());
	return unlikely(e) && kb_exc_addr(e, s->key_type, family, addr);
}

/*
 * A packet's key: the blocked kind (the one meant for blocklists) inline,
 * the others through the kind dispatch, one direct call.
 */
static __always_inline bool kb_filter_test_pkt(const struct kb_filter *f,
					       const void *key, u32 len)
{
	if (likely(f->p.kind == KB_KIND_BLOCKED))
		return kb_blocked_test_i(f, key, len);
	return kb_filter_test(f, key, len);
}

static __always_inline bool kb_filter_test_addr(const struct kb_filter *f,
						int family, const void *addr)
{
	bool v4 = family == AF_INET;

	switch (f->p.key_type) {
	case KB_KEY_IPV4:
		return v4 && kb_filter_test_pkt(f, addr, 4);
	case KB_KEY_IPV6:
		return !v4 && kb_filter_test_pkt(f, addr, 16);
	case KB_KEY_NET4:
		return v4 && kb_filter_test_prefixes(f, &f->p.plen4, 4, addr);
	case KB_KEY_NET6:
		return !v4 && kb_filter_test_prefixes(f, f->p.plen6, 16, addr);
	case KB_KEY_NET:
		return v4 ? kb_filter_test_prefixes(f, &f->p.plen4, 4, addr) :
			    kb_filter_test_prefixes(f, f->p.plen6, 16, addr);
	default:	/* ip, bytes, str: the raw address */
		return kb_filter_test_pkt(f, addr, v4 ? 4 : 16);
	}
}

/* an address (family AF_INET or AF_INET6) in s, counted in its statistics */
static __always_inline bool kb_set_test_addr(struct kb_set *s, int family,
					     const void *addr)
{
	const struct kb_gen *g;
	bool hit;

	if (unlikely(family != AF_INET && family != AF_INET6))
		return false;
	g = rcu_dereference_check(s->gen, rcu_read_lock_any_held());
	hit = kb_filter_test_addr(&g->f, family, addr);
	/* windows, growing filters: the older slices, out of line */
	if (unlikely(g->nslices > 1) && !hit)
		hit = kb_gen_test_older_addr(g, family, addr);
	if (unlikely(hit))
		hit = !kb_set_excepted_addr(s, family, addr);
	kb_set_count_lookup(s, hit);
	return hit;
}

#endif /* _KB_KMOD_LOOKUP_H */
