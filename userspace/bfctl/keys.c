// SPDX-License-Identifier: GPL-2.0
/*
 * Keys for the kernel verbs: text -> the key type's encoding, packed the
 * way KB_IOC_ADD and friends take them (key_size 0), and streaming of key
 * files in big batches so that loading costs little more than parsing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bfctl.h"

#define BFK_READ_CHUNK	(4u << 20)

int bfk_init(struct bfk_batch *b, u64 max_count, u64 cap)
{
	memset(b, 0, sizeof(*b));
	b->max_count = max_count;
	b->cap = cap;
	b->buf = malloc(cap);
	b->line = malloc(max_count * sizeof(*b->line));
	if (!b->buf || !b->line) {
		bfk_free(b);
		return -ENOMEM;
	}
	return 0;
}

void bfk_free(struct bfk_batch *b)
{
	free(b->buf);
	free(b->line);
	memset(b, 0, sizeof(*b));
}

void bfk_reset(struct bfk_batch *b)
{
	b->len = 0;
	b->count = 0;
}

int bfk_format(u32 key_type)
{
	return key_type == KB_KEY_BYTES ? KBU_FMT_HEX : KBU_FMT_STR;
}

static bool bfk_full(const struct bfk_batch *b)
{
	return b->count >= b->max_count ||
	       b->cap - b->len < KB_KEY_MAX_LEN + 1 + sizeof(u16);
}

int bfk_reserve(struct bfk_batch *b)
{
	u64 cap = b->cap * 2, max = b->max_count * 2;
	u8 *nb;
	u64 *nl;

	if (!bfk_full(b))
		return 0;
	nb = realloc(b->buf, cap);
	if (!nb)
		return -ENOMEM;
	b->buf = nb;
	b->cap = cap;
	nl = realloc(b->line, max * sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	b->line = nl;
	b->max_count = max;
	return 0;
}

int bfk_push_text(struct bfk_batch *b, u32 key_type, const char *s,
		  size_t len, u64 line, const char **why)
{
	u8 *dst = b->buf + b->len + sizeof(u16);
	u32 klen;
	u16 l16;
	int ret;

	/* a network with host bits set is refused: see bfctl(8), KEYS */
	ret = kbu_key_parse(key_type, bfk_format(key_type), s, len, dst, &klen,
			    why);
	if (ret)
		return ret;
	l16 = (u16)klen;
	memcpy(b->buf + b->len, &l16, sizeof(l16));
	b->len += sizeof(u16) + klen;
	b->line[b->count++] = line;
	return 0;
}

int bfk_expand_prefixes(const struct bfk_batch *in,
			const struct kb_params *held, struct bfk_batch *out)
{
	const u8 *p;
	u64 i, n = 0;
	u32 pl;
	u16 l16;

	/* how many keys: a host key becomes one per prefix length held */
	for (i = 0, p = in->buf; i < in->count; i++, p += sizeof(u16) + l16) {
		u32 alen;

		memcpy(&l16, p, sizeof(l16));
		alen = l16 - 1u;
		if (p[sizeof(u16) + alen] != alen * 8) {
			n++;
			continue;
		}
		for (pl = 0; pl <= alen * 8; pl++)
			n += kb_params_has_prefix(held, alen == 4 ? 4 : 6, pl);
	}
	if (bfk_init(out, n ? n : 1, (n ? n : 1) * (sizeof(u16) + 17)))
		return -ENOMEM;
	for (i = 0, p = in->buf; i < in->count; i++, p += sizeof(u16) + l16) {
		const u8 *key = p + sizeof(u16);
		u32 alen, top, j;

		memcpy(&l16, p, sizeof(l16));
		alen = l16 - 1u;
		top = key[alen] == alen * 8 ? alen * 8 : 0;
		for (j = 0; j <= top; j++) {
			u8 *dst = out->buf + out->len;

			pl = top - j;	/* longest first */
			if (top && !kb_params_has_prefix(held, alen == 4 ? 4 : 6, pl))
				continue;
			memcpy(dst, &l16, sizeof(l16));
			if (top)
				kb_key_net(dst + sizeof(u16), key, alen, pl);
			else
				memcpy(dst + sizeof(u16), key, l16);
			out->len += sizeof(u16) + l16;
			out->line[out->count++] = i;
		}
	}
	return 0;
}

