/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path filter (BPF LSM): what its program (path_filter.bpf.c) and its
 * loader (bfctl lsm, userspace/bfctl/lsm.c) share: the layout of its maps
 * and events, and the keyed hash that confirms a Bloom filter's "maybe".
 */
#ifndef _KB_PATH_FILTER_H
#define _KB_PATH_FILTER_H

#ifndef __bpf__
#include <linux/types.h>
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

/*
 * A listed path is a str key: at most KB_KEY_MAX_LEN (1024) bytes.  The
 * program's buffer holds such a path, its NUL, and the 8 bytes the hash's
 * last block load may read past it (pf_siphash128()).
 */
#define PF_PATH_MAX	1024
#define PF_BUF_WORDS	((PF_PATH_MAX + 16) / 8)
/*
 * A path of at most PF_STACK_PATH bytes (nearly all) is written on the
 * program's own stack, which no other task shares: such a check never
 * needs a shared buffer, however many are in flight on its CPU.
 */
#define PF_STACK_PATH	256
#define PF_STACK_WORDS	((PF_STACK_PATH + 16) / 8)
/*
 * path buffers per CPU, for longer paths: checks on one CPU at once (each
 * preempted by the next, or asleep in bpf_d_path() on PREEMPT_RT) before
 * one is judged by the inode set alone
 */
#define PF_BUF_SLOTS	16
#define PF_NAME_MAX	32	/* KB_NAME_MAX */

/* the hooks (rodata hooks, event hook) */
#define PF_HOOK_EXEC	(1u << 0)	/* bprm_check_security */
#define PF_HOOK_OPEN	(1u << 1)	/* file_open */
/* event hooks only: --exec also hooks these (code mapped without exec) */
#define PF_HOOK_MMAP	(1u << 2)	/* mmap_file with PROT_EXEC */
#define PF_HOOK_MPROTECT (1u << 3)	/* file_mprotect adding PROT_EXEC */

#define PF_PROT_EXEC	0x4		/* PROT_EXEC */

/* why an event's file was judged listed (pf_event.why) */
#define PF_WHY_PATH	(1u << 0)	/* its path is in the exact set */
#define PF_WHY_INODE	(1u << 1)	/* its identity is in the inode set */
#define PF_WHY_NO_BUF	(1u << 2)	/* no path buffer: inode set only */

/* counters: the per-CPU array "stats", one slot each */
enum pf_stat {
	PF_STAT_CHECKED,	/* paths looked at (short enough to be listed) */
	PF_STAT_MAYBE,		/* the Bloom filter answered maybe present */
	PF_STAT_FALSE_POS,	/* ...and the exact set said no: allowed */
	PF_STAT_HIT,		/* in the exact set: denied, or audited */
	PF_STAT_FOREIGN,	/* another netns: decided by the exact set */
	PF_STAT_NO_FILTER,	/* the filter errored (destroyed): exact set */
	PF_STAT_NO_BUF,		/* no path buffer: judged by the inode set */
	PF_STAT_LOST,		/* events the full ring buffer dropped */
	PF_STAT_BY_INODE,	/* hits by (dev, ino) alone: another path */
	PF_STAT_NR,
};

/* a key of the exact set: SipHash-2-4-128 of the path, key in rodata */
struct pf_hash {
	__u64 lo, hi;
};

/*
 * a key of the inode set: a listed file as the kernel identifies it,
 * inode->i_sb->s_dev (the kernel's dev_t: major << 20 | minor, not
 * glibc's st_dev encoding), inode->i_ino and inode->i_generation.  The
 * generation tells the listed file from a new one that reuses its inode
 * number once it is deleted (ext4 hands a freed number out again at
 * once): without it, a package upgrade replacing a listed binary could
 * deny an innocent file created next.  On btrfs, whose subvolumes share
 * a superblock and number their files alike, sub is the subvolume's id
 * (its root's objectid); elsewhere 0.
 */
struct pf_ino {
	__u64 dev, ino, sub;
	__u32 gen;
	__u32 pad;		/* 0 */
};

#define PF_BTRFS_MAGIC	0x9123683e	/* BTRFS_SUPER_MAGIC */

/*
 * one listed path, as attach resolved it: the array "list", which the
 * programs never read; bfctl lsm show tests the paths against the filter
 */
