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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bfctl.h"

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

/* bfctl_batch_stream_fd()'s state while kbu_keyfile_read_fd() runs */
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

int bfctl_batch_stream_fd(int fd, u32 key_type, int fmt,
			  struct bfctl_batch *b,
			  int (*flush)(struct bfctl_batch *b, void *arg),
			  void *arg, char *err, size_t errlen, u64 *errline)
{
	struct bfctl_stream st = { b, flush, arg };
	int ret, fret;

	ret = kbu_keyfile_read_fd(fd, key_type, fmt, bfctl_stream_key, &st,
				  err, errlen, errline);
	/*
	 * after a bad line too: then every key before it went in, and the
	 * caller can say so (a pipe cannot be checked before it is read)
	 */
	if ((!ret || *errline) && b->count) {
		fret = flush(b, arg);
		if (fret) {	/* said by flush, which was refused */
			ret = fret;
			*errline = 0;
		}
	}
	bfctl_batch_reset(b);
	return ret;
}

static int bfctl_count_key(const u8 *k, u32 len, u64 line, void *arg)
{
	(void)k;
	(void)len;
	(void)line;
	(*(u64 *)arg)++;
	return 0;
}

s64 bfctl_keys_check_fd(int fd, u32 key_type, int fmt, char *err,
			size_t errlen, u64 *errline)
{
	u64 n = 0;
	int ret;

	ret = kbu_keyfile_read_fd(fd, key_type, fmt, bfctl_count_key, &n, err,
				  errlen, errline);
	return ret ? ret : (s64)n;
}

/*
 * Read the regular file at path (stdin for "-", put back where it was
 * for the load to read again) through key(): -EINVAL if it is not a
 * regular file (a pipe can be read only once, by the load), else the
 * reader's return.
 */
static int read_regular(const char *path, u32 key_type, int fmt,
			int (*key)(const u8 *k, u32 len, u64 line, void *arg),
			void *arg)
{
	char err[KBU_QUOTE_SIZE + 64];
	struct stat st;
	u64 line;
	int fd, ret;

	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = -EINVAL;
	} else {
		off_t off = lseek(fd, 0, SEEK_CUR);

		ret = kbu_keyfile_read_fd(fd, key_type, fmt, key, arg, err,
					  sizeof(err), &line);
		if (off < 0 || lseek(fd, off, SEEK_SET) < 0)
			ret = -errno;
	}
	if (fd > 0)
		close(fd);
	return ret;
}

static int note_plen(const u8 *k, u32 len, u64 line, void *arg)
{
	(void)line;
	kb_params_note_prefix(arg, k, len);
	return 0;
}

u32 bfctl_file_nplens(const char *path, u32 key_type, int fmt)
{
	struct kb_params p = { .key_type = key_type };

	if (!kb_key_type_is_net(key_type))
		return 1;
	/* a bad line is the load's to report; a pipe: --prefixes decides */
	read_regular(path, key_type, fmt, note_plen, &p);
	return kb_params_nplens(&p);
}

s64 bfctl_count_keys(const char *path, u32 key_type, int fmt)
{
	u64 n = 0;
	int ret;

	ret = read_regular(path, key_type, fmt, bfctl_count_key, &n);
	return ret ? ret : (s64)n;
}
