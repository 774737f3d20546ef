// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl verbs that talk to the kbloom module: create, destroy, list, info,
 * swap, rename, flush, monitor, version, and the table of all of them
 * (add, del, test and test-and-add are in keyverbs.c; rebuild, upload and
 * export in bulk.c).  Options follow ipset's habits (-exist, -file, -t) and
 * may appear anywhere; "--" ends them (for keys starting with '-').
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kverbs.h"

/* ---- errors: the kernel's message, or what we know ---- */

/*
 * The errnos of kbloom's limits, in the user's terms: strerror() would
 * call a size limit "Argument list too long" and the filter-count limit
 * "No space left on device".  The kernel's extack, when there is one,
 * names the very limit and replaces these.
 */
static const char *limit_text(int err)
{
	switch (err) {
	case E2BIG:
		return "filter larger than the module's max_filter_bytes (see LIMITS in bfctl(8))";
	case ENOSPC:
		return "over a kbloom limit: max_filters, or the memory caps max_netns_bytes, max_userns_bytes, max_total_bytes (see LIMITS in bfctl(8))";
	case ERANGE:
		return "no filter of at most 1000 bits per key reaches that false positive rate";
	case EDOM:	/* the saturation guard (bfctl_guard_why()) */
		return "refused: saturated: estimated false positive rate over --max-fpr (--force to load it anyway)";
	}
	return NULL;
}

int bfctl_fail_err(struct kbconn *c, const char *what, int err)
{
	const char *limit;

	if (err < 0)
		err = -err;
	limit = limit_text(err);
	if (limit && c && c->extack[0])
		fprintf(stderr, "bfctl: %s: %s\n", what, c->extack);
	else if (limit)
		fprintf(stderr, "bfctl: %s: %s\n", what, limit);
	else if (c && c->extack[0])
		fprintf(stderr, "bfctl: %s: %s: %s\n", what, strerror(err),
			c->extack);
	else if (err == EPERM)	/* every request, reads included */
		fprintf(stderr, "bfctl: %s: %s: %s\n", what, strerror(err),
			KBCONN_PRIV_HINT);
	else
		fprintf(stderr, "bfctl: %s: %s\n", what, strerror(err));
	return BFCTL_ERR;
}

/* ---- create ---- */

static int do_create(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kb_ioc_create c;
	int ret;

	ret = bfctl_create_request(a, &c);
	if (ret)
		return ret;
	if (a->readers || a->writers || a->grant_none) {
		ret = bfctl_create_grant(conn, a, &c);
		if (ret > 0)	/* a group that is not there: usage */
			return ret;
	} else {
		ret = kbconn_create(conn, &c);
	}
	if (ret == -EEXIST && a->exist) {
		struct kb_ioc_info info;
		struct kb_params p;

		/* like ipset: -exist accepts only an identical filter */
		ret = kbconn_info(conn, c.name, &info);
		if (ret)
			return bfctl_fail_err(conn,
				bfctl_verb_name("create", a->pos[0]), ret);
		/* the identical filter kept, it takes the grants asked for */
		if (!bfctl_create_params(&c, &p, ~0ULL) &&
		    bfctl_create_matches(&c, &p, &info))
			return a->readers || a->writers ?
			       bfctl_grant_apply(conn, a, a->pos[0]) : BFCTL_OK;
		return bfctl_fail(BFCTL_ERR,
				  bfctl_verb_name("create", a->pos[0]),
				  "exists with other parameters (%s %s m=%llu k=%u); -exist keeps only an identical filter",
				  kb_kind_name(info.kind),
				  kb_key_type_name(info.key_type),
				  (unsigned long long)info.m, info.k);
	}
	/* the kernel refused before allocating: say what it would cost */
	if (ret == -E2BIG &&
	    bfctl_size_refuse(&c, bfctl_module_param("max_filter_bytes",
						     BFCTL_DEF_MAX_FILTER_BYTES),
			      "the module's max_filter_bytes", BFCTL_ERR,
			      bfctl_verb_name("create", a->pos[0])))
		return BFCTL_ERR;
	if (ret)
		return bfctl_fail_err(conn,
			bfctl_verb_name("create", a->pos[0]), ret);
	return BFCTL_OK;
}

