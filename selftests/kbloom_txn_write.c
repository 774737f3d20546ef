// SPDX-License-Identifier: GPL-2.0
/*
 * KB_IOC_TXN_WRITE: raw payload bytes streamed into a transaction (bfctl
 * redis pull), and every way it refuses: bounds, reserved fields, no
 * transaction, mixing with key batches or uploads, bits past a gozero m,
 * no CAP_NET_ADMIN.  Any failure leaves the live filter serving as it was.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "kb_test.h"

#define TW_NAME	"tw.gz"
#define TW_M	1001		/* not a multiple of 8: a padded last byte */
#define TW_LEN	126		/* ceil(TW_M / 8) */
#define TW_HDR	128

static struct kb_ioc_create tw_spec(__u32 kind, __u64 m)
{
	struct kb_ioc_create c = kbt_spec(TW_NAME, kind, KB_KEY_BYTES, 0, 0);

	c.sizing = KB_SIZING_MK;
	c.m = m;
	c.k = kind == KB_KIND_GOZERO ? 14 : 3;
	return c;
}

static int tw_begin(int fd, __u32 kind, __u64 m)
{
	struct kb_ioc_create c = tw_spec(kind, m);

	return kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c);
}

/* the live filter's payload, as exported; NULL on failure */
static unsigned char *tw_payload(int fd, long *len)
{
	void *img = NULL;
	long n = kbt_export(fd, TW_NAME, 0, &img);

	if (n < TW_HDR + 4) {
		free(img);
		return NULL;
	}
	*len = n - TW_HDR - 4;
	memmove(img, (unsigned char *)img + TW_HDR, *len);
	return img;
}

/* the same layout for -m32 (compat_ptr_ioctl converts the pointer only) */
_Static_assert(sizeof(struct kb_ioc_txn) == KB_IOC_TXN_SIZE_VER2,
	       "struct kb_ioc_txn: VER2 is 24 bytes on every ABI");

/* a live gozero filter holding a recognizable payload */
static void tw_live(struct __test_metadata *_metadata, int fd,
		    unsigned char *want)
{
	struct kb_ioc_txn t = { .size = sizeof(t) };
	struct kb_ioc_info info;
	int i;

	for (i = 0; i < TW_LEN; i++)
		want[i] = (unsigned char)(i * 7 + 3);
	want[TW_LEN - 1] = 0x80;	/* bit 1000: the last inside m */
	kbt_destroy(fd, TW_NAME);
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	ASSERT_EQ(0, kbt_txn_write(fd, TW_NAME, 0, want, TW_LEN));
	/* as bfctl's streamed pull commits (and -m32: through compat) */
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &t));
	ASSERT_EQ(0, kbt_info(fd, TW_NAME, &info));
	ASSERT_EQ(info.generation, t.generation);
}

static void tw_unchanged(struct __test_metadata *_metadata, int fd,
			 const unsigned char *want)
{
	unsigned char *now;
	long len = 0;

	now = tw_payload(fd, &len);
	ASSERT_TRUE(now != NULL);
	EXPECT_EQ(TW_LEN, len);
	EXPECT_EQ(0, memcmp(now, want, TW_LEN));
	free(now);
}

/* pieces in any order land where they are written; unwritten bytes are 0 */
TEST(pieces_make_the_payload)
{
	unsigned char want[TW_LEN], buf[TW_LEN];
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	tw_live(_metadata, fd, want);
	tw_unchanged(_metadata, fd, want);
	memset(buf, 0, sizeof(buf));
	buf[0] = 0xa5;
	buf[64] = 0x5a;
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	EXPECT_EQ(0, kbt_txn_write(fd, TW_NAME, 64, buf + 64, 10));
	EXPECT_EQ(0, kbt_txn_write(fd, TW_NAME, 0, buf, 1));
	/* empty writes at the ends are fine */
	EXPECT_EQ(0, kbt_txn_write(fd, TW_NAME, TW_LEN, buf, 0));
	EXPECT_EQ(0, kbt_txn_write(fd, TW_NAME, 0, NULL, 0));
	/* the live filter serves unchanged until commit */
	tw_unchanged(_metadata, fd, want);
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	tw_unchanged(_metadata, fd, buf);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	close(fd);
}

