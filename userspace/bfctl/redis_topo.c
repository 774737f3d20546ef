// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis: where to connect for a key, on the Redis that fleets run.
 *
 *   - Sentinel (redis-sentinel://h1:26379,h2:26379/MASTER): the primary is
 *     what the first sentinel that answers says (SENTINEL
 *     get-master-addr-by-name), checked to be one (INFO replication,
 *     role:master: a sentinel may answer during a failover with the old
 *     one).  A primary that differs from the last one is a failover: the
 *     caller pulls the value whole, because writes acknowledged only by
 *     the old primary may be lost and must not be kept as if Redis had
 *     them.  A failover is noticed by the connection's loss (a dead
 *     primary, or the CLIENT KILL Sentinel sends to a demoted one).
 *   - --read-from replica: the primary's replicas (its INFO replication),
 *     the first that is online, says master_link_status:up and (for a
 *     watch) publishes keyspace events; else the primary, and t->note
 *     says why.  A replica whose link goes down is dropped before the
 *     next pull.
 *   - Cluster (cluster_enabled:1): the key's node is found lazily, by
 *     following MOVED and ASK (ASKING before every command on an ASK
 *     target), at most BFCTL_REDIS_REDIRECTS times: a node that redirects
 *     in a loop is refused.  The key and its sibling keys share a slot
 *     (bfctl_redis_sibling()).  A read runs on one node: a key leaves a
 *     node only by MIGRATE, which deletes it there and so fails that
 *     node's WATCH (the read is redone, and redirected); on an ASK target
 *     the key arrived whole (RESTORE) before the read's WATCH.  So no read
 *     mixes two nodes' copies.  Keyspace events are node-local: the
 *     caller subscribes on the node the read went to (t->moved: again).
 *
 * Everything rides on bfctl_redis_connect(): the same password rules,
 * deadlines and bounded replies (CLUSTER SLOTS and SENTINEL replicas
 * are not read: their arrays are long; MOVED and INFO say enough).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "redis.h"

/* replicas of one primary looked at */
#define TOPO_REPLICAS	8

static int topo_url_err(char *err, size_t len, const char *why)
{
	snprintf(err, len, "bad --server redis-sentinel URL: %s (redis[s]-sentinel://[user@]host[:port],host[:port].../MASTER[?db=N])",
		 why);
	return -EINVAL;
}

/* host[:port] or [v6][:port] of s..end into n (port 26379 if none) */
static int parse_hostport(struct bfctl_redis_node *n, const char *s,
			  const char *end)
{
	const char *colon, *h = s, *he;
	char pbuf[8];
	u64 port = 26379;
	size_t l;

	if (*s == '[') {
		he = memchr(s, ']', (size_t)(end - s));
		if (!he)
			return -1;
		h = s + 1;
		colon = he + 1 < end ? he + 1 : NULL;
		if (colon && *colon != ':')
			return -1;
	} else {
		colon = memchr(s, ':', (size_t)(end - s));
		he = colon ? colon : end;
	}
	l = (size_t)(he - h);
	if (!l || l >= sizeof(n->host))
		return -1;
	memcpy(n->host, h, l);
	n->host[l] = 0;
	if (colon) {
		l = (size_t)(end - colon - 1);
		if (!l || l >= sizeof(pbuf))
			return -1;
		memcpy(pbuf, colon + 1, l);
		pbuf[l] = 0;
		if (bfctl_parse_u64(pbuf, &port) || !port || port > 65535)
			return -1;
	}
	n->port = (int)port;
	return 0;
}

