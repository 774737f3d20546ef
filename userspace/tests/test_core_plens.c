// SPDX-License-Identifier: GPL-2.0
/*
 * The FPR of a net filter's lookup, not of one probe: a lookup of an
 * address tests one key per prefix length the filter holds and answers
 * "maybe" if one does, so a filter of L lengths each sized for P answers
 * "maybe" for about L P of the addresses it does not hold.  Sizing for L
 * lengths (kb_params_from_fpr_plens()), the per-lookup estimates in the
 * statistics, the batch lookup (one per address) and a measurement.
 */
#include <math.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "kbtest.h"

static struct kb_params P(u32 kind)
{
	struct kb_params p;

	kb_params_init(&p, kind);
	return p;
}

static double q62(u64 v)
{
	return ldexp((double)v, -62);
}

TEST(sizing_for_l_lengths)
{
	static const u32 kinds[] = { KB_KIND_BLOCKED, KB_KIND_CLASSIC,
				     KB_KIND_COUNTING, KB_KIND_GOZERO };
	static const u32 ls[] = { 1, 2, 3, 25, 129 };
	const u32 fpr = 10000000;	/* 1% per lookup */
	const u64 n = 20000;

	for (size_t i = 0; i < 4; i++) {
		u64 prev_m = 0;

		for (size_t j = 0; j < 5; j++) {
			struct kb_params p = P(kinds[i]), q = P(kinds[i]);
			double probe, lookup;

			ASSERT_EQ(0, kb_params_from_fpr_plens(&p, n, fpr,
							      ls[j], 0));
			/* what was asked for is kept: per lookup */
			ASSERT_EQ(fpr, p.fpr_ppb);
			ASSERT_EQ(n, p.items);
			/* each probe sized for P / L */
			ASSERT_EQ(0, kb_params_from_fpr(&q, n, fpr / ls[j], 0));
			ASSERT_EQ(q.m, p.m);
			ASSERT_EQ(q.k, p.k);
			ASSERT_GT(p.m, prev_m) TH_LOG("kind %u L %u", kinds[i],
						      ls[j]);
			prev_m = p.m;
			/* the model's lookup of L probes at capacity meets P
			 * (classic: Guava's m, truncated, within 1%)
			 */
			probe = q62(kb_model_fpr_q62(p.kind, p.m, p.k, n));
			lookup = 1 - pow(1 - probe, ls[j]);
			ASSERT_LE(lookup, 0.0101)
				TH_LOG("kind %u L %u: %g", kinds[i], ls[j],
				       lookup);
		}
	}
}

TEST(sizing_l_errors)
{
	struct kb_params p = P(KB_KIND_BLOCKED), q = P(KB_KIND_BLOCKED);

	ASSERT_EQ(-EINVAL, kb_params_from_fpr_plens(&p, 100, 1000000, 0, 0));
	ASSERT_EQ(-EINVAL, kb_params_from_fpr_plens(&p, 100, 1000000, 130, 0));
	ASSERT_EQ(0, p.m);
	/* P / L under 1 ppb: 1 ppb per probe, not 0 (an error) */
	ASSERT_EQ(0, kb_params_from_fpr_plens(&p, 100, 5, 10, 0));
	ASSERT_EQ(0, kb_params_from_fpr(&q, 100, 1, 0));
	ASSERT_EQ(q.m, p.m);
	ASSERT_EQ(5, p.fpr_ppb);
}

TEST(lookup_of_l_probes)
{
	static const double ps[] = { 0, 1e-9, 1e-4, 0.01, 0.3, 1 };
	static const u32 ls[] = { 0, 1, 2, 3, 33, 129 };

	for (size_t i = 0; i < 6; i++)
		for (size_t j = 0; j < 6; j++) {
			u64 q = (u64)ldexp(ps[i], 62);
			double want = ls[j] <= 1 ? ps[i] :
				      1 - pow(1 - ps[i], ls[j]);
			double got = q62(kb_fpr_lookup_q62(q, ls[j]));

			ASSERT_LE(fabs(got - want), 1e-9 + want * 1e-6)
				TH_LOG("p %g L %u: %g want %g", ps[i], ls[j],
				       got, want);
		}
}