/* a new name is created at commit, from raw bytes alone */
TEST(creates_at_commit)
{
	unsigned char want[TW_LEN];
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	tw_live(_metadata, fd, want);
	tw_unchanged(_metadata, fd, want);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	close(fd);
}

TEST(bad_arguments_change_nothing)
{
	unsigned char want[TW_LEN], buf[2 * TW_LEN];
	struct kb_ioc_write w;
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	tw_live(_metadata, fd, want);
	memset(buf, 0xff, sizeof(buf));
	/* no transaction */
	EXPECT_EQ(-ENOENT, kbt_txn_write(fd, TW_NAME, 0, buf, 1));
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	/* offsets and lengths past the payload, overflowing sums */
	EXPECT_EQ(-EINVAL, kbt_txn_write(fd, TW_NAME, TW_LEN + 1, buf, 0));
	EXPECT_EQ(-EINVAL, kbt_txn_write(fd, TW_NAME, TW_LEN, buf, 1));
	EXPECT_EQ(-EINVAL, kbt_txn_write(fd, TW_NAME, TW_LEN - 10, buf, 11));
	EXPECT_EQ(-EINVAL, kbt_txn_write(fd, TW_NAME, 0, buf, TW_LEN + 1));
	EXPECT_EQ(-EINVAL, kbt_txn_write(fd, TW_NAME, ~0ULL, buf, 2));
	EXPECT_EQ(-EINVAL, kbt_txn_write(fd, TW_NAME, 1, buf, ~0ULL));
	/* another name than the transaction's */
	EXPECT_EQ(-EINVAL, kbt_txn_write(fd, "tw.other", 0, buf, 1));
	/* reserved fields, flags, short struct, bad name padding */
	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	kbt_name(w.name, TW_NAME);
	w.data = (uintptr_t)buf;
	w.len = 1;
	w.reserved[3] = 1;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_WRITE, &w));
	w.reserved[3] = 0;
	w.flags = 1;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_WRITE, &w));
	w.flags = 0;
	w.size = KB_IOC_WRITE_SIZE_VER0 - 8;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_WRITE, &w));
	w.size = sizeof(w);
	w.name[sizeof(w.name) - 1] = 'x';
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_WRITE, &w));
	/* a bad pointer faults */
	EXPECT_EQ(-EFAULT, kbt_txn_write(fd, TW_NAME, 0, (void *)8, 4));
	/* nothing above wrote a byte: commit publishes zeros */
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	memset(buf, 0, sizeof(buf));
	tw_unchanged(_metadata, fd, buf);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	close(fd);
}

/* bits past a gozero m are refused at commit; the old filter serves */
TEST(gozero_pad_refused_at_commit)
{
	unsigned char want[TW_LEN], buf[TW_LEN];
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	tw_live(_metadata, fd, want);
	memset(buf, 0, sizeof(buf));
	buf[TW_LEN - 1] = 0x40;		/* bit 1001: past m */
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	EXPECT_EQ(0, kbt_txn_write(fd, TW_NAME, 0, buf, TW_LEN));
	EXPECT_EQ(-EINVAL, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	/* the transaction ended with the failed commit */
	EXPECT_EQ(-ENOENT, kbt_txn(fd, KB_IOC_TXN_ABORT));
	tw_unchanged(_metadata, fd, want);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	close(fd);
}

/* a classic payload written without its trailing k byte is refused */
TEST(classic_k_byte_checked)
{
	unsigned char want[TW_LEN], buf[64 / 8 + 1];
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	tw_live(_metadata, fd, want);
	memset(buf, 0, sizeof(buf));
	/* another kind over a filter of the same key type is a rebuild */
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_CLASSIC, 64));
	EXPECT_EQ(0, kbt_txn_write(fd, TW_NAME, 0, buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	tw_unchanged(_metadata, fd, want);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	close(fd);
}

TEST(abort_leaves_old_filter)
{
	unsigned char want[TW_LEN], buf[TW_LEN];
	int fd = kbt_open(), fd2 = kbt_open();

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd2);
	tw_live(_metadata, fd, want);
	memset(buf, 0x11, sizeof(buf));
	buf[TW_LEN - 1] = 0;
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	EXPECT_EQ(0, kbt_txn_write(fd, TW_NAME, 0, buf, TW_LEN));
	EXPECT_EQ(0, kbt_txn(fd, KB_IOC_TXN_ABORT));
	EXPECT_EQ(-ENOENT, kbt_txn_write(fd, TW_NAME, 0, buf, 1));
	tw_unchanged(_metadata, fd, want);
	/* closing the file aborts too */
	ASSERT_EQ(0, tw_begin(fd2, KB_KIND_GOZERO, TW_M));
	EXPECT_EQ(0, kbt_txn_write(fd2, TW_NAME, 0, buf, TW_LEN));
	close(fd2);
	tw_unchanged(_metadata, fd, want);
	/* another file's transaction is not this one's */
	fd2 = kbt_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, tw_begin(fd2, KB_KIND_GOZERO, TW_M));
	EXPECT_EQ(-ENOENT, kbt_txn_write(fd, TW_NAME, 0, buf, 1));
	close(fd2);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	close(fd);
}

