// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel consumer API through the kb_consumer test module, and
 * network namespace isolation and cleanup.
 */
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

TEST_HARNESS_MAIN
