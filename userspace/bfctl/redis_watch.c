// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis watch NAME KEY: keep a kernel filter equal to a Redis key,
 * for as long as it runs (one systemd unit per filter).
 *
 * It subscribes to the key's keyspace events first and pulls after, so
 * no change falls between the two.  Events come in bursts (one go-zero
 * Add is up to 14 setbit events): a pull runs --debounce after the last
 * event of a burst, and at the latest 10 debounces after its first, so a
 * steady stream of adds still reaches the kernel.  A connection that
 * breaks is reconnected with exponential backoff and jitter (so a fleet
 * does not reconnect in step when Redis restarts), re-subscribed, and
 * pulled again: events published while disconnected are lost.  A pull
 * also runs every --poll seconds, in case an event was lost anyway; it
 * also compares the kernel filter with
 * what the last pull left (its generation, bits set and count), and loads
 * the value again if someone else flushed, added to or replaced it.  A key that disappears leaves the filter as
 * it was, reported "stale" (--empty-on-delete empties it).  A failed pull
 * (a value that is not one, a wrong --bits) leaves the filter serving
 * and is reported; the watcher goes on.  SIGTERM and SIGINT end it
 * with status 0, within a pull too (one waiting on Redis is abandoned,
 * nothing loaded).  Each pull (and each connect) must end within
 * --timeout.
 *
 * A default Redis publishes no keyspace events, and CONFIG SET's change
 * is lost when it restarts.  So the watcher asks again (CONFIG GET) at
 * every connect, before every pull and every --events-check seconds:
 * once they are on it subscribes and pulls, and when they go off it
 * drops the subscription and polls (every 30 s unless --poll says
 * otherwise: 300 s of blindness is too long for a blocklist), warning
 * at every poll until someone turns them on (--enable-events does it
 * itself, where CONFIG is allowed).  An idle connection that the server
 * closes (a restart) is noticed at once, also without a subscription.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "redis_delta.h"

#define stop bfctl_redis_stop
#define now_s bfctl_redis_now

static const char *ev_name(int ev)
{
	return ev == BFCTL_REDIS_EV_ON ? "on" :
	       ev == BFCTL_REDIS_EV_OFF ? "off" : "unknown";
}

/* one status line: -j a JSON object, else text (-q: errors only) */
static void status_ev(const struct bfctl_redis_pull *pl, const char *st,
		      const char *detail, const char *ev)
{
	const char *target = pl->out ? pl->out : pl->name;

	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("filter", target);
		bfctl_json_str("key", pl->key);
		bfctl_json_str("status", st);
		if (ev)
			bfctl_json_str("events", ev);
		if (!strcmp(st, "updated") || !strcmp(st, "unchanged")) {
			bfctl_json_u64("bytes", pl->value_len);
			bfctl_json_str("kind", kb_kind_name(pl->p.kind));
			bfctl_json_u64("m", pl->p.m);
			bfctl_json_u64("retries", pl->retries);
		}
		if (!strcmp(st, "merged")) {
			bfctl_json_u64("bytes", pl->delta_bytes);
			bfctl_json_str("entry", pl->delta_id);
		}
		if (detail)
			bfctl_json_str("detail", detail);
		bfctl_json_close_obj();
		bfctl_json_end();
		return;
	}
	if (bfctl_quiet && strcmp(st, "error") && strcmp(st, "refused") &&
	    strcmp(st, "mismatch") && strcmp(st, "disconnected"))
		return;
	printf("%s %s: %s", target, pl->key, st);
	if (!strcmp(st, "updated"))
		printf(" (%llu bytes, %u re-reads)",
		       (unsigned long long)pl->value_len, pl->retries);
	if (!strcmp(st, "merged"))
		printf(" (%llu bytes, entry %s)",
		       (unsigned long long)pl->delta_bytes, pl->delta_id);
	if (detail)
		printf(": %s", detail);
	putchar('\n');
	fflush(stdout);
}

#define status(pl, st, detail) status_ev(pl, st, detail, NULL)

void bfctl_redis_watch_status(const struct bfctl_redis_pull *pl,
			      const char *st, const char *detail)
{
	status(pl, st, detail);
}

