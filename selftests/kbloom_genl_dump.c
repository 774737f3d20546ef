// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "kbloom": dumps (many filters, interrupted
 * dumps), chunked image exports (byte-identical to the ioctl export,
 * failing cleanly when the filter changes), the "events" multicast group
 * and network namespace isolation.
 */
#include <sched.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

#define NFILT	300

static struct kbtn_req req;

struct dump_seen {
	int count[NFILT];
	int other;
	int intr;
};

static int dump_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct dump_seen *d = arg;
	unsigned int i;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		d->intr++;
	kbtn_parse(nlh, tb, KB_A_MAX);
	if (!tb[KB_A_NAME])
		return -1;
	if (sscanf(kbtn_data(tb[KB_A_NAME]), "d.%u", &i) == 1 && i < NFILT)
		d->count[i]++;
	else
		d->other++;
	return 0;
}

static int make_many(struct kbtn *n)
{
	char name[KB_NAME_MAX];
	int i, ret;

	for (i = 0; i < NFILT; i++) {
		snprintf(name, sizeof(name), "d.%03d", i);
		ret = kbtn_create(n, name, KB_KIND_BLOCKED, KB_KEY_BYTES, 10, 0);
		if (ret)
			return ret;
	}
	return 0;
}

static void destroy_many(struct kbtn *n)
{
	char name[KB_NAME_MAX];
	int i;

	for (i = 0; i < NFILT; i++) {
		snprintf(name, sizeof(name), "d.%03d", i);
		kbtn_name_cmd(n, KB_CMD_DESTROY, name);
	}
}

TEST(dump_many)
{
	struct dump_seen *d = calloc(1, sizeof(*d));
	struct kbtn *n = kbtn_open();
	int i, nrecv = 0;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, make_many(n));
	kbtn_init(&req, n->family, KB_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, kbtn_send(n, &req));
	ASSERT_EQ(0, kbtn_recv(n, dump_cb, d, &nrecv, NULL, NULL));
	for (i = 0; i < NFILT; i++)
		EXPECT_EQ(1, d->count[i]);
	EXPECT_EQ(0, d->intr);
	/* the dump spanned several skbs */
	EXPECT_LT(2, nrecv);
	TH_LOG("%d filters in %d reads", NFILT, nrecv);
	destroy_many(n);
	kbtn_close(n);
	free(d);
}

static void between_create(void *arg)
{
	int fd = kbt_open();

	kbt_create(fd, (const char *)arg, KB_KIND_BLOCKED, KB_KEY_BYTES, 10);
	close(fd);
}

static void between_destroy(void *arg)
{
	int fd = kbt_open();

	kbt_destroy(fd, (const char *)arg);
	close(fd);
}

/* a filter created or destroyed mid-dump: NLM_F_DUMP_INTR */
TEST(dump_interrupted)
{
	struct dump_seen *d = calloc(1, sizeof(*d));
	struct kbtn *n = kbtn_open();
	int nrecv = 0;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, make_many(n));
	kbtn_init(&req, n->family, KB_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, kbtn_send(n, &req));
	ASSERT_EQ(0, kbtn_recv(n, dump_cb, d, &nrecv, between_create,
			      "d.new"));
	EXPECT_LT(1, nrecv);
	EXPECT_LT(0, d->intr);

	memset(d, 0, sizeof(*d));
	kbtn_init(&req, n->family, KB_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, kbtn_send(n, &req));
	ASSERT_EQ(0, kbtn_recv(n, dump_cb, d, &nrecv, between_destroy,
			      "d.000"));
	EXPECT_LT(0, d->intr);
	/* and an undisturbed dump is clean again */
	memset(d, 0, sizeof(*d));
	kbtn_init(&req, n->family, KB_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, kbtn_send(n, &req));
	ASSERT_EQ(0, kbtn_recv(n, dump_cb, d, &nrecv, NULL, NULL));
	EXPECT_EQ(0, d->intr);
	EXPECT_EQ(0, d->count[0]);
	EXPECT_EQ(1, d->count[1]);
	kbtn_name_cmd(n, KB_CMD_DESTROY, "d.new");
	destroy_many(n);
	kbtn_close(n);
	free(d);
}

struct image {
	unsigned char *buf;
	__u64 size;
	__u64 got;
	int msgs;
	int bad;
};

