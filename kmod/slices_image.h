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
 * a growing filter with fewer than n slices grows to n first.  cur's
 * changes are serialized by the caller (its filter's lock, or a
 * transaction's staging generation); only its newest payload becomes
 * shared, as a rotation makes it.  Consumes img on success.
 */
struct kb_gen *kb_gen_with_slice(struct kb_gen *cur, u32 n, struct kb_gen *img,
				 u64 age_ms, u32 *why,
				 struct netlink_ext_ack *extack);
/*
 * What an export of slice n of g reads: its filter, keys and age.  n 0:
 * the whole of a plain filter (EOPNOTSUPP for a sliced one); n past the
 * slices, or of a plain filter: EINVAL.
 */
int kb_gen_slice_out(const struct kb_gen *g, u32 n, const struct kb_filter **f,
		     u64 *count, u64 *age_ms, struct netlink_ext_ack *extack);

#endif /* _KB_SLICES_IMAGE_H */
