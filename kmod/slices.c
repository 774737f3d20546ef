// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom slices: time windows and growing filters, a layer over the kinds
 * (no kind knows of it).  A generation holds nslices filters of one kind,
 * hash, key type and seed: g->f, the newest, takes the adds as a plain
 * filter's does; g->older[] are read-only, newest first.  A test ORs them
 * all; a plain filter has one slice and its packet path one more
 * (unlikely) branch.
 *
 * A window (KB_A_WINDOW_MS, S = KB_A_SLICES) holds S + 1 slices, each
 * sized for items / S keys at fpr / (S + 1), so that the OR of all stays
 * within the filter's FPR.  Every window / S a work (queued by an hrtimer
 * on CLOCK_BOOTTIME, which counts suspend) publishes a new generation: a
 * fresh newest slice, the previous newest as the first older one, the
 * oldest dropped.  A key added at t is in a slice that stops taking adds
 * at t or later and is dropped S rotations after that, each at least
 * window / S after the one before: it answers maybe until t + window at
 * least, and is dropped at the latest (S + 1) * window / S after t, plus
 * however late the work runs.  A work that finds several rotations due
 * (after a suspend or a stall) makes them at once: it drops that many of
 * the oldest slices (their keys are past their time), all of them if the
 * whole window has passed, but always keeps the newest as the first older
 * slice: it may hold keys added just now, into a slice whose rotation was
 * late.  Such a key is then held one period past that rotation.
 *
 * A growing filter (KB_A_GROW) starts with one slice sized for fpr / 2;
 * when the newest holds its items, a slice of twice the items at half
 * the FPR is added (the series sums to under fpr), up to KB_SLICES_MAX
 * slices and max_bytes for all of them; past that, or past the memory
 * caps, it stays as it is and goes over capacity as a fixed filter does.
 * Slow-path adds grow it on the spot; packet-path adds kick a work.
 *
 * A rotation or a growth is a new generation (a new id: mappings see
 * REPLACED and map again), published under kb_set.lock as a rebuild is.
 * Its older slices share the previous generation's payloads through
 * refcounted struct kb_pl, not the generation: no generation keeps
 * another alive, and a payload is freed (and uncharged) only when the
 * last generation holding it is, after its grace period and mappings.
 */
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "internal.h"
#include "lookup.h"
#include "slices.h"

#define KB_WINDOW_SLICES_DEFAULT	4
/* a window: at most 31 days (as the netlink policy), a rotation a second */
#define KB_WINDOW_MS_MAX		2678400000ULL
#define KB_PERIOD_MS_MIN		1000
#define KB_PPB				1000000000ULL
/* a growing filter's default bound: this many times its first slice */
#define KB_GROW_BYTES_DEFAULT		16

/* ---- the shape ---------------------------------------------------------- */

/* a shape refused: the attribute to blame */
static int kb_shape_bad(int *attr, int a)
{
	*attr = a;
	return -EINVAL;
}

/*
 * The packet path's cap (learn.c), of the whole filter: compared with, and
 * by default twice, the FPR that create or the rebuild asked for, before
 * a window or a growth divides it among the slices.  Resolved here, so
 * that every generation (rotations, growth, swaps) carries it.
 */
static int kb_shape_cap(struct kb_shape *sh, const struct kb_spec *sp,
			int *attr, struct netlink_ext_ack *extack)
{
	if (sh->max_fpr_ppb && sp->kind != KB_KIND_BLOCKED) {
		NL_SET_ERR_MSG_MOD(extack, "MAX_FPR_PPB: only blocked filters take adds from the packet path");
		return kb_shape_bad(attr, KB_A_MAX_FPR_PPB);
	}
	if (sh->max_fpr_ppb > KB_PPB ||
	    (sh->max_fpr_ppb && sh->max_fpr_ppb < sp->fpr_ppb)) {
		NL_SET_ERR_MSG_MOD(extack, "MAX_FPR_PPB must be FPR_PPB .. 1000000000");
		return kb_shape_bad(attr, KB_A_MAX_FPR_PPB);
	}
	if (!sh->max_fpr_ppb && sp->kind == KB_KIND_BLOCKED)
		sh->max_fpr_ppb = kb_learn_default_cap(sp->fpr_ppb);
	return 0;
}

