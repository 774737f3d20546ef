// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom limits: the module parameters that bound filters, and the
 * accounts payload bytes are charged to.
 *
 * A generation's payload is charged from its allocation to its final free,
 * not to its unlinking: an operation in flight, an in-kernel consumer or an
 * RCU grace period can keep it alive after a destroy, and a limit that
 * forgot it then would not bound memory.  It is charged to three accounts:
 *  - its network namespace's (max_netns_bytes);
 *  - for a namespace owned by a user namespace other than the initial one,
 *    the account of the user who created the outermost of those user
 *    namespaces (max_userns_bytes).  Anyone can get CAP_NET_ADMIN over as
 *    many network namespaces as `unshare -Urn` allows; all of them share
 *    their creator's one account, as the kernel's ucounts limits do;
 *  - the module's (max_total_bytes, by default half of RAM).
 * Accounts are refcounted: a generation holds its namespace's account,
 * which holds its user's, so a filter that outlives its namespace (held by
 * a consumer) still uncharges safely when it is freed.  The last put can
 * come from an RCU callback: the user table's lock is irq-safe.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/mm.h>
#include <linux/user_namespace.h>

#include "internal.h"

/* ---- module parameters, clamped to what the code can honour ------------- */

unsigned long long kb_max_filters = 1024;
unsigned long long kb_max_filter_bytes = 4ULL << 30;
unsigned long long kb_max_netns_bytes = 16ULL << 30;
unsigned long long kb_max_userns_bytes = 256ULL << 20;
unsigned long long kb_max_total_bytes;	/* 0 at load: half of RAM */

/* no payload is larger than the biggest kind can be (counting: m / 2) */
#define KB_PAYLOAD_LIMIT	(KB_M_MAX / 2 > (u64)SIZE_MAX ? (u64)SIZE_MAX : KB_M_MAX / 2)
#define KB_BYTES_LIMIT		(1ULL << 50)

struct kb_param_range {
	unsigned long long *val;
	unsigned long long min, max;
};

static int kb_param_set(const char *val, const struct kernel_param *kp)
{
	const struct kb_param_range *r = kp->arg;
	unsigned long long v;
	int ret;

	ret = kstrtoull(val, 0, &v);
	if (ret)
		return ret;
	if (v < r->min || v > r->max)
		pr_info("%s=%llu clamped to %llu..%llu\n", kp->name, v,
			r->min, r->max);
	WRITE_ONCE(*r->val, clamp(v, r->min, r->max));
	return 0;
}

static int kb_param_get(char *buf, const struct kernel_param *kp)
{
	const struct kb_param_range *r = kp->arg;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(*r->val));
}

static const struct kernel_param_ops kb_param_ops = {
	.set = kb_param_set,
	.get = kb_param_get,
};

#define KB_PARAM(name, var, lo, hi, desc)				\
	static struct kb_param_range kb_range_##name = {		\
		.val = &(var), .min = (lo), .max = (hi),		\
	};								\
	module_param_cb(name, &kb_param_ops, &kb_range_##name, 0644);	\
	MODULE_PARM_DESC(name, desc)

KB_PARAM(max_filters, kb_max_filters, 0, 1U << 20,
	 "Most filters per network namespace (1024)");
KB_PARAM(max_filter_bytes, kb_max_filter_bytes, 64, KB_PAYLOAD_LIMIT,
	 "Most payload bytes of one filter (4 GiB)");
KB_PARAM(max_netns_bytes, kb_max_netns_bytes, 0, KB_BYTES_LIMIT,
	 "Most payload bytes per network namespace, rebuilds in progress included (16 GiB)");
KB_PARAM(max_userns_bytes, kb_max_userns_bytes, 0, KB_BYTES_LIMIT,
	 "Most payload bytes of all network namespaces owned by the user namespaces one user created (256 MiB)");
KB_PARAM(max_total_bytes, kb_max_total_bytes, 0, KB_BYTES_LIMIT,
	 "Most payload bytes of all filters (half of RAM)");

/* ---- accounts ----------------------------------------------------------- */

static struct kb_acct kb_acct_total = {
	.bytes = ATOMIC64_INIT(0),
	.ref = REFCOUNT_INIT(1),
	.level = KB_ACCT_TOTAL,
};

static LIST_HEAD(kb_acct_users);
static DEFINE_SPINLOCK(kb_acct_users_lock);

static u64 kb_acct_limit(const struct kb_acct *a)
{
	switch (a->level) {
	case KB_ACCT_NETNS:
		return READ_ONCE(kb_max_netns_bytes);
	case KB_ACCT_USER:
		return READ_ONCE(kb_max_userns_bytes);
	default:
		return READ_ONCE(kb_max_total_bytes);
	}
}

static void kb_acct_limit_msg(const struct kb_acct *a,
			      struct netlink_ext_ack *extack)
{
	switch (a->level) {
	case KB_ACCT_NETNS:
		NL_SET_ERR_MSG_MOD(extack,
				   "over max_netns_bytes, the limit of this network namespace");
		break;
	case KB_ACCT_USER:
		NL_SET_ERR_MSG_MOD(extack,
				   "over max_userns_bytes, the limit of the namespaces one unprivileged user owns");
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack,
				   "over max_total_bytes, the limit of all kbloom filters");
	}
}

