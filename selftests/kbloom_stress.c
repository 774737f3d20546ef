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
#include "kb_test.h"

#define NCORE		512		/* invariant keys */
#define NPOOL		6		/* pool.0 .. pool.5 */
#define MAX_THREADS	64
#define NS_SRC		"kbs_src"
#define NS_DST		"kbs_dst"
#define XT_PORT		9999
#define E(e)		(1ULL << (e))	/* an accepted errno */

enum role {
	R_LOOKUP, R_ADD, R_REBUILD, R_SWAP, R_RENAME, R_CHURN, R_NETNS,
	R_XT_REBUILD, R_XT_SEND, R_XT_RECV, NR_ROLES
};

static const char *const role_name[NR_ROLES] = {
	"lookup", "add", "rebuild", "swap", "rename", "churn", "netns",
	"xt_rebuild", "xt_send", "xt_recv",
};

/* inv[3] is the rename ring (inv.r or inv.r2) */
static const char *const inv[] = { "inv.a", "inv.b", "inv.s", "inv.r" };

static int duration = 8;

/* shared by the workers (the harness runs each test in its own process) */
static struct {
	atomic_int stop;
	atomic_long ops[NR_ROLES];
	atomic_long bad;		/* unexpected results, false negatives */
	atomic_long false_neg;
	char first[256];		/* the first unexpected result */
	void *core;			/* NCORE 16-byte keys */
	bool xt;
	int dst_fd;			/* /dev/kbloom in NS_DST */
	int rx, tx_ok, tx_bl;		/* UDP sockets */
	struct in_addr dst, ok, bl;	/* 10.98.0.1, .2 (allowed), .3 */
	struct sockaddr_in to;		/* dst:XT_PORT */
	atomic_long rx_ok, rx_bl, tx_bl_sent;
} st;

static bool running(void)
{
	return !atomic_load(&st.stop);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&st.bad, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(st.first, sizeof(st.first), fmt, ap);
	va_end(ap);
}

/* ret (0 or -errno) must be 0 or one of the errnos in ok */
static int chk(int ret, __u64 ok, const char *what, const char *name)
{
	if (ret && (-ret >= 64 || !(ok & E(-ret))))
		fail("%s %s: %s", what, name, strerror(-ret));
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
		atomic_fetch_add(&st.false_neg, n - k.hits);
		fail("false negatives in %s: %llu of %llu keys", name,
		     (unsigned long long)(n - k.hits), (unsigned long long)n);
	}
	return chk(ret, ok, "test", name);
}

