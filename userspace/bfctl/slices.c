// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl: windows and growing filters (blocked filters held as slices,
 * uapi KB_A_WINDOW_MS, KB_A_GROW): the create options --window DUR
 * [--slices S] and --grow [--max-bytes SIZE], durations as ipset writes
 * its timeouts (500ms, 10s, 10m, 1h, 2d; a plain number is seconds), and
 * what info shows of them.  No kernel access here: restore's create lines
 * and the fuzz target share the parsers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kverbs.h"

/* the kernel's bounds (uapi/kbloom.yaml: window-ms, slices) */
#define SHAPE_WINDOW_MIN_MS	1000	/* window / slices: a rotation a second */
#define SHAPE_WINDOW_MAX_MS	2678400000ULL	/* 31 days */
#define SHAPE_SLICES_MAX	15
#define SHAPE_SLICES_DEF	4

static const struct {
	const char *unit;
	u64 ms;
} dur_units[] = {
	{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	{ "d", 86400000 },
};

int bfctl_parse_duration_ms(const char *s, u64 *ms)
{
	const char *p = s;
	u64 n = 0, mul = 1000;	/* a plain number: seconds, as ipset's */
	size_t i;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++)
		if (__builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, (u64)(*p - '0'), &n))
			return -ERANGE;
	if (*p) {
		for (i = 0; i < ARRAY_SIZE(dur_units); i++)
			if (!strcmp(p, dur_units[i].unit))
				break;
		if (i == ARRAY_SIZE(dur_units))
			return -EINVAL;
		mul = dur_units[i].ms;
	}
	if (__builtin_mul_overflow(n, mul, ms))
		return -ERANGE;
	return 0;
}

const char *bfctl_duration_text(u64 ms, char *buf, size_t len)
{
	size_t i = ARRAY_SIZE(dur_units);

	/* the largest unit that divides it: what the user most likely wrote */
	while (--i && (ms % dur_units[i].ms || !ms))
		;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ms / dur_units[i].ms),
		 dur_units[i].unit);
	return buf;
}

int bfctl_shape_opt(struct bfctl_shape_opts *o, const char *name,
		    const char *val, char *msg, size_t len)
{
	u64 v;
	int ret;

	if (!strcmp(name, "grow")) {
		o->grow = true;
		return 0;
	}
	if (!strcmp(name, "window")) {
		ret = bfctl_parse_duration_ms(val, &o->window_ms);
		if (ret || o->window_ms < SHAPE_WINDOW_MIN_MS ||
		    o->window_ms > SHAPE_WINDOW_MAX_MS) {
			snprintf(msg, len,
				 "bad --window '%s' (a duration of 1s to 31d: 10s, 10m, 1h, 2d)",
				 val);
			return -1;
		}
		return 0;
	}
	if (!strcmp(name, "slices")) {
		if (bfctl_parse_u64(val, &v) || !v || v > SHAPE_SLICES_MAX) {
			snprintf(msg, len,
				 "bad --slices '%s' (1..15 rotations per window)",
				 val);
			return -1;
		}
		o->slices = (u32)v;
		return 0;
	}
	/* max-bytes: a size as --items takes it (64M, 1Gi) */
	ret = bfctl_parse_count(val, &o->max_bytes);
	if (ret || !o->max_bytes) {
		snprintf(msg, len,
			 "bad --max-bytes '%s' (a size: 64M, 1Gi, 1000000)",
			 val);
		return -1;
	}
	return 0;
}

int bfctl_shape_fill(const struct bfctl_kargs *a, struct kb_ioc_create *c)
{
	const struct bfctl_shape_opts *o = &a->sh;

	if (o->window_ms && o->grow)
		return bfctl_usage(a->verb, "%s",
				   "--window and --grow exclude each other (a filter either forgets or grows)");
	if (o->slices && !o->window_ms)
		return bfctl_usage(a->verb, "%s", "--slices needs --window DUR");
	if (o->max_bytes && !o->grow)
		return bfctl_usage(a->verb, "%s", "--max-bytes needs --grow");
	if ((o->window_ms || o->grow) && c->kind != KB_KIND_BLOCKED)
		return bfctl_usage(a->verb, "%s",
				   "windows and growing filters are of kind blocked");
	/* the kernel rotates a window at most once a second */
	if (o->window_ms &&
	    o->window_ms < (u64)(o->slices ? o->slices : SHAPE_SLICES_DEF) *
			   SHAPE_WINDOW_MIN_MS)
		return bfctl_usage(a->verb, "%s",
				   "--window must be at least --slices seconds (a window rotates at most once a second; --slices defaults to 4)");
	c->window_ms = o->window_ms;
	c->slices = o->slices;
	c->max_bytes = o->max_bytes;
	if (o->grow)
		c->flags |= KB_CREATE_F_GROW;
	return BFCTL_OK;
}

