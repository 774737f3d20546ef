// SPDX-License-Identifier: GPL-2.0
/*
 * Memory limits: max_netns_bytes, max_userns_bytes (all the namespaces of
 * the user namespaces one user created), max_total_bytes, and the module
 * parameters' clamping.  An unprivileged user gets CAP_NET_ADMIN over as
 * many network namespaces as `unshare -Urn` gives; these tests are that
 * user (nobody) trying to pin kernel memory past the limits.
 */
#include <sched.h>
#include <signal.h>
#include <grp.h>
#include <sys/wait.h>
#include <sys/prctl.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

#define PARAMS "/sys/module/kbloom/parameters/"
#define MIB (1ULL << 20)
/* bits per key 10 over this many items is exactly 1 MiB of blocked payload */
#define ITEMS_1MIB 838860
#define NOBODY 65534

static const char *const saved_params[] = {
	"max_userns_bytes", "max_total_bytes", "max_netns_bytes",
	"max_filter_bytes", "max_filters",
};

FIXTURE(limits) {
	char saved[5][32];
};

FIXTURE_SETUP(limits)
{
	char path[128];
	int i;

	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), PARAMS "%s", saved_params[i]);
		ASSERT_EQ(0, kbt_param_read(path, self->saved[i],
					    sizeof(self->saved[i])));
	}
}

FIXTURE_TEARDOWN(limits)
{
	char path[128];
	int i;

	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), PARAMS "%s", saved_params[i]);
		kbt_param_write(path, self->saved[i]);
	}
}

static int set_param(const char *name, unsigned long long v)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	snprintf(val, sizeof(val), "%llu", v);
	return kbt_param_write(path, val);
}

static unsigned long long get_param(const char *name)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	if (kbt_param_read(path, val, sizeof(val)))
		return 0;
	return strtoull(val, NULL, 0);
}

/* What a child reports: how many 1 MiB filters it created, and why the
 * first refused create failed.
 */
struct report {
	int created;
	int err;
	char msg[256];
};

/*
 * Become uid (nobody, or stay root), then root of a new user and network
 * namespace.  -1 with errno and r->msg naming the step that failed.
 */
static int enter_userns_as(uid_t uid, struct report *r)
{
	char map[64];
	int fd, len;

	if (uid && (setgroups(0, NULL) || setgid(NOBODY) || setuid(uid))) {
		strcpy(r->msg, "setuid");
		return -1;
	}
	/* a changed uid makes the process undumpable, its /proc/self root's */
	if (prctl(PR_SET_DUMPABLE, 1)) {
		strcpy(r->msg, "PR_SET_DUMPABLE");
		return -1;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		strcpy(r->msg, "unshare");
		return -1;
	}
	len = snprintf(map, sizeof(map), "0 %u 1", uid);
	fd = open("/proc/self/uid_map", O_WRONLY);
	if (fd < 0 || write(fd, map, len) != len) {
		strcpy(r->msg, "uid_map");
		return -1;
	}
	close(fd);
	return 0;
}

/* create 1 MiB filters f0, f1, ... until one is refused (at most max) */
static void fill(struct kbtn *n, int max, struct report *r)
{
	char name[16];

	memset(r, 0, sizeof(*r));
	for (r->created = 0; r->created < max; r->created++) {
		snprintf(name, sizeof(name), "f%d", r->created);
		r->err = kbtn_create(n, name, KB_KIND_BLOCKED, KB_KEY_BYTES,
				    ITEMS_1MIB, 0);
		if (r->err) {
			snprintf(r->msg, sizeof(r->msg), "%s", n->msg);
			return;
		}
	}
}

/*
 * A child that enters a new user namespace (as uid), fills it with up to
 * max filters, writes its report to rep and then waits until hold is
 * closed (keeping its namespace and filters alive).  uid == -1: stays in
 * the initial user namespace, new network namespace only.
 */
static pid_t filler(int uid, int max, int rep[2], int hold[2])
{
	pid_t pid = fork();
	struct report r = { .created = -1 };
	struct kbtn *n;
	char c;

	if (pid)
		return pid;
	close(rep[0]);
	close(hold[1]);
	if (uid >= 0 ? enter_userns_as(uid, &r) : unshare(CLONE_NEWNET))
		r.err = -errno;
	else if (!(n = kbtn_open()))
		r.err = -ENOPROTOOPT;
	else
		fill(n, max, &r);
	if (write(rep[1], &r, sizeof(r)) != sizeof(r))
		_exit(1);
	while (read(hold[0], &c, 1) > 0)
		;
	_exit(0);
}

