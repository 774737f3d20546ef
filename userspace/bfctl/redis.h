/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl redis: what the Redis verbs' files share.  redis_conn.c talks to
 * the server (URL, password, timeouts, replies, the keyspace subscription
 * that fences a chunked read), redis_read.c reads a value (redis_read.h),
 * redis_pull.c fences the reads, checks the value and loads it, redis.c
 * parses the options and pushes, redis_watch.c follows a key,
 * redis_relay.c writes its stream of deltas and redis_follow.c merges
 * them (redis_delta.h), redis_io.c reads replies within bounds and
 * deadlines.
 */
#ifndef _BFCTL_REDIS_H
#define _BFCTL_REDIS_H

#include <signal.h>
#include <hiredis/hiredis.h>
#include "bfctl.h"

/* values up to this are read with one GET, longer ones in GETRANGE chunks */
#define BFCTL_REDIS_CHUNK	(1u << 20)
/* GETRANGE/APPEND commands in flight at once */
#define BFCTL_REDIS_WINDOW	8
/* reads restarted because the value changed, before giving up */
#define BFCTL_REDIS_TRIES	16
/* the longest KEY (the channel and sibling key buffers hold it whole) */
#define BFCTL_REDIS_KEY_MAX	1024
/* the longest reply but a GETRANGE's (INFO, CONFIG GET, events) */
#define BFCTL_REDIS_REPLY_MAX	(256u << 10)
/* the metadata key's value starts with this */
#define BFCTL_REDIS_META	"kbloom-meta 1"
/* go-zero's probe scheme as the metadata names it */
#define BFCTL_REDIS_SCHEME	"murmur3-x64-128-h1-k14"

struct bfctl_redis_opts {
	const char *url;		/* --server */
	const char *password_file;	/* --password-file */
	char host[256], path[108], user[128];
	int port, db;
	bool is_unix;
	char password[512];
	bool have_password;
	int timeout_ms;			/* --timeout: a whole pull, each reply */
	u64 chunk;			/* --chunk-size */
};

/* a connection and what went wrong last on it */
struct bfctl_redis {
	redisContext *c;
	const struct bfctl_redis_opts *o;
	char err[256];
	bool io_err;		/* the connection is unusable */
};

/* --server URL into o; 0 or -EINVAL with a message in err */
int bfctl_redis_parse_url(struct bfctl_redis_opts *o, const char *url,
			  char *err, size_t len);
/*
 * The password: --password-file, else $BFCTL_REDIS_PASSWORD, else
 * $REDISCLI_AUTH (as redis-cli), else none.  0 or -errno (err says why).
 */
int bfctl_redis_load_password(struct bfctl_redis_opts *o, char *err,
			      size_t len);
/* connect, AUTH, SELECT; 0 or -1 (r->err) */
int bfctl_redis_connect(struct bfctl_redis *r, const struct bfctl_redis_opts *o);
void bfctl_redis_close(struct bfctl_redis *r);
/*
 * One command (argv with lengths; lens NULL: C strings); the reply, or
 * NULL with r->err set (an error reply included: r->io_err false)
 */
redisReply *bfctl_redis_cmd(struct bfctl_redis *r, int argc,
			    const char **argv, const size_t *lens);
/* the next reply of a pipeline, as bfctl_redis_cmd() */
redisReply *bfctl_redis_reply(struct bfctl_redis *r);

/* ---- bounded, interruptible replies (redis_io.c) ---- */

/* set by SIGTERM/SIGINT once bfctl_redis_signals() installed the handler */
extern volatile sig_atomic_t bfctl_redis_stop;
/*
 * Block SIGTERM and SIGINT, which set bfctl_redis_stop, and return the
 * mask that lets them through (ppoll's): they end any wait for Redis.
 */
const sigset_t *bfctl_redis_signals(void);
double bfctl_redis_now(void);
/* a pull's deadline: --timeout from now (o NULL: none) */
void bfctl_redis_deadline(const struct bfctl_redis_opts *o);
/*
 * The next reply, refused (NULL, r->io_err) if a bulk string of it is
 * declared longer than max, it holds more than max bytes and its
 * headers, or (bulk) it is anything but a bulk string or an error
 */
