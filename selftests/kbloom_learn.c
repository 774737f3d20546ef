// SPDX-License-Identifier: GPL-2.0
/*
 * Adds from the packet path (kmod/learn.c) through the add kfuncs, run by
 * BPF_PROG_TEST_RUN of the XDP programs of selftests/bpf/kb_learn.bpf.c:
 *  - kfuncs: the answers (1, 0, -ENOSPC, -EOPNOTSUPP, -ENOENT, -EINVAL) by
 *    name, by id and on a ref, raw keys and addresses, net filters (the
 *    /32 and its prefix length noted), the refresh flag; create's
 *    max-fpr-ppb checks and GET's max-fpr-ppb and learn-refused;
 *  - flood: 1M spoofed sources (fixed seeds: the filter's and the
 *    sources') into a blocked filter of 100k items at 1%: adds stop at the
 *    cap (2%), the FPR measured on fresh keys stays under it,
 *    over-capacity is announced exactly once, every refusal is counted;
 *  - concurrency (two threads running adds at once, bulk ADD ioctls and
 *    rebuilds; the smp lane runs it on two vCPUs): no false negative for
 *    any key acknowledged added since the last rebuild, and the fill
 *    counters equal an offline scan of an export (bits exactly, the FPR
 *    estimate within the documented error).
 * Without kfuncs (no module BTF) the tests skip.
 */
#include <arpa/inet.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_learn.skel.h"

#define KFUNCS_PARAM	"/sys/module/kbloom/parameters/kfuncs"
#define KBLOOM_ADD_REFRESH	1	/* kbloom.bpf.h */

enum { OP_ADD, OP_ADD_ADDR, OP_ADD_ID, OP_ADD_ADDR_ID, OP_REF_ADD,
       OP_REF_ADD_ADDR };

static int kfuncs_ok(void)
{
	char buf[128] = "";

	return !kbt_param_read(KFUNCS_PARAM, buf, sizeof(buf)) &&
	       !strncmp(buf, "yes", 3);
}

/* as mix32() of kb_learn.bpf.c */
static __u32 mix32(__u32 x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	x *= 0x846ca68b;
	x ^= x >> 16;
	return x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* a test run of prog, repeat times, on a minimal frame: 0 or -errno */
static int run(struct bpf_program *prog, __u32 repeat)
{
	unsigned char pkt[64] = { [12] = 0x08 };
	LIBBPF_OPTS(bpf_test_run_opts, o);

	o.data_in = pkt;
	o.data_size_in = sizeof(pkt);
	o.repeat = repeat;
	return bpf_prog_test_run_opts(bpf_program__fd(prog), &o) ? -errno : 0;
}

/* KB_CMD_CREATE of a blocked (or kind) filter, a fixed seed, a cap */
static int create(int fd, const char *name, __u32 kind, __u32 key_type,
		  __u64 items, __u32 fpr_ppb, __u32 max_fpr_ppb)
{
	struct kbtn *n = kbt_nl(fd);
	struct kbtn_req *r = malloc(sizeof(*r));
	__u64 seed[2] = { 0x5eed1ea4, 0 };
	int ret;

	kbtn_init(r, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(r, KB_A_NAME, name);
	kbtn_put_u32(r, KB_A_KIND, kind);
	kbtn_put_u32(r, KB_A_KEY_TYPE, key_type);
	kbtn_put_u32(r, KB_A_HASH, kind == KB_KIND_CLASSIC ? KB_HASH_LEVELDB :
		     KB_HASH_XXH64);
	kbtn_put_u64(r, KB_A_ITEMS, items);
	kbtn_put_u32(r, KB_A_FPR_PPB, fpr_ppb);
	if (kind != KB_KIND_CLASSIC)
		kbtn_put(r, KB_A_SEED, seed, sizeof(seed));
	if (max_fpr_ppb)
		kbtn_put_u32(r, KB_A_MAX_FPR_PPB, max_fpr_ppb);
	ret = kbtn_do(n, r);
	kbt_nl_put(fd, n);
	free(r);
	return ret;
}

/* GET's attributes of the packet path: the cap and the refusals */
static int learn_info(int fd, const char *name, __u32 *max_fpr,
		      __u64 *refused)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct kbtn *n = kbt_nl(fd);
	int ret = kbtn_name_cmd(n, KB_CMD_GET, name);

	if (!ret && n->reply_len) {
		kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
		*max_fpr = kbt_nla_u32(tb, KB_A_MAX_FPR_PPB);
		*refused = kbt_nla_u64(tb, KB_A_LEARN_REFUSED);
		ret = tb[KB_A_MAX_FPR_PPB] && tb[KB_A_LEARN_REFUSED] ? 0 :
		      -EPROTO;
	}
	kbt_nl_put(fd, n);
	return ret;
}

/* KB_IOC_TEST of one key: 1 maybe, 0 absent, -errno */
static int test_key(int fd, const char *name, const void *key, __u32 len)
{
	__u64 res = 0;
	int ret = kbt_keys(fd, KB_IOC_TEST, name, 0, key, len, 1, &res, NULL);

	return ret ? ret : (int)(res & 1);
}

/*
 * KB_LEARN_TESTS="a b": run only those (6.1's harness has no -t): the smp
 * lane runs the concurrency test only, on two vCPUs.
 */
static bool wanted(const char *test)
{
	return kbt_wanted("KB_LEARN_TESTS", test);
}

FIXTURE(kl) {
	int fd;
	struct kb_learn *sk;
};

FIXTURE_SETUP(kl)
{
	self->sk = NULL;
	self->fd = -1;
	if (!wanted(_metadata->name))
		SKIP(return, "not in KB_LEARN_TESTS");
	if (!kfuncs_ok())
		SKIP(return, "kbloom has no BPF kfuncs here");
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	self->fd = kbt_open();
	ASSERT_LE(0, self->fd);
	self->sk = kb_learn__open_and_load();
	ASSERT_NE(NULL, self->sk);
}

FIXTURE_TEARDOWN(kl)
{
	if (self->sk)
		kb_learn__destroy(self->sk);
	if (self->fd >= 0)
		kbt_close(self->fd);
}

#define NEED_SK() do {						\
	if (!self->sk)						\
		SKIP(return, "skipped");			\
} while (0)

