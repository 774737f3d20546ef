// SPDX-License-Identifier: GPL-2.0
/*
 * xt_bloom end to end: two network namespaces joined by veth, filters
 * created through /dev/kbloom in the receiving namespace, iptables rules
 * with -m bloom there, and pings from several source addresses.
 */
#include <arpa/inet.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kb_test.h"

#define NS_SRC	"kbx_src"
#define NS_DST	"kbx_dst"

/* 0 if a ping from src (in NS_SRC) to dst gets an answer */
static int ping(const char *src, const char *dst)
{
	return kbt_sh("ip netns exec " NS_SRC " ping -q -c1 -W1 -I %s %s >/dev/null 2>&1",
		  src, dst);
}

/* iptables (or ip6tables, iptables-legacy...) in NS_DST */
#define ipt(bin, fmt, ...) \
	kbt_sh("ip netns exec " NS_DST " %s -w " fmt " 2>/dev/null", bin, ##__VA_ARGS__)

/* iptables in NS_DST (extensions from libdir) fails and says msg */
#define ipt_fails_saying(libdir, msg, bin, fmt, ...) \
	kbt_sh("out=$(XTABLES_LIBDIR=%s:/usr/lib/x86_64-linux-gnu/xtables " \
	       "ip netns exec " NS_DST " %s -w " fmt " 2>&1); [ $? != 0 ] && " \
	       "printf '%%s' \"$out\" | grep -qF -- '%s'", libdir, bin, \
	       ##__VA_ARGS__, msg)
/* refused by libxt_bloom's own check, with its message */
#define ipt_says(msg, bin, fmt, ...) \
	ipt_fails_saying(XT_LIBDIR, msg, bin, fmt, ##__VA_ARGS__)
/* an extension without that check: the rule reaches xt_bloom's
 * checkentry, which refuses it with errno text errtext
 */
#define ipt_kernel_refuses(errtext, bin, fmt, ...) \
	ipt_fails_saying(XT_LIBDIR "/nocheck", errtext, bin, fmt, ##__VA_ARGS__)

static int open_in_netns(const char *ns)
{
	char path[128];
	int self, nsfd, fd;

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	self = open("/proc/self/ns/net", O_RDONLY);
	nsfd = open(path, O_RDONLY);
	if (self < 0 || nsfd < 0 || setns(nsfd, CLONE_NEWNET))
		return -1;
	fd = kbt_open();
	if (setns(self, CLONE_NEWNET))
		return -1;
	close(self);
	close(nsfd);
	return fd;
}

static int add_v4(int fd, const char *name, const char *addr)
{
	struct in_addr a;

	if (inet_pton(AF_INET, addr, &a) != 1)
		return -EINVAL;
	return kbt_keys(fd, KB_IOC_ADD, name, 0, &a, 4, 1, NULL, NULL);
}

static int add_net4(int fd, const char *name, const char *addr, int plen)
{
	unsigned char k[5];

	if (inet_pton(AF_INET, addr, k) != 1)
		return -EINVAL;
	k[4] = plen;
	return kbt_keys(fd, KB_IOC_ADD, name, 0, k, 5, 1, NULL, NULL);
}

static int add_v6(int fd, const char *name, const char *addr)
{
	struct in6_addr a;

	if (inet_pton(AF_INET6, addr, &a) != 1)
		return -EINVAL;
	return kbt_keys(fd, KB_IOC_ADD, name, 0, &a, 16, 1, NULL, NULL);
}

/*
 * KB_XT_TESTS="a b": run only those tests, skip the others before their
 * namespaces are made.  The debug lane runs a few: each test's two netns
 * and veth cost half a minute under KASAN, and the match path they share
 * is the same (6.1's harness has no -t).
 */
static bool xt_wanted(const char *test)
{
	return kbt_wanted("KB_XT_TESTS", test);
}

/*
 * Under TCG the first rule loads nf_tables and friends: allow minutes.
 * The body is a function of its own so that a test KB_XT_TESTS leaves
 * out skips before it.
 */
#define XT_TEST(name)							\
	static void xt_body_##name(struct __test_metadata *_metadata,	\
				   FIXTURE_DATA(xt) *self);		\
	TEST_F_TIMEOUT(xt, name, 300)					\
	{								\
		if (!xt_wanted(#name))					\
			SKIP(return, "not in KB_XT_TESTS");		\
		xt_body_##name(_metadata, self);			\
	}								\
	static void xt_body_##name(struct __test_metadata *_metadata,	\
				   FIXTURE_DATA(xt) *self)

FIXTURE(xt) {
	int fd;		/* /dev/kbloom opened in NS_DST; -1: test not wanted */
};

FIXTURE_SETUP(xt)
{
	self->fd = -1;
	if (!xt_wanted(_metadata->name))
		return;
	setenv("XTABLES_LIBDIR", XT_LIBDIR ":/usr/lib/x86_64-linux-gnu/xtables", 1);
	kbt_sh("ip netns del " NS_SRC " 2>/dev/null; ip netns del " NS_DST " 2>/dev/null");
	ASSERT_EQ(0, kbt_sh("ip netns add " NS_SRC " && ip netns add " NS_DST " && "
			"ip -n " NS_SRC " link add veth-s type veth peer name veth-d netns " NS_DST " && "
			"ip -n " NS_SRC " link set lo up && ip -n " NS_DST " link set lo up && "
			"ip -n " NS_SRC " link set veth-s up && ip -n " NS_DST " link set veth-d up && "
			"ip -n " NS_DST " addr add 10.99.0.1/24 dev veth-d && "
			"ip -n " NS_DST " addr add 10.99.0.5/24 dev veth-d && "
			"ip -n " NS_SRC " addr add 10.99.0.2/24 dev veth-s && "
			"ip -n " NS_SRC " addr add 10.99.0.3/24 dev veth-s && "
			"ip -n " NS_SRC " addr add 10.99.0.9/24 dev veth-s && "
			"ip -n " NS_DST " addr add fd00:99::1/64 dev veth-d nodad && "
			"ip -n " NS_SRC " addr add fd00:99::2/64 dev veth-s nodad && "
			"ip -n " NS_SRC " addr add fd00:99::3/64 dev veth-s nodad"));
	self->fd = open_in_netns(NS_DST);
	ASSERT_LE(0, self->fd);
	/* Everything answers before any rule. */
	ASSERT_EQ(0, ping("10.99.0.2", "10.99.0.1"));
	ASSERT_EQ(0, ping("fd00:99::2", "fd00:99::1"));
}

FIXTURE_TEARDOWN(xt)
{
	if (self->fd < 0)
		return;
	close(self->fd);
	/* streams a failed test left running (they outlive a slow TCG run) */
	kbt_sh("ip netns pids " NS_SRC " 2>/dev/null | xargs -r kill");
	kbt_sh("ip netns del " NS_SRC "; ip netns del " NS_DST);
}

XT_TEST(ipv4_src_blocked_others_pass)
{
	ASSERT_EQ(0, kbt_create(self->fd, "bl4", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, add_v4(self->fd, "bl4", "10.99.0.3"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom --bloom-name bl4 --bloom-dir src -j DROP"));
	EXPECT_NE(0, ping("10.99.0.3", "10.99.0.1"));
	EXPECT_EQ(0, ping("10.99.0.2", "10.99.0.1"));
	EXPECT_EQ(0, ping("10.99.0.9", "10.99.0.1"));
	/* A source added to the live filter is dropped from the next packet. */
	ASSERT_EQ(0, add_v4(self->fd, "bl4", "10.99.0.9"));
	EXPECT_NE(0, ping("10.99.0.9", "10.99.0.1"));
	EXPECT_EQ(0, ipt("iptables", "-F INPUT"));
	EXPECT_EQ(0, ping("10.99.0.3", "10.99.0.1"));
}

XT_TEST(ipv6_src_blocked_others_pass)
{
	ASSERT_EQ(0, kbt_create(self->fd, "bl6", KB_KIND_BLOCKED, KB_KEY_IPV6, 1000));
	ASSERT_EQ(0, add_v6(self->fd, "bl6", "fd00:99::3"));
	ASSERT_EQ(0, ipt("ip6tables", "-A INPUT -m bloom --bloom-name bl6 -j DROP"));
	EXPECT_NE(0, ping("fd00:99::3", "fd00:99::1"));
	EXPECT_EQ(0, ping("fd00:99::2", "fd00:99::1"));
	/* An IPv6 filter cannot serve an IPv4 rule. */
	EXPECT_NE(0, ipt("iptables", "-A INPUT -m bloom --bloom-name bl6 -j DROP"));
}

XT_TEST(cidr_blocks_whole_prefix)
{
	ASSERT_EQ(0, kbt_create(self->fd, "nets", KB_KIND_BLOCKED, KB_KEY_NET4, 1000));
	/* 10.99.0.0/30 holds .2 and .3, not .9 */
	ASSERT_EQ(0, add_net4(self->fd, "nets", "10.99.0.0", 30));
	ASSERT_EQ(0, add_net4(self->fd, "nets", "192.0.2.0", 24));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom --bloom-name nets --bloom-dir src -j DROP"));
	EXPECT_NE(0, ping("10.99.0.2", "10.99.0.1"));
	EXPECT_NE(0, ping("10.99.0.3", "10.99.0.1"));
	EXPECT_EQ(0, ping("10.99.0.9", "10.99.0.1"));
}

XT_TEST(invert_and_dst)
{
	ASSERT_EQ(0, kbt_create(self->fd, "allow", KB_KIND_BLOCKED, KB_KEY_IP, 1000));
	ASSERT_EQ(0, add_v4(self->fd, "allow", "10.99.0.2"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom ! --bloom-name allow --bloom-dir src -j DROP"));
	EXPECT_EQ(0, ping("10.99.0.2", "10.99.0.1"));
	EXPECT_NE(0, ping("10.99.0.3", "10.99.0.1"));
	ASSERT_EQ(0, ipt("iptables", "-F INPUT"));

	ASSERT_EQ(0, kbt_create(self->fd, "dsts", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, add_v4(self->fd, "dsts", "10.99.0.5"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom --bloom-name dsts --bloom-dir dst -j DROP"));
	EXPECT_NE(0, ping("10.99.0.2", "10.99.0.5"));
	EXPECT_EQ(0, ping("10.99.0.2", "10.99.0.1"));
}

XT_TEST(rule_holds_filter)
{
	struct kb_ioc_info info;

	ASSERT_EQ(0, kbt_create(self->fd, "held", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, add_v4(self->fd, "held", "10.99.0.3"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom --bloom-name held -j DROP"));
	ASSERT_EQ(0, kbt_info(self->fd, "held", &info));
	EXPECT_LE(1U, info.refs);
	EXPECT_EQ(-EBUSY, kbt_destroy(self->fd, "held"));
	EXPECT_NE(0, ping("10.99.0.3", "10.99.0.1"));
	/* Missing filters and bad names are refused when the rule is added,
	 * by libxt_bloom with a message, and by xt_bloom itself.
	 */
	EXPECT_EQ(0, ipt_says("no kbloom filter \"nosuch\"", "iptables",
			      "-A INPUT -m bloom --bloom-name nosuch -j DROP"));
	EXPECT_EQ(0, ipt_kernel_refuses("No such file or directory", "iptables",
					"-A INPUT -m bloom --bloom-name nosuch -j DROP"));
	EXPECT_EQ(0, ipt_says("invalid filter name", "iptables",
			      "-A INPUT -m bloom --bloom-name 'bad/name' -j DROP"));
	ASSERT_EQ(0, ipt("iptables", "-F INPUT"));
	EXPECT_EQ(0, kbt_destroy(self->fd, "held"));
}

XT_TEST(byte_filters_refused)
{
	ASSERT_EQ(0, kbt_create(self->fd, "words", KB_KIND_BLOCKED, KB_KEY_STR, 1000));
	EXPECT_EQ(0, ipt_says("filter \"words\" holds str keys", "iptables",
			      "-A INPUT -m bloom --bloom-name words -j DROP"));
	EXPECT_EQ(0, ipt_kernel_refuses("Protocol wrong type", "iptables",
					"-A INPUT -m bloom --bloom-name words -j DROP"));
	ASSERT_EQ(0, kbt_create(self->fd, "v4", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, kbt_create(self->fd, "v6", KB_KIND_BLOCKED, KB_KEY_IPV6, 1000));
	EXPECT_EQ(0, ipt_says("holds ipv4 keys; an ip6tables rule", "ip6tables",
			      "-A INPUT -m bloom --bloom-name v4 -j DROP"));
	EXPECT_EQ(0, ipt_kernel_refuses("Protocol wrong type", "ip6tables",
					"-A INPUT -m bloom --bloom-name v4 -j DROP"));
	EXPECT_EQ(0, ipt_says("holds ipv6 keys; an iptables rule", "iptables",
			      "-A INPUT -m bloom --bloom-name v6 -j DROP"));
	EXPECT_EQ(0, ipt("ip6tables", "-A INPUT -m bloom --bloom-name v6 -j DROP"));
	EXPECT_EQ(0, ipt("ip6tables", "-F INPUT"));
	EXPECT_NE(0, ipt("iptables", "-A INPUT -m bloom --bloom-name v4 --bloom-dir up -j DROP"));
	EXPECT_EQ(0, ipt("iptables", "-A INPUT -m bloom --bloom-name v4 --bloom-dir dst,src -j DROP"));
	EXPECT_EQ(0, ipt("iptables", "-F INPUT"));
}

XT_TEST(save_restore_round_trip)
{
	ASSERT_EQ(0, kbt_create(self->fd, "rt", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, add_v4(self->fd, "rt", "10.99.0.3"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom ! --bloom-name rt --bloom-dir src,dst -j ACCEPT"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom --bloom-name rt -j DROP"));
	ASSERT_EQ(0, kbt_sh("ip netns exec " NS_DST " iptables-save > /tmp/xt-rt.save"));
	EXPECT_EQ(0, kbt_sh("grep -q -- '-m bloom ! --bloom-name rt --bloom-dir src,dst -j ACCEPT' /tmp/xt-rt.save"));
	EXPECT_EQ(0, kbt_sh("grep -q -- '-m bloom --bloom-name rt --bloom-dir src -j DROP' /tmp/xt-rt.save"));
	ASSERT_EQ(0, ipt("iptables", "-F INPUT"));
	EXPECT_EQ(0, ping("10.99.0.3", "10.99.0.1"));
	ASSERT_EQ(0, kbt_sh("ip netns exec " NS_DST " iptables-restore < /tmp/xt-rt.save"));
	EXPECT_EQ(0, kbt_sh("ip netns exec " NS_DST " iptables-save | grep -c -- '--bloom-name rt' | grep -qx 2"));
	EXPECT_NE(0, ping("10.99.0.3", "10.99.0.1"));
	EXPECT_EQ(0, ping("10.99.0.2", "10.99.0.1"));
}

XT_TEST(iptables_legacy)
{
	ASSERT_EQ(0, kbt_create(self->fd, "leg", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, add_v4(self->fd, "leg", "10.99.0.3"));
	ASSERT_EQ(0, ipt("iptables-legacy", "-A INPUT -m bloom --bloom-name leg -j DROP"));
	EXPECT_NE(0, ping("10.99.0.3", "10.99.0.1"));
	EXPECT_EQ(0, ping("10.99.0.2", "10.99.0.1"));
	EXPECT_EQ(0, ipt("iptables-legacy", "-F INPUT"));
}

/* Packets counted by the INPUT rule "-s SRC -j ACCEPT" in NS_DST. */
static long accepted(const char *src)
{
	return kbt_sh_long("ip netns exec " NS_DST " iptables -w -L INPUT -v -x -n | "
			   "awk '$3 == \"ACCEPT\" && $8 == \"%s\" { print $1 }'", src);
}

static int txn_rebuild(int fd, const char *name, const char *const *addrs,
		       int n)
{
	struct kb_ioc_create c = kbt_spec(name, KB_KIND_BLOCKED, KB_KEY_IPV4,
					  1000, 1000000);
	struct in_addr a;
	int i, ret;

	ret = kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c);
	for (i = 0; !ret && i < n; i++) {
		inet_pton(AF_INET, addrs[i], &a);
		ret = kbt_keys(fd, KB_IOC_ADD, name, KB_KEYS_F_TXN, &a, 4, 1,
			       NULL, NULL);
	}
	if (ret) {
		kbt_txn(fd, KB_IOC_TXN_ABORT);
		return ret;
	}
	return kbt_txn(fd, KB_IOC_TXN_COMMIT);
}

/*
 * Rebuilds while three sources send a continuous stream: the source that
 * is in the old and in every new filter never gets a packet through, and
 * the source added by the last rebuild is dropped from the first packet
 * after its commit.
 */
XT_TEST(rebuild_under_traffic_never_opens_a_window)
{
	static const char *const old_set[] = { "10.99.0.3", "192.0.2.1" };
	static const char *const new_set[] = { "10.99.0.3", "10.99.0.9",
					       "198.51.100.7" };
	long before, after;
	int i;

	ASSERT_EQ(0, kbt_create(self->fd, "live", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, add_v4(self->fd, "live", "10.99.0.3"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -p icmp -m bloom --bloom-name live -j DROP"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -p icmp -s 10.99.0.2 -j ACCEPT"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -p icmp -s 10.99.0.3 -j ACCEPT"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -p icmp -s 10.99.0.9 -j ACCEPT"));
	ASSERT_EQ(0, kbt_sh("for s in 10.99.0.2 10.99.0.3 10.99.0.9; do "
			"ip netns exec " NS_SRC " ping -q -i 0.01 -w 900 -I $s 10.99.0.1 "
			">/dev/null 2>&1 & done"));
	/* Wait until every stream flows (process start is slow under TCG);
	 * the streams run until this test kills them, however slow the host.
	 */
	for (i = 0; i < 600 && (accepted("10.99.0.2") <= 0 ||
				accepted("10.99.0.9") <= 0); i++)
		usleep(100000);
	ASSERT_LT(0, accepted("10.99.0.2"));
	ASSERT_LT(0, accepted("10.99.0.9"));	/* .9 is not blocked yet */

	before = accepted("10.99.0.2");
	for (i = 0; i < 20; i++)
		ASSERT_EQ(0, txn_rebuild(self->fd, "live", old_set, 2));
	usleep(300000);
	EXPECT_LT(before, accepted("10.99.0.2"));	/* still flowing */

	ASSERT_EQ(0, txn_rebuild(self->fd, "live", new_set, 3));
	before = accepted("10.99.0.9");
	usleep(500000);
	after = accepted("10.99.0.9");
	EXPECT_EQ(before, after);		/* nothing after the commit */
	EXPECT_EQ(0, accepted("10.99.0.3"));	/* never a packet through */
	kbt_sh("ip netns pids " NS_SRC " | xargs -r kill");
}

/* Filters and rules are per network namespace. */
XT_TEST(netns_independent)
{
	ASSERT_EQ(0, kbt_create(self->fd, "bl4", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, add_v4(self->fd, "bl4", "10.99.0.3"));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom --bloom-name bl4 -j DROP"));
	ASSERT_EQ(0, kbt_sh("ip netns add kbx_c && ip netns add kbx_d && "
			"ip -n kbx_c link add v-c type veth peer name v-d netns kbx_d && "
			"ip -n kbx_c link set v-c up && ip -n kbx_d link set v-d up && "
			"ip -n kbx_d addr add 10.99.0.1/24 dev v-d && "
			"ip -n kbx_c addr add 10.99.0.3/24 dev v-c"));
	/* The same addresses pass in the other pair of namespaces... */
	EXPECT_EQ(0, kbt_sh("ip netns exec kbx_c ping -q -c1 -W2 -I 10.99.0.3 10.99.0.1 >/dev/null 2>&1"));
	/* ...where no filter of that name exists. */
	EXPECT_NE(0, kbt_sh("ip netns exec kbx_d iptables -w -A INPUT -m bloom --bloom-name bl4 -j DROP 2>/dev/null"));
	EXPECT_NE(0, ping("10.99.0.3", "10.99.0.1"));
	kbt_sh("ip netns del kbx_c; ip netns del kbx_d");
}

/* Module order: rules pin xt_bloom, xt_bloom pins kbloom. */
XT_TEST(rmmod_order)
{
	ASSERT_EQ(0, kbt_create(self->fd, "pin", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000));
	ASSERT_EQ(0, ipt("iptables", "-A INPUT -m bloom --bloom-name pin -j DROP"));
	EXPECT_NE(0, kbt_sh("rmmod kbloom 2>/dev/null"));
	EXPECT_NE(0, kbt_sh("rmmod xt_bloom 2>/dev/null"));
	ASSERT_EQ(0, ipt("iptables", "-F INPUT"));
	/* Without rules xt_bloom could go, but kbloom still cannot. */
	EXPECT_NE(0, kbt_sh("rmmod kbloom 2>/dev/null"));
	EXPECT_EQ(0, kbt_sh("grep -q '^xt_bloom ' /proc/modules && grep -q '^kbloom ' /proc/modules"));
}

/* a rule naming a filter with control characters: refused, never logged */
XT_TEST(bad_name_not_logged)
{
	/* dmesg -r: the log raw, as the console shows it */
	EXPECT_EQ(0, ipt_kernel_refuses("Invalid argument", "iptables",
					"-A INPUT -m bloom --bloom-name \"$(printf 'kbx\\033[2Jmark')\" -j DROP"));
	EXPECT_EQ(0, kbt_sh("dmesg -r | grep -q 'bad filter name'"));
	/* neither the name nor its escape, raw or escaped */
	EXPECT_NE(0, kbt_sh("dmesg -r | grep -q 'mark'"));
	EXPECT_NE(0, kbt_sh("dmesg -r | grep -q \"$(printf '\\033')\""));
}

TEST_HARNESS_MAIN
