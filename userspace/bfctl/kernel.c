// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl verbs that talk to the kbloom module: create, destroy, list, info,
 * add, del, test, test-and-add, swap, rename, flush, rebuild, upload,
 * export, monitor, version.  Options follow ipset's habits (-exist, -file,
 * -t) and may appear anywhere; "--" ends them (for keys starting with '-').
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kbnl.h"
#include "kverbs.h"

/* ---- create ---- */

static int do_create(struct bfctl_conn *conn, struct kargs *a)
{
	struct kb_ioc_create c;
	int ret;

	ret = create_request(a, &c);
	if (ret)
		return ret;
	ret = bfc_create(conn, &c);
	if (ret == -EEXIST && a->exist)
		return BFCTL_OK;
	if (ret)
		return bfc_fail(conn, what2("create", a->pos[0]), ret);
	return BFCTL_OK;
}

/* ---- destroy, flush, swap, rename ---- */

static int do_names(struct bfctl_conn *conn, struct kargs *a)
{
	const char *v = a->verb;
	bool two = !strcmp(v, "swap") || !strcmp(v, "rename");
	char what[96];
	int ret;

	ret = want_pos(a, two ? 2 : 1, two ? 2 : 1,
		       two ? (!strcmp(v, "swap") ? "swap A B" : "rename OLD NEW") :
		       (!strcmp(v, "flush") ? "flush NAME" : "destroy NAME"));
	if (!ret)
		ret = check_name(a, a->pos[0]);
	if (!ret && two)
		ret = check_name(a, a->pos[1]);
	if (ret)
		return ret;
	if (!strcmp(v, "destroy"))
		ret = bfc_destroy(conn, a->pos[0]);
	else if (!strcmp(v, "flush"))
		ret = bfc_flush(conn, a->pos[0]);
	else if (!strcmp(v, "swap"))
		ret = bfc_swap(conn, a->pos[0], a->pos[1]);
	else
		ret = bfc_rename(conn, a->pos[0], a->pos[1]);
	if (!ret)
		return BFCTL_OK;
	if (two)
		snprintf(what, sizeof(what), "%s %s %s", v, a->pos[0], a->pos[1]);
	else
		snprintf(what, sizeof(what), "%s %s", v, a->pos[0]);
	return bfc_fail(conn, what, ret);
}

/* ---- list, info ---- */

static double ppb(u32 v)
{
	return v / 1e9;
}

static void json_info(const struct kb_ioc_info *i)
{
	jw_open_obj(NULL);
	jw_str("name", i->name);
	jw_str("kind", kb_kind_name(i->kind));
	jw_str("key_type", kb_key_type_name(i->key_type));
	jw_str("hash", kb_hash_name(i->hash));
	jw_u64("bytes", i->bytes);
	jw_u64("m", i->m);
	jw_u64("k", i->k);
	jw_u64("items", i->items);
	jw_double("fpr", ppb(i->fpr_ppb));
	jw_double("expected_fpr", ppb(i->expected_fpr_ppb));
	jw_u64("count", i->count);
	jw_u64("bits_set", i->bits_set);
	jw_double("fill", i->fill_ppm / 1e6);
	jw_u64("est_items", i->est_items);
	jw_double("est_fpr", ppb(i->est_fpr_ppb));
	jw_bool("over_capacity", i->over_capacity);
	jw_u64("lookups", i->lookups);
	jw_u64("hits", i->hits);
	jw_u64("adds", i->adds);
	jw_u64("generation", i->generation);
	jw_u64("refs", i->refs);
	jw_close_obj();
}

static void table_header(void)
{
	printf("%-20s %-8s %-6s %-7s %12s %2s %10s %8s %6s %10s %8s\n",
	       "NAME", "KIND", "KEYS", "HASH", "BYTES", "K", "ITEMS", "FPR",
	       "FILL", "EST-ITEMS", "EST-FPR");
}

static void table_row(const struct kb_ioc_info *i)
{
	printf("%-20s %-8s %-6s %-7s %12llu %2u %10llu %8.2g %5.1f%% %10llu %8.2g%s\n",
	       i->name, kb_kind_name(i->kind), kb_key_type_name(i->key_type),
	       kb_hash_name(i->hash), (unsigned long long)i->bytes, i->k,
	       (unsigned long long)i->items, ppb(i->fpr_ppb),
	       i->fill_ppm / 1e4, (unsigned long long)i->est_items,
	       ppb(i->est_fpr_ppb), i->over_capacity ? " OVER" : "");
}

