// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom's rebuild following, without a kernel: a fake source
 * (kbl_open_src(), the library's hidden test hook) serves struct
 * kb_map_hdr and payloads in ordinary memory, and a "kernel" thread
 * replaces the generation over and over while 8 threads test.  Checked:
 * no false negative for keys present in every generation, remaps happen,
 * a mapping is released only when no call is inside it (a release
 * poisons and frees it: a call still inside would answer absent, and
 * ASan/TSan would report it; and one test holds a call inside and
 * watches the remap wait), the exceptions' confirmation, prefix lengths
 * read from the header on each call, destroy.  Built three times: plain,
 * ASan (-asan) and TSan (-tsan), all in make check's native lane.
 */
#include <pthread.h>
#include <semaphore.h>
#include <sys/socket.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "../libkbloom/kbl.h"

#define NKEYS		2000	/* in every generation */
#define NEXTRA		500	/* in one generation only */
#define NTHREADS	8
#define NGENS		60

/* one generation the fake kernel serves */
struct fgen {
	struct kb_map_hdr hdr;
	struct kb_filter f;
	void *payload;
	int released;		/* atomic */
};

struct fake {
	struct fgen *cur;	/* atomic: the "kernel's" current one */
	int maps, unmaps;	/* atomic */
	const u8 *excepted;	/* a key the exception set holds */
	int confirms;		/* atomic */
	/* hold_in_confirm: the next confirm waits on go after posting in */
	int hold;		/* atomic */
	sem_t in, go;
};

#ifdef __SANITIZE_THREAD__
/* a race fails the test where it happens, not in a report at exit */
const char *__tsan_default_options(void)
{
	return "halt_on_error=1:abort_on_error=1";
}
#endif

static struct kb_key *keys;	/* NKEYS in all + NEXTRA * NGENS extras */

static struct fgen *fgen_new(u64 genid, u32 first_extra, u32 key_type)
{
	struct fgen *g = calloc(1, sizeof(*g));
	struct kb_params p;
	u64 bytes;

	kb_params_init(&p, KB_KIND_BLOCKED);
	p.key_type = key_type;
	kb_params_from_fpr(&p, NKEYS + NEXTRA, 10000000, 0);
	p.seed[0] = 42;
	bytes = kb_params_payload_bytes(&p);
	g->payload = aligned_alloc(64, (bytes + 63) / 64 * 64);
	if (!g || !g->payload || kb_filter_init(&g->f, &p, g->payload, bytes))
		abort();
	if (key_type == KB_KEY_BYTES) {
		kb_filter_add_many(&g->f, keys, NKEYS);
		kb_filter_add_many(&g->f, keys + NKEYS + first_extra, NEXTRA);
	}
	g->hdr.size = sizeof(g->hdr);
	g->hdr.magic = KB_MAP_MAGIC;
	g->hdr.version = KB_MAP_VERSION;
	g->hdr.state = KB_MAP_LIVE;
	g->hdr.generation = genid;
	g->hdr.id = 7;
	g->hdr.kind = p.kind;
	g->hdr.key_type = p.key_type;
	g->hdr.hash = p.hash;
	g->hdr.k = p.k;
	g->hdr.m = p.m;
	g->hdr.items = p.items;
	g->hdr.fpr_ppb = p.fpr_ppb;
	g->hdr.prefixes = 1;
	g->hdr.seed[0] = p.seed[0];
	g->hdr.payload_offset = KB_MAP_PAYLOAD_OFFSET;
	g->hdr.payload_bytes = bytes;
	g->hdr.map_bytes = KB_MAP_PAYLOAD_OFFSET + (bytes + 4095) / 4096 * 4096;
	return g;
}

static int fake_map(struct kbloom *h, struct kbl_map *m)
{
	struct fake *fk = h->ctx;
	struct fgen *g = __atomic_load_n(&fk->cur, __ATOMIC_ACQUIRE);

	m->hdr = &g->hdr;
	m->payload = g->payload;
	m->cookie = g;
	m->len = g->hdr.map_bytes;
	__atomic_fetch_add(&fk->maps, 1, __ATOMIC_RELAXED);
	return 0;
}

/* what munmap would do: later reads see nothing (here: zeros), or crash */
static void fake_unmap(struct kbloom *h, struct kbl_map *m)
{
	struct fake *fk = h->ctx;
	struct fgen *g = m->cookie;

	__atomic_store_n(&g->released, 1, __ATOMIC_RELAXED);
	memset(g->payload, 0, g->f.bytes);
	memset(&g->hdr, 0, sizeof(g->hdr));
	free(g->payload);
	free(g);
	__atomic_fetch_add(&fk->unmaps, 1, __ATOMIC_RELAXED);
}

/* the exception set holds fk->excepted; the hold lets a test stop a call */
static long fake_confirm(struct kbloom *h, const struct kb_key *k, u32 n,
			 u64 *bm)
{
	struct fake *fk = h->ctx;
	long left = 0;
	u32 i;

	__atomic_fetch_add(&fk->confirms, 1, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&fk->hold, 0, __ATOMIC_ACQ_REL)) {
		sem_post(&fk->in);
		sem_wait(&fk->go);
	}
	for (i = 0; i < n; i++) {
		if (!(bm[i / 64] >> (i % 64) & 1))
			continue;
		if (fk->excepted && k[i].len == 16 &&
		    !memcmp(k[i].data, fk->excepted, 16))
			bm[i / 64] &= ~(1ULL << (i % 64));
		else
			left++;
	}
	return left;
}

