// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom registry, its index: the names and ids of each network
 * namespace's filters (internal.h: struct kb_name, kb_net.names and .ids),
 * lookups (locked, lockless, referenced) and rename, the one verb that
 * changes nothing but the index.  The rest of the registry (filters'
 * lifetimes, key batches, the verbs, the walk) is registry.c.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/jhash.h>
#include <linux/hash.h>

#include "internal.h"
#include "lookup.h"
#include "registry.h"

bool kb_name_ok(const char *name, struct netlink_ext_ack *extack)
{
	size_t len = strnlen(name, KB_NAME_MAX);

	if (len < KB_NAME_MAX && kb_name_valid(name, len))
		return true;
	NL_SET_ERR_MSG_MOD(extack, "bad filter name (1..31 of [A-Za-z0-9_.:-])");
	return false;
}

/* ---- the index (internal.h: struct kb_name) ---------------------------- */

/*
 * A name hashes as its bytes and length, not padded: a by-name kfunc hashes
 * the program's bytes in place, with no copy to pad.
 */
struct hlist_head *kb_name_chain(struct kb_net *kn, const char *name, u32 len)
{
	u32 h = jhash(name, len, kn->seed);

	return &kn->names[hash_32(h, KB_NET_HASH_BITS)];
}

/* the filter named name[0..len) in kn; RCU or kn->lock */
static struct kb_set *kb_index_name(struct kb_net *kn, const char *name,
				    u32 len)
{
	struct kb_name *e;

	/*
	 * Pairs with the smp_wmb() of a rename (new name in, then old name
	 * out): a reader that missed the old name in an earlier lookup sees
	 * the new one here.  rcu_dereference() orders only loads that depend
	 * on it, and the two chains are independent (free on x86).
	 */
	smp_rmb();
	hlist_for_each_entry_rcu(e, kb_name_chain(kn, name, len), node,
				 lockdep_is_held(&kn->lock))
		if (e->len == len && !memcmp(e->name, name, len))
			return e->set;
	return NULL;
}

struct kb_name *kb_name_new(struct kb_set *s, const char *name)
{
	struct kb_name *e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);

	if (e) {
		e->set = s;
		strscpy_pad(e->name, name, KB_NAME_MAX);
		e->len = strnlen(e->name, KB_NAME_MAX);
	}
	return e;
}

/* name: NUL-terminated; a longer one than KB_NAME_MAX - 1 names nothing */
struct kb_set *kb_set_find_rcu(struct net *net, const char *name)
{
	size_t len = strnlen(name, KB_NAME_MAX);

	return len < KB_NAME_MAX ?
	       kb_index_name(kb_net_rcu(net), name, len) : NULL;
}

/* name[0..len), no NUL needed; len 1..KB_NAME_MAX - 1 (else nothing) */
struct kb_set *kb_set_find_len_rcu(struct net *net, const char *name, u32 len)
{
	if (!len || len >= KB_NAME_MAX)
		return NULL;
	return kb_index_name(kb_net_rcu(net), name, len);
}

struct kb_set *kb_set_find_id_rcu(struct net *net, u64 id)
{
	return kb_index_id(kb_net_rcu(net), id);
}

/*
 * A reference on s, found under RCU: none if its last reference is gone
 * (it is being freed) or it is destroyed (unlinked, a reader raced it).
 */
struct kb_set *kb_set_get_rcu(struct kb_set *s)
{
	if (!s || !refcount_inc_not_zero(&s->ref))
		return NULL;
	if (READ_ONCE(s->dead)) {
		kb_set_put(s);
		return NULL;
	}
	return s;
}

void kb_set_name(struct kb_set *s, char *buf)
{
	rcu_read_lock();
	strscpy(buf, rcu_dereference(s->nm)->name, KB_NAME_MAX);
	rcu_read_unlock();
}

/* ---- referenced lookups ------------------------------------------------- */

struct kb_set *kb_set_lookup(struct kb_net *kn, const char *name)
{
	size_t len = strnlen(name, KB_NAME_MAX);

	lockdep_assert_held(&kn->lock);
	return len < KB_NAME_MAX ? kb_index_name(kn, name, len) : NULL;
}

/*
 * A referenced filter by name (user: a consumer reference), or ERR_PTR
 * (-ENOENT, -EINTR when killed waiting for the registry lock).
 */
struct kb_set *kb_set_find(struct net *net, const char *name, bool user)
{
	struct kb_net *kn = kb_net(net);
	struct kb_set *s;

	if (mutex_lock_killable(&kn->lock))
		return ERR_PTR(-EINTR);
	s = kb_set_lookup(kn, name);
	if (s) {
		refcount_inc(&s->ref);
		if (user)
			atomic_inc(&s->users);
	}
	mutex_unlock(&kn->lock);
	return s ?: ERR_PTR(-ENOENT);
}

/*
 * A referenced filter by id (kb_set.id), or ERR_PTR(-ENOENT) once it is
 * destroyed.  For holders that must not pin a filter between steps.
 */
struct kb_set *kb_set_find_id(struct net *net, u64 id)
{
	struct kb_set *s;

	rcu_read_lock();
	s = kb_set_get_rcu(kb_set_find_id_rcu(net, id));
	rcu_read_unlock();
	return s ?: ERR_PTR(-ENOENT);
}
/* ---- rename: a change of the index alone ----------------------------- */

int kb_reg_rename(struct net *net, const char *from, const char *to,
		  struct netlink_ext_ack *extack)
{
	struct kb_net *kn = kb_net(net);
	struct kb_name *nm, *old;
	struct kb_set *s;
	int ret = 0;

	/* the new name's entry, allocated before anything changes */
	nm = kb_name_new(NULL, to);
	if (!nm)
		return -ENOMEM;
	if (mutex_lock_killable(&kn->lock)) {
		kfree(nm);
		return -EINTR;
	}
	s = kb_set_lookup(kn, from);
	if (!s) {
		NL_SET_ERR_MSG_MOD(extack, "no such filter");
		ret = -ENOENT;
	} else if (kb_set_lookup(kn, to)) {
		NL_SET_ERR_MSG_MOD(extack, "a filter of the new name exists");
		ret = -EEXIST;
	} else if (atomic_read(&s->users)) {
		/* like ipset: a referenced set keeps its name */
		NL_SET_ERR_MSG_MOD(extack, "filter in use by an in-kernel consumer");
		ret = -EBUSY;
	} else {
		/*
		 * Remove + insert, the new name first: a lockless reader that
		 * misses the old name and then looks up the new one finds the
		 * filter (the write barrier orders the two for other CPUs).
		 */
		old = rcu_dereference_protected(s->nm,
						lockdep_is_held(&kn->lock));
		nm->set = s;
		hlist_add_head_rcu(&nm->node,
				   kb_name_chain(kn, nm->name, nm->len));
		/* the new name visible to all before the old one goes */
		smp_wmb();
		hlist_del_rcu(&old->node);
		rcu_assign_pointer(s->nm, nm);
		kfree_rcu(old, rcu);
		kn->reg_gen++;
		nm = NULL;
	}
	mutex_unlock(&kn->lock);
	kfree(nm);
	if (!ret)
		kb_reg_announce(net, KB_EVENT_RENAMED, from, to);
	return ret;
}
