// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl save / restore: filters as text that restores byte-identically,
 * and ipset-style "create" / "add" lines for generated blocklists.
 *
 * A Bloom filter cannot list its keys, so a filter is saved as its
 * parameters (one "filter" line) and its payload (the image's bitset):
 *
 *   # bfctl save 1
 *   filter NAME kind=K key-type=T hash=H m=M k=K items=N fpr-ppb=P
 *          [max-fpr-ppb=P] seed=S0,S1 plen4=X plen6=X0,X1,X2 count=C
 *          bytes=B crc32c=X
 *   <payload lines>
 *   end
 *
 * (the filter line is one line).  A payload line is base64 (RFC 4648, at
 * most 76 characters = 57 bytes) or "*N": N zero bytes, so empty and
 * sparse filters stay small.  crc32c is the CRC of the whole image the
 * kernel exported; restore rebuilds the image from the text and refuses it
 * unless the CRC matches, so a restored filter exports byte-identically.
 * bytes= may not exceed the module's max_filter_bytes (read from sysfs;
 * 4 GiB, its default, if unreadable), and the payload buffer grows as
 * payload lines arrive, so a short text cannot make restore allocate more
 * than the kernel would accept.
 *
 * restore also takes, mixed with filter blocks (restore.c):
 *
 *   create NAME [KIND] [OPTIONS]	OPTIONS as for `bfctl create`: --items,
 *				--fpr, --bits-per-key, --bits, --hashes,
 *				--key-type, --hash, --seed, --max-fpr
 *   add NAME KEY		KEY: the rest of the line, read as the
 *				filter's key type (as a key file's line:
 *				kbu_keyline())
 *   except NAME KEY		an exception (`bfctl except NAME add KEY`):
 *				save writes them after the filter's block;
 *				restore and sync add them to the filter's
 *				exception set and remove none
 *   grant NAME [--readers G] [--writers G] | grant NAME --none
 *				the filter's groups by name (grant.c):
 *				save writes it after the except lines of a
 *				filter that has any; restore and sync set
 *				the groups it names, after the filter loaded
 *
 * An add targets the filter a create or filter block earlier in the file
 * defines, or else a filter in the kernel.  Each name is defined at most
 * once, before its adds.  Lines starting with '#' or ';' and empty lines
 * are ignored.
 *
 * restore reads and checks the whole input before changing anything:
 * errors name the line ("line N: why"), exit 2 for bad text and 3 where
 * the kernel's filters conflict (a create or filter block of an existing
 * name without -exist, an add to a filter that exists nowhere, -exist with
 * different parameters), as the single verbs would.  With -exist a filter
 * block replaces the existing filter, and a create of an existing filter
 * is accepted when `create -exist` would accept it (bfctl_create_matches:
 * kind, key type, hash, and m and k or the same --items/--fpr, and the
 * seed if --seed is given): the filter keeps its keys.  Each filter the
 * file defines is then loaded in file order through a /dev/kbloom
 * transaction (begin, its image, its adds in batches of up to 1M keys,
 * commit), so it appears complete or not at all; adds to a filter that
 * was already in the kernel go in directly, in batches.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kverbs.h"
#include "savefmt.h"

#define B64_LINE	57

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_line(FILE *f, const u8 *p, size_t n)
{
	char out[80];
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		u32 v = (u32)p[i] << 16 | (u32)p[i + 1] << 8 | p[i + 2];

		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		out[o++] = b64[v & 63];
	}
	if (n - i == 1) {
		out[o++] = b64[p[i] >> 2];
		out[o++] = b64[(p[i] & 3) << 4];
		out[o++] = '=';
		out[o++] = '=';
	} else if (n - i == 2) {
		u32 v = (u32)p[i] << 8 | p[i + 1];

		out[o++] = b64[v >> 10];
		out[o++] = b64[v >> 4 & 63];
		out[o++] = b64[(v & 15) << 2];
		out[o++] = '=';
	}
	out[o++] = '\n';
	fwrite(out, 1, o, f);
}

