// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl restore --on-bad-payload=empty|closed: a save with one bad block
 * still creates every filter it names.
 *
 * Firewall rules name filters (iptables -m bloom, whose checkentry fails
 * for a name that does not exist), and iptables-restore loads a table
 * whole or not at all.  So a boot restore that refused a whole save for
 * one corrupt or hostile block would leave the host with no rules: a
 * broken save file would open the firewall.  With --on-bad-payload, what
 * cannot be restored is reported and replaced by a stand-in, and every
 * other filter loads as the file says:
 *
 *  - a filter whose contents cannot be restored (bad payload line, CRC,
 *    block cut short, bad add line, refused by a guard or by the kernel)
 *    is created empty with the parameters of its filter line, or, closed,
 *    as the smallest filter of its kind and key type with every bit set
 *    (and every prefix length, for the net types), which answers "maybe"
 *    for every key: a DROP rule on it drops everything, an ACCEPT rule
 *    accepts everything, which is the admin's choice to make;
 *  - a filter line that is bad after its key-type= still gives a
 *    stand-in (kind blocked); one that is bad before it gives none;
 *  - with -exist, a filter already in the kernel (the unit restarted) is
 *    kept as it is rather than replaced by a stand-in;
 *  - lines that belong to no filter (garbage, a bad create line, adds to
 *    a name defined nowhere) are reported and skipped.
 *
 * Every such line is reported ("line N: why"), the filters that were not
 * restored are named on summary lines that kbloom-persist copies to the
 * kernel log, and the exit code is BFCTL_ERR.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"
#include "savefmt.h"

/* lines reported one by one before only counting (a million bad adds) */
#define BAD_SHOWN	20

int bfctl_restore_bad_parse(struct bfctl_restore *rs, const char *v)
{
	if (!strcmp(v, "empty"))
		rs->on_bad = RS_BAD_EMPTY;
	else if (!strcmp(v, "closed"))
		rs->on_bad = RS_BAD_CLOSED;
	else
		return -EINVAL;
	return 0;
}

/* the closed stand-in's image: every bit of the smallest filter set */
static int closed_image(struct rfilter *rf, struct kb_params *p)
{
	struct kb_image_cur c;
	struct kb_filter f;
	u64 len, bytes, done = 0, n;
	u8 *payload, *img;

	if (kb_key_type_is_net(p->key_type)) {
		if (p->key_type != KB_KEY_NET6)
			p->plen4 = (1ULL << 33) - 1;		/* /0../32 */
		if (p->key_type != KB_KEY_NET4) {
			p->plen6[0] = ~0ULL;			/* /0../128 */
			p->plen6[1] = ~0ULL;
			p->plen6[2] = 1;
		}
	}
	len = kb_image_size(p);
	bytes = kb_params_payload_bytes(p);
	payload = kbu_alloc_payload(bytes);
	img = malloc(len);
	if (!payload || !img)
		goto nomem;
	memset(payload, 0xff, bytes);
	if (p->kind == KB_KIND_CLASSIC)		/* LevelDB's trailing k byte */
		payload[bytes - 1] = (u8)p->k;
	if (kb_filter_attach(&f, p, payload, bytes)) {
		free(payload);
		free(img);
		return -EINVAL;
	}
	kb_image_cur_write_begin(&c, p, 0);
	while (done < len &&
	       (n = kb_image_cur_produce(&c, &f, img + done, len - done)))
		done += n;
	free(payload);
	rf->img = img;
	rf->img_len = len;
	return 0;
nomem:
	free(payload);
	free(img);
	return -ENOMEM;
}

