// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace CRC32C (Castagnoli) for the kbloom core, with the semantics of
 * the kernel's crc32c(): reflected, polynomial 0x82f63b78, no inversion
 * at the start or the end (callers do that).  Uses the SSE4.2 crc32
 * instruction when the CPU has it, else a slicing-by-8 table.
 */
#include <pthread.h>
#include <nmmintrin.h>
#include "kb_platform.h"
#include "kbuser.h"

static u32 crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static int crc_hw;

static void crc_init(void)
{
	u32 i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (0x82f63b78U & (0U - (c & 1)));
		crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc_tab[j][i] = (crc_tab[j - 1][i] >> 8) ^
					crc_tab[0][crc_tab[j - 1][i] & 0xff];
	__builtin_cpu_init();
	crc_hw = __builtin_cpu_supports("sse4.2");
}

u32 kb_crc32c_sw(u32 crc, const void *data, u64 len)
{
	const u8 *p = data;

	pthread_once(&crc_once, crc_init);
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		u64 v;

		memcpy(&v, p, 8);
		v = htole64(v) ^ crc;
		crc = crc_tab[7][v & 0xff] ^ crc_tab[6][(v >> 8) & 0xff] ^
		      crc_tab[5][(v >> 16) & 0xff] ^
		      crc_tab[4][(v >> 24) & 0xff] ^
		      crc_tab[3][(v >> 32) & 0xff] ^
		      crc_tab[2][(v >> 40) & 0xff] ^
		      crc_tab[1][(v >> 48) & 0xff] ^ crc_tab[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

__attribute__((target("sse4.2")))
u32 kb_crc32c_hw(u32 crc, const void *data, u64 len)
{
	const u8 *p = data;
	u64 c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8((u32)c, *p++);
		len--;
	}
	while (len >= 8) {
		u64 v;

		memcpy(&v, p, 8);
		c = _mm_crc32_u64(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = _mm_crc32_u8((u32)c, *p++);
	return (u32)c;
}

int kb_crc32c_hw_available(void)
{
	pthread_once(&crc_once, crc_init);
	return crc_hw;
}

u32 kb_crc32c(u32 crc, const void *data, u64 len)
{
	if (kb_crc32c_hw_available())
		return kb_crc32c_hw(crc, data, len);
	return kb_crc32c_sw(crc, data, len);
}
