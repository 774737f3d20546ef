// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: KB_IOC_MERGE (uapi section 3): OR byte ranges into the payload of
 * a filter's live generation, what a fleet follower does with the chunks
 * of a Redis value that changed.  On /dev/kbloom (the filter by name) and
 * on a filter's file opened for writing (dev_filter.c).
 *
 * Three steps, so that a refused merge changes nothing:
 *  1. check: the request and its ranges, then the live generation under
 *     the filter's lock (kind, key type, shape, the generation asked for,
 *     the bounds).  Its id is remembered; no reference is kept.
 *  2. copy: every range from user memory, with no lock and no generation
 *     held, into one buffer holding the ranges' union in the payload's
 *     memory format, cut into segments aligned to words (blocked filters:
 *     to blocks, so that each block's FPR term moves once); gozero's
 *     padding bits are checked there.
 *  3. merge: under the filter's merge_lock (merges only, one at a time),
 *     the generation found again (another one: ESTALE), a reference
 *     taken; the saturation guard on the fill the ORs would give; then the
 *     ORs, a piece at a time under the filter's lock, with cond_resched()
 *     between pieces and the generation reference (not the RCU read lock)
 *     held across them.
 *
 * The ORs are atomic word operations and never clear a bit: lookups (no
 * lock) and the packet path's adds (learn.c: atomic ORs, no lock) run
 * beside them, and a key present before is present throughout.  They are
 * the writer's operation all the same, under kb_set.lock: classic and
 * gozero's writer stores plain read-modify-writes of bytes (kb_classic.c,
 * kb_gozero.c), which would drop the bits of an OR landing between its
 * load and its store, and the fill tracker is the writer's (kb_gen.fill):
 * so the merge moves it by exactly the bits its ORs found clear, as an
 * add does, and bulk adds interleave between the pieces.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/overflow.h>

#include "internal.h"
#include "dev.h"

#define KB_MERGE_COPY	(64U << 10)	/* bytes copied from the user per step */
#define KB_MERGE_PIECE	(64U << 10)	/* payload bytes ORed per lock hold */

/* a piece of the ranges' union: payload bytes [off, off + len) */
struct kb_mseg {
	u64 off;
	u64 len;
	u64 at;				/* where its bytes are in kb_merge.buf */
};

struct kb_merge {
	struct kb_merge_range *r;	/* the ranges, sorted by offset */
	u32 nr;
	struct kb_mseg *seg;
	u32 nseg;
	u8 *buf;			/* the union, 8-byte aligned */
	u64 buf_len;
	/* the generation checked (step 1) */
	u64 gen_id;
	u64 bytes;			/* its payload bytes */
	u64 m;
	u32 kind;
	u32 align;			/* of the segments: a word, a block */
	bool bytewise;
};

static void kb_merge_free(struct kb_merge *mg)
{
	kvfree(mg->buf);
	kvfree(mg->seg);
	kvfree(mg->r);
}

/* the ranges themselves: each non-empty, the total bounded */
static int kb_merge_ranges_in(struct kb_merge *mg,
			      const struct kb_ioc_merge *a)
{
	u64 total = 0, end;
	u32 i;

	mg->r = kvmalloc_array(a->nr_ranges, sizeof(*mg->r),
			       GFP_KERNEL_ACCOUNT);
	if (!mg->r)
		return -ENOMEM;
	mg->nr = a->nr_ranges;
	if (copy_from_user(mg->r, u64_to_user_ptr(a->ranges),
			   (size_t)mg->nr * sizeof(*mg->r)))
		return -EFAULT;
	for (i = 0; i < mg->nr; i++) {
		const struct kb_merge_range *r = &mg->r[i];

		if (!r->len || check_add_overflow(r->offset, r->len, &end))
			return -EINVAL;
		if (r->len > KB_MERGE_BYTES_MAX - total)
			return -E2BIG;
		total += r->len;
	}
	return 0;
}

/*
 * Step 1 under s's lock: what the merge may go into.  Net key types are
 * refused as KB_IOC_TXN_WRITE refuses them: lookups probe only the prefix
 * lengths the filter records, which raw bytes cannot carry.
 */
