// SPDX-License-Identifier: GPL-2.0
/*
 * The saturation guard's estimator (kb_filter_guard, kb_guard_default_ppb):
 * for every kind, a filter filled to its capacity passes the default
 * limit, an all-ones payload (what `SETRANGE key 0 <0xff...>` makes of a
 * Redis value) is refused with -EDOM and an estimated FPR of 1, a limit of
 * 0 refuses nothing, and the O(1) estimate from the fill tracker (the
 * kernel's, at upload and commit) equals the payload scan's (bfctl's).
 */
#include "kselftest_harness.h"
#include "kbtest.h"

static const u32 all_kinds[] = { KB_KIND_BLOCKED, KB_KIND_CLASSIC,
				 KB_KIND_COUNTING, KB_KIND_GOZERO };
#define NKINDS	((int)(sizeof(all_kinds) / sizeof(all_kinds[0])))

/* a filter for n items at 1% */
static void *mk(struct kb_filter *f, u32 kind, u64 n)
{
	struct kb_params p;

	kb_params_init(&p, kind);
	if (kb_params_from_fpr(&p, n, 10000000, 0))
		return NULL;
	return kbut_filter(f, &p);
}

/* every bit (counter) set: classic keeps its k byte, gozero no bit past m */
static void saturate(struct kb_filter *f)
{
	u8 *b = f->payload;

	memset(b, 0xff, f->bytes);
	if (f->p.kind == KB_KIND_CLASSIC)
		b[f->bytes - 1] = (u8)f->p.k;
	if (f->p.kind == KB_KIND_GOZERO && f->p.m % 8)
		b[f->bytes - 1] = (u8)(0xff00 >> (f->p.m % 8));
}

TEST(default_limit)
{
	struct kb_params p;

	kb_params_init(&p, KB_KIND_BLOCKED);
	p.fpr_ppb = 0;
	ASSERT_EQ(KB_GUARD_FPR_PPB, kb_guard_default_ppb(&p));
	ASSERT_EQ(10000000U, kb_guard_default_ppb(&p));	/* 1% */
	p.fpr_ppb = 1000000;				/* 0.1% */
	ASSERT_EQ(10000000U, kb_guard_default_ppb(&p));
	p.fpr_ppb = 10000000;				/* 1% */
	ASSERT_EQ(100000000U, kb_guard_default_ppb(&p));
	p.fpr_ppb = 500000000;				/* capped at 1 */
	ASSERT_EQ(1000000000U, kb_guard_default_ppb(&p));
}

TEST(full_to_capacity_passes_saturated_refused)
{
	for (int ki = 0; ki < NKINDS; ki++) {
		struct kb_filter f;
		struct kb_stats st;
		u64 n = 5000;
		struct kb_key *keys = kbut_keys(n, 12, 77 + ki);
		void *pl = mk(&f, all_kinds[ki], n);
		u32 lim;

		ASSERT_NE(NULL, pl);
		lim = kb_guard_default_ppb(&f.p);
		ASSERT_EQ(100000000U, lim);
		/* empty */
		ASSERT_EQ(0, kb_filter_guard(&f, lim, &st));
		ASSERT_EQ(0, st.est_fpr_ppb);
		/* filled to its capacity: about its configured FPR */
		kbut_add_all(&f, keys, n);
		ASSERT_EQ(0, kb_filter_guard(&f, lim, &st));
		ASSERT_LT(st.est_fpr_ppb, 20000000U);
		ASSERT_GT(st.est_fpr_ppb, 2000000U);
		/* a tight limit refuses it, and says so the same way */
		ASSERT_EQ(-EDOM, kb_filter_guard(&f, 1000, &st));
		/* all ones: refused, FPR 1, every bit set */
		saturate(&f);
		ASSERT_EQ(-EDOM, kb_filter_guard(&f, lim, &st));
		ASSERT_EQ(1000000000U, st.est_fpr_ppb);
		ASSERT_EQ(1000000U, st.fill_ppm);
		ASSERT_EQ(1, st.over_capacity);
		/* a limit of 1 or none (0, --force) takes anything */
		ASSERT_EQ(0, kb_filter_guard(&f, 1000000000U, &st));
		ASSERT_EQ(0, kb_filter_guard(&f, 0, &st));
		kbut_keys_free(keys);
		free(pl);
	}
}

