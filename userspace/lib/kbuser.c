// SPDX-License-Identifier: GPL-2.0
/*
 * libkbcore userspace helpers: key parsing, key files, file I/O.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kbuser.h"

int kbu_key_format_from_name(const char *s)
{
	if (!strcmp(s, "str"))
		return KBU_FMT_STR;
	if (!strcmp(s, "hex"))
		return KBU_FMT_HEX;
	return -1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* the digit at p (before end), or 10 */
static inline unsigned int digit_at(const char *p, const char *end)
{
	unsigned int d = p < end ? (unsigned int)(u8)*p - '0' : 10;

	return d > 9 ? 10 : d;
}

/* one part of a dotted quad: 0-255, no leading zero; NULL if none */
static inline const char *ip4_part(const char *p, const char *end, u8 *out)
{
	unsigned int v = digit_at(p, end), d;

	if (v > 9)
		return NULL;
	d = digit_at(p + 1, end);
	if (d > 9) {
		*out = (u8)v;
		return p + 1;
	}
	if (!v)
		return NULL;	/* a leading zero */
	v = v * 10 + d;
	d = digit_at(p + 2, end);
	if (d > 9) {
		*out = (u8)v;
		return p + 2;
	}
	v = v * 10 + d;
	if (v > 255)
		return NULL;
	*out = (u8)v;
	return p + 3;
}

/*
 * A dotted quad at the start of s exactly as inet_pton(AF_INET) takes it
 * (four decimal parts of 0-255, no leading zeros), without libc: this is
 * the hot path of million-line blocklists.  Returns the bytes used, 0 if s
 * does not start with one; the caller checks what follows.
 */
static size_t parse_ip4(const char *s, size_t len, u8 *out)
{
	const char *end = s + len, *p;
	int i;

	p = ip4_part(s, end, out);
	for (i = 1; p && i < 4; i++)
		p = p < end && *p == '.' ? ip4_part(p + 1, end, out + i) : NULL;
	return p ? (size_t)(p - s) : 0;
}

/* parse "addr" or "addr/plen" (net) into out; family by presence of ':' */
static int parse_addr(u32 key_type, const char *s, size_t len, u8 *out,
		      u32 *outlen, const char **why)
{
	char tmp[64], *slash;
	bool net = key_type == KB_KEY_NET4 || key_type == KB_KEY_NET6 ||
		   key_type == KB_KEY_NET;
	bool v6;
	unsigned long plen;
	u32 alen;

	if (len == 0 || len >= sizeof(tmp)) {
		*why = "bad address length";
		return -EINVAL;
	}
	if (key_type != KB_KEY_IPV6 && key_type != KB_KEY_NET6) {
		size_t used = parse_ip4(s, len, out);

		if (used && used == len) {
			*outlen = 4;
			if (net) {
				out[4] = 32;
				*outlen = 5;
			}
			return 0;
		}
		if (used && net && s[used] == '/' && used + 1 < len &&
		    len - used - 1 <= 2) {
			unsigned int v = 0;
			size_t i;

			for (i = used + 1; i < len && s[i] >= '0' && s[i] <= '9'; i++)
				v = v * 10 + (unsigned int)(s[i] - '0');
			if (i == len && v <= 32) {
				out[4] = (u8)v;
				*outlen = 5;
				return 0;
			}
		}
		/* anything else takes the general path and its messages */
	}
	memcpy(tmp, s, len);
	tmp[len] = 0;
	v6 = memchr(tmp, ':', len) != NULL;
	if ((v6 && (key_type == KB_KEY_IPV4 || key_type == KB_KEY_NET4)) ||
	    (!v6 && (key_type == KB_KEY_IPV6 || key_type == KB_KEY_NET6))) {
		*why = "wrong address family for the key type";
		return -EINVAL;
	}
	alen = v6 ? 16 : 4;
	slash = strchr(tmp, '/');
	plen = alen * 8;
	if (slash) {
		char *end;

		if (!net) {
			*why = "prefix length given for an address key type";
			return -EINVAL;
		}
		*slash = 0;
		if (!slash[1] || slash[1] < '0' || slash[1] > '9') {
			*why = "bad prefix length";
			return -EINVAL;
		}
		plen = strtoul(slash + 1, &end, 10);
		if (*end || plen > alen * 8) {
			*why = "bad prefix length";
			return -EINVAL;
		}
	}
	if (inet_pton(v6 ? AF_INET6 : AF_INET, tmp, out) != 1) {
		*why = "bad address";
		return -EINVAL;
	}
	*outlen = alen;
	if (net) {
		out[alen] = (u8)plen;
		*outlen = alen + 1;
	}
	return 0;
}

