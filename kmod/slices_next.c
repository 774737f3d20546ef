// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom slices: the next generation of a window or growing filter.  A
 * rotation or a growth makes it with no lock held and publishes it under
 * kb_set.lock as a rebuild is (the model is in slices.c); the timer and
 * the work of a window's rotations and the work that grows a filter the
 * packet path filled run here.
 */
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "slices.h"

/* a rotation's timer may fire this late, to share a wakeup: never early */
#define KB_ROTATE_SLACK_NS	(10 * NSEC_PER_MSEC)

static struct workqueue_struct *kb_slices_wq;

/*
 * A generation of params p after old (s->lock held): its shape, no older
 * slices yet (nslices: what the caller fills, with NULL payloads until it
 * does, which the release skips).
 */
static struct kb_gen *kb_gen_next(struct kb_gen *old, const struct kb_params *p,
				  u32 nslices, struct netlink_ext_ack *extack)
{
	struct kb_gen *g = kb_gen_alloc(old->acct, p, NULL, true, extack);

	if (IS_ERR(g))
		return g;
	g->shape = old->shape;
	g->older = kcalloc(nslices - 1, sizeof(*g->older), GFP_KERNEL_ACCOUNT);
	if (!g->older) {
		kb_gen_discard(g);
		return ERR_PTR(-ENOMEM);
	}
	g->nslices = nslices;
	return g;
}

/* publish g after old in s, as a rebuild does (s->lock held) */
static void kb_slices_publish(struct kb_set *s, struct kb_gen *old,
			      struct kb_gen *g)
{
	u32 i;

	lockdep_assert_held(&s->lock);
	/* its newest takes adds from now (allocated unlocked, earlier) */
	g->born_ns = ktime_get_boottime_ns();
	g->staged_ns = 0;
	kb_gen_older_fpr(g);
	/* the packet path's cap starts from the older slices' estimate */
	kb_learn_sync(g);
	/* back within capacity (the newest is empty): may be told again */
	for (i = 0; i + 1 < g->nslices; i++)
		if (g->older[i].st.over_capacity)
			break;
	if (i + 1 >= g->nslices)
		clear_bit(0, &s->over);
	rcu_assign_pointer(s->gen, g);
	kb_map_retire(old, KB_MAP_REPLACED);
	kb_map_wake(s);
	kb_gen_discard(old);
}

/* s is linked (its net alive): s->lock held, s not dead */
static void kb_slices_announce(struct kb_set *s, enum kb_nl_event ev)
{
	char name[KB_NAME_MAX];

	kb_set_name(s, name);
	kb_reg_announce(s->net, ev, name, NULL);
}

/* the prefix lengths old noted since g was made from it (s->lock held) */
static void kb_gen_plens(struct kb_gen *g, const struct kb_gen *old)
{
	g->f.p.plen4 |= READ_ONCE(old->f.p.plen4);
	g->f.p.plen6[0] |= READ_ONCE(old->f.p.plen6[0]);
	g->f.p.plen6[1] |= READ_ONCE(old->f.p.plen6[1]);
	g->f.p.plen6[2] |= READ_ONCE(old->f.p.plen6[2]);
}

/*
 * A rotation or a growth allocates (and zeroes) whole slices: not under
 * s->lock, which every add, GET and the packet path's workers wait on.
 * prep() makes g from old with no lock (a reference on old held), then
 * link() fills g's shared slices and publishes it, with the lock, if old
 * is still the filter's; else g goes.  Entered and left with s->lock
 * held; s may be dead on return (the caller checks).
 */
static int kb_slices_swap(struct kb_set *s, struct kb_gen *old, u64 arg,
			  struct kb_gen *(*prep)(struct kb_gen *, u64),
			  int (*link)(struct kb_set *, struct kb_gen *,
				      struct kb_gen *, u64))
{
	struct kb_gen *g;
	int ret;

	lockdep_assert_held(&s->lock);
	refcount_inc(&old->ref);
	mutex_unlock(&s->lock);
	g = prep(old, arg);
	mutex_lock(&s->lock);
	ret = PTR_ERR_OR_ZERO(g);
	if (!ret && (s->dead || old != rcu_dereference_protected(s->gen,
					lockdep_is_held(&s->lock)))) {
		kb_gen_discard(g);
		ret = -EAGAIN;
	} else if (!ret) {
		kb_gen_plens(g, old);
		ret = link(s, old, g, arg);
		if (ret)
			kb_gen_discard(g);
	}
	kb_gen_put(old);
	return ret;
}

