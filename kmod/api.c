// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom in-kernel consumer API (kmod/kbloom.h).  A struct kbloom_ref is a
 * struct kb_set with a consumer reference.
 */
#include <linux/module.h>
#include <linux/socket.h>
#include <linux/err.h>

#include "internal.h"
#include "kbloom.h"

static struct kb_set *kb_ref_set(const struct kbloom_ref *ref)
{
	return (struct kb_set *)ref;
}

struct kbloom_ref *kbloom_get(struct net *net, const char *name)
{
	struct kb_set *s;

	if (!kb_name_ok(name, NULL))
		return ERR_PTR(-EINVAL);
	if (!try_module_get(THIS_MODULE))
		return ERR_PTR(-ENODEV);
	s = kb_set_find(net, name, true);
	if (IS_ERR(s)) {
		module_put(THIS_MODULE);
		return ERR_CAST(s);
	}
	return (struct kbloom_ref *)s;
}
EXPORT_SYMBOL_GPL(kbloom_get);

void kbloom_put(struct kbloom_ref *ref)
{
	struct kb_set *s = kb_ref_set(ref);

	atomic_dec(&s->users);
	kb_set_put(s);
	module_put(THIS_MODULE);
}
EXPORT_SYMBOL_GPL(kbloom_put);

u32 kbloom_key_type(const struct kbloom_ref *ref)
{
	return kb_ref_set(ref)->key_type;
}
EXPORT_SYMBOL_GPL(kbloom_key_type);

/* this_cpu ops: safe against interrupts on this CPU */
static void kb_ref_count(struct kb_set *s, bool hit)
{
	this_cpu_inc(s->stats->lookups);
	if (hit)
		this_cpu_inc(s->stats->hits);
}

bool kbloom_test(struct kbloom_ref *ref, const void *key, u32 len)
{
	struct kb_set *s = kb_ref_set(ref);
	struct kb_gen *g;
	bool hit;

	rcu_read_lock();
	g = rcu_dereference(s->gen);
	hit = kb_filter_test(&g->f, key, len);
	rcu_read_unlock();
	kb_ref_count(s, hit);
	return hit;
}
EXPORT_SYMBOL_GPL(kbloom_test);

/* test addr masked to every prefix length held for family, longest first */
static bool kb_test_prefixes(const struct kb_filter *f, int family,
			     const u8 *addr)
{
	u32 alen = family == AF_INET ? 4 : 16, maxp = alen * 8;
	u8 key[17];
	int plen;

	for (plen = maxp; plen >= 0; plen--) {
		u32 full = plen / 8, rem = plen % 8;

		if (!kb_params_has_prefix(&f->p, family == AF_INET ? 4 : 6,
					  plen))
			continue;
		memset(key, 0, sizeof(key));
		memcpy(key, addr, full);
		if (rem)
			key[full] = addr[full] & (u8)(0xff << (8 - rem));
		key[alen] = plen;
		if (kb_filter_test(f, key, alen + 1))
			return true;
	}
	return false;
}

bool kbloom_test_addr(struct kbloom_ref *ref, int family, const void *addr)
{
	struct kb_set *s = kb_ref_set(ref);
	u32 alen = family == AF_INET ? 4 : 16;
	struct kb_gen *g;
	bool hit = false;

	if (family != AF_INET && family != AF_INET6)
		return false;
	rcu_read_lock();
	g = rcu_dereference(s->gen);
	switch (g->f.p.key_type) {
	case KB_KEY_IPV4:
		hit = family == AF_INET && kb_filter_test(&g->f, addr, 4);
		break;
	case KB_KEY_IPV6:
		hit = family == AF_INET6 && kb_filter_test(&g->f, addr, 16);
		break;
	case KB_KEY_NET4:
		hit = family == AF_INET &&
		      kb_test_prefixes(&g->f, family, addr);
		break;
	case KB_KEY_NET6:
		hit = family == AF_INET6 &&
		      kb_test_prefixes(&g->f, family, addr);
		break;
	case KB_KEY_NET:
		hit = kb_test_prefixes(&g->f, family, addr);
		break;
	default:	/* ip, bytes, str: the raw address */
		hit = kb_filter_test(&g->f, addr, alen);
		break;
	}
	rcu_read_unlock();
	kb_ref_count(s, hit);
	return hit;
}
EXPORT_SYMBOL_GPL(kbloom_test_addr);