int kbu_key_parse(u32 key_type, int fmt, const char *s, size_t len, u8 *out,
		  u32 *outlen, const char **why)
{
	const char *dummy;
	size_t i;
	int ret;

	if (!why)
		why = &dummy;
	*why = "invalid key";
	/* the common case first: an IPv4 address is always a valid key */
	if (key_type == KB_KEY_IPV4 && fmt == KBU_FMT_STR && len &&
	    parse_ip4(s, len, out) == len) {
		*outlen = 4;
		return 0;
	}
	if (key_type > KB_KEY_MAX)
		return -EINVAL;
	if (fmt == KBU_FMT_HEX) {
		if (len % 2) {
			*why = "odd number of hex digits";
			return -EINVAL;
		}
		if (len / 2 > KB_KEY_MAX_LEN + 1) {
			*why = "key too long";
			return -EINVAL;
		}
		for (i = 0; i < len; i += 2) {
			int hi = hexval(s[i]), lo = hexval(s[i + 1]);

			if (hi < 0 || lo < 0) {
				*why = "bad hex digit";
				return -EINVAL;
			}
			out[i / 2] = (u8)(hi << 4 | lo);
		}
		*outlen = (u32)(len / 2);
	} else if (key_type == KB_KEY_BYTES || key_type == KB_KEY_STR) {
		if (len > KB_KEY_MAX_LEN) {
			*why = "key too long";
			return -EINVAL;
		}
		memcpy(out, s, len);
		*outlen = (u32)len;
	} else {
		ret = parse_addr(key_type, s, len, out, outlen, why);
		if (ret)
			return ret;
	}
	ret = kb_key_validate(key_type, out, *outlen);
	if (ret) {
		switch (key_type) {
		case KB_KEY_BYTES:
		case KB_KEY_STR:
			*why = *outlen ? "key too long" : "empty key";
			break;
		case KB_KEY_NET4:
		case KB_KEY_NET6:
		case KB_KEY_NET:
			*why = "bad length, prefix length or host bits set";
			break;
		default:
			*why = "bad length for the key type";
		}
	}
	return ret;
}

