// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom in-kernel consumer API (kmod/kbloom.h).  A struct kbloom_ref is a
 * struct kb_set with a consumer reference.
 */
#include <linux/module.h>
#include <linux/socket.h>
#include <linux/err.h>

#include "internal.h"
#include "lookup.h"
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

u32 kbloom_kind(const struct kbloom_ref *ref)
{
	return READ_ONCE(kb_ref_set(ref)->bpf.kind);
}
EXPORT_SYMBOL_GPL(kbloom_kind);

bool kb_set_test_rcu(struct kb_set *s, const void *key, u32 len)
{
	const struct kb_gen *g;
	bool hit;

	g = rcu_dereference_check(s->gen, rcu_read_lock_any_held());
	hit = kb_filter_test(&g->f, key, len);
	if (unlikely(g->nslices > 1) && !hit)
		hit = kb_gen_test_older(g, key, len);
	if (unlikely(hit)) {
		const struct kb_exc *e;

		e = rcu_dereference_check(s->exc, rcu_read_lock_any_held());
		hit = !(e && kb_exc_key(e, s->key_type, key, len));
	}
	kb_set_count_lookup(s, hit);
	return hit;
}

bool kbloom_test(struct kbloom_ref *ref, const void *key, u32 len)
{
	bool hit;

	rcu_read_lock();
	hit = kb_set_test_rcu(kb_ref_set(ref), key, len);
	rcu_read_unlock();
	return hit;
}
EXPORT_SYMBOL_GPL(kbloom_test);

bool kbloom_test_addr_rcu(struct kbloom_ref *ref, int family,
			  const void *addr)
{
	return kb_set_test_addr(kb_ref_set(ref), family, addr);
}
EXPORT_SYMBOL_GPL(kbloom_test_addr_rcu);

bool kbloom_test_addr(struct kbloom_ref *ref, int family, const void *addr)
{
	bool hit;

	rcu_read_lock();
	hit = kbloom_test_addr_rcu(ref, family, addr);
	rcu_read_unlock();
	return hit;
}
EXPORT_SYMBOL_GPL(kbloom_test_addr);

int kbloom_add_addr_rcu(struct net *net, struct kbloom_ref *ref, int family,
			const void *addr, u32 plen, u32 flags)
{
	return kb_set_learn_addr(kb_ref_set(ref), family, addr, plen, flags);
}
EXPORT_SYMBOL_GPL(kbloom_add_addr_rcu);

u64 kbloom_id_rcu(struct net *net, const char *name)
{
	struct kb_set *s;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "called outside an RCU read-side section");
	s = kb_set_find_rcu(net, name);
	return s ? s->id : 0;
}
EXPORT_SYMBOL_GPL(kbloom_id_rcu);

int kbloom_name_rcu(struct net *net, u64 id, char *buf)
{
	struct kb_set *s;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "called outside an RCU read-side section");
	s = kb_set_find_id_rcu(net, id);
	if (!s)
		return -ENOENT;
	strscpy(buf, rcu_dereference_check(s->nm, rcu_read_lock_any_held())->name,
		KB_NAME_MAX);
	return 0;
}
EXPORT_SYMBOL_GPL(kbloom_name_rcu);
