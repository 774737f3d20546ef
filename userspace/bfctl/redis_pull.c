// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis pull: a Redis value into a kernel filter, whole or not at
 * all.  A gozero value going into the kernel is streamed: each piece is
 * written into a transaction's staging payload as it arrives
 * (KB_IOC_TXN_WRITE) and the transaction committed after the fence, so
 * bfctl holds no copy of the value at all.  A kbloom image that push wrote
 * (and any value pulled to a file with -o) is read straight into the
 * image that is uploaded or written, its CRC checked, so neither bfctl nor
 * the server ever holds a second copy.  Small values come in one bounded
 * GETRANGE; longer ones in
 * pipelined GETRANGE chunks, which the server answers at different
 * moments: a value changed between two chunks would give a torn filter,
 * missing keys.  So a chunked read is fenced:
 *
 *   WATCH before the read, an empty MULTI/EXEC after it: EXEC fails if
 *   the key changed at all (FLUSHDB, FLUSHALL and SWAPDB included), and
 *   the read restarts.  setbit events are no exception: SETBIT 0 and
 *   BITFIELD SET clear bits and publish "setbit" too, so a read they
 *   overlap is no superset of anything (redis_fence.c).  With keyspace
 *   events on, the caller subscribed before the read and a PING on the
 *   subscription after it takes the read's events off it.
 *
 * Every value is then checked as image import checks one (length and bits
 * past --bits for gozero, header and CRC for an image) before the one
 * upload that replaces the filter; any failure leaves it serving as it
 * was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "redis.h"
#include "savefmt.h"

/*
 * What a pull reads: the value's format and where its bytes go: into an
 * image in memory (a kbloom image, or -o), or, for a gozero value going
 * into the kernel, straight into a transaction's staging payload
 * (KB_IOC_TXN_WRITE) as each chunk arrives, so that bfctl never holds
 * the value: the image's CRC is computed as it streams (watch's
 * "unchanged") and the transaction committed after the fence.  -o naming
 * a file (new or regular) streams the same way: header, value, zeros and
 * CRC in order into a temporary file renamed over it after the fence.
 */
struct fetch {
	bool gozero;
	u64 bits;		/* gozero */
	u32 key_type;
	bool have_key_type;
	u8 *img;		/* the image uploaded */
	u64 img_len;
	u8 *dst;		/* where the value's bytes go in img */
	u64 cap;		/* the longest value that fits */
	u64 len;		/* bytes read */
	/* streaming (gozero into the kernel or into a file) */
	bool stream;
	int dev;		/* /dev/kbloom, the transaction's file */
	bool txn;		/* a transaction is open on dev */
	bool dev_stream;	/* streaming into the kernel */
	bool to_file;		/* -o names a file that can be replaced */
	struct kbu_out out;	/* its temporary file while out.fd >= 0 */
	u64 pos;		/* value bytes written to out */
	u32 crc;		/* over the image's header and payload so far */
	u64 ones;		/* bits set in the value so far (the guard) */
	u8 last;		/* the value's byte at cap - 1 */
	struct kb_params p;
};

/*
 * A read's answer: the value changed under it, read it again (not 1,
 * which is BFCTL_ABSENT: a value that grew or shrank is no missing key)
 */
#define PULL_AGAIN	2

static int pull_fail(struct bfctl_redis_pull *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int pull_fail(struct bfctl_redis_pull *pl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pl->why, sizeof(pl->why), fmt, ap);
	va_end(ap);
	return BFCTL_ERR;
}

static int redis_fail(struct bfctl_redis_pull *pl, struct bfctl_redis *r)
{
	return pull_fail(pl, "%s", r->err);
}

/*
 * The saturation guard: its limit for a value of params p (the filter's
 * configured FPR where the value's own params have none), and a refusal
 * (pl->why without "refused: ", which pull and watch's status say).
 */
static u32 guard_limit(const struct bfctl_redis_pull *pl,
		       const struct kb_params *p)
{
	struct kb_params q = *p;

	if (!q.fpr_ppb)
		q.fpr_ppb = pl->cfg_fpr_ppb;
	return bfctl_guard_limit(&q, pl->max_fpr_ppb, pl->force);
}

static int guard_refuse(struct bfctl_redis_pull *pl, const struct kb_stats *st,
			u32 limit)
{
	char why[200];

	bfctl_guard_why(st, limit, why, sizeof(why));
	pl->refused = true;
	return pull_fail(pl, "%s", why);
}