struct list_state {
	bool terse;
	u64 n;
};

static int list_one(const struct kb_ioc_info *i, void *arg)
{
	struct list_state *st = arg;

	if (bfctl_json) {
		json_info(i);
	} else if (st->terse) {
		printf("%s\n", i->name);
	} else {
		if (!st->n)
			table_header();
		table_row(i);
	}
	st->n++;
	return 0;
}

static int do_list(struct bfctl_conn *conn, struct kargs *a)
{
	struct list_state st = { .terse = a->terse };
	struct kb_ioc_info i;
	int ret;

	ret = want_pos(a, 0, 1, "list [NAME] [-t] [-j]");
	if (!ret && a->npos)
		ret = check_name(a, a->pos[0]);
	if (ret)
		return ret;
	if (a->npos) {
		ret = bfc_info(conn, a->pos[0], &i);
		if (ret)
			return bfc_fail(conn, what2("list", a->pos[0]), ret);
	}
	if (bfctl_json) {
		jw_open_obj(NULL);
		jw_open_arr("filters");
	}
	if (a->npos)
		list_one(&i, &st);
	else
		ret = bfc_list(conn, list_one, &st);
	if (bfctl_json) {
		jw_close_arr();
		jw_close_obj();
		jw_end();
	}
	if (ret)
		return bfc_fail(conn, "list", ret);
	return BFCTL_OK;
}

static int do_info(struct bfctl_conn *conn, struct kargs *a)
{
	struct kb_ioc_info i;
	int ret;

	ret = want_pos(a, 1, 1, "info NAME [-j]");
	if (!ret)
		ret = check_name(a, a->pos[0]);
	if (ret)
		return ret;
	ret = bfc_info(conn, a->pos[0], &i);
	if (ret)
		return bfc_fail(conn, what2("info", a->pos[0]), ret);
	if (bfctl_json) {
		json_info(&i);
		jw_end();
		return BFCTL_OK;
	}
	printf("name: %s\nkind: %s\nkey type: %s\nhash: %s\n", i.name,
	       kb_kind_name(i.kind), kb_key_type_name(i.key_type),
	       kb_hash_name(i.hash));
	printf("bytes: %llu\nm: %llu\nk: %u\n", (unsigned long long)i.bytes,
	       (unsigned long long)i.m, i.k);
	printf("configured items: %llu\nconfigured fpr: %.9g\nexpected fpr at items: %.9g\n",
	       (unsigned long long)i.items, ppb(i.fpr_ppb),
	       ppb(i.expected_fpr_ppb));
	printf("keys added (count): %llu\nbits set: %llu\nfill: %.4f%%\n",
	       (unsigned long long)i.count, (unsigned long long)i.bits_set,
	       i.fill_ppm / 1e4);
	printf("estimated items: %llu\nestimated fpr: %.9g\nover capacity: %s\n",
	       (unsigned long long)i.est_items, ppb(i.est_fpr_ppb),
	       i.over_capacity ? "yes" : "no");
	printf("lookups: %llu\nmaybe present: %llu\nadds: %llu\ngeneration: %llu\nconsumer references: %u\n",
	       (unsigned long long)i.lookups, (unsigned long long)i.hits,
	       (unsigned long long)i.adds, (unsigned long long)i.generation,
	       i.refs);
	return BFCTL_OK;
}

/* ---- add, del, test, test-and-add ---- */

static bool bit(const u64 *bm, u64 i)
{
	return bm[i / 64] >> (i % 64) & 1;
}

/* keys from argv: parse them all first so a bad one changes nothing */
static int argv_keys(struct kargs *a, u32 key_type, struct bfk_batch *b)
{
	const char *why;
	int i;

	if (bfk_init(b, (u64)a->npos, (u64)a->npos * (KB_KEY_MAX_LEN + 3)))
		return bfctl_fail(BFCTL_ERR, a->verb, "%s", strerror(ENOMEM));
	for (i = 1; i < a->npos; i++) {
		if (bfk_push_text(b, key_type, a->pos[i], strlen(a->pos[i]),
				  (u64)i, &why)) {
			fprintf(stderr, "bfctl: %s %s: key %d '%s': %s (key type %s)\n",
				a->verb, a->pos[0], i, a->pos[i], why,
				kb_key_type_name(key_type));
			bfk_free(b);
			return BFCTL_USAGE;
		}
	}
	return BFCTL_OK;
}

