// SPDX-License-Identifier: GPL-2.0
/*
 * Stress of adds from the packet path (issue #27), for
 * KB_STRESS_LEARN_SECONDS (default 16), all at once:
 *
 *  send     two threads, pinned to CPU 0 and 1, send UDP from never-used
 *           source addresses (IP_TRANSPARENT + IP_PKTINFO) over a veth
 *           into NS_DST, whose INPUT chain learns them with the BLOOM
 *           target: "-j BLOOM --add-set win src" (a time window of 2 s,
 *           2 slices: a rotation every second) and "--add-set pl src" (a
 *           plain blocked filter).  veth delivers on the sending CPU, so
 *           the target runs on both CPUs at once.
 *  recv     a datagram received went through the target first: its
 *           source is acknowledged at that moment (CLOCK_BOOTTIME, the
 *           rotation's clock)
 *  bulk     KB_IOC_ADD batches into win and pl, acknowledged on return
 *  rebuild  transactions replacing pl (its must-keys kept), until 4 s
 *           before the end
 *  check    every key acknowledged into win is tested while still inside
 *           its window: a key added at t must answer maybe until t + 2 s
 *           (a test that ends before that and answers absent is a false
 *           negative; one that ends later proves nothing and is counted as
 *           late); pl's must-keys are always there
 *  netns    children unshare a netns, create a window filter and a plain
 *           one, learn over loopback through a BLOOM rule and a bloom
 *           match, leave a transaction open and exit at a varying moment
 *           of the window's rotation: teardown with rules, pending
 *           rotations and transactions
 *
 * At the end, with everything stopped: every key acknowledged into pl
 * after the last rebuild is there, and pl's fill counters match an offline
 * scan of its export within the documented error (docs/design.md, "Adds
 * from the packet path": bits-set exactly, the FPR estimate within 2%).
 * Kernel reports (KASAN, lockdep, WARN) fail the VM run itself.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "kselftest_harness.h"
#include "kb_test.h"

#define NS_SRC		"kbsl_src"
#define NS_DST		"kbsl_dst"
#define PORT_WIN	9011
#define PORT_PL		9012
#define WINDOW_MS	2000
#define NK		65536		/* keys per track */
#define NMUST		256
#define BATCH		64
#define PL_ITEMS	12000
#define PL_AFTER	2560

enum { T_WPKT, T_WBULK, T_PPKT, T_PBULK, NR_TRACKS };

/* a stream of never-reused keys: base + n, and when each was acknowledged */
struct trk {
	const char *filter;
	__u32 base;			/* host order */
	atomic_uint next;		/* keys handed out */
	atomic_uint lim;		/* up to */
	_Atomic __u64 sent[NK];		/* ns (CLOCK_BOOTTIME), 0: not yet */
	_Atomic __u64 ack[NK];
	unsigned char done[NK];		/* checker: tested */
	__u32 lo;			/* checker: all below are done */
	long acked, checked, late;
};

static struct {
	atomic_int stop, stop_rebuild;
	struct trk t[NR_TRACKS];
	struct in_addr dst;
	int dst_fd;			/* /dev/kbloom in NS_DST */
	int rx_win, rx_pl;
	atomic_long bad, false_neg, rebuilds, netns, sendfail;
	char first[320];
	__u64 rebuild_end;		/* ns: the last rebuild returned */
} S = {
	.t = {
		[T_WPKT] = { .filter = "win", .base = 0x0a610000 },
		[T_WBULK] = { .filter = "win", .base = 0x0a600000 },
		[T_PPKT] = { .filter = "pl", .base = 0x0a5f0000 },
		[T_PBULK] = { .filter = "pl", .base = 0x0a5e0000 },
	},
};

static int duration = 16;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&S.bad, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(S.first, sizeof(S.first), fmt, ap);
	va_end(ap);
}

static bool running(void)
{
	return !atomic_load(&S.stop);
}

