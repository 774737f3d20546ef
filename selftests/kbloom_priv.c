// SPDX-License-Identifier: GPL-2.0
/*
 * The privilege model (uapi "Privileges"): every /dev/kbloom ioctl and
 * every generic netlink command, do and dump, reads included, answers
 * EPERM to a caller without CAP_NET_ADMIN over the user namespace owning
 * the netns, changes nothing and returns nothing.  The commands are
 * enumerated from the uapi (1..KB_IOC_NR_MAX, 1..KB_CMD_MAX): a new one
 * without an entry here fails the test.  A root of its own user and
 * network namespace may do everything there (a merge included).  Grants (KB_CMD_GRANT) are
 * set with CAP_NET_ADMIN only, and only to groups the user namespace
 * owning the netns maps.
 */
#include <grp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

#define PV_SIP	"pv.sip"	/* blocked, siphash, str */
#define PV_CNT	"pv.cnt"	/* counting, xxh64, str */
#define PV_SENT	0xa5		/* sentinel of output buffers */
#define PV_IMG	(1 << 20)

enum pv_deny { PV_NOCAP, PV_NOBODY, PV_USERNS };

static int pv_fails;

#define PV_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		printf("# FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		pv_fails++;						\
	}								\
} while (0)

/* the observable state of a filter: its info and its image */
struct pv_state {
	struct kb_ioc_info info;
	long len;
	void *img;
};

static int pv_snap(int fd, const char *name, struct pv_state *st)
{
	int ret = kbt_info(fd, name, &st->info);

	if (ret)
		return ret;
	st->len = kbt_export(fd, name, 0, &st->img);
	return st->len < 0 ? (int)st->len : 0;
}

static int pv_same(int fd, const char *name, const struct pv_state *st)
{
	struct pv_state now;
	int same;

	if (pv_snap(fd, name, &now))
		return 0;
	same = !memcmp(&now.info, &st->info, sizeof(now.info)) &&
	       now.len == st->len && !memcmp(now.img, st->img, now.len);
	free(now.img);
	return same;
}

/* ---- the caller loses its right ------------------------------------- */

static int pv_deny(enum pv_deny how)
{
	switch (how) {
	case PV_NOCAP:
		return kbt_drop_net_admin();
	case PV_NOBODY:
		/* after root opened /dev/kbloom, as a daemon would */
		return setresgid(65534, 65534, 65534) ||
		       setresuid(65534, 65534, 65534);
	case PV_USERNS:
		/* every capability, but in a user namespace of its own */
		return unshare(CLONE_NEWUSER);
	}
	return -1;
}

/* ---- ioctls ------------------------------------------------------------- */

union pv_arg {
	__u32 size;
	struct kb_ioc_create c;
	struct kb_ioc_keys k;
	struct kb_ioc_image im;
	struct kb_ioc_txn t;
	struct kb_ioc_write w;
	struct kb_ioc_open o;
	struct kb_map_hdr mh;
	struct kb_ioc_merge mg;
};

static char pv_key[2] = "a";
static __u64 pv_res[1];
static struct kb_merge_range pv_range = { 0, (uintptr_t)pv_key, 1 };
static unsigned char *pv_img_in, *pv_img_out;
static long pv_img_len;

