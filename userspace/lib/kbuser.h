/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libkbcore userspace helpers: CRC32C implementations, key parsing and key
 * files, file I/O.  Shared by bfctl, the native tests and the benchmark.
 */
#ifndef _KBUSER_H
#define _KBUSER_H

#include <stddef.h>
#include "kb_core.h"

/* CRC32C raw update (kernel crc32c() semantics) */
u32 kb_crc32c_sw(u32 crc, const void *data, u64 len);
u32 kb_crc32c_hw(u32 crc, const void *data, u64 len);	/* needs SSE4.2 */
int kb_crc32c_hw_available(void);

/* key text formats */
enum kbu_key_format {
	KBU_FMT_STR = 0,	/* bytes as is; ip/net types: textual address */
	KBU_FMT_HEX = 1,	/* hex digits, decoded to the key's bytes */
};

/* "str"/"hex" -> KBU_FMT_*, else -1 */
int kbu_key_format_from_name(const char *s);

/*
 * Parse one key given as text s[0..len) for key_type in format fmt into
 * out (KB_KEY_MAX_LEN + 1 bytes).  str with bytes/str types copies the
 * bytes; str with ip types takes "a.b.c.d", "x:y::z", and with net types
 * "addr/plen" (no "/plen": full length).  hex decodes pairs of hex digits.
 * The result is checked with kb_key_validate().  0 or -EINVAL; on error
 * *why (if not NULL) gets a short reason.
 */
int kbu_key_parse(u32 key_type, int fmt, const char *s, size_t len, u8 *out,
		  u32 *outlen, const char **why);

/* a file of keys, one per line */
struct kbu_keyset {
	struct kb_key *keys;
	u64 n;
	void *map;		/* the file, mmap()ed (or read: heap) */
	size_t map_len;
	bool heap;		/* map is malloc()ed: a pipe, stdin */
	u8 *buf;		/* decoded keys (not for str bytes/str) */
};

/*
 * Load keys from path (one per line, '\n' separated; a final line without
 * '\n' counts; empty lines are skipped; "-" is stdin; pipes work).  0, or -errno with a message in
 * err (errlen bytes) naming the line.
 */
int kbu_keyset_load(struct kbu_keyset *ks, const char *path, u32 key_type,
		    int fmt, char *err, size_t errlen);
void kbu_keyset_free(struct kbu_keyset *ks);

/* read a whole file ("-": stdin) into a 64-byte aligned buffer (free()) */
int kbu_read_file(const char *path, u8 **buf, size_t *len);
/* write buf to path via a temporary file and rename; 0 or -errno */
int kbu_write_file(const char *path, const void *buf, size_t len);
/* write all of buf to fd; 0 or -errno */
int kbu_write_all(int fd, const void *buf, size_t len);

/* 64-byte aligned zeroed allocation (free()), NULL on failure */
void *kbu_alloc_payload(u64 bytes);

/* random bytes from getrandom(); 0 or -errno */
int kbu_random(void *buf, size_t len);

#endif /* _KBUSER_H */
