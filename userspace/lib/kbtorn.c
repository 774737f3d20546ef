// SPDX-License-Identifier: GPL-2.0
/*
 * Reading an image file that may be taking a delta in place: bfctl redis
 * watch -o merges deltas into its file without a lock, the changed
 * payload bytes first and the CRC trailer last (docs/redis.md, "-o:
 * deltas in place"), so a read that overlaps a merge finds a CRC
 * mismatch.  It is read again, a few times over ~150 ms: a merge writes
 * a few bytes, so it is long done by then.  A file torn for good (a crash
 * between the bytes and the trailer) is still refused after the last
 * try.  Readers never lock: a lock would let one reader hold a watcher's
 * delta back, and a stopped writer hold every reader.  One loop for
 * bfctl's readers (kbu_read_file*()) and libkbloom's kbloom_open_image().
 */
#include <errno.h>
#include <time.h>
#include "kbuser.h"

/* 5 tries, 10 + 20 + 40 + 80 ms apart */
#define KBU_TORN_TRIES		5
#define KBU_TORN_FIRST_MS	10

bool kbu_image_torn(const void *buf, size_t len)
{
	struct kb_params p;

	return kb_image_parse(buf, len, 0, &p, NULL, NULL, NULL, NULL) ==
	       -EBADMSG;
}

int kbu_torn_retry(int (*try)(void *arg, bool last), void *arg)
{
	long ms = KBU_TORN_FIRST_MS;
	struct timespec ts;
	int i, ret;

	for (i = 1;; i++) {
		ret = try(arg, i == KBU_TORN_TRIES);
		if (ret != -EBADMSG || i == KBU_TORN_TRIES)
			return ret;
		ts.tv_sec = 0;
		ts.tv_nsec = ms * 1000000L;
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		ms *= 2;
	}
}
