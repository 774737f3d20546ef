/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom in-kernel consumer API.
 *
 * A module that wants to test keys against a named kbloom filter (like
 * xt_bloom) does:
 *
 *	struct kbloom_ref *ref = kbloom_get(net, "blocklist");
 *	if (IS_ERR(ref))
 *		return PTR_ERR(ref);	(-ENOENT, -EINVAL, -ENODEV)
 *	...
 *	if (kbloom_test_addr(ref, AF_INET, &iph->saddr))
 *		...maybe present...
 *	...
 *	kbloom_put(ref);
 *
 * kbloom_get() and kbloom_put() may sleep (process context).  A reference
 * pins the filter (destroy and rename return EBUSY while it is held) and
 * the kbloom module.  kbloom_test*() never sleep and take no lock (RCU
 * inside): they are safe in any context, softirq and hardirq included.
 * They always use the filter's current generation, so swaps, rebuilds,
 * uploads and flushes are seen by the next test.  If the filter's network
 * namespace goes away while a reference is held, the filter lives on
 * (unreachable by name) until kbloom_put().
 *
 * (The names are kbloom_* rather than kb_filter_*: kb_filter_test() is the
 * filter core's single-filter primitive, kmod/core/kb_core.h.)
 */
#ifndef _KBLOOM_H
#define _KBLOOM_H

#include <linux/types.h>

struct net;
struct kbloom_ref;

/*
 * a counted reference on filter name of net, or ERR_PTR(-errno):
 * -EINVAL exactly when name is not a valid filter name
 */
struct kbloom_ref *kbloom_get(struct net *net, const char *name);

/* drop a reference from kbloom_get() */
void kbloom_put(struct kbloom_ref *ref);

/* the filter's key type (enum kb_key_type); it never changes */
u32 kbloom_key_type(const struct kbloom_ref *ref);

/* the filter's kind (enum kb_kind) now: a rebuild may change it */
u32 kbloom_kind(const struct kbloom_ref *ref);
/* true if key (encoded for the filter's key type) may be present */
bool kbloom_test(struct kbloom_ref *ref, const void *key, u32 len);

/*
 * true if an address may be present.  family: AF_INET (addr: 4 bytes) or
 * AF_INET6 (16 bytes), network byte order.  ipv4/ipv6 filters answer for
 * their family only (false for the other), ip filters for both; net4/net6/
 * net filters test the address masked to every prefix length the current
 * generation holds, longest first; bytes/str filters test the raw address.
 * Counts one lookup (and a hit if true) in the filter's statistics.
 */
bool kbloom_test_addr(struct kbloom_ref *ref, int family, const void *addr);

/*
 * kbloom_test_addr() for callers already in an RCU read-side critical
 * section (rcu_read_lock(), or softirqs, preemption or interrupts off),
 * e.g. netfilter matches: it saves the per-call rcu_read_lock/unlock.
 */
bool kbloom_test_addr_rcu(struct kbloom_ref *ref, int family,
			  const void *addr);

/*
 * Adds from the packet path (blocked filters; e.g. xt_bloom's BLOOM
 * target): the address, for net4/net6/net filters its prefix of length
 * plen (0..32 or 0..128; other key types ignore plen), added to the
 * filter's newest slice with atomics, in an RCU read-side critical section
 * as kbloom_test_addr_rcu(); never sleeps, takes no lock.  Returns
 *   1  added (it tested absent)
 *   0  it may be present already: nothing done (a time window's key is
 *      not refreshed unless flags has KBLOOM_ADD_REFRESH, which adds it
 *      to the newest slice anyway)
 *   -ENOSPC  refused: the filter's estimated FPR is over its max-fpr-ppb
 *      cap (counted in learn-refused; over-capacity is announced once in
 *      the filter's namespace; net, the caller's, is not used)
 *   -EOPNOTSUPP  not a blocked filter
 *   -EINVAL  an address the filter's key type does not take (ipv4, net4
 *      for IPv6 ...), plen out of range, or unknown flags
 *   -ENOENT  the filter was destroyed
 * Counts an add in the filter's statistics when it adds.
 */
#define KBLOOM_ADD_REFRESH	(1U << 0)

int kbloom_add_addr_rcu(struct net *net, struct kbloom_ref *ref, int family,
			const void *addr, u32 plen, u32 flags);

/*
 * Lockless lookups by name and by id, for callers that cannot sleep (BPF
 * programs through kfuncs): in an RCU read-side critical section; they
 * never sleep and take no lock.  A filter's id is unique and never reused
 * while kbloom is loaded; it follows the filter through renames and swaps
 * (a swap exchanges contents, not names or ids), and an id kept across a
 * destroy and a create of the same name finds nothing.  A rename publishes
 * the new name before it unpublishes the old one: a lookup of the old
 * name that misses, followed by one of the new name, finds the filter.
 */

/* the id of net's filter called name, 0 if there is none */
u64 kbloom_id_rcu(struct net *net, const char *name);

/* the current name of net's filter id into buf[32]: 0, or -ENOENT */
int kbloom_name_rcu(struct net *net, u64 id, char *buf);

#endif /* _KBLOOM_H */