/* a valid argument for every command: it would succeed if allowed */
static unsigned long pv_ioc_arg(unsigned int nr, union pv_arg *a)
{
	memset(a, 0, sizeof(*a));
	switch (nr) {
	case _IOC_NR(KB_IOC_TXN_BEGIN):
		a->c = kbt_spec(PV_SIP, KB_KIND_BLOCKED, KB_KEY_STR, 100,
				10000000);
		a->c.hash = KB_HASH_SIPHASH;
		return KB_IOC_TXN_BEGIN;
	case _IOC_NR(KB_IOC_ADD):
	case _IOC_NR(KB_IOC_TEST):
	case _IOC_NR(KB_IOC_DEL):
	case _IOC_NR(KB_IOC_TEST_ADD):
		a->k.size = sizeof(a->k);
		kbt_name(a->k.name, PV_CNT);
		a->k.key_size = 1;
		a->k.keys = (uintptr_t)pv_key;
		a->k.keys_len = 1;
		a->k.count = 1;
		a->k.result = (uintptr_t)pv_res;
		a->k.processed = a->k.hits = a->k.err_index = 0x5a5a5a5a;
		return nr == _IOC_NR(KB_IOC_ADD) ? KB_IOC_ADD :
		       nr == _IOC_NR(KB_IOC_TEST) ? KB_IOC_TEST :
		       nr == _IOC_NR(KB_IOC_DEL) ? KB_IOC_DEL : KB_IOC_TEST_ADD;
	case _IOC_NR(KB_IOC_UPLOAD):
	case _IOC_NR(KB_IOC_EXPORT):
		a->im.size = sizeof(a->im);
		kbt_name(a->im.name, PV_SIP);
		a->im.why = 0x5a5a5a5a;
		if (nr == _IOC_NR(KB_IOC_UPLOAD)) {
			a->im.image = (uintptr_t)pv_img_in;
			a->im.image_len = pv_img_len;
			return KB_IOC_UPLOAD;
		}
		a->im.image = (uintptr_t)pv_img_out;
		a->im.image_len = PV_IMG;
		return KB_IOC_EXPORT;
	case _IOC_NR(KB_IOC_TXN_COMMIT):
	case _IOC_NR(KB_IOC_TXN_ABORT):
		a->t.size = KB_IOC_TXN_SIZE_VER1;
		return nr == _IOC_NR(KB_IOC_TXN_COMMIT) ? KB_IOC_TXN_COMMIT :
		       KB_IOC_TXN_ABORT;
	case _IOC_NR(KB_IOC_TXN_COMMIT_GEN):
		a->t.size = sizeof(a->t);	/* generation: in, 0 */
		return KB_IOC_TXN_COMMIT_GEN;
	case _IOC_NR(KB_IOC_TXN_WRITE):
		a->w.size = sizeof(a->w);
		kbt_name(a->w.name, PV_SIP);
		a->w.data = (uintptr_t)pv_key;
		a->w.len = 1;
		return KB_IOC_TXN_WRITE;
	case _IOC_NR(KB_IOC_OPEN):
		/* no grant either: EPERM, as for a filter that is not there */
		a->o.size = sizeof(a->o);
		kbt_name(a->o.name, PV_SIP);
		a->o.fd = 0x5a5a5a5a;
		return KB_IOC_OPEN;
	case _IOC_NR(KB_IOC_MAP_INFO):
		/* a filter file's command: refused here before it is known */
		a->mh.size = sizeof(a->mh);
		a->mh.state = 0x5a5a5a5a;
		return KB_IOC_MAP_INFO;
	case _IOC_NR(KB_IOC_MERGE):
		a->mg.size = sizeof(a->mg);
		kbt_name(a->mg.name, PV_SIP);
		a->mg.ranges = (uintptr_t)&pv_range;
		a->mg.nr_ranges = 1;
		a->mg.new_bits = 0x5a5a5a5a;
		a->mg.why = 0x5a5a5a5a;
		return KB_IOC_MERGE;
	}
	return 0;
}

static int pv_untouched(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != PV_SENT)
			return 0;
	return 1;
}

static void pv_ioctls(int fd)
{
	union pv_arg a, copy;
	unsigned int nr, n = 0;
	int ret;

	for (nr = 1; nr <= KB_IOC_NR_MAX; nr++) {
		unsigned long cmd;

		memset(pv_res, PV_SENT, sizeof(pv_res));
		memset(pv_img_out, PV_SENT, PV_IMG);
		cmd = pv_ioc_arg(nr, &a);

		PV_CHECK(cmd && _IOC_NR(cmd) == nr,
			 "ioctl nr %u has no entry here", nr);
		if (!cmd)
			continue;
		n++;
		copy = a;
		ret = kbt_ioc(fd, cmd, &a);
		PV_CHECK(ret == -EPERM, "ioctl nr %u: %d", nr, ret);
		PV_CHECK(!memcmp(&a, &copy, sizeof(a)),
			 "ioctl nr %u wrote its argument", nr);
		PV_CHECK(pv_untouched((unsigned char *)pv_res, sizeof(pv_res)),
			 "ioctl nr %u wrote a result", nr);
		PV_CHECK(pv_untouched(pv_img_out, PV_IMG),
			 "ioctl nr %u wrote an image", nr);
	}
	PV_CHECK(n == KB_IOC_NR_MAX, "%u of %u ioctls", n, KB_IOC_NR_MAX);
	/* unknown commands stay ENOTTY for everyone */
	memset(&a, 0, sizeof(a));
	a.size = 8;
	PV_CHECK(kbt_ioc(fd, _IOC(_IOC_WRITE, KB_IOC_MAGIC,
				  KB_IOC_NR_MAX + 1, 8), &a) == -ENOTTY,
		 "unknown nr");
	a.size = sizeof(a.c);
	PV_CHECK(kbt_ioc(fd, _IOC(_IOC_WRITE, KB_IOC_MAGIC,
				  _IOC_NR(KB_IOC_TXN_BEGIN),
				  KB_IOC_CREATE_SIZE_VER0 + 8), &a) == -ENOTTY,
		 "TXN_BEGIN with another size");
	/* and so are the control commands that left the device */
	PV_CHECK(kbt_ioc(fd, 0x4078bf01U /* CREATE */, &a) == -ENOTTY,
		 "old CREATE");
	PV_CHECK(kbt_ioc(fd, 0xc0f0bf03U /* INFO */, &a) == -ENOTTY,
		 "old INFO");
}