/* one kfunc call: op on key/len in filter name (or id), its answer */
static int one_prog(struct kb_learn *sk, struct bpf_program *prog, int op,
		    const char *name, __u64 id, const void *key, __u32 len,
		    __u32 flags)
{
	memset(sk->bss->fname, 0, sizeof(sk->bss->fname));
	memcpy(sk->bss->fname, name, strlen(name));
	sk->bss->fname_sz = strlen(name) + 1;
	memset(sk->bss->key, 0, sizeof(sk->bss->key));
	memcpy(sk->bss->key, key, len);
	sk->bss->key_sz = len;
	sk->bss->id = id;
	sk->bss->op = op;
	sk->bss->flags = flags;
	sk->bss->res = -2000;
	if (run(prog, 1))
		return -3000;
	return sk->bss->res;
}

static int one(struct kb_learn *sk, int op, const char *name, __u64 id,
	       const void *key, __u32 len, __u32 flags)
{
	return one_prog(sk, sk->progs.one, op, name, id, key, len, flags);
}

static __u64 set_id(int fd, const char *name)
{
	struct kb_ioc_info i;

	return kbt_info(fd, name, &i) ? 0 : i.id;
}

TEST_F(kl, kfuncs)
{
	struct kb_learn *sk = self->sk;
	int fd = self->fd;
	unsigned char a[4], a2[4], a3[4], k6[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	unsigned char n4[5];
	struct kb_ioc_info i;
	__u64 refused, id;
	__u32 cap;
	int op;

	NEED_SK();
	ASSERT_EQ(0, create(fd, "v4", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000,
			    10000000, 0));
	ASSERT_EQ(0, create(fd, "s", KB_KIND_BLOCKED, KB_KEY_STR, 1000,
			    10000000, 0));
	ASSERT_EQ(0, create(fd, "n4", KB_KIND_BLOCKED, KB_KEY_NET4, 1000,
			    10000000, 0));
	ASSERT_EQ(0, create(fd, "c", KB_KIND_CLASSIC, KB_KEY_IPV4, 1000,
			    10000000, 0));
	id = set_id(fd, "v4");
	ASSERT_NE(0, id);

	/* every way in: new (1), then present (0); refresh of present: 0 */
	for (op = OP_ADD_ADDR; op <= OP_REF_ADD_ADDR; op++) {
		if (op == OP_REF_ADD)
			continue;
		inet_pton(AF_INET, "10.0.0.1", a);
		a[3] = 1 + op;
		EXPECT_EQ(0, test_key(fd, "v4", a, 4));
		EXPECT_EQ(1, one(sk, op, "v4", id, a, 4, 0)) TH_LOG("op %d", op);
		EXPECT_EQ(0, one(sk, op, "v4", id, a, 4, 0)) TH_LOG("op %d", op);
		EXPECT_EQ(0, one(sk, op, "v4", id, a, 4, KBLOOM_ADD_REFRESH));
		EXPECT_EQ(1, test_key(fd, "v4", a, 4));
	}
	/* the refresh flag adds an absent key too */
	inet_pton(AF_INET, "10.0.0.99", a);
	EXPECT_EQ(1, one(sk, OP_ADD_ADDR_ID, "v4", id, a, 4,
			 KBLOOM_ADD_REFRESH));
	EXPECT_EQ(1, test_key(fd, "v4", a, 4));
	/* tc programs: by name and by id */
	inet_pton(AF_INET, "10.0.1.1", a);
	EXPECT_EQ(1, one_prog(sk, sk->progs.tc_one, OP_ADD_ADDR, "v4", 0, a, 4,
			      0));
	EXPECT_EQ(0, one_prog(sk, sk->progs.tc_one, OP_ADD_ADDR_ID, "v4", id,
			      a, 4, 0));
	a[3] = 2;
	EXPECT_EQ(1, one_prog(sk, sk->progs.tc_one, OP_ADD_ID, "v4", id, a, 4,
			      0));
	EXPECT_EQ(1, one_prog(sk, sk->progs.tc_one, OP_ADD, "s", 0, "tc", 2,
			      0));
	EXPECT_EQ(-EOPNOTSUPP, one_prog(sk, sk->progs.tc_one, OP_ADD_ADDR, "c",
					0, a, 4, 0));
	/* raw keys by name and by ref */
	EXPECT_EQ(1, one(sk, OP_ADD, "s", 0, "hello", 5, 0));
	EXPECT_EQ(0, one(sk, OP_ADD, "s", 0, "hello", 5, 0));
	EXPECT_EQ(1, one(sk, OP_REF_ADD, "s", 0, "world", 5, 0));
	EXPECT_EQ(1, test_key(fd, "s", "world", 5));
	EXPECT_EQ(1, one(sk, OP_ADD_ID, "s", set_id(fd, "s"), "x", 1, 0));
	/* the adds counted: 4 ways, the refresh, 2 by tc (7 keys, their bits) */
	ASSERT_EQ(0, kbt_info(fd, "v4", &i));
	EXPECT_EQ(7, i.adds);
	EXPECT_GE(7 * i.k, i.bits_set);
	EXPECT_LT(6 * i.k, i.bits_set);

	/* a net4 filter: the address's /32, and 32 noted */
	inet_pton(AF_INET, "10.9.8.7", a);
	EXPECT_EQ(1, one(sk, OP_ADD_ADDR, "n4", 0, a, 4, 0));
	memcpy(n4, a, 4);
	n4[4] = 32;
	EXPECT_EQ(1, test_key(fd, "n4", n4, 5));
	ASSERT_EQ(0, kbt_info(fd, "n4", &i));
	EXPECT_EQ(1ULL << 32, i.plen4);
	/* raw net keys are checked: host bits set */
	n4[4] = 24;
	EXPECT_EQ(-EINVAL, one(sk, OP_ADD, "n4", 0, n4, 5, 0));
	n4[3] = 0;
	EXPECT_EQ(1, one(sk, OP_ADD, "n4", 0, n4, 5, 0));

	/* refusals */
	EXPECT_EQ(-EOPNOTSUPP, one(sk, OP_ADD_ADDR, "c", 0, a, 4, 0));
	EXPECT_EQ(-ENOENT, one(sk, OP_ADD_ADDR, "nosuch", 0, a, 4, 0));
	EXPECT_EQ(-EINVAL, one(sk, OP_ADD_ADDR, "bad/name", 0, a, 4, 0));
	EXPECT_EQ(-EINVAL, one(sk, OP_ADD_ADDR, "v4", 0, a, 5, 0));
	EXPECT_EQ(-EINVAL, one(sk, OP_ADD_ADDR, "v4", 0, k6, 16, 0));
	EXPECT_EQ(-EINVAL, one(sk, OP_ADD, "v4", 0, a, 3, 0));
	EXPECT_EQ(-EINVAL, one(sk, OP_ADD_ADDR_ID, "v4", id, a, 4, 2));
	EXPECT_EQ(-EINVAL, one(sk, OP_REF_ADD_ADDR, "v4", 0, a, 4, 2));
	EXPECT_EQ(-ENOENT, one(sk, OP_ADD_ADDR_ID, "v4", id + 1000, a, 4, 0));
	EXPECT_EQ(-1000, one(sk, OP_REF_ADD_ADDR, "nosuch", 0, a, 4, 0));

	/* the cap: at the filter's own FPR, reached by a bulk add */
	ASSERT_EQ(0, create(fd, "tiny", KB_KIND_BLOCKED, KB_KEY_IPV4, 100,
			    10000000, 10000000));
	ASSERT_EQ(0, learn_info(fd, "tiny", &cap, &refused));
	EXPECT_EQ(10000000, cap);
	EXPECT_EQ(0, refused);
	for (op = 0; op < 300; op++) {
		__u32 k = htonl(0x0b000000 + op);

		ASSERT_EQ(0, kbt_keys(fd, KB_IOC_ADD, "tiny", 0, &k, 4, 1,
				      NULL, NULL));
	}
	/* refused only when absent: a present key (the filter is full) is 0 */
	inet_pton(AF_INET, "192.0.2.0", a2);
	while (test_key(fd, "tiny", a2, 4) != 0 && a2[3] < 250)
		a2[3]++;
	memcpy(a3, a2, 4);
	a3[3]++;
	while (test_key(fd, "tiny", a3, 4) != 0 && a3[3] < 254)
		a3[3]++;
	EXPECT_EQ(-ENOSPC, one(sk, OP_ADD_ADDR, "tiny", 0, a2, 4, 0));
	EXPECT_EQ(-ENOSPC, one(sk, OP_REF_ADD_ADDR, "tiny", 0, a3, 4, 0));
	EXPECT_EQ(0, test_key(fd, "tiny", a2, 4));
	ASSERT_EQ(0, learn_info(fd, "tiny", &cap, &refused));
	EXPECT_EQ(2, refused);
	/* the default: twice the filter's FPR */
	ASSERT_EQ(0, learn_info(fd, "v4", &cap, &refused));
	EXPECT_EQ(20000000, cap);

	/* create's checks: not below fpr-ppb, blocked only */
	EXPECT_EQ(-EINVAL, create(fd, "x", KB_KIND_BLOCKED, KB_KEY_IPV4, 100,
				  10000000, 9999999));
	EXPECT_EQ(-EINVAL, create(fd, "x", KB_KIND_CLASSIC, KB_KEY_IPV4, 100,
				  10000000, 20000000));
	EXPECT_EQ(-ENOENT, kbt_info(fd, "x", &i));
	/* destroyed: by id -ENOENT */
	ASSERT_EQ(0, kbt_destroy(fd, "v4"));
	EXPECT_EQ(-ENOENT, one(sk, OP_ADD_ADDR_ID, "v4", id, a, 4, 0));
}

/* KB_CMD_CREATE of a window filter (fpr_ppb for the whole window) */
static int create_window(int fd, const char *name, __u32 fpr_ppb,
			 __u32 max_fpr_ppb)
{
	struct kbtn *n = kbt_nl(fd);
	struct kbtn_req *r = malloc(sizeof(*r));
	int ret;

	kbtn_init(r, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(r, KB_A_NAME, name);
	kbtn_put_u32(r, KB_A_KIND, KB_KIND_BLOCKED);
	kbtn_put_u32(r, KB_A_KEY_TYPE, KB_KEY_IPV4);
	kbtn_put_u64(r, KB_A_ITEMS, 1000);
	kbtn_put_u32(r, KB_A_FPR_PPB, fpr_ppb);
	kbtn_put_u64(r, KB_A_WINDOW_MS, 3600000);
	kbtn_put_u32(r, KB_A_SLICES, 4);
	if (max_fpr_ppb)
		kbtn_put_u32(r, KB_A_MAX_FPR_PPB, max_fpr_ppb);
	ret = kbtn_do(n, r);
	kbt_nl_put(fd, n);
	free(r);
	return ret;
}

/* a rebuild by KB_IOC_TXN_BEGIN VER1 (c) and an empty commit */
static int rebuild(int fd, struct kb_ioc_create *c)
{
	int ret = kbt_ioc(fd, KB_IOC_TXN_BEGIN, c);

	return ret ? ret : kbt_txn(fd, KB_IOC_TXN_COMMIT);
}

/*
 * The cap is the whole filter's: a window of 5 slices at 1% each sized
 * for 0.2% has a default cap of 2%, not 0.4%, and a cap between the two
 * is refused; a rebuild (TXN_BEGIN VER1) takes a cap, or the default.
 */
TEST_F(kl, cap)
{
	struct kb_ioc_create c;
	int fd = self->fd;
	__u64 refused;
	__u32 cap;

	NEED_SK();
	ASSERT_EQ(0, create_window(fd, "w", 10000000, 0));
	ASSERT_EQ(0, learn_info(fd, "w", &cap, &refused));
	EXPECT_EQ(20000000, cap);
	EXPECT_EQ(-EINVAL, create_window(fd, "w2", 10000000, 5000000));
	ASSERT_EQ(0, create_window(fd, "w2", 10000000, 15000000));
	ASSERT_EQ(0, learn_info(fd, "w2", &cap, &refused));
	EXPECT_EQ(15000000, cap);

	c = kbt_spec("w", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000, 10000000);
	c.max_fpr_ppb = 30000000;
	ASSERT_EQ(0, rebuild(fd, &c));
	ASSERT_EQ(0, learn_info(fd, "w", &cap, &refused));
	EXPECT_EQ(30000000, cap);
	c.max_fpr_ppb = 0;
	c.window_ms = 3600000;
	c.slices = 4;
	ASSERT_EQ(0, rebuild(fd, &c));
	ASSERT_EQ(0, learn_info(fd, "w", &cap, &refused));
	EXPECT_EQ(20000000, cap);
	/* below the target, or on another kind: refused, nothing changed */
	c.max_fpr_ppb = 5000000;
	EXPECT_EQ(-EINVAL, rebuild(fd, &c));
	c = kbt_spec("w", KB_KIND_COUNTING, KB_KEY_IPV4, 1000, 10000000);
	c.max_fpr_ppb = 30000000;
	EXPECT_EQ(-EINVAL, rebuild(fd, &c));
	ASSERT_EQ(0, learn_info(fd, "w", &cap, &refused));
	EXPECT_EQ(20000000, cap);
}

/*
 * A net key at a prefix length the filter has not noted is added even
 * when it tests maybe (a false positive of a full filter): its prefix
 * length must be noted, or an address lookup never tests it.
 */
TEST_F(kl, plen)
{
	unsigned char keys[20000][5], k24[5] = { 10, 200, 1, 0, 24 };
	struct kb_ioc_info i;
	__u32 n;

	NEED_SK();
	ASSERT_EQ(0, create(self->fd, "n4", KB_KIND_BLOCKED, KB_KEY_NET4, 100,
			    10000000, 1000000000));
	for (n = 0; n < 20000; n++) {
		keys[n][0] = 11;
		keys[n][1] = n >> 16;
		keys[n][2] = n >> 8;
		keys[n][3] = n;
		keys[n][4] = 32;
	}
	ASSERT_EQ(0, kbt_keys(self->fd, KB_IOC_ADD, "n4", 0, keys, 5, 20000,
			      NULL, NULL));
	/* saturated: the /24 tests maybe, and is not noted */
	ASSERT_EQ(1, test_key(self->fd, "n4", k24, 5));
	ASSERT_EQ(0, kbt_info(self->fd, "n4", &i));
	ASSERT_EQ(1ULL << 32, i.plen4);
	EXPECT_LE(0, one(self->sk, OP_ADD, "n4", 0, k24, 5, 0));
	ASSERT_EQ(0, kbt_info(self->fd, "n4", &i));
	EXPECT_EQ((1ULL << 32) | (1ULL << 24), i.plen4);
}

/* over-capacity events for name within timeout_ms */
static int count_over(struct kbtn *ev, const char *name, int timeout_ms)
{
	char n1[KB_NAME_MAX], n2[KB_NAME_MAX];
	int e, count = 0;

	while ((e = kbtn_event(ev, timeout_ms, n1, n2)) != 0)
		if (e == KB_EVENT_OVER_CAPACITY && !strcmp(n1, name))
			count++;
	return count;
}

#define FLOOD_N		1000000
#define FLOOD_ITEMS	100000
#define FRESH_N		100000

TEST_F_TIMEOUT(kl, flood, 600)
{
	struct kb_learn *sk = self->sk;
	__u32 *fresh, i, cap, hits = 0, seed = 0xf100d;
	__u64 refused, *bm;
	struct kb_ioc_info info;
	struct kbtn *ev;
	double t, fpr;

	NEED_SK();
	ev = kbtn_open();
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, kbtn_join(ev));
	ASSERT_EQ(0, create(self->fd, "flood", KB_KIND_BLOCKED, KB_KEY_IPV4,
			    FLOOD_ITEMS, 10000000, 0));
	sk->bss->id = set_id(self->fd, "flood");
	sk->bss->seed = seed;
	t = now();
	ASSERT_EQ(0, run(sk->progs.flood, FLOOD_N));
	TH_LOG("1M adds by test run: %.1f s", now() - t);
	EXPECT_EQ(FLOOD_N, sk->bss->ctr);
	EXPECT_EQ(0, sk->bss->n_other) TH_LOG("last %d", sk->bss->last_other);
	/* adds stopped at the cap: most were refused */
	EXPECT_LT(FLOOD_ITEMS, sk->bss->n_added);
	EXPECT_GT(4 * FLOOD_ITEMS, sk->bss->n_added);
	EXPECT_LT(FLOOD_N / 2, sk->bss->n_nospc);
	ASSERT_EQ(0, learn_info(self->fd, "flood", &cap, &refused));
	EXPECT_EQ(20000000, cap);
	EXPECT_EQ(sk->bss->n_nospc, refused);
	ASSERT_EQ(0, kbt_info(self->fd, "flood", &info));
	EXPECT_EQ(sk->bss->n_added, info.adds);
	/* the estimate passed the cap by no more than a fold's bits */
	EXPECT_LE(cap, info.est_fpr_ppb);
	EXPECT_GE(cap + cap / 50, info.est_fpr_ppb);
	/* the FPR of fresh keys (another sequence) under the cap */
	fresh = malloc(FRESH_N * 4);
	bm = calloc(FRESH_N / 64 + 1, 8);
	/* mix32() is a bijection: past the floods' indexes, none of theirs */
	for (i = 0; i < FRESH_N; i++)
		fresh[i] = mix32(seed + 2 * FLOOD_N + i);
	ASSERT_EQ(0, kbt_keys(self->fd, KB_IOC_TEST, "flood", 0, fresh, 4,
			      FRESH_N, bm, NULL));
	for (i = 0; i < FRESH_N; i++)
		hits += kbt_bit(bm, i);
	fpr = (double)hits / FRESH_N;
	TH_LOG("added %llu, maybe %llu, refused %llu; est %u ppb, measured FPR %.4f%%",
	       (unsigned long long)sk->bss->n_added,
	       (unsigned long long)sk->bss->n_maybe,
	       (unsigned long long)sk->bss->n_nospc, info.est_fpr_ppb,
	       fpr * 100);
	/*
	 * at the cap, give or take the sampling noise of FRESH_N keys (3
	 * sigma of 2% is 0.13%): not the 4x a saturating flood would reach
	 */
	EXPECT_GE(cap / 1e9 * 1.1, fpr);
	/* over-capacity: exactly once, also after more refusals */
	EXPECT_EQ(1, count_over(ev, "flood", 2000));
	sk->bss->seed = seed + 12345;
	ASSERT_EQ(0, run(sk->progs.flood, 10000));
	EXPECT_EQ(0, count_over(ev, "flood", 1000));
	free(fresh);
	free(bm);
	kbtn_close(ev);
}

/* KB_CMD_GET's KB_A_SLICES of name (slices held), -errno */
static long gl_slices(int fd, const char *name)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct kbtn *n = kbt_nl(fd);
	long ret = kbtn_name_cmd(n, KB_CMD_GET, name);

	if (!ret && n->reply_len) {
		kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
		ret = tb[KB_A_SLICES] ? kbt_nla_u32(tb, KB_A_SLICES) : -EPROTO;
	}
	kbt_nl_put(fd, n);
	return ret;
}

