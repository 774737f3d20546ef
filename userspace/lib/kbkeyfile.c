// SPDX-License-Identifier: GPL-2.0
/*
 * The key-file reader every userspace program shares (kbu_keyfile_*,
 * kbu_keyset_*): one rule for what a line of a key file holds, the same
 * for bfctl add, rebuild, image build and lsm attach, so that a list
 * written by hand or fetched from a blocklist project reads the same
 * whichever verb is given it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kbuser.h"

static bool kbu_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool kbu_keyline_comments_inline(u32 key_type, int fmt)
{
	/* hex digits and addresses never hold '#', ';' or a blank */
	return fmt == KBU_FMT_HEX ||
	       (key_type != KB_KEY_BYTES && key_type != KB_KEY_STR);
}

bool kbu_keyline(u32 key_type, int fmt, const char *s, size_t len,
		 const char **key, size_t *klen)
{
	const char *end = s + len;

	while (s < end && kbu_blank(*s))
		s++;
	if (s == end || *s == '#' || *s == ';')
		return false;
	if (kbu_keyline_comments_inline(key_type, fmt)) {
		const char *c = s;

		while (c < end && *c != '#' && *c != ';')
			c++;
		end = c;
	}
	while (end > s && kbu_blank(end[-1]))
		end--;
	*key = s;
	*klen = (size_t)(end - s);
	return true;
}

void kbu_quote(char *out, size_t outlen, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i, max = len > KBU_QUOTE_MAX ? KBU_QUOTE_MAX : len;

	if (outlen < 3) {
		if (outlen)
			out[0] = 0;
		return;
	}
	out[o++] = '\'';
	/* room for one escape, the closing quote, "..." and the NUL */
	for (i = 0; i < max && o + 4 + 1 + 3 + 1 <= outlen; i++) {
		u8 c = (u8)s[i];

		if (c == '\'' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	out[o++] = '\'';
	if (i < len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
}

/*
 * Chunks of KBU_KEYFILE_CHUNK bytes: memory stays bounded whatever the
 * file's size, and a pipe reads like a file.
 */
#define KBU_KEYFILE_CHUNK	(4u << 20)

/* where a line failed: its text, quoted into the message */
struct kbu_keyfile_bad {
	const char *why;
	const char *text;
	size_t len;
};

/* the whole lines of buf[0..len) (and a last partial one when final) */
static int kbu_keyfile_lines(const char *buf, size_t len, bool final,
			     u32 key_type, int fmt, u64 *line, size_t *used,
			     int (*key)(const u8 *k, u32 klen, u64 line,
					void *arg),
			     void *arg, struct kbu_keyfile_bad *bad)
{
	const char *p = buf, *end = buf + len, *ks;
	u8 one[KB_KEY_MAX_LEN + 1];
	size_t kl;
	u32 olen;
	int ret;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl && !final)
			break;
		(*line)++;
		if (kbu_keyline(key_type, fmt, p, (size_t)((nl ? nl : end) - p),
				&ks, &kl)) {
			ret = kbu_key_parse(key_type, fmt, ks, kl, one, &olen,
					    &bad->why);
			if (ret) {
				bad->text = ks;
				bad->len = kl;
				return ret;
			}
			/* key()'s failure is not about the text */
			bad->why = NULL;
			ret = key(one, olen, *line, arg);
			if (ret)
				return ret;
		}
		p = nl ? nl + 1 : end;
	}
	*used = (size_t)(p - buf);
	return 0;
}

int kbu_keyfile_read_fd(int fd, u32 key_type, int fmt,
			int (*key)(const u8 *k, u32 len, u64 line, void *arg),
			void *arg, char *err, size_t errlen, u64 *errline)
{
	size_t have = 0, used, cap = KBU_KEYFILE_CHUNK;
	struct kbu_keyfile_bad bad = { NULL, NULL, 0 };
	char q[KBU_QUOTE_SIZE];
	u64 line = 0;
	char *buf;
	int ret = 0;

	*errline = 0;
	err[0] = 0;
	buf = malloc(cap);
	if (!buf) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (;;) {
		ssize_t r;

		if (have == cap) {	/* one line longer than the buffer */
			*errline = line + 1;
			kbu_quote(q, sizeof(q), buf, have);
			snprintf(err, errlen, "line too long: %s", q);
			ret = -EINVAL;
			break;
		}
		r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s", strerror(errno));
			break;
		}
		have += (size_t)r;
		bad.why = NULL;
		ret = kbu_keyfile_lines(buf, have, r == 0, key_type, fmt,
					&line, &used, key, arg, &bad);
		if (ret) {
			/* a key that does not parse; else key()'s return */
			if (bad.why) {
				*errline = line;
				kbu_quote(q, sizeof(q), bad.text, bad.len);
				snprintf(err, errlen, "%s %s", bad.why, q);
			}
			break;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
		if (r == 0)
			break;
	}
	free(buf);
	return ret;
}

int kbu_keyfile_read(const char *path, u32 key_type, int fmt,
		     int (*key)(const u8 *k, u32 len, u64 line, void *arg),
		     void *arg, char *err, size_t errlen, u64 *errline)
{
	int fd, ret;

	*errline = 0;
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		return ret;
	}
	ret = kbu_keyfile_read_fd(fd, key_type, fmt, key, arg, err, errlen,
				  errline);
	if (fd > 0)
		close(fd);
	return ret;
}

