// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl save / restore of windows and growing filters (filters held as
 * slices, uapi KB_A_WINDOW_MS, KB_A_GROW).  Such a filter is saved as the
 * create line that makes it again, then one block per slice, newest
 * first, each with its age and the wall-clock time of the save:
 *
 *   create NAME blocked --key-type T --hash H --seed S0,S1 --items N
 *          --fpr P --window 10m --slices 4	(or --grow --max-bytes B)
 *   slice NAME index=1 age-ms=A saved-ms=T kind=... (as a filter line)
 *   <payload lines>
 *   end
 *   slice NAME index=2 ...
 *
 * restore creates the filter in a transaction and uploads each slice
 * (oldest first: a growing filter grows to it) with its age plus the time
 * since the save (saved-ms; a clock that went backwards adds nothing), so
 * that the kernel's catch-up rotation forgets the slices that expired
 * while the host was down, then commits: the filter appears whole or not
 * at all.  A slice block follows its filter's create line, which must ask
 * for a window or growth; -exist replaces a filter of that name as a
 * filter block does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kverbs.h"
#include "savefmt.h"

u64 bfctl_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (u64)ts.tv_sec * 1000 + (u64)ts.tv_nsec / 1000000;
}

u64 bfctl_slice_age(u64 age_ms, u64 saved_ms, u64 now_ms)
{
	u64 since = now_ms > saved_ms ? now_ms - saved_ms : 0;

	return age_ms + since < age_ms ? ~0ULL : age_ms + since;
}

/*
 * The create line.  The kernel reports the items and FPR a window or
 * growing filter sized by them was created with (the whole filter's, not
 * its slices' shares): the line asks for them again.  A window sized
 * otherwise (--bits, --bits-per-key) reports its newest slice's, and is
 * asked for by its slices' m and k.
 */
void bfctl_save_create_line(FILE *f, const struct kb_ioc_info *i)
{
	const struct kb_ioc_info_slice *sl = &i->slice[0];
	u32 s = i->nslices > 1 ? i->nslices - 1 : 1;
	char d[32];

	fprintf(f, "create %s %s --key-type %s --hash %s --seed 0x%llx",
		i->name, kb_kind_name(i->kind), kb_key_type_name(i->key_type),
		kb_hash_name(i->hash), (unsigned long long)i->seed[0]);
	/* xxh64 takes one 64-bit seed, siphash two */
	if (i->hash == KB_HASH_SIPHASH)
		fprintf(f, ",0x%llx", (unsigned long long)i->seed[1]);
	if (i->nslice && i->window_ms && i->items == sl->items &&
	    i->fpr_ppb == sl->fpr_ppb)
		fprintf(f, " --items %llu --bits %llu --hashes %u",
			(unsigned long long)sl->items,
			(unsigned long long)sl->m, sl->k);
	else
		fprintf(f, " --items %llu --fpr %.9f",
			(unsigned long long)i->items, i->fpr_ppb / 1e9);
	if (kb_key_type_is_net(i->key_type) && i->prefixes > 1)
		fprintf(f, " --prefixes %u", i->prefixes);
	/* the packet path's cap, as the kernel holds it (restores it exactly) */
	if (i->max_fpr_ppb)
		fprintf(f, " --max-fpr %.9f", i->max_fpr_ppb / 1e9);
	if (i->window_ms)
		fprintf(f, " --window %s --slices %u\n",
			bfctl_duration_text(i->window_ms, d, sizeof(d)), s);
	else if (i->max_bytes)
		fprintf(f, " --grow --max-bytes %llu\n",
			(unsigned long long)i->max_bytes);
	else
		fprintf(f, " --grow\n");
}

/* ---- restore ---- */

