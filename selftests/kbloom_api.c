// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel consumer API through the kb_consumer test module, and
 * network namespace isolation and cleanup; the lockless index by name and
 * by id (ids unique, kept across renames and swaps, never reused; renames
 * never hide a filter from a lockless reader).
 */
#include <pthread.h>
#include <sched.h>
#include <arpa/inet.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kb_test.h"

#define CMD "/sys/module/kb_consumer/parameters/cmd"
#define RESULT "/sys/module/kb_consumer/parameters/result"

static int cmd(const char *c)
{
	return kbt_param_write(CMD, c);
}

/* run a query command, return the result (0/1/...) or -errno */
static int query(const char *c)
{
	char buf[32];
	int ret = cmd(c);

	if (ret)
		return ret;
	ret = kbt_param_read(RESULT, buf, sizeof(buf));
	return ret ? ret : atoi(buf);
}

/* a query whose result is a u64 (ids): the value, or 0 and *err set */
static __u64 query_u64(const char *c, int *err)
{
	char buf[64];

	*err = cmd(c);
	if (!*err)
		*err = kbt_param_read(RESULT, buf, sizeof(buf));
	return *err ? 0 : strtoull(buf, NULL, 10);
}

static __u64 id_of(const char *name)
{
	char c[64];
	int err;
	__u64 id;

	snprintf(c, sizeof(c), "id %s", name);
	id = query_u64(c, &err);
	return err ? ~0ULL : id;
}

/* the name kbloom_name_rcu() gives id, or "-errno" */
static const char *name_of(__u64 id, char *buf, size_t len)
{
	char c[64];
	int err;

	snprintf(c, sizeof(c), "name %llu", (unsigned long long)id);
	err = cmd(c);
	if (!err)
		err = kbt_param_read(RESULT, buf, len);
	if (err)
		snprintf(buf, len, "%d", err);
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* KB_A_ID of a netlink get, 0 if none */
static __u64 nl_id(int fd, const char *name)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct kbtn *n = kbt_nl(fd);
	__u64 id = 0;

	if (!n)
		return 0;
	if (!kbtn_name_cmd(n, KB_CMD_GET, name) && n->reply_len) {
		kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
		id = kbt_nla_u64(tb, KB_A_ID);
	}
	kbt_nl_put(fd, n);
	return id;
}

/* KB_A_GENERATION of a netlink get, 0 if none */
static __u64 nl_gen(int fd, const char *name)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct kbtn *n = kbt_nl(fd);
	__u64 gen = 0;

	if (!n)
		return 0;
	if (!kbtn_name_cmd(n, KB_CMD_GET, name) && n->reply_len) {
		kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
		gen = kbt_nla_u64(tb, KB_A_GENERATION);
	}
	kbt_nl_put(fd, n);
	return gen;
}

static int add_addr(int fd, const char *name, int family, const char *a,
		    int plen)
{
	unsigned char key[17];
	int alen = family == AF_INET ? 4 : 16;

	if (inet_pton(family, a, key) != 1)
		return -EINVAL;
	key[alen] = plen;
	return kbt_keys(fd, KB_IOC_ADD, name, 0, key, plen < 0 ? alen :
			alen + 1, 1, NULL, NULL);
}

