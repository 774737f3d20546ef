/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl redis: the stream of deltas a relay (redis_relay.c) writes next
 * to a key and watchers (redis_follow.c) read; docs/redis.md, "The
 * stream of deltas", defines the entry format.  An entry is a flat list
 * of fields, every value a string:
 *
 *   v  "1": the format's version
 *   t  "sync", "delta" or "reset"
 *   e  the relay's epoch: 16 hex digits, new each time a relay takes the
 *      lease
 *   s  the entry's number in its epoch, from 0 (always a sync)
 *   n  the value's length (STRLEN) after the entry
 *   c  sync only: the CRC-32C of the value's n bytes, 8 hex digits
 *   d  delta only: records { u64 offset, u32 length (LE), bytes }, in
 *      ascending order, not overlapping, each within n
 *   r  reset only: why (rename, del, clear, new, big, other)
 */
#ifndef _BFCTL_REDIS_DELTA_H
#define _BFCTL_REDIS_DELTA_H

#include "redis.h"

#define BFCTL_REDIS_DELTA_VER	"1"
/* the suffixes of the stream's and the lease's keys (sibling keys) */
#define BFCTL_REDIS_STREAM_SFX	"kbloom-stream"
#define BFCTL_REDIS_LEASE_SFX	"kbloom-relay"
/* the largest d field a relay writes and a follower takes */
#define BFCTL_REDIS_DELTA_MAX	(512u << 10)
/* a record's header: u64 offset, u32 length */
#define BFCTL_REDIS_DREC_HDR	12
/* entries a follower reads at once (XREAD COUNT) */
#define BFCTL_REDIS_DELTA_COUNT	4
/* a reply of that many entries: their d fields and the rest */
#define BFCTL_REDIS_DELTA_REPLY	\
	(BFCTL_REDIS_DELTA_COUNT * (BFCTL_REDIS_DELTA_MAX + 1024))

enum bfctl_redis_dtype {
	BFCTL_RD_SYNC,
	BFCTL_RD_DELTA,
	BFCTL_RD_RESET,
};

/* one entry as read, checked; its strings point into the reply */
struct bfctl_redis_dentry {
	u64 ms, sq;		/* the stream id ms-sq */
	enum bfctl_redis_dtype type;
	char epoch[17];
	u64 seq;
	u64 len;		/* n */
	u32 crc;		/* c (sync) */
	const u8 *d;		/* d (delta) */
	u64 dlen;
	u32 nr;			/* its records */
	char reason[16];	/* r (reset) */
};

/*
 * The stream entry rep (an XREAD/XRANGE entry: [id, [field, value...]])
 * into e, checked as above; 0, or -EINVAL with why (len bytes) saying
 * what is wrong.  A delta's records are checked whole here.
 */
int bfctl_redis_dentry_parse(const redisReply *rep,
			     struct bfctl_redis_dentry *e, char *why,
			     size_t len);
/* a stream id "ms-sq" into ms, sq; 0 or -EINVAL */
int bfctl_redis_stream_id(const char *s, u64 *ms, u64 *sq);
/* record i of a parsed delta, walking from *pos (0 first) */
void bfctl_redis_drec(const struct bfctl_redis_dentry *e, u64 *pos,
		      u64 *off, u32 *n, const u8 **bytes);

/* what changed from old to new, as d records (the relay) */
struct bfctl_redis_diff {
	u8 *d;			/* records, BFCTL_REDIS_DELTA_MAX at most */
	u64 dlen;
	u32 nr;
	bool cleared;		/* a bit went from 1 to 0 */
	bool big;		/* more than one entry holds */
};
/*
 * Compare old (olen bytes) with new (nlen); bytes past a length are 0.
 * Changed bytes closer than a record's header are joined in one record.
 * df->d must hold BFCTL_REDIS_DELTA_MAX bytes.
 */
void bfctl_redis_diff(const u8 *old, u64 olen, const u8 *new, u64 nlen,
		      struct bfctl_redis_diff *df);
/* the value's CRC-32C (a sync's c) */
u32 bfctl_redis_value_crc(const u8 *v, u64 len);

/* ---- the follower (redis_follow.c, for redis_watch.c) ---- */