struct watch {
	const struct bfctl_redis_opts *o;
	const struct bfctl_redis_watch_opts *w;
	struct bfctl_redis_pull *pl;
	struct bfctl_redis r, sub;
	struct bfctl_redis_topo topo;	/* where r is (redis_topo.c) */
	struct bfctl_redis ss;		/* Sentinel's +switch-master */
	struct kbconn kc;
	struct bfctl_redis_follow f;	/* a relay's stream */
	bool no_relay;		/* --no-relay, or -o that is not a file */
	bool said_image;	/* the value is an image: said once */
	double relay_off_until;	/* the stream refused us: events till then */
	bool up, notify;
	int ev;			/* BFCTL_REDIS_EV_*: what the last check said */
	char ev_why[256];	/* why it is unknown, or --enable-events failed */
	double backoff, next_try;
	double due, first_ev;	/* a pull's time, the burst's start; <0 none */
	double next_poll, next_check;
};

static void disconnect(struct watch *s, const char *why)
{
	status(s->pl, "disconnected", why);
	bfctl_redis_close(&s->ss);
	bfctl_redis_follow_stop(&s->f);
	bfctl_redis_close(&s->sub);
	bfctl_redis_close(&s->r);
	s->up = false;
	s->notify = false;
	s->next_try = bfctl_redis_retry_at(&s->backoff);
}

static double poll_s(const struct watch *s)
{
	return s->notify ? s->w->poll_s : s->w->poll_off_s;
}

/*
 * Loud, and again at every poll while it lasts: a watcher without
 * events is minutes behind, and nothing else would tell.
 */
static void warn_events(struct watch *s)
{
	char msg[768];
	const char *st = ev_name(s->ev);

	if (s->ev == BFCTL_REDIS_EV_ON)
		return;
	snprintf(msg, sizeof(msg), "%s%s%s; changes are seen only every %g s; turn them on: CONFIG SET notify-keyspace-events %s (added to what is set), notify-keyspace-events %s in redis.conf, or --enable-events",
		 s->ev == BFCTL_REDIS_EV_OFF ?
		 "the server publishes no keyspace events" :
		 "cannot tell whether the server publishes keyspace events",
		 s->ev_why[0] ? ": " : "", s->ev_why, poll_s(s),
		 BFCTL_REDIS_EV_FLAGS, BFCTL_REDIS_EV_FLAGS);
	if (bfctl_json) {
		status_ev(s->pl, "events", msg, st);
		return;
	}
	fprintf(stderr, "bfctl: redis watch: %s %s: events %s: %s\n",
		s->pl->out ? s->pl->out : s->pl->name, s->pl->key, st, msg);
}

/* how long a stream that cannot be read is left for keyspace events */
#define RELAY_OFF_S	60.0

/*
 * The stream answered with an error (WRONGTYPE: the key is no stream,
 * NOPERM for XREAD or XREVRANGE) or an entry past the bounds: the server
 * is fine, so reconnecting would only loop.  Keyspace events for a
 * while, and a whole pull.
 */
static void stream_refused(struct watch *s, const char *err)
{
	char msg[400];

	/* (before err, which may be f->xr's, is cleared with it) */
	snprintf(msg, sizeof(msg), "the stream cannot be followed (%.250s): following keyspace events for %g s; pulling whole",
		 err, RELAY_OFF_S);
	bfctl_redis_follow_stop(&s->f);
	s->relay_off_until = now_s() + RELAY_OFF_S;
	s->due = now_s();
	status(s->pl, "relay", msg);
}

/*
 * A value that is an image, not go-zero bits: a delta's bytes are not
 * its payload (every merge would be ESTALE, a whole pull per change).
 * Not followed while the value is one; said once.
 */
static bool value_unmergeable(struct watch *s)
{
	char msg[200];

	if (!s->pl->p.m || s->pl->p.kind == KB_KIND_GOZERO) {
		s->said_image = false;
		return false;
	}
	if (s->f.on)
		bfctl_redis_follow_stop(&s->f);
	if (!s->said_image) {
		snprintf(msg, sizeof(msg), "the value is an image of a %s filter, not go-zero bits: no delta merges into it; following keyspace events",
			 kb_kind_name(s->pl->p.kind));
		status(s->pl, "relay", msg);
		s->said_image = true;
	}
	return true;
}

/*
 * Does a relay hold the lease?  Follow its stream (after a fenced pull),
 * or, once it is gone, keyspace events again (after a pull: what changed
 * since the relay's last entry).  0, or -1 when disconnected.
 */