TEST(get_test_put_busy)
{
	unsigned char a2[4] = { 10, 0, 0, 2 };
	struct kb_ioc_info info;
	struct kb_ioc_create c;
	int fd = kbt_open();
	__u64 before;

	ASSERT_LE(0, fd);
	ASSERT_EQ(-ENOENT, cmd("get c.none"));
	ASSERT_EQ(-EINVAL, cmd("get bad name"));
	ASSERT_EQ(0, kbt_create(fd, "c.v4", KB_KIND_BLOCKED, KB_KEY_IPV4,
				100));
	ASSERT_EQ(0, kbt_create(fd, "c.v4b", KB_KIND_BLOCKED, KB_KEY_IPV4,
				100));
	ASSERT_EQ(0, add_addr(fd, "c.v4", AF_INET, "10.0.0.1", -1));
	ASSERT_EQ(0, add_addr(fd, "c.v4b", AF_INET, "10.0.0.3", -1));
	ASSERT_EQ(0, cmd("get c.v4"));
	EXPECT_EQ(KB_KEY_IPV4, query("keytype"));
	EXPECT_EQ(1, query("addr4 10.0.0.1"));
	EXPECT_EQ(0, query("addr4 10.0.0.2"));
	EXPECT_EQ(0, query("addr6 ::1"));
	EXPECT_EQ(1, query("test 0a000001"));
	/* the benchmark's lookups: counted as lookups, bad counts refused */
	ASSERT_EQ(0, kbt_info(fd, "c.v4", &info));
	EXPECT_EQ(-EINVAL, cmd("bench 0"));
	EXPECT_EQ(-EINVAL, cmd("bench x"));
	EXPECT_EQ(-EINVAL, cmd("bench 4294967297"));
	before = info.lookups;
	EXPECT_EQ(0, cmd("bench 1000"));
	ASSERT_EQ(0, kbt_info(fd, "c.v4", &info));
	EXPECT_EQ(before + 1000, info.lookups);
	/* held: destroy and rename refused */
	EXPECT_EQ(-EBUSY, kbt_destroy(fd, "c.v4"));
	EXPECT_EQ(-EBUSY, kbt_name2(fd, KB_CMD_RENAME, "c.v4", "c.v4x"));
	ASSERT_EQ(0, kbt_info(fd, "c.v4", &info));
	EXPECT_EQ(1, info.refs);
	EXPECT_LE(4, info.lookups);
	/* a rebuild is seen at once */
	c = kbt_spec("c.v4", KB_KIND_BLOCKED, KB_KEY_IPV4, 100, 1000000);
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_keys(fd, KB_IOC_ADD, "c.v4", KB_KEYS_F_TXN,
			      a2, 4, 1, NULL, NULL));
	EXPECT_EQ(1, query("addr4 10.0.0.1"));
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(1, query("addr4 10.0.0.2"));
	EXPECT_EQ(0, query("addr4 10.0.0.1"));
	/* and a swap, and a flush */
	ASSERT_EQ(0, kbt_name2(fd, KB_CMD_SWAP, "c.v4", "c.v4b"));
	EXPECT_EQ(1, query("addr4 10.0.0.3"));
	EXPECT_EQ(0, query("addr4 10.0.0.2"));
	ASSERT_EQ(0, kbt_name_cmd(fd, KB_CMD_FLUSH, "c.v4"));
	EXPECT_EQ(0, query("addr4 10.0.0.3"));
	/* the other one is not held */
	EXPECT_EQ(0, kbt_destroy(fd, "c.v4b"));
	ASSERT_EQ(0, cmd("put"));
	ASSERT_EQ(0, kbt_info(fd, "c.v4", &info));
	EXPECT_EQ(0, info.refs);
	EXPECT_EQ(0, kbt_destroy(fd, "c.v4"));
	close(fd);
}

TEST(prefix_aware_test)
{
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "c.net", KB_KIND_BLOCKED, KB_KEY_NET,
				100));
	ASSERT_EQ(0, add_addr(fd, "c.net", AF_INET, "10.1.0.0", 16));
	ASSERT_EQ(0, add_addr(fd, "c.net", AF_INET, "192.168.7.5", 32));
	ASSERT_EQ(0, add_addr(fd, "c.net", AF_INET6, "2001:db8::", 32));
	ASSERT_EQ(0, cmd("get c.net"));
	EXPECT_EQ(1, query("addr4 10.1.2.3"));
	EXPECT_EQ(1, query("addr4 10.1.255.255"));
	EXPECT_EQ(0, query("addr4 10.2.0.1"));
	EXPECT_EQ(1, query("addr4 192.168.7.5"));
	EXPECT_EQ(0, query("addr4 192.168.7.6"));
	EXPECT_EQ(1, query("addr6 2001:db8:1:2::3"));
	EXPECT_EQ(0, query("addr6 2001:db9::1"));
	/* a prefix added later is seen */
	EXPECT_EQ(0, query("addr4 172.16.5.5"));
	ASSERT_EQ(0, add_addr(fd, "c.net", AF_INET, "172.16.0.0", 12));
	EXPECT_EQ(1, query("addr4 172.16.5.5"));
	ASSERT_EQ(0, cmd("put"));
	/* ip filters answer for both families */
	ASSERT_EQ(0, kbt_create(fd, "c.ip", KB_KIND_BLOCKED, KB_KEY_IP, 100));
	ASSERT_EQ(0, add_addr(fd, "c.ip", AF_INET, "10.9.9.9", -1));
	ASSERT_EQ(0, add_addr(fd, "c.ip", AF_INET6, "fe80::1", -1));
	ASSERT_EQ(0, cmd("get c.ip"));
	EXPECT_EQ(1, query("addr4 10.9.9.9"));
	EXPECT_EQ(1, query("addr6 fe80::1"));
	EXPECT_EQ(0, query("addr6 fe80::2"));
	ASSERT_EQ(0, cmd("put"));
	EXPECT_EQ(0, kbt_destroy(fd, "c.net"));
	EXPECT_EQ(0, kbt_destroy(fd, "c.ip"));
	close(fd);
}

