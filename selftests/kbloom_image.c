// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kbloom images: export, upload (create, replace), and every kind of
 * bad image refused with its errno and reason, the filter unchanged; the
 * saturation guard of upload and commit.
 */
#include "kselftest_harness.h"
#include "kb_test.h"

static void fill(int fd, const char *name, __u32 fam, __u64 n)
{
	void *keys = kbt_keys16(fam, 0, n);

	kbt_keys(fd, KB_IOC_ADD, name, 0, keys, 16, n, NULL, NULL);
	free(keys);
}

TEST(export_upload)
{
	struct kb_ioc_image im;
	struct kb_ioc_info info;
	struct kb_ioc_keys k;
	void *img = NULL, *img2 = NULL, *keys = kbt_keys16(8, 0, 1000);
	long len, len2;
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "t.ex", KB_KIND_BLOCKED, KB_KEY_BYTES,
				1000));
	fill(fd, "t.ex", 8, 1000);
	/* size query: ENOSPC and the size */
	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	kbt_name(im.name, "t.ex");
	ASSERT_EQ(-ENOSPC, kbt_ioc(fd, KB_IOC_EXPORT, &im));
	ASSERT_EQ(0, kbt_info(fd, "t.ex", &info));
	EXPECT_EQ(128 + info.bytes + 4, im.image_len);
	len = kbt_export(fd, "t.ex", 0, &img);
	ASSERT_EQ(128 + info.bytes + 4, len);
	EXPECT_EQ(KB_IMAGE_MAGIC, ((struct kb_image_hdr *)img)->magic);
	EXPECT_EQ(info.count, ((struct kb_image_hdr *)img)->count);
	ASSERT_EQ(0, kbt_destroy(fd, "t.ex"));
	EXPECT_EQ(-ENOENT, kbt_upload(fd, "t.ex", 0, img, len, NULL));
	ASSERT_EQ(0, kbt_upload(fd, "t.ex", KB_IMAGE_F_CREATE, img, len,
				NULL));
	ASSERT_EQ(0, kbt_keys(fd, KB_IOC_TEST, "t.ex", 0, keys, 16, 1000, NULL,
			      &k));
	EXPECT_EQ(1000, k.hits);
	len2 = kbt_export(fd, "t.ex", 0, &img2);
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(img, img2, len));
	free(img2);
	/* upload over a live filter replaces it */
	ASSERT_EQ(0, kbt_name_cmd(fd, KB_CMD_FLUSH, "t.ex"));
	ASSERT_EQ(0, kbt_upload(fd, "t.ex", 0, img, len, NULL));
	ASSERT_EQ(0, kbt_keys(fd, KB_IOC_TEST, "t.ex", 0, keys, 16, 1000, NULL,
			      &k));
	EXPECT_EQ(1000, k.hits);
	/* ... but not with another key type */
	ASSERT_EQ(0, kbt_create(fd, "t.ex6", KB_KIND_BLOCKED, KB_KEY_IPV6,
				10));
	EXPECT_EQ(-EINVAL, kbt_upload(fd, "t.ex6", 0, img, len, NULL));
	/* flags */
	EXPECT_EQ(-EINVAL, kbt_upload(fd, "t.ex", 4, img, len, NULL));
	EXPECT_EQ(-EINVAL, kbt_upload(fd, "t.ex", KB_IMAGE_F_CREATE |
				      KB_IMAGE_F_TXN, img, len, NULL));
	EXPECT_EQ(-ENOENT, kbt_upload(fd, "t.ex", KB_IMAGE_F_TXN, img, len,
				      NULL));
	EXPECT_EQ(0, kbt_destroy(fd, "t.ex"));
	EXPECT_EQ(0, kbt_destroy(fd, "t.ex6"));
	free(img);
	free(keys);
	close(fd);
}

static __u32 crc32c(const unsigned char *p, size_t n)
{
	__u32 c = ~0U;
	int b;

	while (n--) {
		c ^= *p++;
		for (b = 0; b < 8; b++)
			c = (c >> 1) ^ (0x82f63b78U & -(c & 1));
	}
	return ~c;
}

static void recrc(unsigned char *img, size_t len)
{
	__u32 c = crc32c(img, len - 4);

	memcpy(img + len - 4, &c, 4);
}

/* enum kb_img_err (kb_core.h, not the ABI): bits set past a gozero m */
#define KB_IMG_GOZERO_PAD_WHY	22

TEST(bad_images)
{
	struct kb_image_hdr *h;
	unsigned char *img, *bad;
	void *ref = NULL, *now = NULL;
	long len, len2;
	__u32 why;
	char old[64];
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbt_create(fd, "t.img", KB_KIND_BLOCKED, KB_KEY_BYTES,
				2000));
	fill(fd, "t.img", 9, 2000);
	len = kbt_export(fd, "t.img", 0, &ref);
	ASSERT_LT(0, len);
	img = ref;
	bad = malloc(len + 8);
	h = (struct kb_image_hdr *)bad;

