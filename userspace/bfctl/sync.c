// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl sync -file FILE: make the kernel's filters equal to a file, as
 * `wg syncconf` does for an interface's peers.  The file is what restore
 * reads (a save, create and add lines).  A filter the file does not name
 * is left alone and listed as such, unless --prune: then the file defines
 * every filter the kernel keeps (wg syncconf's way), and each destroy is
 * printed even with -q, as a filter destroyed by mistake must not go
 * unseen.
 * Each filter of the file is built in memory as the image it asks for
 * (a filter block, plus its add lines; or a create line and its adds,
 * seeded as the kernel's filter of that name when its parameters match,
 * so that an unchanged file compares equal) and compared with the
 * kernel's: parameters and bits, not counters.  Then, in that order:
 *
 *   destroy  a filter of the kernel that the file does not name
 *            (--prune; else "leave" it)
 *   create   a filter of the file that the kernel does not have
 *   replace  a filter that differs: one transaction (begin, image,
 *            commit), so lookups see the old filter until the new one is
 *            whole, and rules using it keep it
 *   keep     a filter equal to the file's: untouched, counters included
 *
 * Everything that can be checked is checked before the first change:
 * the file (restore's rules), a key type that would change (a
 * transaction cannot), a filter to destroy that rules or other consumers
 * hold, max_filters, and the guards of a live blocklist (capacity.c): a
 * replacement that drops more than BFCTL_REBUILD_MAX_DROP_PCT percent of
 * a filter's keys, an empty file that would destroy every filter.  A
 * failure after that (the kernel refusing one filter) stops the sync:
 * what was done is printed, the rest is unchanged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"
#include "savefmt.h"

enum sync_action {
	SYNC_KEEP, SYNC_CREATE, SYNC_REPLACE, SYNC_DESTROY, SYNC_LEAVE,
};

static const char *const action_name[] = {
	[SYNC_KEEP] = "keep", [SYNC_CREATE] = "create",
	[SYNC_REPLACE] = "replace", [SYNC_DESTROY] = "destroy",
	[SYNC_LEAVE] = "leave",
};

static const char *const action_done[] = {
	[SYNC_KEEP] = "unchanged", [SYNC_CREATE] = "created",
	[SYNC_REPLACE] = "replaced", [SYNC_DESTROY] = "destroyed",
	[SYNC_LEAVE] = "left",
};

struct sync {
	struct bfctl_restore rs;
	const char *file;
	bool dry;			/* -check: print the plan only */
	bool prune;			/* --prune: destroy what it lacks */
	struct kb_ioc_info *kern;	/* the kernel's filters */
	size_t nkern, capkern;
	u64 changed;
	/* -j: the actions, printed at the end */
	struct { char name[KB_NAME_MAX]; enum sync_action a; } *done;
	size_t ndone;
};

static int collect(const struct kb_ioc_info *i, void *arg)
{
	struct sync *s = arg;
	struct kb_ioc_info *nv;

	if (s->nkern == s->capkern) {
		s->capkern = s->capkern ? 2 * s->capkern : 16;
		nv = realloc(s->kern, s->capkern * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->kern = nv;
	}
	s->kern[s->nkern++] = *i;
	return 0;
}

static bool in_file(const struct sync *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->rs.n; i++)
		if (!strcmp(s->rs.v[i].name, name))
			return true;
	return false;
}

static int report(struct sync *s, const char *name, enum sync_action a)
{
	void *nv;

	s->changed += a != SYNC_KEEP && a != SYNC_LEAVE;
	if (!bfctl_json) {
		if (!bfctl_quiet || a == SYNC_DESTROY)
			printf("%s%s %s%s\n", s->dry ? "would " : "",
			       s->dry ? action_name[a] : action_done[a], name,
			       a == SYNC_LEAVE ?
			       " (not in the file; --prune destroys it)" : "");
		return 0;
	}
	nv = realloc(s->done, (s->ndone + 1) * sizeof(*s->done));
	if (!nv)
		return bfctl_fail(BFCTL_ERR, "sync", "%s", strerror(ENOMEM));
	s->done = nv;
	snprintf(s->done[s->ndone].name, KB_NAME_MAX, "%s", name);
	s->done[s->ndone++].a = a;
	return 0;
}

/*
 * What can be refused before anything changes: filters the sync would
 * destroy while consumers hold them, an empty file, key types that would
 * change, guards, max_filters.
 */
static int sync_check(struct sync *s)
{
	struct bfctl_restore *rs = &s->rs;
	u64 gone = 0;
	size_t i;
	int ret;

	for (i = 0; i < s->nkern; i++) {
		const struct kb_ioc_info *k = &s->kern[i];

		if (!s->prune || in_file(s, k->name))
			continue;
		gone++;
		if (k->refs)
			return bfctl_fail(BFCTL_ERR, "sync",
					  "%s: filter %s is not in the file and is in use (%u references: iptables rules or other consumers): sync would destroy it; nothing changed (remove its rules first, or add it to the file)",
					  s->file, k->name, k->refs);
		/* uncounted by the kernel: bfctl's XDP/tc and LSM blocklists */
		ret = bfctl_in_use_guard("sync", k->name, rs->force);
		if (ret)
			return ret;
	}
	if (!rs->n && s->nkern && s->prune && !rs->force)
		return bfctl_fail(BFCTL_ERR, "sync",
				  "%s: the file defines no filter: sync would destroy all %zu filters; nothing changed (--force to do it)",
				  s->file, s->nkern);
	for (i = 0; i < rs->n; i++) {
		struct rfilter *rf = &rs->v[i];
		char what[128];
		u64 want;

		if (!rf->live)
			continue;
		if (rf->live_info.key_type != rf->key_type)
			return bfctl_fail(BFCTL_ERR, "sync",
					  "%s: line %llu: filter %s holds %s keys and the file's has %s keys: a filter's key type cannot change in place; nothing changed (destroy it first)",
					  s->file, (unsigned long long)rf->line,
					  rf->name,
					  kb_key_type_name(rf->live_info.key_type),
					  kb_key_type_name(rf->key_type));
		/* the keys it would hold: the image's count and the adds */
		want = rf->keys.count + (rf->how == RF_IMAGE ? rf->held.count : 0);
		snprintf(what, sizeof(what), "sync: %s: line %llu: filter %s",
			 s->file, (unsigned long long)rf->line, rf->name);
		ret = bfctl_rebuild_check(&rf->live_info, want, rs->force, what);
		if (ret)
			return ret;
	}
	return bfctl_restore_guard(rs, "sync", s->file) ?:
	       bfctl_restore_check_count(rs, "sync", s->file, gone);
}

/* add rf's packed keys to f, noting their prefixes; the keys that were new */
static u64 add_keys(struct kb_filter *f, const struct bfctl_batch *b)
{
	struct kb_key keys[256];
	u64 i, off = 0, added = 0;
	u32 n = 0;
	u16 len;

	for (i = 0; i < b->count; i++) {
		memcpy(&len, b->buf + off, sizeof(len));
		keys[n].data = b->buf + off + sizeof(len);
		keys[n].len = len;
		off += sizeof(len) + len;
		/* the parser validated the key: noting cannot fail */
		kb_params_note_prefix(&f->p, keys[n].data, len);
		if (++n == ARRAY_SIZE(keys) || i + 1 == b->count) {
			added += kb_filter_test_and_add_many(f, keys, n, NULL);
			n = 0;
		}
	}
	return added;
}

void bfctl_image_finish(u8 *img, const struct kb_filter *f, u64 count)
{
	struct kb_image_cur c;
	u64 hl = sizeof(struct kb_image_hdr), left;
	u8 scratch[4096];

	kb_image_cur_write_begin(&c, &f->p, count);
	kb_image_cur_produce(&c, NULL, img, hl);
	/* the cursor's CRC runs over the payload; it is already in place */
	for (left = f->bytes; left; )
		left -= kb_image_cur_produce(&c, f, scratch,
				left < sizeof(scratch) ? left : sizeof(scratch));
	kb_image_cur_produce(&c, NULL, img + hl + f->bytes,
			     KB_IMAGE_TRAILER_LEN);
}

/*
 * Turn rf into the whole image the file wants (rf->img, rf->how =
 * RF_IMAGE, no keys left to send): a filter block with its adds, or a
 * create line with its adds.
 */
static int sync_want(struct sync *s, struct rfilter *rf)
{
	u64 hl = sizeof(struct kb_image_hdr), count = 0, bytes;
	const void *payload;
	struct kb_params p;
	struct kb_filter f;
	enum kb_img_err why;
	int ret;

	if (rf->how == RF_IMAGE && !rf->keys.count)
		return 0;
	if (rf->how == RF_IMAGE) {
		ret = kb_image_parse(rf->img, rf->img_len, 0, &p, &payload,
				     &bytes, &count, &why) ?:
		      kb_filter_attach(&f, &p, (void *)payload, bytes);
	} else {
		ret = bfctl_create_params(&rf->c, &p, s->rs.max_bytes);
		/*
		 * no --seed: the kernel's filter's seed if it is otherwise the
		 * same filter, so that equal keys give equal bits; else a new
		 * random one, as the kernel would pick
		 */
		if (!ret && !(rf->c.flags & KB_CREATE_F_SEED) &&
		    (p.hash == KB_HASH_XXH64 || p.hash == KB_HASH_SIPHASH)) {
			if (rf->live && bfctl_create_matches(&rf->c, &p,
							     &rf->live_info)) {
				p.seed[0] = rf->live_info.seed[0];
				p.seed[1] = rf->live_info.seed[1];
			} else {
				ret = kbu_random(p.seed, sizeof(p.seed));
				if (p.hash == KB_HASH_XXH64)
					p.seed[1] = 0;
			}
		}
		if (!ret) {
			rf->img_len = kb_image_size(&p);
			rf->img = kbu_alloc_payload(rf->img_len);
			ret = rf->img ? kb_filter_init_zeroed(&f, &p, rf->img + hl,
					kb_params_payload_bytes(&p)) : -ENOMEM;
		}
	}
	if (ret)
		return bfctl_fail(BFCTL_ERR, "sync", "%s: line %llu: filter %s: %s",
				  s->file, (unsigned long long)rf->line,
				  rf->name, strerror(-ret));
	count += add_keys(&f, &rf->keys);
	bfctl_image_finish(rf->img, &f, count);
	bfctl_image_request(&f.p, &rf->c, rf->name);
	bfctl_batch_reset(&rf->keys);
	rf->how = RF_IMAGE;
	return 0;
}

/* same parameters and bits (the counters may differ) */
static bool same_filter(const u8 *a, u64 alen, const u8 *b, u64 blen)
{
	const void *xa, *xb;
	struct kb_params pa, pb;
	u64 la, lb, ca, cb;
	enum kb_img_err why;

	if (kb_image_parse(a, alen, 0, &pa, &xa, &la, &ca, &why) ||
	    kb_image_parse(b, blen, 0, &pb, &xb, &lb, &cb, &why))
		return false;
	return pa.kind == pb.kind && pa.key_type == pb.key_type &&
	       pa.hash == pb.hash && pa.k == pb.k && pa.m == pb.m &&
	       pa.items == pb.items && pa.fpr_ppb == pb.fpr_ppb &&
	       pa.seed[0] == pb.seed[0] && pa.seed[1] == pb.seed[1] &&
	       pa.plen4 == pb.plen4 &&
	       !memcmp(pa.plen6, pb.plen6, sizeof(pa.plen6)) &&
	       la == lb && !memcmp(xa, xb, la);
}

static int sync_one(struct sync *s, struct rfilter *rf)
{
	enum sync_action a = rf->live ? SYNC_REPLACE : SYNC_CREATE;
	struct kbconn *conn = &s->rs.conn;
	u8 *img;
	u64 len;
	int ret;

	ret = sync_want(s, rf);
	if (ret)
		return ret;
	if (rf->live) {
		ret = kbdev_export(conn->dev, 0, rf->name, &img, &len);
		if (ret && ret != -ENOENT) {
			char what[64];

			snprintf(what, sizeof(what), "sync: export %s", rf->name);
			return bfctl_fail_err(conn, what, ret);
		}
		if (ret)	/* destroyed since: create it */
			a = SYNC_CREATE;
		else if (same_filter(rf->img, rf->img_len, img, len))
			a = SYNC_KEEP;
		if (!ret)
			free(img);
	}
	if (a != SYNC_KEEP && !s->dry) {
		ret = bfctl_restore_load(conn, "sync", rf);
		if (ret)
			return ret;
	}
	/* an unchanged filter still takes the file's exceptions */
	if (a == SYNC_KEEP && !s->dry) {
		ret = bfctl_restore_exc(conn, "sync", rf);
		if (ret)
			return ret;
	}
	/* the image is loaded or equal: its memory can go now */
	free(rf->img);
	rf->img = NULL;
	return report(s, rf->name, a);
}

static int sync_run(struct sync *s)
{
	struct kbconn *conn = &s->rs.conn;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < s->nkern; i++) {
		const char *name = s->kern[i].name;

		if (in_file(s, name))
			continue;
		if (!s->prune) {
			ret = report(s, name, SYNC_LEAVE);
			continue;
		}
		ret = s->dry ? 0 : kbconn_destroy(conn, name);
		if (ret == -ENOENT)	/* destroyed meanwhile: as wanted */
			ret = 0;
		if (ret) {
			char what[64];

			snprintf(what, sizeof(what), "sync: destroy %s", name);
			return bfctl_fail_err(conn, what, ret);
		}
		ret = report(s, name, SYNC_DESTROY);
	}
	for (i = 0; !ret && i < s->rs.n; i++)
		ret = sync_one(s, &s->rs.v[i]);
	return ret;
}

