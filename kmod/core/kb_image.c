// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: filter images (see uapi/linux/kbloom.h for the layout).
 *
 * The parser treats its input as hostile: it reads only the header bytes
 * it is given, checks every field, and checks lengths without overflow
 * before anyone reads the payload.
 */
#include "kb_internal.h"

static const char * const kb_img_err_str[KB_IMG_ERR_MAX] = {
	[KB_IMG_OK] = "ok",
	[KB_IMG_TRUNCATED] = "truncated image",
	[KB_IMG_BAD_MAGIC] = "bad magic",
	[KB_IMG_BAD_VERSION] = "unsupported format version",
	[KB_IMG_BAD_HDR_LEN] = "bad header length",
	[KB_IMG_BAD_KIND] = "unknown filter kind",
	[KB_IMG_BAD_KEY_TYPE] = "unknown key type",
	[KB_IMG_BAD_HASH] = "unknown hash algorithm",
	[KB_IMG_HASH_KIND] = "hash algorithm not valid for the kind",
	[KB_IMG_BAD_K] = "number of hashes (k) out of range",
	[KB_IMG_BAD_M] = "bad number of bits (m)",
	[KB_IMG_TOO_BIG] = "filter too big",
	[KB_IMG_BAD_FPR] = "false-positive rate out of range",
	[KB_IMG_BAD_SEED] = "nonzero unused seed",
	[KB_IMG_BAD_PLEN] = "bad prefix-length bitmap",
	[KB_IMG_BAD_FLAGS] = "unknown flags",
	[KB_IMG_BAD_RESERVED] = "nonzero reserved field",
	[KB_IMG_PAYLOAD_LEN] = "payload length does not match the parameters",
	[KB_IMG_TRAILING] = "trailing bytes after the image",
	[KB_IMG_CLASSIC_K] = "classic filter's k byte does not match k",
	[KB_IMG_BAD_CRC] = "CRC mismatch",
	[KB_IMG_NOT_CLASSIC] = "not a classic filter",
};

const char *kb_image_strerror(enum kb_img_err why)
{
	if ((unsigned int)why >= KB_IMG_ERR_MAX)
		return "unknown error";
	return kb_img_err_str[why];
}

u64 kb_image_size(const struct kb_params *p)
{
	return sizeof(struct kb_image_hdr) + kb_params_payload_bytes(p) +
	       KB_IMAGE_TRAILER_LEN;
}

static int kb_img_fail(enum kb_img_err *why, enum kb_img_err w, int err)
{
	if (why)
		*why = w;
	return err;
}

