// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic rebuilds: transactions bound to an open file, and lookups racing
 * rebuilds and swaps (zero false negatives).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kb_test.h"

static int begin(int fd, const char *name, __u32 kind, __u64 items)
{
	struct kb_ioc_create c = kbt_spec(name, kind, KB_KEY_BYTES, items,
					  1000000);

	return kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c);
}

static __u64 hits(int fd, const char *name, __u32 flags, __u32 fam,
		  __u64 n)
{
	void *keys = kbt_keys16(fam, 0, n);
	struct kb_ioc_keys k;
	int ret;

	ret = kbt_keys(fd, KB_IOC_TEST, name, flags, keys, 16, n, NULL, &k);
	free(keys);
	return ret ? ~0ULL : k.hits;
}

static int add(int fd, const char *name, __u32 flags, __u32 fam, __u64 n)
{
	void *keys = kbt_keys16(fam, 0, n);
	int ret;

	ret = kbt_keys(fd, KB_IOC_ADD, name, flags, keys, 16, n, NULL, NULL);
	free(keys);
	return ret;
}

TEST(commit_publishes_atomically)
{
	struct kb_ioc_info i0, i1;
	int fd = kbt_open(), fd2 = kbt_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "x.live", KB_KIND_BLOCKED, KB_KEY_BYTES,
				1000));
	ASSERT_EQ(0, add(fd, "x.live", 0, 1, 1000));
	ASSERT_EQ(0, kbt_info(fd, "x.live", &i0));
	ASSERT_EQ(0, begin(fd, "x.live", KB_KIND_COUNTING, 5000));
	EXPECT_EQ(-EBUSY, begin(fd, "x.live", KB_KIND_COUNTING, 5000));
	ASSERT_EQ(0, add(fd, "x.live", KB_KEYS_F_TXN, 2, 5000));
	/* the staging generation is invisible; the live one serves */
	EXPECT_EQ(1000, hits(fd2, "x.live", 0, 1, 1000));
	EXPECT_GT(100, hits(fd2, "x.live", 0, 2, 5000));
	EXPECT_EQ(5000, hits(fd, "x.live", KB_KEYS_F_TXN, 2, 5000));
	/* F_TXN names the transaction's filter; other files have none */
	EXPECT_EQ(-EINVAL, add(fd, "x.other", KB_KEYS_F_TXN, 2, 10));
	EXPECT_EQ(-ENOENT, add(fd2, "x.live", KB_KEYS_F_TXN, 2, 10));
	ASSERT_EQ(0, kbt_info(fd, "x.live", &i1));
	EXPECT_EQ(i0.generation, i1.generation);
	EXPECT_EQ(KB_KIND_BLOCKED, i1.kind);
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	ASSERT_EQ(0, kbt_info(fd, "x.live", &i1));
	EXPECT_NE(i0.generation, i1.generation);
	EXPECT_EQ(KB_KIND_COUNTING, i1.kind);
	EXPECT_EQ(5000, hits(fd2, "x.live", 0, 2, 5000));
	EXPECT_GT(20, hits(fd2, "x.live", 0, 1, 1000));
	EXPECT_EQ(-ENOENT, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(0, kbt_destroy(fd, "x.live"));
	close(fd);
	close(fd2);
}

