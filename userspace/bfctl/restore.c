// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl restore: check the whole input (filter blocks, create and add
 * lines; see savefmt.c for the format and the rules), then load it.  Add
 * lines are parsed into one packed key buffer per filter as they are read,
 * so the text itself is never held whole and a million keys cost their
 * packed size (a few bytes each) plus a line number.  Loading a filter
 * into the kernel is restore_load.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"
#include "savefmt.h"


/* nonzero: the payload cap instead of the module's (the fuzz target) */
u64 bfctl_restore_max_bytes;


struct rfilter *bfctl_restore_find(struct bfctl_restore *rs, const char *name)
{
	size_t i;

	if (rs->last < rs->n && !strcmp(rs->v[rs->last].name, name))
		return &rs->v[rs->last];
	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].name, name)) {
			rs->last = i;
			return &rs->v[i];
		}
	return NULL;
}

static struct rfilter *append(struct bfctl_restore *rs)
{
	struct rfilter *nv;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 8;
		nv = realloc(rs->v, rs->cap * sizeof(*nv));
		if (!nv)
			return NULL;
		rs->v = nv;
	}
	nv = &rs->v[rs->n++];
	memset(nv, 0, sizeof(*nv));
	return nv;
}

/* the kernel's filter name: 0 (info filled), -ENOENT, or an error */
static int kinfo(struct bfctl_restore *rs, const char *name,
		 struct kb_ioc_info *info)
{
	int ret;

	/*
	 * -check asks the kernel too (names that exist, their parameters),
	 * over netlink, which changes nothing; without the module it can
	 * only check the file
	 */
	if (rs->check) {
		if (rs->no_kernel)
			return -ENOENT;
		ret = kbconn_info(&rs->conn, name, info);
		if (ret == -EOPNOTSUPP || ret == -EPERM) {
			rs->no_kernel = ret;
			return -ENOENT;
		}
		goto got;
	}
	if (!rs->conn_up) {
		ret = kbconn_dev(&rs->conn);
		if (ret < 0) {
			snprintf(rs->r.err, sizeof(rs->r.err), "open %s: %s",
				 KBDEV_PATH, strerror(-ret));
			rs->r.code = BFCTL_ERR;
			return ret;
		}
		rs->conn_up = true;
	}
	ret = kbconn_info(&rs->conn, name, info);
got:
	if (ret && ret != -ENOENT) {
		const char *why = rs->conn.extack[0] ? rs->conn.extack :
				  ret == -EPERM ? KBCONN_PRIV_HINT : NULL;

		return bfctl_lines_fail(&rs->r, BFCTL_ERR,
					"filter %s: %s%s%s%s", name,
					strerror(-ret), why ? " (" : "",
					why ? why : "", why ? ")" : "");
	}
	return ret;
}

int bfctl_restore_known(struct bfctl_restore *rs, const char *name)
{
	struct kb_ioc_info info;

	return bfctl_restore_find(rs, name) ? 0 : kinfo(rs, name, &info);
}

/* what the kernel would make of a create request (kb_params_from_spec) */
static int new_keys(struct bfctl_restore *rs, struct rfilter *rf)
{
	if (bfctl_batch_init(&rf->keys, 4096, 65536))
		return bfctl_lines_fail(&rs->r, BFCTL_ERR, "%s",
					strerror(ENOMEM));
	return 0;
}

/* a name the file defines: not yet used in it, and free in the kernel */
static int define(struct bfctl_restore *rs, const char *name, bool *live,
		  struct kb_ioc_info *info)
{
	struct rfilter *old = bfctl_restore_find(rs, name);
	int ret;

	if (old)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
			       "filter %s already used on line %llu", name,
					(unsigned long long)old->line);
	ret = kinfo(rs, name, info);
	*live = !ret;
	return ret == -ENOENT ? 0 : ret;
}

