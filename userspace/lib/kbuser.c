// SPDX-License-Identifier: GPL-2.0
/*
 * libkbcore userspace helpers: key parsing, key files, file I/O.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int kbu_hexval(char c)
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
	bool net = kb_key_type_is_net(key_type);
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

/* why a net key k failed kb_key_validate(): name the one cause */
static const char *net_why(u32 key_type, const u8 *k, u32 len)
{
	static __thread char buf[96];
	u32 alen = len - 1, plen = len ? k[alen] : 0, i;
	char addr[INET6_ADDRSTRLEN];
	u8 net[16];

	if ((alen != 4 || key_type == KB_KEY_NET6) &&
	    (alen != 16 || key_type == KB_KEY_NET4))
		return "bad length for the key type";
	if (plen > alen * 8)
		return "bad prefix length";
	for (i = 0; i < alen; i++)	/* keep plen's leading bits */
		net[i] = plen >= i * 8 + 8 ? k[i] : plen <= i * 8 ? 0 :
			 k[i] & (u8)(0xff00 >> (plen - i * 8));
	inet_ntop(alen == 4 ? AF_INET : AF_INET6, net, addr, sizeof(addr));
	snprintf(buf, sizeof(buf), "host bits set; did you mean %s/%u?",
		 addr, plen);
	return buf;
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
			int hi = kbu_hexval(s[i]), lo = kbu_hexval(s[i + 1]);

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
			*why = net_why(key_type, out, *outlen);
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

struct read_try {
	const char *path;
	u8 **buf;
	size_t *len;
	size_t max;
	bool whole;	/* kbu_read_file(), else kbu_read_file_max() */
};

static int read_fd_max(int fd, u8 *buf, size_t max, size_t *len);

/* one read of the path, opened anew (a rename since is read whole) */
static int read_try(void *arg, bool last)
{
	struct read_try *t = arg;
	struct stat st;
	int fd, ret;

	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		st.st_mode = 0;
	ret = t->whole ? read_fd(fd, t->buf, t->len) :
			 read_fd_max(fd, *t->buf, t->max, t->len);
	close(fd);
	/* only a regular file: a FIFO's bytes are gone once read */
	if (ret || last || !S_ISREG(st.st_mode) ||
	    !kbu_image_torn(*t->buf, *t->len))
		return ret;
	if (t->whole) {
		free(*t->buf);
		*t->buf = NULL;
	}
	return -EBADMSG;
}

int kbu_read_file(const char *path, u8 **buf, size_t *len)
{
	struct read_try t = { path, buf, len, 0, true };

	if (!strcmp(path, "-"))
		return read_fd(0, buf, len);
	return kbu_torn_retry(read_try, &t);
}

/* reads max bytes at most, and one more to tell a longer file */
static int read_fd_max(int fd, u8 *buf, size_t max, size_t *len)
{
	size_t got = 0;
	u8 extra;

	for (;;) {
		ssize_t r = got < max ? read(fd, buf + got, max - got) :
					read(fd, &extra, 1);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		if (got == max)
			return -EFBIG;
		got += (size_t)r;
	}
	*len = got;
	return 0;
}

int kbu_read_file_max(const char *path, void *buf, size_t max, size_t *len)
{
	u8 *b = buf;
	struct read_try t = { path, &b, len, max, false };

	if (!strcmp(path, "-"))
		return read_fd_max(0, buf, max, len);
	return kbu_torn_retry(read_try, &t);
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

/*
 * The kernel's fs.protected_symlinks rule (may_follow_link()): a symlink
 * in a sticky, world-writable directory (/tmp) is followed only by its
 * owner, or when the directory's owner also owns the link
 */
static bool may_follow(const struct stat *dir, const struct stat *link)
{
	if (link->st_uid == geteuid())
		return true;
	if ((dir->st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
		return true;
	return dir->st_uid == link->st_uid;
}

/*
 * realpath() of an output path, applying may_follow() to every symlink on
 * the way: realpath() reads links with readlink(), which the kernel's
 * check does not cover, so a user's `ln -s /etc/motd /tmp/kb.save` made
 * root's `bfctl save -file /tmp/kb.save` replace /etc/motd.  Applied
 * whatever the sysctl says: root writing through another user's link in
 * /tmp is never what was meant.  A path whose last component does not
 * exist resolves (a new file), unless it is a symlink's target (ENOENT, as
 * realpath()).  0 or -errno (-EACCES: a link refused).
 */
static int out_resolve(const char *path, char *res, size_t size)
{
	char rest[2 * PATH_MAX], next[2 * PATH_MAX], link[PATH_MAX];
	size_t rl = 0, n;
	int links = 0;
	char *p = rest, *q;
	struct stat st, dst;
	ssize_t ll;

	if (strlen(path) >= sizeof(rest) || size < PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(rest, path);
	res[0] = 0;
	if (path[0] != '/') {
		if (!getcwd(res, size))
			return -errno;
		if (!strcmp(res, "/"))
			res[0] = 0;
		rl = strlen(res);
	}
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		q = p + strcspn(p, "/");
		n = (size_t)(q - p);
		if (n == 1 && p[0] == '.') {
			p = q;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (rl && res[--rl] != '/')
				;
			res[rl] = 0;
			p = q;
			continue;
		}
		if (rl + 1 + n >= size)
			return -ENAMETOOLONG;
		res[rl] = '/';
		memcpy(res + rl + 1, p, n);
		res[rl + 1 + n] = 0;
		if (lstat(res, &st)) {
			/* a new file: the last component only, not a link's */
			if (errno == ENOENT && !q[strspn(q, "/")] && !links)
				return 0;
			return -errno;
		}
		if (!S_ISLNK(st.st_mode)) {
			rl += 1 + n;
			if (!S_ISDIR(st.st_mode) && q[strspn(q, "/")])
				return -ENOTDIR;
			p = q;
			continue;
		}
		res[rl] = 0;
		if (stat(rl ? res : "/", &dst))
			return -errno;
		if (!may_follow(&dst, &st))
			return -EACCES;
		res[rl] = '/';
		if (++links > 40)
			return -ELOOP;
		ll = readlink(res, link, sizeof(link) - 1);
		if (ll < 0)
			return -errno;
		link[ll] = 0;
		res[rl] = 0;
		if (link[0] == '/')
			rl = 0;		/* an absolute target: from / again */
		res[rl] = 0;
		n = strlen(q);
		if ((size_t)ll + 1 + n >= sizeof(next))
			return -ENAMETOOLONG;
		memcpy(next, link, (size_t)ll);
		next[ll] = '/';
		memcpy(next + ll + 1, q, n + 1);
		memcpy(rest, next, (size_t)ll + n + 2);
		p = rest;
	}
	if (!rl)
		strcpy(res, "/");
	return 0;
}

int kbu_out_open(struct kbu_out *o, const char *path)
{
	struct stat st;
	bool exists = false;
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (strlen(path) >= sizeof(o->path))
		return -ENAMETOOLONG;
	/*
	 * the links on the way followed here, not by the kernel (a final
	 * one would be replaced, not written through), each as the kernel
	 * would; a dangling final one: ENOENT
	 */
	ret = out_resolve(path, o->path, sizeof(o->path));
	if (ret)
		return ret;
	if (!stat(o->path, &st)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode)) {
			o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_NOFOLLOW |
				     O_CLOEXEC);
			return o->fd < 0 ? -errno : 0;
		}
		exists = true;
	} else if (errno != ENOENT) {
		return -errno;
	}
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.%d", o->path, (int)getpid());
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		     O_CLOEXEC, 0600);
	if (o->fd < 0)
		return -errno;
	o->replace = true;
	/* keep what the admin set; a non-root caller cannot chown: fine */
	if (exists && ((fchown(o->fd, st.st_uid, st.st_gid) && errno != EPERM) ||
		       fchmod(o->fd, st.st_mode & 07777))) {
		ret = -errno;
		kbu_out_abort(o);
		return ret;
	}
	return 0;
}

