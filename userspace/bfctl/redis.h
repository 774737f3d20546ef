/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl redis: what the Redis verbs' files share.  redis_conn.c talks to
 * the server (URL, password, timeouts, replies, the keyspace subscription
 * that fences a chunked read), redis_read.c reads a value (redis_read.h),
 * redis_pull.c fences the reads, checks the value and loads it, redis.c
 * parses the options and pushes, redis_watch.c follows a key,
 * redis_relay.c writes its stream of deltas and redis_follow.c merges
 * them (redis_delta.h; redis_sync.c checks the relay's syncs), redis_topo.c finds where to connect (Sentinel,
 * replicas, Cluster), redis_io.c reads replies within bounds and
 * deadlines, redis_tls.c carries them over TLS (rediss://).
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

/* the sentinels a redis-sentinel:// URL may list */
#define BFCTL_REDIS_SENTINELS	8
/* MOVED/ASK followed for one key before a server is taken for hostile */
#define BFCTL_REDIS_REDIRECTS	5
/* --read-from */
enum { BFCTL_REDIS_READ_PRIMARY, BFCTL_REDIS_READ_REPLICA };

struct bfctl_redis_node {
	char host[256];
	int port;
};

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
	int read_from;			/* --read-from: BFCTL_REDIS_READ_* */
	/* redis-sentinel://[user@]h1[:p],h2[:p]/MASTER[?db=N] (redis_topo.c) */
	bool sentinel;
	int nsent;
	struct bfctl_redis_node sent[BFCTL_REDIS_SENTINELS];
	char master[128];
	/* rediss:// (redis_tls.c); the files and name of the --tls-* options */
	bool tls;
	const char *tls_ca, *tls_cert, *tls_key, *tls_server_name;
};

