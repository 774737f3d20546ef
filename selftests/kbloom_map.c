// SPDX-License-Identifier: GPL-2.0
/*
 * The file of one filter (uapi section 3, "A file per filter"): KB_IOC_OPEN
 * by name and id and who may, the batches and KB_IOC_MAP_INFO on it, the
 * read-only mapping (header page, live payload, refusals, fork, SIGBUS),
 * poll() and the mapping's state across rebuild, swap, upload, flush and
 * destroy under reading threads, and the memory a mapping holds: charged
 * to max_netns_bytes while held, VmallocUsed back once it goes.  Each test
 * works in a network namespace of its own.  Also built -m32.
 */
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "kselftest_harness.h"
#include "kb_test.h"

#define PG		4096UL
#define PARAM_NETNS	"/sys/module/kbloom/parameters/max_netns_bytes"
/* bits per key 10 over this many items is exactly 1 MiB of blocked payload */
#define ITEMS_1MIB	838860
#define SEED		0x5eed1234abcdULL
#define EXPECT_MAPFAIL(call)	EXPECT_TRUE((call) == MAP_FAILED)

/* KB_IOC_OPEN: the new fd or -errno; *out (may be NULL) the argument after */
static int fo_open(int dev, const char *name, __u64 id, __u32 flags,
		   struct kb_ioc_open *out)
{
	struct kb_ioc_open a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	if (name)
		kbt_name(a.name, name);
	a.id = id;
	a.fd = -7;
	ret = ioctl(dev, KB_IOC_OPEN, &a);
	if (out)
		*out = a;
	return ret < 0 ? -errno : ret;
}

static int fo_info(int ffd, struct kb_map_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->size = sizeof(*h);
	return kbt_ioc(ffd, KB_IOC_MAP_INFO, h);
}

static unsigned char *fo_map(int ffd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, ffd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static const struct kb_map_hdr *fo_hdr(const unsigned char *p)
{
	return (const struct kb_map_hdr *)p;
}

/* a blocked filter of 16-byte keys with a fixed seed (rebuilds match it) */
static struct kb_ioc_create fo_spec(const char *name, __u64 items)
{
	struct kb_ioc_create c = kbt_spec(name, KB_KIND_BLOCKED, KB_KEY_BYTES,
					  items, 10000000);

	c.flags = KB_CREATE_F_SEED;
	c.seed[0] = SEED;
	return c;
}

/* keys first..first+n-1 (16 bytes each) through fd (name "" on a filter fd) */
static int fo_keys(int fd, unsigned long cmd, const char *name, __u32 flags,
		   __u64 first, __u64 n, struct kb_ioc_keys *k)
{
	void *keys = kbt_keys16(4, first, n);
	int ret = kbt_keys(fd, cmd, name, flags, keys, 16, n, NULL, k);

	free(keys);
	return ret;
}

/* a rebuild of name with the same spec and keys 0..n-1 */
static int fo_rebuild(int dev, const char *name, __u64 items, __u64 n)
{
	struct kb_ioc_create c = fo_spec(name, items);
	int ret = kbt_ioc(dev, KB_IOC_TXN_BEGIN, &c);

	if (ret)
		return ret;
	ret = fo_keys(dev, KB_IOC_ADD, name, KB_KEYS_F_TXN, 0, n, NULL);
	if (ret) {
		kbt_txn(dev, KB_IOC_TXN_ABORT);
		return ret;
	}
	return kbt_txn(dev, KB_IOC_TXN_COMMIT);
}

/* fn(p) in a child: the signal it died of, 0 if it exited 0, -1 else */
static int fo_child(void (*fn)(volatile unsigned char *), unsigned char *p)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		fn(p);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -2;
	return WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st) ? -1 : 0;
}

static void fo_write0(volatile unsigned char *p)
{
	p[0] = 1;
}

static void fo_write_payload(volatile unsigned char *p)
{
	p[PG] = 1;
}

static void fo_read(volatile unsigned char *p)
{
	if (fo_hdr((unsigned char *)p)->magic != KB_MAP_MAGIC)
		_exit(3);
	(void)p[PG];
}

static __u64 fo_map_bytes;

static void fo_read_past(volatile unsigned char *p)
{
	(void)p[fo_map_bytes];
}

