// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: parameters, sizing and the FPR models (fixed point).
 *
 * classic model:  (1 - e^(-kn/m))^k
 * block model:    sum over c of Poisson(c; lambda) * (1 - (1 - 1/B)^(kc))^k
 *                 with lambda = n / nblocks keys per block and B the bits
 *                 (counters) per block: each block is a small classic
 *                 filter holding a Poisson number of keys.
 */
#include "kb_internal.h"

#define KB_LN2_Q32		0xb17217f8ULL
#define KB_INV_LN2SQ_Q32	0x214d498f8ULL	/* 1 / (ln 2)^2 */
#define KB_LN_1E9_Q32		0x14b927f32cLL	/* ln(10^9) */
#define KB_ITEMS_MAX		KB_M_MAX

/*
 * The kind's geometry, from its ops (kb_core.h).  An unknown kind gets
 * what these answered for one before they were read from the ops; the
 * callers reject it anyway (kb_params_check(), the sizers).
 */
static u32 kb_kind_kmax(u32 kind)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);

	return o ? o->k_max : KB_K_MAX;
}

static u32 kb_kind_kmin(u32 kind)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);

	return o ? o->k_min : 1;
}

/* largest m of the kind */
static u64 kb_kind_mmax(u32 kind)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);

	return o ? o->m_max : KB_M_MAX;
}

static u64 kb_kind_granule(u32 kind)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);

	return o ? o->granule : 8;
}

static u64 kb_bytes_for(u32 kind, u64 m)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);

	return o ? o->payload_bytes(m) : m / 8 + 1;
}

int kb_params_init(struct kb_params *p, u32 kind)
{
	memset(p, 0, sizeof(*p));
	if (kind > KB_KIND_MAX)
		return -EINVAL;
	p->kind = kind;
	p->hash = kb_kind_default_hash(kind);
	p->key_type = KB_KEY_BYTES;
	return 0;
}

u32 kb_kind_default_hash(u32 kind)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);

	return o ? o->default_hash : KB_HASH_XXH64;
}

bool kb_kind_hash_ok(u32 kind, u32 hash)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);

	if (!o)
		return hash == KB_HASH_XXH64 || hash == KB_HASH_SIPHASH;
	return hash < 32 && ((o->hashes >> hash) & 1);
}

u64 kb_params_payload_bytes(const struct kb_params *p)
{
	return kb_bytes_for(p->kind, p->m);
}

static int kb_check_plen(const struct kb_params *p)
{
	bool v4 = p->key_type == KB_KEY_NET4 || p->key_type == KB_KEY_NET;
	bool v6 = p->key_type == KB_KEY_NET6 || p->key_type == KB_KEY_NET;

	if (!kb_key_type_is_net(p->key_type))
		return (p->plen4 | p->plen6[0] | p->plen6[1] | p->plen6[2]) ?
			-EINVAL : 0;
	if (!v4 && p->plen4)
		return -EINVAL;
	if (!v6 && (p->plen6[0] | p->plen6[1] | p->plen6[2]))
		return -EINVAL;
	if (p->plen4 >> 33)
		return -EINVAL;
	if (p->plen6[2] >> 1)
		return -EINVAL;
	return 0;
}

int kb_params_check(const struct kb_params *p, u64 max_bytes,
		    enum kb_img_err *why)
{
	enum kb_img_err w = KB_IMG_OK;
	u64 g;

	if (p->kind > KB_KIND_MAX)
		w = KB_IMG_BAD_KIND;
	else if (p->key_type > KB_KEY_MAX)
		w = KB_IMG_BAD_KEY_TYPE;
	else if (p->hash > KB_HASH_MAX)
		w = KB_IMG_BAD_HASH;
	else if (!kb_kind_hash_ok(p->kind, p->hash))
		w = KB_IMG_HASH_KIND;
	else if (p->k < kb_kind_kmin(p->kind) || p->k > kb_kind_kmax(p->kind))
		w = KB_IMG_BAD_K;
	if (w)
		goto bad;
	g = kb_kind_granule(p->kind);
	if (!p->m || kb_mod64(p->m, g) || p->m > kb_kind_mmax(p->kind))
		w = KB_IMG_BAD_M;
	else if (p->fpr_ppb >= KB_FPR_PPB_ONE)
		w = KB_IMG_BAD_FPR;
	else if (p->flags)
		w = KB_IMG_BAD_FLAGS;
	else if (((p->hash == KB_HASH_LEVELDB || p->hash == KB_HASH_MURMUR3) &&
		  (p->seed[0] | p->seed[1])) ||
		 (p->hash == KB_HASH_XXH64 && p->seed[1]))
		w = KB_IMG_BAD_SEED;
	else if (kb_check_plen(p))
		w = KB_IMG_BAD_PLEN;
	if (w)
		goto bad;
	if (max_bytes && kb_params_payload_bytes(p) > max_bytes) {
		if (why)
			*why = KB_IMG_TOO_BIG;
		return -E2BIG;
	}
	if (why)
		*why = KB_IMG_OK;
	return 0;
bad:
	if (why)
		*why = w;
	return -EINVAL;
}

