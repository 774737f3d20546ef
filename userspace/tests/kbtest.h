/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the native tests: deterministic random keys and small
 * filter setup.
 */
#ifndef _KBTEST_H
#define _KBTEST_H

#include <stdlib.h>
#include "kb_core.h"
#include "kbuser.h"

static inline u64 kbut_splitmix(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* n random keys of len bytes each from seed; free(keys[0].data), free(keys) */
static inline struct kb_key *kbut_keys(u64 n, u32 len, u64 seed)
{
	struct kb_key *keys = calloc(n ? n : 1, sizeof(*keys));
	u8 *buf = malloc(n * len + 8);
	u64 i, j, s = seed;

	if (!keys || !buf)
		abort();
	for (i = 0; i < n * len; i += 8) {
		u64 v = kbut_splitmix(&s);

		for (j = 0; j < 8 && i + j < n * len; j++)
			buf[i + j] = (u8)(v >> (8 * j));
	}
	for (i = 0; i < n; i++) {
		keys[i].data = buf + i * len;
		keys[i].len = len;
	}
	if (!n)
		keys[0].data = buf;
	return keys;
}

static inline void kbut_keys_free(struct kb_key *keys)
{
	free((void *)keys[0].data);
	free(keys);
}

/* allocate and init a filter for p; returns payload (free()) or NULL */
static inline void *kbut_filter(struct kb_filter *f, const struct kb_params *p)
{
	u64 bytes = kb_params_payload_bytes(p);
	void *pl = kbu_alloc_payload(bytes);

	if (!pl || kb_filter_init(f, p, pl, bytes)) {
		free(pl);
		return NULL;
	}
	return pl;
}

/* count keys that test present, in batches */
static inline u64 kbut_count_present(const struct kb_filter *f,
				    const struct kb_key *keys, u64 n)
{
	u64 bm[4096 / 64], i, hits = 0;

	for (i = 0; i < n; i += 4096) {
		u32 c = n - i < 4096 ? (u32)(n - i) : 4096;

		hits += kb_filter_test_many(f, keys + i, c, bm);
	}
	return hits;
}

static inline void kbut_add_all(struct kb_filter *f, const struct kb_key *keys,
			       u64 n)
{
	u64 i;

	for (i = 0; i < n; i += 4096) {
		u32 c = n - i < 4096 ? (u32)(n - i) : 4096;

		kb_filter_add_many(f, keys + i, c);
	}
}

#endif /* _KBTEST_H */
