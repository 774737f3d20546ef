// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: the gozero kind, byte-identical to go-zero's Redis bitmap
 * Bloom filter (core/bloom), written from its description:
 *   offset i (i = 0..13) of key d = h1(d || byte(i)) % bits, h1 the first
 *   64-bit half of MurmurHash3_x64_128 (seed 0, blocks little-endian);
 *   the Redis value holds offset o at byte o / 8, mask 0x80 >> (o % 8).
 * bits is any 1..KB_GOZERO_BITS_MAX and go-zero does not store it: the
 * payload is exactly the Redis value, ceil(bits / 8) bytes.
 *
 * The 14 keys d || byte(i) share every full 16-byte block of d, so the
 * murmur state after them is computed once per key; only the tail (which
 * holds byte i) and the finalization differ per probe.
 *
 * 14 probes do not follow from one 64-bit value, so the kind has no
 * single-hash ops (hash, test, add): kb_filter.c runs single keys as
 * batches of one, and batches hash a group of keys into their offsets,
 * prefetching their bytes, before probing the group.
 */
#include "kb_internal.h"

#define GZ_C1		0x87c37b91114253d5ULL
#define GZ_C2		0x4cf5ad432745937fULL
/* keys per group of a batch: the offsets of a group live on the stack */
#define GZ_DEPTH	8

static KB_ALWAYS_INLINE u64 gz_fmix(u64 k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	return k ^ (k >> 33);
}

static KB_ALWAYS_INLINE u64 gz_mix_k1(u64 k1)
{
	return kb_rotl64(k1 * GZ_C1, 31) * GZ_C2;
}

static KB_ALWAYS_INLINE u64 gz_mix_k2(u64 k2)
{
	return kb_rotl64(k2 * GZ_C2, 33) * GZ_C1;
}

/* one full 16-byte block (k1, k2 its little-endian halves) */
static KB_ALWAYS_INLINE void gz_block(u64 *h1, u64 *h2, u64 k1, u64 k2)
{
	*h1 ^= gz_mix_k1(k1);
	*h1 = (kb_rotl64(*h1, 27) + *h2) * 5 + 0x52dce729;
	*h2 ^= gz_mix_k2(k2);
	*h2 = (kb_rotl64(*h2, 31) + *h1) * 5 + 0x38495ab5;
}

/* the first half of the result from the state after the tail */
static KB_ALWAYS_INLINE u64 gz_final_h1(u64 h1, u64 h2, u64 len)
{
	h1 ^= len;
	h2 ^= len;
	h1 += h2;
	h2 += h1;
	return gz_fmix(h1) + gz_fmix(h2);
}

/* the state after the full blocks of p[0..len), and the rest in t (zeroed) */
static KB_ALWAYS_INLINE void gz_body(const u8 *p, u64 len, u64 *h1, u64 *h2,
				     u8 *t)
{
	u64 a = 0, b = 0;

	for (; len >= 16; len -= 16, p += 16)
		gz_block(&a, &b, kb_get_le64(p), kb_get_le64(p + 8));
	memset(t, 0, 16);
	memcpy(t, p, len);
	*h1 = a;
	*h2 = b;
}

u64 kb_murmur3_h1(const void *data, u64 len)
{
	u64 h1, h2, r = len % 16;
	u8 t[16];

	gz_body(data, len, &h1, &h2, t);
	if (r > 8)
		h2 ^= gz_mix_k2(kb_get_le64(t + 8));
	if (r)
		h1 ^= gz_mix_k1(kb_get_le64(t));
	return gz_final_h1(h1, h2, len);
}

/*
 * h[i] = h1(key || byte(i)), i < KB_GOZERO_K, in one pass over the key.
 * With r = len % 16 bytes after the full blocks, key || byte(i) ends in a
 * tail of r + 1 bytes: byte i lands in k1 (r < 8), in k2 (r 8..14), or
 * completes a last full block (r = 15, then the tail is empty).
 */
