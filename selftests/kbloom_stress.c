// SPDX-License-Identifier: GPL-2.0
/*
 * Stress (issue #7): for KB_STRESS_SECONDS (default 8) per variant, all
 * roles run at once, a thread each, with one lookup thread per CPU:
 *
 *  lookup   inv.{a,b,s,r} hold the core keys in every generation: a core
 *           key tested absent is a false negative
 *  add      live batches (some of several kernel chunks); add/test/del on
 *           a scratch counting filter
 *  rebuild  transactions on inv.{a,b,s} (core keys and others, changing
 *           kind and size): commit or abort, image round trips, uploads
 *  swap     among the invariant filters; rename: inv.r <-> inv.r2 (lookups
 *           follow it) and renames in a pool of filters
 *  churn    create/destroy/flush/add/txn-create in the pool; private
 *           filters of several key types, checked for false negatives
 *  netns    children unshare a netns, fill filters, leave a transaction
 *           (and in variant xt a rule) open and exit: teardown with filters
 *  xt       UDP from a blocked and an allowed source through "-m bloom
 *           --bloom-name xt.bl --bloom-dir src -j DROP" while xt.bl is
 *           rebuilt and swapped: not one blocked packet may arrive
 *           (kbloom_stress_xt.c)
 *
 * Every result is checked: only errors a concurrent role can cause
 * (ENOENT, EEXIST, EBUSY where noted) pass.  Kernel reports (KASAN,
 * lockdep, WARN) and a failed rmmod fail the VM run itself.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kbloom_stress.h"

#define NCORE		512		/* invariant keys */
#define NPOOL		6		/* pool.0 .. pool.5 */
#define MAX_THREADS	64

static const char *const role_name[NR_ROLES] = {
	"lookup", "add", "rebuild", "swap", "rename", "churn", "netns",
	"xt_rebuild", "xt_send", "xt_recv",
};

/* inv[3] is the rename ring (inv.r or inv.r2) */
static const char *const inv[] = { "inv.a", "inv.b", "inv.s", "inv.r" };

static int duration = 8;

struct kbs_state kbs;

bool kbs_running(void)
{
	return !atomic_load(&kbs.stop);
}

void kbs_fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&kbs.bad, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(kbs.first, sizeof(kbs.first), fmt, ap);
	va_end(ap);
}

/* ret (0 or -errno) must be 0 or one of the errnos in ok */
int kbs_chk(int ret, __u64 ok, const char *what, const char *name)
{
	if (ret && (-ret >= 64 || !(ok & E(-ret))))
		kbs_fail("%s %s: %s", what, name, strerror(-ret));
	return ret;
}

