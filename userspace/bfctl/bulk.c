// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl's bulk verbs, all over /dev/kbloom: add -file (streamed in 1M-key
 * batches), rebuild (the same inside a transaction, so the live filter
 * serves unchanged until the commit and a killed rebuild leaves it
 * untouched: closing the file drops the transaction), upload and export.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kverbs.h"

struct bulk_add {
	struct kbconn *conn;
	const char *name;
	u32 key_type;
	u32 flags;		/* KB_KEYS_F_TXN for rebuild */
	u64 total;
	const struct kb_ioc_info *guard;	/* capacity check per batch */
};

static int bulk_flush(struct bfctl_batch *b, void *arg)
{
	struct bulk_add *ba = arg;
	u64 done = 0, bad = ~0ULL;
	int ret;

	/*
	 * A pipe cannot be counted first: refuse the batch that would cross
	 * the limit, and say what the batches before it added.
	 */
	if (ba->guard && bfctl_cap_check(ba->guard, ba->total + b->count,
					 false, bfctl_verb_name("add", ba->name))) {
		if (ba->total)
			fprintf(stderr, "bfctl: add %s: %llu keys were added before the refusal\n",
				ba->name, (unsigned long long)ba->total);
		return BFCTL_ERR;
	}

	ret = kbdev_keys(ba->conn->dev, KB_IOC_ADD, ba->flags, ba->name,
			 b->buf, b->len, b->count, NULL, &done, NULL, &bad);
	ba->total += done;
	if (ret == -EINVAL && bad < b->count) {
		char key[128];

		bfctl_batch_key_text(b, ba->key_type, bad, key, sizeof(key));
		fprintf(stderr, "bfctl: add %s: line %llu: kernel refused key '%s'\n",
			ba->name, (unsigned long long)b->line[bad], key);
		return BFCTL_ERR;
	}
	if (ret)
		return bfctl_fail_err(ba->conn,
				      bfctl_verb_name("add", ba->name), ret);
	return 0;
}

/*
 * A bad line of the key file: said with its line and text.  Nothing went
 * in if the file was checked first (or it is a transaction's, which the
 * caller drops); else the keys before the line did (bfctl_batch_stream_fd()
 * flushes them), and how many is said, as the capacity refusal does.
 */
static int bulk_bad_line(const struct bulk_add *ba, const char *verb,
			 const char *file, const char *err, u64 line,
			 bool streamed)
{
	char msg[KBU_QUOTE_SIZE + 4200];

	kbu_keyfile_msg(msg, sizeof(msg), file, -EINVAL, err, line);
	if (!streamed || (ba->flags & KB_KEYS_F_TXN) || !ba->total)
		return bfctl_fail(BFCTL_USAGE, bfctl_verb_name(verb, ba->name),
				  "%s; nothing added", msg);
	bfctl_fail(BFCTL_USAGE, bfctl_verb_name(verb, ba->name), "%s", msg);
	fprintf(stderr, "bfctl: %s %s: the %llu keys before line %llu were added, none from it on\n",
		verb, ba->name, (unsigned long long)ba->total,
		(unsigned long long)line);
	return BFCTL_USAGE;
}

/*
 * Stream a key file into name (live, or this fd's transaction); BFCTL_*.
 * A regular file (stdin too, when redirected from one) is read twice:
 * checked whole first, at the cost of parsing it twice but no memory
 * for its keys, so that a bad line or a capacity refusal adds nothing.
 */
