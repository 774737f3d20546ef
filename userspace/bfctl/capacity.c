// SPDX-License-Identifier: GPL-2.0
/*
 * What keeps a live blocklist from silently turning into "block
 * everything" or "block nothing": a Bloom filter filled far past the
 * capacity it was sized for answers "maybe present" for almost any key, so
 * a DROP rule on it drops almost all traffic; a rebuild from an empty or
 * truncated key file empties it.  add (and restore's add lines) refuse to
 * take a filter past BFCTL_CAP_HARD_X times its capacity, and rebuild
 * refuses to drop more than BFCTL_REBUILD_MAX_DROP_PCT percent of its
 * keys, unless --force; an add that leaves a filter over capacity warns.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kverbs.h"

/* the model false positive rate of m bits (counters), k probes, n keys */
static double model_fpr(u64 m, u32 k, u64 n)
{
	if (!m || !k)
		return 1;
	return pow(1 - exp(-(double)k * (double)n / (double)m), k);
}

void bfctl_held_from_params(struct kb_ioc_info *i, const struct kb_params *p,
			    u64 count)
{
	memset(i, 0, sizeof(*i));
	i->items = p->items;
	i->fpr_ppb = p->fpr_ppb;
	i->m = p->m;
	i->k = p->k;
	i->count = count;
}

int bfctl_cap_check(const struct kb_ioc_info *i, u64 more, bool force,
		    const char *what)
{
	u64 limit = i->items * BFCTL_CAP_HARD_X;

	/*
	 * sized by --bits/--hashes (no capacity), a growing filter (its
	 * capacity grows with its keys, up to --max-bytes), or within the
	 * limit
	 */
	if (force || !i->items || i->grow || i->count + more <= limit ||
	    i->items > U64_MAX / BFCTL_CAP_HARD_X)
		return BFCTL_OK;
	return bfctl_fail(BFCTL_ERR, what,
			  "refused: adding %llu keys would give the filter %llu, over %u times its capacity of %llu (false positive rate about %.2g, configured %.2g); rebuild it with a larger --items, or --force to add anyway",
			  (unsigned long long)more,
			  (unsigned long long)(i->count + more),
			  BFCTL_CAP_HARD_X, (unsigned long long)i->items,
			  model_fpr(i->m, i->k, i->count + more),
			  i->fpr_ppb / 1e9);
}

void bfctl_cap_warn(struct kbconn *conn, const char *name)
{
	struct kb_ioc_info i;
	char est[24] = "all", per[64] = "";

	if (bfctl_quiet || kbconn_info(conn, name, &i) || !i.over_capacity)
		return;
	if (i.est_items != U64_MAX)
		snprintf(est, sizeof(est), "%llu",
			 (unsigned long long)i.est_items);
	/* a new prefix length alone can take a net filter past its FPR */
	if (kb_key_type_is_net(i.key_type))
		snprintf(per, sizeof(per), " per lookup of %u prefix lengths",
			 i.prefixes);
	fprintf(stderr,
		"bfctl: warning: %s is over capacity: %llu keys added, about %s held, for a capacity of %llu; estimated false positive rate %.2g%s (configured %.2g)\n",
		name, (unsigned long long)i.count, est,
		(unsigned long long)i.items, i.est_fpr_ppb / 1e9, per,
		i.fpr_ppb / 1e9);
}

int bfctl_rebuild_check(const struct kb_ioc_info *live, u64 total, bool force,
			const char *what)
{
	u64 drop;

	if (force || total >= live->count)
		return BFCTL_OK;
	drop = live->count - total;
	/* (doubles: a threshold needs no exactness, and cannot overflow) */
	if ((double)drop * 100 <=
	    (double)live->count * BFCTL_REBUILD_MAX_DROP_PCT)
		return BFCTL_OK;
	return bfctl_fail(BFCTL_ERR, what,
			  "refused: the file has %llu keys and the filter holds %llu: the rebuild would drop %llu of them (%.0f%%; more than %u%% is refused); the filter is unchanged; --force to rebuild anyway",
			  (unsigned long long)total,
			  (unsigned long long)live->count,
			  (unsigned long long)drop,
			  100.0 * (double)drop / (double)live->count,
			  BFCTL_REBUILD_MAX_DROP_PCT);
}

/* ---- sizes in the user's terms ---- */

const char *bfctl_human_bytes(char *buf, size_t len, double bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB",
					    "EiB", "ZiB", "YiB" };
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%.0f bytes", bytes);
		return buf;
	}
	while (bytes >= 1024 && u < (int)ARRAY_SIZE(unit) - 1) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", bytes, unit[u]);
	return buf;
}