static bool all_zero(const u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * A filter is saved from the kernel's export as it streams in
 * (kbconn_export()): bfctl holds one payload line, never the filter.  The
 * filter line comes first and names the image's CRC, which is the
 * export's last 4 bytes, so the export runs twice: the first pass keeps
 * the header and the trailer, the second writes the payload lines and
 * checks the CRC over what it wrote.  The kernel makes each pass one
 * consistent image; if the filter changed between the passes (another
 * header or trailer) or during one (EAGAIN), a save to a file, written to
 * a temporary file, is cut back to the block's start and retried; one to
 * stdout, a FIFO or a device cannot take back what it wrote and fails
 * without its end line, so that restore refuses it.
 */
struct save_pass {
	FILE *f;			/* NULL: the first pass */
	u8 hdr[sizeof(struct kb_image_hdr)];
	u8 trailer[KB_IMAGE_TRAILER_LEN];
	u64 total;
	u64 plen;			/* second pass: the payload's length */
	u32 crc;			/* second pass: over header and payload */
	u8 line[B64_LINE];		/* the payload line being filled */
	size_t n;
	u64 zeros;			/* zero bytes not yet written */
};

/* one full (or the last) payload line: base64, or counted as zeros */
static void save_line(struct save_pass *s)
{
	if (all_zero(s->line, s->n)) {
		s->zeros += s->n;
	} else {
		if (s->zeros)
			fprintf(s->f, "*%llu\n", (unsigned long long)s->zeros);
		s->zeros = 0;
		b64_line(s->f, s->line, s->n);
	}
	s->n = 0;
}

static void save_payload(struct save_pass *s, const u8 *p, u64 len)
{
	while (len) {
		size_t n = B64_LINE - s->n < len ? B64_LINE - s->n : (size_t)len;

		memcpy(s->line + s->n, p, n);
		s->n += n;
		p += n;
		len -= n;
		if (s->n == B64_LINE)
			save_line(s);
	}
}

static int save_chunk(const void *data, u64 len, u64 off, u64 total,
		      void *arg)
{
	struct save_pass *s = arg;
	u64 hl = sizeof(s->hdr), tl = KB_IMAGE_TRAILER_LEN;
	u64 end = off + len, i, a, b;
	const u8 *p = data;

	s->total = total;
	for (i = off; i < end && i < hl; i++)
		s->hdr[i] = p[i - off];
	for (i = off > total - tl ? off : total - tl; total >= tl && i < end;
	     i++)
		s->trailer[i - (total - tl)] = p[i - off];
	if (!s->f)
		return 0;
	/* the bytes before the trailer are the CRC's */
	b = total >= tl && end > total - tl ? total - tl : end;
	if (off < b)
		s->crc = kb_image_crc_update(s->crc, p, b - off);
	a = off > hl ? off : hl;
	b = end < hl + s->plen ? end : hl + s->plen;
	if (a < b)
		save_payload(s, p + (a - off), b - a);
	return 0;
}

/* make f end at mark again: the block being written goes */
static int save_rewind(FILE *f, long mark)
{
	if (fflush(f) || ftruncate(fileno(f), mark) ||
	    fseek(f, mark, SEEK_SET))
		return -errno;
	return 0;
}

struct save_state {
	struct kbconn *conn;
	FILE *f;
	bool rewind;		/* f is a file of ours: a block can be undone */
	int ret;
};

/*
 * " max-fpr-ppb=P" when the filter's packet-path cap (i, as a list or info
 * answered) is not the default create gives, so that saves of other
 * filters read as before
 */
static const char *save_cap(const struct kb_ioc_info *i, char *buf,
			    size_t len)
{
	buf[0] = 0;
	if (i->max_fpr_ppb && i->kind == KB_KIND_BLOCKED &&
	    i->max_fpr_ppb != bfctl_default_max_fpr(i->fpr_ppb))
		snprintf(buf, len, " max-fpr-ppb=%u", i->max_fpr_ppb);
	return buf;
}

/*
 * One block: "filter NAME ..." (slice 0), or "slice NAME index=N
 * age-ms=A saved-ms=T ..." (slice N of a window or growing filter, with
 * its age and the wall-clock time of its export), then its payload and
 * "end".  0, -EAGAIN (the filter changed: the caller retries), or the
 * error printed (BFCTL_ERR) as a positive code.
 */
static int save_block(struct save_state *st, const char *name, u32 slice,
		      const char *what, const struct kb_ioc_info *info)
{
	struct save_pass one, two;
	char cap[32];
	struct kb_params p;
	enum kb_img_err why;
	u64 plen, count, age = 0;
	int ret;

	memset(&one, 0, sizeof(one));
	ret = kbconn_export_slice(st->conn, name, slice, save_chunk, &one,
				  &age);
	if (ret)
		return ret;
	if (kb_image_parse_header(one.hdr, sizeof(one.hdr), one.total,
				  0, &p, &plen, &count, &why))
		return bfctl_fail(BFCTL_ERR, what,
				  "kernel exported a bad image: %s",
				  kb_image_strerror(why));
	/* the age as of the first pass, and the clock to add to it later */
	if (slice)
		fprintf(st->f, "slice %s index=%u age-ms=%llu saved-ms=%llu",
			name, slice, (unsigned long long)age,
			(unsigned long long)bfctl_wall_ms());
	else
		fprintf(st->f, "filter %s", name);
	fprintf(st->f, " kind=%s key-type=%s hash=%s m=%llu k=%u items=%llu fpr-ppb=%u%s seed=0x%llx,0x%llx plen4=0x%llx plen6=0x%llx,0x%llx,0x%llx count=%llu bytes=%llu crc32c=0x%08x\n",
		kb_kind_name(p.kind),
		kb_key_type_name(p.key_type), kb_hash_name(p.hash),
		(unsigned long long)p.m, p.k,
		(unsigned long long)p.items, p.fpr_ppb,
		slice ? "" : save_cap(info, cap, sizeof(cap)),
		(unsigned long long)p.seed[0],
		(unsigned long long)p.seed[1],
		(unsigned long long)p.plen4,
		(unsigned long long)p.plen6[0],
		(unsigned long long)p.plen6[1],
		(unsigned long long)p.plen6[2],
		(unsigned long long)count, (unsigned long long)plen,
		one.trailer[0] | one.trailer[1] << 8 |
		one.trailer[2] << 16 | (u32)one.trailer[3] << 24);
	memset(&two, 0, sizeof(two));
	two.f = st->f;
	two.plen = plen;
	two.crc = kb_image_crc_init();
	ret = kbconn_export_slice(st->conn, name, slice, save_chunk, &two,
				  NULL);
	/* changed between the passes: the line is not this data's */
	if (!ret && (two.total != one.total ||
		     memcmp(two.hdr, one.hdr, sizeof(one.hdr)) ||
		     memcmp(two.trailer, one.trailer, sizeof(one.trailer))))
		ret = -EAGAIN;
	if (!ret && kb_image_crc_check(two.crc, two.trailer, &why))
		return bfctl_fail(BFCTL_ERR, what,
				  "kernel exported a bad image: %s",
				  kb_image_strerror(why));
	if (ret)
		return ret;
	if (two.n)
		save_line(&two);
	if (two.zeros)
		fprintf(st->f, "*%llu\n", (unsigned long long)two.zeros);
	fprintf(st->f, "end\n");
	return 0;
}

/* info: the filter as a list found it, or NULL (saved by name) */
static int save_one(struct save_state *st, const char *name,
		    const struct kb_ioc_info *info)
{
	struct kb_ioc_info before, after;
	long mark = -1;
	char what[64];
	int ret = -EAGAIN, tries;
	u32 n;

	snprintf(what, sizeof(what), "save %s", name);
	if (st->rewind) {
		mark = fflush(st->f) ? -1 : ftell(st->f);
		if (mark < 0)
			return bfctl_fail(BFCTL_ERR, what, "%s",
					  strerror(errno));
	}
	for (tries = 0; tries < KBDEV_EXPORT_TRIES && ret == -EAGAIN; tries++) {
		ret = 0;
		if (info && !tries)
			before = *info;
		else if (!info || info->window_ms || info->grow)
			ret = kbconn_info(st->conn, name, &before);
		if (!ret && !before.window_ms && !before.grow) {
			ret = save_block(st, name, 0, what, &before);
		} else if (!ret) {
			/*
			 * A window or a growing filter: its create line, then
			 * each slice with its age; a rotation or growth
			 * between two slices (a new generation) makes it
			 * start over, so that the slices are of one moment
			 */
			bfctl_save_create_line(st->f, &before);
			for (n = 1; !ret && n <= before.nslices; n++)
				ret = save_block(st, name, n, what, &before);
			if (!ret)
				ret = kbconn_info(st->conn, name, &after);
			if (!ret && after.generation != before.generation)
				ret = -EAGAIN;
		}
		if (!ret)
			return bfctl_save_exc(st->conn, st->f, name,
					      before.key_type) ?:
			       bfctl_save_grant(st->conn, st->f, name);
		if (ret > 0)
			return ret;
		if (ret == -EAGAIN && mark < 0)
			return bfctl_fail(BFCTL_ERR, what,
					  "the filter changed while it was written out; try again (a save to a file is retried)");
		if (ret == -EAGAIN && save_rewind(st->f, mark))
			return bfctl_fail(BFCTL_ERR, what, "%s",
					  strerror(errno));
	}
	if (ret == -EAGAIN)
		return bfctl_fail(BFCTL_ERR, what,
				  "the filter kept changing during %d tries, try again later",
				  KBDEV_EXPORT_TRIES);
	return bfctl_fail_err(st->conn, what, ret);
}

static int save_cb(const struct kb_ioc_info *i, void *arg)
{
	struct save_state *st = arg;

	st->ret = save_one(st, i->name, i);
	return st->ret;
}

int bfctl_save_main(int argc, char **argv)
{
	struct kbconn conn;
	struct save_state st = { &conn, stdout, false, 0 };
	const char *file = NULL, *name = NULL;
	struct kbu_out out = { .fd = -1 };
	int i, ret;

	/* the save format is the output: bfctl -j save would ignore -j */
	if (bfctl_json)
		return bfctl_fail(BFCTL_USAGE, "save", "-j is not allowed here");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-file") || !strcmp(argv[i], "--file")) {
			if (++i == argc)
				return bfctl_fail(BFCTL_USAGE, "save", "-file needs a FILE");
			file = argv[i];
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			bfctl_quiet = true;	/* -q anywhere, as for every verb */
		} else if (argv[i][0] == '-') {
			return bfctl_fail(BFCTL_USAGE, "save",
					  "option '%s' is not allowed here (bfctl save [NAME] [-file FILE])",
					  argv[i]);
		} else if (name) {
			return bfctl_fail(BFCTL_USAGE, "save",
					  "usage: bfctl save [NAME] [-file FILE]");
		} else {
			name = argv[i];
			if (!kb_name_valid(name, (u32)strlen(name)))
				return bfctl_fail(BFCTL_USAGE, "save",
						  "bad filter name '%s'", name);
		}
	}
	if (file && strcmp(file, "-")) {
		/* a crash never leaves a half-written save file behind */
		ret = kbu_out_open(&out, file);
		st.f = ret ? NULL : fdopen(out.fd, "w");
		st.rewind = out.replace;
		if (!st.f) {
			ret = ret ?: -errno;
			kbu_out_abort(&out);
			return bfctl_fail(BFCTL_ERR, "save", "%s: %s", file,
					  strerror(-ret));
		}
	}
	kbconn_init(&conn);
	fprintf(st.f, "%s\n", SAVE_MAGIC);
	if (name) {
		ret = save_one(&st, name, NULL);
	} else {
		ret = kbconn_list(&conn, save_cb, &st);
		if (ret < 0)
			ret = bfctl_fail_err(&conn, "save", ret);
		else
			ret = st.ret;
	}
	kbconn_close(&conn);
	/* after the filters, which restore loads before attaching */
	if (!ret)
		ret = bfctl_save_attachments(st.f, name);
	if (!ret)
		fprintf(st.f, "%s\n", SAVE_END);
	if (fflush(st.f) || ferror(st.f)) {
		ret = bfctl_fail(BFCTL_ERR, "save", "%s: %s", file ? file : "stdout",
				 strerror(errno));
	}
	if (st.f != stdout) {
		/* the FILE goes; kbu_out_commit() syncs, closes and renames */
		int err;

		out.fd = dup(fileno(st.f));
		err = out.fd < 0 ? -errno : 0;
		fclose(st.f);
		if (ret || err) {
			kbu_out_abort(&out);
		} else {
			err = kbu_out_commit(&out);
		}
		if (err && !ret)
			ret = bfctl_fail(BFCTL_ERR, "save", "%s: %s", file,
					 strerror(-err));
	}
	return ret;
}