/* the kernel's path (fill tracker, no scan) answers as bfctl's (scan) */
TEST(fill_tracker_equals_scan)
{
	for (int ki = 0; ki < NKINDS; ki++) {
		struct kb_filter f, g;
		struct kb_stats a, b;
		u64 n = 3000, fb;
		struct kb_key *keys = kbut_keys(n, 10, 5 + ki);
		void *pl = mk(&f, all_kinds[ki], n / 3);
		struct kb_fill *fill;
		int ra, rb;

		ASSERT_NE(NULL, pl);
		fb = kb_fill_bytes(&f.p);
		fill = aligned_alloc(8, (fb + 7) & ~7ULL);
		ASSERT_NE(NULL, fill);
		for (int round = 0; round < 3; round++) {
			if (round == 1)
				kbut_add_all(&f, keys, n);	/* 3x capacity */
			if (round == 2)
				saturate(&f);
			/* an upload: attach, then count into the tracker */
			ASSERT_EQ(0, kb_filter_attach(&g, &f.p, f.payload,
						      f.bytes));
			ra = kb_filter_guard(&g, kb_guard_default_ppb(&g.p), &a);
			kb_fill_init(fill, &g);
			rb = kb_filter_guard(&g, kb_guard_default_ppb(&g.p), &b);
			ASSERT_EQ(ra, rb);
			ASSERT_EQ(a.est_fpr_ppb, b.est_fpr_ppb);
			ASSERT_EQ(a.fill_ppm, b.fill_ppm);
			ASSERT_EQ(round ? -EDOM : 0, ra);
		}
		free(fill);
		kbut_keys_free(keys);
		free(pl);
	}
}

/*
 * A net filter sized per probe (as before per-lookup sizing, or with too
 * low a --prefixes) holding 25 prefix lengths, filled to its capacity:
 * per lookup it is about 25 times its configured FPR, which the default
 * limit (10 times) would refuse.  The limit scales with what its lengths
 * make it expect, so it restores as saved; all ones is still refused.
 */
TEST(net_sized_for_fewer_lengths)
{
	const u64 n = 20000;
	struct kb_params p;
	struct kb_filter f;
	struct kb_stats st;
	struct kb_key *keys = calloc(n, sizeof(*keys));
	u8 (*kb)[5] = calloc(n, 5);
	u64 x = 0x6e657432ULL, i;
	void *pl;

	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, kb);
	kb_params_init(&p, KB_KIND_BLOCKED);
	p.key_type = KB_KEY_NET4;
	p.seed[0] = 0x5eed;
	ASSERT_EQ(0, kb_params_from_fpr(&p, n, 1000000, 0));	/* 0.1% */
	pl = kbut_filter(&f, &p);
	ASSERT_NE(NULL, pl);
	for (i = 0; i < n; i++) {
		u32 plen = 8 + (u32)(i % 25), a = (u32)kbut_splitmix(&x);

		a &= plen == 32 ? ~0U : ~(~0U >> plen);
		kb[i][0] = a >> 24;
		kb[i][1] = a >> 16;
		kb[i][2] = a >> 8;
		kb[i][3] = a;
		kb[i][4] = plen;
		keys[i] = (struct kb_key){ kb[i], 5 };
		ASSERT_EQ(0, kb_params_note_prefix(&f.p, kb[i], 5));
	}
	kbut_add_all(&f, keys, n);
	ASSERT_EQ(0, kb_filter_guard(&f, kb_guard_default_ppb(&f.p), &st));
	ASSERT_EQ(25, st.nplens);
	/* what the old limit compared: over 10 times the configured FPR */
	ASSERT_GT(st.est_fpr_ppb, kb_guard_default_ppb(&f.p));
	ASSERT_EQ(1, st.over_capacity);	/* and says so */
	saturate(&f);
	ASSERT_EQ(-EDOM, kb_filter_guard(&f, kb_guard_default_ppb(&f.p), &st));
	free(pl);
	free(keys);
	free(kb);
}

TEST_HARNESS_MAIN
