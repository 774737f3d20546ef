/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom core: private declarations shared by the core's .c files.
 */
#ifndef _KB_INTERNAL_H
#define _KB_INTERNAL_H

#include "kb_core.h"
#include "kb_math.h"

/* elements of an array (the core has no ARRAY_SIZE in userspace) */
#define KB_NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* 64-bit odd multiplier (golden ratio) used to derive probe positions */
#define KB_PROBE_MUL	0x9e3779b97f4a7c15ULL

/* each kind's cold operations (kb_core.h, "the kind table") */
#define KB_KIND_OPS_DECLARE_(name, NAME, ...)	KB_EXPAND_(		\
	extern const struct kb_kind_ops kb_##name##_ops;)

KB_KINDS(KB_KIND_OPS_DECLARE_)

/*
 * Kinds whose payload is a byte array (classic, gozero): any alignment, no
 * word byte order, byte-wise image copies.
 */
static inline bool kb_kind_bytewise(u32 kind)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);

	return o && o->bytewise;
}

/* set bits of a[0..n) (yielding in long runs) */
u64 kb_bytes_popcount(const void *a, u64 n);

/* params check telling which field is wrong; 0, -EINVAL or -E2BIG */
int kb_params_check(const struct kb_params *p, u64 max_bytes,
		    enum kb_img_err *why);

/*
 * XXH64 of len < 32 bytes, written from the xxHash specification.  Inlined
 * with a constant len it is straight-line code (about 25 instructions for
 * 16 bytes) where the generic XXH64 has a call, a length dispatch and
 * loops.  Must equal kb_xxh64() (test_hash_vectors checks every length).
 */
#define KB_XXH_P1	0x9e3779b185ebca87ULL
#define KB_XXH_P2	0xc2b2ae3d27d4eb4fULL
#define KB_XXH_P3	0x165667b19e3779f9ULL
#define KB_XXH_P4	0x85ebca77c2b2ae63ULL
#define KB_XXH_P5	0x27d4eb2f165667c5ULL

