// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl save / restore: filters as text that restores byte-identically.
 *
 * A Bloom filter cannot list its keys, so a filter is saved as its
 * parameters (one "filter" line) and its payload (the image's bitset):
 *
 *   # bfctl save 1
 *   filter NAME kind=K key-type=T hash=H m=M k=K items=N fpr-ppb=P
 *          seed=S0,S1 plen4=X plen6=X0,X1,X2 count=C bytes=B crc32c=X
 *   <payload lines>
 *   end
 *
 * (the filter line is one line).  A payload line is base64 (RFC 4648, at
 * most 76 characters = 57 bytes) or "*N": N zero bytes, so empty and
 * sparse filters stay small.  crc32c is the CRC of the whole image the
 * kernel exported; restore rebuilds the image from the text and refuses it
 * unless the CRC matches, so a restored filter exports byte-identically.
 * Lines starting with '#' and empty lines are ignored.
 *
 * restore reads and checks the whole input before changing anything; each
 * filter is then loaded through a /dev/kbloom transaction (begin, upload
 * into the staging generation, commit), so it appears complete or not at
 * all.  Errors name the line: "line N: why".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bfctl.h"

#define SAVE_MAGIC	"# bfctl save 1"
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

/* write one exported image as a filter block */
static int save_image(FILE *f, const char *name, const u8 *img, u64 len)
{
	struct kb_params p;
	const void *payload;
	u64 plen, count, off, zeros = 0;
	enum kb_img_err why;
	u32 crc;
	int ret;

	ret = kb_image_parse(img, len, 0, &p, &payload, &plen, &count, &why);
	if (ret)
		return bfctl_fail(BFCTL_ERR, name, "kernel exported a bad image: %s",
				  kb_image_strerror(why));
	memcpy(&crc, img + len - KB_IMAGE_TRAILER_LEN, sizeof(crc));
	fprintf(f, "filter %s kind=%s key-type=%s hash=%s m=%llu k=%u items=%llu fpr-ppb=%u seed=0x%llx,0x%llx plen4=0x%llx plen6=0x%llx,0x%llx,0x%llx count=%llu bytes=%llu crc32c=0x%08x\n",
		name, kb_kind_name(p.kind), kb_key_type_name(p.key_type),
		kb_hash_name(p.hash), (unsigned long long)p.m, p.k,
		(unsigned long long)p.items, p.fpr_ppb,
		(unsigned long long)p.seed[0], (unsigned long long)p.seed[1],
		(unsigned long long)p.plen4, (unsigned long long)p.plen6[0],
		(unsigned long long)p.plen6[1], (unsigned long long)p.plen6[2],
		(unsigned long long)count, (unsigned long long)plen,
		kb_le32_to_cpu(crc));
	for (off = 0; off < plen; off += B64_LINE) {
		size_t n = plen - off < B64_LINE ? (size_t)(plen - off) : B64_LINE;
		const u8 *q = (const u8 *)payload + off;

		if (all_zero(q, n)) {
			zeros += n;
			continue;
		}
		if (zeros)
			fprintf(f, "*%llu\n", (unsigned long long)zeros);
		zeros = 0;
		b64_line(f, q, n);
	}
	if (zeros)
		fprintf(f, "*%llu\n", (unsigned long long)zeros);
	fprintf(f, "end\n");
	return BFCTL_OK;
}

struct save_state {
	struct bfctl_conn *conn;
	FILE *f;
	int ret;
};

static int save_one(struct bfctl_conn *conn, FILE *f, const char *name)
{
	u8 *img;
	u64 len;
	int ret;

	ret = bfc_dev(conn);
	if (ret >= 0)
		ret = kbdev_export(conn->dev, 0, name, &img, &len);
	if (ret) {
		char what[64];

		snprintf(what, sizeof(what), "save %s", name);
		return bfc_fail(conn, what, ret);
	}
	ret = save_image(f, name, img, len);
	free(img);
	return ret;
}

static int save_cb(const struct kb_ioc_info *i, void *arg)
{
	struct save_state *st = arg;

	st->ret = save_one(st->conn, st->f, i->name);
	return st->ret;
}

int bfctl_save_main(int argc, char **argv)
{
	struct bfctl_conn conn;
	struct save_state st = { &conn, stdout, 0 };
	const char *file = NULL, *name = NULL;
	char tmp[4096] = "";
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-file") || !strcmp(argv[i], "--file")) {
			if (++i == argc)
				return bfctl_fail(BFCTL_USAGE, "save", "-file needs a FILE");
			file = argv[i];
		} else if (argv[i][0] == '-' || name) {
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
		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", file, (int)getpid());
		st.f = fopen(tmp, "we");
		if (!st.f)
			return bfctl_fail(BFCTL_ERR, "save", "%s: %s", tmp,
					  strerror(errno));
	}
	bfc_init(&conn);
	fprintf(st.f, "%s\n", SAVE_MAGIC);
	if (name) {
		ret = save_one(&conn, st.f, name);
	} else {
		ret = bfc_list(&conn, save_cb, &st);
		if (ret < 0)
			ret = bfc_fail(&conn, "save", ret);
		else
			ret = st.ret;
	}
	bfc_close(&conn);
	if (fflush(st.f) || ferror(st.f)) {
		ret = bfctl_fail(BFCTL_ERR, "save", "%s: %s", file ? file : "stdout",
				 strerror(errno));
	}
	if (st.f != stdout) {
		if (!ret && fsync(fileno(st.f)))
			ret = bfctl_fail(BFCTL_ERR, "save", "%s: %s", tmp,
					 strerror(errno));
		fclose(st.f);
		if (!ret && rename(tmp, file))
			ret = bfctl_fail(BFCTL_ERR, "save", "%s: %s", file,
					 strerror(errno));
		if (ret)
			unlink(tmp);
	}
	return ret;
}

