/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom core: integer and fixed-point helpers (no floating point).
 *
 * Q32:  s64 with 32 fractional bits (logarithms, exponents).
 * Q62:  u64 with 62 fractional bits (probabilities; 1.0 = KB_Q62_ONE).
 */
#ifndef _KB_MATH_H
#define _KB_MATH_H

#include "kb_platform.h"

#define KB_Q32_ONE	(1LL << 32)
#define KB_Q62_ONE	(1ULL << 62)

/* floor(a * b / 2^s), s <= 127, saturated to U64_MAX */
u64 kb_mul_shift(u64 a, u64 b, unsigned int s);

/* floor(a * b / d) with a 128-bit intermediate, saturated; d != 0 */
u64 kb_muldiv(u64 a, u64 b, u64 d);

/* floor((hi * 2^64 + lo) / d), saturated; d != 0 */
u64 kb_div128(u64 hi, u64 lo, u64 d);

/* floor(sqrt(x)) */
u64 kb_isqrt(u64 x);

/* ln(x / 2^frac_bits) in Q32, x > 0 (x == 0 gives a very negative value) */
s64 kb_fx_ln(u64 x, unsigned int frac_bits);

/* e^x for x <= 0 in Q32 (x > 0 is clamped to 0), result in Q62 */
u64 kb_fx_exp_q62(s64 x);

/* (base)^k in Q62, base <= KB_Q62_ONE */
u64 kb_q62_pow(u64 base, u32 k);

/* Q62 <-> parts per billion (rounded, ppb result clamped to 1e9) */
u32 kb_q62_to_ppb(u64 q);
u64 kb_ppb_to_q62(u32 ppb);

/* ln(n!) in Q32 */
s64 kb_fx_lnfact(u64 n);

#endif /* _KB_MATH_H */