static bool is_net_type(u32 key_type)
{
	return key_type == KB_KEY_NET4 || key_type == KB_KEY_NET6 ||
	       key_type == KB_KEY_NET;
}

/*
 * test on a net filter: an address is present if one of its prefixes the
 * filter holds is (what an iptables rule sees); res as for bfc_keys().
 */
static int test_prefixes(struct bfctl_conn *conn, const char *name,
			 const struct kb_ioc_info *info,
			 const struct bfk_batch *b, u64 *res)
{
	struct kb_params held = {
		.plen4 = info->plen4,
		.plen6 = { info->plen6[0], info->plen6[1], info->plen6[2] },
	};
	u64 *xres, done = 0, bad = ~0ULL, j;
	struct bfk_batch x;
	int ret;

	if (bfk_expand_prefixes(b, &held, &x))
		return -ENOMEM;
	xres = calloc((x.count + 63) / 64, sizeof(u64));
	ret = xres ? 0 : -ENOMEM;
	if (!ret && x.count)
		ret = bfc_keys(conn, KB_IOC_TEST, name, x.buf, x.len, x.count,
			       xres, &done, &bad);
	for (j = 0; !ret && j < x.count; j++)
		if (bit(xres, j))
			res[x.line[j] / 64] |= 1ULL << (x.line[j] % 64);
	free(xres);
	bfk_free(&x);
	return ret;
}

static int do_keys(struct bfctl_conn *conn, struct kargs *a)
{
	const char *v = a->verb;
	bool is_add = !strcmp(v, "add"), is_test = !strcmp(v, "test");
	bool is_del = !strcmp(v, "del");
	unsigned long cmd = is_test ? KB_IOC_TEST : is_del ? KB_IOC_DEL :
			    KB_IOC_TEST_ADD;
	struct kb_ioc_info info;
	struct bfk_batch b;
	u64 *res, done = 0, bad = ~0ULL, i, miss = 0;
	char key[1100];
	int ret, fd;

	if (is_add && a->file)
		ret = want_pos(a, 1, 1, "add NAME -file FILE");
	else
		ret = want_pos(a, 2, -1, is_add ? "add NAME KEY... [-exist] | add NAME -file FILE" :
			       is_test ? "test NAME KEY... [-j] [-q]" :
			       is_del ? "del NAME KEY... [-exist]" :
			       "test-and-add NAME KEY...");
	if (!ret)
		ret = check_name(a, a->pos[0]);
	if (ret)
		return ret;
	/* the key type decides how the keys' text is read */
	ret = bfc_info(conn, a->pos[0], &info);
	if (ret)
		return bfc_fail(conn, what2(v, a->pos[0]), ret);
	fd = bfc_dev(conn);
	if (fd < 0)
		return bfc_fail(conn, "open " KBDEV_PATH, fd);
	if (is_add && a->file)
		return add_file(conn, "add", a->pos[0], info.key_type, a->file,
				0, NULL);
	ret = argv_keys(a, info.key_type, &b);
	if (ret)
		return ret;
	res = calloc((b.count + 63) / 64, sizeof(u64));
	if (!res) {
		bfk_free(&b);
		return bfctl_fail(BFCTL_ERR, v, "%s", strerror(ENOMEM));
	}
	if (is_test && is_net_type(info.key_type))
		ret = test_prefixes(conn, a->pos[0], &info, &b, res);
	else
		ret = bfc_keys(conn, cmd, a->pos[0], b.buf, b.len, b.count,
			       res, &done, &bad);
	if (ret) {
		/* without the kernel's own words, say what we know */
		if (!conn->extack[0] && ret == -EINVAL && bad < b.count)
			snprintf(conn->extack, sizeof(conn->extack),
				 "key %llu '%s' refused",
				 (unsigned long long)b.line[bad], a->pos[b.line[bad]]);
		else if (!conn->extack[0] && ret == -EOPNOTSUPP && is_del)
			snprintf(conn->extack, sizeof(conn->extack),
				 "delete needs a counting filter");
		ret = bfc_fail(conn, what2(v, a->pos[0]), ret);
		goto out;
	}
	if (bfctl_json) {
		jw_open_obj(NULL);
		jw_str("filter", a->pos[0]);
		jw_open_arr("keys");
	}
	for (i = 0; i < b.count; i++) {
		bool set = bit(res, i);
		const char *text = a->pos[b.line[i]];

		miss += !set;
		if (bfctl_json) {
			jw_open_obj(NULL);
			jw_str("key", text);
			jw_bool(is_test ? "present" : is_del ? "deleted" : "new", set);
			jw_close_obj();
			continue;
		}
		if (bfctl_quiet)
			continue;
		snprintf(key, sizeof(key), "%s", text);
		if (is_test)
			printf("%s: %s\n", key, set ? "maybe present" : "absent");
		else if (is_del && !set && !a->exist)
			fprintf(stderr, "bfctl: del %s: %s: absent, nothing deleted\n",
				a->pos[0], key);
		else if (!is_add && !is_del && set)
			printf("%s\n", key);	/* test-and-add: the new ones */
		else if (is_add && !set && !a->exist)
			fprintf(stderr, "bfctl: add %s: %s: already (maybe) present\n",
				a->pos[0], key);
	}
	if (bfctl_json) {
		jw_close_arr();
		if (is_test)
			jw_bool("all_present", !miss);
		jw_close_obj();
		jw_end();
	}
	ret = BFCTL_OK;
	if ((is_test || (is_del && !a->exist)) && miss)
		ret = BFCTL_ABSENT;
out:
	free(res);
	bfk_free(&b);
	return ret;
}

