/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom core: the blocked kind's test, inline.  kb_blocked.c builds the
 * kind on it, and the kernel's per-packet lookup (kmod/lookup.h) inlines
 * it whole, so that testing a packet's address calls nothing: see
 * kb_blocked.c for the layout.
 */
#ifndef _KB_BLOCKED_H
#define _KB_BLOCKED_H

#include "kb_internal.h"

/*
 * Probe j (1..k) of a key uses x_j = h * C^j: bit x_j >> 55 of the block,
 * i.e. bit (x_j >> 55) & 63 of word x_j >> 61.
 */
#define KB_BLK_TEST_PROBE(b, x, ok)					\
	do {								\
		(x) *= KB_PROBE_MUL;					\
		(ok) &= KB_READ_ONCE((b)[(x) >> 61]) >> (((x) >> 55) & 63); \
	} while (0)

/*
 * Probes after the first four, and all of them for k < 4: out of line, so
 * that the hot path (the first four probes of an absent key) keeps its
 * registers.  x is h * C^j after j probes done; ok their result.
 */
bool kb_blocked_test_more(const u64 *b, u64 x, u32 n, u64 ok);

/*
 * h in its block b.  Branch-free within groups of four probes; after each
 * group a key whose bit is clear stops (most tested keys are absent, and
 * half of a full filter's bits are clear, so 15 in 16 absent keys stop
 * after four probes).
 */
static KB_ALWAYS_INLINE bool kb_blocked_test_block(const struct kb_filter *f,
						   u64 h, u64 *b)
{
	u64 x = h, ok = 1;
	u32 k = f->p.k;

	if (unlikely(k < 4))
		return kb_blocked_test_more(b, x, k, ok);
	KB_BLK_TEST_PROBE(b, x, ok);
	KB_BLK_TEST_PROBE(b, x, ok);
	KB_BLK_TEST_PROBE(b, x, ok);
	KB_BLK_TEST_PROBE(b, x, ok);
	if (likely(!(ok & 1)))
		return false;
	return k == 4 || kb_blocked_test_more(b, x, k - 4, ok);
}

/* kb_blocked_test(), inline */
static KB_ALWAYS_INLINE bool kb_blocked_test_i(const struct kb_filter *f,
					       const void *key, u32 len)
{
	u64 h = kb_hash_seeded(f, key, len);

	return kb_blocked_test_block(f, h, kb_block(f, h));
}

/*
 * A fill change not yet in a filter's fill tracker: bits set, and the
 * change of its FPR sum (kb_fill: Q62 terms).
 */
struct kb_fill_delta {
	u64 bits;
	u64 fpr;
};

/*
 * Add key to a blocked filter with atomic ORs, concurrently with tests,
 * with other such adds on any CPU and with the filter's one writer, whose
 * adds are atomic too if f has a fill tracker (the kernel's generations
 * do; without one the writer's stores may drop such adds' bits): true if
 * it set a bit (the key was absent), and its
 * fill change is added to *d (f->fill's terms; the FPR part only if f has
 * a fill tracker).  The key must be valid for the key type.
 */
bool kb_blocked_add_atomic(const struct kb_filter *f, const void *key, u32 len,
			   struct kb_fill_delta *d);

#endif /* _KB_BLOCKED_H */
