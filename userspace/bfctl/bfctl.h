/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl: shared declarations of the verbs.
 */
#ifndef _BFCTL_H
#define _BFCTL_H

#include <stdbool.h>
#include "kbuser.h"
#include "kbconn.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define BFCTL_VERSION	"0.1.0"

/* exit codes */
#define BFCTL_OK	0	/* success, or key maybe present */
#define BFCTL_ABSENT	1	/* key absent */
#define BFCTL_USAGE	2	/* bad command line */
#define BFCTL_ERR	3	/* system, kernel or file error */

struct bfctl_verb {
	const char *name;
	int (*main)(int argc, char **argv);	/* argv[0] is the verb */
	const char *summary;
	const char *usage;	/* its arguments, for help VERB / VERB --help */
};

/* the command line: global options and the verb with its arguments */
struct bfctl_cmd {
	const struct bfctl_verb *verb;	/* NULL: help, or a usage error */
	int argc;			/* the verb's: argv[0] is the verb */
	char **argv;
	bool json, quiet, help;		/* help: with verb, its usage */
	bool version;			/* --version */
	const char *bad_verb;		/* an unknown verb, for the message */
};

/* argv -> cmd, no output or side effects; BFCTL_OK or BFCTL_USAGE */
int bfctl_parse_cmd(int argc, char **argv, struct bfctl_cmd *cmd);