int bfctl_redis_topo_parse(struct bfctl_redis_opts *o, const char *url,
			   char *err, size_t len)
{
	const char *s, *at, *slash, *q, *p, *c;
	u64 db;
	size_t n;

	/* rediss-sentinel://: TLS to the sentinels and to the data nodes */
	o->tls = !strncmp(url, "rediss-", 7);
	s = url + 17 + o->tls;
	o->nsent = 0;
	at = strrchr(s, '@');
	if (at) {
		if (memchr(s, ':', (size_t)(at - s)) ||
		    memchr(s, '/', (size_t)(at - s)))
			return topo_url_err(err, len, "no password in the URL: use --password-file or $BFCTL_REDIS_PASSWORD (and $BFCTL_REDIS_SENTINEL_PASSWORD for the sentinels)");
		n = (size_t)(at - s);
		if (!n || n >= sizeof(o->user))
			return topo_url_err(err, len, "bad user");
		memcpy(o->user, s, n);
		o->user[n] = 0;
		s = at + 1;
	}
	slash = strchr(s, '/');
	if (!slash)
		return topo_url_err(err, len, "no /MASTER after the sentinels");
	for (p = s; p < slash; p = c + 1) {
		c = memchr(p, ',', (size_t)(slash - p));
		if (!c)
			c = slash;
		if (o->nsent == BFCTL_REDIS_SENTINELS)
			return topo_url_err(err, len, "more than 8 sentinels");
		if (parse_hostport(&o->sent[o->nsent], p, c))
			return topo_url_err(err, len, "bad sentinel host[:port]");
		o->nsent++;
	}
	if (!o->nsent)
		return topo_url_err(err, len, "no sentinel");
	q = strchr(slash, '?');
	n = q ? (size_t)(q - slash - 1) : strlen(slash + 1);
	if (!n || n >= sizeof(o->master))
		return topo_url_err(err, len, "no MASTER name (or over 127 bytes)");
	memcpy(o->master, slash + 1, n);
	o->master[n] = 0;
	for (p = o->master; *p; p++)
		if (*p <= ' ' || *p == 0x7f || strchr("/?#", *p))
			return topo_url_err(err, len, "bad MASTER name");
	if (q && (strncmp(q, "?db=", 4) || bfctl_parse_u64(q + 4, &db) ||
		  db > 1000000))
		return topo_url_err(err, len, "only ?db=N may follow MASTER");
	o->db = q ? (int)db : 0;
	o->sentinel = true;
	o->is_unix = false;
	snprintf(o->host, sizeof(o->host), "%s", o->sent[0].host);
	o->port = o->sent[0].port;
	return 0;
}

void bfctl_redis_topo_init(struct bfctl_redis_topo *t,
			   const struct bfctl_redis_opts *o, const char *key)
{
	memset(t, 0, sizeof(*t));
	t->o = o;
	t->key = key;
}

/*
 * The sentinels' own password (Sentinel's requirepass may differ from the
 * data nodes'): $CREDENTIALS_DIRECTORY/redis-sentinel-password (a file
 * for root alone), else $BFCTL_REDIS_SENTINEL_PASSWORD; the user from
 * $BFCTL_REDIS_SENTINEL_USER.  None: the sentinels want no AUTH.
 */
static int sentinel_auth(struct bfctl_redis_opts *so, char *err, size_t len)
{
	const char *cred = getenv("CREDENTIALS_DIRECTORY");
	const char *env = getenv("BFCTL_REDIS_SENTINEL_PASSWORD");
	const char *user = getenv("BFCTL_REDIS_SENTINEL_USER");
	char path[4096];
	struct stat st;
	FILE *fp;

	so->have_password = false;
	so->user[0] = 0;
	if (user && *user)
		snprintf(so->user, sizeof(so->user), "%s", user);
	if (cred && *cred &&
	    (size_t)snprintf(path, sizeof(path), "%s/redis-sentinel-password",
			     cred) < sizeof(path) && !access(path, F_OK)) {
		fp = fopen(path, "re");
		if (!fp || fstat(fileno(fp), &st) || (st.st_mode & 0077)) {
			snprintf(err, len, "credential %.300s: %s", path,
				 fp ? "readable by others: chmod 600 it" :
				 strerror(errno));
			if (fp)
				fclose(fp);
			return -1;
		}
		if (!fgets(so->password, sizeof(so->password), fp))
			so->password[0] = 0;
		fclose(fp);
		so->password[strcspn(so->password, "\r\n")] = 0;
	} else if (env && *env && strlen(env) < sizeof(so->password)) {
		strcpy(so->password, env);
	} else {
		so->password[0] = 0;
	}
	so->have_password = so->password[0] != 0;
	if (so->user[0] && !so->have_password) {
		snprintf(err, len, "sentinel user %s: no password ($BFCTL_REDIS_SENTINEL_PASSWORD)",
			 so->user);
		return -1;
	}
	return 0;
}

