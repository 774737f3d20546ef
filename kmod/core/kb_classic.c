// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: the classic kind, byte-identical to LevelDB's
 * "leveldb.BuiltinBloomFilter2" (util/bloom.cc), written from its
 * algorithm:
 *   h = Hash(key, 0xbc9f1d34)   (util/hash.cc, a 32-bit murmur-like hash)
 *   delta = rotr32(h, 17)
 *   for k probes: bitpos = h % bits; set/test bit (bitpos % 8) of byte
 *   (bitpos / 8); h += delta
 * The payload is the LevelDB filter: bits / 8 bytes and a trailing k byte.
 */
#include "kb_internal.h"

static KB_ALWAYS_INLINE u32 kb_load_le32(const u8 *p)
{
	return (u32)p[0] | ((u32)p[1] << 8) | ((u32)p[2] << 16) |
	       ((u32)p[3] << 24);
}

u32 kb_leveldb_hash(const void *data, u64 len, u32 seed)
{
	const u32 m = 0xc6a4a793U;
	const u8 *p = data;
	u32 h = seed ^ ((u32)len * m);

	while (len >= 4) {
		h += kb_load_le32(p);
		h *= m;
		h ^= h >> 16;
		p += 4;
		len -= 4;
	}
	switch (len) {
	case 3:
		h += (u32)p[2] << 16;
		fallthrough;
	case 2:
		h += (u32)p[1] << 8;
		fallthrough;
	case 1:
		h += p[0];
		h *= m;
		h ^= h >> 24;
		break;
	}
	return h;
}

/* bitpos = h % bits, LevelDB computes it with a size_t 'bits' */
static KB_ALWAYS_INLINE u32 cls_pos(u32 h, u32 bits32)
{
	/* bits32 == 0: bits > U32_MAX > h, so h % bits == h */
	return bits32 ? h % bits32 : h;
}

bool kb_leveldb_key_may_match(const void *raw, u64 len, const void *key,
			      u64 keylen)
{
	const u8 *a = raw;
	u64 bits;
	u32 h, delta, k, j, bits32;

	if (len < 2)
		return false;
	bits = (len - 1) * 8;
	k = a[len - 1];
	if (k > KB_CLASSIC_K_MAX)
		return true;
	bits32 = bits <= U32_MAX ? (u32)bits : 0;
	h = kb_leveldb_hash(key, keylen, KB_CLASSIC_SEED);
	delta = (h >> 17) | (h << 15);
	for (j = 0; j < k; j++) {
		u32 pos = cls_pos(h, bits32);

		if (!(KB_READ_ONCE(a[pos / 8]) & (1U << (pos % 8))))
			return false;
		h += delta;
	}
	return true;
}

static KB_ALWAYS_INLINE u64 cls_hash_i(const struct kb_filter *f KB_UNUSED,
				       const void *key, u32 len)
{
	return kb_leveldb_hash(key, len, KB_CLASSIC_SEED);
}

/* prefetch the k bytes' lines; classic has no locator (0) */
static KB_ALWAYS_INLINE u64 *cls_prefetch_i(const struct kb_filter *f, u64 hv)
{
	const u8 *a = f->payload;
	u32 h = (u32)hv, delta = (h >> 17) | (h << 15), j;

	for (j = 0; j < f->p.k; j++) {
		kb_prefetch(a + cls_pos(h, f->cbits) / 8);
		h += delta;
	}
	return NULL;
}

static KB_ALWAYS_INLINE bool cls_test_i(const struct kb_filter *f, u64 hv,
				       u64 *loc KB_UNUSED)
{
	const u8 *a = f->payload;
	u32 h = (u32)hv, delta = (h >> 17) | (h << 15), j;

	for (j = 0; j < f->p.k; j++) {
		u32 pos = cls_pos(h, f->cbits);

		if (!(KB_READ_ONCE(a[pos / 8]) & (1U << (pos % 8))))
			return false;
		h += delta;
	}
	return true;
}

/* add; returns the number of bits it set (for the fill tracker) */
static KB_ALWAYS_INLINE u32 cls_add_n(struct kb_filter *f, u64 hv)
{
	u8 *a = f->payload;
	u32 h = (u32)hv, delta = (h >> 17) | (h << 15), j, n = 0;

	for (j = 0; j < f->p.k; j++) {
		u32 pos = cls_pos(h, f->cbits);
		u8 v = KB_READ_ONCE(a[pos / 8]), bit = 1U << (pos % 8);

		if (!(v & bit)) {
			KB_WRITE_ONCE(a[pos / 8], v | bit);
			n++;
		}
		h += delta;
	}
	return n;
}

static KB_ALWAYS_INLINE void cls_add_i(struct kb_filter *f, u64 hv,
				      u64 *loc KB_UNUSED)
{
	cls_add_n(f, hv);
}