static int add(int fd, const char *name, __u32 flags, const void *keys,
	       __u32 ksz, __u64 n)
{
	return kbt_keys(fd, KB_IOC_ADD, name, flags, keys, ksz, n, NULL, NULL);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int open_dev(void)
{
	int fd = kbt_open();

	if (fd < 0)
		fail("open %s: %s", KB_DEV, strerror(errno));
	return fd;
}

/* an image; ENOSPC again when a rebuild or swap made the filter grow */
static long export(int fd, const char *name, __u32 flags, void **img)
{
	long len;
	int i = 0;

	do
		len = kbt_export(fd, name, flags, img);
	while (len == -ENOSPC && ++i < 100);
	return chk(len < 0 ? len : 0, 0, "export", name) ? -1 : len;
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

	for (i = (long)arg; fd >= 0 && running(); i++) {
		switch (i % 5) {
		case 3:	/* the rename ring: one of the two names exists */
			if (probe(fd, "inv.r", st.core, 16, NCORE, E(ENOENT)))
				probe(fd, "inv.r2", st.core, 16, NCORE,
				      E(ENOENT));
			break;
		case 4:
			if (st.xt) {
				probe(st.dst_fd, "xt.bl", &st.bl, 4, 1, 0);
				probe(st.dst_fd, "xt.bl2", &st.bl, 4, 1, 0);
			}
			break;
		default:
			probe(fd, inv[i % 3], st.core, 16, NCORE, 0);
		}
		atomic_fetch_add(&st.ops[R_LOOKUP], 1);
	}
	close(fd);
	return NULL;
}

static void *role_add(void *arg)
{
	int fd = open_dev();
	struct kb_ioc_keys k;
	__u64 r, n;

	for (r = 0; fd >= 0 && running(); r++) {
		const char *name = inv[r % 3];
		void *keys;

		n = r % 16 == 15 ? 10000 : 256;
		keys = kbt_keys16(1000 + r, 0, n);
		chk(kbt_keys(fd, r % 2 ? KB_IOC_ADD : KB_IOC_TEST_ADD, name, 0,
			     keys, 16, n, NULL, NULL), 0, "add", name);
		if (chk(add(fd, "inv.r", 0, keys, 16, 64), E(ENOENT), "add",
			"inv.r"))
			chk(add(fd, "inv.r2", 0, keys, 16, 64), E(ENOENT),
			    "add", "inv.r2");
		/* only this thread writes scr.cnt: added keys are there */
		chk(add(fd, "scr.cnt", 0, keys, 16, 256), 0, "add", "scr.cnt");
		probe(fd, "scr.cnt", keys, 16, 256, 0);
		if (!chk(kbt_keys(fd, KB_IOC_DEL, "scr.cnt", 0, keys, 16, 256,
				  NULL, &k), 0, "del", "scr.cnt") &&
		    k.hits != 256)
			fail("del scr.cnt: %llu of 256 deleted",
			     (unsigned long long)k.hits);
		free(keys);
		atomic_fetch_add(&st.ops[R_ADD], 1);
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
static void rebuild(int fd, const char *name, __u32 type, const void *must,
		    __u32 ksz, __u32 nmust, __u64 *seed)
{
	__u64 r = rnd(seed), items = r % 8 ? 4096 : 1 << 19;
	struct kb_ioc_create c = kbt_spec(name, kinds[r % 3], type, items,
					  1000000);
	__u32 oksz;
	void *other, *img = NULL;
	long len;

	if (chk(kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c), 0, "begin", name))
		return;
	chk(add(fd, name, KB_KEYS_F_TXN, must, ksz, nmust), 0, "txn add",
	    name);
	other = mkkeys(type, r >> 40 & 0xff, 256, &oksz);
	chk(add(fd, name, KB_KEYS_F_TXN, other, oksz, 256), 0, "txn add",
	    name);
	free(other);
	if (r % 5 == 0) {
		len = export(fd, name, KB_IMAGE_F_TXN, &img);
		if (len > 0) {
			chk(kbt_upload(fd, name, KB_IMAGE_F_TXN, img, len,
				       NULL), 0, "txn upload", name);
			free(img);
		}
	}
	if (r % 4 == 3)
		chk(kbt_txn(fd, KB_IOC_TXN_ABORT), 0, "abort", name);
	else
		chk(kbt_txn(fd, KB_IOC_TXN_COMMIT), 0, "commit", name);
}

static void *role_rebuild(void *arg)
{
	__u64 seed = 0x5eed0001, r;
	int fd = open_dev();
	void *img = NULL;
	long len;

	for (r = 0; fd >= 0 && running(); r++) {
		rebuild(fd, inv[r % 3], KB_KEY_BYTES, st.core, 16, NCORE,
			&seed);
		if (r % 7 == 6) {	/* live upload: inv.a's image to inv.b */
			len = export(fd, "inv.a", 0, &img);
			if (len > 0) {
				chk(kbt_upload(fd, "inv.b", 0, img, len, NULL),
				    0, "upload", "inv.b");
				free(img);
			}
		}
		atomic_fetch_add(&st.ops[R_REBUILD], 1);
	}
	close(fd);
	return NULL;
}

static void *role_swap(void *arg)
{
	int fd = open_dev();
	long r;

	for (r = 0; fd >= 0 && running(); r++) {
		switch (r % 5) {
		case 3:	/* a no-op */
			chk(kbt_name2(fd, KB_IOC_SWAP, "inv.a", "inv.a"), 0,
			    "swap", "inv.a");
			break;
		case 4:	/* with the rename ring */
			if (chk(kbt_name2(fd, KB_IOC_SWAP, "inv.s", "inv.r"),
				E(ENOENT), "swap", "inv.r"))
				chk(kbt_name2(fd, KB_IOC_SWAP, "inv.r2",
					      "inv.s"), E(ENOENT), "swap",
				    "inv.r2");
			break;
		default:
			chk(kbt_name2(fd, KB_IOC_SWAP, inv[r % 3],
				      inv[(r + 1) % 3]), 0, "swap", inv[r % 3]);
		}
		atomic_fetch_add(&st.ops[R_SWAP], 1);
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

	while (fd >= 0 && running()) {
		/* nobody else renames or destroys the ring */
		chk(kbt_name2(fd, KB_IOC_RENAME, "inv.r", "inv.r2"), 0,
		    "rename", "inv.r");
		chk(kbt_name2(fd, KB_IOC_RENAME, "inv.r2", "inv.r"), 0,
		    "rename", "inv.r2");
		snprintf(a, sizeof(a), "pool.%d", (int)(rnd(&seed) % NPOOL));
		snprintf(b, sizeof(b), "pool.%d", (int)(rnd(&seed) % NPOOL));
		chk(kbt_name2(fd, KB_IOC_RENAME, a, b), E(ENOENT) | E(EEXIST),
		    "rename", a);
		atomic_fetch_add(&st.ops[R_RENAME], 1);
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

	if (!chk(kbt_create(fd, "own", kinds[r / 3 % 3], type, 1000), 0,
		 "create", "own")) {
		chk(add(fd, "own", 0, keys, ksz, 300), 0, "add", "own");
		probe(fd, "own", keys, ksz, 300, 0);
		len = export(fd, "own", 0, &img);
		if (len > 0) {
			chk(kbt_upload(fd, "own.c", KB_IMAGE_F_CREATE, img, len,
				       NULL), 0, "upload", "own.c");
			free(img);
			probe(fd, "own.c", keys, ksz, 300, 0);
			chk(kbt_destroy(fd, "own.c"), 0, "destroy", "own.c");
		}
		chk(kbt_destroy(fd, "own"), 0, "destroy", "own");
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

	for (r = 0; fd >= 0 && running(); r++) {
		snprintf(p, sizeof(p), "pool.%d", (int)(rnd(&seed) % NPOOL));
		keys = kbt_keys16(3000 + r % 64, 0, 128);
		switch (rnd(&seed) % 6) {
		case 0:
			chk(kbt_create(fd, p, kinds[r % 3], KB_KEY_BYTES, 1000),
			    E(EEXIST), "create", p);
			break;
		case 1:
			chk(kbt_destroy(fd, p), E(ENOENT), "destroy", p);
			break;
		case 2:
			chk(add(fd, p, 0, keys, 16, 128), E(ENOENT), "add", p);
			break;
		case 3:
			chk(kbt_name_cmd(fd, KB_IOC_FLUSH, p), E(ENOENT),
			    "flush", p);
			break;
		case 4:
			chk(kbt_info(fd, p, &info), E(ENOENT), "info", p);
			break;
		case 5:	/* create (or rebuild) at commit */
			c = kbt_spec(p, kinds[r % 3], KB_KEY_BYTES, 1000,
				     1000000);
			if (chk(kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c), 0, "begin",
				p))
				break;
			chk(add(fd, p, KB_KEYS_F_TXN, keys, 16, 128), 0,
			    "txn add", p);
			chk(kbt_txn(fd, KB_IOC_TXN_COMMIT),
			    E(ENOENT) | E(EEXIST), "commit", p);
		}
		free(keys);
		if (r % 2)
			own_cycle(fd, r);
		atomic_fetch_add(&st.ops[R_CHURN], 1);
	}
	close(fd);
	return NULL;
}

/* in a child: a new network namespace with filters; exit status 0 = ok */
static int netns_child(long r)
{
	__u32 ksz;
	void *v4 = mkkeys(KB_KEY_IPV4, 7, 300, &ksz);
	long bad = atomic_load(&st.bad);	/* the parent's, copied */
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
	if (add(fd, "f0", 0, v4, 4, 300) || add(fd, "f1", 0, st.core, 16, NCORE) ||
	    add(fd, "f2", 0, st.core, 16, NCORE) ||
	    add(fd, "f3", 0, st.core, 16, NCORE))
		return 4;
	if (kbt_name2(fd, KB_IOC_SWAP, "f1", "f2") ||
	    kbt_name2(fd, KB_IOC_RENAME, "f3", "f3r"))
		return 5;
	/* the filters are this namespace's, and complete */
	probe(fd, "f0", v4, 4, 300, 0);
	probe(fd, "f1", st.core, 16, NCORE, 0);
	probe(fd, "f3r", st.core, 16, NCORE, 0);
	if (atomic_load(&st.bad) != bad)
		return 6;
	/* a transaction left open: discarded when the file goes */
	c = kbt_spec("f1", KB_KIND_BLOCKED, KB_KEY_BYTES, 50000, 1000000);
	if (kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c) ||
	    add(fd, "f1", KB_KEYS_F_TXN, st.core, 16, NCORE))
		return 7;
	/* a rule holding f0 when the namespace dies */
	if (st.xt && r % 4 == 0 &&
	    kbt_sh("iptables -w -A INPUT -m bloom --bloom-name f0 -j DROP 2>/dev/null"))
		return 8;
	return 0;	/* exit: fd closed, namespace torn down */
}

static void *role_netns(void *arg)
{
	int status;
	pid_t pid;
	long r;

	for (r = 0; running(); r++) {
		pid = fork();
		if (pid < 0) {
			fail("fork: %s", strerror(errno));
			break;
		}
		if (!pid)
			_exit(netns_child(r));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail("netns child %ld: status %#x", r, status);
		atomic_fetch_add(&st.ops[R_NETNS], 1);
	}
	return NULL;
}

static void *role_xt_rebuild(void *arg)
{
	__u64 seed = 0x5eed0004, r;
	int fd = st.dst_fd;

	for (r = 0; running(); r++) {
		rebuild(fd, "xt.bl", KB_KEY_IPV4, &st.bl, 4, 1, &seed);
		if (r % 4 == 1)
			rebuild(fd, "xt.bl2", KB_KEY_IPV4, &st.bl, 4, 1, &seed);
		if (r % 2)	/* the rule follows the name xt.bl */
			chk(kbt_name2(fd, KB_IOC_SWAP, "xt.bl", "xt.bl2"), 0,
			    "swap", "xt.bl");
		if (r % 8 == 0) {	/* a filter held by a rule */
			if (kbt_name2(fd, KB_IOC_RENAME, "xt.bl", "xt.x") != -EBUSY)
				fail("rename of xt.bl (in a rule) not EBUSY");
			if (kbt_destroy(fd, "xt.bl") != -EBUSY)
				fail("destroy of xt.bl (in a rule) not EBUSY");
		}
		if (r % 16 == 8 &&	/* rules come and go */
		    (kbt_sh("ip netns exec " NS_DST " iptables -w -A OUTPUT -m bloom --bloom-name xt.bl2 -j ACCEPT") ||
		     kbt_sh("ip netns exec " NS_DST " iptables -w -D OUTPUT -m bloom --bloom-name xt.bl2 -j ACCEPT")))
			fail("iptables rule on xt.bl2 add/delete failed");
		atomic_fetch_add(&st.ops[R_XT_REBUILD], 1);
	}
	return NULL;
}

static void *role_xt_send(void *arg)
{
	while (running()) {
		sendto(st.tx_ok, "ok", 2, 0, (void *)&st.to, sizeof(st.to));
		if (sendto(st.tx_bl, "bl", 2, 0, (void *)&st.to,
			   sizeof(st.to)) == 2)
			atomic_fetch_add(&st.tx_bl_sent, 1);
		atomic_fetch_add(&st.ops[R_XT_SEND], 1);
		usleep(300);
	}
	return NULL;
}

/* one datagram (flags: MSG_DONTWAIT to drain); 0 if none */
static int xt_recv_one(int flags)
{
	struct sockaddr_in from;
	socklen_t len = sizeof(from);
	char buf[16];

	if (recvfrom(st.rx, buf, sizeof(buf), flags, (void *)&from, &len) < 0)
		return 0;
	if (from.sin_addr.s_addr == st.bl.s_addr)
		atomic_fetch_add(&st.rx_bl, 1);
	else if (from.sin_addr.s_addr == st.ok.s_addr)
		atomic_fetch_add(&st.rx_ok, 1);
	return 1;
}

static void *role_xt_recv(void *arg)
{
	while (running()) {
		xt_recv_one(0);		/* SO_RCVTIMEO: sees stop */
		atomic_fetch_add(&st.ops[R_XT_RECV], 1);
	}
	return NULL;
}

/* ---- setup ---------------------------------------------------------------- */

/*
 * A file of netns ns (for this thread only, setns): /dev/kbloom if addr is
 * NULL, else a UDP socket bound to addr:port.  -1 on failure.
 */
static int fd_in(const char *ns, const struct in_addr *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_usec = 100000 };
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int nsfd, fd = -1;
	char path[64];

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (self >= 0 && nsfd >= 0 && !setns(nsfd, CLONE_NEWNET)) {
		fd = addr ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0) :
			    kbt_open();
		if (addr && fd >= 0) {
			sa.sin_addr = *addr;
			if (bind(fd, (void *)&sa, sizeof(sa)) ||
			    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				       sizeof(tv)))
				close_fd(&fd);
		}
		if (setns(self, CLONE_NEWNET))
			abort();	/* this thread would stay in ns */
	}
	close(nsfd);
	close(self);
	return fd;
}

