/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * xt_bloom: match packets whose address may be in a kbloom filter.
 *
 *   iptables -A INPUT -m bloom --bloom-name NAME --bloom-dir src -j DROP
 *
 * The match tests the packet's source and/or destination address (4 raw
 * bytes for IPv4, 16 for IPv6, network byte order) against the named
 * filter of the rule's network namespace.  For filters of the net key
 * types it tests the address masked to every prefix length the filter
 * holds, longest first.  With both directions the match holds when
 * either address may be present.  "! --bloom-name" inverts the result.
 * Filters must have key type ipv4/net4 (IPv4 rules), ipv6/net6 (IPv6
 * rules), or ip/net (both).
 */
#ifndef _UAPI_XT_BLOOM_H
#define _UAPI_XT_BLOOM_H

#include <linux/types.h>

#define XT_BLOOM_NAME_MAX	32	/* KB_NAME_MAX, including the NUL */

/* flags */
#define XT_BLOOM_SRC		(1U << 0)	/* test the source address */
#define XT_BLOOM_DST		(1U << 1)	/* test the destination address */
#define XT_BLOOM_INVERT		(1U << 2)	/* ! --bloom-name */
#define XT_BLOOM_FLAGS		(XT_BLOOM_SRC | XT_BLOOM_DST | XT_BLOOM_INVERT)

/* revision 0 */
struct xt_bloom_mtinfo {
	char	name[XT_BLOOM_NAME_MAX];	/* NUL-terminated filter name */
	__u32	flags;				/* XT_BLOOM_*; SRC and/or DST */
	__u32	reserved;			/* must be zero */
	/*
	 * Kernel-private from here on, not copied to or from userspace: the
	 * rule's reference on its filter (a kernel pointer).
	 */
	__aligned_u64	filter;
};

/*
 * The BLOOM target: add the packet's address to a filter, then go on with
 * the next rule (ipset's SET target's shape):
 *
 *   iptables -A INPUT -p tcp --dport 23 -j BLOOM --add-set scanners src
 *
 * --add-set NAME src|dst (one of them); --prefix N: for net4/net6/net
 * filters, the prefix of the address to add (default the whole address,
 * 32 or 128; IPv6 rules take 0..128, IPv4 rules 0..32); --exist: in a
 * time window, an address already present is added again, to the newest
 * slice, which restarts its window (without it, one that may be present
 * is left as it is, as ipset leaves a timeout unless --exist).
 * Filters must be of kind blocked and of a key type the rule's family
 * fits (as for the match); adds past the filter's max-fpr-ppb cap are
 * refused and counted, never made.  A rule holds its filter (destroy and
 * rename: EBUSY).
 */
#define XT_BLOOM_T_EXIST	(1U << 0)	/* --exist */
#define XT_BLOOM_T_PREFIX	(1U << 1)	/* --prefix given */
#define XT_BLOOM_T_FLAGS	(XT_BLOOM_T_EXIST | XT_BLOOM_T_PREFIX)

/* revision 0 */
struct xt_bloom_tginfo {
	char	name[XT_BLOOM_NAME_MAX];	/* NUL-terminated filter name */
	__u32	dir;				/* XT_BLOOM_SRC or XT_BLOOM_DST */
	__u32	flags;				/* XT_BLOOM_T_* */
	__u8	prefix;				/* with XT_BLOOM_T_PREFIX */
	__u8	reserved[7];			/* must be zero */
	/* kernel-private, as in struct xt_bloom_mtinfo */
	__aligned_u64	filter;
};

#endif /* _UAPI_XT_BLOOM_H */
