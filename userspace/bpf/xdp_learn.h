/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the XDP learning trap (xdp_learn.bpf.c) and its loader
 * (xdp_learn.c) share: the program's configuration and its counters.
 */
#ifndef _KB_XDP_LEARN_H
#define _KB_XDP_LEARN_H

/* the filter's name, with its NUL (KB_NAME_MAX of uapi/linux/kbloom.h) */
#define KB_LEARN_NAME_LEN	32

/* set before load, read-only to the program (.rodata) */
struct kb_learn_conf {
	__u16 port;		/* the trap port, network order */
	__u16 pad;
	__u32 refresh;		/* add with KBLOOM_ADD_REFRESH (windows: a
				 * scanner that comes back starts its
				 * window again)
				 */
};

/* per-CPU counters, one slot each; every packet counts in one */
enum kb_learn_counter {
	KB_LEARN_ADDED = 0,	/* trap: the source was added (then dropped) */
	KB_LEARN_KNOWN = 1,	/* trap: it may already be there (dropped) */
	KB_LEARN_REFUSED = 2,	/* trap: over the filter's cap (dropped) */
	KB_LEARN_DROPPED = 3,	/* another port, source maybe listed */
	KB_LEARN_PASSED = 4,	/* another port, source absent */
	KB_LEARN_OTHER = 5,	/* not IPv4/IPv6, no filter: passed */
	KB_LEARN_NR_COUNTERS,
};

#endif /* _KB_XDP_LEARN_H */
