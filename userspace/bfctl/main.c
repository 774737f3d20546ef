// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl: manage kbloom filters.  main() dispatches to a verb; each verb
 * parses its own options.  Exit codes: 0 ok / maybe present, 1 absent,
 * 2 usage, 3 system, kernel or file error.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bfctl.h"

bool bfctl_json;
bool bfctl_quiet;

static const struct bfctl_verb verbs[] = {
	{ "create", bfctl_kernel_main, "create a filter" },
	{ "destroy", bfctl_kernel_main, "destroy a filter" },
	{ "list", bfctl_kernel_main, "list filters (-t: names only)" },
	{ "info", bfctl_kernel_main, "show a filter's parameters and counters" },
	{ "add", bfctl_kernel_main, "add keys (or -file FILE)" },
	{ "del", bfctl_kernel_main, "delete keys (counting filters)" },
	{ "test", bfctl_kernel_main, "test keys: exit 0 all maybe present, 1 any absent" },
	{ "test-and-add", bfctl_kernel_main, "add keys, print the ones that were new" },
	{ "save", bfctl_save_main, "write filters as text (restore reads it)" },
	{ "restore", bfctl_restore_main, "load filters written by save" },
	{ "swap", bfctl_kernel_main, "exchange two filters' contents atomically" },
	{ "rename", bfctl_kernel_main, "rename a filter" },
	{ "flush", bfctl_kernel_main, "remove all keys of a filter" },
	{ "rebuild", bfctl_kernel_main, "replace a filter's keys atomically from -file FILE" },
	{ "upload", bfctl_kernel_main, "load an image into a filter (creating it)" },
	{ "export", bfctl_kernel_main, "write a filter's image (-o IMAGE)" },
	{ "monitor", bfctl_kernel_main, "print filter events" },
	{ "version", bfctl_kernel_main, "print versions" },
	{ "image", bfctl_image_main,
	  "build, inspect, test, export and import filter images offline" },
};

int bfctl_fail(int code, const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bfctl: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

int bfctl_parse_u64(const char *s, u64 *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

/* a false-positive rate: "0.001" or "0.1%", to parts per billion */
int bfctl_parse_fpr(const char *s, u32 *ppb)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	if (*end == '%' && !end[1])
		v /= 100;
	else if (*end)
		return -EINVAL;
	if (!(v > 0) || !(v < 1))
		return -EINVAL;
	v = floor(v * 1e9 + 0.5);
	if (v < 1 || v > 999999999)
		return -EINVAL;
	*ppb = (u32)v;
	return 0;
}

int bfctl_parse_seed(const char *s, u64 seed[2], int *nparts)
{
	char tmp[128], *comma;

	if (strlen(s) >= sizeof(tmp))
		return -EINVAL;
	strcpy(tmp, s);
	seed[1] = 0;
	comma = strchr(tmp, ',');
	*nparts = 1;
	if (comma) {
		*comma = 0;
		*nparts = 2;
		if (bfctl_parse_u64(comma + 1, &seed[1]))
			return -EINVAL;
	}
	return bfctl_parse_u64(tmp, &seed[0]);
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: bfctl [-j] [-q] VERB [ARGS...]\n\nverbs:\n");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-13s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nexit codes: 0 ok or maybe present, 1 absent, 2 usage, 3 error\n");
}

int main(int argc, char **argv)
{
	size_t i;

	/* global options before the verb: bfctl -j list */
	while (argc > 1 && (!strcmp(argv[1], "-j") || !strcmp(argv[1], "-q") ||
			    !strcmp(argv[1], "--json") ||
			    !strcmp(argv[1], "--quiet"))) {
		if (argv[1][1] == 'j' || argv[1][2] == 'j')
			bfctl_json = true;
		else
			bfctl_quiet = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc < 2) {
		usage(stderr);
		return BFCTL_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return BFCTL_OK;
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].main(argc - 1, argv + 1);
	fprintf(stderr, "bfctl: unknown verb '%s'\n", argv[1]);
	usage(stderr);
	return BFCTL_USAGE;
}
