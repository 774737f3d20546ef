// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel verbs' command line: options (ipset's habits: -exist, -file,
 * -t, anywhere; "--" ends them) and the create request they describe.  No
 * kernel access here, so restore's "create" lines and the fuzz targets
 * share it with `bfctl create`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"

enum {
	OPT_EXIST = 256, OPT_FILE, OPT_ITEMS, OPT_FPR, OPT_BPK, OPT_BITS,
	OPT_HASHES, OPT_KEYTYPE, OPT_HASH, OPT_SEED, OPT_KIND,
};

static const struct option kopts[] = {
	{ "exist", no_argument, NULL, OPT_EXIST },
	{ "file", required_argument, NULL, OPT_FILE },
	{ "output", required_argument, NULL, 'o' },
	{ "items", required_argument, NULL, OPT_ITEMS },
	{ "fpr", required_argument, NULL, OPT_FPR },
	{ "bits-per-key", required_argument, NULL, OPT_BPK },
	{ "bits", required_argument, NULL, OPT_BITS },
	{ "hashes", required_argument, NULL, OPT_HASHES },
	{ "key-type", required_argument, NULL, OPT_KEYTYPE },
	{ "hash", required_argument, NULL, OPT_HASH },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "json", no_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "terse", no_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* restore's create lines: the message goes here instead of stderr */
static char *kusage_buf;
static size_t kusage_len;

void kusage_capture(char *buf, size_t len)
{
	kusage_buf = buf;
	kusage_len = len;
}

int kusage(const char *verb, const char *fmt, const char *arg)
{
	if (kusage_buf) {
		snprintf(kusage_buf, kusage_len, fmt, arg);
		return BFCTL_USAGE;
	}
	fprintf(stderr, "bfctl: %s: ", verb);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see bfctl --help and bfctl(8))\n");
	return BFCTL_USAGE;
}

/* the options of a create request: all a restore "create" line takes */
static bool spec_opt(int c)
{
	return c == OPT_ITEMS || c == OPT_FPR || c == OPT_BPK || c == OPT_BITS ||
	       c == OPT_HASHES || c == OPT_KEYTYPE || c == OPT_HASH ||
	       c == OPT_SEED;
}

int kargs_parse(int argc, char **argv, struct kargs *a, bool spec_only)
{
	int c;

	memset(a, 0, sizeof(*a));
	a->verb = argv[0];
	a->key_type = -1;
	a->hash = -1;
	a->kind = -1;
	optind = 0;	/* full reset: restore parses many create lines */
	opterr = 0;
	while ((c = getopt_long_only(argc, argv, "o:jqth", kopts, NULL)) != -1) {
		if (spec_only && c != '?' && !spec_opt(c))
			return kusage(a->verb, "option '%s' is not allowed here",
				      argv[optind - 1]);
		switch (c) {
		case OPT_EXIST:
			a->exist = true;
			break;
		case OPT_FILE:
			a->file = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'j':
			bfctl_json = true;
			break;
		case 'q':
			bfctl_quiet = true;
			break;
		case 't':
			a->terse = true;
			break;
		case OPT_ITEMS:
			a->have_items = true;
			if (bfctl_parse_u64(optarg, &a->items))
				return kusage(a->verb, "bad --items '%s'", optarg);
			break;
		case OPT_FPR:
			a->have_fpr = true;
			if (bfctl_parse_fpr(optarg, &a->fpr_ppb))
				return kusage(a->verb, "bad --fpr '%s' (a fraction like 0.01 or 1%%)",
					      optarg);
			break;
		case OPT_BPK:
			a->have_bpk = true;
			if (bfctl_parse_u64(optarg, &a->bpk) || !a->bpk ||
			    a->bpk > KB_BPK_MAX)
				return kusage(a->verb, "bad --bits-per-key '%s'", optarg);
			break;
		case OPT_BITS:
			a->have_bits = true;
			if (bfctl_parse_u64(optarg, &a->bits))
				return kusage(a->verb, "bad --bits '%s'", optarg);
			break;
		case OPT_HASHES:
			a->have_hashes = true;
			if (bfctl_parse_u64(optarg, &a->hashes) ||
			    a->hashes > KB_K_MAX)
				return kusage(a->verb, "bad --hashes '%s'", optarg);
			break;
		case OPT_KEYTYPE:
			a->key_type = kb_key_type_from_name(optarg);
			if (a->key_type < 0)
				return kusage(a->verb, "unknown key type '%s'", optarg);
			break;
		case OPT_HASH:
			a->hash = kb_hash_from_name(optarg);
			if (a->hash < 0 || a->hash == KB_HASH_LEVELDB)
				return kusage(a->verb, "unknown hash '%s' (xxh64 or siphash)",
					      optarg);
			break;
		case OPT_SEED:
			if (bfctl_parse_seed(optarg, a->seed, &a->seed_parts))
				return kusage(a->verb, "bad --seed '%s'", optarg);
			break;
		case OPT_KIND:
			a->kind = kb_kind_from_name(optarg);
			if (a->kind < 0)
				return kusage(a->verb, "unknown kind '%s'", optarg);
			break;
		case 'h':
			return kusage(a->verb, "%s", "help is in bfctl(8)");
		default:
			return kusage(a->verb, "unknown or incomplete option '%s'",
				      argv[optind - 1]);
		}
	}
	a->pos = argv + optind;
	a->npos = argc - optind;
	return BFCTL_OK;
}