/* INFO SECTION into buf (truncated to it); 0 or -1 (r->err) */
static int info(struct bfctl_redis *r, const char *section, char *buf,
		size_t len)
{
	const char *argv[] = { "INFO", section };
	redisReply *rep = bfctl_redis_cmd(r, 2, argv, NULL);

	buf[0] = 0;
	if (!rep)
		return -1;
	if (rep->type == REDIS_REPLY_STRING)
		snprintf(buf, len, "%s", rep->str);
	freeReplyObject(rep);
	return 0;
}

/* name:value of an INFO text into val; 1 found, 0 not */
static int field(const char *text, const char *name, char *val, size_t len)
{
	size_t nl = strlen(name);
	const char *p;

	for (p = text; *p; p += strcspn(p, "\n"), p += *p == '\n')
		if (!strncmp(p, name, nl) && p[nl] == ':') {
			snprintf(val, len, "%.*s",
				 (int)strcspn(p + nl + 1, "\r\n"), p + nl + 1);
			return 1;
		}
	val[0] = 0;
	return 0;
}

/* connect r to host:port, as the user asked for the data nodes */
static int node_connect(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			const char *host, int port, const char *what)
{
	t->node = *t->o;
	t->node.sentinel = false;
	t->node.is_unix = false;
	snprintf(t->node.host, sizeof(t->node.host), "%s", host);
	t->node.port = port;
	snprintf(t->url, sizeof(t->url), strchr(host, ':') ?
		 "%s redis%s://[%s]:%d" : "%s redis%s://%s:%d", what,
		 t->o->tls ? "s" : "", host, port);
	t->node.url = t->url;
	return bfctl_redis_connect(r, &t->node);
}

/*
 * The options for sentinel i: theirs (sentinel_auth()), over TLS with the
 * --tls-* files for rediss-sentinel://, its name checked against the
 * host the URL gives it (--tls-server-name is the data nodes')
 */
static void sentinel_opts(const struct bfctl_redis_opts *o,
			  struct bfctl_redis_opts *so, int i, char *url,
			  size_t len)
{
	so->port = o->sent[i].port;
	snprintf(so->host, sizeof(so->host), "%s", o->sent[i].host);
	so->tls = o->tls;
	so->tls_ca = o->tls_ca;
	so->tls_cert = o->tls_cert;
	so->tls_key = o->tls_key;
	so->tls_server_name = NULL;
	snprintf(url, len, "sentinel%s %s:%d", o->tls ? " (TLS)" : "",
		 so->host, so->port);
	so->url = url;
}

