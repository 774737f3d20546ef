// SPDX-License-Identifier: GPL-2.0
/*
 * C interface to libleveldb's NewBloomFilterPolicy().
 */
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>
#include "ldb_shim.h"

struct ldb_policy {
	const leveldb::FilterPolicy *pol;
};

struct ldb_policy *ldb_policy_new(int bits_per_key)
{
	struct ldb_policy *p = new ldb_policy;

	p->pol = leveldb::NewBloomFilterPolicy(bits_per_key);
	return p;
}

void ldb_policy_free(struct ldb_policy *p)
{
	delete p->pol;
	delete p;
}

const char *ldb_policy_name(struct ldb_policy *p)
{
	return p->pol->Name();
}

void *ldb_create_filter(struct ldb_policy *p, const void *const *keys,
			const size_t *lens, size_t n, size_t *out_len)
{
	std::vector<leveldb::Slice> sl;
	std::string out;
	void *buf;

	sl.reserve(n);
	for (size_t i = 0; i < n; i++)
		sl.emplace_back((const char *)keys[i], lens[i]);
	p->pol->CreateFilter(sl.data(), (int)n, &out);
	buf = malloc(out.size() ? out.size() : 1);
	if (buf)
		memcpy(buf, out.data(), out.size());
	*out_len = out.size();
	return buf;
}

bool ldb_key_may_match(struct ldb_policy *p, const void *key, size_t len,
		       const void *filter, size_t filter_len)
{
	return p->pol->KeyMayMatch(leveldb::Slice((const char *)key, len),
				   leveldb::Slice((const char *)filter,
						  filter_len));
}
