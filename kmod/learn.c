// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: adds from the packet path.  xt_bloom's BLOOM target (through
 * kbloom_add_addr_rcu(), api.c) and the add kfuncs (bpf.c) add keys to a
 * blocked filter's live generation from softirq or from any task, on every
 * CPU at once, concurrently with lookups, with the filter's one writer
 * (bulk adds, under kb_set.lock) and with rebuilds: no lock, no sleep, no
 * allocation.  Bits are set with atomic ORs, one per word of the key's
 * block that misses some of its bits (kb_blocked_add_block()); the
 * writer's adds are atomic ORs too, so neither loses the other's bits.
 *
 * A key that may already be present (in any slice) is left as it is (0),
 * unless the caller asks for a refresh (KBLOOM_ADD_REFRESH, the target's
 * --exist), which adds it to the newest slice (g->f).  Older slices are
 * tested first; the newest is not: its add sets no bit of a key it holds.
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
 * change) goes to its CPU's delta (kb_learn.pc), folded into shared
 * atomic sums every KB_LEARN_BATCH bits; the writer merges what was
 * folded into the fill tracker and, from the fill it leaves, sets the
 * folded FPR sum at which the whole filter's estimate passes the cap
 * (kb_learn_limits(): the estimate's arithmetic inverted once per cap,
 * older slices' estimate and prefix count).  So the common add is a hash,
 * one block's atomic ORs, two per-CPU adds and one compare; no lock, no
 * estimate.  The cap lets at most about ncpus x KB_LEARN_BATCH bits past
 * it, and bits_set is exact but for adds that race a flush
 * (docs/design.md, "Adds from the packet path").
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
/* the shared FPR sum counts units of 2^this (a q62 term each add) */
#define KB_LEARN_SHIFT		32
#define KB_LEARN_PPB		1000000000ULL
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

/* a * b as 128 bits (32-bit kernels have no u128) */
static void kb_learn_mul128(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;

	*lo = (mid << 32) | (u32)ll;
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* the whole filter's estimate from the newest slice's a and the older b */
static u64 kb_learn_combine(u64 a, u64 b)
{
	return a + b - div_u64(a * b, KB_LEARN_PPB);
}

/*
 * The greatest FPR sum quotient q (q62, the newest slice's sum over its
 * blocks) at which the whole filter's estimate is within the cap, as
 * kb_filter_stats_fill() computes it (the lookup of nplens probes, then
 * combined with the older slices' b): the cap holds while sum < (q + 1) x
 * nblocks.  U64_MAX: none (the older slices are over the cap already).
 * Binary searches of the same integer arithmetic: only when the cap, b
 * or nplens change.
 */
static u64 kb_learn_qmax(u32 cap, u32 b, u32 nplens)
{
	u64 lo = 0, hi = KB_LEARN_PPB, mid, a;

	if (b > cap)
		return U64_MAX;
	/* the greatest a (ppb) with combine(a, b) <= cap */
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (kb_learn_combine(mid, b) <= cap)
			lo = mid;
		else
			hi = mid - 1;
	}
	a = lo;
	/* the greatest q with the estimate's ppb <= a */
	lo = 0;
	hi = KB_Q62_ONE;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (kb_q62_to_ppb(kb_fpr_lookup_q62(mid, nplens)) <= a)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* the bits at which a growing newest slice's estimate says it is full */
static u64 kb_learn_bits_full(const struct kb_gen *g)
{
	struct kb_filter f = g->f;
	struct kb_fill fill = {};
	u64 lo = 0, hi = g->f.p.m, mid;
	struct kb_stats st;

	f.fill = &fill;
	/* est_items grows with bits_set only (no term is read) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		fill.bits_set = mid;
		kb_filter_stats_fill(&f, &st);
		if (st.est_items >= g->f.p.items)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The packet path's limits from the writer's last fill (w*) and what it
 * merged of the folded sums (m*), kb_learn.lock held: fold_fpr reaching
 * fpr_lim is the cap reached (the folded sum past what the cap leaves of
 * the sum the writer counted), fold_bits reaching bits_lim a growing
 * filter's newest slice full.  The thresholds behind them (qmax,
 * bits_full) are recomputed only when what they depend on changed.
 */
static void kb_learn_limits(struct kb_gen *g)
{
	struct kb_learn *l = &g->learn;
	u32 cap = kb_learn_cap(g), b = kb_gen_older_fpr_ppb(g);
	u32 nplens = max(kb_params_nplens(&g->f.p), 1U);
	u64 thi, tlo, room;
	s64 lim;

	if (!l->ready || cap != l->cap || b != l->older ||
	    nplens != l->nplens) {
		l->qmax = kb_learn_qmax(cap, b, nplens);
		if (g->shape.grow && !l->ready)
			l->bits_full = kb_learn_bits_full(g);
		l->cap = cap;
		WRITE_ONCE(l->older, b);
		l->nplens = nplens;
	}
	/* the cap holds while the sum is under T = (qmax + 1) x nblocks */
	if (l->qmax == U64_MAX) {
		thi = 0;
		tlo = 0;
	} else {
		kb_learn_mul128(l->qmax + 1, g->f.nblocks, &thi, &tlo);
	}
	if (thi < l->whi || (thi == l->whi && tlo <= l->wlo)) {
		lim = l->mfpr;
	} else {
		/* (T - w) in KB_LEARN_SHIFT units, rounded up */
		thi -= l->whi + (tlo < l->wlo);
		tlo -= l->wlo;
		room = (tlo >> KB_LEARN_SHIFT) | (thi << (64 - KB_LEARN_SHIFT));
		room += !!(tlo & (BIT_ULL(KB_LEARN_SHIFT) - 1));
		if (thi >> (64 - KB_LEARN_SHIFT) || room > S64_MAX - l->mfpr)
			lim = S64_MAX;
		else
			lim = l->mfpr + room;
	}
	WRITE_ONCE(l->fpr_lim, lim);
	if (g->shape.grow)
		WRITE_ONCE(l->bits_lim, l->mbits + (l->bits_full > l->wbits ?
				l->bits_full - l->wbits : 0));
	/* the limits before the flag: kb_learn_over() reads it first */
	smp_store_release(&l->ready, true);
}

/* the limits again (any context): a new prefix length, older slices */
static void kb_learn_refresh(struct kb_gen *g)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&g->learn.lock, flags);
	kb_learn_limits(g);
	raw_spin_unlock_irqrestore(&g->learn.lock, flags);
}

/*
 * The folded sum reached the limit: over the cap, unless the limit was
 * never computed (a generation's first add) or is stale (the older
 * slices' estimate changed since).  Refusals past the cap take no lock.
 */
static bool kb_learn_over(struct kb_gen *g)
{
	struct kb_learn *l = &g->learn;

	/* pairs with kb_learn_limits()'s release: ready, then the limits */
	if (!smp_load_acquire(&l->ready) ||
	    READ_ONCE(g->older_fpr_ppb) != READ_ONCE(l->older))
		kb_learn_refresh(g);
	return atomic64_read(&l->fold_fpr) >= READ_ONCE(l->fpr_lim);
}

/* ---- a generation's state ------------------------------------------------ */

int kb_learn_gen_init(struct kb_gen *g)
{
	raw_spin_lock_init(&g->learn.lock);
	/* computed at the first add (kb_learn_over()) or sync */
	g->learn.fpr_lim = 0;
	g->learn.bits_lim = S64_MAX;
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
 * goes into g->fill, and the limits start from it.  After every add
 * batch, an upload's count and a flush.
 */
void kb_learn_sync(struct kb_gen *g)
{
	struct kb_learn *l = &g->learn;
	struct kb_fill *fl = g->fill;
	unsigned long flags;
	s64 fb, ff;
	u64 d;

	if (!l->pc || !fl)
		return;
	raw_spin_lock_irqsave(&l->lock, flags);
	fb = atomic64_read(&l->fold_bits);
	ff = atomic64_read(&l->fold_fpr);
	fl->bits_set += fb - l->mbits;
	d = ff - l->mfpr;
	kb_learn_add128(&fl->fpr_hi, &fl->fpr_lo, d >> (64 - KB_LEARN_SHIFT),
			d << KB_LEARN_SHIFT);
	l->mbits = fb;
	l->mfpr = ff;
	l->wbits = fl->bits_set;
	l->whi = fl->fpr_hi;
	l->wlo = fl->fpr_lo;
	kb_learn_limits(g);
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
	l->mbits = atomic64_read(&l->fold_bits);
	l->mfpr = atomic64_read(&l->fold_fpr);
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
		if (!s->dead) {
			struct kb_gen *g = rcu_dereference_protected(s->gen,
					lockdep_is_held(&s->lock));

			kb_map_sync(s, g);
			kb_learn_sync(g);
		}
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
 * This CPU's delta; every KB_LEARN_BATCH bits its bits and the FPR sum's
 * whole KB_LEARN_SHIFT units go to the shared sums (this_cpu_sub of what
 * was read: an interrupt or a preempting task on this CPU adding meanwhile
 * loses nothing; the remainder stays, and statistics read it).  Two
 * atomic adds and two compares: no lock, no estimate.
 */
static void kb_learn_account(struct kb_set *s, struct kb_gen *g,
			     const struct kb_fill_delta *d)
{
	struct kb_fill_delta __percpu *pc = g->learn.pc;
	struct kb_learn *l = &g->learn;
	u64 bits, fpr, units;
	s64 fb;

	bits = this_cpu_add_return(pc->bits, d->bits);
	fpr = this_cpu_add_return(pc->fpr, d->fpr);
	if (likely(bits < KB_LEARN_BATCH && fpr < KB_LEARN_FPR_BATCH))
		return;
	units = fpr >> KB_LEARN_SHIFT;
	this_cpu_sub(pc->bits, bits);
	this_cpu_sub(pc->fpr, units << KB_LEARN_SHIFT);
	fb = atomic64_add_return(bits, &l->fold_bits);
	atomic64_add(units, &l->fold_fpr);
	/* the older slices' estimate set after the limits were (publish) */
	if (unlikely(READ_ONCE(g->older_fpr_ppb) != READ_ONCE(l->older)))
		kb_learn_refresh(g);
	/*
	 * the newest slice is full: a growing filter grows, from a work of
	 * its own (slices.c)
	 */
	if (unlikely(fb >= READ_ONCE(l->bits_lim)))
		kb_set_grow_kick(s);
}

/* a refusal: counted; over-capacity told once per filter (kb_set.over) */
static int kb_learn_refuse(struct kb_set *s, struct kb_gen *g)
{
	this_cpu_inc(s->stats->learn_refused);
	if (!test_bit(0, &g->learn.told) &&
	    !test_and_set_bit(0, &g->learn.told) && kb_set_over_once(s))
		kb_learn_kick(s, KB_LEARN_TELL);
	return -ENOSPC;
}

/*
 * Whether an older slice of g may hold the key of hash h: the slices of a
 * generation share their kind, hash and seed (slices.c), so the hash of
 * the newest is theirs, and each test is a block's probes.
 */
static __always_inline bool kb_learn_test_older(const struct kb_gen *g,
						u64 h)
{
	u32 i;

	for (i = 0; i + 1 < g->nslices; i++) {
		const struct kb_filter *o = &g->older[i].f;

		if (kb_blocked_test_block(o, h, kb_block(o, h)))
			return true;
	}
	return false;
}

/* the add in generation g; key valid for s */
static __always_inline int kb_learn_gen(struct kb_set *s, struct kb_gen *g,
					const void *key, u32 len, u32 flags)
{
	struct kb_learn *l = &g->learn;
	struct kb_fill_delta d = {};
	bool test, note = false;
	u32 used;
	u64 h;

	if (unlikely(g->f.p.kind != KB_KIND_BLOCKED || !l->pc))
		return -EOPNOTSUPP;
	/*
	 * a net key at a prefix length g has not noted is added whatever
	 * the test says: a false positive would leave the length unnoted,
	 * and no address lookup would ever test the key
	 */
	if (kb_key_type_is_net(s->key_type))
		note = !kb_params_has_prefix(&g->f.p, len == 5 ? 4 : 6,
					     ((const u8 *)key)[len - 1]);
	test = !(flags & KBLOOM_ADD_REFRESH) && !note;
	/* one hash for every slice, the test of the older ones and the add */
	h = kb_hash_seeded(&g->f, key, len);
	/*
	 * A key an older slice may hold is left as it is.  The newest is
	 * not tested first: the add sets no bit of a key it holds (and
	 * answers 0), reading the one block a test would read.
	 */
	if (unlikely(g->nslices > 1) && test && kb_learn_test_older(g, h))
		return 0;
	if (unlikely(atomic64_read(&l->fold_fpr) >= READ_ONCE(l->fpr_lim)) &&
	    kb_learn_over(g)) {
		/* over the cap, a key present still answers 0 */
		if (test && kb_blocked_test_block(&g->f, h, kb_block(&g->f, h)))
			return 0;
		return kb_learn_refuse(s, g);
	}
	if (unlikely(note)) {
		/* before the bits: a reader seeing them tests it */
		kb_params_note_plen(&g->f.p, key, len);
		/* a lookup makes one more probe: the cap's sum is lower */
		kb_learn_refresh(g);
		kb_learn_kick(s, KB_LEARN_SYNC);
	}
	d.bits = kb_blocked_add_block(g->f.p.k, h, kb_block(&g->f, h), &used);
	if (!d.bits)
		return 0;
	/* the FPR sum's change, as kb_blocked_add_atomic() counts it */
	if (likely(g->f.fill))
		d.fpr = g->f.fill->term[used] - g->f.fill->term[used - d.bits];
	kb_learn_account(s, g, &d);
	return 1;
}

/* a generation published during an add: the add again, out of line */
static noinline int kb_learn_gen_again(struct kb_set *s, struct kb_gen *g,
				       const void *key, u32 len, u32 flags)
{
	return kb_learn_gen(s, g, key, len, flags);
}

/*
 * The add of a key valid for s (kb_set_learn_key() without the checks),
 * inline in both entry points: a packet's add calls nothing but them.
 */
static __always_inline int kb_learn_key(struct kb_set *s, const void *key,
					u32 len, u32 flags)
{
	struct kb_gen *g, *now;
	int ret, again;

	g = rcu_dereference_check(s->gen, rcu_read_lock_any_held());
	ret = kb_learn_gen(s, g, key, len, flags);
	if (ret <= 0)
		return ret;
	/*
	 * the ORs (relaxed atomics: ret 1 means one ran) before the load: a
	 * generation published since gets the key too.  A key found present
	 * is not re-added: a rotation's or growth's new generation holds g's
	 * payload as an older slice, and a rebuild replaces the contents.
	 */
	smp_mb__after_atomic();
	now = rcu_dereference_check(s->gen, rcu_read_lock_any_held());
	if (unlikely(now != g)) {
		/*
		 * A key this add found new is added to now whatever now's
		 * test says: after a rotation or a growth, now's older slice
		 * shares g's payload and so has the key, but not a prefix
		 * length g noted after now copied g's (the key would be
		 * absent for address lookups for a whole window)
		 */
		again = kb_learn_gen_again(s, now, key, len,
					   flags | KBLOOM_ADD_REFRESH);
		if (again < 0)
			return again;
	}
	this_cpu_inc(s->stats->adds);
	return 1;
}

/* the add of a key known valid for s's key type */
static __always_inline int kb_learn_valid(struct kb_set *s, const void *key,
					  u32 len, u32 flags)
{
	if (unlikely(READ_ONCE(s->dead)))
		return -ENOENT;
	if (unlikely(flags & ~KBLOOM_ADD_REFRESH))
		return -EINVAL;
	return kb_learn_key(s, key, len, flags);
}

int kb_set_learn_key(struct kb_set *s, const void *key, u32 len, u32 flags)
{
	if (unlikely(READ_ONCE(s->dead)))
		return -ENOENT;
	if (unlikely(flags & ~KBLOOM_ADD_REFRESH) || !key ||
	    kb_key_validate(s->key_type, key, len))
		return -EINVAL;
	return kb_learn_key(s, key, len, flags);
}

int kb_set_learn_addr(struct kb_set *s, int family, const void *addr,
		      u32 plen, u32 flags)
{
	u32 alen = family == AF_INET ? 4 : 16;
	bool v4 = family == AF_INET;
	const void *k = addr;
	u32 klen = alen;
	u8 key[17];

	if (unlikely((family != AF_INET && family != AF_INET6) || !addr))
		return -EINVAL;
	/* the keys below are valid for their key types by construction */
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
		k = key;
		klen = alen + 1;
		break;
	default:	/* ip, bytes, str: the raw address, as the tests */
		break;
	}
	return kb_learn_valid(s, k, klen, flags);
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
