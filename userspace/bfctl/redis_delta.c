// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis: the entries of the stream of deltas (redis_delta.h; the
 * format is docs/redis.md's).  Whoever may write the stream can write
 * anything into it, so an entry is checked whole before a follower acts
 * on it: a version, type, epoch or number it does not know, a record
 * out of order, overlapping or past the value, or a length that does not
 * add up makes it malformed, and the follower pulls the value whole
 * instead (nothing of the entry is merged).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "redis_delta.h"

static int bad(char *why, size_t len, const char *msg)
{
	snprintf(why, len, "%s", msg);
	return -EINVAL;
}

/* a decimal u64, nothing else */
static int dec(const char *s, size_t n, u64 *v)
{
	size_t i;

	*v = 0;
	if (!n || n > 19)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		*v = *v * 10 + (u64)(s[i] - '0');
	}
	return 0;
}

int bfctl_redis_stream_id(const char *s, u64 *ms, u64 *sq)
{
	const char *dash = strchr(s, '-');

	if (!dash || dec(s, (size_t)(dash - s), ms) ||
	    dec(dash + 1, strlen(dash + 1), sq))
		return -EINVAL;
	return 0;
}

static u64 le(const u8 *p, int n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

void bfctl_redis_drec(const struct bfctl_redis_dentry *e, u64 *pos,
		      u64 *off, u32 *n, const u8 **bytes)
{
	const u8 *p = e->d + *pos;

	*off = le(p, 8);
	*n = (u32)le(p + 8, 4);
	*bytes = p + BFCTL_REDIS_DREC_HDR;
	*pos += BFCTL_REDIS_DREC_HDR + *n;
}

/* the records of d: in order, within len, adding up to dlen */
static int check_records(struct bfctl_redis_dentry *e, char *why, size_t len)
{
	u64 pos = 0, end = 0, off;
	const u8 *b;
	u32 n;

	if (!e->dlen || e->dlen > BFCTL_REDIS_DELTA_MAX)
		return bad(why, len, "a delta of no records, or longer than 512 KiB");
	e->nr = 0;
	while (pos < e->dlen) {
		if (e->dlen - pos < BFCTL_REDIS_DREC_HDR)
			return bad(why, len, "a record cut short");
		off = le(e->d + pos, 8);
		n = (u32)le(e->d + pos + 8, 4);
		if (!n || n > e->dlen - pos - BFCTL_REDIS_DREC_HDR)
			return bad(why, len, "a record's length is 0 or past the entry");
		if (off < end || off > e->len || n > e->len - off)
			return bad(why, len, "a record out of order, overlapping, or past the value");
		bfctl_redis_drec(e, &pos, &off, &n, &b);
		end = off + n;
		if (++e->nr > KB_MERGE_RANGES_MAX)
			return bad(why, len, "more records than one merge takes");
	}
	return 0;
}

int bfctl_redis_dentry_parse(const redisReply *rep,
			     struct bfctl_redis_dentry *e, char *why,
			     size_t len)
{
	const redisReply *f, *k, *v;
	bool have_n = false, have_c = false, have_v = false, have_t = false;
	size_t i;

	memset(e, 0, sizeof(*e));
	e->seq = ~0ULL;
	if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2 ||
	    rep->element[0]->type != REDIS_REPLY_STRING ||
	    bfctl_redis_stream_id(rep->element[0]->str, &e->ms, &e->sq))
		return bad(why, len, "not a stream entry");
	f = rep->element[1];
	if (f->type != REDIS_REPLY_ARRAY || f->elements % 2)
		return bad(why, len, "fields not in pairs");
	for (i = 0; i < f->elements; i += 2) {
		k = f->element[i];
		v = f->element[i + 1];
		if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING ||
		    k->len != 1)
			return bad(why, len, "an unknown field");
		switch (k->str[0]) {
		case 'v':
			if (strcmp(v->str, BFCTL_REDIS_DELTA_VER))
				return bad(why, len, "an unknown version");
			have_v = true;
			break;
		case 't':
			have_t = true;
			if (!strcmp(v->str, "sync"))
				e->type = BFCTL_RD_SYNC;
			else if (!strcmp(v->str, "delta"))
				e->type = BFCTL_RD_DELTA;
			else if (!strcmp(v->str, "reset"))
				e->type = BFCTL_RD_RESET;
			else
				return bad(why, len, "an unknown type");
			break;
		case 'e':
			if (v->len != 16 || strspn(v->str, "0123456789abcdef") != 16)
				return bad(why, len, "a bad epoch");
			memcpy(e->epoch, v->str, 17);
			break;
		case 's':
			if (dec(v->str, v->len, &e->seq))
				return bad(why, len, "a bad entry number");
			break;
		case 'n':
			if (dec(v->str, v->len, &e->len) || e->len > (1ULL << 32))
				return bad(why, len, "a bad value length");
			have_n = true;
			break;
		case 'c':
			if (v->len != 8 || strspn(v->str, "0123456789abcdef") != 8)
				return bad(why, len, "a bad CRC");
			e->crc = (u32)strtoul(v->str, NULL, 16);
			have_c = true;
			break;
		case 'd':
			e->d = (const u8 *)v->str;
			e->dlen = v->len;
			break;
		case 'r':
			snprintf(e->reason, sizeof(e->reason), "%.*s",
				 (int)(v->len < 15 ? v->len : 15), v->str);
			break;
		default:
			return bad(why, len, "an unknown field");
		}
	}
	if (!have_v || !have_t || !e->epoch[0] || e->seq == ~0ULL || !have_n)
		return bad(why, len, "a field missing (v, t, e, s, n)");
	if ((e->type == BFCTL_RD_SYNC) != have_c ||
	    (e->type == BFCTL_RD_DELTA) != !!e->d)
		return bad(why, len, "a field of another type (c, d)");
	if (!e->seq && e->type != BFCTL_RD_SYNC)
		return bad(why, len, "an epoch that starts with no sync");
	if (e->type == BFCTL_RD_DELTA)
		return check_records(e, why, len);
	return 0;
}