int kbu_out_commit(struct kbu_out *o)
{
	int ret = 0;

	if (o->fd < 0 || o->fd == STDOUT_FILENO)
		return 0;
	if (o->replace && fsync(o->fd) < 0)
		ret = -errno;
	if (close(o->fd) < 0 && !ret)
		ret = -errno;
	o->fd = -1;
	if (o->replace && !ret && rename(o->tmp, o->path) < 0)
		ret = -errno;
	if (o->replace && ret)
		unlink(o->tmp);
	o->replace = false;
	return ret;
}

void kbu_out_abort(struct kbu_out *o)
{
	if (o->fd >= 0 && o->fd != STDOUT_FILENO)
		close(o->fd);
	o->fd = -1;
	if (o->replace)
		unlink(o->tmp);
	o->replace = false;
}

int kbu_write_file(const char *path, const void *buf, size_t len)
{
	struct kbu_out o;
	int ret = kbu_out_open(&o, path);

	if (ret)
		return ret;
	ret = kbu_write_all(o.fd, buf, len);
	if (ret) {
		kbu_out_abort(&o);
		return ret;
	}
	return kbu_out_commit(&o);
}

int kbu_write_image(const char *path, const struct kb_filter *f, u64 count)
{
	struct kb_image_cur c;
	struct kbu_out o;
	u8 *piece;
	u64 n;
	int ret;

	piece = malloc(KBU_IMAGE_PIECE);
	if (!piece)
		return -ENOMEM;
	ret = kbu_out_open(&o, path);
	if (ret) {
		free(piece);
		return ret;
	}
	kb_image_cur_write_begin(&c, &f->p, count);
	while (!ret && (n = kb_image_cur_produce(&c, f, piece, KBU_IMAGE_PIECE)))
		ret = kbu_write_all(o.fd, piece, (size_t)n);
	free(piece);
	if (ret) {
		kbu_out_abort(&o);
		return ret;
	}
	return kbu_out_commit(&o);
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
