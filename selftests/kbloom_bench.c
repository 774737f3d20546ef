// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom_bench: /dev/kbloom throughput, run in one VM by `make bench-kmod`.
 * Bulk load of N 16-byte keys through the batch ioctl vs single-key ioctls
 * (on a subset, extrapolated per key), image upload of the same filter,
 * lookups through the batch ioctl, and (when kb_consumer.ko is loaded) the
 * cost of one in-kernel lookup as xt_bloom makes it, on a small filter
 * whose lines stay cached.  Under QEMU TCG the absolute numbers mean
 * little: compare the ratios.
 *
 * usage: kbloom_bench [--small] [--json FILE]
 */
#include <time.h>

#include "kb_test.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "kbloom_bench: %s: %s\n", what, strerror(-err));
	exit(1);
}

#define KBC "/sys/module/kb_consumer/parameters/"

/*
 * Picoseconds per kbloom_test_addr_rcu() of an IPv6 address on a filter
 * of 1000 items (about 1.2 KiB: every probe hits the cache, so the call
 * path is what is measured), through kb_consumer's bench command; 0 when
 * kb_consumer is not loaded.
 */
static double bench_lookup(int fd, __u64 n)
{
	char cmd[64], buf[32];
	int ret;

	if (access(KBC "cmd", W_OK))
		return 0;
	kbt_destroy(fd, "benchl");
	ret = kbt_create(fd, "benchl", KB_KIND_BLOCKED, KB_KEY_IPV6, 1000);
	if (ret)
		die("create", ret);
	ret = kbt_param_write(KBC "cmd", "get benchl");
	if (ret)
		die("kb_consumer get", ret);
	snprintf(cmd, sizeof(cmd), "bench %llu", (unsigned long long)n);
	ret = kbt_param_write(KBC "cmd", cmd);
	if (!ret)
		ret = kbt_param_read(KBC "result", buf, sizeof(buf));
	kbt_param_write(KBC "cmd", "put");
	kbt_destroy(fd, "benchl");
	if (ret)
		die("kb_consumer bench", ret);
	return atof(buf);
}

int main(int argc, char **argv)
{
	__u64 n = 10000000, single_n = 200000, i, batch = 1 << 20;
	const char *json = NULL;
	double t, t_batch, t_single, t_upload, t_test, t_export, ps_lookup;
	struct kb_ioc_keys k;
	unsigned char *keys;
	__u64 *bm;
	void *img = NULL;
	long len;
	int fd, ret;
	FILE *f;

	for (i = 1; i < (__u64)argc; i++) {
		if (!strcmp(argv[i], "--small")) {
			n = 1000000;
			single_n = 50000;
		} else if (!strcmp(argv[i], "--json") && i + 1 < (__u64)argc) {
			json = argv[++i];
		}
	}
	fd = kbt_open();
	if (fd < 0)
		die("open " KB_DEV, -errno);
	keys = kbt_keys16(1, 0, n);
	bm = calloc(n / 64 + 1, 8);
	kbt_destroy(fd, "bench");
	kbt_destroy(fd, "bench1");
	ret = kbt_create(fd, "bench", KB_KIND_BLOCKED, KB_KEY_BYTES, n);
	if (ret)
		die("create", ret);

	/* bulk load, 1M keys per ioctl */
	t = now();
	for (i = 0; i < n; i += batch) {
		__u64 c = n - i < batch ? n - i : batch;

		ret = kbt_keys(fd, KB_IOC_ADD, "bench", 0, keys + i * 16, 16, c,
			       NULL, NULL);
		if (ret)
			die("add", ret);
	}
	t_batch = now() - t;

	/* one key per ioctl, on a subset */
	ret = kbt_create(fd, "bench1", KB_KIND_BLOCKED, KB_KEY_BYTES, n);
	if (ret)
		die("create", ret);
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	kbt_name(k.name, "bench1");
	k.key_size = 16;
	k.keys_len = 16;
	k.count = 1;
	t = now();
	for (i = 0; i < single_n; i++) {
		k.keys = (uintptr_t)(keys + i * 16);
		if (ioctl(fd, KB_IOC_ADD, &k))
			die("add one", -errno);
	}
	t_single = (now() - t) / single_n * n;
	kbt_destroy(fd, "bench1");

	/* lookups through the batch ioctl */
	t = now();
	for (i = 0; i < n; i += batch) {
		__u64 c = n - i < batch ? n - i : batch;

		ret = kbt_keys(fd, KB_IOC_TEST, "bench", 0, keys + i * 16, 16,
			       c, bm + i / 64, &k);
		if (ret || k.hits != c)
			die("test", ret ? ret : -EPROTO);
	}
	t_test = now() - t;

	/* export, then upload the same filter as an image */
	t = now();
	len = kbt_export(fd, "bench", 0, &img);
	if (len < 0)
		die("export", len);
	t_export = now() - t;
	t = now();
	ret = kbt_upload(fd, "bench", 0, img, len, NULL);
	if (ret)
		die("upload", ret);
	t_upload = now() - t;
	kbt_destroy(fd, "bench");
	ps_lookup = bench_lookup(fd, single_n * 10);

	printf("kbloom_bench: %llu 16-byte keys, blocked filter, 1%% FPR, %ld-byte image\n",
	       (unsigned long long)n, len);
	printf("kbloom_bench: QEMU TCG numbers: compare ratios, not absolutes\n");
	printf("  add, batch ioctl (1M keys/call): %12.0f keys/s\n",
	       n / t_batch);
	printf("  add, one key per ioctl:          %12.0f keys/s (%llu-key sample)\n",
	       n / t_single, (unsigned long long)single_n);
	printf("  image upload:                    %12.0f keys/s (%.0f MB/s)\n",
	       n / t_upload, len / t_upload / 1e6);
	printf("  image export:                    %12.0f MB/s\n",
	       len / t_export / 1e6);
	printf("  test, batch ioctl:               %12.0f keys/s\n", n / t_test);
	if (ps_lookup)
		printf("  lookup, kbloom_test_addr_rcu:    %12.1f ns (%llu-lookup sample)\n",
		       ps_lookup / 1000, (unsigned long long)single_n * 10);
	printf("  ratio batch/single add:          %12.1fx\n", t_single / t_batch);
	printf("  ratio upload/batch add:          %12.1fx\n", t_batch / t_upload);
	if (json) {
		f = fopen(json, "w");
		if (!f)
			die(json, -errno);
		fprintf(f, "{\"tcg\":true,\"keys\":%llu,\"key_bytes\":16,"
			"\"image_bytes\":%ld,\"single_sample\":%llu,"
			"\"add_batch_keys_per_s\":%.0f,"
			"\"add_single_keys_per_s\":%.0f,"
			"\"upload_keys_per_s\":%.0f,\"upload_mb_per_s\":%.1f,"
			"\"export_mb_per_s\":%.1f,"
			"\"test_batch_keys_per_s\":%.0f,"
			"\"ratio_batch_vs_single\":%.2f,"
			"\"ratio_upload_vs_batch\":%.2f,"
			"\"lookup_ns\":%.1f}\n",
			(unsigned long long)n, len,
			(unsigned long long)single_n, n / t_batch,
			n / t_single, n / t_upload, len / t_upload / 1e6,
			len / t_export / 1e6, n / t_test,
			t_single / t_batch, t_batch / t_upload,
			ps_lookup / 1000);
		fclose(f);
	}
	free(img);
	free(keys);
	free(bm);
	close(fd);
	return 0;
}
