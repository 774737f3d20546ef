/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C interface to Debian's libleveldb bloom filter policy (ldb_shim.cc), for
 * the LevelDB compatibility test and the benchmark.
 */
#ifndef _LDB_SHIM_H
#define _LDB_SHIM_H

#include <stddef.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ldb_policy;

struct ldb_policy *ldb_policy_new(int bits_per_key);
void ldb_policy_free(struct ldb_policy *p);
const char *ldb_policy_name(struct ldb_policy *p);
/* CreateFilter over n keys; returns a malloc()ed buffer of *out_len bytes */
void *ldb_create_filter(struct ldb_policy *p, const void *const *keys,
			const size_t *lens, size_t n, size_t *out_len);
bool ldb_key_may_match(struct ldb_policy *p, const void *key, size_t len,
		       const void *filter, size_t filter_len);

#ifdef __cplusplus
}
#endif

#endif /* _LDB_SHIM_H */
