// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: adds from the packet path.  xt_bloom's BLOOM target (through
 * kbloom_add_addr_rcu(), api.c) and the add kfuncs (bpf.c) add keys to a
 * blocked filter's live generation from softirq or from any task, on every
 * CPU at once, concurrently with lookups, with the filter's one writer
 * (bulk adds, under kb_set.lock) and with rebuilds: no lock, no sleep, no
 * allocation.  Bits are set with atomic ORs (kb_blocked_add_atomic()); the
 * writer's adds are atomic ORs too, so neither loses the other's bits.
 *
 * Test first: a key that may already be present (in any slice) is left
 * as it is (0), unless the caller asks for a refresh (KBLOOM_ADD_REFRESH,
 * the target's --exist), which adds it to the newest slice (g->f).
 *
 * The cap: a spoofed source can feed a learning rule millions of keys, and
 * a saturated filter answers "maybe" for everything, which a DROP rule
 * makes "drop everything".  Once the filter's estimated FPR (the newest
 * slice's live estimate with the older slices' frozen ones) is over its
 * cap (kb_shape.max_fpr_ppb, default twice the whole filter's target
 * FPR, or 1% for filters sized without one), adds are refused (-ENOSPC),
 * counted per CPU (learn_refused) and over-capacity is announced once per
 * generation, from a work item (never netlink from softirq).
 *
 * The fill tracker: each add's fill change (bits set, the FPR sum's
 * change) goes to its CPU's delta (kb_learn.pc), folded under kb_learn.lock
 * every KB_LEARN_BATCH bits, which is also when the estimate behind the cap
 * is refreshed; the writer merges what was folded into the fill tracker;
 * statistics add the CPUs' pending deltas on read.  So the cap lets at most
 * about ncpus x KB_LEARN_BATCH bits past it, and bits_set is exact but for
 * adds that race a flush (docs/design.md, "Adds from the packet path").
 *
 * A generation published during an add (a rotation, a growth, a rebuild):
 * the add is made again in the new one, so a key learned across a
 * rotation is never lost.  A rebuild replaces the contents: adds that
 * land in the old generation and do not see the new one are not carried
 * over (as ipset swap).
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/socket.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "lookup.h"
#include "kbloom.h"

/* a CPU folds its delta every this many bits (or this much FPR sum) */
#define KB_LEARN_BATCH		64
#define KB_LEARN_FPR_BATCH	(1ULL << 60)
/* the cap of filters sized without an FPR */
#define KB_LEARN_FPR_PPB	10000000U

/* kb_set.learn_todo */
enum {
	KB_LEARN_QUEUED,	/* the work is queued, learn_net held */
	KB_LEARN_TELL,		/* announce over-capacity */
	KB_LEARN_SYNC,		/* a prefix length was noted: map headers */
};

static struct workqueue_struct *kb_learn_wq;

/* ---- the cap and the estimate ------------------------------------------ */

u32 kb_learn_default_cap(u32 fpr_ppb)
{
	u64 v = 2ULL * fpr_ppb;

	if (!fpr_ppb)
		return KB_LEARN_FPR_PPB;
	return v < 1000000000ULL ? (u32)v : 1000000000U;
}

u32 kb_learn_cap(const struct kb_gen *g)
{
	return g->shape.max_fpr_ppb ?: kb_learn_default_cap(g->f.p.fpr_ppb);
}

/* one 128-bit sum into another */
static void kb_learn_add128(u64 *hi, u64 *lo, u64 ahi, u64 alo)
{
	*lo += alo;
	*hi += ahi + (*lo < alo);
}

/*
 * The FPR of the whole filter from the writer's fill and what was folded,
 * combined with the older slices' (kb_learn.lock held): 1 - (1-a)(1-b).
 * True if the newest slice is at its capacity (items).
 */