static int line_filter(struct bfctl_restore *rs, char *s)
{
	struct kb_ioc_info info;
	struct rfilter tmp, *rf;
	char why[sizeof(rs->r.err)] = "";
	bool live;
	int ret;

	memset(&tmp, 0, sizeof(tmp));
	ret = bfctl_save_parse_block(&rs->r, s, &tmp, rs->max_bytes,
			  rs->total < rs->max_total ? rs->max_total - rs->total : 0);
	/* --on-bad-payload: a block bad after its name and key type */
	if (ret && rs->on_bad && !rs->sync && tmp.name[0] &&
	    (tmp.have_p || tmp.have_type)) {
		memcpy(why, rs->r.err, sizeof(why));
		rs->r.code = 0;
		rs->r.err[0] = 0;
		free(tmp.img);
		tmp.img = NULL;
		tmp.img_len = 0;
		ret = 0;
	}
	if (!ret)
		ret = define(rs, tmp.name, &live, &info);
	if (!ret && live && !rs->exist && !rs->sync) {
		rs->r.line = tmp.line;
		ret = bfctl_lines_fail(&rs->r, BFCTL_ERR,
			      "filter %s exists (-exist replaces it)", tmp.name);
	}
	if (!ret) {
		rf = append(rs);
		if (!rf)
			ret = bfctl_lines_fail(&rs->r, BFCTL_ERR, "%s",
					       strerror(ENOMEM));
	}
	if (ret) {
		free(tmp.img);
		return ret;
	}
	/* a few lines must not make a check or a load hold unbounded memory */
	rs->total += tmp.img_len;
	rs->fresh += !live;
	tmp.how = RF_IMAGE;
	tmp.live = live;
	if (live)
		tmp.live_info = info;
	*rf = tmp;
	ret = new_keys(rs, rf);
	if (!ret && why[0]) {
		ret = bfctl_restore_standin(rs, rf, why);
		bfctl_lines_skip_block(&rs->r);
		if (ret)
			ret = bfctl_lines_fail(&rs->r, BFCTL_ERR,
					       "filter %s: no stand-in: %s",
					       rf->name, strerror(-ret));
	}
	return ret;
}

static int line_create(struct bfctl_restore *rs, char *s)
{
	char *argv[48], msg[200] = "";
	struct kb_ioc_info info;
	struct kb_ioc_create c;
	struct kb_params p;
	struct rfilter *rf;
	struct bfctl_kargs a;
	int argc, ret;
	bool live;

	argc = bfctl_lines_words(&rs->r, s, argv, (int)ARRAY_SIZE(argv));
	if (argc < 0)
		return argc;
	/* the parser of `bfctl create`, its messages captured */
	bfctl_usage_capture(msg, sizeof(msg));
	ret = bfctl_kargs_parse(argc, argv, &a, KO_SPEC | KO_SHAPE | KO_MAXFPR) ?:
	      bfctl_create_request(&a, &c);
	bfctl_usage_capture(NULL, 0);
	if (ret)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE, "%s", msg);
	ret = bfctl_create_params(&c, &p, rs->max_bytes);
	if (ret == -E2BIG) {
		char need[32];

		bfctl_human_bytes(need, sizeof(need), bfctl_payload_need(&c));
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
			       "filter %s: over max_filter_bytes (%llu): it needs %s",
			       a.pos[0], (unsigned long long)rs->max_bytes, need);
	}
	if (ret)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
					"filter %s: bad parameters", a.pos[0]);
	ret = define(rs, a.pos[0], &live, &info);
	if (ret)
		return ret;
	if (live && !rs->exist && !rs->sync)
		return bfctl_lines_fail(&rs->r, BFCTL_ERR,
			       "filter %s exists (-exist keeps it if its parameters match)",
					a.pos[0]);
	/* (a sync replaces it with what the line asks for) */
	if (live && !rs->sync && !bfctl_create_matches(&c, &p, &info))
		return bfctl_lines_fail(&rs->r, BFCTL_ERR,
			       "filter %s exists with other parameters (%s %s m=%llu k=%u)",
					a.pos[0], kb_kind_name(info.kind),
					kb_key_type_name(info.key_type),
					(unsigned long long)info.m, info.k);
	rf = append(rs);
	if (!rf)
		return bfctl_lines_fail(&rs->r, BFCTL_ERR, "%s",
					strerror(ENOMEM));
	strcpy(rf->name, a.pos[0]);
	rf->line = rs->r.line;
	rf->how = live && !rs->sync ? RF_LIVE : RF_CREATE;
	rs->fresh += !live;
	rf->key_type = c.key_type;
	rf->c = c;
	rf->cap_ppb = c.max_fpr_ppb;
	rf->p = p;
	rf->have_p = rf->have_type = true;
	rf->live = live;
	if (live)
		rf->live_info = info;
	if (rf->how == RF_LIVE)
		rf->held = info;
	else
		bfctl_held_from_params(&rf->held, &p, 0);
	rf->held.grow = !!(c.flags & KB_CREATE_F_GROW);
	return new_keys(rs, rf);
}

