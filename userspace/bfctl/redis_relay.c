// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis relay KEY: one process per key that turns the changes of
 * the key into a Redis Stream of deltas, so that a fleet of watchers
 * reads what changed instead of the whole value at every change
 * (docs/redis.md, "The stream of deltas").
 *
 * One relay per key writes, elected by a lease: SET LEASE TOKEN NX PX,
 * renewed every third of --lease-ms, taken over by another relay once it
 * lapses.  Every entry is added by a script that checks the lease first,
 * so a relay that lost it (paused, partitioned) never writes after its
 * successor began.  The lease and the stream are sibling keys of KEY, in
 * its hash slot.  A relay that takes the lease starts an epoch (a new
 * random id) with a sync entry: the watchers pull the value whole once,
 * since what changed while no relay ran is in no delta.
 *
 * It follows the key as watch does (keyspace events, else a poll), reads
 * the value with pull's bounded, fenced read, and compares it with its
 * last copy: bytes that only gained bits go out as a delta (offset and
 * new bytes); a bit that went from 1 to 0 (SETBIT 0, a rebuild by
 * RENAME, a DEL) goes out as a reset, after which watchers pull whole.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "redis_read.h"
#include "redis_delta.h"

#define stop bfctl_redis_stop
#define now_s bfctl_redis_now

/* the lease is ours: renew it (1), or it is not (0) */
static const char renew_lua[] =
	"if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end\n"
	"redis.call('pexpire', KEYS[1], ARGV[2])\n"
	"return 1\n";
/* an entry, only while the lease is ours (renewed with it): its id, or 0 */
static const char xadd_lua[] =
	"if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end\n"
	"redis.call('pexpire', KEYS[1], ARGV[2])\n"
	"return redis.call('xadd', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', unpack(ARGV, 4))\n";

/* the lease given back (a relay that stops) */
static const char release_lua[] =
	"if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end\n"
	"return redis.call('del', KEYS[1])\n";

struct relay {
	const struct bfctl_redis_opts *o;
	const struct bfctl_redis_watch_opts *w;
	struct bfctl_redis_pull *pl;
	struct bfctl_redis r, sub;
	struct bfctl_redis_topo topo;	/* where r is: Sentinel's primary */
	struct bfctl_redis ss;		/* Sentinel's +switch-master */
	bool up, notify, leader, present;
	bool standby;		/* said so */
	char lease[BFCTL_REDIS_KEY_MAX + 64], stream[BFCTL_REDIS_KEY_MAX + 64];
	char token[17], epoch[17], ms[16], maxlen[24];
	u64 seq;
	u8 *copy;		/* the value as the last entry left it */
	u64 len;
	struct bfctl_redis_diff df;
	int ev;			/* RSUB_* since the last read */
	double backoff, next_try, next_lease, next_sync, next_poll, due;
	double first_ev;
};

static void say(struct relay *s, const char *st, const char *detail,
		const char *id, u64 bytes)
{
	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("key", s->pl->key);
		bfctl_json_str("status", st);
		if (s->leader)
			bfctl_json_str("epoch", s->epoch);
		if (id) {
			bfctl_json_str("entry", id);
			bfctl_json_u64("seq", s->seq);
			bfctl_json_u64("bytes", bytes);
		}
		if (detail)
			bfctl_json_str("detail", detail);
		bfctl_json_close_obj();
		bfctl_json_end();
		return;
	}
	if (bfctl_quiet && strcmp(st, "error") && strcmp(st, "disconnected"))
		return;
	printf("%s: %s", s->pl->key, st);
	if (id)
		printf(" (entry %s, %llu bytes)", id, (unsigned long long)bytes);
	if (detail)
		printf(": %s", detail);
	putchar('\n');
	fflush(stdout);
}

static void hex16(char *out)
{
	u64 v;

	if (kbu_random(&v, sizeof(v)))
		v = (u64)random() << 32 ^ (u64)random() ^ (u64)now_s();
	snprintf(out, 17, "%016llx", (unsigned long long)v);
}

static void disconnect(struct relay *s, const char *why)
{
	say(s, "disconnected", why, NULL, 0);
	bfctl_redis_close(&s->ss);
	bfctl_redis_close(&s->sub);
	bfctl_redis_close(&s->r);
	s->up = s->notify = s->leader = s->standby = false;
	s->next_try = bfctl_redis_retry_at(&s->backoff);
}

/* a script's reply: 1 yes (id: a bulk reply), 0 no (not our lease), -1 */
static int lease_cmd(struct relay *s, int argc, const char **argv,
		     const size_t *lens, char *id, size_t idlen)
{
	redisReply *rep = bfctl_redis_cmd(&s->r, argc, argv, lens);
	int ret;

	if (!rep)
		return -1;
	if (rep->type == REDIS_REPLY_STRING && id) {
		snprintf(id, idlen, "%s", rep->str);
		ret = 1;
	} else {
		ret = rep->type == REDIS_REPLY_INTEGER && rep->integer == 1;
	}
	freeReplyObject(rep);
	return ret;
}

