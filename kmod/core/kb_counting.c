// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: the counting kind.
 *
 * 4-bit saturating counters in 64-byte blocks of 128 counters (8 u64 words
 * of 16 counters).  Block and counter positions are derived from one 64-bit
 * hash as for the blocked kind (multiply-shift block index; top 7 bits of
 * h * C^i for counter i).  m counts counters, so the FPR of a counting
 * filter with m counters equals that of a blocked-style filter with m bits
 * and 128-bit blocks, at 4x the memory.
 *
 * Add increments each of the k counters unless it is saturated (15).  A
 * saturated counter is never decremented again (its true count is
 * unknown).  Delete first tests the key; if it tests absent nothing is
 * changed (-ENOENT), else each of its counters that is neither 0 nor 15 is
 * decremented.  Deleting a key that was never added but tests present (a
 * false positive) decrements other keys' counters and can cause false
 * negatives for them: only delete keys that were added.
 */
#include "kb_internal.h"

static KB_ALWAYS_INLINE bool cnt_test_i(const struct kb_filter *f, u64 h,
				       u64 *b)
{
	u64 x = h;
	u32 i, k = f->p.k;
	bool ok = true;

	for (i = 0; i < k; i++) {
		u32 pos;

		x *= KB_PROBE_MUL;
		pos = (u32)(x >> 57);
		ok &= ((KB_READ_ONCE(b[pos >> 4]) >> ((pos & 15) * 4)) & 15) != 0;
	}
	return ok;
}

static KB_ALWAYS_INLINE void cnt_add_i(struct kb_filter *f, u64 h, u64 *b)
{
	u64 x = h;
	u32 i, k = f->p.k;

	for (i = 0; i < k; i++) {
		u32 pos, sh;
		u64 v;

		x *= KB_PROBE_MUL;
		pos = (u32)(x >> 57);
		sh = (pos & 15) * 4;
		v = KB_READ_ONCE(b[pos >> 4]);
		if (((v >> sh) & 15) != KB_COUNTER_MAX)
			KB_WRITE_ONCE(b[pos >> 4], v + (1ULL << sh));
	}
}

static KB_ALWAYS_INLINE int cnt_del_i(struct kb_filter *f, u64 h, u64 *b)
{
	u64 x = h;
	u32 i, k = f->p.k;

	if (!cnt_test_i(f, h, b))
		return -ENOENT;
	for (i = 0; i < k; i++) {
		u32 pos, sh;
		u64 v, c;

		x *= KB_PROBE_MUL;
		pos = (u32)(x >> 57);
		sh = (pos & 15) * 4;
		v = KB_READ_ONCE(b[pos >> 4]);
		c = (v >> sh) & 15;
		if (c && c != KB_COUNTER_MAX)
			KB_WRITE_ONCE(b[pos >> 4], v - (1ULL << sh));
	}
	return 0;
}

static int cnt_del(struct kb_filter *f, u64 h)
{
	return cnt_del_i(f, h, kb_block(f, h));
}

/* number of nonzero 4-bit counters in a word */
static KB_ALWAYS_INLINE u32 cnt_nonzero(u64 v)
{
	v = (v | (v >> 1) | (v >> 2) | (v >> 3)) & 0x1111111111111111ULL;
	return kb_popcount64(v);
}

KB_DEFINE_BLOCK_STATS(cnt, cnt_nonzero, 55)	/* 2^62 / 128 counters */

/* add and delete with fill tracking: every one can move counters */
static KB_ALWAYS_INLINE void cnt_add_fill_i(struct kb_filter *f, u64 h,
					    u64 *b)
{
	u32 before = cnt_block_used(b);

	cnt_add_i(f, h, b);
	kb_fill_move(f->fill, before, cnt_block_used(b));
}

static KB_ALWAYS_INLINE int cnt_del_fill_i(struct kb_filter *f, u64 h,
					   u64 *b)
{
	u32 before = cnt_block_used(b);
	int ret = cnt_del_i(f, h, b);

	if (!ret)
		kb_fill_move(f->fill, before, cnt_block_used(b));
	return ret;
}

static int cnt_del_fill(struct kb_filter *f, u64 h)
{
	return cnt_del_fill_i(f, h, kb_block(f, h));
}

/* the functions of the kind dispatch (kb_core.h) */
u64 kb_counting_hash(const struct kb_filter *f, const void *key, u32 len)
{
	return kb_hash_seeded(f, key, len);
}

bool kb_counting_test_hash(const struct kb_filter *f, u64 h)
{
	return cnt_test_i(f, h, kb_block(f, h));
}

bool kb_counting_test(const struct kb_filter *f, const void *key, u32 len)
{
	return kb_counting_test_hash(f, kb_hash_seeded(f, key, len));
}

void kb_counting_add_hash(struct kb_filter *f, u64 h)
{
	u64 *b = kb_block(f, h);

	if (unlikely(f->fill))
		cnt_add_fill_i(f, h, b);
	else
		cnt_add_i(f, h, b);
}

KB_DEFINE_SEEDED_BATCH_OPS(kb_counting, kb_block_pf, kb_block_pfw,
			   cnt_test_i, cnt_add_i, cnt_del_i, cnt_add_fill_i,
			   cnt_del_fill_i)

static u32 cnt_del_many(struct kb_filter *f, const struct kb_key *keys, u32 n,
			u64 *bitmap)
{
	return KB_SEEDED_BATCH(f, keys, n, bitmap, KB_BATCH_DEL,
			       kb_block_pfw, cnt_test_i, cnt_add_i, cnt_del_i,
			       cnt_add_fill_i, cnt_del_fill_i);
}

/* probe j: counter x_j >> 57 of the block */
static u32 cnt_probes(const struct kb_filter *f, const void *key, u32 len,
		      u64 *pos)
{
	u64 h = kb_counting_hash(f, key, len), x = h, b = kb_block_index(f, h);
	u32 j;

	for (j = 0; j < f->p.k; j++) {
		x *= KB_PROBE_MUL;
		pos[j] = b * KB_CBLOCK_COUNTERS + (x >> 57);
	}
	return f->p.k;
}

/* 4-bit counters */
static u64 cnt_payload_bytes(u64 m)
{
	return m / 2;
}

const struct kb_kind_ops kb_counting_ops = {
	.name = "counting",
	.kind = KB_KIND_COUNTING,
	.granule = KB_CBLOCK_COUNTERS,
	.block_units = KB_CBLOCK_COUNTERS,
	.k_min = 1,
	.k_max = KB_K_MAX,
	.m_max = KB_M_MAX,
	.default_hash = KB_HASH_XXH64,
	.hashes = (1U << KB_HASH_XXH64) | (1U << KB_HASH_SIPHASH),
	.payload_bytes = cnt_payload_bytes,
	.del = cnt_del,
	.del_many = cnt_del_many,
	.bits_set = cnt_bits_set,
	.est_fpr_q62 = cnt_est_fpr_q62,
	.del_fill = cnt_del_fill,
	.fill_scan = cnt_fill_scan,
	.probes = cnt_probes,
};