static void fo_read_last(volatile unsigned char *p)
{
	(void)p[fo_map_bytes - 1];
}

/* KB_CMD_EXCEPT_ADD of one key, or KB_CMD_EXCEPT_FLUSH, on filter n4 */
static int fo_except(const void *key, int len, __u8 cmd)
{
	struct kbtn *n = kbtn_open();
	struct kbtn_req *q = malloc(sizeof(*q));
	int ret;

	if (!n || !q)
		return -ENOMEM;
	kbtn_init(q, n->family, cmd, 0);
	kbtn_put_str(q, KB_A_NAME, "n4");
	if (key) {
		kbtn_nest_start(q, KB_A_KEYS);
		kbtn_put(q, KB_KA_DATA, key, len);
		kbtn_nest_end(q);
	}
	ret = kbtn_do(n, q);
	free(q);
	kbtn_close(n);
	return ret;
}

/* poll()'s revents after at most ms */
static int fo_poll(int ffd, int ms)
{
	struct pollfd pf = { .fd = ffd, .events = POLLIN | POLLPRI };

	return poll(&pf, 1, ms) == 1 ? pf.revents : 0;
}

/* VmallocUsed of /proc/meminfo, kB */
static long fo_vmalloc_kb(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmallocUsed: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

FIXTURE(map) {
	int fd;
	char netns_bytes[32];
};

FIXTURE_SETUP(map)
{
	struct kb_ioc_create c = fo_spec("m", 20000);

	ASSERT_EQ(0, kbt_param_read(PARAM_NETNS, self->netns_bytes,
				    sizeof(self->netns_bytes)));
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	self->fd = kbt_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, kbt_create_spec(self->fd, &c));
	ASSERT_EQ(0, fo_keys(self->fd, KB_IOC_ADD, "m", 0, 0, 1000, NULL));
}

FIXTURE_TEARDOWN(map)
{
	kbt_param_write(PARAM_NETNS, self->netns_bytes);
}

