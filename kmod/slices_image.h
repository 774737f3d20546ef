/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom: one slice of a window or growing filter in or out
 * (slices_image.c), for the image transports (dev_image.c,
 * netlink_export.c).
 */
#ifndef _KB_SLICES_IMAGE_H
#define _KB_SLICES_IMAGE_H

#include "internal.h"

/*
 * A new generation like cur (a window or growing filter) whose slice n
 * (1 = the newest) holds img's payload (a plain generation from an
 * upload, of that slice's parameters: else EINVAL and *why), aged age_ms;
 * a growing filter with fewer than n slices grows to n first.  In two
 * phases: kb_slice_up_prep() with a reference on cur (it copies cur's
 * newest payload when that stays the newest: with no lock held), then
 * kb_slice_up_link() with cur's changes serialized (its filter's lock, or
 * a transaction's staging generation), which shares cur's older slices
 * (and its newest, when it becomes an older one, as a rotation does) and
 * consumes img; or kb_slice_up_abort() (img stays the caller's).
 */
struct kb_slice_up {
	u32 n, t, add;			/* slice n; t slices, add of them new */
	u64 now, born;			/* boottime; slice n's birth */
	struct kb_gen *img, *g;		/* the image; the new generation */
	struct kb_params q[KB_SLICES_MAX];	/* q[i]: cur's newest grown
						 * i times
						 */
};

struct kb_slice_up *kb_slice_up_prep(struct kb_gen *cur, u32 n,
				     struct kb_gen *img, u64 age_ms, u32 *why,
				     struct netlink_ext_ack *extack);
struct kb_gen *kb_slice_up_link(struct kb_slice_up *up, struct kb_gen *cur,
				struct netlink_ext_ack *extack);
void kb_slice_up_abort(struct kb_slice_up *up);
/*
 * What an export of slice n of g reads: its filter, keys and age.  n 0:
 * the whole of a plain filter (EOPNOTSUPP for a sliced one); n past the
 * slices, or of a plain filter: EINVAL.
 */
int kb_gen_slice_out(const struct kb_gen *g, u32 n, const struct kb_filter **f,
		     u64 *count, u64 *age_ms, struct netlink_ext_ack *extack);

#endif /* _KB_SLICES_IMAGE_H */