/* ---- monitor, version ---- */

static int print_event(const struct kbnl_event *e, void *arg)
{
	(void)arg;
	if (bfctl_json) {
		jw_open_obj(NULL);
		jw_str("event", e->what);
		jw_str("name", e->name);
		if (e->name2[0])
			jw_str("name2", e->name2);
		jw_close_obj();
		jw_end();	/* one document per line: a stream */
	} else {
		printf("%s %s%s%s\n", e->what, e->name, e->name2[0] ? " " : "",
		       e->name2);
		fflush(stdout);
	}
	return 0;
}

static int do_monitor(struct bfctl_conn *conn, struct kargs *a)
{
	int ret = want_pos(a, 0, 0, "monitor [-j]");

	if (ret)
		return ret;
	if (!conn->nl)
		return bfctl_fail(BFCTL_ERR, "monitor", "%s",
				  access("/sys/module/kbloom", F_OK) ?
				  "the kbloom module is not loaded" :
				  "the kbloom netlink family is not available");
	ret = kbnl_monitor(conn->nl, print_event, NULL, conn->extack,
			   sizeof(conn->extack));
	return ret ? bfc_fail(conn, "monitor", ret) : BFCTL_OK;
}

static int do_version(struct bfctl_conn *conn, struct kargs *a)
{
	char buf[64] = "";
	FILE *f = fopen("/sys/module/kbloom/version", "r");

	(void)a;
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		buf[strcspn(buf, "\n")] = 0;
	}
	printf("bfctl %s\nkbloom module %s\ncontrol transport %s\n",
	       BFCTL_VERSION, buf[0] ? buf : "not loaded",
	       conn->nl ? "netlink" : "ioctl");
	return BFCTL_OK;
}

static const struct {
	const char *verb;
	int (*fn)(struct bfctl_conn *conn, struct kargs *a);
	u32 opts;	/* the option classes it takes besides KO_GLOBAL */
} kverbs[] = {
	{ "create", do_create, KO_SPEC | KO_EXIST },
	{ "destroy", do_names, 0 },
	{ "flush", do_names, 0 },
	{ "swap", do_names, 0 },
	{ "rename", do_names, 0 },
	{ "list", do_list, KO_TERSE },
	{ "info", do_info, KO_TERSE },
	{ "add", do_keys, KO_EXIST | KO_FILE },
	{ "del", do_keys, KO_EXIST },
	{ "test", do_keys, 0 },
	{ "test-and-add", do_keys, 0 },
	{ "rebuild", do_rebuild, KO_FILE | KO_SPEC | KO_KIND },
	{ "upload", do_upload, 0 },
	{ "export", do_export, KO_OUT },
	{ "monitor", do_monitor, 0 },
	{ "version", do_version, 0 },
};

int bfctl_kernel_main(int argc, char **argv)
{
	struct bfctl_conn conn;
	struct kargs a;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(kverbs); i++)
		if (!strcmp(argv[0], kverbs[i].verb))
			break;
	if (i == ARRAY_SIZE(kverbs))
		return BFCTL_USAGE;
	ret = kargs_parse(argc, argv, &a, KO_GLOBAL | kverbs[i].opts);
	if (ret)
		return ret;
	bfc_init(&conn);
	ret = kverbs[i].fn(&conn, &a);
	bfc_close(&conn);
	return ret;
}