static int kb_merge_check(struct kb_set *s, struct kb_merge *mg, u64 want,
			  u32 *why)
{
	const struct kb_gen *g;
	u64 limit;
	int ret = 0;
	u32 i;

	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	if (s->dead)
		ret = -ENOENT;
	else if (kb_key_type_is_net(g->f.p.key_type))
		ret = -EINVAL;
	else if (g->f.p.kind == KB_KIND_COUNTING || g->nslices > 1 ||
		 kb_gen_sliced(g))
		/* counters are not bits; slices are no one payload */
		ret = -EOPNOTSUPP;
	else if (want && want != g->id)
		ret = -ESTALE;
	mg->gen_id = g->id;
	mg->bytes = g->f.bytes;
	mg->m = g->f.p.m;
	mg->kind = g->f.p.kind;
	mg->bytewise = g->f.ops->bytewise;
	mg->align = g->f.ops->block_units ? KB_BLOCK_BYTES : 8;
	mutex_unlock(&s->lock);
	if (ret)
		return ret;
	/* classic's last byte is its k, not bits */
	limit = mg->bytes - (mg->kind == KB_KIND_CLASSIC);
	for (i = 0; i < mg->nr; i++) {
		if (mg->r[i].offset + mg->r[i].len > limit) {
			if (mg->kind == KB_KIND_CLASSIC &&
			    mg->r[i].offset + mg->r[i].len == mg->bytes)
				*why = KB_IMG_CLASSIC_K;
			return -EINVAL;
		}
	}
	return 0;
}

