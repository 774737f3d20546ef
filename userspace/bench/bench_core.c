// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-core: the filter core (blocked, classic) against LevelDB's
 * bloom policy (libleveldb) and libbloom, all at 10 bits/key, 16-byte
 * random keys, at 1M and 100M keys (--small: 1M and 4M).  Measures ns per
 * add, per test one at a time and batched (absent keys: the common case
 * for a filter), memory and measured FPR; prints a table and writes JSON.
 */
#include <bloom.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kb_core.h"
#include "kbuser.h"
#include "ldb_shim.h"

#define BPK		10
#define KEYLEN		16
#define BATCH		1024

struct result {
	const char *name;
	u64 n;
	double ns_add, ns_test, ns_test_batched, fpr;
	u64 bytes;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static u64 splitmix(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct kb_key *mkkeys(u64 n, u64 seed, u8 **bufp)
{
	u8 *buf = malloc(n * KEYLEN);
	struct kb_key *k = malloc(n * sizeof(*k));
	u64 i, s = seed;

	if (!buf || !k) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		u64 a = splitmix(&s), b = splitmix(&s);

		memcpy(buf + i * KEYLEN, &a, 8);
		memcpy(buf + i * KEYLEN + 8, &b, 8);
		k[i].data = buf + i * KEYLEN;
		k[i].len = KEYLEN;
	}
	*bufp = buf;
	return k;
}

static volatile u64 sink;

static void bench_ours(u32 kind, const char *name, struct kb_key *keys, u64 n,
		       struct kb_key *q, u64 nq, struct result *r)
{
	struct kb_params p;
	struct kb_filter f;
	u64 bm[BATCH / 64], i, hits = 0;
	void *pl;
	double t;

	kb_params_init(&p, kind);
	if (kind != KB_KIND_CLASSIC)
		p.seed[0] = 0x5eed;
	kb_params_from_bpk(&p, n, BPK, 0);
	pl = kbu_alloc_payload(kb_params_payload_bytes(&p));
	kb_filter_init(&f, &p, pl, kb_params_payload_bytes(&p));
	t = now();
	for (i = 0; i < n; i += BATCH)
		kb_filter_add_many(&f, keys + i, n - i < BATCH ? (u32)(n - i) : BATCH);
	r->ns_add = (now() - t) * 1e9 / n;
	t = now();
	for (i = 0; i < nq; i++)
		hits += kb_filter_test(&f, q[i].data, q[i].len);
	r->ns_test = (now() - t) * 1e9 / nq;
	sink += hits;
	hits = 0;
	t = now();
	for (i = 0; i < nq; i += BATCH)
		hits += kb_filter_test_many(&f, q + i,
					    nq - i < BATCH ? (u32)(nq - i) : BATCH, bm);
	r->ns_test_batched = (now() - t) * 1e9 / nq;
	r->fpr = (double)hits / nq;
	r->bytes = f.bytes;
	r->name = name;
	r->n = n;
	free(pl);
}

static void bench_leveldb(struct kb_key *keys, u64 n, struct kb_key *q, u64 nq,
			  struct result *r)
{
	struct ldb_policy *pol = ldb_policy_new(BPK);
	const void **kp = malloc(n * sizeof(*kp));
	size_t *kl = malloc(n * sizeof(*kl)), flen;
	u64 i, hits = 0;
	void *filt;
	double t;

