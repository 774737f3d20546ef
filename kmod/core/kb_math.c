// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: fixed-point arithmetic used by sizing and statistics.
 *
 * The kernel module compiles this file, so there is no floating point:
 * logarithms use the bit-by-bit squaring method for log2, exponentials
 * use a table of 2^(2^-i).
 */
#include "kb_math.h"

/* 2^(2^-i) for i = 1..32, in Q62 */
static const u64 kb_exp2_tab[32] = {
	0x5a827999fcef3242ULL, 0x4c1bf828c6dc54b8ULL, 0x45cae0f1f545eb73ULL,
	0x42d561b3e6243d8aULL, 0x4166c34c5615d0ecULL, 0x40b268f9de0183baULL,
	0x4058f6a7ecccd5b6ULL, 0x402c6be96af2fb58ULL, 0x4016321b687027a8ULL,
	0x400b18178ba33b14ULL, 0x40058bce410147e8ULL, 0x4002c5d7bff71dafULL,
	0x400162e807ee7e5bULL, 0x4000b1730df6a524ULL, 0x400058b9497b8152ULL,
	0x40002c5c955dd701ULL, 0x4000162e46d6f26cULL, 0x40000b1722757b1bULL,
	0x4000058b90fd3e0cULL, 0x400002c5c86f3f26ULL, 0x40000162e433c79bULL,
	0x400000b17218edd0ULL, 0x40000058b90c3968ULL, 0x4000002c5c860d54ULL,
	0x400000162e4302d2ULL, 0x4000000b17218073ULL, 0x400000058b90bffcULL,
	0x40000002c5c85fefULL, 0x4000000162e42ff3ULL, 0x40000000b17217f9ULL,
	0x4000000058b90bfcULL, 0x400000002c5c85feULL,
};

#define KB_LN2_Q62	0x2c5c85fdf473de6bULL
#define KB_LOG2E_Q32	0x171547653ULL

static void kb_mul128(u64 a, u64 b, u64 *hi, u64 *lo)
{
#ifdef __SIZEOF_INT128__
	__uint128_t r = (__uint128_t)a * b;

	*hi = (u64)(r >> 64);
	*lo = (u64)r;
#else
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;

	*lo = (mid << 32) | (u32)ll;
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

u64 kb_mul_shift(u64 a, u64 b, unsigned int s)
{
	u64 hi, lo;

	kb_mul128(a, b, &hi, &lo);
	if (s >= 128)
		return 0;
	if (s >= 64)
		return hi >> (s - 64);
	if (s == 0)
		return hi ? U64_MAX : lo;
	if (hi >> s)
		return U64_MAX;
	return (hi << (64 - s)) | (lo >> s);
}

u64 kb_div128(u64 hi, u64 lo, u64 d)
{
	u64 q = 0, r = 0;
	int i;

	if (hi >= d)
		return U64_MAX;
	/* restoring long division, one bit at a time; not on a hot path */
	r = hi;
	for (i = 63; i >= 0; i--) {
		u64 top = r >> 63;

		r = (r << 1) | ((lo >> i) & 1);
		if (top || r >= d) {
			r -= d;
			q |= 1ULL << i;
		}
	}
	return q;
}

u64 kb_muldiv(u64 a, u64 b, u64 d)
{
	u64 hi, lo;

	kb_mul128(a, b, &hi, &lo);
	return kb_div128(hi, lo, d);
}

u64 kb_isqrt(u64 x)
{
	u64 r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

s64 kb_fx_ln(u64 x, unsigned int frac_bits)
{
	int msb, i;
	u64 y, frac = 0, ip_abs, r;
	s64 ip;

	if (!x)
		return -(1LL << 62);
	msb = kb_fls64(x) - 1;
	y = msb <= 62 ? x << (62 - msb) : x >> (msb - 62);
	/* y in [1, 2) as Q62; 40 fractional bits of log2(y) */
	for (i = 1; i <= 40; i++) {
		y = kb_mul_shift(y, y, 62);
		if (y >= (2ULL << 62)) {
			y >>= 1;
			frac |= 1ULL << (40 - i);
		}
	}
	ip = (s64)msb - (s64)frac_bits;
	ip_abs = ip < 0 ? (u64)-ip : (u64)ip;
	r = kb_mul_shift(ip_abs, KB_LN2_Q62, 30);
	return (ip < 0 ? -(s64)r : (s64)r) +
	       (s64)kb_mul_shift(frac, KB_LN2_Q62, 70);
}

u64 kb_fx_exp_q62(s64 x)
{
	u64 t, n, f, g, r = KB_Q62_ONE;
	int i;

	if (x >= 0)
		return KB_Q62_ONE;
	/* e^x = 2^-t, t = -x * log2(e) in Q32 */
	t = kb_mul_shift((u64)-x, KB_LOG2E_Q32, 32);
	n = t >> 32;
	f = t & 0xffffffffULL;
	if (n >= 64)
		return 0;
	if (!f)
		return KB_Q62_ONE >> n;
	/* 2^-f = 2^(1 - f) / 2 with 1 - f = g in (0, 1) */
	g = (1ULL << 32) - f;
	for (i = 1; i <= 32; i++)
		if (g & (1ULL << (32 - i)))
			r = kb_mul_shift(r, kb_exp2_tab[i - 1], 62);
	r >>= 1;
	return r >> n;
}

u64 kb_q62_pow(u64 base, u32 k)
{
	u64 r = KB_Q62_ONE;

	while (k) {
		if (k & 1)
			r = kb_mul_shift(r, base, 62);
		k >>= 1;
		if (k)
			base = kb_mul_shift(base, base, 62);
	}
	return r;
}

u32 kb_q62_to_ppb(u64 q)
{
	u64 v = kb_mul_shift(q, 1000000000ULL, 61);

	v = (v + 1) >> 1;
	return v > 1000000000ULL ? 1000000000U : (u32)v;
}

u64 kb_ppb_to_q62(u32 ppb)
{
	return kb_muldiv(ppb, KB_Q62_ONE, 1000000000ULL);
}

/* n < 2^24 (callers cap it) */
s64 kb_fx_lnfact(u64 n)
{
	s64 r = 0, ln_n, ln_2pin;
	u64 i;

	if (n < 32) {
		for (i = 2; i <= n; i++)
			r += kb_fx_ln(i, 0);
		return r;
	}
	/* Stirling: n ln n - n + ln(2 pi n) / 2 + 1 / (12 n) - 1 / (360 n^3) */
	ln_n = kb_fx_ln(n, 0);
	/* 2 pi in Q32 = 0x6487ed511 */
	ln_2pin = kb_fx_ln(0x6487ed511ULL, 32) + ln_n;
	r = (s64)n * ln_n - (s64)(n << 32) + ln_2pin / 2;
	r += (s64)kb_div64(KB_Q32_ONE, 12 * n);
	if (n < (1ULL << 16))
		r -= (s64)kb_div64(KB_Q32_ONE, 360 * n * n * n);
	return r;
}