/* start a filler and read its report; *hold_w keeps it alive until closed */
static struct report run_filler(int uid, int max, pid_t *pid, int *hold_w)
{
	struct report r = { .created = -1, .err = -EPIPE };
	int rep[2], hold[2];

	if (pipe(rep) || pipe(hold))
		return r;
	*pid = filler(uid, max, rep, hold);
	close(rep[1]);
	close(hold[0]);
	if (*pid < 0 || read(rep[0], &r, sizeof(r)) != sizeof(r))
		r.err = -EPIPE;
	close(rep[0]);
	*hold_w = hold[1];
	return r;
}

static void end_filler(pid_t pid, int hold_w)
{
	close(hold_w);
	waitpid(pid, NULL, 0);
}

/*
 * The user's cap is one for all its namespaces: a second `unshare -Urn` by
 * the same user gets nothing more; the bytes come back when the first
 * namespace goes (its filters are freed after namespace exit and a grace
 * period, so the test retries for a while).
 */
TEST_F(limits, userns_cap_is_per_user)
{
	struct report r1, r2, r3;
	pid_t p1, p2, p3;
	int h1, h2, h3, tries;

	ASSERT_EQ(0, set_param("max_userns_bytes", 8 * MIB));
	r1 = run_filler(NOBODY, 20, &p1, &h1);
	ASSERT_EQ(8, r1.created) TH_LOG("err %d %s", r1.err, r1.msg);
	EXPECT_EQ(-ENOSPC, r1.err);
	EXPECT_NE(NULL, strstr(r1.msg, "max_userns_bytes")) TH_LOG("%s", r1.msg);

	/* a sibling user namespace of the same user: already at the cap */
	r2 = run_filler(NOBODY, 20, &p2, &h2);
	EXPECT_EQ(0, r2.created);
	EXPECT_EQ(-ENOSPC, r2.err);
	EXPECT_NE(NULL, strstr(r2.msg, "max_userns_bytes")) TH_LOG("%s", r2.msg);
	end_filler(p2, h2);

	/* root of its own user namespace is another user: its own budget */
	r2 = run_filler(0, 3, &p2, &h2);
	EXPECT_EQ(3, r2.created) TH_LOG("err %d %s", r2.err, r2.msg);
	end_filler(p2, h2);

	/* the first namespace goes: its 8 MiB come back */
	end_filler(p1, h1);
	for (tries = 0; tries < 100; tries++) {
		r3 = run_filler(NOBODY, 20, &p3, &h3);
		end_filler(p3, h3);
		if (r3.created == 8)
			break;
		usleep(100 * 1000);
	}
	EXPECT_EQ(8, r3.created) TH_LOG("err %d %s", r3.err, r3.msg);
}

/* a namespace owned by the initial user namespace is not under it */
TEST_F(limits, userns_cap_spares_initial_owner)
{
	struct report r;
	pid_t p;
	int h;

	ASSERT_EQ(0, set_param("max_userns_bytes", 2 * MIB));
	r = run_filler(-1, 4, &p, &h);
	EXPECT_EQ(4, r.created) TH_LOG("err %d %s", r.err, r.msg);
	end_filler(p, h);
}

