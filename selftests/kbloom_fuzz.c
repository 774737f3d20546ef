// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, bounded fuzzer for /dev/kbloom and the "kbloom" generic netlink
 * family (kbloom_fuzz_nl.c).  Random commands, struct sizes, flags, names,
 * key batches behind NULL, kernel or partially mapped pointers, mutated
 * images, transactions, fds closed or replaced under running ioctls,
 * children killed mid-batch and unprivileged callers.  Oracles: errno sets
 * and the documented errors of the clean cases, ADD-then-TEST has no false
 * negative, and an invariant filter (FZ_INV) nobody may change keeps its
 * keys, info and exact image; the kernel must not taint itself (WARN, BUG).
 *
 * KB_FUZZ_SEED (default 1), KB_FUZZ_ITERS (default 4000) or KB_FUZZ_SECONDS
 * (run for that long instead), KB_FUZZ_VERBOSE=1 (log every operation).
 * The seed decides every request; only thread interleavings vary.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "kselftest.h"
#include "kb_test.h"
#include "kb_fuzz.h"

struct fz fz;

static unsigned long taint0;
static int inv_fails_all;	/* fz_fail()s of the invariant checks */

int fz_fd(struct fz_rng *r)
{
	return fz.fds[fz_rnd(r, 4)];
}

void fz_fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	fz.fails++;
	inv_fails_all += !strcmp(what, "invariant");
	printf("# FAIL iter %ld (%s): ", fz.iter, what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	/* a killed child (kill_episode) would lose a buffered reason */
	fflush(stdout);
}

/* ---- the invariant filter ------------------------------------------------ */

static int inv_setup(void)
{
	struct kb_ioc_create c = kbt_spec(FZ_INV, KB_KIND_BLOCKED,
					  KB_KEY_BYTES, 10000, 1000000);
	void *img = NULL;
	int i, ret;

	for (i = 0; i < FZ_INV_KEYS; i++)
		kbt_key16(fz.inv_keys[i], 0xf2, i);
	c.flags = KB_CREATE_F_SEED;
	c.seed[0] = 0x5eed;
	kbt_destroy(fz.fds[0], FZ_INV);	/* a leftover of a killed run */
	ret = kbt_create_spec(fz.fds[0], &c);
	if (!ret)
		ret = kbt_keys(fz.fds[0], KB_IOC_ADD, FZ_INV, 0, fz.inv_keys, 16,
			       FZ_INV_KEYS, NULL, NULL);
	if (!ret)
		ret = kbt_info(fz.fds[0], FZ_INV, &fz.inv_info);
	if (ret)
		return ret;
	fz.inv_img_len = kbt_export(fz.fds[0], FZ_INV, 0, &img);
	if (fz.inv_img_len < 0)
		return (int)fz.inv_img_len;
	fz.inv_img = img;
	return 0;
}

static bool inv_check(void)
{
	struct kb_ioc_info info;
	struct kb_ioc_keys k;
	__u64 res[FZ_INV_KEYS / 64];
	int fails = fz.fails, ret, i;
	void *img = NULL;
	long len;

	ret = kbt_keys(fz.fds[0], KB_IOC_TEST, FZ_INV, 0, fz.inv_keys, 16,
		       FZ_INV_KEYS, res, &k);
	if (ret || k.hits != FZ_INV_KEYS)
		fz_fail("invariant", "test: %d, %llu hits", ret, k.hits);
	for (i = 0; !ret && i < FZ_INV_KEYS; i++)
		if (!kbt_bit(res, i))
			fz_fail("invariant", "key %d absent", i);
	ret = kbt_info(fz.fds[0], FZ_INV, &info);
	if (ret || info.m != fz.inv_info.m || info.k != fz.inv_info.k ||
	    info.count != fz.inv_info.count || info.kind != fz.inv_info.kind ||
	    info.generation != fz.inv_info.generation ||
	    info.bits_set != fz.inv_info.bits_set)
		fz_fail("invariant", "info: %d m %llu k %u count %llu gen %llu",
			ret, info.m, info.k, info.count, info.generation);
	len = kbt_export(fz.fds[0], FZ_INV, 0, &img);
	if (len != fz.inv_img_len || memcmp(img, fz.inv_img, len))
		fz_fail("invariant", "export: %ld bytes, or different", len);
	free(img);
	fz_nl_check_inv();
	return fz.fails == fails;
}

