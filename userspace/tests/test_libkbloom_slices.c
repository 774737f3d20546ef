// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom and sliced filters (windows, growing filters), without a
 * kernel: a fake source (kbl_open_src()) serves a KB_MAP_VERSION_SLICES
 * mapping laid out as the kernel's (page 0: the header and its slice
 * table at KB_MAP_SLICES_OFFSET; the slices' payloads page-aligned after
 * it, newest first in the table but not in memory), each slice of its own
 * m and k.  Checked: a key of any slice is maybe present, by kbloom_test()
 * and kbloom_test_many(); a rotation (a new generation without the oldest
 * slice) is followed and forgets that slice's keys; a net key type tests
 * every slice at the header's prefix lengths; malformed slice tables and
 * unknown versions are refused (EPROTO), never half read.
 */
#include <sys/socket.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "../libkbloom/kbl.h"

#define PER_SLICE	3000
#define PAGE		4096

/* one mapping: page 0, then the payloads */
struct smap {
	u8 *buf;		/* page-aligned, map_bytes long */
	struct kb_filter f[KB_SLICES_MAX];
};

static struct kb_key *keys;	/* PER_SLICE per slice, 8 slices' worth */

static u64 round_page(u64 n)
{
	return (n + PAGE - 1) / PAGE * PAGE;
}

/*
 * n slices, slice i (0 newest) sized for items << i (growth's shape)
 * holding keys[first[i] * PER_SLICE ...); stored in memory oldest first,
 * so that the table's order is what the reader must follow
 */
static struct smap *smap_new(u32 n, const u32 *first, u32 key_type)
{
	struct smap *s = calloc(1, sizeof(*s));
	struct kb_map_hdr *h;
	struct kb_map_slice *t;
	struct kb_params p[KB_SLICES_MAX];
	u64 off[KB_SLICES_MAX], bytes[KB_SLICES_MAX], end = PAGE;
	u32 i;

	for (i = n; i-- > 0;) {
		kb_params_init(&p[i], KB_KIND_BLOCKED);
		p[i].key_type = key_type;
		kb_params_from_fpr(&p[i], (u64)PER_SLICE << i, 1000000, 0);
		p[i].seed[0] = 42;
		p[i].seed[1] = 0;
		bytes[i] = kb_params_payload_bytes(&p[i]);
		off[i] = end;
		end += round_page(bytes[i]);
	}
	s->buf = aligned_alloc(PAGE, end);
	if (!s->buf)
		abort();
	memset(s->buf, 0, end);
	h = (struct kb_map_hdr *)s->buf;
	t = (struct kb_map_slice *)(s->buf + KB_MAP_SLICES_OFFSET);
	for (i = 0; i < n; i++) {
		if (kb_filter_init(&s->f[i], &p[i], s->buf + off[i], bytes[i]))
			abort();
		if (first[i] != ~0U)
			kb_filter_add_many(&s->f[i], keys + first[i] * PER_SLICE,
					   PER_SLICE);
		t[i].offset = off[i];
		t[i].bytes = bytes[i];
		t[i].m = p[i].m;
		t[i].k = p[i].k;
		t[i].items = p[i].items;
		t[i].fpr_ppb = p[i].fpr_ppb;
	}
	h->size = sizeof(*h);
	h->magic = KB_MAP_MAGIC;
	h->version = n > 1 ? KB_MAP_VERSION_SLICES : KB_MAP_VERSION;
	h->state = KB_MAP_LIVE;
	h->generation = 1;
	h->id = 9;
	h->kind = p[0].kind;
	h->key_type = key_type;
	h->hash = p[0].hash;
	h->k = p[0].k;
	h->m = p[0].m;
	h->items = p[0].items;
	h->fpr_ppb = p[0].fpr_ppb;
	h->prefixes = 1;
	h->seed[0] = 42;
	h->plen4 = s->f[0].p.plen4;
	h->payload_offset = PAGE;
	h->payload_bytes = end - PAGE;
	h->map_bytes = end;
	h->nslices = n;
	h->slices_offset = KB_MAP_SLICES_OFFSET;
	return s;
}

static void smap_free(struct smap *s)
{
	free(s->buf);
	free(s);
}

struct sfake {
	struct smap *cur;
	int unmaps;
};

static int sfake_map(struct kbloom *h, struct kbl_map *m)
{
	struct sfake *fk = h->ctx;
	struct kb_map_hdr *hdr = (struct kb_map_hdr *)fk->cur->buf;

	m->hdr = hdr;
	m->payload = fk->cur->buf + hdr->payload_offset;
	m->len = hdr->map_bytes;
	m->cookie = fk->cur;
	return 0;
}

static void sfake_unmap(struct kbloom *h, struct kbl_map *m)
{
	struct sfake *fk = h->ctx;

	fk->unmaps++;
	smap_free(m->cookie);
}

static long sfake_confirm(struct kbloom *h, const struct kb_key *k, u32 n,
			  u64 *bm)
{
	return -EIO;	/* no exceptions here */
}

static const struct kbl_src_ops sfake_ops = {
	.map = sfake_map,
	.unmap = sfake_unmap,
	.confirm = sfake_confirm,
};

/* keys of block b (PER_SLICE keys) that kbloom_test_many says maybe */
static long hits_of(struct kbloom *h, u32 b)
{
	struct kbloom_key k[PER_SLICE];
	u64 bm[(PER_SLICE + 63) / 64];
	u32 i;

	for (i = 0; i < PER_SLICE; i++) {
		k[i].data = keys[b * PER_SLICE + i].data;
		k[i].len = keys[b * PER_SLICE + i].len;
	}
	return kbloom_test_many(h, k, PER_SLICE, bm);
}

