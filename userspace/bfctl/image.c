// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl image: offline filter images (no kernel module needed).
 *
 *   bfctl image build --kind K (--items N --fpr P | --bits-per-key B |
 *         --bits M --hashes K) [--items N] [--seed S[,S2]] [--hash H]
 *         [--key-format str|hex] [--key-type T] -file KEYS -o OUT.img
 *   bfctl image info IMG [-j]
 *   bfctl image test [--key-format str|hex] [-j] IMG KEY...
 *   bfctl image export --format leveldb|redis IMG [-o OUT]
 *   bfctl image import --format leveldb RAW -o OUT.img
 *   bfctl image import --format redis --bits B [--key-type T] RAW -o OUT.img
 *   bfctl image probes [--key-format str|hex] [-j] IMG KEY...
 *   bfctl image probes --kind K --bits M [--hashes K] [...] KEY...
 *
 * export and import are in image_foreign.c, probes in image_probes.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "image.h"

#define IMG_BATCH	4096

static void image_usage(FILE *f)
{
	fprintf(f,
		"usage:\n"
		"  bfctl image build --kind blocked|classic|counting|gozero\n"
		"        (--items N --fpr P | --bits-per-key B | --bits M --hashes K)\n"
		"        [--items N] [--seed S[,S2]] [--hash xxh64|siphash] [--prefixes L]\n"
		"        [--key-format str|hex] [--key-type T] -file KEYS -o OUT.img\n"
		"        (gozero: --bits M alone, k is 14)\n"
		"  bfctl image info IMG [-j]\n"
		"  bfctl image test [--key-format str|hex] [-j] IMG KEY...\n"
		"  bfctl image export --format leveldb|redis IMG [-o OUT]\n"
		"  bfctl image import --format leveldb RAW -o OUT.img\n"
		"  bfctl image import --format redis --bits M [--key-type T] RAW -o OUT.img\n"
		"  bfctl image probes [--key-format str|hex] [-j] IMG KEY...\n"
		"  bfctl image probes --kind K --bits M [--hashes K] [--seed S[,S2]]\n"
		"        [--hash H] [--key-type T] [--key-format str|hex] [-j] KEY...\n"
		"key types: bytes str ipv4 ipv6 ip net4 net6 net\n"
		"P is a fraction (0.01) or a percentage (1%%); KEYS has one key per line\n"
		"(bytes keys are hex, the other key types text, unless --key-format,\n"
		"as for every verb); - is stdin or stdout\n");
}

/* "image build" etc. while a verb runs: what failed, in messages */
static char image_what[32] = "image";

int bfctl_image_usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, "bfctl: %s: ", image_what);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	image_usage(stderr);
	return BFCTL_USAGE;
}

int bfctl_image_load(const char *path, struct bfctl_image_loaded *li)
{
	struct kb_params p;
	const void *payload;
	u64 plen;
	enum kb_img_err why;
	int ret;

	memset(li, 0, sizeof(*li));
	ret = kbu_read_file(path, &li->buf, &li->len);
	if (ret)
		return bfctl_fail(BFCTL_ERR, path, "%s", strerror(-ret));
	ret = kb_image_parse(li->buf, li->len, 0, &p, &payload, &plen,
			     &li->count, &why);
	if (ret) {
		free(li->buf);
		return bfctl_fail(BFCTL_ERR, path, "malformed image: %s",
				  kb_image_strerror(why));
	}
	ret = kb_filter_attach(&li->f, &p, (void *)payload, plen);
	if (ret) {
		free(li->buf);
		return bfctl_fail(BFCTL_ERR, path, "cannot attach filter: %s",
				  strerror(-ret));
	}
	return BFCTL_OK;
}

/* "-": stdout, as for export (the summary then goes to stderr) */
int bfctl_image_write(const char *out, const struct kb_filter *f, u64 count)
{
	int ret = kbu_write_image(out, f, count);

	if (ret)
		return bfctl_fail(BFCTL_ERR, out, "%s", strerror(-ret));
	return BFCTL_OK;
}