TEST(abort_and_close_discard)
{
	struct kb_ioc_info i0, i1;
	int fd = kbt_open(), fd2;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "x.ab", KB_KIND_BLOCKED, KB_KEY_BYTES,
				1000));
	ASSERT_EQ(0, add(fd, "x.ab", 0, 1, 1000));
	ASSERT_EQ(0, kbt_info(fd, "x.ab", &i0));
	ASSERT_EQ(0, begin(fd, "x.ab", KB_KIND_BLOCKED, 1000));
	ASSERT_EQ(0, add(fd, "x.ab", KB_KEYS_F_TXN, 2, 1000));
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_ABORT));
	EXPECT_EQ(-ENOENT, kbt_txn(fd, KB_IOC_TXN_ABORT));
	/* closing a file discards its transaction */
	fd2 = kbt_open();
	ASSERT_EQ(0, begin(fd2, "x.ab", KB_KIND_BLOCKED, 1000));
	ASSERT_EQ(0, add(fd2, "x.ab", KB_KEYS_F_TXN, 2, 1000));
	close(fd2);
	/* a killed loader too */
	{
		pid_t pid = fork();
		int status;

		ASSERT_LE(0, pid);
		if (!pid) {
			int cfd = kbt_open();

			begin(cfd, "x.ab", KB_KIND_BLOCKED, 1000);
			add(cfd, "x.ab", KB_KEYS_F_TXN, 2, 1000);
			kill(getpid(), SIGKILL);
			_exit(1);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status));
	}
	ASSERT_EQ(0, kbt_info(fd, "x.ab", &i1));
	EXPECT_EQ(i0.generation, i1.generation);
	EXPECT_EQ(1000, hits(fd, "x.ab", 0, 1, 1000));
	EXPECT_GT(50, hits(fd, "x.ab", 0, 2, 1000));
	EXPECT_EQ(0, kbt_destroy(fd, "x.ab"));
	close(fd);
}