/* KB_CMD_CREATE of a blocked IPv4 filter; window_ms 0: no window */
static int create(int fd, const char *name, __u64 items, __u32 fpr_ppb,
		  __u64 window_ms, __u32 slices)
{
	struct kbtn *n = kbt_nl(fd);
	struct kbtn_req *r = malloc(sizeof(*r));
	int ret;

	kbtn_init(r, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(r, KB_A_NAME, name);
	kbtn_put_u32(r, KB_A_KIND, KB_KIND_BLOCKED);
	kbtn_put_u32(r, KB_A_KEY_TYPE, KB_KEY_IPV4);
	kbtn_put_u32(r, KB_A_HASH, KB_HASH_XXH64);
	kbtn_put_u64(r, KB_A_ITEMS, items);
	kbtn_put_u32(r, KB_A_FPR_PPB, fpr_ppb);
	if (window_ms) {
		kbtn_put_u64(r, KB_A_WINDOW_MS, window_ms);
		kbtn_put_u32(r, KB_A_SLICES, slices);
	}
	ret = kbtn_do(n, r);
	kbt_nl_put(fd, n);
	free(r);
	return ret;
}

/*
 * A file of netns ns for this thread only (setns and back): /dev/kbloom
 * if port is 0, else a UDP socket (bound to addr:port if addr, else
 * IP_TRANSPARENT: it sends from any source).  -1 on failure.
 */
static int fd_in(const char *ns, const struct in_addr *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_usec = 100000 };
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int nsfd, fd = -1, one = 1;
	char path[64];

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (self >= 0 && nsfd >= 0 && !setns(nsfd, CLONE_NEWNET)) {
		fd = port ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0) :
			    kbt_open();
		if (port && fd >= 0 && addr) {
			sa.sin_addr = *addr;
			if (bind(fd, (void *)&sa, sizeof(sa)) ||
			    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				       sizeof(tv))) {
				close(fd);
				fd = -1;
			}
		} else if (port && fd >= 0 &&
			   setsockopt(fd, SOL_IP, IP_TRANSPARENT, &one,
				      sizeof(one))) {
			close(fd);
			fd = -1;
		}
		if (setns(self, CLONE_NEWNET))
			abort();	/* this thread would stay in ns */
	}
	close(nsfd);
	close(self);
	return fd;
}

/* one datagram from source src (network order) to dst:port */
static int send_from(int s, __u32 src, struct in_addr dst, int port)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(port), .sin_addr = dst };
	union {
		char buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = "k", .iov_len = 1 };
	struct msghdr m = {
		.msg_name = &to, .msg_namelen = sizeof(to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	struct in_pktinfo pi = { .ipi_spec_dst.s_addr = src };

	memset(u.buf, 0, sizeof(u.buf));
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	return sendmsg(s, &m, 0) == 1 ? 0 : -errno;
}

/* the next key of a track, or -1 when it ran out */
static long take(struct trk *t, __u32 n)
{
	__u32 i = atomic_fetch_add(&t->next, n);

	return i + n <= atomic_load(&t->lim) ? (long)i : -1;
}

static void *role_send(void *arg)
{
	long cpu = (long)arg, i, r;
	int s = fd_in(NS_SRC, NULL, 1);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % sysconf(_SC_NPROCESSORS_ONLN), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (s < 0)
		fail("transparent UDP socket in " NS_SRC ": %s", strerror(errno));
	for (r = 0; s >= 0 && running(); r++) {
		struct trk *t = &S.t[r % 2 ? T_PPKT : T_WPKT];

		i = take(t, 1);
		if (i < 0 && t == &S.t[T_WPKT])
			break;
		if (i < 0)
			continue;
		atomic_store(&t->sent[i], now_ns());
		if (send_from(s, htonl(t->base + i), S.dst,
			      t == &S.t[T_WPKT] ? PORT_WIN : PORT_PL))
			atomic_fetch_add(&S.sendfail, 1);
		usleep(200);
	}
	if (s >= 0)
		close(s);
	return NULL;
}

static void *role_recv(void *arg)
{
	struct trk *t = &S.t[arg ? T_PPKT : T_WPKT];
	int s = arg ? S.rx_pl : S.rx_win;
	struct sockaddr_in from;
	socklen_t len;
	char buf[8];
	__u32 n;

	while (running()) {
		len = sizeof(from);
		if (recvfrom(s, buf, sizeof(buf), 0, (void *)&from, &len) < 0)
			continue;	/* SO_RCVTIMEO: sees stop */
		n = ntohl(from.sin_addr.s_addr) - t->base;
		if (n < NK && atomic_load(&t->sent[n]))
			atomic_store(&t->ack[n], now_ns());
		else
			fail("a datagram from %s", inet_ntoa(from.sin_addr));
	}
	return NULL;
}

static void *role_bulk(void *arg)
{
	int fd = fd_in(NS_DST, NULL, 0), ret, j;
	__u32 keys[BATCH];
	long i, r;
	__u64 t;

	for (r = 0; fd >= 0 && running(); r++) {
		struct trk *tk = &S.t[r % 2 ? T_PBULK : T_WBULK];

		i = take(tk, BATCH);
		if (i < 0 && tk == &S.t[T_WBULK])
			break;
		if (i < 0)
			continue;
		for (j = 0; j < BATCH; j++) {
			keys[j] = htonl(tk->base + i + j);
			atomic_store(&tk->sent[i + j], now_ns());
		}
		ret = kbt_keys(fd, KB_IOC_ADD, tk->filter, 0, keys, 4, BATCH,
			       NULL, NULL);
		t = now_ns();
		if (ret)
			fail("bulk add to %s: %s", tk->filter, strerror(-ret));
		else
			for (j = 0; j < BATCH; j++)
				atomic_store(&tk->ack[i + j], t);
		usleep(20000);
	}
	if (fd >= 0)
		kbt_close(fd);
	return NULL;
}

static __u32 must[NMUST];

static void *role_rebuild(void *arg)
{
	int fd = fd_in(NS_DST, NULL, 0), ret;
	struct kb_ioc_create c = kbt_spec("pl", KB_KIND_BLOCKED, KB_KEY_IPV4,
					  PL_ITEMS, 10000000);

	while (fd >= 0 && running() && !atomic_load(&S.stop_rebuild)) {
		ret = kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c);
		if (!ret)
			ret = kbt_keys(fd, KB_IOC_ADD, "pl", KB_KEYS_F_TXN,
				       must, 4, NMUST, NULL, NULL);
		if (!ret)
			ret = kbt_txn(fd, KB_IOC_TXN_COMMIT);
		if (ret)
			fail("rebuild of pl: %s", strerror(-ret));
		atomic_fetch_add(&S.rebuilds, 1);
		usleep(150000);
	}
	S.rebuild_end = now_ns();
	if (fd >= 0)
		kbt_close(fd);
	return NULL;
}