/* sentinel i's primary of o->master into host:port; 0, 1 unknown, -1 */
static int sentinel_ask(struct bfctl_redis *r, const struct bfctl_redis_opts *o,
			struct bfctl_redis_opts *so, int i, char *su,
			size_t sulen, char *host, size_t hlen, int *port)
{
	const char *argv[] = { "SENTINEL", "get-master-addr-by-name",
			       o->master };
	redisReply *rep = NULL;
	int ret = -1;
	u64 p;

	sentinel_opts(o, so, i, su, sulen);
	if (!bfctl_redis_connect(r, so))
		rep = bfctl_redis_cmd(r, 3, argv, NULL);
	if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 &&
	    rep->element[0]->type == REDIS_REPLY_STRING &&
	    rep->element[1]->type == REDIS_REPLY_STRING &&
	    rep->element[0]->len < hlen && rep->element[0]->len &&
	    !bfctl_parse_u64(rep->element[1]->str, &p) && p && p < 65536) {
		snprintf(host, hlen, "%s", rep->element[0]->str);
		*port = (int)p;
		ret = 0;
	} else if (rep) {
		snprintf(r->err, sizeof(r->err), "%.200s: %s", su,
			 rep->type == REDIS_REPLY_NIL ?
			 "sentinel does not know the master" :
			 "an unexpected reply");
		ret = 1;
	}
	if (rep)
		freeReplyObject(rep);
	bfctl_redis_close(r);
	return ret;
}

/*
 * The primary's address, from two sentinels that agree on it: one alone
 * could name any host, and the data nodes' password goes to that host.
 * Sentinels that disagree (a failover half seen, or a sentinel not to be
 * trusted) are an error, tried again later; a single one that answers is
 * taken, with a warning in t->note.
 */
static int sentinel_primary(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			    char *host, size_t hlen, int *port)
{
	const struct bfctl_redis_opts *o = t->o;
	struct bfctl_redis_opts so;
	char why[512] = "", su[300], h2[256], first[300] = "";
	int i, p2, got = 0;

	memset(&so, 0, sizeof(so));
	so.timeout_ms = o->timeout_ms;
	so.chunk = o->chunk;
	if (sentinel_auth(&so, why, sizeof(why))) {
		memset(r, 0, sizeof(*r));
		snprintf(r->err, sizeof(r->err), "%s", why);
		r->io_err = true;
		return -1;
	}
	for (i = 0; i < o->nsent && got < 2; i++) {
		if (sentinel_ask(r, o, &so, i, su, sizeof(su), got ? h2 : host,
				 got ? sizeof(h2) : hlen, got ? &p2 : port)) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%s%.150s", why[0] ? "; " : "", r->err);
			continue;
		}
		if (!got++) {
			snprintf(first, sizeof(first), "%s", su);
			continue;
		}
		if (strcmp(h2, host) || p2 != *port) {
			memset(r, 0, sizeof(*r));
			snprintf(why, sizeof(why), "the sentinels disagree on the primary of %.60s (%.60s: %.60s:%d, %.60s: %.60s:%d): a failover in progress, or a sentinel not to trust",
				 o->master, first, host, *port, su, h2, p2);
			snprintf(r->err, sizeof(r->err), "%.255s", why);
			r->io_err = true;
			return -1;
		}
	}
	if (got == 1 && o->nsent > 1)
		snprintf(t->note, sizeof(t->note), "only %.100s answered (%.200s): its primary is taken unconfirmed",
			 first, why);
	if (got)
		return 0;
	memset(r, 0, sizeof(*r));
	snprintf(r->err, sizeof(r->err), "no sentinel gave the primary of %s: %s",
		 o->master, why);
	r->io_err = true;
	return -1;
}

/* r's INFO replication says role:ROLE (else r->err says what it is) */
static int role_is(struct bfctl_redis *r, const char *role, char *text,
		  size_t len)
{
	char v[32];

	if (info(r, "replication", text, len))
		return -1;
	if (field(text, "role", v, sizeof(v)) && !strcmp(v, role))
		return 0;
	snprintf(r->err, sizeof(r->err), "%s: role:%s, not %s", r->o->url,
		 v[0] ? v : "unknown", role);
	return -1;
}

/*
 * Why a replica whose INFO replication is text serves no copy of the
 * primary's (NULL: it does): its link is down, or it follows another
 * server than the primary, as Sentinel named it (master_host and
 * master_port) and as the primary tells its own history (master_replid:
 * also a replica repointed to another primary by hand).  A copy of a
 * demoted or foreign primary's value is not the key's.
 */
