// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl xdp attach|detach|show: their options (xdp.c and xdp_show.c
 * run the verbs).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"
#include "xdp.h"

static const char *opt_name(const struct option *lo, int c)
{
	for (; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return "?";
}

int bfctl_xdp_parse_opts(int argc, char **argv, const char *verb, bool attach,
		      struct xopts *o)
{
	static const struct option lopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "force", no_argument, NULL, 'f' },
		{ "replace", no_argument, NULL, 'r' },
		{ "priority", required_argument, NULL, 'p' },
		{ "no-dispatcher", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->mode = -1;
	o->prio = -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jq", lopts, NULL)) != -1) {
		if (!attach && c != 'j' && c != 'q' && c != '?')
			return bfctl_usage(verb, "option '--%s' is not allowed here",
					   opt_name(lopts, c));
		switch (c) {
		case 'd':
			if (!strcmp(optarg, "src"))
				o->dir = KB_XDP_DIR_SRC;
			else if (!strcmp(optarg, "dst"))
				o->dir = KB_XDP_DIR_DST;
			else
				return bfctl_usage(verb, "bad --dir '%s' (src or dst)",
						   optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "native"))
				o->mode = KB_XDP_MODE_NATIVE;
			else if (!strcmp(optarg, "generic"))
				o->mode = KB_XDP_MODE_GENERIC;
			else if (!strcmp(optarg, "tc"))
				o->mode = KB_XDP_MODE_TC;
			else
				return bfctl_usage(verb, "bad --mode '%s' (native, generic or tc)",
						   optarg);
			break;
		case 'f':
			o->force = true;
			break;
		case 'r':
			o->replace = true;
			break;
		case 'p':
			errno = 0;
			o->prio = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->prio < 0 ||
			    o->prio > BFCTL_XDP_PRIO_MAX)
				return bfctl_usage(verb, "bad --priority '%s' (0..2147483647, lower runs first)",
						   optarg);
			break;
		case 'n':
			o->no_disp = true;
			break;
		case 'j':
			if (strcmp(verb, "xdp show"))
				return bfctl_usage(verb, "option '%s' is not allowed here",
						   "-j");
			bfctl_json = true;
			break;
		case 'q':
			bfctl_quiet = true;
			break;
		default:
			return bfctl_usage(verb, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (bfctl_json && strcmp(verb, "xdp show"))
		return bfctl_usage(verb, "option '%s' is not allowed here", "-j");
	/* only libxdp's dispatcher has priorities */
	if (o->prio >= 0 && (o->no_disp || o->mode == KB_XDP_MODE_TC))
		return bfctl_usage(verb, "--priority is for XDP through libxdp's dispatcher, not %s",
				   o->no_disp ? "--no-dispatcher" : "--mode tc");
	if (o->no_disp && o->mode == KB_XDP_MODE_TC)
		return bfctl_usage(verb, "%s", "--no-dispatcher is for XDP, not --mode tc");
	o->pos = argv + optind;
	o->npos = argc - optind;
	return BFCTL_OK;
}