static const struct kbl_src_ops fake_ops = {
	.map = fake_map,
	.unmap = fake_unmap,
	.confirm = fake_confirm,
};

/* the "kernel" replaces the generation: the new one first, then the state */
static void fake_replace(struct fake *fk, struct fgen *g)
{
	struct fgen *old = __atomic_load_n(&fk->cur, __ATOMIC_RELAXED);

	__atomic_store_n(&fk->cur, g, __ATOMIC_RELEASE);
	__atomic_store_n(&old->hdr.state, KB_MAP_REPLACED, __ATOMIC_RELEASE);
}

static void fake_init(struct fake *fk, struct fgen *g)
{
	memset(fk, 0, sizeof(*fk));
	fk->cur = g;
	sem_init(&fk->in, 0, 0);
	sem_init(&fk->go, 0, 0);
}

struct reader {
	struct kbloom *h;
	int *stop;
	long rounds, misses, errors;
	pthread_t t;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct kbloom_key k[NKEYS];
	u64 bm[(NKEYS + 63) / 64];
	u32 i;

	for (i = 0; i < NKEYS; i++) {
		k[i].data = keys[i].data;
		k[i].len = keys[i].len;
	}
	while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED)) {
		/* batches and single keys: both paths enter and leave */
		long hits = kbloom_test_many(r->h, k, NKEYS, bm);

		if (hits < 0)
			r->errors++;
		else
			r->misses += NKEYS - hits;
		for (i = (u32)r->rounds % 97; i < NKEYS; i += 97)
			if (kbloom_test(r->h, k[i].data, k[i].len) != 1)
				r->misses++;
		r->rounds++;
	}
	return NULL;
}

FIXTURE(fake) {
	int unused;
};

FIXTURE_SETUP(fake)
{
	if (!keys)
		keys = kbut_keys(NKEYS + NEXTRA * (NGENS + 1), 16, 0x5eed);
}

FIXTURE_TEARDOWN(fake)
{
}

TEST_F(fake, eight_readers_follow_generations)
{
	struct reader rd[NTHREADS];
	struct kbloom *h;
	struct fake fk;
	int stop = 0, i;
	long rounds = 0, errors = 0;

	fake_init(&fk, fgen_new(1, 0, KB_KEY_BYTES));
	ASSERT_EQ(0, kbl_open_src(&fake_ops, &fk, -1, KBLOOM_RDONLY, &h));
	for (i = 0; i < NTHREADS; i++) {
		rd[i] = (struct reader){ .h = h, .stop = &stop };
		ASSERT_EQ(0, pthread_create(&rd[i].t, NULL, reader_main, &rd[i]));
	}
	for (i = 2; i <= NGENS; i++) {
		usleep(2000);
		fake_replace(&fk, fgen_new((u64)i, (u32)i * NEXTRA, KB_KEY_BYTES));
	}
	usleep(20000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(rd[i].t, NULL);
		ASSERT_EQ(0, rd[i].misses) {
			TH_LOG("reader %d: %ld false negatives", i, rd[i].misses);
		}
		rounds += rd[i].rounds;
		errors += rd[i].errors;
	}
	ASSERT_EQ(0, errors);
	ASSERT_GT(rounds, NTHREADS);
	/* remapped at least once, never more than the kernel replaced */
	ASSERT_GT(kbl_remaps(h), 0);
	ASSERT_LE(kbl_remaps(h), NGENS - 1);
	/* every mapping but the one held is released */
	ASSERT_EQ(fk.maps - 1, fk.unmaps);
	/* the last generation's own keys are there */
	ASSERT_EQ(0, kbloom_refresh(h) < 0);
	for (i = 0; i < NEXTRA; i++)
		ASSERT_EQ(1, kbloom_test(h, keys[NKEYS + NGENS * NEXTRA + i].data, 16));
	kbloom_close(h);
	ASSERT_EQ(fk.maps, fk.unmaps);
	TH_LOG("%ld rounds, %llu remaps", rounds, (unsigned long long)fk.maps - 1);
}