/* ---- restore: filter blocks ---- */

/*
 * Each byte's base64 value plus one (0: not base64), built on first use:
 * a save of a 1M-key filter is 22k lines, and looking every character up
 * in the alphabet with strchr() was half of restore's own time.
 */
static u8 b64_rev[256];

static int b64val(char c)
{
	return b64_rev[(u8)c] - 1;
}

static void b64_rev_init(void)
{
	int i;

	for (i = 0; i < 64; i++)
		b64_rev[(u8)b64[i]] = (u8)(i + 1);
}

/* decode one base64 line into out (room for 57 bytes); bytes or -1 */
static int b64_decode(const char *s, size_t len, u8 *out)
{
	size_t i, o = 0;

	if (!len || len % 4 || len > 76)
		return -1;
	if (!b64_rev['A'])
		b64_rev_init();
	for (i = 0; i < len; i += 4) {
		int a = b64val(s[i]), b = b64val(s[i + 1]);
		int c = s[i + 2] == '=' ? -2 : b64val(s[i + 2]);
		int d = s[i + 3] == '=' ? -2 : b64val(s[i + 3]);
		bool last = i + 4 == len;

		if (a < 0 || b < 0 || c == -1 || d == -1 ||
		    (!last && (c < 0 || d < 0)) || (c == -2 && d != -2))
			return -1;
		out[o++] = (u8)(a << 2 | b >> 4);
		if (c >= 0)
			out[o++] = (u8)(b << 4 | c >> 2);
		if (d >= 0)
			out[o++] = (u8)(c << 6 | d);
	}
	return (int)o;
}

