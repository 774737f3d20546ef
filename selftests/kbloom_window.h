/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom_window's two files: kbloom_window.c (the tests, with the
 * kselftest harness, which only one file of a program may include) and
 * kbloom_window_nl.c (these requests, which return -errno).
 */
#ifndef _KBLOOM_WINDOW_H
#define _KBLOOM_WINDOW_H

#include <time.h>

#include "kb_test.h"

#define PG		4096UL
#define PARAM_NETNS	"/sys/module/kbloom/parameters/max_netns_bytes"
/* a late rotation on a loaded TCG guest: the upper bound's slack, ms */
#define SLACK_MS	1500
#define FPR_LOW		1000		/* 1e-6: no false positive in a test */

struct kbw_shape {
	__u64 window_ms;
	__u32 slices;
	int grow;
	__u64 max_bytes;
};

struct kbw_slice {
	__u64 age_ms, m, items, bytes, bits_set;
	__u32 k, fpr_ppb, est_fpr_ppb;
};

struct kbw_info {
	__u64 generation, window_ms, next_rotation_ms, max_bytes, count;
	__u64 items;
	__u32 slices, nnest, fpr_ppb;
	int grow, over;
	struct kbw_slice sl[KB_SLICES_MAX];
};

/* CLOCK_BOOTTIME in ms (the kernel's clock for windows), and a sleep */
__s64 kbw_now_ms(void);
void kbw_sleep_ms(__s64 ms);
/*
 * KB_CMD_CREATE of a blocked filter of 16-byte keys with a shape; the
 * extack's message and offset stay in the pair's socket: *blamed says
 * whether it blamed the attribute blame
 */
int kbw_create(int fd, const char *name, __u32 kind, __u64 items,
	       __u32 fpr_ppb, const struct kbw_shape *sh, int blame,
	       int *blamed);
/* KB_CMD_GET with the slices' attributes and nests (newest first) */
int kbw_get(int fd, const char *name, struct kbw_info *w);
/* keys first..first+n-1 of family fam (16 bytes each): add, or test */
int kbw_add(int fd, const char *name, __u32 fam, __u64 first, __u64 n);
long kbw_hits(int fd, const char *name, __u32 fam, __u64 first, __u64 n);
/* the module's max_filter_bytes (0: unreadable) */
__u64 kbw_module_max_bytes(void);
/* the bytes of a plain blocked filter of items at fpr_ppb */
__u64 kbw_plain_bytes(int fd, __u64 items, __u32 fpr_ppb);

#endif /* _KBLOOM_WINDOW_H */