bool bfctl_shape_matches(const struct kb_ioc_create *c,
			 const struct kb_ioc_info *info)
{
	u32 s = c->slices ? c->slices : SHAPE_SLICES_DEF;

	if (info->window_ms != c->window_ms ||
	    !!info->grow != !!(c->flags & KB_CREATE_F_GROW))
		return false;
	if (c->window_ms && info->nslices != s + 1)
		return false;
	return !c->max_bytes || c->max_bytes == info->max_bytes;
}

/*
 * The slices of info are what c asks for: the kernel sizes a window's
 * slices for items / S at fpr / (S + 1) (--bits/--hashes: each that size),
 * a growing filter's first (its oldest) for items at fpr / 2
 */
bool bfctl_shape_size_matches(const struct kb_ioc_create *c,
			      const struct kb_ioc_info *info)
{
	u32 s = c->slices ? c->slices : SHAPE_SLICES_DEF;
	const struct kb_ioc_info_slice *sl;

	if (!info->nslice)
		return false;
	if (c->window_ms) {
		sl = &info->slice[0];
		if (c->sizing == KB_SIZING_MK)
			return sl->m == c->m && sl->k == c->k;
		if (c->sizing == KB_SIZING_FPR)
			return sl->items == (c->items + s - 1) / s &&
			       sl->fpr_ppb == (c->fpr_ppb / (s + 1) ?: 1);
		return sl->items == (c->items + s - 1) / s;
	}
	sl = &info->slice[info->nslice - 1];
	return sl->items == c->items && sl->fpr_ppb == (c->fpr_ppb / 2 ?: 1);
}

/* ---- info ---- */

void bfctl_slices_print(const struct kb_ioc_info *i)
{
	char d[32], d2[32];
	u32 n;

	if (i->window_ms) {
		printf("window: %s (%u slices: one retired every %s)\n",
		       bfctl_duration_text(i->window_ms, d, sizeof(d)),
		       i->nslices,
		       bfctl_duration_text(i->window_ms /
					   (i->nslices > 1 ? i->nslices - 1 : 1),
					   d2, sizeof(d2)));
		printf("next rotation in: %llu ms\n",
		       (unsigned long long)i->next_rotation_ms);
	} else if (i->grow) {
		printf("grow: yes (%u slices, at most %llu bytes)\n",
		       i->nslices, (unsigned long long)i->max_bytes);
	} else {
		return;
	}
	for (n = 0; n < i->nslice; n++) {
		const struct kb_ioc_info_slice *s = &i->slice[n];

		printf("slice %u: age %llu ms, bytes %llu, m %llu, k %u, items %llu, fpr %.3g, bits set %llu, est. fpr %.3g\n",
		       n + 1, (unsigned long long)s->age_ms,
		       (unsigned long long)s->bytes, (unsigned long long)s->m,
		       s->k, (unsigned long long)s->items, s->fpr_ppb / 1e9,
		       (unsigned long long)s->bits_set, s->est_fpr_ppb / 1e9);
	}
}

void bfctl_slices_json(const struct kb_ioc_info *i)
{
	u32 n;

	bfctl_json_u64("window_ms", i->window_ms);
	bfctl_json_bool("grow", i->grow);
	bfctl_json_u64("slices", i->nslices);
	if (i->window_ms)
		bfctl_json_u64("next_rotation_ms", i->next_rotation_ms);
	if (i->grow)
		bfctl_json_u64("max_bytes", i->max_bytes);
	if (!i->nslice)
		return;
	bfctl_json_open_arr("slice");
	for (n = 0; n < i->nslice; n++) {
		const struct kb_ioc_info_slice *s = &i->slice[n];

		bfctl_json_open_obj(NULL);
		bfctl_json_u64("age_ms", s->age_ms);
		bfctl_json_u64("bytes", s->bytes);
		bfctl_json_u64("m", s->m);
		bfctl_json_u64("k", s->k);
		bfctl_json_u64("items", s->items);
		bfctl_json_double("fpr", s->fpr_ppb / 1e9);
		bfctl_json_u64("bits_set", s->bits_set);
		bfctl_json_double("est_fpr", s->est_fpr_ppb / 1e9);
		bfctl_json_close_obj();
	}
	bfctl_json_close_arr();
}
