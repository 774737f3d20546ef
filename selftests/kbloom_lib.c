// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom against the kernel (cli lane): filters made with the build's
 * bfctl (BFCTL_PATH), opened and mapped through libkbloom.so.  Unlike the
 * other selftests it links the library, since the library is what it
 * tests.  Checked: for every kind and the str, ip and net key types the
 * answers equal `bfctl test`'s key by key, false positives included; 4
 * threads testing through rebuilds, an upload and a swap see no false
 * negative for keys in both generations, poll() wakes up, flush and
 * destroy are followed (ENOENT); writers add and readers cannot; the
 * exception set is honoured; a forked child tests; and a service user
 * granted the readers group runs `bfctl test` without CAP_NET_ADMIN with
 * root's output; and a process in the readers group with no capability
 * answers as root's KB_IOC_TEST and `bfctl test` do for every kind and
 * key type (1M keys for one key type a kind).  Every test skips when the
 * module cannot open filters (KB_IOC_OPEN) or, for the last two, has no
 * grants.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "kb_core.h"
#include "kbuser.h"
#include "../userspace/libkbloom/kbloom.h"	/* not kmod/kbloom.h */

#define B	BFCTL_PATH
#define NIN	1000
#define NOUT	3000

static char dir[64];

static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* open name, or skip the test where the module cannot open filters */
#define OPEN_OR_SKIP(name, flags, h) do {				\
	int __r = kbloom_open(name, flags, h);				\
	if (__r == -EOPNOTSUPP)						\
		SKIP(return, "the module cannot open filters (KB_IOC_OPEN)"); \
	ASSERT_EQ(0, __r) {						\
		TH_LOG("kbloom_open %s: %s", name, kbloom_errmsg());	\
	}								\
} while (0)

/* key i's text for a key type; for net: in keys /24s, then hosts */
static void key_text(u32 kt, u32 i, char *s, size_t n)
{
	if (kt == KB_KEY_STR)
		snprintf(s, n, "key-%u", i);
	else if (kt == KB_KEY_IP && (i & 1))
		snprintf(s, n, "2001:db8::%x", i);
	else if (kt == KB_KEY_IP)
		snprintf(s, n, "10.%u.%u.%u", i >> 16, (i >> 8) & 0xff, i & 0xff);
	else if (i < NIN)	/* net: the prefixes added */
		snprintf(s, n, "10.%u.%u.0/24", i >> 8, i & 0xff);
	else			/* hosts: the first NIN in those prefixes */
		snprintf(s, n, "10.%u.%u.7", (i - NIN) >> 8, (i - NIN) & 0xff);
}

FIXTURE(lib) {
	int unused;
};

