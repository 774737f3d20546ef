/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libkbloom internals: the handle, its mappings and the reader scheme that
 * lets a rebuild replace a mapping under concurrent callers.  Nothing here
 * is exported from libkbloom.so (-fvisibility=hidden, libkbloom.map);
 * the native tests link the objects and use kbl_open_src().
 */
#ifndef _KBL_H
#define _KBL_H

#include <pthread.h>
#include <sys/ioctl.h>
#include "kb_core.h"
#include "kbloom.h"

/* what libkbloom.map exports */
#define KBL_API		__attribute__((visibility("default")))

/* one mapped generation (or an image) */
struct kbl_map {
	const struct kb_map_hdr *hdr;	/* page 0 of the mapping; NULL: image */
	const void *payload;		/* set by the source's map() */
	struct kb_filter f;		/* bound read-only over the payload */
	void *base;			/* the source's: what unmap() releases */
	size_t len;
	void *cookie;
	void *copy;			/* big-endian image: the swapped copy */
	/*
	 * Windows and growing filters (KB_MAP_VERSION_SLICES): f is the
	 * newest slice, older[0..nslices - 1) the others, newest first,
	 * each bound read-only over its own payload with its own m and k;
	 * a key is maybe present if any says so.  nslices 1: no older.
	 */
	u32 nslices;
	struct kb_filter *older;
};

/* unmap m (the source's unmap) and free it */
void kbl_map_free(struct kbloom *h, struct kbl_map *m);

struct kbloom;

/* Where mappings come from: the filter's fd (dev.c), or a test's fake. */
struct kbl_src_ops {
	/* map the current generation: m->hdr, m->payload (and base, len) */
	int (*map)(struct kbloom *h, struct kbl_map *m);
	void (*unmap)(struct kbloom *h, struct kbl_map *m);
	/*
	 * The exception set (kb_map_hdr.exceptions non-zero): keys[0..n)
	 * all tested maybe in the mapping; clear bm's bit of each the kernel
	 * answers absent.  Returns how many stay maybe, or -errno.
	 */
	long (*confirm)(struct kbloom *h, const struct kb_key *keys, u32 n,
			u64 *bm);
	/* KB_IOC_ADD / KB_IOC_TEST_ADD; NULL: read-only source */
	long (*keys)(struct kbloom *h, unsigned long cmd,
		     const struct kb_key *keys, u32 n, u64 *bm);
};

/*
 * Readers announce themselves in a counter of their thread's slot
 * (spread over cache lines, so that threads of different slots do not
 * bounce one line), in the half the epoch's parity names.  A remap
 * publishes the new mapping, then flips the epoch and waits for every
 * counter of the old half to be seen at zero, twice (both halves): a
 * call that loaded the old mapping incremented its counter before that
 * load, hence before the publication, and is waited for whichever half it
 * chose; calls that come later load the new one.
 */
#define KBL_SLOTS	16

struct kbl_slot {
	long n[2];
} __attribute__((aligned(64)));

struct kbloom {
	struct kbl_map *cur;		/* atomic: the mapping calls use */
	unsigned int epoch;		/* atomic: its parity picks n[] */
	int fd;				/* the filter's, or -1 */
	unsigned int flags;		/* KBLOOM_WRITE */
	bool fixed;			/* an image: never remapped, no counts */
	u32 key_type;			/* never changes for a filter */
	const struct kbl_src_ops *ops;
	void *ctx;			/* the source's */
	pthread_mutex_t lock;		/* remaps */
	u64 remaps;			/* under lock; for tests */
	struct kbl_slot slot[KBL_SLOTS];
};

/* a call's hold on h->cur, from kbl_enter() to kbl_exit() */
struct kbl_ref {
	long *n;			/* the counter incremented, or NULL */
};

unsigned int kbl_thread_slot(void);

static inline struct kbl_map *kbl_enter(struct kbloom *h, struct kbl_ref *r)
{
	unsigned int e;

	if (h->fixed) {
		r->n = NULL;
		return h->cur;
	}
	e = __atomic_load_n(&h->epoch, __ATOMIC_RELAXED) & 1;
	r->n = &h->slot[kbl_thread_slot()].n[e];
	/* seq_cst: the increment is ordered before the load of cur */
	__atomic_fetch_add(r->n, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&h->cur, __ATOMIC_SEQ_CST);
}

static inline void kbl_exit(struct kbl_ref *r)
{
	/* release: the call's reads of the mapping come before the unmap */
	if (r->n)
		__atomic_fetch_sub(r->n, 1, __ATOMIC_RELEASE);
}

/*
 * The mapping a call may use, entered: remapped first when the header
 * says the generation was replaced (-ENOENT: destroyed).
 */
int kbl_get(struct kbloom *h, struct kbl_ref *r, struct kbl_map **mp);

/*
 * kbl_get() for the per-call paths: its common case (an image, or a live
 * mapping) inline, so that a call per key costs no call of its own;
 * anything else is left to kbl_get(), which enters again.
 */
static inline int kbl_get_fast(struct kbloom *h, struct kbl_ref *r,
			       struct kbl_map **mp)
{
	struct kbl_map *m = kbl_enter(h, r);

	if (likely(!m->hdr || __atomic_load_n(&m->hdr->state,
					      __ATOMIC_ACQUIRE) == KB_MAP_LIVE)) {
		*mp = m;
		return 0;
	}
	kbl_exit(r);
	return kbl_get(h, r, mp);
}

/*
 * Map the current generation if what h maps now is no longer live (the
 * caller saw seen replaced): 1 if h maps another than seen now, 0 if
 * not, or -errno (-ENOENT: destroyed).  Never call it inside a call's
 * kbl_enter()/kbl_exit(): it waits for every call inside.
 */
int kbl_remap(struct kbloom *h, struct kbl_map *seen);

/* the params of m->hdr bound over m->payload into m->f; -errno */
int kbl_map_bind(struct kbl_map *m, size_t map_len);

/* a new handle over ops/ctx, its first mapping made; -errno */
int kbl_open_src(const struct kbl_src_ops *ops, void *ctx, int fd,
		 unsigned int flags, struct kbloom **out);
/* remaps done so far (tests) */
u64 kbl_remaps(struct kbloom *h);

/* set this thread's message (printf format); returns err */
int kbl_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * KBL_CHUNK keys per lookup batch (a multiple of 64): long enough that
 * the core's pipeline (KB_BATCH_DEPTH keys hashed and prefetched ahead)
 * seldom restarts, short enough for the stack (16 KiB of keys)
 */
#define KBL_CHUNK	1024

#endif /* _KBL_H */
