// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: filter images.
 *
 * The input is an image.  It is parsed one-shot (kb_image_parse) and
 * streaming (kb_image_parse_header on a header-only buffer, the CRC over
 * header and payload in two pieces, kb_image_check_payload), and both must
 * agree, and so must the image cursor fed in pieces of a size the input
 * picks.  An accepted image is attached as a filter, which must then
 * answer test / test_many consistently, report stats, and write back the
 * identical image, whole and in pieces; keys added to a copy must test
 * present.
 */
#include "fuzz.h"

/* up to 8 keys of 0..16 bytes cut from the input itself */
static u32 fuzz_keys(const u8 *data, size_t size, struct kb_key *keys)
{
	u32 n = 0;
	size_t off = 0;

	while (n < 8 && off < size) {
		u32 len = data[off] % 17;

		off++;
		if (len > size - off)
			len = (u32)(size - off);
		keys[n].data = data + off;
		keys[n].len = len;
		off += len;
		n++;
	}
	return n;
}

static void fuzz_produce(const struct kb_filter *f, u64 count, u8 *out,
			 size_t size, u64 step)
{
	struct kb_image_cur c;
	u64 off = 0;

	kb_image_cur_write_begin(&c, &f->p, count);
	FUZZ_CHECK(c.total == size);
	while (off < size)
		off += kb_image_cur_produce(&c, kb_image_cur_wants_filter(&c,
								       step) ?
					    f : NULL, out + off, step);
	FUZZ_CHECK(off == size);
}

/* the cursor reading img in pieces of step bytes, payload copied out */
static int fuzz_cur_read(const u8 *img, size_t size, u64 step,
			 struct kb_image_cur *c)
{
	u64 off = 0, room, n;
	u8 *pl = NULL;
	void *dst;
	int ret = 0;

	kb_image_cur_read_begin(c, size, FUZZ_MAX_BYTES);
	while ((dst = kb_image_cur_buf(c, &room))) {
		n = room < step ? room : step;
		FUZZ_CHECK(n <= size - off);
		memcpy(dst, img + off, n);
		off += n;
		ret = kb_image_cur_advance(c, n);
		if (ret)
			break;
		if (kb_image_cur_wants_payload(c)) {
			pl = malloc(c->payload_len);
			FUZZ_CHECK(pl);
			c->payload = pl;
		}
	}
	ret = kb_image_cur_read_end(c);
	if (!ret)
		FUZZ_CHECK(!memcmp(pl, img + sizeof(struct kb_image_hdr),
				   c->payload_len));
	free(pl);
	return ret;
}

static void fuzz_filter(const struct kb_params *p, const void *pl, u64 plen,
			u64 count, const u8 *img, size_t size)
{
	struct kb_key keys[8];
	struct kb_filter f, g;
	struct kb_stats st;
	u64 bm[1], h;
	u8 *buf, *buf2, *out;
	u32 n, i, hits, hits2;
	s64 w;
	int ret;

	FUZZ_CHECK(kb_params_validate(p, FUZZ_MAX_BYTES) == 0);
	FUZZ_CHECK(plen == kb_params_payload_bytes(p));
	FUZZ_CHECK(kb_image_size(p) == size);
	buf = kbu_alloc_payload(plen);
	FUZZ_CHECK(buf);
	memcpy(buf, pl, plen);
	ret = kb_filter_attach(&f, p, buf, plen);
	FUZZ_CHECK(ret == 0);

	n = fuzz_keys(img, size, keys);
	hits = kb_filter_test_many(&f, keys, n, bm);
	hits2 = 0;
	for (i = 0; i < n; i++) {
		bool t = kb_filter_test(&f, keys[i].data, keys[i].len);

		h = kb_filter_hash(&f, keys[i].data, keys[i].len);
		/* gozero has no one-hash scheme: test_hash says maybe */
		FUZZ_CHECK(kb_filter_test_hash(&f, h) ==
			   (t || p->kind == KB_KIND_GOZERO));
		FUZZ_CHECK(!!(bm[0] & (1ULL << i)) == t);
		hits2 += t;
	}
	FUZZ_CHECK(hits == hits2);
	FUZZ_CHECK(n == 64 || !(bm[0] >> n));
	kb_filter_stats(&f, &st);
	FUZZ_CHECK(st.bytes == plen && st.m == p->m && st.k == p->k);
	FUZZ_CHECK(st.bits_set <= p->m);

	/* the image written back is the image read */
	out = malloc(size);
	FUZZ_CHECK(out);
	w = kb_image_write(&f, count, out, size);
	FUZZ_CHECK(w == (s64)size);
	FUZZ_CHECK(!memcmp(out, img, size));
	/* and in pieces of a size the input picks */
	memset(out, 0, size);
	fuzz_produce(&f, count, out, size, 1 + img[size - 1] % 61);
	FUZZ_CHECK(!memcmp(out, img, size));
	free(out);

	/* a writable copy: added keys test present */
	buf2 = kbu_alloc_payload(plen);
	FUZZ_CHECK(buf2);
	memcpy(buf2, pl, plen);
	FUZZ_CHECK(kb_filter_attach(&g, p, buf2, plen) == 0);
	kb_filter_add_many(&g, keys, n);
	FUZZ_CHECK(kb_filter_test_many(&g, keys, n, bm) == n);
	if (p->kind == KB_KIND_COUNTING) {
		for (i = 0; i < n; i++)
			FUZZ_CHECK(kb_filter_del(&g, keys[i].data,
						 keys[i].len) == 0);
	}
	kb_filter_clear(&g);
	free(buf2);
	free(buf);
}