static __u64 rnd(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* test n keys that must all be present */
static int probe(int fd, const char *name, const void *keys, __u32 ksz,
		 __u64 n, __u64 ok)
{
	struct kb_ioc_keys k;
	int ret;

	ret = kbt_keys(fd, KB_IOC_TEST, name, 0, keys, ksz, n, NULL, &k);
	if (!ret && k.hits != n) {
		atomic_fetch_add(&kbs.false_neg, n - k.hits);
		kbs_fail("false negatives in %s: %llu of %llu keys", name,
		     (unsigned long long)(n - k.hits), (unsigned long long)n);
	}
	return kbs_chk(ret, ok, "test", name);
}

int kbs_add(int fd, const char *name, __u32 flags, const void *keys,
	       __u32 ksz, __u64 n)
{
	return kbt_keys(fd, KB_IOC_ADD, name, flags, keys, ksz, n, NULL, NULL);
}

void kbs_close_fd(int *fd)
{
	if (*fd >= 0)
		kbt_close(*fd);	/* dst_fd's socket holds NS_DST */
	*fd = -1;
}

static int open_dev(void)
{
	int fd = kbt_open();

	if (fd < 0)
		kbs_fail("open %s: %s", KB_DEV, strerror(errno));
	return fd;
}

/*
 * an image; ENOSPC again when a rebuild or swap made the filter grow.  A
 * live filter's export copies out without its lock: EAGAIN when a writer
 * changed it in between (retried; accepted if it keeps changing).  A
 * transaction's staging filter changes only by this thread: no EAGAIN.
 */
static long export(int fd, const char *name, __u32 flags, void **img)
{
	long len;
	int i = 0;

	do
		len = kbt_export(fd, name, flags, img);
	while ((len == -ENOSPC || len == -EAGAIN) && ++i < 100);
	return kbs_chk(len < 0 ? len : 0,
		       flags & KB_IMAGE_F_TXN ? 0 : E(EAGAIN), "export",
		       name) ? -1 : len;
}

/* n keys of a key type: bytes (16), ipv4 (4) or net4 (/24, 5 bytes) */
static void *mkkeys(__u32 type, __u32 fam, __u32 n, __u32 *ksz)
{
	unsigned char *b;
	__u32 i, a;

	if (type == KB_KEY_BYTES) {
		*ksz = 16;
		return kbt_keys16(fam, 0, n);
	}
	*ksz = type == KB_KEY_IPV4 ? 4 : 5;
	b = calloc(n, *ksz);
	for (i = 0; i < n; i++) {
		a = htonl(type == KB_KEY_IPV4 ? 0xac100000 | (fam << 12) | i :
			  0x0a000000 | ((fam * 4096 + i) << 8 & 0xffff00));
		memcpy(b + i * *ksz, &a, 4);
		if (type == KB_KEY_NET4)
			b[i * 5 + 4] = 24;
	}
	return b;
}

/* ---- roles ---------------------------------------------------------------- */

static void *role_lookup(void *arg)
{
	int fd = open_dev();
	long i;

	for (i = (long)arg; fd >= 0 && kbs_running(); i++) {
		switch (i % 5) {
		case 3:	/* the rename ring: one of the two names exists */
			if (probe(fd, "inv.r", kbs.core, 16, NCORE, E(ENOENT)))
				probe(fd, "inv.r2", kbs.core, 16, NCORE,
				      E(ENOENT));
			break;
		case 4:
			if (kbs.xt) {
				probe(kbs.dst_fd, "xt.bl", &kbs.bl, 4, 1, 0);
				probe(kbs.dst_fd, "xt.bl2", &kbs.bl, 4, 1, 0);
			}
			break;
		default:
			probe(fd, inv[i % 3], kbs.core, 16, NCORE, 0);
		}
		atomic_fetch_add(&kbs.ops[R_LOOKUP], 1);
	}
	close(fd);
	return NULL;
}

static void *role_add(void *arg)
{
	int fd = open_dev();
	struct kb_ioc_keys k;
	__u64 r, n;

	for (r = 0; fd >= 0 && kbs_running(); r++) {
		const char *name = inv[r % 3];
		void *keys;

		n = r % 16 == 15 ? 10000 : 256;
		keys = kbt_keys16(1000 + r, 0, n);
		kbs_chk(kbt_keys(fd, r % 2 ? KB_IOC_ADD : KB_IOC_TEST_ADD, name, 0,
			     keys, 16, n, NULL, NULL), 0, "add", name);
		if (kbs_chk(kbs_add(fd, "inv.r", 0, keys, 16, 64), E(ENOENT), "add",
			"inv.r"))
			kbs_chk(kbs_add(fd, "inv.r2", 0, keys, 16, 64), E(ENOENT),
			    "add", "inv.r2");
		/* only this thread writes scr.cnt: added keys are there */
		kbs_chk(kbs_add(fd, "scr.cnt", 0, keys, 16, 256), 0, "add", "scr.cnt");
		probe(fd, "scr.cnt", keys, 16, 256, 0);
		if (!kbs_chk(kbt_keys(fd, KB_IOC_DEL, "scr.cnt", 0, keys, 16, 256,
				  NULL, &k), 0, "del", "scr.cnt") &&
		    k.hits != 256)
			kbs_fail("del scr.cnt: %llu of 256 deleted",
			     (unsigned long long)k.hits);
		free(keys);
		atomic_fetch_add(&kbs.ops[R_ADD], 1);
	}
	close(fd);
	return NULL;
}

static const __u32 kinds[] = {
	KB_KIND_BLOCKED, KB_KIND_COUNTING, KB_KIND_CLASSIC
};

/*
 * One transaction on name (key type type): the must-keys, some others,
 * sometimes a trip of the staging generation through an image; then
 * commit, or abort every fourth time.
 */
void kbs_rebuild(int fd, const char *name, __u32 type, const void *must,
		    __u32 ksz, __u32 nmust, __u64 *seed)
{
	__u64 r = rnd(seed), items = r % 8 ? 4096 : 1 << 19;
	struct kb_ioc_create c = kbt_spec(name, kinds[r % 3], type, items,
					  1000000);
	__u32 oksz;
	void *other, *img = NULL;
	long len;

	if (kbs_chk(kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c), 0, "begin", name))
		return;
	kbs_chk(kbs_add(fd, name, KB_KEYS_F_TXN, must, ksz, nmust), 0, "txn add",
	    name);
	other = mkkeys(type, r >> 40 & 0xff, 256, &oksz);
	kbs_chk(kbs_add(fd, name, KB_KEYS_F_TXN, other, oksz, 256), 0, "txn add",
	    name);
	free(other);
	if (r % 5 == 0) {
		len = export(fd, name, KB_IMAGE_F_TXN, &img);
		if (len > 0) {
			kbs_chk(kbt_upload(fd, name, KB_IMAGE_F_TXN, img, len,
				       NULL), 0, "txn upload", name);
			free(img);
		}
	}
	if (r % 4 == 3)
		kbs_chk(kbt_txn(fd, KB_IOC_TXN_ABORT), 0, "abort", name);
	else
		kbs_chk(kbt_txn(fd, KB_IOC_TXN_COMMIT), 0, "commit", name);
}

