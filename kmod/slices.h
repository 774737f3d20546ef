/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom slices, between their files: slices.c holds, tests and freezes a
 * generation's slices (and its shape); slices_next.c makes the next
 * generation of a window or growing filter (rotation, growth) and runs
 * the works that do it.
 */
#ifndef _KB_SLICES_H
#define _KB_SLICES_H

#include <linux/math64.h>

#include "internal.h"

/* the statistics of g's newest slice with the packet path's adds */
void kb_gen_live_stats(struct kb_gen *g, struct kb_stats *st);
/* g->older_fpr_ppb from its older slices' frozen estimates */
void kb_gen_older_fpr(struct kb_gen *g);
/* an empty older slice o of params p, its own zeroed payload */
int kb_oslice_empty(struct kb_gen *g, struct kb_oslice *o,
		    const struct kb_params *p, const struct kb_stats *st,
		    u64 born, struct netlink_ext_ack *extack);
/* a growing g's next slice after params o: twice the items, half the FPR */
int kb_grow_params(const struct kb_gen *g, const struct kb_params *o,
		   struct kb_params *p);
/* o holds from's payload too (a reference) */
void kb_oslice_share(struct kb_oslice *o, const struct kb_oslice *from);
/* a validated key as a packet's lookup, in g's older slices */
bool kb_gen_lookup_older(const struct kb_gen *g, const struct kb_key *key);

static inline u64 kb_window_period_ns(const struct kb_shape *sh)
{
	return div_u64(sh->window_ms * NSEC_PER_MSEC, sh->slices);
}

/* a growing g's bound on all its slices (the module's cap may have moved) */
static inline u64 kb_grow_max(const struct kb_gen *g)
{
	u64 max = READ_ONCE(kb_max_filter_bytes);

	return g->shape.max_bytes ? min(g->shape.max_bytes, max) : max;
}

/* nanoseconds from now until g's next rotation is due (0: due now) */
static inline u64 kb_rotate_in(const struct kb_gen *g, u64 now)
{
	u64 at = g->born_ns + kb_window_period_ns(&g->shape);

	return at > now ? at - now : 0;
}

#endif /* _KB_SLICES_H */