int kb_params_validate(const struct kb_params *p, u64 max_bytes)
{
	return kb_params_check(p, max_bytes, NULL);
}

/* ---- models ---- */

/* (1 - e^(kc ln(1 - 1/B)))^k in Q62 */
static u64 kb_block_fpr(s64 ln1mb, u32 k, u64 c)
{
	u64 g;

	if (!c)
		return 0;
	g = kb_fx_exp_q62(ln1mb * (s64)(k * c));
	return kb_q62_pow(KB_Q62_ONE - g, k);
}

static u64 kb_model_block(u64 nblocks, u32 bpb, u32 k, u64 n)
{
	s64 ln1mb = kb_fx_ln(bpb - 1, 0) - kb_fx_ln(bpb, 0);
	u64 lam, lam_int, sd, c, c_lo, c_hi, sum = 0;
	s64 lnlam, lnf;

	lam = kb_muldiv(n, 1ULL << 32, nblocks);
	lam_int = lam >> 32;
	if (lam_int >= (1ULL << 16))
		return kb_block_fpr(ln1mb, k, lam_int);
	lnlam = kb_fx_ln(lam, 32);
	sd = kb_isqrt(lam_int) + 1;
	c_lo = lam_int > 10 * sd + 10 ? lam_int - 10 * sd - 10 : 1;
	c_hi = lam_int + 10 * sd + 10;
	lnf = kb_fx_lnfact(c_lo);
	for (c = c_lo; c <= c_hi; c++) {
		s64 lp;

		if (c > c_lo)
			lnf += kb_fx_ln(c, 0);
		lp = -(s64)lam + (s64)c * lnlam - lnf;
		sum += kb_mul_shift(kb_fx_exp_q62(lp),
				    kb_block_fpr(ln1mb, k, c), 62);
	}
	return sum > KB_Q62_ONE ? KB_Q62_ONE : sum;
}

/* kinds made of blocks: the block model; the others: the classic one */
u64 kb_model_fpr_q62(u32 kind, u64 m, u32 k, u64 n)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(kind);
	u32 b;
	u64 x;

	if (!n)
		return 0;
	if (!m || !k)
		return KB_Q62_ONE;
	if (n > (1ULL << 56))
		n = 1ULL << 56;
	if (!o)
		return KB_Q62_ONE;
	b = o->block_units;
	if (b) {
		if (m < b)
			return KB_Q62_ONE;
		return kb_model_block(kb_div64(m, b), b, k, n);
	}
	x = kb_muldiv((u64)k * n, 1ULL << 32, m);
	if (x >= (1ULL << 40))
		return KB_Q62_ONE;
	return kb_q62_pow(KB_Q62_ONE - kb_fx_exp_q62(-(s64)x), k);
}

u32 kb_model_fpr_ppb(u32 kind, u64 m, u32 k, u64 n)
{
	return kb_q62_to_ppb(kb_model_fpr_q62(kind, m, k, n));
}

/* round(m / n * ln 2) clamped to 1..kmax */
static u32 kb_classic_k(u64 m, u64 n, u32 kmax)
{
	u64 k;

	if (!n)
		return 1;
	k = (kb_muldiv(m, KB_LN2_Q32, n) + (1ULL << 31)) >> 32;
	if (k < 1)
		k = 1;
	return k > kmax ? kmax : (u32)k;
}

u32 kb_model_best_k(u32 kind, u64 m, u64 n)
{
	u32 kmax = kb_kind_kmax(kind), k;
	u64 f, f2;

	if (kind == KB_KIND_GOZERO)
		return KB_GOZERO_K;
	k = kb_classic_k(m, n, kmax);
	if (kind == KB_KIND_CLASSIC || !n)
		return k;
	/* the block model's FPR is unimodal in k: walk from the classic k */
	f = kb_model_fpr_q62(kind, m, k, n);
	if (k > 1) {
		f2 = kb_model_fpr_q62(kind, m, k - 1, n);
		if (f2 <= f) {
			do {
				k--;
				f = f2;
				if (k == 1)
					break;
				f2 = kb_model_fpr_q62(kind, m, k - 1, n);
			} while (f2 <= f);
			return k;
		}
	}
	while (k < kmax) {
		f2 = kb_model_fpr_q62(kind, m, k + 1, n);
		if (f2 >= f)
			break;
		k++;
		f = f2;
	}
	return k;
}