/* raw bytes and keys or uploads do not mix in one transaction */
TEST(no_mixing_with_keys_or_uploads)
{
	unsigned char want[TW_LEN], key[16] = { 1 };
	void *img = NULL;
	long len;
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	tw_live(_metadata, fd, want);
	len = kbt_export(fd, TW_NAME, 0, &img);
	ASSERT_LT(0, len);
	/* keys first, then a write */
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	EXPECT_EQ(0, kbt_keys(fd, KB_IOC_ADD, TW_NAME, KB_KEYS_F_TXN, key,
			      16, 1, NULL, NULL));
	EXPECT_EQ(-EBUSY, kbt_txn_write(fd, TW_NAME, 0, want, 1));
	EXPECT_EQ(0, kbt_txn(fd, KB_IOC_TXN_ABORT));
	/* a write, then keys or an upload */
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	EXPECT_EQ(0, kbt_txn_write(fd, TW_NAME, 0, want, 1));
	EXPECT_EQ(-EBUSY, kbt_keys(fd, KB_IOC_ADD, TW_NAME, KB_KEYS_F_TXN,
				   key, 16, 1, NULL, NULL));
	EXPECT_EQ(-EBUSY, kbt_upload(fd, TW_NAME, KB_IMAGE_F_TXN, img, len,
				     NULL));
	EXPECT_EQ(0, kbt_txn(fd, KB_IOC_TXN_ABORT));
	/* an upload, then a write */
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	EXPECT_EQ(0, kbt_upload(fd, TW_NAME, KB_IMAGE_F_TXN, img, len, NULL));
	EXPECT_EQ(-EBUSY, kbt_txn_write(fd, TW_NAME, 0, want, 1));
	EXPECT_EQ(0, kbt_txn(fd, KB_IOC_TXN_ABORT));
	tw_unchanged(_metadata, fd, want);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	free(img);
	close(fd);
}

/*
 * Without CAP_NET_ADMIN: EPERM.  The capability is the opener's (as for
 * every ioctl), so the child opens its own file after dropping it.
 */
TEST(needs_net_admin)
{
	unsigned char want[TW_LEN];
	int fd = kbt_open(), st;
	pid_t pid;

	ASSERT_LE(0, fd);
	tw_live(_metadata, fd, want);
	ASSERT_EQ(0, tw_begin(fd, KB_KIND_GOZERO, TW_M));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned char z[TW_LEN] = { 0 };
		int fd2;

		if (kbt_drop_net_admin())
			_exit(2);
		fd2 = open(KB_DEV, O_RDWR | O_CLOEXEC);
		if (fd2 < 0)
			_exit(3);
		_exit(kbt_txn_write(fd2, TW_NAME, 0, z, TW_LEN) == -EPERM ?
		      0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, kbt_txn(fd, KB_IOC_TXN_ABORT));
	tw_unchanged(_metadata, fd, want);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	close(fd);
}

