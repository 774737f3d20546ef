// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_BLOOM: iptables/ip6tables extension for the BLOOM target, which
 * adds the packet's address to a kbloom filter and goes on with the next
 * rule (ipset's SET target's shape):
 *
 *   -j BLOOM --add-set NAME src|dst [--prefix N] [--exist]
 *
 * (--bloom-dir src|dst may name the direction instead of the word after
 * NAME, as the match spells it).  The options are parsed the way
 * libxt_SET parses --add-set: the direction is the argument after the
 * name, so the parser takes it from argv itself.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "bloom_genl.h"

enum {
	O_ADD_SET = 1,
	O_DIR,
	O_PREFIX,
	O_EXIST,
};

/* tflags: what was given */
#define F_ADD_SET	(1U << 0)
#define F_DIR		(1U << 1)
#define F_PREFIX	(1U << 2)
#define F_EXIST		(1U << 3)

static const struct option bloom_tg_opts[] = {
	{ .name = "add-set", .has_arg = required_argument, .val = O_ADD_SET },
	{ .name = "bloom-dir", .has_arg = required_argument, .val = O_DIR },
	{ .name = "prefix", .has_arg = required_argument, .val = O_PREFIX },
	{ .name = "exist", .has_arg = no_argument, .val = O_EXIST },
	{ NULL },
};

static void bloom_tg_help(void)
{
	printf(
"BLOOM target options:\n"
"  --add-set NAME src|dst       add the packet's source or destination\n"
"                               address to the kbloom filter NAME (of kind\n"
"                               blocked; 1..31 characters of\n"
"                               A-Z a-z 0-9 _ . : -), then go on with the\n"
"                               next rule\n"
"  --prefix N                   net4/net6/net filters: add the address's\n"
"                               /N (IPv4 rules 0..32, IPv6 rules 0..128;\n"
"                               default the whole address)\n"
"  --exist                      in a time window, add again an address that\n"
"                               may already be present, restarting its\n"
"                               window\n"
"Adds past the filter's max-fpr cap are refused and counted\n"
"(bfctl info: learn refused); a rule holds its filter.\n");
}

static unsigned int bloom_tg_dir(const char *s)
{
	if (strcmp(s, "src") == 0)
		return XT_BLOOM_SRC;
	if (strcmp(s, "dst") == 0)
		return XT_BLOOM_DST;
	xtables_error(PARAMETER_PROBLEM,
		      "BLOOM: the direction is src or dst (one of them), not \"%s\"",
		      s);
	return 0;
}

static void bloom_tg_set_dir(struct xt_bloom_tginfo *info, unsigned int *flags,
			     const char *s)
{
	unsigned int dir = bloom_tg_dir(s);

	if (*flags & F_DIR && info->dir != dir)
		xtables_error(PARAMETER_PROBLEM,
			      "BLOOM: two directions given (src and dst): a rule adds one address");
	info->dir = dir;
	*flags |= F_DIR;
}

static int bloom_tg_parse(int c, char **argv, int invert, unsigned int *flags,
			  const void *entry, struct xt_entry_target **target)
{
	struct xt_bloom_tginfo *info = (void *)(*target)->data;
	unsigned int n;

	if (invert)
		xtables_error(PARAMETER_PROBLEM,
			      "BLOOM: its options cannot be inverted");
	switch (c) {
	case O_ADD_SET:
		if (*flags & F_ADD_SET)
			xtables_error(PARAMETER_PROBLEM,
				      "BLOOM: --add-set given twice: a rule adds to one filter");
#ifndef XT_BLOOM_NO_PRECHECK	/* the selftests' copy sends bad names */
		if (!bloom_name_valid(optarg))
			xtables_error(PARAMETER_PROBLEM,
				      "BLOOM: invalid filter name \"%s\": 1..%d characters of A-Z a-z 0-9 _ . : -",
				      optarg, XT_BLOOM_NAME_MAX - 1);
#endif
		snprintf(info->name, sizeof(info->name), "%s", optarg);
		*flags |= F_ADD_SET;
		/*
		 * --add-set NAME src: the direction is the next word (argv
		 * ends with NULL, as libxt_SET relies on too)
		 */
		if (argv[optind] && argv[optind][0] != '-' &&
		    argv[optind][0] != '!') {
			bloom_tg_set_dir(info, flags, argv[optind]);
			optind++;
		}
		return 1;
	case O_DIR:
		bloom_tg_set_dir(info, flags, optarg);
		return 1;
	case O_PREFIX:
		if (*flags & F_PREFIX)
			xtables_error(PARAMETER_PROBLEM,
				      "BLOOM: --prefix given twice");
		/* the family's bound is checked once the rule is whole */
		if (!xtables_strtoui(optarg, NULL, &n, 0, 128))
			xtables_error(PARAMETER_PROBLEM,
				      "BLOOM: --prefix takes a prefix length 0..32 (IPv4) or 0..128 (IPv6), not \"%s\"",
				      optarg);
		info->prefix = (__u8)n;
		info->flags |= XT_BLOOM_T_PREFIX;
		*flags |= F_PREFIX;
		return 1;
	case O_EXIST:
		info->flags |= XT_BLOOM_T_EXIST;
		*flags |= F_EXIST;
		return 1;
	}
	return 0;
}

