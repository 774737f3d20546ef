// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection walk (debug kernel): every operation runs with its 1st,
 * 2nd, 3rd... allocation failing (/proc/thread-self/fail-nth through
 * failslab and fail_page_alloc) until it runs out of allocation sites.
 * Each attempt must succeed or fail with ENOMEM (or ENOBUFS where netlink
 * drops a message), and a failed one must leave the live filter exactly
 * as it was (info, answers, image).  The VM runner checks kmemleak after
 * the suite.  Kernels without fault injection skip.
 *
 * fail-nth is per task and only the Nth site hit while it is armed fails,
 * so no other task is affected.  The test locks its memory (mlockall) so
 * that no user page fault of its own consumes the armed fault, and does
 * not allocate between arming and the operation.  iptables is walked
 * under ptrace: fail-nth of the child is armed at the entry of the
 * syscall that inserts the rule (the nf_tables batch sendmsg, or
 * IPT_SO_SET_REPLACE for iptables-legacy) and read back at its exit.
 */
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <linux/netfilter/nfnetlink.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

#define DBG		"/sys/kernel/debug/"
#define NTH		"/proc/thread-self/fail-nth"
#define NKEYS		64
#define IMG_MAX		(1 << 18)
#define MAX_SITES	3000
#define LIVE		"f.live"
#define SRC		"f.src"
#define NEW		"f.new"
#define XT		"f.xt"

/* failslab and fail_page_alloc settings for the walk (restored after) */
static const struct {
	const char *path, *val;
} knob[] = {
	{ DBG "failslab/probability", "0" },
	{ DBG "failslab/ignore-gfp-wait", "N" },
	{ DBG "failslab/verbose", "0" },
	{ DBG "failslab/task-filter", "Y" },
	{ DBG "fail_page_alloc/probability", "0" },
	{ DBG "fail_page_alloc/ignore-gfp-wait", "N" },
	{ DBG "fail_page_alloc/ignore-gfp-highmem", "N" },
	{ DBG "fail_page_alloc/min-order", "0" },
	{ DBG "fail_page_alloc/verbose", "0" },
	{ DBG "fail_page_alloc/task-filter", "Y" },
};
#define NKNOBS	ARRAY_SIZE(knob)

/* the live filter as seen before and after an attempt */
struct snap {
	struct kb_ioc_info i;
	__u64 p, a;		/* TEST bitmaps of the present, absent keys */
	__u64 len;
	unsigned char img[IMG_MAX];
};

/* static, so locked in memory and never allocated during an attempt */
static struct snap before, after;
static unsigned char img0[IMG_MAX], img1[IMG_MAX], tmp[IMG_MAX];
static __u64 img0_len, img1_len;
static struct kbtn_req req;
static int nth_fd = -1;

FIXTURE(fi) {
	int skip;
	int fd;			/* /dev/kbloom of the test's own netns */
	struct kbtn *nl;		/* a fresh socket per netlink attempt */
	struct kbtn *ev;		/* events listener: notifications allocate */
	int nold;
	char old[NKNOBS][32];
	void *keys_p, *keys_a, *keys_n;	/* present, absent, new keys */
	int msgs;		/* netlink dump messages */
	__u64 got;		/* netlink export bytes */
	int bad;
};
#define CTX FIXTURE_DATA(fi)

static void nth_set(unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	if (pwrite(nth_fd, b, len, 0) != len)
		abort();
}

static unsigned int nth_get(void)
{
	char b[16] = "";

	if (pread(nth_fd, b, sizeof(b) - 1, 0) <= 0)
		abort();
	return strtoul(b, NULL, 10);
}

static int export(int fd, const char *name, void *buf, __u64 *len)
{
	struct kb_ioc_image im;
	int ret;

	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	kbt_name(im.name, name);
	im.image = (uintptr_t)buf;
	im.image_len = IMG_MAX;
	ret = kbt_ioc(fd, KB_IOC_EXPORT, &im);
	*len = im.image_len;
	return ret;
}