/* due rotations of old in one generation: its S - 1 + ... empty slices */
static u32 kb_rotate_keep(const struct kb_gen *old, u64 due)
{
	u32 S = old->shape.slices;

	return due < S ? min_t(u32, S - due, old->nslices - 1) : 0;
}

static struct kb_gen *kb_rotate_prep(struct kb_gen *old, u64 due)
{
	u32 S = old->shape.slices, j;
	u64 now = ktime_get_boottime_ns();
	struct kb_stats st;
	struct kb_gen *g;
	int ret = 0;

	g = kb_gen_next(old, &old->f.p, S + 1, NULL);
	if (IS_ERR(g))
		return g;
	kb_filter_stats_fill(&g->f, &st);
	/* older[0] and the kept ones are link()'s, the rest fresh */
	for (j = 1 + kb_rotate_keep(old, due); !ret && j < S; j++)
		ret = kb_oslice_empty(g, &g->older[j], &g->f.p, &st, now,
				      NULL);
	if (ret) {
		kb_gen_discard(g);
		return ERR_PTR(ret);
	}
	return g;
}

static int kb_rotate_link(struct kb_set *s, struct kb_gen *old,
			  struct kb_gen *g, u64 due)
{
	u32 keep = kb_rotate_keep(old, due), i;
	int ret;

	/*
	 * The newest may hold keys of now, however late this runs (a work
	 * that fired late after a resume, adds meanwhile): it always stays,
	 * as older[0]; only the older slices whose time is over go.
	 */
	ret = kb_oslice_freeze(old, &g->older[0]);
	if (ret)
		return ret;
	for (i = 0; i < keep; i++)
		kb_oslice_share(&g->older[i + 1], &old->older[i]);
	kb_slices_publish(s, old, g);
	return 0;
}

/* due rotations of old (a window), in one new generation (s->lock held) */
static int kb_slices_rotate(struct kb_set *s, struct kb_gen *old, u64 due)
{
	return kb_slices_swap(s, old, due, kb_rotate_prep, kb_rotate_link);
}

/* rotations due now of s's window g, before adds (s->lock held) */
static void kb_slices_catch_up(struct kb_set *s, struct kb_gen *g)
{
	u64 now = ktime_get_boottime_ns(), due;

	if (!g->shape.window_ms || g->born_ns > now)
		return;
	due = div64_u64(now - g->born_ns, kb_window_period_ns(&g->shape));
	if (due && !kb_slices_rotate(s, g, due) && !s->dead)
		kb_slices_announce(s, KB_EVENT_ROTATED);
}

/* old's bytes (all slices) */
static u64 kb_gen_bytes(const struct kb_gen *g)
{
	u64 b = g->f.bytes;
	u32 i;

	for (i = 0; i + 1 < g->nslices; i++)
		b += g->older[i].f.bytes;
	return b;
}

static struct kb_gen *kb_grow_prep(struct kb_gen *old, u64 unused)
{
	struct kb_params p;
	int ret;

	ret = old->nslices < KB_SLICES_MAX ? kb_grow_params(old, &old->f.p, &p) : -E2BIG;
	if (!ret && kb_gen_bytes(old) + kb_params_payload_bytes(&p) >
		    kb_grow_max(old))
		ret = -E2BIG;
	return ret ? ERR_PTR(ret) : kb_gen_next(old, &p, old->nslices + 1,
						 NULL);
}

/* g's slices after old's growth: old's newest frozen, its older shared */
static int kb_grow_fill(struct kb_gen *old, struct kb_gen *g)
{
	u32 i;
	int ret;

	ret = kb_oslice_freeze(old, &g->older[0]);
	if (ret)
		return ret;
	for (i = 0; i + 1 < old->nslices; i++)
		kb_oslice_share(&g->older[i + 1], &old->older[i]);
	return 0;
}