/* the metadata push --meta wrote: check it against what the pull expects */
static int check_meta(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
		      struct fetch *fx)
{
	char mkey[1100], fmt[16] = "", scheme[64] = "";
	const char *argv[] = { "GET", mkey };
	unsigned long long bits = 0;
	redisReply *rep;
	int n;

	if (bfctl_redis_sibling(mkey, sizeof(mkey), pl->key, "kbloom-meta"))
		return pull_fail(pl, "key name too long");
	rep = bfctl_redis_cmd(r, 2, argv, NULL);
	if (!rep)
		return redis_fail(pl, r);
	if (rep->type != REDIS_REPLY_STRING) {	/* none: nothing to check */
		freeReplyObject(rep);
		return 0;
	}
	n = sscanf(rep->str, BFCTL_REDIS_META " format=%15s scheme=%63s bits=%llu",
		   fmt, scheme, &bits);
	freeReplyObject(rep);
	if (n < 1 || (strcmp(fmt, "gozero") && strcmp(fmt, "image")))
		return pull_fail(pl, "%s: unreadable metadata (not written by bfctl redis push --meta)",
				 mkey);
	if (!strcmp(fmt, "image")) {
		if (pl->bits)
			return pull_fail(pl, "%s: the metadata says %s holds a kbloom image, not a go-zero bitmap",
					 mkey, pl->key);
		if (fx->gozero) {
			free(fx->img);
			fx->img = NULL;
		}
		fx->gozero = false;
		return 0;
	}
	if (n != 3 || strcmp(scheme, BFCTL_REDIS_SCHEME))
		return pull_fail(pl, "%s: scheme '%s' is not go-zero's %s",
				 mkey, scheme, BFCTL_REDIS_SCHEME);
	/* a rebuild of another size: the metadata's bits, unless --bits */
	if (pl->bits && bits != pl->bits)
		return pull_fail(pl, "%s: the metadata says %llu bits, not %llu (wrong --bits?)",
				 mkey, bits, (unsigned long long)pl->bits);
	if (fx->gozero && fx->bits != bits) {
		free(fx->img);	/* another size: another buffer */
		fx->img = NULL;
	}
	fx->gozero = true;
	fx->bits = bits;
	return 0;
}

static void kernel_state(const struct kb_ioc_info *i, u64 st[4])
{
	st[0] = i->id;
	st[1] = i->generation;
	st[2] = i->bits_set;
	st[3] = i->count;
}

static bool kernel_state_is(const struct bfctl_redis_pull *pl,
			    const struct kb_ioc_info *i)
{
	u64 st[4];

	kernel_state(i, st);
	return !memcmp(st, pl->kstate, sizeof(st));
}

/* after a load into the kernel: what the next pull compares with */
static void kernel_state_note(struct kbconn *kc, struct bfctl_redis_pull *pl)
{
	struct kb_ioc_info info;

	pl->have_kstate = false;
	if (!pl->name || pl->out || kbconn_info(kc, pl->name, &info))
		return;
	kernel_state(&info, pl->kstate);
	pl->have_kstate = true;
}

/*
 * What the pull expects: --bits (a gozero value), else the kernel filter's
 * kind and bits (a gozero filter takes the raw value), else what the last
 * pull found (watch -o), else an image.  The metadata key, when there is
 * one, overrides all but --bits (check_meta()).
 */
static int pull_expect(struct kbconn *kc, struct bfctl_redis_pull *pl,
		       struct fetch *fx)
{
	struct kb_ioc_info info;
	int ret;