void bfk_key_text(const struct bfk_batch *b, u32 key_type, u64 i, char *out,
		  size_t outlen)
{
	const u8 *p = b->buf;
	u64 j;
	u16 l16;
	size_t o = 0, k;

	for (j = 0;; j++) {
		memcpy(&l16, p, sizeof(l16));
		if (j == i)
			break;
		p += sizeof(u16) + l16;
	}
	p += sizeof(u16);
	if (key_type == KB_KEY_BYTES) {
		for (k = 0; k < l16 && o + 3 < outlen; k++)
			o += (size_t)snprintf(out + o, outlen - o, "%02x", p[k]);
		out[o] = 0;
	} else if (key_type == KB_KEY_STR) {
		k = l16 < outlen - 1 ? l16 : outlen - 1;
		memcpy(out, p, k);
		out[k] = 0;
	} else {
		char addr[64];
		bool v6 = l16 >= 16;

		inet_ntop(v6 ? AF_INET6 : AF_INET, p, addr, sizeof(addr));
		if (l16 == 5 || l16 == 17)
			snprintf(out, outlen, "%s/%u", addr, p[v6 ? 16 : 4]);
		else
			snprintf(out, outlen, "%s", addr);
	}
}

static int bfk_parse_lines(const char *buf, size_t len, bool final,
			   u32 key_type, struct bfk_batch *b, u64 *line,
			   size_t *used, int (*flush)(struct bfk_batch *, void *),
			   void *arg, char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *why;
	int ret;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l;

		if (!nl && !final)
			break;
		l = (size_t)((nl ? nl : end) - p);
		if (l && p[l - 1] == '\r')	/* CRLF files, as restore */
			l--;
		(*line)++;
		if (l) {
			ret = bfk_push_text(b, key_type, p, l, *line, &why);
			if (ret) {
				snprintf(err, errlen, "line %llu: %s",
					 (unsigned long long)*line, why);
				return ret;
			}
			if (bfk_full(b)) {
				ret = flush(b, arg);
				if (ret)
					return ret;
				bfk_reset(b);
			}
		}
		p = nl ? nl + 1 : end;
	}
	*used = (size_t)(p - buf);
	return 0;
}

int bfk_stream_file(const char *path, u32 key_type, struct bfk_batch *b,
		    int (*flush)(struct bfk_batch *b, void *arg), void *arg,
		    char *err, size_t errlen)
{
	size_t have = 0, used, cap = BFK_READ_CHUNK;
	u64 line = 0;
	char *buf;
	int fd, ret = 0;

	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		goto out;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (;;) {
		ssize_t r;

		if (have == cap) {	/* one line longer than the buffer */
			snprintf(err, errlen, "line %llu: line too long",
				 (unsigned long long)line + 1);
			ret = -EINVAL;
			goto out;
		}
		r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s", strerror(errno));
			goto out;
		}
		have += (size_t)r;
		ret = bfk_parse_lines(buf, have, r == 0, key_type, b, &line,
				      &used, flush, arg, err, errlen);
		if (ret)
			goto out;
		memmove(buf, buf + used, have - used);
		have -= used;
		if (r == 0)
			break;
	}
	if (b->count)
		ret = flush(b, arg);
	bfk_reset(b);
out:
	free(buf);
	if (fd > 0)
		close(fd);
	return ret;
}

s64 bfk_count_lines(const char *path)
{
	struct stat st;
	char *buf;
	s64 n = 0;
	ssize_t r;
	char last = '\n';
	int fd;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(BFK_READ_CHUNK);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while ((r = read(fd, buf, BFK_READ_CHUNK)) > 0) {
		const char *p = buf, *end = buf + r;

		while ((p = memchr(p, '\n', (size_t)(end - p)))) {
			n++;
			p++;
		}
		last = buf[r - 1];
	}
	if (last != '\n')
		n++;
	free(buf);
	close(fd);
	return n;
}