/* ---- generic netlink ---------------------------------------------------- */

static struct kbtn_req pv_req;

/* a valid request for cmd (dump: its dump form); 0 if cmd has none */
static int pv_nl_req(struct kbtn *n, int cmd, int dump)
{
	if (dump && cmd != KB_CMD_GET && cmd != KB_CMD_EXPORT &&
	    cmd != KB_CMD_EXCEPT_LIST)
		return 0;
	if (!dump && (cmd == KB_CMD_EXPORT || cmd == KB_CMD_EXCEPT_LIST))
		return 0;
	kbtn_init(&pv_req, n->family, cmd, dump ? NLM_F_DUMP : 0);
	switch (cmd) {
	case KB_CMD_CREATE:
		kbtn_put_str(&pv_req, KB_A_NAME, "pv.new");
		kbtn_put_u32(&pv_req, KB_A_BITS_PER_KEY, 10);
		return 1;
	case KB_CMD_GET:
		if (!dump)
			kbtn_put_str(&pv_req, KB_A_NAME, PV_SIP);
		return 1;
	case KB_CMD_DESTROY:
	case KB_CMD_FLUSH:
	case KB_CMD_EXPORT:
	case KB_CMD_EXCEPT_FLUSH:
	case KB_CMD_EXCEPT_LIST:
		kbtn_put_str(&pv_req, KB_A_NAME, PV_SIP);
		return 1;
	case KB_CMD_SWAP:
	case KB_CMD_RENAME:
		kbtn_put_str(&pv_req, KB_A_NAME, PV_SIP);
		kbtn_put_str(&pv_req, KB_A_NAME2,
			    cmd == KB_CMD_SWAP ? PV_CNT : "pv.ren");
		return 1;
	case KB_CMD_ADD:
	case KB_CMD_TEST:
	case KB_CMD_DEL:
	case KB_CMD_TEST_ADD:
	case KB_CMD_EXCEPT_ADD:
	case KB_CMD_EXCEPT_DEL:
		kbtn_put_str(&pv_req, KB_A_NAME, PV_CNT);
		kbtn_nest_start(&pv_req, KB_A_KEYS);
		kbtn_put(&pv_req, KB_KA_DATA, "a", 1);
		kbtn_nest_end(&pv_req);
		return 1;
	case KB_CMD_GRANT:
		kbtn_put_str(&pv_req, KB_A_NAME, PV_SIP);
		kbtn_put_u32(&pv_req, KB_A_READERS, 100);
		kbtn_put_u32(&pv_req, KB_A_WRITERS, 100);
		return 1;
	case KB_CMD_EVENT:	/* notifications only: no request form */
		return 2;
	}
	return 0;
}