static bool kb_learn_estimate(struct kb_gen *g)
{
	struct kb_learn *l = &g->learn;
	struct kb_filter f = g->f;
	struct kb_fill fill = {};
	struct kb_stats st;
	u64 a, b;

	fill.bits_set = l->wbits + l->fbits;
	fill.fpr_hi = l->whi;
	fill.fpr_lo = l->wlo;
	kb_learn_add128(&fill.fpr_hi, &fill.fpr_lo, l->fhi, l->flo);
	f.fill = &fill;
	/* the counters only: kb_filter_stats_fill() reads no term */
	kb_filter_stats_fill(&f, &st);
	a = st.est_fpr_ppb;
	b = kb_gen_older_fpr_ppb(g);
	a = a + b - div_u64(a * b, 1000000000U);
	WRITE_ONCE(l->est_ppb, (u32)min_t(u64, a, 1000000000U));
	return g->f.p.items && st.est_items >= g->f.p.items;
}

/* ---- a generation's state ------------------------------------------------ */

int kb_learn_gen_init(struct kb_gen *g)
{
	raw_spin_lock_init(&g->learn.lock);
	if (g->f.p.kind != KB_KIND_BLOCKED)
		return 0;
	g->learn.pc = alloc_percpu_gfp(struct kb_fill_delta, GFP_KERNEL_ACCOUNT);
	return g->learn.pc ? 0 : -ENOMEM;
}

void kb_learn_gen_free(struct kb_gen *g)
{
	free_percpu(g->learn.pc);
}

/*
 * The writer (kb_set.lock held, or g not published): what the CPUs folded
 * goes into g->fill, and the estimate starts from it.  After every add
 * batch, an upload's count and a flush.
 */
void kb_learn_sync(struct kb_gen *g)
{
	struct kb_learn *l = &g->learn;
	struct kb_fill *fl = g->fill;
	unsigned long flags;

	if (!l->pc || !fl)
		return;
	raw_spin_lock_irqsave(&l->lock, flags);
	fl->bits_set += l->fbits;
	kb_learn_add128(&fl->fpr_hi, &fl->fpr_lo, l->fhi, l->flo);
	l->fbits = 0;
	l->fhi = 0;
	l->flo = 0;
	l->wbits = fl->bits_set;
	l->whi = fl->fpr_hi;
	l->wlo = fl->fpr_lo;
	kb_learn_estimate(g);
	raw_spin_unlock_irqrestore(&l->lock, flags);
}

/*
 * A flush zeroed g (and its fill): forget what was folded.  The CPUs'
 * pending deltas of adds before the flush stay, and are counted later
 * (under KB_LEARN_BATCH bits each): the documented error.
 */
void kb_learn_reset(struct kb_gen *g)
{
	struct kb_learn *l = &g->learn;
	unsigned long flags;

	if (!l->pc)
		return;
	raw_spin_lock_irqsave(&l->lock, flags);
	l->fbits = 0;
	l->fhi = 0;
	l->flo = 0;
	raw_spin_unlock_irqrestore(&l->lock, flags);
	clear_bit(0, &l->told);
	kb_learn_sync(g);
}

void kb_learn_fill_read(struct kb_gen *g, struct kb_fill *fill)
{
	int cpu;

	if (!g->learn.pc)
		return;
	for_each_possible_cpu(cpu) {
		struct kb_fill_delta *d = per_cpu_ptr(g->learn.pc, cpu);

		fill->bits_set += READ_ONCE(d->bits);
		kb_learn_add128(&fill->fpr_hi, &fill->fpr_lo, 0,
				READ_ONCE(d->fpr));
	}
}

/* ---- what the packet path cannot do: a work item ------------------------ */

