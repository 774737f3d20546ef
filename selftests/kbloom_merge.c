// SPDX-License-Identifier: GPL-2.0
/*
 * KB_IOC_MERGE (uapi section 3): byte ranges ORed into a filter's live
 * generation.  Every refused merge changes nothing (the export before and
 * after); the diff of two images merged into the older equals the newer
 * (blocked, classic, gozero) with the fill tracker equal to a recount;
 * the saturation guard and its event; ESTALE; a filter file's rules; and
 * merges beside lookups and bulk adds from other threads (smp lane) never
 * lose a key nor a bit, and keep the fill exact; two merges at once
 * never pass one guard together (smp lane).
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

#define MG_HDR		128	/* struct kb_image_hdr */
/* enum kb_img_err (kb_core.h, not the ABI) */
#define MG_WHY_CLASSIC_K	19
#define MG_WHY_GOZERO_PAD	22
#define MG_WHY_SATURATED	24

/*
 * KB_MERGE_TESTS="a b": run only those (6.1's harness has no -t); the smp
 * lane runs the concurrency test only, the debug lane the copy and bounds
 * paths.
 */
static bool wanted(const char *test)
{
	return kbt_wanted("KB_MERGE_TESTS", test);
}

#define WANTED() do {							\
	if (!wanted(_metadata->name))					\
		SKIP(return, "not in KB_MERGE_TESTS");			\
} while (0)

static void mg_fill(int fd, const char *name, __u32 fam, __u64 first,
		    __u64 n)
{
	void *keys = kbt_keys16(fam, first, n);

	kbt_keys(fd, KB_IOC_ADD, name, 0, keys, 16, n, NULL, NULL);
	free(keys);
}

/* keys [first, first + n) of fam all present */
static __u64 mg_hits(int fd, const char *name, __u32 fam, __u64 first,
		     __u64 n)
{
	void *keys = kbt_keys16(fam, first, n);
	struct kb_ioc_keys k;

	k.hits = 0;
	kbt_keys(fd, KB_IOC_TEST, name, 0, keys, 16, n, NULL, &k);
	free(keys);
	return k.hits;
}

static __u64 mg_popcount(const unsigned char *p, __u64 len)
{
	__u64 i, n = 0;

	for (i = 0; i < len; i++)
		n += __builtin_popcount(p[i]);
	return n;
}

/* the filter's image equals (len, bytes) ref */
static int mg_same(int fd, const char *name, const void *ref, long len)
{
	void *now = NULL;
	long n = kbt_export(fd, name, 0, &now);
	int same = n == len && !memcmp(now, ref, len);

	free(now);
	return same;
}

static struct kb_ioc_create mg_spec(const char *name, __u32 kind)
{
	struct kb_ioc_create c = kbt_spec(name, kind, KB_KEY_BYTES, 2000,
					  10000000);

	if (kind == KB_KIND_GOZERO) {
		/* m not a multiple of 8: padding bits in the last byte */
		c.sizing = KB_SIZING_MK;
		c.items = 0;
		c.fpr_ppb = 0;
		c.m = 20011;
		c.k = 14;
	}
	return c;
}