/* ---- destroy, flush, swap, rename ---- */

static int do_names(struct kbconn *conn, struct bfctl_kargs *a)
{
	const char *v = a->verb;
	bool two = !strcmp(v, "swap") || !strcmp(v, "rename");
	struct kb_ioc_info info;
	char what[96];
	int ret;

	ret = bfctl_want_pos(a, two ? 2 : 1, two ? 2 : 1,
		       two ? (!strcmp(v, "swap") ? "swap A B" : "rename OLD NEW") :
		       (!strcmp(v, "flush") ? "flush NAME" : "destroy NAME"));
	if (!ret)
		ret = bfctl_check_name(a, a->pos[0]);
	if (!ret && two)
		ret = bfctl_check_name(a, a->pos[1]);
	if (ret)
		return ret;
	/* a blocklist bfctl attached would fail open: refused like EBUSY */
	if (!strcmp(v, "destroy") && !kbconn_info(conn, a->pos[0], &info)) {
		ret = bfctl_in_use_guard(v, a->pos[0], a->force);
		if (ret)
			return ret;
	}
	if (!strcmp(v, "destroy"))
		ret = kbconn_destroy(conn, a->pos[0]);
	else if (!strcmp(v, "flush"))
		ret = kbconn_flush(conn, a->pos[0]);
	else if (!strcmp(v, "swap"))
		ret = kbconn_swap(conn, a->pos[0], a->pos[1]);
	else
		ret = kbconn_rename(conn, a->pos[0], a->pos[1]);
	if (!ret)
		return BFCTL_OK;
	if (two)
		snprintf(what, sizeof(what), "%s %s %s", v, a->pos[0], a->pos[1]);
	else
		snprintf(what, sizeof(what), "%s %s", v, a->pos[0]);
	return bfctl_fail_err(conn, what, ret);
}

/* ---- list, info ---- */

static double ppb(u32 v)
{
	return v / 1e9;
}

/* a one-line sysfs file into buf ("" if it cannot be read) */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		fclose(f);
		buf[strcspn(buf, "\n")] = 0;
	}
}

/*
 * Whether BPF programs can use kbloom's kfuncs: the module's parameter
 * says whether it registered them ("yes" or "no (why)"), and
 * /sys/kernel/btf/kbloom whether the kernel kept its BTF (a kernel that
 * allows BTF mismatches loads a module whose BTF it rejected, silently
 * but for a warning in its log).  why: "" when yes.
 */
const char *bfctl_kfuncs_word(enum bfctl_kf kf)
{
	return kf == BFCTL_KF_YES ? "yes" : kf == BFCTL_KF_PARTIAL ? "partial" : "no";
}

enum bfctl_kf bfctl_kfuncs_state(char *why, size_t len)
{
	enum bfctl_kf kf = BFCTL_KF_YES;
	char buf[128];

	read_line("/sys/module/kbloom/parameters/kfuncs", buf, sizeof(buf));
	if (!buf[0]) {
		snprintf(why, len, "%s", access("/sys/module/kbloom", F_OK) ?
			 "module not loaded" : "module without kfunc support");
		return BFCTL_KF_NO;
	}
	if (!strncmp(buf, "partial", 7)) {
		kf = BFCTL_KF_PARTIAL;
	} else if (strcmp(buf, "yes")) {
		/* "no (why)": the reason without its parentheses */
		const char *r = strchr(buf, '(');

		snprintf(why, len, "%.*s", r ? (int)strcspn(r + 1, ")") : 2,
			 r ? r + 1 : "no");
		return BFCTL_KF_NO;
	}
	if (access("/sys/kernel/btf/kbloom", F_OK)) {
		snprintf(why, len, "the kernel rejected the module's BTF: see its log");
		return BFCTL_KF_NO;
	}
	if (kf == BFCTL_KF_PARTIAL) {
		/* "partial (xdp tc; tracing: -EINVAL)": what is in parentheses */
		const char *r = strchr(buf, '(');

		snprintf(why, len, "%.*s", r ? (int)strcspn(r + 1, ")") : 7,
			 r ? r + 1 : "partial");
		return kf;
	}
	why[0] = 0;
	return kf;
}

