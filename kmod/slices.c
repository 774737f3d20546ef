// SPDX-License-Identifier: GPL-2.0
/*
 * TEMPORARY (issue 27): trivial stand-ins of h27-slices' slices.c for
 * learn.c, for filters of one slice: no older slice, no growth.  The
 * coordinator drops this commit when slices.c lands.
 */
#include "internal.h"

bool kb_gen_test_older(const struct kb_gen *g, const void *key, u32 len)
{
	return false;
}

bool kb_gen_test_older_addr(const struct kb_gen *g, int family,
			    const void *addr)
{
	return false;
}

u32 kb_gen_older_fpr_ppb(const struct kb_gen *g)
{
	return 0;
}

void kb_set_grow_kick(struct kb_set *s)
{
}
