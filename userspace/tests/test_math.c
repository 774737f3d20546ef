// SPDX-License-Identifier: GPL-2.0
/*
 * The core's fixed-point math (kb_math.c) against libm in double, and the
 * core's FPR models against the same models evaluated in double here.
 */
#include <math.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "kb_math.h"

static double q32(s64 x) { return (double)x / 4294967296.0; }
static double q62(u64 x) { return (double)x / 4611686018427387904.0; }

TEST(ln_accuracy)
{
	u64 s = 1;

	for (int i = 0; i < 20000; i++) {
		u64 x = kbut_splitmix(&s) >> (kbut_splitmix(&s) % 64);
		unsigned int fb = (unsigned int)(kbut_splitmix(&s) % 63);
		double want;

		if (!x)
			continue;
		want = log((double)x) - fb * log(2.0);
		ASSERT_LT(fabs(q32(kb_fx_ln(x, fb)) - want), 1e-8)
			TH_LOG("x %llu fb %u", (unsigned long long)x, fb);
	}
	ASSERT_EQ(0, kb_fx_ln(1, 0));
	ASSERT_EQ(0, kb_fx_ln(1ULL << 40, 40));
}

TEST(exp_accuracy)
{
	u64 s = 2;

	for (int i = 0; i < 20000; i++) {
		double x = -(double)(kbut_splitmix(&s) % 45000000) / 1e6;
		s64 fx = (s64)llround(x * 4294967296.0);
		double got = q62(kb_fx_exp_q62(fx)), want = exp(q32(fx));

		ASSERT_LT(fabs(got - want), 1e-15 + want * 1e-8)
			TH_LOG("x %f got %.17g want %.17g", x, got, want);
	}
	ASSERT_EQ(KB_Q62_ONE, kb_fx_exp_q62(0));
	ASSERT_EQ(KB_Q62_ONE, kb_fx_exp_q62(12345));
	ASSERT_EQ(0, kb_fx_exp_q62(-(200LL << 32)));
}

TEST(pow_lnfact_muldiv_isqrt)
{
	u64 s = 3;

	for (int i = 0; i < 5000; i++) {
		u64 b = kbut_splitmix(&s) % (KB_Q62_ONE + 1);
		u32 k = (u32)(kbut_splitmix(&s) % 40);
		double want = pow(q62(b), k);

		ASSERT_LT(fabs(q62(kb_q62_pow(b, k)) - want), 1e-15 + want * 1e-12);
	}
	for (u64 n = 0; n < 70000; n += 1 + n / 7) {
		ASSERT_LT(fabs(q32(kb_fx_lnfact(n)) - lgamma((double)n + 1)),
			  1e-6 + lgamma((double)n + 1) * 1e-10) TH_LOG("n %llu",
				(unsigned long long)n);
	}
	for (int i = 0; i < 20000; i++) {
		u64 a = kbut_splitmix(&s), b = kbut_splitmix(&s) >> (i % 64);
		u64 d = (kbut_splitmix(&s) >> (i % 60)) | 1;
		unsigned __int128 r = (unsigned __int128)a * b / d;
		u64 want = r >> 64 ? U64_MAX : (u64)r;

		ASSERT_EQ(want, kb_muldiv(a, b, d));
		r = (unsigned __int128)a * b >> (i % 100);
		want = r >> 64 ? U64_MAX : (u64)r;
		ASSERT_EQ(want, kb_mul_shift(a, b, i % 100));
		ASSERT_EQ((u64)sqrtl((long double)a), kb_isqrt(a));
	}
	ASSERT_EQ(0, kb_isqrt(0));
	ASSERT_EQ(3, kb_isqrt(15));
	ASSERT_EQ(4, kb_isqrt(16));
	ASSERT_EQ(0xffffffffULL, kb_isqrt(U64_MAX));
}

TEST(ppb_conversions)
{
	ASSERT_EQ(1000000000U, kb_q62_to_ppb(KB_Q62_ONE));
	ASSERT_EQ(0, kb_q62_to_ppb(0));
	ASSERT_EQ(500000000U, kb_q62_to_ppb(KB_Q62_ONE / 2));
	for (u32 ppb = 1; ppb < 1000000000U; ppb = ppb * 3 + 1)
		ASSERT_EQ(ppb, kb_q62_to_ppb(kb_ppb_to_q62(ppb)));
}

/* double-precision evaluation of the same models */
static double dmodel(u32 kind, u64 m, u32 k, u64 n)
{
	double B, lam, sum = 0;

	if (kind == KB_KIND_CLASSIC)
		return pow(1 - exp(-(double)k * n / m), k);
	B = kind == KB_KIND_BLOCKED ? 512 : 128;
	lam = n / (m / B);
	for (double c = 1; c < lam + 12 * sqrt(lam) + 30; c++)
		sum += exp(-lam + c * log(lam) - lgamma(c + 1)) *
		       pow(1 - pow(1 - 1 / B, k * c), k);
	return sum;
}

TEST(models_match_double)
{
	static const u32 kinds[] = { KB_KIND_BLOCKED, KB_KIND_COUNTING,
				     KB_KIND_CLASSIC };

	for (int ki = 0; ki < 3; ki++) {
		for (u32 bpk = 1; bpk <= 64; bpk = bpk < 16 ? bpk + 1 : bpk * 2) {
			for (u32 k = 1; k <= 24; k += 3) {
				u64 n = 100000, m = (u64)n * bpk;
				double want, got;

				m = (m + 511) / 512 * 512;
				want = dmodel(kinds[ki], m, k, n);
				got = q62(kb_model_fpr_q62(kinds[ki], m, k, n));
				ASSERT_LT(fabs(got - want), 1e-12 + want * 1e-6)
					TH_LOG("kind %u bpk %u k %u: %.12g vs %.12g",
					       kinds[ki], bpk, k, got, want);
			}
		}
	}
	/* the blocked model is worse than the classic one at equal size */
	ASSERT_GT(kb_model_fpr_q62(KB_KIND_BLOCKED, 1000448, 7, 100000),
		  kb_model_fpr_q62(KB_KIND_CLASSIC, 1000448, 7, 100000));
	/* edge cases */
	ASSERT_EQ(0, kb_model_fpr_q62(KB_KIND_BLOCKED, 512, 7, 0));
	ASSERT_GT(kb_model_fpr_ppb(KB_KIND_BLOCKED, 512, 7, 100000000),
		  999999000U);
}

TEST(best_k_is_best)
{
	for (u32 bpk = 2; bpk <= 40; bpk += 3) {
		u64 n = 50000, m = (n * bpk + 511) / 512 * 512;
		u32 k = kb_model_best_k(KB_KIND_BLOCKED, m, n);
		u64 f = kb_model_fpr_q62(KB_KIND_BLOCKED, m, k, n);

		for (u32 j = 1; j <= KB_K_MAX; j++) {
			ASSERT_LE(f, kb_model_fpr_q62(KB_KIND_BLOCKED, m, j, n))
				TH_LOG("bpk %u best %u beaten by %u", bpk, k, j);
		}
	}
	/* 10 bits/key in 512-bit blocks: k 6 or 7 */
	ASSERT_GE(kb_model_best_k(KB_KIND_BLOCKED, 10000384, 1000000), 6);
	ASSERT_LE(kb_model_best_k(KB_KIND_BLOCKED, 10000384, 1000000), 7);
}

TEST_HARNESS_MAIN