static void *role_rebuild(void *arg)
{
	__u64 seed = 0x5eed0001, r;
	int fd = open_dev();
	void *img = NULL;
	long len;

	for (r = 0; fd >= 0 && kbs_running(); r++) {
		kbs_rebuild(fd, inv[r % 3], KB_KEY_BYTES, kbs.core, 16, NCORE,
			&seed);
		if (r % 7 == 6) {	/* live upload: inv.a's image to inv.b */
			len = export(fd, "inv.a", 0, &img);
			if (len > 0) {
				kbs_chk(kbt_upload(fd, "inv.b", 0, img, len, NULL),
				    0, "upload", "inv.b");
				free(img);
			}
		}
		atomic_fetch_add(&kbs.ops[R_REBUILD], 1);
	}
	close(fd);
	return NULL;
}

static void *role_swap(void *arg)
{
	int fd = open_dev();
	long r;

	for (r = 0; fd >= 0 && kbs_running(); r++) {
		switch (r % 5) {
		case 3:	/* a no-op */
			kbs_chk(kbt_name2(fd, KB_CMD_SWAP, "inv.a", "inv.a"), 0,
			    "swap", "inv.a");
			break;
		case 4:	/* with the rename ring */
			if (kbs_chk(kbt_name2(fd, KB_CMD_SWAP, "inv.s", "inv.r"),
				E(ENOENT), "swap", "inv.r"))
				kbs_chk(kbt_name2(fd, KB_CMD_SWAP, "inv.r2",
					      "inv.s"), E(ENOENT), "swap",
				    "inv.r2");
			break;
		default:
			kbs_chk(kbt_name2(fd, KB_CMD_SWAP, inv[r % 3],
				      inv[(r + 1) % 3]), 0, "swap", inv[r % 3]);
		}
		atomic_fetch_add(&kbs.ops[R_SWAP], 1);
		usleep(100);	/* leave the CPUs to lookups, mostly */
	}
	close(fd);
	return NULL;
}

static void *role_rename(void *arg)
{
	char a[16], b[16];
	__u64 seed = 0x5eed0002;
	int fd = open_dev();

	while (fd >= 0 && kbs_running()) {
		/* nobody else renames or destroys the ring */
		kbs_chk(kbt_name2(fd, KB_CMD_RENAME, "inv.r", "inv.r2"), 0,
		    "rename", "inv.r");
		kbs_chk(kbt_name2(fd, KB_CMD_RENAME, "inv.r2", "inv.r"), 0,
		    "rename", "inv.r2");
		snprintf(a, sizeof(a), "pool.%d", (int)(rnd(&seed) % NPOOL));
		snprintf(b, sizeof(b), "pool.%d", (int)(rnd(&seed) % NPOOL));
		kbs_chk(kbt_name2(fd, KB_CMD_RENAME, a, b), E(ENOENT) | E(EEXIST),
		    "rename", a);
		atomic_fetch_add(&kbs.ops[R_RENAME], 1);
		usleep(100);
	}
	close(fd);
	return NULL;
}