static KB_ALWAYS_INLINE void gz_hashes(const u8 *key, u32 len, u64 *h)
{
	u64 h1, h2, k1, k2, tl = (u64)len + 1;
	u32 r = len % 16, i;
	u8 t[16];

	gz_body(key, len, &h1, &h2, t);
	k1 = kb_get_le64(t);
	k2 = kb_get_le64(t + 8);
	if (r == 15) {
		for (i = 0; i < KB_GOZERO_K; i++) {
			u64 a = h1, b = h2;

			gz_block(&a, &b, k1, k2 | (u64)i << 56);
			h[i] = gz_final_h1(a, b, tl);
		}
	} else if (r >= 8) {
		h1 ^= gz_mix_k1(k1);
		for (i = 0; i < KB_GOZERO_K; i++)
			h[i] = gz_final_h1(h1, h2 ^ gz_mix_k2(k2 | (u64)i <<
							       (8 * (r - 8))),
					   tl);
	} else {
		for (i = 0; i < KB_GOZERO_K; i++)
			h[i] = gz_final_h1(h1 ^ gz_mix_k1(k1 | (u64)i << (8 * r)),
					   h2, tl);
	}
}

void kb_gozero_offsets(const void *key, u32 len, u64 bits, u64 *off)
{
	u32 i;

	gz_hashes(key, len, off);
	for (i = 0; i < KB_GOZERO_K; i++)
		off[i] = kb_mod64(off[i], bits);
}

/* a key's offsets (< bits <= 2^32), their bytes prefetched */
static KB_ALWAYS_INLINE void gz_locate(const struct kb_filter *f,
				       const struct kb_key *key, u32 *off,
				       bool write)
{
	const u8 *a = f->payload;
	u64 h[KB_GOZERO_K];
	u32 i;

	gz_hashes(key->data, key->len, h);
	for (i = 0; i < KB_GOZERO_K; i++) {
		off[i] = (u32)kb_mod64(h[i], f->p.m);
		if (write)
			kb_prefetchw(a + (off[i] >> 3));
		else
			kb_prefetch(a + (off[i] >> 3));
	}
}

static KB_ALWAYS_INLINE bool gz_test_off(const struct kb_filter *f,
					 const u32 *off)
{
	const u8 *a = f->payload;
	u32 i;

	for (i = 0; i < KB_GOZERO_K; i++)
		if (!(KB_READ_ONCE(a[off[i] >> 3]) & (0x80U >> (off[i] & 7))))
			return false;
	return true;
}

/* set the key's bits; returns how many were clear (probes may repeat) */
static KB_ALWAYS_INLINE u32 gz_add_off(struct kb_filter *f, const u32 *off)
{
	u8 *a = f->payload;
	u32 i, n = 0;

	for (i = 0; i < KB_GOZERO_K; i++) {
		u8 v = KB_READ_ONCE(a[off[i] >> 3]);
		u8 bit = 0x80U >> (off[i] & 7);

		if (!(v & bit)) {
			KB_WRITE_ONCE(a[off[i] >> 3], v | bit);
			n++;
		}
	}
	return n;
}

/*
 * The batch loop (results as in kb_batch_run_i(): key order, bitmap words
 * fully written): hash and prefetch a group of keys, then probe it.
 */
static KB_ALWAYS_INLINE u32 gz_run(struct kb_filter *f,
				   const struct kb_key *keys, u32 n,
				   u64 *bitmap, enum kb_batch_op op)
{
	u32 off[GZ_DEPTH][KB_GOZERO_K];
	u32 base, cnt, i, bits, added, hits = 0;
	u64 word = 0;
	bool r;

	for (base = 0; base < n; base += GZ_DEPTH) {
		cnt = n - base < GZ_DEPTH ? n - base : GZ_DEPTH;
		for (i = 0; i < cnt; i++) {
			if (base + i + GZ_DEPTH < n)
				kb_prefetch(keys[base + i + GZ_DEPTH].data);
			gz_locate(f, &keys[base + i], off[i],
				  op != KB_BATCH_TEST);
		}
		bits = 0;
		added = 0;
		for (i = 0; i < cnt; i++) {
			if (op == KB_BATCH_ADD) {
				added += gz_add_off(f, off[i]);
				continue;
			}
			r = gz_test_off(f, off[i]);
			if (op == KB_BATCH_TEST_ADD) {
				r = !r;
				if (r)
					added += gz_add_off(f, off[i]);
			}
			bits |= (u32)r << i;
		}
		/* tests run unlocked beside writers: they touch no counter */
		if (op != KB_BATCH_TEST && f->fill)
			f->fill->bits_set += added;
		if (op == KB_BATCH_ADD)
			continue;
		hits += kb_popcount64((u64)bits);
		word |= (u64)bits << (base & 63);
		/* GZ_DEPTH divides 64: groups never straddle words */
		if (bitmap && (((base + cnt) & 63) == 0 || base + cnt == n))
			bitmap[base >> 6] = word;
		if (((base + cnt) & 63) == 0)
			word = 0;
	}
	return hits;
}