u64 bfctl_module_param(const char *name, u64 def)
{
	unsigned long long v = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/kbloom/parameters/%s", name);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : def;
}

u64 bfctl_phys_mem(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (u64)pages * (u64)size : U64_MAX;
}

double bfctl_payload_need(const struct kb_ioc_create *c)
{
	struct kb_params p;
	double bits;
	int ret;

	ret = bfctl_create_params(c, &p, 0);
	if (!ret)
		return (double)kb_params_payload_bytes(&p);
	if (ret != -E2BIG)
		return 0;
	/* past what the core sizes at all (KB_M_MAX): the formulas */
	switch (c->sizing) {
	case KB_SIZING_FPR:
		bits = (double)c->items * -log(c->fpr_ppb / 1e9) /
		       (M_LN2 * M_LN2);
		break;
	case KB_SIZING_BPK:
		bits = (double)c->items * c->bits_per_key;
		break;
	default:
		bits = (double)c->m;
	}
	return c->kind == KB_KIND_COUNTING ? bits / 2 : bits / 8;
}

int bfctl_size_refuse(const struct kb_ioc_create *c, u64 max,
		      const char *limit, int code, const char *what)
{
	double need = bfctl_payload_need(c);
	char n[32], m[32];

	if (need <= (double)max)
		return BFCTL_OK;
	return bfctl_fail(code, what,
			  "refused: the filter needs %s (%.0f bytes), over %s of %s",
			  bfctl_human_bytes(n, sizeof(n), need), need, limit,
			  bfctl_human_bytes(m, sizeof(m), (double)max));
}

/* ---- the saturation guard ---- */

int bfctl_parse_max_fpr(const char *s, u32 *ppb)
{
	char *end;
	double v;

	if (!bfctl_parse_fpr(s, ppb))
		return 0;
	/* 1 (100%): a limit nothing is over, where --fpr stops below it */
	v = strtod(s, &end);
	if (end != s && ((*end == '%' && !end[1] && v == 100) ||
			 (!*end && v == 1))) {
		*ppb = 1000000000U;
		return 0;
	}
	return -EINVAL;
}

u32 bfctl_guard_limit(const struct kb_params *p, u32 max_ppb, bool force)
{
	if (force)
		return 0;
	return max_ppb ? max_ppb : kb_guard_default_ppb(p);
}

u32 bfctl_guard_image_limit(const void *img, u64 len, u32 max_ppb,
			    bool force)
{
	struct kb_params p;
	u64 plen;

	if (kb_image_parse_header(img, len, len, 0, &p, &plen, NULL, NULL))
		return 0;
	return bfctl_guard_limit(&p, max_ppb, force);
}

int bfctl_guard_image(const void *img, u64 len, u32 limit,
		      struct kb_stats *st)
{
	struct kb_params p;
	struct kb_filter f;
	const void *payload;
	u64 plen;

	if (kb_image_parse(img, len, 0, &p, &payload, &plen, NULL, NULL) ||
	    kb_filter_attach(&f, &p, (void *)payload, plen))
		return -EINVAL;
	return kb_filter_guard(&f, limit, st);
}

/* a share in percent, short: "97%", "0.5%", "100%" */
static void pct(char *buf, size_t len, double share)
{
	double v = share * 100;

	snprintf(buf, len, v >= 10 ? "%.0f%%" : "%.2g%%", v);
}

void bfctl_guard_why(const struct kb_stats *st, u32 limit, char *buf,
		     size_t len)
{
	char fill[16], fpr[16], lim[16];

	pct(fill, sizeof(fill), st->fill_ppm / 1e6);
	pct(fpr, sizeof(fpr), st->est_fpr_ppb / 1e9);
	pct(lim, sizeof(lim), limit / 1e9);
	snprintf(buf, len, "saturated, fill %s, est. FPR %s (limit %s; --max-fpr P or --force to load it anyway)",
		 fill, fpr, lim);
}

int bfctl_guard_bits(const struct kb_params *p, u64 bits_set, u32 limit,
		     struct kb_stats *st)
{
	/* the core's estimate from fill counters: (bits_set / m)^k */
	struct kb_fill fill = { .bits_set = bits_set };
	struct kb_filter f = {
		.p = *p,
		.ops = kb_kind_ops_get(p->kind),
		.bytes = kb_params_payload_bytes(p),
		.fill = &fill,
	};

	if (p->kind != KB_KIND_CLASSIC && p->kind != KB_KIND_GOZERO)
		return -EINVAL;
	return kb_filter_guard(&f, limit, st);
}
