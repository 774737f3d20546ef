// SPDX-License-Identifier: GPL-2.0
/*
 * Measured false-positive rates with 1M random 16-byte keys against the
 * kinds' models, and the blocked kind's 1.05% bound at 10 bits/key.  Also:
 * no false negatives.
 *
 * The models: blocked and counting, kb_model_fpr_ppb() (the block model).
 * classic, LevelDB's probe scheme under an ideal 32-bit hash
 * (classic_ideal_fpr below).  The textbook (1 - e^(-kn/m))^k does not
 * describe that scheme for filters over 2^17 bits: with h = a * 2^17 + b,
 * probe i is h + i * rotr(h, 17) = a (2^17 + i) + b (1 + i 2^15) mod 2^32,
 * a 2-D lattice image of h, and probe 2 is exactly 65537 (2a + b): 196606
 * values for all 2^32 hashes.  Probes therefore pile onto few bits and
 * queries hit the same overfilled bits: 1.5x the textbook at 8 and 10
 * bits/key, 2.1x at 16 (where n / 2^32 of the queries also share a stored
 * key's whole 32-bit hash).  No closed form is known for the lattice part,
 * so the model is the scheme's expectation with uniformly random h,
 * estimated by simulation; the measurement then tests that LevelDB's hash
 * behaves like an ideal one on our keys and that our probes are the scheme.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include "kselftest_harness.h"
#include "kbtest.h"

#define N_KEYS		1000000ULL

struct fpr_result {
	double measured, model, textbook;
};

static u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* LevelDB's probes of a 32-bit hash h over m bits: set or test them all */
static bool classic_probe(u8 *bits, u64 m, u32 k, u32 h, bool set)
{
	u32 delta = (h >> 17) | (h << 15), j;

	for (j = 0; j < k; j++, h += delta) {
		u64 pos = h % m;

		if (set)
			bits[pos / 8] |= (u8)(1U << (pos % 8));
		else if (!(bits[pos / 8] & (1U << (pos % 8))))
			return false;
	}
	return true;
}

/*
 * classic's model: the scheme's false-positive rate with n ideal (uniform,
 * independent) 32-bit hashes, averaged over `fills` filters of nq queries
 * each; written independently of kb_classic.c on purpose.
 */
static double classic_ideal_fpr(u64 m, u32 k, u64 n, u64 nq, u32 fills)
{
	u64 x = 0x5eed0000ULL + m * 31 + k, i, fp = 0;
	u8 *bits = malloc((m + 7) / 8);
	u32 f;

	if (!bits)
		return -1;
	for (f = 0; f < fills; f++) {
		memset(bits, 0, (m + 7) / 8);
		for (i = 0; i < n; i++)
			classic_probe(bits, m, k, (u32)splitmix64(&x), true);
		for (i = 0; i < nq; i++)
			fp += classic_probe(bits, m, k, (u32)splitmix64(&x), false);
	}
	free(bits);
	return (double)fp / (double)(nq * fills);
}

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
	pl = kbut_filter(&f, &p);
	if (!pl)
		return -1;
	keys = kbut_keys(N_KEYS, 16, 1000 + bpk * 7 + kind);
	kbut_add_all(&f, keys, N_KEYS);
	if (kbut_count_present(&f, keys, N_KEYS) != N_KEYS)
		return -2;	/* false negative */
	q = kbut_keys(nq, 16, 99999 + bpk * 13 + kind);
	fp = kbut_count_present(&f, q, nq);
	r->measured = (double)fp / (double)nq;
	r->textbook = kb_model_fpr_ppb(kind, p.m, p.k, N_KEYS) / 1e9;
	r->model = kind == KB_KIND_CLASSIC ?
		   classic_ideal_fpr(p.m, p.k, N_KEYS, nq, 2) : r->textbook;
	if (r->model <= 0)
		return -1;
	printf("# %-8s %2u bits/key m=%llu k=%u: measured %.5f%% model %.5f%% (%+.2f%%)",
	       kb_kind_name(kind), bpk, (unsigned long long)p.m, p.k,
	       r->measured * 100, r->model * 100,
	       (r->measured / r->model - 1) * 100);
	if (kind == KB_KIND_CLASSIC)
		printf(", textbook %.5f%%", r->textbook * 100);
	printf("\n");
	fflush(stdout);
	kbut_keys_free(keys);
	kbut_keys_free(q);
	free(pl);
	return 0;
}