int kb_shape_check(struct kb_shape *sh, struct kb_spec *sp, int *attr,
		   struct netlink_ext_ack *extack)
{
	*attr = 0;
	if (kb_shape_cap(sh, sp, attr, extack))
		return -EINVAL;
	if (sh->slices && !sh->window_ms) {
		NL_SET_ERR_MSG_MOD(extack, "SLICES is for a window (WINDOW_MS)");
		return kb_shape_bad(attr, KB_A_SLICES);
	}
	if (sh->max_bytes && !sh->grow) {
		NL_SET_ERR_MSG_MOD(extack, "MAX_BYTES is for a growing filter (GROW)");
		return kb_shape_bad(attr, KB_A_MAX_BYTES);
	}
	if (!sh->window_ms && !sh->grow)
		return 0;
	sh->items = sp->sizing == KB_SIZING_FPR ? sp->items : 0;
	sh->fpr_ppb = sp->sizing == KB_SIZING_FPR ? sp->fpr_ppb : 0;
	if (sh->window_ms && sh->grow) {
		NL_SET_ERR_MSG_MOD(extack, "a filter has a window (WINDOW_MS) or grows (GROW), not both");
		return kb_shape_bad(attr, KB_A_GROW);
	}
	if (sp->kind != KB_KIND_BLOCKED) {
		NL_SET_ERR_MSG_MOD(extack, "windows and growth are for blocked filters only (the other kinds mirror a source, or delete)");
		return kb_shape_bad(attr, sh->grow ? KB_A_GROW : KB_A_WINDOW_MS);
	}
	if (sh->grow) {
		if (sp->sizing != KB_SIZING_FPR) {
			NL_SET_ERR_MSG_MOD(extack, "GROW needs sizing by ITEMS + FPR_PPB");
			return kb_shape_bad(attr, KB_A_GROW);
		}
		if (sh->max_bytes > READ_ONCE(kb_max_filter_bytes)) {
			NL_SET_ERR_MSG_MOD(extack, "MAX_BYTES is over the module's max_filter_bytes");
			return kb_shape_bad(attr, KB_A_MAX_BYTES);
		}
		/* the first slice takes half the FPR: the series sums below */
		sp->fpr_ppb = max(1U, sp->fpr_ppb / 2);
		sh->prefixes = sp->prefixes;
		return 0;
	}
	if (!sh->slices)
		sh->slices = KB_WINDOW_SLICES_DEFAULT;
	if (sh->slices > KB_SLICES_MAX - 1) {
		NL_SET_ERR_MSG_MOD(extack, "SLICES must be 1..15");
		return kb_shape_bad(attr, KB_A_SLICES);
	}
	/*
	 * The netlink policy says the same; the ioctl (TXN_BEGIN VER1) has
	 * no policy.  The cap keeps window_ms * NSEC_PER_MSEC and a born time
	 * plus a period far from wrapping (a zero period would divide by
	 * zero in the rotation); the floor keeps a filter from making its
	 * kworker allocate a fresh slice more than once a second.
	 */
	if (sh->window_ms > KB_WINDOW_MS_MAX ||
	    sh->window_ms < (u64)sh->slices * KB_PERIOD_MS_MIN) {
		NL_SET_ERR_MSG_MOD(extack, "WINDOW_MS must be 1000 * SLICES .. 2678400000 (31 days): a rotation at most once a second");
		return kb_shape_bad(attr, KB_A_WINDOW_MS);
	}
	/* each slice holds the keys of window / S; S + 1 of them are tested */
	if (sp->sizing != KB_SIZING_MK)
		sp->items = DIV_ROUND_UP_ULL(sp->items, sh->slices);
	if (sp->sizing == KB_SIZING_FPR)
		sp->fpr_ppb = max(1U, sp->fpr_ppb / (sh->slices + 1));
	return 0;
}