/* a private filter and its image copy: nobody else touches them */
static void own_cycle(int fd, __u64 r)
{
	static const __u32 types[] = { KB_KEY_BYTES, KB_KEY_IPV4, KB_KEY_NET4 };
	__u32 type = types[r % 3], ksz;
	void *keys = mkkeys(type, r & 0xff, 300, &ksz), *img = NULL;
	long len;

	if (!kbs_chk(kbt_create(fd, "own", kinds[r / 3 % 3], type, 1000), 0,
		 "create", "own")) {
		kbs_chk(kbs_add(fd, "own", 0, keys, ksz, 300), 0, "add", "own");
		probe(fd, "own", keys, ksz, 300, 0);
		len = export(fd, "own", 0, &img);
		if (len > 0) {
			kbs_chk(kbt_upload(fd, "own.c", KB_IMAGE_F_CREATE, img, len,
				       NULL), 0, "upload", "own.c");
			free(img);
			probe(fd, "own.c", keys, ksz, 300, 0);
			kbs_chk(kbt_destroy(fd, "own.c"), 0, "destroy", "own.c");
		}
		kbs_chk(kbt_destroy(fd, "own"), 0, "destroy", "own");
	}
	free(keys);
}

static void *role_churn(void *arg)
{
	__u64 seed = 0x5eed0003, r;
	struct kb_ioc_create c;
	struct kb_ioc_info info;
	int fd = open_dev();
	char p[16];
	void *keys;

	for (r = 0; fd >= 0 && kbs_running(); r++) {
		snprintf(p, sizeof(p), "pool.%d", (int)(rnd(&seed) % NPOOL));
		keys = kbt_keys16(3000 + r % 64, 0, 128);
		switch (rnd(&seed) % 6) {
		case 0:
			kbs_chk(kbt_create(fd, p, kinds[r % 3], KB_KEY_BYTES, 1000),
			    E(EEXIST), "create", p);
			break;
		case 1:
			kbs_chk(kbt_destroy(fd, p), E(ENOENT), "destroy", p);
			break;
		case 2:
			kbs_chk(kbs_add(fd, p, 0, keys, 16, 128), E(ENOENT), "add", p);
			break;
		case 3:
			kbs_chk(kbt_name_cmd(fd, KB_CMD_FLUSH, p), E(ENOENT),
			    "flush", p);
			break;
		case 4:
			kbs_chk(kbt_info(fd, p, &info), E(ENOENT), "info", p);
			break;
		case 5:	/* create (or rebuild) at commit */
			c = kbt_spec(p, kinds[r % 3], KB_KEY_BYTES, 1000,
				     1000000);
			if (kbs_chk(kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c), 0, "begin",
				p))
				break;
			kbs_chk(kbs_add(fd, p, KB_KEYS_F_TXN, keys, 16, 128), 0,
			    "txn add", p);
			kbs_chk(kbt_txn(fd, KB_IOC_TXN_COMMIT),
			    E(ENOENT) | E(EEXIST), "commit", p);
		}
		free(keys);
		if (r % 2)
			own_cycle(fd, r);
		atomic_fetch_add(&kbs.ops[R_CHURN], 1);
	}
	close(fd);
	return NULL;
}