redisReply *bfctl_redis_reply_max(struct bfctl_redis *r, u64 max, bool bulk);
/* a non-blocking connect's end; 0 or -1 */
int bfctl_redis_wait_connected(struct bfctl_redis *r);
/* the socket non-blocking, hiredis' own loops off; 0 or -1 */
int bfctl_redis_nonblock(struct bfctl_redis *r);
/* what the socket holds into the reader (after poll), bounded; 0 or -1 */
int bfctl_redis_read_some(struct bfctl_redis *r);
/*
 * A key in the cluster hash slot of key (its {tag}, or {key} as the tag)
 * with a suffix: the temporary and metadata keys.  0 or -ENAMETOOLONG.
 */
int bfctl_redis_sibling(char *out, size_t len, const char *key,
			const char *suffix);

/* ---- the keyspace subscription (redis_conn.c) ---- */

/* what the events of a key said since the last look */
enum {
	RSUB_SETBIT	= 1 << 0,	/* setbit (SETBIT, BITFIELD: set or cleared) */
	RSUB_OTHER	= 1 << 1,	/* anything else: the value was replaced */
	RSUB_GONE	= 1 << 2,	/* del, expired, evicted, rename_from */
};

/*
 * The flags of notify-keyspace-events a watcher and a fence need: keyspace
 * events (K) of generic (g) and string ($) commands, expiry (x) and
 * eviction (e); 'A' stands for g$xe and more.
 */
#define BFCTL_REDIS_EV_FLAGS	"Kg$xe"
enum {
	BFCTL_REDIS_EV_IO = -2,		/* the connection broke (r->err) */
	BFCTL_REDIS_EV_UNKNOWN = -1,	/* CONFIG GET refused (r->err) */
	BFCTL_REDIS_EV_OFF = 0,
	BFCTL_REDIS_EV_ON = 1,
};
/* Does the server publish them?  CONFIG GET notify-keyspace-events */
int bfctl_redis_events(struct bfctl_redis *r);
/* 1 if bfctl_redis_events() says on, else 0 (off, or not allowed to ask) */
int bfctl_redis_notify_on(struct bfctl_redis *r);
/*
 * Add the flags missing from notify-keyspace-events (CONFIG SET, keeping
 * those set); 0, or -1 with r->err (CONFIG renamed, an ACL's NOPERM)
 */
int bfctl_redis_events_enable(struct bfctl_redis *r);
/*
 * Is the server the single Redis bfctl follows?  A Redis Cluster node
 * (cluster_enabled:1) is refused, and so is a replica that publishes no
 * keyspace events (notify: what bfctl_redis_notify_on() said): its
 * followers would only poll a copy that may lag.  0, or -1 with r->err
 * naming the problem (r->io_err set: the caller disconnects).
 */
int bfctl_redis_single(struct bfctl_redis *r, bool notify);
/* SUBSCRIBE __keyspace@DB__:key on r; 0 or -1 */
int bfctl_redis_subscribe(struct bfctl_redis *r, const char *key);
/*
 * Read the events that are waiting (no blocking) into *ev; 0 or -1 (the
 * connection broke)
 */
int bfctl_redis_sub_poll(struct bfctl_redis *r, int *ev);
/*
 * The fence: PING on the subscription; its answer comes after every
 * event the server published before it, which are added to *ev.  0 or -1.
 */
int bfctl_redis_sub_barrier(struct bfctl_redis *r, int *ev);

/* ---- pull (redis_pull.c) ---- */