/* the kfuncs line of version and info: "kfuncs: partial (xdp tc; ...)" */
static void kfuncs_print(enum bfctl_kf kf, const char *why)
{
	printf("kfuncs: %s%s%s%s\n", bfctl_kfuncs_word(kf), why[0] ? " (" : "",
	       why, why[0] ? ")" : "");
}

/* the kfuncs members of version -j and info -j */
static void kfuncs_json(enum bfctl_kf kf, const char *why)
{
	bfctl_json_bool("kfuncs", kf == BFCTL_KF_YES);
	if (kf == BFCTL_KF_PARTIAL)
		bfctl_json_bool("kfuncs_partial", true);
	if (kf != BFCTL_KF_YES)
		bfctl_json_str("kfuncs_reason", why);
}

/* why: NULL leaves out the module's kfuncs state (lists of filters) */
/*
 * the size of name's exception set (KB_A_EXCEPT_COUNT), -1 if unknown: no
 * netlink, or a module without exception sets
 */
static s64 exc_count(struct kbconn *conn, const char *name)
{
	u32 n = 0;

	if (!conn->nl || kbnl_except_count(conn->nl, name, &n))
		return -1;
	return n;
}

static void json_info(const struct kb_ioc_info *i, enum bfctl_kf kf,
		      const char *why, s64 exc, const u32 *grants)
{
	bfctl_json_open_obj(NULL);
	bfctl_json_str("name", i->name);
	bfctl_json_u64("id", i->id);
	bfctl_json_str("kind", kb_kind_name(i->kind));
	bfctl_json_str("key_type", kb_key_type_name(i->key_type));
	bfctl_json_str("hash", kb_hash_name(i->hash));
	bfctl_json_u64("bytes", i->bytes);
	bfctl_json_u64("m", i->m);
	bfctl_json_u64("k", i->k);
	bfctl_json_u64("items", i->items);
	bfctl_json_double("fpr", ppb(i->fpr_ppb));
	bfctl_json_double("expected_fpr", ppb(i->expected_fpr_ppb));
	bfctl_json_u64("count", i->count);
	bfctl_json_u64("bits_set", i->bits_set);
	bfctl_json_double("fill", i->fill_ppm / 1e6);
	bfctl_json_est_items("est_items", i->est_items);
	bfctl_json_bool("saturated", i->est_items == U64_MAX);
	bfctl_json_double("est_fpr", ppb(i->est_fpr_ppb));
	/* net types: the FPRs above are of a lookup of this many probes */
	if (kb_key_type_is_net(i->key_type))
		bfctl_json_u64("prefixes", i->prefixes);
	bfctl_json_bool("over_capacity", i->over_capacity);
	/* adds from the packet path: their cap, and what it refused */
	if (i->max_fpr_ppb) {
		bfctl_json_double("max_fpr", ppb(i->max_fpr_ppb));
		bfctl_json_u64("learn_refused", i->learn_refused);
	}
	bfctl_json_u64("lookups", i->lookups);
	bfctl_json_u64("hits", i->hits);
	bfctl_json_u64("adds", i->adds);
	bfctl_json_u64("generation", i->generation);
	bfctl_json_u64("refs", i->refs);
	bfctl_slices_json(i);
	if (exc >= 0)
		bfctl_json_u64("exceptions", (u64)exc);
	bfctl_grants_json(grants[0], grants[1]);
	if (why) {
		kfuncs_json(kf, why);
	}
	bfctl_json_close_obj();
}