struct holder {
	struct kbloom *h;
	const void *key;
	int ret;
};

static void *hold_test(void *arg)
{
	struct holder *x = arg;

	x->ret = kbloom_test(x->h, x->key, 16);
	return NULL;
}

static void *hold_refresh(void *arg)
{
	struct holder *x = arg;

	x->ret = kbloom_refresh(x->h);
	return NULL;
}

/* a call inside a mapping holds its release back until it returns */
TEST_F(fake, remap_waits_for_a_call_inside)
{
	struct holder a, b;
	pthread_t ta, tb;
	struct kbloom *h;
	struct fgen *g1;
	struct fake fk;

	g1 = fgen_new(1, 0, KB_KEY_BYTES);
	g1->hdr.exceptions = 1;	/* so that a maybe calls fake_confirm */
	fake_init(&fk, g1);
	ASSERT_EQ(0, kbl_open_src(&fake_ops, &fk, -1, KBLOOM_RDONLY, &h));
	__atomic_store_n(&fk.hold, 1, __ATOMIC_RELEASE);
	a = (struct holder){ .h = h, .key = keys[0].data };
	ASSERT_EQ(0, pthread_create(&ta, NULL, hold_test, &a));
	sem_wait(&fk.in);		/* a is inside g1's mapping */
	fake_replace(&fk, fgen_new(2, NEXTRA, KB_KEY_BYTES));
	b = (struct holder){ .h = h, .ret = -1 };
	ASSERT_EQ(0, pthread_create(&tb, NULL, hold_refresh, &b));
	usleep(100000);
	/* b published g2 but must not release g1 while a reads it */
	ASSERT_EQ(0, __atomic_load_n(&g1->released, __ATOMIC_RELAXED));
	ASSERT_EQ(2, __atomic_load_n(&fk.maps, __ATOMIC_RELAXED));
	ASSERT_EQ(0, __atomic_load_n(&fk.unmaps, __ATOMIC_RELAXED));
	sem_post(&fk.go);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	ASSERT_EQ(1, a.ret);
	ASSERT_EQ(1, b.ret);
	ASSERT_EQ(1, fk.unmaps);
	/* later calls use g2 */
	ASSERT_EQ(1, kbloom_test(h, keys[NKEYS + NEXTRA].data, 16));
	ASSERT_EQ(0, kbloom_refresh(h));
	kbloom_close(h);
}

/* a maybe is confirmed while exceptions is non-zero, only then */
TEST_F(fake, exceptions_confirm_maybes)
{
	struct kbloom_key k[3];
	struct kbloom *h;
	struct fake fk;
	struct fgen *g;
	u64 bm;

	g = fgen_new(1, 0, KB_KEY_BYTES);
	fake_init(&fk, g);
	fk.excepted = keys[1].data;
	ASSERT_EQ(0, kbl_open_src(&fake_ops, &fk, -1, KBLOOM_RDONLY, &h));
	ASSERT_EQ(1, kbloom_test(h, keys[1].data, 16));
	ASSERT_EQ(0, fk.confirms);
	__atomic_store_n(&g->hdr.exceptions, 1, __ATOMIC_RELAXED);
	ASSERT_EQ(0, kbloom_test(h, keys[1].data, 16));
	ASSERT_EQ(1, kbloom_test(h, keys[2].data, 16));
	ASSERT_EQ(2, fk.confirms);
	for (int i = 0; i < 3; i++)
		k[i] = (struct kbloom_key){ keys[i].data, 16 };
	ASSERT_EQ(2, kbloom_test_many(h, k, 3, &bm));
	ASSERT_EQ(5ULL, bm);
	kbloom_close(h);
}