static int pv_count_cb(struct nlmsghdr *nlh, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

static void pv_netlink(void)
{
	struct kbtn *n = kbtn_open();
	int cmd, dump, forms = 0;

	PV_CHECK(n, "netlink socket");
	if (!n)
		return;
	for (cmd = 1; cmd <= KB_CMD_MAX; cmd++) {
		int have = 0;

		for (dump = 0; dump <= 1; dump++) {
			int r = pv_nl_req(n, cmd, dump), msgs = 0, ret;

			if (!r)
				continue;
			have = 1;
			ret = kbtn_send(n, &pv_req);
			if (!ret)
				ret = kbtn_recv(n, pv_count_cb, &msgs, NULL,
					       NULL, NULL);
			/* the event command has no handler at all */
			PV_CHECK(ret == (r == 2 ? -EOPNOTSUPP : -EPERM),
				 "cmd %d dump %d: %d", cmd, dump, ret);
			PV_CHECK(!msgs, "cmd %d dump %d: %d data messages",
				 cmd, dump, msgs);
			forms++;
		}
		PV_CHECK(have, "netlink command %d has no entry here", cmd);
	}
	/* each command, GET also as a dump, EXPORT and EXCEPT_LIST as one */
	PV_CHECK(forms == KB_CMD_MAX + 1, "%d request forms", forms);
	PV_CHECK(kbtn_join(n) == -EPERM, "joined the events group");
	kbtn_close(n);
}

/* ---- grants ---------------------------------------------------------------- */

/*
 * A filter's grants as KB_CMD_GET tells them: bit 0 READERS (*r), bit 1
 * WRITERS (*w); -errno if the GET failed
 */
static int pv_grants(const char *name, __u32 *r, __u32 *w)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct kbtn *n = kbtn_open();
	int ret;

	if (!n)
		return -ENOTCONN;
	ret = kbtn_name_cmd(n, KB_CMD_GET, name);
	if (!ret && !n->reply_len)
		ret = -EPROTO;
	if (!ret) {
		kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
		if (tb[KB_A_READERS]) {
			ret |= 1;
			if (r)
				*r = kbtn_u32(tb[KB_A_READERS]);
		}
		if (tb[KB_A_WRITERS]) {
			ret |= 2;
			if (w)
				*w = kbtn_u32(tb[KB_A_WRITERS]);
		}
	}
	kbtn_close(n);
	return ret;
}

/* KB_CMD_GRANT or (create) KB_CMD_CREATE; r, w: -1 to leave out */
static int pv_grant(struct kbtn *n, int create, const char *name, long long r,
		    long long w)
{
	kbtn_init(&pv_req, n->family, create ? KB_CMD_CREATE : KB_CMD_GRANT,
		  0);
	kbtn_put_str(&pv_req, KB_A_NAME, name);
	if (create)
		kbtn_put_u32(&pv_req, KB_A_BITS_PER_KEY, 10);
	if (r >= 0)
		kbtn_put_u32(&pv_req, KB_A_READERS, (__u32)r);
	if (w >= 0)
		kbtn_put_u32(&pv_req, KB_A_WRITERS, (__u32)w);
	return kbtn_do(n, &pv_req);
}

/* ---- the tests ------------------------------------------------------------ */

FIXTURE(priv) {
	int fd;
	struct pv_state sip, cnt;
};

FIXTURE_SETUP(priv)
{
	__u64 seed[2] = { 0x1111, 0x2222 };
	struct kb_ioc_create c;

	self->fd = kbt_open();
	ASSERT_LE(0, self->fd);
	kbt_destroy(self->fd, PV_SIP);
	kbt_destroy(self->fd, PV_CNT);
	c = kbt_spec(PV_SIP, KB_KIND_BLOCKED, KB_KEY_STR, 100, 10000000);
	c.hash = KB_HASH_SIPHASH;
	c.flags = KB_CREATE_F_SEED;
	memcpy(c.seed, seed, sizeof(seed));
	ASSERT_EQ(0, kbt_create_spec(self->fd, &c));
	ASSERT_EQ(0, kbt_create(self->fd, PV_CNT, KB_KIND_COUNTING,
				KB_KEY_STR, 100));
	ASSERT_EQ(0, kbt_keys(self->fd, KB_IOC_ADD, PV_SIP, 0, "a", 1, 1,
			      NULL, NULL));
	ASSERT_EQ(0, kbt_keys(self->fd, KB_IOC_ADD, PV_CNT, 0, "a", 1, 1,
			      NULL, NULL));
	ASSERT_EQ(0, pv_snap(self->fd, PV_SIP, &self->sip));
	ASSERT_EQ(0, pv_snap(self->fd, PV_CNT, &self->cnt));
	pv_img_in = self->sip.img;
	pv_img_len = self->sip.len;
	pv_img_out = malloc(PV_IMG);
	ASSERT_NE(NULL, pv_img_out);
}

FIXTURE_TEARDOWN(priv)
{
	kbt_destroy(self->fd, PV_SIP);
	kbt_destroy(self->fd, PV_CNT);
	close(self->fd);
}

FIXTURE_VARIANT(priv) {
	enum pv_deny how;
};

FIXTURE_VARIANT_ADD(priv, no_cap_net_admin) { .how = PV_NOCAP };
FIXTURE_VARIANT_ADD(priv, nobody) { .how = PV_NOBODY };
FIXTURE_VARIANT_ADD(priv, own_userns) { .how = PV_USERNS };