static int relay_check(struct watch *s)
{
	int ret;

	if (s->no_relay || now_s() < s->relay_off_until ||
	    value_unmergeable(s))
		return 0;
	ret = bfctl_redis_follow_lease(&s->r, &s->f);
	/*
	 * The key's slot moving (ASK, MOVED): the pull follows it, and
	 * looks again on the new node (s->topo.moved); no disconnect
	 */
	if (ret < 0 && !s->r.io_err && s->r.redir[0])
		return 0;
	if (ret < 0) {
		disconnect(s, s->r.err);
		return -1;
	}
	if (ret && !s->f.on) {
		/*
		 * The node r reads from (the topology's choice: the primary,
		 * a replica, the key's cluster node), not the URL's: the
		 * fence and the pull must read the same server
		 */
		if (bfctl_redis_connect(&s->f.xr, s->r.o)) {
			disconnect(s, s->f.xr.err);
			return -1;
		}
		s->f.on = true;
		s->f.synced = false;
		s->f.ms = s->f.sq = 0;
		s->due = now_s();
		status(s->pl, "relay", "a relay holds the lease: following its stream");
	} else if (!ret && s->f.on) {
		bfctl_redis_follow_stop(&s->f);
		s->due = now_s();
		status(s->pl, "relay", "no relay holds the lease: following keyspace events");
	}
	return 0;
}

/*
 * Are the events on (and may they be turned on)?  Subscribe when they
 * came on, drop the subscription when they went off.  0, or -1 when
 * disconnected.
 */
static int check_events(struct watch *s)
{
	int ev, was = s->notify;

	s->next_check = now_s() + s->w->recheck_s;
	s->ev_why[0] = 0;
	bfctl_redis_deadline(s->o);
	ev = bfctl_redis_events(&s->r);
	if (ev != BFCTL_REDIS_EV_ON && ev != BFCTL_REDIS_EV_IO &&
	    s->w->enable_events) {
		if (bfctl_redis_events_enable(&s->r)) {
			snprintf(s->ev_why, sizeof(s->ev_why),
				 "--enable-events failed: %.200s",
				 s->r.err);
			if (!s->r.io_err)
				ev = bfctl_redis_events(&s->r);
		} else {
			ev = bfctl_redis_events(&s->r);
		}
	}
	if (ev == BFCTL_REDIS_EV_IO || s->r.io_err) {
		disconnect(s, s->r.err);
		return -1;
	}
	if (ev == BFCTL_REDIS_EV_UNKNOWN && !s->ev_why[0])
		snprintf(s->ev_why, sizeof(s->ev_why), "CONFIG GET refused: %.200s",
			 s->r.err);
	s->ev = ev;
	if (ev == BFCTL_REDIS_EV_ON && !s->notify) {
		memset(&s->sub, 0, sizeof(s->sub));
		/* the node read from: events are node-local in a cluster */
		if (bfctl_redis_connect(&s->sub, s->r.o) ||
		    bfctl_redis_subscribe(&s->sub, s->pl->key)) {
			disconnect(s, s->sub.err);
			return -1;
		}
		s->notify = true;
	} else if (ev != BFCTL_REDIS_EV_ON && s->notify) {
		bfctl_redis_close(&s->sub);
		memset(&s->sub, 0, sizeof(s->sub));
		s->notify = false;
	}
	if (s->notify != was) {
		/* subscribed first, then pulled: nothing falls between */
		if (s->notify)
			s->due = now_s();
		if (s->w->poll_s > 0)
			s->next_poll = now_s() + poll_s(s);
		if (s->up)
			status_ev(s->pl, "events", s->notify ?
				  "keyspace events are on: following them" :
				  "keyspace events went off: polling",
				  ev_name(s->ev));
	}
	return s->up ? relay_check(s) : 0;
}

