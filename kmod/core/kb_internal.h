/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom core: private declarations shared by the core's .c files.
 */
#ifndef _KB_INTERNAL_H
#define _KB_INTERNAL_H

#include "kb_core.h"
#include "kb_math.h"

/* 64-bit odd multiplier (golden ratio) used to derive probe positions */
#define KB_PROBE_MUL	0x9e3779b97f4a7c15ULL

extern const struct kb_kind_ops kb_blocked_ops;
extern const struct kb_kind_ops kb_classic_ops;
extern const struct kb_kind_ops kb_counting_ops;

/* params check telling which field is wrong; 0, -EINVAL or -E2BIG */
int kb_params_check(const struct kb_params *p, u64 max_bytes,
		    enum kb_img_err *why);

/* hash of a key for blocked and counting filters */
static KB_ALWAYS_INLINE u64 kb_hash_seeded(const struct kb_filter *f,
					   const void *key, u32 len)
{
	if (likely(f->p.hash == KB_HASH_XXH64))
		return kb_xxh64(key, len, f->p.seed[0]);
	return kb_siphash(key, len, f->p.seed[0], f->p.seed[1]);
}

/* block index by multiply-shift range reduction (nblocks < 2^32) */
static KB_ALWAYS_INLINE u64 kb_block_index(const struct kb_filter *f, u64 h)
{
	return ((h >> 32) * f->nblocks) >> 32;
}

/*
 * Batch templates.  The kind passes its static (inlinable) functions; with
 * KB_ALWAYS_INLINE the compiler specializes each loop for the kind, so
 * there is no indirect call per key.  The hashes of the next
 * KB_BATCH_DEPTH keys are computed and their blocks prefetched while the
 * current key is probed.
 */
typedef u64 (*kb_hash_fn)(const struct kb_filter *f, const void *key, u32 len);
typedef void (*kb_pf_fn)(const struct kb_filter *f, u64 h);
typedef bool (*kb_test_fn)(const struct kb_filter *f, u64 h);
typedef void (*kb_add_fn)(struct kb_filter *f, u64 h);
typedef int (*kb_del_fn)(struct kb_filter *f, u64 h);

#define KB_BATCH_MASK	(KB_BATCH_DEPTH - 1)

enum kb_batch_op {
	KB_BATCH_ADD,
	KB_BATCH_TEST,
	KB_BATCH_TEST_ADD,
	KB_BATCH_DEL,
};

static KB_ALWAYS_INLINE u32
kb_batch_run(struct kb_filter *f, const struct kb_key *keys, u32 n,
	     u64 *bitmap, enum kb_batch_op op, kb_hash_fn hash, kb_pf_fn pf,
	     kb_test_fn test, kb_add_fn add, kb_del_fn del)
{
	u64 hs[KB_BATCH_DEPTH];
	u64 word = 0;
	u32 i, pre = n < KB_BATCH_DEPTH ? n : KB_BATCH_DEPTH, hits = 0;
	bool r;

	for (i = 0; i < pre; i++) {
		hs[i] = hash(f, keys[i].data, keys[i].len);
		pf(f, hs[i]);
	}
	for (i = 0; i < n; i++) {
		u64 h = hs[i & KB_BATCH_MASK];

		if (i + KB_BATCH_DEPTH < n) {
			const struct kb_key *nk = &keys[i + KB_BATCH_DEPTH];
			u64 h2 = hash(f, nk->data, nk->len);

			hs[i & KB_BATCH_MASK] = h2;
			pf(f, h2);
		}
		switch (op) {
		case KB_BATCH_ADD:
			add(f, h);
			r = false;
			break;
		case KB_BATCH_TEST:
			r = test(f, h);
			break;
		case KB_BATCH_TEST_ADD:
			r = !test(f, h);
			if (r)
				add(f, h);
			break;
		default:
			r = del(f, h) == 0;
			break;
		}
		hits += r;
		word |= (u64)r << (i & 63);
		if ((i & 63) == 63) {
			if (bitmap)
				bitmap[i >> 6] = word;
			word = 0;
		}
	}
	if ((n & 63) && bitmap)
		bitmap[n >> 6] = word;
	return hits;
}

/* define the four batched ops of a kind from its inline functions */
#define KB_DEFINE_BATCH_OPS(pfx, hashf, pff, pfwf, testf, addf, delf)	\
static void pfx##_add_many(struct kb_filter *f, const struct kb_key *keys, \
			   u32 n)					\
{									\
	kb_batch_run(f, keys, n, NULL, KB_BATCH_ADD, hashf, pfwf, testf,	\
		     addf, delf);					\
}									\
static u32 pfx##_test_many(const struct kb_filter *f,			\
			   const struct kb_key *keys, u32 n, u64 *bitmap) \
{									\
	return kb_batch_run((struct kb_filter *)f, keys, n, bitmap,	\
			    KB_BATCH_TEST, hashf, pff, testf, addf, delf); \
}									\
static u32 pfx##_test_and_add_many(struct kb_filter *f,		\
				   const struct kb_key *keys, u32 n,	\
				   u64 *bitmap)				\
{									\
	return kb_batch_run(f, keys, n, bitmap, KB_BATCH_TEST_ADD, hashf, \
			    pfwf, testf, addf, delf);			\
}

#endif /* _KB_INTERNAL_H */
