// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: one slice of a window or growing filter in or out (uapi
 * struct kb_ioc_image slice/age_ms, KB_A_SLICE_INDEX): what save and
 * restore keep of such a filter, slice by slice with their ages.
 *
 * An upload of slice n makes a new generation, as a rotation does
 * (slices.c): the older slices it keeps are shared with the generation
 * before (a reference on their payloads), slice n is the image's payload,
 * aged as asked, and the newest is the image's (n = 1) or a copy of the
 * one before (a generation's newest takes adds: it is never shared).  A
 * growing filter with fewer than n slices first grows to n, each new
 * slice empty with twice the items at half the FPR.  A window's slice
 * whose age is past the window's bound, (S + 1) * window / S, holds only
 * keys whose time is over: it is loaded empty, so a save restored long
 * after it was taken forgets them even when the host booted since (its
 * boottime is younger than the ages); the newest's age starts the
 * rotations that are due (slices.c's worker, at once).
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "internal.h"
#include "slices.h"
#include "slices_image.h"

/* whether img fits a slice of params p: 0, or -EINVAL with why */
static int kb_si_fits(const struct kb_params *img, const struct kb_params *p,
		      u32 *why, struct netlink_ext_ack *extack)
{
	*why = img->kind != p->kind ? KB_IMG_BAD_KIND :
	       img->hash != p->hash ? KB_IMG_BAD_HASH :
	       img->key_type != p->key_type ? KB_IMG_BAD_KEY_TYPE :
	       img->m != p->m ? KB_IMG_BAD_M :
	       img->k != p->k ? KB_IMG_BAD_K :
	       memcmp(img->seed, p->seed, sizeof(p->seed)) ? KB_IMG_BAD_SEED :
	       KB_IMG_OK;
	if (*why == KB_IMG_OK)
		return 0;
	NL_SET_ERR_MSG_FMT_MOD(extack, "image m %llu k %u, the slice's m %llu k %u",
			       img->m, img->k, p->m, p->k);
	return -EINVAL;
}

/*
 * Phase one: the checks, the parameters of the slices a growth adds, and
 * the new generation's newest slice (the image, or a copy of cur's: a
 * newest slice takes adds and is never shared).  Reads cur's newest
 * payload without its lock (the caller holds a reference on cur); an add
 * meanwhile is seen by the caller's check of cur->seq under the lock.
 */
struct kb_slice_up *kb_slice_up_prep(struct kb_gen *cur, u32 n,
				     struct kb_gen *img, u64 age_ms, u32 *why,
				     struct netlink_ext_ack *extack)
{
	const struct kb_shape *sh = &cur->shape;
	u64 bytes = 0, max;
	const struct kb_params *tp;
	struct kb_slice_up *up;
	u32 k = cur->nslices, i;
	int ret = -EINVAL;

	*why = 0;
	if (!sh->window_ms && !sh->grow) {
		NL_SET_ERR_MSG_MOD(extack, "slices are for windows and growing filters");
		return ERR_PTR(-EINVAL);
	}
	if (!n || n > KB_SLICES_MAX || (sh->window_ms && n > k)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "no slice %u (the filter holds %u)",
				       n, k);
		return ERR_PTR(-EINVAL);
	}
	up = kzalloc(sizeof(*up), GFP_KERNEL);
	if (!up)
		return ERR_PTR(-ENOMEM);
	up->n = n;
	up->t = sh->grow && n > k ? n : k;
	up->add = up->t - k;
	up->img = img;
	up->q[0] = cur->f.p;
	for (i = 0; i < k; i++)
		bytes += kb_gen_slice(cur, i)->bytes;
	max = kb_grow_max(cur);
	for (i = 1; i <= up->add; i++) {
		ret = kb_grow_params(cur, &up->q[i - 1], &up->q[i]);
		bytes += ret ? 0 : kb_params_payload_bytes(&up->q[i]);
		if (ret || bytes > max) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "growing to %u slices would pass max-bytes (%llu)",
					       up->t, max);
			ret = ret ?: -E2BIG;
			goto fail;
		}
	}
	/* slice n of the result: grown ones first, then cur's */
	tp = n <= up->add ? &up->q[up->add - n + 1] :
			    &kb_gen_slice(cur, n - up->add - 1)->p;
	ret = kb_si_fits(&img->f.p, tp, why, extack);
	if (ret)
		goto fail;
	/* past the window's bound: nothing in it may answer any more */
	if (sh->window_ms && age_ms >= div_u64(sh->window_ms * (sh->slices + 1),
					       sh->slices)) {
		kb_filter_clear(&img->f);
		kb_gen_fill(img);
		img->count = 0;
	}
	/* boottime never goes below 0: an older age is as old as the boot */
	/* a transaction's staging generation: its times are as of staging */
	up->now = cur->staged_ns ?: ktime_get_boottime_ns();
	up->born = up->now - min_t(u64, age_ms * NSEC_PER_MSEC, up->now);
	if (n == 1 && !up->add) {
		up->g = img;
		img->born_ns = up->born;
		return up;
	}
	up->g = kb_gen_alloc(cur->acct, &up->q[up->add], NULL, true, extack);
	ret = PTR_ERR_OR_ZERO(up->g);
	if (ret)
		goto fail;
	if (!up->add) {
		memcpy(up->g->f.payload, cur->f.payload, cur->f.bytes);
		up->g->f.p = cur->f.p;
		kb_gen_fill(up->g);
		up->g->count = cur->count;
		up->g->born_ns = cur->born_ns;
	}
	return up;
