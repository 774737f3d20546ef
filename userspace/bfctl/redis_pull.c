// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl redis pull: a Redis value into a kernel filter, whole or not at
 * all.  A gozero value going into the kernel is streamed: each piece is
 * written into a transaction's staging payload as it arrives
 * (KB_IOC_TXN_WRITE) and the transaction committed after the fence, so
 * bfctl holds no copy of the value at all.  A kbloom image that push wrote
 * (and any value pulled to a file with -o) is read straight into the
 * image that is uploaded or written, its CRC checked, so neither bfctl nor
 * the server ever holds a second copy.  Small values come in one bounded
 * GETRANGE; longer ones in
 * pipelined GETRANGE chunks, which the server answers at different
 * moments: a value changed between two chunks would give a torn filter,
 * missing keys.  So a chunked read is fenced:
 *
 *   WATCH before the read, an empty MULTI/EXEC after it: EXEC fails if
 *   the key changed at all (FLUSHDB, FLUSHALL and SWAPDB included), and
 *   the read restarts.  setbit events are no exception: SETBIT 0 and
 *   BITFIELD SET clear bits and publish "setbit" too, so a read they
 *   overlap is no superset of anything (redis_fence.c).  With keyspace
 *   events on, the caller subscribed before the read and a PING on the
 *   subscription after it takes the read's events off it.
 *
 * Every value is then checked as image import checks one (length and bits
 * past --bits for gozero, header and CRC for an image) before the one
 * upload that replaces the filter; any failure leaves it serving as it
 * was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "redis_read.h"
#include "savefmt.h"

/*
 * The saturation guard: its limit for a value of params p (the filter's
 * configured FPR where the value's own params have none), and a refusal
 * (pl->why without "refused: ", which pull and watch's status say).
 */
u32 bfctl_redis_guard_limit(const struct bfctl_redis_pull *pl,
			    const struct kb_params *p)
{
	struct kb_params q = *p;

	if (!q.fpr_ppb)
		q.fpr_ppb = pl->cfg_fpr_ppb;
	return bfctl_guard_limit(&q, pl->max_fpr_ppb, pl->force);
}

static int guard_refuse(struct bfctl_redis_pull *pl, const struct kb_stats *st,
			u32 limit)
{
	char why[200];

	bfctl_guard_why(st, limit, why, sizeof(why));
	pl->refused = true;
	return bfctl_redis_pull_fail(pl, "%s", why);
}

/* the metadata push --meta wrote: check it against what the pull expects */
static int check_meta(struct bfctl_redis *r, struct bfctl_redis_pull *pl,
		      struct bfctl_redis_fetch *fx)
{
	char mkey[1100], fmt[16] = "", scheme[64] = "";
	const char *argv[] = { "GET", mkey };
	unsigned long long bits = 0;
	redisReply *rep;
	int n;

	if (bfctl_redis_sibling(mkey, sizeof(mkey), pl->key, "kbloom-meta"))
		return bfctl_redis_pull_fail(pl, "key name too long");
	rep = bfctl_redis_cmd(r, 2, argv, NULL);
	if (!rep)
		return bfctl_redis_pull_rfail(pl, r);
	if (rep->type != REDIS_REPLY_STRING) {	/* none: nothing to check */
		freeReplyObject(rep);
		return 0;
	}
	n = sscanf(rep->str, BFCTL_REDIS_META " format=%15s scheme=%63s bits=%llu",
		   fmt, scheme, &bits);
	freeReplyObject(rep);
	if (n < 1 || (strcmp(fmt, "gozero") && strcmp(fmt, "image")))
		return bfctl_redis_pull_fail(pl, "%s: unreadable metadata (not written by bfctl redis push --meta)",
				 mkey);
	if (!strcmp(fmt, "image")) {
		if (pl->bits)
			return bfctl_redis_pull_fail(pl, "%s: the metadata says %s holds a kbloom image, not a go-zero bitmap",
					 mkey, pl->key);
		if (fx->gozero) {
			free(fx->img);
			fx->img = NULL;
		}
		fx->gozero = false;
		return 0;
	}
	if (n != 3 || strcmp(scheme, BFCTL_REDIS_SCHEME))
		return bfctl_redis_pull_fail(pl, "%s: scheme '%s' is not go-zero's %s",
				 mkey, scheme, BFCTL_REDIS_SCHEME);
	/* a rebuild of another size: the metadata's bits, unless --bits */
	if (pl->bits && bits != pl->bits)
		return bfctl_redis_pull_fail(pl, "%s: the metadata says %llu bits, not %llu (wrong --bits?)",
				 mkey, bits, (unsigned long long)pl->bits);
	if (fx->gozero && fx->bits != bits) {
		free(fx->img);	/* another size: another buffer */
		fx->img = NULL;
	}
	fx->gozero = true;
	fx->bits = bits;
	return 0;
}