/* in a child: a new network namespace with filters; exit status 0 = ok */
static int netns_child(long r)
{
	__u32 ksz;
	void *v4 = mkkeys(KB_KEY_IPV4, 7, 300, &ksz);
	long bad = atomic_load(&kbs.bad);	/* the parent's, copied */
	struct kb_ioc_create c;
	int fd;

	if (unshare(CLONE_NEWNET))
		return 1;
	fd = kbt_open();
	if (fd < 0)
		return 2;
	if (kbt_create(fd, "f0", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000) ||
	    kbt_create(fd, "f1", KB_KIND_COUNTING, KB_KEY_BYTES, 1000) ||
	    kbt_create(fd, "f2", KB_KIND_CLASSIC, KB_KEY_BYTES, 1000) ||
	    kbt_create(fd, "f3", KB_KIND_BLOCKED, KB_KEY_BYTES, 100000))
		return 3;
	if (kbs_add(fd, "f0", 0, v4, 4, 300) || kbs_add(fd, "f1", 0, kbs.core, 16, NCORE) ||
	    kbs_add(fd, "f2", 0, kbs.core, 16, NCORE) ||
	    kbs_add(fd, "f3", 0, kbs.core, 16, NCORE))
		return 4;
	if (kbt_name2(fd, KB_CMD_SWAP, "f1", "f2") ||
	    kbt_name2(fd, KB_CMD_RENAME, "f3", "f3r"))
		return 5;
	/* the filters are this namespace's, and complete */
	probe(fd, "f0", v4, 4, 300, 0);
	probe(fd, "f1", kbs.core, 16, NCORE, 0);
	probe(fd, "f3r", kbs.core, 16, NCORE, 0);
	if (atomic_load(&kbs.bad) != bad)
		return 6;
	/* a transaction left open: discarded when the file goes */
	c = kbt_spec("f1", KB_KIND_BLOCKED, KB_KEY_BYTES, 50000, 1000000);
	if (kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c) ||
	    kbs_add(fd, "f1", KB_KEYS_F_TXN, kbs.core, 16, NCORE))
		return 7;
	/* a rule holding f0 when the namespace dies */
	if (kbs.xt && r % 4 == 0 &&
	    kbt_sh("iptables -w -A INPUT -m bloom --bloom-name f0 -j DROP 2>/dev/null"))
		return 8;
	return 0;	/* exit: fd closed, namespace torn down */
}

static void *role_netns(void *arg)
{
	int status;
	pid_t pid;
	long r;

	for (r = 0; kbs_running(); r++) {
		pid = fork();
		if (pid < 0) {
			kbs_fail("fork: %s", strerror(errno));
			break;
		}
		if (!pid)
			_exit(netns_child(r));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			kbs_fail("netns child %ld: status %#x", r, status);
		atomic_fetch_add(&kbs.ops[R_NETNS], 1);
	}
	return NULL;
}

/* ---- setup ---------------------------------------------------------------- */

static long modref(const char *mod)
{
	char path[64], buf[32];

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", mod);
	return kbt_param_read(path, buf, sizeof(buf)) ? -1 : atol(buf);
}

FIXTURE(stress) {
	pthread_t th[MAX_THREADS];
	int nth;
	int fd;
	bool xt_up;
};

FIXTURE_VARIANT(stress) {
	bool xt;
};

FIXTURE_VARIANT_ADD(stress, plain) {
	.xt = false,
};

FIXTURE_VARIANT_ADD(stress, xt) {
	.xt = true,
};

FIXTURE_SETUP(stress)
{
	self->fd = -1;
	kbs.dst_fd = kbs.rx = kbs.tx_ok = kbs.tx_bl = -1;
}

static void stop_workers(FIXTURE_DATA(stress) *self)
{
	atomic_store(&kbs.stop, 1);
	while (self->nth > 0)
		pthread_join(self->th[--self->nth], NULL);
}

/* idempotent: also runs after a failed ASSERT */
static void cleanup(FIXTURE_DATA(stress) *self)
{
	static const char *const names[] = {
		"inv.a", "inv.b", "inv.s", "inv.r", "inv.r2", "scr.cnt", "own",
		"own.c", "pool.0", "pool.1", "pool.2", "pool.3", "pool.4",
		"pool.5",
	};
	size_t i;

	stop_workers(self);
	for (i = 0; self->fd >= 0 && i < ARRAY_SIZE(names); i++)
		kbt_destroy(self->fd, names[i]);
	if (self->xt_up) {
		kbt_sh("ip netns del " NS_SRC " 2>/dev/null; ip netns del " NS_DST " 2>/dev/null");
		self->xt_up = false;
	}
	kbs_close_fd(&self->fd);
	kbs_close_fd(&kbs.dst_fd);
	kbs_close_fd(&kbs.rx);
	kbs_close_fd(&kbs.tx_ok);
	kbs_close_fd(&kbs.tx_bl);
}

FIXTURE_TEARDOWN(stress)
{
	cleanup(self);
}

static void start(struct __test_metadata *_metadata,
		  FIXTURE_DATA(stress) *self, void *(*fn)(void *), long arg)
{
	ASSERT_GT(MAX_THREADS, self->nth);
	ASSERT_EQ(0, pthread_create(&self->th[self->nth], NULL, fn,
				    (void *)arg));
	self->nth++;
}

