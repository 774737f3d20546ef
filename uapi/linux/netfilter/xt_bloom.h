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

#endif /* _UAPI_XT_BLOOM_H */