static int kb_grow_link(struct kb_set *s, struct kb_gen *old,
			struct kb_gen *g, u64 unused)
{
	int ret = kb_grow_fill(old, g);

	if (!ret)
		kb_slices_publish(s, old, g);
	return ret;
}

/* a growth that failed for good: old stays as it is, over capacity */
static bool kb_grow_stops(int ret)
{
	return ret && ret != -ENOMEM && ret != -EAGAIN;
}

/*
 * Grow old (s->lock held, dropped meanwhile): 0 and a new generation
 * published, or an error and old->grow_stop (it stays as it is, and goes
 * over capacity); -ENOMEM of a transient shortage is tried again at the
 * next add, -EAGAIN (old replaced meanwhile) is nothing.
 */
static int kb_slices_grow(struct kb_set *s, struct kb_gen *old)
{
	int ret = kb_slices_swap(s, old, 0, kb_grow_prep, kb_grow_link);

	if (kb_grow_stops(ret))
		old->grow_stop = true;
	return ret;
}

/* the newest slice of a growing g holds its items */
static bool kb_gen_full(struct kb_gen *g)
{
	struct kb_stats st;

	if (!g->shape.grow || g->grow_stop)
		return false;
	if (g->count >= g->f.p.items)
		return true;
	/* packet-path adds do not count: the fill tracker's estimate does */
	kb_gen_live_stats(g, &st);
	return st.est_items >= g->f.p.items;
}

/*
 * Adds of keys[*i..n) to a sliced g (its writer), one key at a time, so
 * that a growing filter grows between two keys: 1 as soon as a key fills
 * g's newest slice (*i past it: grow, then go on), 0 once all are done,
 * or an error (*bad: the key).  *new counts the keys that were in no
 * slice, marked in bitmap (zeroed by the caller).
 */
static int kb_slices_add(struct kb_gen *g, enum kb_op op,
			 const struct kb_key *keys, u32 n, u32 *i, u64 *bitmap,
			 u32 *new, u32 *bad, struct netlink_ext_ack *extack)
{
	for (; *i < n; (*i)++) {
		const struct kb_key *key = &keys[*i];
		bool older;
		u32 bad1;
		u64 b = 0;
		int ret;

		if (kb_key_validate(g->f.p.key_type, key->data, key->len)) {
			NL_SET_ERR_MSG_MOD(extack, "malformed key for the filter's key type");
			*bad = *i;
			return -EINVAL;
		}
		older = kb_gen_lookup_older(g, key);
		/* a growing filter holds a key once; a window refreshes it */
		if (older && g->shape.grow)
			continue;
		ret = kb_gen_keys(g, op, key, 1, &b, &bad1, extack);
		if (ret < 0) {
			*bad = *i;
			return ret;
		}
		if ((b & 1) && !older) {
			(*new)++;
			if (bitmap)
				bitmap[*i / 64] |= BIT_ULL(*i % 64);
		}
		if (kb_gen_full(g)) {
			(*i)++;
			return 1;
		}
	}
	return 0;
}

int kb_slices_keys(struct kb_set *s, enum kb_op op, const struct kb_key *keys,
		   u32 n, u64 *bitmap, u32 *bad, struct netlink_ext_ack *extack)
{
	struct kb_gen *g = rcu_dereference_protected(s->gen,
						     lockdep_is_held(&s->lock));
	u32 i = 0, new = 0, grew = 0;
	int ret = 0;

	if (op != KB_OP_ADD && op != KB_OP_TEST_ADD)
		return kb_gen_keys(g, op, keys, n, bitmap, bad, extack);
	if (bitmap)
		memset(bitmap, 0, DIV_ROUND_UP(n, 64) * 8);
	/* a late rotation (after a resume) first: keys go to a fresh slice */
	kb_slices_catch_up(s, g);
	while (i < n && !s->dead) {
		g = rcu_dereference_protected(s->gen,
					      lockdep_is_held(&s->lock));
		ret = kb_slices_add(g, op, keys, n, &i, bitmap, &new, bad,
				    extack);
		if (ret < 0)
			break;
		if (ret && !kb_slices_grow(s, g))
			grew++;
	}
	/* a rotation or growth let go of s->lock: destroyed meanwhile */
	if (s->dead) {
		NL_SET_ERR_MSG_MOD(extack, "the filter was destroyed");
		*bad = i;
		return -ENOENT;
	}
	/* no registry lock is taken by an announcement: s->lock is fine */
	if (grew)
		kb_slices_announce(s, KB_EVENT_GREW);
	if (ret < 0)
		return ret;
	return op == KB_OP_ADD ? 0 : new;
}

