// SPDX-License-Identifier: GPL-2.0
/*
 * The classic kind is byte-identical to LevelDB's BuiltinBloomFilter2:
 * compare libleveldb's NewBloomFilterPolicy(b)->CreateFilter() bytes with
 * our filters for random binary key sets (several bits_per_key, n from 0
 * to 10k), and KeyMayMatch() answers with ours.  libleveldb is C++ and the
 * kselftest harness is C, so libleveldb is reached through ldb_shim.cc.
 */
#include <stdio.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "ldb_shim.h"

struct keyset {
	const void **ptr;
	size_t *len;
	struct kb_key *kk;
	u8 *buf;
	size_t n;
};

/* n random keys of random length 0..39 */
static void mk_keys(struct keyset *ks, size_t n, u64 *seed)
{
	size_t i, off = 0;

	ks->n = n;
	ks->ptr = calloc(n + 1, sizeof(*ks->ptr));
	ks->len = calloc(n + 1, sizeof(*ks->len));
	ks->kk = calloc(n + 1, sizeof(*ks->kk));
	ks->buf = malloc(n * 40 + 1);
	for (i = 0; i < n; i++) {
		size_t l = kbut_splitmix(seed) % 40, j;

		for (j = 0; j < l; j++)
			ks->buf[off + j] = (u8)kbut_splitmix(seed);
		ks->ptr[i] = ks->buf + off;
		ks->len[i] = l;
		ks->kk[i].data = ks->buf + off;
		ks->kk[i].len = (u32)l;
		off += l;
	}
}

static void free_keys(struct keyset *ks)
{
	free(ks->ptr);
	free(ks->len);
	free(ks->kk);
	free(ks->buf);
}

static const int bpks[] = { 1, 2, 5, 8, 10, 16, 20, 23, 29, 44, 45, 50, 100 };
static const size_t ns[] = { 0, 1, 2, 3, 7, 50, 100, 1000, 2500, 10000 };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

TEST(create_filter_bytes_identical)
{
	u64 seed = 1;
	size_t bi, ni, cases = 0;

	for (bi = 0; bi < NELEM(bpks); bi++) {
		struct ldb_policy *pol = ldb_policy_new(bpks[bi]);

		for (ni = 0; ni < NELEM(ns); ni++) {
			struct keyset ks;
			struct kb_params p;
			struct kb_filter f;
			size_t tlen, half = ns[ni] / 2, i;
			void *theirs, *pl;

			mk_keys(&ks, ns[ni], &seed);
			theirs = ldb_create_filter(pol, ks.ptr, ks.len, ks.n, &tlen);
			kb_params_init(&p, KB_KIND_CLASSIC);
			ASSERT_EQ(0, kb_params_from_bpk(&p, ks.n, bpks[bi], 0));
			pl = kbut_filter(&f, &p);
			ASSERT_NE(NULL, pl);
			/* half one at a time, half batched */
			for (i = 0; i < half; i++)
				kb_filter_add(&f, ks.kk[i].data, ks.kk[i].len);
			kb_filter_add_many(&f, ks.kk + half, (u32)(ks.n - half));
			ASSERT_EQ(tlen, f.bytes)
				TH_LOG("bpk %d n %zu", bpks[bi], ns[ni]);
			ASSERT_EQ(0, memcmp(theirs, pl, tlen))
				TH_LOG("bytes differ: bpk %d n %zu", bpks[bi], ns[ni]);
			free(theirs);
			free(pl);
			free_keys(&ks);
			cases++;
		}
		ldb_policy_free(pol);
	}
	ASSERT_EQ(NELEM(bpks) * NELEM(ns), cases);
}

TEST(key_may_match_identical)
{
	static const int tb[] = { 4, 10, 16 };
	static const size_t tn[] = { 0, 10, 1000, 10000 };
	u64 seed = 2;
	size_t bi, ni, i;

	for (bi = 0; bi < NELEM(tb); bi++) {
		struct ldb_policy *pol = ldb_policy_new(tb[bi]);

		for (ni = 0; ni < NELEM(tn); ni++) {
			struct keyset ks, other;
			struct kb_params p;
			struct kb_filter f;
			enum kb_img_err why;
			size_t flen, mism = 0, pos = 0;
			void *filt, *pl;

			mk_keys(&ks, tn[ni], &seed);
			mk_keys(&other, 20000, &seed);
			filt = ldb_create_filter(pol, ks.ptr, ks.len, ks.n, &flen);
			ASSERT_EQ(0, kb_leveldb_import(&p, filt, flen, 0, &why));
			pl = kbu_alloc_payload(flen);
			memcpy(pl, filt, flen);
			ASSERT_EQ(0, kb_filter_attach(&f, &p, pl, flen));
			for (i = 0; i < ks.n + other.n; i++) {
				struct keyset *s = i < ks.n ? &ks : &other;
				size_t j = i < ks.n ? i : i - ks.n;
				bool a = ldb_key_may_match(pol, s->ptr[j], s->len[j],
							   filt, flen);
				bool b = kb_filter_test(&f, s->ptr[j], (u32)s->len[j]);
				bool c = kb_leveldb_key_may_match(filt, flen, s->ptr[j],
								  s->len[j]);

				mism += (a != b) + (a != c);
				pos += a;
			}
			ASSERT_EQ(0, mism) TH_LOG("bpk %d n %zu", tb[bi], tn[ni]);
			ASSERT_GE(pos, ks.n);
			free(filt);
			free(pl);
			free_keys(&ks);
			free_keys(&other);
		}
		ldb_policy_free(pol);
	}
}

/* LevelDB's special cases: len < 2 no match, k > 30 may match */
TEST(key_may_match_edge_filters)
{
	static const int kbs[] = { 0, 1, 5, 30, 31, 127, 128, 200, 255 };
	const char *keys[] = { "", "a", "hello", "0123456789abcdef0123" };
	struct ldb_policy *pol = ldb_policy_new(10);
	size_t len, ki, j;

	for (len = 0; len < 6; len++) {
		for (ki = 0; ki < NELEM(kbs); ki++) {
			u8 filt[8] = { 0 };

			if (len)
				filt[len - 1] = (u8)kbs[ki];
			if (len > 2)
				filt[0] = 0x5a;
			for (j = 0; j < NELEM(keys); j++) {
				bool a = ldb_key_may_match(pol, keys[j], strlen(keys[j]),
							   filt, len);
				bool b = kb_leveldb_key_may_match(filt, len, keys[j],
								  strlen(keys[j]));

				ASSERT_EQ(a, b) TH_LOG("len %zu k %d", len, kbs[ki]);
			}
		}
	}
	ldb_policy_free(pol);
}

TEST(policy_name)
{
	struct ldb_policy *pol = ldb_policy_new(10);

	ASSERT_STREQ("leveldb.BuiltinBloomFilter2", ldb_policy_name(pol));
	ldb_policy_free(pol);
}

TEST_HARNESS_MAIN
