// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom over the kernel: kbloom_open() opens a filter through
 * /dev/kbloom (KB_IOC_OPEN) and maps its fd (uapi section 3, "A file per
 * filter"); adds and the exceptions' confirmations are batch ioctls on
 * that fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "kbl.h"

#define KBL_DEV_PATH		"/dev/kbloom"
/* a mapping raced with a rebuild that changed its size: map again */
#define KBL_MAP_TRIES		16

static int kbl_dev_map(struct kbloom *h, struct kbl_map *m)
{
	struct kb_map_hdr mi;
	const struct kb_map_hdr *hdr;
	unsigned int tries;
	void *base;
	size_t len;

	for (tries = 0; tries < KBL_MAP_TRIES; tries++) {
		memset(&mi, 0, sizeof(mi));
		mi.size = sizeof(mi);
		if (ioctl(h->fd, KB_IOC_MAP_INFO, &mi) < 0) {
			int err = errno;

			if (err == ENOENT)
				return kbl_err(-ENOENT, "the filter was destroyed");
			/* the kernel judges an open fd by its grant again */
			if (err == EPERM)
				return kbl_err(-EPERM, "not granted any more: the filter's grant was taken back");
			return kbl_err(-err, "KB_IOC_MAP_INFO: %s", strerror(err));
		}
		if (mi.map_bytes < KB_MAP_PAYLOAD_OFFSET || mi.map_bytes > SIZE_MAX)
			return kbl_err(-EPROTO, "KB_IOC_MAP_INFO: bad map_bytes %llu",
				       (unsigned long long)mi.map_bytes);
		len = (size_t)mi.map_bytes;
		base = mmap(NULL, len, PROT_READ, MAP_SHARED, h->fd, 0);
		if (base == MAP_FAILED) {
			int err = errno;

			if (err == ENOENT)
				return kbl_err(-ENOENT, "the filter was destroyed");
			if (err == EPERM)
				return kbl_err(-EPERM, "not granted any more: the filter's grant was taken back");
			/* a generation of another size came meanwhile */
			if (err == EINVAL && tries + 1 < KBL_MAP_TRIES)
				continue;
			return kbl_err(-err, "mmap of %zu bytes: %s", len,
				       strerror(err));
		}
		hdr = base;
		if (hdr->magic == KB_MAP_MAGIC && hdr->map_bytes != len) {
			/* the generation mapped is not the one described */
			munmap(base, len);
			continue;
		}
		m->hdr = hdr;
		m->payload = (const u8 *)base + hdr->payload_offset;
		m->base = base;
		m->len = len;
		return 0;
	}
	return kbl_err(-EAGAIN, "the filter kept changing size while being mapped");
}

static void kbl_dev_unmap(struct kbloom *h, struct kbl_map *m)
{
	(void)h;
	munmap(m->base, m->len);
}

/* keys[0..n) (n <= KBL_CHUNK) packed as __u16 length + bytes */
static u8 *kbl_pack(const struct kb_key *keys, u32 n, const u64 *only,
		    u64 *len, u32 *count)
{
	u64 bytes = 0;
	u32 i, c = 0;
	u8 *buf, *p;

	for (i = 0; i < n; i++)
		if (!only || (only[i / 64] >> (i % 64) & 1))
			bytes += 2 + keys[i].len;
	buf = malloc(bytes ? bytes : 1);
	if (!buf)
		return NULL;
	p = buf;
	for (i = 0; i < n; i++) {
		u16 l = (u16)keys[i].len;

		if (only && !(only[i / 64] >> (i % 64) & 1))
			continue;
		memcpy(p, &l, 2);
		memcpy(p + 2, keys[i].data, l);
		p += 2 + l;
		c++;
	}
	*len = bytes;
	*count = c;
	return buf;
}

static const char *kbl_cmd_name(unsigned long cmd)
{
	return cmd == KB_IOC_ADD ? "KB_IOC_ADD" :
	       cmd == KB_IOC_TEST_ADD ? "KB_IOC_TEST_ADD" : "KB_IOC_TEST";
}

/* one batch ioctl on the fd: hits, or -errno with the message */
static long kbl_ioc_keys(struct kbloom *h, unsigned long cmd, const u8 *buf,
			 u64 len, u32 count, u64 *result)
{
	struct kb_ioc_keys a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.key_size = 0;
	a.keys = (u64)(uintptr_t)buf;
	a.keys_len = len;
	a.count = count;
	a.result = (u64)(uintptr_t)result;
	a.err_index = ~0ULL;
	/* not restarted on EINTR: a batch may have been partly done */
	if (ioctl(h->fd, cmd, &a) < 0) {
		int err = errno;

		if (err == ENOENT)
			return kbl_err(-ENOENT, "the filter was destroyed");
		if (err == EPERM && cmd != KB_IOC_TEST)
			return kbl_err(-EPERM, "%s: not granted to write",
				       kbl_cmd_name(cmd));
		if (err == EPERM)
			return kbl_err(-EPERM, "%s: not granted any more: the filter's grant was taken back",
				       kbl_cmd_name(cmd));
		if (a.err_index != ~0ULL)
			return kbl_err(-err, "%s: key %llu: %s", kbl_cmd_name(cmd),
				       (unsigned long long)a.err_index,
				       strerror(err));
		return kbl_err(-err, "%s: %s", kbl_cmd_name(cmd), strerror(err));
	}
	return (long)a.hits;
}

static long kbl_dev_confirm(struct kbloom *h, const struct kb_key *keys,
			    u32 n, u64 *bm)
{
	u64 res[KBL_CHUNK / 64] = { 0 }, len;
	u32 count, i, j;
	long ret;
	u8 *buf;

	buf = kbl_pack(keys, n, bm, &len, &count);
	if (!buf)
		return kbl_err(-ENOMEM, "out of memory");
	ret = kbl_ioc_keys(h, KB_IOC_TEST, buf, len, count, res);
	free(buf);
	if (ret < 0)
		return ret;
	/* the j-th key sent is the j-th maybe of bm */
	for (i = 0, j = 0; i < n; i++) {
		if (!(bm[i / 64] >> (i % 64) & 1))
			continue;
		if (!(res[j / 64] >> (j % 64) & 1))
			bm[i / 64] &= ~(1ULL << (i % 64));
		j++;
	}
	return ret;
}

static long kbl_dev_keys(struct kbloom *h, unsigned long cmd,
			 const struct kb_key *keys, u32 n, u64 *bm)
{
	u32 count;
	long ret;
	u64 len;
	u8 *buf;

	buf = kbl_pack(keys, n, NULL, &len, &count);
	if (!buf)
		return kbl_err(-ENOMEM, "out of memory");
	memset(bm, 0, (n + 63) / 64 * 8);
	ret = kbl_ioc_keys(h, cmd, buf, len, count, bm);
	free(buf);
	return ret;
}

static const struct kbl_src_ops kbl_dev_ops = {
	.map = kbl_dev_map,
	.unmap = kbl_dev_unmap,
	.confirm = kbl_dev_confirm,
	.keys = kbl_dev_keys,
};

/* /dev/kbloom: read-write, or read-only where its mode allows only that */
static int kbl_dev_open(void)
{
	int fd = open(KBL_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0 && (errno == EACCES || errno == EROFS))
		fd = open(KBL_DEV_PATH, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		return kbl_err(-ENODEV, "%s: %s (is the kbloom module loaded?)",
			       KBL_DEV_PATH, strerror(errno));
	return kbl_err(-errno, "%s: %s", KBL_DEV_PATH, strerror(errno));
}

KBL_API int kbloom_open(const char *name, unsigned int flags,
			struct kbloom **out)
{
	struct kb_ioc_open o;
	size_t n;
	int dev, fd, ret;

	if (!out)
		return kbl_err(-EINVAL, "no handle pointer");
	*out = NULL;
	if (!name || !kb_name_valid(name, (u32)(n = strnlen(name, KB_NAME_MAX))))
		return kbl_err(-EINVAL, "invalid filter name (1..%d of [A-Za-z0-9_.:-])",
			       KB_NAME_MAX - 1);
	if (flags & ~KBLOOM_WRITE)
		return kbl_err(-EINVAL, "unknown flags %#x", flags & ~KBLOOM_WRITE);
	dev = kbl_dev_open();
	if (dev < 0)
		return dev;
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.flags = flags & KBLOOM_WRITE ? KB_OPEN_F_WRITE : 0;
	memcpy(o.name, name, n);
	o.fd = -1;
	ret = ioctl(dev, KB_IOC_OPEN, &o);
	if (ret < 0) {
		int err = errno;

		close(dev);
		if (err == ENOTTY)
			return kbl_err(-EOPNOTSUPP, "the kbloom module cannot open filters (KB_IOC_OPEN): too old");
		if (err == EPERM)
			return kbl_err(-EPERM, "%s: not granted (%s)", name,
				       flags & KBLOOM_WRITE ? "writers" : "readers");
		if (err == ENOENT)
			return kbl_err(-ENOENT, "%s: no such filter", name);
		return kbl_err(-err, "%s: KB_IOC_OPEN: %s", name, strerror(err));
	}
	close(dev);
	fd = o.fd >= 0 ? o.fd : ret;
	ret = kbl_open_src(&kbl_dev_ops, NULL, fd, flags, out);
	if (ret) {
		close(fd);
		return ret;
	}
	return 0;
}