/* the filter of an add line naming the previous add's: no lookups */
static struct rfilter *same_as_last(struct bfctl_restore *rs, char *name,
				    char **key)
{
	struct rfilter *rf;
	size_t n;

	if (rs->last >= rs->n)
		return NULL;
	rf = &rs->v[rs->last];
	n = rf->name_len;
	if (!n) {
		n = strlen(rf->name);
		rf->name_len = n;
	}
	/* strncmp first: it stops at name's NUL, so name[n] is in bounds */
	if (strncmp(name, rf->name, n) || (name[n] != ' ' && name[n] != '\t'))
		return NULL;
	*key = name + n + 1;
	return rf;
}

/* an add line, or (exc) an except line: the same grammar, another set */
static int line_add(struct bfctl_restore *rs, char *s, bool exc)
{
	struct kb_ioc_info info;
	struct rfilter *rf;
	struct bfctl_batch *b;
	const char *why, *k;
	char *name = s + (exc ? 7 : 4), *key, q[KBU_QUOTE_SIZE];
	size_t klen;
	int ret;

	while (*name == ' ' || *name == '\t')
		name++;
	/* the hot path of a million-line blocklist */
	rf = same_as_last(rs, name, &key);
	if (rf)
		goto parse;
	key = name + strcspn(name, " \t");
	if (!*key)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
					exc ? "usage: except NAME KEY" :
					"usage: add NAME KEY");
	*key++ = 0;
	if (!kb_name_valid(name, (u32)strlen(name)))
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
					"bad filter name '%.40s'", name);
	rf = bfctl_restore_find(rs, name);
	if (!rf && rs->sync)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
			       "filter %s is not defined above (a sync file defines each filter it keeps with a filter block or a create line)",
					name);
	if (!rf) {
		ret = kinfo(rs, name, &info);
		if (ret == -ENOENT)
			return bfctl_lines_fail(&rs->r, BFCTL_ERR,
				       "filter %s does not exist%s", name,
				       rs->no_kernel ? " in the file" : "");
		if (ret)
			return ret;
		rf = append(rs);
		if (!rf)
			return bfctl_lines_fail(&rs->r, BFCTL_ERR, "%s",
						strerror(ENOMEM));
		strcpy(rf->name, name);
		rf->line = rs->r.line;
		rf->how = RF_LIVE;
		rf->key_type = info.key_type;
		rf->held = info;
		ret = new_keys(rs, rf);
		if (ret)
			return ret;
		rs->last = rs->n - 1;
	}
