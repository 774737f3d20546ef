// SPDX-License-Identifier: GPL-2.0
/*
 * Exception sets (uapi section 4, KB_CMD_EXCEPT_*): an excepted key tests
 * absent whatever the bits say (a false positive and a listed key alike),
 * prefixes on net filters, the list dump, the failure paths (malformed
 * key, unknown filter, duplicates, the KB_EXC_MAX bound, no
 * CAP_NET_ADMIN: each changes nothing), and exceptions belonging to the
 * filter: flush, swap and an image upload keep them.
 */
#include <sys/wait.h>
#include <arpa/inet.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

static struct kbtn_req req;

/* a one-block filter (512 bits, one probe) with a fixed seed */
static int ex_create_tiny(struct kbtn *n, const char *name, __u64 s0)
{
	__u64 seed[2] = { s0, 0 };

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, name);
	kbtn_put_u32(&req, KB_A_KEY_TYPE, KB_KEY_IPV4);
	kbtn_put_u64(&req, KB_A_M, 512);
	kbtn_put_u32(&req, KB_A_K, 1);
	kbtn_put(&req, KB_A_SEED, seed, sizeof(seed));
	return kbtn_do(n, &req);
}

/* KB_CMD_EXCEPT_ADD/DEL of count ipv4 keys from base up */
static int ex_keys(struct kbtn *n, __u8 cmd, const char *name, __u32 base,
		   int count, bool exist)
{
	int i;

	kbtn_init(&req, n->family, cmd, 0);
	kbtn_put_str(&req, KB_A_NAME, name);
	if (exist)
		kbtn_put(&req, KB_A_EXIST, NULL, 0);
	kbtn_nest_start(&req, KB_A_KEYS);
	for (i = 0; i < count; i++) {
		__u32 k = htonl(base + i);

		kbtn_put(&req, KB_KA_DATA, &k, 4);
	}
	kbtn_nest_end(&req);
	return kbtn_do(n, &req);
}

/* KB_CMD_EXCEPT_ADD/DEL of one key of any length */
static int ex_raw(struct kbtn *n, __u8 cmd, const char *name, const void *key,
		  int len)
{
	kbtn_init(&req, n->family, cmd, 0);
	kbtn_put_str(&req, KB_A_NAME, name);
	kbtn_nest_start(&req, KB_A_KEYS);
	kbtn_put(&req, KB_KA_DATA, key, len);
	kbtn_nest_end(&req);
	return kbtn_do(n, &req);
}

/* one key's test: 1 maybe, 0 absent, -errno */
static int ex_test(struct kbtn *n, const char *name, __u32 addr)
{
	__u32 k = htonl(addr);
	unsigned char r;
	int ret = kbtn_keys(n, KB_CMD_TEST, name, &k, 4, 1, &r, NULL);

	return ret ? ret : r;
}

static int ex_count(struct kbtn *n, const char *name)
{
	struct nlattr *tb[KB_A_MAX + 1];
	int ret = kbtn_name_cmd(n, KB_CMD_GET, name);

	if (ret)
		return ret;
	kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
	return tb[KB_A_EXCEPT_COUNT] ? (int)kbtn_u32(tb[KB_A_EXCEPT_COUNT]) :
				       -EPROTO;
}

static int ex_list_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[KB_A_MAX + 1], *a;
	int *keys = arg, rem;

	kbtn_parse(nlh, tb, KB_A_MAX);
	if (!tb[KB_A_KEYS])
		return 1;
	for (a = kbtn_data(tb[KB_A_KEYS]), rem = kbtn_len(tb[KB_A_KEYS]);
	     rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	     a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		(*keys)++;
	return 0;
}

/* the keys the list dump returns, or -errno */
static int ex_list(struct kbtn *n, const char *name)
{
	int keys = 0, ret;

	kbtn_init(&req, n->family, KB_CMD_EXCEPT_LIST, NLM_F_DUMP);
	kbtn_put_str(&req, KB_A_NAME, name);
	ret = kbtn_send(n, &req);
	if (!ret)
		ret = kbtn_recv(n, ex_list_cb, &keys, NULL, NULL, NULL);
	return ret ? ret : keys;
}

#define A(a, b, c, d)	((__u32)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/* a saturated filter: listed keys 10.1.0.0.., and a false positive */
static __u32 ex_setup(struct __test_metadata *_metadata, struct kbtn *n,
		      const char *name)
{
	__u32 keys[1024], fp = 0, i;

	ASSERT_EQ(0, ex_create_tiny(n, name, 7));
	for (i = 0; i < 1024; i++)
		keys[i] = htonl(A(10, 1, 0, 0) + i);
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, name, keys, 4, 1024, NULL,
			       NULL));
	for (i = 1; i < 256 && !fp; i++)
		if (ex_test(n, name, A(192, 168, 0, i)) == 1)
			fp = A(192, 168, 0, i);
	EXPECT_NE(0, fp);
	return fp;
}