/*
 * An entry: v, t, e, s and n, then the type's own field.  1 added, 0 the
 * lease is lost (the relay stands by), -1 the connection broke.
 */
static int add_entry(struct relay *s, const char *type, const char *k6,
		     const void *v6, size_t l6, u64 bytes)
{
	char seq[24], n[24], id[64];
	const char *argv[] = { "EVAL", xadd_lua, "2", s->lease, s->stream,
			       s->token, s->ms, s->maxlen,
			       "v", BFCTL_REDIS_DELTA_VER, "t", type,
			       "e", s->epoch, "s", seq, "n", n, k6, v6 };
	size_t lens[ARRAY_SIZE(argv)];
	size_t i;
	int ret;

	snprintf(seq, sizeof(seq), "%llu", (unsigned long long)s->seq);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)s->len);
	for (i = 0; i + 1 < ARRAY_SIZE(argv); i++)
		lens[i] = strlen(argv[i]);
	lens[i] = l6;
	ret = lease_cmd(s, (int)ARRAY_SIZE(argv), argv, lens, id, sizeof(id));
	if (ret < 0)
		return -1;
	if (!ret) {
		s->leader = false;
		s->standby = true;
		say(s, "standby", "the lease went to another relay", NULL, 0);
		return 0;
	}
	say(s, type, !strcmp(type, "reset") ? (const char *)v6 : NULL, id,
	    bytes);
	s->seq++;
	return 1;
}

static int add_sync(struct relay *s)
{
	char crc[9];
	int ret;

	snprintf(crc, sizeof(crc), "%08x",
		 bfctl_redis_value_crc(s->copy, s->present ? s->len : 0));
	ret = add_entry(s, "sync", "c", crc, 8, 0);
	if (ret > 0)
		s->next_sync = now_s() + s->w->sync_s;
	return ret;
}

static int add_reset(struct relay *s, const char *why)
{
	return add_entry(s, "reset", "r", why, strlen(why), 0);
}

/*
 * The value, read whole and fenced (WATCH/EXEC) as pull reads it, into
 * *v (the caller frees it): 0, BFCTL_ABSENT, or -1 (pl->why).
 */
static int read_whole(struct relay *s, u8 **v, u64 *len)
{
	struct bfctl_redis_fetch fx = { .dev = -1, .out.fd = -1 };
	struct bfctl_redis_pull *pl = s->pl;
	u32 tries;
	int ret = -1;

	bfctl_redis_deadline(s->o);
	for (tries = 0; tries < BFCTL_REDIS_TRIES; tries++) {
		if (bfctl_redis_fence_begin(&s->r, NULL, pl))
			goto out;
		ret = bfctl_redis_read_value(&s->r, pl, &fx, !tries);
		if (ret == BFCTL_ABSENT || ret < 0)
			goto out;
		if (!ret)
			ret = bfctl_redis_fence_end(&s->r, NULL, pl);
		else if (bfctl_redis_unwatch(&s->r))
			ret = bfctl_redis_pull_rfail(pl, &s->r);
		if (ret < 0)
			goto out;
		if (!ret)
			break;
	}
	if (tries == BFCTL_REDIS_TRIES) {
		ret = bfctl_redis_pull_fail(pl, "%s: the value changed during each of %u reads",
					    pl->key, BFCTL_REDIS_TRIES);
		goto out;
	}
	*v = fx.img;
	*len = fx.len;
	fx.img = NULL;
out:
	if (ret && s->r.c && !s->r.io_err)
		bfctl_redis_unwatch(&s->r);
	free(fx.img);
	return ret ? (ret == BFCTL_ABSENT ? BFCTL_ABSENT : -1) : 0;
}

/* take the value as the relay's copy */
static void keep(struct relay *s, u8 *v, u64 len, bool present)
{
	free(s->copy);
	s->copy = v;
	s->len = present ? len : 0;
	s->present = present;
}

