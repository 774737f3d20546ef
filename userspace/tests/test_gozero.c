// SPDX-License-Identifier: GPL-2.0
/*
 * The gozero kind's core: MurmurHash3_x64_128's first half against
 * published known answers, the one-pass 14 offsets against 14 separate
 * hashes for every key length 0..64, the MSB-first bit layout, batched
 * against single operations, sizing with k fixed, and the Redis value
 * import's refusals.  Comparison with go-zero itself (through a real
 * Redis) is test-gozero-oracle.
 */
#include "kselftest_harness.h"
#include "kbtest.h"

static void *mk_gz(struct kb_filter *f, u64 bits)
{
	struct kb_params p;

	kb_params_init(&p, KB_KIND_GOZERO);
	if (kb_params_from_mk(&p, bits, KB_GOZERO_K, 0))
		return NULL;
	return kbut_filter(f, &p);
}

TEST(murmur3_known_answers)
{
	static const char fox[] =
		"The quick brown fox jumps over the lazy dog.";

	ASSERT_EQ(0xcbd8a7b341bd9b02ULL, kb_murmur3_h1("hello", 5));
	ASSERT_EQ(0xcd99481f9ee902c9ULL, kb_murmur3_h1(fox, sizeof(fox) - 1));
}

/* every tail length, both halves of a tail, a last full block of byte i */
TEST(one_pass_equals_separate)
{
	static const u64 bits[] = { 1, 7, 8, 9, 1000003, 4294967291ULL,
				    1ULL << 32, U64_MAX };
	u8 buf[80];
	u64 s = 5, off[KB_GOZERO_K];

	for (u32 len = 0; len <= 64; len++) {
		for (u32 i = 0; i < len; i++)
			buf[i] = (u8)kbut_splitmix(&s);
		for (u32 b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
			kb_gozero_offsets(buf, len, bits[b], off);
			for (u32 i = 0; i < KB_GOZERO_K; i++) {
				buf[len] = (u8)i;
				ASSERT_EQ(kb_murmur3_h1(buf, len + 1) % bits[b],
					  off[i]) {
					TH_LOG("len %u i %u", len, i);
				}
			}
		}
	}
}

/* offset o is byte o / 8, mask 0x80 >> (o % 8); add sets exactly those */
TEST(msb_first_layout)
{
	static const u64 bits[] = { 1, 7, 8, 9, 61, 64, 1009 };

	for (u32 b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
		for (u32 key = 0; key < 50; key++) {
			struct kb_filter f;
			u8 *pl = mk_gz(&f, bits[b]), want[128] = { 0 };
			u64 pos[KB_K_MAX];
			u32 k;

			ASSERT_NE(NULL, pl);
			ASSERT_EQ((bits[b] + 7) / 8, f.bytes);
			k = kb_filter_probes(&f, &key, sizeof(key), pos);
			ASSERT_EQ(KB_GOZERO_K, k);
			for (u32 i = 0; i < k; i++) {
				ASSERT_LT(pos[i], bits[b]);
				want[pos[i] >> 3] |= 0x80 >> (pos[i] & 7);
			}
			ASSERT_FALSE(kb_filter_test(&f, &key, sizeof(key)) &&
				     bits[b] > 64);
			kb_filter_add(&f, &key, sizeof(key));
			ASSERT_EQ(0, memcmp(want, pl, f.bytes));
			ASSERT_TRUE(kb_filter_test(&f, &key, sizeof(key)));
			/* each probe's bit alone is not enough */
			if (bits[b] > 64) {
				pl[pos[3] >> 3] &= ~(0x80 >> (pos[3] & 7));
				ASSERT_EQ(memcmp(want, pl, f.bytes) == 0,
					  kb_filter_test(&f, &key, sizeof(key)));
			}
			free(pl);
		}
	}
}