int kb_image_parse_header(const void *hdr, u64 hdr_avail, u64 total_len,
			  u64 max_bytes, struct kb_params *p, u64 *payload_len,
			  u64 *count, enum kb_img_err *why)
{
	const struct kb_image_hdr *h = hdr;
	const u64 hsz = sizeof(struct kb_image_hdr);
	enum kb_img_err w;
	u64 plen, want;
	int ret;

	if (hdr_avail < hsz || total_len < hsz + KB_IMAGE_TRAILER_LEN)
		return kb_img_fail(why, KB_IMG_TRUNCATED, -EINVAL);
	if (kb_le32_to_cpu(h->magic) != KB_IMAGE_MAGIC)
		return kb_img_fail(why, KB_IMG_BAD_MAGIC, -EINVAL);
	if (kb_le16_to_cpu(h->version) != KB_IMAGE_VERSION)
		return kb_img_fail(why, KB_IMG_BAD_VERSION, -EINVAL);
	if (kb_le16_to_cpu(h->hdr_len) != hsz)
		return kb_img_fail(why, KB_IMG_BAD_HDR_LEN, -EINVAL);
	if (h->reserved[0] || h->reserved[1])
		return kb_img_fail(why, KB_IMG_BAD_RESERVED, -EINVAL);

	memset(p, 0, sizeof(*p));
	p->kind = kb_le32_to_cpu(h->kind);
	p->key_type = kb_le32_to_cpu(h->key_type);
	p->hash = kb_le32_to_cpu(h->hash);
	p->k = kb_le32_to_cpu(h->k);
	p->m = kb_le64_to_cpu(h->m);
	p->items = kb_le64_to_cpu(h->items);
	p->fpr_ppb = kb_le32_to_cpu(h->fpr_ppb);
	p->flags = kb_le32_to_cpu(h->flags);
	p->seed[0] = kb_le64_to_cpu(h->seed[0]);
	p->seed[1] = kb_le64_to_cpu(h->seed[1]);
	p->plen4 = kb_le64_to_cpu(h->plen4);
	p->plen6[0] = kb_le64_to_cpu(h->plen6[0]);
	p->plen6[1] = kb_le64_to_cpu(h->plen6[1]);
	p->plen6[2] = kb_le64_to_cpu(h->plen6[2]);

	/* everything but the size limit first: nonsense beats too big */
	ret = kb_params_check(p, 0, &w);
	if (ret)
		return kb_img_fail(why, w, ret);
	plen = kb_le64_to_cpu(h->payload_len);
	want = kb_params_payload_bytes(p);
	if (plen != want)
		return kb_img_fail(why, KB_IMG_PAYLOAD_LEN, -EINVAL);
	if (max_bytes && want > max_bytes)
		return kb_img_fail(why, KB_IMG_TOO_BIG, -E2BIG);
	/* want <= KB_M_MAX / 2 + 1: no overflow */
	if (total_len < hsz + want + KB_IMAGE_TRAILER_LEN)
		return kb_img_fail(why, KB_IMG_TRUNCATED, -EINVAL);
	if (total_len > hsz + want + KB_IMAGE_TRAILER_LEN)
		return kb_img_fail(why, KB_IMG_TRAILING, -EINVAL);
	if (payload_len)
		*payload_len = want;
	if (count)
		*count = kb_le64_to_cpu(h->count);
	return kb_img_fail(why, KB_IMG_OK, 0);
}

u32 kb_image_crc_init(void)
{
	return ~0U;
}

/* in pieces of 1 MiB with a yield between: images can be gigabytes */
u32 kb_image_crc_update(u32 st, const void *buf, u64 len)
{
	const u64 piece = (u64)KB_RESCHED_WORDS * 8;
	const u8 *b = buf;

	while (len > piece) {
		st = kb_crc32c(st, b, piece);
		b += piece;
		len -= piece;
		kb_cond_resched();
	}
	return kb_crc32c(st, b, len);
}

u32 kb_image_crc_final(u32 st)
{
	return ~st;
}

int kb_image_crc_check(u32 st, const void *trailer, enum kb_img_err *why)
{
	const u8 *t = trailer;
	u32 want = (u32)t[0] | ((u32)t[1] << 8) | ((u32)t[2] << 16) |
		   ((u32)t[3] << 24);

	if (kb_image_crc_final(st) != want)
		return kb_img_fail(why, KB_IMG_BAD_CRC, -EBADMSG);
	return kb_img_fail(why, KB_IMG_OK, 0);
}

int kb_image_check_payload(const struct kb_params *p, const void *payload,
			   u64 payload_len, enum kb_img_err *why)
{
	const u8 *b = payload;

	if (payload_len != kb_params_payload_bytes(p))
		return kb_img_fail(why, KB_IMG_PAYLOAD_LEN, -EINVAL);
	if (p->kind == KB_KIND_CLASSIC && b[payload_len - 1] != p->k)
		return kb_img_fail(why, KB_IMG_CLASSIC_K, -EINVAL);
	return kb_img_fail(why, KB_IMG_OK, 0);
}

