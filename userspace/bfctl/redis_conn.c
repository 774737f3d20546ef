// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis: the connection to the server (hiredis).  The server is
 * redis://[user@]host[:port][/db] or unix:///path[?db=N]; the password
 * never comes from the command line (other users read argv in /proc)
 * but from --password-file or the environment.  Replies are read within
 * bounds and deadlines by redis_io.c.  The keyspace subscription is the fence of a chunked read:
 * PING on a subscribed connection is answered after every event
 * published before it, so after the read a PING tells what happened to
 * the key meanwhile.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "redis.h"

/*
 * url as it may be shown: what may be a password never is.  User info
 * holding a ':' or '/' (up to the last '@') becomes "***", and so do the
 * values of a query but db's (redis-cli and others take ?password=).
 */
static void url_shown(char *out, size_t len, const char *url)
{
	const char *s = strstr(url, "://"), *at, *q, *p;
	size_t n, k;

	s = s ? s + 3 : url;
	at = strrchr(s, '@');
	q = strchr(at ? at : s, '?');
	if (at && strpbrk(s, ":/") && strpbrk(s, ":/") < at)
		n = (size_t)snprintf(out, len, "%.*s***%.*s", (int)(s - url),
				     url, (int)(q ? q - at : (long)strlen(at)), at);
	else
		n = (size_t)snprintf(out, len, "%.*s",
				     (int)(q ? q - url : (long)strlen(url)), url);
	if (!q || n >= len)
		return;
	/* keys kept, values hidden (a number for db shown) */
	for (p = q; *p && n + 5 < len; ) {
		bool db = !strncmp(p + 1, "db=", 3);

		out[n++] = *p++;	/* '?' or '&' */
		k = strcspn(p, "=&");
		if (k > len - n - 5)
			k = len - n - 5;
		memcpy(out + n, p, k);
		n += k;
		p += k;
		if (*p != '=')
			continue;
		k = strcspn(p, "&");
		if (db && k > 1 && strspn(p + 1, "0123456789") == k - 1 &&
		    n + k + 1 < len) {
			memcpy(out + n, p, k);
			n += k;
		} else {
			memcpy(out + n, "=***", 4);
			n += 4;
		}
		p += k;
	}
	out[n] = 0;
}

static int url_err(char *err, size_t len, const char *url, const char *why)
{
	char shown[512];

	url_shown(shown, sizeof(shown), url);
	snprintf(err, len, "bad --server '%s': %s (redis://[user@]host[:port][/db], rediss://... (TLS), unix:///path[?db=N] or redis[s]-sentinel://[user@]host[:port],.../MASTER[?db=N])",
		 shown, why);
	return -EINVAL;
}

static int parse_db(const char *s, int *db)
{
	u64 v;

	if (bfctl_parse_u64(s, &v) || v > 1000000)
		return -EINVAL;
	*db = (int)v;
	return 0;
}