/* ---- a transaction's staging generation --------------------------------- */

int kb_slices_staged_keys(struct kb_gen *g, enum kb_op op,
			  const struct kb_key *keys, u32 n, u32 *i,
			  u64 *bitmap, u32 *new, u32 *bad,
			  struct kb_gen **full)
{
	int ret;

	*full = NULL;
	if (!g->shape.grow || (op != KB_OP_ADD && op != KB_OP_TEST_ADD)) {
		*i = n;
		return kb_gen_keys(g, op, keys, n, bitmap, bad, NULL);
	}
	if (bitmap && !*i)
		memset(bitmap, 0, DIV_ROUND_UP(n, 64) * 8);
	ret = kb_slices_add(g, op, keys, n, i, bitmap, new, bad, NULL);
	if (ret < 0)
		return ret;
	if (ret) {
		refcount_inc(&g->ref);
		*full = g;
	}
	return op == KB_OP_ADD ? 0 : *new;
}

struct kb_gen *kb_slices_staged_prep(struct kb_gen *old)
{
	return kb_grow_prep(old, 0);
}

void kb_slices_staged_grow(struct kb_txn *t, struct kb_gen *old,
			   struct kb_gen *g)
{
	int ret = PTR_ERR_OR_ZERO(g);

	/* old is pinned by the caller's reference: no other has its address */
	if (!ret && (!t || t->gen != old)) {
		kb_gen_discard(g);
		ret = -EAGAIN;
	} else if (!ret) {
		kb_gen_plens(g, old);
		ret = kb_grow_fill(old, g);
		if (ret) {
			kb_gen_discard(g);
		} else {
			/* staged: its times start at the commit (arm()) */
			g->born_ns = old->born_ns;
			g->staged_ns = old->staged_ns;
			kb_gen_older_fpr(g);
			kb_learn_sync(g);
			t->gen = g;
			kb_gen_discard(old);
		}
	}
	if (kb_grow_stops(ret) && t && t->gen == old)
		old->grow_stop = true;
	kb_gen_put(old);
}

/* ---- the works ---------------------------------------------------------- */

static void kb_slices_grow_work(struct work_struct *w)
{
	struct kb_set *s = container_of(w, struct kb_set, grow);
	bool grew = false;
	struct kb_gen *g;

	mutex_lock(&s->lock);
	/* dead: unlinked, its net may be gone; only the reference is ours */
	if (!s->dead) {
		g = rcu_dereference_protected(s->gen,
					      lockdep_is_held(&s->lock));
		grew = kb_gen_full(g) && !kb_slices_grow(s, g);
		if (grew && !s->dead)
			kb_slices_announce(s, KB_EVENT_GREW);
	}
	mutex_unlock(&s->lock);
	kb_set_put(s);
}

void kb_set_grow_kick(struct kb_set *s)
{
	if (READ_ONCE(s->dead) || work_pending(&s->grow))
		return;
	/* the queued work holds s; a kick after kb_slices_stop() finds dead */
	if (!refcount_inc_not_zero(&s->ref))
		return;
	if (!queue_work(kb_slices_wq, &s->grow))
		kb_set_put(s);
}

/*
 * A window's rotations are timed on CLOCK_BOOTTIME, as its slices' ages
 * are: an hrtimer at the boottime the next one is due, which a suspend
 * (or any jump of the boottime) brings nearer.  A delayed work's jiffies
 * stand still while the machine sleeps: its rotations came up to a period
 * late after a resume, keeping keys past t + window * (S + 1) / S.  The
 * timer (soft: softirq context, never hard irq) only queues the work,
 * which rotates under s->lock.  An hrtimer never fires early: no key is
 * dropped before its time.
 */
static enum hrtimer_restart kb_slices_rotate_due(struct hrtimer *t)
{
	struct kb_set *s = container_of(t, struct kb_set, rotate_at);