TEST_F(map, open_by_name_and_id)
{
	struct kb_ioc_open a;
	struct kb_ioc_info i;
	struct kb_ioc_keys k;
	struct kb_map_hdr h;
	char buf[256] = {};
	int r, w;

	ASSERT_EQ(0, kbt_info(self->fd, "m", &i));
	r = fo_open(self->fd, "m", 0, 0, &a);
	ASSERT_LE(0, r);
	EXPECT_EQ(r, a.fd);
	EXPECT_TRUE(fcntl(r, F_GETFD) & FD_CLOEXEC);
	w = fo_open(self->fd, NULL, i.id, KB_OPEN_F_WRITE, NULL);
	ASSERT_LE(0, w);
	ASSERT_EQ(0, fo_info(r, &h));
	EXPECT_EQ(i.id, h.id);
	EXPECT_EQ(0, h.flags);
	ASSERT_EQ(0, fo_info(w, &h));
	EXPECT_EQ(i.id, h.id);
	EXPECT_EQ(KB_OPEN_F_WRITE, h.flags);
	/* an admin learns what does not exist; malformed asks are EINVAL */
	EXPECT_EQ(-ENOENT, fo_open(self->fd, "nope", 0, 0, NULL));
	EXPECT_EQ(-ENOENT, fo_open(self->fd, NULL, i.id + 1000, 0, NULL));
	EXPECT_EQ(-EINVAL, fo_open(self->fd, "m", 0, 2, NULL));
	EXPECT_EQ(-EINVAL, fo_open(self->fd, "m", i.id, 0, NULL));
	EXPECT_EQ(-EINVAL, fo_open(self->fd, NULL, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, fo_open(self->fd, "a b", 0, 0, NULL));
	/* the filter file's commands only */
	EXPECT_EQ(-ENOTTY, kbt_ioc(r, KB_IOC_DEL, buf));
	EXPECT_EQ(-ENOTTY, kbt_ioc(r, KB_IOC_UPLOAD, buf));
	EXPECT_EQ(-ENOTTY, kbt_ioc(r, KB_IOC_EXPORT, buf));
	EXPECT_EQ(-ENOTTY, kbt_ioc(r, KB_IOC_OPEN, buf));
	EXPECT_EQ(-ENOTTY, kbt_ioc(w, KB_IOC_TXN_BEGIN, buf));
	EXPECT_EQ(-ENOTTY, kbt_ioc(self->fd, KB_IOC_MAP_INFO, &h));
	/* readers test; only writers add */
	EXPECT_EQ(0, fo_keys(r, KB_IOC_TEST, "", 0, 0, 1000, &k));
	EXPECT_EQ(1000, k.hits);
	EXPECT_EQ(-EPERM, fo_keys(r, KB_IOC_ADD, "", 0, 5000, 10, NULL));
	EXPECT_EQ(-EPERM, fo_keys(r, KB_IOC_TEST_ADD, "", 0, 5000, 10, NULL));
	EXPECT_EQ(-EINVAL, fo_keys(r, KB_IOC_TEST, "m", 0, 0, 1, NULL));
	EXPECT_EQ(-EINVAL, fo_keys(w, KB_IOC_ADD, "", KB_KEYS_F_TXN, 0, 1,
				   NULL));
	EXPECT_EQ(0, fo_keys(w, KB_IOC_ADD, "", 0, 5000, 10, NULL));
	EXPECT_EQ(0, fo_keys(self->fd, KB_IOC_TEST, "m", 0, 5000, 10, &k));
	EXPECT_EQ(10, k.hits);
	EXPECT_EQ(0, fo_keys(w, KB_IOC_TEST_ADD, "", 0, 5005, 10, &k));
	EXPECT_LE(5, k.hits);
	/* the fd follows the filter across a rename */
	ASSERT_EQ(0, kbt_name2(self->fd, KB_CMD_RENAME, "m", "m.new"));
	EXPECT_EQ(0, fo_keys(r, KB_IOC_TEST, "", 0, 0, 10, &k));
	EXPECT_EQ(10, k.hits);
	EXPECT_EQ(0, fo_info(r, &h));
	close(r);
	close(w);
}

/*
 * Without CAP_NET_ADMIN (root without it, then nobody) and without a grant,
 * EPERM whether the filter exists or not, and nothing written back.
 */
TEST_F(map, unprivileged_eperm)
{
	struct kb_ioc_info i;
	pid_t pid;
	int st;

	ASSERT_EQ(0, kbt_info(self->fd, "m", &i));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct kb_ioc_open a;
		int pass, dev, bad = 0;

		for (pass = 0; pass < 2; pass++) {
			if (pass == 0 && kbt_drop_net_admin())
				_exit(90);
			if (pass == 1 && (setresgid(65534, 65534, 65534) ||
					  setresuid(65534, 65534, 65534)))
				_exit(91);
			/* judged on the opener's credentials */
			dev = open(KB_DEV, O_RDWR | O_CLOEXEC);
			if (dev < 0)
				_exit(92 + pass);
			bad |= fo_open(dev, "m", 0, 0, &a) != -EPERM;
			bad |= (a.fd != -7) << 1;
			bad |= (fo_open(dev, "nope", 0, 0, &a) != -EPERM) << 2;
			bad |= (fo_open(dev, NULL, i.id, 0, &a) != -EPERM) << 3;
			bad |= (fo_open(dev, "m", 0, KB_OPEN_F_WRITE, &a) !=
				-EPERM) << 4;
			bad |= (a.fd != -7) << 5;
			close(dev);
			if (bad)
				_exit(bad + pass * 64);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/* page 0 says what MAP_INFO and GET say; the rest is EXPORT's payload */
TEST_F(map, header_and_payload)
{
	unsigned char *p, *first;
	struct kb_ioc_info i;
	struct kb_map_hdr h;
	__u8 net[5] = { 10, 0, 0, 0, 8 };
	__u8 exc[5] = { 10, 1, 0, 0, 16 };
	void *img = NULL;
	long len;
	int r, w;

	ASSERT_EQ(0, kbt_info(self->fd, "m", &i));
	r = fo_open(self->fd, "m", 0, 0, NULL);
	ASSERT_LE(0, r);
	ASSERT_EQ(0, fo_info(r, &h));
	EXPECT_EQ(sizeof(h), h.size);
	EXPECT_EQ(KB_MAP_MAGIC, h.magic);
	EXPECT_EQ(KB_MAP_VERSION, h.version);
	EXPECT_EQ(KB_MAP_LIVE, h.state);
	EXPECT_EQ(i.generation, h.generation);
	EXPECT_EQ(i.id, h.id);
	EXPECT_EQ(i.kind, h.kind);
	EXPECT_EQ(i.key_type, h.key_type);
	EXPECT_EQ(i.hash, h.hash);
	EXPECT_EQ(i.k, h.k);
	EXPECT_EQ(i.m, h.m);
	EXPECT_EQ(i.items, h.items);
	EXPECT_EQ(i.fpr_ppb, h.fpr_ppb);
	EXPECT_EQ(i.prefixes, h.prefixes);
	EXPECT_EQ(SEED, h.seed[0]);
	EXPECT_EQ(i.seed[1], h.seed[1]);
	EXPECT_EQ(KB_MAP_PAYLOAD_OFFSET, h.payload_offset);
	EXPECT_EQ(i.bytes, h.payload_bytes);
	EXPECT_EQ(PG + (i.bytes + PG - 1) / PG * PG, h.map_bytes);
	EXPECT_EQ(0, h.exceptions);
	p = fo_map(r, h.map_bytes);
	ASSERT_TRUE(p != NULL);
	EXPECT_EQ(0, memcmp(p, &h, sizeof(h)));
	len = kbt_export(self->fd, "m", 0, &img);
	ASSERT_LT(128, len);
	ASSERT_EQ(h.payload_bytes, ((struct kb_image_hdr *)img)->payload_len);
	EXPECT_EQ(0, memcmp(p + PG, (char *)img + 128, h.payload_bytes));
	free(img);
	/* past the payload, the last page is zero */
	EXPECT_EQ(0, h.map_bytes - PG - h.payload_bytes ? p[h.map_bytes - 1] :
		  0);
	first = malloc(h.payload_bytes);
	ASSERT_TRUE(first != NULL);
	memcpy(first, p + PG, h.payload_bytes);
	/* adds (here through a writer's fd) show at once */
	w = fo_open(self->fd, "m", 0, KB_OPEN_F_WRITE, NULL);
	ASSERT_LE(0, w);
	ASSERT_EQ(0, fo_keys(w, KB_IOC_ADD, "", 0, 1000, 1000, NULL));
	EXPECT_NE(0, memcmp(p + PG, first, h.payload_bytes));
	len = kbt_export(self->fd, "m", 0, &img);
	ASSERT_LT(128, len);
	EXPECT_EQ(0, memcmp(p + PG, (char *)img + 128, h.payload_bytes));
	free(img);
	free(first);
	EXPECT_EQ(KB_MAP_LIVE, fo_hdr(p)->state);
	munmap(p, h.map_bytes);
	close(w);
	close(r);

	/* a net filter's prefix lengths and exceptions change while live */
	ASSERT_EQ(0, kbt_create(self->fd, "n4", KB_KIND_BLOCKED, KB_KEY_NET4,
				1000));
	r = fo_open(self->fd, "n4", 0, 0, NULL);
	ASSERT_LE(0, r);
	ASSERT_EQ(0, fo_info(r, &h));
	p = fo_map(r, h.map_bytes);
	ASSERT_TRUE(p != NULL);
	EXPECT_EQ(0, fo_hdr(p)->plen4);
	ASSERT_EQ(0, kbt_keys(self->fd, KB_IOC_ADD, "n4", 0, net, 5, 1, NULL,
			      NULL));
	EXPECT_EQ(1ULL << 8, fo_hdr(p)->plen4);
	EXPECT_EQ(1, fo_hdr(p)->prefixes);
	EXPECT_EQ(0, fo_except(exc, 5, KB_CMD_EXCEPT_ADD));
	EXPECT_EQ(1, fo_hdr(p)->exceptions);
	EXPECT_EQ(0, fo_except(NULL, 0, KB_CMD_EXCEPT_FLUSH));
	EXPECT_EQ(0, fo_hdr(p)->exceptions);
	EXPECT_EQ(KB_MAP_LIVE, fo_hdr(p)->state);
	munmap(p, h.map_bytes);
	close(r);
}

TEST_F(map, refusals)
{
	struct kb_map_hdr h;
	unsigned char *p;
	void *q;
	int r;

	r = fo_open(self->fd, "m", 0, KB_OPEN_F_WRITE, NULL);
	ASSERT_LE(0, r);
	ASSERT_EQ(0, fo_info(r, &h));
	/* writers too: the mapping is never writable nor executable */
	EXPECT_MAPFAIL(mmap(NULL, h.map_bytes, PROT_READ | PROT_WRITE,
				   MAP_SHARED, r, 0));
	EXPECT_MAPFAIL(mmap(NULL, h.map_bytes, PROT_READ | PROT_EXEC,
				   MAP_SHARED, r, 0));
	EXPECT_MAPFAIL(mmap(NULL, h.map_bytes, PROT_READ, MAP_PRIVATE,
				   r, 0));
	EXPECT_MAPFAIL(mmap(NULL, h.map_bytes, PROT_READ, MAP_SHARED,
				   r, PG));
	p = fo_map(r, h.map_bytes);
	ASSERT_TRUE(p != NULL);
	EXPECT_EQ(-1, mprotect(p, h.map_bytes, PROT_READ | PROT_WRITE));
	EXPECT_EQ(-1, mprotect(p, PG, PROT_READ | PROT_EXEC));
	EXPECT_MAPFAIL(mremap(p, h.map_bytes, h.map_bytes + PG, 0));
	EXPECT_MAPFAIL(mremap(p, h.map_bytes, h.map_bytes + PG,
				     MREMAP_MAYMOVE));
	EXPECT_EQ(SIGSEGV, fo_child(fo_write0, p));
	EXPECT_EQ(SIGSEGV, fo_child(fo_write_payload, p));
	EXPECT_EQ(KB_MAP_MAGIC, fo_hdr(p)->magic);
	munmap(p, h.map_bytes);
	/* a longer mapping: the pages past map_bytes are SIGBUS */
	q = mmap(NULL, h.map_bytes + 2 * PG, PROT_READ, MAP_SHARED, r, 0);
	ASSERT_TRUE(q != MAP_FAILED);
	fo_map_bytes = h.map_bytes;
	EXPECT_EQ(0, fo_child(fo_read_last, q));
	EXPECT_EQ(SIGBUS, fo_child(fo_read_past, q));
	munmap(q, h.map_bytes + 2 * PG);
	close(r);
}

TEST_F(map, fork_child_reads)
{
	struct kb_map_hdr h;
	unsigned char *p, *copy;
	pid_t pid;
	int r, st;

	r = fo_open(self->fd, "m", 0, 0, NULL);
	ASSERT_LE(0, r);
	ASSERT_EQ(0, fo_info(r, &h));
	p = fo_map(r, h.map_bytes);
	ASSERT_TRUE(p != NULL);
	copy = malloc(h.map_bytes);
	ASSERT_TRUE(copy != NULL);
	memcpy(copy, p, h.map_bytes);
	close(r);	/* the mapping outlives the fd */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(memcmp(p, copy, h.map_bytes) ? 1 :
		      fo_hdr(p)->magic != KB_MAP_MAGIC ? 2 : 0);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, fo_child(fo_read, p));
	munmap(p, h.map_bytes);
	free(copy);
}

/* ---- rebuilds under readers --------------------------------------------- */

#define FO_MAPS		8
#define FO_THREADS	4

struct fo_readers {
	_Atomic(unsigned char *) cur;	/* the mapping threads read */
	atomic_int stop;
	atomic_long rounds[FO_THREADS];
	atomic_int bad;
	__u64 map_bytes;
};

static struct fo_readers fo_r;

static void *fo_reader(void *arg)
{
	long t = (long)arg;

	while (!atomic_load(&fo_r.stop)) {
		const unsigned char *p = atomic_load(&fo_r.cur);
		const volatile __u64 *w = (const __u64 *)(p + PG);
		__u32 st = ((const volatile struct kb_map_hdr *)p)->state;
		__u64 i, x = 0;

		if (((const struct kb_map_hdr *)p)->magic != KB_MAP_MAGIC ||
		    st < KB_MAP_LIVE || st > KB_MAP_DESTROYED)
			atomic_store(&fo_r.bad, 1);
		for (i = 0; i < (fo_r.map_bytes - PG) / 8; i++)
			x ^= w[i];
		(void)x;
		atomic_fetch_add(&fo_r.rounds[t], 1);
	}
	return NULL;
}

/* every bit the old payload set is set in the new one */
static int fo_superset(const unsigned char *old, const unsigned char *new,
		       __u64 bytes)
{
	const __u64 *o = (const __u64 *)old, *n = (const __u64 *)new;
	__u64 i;

	for (i = 0; i < bytes / 8; i++)
		if (o[i] & ~n[i])
			return 0;
	return 1;
}

TEST_F(map, rebuild_under_readers)
{
	struct kb_ioc_create c = fo_spec("m2", 20000);
	unsigned char *maps[FO_MAPS];
	pthread_t th[FO_THREADS];
	struct kb_ioc_info i;
	struct kb_map_hdr h;
	int r, r0, nmaps = 0, t, ev;
	__u64 bytes, gen;
	void *img = NULL;
	long len;

	ASSERT_EQ(0, kbt_create_spec(self->fd, &c));
	ASSERT_EQ(0, fo_keys(self->fd, KB_IOC_ADD, "m2", 0, 0, 3000, NULL));
	r = fo_open(self->fd, "m", 0, 0, NULL);
	ASSERT_LE(0, r);
	r0 = fo_open(self->fd, "m", 0, 0, NULL);	/* never maps */
	ASSERT_LE(0, r0);
	ASSERT_EQ(0, fo_info(r, &h));
	bytes = h.payload_bytes;
	fo_r.map_bytes = h.map_bytes;
	maps[nmaps] = fo_map(r, h.map_bytes);
	ASSERT_TRUE(maps[nmaps] != NULL);
	atomic_store(&fo_r.cur, maps[nmaps++]);
	EXPECT_EQ(0, fo_poll(r, 0));
	EXPECT_EQ(0, fo_poll(r0, 0));
	for (t = 0; t < FO_THREADS; t++)
		ASSERT_EQ(0, pthread_create(&th[t], NULL, fo_reader,
					    (void *)(long)t));

	/* 1: a rebuild (transaction) with keys 0..1999 of the same seed */
	ASSERT_EQ(0, fo_rebuild(self->fd, "m", 20000, 2000));
	ev = fo_poll(r, 5000);
	EXPECT_TRUE((ev & POLLIN) && (ev & POLLPRI)) TH_LOG("revents %x", ev);
	EXPECT_TRUE(fo_poll(r0, 5000) & POLLIN);	/* the one at open */
	EXPECT_EQ(KB_MAP_REPLACED, fo_hdr(maps[nmaps - 1])->state);
	maps[nmaps] = fo_map(r, h.map_bytes);
	ASSERT_TRUE(maps[nmaps] != NULL);
	ASSERT_EQ(0, kbt_info(self->fd, "m", &i));
	EXPECT_EQ(KB_MAP_LIVE, fo_hdr(maps[nmaps])->state);
	EXPECT_EQ(i.generation, fo_hdr(maps[nmaps])->generation);
	EXPECT_NE(fo_hdr(maps[0])->generation, i.generation);
	EXPECT_TRUE(fo_superset(maps[nmaps - 1] + PG, maps[nmaps] + PG, bytes));
	atomic_store(&fo_r.cur, maps[nmaps++]);
	EXPECT_EQ(0, fo_poll(r, 0));

	/* 2: a swap with m2 (keys 0..2999): m serves m2's generation */
	ASSERT_EQ(0, kbt_name2(self->fd, KB_CMD_SWAP, "m", "m2"));
	EXPECT_TRUE(fo_poll(r, 5000) & POLLPRI);
	EXPECT_EQ(KB_MAP_REPLACED, fo_hdr(maps[nmaps - 1])->state);
	maps[nmaps] = fo_map(r, h.map_bytes);
	ASSERT_TRUE(maps[nmaps] != NULL);
	ASSERT_EQ(0, kbt_info(self->fd, "m", &i));
	EXPECT_EQ(i.id, fo_hdr(maps[nmaps])->id);
	EXPECT_EQ(i.generation, fo_hdr(maps[nmaps])->generation);
	EXPECT_TRUE(fo_superset(maps[nmaps - 1] + PG, maps[nmaps] + PG, bytes));
	atomic_store(&fo_r.cur, maps[nmaps++]);
	EXPECT_EQ(0, fo_poll(r, 0));

	/* 3: an upload of its own image: the same bits, a new generation */
	len = kbt_export(self->fd, "m", 0, &img);
	ASSERT_LT(128, len);
	ASSERT_EQ(0, kbt_upload(self->fd, "m", 0, img, len, NULL));
	free(img);
	EXPECT_TRUE(fo_poll(r, 5000) & POLLIN);
	EXPECT_EQ(KB_MAP_REPLACED, fo_hdr(maps[nmaps - 1])->state);
	maps[nmaps] = fo_map(r, h.map_bytes);
	ASSERT_TRUE(maps[nmaps] != NULL);
	EXPECT_EQ(0, memcmp(maps[nmaps - 1] + PG, maps[nmaps] + PG, bytes));
	EXPECT_NE(fo_hdr(maps[nmaps - 1])->generation,
		  fo_hdr(maps[nmaps])->generation);
	atomic_store(&fo_r.cur, maps[nmaps++]);
	EXPECT_EQ(0, fo_poll(r, 0));

	/* 4: a flush clears in place and starts a new generation */
	gen = fo_hdr(maps[nmaps - 1])->generation;
	ASSERT_EQ(0, kbt_name_cmd(self->fd, KB_CMD_FLUSH, "m"));
	EXPECT_TRUE(fo_poll(r, 5000) & POLLIN);
	EXPECT_EQ(KB_MAP_REPLACED, fo_hdr(maps[nmaps - 1])->state);
	maps[nmaps] = fo_map(r, h.map_bytes);
	ASSERT_TRUE(maps[nmaps] != NULL);
	EXPECT_EQ(KB_MAP_LIVE, fo_hdr(maps[nmaps])->state);
	EXPECT_NE(gen, fo_hdr(maps[nmaps])->generation);
	ASSERT_EQ(0, kbt_info(self->fd, "m", &i));
	EXPECT_EQ(i.generation, fo_hdr(maps[nmaps])->generation);
	EXPECT_EQ(0, i.bits_set);
	atomic_store(&fo_r.cur, maps[nmaps++]);
	EXPECT_EQ(0, fo_poll(r, 0));

	/* 5: destroy works with the fd open; the fd then answers ENOENT */
	ASSERT_EQ(0, kbt_destroy(self->fd, "m"));
	ev = fo_poll(r, 5000);
	EXPECT_TRUE((ev & POLLHUP) && (ev & POLLIN)) TH_LOG("revents %x", ev);
	EXPECT_EQ(KB_MAP_DESTROYED, fo_hdr(maps[nmaps - 1])->state);
	EXPECT_EQ(-ENOENT, fo_keys(r, KB_IOC_TEST, "", 0, 0, 1, NULL));
	EXPECT_EQ(-ENOENT, fo_info(r, &h));
	EXPECT_MAPFAIL(mmap(NULL, fo_r.map_bytes, PROT_READ, MAP_SHARED,
			    r, 0));
	EXPECT_EQ(ENOENT, errno);

	usleep(100 * 1000);
	atomic_store(&fo_r.stop, 1);
	for (t = 0; t < FO_THREADS; t++) {
		pthread_join(th[t], NULL);
		EXPECT_LT(0, atomic_load(&fo_r.rounds[t]));
	}
	EXPECT_EQ(0, atomic_load(&fo_r.bad));
	while (nmaps)
		munmap(maps[--nmaps], fo_r.map_bytes);
	close(r);
	close(r0);
	EXPECT_EQ(0, kbt_destroy(self->fd, "m2"));
}

/* ---- memory ------------------------------------------------------------- */

/*
 * Replaced generations held by mappings stay in memory (VmallocUsed), and
 * all of it goes once the mappings and the fd do.
 */
TEST_F(map, vmalloc_back_after_unmap)
{
	struct kb_ioc_create c = kbt_spec("v", KB_KIND_BLOCKED, KB_KEY_BYTES,
					  3 * ITEMS_1MIB, 0);
	unsigned char *p[3];
	struct kb_map_hdr h;
	long base, held, now = -1;
	int r, j, tries;
	__u64 o;

	c.sizing = KB_SIZING_BPK;
	c.bits_per_key = 10;	/* 3 MiB: plain vmalloc, not huge */
	base = fo_vmalloc_kb();
	ASSERT_LT(0, base);
	ASSERT_EQ(0, kbt_create_spec(self->fd, &c));
	r = fo_open(self->fd, "v", 0, 0, NULL);
	ASSERT_LE(0, r);
	for (j = 0; j < 3; j++) {
		ASSERT_EQ(0, fo_info(r, &h));
		p[j] = fo_map(r, h.map_bytes);
		ASSERT_TRUE(p[j] != NULL);
		for (o = 0; o < h.map_bytes; o += PG)
			(void)((volatile unsigned char *)p[j])[o];
		if (j < 2) {
			ASSERT_EQ(0, kbt_ioc(self->fd, KB_IOC_TXN_BEGIN, &c));
			ASSERT_EQ(0, kbt_txn(self->fd, KB_IOC_TXN_COMMIT));
		}
	}
	held = fo_vmalloc_kb();
	/* three generations of 3 MiB */
	EXPECT_LE(base + 9 * 1024 - 256, held) TH_LOG("%ld -> %ld", base, held);
	for (j = 0; j < 3; j++)
		munmap(p[j], h.map_bytes);
	close(r);
	ASSERT_EQ(0, kbt_destroy(self->fd, "v"));
	/* freed after a grace period */
	for (tries = 0; tries < 100; tries++) {
		now = fo_vmalloc_kb();
		if (now <= base + 512)
			break;
		usleep(100 * 1000);
	}
	EXPECT_GE(base + 512, now) TH_LOG("%ld -> %ld -> %ld", base, held, now);
}

/*
 * A held generation counts against max_netns_bytes: with room for two
 * 1 MiB generations and a half, a rebuild fails while the old one is
 * mapped and works once the mapping and the fd are gone.
 */
TEST_F(map, netns_charge_held)
{
	struct kb_ioc_create c = kbt_spec("a", KB_KIND_BLOCKED, KB_KEY_BYTES,
					  ITEMS_1MIB, 0);
	char val[32];
	struct kb_map_hdr h;
	unsigned char *p;
	int r, tries, ret = -1;

	c.sizing = KB_SIZING_BPK;
	c.bits_per_key = 10;
	snprintf(val, sizeof(val), "%llu", 5ULL << 19);
	ASSERT_EQ(0, kbt_param_write(PARAM_NETNS, val));
	ASSERT_EQ(0, kbt_create_spec(self->fd, &c));
	r = fo_open(self->fd, "a", 0, 0, NULL);
	ASSERT_LE(0, r);
	ASSERT_EQ(0, fo_info(r, &h));
	ASSERT_EQ(1 << 20, h.payload_bytes);
	p = fo_map(r, h.map_bytes);
	ASSERT_TRUE(p != NULL);
	ASSERT_EQ(0, kbt_ioc(self->fd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_txn(self->fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(KB_MAP_REPLACED, fo_hdr(p)->state);
	/* held for a while: the charge does not go by itself */
	usleep(200 * 1000);
	EXPECT_EQ(-ENOSPC, kbt_ioc(self->fd, KB_IOC_TXN_BEGIN, &c));
	munmap(p, h.map_bytes);
	close(r);
	for (tries = 0; tries < 100; tries++) {
		ret = kbt_ioc(self->fd, KB_IOC_TXN_BEGIN, &c);
		if (ret != -ENOSPC)
			break;
		usleep(50 * 1000);
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, kbt_txn(self->fd, KB_IOC_TXN_ABORT));
}

/* the filters of another network namespace are out of reach */
TEST_F(map, other_netns_sees_nothing)
{
	struct kb_ioc_info i;
	pid_t pid;
	int st;

	ASSERT_EQ(0, kbt_info(self->fd, "m", &i));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct kb_map_hdr h;
		int dev, f;

		if (unshare(CLONE_NEWNET))
			_exit(10);
		dev = kbt_open();
		if (dev < 0)
			_exit(11);
		if (fo_open(dev, "m", 0, 0, NULL) != -ENOENT)
			_exit(12);
		if (fo_open(dev, NULL, i.id, 0, NULL) != -ENOENT)
			_exit(13);
		/* a filter of the same name here is another filter */
		if (kbt_create(dev, "m", KB_KIND_BLOCKED, KB_KEY_BYTES, 100))
			_exit(14);
		f = fo_open(dev, "m", 0, 0, NULL);
		if (f < 0 || fo_info(f, &h) || h.id == i.id)
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

TEST_HARNESS_MAIN