static const char *replica_stale(struct bfctl_redis_topo *t, const char *text,
				 char *buf, size_t len)
{
	char v[64], h[256], p[16];

	if (!field(text, "master_link_status", v, sizeof(v)) ||
	    strcmp(v, "up")) {
		snprintf(buf, len, "its link to the primary is down (master_link_status:%s)",
			 v[0] ? v : "?");
		return buf;
	}
	field(text, "master_host", h, sizeof(h));
	field(text, "master_port", p, sizeof(p));
	snprintf(v, sizeof(v), "%.40s:%.8s", h, p);
	if (t->o->sentinel && strcmp(v, t->primary)) {
		snprintf(buf, len, "it follows %.60s, not the primary %.60s",
			 v, t->primary);
		return buf;
	}
	field(text, "master_replid", v, sizeof(v));
	if (t->replid[0] && strcmp(v, t->replid)) {
		snprintf(buf, len, "it follows %.40s:%.8s, not the primary (master_replid %.12s..., not %.12s...)",
			 h, p, v, t->replid);
		return buf;
	}
	return NULL;
}

/* why replica r cannot serve the key (NULL: it can) */
static const char *replica_unfit(struct bfctl_redis_topo *t,
				 struct bfctl_redis *r)
{
	static char why[200];
	char text[4096];

	if (role_is(r, "slave", text, sizeof(text)))
		return r->err;
	if (replica_stale(t, text, why, sizeof(why)))
		return why;
	if (!t->watch)
		return NULL;
	if (bfctl_redis_events(r) != BFCTL_REDIS_EV_ON &&
	    (!t->enable_events || bfctl_redis_events_enable(r) ||
	     bfctl_redis_events(r) != BFCTL_REDIS_EV_ON))
		return "it publishes no keyspace events (notify-keyspace-events " BFCTL_REDIS_EV_FLAGS " in its own config)";
	return NULL;
}

/* the primary again, after the replicas would not do */
static int primary_again(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			 const char *host, int port)
{
	if (t->o->sentinel)
		return node_connect(t, r, host, port, "primary");
	t->node = *t->o;
	return bfctl_redis_connect(r, &t->node);
}

/*
 * r is on the primary (host:port, or the URL's): connect it to a healthy
 * replica of it instead, else back to the primary with a note
 */
static int replica_pick(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			const char *host, int port)
{
	struct bfctl_redis_node cand[TOPO_REPLICAS];
	char text[8192], name[16], v[512], *ip, *pp, *st;
	const char *why;
	size_t nl = 0;
	int i, n = 0;
	u64 p;

	if (info(r, "replication", text, sizeof(text)))
		return -1;
	if (field(text, "role", v, sizeof(v)) && strcmp(v, "master"))
		/* the URL names a replica: read as today (single()'s check) */
		return 0;
	/* the primary's replication history: its replicas share it */
	field(text, "master_replid", t->replid, sizeof(t->replid));
	t->note[0] = 0;
	for (i = 0; i < 64 && n < TOPO_REPLICAS; i++) {
		snprintf(name, sizeof(name), "slave%d", i);
		if (!field(text, name, v, sizeof(v)))
			break;
		/* ip=...,port=...,state=online,offset=...,lag=... */
		ip = strstr(v, "ip=");
		pp = strstr(v, "port=");
		st = strstr(v, "state=");
		if (!ip || !pp || !st)
			continue;
		ip += 3;
		ip[strcspn(ip, ",")] = 0;
		pp += 5;
		pp[strcspn(pp, ",")] = 0;
		st += 6;
		st[strcspn(st, ",")] = 0;
		if (strcmp(st, "online") || bfctl_parse_u64(pp, &p) || !p ||
		    p > 65535 || strlen(ip) >= sizeof(cand[n].host))
			continue;
		snprintf(cand[n].host, sizeof(cand[n].host), "%s", ip);
		cand[n++].port = (int)p;
	}
	bfctl_redis_close(r);
	for (i = 0; i < n; i++) {
		why = node_connect(t, r, cand[i].host, cand[i].port, "replica") ?
		      r->err : replica_unfit(t, r);
		if (!why) {
			t->on_replica = true;
			snprintf(t->note, sizeof(t->note), "reading from replica %.300s:%d",
				 cand[i].host, cand[i].port);
			return 0;
		}
		nl += (size_t)snprintf(t->note + nl, sizeof(t->note) - nl,
				       "%s%s:%d: %.100s", nl ? "; " : "",
				       cand[i].host, cand[i].port, why);
		if (nl >= sizeof(t->note))
			nl = sizeof(t->note) - 1;
		bfctl_redis_close(r);
	}
	if (!n)
		snprintf(t->note, sizeof(t->note), "the primary has no replica online");
	snprintf(v, sizeof(v), "no usable replica (%.300s): reading from the primary",
		 t->note);
	snprintf(t->note, sizeof(t->note), "%.390s", v);
	return primary_again(t, r, host, port);
}