bool kb_set_over_once(struct kb_set *s)
{
	return !test_bit(0, &s->over) && !test_and_set_bit(0, &s->over);
}

bool kb_set_sliced(struct kb_set *s)
{
	bool sliced;

	rcu_read_lock();
	sliced = kb_gen_sliced(rcu_dereference(s->gen));
	rcu_read_unlock();
	return sliced;
}

void kb_shape_keep(struct net *net, const char *name, struct kb_shape *sh)
{
	struct kb_set *s = kb_set_find(net, name, false);
	const struct kb_gen *g;

	if (IS_ERR(s))
		return;
	rcu_read_lock();
	g = rcu_dereference(s->gen);
	sh->window_ms = g->shape.window_ms;
	sh->slices = g->shape.slices;
	sh->grow = g->shape.grow;
	/*
	 * A growing filter's bound, if one was asked for, is its own too (as
	 * the module's cap now allows); kb_ioc_txn_begin() drops it if the
	 * new first slice is bigger.  A default one is not kept: it was 16
	 * times the old first slice, and the new sizing gets its own.
	 */
	if (g->shape.grow && !g->shape.max_bytes_default)
		sh->max_bytes = min_t(u64, g->shape.max_bytes,
				      READ_ONCE(kb_max_filter_bytes));
	rcu_read_unlock();
	kb_set_put(s);
}

/* ---- slices of a generation ------------------------------------------ */

const struct kb_filter *kb_gen_slice(const struct kb_gen *g, u32 i)
{
	return i ? &g->older[i - 1].f : &g->f;
}

/*
 * The statistics of g's newest slice with the packet path's adds: merged
 * into its fill (s->lock held, or g unpublished), then the CPUs' pending
 * deltas on a copy.  Learned bits drive growth and the frozen estimates
 * of older slices (the cap reads those) as the slow path's do.
 */
void kb_gen_live_stats(struct kb_gen *g, struct kb_stats *st)
{
	struct kb_filter f = g->f;
	struct kb_fill fill;

	kb_learn_sync(g);
	fill = *g->fill;
	kb_learn_fill_read(g, &fill);
	f.fill = &fill;
	kb_filter_stats_fill(&f, st);
}

/* P(any older slice says maybe), from their frozen estimates */
void kb_gen_older_fpr(struct kb_gen *g)
{
	u64 none = KB_PPB;
	u32 i;

	for (i = 0; i + 1 < g->nslices; i++)
		none = div_u64(none * (KB_PPB - min_t(u64,
				g->older[i].st.est_fpr_ppb, KB_PPB)), KB_PPB);
	g->older_fpr_ppb = KB_PPB - none;
}

/*
 * An empty older slice of params p (g's newest, or a growth's) for g: its
 * own zeroed payload, statistics st (NULL: zeroes), born at born.
 */
int kb_oslice_empty(struct kb_gen *g, struct kb_oslice *o,
		    const struct kb_params *p, const struct kb_stats *st,
		    u64 born, struct netlink_ext_ack *extack)
{
	u64 bytes = kb_params_payload_bytes(p);
	struct kb_pl *pl = kb_pl_new(g->acct, bytes, extack);

	if (IS_ERR(pl))
		return PTR_ERR(pl);
	o->pl = pl;
	if (kb_filter_init_zeroed(&o->f, p, pl->payload, bytes))
		return -EINVAL;
	o->f.fill = NULL;
	if (st)
		o->st = *st;
	else
		memset(&o->st, 0, sizeof(o->st));
	o->born_ns = born;
	return 0;
}

/* the statistics of an empty filter of g's params */
static int kb_gen_empty_stats(struct kb_gen *g, struct kb_stats *st)
{
	struct kb_fill *fill = kmalloc(kb_fill_bytes(&g->f.p), GFP_KERNEL);
	struct kb_filter f = g->f;

	if (!fill)
		return -ENOMEM;
	kb_fill_init_empty(fill, &f);
	kb_filter_stats_fill(&f, st);
	kfree(fill);
	return 0;
}

