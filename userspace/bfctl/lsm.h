/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl lsm: what attach/detach (lsm.c), show/log (lsm_show.c) and the
 * inode identities (lsm_inode.c) share.
 */
#ifndef _BFCTL_LSM_H
#define _BFCTL_LSM_H

#include "kverbs.h"

#define LSM_BPFFS	"/sys/fs/bpf"
#define LSM_DIR		LSM_BPFFS "/kbloom/lsm"
#define LSM_SECFS	"/sys/kernel/security"
#define LSM_LOCK_DIR	"/run/kbloom"
#define LSM_LOCK	LSM_LOCK_DIR "/lsm.lock"
#define BPF_FS_MAGIC_	0xcafe4a11

#define LSM_USAGE "attach NAME [--content] -file PATHS [--exec] [--open] [--audit] | detach [--path|--content] | show [--path|--content] | log [--once]"

int bfctl_lsm_usage(const char *fmt, const char *arg);
void bfctl_lsm_pin_path(char *buf, size_t len, const char *name);
/* an fd of the pinned object NAME under LSM_DIR, or -1 (errno) */
int bfctl_lsm_obj(const char *name);
bool bfctl_lsm_attached(void);
int bfctl_lsm_netns_cookie(u64 *cookie);
int bfctl_lsm_filter_keys(struct kbconn *conn, unsigned long cmd,
			  const char *name, char *const *path, u64 n,
			  u64 *res);
struct pf_ino;
/*
 * the identity of the file fd (O_PATH) refers to, for the inode set;
 * -EOPNOTSUPP or -ESTALE (lsm_inode.c says why) if it is to be matched
 * by its path only, or -errno
 */
int bfctl_lsm_file_id(int fd, struct pf_ino *id);
/* the path the hooks see for a listed path (lsm_inode.c), or -EINVAL */
int bfctl_lsm_canon(const char *given, char *out, const char **bad);
int bfctl_lsm_show(int argc, char **argv);
int bfctl_lsm_log(int argc, char **argv);

#endif /* _BFCTL_LSM_H */