	for (i = 0; i < n; i++) {
		kp[i] = keys[i].data;
		kl[i] = keys[i].len;
	}
	t = now();
	filt = ldb_create_filter(pol, kp, kl, n, &flen);
	r->ns_add = (now() - t) * 1e9 / n;
	free(kp);
	free(kl);
	t = now();
	for (i = 0; i < nq; i++)
		hits += ldb_key_may_match(pol, q[i].data, q[i].len, filt, flen);
	r->ns_test = (now() - t) * 1e9 / nq;
	r->ns_test_batched = NAN;
	r->fpr = (double)hits / nq;
	r->bytes = flen;
	r->name = "leveldb";
	r->n = n;
	free(filt);
	ldb_policy_free(pol);
}

static void bench_libbloom(struct kb_key *keys, u64 n, struct kb_key *q,
			   u64 nq, struct result *r)
{
	struct bloom b;
	u64 i, hits = 0;
	double t;

	/* libbloom sizes by error rate: bits per entry = -ln(e) / ln(2)^2 */
	if (bloom_init(&b, (int)n, exp(-BPK * log(2) * log(2)))) {
		fprintf(stderr, "bench: bloom_init failed\n");
		exit(1);
	}
	t = now();
	for (i = 0; i < n; i++)
		bloom_add(&b, keys[i].data, (int)keys[i].len);
	r->ns_add = (now() - t) * 1e9 / n;
	t = now();
	for (i = 0; i < nq; i++)
		hits += bloom_check(&b, q[i].data, (int)q[i].len) == 1;
	r->ns_test = (now() - t) * 1e9 / nq;
	r->ns_test_batched = NAN;
	r->fpr = (double)hits / nq;
	r->bytes = b.bytes;
	r->name = "libbloom";
	r->n = n;
	bloom_free(&b);
}

static void print_row(const struct result *r)
{
	printf("%-10s %10llu %9.1f %10.1f %12.1f %12.1f %9.4f%%\n", r->name,
	       (unsigned long long)r->n, r->ns_add, r->ns_test,
	       r->ns_test_batched, r->bytes / 1048576.0, r->fpr * 100);
	fflush(stdout);
}

static void json_num(FILE *f, const char *k, double v, bool last)
{
	if (isnan(v))
		fprintf(f, "  \"%s\": null%s\n", k, last ? "" : ",");
	else
		fprintf(f, "  \"%s\": %.6g%s\n", k, v, last ? "" : ",");
}

int main(int argc, char **argv)
{
	const char *json = NULL;
	bool small = false;
	u64 sizes[2] = { 1000000, 100000000 };
	struct result res[2][4];
	int i, s;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--small"))
			small = true;
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
	}
	if (small)
		sizes[1] = 4000000;
	printf("kbloom core benchmark: %d bits/key, %d-byte random keys, absent-key tests\n",
	       BPK, KEYLEN);
	printf("%-10s %10s %9s %10s %12s %12s %10s\n", "filter", "keys",
	       "ns/add", "ns/test", "ns/test(bat)", "memory(MiB)", "fpr");
	for (s = 0; s < 2; s++) {
		u64 n = sizes[s], nq = n < 10000000 ? n : 10000000;
		u8 *kb, *qb;
		struct kb_key *keys = mkkeys(n, 1 + s, &kb);
		struct kb_key *q = mkkeys(nq, 1000 + s, &qb);

		bench_ours(KB_KIND_BLOCKED, "blocked", keys, n, q, nq, &res[s][0]);
		print_row(&res[s][0]);
		bench_ours(KB_KIND_CLASSIC, "classic", keys, n, q, nq, &res[s][1]);
		print_row(&res[s][1]);
		bench_leveldb(keys, n, q, nq, &res[s][2]);
		print_row(&res[s][2]);
		bench_libbloom(keys, n, q, nq, &res[s][3]);
		print_row(&res[s][3]);
		free(kb);
		free(keys);
		free(qb);
		free(q);
	}
	printf("100M-row ratios (their ns/test / our blocked batched ns/test): leveldb %.1fx, libbloom %.1fx\n",
	       res[1][2].ns_test / res[1][0].ns_test_batched,
	       res[1][3].ns_test / res[1][0].ns_test_batched);
	if (json) {
		FILE *f = fopen(json, "w");

		if (!f) {
			perror(json);
			return 1;
		}
		fprintf(f, "{\n  \"small\": %s,\n  \"keys_large\": %llu,\n",
			small ? "true" : "false", (unsigned long long)sizes[1]);
		fprintf(f, "  \"compiler_flags\": \"-O3 -march=x86-64-v2\",\n");
		json_num(f, "fpr_blocked_10bpk", res[0][0].fpr, false);
		json_num(f, "fpr_classic_10bpk", res[0][1].fpr, false);
		json_num(f, "fpr_leveldb_10bpk", res[0][2].fpr, false);
		json_num(f, "fpr_libbloom_10bpk", res[0][3].fpr, false);
		json_num(f, "ns_add_1m", res[0][0].ns_add, false);
		json_num(f, "ns_test_1m", res[0][0].ns_test, false);
		json_num(f, "ns_test_batched_1m", res[0][0].ns_test_batched, false);
		json_num(f, "ns_add_100m", res[1][0].ns_add, false);
		json_num(f, "ns_test_100m", res[1][0].ns_test, false);
		json_num(f, "ns_test_batched_100m", res[1][0].ns_test_batched, false);
		json_num(f, "ns_test_classic_batched_100m", res[1][1].ns_test_batched, false);
		json_num(f, "ns_test_leveldb_100m", res[1][2].ns_test, false);
		json_num(f, "ns_test_libbloom_100m", res[1][3].ns_test, false);
		json_num(f, "ns_add_leveldb_100m", res[1][2].ns_add, false);
		json_num(f, "ns_add_libbloom_100m", res[1][3].ns_add, false);
		json_num(f, "bytes_blocked_100m", (double)res[1][0].bytes, false);
		json_num(f, "bytes_leveldb_100m", (double)res[1][2].bytes, false);
		json_num(f, "bytes_libbloom_100m", (double)res[1][3].bytes, false);
		json_num(f, "ratio_test_100m_vs_leveldb",
			 res[1][2].ns_test / res[1][0].ns_test_batched, false);
		json_num(f, "ratio_test_100m_vs_libbloom",
			 res[1][3].ns_test / res[1][0].ns_test_batched, false);
		json_num(f, "ratio_test_single_100m_vs_leveldb",
			 res[1][2].ns_test / res[1][0].ns_test, false);
		json_num(f, "ratio_test_single_100m_vs_libbloom",
			 res[1][3].ns_test / res[1][0].ns_test, true);
		fprintf(f, "}\n");
		fclose(f);
		printf("wrote %s\n", json);
	}
	return 0;
}
