// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis watch, following a relay's stream of deltas (redis_relay.c;
 * docs/redis.md, "The stream of deltas"): after one whole pull, each
 * change costs the bytes that changed.
 *
 * The pull is fenced against the stream: the stream's last entry is read
 * before the pull, so the value pulled holds at least what that entry
 * says, and the follower reads on from it.  An entry after it may be in
 * the pull already: a delta only sets bits, so merging it again changes
 * nothing.  Anything the follower cannot merge exactly ends in one whole
 * pull, as watch does without a relay: an entry of another epoch (a new
 * relay), a gap in the entries' numbers (trimmed by MAXLEN before this
 * follower read them), a reset (a rebuild, a DEL, a clearing write), a
 * malformed entry (nothing of it is merged), a filter whose generation
 * is no longer the one pulled into (ESTALE).  A delta that would take the
 * filter past --max-fpr is refused (EDOM), the old contents serving.
 * "merged" is said only once the merge is done: in the kernel (one
 * KB_IOC_MERGE, all or nothing) or, with -o, in the image file in place
 * (merge_file()), with no lock: the bytes first, the CRC trailer last, so
 * a reader that overlaps a merge finds a CRC mismatch and reads again, as
 * bfctl's and libkbloom's do (kbu_torn_retry()).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "redis_delta.h"
#include "savefmt.h"

/* how long one XREAD blocks before it is sent again */
#define FOLLOW_BLOCK_MS	"10000"
/* -o's file is read in pieces of this many bytes */
#define OFILE_PIECE		(1U << 20)

/* -o's file is no longer the one followed: the next delta reads it anew */
static void ofile_drop(struct bfctl_redis_follow *f)
{
	if (f->ofile)
		close(f->ofd);
	f->ofile = false;
	f->ofd = -1;
}

static int ofile_open(struct bfctl_redis_follow *f,
		      const struct bfctl_redis_pull *pl);

int bfctl_redis_follow_init(struct bfctl_redis_follow *f, const char *key)
{
	memset(f, 0, sizeof(*f));
	f->ofd = -1;
	if (bfctl_redis_sibling(f->stream, sizeof(f->stream), key,
				BFCTL_REDIS_STREAM_SFX) ||
	    bfctl_redis_sibling(f->lease, sizeof(f->lease), key,
				BFCTL_REDIS_LEASE_SFX))
		return -ENAMETOOLONG;
	return 0;
}

int bfctl_redis_follow_lease(struct bfctl_redis *r,
			     struct bfctl_redis_follow *f)
{
	const char *argv[] = { "EXISTS", f->lease };
	redisReply *rep = bfctl_redis_cmd(r, 2, argv, NULL);
	int ret;

	if (!rep)
		return -1;
	ret = rep->type == REDIS_REPLY_INTEGER && rep->integer > 0;
	freeReplyObject(rep);
	return ret;
}

int bfctl_redis_follow_fence(struct bfctl_redis *r,
			     struct bfctl_redis_follow *f)
{
	const char *argv[] = { "XREVRANGE", f->stream, "+", "-", "COUNT", "1" };
	struct bfctl_redis_dentry e;
	redisReply *rep;
	char why[128];

	if (bfctl_redis_append(r, 6, argv, NULL))
		return -1;
	rep = bfctl_redis_reply_max(r, BFCTL_REDIS_DELTA_REPLY, false);
	if (!rep)
		return -1;
	f->have_fence = false;
	f->f_ms = f->f_sq = 0;
	/* none, or one the follower cannot read: any entry after it pulls */
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 1 &&
	    !bfctl_redis_dentry_parse(rep->element[0], &e, why, sizeof(why))) {
		f->have_fence = true;
		f->f_ms = e.ms;
		f->f_sq = e.sq;
		f->f_seq = e.seq;
		memcpy(f->f_epoch, e.epoch, sizeof(e.epoch));
	} else if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 1 &&
		   rep->element[0]->type == REDIS_REPLY_ARRAY &&
		   rep->element[0]->elements == 2 &&
		   rep->element[0]->element[0]->type == REDIS_REPLY_STRING) {
		bfctl_redis_stream_id(rep->element[0]->element[0]->str,
				      &f->f_ms, &f->f_sq);
	}
	freeReplyObject(rep);
	return 0;
}

