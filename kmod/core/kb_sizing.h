/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter core's sizing: parameters from a target FPR, bits per key or
 * explicit m and k, their validation, and the FPR models they rest on
 * (kb_sizing.c, kb_math.c).  Part of kb_core.h, which includes it after
 * struct kb_params: include kb_core.h, not this.
 */
#ifndef _KB_SIZING_H
#define _KB_SIZING_H

/*
 * Set defaults for kind: hash (kb_kind_default_hash()), key type
 * BYTES, everything else zero.  -EINVAL for an unknown kind.
 */
int kb_params_init(struct kb_params *p, u32 kind);

/*
 * Size for n items at target FPR fpr_ppb (1..999999999).  classic: Guava's
 * m = -n ln p / (ln 2)^2, k = max(1, round(m / n ln 2)), m then rounded up
 * to whole bytes and >= 64 (LevelDB); blocked/counting: the smallest whole
 * number of blocks whose block-model FPR is <= 95% of p (headroom for real
 * keys, which sit a little off the model), with the best k for it;
 * gozero: k = 14 and the smallest m whose classic-model FPR is <= p.
 * Sets p->items and p->fpr_ppb.  max_bytes: caller's limit on the payload
 * (0 = only the core's hard limit).  Errors: -EINVAL (items == 0, fpr_ppb
 * out of range), -E2BIG, -ERANGE.
 */
int kb_params_from_fpr(struct kb_params *p, u64 items, u32 fpr_ppb,
		       u64 max_bytes);

/*
 * The same for a net filter whose lookups test nplens prefix lengths
 * (1..KB_PLENS_MAX): fpr_ppb is the per-lookup target, each probe is sized
 * for fpr_ppb / nplens (at least 1 ppb).  p->fpr_ppb = fpr_ppb.
 * kb_params_from_fpr() is this with nplens = 1.
 */
#define KB_PLENS_MAX	129	/* /0../128: the most a lookup tests */
int kb_params_from_fpr_plens(struct kb_params *p, u64 items, u32 fpr_ppb,
			     u32 nplens, u64 max_bytes);

/*
 * The prefix lengths a lookup in a filter with p tests: for the net key
 * types the most of either family (an address is of one), 0 while none
 * is held; 1 for the other key types.
 */
u32 kb_params_nplens(const struct kb_params *p);

/*
 * The FPR of a lookup of nplens independent probes, each of FPR probe_q62:
 * 1 - (1 - probe)^nplens (Q62; nplens 0 or 1: probe_q62).
 */
u64 kb_fpr_lookup_q62(u64 probe_q62, u32 nplens);

/*
 * Size from bits per key (1..KB_BPK_MAX; counting: counters per key).
 * classic: exactly LevelDB: m = max(n * bpk, 64) rounded up to bytes,
 * k = floor(bpk * 0.69) clamped to 1..30.  blocked/counting: m = n * bpk
 * rounded up to whole blocks (at least one), k = the block model's best k.
 * gozero: m = n * bpk (bpk if n = 0), k = 14.
 * items may be 0.  Sets p->items; p->fpr_ppb = 0.  -EINVAL, -E2BIG.
 */
int kb_params_from_bpk(struct kb_params *p, u64 items, u32 bits_per_key,
		       u64 max_bytes);

/*
 * Explicit m (bits; counting: counters) and k.  m must be > 0 and a
 * multiple of the kind's granule (blocked 512, counting 128, classic 8,
 * gozero 1, up to KB_GOZERO_BITS_MAX, with k = 14).
 * p->items and p->fpr_ppb are left as they are (set p->items to get an
 * expected FPR in the stats).  -EINVAL (m == 0, not a multiple, k out of
 * range), -E2BIG.
 */
int kb_params_from_mk(struct kb_params *p, u64 m, u32 k, u64 max_bytes);

/*
 * Full consistency check of params (kind, hash valid for kind, key type,
 * k range, m granule and limits, seeds zero where unused, prefix bitmaps
 * zero for non-net types and no bits past 32/128, flags zero, fpr_ppb
 * range).  -EINVAL or -E2BIG.
 */
int kb_params_validate(const struct kb_params *p, u64 max_bytes);

/* the kind's default (classic, gozero: only) hash; whether hash fits kind */
u32 kb_kind_default_hash(u32 kind);
bool kb_kind_hash_ok(u32 kind, u32 hash);

/*
 * payload bytes for valid params (blocked m/8, classic m/8+1, counting m/2,
 * gozero ceil(m/8))
 */
u64 kb_params_payload_bytes(const struct kb_params *p);

/*
 * Model FPR (ppb, rounded) for kind with m bits/counters, k probes and n
 * keys: classic (1 - e^(-kn/m))^k; blocked/counting: sum over the Poisson
 * number of keys c in a block of the per-block classic FPR
 * (1 - (1 - 1/B)^(kc))^k, B = 512 bits or 128 counters.  Fixed point.
 * For classic filters over 2^17 bits LevelDB's probe scheme measures
 * 1.5-2x the textbook value (see userspace/tests/test_core_fpr.c): a lower
 * bound there.
 */
u32 kb_model_fpr_ppb(u32 kind, u64 m, u32 k, u64 n);

/* Same in units of 2^-62 (for callers that need more precision). */
u64 kb_model_fpr_q62(u32 kind, u64 m, u32 k, u64 n);

/* k with the smallest model FPR for kind, m, n (1..kind's k max) */
u32 kb_model_best_k(u32 kind, u64 m, u64 n);

#endif /* _KB_SIZING_H */