static void connect_up(struct watch *s)
{
	char msg[160];

	memset(&s->sub, 0, sizeof(s->sub));
	s->notify = false;
	bfctl_redis_deadline(s->o);
	if (bfctl_redis_topo_connect(&s->topo, &s->r))
		return disconnect(s, s->r.err);
	/* a failover, a replica passed over: said once per connect */
	if (s->topo.note[0])
		status(s->pl, s->topo.failover ? "failover" : "topology",
		       s->topo.note);
	if (check_events(s))
		return;
	if (bfctl_redis_topo_single(&s->topo, &s->r, s->notify))
		return disconnect(s, s->r.err);
	/* a failover told at once (the old primary may stay reachable) */
	if (s->o->sentinel)
		bfctl_redis_topo_sentinel_sub(&s->topo, &s->ss);
	s->up = true;
	if (s->notify)
		snprintf(msg, sizeof(msg), "following keyspace events");
	else
		snprintf(msg, sizeof(msg), "no keyspace events: polling every %g s",
			 poll_s(s));
	status_ev(s->pl, "connected", msg, ev_name(s->ev));
	/* a full pull (it warns if events are off): what changed meanwhile */
	s->due = now_s();
	relay_check(s);
}

/* a SETBIT heard, no entry after it in time: pull whole, say why */
static void relay_silent(struct watch *s)
{
	struct bfctl_redis_follow *f = &s->f;
	char msg[200];

	if (!f->quiet_until)
		return;
	/* a whole pull is due already (rationed): it reads the SETBITs */
	if (!f->on || f->sp_pending || f->ms > f->q_ms || (f->ms == f->q_ms && f->sq > f->q_sq)) {
		f->quiet_until = 0;
		return;
	}
	if (now_s() < f->quiet_until)
		return;
	f->quiet_until = 0;
	snprintf(msg, sizeof(msg), "a SETBIT with no stream entry after it within %g s: the relay holding the lease is not writing (gone, or its XADDs fail); pulling whole",
		 s->w->debounce_s + s->w->lease_ms / 1000.0);
	status(s->pl, "resync", msg);
	s->due = now_s();
}

/* events: a pull after the burst */
static void note_events(struct watch *s, int ev)
{
	double t = now_s(), d = s->w->debounce_s;

	/*
	 * Following a relay: its stream brings the bits set, if it writes
	 * (a lease with no live relay, or XADDs that fail, bring nothing):
	 * an entry is due within the debounce and a lease
	 */
	if (s->f.on && (ev & RSUB_SETBIT)) {
		ev &= ~RSUB_SETBIT;
		if (!s->f.quiet_until) {
			s->f.quiet_until = t + d + s->w->lease_ms / 1000.0;
			s->f.q_ms = s->f.ms;
			s->f.q_sq = s->f.sq;
		}
	}
	if (ev)	/* a pull after the burst */
		bfctl_redis_debounce(&s->due, &s->first_ev, d);
}

