/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libkbcore userspace helpers: CRC32C implementations, key parsing and key
 * files, file I/O.  Shared by bfctl, the native tests and the benchmark.
 */
#ifndef _KBUSER_H
#define _KBUSER_H

#include <stdbool.h>
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

/* the value of one hex digit (either case), or -1 */
int kbu_hexval(char c);

/*
 * Parse one key given as text s[0..len) for key_type in format fmt into
 * out (KB_KEY_MAX_LEN + 1 bytes).  str with bytes/str types copies the
 * bytes; str with ip types takes "a.b.c.d", "x:y::z", and with net types
 * "addr/plen" (no "/plen": full length).  hex decodes pairs of hex digits.
 * The result is checked with kb_key_validate().  0 or -EINVAL; on error
 * *why (if not NULL) gets a short reason (a host-bits one names the
 * network meant: it lasts until the thread's next call).
 */
int kbu_key_parse(u32 key_type, int fmt, const char *s, size_t len, u8 *out,
		  u32 *outlen, const char **why);

/*
 * The one rule for a line of a key file (kbkeyfile.c), whatever reads it:
 * blank lines (spaces, tabs, CRs only) and lines whose first non-blank
 * character is '#' or ';' hold no key; the key is the rest without the
 * blanks (space, tab, CR: CRLF files) around it.  Where the key's text
 * cannot hold '#', ';' or a blank (addresses and networks, and any key
 * in hex), a '#' or ';' also starts a comment after the key ("10.0.0.1 #
 * why", FireHOL's and Spamhaus' lists).  Text keys (str, or bytes in --key-format str) are the line as
 * written, '#', ';' and inner blanks included: only whole-line comments
 * are skipped there, and a key that starts with '#' or ';' or starts or
 * ends with a blank is given in hex.  Returns whether s[0..len) (one
 * line, no '\n') holds a key, and where it is.
 */
bool kbu_keyline(u32 key_type, int fmt, const char *s, size_t len,
		 const char **key, size_t *klen);

/*
 * s[0..len) for a message, in single quotes: '\'' and '\\' escaped,
 * other bytes outside printable ASCII as \xHH, at most KBU_QUOTE_MAX bytes
 * of s (then "..." follows the quote).  out of KBU_QUOTE_SIZE bytes holds
 * the longest.
 */
#define KBU_QUOTE_MAX	64
#define KBU_QUOTE_SIZE	(KBU_QUOTE_MAX * 4 + 8)
void kbu_quote(char *out, size_t outlen, const char *s, size_t len);

/*
 * The one reader of key files: one key per line ('\n' separated; a final
 * line without '\n' counts) under kbu_keyline()'s rule; "-" is stdin;
 * pipes and FIFOs work; read in bounded chunks whatever the file's size.
 * Each key is parsed as key_type in format fmt (KBU_FMT_*: the caller
 * decides; the verbs' rules differ) and handed to key() with its line
 * number.  Returns 0, key()'s nonzero return, or -errno/-EINVAL with the
 * reason in err (errlen bytes) and, when it is about one line, its number
 * in *errline (else 0) and the reason followed by the line's key text,
 * quoted by kbu_quote() ("bad address '10.0.0.300'").
 */
int kbu_keyfile_read(const char *path, u32 key_type, int fmt,
		     int (*key)(const u8 *k, u32 len, u64 line, void *arg),
		     void *arg, char *err, size_t errlen, u64 *errline);
/* the same from fd, read from where it is to its end (not closed) */
int kbu_keyfile_read_fd(int fd, u32 key_type, int fmt,
			int (*key)(const u8 *k, u32 len, u64 line, void *arg),
			void *arg, char *err, size_t errlen, u64 *errline);
/*
 * The message of a failed kbu_keyfile_read*() of path: "PATH:LINE: err"
 * about a line, else "PATH: err" (or strerror(-ret) when err is empty)
 */
void kbu_keyfile_msg(char *out, size_t outlen, const char *path, int ret,
		     const char *err, u64 errline);

