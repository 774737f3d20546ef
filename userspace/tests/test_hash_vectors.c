// SPDX-License-Identifier: GPL-2.0
/*
 * Hash vectors: the core's xxh64, SipHash-2-4, CRC32C and LevelDB hash
 * against published known answers, and against independent reference
 * implementations written here from the specifications.
 */
#include "kselftest_harness.h"
#include "kbtest.h"

/* ---- reference XXH64 (from the xxHash specification) ---- */
#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static u64 rotl64(u64 x, int r) { return (x << r) | (x >> (64 - r)); }
static u64 rd64(const u8 *p) { u64 v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | p[i]; return v; }
static u32 rd32(const u8 *p) { return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24; }
static u64 xround(u64 acc, u64 in) { acc += in * P2; acc = rotl64(acc, 31); return acc * P1; }
static u64 xmerge(u64 acc, u64 v) { acc ^= xround(0, v); return acc * P1 + P4; }

static u64 ref_xxh64(const u8 *p, size_t len, u64 seed)
{
	const u8 *end = p + len;
	u64 h;

	if (len >= 32) {
		u64 v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;

		while (end - p >= 32) {
			v1 = xround(v1, rd64(p));
			v2 = xround(v2, rd64(p + 8));
			v3 = xround(v3, rd64(p + 16));
			v4 = xround(v4, rd64(p + 24));
			p += 32;
		}
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = xmerge(h, v1);
		h = xmerge(h, v2);
		h = xmerge(h, v3);
		h = xmerge(h, v4);
	} else {
		h = seed + P5;
	}
	h += len;
	while (end - p >= 8) {
		h ^= xround(0, rd64(p));
		h = rotl64(h, 27) * P1 + P4;
		p += 8;
	}
	if (end - p >= 4) {
		h ^= (u64)rd32(p) * P1;
		h = rotl64(h, 23) * P2 + P3;
		p += 4;
	}
	while (p < end) {
		h ^= *p++ * P5;
		h = rotl64(h, 11) * P1;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

/* ---- reference SipHash-2-4 (from the SipHash paper) ---- */
#define SIPROUND do { \
	v0 += v1; v1 = rotl64(v1, 13); v1 ^= v0; v0 = rotl64(v0, 32); \
	v2 += v3; v3 = rotl64(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = rotl64(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = rotl64(v1, 17); v1 ^= v2; v2 = rotl64(v2, 32); \
} while (0)

static u64 ref_siphash(const u8 *p, size_t len, u64 k0, u64 k1)
{
	u64 v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
	u64 v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
	u64 b = (u64)len << 56, m;
	size_t i, full = len & ~(size_t)7;

	for (i = 0; i < full; i += 8) {
		m = rd64(p + i);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (i = 0; i < (len & 7); i++)
		b |= (u64)p[full + i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* ---- reference bitwise CRC32C ---- */
static u32 ref_crc32c(const u8 *p, size_t len)
{
	u32 c = ~0U;

	while (len--) {
		c ^= *p++;
		for (int j = 0; j < 8; j++)
			c = (c >> 1) ^ (0x82f63b78U & (0U - (c & 1)));
	}
	return ~c;
}

static void fill(u8 *b, size_t n, u64 *s)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (u8)kbut_splitmix(s);
}

TEST(xxh64_known_answers)
{
	/* published XXH64 values */
	ASSERT_EQ(0xEF46DB3751D8E999ULL, kb_xxh64("", 0, 0));
	ASSERT_EQ(0xD24EC4F1A98C6E5BULL, kb_xxh64("a", 1, 0));
	ASSERT_EQ(0x44BC2CF5AD770999ULL, kb_xxh64("abc", 3, 0));
	/* the reference agrees with them too */
	ASSERT_EQ(0xEF46DB3751D8E999ULL, ref_xxh64((const u8 *)"", 0, 0));
	ASSERT_EQ(0x44BC2CF5AD770999ULL, ref_xxh64((const u8 *)"abc", 3, 0));
}

TEST(xxh64_matches_reference)
{
	u8 buf[300] = { 0 };
	u64 s = 11;

	for (size_t len = 0; len <= 260; len++) {
		u64 seed = len & 1 ? kbut_splitmix(&s) : 0;

		fill(buf, len, &s);
		ASSERT_EQ(ref_xxh64(buf, len, seed), kb_xxh64(buf, len, seed))
			TH_LOG("len %zu", len);
	}
}

/*
 * Blocked/counting filters hash 16-byte keys with an inlined XXH64 and
 * 4/5/17-byte keys with unrolled ones: every length, at every alignment,
 * must give exactly XXH64 (images and kernel/userspace identity rely on it).
 */
TEST(xxh64_fast_paths_match_reference)
{
	u8 buf[96 + 8];
	u64 s = 13, pl[8];
	struct kb_params p;
	struct kb_filter f;

	kb_params_init(&p, KB_KIND_BLOCKED);
	ASSERT_EQ(0, kb_params_from_mk(&p, 512, 4, 0));
	for (int round = 0; round < 64; round++) {
		p.seed[0] = round ? kbut_splitmix(&s) : 0;
		ASSERT_EQ(0, kb_filter_init(&f, &p, pl, sizeof(pl)));
		for (u32 len = 0; len <= 40; len++) {
			u32 off = (round + len) & 7;

			fill(buf + off, len, &s);
			ASSERT_EQ(ref_xxh64(buf + off, len, p.seed[0]),
				  kb_filter_hash(&f, buf + off, len))
				TH_LOG("len %u off %u seed %llx", len, off,
				       (unsigned long long)p.seed[0]);
		}
	}
}

TEST(siphash_known_answers)
{
	u8 key[16], msg[64];
	u64 k0, k1;

	for (int i = 0; i < 16; i++)
		key[i] = (u8)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (u8)i;
	k0 = rd64(key);
	k1 = rd64(key + 8);
	/* SipHash paper, appendix A: 15-byte message 00..0e */
	ASSERT_EQ(0xa129ca6149be45e5ULL, kb_siphash(msg, 15, k0, k1));
	ASSERT_EQ(0xa129ca6149be45e5ULL, ref_siphash(msg, 15, k0, k1));
	/* first vector of the reference implementation: empty message */
	ASSERT_EQ(0x726fdb47dd0e0e31ULL, kb_siphash(msg, 0, k0, k1));
	ASSERT_EQ(0x726fdb47dd0e0e31ULL, ref_siphash(msg, 0, k0, k1));
}

TEST(siphash_matches_reference)
{
	u8 buf[200];
	u64 s = 12;

	for (size_t len = 0; len <= 150; len++) {
		u64 k0 = kbut_splitmix(&s), k1 = kbut_splitmix(&s);

		fill(buf, len, &s);
		ASSERT_EQ(ref_siphash(buf, len, k0, k1),
			  kb_siphash(buf, len, k0, k1)) TH_LOG("len %zu", len);
	}
}

TEST(crc32c_known_answer)
{
	u32 st = kb_image_crc_init();

	st = kb_image_crc_update(st, "123456789", 9);
	ASSERT_EQ(0xE3069283U, kb_image_crc_final(st));
	ASSERT_EQ(0xE3069283U, ref_crc32c((const u8 *)"123456789", 9));
	ASSERT_EQ(0xE3069283U, ~kb_crc32c_sw(~0U, "123456789", 9));
}

TEST(crc32c_hw_sw_reference_incremental)
{
	static u8 buf[5000];
	u64 s = 13;

	fill(buf, sizeof(buf), &s);
	for (int t = 0; t < 300; t++) {
		size_t off = kbut_splitmix(&s) % 64;
		size_t len = kbut_splitmix(&s) % (sizeof(buf) - 64);
		size_t cut = len ? kbut_splitmix(&s) % len : 0;
		u32 want = ref_crc32c(buf + off, len), st;

		ASSERT_EQ(want, ~kb_crc32c_sw(~0U, buf + off, len));
		if (kb_crc32c_hw_available())
			ASSERT_EQ(want, ~kb_crc32c_hw(~0U, buf + off, len));
		st = kb_image_crc_update(kb_image_crc_init(), buf + off, cut);
		st = kb_image_crc_update(st, buf + off + cut, len - cut);
		ASSERT_EQ(want, kb_image_crc_final(st));
	}
}

TEST(leveldb_hash_known_answers)
{
	/* LevelDB util/hash_test.cc, seed 0xbc9f1d34 */
	static const u8 d1[] = { 0x62 };
	static const u8 d2[] = { 0xc3, 0x97 };
	static const u8 d3[] = { 0xe2, 0x99, 0xa5 };
	static const u8 d4[] = { 0xe1, 0x80, 0xb9, 0x32 };

	ASSERT_EQ(0xbc9f1d34U, kb_leveldb_hash("", 0, 0xbc9f1d34));
	ASSERT_EQ(0xef1345c4U, kb_leveldb_hash(d1, 1, 0xbc9f1d34));
	ASSERT_EQ(0x5b663814U, kb_leveldb_hash(d2, 2, 0xbc9f1d34));
	ASSERT_EQ(0x323c078fU, kb_leveldb_hash(d3, 3, 0xbc9f1d34));
	ASSERT_EQ(0xed21633aU, kb_leveldb_hash(d4, 4, 0xbc9f1d34));
}

/* filters hash with the configured algorithm and seed */
TEST(filter_hash_uses_seed_and_algorithm)
{
	struct kb_params p;
	struct kb_filter f;
	void *pl;

	kb_params_init(&p, KB_KIND_BLOCKED);
	p.seed[0] = 77;
	ASSERT_EQ(0, kb_params_from_bpk(&p, 100, 10, 0));
	pl = kbut_filter(&f, &p);
	ASSERT_EQ(kb_xxh64("key", 3, 77), kb_filter_hash(&f, "key", 3));
	free(pl);
	p.hash = KB_HASH_SIPHASH;
	p.seed[1] = 78;
	pl = kbut_filter(&f, &p);
	ASSERT_EQ(ref_siphash((const u8 *)"key", 3, 77, 78),
		  kb_filter_hash(&f, "key", 3));
	free(pl);
	kb_params_init(&p, KB_KIND_CLASSIC);
	ASSERT_EQ(0, kb_params_from_bpk(&p, 100, 10, 0));
	pl = kbut_filter(&f, &p);
	ASSERT_EQ(kb_leveldb_hash("key", 3, 0xbc9f1d34),
		  kb_filter_hash(&f, "key", 3));
	free(pl);
}

TEST_HARNESS_MAIN