FIXTURE_SETUP(lib)
{
	strcpy(dir, "/tmp/kblibXXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
}

FIXTURE_TEARDOWN(lib)
{
	sh("for f in kl.a kl.p kl.r kl.r2 kl.w kl.e kl.f kl.g; do %s destroy $f 2> /dev/null; done; rm -rf %s",
	   B, dir);
}

static const char *const kinds[] = { "blocked", "classic", "counting", "gozero" };

TEST_F_TIMEOUT(lib, answers_equal_bfctl_test, 600)
{
	static const u32 types[] = { KB_KEY_STR, KB_KEY_IP, KB_KEY_NET };
	u32 kind, t, i, n = NIN + NOUT;

	for (kind = 0; kind < 4; kind++) {
		for (t = 0; t < 3; t++) {
			u32 kt = types[t], len;
			struct kbloom_key *k = calloc(n, sizeof(*k));
			u8 (*bin)[KB_KEY_MAX_LEN + 1] = calloc(n, sizeof(*bin));
			u64 *bm = calloc(n / 64 + 1, 8);
			char path[128], text[64], line[256];
			struct kbloom *h;
			long hits, fp = 0;
			FILE *f, *cmd;

			snprintf(path, sizeof(path), "%s/in", dir);
			f = fopen(path, "w");
			for (i = 0; i < NIN; i++) {
				key_text(kt, i, text, sizeof(text));
				fprintf(f, "%s\n", text);
			}
			fclose(f);
			ASSERT_EQ(0, sh("%s create kl.a %s %s --key-type %s && %s add --force kl.a -file %s > /dev/null 2>&1",
					B, kinds[kind], kind == KB_KIND_GOZERO ?
					"--bits 8000" : "--items 1000 --fpr 0.05",
					kb_key_type_name(kt), B, path));
			OPEN_OR_SKIP("kl.a", KBLOOM_RDONLY, &h);
			snprintf(path, sizeof(path), "%s/q", dir);
			f = fopen(path, "w");
			for (i = 0; i < n; i++) {
				key_text(kt, i, text, sizeof(text));
				fprintf(f, " %s", text);
				ASSERT_EQ(0, kbu_key_parse(kt, KBU_FMT_STR, text,
							   strlen(text), bin[i], &len, NULL));
				k[i].data = bin[i];
				k[i].len = len;
			}
			fclose(f);
			hits = kbloom_test_many(h, k, n, bm);
			ASSERT_GE(hits, NIN);
			/* the kernel's answers over netlink, one line a key */
			snprintf(line, sizeof(line), "%s test kl.a $(cat %s)", B, path);
			cmd = popen(line, "r");
			ASSERT_NE(NULL, cmd);
			for (i = 0; i < n && fgets(line, sizeof(line), cmd); i++) {
				bool want = strstr(line, ": maybe present") != NULL;
				bool got = bm[i / 64] >> (i % 64) & 1;

				ASSERT_EQ(want, got) {
					TH_LOG("%s %s: key %u: %s", kinds[kind],
					       kb_key_type_name(kt), i, line);
				}
				ASSERT_EQ(got, kbloom_test(h, k[i].data, k[i].len));
				if (i >= (kt == KB_KEY_NET ? 2 * NIN : NIN))
					fp += got;
			}
			pclose(cmd);
			ASSERT_EQ(n, i);
			ASSERT_GT(fp, 0) {
				TH_LOG("%s %s: no false positive", kinds[kind],
				       kb_key_type_name(kt));
			}
			kbloom_close(h);
			ASSERT_EQ(0, sh("%s destroy kl.a", B));
			free(k);
			free(bin);
			free(bm);
		}
	}
}

struct reader {
	struct kbloom *h;
	int *stop;
	long misses, errors, rounds;
	pthread_t t;
};

#define NBOTH	2000

static struct kbloom_key both[NBOTH];
static char both_text[NBOTH][16];

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	u64 bm[NBOTH / 64 + 1];

	while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED)) {
		long hits = kbloom_test_many(r->h, both, NBOTH, bm);

		if (hits < 0)
			r->errors++;
		else
			r->misses += NBOTH - hits;
		r->rounds++;
	}
	return NULL;
}

/* keys "s0".."s1999" in every generation, plus "gN-..." of generation N */
static void write_keys(const char *path, int gen)
{
	FILE *f = fopen(path, "w");
	int i;

	for (i = 0; i < NBOTH; i++)
		fprintf(f, "%s\n", both_text[i]);
	for (i = 0; i < 500; i++)
		fprintf(f, "g%d-%d\n", gen, i);
	fclose(f);
}

static short poll_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLPRI };

	return poll(&p, 1, ms) == 1 ? p.revents : 0;
}