int want_pos(const struct kargs *a, int min, int max, const char *use)
{
	if (a->npos < min || (max >= 0 && a->npos > max))
		return kusage(a->verb, "usage: bfctl %s", use);
	return BFCTL_OK;
}

int check_name(const struct kargs *a, const char *name)
{
	if (!kb_name_valid(name, (u32)strlen(name)))
		return kusage(a->verb,
			      "bad filter name '%s' (1..31 of A-Z a-z 0-9 _ . : -)",
			      name);
	return BFCTL_OK;
}

/* "what" for messages: "verb NAME" */
const char *what2(const char *verb, const char *name)
{
	static char buf[96];

	snprintf(buf, sizeof(buf), "%s %s", verb, name);
	return buf;
}

/* ---- create ---- */

/* sizing and hash options -> a create/begin request; BFCTL_* */
int fill_spec(const struct kargs *a, struct kb_ioc_create *c)
{
	int modes = a->have_fpr + a->have_bpk + (a->have_bits || a->have_hashes);

	if (modes > 1)
		return kusage(a->verb, "%s",
			      "give one of --fpr, --bits-per-key, --bits/--hashes");
	if (a->have_bits != a->have_hashes)
		return kusage(a->verb, "%s", "--bits and --hashes go together");
	c->items = a->items;
	if (a->have_bpk) {
		c->sizing = KB_SIZING_BPK;
		c->bits_per_key = (u32)a->bpk;
	} else if (a->have_bits) {
		c->sizing = KB_SIZING_MK;
		c->m = a->bits;
		c->k = (u32)a->hashes;
	} else {
		c->sizing = KB_SIZING_FPR;
		c->fpr_ppb = a->have_fpr ? a->fpr_ppb : 10000000; /* 1% */
		if (!a->have_items)
			c->items = 1000000;
	}
	if (c->kind == KB_KIND_CLASSIC) {
		if (a->hash >= 0)
			return kusage(a->verb, "%s",
				      "classic filters always use the LevelDB hash");
		if (a->seed_parts)
			return kusage(a->verb, "%s", "classic filters have no seed");
		c->hash = KB_HASH_LEVELDB;
	} else if (a->hash >= 0) {
		c->hash = (u32)a->hash;
	}
	if (a->seed_parts) {
		if (c->hash == KB_HASH_XXH64 && a->seed_parts > 1)
			return kusage(a->verb, "%s", "xxh64 takes one 64-bit seed");
		c->flags |= KB_CREATE_F_SEED;
		c->seed[0] = a->seed[0];
		c->seed[1] = c->hash == KB_HASH_SIPHASH ? a->seed[1] : 0;
	}
	return BFCTL_OK;
}


/* create NAME KIND [options] -> the request; BFCTL_* */
int create_request(struct kargs *a, struct kb_ioc_create *c)
{
	int ret, kind;

	ret = want_pos(a, 2, 2, "create NAME KIND [--items N --fpr P | --bits-per-key B | --bits M --hashes K] [--key-type T] [--hash H] [--seed S] [-exist]");
	if (!ret)
		ret = check_name(a, a->pos[0]);
	if (ret)
		return ret;
	kind = kb_kind_from_name(a->pos[1]);
	if (kind < 0)
		return kusage(a->verb, "unknown kind '%s' (blocked, classic, counting)",
			      a->pos[1]);
	memset(c, 0, sizeof(*c));
	kbdev_set_name(c->name, a->pos[0]);
	c->kind = (u32)kind;
	c->key_type = a->key_type >= 0 ? (u32)a->key_type : KB_KEY_BYTES;
	c->hash = KB_HASH_XXH64;
	return fill_spec(a, c);
}
