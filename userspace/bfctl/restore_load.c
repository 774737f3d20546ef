// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl restore (and sync), loading: one filter read and checked by
 * restore.c into the kernel: its keys in batches, in place (a filter
 * restored live) or in a transaction after its image or slices, then its
 * grant and exceptions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kverbs.h"
#include "savefmt.h"

/* rf's keys in batches of up to BULK_KEYS (flags: KB_KEYS_F_TXN) */
static int send_keys(struct kbconn *conn, struct rfilter *rf, u32 flags)
{
	struct bfctl_batch *b = &rf->keys, part;
	u64 i = 0, off = 0;
	int ret;

	while (i < b->count) {
		u64 n = 0, len = 0, done = 0, bad = ~0ULL;
		u16 l16;

		while (n < BULK_KEYS && i + n < b->count) {
			memcpy(&l16, b->buf + off + len, sizeof(l16));
			len += sizeof(l16) + l16;
			n++;
		}
		ret = kbdev_keys(conn->dev, KB_IOC_ADD, flags, rf->name,
				 b->buf + off, len, n, NULL, &done, NULL, &bad);
		if (ret == -EINVAL && bad < n) {
			char key[128];

			part = *b;
			part.buf += off;
			part.line += i;
			bfctl_batch_key_text(&part, rf->key_type, bad, key, sizeof(key));
			snprintf(conn->extack, sizeof(conn->extack),
				 "line %llu: kernel refused key '%s'",
				 (unsigned long long)part.line[bad], key);
		}
		if (ret)
			return ret;
		i += n;
		off += len;
	}
	return 0;
}

int bfctl_restore_load(struct kbconn *conn, const char *verb,
		       struct rfilter *rf)
{
	char what[96];
	u32 why = 0;
	int ret;

	snprintf(what, sizeof(what), "%s %s (line %llu)", verb, rf->name,
		 (unsigned long long)rf->line);
	if (rf->how == RF_LIVE) {
		ret = send_keys(conn, rf, 0);
		return ret ? bfctl_fail_err(conn, what, ret) :
			     bfctl_restore_exc(conn, verb, rf);
	}
	/* (the requests made of images and stand-ins do not carry it) */
	rf->c.max_fpr_ppb = rf->cap_ppb;
	ret = kbdev_txn_begin(conn->dev, &rf->c);
	if (ret)
		return bfctl_fail_err(conn, what, ret);
	if (rf->how == RF_IMAGE)
		ret = kbdev_upload(conn->dev, KB_IMAGE_F_TXN, rf->name, rf->img,
				   rf->img_len, &why);
	else if (rf->nsl)	/* a window's or growing filter's slices */
		ret = bfctl_restore_slices(conn, rf, &why);
	if (!ret)
		ret = send_keys(conn, rf, KB_KEYS_F_TXN);
	if (!ret)
		ret = kbdev_txn_commit_guarded(conn->dev, rf->max_fpr_ppb);
	if (ret) {
		if (why && why < KB_IMG_ERR_MAX)
			snprintf(conn->extack, sizeof(conn->extack), "%s",
				 kb_image_strerror(why));
		kbdev_txn_abort(conn->dev);
		return bfctl_fail_err(conn, what, ret);
	}
	return bfctl_restore_exc(conn, verb, rf);
}

/*
 * After the filter loaded: exceptions belong to the filter, so a replaced
 * one kept its own; the file's are added to them (never removed: an
 * exception keeps a must-pass source passing, and only `bfctl except del`
 * or `flush` takes one away).
 */
int bfctl_restore_exc(struct kbconn *conn, const char *verb,
		      struct rfilter *rf)
{
	char what[96];
	int ret = bfctl_restore_grant(conn, verb, rf);

	if (ret || !rf->exc.count)
		return ret;
	snprintf(what, sizeof(what), "%s %s: exceptions", verb, rf->name);
	if (!conn->nl)
		return bfctl_fail_err(conn, what, kbconn_no_nl(conn));
	ret = kbnl_except(conn->nl, true, true, rf->name, rf->exc.buf,
			  rf->exc.len, rf->exc.count, NULL, conn->extack,
			  sizeof(conn->extack));
	return ret ? bfctl_fail_err(conn, what, ret) : 0;
}
