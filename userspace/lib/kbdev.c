// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kbloom ioctl wrappers (see kbdev.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "kbdev.h"

int kbdev_open(void)
{
	int fd = open(KBDEV_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int ioc(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

int kbdev_set_name(char *dst, const char *name)
{
	size_t n = strlen(name);

	memset(dst, 0, KB_NAME_MAX);
	if (!kb_name_valid(name, (u32)n))
		return -EINVAL;
	memcpy(dst, name, n);
	return 0;
}

int kbdev_keys(int fd, unsigned long cmd, u32 flags, const char *name,
	       const void *keys, u64 keys_len, u64 count, u64 *result,
	       u64 *processed, u64 *hits, u64 *err_index)
{
	struct kb_ioc_keys a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	if (kbdev_set_name(a.name, name))
		return -EINVAL;
	a.key_size = 0;
	a.keys = (u64)(uintptr_t)keys;
	a.keys_len = keys_len;
	a.count = count;
	a.result = (u64)(uintptr_t)result;
	a.err_index = ~0ULL;
	/* not ioc(): a restarted batch would redo the keys already done */
	ret = ioctl(fd, cmd, &a) < 0 ? -errno : 0;
	if (processed)
		*processed = a.processed;
	if (hits)
		*hits = a.hits;
	if (err_index)
		*err_index = a.err_index;
	return ret;
}

int kbdev_upload(int fd, u32 flags, const char *name, const void *img,
		 u64 len, u32 *why)
{
	return kbdev_upload_guarded(fd, flags, name, img, len, 0, why);
}

int kbdev_upload_guarded(int fd, u32 flags, const char *name,
			 const void *img, u64 len, u32 max_fpr_ppb, u32 *why)
{
	struct kb_ioc_image a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	a.max_fpr_ppb = max_fpr_ppb;
	if (kbdev_set_name(a.name, name))
		return -EINVAL;
	a.image = (u64)(uintptr_t)img;
	a.image_len = len;
	ret = ioc(fd, KB_IOC_UPLOAD, &a);
	if (why)
		*why = a.why;
	return ret;
}

int kbdev_upload_slice(int fd, u32 flags, const char *name, const void *img,
		       u64 len, u32 slice, u64 age_ms, u32 *why)
{
	struct kb_ioc_image a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	a.slice = slice;
	a.age_ms = age_ms;
	if (kbdev_set_name(a.name, name))
		return -EINVAL;
	a.image = (u64)(uintptr_t)img;
	a.image_len = len;
	ret = ioc(fd, KB_IOC_UPLOAD, &a);
	if (why)
		*why = a.why;
	return ret;
}

int kbdev_export(int fd, u32 flags, const char *name, u8 **img, u64 *len)
{
	return kbdev_export_slice(fd, flags, name, 0, img, len, NULL);
}

int kbdev_export_slice(int fd, u32 flags, const char *name, u32 slice,
		       u8 **img, u64 *len, u64 *age_ms)
{
	struct kb_ioc_image a;
	u8 *buf = NULL;
	int ret, tries;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	a.slice = slice;
	if (kbdev_set_name(a.name, name))
		return -EINVAL;
	/*
	 * ask for the size, then retry if the filter grew in between; the
	 * kernel copies out without locks and answers EAGAIN when the filter
	 * changed during the copy: retry that too, a bounded number of times
	 */
	for (tries = 0; tries < KBDEV_EXPORT_TRIES; tries++) {
		ret = ioc(fd, KB_IOC_EXPORT, &a);
		if (ret == -EAGAIN)
			continue;
		if (ret != -ENOSPC)
			break;
		free(buf);
		buf = kbu_alloc_payload(a.image_len);
		if (!buf)
			return -ENOMEM;
		a.image = (u64)(uintptr_t)buf;
	}
	if (ret) {
		free(buf);
		return ret;
	}
	*img = buf;
	*len = a.image_len;
	if (age_ms)
		*age_ms = a.age_ms;
	return 0;
}

int kbdev_txn_begin(int fd, const struct kb_ioc_create *c)
{
	struct kb_ioc_create a = *c;

	/* the first version's size where it is enough: any kernel takes it */
	a.size = a.window_ms || a.max_bytes || a.slices || a.max_fpr_ppb ||
		 a.flags & ~KB_CREATE_F_SEED ?
		 sizeof(a) : KB_IOC_CREATE_SIZE_VER0;
	return ioc(fd, KB_IOC_TXN_BEGIN, &a);
}

static int txn_cmd(int fd, unsigned long cmd, u32 max_fpr_ppb)
{
	struct kb_ioc_txn a = { .size = sizeof(a), .max_fpr_ppb = max_fpr_ppb };

	/* the first version's size where it is enough: any kernel takes it */
	if (!max_fpr_ppb)
		a.size = KB_IOC_TXN_SIZE_VER0;
	return ioc(fd, cmd, &a);
}

int kbdev_txn_commit(int fd)
{
	return txn_cmd(fd, KB_IOC_TXN_COMMIT, 0);
}

int kbdev_txn_commit_guarded(int fd, u32 max_fpr_ppb)
{
	return txn_cmd(fd, KB_IOC_TXN_COMMIT, max_fpr_ppb);
}

int kbdev_txn_commit_gen(int fd, u32 max_fpr_ppb, u64 *generation)
{
	/* generation: 0 on input (the module refuses another value) */
	struct kb_ioc_txn a = { .size = sizeof(a), .max_fpr_ppb = max_fpr_ppb };
	int ret = ioc(fd, KB_IOC_TXN_COMMIT_GEN, &a);

	*generation = ret ? 0 : a.generation;
	/* a module without it changed nothing: commit the old way */
	if (ret == -ENOTTY)
		ret = txn_cmd(fd, KB_IOC_TXN_COMMIT, max_fpr_ppb);
	return ret;
}

int kbdev_txn_abort(int fd)
{
	return txn_cmd(fd, KB_IOC_TXN_ABORT, 0);
}

int kbdev_txn_write(int fd, const char *name, u64 off, const void *data,
		    u64 len)
{
	struct kb_ioc_write a = { .size = sizeof(a) };
	int ret = kbdev_set_name(a.name, name);

	if (ret)
		return ret;
	a.offset = off;
	a.data = (u64)(uintptr_t)data;
	a.len = len;
	return ioc(fd, KB_IOC_TXN_WRITE, &a);
}

int kbdev_merge(int fd, const char *name, const struct kb_merge_range *r,
		u32 nr, u32 max_fpr_ppb, u64 *generation, u64 *new_bits,
		u32 *why)
{
	struct kb_ioc_merge a = { .size = sizeof(a) };
	int ret = kbdev_set_name(a.name, name);

	if (ret)
		return ret;
	a.ranges = (u64)(uintptr_t)r;
	a.nr_ranges = nr;
	a.max_fpr_ppb = max_fpr_ppb;
	a.generation = generation ? *generation : 0;
	ret = ioc(fd, KB_IOC_MERGE, &a);
	if (generation && !ret)
		*generation = a.generation;
	if (new_bits)
		*new_bits = ret ? 0 : a.new_bits;
	if (why)
		*why = a.why;
	return ret;
}