void kbu_keyfile_msg(char *out, size_t outlen, const char *path, int ret,
		     const char *err, u64 errline)
{
	if (errline)
		snprintf(out, outlen, "%s:%llu: %s", path,
			 (unsigned long long)errline, err);
	else
		snprintf(out, outlen, "%s: %s", path,
			 err[0] ? err : strerror(ret < 0 ? -ret : EINVAL));
}

void kbu_keyset_free(struct kbu_keyset *ks)
{
	free(ks->keys);
	free(ks->buf);
	memset(ks, 0, sizeof(*ks));
}

/* kbu_keyset_load()'s key(): keys and their bytes in growing arrays */
struct kbu_keyset_fill {
	struct kbu_keyset *ks;
	u64 cap;		/* of ks->keys */
	size_t off, size;	/* used and allocated bytes of ks->buf */
};

static int kbu_keyset_add(const u8 *k, u32 len, u64 line, void *arg)
{
	struct kbu_keyset_fill *fl = arg;
	struct kbu_keyset *ks = fl->ks;

	(void)line;
	if (ks->n == fl->cap) {
		u64 cap = fl->cap ? fl->cap * 2 : 1024;
		struct kb_key *nk = realloc(ks->keys, cap * sizeof(*nk));

		if (!nk)
			return -ENOMEM;
		ks->keys = nk;
		fl->cap = cap;
	}
	if (fl->size - fl->off < len) {
		size_t size = fl->size ? fl->size * 2 : 65536;
		u8 *nb;

		while (size - fl->off < len)
			size *= 2;
		nb = realloc(ks->buf, size);
		if (!nb)
			return -ENOMEM;
		ks->buf = nb;
		fl->size = size;
	}
	memcpy(ks->buf + fl->off, k, len);
	/* an offset until the end: buf may still move */
	ks->keys[ks->n].data = (const void *)(uintptr_t)fl->off;
	ks->keys[ks->n].len = len;
	fl->off += len;
	ks->n++;
	return 0;
}

int kbu_keyset_load(struct kbu_keyset *ks, const char *path, u32 key_type,
		    int fmt, char *err, size_t errlen)
{
	struct kbu_keyset_fill fl = { .ks = ks };
	char why[256];
	u64 line, i;
	int ret;

	memset(ks, 0, sizeof(*ks));
	ret = kbu_keyfile_read(path, key_type, fmt, kbu_keyset_add, &fl, why,
			       sizeof(why), &line);
	if (ret) {
		/* key()'s only failure is ENOMEM, said by strerror */
		kbu_keyfile_msg(err, errlen, path, ret, why, line);
		kbu_keyset_free(ks);
		return ret;
	}
	for (i = 0; i < ks->n; i++)
		ks->keys[i].data = ks->buf + (uintptr_t)ks->keys[i].data;
	return 0;
}
