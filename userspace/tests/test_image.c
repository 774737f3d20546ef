// SPDX-License-Identifier: GPL-2.0
/*
 * Images: header layout, byte-identical round trips, streaming parse, and
 * every malformed variant rejected with its specific reason, never reading
 * out of bounds (each test image sits in an exactly sized allocation, so
 * ASan/valgrind runs catch overreads too).
 */
#include <stddef.h>
#include "kselftest_harness.h"
#include "kbtest.h"

TEST(header_layout)
{
	ASSERT_EQ(128, sizeof(struct kb_image_hdr));
	ASSERT_EQ(0, offsetof(struct kb_image_hdr, magic));
	ASSERT_EQ(4, offsetof(struct kb_image_hdr, version));
	ASSERT_EQ(6, offsetof(struct kb_image_hdr, hdr_len));
	ASSERT_EQ(8, offsetof(struct kb_image_hdr, kind));
	ASSERT_EQ(12, offsetof(struct kb_image_hdr, key_type));
	ASSERT_EQ(16, offsetof(struct kb_image_hdr, hash));
	ASSERT_EQ(20, offsetof(struct kb_image_hdr, k));
	ASSERT_EQ(24, offsetof(struct kb_image_hdr, m));
	ASSERT_EQ(32, offsetof(struct kb_image_hdr, items));
	ASSERT_EQ(40, offsetof(struct kb_image_hdr, fpr_ppb));
	ASSERT_EQ(44, offsetof(struct kb_image_hdr, flags));
	ASSERT_EQ(48, offsetof(struct kb_image_hdr, seed));
	ASSERT_EQ(64, offsetof(struct kb_image_hdr, plen4));
	ASSERT_EQ(72, offsetof(struct kb_image_hdr, plen6));
	ASSERT_EQ(96, offsetof(struct kb_image_hdr, count));
	ASSERT_EQ(104, offsetof(struct kb_image_hdr, payload_len));
	ASSERT_EQ(112, offsetof(struct kb_image_hdr, reserved));
	ASSERT_EQ(0x4d4c424bU, KB_IMAGE_MAGIC);
	ASSERT_EQ(0, memcmp("KBLM", &(u32){ KB_IMAGE_MAGIC }, 4));
}

/* a filled filter of kind with some keys; image in an exact buffer */
struct img {
	struct kb_filter f;
	void *pl;
	u8 *buf;
	u64 len;
};

static void mk_img(struct img *im, u32 kind, u32 key_type, u64 nkeys)
{
	struct kb_params p;
	struct kb_key *keys = kbut_keys(nkeys ? nkeys : 1, 16, 5 + kind);

	kb_params_init(&p, kind);
	p.key_type = key_type;
	if (kind == KB_KIND_BLOCKED) {
		p.hash = KB_HASH_SIPHASH;
		p.seed[0] = 0x1111;
		p.seed[1] = 0x2222;
	} else if (kind == KB_KIND_COUNTING) {
		p.seed[0] = 0x3333;
	}
	kb_params_from_fpr(&p, 1000, 10000000, 0);
	im->pl = kbut_filter(&im->f, &p);
	kbut_add_all(&im->f, keys, nkeys);
	im->len = kb_image_size(&im->f.p);
	im->buf = malloc(im->len);
	kb_image_write(&im->f, 1234, im->buf, im->len);
	kbut_keys_free(keys);
}

static void free_img(struct img *im)
{
	free(im->pl);
	free(im->buf);
}

static int parse(const u8 *b, u64 len, enum kb_img_err *why)
{
	struct kb_params p;
	const void *pl;
	u64 plen, count;
	u8 *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, b, len);
	ret = kb_image_parse(copy, len, 0, &p, &pl, &plen, &count, why);
	free(copy);
	return ret;
}

