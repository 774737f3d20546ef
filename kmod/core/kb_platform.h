/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom core: platform layer.  The only file of the core that knows whether
 * it is compiled into the kernel module or into userspace (libkbcore.a).
 *
 * Provides: u8/u16/u32/u64/s64/bool, errno values, likely/unlikely,
 * KB_READ_ONCE/KB_WRITE_ONCE (single-copy atomic word accesses), prefetch,
 * popcount, kb_fls64 (as fls64()), little-endian conversions and unaligned
 * loads (kb_get_le64/32),
 * memcpy/memset/memcmp, KB_NOINLINE, and the hashes:
 *   kb_xxh64(data, len, seed)            kernel xxh64() / libxxhash XXH64()
 *   kb_siphash(data, len, k0, k1)        kernel siphash() / libsodium
 *                                        crypto_shorthash_siphash24()
 *   kb_crc32c(crc, data, len)            kernel crc32c() / userspace shim;
 *                                        raw update, no pre/post inversion
 * and kb_cond_resched(): a voluntary preemption point for the core's loops
 * over a whole payload (kernel cond_resched(); nothing in userspace).
 * Callers of those loops must be allowed to sleep.
 *
 * kb_atomic_fetch_or64(p, v): *p |= v as one atomic read-modify-write,
 * returning the old value (relaxed: readers need no order, only whole
 * words), so that writers on several CPUs at once never lose each
 * other's bits (blocked filters: the packet path's adds, kmod/learn.c).
 */
#ifndef _KB_PLATFORM_H
#define _KB_PLATFORM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/compiler.h>
#include <linux/bug.h>
#include <linux/string.h>
#include <linux/bitops.h>
#include <linux/prefetch.h>
#include <linux/xxhash.h>
#include <linux/siphash.h>
#include <linux/crc32c.h>
#include <linux/sched.h>
#include <linux/math64.h>
#include <linux/atomic.h>
#include <asm/byteorder.h>

#define KB_READ_ONCE(x)		READ_ONCE(x)
#define KB_WRITE_ONCE(x, v)	WRITE_ONCE(x, v)
#define kb_prefetch(p)		prefetch(p)
#define kb_prefetchw(p)		prefetchw(p)
#define kb_popcount64(x)	hweight64(x)
#define kb_fls64(x)		fls64(x)
#define KB_ALWAYS_INLINE	__always_inline
#define KB_NOINLINE		noinline
#define KB_WARN_ONCE(c, ...)	WARN_ONCE(c, __VA_ARGS__)
#define KB_UNUSED		__maybe_unused
#define kb_cond_resched()	cond_resched()
#define kb_swab64(x)		swab64(x)
#define kb_atomic_fetch_or64(p, v)					\
	((u64)atomic64_fetch_or_relaxed((s64)(v), (atomic64_t *)(p)))
#ifdef __BIG_ENDIAN
#define KB_BIG_ENDIAN		1
#else
#define KB_BIG_ENDIAN		0
#endif

#define kb_cpu_to_le16(x)	cpu_to_le16(x)
#define kb_cpu_to_le32(x)	cpu_to_le32(x)
#define kb_cpu_to_le64(x)	cpu_to_le64(x)
#define kb_le16_to_cpu(x)	le16_to_cpu(x)
#define kb_le32_to_cpu(x)	le32_to_cpu(x)
#define kb_le64_to_cpu(x)	le64_to_cpu(x)

static inline u64 kb_xxh64(const void *data, size_t len, u64 seed)
{
	return xxh64(data, len, seed);
}

/* unaligned little-endian loads; a constant-size memcpy is one load */
static __always_inline u64 kb_get_le64(const void *p)
{
	__le64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

static __always_inline u32 kb_get_le32(const void *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static inline u64 kb_siphash(const void *data, size_t len, u64 k0, u64 k1)
{
	siphash_key_t key = { .key = { k0, k1 } };

	return siphash(data, len, &key);
}

/*
 * a / b and a % b for 64-bit a, b: a plain '/' or '%' of a u64 by anything
 * but a power of two compiles to a libgcc call (__udivdi3, __umoddi3) on
 * 32-bit x86, which the kernel does not link.  Every 64-bit division of
 * the core goes through these (scripts/tests/test-core-div64 checks it).
 */
static inline u64 kb_div64(u64 a, u64 b)
{
	return div64_u64(a, b);
}

static inline u64 kb_mod64(u64 a, u64 b)
{
	u64 r;

	div64_u64_rem(a, b, &r);
	return r;
}

static inline u32 kb_crc32c(u32 crc, const void *data, u64 len)
{
	const u8 *p = data;

	while (len) {
		unsigned int chunk = len > (1U << 30) ? (1U << 30) : (unsigned int)len;

		crc = crc32c(crc, p, chunk);
		p += chunk;
		len -= chunk;
	}
	return crc;
}

#else /* userspace */

/* kb_platform_user.h, beside this file: the same names for userspace */
#include "kb_platform_user.h"

#define kb_cond_resched()	do { } while (0)

#endif /* __KERNEL__ */

#endif /* _KB_PLATFORM_H */