parse:
	if (rf->bad)	/* a stand-in: its contents are not restored */
		return 0;
	/* KEY by the key files' rule: "add bl 192.0.2.1 # why" */
	if (!kbu_keyline(rf->key_type, bfctl_key_format(-1, rf->key_type),
			 key, (size_t)(s + rs->r.len - key), &k, &klen))
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
					exc ? "usage: except NAME KEY" :
					"usage: add NAME KEY");
	b = exc ? &rf->exc : &rf->keys;
	if (exc && !b->buf && bfctl_batch_init(b, 64, 64 * (KB_KEY_MAX_LEN + 3)))
		return bfctl_lines_fail(&rs->r, BFCTL_ERR, "%s",
					strerror(ENOMEM));
	if (exc && b->count >= KB_EXC_MAX)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
					"filter %s: more than %u except lines",
					rf->name, KB_EXC_MAX);
	if (bfctl_batch_reserve(b))
		return bfctl_lines_fail(&rs->r, BFCTL_ERR, "%s",
					strerror(ENOMEM));
	if (bfctl_batch_push_text(b, rf->key_type,
				  bfctl_key_format(-1, rf->key_type), k, klen,
				  rs->r.line, &why)) {
		kbu_quote(q, sizeof(q), k, klen);
		bfctl_lines_fail(&rs->r, BFCTL_USAGE,
				 "key %s: %s (key type %s)", q, why,
				 kb_key_type_name(rf->key_type));
		/* a filter of the file's: its contents are not restored */
		if (rs->on_bad && rf->how != RF_LIVE)
			return bfctl_restore_bad(rs, rf);
		return -EINVAL;
	}
	return 0;
}

static int parse_all(struct bfctl_restore *rs)
{
	char *s;
	int ret;

	for (;;) {
		s = bfctl_lines_next(&rs->r);
		/* --on-bad-payload: a line too long, a read error */
		if (!s && rs->r.code && !bfctl_restore_bad(rs, NULL))
			continue;
		if (!s)
			break;
		if (!s[0])
			continue;
		if (!rs->lines)
			rs->save = !strcmp(s, SAVE_MAGIC);
		rs->lines = true;
		/* a save's own lines may be followed by others (create, add) */
		rs->ended |= !strcmp(s, SAVE_END);
		if (s[0] == '#' || s[0] == ';')	/* as in key files */
			continue;
		/* restore --only without filters: their lines are not read */
		if ((rs->skip & RS_SKIP_FILTERS) && (!strncmp(s, "filter ", 7) ||
						     !strncmp(s, "slice ", 6))) {
			rs->r.in_block = true;
			bfctl_lines_skip_block(&rs->r);
			continue;
		}
		if ((rs->skip & RS_SKIP_FILTERS) && strncmp(s, "attach ", 7))
			continue;
		if (!strncmp(s, "attach ", 7))
			ret = bfctl_restore_attach_line(rs, s);
		else if (s[0] == 'a' && s[1] == 'd' && s[2] == 'd' &&
		    (s[3] == ' ' || s[3] == '\t'))
			ret = line_add(rs, s, false);
		else if (!strncmp(s, "except ", 7) || !strncmp(s, "except\t", 7))
			ret = line_add(rs, s, true);
		else if (!strncmp(s, "filter ", 7))
			ret = line_filter(rs, s);
		else if (!strncmp(s, "slice ", 6))
			ret = bfctl_restore_slice_line(rs, s);
		else if (!strncmp(s, "create ", 7) || !strncmp(s, "create\t", 7))
			ret = line_create(rs, s);
		else if (!strncmp(s, "grant ", 6) || !strncmp(s, "grant\t", 6))
			ret = bfctl_restore_grant_line(rs, s);
		else
			ret = bfctl_lines_fail(&rs->r, BFCTL_USAGE,
				      "expected 'filter NAME ...', 'create NAME ...', 'add NAME KEY', 'grant NAME ...' or 'attach ...', got '%.40s'",
					       s);
		/* --on-bad-payload: reported and skipped, the reading goes on */
		if (ret && rs->r.code && !bfctl_restore_bad(rs, NULL))
			ret = 0;
		if (ret)
			return ret;
	}
	if (!rs->r.code && rs->save && !rs->ended)
		bfctl_lines_fail(&rs->r, BFCTL_USAGE,
				 "the save does not end with '%s': it is cut short (did the save fail?)",
				 SAVE_END);
	if (rs->r.code && !bfctl_restore_bad(rs, NULL))
		return 0;
	return rs->r.code ? -EINVAL : 0;
}

