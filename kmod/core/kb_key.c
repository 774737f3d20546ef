// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom core: names, key encodings and prefix-length bitmaps.
 */
#include "kb_internal.h"

bool kb_name_valid(const char *name, u32 len)
{
	u32 i;

	if (len < 1 || len >= KB_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		    c == ':' || c == '-')
			continue;
		return false;
	}
	return true;
}

int kb_key_net_valid(const u8 *d, u32 alen)
{
	u32 plen = d[alen], i;

	if (plen > alen * 8)
		return -EINVAL;
	for (i = 0; i < alen; i++) {
		u32 nb = plen > i * 8 ? plen - i * 8 : 0;

		if (nb >= 8)
			continue;
		if (d[i] & (0xffU >> nb))
			return -EINVAL;
	}
	return 0;
}

/*
 * An atomic OR: the packet path (kmod/learn.c) notes lengths of a live
 * filter from any CPU, concurrently with its writer.
 */
void kb_params_note_plen(struct kb_params *p, const u8 *d, u32 len)
{
	u32 plen = d[len - 1];
	u64 v, bit;

	if (len == 5) {
		v = KB_READ_ONCE(p->plen4);
		bit = 1ULL << plen;
		if (!(v & bit))
			kb_atomic_fetch_or64(&p->plen4, bit);
	} else {
		v = KB_READ_ONCE(p->plen6[plen / 64]);
		bit = 1ULL << (plen % 64);
		if (!(v & bit))
			kb_atomic_fetch_or64(&p->plen6[plen / 64], bit);
	}
}

/*
 * plens: the bitmap words of kb_params.plen4 or plen6, bit i = length i.
 * Only the lengths present are visited: a /24-only filter costs one probe.
 */
bool kb_filter_test_prefixes(const struct kb_filter *f, const u64 *plens,
			     u32 alen, const u8 *addr)
{
	u32 maxp = alen * 8;
	int top = maxp / 64, w;
	u8 key[17];

	for (w = top; w >= 0; w--) {
		u64 bits = KB_READ_ONCE(plens[w]);

		/* validated params hold no longer prefix; never read past */
		if (w == top)
			bits &= (2ULL << (maxp % 64)) - 1;

		while (bits) {
			u32 b = kb_fls64(bits) - 1;

			bits &= ~(1ULL << b);
			kb_key_net(key, addr, alen, w * 64 + b);
			if (kb_filter_test(f, key, alen + 1))
				return true;
		}
	}
	return false;
}

u32 kb_filter_lookup_many(const struct kb_filter *f, const struct kb_key *keys,
			  u32 n, u64 *bitmap)
{
	u32 i, hits = 0;

	if (!kb_key_type_is_net(f->p.key_type))
		return kb_filter_test_many(f, keys, n, bitmap);
	if (bitmap)
		memset(bitmap, 0, (n + 63) / 64 * 8);
	for (i = 0; i < n; i++) {
		const u8 *d = keys[i].data;
		u32 alen = keys[i].len - 1;
		bool hit;

		if (d[alen] == alen * 8)
			hit = kb_filter_test_prefixes(f, alen == 4 ? &f->p.plen4 :
						      f->p.plen6, alen, d);
		else
			hit = kb_filter_test(f, d, keys[i].len);
		if (hit && bitmap)
			bitmap[i / 64] |= 1ULL << (i % 64);
		hits += hit;
	}
	return hits;
}

bool kb_params_has_prefix(const struct kb_params *p, u32 family, u32 plen)
{
	if (family == 4)
		return plen <= 32 && ((KB_READ_ONCE(p->plen4) >> plen) & 1);
	if (family == 6)
		return plen <= 128 &&
		       ((KB_READ_ONCE(p->plen6[plen / 64]) >> (plen % 64)) & 1);
	return false;
}

static const char * const kb_kind_names[] = {
	[KB_KIND_BLOCKED] = "blocked",
	[KB_KIND_CLASSIC] = "classic",
	[KB_KIND_COUNTING] = "counting",
	[KB_KIND_GOZERO] = "gozero",
};

static const char * const kb_hash_names[] = {
	[KB_HASH_XXH64] = "xxh64",
	[KB_HASH_SIPHASH] = "siphash",
	[KB_HASH_LEVELDB] = "leveldb",
	[KB_HASH_MURMUR3] = "murmur3",
};

static const char * const kb_key_type_names[] = {
	[KB_KEY_BYTES] = "bytes",
	[KB_KEY_STR] = "str",
	[KB_KEY_IPV4] = "ipv4",
	[KB_KEY_IPV6] = "ipv6",
	[KB_KEY_IP] = "ip",
	[KB_KEY_NET4] = "net4",
	[KB_KEY_NET6] = "net6",
	[KB_KEY_NET] = "net",
};

static int kb_lookup(const char * const *tab, u32 n, const char *s)
{
	u32 i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!strcmp(tab[i], s))
			return (int)i;
	return -EINVAL;
}

const char *kb_kind_name(u32 kind)
{
	return kind < KB_NELEM(kb_kind_names) ? kb_kind_names[kind] : "?";
}

const char *kb_hash_name(u32 hash)
{
	return hash < KB_NELEM(kb_hash_names) ? kb_hash_names[hash] : "?";
}

const char *kb_key_type_name(u32 key_type)
{
	return key_type < KB_NELEM(kb_key_type_names) ?
		kb_key_type_names[key_type] : "?";
}

int kb_kind_from_name(const char *s)
{
	return kb_lookup(kb_kind_names, KB_NELEM(kb_kind_names), s);
}

int kb_hash_from_name(const char *s)
{
	return kb_lookup(kb_hash_names, KB_NELEM(kb_hash_names), s);
}

int kb_key_type_from_name(const char *s)
{
	return kb_lookup(kb_key_type_names, KB_NELEM(kb_key_type_names), s);
}