static __u64 test_keys(int fd, const char *name, void *keys)
{
	__u64 bm = 0;

	if (kbt_keys(fd, KB_IOC_TEST, name, 0, keys, 16, NKEYS, &bm, NULL))
		return ~0ULL - 1;
	return bm;
}

static int snap(CTX *c, struct snap *s)
{
	int ret = kbt_info(c->fd, LIVE, &s->i);

	s->p = test_keys(c->fd, LIVE, c->keys_p);
	s->a = test_keys(c->fd, LIVE, c->keys_a);
	return ret ?: export(c->fd, LIVE, s->img, &s->len);
}

static bool same(const struct snap *x, const struct snap *y)
{
	return x->i.m == y->i.m && x->i.k == y->i.k &&
	       x->i.kind == y->i.kind && x->i.key_type == y->i.key_type &&
	       x->i.count == y->i.count && x->i.bits_set == y->i.bits_set &&
	       x->i.generation == y->i.generation && x->i.refs == y->i.refs &&
	       x->p == y->p && x->a == y->a && x->len == y->len &&
	       !memcmp(x->img, y->img, x->len);
}

static bool exists(CTX *c, const char *name)
{
	struct kb_ioc_info i;

	return !kbt_info(c->fd, name, &i);
}

/* the events the listener got, dropped (its buffer must not fill up) */
static void drain(CTX *c)
{
	while (recv(c->ev->fd, tmp, sizeof(tmp), MSG_DONTWAIT) > 0)
		;
}

/* back to the baseline image (after an operation that changed it) */
static int restore(CTX *c)
{
	return kbt_upload(c->fd, LIVE, 0, img0, img0_len, NULL);
}

/* ---- the operations: prep (unfaulted), run (faulted), done ------------ */

struct op {
	const char *name;
	int (*prep)(CTX *c);
	int (*run)(CTX *c);
	int (*done)(CTX *c, int ret);	/* check the outcome, undo; 0 = good */
	bool nl;			/* ENOBUFS: netlink lost a message */
	__u64 items;			/* create/begin: the filter's size */
};

static const struct op *cur;

/* NEW must exist after success, not after ENOMEM; removed */
static int done_new(CTX *c, int ret)
{
	bool e = exists(c, NEW);

	if ((!ret && !e) || (ret == -ENOMEM && e))
		return -1;
	return e ? kbt_destroy(c->fd, NEW) : 0;
}

static int run_add(CTX *c)
{
	return kbt_keys(c->fd, KB_IOC_ADD, LIVE, 0, c->keys_n, 16, NKEYS,
			NULL, NULL);
}

/* after success: the new keys are present; then back to the baseline */
static int done_live(CTX *c, int ret)
{
	if (ret)
		return 0;
	if (test_keys(c->fd, LIVE, c->keys_n) != ~0ULL)
		return -1;
	return restore(c);
}

static int run_begin(CTX *c)
{
	struct kb_ioc_create a = kbt_spec(LIVE, KB_KIND_BLOCKED, KB_KEY_BYTES,
					  cur->items, 10000000);

	return kbt_ioc(c->fd, KB_IOC_TXN_BEGIN, &a);
}

/* a transaction exists after success only */
static int done_begin(CTX *c, int ret)
{
	return kbt_txn(c->fd, KB_IOC_TXN_ABORT) == (ret ? -ENOENT : 0) ? 0 : -1;
}

static int prep_txn(CTX *c, const char *name)
{
	struct kb_ioc_create a = kbt_spec(name, KB_KIND_BLOCKED, KB_KEY_BYTES,
					  4000, 10000000);

	return kbt_ioc(c->fd, KB_IOC_TXN_BEGIN, &a) ?:
	       kbt_keys(c->fd, KB_IOC_ADD, name, KB_KEYS_F_TXN, c->keys_n, 16,
			NKEYS, NULL, NULL);
}

