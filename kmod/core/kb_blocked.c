// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: the blocked kind.
 *
 * The payload is an array of 512-bit blocks (8 u64 words, one cache line).
 * One 64-bit hash h picks the block by multiply-shift range reduction of
 * its upper 32 bits, ((h >> 32) * nblocks) >> 32, so the number of blocks
 * need not be a power of two and there is no division.  The k bit positions
 * inside the block are the top 9 bits of x_i = h * C^i (mod 2^64), with C
 * an odd 64-bit constant: each multiplication remixes all of h into the top
 * bits, so the positions use the entropy of the whole hash.
 */
#include "kb_blocked.h"

/*
 * BLK_PROBES() runs k probes (kb_blocked.h: which bit probe j is) unrolled
 * by four (k is constant per filter, so the branches predict).
 */
#define BLK_PROBES(k, probe)						\
	do {								\
		u32 __n = (k);						\
									\
		for (; __n >= 4; __n -= 4) {				\
			probe;						\
			probe;						\
			probe;						\
			probe;						\
		}							\
		switch (__n) {						\
		case 3:							\
			probe;						\
			fallthrough;					\
		case 2:							\
			probe;						\
			fallthrough;					\
		case 1:							\
			probe;						\
			break;						\
		}							\
	} while (0)

/*
 * Store (old | bit) unconditionally: the one writer's store of a value that
 * only adds bits is invisible to readers when the bit was already set, and
 * a data-dependent branch here would mispredict about half the time on a
 * filling filter.  nnew counts the bits set: the one writer's stores are
 * sequential, so a bit that two probes of a key share counts once (an add
 * without fill tracking ignores it, and the compiler drops the count).
 * For filters nobody else writes: userspace's, which build images.
 */
#define BLK_ADD_PROBE(b, x, nnew)					\
	do {								\
		u64 __w, __bit;						\
									\
		(x) *= KB_PROBE_MUL;					\
		__w = KB_READ_ONCE((b)[(x) >> 61]);			\
		__bit = 1ULL << (((x) >> 55) & 63);			\
		(nnew) += !(__w & __bit);				\
		KB_WRITE_ONCE((b)[(x) >> 61], __w | __bit);		\
	} while (0)

/* the out-of-line tail of kb_blocked_test_block() (kb_blocked.h) */
KB_NOINLINE bool kb_blocked_test_more(const u64 *b, u64 x, u32 n, u64 ok)
{
	for (; n >= 4; n -= 4) {
		KB_BLK_TEST_PROBE(b, x, ok);
		KB_BLK_TEST_PROBE(b, x, ok);
		KB_BLK_TEST_PROBE(b, x, ok);
		KB_BLK_TEST_PROBE(b, x, ok);
		if (!(ok & 1))
			return false;
	}
	switch (n) {
	case 3:
		KB_BLK_TEST_PROBE(b, x, ok);
		fallthrough;
	case 2:
		KB_BLK_TEST_PROBE(b, x, ok);
		fallthrough;
	case 1:
		KB_BLK_TEST_PROBE(b, x, ok);
		break;
	}
	return ok & 1;
}

static KB_ALWAYS_INLINE void blk_add_i(struct kb_filter *f, u64 h, u64 *b)
{
	u64 x = h;
	u32 nnew = 0;

	BLK_PROBES(f->p.k, BLK_ADD_PROBE(b, x, nnew));
}

static KB_ALWAYS_INLINE u32 blk_used(u64 w)
{
	return kb_popcount64(w);
}

KB_DEFINE_BLOCK_STATS(blk, blk_used, 53)	/* 2^62 / 512 bits */

/*
 * Add with fill tracking: the add counts the bits it set, and only when
 * there are some is the block (in cache) counted, once: it held that many
 * fewer before (or fewer still: bits the packet path set meanwhile in the
 * block are counted by both, see kb_blocked_add_atomic()).  Atomic: the
 * kernel's generations, which have a fill tracker, take the packet path's
 * adds alongside their writer's.  No test first: test_and_add (the kernel's bulk add) has
 * just tested the key; a plain add of a present key stores k words that
 * do not change, in a block it has fetched for writing anyway.
 */