TEST(batched_equals_single)
{
	struct kb_filter f;
	u64 n = 3000, bm[(5003 + 63) / 64];
	struct kb_key *keys = kbut_keys(n, 11, 3), *q = kbut_keys(5003, 11, 4);
	void *pl = mk_gz(&f, 30011);
	struct kb_fill *fl = calloc(1, kb_fill_bytes(&f.p));
	struct kb_stats st, st2;
	struct kb_key b3[30];
	u32 hits, cnt = 0;

	ASSERT_NE(NULL, pl);
	kb_fill_init_empty(fl, &f);
	kbut_add_all(&f, keys, n / 2);
	for (u64 i = n / 2; i < n; i++)
		kb_filter_add(&f, keys[i].data, keys[i].len);
	ASSERT_EQ(n, kbut_count_present(&f, keys, n));
	kb_filter_stats(&f, &st);
	kb_filter_stats_fill(&f, &st2);
	ASSERT_EQ(st.bits_set, st2.bits_set);
	ASSERT_EQ(st.est_fpr_ppb, st2.est_fpr_ppb);
	memset(bm, 0xa5, sizeof(bm));
	hits = kb_filter_test_many(&f, q, 5003, bm);
	for (u32 i = 0; i < 5003; i++) {
		bool b = (bm[i / 64] >> (i % 64)) & 1;

		ASSERT_EQ(kb_filter_test(&f, q[i].data, q[i].len), b);
		cnt += b;
	}
	ASSERT_EQ(cnt, hits);
	ASSERT_GT(hits, 0);	/* 10 bits per key and k = 14: many */
	ASSERT_EQ(0, bm[5003 / 64] >> (5003 % 64));
	/* test_and_add: new once, in key order */
	kb_filter_clear(&f);
	ASSERT_EQ(0, fl->bits_set);
	for (u32 i = 0; i < 30; i++)
		b3[i] = keys[i % 10];
	ASSERT_EQ(10, kb_filter_test_and_add_many(&f, b3, 30, bm));
	ASSERT_EQ(0x3ffULL, bm[0]);
	ASSERT_FALSE(kb_filter_test_and_add(&f, keys[0].data, 11));
	ASSERT_TRUE(kb_filter_test_and_add(&f, keys[20].data, 11));
	kb_filter_stats(&f, &st);
	ASSERT_EQ(st.bits_set, fl->bits_set);
	ASSERT_EQ(-EOPNOTSUPP, kb_filter_del(&f, keys[0].data, 11));
	free(fl);
	kbut_keys_free(keys);
	kbut_keys_free(q);
	free(pl);
}