static int count_filter(const struct kb_ioc_info *i, void *arg)
{
	(*(u64 *)arg) += i != NULL;
	return 0;
}

/*
 * max_filters, for the whole file before anything loads: a restore
 * stopped by the kernel half way would leave the file half loaded
 */
int bfctl_restore_check_count(struct bfctl_restore *rs, const char *verb,
			      const char *file, u64 gone)
{
	u64 have = 0, max = bfctl_module_param("max_filters", 1024);
	int ret;

	if (!rs->fresh || rs->no_kernel)
		return 0;
	ret = kbconn_list(&rs->conn, count_filter, &have);
	if (ret == -EOPNOTSUPP && rs->check)
		return 0;
	if (ret)
		return bfctl_fail_err(&rs->conn, verb, ret);
	have -= gone < have ? gone : have;
	if (have + rs->fresh <= max)
		return 0;
	return bfctl_fail(BFCTL_ERR, verb,
			  "%s: creates %llu filters and the namespace keeps %llu: over max_filters (%llu); nothing changed",
			  file, (unsigned long long)rs->fresh,
			  (unsigned long long)have, (unsigned long long)max);
}

/*
 * A net filter the file creates with --fpr is sized for the prefix
 * lengths its add lines hold (or --prefixes, if more): the FPR asked for
 * is per lookup.  0, or BFCTL_USAGE when that no longer fits.
 */
static int size_for_keys(struct bfctl_restore *rs, struct rfilter *rf)
{
	struct kb_params held = { .key_type = rf->key_type }, p;
	const u8 *k = rf->keys.buf;
	u64 i;
	u32 l;
	u16 l16;

	if (rf->how != RF_CREATE || rf->bad ||
	    rf->c.sizing != KB_SIZING_FPR || !kb_key_type_is_net(rf->key_type))
		return 0;
	for (i = 0; i < rf->keys.count; i++, k += sizeof(l16) + l16) {
		memcpy(&l16, k, sizeof(l16));
		kb_params_note_prefix(&held, k + sizeof(l16), l16);
	}
	l = kb_params_nplens(&held);
	if (l <= (rf->c.prefixes ? rf->c.prefixes : 1))
		return 0;
	rf->c.prefixes = l;
	if (bfctl_create_params(&rf->c, &p, rs->max_bytes))
		return bfctl_fail(BFCTL_USAGE, rs->verb,
				  "%s: line %llu: filter %s: sized for the %u prefix lengths its keys hold, it is over max_filter_bytes (%llu)",
				  rs->file, (unsigned long long)rf->line,
				  rf->name, l,
				  (unsigned long long)rs->max_bytes);
	rf->p = p;
	bfctl_held_from_params(&rf->held, &p, 0);
	return 0;
}

int bfctl_restore_read(struct bfctl_restore *rs, const char *verb,
		       const char *file)
{
	size_t i;
	int ret;

	kbconn_init(&rs->conn);
	rs->verb = verb;
	rs->file = file;
	ret = bfctl_lines_open(&rs->r, file);
	if (ret)
		return bfctl_fail(BFCTL_ERR, verb, "%s: %s", file,
				  strerror(-ret));
	rs->max_bytes = bfctl_restore_max_bytes ?:
		       bfctl_module_param("max_filter_bytes",
					   BFCTL_DEF_MAX_FILTER_BYTES);
	rs->max_total = bfctl_restore_max_bytes ?
			4 * bfctl_restore_max_bytes :
			bfctl_module_param("max_netns_bytes", 16ULL << 30);
	ret = parse_all(rs);
	bfctl_lines_close(&rs->r);
	if (ret)
		return bfctl_fail(rs->r.code, verb, "%s: %s", file, rs->r.err);
	for (i = 0; !ret && i < rs->n; i++)
		ret = size_for_keys(rs, &rs->v[i]);
	return ret;
}

