// SPDX-License-Identifier: GPL-2.0
/*
 * Exports and references that must not pin locks or memory:
 *  - a KB_IOC_EXPORT into a userfaultfd-registered buffer nobody serves
 *    stalls in copy_to_user(); it must hold no lock meanwhile (writers,
 *    destroy, GET dumps and xt_bloom rule inserts go on) and die on SIGKILL;
 *    resumed, it answers EAGAIN if the filter changed, ENOENT if destroyed;
 *  - an unread netlink EXPORT dump and an open transaction must not keep a
 *    destroyed filter's payload allocated (VmallocUsed goes back down).
 * Each test runs in its own network namespace.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

#define STALL_ITEMS	2000000ULL	/* ipv4 filter of ~2.3 MiB: 3 chunks */
#define BIG_ITEMS	64000000ULL	/* ~73 MiB at 1% */

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* VmallocUsed of /proc/meminfo in kB (read directly: polled often) */
static long vmalloc_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmallocUsed: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* poll VmallocUsed until it is at most max_kb (10 s): the value seen */
static long vmalloc_settle(long max_kb)
{
	__u64 t0 = now_ms();
	long kb = vmalloc_kb();

	while (kb > max_kb && now_ms() - t0 < 10000) {
		usleep(100000);
		kb = vmalloc_kb();
	}
	return kb;
}

/*
 * VmallocUsed once steady (two readings 500 ms apart within 1 MiB; 10 s at
 * most): an earlier test's filter may still be on its way out
 */
static long vmalloc_base(void)
{
	__u64 t0 = now_ms();
	long a = vmalloc_kb(), b;

	for (;;) {
		usleep(500000);
		b = vmalloc_kb();
		if (labs(a - b) < 1024 || now_ms() - t0 > 10000)
			return b;
		a = b;
	}
}

/* an ipv4 filter of items at 1%: its payload bytes, or -errno */
static long mkfilter(int fd, const char *name, __u64 items)
{
	struct kb_ioc_create c = kbt_spec(name, KB_KIND_BLOCKED, KB_KEY_IPV4,
					  items, 10000000);
	struct kb_ioc_info i;
	int ret;

	ret = kbt_create_spec(fd, &c);
	if (!ret)
		ret = kbt_info(fd, name, &i);
	return ret ? ret : (long)i.bytes;
}

static int add_ip(int fd, const char *name, __u32 ip)
{
	return kbt_keys(fd, KB_IOC_ADD, name, 0, &ip, 4, 1, NULL, NULL);
}

/* keys in a TEST batch that stalls in its second step (2 x 4096) */
#define KEYS_STALL	8192

/* an export into a buffer whose pages after the first are never served */
struct stall {
	int fd;
	const char *name;
	int uffd;
	char *buf;
	size_t maplen, page;
	__u64 len;		/* image length */
	int ret;		/* the export's: 0 or -errno */
	pthread_t th;
};

/* kernels built without CONFIG_USERFAULTFD (the debug kernel) skip */
static bool uffd_missing(void)
{
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd < 0 && errno == ENOSYS;
}

static int stall_prepare(struct stall *s, int fd, const char *name)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct kb_ioc_image im;
	int ret;

	s->fd = fd;
	s->name = name;
	s->page = sysconf(_SC_PAGESIZE);
	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	kbt_name(im.name, name);
	ret = kbt_ioc(fd, KB_IOC_EXPORT, &im);
	if (ret != -ENOSPC)
		return ret ?: -EPROTO;
	s->len = im.image_len;
	s->maplen = (s->len + 2 * s->page - 1) / s->page * s->page;
	s->buf = mmap(NULL, s->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->buf == MAP_FAILED)
		return -errno;
	/* the header's page is there: the stall is in the payload copy */
	s->buf[0] = 0;
	s->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (s->uffd < 0)
		return -errno;
	if (ioctl(s->uffd, UFFDIO_API, &api))
		return -errno;
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)s->buf + s->page;
	reg.range.len = s->maplen - s->page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(s->uffd, UFFDIO_REGISTER, &reg))
		return -errno;
	return 0;
}

static void *stall_export(void *arg)
{
	struct stall *s = arg;
	struct kb_ioc_image im;

	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	kbt_name(im.name, s->name);
	im.image = (uintptr_t)s->buf;
	im.image_len = s->len;
	s->ret = kbt_ioc(s->fd, KB_IOC_EXPORT, &im);
	return NULL;
}