struct bfctl_redis_follow {
	bool on;		/* a relay holds the lease: following its stream */
	bool synced;		/* the filter is the value at (epoch, seq) */
	bool waiting;		/* an XREAD is in flight on xr */
	bool have_fence;	/* the fence found an entry */
	bool cannot;		/* the kernel cannot merge: follow no relay */
	struct bfctl_redis xr;	/* the XREAD BLOCK connection */
	char stream[BFCTL_REDIS_KEY_MAX + 64], lease[BFCTL_REDIS_KEY_MAX + 64];
	u64 ms, sq;		/* the cursor: the last entry read */
	char epoch[17];
	u64 seq;
	/* what the fence before a pull found */
	u64 f_ms, f_sq, f_seq;
	char f_epoch[17];
	u64 merged;		/* deltas merged since the last pull */
	/*
	 * A SETBIT heard while following: an entry after (q_ms, q_sq) is
	 * due by quiet_until (0: none), else the relay is not writing
	 */
	double quiet_until;
	u64 q_ms, q_sq;
	char why[320];		/* why a pull is due, or a merge failed */
	/* the sync check (redis_sync.c) */
	bool sync_seen;		/* a sync read in step since the last pull */
	double check_at;	/* no check before (its rate limit) */
	/*
	 * -o's image file, merged into in place (redis_follow.c): held
	 * open from the first delta after a pull, as that pull wrote it
	 */
	bool ofile;		/* ofd is open, the rest below hold */
	int ofd;
	u64 odev, oino, olen;	/* the file's identity and length */
	u64 obits;		/* bits set in its payload */
	u32 ocrc;		/* its trailer as last written */
	bool mm_pulled;		/* the last check was a mismatch: pulled */
	bool unchecked;		/* a mismatch again after it: no more checks */
	/* the whole pulls the stream asks for, rationed (redis_sync.c) */
	double sp_last;		/* when the last one was due */
	double sp_wait;		/* the least time from it to the next */
	bool sp_pending;	/* one is due and has not run yet */
	double sp_at;		/* when */
	double sp_min;		/* the first wait (--resync-backoff), 0: none */
};

/* the sibling keys of key; 0 or -ENAMETOOLONG */
int bfctl_redis_follow_init(struct bfctl_redis_follow *f, const char *key);
/* does a relay hold the lease?  1, 0, or -1 (r->err) */
int bfctl_redis_follow_lease(struct bfctl_redis *r,
			     struct bfctl_redis_follow *f);
/*
 * Before a pull: the stream's last entry (XREVRANGE + - COUNT 1), which
 * the pull's value holds at least; 0 or -1 (r->err).
 */
int bfctl_redis_follow_fence(struct bfctl_redis *r,
			     struct bfctl_redis_follow *f);
/*
 * after it: synced at the fence (ok), or waiting for the next pull; with
 * -o, the file the pull wrote is opened and read for the deltas to come
 */
void bfctl_redis_follow_pulled(struct bfctl_redis_follow *f,
			       const struct bfctl_redis_pull *pl, bool ok);
/* the XREAD BLOCK after the cursor on f->xr; 0 or -1 (f->xr.err) */
int bfctl_redis_follow_send(struct bfctl_redis_follow *f);
/*
 * Its reply (xr readable): each new entry merged into the kernel filter
 * (kc) or the image file pl->out, a status line for each.  1: a pull is
 * due (f->why), 0, -1: the connection broke (f->xr.err).
 */
int bfctl_redis_follow_recv(struct bfctl_redis_follow *f, struct kbconn *kc,
			    struct bfctl_redis_pull *pl);
void bfctl_redis_follow_stop(struct bfctl_redis_follow *f);
/*
 * A sync entry e (id) read in step: the filter (kc, or pl->out) checked
 * against the relay's CRC, rate-limited (redis_sync.c).  1: it is not the
 * relay's copy, a pull is due (f->why); 0.
 */
int bfctl_redis_follow_sync(struct bfctl_redis_follow *f, struct kbconn *kc,
			    struct bfctl_redis_pull *pl,
			    const struct bfctl_redis_dentry *e, const char *id);
/*
 * A whole pull the stream asked for (a reset, a new epoch, a gap, a
 * malformed entry, a mismatch; bfctl_redis_follow_recv() said 1): when
 * it may run, from now on.  The first at once, the next ones spaced by
 * a wait that doubles from f->sp_min (--resync-backoff, default
 * BFCTL_REDIS_SP_MIN) to BFCTL_REDIS_SP_MAX, back to none after
 * BFCTL_REDIS_SP_QUIET without one.  One due and not run
 * yet (f->sp_pending, cleared by the pull) keeps its time.
 */
#define BFCTL_REDIS_SP_MIN	2.0
#define BFCTL_REDIS_SP_MAX	600.0
#define BFCTL_REDIS_SP_QUIET	600.0
double bfctl_redis_follow_pull_at(struct bfctl_redis_follow *f, double now);

#endif /* _BFCTL_REDIS_DELTA_H */
