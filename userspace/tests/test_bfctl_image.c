// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl image verbs end to end: runs the built bfctl (BFCTL_PATH) and
 * checks outputs, files and exit codes (0 ok / maybe present, 1 absent,
 * 2 usage, 3 error).
 */
#include <stdio.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "ldb_shim.h"

static char dir[64];

/* run a shell command line; returns exit code, output in out (if any) */
static int run(char *out, size_t outlen, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	FILE *f;
	size_t n = 0;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (out) {
		n = fread(out, 1, outlen - 1, f);
		out[n] = 0;
	} else {
		char sink[4096];

		while (fread(sink, 1, sizeof(sink), f) > 0)
			;
	}
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define B BFCTL_PATH

FIXTURE(bf) {
	int unused;
};

FIXTURE_SETUP(bf)
{
	FILE *f;

	strcpy(dir, "/tmp/kbbfctlXXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
	f = fopen(strcat(strcpy((char[128]){ 0 }, dir), "/keys"), "w");
	for (int i = 0; i < 5000; i++)
		fprintf(f, "key-%d\n", i);
	fclose(f);
	f = fopen(strcat(strcpy((char[128]){ 0 }, dir), "/hexkeys"), "w");
	fprintf(f, "00ff10\n6869\n");
	fclose(f);
}

FIXTURE_TEARDOWN(bf)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		TH_LOG("cleanup of %s failed", dir);
}

TEST_F(bf, build_info_test)
{
	char out[8192];
	FILE *f;

	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --kind blocked --items 5000 --fpr 0.01 --seed 9 -file %s/keys -o %s/a.img", dir, dir));
	ASSERT_EQ(0, run(out, sizeof(out), B " image info %s/a.img -j", dir));
	ASSERT_NE(NULL, strstr(out, "\"kind\":\"blocked\""));
	ASSERT_NE(NULL, strstr(out, "\"hash\":\"xxh64\""));
	ASSERT_NE(NULL, strstr(out, "\"seed\":[\"0x0000000000000009\""));
	ASSERT_NE(NULL, strstr(out, "\"items\":5000"));
	ASSERT_NE(NULL, strstr(out, "\"fpr_ppb\":10000000"));
	ASSERT_EQ(0, run(out, sizeof(out), B " image info %s/a.img", dir));
	ASSERT_NE(NULL, strstr(out, "kind:             blocked"));
	/* every key maybe present; absent keys exit 1 */
	ASSERT_EQ(0, run(NULL, 0, B " image test %s/a.img key-0 key-4999 key-77", dir));
	ASSERT_EQ(1, run(out, sizeof(out), B " image test %s/a.img key-0 not-a-key-at-all", dir));
	/* the lines and -j document of bfctl test */
	ASSERT_NE(NULL, strstr(out, "key-0: maybe present\nnot-a-key-at-all: absent\n"));
	ASSERT_EQ(1, run(out, sizeof(out), B " image test -j %s/a.img key-0 not-a-key-at-all", dir));
	ASSERT_NE(NULL, strstr(out, "\"keys\":[{\"key\":\"key-0\",\"present\":true},{\"key\":\"not-a-key-at-all\",\"present\":false}],\"all_present\":false"));
	/* same seed, same keys: identical image */
	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --kind blocked --items 5000 --fpr 1%% --seed 9 -file %s/keys -o %s/b.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, "cmp -s %s/a.img %s/b.img", dir, dir));
	/* random seed: different image, same answers */
	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --kind counting --bits-per-key 12 --hash siphash -file %s/keys -o %s/c.img", dir, dir));
	ASSERT_EQ(0, run(out, sizeof(out), B " image info -j %s/c.img", dir));
	ASSERT_NE(NULL, strstr(out, "\"hash\":\"siphash\""));
	ASSERT_EQ(0, run(NULL, 0, B " image test %s/c.img key-1 key-2", dir));
	/* explicit m, k */
	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --kind classic --bits 65536 --hashes 7 -file %s/keys -o %s/d.img", dir, dir));
	ASSERT_EQ(0, run(out, sizeof(out), B " image info -j %s/d.img", dir));
	ASSERT_NE(NULL, strstr(out, "\"m\":65536"));
	ASSERT_NE(NULL, strstr(out, "\"k\":7"));
	/* an image is 0600 (its seed), numbers are decimal unless 0x */
	ASSERT_EQ(0, run(out, sizeof(out), "stat -c %%a %s/a.img", dir));
	ASSERT_EQ(0, strncmp(out, "600", 3));
	ASSERT_EQ(0, run(out, sizeof(out), B " image build --key-type str --kind blocked --items 010 --fpr 0.01 -file %s/keys -o %s/e.img && " B " image info -j %s/e.img", dir, dir, dir));
	ASSERT_NE(NULL, strstr(out, "\"items\":10,"));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --kind blocked --items ' 10' --fpr 0.01 -file %s/keys -o %s/e.img 2>/dev/null", dir, dir));
	/* CRLF key files: the keys without the CR */
	f = fopen(strcat(strcpy((char[128]){ 0 }, dir), "/crlf"), "w");
	fprintf(f, "alpha\r\nbeta\r\n");
	fclose(f);
	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --bits-per-key 10 -file %s/crlf -o %s/cr.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, B " image test %s/cr.img alpha beta", dir));
	/* keys from a pipe or stdin, the image to stdout, global -j and -q */
	ASSERT_EQ(0, run(out, sizeof(out), "printf 'p1\\np2\\n' | " B " -q image build --key-type str --bits-per-key 10 -file - -o - | " B " -j image info -", dir));
	ASSERT_NE(NULL, strstr(out, "\"count\":2"));
	ASSERT_EQ(NULL, strstr(out, "keys ("));	/* -q: no summary */
	ASSERT_EQ(0, run(NULL, 0, "printf 'q1\\nq2\\n' | " B " image build --key-type str --bits-per-key 10 -file /dev/stdin -o %s/pipe.img >/dev/null && " B " image test %s/pipe.img q1 q2", dir, dir));
	/* hex keys */
	ASSERT_EQ(0, run(NULL, 0, B " image build --kind blocked --bits-per-key 10 --seed 5 --key-format hex -file %s/hexkeys -o %s/h.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, B " image test --key-format hex %s/h.img 00ff10 6869", dir));
	ASSERT_EQ(0, run(NULL, 0, B " image test --key-format str %s/h.img hi", dir));
	/* one rule for every verb: bytes keys are hex unless --key-format */
	ASSERT_EQ(0, run(NULL, 0, B " image test %s/h.img 00ff10 6869", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image test %s/h.img hi 2>/dev/null", dir));
	ASSERT_EQ(0, run(NULL, 0, B " image build --kind blocked --bits-per-key 10 --seed 5 -file %s/hexkeys -o %s/h2.img && cmp -s %s/h.img %s/h2.img", dir, dir, dir, dir));
}

/* sizes as admins type them: 10k, 1M, 1e6, 1.5k, 1Mi; bad ones exit 2 */
TEST_F(bf, size_suffixes)
{
	static const struct { const char *arg, *want; } ok[] = {
		{ "10k", "\"items\":10000," }, { "1M", "\"items\":1000000," },
		{ "1e6", "\"items\":1000000," }, { "2.5e3", "\"items\":2500," },
		{ "1.5K", "\"items\":1500," }, { "1Mi", "\"items\":1048576," },
		{ "0.0001g", "\"items\":100000," },
	};
	static const char *const bad[] = {
		"1.5", "1e", "1k5", "1kb", "1.2.3", "-1", "1e100", "20e18",
		"99999999999999999999", "16Ei", ".5k", "1E-3",
	};
	char out[8192];

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		ASSERT_EQ(0, run(out, sizeof(out), B " image build --key-type str --kind blocked --items %s --fpr 0.01 -file %s/keys -o - | " B " -j image info -", ok[i].arg, dir));
		EXPECT_NE(NULL, strstr(out, ok[i].want)) TH_LOG("%s: %s", ok[i].arg, out);
	}
	ASSERT_EQ(0, run(out, sizeof(out), B " image build --key-type str --kind classic --bits 64Ki --hashes 7 -file %s/keys -o - | " B " -j image info -", dir));
	ASSERT_NE(NULL, strstr(out, "\"m\":65536"));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(2, run(out, sizeof(out), B " image build --key-type str --kind blocked --items '%s' --fpr 0.01 -file %s/keys -o %s/bad.img 2>&1", bad[i], dir, dir)) TH_LOG("%s", bad[i]);
		EXPECT_NE(NULL, strstr(out, "--items")) TH_LOG("%s: %s", bad[i], out);
		EXPECT_NE(0, access(strcat(strcpy((char[128]){ 0 }, dir), "/bad.img"), F_OK));
	}
	/* an overflow says so */
	ASSERT_EQ(2, run(out, sizeof(out), B " image build --key-type str --kind classic --bits 1e30 --hashes 7 -file %s/keys -o - 2>&1", dir));
	ASSERT_NE(NULL, strstr(out, "too large"));
}

TEST_F(bf, net_keys)
{
	char out[8192];
	FILE *f = fopen(strcat(strcpy((char[128]){ 0 }, dir), "/nets"), "w");

	fprintf(f, "10.0.0.0/8\n192.168.1.0/24\n2001:db8::/32\n");
	fclose(f);
	ASSERT_EQ(0, run(NULL, 0, B " image build --kind blocked --bits-per-key 16 --key-type net -file %s/nets -o %s/n.img", dir, dir));
	ASSERT_EQ(0, run(out, sizeof(out), B " image info -j %s/n.img", dir));
	ASSERT_NE(NULL, strstr(out, "\"plen4\":[8,24]"));
	ASSERT_NE(NULL, strstr(out, "\"plen6\":[32]"));
	ASSERT_EQ(0, run(NULL, 0, B " image test %s/n.img 10.0.0.0/8 2001:db8::/32", dir));
	ASSERT_EQ(1, run(NULL, 0, B " image test %s/n.img 11.0.0.0/8", dir));
	/* an address: present when a prefix holding it is */
	ASSERT_EQ(0, run(NULL, 0, B " image test %s/n.img 10.9.8.7 192.168.1.200 2001:db8:ff::1", dir));
	ASSERT_EQ(1, run(NULL, 0, B " image test %s/n.img 192.168.2.1", dir));
	ASSERT_EQ(1, run(NULL, 0, B " image test %s/n.img 2001:db9::1", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image test %s/n.img 10.0.0.1/8 2>/dev/null", dir));
	/* host bits set in the key file */
	f = fopen(strcat(strcpy((char[128]){ 0 }, dir), "/badnets"), "w");
	fprintf(f, "10.0.0.1/8\n");
	fclose(f);
	ASSERT_EQ(2, run(out, sizeof(out), B " image build --kind blocked --bits-per-key 16 --key-type net -file %s/badnets -o %s/x.img 2>&1", dir, dir));
	ASSERT_NE(NULL, strstr(out, "badnets:1:"));
}

TEST_F(bf, leveldb_export_import)
{
	char out[256];
	struct ldb_policy *pol = ldb_policy_new(10);
	const void *kp[5000];
	size_t kl[5000], flen, rlen;
	char keybuf[5000][16];
	void *theirs;
	u8 *raw;
	char path[128];

	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --kind classic --bits-per-key 10 -file %s/keys -o %s/c.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, B " image export --format leveldb %s/c.img > %s/c.raw", dir, dir));
	/* the export is LevelDB's own filter for the same keys */
	for (int i = 0; i < 5000; i++) {
		kl[i] = (size_t)snprintf(keybuf[i], 16, "key-%d", i);
		kp[i] = keybuf[i];
	}
	theirs = ldb_create_filter(pol, kp, kl, 5000, &flen);
	snprintf(path, sizeof(path), "%s/c.raw", dir);
	ASSERT_EQ(0, kbu_read_file(path, &raw, &rlen));
	ASSERT_EQ(flen, rlen);
	ASSERT_EQ(0, memcmp(theirs, raw, flen));
	free(raw);
	free(theirs);
	ldb_policy_free(pol);
	/* import and test; export again is identical */
	ASSERT_EQ(0, run(NULL, 0, B " image import --format leveldb %s/c.raw -o %s/i.img", dir, dir));
	/* (an imported image holds bytes keys: hex unless --key-format) */
	ASSERT_EQ(0, run(NULL, 0, B " image test --key-format str %s/i.img key-5 key-4000", dir));
	ASSERT_EQ(1, run(NULL, 0, B " image test --key-format str %s/i.img zzz-not-there", dir));
	ASSERT_EQ(0, run(NULL, 0, B " image export --format leveldb %s/i.img -o %s/c2.raw", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, "cmp -s %s/c.raw %s/c2.raw", dir, dir));
	/* non-classic export, bad raw input */
	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --kind blocked --bits-per-key 10 -file %s/keys -o %s/b.img", dir, dir));
	ASSERT_EQ(3, run(out, sizeof(out), B " image export --format leveldb %s/b.img 2>&1 >/dev/null", dir));
	ASSERT_NE(NULL, strstr(out, "bfctl: "));
	ASSERT_EQ(0, run(NULL, 0, "printf 'x' > %s/short.raw", dir));
	ASSERT_EQ(3, run(NULL, 0, B " image import --format leveldb %s/short.raw -o %s/s.img 2>/dev/null", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, "printf 'abc\\037' > %s/k31.raw", dir));
	ASSERT_EQ(3, run(NULL, 0, B " image import --format leveldb %s/k31.raw -o %s/s.img 2>/dev/null", dir, dir));
}

TEST_F(bf, usage_errors_exit_2)
{
	ASSERT_EQ(2, run(NULL, 0, B " 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " nosuchverb 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " image 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " image frobnicate 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str -file %s/keys 2>/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --kind nope --bits-per-key 10 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --fpr 0.01 --bits-per-key 10 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --fpr 1.5 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --fpr 0 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --bits 1000 --hashes 3 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --bits 1024 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --kind classic --seed 5 --bits-per-key 10 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --hash leveldb --bits-per-key 10 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --seed 1,2 --bits-per-key 10 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --key-type str --items 0 --fpr 0.01 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image info 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " image test %s/keys 2>/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image export %s/keys 2>/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image import --format leveldb %s/keys 2>/dev/null", dir));
	ASSERT_EQ(0, run(NULL, 0, B " --help"));
}

/* gozero and the Redis format: each refusal, exit code and message */
TEST_F(bf, gozero_errors)
{
	char out[4096], out2[4096];

	ASSERT_EQ(0, run(NULL, 0, B " image build --kind gozero --bits 1001 --key-type str -file %s/keys -o %s/g.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, B " image build --kind gozero --bits 1001 --hashes 14 --key-type str -file %s/keys -o %s/g14.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, "cmp %s/g.img %s/g14.img", dir, dir));
	ASSERT_EQ(2, run(out, sizeof(out), B " image build --kind gozero --bits 1001 --hashes 7 -file %s/keys -o %s/x.img 2>&1", dir, dir));
	ASSERT_NE(NULL, strstr(out, "gozero filters have 14"));
	ASSERT_EQ(2, run(NULL, 0, B " image build --kind gozero --hashes 14 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(out, sizeof(out), B " image build --kind gozero --bits 1001 --hash xxh64 -file %s/keys -o %s/x.img 2>&1", dir, dir));
	ASSERT_NE(NULL, strstr(out, "gozero filters have one hash"));
	ASSERT_EQ(2, run(out, sizeof(out), B " image build --kind gozero --bits 1001 --seed 3 -file %s/keys -o %s/x.img 2>&1", dir, dir));
	ASSERT_NE(NULL, strstr(out, "gozero filters have no seed"));
	ASSERT_EQ(2, run(NULL, 0, B " image build --kind blocked --hash murmur3 --bits-per-key 10 -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image build --kind gozero --bits 4294967297 --key-type str -file %s/keys -o %s/x.img 2>/dev/null", dir, dir));
	/* export: the format must fit the kind */
	ASSERT_EQ(0, run(NULL, 0, B " image build --bits-per-key 10 --key-type str -file %s/keys -o %s/b.img", dir, dir));
	ASSERT_EQ(3, run(out, sizeof(out), B " image export --format redis %s/b.img 2>&1 >/dev/null", dir));
	ASSERT_NE(NULL, strstr(out, "only gozero filters export as redis"));
	ASSERT_EQ(3, run(NULL, 0, B " image export --format leveldb %s/g.img 2>/dev/null >/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image export --format csv %s/g.img 2>/dev/null", dir));
	/* import: --bits needed, and only with redis; other options refused */
	ASSERT_EQ(0, run(NULL, 0, B " image export --format redis %s/g.img -o %s/v", dir, dir));
	ASSERT_EQ(2, run(out, sizeof(out), B " image import --format redis %s/v -o %s/x.img 2>&1", dir, dir));
	ASSERT_NE(NULL, strstr(out, "needs --bits"));
	ASSERT_EQ(2, run(NULL, 0, B " image import --format leveldb --bits 1001 %s/v -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image import --format redis --bits 1001 --fpr 1%% %s/v -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image import --format redis --bits 1001 --kind gozero %s/v -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(3, run(NULL, 0, B " image import --format redis --bits 1001 %s/nosuch -o %s/x.img 2>/dev/null", dir, dir));
	/* a --bits no go-zero filter has: a usage error, RAW not even opened */
	ASSERT_EQ(2, run(NULL, 0, B " image import --format redis --bits 0 %s/nosuch -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image import --format redis --bits 4294967297 %s/nosuch -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image import --format redis --bits 0 %s/v -o %s/x.img 2>/dev/null", dir, dir));
	ASSERT_EQ(0, access(strcat(strcpy((char[128]){ 0 }, dir), "/x.img"), F_OK) ? 0 : 1);
	/* the round trip keeps the payload (ceil(1001 / 8) bytes after the header) */
	ASSERT_EQ(0, run(NULL, 0, B " image import --format redis --bits 1001 --key-type str %s/v -o %s/r.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, "cmp -s -i 128 -n 126 %s/g.img %s/r.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, B " image test %s/r.img key-1 key-4999 >/dev/null", dir));
	/* probes: from the image or from the params, the same */
	ASSERT_EQ(0, run(out, sizeof(out), B " image probes %s/g.img key-7", dir));
	ASSERT_EQ(0, run(out2, sizeof(out2), B " image probes --kind gozero --bits 1001 --key-type str key-7"));
	ASSERT_STREQ(out, out2);
	ASSERT_EQ(2, run(NULL, 0, B " image probes --kind blocked --bits 5120 --hashes 4 00 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " image probes --kind gozero 00 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " image probes %s/g.img 2>/dev/null", dir));
	ASSERT_EQ(3, run(NULL, 0, B " image probes %s/nosuch 00 2>/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image probes --kind gozero --bits 9 zz 2>/dev/null"));
	/* a bad key partway: nothing on stdout (no half a document), the key named */
	ASSERT_EQ(2, run(out, sizeof(out), B " image probes -j --key-format hex %s/g.img 00 zz 2>/dev/null", dir));
	ASSERT_STREQ("", out);
	ASSERT_EQ(2, run(out, sizeof(out), B " image probes --kind gozero --bits 1001 00 zz 2>/dev/null"));
	ASSERT_STREQ("", out);
	ASSERT_EQ(2, run(out, sizeof(out), B " image probes --kind gozero --bits 1001 00 zz 2>&1 >/dev/null"));
	ASSERT_NE(NULL, strstr(out, "bad key 'zz'"));
	/* blocked: the image's seed gives the image's positions */
	ASSERT_EQ(0, run(NULL, 0, B " image build --bits 5120 --hashes 4 --seed 77 --key-type str -file %s/keys -o %s/s.img", dir, dir));
	ASSERT_EQ(0, run(out, sizeof(out), B " image probes -j %s/s.img key-3", dir));
	ASSERT_NE(NULL, strstr(out, "\"probes\":["));
	ASSERT_EQ(0, run(out2, sizeof(out2), B " image probes -j --kind blocked --bits 5120 --hashes 4 --seed 77 --key-type str key-3"));
	ASSERT_STREQ(out, out2);
}

/*
 * An option a verb would ignore is a usage error, wherever it stands;
 * -j and -q are honoured where the verb has output (image test).  The
 * kernel verbs judge their options before they look for the module.
 */
TEST_F(bf, ignored_options_are_errors)
{
	char out[1024];

	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --bits-per-key 10 --seed 7 -file %s/keys -o %s/o.img >/dev/null", dir, dir));
	/* image test -j: one document, as bfctl test -j */
	ASSERT_EQ(1, run(out, sizeof(out), B " image test -j %s/o.img key-1 nope", dir));
	ASSERT_NE(NULL, strstr(out, "\"keys\":[{\"key\":\"key-1\",\"present\":true},{\"key\":\"nope\",\"present\":false}],\"all_present\":false}"));
	ASSERT_EQ(0, run(out, sizeof(out), B " -j image test %s/o.img key-1", dir));
	ASSERT_NE(NULL, strstr(out, "\"all_present\":true"));
	/* -q image test: the exit status alone */
	ASSERT_EQ(0, run(out, sizeof(out), B " -q image test %s/o.img key-1", dir));
	ASSERT_STREQ("", out);
	ASSERT_EQ(1, run(out, sizeof(out), B " -q image test %s/o.img nope", dir));
	ASSERT_STREQ("", out);
	/* refused, exit 2, naming the option */
	ASSERT_EQ(2, run(out, sizeof(out), B " -j image build --key-type str --bits-per-key 10 -file %s/keys -o %s/o.img 2>&1", dir, dir));
	ASSERT_NE(NULL, strstr(out, "-j is not allowed here"));
	ASSERT_EQ(2, run(out, sizeof(out), B " image info --items 5 %s/o.img 2>&1", dir));
	ASSERT_NE(NULL, strstr(out, "option '--items' is not allowed here"));
	ASSERT_EQ(2, run(NULL, 0, B " -q image info %s/o.img 2>/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image export -j --format leveldb %s/o.img 2>/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image test --format leveldb %s/o.img key-1 2>/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " image import --kind classic --format leveldb %s/o.img -o %s/p.img 2>/dev/null", dir, dir));
	/* -file is build's alone; --kind is refused even as the default */
	ASSERT_EQ(2, run(out, sizeof(out), B " image import -file %s/keys --format leveldb %s/o.img -o %s/p.img 2>&1", dir, dir, dir));
	ASSERT_NE(NULL, strstr(out, "file' is not allowed here"));
	ASSERT_EQ(2, run(NULL, 0, B " image probes -file %s/keys %s/o.img key-1 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image import --kind blocked --format leveldb %s/o.img -o %s/p.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(NULL, 0, B " image import --kind gozero --format redis --bits 1001 %s/keys -o %s/p.img 2>/dev/null", dir, dir));
	ASSERT_EQ(2, run(out, sizeof(out), B " image probes --kind blocked %s/o.img key-1 2>/dev/null", dir));
	ASSERT_STREQ("", out);
	ASSERT_EQ(-1, access(strcat(strcpy((char[128]){ 0 }, dir), "/p.img"), F_OK));
	/* the kernel verbs: -j only where there is JSON output */
	ASSERT_EQ(2, run(out, sizeof(out), B " destroy -j x 2>&1"));
	ASSERT_NE(NULL, strstr(out, "option '-j' is not allowed here"));
	ASSERT_EQ(2, run(NULL, 0, B " -j destroy x 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " -j rebuild x -file %s/keys 2>/dev/null", dir));
	ASSERT_EQ(2, run(NULL, 0, B " -j save 2>/dev/null"));
	ASSERT_EQ(2, run(NULL, 0, B " -j restore -check -file %s/keys 2>/dev/null", dir));
	ASSERT_EQ(2, run(out, sizeof(out), B " list -t -j 2>&1"));
	ASSERT_NE(NULL, strstr(out, "exclude each other"));
	/* (and where -j is taken, it gets past the options to the module) */
	ASSERT_EQ(3, run(NULL, 0, B " -j info x 2>/dev/null"));
}

TEST_F(bf, bad_files_exit_3)
{
	char out[1024];

	ASSERT_EQ(3, run(out, sizeof(out), B " image info %s/missing.img 2>&1", dir));
	ASSERT_NE(NULL, strstr(out, "bfctl: "));
	/* the kernel verbs say when the module is missing (never loaded here) */
	if (access("/sys/module/kbloom", F_OK)) {
		ASSERT_EQ(3, run(out, sizeof(out), B " list 2>&1"));
		ASSERT_NE(NULL, strstr(out, "the kbloom module is not loaded"));
		/* a failed list prints nothing on stdout, not "[]" */
		ASSERT_EQ(3, run(out, sizeof(out), B " -j list 2>/dev/null"));
		ASSERT_STREQ("", out);
		ASSERT_EQ(3, run(out, sizeof(out), B " list -t 2>/dev/null"));
		ASSERT_STREQ("", out);
		ASSERT_EQ(3, run(out, sizeof(out), B " monitor 2>&1"));
		ASSERT_NE(NULL, strstr(out, "the kbloom module is not loaded"));
		/* the control plane is netlink only: no fallback to the device */
		ASSERT_EQ(3, run(out, sizeof(out), B " info f 2>&1"));
		ASSERT_NE(NULL, strstr(out, "the kbloom module is not loaded"));
		ASSERT_EQ(3, run(out, sizeof(out), B " create f blocked 2>&1"));
		ASSERT_NE(NULL, strstr(out, "the kbloom module is not loaded"));
		ASSERT_EQ(3, run(out, sizeof(out), B " destroy f 2>&1"));
		ASSERT_NE(NULL, strstr(out, "the kbloom module is not loaded"));
		ASSERT_EQ(3, run(out, sizeof(out), B " add f k 2>&1"));
		ASSERT_NE(NULL, strstr(out, "the kbloom module is not loaded"));
		ASSERT_EQ(0, run(out, sizeof(out), B " version 2>&1"));
		ASSERT_NE(NULL, strstr(out, "control transport none"));
	}
	ASSERT_EQ(3, run(out, sizeof(out), B " image info %s/keys 2>&1", dir));
	ASSERT_NE(NULL, strstr(out, "malformed image: "));
	ASSERT_EQ(3, run(NULL, 0, B " image build --key-type str --bits-per-key 10 -file %s/nokeys -o %s/x.img 2>/dev/null", dir, dir));
	/*
	 * corrupt one payload byte: CRC.  Flip it rather than write 0xff:
	 * the seed is random, and 1 time in about 256 the byte was 0xff
	 * already, which left the image intact and the test red.
	 */
	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --bits-per-key 10 -file %s/keys -o %s/a.img", dir, dir));
	ASSERT_EQ(0, run(NULL, 0, "python3 -c 'import sys; f = open(sys.argv[1], \"r+b\"); f.seek(200); b = f.read(1)[0]; f.seek(200); f.write(bytes([b ^ 0xff]))' %s/a.img", dir));
	ASSERT_EQ(3, run(out, sizeof(out), B " image info %s/a.img 2>&1", dir));
	ASSERT_NE(NULL, strstr(out, "CRC mismatch"));
	ASSERT_EQ(3, run(NULL, 0, B " image test %s/a.img key-1 2>/dev/null", dir));
	/* truncated */
	ASSERT_EQ(0, run(NULL, 0, B " image build --key-type str --bits-per-key 10 -file %s/keys -o %s/t.img && truncate -s -1 %s/t.img", dir, dir, dir));
	ASSERT_EQ(3, run(out, sizeof(out), B " image info %s/t.img 2>&1", dir));
	ASSERT_NE(NULL, strstr(out, "truncated"));
}

/*
 * Output paths (-o): a regular file or a new path is replaced whole and
 * keeps an existing file's mode; a symlink is followed (the link stays);
 * a device or FIFO is written in place, never replaced by a regular file;
 * "-" is stdout, never a file named "-"; a failed write leaves the old
 * file as it was and no temporary file.
 */
TEST_F(bf, output_paths)
{
	const char *build = B " image build --key-type str --kind classic --items 5000 --fpr 0.01 -file %s/keys -o %s";
	char out[256], path[160];

	/* a new path: 0600, the image holds its seed */
	snprintf(path, sizeof(path), "%s/new.img", dir);
	ASSERT_EQ(0, run(NULL, 0, build, dir, path));
	EXPECT_EQ(0, run(NULL, 0, "test \"$(stat -c %%a %s)\" = 600", path));
	/* an existing file keeps its mode (and owner) */
	ASSERT_EQ(0, run(NULL, 0, "echo old > %s/mode.img && chmod 640 %s/mode.img", dir, dir));
	snprintf(path, sizeof(path), "%s/mode.img", dir);
	ASSERT_EQ(0, run(NULL, 0, build, dir, path));
	EXPECT_EQ(0, run(NULL, 0, "test \"$(stat -c %%a %s)\" = 640", path));
	EXPECT_EQ(0, run(NULL, 0, "cmp -s %s %s/new.img", path, dir));
	/* a symlink: its target gets the image, the link stays a link */
	ASSERT_EQ(0, run(NULL, 0, "echo old > %s/target && ln -s target %s/link", dir, dir));
	snprintf(path, sizeof(path), "%s/link", dir);
	ASSERT_EQ(0, run(NULL, 0, build, dir, path));
	EXPECT_EQ(0, run(NULL, 0, "test -L %s/link && cmp -s %s/target %s/new.img", dir, dir, dir));
	/* a dangling symlink is an error, not a new file in its place */
	ASSERT_EQ(0, run(NULL, 0, "ln -s nowhere %s/dangling", dir));
	snprintf(path, sizeof(path), "%s/dangling", dir);
	EXPECT_EQ(3, run(NULL, 0, "%s 2>/dev/null", build, dir, path));
	EXPECT_EQ(0, run(NULL, 0, "test -L %s/dangling && ! test -e %s/nowhere", dir, dir));
	/* a FIFO is written in place: a reader gets the image */
	ASSERT_EQ(0, run(NULL, 0, "mkfifo %s/fifo", dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ASSERT_EQ(0, run(NULL, 0, "timeout 10 cat %s/fifo > %s/from-fifo & timeout 10 " B " image build --key-type str --kind classic --items 5000 --fpr 0.01 -file %s/keys -o %s/fifo; r=$?; wait; exit $r", dir, dir, dir, dir));
	EXPECT_EQ(0, run(NULL, 0, "test -p %s/fifo && cmp -s %s/from-fifo %s/new.img", dir, dir, dir));
	/* a device node (root only: mknod): still the device afterwards */
	if (!geteuid()) {
		ASSERT_EQ(0, run(NULL, 0, "mknod %s/null c 1 3", dir));
		snprintf(path, sizeof(path), "%s/null", dir);
		EXPECT_EQ(0, run(NULL, 0, build, dir, path));
		EXPECT_EQ(0, run(NULL, 0, "test -c %s/null", dir));
	}
	/* "-" is stdout, for image build --key-type str and for export alike */
	EXPECT_EQ(0, run(NULL, 0, "cd %s && " B " image build --key-type str --kind classic --items 5000 --fpr 0.01 -file keys -o - > stdout.img && cmp -s stdout.img new.img && ! test -e ./-", dir));
	EXPECT_EQ(0, run(NULL, 0, "cd %s && " B " image export --format leveldb new.img -o - > a.raw && " B " image export --format leveldb new.img > b.raw && cmp -s a.raw b.raw && test -s a.raw && ! test -e ./-", dir));
	/* a failed build leaves the old file alone and no temporary file */
	ASSERT_EQ(0, run(NULL, 0, "echo 'not a key' > %s/badkeys && echo keep > %s/keep.img", dir, dir));
	/* (a bad line is bad input: exit 2, as a bad key given) */
	EXPECT_EQ(2, run(NULL, 0, B " image build --kind blocked --key-type ipv4 --items 10 --fpr 0.01 -file %s/badkeys -o %s/keep.img 2>/dev/null", dir, dir));
	EXPECT_EQ(0, run(out, sizeof(out), "cat %s/keep.img; ls %s | grep -c tmp; true", dir, dir));
	EXPECT_STREQ("keep\n0\n", out);
}

/* --version, help VERB and VERB --help: the verb's usage on stdout, exit 0 */
TEST_F(bf, help_and_version)
{
	static const char *const verbs[] = {
		"create", "destroy", "list", "info", "add", "del", "test",
		"test-and-add", "save", "restore", "swap", "rename", "flush",
		"rebuild", "upload", "export", "monitor", "version",
	};
	char out[4096], out2[4096], want[64];
	size_t i;

	ASSERT_EQ(0, run(out, sizeof(out), B " --version"));
	EXPECT_EQ(0, strncmp(out, "bfctl ", 6));
	EXPECT_NE(NULL, strchr(out + 6, '.'));
	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
		snprintf(want, sizeof(want), "usage: bfctl [-j] [-q] %s ",
			 verbs[i]);
		EXPECT_EQ(0, run(out, sizeof(out), B " help %s 2>&1", verbs[i]));
		EXPECT_EQ(0, strncmp(out, want, strlen(want)))
			TH_LOG("help %s: %s", verbs[i], out);
		EXPECT_EQ(0, run(out2, sizeof(out2), B " %s --help 2>&1",
				 verbs[i]));
		EXPECT_STREQ(out, out2);
		EXPECT_EQ(0, run(out2, sizeof(out2), B " %s -h 2>/dev/null",
				 verbs[i]));
		EXPECT_STREQ(out, out2);
	}
	EXPECT_EQ(0, run(out, sizeof(out), B " help image"));
	EXPECT_NE(NULL, strstr(out, "bfctl image build"));
	EXPECT_EQ(0, run(out2, sizeof(out2), B " image build --key-type str --help"));
	EXPECT_STREQ(out, out2);
	EXPECT_EQ(2, run(out, sizeof(out), B " help nosuch 2>&1"));
	EXPECT_NE(NULL, strstr(out, "unknown verb 'nosuch'"));
}

/*
 * A save ends with "# bfctl save end", written only when the save
 * succeeded: restore refuses a save without it (a failed 'save > file'
 * must not restore "successfully" to less); plain create/add lines need
 * no end, and may follow one.
 */
TEST_F(bf, save_needs_its_end)
{
	char out[1024];

	ASSERT_EQ(0, run(NULL, 0, "printf '# bfctl save 1\ncreate x blocked --items 10 --fpr 0.01 --key-type str\nadd x k1\n' > %s/cut.save", dir));
	EXPECT_EQ(2, run(out, sizeof(out), B " restore -check -file %s/cut.save 2>&1", dir));
	EXPECT_NE(NULL, strstr(out, "cut short")) TH_LOG("%s", out);
	ASSERT_EQ(0, run(NULL, 0, "{ cat %s/cut.save; echo '# bfctl save end'; } > %s/whole.save", dir, dir));
	EXPECT_EQ(0, run(out, sizeof(out), B " restore -check -file %s/whole.save 2>&1", dir));
	EXPECT_NE(NULL, strstr(out, "1 filters, 1 keys: ok")) TH_LOG("%s", out);
	/* lines an admin appends after a whole save are fine */
	ASSERT_EQ(0, run(NULL, 0, "{ cat %s/whole.save; echo 'add x k2'; } > %s/more.save", dir, dir));
	EXPECT_EQ(0, run(out, sizeof(out), B " restore -check -file %s/more.save 2>&1", dir));
	EXPECT_NE(NULL, strstr(out, "1 filters, 2 keys: ok")) TH_LOG("%s", out);
	EXPECT_EQ(0, run(NULL, 0, "sed 1d %s/cut.save | " B " restore -check 2>/dev/null", dir));
}

TEST_HARNESS_MAIN