/* every ioctl and netlink command: EPERM, nothing changed or returned */
TEST_F(priv, every_command_eperm)
{
	struct kb_ioc_info info;
	int status, fd;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* root's file first: its opener's rights count */
		fd = variant->how == PV_NOBODY ? kbt_open() : -1;
		if (pv_deny(variant->how))
			_exit(100);
		if (fd < 0)
			fd = kbt_open();
		PV_CHECK(fd >= 0, "open: %d", errno);
		if (fd >= 0) {
			/* as nobody the fd's opener (root) counts: allowed */
			if (variant->how == PV_NOBODY) {
				void *img = NULL;

				PV_CHECK(kbt_export(fd, PV_SIP, 0, &img) > 0,
					 "root's fd refused");
				free(img);
				close(fd);
				/*
				 * the node is 0666 (an open grants nothing):
				 * nobody's own file, every ioctl refused
				 */
				fd = kbt_open();
				PV_CHECK(fd >= 0, "nobody's open: %d", errno);
			}
			if (fd >= 0) {
				pv_ioctls(fd);
				close(fd);
			}
		}
		pv_netlink();
		fflush(stdout);
		_exit(pv_fails > 99 ? 99 : pv_fails);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_TRUE(pv_same(self->fd, PV_SIP, &self->sip));
	EXPECT_TRUE(pv_same(self->fd, PV_CNT, &self->cnt));
	EXPECT_EQ(-ENOENT, kbt_info(self->fd, "pv.new", &info));
	EXPECT_EQ(-ENOENT, kbt_info(self->fd, "pv.ren", &info));
	EXPECT_EQ(0, pv_grants(PV_SIP, NULL, NULL));
}

/* root of its own user and network namespace: everything, there only */
TEST(own_netns_root)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct kb_ioc_merge mg;
		struct kb_ioc_info info;
		unsigned char res[1];
		struct kbtn *n;
		void *img = NULL;
		__u64 bm = 0;
		long len;
		int fd;

		if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
			_exit(100);
		fd = kbt_open();
		n = kbtn_open();
		PV_CHECK(fd >= 0 && n, "open");
		if (fd < 0 || !n)
			_exit(98);
		PV_CHECK(kbt_info(fd, PV_SIP, &info) == -ENOENT,
			 "sees the init netns's filter");
		PV_CHECK(!kbt_create(fd, "un.a", KB_KIND_COUNTING, KB_KEY_STR,
				     100), "create");
		PV_CHECK(!kbt_keys(fd, KB_IOC_ADD, "un.a", 0, "x", 1, 1, NULL,
				   NULL), "ioctl add");
		PV_CHECK(!kbt_keys(fd, KB_IOC_TEST, "un.a", 0, "x", 1, 1, &bm,
				   NULL) && bm == 1, "ioctl test");
		PV_CHECK(!kbt_info(fd, "un.a", &info) && info.adds == 1,
			 "info");
		len = kbt_export(fd, "un.a", 0, &img);
		PV_CHECK(len > 0, "ioctl export");
		PV_CHECK(len > 0 && !kbt_upload(fd, "un.a", 0, img, len, NULL),
			 "ioctl upload");
		PV_CHECK(!kbt_keys(fd, KB_IOC_DEL, "un.a", 0, "x", 1, 1, NULL,
				   NULL), "ioctl del");
		PV_CHECK(!kbt_create(fd, "un.m", KB_KIND_BLOCKED, KB_KEY_STR,
				     100), "create blocked");
		memset(&mg, 0, sizeof(mg));
		mg.size = sizeof(mg);
		kbt_name(mg.name, "un.m");
		mg.ranges = (uintptr_t)&pv_range;
		mg.nr_ranges = 1;
		/* "a": 3 bits */
		PV_CHECK(!kbt_ioc(fd, KB_IOC_MERGE, &mg) && mg.new_bits == 3,
			 "ioctl merge");
		PV_CHECK(!kbt_destroy(fd, "un.m"), "destroy blocked");
		PV_CHECK(!kbt_name2(fd, KB_CMD_RENAME, "un.a", "un.b"),
			 "rename");
		PV_CHECK(!kbtn_create(n, "un.c", KB_KIND_COUNTING, KB_KEY_STR,
				     100, 0), "nl create");
		PV_CHECK(!kbtn_keys(n, KB_CMD_ADD, "un.c", "y", 1, 1, NULL,
				   NULL), "nl add");
		PV_CHECK(!kbtn_keys(n, KB_CMD_TEST, "un.c", "y", 1, 1, res,
				   NULL) && res[0] == 1, "nl test");
		PV_CHECK(!kbtn_name_cmd(n, KB_CMD_GET, "un.c"), "nl get");
		kbtn_init(&pv_req, n->family, KB_CMD_EXPORT, NLM_F_DUMP);
		kbtn_put_str(&pv_req, KB_A_NAME, "un.c");
		PV_CHECK(!kbtn_do(n, &pv_req), "nl export");
		kbtn_init(&pv_req, n->family, KB_CMD_GET, NLM_F_DUMP);
		PV_CHECK(!kbtn_do(n, &pv_req), "nl get dump");
		PV_CHECK(!kbtn_name2_cmd(n, KB_CMD_SWAP, "un.b", "un.c"),
			 "nl swap");
		PV_CHECK(!kbtn_name_cmd(n, KB_CMD_FLUSH, "un.b"), "nl flush");
		PV_CHECK(!kbtn_join(n), "join events");
		PV_CHECK(!kbtn_name_cmd(n, KB_CMD_DESTROY, "un.b"),
			 "nl destroy");
		PV_CHECK(!kbt_destroy(fd, "un.c"), "destroy");
		free(img);
		fflush(stdout);
		_exit(pv_fails > 99 ? 99 : pv_fails);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Grants in the init netns: set at create, changed one group at a time,
 * cleared with KB_GID_NONE, announced; kept by swap (each filter its own)
 * and rename; refused without a group or a filter.
 */