static int prep_commit(CTX *c)
{
	return prep_txn(c, LIVE);
}

static int prep_commit_new(CTX *c)
{
	return prep_txn(c, NEW);
}

static int run_commit(CTX *c)
{
	return kbt_txn(c->fd, KB_IOC_TXN_COMMIT);
}

/* the transaction ends either way */
static int done_commit(CTX *c, int ret)
{
	if (kbt_txn(c->fd, KB_IOC_TXN_ABORT) != -ENOENT)
		return -1;
	return done_live(c, ret);
}

static int done_commit_new(CTX *c, int ret)
{
	if (kbt_txn(c->fd, KB_IOC_TXN_ABORT) != -ENOENT)
		return -1;
	if (!ret && test_keys(c->fd, NEW, c->keys_n) != ~0ULL)
		return -1;
	return done_new(c, ret);
}

static int run_upload(CTX *c)
{
	return kbt_upload(c->fd, LIVE, 0, img1, img1_len, NULL);
}

static int run_upload_new(CTX *c)
{
	return kbt_upload(c->fd, NEW, KB_IMAGE_F_CREATE, img1, img1_len, NULL);
}

static int run_export(CTX *c)
{
	__u64 len;
	int ret = export(c->fd, LIVE, tmp, &len);

	return ret ?: len == before.len ? 0 : -EPROTO;
}

static int done_export(CTX *c, int ret)
{
	return ret || !memcmp(tmp, before.img, before.len) ? 0 : -1;
}

static int prep_nl(CTX *c)
{
	c->nl = kbtn_open();
	c->msgs = c->bad = 0;
	c->got = 0;
	return c->nl ? 0 : -1;
}

static void nl_close(CTX *c)
{
	kbtn_close(c->nl);
	c->nl = NULL;
}

static int run_nl_create(CTX *c)
{
	kbtn_init(&req, c->nl->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, NEW);
	kbtn_put_u64(&req, KB_A_ITEMS, cur->items);
	kbtn_put_u32(&req, KB_A_FPR_PPB, 10000000);
	return kbtn_do(c->nl, &req);
}

/* ENOBUFS: the ack was lost, the filter may or may not be there */
static int done_nl_new(CTX *c, int ret)
{
	nl_close(c);
	if (ret == -ENOBUFS)
		ret = exists(c, NEW) ? 0 : -ENOMEM;
	return done_new(c, ret);
}

/* LIVE -> NEW: the new name's entry is allocated before anything changes */
static int run_nl_rename(CTX *c)
{
	int ret;

	kbtn_init(&req, c->nl->family, KB_CMD_RENAME, 0);
	kbtn_put_str(&req, KB_A_NAME, LIVE);
	kbtn_put_str(&req, KB_A_NAME2, NEW);
	ret = kbtn_do(c->nl, &req);
	/* ENOBUFS: the ack was lost (the fault is spent); renamed if NEW is */
	if (ret == -ENOBUFS && exists(c, NEW))
		ret = 0;
	return ret;
}

/* failed: LIVE kept its name (walk() compared it), NEW is none; else back */
static int done_nl_rename(CTX *c, int ret)
{
	bool e;

	nl_close(c);
	e = exists(c, NEW);
	if (ret)
		return e ? -1 : 0;
	if (!e || exists(c, LIVE))
		return -1;
	return kbt_name2(c->fd, KB_CMD_RENAME, NEW, LIVE);
}

static int run_nl_get(CTX *c)
{
	kbtn_init(&req, c->nl->family, KB_CMD_GET, 0);
	kbtn_put_str(&req, KB_A_NAME, LIVE);
	return kbtn_do(c->nl, &req);
}