int bfctl_redis_parse_url(struct bfctl_redis_opts *o, const char *url,
			  char *err, size_t len)
{
	const char *s, *at, *slash, *colon, *end;
	size_t n;
	u64 port;

	o->url = url;
	o->port = 6379;
	o->db = 0;
	o->host[0] = o->path[0] = o->user[0] = 0;
	o->sentinel = false;
	o->tls = false;
	if (!strncmp(url, "redis-sentinel://", 17) ||
	    !strncmp(url, "rediss-sentinel://", 18))
		return bfctl_redis_topo_parse(o, url, err, len);
	if (!strncmp(url, "unix://", 7)) {
		const char *q;

		s = url + 7;
		if (*s != '/')
			return url_err(err, len, url, "the socket path must be absolute");
		q = strchr(s, '?');
		n = q ? (size_t)(q - s) : strlen(s);
		if (n >= sizeof(o->path))
			return url_err(err, len, url, "socket path too long");
		memcpy(o->path, s, n);
		o->path[n] = 0;
		if (q && (strncmp(q, "?db=", 4) || parse_db(q + 4, &o->db)))
			return url_err(err, len, url, "only ?db=N may follow the path");
		o->is_unix = true;
		return 0;
	}
	/* rediss://: the same, over TLS (redis_tls.c) */
	if (!strncmp(url, "rediss://", 9))
		o->tls = true;
	else if (strncmp(url, "redis://", 8))
		return url_err(err, len, url, "unknown scheme");
	s = url + 8 + o->tls;
	/* the last '@': a password may hold a '/' or an '@' */
	at = strrchr(s, '@');
	slash = strchr(at ? at : s, '/');
	end = slash ? slash : s + strlen(s);
	if (at) {
		if (memchr(s, ':', (size_t)(at - s)) ||
		    memchr(s, '/', (size_t)(at - s)))
			/* (the URL is not repeated: it holds a password) */
			return url_err(err, len, "redis://USER:PASSWORD@...",
				       "no password in the URL: use --password-file or $BFCTL_REDIS_PASSWORD");
		n = (size_t)(at - s);
		if (!n || n >= sizeof(o->user))
			return url_err(err, len, url, "bad user");
		memcpy(o->user, s, n);
		o->user[n] = 0;
		s = at + 1;
	}
	if (*s == '[') {	/* [IPv6]:port */
		const char *rb = memchr(s, ']', (size_t)(end - s));

		if (!rb)
			return url_err(err, len, url, "unclosed [");
		n = (size_t)(rb - s - 1);
		if (n >= sizeof(o->host))
			return url_err(err, len, url, "host too long");
		memcpy(o->host, s + 1, n);
		o->host[n] = 0;
		colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
		if (rb + 1 < end && !colon)
			return url_err(err, len, url, "junk after ]");
	} else {
		colon = memchr(s, ':', (size_t)(end - s));
		n = (size_t)((colon ? colon : end) - s);
		if (n >= sizeof(o->host))
			return url_err(err, len, url, "host too long");
		memcpy(o->host, s, n);
		o->host[n] = 0;
	}
	if (!o->host[0])
		return url_err(err, len, url, "no host");
	if (colon) {
		char pbuf[8];

		n = (size_t)(end - colon - 1);
		if (!n || n >= sizeof(pbuf))
			return url_err(err, len, url, "bad port");
		memcpy(pbuf, colon + 1, n);
		pbuf[n] = 0;
		if (bfctl_parse_u64(pbuf, &port) || !port || port > 65535)
			return url_err(err, len, url, "bad port");
		o->port = (int)port;
	}
	if (slash && slash[1] && parse_db(slash + 1, &o->db))
		return url_err(err, len, url, "bad database number");
	o->is_unix = false;
	return 0;
}

/*
 * One line of a file, without its newline; a file for root alone.  what
 * names the source in messages; empty_ok: an empty file means no password
 * (a systemd credential must exist even for a server that wants none).
 */
static int password_from_file(struct bfctl_redis_opts *o, const char *f,
			      const char *what, bool empty_ok, char *err,
			      size_t len)
{
	struct stat st;
	size_t n = 0;
	FILE *fp;

	fp = fopen(f, "re");
	if (!fp || fstat(fileno(fp), &st)) {
		int e = errno;

		if (fp)
			fclose(fp);
		snprintf(err, len, "%s %s: %s", what, f, strerror(e));
		return -e;
	}
	/* a careless admin's world-readable password: refused, not used */
	if (st.st_mode & 0077) {
		fclose(fp);
		snprintf(err, len, "%s %s: readable by others (mode %03o): chmod 600 it",
			 what, f, (unsigned int)(st.st_mode & 0777));
		return -EPERM;
	}
	if (fgets(o->password, sizeof(o->password), fp))
		n = strcspn(o->password, "\r\n");
	fclose(fp);
	o->password[n] = 0;
	if (!n && empty_ok)
		return 0;
	if (!n) {
		snprintf(err, len, "%s %s: empty", what, f);
		return -EINVAL;
	}
	o->have_password = true;
	return 0;
}

