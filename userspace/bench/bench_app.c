// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-app's native C part: what libkbloom's lookup path costs over
 * the core it wraps.  The same image file is
 *  - opened with kbloom_open_image() (mapped read-only) and tested with
 *    kbloom_test() per key and kbloom_test_many() in batches;
 *  - read into memory, parsed (kb_image_parse()) and attached to a
 *    struct kb_filter, tested with kb_filter_lookup_many() in batches of
 *    the same size (the core's batched test), the same after checking
 *    each key for the key type (what the kernel's KB_IOC_TEST runs, and
 *    what libkbloom must also check), and kb_filter_test() per key.
 * The keys are those of a hex key file.  Each of the five is timed over
 * all keys, ROUNDS rounds taken in turn, the fastest round counting (the
 * machine is shared: the fastest is the least disturbed); all five must
 * find the same hits, or the bench fails.  Prints a JSON object.
 *   bench_app IMAGE KEYS.hex [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kbloom/kbloom.h>
#include "kb_core.h"
#include "kbuser.h"

#define BATCH	1024

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct ctx {
	struct kb_filter f;
	struct kbloom *lib;
	struct kbu_keyset ks;
	struct kbloom_key *lkeys;
};

static u64 core_batched(struct ctx *c)
{
	u64 bm[BATCH / 64], i, hits = 0;

	for (i = 0; i < c->ks.n; i += BATCH) {
		u32 n = c->ks.n - i < BATCH ? (u32)(c->ks.n - i) : BATCH;

		hits += kb_filter_lookup_many(&c->f, c->ks.keys + i, n, bm);
	}
	return hits;
}

/*
 * the kernel's KB_IOC_TEST on a generation (kb_gen_keys()): every key of
 * a chunk checked for the key type, then the batched test
 */
static u64 core_checked(struct ctx *c)
{
	u64 bm[BATCH / 64], i, hits = 0;
	u32 j;

	for (i = 0; i < c->ks.n; i += BATCH) {
		u32 n = c->ks.n - i < BATCH ? (u32)(c->ks.n - i) : BATCH;

		for (j = 0; j < n; j++)
			if (kb_key_validate(c->f.p.key_type, c->ks.keys[i + j].data,
					    c->ks.keys[i + j].len))
				exit(1);
		hits += kb_filter_lookup_many(&c->f, c->ks.keys + i, n, bm);
	}
	return hits;
}

static u64 core_per_key(struct ctx *c)
{
	u64 i, hits = 0;

	for (i = 0; i < c->ks.n; i++)
		hits += kb_filter_test(&c->f, c->ks.keys[i].data,
				       c->ks.keys[i].len);
	return hits;
}

static u64 lib_many(struct ctx *c)
{
	u64 bm[BATCH / 64], i, hits = 0;

	for (i = 0; i < c->ks.n; i += BATCH) {
		size_t n = c->ks.n - i < BATCH ? c->ks.n - i : BATCH;
		long r = kbloom_test_many(c->lib, c->lkeys + i, n, bm);

		if (r < 0) {
			fprintf(stderr, "bench_app: kbloom_test_many: %s\n",
				kbloom_errmsg());
			exit(1);
		}
		hits += r;
	}
	return hits;
}

static u64 lib_per_key(struct ctx *c)
{
	u64 i, hits = 0;

	for (i = 0; i < c->ks.n; i++) {
		int r = kbloom_test(c->lib, c->lkeys[i].data, c->lkeys[i].len);

		if (r < 0) {
			fprintf(stderr, "bench_app: kbloom_test: %s\n",
				kbloom_errmsg());
			exit(1);
		}
		hits += r;
	}
	return hits;
}

static const struct {
	const char *name;
	u64 (*run)(struct ctx *c);
} runs[] = {
	{ "core_lookup_many", core_batched },
	{ "core_checked_lookup_many", core_checked },
	{ "core_test", core_per_key },
	{ "lib_test_many", lib_many },
	{ "lib_test", lib_per_key },
};
#define NRUNS	(sizeof(runs) / sizeof(runs[0]))

static int setup(struct ctx *c, const char *img, const char *keys)
{
	const void *pl;
	struct kb_params p;
	enum kb_img_err why;
	u64 plen, count, i;
	size_t len;
	char err[256];
	u8 *raw, *payload;
	int ret;

	if (kbu_read_file(img, &raw, &len) ||
	    kb_image_parse(raw, len, len, &p, &pl, &plen, &count, &why)) {
		fprintf(stderr, "bench_app: %s: not a kbloom image\n", img);
		return 1;
	}
	/* the core's copy in ordinary memory, as the kernel holds a payload */
	payload = kbu_alloc_payload(plen);
	if (!payload)
		return 1;
	memcpy(payload, pl, plen);
	free(raw);
	if (kb_filter_attach(&c->f, &p, payload, plen)) {
		fprintf(stderr, "bench_app: cannot attach the filter\n");
		return 1;
	}
	ret = kbloom_open_image(img, &c->lib);
	if (ret < 0) {
		fprintf(stderr, "bench_app: kbloom_open_image %s: %s\n", img,
			kbloom_errmsg());
		return 1;
	}
	if (kbu_keyset_load(&c->ks, keys, p.key_type, KBU_FMT_HEX, err,
			    sizeof(err))) {
		fprintf(stderr, "bench_app: %s\n", err);
		return 1;
	}
	c->lkeys = calloc(c->ks.n, sizeof(*c->lkeys));
	if (!c->lkeys)
		return 1;
	for (i = 0; i < c->ks.n; i++) {
		c->lkeys[i].data = c->ks.keys[i].data;
		c->lkeys[i].len = c->ks.keys[i].len;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double best[NRUNS], t;
	u64 hits[NRUNS];
	struct ctx c = { 0 };
	unsigned int r, i, rounds = 21;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bench_app IMAGE KEYS.hex [ROUNDS]\n");
		return 2;
	}
	if (argc == 4)
		rounds = atoi(argv[3]);
	if (!rounds || setup(&c, argv[1], argv[2]))
		return 1;
	for (i = 0; i < NRUNS; i++) {
		hits[i] = runs[i].run(&c);	/* warm: pages, caches */
		best[i] = 1e30;
		if (hits[i] != hits[0]) {
			fprintf(stderr, "bench_app: %s found %llu hits, %s %llu\n",
				runs[i].name, (unsigned long long)hits[i],
				runs[0].name, (unsigned long long)hits[0]);
			return 1;
		}
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < NRUNS; i++) {
			t = now();
			if (runs[i].run(&c) != hits[i])
				return 1;	/* read-only: the same answers */
			t = now() - t;
			if (t < best[i])
				best[i] = t;
		}
	}
	printf("{\"keys\": %llu, \"hits\": %llu, \"rounds\": %u, \"batch\": %d",
	       (unsigned long long)c.ks.n, (unsigned long long)hits[0], rounds,
	       BATCH);
	for (i = 0; i < NRUNS; i++)
		printf(", \"%s_ns\": %.2f", runs[i].name, best[i] * 1e9 / c.ks.n);
	printf("}\n");
	kbloom_close(c.lib);
	kbu_keyset_free(&c.ks);
	free(c.lkeys);
	return 0;
}