TEST(errors)
{
	static const __u32 kinds[] = { KB_KIND_BLOCKED, KB_KIND_CLASSIC,
				       KB_KIND_GOZERO };
	unsigned char data[64], *big;
	struct kb_merge_range r[2];
	struct kb_ioc_create c;
	struct kb_ioc_merge a;
	struct kb_ioc_info info;
	struct kbtn_req req;
	struct kbtn *n;
	void *ref = NULL;
	__u64 gen, bits;
	__u32 why, i;
	long len;
	int fd;

	WANTED();
	fd = kbt_open();
	ASSERT_LE(0, fd);
	memset(data, 0xff, sizeof(data));
	for (i = 0; i < 3; i++) {
		c = mg_spec("m.err", kinds[i]);
		ASSERT_EQ(0, kbt_create_spec(fd, &c));
		mg_fill(fd, "m.err", 1, 0, 300);
		ASSERT_EQ(0, kbt_info(fd, "m.err", &info));
		len = kbt_export(fd, "m.err", 0, &ref);
		ASSERT_LT(0, len);
		r[0] = (struct kb_merge_range){ 0, (uintptr_t)data, 8 };
		r[1] = (struct kb_merge_range){ 64, (uintptr_t)data, 8 };

#define BAD(err, ...) do {						\
		EXPECT_EQ(err, __VA_ARGS__);				\
		EXPECT_TRUE(mg_same(fd, "m.err", ref, len));		\
	} while (0)
#define RAW(err, field, val) do {					\
		kbt_merge_init(&a, "m.err", r, 2);			\
		a.field = val;						\
		BAD(err, kbt_ioc(fd, KB_IOC_MERGE, &a));		\
	} while (0)
		RAW(-EINVAL, flags, 1);
		RAW(-EINVAL, reserved0, 1);
		RAW(-EINVAL, reserved[1], 1);
		RAW(-EINVAL, nr_ranges, 0);
		RAW(-EINVAL, nr_ranges, KB_MERGE_RANGES_MAX + 1);
		RAW(-EINVAL, size, KB_IOC_MERGE_SIZE_VER0 - 8);
		RAW(-EFAULT, ranges, 8);
		kbt_merge_init(&a, "m.err", r, 2);
		a.name[KB_NAME_MAX - 1] = 'x';	/* not NUL-padded */
		BAD(-EINVAL, kbt_ioc(fd, KB_IOC_MERGE, &a));
		BAD(-ENOENT, kbt_merge(fd, "m.none", r, 2, 0, NULL, NULL,
				       NULL));
		/* a range empty, past the payload, wrapping */
		r[1].len = 0;
		BAD(-EINVAL, kbt_merge(fd, "m.err", r, 2, 0, NULL, NULL, NULL));
		r[1] = (struct kb_merge_range){ info.bytes - 4,
						(uintptr_t)data, 8 };
		BAD(-EINVAL, kbt_merge(fd, "m.err", r, 2, 0, NULL, NULL, NULL));
		r[1].offset = ~0ULL - 2;
		BAD(-EINVAL, kbt_merge(fd, "m.err", r, 2, 0, NULL, NULL, NULL));
		/* over KB_MERGE_BYTES_MAX in all, before any byte is read */
		r[0] = (struct kb_merge_range){ 0, 8, KB_MERGE_BYTES_MAX / 2 };
		r[1] = (struct kb_merge_range){ 0, 8,
						KB_MERGE_BYTES_MAX / 2 + 1 };
		BAD(-E2BIG, kbt_merge(fd, "m.err", r, 2, 0, NULL, NULL, NULL));
		/* the first range fine, the second unreadable: nothing */
		r[0] = (struct kb_merge_range){ 0, (uintptr_t)data, 8 };
		r[1] = (struct kb_merge_range){ 64, 8, 8 };
		BAD(-EFAULT, kbt_merge(fd, "m.err", r, 2, 0, NULL, NULL, NULL));
		/* another generation than the one asked for */
		gen = info.generation + 1000;
		r[1] = (struct kb_merge_range){ 64, (uintptr_t)data, 8 };
		BAD(-ESTALE, kbt_merge(fd, "m.err", r, 2, 0, &gen, NULL, NULL));
		/* saturated: every bit set is refused */
		big = malloc(info.bytes);
		memset(big, 0xff, info.bytes);
		/* (not the last byte: classic's k, gozero's padding) */
		r[0] = (struct kb_merge_range){ 0, (uintptr_t)big,
						info.bytes - 1 };
		why = 0;
		BAD(-EDOM, kbt_merge(fd, "m.err", r, 1, 50000000, NULL, NULL,
				    &why));
		EXPECT_EQ(MG_WHY_SATURATED, why);
		if (kinds[i] == KB_KIND_CLASSIC) {
			/* the k byte is not bits */
			r[0].len = info.bytes;
			why = 0;
			BAD(-EINVAL, kbt_merge(fd, "m.err", r, 1, 0, NULL,
					      NULL, &why));
			EXPECT_EQ(MG_WHY_CLASSIC_K, why);
			r[0] = (struct kb_merge_range){ info.bytes - 1,
							(uintptr_t)data, 1 };
			BAD(-EINVAL, kbt_merge(fd, "m.err", r, 1, 0, NULL,
					      NULL, NULL));
		}
		if (kinds[i] == KB_KIND_GOZERO) {
			/* bits past m (20011 = 8 * 2501 + 3) */
			r[0] = (struct kb_merge_range){ info.bytes - 1,
							(uintptr_t)data, 1 };
			why = 0;
			BAD(-EINVAL, kbt_merge(fd, "m.err", r, 1, 0, NULL,
					      NULL, &why));
			EXPECT_EQ(MG_WHY_GOZERO_PAD, why);
			/* in a range ORed with another that is fine */
			data[63] = 0xe0;
			r[0] = (struct kb_merge_range){ info.bytes - 64,
							(uintptr_t)data, 64 };
			r[1] = (struct kb_merge_range){ info.bytes - 2,
							(uintptr_t)data, 2 };
			BAD(-EINVAL, kbt_merge(fd, "m.err", r, 2, 0, NULL,
					      NULL, NULL));
			r[1].len = 1;
			EXPECT_EQ(0, kbt_merge(fd, "m.err", r, 2, 0, NULL,
					      &bits, NULL));
			data[63] = 0xff;
		}
		free(big);
		free(ref);
		ref = NULL;
		EXPECT_EQ(0, kbt_destroy(fd, "m.err"));
	}
	/* counting filters and windows: EOPNOTSUPP; net key types EINVAL */
	r[0] = (struct kb_merge_range){ 0, (uintptr_t)data, 8 };
	ASSERT_EQ(0, kbt_create(fd, "m.cnt", KB_KIND_COUNTING, KB_KEY_BYTES,
				100));
	EXPECT_EQ(-EOPNOTSUPP, kbt_merge(fd, "m.cnt", r, 1, 0, NULL, NULL,
					NULL));
	ASSERT_EQ(0, kbt_create(fd, "m.net", KB_KIND_BLOCKED, KB_KEY_NET4,
				100));
	EXPECT_EQ(-EINVAL, kbt_merge(fd, "m.net", r, 1, 0, NULL, NULL, NULL));
	n = kbtn_open();
	ASSERT_NE(NULL, n);
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "m.win");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_BLOCKED);
	kbtn_put_u32(&req, KB_A_KEY_TYPE, KB_KEY_BYTES);
	kbtn_put_u64(&req, KB_A_ITEMS, 1000);
	kbtn_put_u32(&req, KB_A_FPR_PPB, 10000000);
	kbtn_put_u64(&req, KB_A_WINDOW_MS, 3600000);
	kbtn_put_u32(&req, KB_A_SLICES, 2);
	ASSERT_EQ(0, kbtn_do(n, &req));
	kbtn_close(n);
	EXPECT_EQ(-EOPNOTSUPP, kbt_merge(fd, "m.win", r, 1, 0, NULL, NULL,
					NULL));
	EXPECT_EQ(0, kbt_destroy(fd, "m.cnt"));
	EXPECT_EQ(0, kbt_destroy(fd, "m.net"));
	EXPECT_EQ(0, kbt_destroy(fd, "m.win"));
	kbt_close(fd);
}

