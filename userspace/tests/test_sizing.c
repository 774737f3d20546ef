// SPDX-License-Identifier: GPL-2.0
/*
 * Sizing: Guava's formulas for classic, LevelDB's bits-per-key rule, the
 * block model search for blocked/counting, explicit (m, k), and every
 * sizing error.
 */
#include <math.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "kb_internal.h"

static struct kb_params P(u32 kind)
{
	struct kb_params p;

	kb_params_init(&p, kind);
	return p;
}

TEST(classic_from_fpr_is_guava)
{
	static const u64 ns[] = { 1, 10, 1000, 123457, 10000000 };
	static const u32 ppbs[] = { 1, 1000, 1000000, 10000000, 30000000,
				    500000000, 999999999 };

	for (size_t i = 0; i < 5; i++) {
		for (size_t j = 0; j < 7; j++) {
			struct kb_params p = P(KB_KIND_CLASSIC);
			double pr = ppbs[j] / 1e9;
			/* Guava: optimalNumOfBits / optimalNumOfHashFunctions */
			double bits = floor(-(double)ns[i] * log(pr) /
					    (log(2) * log(2)));
			double k = fmax(1, round(bits / ns[i] * log(2)));
			u64 m = bits < 64 ? 64 : ((u64)bits + 7) / 8 * 8;

			ASSERT_EQ(0, kb_params_from_fpr(&p, ns[i], ppbs[j], 0));
			/* fixed point may differ from double by one bit */
			ASSERT_LE(llabs((long long)p.m - (long long)m), 8)
				TH_LOG("n %llu p %u: m %llu want %llu",
				       (unsigned long long)ns[i], ppbs[j],
				       (unsigned long long)p.m, (unsigned long long)m);
			ASSERT_EQ((u32)fmin(k, 30), p.k);
			ASSERT_EQ(ns[i], p.items);
			ASSERT_EQ(ppbs[j], p.fpr_ppb);
		}
	}
}

TEST(classic_from_bpk_is_leveldb)
{
	for (u32 bpk = 1; bpk <= 200; bpk++) {
		for (u64 n = 0; n < 300; n += 37) {
			struct kb_params p = P(KB_KIND_CLASSIC);
			u64 bits = n * bpk < 64 ? 64 : n * bpk;
			size_t k = (size_t)(bpk * 0.69);	/* LevelDB, in double */

			k = k < 1 ? 1 : k > 30 ? 30 : k;
			ASSERT_EQ(0, kb_params_from_bpk(&p, n, bpk, 0));
			ASSERT_EQ((bits + 7) / 8 * 8, p.m);
			ASSERT_EQ(k, p.k) TH_LOG("bpk %u", bpk);
			ASSERT_EQ(p.m / 8 + 1, kb_params_payload_bytes(&p));
		}
	}
}

/*
 * blocked/counting from (n, p): the smallest block count meeting p with
 * kb_params_from_fpr()'s 5% headroom (the model at 95% of p)
 */
TEST(block_from_fpr_is_minimal)
{
	static const u32 kinds[] = { KB_KIND_BLOCKED, KB_KIND_COUNTING };
	static const u32 ppbs[] = { 100000000, 10000000, 1000000, 10000, 1 };
	static const u64 ns[] = { 1, 100, 100000, 3000000 };

	for (int ki = 0; ki < 2; ki++) {
		u64 bpb = kinds[ki] == KB_KIND_BLOCKED ? 512 : 128;

		for (int i = 0; i < 4; i++) {
			for (int j = 0; j < 5; j++) {
				struct kb_params p = P(kinds[ki]);
				u64 target = kb_ppb_to_q62(ppbs[j]);
				u64 nb;
				u32 k;

				target -= target / 20;

				ASSERT_EQ(0, kb_params_from_fpr(&p, ns[i], ppbs[j], 0));
				ASSERT_EQ(0, p.m % bpb);
				nb = p.m / bpb;
				ASSERT_LE(kb_model_fpr_q62(kinds[ki], p.m, p.k, ns[i]),
					  target);
				ASSERT_EQ(kb_model_best_k(kinds[ki], p.m, ns[i]), p.k);
				if (nb > 1) {
					u64 m2 = (nb - 1) * bpb;

					k = kb_model_best_k(kinds[ki], m2, ns[i]);
					ASSERT_GT(kb_model_fpr_q62(kinds[ki], m2, k, ns[i]),
						  target)
						TH_LOG("n %llu p %u: %llu blocks not minimal",
						       (unsigned long long)ns[i], ppbs[j],
						       (unsigned long long)nb);
				}
			}
		}
	}
}