TEST_F_TIMEOUT(lib, follows_rebuild_upload_swap_flush_destroy, 300)
{
	struct reader rd[4];
	struct kbloom *h, *w;
	char keys[128], img[128];
	int stop = 0, i;

	for (i = 0; i < NBOTH; i++) {
		snprintf(both_text[i], sizeof(both_text[i]), "s%d", i);
		both[i] = (struct kbloom_key){ both_text[i], strlen(both_text[i]) };
	}
	snprintf(keys, sizeof(keys), "%s/keys", dir);
	write_keys(keys, 1);
	ASSERT_EQ(0, sh("%s create kl.r blocked --items 5000 --fpr 0.01 --key-type str && %s add kl.r -file %s > /dev/null",
			B, B, keys));
	write_keys(keys, 9);
	ASSERT_EQ(0, sh("%s create kl.r2 blocked --items 5000 --fpr 0.01 --key-type str && %s add kl.r2 -file %s > /dev/null",
			B, B, keys));
	OPEN_OR_SKIP("kl.r", KBLOOM_RDONLY, &h);
	OPEN_OR_SKIP("kl.r", KBLOOM_RDONLY, &w);	/* watched with poll */
	ASSERT_EQ(0, poll_fd(kbloom_fd(w), 0));
	for (i = 0; i < 4; i++) {
		rd[i] = (struct reader){ .h = h, .stop = &stop };
		ASSERT_EQ(0, pthread_create(&rd[i].t, NULL, reader_main, &rd[i]));
	}
	usleep(100000);
	write_keys(keys, 2);
	ASSERT_EQ(0, sh("%s rebuild kl.r -file %s > /dev/null", B, keys));
	ASSERT_NE(0, poll_fd(kbloom_fd(w), 5000) & POLLPRI);
	ASSERT_EQ(1, kbloom_refresh(w));
	ASSERT_EQ(0, poll_fd(kbloom_fd(w), 0));
	ASSERT_EQ(1, kbloom_test(w, "g2-7", 4));
	usleep(100000);
	write_keys(keys, 3);
	snprintf(img, sizeof(img), "%s/img", dir);
	ASSERT_EQ(0, sh("%s image build --kind blocked --key-type str --items 5000 --fpr 0.01 -file %s -o %s > /dev/null && %s upload kl.r %s",
			B, keys, img, B, img));
	usleep(100000);
	ASSERT_EQ(0, sh("%s swap kl.r kl.r2", B));
	usleep(100000);
	ASSERT_EQ(0, sh("%s rebuild kl.r -file %s > /dev/null", B, keys));
	usleep(100000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++) {
		pthread_join(rd[i].t, NULL);
		ASSERT_EQ(0, rd[i].errors);
		ASSERT_EQ(0, rd[i].misses) {
			TH_LOG("reader %d: %ld false negatives", i, rd[i].misses);
		}
		ASSERT_GT(rd[i].rounds, 0);
	}
	/* the latest generation's own keys, through the remapped handle */
	ASSERT_EQ(1, kbloom_test(h, "g3-7", 4));

	ASSERT_EQ(0, sh("%s flush kl.r", B));
	ASSERT_EQ(0, kbloom_test(h, "s1", 2));
	ASSERT_EQ(0, sh("%s destroy kl.r", B));
	ASSERT_EQ(-ENOENT, kbloom_test(h, "s1", 2));
	ASSERT_NE(NULL, strstr(kbloom_errmsg(), "destroyed"));
	ASSERT_EQ(-ENOENT, kbloom_refresh(w));
	ASSERT_NE(0, poll_fd(kbloom_fd(w), 1000) & POLLHUP);
	kbloom_close(h);
	kbloom_close(w);
}

TEST_F(lib, writers_add_readers_cannot)
{
	struct kbloom_key k[100];
	char text[100][8];
	struct kbloom_info info;
	struct kbloom *w, *r;
	int i;

	ASSERT_EQ(0, sh("%s create kl.w blocked --items 1000 --fpr 0.001 --key-type str", B));
	OPEN_OR_SKIP("kl.w", KBLOOM_WRITE, &w);
	OPEN_OR_SKIP("kl.w", KBLOOM_RDONLY, &r);
	ASSERT_EQ(0, kbloom_info(w, &info));
	ASSERT_EQ(KBLOOM_WRITE, info.flags);
	ASSERT_EQ(-EROFS, kbloom_add(r, "x", 1));
	ASSERT_EQ(-EROFS, kbloom_test_and_add(r, "x", 1));
	for (i = 0; i < 100; i++) {
		snprintf(text[i], sizeof(text[i]), "w%d", i);
		k[i] = (struct kbloom_key){ text[i], strlen(text[i]) };
	}
	ASSERT_EQ(100, kbloom_add_many(w, k, 100));
	ASSERT_EQ(0, kbloom_add_many(w, k, 100));
	/* the reader's mapping shows the adds at once */
	ASSERT_EQ(100, kbloom_test_many(r, k, 100, NULL));
	ASSERT_EQ(0, kbloom_test_and_add(w, "fresh", 5));
	ASSERT_EQ(1, kbloom_test_and_add(w, "fresh", 5));
	ASSERT_EQ(0, kbloom_add(w, "other", 5));
	ASSERT_EQ(1, kbloom_test(r, "other", 5));
	ASSERT_EQ(0, sh("%s test -q kl.w w0 w99 fresh other", B));
	ASSERT_EQ(-EINVAL, kbloom_add(w, "", 0));
	kbloom_close(w);
	kbloom_close(r);
}