/* "a,b[,c]" of u64s */
static int parse_u64_list(const char *v, u64 *out, int n)
{
	char tmp[128], *save = NULL, *tok;
	int i = 0;

	if (strlen(v) >= sizeof(tmp))
		return -EINVAL;
	strcpy(tmp, v);
	for (tok = strtok_r(tmp, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (i == n || bfctl_parse_u64(tok, &out[i++]))
			return -EINVAL;
	}
	return i == n ? 0 : -EINVAL;
}

#define BAD(what)	bfctl_lines_fail(r, BFCTL_USAGE, "%s", what)

/*
 * A filter line bad before its key-type=: the key type alone still gives
 * restore --on-bad-payload a stand-in that firewall rules accept
 */
static void type_after(struct rfilter *rf, char **save)
{
	char *tok;
	int val;

	while (!rf->have_type && (tok = strtok_r(NULL, " \t", save)))
		if (!strncmp(tok, "key-type=", 9)) {
			val = kb_key_type_from_name(tok + 9);
			rf->key_type = (u32)val;
			rf->have_type = val >= 0;
		}
}

/* the "filter NAME k=v..." line -> params, count, bytes, crc */
static int parse_filter_line(struct bfctl_lines *r, char *s, struct rfilter *rf,
			     struct kb_params *p, u64 *count, u64 *bytes,
			     u32 *crc)
{
	char *save = NULL, *tok, *name;
	u64 v, seen = 0;
	int val;

	memset(p, 0, sizeof(*p));
	*count = 0;
	strtok_r(s, " \t", &save);
	name = strtok_r(NULL, " \t", &save);
	if (!name || !kb_name_valid(name, (u32)strlen(name)))
		return bfctl_lines_fail(r, BFCTL_USAGE, "bad filter name '%s'",
					name ? name : "");
	strcpy(rf->name, name);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');
		const char *key = tok, *val_s;
		int ret = 0;

		if (!eq) {
			type_after(rf, &save);
			return bfctl_lines_fail(r, BFCTL_USAGE,
				       "expected key=value, got '%.40s'", tok);
		}
		*eq = 0;
		val_s = eq + 1;
		if (!strcmp(key, "kind")) {
			val = kb_kind_from_name(val_s);
			ret = val < 0 ? -EINVAL : 0;
			p->kind = (u32)val;
			seen |= 1;
		} else if (!strcmp(key, "key-type")) {
			val = kb_key_type_from_name(val_s);
			ret = val < 0 ? -EINVAL : 0;
			p->key_type = (u32)val;
			rf->key_type = p->key_type;
			rf->have_type = !ret;
			seen |= 2;
		} else if (!strcmp(key, "hash")) {
			val = kb_hash_from_name(val_s);
			ret = val < 0 ? -EINVAL : 0;
			p->hash = (u32)val;
			seen |= 4;
		} else if (!strcmp(key, "m")) {
			ret = bfctl_parse_u64(val_s, &p->m);
			seen |= 8;
		} else if (!strcmp(key, "k")) {
			ret = bfctl_parse_u64(val_s, &v) ?: (v > KB_K_MAX ? -EINVAL : 0);
			p->k = (u32)v;
			seen |= 16;
		} else if (!strcmp(key, "bytes")) {
			ret = bfctl_parse_u64(val_s, bytes);
			seen |= 32;
		} else if (!strcmp(key, "crc32c")) {
			ret = bfctl_parse_u64(val_s, &v) ?: (v >> 32 ? -EINVAL : 0);
			*crc = (u32)v;
			seen |= 64;
		} else if (!strcmp(key, "items")) {
			ret = bfctl_parse_u64(val_s, &p->items);
		} else if (!strcmp(key, "fpr-ppb")) {
			ret = bfctl_parse_u64(val_s, &v) ?: (v >> 32 ? -EINVAL : 0);
			p->fpr_ppb = (u32)v;
		} else if (!strcmp(key, "max-fpr-ppb")) {
			/* the packet path's cap (uapi KB_A_MAX_FPR_PPB) */
			ret = bfctl_parse_u64(val_s, &v) ?:
			      (!v || v > 1000000000 ? -EINVAL : 0);
			rf->cap_ppb = (u32)v;
		} else if (!strcmp(key, "seed")) {
			ret = parse_u64_list(val_s, p->seed, 2);
		} else if (!strcmp(key, "plen4")) {
			ret = bfctl_parse_u64(val_s, &p->plen4);
		} else if (!strcmp(key, "plen6")) {
			ret = parse_u64_list(val_s, p->plen6, 3);
		} else if (!strcmp(key, "count")) {
			ret = bfctl_parse_u64(val_s, count);
		} else if (rf->slice_line && !strcmp(key, "index")) {
			ret = bfctl_parse_u64(val_s, &v) ?:
			      (!v || v > KB_SLICES_MAX ? -EINVAL : 0);
			rf->sl1.index = (u32)v;
		} else if (rf->slice_line && !strcmp(key, "age-ms")) {
			ret = bfctl_parse_u64(val_s, &rf->sl1.age_ms);
		} else if (rf->slice_line && !strcmp(key, "saved-ms")) {
			ret = bfctl_parse_u64(val_s, &rf->sl1.saved_ms);
		} else {
			type_after(rf, &save);
			return bfctl_lines_fail(r, BFCTL_USAGE,
						"unknown field '%.40s'", key);
		}
		if (ret) {
			type_after(rf, &save);
			return bfctl_lines_fail(r, BFCTL_USAGE,
						"bad value for '%s'", key);
		}
	}
	if (seen != 127)
		return BAD("filter line needs kind, key-type, hash, m, k, bytes and crc32c");
	if (rf->slice_line && !rf->sl1.index)
		return BAD("slice line needs index=N (1..16)");
	if (kb_params_validate(p, 0))
		return BAD("inconsistent filter parameters");
	if (rf->cap_ppb && p->kind != KB_KIND_BLOCKED)
		return BAD("max-fpr-ppb is for blocked filters");
	if (*bytes != kb_params_payload_bytes(p))
		return BAD("bytes does not match kind and m");
	return 0;
}