TEST(grants)
{
	struct kbtn *n = kbtn_open(), *ev = kbtn_open();
	char e1[KB_NAME_MAX], e2[KB_NAME_MAX];
	__u32 r = 0, w = 0;

	ASSERT_NE(NULL, n);
	ASSERT_NE(NULL, ev);
	kbtn_name_cmd(n, KB_CMD_DESTROY, "pv.g");
	kbtn_name_cmd(n, KB_CMD_DESTROY, "pv.g2");
	kbtn_name_cmd(n, KB_CMD_DESTROY, "pv.h");
	ASSERT_EQ(0, pv_grant(n, 1, "pv.g", 100, 200));
	EXPECT_EQ(3, pv_grants("pv.g", &r, &w));
	EXPECT_EQ(100, r);
	EXPECT_EQ(200, w);
	ASSERT_EQ(0, kbtn_join(ev));
	/* only the group given changes */
	EXPECT_EQ(0, pv_grant(n, 0, "pv.g", -1, 300));
	EXPECT_EQ(KB_EVENT_GRANTED, kbtn_event(ev, 2000, e1, e2));
	EXPECT_STREQ("pv.g", e1);
	EXPECT_EQ(3, pv_grants("pv.g", &r, &w));
	EXPECT_EQ(100, r);
	EXPECT_EQ(300, w);
	/* neither group, no such filter: refused, nothing changed */
	EXPECT_EQ(-EINVAL, pv_grant(n, 0, "pv.g", -1, -1));
	EXPECT_NE(NULL, strstr(n->msg, "READERS or WRITERS"));
	EXPECT_EQ(-ENOENT, pv_grant(n, 0, "pv.none", 1, -1));
	EXPECT_EQ(3, pv_grants("pv.g", &r, &w));
	EXPECT_EQ(100, r);
	/* a swap exchanges contents: each filter keeps its grants */
	ASSERT_EQ(0, pv_grant(n, 1, "pv.h", -1, -1));
	EXPECT_EQ(0, pv_grants("pv.h", NULL, NULL));
	EXPECT_EQ(0, kbtn_name2_cmd(n, KB_CMD_SWAP, "pv.g", "pv.h"));
	EXPECT_EQ(0, pv_grants("pv.h", NULL, NULL));
	EXPECT_EQ(0, kbtn_name2_cmd(n, KB_CMD_RENAME, "pv.g", "pv.g2"));
	EXPECT_EQ(3, pv_grants("pv.g2", &r, &w));
	EXPECT_EQ(100, r);
	EXPECT_EQ(300, w);
	/* KB_GID_NONE clears */
	EXPECT_EQ(0, pv_grant(n, 0, "pv.g2", KB_GID_NONE, -1));
	EXPECT_EQ(2, pv_grants("pv.g2", NULL, &w));
	EXPECT_EQ(300, w);
	EXPECT_EQ(0, pv_grant(n, 0, "pv.g2", -1, KB_GID_NONE));
	EXPECT_EQ(0, pv_grants("pv.g2", NULL, NULL));
	kbtn_name_cmd(n, KB_CMD_DESTROY, "pv.g2");
	kbtn_name_cmd(n, KB_CMD_DESTROY, "pv.h");
	kbtn_close(ev);
	kbtn_close(n);
}

