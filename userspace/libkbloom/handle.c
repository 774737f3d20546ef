// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom handles: their mappings, the remap that follows a rebuild
 * without unmapping what a concurrent call still reads (kbl.h), close,
 * refresh, info and the per-thread error message.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kbl.h"

static __thread char kbl_msg[256];
static __thread unsigned int kbl_tslot = ~0U;
static unsigned int kbl_next_slot;

unsigned int kbl_thread_slot(void)
{
	if (unlikely(kbl_tslot == ~0U))
		kbl_tslot = __atomic_fetch_add(&kbl_next_slot, 1,
					       __ATOMIC_RELAXED) % KBL_SLOTS;
	return kbl_tslot;
}

int kbl_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kbl_msg, sizeof(kbl_msg), fmt, ap);
	va_end(ap);
	return err;
}

KBL_API const char *kbloom_errmsg(void)
{
	return kbl_msg;
}

/*
 * The older slices of a sliced mapping (m->f, the newest, bound already
 * from the header): each from its slice table entry, with the header's
 * kind, hash, key type, seed and prefix lengths (p) and its own m, k,
 * items and FPR, over its payload inside the header's payload span.
 * The table's offsets count from the start of the mapping, which is
 * where m->payload lies payload_offset bytes into.
 */
static int kbl_map_bind_slices(struct kbl_map *m, const struct kb_params *p0)
{
	const struct kb_map_hdr *h = m->hdr;
	const struct kb_map_slice *t;
	const u8 *start = (const u8 *)m->payload - h->payload_offset;
	u64 lo = h->payload_offset, hi = lo + h->payload_bytes;
	struct kb_params p;
	u32 i;
	int ret;

	t = (const struct kb_map_slice *)((const u8 *)h + h->slices_offset);
	m->older = calloc(h->nslices - 1, sizeof(*m->older));
	if (!m->older)
		return kbl_err(-ENOMEM, "out of memory");
	for (i = 1; i < h->nslices; i++) {
		if (t[i].offset < lo || t[i].offset > hi ||
		    t[i].bytes > hi - t[i].offset)
			return kbl_err(-EPROTO, "slice %u lies outside the mapping's payload",
				       i + 1);
		p = *p0;
		p.m = t[i].m;
		p.k = t[i].k;
		p.items = t[i].items;
		p.fpr_ppb = t[i].fpr_ppb;
		ret = kb_filter_attach_ro(&m->older[i - 1], &p,
					  start + t[i].offset, t[i].bytes);
		if (ret)
			return kbl_err(ret, "slice %u's parameters are invalid (m=%llu k=%u)",
				       i + 1, (unsigned long long)p.m, p.k);
	}
	m->nslices = h->nslices;
	return 0;
}

/* the header's version and slice table: 0 or -EPROTO */
static int kbl_map_check(const struct kb_map_hdr *h)
{
	u64 end;

	if (h->magic != KB_MAP_MAGIC || h->size < KB_MAP_HDR_SIZE_VER0 ||
	    (h->version != KB_MAP_VERSION &&
	     h->version != KB_MAP_VERSION_SLICES))
		return kbl_err(-EPROTO, "not a kbloom mapping (magic %#x version %u)",
			       h->magic, h->version);
	if (h->version == KB_MAP_VERSION)
		return 0;
	end = (u64)h->slices_offset +
	      (u64)h->nslices * sizeof(struct kb_map_slice);
	if (h->nslices < 2 || h->nslices > KB_SLICES_MAX ||
	    h->slices_offset < KB_MAP_HDR_SIZE_VER0 || h->slices_offset % 8 ||
	    end > h->payload_offset || end > 4096)
		return kbl_err(-EPROTO, "bad slice table (%u slices at %u)",
			       h->nslices, h->slices_offset);
	return 0;
}