TEST(block_from_bpk)
{
	struct kb_params p = P(KB_KIND_BLOCKED);

	ASSERT_EQ(0, kb_params_from_bpk(&p, 1000000, 10, 0));
	ASSERT_EQ(10000384, p.m);		/* rounded up to blocks */
	ASSERT_EQ(kb_model_best_k(KB_KIND_BLOCKED, p.m, 1000000), p.k);
	ASSERT_EQ(p.m / 8, kb_params_payload_bytes(&p));
	ASSERT_EQ(0, p.fpr_ppb);
	p = P(KB_KIND_COUNTING);
	ASSERT_EQ(0, kb_params_from_bpk(&p, 1000, 10, 0));
	ASSERT_EQ(10112, p.m);
	ASSERT_EQ(p.m / 2, kb_params_payload_bytes(&p));
	/* zero items: one block */
	p = P(KB_KIND_BLOCKED);
	ASSERT_EQ(0, kb_params_from_bpk(&p, 0, 10, 0));
	ASSERT_EQ(512, p.m);
	ASSERT_GE(p.k, 1);
}

TEST(from_mk)
{
	struct kb_params p = P(KB_KIND_BLOCKED);

	ASSERT_EQ(0, kb_params_from_mk(&p, 1024, 7, 0));
	ASSERT_EQ(1024, p.m);
	ASSERT_EQ(7, p.k);
	p = P(KB_KIND_CLASSIC);
	ASSERT_EQ(0, kb_params_from_mk(&p, 8, 30, 0));
	ASSERT_EQ(2, kb_params_payload_bytes(&p));
	p = P(KB_KIND_COUNTING);
	ASSERT_EQ(0, kb_params_from_mk(&p, 128, 32, 0));
}