TEST(round_trip_byte_identical)
{
	static const u32 kinds[] = { KB_KIND_BLOCKED, KB_KIND_CLASSIC,
				     KB_KIND_COUNTING, KB_KIND_GOZERO };

	for (int ki = 0; ki < 4; ki++) {
		struct img im;
		struct kb_params p;
		struct kb_filter f2;
		const void *pl;
		u64 plen, count, size;
		enum kb_img_err why;
		u8 *buf2, *payload2;

		mk_img(&im, kinds[ki], KB_KEY_BYTES, 700);
		ASSERT_EQ(0, kb_image_parse(im.buf, im.len, 0, &p, &pl, &plen,
					    &count, &why));
		ASSERT_EQ(KB_IMG_OK, why);
		ASSERT_EQ(1234, count);
		ASSERT_EQ(0, memcmp(&p, &im.f.p, sizeof(p)));
		payload2 = kbu_alloc_payload(plen);
		memcpy(payload2, pl, plen);
		ASSERT_EQ(0, kb_filter_attach(&f2, &p, payload2, plen));
		size = kb_image_size(&p);
		buf2 = malloc(size);
		ASSERT_EQ((s64)size, kb_image_write(&f2, count, buf2, size));
		ASSERT_EQ(im.len, size);
		ASSERT_EQ(0, memcmp(im.buf, buf2, size));
		/* buffer too small */
		ASSERT_EQ(-E2BIG, kb_image_write(&f2, count, buf2, size - 1));
		free(buf2);
		free(payload2);
		free_img(&im);
	}
}

TEST(streaming_parse)
{
	struct img im;
	struct kb_params p;
	u64 plen, count;
	enum kb_img_err why;
	u32 st;

	mk_img(&im, KB_KIND_BLOCKED, KB_KEY_BYTES, 500);
	/* header only, with the total length */
	ASSERT_EQ(0, kb_image_parse_header(im.buf, 128, im.len, 0, &p, &plen,
					   &count, &why));
	ASSERT_EQ(im.f.bytes, plen);
	/* CRC in odd pieces */
	st = kb_image_crc_init();
	for (u64 off = 0; off < 128 + plen;) {
		u64 c = (off * 7 + 3) % 97 + 1;

		if (off + c > 128 + plen)
			c = 128 + plen - off;
		st = kb_image_crc_update(st, im.buf + off, c);
		off += c;
	}
	ASSERT_EQ(0, kb_image_crc_check(st, im.buf + 128 + plen, &why));
	ASSERT_EQ(0, kb_image_check_payload(&p, im.buf + 128, plen, &why));
	/* caller's limit */
	ASSERT_EQ(-E2BIG, kb_image_parse_header(im.buf, 128, im.len, plen - 1,
						&p, &plen, &count, &why));
	ASSERT_EQ(KB_IMG_TOO_BIG, why);
	free_img(&im);
}

/* change a header field, fix the CRC, expect the reason */
static int mutate(struct img *im, size_t off, size_t size, u64 val,
		  bool fix_crc, enum kb_img_err *why)
{
	u8 *b = malloc(im->len);
	u32 crc;
	int ret;

	memcpy(b, im->buf, im->len);
	for (size_t i = 0; i < size; i++)
		b[off + i] = (u8)(val >> (8 * i));
	if (fix_crc) {
		crc = kb_image_crc_final(kb_image_crc_update(kb_image_crc_init(),
							     b, im->len - 4));
		for (int i = 0; i < 4; i++)
			b[im->len - 4 + i] = (u8)(crc >> (8 * i));
	}
	ret = parse(b, im->len, why);
	free(b);
	return ret;
}