/*
 * Ranges of b covering every byte where it differs from a (gaps of up to
 * 8 equal bytes kept inside a range), at most max bytes long, listed
 * backwards (the kernel sorts them), the first repeated at the end
 * (overlaps are allowed); returns how many, 0 if room is too small.
 */
static __u32 mg_diff(const unsigned char *a, const unsigned char *b,
		     __u64 len, __u32 max, struct kb_merge_range *r,
		     __u32 room)
{
	__u64 o = 0, e, last;
	__u32 nr = 0, i;

	while (o < len) {
		if (a[o] == b[o]) {
			o++;
			continue;
		}
		if (nr == room - 1)
			return 0;
		for (last = e = o; e < len && e - o < max; e++) {
			if (a[e] != b[e])
				last = e;
			else if (e - last > 8)
				break;
		}
		r[nr++] = (struct kb_merge_range){ o, (uintptr_t)(b + o),
						   last + 1 - o };
		o = last + 1;
	}
	for (i = 0; i < nr / 2; i++) {
		struct kb_merge_range t = r[i];

		r[i] = r[nr - 1 - i];
		r[nr - 1 - i] = t;
	}
	if (nr)
		r[nr++] = r[0];
	return nr;
}

/* a's image but its key count and its CRC (a merge carries no count) */
static int mg_same_bits(const unsigned char *a, const unsigned char *b,
			long len)
{
	struct kb_image_hdr ha, hb;

	memcpy(&ha, a, sizeof(ha));
	memcpy(&hb, b, sizeof(hb));
	ha.count = hb.count = 0;
	return !memcmp(&ha, &hb, sizeof(ha)) &&
	       !memcmp(a + MG_HDR, b + MG_HDR, len - MG_HDR - 4);
}