	fx->bits = pl->bits ? pl->bits : pl->last_bits;
	fx->gozero = fx->bits != 0;
	if (pl->key_type >= 0) {
		fx->key_type = (u32)pl->key_type;
		fx->have_key_type = true;
	}
	if (!pl->name)
		return 0;
	ret = kbconn_info(kc, pl->name, &info);
	if (!ret)
		pl->cfg_fpr_ppb = info.fpr_ppb;
	if (ret == -ENOENT && pl->create)
		return 0;
	if (ret == -ENOENT)
		return pull_fail(pl, "no filter %s (--create to create it)",
				 pl->name);
	if (ret)
		return pull_fail(pl, "filter %s: %s%s%s", pl->name,
				 strerror(-ret), kc->extack[0] ? ": " : "",
				 kc->extack[0] ? kc->extack :
				 ret == -EPERM ? KBCONN_PRIV_HINT : "");
	if (info.kind == KB_KIND_GOZERO) {
		fx->gozero = true;
		if (!pl->bits)
			fx->bits = info.m;
	} else if (pl->bits) {
		return pull_fail(pl, "--bits: filter %s is a %s filter, not gozero",
				 pl->name, kb_kind_name(info.kind));
	}
	fx->key_type = info.key_type;
	fx->have_key_type = true;
	if (pl->have_kstate && !pl->out && !kernel_state_is(pl, &info)) {
		pl->diverged = true;
		pl->last_len = 0;	/* "unchanged" would keep the change */
	}
	return 0;
}

/*
 * A fresh transaction for each read (a read restarted after a change
 * starts from an empty payload), and the CRC of its image's header.
 */
static int stream_begin(struct bfctl_redis_pull *pl, struct fetch *fx,
			u64 max)
{
	struct kb_ioc_create c = { .size = sizeof(c) };
	struct kb_image_hdr h;
	enum kb_img_err why;
	int ret;

	if (fx->txn) {
		kbdev_txn_abort(fx->dev);
		fx->txn = false;
	}
	if (fx->out.fd >= 0)
		kbu_out_abort(&fx->out);
	if (kb_gozero_import(&fx->p, NULL, 0, fx->bits, max, &why))
		return pull_fail(pl, "%llu bits: %s",
				 (unsigned long long)fx->bits,
				 kb_image_strerror(why));
	fx->p.key_type = fx->have_key_type ? fx->key_type : KB_KEY_BYTES;
	fx->cap = (fx->bits + 7) / 8;
	fx->last = 0;
	fx->ones = 0;
	kb_image_fill_header(&h, &fx->p, 0);
	fx->crc = kb_image_crc_update(kb_image_crc_init(), &h, sizeof(h));
	if (!fx->dev_stream) {
		/* -o: header, value, zeros and CRC in order to a temporary */
		fx->pos = 0;
		ret = kbu_out_open(&fx->out, pl->out);
		if (!ret)
			ret = kbu_write_all(fx->out.fd, &h, sizeof(h));
		if (ret)
			return pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
		return 0;
	}
	if (kbdev_set_name(c.name, pl->name))
		return pull_fail(pl, "%s: not a filter name", pl->name);
	c.kind = KB_KIND_GOZERO;
	c.key_type = fx->p.key_type;
	c.hash = KB_HASH_MURMUR3;
	c.sizing = KB_SIZING_MK;
	c.m = fx->bits;
	c.k = KB_GOZERO_K;
	ret = kbdev_txn_begin(fx->dev, &c);
	if (ret)
		return pull_fail(pl, "filter %s: %s", pl->name, strerror(-ret));
	fx->txn = true;
	return 0;
}

/* the bits set in n bytes: a streamed value's fill, for the guard */
static u64 ones(const u8 *b, u64 n)
{
	u64 c = 0;

	while (n--)
		c += (u64)__builtin_popcount(*b++);
	return c;
}

/* n bytes of the value at off: into the image, or into the transaction */
static int sink(struct bfctl_redis_pull *pl, struct fetch *fx, u64 off,
		const void *buf, u64 n)
{
	int ret;

	if (!n)
		return 0;
	if (!fx->stream) {
		memcpy(fx->dst + off, buf, n);
		return 0;
	}
	if (!fx->dev_stream) {
		/* the replies come in order: the file is written in order */
		if (off != fx->pos)
			return pull_fail(pl, "%s: reply out of order", pl->key);
		ret = kbu_write_all(fx->out.fd, buf, n);
		if (ret)
			return pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
		fx->pos += n;
	} else {
		ret = kbdev_txn_write(fx->dev, pl->name, off, buf, n);
		if (ret)
			return pull_fail(pl, "write into %s: %s", pl->name,
					 strerror(-ret));
	}
	fx->crc = kb_image_crc_update(fx->crc, buf, n);
	fx->ones += ones(buf, n);
	if (n && off + n == fx->cap)
		fx->last = ((const u8 *)buf)[n - 1];
	return 0;
}