TEST(sizing_errors)
{
	struct kb_params p = P(KB_KIND_BLOCKED);
	struct kb_params c = P(KB_KIND_CLASSIC);
	struct kb_params n = P(KB_KIND_COUNTING);

	/* p outside (0, 1), n = 0 with p */
	ASSERT_EQ(-EINVAL, kb_params_from_fpr(&p, 100, 0, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_fpr(&p, 100, 1000000000, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_fpr(&p, 100, 2000000000, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_fpr(&p, 0, 1000, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_fpr(&c, 0, 1000, 0));
	/* bits per key out of range */
	ASSERT_EQ(-EINVAL, kb_params_from_bpk(&p, 100, 0, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_bpk(&p, 100, KB_BPK_MAX + 1, 0));
	/* m = 0, m not a multiple of the granule, k out of range */
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&p, 0, 7, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&p, 1000, 7, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&n, 100, 7, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&c, 12, 7, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&p, 512, 0, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&p, 512, KB_K_MAX + 1, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_mk(&c, 64, 31, 0));
	/* over the caller's maximum / the hard limit */
	ASSERT_EQ(-E2BIG, kb_params_from_fpr(&p, 1000000, 10000000, 1000000));
	ASSERT_EQ(-E2BIG, kb_params_from_fpr(&c, 1000000, 10000000, 1000000));
	ASSERT_EQ(-E2BIG, kb_params_from_bpk(&p, 1000000, 10, 1000000));
	ASSERT_EQ(-E2BIG, kb_params_from_mk(&p, 1ULL << 30, 7, 1ULL << 20));
	ASSERT_EQ(-E2BIG, kb_params_from_mk(&p, KB_M_MAX + 512, 7, 0));
	ASSERT_EQ(-E2BIG, kb_params_from_fpr(&p, KB_M_MAX + 1, 10000000, 0));
	ASSERT_EQ(-E2BIG, kb_params_from_bpk(&p, KB_M_MAX + 1, 10, 0));
	/* exactly at the caller's maximum is fine */
	ASSERT_EQ(0, kb_params_from_bpk(&p, 1000000, 10, 10000384 / 8));
	/* unknown kind */
	ASSERT_EQ(-EINVAL, kb_params_init(&p, KB_KIND_MAX + 1));
	p.kind = 7;
	ASSERT_EQ(-EINVAL, kb_params_from_bpk(&p, 100, 10, 0));
}

TEST(params_validate)
{
	struct kb_params p = P(KB_KIND_BLOCKED), q;
	enum kb_img_err why;

	ASSERT_EQ(0, kb_params_from_bpk(&p, 1000, 10, 0));
	ASSERT_EQ(0, kb_params_validate(&p, 0));
#define BAD(field, val, reason) do { \
	q = p; q.field = val; \
	ASSERT_EQ(-EINVAL, kb_params_check(&q, 0, &why)); \
	ASSERT_EQ(reason, why); \
} while (0)
	BAD(kind, KB_KIND_MAX + 1, KB_IMG_BAD_KIND);
	BAD(key_type, 8, KB_IMG_BAD_KEY_TYPE);
	BAD(hash, KB_HASH_MAX + 1, KB_IMG_BAD_HASH);
	BAD(hash, KB_HASH_MURMUR3, KB_IMG_HASH_KIND);
	BAD(hash, KB_HASH_LEVELDB, KB_IMG_HASH_KIND);
	BAD(k, 0, KB_IMG_BAD_K);
	BAD(k, 33, KB_IMG_BAD_K);
	BAD(m, 0, KB_IMG_BAD_M);
	BAD(m, 1000, KB_IMG_BAD_M);
	BAD(m, KB_M_MAX + 512, KB_IMG_BAD_M);
	BAD(fpr_ppb, 1000000000, KB_IMG_BAD_FPR);
	BAD(flags, 1, KB_IMG_BAD_FLAGS);
	BAD(seed[1], 1, KB_IMG_BAD_SEED);
	BAD(plen4, 1, KB_IMG_BAD_PLEN);
	q = p;
	q.hash = KB_HASH_SIPHASH;
	q.seed[1] = 5;
	ASSERT_EQ(0, kb_params_validate(&q, 0));
	q = p;
	q.key_type = KB_KEY_NET4;
	q.plen4 = 1ULL << 32;
	ASSERT_EQ(0, kb_params_validate(&q, 0));
	q.plen4 = 0;		/* an empty bitmap is fine */
	ASSERT_EQ(0, kb_params_validate(&q, 0));
	q.plen4 = 1ULL << 33;
	ASSERT_EQ(-EINVAL, kb_params_validate(&q, 0));
	q.plen4 = 0;
	q.plen6[0] = 1;
	ASSERT_EQ(-EINVAL, kb_params_validate(&q, 0));
	q.key_type = KB_KEY_NET;
	q.plen6[2] = 1;		/* /128 */
	ASSERT_EQ(0, kb_params_validate(&q, 0));
	q.plen6[2] = 2;		/* /129 */
	ASSERT_EQ(-EINVAL, kb_params_validate(&q, 0));
	ASSERT_EQ(-E2BIG, kb_params_check(&p, 100, &why));
	ASSERT_EQ(KB_IMG_TOO_BIG, why);
	q = P(KB_KIND_CLASSIC);
	ASSERT_EQ(0, kb_params_from_bpk(&q, 10, 10, 0));
	q.seed[0] = 1;
	ASSERT_EQ(-EINVAL, kb_params_check(&q, 0, &why));
	ASSERT_EQ(KB_IMG_BAD_SEED, why);
	q.seed[0] = 0;
	q.k = 31;
	ASSERT_EQ(-EINVAL, kb_params_check(&q, 0, &why));
	ASSERT_EQ(KB_IMG_BAD_K, why);
}

TEST(expected_fpr_in_stats)
{
	struct kb_params p = P(KB_KIND_BLOCKED);
	struct kb_filter f;
	struct kb_stats st;
	void *pl;

	ASSERT_EQ(0, kb_params_from_fpr(&p, 10000, 10000000, 0));
	pl = kbut_filter(&f, &p);
	kb_filter_stats(&f, &st);
	ASSERT_LE(st.expected_fpr_ppb, 10000000);
	ASSERT_GT(st.expected_fpr_ppb, 9000000);
	ASSERT_EQ(0, st.bits_set);
	ASSERT_EQ(0, st.est_items);
	ASSERT_EQ(0, st.est_fpr_ppb);
	ASSERT_EQ(0, st.over_capacity);
	free(pl);
}

TEST_HARNESS_MAIN