/* ... and kbloom_test one by one */
static long hits_one(struct kbloom *h, u32 b)
{
	long n = 0;
	u32 i;

	for (i = 0; i < PER_SLICE; i++)
		n += kbloom_test(h, keys[b * PER_SLICE + i].data,
				 keys[b * PER_SLICE + i].len);
	return n;
}

FIXTURE(slices) {
	int unused;
};

FIXTURE_SETUP(slices)
{
	if (!keys)
		keys = kbut_keys(8 * PER_SLICE, 16, 0x511ce);
}

FIXTURE_TEARDOWN(slices)
{
}

TEST_F(slices, every_slice_answers_and_a_rotation_forgets)
{
	/* blocks 0, 1, 2 in slices newest..oldest; block 7 in none */
	const u32 first[] = { 0, 1, 2 };
	const u32 rotated[] = { 3, 0, 1 };
	struct sfake fk = { .cur = smap_new(3, first, KB_KEY_BYTES) };
	struct kbloom_info info;
	struct kbloom *h;
	u32 b;

	ASSERT_EQ(0, kbl_open_src(&sfake_ops, &fk, -1, 0, &h));
	for (b = 0; b < 3; b++) {
		EXPECT_EQ(PER_SLICE, hits_of(h, b));
		EXPECT_EQ(PER_SLICE, hits_one(h, b));
	}
	/* 3 slices at 1e-3 each: a few false positives at most */
	EXPECT_GT(20, hits_of(h, 7));
	EXPECT_EQ(hits_of(h, 7), hits_one(h, 7));
	ASSERT_EQ(0, kbloom_info(h, &info));
	EXPECT_EQ(((struct kb_map_hdr *)fk.cur->buf)->payload_bytes,
		  info.payload_bytes);

	/* rotation: block 2's slice retired, a new one holds block 3 */
	((struct kb_map_hdr *)fk.cur->buf)->state = KB_MAP_REPLACED;
	fk.cur = smap_new(3, rotated, KB_KEY_BYTES);
	EXPECT_EQ(PER_SLICE, hits_of(h, 3));
	EXPECT_EQ(1, fk.unmaps);
	EXPECT_EQ(PER_SLICE, hits_of(h, 0));
	EXPECT_EQ(PER_SLICE, hits_one(h, 1));
	EXPECT_GT(20, hits_of(h, 2));
	kbloom_close(h);
}

TEST_F(slices, net_types_test_every_slice_at_the_headers_lengths)
{
	const u32 none[] = { ~0U, ~0U };
	struct sfake fk = { .cur = smap_new(2, none, KB_KEY_NET4) };
	u8 net[5] = { 10, 1, 0, 0, 16 }, host[4] = { 10, 1, 2, 3 };
	struct kb_map_hdr *hdr = (struct kb_map_hdr *)fk.cur->buf;
	struct kbloom *h;

	/* the older slice holds 10.1.0.0/16, the header learns /16 */
	kb_filter_add(&fk.cur->f[1], net, sizeof(net));
	ASSERT_EQ(0, kbl_open_src(&sfake_ops, &fk, -1, 0, &h));
	EXPECT_EQ(0, kbloom_test_addr(h, AF_INET, host));
	hdr->plen4 |= 1ULL << 16;
	EXPECT_EQ(1, kbloom_test_addr(h, AF_INET, host));
	kbloom_close(h);
}

/* a table the reader must refuse: EPROTO, nothing mapped kept */
static void expect_refused(struct __test_metadata *_metadata,
			   void (*spoil)(struct kb_map_hdr *h,
					 struct kb_map_slice *t))
{
	const u32 first[] = { 0, 1, 2 };
	struct sfake fk = { .cur = smap_new(3, first, KB_KEY_BYTES) };
	struct kb_map_hdr *hdr = (struct kb_map_hdr *)fk.cur->buf;
	struct kbloom *h = NULL;

	spoil(hdr, (struct kb_map_slice *)(fk.cur->buf + KB_MAP_SLICES_OFFSET));
	EXPECT_EQ(-EPROTO, kbl_open_src(&sfake_ops, &fk, -1, 0, &h));
	EXPECT_EQ(NULL, h);
	EXPECT_EQ(1, fk.unmaps);
}

static void spoil_version(struct kb_map_hdr *h, struct kb_map_slice *t)
{
	h->version = KB_MAP_VERSION_SLICES + 1;
}

static void spoil_count(struct kb_map_hdr *h, struct kb_map_slice *t)
{
	h->nslices = KB_SLICES_MAX + 1;
}

static void spoil_one(struct kb_map_hdr *h, struct kb_map_slice *t)
{
	h->nslices = 1;		/* a sliced version with one slice */
}

static void spoil_offset(struct kb_map_hdr *h, struct kb_map_slice *t)
{
	t[2].offset = h->map_bytes;	/* past the payload */
}

static void spoil_bytes(struct kb_map_hdr *h, struct kb_map_slice *t)
{
	t[1].bytes = h->payload_bytes;	/* runs past the payload */
}

static void spoil_newest(struct kb_map_hdr *h, struct kb_map_slice *t)
{
	t[0].m += 512;		/* not the header's newest slice */
}

TEST_F(slices, bad_tables_are_refused)
{
	expect_refused(_metadata, spoil_version);
	expect_refused(_metadata, spoil_count);
	expect_refused(_metadata, spoil_one);
	expect_refused(_metadata, spoil_offset);
	expect_refused(_metadata, spoil_bytes);
	expect_refused(_metadata, spoil_newest);
}

TEST_HARNESS_MAIN