void bfctl_redis_follow_pulled(struct bfctl_redis_follow *f,
			       const struct bfctl_redis_pull *pl, bool ok)
{
	/* never back: an XREAD in flight may have read past the fence */
	if (f->f_ms > f->ms || (f->f_ms == f->ms && f->f_sq > f->sq)) {
		f->ms = f->f_ms;
		f->sq = f->f_sq;
	}
	f->synced = ok && f->have_fence;
	if (f->synced) {
		memcpy(f->epoch, f->f_epoch, sizeof(f->epoch));
		f->seq = f->f_seq;
	}
	f->merged = 0;
	f->sync_seen = false;	/* the next sync is not checked (redis_sync.c) */
	ofile_drop(f);
	/*
	 * -o: the file the pull wrote is read now, a cost of the pull, not
	 * of the first delta (else at the first delta, if this fails)
	 */
	if (f->synced && pl->out && strcmp(pl->out, "-"))
		ofile_open(f, pl);
}

int bfctl_redis_follow_send(struct bfctl_redis_follow *f)
{
	char id[48];
	const char *argv[] = { "XREAD", "COUNT", "4", "BLOCK", FOLLOW_BLOCK_MS,
			       "STREAMS", f->stream, id };

	if (f->waiting)
		return 0;
	snprintf(id, sizeof(id), "%llu-%llu", (unsigned long long)f->ms,
		 (unsigned long long)f->sq);
	/* through the transport: over TLS, SSL_write, never the socket */
	if (bfctl_redis_append(&f->xr, 8, argv, NULL) ||
	    bfctl_redis_flush(&f->xr))
		return -1;
	f->waiting = true;
	return 0;
}

/* a whole pull is due: say why ("resync") */
static int due(struct bfctl_redis_follow *f, const struct bfctl_redis_pull *pl,
	       const char *fmt, const char *a, const char *b)
{
	snprintf(f->why, sizeof(f->why), fmt, a, b);
	f->synced = false;
	bfctl_redis_watch_status(pl, "resync", f->why);
	return 1;
}

/* the records as the kernel's ranges, each within the payload */
static int ranges(const struct bfctl_redis_dentry *e, u64 payload,
		  struct kb_merge_range *r)
{
	u64 pos = 0, off;
	const u8 *b;
	u32 i, n;

	for (i = 0; i < e->nr; i++) {
		bfctl_redis_drec(e, &pos, &off, &n, &b);
		if (off >= payload || n > payload - off)
			return -EINVAL;
		r[i].offset = off;
		r[i].len = n;
		r[i].data = (u64)(uintptr_t)b;
	}
	return 0;
}