	/* s lives until kb_slices_stop() has cancelled this timer */
	queue_work(kb_slices_wq, &s->rotate);
	return HRTIMER_NORESTART;
}

/*
 * The timer for boottime at (s->lock held, or s not yet published; s not
 * dead: kb_slices_stop() cancels after dead is set, nothing arms it then)
 */
static void kb_slices_rotate_at(struct kb_set *s, u64 at)
{
	hrtimer_start_range_ns(&s->rotate_at, ns_to_ktime(at),
			       KB_ROTATE_SLACK_NS, HRTIMER_MODE_ABS_SOFT);
}

static void kb_slices_rotate_work(struct work_struct *w)
{
	struct kb_set *s = container_of(w, struct kb_set, rotate);
	bool rotated = false;
	struct kb_gen *g;
	u64 now, due, at;
	int ret = 0;

	mutex_lock(&s->lock);
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	if (s->dead || !g->shape.window_ms)
		goto out;
	now = ktime_get_boottime_ns();
	due = div64_u64(now - g->born_ns, kb_window_period_ns(&g->shape));
	/* on failure (memory, limits), again in a second */
	at = now + NSEC_PER_SEC;
	if (due) {
		ret = kb_slices_rotate(s, g, due);
		/* destroyed while it allocated: stop() waits for us */
		if (s->dead)
			goto out;
		rotated = !ret;
		if (ret && ret != -EAGAIN)
			pr_warn_ratelimited("netns %u: a window's rotation failed (memory or its limits): retrying\n",
					    s->net->ns.inum);
		g = rcu_dereference_protected(s->gen,
					      lockdep_is_held(&s->lock));
	}
	if (rotated || !due || ret == -EAGAIN)
		at = g->born_ns + kb_window_period_ns(&g->shape);
	kb_slices_rotate_at(s, at);
	if (rotated) {
		pr_debug("netns %u: filter rotated (%llu due)\n",
			 s->net->ns.inum, due);
		kb_slices_announce(s, KB_EVENT_ROTATED);
	}
out:
	mutex_unlock(&s->lock);
}

void kb_slices_init_set(struct kb_set *s, struct net *net)
{
	s->net = net;
	hrtimer_init(&s->rotate_at, CLOCK_BOOTTIME, HRTIMER_MODE_ABS_SOFT);
	s->rotate_at.function = kb_slices_rotate_due;
	INIT_WORK(&s->rotate, kb_slices_rotate_work);
	INIT_WORK(&s->grow, kb_slices_grow_work);
}

void kb_slices_arm(struct kb_set *s)
{
	struct kb_gen *g = rcu_dereference_protected(s->gen, true);
	u64 d;
	u32 i;

	/*
	 * A generation staged a while (a transaction open longer than the
	 * window) takes adds from its publication: its slices' times move
	 * with it, so that its first rotation is a period from now, not a
	 * catch-up emptying what the transaction loaded.
	 */
	if (g->staged_ns) {
		d = ktime_get_boottime_ns() - g->staged_ns;
		g->born_ns += d;
		for (i = 0; i + 1 < g->nslices; i++)
			g->older[i].born_ns += d;
		g->staged_ns = 0;
	}
	/* new contents (a rebuild, an upload, a swap): told anew */
	clear_bit(0, &s->over);
	/* not a window (any more): a timer still set finds that and stops */
	if (s->dead || !g->shape.window_ms)
		return;
	kb_slices_rotate_at(s, g->born_ns + kb_window_period_ns(&g->shape));
}

void kb_slices_stop(struct kb_set *s)
{
	/*
	 * s is dead: the work sees it under s->lock and sets no timer, the
	 * timer queues the work at most once more; in that order
	 */
	hrtimer_cancel(&s->rotate_at);
	cancel_work_sync(&s->rotate);
	if (cancel_work_sync(&s->grow))
		kb_set_put(s);
}

int kb_slices_init(void)
{
	kb_slices_wq = alloc_workqueue("kbloom", WQ_UNBOUND, 0);
	return kb_slices_wq ? 0 : -ENOMEM;
}

/* after every namespace is gone: the works kicked late drain here */
void kb_slices_exit(void)
{
	destroy_workqueue(kb_slices_wq);
}