/* net filters: prefix lengths added while live are looked up at once */
TEST_F(fake, prefix_lengths_from_the_header)
{
	u8 net24[5] = { 10, 1, 2, 0, 24 }, net16[5] = { 10, 9, 0, 0, 16 };
	u8 host[4] = { 10, 9, 7, 7 };
	struct kbloom *h;
	struct fake fk;
	struct fgen *g;

	g = fgen_new(1, 0, KB_KEY_NET4);
	kb_params_note_prefix(&g->f.p, net24, 5);
	kb_filter_add(&g->f, net24, 5);
	g->hdr.plen4 = g->f.p.plen4;
	fake_init(&fk, g);
	ASSERT_EQ(0, kbl_open_src(&fake_ops, &fk, -1, KBLOOM_RDONLY, &h));
	ASSERT_EQ(1, kbloom_test_addr(h, AF_INET, (u8[]){ 10, 1, 2, 3 }));
	ASSERT_EQ(0, kbloom_test_addr(h, AF_INET, host));
	/* the "kernel" adds a /16 to the live generation */
	kb_filter_add(&g->f, net16, 5);
	ASSERT_EQ(0, kbloom_test_addr(h, AF_INET, host));
	__atomic_store_n(&g->hdr.plen4, g->hdr.plen4 | 1ULL << 16, __ATOMIC_RELEASE);
	ASSERT_EQ(1, kbloom_test_addr(h, AF_INET, host));
	ASSERT_EQ(1, kbloom_test(h, (u8[]){ 10, 9, 7, 7, 32 }, 5));
	ASSERT_EQ(0, kbl_remaps(h));
	kbloom_close(h);
}

/* destroyed: ENOENT from every call, no remap; unknown state: EPROTO */
TEST_F(fake, destroyed_and_bad_states)
{
	struct kbloom_info info;
	struct kbloom *h;
	struct fake fk;
	struct fgen *g;

	g = fgen_new(5, 0, KB_KEY_BYTES);
	fake_init(&fk, g);
	ASSERT_EQ(0, kbl_open_src(&fake_ops, &fk, -1, KBLOOM_RDONLY, &h));
	ASSERT_EQ(0, kbloom_info(h, &info));
	ASSERT_EQ(5, info.generation);
	ASSERT_EQ(7, info.id);
	ASSERT_EQ(-EROFS, kbloom_add(h, keys[0].data, 16));
	__atomic_store_n(&g->hdr.state, 77, __ATOMIC_RELEASE);
	ASSERT_EQ(-EPROTO, kbloom_test(h, keys[0].data, 16));
	__atomic_store_n(&g->hdr.state, KB_MAP_DESTROYED, __ATOMIC_RELEASE);
	ASSERT_EQ(-ENOENT, kbloom_test(h, keys[0].data, 16));
	ASSERT_EQ(-ENOENT, kbloom_test_many(h, NULL, 0, NULL));
	ASSERT_EQ(-ENOENT, kbloom_refresh(h));
	ASSERT_EQ(-ENOENT, kbloom_info(h, &info));
	ASSERT_NE(NULL, strstr(kbloom_errmsg(), "destroyed"));
	ASSERT_EQ(1, fk.maps);
	kbloom_close(h);
	ASSERT_EQ(1, fk.unmaps);

	/* a header that is not one: the open fails and releases it */
	g = fgen_new(1, 0, KB_KEY_BYTES);
	g->hdr.magic = 0;
	fake_init(&fk, g);
	h = NULL;
	ASSERT_EQ(-EPROTO, kbl_open_src(&fake_ops, &fk, -1, KBLOOM_RDONLY, &h));
	ASSERT_EQ(1, fk.unmaps);
	g = fgen_new(1, 0, KB_KEY_BYTES);
	g->hdr.payload_bytes = g->hdr.map_bytes;	/* longer than mapped */
	fake_init(&fk, g);
	ASSERT_EQ(-EPROTO, kbl_open_src(&fake_ops, &fk, -1, KBLOOM_RDONLY, &h));
	g = fgen_new(1, 0, KB_KEY_BYTES);
	g->hdr.k = 99;
	fake_init(&fk, g);
	ASSERT_EQ(-EINVAL, kbl_open_src(&fake_ops, &fk, -1, KBLOOM_RDONLY, &h));
}

TEST_HARNESS_MAIN