static int done_nl_get(CTX *c, int ret)
{
	struct nlattr *tb[KB_A_MAX + 1];
	int bad = 0;

	if (!ret) {
		kbtn_parse((struct nlmsghdr *)c->nl->reply, tb, KB_A_MAX);
		bad = !c->nl->reply_len || !tb[KB_A_M] ||
		      !tb[KB_A_GENERATION] || kbtn_u64(tb[KB_A_M]) != before.i.m ||
		      kbtn_u64(tb[KB_A_GENERATION]) != before.i.generation;
	}
	nl_close(c);
	return -bad;
}

static int count_cb(struct nlmsghdr *nlh, void *arg)
{
	((CTX *)arg)->msgs++;
	return 0;
}

static int run_nl_dump(CTX *c)
{
	kbtn_init(&req, c->nl->family, KB_CMD_GET, NLM_F_DUMP);
	if (kbtn_send(c->nl, &req))
		return -errno;
	return kbtn_recv(c->nl, count_cb, c, NULL, NULL, NULL);
}

/* the namespace holds LIVE and SRC */
static int done_nl_dump(CTX *c, int ret)
{
	nl_close(c);
	return !ret && c->msgs != 2 ? -1 : 0;
}

static int chunk_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[KB_A_MAX + 1];
	CTX *c = arg;
	__u64 off;
	int len;

	kbtn_parse(nlh, tb, KB_A_MAX);
	if (!tb[KB_A_OFFSET] || !tb[KB_A_CHUNK]) {
		c->bad++;
		return 0;
	}
	off = kbtn_u64(tb[KB_A_OFFSET]);
	len = kbtn_len(tb[KB_A_CHUNK]);
	if (off != c->got || off + len > IMG_MAX) {
		c->bad++;
		return 0;
	}
	memcpy(tmp + off, kbtn_data(tb[KB_A_CHUNK]), len);
	c->got += len;
	return 0;
}

static int run_nl_export(CTX *c)
{
	kbtn_init(&req, c->nl->family, KB_CMD_EXPORT, NLM_F_DUMP);
	kbtn_put_str(&req, KB_A_NAME, LIVE);
	if (kbtn_send(c->nl, &req))
		return -errno;
	return kbtn_recv(c->nl, chunk_cb, c, NULL, NULL, NULL);
}

static int done_nl_export(CTX *c, int ret)
{
	nl_close(c);
	if (ret)
		return 0;
	return c->bad || c->got != before.len ||
	       memcmp(tmp, before.img, before.len) ? -1 : 0;
}

/*
 * Walk op through failures of its 1st, 2nd... allocation: returns the
 * number of sites, or -1 (logged).
 */
static int walk(struct __test_metadata *_metadata, CTX *c,
		const struct op *op)
{
	unsigned int n, left, failed = 0;
	int ret;

	cur = op;
	for (n = 1; n <= MAX_SITES; n++) {
		if ((op->prep && op->prep(c)) || snap(c, &before)) {
			TH_LOG("%s: n=%u: cannot prepare", op->name, n);
			return -1;
		}
		nth_set(n);
		ret = op->run(c);
		left = nth_get();
		nth_set(0);
		if (ret && ret != -ENOMEM && !(op->nl && ret == -ENOBUFS)) {
			TH_LOG("%s: n=%u: unexpected error %d (%s)", op->name,
			       n, ret, strerror(-ret));
			return -1;
		}
		if (ret && left) {
			TH_LOG("%s: n=%u: error %d without an injected fault",
			       op->name, n, ret);
			return -1;
		}
		if (ret && (snap(c, &after) || !same(&before, &after))) {
			TH_LOG("%s: n=%u: the live filter changed after error %d",
			       op->name, n, ret);
			return -1;
		}
		if (op->done(c, ret)) {
			TH_LOG("%s: n=%u: wrong state after %s %d", op->name, n,
			       ret ? "error" : "success", ret);
			return -1;
		}
		drain(c);
		failed += !!ret;
		if (left) {
			printf("# %s: %u allocation sites walked, %u attempts failed\n",
			       op->name, n - 1, failed);
			fflush(stdout);
			return n - 1;
		}
	}
	TH_LOG("%s: more than %d allocation sites", op->name, MAX_SITES);
	return -1;
}

