// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl: manage kbloom filters.  main() parses the global options and the
 * verb (bfctl_parse_cmd), then runs the verb, which parses its own
 * options.  Exit codes: 0 ok / maybe present, 1 absent, 2 usage, 3 system,
 * kernel or file error.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "bfctl.h"

bool bfctl_json;
bool bfctl_quiet;

#define SIZE_OPTS "[--items N --fpr P | --bits-per-key B | --bits M --hashes K]"

static const struct bfctl_verb verbs[] = {
	{ "create", bfctl_kernel_main, "create a filter",
	  "NAME [KIND] " SIZE_OPTS "\n       [--key-type T] [--hash xxh64|siphash] [--seed S[,S2]]\n       [--max-fpr P] [--readers GROUP] [--writers GROUP] [-exist]" },
	{ "destroy", bfctl_kernel_main, "destroy a filter", "NAME" },
	{ "list", bfctl_kernel_main, "list filters (-t: names only)",
	  "[NAME] [-t]" },
	{ "info", bfctl_kernel_main, "show a filter's parameters and counters",
	  "NAME" },
	{ "add", bfctl_kernel_main, "add keys (or -file FILE)",
	  "NAME KEY... | NAME -file FILE [-exist] [--force] [--key-format str|hex]" },
	{ "del", bfctl_kernel_main, "delete keys (counting filters)",
	  "NAME KEY... [-exist] [--key-format str|hex]" },
	{ "test", bfctl_kernel_main, "test keys: exit 0 all maybe present, 1 any absent",
	  "NAME KEY... [--key-format str|hex]" },
	{ "test-and-add", bfctl_kernel_main, "add keys, print the ones that were new",
	  "NAME KEY... [--key-format str|hex]" },
	{ "save", bfctl_save_main, "write filters as text (restore reads it)",
	  "[NAME] [-file FILE]" },
	{ "restore", bfctl_restore_main, "load filters (save files, create/add lines)",
	  "[-file FILE] [-exist] [-check] [--force]" },
	{ "sync", bfctl_sync_main,
	  "make the kernel's filters equal to a file, changing what differs",
	  "-file FILE [--prune] [-check] [--force] [--max-fpr P] [-j]" },
	{ "swap", bfctl_kernel_main, "exchange two filters' contents atomically",
	  "NAME1 NAME2" },
	{ "rename", bfctl_kernel_main, "rename a filter", "OLD NEW" },
	{ "except", bfctl_kernel_main, "keys a filter answers absent whatever its bits say",
	  "NAME add|del KEY... [-file FILE] [-exist] [--key-format str|hex]\n"
	  "       NAME list [-j] | NAME flush" },
	{ "flush", bfctl_kernel_main, "remove all keys of a filter", "NAME" },
	{ "grant", bfctl_kernel_main,
	  "let a group's members open a filter (readers test, writers also add)",
	  "NAME [--readers GROUP] [--writers GROUP] | NAME --none" },
	{ "rebuild", bfctl_kernel_main, "replace a filter's keys atomically from -file FILE",
	  "NAME -file FILE [--kind KIND] " SIZE_OPTS
	  "\n       [--force] [--key-format str|hex]" },
	{ "upload", bfctl_kernel_main, "load an image into a filter (creating it)",
	  "NAME IMAGE" },
	{ "export", bfctl_kernel_main, "write a filter's image (-o IMAGE)",
	  "NAME -o IMAGE" },
	{ "monitor", bfctl_kernel_main, "print filter events", "" },
	{ "version", bfctl_kernel_main, "print versions", "" },
	{ "redis", bfctl_redis_main,
	  "pull, push and follow (watch) a filter kept in Redis",
	  "pull|push|watch NAME KEY --server URL ... (bfctl redis --help)" },
	{ "lsm", bfctl_lsm_main,
	  "deny exec/open of the paths in a str filter (BPF LSM)",
	  "attach NAME -file PATHS [--exec] [--open] [--audit]\n       | detach | show [-j] | log [--once]" },
	{ "xdp", bfctl_xdp_main,
	  "attach, detach and show the XDP/tc blocklist of a device",
	  "attach DEV NAME [--dir src|dst] [--mode native|generic|tc]\n"
	  "       [--priority N] [--no-dispatcher] [--force] [--replace]\n"
	  "       bfctl xdp detach DEV\n       bfctl [-j] xdp show [DEV] [-j]" },
	{ "image", bfctl_image_main,
	  "build, inspect, test, export and import filter images offline",
	  "build|info|test|export|import ... (bfctl image --help)" },
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

/*
 * The tests' deterministic pause (bfctl_xdp.sh between reading a
 * device's programs and acting on them, test-redis inside a chunked
 * read): with the variable env naming a FIFO of ours, say so through it
 * and wait until the test has changed the state and closed it again.  A
 * handshake, not a command: the environment never makes bfctl run
 * anything, and anything but our own FIFO is ignored.
 */
void bfctl_test_pause(const char *env)
{
	const char *path = getenv(env);
	struct stat st;
	char c;
	int fd;

	if (!path || !*path || lstat(path, &st) || !S_ISFIFO(st.st_mode) ||
	    st.st_uid != geteuid())
		return;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "p\n", 2) != 2) {
		close(fd);
		return;
	}
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (read(fd, &c, 1) > 0)
		;
	close(fd);
}