/* a file of keys, one per line, all in memory (image build sizes by n) */
struct kbu_keyset {
	struct kb_key *keys;
	u64 n;
	u8 *buf;		/* the decoded keys */
};

/*
 * Load the keys of path with kbu_keyfile_read().  0, or -errno with a
 * message in err (errlen bytes) naming the file and the line.
 */
int kbu_keyset_load(struct kbu_keyset *ks, const char *path, u32 key_type,
		    int fmt, char *err, size_t errlen);
void kbu_keyset_free(struct kbu_keyset *ks);

/*
 * read a whole file ("-": stdin) into a 64-byte aligned buffer (free());
 * an image with a CRC mismatch is read again (kbu_torn_retry()) and given
 * as last read, for the caller to refuse
 */
int kbu_read_file(const char *path, u8 **buf, size_t *len);
/*
 * read a file ("-": stdin) of at most max bytes into buf, reading no more
 * than max + 1 bytes of it (a FIFO or a device too): -EFBIG if longer;
 * an image with a CRC mismatch as kbu_read_file()
 */
int kbu_read_file_max(const char *path, void *buf, size_t max, size_t *len);
/*
 * kbtorn.c: an image read while bfctl redis watch -o merged a delta into
 * it in place (no lock: the bytes first, the CRC trailer last) has a CRC
 * mismatch.  kbu_image_torn(): buf is an image whose CRC does not match.
 * kbu_torn_retry(): try(arg, last) until it returns anything but
 * -EBADMSG, 5 times at most over ~150 ms; last is true for the last try,
 * whose result is returned whatever it is.
 */
bool kbu_image_torn(const void *buf, size_t len);
int kbu_torn_retry(int (*try)(void *arg, bool last), void *arg);
/*
 * Where an output path (-o, save -file) goes.  "-" is stdout.  A device,
 * FIFO or socket is written in place: root's -o /dev/null must not turn
 * the device node into a regular file.  A symlink is followed to its
 * target, so the link stays.  A regular file, or a new path, is written to
 * a temporary file next to it and renamed over it only once complete (a
 * crash or an error never leaves half a file), keeping an existing file's
 * mode and owner; a new file is 0600 (images and saves hold seeds).
 * Symlinks on the way are followed as the kernel's fs.protected_symlinks
 * allows (whatever the sysctl says): not one that another user made in a
 * sticky world-writable directory such as /tmp (EACCES).
 */
struct kbu_out {
	int fd;			/* write here */
	bool replace;		/* fd is tmp: kbu_out_commit() renames it */
	char path[4096];	/* the target, symlinks resolved */
	char tmp[4096 + 32];
};

/* open path for output as above; 0 or -errno (nothing created on error) */
int kbu_out_open(struct kbu_out *o, const char *path);
/* finish: sync and rename a replacement, close; 0 or -errno */
int kbu_out_commit(struct kbu_out *o);
/* give up: a replacement's temporary file goes, the target is untouched */
void kbu_out_abort(struct kbu_out *o);
/* write buf to path through kbu_out_*(); 0 or -errno */
int kbu_write_file(const char *path, const void *buf, size_t len);
/* write all of buf to fd; 0 or -errno */
int kbu_write_all(int fd, const void *buf, size_t len);
/*
 * Write the image of f (count in its header) to path through kbu_out_*(),
 * produced by the core's image cursor in pieces of KBU_IMAGE_PIECE bytes:
 * the payload is never copied whole, so writing an image costs a bounded
 * buffer, not a second copy of the filter.  0 or -errno (nothing replaced).
 */
#define KBU_IMAGE_PIECE	(1u << 20)
int kbu_write_image(const char *path, const struct kb_filter *f, u64 count);

/* 64-byte aligned zeroed allocation (free()), NULL on failure */
void *kbu_alloc_payload(u64 bytes);

/* random bytes from getrandom(); 0 or -errno */
int kbu_random(void *buf, size_t len);

#endif /* _KBUSER_H */