/* all of fd (a regular file's size is a hint, pipes work) */
static int read_fd(int fd, u8 **buf, size_t *len)
{
	struct stat st;
	size_t got = 0, cap;
	u8 *b;

	if (fstat(fd, &st) < 0)
		return -errno;
	cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
	b = aligned_alloc(64, (cap + 63) / 64 * 64);
	if (!b)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (got == cap) {
			size_t ncap = cap * 2;
			u8 *nb = aligned_alloc(64, (ncap + 63) / 64 * 64);

			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			memcpy(nb, b, got);
			free(b);
			b = nb;
			cap = ncap;
		}
		r = read(fd, b + got, cap - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			free(b);
			return (int)r;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	*buf = b;
	*len = got;
	return 0;
}

void kbu_keyset_free(struct kbu_keyset *ks)
{
	if (ks->heap)
		free(ks->map);
	else if (ks->map && ks->map_len)
		munmap(ks->map, ks->map_len);
	free(ks->keys);
	free(ks->buf);
	memset(ks, 0, sizeof(*ks));
}

int kbu_keyset_load(struct kbu_keyset *ks, const char *path, u32 key_type,
		    int fmt, char *err, size_t errlen)
{
	struct stat st;
	const char *p, *end, *why;
	u64 lines = 0, line = 0, n = 0;
	size_t off = 0;
	bool copy = fmt == KBU_FMT_HEX ||
		    (key_type != KB_KEY_BYTES && key_type != KB_KEY_STR);
	int fd, ret;

	memset(ks, 0, sizeof(*ks));
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd)
			close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {	/* a pipe or stdin: read it whole */
		u8 *b;

		ret = read_fd(fd, &b, &ks->map_len);
		if (fd)
			close(fd);
		if (ret) {
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
			return ret;
		}
		ks->map = b;
		ks->heap = true;
		fd = -1;
	} else {
		ks->map_len = (size_t)st.st_size;
	}
	if (fd >= 0 && ks->map_len) {
		ks->map = mmap(NULL, ks->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (ks->map == MAP_FAILED) {
			ret = -errno;
			ks->map = NULL;
			ks->map_len = 0;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			if (fd)
				close(fd);
			return ret;
		}
		madvise(ks->map, ks->map_len, MADV_SEQUENTIAL);
	}
	if (fd > 0)	/* not stdin */
		close(fd);
	/* an empty file maps nothing: no arithmetic on a NULL map */
	p = ks->map;
	end = p ? p + ks->map_len : p;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		lines++;
		p = nl ? nl + 1 : end;
	}
	ks->keys = calloc(lines ? lines : 1, sizeof(*ks->keys));
	if (copy)
		ks->buf = malloc(ks->map_len + lines * 17 + 1);
	if (!ks->keys || (copy && !ks->buf)) {
		snprintf(err, errlen, "%s: out of memory", path);
		kbu_keyset_free(ks);
		return -ENOMEM;
	}
	p = ks->map;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		u8 one[KB_KEY_MAX_LEN + 1];
		u32 olen;

		if (len && p[len - 1] == '\r')	/* CRLF files */
			len--;
		line++;
		if (!len) {
			p = nl ? nl + 1 : end;
			continue;
		}
		if (!copy) {
			if (len > KB_KEY_MAX_LEN) {
				snprintf(err, errlen, "%s:%llu: key too long",
					 path, (unsigned long long)line);
				kbu_keyset_free(ks);
				return -EINVAL;
			}
			ks->keys[n].data = p;
			ks->keys[n].len = (u32)len;
		} else {
			if (fmt == KBU_FMT_HEX && len / 2 > KB_KEY_MAX_LEN) {
				snprintf(err, errlen, "%s:%llu: key too long",
					 path, (unsigned long long)line);
				kbu_keyset_free(ks);
				return -EINVAL;
			}
			ret = kbu_key_parse(key_type, fmt, p, len, one, &olen,
					    &why);
			if (ret) {
				snprintf(err, errlen, "%s:%llu: %s", path,
					 (unsigned long long)line, why);
				kbu_keyset_free(ks);
				return ret;
			}
			memcpy(ks->buf + off, one, olen);
			ks->keys[n].data = ks->buf + off;
			ks->keys[n].len = olen;
			off += olen;
		}
		n++;
		p = nl ? nl + 1 : end;
	}
	ks->n = n;
	return 0;
}

int kbu_read_file(const char *path, u8 **buf, size_t *len)
{
	int fd, ret;

	if (!strcmp(path, "-"))
		return read_fd(0, buf, len);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_fd(fd, buf, len);
	close(fd);
	return ret;
}

int kbu_write_all(int fd, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int kbu_write_file(const char *path, const void *buf, size_t len)
{
	char tmp[4096];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* 0600: images hold their seed, a secret for siphash filters */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	ret = kbu_write_all(fd, buf, len);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

void *kbu_alloc_payload(u64 bytes)
{
	u64 sz = (bytes + 63) / 64 * 64;
	void *p;

	if (!sz)
		sz = 64;
	p = aligned_alloc(64, sz);
	if (p)
		memset(p, 0, sz);
	return p;
}

int kbu_random(void *buf, size_t len)
{
	u8 *p = buf;

	while (len) {
		ssize_t r = getrandom(p, len, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}