/*
 * Test the acknowledged, untested keys of a track in win: absent from a
 * test that ended within the window of the key's acknowledgement is a
 * false negative.
 */
static void check_track(int fd, struct trk *t)
{
	static __u32 keys[4096], idx[4096];
	__u32 hi = atomic_load(&t->next), n = 0, i;
	__u64 res[4096 / 64], t0, t1, a, s, w = WINDOW_MS * 1000000ULL;
	int ret;

	if (hi > NK)
		hi = NK;
	t0 = now_ns();
	for (i = t->lo; i < hi && n < 4096; i++) {
		a = atomic_load(&t->ack[i]);
		if (t->done[i] || !a)
			continue;
		keys[n] = htonl(t->base + i);
		idx[n++] = i;
	}
	if (n) {
		memset(res, 0, sizeof(res));
		ret = kbt_keys(fd, KB_IOC_TEST, t->filter, 0, keys, 4, n, res,
			       NULL);
		t1 = now_ns();
		if (ret) {
			fail("test of %s: %s", t->filter, strerror(-ret));
			return;
		}
		for (i = 0; i < n; i++) {
			a = atomic_load(&t->ack[idx[i]]);
			t->done[idx[i]] = 1;
			t->checked++;
			if (kbt_bit(res, i))
				continue;
			if (t1 >= a + w) {
				t->late++;
				continue;
			}
			atomic_fetch_add(&S.false_neg, 1);
			fail("false negative in %s: %s absent from a test from %.3f to %.3f s after it was acknowledged (window %d ms)",
			     t->filter, inet_ntoa((struct in_addr){ keys[i] }),
			     ((double)t0 - a) / 1e9, (t1 - a) / 1e9, WINDOW_MS);
		}
	}
	/* past keys that are done, or sent 3 s ago and never acknowledged */
	while (t->lo < hi) {
		i = t->lo;
		s = atomic_load(&t->sent[i]);
		if (!t->done[i] && (!s || atomic_load(&t->ack[i]) ||
				    s + 3000000000ULL > t0))
			break;
		t->lo++;
	}
}

