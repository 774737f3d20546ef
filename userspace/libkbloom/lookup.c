// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom tests and adds.  Tests run the core's lookup on the mapping,
 * as the kernel's KB_IOC_TEST does on its generation
 * (kb_filter_lookup_many(): in a net filter a host key is looked up at
 * every prefix length held, read from the header on each call), and ask
 * the kernel only to confirm a "maybe" while the filter has exceptions.
 * Adds go to the kernel through the filter's fd.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include "kbl.h"

/*
 * The filter a call tests: the mapping's, with, for the net key types,
 * the prefix lengths the header holds now (adds of new lengths change
 * them while the generation is live).
 */
static inline const struct kb_filter *kbl_filter(const struct kbl_map *m,
						 struct kb_filter *tmp)
{
	const struct kb_map_hdr *h = m->hdr;

	if (!h || !kb_key_type_is_net(m->f.p.key_type))
		return &m->f;
	*tmp = m->f;
	tmp->p.plen4 = __atomic_load_n(&h->plen4, __ATOMIC_RELAXED);
	tmp->p.plen6[0] = __atomic_load_n(&h->plen6[0], __ATOMIC_RELAXED);
	tmp->p.plen6[1] = __atomic_load_n(&h->plen6[1], __ATOMIC_RELAXED);
	tmp->p.plen6[2] = __atomic_load_n(&h->plen6[2], __ATOMIC_RELAXED);
	return tmp;
}

/*
 * Windows and growing filters: the older slices of m (the newest is
 * m->f), each tested with its own m and k by the core and the header's
 * prefix lengths, as the kernel ORs them.  Out of line: a filter of one
 * slice pays one compare for them.
 */
static const struct kb_filter *kbl_older(const struct kbl_map *m, u32 i,
					 struct kb_filter *tmp)
{
	const struct kb_map_hdr *h = m->hdr;

	if (!kb_key_type_is_net(m->f.p.key_type))
		return &m->older[i];
	/* the net types: the prefix lengths the header holds now */
	*tmp = m->older[i];
	tmp->p.plen4 = __atomic_load_n(&h->plen4, __ATOMIC_RELAXED);
	tmp->p.plen6[0] = __atomic_load_n(&h->plen6[0], __ATOMIC_RELAXED);
	tmp->p.plen6[1] = __atomic_load_n(&h->plen6[1], __ATOMIC_RELAXED);
	tmp->p.plen6[2] = __atomic_load_n(&h->plen6[2], __ATOMIC_RELAXED);
	return tmp;
}

/* one key absent from the newest slice: maybe in an older one? */
static __attribute__((noinline)) int kbl_test_older(const struct kbl_map *m,
						    const struct kb_key *k)
{
	const struct kb_filter *f;
	struct kb_filter tmp;
	u64 bm = 0;
	u32 i;

	for (i = 0; i + 1 < m->nslices; i++) {
		f = kbl_older(m, i, &tmp);
		if (kb_key_type_is_net(f->p.key_type) ?
		    kb_filter_lookup_many(f, k, 1, &bm) :
		    kb_filter_test(f, k->data, k->len))
			return 1;
	}
	return 0;
}

/* keys[0..c) of a chunk, out its newest slice's answers: OR the older */
static __attribute__((noinline)) long kbl_many_older(const struct kbl_map *m,
						     const struct kb_key *k,
						     u32 c, u64 *out)
{
	u64 bm[KBL_CHUNK / 64];
	const struct kb_filter *f;
	struct kb_filter tmp;
	u32 i, w, words = (c + 63) / 64;
	long hits = 0;

	for (i = 0; i + 1 < m->nslices; i++) {
		f = kbl_older(m, i, &tmp);
		kb_filter_lookup_many(f, k, c, bm);
		for (w = 0; w < words; w++)
			out[w] |= bm[w];
	}
	if (c % 64)
		out[words - 1] &= (1ULL << (c % 64)) - 1;
	for (w = 0; w < words; w++)
		hits += __builtin_popcountll(out[w]);
	return hits;
}