/* "bfctl: what: reason" on stderr; returns code */
int bfctl_fail(int code, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The tests' pause (main.c): with env naming a FIFO the caller owns,
 * write to it, then wait until the test closes it again; else nothing
 */
void bfctl_test_pause(const char *env);

/* parse an unsigned decimal or 0x-hex number, 0 or -EINVAL */
int bfctl_parse_u64(const char *s, u64 *v);
/* ... or with a size suffix or exponent: 1M, 10k, 1e6, 1Mi; 0 or -EINVAL */
int bfctl_parse_count(const char *s, u64 *v);

/* verbs */
int bfctl_image_main(int argc, char **argv);
int bfctl_kernel_main(int argc, char **argv);	/* argv[0] picks the verb */
int bfctl_save_main(int argc, char **argv);
int bfctl_restore_main(int argc, char **argv);
int bfctl_sync_main(int argc, char **argv);
int bfctl_redis_main(int argc, char **argv);	/* redis.c */
int bfctl_lsm_main(int argc, char **argv);	/* lsm.c: the path filter */
int bfctl_xdp_main(int argc, char **argv);	/* xdp.c, links libbpf */

/*
 * Kernel components bfctl attached that test a filter by name, which
 * fail open once it is destroyed (ipset refuses to destroy a set "in use
 * by a kernel component"; kbloom's kernel counts only iptables rules and
 * kbloom_get() holders):
 * - xdp.c: the devices of this netns whose blocklist tests name, as
 *   "veth0 (xdp native), eth1 (tc)" into buf; how many, or -errno
 * - lsm.c: 1 if the pinned path filter tests name in this netns, 0 if
 *   not, or -errno
 * - inuse.c: BFCTL_OK if neither uses name (or force), else why on
 *   stderr and BFCTL_ERR; verb names the refused action
 */
int bfctl_xdp_users(const char *name, char *buf, size_t len);
int bfctl_lsm_uses(const char *name);
int bfctl_in_use_guard(const char *verb, const char *name, bool force);

/* global output options (-j, -q), set before or after the verb */
extern bool bfctl_json;
extern bool bfctl_quiet;

/* ---- sizes in the user's terms (capacity.c) ---- */

/* kmod/limits.c's default max_filter_bytes, when the module is not loaded */
#define BFCTL_DEF_MAX_FILTER_BYTES	(4ULL << 30)

/* bytes as "512 bytes", "1.5 MiB", "1.2 TiB" into buf; returns buf */
const char *bfctl_human_bytes(char *buf, size_t len, double bytes);
/* /sys/module/kbloom/parameters/NAME, or def (unloaded or unreadable) */
u64 bfctl_module_param(const char *name, u64 def);
/* this machine's physical memory in bytes (U64_MAX if unknown) */
u64 bfctl_phys_mem(void);
/*
 * The payload bytes the filter c asks for (kind and sizing), as the core
 * sizes it with no limit; past the core's own bound (KB_M_MAX) the sizing
 * formula's estimate; 0 if c is invalid otherwise (the caller's sizing
 * then says why).  Costs no memory, so it runs before any allocation.
 */
double bfctl_payload_need(const struct kb_ioc_create *c);
/*
 * If c needs more than max payload bytes, print "what: refused: the
 * filter needs 1.2 TiB (N bytes); over LIMIT (4.0 GiB)" and return code,
 * else BFCTL_OK.
 */
int bfctl_size_refuse(const struct kb_ioc_create *c, u64 max,
		      const char *limit, int code, const char *what);

/* ---- talking to the kernel (userspace/lib/kbconn.h) ---- */

/*
 * whether BPF programs can call kbloom's kfuncs (module parameter and
 * module BTF): all of them; only some hooks' (why: "xdp tc; tracing:
 * -EINVAL", the hooks that have them, then the failures); or none (why)
 * (kernel.c)
 */
enum bfctl_kf { BFCTL_KF_NO, BFCTL_KF_YES, BFCTL_KF_PARTIAL };
enum bfctl_kf bfctl_kfuncs_state(char *why, size_t len);
/* "no", "yes" or "partial" */
const char *bfctl_kfuncs_word(enum bfctl_kf kf);

/* print "bfctl: what: strerror[: extack]", return BFCTL_ERR */
int bfctl_fail_err(struct kbconn *c, const char *what, int err);

/* ---- keys (keys.c) ---- */

/* packed keys as /dev/kbloom takes them (key_size 0: __u16 len + bytes) */
struct bfctl_batch {
	u8 *buf;
	u64 len, cap;
	u64 count, max_count;
	u64 *line;		/* source line (or argv index) of each key */
};

int bfctl_batch_init(struct bfctl_batch *b, u64 max_count, u64 cap);
void bfctl_batch_free(struct bfctl_batch *b);
void bfctl_batch_reset(struct bfctl_batch *b);
/* make room for one more key (doubling: a batch that holds a whole file) */
int bfctl_batch_reserve(struct bfctl_batch *b);
/*
 * The one rule for the text of keys, for every verb that reads keys (add,
 * del, test, test-and-add, rebuild, restore, image build, image test):
 * given, a --key-format (KBU_FMT_*), else by the key type: bytes are hex,
 * the rest text.  given < 0: not given.
 */
int bfctl_key_format(int given, u32 key_type);
/* parse text as key_type in format fmt and append it; 0 or -EINVAL, *why */
int bfctl_batch_push_text(struct bfctl_batch *b, u32 key_type, int fmt,
			  const char *s, size_t len, u64 line,
			  const char **why);
/* the text of key i of b (for messages), into out of outlen bytes */
void bfctl_batch_key_text(const struct bfctl_batch *b, u32 key_type, u64 i, char *out,
		  size_t outlen);

/*
 * Stream the key file open at fd (kbu_keyfile_read_fd(), keys in format
 * fmt) into b and call flush whenever b is full and at the end, and also
 * before a bad line: what went in is then every key before it.  Returns
 * 0, flush's nonzero return, or -errno/-EINVAL with the reason in err
 * and, about a line, its number in *errline (kbu_keyfile_msg()).
 */
int bfctl_batch_stream_fd(int fd, u32 key_type, int fmt,
			  struct bfctl_batch *b,
			  int (*flush)(struct bfctl_batch *b, void *arg),
			  void *arg, char *err, size_t errlen, u64 *errline);
/*
 * Read the key file at fd to its end, checking every line: the number of
 * keys, or -errno/-EINVAL with err and *errline as above.  Bounded memory
 * (one chunk of the reader), whatever the file's size.
 */
s64 bfctl_keys_check_fd(int fd, u32 key_type, int fmt, char *err,
			size_t errlen, u64 *errline);
/*
 * The keys of a regular file (or stdin redirected from one: put back
 * where it was), for sizing; -errno if not regular or a line is bad
 */
s64 bfctl_count_keys(const char *path, u32 key_type, int fmt);
/*
 * The prefix lengths a lookup would test in a filter of key_type holding
 * the keys of path (kb_params_nplens()): a regular file, or stdin
 * redirected from one, read once more and put back; 0 for a net filter
 * of no keys, an unreadable file (the load reports it) or a pipe, which
 * only the load may read (--prefixes sizes it then).
 */
u32 bfctl_file_nplens(const char *path, u32 key_type, int fmt);

/*
 * xdp attach --priority's bound, and a save's prio=: libxdp's run
 * priorities are unsigned ints
 */
#define BFCTL_XDP_PRIO_MAX	0x7fffffff

/* ---- JSON output (json.c): one compact document on stdout ---- */

/* key NULL: in an array or at the top */
void bfctl_json_open_obj(const char *key);
void bfctl_json_close_obj(void);
void bfctl_json_open_arr(const char *key);
void bfctl_json_close_arr(void);
void bfctl_json_str(const char *key, const char *v);
void bfctl_json_strn(const char *key, const char *v, size_t len);
void bfctl_json_u64(const char *key, u64 v);
/*
 * an estimated item count: null when saturated (every bit set: the core's
 * U64_MAX, which JSON readers would round as a double anyway)
 */
void bfctl_json_est_items(const char *key, u64 v);
void bfctl_json_bool(const char *key, bool v);
void bfctl_json_double(const char *key, double v);
/* after the outermost close: newline and flush */
void bfctl_json_end(void);

/* helpers shared by the kernel verbs and save/restore (kernel.c) */
int bfctl_parse_fpr(const char *s, u32 *ppb);

/*
 * The saturation guard (capacity.c): a payload about to replace a filter
 * (upload, restore, sync, redis pull/watch) whose estimated FPR, from its
 * fill (the core's kb_filter_guard()), is over a limit is refused, and
 * the old filter serves on.  The kernel enforces it on uploads and
 * commits given the limit (uapi KB_IOC_UPLOAD's max_fpr_ppb); bfctl checks
 * itself where no kernel is involved (-o) or before anything changes
 * (restore, sync).
 */
/* --max-fpr P: "1%" or "0.01", over 0 and at most 1; 0 or -EINVAL */
int bfctl_parse_max_fpr(const char *s, u32 *ppb);
/* the limit for a payload of params p: 0 (none) with --force, else
 * --max-fpr (max_ppb, 0: not given), else kb_guard_default_ppb(p)
 */
u32 bfctl_guard_limit(const struct kb_params *p, u32 max_ppb, bool force);
/* the same for an image, from its header (0 for a malformed one) */
u32 bfctl_guard_image_limit(const void *img, u64 len, u32 max_ppb,
			    bool force);
/* an image's payload against limit: 0, -EDOM (over it), -EINVAL (bad) */
int bfctl_guard_image(const void *img, u64 len, u32 limit,
		      struct kb_stats *st);
/* "saturated, fill 97%, est. FPR 64% (limit 1%; ...)" into buf */
void bfctl_guard_why(const struct kb_stats *st, u32 limit, char *buf,
		     size_t len);
/* a payload of params p (classic, gozero: by bits set alone) with
 * bits_set bits set, counted as it streamed by: as bfctl_guard_image()
 */
int bfctl_guard_bits(const struct kb_params *p, u64 bits_set, u32 limit,
		     struct kb_stats *st);
int bfctl_parse_seed(const char *s, u64 seed[2], int *nparts);

/*
 * The filter options that `create`, `rebuild`, restore's create lines and
 * `image build` share (--items --fpr --bits-per-key --bits --hashes
 * --key-type --hash --seed --prefixes): one parser, one meaning.  What a verb does
 * with them (defaults, which combinations) stays the verb's.
 */
struct bfctl_spec_opts {
	bool have_items, have_fpr, have_bpk, have_bits, have_hashes;
	u64 items, bits, bpk, hashes, seed[2];
	u32 fpr_ppb;
	u32 prefixes;		/* --prefixes (net types' lookups), 0: not given */
	int seed_parts;		/* 0: no --seed */
	int key_type, hash;	/* -1: not given */
};

void bfctl_spec_opts_init(struct bfctl_spec_opts *s);
/*
 * Option name (without dashes) with value val: 1 taken, 0 not one of
 * these options, -1 a bad value (msg says why).
 */
int bfctl_spec_opt(struct bfctl_spec_opts *s, const char *name,
		   const char *val, char *msg, size_t len);

/*
 * Windows and growing filters (slices.c): the options of a create, one
 * parser for `bfctl create` and restore's create lines
 */
struct bfctl_shape_opts {
	u64 window_ms;		/* --window, 0: not given */
	u64 max_bytes;		/* --max-bytes, 0: not given */
	u32 slices;		/* --slices, 0: not given */
	bool grow;		/* --grow */
};

/*
 * Option name (without dashes) with value val: 0 taken, -1 a bad value
 * (msg says why)
 */
int bfctl_shape_opt(struct bfctl_shape_opts *o, const char *name,
		    const char *val, char *msg, size_t len);
/* a duration: 500ms, 10s, 10m, 1h, 2d (a plain number: seconds) */
int bfctl_parse_duration_ms(const char *s, u64 *ms);
/* ms as the shortest exact duration ("10m", "1500ms") into buf */
const char *bfctl_duration_text(u64 ms, char *buf, size_t len);
/* info's window or growth: text lines of info, members of -j */
void bfctl_slices_print(const struct kb_ioc_info *i);
void bfctl_slices_json(const struct kb_ioc_info *i);

#endif /* _BFCTL_H */