#define F(x) offsetof(struct kb_image_hdr, x), sizeof(((struct kb_image_hdr *)0)->x)
#define EXPECT_BAD(im, field, val, reason) do { \
	enum kb_img_err _w; \
	ASSERT_EQ(-EINVAL, mutate(im, F(field), val, true, &_w)) \
		TH_LOG("%s = %llu", #field, (unsigned long long)(val)); \
	ASSERT_EQ(reason, _w) TH_LOG("%s: got %s", #field, kb_image_strerror(_w)); \
} while (0)

TEST(malformed_headers)
{
	struct img b, c, n;
	enum kb_img_err w;
	u8 *x;
	u32 crc;

	mk_img(&b, KB_KIND_BLOCKED, KB_KEY_BYTES, 10);
	mk_img(&c, KB_KIND_CLASSIC, KB_KEY_BYTES, 10);
	mk_img(&n, KB_KIND_COUNTING, KB_KEY_NET4, 0);

	EXPECT_BAD(&b, magic, 0x4d4c424c, KB_IMG_BAD_MAGIC);
	EXPECT_BAD(&b, version, 2, KB_IMG_BAD_VERSION);
	EXPECT_BAD(&b, version, 0, KB_IMG_BAD_VERSION);
	EXPECT_BAD(&b, hdr_len, 136, KB_IMG_BAD_HDR_LEN);
	EXPECT_BAD(&b, kind, KB_KIND_MAX + 1, KB_IMG_BAD_KIND);
	EXPECT_BAD(&b, kind, 0xffffffff, KB_IMG_BAD_KIND);
	EXPECT_BAD(&b, key_type, 8, KB_IMG_BAD_KEY_TYPE);
	EXPECT_BAD(&b, hash, KB_HASH_MAX + 1, KB_IMG_BAD_HASH);
	EXPECT_BAD(&b, hash, KB_HASH_LEVELDB, KB_IMG_HASH_KIND);
	EXPECT_BAD(&c, hash, KB_HASH_XXH64, KB_IMG_HASH_KIND);
	EXPECT_BAD(&b, k, 0, KB_IMG_BAD_K);
	EXPECT_BAD(&b, k, 33, KB_IMG_BAD_K);
	EXPECT_BAD(&c, k, 31, KB_IMG_BAD_K);
	EXPECT_BAD(&b, m, 0, KB_IMG_BAD_M);
	EXPECT_BAD(&b, m, b.f.p.m + 1, KB_IMG_BAD_M);
	EXPECT_BAD(&b, m, 1ULL << 63, KB_IMG_BAD_M);
	EXPECT_BAD(&b, m, b.f.p.m + 512, KB_IMG_PAYLOAD_LEN);
	EXPECT_BAD(&c, m, c.f.p.m - 8, KB_IMG_PAYLOAD_LEN);
	EXPECT_BAD(&b, payload_len, b.f.bytes + 8, KB_IMG_PAYLOAD_LEN);
	EXPECT_BAD(&b, payload_len, U64_MAX, KB_IMG_PAYLOAD_LEN);
	EXPECT_BAD(&b, fpr_ppb, 1000000000, KB_IMG_BAD_FPR);
	EXPECT_BAD(&b, flags, 1, KB_IMG_BAD_FLAGS);
	EXPECT_BAD(&b, reserved[0], 1, KB_IMG_BAD_RESERVED);
	EXPECT_BAD(&b, reserved[1], 1ULL << 63, KB_IMG_BAD_RESERVED);
	EXPECT_BAD(&c, seed[0], 1, KB_IMG_BAD_SEED);
	EXPECT_BAD(&n, seed[1], 1, KB_IMG_BAD_SEED);	/* xxh64 */
	EXPECT_BAD(&b, plen4, 1, KB_IMG_BAD_PLEN);	/* not a net type */
	EXPECT_BAD(&n, plen4, 1ULL << 33, KB_IMG_BAD_PLEN);
	EXPECT_BAD(&n, plen6[0], 1, KB_IMG_BAD_PLEN);	/* net4 holds no v6 */
	/* valid mutations pass */
	ASSERT_EQ(0, mutate(&n, F(plen4), 1ULL << 32, true, &w));
	ASSERT_EQ(0, mutate(&b, F(items), 5, true, &w));
	ASSERT_EQ(0, mutate(&b, F(count), 5, true, &w));
	/* header fine, CRC not fixed: -EBADMSG */
	ASSERT_EQ(-EBADMSG, mutate(&b, F(count), 5, false, &w));
	ASSERT_EQ(KB_IMG_BAD_CRC, w);
	/* classic trailing k byte */
	x = malloc(c.len);
	memcpy(x, c.buf, c.len);
	x[128 + c.f.bytes - 1] ^= 1;
	crc = kb_image_crc_final(kb_image_crc_update(kb_image_crc_init(), x,
						     c.len - 4));
	memcpy(x + c.len - 4, &crc, 4);
	ASSERT_EQ(-EINVAL, parse(x, c.len, &w));
	ASSERT_EQ(KB_IMG_CLASSIC_K, w);
	free(x);
	free_img(&b);
	free_img(&c);
	free_img(&n);
}

TEST(truncated_and_trailing)
{
	struct img im;
	struct kb_params p;
	u64 pl, cnt;
	enum kb_img_err w;
	u8 *x;

	mk_img(&im, KB_KIND_CLASSIC, KB_KEY_BYTES, 30);
	/* every truncation length */
	for (u64 l = 0; l < im.len; l++) {
		ASSERT_EQ(-EINVAL, parse(im.buf, l, &w)) TH_LOG("len %llu",
			(unsigned long long)l);
		ASSERT_EQ(KB_IMG_TRUNCATED, w) TH_LOG("len %llu",
			(unsigned long long)l);
	}
	/* header bytes available < header size */
	ASSERT_EQ(-EINVAL, kb_image_parse_header(im.buf, 127, im.len, 0, &p,
						 &pl, &cnt, &w));
	ASSERT_EQ(KB_IMG_TRUNCATED, w);
	/* trailing bytes */
	x = malloc(im.len + 1);
	memcpy(x, im.buf, im.len);
	x[im.len] = 0;
	ASSERT_EQ(-EINVAL, parse(x, im.len + 1, &w));
	ASSERT_EQ(KB_IMG_TRAILING, w);
	free(x);
	free_img(&im);
}

/* any single bit flip anywhere is rejected */
TEST(every_bit_flip_rejected)
{
	struct img im;
	enum kb_img_err w;
	u8 *x;

	mk_img(&im, KB_KIND_BLOCKED, KB_KEY_BYTES, 100);
	x = malloc(im.len);
	for (u64 bit = 0; bit < im.len * 8; bit += (bit < 1100 ? 1 : 61)) {
		memcpy(x, im.buf, im.len);
		x[bit / 8] ^= (u8)(1 << (bit % 8));
		ASSERT_NE(0, parse(x, im.len, &w)) TH_LOG("bit %llu",
			(unsigned long long)bit);
		ASSERT_NE(KB_IMG_OK, w);
	}
	free(x);
	free_img(&im);
}

/* random garbage never parses and never crashes */
TEST(random_garbage)
{
	u64 s = 99;
	enum kb_img_err w;
	u8 buf[600];

	for (int t = 0; t < 20000; t++) {
		u64 len = kbut_splitmix(&s) % sizeof(buf);

		for (u64 i = 0; i < len; i++)
			buf[i] = (u8)kbut_splitmix(&s);
		if (len >= 8 && (t & 1))	/* plausible header start */
			memcpy(buf, "KBLM\1\0\x80\0", 8);
		ASSERT_NE(0, parse(buf, len, &w));
	}
}

TEST(strerror_covers_all)
{
	for (int i = 0; i < KB_IMG_ERR_MAX; i++) {
		ASSERT_NE(NULL, kb_image_strerror(i));
		ASSERT_NE(0, strcmp("unknown error", kb_image_strerror(i)));
	}
	ASSERT_STREQ("unknown error", kb_image_strerror(KB_IMG_ERR_MAX));
	ASSERT_STREQ("CRC mismatch", kb_image_strerror(KB_IMG_BAD_CRC));
}

TEST(leveldb_export_import)
{
	struct img c, b;
	struct kb_params p;
	struct kb_filter f;
	enum kb_img_err w;
	u8 raw[8] = { 0 };
	u8 *out;

	mk_img(&c, KB_KIND_CLASSIC, KB_KEY_BYTES, 50);
	mk_img(&b, KB_KIND_BLOCKED, KB_KEY_BYTES, 50);
	out = malloc(c.f.bytes);
	ASSERT_EQ((s64)c.f.bytes, kb_leveldb_export(&c.f, out, c.f.bytes));
	ASSERT_EQ(0, memcmp(out, c.pl, c.f.bytes));
	ASSERT_EQ(-E2BIG, kb_leveldb_export(&c.f, out, c.f.bytes - 1));
	ASSERT_EQ(-EINVAL, kb_leveldb_export(&b.f, out, c.f.bytes));
	/* import of the exported bytes gives the same filter */
	ASSERT_EQ(0, kb_leveldb_import(&p, out, c.f.bytes, 0, &w));
	ASSERT_EQ(c.f.p.m, p.m);
	ASSERT_EQ(c.f.p.k, p.k);
	ASSERT_EQ(0, kb_filter_attach(&f, &p, out, c.f.bytes));
	/* import errors */
	ASSERT_EQ(-EINVAL, kb_leveldb_import(&p, raw, 0, 0, &w));
	ASSERT_EQ(KB_IMG_BAD_M, w);
	ASSERT_EQ(-EINVAL, kb_leveldb_import(&p, raw, 1, 0, &w));
	ASSERT_EQ(KB_IMG_BAD_M, w);
	raw[7] = 0;
	ASSERT_EQ(-EINVAL, kb_leveldb_import(&p, raw, 8, 0, &w));
	ASSERT_EQ(KB_IMG_BAD_K, w);
	raw[7] = 31;
	ASSERT_EQ(-EINVAL, kb_leveldb_import(&p, raw, 8, 0, &w));
	ASSERT_EQ(KB_IMG_BAD_K, w);
	raw[7] = 6;
	ASSERT_EQ(-E2BIG, kb_leveldb_import(&p, raw, 8, 7, &w));
	ASSERT_EQ(KB_IMG_TOO_BIG, w);
	ASSERT_EQ(0, kb_leveldb_import(&p, raw, 8, 8, &w));
	ASSERT_EQ(56, p.m);
	/* attach rejects a k byte that does not match */
	p.k = 5;
	ASSERT_EQ(-EINVAL, kb_filter_attach(&f, &p, raw, 8));
	free(out);
	free_img(&c);
	free_img(&b);
}

/* the CRC of buf[0..n) as an image trailer holds it, computed whole */
static u32 crc_whole(const u8 *buf, u64 n)
{
	return kb_image_crc_final(kb_image_crc_update(kb_image_crc_init(),
						      buf, n));
}

/*
 * kb_image_crc_patch() against a full recompute: bytes ORed in (what a
 * merge does) and replaced at the first and last byte, one byte, the
 * whole message, and fixed-seed random ranges; a patch that changes
 * nothing leaves the CRC.  1 MiB + 3 bytes: `after` reaches 2^20 and
 * odd lengths.
 */
TEST(crc_patch)
{
	const u64 n = (1ULL << 20) + 3;
	static const u64 fixed[][2] = {	/* offset, length */
		{ 0, 1 }, { 0, 64 }, { (1ULL << 20) + 2, 1 },
		{ (1ULL << 20) - 5, 8 }, { 1000, 1 }, { 0, (1ULL << 20) + 3 },
		{ 127, 2 }, { 128, 4096 },
	};
	u8 *buf = malloc(n), *old = malloc(n), *new = malloc(n);
	u64 seed = 0x9e3779b97f4a7c15ULL, off, len, i, j;
	u32 crc, want;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, old);
	ASSERT_NE(NULL, new);
	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[i] = (u8)(seed >> 56);
	}
	crc = crc_whole(buf, n);
	/* nothing changed: no product at all */
	ASSERT_EQ(crc, kb_image_crc_patch(crc, buf, buf, n, 0));
	for (i = 0; i < 8 + 200; i++) {
		if (i < 8) {
			off = fixed[i][0];
			len = fixed[i][1];
		} else {
			seed = seed * 6364136223846793005ULL +
			       1442695040888963407ULL;
			off = (seed >> 20) % n;
			len = 1 + (seed >> 8) % (i % 4 ? 64 : 9000);
			if (len > n - off)
				len = n - off;
		}
		memcpy(old, buf + off, len);
		for (j = 0; j < len; j++) {
			seed = seed * 6364136223846793005ULL +
			       1442695040888963407ULL;
			/* a merge ORs; half the ranges replace instead */
			new[j] = i & 1 ? (u8)(seed >> 48) :
					 old[j] | (u8)(seed >> 40);
		}
		memcpy(buf + off, new, len);
		want = crc_whole(buf, n);
		crc = kb_image_crc_patch(crc, old, new, len, n - off - len);
		ASSERT_EQ(want, crc) {
			TH_LOG("patch %llu: offset %llu length %llu",
			       (unsigned long long)i, (unsigned long long)off,
			       (unsigned long long)len);
		}
	}
	free(buf);
	free(old);
	free(new);
}

TEST_HARNESS_MAIN