/*
 * A growing filter fed by the packet path only grows: its growth reads the
 * learned bits (not only the slow path's count), with no GET between the
 * adds and the growth to merge them for it
 */
TEST_F(kl, grow_learned)
{
	struct kb_learn *sk = self->sk;
	struct kbtn *n;
	struct kbtn_req *r;
	long slices = 0;
	int i;

	NEED_SK();
	n = kbt_nl(self->fd);
	r = malloc(sizeof(*r));
	kbtn_init(r, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(r, KB_A_NAME, "gl");
	kbtn_put_u32(r, KB_A_KIND, KB_KIND_BLOCKED);
	kbtn_put_u32(r, KB_A_KEY_TYPE, KB_KEY_IPV4);
	kbtn_put_u64(r, KB_A_ITEMS, 1000);
	kbtn_put_u32(r, KB_A_FPR_PPB, 10000000);
	kbtn_put(r, KB_A_GROW, NULL, 0);
	ASSERT_EQ(0, kbtn_do(n, r));
	kbt_nl_put(self->fd, n);
	free(r);
	sk->bss->id = set_id(self->fd, "gl");
	sk->bss->seed = 0x6e0;
	sk->bss->ctr = 0;
	/* 3x the first slice's items, in runs, so the grow work can run */
	for (i = 0; i < 30; i++) {
		ASSERT_EQ(0, run(sk->progs.flood, 100));
		usleep(20000);
	}
	EXPECT_EQ(0, sk->bss->n_other);
	usleep(500000);
	slices = gl_slices(self->fd, "gl");
	TH_LOG("added %llu, refused %llu: %ld slices",
	       (unsigned long long)sk->bss->n_added,
	       (unsigned long long)sk->bss->n_nospc, slices);
	EXPECT_LE(2, slices);
}

/* ---- concurrency ---------------------------------------------------------- */

struct cc {
	struct kb_learn *sk;
	int fd;
	volatile int stop;
	volatile int rebuilding;
	__u64 bulk_next;	/* bulk keys added: 0x0a000000 + [0, bulk_next) */
	__u64 bulk_from;	/* ... since the last rebuild */
	int err;
};

/*
 * Under the filter's capacity even without a rebuild (no add is refused,
 * all are acknowledged), yet full enough for its FPR estimate to mean
 * something (a few hundred thousand keys since the last rebuild)
 */
#define CC_ITEMS	1500000
#define CC_MAX		600000

static void *cc_runner(void *arg)
{
	struct cc *c = arg;

	while (!c->stop && __atomic_load_n(&c->sk->bss->ctr, __ATOMIC_RELAXED) <
	       CC_MAX)
		if (run(c->sk->progs.flood, 2000))
			c->err = -errno;
	return NULL;
}

static void *cc_bulk(void *arg)
{
	struct cc *c = arg;
	__u32 keys[256];
	int i;

	while (!c->stop && c->bulk_next < CC_MAX) {
		for (i = 0; i < 256; i++)
			keys[i] = htonl(0x0a000000 + c->bulk_next + i);
		if (kbt_keys(c->fd, KB_IOC_ADD, "cc", 0, keys, 4, 256, NULL,
			     NULL))
			c->err = -EIO;
		__atomic_store_n(&c->bulk_next, c->bulk_next + 256,
				 __ATOMIC_RELEASE);
	}
	return NULL;
}

/* every generated flood key from index from, every bulk key from bfrom */
static __u64 cc_check(struct __test_metadata *_metadata, struct cc *c,
		      __u64 from, __u64 to, __u64 bfrom, __u64 bto)
{
	__u64 n = to - from + bto - bfrom, i, j = 0, miss = 0;
	__u32 *keys = malloc(n * 4 + 4);
	__u64 *bm = calloc(n / 64 + 1, 8);

	for (i = from; i < to; i++)
		keys[j++] = mix32(c->sk->bss->seed + (__u32)i);
	for (i = bfrom; i < bto; i++)
		keys[j++] = htonl(0x0a000000 + i);
	for (i = 0; i < n; i += 4096) {
		__u64 m = n - i < 4096 ? n - i : 4096;

		EXPECT_EQ(0, kbt_keys(c->fd, KB_IOC_TEST, "cc", 0, keys + i, 4,
				      m, bm + i / 64, NULL));
	}
	for (i = 0; i < n; i++)
		miss += !kbt_bit(bm, i);
	free(keys);
	free(bm);
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

TEST_F_TIMEOUT(kl, concurrency, 600)
{
	struct cc c = { .sk = self->sk, .fd = self->fd };
	pthread_t run1, run2, bulk;
	__u64 from, bfrom, miss, bits;
	struct kb_ioc_info info;
	int rebuilds = 0, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double t, fpr;
	void *img = NULL;
	long len;

	NEED_SK();
	ASSERT_EQ(0, create(self->fd, "cc", KB_KIND_BLOCKED, KB_KEY_IPV4,
			    CC_ITEMS, 10000000, 0));
	c.sk->bss->id = set_id(self->fd, "cc");
	c.sk->bss->seed = 0xcc;
	/*
	 * the rebuilds upload the empty filter's image: an export under
	 * bulk adds would answer EAGAIN (the filter changed meanwhile)
	 */
	len = kbt_export(self->fd, "cc", 0, &img);
	ASSERT_LT(0, len);
	ASSERT_EQ(0, pthread_create(&run1, NULL, cc_runner, &c));
	ASSERT_EQ(0, pthread_create(&run2, NULL, cc_runner, &c));
	ASSERT_EQ(0, pthread_create(&bulk, NULL, cc_bulk, &c));
	t = now();
	while (now() - t < 3 && c.sk->bss->ctr < CC_MAX / 2 &&
	       c.bulk_next < CC_MAX / 2) {
		ASSERT_EQ(0, kbt_upload(self->fd, "cc", 0, img, len, NULL));
		rebuilds++;
		usleep(100000);
	}
	free(img);
	/*
	 * After the last rebuild every add acknowledged is kept: packet adds
	 * that took an index from now on, bulk batches after the one in
	 * flight (it may have gone into the generation the upload replaced)
	 */
	from = __atomic_load_n(&c.sk->bss->ctr, __ATOMIC_ACQUIRE);
	bfrom = __atomic_load_n(&c.bulk_next, __ATOMIC_ACQUIRE) + 256;
	usleep(1500000);
	c.stop = 1;
	pthread_join(run1, NULL);
	pthread_join(run2, NULL);
	pthread_join(bulk, NULL);
	ASSERT_EQ(0, c.err);
	EXPECT_EQ(0, c.sk->bss->n_other) TH_LOG("last %d", c.sk->bss->last_other);
	EXPECT_EQ(0, c.sk->bss->n_nospc);
	TH_LOG("%d CPUs, %d rebuilds, %llu packet adds, %llu bulk keys (%llu + %llu since the last rebuild)",
	       ncpu, rebuilds, (unsigned long long)c.sk->bss->ctr,
	       (unsigned long long)c.bulk_next,
	       (unsigned long long)(c.sk->bss->ctr - from),
	       (unsigned long long)(c.bulk_next - bfrom));
	EXPECT_LT(from, c.sk->bss->ctr);
	EXPECT_LT(bfrom, c.bulk_next);
	miss = cc_check(_metadata, &c, from, c.sk->bss->ctr, bfrom,
			c.bulk_next);
	EXPECT_EQ(0, miss);
	/* the fill counters against a scan of the payload */
	ASSERT_EQ(0, kbt_info(self->fd, "cc", &info));
	len = kbt_export(self->fd, "cc", 0, &img);
	ASSERT_LT(0, len);
	scan(img, info.k, &bits, &fpr);
	free(img);
	TH_LOG("bits: counted %llu, scanned %llu; est. FPR: %u ppb, scanned %.0f",
	       (unsigned long long)info.bits_set, (unsigned long long)bits,
	       info.est_fpr_ppb, fpr);
	EXPECT_EQ(bits, info.bits_set);
	EXPECT_GE(fpr * 1.02 + 10, info.est_fpr_ppb);
	EXPECT_LE(fpr * 0.98 - 10, info.est_fpr_ppb);
}

TEST_HARNESS_MAIN
