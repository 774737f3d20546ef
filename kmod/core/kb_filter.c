// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: filter setup, operation dispatch and statistics.
 */
#include "kb_internal.h"

/*
 * the kinds' cold operations, by kind: every kind of the ABI has some
 * (KB_KINDS() holds each once)
 */
#define KB_KIND_OPS_ENTRY_(name, NAME, ...)				\
	[KB_KIND_##NAME] = &kb_##name##_ops,

static const struct kb_kind_ops *const kb_kinds[] = {
	KB_KINDS(KB_KIND_OPS_ENTRY_)
};

_Static_assert(KB_NELEM(kb_kinds) == KB_KIND_MAX + 1,
	       "kb_kinds[] lacks a kind of uapi/linux/kbloom.h");

const struct kb_kind_ops *kb_kind_ops_get(u32 kind)
{
	return kind < KB_NELEM(kb_kinds) ? kb_kinds[kind] : NULL;
}

/*
 * The dispatch's fallbacks (kb_core.h, "kind dispatch"): out of line and
 * cold, they cost the inline dispatch nothing but a compare.
 */
bool kb_kind_bad(const struct kb_filter *f)
{
	KB_WARN_ONCE(1, "kbloom: filter of unknown kind %u", f->p.kind);
	return true;
}

u32 kb_kind_bad_many(const struct kb_filter *f, u32 n, u64 *bitmap,
		     bool maybe)
{
	u32 i;

	kb_kind_bad(f);
	for (i = 0; bitmap && i < n; i += 64)
		bitmap[i / 64] = !maybe ? 0 :
				 n - i >= 64 ? ~0ULL : (1ULL << (n - i)) - 1;
	return maybe ? n : 0;
}

/*
 * A word at a time when a is 8-byte aligned (always in the kernel;
 * userspace callers may bind any address to a bytewise kind).
 */
u64 kb_bytes_popcount(const void *a, u64 n)
{
	const u8 *b = a;
	const u64 *w = a;
	u64 i = 0, s = 0;

	if (!((unsigned long)a & 7)) {
		for (; i + 8 <= n; i += 8) {
			s += kb_popcount64(KB_READ_ONCE(w[i / 8]));
			if (!((i / 8 + 1) % KB_RESCHED_WORDS))
				kb_cond_resched();
		}
	}
	for (; i < n; i++)
		s += kb_popcount64(KB_READ_ONCE(b[i]));
	return s;
}

u64 kb_hash_sip(const struct kb_filter *f, const void *key, u32 len)
{
	return kb_hash_sip_i(f, key, len);
}

/* the other fixed key sizes (net4 5, net6 17) unrolled too */
u64 kb_xxh64_other(const void *key, u32 len, u64 seed)
{
	switch (len) {
	case 5:
		return kb_xxh64_short(key, 5, seed);
	case 17:
		return kb_xxh64_short(key, 17, seed);
	default:
		return kb_xxh64(key, len, seed);
	}
}

static int kb_filter_bind(struct kb_filter *f, const struct kb_params *p,
			  void *payload, u64 payload_len)
{
	const struct kb_kind_ops *ops;
	int ret = kb_params_check(p, 0, NULL);

	if (ret)
		return ret;
	if (!payload || payload_len != kb_params_payload_bytes(p))
		return -EINVAL;
	if (!kb_kind_bytewise(p->kind) && ((unsigned long)payload & 7))
		return -EINVAL;
	/* only kinds with ops (kb_core.h, "kind dispatch") */
	ops = kb_kind_ops_get(p->kind);
	if (!ops)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->p = *p;
	f->ops = ops;
	f->payload = payload;
	f->bytes = payload_len;
	if (ops->block_units)
		f->nblocks = kb_div64(p->m, ops->block_units);
	else
		f->cbits = p->m <= U32_MAX ? (u32)p->m : 0;
	return 0;
}

int kb_filter_init_zeroed(struct kb_filter *f, const struct kb_params *p,
			  void *payload, u64 payload_len)
{
	int ret = kb_filter_bind(f, p, payload, payload_len);

	if (ret)
		return ret;
	if (p->kind == KB_KIND_CLASSIC)
		((u8 *)payload)[payload_len - 1] = (u8)p->k;
	return 0;
}

int kb_filter_init(struct kb_filter *f, const struct kb_params *p,
		   void *payload, u64 payload_len)
{
	int ret = kb_filter_bind(f, p, payload, payload_len);

	if (ret)
		return ret;
	kb_filter_clear(f);
	if (p->kind == KB_KIND_CLASSIC)
		((u8 *)payload)[payload_len - 1] = (u8)p->k;
	return 0;
}

int kb_filter_attach(struct kb_filter *f, const struct kb_params *p,
		     void *payload, u64 payload_len)
{
	int ret = kb_filter_bind(f, p, payload, payload_len);
	u64 *w = payload;
	u64 i;

	if (ret)
		return ret;
	if (p->kind == KB_KIND_CLASSIC)
		return ((u8 *)payload)[payload_len - 1] == p->k ? 0 : -EINVAL;
	if (p->kind == KB_KIND_GOZERO)
		return kb_image_check_payload(p, payload, payload_len, NULL);
	/* payload words are little-endian in images */
	if (KB_BIG_ENDIAN) {
		for (i = 0; i < payload_len / 8; i++) {
			w[i] = kb_swab64(w[i]);
			if (!((i + 1) % KB_RESCHED_WORDS))
				kb_cond_resched();
		}
	}
	return 0;
}

int kb_filter_attach_ro(struct kb_filter *f, const struct kb_params *p,
			const void *payload, u64 payload_len)
{
	/* bind stores the pointer only: nothing below writes through it */
	int ret = kb_filter_bind(f, p, (void *)payload, payload_len);

	if (ret)
		return ret;
	return kb_image_check_payload(p, payload, payload_len, NULL);
}

/*
 * Whole words where the payload is aligned (classic: all but the trailing
 * k byte and, in userspace, an unaligned head), yielding every
 * KB_RESCHED_WORDS words: a flush of a big filter is seconds of stores.
 */
void kb_filter_clear(struct kb_filter *f)
{
	u64 n = f->p.kind == KB_KIND_CLASSIC ? f->bytes - 1 : f->bytes;
	u8 *b = f->payload;
	u64 *w;
	u64 i = 0, j;

	while (i < n && ((unsigned long)(b + i) & 7))
		KB_WRITE_ONCE(b[i++], 0);
	w = (u64 *)(b + i);
	for (j = 0; i + 8 <= n; i += 8, j++) {
		KB_WRITE_ONCE(w[j], 0);
		if (!((j + 1) % KB_RESCHED_WORDS))
			kb_cond_resched();
	}
	for (; i < n; i++)
		KB_WRITE_ONCE(b[i], 0);
	if (f->fill) {
		f->fill->bits_set = 0;
		f->fill->fpr_hi = 0;
		f->fill->fpr_lo = 0;
	}
}

/* a term per count of a block, 0..B; none for kinds not made of blocks */
u64 kb_fill_bytes(const struct kb_params *p)
{
	const struct kb_kind_ops *o = kb_kind_ops_get(p->kind);
	u64 n = o && o->block_units ? o->block_units + 1 : 0;

	return sizeof(struct kb_fill) + n * sizeof(u64);
}

/*
 * Zero counters and term[u] = (u / B)^k in Q62 for u = 0..B, the per-block
 * term of KB_DEFINE_BLOCK_STATS (2^shift = 2^62 / B, B a power of two);
 * none for classic.
 */
static void kb_fill_reset(struct kb_fill *fl, const struct kb_filter *f)
{
	u32 u, shift = 62, b;

	for (b = 1; b < f->ops->block_units; b *= 2)
		shift--;
	memset(fl, 0, sizeof(*fl));
	fl->nterms = (u32)((kb_fill_bytes(&f->p) - sizeof(*fl)) / sizeof(u64));
	for (u = 0; u < fl->nterms; u++)
		fl->term[u] = u ? kb_q62_pow((u64)u << shift, f->p.k) : 0;
}

void kb_fill_init(struct kb_fill *fill, struct kb_filter *f)
{
	kb_fill_reset(fill, f);
	f->ops->fill_scan(f, fill);
	f->fill = fill;
}

/*
 * One word of a merge: its value before.  The last word of a bytewise
 * payload may run past f->bytes (classic's k byte is inside, gozero's
 * last byte may not be): those bytes are neither read nor written, a byte
 * at a time under the writer's serialization (the packet path adds to
 * blocked filters only, whose payload is whole words).
 */
static u64 kb_merge_word(struct kb_filter *f, u64 w, u64 m, bool apply)
{
	u64 *pw = (u64 *)f->payload + w;
	u8 mb[8], *pb = (u8 *)pw, ob[8] = { 0 };
	u64 i, room = f->bytes - w * 8, old;

	if (room >= 8) {
		if (apply && m)
			return kb_atomic_fetch_or64(pw, m);
		return KB_READ_ONCE(*pw);
	}
	memcpy(mb, &m, 8);
	for (i = 0; i < room; i++) {
		ob[i] = KB_READ_ONCE(pb[i]);
		if (apply && (mb[i] & ~ob[i]))
			KB_WRITE_ONCE(pb[i], (u8)(ob[i] | mb[i]));
	}
	memcpy(&old, ob, 8);
	return old;
}

u64 kb_filter_merge_words(struct kb_filter *f, u64 w, const u64 *mask, u64 n,
			  struct kb_fill *fl, bool apply)
{
	u32 per = f->ops->block_units ? 8 : 1;
	u64 i, total = 0;

	if (f->p.kind == KB_KIND_COUNTING)
		return 0;
	for (i = 0; i < n; i += per) {
		u32 j, nnew = 0, used = 0;

		for (j = 0; j < per && i + j < n; j++) {
			u64 m = mask[i + j];
			u64 old = kb_merge_word(f, w + i + j, m, apply);

			nnew += kb_popcount64(m & ~old);
			used += kb_popcount64(m | old);
		}
		if (!nnew)
			continue;
		total += nnew;
		if (!fl)
			continue;
		if (per > 1)
			/* the block's count after the ORs, as the adds' */
			kb_fill_move(fl, used - nnew, used);
		else
			fl->bits_set += nnew;
	}
	return total;
}

void kb_fill_init_empty(struct kb_fill *fill, struct kb_filter *f)
{
	kb_fill_reset(fill, f);
	f->fill = fill;
}

void kb_filter_add(struct kb_filter *f, const void *key, u32 len)
{
	struct kb_key k = { key, len };

	/* no one-hash scheme (kb_core.h): a batch of one */
	if (f->ops->hashless)
		kb_filter_add_many(f, &k, 1);
	else
		kb_filter_add_hash(f, kb_filter_hash(f, key, len));
}

bool kb_filter_test_and_add(struct kb_filter *f, const void *key, u32 len)
{
	struct kb_key key1 = { key, len };
	u64 h, r;
	bool was;

	if (f->ops->hashless)
		return kb_filter_test_and_add_many(f, &key1, 1, &r);
	h = kb_filter_hash(f, key, len);
	was = kb_filter_test_hash(f, h);

	/* counting filters count every add, so that deletes stay exact */
	if (!was || f->ops->del)
		kb_filter_add_hash(f, h);
	return !was;
}

/* deletes are counting's, through its ops: a control-plane operation */
int kb_filter_del(struct kb_filter *f, const void *key, u32 len)
{
	u64 h;

	if (!f->ops->del)
		return -EOPNOTSUPP;
	h = kb_filter_hash(f, key, len);
	if (unlikely(f->fill))
		return f->ops->del_fill(f, h);
	return f->ops->del(f, h);
}

u32 kb_filter_probes(const struct kb_filter *f, const void *key, u32 len,
		     u64 *pos)
{
	return f->ops->probes(f, key, len, pos);
}

int kb_filter_del_many(struct kb_filter *f, const struct kb_key *keys, u32 n,
		       u64 *bitmap)
{
	if (!f->ops->del_many)
		return -EOPNOTSUPP;
	return (int)f->ops->del_many(f, keys, n, bitmap);
}

/* the statistics from the set bits x and the FPR estimate est_q62 */
static void kb_stats_from(const struct kb_filter *f, u64 x, u64 est_q62,
			  struct kb_stats *st)
{
	const struct kb_params *p = &f->p;
	u32 l;

	memset(st, 0, sizeof(*st));
	st->bytes = f->bytes;
	st->m = p->m;
	st->k = p->k;
	/*
	 * What a configured FPR promises is per lookup, and a lookup in a
	 * net filter tests one key per prefix length held: the estimates
	 * are of that many probes (an empty net filter's as of one)
	 */
	st->nplens = kb_params_nplens(p);
	l = st->nplens ? st->nplens : 1;
	if (p->items)
		st->expected_fpr_ppb = kb_q62_to_ppb(kb_fpr_lookup_q62(
			kb_model_fpr_q62(p->kind, p->m, p->k, p->items), l));
	st->bits_set = x;
	st->fill_ppm = (u32)kb_muldiv(x, 1000000, p->m);
	if (x >= p->m) {
		st->est_items = U64_MAX;
	} else if (x) {
		/* Swamidass-Baldi: -(m / k) ln(1 - X / m) */
		s64 l = kb_fx_ln(p->m, 0) - kb_fx_ln(p->m - x, 0);

		/* rounded to nearest: ln's last-bit errors would turn 2.0
		 * into 1.99 and a floor into 1
		 */
		st->est_items = (kb_muldiv(p->m, (u64)l, (u64)p->k << 31) + 1) / 2;
	}
	st->est_fpr_ppb = kb_q62_to_ppb(kb_fpr_lookup_q62(est_q62, l));
	/* FPR criterion with 5% slack: a filter filled to exactly its
	 * capacity sits at or under its target FPR (blocked and counting
	 * are sized for 95% of it) give or take sampling noise
	 */
	if ((p->items && st->est_items > p->items) ||
	    (p->fpr_ppb &&
	     st->est_fpr_ppb > (u64)p->fpr_ppb + p->fpr_ppb / 20))
		st->over_capacity = 1;
}

void kb_filter_stats(const struct kb_filter *f, struct kb_stats *st)
{
	kb_stats_from(f, f->ops->bits_set(f), f->ops->est_fpr_q62(f), st);
}

void kb_filter_stats_fill(const struct kb_filter *f, struct kb_stats *st)
{
	const struct kb_fill *fl = f->fill;
	u64 x = fl->bits_set, q;

	if (kb_kind_bytewise(f->p.kind))
		/* (X / m)^k, as cls_est_fpr_q62() and gz_est_fpr_q62() */
		q = x ? kb_q62_pow(kb_muldiv(x, KB_Q62_ONE, f->p.m), f->p.k) : 0;
	else
		q = kb_div128(fl->fpr_hi, fl->fpr_lo, f->nblocks);
	kb_stats_from(f, x, q, st);
}

int kb_filter_guard(const struct kb_filter *f, u32 max_fpr_ppb,
		    struct kb_stats *st)
{
	u64 lim = max_fpr_ppb;

	if (f->fill)
		kb_filter_stats_fill(f, st);
	else
		kb_filter_stats(f, st);
	/*
	 * A net filter holding more prefix lengths than it was sized for
	 * (sized per probe before 0.2, or --prefixes too low) expects more
	 * than its configured FPR at capacity: the limit grows by the same
	 * factor, or a healthy filter, restored as saved, would be refused.
	 * Its over_capacity says the rest; saturation is still refused.
	 */
	if (lim && f->p.fpr_ppb && st->expected_fpr_ppb > f->p.fpr_ppb)
		lim = kb_muldiv(lim, st->expected_fpr_ppb, f->p.fpr_ppb);
	return lim && st->est_fpr_ppb > lim ? -EDOM : 0;
}

u32 kb_guard_default_ppb(const struct kb_params *p)
{
	u64 v = (u64)p->fpr_ppb * KB_GUARD_FPR_FACTOR;

	if (!p->fpr_ppb)
		return KB_GUARD_FPR_PPB;
	return v < 1000000000ULL ? (u32)v : 1000000000U;
}