static int export_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct image *im = arg;
	__u64 size, off;
	int len;

	kbtn_parse(nlh, tb, KB_A_MAX);
	if (!tb[KB_A_IMAGE_SIZE] || !tb[KB_A_OFFSET] || !tb[KB_A_CHUNK] ||
	    !tb[KB_A_NAME]) {
		im->bad++;
		return 0;
	}
	size = kbtn_u64(tb[KB_A_IMAGE_SIZE]);
	off = kbtn_u64(tb[KB_A_OFFSET]);
	len = kbtn_len(tb[KB_A_CHUNK]);
	if (!im->buf) {
		im->size = size;
		im->buf = malloc(size);
	}
	/* in order, contiguous, within the image, bounded chunks */
	if (size != im->size || off != im->got || off + len > size ||
	    len <= 0 || len > KB_NL_CHUNK_MAX) {
		im->bad++;
		return 0;
	}
	memcpy(im->buf + off, kbtn_data(tb[KB_A_CHUNK]), len);
	im->got += len;
	im->msgs++;
	return 0;
}

static int nl_export(struct kbtn *n, const char *name, struct image *im,
		     void (*between)(void *), void *barg)
{
	memset(im, 0, sizeof(*im));
	kbtn_init(&req, n->family, KB_CMD_EXPORT, NLM_F_DUMP);
	kbtn_put_str(&req, KB_A_NAME, name);
	if (kbtn_send(n, &req))
		return -errno;
	return kbtn_recv(n, export_cb, im, NULL, between, barg);
}

static void fill(int fd, const char *name, __u64 nkeys)
{
	void *keys = kbt_keys16(1, 0, nkeys);

	kbt_keys(fd, KB_IOC_ADD, name, 0, keys, 16, nkeys, NULL, NULL);
	free(keys);
}

TEST(export_identical)
{
	static const struct { __u32 kind; __u64 items; } f[] = {
		{ KB_KIND_BLOCKED, 200000 },
		{ KB_KIND_CLASSIC, 1000 },
		{ KB_KIND_COUNTING, 20000 },
		{ KB_KIND_BLOCKED, 1 },
	};
	struct kbtn *n = kbtn_open();
	int fd = kbt_open();
	struct image im;
	unsigned int i;

	ASSERT_NE(NULL, n);
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		void *img = NULL;
		long len;

		ASSERT_EQ(0, kbt_create(fd, "x.img", f[i].kind, KB_KEY_BYTES,
					f[i].items));
		fill(fd, "x.img", f[i].items / 2 + 1);
		len = kbt_export(fd, "x.img", 0, &img);
		ASSERT_LT(0, len);
		ASSERT_EQ(0, nl_export(n, "x.img", &im, NULL, NULL));
		EXPECT_EQ(0, im.bad);
		EXPECT_EQ((__u64)len, im.size);
		EXPECT_EQ((__u64)len, im.got);
		ASSERT_NE(NULL, im.buf);
		EXPECT_EQ(0, memcmp(img, im.buf, len));
		/* every chunk is below KB_NL_CHUNK_MAX: big images take many */
		EXPECT_LE((len + KB_NL_CHUNK_MAX - 1) / KB_NL_CHUNK_MAX,
			  im.msgs);
		if (len > 100000)
			EXPECT_LT(2, im.msgs);
		TH_LOG("kind %u: %ld bytes in %d messages", f[i].kind, len,
		       im.msgs);
		free(img);
		free(im.buf);
		EXPECT_EQ(0, kbt_destroy(fd, "x.img"));
	}
	close(fd);
	kbtn_close(n);
}

static void between_add(void *arg)
{
	int fd = kbt_open();
	unsigned char key[16];
	__u64 res = 0, i;

	/* a key that is new changes the bitset */
	for (i = 0; i < 1000 && !res; i++) {
		kbt_key16(key, 99, i);
		kbt_keys(fd, KB_IOC_TEST_ADD, (const char *)arg, 0, key, 16, 1,
			 &res, NULL);
	}
	close(fd);
}

/* the filter changes mid-export: EAGAIN (ENOENT if destroyed), never a mix */
TEST(export_changed)
{
	struct kbtn *n = kbtn_open();
	int fd = kbt_open();
	struct image im;

	ASSERT_NE(NULL, n);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "x.chg", KB_KIND_BLOCKED, KB_KEY_BYTES,
				1000000));
	ASSERT_EQ(0, kbt_create(fd, "x.other", KB_KIND_BLOCKED,
				KB_KEY_BYTES, 1000000));
	EXPECT_EQ(-EAGAIN, nl_export(n, "x.chg", &im, between_add, "x.chg"));
	EXPECT_STREQ("kbloom: filter changed during export, retry", n->msg);
	free(im.buf);
	/* destroyed (no reference is held between steps): ENOENT */
	EXPECT_EQ(-ENOENT, nl_export(n, "x.chg", &im, between_destroy,
				     "x.chg"));
	EXPECT_STREQ("kbloom: filter destroyed during export", n->msg);
	free(im.buf);
	/* an undisturbed export completes */
	EXPECT_EQ(0, nl_export(n, "x.other", &im, NULL, NULL));
	free(im.buf);
	close(fd);
	fd = kbt_open();
	EXPECT_EQ(0, kbt_destroy(fd, "x.other"));
	close(fd);
	kbtn_close(n);
}