TEST_F(lib, exceptions_answer_absent)
{
	struct kbloom_key k[2] = { { "a", 1 }, { "b", 1 } };
	struct kbloom *h;
	u64 bm = 0;

	ASSERT_EQ(0, sh("%s create kl.e blocked --items 100 --fpr 0.001 --key-type str && %s add kl.e a b",
			B, B));
	OPEN_OR_SKIP("kl.e", KBLOOM_RDONLY, &h);
	ASSERT_EQ(1, kbloom_test(h, "a", 1));
	ASSERT_EQ(0, sh("%s except kl.e add a", B));
	ASSERT_EQ(0, kbloom_test(h, "a", 1));
	ASSERT_EQ(1, kbloom_test(h, "b", 1));
	ASSERT_EQ(1, kbloom_test_many(h, k, 2, &bm));
	ASSERT_EQ(2ULL, bm);
	ASSERT_EQ(0, sh("%s except kl.e flush", B));
	ASSERT_EQ(1, kbloom_test(h, "a", 1));
	kbloom_close(h);
}

TEST_F(lib, a_forked_child_tests_and_follows)
{
	struct kbloom *h;
	char keys[128];
	int st;
	pid_t pid;

	ASSERT_EQ(0, sh("%s create kl.f blocked --items 100 --fpr 0.001 --key-type str && %s add kl.f a",
			B, B));
	OPEN_OR_SKIP("kl.f", KBLOOM_RDONLY, &h);
	snprintf(keys, sizeof(keys), "%s/fk", dir);
	ASSERT_EQ(0, sh("echo b > %s", keys));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		/* the inherited mapping, then the rebuild the parent makes */
		if (kbloom_test(h, "a", 1) != 1)
			_exit(1);
		for (int i = 0; kbloom_test(h, "b", 1) != 1; i++) {
			if (i == 1000)
				_exit(3);
			usleep(10000);
		}
		_exit(kbloom_test(h, "a", 1) == 0 ? 0 : 2);
	}
	ASSERT_EQ(0, sh("%s rebuild kl.f -file %s > /dev/null", B, keys));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, WEXITSTATUS(st));
	ASSERT_EQ(1, kbloom_test(h, "b", 1));
	kbloom_close(h);
}

/* bfctl test by a service user in the readers group: root's answers */
TEST_F(lib, granted_service_user_runs_bfctl_test)
{
	char root_out[256] = "", user_out[256] = "", other[256] = "";
	struct kbloom *h;
	struct group *g;
	FILE *f;
	int rc;

	sh("groupadd -f kbltest");
	g = getgrnam("kbltest");
	ASSERT_NE(NULL, g);
	rc = sh("%s create kl.g blocked --items 100 --fpr 0.001 --key-type str --readers kbltest 2> /dev/null",
		B);
	if (rc == 2)
		SKIP(return, "bfctl create has no --readers (no grants)");
	ASSERT_EQ(0, rc);
	OPEN_OR_SKIP("kl.g", KBLOOM_RDONLY, &h);
	kbloom_close(h);
	ASSERT_EQ(0, sh("%s add kl.g a", B));
	ASSERT_EQ(1, sh("%s test kl.g a zz > %s/root", B, dir));
	/* no capability at all, uid nobody, the readers group */
	ASSERT_EQ(1, sh("setpriv --reuid=65534 --regid=65534 --groups=%u --inh-caps=-all --bounding-set=-all %s test kl.g a zz > %s/user",
			(unsigned int)g->gr_gid, B, dir));
	ASSERT_EQ(3, sh("setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all %s test kl.g a > %s/other 2>&1",
			B, dir));
	snprintf(other, sizeof(other), "%s/root", dir);
	f = fopen(other, "r");
	ASSERT_EQ(1, fread(root_out, 1, sizeof(root_out) - 1, f) > 0);
	fclose(f);
	snprintf(other, sizeof(other), "%s/user", dir);
	f = fopen(other, "r");
	ASSERT_EQ(1, fread(user_out, 1, sizeof(user_out) - 1, f) > 0);
	fclose(f);
	ASSERT_STREQ("a: maybe present\nzz: absent\n", root_out);
	ASSERT_STREQ(root_out, user_out);
	snprintf(user_out, sizeof(user_out), "%s/other", dir);
	f = fopen(user_out, "r");
	memset(other, 0, sizeof(other));
	ASSERT_EQ(1, fread(other, 1, sizeof(other) - 1, f) > 0);
	fclose(f);
	ASSERT_NE(NULL, strstr(other, "Operation not permitted")) {
		TH_LOG("%s", other);
	}
}