/*
 * rf->img grown to hold need bytes, doubling up to rf->img_len.  realloc()
 * moves a large buffer with mremap(): nothing is copied or cleared again,
 * so every byte is written once, by its payload line or zero run.
 */
static int img_reserve(struct rfilter *rf, u64 *cap, u64 need)
{
	u64 ncap = *cap;
	u8 *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap = ncap * 2 < rf->img_len ? ncap * 2 : rf->img_len;
	n = realloc(rf->img, ncap);
	if (!n)
		return -ENOMEM;
	rf->img = n;
	*cap = ncap;
	return 0;
}

void bfctl_image_request(const struct kb_params *p, struct kb_ioc_create *c,
			  const char *name)
{
	memset(c, 0, sizeof(*c));
	kbdev_set_name(c->name, name);
	c->kind = p->kind;
	c->key_type = p->key_type;
	c->hash = p->hash;
	c->sizing = KB_SIZING_MK;
	c->m = p->m;
	c->k = p->k;
	c->items = p->items;
	/* the seeded hashes; leveldb and murmur3 have none */
	if (p->hash == KB_HASH_XXH64 || p->hash == KB_HASH_SIPHASH) {
		c->flags = KB_CREATE_F_SEED;
		c->seed[0] = p->seed[0];
		c->seed[1] = p->seed[1];
	}
}

