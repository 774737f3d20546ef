/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the /dev/kbloom selftests. */
#ifndef _KB_TEST_H
#define _KB_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/kbloom.h>

#include "kb_nl.h"

#define KB_DEV "/dev/kbloom"

/*
 * Is test among the space-separated names in $env (all are when it is
 * unset)?  A manifest line runs a subset of a binary's tests this way,
 * the same on 6.1, whose harness has no -t.
 */
static inline bool kbt_wanted(const char *env, const char *test)
{
	const char *only = getenv(env);
	size_t len = strlen(test);
	const char *p;

	if (!only)
		return true;
	for (p = strstr(only, test); p; p = strstr(p + 1, test))
		if ((p == only || p[-1] == ' ') && (!p[len] || p[len] == ' '))
			return true;
	return false;
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
	c.hash = kind == KB_KIND_CLASSIC ? KB_HASH_LEVELDB :
		 kind == KB_KIND_GOZERO ? KB_HASH_MURMUR3 : KB_HASH_XXH64;
	c.sizing = KB_SIZING_FPR;
	c.items = items;
	c.fpr_ppb = fpr_ppb;
	return c;
}

/*
 * ---- the control plane, over generic netlink ----
 *
 * Create, destroy, flush, swap, rename and info are netlink commands only
 * (uapi section 3).  Their helpers keep the device fd argument: kbt_open()
 * pairs every /dev/kbloom file with a netlink socket made in the same
 * network namespace, and the helpers send on the socket paired with fd, so
 * they work on the filters fd works on whichever netns the calling thread
 * is in.  The threads of the opener take turns on it (its mutex: a
 * request and its reply must not interleave with another's); a forked
 * child, which must not read the replies of a socket it shares with its
 * parent, uses a socket of its own, of its current netns.
 */
#define KBT_FD_MAX	1024

struct kbt_nl_pair {
	struct kbtn *n;
	pid_t pid;			/* the process that opened the pair */
	pthread_mutex_t lock;		/* all zero: PTHREAD_MUTEX_INITIALIZER */
};

/* one table for all the files of a program (weak: defined in each) */
extern struct kbt_nl_pair kbt_pairs[KBT_FD_MAX];
struct kbt_nl_pair kbt_pairs[KBT_FD_MAX] __attribute__((weak));

static inline pid_t kbt_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* this thread's own socket of its current netns */
static inline struct kbtn *kbt_nl_self(void)
{
	static __thread struct kbtn *n;
	static __thread pid_t tid;
	static __thread ino_t ns;
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st))
		st.st_ino = 0;
	if (n && (tid != kbt_gettid() || ns != st.st_ino)) {
		kbtn_close(n);	/* in a fork, only the child's copy */
		n = NULL;
	}
	if (!n) {
		n = kbtn_open();
		tid = kbt_gettid();
		ns = st.st_ino;
	}
	return n;
}

/* the netlink socket for the filters of the device file fd, held */
static inline struct kbtn *kbt_nl(int fd)
{
	if (fd >= 0 && fd < KBT_FD_MAX && kbt_pairs[fd].n &&
	    kbt_pairs[fd].pid == getpid()) {
		pthread_mutex_lock(&kbt_pairs[fd].lock);
		return kbt_pairs[fd].n;
	}
	return kbt_nl_self();
}

static inline void kbt_nl_put(int fd, struct kbtn *n)
{
	if (fd >= 0 && fd < KBT_FD_MAX && n && n == kbt_pairs[fd].n)
		pthread_mutex_unlock(&kbt_pairs[fd].lock);
}

static inline int kbt_open(void)
{
	int fd = open(KB_DEV, O_RDWR | O_CLOEXEC);

	if (fd >= 0 && fd < KBT_FD_MAX) {
		if (kbt_pairs[fd].pid == getpid())
			pthread_mutex_lock(&kbt_pairs[fd].lock);
		else	/* a fork's copy: no thread of ours holds it */
			pthread_mutex_init(&kbt_pairs[fd].lock, NULL);
		kbtn_close(kbt_pairs[fd].n);	/* of a closed file */
		kbt_pairs[fd].n = kbtn_open();
		kbt_pairs[fd].pid = getpid();
		pthread_mutex_unlock(&kbt_pairs[fd].lock);
	}
	return fd;
}