/* the image buffer for a value of len bytes */
static int fetch_alloc(struct bfctl_redis_pull *pl, struct fetch *fx, u64 len)
{
	u64 max = bfctl_module_param("max_filter_bytes",
				     BFCTL_DEF_MAX_FILTER_BYTES);
	u64 hl = sizeof(struct kb_image_hdr);
	struct kb_params p;
	enum kb_img_err why;

	fx->dev_stream = fx->gozero && fx->dev >= 0;
	fx->stream = fx->dev_stream || (fx->gozero && fx->to_file);
	if (fx->stream)
		return stream_begin(pl, fx, max);
	/* the metadata turned a streamed pull into an image's: end it */
	if (fx->txn) {
		kbdev_txn_abort(fx->dev);
		fx->txn = false;
	}
	if (fx->out.fd >= 0)
		kbu_out_abort(&fx->out);
	if (fx->gozero) {
		if (fx->img)	/* the same bits: the same buffer */
			return 0;
		if (kb_gozero_import(&p, NULL, 0, fx->bits, max, &why))
			return pull_fail(pl, "%llu bits: %s",
					 (unsigned long long)fx->bits,
					 kb_image_strerror(why));
		fx->img_len = kb_image_size(&p);
		fx->img = kbu_alloc_payload(fx->img_len);
		fx->dst = fx->img + hl;
		fx->cap = (fx->bits + 7) / 8;
	} else {
		if (len > max + hl + KB_IMAGE_TRAILER_LEN)
			return pull_fail(pl, "%s: %llu bytes: bigger than any image the module takes",
					 pl->key, (unsigned long long)len);
		if (fx->img && fx->cap == len)
			return 0;
		free(fx->img);
		fx->img = kbu_alloc_payload(len);
		fx->img_len = fx->cap = len;
		fx->dst = fx->img;
	}
	if (!fx->img)
		return pull_fail(pl, "out of memory");
	return 0;
}

/*
 * A bulk reply of at most room bytes to value offset off; its length or
 * -1.  A reply declared longer than the asked bytes is refused before it
 * is read (redis_io.c).
 */
static s64 take(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
		struct fetch *fx, u64 off, u64 room, u64 asked)
{
	redisReply *rep = bfctl_redis_reply_max(r, asked, true);
	s64 n;

	if (!rep)
		return redis_fail(pl, r), -1;
	if (rep->type != REDIS_REPLY_STRING) {
		n = rep->type == REDIS_REPLY_NIL ? 0 : -1;
		freeReplyObject(rep);
		if (n < 0)
			pull_fail(pl, "%s: an unexpected reply type where a string was asked",
				  pl->key);
		return n;
	}
	n = (s64)rep->len;
	if ((u64)n <= room && sink(pl, fx, off, rep->str, rep->len))
		n = -1;
	freeReplyObject(rep);
	return n;
}

/*
 * Pipelined GETRANGE chunks of len bytes into fx->dst, at most
 * BFCTL_REDIS_WINDOW in flight.  0, PULL_AGAIN (a chunk came short: the
 * value shrank) or -1.
 */
static int read_chunks(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
		       struct fetch *fx, u64 len, bool first)
{
	u64 chunk = r->o->chunk, sent = 0, got = 0;
	char a[24], b[24];
	const char *argv[] = { "GETRANGE", pl->key, a, b };
	bool shortread = false;

	while (got < len) {
		while (sent < len && sent - got < BFCTL_REDIS_WINDOW * chunk) {
			u64 n = len - sent < chunk ? len - sent : chunk;

			snprintf(a, sizeof(a), "%llu", (unsigned long long)sent);
			snprintf(b, sizeof(b), "%llu",
				 (unsigned long long)(sent + n - 1));
			if (bfctl_redis_append(r, 4, argv, NULL))
				return pull_fail(pl, "%s: out of memory", r->o->url), -1;
			sent += n;
		}
		{
			u64 n = len - got < chunk ? len - got : chunk;
			/* after a short chunk nothing is kept: read again */
			s64 m = take(r, pl, fx, got, shortread ? 0 : n, n);

			/* replies still in flight: the connection is out of step */
			if (m < 0) {
				if (sent > got + n)
					r->io_err = true;
				return -1;
			}
			if ((u64)m != n)
				shortread = true;
			if (first && !got)
				bfctl_test_pause("BFCTL_REDIS_TEST_PAUSE");
			got += n;
		}
	}
	return shortread ? PULL_AGAIN : 0;
}

