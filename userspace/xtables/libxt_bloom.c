// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_bloom: iptables/ip6tables extension for the xt_bloom match.
 *
 *   -m bloom [!] --bloom-name NAME [--bloom-dir src|dst|src,dst]
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <xtables.h>
#include <linux/netfilter/xt_bloom.h>

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

static bool bloom_name_valid(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= XT_BLOOM_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == len;
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
		if (!bloom_name_valid(cb->arg))
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: invalid filter name \"%s\": 1..%d characters of A-Z a-z 0-9 _ . : -",
				      cb->arg, XT_BLOOM_NAME_MAX - 1);
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

/* One registration serves iptables and ip6tables. */
static struct xtables_match bloom_mt_reg = {
	.name		= "bloom",
	.revision	= 0,
	.family		= NFPROTO_UNSPEC,
	.version	= XTABLES_VERSION,
	.size		= XT_ALIGN(sizeof(struct xt_bloom_mtinfo)),
	.userspacesize	= offsetof(struct xt_bloom_mtinfo, filter),
	.help		= bloom_mt_help,
	.init		= bloom_mt_init,
	.print		= bloom_mt_print,
	.save		= bloom_mt_save,
	.x6_parse	= bloom_mt_parse,
	.x6_options	= bloom_mt_opts,
};

static void __attribute__((constructor)) bloom_mt_ldr(void)
{
	xtables_register_match(&bloom_mt_reg);
}