/*
 * A new generation's slices: a window's S empty older ones (aged as if
 * they had rotated on time: only the newest's age times rotations).
 */
int kb_gen_slices_new(struct kb_gen *g, struct netlink_ext_ack *extack)
{
	u64 now = ktime_get_boottime_ns();
	struct kb_stats st;
	u32 i, n;
	int ret;

	g->born_ns = now;
	g->staged_ns = now;
	/*
	 * A learning filter fed spoofed sources would grow to the module's
	 * max_filter_bytes: by default a growing filter stops at 16 times
	 * its first slice (about 7 times its items: each slice doubles the
	 * keys and takes more bits per key for its halved FPR).
	 */
	if (g->shape.grow && !g->shape.max_bytes) {
		g->shape.max_bytes = min_t(u64, READ_ONCE(kb_max_filter_bytes),
					   KB_GROW_BYTES_DEFAULT * g->f.bytes);
		g->shape.max_bytes_default = true;
	}
	if (!g->shape.window_ms)
		return 0;
	n = g->shape.slices;
	g->older = kcalloc(n, sizeof(*g->older), GFP_KERNEL_ACCOUNT);
	if (!g->older)
		return -ENOMEM;
	g->nslices = n + 1;
	ret = kb_gen_empty_stats(g, &st);
	for (i = 0; !ret && i < n; i++)
		ret = kb_oslice_empty(g, &g->older[i], &g->f.p, &st,
				      now - (i + 1) * kb_window_period_ns(&g->shape),
				      extack);
	/*
	 * A rotation makes its new slice before the dropped one is freed
	 * (after a grace period): a window that fits the limits only
	 * without that room would never rotate.  Said now, not then.
	 */
	if (!ret && kb_acct_charge(g->acct, g->f.bytes, NULL)) {
		NL_SET_ERR_MSG_MOD(extack, "a window needs room for slices + 2 slices in the memory limits (a rotation's new one)");
		ret = -ENOSPC;
	} else if (!ret) {
		kb_acct_uncharge(g->acct, g->f.bytes);
	}
	return ret;
}

void kb_gen_slices_free(struct kb_gen *g)
{
	u32 i;

	for (i = 0; g->older && i + 1 < g->nslices; i++)
		kb_pl_put(g->older[i].pl);
	kfree(g->older);
}

/*
 * The next slice of a growing filter g after params o (its newest, or a
 * slice an upload grows to): twice the items, half the FPR, within g's
 * bound.
 */
int kb_grow_params(const struct kb_gen *g, const struct kb_params *o,
		   struct kb_params *p)
{
	u64 max = kb_grow_max(g);
	int ret;

	ret = kb_params_init(p, o->kind);
	if (ret)
		return ret;
	p->key_type = o->key_type;
	p->hash = o->hash;
	ret = kb_params_from_fpr_plens(p, o->items * 2,
				       max(1U, o->fpr_ppb / 2),
				       g->shape.prefixes ?: 1, max);
	if (ret)
		return ret;
	memcpy(p->seed, o->seed, sizeof(p->seed));
	p->plen4 = o->plen4;
	memcpy(p->plen6, o->plen6, sizeof(p->plen6));
	return kb_params_validate(p, max);
}

/* ---- tests -------------------------------------------------------------- */

bool kb_gen_test_older(const struct kb_gen *g, const void *key, u32 len)
{
	u32 i;

	for (i = 0; i + 1 < g->nslices; i++)
		if (kb_filter_test(&g->older[i].f, key, len))
			return true;
	return false;
}

bool kb_gen_test_older_addr(const struct kb_gen *g, int family,
			    const void *addr)
{
	u32 i;

	for (i = 0; i + 1 < g->nslices; i++)
		if (kb_filter_test_addr(&g->older[i].f, family, addr))
			return true;
	return false;
}

u32 kb_gen_older_fpr_ppb(const struct kb_gen *g)
{
	return READ_ONCE(g->older_fpr_ppb);
}

