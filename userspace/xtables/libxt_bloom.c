// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_bloom: iptables/ip6tables extension for the xt_bloom match.
 *
 *   -m bloom [!] --bloom-name NAME [--bloom-dir src|dst|src,dst]
 */
#include <stdio.h>
#include "bloom_genl.h"

enum {
	O_BLOOM_NAME = 0,
	O_BLOOM_DIR,
};

static const struct xt_option_entry bloom_mt_opts[] = {
	{ .name = "bloom-name", .id = O_BLOOM_NAME, .type = XTTYPE_STRING,
	  .flags = XTOPT_MAND | XTOPT_INVERT },
	{ .name = "bloom-dir", .id = O_BLOOM_DIR, .type = XTTYPE_STRING },
	XTOPT_TABLEEND,
};

static void bloom_mt_help(void)
{
	printf(
"bloom match options:\n"
" [!] --bloom-name NAME         match if the packet's address may be in the\n"
"                               kbloom filter NAME (1..31 characters of\n"
"                               A-Z a-z 0-9 _ . : -)\n"
"     --bloom-dir src|dst|src,dst\n"
"                               address(es) to test (default src); with\n"
"                               src,dst the match holds if either may be\n"
"                               present\n");
}

static void bloom_mt_init(struct xt_entry_match *m)
{
	struct xt_bloom_mtinfo *info = (void *)m->data;

	info->flags = XT_BLOOM_SRC;
}

static unsigned int bloom_parse_dir(const char *s)
{
	if (strcmp(s, "src") == 0)
		return XT_BLOOM_SRC;
	if (strcmp(s, "dst") == 0)
		return XT_BLOOM_DST;
	if (strcmp(s, "src,dst") == 0 || strcmp(s, "dst,src") == 0)
		return XT_BLOOM_SRC | XT_BLOOM_DST;
	xtables_error(PARAMETER_PROBLEM,
		      "bloom: --bloom-dir takes src, dst or src,dst, not \"%s\"",
		      s);
	return 0;
}

static void bloom_mt_parse(struct xt_option_call *cb)
{
	struct xt_bloom_mtinfo *info = cb->data;

	xtables_option_parse(cb);
	switch (cb->entry->id) {
	case O_BLOOM_NAME:
#ifndef XT_BLOOM_NO_PRECHECK	/* the selftests' copy sends bad names */
		if (!bloom_name_valid(cb->arg))
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: invalid filter name \"%s\": 1..%d characters of A-Z a-z 0-9 _ . : -",
				      cb->arg, XT_BLOOM_NAME_MAX - 1);
#endif
		strcpy(info->name, cb->arg);
		if (cb->invert)
			info->flags |= XT_BLOOM_INVERT;
		break;
	case O_BLOOM_DIR:
		info->flags &= ~(XT_BLOOM_SRC | XT_BLOOM_DST);
		info->flags |= bloom_parse_dir(cb->arg);
		break;
	}
}

static const char *bloom_dir_str(unsigned int flags)
{
	switch (flags & (XT_BLOOM_SRC | XT_BLOOM_DST)) {
	case XT_BLOOM_SRC:
		return "src";
	case XT_BLOOM_DST:
		return "dst";
	default:
		return "src,dst";
	}
}

static void bloom_mt_print(const void *ip, const struct xt_entry_match *m,
			   int numeric)
{
	const struct xt_bloom_mtinfo *info = (const void *)m->data;

	printf(" bloom %s%s %s",
	       info->flags & XT_BLOOM_INVERT ? "! " : "", info->name,
	       bloom_dir_str(info->flags));
}

static void bloom_mt_save(const void *ip, const struct xt_entry_match *m)
{
	const struct xt_bloom_mtinfo *info = (const void *)m->data;

	printf("%s --bloom-name %s --bloom-dir %s",
	       info->flags & XT_BLOOM_INVERT ? " !" : "", info->name,
	       bloom_dir_str(info->flags));
}

#ifndef XT_BLOOM_NO_PRECHECK
static void bloom_mt_check(const struct xt_bloom_mtinfo *info, int family)
{
	uint32_t key_type, kind;
	int err;

	err = bloom_filter_get(info->name, &key_type, &kind);
	bloom_check_exists("bloom", info->name, err);
	/* No kbloom family (module not loaded yet) or an older kernel:
	 * leave the decision to xt_bloom's checkentry.
	 */
	if (!err)
		bloom_check_key_type("bloom", info->name, key_type, family);
}

static void bloom_mt4_check(struct xt_fcheck_call *cb)
{
	bloom_mt_check(cb->data, NFPROTO_IPV4);
}

static void bloom_mt6_check(struct xt_fcheck_call *cb)
{
	bloom_mt_check(cb->data, NFPROTO_IPV6);
}
#endif

/* iptables and ip6tables: the same match, checked for its family. */
static struct xtables_match bloom_mt_reg[2] = {
	{
		.name		= "bloom",
		.revision	= 0,
		.family		= NFPROTO_IPV4,
		.version	= XTABLES_VERSION,
		.size		= XT_ALIGN(sizeof(struct xt_bloom_mtinfo)),
		.userspacesize	= offsetof(struct xt_bloom_mtinfo, filter),
		.help		= bloom_mt_help,
		.init		= bloom_mt_init,
		.print		= bloom_mt_print,
		.save		= bloom_mt_save,
		.x6_parse	= bloom_mt_parse,
#ifndef XT_BLOOM_NO_PRECHECK
		.x6_fcheck	= bloom_mt4_check,
#endif
		.x6_options	= bloom_mt_opts,
	},
};

static void __attribute__((constructor)) bloom_mt_ldr(void)
{
	bloom_mt_reg[1] = bloom_mt_reg[0];
	bloom_mt_reg[1].family = NFPROTO_IPV6;
#ifndef XT_BLOOM_NO_PRECHECK
	bloom_mt_reg[1].x6_fcheck = bloom_mt6_check;
#endif
	xtables_register_matches(bloom_mt_reg, 2);
}