/* the kernel warned, oopsed, hit a bad page or a soft lockup */
static unsigned long taint_bad(void)
{
	char buf[32] = "";

	kbt_param_read("/proc/sys/kernel/tainted", buf, sizeof(buf));
	return (strtoul(buf, NULL, 10) & ~taint0) &
	       ((1 << 5) | (1 << 7) | (1 << 9) | (1 << 14));
}

/* ---- episodes: races, killed children, no privileges --------------------- */

struct racer {
	pthread_t t;
	int fd;
	uint64_t seed;
	int *stop;
	int bad;
};

/* batches and transactions on fd while the main thread closes it */
static void *race_thread(void *arg)
{
	struct racer *rc = arg;
	struct fz_rng r = { rc->seed };
	unsigned char *keys = kbt_keys16(rc->seed & 0xff, 0, 20000);
	char name[8];
	void *img = NULL;
	int ret = 0;
	long n;

	while (!__atomic_load_n(rc->stop, __ATOMIC_RELAXED)) {
		snprintf(name, sizeof(name), "fzc%u", (unsigned int)fz_rnd(&r, 4));
		n = 1 + fz_rnd(&r, 20000);
		switch (fz_rnd(&r, 8)) {
		case 0:
			ret = kbt_create(rc->fd, name, fz_rnd(&r, 3),
					 KB_KEY_BYTES, 1000);
			break;
		case 1: case 2:
			ret = kbt_keys(rc->fd, KB_IOC_ADD, name, 0, keys, 16, n,
				       NULL, NULL);
			break;
		case 3:
			ret = kbt_keys(rc->fd, KB_IOC_TEST_ADD, name,
				       KB_KEYS_F_TXN, keys, 16, n, NULL, NULL);
			break;
		case 4: {
			struct kb_ioc_create c = kbt_spec(name, fz_rnd(&r, 3),
						KB_KEY_BYTES, n, 1000000);
			ret = kbt_ioc(rc->fd, KB_IOC_TXN_BEGIN, &c);
			break;
		}
		case 5:
			ret = kbt_txn(rc->fd, fz_pct(&r, 50) ? KB_IOC_TXN_COMMIT :
				      KB_IOC_TXN_ABORT);
			break;
		case 6:
			n = kbt_export(rc->fd, name, fz_rnd(&r, 2) * KB_IMAGE_F_TXN,
				       &img);
			ret = n < 0 ? n : 0;
			if (n >= 0)
				free(img);
			break;
		default:
			ret = kbt_destroy(rc->fd, name);
		}
		/*
		 * EBADF: closed; ENOTTY: replaced by another kind of file;
		 * EAGAIN: an export whose filter the other thread changed
		 */
		if (ret && ret != -EBADF && ret != -ENOTTY && ret != -ENOENT &&
		    ret != -EAGAIN &&
		    ret != -EEXIST && ret != -EBUSY && ret != -EINVAL &&
		    ret != -ENOMEM && ret != -ENOSPC && ret != -EOPNOTSUPP)
			rc->bad = ret;
	}
	free(keys);
	return NULL;
}

static void race_episode(struct fz_rng *r)
{
	int stop = 0;
	struct racer rc[2];
	int fd = kbt_open(), other, i;

	if (fd < 0) {
		fz_fail("race", "open: %d", errno);
		return;
	}
	for (i = 0; i < 2; i++) {
		rc[i] = (struct racer){ .fd = fd, .seed = fz_next(r),
					.stop = &stop };
		pthread_create(&rc[i].t, NULL, race_thread, &rc[i]);
	}
	usleep(fz_rnd(r, 4000));
	switch (fz_rnd(r, 4)) {
	case 0:
		close(fd);
		break;
	case 1:
		other = open("/dev/null", O_RDWR);
		dup2(other, fd);
		close(other);
		break;
	default:	/* another /dev/kbloom file (of the same netns) */
		dup2(fz.fds[fz_rnd(r, 4)], fd);
	}
	usleep(fz_rnd(r, 3000));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++) {
		pthread_join(rc[i].t, NULL);
		if (rc[i].bad)
			fz_fail("race", "thread %d: errno %d", i, -rc[i].bad);
	}
	close(fd);
}