/* the payload's zeros past the value (the kernel's are there already) */
static int stream_zeros(struct bfctl_redis_pull *pl, struct fetch *fx,
			u64 from)
{
	static const u8 zeros[4096];
	u64 n;
	int ret;

	for (; from < fx->cap; from += n) {
		n = fx->cap - from < sizeof(zeros) ? fx->cap - from :
		    sizeof(zeros);
		fx->crc = kb_image_crc_update(fx->crc, zeros, n);
		if (fx->dev_stream)
			continue;
		ret = kbu_write_all(fx->out.fd, zeros, n);
		if (ret)
			return pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
	}
	return 0;
}

/* the value of pl->key into fx: 0, PULL_AGAIN, BFCTL_ABSENT or -1 */
static int read_value(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
		      struct fetch *fx, bool first)
{
	const char *slen[] = { "STRLEN", pl->key };
	const char *ex[] = { "EXISTS", pl->key };
	char lim[24];
	const char *get[] = { "GETRANGE", pl->key, "0", lim };
	redisReply *rep;
	long long len;
	s64 n;

	rep = bfctl_redis_cmd(r, 2, slen, NULL);
	if (!rep)
		return redis_fail(pl, r), -1;
	len = rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
	freeReplyObject(rep);
	if (len < 0)
		return pull_fail(pl, "%s: unexpected STRLEN reply", pl->key), -1;
	if (!len) {
		rep = bfctl_redis_cmd(r, 2, ex, NULL);
		if (!rep)
			return redis_fail(pl, r), -1;
		n = rep->type == REDIS_REPLY_INTEGER ? rep->integer : 1;
		freeReplyObject(rep);
		if (!n)
			return BFCTL_ABSENT;
	}
	if (fx->gozero && (u64)len > (fx->bits + 7) / 8)
		return pull_fail(pl, "%s: %lld bytes: not the value of a go-zero filter of %llu bits, which has at most %llu (wrong --bits?)",
				 pl->key, len, (unsigned long long)fx->bits,
				 (unsigned long long)(fx->bits + 7) / 8), -1;
	if (fetch_alloc(pl, fx, (u64)len))
		return -1;
	if ((u64)len > r->o->chunk) {
		n = read_chunks(r, pl, fx, (u64)len, first);
		if (n)
			return (int)n;
	} else {
		/*
		 * One GETRANGE is atomic, and bounded: a value that grew
		 * since STRLEN comes back at most one chunk and a byte long
		 * and is read again (then in chunks if it is that long now),
		 * never as an unbounded reply.
		 */
		snprintf(lim, sizeof(lim), "%llu",
			 (unsigned long long)r->o->chunk);
		if (first)	/* the tests grow the value here */
			bfctl_test_pause("BFCTL_REDIS_TEST_PAUSE");
		if (bfctl_redis_append(r, 4, get, NULL))
			return pull_fail(pl, "out of memory"), -1;
		n = take(r, pl, fx, 0, fx->cap, r->o->chunk + 1);
		if (n < 0)
			return -1;
		if ((u64)n > fx->cap || (u64)n > r->o->chunk ||
		    (!fx->gozero && (u64)n != fx->cap))
			return PULL_AGAIN;
		len = n;
	}
	/* zeros past the value: Redis reads missing bytes as 0 */
	if (fx->stream) {
		if (stream_zeros(pl, fx, (u64)len))
			return -1;
	} else if (fx->gozero)
		memset(fx->dst + len, 0, fx->cap - (u64)len);
	fx->len = (u64)len;
	return 0;
}