/* maybes of keys[0..n) in bm confirmed against the exceptions, if any */
static long kbl_except(struct kbloom *h, const struct kbl_map *m,
		       const struct kb_key *keys, u32 n, u64 *bm, u32 hits)
{
	if (!hits || !m->hdr ||
	    !__atomic_load_n(&m->hdr->exceptions, __ATOMIC_RELAXED))
		return hits;
	return h->ops->confirm(h, keys, n, bm);
}

/* inline: every key of a batch passes here before any is tested */
static KB_ALWAYS_INLINE bool kbl_key_ok(u32 key_type, const void *data,
					size_t len)
{
	return (data || !len) && len <= KB_KEY_MAX_LEN + 1 &&
	       !kb_key_validate(key_type, data, (u32)len);
}

static __attribute__((noinline, cold)) int kbl_key_bad(u32 key_type,
							size_t len, size_t i)
{
	return kbl_err(-EINVAL, "key %zu: malformed for key type %s (%zu bytes)",
		       i, kb_key_type_name(key_type), len);
}

static int kbl_check_key(u32 key_type, const void *data, size_t len,
			 size_t i)
{
	return kbl_key_ok(key_type, data, len) ? 0 : kbl_key_bad(key_type, len, i);
}

/* one valid key */
static int kbl_test1(struct kbloom *h, const void *key, u32 len)
{
	struct kb_key k = { key, len };
	const struct kb_filter *f;
	struct kb_filter tmp;
	struct kbl_map *m;
	struct kbl_ref r;
	u64 bm = 0;
	long ret;

	ret = kbl_get_fast(h, &r, &m);
	if (ret)
		return (int)ret;
	f = kbl_filter(m, &tmp);
	if (kb_key_type_is_net(f->p.key_type))
		ret = kb_filter_lookup_many(f, &k, 1, &bm);
	else
		ret = kb_filter_test(f, key, len);
	if (!ret && unlikely(m->nslices > 1))
		ret = kbl_test_older(m, &k);
	if (ret) {
		bm = 1;
		ret = kbl_except(h, m, &k, 1, &bm, 1);
	}
	kbl_exit(&r);
	return (int)ret;
}

KBL_API int kbloom_test(struct kbloom *h, const void *key, size_t len)
{
	int ret;

	if (!h)
		return kbl_err(-EINVAL, "no handle");
	ret = kbl_check_key(h->key_type, key, len, 0);
	if (ret)
		return ret;
	return kbl_test1(h, key, (u32)len);
}

/*
 * As the kernel looks up a packet's address (kb_filter_test_addr() in
 * kmod/lookup.h): the raw address for the ip, bytes and str types; for
 * the net types the host key, which the core looks up at every prefix
 * length held; a family the key type cannot hold is absent.
 */
KBL_API int kbloom_test_addr(struct kbloom *h, int family, const void *addr)
{
	u32 alen, t;
	u8 key[17];

	if (!h || !addr)
		return kbl_err(-EINVAL, "no handle or no address");
	if (family != AF_INET && family != AF_INET6)
		return kbl_err(-EAFNOSUPPORT, "family %d is neither AF_INET nor AF_INET6",
			       family);
	alen = family == AF_INET ? 4 : 16;
	t = h->key_type;
	if (((t == KB_KEY_IPV4 || t == KB_KEY_NET4) && alen != 4) ||
	    ((t == KB_KEY_IPV6 || t == KB_KEY_NET6) && alen != 16))
		return 0;
	memcpy(key, addr, alen);
	if (!kb_key_type_is_net(t))
		return kbl_test1(h, key, alen);
	key[alen] = (u8)(alen * 8);
	return kbl_test1(h, key, alen + 1);
}

/* the API's keys [off, off + c), checked already, as the core's */
static void kbl_keys(const struct kbloom_key *keys, size_t off, u32 c,
		     struct kb_key *kk)
{
	u32 i;

	for (i = 0; i < c; i++) {
		kk[i].data = keys[off + i].data;
		kk[i].len = (u32)keys[off + i].len;
	}
}

