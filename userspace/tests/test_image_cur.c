// SPDX-License-Identifier: GPL-2.0
/*
 * The image cursor (struct kb_image_cur), the one reader/writer of images
 * that the kernel's upload and exports and bfctl share: pieces of any size
 * on either side give and take the same bytes as an image built here by
 * hand from the layout; a corrupted byte anywhere is rejected with the
 * check it breaks; an image cut short at any offset, or with a byte too
 * many, is rejected before it is accepted.
 */
#include <stddef.h>
#include "kselftest_harness.h"
#include "kbtest.h"

#define HSZ	((u64)sizeof(struct kb_image_hdr))

static const u32 kinds[] = { KB_KIND_BLOCKED, KB_KIND_CLASSIC,
			     KB_KIND_COUNTING };

/* a filled filter of kind, and its image built from the layout alone */
struct ref {
	struct kb_filter f;
	void *pl;
	u8 *img;
	u64 len;
};

static void mk_ref(struct ref *r, u32 kind)
{
	struct kb_key *keys = kbut_keys(300, 12, 77 + kind);
	struct kb_params p;
	u64 plen, i;
	u32 crc;

	kb_params_init(&p, kind);
	if (kind == KB_KIND_BLOCKED) {
		p.hash = KB_HASH_SIPHASH;
		p.seed[0] = 0x1234;
		p.seed[1] = 0x5678;
	}
	kb_params_from_fpr(&p, 500, 10000000, 0);
	r->pl = kbut_filter(&r->f, &p);
	if (!r->pl)
		abort();
	kbut_add_all(&r->f, keys, 300);
	kbut_keys_free(keys);
	plen = r->f.bytes;
	r->len = HSZ + plen + KB_IMAGE_TRAILER_LEN;
	r->img = malloc(r->len);
	if (!r->img)
		abort();
	kb_image_fill_header((struct kb_image_hdr *)r->img, &r->f.p, 42);
	if (kind == KB_KIND_CLASSIC) {
		memcpy(r->img + HSZ, r->f.payload, plen);
	} else {
		for (i = 0; i < plen / 8; i++) {
			u64 v = htole64(((u64 *)r->f.payload)[i]);

			memcpy(r->img + HSZ + 8 * i, &v, 8);
		}
	}
	crc = kb_image_crc_final(kb_image_crc_update(kb_image_crc_init(),
						     r->img, HSZ + plen));
	crc = htole32(crc);
	memcpy(r->img + HSZ + plen, &crc, 4);
}

static void free_ref(struct ref *r)
{
	free(r->pl);
	free(r->img);
}

/* read b[0, len) as an image of total bytes, in pieces of step bytes */
static int cur_read(const u8 *b, u64 len, u64 total, u64 step,
		    struct kb_image_cur *c, u8 **payload)
{
	u64 off = 0, room, n;
	void *dst;
	int ret;

	*payload = NULL;
	kb_image_cur_read_begin(c, total, 0);
	while (off < len && (dst = kb_image_cur_buf(c, &room))) {
		n = room < step ? room : step;
		if (n > len - off)
			n = len - off;
		memcpy(dst, b + off, n);
		off += n;
		ret = kb_image_cur_advance(c, n);
		if (ret)
			return ret;
		if (kb_image_cur_wants_payload(c)) {
			*payload = malloc(c->payload_len);
			if (!*payload)
				abort();
			c->payload = *payload;
		}
	}
	return kb_image_cur_read_end(c);
}