static int kb_merge_cmp(const void *a, const void *b)
{
	const struct kb_merge_range *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* the ranges' union as aligned segments, in order (ranges sorted) */
static int kb_merge_plan(struct kb_merge *mg)
{
	struct kb_mseg *sg = NULL;
	u32 i;

	sort(mg->r, mg->nr, sizeof(*mg->r), kb_merge_cmp, NULL);
	mg->seg = kvmalloc_array(mg->nr, sizeof(*mg->seg), GFP_KERNEL_ACCOUNT);
	if (!mg->seg)
		return -ENOMEM;
	for (i = 0; i < mg->nr; i++) {
		u64 start = round_down(mg->r[i].offset, mg->align);
		u64 end = round_up(mg->r[i].offset + mg->r[i].len, mg->align);

		if (sg && start <= sg->off + sg->len) {
			sg->len = max(sg->len, end - sg->off);
			continue;
		}
		sg = &mg->seg[mg->nseg++];
		sg->off = start;
		sg->len = end - start;
	}
	for (i = 0; i < mg->nseg; i++) {
		mg->seg[i].at = mg->buf_len;
		mg->buf_len += mg->seg[i].len;
	}
	return 0;
}

/*
 * Step 2: the ranges' bytes ORed into the union (ranges may overlap), no
 * lock held.  Bounded: the segments lie in the payload (rounded up to a
 * word) and hold at most the total plus each range's alignment, so at
 * most KB_MERGE_BYTES_MAX and a little; charged to the caller's memory
 * cgroup, freed when the ioctl returns.
 */
static int kb_merge_copy(struct kb_merge *mg, u32 *why)
{
	u64 i, done, n;
	u8 *bounce;
	u32 j = 0;
	int ret = 0;

	mg->buf = kvzalloc(mg->buf_len, GFP_KERNEL_ACCOUNT);
	bounce = kvmalloc(KB_MERGE_COPY, GFP_KERNEL_ACCOUNT);
	if (!mg->buf || !bounce) {
		kvfree(bounce);
		return -ENOMEM;
	}
	for (i = 0; i < mg->nr && !ret; i++) {
		const struct kb_merge_range *r = &mg->r[i];
		const u8 __user *src = u64_to_user_ptr(r->data);
		u8 *dst;

		while (r->offset >= mg->seg[j].off + mg->seg[j].len)
			j++;
		dst = mg->buf + mg->seg[j].at + (r->offset - mg->seg[j].off);
		for (done = 0; done < r->len; done += n) {
			u64 k;

			n = min_t(u64, r->len - done, KB_MERGE_COPY);
			if (copy_from_user(bounce, src + done, n)) {
				ret = -EFAULT;
				break;
			}
			for (k = 0; k < n; k++)
				dst[done + k] |= bounce[k];
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			cond_resched();
		}
	}
	kvfree(bounce);
	if (ret)
		return ret;
	/* gozero: a value go-zero wrote never has bits past m */
	if (mg->kind == KB_KIND_GOZERO && mg->m % 8) {
		const struct kb_mseg *sg = &mg->seg[mg->nseg - 1];
		u64 last = mg->bytes - 1;

		if (last < sg->off + sg->len &&
		    (mg->buf[sg->at + last - sg->off] & (0xffU >> (mg->m % 8)))) {
			*why = KB_IMG_GOZERO_PAD;
			return -EINVAL;
		}
	}
	/* an image's payload words are little-endian (kb_filter_attach()) */
	if (!mg->bytewise) {
		__le64 *w = (__le64 *)mg->buf;

		for (i = 0; i < mg->buf_len / 8; i++)
			((u64 *)w)[i] = le64_to_cpu(w[i]);
	}
	return 0;
}

/*
 * The union's words, a piece at a time: fn(g, payload word, mask, words)
 * for each; a non-zero return stops.
 */
static int kb_merge_walk(struct kb_merge *mg, struct kb_gen *g,
			 int (*fn)(struct kb_merge *mg, struct kb_gen *g,
				   u64 w, const u64 *mask, u64 n, void *arg),
			 void *arg)
{
	u64 off, n;
	u32 i;
	int ret;

	for (i = 0; i < mg->nseg; i++) {
		const struct kb_mseg *sg = &mg->seg[i];

		for (off = 0; off < sg->len; off += n) {
			/* a multiple of KB_BLOCK_BYTES: whole blocks */
			n = min_t(u64, sg->len - off, KB_MERGE_PIECE);
			ret = fn(mg, g, (sg->off + off) / 8,
				 (const u64 *)(mg->buf + sg->at + off), n / 8,
				 arg);
			if (ret)
				return ret;
			cond_resched();
		}
	}
	return 0;
}

/* the guard's count: what the ORs would set now, into a copy of the fill */
static int kb_merge_predict(struct kb_merge *mg, struct kb_gen *g, u64 w,
			    const u64 *mask, u64 n, void *arg)
{
	kb_filter_merge_words(&g->f, w, mask, n, arg, false);
	return 0;
}

struct kb_merge_run {
	struct kb_set *s;
	u64 new_bits;
	bool started;			/* a piece was merged */
	bool over;			/* over-capacity to announce */
};

/*
 * One piece: the generation must still be s's live one, with the id it
 * had at the check (a flush renews it in place).  Once a piece went in,
 * the lock is waited for unkillably: a merge begun completes, or stops
 * only because its generation went away (ESTALE, ENOENT).
 */
static int kb_merge_piece(struct kb_merge *mg, struct kb_gen *g, u64 w,
			  const u64 *mask, u64 n, void *arg)
{
	struct kb_merge_run *run = arg;
	struct kb_set *s = run->s;
	int ret = 0;
	u64 set;

	if (!run->started) {
		if (mutex_lock_killable(&s->lock))
			return -EINTR;
	} else {
		mutex_lock(&s->lock);
	}
	if (s->dead)
		ret = -ENOENT;
	else if (g != rcu_dereference_protected(s->gen,
						lockdep_is_held(&s->lock)) ||
		 g->id != mg->gen_id)
		ret = -ESTALE;
	if (!ret) {
		run->started = true;
		set = kb_filter_merge_words(&g->f, w, mask, n, g->fill, true);
		if (set) {
			run->new_bits += set;
			g->seq++;	/* exports in progress restart */
			kb_learn_sync(g);
			if (kb_gen_over(g) && kb_set_over_once(s))
				run->over = true;
		}
	}
	mutex_unlock(&s->lock);
	return ret;
}

/*
 * Step 3.  The guard counts the bits the ORs would set against the fill
 * as it is at the check, the packet path's pending adds included: adds
 * that land between the guard and the ORs are not counted by it (no lock
 * can be held across the count without stalling every writer), so they
 * can take a merge that passed a little past the limit, as they could
 * just after it.  KB_EVENT_OVER_CAPACITY says so when it happens.
 * Other merges are counted: s->merge_lock is held from the count to the
 * last piece, so two deltas each within the guard but not together are
 * not both let in (each counted before the other's ORs).  No user copy
 * runs under it (the union was copied in step 2), and only merges take
 * it: the packet path, lookups and bulk adds never wait for it.
 */
static int kb_merge_apply(struct net *net, struct kb_set *s,
			  struct kb_merge *mg, struct kb_ioc_merge *a,
			  const char *name, bool capped)
{
	struct kb_merge_run run = { .s = s };
	struct kb_fill *pred = NULL;
	u32 limit = a->max_fpr_ppb;
	struct kb_stats st;
	struct kb_filter f;
	struct kb_gen *g;
	int ret = 0;

	if (mutex_lock_killable(&s->merge_lock))
		return -EINTR;
	if (mutex_lock_killable(&s->lock)) {
		mutex_unlock(&s->merge_lock);
		return -EINTR;
	}
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	if (s->dead)
		ret = -ENOENT;
	else if (g->id != mg->gen_id)
		ret = -ESTALE;
	/*
	 * A filter file's writer (a writers-group member, maybe without
	 * CAP_NET_ADMIN) merges under the filter's own cap, as its adds
	 * from the packet path do: one unguarded 16 MiB merge of ones
	 * would otherwise turn the filter into "block everything".
	 */
	if (!ret && capped && (!limit || limit > kb_learn_cap(g)))
		limit = kb_learn_cap(g);
	if (!ret && limit) {
		size_t len = kb_fill_bytes(&g->f.p);

		pred = kmalloc(len, GFP_KERNEL);
		if (pred) {
			kb_learn_sync(g);
			memcpy(pred, g->fill, len);
			kb_learn_fill_read(g, pred);
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret)
		refcount_inc(&g->ref);	/* across the pieces, not RCU */
	mutex_unlock(&s->lock);
	if (ret) {
		mutex_unlock(&s->merge_lock);
		return ret;
	}
	if (pred) {
		/* reads only: the payload as lookups read it */
		kb_merge_walk(mg, g, kb_merge_predict, pred);
		f = g->f;
		f.fill = pred;
		if (kb_filter_guard(&f, limit, &st)) {
			a->why = KB_IMG_SATURATED;
			kb_reg_announce(net, KB_EVENT_REFUSED, name, NULL);
			ret = -EDOM;
			goto out;
		}
	}
	ret = kb_merge_walk(mg, g, kb_merge_piece, &run);
	a->new_bits = run.new_bits;
	if (run.over)
		kb_reg_announce(net, KB_EVENT_OVER_CAPACITY, name, NULL);
out:
	mutex_unlock(&s->merge_lock);
	kfree(pred);
	kb_gen_put(g);
	return ret;
}

/* fs: a filter file's filter (name all zero), else NULL: by name in net */
long kb_merge_ioctl(struct net *net, struct kb_set *fs, void __user *u)
{
	struct kb_merge mg = {};
	struct kb_ioc_merge a;
	char name[KB_NAME_MAX];
	struct kb_set *s;
	u32 usize, why = 0;
	long ret;

	ret = kb_copy_in(&a, sizeof(a), KB_IOC_MERGE_SIZE_VER0, u, &usize);
	if (ret)
		return ret;
	if (a.flags || a.reserved0 || !kb_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	if (fs ? !kb_zero(a.name, sizeof(a.name)) : !kb_ioc_name_ok(a.name))
		return -EINVAL;
	if (!a.nr_ranges || a.nr_ranges > KB_MERGE_RANGES_MAX)
		return -EINVAL;
	a.new_bits = 0;
	a.why = 0;
	ret = kb_merge_ranges_in(&mg, &a);
	if (ret)
		goto free;
	if (fs) {
		s = fs;
	} else {
		s = kb_set_find(net, a.name, false);
		if (IS_ERR(s)) {
			ret = PTR_ERR(s);
			goto free;
		}
	}
	ret = kb_merge_check(s, &mg, a.generation, &why);
	if (!ret)
		ret = kb_merge_plan(&mg);
	if (!ret)
		ret = kb_merge_copy(&mg, &why);
	a.why = why;
	if (!ret) {
		/* events name the filter as it is called now */
		kb_set_name(s, name);
		ret = kb_merge_apply(net, s, &mg, &a, name, !!fs);
	}
	if (!ret)
		a.generation = mg.gen_id;
	if (!fs)
		kb_set_put(s);
free:
	kb_merge_free(&mg);
	if (kb_copy_out(u, &a, sizeof(a), usize))
		return -EFAULT;
	return ret;
}
