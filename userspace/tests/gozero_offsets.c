// SPDX-License-Identifier: GPL-2.0
/*
 * gozero_offsets BITS: the core's gozero offsets (kb_gozero_offsets()) of
 * each hex key on stdin, one key a line (an empty line is the empty key,
 * which bfctl's key parser refuses), printed as gozero-oracle's offsets
 * command prints go-zero's, for test-gozero-oracle to compare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kb_core.h"

static int nibble(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int main(int argc, char **argv)
{
	static char line[2 * KB_KEY_MAX_LEN + 2];
	u8 key[KB_KEY_MAX_LEN];
	u64 bits, off[KB_GOZERO_K];
	char *end;

	bits = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
	if (!bits || *end) {
		fprintf(stderr, "usage: gozero_offsets BITS < HEX-KEYS\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		size_t n = strcspn(line, "\n"), i;

		if (n % 2 || n / 2 > sizeof(key))
			return 1;
		for (i = 0; i < n / 2; i++) {
			int h = nibble(line[2 * i]), l = nibble(line[2 * i + 1]);

			if (h < 0 || l < 0)
				return 1;
			key[i] = (u8)(h << 4 | l);
		}
		kb_gozero_offsets(key, (u32)(n / 2), bits, off);
		for (i = 0; i < KB_GOZERO_K; i++)
			printf("%s%llu", i ? " " : "", (unsigned long long)off[i]);
		putchar('\n');
	}
	return 0;
}