static int pread_all(int fd, void *buf, size_t len, u64 off)
{
	u8 *b = buf;

	while (len) {
		ssize_t n = pread(fd, b, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ESTALE;	/* shorter than it was */
		b += n;
		len -= (size_t)n;
		off += (u64)n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, u64 off)
{
	const u8 *b = buf;

	while (len) {
		ssize_t n = pwrite(fd, b, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		b += n;
		len -= (size_t)n;
		off += (u64)n;
	}
	return 0;
}

static u32 get_le32(const u8 *t)
{
	return (u32)t[0] | ((u32)t[1] << 8) | ((u32)t[2] << 16) |
	       ((u32)t[3] << 24);
}

/*
 * The file's bits counted and its CRC checked, in pieces (the follower
 * never holds the image): when the pull cannot say how many bits it wrote
 */
static int ofile_count(int fd, const u8 *hdr, u64 plen, const u8 *t,
		       u64 *bits)
{
	const u64 hl = sizeof(struct kb_image_hdr);
	u64 i, n, at;
	u8 *buf = malloc(OFILE_PIECE);
	u32 crc;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	*bits = 0;
	crc = kb_image_crc_update(kb_image_crc_init(), hdr, hl);
	for (at = 0; at < plen && !ret; at += n) {
		n = plen - at < OFILE_PIECE ? plen - at : OFILE_PIECE;
		ret = pread_all(fd, buf, n, hl + at);
		if (ret)
			break;
		crc = kb_image_crc_update(crc, buf, n);
		for (i = 0; i < n; i++)
			*bits += (u64)__builtin_popcount(buf[i]);
	}
	if (!ret && kb_image_crc_check(crc, t, NULL))
		ret = -ESTALE;
	free(buf);
	return ret;
}

/*
 * After a pull: the file the pull wrote (its length and trailer the
 * image the pull loaded), opened.  Its bits are those the pull counted
 * (pl->last_ones): the trailer names the image; read whole only when the
 * pull could not count them.  Opened as a regular file only: never a
 * device (a watchdog an open arms), a FIFO or a tty (an open that
 * blocks), never through a symlink (-ELOOP: its target may change under
 * it).  -ESTALE: not that image, so a pull is due.
 */
static int ofile_open(struct bfctl_redis_follow *f,
		      const struct bfctl_redis_pull *pl)
{
	const u64 hl = sizeof(struct kb_image_hdr);
	u64 plen = kb_params_payload_bytes(&pl->p), bits = pl->last_ones;
	u64 len = hl + plen + KB_IMAGE_TRAILER_LEN, got;
	u8 hdr[sizeof(struct kb_image_hdr)], t[KB_IMAGE_TRAILER_LEN];
	struct kb_params p;
	struct stat lst, st;
	int fd, ret;

	if (lstat(pl->out, &lst) < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (S_ISLNK(lst.st_mode))
		return -ELOOP;
	if (!S_ISREG(lst.st_mode))
		return -ESTALE;
	/* and if it changed since: no blocking, no tty, not followed */
	fd = open(pl->out, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	/* O_NONBLOCK does nothing to a regular file: it stays set */
	ret = -errno;
	if (fstat(fd, &st) < 0)
		goto fail;
	ret = -ESTALE;
	if (!S_ISREG(st.st_mode) || st.st_dev != lst.st_dev ||
	    st.st_ino != lst.st_ino || (u64)st.st_size != len ||
	    pl->last_len != len)
		goto fail;
	ret = pread_all(fd, hdr, hl, 0) ?:
	      pread_all(fd, t, sizeof(t), len - sizeof(t));
	if (ret)
		goto fail;
	ret = -ESTALE;
	if (kb_image_parse_header(hdr, hl, len, 0, &p, &got, NULL, NULL) ||
	    p.kind != KB_KIND_GOZERO || p.m != pl->p.m || got != plen ||
	    get_le32(t) != pl->last_crc)
		goto fail;
	ret = pl->have_ones ? 0 : ofile_count(fd, hdr, plen, t, &bits);
	if (ret)
		goto fail;
	f->ofd = fd;
	f->ofile = true;
	f->odev = st.st_dev;
	f->oino = st.st_ino;
	f->olen = len;
	f->obits = bits;
	f->ocrc = get_le32(t);
	return 0;
fail:
	close(fd);
	return ret;
}

/*
 * Later deltas: the file held is still the path's (not replaced), its
 * length and trailer as last written (no one else wrote into it).
 * -ESTALE otherwise: never written into, a pull is due.
 */
static int ofile_check(struct bfctl_redis_follow *f,
		       const struct bfctl_redis_pull *pl)
{
	u8 t[KB_IMAGE_TRAILER_LEN];
	struct stat st, pst;

	if (fstat(f->ofd, &st) < 0 || lstat(pl->out, &pst) < 0 ||
	    st.st_dev != pst.st_dev || st.st_ino != pst.st_ino ||
	    (u64)st.st_dev != f->odev || (u64)st.st_ino != f->oino ||
	    (u64)st.st_size != f->olen ||
	    pread_all(f->ofd, t, sizeof(t), f->olen - sizeof(t)) ||
	    get_le32(t) != f->ocrc)
		return -ESTALE;
	return 0;
}

/*
 * The delta into the image file in place, in O(delta), with no lock:
 * each record's old bytes read, the new ones ORed in, the guard judged on
 * the bits counted, then only changed bytes written and, last, the
 * trailer's CRC patched (kb_image_crc_patch()).  A reader between the
 * two finds a CRC mismatch and reads again (kbu_torn_retry()); no reader
 * can hold a delta back.  The header does not change: its count stays 0,
 * as a pull writes it.  Nothing is written unless all of it is to be; a
 * crash between the bytes and the trailer leaves a CRC every reader
 * refuses (after its tries), and a watch starts with a whole pull.  Two
 * watchers must not share one -o file: neither would know of the other's
 * bytes until its trailer check.
 */
static int merge_file(struct bfctl_redis_follow *f,
		      struct bfctl_redis_pull *pl,
		      const struct bfctl_redis_dentry *e,
		      const struct kb_merge_range *r, u32 limit, char *why,
		      size_t wlen)
{
	const u64 hl = sizeof(struct kb_image_hdr);
	u64 total = 0, at, i, j, k, added = 0;
	u8 *old = NULL, *new, t[KB_IMAGE_TRAILER_LEN];
	const u8 *d;
	struct kb_stats st;
	u32 crc;
	int ret;

	ret = f->ofile ? ofile_check(f, pl) : ofile_open(f, pl);
	if (ret == -ELOOP)
		snprintf(why, wlen, "%s is a symlink: never written through in place",
			 pl->out);
	if (ret) {
		ofile_drop(f);
		/* the pull rewrites it, even if the value is as pulled */
		pl->last_len = 0;
		return ret;
	}
	for (i = 0; i < e->nr; i++)
		total += r[i].len;
	old = malloc(2 * total + 1);
	ret = -ENOMEM;
	if (!old)
		goto drop;
	new = old + total;
	for (i = 0, at = 0; i < e->nr; at += r[i].len, i++) {
		ret = pread_all(f->ofd, old + at, r[i].len, hl + r[i].offset);
		if (ret)
			goto drop;
		d = (const u8 *)(uintptr_t)r[i].data;
		for (j = 0; j < r[i].len; j++) {
			new[at + j] = old[at + j] | d[j];
			added += (u64)__builtin_popcount(new[at + j] ^
							 old[at + j]);
		}
	}
	ret = -EINVAL;	/* a bit past m, as the kernel refuses it */
	if (e->nr && pl->p.m % 8 &&
	    r[e->nr - 1].offset + r[e->nr - 1].len == (pl->p.m + 7) / 8 &&
	    (new[total - 1] & (0xffU >> (pl->p.m % 8))))
		goto keep;
	ret = bfctl_guard_bits(&pl->p, f->obits + added, limit, &st);
	if (ret == -EDOM) {
		bfctl_guard_why(&st, limit, why, wlen);
		goto keep;
	}
	crc = f->ocrc;
	for (i = 0, at = 0; i < e->nr; at += r[i].len, i++) {
		crc = kb_image_crc_patch(crc, old + at, new + at, r[i].len,
					 f->olen - KB_IMAGE_TRAILER_LEN - hl -
					 r[i].offset - r[i].len);
		/* each run of changed bytes, nothing else */
		for (j = 0; j < r[i].len; j = k) {
			while (j < r[i].len && new[at + j] == old[at + j])
				j++;
			for (k = j; k < r[i].len && new[at + k] != old[at + k];)
				k++;
			if (k > j) {
				ret = pwrite_all(f->ofd, new + at + j, k - j,
						 hl + r[i].offset + j);
				if (ret)
					goto drop;
			}
		}
	}
	if (crc != f->ocrc) {
		t[0] = (u8)crc;
		t[1] = (u8)(crc >> 8);
		t[2] = (u8)(crc >> 16);
		t[3] = (u8)(crc >> 24);
		ret = pwrite_all(f->ofd, t, sizeof(t),
				 f->olen - KB_IMAGE_TRAILER_LEN);
		if (ret)
			goto drop;
	}
	f->ocrc = crc;
	f->obits += added;
	ret = 0;
keep:
	free(old);
	return ret;
drop:
	/* half written, or unknown: the next pull rewrites it */
	ofile_drop(f);
	pl->last_len = 0;
	free(old);
	return ret;
}

/* one delta: merged whole, or not at all; 0, or -errno (why) */
static int merge(struct bfctl_redis_follow *f, struct kbconn *kc,
		 struct bfctl_redis_pull *pl,
		 const struct bfctl_redis_dentry *e, char *why, size_t wlen)
{
	u64 gen = pl->have_kstate ? pl->kstate[1] : 0, bits = 0;
	u32 limit = bfctl_redis_guard_limit(pl, &pl->p), kwhy = 0;
	struct kb_merge_range *r;
	int ret;

	why[0] = 0;
	if (pl->p.kind != KB_KIND_GOZERO)	/* an image's bytes are not its payload */
		return -ESTALE;
	r = calloc(e->nr, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = ranges(e, kb_params_payload_bytes(&pl->p), r);
	if (ret) {
		snprintf(why, wlen, "a record past the filter's %llu bytes",
			 (unsigned long long)kb_params_payload_bytes(&pl->p));
		goto out;
	}
	if (pl->out) {
		ret = merge_file(f, pl, e, r, limit, why, wlen);
		goto out;
	}
	/*
	 * The generation pulled into, or no merge: 0 would disable the
	 * kernel's check, and a filter rebuilt since would take the delta
	 */
	if (!pl->have_kstate || !gen) {
		snprintf(why, wlen, "the filter's generation is unknown");
		ret = -ESTALE;
		goto out;
	}
	ret = kbconn_dev(kc);
	if (ret >= 0)
		ret = kbdev_merge(kc->dev, pl->name, r, e->nr, limit, &gen,
				  &bits, &kwhy);
	if (ret == -EDOM)
		snprintf(why, wlen, "saturated: the delta would take the filter past its FPR limit of %.4g%%",
			 limit / 1e7);
out:
	free(r);
	if (!ret) {
		/* the filter is no longer the image loaded: a pull loads it */
		pl->last_len = 0;
		bfctl_redis_pull_note(kc, pl);
		/*
		 * The generation the merge made, never one read after it:
		 * a rebuild landing between would be adopted as ours
		 */
		if (!pl->out && pl->have_kstate)
			pl->kstate[1] = gen;
	}
	return ret;
}

static bool after_cursor(const struct bfctl_redis_follow *f, u64 ms, u64 sq)
{
	return ms > f->ms || (ms == f->ms && sq > f->sq);
}

/* one entry: 1 a pull is due, 0 merged (or nothing to do) */
static int entry(struct bfctl_redis_follow *f, struct kbconn *kc,
		 struct bfctl_redis_pull *pl, const redisReply *rep)
{
	struct bfctl_redis_dentry e;
	char why[200], id[48];
	u64 ms, sq;
	int ret;

	/* one read already (an XREAD sent before the last pull's fence) */
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements >= 1 &&
	    rep->element[0]->type == REDIS_REPLY_STRING &&
	    !bfctl_redis_stream_id(rep->element[0]->str, &ms, &sq) &&
	    !after_cursor(f, ms, sq))
		return 0;
	if (bfctl_redis_dentry_parse(rep, &e, why, sizeof(why))) {
		/* its id, if it has one: the cursor moves past it */
		if (rep->type == REDIS_REPLY_ARRAY && rep->elements >= 1 &&
		    rep->element[0]->type == REDIS_REPLY_STRING)
			bfctl_redis_stream_id(rep->element[0]->str, &f->ms,
					      &f->sq);
		snprintf(f->why, sizeof(f->why),
			 "a malformed stream entry (%s): nothing merged; pulling whole",
			 why);
		bfctl_redis_watch_status(pl, "error", f->why);
		f->synced = false;
		return 1;
	}
	if (!after_cursor(f, e.ms, e.sq))
		return 0;
	f->ms = e.ms;
	f->sq = e.sq;
	snprintf(id, sizeof(id), "%llu-%llu", (unsigned long long)e.ms,
		 (unsigned long long)e.sq);
	if (!f->synced)
		return due(f, pl, "entry %s%s: not in step with the stream; pulling whole",
			   id, "");
	if (strcmp(e.epoch, f->epoch))
		return due(f, pl, "entry %s: a new relay (epoch %s); pulling whole",
			   id, e.epoch);
	if (e.seq != f->seq + 1)
		return due(f, pl, "entry %s: entries missing before it (trimmed, or lost)%s; pulling whole",
			   id, "");
	f->seq = e.seq;
	if (e.type == BFCTL_RD_SYNC)
		return bfctl_redis_follow_sync(f, kc, pl, &e, id);
	if (e.type == BFCTL_RD_RESET)
		return due(f, pl, "entry %s: the relay says %s; pulling whole", id,
			   e.reason);
	ret = merge(f, kc, pl, &e, why, sizeof(why));
	if (!ret) {
		f->merged++;
		pl->delta_bytes = e.dlen;
		snprintf(pl->delta_id, sizeof(pl->delta_id), "%s", id);
		bfctl_redis_watch_status(pl, "merged", NULL);
		return 0;
	}
	f->synced = false;
	if (ret == -EDOM) {
		pl->refused = true;
		snprintf(f->why, sizeof(f->why), "entry %s refused: %s", id, why);
		bfctl_redis_watch_status(pl, "refused", f->why);
		return 0;	/* the next entry (or poll) pulls, as a pull would be */
	}
	if (ret == -ESTALE)
		return due(f, pl, "entry %s: the filter is not the one pulled into%s; pulling whole",
			   id, why[0] ? " (its generation is unknown)" : "");
	if (ret == -ENOTTY || ret == -EOPNOTSUPP) {
		/* a module without KB_IOC_MERGE, a kind it cannot merge */
		f->cannot = true;
		snprintf(f->why, sizeof(f->why), "the kernel cannot merge into this filter (%s): whole pulls, following keyspace events",
			 strerror(-ret));
		bfctl_redis_watch_status(pl, "relay", f->why);
		return 1;
	}
	snprintf(f->why, sizeof(f->why), "entry %s: merge: %s%s%s; pulling whole",
		 id, strerror(-ret), why[0] ? ": " : "", why);
	bfctl_redis_watch_status(pl, "error", f->why);
	return 1;
}

int bfctl_redis_follow_recv(struct bfctl_redis_follow *f, struct kbconn *kc,
			    struct bfctl_redis_pull *pl)
{
	const redisReply *s, *list;
	redisReply *rep;
	size_t i;
	int pull = 0;

	bfctl_redis_deadline(f->xr.o);
	rep = bfctl_redis_reply_max(&f->xr, BFCTL_REDIS_DELTA_REPLY, false);
	f->waiting = false;
	if (!rep)
		return -1;
	/* nil: the BLOCK ran out; else [[stream, [entry...]]] */
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 1 &&
	    rep->element[0]->type == REDIS_REPLY_ARRAY &&
	    rep->element[0]->elements == 2) {
		s = rep->element[0];
		list = s->element[1];
		for (i = 0; list->type == REDIS_REPLY_ARRAY &&
		     i < list->elements && !pull; i++)
			pull = entry(f, kc, pl, list->element[i]);
	} else if (rep->type != REDIS_REPLY_NIL) {
		pull = due(f, pl, "%s%s", "an unexpected XREAD reply; pulling whole",
			   "");
	}
	freeReplyObject(rep);
	return pull;
}

void bfctl_redis_follow_stop(struct bfctl_redis_follow *f)
{
	bfctl_redis_close(&f->xr);
	memset(&f->xr, 0, sizeof(f->xr));
	ofile_drop(f);
	f->on = f->synced = f->waiting = false;
}