/* the number of lengths a lookup tests: the most of either family */
TEST(nplens)
{
	struct kb_params p = P(KB_KIND_BLOCKED);

	ASSERT_EQ(1, kb_params_nplens(&p));	/* bytes */
	p.key_type = KB_KEY_NET;
	ASSERT_EQ(0, kb_params_nplens(&p));
	p.plen4 = (1ULL << 32) | (1ULL << 24);
	ASSERT_EQ(2, kb_params_nplens(&p));
	p.plen6[0] = 1ULL << 48;
	p.plen6[2] = 1;				/* /128 */
	ASSERT_EQ(2, kb_params_nplens(&p));
	p.plen6[1] = 1;				/* /64 */
	ASSERT_EQ(3, kb_params_nplens(&p));
	p.key_type = KB_KEY_NET4;
	p.plen6[0] = p.plen6[1] = p.plen6[2] = 0;
	p.plen4 = (2ULL << 32) - (1ULL << 8);	/* /8../32 */
	ASSERT_EQ(25, kb_params_nplens(&p));
}

/* ---- a measured net4 filter of three prefix lengths ---- */

#define NET_N16		100		/* /16s: they cover 0.15% of IPv4 */
#define NET_N24		10000
#define NET_N32		19900
#define NET_N		(NET_N16 + NET_N24 + NET_N32)
#define NET_QUERIES	200000

struct netset {
	u8 keys[NET_N][5];
	struct kb_key kk[NET_N];
	u32 a16[NET_N16], a24[NET_N24], a32[NET_N32];
};

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static bool has(const u32 *v, size_t n, u32 x)
{
	return bsearch(&x, v, n, sizeof(x), cmp_u32) != NULL;
}

static void net_key(u8 *k, u32 a, u32 plen)
{
	k[0] = a >> 24;
	k[1] = a >> 16;
	k[2] = a >> 8;
	k[3] = a;
	k[4] = plen;
}

/* deterministic prefixes: splitmix from a fixed seed */
static void netset_make(struct netset *s)
{
	u64 x = 0x6e657434ULL;
	u32 i, j = 0;

	for (i = 0; i < NET_N16; i++)
		s->a16[i] = (u32)kbut_splitmix(&x) & 0xffff0000U;
	for (i = 0; i < NET_N24; i++)
		s->a24[i] = (u32)kbut_splitmix(&x) & 0xffffff00U;
	for (i = 0; i < NET_N32; i++)
		s->a32[i] = (u32)kbut_splitmix(&x);
	for (i = 0; i < NET_N16; i++)
		net_key(s->keys[j++], s->a16[i], 16);
	for (i = 0; i < NET_N24; i++)
		net_key(s->keys[j++], s->a24[i], 24);
	for (i = 0; i < NET_N32; i++)
		net_key(s->keys[j++], s->a32[i], 32);
	for (i = 0; i < NET_N; i++)
		s->kk[i] = (struct kb_key){ s->keys[i], 5 };
	qsort(s->a16, NET_N16, sizeof(u32), cmp_u32);
	qsort(s->a24, NET_N24, sizeof(u32), cmp_u32);
	qsort(s->a32, NET_N32, sizeof(u32), cmp_u32);
}

/*
 * A filter sized with nplens of NET_N keys, all added; the share of
 * NET_QUERIES addresses none of the prefixes covers that look up "maybe"
 * (one lookup each, kb_filter_lookup_many()), and its statistics
 */