/* mod's refcnt once it is want, or after 2 minutes (netns cleanup is async) */
static long refs_settle(const char *mod, long want)
{
	int i;

	for (i = 0; i < 1200 && modref(mod) != want; i++)
		usleep(100000);
	return modref(mod);
}

TEST_F_TIMEOUT(stress, run, 0)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), ref_kb, ref_xt, i;
	const char *why = variant->xt ? kbs_xt_missing() : NULL;
	struct timespec t0, t;
	void *(*roles[])(void *) = {
		role_add, role_rebuild, role_swap, role_rename, role_churn,
		role_netns,
	};
	int r;

	if (why)
		SKIP(return, "%s", why);
	/* before any of our files: they hold kbloom too */
	ref_kb = modref("kbloom");
	ref_xt = modref("xt_bloom");
	self->fd = kbt_open();
	ASSERT_LE(0, self->fd);
	kbs.core = kbt_keys16(7, 0, NCORE);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, kbt_create(self->fd, inv[i], kinds[i % 3],
					KB_KEY_BYTES, 4096));
		ASSERT_EQ(0, kbs_add(self->fd, inv[i], 0, kbs.core, 16, NCORE));
	}
	ASSERT_EQ(0, kbt_create(self->fd, "scr.cnt", KB_KIND_COUNTING,
				KB_KEY_BYTES, 4096));
	if (variant->xt) {
		self->xt_up = true;
		why = kbs_xt_setup();
		ASSERT_EQ(NULL, why)
			TH_LOG("xt setup: %s", why);
		kbs.xt = true;
	}

	for (i = 0; i < (ncpu > 2 ? ncpu : 2); i++)
		start(_metadata, self, role_lookup, i);
	for (i = 0; i < ARRAY_SIZE(roles); i++)
		start(_metadata, self, roles[i], 0);
	if (kbs.xt) {
		start(_metadata, self, kbs_role_xt_rebuild, 0);
		start(_metadata, self, kbs_role_xt_send, 0);
		start(_metadata, self, kbs_role_xt_recv, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(100000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < duration);
	stop_workers(self);

	for (r = 0; r < NR_ROLES; r++) {
		if (r >= R_XT_REBUILD && !kbs.xt)
			break;
		TH_LOG("%-10s %ld rounds", role_name[r],
		       atomic_load(&kbs.ops[r]));
		EXPECT_LT(0, atomic_load(&kbs.ops[r])) {
			TH_LOG("role %s made no progress", role_name[r]);
		}
	}
	if (atomic_load(&kbs.bad))
		TH_LOG("%ld unexpected results, the first: %s",
		       atomic_load(&kbs.bad), kbs.first);
	EXPECT_EQ(0, atomic_load(&kbs.false_neg));
	EXPECT_EQ(0, atomic_load(&kbs.bad));
	if (kbs.xt) {
		long dropped = kbs_rule_pkts();

		while (kbs_xt_recv_one(MSG_DONTWAIT))
			;
		TH_LOG("xt: %ld blocked sent, %ld dropped by the rule, %ld received; %ld allowed received",
		       atomic_load(&kbs.tx_bl_sent), dropped,
		       atomic_load(&kbs.rx_bl), atomic_load(&kbs.rx_ok));
		EXPECT_EQ(0, atomic_load(&kbs.rx_bl));
		EXPECT_LT(0, atomic_load(&kbs.rx_ok));
		EXPECT_LT(0, atomic_load(&kbs.tx_bl_sent));
		EXPECT_LT(0, dropped);
	}
	/* all there (the renamer renames the ring back every round) */
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, kbt_destroy(self->fd, inv[i]));
	cleanup(self);
	/* dead namespaces' rules drop their references: unloadable again */
	EXPECT_EQ(ref_kb, refs_settle("kbloom", ref_kb));
	EXPECT_EQ(ref_xt, refs_settle("xt_bloom", ref_xt));
	free(kbs.core);
}

/* the harness' alarm: the run itself, plus setup and teardown under TCG */
static void __attribute__((constructor)) stress_duration(void)
{
	const char *s = getenv("KB_STRESS_SECONDS");

	if (s && atoi(s) > 0)
		duration = atoi(s);
	_stress_run_object.timeout = duration + 600;
}

TEST_HARNESS_MAIN