/*
 * A window's older slices answer consumers too: kbloom_test_addr() (the
 * lookup xt_bloom and the kfuncs inline), prefix lengths included, and
 * kbloom_test(), once a rotation has moved the keys out of the newest
 */
TEST(window_older_slices)
{
	struct kb_ioc_create c = kbt_spec("c.win", KB_KIND_BLOCKED,
					  KB_KEY_NET4, 100, 1000000);
	int fd = kbt_open(), i;
	__u64 g0;

	ASSERT_LE(0, fd);
	/* made by a rebuild (TXN_BEGIN VER1) of a filter not there yet */
	c.window_ms = 2000;
	c.slices = 1;
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	ASSERT_EQ(0, add_addr(fd, "c.win", AF_INET, "10.1.0.0", 16));
	ASSERT_EQ(0, add_addr(fd, "c.win", AF_INET, "10.2.0.1", 32));
	ASSERT_EQ(0, cmd("get c.win"));
	g0 = nl_gen(fd, "c.win");
	for (i = 0; i < 400 && nl_gen(fd, "c.win") == g0; i++)
		usleep(10000);
	ASSERT_NE(g0, nl_gen(fd, "c.win"));
	/* the older slice holds them until the next rotation, 2 s on */
	EXPECT_EQ(1, query("addr4 10.1.2.3"));
	EXPECT_EQ(1, query("addr4 10.2.0.1"));
	EXPECT_EQ(1, query("test 0a02000120"));
	EXPECT_EQ(0, query("addr4 10.3.0.1"));
	ASSERT_EQ(0, cmd("put"));
	EXPECT_EQ(0, kbt_destroy(fd, "c.win"));
	close(fd);
}

TEST(netns_isolation_and_cleanup)
{
	struct kb_ioc_info info;
	int fd = kbt_open(), status;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "n.parent", KB_KIND_BLOCKED, KB_KEY_BYTES,
				10));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int cfd, bad = 0, i;
		char name[32];

		if (unshare(CLONE_NEWNET))
			_exit(10);
		cfd = kbt_open();
		if (cfd < 0)
			_exit(11);
		bad |= kbt_info(cfd, "n.parent", &info) != -ENOENT;
		bad |= kbt_create(cfd, "n.parent", KB_KIND_BLOCKED,
				  KB_KEY_IPV4, 10) != 0;
		for (i = 0; i < 20; i++) {
			snprintf(name, sizeof(name), "n.child%d", i);
			bad |= kbt_create(cfd, name, KB_KIND_BLOCKED,
					  KB_KEY_BYTES, 10000) != 0;
		}
		bad |= add_addr(cfd, "n.parent", AF_INET, "1.2.3.4", -1) != 0;
		/* a consumer holds a filter of this namespace past its end */
		bad |= cmd("get n.parent") != 0;
		bad |= query("addr4 1.2.3.4") != 1;
		/* a transaction left open dies with the file */
		{
			struct kb_ioc_create c = kbt_spec("n.child0",
							  KB_KIND_BLOCKED,
							  KB_KEY_BYTES, 10,
							  1000);

			bad |= kbt_ioc(cfd, KB_IOC_TXN_BEGIN, &c) != 0;
		}
		_exit(bad ? 12 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the parent's filter is the parent's */
	ASSERT_EQ(0, kbt_info(fd, "n.parent", &info));
	EXPECT_EQ(KB_KEY_BYTES, info.key_type);
	EXPECT_EQ(-ENOENT, kbt_info(fd, "n.child0", &info));
	/* the dead namespace's filter still answers its holder */
	usleep(200 * 1000);
	EXPECT_EQ(1, query("addr4 1.2.3.4"));
	EXPECT_EQ(0, cmd("put"));
	EXPECT_EQ(0, kbt_destroy(fd, "n.parent"));
	close(fd);
}

