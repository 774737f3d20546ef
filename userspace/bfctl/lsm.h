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
/*
 * What both modes (lsm.c, lsm_content.c) share.  --exec and --open are
 * the same bits in both programs' hooks (asserted where they are used).
 */
#define LSM_HOOK_EXEC	(1u << 0)
#define LSM_HOOK_OPEN	(1u << 1)

struct lsm_attach_args {
	const char *name, *file;
	u32 hooks;		/* LSM_HOOK_*: exec if none is given */
	bool audit;
};

/*
 * attach NAME -file F [--exec] [--open] [--audit] [--content] [-q]:
 * 0, or BFCTL_USAGE (said; nofile if there is no -file)
 */
int bfctl_lsm_attach_args(int argc, char **argv, struct lsm_attach_args *a,
			  const char *nofile);
/* conn's info of filter name, whose keys must be key_type ("needs" why) */
int bfctl_lsm_filter_check(struct kbconn *conn, const char *name,
			   u32 key_type, const char *needs);
/* bpffs on /sys/fs/bpf (mounted if absent): 0 or BFCTL_ERR (said) */
int bfctl_lsm_bpffs(const char *what);
/* the flock of file, one attach or detach at a time: an fd, or -1 (said) */
int bfctl_lsm_lock(const char *what, const char *file);
/* make dir (and its parent) for the pins; *made if this call made it */
int bfctl_lsm_make_dir(const char *dir, bool *made);
struct bpf_program;
struct bpf_link;
struct bpf_map;
/* the pins of the four programs' links (exec, mmap, mprotect, open) */
extern const char *const bfctl_lsm_link_pins[4];
/*
 * pin the links attached of link[4], then maps[0..n) as names[0..n),
 * under dir: 0 or -errno
 */
int bfctl_lsm_pin_all(const char *dir, struct bpf_link *const *link,
		      struct bpf_map *const *maps, const char *const *names,
		      size_t n);
/* remove those pins, and dir if that empties it; how many were there */
int bfctl_lsm_unpin_all(const char *dir, const char *const *names, size_t n);
/*
 * set which of the four programs (exec, mmap, mprotect: --exec; open:
 * --open) load, and attach the loaded ones into link[4]: 0 or -errno
 */
void bfctl_lsm_autoload(struct bpf_program *const *progs, u32 hooks);
int bfctl_lsm_attach_progs(struct bpf_program *const *progs,
			   struct bpf_link **link, u32 hooks);
/* the id of the program behind the link pinned as dir/pin, 0 if none */
u32 bfctl_lsm_link_prog(const char *dir, const char *pin);
/* wait up to 30 s for program id to be freed: false if it is not */
bool bfctl_lsm_wait_prog_gone(u32 id);
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
/*
 * show's parts both modes share (lsm_show.c).  The pinned config map's
 * value, the program's .rodata (size bytes): 0, -EPROTO if it has
 * another layout (pinned by another bfctl version), or -errno.
 */
int bfctl_lsm_config_read(int fd, void *cfg, size_t size);
/* "lsm show: DIR: unreadable: why" for err; BFCTL_ERR */
int bfctl_lsm_unreadable(const char *dir, int err);
/* the per-CPU counters of the stats map sfd, summed: 0, or -1 */
int bfctl_lsm_stats_sum(int sfd, u64 *total, u32 n);
/* the hooks as show writes them ("exec,open") into buf; returns buf */
const char *bfctl_lsm_hooks_text(char *buf, size_t len, u32 hooks);
/* -j: "filter", "hooks", "mode" */
void bfctl_lsm_json_head(const char *filter, u32 hooks, const char *mode);
/* -j: "not_in_filter" (or why "_untested"), "netns_cookie", "stats" */
void bfctl_lsm_json_tail(const char *why, u64 missing, u64 cookie,
			 const char *const *names, const u64 *total, u32 n);
/*
 * n listed keys tested against the filter (err; res, a bit each): how
 * many it lacks (all if it is gone), or ~0 with *why
 */
u64 bfctl_lsm_missing(int err, const u64 *res, u64 n, const char **why);
/* text: the counters' line */
void bfctl_lsm_text_stats(const char *const *names, const u64 *total, u32 n);
int bfctl_lsm_show(int argc, char **argv);
int bfctl_lsm_log(int argc, char **argv);

#endif /* _BFCTL_LSM_H */