static KB_ALWAYS_INLINE void blk_add_fill_i(struct kb_filter *f, u64 h,
					    u64 *b)
{
	u32 nnew, after;

	nnew = kb_blocked_add_block(f->p.k, h, b, &after);
	if (!nnew)
		return;
	kb_fill_move(f->fill, after - nnew, after);
}

/*
 * The packet path's add (kb_blocked.h): lockless, any number of CPUs at
 * once.  The fill change goes to the caller's delta, not to f->fill, which
 * only the one writer may touch.  Blocks are counted after this add's
 * ORs: another CPU's bits landing in the same block meanwhile are counted
 * by both adds' FPR terms (the term of the block's new count minus that of
 * its count less this add's bits), an error the caller bounds (see
 * docs/design.md, "Adds from the packet path"); bits_set is exact.
 */
bool kb_blocked_add_atomic(const struct kb_filter *f, const void *key, u32 len,
			   struct kb_fill_delta *d)
{
	u64 h = kb_hash_seeded(f, key, len);
	u32 nnew, after;

	nnew = kb_blocked_add_block(f->p.k, h, kb_block(f, h), &after);
	if (!nnew)
		return false;
	d->bits += nnew;
	if (f->fill)
		d->fpr += f->fill->term[after] - f->fill->term[after - nnew];
	return true;
}

/* the functions of the kind dispatch (kb_core.h) */
u64 kb_blocked_hash(const struct kb_filter *f, const void *key, u32 len)
{
	return kb_hash_seeded(f, key, len);
}

bool kb_blocked_test_hash(const struct kb_filter *f, u64 h)
{
	return kb_blocked_test_block(f, h, kb_block(f, h));
}

bool kb_blocked_test(const struct kb_filter *f, const void *key, u32 len)
{
	return kb_blocked_test_i(f, key, len);
}

void kb_blocked_add_hash(struct kb_filter *f, u64 h)
{
	u64 *b = kb_block(f, h);

	if (unlikely(f->fill))
		blk_add_fill_i(f, h, b);
	else
		blk_add_i(f, h, b);
}

KB_DEFINE_SEEDED_BATCH_OPS(kb_blocked, kb_block_pf, kb_block_pfw,
			   kb_blocked_test_block, blk_add_i, NULL, blk_add_fill_i, NULL)

/* probe j: bit x_j >> 55 of the block */
static u32 blk_probes(const struct kb_filter *f, const void *key, u32 len,
		      u64 *pos)
{
	u64 h = kb_blocked_hash(f, key, len), x = h, b = kb_block_index(f, h);
	u32 j;

	for (j = 0; j < f->p.k; j++) {
		x *= KB_PROBE_MUL;
		pos[j] = b * KB_BLOCK_BITS + (x >> 55);
	}
	return f->p.k;
}

static u64 blk_payload_bytes(u64 m)
{
	return m / 8;
}

const struct kb_kind_ops kb_blocked_ops = {
	.name = "blocked",
	.kind = KB_KIND_BLOCKED,
	.granule = KB_BLOCK_BITS,
	.block_units = KB_BLOCK_BITS,
	.k_min = 1,
	.k_max = KB_K_MAX,
	.m_max = KB_M_MAX,
	.default_hash = KB_HASH_XXH64,
	.hashes = (1U << KB_HASH_XXH64) | (1U << KB_HASH_SIPHASH),
	.payload_bytes = blk_payload_bytes,
	.del = NULL,
	.del_many = NULL,
	.bits_set = blk_bits_set,
	.est_fpr_q62 = blk_est_fpr_q62,
	.del_fill = NULL,
	.fill_scan = blk_fill_scan,
	.probes = blk_probes,
};