int bfctl_parse_u64(const char *s, u64 *v)
{
	bool hex = s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	unsigned long long x;
	char *end;

	/* decimal or 0x-hex: no octal "010", no sign, no leading space */
	if (!s || !(hex ? isxdigit((unsigned char)*digits) :
			  isdigit((unsigned char)*digits)))
		return -EINVAL;
	errno = 0;
	x = strtoull(digits, &end, hex ? 16 : 10);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

/*
 * A count as admins type it: 1000000, 1e6, 1.5M, 10k, 1Mi, or 0x-hex.
 * k M G T (either case) are decimal, Ki Mi Gi Ti binary.  Exact integer
 * arithmetic: a value that is not whole (1.5e0) is -EINVAL, one over
 * 2^64 - 1 -ERANGE, never rounded or clamped.
 */
int bfctl_parse_count(const char *s, u64 *v)
{
	static const char sfx[] = "kmgt";
	u64 mant = 0, mul = 1;
	int dexp = 0, e = 0, i;
	const char *p = s, *at;
	bool dot = false;

	if (s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return bfctl_parse_u64(s, v);
	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p) || (*p == '.' && !dot); p++) {
		if (*p == '.') {
			dot = true;
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			continue;
		}
		if (__builtin_mul_overflow(mant, 10, &mant) ||
		    __builtin_add_overflow(mant, (u64)(*p - '0'), &mant))
			return -ERANGE;
		dexp -= dot;
	}
	if (*p == 'e' || *p == 'E') {
		if (!isdigit((unsigned char)*++p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++)
			if ((e = e * 10 + (*p - '0')) > 99)
				return -ERANGE;
		dexp += e;
	} else if (*p && (at = strchr(sfx, tolower((unsigned char)*p)))) {
		i = (int)(at - sfx) + 1;
		if (p[1] == 'i') {	/* Ki Mi Gi Ti: 2^10 steps */
			mul = 1ull << (10 * i);
			p++;
		} else {
			dexp += 3 * i;
		}
		p++;
	}
	if (*p)
		return -EINVAL;
	if (__builtin_mul_overflow(mant, mul, &mant))
		return -ERANGE;
	for (; dexp < 0; dexp++) {	/* 1.5k: the fraction must be whole */
		if (mant % 10)
			return -EINVAL;
		mant /= 10;
	}
	for (; dexp > 0; dexp--)
		if (mant && __builtin_mul_overflow(mant, 10, &mant))
			return -ERANGE;
	*v = mant;
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

void bfctl_spec_opts_init(struct bfctl_spec_opts *s)
{
	memset(s, 0, sizeof(*s));
	s->key_type = -1;
	s->hash = -1;
}

int bfctl_spec_opt(struct bfctl_spec_opts *s, const char *name,
		   const char *val, char *msg, size_t len)
{
	const char *bad = NULL;
	int ret;

	if (!strcmp(name, "items")) {
		s->have_items = true;
		ret = bfctl_parse_count(val, &s->items);
		if (ret)
			bad = ret == -ERANGE ? "--items '%s' is too large" :
			      "bad --items '%s' (a count: 1000000, 1e6, 1M, 10k)";
	} else if (!strcmp(name, "fpr")) {
		s->have_fpr = true;
		if (bfctl_parse_fpr(val, &s->fpr_ppb))
			bad = "bad --fpr '%s' (a fraction like 0.01 or 1%%)";
	} else if (!strcmp(name, "bits-per-key")) {
		s->have_bpk = true;
		if (bfctl_parse_u64(val, &s->bpk) || !s->bpk ||
		    s->bpk > KB_BPK_MAX)
			bad = "bad --bits-per-key '%s'";
	} else if (!strcmp(name, "bits")) {
		s->have_bits = true;
		ret = bfctl_parse_count(val, &s->bits);
		if (ret)
			bad = ret == -ERANGE ? "--bits '%s' is too large" :
			      "bad --bits '%s' (a count: 8000000, 8e6, 8M, 1Mi)";
	} else if (!strcmp(name, "hashes")) {
		s->have_hashes = true;
		if (bfctl_parse_u64(val, &s->hashes) || s->hashes > KB_K_MAX)
			bad = "bad --hashes '%s'";
	} else if (!strcmp(name, "key-type")) {
		s->key_type = kb_key_type_from_name(val);
		if (s->key_type < 0)
			bad = "unknown key type '%s'";
	} else if (!strcmp(name, "hash")) {
		s->hash = kb_hash_from_name(val);
		if (s->hash < 0)
			bad = "unknown hash '%s'";
	} else if (!strcmp(name, "prefixes")) {
		u64 v;

		if (bfctl_parse_u64(val, &v) || !v || v > KB_PLENS_MAX)
			bad = "bad --prefixes '%s' (1..129 prefix lengths)";
		else
			s->prefixes = (u32)v;
	} else if (!strcmp(name, "seed")) {
		if (bfctl_parse_seed(val, s->seed, &s->seed_parts))
			bad = "bad --seed '%s'";
	} else {
		return 0;
	}
	if (!bad)
		return 1;
	snprintf(msg, len, bad, val);
	return -1;
}

/*
 * Parse argv into cmd without side effects: global options (-j, -q)
 * before the verb, help, the verb.  BFCTL_OK (cmd->verb set, or
 * cmd->help) or BFCTL_USAGE (cmd->bad_verb names an unknown verb, if any).
 */
int bfctl_parse_cmd(int argc, char **argv, struct bfctl_cmd *cmd)
{
	int i;
	size_t v;

	memset(cmd, 0, sizeof(*cmd));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			cmd->json = true;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			cmd->quiet = true;
		else
			break;
	}
	if (i >= argc)
		return BFCTL_USAGE;
	if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
		cmd->version = true;
		return BFCTL_OK;
	}
	if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
	    !strcmp(argv[i], "help")) {
		cmd->help = true;
		if (i + 1 >= argc)
			return BFCTL_OK;
		i++;	/* help VERB: that verb's usage */
	}
	for (v = 0; v < ARRAY_SIZE(verbs); v++)
		if (!strcmp(argv[i], verbs[v].name)) {
			cmd->verb = &verbs[v];
			cmd->argc = argc - i;
			cmd->argv = argv + i;
			/* VERB -h / --help (first argument): its usage */
			if (cmd->argc > 1 && (!strcmp(cmd->argv[1], "-h") ||
					      !strcmp(cmd->argv[1], "--help")))
				cmd->help = true;
			return BFCTL_OK;
		}
	cmd->bad_verb = argv[i];
	return BFCTL_USAGE;
}