int bfctl_add_file(struct kbconn *conn, const char *verb,
		   const char *name, u32 key_type, int fmt, const char *file,
		   u32 flags, const struct kb_ioc_info *guard, u64 *total)
{
	struct bulk_add ba = { conn, name, key_type, flags, 0, guard };
	char err[KBU_QUOTE_SIZE + 256];
	struct bfctl_batch b;
	struct stat st;
	u64 line = 0;
	int fd, ret;

	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		return bfctl_fail(BFCTL_ERR, bfctl_verb_name(verb, name),
				  "%s: %s", file, strerror(errno));
	/* a transaction shows nothing until its commit: no need to check */
	if (!(flags & KB_KEYS_F_TXN) && !fstat(fd, &st) &&
	    S_ISREG(st.st_mode)) {
		off_t off = lseek(fd, 0, SEEK_CUR);
		s64 n = bfctl_keys_check_fd(fd, key_type, fmt, err,
					    sizeof(err), &line);

		if (n < 0 && line) {
			ret = bulk_bad_line(&ba, verb, file, err, line, false);
			goto out;
		}
		if (n < 0 || off < 0 || lseek(fd, off, SEEK_SET) < 0) {
			kbu_keyfile_msg(err, sizeof(err), file,
					n < 0 ? (int)n : -errno,
					n < 0 ? err : "", 0);
			ret = bfctl_fail(BFCTL_ERR, bfctl_verb_name(verb, name),
					 "%s", err);
			goto out;
		}
		if (guard) {
			ret = bfctl_cap_check(guard, (u64)n, false,
					      bfctl_verb_name(verb, name));
			if (ret)
				goto out;
		}
		ba.guard = NULL;
	}

	if (bfctl_batch_init(&b, BULK_KEYS, BULK_BYTES)) {
		ret = bfctl_fail(BFCTL_ERR, verb, "%s", strerror(ENOMEM));
		goto out;
	}
	ret = bfctl_batch_stream_fd(fd, key_type, fmt, &b, bulk_flush, &ba,
				    err, sizeof(err), &line);
	bfctl_batch_free(&b);
	if (total)
		*total = ba.total;
	if (ret < 0 && line)
		ret = bulk_bad_line(&ba, verb, file, err, line, true);
	else if (ret < 0)
		ret = bfctl_fail(BFCTL_ERR, bfctl_verb_name(verb, name),
				 "%s: %s", file, err[0] ? err : strerror(-ret));
out:
	if (fd > 0)
		close(fd);
	return ret;
}

/* ---- rebuild: a transaction over /dev/kbloom ---- */