/* a connection and what went wrong last on it */
struct bfctl_redis {
	redisContext *c;
	const struct bfctl_redis_opts *o;
	char err[256];
	bool io_err;		/* the connection is unusable */
	bool too_big;		/* ... because a reply broke its bounds */
	/* the last MOVED/ASK reply's node (host:port), "" if none */
	char redir[300];
	bool redir_ask;
	bool tryagain;		/* the last error was TRYAGAIN (a slot migrating) */
	bool asking;		/* ASKING before every command (an ASK target) */
	int skip;		/* ASKING replies to drop before the next one */
	struct bfctl_redis_tls *tls;	/* rediss://: its SSL (NULL: plain) */
	/* the command bfctl_redis_cmd() waits for: a NOPERM names its right */
	const char *cmd, *cmd_arg;
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
/*
 * Append a command to the pipeline (ASKING before it on an ASK target);
 * 0, or -1 with r->io_err set
 */
int bfctl_redis_append(struct bfctl_redis *r, int argc, const char **argv,
		       const size_t *lens);
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
/*
 * The pace of watch's and relay's loops, one for both.  A lost
 * connection is tried again after a backoff from BFCTL_REDIS_BACKOFF_MIN,
 * doubling up to BFCTL_REDIS_BACKOFF_MAX: bfctl_redis_retry_at() says
 * when (jittered, 0.5 to 1.5 times it, so a fleet does not reconnect at
 * once) and doubles *backoff.  An event of a burst makes the work due
 * *due, d after it but at most BFCTL_REDIS_DEBOUNCE_X d after the burst's
 * first event (*first, set when < 0).  bfctl_redis_timeout(): ppoll's
 * timeout until then (0 when past).
 */
#define BFCTL_REDIS_BACKOFF_MIN	0.5
#define BFCTL_REDIS_BACKOFF_MAX	30.0
#define BFCTL_REDIS_DEBOUNCE_X	10
double bfctl_redis_retry_at(double *backoff);
void bfctl_redis_debounce(double *due, double *first, double d);
struct timespec *bfctl_redis_timeout(double until, struct timespec *ts);
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
/*
 * Wait for ev on the socket: 0 (revents in *rev), or -1 (r->err) when
 * the deadline or the idle --timeout since idle_from passed, or a signal
 * came
 */
int bfctl_redis_wait(struct bfctl_redis *r, short ev, double idle_from,
		     short *rev);
/* the socket non-blocking, hiredis' own loops off; 0 or -1 */
int bfctl_redis_nonblock(struct bfctl_redis *r);
/* what the socket holds into the reader (after poll), bounded; 0 or -1 */
int bfctl_redis_read_some(struct bfctl_redis *r);
/* the connection is unusable: "URL: why" in r->err (r->io_err), -1 */
int bfctl_redis_io_fail(struct bfctl_redis *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Has the connection bytes buffered that poll() on its socket cannot see
 * (TLS)?  0 after every read of redis_io.c: they go to hiredis' reader.
 */
bool bfctl_redis_buffered(const struct bfctl_redis *r);
/*
 * Has the connection bytes read but not parsed into a reply?  After a
 * readable socket was read: over TLS a record may carry none (a session
 * ticket, a KeyUpdate), which is no data.
 */
bool bfctl_redis_unread(const struct bfctl_redis *r);
/*
 * A command connection with nothing asked became readable: 0 if what came
 * was no data (a TLS record without any), else -1 with r->err saying why
 * (the server closed it, or sent what nobody asked: drop it)
 */
int bfctl_redis_idle_read(struct bfctl_redis *r);
/*
 * Send what bfctl_redis_append() queued, through the transport (TLS
 * too), without reading a reply: 0 or -1 (r->err, r->io_err)
 */
int bfctl_redis_flush(struct bfctl_redis *r);

/* ---- TLS (redis_tls.c): 0 or -1 with r->err and r->io_err ---- */

/* the handshake on r->c's connected socket, certificate verified */
int bfctl_redis_tls_start(struct bfctl_redis *r);
/* one SSL_read into hiredis' reader (nothing read is no error) */
int bfctl_redis_tls_read(struct bfctl_redis *r);
/* SSL_write what c->obuf holds, as far as it goes; *done: all of it */
int bfctl_redis_tls_write(struct bfctl_redis *r, int *done);
/*
 * What to poll for instead of ev (POLLIN, and POLLOUT while there is
 * something to send): POLLOUT added while a read waits to write, taken
 * away while a write waits for a read.  ev for a plain connection.
 */
short bfctl_redis_tls_events(const struct bfctl_redis *r, short ev);
/* decrypted bytes not read yet (poll does not see them) */
bool bfctl_redis_tls_pending(const struct bfctl_redis *r);
void bfctl_redis_tls_close(struct bfctl_redis *r);

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
	/* bits set in the last image's payload, if counted (-o's merges) */
	u64 last_ones;
	bool have_ones;
	/*
	 * The kernel filter as the last load left it (id, generation, bits
	 * set, count): a filter changed since by someone else (a flush, an
	 * add, an upload) is loaded again even if the value is unchanged.
	 */
	u64 kstate[4];
	bool have_kstate;
	/*
	 * The generation this pull's commit installed (0: none, or a
	 * module that cannot say): the one kstate names, not the one a
	 * KB_CMD_GET after it finds, which may be someone else's rebuild
	 */
	u64 load_gen;
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

/* ---- where to connect: Sentinel, replicas, Cluster (redis_topo.c) ---- */

struct bfctl_redis_topo {
	const struct bfctl_redis_opts *o;	/* what the user gave */
	const char *key;
	bool watch;		/* a replica must publish keyspace events */
	bool enable_events;	/* --enable-events: on a replica too */
	struct bfctl_redis_opts node;	/* where r is connected (r->o) */
	char url[320];		/* node's url: what messages name it by */
	char primary[300];	/* host:port of the primary last found */
	char replid[48];	/* its master_replid, when replicas are read */
	char last[300];		/* a cluster node that answered last */
	bool cluster;		/* a Redis Cluster: the key's node */
	bool on_replica;	/* r reads from a replica */
	bool moved;		/* the last pull was redirected: resubscribe */
	bool failover;		/* the primary changed at the last connect */
	u32 failovers;
	char note[400];		/* what the last connect chose, and why */
	struct bfctl_redis_opts sopts;	/* the sentinel subscribed to */
	char surl[300];
};

/* redis-sentinel://... into o (bfctl_redis_parse_url); 0 or -EINVAL */
int bfctl_redis_topo_parse(struct bfctl_redis_opts *o, const char *url,
			   char *err, size_t len);
void bfctl_redis_topo_init(struct bfctl_redis_topo *t,
			   const struct bfctl_redis_opts *o, const char *key);
/*
 * Connect r where the key is read (or written, for push): the primary
 * (from Sentinel, after a failover the new one), a healthy replica with
 * --read-from replica (else the primary, t->note says why), or the
 * Cluster node that owns the key's slot.  0 or -1 (r->err).
 */
int bfctl_redis_topo_connect(struct bfctl_redis_topo *t, struct bfctl_redis *r);
/* bfctl_redis_single()'s check where it applies; 0 or -1 (r->err) */
int bfctl_redis_topo_single(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			    bool notify);
/*
 * bfctl_redis_pull_once() following MOVED and ASK (at most
 * BFCTL_REDIS_REDIRECTS), and refusing a replica whose link is down
 * (r->io_err: reconnect).  t->moved: r is now on another node, whose
 * subscription sub is not (the caller subscribes again).
 */
int bfctl_redis_topo_pull(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			  struct bfctl_redis *sub, struct kbconn *kc,
			  struct bfctl_redis_pull *pl);
/*
 * The redirect r->redir (MOVED or ASK) followed: r reconnected to that
 * node (ASKING before every command after an ASK), as the redirect
 * number n (from 0) of one operation; 0, or -1 (r->err: not a Cluster,
 * a redirect loop past BFCTL_REDIS_REDIRECTS, a bad address)
 */
int bfctl_redis_topo_follow(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			    int n);

/*
 * push (redis_push.c): data written over key through r, connected by
 * bfctl_redis_topo_connect(t), following MOVED and ASK and waiting out
 * TRYAGAIN while the slot migrates; meta: the metadata key's value, or
 * NULL to drop it.  BFCTL_OK, or BFCTL_ERR said (nothing replaced).
 */
int bfctl_redis_push(struct bfctl_redis_topo *t, struct bfctl_redis *r,
		     const char *key, const u8 *data, u64 len, const char *meta);

/*
 * A watcher's ear on Sentinel: ss subscribed to +switch-master on the
 * first sentinel that answers; 0, or -1 (none: the loss of the
 * connection to the old primary is what tells of a failover)
 */
int bfctl_redis_topo_sentinel_sub(struct bfctl_redis_topo *t,
				  struct bfctl_redis *ss);
/* after ss was readable: 1 if our primary was switched, 0 not, -1 broken
 * (ss is closed then: the data connection's loss still tells) */
int bfctl_redis_topo_sentinel_poll(struct bfctl_redis_topo *t,
				   struct bfctl_redis *ss);

/* ---- the verbs ---- */
int bfctl_redis_main(int argc, char **argv);
struct bfctl_redis_watch_opts {
	double poll_s, debounce_s;
	double poll_off_s;	/* the poll while events are off */
	double recheck_s;	/* --events-check: are they on yet? */
	bool empty_on_delete;
	bool enable_events;	/* --enable-events */
	bool no_relay;		/* --no-relay: full pulls only */
	double resync_s;	/* --resync-backoff: whole pulls the stream asks for */
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
