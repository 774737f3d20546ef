// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: a filter's exception set (uapi section 4, KB_CMD_EXCEPT_*), the
 * way ipset's nomatch entries punch holes in a set.  A Bloom filter answers
 * "maybe" for a small share of keys it never held; a blocklist drops those
 * sources.  The keys (net types: prefixes) of the exception set are
 * answered absent whatever the bits say, so a must-pass source can be
 * listed and is never dropped.
 *
 * The set belongs to the filter (struct kb_set), not to a generation:
 * rebuilds, uploads, transaction commits, flushes and swaps replace or
 * clear generations and leave it alone (a swap exchanges contents, and the
 * exceptions stay with the name and id, like the rules that use it).  Only
 * KB_CMD_EXCEPT_* change it; destroy frees it.
 *
 * Layout: one immutable allocation, the keys sorted by (length, bytes) and
 * packed after an offset table, looked up by binary search.  Readers (every
 * consumer's lookup, after the filter said "maybe") take no lock: the set
 * is an RCU pointer.  A change builds a new set from the old one under the
 * filter's mutex (O(set size), bounded by KB_EXC_MAX keys and
 * KB_EXC_BYTES_MAX key bytes; never O(filter size)), publishes it with
 * rcu_assign_pointer() and frees the old one after a grace period.  The
 * allocation is charged to the namespace's account (limits.c) like a
 * payload, until it is freed.
 */
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/bitops.h>
#include <linux/string.h>

#include "internal.h"

struct kb_exc {
	struct rcu_head rcu;
	struct kb_acct *acct;
	u64 charged;			/* bytes charged to acct */
	u64 seq;			/* unique per set built: dumps
					 * check that the set stayed
					 */
	u64 plen4;			/* net types: prefix lengths held */
	u64 plen6[3];
	u32 n;
	u32 off[];			/* n + 1 offsets into the keys,
					 * which follow off[n]
					 */
};

static const u8 *kb_exc_data(const struct kb_exc *e)
{
	return (const u8 *)&e->off[e->n + 1];
}