TEST(diff_equals_upload)
{
	static const __u32 kinds[] = { KB_KIND_BLOCKED, KB_KIND_CLASSIC,
				       KB_KIND_GOZERO };
	struct kb_ioc_info iy, iz, ia;
	struct kb_merge_range *r;
	struct kb_ioc_create c;
	void *ia_img = NULL, *ib_img = NULL, *iy_img = NULL;
	unsigned char *pa, *pb;
	__u64 gen, bits, pl;
	long len;
	__u32 i, nr;
	int fd;

	WANTED();
	fd = kbt_open();
	ASSERT_LE(0, fd);
	r = calloc(KB_MERGE_RANGES_MAX, sizeof(*r));
	for (i = 0; i < 3; i++) {
		c = mg_spec("m.src", kinds[i]);
		ASSERT_EQ(0, kbt_create_spec(fd, &c));
		mg_fill(fd, "m.src", 2, 0, 500);
		len = kbt_export(fd, "m.src", 0, &ia_img);
		ASSERT_LT(0, len);
		mg_fill(fd, "m.src", 2, 500, 700);
		ASSERT_EQ(len, kbt_export(fd, "m.src", 0, &ib_img));
		pa = (unsigned char *)ia_img + MG_HDR;
		pb = (unsigned char *)ib_img + MG_HDR;
		pl = len - MG_HDR - 4;
		/* the follower: the older image, then the delta */
		ASSERT_EQ(0, kbt_upload(fd, "m.y", KB_IMAGE_F_CREATE, ia_img,
					len, NULL));
		ASSERT_EQ(0, kbt_info(fd, "m.y", &ia));
		nr = mg_diff(pa, pb, pl, 37, r, KB_MERGE_RANGES_MAX);
		ASSERT_LT(2, nr);
		gen = ia.generation;
		ASSERT_EQ(0, kbt_merge(fd, "m.y", r, nr, 500000000, &gen, &bits,
				      NULL));
		EXPECT_EQ(ia.generation, gen);
		/* the bits it set: exactly those of b not in a */
		EXPECT_EQ(mg_popcount(pb, pl) - mg_popcount(pa, pl), bits);
		ASSERT_EQ(len, kbt_export(fd, "m.y", 0, &iy_img));
		EXPECT_TRUE(mg_same_bits(iy_img, ib_img, len));
		/* the same again sets nothing, changes nothing */
		ASSERT_EQ(0, kbt_merge(fd, "m.y", r, nr, 0, &gen, &bits, NULL));
		EXPECT_EQ(0, bits);
		EXPECT_TRUE(mg_same(fd, "m.y", iy_img, len));
		/* the fill tracker: as a scan of the newer image counts it */
		ASSERT_EQ(0, kbt_upload(fd, "m.z", KB_IMAGE_F_CREATE, ib_img,
					len, NULL));
		ASSERT_EQ(0, kbt_info(fd, "m.y", &iy));
		ASSERT_EQ(0, kbt_info(fd, "m.z", &iz));
		EXPECT_EQ(mg_popcount(pb, pl) -
			  (kinds[i] == KB_KIND_CLASSIC ?
			   mg_popcount(pb + pl - 1, 1) : 0), iy.bits_set);
		EXPECT_EQ(iz.bits_set, iy.bits_set);
		EXPECT_EQ(iz.fill_ppm, iy.fill_ppm);
		EXPECT_EQ(iz.est_fpr_ppb, iy.est_fpr_ppb);
		EXPECT_EQ(iz.est_items, iy.est_items);
		EXPECT_EQ(ia.generation, iy.generation);
		/* every key of the newer image is there */
		EXPECT_EQ(1200, mg_hits(fd, "m.y", 2, 0, 1200));
		free(ia_img);
		free(ib_img);
		free(iy_img);
		ia_img = ib_img = iy_img = NULL;
		EXPECT_EQ(0, kbt_destroy(fd, "m.src"));
		EXPECT_EQ(0, kbt_destroy(fd, "m.y"));
		EXPECT_EQ(0, kbt_destroy(fd, "m.z"));
	}
	free(r);
	kbt_close(fd);
}