int bfctl_restore_guard(struct bfctl_restore *rs, const char *verb,
			const char *file)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < rs->n; i++) {
		struct rfilter *rf = &rs->v[i];
		struct kb_stats st;
		const char *refused = NULL;
		char what[128];

		snprintf(what, sizeof(what), "%s: %s: line %llu: filter %s",
			 verb, file, (unsigned long long)rf->line, rf->name);
		if (rf->bad)	/* a stand-in's own contents */
			continue;
		ret = bfctl_cap_check(&rf->held, rf->keys.count, rs->force,
				      what);
		if (ret) {
			refused = "refused by the capacity guard";
		} else if (rf->how == RF_IMAGE) {
			/* a saved payload: refused before anything changes;
			 * the kernel checks it once more at commit
			 */
			rf->max_fpr_ppb =
				bfctl_guard_image_limit(rf->img, rf->img_len,
							rs->max_fpr_ppb,
							rs->force);
			if (bfctl_guard_image(rf->img, rf->img_len,
					      rf->max_fpr_ppb, &st) == -EDOM) {
				char why[200];

				bfctl_guard_why(&st, rf->max_fpr_ppb, why,
						sizeof(why));
				ret = bfctl_fail(BFCTL_ERR, what, "refused: %s",
						 why);
				refused = "refused by the saturation guard";
			}
		}
		/*
		 * --on-bad-payload: the refused filter gets a stand-in; adds
		 * to one in the kernel are dropped
		 */
		if (ret && rs->on_bad && !rs->sync) {
			if (bfctl_restore_standin(rs, rf, refused)) {
				bfctl_batch_reset(&rf->keys);
				rs->nlost++;
			}
			ret = 0;
		}
	}
	return ret;
}

void bfctl_restore_free(struct bfctl_restore *rs)
{
	size_t i;

	kbconn_close(&rs->conn);
	for (i = 0; i < rs->n; i++) {
		free(rs->v[i].img);
		bfctl_restore_slices_free(&rs->v[i]);
		bfctl_batch_free(&rs->v[i].keys);
		bfctl_batch_free(&rs->v[i].exc);
	}
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
	for (i = 0; i < rs->natt; i++)
		bfctl_attach_free(&rs->att[i]);
	free(rs->att);
	rs->att = NULL;
	rs->natt = 0;
}

