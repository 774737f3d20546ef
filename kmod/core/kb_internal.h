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

/* hash of a key for blocked and counting filters, per algorithm */
static KB_ALWAYS_INLINE u64 kb_hash_xxh_i(const struct kb_filter *f,
					  const void *key, u32 len)
{
	return kb_xxh64(key, len, f->p.seed[0]);
}

static KB_ALWAYS_INLINE u64 kb_hash_sip_i(const struct kb_filter *f,
					  const void *key, u32 len)
{
	return kb_siphash(key, len, f->p.seed[0], f->p.seed[1]);
}

/* hash of a key for blocked and counting filters */
static KB_ALWAYS_INLINE u64 kb_hash_seeded(const struct kb_filter *f,
					   const void *key, u32 len)
{
	if (likely(f->p.hash == KB_HASH_XXH64))
		return kb_hash_xxh_i(f, key, len);
	return kb_hash_sip_i(f, key, len);
}

/* block index by multiply-shift range reduction (nblocks < 2^32) */
static KB_ALWAYS_INLINE u64 kb_block_index(const struct kb_filter *f, u64 h)
{
	return ((h >> 32) * f->nblocks) >> 32;
}

/*
 * Batch templates.  The kind passes its static (inlinable) functions; with
 * KB_ALWAYS_INLINE the compiler specializes each loop for the kind and the
 * hash algorithm, so there is no indirect call and no hash-algorithm branch
 * per key.  Keys are processed in groups of KB_BATCH_DEPTH: the hashes of
 * the next group are computed into a local array and their blocks
 * prefetched, then the current group (whose blocks were prefetched one
 * group earlier) is probed.  Probes happen in key order, so the results are
 * those of one-at-a-time operations.
 */
typedef u64 (*kb_hash_fn)(const struct kb_filter *f, const void *key, u32 len);
typedef void (*kb_pf_fn)(const struct kb_filter *f, u64 h);
typedef bool (*kb_test_fn)(const struct kb_filter *f, u64 h);
typedef void (*kb_add_fn)(struct kb_filter *f, u64 h);
typedef int (*kb_del_fn)(struct kb_filter *f, u64 h);

enum kb_batch_op {
	KB_BATCH_ADD,
	KB_BATCH_TEST,
	KB_BATCH_TEST_ADD,
	KB_BATCH_DEL,
};

static KB_ALWAYS_INLINE void
kb_batch_hash_group(const struct kb_filter *f, const struct kb_key *keys,
		    u32 cnt, u64 *hs, kb_hash_fn hash, kb_pf_fn pf)
{
	u32 i;

	for (i = 0; i < cnt; i++) {
		u64 h = hash(f, keys[i].data, keys[i].len);

		hs[i] = h;
		pf(f, h);
	}
}

static KB_ALWAYS_INLINE u32
kb_batch_run(struct kb_filter *f, const struct kb_key *keys, u32 n,
	     u64 *bitmap, enum kb_batch_op op, kb_hash_fn hash, kb_pf_fn pf,
	     kb_test_fn test, kb_add_fn add, kb_del_fn del)
{
	u64 hs[2][KB_BATCH_DEPTH];
	u64 word = 0;
	u32 base, i, cnt, cur = 0, hits = 0;
	bool r;

	cnt = n < KB_BATCH_DEPTH ? n : KB_BATCH_DEPTH;
	kb_batch_hash_group(f, keys, cnt, hs[0], hash, pf);
	for (base = 0; base < n; base += KB_BATCH_DEPTH, cur ^= 1) {
		u32 next = base + KB_BATCH_DEPTH;
		const u64 *h = hs[cur];

		cnt = n - base < KB_BATCH_DEPTH ? n - base : KB_BATCH_DEPTH;
		if (next < n)
			kb_batch_hash_group(f, keys + next,
					    n - next < KB_BATCH_DEPTH ?
					    n - next : KB_BATCH_DEPTH,
					    hs[cur ^ 1], hash, pf);
		for (i = 0; i < cnt; i++) {
			switch (op) {
			case KB_BATCH_ADD:
				add(f, h[i]);
				r = false;
				break;
			case KB_BATCH_TEST:
				r = test(f, h[i]);
				break;
			case KB_BATCH_TEST_ADD:
				r = !test(f, h[i]);
				/* counting (del != NULL) counts every add */
				if (r || del)
					add(f, h[i]);
				break;
			default:
				r = del(f, h[i]) == 0;
				break;
			}
			if (op != KB_BATCH_ADD) {
				hits += r;
				word |= (u64)r << ((base + i) & 63);
			}
		}
		/* KB_BATCH_DEPTH divides 64: groups never straddle words */
		if (op != KB_BATCH_ADD && bitmap &&
		    (((base + cnt) & 63) == 0 || base + cnt == n))
			bitmap[base >> 6] = word;
		if (((base + cnt) & 63) == 0)
			word = 0;
	}
	return hits;
}

/* define the three batched ops of a kind from its inline functions */
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

/*
 * The same for the kinds hashed with kb_hash_seeded() (blocked, counting):
 * one loop per hash algorithm, chosen once per batch.
 */
#define KB_SEEDED_BATCH(f, keys, n, bitmap, op, pf, testf, addf, delf)	\
	((f)->p.hash == KB_HASH_XXH64 ?					\
	 kb_batch_run(f, keys, n, bitmap, op, kb_hash_xxh_i, pf, testf,	\
		      addf, delf) :					\
	 kb_batch_run(f, keys, n, bitmap, op, kb_hash_sip_i, pf, testf,	\
		      addf, delf))

#define KB_DEFINE_SEEDED_BATCH_OPS(pfx, pff, pfwf, testf, addf, delf)	\
static void pfx##_add_many(struct kb_filter *f, const struct kb_key *keys, \
			   u32 n)					\
{									\
	KB_SEEDED_BATCH(f, keys, n, NULL, KB_BATCH_ADD, pfwf, testf,	\
			addf, delf);					\
}									\
static u32 pfx##_test_many(const struct kb_filter *f,			\
			   const struct kb_key *keys, u32 n, u64 *bitmap) \
{									\
	struct kb_filter *wf = (struct kb_filter *)f;			\
									\
	return KB_SEEDED_BATCH(wf, keys, n, bitmap, KB_BATCH_TEST, pff,	\
			       testf, addf, delf);			\
}									\
static u32 pfx##_test_and_add_many(struct kb_filter *f,		\
				   const struct kb_key *keys, u32 n,	\
				   u64 *bitmap)				\
{									\
	return KB_SEEDED_BATCH(f, keys, n, bitmap, KB_BATCH_TEST_ADD,	\
			       pfwf, testf, addf, delf);		\
}

#endif /* _KB_INTERNAL_H */
