// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis watch: a relay's sync entry checked against the follower's
 * own copy (docs/redis.md, "What a follower does").
 *
 * A stream entry carries no signature: whoever may XADD to the stream can
 * send a delta the relay never wrote (or put one in the place of one it
 * did), and its bits would stay in every follower until its next whole
 * pull, which a follower of a relay seldom does.  The relay's sync entries
 * carry the CRC-32C of its copy of the value.  A follower in step with the
 * stream holds exactly that copy at the sync: the value it pulled and
 * every delta since, which the relay read and sent after it.  So at a sync
 * it computes the same CRC over its own filter, and a mismatch (a forged
 * or lost entry, or a change made to the filter outside the watcher) is
 * said and ends in a whole pull, which restores what Redis holds.
 *
 * The first sync after a whole pull is not checked: the pull may hold
 * changes the relay had not read yet when it wrote that sync, which would
 * look like a mismatch.  By the next sync (a --sync period later) the
 * relay has read them.
 *
 * A mismatch again at the first check after the whole pull a mismatch
 * made is no stream's doing: the filter changes outside the watcher (it
 * takes local writes: an --add-set rule, BPF adds, bfctl add), and every
 * check would pull the whole value again, on every host following it.
 * Its syncs are no longer checked, said once.
 *
 * Whoever may XADD to the stream can ask every follower for a whole pull
 * at will (a reset, a new epoch, a gap, a bad CRC): the pulls the stream
 * asks for are rationed per follower (bfctl_redis_follow_pull_at()), so
 * such a writer makes a fleet pull whole at most about once per
 * BFCTL_REDIS_SP_MAX, not once per entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "kbdev.h"
#include "redis_delta.h"

/*
 * Checks are rate-limited: a check reads the whole filter (the kernel's
 * through a mapping, an image file in pieces), which is the cost deltas are
 * there to avoid.  Sync entries are periodic (--sync, default 60 s), but
 * their rate is set by whoever writes the stream: a relay run with a short
 * --sync, or forged syncs, must not turn every follower's O(delta) back
 * into O(filter).  So at most one check a second, and one whose read took
 * T waits 100 T before the next (a check costs at most 1% of the time): a
 * 128 MiB filter is checked at about every 60 s sync, a small one at every
 * sync.  A sync skipped by the limit is simply not checked; a forged delta
 * is caught at the next one checked.
 */
#define CHECK_MIN_S	1.0
#define CHECK_COST_X	100.0
/* the -o image is read in pieces of this */
#define CHECK_PIECE	(256u << 10)

/* what a check found: the CRC of the copy's first n bytes, and the rest */
struct copy_crc {
	u32 crc;
	bool longer;	/* bits past the relay's n bytes */
	bool shorter;	/* the copy holds fewer than n bytes */
};

/* crc over [0, n) of a payload piece at off, and bits past n */
static void piece(struct copy_crc *cc, u32 *st, const u8 *b, u64 off,
		  u64 len, u64 n)
{
	u64 in = off >= n ? 0 : (n - off < len ? n - off : len), i;

	*st = kb_image_crc_update(*st, b, in);
	for (i = in; i < len && !cc->longer; i++)
		cc->longer = b[i] != 0;
}

/*
 * The kernel filter's payload through a read-only mapping of it
 * (KB_IOC_OPEN, mmap: uapi "A file per filter"): the kernel's own pages,
 * no copy, each piece let go once read (a 2^30-bit filter is 128 MiB).
 * 1: no such mapping here (a module without KB_IOC_OPEN): export it.
 */