static void pull(struct watch *s)
{
	struct bfctl_redis_pull *pl = s->pl;
	int ret, ev = 0;

	s->f.sp_pending = false;	/* what the stream asked for: this pull */

	/* events turned on or off since: subscribe (or drop it) first */
	if (check_events(s))
		return;
	s->due = s->first_ev = -1;
	if (s->w->poll_s > 0)
		s->next_poll = now_s() + poll_s(s);
	warn_events(s);
	pl->fence_ev = 0;
	bfctl_redis_deadline(s->o);
	/* the stream's last entry first: the value read holds what it says */
	if (s->f.on && bfctl_redis_follow_fence(&s->r, &s->f)) {
		if (s->r.io_err && !s->r.too_big)
			return disconnect(s, s->r.err);
		if (s->r.redir[0]) {
			/* the slot moved: the pull follows it, then following starts again */
			bfctl_redis_follow_stop(&s->f);
		} else {
			stream_refused(s, s->r.err);
			/* an entry past the bounds: r is out of step */
			if (s->r.io_err)
				return disconnect(s, s->r.err);
		}
	}
	ret = bfctl_redis_topo_pull(&s->topo, &s->r,
				    s->notify ? &s->sub : NULL, &s->kc, pl);
	if (stop)	/* SIGTERM or SIGINT cut the pull short: nothing loaded */
		return;
	if (s->r.io_err || s->sub.io_err)
		return disconnect(s, s->r.io_err ? s->r.err : s->sub.err);
	/*
	 * The key's slot moved: subscribe on its new node, and follow the
	 * stream there (the fence was read on the old one): a full pull
	 */
	if (s->topo.moved && s->f.on)
		bfctl_redis_follow_stop(&s->f);
	if (s->topo.moved && s->notify) {
		bfctl_redis_close(&s->sub);
		s->notify = false;
		if (check_events(s))
			return;
	} else if (s->topo.moved && relay_check(s)) {
		return;
	}
	if (s->f.on)
		value_unmergeable(s);	/* an image was pulled: stop */
	if (s->f.on && !s->topo.moved) {
		bfctl_redis_follow_pulled(&s->f, pl, ret == BFCTL_OK);
		if (bfctl_redis_follow_send(&s->f))
			return disconnect(s, s->f.xr.err);
	}
	/*
	 * Backoff starts again only after a pull that ran to its end: a server
	 * that accepts connections but breaks every read (an output buffer
	 * limit, a timeout too short for the value) is not read in a loop.
	 */
	s->backoff = BFCTL_REDIS_BACKOFF_MIN;
	if (ret == BFCTL_OK)
		status(pl, pl->unchanged ? "unchanged" : "updated",
		       pl->diverged ? "the kernel filter was changed outside the watcher: loaded again" :
		       NULL);
	else if (ret != BFCTL_ABSENT)
		status(pl, pl->refused ? "refused" : "error", pl->why);
	else if (!s->w->empty_on_delete || !pl->p.m)
		status(pl, "stale", "the key is gone: the filter keeps its last value");
	else if (bfctl_redis_pull_empty(&s->kc, pl))
		status(pl, "error", pl->why);
	else
		status(pl, "emptied", "the key is gone (--empty-on-delete)");
	/* the pull read them: a SETBIT after it waits for its own entry */
	s->f.quiet_until = 0;
	/* bits set during the read, and what came after the fence */
	if (s->notify && bfctl_redis_sub_poll(&s->sub, &ev))
		return disconnect(s, s->sub.err);
	note_events(s, ev | (pl->fence_ev & RSUB_SETBIT));
}

/*
 * The stream asked for a whole pull: at once, or, after others it asked
 * for, later (bfctl_redis_follow_pull_at()): whoever may XADD to it must
 * not make every follower pull whole at will.  Said when it waits.
 */
static void stream_pull(struct watch *s)
{
	double t = now_s(), at = bfctl_redis_follow_pull_at(&s->f, t);
	char msg[200];

	if (s->due >= 0 && s->due <= at)
		return;
	s->due = at;
	if (at <= t)
		return;
	snprintf(msg, sizeof(msg), "whole pulls the stream asks for are rationed (its writers could make every follower pull at will): this one in %.0f s",
		 at - t);
	status(s->pl, "resync", msg);
}

/* ppoll's timeout until the next thing to do; NULL: none */
static struct timespec *wait_for(struct watch *s, struct timespec *ts)
{
	double until = -1;

	if (!s->up)
		until = s->next_try;
	else if (s->due >= 0)
		until = s->due;
	if (s->up && s->w->poll_s > 0 && (until < 0 || s->next_poll < until))
		until = s->next_poll;
	if (s->up && s->w->recheck_s > 0 && (until < 0 || s->next_check < until))
		until = s->next_check;
	if (s->up && s->f.quiet_until && (until < 0 || s->f.quiet_until < until))
		until = s->f.quiet_until;
	return until < 0 ? NULL : bfctl_redis_timeout(until, ts);
}

/*
 * The idle command connection readable: the server closed it (a restart,
 * a timeout, CLIENT KILL) or sent what nobody asked for.  Either way it
 * is done with.
 */
static void idle_readable(struct watch *s)
{
	if (bfctl_redis_idle_read(&s->r))
		disconnect(s, s->r.err);
}