static void check(struct __test_metadata *_metadata, u32 kind, u32 bpk)
{
	struct fpr_result r;
	/* about 4000+ expected false positives: relative sd <= ~1.6% */
	u64 nq = bpk >= 16 ? 8000000 : 2000000;

	ASSERT_EQ(0, measure(kind, bpk, nq, &r));
	if (kind == KB_KIND_CLASSIC)
		/* the scheme's excess over the textbook is the model's */
		EXPECT_GT(r.model, 1.3 * r.textbook);
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
	pl = kbut_filter(&f, &p);
	ASSERT_NE(NULL, pl);
	keys = kbut_keys(n, 16, 5);
	q = kbut_keys(nq, 16, 6);
	kbut_add_all(&f, keys, n);
	fp = kbut_count_present(&f, q, nq);
	printf("# from_fpr 1%%: m=%llu k=%u measured %.4f%%\n",
	       (unsigned long long)p.m, p.k, fp * 100.0 / nq);
	fflush(stdout);
	/* allow 3 standard deviations of sampling noise */
	EXPECT_LE((double)fp / nq, 0.01 * (1 + 3 / sqrt(0.01 * nq)));
	kbut_keys_free(keys);
	kbut_keys_free(q);
	free(pl);
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The same with 1M IPv4 addresses drawn from 11.0.0.0-126.255.255.255 (make
 * bench-bpf's set) and absent ones from the same range, measured without
 * noise allowance: 4-byte keys from a part of the address space came out
 * 1.5-3% over the block model (random 16-byte keys: within 0.6%), which
 * the 5% headroom of kb_params_from_fpr() absorbs.  The key sets are fixed,
 * so the result is too: the test fails if the headroom goes.
 */
TEST_F_TIMEOUT(fpr, blocked_from_fpr_meets_p_ipv4, 120)
{
	u64 n = 1000000, nq = 4000000, fp = 0, s = 7, i, j;
	u32 *a = malloc(n * sizeof(*a)), *sorted = malloc(n * sizeof(*a));
	struct kb_key *keys = calloc(n, sizeof(*keys));
	struct kb_params p;
	struct kb_filter f;
	void *pl;

	ASSERT_TRUE(a && sorted && keys);
	kb_params_init(&p, KB_KIND_BLOCKED);
	p.key_type = KB_KEY_IPV4;
	p.seed[0] = 42;
	ASSERT_EQ(0, kb_params_from_fpr(&p, n, 10000000, 0));	/* 1% */
	pl = kbut_filter(&f, &p);
	ASSERT_NE(NULL, pl);
	for (i = 0; i < n; i++) {
		sorted[i] = 0x0b000000 + (u32)(splitmix64(&s) % 0x74000000);
		a[i] = htonl(sorted[i]);
		keys[i].data = &a[i];
		keys[i].len = 4;
	}
	kbut_add_all(&f, keys, n);
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	for (i = j = 0; j < nq; i++) {
		u32 x = 0x0b000000 + (u32)(splitmix64(&s) % 0x74000000), be;

		if (bsearch(&x, sorted, n, sizeof(*sorted), cmp_u32))
			continue;	/* listed: not a false positive */
		be = htonl(x);
		fp += kb_filter_test(&f, &be, 4);
		j++;
	}
	printf("# from_fpr 1%%, IPv4: m=%llu k=%u measured %.4f%% model %.4f%%\n",
	       (unsigned long long)p.m, p.k, fp * 100.0 / nq,
	       kb_model_fpr_ppb(p.kind, p.m, p.k, n) / 1e7);
	fflush(stdout);
	EXPECT_LE(fp, nq / 100);
	free(keys);
	free(sorted);
	free(a);
	free(pl);
}

TEST_HARNESS_MAIN