/*
 * Non-zero if key i is malformed for a key type other than the net
 * types, whose check reads the key's bytes.  Branch-free, so that the
 * pass over a batch is a few compares a key; the same answer as
 * kbl_key_ok() (a key with no data has length 0, which no type allows).
 */
static KB_ALWAYS_INLINE unsigned int kbl_key_bad_flat(u32 key_type,
						      const void *data,
						      size_t len)
{
	unsigned int bad = !data;

	switch (key_type) {
	case KB_KEY_BYTES:
	case KB_KEY_STR:
		return bad | (len - 1 >= KB_KEY_MAX_LEN);
	case KB_KEY_IPV4:
		return bad | (len != 4);
	case KB_KEY_IPV6:
		return bad | (len != 16);
	default:	/* KB_KEY_IP */
		return bad | ((len != 4) & (len != 16));
	}
}

/*
 * One pass over keys[0..n): converts the first c to kk and answers
 * whether any of the n is malformed, with key_type a constant in each
 * caller below, so that the switch above folds away.
 */
static KB_ALWAYS_INLINE unsigned int kbl_scan(u32 key_type,
					      const struct kbloom_key *keys,
					      size_t n, u32 c,
					      struct kb_key *kk)
{
	unsigned int bad = 0;
	size_t i;

	for (i = 0; i < c; i++) {
		kk[i].data = keys[i].data;
		kk[i].len = (u32)keys[i].len;
		bad |= kbl_key_bad_flat(key_type, keys[i].data, keys[i].len);
	}
	for (; i < n; i++)
		bad |= kbl_key_bad_flat(key_type, keys[i].data, keys[i].len);
	return bad;
}

/*
 * Check all n keys, so that a bad one fails the call before any is used,
 * and convert the first chunk's on the way (one pass over most batches;
 * kk NULL: only check): returns that chunk's size, or -EINVAL.
 */
static long kbl_keys_first(u32 key_type, const struct kbloom_key *keys,
			   size_t n, struct kb_key *kk)
{
	u32 c = n < KBL_CHUNK ? (u32)n : KBL_CHUNK;
	u32 conv = kk ? c : 0;
	unsigned int bad;
	size_t i;

	if (n && !keys)
		return kbl_err(-EINVAL, "no keys");
	switch (key_type) {
	case KB_KEY_BYTES:
	case KB_KEY_STR:
		bad = kbl_scan(KB_KEY_BYTES, keys, n, conv, kk);
		break;
	case KB_KEY_IPV4:
		bad = kbl_scan(KB_KEY_IPV4, keys, n, conv, kk);
		break;
	case KB_KEY_IPV6:
		bad = kbl_scan(KB_KEY_IPV6, keys, n, conv, kk);
		break;
	case KB_KEY_IP:
		bad = kbl_scan(KB_KEY_IP, keys, n, conv, kk);
		break;
	default:
		/* the net types read each key's prefix length: one by one */
		kbl_keys(keys, 0, conv, kk);
		bad = 1;
		break;
	}
	if (likely(!bad))
		return c;
	/* which key, for the message (or the net types' check) */
	for (i = 0; i < n; i++)
		if (unlikely(!kbl_key_ok(key_type, keys[i].data, keys[i].len)))
			return kbl_key_bad(key_type, keys[i].len, i);
	return c;
}

/*
 * An array of checked struct kbloom_key is one of struct kb_key where the
 * two lay out alike: the pointers at the same offset, and the size_t
 * length's low 32 bits (all a checked length has) where kb_key.len is
 * (LP64 little-endian, or a 32-bit size_t).  The core reads the caller's
 * array then, with no copy; the library is built -fno-strict-aliasing
 * (as the kernel builds the core), since those reads go through the
 * other type.
 */
#define KBL_KEYS_SHARED							\
	(sizeof(struct kbloom_key) == sizeof(struct kb_key) &&		\
	 offsetof(struct kbloom_key, data) == offsetof(struct kb_key, data) && \
	 offsetof(struct kbloom_key, len) == offsetof(struct kb_key, len) && \
	 (sizeof(size_t) == sizeof(u32) || !KB_BIG_ENDIAN))