static void table_header(void)
{
	printf("%-20s %-8s %-6s %-7s %12s %2s %10s %8s %6s %10s %8s\n",
	       "NAME", "KIND", "KEYS", "HASH", "BYTES", "K", "ITEMS", "FPR",
	       "FILL", "EST-ITEMS", "EST-FPR");
}

/* an estimated item count as text: "saturated" when every bit is set */
static const char *est_text(u64 est, char *buf, size_t len)
{
	if (est == U64_MAX)
		return "saturated";
	snprintf(buf, len, "%llu", (unsigned long long)est);
	return buf;
}

static void table_row(const struct kb_ioc_info *i, const u32 *grants)
{
	char est[24];

	printf("%-20s %-8s %-6s %-7s %12llu %2u %10llu %8.2g %5.1f%% %10s %8.2g%s",
	       i->name, kb_kind_name(i->kind), kb_key_type_name(i->key_type),
	       kb_hash_name(i->hash), (unsigned long long)i->bytes, i->k,
	       (unsigned long long)i->items, ppb(i->fpr_ppb),
	       i->fill_ppm / 1e4, est_text(i->est_items, est, sizeof(est)),
	       ppb(i->est_fpr_ppb), i->over_capacity ? " OVER" : "");
	if (i->window_ms)
		printf(" window=%s/%u", bfctl_duration_text(i->window_ms, est,
							    sizeof(est)),
		       i->nslices);
	else if (i->grow)
		printf(" grow=%u", i->nslices);
	if (i->learn_refused)	/* the cap refuses what the packet path adds */
		printf(" REFUSED=%llu", (unsigned long long)i->learn_refused);
	bfctl_grants_row(grants[0], grants[1]);
	printf("\n");
}

struct list_state {
	struct kbconn *conn;
	bool terse;
	bool opened;	/* the JSON document has begun */
	u64 n;
};

/* -j: begin the document at the first filter, or once the list is whole */
static void list_json_open(struct list_state *st)
{
	if (bfctl_json && !st->opened) {
		bfctl_json_open_obj(NULL);
		bfctl_json_open_arr("filters");
		st->opened = true;
	}
}

static int list_one(const struct kb_ioc_info *i, void *arg)
{
	struct list_state *st = arg;
	u32 g[2];

	list_json_open(st);
	if (!st->terse)
		bfctl_grants_get(st->conn, i->name, &g[0], &g[1]);
	if (bfctl_json) {
		json_info(i, BFCTL_KF_NO, NULL, exc_count(st->conn, i->name), g);
	} else if (st->terse) {
		printf("%s\n", i->name);
	} else {
		if (!st->n)
			table_header();
		table_row(i, g);
	}
	st->n++;
	return 0;
}

static int do_list(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct list_state st = { .conn = conn, .terse = a->terse };
	struct kb_ioc_info i;
	int ret;

	ret = bfctl_want_pos(a, 0, 1, "list [NAME] [-t] [-j]");
	if (!ret && a->terse && bfctl_json)
		ret = bfctl_usage(a->verb, "%s",
				  "-t (names only) and -j (JSON) exclude each other");
	if (!ret && a->npos)
		ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	if (a->npos) {
		ret = kbconn_info(conn, a->pos[0], &i);
		if (ret)
			return bfctl_fail_err(conn,
				bfctl_verb_name("list", a->pos[0]), ret);
	}
	/*
	 * kbconn_list() calls list_one() only once the dump is complete, and
	 * the JSON document begins with the first filter: a failed list
	 * prints nothing, not an empty list that looks like an answer.
	 */
	if (a->npos)
		list_one(&i, &st);
	else
		ret = kbconn_list(conn, list_one, &st);
	if (ret)
		return bfctl_fail_err(conn, "list", ret);
	if (bfctl_json) {
		list_json_open(&st);
		bfctl_json_close_arr();
		bfctl_json_close_obj();
		bfctl_json_end();
	}
	return BFCTL_OK;
}

