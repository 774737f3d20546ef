// SPDX-License-Identifier: GPL-2.0
/*
 * What the image verbs cost in memory, and what they refuse: runs the
 * built bfctl (BFCTL_PATH) as a child and reads its peak resident set
 * (wait4()'s ru_maxrss).  A 256 MiB filter must be built, exported and
 * imported with one copy of the payload in memory, not a payload plus a
 * serialized image; an --items or --bits that asks for more than an image
 * can ever be is refused before anything is allocated or written.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "kbtest.h"

#define B	BFCTL_PATH
#define PAYLOAD	(256ULL << 20)		/* the filter's payload */
#define BITS	"2147483648"		/* 256 MiB of bits */
/*
 * one payload plus code, heap and I/O buffers; two copies would be 2x
 * (ASan's shadow and allocator add about 15% of the payload)
 */
#ifdef __SANITIZE_ADDRESS__
#define PEAK_MAX	(PAYLOAD * 15 / 10)
#else
#define PEAK_MAX	(PAYLOAD * 13 / 10)
#endif

static char dir[64];

/*
 * Run a shell command line (exec'd: the child is the last command) with
 * its stderr in err (if any); the exit code, and the child's peak RSS in
 * bytes in *peak.
 */
static int run_peak(u64 *peak, char *err, size_t errlen, const char *fmt, ...)
{
	char cmd[4096], path[128];
	struct rusage ru;
	va_list ap;
	pid_t pid;
	int st, fd;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	if (peak)
		*peak = (u64)ru.ru_maxrss * 1024;
	if (err) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(err, 1, errlen - 1, f) : 0;

		err[n] = 0;
		if (f)
			fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static off_t file_size(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : st.st_size;
}

FIXTURE(mem) {
	int unused;
};

FIXTURE_SETUP(mem)
{
	FILE *f;

	strcpy(dir, "/tmp/kbmemXXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
	f = fopen(strcat(strcpy((char[128]){ 0 }, dir), "/keys"), "w");
	ASSERT_NE(NULL, f);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "key-%d\n", i);
	fclose(f);
}

FIXTURE_TEARDOWN(mem)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		TH_LOG("cleanup of %s failed", dir);
}

TEST_F(mem, build_streams_the_image)
{
	u64 peak;

	ASSERT_EQ(0, run_peak(&peak, NULL, 0, "exec " B " -q image build --key-type str --kind blocked --bits " BITS " --hashes 7 --seed 3 -file %s/keys -o %s/a.img", dir, dir));
	TH_LOG("image build of a %llu MiB filter: peak RSS %llu MiB",
	       (unsigned long long)PAYLOAD >> 20,
	       (unsigned long long)peak >> 20);
	ASSERT_LT(peak, PEAK_MAX);
	ASSERT_EQ((off_t)(PAYLOAD + sizeof(struct kb_image_hdr) +
			  KB_IMAGE_TRAILER_LEN), file_size("a.img"));
	/* the same image to a pipe, byte for byte; and it checks out */
	ASSERT_EQ(0, run_peak(NULL, NULL, 0, B " -q image build --key-type str --kind blocked --bits " BITS " --hashes 7 --seed 3 -file %s/keys -o - | cmp -s - %s/a.img", dir, dir));
	ASSERT_EQ(0, run_peak(NULL, NULL, 0, B " -q image test --key-format str %s/a.img key-0 key-999", dir));
}

TEST_F(mem, export_and_import_hold_one_copy)
{
	u64 peak;

	ASSERT_EQ(0, run_peak(NULL, NULL, 0, B " -q image build --key-type str --kind classic --bits " BITS " --hashes 6 -file %s/keys -o %s/c.img", dir, dir));
	ASSERT_EQ(0, run_peak(&peak, NULL, 0, "exec " B " image export --format leveldb %s/c.img -o %s/c.raw", dir, dir));
	TH_LOG("image export: peak RSS %llu MiB",
	       (unsigned long long)peak >> 20);
	ASSERT_LT(peak, PEAK_MAX);
	/* the classic payload: m / 8 bytes and the k byte */
	ASSERT_EQ((off_t)(PAYLOAD + 1), file_size("c.raw"));
	ASSERT_EQ(0, run_peak(&peak, NULL, 0, "exec " B " -q image import --format leveldb %s/c.raw -o %s/i.img", dir, dir));
	TH_LOG("image import: peak RSS %llu MiB",
	       (unsigned long long)peak >> 20);
	ASSERT_LT(peak, PEAK_MAX);
	/* import of an export: the same filter (count aside) */
	ASSERT_EQ(0, run_peak(NULL, NULL, 0, B " image export --format leveldb %s/i.img -o - | cmp -s - %s/c.raw", dir, dir));
}

