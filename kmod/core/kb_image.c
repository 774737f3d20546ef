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
	[KB_IMG_GOZERO_PAD] = "bits set past the filter's bits (wrong bits?)",
	[KB_IMG_GOZERO_LONG] = "value longer than ceil(bits / 8) bytes (wrong bits?)",
	[KB_IMG_SATURATED] = "saturated: estimated false positive rate over the limit",
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

/*
 * The CRC's arithmetic, for patching it: polynomials over GF(2) modulo
 * the CRC32C polynomial, reflected as the CRC is (bit 31 is x^0, bit 0
 * is x^31; 0x82f63b78 is P without its x^32 term).
 */
#define KB_CRC32C_POLY	0x82f63b78U

/* a * b mod P: a's terms from x^0 up, b multiplied by x each step */
static u32 kb_image_crc_mul(u32 a, u32 b)
{
	u32 prod = 0;
	int i;

	for (i = 31; i >= 0 && a; i--) {
		if (a & (1U << i)) {
			prod ^= b;
			a &= ~(1U << i);
		}
		b = (b >> 1) ^ (KB_CRC32C_POLY & (0U - (b & 1)));
	}
	return prod;
}

/* x^(8 * bytes) mod P by squaring: O(log bytes) products */
static u32 kb_image_crc_xpow8(u64 bytes)
{
	u32 r = 1U << 31, sq = 1U << 23;	/* x^0, x^8 */

	for (; bytes; bytes >>= 1) {
		if (bytes & 1)
			r = kb_image_crc_mul(r, sq);
		sq = kb_image_crc_mul(sq, sq);
	}
	return r;
}

/*
 * The CRC is affine in the message: crc(M ^ E) = crc(M) ^ lin(E), lin
 * the CRC without its initial and final inversions.  E is zero but for
 * old ^ new at the patched place, so lin(E) is the raw CRC of old ^ new
 * (itself lin(old) ^ lin(new)) carried through the `after` zero bytes
 * that follow: a product with x^(8 * after).  Costs O(len + log after),
 * never the rest of the image.
 */
u32 kb_image_crc_patch(u32 crc, const void *old, const void *new, u64 len,
		       u64 after)
{
	u32 d = kb_crc32c(0, old, len) ^ kb_crc32c(0, new, len);

	if (!d)
		return crc;
	return crc ^ kb_image_crc_mul(d, kb_image_crc_xpow8(after));
}

