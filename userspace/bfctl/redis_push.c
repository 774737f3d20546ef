// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis push: the value written like go-zero's rebuilds, into a
 * temporary key of KEY's hash slot, in chunks, then renamed over KEY by
 * one MULTI/EXEC (which writes or drops the metadata key too), so readers
 * see the old value or the new one.
 *
 * In a Cluster the slot may be migrating while a push runs (a resharding):
 *
 * - The temporary key is new, so the node the slot is leaving answers
 *   ASK for it: the push goes to the importing node, where every command
 *   is preceded by ASKING (bfctl_redis_append()), and the transaction by
 *   one ASKING before MULTI (the flag holds until EXEC; one inside MULTI
 *   would be queued, and answered in EXEC's reply).  A MOVED or an ASK at
 *   any step starts the push again on that node, at most
 *   BFCTL_REDIS_REDIRECTS times, as reads follow them (redis_topo.c).
 * - On the importing node, a transaction that names keys of the slot the
 *   node does not hold yet (KEY still on the old node, the metadata key
 *   that does not exist) is TRYAGAIN until the slot is the node's.  The
 *   transaction alone is sent again after a backoff (the temporary key
 *   stays where it is), for about PUSH_TRYAGAIN_S seconds (--timeout, if
 *   shorter): a resharding
 *   moves a slot's keys and then the slot in moments, and a slot stuck
 *   half-moved is an operator's to fix, not a push's to wait out.
 *
 * Nothing replaces KEY until the EXEC succeeds.  A push that starts
 * again elsewhere, or gives up, unlinks the temporary key it wrote (best
 * effort, on a connection of its own: the push's may be out of step); one
 * it cannot expires within minutes (push_ttl()): a day of full-sized
 * leftovers per retried push would fill a node.  The TTL is set again
 * after the last chunk, with the length checked: a key that expired
 * during a slow write (APPEND would start a new one) fails the push,
 * never renames a truncated value over KEY.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "redis.h"

/*
 * A temporary key left by a push that died goes away by itself: ten
 * --timeouts (each reply's bound), at least a minute; an hour without one
 */
#define PUSH_TTL_X	10
#define PUSH_TTL_MIN	60
#define PUSH_TTL_NONE	3600
/* TRYAGAIN: waits from 50 ms, doubling up to 1 s, about 12 s in all */
#define PUSH_TRYAGAIN_MIN	0.05
#define PUSH_TRYAGAIN_MAX	1.0
#define PUSH_TRYAGAIN_S		12.0

struct push {
	struct bfctl_redis *r;
	const char *key, *meta;
	double budget;		/* seconds of TRYAGAIN waited out */
	char ttl[24];		/* the temporary key's, in seconds */
	char tmp[1100], mkey[1100];
};

static void push_ttl(struct push *ps)
{
	long long t = PUSH_TTL_NONE, to = ps->r->o->timeout_ms;

	if (to > 0) {
		t = to * PUSH_TTL_X / 1000;
		if (t < PUSH_TTL_MIN)
			t = PUSH_TTL_MIN;
	}
	snprintf(ps->ttl, sizeof(ps->ttl), "%lld", t);
}

/*
 * Best effort: the temporary key unlinked on the node r is (or was)
 * connected to, over a connection of its own, ASKING as r did
 */
static void drop_tmp(struct push *ps)
{
	const char *argv[] = { "UNLINK", ps->tmp };
	struct bfctl_redis u;
	redisReply *rep;

	memset(&u, 0, sizeof(u));
	if (!bfctl_redis_connect(&u, ps->r->o)) {
		u.asking = ps->r->asking;
		rep = bfctl_redis_cmd(&u, 2, argv, NULL);
		if (rep)
			freeReplyObject(rep);
	}
	bfctl_redis_close(&u);
}

static int reply_ok(struct bfctl_redis *r)
{
	redisReply *rep = bfctl_redis_reply(r);

	if (!rep)
		return -1;
	freeReplyObject(rep);
	return 0;
}

/* the data into a new temporary key; 0, or -1 (r->err, r->redir) */
static int write_tmp(struct push *ps, const u8 *data, u64 len)
{
	struct bfctl_redis *r = ps->r;
	const char *del[] = { "DEL", ps->tmp }, *set[] = { "SET", ps->tmp, "" };
	const char *exp[] = { "EXPIRE", ps->tmp, ps->ttl };
	const char *slen[] = { "STRLEN", ps->tmp };
	const char *app[] = { "APPEND", ps->tmp, NULL };
	u64 chunk = r->o->chunk, sent = 0, acked = 0;
	size_t alen[3] = { 6, 0, 0 };
	redisReply *rep;
	char rnd[17];
	u64 rv;
	bool okx;

	/* random: two hosts pushing at once do not append to one key */
	if (kbu_random(&rv, sizeof(rv))) {
		snprintf(r->err, sizeof(r->err), "getrandom: %s", strerror(errno));
		return -1;
	}
	snprintf(rnd, sizeof(rnd), "%016llx", (unsigned long long)rv);
	if (bfctl_redis_sibling(ps->tmp, sizeof(ps->tmp), ps->key, "kbloom-tmp-") ||
	    strlen(ps->tmp) + sizeof(rnd) > sizeof(ps->tmp))
		return -1;
	strcat(ps->tmp, rnd);
	alen[1] = strlen(ps->tmp);
	if (bfctl_redis_append(r, 2, del, NULL) ||
	    bfctl_redis_append(r, 3, set, NULL) ||
	    bfctl_redis_append(r, 3, exp, NULL) ||
	    reply_ok(r) || reply_ok(r) || reply_ok(r))
		return -1;
	while (acked < len) {
		while (sent < len && sent - acked < BFCTL_REDIS_WINDOW * chunk) {
			alen[2] = len - sent < chunk ? len - sent : chunk;
			app[2] = (const char *)data + sent;
			if (bfctl_redis_append(r, 3, app, alen))
				return -1;
			sent += alen[2];
		}
		rep = bfctl_redis_reply(r);
		if (!rep)
			return -1;
		okx = rep->type == REDIS_REPLY_INTEGER;
		freeReplyObject(rep);
		if (!okx)
			return -1;
		acked += len - acked < chunk ? len - acked : chunk;
	}
	/* still there (the TTL again from now), and whole */
	if (bfctl_redis_append(r, 3, exp, NULL) ||
	    bfctl_redis_append(r, 2, slen, NULL))
		return -1;
	rep = bfctl_redis_reply(r);
	if (!rep)
		return -1;
	okx = rep->type == REDIS_REPLY_INTEGER && rep->integer == 1;
	freeReplyObject(rep);
	rep = bfctl_redis_reply(r);

	if (!rep)
		return -1;
	okx = okx && rep->type == REDIS_REPLY_INTEGER &&
	      (u64)rep->integer == len;
	freeReplyObject(rep);
	if (!okx) {
		snprintf(r->err, sizeof(r->err), "%s expired while it was written (its TTL is %s s: --timeout x %d)",
			 ps->tmp, ps->ttl, PUSH_TTL_X);
		return -1;
	}
	return 0;
}

/*
 * MULTI, RENAME, PERSIST, SET or DEL of the metadata, EXEC: every reply
 * read, so the connection stays in step for another try.  0, or -1 with
 * the first error's r->err, r->redir and r->tryagain.
 */
static int rename_txn(struct push *ps)
{
	struct bfctl_redis *r = ps->r;
	const char *multi[] = { "MULTI" }, *exec[] = { "EXEC" };
	const char *ren[] = { "RENAME", ps->tmp, ps->key };
	const char *pers[] = { "PERSIST", ps->key };
	const char *mset[] = { "SET", ps->mkey, ps->meta }, *mdel[] = { "DEL", ps->mkey };
	char err[sizeof(r->err)] = "", redir[sizeof(r->redir)] = "";
	bool ask = false, again = false, okx;
	redisReply *rep;
	int i;

	/* (ASKING before MULTI only: the flag holds until EXEC) */
	if (bfctl_redis_append(r, 1, multi, NULL))
		return -1;
	redisAppendCommandArgv(r->c, 3, ren, NULL);
	redisAppendCommandArgv(r->c, 2, pers, NULL);
	if (ps->meta)
		redisAppendCommandArgv(r->c, 3, mset, NULL);
	else	/* no stale metadata that contradicts the new value */
		redisAppendCommandArgv(r->c, 2, mdel, NULL);
	redisAppendCommandArgv(r->c, 1, exec, NULL);
	for (i = 0; i < 4; i++) {
		if (!reply_ok(r) || r->io_err || err[0])
			continue;
		/* the first error: what the EXECABORT after it is about */
		snprintf(err, sizeof(err), "%s", r->err);
		snprintf(redir, sizeof(redir), "%s", r->redir);
		ask = r->redir_ask;
		again = r->tryagain;
	}
	if (r->io_err)
		return -1;
	rep = bfctl_redis_reply(r);
	if (!rep && err[0]) {
		snprintf(r->err, sizeof(r->err), "%s", err);
		snprintf(r->redir, sizeof(r->redir), "%s", redir);
		r->redir_ask = ask;
		r->tryagain = again;
	}
	if (!rep)
		return -1;
	okx = rep->type == REDIS_REPLY_ARRAY && rep->elements == 3 &&
	      rep->element[0]->type == REDIS_REPLY_STATUS;
	freeReplyObject(rep);
	if (!okx) {
		snprintf(r->err, sizeof(r->err), "RENAME %s %s failed", ps->tmp,
			 ps->key);
		r->redir[0] = 0;
		r->tryagain = false;
		return -1;
	}
	return 0;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* the transaction, again while the slot is TRYAGAIN */
static int rename_tryagain(struct push *ps)
{
	double wait = PUSH_TRYAGAIN_MIN, waited = 0;
	int ret;

	for (;;) {
		ret = rename_txn(ps);
		if (!ret || ps->r->io_err || !ps->r->tryagain ||
		    waited >= ps->budget)
			return ret;
		if (!waited && !bfctl_quiet)
			fprintf(stderr, "bfctl: redis push: %s: its slot is migrating (TRYAGAIN): trying again for up to %g s\n",
				ps->key, ps->budget);
		nap(wait);
		waited += wait;
		wait = wait * 2 > PUSH_TRYAGAIN_MAX ? PUSH_TRYAGAIN_MAX : wait * 2;
	}
}

int bfctl_redis_push(struct bfctl_redis_topo *t, struct bfctl_redis *r,
		     const char *key, const u8 *data, u64 len, const char *meta)
{
	struct push ps = { .r = r, .key = key, .meta = meta };
	int i, ret;

	/* --timeout, if shorter, bounds it too */
	ps.budget = PUSH_TRYAGAIN_S;
	if (r->o->timeout_ms > 0 && r->o->timeout_ms / 1000.0 < ps.budget)
		ps.budget = r->o->timeout_ms / 1000.0;
	push_ttl(&ps);
	if (bfctl_redis_sibling(ps.mkey, sizeof(ps.mkey), key, "kbloom-meta") ||
	    bfctl_redis_sibling(ps.tmp, sizeof(ps.tmp), key, "kbloom-tmp-") ||
	    strlen(ps.tmp) + 17 > sizeof(ps.tmp))
		return bfctl_fail(BFCTL_USAGE, "redis push", "key name too long");
	for (i = 0; ; i++) {
		r->redir[0] = 0;
		r->tryagain = false;
		ret = write_tmp(&ps, data, len);
		if (!ret)
			ret = rename_tryagain(&ps);
		if (!ret)
			return BFCTL_OK;
		/* a MOVED or an ASK: again, whole, on that node */
		if (r->io_err || !r->redir[0])
			break;
		drop_tmp(&ps);	/* (written here, or not at all) */
		if (bfctl_redis_topo_follow(t, r, i))
			break;
	}
	/* the pipeline is out of step: done */
	r->io_err = true;
	if (!bfctl_redis_stop)
		drop_tmp(&ps);
	if (r->tryagain)
		return bfctl_fail(BFCTL_ERR, "redis push", "%s (still, after trying again for %g s: a slot stuck migrating?); %s unchanged",
				  r->err, ps.budget, key);
	return bfctl_fail(BFCTL_ERR, "redis push", "%s; %s unchanged", r->err,
			  key);
}
