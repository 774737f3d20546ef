/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the image verbs' files (image.c, image_foreign.c, image_probes.c)
 * share: their options, a loaded image, messages.
 */
#ifndef _BFCTL_IMAGE_H
#define _BFCTL_IMAGE_H

#include "bfctl.h"

/* a loaded image with its filter attached in place */
struct bfctl_image_loaded {
	u8 *buf;
	size_t len;
	struct kb_filter f;
	u64 count;
};

/* the options each image verb takes (bfctl_image_args_parse()'s allowed) */
enum {
	IO_BUILD	= 1 << 0,	/* --kind, sizing, --seed, --hash, --key-type */
	IO_KEYFMT	= 1 << 1,
	IO_FORMAT	= 1 << 2,	/* --format */
	IO_OUT		= 1 << 3,	/* -o */
	IO_JSON		= 1 << 4,	/* -j, also bfctl -j image ... */
	IO_QUIET	= 1 << 5,	/* bfctl -q image ... */
	IO_FILE		= 1 << 6,	/* -file (build's key file) */
};

struct bfctl_image_args {
	int kind, key_fmt;
	bool json, have_kind;	/* have_kind: --kind given, even blocked */
	struct bfctl_spec_opts s;	/* size, key type, hash, seed */
	const char *file, *out, *format;
};

/* a usage error of the running image verb (exit 2) */
int bfctl_image_usage_err(const char *fmt, const char *arg);
/* read, parse and attach an image file; BFCTL_* with a message */
int bfctl_image_load(const char *path, struct bfctl_image_loaded *li);
/* an image verb's options, those of allowed (IO_*) only */
int bfctl_image_args_parse(int argc, char **argv, struct bfctl_image_args *a,
			   u32 allowed);
/* --hash and --seed (or a random seed) into p */
int bfctl_image_hash_seed(struct kb_params *p,
			  const struct bfctl_image_args *a);
const char *bfctl_image_sizing_err(int err);
/* k of --bits M [--hashes K] (gozero: 14) */
u32 bfctl_image_mk_hashes(const struct bfctl_image_args *a);
/* exactly one sizing mode */
int bfctl_image_check_modes(const struct bfctl_image_args *a);
/*
 * a filter of kind sized by a's options (n keys if no --items) must fit
 * max_filter_bytes and this machine's memory; BFCTL_* with a message
 */
int bfctl_image_size_check(const struct bfctl_image_args *a, u32 kind,
			   u64 n);
/* f as an image file (out "-": stdout); BFCTL_* with a message */
int bfctl_image_write(const char *out, const struct kb_filter *f, u64 count);

/* the verbs of the other files */
int bfctl_image_export(int argc, char **argv);
int bfctl_image_import(int argc, char **argv);
int bfctl_image_probes(int argc, char **argv);

#endif /* _BFCTL_IMAGE_H */
