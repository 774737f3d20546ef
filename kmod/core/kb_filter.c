// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: filter setup, operation dispatch and statistics.
 */
#include "kb_internal.h"

const struct kb_kind_ops *kb_kind_ops_get(u32 kind)
{
	switch (kind) {
	case KB_KIND_BLOCKED:
		return &kb_blocked_ops;
	case KB_KIND_CLASSIC:
		return &kb_classic_ops;
	case KB_KIND_COUNTING:
		return &kb_counting_ops;
	default:
		return NULL;
	}
}

/* the other fixed key sizes (IPv4 4, net4 5, net6 17) unrolled too */
u64 kb_xxh64_other(const void *key, u32 len, u64 seed)
{
	switch (len) {
	case 4:
		return kb_xxh64_short(key, 4, seed);
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
	int ret = kb_params_check(p, 0, NULL);

	if (ret)
		return ret;
	if (!payload || payload_len != kb_params_payload_bytes(p))
		return -EINVAL;
	if (p->kind != KB_KIND_CLASSIC && ((unsigned long)payload & 7))
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->p = *p;
	f->ops = kb_kind_ops_get(p->kind);
	f->payload = payload;
	f->bytes = payload_len;
	if (p->kind == KB_KIND_BLOCKED)
		f->nblocks = p->m / KB_BLOCK_BITS;
	else if (p->kind == KB_KIND_COUNTING)
		f->nblocks = p->m / KB_CBLOCK_COUNTERS;
	else
		f->cbits = p->m <= U32_MAX ? (u32)p->m : 0;
	return 0;
}

int kb_filter_init(struct kb_filter *f, const struct kb_params *p,
		   void *payload, u64 payload_len)
{
	int ret = kb_filter_bind(f, p, payload, payload_len);

	if (ret)
		return ret;
	memset(payload, 0, payload_len);
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
	/* payload words are little-endian in images */
	if (KB_BIG_ENDIAN)
		for (i = 0; i < payload_len / 8; i++)
			w[i] = kb_swab64(w[i]);
	return 0;
}

void kb_filter_clear(struct kb_filter *f)
{
	u64 n = f->p.kind == KB_KIND_CLASSIC ? f->bytes - 1 : f->bytes;
	u8 *b = f->payload;
	u64 *w = f->payload;
	u64 i;

	if (f->p.kind == KB_KIND_CLASSIC) {
		for (i = 0; i < n; i++)
			KB_WRITE_ONCE(b[i], 0);
		return;
	}
	for (i = 0; i < n / 8; i++)
		KB_WRITE_ONCE(w[i], 0);
}

u64 kb_filter_hash(const struct kb_filter *f, const void *key, u32 len)
{
	return f->ops->hash(f, key, len);
}

void kb_filter_add(struct kb_filter *f, const void *key, u32 len)
{
	f->ops->add(f, f->ops->hash(f, key, len));
}

bool kb_filter_test(const struct kb_filter *f, const void *key, u32 len)
{
	return f->ops->test(f, f->ops->hash(f, key, len));
}

bool kb_filter_test_and_add(struct kb_filter *f, const void *key, u32 len)
{
	u64 h = f->ops->hash(f, key, len);
	bool was = f->ops->test(f, h);

	/* counting filters count every add, so that deletes stay exact */
	if (!was || f->ops->del)
		f->ops->add(f, h);
	return !was;
}

int kb_filter_del(struct kb_filter *f, const void *key, u32 len)
{
	if (!f->ops->del)
		return -EOPNOTSUPP;
	return f->ops->del(f, f->ops->hash(f, key, len));
}

void kb_filter_add_hash(struct kb_filter *f, u64 h)
{
	f->ops->add(f, h);
}

bool kb_filter_test_hash(const struct kb_filter *f, u64 h)
{
	return f->ops->test(f, h);
}

void kb_filter_add_many(struct kb_filter *f, const struct kb_key *keys,
			u32 n)
{
	f->ops->add_many(f, keys, n);
}

u32 kb_filter_test_many(const struct kb_filter *f, const struct kb_key *keys,
			u32 n, u64 *bitmap)
{
	return f->ops->test_many(f, keys, n, bitmap);
}

u32 kb_filter_test_and_add_many(struct kb_filter *f,
				const struct kb_key *keys, u32 n, u64 *bitmap)
{
	return f->ops->test_and_add_many(f, keys, n, bitmap);
}

int kb_filter_del_many(struct kb_filter *f, const struct kb_key *keys, u32 n,
		       u64 *bitmap)
{
	if (!f->ops->del_many)
		return -EOPNOTSUPP;
	return (int)f->ops->del_many(f, keys, n, bitmap);
}

void kb_filter_stats(const struct kb_filter *f, struct kb_stats *st)
{
	const struct kb_params *p = &f->p;
	u64 x;

	memset(st, 0, sizeof(*st));
	st->bytes = f->bytes;
	st->m = p->m;
	st->k = p->k;
	if (p->items)
		st->expected_fpr_ppb = kb_model_fpr_ppb(p->kind, p->m, p->k,
							p->items);
	x = f->ops->bits_set(f);
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
	st->est_fpr_ppb = kb_q62_to_ppb(f->ops->est_fpr_q62(f));
	/* FPR criterion with 5% slack: a filter filled to exactly its
	 * capacity sits at its target FPR give or take sampling noise
	 */
	if ((p->items && st->est_items > p->items) ||
	    (p->fpr_ppb &&
	     st->est_fpr_ppb > (u64)p->fpr_ppb + p->fpr_ppb / 20))
		st->over_capacity = 1;
}
