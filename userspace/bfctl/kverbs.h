/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl: what the kernel verbs (kernel.c) and the bulk verbs (bulk.c)
 * share: their parsed command line and helpers.
 */
#ifndef _BFCTL_KVERBS_H
#define _BFCTL_KVERBS_H

#include "bfctl.h"

/* keys per /dev/kbloom batch of the bulk paths, and their bytes */
#define BULK_KEYS	(1u << 20)
#define BULK_BYTES	(64u << 20)

struct bfctl_kargs {
	const char *verb;
	bool exist, terse;
	bool force;			/* --force: past the guards of capacity.c */
	u32 max_fpr_ppb;		/* --max-fpr, 0: not given */
	const char *file, *out;
	const char *readers, *writers;	/* --readers, --writers: groups */
	bool grant_none;		/* --none (grant) */
	struct bfctl_spec_opts s;	/* size, key type, hash, seed */
	int kind;			/* --kind (rebuild), -1: not given */
	int key_fmt;			/* --key-format (KBU_FMT_*), -1: not
					 * given (bfctl_key_format())
					 */
	struct bfctl_shape_opts sh;	/* --window --slices --grow --max-bytes */
	char **pos;		/* positional arguments */
	int npos;
};

/* "bfctl: verb: message" and the pointer to help; BFCTL_USAGE */
int bfctl_usage(const char *verb, const char *fmt, const char *arg);
/* buf non-NULL: bfctl_usage() writes its message there instead (restore) */
void bfctl_usage_capture(char *buf, size_t len);
/* the option classes a verb takes (bfctl_kargs_parse's allowed) */
enum {
	KO_GLOBAL	= 1 << 0,	/* -q, anywhere for every verb */
	KO_EXIST	= 1 << 1,
	KO_FILE		= 1 << 2,
	KO_OUT		= 1 << 3,	/* -o */
	KO_TERSE	= 1 << 4,	/* -t */
	KO_SPEC		= 1 << 5,	/* sizing, --key-type, --hash, --seed */
	KO_KIND		= 1 << 6,	/* --kind (rebuild) */
	KO_FORCE	= 1 << 7,	/* --force (add, rebuild) */
	KO_KEYFMT	= 1 << 8,	/* --key-format (the verbs reading keys) */
	KO_JSON		= 1 << 9,	/* -j: the verbs with JSON output */
	KO_MAXFPR	= 1 << 10,	/* --max-fpr (upload; create: the
					 * packet path's cap)
					 */
	KO_GRANT	= 1 << 11,	/* --readers, --writers, --none */
	KO_SHAPE	= 1 << 12,	/* --window, --slices, --grow,
					 * --max-bytes (create)
					 */
};
/* argv (argv[0] the verb) -> a; an option outside allowed is a usage error */
int bfctl_kargs_parse(int argc, char **argv, struct bfctl_kargs *a,
		      u32 allowed);
/* between min and max (-1: any) positional arguments, else usage */
int bfctl_want_pos(const struct bfctl_kargs *a, int min, int max,
		   const char *use);
int bfctl_check_name(const struct bfctl_kargs *a, const char *name);
/* "verb NAME" for messages (a static buffer) */
const char *bfctl_verb_name(const char *verb, const char *name);
/* sizing, hash and seed options -> a create/begin request; BFCTL_* */
int bfctl_fill_spec(const struct bfctl_kargs *a, struct kb_ioc_create *c);
/* create NAME [KIND] [options] -> the request (name, kind, spec); BFCTL_* */
int bfctl_create_request(struct bfctl_kargs *a, struct kb_ioc_create *c);
/*
 * the cap on adds from the packet path of a filter of fpr_ppb (0: sized
 * without one) that create gave none: the kernel's default
 */
u32 bfctl_default_max_fpr(u32 fpr_ppb);
/* the parameters the kernel makes of c (core sizing); 0 or -errno */
int bfctl_create_params(const struct kb_ioc_create *c, struct kb_params *p,
			u64 max);
/*
 * -exist on create (bfctl create, restore's create lines): an existing
 * filter is kept only if it is the filter c would make, as ipset's -exist
 * for an identical set: kind, key type, hash, m, k, and the seed if given
 */
bool bfctl_create_matches(const struct kb_ioc_create *c,
			  const struct kb_params *p,
			  const struct kb_ioc_info *info);

/*
 * Windows and growing filters (slices.c): --window/--slices and
 * --grow/--max-bytes of a create into c (checked: usage errors), whether
 * an existing filter has the shape c asks for (create -exist)
 */