/* the fuzz targets (userspace/fuzz) have their own main() */
#ifndef BFCTL_NO_MAIN
static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: bfctl [-j] [-q] VERB [ARGS...]\n       bfctl help VERB | VERB --help | --version\n\nverbs:\n");
	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		fprintf(f, "  %-13s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nexit codes: 0 ok or maybe present, 1 absent, 2 usage, 3 error\n");
}

int main(int argc, char **argv)
{
	struct bfctl_cmd cmd;

	if (bfctl_parse_cmd(argc, argv, &cmd)) {
		if (cmd.bad_verb)
			/* not past an '=': --password=SECRET is no verb either */
			fprintf(stderr, "bfctl: unknown verb '%.*s'\n",
				(int)strcspn(cmd.bad_verb, "="), cmd.bad_verb);
		usage(stderr);
		return BFCTL_USAGE;
	}
	if (cmd.version) {
		printf("bfctl %s\n", BFCTL_VERSION);
		return BFCTL_OK;
	}
	if (cmd.help && cmd.verb && cmd.verb->main == bfctl_image_main) {
		char *args[] = { "image", "--help", NULL };

		return bfctl_image_main(2, args);
	}
	if (cmd.help && cmd.verb && cmd.verb->main == bfctl_redis_main) {
		char *args[] = { "redis", "--help", NULL };

		return bfctl_redis_main(2, args);
	}
	if (cmd.help && cmd.verb) {
		printf("usage: bfctl [-j] [-q] %s %s\n\n%s (see bfctl(8))\n",
		       cmd.verb->name, cmd.verb->usage, cmd.verb->summary);
		return BFCTL_OK;
	}
	if (cmd.help) {
		usage(stdout);
		return BFCTL_OK;
	}
	bfctl_json = cmd.json;
	bfctl_quiet = cmd.quiet;
	return cmd.verb->main(cmd.argc, cmd.argv);
}
#endif