/* a child in a long batch, upload, export or dump, killed at some point */
static void kill_episode(struct fz_rng *r)
{
	uint64_t seed = fz_next(r);
	int st, what = fz_rnd(r, 4);
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		struct fz_rng cr = { seed };
		unsigned char *keys = kbt_keys16(seed & 0xff, 0, 200000);
		int fd = kbt_open(), ret;

		/* judge only this child's own answers, not earlier failures */
		fz.fails = 0;

		kbt_create(fd, "fzk", KB_KIND_COUNTING, KB_KEY_BYTES, 200000);
		if (what == 1) {
			struct kb_ioc_create c = kbt_spec("fzk", KB_KIND_BLOCKED,
						KB_KEY_BYTES, 200000, 1000);
			kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c);
		}
		fz_nl_fini();
		if (what == 3 && fz_nl_init())
			_exit(3);
		for (;;) {
			if (what == 3) {
				fz_nl_op(&cr);
				if (fz.fails)
					_exit(2);
				continue;
			}
			if (what == 2)
				ret = kbt_upload(fd, "fzk", 0, fz.inv_img,
						 fz.inv_img_len, NULL);
			else
				ret = kbt_keys(fd, fz_pct(&cr, 50) ? KB_IOC_ADD :
					       KB_IOC_DEL, "fzk",
					       what == 1 ? KB_KEYS_F_TXN : 0,
					       keys, 16, 200000, NULL, NULL);
			if (ret && ret != -EINTR && ret != -EINVAL &&
			    ret != -EOPNOTSUPP)
				_exit(2);
		}
	}
	usleep(fz_rnd(r, 30000));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (!WIFSIGNALED(st))
		fz_fail("kill", "child (%d) exited %d", what, WEXITSTATUS(st));
}

/* without CAP_NET_ADMIN: nothing that changes a filter may succeed */
static void unpriv_episode(struct fz_rng *r)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {};
	uint64_t seed = fz_next(r);
	int st, i, fd;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		struct fz_rng cr = { seed };

		if (syscall(SYS_capset, &h, d))
			_exit(3);
		fz.unpriv = 1;
		fz.fails = 0;
		fd = kbt_open();
		for (i = 0; i < 4; i++) {	/* the opener's credentials count */
			close(fz.fds[i]);
			fz.fds[i] = fd;
		}
		fz_nl_fini();
		if (fd < 0 || fz_nl_init())
			_exit(3);
		for (i = 0; i < 40; i++) {
			if (fz_pct(&cr, 50))
				fz_ioc_op(&cr, fd);
			else
				fz_nl_op(&cr);
		}
		fflush(stdout);
		_exit(fz.fails ? 1 : 0);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fz_fail("unpriv", "child status 0x%x", st);
}

/* a valid transaction, then commit, abort, or close with it open */
static void txn_episode(struct fz_rng *r)
{
	int i = fz_rnd(r, 4), n = fz_rnd(r, 6), ret;
	struct kb_ioc_create c;

	c = kbt_spec("", fz_rnd(r, 3), KB_KEY_BYTES, 1 + fz_rnd(r, 5000),
		     1000000);
	fz_name(r, c.name, false);
	ret = kbt_ioc(fz.fds[i], KB_IOC_TXN_BEGIN, &c);
	while (n--)
		fz_ioc_op(r, fz.fds[i]);
	switch (fz_rnd(r, 3)) {
	case 0:
		ret = kbt_txn(fz.fds[i], KB_IOC_TXN_COMMIT);
		break;
	case 1:
		ret = kbt_txn(fz.fds[i], KB_IOC_TXN_ABORT);
		break;
	default:
		close(fz.fds[i]);
		fz.fds[i] = kbt_open();
	}
	(void)ret;
}

/* ---- driver ---------------------------------------------------------------- */

/* destroy every fuzzer filter, then the invariant; true if all went */
static bool cleanup(void)
{
	static char names[1100][KB_NAME_MAX];
	int n, i, ret, fd = fz.fds[0];
	bool ok = true;

	n = fz_nl_list(names, 1100);
	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], FZ_INV))
			continue;
		ret = kbt_destroy(fd, names[i]);
		if (ret) {
			printf("# destroy %s: %d\n", names[i], ret);
			ok = false;
		}
	}
	n = fz_nl_list(names, 1100);
	if (n != 1 || strcmp(names[0], FZ_INV)) {
		printf("# %d filters left besides the invariant\n", n - 1);
		ok = false;
	}
	return kbt_destroy(fd, FZ_INV) == 0 && ok;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