/* start the export in a thread; 0 once it is blocked in the fault */
static int stall_start(struct stall *s)
{
	struct pollfd p = { .fd = s->uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (pthread_create(&s->th, NULL, stall_export, s))
		return -EAGAIN;
	if (poll(&p, 1, 20000) != 1)
		return -ETIMEDOUT;
	if (read(s->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return -EPROTO;
	return 0;
}

/* serve the faults (zero pages): the export goes on; its result */
static int stall_finish(struct stall *s)
{
	struct uffdio_zeropage z;

	memset(&z, 0, sizeof(z));
	z.range.start = (uintptr_t)s->buf + s->page;
	z.range.len = s->maplen - s->page;
	if (ioctl(s->uffd, UFFDIO_ZEROPAGE, &z) && errno != EEXIST)
		return -errno;
	pthread_join(s->th, NULL);
	close(s->uffd);
	munmap(s->buf, s->maplen);
	return s->ret;
}

/* ---- a stalled export blocks nobody --------------------------------------- */

enum { OP_ADD, OP_DESTROY, OP_LIST, OP_IPT, NOPS };
static const char *const op_name[NOPS] = {
	"add to the exported filter", "destroy of another filter",
	"netlink GET dump", "iptables -m bloom rule insert",
};

static const char *opn(int op)
{
	return op >= 0 && op < NOPS ? op_name[op] : "?";
}

static int run_op(int op)
{
	struct kbtn_req *r;
	struct kbtn *n;
	int fd, ret;

	switch (op) {
	case OP_ADD:
		fd = kbt_open();
		return fd < 0 ? 1 : !!add_ip(fd, "pin.x", 0x0a000001);
	case OP_DESTROY:
		fd = kbt_open();
		return fd < 0 ? 1 : !!kbt_destroy(fd, "pin.y");
	case OP_LIST:
		n = kbtn_open();
		r = calloc(1, sizeof(*r));
		if (!n || !r)
			return 1;
		kbtn_init(r, n->family, KB_CMD_GET, NLM_F_DUMP);
		ret = kbtn_send(n, r);
		if (!ret)
			ret = kbtn_recv(n, NULL, NULL, NULL, NULL, NULL);
		return !!ret;
	case OP_IPT:
		return !!kbt_sh("iptables -w -A INPUT -m bloom --bloom-name pin.x -j DROP >/dev/null 2>&1");
	}
	return 1;
}

TEST(stalled_export_blocks_nobody)
{
	pid_t exporter, ops[NOPS];
	int pipefd[2], op, status, left;
	bool done[NOPS] = {}, gone;
	__u64 t0;
	char c;
	int fd;

	if (uffd_missing())
		SKIP(return, "no userfaultfd in this kernel");

	setenv("XTABLES_LIBDIR", XT_LIBDIR ":/usr/lib/x86_64-linux-gnu/xtables", 1);
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	fd = kbt_open();
	ASSERT_LE(0, fd);
	ASSERT_LT(0, mkfilter(fd, "pin.x", STALL_ITEMS));
	ASSERT_LT(0, mkfilter(fd, "pin.y", 1000));
	ASSERT_EQ(0, pipe(pipefd));
	exporter = fork();
	ASSERT_LE(0, exporter);
	if (!exporter) {
		struct stall s;

		if (stall_prepare(&s, fd, "pin.x") || stall_start(&s))
			_exit(1);
		c = 1;
		if (write(pipefd[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1)) {
		TH_LOG("the export did not stall (userfaultfd?)");
		kill(exporter, SIGKILL);
	}
	/* all four from other processes, at once; each must end within 5 s */
	for (op = 0; op < NOPS; op++) {
		ops[op] = fork();
		if (!ops[op])
			_exit(run_op(op));
	}
	t0 = now_ms();
	left = NOPS;
	while (left && now_ms() - t0 < 5000) {
		for (op = 0; op < NOPS; op++) {
			if (done[op] || waitpid(ops[op], &status, WNOHANG) <= 0)
				continue;
			done[op] = true;
			left--;
			EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
				TH_LOG("%s failed", opn(op));
		}
		usleep(20000);
	}
	for (op = 0; op < NOPS; op++) {
		EXPECT_TRUE(done[op])
			TH_LOG("%s still blocked after 5 s by a stalled export",
			       opn(op));
	}
	/* the stalled exporter dies on SIGKILL */
	ASSERT_EQ(0, kill(exporter, SIGKILL));
	t0 = now_ms();
	while (!(gone = waitpid(exporter, &status, WNOHANG) == exporter) &&
	       now_ms() - t0 < 5000)
		usleep(20000);
	EXPECT_TRUE(gone)
		TH_LOG("the stalled export did not die on SIGKILL");
	for (op = 0; op < NOPS; op++)
		if (!done[op])
			waitpid(ops[op], &status, 0);
	if (!gone)
		waitpid(exporter, &status, 0);
	close(fd);
}

/* an export resumed after its filter changed: EAGAIN, the filter intact */
TEST(stalled_export_changed_eagain)
{
	struct kb_ioc_info i;
	struct stall s;
	int fd;

	if (uffd_missing())
		SKIP(return, "no userfaultfd in this kernel");

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	fd = kbt_open();
	ASSERT_LE(0, fd);
	ASSERT_LT(0, mkfilter(fd, "pin.c", STALL_ITEMS));
	ASSERT_EQ(0, stall_prepare(&s, fd, "pin.c"));
	ASSERT_EQ(0, stall_start(&s));
	ASSERT_EQ(0, add_ip(fd, "pin.c", 0x0a000002));
	EXPECT_EQ(-EAGAIN, stall_finish(&s));
	ASSERT_EQ(0, kbt_info(fd, "pin.c", &i));
	EXPECT_EQ(1, i.count);
	/* unchanged: a stall alone still gives the image */
	ASSERT_EQ(0, stall_prepare(&s, fd, "pin.c"));
	ASSERT_EQ(0, stall_start(&s));
	EXPECT_EQ(0, stall_finish(&s));
	close(fd);
}

/* an export resumed after its filter was destroyed: ENOENT */
TEST(stalled_export_destroyed_enoent)
{
	struct stall s;
	int fd;

	if (uffd_missing())
		SKIP(return, "no userfaultfd in this kernel");

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	fd = kbt_open();
	ASSERT_LE(0, fd);
	ASSERT_LT(0, mkfilter(fd, "pin.d", STALL_ITEMS));
	ASSERT_EQ(0, stall_prepare(&s, fd, "pin.d"));
	ASSERT_EQ(0, stall_start(&s));
	ASSERT_EQ(0, kbt_destroy(fd, "pin.d"));
	/* a new filter of the same name is another filter */
	ASSERT_LT(0, mkfilter(fd, "pin.d", STALL_ITEMS));
	EXPECT_EQ(-ENOENT, stall_finish(&s));
	close(fd);
}

/* ---- references that pin memory ------------------------------------------ */

/*
 * A TEST batch stalled in its second chunk of keys (a userfaultfd page)
 * while its filter is destroyed: the rest of the batch answers ENOENT, as
 * an add does, not answers from a filter that no longer exists.  The
 * ioctl looked the filter up before the stall, so this is the "destroyed
 * since looked up" case, made deterministic.
 */
struct stalled_test {
	int fd;
	__u32 *keys;
	__u64 count;
	__u64 res[KEYS_STALL / 64];
	int ret;
};

static void *stalled_test_run(void *arg)
{
	struct stalled_test *t = arg;

	t->ret = kbt_keys(t->fd, KB_IOC_TEST, "pin.t", 0, t->keys, 4,
			  t->count, t->res, NULL);
	return NULL;
}

TEST(stalled_test_destroyed_enoent)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct pollfd p = { .events = POLLIN };
	struct uffdio_register reg;
	struct uffdio_zeropage z;
	struct stalled_test t;
	struct uffd_msg msg;
	size_t len, first;
	pthread_t th;
	int uffd;

	if (uffd_missing())
		SKIP(return, "no userfaultfd in this kernel");

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	memset(&t, 0, sizeof(t));
	t.fd = kbt_open();
	ASSERT_LE(0, t.fd);
	ASSERT_LT(0, mkfilter(t.fd, "pin.t", 1000));
	/* the kernel copies 4096 keys a step: the second step faults */
	t.count = KEYS_STALL;
	len = t.count * 4;
	first = 4096 * 4;
	t.keys = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, t.keys);
	memset(t.keys, 0, first);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, uffd);
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)t.keys + first;
	reg.range.len = len - first;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, pthread_create(&th, NULL, stalled_test_run, &t));
	p.fd = uffd;
	ASSERT_EQ(1, poll(&p, 1, 20000));
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	/* stalled after the lookup, holding no lock: destroy works */
	EXPECT_EQ(0, kbt_destroy(t.fd, "pin.t"));
	memset(&z, 0, sizeof(z));
	z.range.start = (uintptr_t)t.keys + first;
	z.range.len = len - first;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_ZEROPAGE, &z));
	pthread_join(th, NULL);
	EXPECT_EQ(-ENOENT, t.ret);
	close(uffd);
	munmap(t.keys, len);
	close(t.fd);
}

