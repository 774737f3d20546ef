// SPDX-License-Identifier: GPL-2.0
/*
 * The path filter's keyed hash (userspace/bpf/path_filter.h), which its
 * BPF program computes over a path and bfctl lsm over the listed paths
 * (with libsodium): the SipHash-2-4-128 reference's known answer, and
 * equality with libsodium's crypto_shorthash_siphashx24 for every length
 * a listed path can have, whatever bytes follow the message in the
 * buffer (the last block is one masked load).
 */
#include <stdlib.h>
#include <string.h>
#include <sodium/crypto_shorthash_siphash24.h>
#include "kselftest_harness.h"
#include "path_filter.h"

static struct pf_hash sodium_hash(const void *m, __u32 len, const __u8 key[16])
{
	unsigned char out[16];
	struct pf_hash h;

	crypto_shorthash_siphashx24(out, m, len, key);
	memcpy(&h.lo, out, 8);
	memcpy(&h.hi, out + 8, 8);
	return h;
}

static void key_halves(const __u8 key[16], __u64 *k0, __u64 *k1)
{
	memcpy(k0, key, 8);
	memcpy(k1, key + 8, 8);
}

/* key 00..0f, empty message: the reference implementation's first vector */
TEST(known_answer)
{
	static const __u8 want[16] = { 0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6,
				     0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02, 0x93 };
	__u64 buf[PF_BUF_WORDS] = { 0 }, k0, k1;
	struct pf_hash h;
	__u8 key[16];

	for (int i = 0; i < 16; i++)
		key[i] = i;
	key_halves(key, &k0, &k1);
	h = pf_siphash128(buf, 0, k0, k1);
	ASSERT_EQ(0, memcmp(&h.lo, want, 8));
	ASSERT_EQ(0, memcmp(&h.hi, want + 8, 8));
}

TEST(equals_libsodium_every_length)
{
	__u64 buf[PF_BUF_WORDS], k0, k1;
	struct pf_hash a, b;
	__u8 key[16];

	srand(1);
	for (__u32 len = 0; len <= PF_PATH_MAX; len++) {
		for (int pass = 0; pass < 2; pass++) {
			/* what follows the message differs between passes */
			memset(buf, pass ? 0xff : 0, sizeof(buf));
			for (__u32 i = 0; i < len; i++)
				((__u8 *)buf)[i] = rand();
			for (int i = 0; i < 16; i++)
				key[i] = rand();
			key_halves(key, &k0, &k1);
			a = pf_siphash128(buf, len, k0, k1);
			b = sodium_hash(buf, len, key);
			ASSERT_EQ(b.lo, a.lo) TH_LOG("len %u", len);
			ASSERT_EQ(b.hi, a.hi) TH_LOG("len %u", len);
		}
	}
}

/* the key matters: one path under two keys hashes differently */
TEST(keyed)
{
	__u64 buf[PF_BUF_WORDS] = { 0 };
	struct pf_hash a, b;

	memcpy(buf, "/usr/bin/true", 13);
	a = pf_siphash128(buf, 13, 1, 2);
	b = pf_siphash128(buf, 13, 1, 3);
	ASSERT_TRUE(a.lo != b.lo || a.hi != b.hi);
}

TEST_HARNESS_MAIN