/* probes of one key can hit one bit twice: count what each one sets */
static KB_ALWAYS_INLINE void cls_add_fill_i(struct kb_filter *f, u64 hv,
					    u64 *loc KB_UNUSED)
{
	f->fill->bits_set += cls_add_n(f, hv);
}

/* the functions of the kind dispatch (kb_core.h) */
u64 kb_classic_hash(const struct kb_filter *f, const void *key, u32 len)
{
	return cls_hash_i(f, key, len);
}

bool kb_classic_test_hash(const struct kb_filter *f, u64 h)
{
	return cls_test_i(f, h, NULL);
}

bool kb_classic_test(const struct kb_filter *f, const void *key, u32 len)
{
	return cls_test_i(f, cls_hash_i(f, key, len), NULL);
}

void kb_classic_add_hash(struct kb_filter *f, u64 h)
{
	if (unlikely(f->fill))
		cls_add_fill_i(f, h, NULL);
	else
		cls_add_i(f, h, NULL);
}

KB_DEFINE_BATCH_OPS(kb_classic, cls_hash_i, cls_prefetch_i, cls_prefetch_i,
		    cls_test_i, cls_add_i, NULL, cls_add_fill_i, NULL)

/* the bytes before the trailing k byte */
static u64 cls_bits_set(const struct kb_filter *f)
{
	return kb_bytes_popcount(f->payload, f->bytes - 1);
}

static void cls_fill_scan(struct kb_filter *f, struct kb_fill *fl)
{
	fl->bits_set = cls_bits_set(f);
}

/* (X / m)^k; every probe is uniform over the whole bitset */
static u64 cls_est_fpr_q62(const struct kb_filter *f)
{
	u64 x = cls_bits_set(f);

	if (!x)
		return 0;
	return kb_q62_pow(kb_muldiv(x, KB_Q62_ONE, f->p.m), f->p.k);
}

static u32 cls_probes(const struct kb_filter *f, const void *key, u32 len,
		      u64 *pos)
{
	u32 h = kb_leveldb_hash(key, len, KB_CLASSIC_SEED);
	u32 delta = (h >> 17) | (h << 15), j;

	for (j = 0; j < f->p.k; j++) {
		pos[j] = cls_pos(h, f->cbits);
		h += delta;
	}
	return f->p.k;
}

/* LevelDB's bytes, then the k byte */
static u64 cls_payload_bytes(u64 m)
{
	return m / 8 + 1;
}

const struct kb_kind_ops kb_classic_ops = {
	.name = "classic",
	.kind = KB_KIND_CLASSIC,
	.granule = 8,
	.k_min = 1,
	.k_max = KB_CLASSIC_K_MAX,
	.m_max = KB_M_MAX,
	.default_hash = KB_HASH_LEVELDB,
	.hashes = 1U << KB_HASH_LEVELDB,
	.bytewise = true,
	.payload_bytes = cls_payload_bytes,
	.del = NULL,
	.del_many = NULL,
	.bits_set = cls_bits_set,
	.est_fpr_q62 = cls_est_fpr_q62,
	.del_fill = NULL,
	.fill_scan = cls_fill_scan,
	.probes = cls_probes,
};

int kb_leveldb_import(struct kb_params *p, const void *raw, u64 len,
		      u64 max_bytes, enum kb_img_err *why)
{
	const u8 *a = raw;
	enum kb_img_err w = KB_IMG_OK;
	int ret = 0;
	u32 k;

	if (len < 2) {
		w = KB_IMG_BAD_M;
		ret = -EINVAL;
		goto out;
	}
	k = a[len - 1];
	if (k < 1 || k > KB_CLASSIC_K_MAX) {
		w = KB_IMG_BAD_K;
		ret = -EINVAL;
		goto out;
	}
	if ((len - 1) > KB_M_MAX / 8 || (max_bytes && len > max_bytes)) {
		w = KB_IMG_TOO_BIG;
		ret = -E2BIG;
		goto out;
	}
	kb_params_init(p, KB_KIND_CLASSIC);
	p->m = (len - 1) * 8;
	p->k = k;
out:
	if (why)
		*why = w;
	return ret;
}

s64 kb_leveldb_export(const struct kb_filter *f, void *buf, u64 buf_len)
{
	const u8 *a = f->payload;
	u8 *d = buf;
	u64 i;

	if (f->p.kind != KB_KIND_CLASSIC)
		return -EINVAL;
	if (buf_len < f->bytes)
		return -E2BIG;
	for (i = 0; i < f->bytes; i++) {
		d[i] = KB_READ_ONCE(a[i]);
		if (!((i + 1) % ((u64)KB_RESCHED_WORDS * 8)))
			kb_cond_resched();
	}
	return (s64)f->bytes;
}