#define WALK(...) do {							\
	static const struct op o = { __VA_ARGS__ };			\
	if (self->skip)							\
		return;							\
	ASSERT_LE(0, walk(_metadata, self, &o));			\
} while (0)

FIXTURE_SETUP(fi)
{
	unsigned int i;

	if (access(NTH, F_OK)) {
		self->skip = 1;
		SKIP(return, "no fault injection in this kernel (" NTH ")");
	}
	if (access(DBG "failslab", F_OK))
		mount("debugfs", DBG, "debugfs", 0, NULL);
	for (i = 0; i < NKNOBS; i++) {
		ASSERT_EQ(0, kbt_param_read(knob[i].path, self->old[i],
					    sizeof(self->old[i])))
			TH_LOG("%s: CONFIG_FAULT_INJECTION_DEBUG_FS?", knob[i].path);
		self->nold = i + 1;
		ASSERT_EQ(0, kbt_param_write(knob[i].path, knob[i].val));
	}
	ASSERT_EQ(0, kbt_param_write("/proc/self/make-it-fail", "1"));
	nth_fd = open(NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, nth_fd);
	/* our own namespace: its own filters, iptables rules */
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	self->fd = kbt_open();
	ASSERT_LE(0, self->fd);
	self->keys_p = kbt_keys16(1, 0, NKEYS);
	self->keys_a = kbt_keys16(2, 0, NKEYS);
	self->keys_n = kbt_keys16(3, 0, NKEYS);
	ASSERT_EQ(0, kbt_create(self->fd, LIVE, KB_KIND_BLOCKED, KB_KEY_BYTES,
				2000));
	ASSERT_EQ(0, kbt_keys(self->fd, KB_IOC_ADD, LIVE, 0, self->keys_p, 16,
			      NKEYS, NULL, NULL));
	ASSERT_EQ(0, kbt_create(self->fd, SRC, KB_KIND_BLOCKED, KB_KEY_BYTES,
				2000));
	ASSERT_EQ(0, kbt_keys(self->fd, KB_IOC_ADD, SRC, 0, self->keys_n, 16,
			      NKEYS, NULL, NULL));
	ASSERT_EQ(0, export(self->fd, LIVE, img0, &img0_len));
	ASSERT_EQ(0, export(self->fd, SRC, img1, &img1_len));
	self->ev = kbtn_open();
	ASSERT_NE(NULL, self->ev);
	ASSERT_EQ(0, kbtn_join(self->ev));
	/* no page fault of ours may take the armed fault */
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE));
}

FIXTURE_TEARDOWN(fi)
{
	int i;

	if (nth_fd >= 0)
		nth_set(0);
	for (i = 0; i < self->nold; i++)
		kbt_param_write(knob[i].path, self->old[i]);
	if (self->skip)
		return;
	kbt_param_write("/proc/self/make-it-fail", "0");
	kbtn_close(self->ev);
	close(self->fd);
}

TEST_F_TIMEOUT(fi, create, 600)
{
	/* create is netlink only: a kmalloc'd and a vmalloc'd payload */
	WALK(.name = "netlink create", .prep = prep_nl, .run = run_nl_create,
	     .done = done_nl_new, .nl = true, .items = 1000);
	WALK(.name = "netlink create (vmalloc)", .prep = prep_nl,
	     .run = run_nl_create, .done = done_nl_new, .nl = true,
	     .items = 100000);
}

TEST_F_TIMEOUT(fi, rename, 600)
{
	WALK(.name = "netlink rename", .prep = prep_nl, .run = run_nl_rename,
	     .done = done_nl_rename, .nl = true);
}

TEST_F_TIMEOUT(fi, add, 600)
{
	WALK(.name = "add batch", .run = run_add, .done = done_live);
}

