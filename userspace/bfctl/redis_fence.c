// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis pull's fence around a chunked read (redis_pull.c says what
 * it guarantees): keyspace events through the subscription's barrier,
 * WATCH and an empty MULTI/EXEC on the reading connection, and the call
 * counts of the commands that change keys without an event.  Also the
 * tests' deterministic pause inside a read.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "redis.h"

static int redis_fail(struct bfctl_redis_pull *pl, struct bfctl_redis *r)
{
	snprintf(pl->why, sizeof(pl->why), "%s", r->err);
	return BFCTL_ERR;
}

/*
 * The deterministic pause of the tests: after chunk 1 (or, for a small
 * value, between STRLEN and its read), with
 * BFCTL_REDIS_TEST_PAUSE naming a FIFO of ours, say so through it and
 * wait until the test has changed the value and closed it again.  A
 * handshake, not a command: the environment never makes bfctl run
 * anything, and anything but our own FIFO is ignored.
 */
void bfctl_redis_test_pause(void)
{
	const char *path = getenv("BFCTL_REDIS_TEST_PAUSE");
	struct stat st;
	char c;
	int fd;

	if (!path || !*path || lstat(path, &st) || !S_ISFIFO(st.st_mode) ||
	    st.st_uid != geteuid())
		return;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "p\n", 2) != 2) {
		close(fd);
		return;
	}
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (read(fd, &c, 1) > 0)
		;
	close(fd);
}

/*
 * FLUSHDB, FLUSHALL and SWAPDB replace or drop every key without a
 * keyspace event; WATCH notices them, but also every SETBIT, which the
 * event fence accepts.  When EXEC failed and the events were setbits only,
 * these commands' call counts (INFO commandstats) tell the two apart.
 * -1 if unknown (INFO refused): the read is then done again.
 */
static long long flush_calls(struct bfctl_redis *r)
{
	static const char *const names[] = {
		"cmdstat_flushdb:calls=", "cmdstat_flushall:calls=",
		"cmdstat_swapdb:calls=",
	};
	const char *argv[] = { "INFO", "commandstats" };
	redisReply *rep = bfctl_redis_cmd(r, 2, argv, NULL);
	long long sum = 0;
	const char *p;
	size_t i;

	if (!rep)
		return -1;
	if (rep->type != REDIS_REPLY_STRING) {
		freeReplyObject(rep);
		return -1;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p = strstr(rep->str, names[i]);
		if (p)
			sum += strtoll(p + strlen(names[i]), NULL, 10);
	}
	freeReplyObject(rep);
	return sum;
}

/*
 * After the read: did the value change meanwhile?  0 no, 1 yes, -1.
 * The EXEC of an empty MULTI fails if the key was touched at all since
 * WATCH (FLUSHDB and SWAPDB included), and ends the WATCH either way.
 */
int bfctl_redis_fence_end(struct bfctl_redis *r, struct bfctl_redis *sub,
			  struct bfctl_redis_pull *pl, bool gozero,
			  long long flushes)
{
	const char *multi[] = { "MULTI" }, *exec[] = { "EXEC" };
	redisReply *rep;
	int ev = 0, touched;
	long long calls;

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
	if (!sub || !touched)
		return touched;
	/* setbit on a kbloom image breaks its CRC: read again */
	if ((ev & RSUB_OTHER) || (!gozero && ev) || !ev)
		return 1;
	/* setbits only, unless a flush or swap came too */
	calls = flush_calls(r);
	return calls < 0 || flushes < 0 || calls != flushes;
}

int bfctl_redis_fence_begin(struct bfctl_redis *r, struct bfctl_redis *sub,
			    struct bfctl_redis_pull *pl, long long *flushes)
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
	if (sub)
		*flushes = flush_calls(r);
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
