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

struct kargs {
	const char *verb;
	bool exist, terse;
	const char *file, *out;
	struct bfctl_spec_opts s;	/* size, key type, hash, seed */
	int kind;			/* --kind (rebuild), -1: not given */
	char **pos;		/* positional arguments */
	int npos;
};

/* "bfctl: verb: message" and the pointer to help; BFCTL_USAGE */
int kusage(const char *verb, const char *fmt, const char *arg);
/* buf non-NULL: kusage() writes its message there instead (restore) */
void kusage_capture(char *buf, size_t len);
/* the option classes a verb takes (kargs_parse's allowed) */
enum {
	KO_GLOBAL	= 1 << 0,	/* -j -q, anywhere for every verb */
	KO_EXIST	= 1 << 1,
	KO_FILE		= 1 << 2,
	KO_OUT		= 1 << 3,	/* -o */
	KO_TERSE	= 1 << 4,	/* -t */
	KO_SPEC		= 1 << 5,	/* sizing, --key-type, --hash, --seed */
	KO_KIND		= 1 << 6,	/* --kind (rebuild) */
};
/* argv (argv[0] the verb) -> a; an option outside allowed is a usage error */
int kargs_parse(int argc, char **argv, struct kargs *a, u32 allowed);
/* between min and max (-1: any) positional arguments, else usage */
int want_pos(const struct kargs *a, int min, int max, const char *use);
int check_name(const struct kargs *a, const char *name);
/* "verb NAME" for messages (a static buffer) */
const char *what2(const char *verb, const char *name);
/* sizing, hash and seed options -> a create/begin request; BFCTL_* */
int fill_spec(const struct kargs *a, struct kb_ioc_create *c);
/* create NAME KIND [options] -> the request (name, kind, spec); BFCTL_* */
int create_request(struct kargs *a, struct kb_ioc_create *c);

/* stream a key file into name (flags KB_KEYS_F_TXN: this fd's txn) */
int add_file(struct bfctl_conn *conn, const char *verb, const char *name,
	     u32 key_type, const char *file, u32 flags, u64 *total);
int do_rebuild(struct bfctl_conn *conn, struct kargs *a);
int do_upload(struct bfctl_conn *conn, struct kargs *a);
int do_export(struct bfctl_conn *conn, struct kargs *a);

#endif /* _BFCTL_KVERBS_H */