/* ---- sizing ---- */

static int kb_size_ok(u32 kind, u64 m, u64 max_bytes)
{
	if (m > kb_kind_mmax(kind))
		return -E2BIG;
	if (max_bytes && kb_bytes_for(kind, m) > max_bytes)
		return -E2BIG;
	return 0;
}

/* one model evaluation: up to a few thousand terms per k tried */
static bool kb_blocks_meet(u32 kind, u64 nb, u64 bpb, u64 n, u64 target,
			   u32 *k)
{
	kb_cond_resched();
	*k = kb_model_best_k(kind, nb * bpb, n);
	return kb_model_fpr_q62(kind, nb * bpb, *k, n) <= target;
}

/*
 * gozero, k fixed at 14: the smallest m whose classic-model FPR meets p,
 * bisected from Guava's m (the optimum for the best k, so a lower bound).
 */
static int kb_gozero_size(u64 n, u32 fpr_ppb, u64 guava, u64 max_bytes,
			  u64 *m)
{
	u64 target = kb_ppb_to_q62(fpr_ppb), lo, hi = KB_GOZERO_BITS_MAX;

	lo = guava / 2;
	if (lo >= hi ||
	    kb_model_fpr_q62(KB_KIND_GOZERO, hi, KB_GOZERO_K, n) > target)
		return -E2BIG;
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;

		if (kb_model_fpr_q62(KB_KIND_GOZERO, mid, KB_GOZERO_K, n) <=
		    target)
			hi = mid;
		else
			lo = mid;
	}
	*m = hi;
	return kb_size_ok(KB_KIND_GOZERO, hi, max_bytes);
}

/*
 * Size for items keys with a per-probe FPR of fpr_ppb; the caller records
 * what was asked for (p->fpr_ppb) and the capacity.
 */
static int kb_size_probe(struct kb_params *p, u64 items, u32 fpr_ppb,
			 u64 max_bytes)
{
	s64 lnp;
	u64 c, bits, bpb, nb, lo, hi, target, lim;
	u32 k, khi;
	int ret;

	if (p->kind > KB_KIND_MAX || !items || !fpr_ppb ||
	    fpr_ppb >= KB_FPR_PPB_ONE)
		return -EINVAL;
	if (items > KB_ITEMS_MAX)
		return -E2BIG;
	/* Guava: m = -n ln p / (ln 2)^2 (truncated) */
	lnp = kb_fx_ln(fpr_ppb, 0) - KB_LN_1E9_Q32;
	c = kb_mul_shift((u64)-lnp, KB_INV_LN2SQ_Q32, 32);
	bits = kb_mul_shift(items, c, 32);
	if (p->kind == KB_KIND_CLASSIC) {
		k = kb_classic_k(bits, items, KB_CLASSIC_K_MAX);
		bits = bits < 64 ? 64 : (bits + 7) / 8 * 8;
		ret = kb_size_ok(p->kind, bits, max_bytes);
		if (ret)
			return ret;
		p->m = bits;
		p->k = k;
		return 0;
	}
	if (p->kind == KB_KIND_GOZERO) {
		ret = kb_gozero_size(items, fpr_ppb, bits, max_bytes, &bits);
		if (ret)
			return ret;
		p->m = bits;
		p->k = KB_GOZERO_K;
		return 0;
	}
	bpb = kb_kind_granule(p->kind);
	/*
	 * The block model is the mean over random hashes; a real filter sits
	 * a little off it: 1M IPv4 addresses from part of the address space
	 * measured 1.5-3% over it (test_core_fpr).  Sizing for 95% of p keeps
	 * the FPR asked for a bound, for about 1% more memory.
	 */
	target = kb_ppb_to_q62(fpr_ppb);
	target -= target / 20;
	lim = kb_div64(KB_M_MAX, bpb);
	if (items <= kb_div64(lim, KB_BPK_MAX) * bpb)
		lim = kb_div64(items * KB_BPK_MAX, bpb) + 1;
	nb = kb_div64(bits, bpb) + 1;
	if (nb > lim)
		nb = lim;
	/* grow until the model meets p, then bisect (lo fails, hi meets) */
	lo = 0;
	hi = nb;
	while (!kb_blocks_meet(p->kind, hi, bpb, items, target, &khi)) {
		if (hi >= lim)
			return lim * bpb >= KB_M_MAX ? -E2BIG : -ERANGE;
		/* the answer is over hi, which is already too big */
		if (kb_size_ok(p->kind, hi * bpb, max_bytes))
			return -E2BIG;
		lo = hi;
		hi += hi / 8 + 1;
		if (hi > lim)
			hi = lim;
	}
	if (!lo) {
		lo = hi;
		do {
			hi = lo;
			lo /= 2;
		} while (lo && kb_blocks_meet(p->kind, lo, bpb, items, target,
					      &khi));
		kb_blocks_meet(p->kind, hi, bpb, items, target, &khi);
	}
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;

		if (kb_blocks_meet(p->kind, mid, bpb, items, target, &k)) {
			hi = mid;
			khi = k;
		} else {
			lo = mid;
		}
	}
	ret = kb_size_ok(p->kind, hi * bpb, max_bytes);
	if (ret)
		return ret;
	p->m = hi * bpb;
	p->k = khi;
	return 0;
}