int main(void)
{
	long iters = env_long("KB_FUZZ_ITERS", 4000);
	long secs = env_long("KB_FUZZ_SECONDS", 0);
	uint64_t seed = env_long("KB_FUZZ_SEED", 1);
	int i, inv_fails = 0, every = 200, fails_seen;
	struct fz_rng *r = &fz.rng;
	time_t t0 = time(NULL);
	char buf[32] = "";
	unsigned int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(4);
	ksft_print_msg("seed %llu iters %ld seconds %ld (KB_FUZZ_SEED, KB_FUZZ_ITERS, KB_FUZZ_SECONDS)\n",
		       (unsigned long long)seed, secs ? -1 : iters, secs);
	fz.rng.s = seed;
	fz.verbose = env_long("KB_FUZZ_VERBOSE", 0);
	fz.pagesz = sysconf(_SC_PAGESIZE);
	fz.edge = mmap(NULL, 2 * fz.pagesz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fz.edge == MAP_FAILED ||
	    mprotect(fz.edge + fz.pagesz, fz.pagesz, PROT_NONE))
		ksft_exit_fail_msg("mmap\n");
	kbt_param_read("/proc/sys/kernel/tainted", buf, sizeof(buf));
	taint0 = strtoul(buf, NULL, 10);
	for (i = 0; i < 4; i++) {
		fz.fds[i] = kbt_open();
		if (fz.fds[i] < 0)
			ksft_exit_fail_msg("open %s: %s\n", KB_DEV, strerror(errno));
	}
	if (fz_nl_init())
		ksft_exit_fail_msg("netlink family %s\n", KB_GENL_NAME);
	if (inv_setup())
		ksft_exit_fail_msg("cannot set up the invariant filter\n");
	signal(SIGPIPE, SIG_IGN);

	for (fz.iter = 0; secs ? time(NULL) - t0 < secs : fz.iter < iters;
	     fz.iter++) {
		fails_seen = fz.fails;
		c = fz_rnd(r, 1000);
		if (c < 520)
			fz_ioc_op(r, fz.fds[fz_rnd(r, 4)]);
		else if (c < 940)
			fz_nl_op(r);
		else if (c < 970)
			txn_episode(r);
		else if (c < 982)
			race_episode(r);
		else if (c < 990)
			kill_episode(r);
		else if (c < 994)
			unpriv_episode(r);
		else {
			i = fz_rnd(r, 4);
			close(fz.fds[i]);
			fz.fds[i] = kbt_open();
		}
		if (fz.iter % every == every - 1) {
			inv_fails += !inv_check();
			if (taint_bad())
				fz_fail("kernel", "tainted: 0x%lx", taint_bad());
			ksft_print_msg("iter %ld: %d failures, %ld ioctls (%ld ok), %ld netlink messages\n",
				       fz.iter + 1, fz.fails, fz.ioc_calls,
				       fz.ioc_ok, fz.nl_msgs);
		}
		if (fz.fails != fails_seen && fz.fails > 50)
			break;
	}
	inv_fails += !inv_check();
	ksft_print_msg("%ld iterations in %lds: %ld ioctls (%ld ok), %ld netlink messages, %ld acks, %ld dumps\n",
		       fz.iter, (long)(time(NULL) - t0), fz.ioc_calls,
		       fz.ioc_ok, fz.nl_msgs, fz.nl_acks, fz.nl_dumps);
	ksft_test_result(fz.fails == inv_fails_all,
			 "fuzz: every answer as documented\n");
	ksft_test_result(!inv_fails_all && !inv_fails,
			 "invariant filter unchanged\n");
	for (i = 0; i < 4; i++)
		close(fz.fds[i]);
	fz.fds[0] = kbt_open();
	ksft_test_result(cleanup(), "cleanup: every filter destroyed\n");
	fz_nl_fini();
	ksft_test_result(!taint_bad(), "kernel not tainted (no WARN, BUG, oops)\n");
	close(fz.fds[0]);
	ksft_finished();
}