TEST(ids)
{
	unsigned char k[4] = { 1, 2, 3, 4 };
	struct kb_ioc_info info;
	__u64 id1, id2, id3;
	char buf[64];
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "i.a", KB_KIND_BLOCKED, KB_KEY_BYTES, 100));
	ASSERT_EQ(0, kbt_create(fd, "i.b", KB_KIND_BLOCKED, KB_KEY_BYTES, 100));
	ASSERT_EQ(0, kbt_keys(fd, KB_IOC_ADD, "i.b", 0, k, 4, 1, NULL, NULL));
	id1 = id_of("i.a");
	id2 = id_of("i.b");
	ASSERT_NE(0, id1);
	ASSERT_NE(~0ULL, id1);
	ASSERT_NE(0, id2);
	ASSERT_NE(id1, id2);
	/* netlink reports the same ids */
	EXPECT_EQ(id1, nl_id(fd, "i.a"));
	EXPECT_EQ(id2, nl_id(fd, "i.b"));
	EXPECT_STREQ("i.a", name_of(id1, buf, sizeof(buf)));
	EXPECT_EQ(0, id_of("i.none"));
	EXPECT_EQ(0, id_of("name.too.long.for.a.filter.name.x"));
	EXPECT_STREQ("-2", name_of(0, buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, cmd("name x"));

	/* rename: the id follows the filter; the old name finds nothing */
	ASSERT_EQ(0, kbt_name2(fd, KB_CMD_RENAME, "i.a", "i.c"));
	EXPECT_EQ(id1, id_of("i.c"));
	EXPECT_EQ(0, id_of("i.a"));
	EXPECT_STREQ("i.c", name_of(id1, buf, sizeof(buf)));
	EXPECT_EQ(id1, nl_id(fd, "i.c"));

	/* swap exchanges contents: names keep their ids */
	ASSERT_EQ(0, kbt_name2(fd, KB_CMD_SWAP, "i.c", "i.b"));
	EXPECT_EQ(id1, id_of("i.c"));
	EXPECT_EQ(id2, id_of("i.b"));
	ASSERT_EQ(0, kbt_info(fd, "i.c", &info));
	EXPECT_EQ(1, info.count);

	/* destroy + create of the same name: a new id; the old finds nothing */
	ASSERT_EQ(0, kbt_destroy(fd, "i.c"));
	EXPECT_STREQ("-2", name_of(id1, buf, sizeof(buf)));
	ASSERT_EQ(0, kbt_create(fd, "i.c", KB_KIND_BLOCKED, KB_KEY_BYTES, 100));
	id3 = id_of("i.c");
	EXPECT_NE(id1, id3);
	EXPECT_LT(id2, id3);
	EXPECT_STREQ("-2", name_of(id1, buf, sizeof(buf)));
	EXPECT_STREQ("i.c", name_of(id3, buf, sizeof(buf)));
	EXPECT_EQ(0, kbt_destroy(fd, "i.b"));
	EXPECT_EQ(0, kbt_destroy(fd, "i.c"));
	close(fd);
}

#define CHASE_N	300

struct chase {
	char result[64];
	int err;
};

static void *chase_thread(void *arg)
{
	struct chase *c = arg;
	char line[64];

	snprintf(line, sizeof(line), "chase r. %d", CHASE_N);
	c->err = cmd(line);
	if (!c->err)
		c->err = kbt_param_read(RESULT, c->result, sizeof(c->result));
	return NULL;
}

/*
 * A lockless reader chases a filter renamed r.0 -> r.1 -> ... -> r.300
 * by another task: looking up the names from the last it found on, in
 * order, it always finds the filter, under its own id.
 */
TEST(rename_chase)
{
	unsigned long long misses, wrong, seen, rounds;
	struct chase c = { .err = -1 };
	char a[32], b[32];
	pthread_t t;
	__u64 id;
	int fd = kbt_open(), i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "r.0", KB_KIND_BLOCKED, KB_KEY_BYTES, 100));
	id = id_of("r.0");
	ASSERT_EQ(0, pthread_create(&t, NULL, chase_thread, &c));
	usleep(20 * 1000);
	for (i = 0; i < CHASE_N; i++) {
		snprintf(a, sizeof(a), "r.%d", i);
		snprintf(b, sizeof(b), "r.%d", i + 1);
		ASSERT_EQ(0, kbt_name2(fd, KB_CMD_RENAME, a, b));
	}
	pthread_join(t, NULL);
	ASSERT_EQ(0, c.err);
	ASSERT_EQ(4, sscanf(c.result, "%llu %llu %llu %llu", &misses, &wrong,
			    &seen, &rounds));
	TH_LOG("chase: %llu rounds, %llu of %d names seen", rounds, seen,
	       CHASE_N + 1);
	EXPECT_EQ(0, misses);
	EXPECT_EQ(0, wrong);
	EXPECT_LE(2, seen);
	EXPECT_EQ(id, id_of(b));
	EXPECT_EQ(id, nl_id(fd, b));
	EXPECT_EQ(0, kbt_destroy(fd, b));
	close(fd);
}

TEST_HARNESS_MAIN