/* read the value and say what changed; -1 when disconnected */
static int relay_change(struct relay *s)
{
	u8 *v = NULL;
	u64 len = 0;
	int ret, ev = s->ev;

	s->ev = 0;
	s->due = s->first_ev = -1;
	ret = read_whole(s, &v, &len);
	if (ret < 0) {
		if (s->r.io_err) {
			disconnect(s, s->r.err);
			return -1;
		}
		say(s, "error", s->pl->why, NULL, 0);
		return 0;
	}
	if (ret == BFCTL_ABSENT) {
		free(v);
		if (!s->present)
			return 0;
		keep(s, NULL, 0, false);
		ret = add_reset(s, "del");
		goto done;
	}
	if (!s->present) {
		keep(s, v, len, true);
		ret = add_reset(s, "new");
		goto done;
	}
	if (ev & RSUB_OTHER) {
		/* a rebuild (RENAME, SET): its own value, whatever it holds */
		keep(s, v, len, true);
		ret = add_reset(s, "rebuild");
		goto done;
	}
	bfctl_redis_diff(s->copy, s->len, v, len, &s->df);
	if (s->df.cleared || s->df.big) {
		keep(s, v, len, true);
		ret = add_reset(s, s->df.cleared ? "clear" : "big");
		goto done;
	}
	if (!s->df.nr) {
		free(v);
		return 0;
	}
	keep(s, v, len, true);
	ret = add_entry(s, "delta", "d", s->df.d, s->df.dlen, s->df.dlen);
done:
	if (ret < 0)
		disconnect(s, s->r.err);
	return ret < 0 ? -1 : 0;
}

/* take the lease (or keep it); on taking it, start an epoch */
static int lease(struct relay *s)
{
	const char *set[] = { "SET", s->lease, s->token, "NX", "PX", s->ms };
	const char *ren[] = { "EVAL", renew_lua, "1", s->lease, s->token, s->ms };
	redisReply *rep;
	bool got;
	u8 *v = NULL;
	u64 len = 0;
	int ret;

	s->next_lease = now_s() + s->w->lease_ms / 3000.0;
	bfctl_redis_deadline(s->o);
	ret = lease_cmd(s, 6, ren, NULL, NULL, 0);
	if (ret < 0)
		goto io;
	if (ret) {
		if (s->leader)
			return 0;
		got = true;	/* ours still, from before a reconnect */
	} else {
		if (s->leader) {
			s->leader = false;
			s->standby = true;
			say(s, "standby", "the lease lapsed and went to another relay",
			    NULL, 0);
		}
		rep = bfctl_redis_cmd(&s->r, 6, set, NULL);
		if (!rep)
			goto io;
		got = rep->type == REDIS_REPLY_STATUS;
		freeReplyObject(rep);
	}
	if (!got) {
		if (!s->standby)
			say(s, "standby", "another relay holds the lease", NULL, 0);
		s->standby = true;
		return 0;
	}
	s->standby = false;
	/* a new epoch: watchers pull whole once, then follow its deltas */
	hex16(s->epoch);
	s->seq = 0;
	s->leader = true;
	s->ev = 0;
	ret = read_whole(s, &v, &len);
	if (ret < 0 && s->r.io_err)
		goto io;
	if (ret < 0) {
		/* nothing to start from: give the lease back to a try later */
		say(s, "error", s->pl->why, NULL, 0);
		free(v);
		s->leader = false;
		return 0;
	}
	keep(s, ret ? NULL : v, len, !ret);
	if (ret)
		free(v);
	say(s, "leader", "took the lease: a new epoch", NULL, 0);
	if (add_sync(s) < 0)
		goto io;
	return 0;
io:
	disconnect(s, s->r.err);
	return -1;
}

static void connect_up(struct relay *s)
{
	bfctl_redis_deadline(s->o);
	memset(&s->sub, 0, sizeof(s->sub));
	/*
	 * Where the key is written: Sentinel's primary (after a failover the
	 * new one: the lease taken there, a new epoch), a Cluster's node
	 */
	if (bfctl_redis_topo_connect(&s->topo, &s->r))
		return disconnect(s, s->r.err);
	if (s->topo.note[0])
		say(s, s->topo.failover ? "failover" : "topology", s->topo.note,
		    NULL, 0);
	s->notify = bfctl_redis_notify_on(&s->r);
	if (s->r.io_err)
		return disconnect(s, s->r.err);
	/* (the node r is on, not the URL's: a sentinel) */
	if (s->notify && (bfctl_redis_connect(&s->sub, s->r.o) ||
			  bfctl_redis_subscribe(&s->sub, s->pl->key)))
		return disconnect(s, s->sub.err);
	/* a failover told at once (the old primary may stay reachable) */
	if (s->o->sentinel)
		bfctl_redis_topo_sentinel_sub(&s->topo, &s->ss);
	s->up = true;
	s->backoff = BFCTL_REDIS_BACKOFF_MIN;
	s->next_poll = now_s() + (s->notify ? s->w->poll_s : s->w->poll_off_s);
	say(s, "connected", s->notify ? "following keyspace events" :
	    "no keyspace events: polling", NULL, 0);
	lease(s);
}

static void note(struct relay *s, int ev)
{
	if (!ev)
		return;
	s->ev |= ev;
	bfctl_redis_debounce(&s->due, &s->first_ev, s->w->debounce_s);
}