struct pf_listed {
	__u64 dev, ino;		/* 0, 0: did not exist at attach */
	char path[PF_PATH_MAX + 8];	/* NUL terminated */
};

/* one ring buffer record */
struct pf_event {
	__u64 time_ns;		/* CLOCK_BOOTTIME (bpf_ktime_get_boot_ns) */
	__u64 dev, ino;		/* the file (struct pf_ino) */
	__u32 pid, tgid;
	__u32 uid, gid;
	__u32 hook;		/* PF_HOOK_* */
	__u32 denied;		/* 0: audit mode, or the filter says no */
	__u32 why;		/* PF_WHY_* */
	__u32 pad;
	char comm[16];
	char path[PF_PATH_MAX + 8];	/* NUL terminated */
};

#define PF_ROTL(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))

#define PF_SIPROUND(v0, v1, v2, v3)					\
	do {								\
		v0 += v1; v1 = PF_ROTL(v1, 13); v1 ^= v0;		\
		v0 = PF_ROTL(v0, 32);					\
		v2 += v3; v3 = PF_ROTL(v3, 16); v3 ^= v2;		\
		v0 += v3; v3 = PF_ROTL(v3, 21); v3 ^= v0;		\
		v2 += v1; v1 = PF_ROTL(v1, 17); v1 ^= v2;		\
		v2 = PF_ROTL(v2, 32);					\
	} while (0)

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pf_siphash128 loads message words in host order: little endian only"
#endif

/*
 * SipHash-2-4 with 128-bit output (Aumasson and Bernstein, "SipHash: a
 * fast short-input PRF", and its 128-bit variant), written from the spec
 * so that the BPF program and its loader compute the same function
 * (userspace tests it against libsodium's crypto_shorthash_siphashx24).
 * w: the message, 8-byte aligned, len <= 8 * maxw bytes, with at least
 * (len & ~7) + 8 readable bytes (the last block is one masked load).
 * k0, k1: the key's two little-endian halves.  maxw: a constant, the
 * most words w holds before that last load, which bounds the loop for
 * the verifier (6.1's cannot tell that i < nw is false once i passes
 * nw's bound, and would follow the loop past a short buffer).
 */
static __always_inline struct pf_hash pf_siphash128_w(const __u64 *w,
						      __u32 len, __u64 k0,
						      __u64 k1, __u32 maxw)
{
	__u64 v0 = k0 ^ 0x736f6d6570736575ULL;
	__u64 v1 = k1 ^ 0x646f72616e646f6dULL ^ 0xee;
	__u64 v2 = k0 ^ 0x6c7967656e657261ULL;
	__u64 v3 = k1 ^ 0x7465646279746573ULL;
	__u32 i, nw = len / 8, rem = len % 8;
	struct pf_hash h;
	__u64 m;

	/* a constant bound for the verifier; nw <= maxw */
	for (i = 0; i < maxw; i++) {
		if (i >= nw)
			break;
		m = w[i];
		v3 ^= m;
		PF_SIPROUND(v0, v1, v2, v3);
		PF_SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	if (nw > maxw)
		nw = maxw;
	m = rem ? w[nw] & ((1ULL << (8 * rem)) - 1) : 0;
	m |= (__u64)(len & 0xff) << 56;
	v3 ^= m;
	PF_SIPROUND(v0, v1, v2, v3);
	PF_SIPROUND(v0, v1, v2, v3);
	v0 ^= m;

	v2 ^= 0xee;
	for (i = 0; i < 4; i++)
		PF_SIPROUND(v0, v1, v2, v3);
	h.lo = v0 ^ v1 ^ v2 ^ v3;
	v1 ^= 0xdd;
	for (i = 0; i < 4; i++)
		PF_SIPROUND(v0, v1, v2, v3);
	h.hi = v0 ^ v1 ^ v2 ^ v3;
	return h;
}

/* a message of up to PF_PATH_MAX bytes (PF_BUF_WORDS words) */
static __always_inline struct pf_hash pf_siphash128(const __u64 *w, __u32 len,
						    __u64 k0, __u64 k1)
{
	return pf_siphash128_w(w, len, k0, k1, PF_PATH_MAX / 8);
}

#endif /* _KB_PATH_FILTER_H */