/* the value read, checked, as the image to load (fx->img) */
static int make_image(struct bfctl_redis_pull *pl, struct fetch *fx)
{
	struct kb_params p;
	struct kb_filter f;
	enum kb_img_err why;
	const void *payload;
	u64 plen;

	if (!fx->gozero) {
		if (kb_image_parse(fx->img, fx->len, 0, &pl->p, &payload, &plen,
				   NULL, &why))
			return pull_fail(pl, "%s: not a kbloom image (pull a go-zero bitmap with --bits): %s",
					 pl->key, kb_image_strerror(why));
		if (fx->have_key_type && pl->p.key_type != fx->key_type)
			return pull_fail(pl, "%s: an image of %s keys; filter %s holds %s keys",
					 pl->key, kb_key_type_name(pl->p.key_type),
					 pl->name ? pl->name : "-",
					 kb_key_type_name(fx->key_type));
		return 0;
	}
	/* image import's check: the length and no bit past --bits */
	if (fx->stream) {
		/* the length was checked before the read; the last byte here */
		if (fx->len == fx->cap && fx->bits % 8 &&
		    (fx->last & (0xffU >> (fx->bits % 8))))
			return pull_fail(pl, "%s: not the value of a go-zero filter of %llu bits: %s",
					 pl->key, (unsigned long long)fx->bits,
					 kb_image_strerror(KB_IMG_GOZERO_PAD));
		pl->p = fx->p;
		return 0;
	}
	if (kb_gozero_import(&p, fx->dst, fx->len, fx->bits, 0, &why))
		return pull_fail(pl, "%s: not the value of a go-zero filter of %llu bits: %s",
				 pl->key, (unsigned long long)fx->bits,
				 kb_image_strerror(why));
	p.key_type = fx->have_key_type ? fx->key_type : KB_KEY_BYTES;
	if (kb_filter_attach(&f, &p, fx->dst, kb_params_payload_bytes(&p)))
		return pull_fail(pl, "%s: cannot attach the filter", pl->key);
	bfctl_image_finish(fx->img, &f, 0);
	pl->p = p;
	return 0;
}

/* the image into the kernel filter (one atomic upload) or -o */
static int load_image(struct kbconn *kc, struct bfctl_redis_pull *pl,
		      const u8 *img, u64 len)
{
	u32 why = 0, crc, limit = guard_limit(pl, &pl->p);
	struct kb_stats st;
	int ret;

	memcpy(&crc, img + len - KB_IMAGE_TRAILER_LEN, sizeof(crc));
	pl->unchanged = pl->last_len == len && pl->last_crc == crc;
	if (pl->unchanged)
		return 0;
	if (pl->out) {
		/* no kernel to ask: the same estimate here */
		if (bfctl_guard_image(img, len, limit, &st) == -EDOM)
			return guard_refuse(pl, &st, limit);
		ret = kbu_write_file(pl->out, img, len);
		if (ret)
			return pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
	} else {
		ret = kbconn_dev(kc);
		if (ret >= 0)
			ret = kbdev_upload_guarded(kc->dev,
						   pl->create ? KB_IMAGE_F_CREATE : 0,
						   pl->name, img, len, limit, &why);
		/* the kernel refused it (and raised its event): say why */
		if (ret == -EDOM &&
		    bfctl_guard_image(img, len, limit, &st) == -EDOM)
			return guard_refuse(pl, &st, limit);
		if (ret)
			return pull_fail(pl, "upload into %s: %s%s%s", pl->name,
					 strerror(-ret), why ? ": " : "",
					 why && why < KB_IMG_ERR_MAX ?
					 kb_image_strerror(why) : "");
	}
	pl->last_len = len;
	pl->last_crc = crc;
	return 0;
}

/*
 * The streamed transaction: committed (the kernel checks the payload once
 * more), or aborted when its image equals the last one loaded.
 */
static int stream_load(struct bfctl_redis_pull *pl, struct fetch *fx)
{
	u64 len = kb_image_size(&fx->p);
	u32 crc = kb_image_crc_final(fx->crc), limit = guard_limit(pl, &fx->p);
	struct kb_stats st;
	int ret, sat;

	pl->unchanged = pl->last_len == len && pl->last_crc == crc;
	/* the fill counted as the value streamed by, as the kernel counts */
	sat = bfctl_guard_bits(&fx->p, fx->ones, limit, &st) == -EDOM;
	if (!fx->dev_stream) {
		u8 t[KB_IMAGE_TRAILER_LEN] = { crc, crc >> 8, crc >> 16,
					       crc >> 24 };

		if (sat && !pl->unchanged) {
			kbu_out_abort(&fx->out);
			return guard_refuse(pl, &st, limit);
		}
		ret = kbu_write_all(fx->out.fd, t, sizeof(t));
		if (ret || pl->unchanged)
			kbu_out_abort(&fx->out);
		else
			ret = kbu_out_commit(&fx->out);
		if (ret)
			return pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
		goto done;
	}
	fx->txn = false;
	ret = pl->unchanged ? kbdev_txn_abort(fx->dev) :
	      kbdev_txn_commit_guarded(fx->dev, limit);
	if (ret == -EDOM)
		return guard_refuse(pl, &st, limit);
	if (ret)
		return pull_fail(pl, "load into %s: %s", pl->name,
				 ret == -EINVAL ? "the kernel refused the payload (bits past --bits?)" :
				 strerror(-ret));
done:
	pl->last_len = len;
	pl->last_crc = crc;
	return 0;
}