static void *role_check(void *arg)
{
	int fd = fd_in(NS_DST, NULL, 0);
	struct kb_ioc_keys k;
	int ret;

	while (fd >= 0 && running()) {
		check_track(fd, &S.t[T_WPKT]);
		check_track(fd, &S.t[T_WBULK]);
		ret = kbt_keys(fd, KB_IOC_TEST, "pl", 0, must, 4, NMUST, NULL,
			       &k);
		if (ret || k.hits != NMUST)
			fail("pl's must-keys: %d, %llu of %d", ret,
			     (unsigned long long)k.hits, NMUST);
		usleep(100000);
	}
	if (fd >= 0)
		kbt_close(fd);
	return NULL;
}

/* ---- netns churn ---------------------------------------------------------- */

/* in a child: a netns with learning rules torn down mid-window; 0 = ok */
static int netns_child(long r)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(9013) };
	struct timeval tv = { .tv_usec = 500000 };
	struct kb_ioc_create c;
	__u32 src = htonl(0x7f000002 + r % 200);
	int fd, rx, tx, i, got = 0;
	__u64 res = 0;
	char b[4];

	if (unshare(CLONE_NEWNET))
		return 1;
	if (kbt_sh("ip link set lo up"))
		return 2;
	fd = kbt_open();
	if (fd < 0 || create(fd, "w", 10000, 1000000, WINDOW_MS, 2) ||
	    create(fd, "p", 10000, 1000000, 0, 0))
		return 3;
	if (kbt_sh("iptables -w -A INPUT -p udp --dport 9013 -j BLOOM --add-set w src && "
		   "iptables -w -A INPUT -p udp -m bloom --bloom-name p --bloom-dir src -j ACCEPT"))
		return 4;
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (void *)&sa, sizeof(sa)) ||
	    setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return 5;
	for (i = 0; i < 3 && !got; i++) {
		send_from(tx, src, sa.sin_addr, 9013);
		got = recv(rx, b, sizeof(b), 0) > 0;
	}
	/* received: the target ran, within the window */
	if (!got || kbt_keys(fd, KB_IOC_TEST, "w", 0, &src, 4, 1, &res, NULL) ||
	    !(res & 1))
		return 6;
	/* a transaction left open */
	c = kbt_spec("p", KB_KIND_BLOCKED, KB_KEY_IPV4, 20000, 1000000);
	if (kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c))
		return 7;
	usleep(r % 4 * 300000);	/* exit at a varying point of the window */
	return 0;
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
		atomic_fetch_add(&S.netns, 1);
	}
	return NULL;
}

/* ---- the end: pl after the last rebuild, and its fill counters ------------ */

/* keys of track t acknowledged into pl after since, absent from it */
static long pl_missing(struct __test_metadata *_metadata, struct trk *t,
		       __u64 since, long *n_out)
{
	__u32 *keys = malloc(NK * 4), hi = atomic_load(&t->next), i, n = 0;
	__u64 *res = calloc(NK / 64, 8);
	long miss = 0;

	if (hi > NK)
		hi = NK;
	for (i = 0; i < hi; i++)
		if (atomic_load(&t->ack[i]) &&
		    atomic_load(&t->sent[i]) > since)
			keys[n++] = htonl(t->base + i);
	for (i = 0; i < n; i += 4096)
		EXPECT_EQ(0, kbt_keys(S.dst_fd, KB_IOC_TEST, "pl", 0, keys + i,
				      4, n - i < 4096 ? n - i : 4096,
				      res + i / 64, NULL));
	for (i = 0; i < n; i++)
		miss += !kbt_bit(res, i);
	free(keys);
	free(res);
	*n_out = n;
	return miss;
}

/* the statistics of an export's payload: set bits, est. FPR (ppb) */
static void scan(const void *img, __u32 k, __u64 *bits, double *fpr)
{
	const struct kb_image_hdr *h = img;
	const __u64 *w = (const __u64 *)((const char *)img + le16toh(h->hdr_len));
	__u64 nblocks = le64toh(h->m) / 512, b;
	double sum = 0;
	int j;

	*bits = 0;
	for (b = 0; b < nblocks; b++) {
		__u32 used = 0;

		for (j = 0; j < 8; j++)
			used += __builtin_popcountll(w[b * 8 + j]);
		*bits += used;
		sum += pow(used / 512.0, k);
	}
	*fpr = sum / nblocks * 1e9;
}