TEST(false_positive_and_listed_key_absent)
{
	struct kbtn *n = kbtn_open();
	__u32 fp;

	ASSERT_NE(NULL, n);
	fp = ex_setup(_metadata, n, "x.fp");
	EXPECT_EQ(1, ex_test(n, "x.fp", A(10, 1, 0, 5)));
	EXPECT_EQ(0, ex_count(n, "x.fp"));
	EXPECT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.fp", fp, 1, false));
	EXPECT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.fp", A(10, 1, 0, 5), 1,
			     false));
	EXPECT_EQ(0, ex_test(n, "x.fp", fp));
	EXPECT_EQ(0, ex_test(n, "x.fp", A(10, 1, 0, 5)));
	EXPECT_EQ(1, ex_test(n, "x.fp", A(10, 1, 0, 6)));
	EXPECT_EQ(2, ex_count(n, "x.fp"));
	EXPECT_EQ(2, ex_list(n, "x.fp"));
	/* del brings the bits' answer back */
	EXPECT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_DEL, "x.fp", fp, 1, false));
	EXPECT_EQ(1, ex_test(n, "x.fp", fp));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_EXCEPT_FLUSH, "x.fp"));
	EXPECT_EQ(0, ex_count(n, "x.fp"));
	EXPECT_EQ(0, ex_list(n, "x.fp"));
	EXPECT_EQ(1, ex_test(n, "x.fp", A(10, 1, 0, 5)));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "x.fp"));
	kbtn_close(n);
}

TEST(net_prefixes)
{
	struct kbtn *n = kbtn_open();
	__u8 blk[5] = { 10, 0, 0, 0, 8 }, exc[5] = { 10, 5, 0, 0, 16 };
	__u8 in[5] = { 10, 5, 7, 0, 24 }, out[5] = { 10, 6, 7, 0, 24 };
	__u8 three[15] = { 10, 5, 7, 0, 24, 10, 6, 7, 0, 24, 10, 1, 2, 3, 8 };
	struct kb_ioc_keys k;
	unsigned char r[2];
	__u8 both[10];
	__u64 res = 0;
	int fd;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, kbtn_create(n, "x.net", KB_KIND_BLOCKED, KB_KEY_NET, 100,
				 10000000));
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, "x.net", blk, 5, 1, NULL, NULL));
	ASSERT_EQ(0, ex_raw(n, KB_CMD_EXCEPT_ADD, "x.net", exc, 5));
	/* the listed /8 itself is not within the excepted /16 */
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST, "x.net", blk, 5, 1, r, NULL));
	EXPECT_EQ(1, r[0]);
	/* a narrower key within the excepted prefix is excepted */
	memcpy(both, in, 5);
	memcpy(both + 5, exc, 5);
	kbtn_keys(n, KB_CMD_ADD, "x.net", in, 5, 1, NULL, NULL);
	kbtn_keys(n, KB_CMD_ADD, "x.net", out, 5, 1, NULL, NULL);
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST, "x.net", both, 5, 2, r, NULL));
	EXPECT_EQ(0, r[0]);
	EXPECT_EQ(0, r[1]);
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST, "x.net", out, 5, 1, r, NULL));
	EXPECT_EQ(1, r[0]);
	/*
	 * KB_IOC_TEST answers the keys before a malformed one (host bits
	 * set): those answers honour the exceptions too
	 */
	fd = kbt_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, kbt_keys(fd, KB_IOC_TEST, "x.net", 0, three, 5, 3,
				    &res, &k));
	EXPECT_EQ(2, k.err_index);
	EXPECT_EQ(2, k.processed);
	EXPECT_EQ(1, k.hits);
	EXPECT_EQ(2, res);	/* the excepted /24 absent, the other not */
	kbt_close(fd);
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "x.net"));
	kbtn_close(n);
}

