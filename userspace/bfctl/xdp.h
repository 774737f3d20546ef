/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl xdp: what attach/detach and the device probing (xdp.c) and show
 * and destroy's guard (xdp_show.c) share.
 */
#ifndef _BFCTL_XDP_H
#define _BFCTL_XDP_H

#include <stdarg.h>
#include <net/if.h>
#include <bpf/libbpf.h>
#include "bfctl.h"
#include "xdp_blocklist.h"

/* a program found on a device */
struct blk {
	bool ours;		/* bfctl's blocklist (name, magic) */
	bool tc;		/* tc filter, else XDP */
	u32 xdp_mode;		/* XDP_ATTACHED_DRV/SKB/HW */
	u32 prog_id;
	int prog_fd;		/* -1 if none */
	struct kb_xdp_conf conf;
	char name[KB_XDP_NAME_LEN];
	u64 id;			/* the filter id it tests (.data.kb_id), 0 if unread */
	u64 cnt[KB_XDP_NR_COUNTERS];
};

/* what a device has: its XDP program and bfctl's tc filter, if any */
struct dev_state {
	int ifindex;
	char dev[IF_NAMESIZE];
	struct blk xdp, tc;
};

struct xopts {
	int dir;		/* enum kb_xdp_dir */
	int mode;		/* enum kb_xdp_mode, -1: not given */
	bool force;		/* attach to a missing filter */
	bool replace;		/* replace a program that is not kbloom's */
	char **pos;
	int npos;
};

extern const char *const bfctl_xdp_counter_names[KB_XDP_NR_COUNTERS];

int bfctl_xdp_libbpf_print(enum libbpf_print_level level, const char *fmt,
			   va_list ap);
int bfctl_xdp_parse_opts(int argc, char **argv, const char *verb,
			 bool attach, struct xopts *o);
/* the device's XDP program (any mode) and bfctl's tc filter; 0 or -errno */
int bfctl_xdp_dev_probe(int ifindex, struct dev_state *d);
void bfctl_xdp_dev_release(struct dev_state *d);
const char *bfctl_xdp_mode_name(const struct blk *b);
int bfctl_xdp_fail_sys(const char *what, const char *dev, const char *step,
		       int err);
/* DEV -> ifindex, or BFCTL_ERR with a message */
int bfctl_xdp_dev_index(const char *what, const char *dev, int *ifindex);
int bfctl_xdp_show(int argc, char **argv);

#endif /* _BFCTL_XDP_H */