static void cleanup(void)
{
	if (S.dst_fd >= 0)
		kbt_close(S.dst_fd);
	S.dst_fd = -1;
	kbt_sh("ip netns del " NS_SRC " 2>/dev/null; ip netns del " NS_DST " 2>/dev/null");
}

TEST(stress_learn)
{
	pthread_t th[16];
	int nth = 0, i, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct kb_ioc_info info;
	__u64 t0, bits;
	long n, miss;
	double fpr;
	void *img = NULL;
	long len;

	setenv("XTABLES_LIBDIR", XT_LIBDIR ":" XT_SYSDIR, 1);
	if (access("/sys/module/xt_bloom", F_OK) ||
	    access(XT_LIBDIR "/libxt_BLOOM.so", R_OK))
		SKIP(return, "no xt_bloom or no libxt_BLOOM.so");
	S.dst_fd = -1;
	kbt_sh("ip netns del " NS_SRC " 2>/dev/null; ip netns del " NS_DST " 2>/dev/null");
	ASSERT_EQ(0, kbt_sh("ip netns add " NS_SRC " && ip netns add " NS_DST " && "
		"ip -n " NS_SRC " link add veth-s type veth peer name veth-d netns " NS_DST " && "
		"ip -n " NS_SRC " link set veth-s up && ip -n " NS_DST " link set veth-d up && "
		"ip -n " NS_DST " addr add 10.99.0.1/24 dev veth-d && "
		"ip -n " NS_SRC " addr add 10.99.0.2/24 dev veth-s && "
		"ip netns exec " NS_DST " sysctl -qw net.ipv4.conf.all.rp_filter=0 "
		"net.ipv4.conf.veth-d.rp_filter=0"));
	inet_pton(AF_INET, "10.99.0.1", &S.dst);
	S.dst_fd = fd_in(NS_DST, NULL, 0);
	ASSERT_LE(0, S.dst_fd);
	/* sized so that no fresh key is a false positive, hence left out */
	ASSERT_EQ(0, create(S.dst_fd, "win", 200000, 1000, WINDOW_MS, 2));
	/* full enough for its FPR estimate to mean something (see the end) */
	ASSERT_EQ(0, create(S.dst_fd, "pl", PL_ITEMS, 10000000, 0, 0));
	for (i = 0; i < NR_TRACKS; i++)
		S.t[i].lim = NK;
	for (i = 0; i < NMUST; i++)
		must[i] = htonl(0x0a5d0000 + i);
	ASSERT_EQ(0, kbt_keys(S.dst_fd, KB_IOC_ADD, "pl", 0, must, 4, NMUST,
			      NULL, NULL));
	ASSERT_EQ(0, kbt_sh("ip netns exec " NS_DST " iptables -w -A INPUT -p udp --dport %d -j BLOOM --add-set win src && "
			    "ip netns exec " NS_DST " iptables -w -A INPUT -p udp --dport %d -j BLOOM --add-set pl src",
			    PORT_WIN, PORT_PL));
	S.rx_win = fd_in(NS_DST, &S.dst, PORT_WIN);
	S.rx_pl = fd_in(NS_DST, &S.dst, PORT_PL);
	ASSERT_LE(0, S.rx_win);
	ASSERT_LE(0, S.rx_pl);

	t0 = now_ns();
	ASSERT_EQ(0, pthread_create(&th[nth++], NULL, role_recv, NULL));
	ASSERT_EQ(0, pthread_create(&th[nth++], NULL, role_recv, (void *)1));
	ASSERT_EQ(0, pthread_create(&th[nth++], NULL, role_send, (void *)0));
	ASSERT_EQ(0, pthread_create(&th[nth++], NULL, role_send, (void *)1));
	ASSERT_EQ(0, pthread_create(&th[nth++], NULL, role_bulk, NULL));
	ASSERT_EQ(0, pthread_create(&th[nth++], NULL, role_rebuild, NULL));
	ASSERT_EQ(0, pthread_create(&th[nth++], NULL, role_check, NULL));
	ASSERT_EQ(0, pthread_create(&th[nth++], NULL, role_netns, NULL));
	/* rebuilds stop 4 s before the end: what pl learns after stays */
	while (now_ns() - t0 < (duration - 4) * 1000000000ULL)
		usleep(100000);
	atomic_store(&S.stop_rebuild, 1);
	/*
	 * pl learns at most PL_AFTER keys a track from now on: under its
	 * capacity (no add refused at the cap, whatever the machine's speed)
	 */
	for (i = T_PPKT; i <= T_PBULK; i++)
		atomic_store(&S.t[i].lim, atomic_load(&S.t[i].next) + PL_AFTER);
	while (now_ns() - t0 < duration * 1000000000ULL)
		usleep(100000);
	atomic_store(&S.stop, 1);
	while (nth > 0)
		pthread_join(th[--nth], NULL);

	for (i = 0; i < NR_TRACKS; i++) {
		struct trk *t = &S.t[i];
		__u32 j, hi = atomic_load(&t->next);

		if (hi > atomic_load(&t->lim))
			hi = atomic_load(&t->lim);
		for (j = 0; j < hi && j < NK; j++)
			t->acked += !!atomic_load(&t->ack[j]);
		TH_LOG("%s %s: %u sent, %ld acknowledged, %ld tested in the window, %ld tested late",
		       t->filter, i % 2 ? "bulk" : "packet", hi, t->acked,
		       t->checked - t->late, t->late);
	}
	TH_LOG("%d CPUs, %ld rebuilds of pl, %ld netns, %ld failed sends",
	       ncpu, atomic_load(&S.rebuilds), atomic_load(&S.netns),
	       atomic_load(&S.sendfail));
	if (atomic_load(&S.bad))
		TH_LOG("%ld unexpected results, the first: %s",
		       atomic_load(&S.bad), S.first);
	EXPECT_EQ(0, atomic_load(&S.false_neg));
	EXPECT_EQ(0, atomic_load(&S.bad));
	/* every role made progress; the window checks were mostly in time */
	EXPECT_LT(100, S.t[T_WPKT].checked - S.t[T_WPKT].late);
	EXPECT_LT(100, S.t[T_WBULK].checked - S.t[T_WBULK].late);
	EXPECT_LT(100, S.t[T_PPKT].acked);
	EXPECT_LT(0, atomic_load(&S.rebuilds));
	EXPECT_LT(0, atomic_load(&S.netns));

	/* pl: whatever was acknowledged after the last rebuild is there */
	miss = pl_missing(_metadata, &S.t[T_PPKT], S.rebuild_end, &n);
	EXPECT_EQ(0, miss) TH_LOG("%ld of %ld learned keys lost", miss, n);
	EXPECT_LT(0, n);
	miss = pl_missing(_metadata, &S.t[T_PBULK], S.rebuild_end, &n);
	EXPECT_EQ(0, miss) TH_LOG("%ld of %ld bulk keys lost", miss, n);
	/* pl's fill counters against a scan of its payload */
	ASSERT_EQ(0, kbt_info(S.dst_fd, "pl", &info));
	/* EAGAIN: a datagram still in flight changed it during the copy */
	for (i = 0; i < 10; i++) {
		len = kbt_export(S.dst_fd, "pl", 0, &img);
		if (len != -EAGAIN)
			break;
		usleep(100000);
	}
	ASSERT_LT(0, len);
	scan(img, info.k, &bits, &fpr);
	free(img);
	TH_LOG("pl: bits counted %llu, scanned %llu; est. FPR %u ppb, scanned %.0f",
	       (unsigned long long)info.bits_set, (unsigned long long)bits,
	       info.est_fpr_ppb, fpr);
	EXPECT_LT(0, fpr);	/* not an empty filter's 0 = 0 */
	EXPECT_EQ(bits, info.bits_set);
	EXPECT_GE(fpr * 1.02 + 10, info.est_fpr_ppb);
	EXPECT_LE(fpr * 0.98 - 10, info.est_fpr_ppb);
	cleanup();
}

/* the harness' alarm: the run, plus setup and teardown under TCG */
static void __attribute__((constructor)) stress_duration(void)
{
	const char *s = getenv("KB_STRESS_LEARN_SECONDS");

	if (s && atoi(s) > 4)
		duration = atoi(s);
	_stress_learn_object.timeout = duration + 300;
}

TEST_HARNESS_MAIN