int kb_params_from_fpr_plens(struct kb_params *p, u64 items, u32 fpr_ppb,
			     u32 nplens, u64 max_bytes)
{
	u32 probe;
	int ret;

	if (p->kind > KB_KIND_MAX || !items || !fpr_ppb ||
	    fpr_ppb >= KB_FPR_PPB_ONE || !nplens || nplens > KB_PLENS_MAX)
		return -EINVAL;
	/*
	 * A lookup tests nplens keys and answers "maybe" if one does: its
	 * FPR 1 - (1 - q)^L is at most L q, so q = P / L per probe meets P
	 * per lookup (and costs next to nothing over the exact root).
	 */
	probe = fpr_ppb / nplens;
	ret = kb_size_probe(p, items, probe ? probe : 1, max_bytes);
	if (ret)
		return ret;
	p->items = items;
	p->fpr_ppb = fpr_ppb;
	return 0;
}

int kb_params_from_fpr(struct kb_params *p, u64 items, u32 fpr_ppb,
		       u64 max_bytes)
{
	return kb_params_from_fpr_plens(p, items, fpr_ppb, 1, max_bytes);
}

u32 kb_params_nplens(const struct kb_params *p)
{
	u32 v4, v6;

	if (!kb_key_type_is_net(p->key_type))
		return 1;
	v4 = kb_popcount64(KB_READ_ONCE(p->plen4));
	v6 = kb_popcount64(KB_READ_ONCE(p->plen6[0])) +
	     kb_popcount64(KB_READ_ONCE(p->plen6[1])) +
	     kb_popcount64(KB_READ_ONCE(p->plen6[2]));
	return v4 > v6 ? v4 : v6;
}

u64 kb_fpr_lookup_q62(u64 probe_q62, u32 nplens)
{
	if (nplens <= 1 || !probe_q62)
		return probe_q62;
	if (probe_q62 >= KB_Q62_ONE)
		return KB_Q62_ONE;
	return KB_Q62_ONE - kb_q62_pow(KB_Q62_ONE - probe_q62, nplens);
}

int kb_params_from_bpk(struct kb_params *p, u64 items, u32 bits_per_key,
		       u64 max_bytes)
{
	u64 bits, bpb, n;
	u32 k;
	int ret;

	if (p->kind > KB_KIND_MAX || bits_per_key < 1 ||
	    bits_per_key > KB_BPK_MAX)
		return -EINVAL;
	if (items > KB_ITEMS_MAX)
		return -E2BIG;
	bits = items * bits_per_key;
	if (p->kind == KB_KIND_CLASSIC) {
		/* LevelDB: k = (size_t)(bits_per_key * 0.69), exact for the
		 * integers that are not clamped to 30 (bits_per_key <= 44)
		 */
		k = bits_per_key * 69 / 100;
		k = k < 1 ? 1 : k > KB_CLASSIC_K_MAX ? KB_CLASSIC_K_MAX : k;
		bits = bits < 64 ? 64 : (bits + 7) / 8 * 8;
	} else if (p->kind == KB_KIND_GOZERO) {
		k = KB_GOZERO_K;
		bits = bits ? bits : bits_per_key;
	} else {
		bpb = kb_kind_granule(p->kind);
		bits = bits ? kb_div64(bits + bpb - 1, bpb) * bpb : bpb;
		n = items ? items : kb_div64(bits, bits_per_key);
		k = kb_model_best_k(p->kind, bits, n ? n : 1);
	}
	ret = kb_size_ok(p->kind, bits, max_bytes);
	if (ret)
		return ret;
	p->m = bits;
	p->k = k;
	p->items = items;
	p->fpr_ppb = 0;
	return 0;
}

int kb_params_from_mk(struct kb_params *p, u64 m, u32 k, u64 max_bytes)
{
	if (p->kind > KB_KIND_MAX || !m || kb_mod64(m, kb_kind_granule(p->kind)) ||
	    k < kb_kind_kmin(p->kind) || k > kb_kind_kmax(p->kind))
		return -EINVAL;
	if (kb_size_ok(p->kind, m, max_bytes))
		return -E2BIG;
	p->m = m;
	p->k = k;
	return 0;
}
