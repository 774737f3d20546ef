/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared bits of the libFuzzer targets (userspace/fuzz/fuzz_*.c).  Each
 * target is built with clang -fsanitize=fuzzer,address,undefined together
 * with the core and userspace/lib sources; see userspace/build.mk.
 */
#ifndef _KB_FUZZ_H
#define _KB_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kb_core.h"
#include "kbuser.h"

/* payload limit handed to the parsers: bounds memory per input */
#define FUZZ_MAX_BYTES	(1U << 20)

/*
 * An invariant broke: report it and abort (libFuzzer saves the input).
 * Written to fd 2, so it shows even while a target silences stderr.
 */
#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			dprintf(2, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* exact-size heap copy, so that ASan sees any read past the end */
static inline u8 *fuzz_dup(const u8 *data, size_t size)
{
	u8 *p = malloc(size ? size : 1);

	FUZZ_CHECK(p);
	if (size)
		memcpy(p, data, size);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* _KB_FUZZ_H */