static KB_ALWAYS_INLINE u64 kb_rotl64(u64 x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static KB_ALWAYS_INLINE u64 kb_xxh64_short(const u8 *p, u32 len, u64 seed)
{
	u64 h = seed + KB_XXH_P5 + len;

	for (; len >= 8; len -= 8, p += 8) {
		h ^= kb_rotl64(kb_get_le64(p) * KB_XXH_P2, 31) * KB_XXH_P1;
		h = kb_rotl64(h, 27) * KB_XXH_P1 + KB_XXH_P4;
	}
	if (len >= 4) {
		h ^= (u64)kb_get_le32(p) * KB_XXH_P1;
		h = kb_rotl64(h, 23) * KB_XXH_P2 + KB_XXH_P3;
		len -= 4;
		p += 4;
	}
	for (; len; len--, p++) {
		h ^= *p * KB_XXH_P5;
		h = kb_rotl64(h, 11) * KB_XXH_P1;
	}
	h ^= h >> 33;
	h *= KB_XXH_P2;
	h ^= h >> 29;
	h *= KB_XXH_P3;
	return h ^ (h >> 32);
}

/* XXH64 of keys that are not 4 or 16 bytes long (kb_filter.c) */
u64 kb_xxh64_other(const void *key, u32 len, u64 seed);

/*
 * hash of a key for blocked and counting filters, per algorithm.  The two
 * address lengths (IPv4 and IPv6, also UUIDs and the benchmark's keys) are
 * hashed inline: a packet's test then makes no call to hash; other lengths
 * take one (the tests predict perfectly in a batch of equal-length keys).
 */
static KB_ALWAYS_INLINE u64 kb_hash_xxh_i(const struct kb_filter *f,
					  const void *key, u32 len)
{
	if (likely(len == 16))
		return kb_xxh64_short(key, 16, f->p.seed[0]);
	if (likely(len == 4))
		return kb_xxh64_short(key, 4, f->p.seed[0]);
	return kb_xxh64_other(key, len, f->p.seed[0]);
}

static KB_ALWAYS_INLINE u64 kb_hash_sip_i(const struct kb_filter *f,
					  const void *key, u32 len)
{
	return kb_siphash(key, len, f->p.seed[0], f->p.seed[1]);
}

/* kb_hash_sip_i() out of line (kb_filter.c) */
u64 kb_hash_sip(const struct kb_filter *f, const void *key, u32 len);

/*
 * hash of a key for blocked and counting filters.  siphash is called out of
 * line: its key on the stack would give every function that inlines this a
 * stack protector's canary, and a single test is a call to siphash anyway.
 */
static KB_ALWAYS_INLINE u64 kb_hash_seeded(const struct kb_filter *f,
					   const void *key, u32 len)
{
	if (likely(f->p.hash == KB_HASH_XXH64))
		return kb_hash_xxh_i(f, key, len);
	return kb_hash_sip(f, key, len);
}

/* block index by multiply-shift range reduction (nblocks < 2^32) */
static KB_ALWAYS_INLINE u64 kb_block_index(const struct kb_filter *f, u64 h)
{
	return ((h >> 32) * f->nblocks) >> 32;
}

/*
 * The blocked and counting kinds: h's 64-byte block (8 u64 words), and the
 * same prefetched for reading or for writing (the batch templates' loc()).
 */
static KB_ALWAYS_INLINE u64 *kb_block(const struct kb_filter *f, u64 h)
{
	return (u64 *)f->payload + kb_block_index(f, h) * 8;
}

static KB_ALWAYS_INLINE u64 *kb_block_pf(const struct kb_filter *f, u64 h)
{
	u64 *b = kb_block(f, h);

	kb_prefetch(b);
	return b;
}

static KB_ALWAYS_INLINE u64 *kb_block_pfw(const struct kb_filter *f, u64 h)
{
	u64 *b = kb_block(f, h);

	kb_prefetchw(b);
	return b;
}

/* payload words between two kb_cond_resched() calls of a scan (1 MiB) */
#define KB_RESCHED_WORDS	(1U << 17)

/*
 * A block's count went from before to after: move the fill counters.  The
 * 128-bit FPR sum gets term[after] and loses term[before] (wrapping).
 */
static KB_ALWAYS_INLINE void kb_fill_move(struct kb_fill *fl, u32 before,
					  u32 after)
{
	u64 a = fl->term[after], b = fl->term[before];
	u64 lo = fl->fpr_lo + a, hi = fl->fpr_hi + (lo < a);

	hi -= lo < b;
	fl->fpr_lo = lo - b;
	fl->fpr_hi = hi;
	fl->bits_set += (u64)after - before;
}

/*
 * bits_set and est_fpr_q62 of a kind of 64-byte blocks: usedf(word) counts
 * a word's set bits or nonzero counters, 2^shift = 2^62 / (bits or
 * counters per block).  The estimated FPR is the mean over blocks of
 * (used / per block)^k.  pfx##_fill_scan() adds the same up in a fill
 * whose terms are set (kb_fill_init()); pfx##_block_used() is a block's
 * count for the writers.
 */
#define KB_DEFINE_BLOCK_STATS(pfx, usedf, shift)			\
static KB_ALWAYS_INLINE u32 pfx##_block_used(const u64 *b)		\
{									\
	u32 j, used = 0;						\
									\
	for (j = 0; j < 8; j++)						\
		used += usedf(KB_READ_ONCE(b[j]));			\
	return used;							\
}									\
static u64 pfx##_bits_set(const struct kb_filter *f)			\
{									\
	const u64 *w = f->payload;					\
	u64 i, n = f->bytes / 8, s = 0;					\
									\
	for (i = 0; i < n; i++) {					\
		s += usedf(KB_READ_ONCE(w[i]));				\
		if (!((i + 1) % KB_RESCHED_WORDS))			\
			kb_cond_resched();				\
	}								\
	return s;							\
}									\
static u64 pfx##_est_fpr_q62(const struct kb_filter *f)		\
{									\
	const u64 *w = f->payload;					\
	u64 b, hi = 0, lo = 0;						\
									\
	for (b = 0; b < f->nblocks; b++) {				\
		u32 used = pfx##_block_used(w + b * 8);			\
		u64 t;							\
									\
		if (!((b + 1) % (KB_RESCHED_WORDS / 8)))		\
			kb_cond_resched();				\
		if (!used)						\
			continue;					\
		t = kb_q62_pow((u64)used << (shift), f->p.k);		\
		lo += t;						\
		hi += lo < t;						\
	}								\
	return kb_div128(hi, lo, f->nblocks);				\
}									\
static void pfx##_fill_scan(struct kb_filter *f, struct kb_fill *fl)	\
{									\
	const u64 *w = f->payload;					\
	u64 b;								\
									\
	for (b = 0; b < f->nblocks; b++) {				\
		kb_fill_move(fl, 0, pfx##_block_used(w + b * 8));	\
		if (!((b + 1) % (KB_RESCHED_WORDS / 8)))		\
			kb_cond_resched();				\
	}								\
}

/*
 * Batch templates.  The kind passes its static (inlinable) functions; with
 * KB_ALWAYS_INLINE the compiler specializes each loop for the kind and the
 * hash algorithm, so there is no indirect call and no hash-algorithm branch
 * per key.  Keys are processed in groups of KB_BATCH_DEPTH: the hashes of
 * the next group are computed into a local array, located (loc(): the
 * block's address, computed once per key) and their memory prefetched
 * together with the key bytes of the group after it (hashing, not probing,
 * dominates a batch); then the current group (prefetched one group
 * earlier) is probed.  Probes happen in key order, so the results are
 * those of one-at-a-time operations.  KB_BATCH_DEPTH <= 32 (one u32 of
 * result bits per group) and divides 64.
 */
typedef u64 (*kb_hash_fn)(const struct kb_filter *f, const void *key, u32 len);
typedef u64 *(*kb_loc_fn)(const struct kb_filter *f, u64 h);
typedef bool (*kb_test_fn)(const struct kb_filter *f, u64 h, u64 *loc);
typedef void (*kb_add_fn)(struct kb_filter *f, u64 h, u64 *loc);
typedef int (*kb_del_fn)(struct kb_filter *f, u64 h, u64 *loc);

/* a key in flight: its hash and its location (loc()) */
struct kb_slot {
	u64 h;
	u64 *loc;
};

enum kb_batch_op {
	KB_BATCH_ADD,
	KB_BATCH_TEST,
	KB_BATCH_TEST_ADD,
	KB_BATCH_DEL,
};

static KB_ALWAYS_INLINE void
kb_batch_hash_group(const struct kb_filter *f, const struct kb_key *keys,
		    u32 cnt, u32 rem, struct kb_slot *s, kb_hash_fn hash,
		    kb_loc_fn loc)
{
	u32 i;

	for (i = 0; i < cnt; i++) {
		u64 h = hash(f, keys[i].data, keys[i].len);
		/* the bytes of the key one group later (or this key's) */
		u32 j = i + KB_BATCH_DEPTH < rem ? i + KB_BATCH_DEPTH : i;

		kb_prefetch(keys[j].data);
		s[i].h = h;
		s[i].loc = loc(f, h);
	}
}

/* one group's probes; returns the result bits (bit i: key i) */
static KB_ALWAYS_INLINE u32
kb_batch_probe_group(struct kb_filter *f, const struct kb_slot *s, u32 cnt,
		     enum kb_batch_op op, kb_test_fn test, kb_add_fn add,
		     kb_del_fn del)
{
	u32 i, bits = 0;
	bool r;

	for (i = 0; i < cnt; i++) {
		switch (op) {
		case KB_BATCH_ADD:
			add(f, s[i].h, s[i].loc);
			r = false;
			break;
		case KB_BATCH_TEST:
			r = test(f, s[i].h, s[i].loc);
			break;
		case KB_BATCH_TEST_ADD:
			r = !test(f, s[i].h, s[i].loc);
			/* counting (del != NULL) counts every add */
			if (r || del)
				add(f, s[i].h, s[i].loc);
			break;
		default:
			r = del(f, s[i].h, s[i].loc) == 0;
			break;
		}
		bits |= (u32)r << i;
	}
	return bits;
}

static KB_ALWAYS_INLINE u32
kb_batch_run_i(struct kb_filter *f, const struct kb_key *keys, u32 n,
	       u64 *bitmap, enum kb_batch_op op, kb_hash_fn hash,
	       kb_loc_fn loc, kb_test_fn test, kb_add_fn add, kb_del_fn del)
{
	struct kb_slot s[2][KB_BATCH_DEPTH];
	u64 word = 0;
	u32 base, cnt, bits, cur = 0, hits = 0;

	cnt = n < KB_BATCH_DEPTH ? n : KB_BATCH_DEPTH;
	kb_batch_hash_group(f, keys, cnt, n, s[0], hash, loc);
	for (base = 0; base < n; base += KB_BATCH_DEPTH, cur ^= 1) {
		u32 next = base + KB_BATCH_DEPTH;

		cnt = n - base < KB_BATCH_DEPTH ? n - base : KB_BATCH_DEPTH;
		if (next < n)
			kb_batch_hash_group(f, keys + next,
					    n - next < KB_BATCH_DEPTH ?
					    n - next : KB_BATCH_DEPTH,
					    n - next,
					    s[cur ^ 1], hash, loc);
		bits = kb_batch_probe_group(f, s[cur], cnt, op, test, add, del);
		if (op == KB_BATCH_ADD)
			continue;
		hits += kb_popcount64((u64)bits);
		word |= (u64)bits << (base & 63);
		/* KB_BATCH_DEPTH divides 64: groups never straddle words */
		if (bitmap && (((base + cnt) & 63) == 0 || base + cnt == n))
			bitmap[base >> 6] = word;
		if (((base + cnt) & 63) == 0)
			word = 0;
	}
	return hits;
}

/*
 * A writer batch on a filter with a fill tracker runs a second copy of the
 * loop with the kind's fill-updating add and del (addc, delc), so that the
 * loop without one (userspace, the benchmark) is unchanged.
 */
static KB_ALWAYS_INLINE u32
kb_batch_run(struct kb_filter *f, const struct kb_key *keys, u32 n,
	     u64 *bitmap, enum kb_batch_op op, kb_hash_fn hash, kb_loc_fn loc,
	     kb_test_fn test, kb_add_fn add, kb_del_fn del, kb_add_fn addc,
	     kb_del_fn delc)
{
	if (op != KB_BATCH_TEST && unlikely(f->fill))
		return kb_batch_run_i(f, keys, n, bitmap, op, hash, loc, test,
				      addc, delc);
	return kb_batch_run_i(f, keys, n, bitmap, op, hash, loc, test, add,
			      del);
}

/*
 * define the three batched ops of a kind from its inline functions, as
 * kb_core.h declares them (pfx: the kind's prefix, as kb_blocked)
 */
#define KB_DEFINE_BATCH_OPS(pfx, hashf, locf, locwf, testf, addf, delf,	\
			    addcf, delcf)				\
void pfx##_add_many(struct kb_filter *f, const struct kb_key *keys, \
			   u32 n)					\
{									\
	kb_batch_run(f, keys, n, NULL, KB_BATCH_ADD, hashf, locwf, testf,	\
		     addf, delf, addcf, delcf);				\
}									\
u32 pfx##_test_many(const struct kb_filter *f,			\
			   const struct kb_key *keys, u32 n, u64 *bitmap) \
{									\
	return kb_batch_run((struct kb_filter *)f, keys, n, bitmap,	\
			    KB_BATCH_TEST, hashf, locf, testf, addf, delf, \
			    addcf, delcf);				\
}									\
u32 pfx##_test_and_add_many(struct kb_filter *f,		\
				   const struct kb_key *keys, u32 n,	\
				   u64 *bitmap)				\
{									\
	return kb_batch_run(f, keys, n, bitmap, KB_BATCH_TEST_ADD, hashf, \
			    locwf, testf, addf, delf, addcf, delcf);	\
}