/* the functions of the kind dispatch (kb_core.h) */
void kb_gozero_add_many(struct kb_filter *f, const struct kb_key *keys, u32 n)
{
	gz_run(f, keys, n, NULL, KB_BATCH_ADD);
}

u32 kb_gozero_test_many(const struct kb_filter *f, const struct kb_key *keys,
			u32 n, u64 *bitmap)
{
	return gz_run((struct kb_filter *)f, keys, n, bitmap, KB_BATCH_TEST);
}

u32 kb_gozero_test_and_add_many(struct kb_filter *f,
				const struct kb_key *keys, u32 n, u64 *bitmap)
{
	return gz_run(f, keys, n, bitmap, KB_BATCH_TEST_ADD);
}

bool kb_gozero_test(const struct kb_filter *f, const void *key, u32 len)
{
	u32 off[KB_GOZERO_K];
	struct kb_key k = { key, len };

	gz_locate(f, &k, off, false);
	return gz_test_off(f, off);
}

/* no one-hash scheme: see kb_core.h */
u64 kb_gozero_hash(const struct kb_filter *f, const void *key, u32 len)
{
	(void)f;
	(void)key;
	(void)len;
	return 0;
}

bool kb_gozero_test_hash(const struct kb_filter *f, u64 h)
{
	(void)f;
	(void)h;
	return true;
}

void kb_gozero_add_hash(struct kb_filter *f, u64 h)
{
	(void)f;
	(void)h;
}

static u32 gz_probes(const struct kb_filter *f, const void *key, u32 len,
		     u64 *pos)
{
	kb_gozero_offsets(key, len, f->p.m, pos);
	return KB_GOZERO_K;
}

static u64 gz_bits_set(const struct kb_filter *f)
{
	return kb_bytes_popcount(f->payload, f->bytes);
}

static void gz_fill_scan(struct kb_filter *f, struct kb_fill *fl)
{
	fl->bits_set = gz_bits_set(f);
}

/* (X / m)^k: every probe is uniform over the whole bitmap */
static u64 gz_est_fpr_q62(const struct kb_filter *f)
{
	u64 x = gz_bits_set(f);

	if (!x)
		return 0;
	return kb_q62_pow(kb_muldiv(x, KB_Q62_ONE, f->p.m), f->p.k);
}

/* the Redis value: any number of bits */
static u64 gz_payload_bytes(u64 m)
{
	return (m + 7) / 8;
}

const struct kb_kind_ops kb_gozero_ops = {
	.name = "gozero",
	.kind = KB_KIND_GOZERO,
	.granule = 1,
	.k_min = KB_GOZERO_K,
	.k_max = KB_GOZERO_K,
	.m_max = KB_GOZERO_BITS_MAX,
	.default_hash = KB_HASH_MURMUR3,
	.hashes = 1U << KB_HASH_MURMUR3,
	.bytewise = true,
	.hashless = true,
	.payload_bytes = gz_payload_bytes,
	.bits_set = gz_bits_set,
	.est_fpr_q62 = gz_est_fpr_q62,
	.fill_scan = gz_fill_scan,
	.probes = gz_probes,
};

int kb_gozero_import(struct kb_params *p, const void *raw, u64 len, u64 bits,
		     u64 max_bytes, enum kb_img_err *why)
{
	enum kb_img_err w = KB_IMG_OK;
	int ret = 0;

	if (!bits || bits > KB_GOZERO_BITS_MAX) {
		w = KB_IMG_BAD_M;
		ret = -EINVAL;
	} else if (max_bytes && (bits + 7) / 8 > max_bytes) {
		w = KB_IMG_TOO_BIG;
		ret = -E2BIG;
	} else if (len > (bits + 7) / 8) {
		w = KB_IMG_GOZERO_LONG;
		ret = -EINVAL;
	} else if (len == (bits + 7) / 8 && bits % 8 &&
		   (((const u8 *)raw)[len - 1] & (0xffU >> (bits % 8)))) {
		w = KB_IMG_GOZERO_PAD;
		ret = -EINVAL;
	} else {
		kb_params_init(p, KB_KIND_GOZERO);
		p->m = bits;
		p->k = KB_GOZERO_K;
	}
	if (why)
		*why = w;
	return ret;
}