/*
 * A reader with no capability at all: uid and gid nobody, the readers
 * group its only supplementary group.  For every kind and key type its
 * answers through the mapping, false positives included, equal root's
 * batch KB_IOC_TEST on /dev/kbloom key by key, and a sample holding
 * false positives equals `bfctl test`'s output.  1M keys for one key type
 * a kind, PR_SMALL for the others, so the lane stays within its time.
 */
#define PR_BIG		1000000
#define PR_SMALL	20000
#define PR_KEYMAX	19	/* a __u16 length and net6's 17 bytes */
#define PR_SAMPLE_BIG	20000
#define PR_SAMPLE	500

static bool pr_net(u32 kt)
{
	return kt >= KB_KEY_NET4;
}

/*
 * An address: v4 (10 + out).0.0.0 + (hi << 8) + lo, v6
 * 2001:(db8 + out):hi::lo; a net key with its prefix length
 */
static u32 pr_addr(u8 *b, bool v6, u32 out, u32 hi, u32 lo, u32 plen,
		   bool net)
{
	u32 v4 = htonl(((10 + out) << 24) + (hi << 8) + lo);

	memset(b, 0, 17);
	if (!v6) {
		memcpy(b, &v4, 4);
		b[4] = plen;
		return net ? 5 : 4;
	}
	b[0] = 0x20, b[1] = 0x01, b[2] = 0x0d, b[3] = 0xb8 + out;
	b[4] = hi >> 8, b[5] = hi;
	lo = htonl(lo);
	memcpy(b + 12, &lo, 4);
	b[16] = plen;
	return net ? 17 : 16;
}

/*
 * Key i of a key type.  Added: i < NIN.  For net, i < NIN are the
 * prefixes added (/24, /48), NIN..2*NIN - 1 hosts within them, and the
 * rest hosts outside any (10.x -> 11.x, 2001:db8 -> 2001:db9).
 */
static u32 pr_key(u32 kt, u32 i, u8 *b)
{
	bool v6 = kt == KB_KEY_IPV6 || kt == KB_KEY_NET6 ||
		  ((kt == KB_KEY_IP || kt == KB_KEY_NET) && (i & 1));
	u32 j = i - NIN;	/* NIN is even: host j has prefix j's family */

	if (kt == KB_KEY_STR)
		return sprintf((char *)b, "k%u", i);
	if (kt == KB_KEY_BYTES) {
		b[0] = 0xa5, b[1] = i >> 24, b[2] = i >> 16, b[3] = i >> 8;
		b[4] = i;
		return 5;
	}
	if (!pr_net(kt))
		return pr_addr(b, v6, 0, 0, i, 0, false);
	if (i < NIN)
		return pr_addr(b, v6, 0, i, 0, v6 ? 48 : 24, true);
	if (i < 2 * NIN)
		return pr_addr(b, v6, 0, j, 7, v6 ? 128 : 32, true);
	/* i's low 16 bits in the /24 or /48: a probe of its own a host */
	return pr_addr(b, v6, 1, i & 0xffff, i >> 16, v6 ? 128 : 32, true);
}

/* as bfctl reads it: a host without /plen (a packet's lookup) */
static void pr_text(u32 kt, const u8 *b, u32 len, char *s)
{
	bool v4 = len == 4 || len == 5;
	u32 n;

	if (kt == KB_KEY_STR) {
		memcpy(s, b, len);
		s[len] = 0;
		return;
	}
	if (kt == KB_KEY_BYTES) {
		for (n = 0; n < len; n++)
			sprintf(s + 2 * n, "%02x", b[n]);
		return;
	}
	inet_ntop(v4 ? AF_INET : AF_INET6, b, s, 64);
	if (pr_net(kt) && b[len - 1] != (v4 ? 32 : 128))
		sprintf(s + strlen(s), "/%u", b[len - 1]);
}

/* no capability in any set, nobody, the readers group only */
static int pr_drop(gid_t g)
{
	struct __user_cap_header_struct hd = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};
	int c;

	for (c = 0; c < 64; c++)	/* EINVAL past the last cap */
		prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	if (setgroups(1, &g) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	if (syscall(SYS_capset, &hd, d) || syscall(SYS_capget, &hd, d))
		return -1;
	if (prctl(PR_CAPBSET_READ, CAP_NET_ADMIN, 0, 0, 0) != 0 ||
	    prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0)
		return -1;
	return d[0].effective | d[0].permitted | d[0].inheritable |
	       d[1].effective | d[1].permitted | d[1].inheritable ? -1 : 0;
}

