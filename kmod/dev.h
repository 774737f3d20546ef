/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom: what the /dev/kbloom files (dev.c, dev_image.c, dev_merge.c,
 * dev_filter.c) share.
 */
#ifndef _KB_DEV_H
#define _KB_DEV_H

#include <linux/fs.h>
#include <linux/mutex.h>

#include "internal.h"

/* an open /dev/kbloom */
struct kb_file {
	struct net *net;		/* the opener's */
	struct mutex lock;		/* txn, busy */
	struct kb_txn *txn;
	/*
	 * key batches and raw writes on txn in progress (each takes kf->lock
	 * per step only): commit and begin answer EBUSY while any runs, so a
	 * transaction never goes live, nor is replaced, between two steps
	 */
	unsigned int busy;
};

/* an ioctl's name field: a valid name, NUL-padded (the bytes are ABI) */
bool kb_ioc_name_ok(const char name[KB_NAME_MAX]);
/* read a versioned struct: size first, copy_struct_from_user() semantics */
int kb_copy_in(void *k, size_t ksize, size_t ver0, const void __user *u,
	       u32 *usize);
int kb_copy_out(void __user *u, const void *k, size_t ksize, u32 usize);
bool kb_zero(const void *p, size_t len);
/* CAP_NET_ADMIN over the opener's netns, as the opener had it */
bool kb_admin(struct file *file, struct kb_file *kf);
/* end of a batch or write counted in kf->busy */
void kb_file_unbusy(struct kb_file *kf);
/* kf's transaction begun under name (kf->lock held), or ENOENT/EINVAL */
struct kb_txn *kb_file_txn_find(struct kb_file *kf, const char *name);

/*
 * A key batch ioctl (struct kb_ioc_keys at u): on /dev/kbloom (fs NULL:
 * the filter named, or kf's transaction), or on a filter file (fs: its
 * filter, of net; kf NULL; the name all zero, no flags).
 */
long kb_keys_ioctl(struct net *net, struct kb_file *kf, struct kb_set *fs,
		   void __user *u, enum kb_op op);

/* dev_filter.c: KB_IOC_OPEN */
long kb_ioc_open(struct file *file, struct kb_file *kf, void __user *u);

/* dev_image.c */
long kb_ioc_upload(struct file *file, struct kb_file *kf, void __user *u);
long kb_ioc_export(struct file *file, struct kb_file *kf, void __user *u);
long kb_ioc_txn_write(struct file *file, struct kb_file *kf, void __user *u);

/*
 * dev_merge.c: KB_IOC_MERGE on /dev/kbloom (fs NULL: the filter named, of
 * net) or on a filter file (fs: its filter, of net; the name all zero)
 */
long kb_merge_ioctl(struct net *net, struct kb_set *fs, void __user *u);

#endif /* _KB_DEV_H */