static void fuzz_image(const u8 *data, size_t size)
{
	const u64 hsz = sizeof(struct kb_image_hdr);
	enum kb_img_err why = KB_IMG_ERR_MAX, why2 = KB_IMG_ERR_MAX;
	struct kb_params p, p2;
	struct kb_image_cur cur;
	u64 plen = 0, plen2 = 0, count = 0, count2 = 0;
	size_t hdr_avail = size < hsz ? size : hsz;
	const void *pl = NULL;
	u8 *img, *hdr;
	int ret, ret2;
	u32 st;

	img = fuzz_dup(data, size);
	hdr = fuzz_dup(data, hdr_avail);

	ret = kb_image_parse(img, size, FUZZ_MAX_BYTES, &p, &pl, &plen,
			     &count, &why);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -E2BIG ||
		   ret == -EBADMSG);
	FUZZ_CHECK(why < KB_IMG_ERR_MAX && (why == KB_IMG_OK) == (ret == 0));
	FUZZ_CHECK(kb_image_strerror(why) != NULL);
	FUZZ_CHECK((ret == -E2BIG) == (why == KB_IMG_TOO_BIG));
	FUZZ_CHECK((ret == -EBADMSG) == (why == KB_IMG_BAD_CRC));

	/* streaming: only the header's bytes are handed to step 1 */
	ret2 = kb_image_parse_header(hdr, hdr_avail, size, FUZZ_MAX_BYTES, &p2,
				     &plen2, &count2, &why2);
	if (!ret2) {
		size_t cut;

		FUZZ_CHECK(hsz + plen2 + KB_IMAGE_TRAILER_LEN == size);
		cut = plen2 ? data[size - 1] % (plen2 + 1) : 0;
		st = kb_image_crc_update(kb_image_crc_init(), hdr, hsz);
		st = kb_image_crc_update(st, img + hsz, cut);
		st = kb_image_crc_update(st, img + hsz + cut, plen2 - cut);
		ret2 = kb_image_crc_check(st, img + hsz + plen2, &why2);
		if (!ret2)
			ret2 = kb_image_check_payload(&p2, img + hsz, plen2,
						      &why2);
	}
	FUZZ_CHECK(ret == ret2 && why == why2);
	ret2 = fuzz_cur_read(img, size, size ? 1 + data[0] % 97 : 1, &cur);
	FUZZ_CHECK(ret == ret2 && why == cur.why);

	if (!ret) {
		FUZZ_CHECK(!memcmp(&p, &p2, sizeof(p)));
		FUZZ_CHECK(plen == plen2 && count == count2);
		FUZZ_CHECK(!memcmp(&p, &cur.p, sizeof(p)));
		FUZZ_CHECK(plen == cur.payload_len && count == cur.count);
		FUZZ_CHECK(pl == img + hsz);
		fuzz_filter(&p, pl, plen, count, img, size);
	}
	free(hdr);
	free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 *fixed;
	u32 crc;

	fuzz_image(data, size);
	/*
	 * Again with a correct CRC trailer, so that mutated headers and
	 * payloads get past the CRC check to the checks behind it.
	 */
	if (size < sizeof(struct kb_image_hdr) + KB_IMAGE_TRAILER_LEN)
		return 0;
	fixed = fuzz_dup(data, size);
	crc = kb_image_crc_final(kb_image_crc_update(kb_image_crc_init(),
						     fixed, size - 4));
	fixed[size - 4] = (u8)crc;
	fixed[size - 3] = (u8)(crc >> 8);
	fixed[size - 2] = (u8)(crc >> 16);
	fixed[size - 1] = (u8)(crc >> 24);
	fuzz_image(fixed, size);
	free(fixed);
	return 0;
}