/* the guard refuses with an event; over capacity is told */
TEST(guard_events)
{
	char name[KB_NAME_MAX], name2[KB_NAME_MAX];
	struct kb_merge_range r;
	struct kb_ioc_info info;
	unsigned char *ones;
	void *ref = NULL;
	struct kbtn *ev;
	__u64 bits;
	__u32 why;
	long len;
	int fd;

	WANTED();
	fd = kbt_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "m.g", KB_KIND_BLOCKED, KB_KEY_BYTES,
				1000));
	mg_fill(fd, "m.g", 3, 0, 100);
	ASSERT_EQ(0, kbt_info(fd, "m.g", &info));
	len = kbt_export(fd, "m.g", 0, &ref);
	ASSERT_LT(0, len);
	ev = kbtn_open();
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, kbtn_join(ev));
	/* half the payload all ones: an FPR far over 10% */
	ones = malloc(info.bytes);
	memset(ones, 0xff, info.bytes);
	r = (struct kb_merge_range){ 0, (uintptr_t)ones, info.bytes / 2 };
	EXPECT_EQ(-EDOM, kbt_merge(fd, "m.g", &r, 1, 100000000, NULL, &bits,
				  &why));
	EXPECT_EQ(MG_WHY_SATURATED, why);
	EXPECT_TRUE(mg_same(fd, "m.g", ref, len));
	EXPECT_EQ(KB_EVENT_REFUSED, kbtn_event(ev, 2000, name, name2));
	EXPECT_STREQ("m.g", name);
	/* a small delta passes the same guard */
	r.len = 16;
	EXPECT_EQ(0, kbt_merge(fd, "m.g", &r, 1, 100000000, NULL, &bits,
			      NULL));
	EXPECT_LT(0, bits);
	/* without a guard it goes in: over capacity, told once */
	r.len = info.bytes / 2;
	EXPECT_EQ(0, kbt_merge(fd, "m.g", &r, 1, 0, NULL, &bits, NULL));
	EXPECT_EQ(KB_EVENT_OVER_CAPACITY, kbtn_event(ev, 2000, name, name2));
	EXPECT_STREQ("m.g", name);
	ASSERT_EQ(0, kbt_info(fd, "m.g", &info));
	EXPECT_TRUE(info.over_capacity);
	kbtn_close(ev);
	free(ones);
	free(ref);
	EXPECT_EQ(0, kbt_destroy(fd, "m.g"));
	kbt_close(fd);
}

/* a generation other than the one asked for: rebuilt, flushed, swapped */
TEST(stale)
{
	struct kb_merge_range r;
	struct kb_ioc_info info;
	unsigned char data[8];
	void *img = NULL;
	__u64 gen, g0, bits;
	long len;
	int fd;

	WANTED();
	fd = kbt_open();
	ASSERT_LE(0, fd);
	memset(data, 0x11, sizeof(data));
	r = (struct kb_merge_range){ 64, (uintptr_t)data, sizeof(data) };
	ASSERT_EQ(0, kbt_create(fd, "m.s", KB_KIND_BLOCKED, KB_KEY_BYTES,
				1000));
	mg_fill(fd, "m.s", 4, 0, 100);
	ASSERT_EQ(0, kbt_info(fd, "m.s", &info));
	g0 = info.generation;
	len = kbt_export(fd, "m.s", 0, &img);
	ASSERT_LT(0, len);
	/* a rebuild (an upload of the same image) */
	ASSERT_EQ(0, kbt_upload(fd, "m.s", 0, img, len, NULL));
	gen = g0;
	EXPECT_EQ(-ESTALE, kbt_merge(fd, "m.s", &r, 1, 0, &gen, NULL, NULL));
	EXPECT_TRUE(mg_same(fd, "m.s", img, len));
	ASSERT_EQ(0, kbt_info(fd, "m.s", &info));
	gen = info.generation;
	EXPECT_NE(g0, gen);
	EXPECT_EQ(0, kbt_merge(fd, "m.s", &r, 1, 0, &gen, &bits, NULL));
	EXPECT_EQ(info.generation, gen);
	/* a flush renews the generation in place */
	ASSERT_EQ(0, kbt_name_cmd(fd, KB_CMD_FLUSH, "m.s"));
	free(img);
	len = kbt_export(fd, "m.s", 0, &img);
	EXPECT_EQ(-ESTALE, kbt_merge(fd, "m.s", &r, 1, 0, &gen, NULL, NULL));
	EXPECT_TRUE(mg_same(fd, "m.s", img, len));
	/* 0: whichever is live */
	gen = 0;
	EXPECT_EQ(0, kbt_merge(fd, "m.s", &r, 1, 0, &gen, &bits, NULL));
	EXPECT_EQ(__builtin_popcountll(0x1111111111111111ULL), bits);
	ASSERT_EQ(0, kbt_info(fd, "m.s", &info));
	EXPECT_EQ(info.generation, gen);
	EXPECT_EQ(bits, info.bits_set);
	free(img);
	EXPECT_EQ(0, kbt_destroy(fd, "m.s"));
	kbt_close(fd);
}