int bfctl_restore_main(int argc, char **argv)
{
	struct bfctl_restore rs;
	const char *file = "-";
	size_t i;
	int ret;

	memset(&rs, 0, sizeof(rs));
	if (bfctl_json)		/* (bfctl -j restore) nothing to print as JSON */
		return bfctl_fail(BFCTL_USAGE, "restore", "-j is not allowed here");
	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "-file") || !strcmp(argv[i], "--file")) {
			if (++i == (size_t)argc)
				return bfctl_fail(BFCTL_USAGE, "restore", "-file needs a FILE");
			file = argv[i];
		} else if (!strcmp(argv[i], "-exist") || !strcmp(argv[i], "--exist")) {
			rs.exist = true;
		} else if (!strcmp(argv[i], "-check") || !strcmp(argv[i], "--check")) {
			rs.check = true;
		} else if (!strcmp(argv[i], "-force") || !strcmp(argv[i], "--force")) {
			rs.force = true;
		} else if (!strcmp(argv[i], "-max-fpr") || !strcmp(argv[i], "--max-fpr")) {
			if (++i == (size_t)argc ||
			    bfctl_parse_max_fpr(argv[i], &rs.max_fpr_ppb))
				return bfctl_fail(BFCTL_USAGE, "restore",
						  "--max-fpr needs P over 0 and at most 1 (0.01 or 1%%)");
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			bfctl_quiet = true;	/* -q anywhere, as for every verb */
		} else if (!strncmp(argv[i], "--only=", 7) ||
			   !strncmp(argv[i], "-only=", 6)) {
			if (bfctl_restore_only_parse(&rs, strchr(argv[i], '=') + 1))
				return bfctl_fail(BFCTL_USAGE, "restore",
						  "--only takes filters, lsm, xdp or a list of them (filters,lsm), not '%s'",
						  strchr(argv[i], '=') + 1);
		} else if (!strncmp(argv[i], "--on-bad-payload=", 17) ||
			   !strncmp(argv[i], "-on-bad-payload=", 16)) {
			if (bfctl_restore_bad_parse(&rs, strchr(argv[i], '=') + 1))
				return bfctl_fail(BFCTL_USAGE, "restore",
						  "--on-bad-payload is empty or closed, not '%s'",
						  strchr(argv[i], '=') + 1);
		} else {
			return bfctl_fail(BFCTL_USAGE, "restore",
					  "option '%s' is not allowed here (bfctl restore [-file FILE] [-exist] [-check] [--force] [--max-fpr P] [--on-bad-payload=empty|closed] [--only=filters,lsm,xdp])",
					  argv[i]);
		}
	}
	ret = bfctl_restore_read(&rs, "restore", file) ?:
	      bfctl_restore_guard(&rs, "restore", file) ?:
	      bfctl_restore_check_count(&rs, "restore", file, 0);
	if (ret)
		goto out;
	if (rs.no_kernel && !bfctl_quiet)
		fprintf(stderr, "bfctl: restore -check: %s: %s: checked the file only, not against the kernel's filters\n",
			file, rs.no_kernel == -EPERM ?
			"no CAP_NET_ADMIN to ask the kernel" :
			"the kbloom module is not loaded");
	if (!rs.check && !rs.conn_up && rs.n) {
		ret = kbconn_dev(&rs.conn);
		if (ret < 0) {
			ret = bfctl_fail_err(&rs.conn, "restore: open " KBDEV_PATH, ret);
			goto out;
		}
	}
	ret = 0;
	for (i = 0; !rs.check && !ret && i < rs.n; i++) {
		struct rfilter *rf = &rs.v[i];

		ret = bfctl_restore_load(&rs.conn, "restore", rf);
		if (!ret || !rs.on_bad)
			continue;
		/*
		 * --on-bad-payload: the kernel refused it: a stand-in (adds
		 * to a filter of the kernel's: some went in, reported above)
		 */
		if (!rf->have_p && !rf->have_type)
			rs.nlost++;
		else if (rf->bad || bfctl_restore_standin(&rs, rf,
					"the kernel refused it (above)") ||
			 bfctl_restore_load(&rs.conn, "restore", rf))
			rf->gone = true;
		ret = 0;
	}
	if (!ret)
		ret = bfctl_restore_bad_report(&rs);
	/* each on its own, after the filters: a failed one stops no other */
	if (!rs.check && rs.natt && (!ret || rs.on_bad))
		ret = bfctl_restore_attachments(&rs) ?: ret;
	if (rs.check && !bfctl_quiet && !rs.nbad && !rs.nlost) {
		u64 keys = 0;

		for (i = 0; i < rs.n; i++)
			keys += rs.v[i].keys.count;
		printf("%s: %zu filters, %llu keys", file, rs.n,
		       (unsigned long long)keys);
		if (rs.natt)
			printf(", %zu attachments", rs.natt);
		printf(": ok\n");
	}
out:
	bfctl_restore_free(&rs);
	return ret;
}