static int do_info(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kb_ioc_info i;
	char est[24], why[128], gb[64];
	enum bfctl_kf kf;
	u32 g[2];
	s64 exc;
	int ret;

	ret = bfctl_want_pos(a, 1, 1, "info NAME [-j]");
	if (!ret)
		ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	ret = kbconn_info(conn, a->pos[0], &i);
	if (ret)
		return bfctl_fail_err(conn, bfctl_verb_name("info", a->pos[0]),
				      ret);
	kf = bfctl_kfuncs_state(why, sizeof(why));
	exc = exc_count(conn, a->pos[0]);
	bfctl_grants_get(conn, a->pos[0], &g[0], &g[1]);
	if (bfctl_json) {
		json_info(&i, kf, why, exc, g);
		bfctl_json_end();
		return BFCTL_OK;
	}
	printf("name: %s\nid: %llu\nkind: %s\nkey type: %s\nhash: %s\n",
	       i.name, (unsigned long long)i.id, kb_kind_name(i.kind), kb_key_type_name(i.key_type),
	       kb_hash_name(i.hash));
	printf("bytes: %llu\nm: %llu\nk: %u\n", (unsigned long long)i.bytes,
	       (unsigned long long)i.m, i.k);
	printf("configured items: %llu\nconfigured fpr: %.9g\nexpected fpr at items: %.9g\n",
	       (unsigned long long)i.items, ppb(i.fpr_ppb),
	       ppb(i.expected_fpr_ppb));
	printf("keys added (count): %llu\nbits set: %llu\nfill: %.4f%%\n",
	       (unsigned long long)i.count, (unsigned long long)i.bits_set,
	       i.fill_ppm / 1e4);
	printf("estimated items: %s\nestimated fpr: %.9g\n",
	       est_text(i.est_items, est, sizeof(est)), ppb(i.est_fpr_ppb));
	if (kb_key_type_is_net(i.key_type))
		printf("prefix lengths per lookup: %u\n", i.prefixes);
	printf("over capacity: %s\n", i.over_capacity ? "yes" : "no");
	if (i.max_fpr_ppb)
		printf("max fpr (packet-path adds): %.9g\nlearn refused: %llu\n",
		       ppb(i.max_fpr_ppb),
		       (unsigned long long)i.learn_refused);
	printf("lookups: %llu\nmaybe present: %llu\nadds: %llu\ngeneration: %llu\nconsumer references: %u\n",
	       (unsigned long long)i.lookups, (unsigned long long)i.hits,
	       (unsigned long long)i.adds, (unsigned long long)i.generation,
	       i.refs);
	bfctl_slices_print(&i);
	if (exc >= 0)
		printf("exceptions: %lld\n", (long long)exc);
	if (g[0] != KB_GID_NONE)
		printf("readers: %s\n", bfctl_group_text(g[0], gb, sizeof(gb)));
	if (g[1] != KB_GID_NONE)
		printf("writers: %s\n", bfctl_group_text(g[1], gb, sizeof(gb)));
	kfuncs_print(kf, why);
	return BFCTL_OK;
}

/* ---- monitor, version ---- */

static int print_event(const struct kbnl_event *e, void *arg)
{
	(void)arg;
	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("event", e->what);
		bfctl_json_str("name", e->name);
		if (e->name2[0])
			bfctl_json_str("name2", e->name2);
		bfctl_json_close_obj();
		bfctl_json_end();	/* one document per line: a stream */
	} else {
		printf("%s %s%s%s\n", e->what, e->name, e->name2[0] ? " " : "",
		       e->name2);
		fflush(stdout);
	}
	return 0;
}