TEST_F_TIMEOUT(fi, txn, 600)
{
	WALK(.name = "txn begin", .run = run_begin, .done = done_begin,
	     .items = 1000);
	WALK(.name = "txn begin (vmalloc)", .run = run_begin,
	     .done = done_begin, .items = 100000);
	WALK(.name = "txn commit", .prep = prep_commit, .run = run_commit,
	     .done = done_commit);
	WALK(.name = "txn commit (new name)", .prep = prep_commit_new,
	     .run = run_commit, .done = done_commit_new);
}

TEST_F_TIMEOUT(fi, upload, 600)
{
	WALK(.name = "upload", .run = run_upload, .done = done_live);
	WALK(.name = "upload (create)", .run = run_upload_new,
	     .done = done_new);
}

TEST_F_TIMEOUT(fi, export, 600)
{
	WALK(.name = "export", .run = run_export, .done = done_export);
	WALK(.name = "netlink export", .prep = prep_nl, .run = run_nl_export,
	     .done = done_nl_export, .nl = true);
}

TEST_F_TIMEOUT(fi, netlink_get, 600)
{
	WALK(.name = "netlink get", .prep = prep_nl, .run = run_nl_get,
	     .done = done_nl_get, .nl = true);
	WALK(.name = "netlink dump", .prep = prep_nl, .run = run_nl_dump,
	     .done = done_nl_dump, .nl = true);
}

/* ---- iptables -m bloom under ptrace ------------------------------------ */

#ifdef __x86_64__
/* PTRACE_PEEKDATA: the debug kernel has no process_vm_readv() */
static int peek(pid_t pid, __u64 addr, void *dst, size_t len)
{
	size_t i;
	long w;

	for (i = 0; i < len; i += sizeof(w)) {
		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, pid, addr + i, 0);
		if (errno)
			return -1;
		memcpy((char *)dst + i, &w, len - i < sizeof(w) ? len - i : sizeof(w));
	}
	return 0;
}

/* the syscall that inserts the rule: nf_tables batch or SET_REPLACE */
static bool rule_call(pid_t pid)
{
	struct user_regs_struct r;
	struct nlmsghdr nh;
	struct msghdr mh;
	struct iovec iov;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return false;
	if (r.orig_rax == SYS_setsockopt)	/* SOL_IP, IPT_SO_SET_REPLACE */
		return r.rsi == 0 && r.rdx == 64;
	return r.orig_rax == SYS_sendmsg && !peek(pid, r.rsi, &mh, sizeof(mh)) &&
	       mh.msg_iovlen &&
	       !peek(pid, (uintptr_t)mh.msg_iov, &iov, sizeof(iov)) &&
	       !peek(pid, (uintptr_t)iov.iov_base, &nh, sizeof(nh)) &&
	       nh.nlmsg_type == NFNL_MSG_BATCH_BEGIN;
}

/*
 * iptables OP <rule>, its rule syscall run with fail-nth n (0: none).
 * Returns the exit status (128 + signal); *left = fail-nth after the
 * syscall (-1: never seen); its output in out.
 */
static int ipt(const char *op, unsigned int n, int *left, char *out,
	       size_t outlen)
{
	char *argv[] = { "iptables", "-w", (char *)op, "INPUT", "-m", "bloom",
			 "--bloom-name", XT, "--bloom-dir", "src", "-j",
			 "ACCEPT", NULL };
	int pfd[2], st = 0, sig = 0, insys = 0, armed = 0;
	char path[64], b[16];
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	*left = -1;
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	snprintf(path, sizeof(path), "/proc/%d/fail-nth", pid);
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		goto out;
	ptrace(PTRACE_SETOPTIONS, pid, 0,
	       PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	while (!ptrace(PTRACE_SYSCALL, pid, 0, sig)) {
		sig = 0;
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			/* the SIGTRAP of execve is ours */
			sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);
			continue;
		}
		insys = !insys;
		if (insys && n && *left < 0 && !armed && rule_call(pid)) {
			snprintf(b, sizeof(b), "%u", n);
			armed = !kbt_param_write(path, b);
		} else if (!insys && armed) {
			armed = 0;
			*left = kbt_param_read(path, b, sizeof(b)) ? -2 : atoi(b);
			kbt_param_write(path, "0");
		}
	}