int bfctl_redis_load_password(struct bfctl_redis_opts *o, char *err,
			      size_t len)
{
	const char *env = getenv("BFCTL_REDIS_PASSWORD");
	const char *cred = getenv("CREDENTIALS_DIRECTORY");
	char path[4096];

	if (o->password_file)
		return password_from_file(o, o->password_file, "--password-file",
					  false, err, len);
	/* systemd's LoadCredential=redis-password:FILE (the watch unit) */
	if (cred && *cred &&
	    (size_t)snprintf(path, sizeof(path), "%s/redis-password", cred) <
	    sizeof(path) && !access(path, F_OK))
		return password_from_file(o, path, "credential", true, err,
					  len);
	if (!env || !*env)
		env = getenv("REDISCLI_AUTH");
	if (!env || !*env) {
		if (o->user[0]) {
			snprintf(err, len, "user %s: no password (--password-file or $BFCTL_REDIS_PASSWORD)",
				 o->user);
			return -EINVAL;
		}
		return 0;
	}
	if (strlen(env) >= sizeof(o->password)) {
		snprintf(err, len, "the password in the environment is too long");
		return -EINVAL;
	}
	strcpy(o->password, env);
	o->have_password = true;
	return 0;
}

static void set_io_err(struct bfctl_redis *r)
{
	r->io_err = true;
	snprintf(r->err, sizeof(r->err), "%s: %s", r->o->url,
		 r->c && r->c->errstr[0] ? r->c->errstr : "connection lost");
}

redisReply *bfctl_redis_cmd(struct bfctl_redis *r, int argc,
			    const char **argv, const size_t *lens)
{
	redisReply *rep;
	size_t l[8];
	int i;

	if (!lens && argc <= (int)ARRAY_SIZE(l)) {
		for (i = 0; i < argc; i++)
			l[i] = strlen(argv[i]);
		lens = l;
	}
	if (bfctl_redis_append(r, argc, argv, lens))
		return NULL;
	/* the command its reply answers: a NOPERM names its right */
	r->cmd = argv[0];
	r->cmd_arg = argc > 1 ? argv[1] : NULL;
	rep = bfctl_redis_reply(r);
	r->cmd = r->cmd_arg = NULL;
	return rep;
}

int bfctl_redis_append(struct bfctl_redis *r, int argc, const char **argv,
		       const size_t *lens)
{
	const char *ask[] = { "ASKING" };

	if (r->io_err)
		return -1;
	/* an ASK target serves the slot it imports only after ASKING */
	if (r->asking) {
		if (redisAppendCommandArgv(r->c, 1, ask, NULL) != REDIS_OK) {
			set_io_err(r);
			return -1;
		}
		r->skip++;
	}
	if (redisAppendCommandArgv(r->c, argc, argv, lens) != REDIS_OK) {
		set_io_err(r);
		return -1;
	}
	return 0;
}

/* a command whose reply only needs to be no error */
static int cmd_ok(struct bfctl_redis *r, int argc, const char **argv)
{
	redisReply *rep = bfctl_redis_cmd(r, argc, argv, NULL);

	if (!rep)
		return -1;
	freeReplyObject(rep);
	return 0;
}

int bfctl_redis_connect(struct bfctl_redis *r, const struct bfctl_redis_opts *o)
{
	char db[16];

	memset(r, 0, sizeof(*r));
	r->o = o;
	/*
	 * Non-blocking, and waited for by redis_io.c: a signal or the
	 * pull's deadline ends the connect too
	 */
	r->c = o->is_unix ? redisConnectUnixNonBlock(o->path) :
			    redisConnectNonBlock(o->host, o->port);
	if (!r->c || r->c->err) {
		set_io_err(r);
		return -1;
	}
	if (bfctl_redis_wait_connected(r) || bfctl_redis_nonblock(r))
		return -1;
	if (o->tls && bfctl_redis_tls_start(r))
		return -1;
	/*
	 * A watcher's subscription is idle for hours: keepalive finds a
	 * peer that vanished (a host down, a NAT that forgot the flow)
	 * instead of waiting on a dead socket until the next poll.
	 */
	if (!o->is_unix && redisEnableKeepAlive(r->c) != REDIS_OK) {
		set_io_err(r);
		return -1;
	}
	if (o->have_password) {
		const char *a3[] = { "AUTH", o->user, o->password };
		const char *a2[] = { "AUTH", o->password };

		if (o->user[0] ? cmd_ok(r, 3, a3) : cmd_ok(r, 2, a2))
			return -1;
	}
	if (o->db) {
		const char *sel[] = { "SELECT", db };

		snprintf(db, sizeof(db), "%d", o->db);
		if (cmd_ok(r, 2, sel))
			return -1;
	}
	return 0;
}