int bfctl_do_rebuild(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kb_ioc_info info;
	struct kb_ioc_create c;
	u64 total = 0;
	int ret;

	ret = bfctl_want_pos(a, 1, 1, "rebuild NAME -file FILE [size options]");
	if (!ret)
		ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	if (!a->file)
		return bfctl_usage(a->verb, "%s", "-file FILE is required");
	ret = kbconn_info(conn, a->pos[0], &info);
	if (ret)
		return bfctl_fail_err(conn,
			bfctl_verb_name("rebuild", a->pos[0]), ret);
	if (a->s.key_type >= 0 && (u32)a->s.key_type != info.key_type)
		return bfctl_usage(a->verb, "%s",
				   "a rebuild keeps the key type");
	memset(&c, 0, sizeof(c));
	kbdev_set_name(c.name, a->pos[0]);
	c.kind = a->kind >= 0 ? (u32)a->kind : info.kind;
	c.key_type = info.key_type;
	c.hash = c.kind == info.kind ? info.hash :
		 kb_kind_default_hash(c.kind);
	if (a->s.have_fpr || a->s.have_bpk || a->s.have_bits || a->s.have_hashes) {
		struct bfctl_kargs b = *a;

		/*
		 * --fpr or --bits-per-key without --items: the configured
		 * capacity (a new FPR must not shrink the filter to the
		 * file's line count), else the file's keys
		 */
		if ((a->s.have_fpr || a->s.have_bpk) && !a->s.have_items) {
			s64 n = info.items ? 0 :
				bfctl_count_keys(a->file, info.key_type,
					bfctl_key_format(a->key_fmt,
							 info.key_type));

			b.s.have_items = true;
			b.s.items = info.items ? info.items : n > 0 ? (u64)n : 1;
		}
		ret = bfctl_fill_spec(&b, &c);
	} else if (a->s.have_items && info.fpr_ppb) {
		struct bfctl_kargs b = *a;

		b.s.have_fpr = true;
		b.s.fpr_ppb = info.fpr_ppb;
		ret = bfctl_fill_spec(&b, &c);
	} else if (a->s.have_items) {
		return bfctl_usage(a->verb, "%s",
			      "this filter was not sized by --fpr: give --items with --bits-per-key (or --bits --hashes)");
	} else if (a->kind >= 0 && (u32)a->kind != info.kind) {
		return bfctl_usage(a->verb, "%s",
				   "changing --kind needs size options");
	} else {
		/*
		 * No size options: the same sizing, fresh keys (FPR sizing is
		 * deterministic, so it gives the same m and k and keeps the
		 * configured FPR in the new generation).
		 */
		struct bfctl_kargs b = *a;

		b.s.have_items = true;
		b.s.items = info.items;
		if (info.items && info.fpr_ppb) {
			b.s.have_fpr = true;
			b.s.fpr_ppb = info.fpr_ppb;
		} else {
			b.s.have_bits = b.s.have_hashes = true;
			b.s.bits = info.m;
			b.s.hashes = info.k;
		}
		ret = bfctl_fill_spec(&b, &c);
	}
	if (ret)
		return ret;
	/* the FPR is per lookup: size for the prefix lengths the file holds */
	if (c.sizing == KB_SIZING_FPR && kb_key_type_is_net(c.key_type)) {
		u32 l = bfctl_file_nplens(a->file, c.key_type,
					  bfctl_key_format(a->key_fmt,
							   c.key_type));

		if (l > c.prefixes)
			c.prefixes = l;
	}
	ret = kbconn_dev(conn);
	if (ret < 0)
		return bfctl_fail_err(conn, "open " KBDEV_PATH, ret);
	ret = kbdev_txn_begin(conn->dev, &c);
	/* refused before allocating, as create: say what it would cost */
	if (ret == -E2BIG &&
	    bfctl_size_refuse(&c, bfctl_module_param("max_filter_bytes",
						     BFCTL_DEF_MAX_FILTER_BYTES),
			      "the module's max_filter_bytes", BFCTL_ERR,
			      bfctl_verb_name("rebuild: begin", a->pos[0])))
		return BFCTL_ERR;
	if (ret)
		return bfctl_fail_err(conn,
			bfctl_verb_name("rebuild: begin", a->pos[0]), ret);
	/* a kill from here on closes the file: the kernel drops the txn */
	ret = bfctl_add_file(conn, "rebuild", a->pos[0], info.key_type,
			     bfctl_key_format(a->key_fmt, info.key_type),
			     a->file, KB_KEYS_F_TXN, NULL, &total);
	/* judged against the filter as it is now, just before the commit */
	if (!ret && !a->force) {
		ret = kbconn_info(conn, a->pos[0], &info);
		if (ret)
			ret = bfctl_fail_err(conn,
				bfctl_verb_name("rebuild", a->pos[0]), ret);
		else
			ret = bfctl_rebuild_check(&info, total, false,
				bfctl_verb_name("rebuild", a->pos[0]));
	}
	if (ret) {
		kbdev_txn_abort(conn->dev);
		return ret;
	}
	ret = kbdev_txn_commit(conn->dev);
	if (ret)
		return bfctl_fail_err(conn,
			bfctl_verb_name("rebuild: commit", a->pos[0]), ret);
	if (!bfctl_quiet)
		printf("%s: rebuilt from %llu keys\n", a->pos[0],
		       (unsigned long long)total);
	return BFCTL_OK;
}

/* ---- upload, export ---- */

