/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl redis: what a read of a value (redis_read.c) shares with its
 * users (redis_pull.c loads it whole; redis_relay.c diffs it).
 */
#ifndef _BFCTL_REDIS_READ_H
#define _BFCTL_REDIS_READ_H

#include "redis.h"

/*
 * What a pull reads: the value's format and where its bytes go: into an
 * image in memory (a kbloom image, or -o), or, for a gozero value going
 * into the kernel, straight into a transaction's staging payload
 * (KB_IOC_TXN_WRITE) as each chunk arrives, so that bfctl never holds
 * the value: the image's CRC is computed as it streams (watch's
 * "unchanged") and the transaction committed after the fence.  -o naming
 * a file (new or regular) streams the same way: header, value, zeros and
 * CRC in order into a temporary file renamed over it after the fence.
 */
struct bfctl_redis_fetch {
	bool gozero;
	u64 bits;		/* gozero */
	u32 key_type;
	bool have_key_type;
	u8 *img;		/* the image uploaded */
	u64 img_len;
	u8 *dst;		/* where the value's bytes go in img */
	u64 cap;		/* the longest value that fits */
	u64 len;		/* bytes read */
	/* streaming (gozero into the kernel or into a file) */
	bool stream;
	int dev;		/* /dev/kbloom, the transaction's file */
	bool txn;		/* a transaction is open on dev */
	bool dev_stream;	/* streaming into the kernel */
	bool to_file;		/* -o names a file that can be replaced */
	struct kbu_out out;	/* its temporary file while out.fd >= 0 */
	u64 pos;		/* value bytes written to out */
	u32 crc;		/* over the image's header and payload so far */
	u64 ones;		/* bits set in the value so far (the guard) */
	u8 last;		/* the value's byte at cap - 1 */
	struct kb_params p;
};

/*
 * A read's answer: the value changed under it, read it again (not 1,
 * which is BFCTL_ABSENT: a value that grew or shrank is no missing key)
 */
#define BFCTL_REDIS_PULL_AGAIN	2

/* pl->why from fmt; BFCTL_ERR */
int bfctl_redis_pull_fail(struct bfctl_redis_pull *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* pl->why from r->err; BFCTL_ERR */
int bfctl_redis_pull_rfail(struct bfctl_redis_pull *pl, struct bfctl_redis *r);
/*
 * The value of pl->key into fx (first: the first read of a pull, where
 * the tests pause): 0, BFCTL_REDIS_PULL_AGAIN, BFCTL_ABSENT or -1
 */
int bfctl_redis_read_value(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
			   struct bfctl_redis_fetch *fx, bool first);

#endif /* _BFCTL_REDIS_READ_H */