struct pr_run {
	u8 *buf;			/* __u16 length + key, each */
	size_t buf_len;
	struct kbloom_key *k;
	u64 *child_bm;			/* MAP_SHARED: the child's answers */
	u64 *root_bm;
	u32 *sample;
	gid_t gid;
};

static double pr_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* one kind and key type; 0, or -1 with why */
static int pr_one(struct pr_run *r, u32 kind, u32 kt, u32 n, u32 ns,
		  char *why, size_t wl)
{
	const char *tn = kb_key_type_name(kt);
	u32 i, len, nprs = pr_net(kt) ? 2 * NIN : NIN, nfp = 0, m = 0;
	size_t words = n / 64 + 1;
	struct kb_ioc_keys a = { .size = sizeof(a) };
	char path[128], out[128], text[80], line[256];
	u8 *p = r->buf;
	int fd, st, ret = -1;
	long fp = 0;
	FILE *f;
	pid_t pid;

#define PR_FAIL(...) do { snprintf(why, wl, __VA_ARGS__); goto out; } while (0)
	snprintf(path, sizeof(path), "%s/pr.in", dir);
	f = fopen(path, "w");
	for (i = 0; i < n; i++) {
		len = pr_key(kt, i, p + 2);
		memcpy(p, &(u16){ len }, 2);
		r->k[i] = (struct kbloom_key){ p + 2, len };
		if (i < NIN) {
			pr_text(kt, p + 2, len, text);
			fprintf(f, "%s\n", text);
		}
		p += 2 + len;
	}
	fclose(f);
	r->buf_len = p - r->buf;
	if (sh("%s create kl.p %s --items %u --fpr 0.01 --key-type %s%s --readers kbltest && %s add --force kl.p -file %s > /dev/null",
	       B, kinds[kind], NIN, tn,
	       kind == KB_KIND_BLOCKED || kind == KB_KIND_COUNTING ?
	       " --seed 7" : "", B, path))
		PR_FAIL("create/add");
	memset(r->child_bm, 0, words * 8);
	pid = fork();
	if (pid < 0)
		PR_FAIL("fork");
	if (!pid) {
		struct kbloom_info in;
		struct kbloom *h;

		if (pr_drop(r->gid))
			_exit(10);
		if (kbloom_open("kl.p", KBLOOM_RDONLY, &h)) {
			fprintf(stderr, "open: %s\n", kbloom_errmsg());
			_exit(11);
		}
		if (kbloom_info(h, &in) || in.flags || in.key_type != kt)
			_exit(12);
		_exit(kbloom_test_many(h, r->k, n, r->child_bm) < 0 ? 13 : 0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		PR_FAIL("reader child: status %#x", st);
	/* root's answers, one batch ioctl of __u16-length-prefixed keys */
	memset(r->root_bm, 0, words * 8);
	memcpy(a.name, "kl.p", 4);
	a.keys = (uintptr_t)r->buf;
	a.keys_len = r->buf_len;
	a.count = n;
	a.result = (uintptr_t)r->root_bm;
	fd = open("/dev/kbloom", O_RDWR | O_CLOEXEC);
	st = fd < 0 || ioctl(fd, KB_IOC_TEST, &a) || a.processed != n;
	if (st)
		snprintf(why, wl, "KB_IOC_TEST: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	if (st)
		goto out;
	for (i = 0; i < n; i++) {
		bool got = r->child_bm[i / 64] >> (i % 64) & 1;

		if (got != (r->root_bm[i / 64] >> (i % 64) & 1))
			PR_FAIL("key %u: reader %d, root the other", i, got);
		if (i < nprs && !got)
			PR_FAIL("key %u: false negative", i);
		fp += i >= nprs && got;
		/* the sample: its first quarter false positives */
		if (i >= nprs && got && nfp < ns / 4)
			r->sample[m++] = i, nfp++;
	}
	if (!fp)
		PR_FAIL("no false positive in %u keys", n - nprs);
	for (i = 0; m < ns && i < n; i += n / (ns - ns / 4))
		r->sample[m++] = i;
	/* `bfctl test` of the sample, its output line by line */
	snprintf(path, sizeof(path), "%s/pr.sample", dir);
	snprintf(out, sizeof(out), "%s/pr.out", dir);
	f = fopen(path, "w");
	for (i = 0; i < m; i++) {
		const struct kbloom_key *k = &r->k[r->sample[i]];
		u8 bin[KB_KEY_MAX_LEN + 1];

		pr_text(kt, k->data, k->len, text);
		fprintf(f, "%s\n", text);
		/* the text bfctl reads is the key the reader tested */
		if (kbu_key_parse(kt, kt == KB_KEY_BYTES ? KBU_FMT_HEX :
				  KBU_FMT_STR, text, strlen(text), bin, &len,
				  NULL) || len != k->len ||
		    memcmp(bin, k->data, len)) {
			fclose(f);
			PR_FAIL("key %u: text %s is not its bytes", r->sample[i], text);
		}
	}
	fclose(f);
	sh("xargs -a %s %s test kl.p > %s", path, B, out);
	f = fopen(out, "r");
	for (i = 0; i < m && fgets(line, sizeof(line), f); i++) {
		u32 x = r->sample[i];
		bool want = strstr(line, ": maybe present\n") != NULL;

		if (!want && !strstr(line, ": absent\n"))
			break;
		if (want != (r->child_bm[x / 64] >> (x % 64) & 1)) {
			fclose(f);
			PR_FAIL("key %u: bfctl test says %s", x, line);
		}
	}
	fclose(f);
	if (i != m)
		PR_FAIL("bfctl test: %u lines of %u", i, m);
	ret = 0;
out:
	if (ret)
		snprintf(why + strlen(why), wl - strlen(why), " (%s %s, %u keys)",
			 kinds[kind], tn, n);
	else
		snprintf(why, wl, "%s %s: %u keys, %ld false positives, %u in bfctl's sample",
			 kinds[kind], tn, n, fp, nfp);
	sh("%s destroy kl.p 2> /dev/null", B);
	return ret;
#undef PR_FAIL
}

TEST_F_TIMEOUT(lib, capless_reader_equals_root_and_bfctl, 900)
{
	/* the key type tested with 1M keys, a kind */
	static const u32 big[4] = { KB_KEY_STR, KB_KEY_NET, KB_KEY_BYTES, KB_KEY_IP };
	struct pr_run r = {};
	struct kbloom *h;
	struct group *g;
	char why[512];
	u32 kind, kt;
	double t;
	int rc;

	sh("groupadd -f kbltest");
	g = getgrnam("kbltest");
	ASSERT_NE(NULL, g);
	r.gid = g->gr_gid;
	rc = sh("%s create kl.p --items 10 --readers kbltest 2> /dev/null", B);
	if (rc == 2)
		SKIP(return, "bfctl create has no --readers (no grants)");
	ASSERT_EQ(0, rc);
	OPEN_OR_SKIP("kl.p", KBLOOM_RDONLY, &h);
	kbloom_close(h);
	ASSERT_EQ(0, sh("%s destroy kl.p", B));
	r.buf = malloc((size_t)PR_BIG * PR_KEYMAX);
	r.k = calloc(PR_BIG, sizeof(*r.k));
	r.root_bm = calloc(PR_BIG / 64 + 1, 8);
	r.sample = calloc(PR_SAMPLE_BIG, sizeof(*r.sample));
	r.child_bm = mmap(NULL, (PR_BIG / 64 + 1) * 8, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.child_bm);
	ASSERT_NE(NULL, r.buf);
	ASSERT_NE(NULL, r.k);
	for (kind = 0; kind < 4; kind++) {
		for (kt = 0; kt <= KB_KEY_MAX; kt++) {
			bool b = kt == big[kind];

			t = pr_now();
			ASSERT_EQ(0, pr_one(&r, kind, kt, b ? PR_BIG : PR_SMALL,
					    b ? PR_SAMPLE_BIG : PR_SAMPLE,
					    why, sizeof(why))) {
				TH_LOG("%s", why);
			}
			TH_LOG("%s (%.1f s)", why, pr_now() - t);
		}
	}
	munmap(r.child_bm, (PR_BIG / 64 + 1) * 8);
	free(r.buf);
	free(r.k);
	free(r.root_bm);
	free(r.sample);
}

TEST_HARNESS_MAIN