enum {
	OPT_KIND = 256, OPT_ITEMS, OPT_FPR, OPT_BPK, OPT_BITS, OPT_HASHES,
	OPT_SEED, OPT_KEYFMT, OPT_KEYTYPE, OPT_HASH, OPT_FILE, OPT_FORMAT,
	OPT_PREFIXES,
};

static const struct option image_opts[] = {
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "items", required_argument, NULL, OPT_ITEMS },
	{ "fpr", required_argument, NULL, OPT_FPR },
	{ "bits-per-key", required_argument, NULL, OPT_BPK },
	{ "bits", required_argument, NULL, OPT_BITS },
	{ "hashes", required_argument, NULL, OPT_HASHES },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "prefixes", required_argument, NULL, OPT_PREFIXES },
	{ "key-format", required_argument, NULL, OPT_KEYFMT },
	{ "key-type", required_argument, NULL, OPT_KEYTYPE },
	{ "hash", required_argument, NULL, OPT_HASH },
	{ "file", required_argument, NULL, OPT_FILE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* the class of image option c (IO_*), 0 for --help and the unknown */
static u32 image_opt_class(int c)
{
	switch (c) {
	case OPT_KEYFMT:
		return IO_KEYFMT;
	case OPT_FORMAT:
		return IO_FORMAT;
	case OPT_FILE:
		return IO_FILE;
	case 'o':
		return IO_OUT;
	case 'j':
		return IO_JSON;
	case 'h':
	case '?':
		return 0;
	default:
		return IO_BUILD;
	}
}


/*
 * parse the options of an image verb, which takes those of allowed (IO_*):
 * any other is a usage error, not ignored; positional args stay in argv
 */
int bfctl_image_args_parse(int argc, char **argv, struct bfctl_image_args *a,
			    u32 allowed)
{
	char msg[128];
	int c, idx;

	memset(a, 0, sizeof(*a));
	a->kind = KB_KIND_BLOCKED;
	a->key_fmt = -1;	/* bfctl_key_format(): by the key type */
	a->json = bfctl_json;	/* bfctl -j image info */
	bfctl_spec_opts_init(&a->s);
	optind = 1;
	opterr = 1;
	if (a->json && !(allowed & IO_JSON))
		return bfctl_image_usage_err("%s", "-j is not allowed here");
	if (bfctl_quiet && !(allowed & IO_QUIET))
		return bfctl_image_usage_err("%s", "-q is not allowed here");
	while ((idx = -1, c = getopt_long_only(argc, argv, "o:jh", image_opts,
					       &idx)) != -1) {
		if (image_opt_class(c) && !(allowed & image_opt_class(c))) {
			snprintf(msg, sizeof(msg), "%s%s", idx >= 0 ? "--" : "-",
				 idx >= 0 ? image_opts[idx].name :
				 c == 'o' ? "o" : "j");
			return bfctl_image_usage_err("option '%s' is not allowed here", msg);
		}
		switch (c) {
		case OPT_KIND:
			a->kind = kb_kind_from_name(optarg);
			if (a->kind < 0)
				return bfctl_image_usage_err("unknown kind '%s'", optarg);
			a->have_kind = true;
			break;
		case OPT_ITEMS:
		case OPT_FPR:
		case OPT_BPK:
		case OPT_BITS:
		case OPT_HASHES:
		case OPT_SEED:
		case OPT_PREFIXES:
		case OPT_KEYTYPE:
		case OPT_HASH:
			if (bfctl_spec_opt(&a->s, image_opts[idx].name, optarg,
					   msg, sizeof(msg)) < 0)
				return bfctl_image_usage_err("%s", msg);
			break;
		case OPT_KEYFMT:
			a->key_fmt = kbu_key_format_from_name(optarg);
			if (a->key_fmt < 0)
				return bfctl_image_usage_err("bad --key-format '%s'", optarg);
			break;
		case OPT_FILE:
			a->file = optarg;
			break;
		case OPT_FORMAT:
			a->format = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'j':
			a->json = true;
			break;
		case 'h':
			image_usage(stdout);
			exit(BFCTL_OK);
		default:
			image_usage(stderr);
			return BFCTL_USAGE;
		}
	}
	return BFCTL_OK;
}

int bfctl_image_hash_seed(struct kb_params *p,
			  const struct bfctl_image_args *a)
{
	if (a->s.hash >= 0)
		p->hash = (u32)a->s.hash;
	/* classic and gozero: one hash, no seed (kb_kind_default_hash()) */
	if (p->kind == KB_KIND_CLASSIC || p->kind == KB_KIND_GOZERO) {
		if (p->hash != kb_kind_default_hash(p->kind))
			return bfctl_image_usage_err("--hash: %s filters have one hash",
					 kb_kind_name(p->kind));
		if (a->s.seed_parts)
			return bfctl_image_usage_err("--seed: %s filters have no seed",
					 kb_kind_name(p->kind));
		return BFCTL_OK;
	}
	if (!kb_kind_hash_ok(p->kind, p->hash))
		return bfctl_image_usage_err("--hash: %s is not for this kind",
				 kb_hash_name(p->hash));
	if (a->s.seed_parts) {
		if (p->hash == KB_HASH_XXH64 && a->s.seed_parts > 1)
			return bfctl_image_usage_err("%s: xxh64 takes one 64-bit seed",
					 "--seed");
		p->seed[0] = a->s.seed[0];
		p->seed[1] = p->hash == KB_HASH_SIPHASH ? a->s.seed[1] : 0;
	} else {
		if (kbu_random(p->seed, sizeof(p->seed)))
			return bfctl_fail(BFCTL_ERR, "getrandom", "%s",
					  strerror(errno));
		if (p->hash == KB_HASH_XXH64)
			p->seed[1] = 0;
	}
	return BFCTL_OK;
}

const char *bfctl_image_sizing_err(int err)
{
	switch (err) {
	case -E2BIG:
		return "filter too big";
	case -ERANGE:
		return "false-positive rate not reachable";
	default:
		return "invalid sizing parameters";
	}
}

/*
 * The largest payload image build (and import) makes: the module's max_filter_bytes
 * (its parameter when the module is loaded, else its default), since no
 * bigger image can ever be loaded, and this machine's physical memory,
 * since the payload is held whole while keys go in.  Checked from the
 * options alone, before the key file is read or anything allocated, so
 * that a typo in --items is refused at once with what it would cost
 * instead of ending in the OOM killer or swap.
 */
int bfctl_image_size_check(const struct bfctl_image_args *a, u32 kind,
			    u64 n)
{
	struct kb_ioc_create c = { .kind = kind };
	u64 max = bfctl_module_param("max_filter_bytes",
				     BFCTL_DEF_MAX_FILTER_BYTES);
	u64 mem = bfctl_phys_mem();

	c.items = a->s.have_items ? a->s.items : n;
	if (a->s.have_fpr) {
		c.sizing = KB_SIZING_FPR;
		c.fpr_ppb = a->s.fpr_ppb;
	} else if (a->s.have_bpk) {
		c.sizing = KB_SIZING_BPK;
		c.bits_per_key = (u32)a->s.bpk;
	} else {
		c.sizing = KB_SIZING_MK;
		c.m = a->s.bits;
		c.k = bfctl_image_mk_hashes(a);
	}
	/* the kind's own hash: only sizes matter here */
	c.hash = kb_kind_default_hash(kind);
	if (mem < max)
		return bfctl_size_refuse(&c, mem, "this machine's memory",
					 BFCTL_USAGE, image_what);
	return bfctl_size_refuse(&c, max, "the module's max_filter_bytes",
				 BFCTL_USAGE, image_what);
}

/* gozero's k is fixed: --bits alone, or --hashes 14 */
u32 bfctl_image_mk_hashes(const struct bfctl_image_args *a)
{
	return a->kind == KB_KIND_GOZERO && !a->s.have_hashes ?
		KB_GOZERO_K : (u32)a->s.hashes;
}

/* exactly one sizing mode */
int bfctl_image_check_modes(const struct bfctl_image_args *a)
{
	int modes = a->s.have_fpr + a->s.have_bpk +
		    (a->s.have_bits || a->s.have_hashes);
	bool gz = a->kind == KB_KIND_GOZERO;

	if (modes != 1 || (!gz && a->s.have_bits != a->s.have_hashes) ||
	    (gz && !a->s.have_bits && a->s.have_hashes))
		return bfctl_image_usage_err("%s", gz ?
				 "give one of --items N --fpr P, --bits-per-key B, --bits M" :
				 "give one of --items N --fpr P, --bits-per-key B, --bits M --hashes K");
	if (gz && a->s.have_hashes && a->s.hashes != KB_GOZERO_K)
		return bfctl_image_usage_err("%s", "--hashes: gozero filters have 14");
	return BFCTL_OK;
}

/*
 * The prefix lengths to size a net filter's lookups for: those the keys
 * hold, or more if --prefixes says so (keys added later); at least 1
 */
static u32 keys_nplens(const struct kbu_keyset *ks, u32 key_type, u32 given)
{
	struct kb_params p = { .key_type = key_type };
	u64 i;
	u32 l;

	for (i = 0; i < ks->n; i++)
		kb_params_note_prefix(&p, ks->keys[i].data, ks->keys[i].len);
	l = kb_params_nplens(&p);
	l = l > given ? l : given;
	return l ? l : 1;
}

static int cmd_build(int argc, char **argv)
{
	struct bfctl_image_args a;
	struct kbu_keyset ks;
	struct kb_params p;
	struct kb_filter f;
	char err[512];
	u64 i, n_new = 0;
	void *pl;
	int ret;

	ret = bfctl_image_args_parse(argc, argv, &a,
			       IO_BUILD | IO_FILE | IO_KEYFMT | IO_OUT | IO_QUIET);
	if (ret)
		return ret;
	if (optind != argc)
		return bfctl_image_usage_err("unexpected argument '%s'", argv[optind]);
	if (!a.file || !a.out)
		return bfctl_image_usage_err("%s", "build needs -file KEYS and -o OUT.img");
	ret = bfctl_image_check_modes(&a);
	if (ret)
		return ret;
	kb_params_init(&p, (u32)a.kind);
	p.key_type = a.s.key_type >= 0 ? (u32)a.s.key_type : KB_KEY_BYTES;
	if (a.s.prefixes && (!a.s.have_fpr || !kb_key_type_is_net(p.key_type)))
		return bfctl_image_usage_err("%s", "--prefixes is for the net key types (net4, net6, net) sized by --fpr");
	ret = bfctl_image_hash_seed(&p, &a);
	if (ret)
		return ret;
	/* sized by the options alone: refused before the keys are read */
	if (a.s.have_items || a.s.have_bits) {
		ret = bfctl_image_size_check(&a, p.kind, 0);
		if (ret)
			return ret;
	}

	ret = kbu_keyset_load(&ks, a.file, p.key_type,
			      bfctl_key_format(a.key_fmt, p.key_type), err,
			      sizeof(err));
	if (ret) {
		fprintf(stderr, "bfctl: %s\n", err);
		/* a bad line (-EINVAL) is bad input, as a bad key given */
		return ret == -EINVAL ? BFCTL_USAGE : BFCTL_ERR;
	}
	/* sized by the key count: refused before the payload is allocated */
	if (!a.s.have_items && !a.s.have_bits) {
		ret = bfctl_image_size_check(&a, p.kind, ks.n);
		if (ret) {
			kbu_keyset_free(&ks);
			return ret;
		}
	}
	if (a.s.have_fpr)
		ret = kb_params_from_fpr_plens(&p, a.s.have_items ? a.s.items :
					       ks.n, a.s.fpr_ppb,
					       keys_nplens(&ks, p.key_type,
							   a.s.prefixes), 0);
	else if (a.s.have_bpk)
		ret = kb_params_from_bpk(&p, a.s.have_items ? a.s.items : ks.n,
					 (u32)a.s.bpk, 0);
	else {
		p.items = a.s.items;
		ret = kb_params_from_mk(&p, a.s.bits, bfctl_image_mk_hashes(&a), 0);
	}
	if (ret) {
		kbu_keyset_free(&ks);
		return bfctl_fail(BFCTL_USAGE, "image build", "%s",
				  bfctl_image_sizing_err(ret));
	}
	pl = kbu_alloc_payload(kb_params_payload_bytes(&p));
	if (!pl) {
		kbu_keyset_free(&ks);
		return bfctl_fail(BFCTL_ERR, "image build", "out of memory");
	}
	ret = kb_filter_init(&f, &p, pl, kb_params_payload_bytes(&p));
	if (ret) {
		free(pl);
		kbu_keyset_free(&ks);
		return bfctl_fail(BFCTL_ERR, "image build", "%s",
				  strerror(-ret));
	}
	for (i = 0; i < ks.n; i++) {
		if (kb_params_note_prefix(&f.p, ks.keys[i].data,
					  ks.keys[i].len)) {
			free(pl);
			kbu_keyset_free(&ks);
			return bfctl_fail(BFCTL_ERR, a.file,
					  "key %llu invalid for key type %s",
					  (unsigned long long)i + 1,
					  kb_key_type_name(p.key_type));
		}
	}
	for (i = 0; i < ks.n; i += IMG_BATCH) {
		u32 c = ks.n - i < IMG_BATCH ? (u32)(ks.n - i) : IMG_BATCH;

		n_new += kb_filter_test_and_add_many(&f, ks.keys + i, c, NULL);
	}
	ret = bfctl_image_write(a.out, &f, n_new);
	if (!ret && !bfctl_quiet)
		fprintf(strcmp(a.out, "-") ? stdout : stderr,
			"%s: %s filter, m=%llu k=%u, %llu bytes, %llu keys (%llu new)\n",
		       a.out, kb_kind_name(p.kind), (unsigned long long)p.m,
		       p.k, (unsigned long long)kb_image_size(&p),
		       (unsigned long long)ks.n, (unsigned long long)n_new);
	free(pl);
	kbu_keyset_free(&ks);
	return ret;
}

static void list_plens(char *buf, size_t len, const struct kb_params *p,
		       u32 family, bool json)
{
	u32 max = family == 4 ? 32 : 128, i;
	size_t off = 0;

	buf[0] = 0;
	for (i = 0; i <= max && off + 8 < len; i++)
		if (kb_params_has_prefix(p, family, i))
			off += (size_t)snprintf(buf + off, len - off, "%s%u",
						off ? "," : "", i);
	if (!off && !json)
		snprintf(buf, len, "-");
}

static int cmd_info(int argc, char **argv)
{
	struct bfctl_image_args a;
	struct bfctl_image_loaded li;
	struct kb_stats st;
	const struct kb_params *p;
	char v4[512], v6[1024], est[24] = "null";
	int ret;

	ret = bfctl_image_args_parse(argc, argv, &a, IO_JSON);
	if (ret)
		return ret;
	if (optind + 1 != argc)
		return bfctl_image_usage_err("%s", "info needs exactly one IMG");
	ret = bfctl_image_load(argv[optind], &li);
	if (ret)
		return ret;
	p = &li.f.p;
	kb_filter_stats(&li.f, &st);
	list_plens(v4, sizeof(v4), p, 4, a.json);
	list_plens(v6, sizeof(v6), p, 6, a.json);
	if (a.json) {
		/* saturated (every bit set): null, not 2^64 - 1 */
		if (st.est_items != U64_MAX)
			snprintf(est, sizeof(est), "%llu",
				 (unsigned long long)st.est_items);
		printf("{\"kind\":\"%s\",\"key_type\":\"%s\",\"hash\":\"%s\","
		       "\"seed\":[\"0x%016llx\",\"0x%016llx\"],\"k\":%u,"
		       "\"m\":%llu,\"bytes\":%llu,\"image_bytes\":%zu,"
		       "\"items\":%llu,\"fpr_ppb\":%u,\"count\":%llu,"
		       "\"expected_fpr_ppb\":%u,\"bits_set\":%llu,"
		       "\"fill_ppm\":%u,\"est_items\":%s,\"est_fpr_ppb\":%u,"
		       "\"over_capacity\":%s,\"plen4\":[%s],\"plen6\":[%s]}\n",
		       kb_kind_name(p->kind), kb_key_type_name(p->key_type),
		       kb_hash_name(p->hash), (unsigned long long)p->seed[0],
		       (unsigned long long)p->seed[1], p->k,
		       (unsigned long long)p->m, (unsigned long long)st.bytes,
		       li.len, (unsigned long long)p->items, p->fpr_ppb,
		       (unsigned long long)li.count, st.expected_fpr_ppb,
		       (unsigned long long)st.bits_set, st.fill_ppm,
		       est, st.est_fpr_ppb,
		       st.over_capacity ? "true" : "false", v4, v6);
	} else {
		printf("kind:             %s\n", kb_kind_name(p->kind));
		printf("key type:         %s\n", kb_key_type_name(p->key_type));
		printf("hash:             %s\n", kb_hash_name(p->hash));
		printf("seed:             0x%016llx 0x%016llx\n",
		       (unsigned long long)p->seed[0],
		       (unsigned long long)p->seed[1]);
		printf("k:                %u\n", p->k);
		printf("m:                %llu %s\n", (unsigned long long)p->m,
		       p->kind == KB_KIND_COUNTING ? "counters" : "bits");
		printf("payload bytes:    %llu\n", (unsigned long long)st.bytes);
		printf("image bytes:      %zu\n", li.len);
		printf("items:            %llu\n", (unsigned long long)p->items);
		printf("target fpr:       %.9g\n", p->fpr_ppb / 1e9);
		printf("count:            %llu\n", (unsigned long long)li.count);
		printf("expected fpr:     %.9g\n", st.expected_fpr_ppb / 1e9);
		printf("bits set:         %llu\n",
		       (unsigned long long)st.bits_set);
		printf("fill:             %.6f\n", st.fill_ppm / 1e6);
		if (st.est_items == U64_MAX)
			printf("estimated items:  saturated\n");
		else
			printf("estimated items:  %llu\n",
			       (unsigned long long)st.est_items);
		printf("estimated fpr:    %.9g\n", st.est_fpr_ppb / 1e9);
		printf("over capacity:    %s\n", st.over_capacity ? "yes" : "no");
		printf("ipv4 prefixes:    %s\n", v4);
		printf("ipv6 prefixes:    %s\n", v6);
	}
	free(li.buf);
	return BFCTL_OK;
}

/*
 * An address (a host key) in a net filter is present if one of its
 * prefixes the filter holds is, as for `bfctl test` and iptables.
 */
static bool test_key(const struct kb_filter *f, const u8 *key, u32 len)
{
	u32 alen = len - 1;

	if (!kb_key_type_is_net(f->p.key_type) || key[alen] != alen * 8)
		return kb_filter_test(f, key, len);
	return kb_filter_test_prefixes(f, alen == 4 ? &f->p.plen4 : f->p.plen6,
				       alen, key);
}

static int cmd_test(int argc, char **argv)
{
	struct bfctl_image_args a;
	struct bfctl_image_loaded li;
	bool *keys;		/* keys[i]: argv[i] tested maybe present */
	int ret, i, rc = BFCTL_OK;

	ret = bfctl_image_args_parse(argc, argv, &a, IO_KEYFMT | IO_JSON | IO_QUIET);
	if (ret)
		return ret;
	if (optind + 2 > argc)
		return bfctl_image_usage_err("%s", "test needs IMG and at least one KEY");
	ret = bfctl_image_load(argv[optind], &li);
	if (ret)
		return ret;
	keys = calloc((size_t)argc, sizeof(*keys));
	if (!keys) {
		free(li.buf);
		return bfctl_fail(BFCTL_ERR, "image test", "out of memory");
	}
	for (i = optind + 1; i < argc; i++) {
		u8 key[KB_KEY_MAX_LEN + 1];
		const char *why;
		u32 len;

		if (kbu_key_parse(li.f.p.key_type,
				  bfctl_key_format(a.key_fmt, li.f.p.key_type),
				  argv[i], strlen(argv[i]), key, &len, &why)) {
			free(keys);
			free(li.buf);
			return bfctl_image_usage_err("bad key: %s", why);
		}
		keys[i] = test_key(&li.f, key, len);
		if (!keys[i])
			rc = BFCTL_ABSENT;
	}
	/* as bfctl test: -j one document, -q the exit status alone */
	if (a.json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("image", argv[optind]);
		bfctl_json_open_arr("keys");
	}
	for (i = optind + 1; i < argc; i++) {
		if (a.json) {
			bfctl_json_open_obj(NULL);
			bfctl_json_str("key", argv[i]);
			bfctl_json_bool("present", keys[i]);
			bfctl_json_close_obj();
		} else if (!bfctl_quiet) {
			printf("%s: %s\n", argv[i],	/* as bfctl test */
			       keys[i] ? "maybe present" : "absent");
		}
	}
	if (a.json) {
		bfctl_json_close_arr();
		bfctl_json_bool("all_present", rc == BFCTL_OK);
		bfctl_json_close_obj();
		bfctl_json_end();
	}
	free(keys);
	free(li.buf);
	return rc;
}

static const struct bfctl_verb image_verbs[] = {
	{ "build", cmd_build, "build an image from a key file",
	  "--kind KIND SIZE-OPTIONS [...] -file KEYS -o OUT.img" },
	{ "info", cmd_info, "show an image's parameters and statistics",
	  "IMG [-j]" },
	{ "test", cmd_test, "test keys against an image",
	  "[--key-format str|hex] [-j] IMG KEY..." },
	{ "export", bfctl_image_export,
	  "export a classic image as LevelDB bytes, a gozero one as its Redis value",
	  "--format leveldb|redis IMG [-o OUT]" },
	{ "import", bfctl_image_import,
	  "import LevelDB filter bytes or a go-zero Redis value as an image",
	  "--format leveldb RAW -o OUT.img | --format redis --bits M RAW -o OUT.img" },
	{ "probes", bfctl_image_probes, "print the probe positions of keys",
	  "[--key-format str|hex] [-j] IMG KEY... | --kind K --bits M [...] KEY..." },
};

int bfctl_image_main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		image_usage(stderr);
		return BFCTL_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		image_usage(stdout);
		return BFCTL_OK;
	}
	for (i = 0; i < sizeof(image_verbs) / sizeof(image_verbs[0]); i++)
		if (!strcmp(argv[1], image_verbs[i].name)) {
			/* image VERB --help: the image verbs' usage */
			if (argc > 2 && (!strcmp(argv[2], "-h") ||
					 !strcmp(argv[2], "--help"))) {
				image_usage(stdout);
				return BFCTL_OK;
			}
			snprintf(image_what, sizeof(image_what), "image %s",
				 image_verbs[i].name);
			return image_verbs[i].main(argc - 1, argv + 1);
		}
	return bfctl_image_usage_err("unknown image verb '%s'", argv[1]);
}