TEST(params)
{
	struct kb_params p;
	struct kb_filter f;
	void *pl;

	kb_params_init(&p, KB_KIND_GOZERO);
	ASSERT_EQ(KB_HASH_MURMUR3, p.hash);
	ASSERT_STREQ("gozero", kb_kind_name(KB_KIND_GOZERO));
	ASSERT_STREQ("murmur3", kb_hash_name(KB_HASH_MURMUR3));
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&p, 100, 7, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&p, 0, 14, 0));
	ASSERT_EQ(-E2BIG, kb_params_from_mk(&p, (1ULL << 32) + 1, 14, 0));
	ASSERT_EQ(0, kb_params_from_mk(&p, 1ULL << 32, 14, 0));
	ASSERT_EQ(1ULL << 29, kb_params_payload_bytes(&p));
	ASSERT_EQ(0, kb_params_from_mk(&p, 13, 14, 0));
	ASSERT_EQ(2, kb_params_payload_bytes(&p));
	/* the hash names the scheme: no other hash, no seed */
	p.hash = KB_HASH_XXH64;
	ASSERT_EQ(-EINVAL, kb_params_validate(&p, 0));
	p.hash = KB_HASH_MURMUR3;
	p.seed[0] = 1;
	ASSERT_EQ(-EINVAL, kb_params_validate(&p, 0));
	p.seed[0] = 0;
	ASSERT_EQ(0, kb_params_validate(&p, 0));
	kb_params_init(&p, KB_KIND_BLOCKED);
	p.hash = KB_HASH_MURMUR3;
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&p, 512, 7, 0) ?:
		  kb_params_validate(&p, 0));
	/* sizing from items/fpr: k stays 14, the model meets p, m - 1 not */
	kb_params_init(&p, KB_KIND_GOZERO);
	ASSERT_EQ(0, kb_params_from_fpr(&p, 100000, 1000000, 0));
	ASSERT_EQ(14, p.k);
	ASSERT_LE(kb_model_fpr_ppb(KB_KIND_GOZERO, p.m, 14, 100000), 1000000);
	ASSERT_GT(kb_model_fpr_q62(KB_KIND_GOZERO, p.m - 1, 14, 100000),
		  kb_model_fpr_q62(KB_KIND_GOZERO, p.m, 14, 100000));
	ASSERT_GT(kb_model_fpr_ppb(KB_KIND_GOZERO, p.m - 1, 14, 100000),
		  999000);
	ASSERT_EQ(-E2BIG, kb_params_from_fpr(&p, 1ULL << 31, 1000, 0));
	ASSERT_EQ(-E2BIG, kb_params_from_fpr(&p, 100000, 1000000, 1000));
	ASSERT_EQ(0, kb_params_from_bpk(&p, 1000, 10, 0));
	ASSERT_EQ(10000, p.m);
	ASSERT_EQ(14, p.k);
	/* any alignment: the payload is bytes */
	kb_params_from_mk(&p, 77, 14, 0);
	pl = malloc(16);
	ASSERT_EQ(0, kb_filter_init(&f, &p, (u8 *)pl + 1, 10));
	kb_filter_add(&f, "x", 1);
	ASSERT_TRUE(kb_filter_test(&f, "x", 1));
	free(pl);
}

TEST(import_refusals)
{
	u8 v[4] = { 0xff, 0xff, 0xf0, 0 };
	struct kb_params p;
	enum kb_img_err why;

	/* 20 bits: 3 bytes, the last one's low 4 bits are past the end */
	ASSERT_EQ(0, kb_gozero_import(&p, v, 3, 20, 0, &why));
	ASSERT_EQ(KB_KIND_GOZERO, p.kind);
	ASSERT_EQ(20, p.m);
	ASSERT_EQ(0, kb_image_check_payload(&p, v, 3, &why));
	ASSERT_EQ(0, kb_gozero_import(&p, v, 2, 20, 0, &why));
	ASSERT_EQ(0, kb_gozero_import(&p, v, 0, 20, 0, &why));
	ASSERT_EQ(-EINVAL, kb_gozero_import(&p, v, 4, 20, 0, &why));
	ASSERT_EQ(KB_IMG_GOZERO_LONG, why);
	ASSERT_EQ(-EINVAL, kb_gozero_import(&p, v, 3, 19, 0, &why));
	ASSERT_EQ(KB_IMG_GOZERO_PAD, why);
	ASSERT_EQ(-EINVAL, kb_gozero_import(&p, v, 2, 9, 0, &why));
	ASSERT_EQ(KB_IMG_GOZERO_PAD, why);
	ASSERT_EQ(-EINVAL, kb_gozero_import(&p, v, 1, 0, 0, &why));
	ASSERT_EQ(KB_IMG_BAD_M, why);
	ASSERT_EQ(-EINVAL, kb_gozero_import(&p, v, 1, (1ULL << 32) + 1, 0,
					    &why));
	ASSERT_EQ(-E2BIG, kb_gozero_import(&p, v, 3, 20, 2, &why));
	ASSERT_EQ(KB_IMG_TOO_BIG, why);
	/* an image payload with bits past m is refused too */
	kb_params_init(&p, KB_KIND_GOZERO);
	kb_params_from_mk(&p, 19, 14, 0);
	ASSERT_EQ(-EINVAL, kb_image_check_payload(&p, v, 3, &why));
	ASSERT_EQ(KB_IMG_GOZERO_PAD, why);
	ASSERT_NE(NULL, strstr(kb_image_strerror(why), "bits"));
}

TEST_HARNESS_MAIN