fail:
	kfree(up);
	return ERR_PTR(ret);
}

/*
 * Phase two, with cur's changes serialized (its filter's lock, or the
 * transaction's): the older slices, shared with cur or empty, and slice
 * n.  Returns the new generation (img consumed), or an error (img stays
 * the caller's, up->g is gone); frees up either way.
 */
struct kb_gen *kb_slice_up_link(struct kb_slice_up *up, struct kb_gen *cur,
				struct netlink_ext_ack *extack)
{
	struct kb_gen *g = up->g, *img = up->img;
	u32 n = up->n, t = up->t, add = up->add, j;
	int ret;

	g->shape = cur->shape;
	g->staged_ns = cur->staged_ns;
	g->older = kcalloc(t - 1, sizeof(*g->older), GFP_KERNEL_ACCOUNT);
	ret = g->older ? 0 : -ENOMEM;
	g->nslices = t;
	for (j = 2; !ret && j <= t; j++) {
		struct kb_oslice *o = &g->older[j - 2];

		if (j == n) {
			ret = kb_oslice_freeze(img, o);
			o->born_ns = up->born;
		} else if (j <= add) {
			ret = kb_oslice_empty(g, o, &up->q[add - j + 1], NULL,
					      up->now, extack);
		} else if (j == add + 1) {
			ret = kb_oslice_freeze(cur, o);
		} else {
			*o = cur->older[j - add - 2];
			refcount_inc(&o->pl->ref);
		}
	}
	if (ret) {
		kb_slice_up_abort(up);
		return ERR_PTR(ret);
	}
	kb_gen_older_fpr(g);
	kfree(up);
	/* img's payload lives on in g's slice n, through its kb_pl */
	if (g != img)
		kb_gen_discard(img);
	return g;
}

void kb_slice_up_abort(struct kb_slice_up *up)
{
	struct kb_gen *img = up->img;

	if (up->g != img) {
		kb_gen_discard(up->g);
	} else {
		/* img stays the caller's, a plain generation again */
		kb_gen_slices_free(img);
		img->older = NULL;
		img->nslices = 1;
		memset(&img->shape, 0, sizeof(img->shape));
	}
	kfree(up);
}

/* slice n (1 = the newest) of g for an export: its filter, count, age */
int kb_gen_slice_out(const struct kb_gen *g, u32 n, const struct kb_filter **f,
		     u64 *count, u64 *age_ms, struct netlink_ext_ack *extack)
{
	bool sliced = g->shape.window_ms || g->shape.grow;
	u64 born;

	if (!n && sliced) {
		NL_SET_ERR_MSG_MOD(extack, "a window or growing filter is exported slice by slice (SLICE_INDEX)");
		return -EOPNOTSUPP;
	}
	if (n && (!sliced || n > g->nslices)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "no slice %u (the filter holds %u)",
				       n, g->nslices);
		return -EINVAL;
	}
	*f = kb_gen_slice(g, n ? n - 1 : 0);
	*count = n > 1 ? g->older[n - 2].count : g->count;
	born = n > 1 ? g->older[n - 2].born_ns : g->born_ns;
	*age_ms = n ? div_u64(ktime_get_boottime_ns() - born, NSEC_PER_MSEC) : 0;
	return 0;
}