int bfctl_restore_slice_line(struct bfctl_restore *rs, char *s)
{
	struct bfctl_lines *r = &rs->r;
	struct rfilter tmp, *rf;
	struct rslice *nv;
	u32 i, max;
	int ret;

	memset(&tmp, 0, sizeof(tmp));
	tmp.slice_line = true;
	ret = bfctl_save_parse_block(r, s, &tmp, rs->max_bytes,
			  rs->total < rs->max_total ? rs->max_total - rs->total : 0);
	if (ret)
		goto out;
	rf = bfctl_restore_find(rs, tmp.name);
	ret = -EINVAL;
	if (rs->sync) {
		bfctl_lines_fail(r, BFCTL_USAGE,
				 "filter %s: sync takes no slice blocks (windows and growing filters are restored, not synced)",
				 tmp.name);
		goto out;
	}
	if (!rf || (rf->how == RF_IMAGE) || rf->bad ||
	    !(rf->c.window_ms || rf->c.flags & KB_CREATE_F_GROW)) {
		r->line = tmp.line;
		bfctl_lines_fail(r, BFCTL_USAGE,
				 "slice of %s: it needs its create line with --window or --grow above",
				 tmp.name);
		goto out;
	}
	/* a window holds S + 1 slices; a growing filter up to 16 */
	max = rf->c.window_ms ? (rf->c.slices ? rf->c.slices : 4) + 1 :
	      KB_SLICES_MAX;
	for (i = 0; i < rf->nsl; i++)
		if (rf->sl[i].index == tmp.sl1.index)
			break;
	if (tmp.sl1.index > max || i < rf->nsl) {
		r->line = tmp.line;
		bfctl_lines_fail(r, BFCTL_USAGE, i < rf->nsl ?
				 "slice %u of %s: given twice" :
				 "slice %u of %s: the filter has fewer slices",
				 tmp.sl1.index, tmp.name);
		goto out;
	}
	nv = realloc(rf->sl, (rf->nsl + 1) * sizeof(*nv));
	if (!nv) {
		bfctl_lines_fail(r, BFCTL_ERR, "%s", strerror(ENOMEM));
		goto out;
	}
	rf->sl = nv;
	nv[rf->nsl] = tmp.sl1;
	nv[rf->nsl].line = tmp.line;
	nv[rf->nsl].img = tmp.img;
	nv[rf->nsl].img_len = tmp.img_len;
	rf->nsl++;
	rs->total += tmp.img_len;
	/* -exist on a filter of the kernel's: the slices replace it */
	if (rf->how == RF_LIVE)
		rf->how = RF_CREATE;
	return 0;
out:
	free(tmp.img);
	return ret;
}

/* oldest first: a growing filter grows to the slice it is given */
static int by_index_desc(const void *a, const void *b)
{
	const struct rslice *x = a, *y = b;

	return x->index < y->index ? 1 : x->index > y->index ? -1 : 0;
}

int bfctl_restore_slices(struct kbconn *conn, struct rfilter *rf, u32 *why)
{
	u64 now = bfctl_wall_ms();
	u32 i;
	int ret = 0;

	qsort(rf->sl, rf->nsl, sizeof(*rf->sl), by_index_desc);
	for (i = 0; !ret && i < rf->nsl; i++) {
		const struct rslice *sl = &rf->sl[i];

		ret = kbdev_upload_slice(conn->dev, KB_IMAGE_F_TXN, rf->name,
					 sl->img, sl->img_len, sl->index,
					 bfctl_slice_age(sl->age_ms,
							 sl->saved_ms, now),
					 why);
		if (ret && !conn->extack[0])
			snprintf(conn->extack, sizeof(conn->extack),
				 "slice %u (line %llu)", sl->index,
				 (unsigned long long)sl->line);
	}
	return ret;
}

void bfctl_restore_slices_free(struct rfilter *rf)
{
	u32 i;

	for (i = 0; i < rf->nsl; i++)
		free(rf->sl[i].img);
	free(rf->sl);
	rf->sl = NULL;
	rf->nsl = 0;
}