static int mg_open_filter(int dev, const char *name, __u32 flags)
{
	struct kb_ioc_open a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	kbt_name(a.name, name);
	return ioctl(dev, KB_IOC_OPEN, &a) < 0 ? -errno : a.fd;
}

/* a filter's file: writers only, and no name */
TEST(filter_file)
{
	struct kb_merge_range r, all;
	struct kb_ioc_info info;
	unsigned char data[8];
	unsigned char *ones;
	void *img = NULL;
	int fd, ro, rw;
	__u32 why = 0;
	__u64 bits;
	long len;

	WANTED();
	fd = kbt_open();
	ASSERT_LE(0, fd);
	memset(data, 0x22, sizeof(data));
	r = (struct kb_merge_range){ 128, (uintptr_t)data, sizeof(data) };
	ASSERT_EQ(0, kbt_create(fd, "m.f", KB_KIND_BLOCKED, KB_KEY_BYTES,
				1000));
	len = kbt_export(fd, "m.f", 0, &img);
	ro = mg_open_filter(fd, "m.f", 0);
	rw = mg_open_filter(fd, "m.f", KB_OPEN_F_WRITE);
	ASSERT_LE(0, ro);
	ASSERT_LE(0, rw);
	EXPECT_EQ(-EPERM, kbt_merge(ro, NULL, &r, 1, 0, NULL, NULL, NULL));
	EXPECT_EQ(-EINVAL, kbt_merge(rw, "m.f", &r, 1, 0, NULL, NULL, NULL));
	EXPECT_TRUE(mg_same(fd, "m.f", img, len));
	EXPECT_EQ(0, kbt_merge(rw, NULL, &r, 1, 0, NULL, &bits, NULL));
	EXPECT_EQ(16, bits);
	EXPECT_FALSE(mg_same(fd, "m.f", img, len));
	/*
	 * A writer's merge is held to the filter's cap even unguarded (0)
	 * or guarded loosely: all ones would block everything.  Through
	 * /dev/kbloom the administrator's 0 still means no guard.
	 */
	free(img);
	len = kbt_export(fd, "m.f", 0, &img);
	ASSERT_EQ(0, kbt_info(fd, "m.f", &info));
	ones = malloc(info.bytes);
	ASSERT_NE(NULL, ones);
	memset(ones, 0xff, info.bytes);
	all = (struct kb_merge_range){ 0, (uintptr_t)ones, info.bytes };
	EXPECT_EQ(-EDOM, kbt_merge(rw, NULL, &all, 1, 0, NULL, NULL, &why));
	EXPECT_EQ(MG_WHY_SATURATED, why);
	EXPECT_EQ(-EDOM, kbt_merge(rw, NULL, &all, 1, 1000000000, NULL, NULL,
				  NULL));
	EXPECT_TRUE(mg_same(fd, "m.f", img, len));
	EXPECT_EQ(0, kbt_merge(fd, "m.f", &all, 1, 0, NULL, NULL, NULL));
	EXPECT_FALSE(mg_same(fd, "m.f", img, len));
	free(ones);
	/* destroyed under the file: ENOENT */
	EXPECT_EQ(0, kbt_destroy(fd, "m.f"));
	EXPECT_EQ(-ENOENT, kbt_merge(rw, NULL, &r, 1, 0, NULL, NULL, NULL));
	close(ro);
	close(rw);
	free(img);
	kbt_close(fd);
}

/* ---- beside lookups and bulk adds (the smp lane) ------------------------ */