int bfctl_do_upload(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kb_stats st;
	char msg[200];
	u8 *img;
	size_t len;
	u32 why = 0, limit;
	int ret;

	ret = bfctl_want_pos(a, 2, 2, "upload NAME IMAGE");
	if (!ret)
		ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	ret = kbu_read_file(a->pos[1], &img, &len);
	if (ret)
		return bfctl_fail(BFCTL_ERR,
			bfctl_verb_name("upload", a->pos[0]), "%s: %s",
			a->pos[1], strerror(-ret));
	/* the kernel refuses a saturated image (and says so in an event) */
	limit = bfctl_guard_image_limit(img, len, a->max_fpr_ppb, a->force);
	ret = kbconn_dev(conn);
	if (ret >= 0)
		ret = kbdev_upload_guarded(conn->dev, KB_IMAGE_F_CREATE,
					   a->pos[0], img, len, limit, &why);
	if (ret == -EDOM && bfctl_guard_image(img, len, limit, &st) == -EDOM) {
		bfctl_guard_why(&st, limit, msg, sizeof(msg));
		snprintf(conn->extack, sizeof(conn->extack), "%s: refused: %s",
			 a->pos[1], msg);
		why = 0;
	}
	free(img);
	if (ret && why && why < KB_IMG_ERR_MAX)
		snprintf(conn->extack, sizeof(conn->extack), "%s: %s",
			 a->pos[1], kb_image_strerror(why));
	if (ret)
		return bfctl_fail_err(conn,
			bfctl_verb_name("upload", a->pos[0]), ret);
	return BFCTL_OK;
}

/* the export as it arrives, into an output path (kbu_out) */
struct export_out {
	const char *path;
	struct kbu_out o;
	bool open;		/* opened at the first chunk */
	int werr;		/* the output's -errno, not the kernel's */
};

static int export_chunk(const void *data, u64 len, u64 off, u64 total,
			void *arg)
{
	struct export_out *x = arg;

	(void)off;
	(void)total;
	/* only once the kernel answers: a refused export writes nothing */
	if (!x->open) {
		x->werr = kbu_out_open(&x->o, x->path);
		if (x->werr)
			return x->werr;
		x->open = true;
	}
	x->werr = kbu_write_all(x->o.fd, data, (size_t)len);
	return x->werr;
}

/*
 * The image is written as the kernel's export brings it, a chunk at a
 * time, so bfctl holds no copy of the filter.  An export the filter's
 * changes cut short (EAGAIN) starts over in a file of ours (the temporary
 * file kbu_out renames when complete); stdout, a FIFO or a device cannot
 * take back what they got, so there it fails.
 */
int bfctl_do_export(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct export_out x = { .o.fd = -1 };
	const char *what;
	bool file = false;
	int ret, tries;

	ret = bfctl_want_pos(a, 1, 1, "export NAME -o IMAGE");
	if (!ret)
		ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	if (!a->out)
		return bfctl_usage(a->verb, "%s",
				   "-o IMAGE is required (- for stdout)");
	what = bfctl_verb_name("export", a->pos[0]);
	x.path = a->out;
	for (tries = 0; tries < KBDEV_EXPORT_TRIES; tries++) {
		x.werr = 0;
		ret = kbconn_export(conn, a->pos[0], export_chunk, &x);
		file = x.open && x.o.replace;
		if (ret != -EAGAIN || (x.open && !file))
			break;
		if (file && (ftruncate(x.o.fd, 0) || lseek(x.o.fd, 0, SEEK_SET))) {
			x.werr = ret = -errno;
			break;
		}
	}
	if (ret) {
		if (x.open)
			kbu_out_abort(&x.o);
		if (x.werr)
			return bfctl_fail(BFCTL_ERR, what, "%s: %s", a->out,
					  strerror(-x.werr));
		if (ret == -EAGAIN && x.open && !file)
			return bfctl_fail(BFCTL_ERR, what,
					  "the filter changed while it was written out; try again");
		if (ret == -EAGAIN)
			return bfctl_fail(BFCTL_ERR, what,
					  "the filter kept changing during %d tries, try again later",
					  KBDEV_EXPORT_TRIES);
		return bfctl_fail_err(conn, what, ret);
	}
	ret = kbu_out_commit(&x.o);
	if (ret)
		return bfctl_fail(BFCTL_ERR, what, "%s: %s", a->out,
				  strerror(-ret));
	return BFCTL_OK;
}