static int expect_event(struct kbtn *l, int ev, const char *name,
			const char *name2)
{
	char a[KB_NAME_MAX], b[KB_NAME_MAX];
	int got = kbtn_event(l, 2000, a, b);

	if (got != ev || strcmp(a, name) || strcmp(b, name2 ? name2 : "")) {
		fprintf(stderr, "# event %d %s %s, expected %d %s %s\n", got,
			a, b, ev, name, name2 ? name2 : "");
		return -1;
	}
	return 0;
}

TEST(events)
{
	struct kb_ioc_create c;
	struct kbtn *n, *l;
	char a[KB_NAME_MAX], b[KB_NAME_MAX];
	void *img = NULL;
	long len;
	int fd;

	/* a namespace of our own: nobody else's events */
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	n = kbtn_open();
	l = kbtn_open();
	fd = kbt_open();
	ASSERT_NE(NULL, n);
	ASSERT_NE(NULL, l);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbtn_join(l));

	ASSERT_EQ(0, kbtn_create(n, "e.a", KB_KIND_BLOCKED, KB_KEY_STR, 10, 0));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_CREATED, "e.a", NULL));
	ASSERT_EQ(0, kbtn_name2_cmd(n, KB_CMD_RENAME, "e.a", "e.b"));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_RENAMED, "e.a", "e.b"));
	ASSERT_EQ(0, kbt_create(fd, "e.c", KB_KIND_BLOCKED, KB_KEY_STR, 10));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_CREATED, "e.c", NULL));
	ASSERT_EQ(0, kbtn_name2_cmd(n, KB_CMD_SWAP, "e.b", "e.c"));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_SWAPPED, "e.b", "e.c"));
	ASSERT_EQ(0, kbtn_name_cmd(n, KB_CMD_FLUSH, "e.b"));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_FLUSHED, "e.b", NULL));
	/* failures announce nothing */
	EXPECT_EQ(-EEXIST, kbtn_create(n, "e.b", KB_KIND_BLOCKED, KB_KEY_STR,
				      10, 0));
	/* a rebuild (transaction commit) */
	c = kbt_spec("e.b", KB_KIND_BLOCKED, KB_KEY_STR, 1000, 1000000);
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_REBUILT, "e.b", NULL));
	/* an upload replacing a filter, one creating a filter */
	len = kbt_export(fd, "e.c", 0, &img);
	ASSERT_LT(0, len);
	ASSERT_EQ(0, kbt_upload(fd, "e.c", 0, img, len, NULL));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_REBUILT, "e.c", NULL));
	ASSERT_EQ(0, kbt_upload(fd, "e.d", KB_IMAGE_F_CREATE, img, len, NULL));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_CREATED, "e.d", NULL));
	free(img);
	/* a transaction creating a filter */
	c = kbt_spec("e.e", KB_KIND_BLOCKED, KB_KEY_STR, 1000, 1000000);
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_CREATED, "e.e", NULL));
	ASSERT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "e.b"));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_DESTROYED, "e.b", NULL));
	ASSERT_EQ(0, kbt_destroy(fd, "e.c"));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_DESTROYED, "e.c", NULL));
	/* key changes are not events */
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, "e.d", "k", 1, 1, NULL, NULL));
	EXPECT_EQ(0, kbtn_event(l, 200, a, b));
	kbtn_close(l);
	kbtn_close(n);
	close(fd);
}

/*
 * The add that takes a filter over its capacity is an event, once until a
 * flush, on either transport, and a warning in the kernel log that names
 * the netns.
 */