#ifndef XT_BLOOM_NO_PRECHECK
static const char *const bloom_kinds[] = {
	[KB_KIND_BLOCKED] = "blocked", [KB_KIND_CLASSIC] = "classic",
	[KB_KIND_COUNTING] = "counting", [KB_KIND_GOZERO] = "gozero",
};
#endif

static void bloom_tg_check(const struct xt_bloom_tginfo *info,
			   unsigned int flags, int family)
{
#ifndef XT_BLOOM_NO_PRECHECK
	unsigned int max = family == NFPROTO_IPV6 ? 128 : 32;
	uint32_t key_type, kind = KB_KIND_BLOCKED;
	int err;
#endif

	if (!(flags & F_ADD_SET))
		xtables_error(PARAMETER_PROBLEM,
			      "BLOOM: --add-set NAME src|dst is required");
	if (!(flags & F_DIR))
		xtables_error(PARAMETER_PROBLEM,
			      "BLOOM: --add-set %s needs a direction: --add-set %s src (or dst)",
			      info->name, info->name);
#ifndef XT_BLOOM_NO_PRECHECK
	if (info->flags & XT_BLOOM_T_PREFIX && info->prefix > max)
		xtables_error(PARAMETER_PROBLEM,
			      "BLOOM: --prefix %u is longer than an %s address (0..%u)",
			      info->prefix,
			      family == NFPROTO_IPV6 ? "IPv6" : "IPv4", max);
	err = bloom_filter_get(info->name, &key_type, &kind);
	bloom_check_exists("BLOOM", info->name, err);
	/* no kbloom family or an older kernel: xt_bloom's checkentry decides */
	if (err)
		return;
	bloom_check_key_type("BLOOM", info->name, key_type, family);
	if (kind != KB_KIND_BLOCKED)
		xtables_error(PARAMETER_PROBLEM,
			      "BLOOM: filter \"%s\" is of kind %s: only blocked filters take adds from the packet path",
			      info->name,
			      kind <= KB_KIND_MAX ? bloom_kinds[kind] : "unknown");
	if (info->flags & XT_BLOOM_T_PREFIX && key_type != KB_KEY_NET4 &&
	    key_type != KB_KEY_NET6 && key_type != KB_KEY_NET)
		xtables_error(PARAMETER_PROBLEM,
			      "BLOOM: --prefix is for filters of key type net4, net6 or net; \"%s\" holds %s keys",
			      info->name, bloom_key_types[key_type]);
#endif
}

static void bloom_tg4_check(struct xt_fcheck_call *cb)
{
	bloom_tg_check(cb->data, cb->xflags, NFPROTO_IPV4);
}

static void bloom_tg6_check(struct xt_fcheck_call *cb)
{
	bloom_tg_check(cb->data, cb->xflags, NFPROTO_IPV6);
}

static void bloom_tg_opts_print(const struct xt_bloom_tginfo *info,
				const char *dash)
{
	printf(" %sadd-set %s %s", dash, info->name,
	       info->dir == XT_BLOOM_DST ? "dst" : "src");
	if (info->flags & XT_BLOOM_T_PREFIX)
		printf(" %sprefix %u", dash, info->prefix);
	if (info->flags & XT_BLOOM_T_EXIST)
		printf(" %sexist", dash);
}

static void bloom_tg_print(const void *ip, const struct xt_entry_target *t,
			   int numeric)
{
	bloom_tg_opts_print((const void *)t->data, "");
}

static void bloom_tg_save(const void *ip, const struct xt_entry_target *t)
{
	bloom_tg_opts_print((const void *)t->data, "--");
}

/* iptables and ip6tables: the same target, checked for its family. */
static struct xtables_target bloom_tg_reg[2] = {
	{
		.name		= "BLOOM",
		.revision	= 0,
		.family		= NFPROTO_IPV4,
		.version	= XTABLES_VERSION,
		.size		= XT_ALIGN(sizeof(struct xt_bloom_tginfo)),
		.userspacesize	= offsetof(struct xt_bloom_tginfo, filter),
		.help		= bloom_tg_help,
		.parse		= bloom_tg_parse,
		.x6_fcheck	= bloom_tg4_check,
		.print		= bloom_tg_print,
		.save		= bloom_tg_save,
		.extra_opts	= bloom_tg_opts,
	},
};

static void __attribute__((constructor)) bloom_tg_ldr(void)
{
	bloom_tg_reg[1] = bloom_tg_reg[0];
	bloom_tg_reg[1].family = NFPROTO_IPV6;
	bloom_tg_reg[1].x6_fcheck = bloom_tg6_check;
	xtables_register_targets(bloom_tg_reg, 2);
}
