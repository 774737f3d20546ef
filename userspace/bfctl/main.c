// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl: manage kbloom filters.  main() dispatches to a verb; each verb
 * parses its own options.  Exit codes: 0 ok / maybe present, 1 absent,
 * 2 usage, 3 system, kernel or file error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bfctl.h"

static const struct bfctl_verb verbs[] = {
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

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: bfctl VERB [ARGS...]\n\nverbs:\n");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nexit codes: 0 ok or maybe present, 1 absent, 2 usage, 3 error\n");
}

int main(int argc, char **argv)
{
	size_t i;

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