static void kb_learn_work(struct work_struct *w)
{
	struct kb_set *s = container_of(w, struct kb_set, learn_work);
	struct net *net = s->learn_net;
	char name[KB_NAME_MAX];

	/* a kick from now on queues the work again, with its own net */
	smp_mb__before_atomic();
	clear_bit(KB_LEARN_QUEUED, &s->learn_todo);
	if (test_and_clear_bit(KB_LEARN_SYNC, &s->learn_todo)) {
		mutex_lock(&s->lock);
		if (!s->dead)
			kb_map_sync(s, rcu_dereference_protected(s->gen,
					lockdep_is_held(&s->lock)));
		mutex_unlock(&s->lock);
	}
	if (test_and_clear_bit(KB_LEARN_TELL, &s->learn_todo) &&
	    !READ_ONCE(s->dead)) {
		kb_set_name(s, name);
		kb_reg_announce(net, KB_EVENT_OVER_CAPACITY, name, NULL);
	}
	put_net(net);
	kb_set_put(s);
}

/* ask the work to do what, in s's netns (RCU held; any context) */
static void kb_learn_kick(struct kb_set *s, int what)
{
	struct net *net;

	set_bit(what, &s->learn_todo);
	if (test_and_set_bit(KB_LEARN_QUEUED, &s->learn_todo))
		return;
	/*
	 * the filter's own namespace, whoever adds (a BPF program may hold
	 * a filter of another one); valid while s is linked, and a netns
	 * being dismantled has no reference left to take
	 */
	net = READ_ONCE(s->dead) ? NULL : maybe_get_net(s->net);
	if (!net || !kb_set_get_rcu(s)) {
		if (net)
			put_net(net);
		clear_bit(KB_LEARN_QUEUED, &s->learn_todo);
		return;
	}
	s->learn_net = net;
	queue_work(kb_learn_wq, &s->learn_work);
}

void kb_learn_set_init(struct kb_set *s)
{
	INIT_WORK(&s->learn_work, kb_learn_work);
}

/* ---- the add ------------------------------------------------------------- */

/*
 * This CPU's delta; folded every KB_LEARN_BATCH bits (xchg: an interrupt
 * or a preempting task on this CPU adding meanwhile loses nothing), which
 * refreshes the estimate behind the cap.
 */
static void kb_learn_account(struct kb_set *s, struct kb_gen *g,
			     const struct kb_fill_delta *d)
{
	struct kb_fill_delta __percpu *pc = g->learn.pc;
	struct kb_learn *l = &g->learn;
	unsigned long flags;
	u64 bits, fpr;
	bool full;

	bits = this_cpu_add_return(pc->bits, d->bits);
	fpr = this_cpu_add_return(pc->fpr, d->fpr);
	if (likely(bits < KB_LEARN_BATCH && fpr < KB_LEARN_FPR_BATCH))
		return;
	bits = this_cpu_xchg(pc->bits, 0);
	fpr = this_cpu_xchg(pc->fpr, 0);
	raw_spin_lock_irqsave(&l->lock, flags);
	l->fbits += bits;
	kb_learn_add128(&l->fhi, &l->flo, 0, fpr);
	full = kb_learn_estimate(g);
	raw_spin_unlock_irqrestore(&l->lock, flags);
	/*
	 * the newest slice is full: a growing filter grows, from a work of
	 * its own (slices.c; the others ignore the kick)
	 */
	if (full)
		kb_set_grow_kick(s);
}

/* a refusal: counted; over-capacity told once per generation */
static int kb_learn_refuse(struct kb_set *s, struct kb_gen *g)
{
	this_cpu_inc(s->stats->learn_refused);
	if (!test_bit(0, &g->learn.told) &&
	    !test_and_set_bit(0, &g->learn.told))
		kb_learn_kick(s, KB_LEARN_TELL);
	return -ENOSPC;
}