/*
 * A root of its own user and network namespace grants only the groups
 * its user namespace maps, in its own gids: 7 inside is 4321 outside.
 */
TEST(grants_userns)
{
	int go[2], done[2], status, fd;
	char path[64], c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct kbtn *n;
		__u32 r = 0;

		if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
			_exit(100);
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(101);
		n = kbtn_open();
		if (!n)
			_exit(98);
		PV_CHECK(!pv_grant(n, 1, "un.g", 7, -1), "create readers 7");
		PV_CHECK(pv_grants("un.g", &r, NULL) == 1 && r == 7,
			 "get readers: %u", r);
		/* the outside gid and unmapped ones are refused */
		PV_CHECK(pv_grant(n, 0, "un.g", -1, 4321) == -EINVAL &&
			 n->offs > 0 && strstr(n->msg, "not mapped"),
			 "granted an unmapped gid: %s", n->msg);
		PV_CHECK(pv_grant(n, 0, "un.g", 0, -1) == -EINVAL,
			 "granted gid 0");
		PV_CHECK(pv_grants("un.g", &r, NULL) == 1 && r == 7,
			 "a refused grant changed the filter");
		PV_CHECK(pv_grant(n, 1, "un.h", -1, 8) == -EINVAL,
			 "created with an unmapped gid");
		PV_CHECK(pv_grants("un.h", NULL, NULL) == -ENOENT,
			 "a refused create created");
		PV_CHECK(!pv_grant(n, 0, "un.g", KB_GID_NONE, 7),
			 "move to writers");
		PV_CHECK(pv_grants("un.g", NULL, &r) == 2 && r == 7,
			 "get writers: %u", r);
		kbtn_close(n);
		fflush(stdout);
		_exit(pv_fails > 99 ? 99 : pv_fails);
	}
	/* the parent, root outside, maps the child's gid 7 to 4321 */
	ASSERT_EQ(1, read(done[0], &c, 1));
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	fd = open(path, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(10, write(fd, "7 4321 1\n", 10));
	close(fd);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* ---- a granted service ---------------------------------------------------- */

#define PV_R	4242	/* readers: a supplementary group of the service */
#define PV_W	4343	/* writers: its fsgid */

/* KB_IOC_OPEN of name on /dev/kbloom fd dev: the filter fd, or -errno */
static int pv_open(int dev, const char *name, __u32 flags)
{
	struct kb_ioc_open a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	kbt_name(a.name, name);
	return ioctl(dev, KB_IOC_OPEN, &a) < 0 ? -errno : a.fd;
}

/* the keys "a" .. "d" through a filter fd: the hits, or -errno */
static int pv_fkeys(int ffd, unsigned long cmd)
{
	struct kb_ioc_keys k;
	int ret = kbt_keys(ffd, cmd, "", 0, "abcd", 1, 4, NULL, &k);

	return ret ?: (int)k.hits;
}

/* one step of the child: tell the parent, wait for its change */
static void pv_step(int up, int down)
{
	char c = 0;

	if (write(up, &c, 1) != 1 || read(down, &c, 1) != 1)
		_exit(97);
}

/*
 * A service without capabilities, member of the readers group (a
 * supplementary group) and of the writers group (its fsgid), opens a
 * filter, tests and adds only as granted, and its filter fd answers only
 * the filter file's commands.  A grant taken back ends what the files
 * opened under it may do next (EPERM, not ENOENT, even once the filter is
 * gone); the mapping made before stays readable.
 */
TEST(granted_service)
{
	const unsigned long other[] = {
		KB_IOC_DEL, KB_IOC_UPLOAD, KB_IOC_EXPORT, KB_IOC_TXN_BEGIN,
		KB_IOC_TXN_COMMIT, KB_IOC_TXN_ABORT, KB_IOC_TXN_WRITE,
		KB_IOC_OPEN, KB_IOC_TXN_COMMIT_GEN,
	};
	int fd = kbt_open(), up[2], down[2], status;
	struct kbtn *n = kbtn_open();
	char c;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, n);
	kbt_destroy(fd, "pv.gr");
	ASSERT_EQ(0, kbt_create(fd, "pv.gr", KB_KIND_BLOCKED, KB_KEY_STR,
				1000));
	ASSERT_EQ(0, pv_grant(n, 0, "pv.gr", PV_R, PV_W));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned char buf[512];
		struct kb_map_hdr h;
		gid_t g = PV_R;
		int dev, r, w;
		unsigned int i;
		void *p;

		if (setgroups(1, &g) || setresgid(PV_W, PV_W, PV_W) ||
		    setresuid(65534, 65534, 65534))
			_exit(100);
		dev = open(KB_DEV, O_RDWR | O_CLOEXEC);
		r = pv_open(dev, "pv.gr", 0);
		w = pv_open(dev, "pv.gr", KB_OPEN_F_WRITE);
		PV_CHECK(r >= 0 && w >= 0, "open: %d %d", r, w);
		if (r < 0 || w < 0)
			_exit(98);
		PV_CHECK(pv_open(dev, "pv.none", 0) == -EPERM, "no such filter");
		PV_CHECK(pv_open(dev, PV_SIP, 0) == -EPERM, "another filter");
		PV_CHECK(pv_fkeys(w, KB_IOC_ADD) == 0, "writer adds");
		PV_CHECK(pv_fkeys(r, KB_IOC_TEST) == 4, "reader tests");
		PV_CHECK(pv_fkeys(r, KB_IOC_ADD) == -EPERM, "reader adds");
		PV_CHECK(pv_fkeys(r, KB_IOC_TEST_ADD) == -EPERM,
			 "reader tests and adds");
		for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
			memset(buf, 0, sizeof(buf));
			PV_CHECK(kbt_ioc(w, other[i], buf) == -ENOTTY,
				 "command %#lx on a filter fd", other[i]);
		}
		memset(&h, 0, sizeof(h));
		h.size = sizeof(h);
		PV_CHECK(!kbt_ioc(r, KB_IOC_MAP_INFO, &h), "map info");
		p = mmap(NULL, h.map_bytes, PROT_READ, MAP_SHARED, r, 0);
		PV_CHECK(p != MAP_FAILED, "map: %d", errno);
		if (p == MAP_FAILED)
			_exit(98);

		pv_step(up[1], down[0]);	/* writers taken back */
		PV_CHECK(pv_fkeys(w, KB_IOC_ADD) == -EPERM, "revoked writer adds");
		PV_CHECK(pv_fkeys(w, KB_IOC_TEST_ADD) == -EPERM,
			 "revoked writer tests and adds");
		PV_CHECK(pv_fkeys(w, KB_IOC_TEST) == 4, "writer, still reader");
		PV_CHECK(pv_open(dev, "pv.gr", KB_OPEN_F_WRITE) == -EPERM,
			 "revoked writer opens");

		pv_step(up[1], down[0]);	/* readers taken back */
		PV_CHECK(pv_fkeys(r, KB_IOC_TEST) == -EPERM, "revoked tests");
		PV_CHECK(pv_fkeys(w, KB_IOC_TEST) == -EPERM, "revoked tests");
		PV_CHECK(kbt_ioc(r, KB_IOC_MAP_INFO, &h) == -EPERM,
			 "revoked map info");
		PV_CHECK(mmap(NULL, h.map_bytes, PROT_READ, MAP_SHARED, r, 0) ==
			 MAP_FAILED && errno == EPERM, "revoked maps");
		PV_CHECK(pv_open(dev, "pv.gr", 0) == -EPERM, "revoked opens");
		PV_CHECK(((struct kb_map_hdr *)p)->magic == KB_MAP_MAGIC,
			 "the mapping made before");

		pv_step(up[1], down[0]);	/* destroyed */
		PV_CHECK(pv_fkeys(r, KB_IOC_TEST) == -EPERM,
			 "revoked, destroyed");
		fflush(stdout);
		_exit(pv_fails > 99 ? 99 : pv_fails);
	}
	ASSERT_EQ(1, read(up[0], &c, 1));
	EXPECT_EQ(0, pv_grant(n, 0, "pv.gr", -1, KB_GID_NONE));
	ASSERT_EQ(1, write(down[1], &c, 1));
	ASSERT_EQ(1, read(up[0], &c, 1));
	EXPECT_EQ(0, pv_grant(n, 0, "pv.gr", KB_GID_NONE, -1));
	ASSERT_EQ(1, write(down[1], &c, 1));
	ASSERT_EQ(1, read(up[0], &c, 1));
	EXPECT_EQ(0, kbt_destroy(fd, "pv.gr"));
	ASSERT_EQ(1, write(down[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	kbtn_close(n);
	close(fd);
}

TEST_HARNESS_MAIN