/* a key of a batch (validated) as a packet's lookup, in the older slices */
bool kb_gen_lookup_older(const struct kb_gen *g, const struct kb_key *key)
{
	u32 i;

	for (i = 0; i + 1 < g->nslices; i++)
		if (kb_filter_lookup_many(&g->older[i].f, key, 1, NULL))
			return true;
	return false;
}

u32 kb_gen_test_older_many(const struct kb_gen *g, const struct kb_key *keys,
			   u32 n, u64 *bitmap)
{
	u32 i, hits = 0;

	for (i = 0; i < n; i++) {
		if (bitmap ? bitmap[i / 64] & BIT_ULL(i % 64) :
			     kb_filter_lookup_many(&g->f, &keys[i], 1, NULL))
			continue;
		if (!kb_gen_lookup_older(g, &keys[i]))
			continue;
		if (bitmap)
			bitmap[i / 64] |= BIT_ULL(i % 64);
		hits++;
	}
	return hits;
}

/* ---- slices a next generation takes over -------------------------------- */

/*
 * g's newest slice as an older slice of the next generation: its payload
 * moves into a shared kb_pl (g then frees it through that), its statistics
 * are frozen.  s->lock held, or g not published (slices_image.c).
 */
int kb_oslice_freeze(struct kb_gen *g, struct kb_oslice *o)
{
	if (!g->pl) {
		struct kb_pl *pl = kzalloc(sizeof(*pl), GFP_KERNEL_ACCOUNT);

		if (!pl)
			return -ENOMEM;
		pl->payload = g->f.payload;
		pl->bytes = g->f.bytes;
		pl->acct = kb_acct_get(g->acct);
		refcount_set(&pl->ref, 1);
		/* the charge moves with the payload: g's release puts pl */
		g->pl = pl;
	}
	refcount_inc(&g->pl->ref);
	o->pl = g->pl;
	o->f = g->f;
	o->f.fill = NULL;
	o->count = g->count;
	o->born_ns = g->born_ns;
	kb_gen_live_stats(g, &o->st);
	return 0;
}

void kb_oslice_share(struct kb_oslice *o, const struct kb_oslice *from)
{
	*o = *from;
	refcount_inc(&o->pl->ref);
}


void kb_slices_flush(struct kb_gen *g)
{
	struct kb_stats st;
	u32 i;

	kb_filter_stats_fill(&g->f, &st);
	for (i = 0; i + 1 < g->nslices; i++) {
		struct kb_oslice *o = &g->older[i];

		kb_filter_clear(&o->f);
		o->count = 0;
		o->st = st;
	}
	g->older_fpr_ppb = 0;
	g->grow_stop = false;
}

/* ---- statistics --------------------------------------------------------- */

int kb_set_slices_info(struct kb_set *s, struct kb_slices_info *si)
{
	u64 now = ktime_get_boottime_ns();
	struct kb_filter f;
	struct kb_stats st;
	struct kb_gen *g;
	u32 i;

	memset(si, 0, sizeof(*si));
	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	si->shape = g->shape;
	si->nslices = g->nslices;
	si->max_bytes = kb_grow_max(g);
	if (g->shape.window_ms)
		si->next_rotation_ms = div_u64(kb_rotate_in(g, now),
					       NSEC_PER_MSEC);
	for (i = 0; i < g->nslices; i++) {
		struct kb_slice_info *o = &si->sl[i];
		u64 born;

		if (i) {
			st = g->older[i - 1].st;
			born = g->older[i - 1].born_ns;
		} else {
			kb_gen_live_stats(g, &st);
			born = g->born_ns;
		}
		f = *kb_gen_slice(g, i);
		o->age_ms = now > born ? div_u64(now - born, NSEC_PER_MSEC) : 0;
		o->m = f.p.m;
		o->k = f.p.k;
		o->items = f.p.items;
		o->fpr_ppb = f.p.fpr_ppb;
		o->bytes = f.bytes;
		o->bits_set = st.bits_set;
		o->est_fpr_ppb = st.est_fpr_ppb;
	}
	mutex_unlock(&s->lock);
	return 0;
}