/* reconnect r to where its last MOVED/ASK pointed */
static int follow(struct bfctl_redis_topo *t, struct bfctl_redis *r)
{
	char addr[300], host[256];
	bool ask = r->redir_ask;
	char *c;
	u64 p;

	snprintf(addr, sizeof(addr), "%s", r->redir);
	c = strrchr(addr, ':');
	if (!c || bfctl_parse_u64(c + 1, &p) || !p || p > 65535) {
		snprintf(r->err, sizeof(r->err), "%s: a redirect to '%.100s': refused",
			 r->o->url, addr);
		r->io_err = true;
		return -1;
	}
	*c = 0;
	/* an empty host (an unknown endpoint) is the node's own host */
	snprintf(host, sizeof(host), "%.255s", addr[0] ? addr : t->node.host);
	bfctl_redis_close(r);
	if (node_connect(t, r, host, (int)p, ask ? "cluster node (ASK)" :
			 "cluster node"))
		return -1;
	r->asking = ask;
	return 0;
}

static int redirect_loop(struct bfctl_redis_topo *t, struct bfctl_redis *r)
{
	char last[300];

	snprintf(last, sizeof(last), "%s", r->redir);
	snprintf(r->err, sizeof(r->err), "%.60s: more than %d MOVED/ASK redirects for %.40s (the last to %.60s): a redirect loop, refused",
		 r->o->url, BFCTL_REDIS_REDIRECTS, t->key, last);
	r->io_err = true;
	return -1;
}

/* r on a cluster node: move it to the one that serves the key's slot */
static int cluster_find(struct bfctl_redis_topo *t, struct bfctl_redis *r)
{
	const char *argv[] = { "TYPE", t->key };
	redisReply *rep;
	int i;

	for (i = 0; ; i++) {
		r->redir[0] = 0;
		rep = bfctl_redis_cmd(r, 2, argv, NULL);
		if (rep) {
			freeReplyObject(rep);
			snprintf(t->last, sizeof(t->last), "%s:%d",
				 t->node.host, t->node.port);
			return 0;
		}
		if (r->io_err || !r->redir[0])
			return -1;
		if (i >= BFCTL_REDIS_REDIRECTS)
			return redirect_loop(t, r);
		if (follow(t, r))
			return -1;
	}
}