static void kernel_state(const struct kb_ioc_info *i, u64 st[4])
{
	st[0] = i->id;
	st[1] = i->generation;
	st[2] = i->bits_set;
	st[3] = i->count;
}

static bool kernel_state_is(const struct bfctl_redis_pull *pl,
			    const struct kb_ioc_info *i)
{
	u64 st[4];

	kernel_state(i, st);
	return !memcmp(st, pl->kstate, sizeof(st));
}

/* after a load into the kernel: what the next pull compares with */
void bfctl_redis_pull_note(struct kbconn *kc, struct bfctl_redis_pull *pl)
{
	u64 gen = pl->load_gen;
	struct kb_ioc_info info;

	/*
	 * Nothing loaded (the value unchanged, the transaction aborted):
	 * ours is still the generation pull_expect() found in step, not
	 * whatever KB_CMD_GET finds now (a rebuild may have landed since)
	 */
	if (!gen && pl->unchanged && pl->have_kstate)
		gen = pl->kstate[1];
	pl->load_gen = 0;
	pl->have_kstate = false;
	if (!pl->name || pl->out || kbconn_info(kc, pl->name, &info))
		return;
	kernel_state(&info, pl->kstate);
	/*
	 * Another generation than ours: someone rebuilt it since.  Ours is
	 * what we loaded (or kept): merges into theirs are ESTALE, and the
	 * next pull finds the filter diverged and loads it again
	 */
	if (gen)
		pl->kstate[1] = gen;
	pl->have_kstate = true;
}

/*
 * What the pull expects: --bits (a gozero value), else the kernel filter's
 * kind and bits (a gozero filter takes the raw value), else what the last
 * pull found (watch -o), else an image.  The metadata key, when there is
 * one, overrides all but --bits (check_meta()).
 */
static int pull_expect(struct kbconn *kc, struct bfctl_redis_pull *pl,
		       struct bfctl_redis_fetch *fx)
{
	struct kb_ioc_info info;
	int ret;

	fx->bits = pl->bits ? pl->bits : pl->last_bits;
	fx->gozero = fx->bits != 0;
	if (pl->key_type >= 0) {
		fx->key_type = (u32)pl->key_type;
		fx->have_key_type = true;
	}
	if (!pl->name)
		return 0;
	ret = kbconn_info(kc, pl->name, &info);
	if (!ret)
		pl->cfg_fpr_ppb = info.fpr_ppb;
	if (ret == -ENOENT && pl->create)
		return 0;
	if (ret == -ENOENT)
		return bfctl_redis_pull_fail(pl, "no filter %s (--create to create it)",
				 pl->name);
	if (ret)
		return bfctl_redis_pull_fail(pl, "filter %s: %s%s%s", pl->name,
				 strerror(-ret), kc->extack[0] ? ": " : "",
				 kc->extack[0] ? kc->extack :
				 ret == -EPERM ? KBCONN_PRIV_HINT : "");
	if (info.kind == KB_KIND_GOZERO) {
		fx->gozero = true;
		if (!pl->bits)
			fx->bits = info.m;
	} else if (pl->bits) {
		return bfctl_redis_pull_fail(pl, "--bits: filter %s is a %s filter, not gozero",
				 pl->name, kb_kind_name(info.kind));
	}
	fx->key_type = info.key_type;
	fx->have_key_type = true;
	if (pl->have_kstate && !pl->out && !kernel_state_is(pl, &info)) {
		pl->diverged = true;
		pl->last_len = 0;	/* "unchanged" would keep the change */
	}
	return 0;
}


/* the value read, checked, as the image to load (fx->img) */
static int make_image(struct bfctl_redis_pull *pl,
		      struct bfctl_redis_fetch *fx)
{
	struct kb_params p;
	struct kb_filter f;
	enum kb_img_err why;
	const void *payload;
	u64 plen;