int kb_image_parse(const void *img, u64 len, u64 max_bytes,
		   struct kb_params *p, const void **payload, u64 *payload_len,
		   u64 *count, enum kb_img_err *why)
{
	const u8 *b = img;
	const u64 hsz = sizeof(struct kb_image_hdr);
	u64 plen;
	u32 st;
	int ret;

	ret = kb_image_parse_header(img, len, len, max_bytes, p, &plen, count,
				    why);
	if (ret)
		return ret;
	st = kb_image_crc_update(kb_image_crc_init(), b, hsz + plen);
	ret = kb_image_crc_check(st, b + hsz + plen, why);
	if (ret)
		return ret;
	ret = kb_image_check_payload(p, b + hsz, plen, why);
	if (ret)
		return ret;
	if (payload)
		*payload = b + hsz;
	if (payload_len)
		*payload_len = plen;
	return 0;
}

void kb_image_fill_header(struct kb_image_hdr *h, const struct kb_params *p,
			  u64 count)
{
	memset(h, 0, sizeof(*h));
	h->magic = kb_cpu_to_le32(KB_IMAGE_MAGIC);
	h->version = kb_cpu_to_le16(KB_IMAGE_VERSION);
	h->hdr_len = kb_cpu_to_le16(sizeof(*h));
	h->kind = kb_cpu_to_le32(p->kind);
	h->key_type = kb_cpu_to_le32(p->key_type);
	h->hash = kb_cpu_to_le32(p->hash);
	h->k = kb_cpu_to_le32(p->k);
	h->m = kb_cpu_to_le64(p->m);
	h->items = kb_cpu_to_le64(p->items);
	h->fpr_ppb = kb_cpu_to_le32(p->fpr_ppb);
	h->flags = kb_cpu_to_le32(p->flags);
	h->seed[0] = kb_cpu_to_le64(p->seed[0]);
	h->seed[1] = kb_cpu_to_le64(p->seed[1]);
	h->plen4 = kb_cpu_to_le64(KB_READ_ONCE(p->plen4));
	h->plen6[0] = kb_cpu_to_le64(KB_READ_ONCE(p->plen6[0]));
	h->plen6[1] = kb_cpu_to_le64(KB_READ_ONCE(p->plen6[1]));
	h->plen6[2] = kb_cpu_to_le64(KB_READ_ONCE(p->plen6[2]));
	h->count = kb_cpu_to_le64(count);
	h->payload_len = kb_cpu_to_le64(kb_params_payload_bytes(p));
}

s64 kb_image_write(const struct kb_filter *f, u64 count, void *buf,
		   u64 buf_len)
{
	const u64 hsz = sizeof(struct kb_image_hdr);
	u64 total = kb_image_size(&f->p), i;
	u8 *b = buf, *pl = b + hsz;
	u32 crc;

	if (buf_len < total)
		return -E2BIG;
	kb_image_fill_header((struct kb_image_hdr *)buf, &f->p, count);
	if (f->p.kind == KB_KIND_CLASSIC) {
		const u8 *src = f->payload;

		for (i = 0; i < f->bytes; i++) {
			pl[i] = KB_READ_ONCE(src[i]);
			if (!((i + 1) % ((u64)KB_RESCHED_WORDS * 8)))
				kb_cond_resched();
		}
	} else {
		const u64 *src = f->payload;

		for (i = 0; i < f->bytes / 8; i++) {
			u64 v = KB_READ_ONCE(src[i]);

			if (KB_BIG_ENDIAN)
				v = kb_swab64(v);
			memcpy(pl + i * 8, &v, 8);
			if (!((i + 1) % KB_RESCHED_WORDS))
				kb_cond_resched();
		}
	}
	crc = kb_image_crc_final(kb_image_crc_update(kb_image_crc_init(), b,
						     hsz + f->bytes));
	b[hsz + f->bytes] = (u8)crc;
	b[hsz + f->bytes + 1] = (u8)(crc >> 8);
	b[hsz + f->bytes + 2] = (u8)(crc >> 16);
	b[hsz + f->bytes + 3] = (u8)(crc >> 24);
	return (s64)total;
}
