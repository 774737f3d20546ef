/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path filter's content mode (BPF LSM): what its programs
 * (content_filter.bpf.c) and their loader (bfctl lsm attach --content,
 * userspace/bfctl/lsm_content.c) share: the layout of its maps.
 */
#ifndef _KB_CONTENT_FILTER_H
#define _KB_CONTENT_FILTER_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define CF_DIGEST_LEN	32	/* SHA-256 */
#define CF_NAME_MAX	32	/* KB_NAME_MAX */
/* inodes found listed at a sleepable check, for file_mprotect */
#define CF_SEEN_MAX	16384

/* the hooks (rodata hooks) */
#define CF_HOOK_EXEC	(1u << 0)	/* bprm_check_security, mmap_file,
					 * file_mprotect
					 */
#define CF_HOOK_OPEN	(1u << 1)	/* file_post_open (6.9) */

/* counters: the per-CPU array "stats", one slot each */
enum cf_stat {
	CF_STAT_CHECKED,	/* files hashed (IMA answered SHA-256) */
	CF_STAT_MAYBE,		/* the Bloom filter answered maybe present */
	CF_STAT_FALSE_POS,	/* ...and the exact set said no: allowed */
	CF_STAT_HIT,		/* listed content: denied, or audited */
	CF_STAT_FOREIGN,	/* another netns: decided by the exact set */
	CF_STAT_NO_FILTER,	/* the filter errored (destroyed): exact set */
	CF_STAT_NO_HASH,	/* IMA gave no SHA-256 (O_DIRECT...): denied */
	CF_STAT_MPROTECT,	/* file_mprotect hits by the seen set */
	CF_STAT_NR,
};

/* a key of the exact set: the SHA-256 of a listed file's contents */
struct cf_digest {
	__u8 b[CF_DIGEST_LEN];
};

/*
 * a key of the seen set: a file whose contents a sleepable check found
 * listed, as path_filter.h's struct pf_ino names it (s_dev, i_ino,
 * i_generation): file_mprotect cannot hash (it is not sleepable)
 */
struct cf_ino {
	__u64 dev, ino;
	__u32 gen;
	__u32 pad;		/* 0 */
};

#endif /* _KB_CONTENT_FILTER_H */