int bfctl_shape_fill(const struct bfctl_kargs *a, struct kb_ioc_create *c);
bool bfctl_shape_matches(const struct kb_ioc_create *c,
			 const struct kb_ioc_info *info);
bool bfctl_shape_size_matches(const struct kb_ioc_create *c,
			      const struct kb_ioc_info *info);

/*
 * The guards of a live blocklist (capacity.c).  An add that would take a
 * filter past BFCTL_CAP_HARD_X times its configured capacity (its false
 * positive rate would approach "everything matches") is refused without
 * --force; so is a rebuild that would drop more than
 * BFCTL_REBUILD_MAX_DROP_PCT percent of the keys (an empty or truncated
 * key file).  Each prints why and returns BFCTL_ERR, or BFCTL_OK.
 */
#define BFCTL_CAP_HARD_X		2
#define BFCTL_REBUILD_MAX_DROP_PCT	50
/* what bfctl_cap_check() reads of a filter with params p holding count keys */
void bfctl_held_from_params(struct kb_ioc_info *i, const struct kb_params *p,
			    u64 count);
/* i: the filter before the add; more: the keys to add (an upper bound) */
int bfctl_cap_check(const struct kb_ioc_info *i, u64 more, bool force,
		    const char *what);
/* after an add: warn on stderr (unless -q) if name is over capacity */
void bfctl_cap_warn(struct kbconn *conn, const char *name);
/* live: the filter now; total: the keys its rebuild was given */
int bfctl_rebuild_check(const struct kb_ioc_info *live, u64 total, bool force,
			const char *what);

/*
 * stream a key file into name (flags KB_KEYS_F_TXN: this fd's txn);
 * guard: the filter's description, to refuse past its capacity
 * (bfctl_cap_check()), or NULL
 */
int bfctl_add_file(struct kbconn *conn, const char *verb, const char *name,
		   u32 key_type, int fmt, const char *file, u32 flags,
		   const struct kb_ioc_info *guard, u64 *total);
int bfctl_do_rebuild(struct kbconn *conn, struct bfctl_kargs *a);
int bfctl_do_upload(struct kbconn *conn, struct bfctl_kargs *a);
int bfctl_do_export(struct kbconn *conn, struct bfctl_kargs *a);
/* keyverbs.c: the verbs on keys of the command line (add also -file) */
int bfctl_do_add(struct kbconn *conn, struct bfctl_kargs *a);
int bfctl_do_del(struct kbconn *conn, struct bfctl_kargs *a);
int bfctl_do_test(struct kbconn *conn, struct bfctl_kargs *a);
int bfctl_do_test_and_add(struct kbconn *conn, struct bfctl_kargs *a);
int bfctl_do_except(struct kbconn *conn, struct bfctl_kargs *a);

/*
 * Grants (grant.c, grant_verb.c): the groups to set, gids as this host
 * names them (KB_GID_NONE: clear one); only those flagged are set.
 */
struct bfctl_grant {
	bool set_readers, set_writers;
	u32 readers, writers;
};
/*
 * GROUP (a name, getgrnam(), or a number) -> *gid: 0, or -EINVAL (a bad
 * number) / -ENOENT (no such group) with err naming it
 */
int bfctl_group_parse(const char *s, u32 *gid, char *err, size_t errlen);
/* gid's name on this host, or its number: into buf, returned */
const char *bfctl_group_text(u32 gid, char *buf, size_t len);
/* --readers, --writers, --none of a -> g; 0 or -errno with err */
int bfctl_grant_from_args(const struct bfctl_kargs *a, struct bfctl_grant *g,
			  char *err, size_t errlen);
int bfctl_do_grant(struct kbconn *conn, struct bfctl_kargs *a);
/* set a's --readers/--writers/--none on name: BFCTL_* (printed) */
int bfctl_grant_apply(struct kbconn *conn, struct bfctl_kargs *a,
		      const char *name);
/* create c with a's --readers/--writers: 0, -errno, or BFCTL_USAGE */
int bfctl_create_grant(struct kbconn *conn, struct bfctl_kargs *a,
		       const struct kb_ioc_create *c);
/* name's groups (KB_GID_NONE: none, or unknown) */
void bfctl_grants_get(struct kbconn *conn, const char *name, u32 *readers,
		      u32 *writers);
/* the grants' members of a JSON object, and the end of a list row */
void bfctl_grants_json(u32 readers, u32 writers);
void bfctl_grants_row(u32 readers, u32 writers);

#endif /* _BFCTL_KVERBS_H */