TEST(failures_change_nothing)
{
	struct kbtn *n = kbtn_open();
	struct nlattr *bad;
	__u8 five[5] = { 1, 2, 3, 4, 5 };
	__u32 k = htonl(A(10, 9, 0, 1));
	int i;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, ex_create_tiny(n, "x.bad", 1));
	ASSERT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.bad", A(10, 9, 0, 1), 1,
			     false));

	/* a malformed key: EINVAL pointing at it, the batch not applied */
	kbtn_init(&req, n->family, KB_CMD_EXCEPT_ADD, 0);
	kbtn_put_str(&req, KB_A_NAME, "x.bad");
	kbtn_nest_start(&req, KB_A_KEYS);
	kbtn_put(&req, KB_KA_DATA, &k, 4);
	bad = kbtn_put(&req, KB_KA_DATA, five, 5);
	kbtn_nest_end(&req);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, bad), n->offs);
	EXPECT_NE(NULL, strstr(n->msg, "malformed key"));
	EXPECT_EQ(1, ex_count(n, "x.bad"));

	/* no keys */
	kbtn_init(&req, n->family, KB_CMD_EXCEPT_ADD, 0);
	kbtn_put_str(&req, KB_A_NAME, "x.bad");
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(KB_A_KEYS, n->miss_type);

	/* unknown filter, for every command */
	EXPECT_EQ(-ENOENT, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.none", 1, 1, false));
	EXPECT_NE(NULL, strstr(n->msg, "no such filter"));
	EXPECT_EQ(-ENOENT, ex_keys(n, KB_CMD_EXCEPT_DEL, "x.none", 1, 1, false));
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_EXCEPT_FLUSH, "x.none"));
	EXPECT_EQ(-ENOENT, ex_list(n, "x.none"));

	/* duplicates and -exist */
	EXPECT_EQ(-EEXIST, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.bad",
				   A(10, 9, 0, 0), 2, false));
	EXPECT_NE(NULL, strstr(n->msg, "already"));
	EXPECT_EQ(1, ex_count(n, "x.bad"));
	EXPECT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.bad", A(10, 9, 0, 0), 2,
			     true));
	EXPECT_EQ(2, ex_count(n, "x.bad"));
	EXPECT_EQ(-ENOENT, ex_keys(n, KB_CMD_EXCEPT_DEL, "x.bad",
				   A(10, 9, 0, 1), 2, false));
	EXPECT_EQ(2, ex_count(n, "x.bad"));
	EXPECT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_DEL, "x.bad", A(10, 9, 0, 1), 2,
			     true));
	EXPECT_EQ(1, ex_count(n, "x.bad"));

	/* the bound: KB_EXC_MAX keys in all */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.bad",
				     A(172, 16, 0, 0) + i * 1024, 1024, false));
	ASSERT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.bad",
			     A(172, 16, 0, 0) + 3 * 1024, 1023, false));
	EXPECT_EQ(KB_EXC_MAX, ex_count(n, "x.bad"));
	EXPECT_EQ(-ENOSPC, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.bad",
				   A(172, 17, 0, 0), 1, false));
	EXPECT_NE(NULL, strstr(n->msg, "at most"));
	EXPECT_EQ(KB_EXC_MAX, ex_count(n, "x.bad"));
	EXPECT_EQ(KB_EXC_MAX, ex_list(n, "x.bad"));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "x.bad"));
	kbtn_close(n);
}

/* without CAP_NET_ADMIN (a child that dropped it): EPERM, nothing done */
TEST(eperm_without_cap_net_admin)
{
	struct kbtn *n = kbtn_open(), *u;
	int status = -1;
	pid_t pid;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, ex_create_tiny(n, "x.perm", 1));
	ASSERT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.perm", 1, 1, false));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (kbt_drop_net_admin())
			_exit(10);
		u = kbtn_open();
		if (!u)
			_exit(11);
		if (ex_keys(u, KB_CMD_EXCEPT_ADD, "x.perm", 2, 1, false) != -EPERM)
			_exit(12);
		if (ex_keys(u, KB_CMD_EXCEPT_DEL, "x.perm", 1, 1, false) != -EPERM)
			_exit(13);
		if (kbtn_name_cmd(u, KB_CMD_EXCEPT_FLUSH, "x.perm") != -EPERM)
			_exit(14);
		if (ex_list(u, "x.perm") != -EPERM)
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, ex_count(n, "x.perm"));
	EXPECT_EQ(1, ex_list(n, "x.perm"));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "x.perm"));
	kbtn_close(n);
}

TEST(kept_across_generations)
{
	struct kbtn *n = kbtn_open();
	int fd = kbt_open();
	void *img = NULL;
	long len;
	__u32 fp, why = 0;

	ASSERT_NE(NULL, n);
	ASSERT_LE(0, fd);
	fp = ex_setup(_metadata, n, "x.gen");
	ASSERT_EQ(0, ex_keys(n, KB_CMD_EXCEPT_ADD, "x.gen", fp, 1, false));
	len = kbt_export(fd, "x.gen", 0, &img);
	ASSERT_LT(0, len);

	/* flush, then the same bits back by an image upload (a rebuild) */
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_FLUSH, "x.gen"));
	EXPECT_EQ(1, ex_count(n, "x.gen"));
	EXPECT_EQ(0, kbt_upload(fd, "x.gen", 0, img, len, &why));
	EXPECT_EQ(1, ex_count(n, "x.gen"));
	EXPECT_EQ(0, ex_test(n, "x.gen", fp));

	/* swap: the contents move, each name keeps its exceptions */
	ASSERT_EQ(0, ex_create_tiny(n, "x.gen2", 7));
	EXPECT_EQ(0, kbt_upload(fd, "x.gen2", 0, img, len, &why));
	EXPECT_EQ(1, ex_test(n, "x.gen2", fp));
	EXPECT_EQ(0, kbtn_name2_cmd(n, KB_CMD_SWAP, "x.gen", "x.gen2"));
	EXPECT_EQ(0, ex_test(n, "x.gen", fp));
	EXPECT_EQ(1, ex_test(n, "x.gen2", fp));
	EXPECT_EQ(1, ex_count(n, "x.gen"));
	EXPECT_EQ(0, ex_count(n, "x.gen2"));
	/* rename: the set follows the filter */
	EXPECT_EQ(0, kbtn_name2_cmd(n, KB_CMD_RENAME, "x.gen", "x.gen3"));
	EXPECT_EQ(0, ex_test(n, "x.gen3", fp));
	free(img);
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "x.gen3"));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "x.gen2"));
	kbt_close(fd);
	kbtn_close(n);
}

TEST_HARNESS_MAIN
