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
 * The atomic add of hash h to its block b (k probes), for filters with
 * fill tracking (the kernel's live generations): the packet path
 * (kmod/learn.c) adds to them from every CPU at once, and a plain store
 * of (old | bit) would drop a bit another CPU set in the same word
 * between the load and the store.  The k bits are gathered into one mask
 * per word first: a key whose bits are all set (a source seen before)
 * costs eight loads and no atomic, and a new key an atomic OR per word
 * that misses some of its bits (about 6 of the 8 words at k = 10), not
 * one per probe: atomics are the add's dearest instructions (a locked
 * RMW, and under emulation a helper call each).  Each OR counts the bits
 * it set from the old value it returns, so two writers racing on one bit
 * count it once, and a bit two probes share counts once.  Returns the
 * bits it set; *used: the block's bits after its ORs (at least those),
 * 0 when it set none.  Inline: the packet path calls nothing for it.
 */
static KB_ALWAYS_INLINE u32 kb_blocked_add_block(u32 k, u64 h, u64 *b,
						 u32 *used)
{
	u64 m[8] = { 0 }, w[8], miss = 0, old, x = h;
	u32 i, nnew = 0, n = 0;

	/* probe j's bit into the mask of its word */
	for (i = 0; i < k; i++) {
		x *= KB_PROBE_MUL;
		m[x >> 61] |= 1ULL << ((x >> 55) & 63);
	}
	for (i = 0; i < 8; i++) {
		w[i] = KB_READ_ONCE(b[i]);
		miss |= m[i] & ~w[i];
	}
	*used = 0;
	if (likely(!miss))
		return 0;
	for (i = 0; i < 8; i++) {
		if (m[i] & ~w[i]) {
			old = kb_atomic_fetch_or64(&b[i], m[i]);
			nnew += kb_popcount64(m[i] & ~old);
		}
	}
	if (!nnew)
		return 0;
	/*
	 * Counted after all of this add's ORs, not from the values it saw:
	 * two adds to one block then each count the other's bits or their
	 * own later, and the sum of their FPR terms is never below the
	 * block's (the terms grow faster than linearly), only above it.
	 */
	for (i = 0; i < 8; i++)
		n += kb_popcount64(KB_READ_ONCE(b[i]));
	/* at least its own bits: a flush may clear words meanwhile */
	*used = n < nnew ? nnew : n;
	return nnew;
}

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