void kb_acct_uncharge(struct kb_acct *a, u64 bytes)
{
	for (; a; a = a->parent)
		atomic64_sub(bytes, &a->bytes);
}

/* charge bytes to a and every account above it, or to none: -ENOSPC */
int kb_acct_charge(struct kb_acct *a, u64 bytes,
		   struct netlink_ext_ack *extack)
{
	struct kb_acct *b;

	for (b = a; b; b = b->parent) {
		if ((u64)atomic64_add_return(bytes, &b->bytes) >
		    kb_acct_limit(b)) {
			atomic64_sub(bytes, &b->bytes);
			kb_acct_limit_msg(b, extack);
			for (; a != b; a = a->parent)
				atomic64_sub(bytes, &a->bytes);
			return -ENOSPC;
		}
	}
	return 0;
}

struct kb_acct *kb_acct_get(struct kb_acct *a)
{
	refcount_inc(&a->ref);
	return a;
}

/* may be called from RCU callbacks */
void kb_acct_put(struct kb_acct *a)
{
	unsigned long flags;

	while (a && a->level != KB_ACCT_TOTAL) {
		struct kb_acct *parent = a->parent;

		if (a->level == KB_ACCT_USER) {
			/* a user's account goes only with a namespace's: rare
			 * enough to take the lock on every put
			 */
			bool last;

			spin_lock_irqsave(&kb_acct_users_lock, flags);
			last = refcount_dec_and_test(&a->ref);
			if (last)
				list_del(&a->node);
			spin_unlock_irqrestore(&kb_acct_users_lock, flags);
			if (!last)
				return;
		} else if (!refcount_dec_and_test(&a->ref)) {
			return;
		}
		WARN_ON_ONCE(atomic64_read(&a->bytes));
		kfree(a);
		a = parent;
	}
}

/* the user (in the initial user namespace) who created ns's outermost
 * ancestor below the initial user namespace
 */
static kuid_t kb_userns_creator(const struct user_namespace *ns)
{
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
}

static struct kb_acct *kb_acct_user_get(kuid_t uid)
{
	struct kb_acct *a, *fresh;
	unsigned long flags;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return NULL;
	spin_lock_irqsave(&kb_acct_users_lock, flags);
	/* entries on the list have references: the last put unlinks */
	list_for_each_entry(a, &kb_acct_users, node) {
		if (uid_eq(a->uid, uid)) {
			refcount_inc(&a->ref);
			spin_unlock_irqrestore(&kb_acct_users_lock, flags);
			kfree(fresh);
			return a;
		}
	}
	atomic64_set(&fresh->bytes, 0);
	refcount_set(&fresh->ref, 1);
	fresh->level = KB_ACCT_USER;
	fresh->uid = uid;
	fresh->parent = &kb_acct_total;
	list_add(&fresh->node, &kb_acct_users);
	spin_unlock_irqrestore(&kb_acct_users_lock, flags);
	return fresh;
}

/* a new namespace's account (its reference), or NULL */
struct kb_acct *kb_acct_netns_new(const struct net *net)
{
	struct kb_acct *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return NULL;
	atomic64_set(&a->bytes, 0);
	refcount_set(&a->ref, 1);
	a->level = KB_ACCT_NETNS;
	if (net->user_ns == &init_user_ns) {
		a->parent = &kb_acct_total;
	} else {
		a->parent = kb_acct_user_get(kb_userns_creator(net->user_ns));
		if (!a->parent) {
			kfree(a);
			return NULL;
		}
	}
	return a;
}

void kb_limits_init(void)
{
	if (!kb_max_total_bytes)
		kb_max_total_bytes = min_t(u64, KB_BYTES_LIMIT,
					   (u64)totalram_pages() << (PAGE_SHIFT - 1));
}
