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
	bool tcx;		/* tc on tcx (6.6+), not a cls_bpf filter */
	u32 xdp_mode;		/* XDP_ATTACHED_DRV/SKB/HW */
	bool disp;		/* a program of libxdp's dispatcher */
	u32 run_prio;		/* its run priority there */
	u32 prog_id;
	int prog_fd;		/* -1 if none */
	struct kb_xdp_conf conf;
	char name[KB_XDP_NAME_LEN];
	u64 id;			/* the filter id it tests (.data.kb_id), 0 if unread */
	u64 cnt[KB_XDP_NR_COUNTERS];
};

/*
 * What a device has: its XDP program and bfctl's tc filter, if any.
 * When its XDP program is libxdp's dispatcher (disp_id), xdp is bfctl's
 * blocklist among the dispatcher's programs if there is one, else the
 * dispatcher itself (not ours).
 */
struct dev_state {
	int ifindex;
	char dev[IF_NAMESIZE];
	struct blk xdp, tc;
	u32 disp_id;		/* libxdp's dispatcher, 0 if none */
	int disp_progs;		/* its programs, -errno if unreadable */
};

struct xopts {
	int dir;		/* enum kb_xdp_dir */
	int mode;		/* enum kb_xdp_mode, -1: not given */
	bool force;		/* attach to a missing filter */
	bool replace;		/* replace a program that is not kbloom's */
	bool no_disp;		/* --no-dispatcher: attach alone */
	long prio;		/* --priority, -1: not given */
	char **pos;
	int npos;
};

/* libbpf's and libxdp's warnings muted (xdp.c) */
extern bool bfctl_xdp_mute;

extern const char *const bfctl_xdp_counter_names[KB_XDP_NR_COUNTERS];

int bfctl_xdp_libbpf_print(enum libbpf_print_level level, const char *fmt,
			   va_list ap);
int bfctl_xdp_parse_opts(int argc, char **argv, const char *verb,
			 bool attach, struct xopts *o);
/* the device's XDP program (any mode) and bfctl's tc filter; 0 or -errno */
int bfctl_xdp_dev_probe(int ifindex, struct dev_state *d);
void bfctl_xdp_dev_release(struct dev_state *d);
int bfctl_xdp_inspect_prog(u32 id, bool tc, struct blk *b);
void bfctl_xdp_blk_release(struct blk *b);
const char *bfctl_xdp_mode_name(const struct blk *b);
int bfctl_xdp_fail_sys(const char *what, const char *dev, const char *step,
		       int err);
/* DEV -> ifindex, or BFCTL_ERR with a message */
int bfctl_xdp_dev_index(const char *what, const char *dev, int *ifindex);
int bfctl_xdp_show(int argc, char **argv);

/* libxdp's dispatcher (xdp_disp.c) */
struct xdp_blocklist;
/* d's XDP program is a dispatcher: find bfctl's among its programs */
int bfctl_xdp_disp_probe(struct dev_state *d);
/*
 * Attach the opened (not loaded) skel through the dispatcher, replacing
 * the blocklist d has there: 0, -errno, or BFCTL_ERR (told on stderr);
 * *alone: libxdp loaded it without one.
 */
int bfctl_xdp_disp_attach(const char *dev, struct dev_state *d,
			  const struct xopts *o, struct xdp_blocklist *skel,
			  bool *alone);
/* detach b, a program of d's dispatcher, from it: the others stay */
int bfctl_xdp_disp_detach(const char *dev, struct dev_state *d,
			  const struct blk *b);

/* --mode tc on tcx (xdp_tcx.c) */
bool bfctl_xdp_tcx_available(int ifindex);
/* bfctl's blocklist among the device's tcx ingress programs -> d->tc */
int bfctl_xdp_tcx_probe(struct dev_state *d);
/* attach fd, replacing exactly d->tc if it is ours there */
int bfctl_xdp_tcx_attach(const char *dev, struct dev_state *d, int fd);
int bfctl_xdp_tcx_detach(const char *dev, struct dev_state *d,
			 const struct blk *b);

#endif /* _BFCTL_XDP_H */