int bfctl_redis_topo_connect(struct bfctl_redis_topo *t, struct bfctl_redis *r)
{
	char host[256] = "", addr[300], text[4096], v[16];
	int port = 0;

	t->note[0] = 0;
	t->on_replica = false;
	t->failover = false;
	t->moved = false;
	if (t->o->sentinel) {
		if (sentinel_primary(t, r, host, sizeof(host), &port))
			return -1;
		snprintf(addr, sizeof(addr), "%s:%d", host, port);
		if (t->primary[0] && strcmp(addr, t->primary)) {
			t->failover = true;
			t->failovers++;
			snprintf(t->note, sizeof(t->note), "the primary of %.100s is now %.100s (was %.100s): the value is read whole",
				 t->o->master, addr, t->primary);
		}
		snprintf(t->primary, sizeof(t->primary), "%s", addr);
		if (node_connect(t, r, host, port, "primary"))
			return -1;
		/* a sentinel answers with the old primary until it fails over */
		if (role_is(r, "master", text, sizeof(text))) {
			snprintf(r->err + strlen(r->err),
				 sizeof(r->err) - strlen(r->err),
				 " (Sentinel's primary of %s: a failover in progress?)",
				 t->o->master);
			r->io_err = true;
			return -1;
		}
	} else {
		t->node = *t->o;
		if (t->cluster && t->last[0]) {
			/* the node that served the key last, then the URL's */
			char *c;

			snprintf(addr, sizeof(addr), "%s", t->last);
			c = strrchr(addr, ':');
			*c = 0;
			if (!node_connect(t, r, addr, atoi(c + 1), "cluster node"))
				goto connected;
			bfctl_redis_close(r);
			t->node = *t->o;
		}
		if (bfctl_redis_connect(r, &t->node))
			return -1;
	}
connected:
	if (info(r, "cluster", text, sizeof(text)))
		return r->io_err ? -1 : 0;
	t->cluster = field(text, "cluster_enabled", v, sizeof(v)) &&
		     strcmp(v, "0");
	if (t->cluster) {
		if (t->o->read_from == BFCTL_REDIS_READ_REPLICA)
			snprintf(t->note, sizeof(t->note), "a Redis Cluster: reading from the primary that owns the key's slot (--read-from replica is for Sentinel and plain replication)");
		return cluster_find(t, r);
	}
	if (t->o->read_from == BFCTL_REDIS_READ_REPLICA) {
		char fo[400];
		int ret;

		/* the failover is said too, not only the replica picked */
		snprintf(fo, sizeof(fo), "%s", t->note);
		ret = replica_pick(t, r, host, port);
		if (fo[0]) {
			snprintf(text, sizeof(text), "%s; %s", fo, t->note);
			snprintf(t->note, sizeof(t->note), "%.399s", text);
		}
		return ret;
	}
	return 0;
}

int bfctl_redis_topo_single(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			    bool notify)
{
	/* a cluster node serving the key, or a replica found healthy */
	if (t->cluster || t->on_replica)
		return 0;
	return bfctl_redis_single(r, notify);
}

int bfctl_redis_topo_follow(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			    int n)
{
	if (!t->cluster) {	/* said cluster_enabled:0: not followed */
		snprintf(r->err + strlen(r->err), sizeof(r->err) - strlen(r->err),
			 ": a redirect from a server that is not a Cluster node: refused");
		r->io_err = true;
		return -1;
	}
	if (n >= BFCTL_REDIS_REDIRECTS)
		return redirect_loop(t, r);
	if (follow(t, r))
		return -1;
	snprintf(t->last, sizeof(t->last), "%s:%d", t->node.host, t->node.port);
	return 0;
}

int bfctl_redis_topo_pull(struct bfctl_redis_topo *t, struct bfctl_redis *r,
			  struct bfctl_redis *sub, struct kbconn *kc,
			  struct bfctl_redis_pull *pl)
{
	char text[4096], why[200];
	int i, ret;