/*
 * A go-zero Redis value is read straight into the payload: one copy; a
 * value longer than --bits allows is refused after one byte too many, not
 * read whole (a sparse file far bigger than the filter, /dev/zero)
 */
TEST_F(mem, redis_import_holds_one_copy)
{
	char err[1024];
	u64 peak;

	ASSERT_EQ(0, run_peak(NULL, NULL, 0, B " -q image build --key-type str --kind gozero --bits " BITS " -file %s/keys -o %s/g.img", dir, dir));
	ASSERT_EQ(0, run_peak(NULL, NULL, 0, B " image export --format redis %s/g.img -o %s/g.raw", dir, dir));
	ASSERT_LT(PAYLOAD * 9 / 10, (u64)file_size("g.raw"));
	ASSERT_EQ(0, run_peak(&peak, NULL, 0, "exec " B " -q image import --format redis --bits " BITS " --key-type str %s/g.raw -o %s/r.img", dir, dir));
	TH_LOG("image import --format redis: peak RSS %llu MiB",
	       (unsigned long long)peak >> 20);
	ASSERT_LT(peak, PEAK_MAX);
	ASSERT_EQ(0, run_peak(NULL, NULL, 0, B " image export --format redis %s/r.img -o - | cmp -s - %s/g.raw", dir, dir));
	/* 256 MiB (sparse) for a filter of 8000 bits: refused, not read */
	ASSERT_EQ(0, run_peak(NULL, NULL, 0, "truncate -s 256M %s/long.raw", dir));
	ASSERT_EQ(3, run_peak(&peak, err, sizeof(err), "exec " B " image import --format redis --bits 8000 %s/long.raw -o %s/x.img", dir, dir));
	ASSERT_NE(NULL, strstr(err, "longer than its 1000 bytes"));
	ASSERT_LT(peak, 64ULL << 20);
	ASSERT_EQ(-1, file_size("x.img"));
	/* a source without end: refused, not waited on */
	ASSERT_EQ(3, run_peak(&peak, NULL, 0, "exec timeout 60 " B " image import --format redis --bits 8000 /dev/zero -o %s/x.img", dir));
	ASSERT_LT(peak, 64ULL << 20);
	ASSERT_EQ(-1, file_size("x.img"));
}

/* a refused build exits 2, names the bytes and writes nothing */
static void refused(struct __test_metadata *_metadata, const char *opts,
		    const char *needs)
{
	char err[1024], path[128];
	FILE *f;

	/* no output yet: none is created */
	ASSERT_EQ(2, run_peak(NULL, err, sizeof(err), B " image build --key-type str %s -file %s/keys -o %s/new.img", opts, dir, dir));
	ASSERT_NE(NULL, strstr(err, "refused: the filter needs "));
	ASSERT_NE(NULL, strstr(err, needs));
	ASSERT_NE(NULL, strstr(err, "max_filter_bytes of "));
	ASSERT_EQ(-1, file_size("new.img"));
	/* an existing output stays as it was */
	snprintf(path, sizeof(path), "%s/old.img", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("old contents\n", f);
	fclose(f);
	ASSERT_EQ(2, run_peak(NULL, NULL, 0, B " image build --key-type str %s -file %s/keys -o %s/old.img", opts, dir, dir));
	ASSERT_EQ(13, file_size("old.img"));
	/* and no temporary file is left next to it */
	ASSERT_EQ(0, run_peak(NULL, NULL, 0, "test \"$(ls %s | grep -c tmp)\" = 0", dir));
}

TEST_F(mem, huge_sizes_refused_up_front)
{
	u64 peak;

	/* 10^12 keys at 1%: about 1.1 TiB */
	refused(_metadata, "--kind blocked --items 1000000000000 --fpr 0.01",
		"1.1 TiB");
	/* past what the core sizes at all (m over 2^38): still named */
	refused(_metadata, "--kind blocked --bits 1000000000000000 --hashes 7",
		"(125000000000000 bytes)");
	refused(_metadata, "--kind counting --items 100000000000 --bits-per-key 10",
		"465.7 GiB");
	/* refused before the keys are read: a missing key file is not
	 * reached, and nothing of the size is allocated
	 */
	ASSERT_EQ(2, run_peak(&peak, NULL, 0, "exec " B " image build --kind blocked --items 1000000000000 --fpr 0.01 -file %s/no-such-file -o %s/x.img", dir, dir));
	ASSERT_LT(peak, 64ULL << 20);
	/* within the limit, the same path builds */
	ASSERT_EQ(0, run_peak(NULL, NULL, 0, B " -q image build --key-type str --kind blocked --items 1000 --fpr 0.01 -file %s/keys -o %s/ok.img", dir, dir));
}

TEST_HARNESS_MAIN
