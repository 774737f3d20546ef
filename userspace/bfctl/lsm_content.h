/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl lsm's content mode (lsm_content.c): what lsm.c's verbs and the
 * in-use guard (inuse.c) call.  Its pins live beside path mode's, under
 * LSM_CONTENT_DIR, so the two modes attach and detach independently.
 */
#ifndef _BFCTL_LSM_CONTENT_H
#define _BFCTL_LSM_CONTENT_H

#include "bfctl.h"

#define LSM_CONTENT_DIR		"/sys/fs/bpf/kbloom/lsm-content"

/* does argv (after "attach") ask for content mode (--content)? */
bool bfctl_lsm_content_wanted(int argc, char **argv);
/* bfctl lsm attach NAME --content -file F [--exec] [--open] [--audit] */
int bfctl_lsm_content_attach(int argc, char **argv);
bool bfctl_lsm_content_attached(void);
/*
 * detach and show of both modes: --path or --content picks one (default:
 * whichever are attached); path_verb is path mode's own verb, called with
 * argv[0] and the options it knows (-q, -j)
 */
int bfctl_lsm_detach_modes(int argc, char **argv,
			   int (*path_verb)(int argc, char **argv));
int bfctl_lsm_show_modes(int argc, char **argv,
			 int (*path_verb)(int argc, char **argv));
/* 1 if the content filter tests filter name of this netns, 0, or -errno */
int bfctl_lsm_content_uses(const char *name);

/* between lsm_content.c and lsm_content_show.c */
struct kbconn;
struct cf_digest;
/* an fd of the pinned object NAME under LSM_CONTENT_DIR, or -1 (errno) */
int bfctl_lsm_content_obj(const char *name);
/* a digest as 64 hex digits and a NUL into out */
void bfctl_lsm_content_hex(char *out, const u8 *d);
/* the digests to filter name: cmd KB_IOC_ADD, or KB_IOC_TEST (res) */
int bfctl_lsm_content_keys(struct kbconn *conn, unsigned long cmd,
			    const char *name, const struct cf_digest *d,
			    u64 n, u64 *res);
/*
 * detach and show of both modes (lsm_content.c): the modes --path and
 * --content pick (default: both), each run if it is on (attached, for
 * what); the worst exit code, BFCTL_ABSENT "not attached" if none is on
 */
int bfctl_lsm_run_modes(int argc, char **argv, const char *what,
			int (*path_verb)(int argc, char **argv),
			bool (*path_on)(void), int (*content_verb)(void),
			bool (*content_on)(void));

#endif /* _BFCTL_LSM_CONTENT_H */