TEST(create_on_commit)
{
	struct kb_ioc_create c;
	void *img = NULL;
	long len;
	int fd = kbt_open(), fd2 = kbt_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, begin(fd, "x.new", KB_KIND_BLOCKED, 1000));
	ASSERT_EQ(0, add(fd, "x.new", KB_KEYS_F_TXN, 3, 1000));
	EXPECT_EQ(~0ULL, hits(fd2, "x.new", 0, 3, 10));	/* ENOENT */
	/* export of the staging generation */
	len = kbt_export(fd, "x.new", KB_IMAGE_F_TXN, &img);
	ASSERT_LT(0, len);
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(1000, hits(fd2, "x.new", 0, 3, 1000));
	/* the name was taken meanwhile: EEXIST, the txn is gone */
	ASSERT_EQ(0, begin(fd, "x.new2", KB_KIND_BLOCKED, 10));
	ASSERT_EQ(0, kbt_create(fd2, "x.new2", KB_KIND_BLOCKED, KB_KEY_BYTES,
				10));
	EXPECT_EQ(-EEXIST, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(-ENOENT, kbt_txn(fd, KB_IOC_TXN_ABORT));
	/* the filter was destroyed meanwhile: ENOENT */
	ASSERT_EQ(0, begin(fd, "x.new2", KB_KIND_BLOCKED, 10));
	ASSERT_EQ(0, kbt_destroy(fd2, "x.new2"));
	EXPECT_EQ(-ENOENT, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	/* an image uploaded into a transaction */
	ASSERT_EQ(0, begin(fd, "x.new3", KB_KIND_COUNTING, 10));
	EXPECT_EQ(-EINVAL, kbt_upload(fd, "x.other", KB_IMAGE_F_TXN, img, len,
				      NULL));
	ASSERT_EQ(0, kbt_upload(fd, "x.new3", KB_IMAGE_F_TXN, img, len, NULL));
	ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	EXPECT_EQ(1000, hits(fd2, "x.new3", 0, 3, 1000));
	/* the key type of an existing filter cannot change */
	c = kbt_spec("x.new3", KB_KIND_BLOCKED, KB_KEY_IPV4, 10, 1000);
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	EXPECT_EQ(0, kbt_destroy(fd, "x.new"));
	EXPECT_EQ(0, kbt_destroy(fd, "x.new3"));
	free(img);
	close(fd);
	close(fd2);
}

/* KB_IOC_MERGE of one byte at offset 0, into generation gen (0: any) */
static int merge1(int fd, const char *name, __u64 gen)
{
	static const unsigned char b = 0x81;
	struct kb_merge_range r = { .data = (uintptr_t)&b, .len = 1 };

	return kbt_merge(fd, name, &r, 1, 0, &gen, NULL, NULL);
}

/* the generation (kb_ioc_info's), ~0 if the filter cannot be read */
static __u64 gen_of(int fd, const char *name)
{
	struct kb_ioc_info i;

	return kbt_info(fd, name, &i) ? ~0ULL : i.generation;
}

/*
 * KB_IOC_TXN_COMMIT_GEN writes back the generation it installed (what a
 * merge must name: a generation read with KB_CMD_GET after the commit may
 * be another rebuild's).  A bad size, reserved, flags or a generation
 * given (0 on input) is EINVAL before the transaction is looked at: it
 * stays open and the filter unchanged.
 * The write-only commands take VER0 and VER1 as before, never write their
 * argument, and refuse VER2's generation (E2BIG: not theirs).
 */
TEST(commit_reports_generation)
{
	struct {
		struct kb_ioc_txn t;
		__u64 tail;
	} big;
	struct kb_ioc_txn t;
	__u64 g0, g, g2;
	int fd = kbt_open(), fd2 = kbt_open();

	ASSERT_LE(0, fd);
	kbt_destroy(fd, "x.gen");
	ASSERT_EQ(0, kbt_create(fd, "x.gen", KB_KIND_BLOCKED, KB_KEY_BYTES,
				1000));
	ASSERT_EQ(0, add(fd, "x.gen", 0, 1, 500));
	g0 = gen_of(fd, "x.gen");
	ASSERT_EQ(0, begin(fd, "x.gen", KB_KIND_BLOCKED, 1000));
	ASSERT_EQ(0, add(fd, "x.gen", KB_KEYS_F_TXN, 2, 1000));
	/* refused, nothing changed: the transaction is still there */
	memset(&t, 0, sizeof(t));
	t.size = KB_IOC_TXN_SIZE_VER1;	/* no room for the answer */
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &t));
	t.size = KB_IOC_TXN_SIZE_VER0;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &t));
	t.size = sizeof(t);
	t.reserved = 1;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &t));
	t.reserved = 0;
	t.flags = 1;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &t));
	t.flags = 0;
	/* generation is 0 on input (kept for a compare-and-swap) */
	t.generation = 0x5a5a5a5a;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &t));
	EXPECT_EQ(0x5a5a5a5a, t.generation);
	/* the old command does not know VER2: its generation is a tail */
	t.generation = 1;
	EXPECT_EQ(-E2BIG, kbt_ioc(fd, KB_IOC_TXN_COMMIT, &t));
	EXPECT_EQ(-E2BIG, kbt_ioc(fd, KB_IOC_TXN_ABORT, &t));
	EXPECT_EQ(g0, gen_of(fd, "x.gen"));
	EXPECT_EQ(1000, hits(fd, "x.gen", KB_KEYS_F_TXN, 2, 1000));
	EXPECT_GT(50, hits(fd2, "x.gen", 0, 2, 1000));
	/* commit: the generation it reports is the one serving */
	t.generation = 0;
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &t));
	g = t.generation;
	EXPECT_EQ(sizeof(t), t.size);
	EXPECT_NE(0, g);
	EXPECT_NE(g0, g);
	EXPECT_EQ(g, gen_of(fd, "x.gen"));
	EXPECT_EQ(1000, hits(fd2, "x.gen", 0, 2, 1000));
	t.generation = 0;
	EXPECT_EQ(-ENOENT, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &t));
	/* a merge into the generation reported works, the previous ESTALE */
	EXPECT_EQ(-ESTALE, merge1(fd2, "x.gen", g0));
	EXPECT_EQ(0, merge1(fd2, "x.gen", g));
	/*
	 * Someone else's rebuild after ours: INFO shows theirs, and the
	 * generation our commit reported keeps our merges out of it
	 */
	ASSERT_EQ(0, begin(fd2, "x.gen", KB_KIND_BLOCKED, 1000));
	ASSERT_EQ(0, kbt_txn(fd2, KB_IOC_TXN_COMMIT));
	g2 = gen_of(fd, "x.gen");
	EXPECT_NE(g, g2);
	EXPECT_EQ(-ESTALE, merge1(fd, "x.gen", g));
	/* old sizes on the old command: they commit and write nothing */
	ASSERT_EQ(0, begin(fd, "x.gen", KB_KIND_BLOCKED, 1000));
	memset(&t, 0, sizeof(t));
	t.size = KB_IOC_TXN_SIZE_VER0;
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_COMMIT, &t));
	EXPECT_EQ(0, t.generation);
	EXPECT_NE(g2, gen_of(fd, "x.gen"));
	ASSERT_EQ(0, begin(fd, "x.gen", KB_KIND_BLOCKED, 1000));
	t.size = sizeof(t);	/* a zero tail is fine, and stays zero */
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_COMMIT, &t));
	EXPECT_EQ(0, t.generation);
	/* a filter made by the commit: its first generation */
	kbt_destroy(fd, "x.gen2");
	ASSERT_EQ(0, begin(fd, "x.gen2", KB_KIND_BLOCKED, 1000));
	memset(&big, 0, sizeof(big));
	big.t.size = sizeof(big);	/* bigger: a zero tail, left alone */
	big.tail = 7;
	EXPECT_EQ(-E2BIG, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &big));
	big.tail = 0;
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_COMMIT_GEN, &big));
	EXPECT_EQ(big.t.generation, gen_of(fd, "x.gen2"));
	EXPECT_EQ(0, big.tail);
	EXPECT_EQ(0, kbt_destroy(fd, "x.gen"));
	EXPECT_EQ(0, kbt_destroy(fd, "x.gen2"));
	close(fd);
	close(fd2);
}

