// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis pull's fence around a chunked read (redis_pull.c says what
 * it guarantees): WATCH and an empty MULTI/EXEC on the reading
 * connection, and the keyspace events through the subscription's
 * barrier.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "redis.h"

static int redis_fail(struct bfctl_redis_pull *pl, struct bfctl_redis *r)
{
	snprintf(pl->why, sizeof(pl->why), "%s", r->err);
	return BFCTL_ERR;
}

/*
 * After the read: did the value change meanwhile?  0 no, 1 yes, -1.
 * The EXEC of an empty MULTI fails if the key was touched at all since
 * WATCH (FLUSHDB and SWAPDB included), and ends the WATCH either way.
 *
 * Any change restarts the read, setbit events included: they do not
 * prove that bits were only set.  SETBIT KEY OFF 0 clears a bit and
 * BITFIELD ... SET rewrites any, and both publish "setbit", so a read
 * that one of them overlaps may hold neither the value it began with
 * nor a superset of it (a key missing from the filter).  The
 * subscription's barrier still takes the read's events off it (the
 * watcher's next pull is for what came after).
 */
int bfctl_redis_fence_end(struct bfctl_redis *r, struct bfctl_redis *sub,
			  struct bfctl_redis_pull *pl)
{
	const char *multi[] = { "MULTI" }, *exec[] = { "EXEC" };
	redisReply *rep;
	int ev = 0, touched;

	if (sub) {
		if (bfctl_redis_sub_barrier(sub, &ev))
			return redis_fail(pl, sub), -1;
		pl->fence_ev = ev;
	}
	rep = bfctl_redis_cmd(r, 1, multi, NULL);
	if (!rep)
		return redis_fail(pl, r), -1;
	freeReplyObject(rep);
	rep = bfctl_redis_cmd(r, 1, exec, NULL);
	if (!rep)
		return redis_fail(pl, r), -1;
	touched = rep->type == REDIS_REPLY_NIL;
	freeReplyObject(rep);
	return touched;
}

int bfctl_redis_fence_begin(struct bfctl_redis *r, struct bfctl_redis *sub,
			    struct bfctl_redis_pull *pl)
{
	const char *watch[] = { "WATCH", pl->key };
	redisReply *rep;
	int ev = 0;

	/* what was published before the read does not count */
	if (sub && bfctl_redis_sub_barrier(sub, &ev))
		return redis_fail(pl, sub);
	rep = bfctl_redis_cmd(r, 2, watch, NULL);
	if (!rep)
		return redis_fail(pl, r);
	freeReplyObject(rep);
	return 0;
}

int bfctl_redis_unwatch(struct bfctl_redis *r)
{
	const char *argv[] = { "UNWATCH" };
	redisReply *rep = bfctl_redis_cmd(r, 1, argv, NULL);

	if (!rep)
		return -1;
	freeReplyObject(rep);
	return 0;
}