/* the add in generation g; key valid for s */
static int kb_learn_gen(struct kb_set *s, struct kb_gen *g,
			const void *key, u32 len, u32 flags)
{
	struct kb_fill_delta d = {};
	bool note = false;

	if (unlikely(g->f.p.kind != KB_KIND_BLOCKED || !g->learn.pc))
		return -EOPNOTSUPP;
	/*
	 * a net key at a prefix length g has not noted is added whatever
	 * the test says: a false positive would leave the length unnoted,
	 * and no address lookup would ever test the key
	 */
	if (kb_key_type_is_net(s->key_type))
		note = !kb_params_has_prefix(&g->f.p, len == 5 ? 4 : 6,
					     ((const u8 *)key)[len - 1]);
	if (!(flags & KBLOOM_ADD_REFRESH) && !note &&
	    (kb_blocked_test_i(&g->f, key, len) ||
	     kb_gen_test_older(g, key, len)))
		return 0;
	if (unlikely(READ_ONCE(g->learn.est_ppb) > kb_learn_cap(g)))
		return kb_learn_refuse(s, g);
	if (note) {
		/* before the bits: a reader seeing them tests it */
		kb_params_note_plen(&g->f.p, key, len);
		kb_learn_kick(s, KB_LEARN_SYNC);
	}
	if (!kb_blocked_add_atomic(&g->f, key, len, &d))
		return 0;
	kb_learn_account(s, g, &d);
	return 1;
}

int kb_set_learn_key(struct kb_set *s, const void *key, u32 len, u32 flags)
{
	struct kb_gen *g, *now;
	int ret, again;

	if (unlikely(READ_ONCE(s->dead)))
		return -ENOENT;
	if (unlikely(flags & ~KBLOOM_ADD_REFRESH) || !key ||
	    kb_key_validate(s->key_type, key, len))
		return -EINVAL;
	g = rcu_dereference_check(s->gen, rcu_read_lock_any_held());
	ret = kb_learn_gen(s, g, key, len, flags);
	if (ret < 0)
		return ret;
	/* the ORs before the load: a generation published since gets it too */
	smp_mb();
	now = rcu_dereference_check(s->gen, rcu_read_lock_any_held());
	if (unlikely(now != g)) {
		/*
		 * A key this add found new is added to now whatever now's
		 * test says: after a rotation or a growth, now's older slice
		 * shares g's payload and so has the key, but not a prefix
		 * length g noted after now copied g's (the key would be
		 * absent for address lookups for a whole window)
		 */
		again = kb_learn_gen(s, now, key, len,
				     ret ? flags | KBLOOM_ADD_REFRESH : flags);
		ret = again < 0 ? again : ret | again;
	}
	if (ret > 0)
		this_cpu_inc(s->stats->adds);
	return ret;
}

int kb_set_learn_addr(struct kb_set *s, int family, const void *addr,
		      u32 plen, u32 flags)
{
	u32 alen = family == AF_INET ? 4 : 16;
	bool v4 = family == AF_INET;
	u8 key[17];

	if (unlikely((family != AF_INET && family != AF_INET6) || !addr))
		return -EINVAL;
	switch (s->key_type) {
	case KB_KEY_IPV4:
	case KB_KEY_IPV6:
		if (v4 != (s->key_type == KB_KEY_IPV4))
			return -EINVAL;
		break;
	case KB_KEY_NET4:
	case KB_KEY_NET6:
		if (v4 != (s->key_type == KB_KEY_NET4))
			return -EINVAL;
		fallthrough;
	case KB_KEY_NET:
		if (plen > alen * 8)
			return -EINVAL;
		kb_key_net(key, addr, alen, plen);
		return kb_set_learn_key(s, key, alen + 1, flags);
	default:	/* ip, bytes, str: the raw address, as the tests */
		break;
	}
	return kb_set_learn_key(s, addr, alen, flags);
}

int kb_learn_init(void)
{
	kb_learn_wq = alloc_workqueue("kbloom_learn", WQ_UNBOUND, 0);
	return kb_learn_wq ? 0 : -ENOMEM;
}

/* every work done (each holds its filter and its netns) */
void kb_learn_exit(void)
{
	destroy_workqueue(kb_learn_wq);
}