static int mapped_crc(struct kbconn *kc, const struct bfctl_redis_pull *pl,
		      u64 n, struct copy_crc *cc, char *why, size_t wlen)
{
	const struct kb_map_hdr *hdr;
	struct kb_ioc_open o;
	struct kb_map_hdr mi;
	u64 off, plen, step;
	void *base = MAP_FAILED;
	size_t mlen = 0;
	int fd, ret;
	u32 st;

	ret = kbconn_dev(kc);
	if (ret < 0) {
		snprintf(why, wlen, "%s: %s", KBDEV_PATH, strerror(-ret));
		return ret;
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.fd = -1;
	snprintf(o.name, sizeof(o.name), "%s", pl->name);
	ret = ioctl(kc->dev, KB_IOC_OPEN, &o);
	if (ret < 0 && errno == ENOTTY)
		return 1;
	if (ret < 0) {
		ret = -errno;
		snprintf(why, wlen, "KB_IOC_OPEN: %s", strerror(errno));
		return ret;
	}
	fd = o.fd >= 0 ? o.fd : ret;
	memset(&mi, 0, sizeof(mi));
	mi.size = sizeof(mi);
	if (ioctl(fd, KB_IOC_MAP_INFO, &mi) < 0) {
		ret = -errno;
		snprintf(why, wlen, "KB_IOC_MAP_INFO: %s", strerror(errno));
		goto out;
	}
	ret = -ESTALE;
	if (mi.map_bytes < KB_MAP_PAYLOAD_OFFSET || mi.map_bytes > SIZE_MAX) {
		snprintf(why, wlen, "KB_IOC_MAP_INFO: bad map_bytes");
		goto out;
	}
	mlen = (size_t)mi.map_bytes;
	base = mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		ret = -errno;
		snprintf(why, wlen, "mmap of %zu bytes: %s", mlen, strerror(errno));
		goto out;
	}
	hdr = base;
	ret = -ESTALE;
	/* (a generation of another size since MAP_INFO: another filter) */
	if (hdr->magic != KB_MAP_MAGIC || hdr->map_bytes != mlen ||
	    hdr->kind != KB_KIND_GOZERO || hdr->m != pl->p.m ||
	    hdr->payload_offset + hdr->payload_bytes > mlen) {
		snprintf(why, wlen, "the filter is not the one pulled into");
		goto out;
	}
	plen = hdr->payload_bytes;
	cc->shorter = n > plen;
	st = kb_image_crc_init();
	for (off = 0; off < plen; off += step) {
		const u8 *b = (const u8 *)base + hdr->payload_offset + off;

		step = plen - off < CHECK_PIECE ? plen - off : CHECK_PIECE;
		piece(cc, &st, b, off, step, n);
		/* read: its pages leave this process (best effort) */
		madvise((void *)b, step, MADV_DONTNEED);
	}
	cc->crc = kb_image_crc_final(st);
	ret = 0;
out:
	if (base != MAP_FAILED)
		munmap(base, mlen);
	close(fd);
	return ret;
}

/* the kernel filter's payload, exported (a module without KB_IOC_OPEN) */
static int kernel_crc(struct kbconn *kc, const struct bfctl_redis_pull *pl,
		      u64 n, struct copy_crc *cc, char *why, size_t wlen)
{
	struct kb_params p;
	enum kb_img_err ie;
	u64 len, plen;
	u8 *img = NULL;
	u32 st;
	int ret;

	ret = kbconn_dev(kc);
	if (ret >= 0)
		ret = kbdev_export(kc->dev, 0, pl->name, &img, &len);
	if (ret) {
		snprintf(why, wlen, "export: %s", strerror(-ret));
		return ret;
	}
	ret = -ESTALE;
	if (kb_image_parse_header(img, len, len, 0, &p, &plen, NULL, &ie) ||
	    p.kind != KB_KIND_GOZERO || p.m != pl->p.m) {
		snprintf(why, wlen, "the filter is not the one pulled into");
		goto out;
	}
	ret = 0;
	cc->shorter = n > plen;
	st = kb_image_crc_init();
	piece(cc, &st, img + len - KB_IMAGE_TRAILER_LEN - plen, 0, plen, n);
	cc->crc = kb_image_crc_final(st);
out:
	free(img);
	return ret;
}

/* the -o image file's payload, read in pieces */
static int file_crc(const struct bfctl_redis_pull *pl, u64 n,
		    struct copy_crc *cc, char *why, size_t wlen)
{
	u8 hdr[sizeof(struct kb_image_hdr)], *b = NULL;
	struct kb_params p;
	enum kb_img_err ie;
	u64 plen, off, at;
	struct stat sb;
	ssize_t got;
	u32 st;
	int fd, ret;

	/*
	 * Not through a symlink, never blocking, never a controlling tty:
	 * the path may have been replaced by a FIFO or a device node since
	 * the pull wrote it, and opening those can block or act.
	 */
	fd = open(pl->out, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
		  O_NOCTTY);
	if (fd < 0 || fstat(fd, &sb)) {
		ret = -errno;
		snprintf(why, wlen, "%s: %s", pl->out, strerror(errno));
		goto out;
	}
	ret = -ESTALE;
	if (!S_ISREG(sb.st_mode) ||
	    pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    kb_image_parse_header(hdr, sizeof(hdr), (u64)sb.st_size, 0, &p,
				  &plen, NULL, &ie) ||
	    p.kind != KB_KIND_GOZERO || p.m != pl->p.m) {
		snprintf(why, wlen, "%s is not the image the last pull wrote",
			 pl->out);
		goto out;
	}
	b = malloc(CHECK_PIECE);
	ret = -ENOMEM;
	if (!b)
		goto out;
	at = (u64)sb.st_size - KB_IMAGE_TRAILER_LEN - plen;
	cc->shorter = n > plen;
	st = kb_image_crc_init();
	for (off = 0; off < plen; off += (u64)got) {
		got = pread(fd, b, plen - off < CHECK_PIECE ? plen - off :
				   CHECK_PIECE, (off_t)(at + off));
		if (got <= 0) {
			ret = got ? -errno : -EIO;
			snprintf(why, wlen, "%s: %s", pl->out, strerror(-ret));
			goto out;
		}
		piece(cc, &st, b, off, (u64)got, n);
	}
	cc->crc = kb_image_crc_final(st);
	ret = 0;
out:
	free(b);
	if (fd >= 0)
		close(fd);
	return ret;
}