int bfctl_redis_pull_once(struct bfctl_redis *r, struct bfctl_redis *sub,
			  struct kbconn *kc, struct bfctl_redis_pull *pl)
{
	struct fetch fx = { .dev = -1, .out.fd = -1 };
	struct stat st;
	u32 tries;
	int ret;

	pl->retries = 0;
	pl->missing = false;
	pl->unchanged = false;
	pl->diverged = false;
	pl->refused = false;
	pl->cfg_fpr_ppb = 0;
	pl->why[0] = 0;
	if (pull_expect(kc, pl, &fx))
		return BFCTL_ERR;
	/* a gozero value into the kernel streams through a transaction */
	if (pl->name && !pl->out) {
		ret = kbconn_dev(kc);
		if (ret < 0)
			return pull_fail(pl, "%s", kc->extack[0] ? kc->extack :
					 strerror(-ret));
		fx.dev = kc->dev;
	}
	/*
	 * -o streams into a temporary file renamed over it at the end; not
	 * into stdout, a pipe or a device, where a restarted read could not
	 * take back what it wrote.
	 */
	fx.to_file = pl->out && strcmp(pl->out, "-") &&
		     (stat(pl->out, &st) ? errno == ENOENT :
		      S_ISREG(st.st_mode));
	for (tries = 0; tries < BFCTL_REDIS_TRIES; tries++) {
		ret = bfctl_redis_fence_begin(r, sub, pl);
		if (!ret)
			ret = check_meta(r, pl, &fx);
		if (ret)
			goto out;
		ret = read_value(r, pl, &fx, !tries);
		if (ret == BFCTL_ABSENT) {
			pl->missing = true;
			goto out;
		}
		if (ret < 0) {
			ret = BFCTL_ERR;
			goto out;
		}
		if (!ret)
			ret = bfctl_redis_fence_end(r, sub, pl);
		else if (bfctl_redis_unwatch(r)) {	/* the next read WATCHes afresh */
			ret = redis_fail(pl, r);
			goto out;
		}
		if (ret < 0) {
			ret = BFCTL_ERR;
			goto out;
		}
		if (!ret)
			break;
		pl->retries++;
	}
	if (tries == BFCTL_REDIS_TRIES) {
		ret = pull_fail(pl, "%s: the value changed during each of %u reads; nothing loaded",
				pl->key, BFCTL_REDIS_TRIES);
		goto out;
	}
	pl->value_len = fx.len;
	ret = make_image(pl, &fx);
	if (!ret)
		ret = fx.stream ? stream_load(pl, &fx) :
		      load_image(kc, pl, fx.img, fx.img_len);
	if (!ret) {
		pl->last_bits = fx.gozero ? fx.bits : 0;
		kernel_state_note(kc, pl);
	}
out:
	if (ret && r->c && !r->io_err)
		bfctl_redis_unwatch(r);
	if (fx.txn)	/* the live filter serves on as it was */
		kbdev_txn_abort(fx.dev);
	if (fx.out.fd >= 0)
		kbu_out_abort(&fx.out);
	free(fx.img);
	return ret;
}

int bfctl_redis_pull_empty(struct kbconn *kc, struct bfctl_redis_pull *pl)
{
	struct kb_params p = pl->p;
	struct kb_filter f;
	u64 len = kb_image_size(&p);
	u8 *img = kbu_alloc_payload(len);
	int ret;

	if (!img)
		return pull_fail(pl, "out of memory");
	ret = kb_filter_init_zeroed(&f, &p, img + sizeof(struct kb_image_hdr),
				    kb_params_payload_bytes(&p));
	if (ret) {
		free(img);
		return pull_fail(pl, "cannot make an empty filter: %s",
				 strerror(-ret));
	}
	bfctl_image_finish(img, &f, 0);
	ret = load_image(kc, pl, img, len);
	free(img);
	if (!ret)
		kernel_state_note(kc, pl);
	return ret;
}