TEST(produce_any_piece_size_gives_the_layout)
{
	for (int ki = 0; ki < 3; ki++) {
		struct ref r;
		u8 *out;

		mk_ref(&r, kinds[ki]);
		out = malloc(r.len + 1);
		ASSERT_NE(NULL, out);
		for (u64 step = 1; step <= r.len + 1;
		     step += step < 200 ? 1 : 97) {
			struct kb_image_cur c;
			u64 off = 0, n;

			memset(out, 0xa5, r.len + 1);
			kb_image_cur_write_begin(&c, &r.f.p, 42);
			ASSERT_EQ(r.len, c.total);
			while (off < c.total) {
				/* the filter only where the piece has payload */
				const struct kb_filter *f =
					kb_image_cur_wants_filter(&c, step) ?
					&r.f : NULL;

				u64 want = step < c.total - off ?
					   step : c.total - off;

				n = kb_image_cur_produce(&c, f, out + off,
							 step);
				ASSERT_EQ(want, n);
				off += n;
			}
			/* done: nothing more, nothing written past the end */
			ASSERT_EQ(0, kb_image_cur_produce(&c, &r.f, out + off,
							  8));
			ASSERT_EQ(0, memcmp(r.img, out, r.len))
				TH_LOG("kind %u step %llu", kinds[ki],
				       (unsigned long long)step);
			ASSERT_EQ(0xa5, out[r.len]);
		}
		/* the whole-buffer writer is the cursor too */
		ASSERT_EQ((s64)r.len, kb_image_write(&r.f, 42, out, r.len));
		ASSERT_EQ(0, memcmp(r.img, out, r.len));
		ASSERT_EQ(-E2BIG, kb_image_write(&r.f, 42, out, r.len - 1));
		free(out);
		free_ref(&r);
	}
}

TEST(read_any_piece_size_accepts)
{
	for (int ki = 0; ki < 3; ki++) {
		struct ref r;

		mk_ref(&r, kinds[ki]);
		for (u64 step = 1; step <= r.len + 1;
		     step += step < 200 ? 1 : 97) {
			struct kb_image_cur c;
			u8 *pl;

			ASSERT_EQ(0, cur_read(r.img, r.len, r.len, step, &c,
					      &pl))
				TH_LOG("kind %u step %llu: %s", kinds[ki],
				       (unsigned long long)step,
				       kb_image_strerror(c.why));
			ASSERT_EQ(KB_IMG_OK, c.why);
			ASSERT_EQ(42, c.count);
			ASSERT_EQ(r.f.bytes, c.payload_len);
			ASSERT_EQ(0, memcmp(&r.f.p, &c.p, sizeof(c.p)));
			ASSERT_EQ(0, memcmp(r.img + HSZ, pl, c.payload_len));
			ASSERT_EQ(NULL, kb_image_cur_buf(&c, &(u64){ 0 }));
			free(pl);
		}
		free_ref(&r);
	}
}

/* what a corrupted image must be rejected for */
static enum kb_img_err expect_why(const u8 *b, u64 len, int *err)
{
	struct kb_params p;
	enum kb_img_err w;
	u64 plen;

	*err = kb_image_parse_header(b, HSZ, len, 0, &p, &plen, NULL, &w);
	if (*err)
		return w;
	/* a header that still checks out: the CRC catches the change */
	*err = -EBADMSG;
	return KB_IMG_BAD_CRC;
}

TEST(corrupt_byte_anywhere_rejected_with_its_reason)
{
	for (int ki = 0; ki < 3; ki++) {
		struct ref r;

		mk_ref(&r, kinds[ki]);
		for (u64 off = 0; off < r.len; off++) {
			u8 *b = malloc(r.len);
			struct kb_image_cur c;
			enum kb_img_err want;
			int err;
			u8 *pl;

			ASSERT_NE(NULL, b);
			memcpy(b, r.img, r.len);
			b[off] ^= 0x10;
			want = expect_why(b, r.len, &err);
			ASSERT_EQ(err, cur_read(b, r.len, r.len, 1 + off % 61,
						&c, &pl))
				TH_LOG("kind %u byte %llu", kinds[ki],
				       (unsigned long long)off);
			ASSERT_EQ(want, c.why)
				TH_LOG("kind %u byte %llu: %s", kinds[ki],
				       (unsigned long long)off,
				       kb_image_strerror(c.why));
			/* a failure sticks: no more bytes are taken */
			ASSERT_EQ(NULL, kb_image_cur_buf(&c, &(u64){ 0 }));
			ASSERT_EQ(err, kb_image_cur_advance(&c, 0));
			ASSERT_EQ(err, kb_image_cur_read_end(&c));
			free(pl);
			free(b);
		}
		free_ref(&r);
	}
}

/* a classic image whose CRC is right but whose trailing k byte is not */
TEST(classic_k_byte_checked_at_the_end)
{
	struct kb_image_cur c;
	struct ref r;
	u32 crc;
	u8 *pl;

	mk_ref(&r, KB_KIND_CLASSIC);
	r.img[HSZ + r.f.bytes - 1] ^= 1;
	crc = htole32(kb_image_crc_final(kb_image_crc_update(
		kb_image_crc_init(), r.img, HSZ + r.f.bytes)));
	memcpy(r.img + HSZ + r.f.bytes, &crc, 4);
	ASSERT_EQ(-EINVAL, cur_read(r.img, r.len, r.len, 7, &c, &pl));
	ASSERT_EQ(KB_IMG_CLASSIC_K, c.why);
	free(pl);
	free_ref(&r);
}