TEST(over_capacity_event)
{
	char a[KB_NAME_MAX], b[KB_NAME_MAX], cmd[160];
	unsigned char *keys = kbt_keys16(1, 0, 300);
	struct kb_ioc_create c;
	struct kbtn *n, *l;
	struct stat ns;
	int fd;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, stat("/proc/self/ns/net", &ns));
	n = kbtn_open();
	l = kbtn_open();
	fd = kbt_open();
	ASSERT_NE(NULL, n);
	ASSERT_NE(NULL, l);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbtn_join(l));
	/* capacity 100 at 1% */
	ASSERT_EQ(0, kbtn_create(n, "o.a", KB_KIND_BLOCKED, KB_KEY_BYTES, 100,
				 10000000));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_CREATED, "o.a", NULL));
	/* half full: nothing */
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, "o.a", keys, 16, 50, NULL, NULL));
	EXPECT_EQ(0, kbtn_event(l, 200, a, b));
	/* twice its capacity: one event */
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, "o.a", keys + 50 * 16, 16, 150,
			       NULL, NULL));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_OVER_CAPACITY, "o.a", NULL));
	snprintf(cmd, sizeof(cmd),
		 "dmesg | grep -q 'kbloom: netns %lu: filter o.a over its configured capacity'",
		 (unsigned long)ns.st_ino);
	EXPECT_EQ(0, system(cmd));
	/* more keys: no second event */
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, "o.a", keys + 200 * 16, 16, 100,
			       NULL, NULL));
	EXPECT_EQ(0, kbtn_event(l, 200, a, b));
	/* a flush re-arms it; over /dev/kbloom as well */
	ASSERT_EQ(0, kbtn_name_cmd(n, KB_CMD_FLUSH, "o.a"));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_FLUSHED, "o.a", NULL));
	ASSERT_EQ(0, kbt_keys(fd, KB_IOC_ADD, "o.a", 0, keys, 16, 50, NULL,
			      NULL));
	EXPECT_EQ(0, kbtn_event(l, 200, a, b));
	ASSERT_EQ(0, kbt_keys(fd, KB_IOC_ADD, "o.a", 0, keys + 50 * 16, 16, 250,
			      NULL, NULL));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_OVER_CAPACITY, "o.a", NULL));
	/* a filter sized without a capacity (--bits --hashes) never is */
	c = kbt_spec("o.b", KB_KIND_BLOCKED, KB_KEY_BYTES, 0, 0);
	c.sizing = KB_SIZING_MK;
	c.m = 512;
	c.k = 4;
	ASSERT_EQ(0, kbt_create_spec(fd, &c));
	EXPECT_EQ(0, expect_event(l, KB_EVENT_CREATED, "o.b", NULL));
	ASSERT_EQ(0, kbt_keys(fd, KB_IOC_ADD, "o.b", 0, keys, 16, 300, NULL,
			      NULL));
	EXPECT_EQ(0, kbtn_event(l, 200, a, b));
	free(keys);
	kbtn_close(l);
	kbtn_close(n);
	close(fd);
}

/* a second namespace sees neither the first's filters nor its events */
TEST(netns_isolation)
{
	struct kbtn *n1 = kbtn_open(), *l1 = kbtn_open(), *n2, *l2;
	struct dump_seen *d = calloc(1, sizeof(*d));
	char a[KB_NAME_MAX], b[KB_NAME_MAX];
	int fd;

	ASSERT_NE(NULL, n1);
	ASSERT_NE(NULL, l1);
	ASSERT_EQ(0, kbtn_join(l1));
	ASSERT_EQ(0, kbtn_create(n1, "d.001", KB_KIND_BLOCKED, KB_KEY_STR, 10,
				0));
	EXPECT_EQ(0, expect_event(l1, KB_EVENT_CREATED, "d.001", NULL));

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	n2 = kbtn_open();
	l2 = kbtn_open();
	ASSERT_NE(NULL, n2);
	ASSERT_NE(NULL, l2);
	ASSERT_EQ(0, kbtn_join(l2));
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n2, KB_CMD_GET, "d.001"));
	kbtn_init(&req, n2->family, KB_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, kbtn_send(n2, &req));
	ASSERT_EQ(0, kbtn_recv(n2, dump_cb, d, NULL, NULL, NULL));
	EXPECT_EQ(0, d->count[1]);
	EXPECT_EQ(0, d->other);

	/* the same name in both, events only in their own namespace */
	ASSERT_EQ(0, kbtn_create(n2, "d.001", KB_KIND_BLOCKED, KB_KEY_STR, 10,
				0));
	EXPECT_EQ(0, expect_event(l2, KB_EVENT_CREATED, "d.001", NULL));
	EXPECT_EQ(0, kbtn_event(l1, 300, a, b));
	ASSERT_EQ(0, kbtn_name_cmd(n1, KB_CMD_DESTROY, "d.001"));
	EXPECT_EQ(0, expect_event(l1, KB_EVENT_DESTROYED, "d.001", NULL));
	EXPECT_EQ(0, kbtn_event(l2, 300, a, b));
	/* the device follows the opener's namespace */
	fd = kbt_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, kbt_destroy(fd, "d.001"));
	EXPECT_EQ(0, expect_event(l2, KB_EVENT_DESTROYED, "d.001", NULL));
	EXPECT_EQ(0, kbtn_event(l1, 300, a, b));
	close(fd);
	kbtn_close(l2);
	kbtn_close(n2);
	kbtn_close(l1);
	kbtn_close(n1);
	free(d);
}

TEST_HARNESS_MAIN