out:
	while (got < outlen - 1 &&
	       (r = read(pfd[0], out + got, outlen - 1 - got)) > 0)
		got += r;
	out[got] = 0;
	close(pfd[0]);
	while (!WIFEXITED(st) && !WIFSIGNALED(st))
		if (waitpid(pid, &st, 0) < 0)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* rules of INPUT that use f.xt, per iptables -S */
static int ipt_rules(void)
{
	FILE *f = popen("iptables -w -S INPUT 2>/dev/null", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, "--bloom-name " XT);
	return pclose(f) ? -1 : n;
}

static __u32 xt_refs(CTX *c)
{
	struct kb_ioc_info i;

	return kbt_info(c->fd, XT, &i) ? ~0U : i.refs;
}

TEST_F_TIMEOUT(fi, xt_rule_insert, 900)
{
	char out[4096];
	unsigned int n, failed = 0;
	int st, left, rules, none;

	if (self->skip)
		return;
	if (access("/sys/module/xt_bloom", F_OK))
		SKIP(return, "xt_bloom.ko not loaded");
	setenv("XTABLES_LIBDIR", XT_LIBDIR ":/usr/lib/x86_64-linux-gnu/xtables", 1);
	ASSERT_EQ(0, kbt_create(self->fd, XT, KB_KIND_BLOCKED, KB_KEY_IPV4,
				100));
	/* the first rule of the netns creates the table and chain */
	ASSERT_EQ(0, ipt("-A", 0, &none, out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_EQ(0, ipt("-D", 0, &none, out, sizeof(out))) TH_LOG("%s", out);
	for (n = 1; n <= MAX_SITES; n++) {
		st = ipt("-A", n, &left, out, sizeof(out));
		ASSERT_LE(0, left) TH_LOG("n=%u: no rule syscall seen (exit %d): %s",
					  n, st, out);
		rules = ipt_rules();
		/* the rule holds a reference on its filter: no leak, no loss */
		ASSERT_EQ(rules, xt_refs(self)) TH_LOG("n=%u: exit %d", n, st);
		if (st) {
			ASSERT_EQ(0, left) TH_LOG("n=%u: failed without a fault: %s",
						  n, out);
			/* ENOMEM (iptables-nft: "Memory allocation problem"),
			 * ENOBUFS: the ack was lost, the rule may be in
			 */
			ASSERT_TRUE(strstr(out, "Cannot allocate memory") ||
				    strstr(out, "Memory allocation problem") ||
				    strstr(out, "No buffer space available"))
				TH_LOG("n=%u: exit %d: %s", n, st, out);
			ASSERT_TRUE(!rules || strstr(out, "No buffer space"))
				TH_LOG("n=%u: rule inserted after: %s", n, out);
		} else {
			ASSERT_EQ(1, rules) TH_LOG("n=%u", n);
		}
		if (rules)
			ASSERT_EQ(0, ipt("-D", 0, &none, out, sizeof(out)));
		ASSERT_EQ(0, xt_refs(self));
		if (st && !failed++)	/* what iptables says, once */
			printf("# xt rule insert: n=%u: exit %d: %.*s\n", n, st,
			       (int)strcspn(out, "\n"), out);
		if (left)
			break;
	}
	printf("# xt rule insert: %u allocation sites walked, %u attempts failed\n",
	       n - 1, failed);
	fflush(stdout);
	ASSERT_EQ(0, kbt_destroy(self->fd, XT));
}
#endif /* __x86_64__ */

TEST_HARNESS_MAIN