/* an EXPORT dump left unread does not keep a destroyed filter's payload */
TEST(unread_export_dump_frees_destroyed)
{
	struct kbtn_req *r = calloc(1, sizeof(*r));
	long base, bytes, kb;
	struct kbtn *n;
	int fd;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	fd = kbt_open();
	ASSERT_LE(0, fd);
	n = kbtn_open();
	ASSERT_NE(NULL, n);
	ASSERT_NE(NULL, r);
	base = vmalloc_base();
	ASSERT_LT(0, base);
	bytes = mkfilter(fd, "pin.n", BIG_ITEMS);
	ASSERT_LT(32L << 20, bytes);
	ASSERT_LE(base + bytes / 1024 / 2, vmalloc_kb());
	kbtn_init(r, n->family, KB_CMD_EXPORT, NLM_F_DUMP);
	kbtn_put_str(r, KB_A_NAME, "pin.n");
	ASSERT_EQ(0, kbtn_send(n, r));
	/* the dump has started (its first step ran); nothing is read */
	usleep(200000);
	ASSERT_EQ(0, kbt_destroy(fd, "pin.n"));
	kb = vmalloc_settle(base + bytes / 1024 / 4);
	EXPECT_GE(base + bytes / 1024 / 4, kb)
		TH_LOG("VmallocUsed %ld kB, %ld before the filter: the dump pins it",
		       kb, base);
	/* read on: the dump ends with ENOENT */
	EXPECT_EQ(-ENOENT, kbtn_recv(n, NULL, NULL, NULL, NULL, NULL));
	kbtn_close(n);
	free(r);
	close(fd);
}