static double net_measure(struct netset *s, u32 nplens, struct kb_stats *st)
{
	struct kb_params p = P(KB_KIND_BLOCKED);
	u8 q[4096][5];
	struct kb_key qk[4096];
	struct kb_filter f;
	u64 x = 0x71756572ULL, fp = 0, neg = 0, bm[64];
	u32 i, c = 0, hits;
	void *pl;

	p.key_type = KB_KEY_NET4;
	p.seed[0] = 0x5eed;
	if (kb_params_from_fpr_plens(&p, NET_N, 10000000, nplens, 0))
		return -1;
	pl = kbut_filter(&f, &p);
	if (!pl)
		return -1;
	for (i = 0; i < NET_N; i++)
		kb_params_note_prefix(&f.p, s->keys[i], 5);
	kbut_add_all(&f, s->kk, NET_N);
	kb_filter_stats(&f, st);
	for (i = 0; i < NET_QUERIES; i++) {
		u32 a = (u32)kbut_splitmix(&x);

		if (has(s->a16, NET_N16, a & 0xffff0000U) ||
		    has(s->a24, NET_N24, a & 0xffffff00U) ||
		    has(s->a32, NET_N32, a))
			continue;
		net_key(q[c], a, 32);
		qk[c] = (struct kb_key){ q[c], 5 };
		if (++c == 4096 || i == NET_QUERIES - 1) {
			hits = kb_filter_lookup_many(&f, qk, c, bm);
			fp += hits;
			neg += c;
			c = 0;
		}
	}
	if (c) {
		fp += kb_filter_lookup_many(&f, qk, c, bm);
		neg += c;
	}
	free(pl);
	return (double)fp / (double)neg;
}

TEST(net_lookup_fpr_measured)
{
	struct netset *s = malloc(sizeof(*s));
	struct kb_stats st1, st3;
	double per1, per3;

	ASSERT_NE(NULL, s);
	netset_make(s);
	/* sized per probe (what --fpr did): three probes, about 3 P */
	per1 = net_measure(s, 1, &st1);
	/* sized per lookup of the three lengths held */
	per3 = net_measure(s, 3, &st3);
	free(s);
	TH_LOG("per-probe sizing %.4f%%, per-lookup %.4f%%, est %u / %u ppb",
	       per1 * 100, per3 * 100, st1.est_fpr_ppb, st3.est_fpr_ppb);
	ASSERT_EQ(3, st3.nplens);
	/* 1%: 200000 queries measure it to about 0.02% (one sigma) */
	ASSERT_GT(per1, 0.02);
	ASSERT_LE(per3, 0.01);
	ASSERT_GT(per3, 0.005);
	/* the statistics estimate a lookup, not a probe: within 10% */
	ASSERT_LE(fabs(st3.est_fpr_ppb / 1e9 - per3), per3 / 10);
	ASSERT_LE(fabs(st1.est_fpr_ppb / 1e9 - per1), per1 / 10);
	/* and over the FPR asked for, per-probe sizing is over capacity */
	ASSERT_EQ(1, st1.over_capacity);
	ASSERT_EQ(0, st3.over_capacity);
	ASSERT_LE(st3.expected_fpr_ppb, 10000000);
}

/* a lookup of a host key walks the lengths held; a prefix is itself */
TEST(lookup_many_host_and_prefix)
{
	struct kb_params p = P(KB_KIND_BLOCKED);
	u8 k24[5], h[5], k16[5], h2[5];
	struct kb_key q[4] = {
		{ h, 5 }, { k16, 5 }, { k24, 5 }, { h2, 5 } };
	struct kb_filter f;
	u64 bm[1];
	void *pl;

	p.key_type = KB_KEY_NET4;
	ASSERT_EQ(0, kb_params_from_fpr(&p, 1000, 1000000, 0));
	pl = kbut_filter(&f, &p);
	ASSERT_NE(NULL, pl);
	net_key(k24, 0x0a010200, 24);		/* 10.1.2.0/24 */
	net_key(h, 0x0a010203, 32);		/* 10.1.2.3 */
	net_key(k16, 0x0a010000, 16);		/* 10.1.0.0/16 */
	net_key(h2, 0x0b000001, 32);		/* 11.0.0.1 */
	ASSERT_EQ(0, kb_params_note_prefix(&f.p, k24, 5));
	kb_filter_add(&f, k24, 5);
	ASSERT_EQ(2, kb_filter_lookup_many(&f, q, 4, bm));
	/* the host in the /24: maybe; the /16 itself: absent; the /24 */
	ASSERT_EQ(0x5, bm[0]);
	free(pl);
}

TEST_HARNESS_MAIN
