/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program's connection to the kbloom module.  Control operations go over
 * the generic netlink family, the module's only control plane (kbnl.h);
 * what is bound to an open file or is bulk data (key files, images,
 * transactions) uses /dev/kbloom (kbdev.h), opened when first needed.
 * Errors are -errno; extack holds the kernel's message about the last one,
 * or ours when there was no kernel to ask (empty if none).
 */
#ifndef _KBCONN_H
#define _KBCONN_H

#include "kbdev.h"
#include "kbnl.h"

/* why the kernel says EPERM (uapi/linux/kbloom.h, "Privileges") */
#define KBCONN_PRIV_HINT	"every kbloom operation, reads included, " \
	"needs CAP_NET_ADMIN in the network namespace's user namespace " \
	"(run as root)"

struct kbconn {
	int dev;		/* /dev/kbloom, -1 until first needed */
	struct kbnl *nl;	/* netlink, NULL if the family is absent */
	char extack[256];
};

void kbconn_init(struct kbconn *c);
void kbconn_close(struct kbconn *c);
/* without the netlink family: -EOPNOTSUPP, extack says why */
int kbconn_no_nl(struct kbconn *c);
/* /dev/kbloom of this netns: fd or -errno */
int kbconn_dev(struct kbconn *c);
int kbconn_create(struct kbconn *c, const struct kb_ioc_create *a);
int kbconn_destroy(struct kbconn *c, const char *name);
int kbconn_flush(struct kbconn *c, const char *name);
int kbconn_swap(struct kbconn *c, const char *a, const char *b);
int kbconn_rename(struct kbconn *c, const char *from, const char *to);
int kbconn_info(struct kbconn *c, const char *name, struct kb_ioc_info *i);
/* every filter of the netns, in name order; cb's nonzero return stops */
int kbconn_list(struct kbconn *c,
		int (*cb)(const struct kb_ioc_info *i, void *arg), void *arg);
/*
 * The image of name, handed to cb in pieces as it arrives (kbnl_export()),
 * so the caller need not hold it whole; without the netlink family, the
 * /dev/kbloom export, in one piece.  -EAGAIN: the filter changed meanwhile
 * (what cb got is void: start over).
 */
int kbconn_export(struct kbconn *c, const char *name, kbnl_chunk_cb cb,
		  void *arg);
/* the same of slice n (1 = the newest) of a window or growing filter */
int kbconn_export_slice(struct kbconn *c, const char *name, u32 slice,
			kbnl_chunk_cb cb, void *arg, u64 *age_ms);
/*
 * one batch of packed keys (cmd: KB_IOC_ADD/TEST/DEL/TEST_ADD), over
 * netlink when it is there, see kbdev_keys()
 */
int kbconn_keys(struct kbconn *c, unsigned long cmd, const char *name,
		const void *keys, u64 keys_len, u64 count, u64 *result,
		u64 *processed, u64 *err_index);

#endif /* _KBCONN_H */