/* the canonical order: shorter keys first, then bytes */
static int kb_exc_cmp(const void *a, u32 alen, const void *b, u32 blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

static atomic64_t kb_exc_seqs = ATOMIC64_INIT(0);

/* the index of key in e, or -1 */
static int kb_exc_find(const struct kb_exc *e, const void *key, u32 len)
{
	const u8 *d = kb_exc_data(e);
	u32 lo = 0, hi = e->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		int c = kb_exc_cmp(d + e->off[mid],
				   e->off[mid + 1] - e->off[mid], key, len);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static bool kb_exc_has(const struct kb_exc *e, const void *key, u32 len)
{
	return kb_exc_find(e, key, len) >= 0;
}

/*
 * addr (alen bytes) within an excepted prefix of length at most maxp:
 * one search per prefix length the set holds
 */
static bool kb_exc_has_prefix(const struct kb_exc *e, const u8 *addr,
			      u32 alen, u32 maxp)
{
	const u64 *plens = alen == 4 ? &e->plen4 : e->plen6;
	u8 key[17];
	u32 w, p;

	for (w = 0; w < (alen == 4 ? 1 : 3); w++) {
		u64 bits = plens[w];

		while (bits) {
			p = w * 64 + __ffs64(bits);
			bits &= bits - 1;
			if (p > maxp)
				return false;
			kb_key_net(key, addr, alen, p);
			if (kb_exc_has(e, key, alen + 1))
				return true;
		}
	}
	return false;
}

noinline bool kb_exc_addr(const struct kb_exc *e, u32 key_type, int family,
			  const void *addr)
{
	u32 alen = family == AF_INET ? 4 : 16;

	if (kb_key_type_is_net(key_type))
		return kb_exc_has_prefix(e, addr, alen, alen * 8);
	return kb_exc_has(e, addr, alen);
}

noinline bool kb_exc_key(const struct kb_exc *e, u32 key_type,
			 const void *key, u32 len)
{
	if (kb_key_type_is_net(key_type) &&
	    !kb_key_validate(key_type, key, len))
		return kb_exc_has_prefix(e, key, len - 1, ((const u8 *)key)[len - 1]);
	return kb_exc_has(e, key, len);
}

u32 kb_exc_test_keys(struct kb_set *s, const struct kb_key *keys, u32 n,
		     u64 *bitmap)
{
	const struct kb_exc *e;
	u32 i, cleared = 0;

	rcu_read_lock();
	e = rcu_dereference(s->exc);
	for (i = 0; e && i < n; i++) {
		if (!(bitmap[i / 64] & BIT_ULL(i % 64)) ||
		    !kb_exc_key(e, s->key_type, keys[i].data, keys[i].len))
			continue;
		bitmap[i / 64] &= ~BIT_ULL(i % 64);
		cleared++;
	}
	rcu_read_unlock();
	return cleared;
}

u32 kb_exc_count(struct kb_set *s)
{
	const struct kb_exc *e;
	u32 n;

	rcu_read_lock();
	e = rcu_dereference(s->exc);
	n = e ? e->n : 0;
	rcu_read_unlock();
	return n;
}

void kb_exc_release(struct kb_exc *e)
{
	if (!e)
		return;
	kb_acct_uncharge(e->acct, e->charged);
	kb_acct_put(e->acct);
	kvfree(e);
}

static void kb_exc_free_rcu(struct rcu_head *head)
{
	kb_exc_release(container_of(head, struct kb_exc, rcu));
}

static int kb_key_sort_cmp(const void *a, const void *b)
{
	const struct kb_key *x = a, *y = b;

	return kb_exc_cmp(x->data, x->len, y->data, y->len);
}

/*
 * A set of the n sorted, distinct keys, charged to net's account; NULL
 * for no key at all (an empty set is no set).
 */
static struct kb_exc *kb_exc_build(struct net *net, u32 key_type,
				   const struct kb_key *keys, u32 n,
				   struct netlink_ext_ack *extack, int *err)
{
	struct kb_acct *acct = kb_net(net)->acct;
	struct kb_params pp = { .key_type = key_type };
	struct kb_exc *e;
	u64 size, bytes = 0;
	u32 i;
	u8 *d;

	*err = 0;
	if (!n)
		return NULL;
	for (i = 0; i < n; i++)
		bytes += keys[i].len;
	if (n > KB_EXC_MAX || bytes > KB_EXC_BYTES_MAX) {
		/* a literal: 6.1 has no formatted extack messages */
		BUILD_BUG_ON(KB_EXC_MAX != 4096 || KB_EXC_BYTES_MAX != 65536);
		NL_SET_ERR_MSG_MOD(extack,
				   "an exception set holds at most 4096 keys of 65536 bytes in all");
		*err = -ENOSPC;
		return NULL;
	}
	size = struct_size(e, off, n + 1) + bytes;
	*err = kb_acct_charge(acct, size, extack);
	if (*err)
		return NULL;
	e = kvzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!e) {
		kb_acct_uncharge(acct, size);
		*err = -ENOMEM;
		return NULL;
	}
	e->acct = kb_acct_get(acct);
	e->charged = size;
	e->seq = atomic64_inc_return(&kb_exc_seqs);
	e->n = n;
	d = (u8 *)kb_exc_data(e);
	for (i = 0; i < n; i++) {
		memcpy(d + e->off[i], keys[i].data, keys[i].len);
		e->off[i + 1] = e->off[i] + keys[i].len;
		if (kb_key_type_is_net(key_type))
			kb_params_note_plen(&pp, keys[i].data, keys[i].len);
	}
	e->plen4 = pp.plen4;
	memcpy(e->plen6, pp.plen6, sizeof(e->plen6));
	return e;
}

/*
 * Add (add) or remove the n keys (validated for s's key type) to or from
 * s's exception set.  Without exist, a key already excepted (add) or not
 * excepted (remove) fails the whole request with EEXIST or ENOENT and
 * *bad = its index.  Nothing changes on failure.
 */
int kb_exc_change(struct net *net, struct kb_set *s, bool add,
		  const struct kb_key *keys, u32 n, bool exist, u32 *bad,
		  struct netlink_ext_ack *extack)
{
	struct kb_exc *old, *e;
	unsigned long *gone = NULL;
	struct kb_key *all;
	u32 i, j, m = 0, oldn;
	int ret = 0, at;

	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	if (s->dead) {
		NL_SET_ERR_MSG_MOD(extack, "the filter was destroyed");
		ret = -ENOENT;
		goto unlock;
	}
	old = rcu_dereference_protected(s->exc, lockdep_is_held(&s->lock));
	oldn = old ? old->n : 0;
	if (!add && oldn) {
		gone = bitmap_zalloc(oldn, GFP_KERNEL);
		if (!gone) {
			ret = -ENOMEM;
			goto unlock;
		}
	}
	for (i = 0; i < n; i++) {
		at = old ? kb_exc_find(old, keys[i].data, keys[i].len) : -1;
		if (!exist && (at >= 0) == add) {
			*bad = i;
			if (add)
				NL_SET_ERR_MSG_MOD(extack, "key already in the exception set");
			else
				NL_SET_ERR_MSG_MOD(extack, "key not in the exception set");
			ret = add ? -EEXIST : -ENOENT;
			goto unlock;
		}
		if (!add && at >= 0)
			__set_bit(at, gone);
	}
	all = kvmalloc_array(oldn + (add ? n : 0), sizeof(*all), GFP_KERNEL);
	if (!all) {
		ret = -ENOMEM;
		goto unlock;
	}
	for (i = 0; i < oldn; i++) {
		if (gone && test_bit(i, gone))
			continue;
		all[m].data = kb_exc_data(old) + old->off[i];
		all[m].len = old->off[i + 1] - old->off[i];
		m++;
	}
	if (add) {
		memcpy(all + m, keys, n * sizeof(*keys));
		m += n;
		sort(all, m, sizeof(*all), kb_key_sort_cmp, NULL);
		/* drop duplicates (within the batch, or -exist repeats) */
		for (i = j = 0; i < m; i++)
			if (!j || kb_key_sort_cmp(&all[j - 1], &all[i]))
				all[j++] = all[i];
		m = j;
	}
	e = kb_exc_build(net, s->key_type, all, m, extack, &ret);
	kvfree(all);
	if (ret)
		goto unlock;
	rcu_assign_pointer(s->exc, e);
	if (old)
		call_rcu(&old->rcu, kb_exc_free_rcu);
	kb_map_sync(s, rcu_dereference_protected(s->gen,
						 lockdep_is_held(&s->lock)));
unlock:
	mutex_unlock(&s->lock);
	bitmap_free(gone);
	return ret;
}

int kb_exc_flush(struct kb_set *s, struct netlink_ext_ack *extack)
{
	struct kb_exc *old;

	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	if (s->dead) {
		mutex_unlock(&s->lock);
		NL_SET_ERR_MSG_MOD(extack, "the filter was destroyed");
		return -ENOENT;
	}
	old = rcu_dereference_protected(s->exc, lockdep_is_held(&s->lock));
	RCU_INIT_POINTER(s->exc, NULL);
	kb_map_sync(s, rcu_dereference_protected(s->gen,
						 lockdep_is_held(&s->lock)));
	mutex_unlock(&s->lock);
	if (old)
		call_rcu(&old->rcu, kb_exc_free_rcu);
	return 0;
}

/*
 * For a dump: call fn(key, len, arg) for the keys from *pos on while it
 * returns 0; *pos advances past each key fn took.  *ver (0 at the start)
 * binds the walk to one set: a set replaced since returns -EAGAIN.
 */
int kb_exc_walk(struct kb_set *s, u32 *pos, u64 *ver,
		int (*fn)(const void *key, u32 len, void *arg), void *arg)
{
	const struct kb_exc *e;
	u64 seq;
	int ret = 0;

	rcu_read_lock();
	e = rcu_dereference(s->exc);
	seq = (e ? e->seq : 0) + 1;
	if (!*ver)
		*ver = seq;
	else if (*ver != seq)
		ret = -EAGAIN;
	while (!ret && e && *pos < e->n) {
		ret = fn(kb_exc_data(e) + e->off[*pos],
			 e->off[*pos + 1] - e->off[*pos], arg);
		if (!ret)
			(*pos)++;
	}
	rcu_read_unlock();
	return ret;
}