u32 bfctl_redis_value_crc(const u8 *v, u64 len)
{
	return kb_image_crc_final(kb_image_crc_update(kb_image_crc_init(), v,
						      len));
}

static void put_le(u8 *p, u64 v, int n)
{
	int i;

	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (u8)v;
}

/* one record of new[from, to) into df; false when it does not fit */
static bool add_record(struct bfctl_redis_diff *df, const u8 *new, u64 nlen,
		       u64 from, u64 to)
{
	u64 i;
	u8 *p;

	if (df->nr == KB_MERGE_RANGES_MAX ||
	    df->dlen + BFCTL_REDIS_DREC_HDR + (to - from) > BFCTL_REDIS_DELTA_MAX)
		return false;
	p = df->d + df->dlen;
	put_le(p, from, 8);
	put_le(p + 8, to - from, 4);
	p += BFCTL_REDIS_DREC_HDR;
	for (i = from; i < to; i++)
		*p++ = i < nlen ? new[i] : 0;
	df->dlen += BFCTL_REDIS_DREC_HDR + (to - from);
	df->nr++;
	return true;
}

void bfctl_redis_diff(const u8 *old, u64 olen, const u8 *new, u64 nlen,
		      struct bfctl_redis_diff *df)
{
	u64 i, end = olen > nlen ? olen : nlen, from = 0, last = 0;
	bool open = false;
	u8 o, n;

	df->dlen = 0;
	df->nr = 0;
	df->cleared = false;
	df->big = false;
	for (i = 0; i < end; i++) {
		o = i < olen ? old[i] : 0;
		n = i < nlen ? new[i] : 0;
		if (o == n)
			continue;
		if (o & ~n) {	/* a bit went: no delta says that */
			df->cleared = true;
			return;
		}
		/* a gap shorter than a header costs less joined */
		if (open && i - last > BFCTL_REDIS_DREC_HDR) {
			if (!add_record(df, new, nlen, from, last + 1))
				df->big = true;
			open = false;
		}
		if (!open) {
			from = i;
			open = true;
		}
		last = i;
	}
	if (open && !df->big && !add_record(df, new, nlen, from, last + 1))
		df->big = true;
}