struct mg_conc {
	int fd;
	const char *name;
	volatile int stop;
	__u64 rounds;
	__u64 misses;
	__u64 added;
};

/* the keys of family 5 added first must answer present throughout */
static void *mg_lookups(void *arg)
{
	struct mg_conc *c = arg;
	void *keys = kbt_keys16(5, 0, 500);
	struct kb_ioc_keys k;

	while (!c->stop) {
		if (kbt_keys(c->fd, KB_IOC_TEST, c->name, 0, keys, 16, 500,
			     NULL, &k) || k.hits != 500)
			c->misses++;
		c->rounds++;
	}
	free(keys);
	return NULL;
}

static void *mg_adds(void *arg)
{
	struct mg_conc *c = arg;

	while (!c->stop && c->added < 20000) {
		mg_fill(c->fd, c->name, 6, c->added, 50);
		c->added += 50;
	}
	return NULL;
}

static __u64 mg_rand(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

TEST(concurrent)
{
	static const __u32 kinds[] = { KB_KIND_BLOCKED, KB_KIND_CLASSIC };
	struct kb_merge_range r[8];
	struct kb_ioc_info info;
	struct kb_ioc_create c;
	pthread_t tl, ta;
	unsigned char *data, *p;
	void *img = NULL;
	__u64 seed = 0x9e3779b97f4a7c15ULL, bits, total, j, o;
	__u32 i, round, nr, lost;
	long len;
	int fd;

	WANTED();
	fd = kbt_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 2; i++) {
		struct mg_conc cc = { .fd = fd, .name = "m.c" };

		c = kbt_spec("m.c", kinds[i], KB_KEY_BYTES, 100000, 10000000);
		ASSERT_EQ(0, kbt_create_spec(fd, &c));
		mg_fill(fd, "m.c", 5, 0, 500);
		ASSERT_EQ(0, kbt_info(fd, "m.c", &info));
		/* sparse bytes: one bit of a random byte every few bytes */
		data = calloc(1, info.bytes);
		ASSERT_EQ(0, pthread_create(&tl, NULL, mg_lookups, &cc));
		ASSERT_EQ(0, pthread_create(&ta, NULL, mg_adds, &cc));
		total = 0;
		for (round = 0; round < 200; round++) {
			nr = 1 + mg_rand(&seed) % 8;
			for (j = 0; j < nr; j++) {
				__u64 l = 1 + mg_rand(&seed) % 4096;

				o = mg_rand(&seed) % (info.bytes - 1 - l);
				r[j] = (struct kb_merge_range){ o,
					(uintptr_t)(data + o), l };
				for (; l; l -= 1, o++)
					if (!(mg_rand(&seed) % 7))
						data[o] |= 1U << (mg_rand(&seed) % 8);
			}
			ASSERT_EQ(0, kbt_merge(fd, "m.c", r, nr, 0, NULL, &bits,
					      NULL));
			total += bits;
			sched_yield();
		}
		cc.stop = 1;
		pthread_join(tl, NULL);
		pthread_join(ta, NULL);
		EXPECT_EQ(0, cc.misses);
		EXPECT_LT(0, cc.rounds);
		EXPECT_LT(0, total);
		/* nothing lost: every merged bit, every added key */
		len = kbt_export(fd, "m.c", 0, &img);
		ASSERT_LT(0, len);
		p = (unsigned char *)img + MG_HDR;
		for (lost = 0, o = 0; o < info.bytes - 1; o++)
			lost += (p[o] & data[o]) != data[o];
		EXPECT_EQ(0, lost);
		EXPECT_EQ(cc.added, mg_hits(fd, "m.c", 6, 0, cc.added));
		EXPECT_EQ(500, mg_hits(fd, "m.c", 5, 0, 500));
		/* and the fill tracker counted every bit exactly once */
		ASSERT_EQ(0, kbt_info(fd, "m.c", &info));
		EXPECT_EQ(mg_popcount(p, info.bytes) -
			  (kinds[i] == KB_KIND_CLASSIC ?
			   mg_popcount(p + info.bytes - 1, 1) : 0),
			  info.bits_set);
		free(img);
		img = NULL;
		free(data);
		EXPECT_EQ(0, kbt_destroy(fd, "m.c"));
	}
	kbt_close(fd);
}

/* ---- two merges at once against one guard (the smp lane) ---------------- */