int bfctl_save_parse_block(struct bfctl_lines *r, char *fline,
			   struct rfilter *rf, u64 max_bytes, u64 budget)
{
	struct kb_image_cur c;
	struct kb_params p;
	enum kb_img_err why;
	u64 count, bytes = 0, off = 0, cap, hl = sizeof(struct kb_image_hdr);
	u32 crc = 0;
	char *s;
	int ret;

	rf->line = r->line;
	r->in_block = true;	/* until its 'end' */
	ret = parse_filter_line(r, fline, rf, &p, &count, &bytes, &crc);
	if (ret)
		return ret;
	if (bytes > max_bytes)
		return bfctl_lines_fail(r, BFCTL_USAGE,
			       "filter %s: bytes=%llu is over max_filter_bytes (%llu)",
					rf->name, (unsigned long long)bytes,
					(unsigned long long)max_bytes);
	if (bytes > budget)	/* checked before any payload is held */
		return bfctl_lines_fail(r, BFCTL_USAGE,
			       "filter %s: bytes=%llu makes the file's filters total over max_netns_bytes",
					rf->name, (unsigned long long)bytes);
	rf->key_type = p.key_type;
	rf->p = p;
	rf->have_p = true;
	bfctl_image_request(&p, &rf->c, rf->name);
	bfctl_held_from_params(&rf->held, &p, count);
	rf->img_len = hl + bytes + KB_IMAGE_TRAILER_LEN;
	/* grown as payload arrives: bytes= alone costs no memory */
	cap = rf->img_len < 65536 ? rf->img_len : 65536;
	rf->img = malloc(cap);
	if (!rf->img)
		return bfctl_lines_fail(r, BFCTL_ERR, "%s", strerror(ENOMEM));
	while ((s = bfctl_lines_next(r))) {
		u8 dec[64];
		int n;

		if (!strcmp(s, "end")) {
			r->in_block = false;
			break;
		}
		/* its 'end' was lost: the line is the next block's */
		if (bfctl_lines_begins(s)) {
			bfctl_lines_unread(r);
			r->in_block = false;
			return bfctl_lines_fail(r, BFCTL_USAGE,
						"filter %s: missing 'end' line",
						rf->name);
		}
		if (s[0] == '*') {
			u64 z;

			if (bfctl_parse_u64(s + 1, &z) || z > bytes - off)
				return BAD("bad zero run (past the payload's end?)");
			if (img_reserve(rf, &cap, hl + off + z))
				return bfctl_lines_fail(r, BFCTL_ERR, "%s",
							strerror(ENOMEM));
			memset(rf->img + hl + off, 0, (size_t)z);
			off += z;
			continue;
		}
		n = b64_decode(s, r->len, dec);
		if (n < 0)
			return BAD("bad base64 payload line");
		if ((u64)n > bytes - off)
			return BAD("payload longer than bytes=");
		if (img_reserve(rf, &cap, hl + off + (u64)n))
			return bfctl_lines_fail(r, BFCTL_ERR, "%s",
						strerror(ENOMEM));
		memcpy(rf->img + hl + off, dec, (size_t)n);
		off += (u64)n;
	}
	if (!s) {
		if (r->code && !r->discard)
			r->in_block = false;	/* a read error: no more */
		if (r->code)
			return -EINVAL;
		r->in_block = false;
		return bfctl_lines_fail(r, BFCTL_USAGE,
					"filter %s: missing 'end' line",
					rf->name);
	}
	if (off != bytes)
		return BAD("payload shorter than bytes=");
	if (img_reserve(rf, &cap, rf->img_len))
		return bfctl_lines_fail(r, BFCTL_ERR, "%s", strerror(ENOMEM));
	/*
	 * The image the kernel exported: the header the cursor writes from
	 * the line, the payload, crc32c= as the trailer; then the checks the
	 * kernel makes, so that no filter loads if one fails.
	 */
	kb_image_cur_write_begin(&c, &p, count);
	kb_image_cur_produce(&c, NULL, rf->img, hl);
	memcpy(rf->img + hl + bytes, &(__le32){ kb_cpu_to_le32(crc) }, 4);
	ret = kb_image_parse(rf->img, rf->img_len, 0, &p, NULL, NULL, NULL,
			     &why);
	if (ret == -EBADMSG)
		return bfctl_lines_fail(r, BFCTL_USAGE,
			       "filter %s: crc32c does not match the data",
					rf->name);
	if (ret)
		return BAD(kb_image_strerror(why));
	return 0;
}