int kbl_map_bind(struct kbl_map *m, size_t map_len)
{
	const struct kb_map_hdr *h = m->hdr;
	const void *payload;
	struct kb_params p;
	u64 bytes;
	int ret;

	ret = kbl_map_check(h);
	if (ret)
		return ret;
	if (h->payload_offset < KB_MAP_HDR_SIZE_VER0 ||
	    h->payload_offset > map_len ||
	    h->payload_bytes > map_len - h->payload_offset)
		return kbl_err(-EPROTO, "mapping of %zu bytes too short for its payload",
			       map_len);
	memset(&p, 0, sizeof(p));
	p.kind = h->kind;
	p.hash = h->hash;
	p.key_type = h->key_type;
	p.k = h->k;
	p.m = h->m;
	p.items = h->items;
	p.fpr_ppb = h->fpr_ppb;
	p.seed[0] = h->seed[0];
	p.seed[1] = h->seed[1];
	p.plen4 = __atomic_load_n(&h->plen4, __ATOMIC_RELAXED);
	p.plen6[0] = __atomic_load_n(&h->plen6[0], __ATOMIC_RELAXED);
	p.plen6[1] = __atomic_load_n(&h->plen6[1], __ATOMIC_RELAXED);
	p.plen6[2] = __atomic_load_n(&h->plen6[2], __ATOMIC_RELAXED);
	payload = m->payload;
	bytes = h->payload_bytes;
	if (h->version == KB_MAP_VERSION_SLICES) {
		/* the header's payload spans all: the newest is entry 0 */
		const struct kb_map_slice *t0 = (const void *)((const u8 *)h +
							      h->slices_offset);

		if (t0->m != h->m || t0->k != h->k ||
		    t0->offset < h->payload_offset ||
		    t0->offset - h->payload_offset > h->payload_bytes ||
		    t0->bytes > h->payload_bytes -
				(t0->offset - h->payload_offset))
			return kbl_err(-EPROTO, "the mapping's newest slice is not the header's");
		payload = (const u8 *)m->payload +
			  (t0->offset - h->payload_offset);
		bytes = t0->bytes;
	}
	ret = kb_filter_attach_ro(&m->f, &p, payload, bytes);
	if (ret)
		return kbl_err(ret, "the mapping's filter parameters are invalid (%s %s m=%llu k=%u)",
			       kb_kind_name(p.kind), kb_key_type_name(p.key_type),
			       (unsigned long long)p.m, p.k);
	m->nslices = 1;
	if (h->version == KB_MAP_VERSION_SLICES)
		return kbl_map_bind_slices(m, &p);
	return 0;
}

void kbl_map_free(struct kbloom *h, struct kbl_map *m)
{
	h->ops->unmap(h, m);
	free(m->older);
	free(m);
}

/* a new mapping from h's source, bound; -errno */
static int kbl_map_new(struct kbloom *h, struct kbl_map **out)
{
	struct kbl_map *m = calloc(1, sizeof(*m));
	int ret;

	if (!m)
		return kbl_err(-ENOMEM, "out of memory");
	ret = h->ops->map(h, m);
	/* an image's map() binds m->f itself: it has no header */
	if (!ret && m->hdr) {
		ret = kbl_map_bind(m, m->len);
		if (ret) {
			kbl_map_free(h, m);
			return ret;
		}
	}
	if (ret) {
		free(m);
		return ret;
	}
	if (!m->nslices)
		m->nslices = 1;
	*out = m;
	return 0;
}

int kbl_open_src(const struct kbl_src_ops *ops, void *ctx, int fd,
		 unsigned int flags, struct kbloom **out)
{
	struct kbloom *h;
	int ret;

	if (posix_memalign((void **)&h, 64, sizeof(*h)))
		return kbl_err(-ENOMEM, "out of memory");
	memset(h, 0, sizeof(*h));
	h->ops = ops;
	h->ctx = ctx;
	h->fd = fd;
	h->flags = flags;
	ret = pthread_mutex_init(&h->lock, NULL);
	if (ret) {
		free(h);
		return kbl_err(-ret, "pthread_mutex_init: %s", strerror(ret));
	}
	ret = kbl_map_new(h, &h->cur);
	if (ret) {
		pthread_mutex_destroy(&h->lock);
		free(h);
		return ret;
	}
	h->key_type = h->cur->f.p.key_type;
	h->fixed = !h->cur->hdr;
	*out = h;
	return 0;
}

/* wait until every counter of half e has been seen at zero */
static void kbl_drain(struct kbloom *h, unsigned int e)
{
	unsigned int i, spins;

	for (i = 0; i < KBL_SLOTS; i++)
		for (spins = 0;
		     __atomic_load_n(&h->slot[i].n[e], __ATOMIC_ACQUIRE);
		     spins++) {
			if (spins < 64) {
				sched_yield();
			} else {
				struct timespec ts = { 0, 50000 };

				nanosleep(&ts, NULL);
			}
		}
}

/* after publishing a new h->cur: no call is inside the old one anymore */
static void kbl_synchronize(struct kbloom *h)
{
	int round;

	for (round = 0; round < 2; round++) {
		unsigned int e = __atomic_load_n(&h->epoch, __ATOMIC_RELAXED);

		__atomic_store_n(&h->epoch, e + 1, __ATOMIC_SEQ_CST);
		kbl_drain(h, e & 1);
	}
}