	if (!fx->gozero) {
		if (kb_image_parse(fx->img, fx->len, 0, &pl->p, &payload, &plen,
				   NULL, &why))
			return bfctl_redis_pull_fail(pl, "%s: not a kbloom image (pull a go-zero bitmap with --bits): %s",
					 pl->key, kb_image_strerror(why));
		if (fx->have_key_type && pl->p.key_type != fx->key_type)
			return bfctl_redis_pull_fail(pl, "%s: an image of %s keys; filter %s holds %s keys",
					 pl->key, kb_key_type_name(pl->p.key_type),
					 pl->name ? pl->name : "-",
					 kb_key_type_name(fx->key_type));
		return 0;
	}
	/* image import's check: the length and no bit past --bits */
	if (fx->stream) {
		/* the length was checked before the read; the last byte here */
		if (fx->len == fx->cap && fx->bits % 8 &&
		    (fx->last & (0xffU >> (fx->bits % 8))))
			return bfctl_redis_pull_fail(pl, "%s: not the value of a go-zero filter of %llu bits: %s",
					 pl->key, (unsigned long long)fx->bits,
					 kb_image_strerror(KB_IMG_GOZERO_PAD));
		pl->p = fx->p;
		return 0;
	}
	if (kb_gozero_import(&p, fx->dst, fx->len, fx->bits, 0, &why))
		return bfctl_redis_pull_fail(pl, "%s: not the value of a go-zero filter of %llu bits: %s",
				 pl->key, (unsigned long long)fx->bits,
				 kb_image_strerror(why));
	p.key_type = fx->have_key_type ? fx->key_type : KB_KEY_BYTES;
	if (kb_filter_attach(&f, &p, fx->dst, kb_params_payload_bytes(&p)))
		return bfctl_redis_pull_fail(pl, "%s: cannot attach the filter", pl->key);
	bfctl_image_finish(fx->img, &f, 0);
	pl->p = p;
	return 0;
}

/* the image into the kernel filter (one atomic upload) or -o */
static int load_image(struct kbconn *kc, struct bfctl_redis_pull *pl,
		      const u8 *img, u64 len)
{
	u32 why = 0, crc, limit = bfctl_redis_guard_limit(pl, &pl->p);
	struct kb_stats st;
	int ret;

	memcpy(&crc, img + len - KB_IMAGE_TRAILER_LEN, sizeof(crc));
	pl->unchanged = pl->last_len == len && pl->last_crc == crc;
	if (pl->unchanged)
		return 0;
	pl->have_ones = false;
	if (pl->out) {
		/* no kernel to ask: the same estimate here */
		ret = bfctl_guard_image(img, len, limit, &st);
		if (ret == -EDOM)
			return guard_refuse(pl, &st, limit);
		pl->have_ones = !ret && pl->p.kind == KB_KIND_GOZERO;
		pl->last_ones = pl->have_ones ? st.bits_set : 0;
		ret = kbu_write_file(pl->out, img, len);
		if (ret)
			return bfctl_redis_pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
	} else {
		ret = kbconn_dev(kc);
		if (ret >= 0)
			ret = kbdev_upload_guarded(kc->dev,
						   pl->create ? KB_IMAGE_F_CREATE : 0,
						   pl->name, img, len, limit, &why);
		/* the kernel refused it (and raised its event): say why */
		if (ret == -EDOM &&
		    bfctl_guard_image(img, len, limit, &st) == -EDOM)
			return guard_refuse(pl, &st, limit);
		if (ret)
			return bfctl_redis_pull_fail(pl, "upload into %s: %s%s%s", pl->name,
					 strerror(-ret), why ? ": " : "",
					 why && why < KB_IMG_ERR_MAX ?
					 kb_image_strerror(why) : "");
	}
	pl->last_len = len;
	pl->last_crc = crc;
	return 0;
}

/*
 * The streamed transaction: committed (the kernel checks the payload once
 * more), or aborted when its image equals the last one loaded.
 */
static int stream_load(struct bfctl_redis_pull *pl,
		       struct bfctl_redis_fetch *fx)
{
	u64 len = kb_image_size(&fx->p);
	u32 crc = kb_image_crc_final(fx->crc), limit = bfctl_redis_guard_limit(pl, &fx->p);
	struct kb_stats st;
	int ret, sat;

	pl->unchanged = pl->last_len == len && pl->last_crc == crc;
	/* the fill counted as the value streamed by, as the kernel counts */
	sat = bfctl_guard_bits(&fx->p, fx->ones, limit, &st) == -EDOM;
	if (!fx->dev_stream) {
		u8 t[KB_IMAGE_TRAILER_LEN] = { crc, crc >> 8, crc >> 16,
					       crc >> 24 };

		if (sat && !pl->unchanged) {
			kbu_out_abort(&fx->out);
			return guard_refuse(pl, &st, limit);
		}
		ret = kbu_write_all(fx->out.fd, t, sizeof(t));
		if (ret || pl->unchanged)
			kbu_out_abort(&fx->out);
		else
			ret = kbu_out_commit(&fx->out);
		if (ret)
			return bfctl_redis_pull_fail(pl, "%s: %s", pl->out, strerror(-ret));
		goto done;
	}
	fx->txn = false;
	ret = pl->unchanged ? kbdev_txn_abort(fx->dev) :
	      kbdev_txn_commit_gen(fx->dev, limit, &pl->load_gen);
	if (ret == -EDOM)
		return guard_refuse(pl, &st, limit);
	if (ret)
		return bfctl_redis_pull_fail(pl, "load into %s: %s", pl->name,
				 ret == -EINVAL ? "the kernel refused the payload (bits past --bits?)" :
				 strerror(-ret));
done:
	pl->last_len = len;
	pl->last_crc = crc;
	pl->last_ones = fx->ones;	/* the payload's: the value, then zeros */
	pl->have_ones = true;
	return 0;
}

