// SPDX-License-Identifier: GPL-2.0
/*
 * Measured false-positive rates with 1M random 16-byte keys against the
 * kinds' models (kb_model_fpr_ppb), and the blocked kind's 1.05% bound at
 * 10 bits/key.  Also: no false negatives.
 */
#include <math.h>
#include <stdio.h>
#include "kselftest_harness.h"
#include "kbtest.h"

#define N_KEYS		1000000ULL

struct fpr_result {
	double measured, model;
};

static int measure(u32 kind, u32 bpk, u64 nq, struct fpr_result *r)
{
	struct kb_params p;
	struct kb_filter f;
	struct kb_key *keys, *q;
	void *pl;
	u64 fp;

	kb_params_init(&p, kind);
	if (kind != KB_KIND_CLASSIC)
		p.seed[0] = 0x1234567890abcdefULL + bpk;
	if (kb_params_from_bpk(&p, N_KEYS, bpk, 0))
		return -1;
	pl = kbt_filter(&f, &p);
	if (!pl)
		return -1;
	keys = kbt_keys(N_KEYS, 16, 1000 + bpk * 7 + kind);
	kbt_add_all(&f, keys, N_KEYS);
	if (kbt_count_present(&f, keys, N_KEYS) != N_KEYS)
		return -2;	/* false negative */
	q = kbt_keys(nq, 16, 99999 + bpk * 13 + kind);
	fp = kbt_count_present(&f, q, nq);
	r->measured = (double)fp / (double)nq;
	r->model = kb_model_fpr_ppb(kind, p.m, p.k, N_KEYS) / 1e9;
	printf("# %-8s %2u bits/key m=%llu k=%u: measured %.5f%% model %.5f%% (%+.2f%%)\n",
	       kb_kind_name(kind), bpk, (unsigned long long)p.m, p.k,
	       r->measured * 100, r->model * 100,
	       (r->measured / r->model - 1) * 100);
	fflush(stdout);
	kbt_keys_free(keys);
	kbt_keys_free(q);
	free(pl);
	return 0;
}

static void check(struct __test_metadata *_metadata, u32 kind, u32 bpk)
{
	struct fpr_result r;
	/* about 4000+ expected false positives: relative sd <= ~1.6% */
	u64 nq = bpk >= 16 ? 8000000 : 2000000;

	ASSERT_EQ(0, measure(kind, bpk, nq, &r));
	if (kind == KB_KIND_CLASSIC) {
		/*
		 * classic is byte-identical to LevelDB (test_leveldb_compat)
		 * and its FPR is 1.45-2.1x the textbook (1 - e^(-kn/m))^k at
		 * 8/10/16 bits/key.  Not from overlapping probe sets of key
		 * pairs nor from the hash: with h = a * 2^17 + b, probe i is
		 * h + i * rotr(h, 17) = a (2^17 + i) + b (1 + i 2^15) mod 2^32,
		 * a 2-D lattice image of h, and probe 2 is exactly
		 * 65537 (2a + b): 196606 values for all 2^32 hashes.  Probes
		 * therefore pile onto few bits (per-bit hit counts have
		 * variance/mean 2.3 instead of 1), and queries hit the same
		 * overfilled bits.  Ideal random h gives the same ratios;
		 * replacing probe 2 by an independent position brings 8/10
		 * bits/key from 1.47x/1.54x to 1.04x/1.05x (16: 2.0x to 1.2x;
		 * there the 32-bit hash also adds n / 2^32 = 0.023% for keys
		 * whose h equals a stored key's).  No model within 10% yet
		 * (issue #3), so bound it from both sides.
		 */
		EXPECT_GT(r.measured / r.model, 0.9);
		EXPECT_LT(r.measured / r.model, 2.5)
			TH_LOG("classic %u bpk: measured %.6f model %.6f", bpk,
			       r.measured, r.model);
		return;
	}
	EXPECT_LT(fabs(r.measured / r.model - 1), 0.10)
		TH_LOG("%s %u bpk: measured %.6f model %.6f",
		       kb_kind_name(kind), bpk, r.measured, r.model);
	if (kind == KB_KIND_BLOCKED && bpk == 10)
		EXPECT_LE(r.measured, 0.0105);
}

FIXTURE(fpr) {
	int unused;
};

FIXTURE_SETUP(fpr)
{
}

FIXTURE_TEARDOWN(fpr)
{
}

TEST_F_TIMEOUT(fpr, blocked_8, 120) { check(_metadata, KB_KIND_BLOCKED, 8); }
TEST_F_TIMEOUT(fpr, blocked_10, 120) { check(_metadata, KB_KIND_BLOCKED, 10); }
TEST_F_TIMEOUT(fpr, blocked_16, 120) { check(_metadata, KB_KIND_BLOCKED, 16); }
TEST_F_TIMEOUT(fpr, classic_8, 120) { check(_metadata, KB_KIND_CLASSIC, 8); }
TEST_F_TIMEOUT(fpr, classic_10, 120) { check(_metadata, KB_KIND_CLASSIC, 10); }
TEST_F_TIMEOUT(fpr, classic_16, 120) { check(_metadata, KB_KIND_CLASSIC, 16); }
TEST_F_TIMEOUT(fpr, counting_8, 120) { check(_metadata, KB_KIND_COUNTING, 8); }
TEST_F_TIMEOUT(fpr, counting_10, 120) { check(_metadata, KB_KIND_COUNTING, 10); }
TEST_F_TIMEOUT(fpr, counting_16, 120) { check(_metadata, KB_KIND_COUNTING, 16); }

/* sizing from (n, p) must meet p when measured (blocked: the block model) */
TEST_F_TIMEOUT(fpr, blocked_from_fpr_meets_p, 120)
{
	struct kb_params p;
	struct kb_filter f;
	struct kb_key *keys, *q;
	u64 n = 200000, nq = 2000000, fp;
	void *pl;

	kb_params_init(&p, KB_KIND_BLOCKED);
	p.seed[0] = 42;
	ASSERT_EQ(0, kb_params_from_fpr(&p, n, 10000000, 0));	/* 1% */
	pl = kbt_filter(&f, &p);
	ASSERT_NE(NULL, pl);
	keys = kbt_keys(n, 16, 5);
	q = kbt_keys(nq, 16, 6);
	kbt_add_all(&f, keys, n);
	fp = kbt_count_present(&f, q, nq);
	printf("# from_fpr 1%%: m=%llu k=%u measured %.4f%%\n",
	       (unsigned long long)p.m, p.k, fp * 100.0 / nq);
	fflush(stdout);
	/* allow 3 standard deviations of sampling noise */
	EXPECT_LE((double)fp / nq, 0.01 * (1 + 3 / sqrt(0.01 * nq)));
	kbt_keys_free(keys);
	kbt_keys_free(q);
	free(pl);
}

TEST_HARNESS_MAIN
