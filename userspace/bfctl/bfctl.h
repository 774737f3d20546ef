/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl: shared declarations of the verbs.
 */
#ifndef _BFCTL_H
#define _BFCTL_H

#include "kbuser.h"

/* exit codes */
#define BFCTL_OK	0	/* success, or key maybe present */
#define BFCTL_ABSENT	1	/* key absent */
#define BFCTL_USAGE	2	/* bad command line */
#define BFCTL_ERR	3	/* system, kernel or file error */

struct bfctl_verb {
	const char *name;
	int (*main)(int argc, char **argv);	/* argv[0] is the verb */
	const char *summary;
};

/* "bfctl: what: reason" on stderr; returns code */
int bfctl_fail(int code, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* parse an unsigned decimal or 0x-hex number, 0 or -EINVAL */
int bfctl_parse_u64(const char *s, u64 *v);

/* verbs */
int bfctl_image_main(int argc, char **argv);

#endif /* _BFCTL_H */
