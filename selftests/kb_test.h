/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the /dev/kbloom selftests. */
#ifndef _KB_TEST_H
#define _KB_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/kbloom.h>

#define KB_DEV "/dev/kbloom"

static inline int kbt_open(void)
{
	return open(KB_DEV, O_RDWR | O_CLOEXEC);
}

/* ioctl returning 0 or -errno */
static inline int kbt_ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline void kbt_name(char *dst, const char *name)
{
	size_t n = strlen(name);

	memset(dst, 0, KB_NAME_MAX);
	memcpy(dst, name, n < KB_NAME_MAX ? n : KB_NAME_MAX);
}

static inline struct kb_ioc_create kbt_spec(const char *name, __u32 kind,
					    __u32 key_type, __u64 items,
					    __u32 fpr_ppb)
{
	struct kb_ioc_create c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	kbt_name(c.name, name);
	c.kind = kind;
	c.key_type = key_type;
	c.hash = kind == KB_KIND_CLASSIC ? KB_HASH_LEVELDB : KB_HASH_XXH64;
	c.sizing = KB_SIZING_FPR;
	c.items = items;
	c.fpr_ppb = fpr_ppb;
	return c;
}

static inline int kbt_create(int fd, const char *name, __u32 kind,
			     __u32 key_type, __u64 items)
{
	struct kb_ioc_create c = kbt_spec(name, kind, key_type, items,
					  10000000);

	return kbt_ioc(fd, KB_IOC_CREATE, &c);
}

static inline int kbt_name_cmd(int fd, unsigned long cmd, const char *name)
{
	struct kb_ioc_name n;

	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	kbt_name(n.name, name);
	return kbt_ioc(fd, cmd, &n);
}

static inline int kbt_destroy(int fd, const char *name)
{
	return kbt_name_cmd(fd, KB_IOC_DESTROY, name);
}

static inline int kbt_name2(int fd, unsigned long cmd, const char *a,
			    const char *b)
{
	struct kb_ioc_name2 n;

	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	kbt_name(n.name, a);
	kbt_name(n.name2, b);
	return kbt_ioc(fd, cmd, &n);
}

static inline int kbt_info(int fd, const char *name, struct kb_ioc_info *i)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	kbt_name(i->name, name);
	return kbt_ioc(fd, KB_IOC_INFO, i);
}

/* a batch of fixed-size keys; res may be NULL; k (may be NULL) gets the struct */
static inline int kbt_keys(int fd, unsigned long cmd, const char *name,
			   __u32 flags, const void *keys, __u32 key_size,
			   __u64 count, __u64 *res, struct kb_ioc_keys *k)
{
	struct kb_ioc_keys tmp, *a = k ? k : &tmp;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->flags = flags;
	kbt_name(a->name, name);
	a->key_size = key_size;
	a->keys = (uintptr_t)keys;
	a->keys_len = count * key_size;
	a->count = count;
	a->result = (uintptr_t)res;
	return kbt_ioc(fd, cmd, a);
}

/* the i-th 16-byte test key of a family */
static inline void kbt_key16(void *dst, __u32 family, __u64 i)
{
	__u64 w[2] = { i * 0x9e3779b97f4a7c15ULL + family, family ^ i };

	memcpy(dst, w, 16);
}

static inline void *kbt_keys16(__u32 family, __u64 first, __u64 n)
{
	unsigned char *b = malloc(n * 16 + 1);
	__u64 i;

	for (i = 0; i < n; i++)
		kbt_key16(b + i * 16, family, first + i);
	return b;
}

static inline int kbt_bit(const __u64 *bm, __u64 i)
{
	return (bm[i / 64] >> (i % 64)) & 1;
}

/* export into a malloc'ed buffer; returns length or -errno */
static inline long kbt_export(int fd, const char *name, __u32 flags,
			      void **out)
{
	struct kb_ioc_image im;
	int ret;

	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	im.flags = flags;
	kbt_name(im.name, name);
	ret = kbt_ioc(fd, KB_IOC_EXPORT, &im);
	if (ret != -ENOSPC)
		return ret ? ret : -EPROTO;
	*out = malloc(im.image_len);
	im.image = (uintptr_t)*out;
	ret = kbt_ioc(fd, KB_IOC_EXPORT, &im);
	if (ret) {
		free(*out);
		return ret;
	}
	return (long)im.image_len;
}

static inline int kbt_upload(int fd, const char *name, __u32 flags,
			     const void *img, __u64 len, __u32 *why)
{
	struct kb_ioc_image im;
	int ret;

	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	im.flags = flags;
	kbt_name(im.name, name);
	im.image = (uintptr_t)img;
	im.image_len = len;
	ret = kbt_ioc(fd, KB_IOC_UPLOAD, &im);
	if (why)
		*why = im.why;
	return ret;
}

static inline int kbt_txn(int fd, unsigned long cmd)
{
	struct kb_ioc_txn t = { .size = sizeof(t) };

	return kbt_ioc(fd, cmd, &t);
}

/* write a module parameter; returns 0 or -errno */
static inline int kbt_param_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static inline int kbt_param_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Drop CAP_NET_ADMIN from this process (root stays root otherwise). */
static inline int kbt_drop_net_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[0].effective &= ~(1U << CAP_NET_ADMIN);
	data[0].permitted &= ~(1U << CAP_NET_ADMIN);
	data[0].inheritable &= ~(1U << CAP_NET_ADMIN);
	return syscall(SYS_capset, &hdr, data);
}

/* A shell command (printf-style); its exit status, 128 if it died. */
static inline __attribute__((format(printf, 1, 2))) int kbt_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* the first number a shell command prints (e.g. a rule's counter), or -1 */
static inline __attribute__((format(printf, 1, 2))) long kbt_sh_long(const char *fmt, ...)
{
	char cmd[1024];
	long v = -1;
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%ld", &v) != 1)
		v = -1;
	pclose(p);
	return v;
}

#endif /* _KB_TEST_H */