#define MG_RACE_BYTES	(8U << 20)	/* the payload: 2^26 bits */
#define MG_RACE_ROUNDS	16

struct mg_racer {
	pthread_barrier_t *go;
	int fd;
	struct kb_merge_range r;
	int ret;
};

static void *mg_racer(void *arg)
{
	struct mg_racer *m = arg;

	pthread_barrier_wait(m->go);
	m->ret = kbt_merge(m->fd, "m.r", &m->r, 1, 450000000, NULL, NULL, NULL);
	return NULL;
}

/*
 * Two merges at once, each of 30% of a blocked filter's blocks all ones
 * (FPR about 0.3) under a 0.45 guard: either passes alone, not both.
 * Exactly one goes in, and none of the other's bits, whatever the timing.
 * Without the merge lock, a count that starts before the other's last
 * piece misses it and both pass: racers leaving one barrier with the same
 * work (2.4 MiB each) do so in about one round of three on two vCPUs.
 */
TEST(guard_race)
{
	pthread_barrier_t go;
	struct mg_racer m[2];
	struct kb_ioc_info info;
	struct kb_ioc_create c;
	pthread_t th[2];
	unsigned char *ones, *p;
	/* block-aligned, disjoint: [0, 30%) and [50%, 80%) */
	__u64 len30 = MG_RACE_BYTES / 10 * 3 & ~63ULL, o, set, clear;
	__u64 at[2] = { 0, MG_RACE_BYTES / 2 };
	unsigned int round, both = 0, none = 0, bad = 0, i, w;
	int fd = kbt_open(), fds[2] = { kbt_open(), kbt_open() };
	void *img = NULL;
	long len;

	WANTED();
	ASSERT_LE(0, fd);
	ASSERT_LE(0, fds[0]);
	ASSERT_LE(0, fds[1]);
	ones = malloc(MG_RACE_BYTES);
	ASSERT_NE(NULL, ones);
	memset(ones, 0xff, MG_RACE_BYTES);
	c = kbt_spec("m.r", KB_KIND_BLOCKED, KB_KEY_BYTES, 0, 0);
	c.sizing = KB_SIZING_MK;
	c.m = (__u64)MG_RACE_BYTES * 8;
	c.k = 7;
	for (round = 0; round < MG_RACE_ROUNDS; round++) {
		kbt_destroy(fd, "m.r");
		ASSERT_EQ(0, kbt_create_spec(fd, &c));
		ASSERT_EQ(0, pthread_barrier_init(&go, NULL, 2));
		for (i = 0; i < 2; i++) {
			m[i] = (struct mg_racer){ &go, fds[i], { at[i],
				(uintptr_t)(ones + at[i]), len30 }, 1 };
			ASSERT_EQ(0, pthread_create(&th[i], NULL, mg_racer,
						    &m[i]));
		}
		for (i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&go);
		if (!m[0].ret == !m[1].ret) {	/* not exactly one */
			both += !m[0].ret;
			none += !!m[0].ret;
			TH_LOG("round %u: %d %d", round, m[0].ret, m[1].ret);
			continue;
		}
		w = m[0].ret ? 1 : 0;		/* the one that went in */
		EXPECT_EQ(-EDOM, m[!w].ret);
		/* the winner's bytes all ones; the loser's and the rest zero */
		len = kbt_export(fd, "m.r", 0, &img);
		ASSERT_EQ(MG_HDR + MG_RACE_BYTES + 4, len);
		p = (unsigned char *)img + MG_HDR;
		for (set = clear = 0, o = 0; o < MG_RACE_BYTES; o++) {
			if (o >= at[w] && o < at[w] + len30)
				set += p[o] == 0xff;
			else
				clear += !p[o];
		}
		bad += set != len30 || clear != MG_RACE_BYTES - len30;
		ASSERT_EQ(0, kbt_info(fd, "m.r", &info));
		EXPECT_EQ(len30 * 8, info.bits_set);
		free(img);
		img = NULL;
	}
	TH_LOG("%u rounds: both merged %u, none %u", MG_RACE_ROUNDS, both,
	       none);
	EXPECT_EQ(0, both);
	EXPECT_EQ(0, none);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, kbt_destroy(fd, "m.r"));
	free(ones);
	for (i = 0; i < 2; i++)
		kbt_close(fds[i]);
	kbt_close(fd);
}

TEST_HARNESS_MAIN