void bfctl_redis_close(struct bfctl_redis *r)
{
	bfctl_redis_tls_close(r);
	if (r->c)
		redisFree(r->c);
	r->c = NULL;
}

/* Redis Cluster's hash tag of key: the part between the first { and the next } */
static bool has_tag(const char *key)
{
	const char *l = strchr(key, '{');

	return l && l[1] && l[1] != '}' && strchr(l + 1, '}');
}

int bfctl_redis_sibling(char *out, size_t len, const char *key,
			const char *suffix)
{
	int n;

	if (has_tag(key) || strchr(key, '}'))
		n = snprintf(out, len, "%s:%s", key, suffix);
	else
		n = snprintf(out, len, "{%s}:%s", key, suffix);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * keyspace (K) events of generic (g) and string ($) commands, and expiry
 * (x) and eviction (e): a key that expires or is evicted during a chunked
 * read and is rebuilt by SETBITs would otherwise show only setbit events,
 * and the read would mix two values ('A' is all of them but K)
 */
static bool flags_enough(const char *f)
{
	return strchr(f, 'K') && (strchr(f, 'A') ||
				  (strchr(f, 'g') && strchr(f, '$') &&
				   strchr(f, 'x') && strchr(f, 'e')));
}

/* CONFIG GET notify-keyspace-events into f; 0, or -1 (r->err says why) */
static int flags_get(struct bfctl_redis *r, char *f, size_t len)
{
	const char *argv[] = { "CONFIG", "GET", "notify-keyspace-events" };
	redisReply *rep = bfctl_redis_cmd(r, 3, argv, NULL);
	int ret = -1;

	if (!rep)	/* CONFIG renamed or not allowed: r->err has the reply */
		return -1;
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 &&
	    rep->element[1]->type == REDIS_REPLY_STRING) {
		snprintf(f, len, "%s", rep->element[1]->str);
		ret = 0;
	} else {
		snprintf(r->err, sizeof(r->err), "CONFIG GET notify-keyspace-events: an unexpected reply");
	}
	freeReplyObject(rep);
	return ret;
}

int bfctl_redis_events(struct bfctl_redis *r)
{
	char f[64];

	if (flags_get(r, f, sizeof(f)))
		return r->io_err ? BFCTL_REDIS_EV_IO : BFCTL_REDIS_EV_UNKNOWN;
	return flags_enough(f) ? BFCTL_REDIS_EV_ON : BFCTL_REDIS_EV_OFF;
}

int bfctl_redis_notify_on(struct bfctl_redis *r)
{
	return bfctl_redis_events(r) == BFCTL_REDIS_EV_ON;
}

int bfctl_redis_events_enable(struct bfctl_redis *r)
{
	const char *argv[] = { "CONFIG", "SET", "notify-keyspace-events", NULL };
	char f[80];
	const char *c;
	redisReply *rep;
	size_t n;

	if (flags_get(r, f, sizeof(f) - 8))
		return -1;
	if (flags_enough(f))
		return 0;
	/* what is set stays set (another application's events too) */
	n = strlen(f);
	for (c = strchr(f, 'A') ? "K" : "Kg$xe"; *c; c++)
		if (!strchr(f, *c)) {
			f[n++] = *c;
			f[n] = 0;
		}
	argv[3] = f;
	rep = bfctl_redis_cmd(r, 4, argv, NULL);
	if (!rep)
		return -1;
	freeReplyObject(rep);
	return 0;
}