/* ---- restore ---- */

/* one parsed filter block, its image rebuilt from the text */
struct rfilter {
	char name[KB_NAME_MAX];
	u64 line;		/* of its "filter" line */
	u8 *img;
	u64 img_len;
};

struct rparse {
	const char *src;	/* for messages */
	u64 line;
	char err[256];
};

static int rerr(struct rparse *rp, const char *fmt, const char *arg)
{
	int n = snprintf(rp->err, sizeof(rp->err), "line %llu: ",
			 (unsigned long long)rp->line);

	snprintf(rp->err + n, sizeof(rp->err) - (size_t)n, fmt, arg);
	return -EINVAL;
}

static int b64val(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* decode one base64 line into out (room for 57 bytes); bytes or -1 */
static int b64_decode(const char *s, size_t len, u8 *out)
{
	size_t i, o = 0;

	if (!len || len % 4 || len > 76)
		return -1;
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

static int parse_u64_field(const char *v, u64 *out)
{
	return bfctl_parse_u64(v, out);
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

/* the "filter NAME k=v..." line -> params, count, bytes, crc */
static int parse_filter_line(struct rparse *rp, char *s, struct rfilter *rf,
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
		return rerr(rp, "bad filter name '%s'", name ? name : "");
	strcpy(rf->name, name);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');
		const char *key = tok, *val_s;
		int r = 0;

		if (!eq)
			return rerr(rp, "expected key=value, got '%s'", tok);
		*eq = 0;
		val_s = eq + 1;
		if (!strcmp(key, "kind")) {
			val = kb_kind_from_name(val_s);
			r = val < 0 ? -EINVAL : 0;
			p->kind = (u32)val;
			seen |= 1;
		} else if (!strcmp(key, "key-type")) {
			val = kb_key_type_from_name(val_s);
			r = val < 0 ? -EINVAL : 0;
			p->key_type = (u32)val;
			seen |= 2;
		} else if (!strcmp(key, "hash")) {
			val = kb_hash_from_name(val_s);
			r = val < 0 ? -EINVAL : 0;
			p->hash = (u32)val;
			seen |= 4;
		} else if (!strcmp(key, "m")) {
			r = parse_u64_field(val_s, &p->m);
			seen |= 8;
		} else if (!strcmp(key, "k")) {
			r = parse_u64_field(val_s, &v) ?: (v > KB_K_MAX ? -EINVAL : 0);
			p->k = (u32)v;
			seen |= 16;
		} else if (!strcmp(key, "bytes")) {
			r = parse_u64_field(val_s, bytes);
			seen |= 32;
		} else if (!strcmp(key, "crc32c")) {
			r = parse_u64_field(val_s, &v) ?: (v >> 32 ? -EINVAL : 0);
			*crc = (u32)v;
			seen |= 64;
		} else if (!strcmp(key, "items")) {
			r = parse_u64_field(val_s, &p->items);
		} else if (!strcmp(key, "fpr-ppb")) {
			r = parse_u64_field(val_s, &v) ?: (v >> 32 ? -EINVAL : 0);
			p->fpr_ppb = (u32)v;
		} else if (!strcmp(key, "seed")) {
			r = parse_u64_list(val_s, p->seed, 2);
		} else if (!strcmp(key, "plen4")) {
			r = parse_u64_field(val_s, &p->plen4);
		} else if (!strcmp(key, "plen6")) {
			r = parse_u64_list(val_s, p->plen6, 3);
		} else if (!strcmp(key, "count")) {
			r = parse_u64_field(val_s, count);
		} else {
			return rerr(rp, "unknown field '%s'", key);
		}
		if (r)
			return rerr(rp, "bad value for '%s'", key);
	}
	if (seen != 127)
		return rerr(rp, "%s", "filter line needs kind, key-type, hash, m, k, bytes and crc32c");
	if (kb_params_validate(p, 0))
		return rerr(rp, "%s", "inconsistent filter parameters");
	if (*bytes != kb_params_payload_bytes(p))
		return rerr(rp, "%s", "bytes does not match kind and m");
	return 0;
}

/* next line of buf (NUL-terminates it in place); NULL at the end */
static char *next_line(char **pos, char *end, struct rparse *rp)
{
	char *s = *pos, *nl;

	if (s >= end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(end - s));
	if (nl)
		*nl = 0;
	else
		*end = 0;	/* the buffer has a spare byte */
	*pos = nl ? nl + 1 : end;
	rp->line++;
	if (nl > s && nl[-1] == '\r')
		nl[-1] = 0;
	return s;
}

/* parse one block after its filter line; fills rf->img */
static int parse_block(struct rparse *rp, char *fline, char **pos, char *end,
		       struct rfilter *rf)
{
	struct kb_image_hdr *h;
	struct kb_params p;
	u64 count, bytes = 0, off = 0;
	u32 crc = 0, got;
	u8 *payload;
	char *s;
	int ret;

	rf->line = rp->line;
	ret = parse_filter_line(rp, fline, rf, &p, &count, &bytes, &crc);
	if (ret)
		return ret;
	rf->img_len = sizeof(*h) + bytes + KB_IMAGE_TRAILER_LEN;
	rf->img = kbu_alloc_payload(rf->img_len);
	if (!rf->img)
		return rerr(rp, "%s", "out of memory");
	h = (struct kb_image_hdr *)rf->img;
	kb_image_fill_header(h, &p, count);
	payload = rf->img + sizeof(*h);
	while ((s = next_line(pos, end, rp))) {
		u8 dec[64];
		int n;

		if (!strcmp(s, "end"))
			break;
		if (s[0] == '*') {
			u64 z;

			if (bfctl_parse_u64(s + 1, &z) || z > bytes - off)
				return rerr(rp, "%s", "bad zero run (past the payload's end?)");
			off += z;	/* the buffer is zeroed */
			continue;
		}
		n = b64_decode(s, strlen(s), dec);
		if (n < 0)
			return rerr(rp, "%s", "bad base64 payload line");
		if ((u64)n > bytes - off)
			return rerr(rp, "%s", "payload longer than bytes=");
		memcpy(payload + off, dec, (size_t)n);
		off += (u64)n;
	}
	if (!s)
		return rerr(rp, "filter %s: missing 'end' line", rf->name);
	if (off != bytes)
		return rerr(rp, "%s", "payload shorter than bytes=");
	got = kb_image_crc_final(kb_image_crc_update(kb_image_crc_init(),
						       rf->img, sizeof(*h) + bytes));
	if (got != crc)
		return rerr(rp, "filter %s: crc32c does not match the data", rf->name);
	h = NULL;
	memcpy(payload + bytes, &(__le32){ kb_cpu_to_le32(got) }, 4);
	return 0;
}

static int parse_restore(struct rparse *rp, char *buf, size_t len,
			 struct rfilter **out, size_t *nout)
{
	char *pos = buf, *end = buf + len, *s;
	struct rfilter *v = NULL;
	size_t n = 0;
	int ret;

	while ((s = next_line(&pos, end, rp))) {
		struct rfilter *nv;
		size_t i;

		if (!s[0] || s[0] == '#')
			continue;
		if (strncmp(s, "filter ", 7))
			return rerr(rp, "expected 'filter NAME ...', got '%.40s'", s);
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			return rerr(rp, "%s", "out of memory");
		v = nv;
		memset(&v[n], 0, sizeof(v[n]));
		*out = v;
		*nout = ++n;
		ret = parse_block(rp, s, &pos, end, &v[n - 1]);
		if (ret)
			return ret;
		for (i = 0; i + 1 < n; i++)
			if (!strcmp(v[i].name, v[n - 1].name)) {
				rp->line = v[n - 1].line;
				return rerr(rp, "filter %s appears twice", v[i].name);
			}
	}
	return 0;
}

/* load one filter atomically: a transaction with the image as its data */
static int restore_one(struct bfctl_conn *conn, const struct rfilter *rf)
{
	const struct kb_image_hdr *h = (const void *)rf->img;
	struct kb_ioc_create c;
	char what[64];
	u32 why = 0;
	int ret;

	snprintf(what, sizeof(what), "restore %s", rf->name);
	memset(&c, 0, sizeof(c));
	kbdev_set_name(c.name, rf->name);
	c.kind = le32toh(h->kind);
	c.key_type = le32toh(h->key_type);
	c.hash = le32toh(h->hash);
	c.sizing = KB_SIZING_MK;
	c.m = le64toh(h->m);
	c.k = le32toh(h->k);
	c.items = le64toh(h->items);
	if (c.hash != KB_HASH_LEVELDB) {
		c.flags = KB_CREATE_F_SEED;
		c.seed[0] = le64toh(h->seed[0]);
		c.seed[1] = le64toh(h->seed[1]);
	}
	ret = kbdev_txn_begin(conn->dev, &c);
	if (ret)
		return bfc_fail(conn, what, ret);
	ret = kbdev_upload(conn->dev, KB_IMAGE_F_TXN, rf->name, rf->img,
			   rf->img_len, &why);
	if (!ret)
		ret = kbdev_txn_commit(conn->dev);
	if (ret) {
		if (why && why < KB_IMG_ERR_MAX)
			snprintf(conn->extack, sizeof(conn->extack), "%s",
				 kb_image_strerror(why));
		kbdev_txn_abort(conn->dev);
		return bfc_fail(conn, what, ret);
	}
	return 0;
}

/* stdin (a pipe, maybe): no /dev/stdin in minimal systems; spare byte */
static int read_stdin(u8 **buf, size_t *len)
{
	size_t cap = 1 << 20, got = 0;
	u8 *b = malloc(cap), *nb;
	ssize_t r;

	while (b) {
		if (got + 1 >= cap) {
			nb = realloc(b, cap * 2);
			if (!nb)
				break;
			b = nb;
			cap *= 2;
		}
		r = read(0, b + got, cap - got - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return -errno;
		}
		if (!r) {
			*buf = b;
			*len = got;
			return 0;
		}
		got += (size_t)r;
	}
	free(b);
	return -ENOMEM;
}

int bfctl_restore_main(int argc, char **argv)
{
	struct rparse rp = { 0 };
	struct bfctl_conn conn;
	struct rfilter *v = NULL;
	const char *file = "-";
	bool exist = false;
	size_t n = 0, i, len;
	u8 *buf;
	int ret;

	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "-file") || !strcmp(argv[i], "--file")) {
			if (++i == (size_t)argc)
				return bfctl_fail(BFCTL_USAGE, "restore", "-file needs a FILE");
			file = argv[i];
		} else if (!strcmp(argv[i], "-exist") || !strcmp(argv[i], "--exist")) {
			exist = true;
		} else {
			return bfctl_fail(BFCTL_USAGE, "restore",
					  "usage: bfctl restore [-file FILE] [-exist]");
		}
	}
	ret = strcmp(file, "-") ? kbu_read_file(file, &buf, &len) :
			read_stdin(&buf, &len);
	if (ret)
		return bfctl_fail(BFCTL_ERR, "restore", "%s: %s", file, strerror(-ret));
	rp.src = file;
	/* kbu_read_file leaves at least one spare byte for the last NUL */
	ret = parse_restore(&rp, (char *)buf, len, &v, &n);
	free(buf);
	if (ret) {
		ret = bfctl_fail(BFCTL_ERR, "restore", "%s: %s", file, rp.err);
		goto out;
	}
	bfc_init(&conn);
	ret = bfc_dev(&conn);
	if (ret < 0) {
		ret = bfc_fail(&conn, "restore: open " KBDEV_PATH, ret);
		goto close;
	}
	/* refuse before changing anything when a name is taken */
	for (i = 0; !exist && i < n; i++) {
		struct kb_ioc_info info;

		if (!kbdev_info(conn.dev, v[i].name, &info)) {
			ret = bfctl_fail(BFCTL_ERR, "restore", "%s: line %llu: filter %s exists (-exist replaces it)",
					 file, (unsigned long long)v[i].line,
					 v[i].name);
			goto close;
		}
	}
	ret = 0;
	for (i = 0; !ret && i < n; i++)
		ret = restore_one(&conn, &v[i]);
close:
	bfc_close(&conn);
out:
	for (i = 0; i < n; i++)
		free(v[i].img);
	free(v);
	return ret;
}
