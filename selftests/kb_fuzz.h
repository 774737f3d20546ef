/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared state of the kbloom fuzzer: kbloom_fuzz.c (driver, invariant,
 * races, killed children, no privileges), kbloom_fuzz_ioc.c (ioctls),
 * kbloom_fuzz_nl.c (the generic netlink family).
 */
#ifndef _KB_FUZZ_H
#define _KB_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/kbloom.h>

#define FZ_INV		"fz-inv"	/* the invariant filter */
#define FZ_INV_KEYS	256
#define FZ_POOL		10		/* fuzzer names fz0..fz9 */

/* splitmix64: the only source of randomness, so a seed replays a run */
struct fz_rng {
	uint64_t s;
};

static inline uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n), n > 0 (the modulo bias does not matter here) */
static inline uint64_t fz_rnd(struct fz_rng *r, uint64_t n)
{
	return fz_next(r) % n;
}

/* true with probability pct percent */
static inline bool fz_pct(struct fz_rng *r, unsigned int pct)
{
	return fz_rnd(r, 100) < pct;
}

static inline void fz_bytes(struct fz_rng *r, void *p, size_t len)
{
	unsigned char *b = p;

	while (len--)
		*b++ = fz_next(r);
}

struct fz {
	struct fz_rng rng;
	long iter;
	int fails;		/* oracle violations */
	int verbose;
	int unpriv;		/* in the child without CAP_NET_ADMIN */
	int fds[4];		/* /dev/kbloom files */
	/* the invariant's exported image, byte for byte */
	unsigned char *inv_img;
	long inv_img_len;
	unsigned char inv_keys[FZ_INV_KEYS][16];
	struct kb_ioc_info inv_info;	/* its info after setup */
	/* a page followed by an inaccessible one: partially mapped args */
	unsigned char *edge;	/* start of the accessible page */
	long pagesz;
	/* statistics */
	long nl_msgs, nl_acks, nl_dumps, ioc_calls, ioc_ok;
};

extern struct fz fz;

/* kbloom_fuzz_ioc.c */
/* a filter name: pool names mostly, sometimes odd ones; never FZ_INV* */
void fz_name(struct fz_rng *r, char *name, bool may_inv);
/* never let a mutating request name the invariant */
void fz_guard(void *name, size_t len);
/* some size/count value: edge cases mostly */
uint64_t fz_u64(struct fz_rng *r);
/* a random ioctl on fd; fz_fd(): one of the fuzzer's open files */
void fz_ioc_op(struct fz_rng *r, int fd);
int fz_fd(struct fz_rng *r);

/* kbloom_fuzz.c */
void fz_fail(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* kbloom_fuzz_nl.c */
int fz_nl_init(void);
void fz_nl_op(struct fz_rng *r);
void fz_nl_check_inv(void);
void fz_nl_fini(void);
/* the names of all filters (GET dump); returns how many, -1 on error */
int fz_nl_list(char (*names)[KB_NAME_MAX], int max);

#endif /* _KB_FUZZ_H */