static int do_monitor(struct kbconn *conn, struct bfctl_kargs *a)
{
	int ret = bfctl_want_pos(a, 0, 0, "monitor [-j]");

	if (ret)
		return ret;
	if (!conn->nl)
		return bfctl_fail_err(conn, "monitor", kbconn_no_nl(conn));
	ret = kbnl_monitor(conn->nl, print_event, NULL, conn->extack,
			   sizeof(conn->extack));
	return ret ? bfctl_fail_err(conn, "monitor", ret) : BFCTL_OK;
}

static int do_version(struct kbconn *conn, struct bfctl_kargs *a)
{
	char buf[64], why[128];
	enum bfctl_kf kf = bfctl_kfuncs_state(why, sizeof(why));

	(void)a;
	read_line("/sys/module/kbloom/version", buf, sizeof(buf));
	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("bfctl", BFCTL_VERSION);
		if (buf[0])
			bfctl_json_str("module", buf);
		bfctl_json_str("transport", conn->nl ? "netlink" : "none");
		kfuncs_json(kf, why);
		bfctl_json_close_obj();
		bfctl_json_end();
		return BFCTL_OK;
	}
	printf("bfctl %s\nkbloom module %s\ncontrol transport %s\n",
	       BFCTL_VERSION, buf[0] ? buf : "not loaded",
	       conn->nl ? "netlink" : "none (no netlink family)");
	kfuncs_print(kf, why);
	return BFCTL_OK;
}

static const struct {
	const char *verb;
	int (*fn)(struct kbconn *conn, struct bfctl_kargs *a);
	u32 opts;	/* the option classes it takes besides KO_GLOBAL */
} kverbs[] = {
	{ "create", do_create, KO_SPEC | KO_EXIST | KO_GRANT | KO_SHAPE | KO_MAXFPR },
	{ "destroy", do_names, KO_FORCE },
	{ "flush", do_names, 0 },
	{ "swap", do_names, 0 },
	{ "rename", do_names, 0 },
	{ "list", do_list, KO_TERSE | KO_JSON },
	{ "info", do_info, KO_JSON },
	{ "add", bfctl_do_add, KO_EXIST | KO_FILE | KO_FORCE | KO_KEYFMT | KO_JSON },
	{ "del", bfctl_do_del, KO_EXIST | KO_KEYFMT | KO_JSON },
	{ "test", bfctl_do_test, KO_KEYFMT | KO_JSON },
	{ "test-and-add", bfctl_do_test_and_add, KO_KEYFMT | KO_JSON },
	{ "grant", bfctl_do_grant, KO_GRANT },
	{ "except", bfctl_do_except, KO_EXIST | KO_FILE | KO_KEYFMT | KO_JSON },
	{ "rebuild", bfctl_do_rebuild,
	  KO_FILE | KO_SPEC | KO_KIND | KO_FORCE | KO_KEYFMT },
	{ "upload", bfctl_do_upload, KO_FORCE | KO_MAXFPR },
	{ "export", bfctl_do_export, KO_OUT },
	{ "monitor", do_monitor, KO_JSON },
	{ "version", do_version, KO_JSON },
};

int bfctl_kernel_main(int argc, char **argv)
{
	struct kbconn conn;
	struct bfctl_kargs a;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(kverbs); i++)
		if (!strcmp(argv[0], kverbs[i].verb))
			break;
	if (i == ARRAY_SIZE(kverbs))
		return BFCTL_USAGE;
	ret = bfctl_kargs_parse(argc, argv, &a, KO_GLOBAL | kverbs[i].opts);
	if (ret)
		return ret;
	/* bfctl -j VERB: a verb without JSON output would ignore it */
	if (bfctl_json && !(kverbs[i].opts & KO_JSON))
		return bfctl_usage(a.verb, "option '%s' is not allowed here",
				   "-j");
	kbconn_init(&conn);
	ret = kverbs[i].fn(&conn, &a);
	kbconn_close(&conn);
	return ret;
}