KBL_API long kbloom_test_many(struct kbloom *h, const struct kbloom_key *keys,
			      size_t n, uint64_t *bitmap)
{
	struct kb_key kk[KBL_CHUNK];
	const struct kb_key *ck = kk;
	u64 bm[KBL_CHUNK / 64], *out;
	const struct kb_filter *f;
	struct kb_filter tmp;
	struct kbl_map *m;
	struct kbl_ref r;
	long ret, total = 0;
	size_t off;
	u32 c;

	if (!h)
		return kbl_err(-EINVAL, "no handle");
	/* all or nothing: a bad key fails the call before any is tested */
	ret = kbl_keys_first(h->key_type, keys, n,
			     KBL_KEYS_SHARED ? NULL : kk);
	if (ret < 0)
		return ret;
	ret = kbl_get_fast(h, &r, &m);
	if (ret)
		return ret;
	f = kbl_filter(m, &tmp);
	for (off = 0; off < n; off += c) {
		c = n - off < KBL_CHUNK ? (u32)(n - off) : KBL_CHUNK;
		if (KBL_KEYS_SHARED)
			ck = (const struct kb_key *)(const void *)(keys + off);
		else if (off)
			kbl_keys(keys, off, c, kk);
		/*
		 * chunks start on a word (KBL_CHUNK is a multiple of 64):
		 * the core writes the caller's words of this chunk itself
		 */
		out = bitmap ? bitmap + off / 64 : bm;
		ret = kb_filter_lookup_many(f, ck, c, out);
		if (unlikely(m->nslices > 1))
			ret = kbl_many_older(m, ck, c, out);
		ret = kbl_except(h, m, ck, c, out, (u32)ret);
		if (ret < 0)
			break;
		total += ret;
	}
	kbl_exit(&r);
	return ret < 0 ? ret : total;
}

/* KB_IOC_ADD or KB_IOC_TEST_ADD of keys[0..n) through the fd */
static long kbl_write(struct kbloom *h, unsigned long cmd,
		      const struct kbloom_key *keys, size_t n, u64 *bitmap)
{
	struct kb_key kk[KBL_CHUNK];
	u64 bm[KBL_CHUNK / 64];
	long ret, total = 0;
	size_t off;
	u32 c;

	if (!h)
		return kbl_err(-EINVAL, "no handle");
	if (!h->ops->keys)
		return kbl_err(-EROFS, "an image cannot be written");
	if (!(h->flags & KBLOOM_WRITE))
		return kbl_err(-EROFS, "the filter was opened read-only");
	ret = kbl_keys_first(h->key_type, keys, n, kk);
	if (ret < 0)
		return ret;
	for (off = 0; off < n; off += c) {
		c = n - off < KBL_CHUNK ? (u32)(n - off) : KBL_CHUNK;
		if (off)
			kbl_keys(keys, off, c, kk);
		ret = h->ops->keys(h, cmd, kk, c, bm);
		if (ret < 0)
			return ret;
		total += ret;
		if (bitmap)
			memcpy(bitmap + off / 64, bm, (c + 63) / 64 * 8);
	}
	return total;
}

KBL_API int kbloom_add(struct kbloom *h, const void *key, size_t len)
{
	struct kbloom_key k = { key, len };
	long ret = kbl_write(h, KB_IOC_ADD, &k, 1, NULL);

	return ret < 0 ? (int)ret : 0;
}

KBL_API long kbloom_add_many(struct kbloom *h, const struct kbloom_key *keys,
			     size_t n)
{
	/* TEST_ADD: its hits are the new keys */
	return kbl_write(h, KB_IOC_TEST_ADD, keys, n, NULL);
}

KBL_API int kbloom_test_and_add(struct kbloom *h, const void *key, size_t len)
{
	struct kbloom_key k = { key, len };
	u64 bm = 0;
	long ret = kbl_write(h, KB_IOC_TEST_ADD, &k, 1, &bm);

	if (ret < 0)
		return (int)ret;
	/* the kernel's bit says "was new" */
	return !(bm & 1);
}