struct bfctl_redis_pull {
	const char *name;	/* the kernel filter, NULL with -o */
	const char *key;
	const char *out;	/* -o IMG: write the image there */
	bool create;		/* --create */
	bool force;		/* --force: past the saturation guard */
	u32 max_fpr_ppb;	/* --max-fpr, 0: the default */
	u32 cfg_fpr_ppb;	/* the kernel filter's configured FPR, or 0 */
	bool refused;		/* the last pull was refused as saturated */
	u64 bits;		/* --bits, 0: not given */
	int key_type;		/* --key-type, -1: not given */
	/* results */
	u64 value_len;		/* bytes read from Redis */
	u32 retries;		/* reads restarted for a change */
	int fence_ev;		/* RSUB_* the last read's fence saw */
	bool missing;		/* the key does not exist */
	bool unchanged;		/* the image equals the last one loaded */
	u32 last_crc;		/* of the last image loaded (watch) */
	u64 last_bits;		/* of the last pull, if a gozero value */
	u64 last_len;
	/*
	 * The kernel filter as the last load left it (id, generation, bits
	 * set, count): a filter changed since by someone else (a flush, an
	 * add, an upload) is loaded again even if the value is unchanged.
	 */
	u64 kstate[4];
	bool have_kstate;
	bool diverged;		/* this pull found it changed */
	struct kb_params p;	/* of the image loaded */
	char why[320];		/* what failed */
	/* the last delta merged (watch following a relay) */
	u64 delta_bytes;
	char delta_id[48];
};

/* redis_fence.c: the fence of a read (0, or BFCTL_ERR with pl->why) */
int bfctl_redis_fence_begin(struct bfctl_redis *r, struct bfctl_redis *sub,
			    struct bfctl_redis_pull *pl);
/* after the read: 0 unchanged, 1 changed (read again), -1 error */
int bfctl_redis_fence_end(struct bfctl_redis *r, struct bfctl_redis *sub,
			  struct bfctl_redis_pull *pl);
int bfctl_redis_unwatch(struct bfctl_redis *r);

/*
 * Read key (fenced by sub, if not NULL, else WATCH/EXEC), check it, and
 * load it whole into the kernel filter (or -o): BFCTL_OK, BFCTL_ABSENT
 * (no such key: nothing changed), BFCTL_ERR (pl->why; r->io_err for a
 * broken connection).  Nothing is loaded unless the whole value read is
 * one the server held.
 */
int bfctl_redis_pull_once(struct bfctl_redis *r, struct bfctl_redis *sub,
			  struct kbconn *kc, struct bfctl_redis_pull *pl);
/* load an empty filter with the parameters of the last pull (watch) */
int bfctl_redis_pull_empty(struct kbconn *kc, struct bfctl_redis_pull *pl);
/* the saturation guard's limit for a value of params p */
u32 bfctl_redis_guard_limit(const struct bfctl_redis_pull *pl,
			    const struct kb_params *p);
/* note the kernel filter's state after a load or a merge (pl->kstate) */
void bfctl_redis_pull_note(struct kbconn *kc, struct bfctl_redis_pull *pl);
/* watch's status line (-j: JSON) */
void bfctl_redis_watch_status(const struct bfctl_redis_pull *pl,
			      const char *st, const char *detail);

/* ---- the verbs ---- */
int bfctl_redis_main(int argc, char **argv);
struct bfctl_redis_watch_opts {
	double poll_s, debounce_s;
	double poll_off_s;	/* the poll while events are off */
	double recheck_s;	/* --events-check: are they on yet? */
	bool empty_on_delete;
	bool enable_events;	/* --enable-events */
	bool no_relay;		/* --no-relay: full pulls only */
	/* relay */
	u64 maxlen;		/* --maxlen: the stream's MAXLEN ~ */
	u32 lease_ms;		/* --lease-ms */
	double sync_s;		/* --sync: a sync entry every S seconds */
};
int bfctl_redis_relay(const struct bfctl_redis_opts *o,
		      struct bfctl_redis_pull *pl,
		      const struct bfctl_redis_watch_opts *w);
int bfctl_redis_watch(const struct bfctl_redis_opts *o,
		      struct bfctl_redis_pull *pl,
		      const struct bfctl_redis_watch_opts *w);

#endif /* _BFCTL_REDIS_H */
