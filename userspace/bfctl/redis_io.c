// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis: the replies, read by bfctl rather than by hiredis' blocking
 * loop, because that loop trusts the server.  hiredis 0.14 buffers a
 * whole bulk reply before handing it over, however long the length a
 * server declares, and retries a read cut by a signal: a hostile or broken
 * server could make bfctl buffer 256 MiB for a GETRANGE of one chunk, or
 * hold a pull forever by dripping a byte a second.  So the socket is
 * non-blocking and this file waits for it (ppoll), feeds hiredis' reader
 * and, while a reply is incomplete, looks at what the reader has parsed
 * of it:
 *
 *   - a bulk string's or array's declared length over what was asked is
 *     refused as soon as its header is in (before its body is read);
 *   - the bytes of one reply are bounded likewise (deep or long arrays of
 *     small items, a status line without an end);
 *   - a reply where a bulk string was asked (GETRANGE) must be one.
 *
 * A pull has a deadline (--timeout from its start), each reply also waits
 * at most --timeout for a byte, and SIGTERM/SIGINT (blocked except while
 * waiting here or in watch's loop) end the wait at once.  Every refusal
 * leaves the connection unusable (io_err): the caller drops it, and the
 * kernel filter serves on as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <hiredis/sds.h>
#include "redis.h"

/* what a reply's bytes may exceed what was asked by: its headers */
#define REPLY_SLACK	64
/* elements of an array reply (the longest bfctl reads is EXEC's) */
#define REPLY_ELEMS	16

volatile sig_atomic_t bfctl_redis_stop;
static sigset_t run_mask;
static bool have_mask;
static double deadline;	/* of the current pull, 0: none */

static void on_signal(int sig)
{
	(void)sig;
	bfctl_redis_stop = 1;
}

const sigset_t *bfctl_redis_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	if (have_mask)
		return &run_mask;
	/*
	 * Blocked, and let through only inside ppoll(): a signal can never
	 * fall between the check of the flag and the wait.  No SA_RESTART:
	 * it is ppoll that it interrupts.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &run_mask);
	sigdelset(&run_mask, SIGTERM);
	sigdelset(&run_mask, SIGINT);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	have_mask = true;
	return &run_mask;
}

double bfctl_redis_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double bfctl_redis_retry_at(double *backoff)
{
	double jitter = 0.5 + (double)(random() % 1000) / 1000;
	double at = bfctl_redis_now() + *backoff * jitter;

	*backoff = *backoff * 2 > BFCTL_REDIS_BACKOFF_MAX ?
		   BFCTL_REDIS_BACKOFF_MAX : *backoff * 2;
	return at;
}

void bfctl_redis_debounce(double *due, double *first, double d)
{
	double t = bfctl_redis_now();

	if (*first < 0)
		*first = t;
	*due = t + d;
	if (*due > *first + BFCTL_REDIS_DEBOUNCE_X * d)
		*due = *first + BFCTL_REDIS_DEBOUNCE_X * d;
}

struct timespec *bfctl_redis_timeout(double until, struct timespec *ts)
{
	double d = until - bfctl_redis_now();

	if (d < 0)
		d = 0;
	ts->tv_sec = (time_t)d;
	ts->tv_nsec = (long)((d - (double)ts->tv_sec) * 1e9);
	return ts;
}

void bfctl_redis_deadline(const struct bfctl_redis_opts *o)
{
	deadline = o ? bfctl_redis_now() + o->timeout_ms / 1000.0 : 0;
}

/* this file's many failures, by a short name */
#define io_fail bfctl_redis_io_fail

int bfctl_redis_io_fail(struct bfctl_redis *r, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->io_err = true;
	snprintf(r->err, sizeof(r->err), "%s: %s", r->o->url, msg);
	return -1;
}

int bfctl_redis_wait(struct bfctl_redis *r, short ev, double idle_from,
		     short *rev)
{
	struct pollfd p = { .fd = r->c->fd, .events = ev };
	double idle = r->o->timeout_ms / 1000.0, t, until;
	struct timespec ts;
	int n;

	for (;;) {
		if (bfctl_redis_stop)
			return io_fail(r, "interrupted by a signal");
		t = bfctl_redis_now();
		until = idle_from + idle;
		if (deadline && deadline < until)
			until = deadline;
		if (t >= until)
			return io_fail(r, deadline && until == deadline ?
				       "timed out: --timeout %g s bounds the whole pull" :
				       "timed out: no answer for --timeout %g s",
				       idle);
		ts.tv_sec = (time_t)(until - t);
		ts.tv_nsec = (long)((until - t - (double)ts.tv_sec) * 1e9);
		p.revents = 0;
		n = ppoll(&p, 1, &ts, have_mask ? &run_mask : NULL);
		if (n < 0 && errno != EINTR)
			return io_fail(r, "poll: %s", strerror(errno));
		if (n > 0) {
			*rev = p.revents;
			return 0;
		}
	}
}

int bfctl_redis_wait_connected(struct bfctl_redis *r)
{
	int err = 0;
	socklen_t l = sizeof(err);
	short rev;

	if (bfctl_redis_wait(r, POLLOUT, bfctl_redis_now(), &rev))
		return -1;
	if (getsockopt(r->c->fd, SOL_SOCKET, SO_ERROR, &err, &l) || err)
		return io_fail(r, "connect: %s", strerror(err ? err : errno));
	return 0;
}

/* the decimal number at p (n bytes), up to its CR; -1 while incomplete */
static long long header_num(const char *p, size_t n)
{
	long long v = 0;
	size_t i = 0;

	if (n && p[0] == '-')	/* a nil: $-1, *-1 */
		return 0;
	for (; i < n && i < 20 && p[i] >= '0' && p[i] <= '9'; i++)
		v = v * 10 + (p[i] - '0');
	return i < n && i ? v : -1;
}

/*
 * The reply in the reader is incomplete: is it still within bounds?
 * got: its bytes so far; max: the longest bulk string asked; bulk: a bulk
 * string (or an error) is the only answer expected.
 */
static int check_bounds(struct bfctl_redis *r, u64 got, u64 max, bool bulk)
{
	redisReader *rd = r->c->reader;
	const char *p = rd->buf + rd->pos;
	size_t n = rd->len - rd->pos;
	const redisReadTask *t;
	long long v;
	int i;

	if (got > max + REPLY_SLACK)
		return r->too_big = true, io_fail(r, "a reply longer than the %llu bytes asked: refused",
			       (unsigned long long)max);
	if (rd->ridx < 0)
		return 0;
	/* arrays hiredis has begun (it allocates their element vectors) */
	for (i = 0; i < rd->ridx; i++)
		if (rd->rstack[i].elements > REPLY_ELEMS)
			return r->too_big = true, io_fail(r, "an array reply of %d elements: refused",
				       rd->rstack[i].elements);
	t = &rd->rstack[rd->ridx];
	/* hiredis has read the type byte; the length follows at pos */
	if (bulk && (rd->ridx > 0 || (t->type >= 0 &&
				      t->type != REDIS_REPLY_STRING &&
				      t->type != REDIS_REPLY_ERROR)))
		return r->too_big = true, io_fail(r, "an unexpected reply type where a string was asked: refused");
	if (t->type != REDIS_REPLY_STRING && t->type != REDIS_REPLY_ARRAY)
		return 0;
	v = header_num(p, n);
	if (t->type == REDIS_REPLY_STRING && (u64)v > max && v >= 0)
		return r->too_big = true, io_fail(r, "a reply of %lld bytes declared where at most %llu were asked: refused",
			       v, (unsigned long long)max);
	if (t->type == REDIS_REPLY_ARRAY && v > REPLY_ELEMS)
		return r->too_big = true, io_fail(r, "an array reply of %lld elements: refused",
			       v);
	return 0;
}

/*
 * The transport: hiredis' own read and write on a plain socket, or
 * SSL_read and SSL_write on the same socket (redis_tls.c).  Both move
 * bytes between the socket and hiredis' buffers (c->obuf, c->reader),
 * and everything above (bounds, deadlines, signals) looks only at
 * those, so a plain connection and a TLS one differ only here.
 */
static int xport_read(struct bfctl_redis *r)
{
	if (r->tls)
		return bfctl_redis_tls_read(r);
	if (redisBufferRead(r->c) != REDIS_OK)
		return io_fail(r, "%s", r->c->errstr[0] ? r->c->errstr :
			       "connection lost");
	return 0;
}

static int xport_write(struct bfctl_redis *r, int *done)
{
	if (r->tls)
		return bfctl_redis_tls_write(r, done);
	if (redisBufferWrite(r->c, done) != REDIS_OK)
		return io_fail(r, "%s", r->c->errstr[0] ? r->c->errstr :
			       "write failed");
	return 0;
}

/*
 * TLS bytes decrypted but not read (at most a record, 16 KiB) into the
 * reader, where the callers look: the watcher polls the socket, which
 * does not show them
 */
static int drain_pending(struct bfctl_redis *r)
{
	while (bfctl_redis_tls_pending(r))
		if (xport_read(r))
			return -1;
	return 0;
}

bool bfctl_redis_buffered(const struct bfctl_redis *r)
{
	return bfctl_redis_tls_pending(r);
}

bool bfctl_redis_unread(const struct bfctl_redis *r)
{
	const redisReader *rd = r->c->reader;

	return bfctl_redis_buffered(r) || rd->len > rd->pos;
}

int bfctl_redis_idle_read(struct bfctl_redis *r)
{
	/* a TLS record with no data in it (a ticket, a KeyUpdate) is none */
	if (!bfctl_redis_read_some(r) && !bfctl_redis_unread(r))
		return 0;
	if (!r->io_err)
		snprintf(r->err, sizeof(r->err), "%s: an unexpected reply on the idle connection",
			 r->o->url);
	return -1;
}

int bfctl_redis_flush(struct bfctl_redis *r)
{
	double idle_from = bfctl_redis_now();
	int done = !sdslen(r->c->obuf);
	short rev;

	if (r->io_err)
		return -1;
	while (!done) {
		/* POLLOUT, or POLLIN while SSL_write waits for a read */
		if (bfctl_redis_wait(r, bfctl_redis_tls_events(r, POLLOUT),
				     idle_from, &rev))
			return -1;
		if (xport_write(r, &done))
			return -1;
	}
	return 0;
}

static void err_set(struct bfctl_redis *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* r->err, cut at its size (messages naming the server and a key) */
static void err_set(struct bfctl_redis *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
}

/*
 * An ACL refused a command (NOPERM): say which command and which right
 * the user needs, so the admin can grant it.  Redis names the command
 * ('getrange', 'config|get') but not the key or channel it refused;
 * bfctl_redis_cmd() notes them (a pipeline's replies name only what
 * Redis says).
 */
static void noperm(struct bfctl_redis *r, const char *msg)
{
	static const char * const reads[] = { "GET", "STRLEN", "EXISTS",
					      "GETRANGE", "WATCH" };
	const char *user = r->o->user[0] ? r->o->user : "default";
	const char *q = strchr(msg, '\''), *e = q ? strchr(q + 1, '\'') : NULL;
	const char *cmd = r->cmd, *arg = r->cmd_arg, *kp = "~";
	size_t i;

	/* a follower only reads its keys: %R~ (read) suffices */
	for (i = 0; cmd && i < ARRAY_SIZE(reads); i++)
		if (!strcasecmp(cmd, reads[i]))
			kp = "%R~";
	if (e && e - q < 64)
		err_set(r, "%s: NOPERM: ACL user %s may not run %.*s: it needs the right +%.*s (ACL SETUSER %s +%.*s)",
			r->o->url, user, (int)(e - q - 1), q + 1,
			(int)(e - q - 1), q + 1, user, (int)(e - q - 1), q + 1);
	else if (!cmd || !arg)	/* a pipeline's: Redis' words alone */
		err_set(r, "%s: NOPERM: ACL user %s: %.160s", r->o->url, user,
			msg + 6 + (msg[6] == ' '));
	else if (strstr(msg, "channel"))
		err_set(r, "%s: NOPERM: ACL user %s may not %s channel %.80s: it needs the right &%.80s (ACL SETUSER %s '&__keyspace@*')",
			r->o->url, user, cmd, arg, arg, user);
	else if (strstr(msg, "key"))
		err_set(r, "%s: NOPERM: ACL user %s may not %s key %.80s: it needs a key pattern matching it (ACL SETUSER %s '%s%.80s')",
			r->o->url, user, cmd, arg, user, kp, arg);
	else
		err_set(r, "%s: NOPERM: ACL user %s: %.160s (%s)", r->o->url,
			user, msg + 6 + (msg[6] == ' '), cmd);
}

redisReply *bfctl_redis_reply_max(struct bfctl_redis *r, u64 max, bool bulk)
{
	redisReader *rd;
	double idle_from = bfctl_redis_now();
	u64 got;
	void *v = NULL;
	short rev;
	int done;
	bool rd_out;
	redisReply *rep;

	if (r->io_err)
		return NULL;
	/*
	 * The +OK of the ASKING sent before this reply's command
	 * (bfctl_redis_append()): one, not all that are counted, which
	 * belong to the commands pipelined after it
	 */
	if (r->skip > 0) {
		int left = r->skip - 1;

		r->skip = 0;
		rep = bfctl_redis_reply_max(r, 64, false);
		r->skip = left;
		if (!rep)
			return NULL;
		freeReplyObject(rep);
	}
	rd = r->c->reader;
	/* bytes of this reply already buffered (and maybe of later ones) */
	got = rd->len - rd->pos;
	for (;;) {
		if (redisGetReplyFromReader(r->c, &v) != REDIS_OK) {
			io_fail(r, "%s", r->c->errstr[0] ? r->c->errstr :
				"protocol error");
			return NULL;
		}
		if (v)
			break;
		if (check_bounds(r, got, max, bulk))
			return NULL;
		done = !sdslen(r->c->obuf);
		/* TLS bytes already decrypted: no wait for the socket */
		if (bfctl_redis_tls_pending(r))
			rev = POLLIN;
		else if (bfctl_redis_wait(r, bfctl_redis_tls_events(r,
					  done ? POLLIN : POLLIN | POLLOUT),
					  idle_from, &rev))
			return NULL;
		/* (POLLOUT with nothing to send: a TLS read that wanted to write) */
		rd_out = (rev & POLLOUT) &&
			 (bfctl_redis_tls_events(r, POLLIN) & POLLOUT);
		if ((rev & POLLOUT) && !done && xport_write(r, &done))
			return NULL;
		if ((rev & (POLLIN | POLLHUP | POLLERR)) || rd_out) {
			size_t before = rd->len - rd->pos;

			if (xport_read(r))
				return NULL;
			if (rd->len - rd->pos > before) {
				got += rd->len - rd->pos - before;
				idle_from = bfctl_redis_now();
			}
		}
	}
	/* nothing left where the watcher's poll() cannot see it */
	if (drain_pending(r)) {
		freeReplyObject(v);
		return NULL;
	}
	rep = v;
	if (rep->type == REDIS_REPLY_ERROR) {
		const char *sp;

		/* a cluster node's redirection: redis_topo.c follows it */
		r->redir[0] = 0;
		r->tryagain = !strncmp(rep->str, "TRYAGAIN", 8);
		if ((!strncmp(rep->str, "MOVED ", 6) || !strncmp(rep->str, "ASK ", 4)) &&
		    (sp = strchr(rep->str + (rep->str[0] == 'M' ? 6 : 4), ' ')) &&
		    sp[1]) {
			snprintf(r->redir, sizeof(r->redir), "%.*s",
				 (int)strcspn(sp + 1, " \r\n"), sp + 1);
			r->redir_ask = rep->str[0] == 'A';
		}
		if (!strncmp(rep->str, "NOPERM", 6))
			noperm(r, rep->str);
		else
			snprintf(r->err, sizeof(r->err), "%s: %.*s", r->o->url,
				 (int)(rep->len > 200 ? 200 : rep->len),
				 rep->str);
		freeReplyObject(rep);
		return NULL;
	}
	return rep;
}

redisReply *bfctl_redis_reply(struct bfctl_redis *r)
{
	return bfctl_redis_reply_max(r, BFCTL_REDIS_REPLY_MAX, false);
}

int bfctl_redis_read_some(struct bfctl_redis *r)
{
	redisReader *rd = r->c->reader;

	do {
		if (xport_read(r))
			return -1;
		/* the subscription's messages are small: a flood is refused */
		if (rd->len - rd->pos > BFCTL_REDIS_REPLY_MAX + REPLY_SLACK)
			return io_fail(r, "%zu bytes of unread messages on the subscription: refused",
				       rd->len - rd->pos);
	} while (bfctl_redis_tls_pending(r));
	return 0;
}

int bfctl_redis_nonblock(struct bfctl_redis *r)
{
	int fl = fcntl(r->c->fd, F_GETFL);

	if (fl < 0 || fcntl(r->c->fd, F_SETFL, fl | O_NONBLOCK))
		return io_fail(r, "fcntl: %s", strerror(errno));
	/* hiredis then never loops on the socket itself */
	r->c->flags &= ~REDIS_BLOCK;
	return 0;
}