static void print_json(const struct sync *s)
{
	size_t i;

	bfctl_json_open_obj(NULL);
	bfctl_json_str("file", s->file);
	bfctl_json_bool("applied", !s->dry);
	bfctl_json_u64("changed", s->changed);
	bfctl_json_open_arr("filters");
	for (i = 0; i < s->ndone; i++) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("name", s->done[i].name);
		bfctl_json_str("action", action_name[s->done[i].a]);
		bfctl_json_close_obj();
	}
	bfctl_json_close_arr();
	bfctl_json_close_obj();
	bfctl_json_end();
}

int bfctl_sync_main(int argc, char **argv)
{
	struct sync s;
	int i, ret;

	memset(&s, 0, sizeof(s));
	s.file = "-";
	s.rs.sync = true;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-file") || !strcmp(argv[i], "--file")) {
			if (++i == argc)
				return bfctl_fail(BFCTL_USAGE, "sync", "-file needs a FILE");
			s.file = argv[i];
		} else if (!strcmp(argv[i], "-check") || !strcmp(argv[i], "--check")) {
			s.dry = true;
		} else if (!strcmp(argv[i], "-prune") || !strcmp(argv[i], "--prune")) {
			s.prune = true;
		} else if (!strcmp(argv[i], "-force") || !strcmp(argv[i], "--force")) {
			s.rs.force = true;
		} else if (!strcmp(argv[i], "-max-fpr") || !strcmp(argv[i], "--max-fpr")) {
			if (++i == argc ||
			    bfctl_parse_max_fpr(argv[i], &s.rs.max_fpr_ppb))
				return bfctl_fail(BFCTL_USAGE, "sync",
						  "--max-fpr needs P over 0 and at most 1 (0.01 or 1%%)");
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			bfctl_quiet = true;
		} else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			bfctl_json = true;
		} else {
			return bfctl_fail(BFCTL_USAGE, "sync",
					  "option '%s' is not allowed here (bfctl sync -file FILE [--prune] [-check] [--force] [--max-fpr P])",
					  argv[i]);
		}
	}
	/* a save's attachments are restore's: sync reads past them */
	s.rs.skip = RS_SKIP_LSM | RS_SKIP_XDP;
	ret = bfctl_restore_read(&s.rs, "sync", s.file);
	if (ret)
		goto out;
	/* exports and transactions go through the device */
	ret = kbconn_dev(&s.rs.conn);
	if (ret >= 0)
		ret = kbconn_list(&s.rs.conn, collect, &s);
	if (ret < 0) {
		ret = bfctl_fail_err(&s.rs.conn, "sync", ret);
		goto out;
	}
	ret = sync_check(&s) ?: sync_run(&s);
	if (ret && s.changed && !bfctl_quiet)
		fprintf(stderr, "bfctl: sync: stopped after %llu changes%s\n",
			(unsigned long long)s.changed,
			bfctl_json ? "" : " (printed above)");
	if (!ret && bfctl_json)
		print_json(&s);
out:
	bfctl_restore_free(&s.rs);
	free(s.kern);
	free(s.done);
	return ret;
}