	t->moved = false;
	/*
	 * Sentinel's primary demoted without the connection lost (Sentinel
	 * kills its clients, but a partition may keep that from us): the
	 * next pull finds it and reconnects, to the primary Sentinel names
	 */
	if (t->o->sentinel && !t->on_replica &&
	    role_is(r, "master", text, sizeof(text))) {
		snprintf(pl->why, sizeof(pl->why), "%.200s: no longer the primary of %.60s (a failover?)",
			 r->err, t->o->master);
		r->io_err = true;
		return BFCTL_ERR;
	}
	/* a replica cut from its primary serves a copy of unknown age */
	if (t->on_replica && t->o->read_from == BFCTL_REDIS_READ_REPLICA) {
		if (info(r, "replication", text, sizeof(text))) {
			snprintf(pl->why, sizeof(pl->why), "%s", r->err);
			return BFCTL_ERR;
		}
		if (replica_stale(t, text, why, sizeof(why))) {
			snprintf(r->err, sizeof(r->err), "%.60s: %.150s: not read; looking for another",
				 r->o->url, why);
			snprintf(pl->why, sizeof(pl->why), "%s", r->err);
			r->io_err = true;
			return BFCTL_ERR;
		}
	}
	for (i = 0; ; i++) {
		r->redir[0] = 0;
		ret = bfctl_redis_pull_once(r, sub, kc, pl);
		if (ret != BFCTL_ERR || !r->redir[0])
			return ret;
		if (!t->cluster) {	/* said cluster_enabled:0: not followed */
			size_t l = strlen(pl->why);

			snprintf(pl->why + l, sizeof(pl->why) - l,
				 ": a redirect from a server that is not a Cluster node: refused");
			r->io_err = true;
			return ret;
		}
		if (bfctl_redis_topo_follow(t, r, i)) {
			snprintf(pl->why, sizeof(pl->why), "%s", r->err);
			return BFCTL_ERR;
		}
		/* the subscription is on the node the key left */
		t->moved = true;
		sub = NULL;
	}
}

int bfctl_redis_topo_sentinel_sub(struct bfctl_redis_topo *t,
				  struct bfctl_redis *ss)
{
	const char *argv[] = { "SUBSCRIBE", "+switch-master" };
	redisReply *rep;
	int i;

	memset(ss, 0, sizeof(*ss));
	memset(&t->sopts, 0, sizeof(t->sopts));
	t->sopts.timeout_ms = t->o->timeout_ms;
	t->sopts.chunk = t->o->chunk;
	if (!t->o->sentinel || sentinel_auth(&t->sopts, ss->err, sizeof(ss->err)))
		return -1;
	for (i = 0; i < t->o->nsent; i++) {
		sentinel_opts(t->o, &t->sopts, i, t->surl, sizeof(t->surl));
		if (!bfctl_redis_connect(ss, &t->sopts)) {
			rep = bfctl_redis_cmd(ss, 2, argv, NULL);
			if (rep) {
				freeReplyObject(rep);
				return 0;
			}
		}
		bfctl_redis_close(ss);
	}
	return -1;
}

int bfctl_redis_topo_sentinel_poll(struct bfctl_redis_topo *t,
				   struct bfctl_redis *ss)
{
	struct pollfd pfd = { .fd = ss->c->fd, .events = POLLIN };
	size_t ml = strlen(t->o->master);
	const redisReply *m;
	redisReply *rep;
	void *v;
	int hit = 0;

	if (ss->io_err || (poll(&pfd, 1, 0) > 0 && bfctl_redis_read_some(ss)))
		goto lost;
	for (;;) {
		v = NULL;
		if (redisGetReplyFromReader(ss->c, &v) != REDIS_OK)
			goto lost;
		if (!v)
			return hit;
		rep = v;
		/* message +switch-master "MASTER oldip oldport newip newport" */
		if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 3 &&
		    rep->element[2]->type == REDIS_REPLY_STRING) {
			m = rep->element[2];
			if (m->len > ml && !strncmp(m->str, t->o->master, ml) &&
			    m->str[ml] == ' ')
				hit = 1;
		}
		freeReplyObject(rep);
	}
lost:
	/* closed: the loss of the data connection still tells of a failover */
	bfctl_redis_close(ss);
	return -1;
}
