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
	OPT_HASHES, OPT_KEYTYPE, OPT_HASH, OPT_SEED, OPT_KIND, OPT_FORCE,
	OPT_KEYFMT, OPT_MAX_FPR, OPT_PREFIXES, OPT_READERS, OPT_WRITERS,
	OPT_NONE, OPT_WINDOW, OPT_SLICES, OPT_GROW, OPT_MAX_BYTES,
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
	{ "prefixes", required_argument, NULL, OPT_PREFIXES },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "max-fpr", required_argument, NULL, OPT_MAX_FPR },
	{ "key-format", required_argument, NULL, OPT_KEYFMT },
	{ "readers", required_argument, NULL, OPT_READERS },
	{ "writers", required_argument, NULL, OPT_WRITERS },
	{ "none", no_argument, NULL, OPT_NONE },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "slices", required_argument, NULL, OPT_SLICES },
	{ "grow", no_argument, NULL, OPT_GROW },
	{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
	{ "json", no_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "terse", no_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* restore's create lines: the message goes here instead of stderr */
static char *usage_buf;
static size_t usage_len;

void bfctl_usage_capture(char *buf, size_t len)
{
	usage_buf = buf;
	usage_len = len;
}

int bfctl_usage(const char *verb, const char *fmt, const char *arg)
{
	if (usage_buf) {
		snprintf(usage_buf, usage_len, fmt, arg);
		return BFCTL_USAGE;
	}
	fprintf(stderr, "bfctl: %s: ", verb);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see bfctl --help and bfctl(8))\n");
	return BFCTL_USAGE;
}

/* the class of option c (KO_*) */
static u32 opt_class(int c)
{
	switch (c) {
	case OPT_EXIST:
		return KO_EXIST;
	case OPT_FILE:
		return KO_FILE;
	case 'o':
		return KO_OUT;
	case 't':
		return KO_TERSE;
	case OPT_KIND:
		return KO_KIND;
	case OPT_FORCE:
		return KO_FORCE;
	case OPT_KEYFMT:
		return KO_KEYFMT;
	case OPT_MAX_FPR:
		return KO_MAXFPR;
	case 'j':
		return KO_JSON;
	case OPT_READERS:
	case OPT_WRITERS:
	case OPT_NONE:
		return KO_GRANT;
	case 'q':
		return KO_GLOBAL;
	case OPT_WINDOW:
	case OPT_SLICES:
	case OPT_GROW:
	case OPT_MAX_BYTES:
		return KO_SHAPE;
	case OPT_ITEMS:
	case OPT_FPR:
	case OPT_BPK:
	case OPT_BITS:
	case OPT_HASHES:
	case OPT_KEYTYPE:
	case OPT_HASH:
	case OPT_SEED:
	case OPT_PREFIXES:
		return KO_SPEC;
	default:
		return 0;	/* unknown: the parser's own message */
	}
}

int bfctl_kargs_parse(int argc, char **argv, struct bfctl_kargs *a, u32 allowed)
{
	char msg[128];
	int c, idx = -1, ret;

	memset(a, 0, sizeof(*a));
	a->verb = argv[0];
	bfctl_spec_opts_init(&a->s);
	a->kind = -1;
	a->key_fmt = -1;
	optind = 0;	/* full reset: restore parses many create lines */
	opterr = 0;
	/* idx is only set for long options */
	while ((idx = -1, c = getopt_long_only(argc, argv, "o:jqth", kopts,
					       &idx)) != -1) {
		u32 class = opt_class(c);

		if (class && !(allowed & class)) {
			/* the option's name, not its value */
			snprintf(msg, sizeof(msg), "-%s",
				 idx >= 0 ? kopts[idx].name : (char[]){ (char)c, 0 });
			return bfctl_usage(a->verb,
					   "option '%s' is not allowed here",
					   msg);
		}
		if (class == KO_SPEC) {
			ret = bfctl_spec_opt(&a->s, kopts[idx].name, optarg,
					     msg, sizeof(msg));
			/* LevelDB's and go-zero's hashes come with their kinds */
			if (c == OPT_HASH && (ret < 0 || a->s.hash == KB_HASH_LEVELDB ||
					      a->s.hash == KB_HASH_MURMUR3))
				return bfctl_usage(a->verb,
					"unknown hash '%s' (xxh64 or siphash)",
					optarg);
			if (ret < 0)
				return bfctl_usage(a->verb, "%s", msg);
			continue;
		}
		if (class == KO_SHAPE) {
			ret = bfctl_shape_opt(&a->sh, kopts[idx].name, optarg,
					      msg, sizeof(msg));
			if (ret)
				return bfctl_usage(a->verb, "%s", msg);
			continue;
		}
		switch (c) {
		case OPT_EXIST:
			a->exist = true;
			break;
		case OPT_FORCE:
			a->force = true;
			break;
		case OPT_MAX_FPR:
			if (bfctl_parse_max_fpr(optarg, &a->max_fpr_ppb))
				return bfctl_usage(a->verb,
					"bad --max-fpr '%s' (over 0 and at most 1: 0.01 or 1%%)",
					optarg);
			break;
		case OPT_KEYFMT:
			a->key_fmt = kbu_key_format_from_name(optarg);
			if (a->key_fmt < 0)
				return bfctl_usage(a->verb,
					"unknown --key-format '%s' (str or hex)",
					optarg);
			break;
		case OPT_FILE:
			a->file = optarg;
			break;
		case OPT_READERS:
			a->readers = optarg;
			break;
		case OPT_WRITERS:
			a->writers = optarg;
			break;
		case OPT_NONE:
			a->grant_none = true;
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
		case OPT_KIND:
			a->kind = kb_kind_from_name(optarg);
			if (a->kind < 0)
				return bfctl_usage(a->verb, "unknown kind '%s'",
						   optarg);
			break;
		case 'h':
			return bfctl_usage(a->verb, "%s",
					   "help is in bfctl(8)");
		default:
			return bfctl_usage(a->verb,
					   "unknown or incomplete option '%s'",
					   argv[optind - 1]);
		}
	}
	a->pos = argv + optind;
	a->npos = argc - optind;
	return BFCTL_OK;
}

int bfctl_want_pos(const struct bfctl_kargs *a, int min, int max,
		   const char *use)
{
	if (a->npos < min || (max >= 0 && a->npos > max))
		return bfctl_usage(a->verb, "usage: bfctl %s", use);
	return BFCTL_OK;
}

int bfctl_check_name(const struct bfctl_kargs *a, const char *name)
{
	if (!kb_name_valid(name, (u32)strlen(name)))
		return bfctl_usage(a->verb,
			      "bad filter name '%s' (1..31 of A-Z a-z 0-9 _ . : -)",
				   name);
	return BFCTL_OK;
}

/* "what" for messages: "verb NAME" */
const char *bfctl_verb_name(const char *verb, const char *name)
{
	static char buf[96];

	snprintf(buf, sizeof(buf), "%s %s", verb, name);
	return buf;
}

/* ---- create ---- */

/* sizing and hash options -> a create/begin request; BFCTL_* */
int bfctl_fill_spec(const struct bfctl_kargs *a, struct kb_ioc_create *c)
{
	int modes = a->s.have_fpr + a->s.have_bpk + (a->s.have_bits || a->s.have_hashes);
	bool gz = c->kind == KB_KIND_GOZERO;

	if (modes > 1)
		return bfctl_usage(a->verb, "%s",
			      "give one of --fpr, --bits-per-key, --bits/--hashes");
	/* gozero's k is go-zero's 14: --bits alone (or --hashes 14) */
	if (gz && a->s.have_hashes && a->s.hashes != KB_GOZERO_K)
		return bfctl_usage(a->verb, "%s",
				   "gozero filters have 14 hashes");
	if (a->s.have_bits != a->s.have_hashes && !(gz && a->s.have_bits))
		return bfctl_usage(a->verb, "%s",
				   "--bits and --hashes go together");
	/* else the filter would be sized for no keys at all (64 bytes) */
	if (a->s.have_bpk && !a->s.have_items)
		return bfctl_usage(a->verb, "%s",
				   "--bits-per-key needs --items N");
	c->items = a->s.items;
	if (a->s.have_bpk) {
		c->sizing = KB_SIZING_BPK;
		c->bits_per_key = (u32)a->s.bpk;
	} else if (a->s.have_bits) {
		c->sizing = KB_SIZING_MK;
		c->m = a->s.bits;
		c->k = gz ? KB_GOZERO_K : (u32)a->s.hashes;
	} else {
		c->sizing = KB_SIZING_FPR;
		c->fpr_ppb = a->s.have_fpr ? a->s.fpr_ppb : 10000000; /* 1% */
		if (!a->s.have_items)
			c->items = 1000000;
		/* the FPR is per lookup, of this many prefix lengths */
		if (kb_key_type_is_net(c->key_type))
			c->prefixes = a->s.prefixes;
	}
	if (a->s.prefixes && c->prefixes != a->s.prefixes)
		return bfctl_usage(a->verb, "%s",
				   "--prefixes is for the net key types (net4, net6, net) sized by --fpr");
	if (c->kind == KB_KIND_CLASSIC || gz) {
		if (a->s.hash >= 0)
			return bfctl_usage(a->verb, "%s", gz ?
				      "gozero filters always use go-zero's murmur3 scheme" :
				      "classic filters always use the LevelDB hash");
		if (a->s.seed_parts)
			return bfctl_usage(a->verb, "%s filters have no seed",
					   kb_kind_name(c->kind));
		c->hash = kb_kind_default_hash(c->kind);
	} else if (a->s.hash >= 0) {
		c->hash = (u32)a->s.hash;
	}
	if (a->s.seed_parts) {
		if (c->hash == KB_HASH_XXH64 && a->s.seed_parts > 1)
			return bfctl_usage(a->verb, "%s",
					   "xxh64 takes one 64-bit seed");
		c->flags |= KB_CREATE_F_SEED;
		c->seed[0] = a->s.seed[0];
		c->seed[1] = c->hash == KB_HASH_SIPHASH ? a->s.seed[1] : 0;
	}
	return BFCTL_OK;
}


/* create NAME [KIND] [options] -> the request; BFCTL_* */
int bfctl_create_request(struct bfctl_kargs *a, struct kb_ioc_create *c)
{
	int ret, kind;

	ret = bfctl_want_pos(a, 1, 2, "create NAME [KIND] [--items N --fpr P [--prefixes L] | --bits-per-key B | --bits M --hashes K] [--key-type T] [--hash H] [--seed S] [--max-fpr P] [--window DUR [--slices S] | --grow [--max-bytes SIZE]] [--readers GROUP] [--writers GROUP] [-exist]");
	if (!ret)
		ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	/* blocked unless named: the kind the README and bfctl(8) advise */
	kind = a->npos > 1 ? kb_kind_from_name(a->pos[1]) : KB_KIND_BLOCKED;
	if (kind < 0)
		return bfctl_usage(a->verb,
			"unknown kind '%s' (blocked, classic, counting, gozero)",
			a->pos[1]);
	memset(c, 0, sizeof(*c));
	kbdev_set_name(c->name, a->pos[0]);
	c->kind = (u32)kind;
	c->key_type = a->s.key_type >= 0 ? (u32)a->s.key_type : KB_KEY_BYTES;
	c->hash = KB_HASH_XXH64;
	ret = bfctl_fill_spec(a, c) ?: bfctl_shape_fill(a, c);
	if (ret || !a->max_fpr_ppb)
		return ret;
	/*
	 * --max-fpr: the cap on adds from the packet path (the BLOOM target,
	 * the add kfuncs), which only blocked filters take
	 */
	if (c->kind != KB_KIND_BLOCKED)
		return bfctl_usage(a->verb, "%s",
				   "--max-fpr caps adds from the packet path, which only blocked filters take");
	if (c->sizing == KB_SIZING_FPR && a->max_fpr_ppb < c->fpr_ppb)
		return bfctl_usage(a->verb, "%s",
				   "--max-fpr must not be below the filter's --fpr");
	c->max_fpr_ppb = a->max_fpr_ppb;
	return BFCTL_OK;
}

/* the packet path's cap when create gives none (uapi KB_A_MAX_FPR_PPB) */
u32 bfctl_default_max_fpr(u32 fpr_ppb)
{
	if (!fpr_ppb)
		return 10000000;		/* 1% */
	return fpr_ppb >= 500000000 ? 1000000000 : 2 * fpr_ppb;
}

int bfctl_create_params(const struct kb_ioc_create *c, struct kb_params *p,
			u64 max)
{
	int ret = kb_params_init(p, c->kind);

	if (ret)
		return ret;
	p->key_type = c->key_type;
	p->hash = c->hash;
	if (c->sizing == KB_SIZING_FPR) {
		ret = kb_params_from_fpr_plens(p, c->items, c->fpr_ppb,
					       c->prefixes ? c->prefixes : 1,
					       max);
	} else if (c->sizing == KB_SIZING_BPK) {
		ret = kb_params_from_bpk(p, c->items, c->bits_per_key, max);
	} else {
		p->items = c->items;
		ret = kb_params_from_mk(p, c->m, c->k, max);
	}
	if (ret)
		return ret;
	if (c->flags & KB_CREATE_F_SEED) {
		p->seed[0] = c->seed[0];
		p->seed[1] = c->seed[1];
	}
	return kb_params_validate(p, max);
}

/*
 * Whether the filter info describes is the one c (sized into p) would
 * create.  For --items/--fpr, a filter made for the same items and FPR
 * is, whatever its m and k: the module that sized it may size otherwise
 * (blocked and counting gained 5% FPR headroom in 2026-11), and a boot
 * script's `create -exist` must not fail while an older module is loaded.
 */
bool bfctl_create_matches(const struct kb_ioc_create *c,
			  const struct kb_params *p,
			  const struct kb_ioc_info *info)
{
	bool same_size = info->m == p->m && info->k == p->k;

	if (c->sizing == KB_SIZING_FPR && info->items == c->items &&
	    info->fpr_ppb == c->fpr_ppb)
		same_size = true;
	if (!bfctl_shape_matches(c, info))
		return false;
	/* a window's or growing filter's size is its slices' */
	if (c->window_ms || c->flags & KB_CREATE_F_GROW)
		same_size = bfctl_shape_size_matches(c, info);
	/* a cap asked for must be the filter's (a kernel that says) */
	if (c->max_fpr_ppb && info->max_fpr_ppb &&
	    c->max_fpr_ppb != info->max_fpr_ppb)
		return false;
	return info->kind == p->kind && info->key_type == p->key_type &&
	       info->hash == p->hash && same_size &&
	       (!(c->flags & KB_CREATE_F_SEED) ||
		(info->seed[0] == p->seed[0] && info->seed[1] == p->seed[1]));
}
