/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the XDP/tc blocklist program (xdp_blocklist.bpf.c) and bfctl's
 * `xdp` verbs (userspace/bfctl/xdp.c) share: the program's configuration
 * and its counters.  Nothing is pinned: bfctl finds an attached blocklist
 * from the device (its XDP program, or its tc filter at KB_XDP_TC_HANDLE
 * and KB_XDP_TC_PRIO) and reads this configuration back from the
 * program's own maps, so the device is the attachment's only owner.
 */
#ifndef _KB_XDP_BLOCKLIST_H
#define _KB_XDP_BLOCKLIST_H

/* "kbloomxd": marks a program as bfctl's blocklist (with its names) */
#define KB_XDP_MAGIC		0x6b626c6f6f6d7864ULL
#define KB_XDP_VERSION		1

/* the BPF programs' names, as the kernel reports them (15 chars max) */
#define KB_XDP_PROG_XDP		"kbloom_xdp"
#define KB_XDP_PROG_TC		"kbloom_tc"
/* libxdp's dispatcher, which runs the blocklist beside other programs */
#define KB_XDP_DISPATCHER	"xdp_dispatcher"

/*
 * The blocklist's run priority in libxdp's dispatcher (lower runs first):
 * libxdp's default, XDP_DEFAULT_RUN_PRIO.  xdp-filter's programs declare
 * 10, so they run before it.
 */
#define KB_XDP_PRIO_DEFAULT	50

/* bfctl's tc filter on the ingress hook of clsact: "kb" */
#define KB_XDP_TC_HANDLE	0x6b62
#define KB_XDP_TC_PRIO		0x6b62

enum kb_xdp_dir {
	KB_XDP_DIR_SRC = 0,	/* test the source address */
	KB_XDP_DIR_DST = 1,	/* test the destination address */
};

/* how bfctl attached it (the kernel reports XDP's mode; tc is bfctl's) */
enum kb_xdp_mode {
	KB_XDP_MODE_AUTO = 0,	/* XDP, driver mode if it has one */
	KB_XDP_MODE_NATIVE = 1,
	KB_XDP_MODE_GENERIC = 2,
	KB_XDP_MODE_TC = 3,
};

/* set before load, read-only to the program (.rodata) */
struct kb_xdp_conf {
	__u64 magic;		/* KB_XDP_MAGIC */
	__u32 version;		/* KB_XDP_VERSION */
	__u32 dir;		/* enum kb_xdp_dir */
	__u32 mode;		/* enum kb_xdp_mode */
	__u32 ifindex;		/* the device it was loaded for */
};

/*
 * Per-CPU packet counters, one slot each (BPF_MAP_TYPE_PERCPU_ARRAY);
 * every packet the program sees counts in exactly one.
 */
enum kb_xdp_counter {
	KB_XDP_PASSED = 0,	/* IPv4/IPv6, address absent: passed */
	KB_XDP_DROPPED = 1,	/* address maybe present, or > 8 VLAN tags */
	KB_XDP_NOFILTER = 2,	/* no such filter (or error): passed */
	KB_XDP_NONIP = 3,	/* not IPv4/IPv6 (or truncated): passed */
	KB_XDP_NR_COUNTERS,
};

/* the filter's name, with its NUL (KB_NAME_MAX of uapi/linux/kbloom.h) */
#define KB_XDP_NAME_LEN		32

#endif /* _KB_XDP_BLOCKLIST_H */