/* packets the bloom DROP rule in NS_DST has matched */
static long rule_pkts(void)
{
	return kbt_sh_long("ip netns exec " NS_DST " iptables -w -L INPUT -v -x -n | "
			   "awk '/bloom/ { print $1; exit }'");
}

static long modref(const char *mod)
{
	char path[64], buf[32];

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", mod);
	return kbt_param_read(path, buf, sizeof(buf)) ? -1 : atol(buf);
}

static const char *xt_missing(void)
{
	if (access("/sys/module/xt_bloom", F_OK))
		return "xt_bloom not loaded";
	if (access(XT_LIBDIR "/libxt_bloom.so", R_OK))
		return "no " XT_LIBDIR "/libxt_bloom.so";
	if (kbt_sh("iptables -V >/dev/null 2>&1 && ip -V >/dev/null 2>&1"))
		return "no iptables or ip";
	return NULL;
}

static void xt_setup(struct __test_metadata *_metadata)
{
	int i;

	setenv("XTABLES_LIBDIR", XT_LIBDIR ":" XT_SYSDIR, 1);
	kbt_sh("ip netns del " NS_SRC " 2>/dev/null; ip netns del " NS_DST " 2>/dev/null");
	ASSERT_EQ(0, kbt_sh("ip netns add " NS_SRC " && ip netns add " NS_DST " && "
			"ip -n " NS_SRC " link add veth-s type veth peer name veth-d netns " NS_DST " && "
			"ip -n " NS_SRC " link set veth-s up && ip -n " NS_DST " link set veth-d up && "
			"ip -n " NS_DST " addr add 10.98.0.1/24 dev veth-d && "
			"ip -n " NS_SRC " addr add 10.98.0.2/24 dev veth-s && "
			"ip -n " NS_SRC " addr add 10.98.0.3/24 dev veth-s"));
	inet_pton(AF_INET, "10.98.0.1", &st.dst);
	inet_pton(AF_INET, "10.98.0.2", &st.ok);
	inet_pton(AF_INET, "10.98.0.3", &st.bl);
	st.to = (struct sockaddr_in){ .sin_family = AF_INET,
				      .sin_port = htons(XT_PORT),
				      .sin_addr = st.dst };
	st.dst_fd = fd_in(NS_DST, NULL, 0);
	ASSERT_LE(0, st.dst_fd);
	ASSERT_EQ(0, kbt_create(st.dst_fd, "xt.bl", KB_KIND_BLOCKED,
				KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, kbt_create(st.dst_fd, "xt.bl2", KB_KIND_COUNTING,
				KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, add(st.dst_fd, "xt.bl", 0, &st.bl, 4, 1));
	ASSERT_EQ(0, add(st.dst_fd, "xt.bl2", 0, &st.bl, 4, 1));
	ASSERT_EQ(0, kbt_sh("ip netns exec " NS_DST " iptables -w -A INPUT -p udp "
			"--dport %d -m bloom --bloom-name xt.bl --bloom-dir src -j DROP",
			XT_PORT));
	st.rx = fd_in(NS_DST, &st.dst, XT_PORT);
	st.tx_ok = fd_in(NS_SRC, &st.ok, 0);
	st.tx_bl = fd_in(NS_SRC, &st.bl, 0);
	ASSERT_LE(0, st.rx);
	ASSERT_LE(0, st.tx_ok);
	ASSERT_LE(0, st.tx_bl);
	/* the allowed source gets through before the stress (ARP, TCG) */
	for (i = 0; i < 200 && !atomic_load(&st.rx_ok); i++) {
		sendto(st.tx_ok, "ok", 2, 0, (void *)&st.to, sizeof(st.to));
		xt_recv_one(0);
	}
	ASSERT_LT(0, atomic_load(&st.rx_ok));
	while (xt_recv_one(MSG_DONTWAIT))
		;
	atomic_store(&st.rx_ok, 0);
	ASSERT_EQ(0, atomic_load(&st.rx_bl));
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
	st.dst_fd = st.rx = st.tx_ok = st.tx_bl = -1;
}

static void stop_workers(FIXTURE_DATA(stress) *self)
{
	atomic_store(&st.stop, 1);
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
	close_fd(&self->fd);
	close_fd(&st.dst_fd);
	close_fd(&st.rx);
	close_fd(&st.tx_ok);
	close_fd(&st.tx_bl);
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
	const char *why = variant->xt ? xt_missing() : NULL;
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
	st.core = kbt_keys16(7, 0, NCORE);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, kbt_create(self->fd, inv[i], kinds[i % 3],
					KB_KEY_BYTES, 4096));
		ASSERT_EQ(0, add(self->fd, inv[i], 0, st.core, 16, NCORE));
	}
	ASSERT_EQ(0, kbt_create(self->fd, "scr.cnt", KB_KIND_COUNTING,
				KB_KEY_BYTES, 4096));
	if (variant->xt) {
		self->xt_up = true;
		xt_setup(_metadata);
		st.xt = true;
	}

	for (i = 0; i < (ncpu > 2 ? ncpu : 2); i++)
		start(_metadata, self, role_lookup, i);
	for (i = 0; i < ARRAY_SIZE(roles); i++)
		start(_metadata, self, roles[i], 0);
	if (st.xt) {
		start(_metadata, self, role_xt_rebuild, 0);
		start(_metadata, self, role_xt_send, 0);
		start(_metadata, self, role_xt_recv, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(100000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < duration);
	stop_workers(self);

	for (r = 0; r < NR_ROLES; r++) {
		if (r >= R_XT_REBUILD && !st.xt)
			break;
		TH_LOG("%-10s %ld rounds", role_name[r],
		       atomic_load(&st.ops[r]));
		EXPECT_LT(0, atomic_load(&st.ops[r])) {
			TH_LOG("role %s made no progress", role_name[r]);
		}
	}
	if (atomic_load(&st.bad))
		TH_LOG("%ld unexpected results, the first: %s",
		       atomic_load(&st.bad), st.first);
	EXPECT_EQ(0, atomic_load(&st.false_neg));
	EXPECT_EQ(0, atomic_load(&st.bad));
	if (st.xt) {
		long dropped = rule_pkts();

		while (xt_recv_one(MSG_DONTWAIT))
			;
		TH_LOG("xt: %ld blocked sent, %ld dropped by the rule, %ld received; %ld allowed received",
		       atomic_load(&st.tx_bl_sent), dropped,
		       atomic_load(&st.rx_bl), atomic_load(&st.rx_ok));
		EXPECT_EQ(0, atomic_load(&st.rx_bl));
		EXPECT_LT(0, atomic_load(&st.rx_ok));
		EXPECT_LT(0, atomic_load(&st.tx_bl_sent));
		EXPECT_LT(0, dropped);
	}
	/* all there (the renamer renames the ring back every round) */
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, kbt_destroy(self->fd, inv[i]));
	cleanup(self);
	/* dead namespaces' rules drop their references: unloadable again */
	EXPECT_EQ(ref_kb, refs_settle("kbloom", ref_kb));
	EXPECT_EQ(ref_xt, refs_settle("xt_bloom", ref_xt));
	free(st.core);
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