/* an open transaction does not keep its destroyed filter's payload */
TEST(open_txn_frees_destroyed)
{
	struct kb_ioc_create c = kbt_spec("pin.t", KB_KIND_BLOCKED, KB_KEY_IPV4,
					  1000, 10000000);
	struct kb_ioc_info i;
	long base, bytes, kb, small;
	int fd = kbt_open(), tfd;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	close(fd);
	fd = kbt_open();
	tfd = kbt_open();
	ASSERT_LE(0, fd);
	ASSERT_LE(0, tfd);
	base = vmalloc_base();
	ASSERT_LT(0, base);
	bytes = mkfilter(fd, "pin.t", BIG_ITEMS);
	ASSERT_LT(32L << 20, bytes);
	ASSERT_EQ(0, kbt_ioc(tfd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_keys(tfd, KB_IOC_ADD, "pin.t", KB_KEYS_F_TXN,
			      &(__u32){ 0x0a000003 }, 4, 1, NULL, NULL));
	ASSERT_EQ(0, kbt_destroy(fd, "pin.t"));
	kb = vmalloc_settle(base + bytes / 1024 / 4);
	EXPECT_GE(base + bytes / 1024 / 4, kb)
		TH_LOG("VmallocUsed %ld kB, %ld before the filter: the transaction pins it",
		       kb, base);
	/* a new filter of the same name is not the transaction's */
	small = mkfilter(fd, "pin.t", 1000);
	ASSERT_LT(0, small);
	EXPECT_EQ(-ENOENT, kbt_txn(tfd, KB_IOC_TXN_COMMIT));
	ASSERT_EQ(0, kbt_info(fd, "pin.t", &i));
	EXPECT_EQ(0, i.count);
	/* the transaction ended */
	EXPECT_EQ(-ENOENT, kbt_txn(tfd, KB_IOC_TXN_COMMIT));
	close(tfd);
	close(fd);
}

TEST_HARNESS_MAIN