/*
 * Close a file kbt_open() made, and its netlink socket: a socket keeps its
 * network namespace alive, and with it the filters and rules in it, so a
 * test that waits for a namespace to go must close its files with this.
 */
static inline int kbt_close(int fd)
{
	if (fd >= 0 && fd < KBT_FD_MAX && kbt_pairs[fd].pid == getpid()) {
		pthread_mutex_lock(&kbt_pairs[fd].lock);
		kbtn_close(kbt_pairs[fd].n);
		kbt_pairs[fd].n = NULL;
		pthread_mutex_unlock(&kbt_pairs[fd].lock);
	}
	return close(fd);
}

/* KB_CMD_CREATE from a struct kb_ioc_create (TXN_BEGIN's argument) */
static inline int kbt_create_spec(int fd, const struct kb_ioc_create *c)
{
	struct kbtn *n = kbt_nl(fd);
	struct kbtn_req *r;
	int ret;

	if (!n)
		return -ENOTCONN;
	r = malloc(sizeof(*r));
	if (!r) {
		kbt_nl_put(fd, n);
		return -ENOMEM;
	}
	kbtn_init(r, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(r, KB_A_NAME, c->name);
	kbtn_put_u32(r, KB_A_KIND, c->kind);
	kbtn_put_u32(r, KB_A_KEY_TYPE, c->key_type);
	kbtn_put_u32(r, KB_A_HASH, c->hash);
	switch (c->sizing) {
	case KB_SIZING_FPR:
		kbtn_put_u64(r, KB_A_ITEMS, c->items);
		kbtn_put_u32(r, KB_A_FPR_PPB, c->fpr_ppb);
		break;
	case KB_SIZING_BPK:
		kbtn_put_u32(r, KB_A_BITS_PER_KEY, c->bits_per_key);
		kbtn_put_u64(r, KB_A_ITEMS, c->items);
		break;
	default:
		kbtn_put_u64(r, KB_A_M, c->m);
		kbtn_put_u32(r, KB_A_K, c->k);
		if (c->items)
			kbtn_put_u64(r, KB_A_ITEMS, c->items);
		break;
	}
	if (c->flags & KB_CREATE_F_SEED)
		kbtn_put(r, KB_A_SEED, c->seed, sizeof(c->seed));
	ret = kbtn_do(n, r);
	kbt_nl_put(fd, n);
	free(r);
	return ret;
}

static inline int kbt_create(int fd, const char *name, __u32 kind,
			     __u32 key_type, __u64 items)
{
	struct kb_ioc_create c = kbt_spec(name, kind, key_type, items,
					  10000000);

	return kbt_create_spec(fd, &c);
}

/* KB_CMD_DESTROY, KB_CMD_FLUSH */
static inline int kbt_name_cmd(int fd, __u8 cmd, const char *name)
{
	struct kbtn *n = kbt_nl(fd);
	int ret = n ? kbtn_name_cmd(n, cmd, name) : -ENOTCONN;

	kbt_nl_put(fd, n);
	return ret;
}

static inline int kbt_destroy(int fd, const char *name)
{
	return kbt_name_cmd(fd, KB_CMD_DESTROY, name);
}

/* KB_CMD_SWAP, KB_CMD_RENAME */
static inline int kbt_name2(int fd, __u8 cmd, const char *a, const char *b)
{
	struct kbtn *n = kbt_nl(fd);
	int ret = n ? kbtn_name2_cmd(n, cmd, a, b) : -ENOTCONN;

	kbt_nl_put(fd, n);
	return ret;
}

static inline __u64 kbt_nla_u64(struct nlattr **tb, int type)
{
	return tb[type] ? kbtn_u64(tb[type]) : 0;
}

static inline __u32 kbt_nla_u32(struct nlattr **tb, int type)
{
	return tb[type] ? kbtn_u32(tb[type]) : 0;
}

/* KB_CMD_GET, its reply in the struct bfctl and the tests know */
static inline int kbt_info(int fd, const char *name, struct kb_ioc_info *i)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct kbtn *n = kbt_nl(fd);
	int ret;

	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	kbt_name(i->name, name);
	if (!n)
		return -ENOTCONN;
	ret = kbtn_name_cmd(n, KB_CMD_GET, name);
	if (!ret && !n->reply_len)
		ret = -EPROTO;
	if (ret) {
		kbt_nl_put(fd, n);
		return ret;
	}
	kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
	i->kind = kbt_nla_u32(tb, KB_A_KIND);
	i->key_type = kbt_nla_u32(tb, KB_A_KEY_TYPE);
	i->hash = kbt_nla_u32(tb, KB_A_HASH);
	i->k = kbt_nla_u32(tb, KB_A_K);
	i->m = kbt_nla_u64(tb, KB_A_M);
	i->items = kbt_nla_u64(tb, KB_A_ITEMS);
	i->fpr_ppb = kbt_nla_u32(tb, KB_A_FPR_PPB);
	i->expected_fpr_ppb = kbt_nla_u32(tb, KB_A_EXPECTED_FPR_PPB);
	if (tb[KB_A_SEED] && kbtn_len(tb[KB_A_SEED]) == sizeof(i->seed))
		memcpy(i->seed, kbtn_data(tb[KB_A_SEED]), sizeof(i->seed));
	i->plen4 = kbt_nla_u64(tb, KB_A_PLEN4);
	if (tb[KB_A_PLEN6] && kbtn_len(tb[KB_A_PLEN6]) == sizeof(i->plen6))
		memcpy(i->plen6, kbtn_data(tb[KB_A_PLEN6]), sizeof(i->plen6));
	i->bytes = kbt_nla_u64(tb, KB_A_BYTES);
	i->count = kbt_nla_u64(tb, KB_A_COUNT);
	i->bits_set = kbt_nla_u64(tb, KB_A_BITS_SET);
	i->est_items = kbt_nla_u64(tb, KB_A_EST_ITEMS);
	i->fill_ppm = kbt_nla_u32(tb, KB_A_FILL_PPM);
	i->est_fpr_ppb = kbt_nla_u32(tb, KB_A_EST_FPR_PPB);
	if (tb[KB_A_OVER_CAPACITY])
		i->over_capacity = *(__u8 *)kbtn_data(tb[KB_A_OVER_CAPACITY]);
	i->refs = kbt_nla_u32(tb, KB_A_REFS);
	i->id = kbt_nla_u64(tb, KB_A_ID);
	i->lookups = kbt_nla_u64(tb, KB_A_LOOKUPS);
	i->hits = kbt_nla_u64(tb, KB_A_HITS);
	i->adds = kbt_nla_u64(tb, KB_A_ADDS);
	i->generation = kbt_nla_u64(tb, KB_A_GENERATION);
	i->prefixes = kbt_nla_u32(tb, KB_A_PREFIXES);
	kbt_nl_put(fd, n);	/* tb pointed into its reply */
	return 0;
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

static inline int kbt_txn_write(int fd, const char *name, __u64 off,
				const void *data, __u64 len)
{
	struct kb_ioc_write w;

	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	kbt_name(w.name, name);
	w.offset = off;
	w.data = (uintptr_t)data;
	w.len = len;
	return kbt_ioc(fd, KB_IOC_TXN_WRITE, &w);
}

static inline void kbt_merge_init(struct kb_ioc_merge *a, const char *name,
				  const struct kb_merge_range *r, __u32 nr)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (name)
		kbt_name(a->name, name);
	a->ranges = (uintptr_t)r;
	a->nr_ranges = nr;
}

/* KB_IOC_MERGE: 0 or -errno; *gen in (0: any) and out, *bits, *why out */
static inline int kbt_merge(int fd, const char *name,
			    const struct kb_merge_range *r, __u32 nr,
			    __u32 max_fpr_ppb, __u64 *gen, __u64 *bits,
			    __u32 *why)
{
	struct kb_ioc_merge a;
	int ret;

	kbt_merge_init(&a, name, r, nr);
	a.max_fpr_ppb = max_fpr_ppb;
	a.generation = gen ? *gen : 0;
	ret = kbt_ioc(fd, KB_IOC_MERGE, &a);
	if (gen && !ret)
		*gen = a.generation;
	if (bits)
		*bits = a.new_bits;
	if (why)
		*why = a.why;
	return ret;
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