static void watch_loop(struct watch *s, const sigset_t *run_mask)
{
	struct pollfd pfd[4];
	struct timespec ts;
	int n, ev, i;

	while (!stop) {
		if (!s->up && now_s() >= s->next_try)
			connect_up(s);
		pfd[0].fd = s->up && s->notify ? s->sub.c->fd : -1;
		pfd[1].fd = s->up ? s->r.c->fd : -1;
		pfd[2].fd = s->up && s->ss.c ? s->ss.c->fd : -1;
		pfd[3].fd = s->up && s->f.on && s->f.waiting ? s->f.xr.c->fd : -1;
		for (i = 0; i < 4; i++) {
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		n = ppoll(pfd, 4, wait_for(s, &ts), run_mask);
		if (stop)
			break;
		if (n > 0 && pfd[2].revents &&
		    bfctl_redis_topo_sentinel_poll(&s->topo, &s->ss) > 0) {
			s->backoff = BFCTL_REDIS_BACKOFF_MIN / 2;
			disconnect(s, "Sentinel: +switch-master: a failover");
			continue;
		}
		if (n > 0 && pfd[1].revents) {
			idle_readable(s);
			continue;
		}
		if (n > 0 && pfd[3].revents) {
			/* entries: merged, or a pull is due */
			int due = bfctl_redis_follow_recv(&s->f, &s->kc, s->pl);

			if (due < 0 && (!s->f.xr.io_err || s->f.xr.too_big)) {
				stream_refused(s, s->f.xr.err);
				continue;
			}
			if (due < 0) {
				disconnect(s, s->f.xr.err);
				continue;
			}
			if (s->f.cannot) {
				bfctl_redis_follow_stop(&s->f);
				s->no_relay = true;
			}
			if (due) {
				stream_pull(s);
			} else if (!s->f.on) {
				continue;
			} else if (bfctl_redis_follow_send(&s->f)) {
				disconnect(s, s->f.xr.err);
				continue;
			}
		}
		if (n > 0 && pfd[0].revents) {
			ev = 0;
			if (bfctl_redis_sub_poll(&s->sub, &ev)) {
				disconnect(s, s->sub.err);
				continue;
			}
			note_events(s, ev);
		}
		if (s->up && s->w->recheck_s > 0 && now_s() >= s->next_check &&
		    check_events(s))
			continue;
		if (s->up)
			relay_silent(s);
		if (s->up && ((s->due >= 0 && now_s() >= s->due) ||
			      (s->w->poll_s > 0 && now_s() >= s->next_poll)))
			pull(s);
	}
}

int bfctl_redis_watch(const struct bfctl_redis_opts *o,
		      struct bfctl_redis_pull *pl,
		      const struct bfctl_redis_watch_opts *w)
{
	struct kb_ioc_info info;
	const sigset_t *run_mask;
	struct watch s;
	struct stat st;
	u64 seed;
	int ret;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.w = w;
	s.pl = pl;
	s.backoff = BFCTL_REDIS_BACKOFF_MIN;
	s.due = s.first_ev = -1;
	bfctl_redis_topo_init(&s.topo, o, pl->key);
	s.topo.watch = true;
	s.topo.enable_events = w->enable_events;
	if (bfctl_redis_follow_init(&s.f, pl->key))
		return bfctl_fail(BFCTL_USAGE, "redis watch", "key name too long");
	s.f.sp_min = w->resync_s;
	/*
	 * A delta is merged into -o's image file in place (redis_follow.c):
	 * not stdout, a pipe or a device, which get whole pulls only
	 */
	s.no_relay = w->no_relay ||
		     (pl->out && (!strcmp(pl->out, "-") ||
				  (stat(pl->out, &st) ? errno != ENOENT :
				   !S_ISREG(st.st_mode))));
	kbconn_init(&s.kc);
	/* a filter that is not there is a configuration error, not a wait */
	if (pl->name && !pl->create) {
		ret = kbconn_info(&s.kc, pl->name, &info);
		if (ret) {
			ret = ret == -ENOENT ?
			      bfctl_fail(BFCTL_ERR, "redis watch", "no filter %s (--create to create it)",
					 pl->name) :
			      bfctl_fail_err(&s.kc, "redis watch", ret);
			kbconn_close(&s.kc);
			return ret;
		}
	}
	if (kbu_random(&seed, sizeof(seed)))
		seed = (u64)getpid() ^ (u64)time(NULL);
	srandom((unsigned int)seed);
	/*
	 * The signals arrive only in a ppoll, the watch's or a reply's
	 * (redis_io.c): a pull waiting for Redis ends at once, its
	 * transaction aborted, and the filter serves on as it was
	 */
	run_mask = bfctl_redis_signals();
	watch_loop(&s, run_mask);
	status(pl, "stopped", NULL);
	bfctl_redis_close(&s.ss);
	bfctl_redis_follow_stop(&s.f);
	bfctl_redis_close(&s.sub);
	bfctl_redis_close(&s.r);
	kbconn_close(&s.kc);
	return BFCTL_OK;
}