int bfctl_redis_follow_sync(struct bfctl_redis_follow *f, struct kbconn *kc,
			    struct bfctl_redis_pull *pl,
			    const struct bfctl_redis_dentry *e, const char *id)
{
	struct copy_crc cc = { 0 };
	char why[200], msg[320];
	const char *how;
	double t0 = bfctl_redis_now(), wait;
	int ret;

	if (!f->sync_seen) {	/* the first since the pull: see above */
		f->sync_seen = true;
		return 0;
	}
	if (pl->p.kind != KB_KIND_GOZERO || t0 < f->check_at || f->unchecked)
		return 0;
	why[0] = 0;
	if (pl->out) {
		ret = file_crc(pl, e->len, &cc, why, sizeof(why));
		how = "the image file";
	} else {
		ret = mapped_crc(kc, pl, e->len, &cc, why, sizeof(why));
		how = "mapped";
		if (ret == 1) {
			ret = kernel_crc(kc, pl, e->len, &cc, why, sizeof(why));
			how = "exported";
		}
	}
	wait = (bfctl_redis_now() - t0) * CHECK_COST_X;
	f->check_at = bfctl_redis_now() + (wait > CHECK_MIN_S ? wait : CHECK_MIN_S);
	if (ret && ret != -ESTALE) {
		/* not a mismatch: the next merge or pull tells what is wrong */
		snprintf(msg, sizeof(msg), "entry %s (sync): cannot check the filter against the relay's copy: %s",
			 id, why);
		bfctl_redis_watch_status(pl, "error", msg);
		return 0;
	}
	if (!ret && !cc.shorter && !cc.longer && cc.crc == e->crc) {
		snprintf(msg, sizeof(msg), "entry %s (sync): the filter is the relay's copy (CRC-32C %08x over %llu bytes, %s)",
			 id, cc.crc, (unsigned long long)e->len, how);
		bfctl_redis_watch_status(pl, "verified", msg);
		f->mm_pulled = false;
		return 0;
	}
	if (ret)	/* -ESTALE: why says */
		snprintf(msg, sizeof(msg), "%s", why);
	else if (cc.shorter)
		snprintf(msg, sizeof(msg), "the relay's value is longer (%llu bytes) than the filter",
			 (unsigned long long)e->len);
	else if (cc.longer)
		snprintf(msg, sizeof(msg), "the filter has bits past the relay's %llu bytes",
			 (unsigned long long)e->len);
	else
		snprintf(msg, sizeof(msg), "CRC-32C %08x, the relay's %08x, %s",
			 cc.crc, e->crc, how);
	if (f->mm_pulled) {
		f->unchecked = true;
		snprintf(f->why, sizeof(f->why), "entry %s (sync): not the relay's copy again after a whole pull (%.40s): the filter takes local writes (--add-set, BPF, bfctl add; a followed filter mirrors Redis); its syncs are no longer checked",
			 id, msg);
		bfctl_redis_watch_status(pl, "mismatch", f->why);
		return 0;
	}
	f->mm_pulled = true;
	snprintf(f->why, sizeof(f->why), "entry %s (sync): the filter is not the relay's copy (%.100s): a forged or lost stream entry, or a change made outside the watcher (a followed filter mirrors Redis); pulling whole",
		 id, msg);
	bfctl_redis_watch_status(pl, "mismatch", f->why);
	f->synced = false;
	/* the filter is not what the last pull loaded: load it again */
	pl->last_len = 0;
	return 1;
}

double bfctl_redis_follow_pull_at(struct bfctl_redis_follow *f, double now)
{
	double at;

	if (f->sp_pending)
		return f->sp_at;
	if (now - f->sp_last > BFCTL_REDIS_SP_QUIET)
		f->sp_wait = 0;
	at = f->sp_last + f->sp_wait;
	if (at < now)
		at = now;
	f->sp_last = at;
	f->sp_wait = f->sp_wait * 2;
	if (f->sp_wait < f->sp_min)
		f->sp_wait = f->sp_min;
	if (f->sp_wait > BFCTL_REDIS_SP_MAX)
		f->sp_wait = BFCTL_REDIS_SP_MAX;
	f->sp_pending = true;
	f->sp_at = at;
	return at;
}