/* the net key types: raw bytes carry no prefix lengths, refused */
TEST(net_key_types_refused)
{
	static const __u32 types[] = { KB_KEY_NET4, KB_KEY_NET6, KB_KEY_NET };
	unsigned char b = 0;
	unsigned int i;
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct kb_ioc_create c = tw_spec(KB_KIND_GOZERO, TW_M);

		c.key_type = types[i];
		ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
		EXPECT_EQ(-EINVAL, kbt_txn_write(fd, TW_NAME, 0, &b, 1));
		EXPECT_EQ(0, kbt_txn(fd, KB_IOC_TXN_ABORT));
	}
	close(fd);
}

/*
 * A write stalled in its second chunk (its source's second MiB is a
 * userfaultfd range nobody serves yet): another thread's commit and
 * begin answer EBUSY, so the half-written payload never goes live; once
 * the write ends the commit publishes all of it.
 */
#define TW_BIG_LEN	((2U << 20) + 8)	/* three chunks of 1 MiB */

struct tw_stall {
	int fd;
	unsigned char *src;
	int ret;
};

static void *tw_stall_write(void *arg)
{
	struct tw_stall *w = arg;

	w->ret = kbt_txn_write(w->fd, TW_NAME, 0, w->src, TW_BIG_LEN);
	return NULL;
}

TEST(commit_waits_for_a_write)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_copy cp;
	struct tw_stall w;
	struct pollfd p;
	struct uffd_msg msg;
	struct kb_ioc_create c = tw_spec(KB_KIND_GOZERO, 8ULL * TW_BIG_LEN);
	size_t maplen = 3U << 20;
	unsigned char *page, *now = NULL;
	long len = 0, pg = sysconf(_SC_PAGESIZE);
	pthread_t th;
	size_t off;
	int fd = kbt_open(), uffd;

	ASSERT_LE(0, fd);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 && errno == ENOSYS)
		SKIP(return, "no userfaultfd in this kernel");
	ASSERT_LE(0, uffd);
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	w.src = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(w.src != MAP_FAILED);
	/*
	 * 4 KiB pages: a transparent huge page faulted in by the memset
	 * would populate part of the range registered below, and the write
	 * would not stall where it must.  A kernel built without THP
	 * (Debian's PREEMPT_RT) has no huge pages to refuse: EINVAL.
	 */
	if (madvise(w.src, maplen, MADV_NOHUGEPAGE))
		ASSERT_EQ(EINVAL, errno);
	memset(w.src, 0x5a, 1U << 20);	/* the first chunk is there */
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)w.src + (1U << 20);
	reg.range.len = maplen - (1U << 20);
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	kbt_destroy(fd, TW_NAME);
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	w.fd = fd;
	w.ret = 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, tw_stall_write, &w));
	p.fd = uffd;
	p.events = POLLIN;
	ASSERT_EQ(1, poll(&p, 1, 20000));	/* stalled in chunk two */
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));

	EXPECT_EQ(-EBUSY, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(-EBUSY, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	EXPECT_EQ(-ENOENT, kbt_destroy(fd, TW_NAME));	/* nothing live */

	/* serve the rest: 0x5a pages, the last byte's pad bits zero */
	page = malloc(pg);
	ASSERT_TRUE(page != NULL);
	memset(page, 0x5a, pg);
	for (off = 1U << 20; off < maplen; off += pg) {
		memset(&cp, 0, sizeof(cp));
		cp.dst = (uintptr_t)w.src + off;
		cp.src = (uintptr_t)page;
		cp.len = pg;
		if (ioctl(uffd, UFFDIO_COPY, &cp) && errno != EEXIST)
			break;
	}
	free(page);
	pthread_join(th, NULL);
	EXPECT_EQ(0, w.ret);
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	now = tw_payload(fd, &len);
	ASSERT_TRUE(now != NULL);
	EXPECT_EQ(TW_BIG_LEN, len);
	for (off = 0; off < (size_t)len && now[off] == 0x5a; off++)
		;
	EXPECT_EQ(TW_BIG_LEN, off);	/* every byte, none torn */
	free(now);
	EXPECT_EQ(0, kbt_destroy(fd, TW_NAME));
	close(uffd);
	munmap(w.src, maplen);
	close(fd);
}

TEST_HARNESS_MAIN