/* ---- concurrency --------------------------------------------------------- */

#define NKEYS 2000

static atomic_int stop;
static atomic_long false_neg, rounds;

static void *reader(void *arg)
{
	void *keys = kbt_keys16(20, 0, NKEYS);
	int fd = kbt_open();
	struct kb_ioc_keys k;

	while (!atomic_load(&stop)) {
		const char *name = (long)arg % 2 ? "x.race" : "x.race2";

		if (kbt_keys(fd, KB_IOC_TEST, name, 0, keys, 16, NKEYS, NULL,
			     &k) || k.hits != NKEYS)
			atomic_fetch_add(&false_neg, 1);
	}
	close(fd);
	free(keys);
	return NULL;
}

TEST(lookups_during_rebuild_and_swap)
{
	void *both = kbt_keys16(20, 0, NKEYS), *extra;
	pthread_t th[3];
	struct timespec t0, t;
	int fd = kbt_open();
	long i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "x.race", KB_KIND_BLOCKED, KB_KEY_BYTES,
				NKEYS));
	ASSERT_EQ(0, kbt_create(fd, "x.race2", KB_KIND_COUNTING,
				KB_KEY_BYTES, NKEYS));
	ASSERT_EQ(0, add(fd, "x.race", 0, 20, NKEYS));
	ASSERT_EQ(0, add(fd, "x.race2", 0, 20, NKEYS));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pthread_create(&th[i], NULL, reader, (void *)i));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		long r = atomic_fetch_add(&rounds, 1);
		/* rebuild with the common keys plus a varying set */
		ASSERT_EQ(0, begin(fd, r % 2 ? "x.race" : "x.race2",
				   r % 3 ? KB_KIND_BLOCKED : KB_KIND_COUNTING,
				   NKEYS * 2));
		ASSERT_EQ(0, add(fd, r % 2 ? "x.race" : "x.race2",
				 KB_KEYS_F_TXN, 20, NKEYS));
		extra = kbt_keys16(100 + r, 0, 500);
		ASSERT_EQ(0, kbt_keys(fd, KB_IOC_ADD,
				      r % 2 ? "x.race" : "x.race2",
				      KB_KEYS_F_TXN, extra, 16, 500, NULL,
				      NULL));
		free(extra);
		ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
		ASSERT_EQ(0, kbt_name2(fd, KB_CMD_SWAP, "x.race", "x.race2"));
		/* live adds and flush-free uploads too */
		ASSERT_EQ(0, add(fd, "x.race", 0, 21, 100));
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 4);
	atomic_store(&stop, 1);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	TH_LOG("%ld rebuild+swap rounds", atomic_load(&rounds));
	EXPECT_LT(5, atomic_load(&rounds));
	EXPECT_EQ(0, atomic_load(&false_neg));
	EXPECT_EQ(0, kbt_destroy(fd, "x.race"));
	EXPECT_EQ(0, kbt_destroy(fd, "x.race2"));
	free(both);
	close(fd);
}

TEST_HARNESS_MAIN