#define TRY(errno_, why_, fix) do {					\
		memcpy(bad, img, len);					\
		len2 = len;						\
		fix;							\
		EXPECT_EQ(errno_, kbt_upload(fd, "t.img", 0, bad, len2,	\
					     &why));			\
		EXPECT_EQ(why_, why);					\
	} while (0)

	TRY(-EINVAL, 1 /* TRUNCATED */, len2 = len - 1);
	TRY(-EINVAL, 1, len2 = 100);
	TRY(-EINVAL, 2 /* BAD_MAGIC */, h->magic ^= 1; recrc(bad, len2));
	TRY(-EINVAL, 3 /* BAD_VERSION */, h->version = 2; recrc(bad, len2));
	TRY(-EINVAL, 5 /* BAD_KIND */, h->kind = 9; recrc(bad, len2));
	TRY(-EINVAL, 9 /* BAD_K */, h->k = 0; recrc(bad, len2));
	TRY(-EINVAL, 16 /* BAD_RESERVED */, h->reserved[1] = 1;
	    recrc(bad, len2));
	TRY(-EINVAL, 15 /* BAD_FLAGS */, h->flags = 1; recrc(bad, len2));
	TRY(-EINVAL, 18 /* TRAILING */, len2 = len + 1; bad[len] = 0);
	TRY(-EBADMSG, 20 /* BAD_CRC */, bad[200] ^= 0x10);
	TRY(-EBADMSG, 20, bad[len - 1] ^= 1);
	/* over max_filter_bytes */
	ASSERT_EQ(0, kbt_param_read("/sys/module/kbloom/parameters/max_filter_bytes",
				    old, sizeof(old)));
	ASSERT_EQ(0, kbt_param_write("/sys/module/kbloom/parameters/max_filter_bytes",
				     "1024"));
	TRY(-E2BIG, 11 /* TOO_BIG */, (void)0);
	ASSERT_EQ(0, kbt_param_write("/sys/module/kbloom/parameters/max_filter_bytes",
				     old));
#undef TRY
	/* the filter is unchanged */
	len2 = kbt_export(fd, "t.img", 0, &now);
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(ref, now, len));
	EXPECT_EQ(0, kbt_destroy(fd, "t.img"));
	free(now);
	free(ref);
	free(bad);
	close(fd);
}

/*
 * gozero: any m (here not a multiple of 8), the payload is the bytes of
 * the Redis value; an image with bits set past m is refused, and the
 * filter keeps serving.
 */
TEST(gozero_images)
{
	struct kb_ioc_create c = kbt_spec("t.gz", KB_KIND_GOZERO, KB_KEY_BYTES,
					  0, 0);
	unsigned char *img, *bad;
	void *ref = NULL, *now = NULL;
	long len, len2;
	__u32 why;
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(KB_HASH_MURMUR3, c.hash);
	c.sizing = KB_SIZING_MK;
	c.m = 1001;
	c.k = 14;
	ASSERT_EQ(0, kbt_create_spec(fd, &c));
	fill(fd, "t.gz", 11, 50);
	len = kbt_export(fd, "t.gz", 0, &ref);
	/* header, ceil(1001 / 8) = 126 payload bytes, CRC */
	ASSERT_EQ(128 + 126 + 4, len);
	img = ref;
	bad = malloc(len);
	ASSERT_TRUE(bad != NULL);
	memcpy(bad, img, len);
	/* bit 1001 is bit 1 of the last byte: mask 0x80 >> 1 */
	bad[128 + 125] |= 0x40;
	recrc(bad, len);
	EXPECT_EQ(-EINVAL, kbt_upload(fd, "t.gz", 0, bad, len, &why));
	EXPECT_EQ(KB_IMG_GOZERO_PAD_WHY, why);
	/* the refused upload changed nothing */
	len2 = kbt_export(fd, "t.gz", 0, &now);
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(ref, now, len));
	free(now);
	now = NULL;
	/* bit 1000 (mask 0x80) is inside: a valid image, served as is */
	memcpy(bad, img, len);
	bad[128 + 125] |= 0x80;
	recrc(bad, len);
	EXPECT_EQ(0, kbt_upload(fd, "t.gz", 0, bad, len, &why));
	len2 = kbt_export(fd, "t.gz", 0, &now);
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(bad + 128, (unsigned char *)now + 128, 126));
	EXPECT_EQ(0, kbt_destroy(fd, "t.gz"));
	free(now);
	free(ref);
	free(bad);
	close(fd);
}

/* enum kb_img_err: the saturation guard refused the image */
#define KB_IMG_SATURATED_WHY	24