/* INFO SECTION's field (name:value) into val; 1 found, 0 not, -1 io */
static int info_field(struct bfctl_redis *r, const char *section,
		      const char *name, char *val, size_t len)
{
	const char *argv[] = { "INFO", section };
	redisReply *rep = bfctl_redis_cmd(r, 2, argv, NULL);
	const char *p;
	size_t n, nl = strlen(name);
	int found = 0;

	if (!rep)	/* INFO renamed or not allowed: nothing known */
		return r->io_err ? -1 : 0;
	for (p = rep->type == REDIS_REPLY_STRING ? rep->str : NULL;
	     p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		if (strncmp(p, name, nl) || p[nl] != ':')
			continue;
		n = strcspn(p + nl + 1, "\r\n");
		snprintf(val, len, "%.*s", (int)n, p + nl + 1);
		found = 1;
		break;
	}
	freeReplyObject(rep);
	return found;
}

int bfctl_redis_single(struct bfctl_redis *r, bool notify)
{
	char v[32];
	int ret;

	ret = info_field(r, "cluster", "cluster_enabled", v, sizeof(v));
	if (ret < 0)
		return -1;
	if (ret && strcmp(v, "0")) {
		snprintf(r->err, sizeof(r->err), "%s: a Redis Cluster node (cluster_enabled:%s): bfctl redis follows a single Redis, not a cluster",
			 r->o->url, v);
		r->io_err = true;
		return -1;
	}
	if (notify)
		return 0;
	ret = info_field(r, "replication", "role", v, sizeof(v));
	if (ret < 0)
		return -1;
	if (ret && strcmp(v, "master")) {
		snprintf(r->err, sizeof(r->err), "%s: a replica (role:%s) that publishes no keyspace events (notify-keyspace-events " BFCTL_REDIS_EV_FLAGS "): its copy may lag unseen; follow the primary, or turn events on in the replica",
			 r->o->url, v);
		r->io_err = true;
		return -1;
	}
	return 0;
}

int bfctl_redis_subscribe(struct bfctl_redis *r, const char *key)
{
	char ch[1100];
	const char *argv[] = { "SUBSCRIBE", ch };
	redisReply *rep;

	snprintf(ch, sizeof(ch), "__keyspace@%d__:%s", r->o->db, key);
	rep = bfctl_redis_cmd(r, 2, argv, NULL);
	if (!rep)
		return -1;
	freeReplyObject(rep);
	return 0;
}

/* a message on the subscription: its event into *ev; 1 if it was the PONG */
static int sub_note(redisReply *rep, int *ev)
{
	const redisReply *e;
	const char *t;

	if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 2 ||
	    rep->element[0]->type != REDIS_REPLY_STRING)
		return 0;
	t = rep->element[0]->str;
	if (!strcmp(t, "pong"))
		return 1;
	if (strcmp(t, "message") || rep->elements != 3)
		return 0;
	e = rep->element[2];
	if (e->type != REDIS_REPLY_STRING)
		return 0;
	if (!strcmp(e->str, "setbit"))
		*ev |= RSUB_SETBIT;
	else
		*ev |= RSUB_OTHER;
	if (!strcmp(e->str, "del") || !strcmp(e->str, "expired") ||
	    !strcmp(e->str, "evicted") || !strcmp(e->str, "rename_from"))
		*ev |= RSUB_GONE;
	return 0;
}

int bfctl_redis_sub_poll(struct bfctl_redis *r, int *ev)
{
	struct pollfd pfd = { .fd = r->c->fd, .events = POLLIN };
	void *v;

	if (r->io_err)
		return -1;
	if (poll(&pfd, 1, 0) > 0 && bfctl_redis_read_some(r))
		return -1;
	for (;;) {
		v = NULL;
		if (redisGetReplyFromReader(r->c, &v) != REDIS_OK) {
			set_io_err(r);
			return -1;
		}
		if (!v)
			return 0;
		sub_note(v, ev);
		freeReplyObject(v);
	}
}

int bfctl_redis_sub_barrier(struct bfctl_redis *r, int *ev)
{
	const char *argv[] = { "PING" };
	redisReply *rep;
	int pong;

	if (r->io_err)
		return -1;
	if (redisAppendCommandArgv(r->c, 1, argv, NULL) != REDIS_OK) {
		set_io_err(r);
		return -1;
	}
	do {
		rep = bfctl_redis_reply(r);
		if (!rep)
			return -1;
		pong = sub_note(rep, ev);
		freeReplyObject(rep);
	} while (!pong);
	return 0;
}