/* max_total_bytes holds across namespaces, and names itself */
TEST_F(limits, total_cap_across_namespaces)
{
	struct report r1, r2, r3;
	pid_t p1, p2, p3;
	int h1, h2, h3, tries;

	ASSERT_EQ(0, set_param("max_total_bytes", 6 * MIB));
	/* namespaces of earlier tests are torn down asynchronously */
	for (tries = 0; tries < 100; tries++) {
		r1 = run_filler(-1, 4, &p1, &h1);
		if (r1.created == 4)
			break;
		end_filler(p1, h1);
		usleep(100 * 1000);
	}
	r2 = run_filler(-1, 20, &p2, &h2);
	/* whatever else is loaded, the two together stay under the cap */
	EXPECT_EQ(4, r1.created) TH_LOG("err %d %s", r1.err, r1.msg);
	EXPECT_LE(r1.created + r2.created, 6);
	EXPECT_EQ(-ENOSPC, r2.err);
	EXPECT_NE(NULL, strstr(r2.msg, "max_total_bytes")) TH_LOG("%s", r2.msg);
	/*
	 * and an unprivileged user's namespace is under it too.  Namespaces
	 * of earlier tests may have gone meanwhile (their teardown is
	 * asynchronous), so r3 may get what they held: the three together
	 * still stay under the cap.
	 */
	r3 = run_filler(NOBODY, 20, &p3, &h3);
	EXPECT_LE(r1.created + r2.created + r3.created, 6);
	EXPECT_EQ(-ENOSPC, r3.err);
	EXPECT_NE(NULL, strstr(r3.msg, "max_total_bytes")) TH_LOG("%s", r3.msg);
	end_filler(p3, h3);
	end_filler(p2, h2);
	end_filler(p1, h1);
}

/* the per-namespace cap, on both transports (the ioctl says ENOSPC) */
TEST_F(limits, netns_cap)
{
	struct kb_ioc_create c;
	struct report r;
	struct kbtn *n;
	int fd, tries, ret = -1;

	ASSERT_EQ(0, set_param("max_netns_bytes", 3 * MIB));
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	fd = kbt_open();
	ASSERT_LE(0, fd);
	c = kbt_spec("a", KB_KIND_BLOCKED, KB_KEY_BYTES, ITEMS_1MIB, 0);
	c.sizing = KB_SIZING_BPK;
	c.bits_per_key = 10;
	ASSERT_EQ(0, kbt_create_spec(fd, &c));
	n = kbtn_open();
	ASSERT_NE(NULL, n);
	fill(n, 10, &r);
	kbtn_close(n);
	EXPECT_EQ(2, r.created);
	EXPECT_EQ(-ENOSPC, r.err);
	EXPECT_NE(NULL, strstr(r.msg, "max_netns_bytes")) TH_LOG("%s", r.msg);
	kbt_name(c.name, "b");
	EXPECT_EQ(-ENOSPC, kbt_create_spec(fd, &c));
	/* a rebuild's staging copy counts as well */
	EXPECT_EQ(-ENOSPC, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	/* the destroyed filter's bytes come back once it is freed */
	ASSERT_EQ(0, kbt_destroy(fd, "f0"));
	kbt_name(c.name, "a");
	for (tries = 0; tries < 100; tries++) {
		ret = kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c);
		if (ret != -ENOSPC)
			break;
		usleep(50 * 1000);
	}
	EXPECT_EQ(0, ret);
	close(fd);
}

/* parameters are clamped to what the module can honour */
TEST_F(limits, params_clamped)
{
	ASSERT_EQ(0, set_param("max_filter_bytes", 1));
	EXPECT_EQ(64, get_param("max_filter_bytes"));
	ASSERT_EQ(0, set_param("max_filter_bytes", ~0ULL));
	/* counting filters: 2^38 counters of 4 bits */
	EXPECT_EQ(1ULL << 37, get_param("max_filter_bytes"));
	ASSERT_EQ(0, set_param("max_total_bytes", ~0ULL));
	EXPECT_EQ(1ULL << 50, get_param("max_total_bytes"));
	ASSERT_EQ(0, set_param("max_filters", ~0ULL));
	EXPECT_EQ(1ULL << 20, get_param("max_filters"));
	EXPECT_EQ(-EINVAL, kbt_param_write(PARAMS "max_netns_bytes", "lots"));
	EXPECT_EQ(-EINVAL, kbt_param_write(PARAMS "max_netns_bytes", "-1"));
}

/* the default global cap is a fraction of RAM, not unlimited */
TEST(total_default_is_half_ram)
{
	unsigned long long total = get_param("max_total_bytes");
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	unsigned long long ram = (unsigned long long)pages * psz;

	/* unless an earlier test left it changed, which the fixture undoes */
	EXPECT_LE(total, ram / 2 + MIB);
	EXPECT_GE(total, ram / 2 - ram / 8);
}

TEST_HARNESS_MAIN