TEST(truncated_at_every_offset_rejected)
{
	for (int ki = 0; ki < 3; ki++) {
		struct ref r;

		mk_ref(&r, kinds[ki]);
		for (u64 cut = 0; cut < r.len; cut++) {
			struct kb_image_cur c;
			u8 *pl;

			/* an input of cut bytes: the header says too short */
			ASSERT_EQ(-EINVAL, cur_read(r.img, cut, cut, 13, &c,
						    &pl));
			ASSERT_EQ(KB_IMG_TRUNCATED, c.why)
				TH_LOG("kind %u input of %llu: %s", kinds[ki],
				       (unsigned long long)cut,
				       kb_image_strerror(c.why));
			free(pl);
			/* the whole length announced, the bytes stop at cut */
			ASSERT_EQ(-EINVAL, cur_read(r.img, cut, r.len, 13, &c,
						    &pl));
			ASSERT_EQ(KB_IMG_TRUNCATED, c.why)
				TH_LOG("kind %u stopped at %llu: %s",
				       kinds[ki], (unsigned long long)cut,
				       kb_image_strerror(c.why));
			free(pl);
		}
		free_ref(&r);
	}
}

TEST(trailing_byte_rejected_before_the_payload)
{
	struct kb_image_cur c;
	struct ref r;
	u8 *b, *pl;

	mk_ref(&r, KB_KIND_COUNTING);
	b = calloc(1, r.len + 1);
	ASSERT_NE(NULL, b);
	memcpy(b, r.img, r.len);
	ASSERT_EQ(-EINVAL, cur_read(b, r.len + 1, r.len + 1, 5, &c, &pl));
	ASSERT_EQ(KB_IMG_TRAILING, c.why);
	ASSERT_EQ(NULL, pl);
	ASSERT_EQ(HSZ, c.off);
	free(b);
	free_ref(&r);
}

TEST(payload_limit_rejected_after_the_header)
{
	struct kb_image_cur c;
	struct ref r;

	mk_ref(&r, KB_KIND_BLOCKED);
	kb_image_cur_read_begin(&c, r.len, r.f.bytes - 1);
	ASSERT_EQ(-E2BIG, kb_image_cur_consume(&c, r.img, r.len));
	ASSERT_EQ(KB_IMG_TOO_BIG, c.why);
	ASSERT_EQ(HSZ, c.off);
	free_ref(&r);
}

/* consume() stops where the payload's place is needed, and goes on */
TEST(consume_waits_for_the_payload_place)
{
	struct kb_image_cur c;
	struct ref r;
	u8 *pl;

	mk_ref(&r, KB_KIND_BLOCKED);
	kb_image_cur_read_begin(&c, r.len, 0);
	ASSERT_EQ((s64)HSZ, kb_image_cur_consume(&c, r.img, r.len));
	ASSERT_TRUE(kb_image_cur_wants_payload(&c));
	ASSERT_EQ(NULL, kb_image_cur_buf(&c, &(u64){ 0 }));
	/* more than the buffer says: refused, and that sticks */
	pl = malloc(r.f.bytes);
	ASSERT_NE(NULL, pl);
	c.payload = pl;
	ASSERT_EQ(-EINVAL, kb_image_cur_advance(&c, r.f.bytes + 1));
	ASSERT_EQ(-EINVAL, kb_image_cur_read_end(&c));
	/* again, properly */
	kb_image_cur_read_begin(&c, r.len, 0);
	ASSERT_EQ((s64)HSZ, kb_image_cur_consume(&c, r.img, r.len));
	c.payload = pl;
	ASSERT_EQ((s64)(r.len - HSZ),
		  kb_image_cur_consume(&c, r.img + HSZ, r.len - HSZ));
	ASSERT_EQ(0, kb_image_cur_read_end(&c));
	ASSERT_EQ(0, memcmp(pl, r.img + HSZ, r.f.bytes));
	free(pl);
	free_ref(&r);
}

TEST_HARNESS_MAIN
