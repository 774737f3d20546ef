// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-gozero's kbloom side: batched lookups of the gozero kind in
 * the filter core, over a go-zero Redis value and a file of hex keys (the
 * same keys bench-gozero asks go-zero's Exists through Redis).  Repeats
 * the key set for at least a second; prints the hits of one pass (so the
 * script can check both sides answered alike) and lookups per second.
 *   bench_gozero VALUE BITS KEYS.hex
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kb_core.h"
#include "kbuser.h"

#define BATCH	1024

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static u64 pass(const struct kb_filter *f, const struct kbu_keyset *ks)
{
	u64 bm[BATCH / 64], i, hits = 0;

	for (i = 0; i < ks->n; i += BATCH) {
		u32 n = ks->n - i < BATCH ? (u32)(ks->n - i) : BATCH;

		hits += kb_filter_test_many(f, ks->keys + i, n, bm);
	}
	return hits;
}

int main(int argc, char **argv)
{
	struct kbu_keyset ks;
	struct kb_params p;
	struct kb_filter f;
	enum kb_img_err why;
	u64 bits, hits, total = 0;
	size_t len;
	char err[256];
	double t0, t;
	u8 *raw, *payload;

	if (argc != 4) {
		fprintf(stderr, "usage: bench_gozero VALUE BITS KEYS.hex\n");
		return 2;
	}
	bits = strtoull(argv[2], NULL, 10);
	if (kbu_read_file(argv[1], &raw, &len) ||
	    kb_gozero_import(&p, raw, len, bits, 0, &why)) {
		fprintf(stderr, "bench_gozero: %s: not a value of %s bits\n",
			argv[1], argv[2]);
		return 1;
	}
	p.key_type = KB_KEY_BYTES;
	/* the payload is the value, zero-extended to ceil(bits / 8) bytes */
	payload = kbu_alloc_payload(kb_params_payload_bytes(&p));
	if (!payload)
		return 1;
	memset(payload, 0, kb_params_payload_bytes(&p));
	memcpy(payload, raw, len);
	free(raw);
	if (kb_filter_attach(&f, &p, payload, kb_params_payload_bytes(&p))) {
		fprintf(stderr, "bench_gozero: cannot attach the filter\n");
		return 1;
	}
	if (kbu_keyset_load(&ks, argv[3], KB_KEY_BYTES, KBU_FMT_HEX, err,
			    sizeof(err))) {
		fprintf(stderr, "bench_gozero: %s\n", err);
		return 1;
	}
	hits = pass(&f, &ks);		/* warm, and the answers to compare */
	t0 = now();
	do {
		if (pass(&f, &ks) != hits)
			return 1;	/* a read-only filter answers alike */
		total += ks.n;
		t = now() - t0;
	} while (t < 1.0);
	printf("%llu %llu %.0f\n", (unsigned long long)ks.n,
	       (unsigned long long)hits, total / t);
	kbu_keyset_free(&ks);
	free(payload);
	return 0;
}