int kbl_remap(struct kbloom *h, struct kbl_map *seen)
{
	struct kbl_map *m, *old;
	u32 st;
	int ret;

	pthread_mutex_lock(&h->lock);
	/*
	 * Judged by the state of what is mapped now, not by comparing it
	 * with seen: another call may have remapped since this one looked,
	 * and its new mapping may even sit at seen's freed address.
	 */
	old = __atomic_load_n(&h->cur, __ATOMIC_RELAXED);
	st = __atomic_load_n(&old->hdr->state, __ATOMIC_ACQUIRE);
	if (st == KB_MAP_LIVE || st == KB_MAP_DESTROYED) {
		pthread_mutex_unlock(&h->lock);
		if (st == KB_MAP_DESTROYED)
			return kbl_err(-ENOENT, "the filter was destroyed");
		return old != seen;
	}
	ret = kbl_map_new(h, &m);
	if (ret) {
		pthread_mutex_unlock(&h->lock);
		return ret;
	}
	if (m->f.p.key_type != h->key_type) {
		/* the kernel refuses that; a fake source could do it */
		kbl_map_free(h, m);
		pthread_mutex_unlock(&h->lock);
		return kbl_err(-EPROTO, "the filter's key type changed");
	}
	__atomic_store_n(&h->cur, m, __ATOMIC_SEQ_CST);
	kbl_synchronize(h);
	kbl_map_free(h, old);
	h->remaps++;
	pthread_mutex_unlock(&h->lock);
	return 1;
}

int kbl_get(struct kbloom *h, struct kbl_ref *r, struct kbl_map **mp)
{
	struct kbl_map *m;
	unsigned int tries;
	u32 st;
	int ret;

	for (tries = 0; ; tries++) {
		m = kbl_enter(h, r);
		if (!m->hdr)
			break;
		/* the one load of the header's state per call */
		st = __atomic_load_n(&m->hdr->state, __ATOMIC_ACQUIRE);
		if (likely(st == KB_MAP_LIVE))
			break;
		kbl_exit(r);
		if (st == KB_MAP_DESTROYED)
			return kbl_err(-ENOENT, "the filter was destroyed");
		if (st != KB_MAP_REPLACED)
			return kbl_err(-EPROTO, "unknown mapping state %u", st);
		if (tries >= 64)
			return kbl_err(-EAGAIN, "the filter keeps being replaced");
		ret = kbl_remap(h, m);
		if (ret < 0)
			return ret;
	}
	*mp = m;
	return 0;
}

u64 kbl_remaps(struct kbloom *h)
{
	u64 n;

	pthread_mutex_lock(&h->lock);
	n = h->remaps;
	pthread_mutex_unlock(&h->lock);
	return n;
}

KBL_API void kbloom_close(struct kbloom *h)
{
	if (!h)
		return;
	kbl_map_free(h, h->cur);
	if (h->fd >= 0)
		close(h->fd);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

KBL_API int kbloom_fd(const struct kbloom *h)
{
	return h ? h->fd : -1;
}

KBL_API int kbloom_refresh(struct kbloom *h)
{
	struct kbl_map *m;
	struct kbl_ref r;
	u32 st;

	if (!h)
		return kbl_err(-EINVAL, "no handle");
	m = kbl_enter(h, &r);
	st = m->hdr ? __atomic_load_n(&m->hdr->state, __ATOMIC_ACQUIRE) :
		      KB_MAP_LIVE;
	kbl_exit(&r);
	if (st == KB_MAP_LIVE)
		return 0;
	if (st == KB_MAP_DESTROYED)
		return kbl_err(-ENOENT, "the filter was destroyed");
	if (st != KB_MAP_REPLACED)
		return kbl_err(-EPROTO, "unknown mapping state %u", st);
	return kbl_remap(h, m);
}

KBL_API int kbloom_info(struct kbloom *h, struct kbloom_info *info)
{
	struct kbl_map *m;
	struct kbl_ref r;
	int ret;

	if (!h || !info)
		return kbl_err(-EINVAL, "no handle or no info");
	ret = kbl_get(h, &r, &m);
	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	info->kind = m->f.p.kind;
	info->key_type = m->f.p.key_type;
	info->hash = m->f.p.hash;
	info->k = m->f.p.k;
	info->m = m->f.p.m;
	info->items = m->f.p.items;
	/* a sliced filter's: all its slices' */
	info->payload_bytes = m->hdr ? m->hdr->payload_bytes : m->f.bytes;
	info->fpr_ppb = m->f.p.fpr_ppb;
	if (m->hdr) {
		info->generation = m->hdr->generation;
		info->id = m->hdr->id;
		info->prefixes = m->hdr->prefixes;
	} else {
		info->prefixes = kb_params_nplens(&m->f.p);
	}
	info->flags = h->flags & KBLOOM_WRITE;
	kbl_exit(&r);
	return 0;
}