int bfctl_redis_pull_once(struct bfctl_redis *r, struct bfctl_redis *sub,
			  struct kbconn *kc, struct bfctl_redis_pull *pl)
{
	struct bfctl_redis_fetch fx = { .dev = -1, .out.fd = -1 };
	struct stat st;
	u32 tries;
	int ret;

	pl->retries = 0;
	pl->load_gen = 0;
	pl->missing = false;
	pl->unchanged = false;
	pl->diverged = false;
	pl->refused = false;
	pl->cfg_fpr_ppb = 0;
	pl->why[0] = 0;
	if (pull_expect(kc, pl, &fx))
		return BFCTL_ERR;
	/* a gozero value into the kernel streams through a transaction */
	if (pl->name && !pl->out) {
		ret = kbconn_dev(kc);
		if (ret < 0)
			return bfctl_redis_pull_fail(pl, "%s", kc->extack[0] ? kc->extack :
					 strerror(-ret));
		fx.dev = kc->dev;
	}
	/*
	 * -o streams into a temporary file renamed over it at the end; not
	 * into stdout, a pipe or a device, where a restarted read could not
	 * take back what it wrote.
	 */
	fx.to_file = pl->out && strcmp(pl->out, "-") &&
		     (stat(pl->out, &st) ? errno == ENOENT :
		      S_ISREG(st.st_mode));
	for (tries = 0; tries < BFCTL_REDIS_TRIES; tries++) {
		ret = bfctl_redis_fence_begin(r, sub, pl);
		if (!ret)
			ret = check_meta(r, pl, &fx);
		if (ret)
			goto out;
		ret = bfctl_redis_read_value(r, pl, &fx, !tries);
		if (ret == BFCTL_ABSENT) {
			pl->missing = true;
			goto out;
		}
		if (ret < 0) {
			ret = BFCTL_ERR;
			goto out;
		}
		if (!ret)
			ret = bfctl_redis_fence_end(r, sub, pl);
		else if (bfctl_redis_unwatch(r)) {	/* the next read WATCHes afresh */
			ret = bfctl_redis_pull_rfail(pl, r);
			goto out;
		}
		if (ret < 0) {
			ret = BFCTL_ERR;
			goto out;
		}
		if (!ret)
			break;
		pl->retries++;
	}
	if (tries == BFCTL_REDIS_TRIES) {
		ret = bfctl_redis_pull_fail(pl, "%s: the value changed during each of %u reads; nothing loaded",
				pl->key, BFCTL_REDIS_TRIES);
		goto out;
	}
	pl->value_len = fx.len;
	ret = make_image(pl, &fx);
	if (!ret)
		ret = fx.stream ? stream_load(pl, &fx) :
		      load_image(kc, pl, fx.img, fx.img_len);
	if (!ret) {
		pl->last_bits = fx.gozero ? fx.bits : 0;
		bfctl_redis_pull_note(kc, pl);
	}
out:
	if (ret && r->c && !r->io_err)
		bfctl_redis_unwatch(r);
	if (fx.txn)	/* the live filter serves on as it was */
		kbdev_txn_abort(fx.dev);
	if (fx.out.fd >= 0)
		kbu_out_abort(&fx.out);
	free(fx.img);
	return ret;
}

int bfctl_redis_pull_empty(struct kbconn *kc, struct bfctl_redis_pull *pl)
{
	struct kb_params p = pl->p;
	struct kb_filter f;
	u64 len = kb_image_size(&p);
	u8 *img = kbu_alloc_payload(len);
	int ret;

	if (!img)
		return bfctl_redis_pull_fail(pl, "out of memory");
	ret = kb_filter_init_zeroed(&f, &p, img + sizeof(struct kb_image_hdr),
				    kb_params_payload_bytes(&p));
	if (ret) {
		free(img);
		return bfctl_redis_pull_fail(pl, "cannot make an empty filter: %s",
				 strerror(-ret));
	}
	bfctl_image_finish(img, &f, 0);
	ret = load_image(kc, pl, img, len);
	free(img);
	if (!ret)
		bfctl_redis_pull_note(kc, pl);
	return ret;
}
