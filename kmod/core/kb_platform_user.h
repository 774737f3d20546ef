/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace half of kmod/core/kb_platform.h: types, accessors and hashes
 * with the kernel's names and semantics (libxxhash, libsodium, and the
 * CRC32C of userspace/lib/kb_crc32c.c).  Included only through
 * kb_platform.h, which keeps the kernel half beside it.
 */
#ifndef _KB_PLATFORM_USER_H
#define _KB_PLATFORM_USER_H


#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef int32_t s32;

#ifndef likely
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#endif
#ifndef U64_MAX
#define U64_MAX			((u64)~0ULL)
#define U32_MAX			((u32)~0U)
#endif
#define KB_ALWAYS_INLINE	inline __attribute__((__always_inline__))
#define KB_NOINLINE		__attribute__((__noinline__))
#define KB_UNUSED		__attribute__((__unused__))
/* the kernel's WARN_ONCE(): once per call site, to stderr */
#define KB_WARN_ONCE(c, fmt, ...) ({					\
	static bool __kb_warned;					\
	bool __kb_c = !!(c);						\
									\
	if (__kb_c && !__kb_warned) {					\
		__kb_warned = true;					\
		fprintf(stderr, fmt "\n", ##__VA_ARGS__);		\
	}								\
	__kb_c;								\
})
#define KB_BIG_ENDIAN		(__BYTE_ORDER == __BIG_ENDIAN)
#define kb_swab64(x)		__builtin_bswap64(x)
#define kb_atomic_fetch_or64(p, v)					\
	((u64)__atomic_fetch_or((p), (u64)(v), __ATOMIC_RELAXED))

#define KB_READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define KB_WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define kb_prefetch(p)		__builtin_prefetch((p), 0, 3)
#define kb_prefetchw(p)		__builtin_prefetch((p), 1, 3)
#define kb_popcount64(x)	((unsigned int)__builtin_popcountll(x))
/* the kernel's fls64(): 1 + the index of the highest set bit, 0 for 0 */
#define kb_fls64(x)		((x) ? 64 - __builtin_clzll(x) : 0)

#define kb_cpu_to_le16(x)	((__le16)htole16(x))
#define kb_cpu_to_le32(x)	((__le32)htole32(x))
#define kb_cpu_to_le64(x)	((__le64)htole64(x))
#define kb_le16_to_cpu(x)	le16toh(x)
#define kb_le32_to_cpu(x)	le32toh(x)
#define kb_le64_to_cpu(x)	le64toh(x)

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>
#include <sodium/crypto_shorthash_siphash24.h>

#ifndef fallthrough
#define fallthrough		__attribute__((__fallthrough__))
#endif

static inline u64 kb_xxh64(const void *data, size_t len, u64 seed)
{
	return XXH64(data, len, seed);
}

#ifdef KB_DIV64_CHECK
/*
 * scripts/tests/test-core-div64 compiles the core for i386 with these
 * left undefined: an object that still calls __udivdi3 or __umoddi3 did a
 * 64-bit division a 32-bit kernel could not link.
 */
u64 kb_div64(u64 a, u64 b);
u64 kb_mod64(u64 a, u64 b);
#else
static inline u64 kb_div64(u64 a, u64 b)
{
	return a / b;
}

static inline u64 kb_mod64(u64 a, u64 b)
{
	return a % b;
}
#endif

static inline u64 kb_siphash(const void *data, size_t len, u64 k0, u64 k1)
{
	unsigned char key[16], out[8];
	u64 r;

	k0 = htole64(k0);
	k1 = htole64(k1);
	memcpy(key, &k0, 8);
	memcpy(key + 8, &k1, 8);
	crypto_shorthash_siphash24(out, (const unsigned char *)data, len, key);
	memcpy(&r, out, 8);
	return le64toh(r);
}

/* unaligned little-endian loads; a constant-size memcpy is one load */
static inline __attribute__((__always_inline__)) u64 kb_get_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline __attribute__((__always_inline__)) u32 kb_get_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

/* userspace/lib/kb_crc32c.c: SSE4.2 when the CPU has it, else a table */
u32 kb_crc32c(u32 crc, const void *data, u64 len);


#endif /* _KB_PLATFORM_USER_H */
