/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin wrappers around the /dev/kbloom ioctls (uapi section 3): key
 * batches, images and transactions; the control plane is netlink.  Every
 * function returns 0 or -errno; the argument structs are filled here so
 * callers never forget size or zero the reserved fields.
 */
#ifndef _KBDEV_H
#define _KBDEV_H

#include <sys/ioctl.h>
#include "kbuser.h"

#define KBDEV_PATH	"/dev/kbloom"

/* open /dev/kbloom read-write (close-on-exec); fd or -errno */
int kbdev_open(void);

/*
 * One batch of keys (cmd: KB_IOC_ADD/TEST/DEL/TEST_ADD).  keys holds count
 * keys packed as key_size 0 (native __u16 length + bytes).  result: NULL or
 * DIV_ROUND_UP(count, 64) words.  On return *processed and *err_index (may
 * be NULL) are the kernel's.  flags: KB_KEYS_F_*.
 */
int kbdev_keys(int fd, unsigned long cmd, u32 flags, const char *name,
	       const void *keys, u64 keys_len, u64 count, u64 *result,
	       u64 *processed, u64 *hits, u64 *err_index);

/* upload an image (flags KB_IMAGE_F_*); *why gets enum kb_img_err */
int kbdev_upload(int fd, u32 flags, const char *name, const void *img,
		 u64 len, u32 *why);
/*
 * The same with the saturation guard: max_fpr_ppb (0: none) refuses an
 * image whose estimated FPR is over it (-EDOM, why KB_IMG_SATURATED)
 */
int kbdev_upload_guarded(int fd, u32 flags, const char *name,
			 const void *img, u64 len, u32 max_fpr_ppb, u32 *why);
/*
 * Windows and growing filters: slice n (1 = the newest) of name, its
 * image and its age in milliseconds (uapi struct kb_ioc_image)
 */
int kbdev_upload_slice(int fd, u32 flags, const char *name, const void *img,
		       u64 len, u32 slice, u64 age_ms, u32 *why);
int kbdev_export_slice(int fd, u32 flags, const char *name, u32 slice,
		       u8 **img, u64 *len, u64 *age_ms);
/* export the image of name (flags KB_IMAGE_F_TXN: the staging one) */
/* -EAGAIN: the filter changed during each of KBDEV_EXPORT_TRIES tries */
#define KBDEV_EXPORT_TRIES	8
int kbdev_export(int fd, u32 flags, const char *name, u8 **img, u64 *len);

/* transactions: begin takes the new parameters (c->name = the filter) */
int kbdev_txn_begin(int fd, const struct kb_ioc_create *c);
int kbdev_txn_commit(int fd);
/* commit with the saturation guard (as kbdev_upload_guarded(): -EDOM) */
int kbdev_txn_commit_guarded(int fd, u32 max_fpr_ppb);
/*
 * the same, and *generation = the generation it installed (the one to
 * merge into); 0 from a module that cannot say (committed all the same):
 * read it with KB_CMD_GET, where a rebuild in between looks like ours
 */
int kbdev_txn_commit_gen(int fd, u32 max_fpr_ppb, u64 *generation);
int kbdev_txn_abort(int fd);
/* raw payload bytes at off into the transaction begun under name */
int kbdev_txn_write(int fd, const char *name, u64 off, const void *data,
		    u64 len);
/*
 * KB_IOC_MERGE: OR nr ranges into the live filter, checked as a whole
 * first (-EDOM: over max_fpr_ppb; -ESTALE: *generation, when non-zero, is
 * no longer the filter's; on success it is set to the one merged into)
 */
int kbdev_merge(int fd, const char *name, const struct kb_merge_range *r,
		u32 nr, u32 max_fpr_ppb, u64 *generation, u64 *new_bits,
		u32 *why);

/* copy a name into a KB_NAME_MAX NUL-padded field; -EINVAL if invalid */
int kbdev_set_name(char *dst, const char *name);

#endif /* _KBDEV_H */