static int commit_max(int fd, __u32 max_fpr_ppb, __u32 reserved)
{
	struct kb_ioc_txn t = { .size = sizeof(t), .max_fpr_ppb = max_fpr_ppb,
				.reserved = reserved };

	return kbt_ioc(fd, KB_IOC_TXN_COMMIT, &t);
}

/*
 * The saturation guard (max_fpr_ppb of an upload, of a VER1 commit): an
 * image with every bit set is refused with EDOM when a limit is given,
 * and the filter serves unchanged; 0 (old callers) takes it as before.
 */
TEST(saturation_guard)
{
	struct kb_ioc_create c = kbt_spec("t.sat", KB_KIND_GOZERO, KB_KEY_BYTES,
					  0, 0);
	struct kb_ioc_txn t = { .size = sizeof(t) };
	struct kb_ioc_image im;
	unsigned char *ones;
	void *ref = NULL, *now = NULL;
	long len;
	__u32 why = 0;
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	c.sizing = KB_SIZING_MK;
	c.m = 1001;
	c.k = 14;
	ASSERT_EQ(0, kbt_create_spec(fd, &c));
	fill(fd, "t.sat", 12, 50);
	len = kbt_export(fd, "t.sat", 0, &ref);
	ASSERT_EQ(128 + 126 + 4, len);
	ones = malloc(len);
	ASSERT_TRUE(ones != NULL);
	memcpy(ones, ref, len);
	memset(ones + 128, 0xff, 125);
	ones[128 + 125] = 0x80;		/* bit 1000, the last */
	recrc(ones, len);
	/* upload: refused at 1%, the filter as it was */
	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	kbt_name(im.name, "t.sat");
	im.image = (uintptr_t)ones;
	im.image_len = len;
	im.max_fpr_ppb = 10000000;
	EXPECT_EQ(-EDOM, kbt_ioc(fd, KB_IOC_UPLOAD, &im));
	EXPECT_EQ(KB_IMG_SATURATED_WHY, im.why);
	ASSERT_EQ(len, kbt_export(fd, "t.sat", 0, &now));
	EXPECT_EQ(0, memcmp(ref, now, len));
	free(now);
	/* ... so is a create from it: nothing created */
	kbt_name(im.name, "t.sat2");
	im.flags = KB_IMAGE_F_CREATE;
	EXPECT_EQ(-EDOM, kbt_ioc(fd, KB_IOC_UPLOAD, &im));
	EXPECT_EQ(-ENOENT, kbt_destroy(fd, "t.sat2"));
	/* a transaction's upload takes its limit at commit */
	im.flags = KB_IMAGE_F_TXN;
	kbt_name(im.name, "t.sat");
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_UPLOAD, &im));
	/* the filter's own image passes; a limit of 1 takes anything */
	im.flags = 0;
	im.image = (uintptr_t)ref;
	EXPECT_EQ(0, kbt_ioc(fd, KB_IOC_UPLOAD, &im));
	im.image = (uintptr_t)ones;
	im.max_fpr_ppb = 1000000000;
	EXPECT_EQ(0, kbt_ioc(fd, KB_IOC_UPLOAD, &im));
	EXPECT_EQ(0, kbt_upload(fd, "t.sat", 0, ref, len, NULL));
	/* commit: the same, and the transaction ends */
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_upload(fd, "t.sat", KB_IMAGE_F_TXN, ones, len, &why));
	EXPECT_EQ(-EINVAL, commit_max(fd, 10000000, 1));	/* reserved */
	t.max_fpr_ppb = 1;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_ABORT, &t));
	EXPECT_EQ(-EDOM, commit_max(fd, 10000000, 0));
	EXPECT_EQ(-ENOENT, kbt_txn(fd, KB_IOC_TXN_ABORT));
	ASSERT_EQ(len, kbt_export(fd, "t.sat", 0, &now));
	EXPECT_EQ(0, memcmp(ref, now, len));
	free(now);
	/* raw writes are counted at commit, then checked */
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_txn_write(fd, "t.sat", 0, ones + 128, 126));
	EXPECT_EQ(-EDOM, commit_max(fd, 10000000, 0));
	/* without a limit (VER0 callers) it loads as before */
	ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	ASSERT_EQ(0, kbt_upload(fd, "t.sat", KB_IMAGE_F_TXN, ones, len, &why));
	EXPECT_EQ(0, kbt_txn(fd, KB_IOC_TXN_COMMIT));
	ASSERT_EQ(len, kbt_export(fd, "t.sat", 0, &now));
	EXPECT_EQ(0, memcmp(ones + 128, (unsigned char *)now + 128, 126));
	free(now);
	EXPECT_EQ(0, kbt_destroy(fd, "t.sat"));
	free(ref);
	free(ones);
	close(fd);
}

TEST_HARNESS_MAIN