int kb_image_check_payload(const struct kb_params *p, const void *payload,
			   u64 payload_len, enum kb_img_err *why)
{
	const u8 *b = payload;

	if (payload_len != kb_params_payload_bytes(p))
		return kb_img_fail(why, KB_IMG_PAYLOAD_LEN, -EINVAL);
	if (p->kind == KB_KIND_CLASSIC && b[payload_len - 1] != p->k)
		return kb_img_fail(why, KB_IMG_CLASSIC_K, -EINVAL);
	/* gozero: a value go-zero wrote never has bits past m */
	if (p->kind == KB_KIND_GOZERO && p->m % 8 &&
	    (b[payload_len - 1] & (0xffU >> (p->m % 8))))
		return kb_img_fail(why, KB_IMG_GOZERO_PAD, -EINVAL);
	return kb_img_fail(why, KB_IMG_OK, 0);
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

#define KB_HDR_LEN	((u64)sizeof(struct kb_image_hdr))

void kb_image_cur_write_begin(struct kb_image_cur *c,
			      const struct kb_params *p, u64 count)
{
	memset(c, 0, sizeof(*c));
	kb_image_fill_header(&c->h, p, count);
	c->kind = p->kind;
	c->count = count;
	c->payload_len = kb_params_payload_bytes(p);
	c->total = KB_HDR_LEN + c->payload_len + KB_IMAGE_TRAILER_LEN;
	c->crc = kb_image_crc_init();
}

bool kb_image_cur_wants_filter(const struct kb_image_cur *c, u64 len)
{
	return len && c->off < KB_HDR_LEN + c->payload_len &&
	       c->off + len > KB_HDR_LEN;
}

/* payload bytes [poff, poff + n) as in an image: words little-endian */
static void kb_image_copy_payload(const struct kb_image_cur *c,
				  const struct kb_filter *f, u8 *d, u64 poff,
				  u64 n)
{
	const u64 resched = (u64)KB_RESCHED_WORDS * 8;
	u64 i, skip, take, v;

	if (kb_kind_bytewise(c->kind)) {
		const u8 *src = (const u8 *)f->payload + poff;

		for (i = 0; i < n; i++) {
			d[i] = KB_READ_ONCE(src[i]);
			if (!((poff + i + 1) % resched))
				kb_cond_resched();
		}
		return;
	}
	/* a piece may start or end inside a word */
	i = poff / 8;
	skip = poff % 8;
	while (n) {
		take = 8 - skip < n ? 8 - skip : n;
		v = KB_READ_ONCE(((const u64 *)f->payload)[i]);
		if (KB_BIG_ENDIAN)
			v = kb_swab64(v);
		if (take == 8)
			memcpy(d, &v, 8);
		else
			memcpy(d, (u8 *)&v + skip, take);
		d += take;
		n -= take;
		skip = 0;
		if (!(++i % KB_RESCHED_WORDS))
			kb_cond_resched();
	}
}

static void kb_image_put_crc(u8 *t, u32 crc)
{
	t[0] = (u8)crc;
	t[1] = (u8)(crc >> 8);
	t[2] = (u8)(crc >> 16);
	t[3] = (u8)(crc >> 24);
}

u64 kb_image_cur_produce(struct kb_image_cur *c, const struct kb_filter *f,
			 void *dst, u64 len)
{
	const u64 pend = KB_HDR_LEN + c->payload_len;
	u64 off = c->off, end, n;
	u8 *d = dst;

	if (len > c->total - off)
		len = c->total - off;
	end = off + len;
	if (off < KB_HDR_LEN) {
		n = (end < KB_HDR_LEN ? end : KB_HDR_LEN) - off;
		memcpy(d, (const u8 *)&c->h + off, n);
		c->crc = kb_image_crc_update(c->crc, d, n);
		d += n;
		off += n;
	}
	if (off < end && off < pend) {
		n = (end < pend ? end : pend) - off;
		kb_image_copy_payload(c, f, d, off - KB_HDR_LEN, n);
		c->crc = kb_image_crc_update(c->crc, d, n);
		d += n;
		off += n;
	}
	if (off < end) {
		if (off == pend)
			kb_image_put_crc(c->trailer,
					 kb_image_crc_final(c->crc));
		memcpy(d, c->trailer + (off - pend), end - off);
	}
	c->off = end;
	return len;
}

void kb_image_cur_read_begin(struct kb_image_cur *c, u64 total_len,
			     u64 max_bytes)
{
	memset(c, 0, sizeof(*c));
	c->total = total_len;
	c->max_bytes = max_bytes;
	c->crc = kb_image_crc_init();
}

void *kb_image_cur_buf(struct kb_image_cur *c, u64 *room)
{
	u64 pend = KB_HDR_LEN + c->payload_len;

	*room = 0;
	if (c->err || c->off >= c->total)
		return NULL;
	if (!c->hdr_ok) {
		/* a total_len under the header's: truncated at the end */
		*room = (c->total < KB_HDR_LEN ? c->total : KB_HDR_LEN) -
			c->off;
		return (u8 *)&c->h + c->off;
	}
	if (c->off < pend) {
		if (!c->payload)
			return NULL;
		*room = pend - c->off;
		return (u8 *)c->payload + (c->off - KB_HDR_LEN);
	}
	*room = c->total - c->off;
	return c->trailer + (c->off - pend);
}

static int kb_image_cur_fail(struct kb_image_cur *c, int err)
{
	c->err = err;
	return err;
}

int kb_image_cur_advance(struct kb_image_cur *c, u64 n)
{
	u64 pend = KB_HDR_LEN + c->payload_len, room;
	void *at = kb_image_cur_buf(c, &room);
	int ret;

	if (c->err)
		return c->err;
	if (n > room)
		return kb_image_cur_fail(c, -EINVAL);
	if (c->off < pend)
		c->crc = kb_image_crc_update(c->crc, at, n);
	c->off += n;
	if (!c->hdr_ok && c->off == KB_HDR_LEN) {
		ret = kb_image_parse_header(&c->h, KB_HDR_LEN, c->total,
					    c->max_bytes, &c->p,
					    &c->payload_len, &c->count,
					    &c->why);
		if (ret)
			return kb_image_cur_fail(c, ret);
		c->hdr_ok = true;
	} else if (c->hdr_ok && c->off == c->total) {
		ret = kb_image_crc_check(c->crc, c->trailer, &c->why);
		if (ret)
			return kb_image_cur_fail(c, ret);
	}
	return 0;
}

bool kb_image_cur_wants_payload(const struct kb_image_cur *c)
{
	return c->hdr_ok && !c->err && !c->payload;
}

s64 kb_image_cur_consume(struct kb_image_cur *c, const void *src, u64 len)
{
	const u8 *s = src;
	u64 done = 0, room, n;
	void *dst;
	int ret;

	while (done < len && (dst = kb_image_cur_buf(c, &room))) {
		n = room < len - done ? room : len - done;
		if (dst != s + done)
			memcpy(dst, s + done, n);
		ret = kb_image_cur_advance(c, n);
		if (ret)
			return ret;
		done += n;
	}
	return c->err ?: (s64)done;
}

int kb_image_cur_read_end(struct kb_image_cur *c)
{
	if (c->err)
		return c->err;
	if (!c->hdr_ok) {
		/* what the header alone would say: truncated */
		c->err = kb_image_parse_header(&c->h, c->off, c->total,
					       c->max_bytes, &c->p, NULL,
					       NULL, &c->why);
		return c->err ?: kb_image_cur_fail(c, -EINVAL);
	}
	if (c->off < c->total || !c->payload) {
		c->why = KB_IMG_TRUNCATED;
		return kb_image_cur_fail(c, -EINVAL);
	}
	return kb_image_cur_fail(c, kb_image_check_payload(&c->p, c->payload,
							   c->payload_len,
							   &c->why));
}

/* the whole image in memory, parsed in place */
int kb_image_parse(const void *img, u64 len, u64 max_bytes,
		   struct kb_params *p, const void **payload, u64 *payload_len,
		   u64 *count, enum kb_img_err *why)
{
	struct kb_image_cur c;
	s64 n;
	int ret;

	kb_image_cur_read_begin(&c, len, max_bytes);
	n = kb_image_cur_consume(&c, img, len);
	if (n >= 0 && kb_image_cur_wants_payload(&c)) {
		/* never written: consume() copies nothing onto itself */
		c.payload = (u8 *)img + KB_HDR_LEN;
		kb_image_cur_consume(&c, (const u8 *)img + n, len - n);
	}
	ret = kb_image_cur_read_end(&c);
	if (why)
		*why = c.why;
	if (ret)
		return ret;
	*p = c.p;
	if (payload)
		*payload = c.payload;
	if (payload_len)
		*payload_len = c.payload_len;
	if (count)
		*count = c.count;
	return 0;
}

s64 kb_image_write(const struct kb_filter *f, u64 count, void *buf,
		   u64 buf_len)
{
	struct kb_image_cur c;

	kb_image_cur_write_begin(&c, &f->p, count);
	if (buf_len < c.total)
		return -E2BIG;
	return (s64)kb_image_cur_produce(&c, f, buf, c.total);
}