int bfctl_restore_standin(struct bfctl_restore *rs, struct rfilter *rf,
			  const char *why)
{
	struct kb_params p;
	const char *made;
	int ret;

	if (!rf->have_p && !rf->have_type)
		return -EINVAL;
	if (!rf->bad)
		rs->nbad++;
	rf->bad = true;
	snprintf(rf->why, sizeof(rf->why), "%s", why);
	free(rf->img);
	rf->img = NULL;
	rf->img_len = 0;
	/* nor its slices: a stand-in is one plain filter, never a window */
	bfctl_restore_slices_free(rf);
	/* a closed stand-in is saturated on purpose: no guard at commit */
	rf->max_fpr_ppb = 0;
	bfctl_batch_reset(&rf->keys);
	if (rf->live && rs->exist && !rs->sync) {
		/* restarted: the filter in the kernel serves on as it is */
		rf->how = RF_LIVE;
		made = "the filter in the kernel is kept as it is";
		goto out;
	}
	if (rs->on_bad == RS_BAD_EMPTY && rf->have_p) {
		/* the file's own parameters: adds can refill it */
		bfctl_image_request(&rf->p, &rf->c, rf->name);
		rf->how = RF_CREATE;
		bfctl_held_from_params(&rf->held, &rf->p, 0);
		made = "created empty";
		goto out;
	}
	/*
	 * Closed, or no parameters to trust beyond the key type: the
	 * smallest filter of the kind (512 bits is a whole number of
	 * granules of every kind), its seeds zero
	 */
	memset(&p, 0, sizeof(p));
	p.kind = rf->have_p ? rf->p.kind : KB_KIND_BLOCKED;
	p.key_type = rf->key_type;
	p.hash = rf->have_p ? rf->p.hash : kb_kind_default_hash(p.kind);
	p.items = rf->have_p ? rf->p.items : 0;
	ret = kb_params_from_mk(&p, 512, rf->have_p ? rf->p.k :
				kb_model_best_k(p.kind, 512, 1), 0);
	if (ret)
		return ret;
	if (rs->on_bad == RS_BAD_CLOSED) {
		ret = closed_image(rf, &p);
		if (ret)
			return ret;
		rf->how = RF_IMAGE;
		made = "created closed: every key answers maybe";
	} else {
		rf->how = RF_CREATE;
		made = "created empty (the smallest of its key type)";
	}
	bfctl_image_request(&p, &rf->c, rf->name);
	bfctl_held_from_params(&rf->held, &p, 0);
out:
	if (!bfctl_quiet)
		fprintf(stderr, "bfctl: %s: %s: filter %s (line %llu) not restored: %s; %s\n",
			rs->verb, rs->file, rf->name,
			(unsigned long long)rf->line, why, made);
	return 0;
}

int bfctl_restore_bad(struct bfctl_restore *rs, struct rfilter *rf)
{
	char why[sizeof(rs->r.err)];

	if (rs->on_bad == RS_BAD_FAIL || rs->sync)
		return -EINVAL;
	memcpy(why, rs->r.err, sizeof(why));
	rs->r.code = 0;
	rs->r.err[0] = 0;
	bfctl_lines_skip_block(&rs->r);
	if (rf && !bfctl_restore_standin(rs, rf, why))
		return 0;
	/* (always shown: the unit's journal names what was lost) */
	if (rs->nlost++ < BAD_SHOWN)
		fprintf(stderr, "bfctl: %s: %s: %s: skipped\n", rs->verb,
			rs->file, why);
	else if (rs->nlost == BAD_SHOWN + 1)
		fprintf(stderr, "bfctl: %s: %s: more bad lines skipped (counted below)\n",
			rs->verb, rs->file);
	return 0;
}

/* the names of rs's filters that sel picks, space-separated, on stderr */
static void names(struct bfctl_restore *rs, const char *what, int sel)
{
	bool any = false;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		struct rfilter *rf = &rs->v[i];
		int s = !rf->bad ? 0 : rf->gone ? 1 : rf->how == RF_LIVE ? 2 : 3;

		if (s != sel)
			continue;
		if (!any)
			fprintf(stderr, "bfctl: %s: %s: %s:", rs->verb,
				rs->file, what);
		fprintf(stderr, " %s", rf->name);
		any = true;
	}
	if (any)
		fputc('\n', stderr);
}

int bfctl_restore_bad_report(struct bfctl_restore *rs)
{
	if (!rs->nbad && !rs->nlost)
		return BFCTL_OK;
	/* one line per outcome, names only: kbloom-persist logs these */
	names(rs, rs->on_bad == RS_BAD_CLOSED ?
	      "not restored, created closed (every key answers maybe)" :
	      "not restored, created empty", 3);
	names(rs, "not restored, the filter in the kernel kept", 2);
	names(rs, "not restored and not created", 1);
	if (rs->nlost)
		fprintf(stderr, "bfctl: %s: %s: %llu bad lines skipped (what they held is not restored)\n",
			rs->verb, rs->file, (unsigned long long)rs->nlost);
	return BFCTL_ERR;
}
