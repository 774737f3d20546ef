/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libkbloom: test kbloom filters from applications at memory speed.
 *
 * A handle maps a filter of the kernel module (kbloom_open(), through
 * /dev/kbloom) or a kbloom image file (kbloom_open_image()) read-only and
 * answers tests with the module's own filter code, exactly as the kernel
 * would (KB_IOC_TEST), without a system call per key.  It follows
 * rebuilds by itself.  See libkbloom(3).
 *
 * Every function returning int or long returns >= 0 on success and a
 * negative errno value on failure; a failing call leaves a message for
 * the calling thread in kbloom_errmsg().  Handles are thread-safe (every
 * call but kbloom_close()).
 */
#ifndef KBLOOM_H
#define KBLOOM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kbloom;				/* opaque handle */

struct kbloom_key {
	const void *data;
	size_t len;
};

/* flags of kbloom_open() */
#define KBLOOM_RDONLY	0u
#define KBLOOM_WRITE	1u		/* add, add_many, test_and_add too */

/* the filter NAME of the caller's network namespace, mapped */
int kbloom_open(const char *name, unsigned int flags, struct kbloom **out);
/* a kbloom image file (bfctl image build), mapped read-only; no fd */
int kbloom_open_image(const char *path, struct kbloom **out);
void kbloom_close(struct kbloom *f);
/* the filter's fd, for poll(); -1 for images */
int kbloom_fd(const struct kbloom *f);
/* map the current generation now: 1 if it changed, 0 if not */
int kbloom_refresh(struct kbloom *f);

/* 1 maybe present, 0 absent (the kernel's KB_IOC_TEST answer) */
int kbloom_test(struct kbloom *f, const void *key, size_t len);
/* AF_INET (4 bytes) or AF_INET6 (16) as a packet's address */
int kbloom_test_addr(struct kbloom *f, int family, const void *addr);
/*
 * keys[0..n): bitmap (may be NULL) gets bit i % 64 of word i / 64 set
 * for key i maybe present; returns how many are
 */
long kbloom_test_many(struct kbloom *f, const struct kbloom_key *keys,
		      size_t n, uint64_t *bitmap);

/* writers (KBLOOM_WRITE) only; -EROFS otherwise */
int kbloom_add(struct kbloom *f, const void *key, size_t len);
/* returns the number of keys that were new */
long kbloom_add_many(struct kbloom *f, const struct kbloom_key *keys,
		     size_t n);
/* 1 if the key was maybe present before, 0 if absent (now added) */
int kbloom_test_and_add(struct kbloom *f, const void *key, size_t len);

/* this thread's last error message ("" if none) */
const char *kbloom_errmsg(void);

/* of the generation the handle maps */
struct kbloom_info {
	uint32_t kind, key_type, hash, k;
	uint64_t m, items, payload_bytes, generation, id;
	uint32_t fpr_ppb, prefixes;
	uint32_t flags;			/* KBLOOM_WRITE if opened for writing */
	uint32_t reserved;
};

int kbloom_info(struct kbloom *f, struct kbloom_info *info);

#ifdef __cplusplus
}
#endif

#endif /* KBLOOM_H */
