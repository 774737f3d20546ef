// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis: reading a value, bounded, into an image in memory, a
 * kernel transaction's staging payload or a temporary file (the fetch
 * redis_read.h describes).  redis_pull.c says what a pull guarantees and
 * fences the reads; this file reads one value: in one bounded GETRANGE,
 * or in pipelined GETRANGE chunks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "redis_read.h"
#include "savefmt.h"

int bfctl_redis_pull_fail(struct bfctl_redis_pull *pl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pl->why, sizeof(pl->why), fmt, ap);
	va_end(ap);
	return BFCTL_ERR;
}

int bfctl_redis_pull_rfail(struct bfctl_redis_pull *pl, struct bfctl_redis *r)
{
	return bfctl_redis_pull_fail(pl, "%s", r->err);
}

/*
 * A fresh transaction for each read (a read restarted after a change
 * starts from an empty payload), and the CRC of its image's header.
 */
static int stream_begin(struct bfctl_redis_pull *pl,
			struct bfctl_redis_fetch *fx, u64 max)
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
		return bfctl_redis_pull_fail(pl, "%llu bits: %s",
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
			return bfctl_redis_pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
		return 0;
	}
	if (kbdev_set_name(c.name, pl->name))
		return bfctl_redis_pull_fail(pl, "%s: not a filter name", pl->name);
	c.kind = KB_KIND_GOZERO;
	c.key_type = fx->p.key_type;
	c.hash = KB_HASH_MURMUR3;
	c.sizing = KB_SIZING_MK;
	c.m = fx->bits;
	c.k = KB_GOZERO_K;
	ret = kbdev_txn_begin(fx->dev, &c);
	if (ret)
		return bfctl_redis_pull_fail(pl, "filter %s: %s", pl->name, strerror(-ret));
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
static int sink(struct bfctl_redis_pull *pl, struct bfctl_redis_fetch *fx,
		u64 off, const void *buf, u64 n)
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
			return bfctl_redis_pull_fail(pl, "%s: reply out of order", pl->key);
		ret = kbu_write_all(fx->out.fd, buf, n);
		if (ret)
			return bfctl_redis_pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
		fx->pos += n;
	} else {
		ret = kbdev_txn_write(fx->dev, pl->name, off, buf, n);
		if (ret)
			return bfctl_redis_pull_fail(pl, "write into %s: %s", pl->name,
					 strerror(-ret));
	}
	fx->crc = kb_image_crc_update(fx->crc, buf, n);
	fx->ones += ones(buf, n);
	if (n && off + n == fx->cap)
		fx->last = ((const u8 *)buf)[n - 1];
	return 0;
}

/* the image buffer for a value of len bytes */
static int fetch_alloc(struct bfctl_redis_pull *pl,
		       struct bfctl_redis_fetch *fx, u64 len)
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
			return bfctl_redis_pull_fail(pl, "%llu bits: %s",
					 (unsigned long long)fx->bits,
					 kb_image_strerror(why));
		fx->img_len = kb_image_size(&p);
		fx->img = kbu_alloc_payload(fx->img_len);
		fx->dst = fx->img + hl;
		fx->cap = (fx->bits + 7) / 8;
	} else {
		if (len > max + hl + KB_IMAGE_TRAILER_LEN)
			return bfctl_redis_pull_fail(pl, "%s: %llu bytes: bigger than any image the module takes",
					 pl->key, (unsigned long long)len);
		if (fx->img && fx->cap == len)
			return 0;
		free(fx->img);
		fx->img = kbu_alloc_payload(len);
		fx->img_len = fx->cap = len;
		fx->dst = fx->img;
	}
	if (!fx->img)
		return bfctl_redis_pull_fail(pl, "out of memory");
	return 0;
}

/*
 * A bulk reply of at most room bytes to value offset off; its length or
 * -1.  A reply declared longer than the asked bytes is refused before it
 * is read (redis_io.c).
 */
static s64 take(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
		struct bfctl_redis_fetch *fx, u64 off, u64 room, u64 asked)
{
	redisReply *rep = bfctl_redis_reply_max(r, asked, true);
	s64 n;

	if (!rep)
		return bfctl_redis_pull_rfail(pl, r), -1;
	if (rep->type != REDIS_REPLY_STRING) {
		n = rep->type == REDIS_REPLY_NIL ? 0 : -1;
		freeReplyObject(rep);
		if (n < 0)
			bfctl_redis_pull_fail(pl, "%s: an unexpected reply type where a string was asked",
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
 * BFCTL_REDIS_WINDOW in flight.  0, BFCTL_REDIS_PULL_AGAIN (a chunk came short: the
 * value shrank) or -1.
 */
static int read_chunks(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
		       struct bfctl_redis_fetch *fx, u64 len, bool first)
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
			if (redisAppendCommandArgv(r->c, 4, argv, NULL) != REDIS_OK) {
				r->io_err = true;
				return bfctl_redis_pull_fail(pl, "%s: out of memory", r->o->url), -1;
			}
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
	return shortread ? BFCTL_REDIS_PULL_AGAIN : 0;
}

/* the payload's zeros past the value (the kernel's are there already) */
static int stream_zeros(struct bfctl_redis_pull *pl,
			struct bfctl_redis_fetch *fx, u64 from)
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
			return bfctl_redis_pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
	}
	return 0;
}

/* the value of pl->key into fx: 0, BFCTL_REDIS_PULL_AGAIN, BFCTL_ABSENT or -1 */
int bfctl_redis_read_value(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
			   struct bfctl_redis_fetch *fx, bool first)
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
		return bfctl_redis_pull_rfail(pl, r), -1;
	len = rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
	freeReplyObject(rep);
	if (len < 0)
		return bfctl_redis_pull_fail(pl, "%s: unexpected STRLEN reply", pl->key), -1;
	if (!len) {
		rep = bfctl_redis_cmd(r, 2, ex, NULL);
		if (!rep)
			return bfctl_redis_pull_rfail(pl, r), -1;
		n = rep->type == REDIS_REPLY_INTEGER ? rep->integer : 1;
		freeReplyObject(rep);
		if (!n)
			return BFCTL_ABSENT;
	}
	if (fx->gozero && (u64)len > (fx->bits + 7) / 8)
		return bfctl_redis_pull_fail(pl, "%s: %lld bytes: not the value of a go-zero filter of %llu bits, which has at most %llu (wrong --bits?)",
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
		if (redisAppendCommandArgv(r->c, 4, get, NULL) != REDIS_OK)
			return bfctl_redis_pull_fail(pl, "out of memory"), -1;
		n = take(r, pl, fx, 0, fx->cap, r->o->chunk + 1);
		if (n < 0)
			return -1;
		if ((u64)n > fx->cap || (u64)n > r->o->chunk ||
		    (!fx->gozero && (u64)n != fx->cap))
			return BFCTL_REDIS_PULL_AGAIN;
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