/*
 * The same for the kinds hashed with kb_hash_seeded() (blocked, counting):
 * one loop per hash algorithm, chosen once per batch.
 */
#define KB_SEEDED_BATCH(f, keys, n, bitmap, op, loc, testf, addf, delf,	\
			addcf, delcf)					\
	((f)->p.hash == KB_HASH_XXH64 ?					\
	 kb_batch_run(f, keys, n, bitmap, op, kb_hash_xxh_i, loc, testf,	\
		      addf, delf, addcf, delcf) :			\
	 kb_batch_run(f, keys, n, bitmap, op, kb_hash_sip_i, loc, testf,	\
		      addf, delf, addcf, delcf))

#define KB_DEFINE_SEEDED_BATCH_OPS(pfx, locf, locwf, testf, addf, delf,	\
				   addcf, delcf)			\
void pfx##_add_many(struct kb_filter *f, const struct kb_key *keys, \
			   u32 n)					\
{									\
	KB_SEEDED_BATCH(f, keys, n, NULL, KB_BATCH_ADD, locwf, testf,	\
			addf, delf, addcf, delcf);			\
}									\
u32 pfx##_test_many(const struct kb_filter *f,			\
			   const struct kb_key *keys, u32 n, u64 *bitmap) \
{									\
	struct kb_filter *wf = (struct kb_filter *)f;			\
									\
	return KB_SEEDED_BATCH(wf, keys, n, bitmap, KB_BATCH_TEST, locf,	\
			       testf, addf, delf, addcf, delcf);	\
}									\
u32 pfx##_test_and_add_many(struct kb_filter *f,		\
				   const struct kb_key *keys, u32 n,	\
				   u64 *bitmap)				\
{									\
	return KB_SEEDED_BATCH(f, keys, n, bitmap, KB_BATCH_TEST_ADD,	\
			       locwf, testf, addf, delf, addcf, delcf);	\
}

#endif /* _KB_INTERNAL_H */
