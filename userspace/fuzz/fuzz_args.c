// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: bfctl's command line (userspace/bfctl/main.c).
 *
 * The input, split on NUL bytes, is argv (argv[0] included; an empty
 * input is argc 0).  bfctl_parse_cmd() must accept or refuse it without
 * touching argv or running a verb (the verbs are stubs that abort), and
 * what it returns must describe argv exactly.  Every argument is also fed
 * to the number parsers the verbs share (bfctl_parse_u64/_count/_fpr/_seed).
 */
#include "fuzz.h"
#include "bfctl.h"

#define MAX_ARGS	64

static int no_verb(int argc, char **argv)
{
	FUZZ_CHECK(!"bfctl_parse_cmd ran a verb");
	return BFCTL_ERR;
}

int bfctl_kernel_main(int argc, char **argv) { return no_verb(argc, argv); }
int bfctl_image_main(int argc, char **argv) { return no_verb(argc, argv); }
int bfctl_save_main(int argc, char **argv) { return no_verb(argc, argv); }
int bfctl_restore_main(int argc, char **argv) { return no_verb(argc, argv); }
int bfctl_sync_main(int argc, char **argv) { return no_verb(argc, argv); }
int bfctl_redis_main(int argc, char **argv) { return no_verb(argc, argv); }
int bfctl_lsm_main(int argc, char **argv) { return no_verb(argc, argv); }
int bfctl_xdp_main(int argc, char **argv) { return no_verb(argc, argv); }

static bool is_global(const char *s, bool *json)
{
	*json = !strcmp(s, "-j") || !strcmp(s, "--json");
	return *json || !strcmp(s, "-q") || !strcmp(s, "--quiet");
}

static bool is_help(const char *s)
{
	return !strcmp(s, "-h") || !strcmp(s, "--help") || !strcmp(s, "help");
}

/* what bfctl_parse_cmd returned must match a plain reading of argv */
static void check_cmd(int argc, char **argv, int ret,
		      const struct bfctl_cmd *cmd)
{
	bool json = false, quiet = false, j;
	int i;

	for (i = 1; i < argc && is_global(argv[i], &j); i++) {
		json |= j;
		quiet |= !j;
	}
	FUZZ_CHECK(ret == BFCTL_OK || ret == BFCTL_USAGE);
	FUZZ_CHECK(cmd->json == json && cmd->quiet == quiet);
	if (i >= argc) {
		/* no verb */
		FUZZ_CHECK(ret == BFCTL_USAGE && !cmd->verb && !cmd->bad_verb);
	} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
		FUZZ_CHECK(ret == BFCTL_OK && cmd->version && !cmd->verb);
	} else if (is_help(argv[i]) && i + 1 >= argc) {
		FUZZ_CHECK(ret == BFCTL_OK && cmd->help && !cmd->verb);
	} else {
		/* help VERB: that verb, with help set */
		bool help = is_help(argv[i]);

		i += help;
		if (ret == BFCTL_OK) {
			FUZZ_CHECK(cmd->verb && !cmd->bad_verb);
			FUZZ_CHECK(cmd->help == (help || (cmd->argc > 1 &&
				   (!strcmp(cmd->argv[1], "-h") ||
				    !strcmp(cmd->argv[1], "--help")))));
			FUZZ_CHECK(cmd->argv == argv + i &&
				   cmd->argc == argc - i);
			FUZZ_CHECK(!strcmp(cmd->argv[0], cmd->verb->name));
			FUZZ_CHECK(cmd->verb->main && cmd->verb->summary &&
				   cmd->verb->usage);
		} else {
			FUZZ_CHECK(!cmd->verb && cmd->bad_verb == argv[i]);
		}
	}
}

/* the verbs' number parsers: results in range, values round-trip */
static void check_numbers(const char *s)
{
	u64 v = 0xa5a5, v2, seed[2] = { 1, 1 };
	u32 ppb = 0;
	int parts = 0;
	char buf[64];

	if (!bfctl_parse_u64(s, &v)) {
		FUZZ_CHECK(s[0] != '-' && s[0] != '+');
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
		FUZZ_CHECK(!bfctl_parse_u64(buf, &v2) && v2 == v);
		snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)v);
		FUZZ_CHECK(!bfctl_parse_u64(buf, &v2) && v2 == v);
	} else {
		FUZZ_CHECK(v == 0xa5a5);
	}
	/* counts: a superset of the plain numbers, each suffix its factor */
	v2 = 0x5a5a;
	if (!bfctl_parse_count(s, &v2)) {
		FUZZ_CHECK(s[0] != '-' && s[0] != '+');
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v2);
		FUZZ_CHECK(!bfctl_parse_count(buf, &v) && v == v2);
		if (v2 <= ~0ULL / 1000) {
			snprintf(buf, sizeof(buf), "%lluk", (unsigned long long)v2);
			FUZZ_CHECK(!bfctl_parse_count(buf, &v) && v == v2 * 1000);
		}
		if (v2 <= ~0ULL >> 20) {
			snprintf(buf, sizeof(buf), "%lluMi", (unsigned long long)v2);
			FUZZ_CHECK(!bfctl_parse_count(buf, &v) && v == v2 << 20);
		}
	} else {
		FUZZ_CHECK(v2 == 0x5a5a);
		FUZZ_CHECK(bfctl_parse_u64(s, &v));
	}
	if (!bfctl_parse_fpr(s, &ppb))
		FUZZ_CHECK(ppb >= 1 && ppb <= 999999999);
	if (!bfctl_parse_seed(s, seed, &parts)) {
		FUZZ_CHECK(parts == 1 || parts == 2);
		FUZZ_CHECK(parts == 2 || seed[1] == 0);
		FUZZ_CHECK((parts == 2) == !!strchr(s, ','));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 1], *saved[MAX_ARGS + 1];
	struct bfctl_cmd cmd;
	size_t off = 0;
	int argc = 0, i, ret;

	/* one exact-size heap copy per argument, so ASan sees overreads */
	while (off < size && argc < MAX_ARGS) {
		const u8 *nul = memchr(data + off, 0, size - off);
		size_t len = nul ? (size_t)(nul - data - off) : size - off;

		argv[argc] = malloc(len + 1);
		FUZZ_CHECK(argv[argc]);
		memcpy(argv[argc], data + off, len);
		argv[argc][len] = 0;
		argc++;
		off += len + 1;
	}
	argv[argc] = NULL;
	memcpy(saved, argv, sizeof(argv));

	ret = bfctl_parse_cmd(argc, argv, &cmd);
	FUZZ_CHECK(!memcmp(saved, argv, sizeof(argv)));
	check_cmd(argc, argv, ret, &cmd);
	FUZZ_CHECK(!bfctl_json && !bfctl_quiet);

	for (i = 0; i < argc; i++) {
		check_numbers(argv[i]);
		free(argv[i]);
	}
	return 0;
}
