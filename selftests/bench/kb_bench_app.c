// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-app's guest part (selftests/bench/app.sh runs it in a TCG
 * VM): the kernel filter NAME tested key by key through libkbloom's
 * read-only mapping, against the same keys through the filter fd's
 * KB_IOC_TEST ioctl.
 *  - map_test: kbloom_test() per key (no syscall: the mapping);
 *  - map_test_many: kbloom_test_many(), BATCH keys a call;
 *  - ioctl_batch: KB_IOC_TEST on kbloom_fd(), every key in one call
 *    (the batch ioctl at its best: one syscall for all);
 *  - ioctl_batch1024: the same, BATCH keys a call;
 *  - ioctl_per_key: one KB_IOC_TEST of one key per key, as an
 *    application without the mapping would ask for each request.
 * ROUNDS rounds in turn, the fastest counting; every way must find the
 * same hits.  Prints a JSON object (ns per key).
 *   kb_bench_app NAME KEYS.hex [ROUNDS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <kbloom/kbloom.h>
#include <linux/kbloom.h>
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
	struct kbloom *f;
	int fd;
	u64 n;
	u32 key_size;
	const u8 *packed;	/* n keys of key_size bytes */
	struct kbloom_key *keys;
	u64 *bm;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "kb_bench_app: %s: %s (%s)\n", what, strerror(err),
		kbloom_errmsg() ? kbloom_errmsg() : "");
	exit(1);
}

static u64 map_test(struct ctx *c)
{
	u64 i, hits = 0;

	for (i = 0; i < c->n; i++) {
		int r = kbloom_test(c->f, c->keys[i].data, c->keys[i].len);

		if (r < 0)
			die("kbloom_test", -r);
		hits += r;
	}
	return hits;
}

static u64 map_many(struct ctx *c)
{
	u64 i, hits = 0;

	for (i = 0; i < c->n; i += BATCH) {
		size_t n = c->n - i < BATCH ? c->n - i : BATCH;
		long r = kbloom_test_many(c->f, c->keys + i, n, c->bm);

		if (r < 0)
			die("kbloom_test_many", (int)-r);
		hits += r;
	}
	return hits;
}

/* KB_IOC_TEST on the filter fd over keys [from, from + n) */
static u64 ioc_test(struct ctx *c, u64 from, u64 n)
{
	struct kb_ioc_keys k;

	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	k.key_size = c->key_size;
	k.keys = (uintptr_t)(c->packed + from * c->key_size);
	k.keys_len = n * c->key_size;
	k.count = n;
	k.result = (uintptr_t)c->bm;
	if (ioctl(c->fd, KB_IOC_TEST, &k))
		die("KB_IOC_TEST", errno);
	if (k.processed != n)
		die("KB_IOC_TEST: keys left unprocessed", EIO);
	return k.hits;
}

static u64 ioc_all(struct ctx *c)
{
	return ioc_test(c, 0, c->n);
}

static u64 ioc_1024(struct ctx *c)
{
	u64 i, hits = 0;

	for (i = 0; i < c->n; i += BATCH)
		hits += ioc_test(c, i, c->n - i < BATCH ? c->n - i : BATCH);
	return hits;
}

static u64 ioc_one(struct ctx *c)
{
	u64 i, hits = 0;

	for (i = 0; i < c->n; i++)
		hits += ioc_test(c, i, 1);
	return hits;
}

static const struct {
	const char *name;
	u64 (*run)(struct ctx *c);
} runs[] = {
	{ "map_test", map_test },
	{ "map_test_many", map_many },
	{ "ioctl_batch", ioc_all },
	{ "ioctl_batch1024", ioc_1024 },
	{ "ioctl_per_key", ioc_one },
};
#define NRUNS	(sizeof(runs) / sizeof(runs[0]))

int main(int argc, char **argv)
{
	struct kbloom_info info;
	struct kbu_keyset ks;
	struct ctx c = { 0 };
	double best[NRUNS], t;
	u64 hits[NRUNS], i;
	unsigned int r, rounds = 3;
	char err[256];
	u8 *packed;
	int ret;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: kb_bench_app NAME KEYS.hex [ROUNDS]\n");
		return 2;
	}
	if (argc == 4)
		rounds = atoi(argv[3]);
	ret = kbloom_open(argv[1], KBLOOM_RDONLY, &c.f);
	if (ret < 0)
		die("kbloom_open", -ret);
	ret = kbloom_info(c.f, &info);
	if (ret < 0)
		die("kbloom_info", -ret);
	c.fd = kbloom_fd(c.f);
	if (c.fd < 0)
		die("kbloom_fd", EBADF);
	if (kbu_keyset_load(&ks, argv[2], info.key_type, KBU_FMT_HEX, err,
			    sizeof(err))) {
		fprintf(stderr, "kb_bench_app: %s\n", err);
		return 1;
	}
	/* the ioctl's fixed-size keys: every key of the file is as long */
	c.n = ks.n;
	c.key_size = ks.n ? ks.keys[0].len : 0;
	packed = malloc(c.n * c.key_size + 1);
	c.keys = calloc(c.n + 1, sizeof(*c.keys));
	c.bm = calloc(c.n / 64 + 1, sizeof(u64));
	if (!c.n || !packed || !c.keys || !c.bm)
		die("keys", ENOMEM);
	for (i = 0; i < c.n; i++) {
		if (ks.keys[i].len != c.key_size)
			die("keys of different lengths", EINVAL);
		memcpy(packed + i * c.key_size, ks.keys[i].data, c.key_size);
		c.keys[i].data = packed + i * c.key_size;
		c.keys[i].len = c.key_size;
	}
	c.packed = packed;
	for (i = 0; i < NRUNS; i++) {
		hits[i] = runs[i].run(&c);	/* warm, and the answers */
		best[i] = 1e30;
		if (hits[i] != hits[0]) {
			fprintf(stderr, "kb_bench_app: %s found %llu hits, %s %llu\n",
				runs[i].name, (unsigned long long)hits[i],
				runs[0].name, (unsigned long long)hits[0]);
			return 1;
		}
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < NRUNS; i++) {
			t = now();
			if (runs[i].run(&c) != hits[i])
				return 1;	/* nobody adds meanwhile */
			t = now() - t;
			if (t < best[i])
				best[i] = t;
		}
	}
	printf("{\"keys\": %llu, \"hits\": %llu, \"rounds\": %u, \"batch\": %d",
	       (unsigned long long)c.n, (unsigned long long)hits[0], rounds,
	       BATCH);
	for (i = 0; i < NRUNS; i++)
		printf(", \"%s_ns\": %.2f", runs[i].name, best[i] * 1e9 / c.n);
	printf("}\n");
	kbloom_close(c.f);
	kbu_keyset_free(&ks);
	free(packed);
	free(c.keys);
	free(c.bm);
	return 0;
}