static double next_at(const struct relay *s)
{
	double until;

	if (!s->up)
		return s->next_try;
	until = s->next_lease;
	if (s->leader) {
		if (s->due >= 0 && s->due < until)
			until = s->due;
		if (s->next_poll < until)
			until = s->next_poll;
		if (s->w->sync_s > 0 && s->next_sync < until)
			until = s->next_sync;
	}
	return until;
}

static void relay_loop(struct relay *s, const sigset_t *mask)
{
	struct pollfd pfd[3];
	struct timespec ts;
	int n, ev;

	while (!stop) {
		if (!s->up && now_s() >= s->next_try)
			connect_up(s);
		pfd[0].fd = s->up && s->notify ? s->sub.c->fd : -1;
		pfd[1].fd = s->up ? s->r.c->fd : -1;
		pfd[2].fd = s->up && s->ss.c ? s->ss.c->fd : -1;
		pfd[0].events = pfd[1].events = pfd[2].events = POLLIN;
		pfd[0].revents = pfd[1].revents = pfd[2].revents = 0;
		n = ppoll(pfd, 3, bfctl_redis_timeout(next_at(s), &ts), mask);
		if (stop)
			break;
		if (n > 0 && pfd[2].revents &&
		    bfctl_redis_topo_sentinel_poll(&s->topo, &s->ss) > 0) {
			s->backoff = BFCTL_REDIS_BACKOFF_MIN / 2;
			disconnect(s, "Sentinel: +switch-master: a failover");
			continue;
		}
		if (n > 0 && pfd[1].revents) {
			if (bfctl_redis_idle_read(&s->r))
				disconnect(s, s->r.err);
			continue;
		}
		if (n > 0 && pfd[0].revents) {
			ev = 0;
			if (bfctl_redis_sub_poll(&s->sub, &ev)) {
				disconnect(s, s->sub.err);
				continue;
			}
			note(s, ev);
		}
		if (!s->up)
			continue;
		if (now_s() >= s->next_lease && lease(s))
			continue;
		if (!s->leader) {
			s->ev = 0;
			s->due = s->first_ev = -1;
			continue;
		}
		if ((s->due >= 0 && now_s() >= s->due) || now_s() >= s->next_poll) {
			s->next_poll = now_s() +
				       (s->notify ? s->w->poll_s : s->w->poll_off_s);
			if (relay_change(s))
				continue;
		}
		if (s->leader && s->w->sync_s > 0 && now_s() >= s->next_sync &&
		    add_sync(s) < 0)
			disconnect(s, s->r.err);
	}
}

int bfctl_redis_relay(const struct bfctl_redis_opts *o,
		      struct bfctl_redis_pull *pl,
		      const struct bfctl_redis_watch_opts *w)
{
	struct relay s;
	u64 seed;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.w = w;
	s.pl = pl;
	s.backoff = BFCTL_REDIS_BACKOFF_MIN;
	s.due = s.first_ev = -1;
	bfctl_redis_topo_init(&s.topo, o, pl->key);
	s.df.d = malloc(BFCTL_REDIS_DELTA_MAX);
	if (!s.df.d)
		return bfctl_fail(BFCTL_ERR, "redis relay", "out of memory");
	if (bfctl_redis_sibling(s.lease, sizeof(s.lease), pl->key,
				BFCTL_REDIS_LEASE_SFX) ||
	    bfctl_redis_sibling(s.stream, sizeof(s.stream), pl->key,
				BFCTL_REDIS_STREAM_SFX)) {
		free(s.df.d);
		return bfctl_fail(BFCTL_USAGE, "redis relay", "key name too long");
	}
	snprintf(s.ms, sizeof(s.ms), "%u", w->lease_ms);
	snprintf(s.maxlen, sizeof(s.maxlen), "%llu",
		 (unsigned long long)w->maxlen);
	if (kbu_random(&seed, sizeof(seed)))
		seed = (u64)now_s();
	srandom((unsigned int)seed);
	hex16(s.token);
	relay_loop(&s, bfctl_redis_signals());
	/* hand the lease over at once: a successor need not wait it out */
	if (s.up && s.leader) {
		const char *rel[] = { "EVAL", release_lua, "1", s.lease, s.token };

		/* (the signal that ended the loop would end this wait too) */
		stop = 0;
		bfctl_redis_deadline(o);
		lease_cmd(&s, 5, rel, NULL, NULL, 0);
		stop = 1;
	}
	s.leader = false;
	say(&s, "stopped", NULL, NULL, 0);
	bfctl_redis_close(&s.ss);
	bfctl_redis_close(&s.sub);
	bfctl_redis_close(&s.r);
	free(s.copy);
	free(s.df.d);
	return BFCTL_OK;
}
