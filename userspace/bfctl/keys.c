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

#define BFCTL_READ_CHUNK	(4u << 20)

int bfctl_batch_init(struct bfctl_batch *b, u64 max_count, u64 cap)
{
	memset(b, 0, sizeof(*b));
	b->max_count = max_count;
	b->cap = cap;
	b->buf = malloc(cap);
	b->line = malloc(max_count * sizeof(*b->line));
	if (!b->buf || !b->line) {
		bfctl_batch_free(b);
		return -ENOMEM;
	}
	return 0;
}

void bfctl_batch_free(struct bfctl_batch *b)
{
	free(b->buf);
	free(b->line);
	memset(b, 0, sizeof(*b));
}

void bfctl_batch_reset(struct bfctl_batch *b)
{
	b->len = 0;
	b->count = 0;
}

int bfctl_key_format(int given, u32 key_type)
{
	if (given >= 0)
		return given;
	return key_type == KB_KEY_BYTES ? KBU_FMT_HEX : KBU_FMT_STR;
}

static bool bfctl_batch_full(const struct bfctl_batch *b)
{
	return b->count >= b->max_count ||
	       b->cap - b->len < KB_KEY_MAX_LEN + 1 + sizeof(u16);
}

int bfctl_batch_reserve(struct bfctl_batch *b)
{
	u64 cap = b->cap * 2, max = b->max_count * 2;
	u8 *nb;
	u64 *nl;

	if (!bfctl_batch_full(b))
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

int bfctl_batch_push_text(struct bfctl_batch *b, u32 key_type, int fmt,
			  const char *s, size_t len, u64 line,
			  const char **why)
{
	u8 *dst = b->buf + b->len + sizeof(u16);
	u32 klen;
	u16 l16;
	int ret;

	/* a network with host bits set is refused: see bfctl(8), KEYS */
	ret = kbu_key_parse(key_type, fmt, s, len, dst, &klen, why);
	if (ret)
		return ret;
	l16 = (u16)klen;
	memcpy(b->buf + b->len, &l16, sizeof(l16));
	b->len += sizeof(u16) + klen;
	b->line[b->count++] = line;
	return 0;
}

void bfctl_batch_key_text(const struct bfctl_batch *b, u32 key_type, u64 i, char *out,
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

/* bfctl_batch_stream_file()'s state while kbu_keyfile_read() runs */
struct bfctl_stream {
	struct bfctl_batch *b;
	int (*flush)(struct bfctl_batch *b, void *arg);
	void *arg;
};

static int bfctl_stream_key(const u8 *k, u32 len, u64 line, void *arg)
{
	struct bfctl_stream *st = arg;
	struct bfctl_batch *b = st->b;
	u16 l16 = (u16)len;
	int ret;

	memcpy(b->buf + b->len, &l16, sizeof(l16));
	memcpy(b->buf + b->len + sizeof(l16), k, len);
	b->len += sizeof(l16) + len;
	b->line[b->count++] = line;
	if (!bfctl_batch_full(b))
		return 0;
	ret = st->flush(b, st->arg);
	bfctl_batch_reset(b);
	return ret;
}

int bfctl_batch_stream_file(const char *path, u32 key_type, int fmt,
			    struct bfctl_batch *b,
			    int (*flush)(struct bfctl_batch *b, void *arg),
			    void *arg, char *err, size_t errlen)
{
	struct bfctl_stream st = { b, flush, arg };
	char why[200];
	u64 line;
	int ret;

	ret = kbu_keyfile_read(path, key_type, fmt, bfctl_stream_key, &st,
			       why, sizeof(why), &line);
	if (ret && line)
		snprintf(err, errlen, "line %llu: %s",
			 (unsigned long long)line, why);
	else if (ret < 0)	/* not flush's own failure */
		snprintf(err, errlen, "%s", why[0] ? why : strerror(-ret));
	if (!ret && b->count)
		ret = flush(b, arg);
	bfctl_batch_reset(b);
	return ret;
}

static int note_plen(const u8 *k, u32 len, u64 line, void *arg)
{
	(void)line;
	/* a malformed key is the real load's to report */
	kb_params_note_prefix(arg, k, len);
	return 0;
}

u32 bfctl_file_nplens(const char *path, u32 key_type, int fmt)
{
	struct kb_params p = { .key_type = key_type };
	char why[200];
	u64 line;

	if (!kb_key_type_is_net(key_type))
		return 1;
	kbu_keyfile_read(path, key_type, fmt, note_plen, &p, why, sizeof(why),
			 &line);
	return kb_params_nplens(&p);
}

s64 bfctl_count_lines(const char *path)
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
	buf = malloc(BFCTL_READ_CHUNK);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while ((r = read(fd, buf, BFCTL_READ_CHUNK)) > 0) {
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
