// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom BPF kfuncs: XDP, tc (SCHED_CLS) and TRACING/LSM programs test
 * keys and addresses against the filters of a network namespace.  The
 * program-side API is userspace/bpf/kbloom.bpf.h; docs/bpf.md says how to
 * use it.
 *
 * Everything here runs in the program's context (softirq for XDP and tc,
 * any task context for TRACING and LSM, sleepable LSM included): no lock,
 * no sleep, no allocation.  Filters are found through the RCU index.  XDP
 * and tc programs cannot sleep and run in an RCU read-side section, which
 * their kfuncs use as it is (lookup.h); the TRACING kfuncs take
 * rcu_read_lock() themselves, because sleepable programs run under RCU
 * tasks trace only.
 *
 * References: bpf_kbloom_*get() takes a kb_set reference (kb_set_get_rcu()),
 * which pins the filter's memory, not its consumer count: destroy is never
 * refused because a program runs, and a test on a destroyed filter's ref
 * answers -ENOENT.  The verifier makes every program release what it
 * acquires before it returns, and a loaded program that uses these kfuncs
 * holds a reference on the module (through its BTF), so rmmod fails while
 * one is loaded.
 *
 * kfuncs need the module's BTF (and its BTF ids resolved by
 * resolve_btfids).  A module built without them registers nothing; it says
 * so in the kernel log and in the read-only parameter "kfuncs" that bfctl
 * version and info show.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <net/xdp.h>

#include "internal.h"
#include "lookup.h"
#include "bpf.h"

/* ---- state shown to userspace ------------------------------------------ */

static char kb_bpf_state[96] = "no (not registered)";

static int kb_bpf_state_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", kb_bpf_state);
}

static int kb_bpf_state_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;		/* a state, not a setting */
}

static const struct kernel_param_ops kb_bpf_state_ops = {
	.get = kb_bpf_state_get,
	.set = kb_bpf_state_set,
};

module_param_cb(kfuncs, &kb_bpf_state_ops, NULL, 0444);
MODULE_PARM_DESC(kfuncs, "BPF kfuncs registered: \"yes\", \"partial (hooks; failed)\" or \"no (why)\" (read-only)");

/* ---- the common part of every kfunc ------------------------------------ */

/*
 * The length of the name argument: the bytes up to the first NUL within
 * sz, or all sz bytes; 0 if that cannot be a name (empty, or no NUL in
 * KB_NAME_MAX bytes).  name is program memory of sz bytes, checked by the
 * verifier.  The bytes are looked up in place, with no copy: only a miss
 * checks the characters (kb_bpf_miss()), since every indexed name is
 * valid.
 */
static u32 kb_bpf_name_len(const char *name, u32 sz)
{
	size_t len;

	if (!name || !sz)
		return 0;
	len = strnlen(name, min_t(u32, sz, KB_NAME_MAX));
	return len < KB_NAME_MAX ? len : 0;
}

/* what a by-name lookup that found nothing answers */
static int kb_bpf_miss(const char *name, u32 len)
{
	return kb_name_valid(name, len) ? -ENOENT : -EINVAL;
}

static bool kb_bpf_addr_ok(const void *addr, u32 sz)
{
	return addr && (sz == 4 || sz == 16);
}

/* the family of an address kb_bpf_addr_ok() accepted */
static int kb_bpf_addr_family(u32 sz)
{
	return sz == 4 ? AF_INET : AF_INET6;
}

/* one test on s; RCU held */
static __always_inline int kb_bpf_test_set(struct kb_set *s, const void *key,
					   u32 sz, bool addr)
{
	if (READ_ONCE(s->dead))
		return -ENOENT;
	if (addr)
		return kb_set_test_addr(s, kb_bpf_addr_family(sz), key);
	if (!key || kb_key_validate(s->key_type, key, sz))
		return -EINVAL;
	return kb_set_test_rcu(s, key, sz);
}

/*
 * The tests by name and by id, in an RCU read-side section: the XDP and tc
 * kfuncs call them as they are (lookup.h: their programs run in one), the
 * TRACING ones under an rcu_read_lock() of their own.
 */
static int kb_bpf_test_name_rcu(struct net *net, const char *name,
				u32 name_sz, const void *key, u32 sz,
				bool addr)
{
	u32 len = kb_bpf_name_len(name, name_sz);
	struct kb_set *s;

	if (!len || (addr && !kb_bpf_addr_ok(key, sz)))
		return -EINVAL;
	if (!net)
		return kb_bpf_miss(name, len);
	s = kb_set_find_len_rcu(net, name, len);
	return s ? kb_bpf_test_set(s, key, sz, addr) : kb_bpf_miss(name, len);
}

/*
 * By id: one hash of a u64 and a short chain of the netns's own filters
 * (an id of another netns is not in it), no name at all.  An address by
 * id is the per-packet fast path: all of it inlined (lookup.h).
 */
static __always_inline int kb_bpf_test_id_rcu(struct net *net, u64 id,
					      const void *key, u32 sz,
					      bool addr)
{
	struct kb_set *s;

	if (unlikely(addr && !kb_bpf_addr_ok(key, sz)))
		return -EINVAL;
	if (unlikely(!net))
		return -ENOENT;
	s = kb_index_id(kb_net_rcu(net), id);
	return s ? kb_bpf_test_set(s, key, sz, addr) : -ENOENT;
}

/* the id of the filter named name, for the by-id tests */
static s64 kb_bpf_id(struct net *net, const char *name, u32 name_sz)
{
	u32 len = kb_bpf_name_len(name, name_sz);
	struct kb_set *s;
	s64 ret;

	if (!len)
		return -EINVAL;
	if (!net)
		return kb_bpf_miss(name, len);
	rcu_read_lock();
	s = kb_set_find_len_rcu(net, name, len);
	ret = s && !READ_ONCE(s->dead) ? (s64)s->id : kb_bpf_miss(name, len);
	rcu_read_unlock();
	return ret;
}

static struct kbloom_bpf_ref *kb_bpf_get(struct net *net, const char *name,
					 u32 name_sz)
{
	u32 len = kb_bpf_name_len(name, name_sz);
	struct kb_set *s;

	if (!net || !len)
		return NULL;
	rcu_read_lock();
	s = kb_set_get_rcu(kb_set_find_len_rcu(net, name, len));
	rcu_read_unlock();
	return s ? &s->bpf : NULL;
}

/* ---- the netns of each program type ------------------------------------ */

/* PTR_TO_CTX: the verifier passes the kernel's object, not the uapi one */
static struct net *kb_bpf_xdp_net(struct xdp_md *ctx)
{
	const struct xdp_buff *xdp = (const struct xdp_buff *)ctx;

	return dev_net(xdp->rxq->dev);
}

static struct net *kb_bpf_skb_net(struct __sk_buff *ctx)
{
	const struct sk_buff *skb = (const struct sk_buff *)ctx;

	if (skb->dev)
		return dev_net(skb->dev);
	if (skb->sk)
		return sock_net(skb->sk);
	return NULL;
}

/*
 * TRACING and LSM: the current task's.  Only a task changes its own
 * nsproxy, so it is stable here; in interrupt context "current" is
 * whichever task was interrupted, and an exiting task has none: no netns.
 */
static struct net *kb_bpf_task_net(void)
{
	struct nsproxy *ns;

	if (!in_task())
		return NULL;
	ns = current->nsproxy;
	return ns ? ns->net_ns : NULL;
}

/* TRACING and LSM programs may sleep: under RCU tasks trace only */
static int kb_bpf_task_test_name(const char *name, u32 name_sz,
				 const void *key, u32 sz, bool addr)
{
	int ret;

	rcu_read_lock();
	ret = kb_bpf_test_name_rcu(kb_bpf_task_net(), name, name_sz, key, sz,
				   addr);
	rcu_read_unlock();
	return ret;
}

static int kb_bpf_task_test_id(u64 id, const void *key, u32 sz, bool addr)
{
	int ret;

	rcu_read_lock();
	ret = kb_bpf_test_id_rcu(kb_bpf_task_net(), id, key, sz, addr);
	rcu_read_unlock();
	return ret;
}

/* ---- adds (learn.c) ------------------------------------------------------ */

/* one add to s; RCU held */
static __always_inline int kb_bpf_add_set(struct net *net, struct kb_set *s,
					  const void *key, u32 sz, u32 flags,
					  bool addr)
{
	if (addr)
		return kb_set_learn_addr(s, kb_bpf_addr_family(sz), key,
					 sz * 8, flags);
	return kb_set_learn_key(s, key, sz, flags);
}

static int kb_bpf_add_name_rcu(struct net *net, const char *name,
			       u32 name_sz, const void *key, u32 sz,
			       u32 flags, bool addr)
{
	u32 len = kb_bpf_name_len(name, name_sz);
	struct kb_set *s;

	if (!len || (addr && !kb_bpf_addr_ok(key, sz)))
		return -EINVAL;
	if (!net)
		return kb_bpf_miss(name, len);
	s = kb_set_find_len_rcu(net, name, len);
	return s ? kb_bpf_add_set(net, s, key, sz, flags, addr) :
		   kb_bpf_miss(name, len);
}

static int kb_bpf_add_id_rcu(struct net *net, u64 id, const void *key,
			     u32 sz, u32 flags, bool addr)
{
	struct kb_set *s;

	if (addr && !kb_bpf_addr_ok(key, sz))
		return -EINVAL;
	if (!net)
		return -ENOENT;
	s = kb_index_id(kb_net_rcu(net), id);
	return s ? kb_bpf_add_set(net, s, key, sz, flags, addr) : -ENOENT;
}

/*
 * A ref has no netns of its own: over-capacity is announced in the
 * task's (BPF_PROG_TEST_RUN), else left to an add by name or id.
 */
static int kb_bpf_add_ref(struct kbloom_bpf_ref *ref, const void *key,
			  u32 sz, u32 flags, bool addr)
{
	int ret;

	if (!ref || (addr && !kb_bpf_addr_ok(key, sz)))
		return -EINVAL;
	rcu_read_lock();
	ret = kb_bpf_add_set(kb_bpf_task_net(),
			     container_of(ref, struct kb_set, bpf), key, sz,
			     flags, addr);
	rcu_read_unlock();
	return ret;
}

/* ---- the kfuncs ---------------------------------------------------------- */

__bpf_kfunc int bpf_kbloom_xdp_test(struct xdp_md *ctx, const char *name,
				    u32 name__sz, const void *key, u32 key__sz)
{
	return kb_bpf_test_name_rcu(kb_bpf_xdp_net(ctx), name, name__sz,
				    key, key__sz, false);
}

__bpf_kfunc int bpf_kbloom_xdp_test_addr(struct xdp_md *ctx, const char *name,
					 u32 name__sz, const void *addr,
					 u32 addr__sz)
{
	return kb_bpf_test_name_rcu(kb_bpf_xdp_net(ctx), name, name__sz,
				    addr, addr__sz, true);
}

__bpf_kfunc struct kbloom_bpf_ref *bpf_kbloom_xdp_get(struct xdp_md *ctx,
						      const char *name,
						      u32 name__sz)
{
	return kb_bpf_get(kb_bpf_xdp_net(ctx), name, name__sz);
}

__bpf_kfunc s64 bpf_kbloom_xdp_id(struct xdp_md *ctx, const char *name,
				  u32 name__sz)
{
	return kb_bpf_id(kb_bpf_xdp_net(ctx), name, name__sz);
}

__bpf_kfunc int bpf_kbloom_xdp_test_id(struct xdp_md *ctx, u64 id,
				       const void *key, u32 key__sz)
{
	return kb_bpf_test_id_rcu(kb_bpf_xdp_net(ctx), id, key, key__sz, false);
}

__bpf_kfunc int bpf_kbloom_xdp_test_addr_id(struct xdp_md *ctx, u64 id,
					    const void *addr, u32 addr__sz)
{
	return kb_bpf_test_id_rcu(kb_bpf_xdp_net(ctx), id, addr, addr__sz, true);
}

__bpf_kfunc int bpf_kbloom_skb_test(struct __sk_buff *ctx, const char *name,
				    u32 name__sz, const void *key, u32 key__sz)
{
	return kb_bpf_test_name_rcu(kb_bpf_skb_net(ctx), name, name__sz,
				    key, key__sz, false);
}

__bpf_kfunc int bpf_kbloom_skb_test_addr(struct __sk_buff *ctx,
					 const char *name, u32 name__sz,
					 const void *addr, u32 addr__sz)
{
	return kb_bpf_test_name_rcu(kb_bpf_skb_net(ctx), name, name__sz,
				    addr, addr__sz, true);
}

__bpf_kfunc struct kbloom_bpf_ref *bpf_kbloom_skb_get(struct __sk_buff *ctx,
						      const char *name,
						      u32 name__sz)
{
	return kb_bpf_get(kb_bpf_skb_net(ctx), name, name__sz);
}

__bpf_kfunc s64 bpf_kbloom_skb_id(struct __sk_buff *ctx, const char *name,
				  u32 name__sz)
{
	return kb_bpf_id(kb_bpf_skb_net(ctx), name, name__sz);
}

__bpf_kfunc int bpf_kbloom_skb_test_id(struct __sk_buff *ctx, u64 id,
				       const void *key, u32 key__sz)
{
	return kb_bpf_test_id_rcu(kb_bpf_skb_net(ctx), id, key, key__sz, false);
}

__bpf_kfunc int bpf_kbloom_skb_test_addr_id(struct __sk_buff *ctx, u64 id,
					    const void *addr, u32 addr__sz)
{
	return kb_bpf_test_id_rcu(kb_bpf_skb_net(ctx), id, addr, addr__sz, true);
}

__bpf_kfunc int bpf_kbloom_test(const char *name, u32 name__sz,
				const void *key, u32 key__sz)
{
	return kb_bpf_task_test_name(name, name__sz, key, key__sz, false);
}

__bpf_kfunc int bpf_kbloom_test_addr(const char *name, u32 name__sz,
				     const void *addr, u32 addr__sz)
{
	return kb_bpf_task_test_name(name, name__sz, addr, addr__sz, true);
}

__bpf_kfunc struct kbloom_bpf_ref *bpf_kbloom_get(const char *name,
						  u32 name__sz)
{
	return kb_bpf_get(kb_bpf_task_net(), name, name__sz);
}

__bpf_kfunc s64 bpf_kbloom_id(const char *name, u32 name__sz)
{
	return kb_bpf_id(kb_bpf_task_net(), name, name__sz);
}

__bpf_kfunc int bpf_kbloom_test_id(u64 id, const void *key, u32 key__sz)
{
	return kb_bpf_task_test_id(id, key, key__sz, false);
}

__bpf_kfunc int bpf_kbloom_test_addr_id(u64 id, const void *addr,
					u32 addr__sz)
{
	return kb_bpf_task_test_id(id, addr, addr__sz, true);
}

/* ref: what a get returned (KF_TRUSTED_ARGS: the verifier checks it) */
__bpf_kfunc int bpf_kbloom_ref_test(struct kbloom_bpf_ref *ref,
				    const void *key, u32 key__sz)
{
	struct kb_set *s;
	int ret;

	if (!ref)
		return -EINVAL;
	s = container_of(ref, struct kb_set, bpf);
	rcu_read_lock();
	ret = kb_bpf_test_set(s, key, key__sz, false);
	rcu_read_unlock();
	return ret;
}

__bpf_kfunc int bpf_kbloom_ref_test_addr(struct kbloom_bpf_ref *ref,
					 const void *addr, u32 addr__sz)
{
	struct kb_set *s;
	int ret;

	if (!ref || !kb_bpf_addr_ok(addr, addr__sz))
		return -EINVAL;
	s = container_of(ref, struct kb_set, bpf);
	rcu_read_lock();
	ret = kb_bpf_test_set(s, addr, addr__sz, true);
	rcu_read_unlock();
	return ret;
}

__bpf_kfunc int bpf_kbloom_xdp_add(struct xdp_md *ctx, const char *name,
				   u32 name__sz, const void *key, u32 key__sz)
{
	return kb_bpf_add_name_rcu(kb_bpf_xdp_net(ctx), name, name__sz, key,
				   key__sz, 0, false);
}

__bpf_kfunc int bpf_kbloom_xdp_add_addr(struct xdp_md *ctx,
					const char *name, u32 name__sz,
					const void *addr, u32 addr__sz)
{
	return kb_bpf_add_name_rcu(kb_bpf_xdp_net(ctx), name, name__sz, addr,
				   addr__sz, 0, true);
}

__bpf_kfunc int bpf_kbloom_xdp_add_id(struct xdp_md *ctx, u64 id,
				      const void *key, u32 key__sz, u32 flags)
{
	return kb_bpf_add_id_rcu(kb_bpf_xdp_net(ctx), id, key, key__sz, flags,
				 false);
}

__bpf_kfunc int bpf_kbloom_xdp_add_addr_id(struct xdp_md *ctx, u64 id,
					   const void *addr, u32 addr__sz,
					   u32 flags)
{
	return kb_bpf_add_id_rcu(kb_bpf_xdp_net(ctx), id, addr, addr__sz,
				 flags, true);
}

__bpf_kfunc int bpf_kbloom_skb_add(struct __sk_buff *ctx, const char *name,
				   u32 name__sz, const void *key, u32 key__sz)
{
	return kb_bpf_add_name_rcu(kb_bpf_skb_net(ctx), name, name__sz, key,
				   key__sz, 0, false);
}

__bpf_kfunc int bpf_kbloom_skb_add_addr(struct __sk_buff *ctx,
					const char *name, u32 name__sz,
					const void *addr, u32 addr__sz)
{
	return kb_bpf_add_name_rcu(kb_bpf_skb_net(ctx), name, name__sz, addr,
				   addr__sz, 0, true);
}

__bpf_kfunc int bpf_kbloom_skb_add_id(struct __sk_buff *ctx, u64 id,
				      const void *key, u32 key__sz, u32 flags)
{
	return kb_bpf_add_id_rcu(kb_bpf_skb_net(ctx), id, key, key__sz, flags,
				 false);
}

__bpf_kfunc int bpf_kbloom_skb_add_addr_id(struct __sk_buff *ctx, u64 id,
					   const void *addr, u32 addr__sz,
					   u32 flags)
{
	return kb_bpf_add_id_rcu(kb_bpf_skb_net(ctx), id, addr, addr__sz,
				 flags, true);
}

__bpf_kfunc int bpf_kbloom_ref_add(struct kbloom_bpf_ref *ref,
				   const void *key, u32 key__sz, u32 flags)
{
	return kb_bpf_add_ref(ref, key, key__sz, flags, false);
}

__bpf_kfunc int bpf_kbloom_ref_add_addr(struct kbloom_bpf_ref *ref,
					const void *addr, u32 addr__sz,
					u32 flags)
{
	return kb_bpf_add_ref(ref, addr, addr__sz, flags, true);
}

__bpf_kfunc void bpf_kbloom_put(struct kbloom_bpf_ref *ref)
{
	if (ref)
		kb_set_put(container_of(ref, struct kb_set, bpf));
}

/* ---- registration: one set per program-type hook ------------------------ */

KB_KFUNCS_START(kb_bpf_xdp_ids)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_test)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_test_addr)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_get, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_id)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_test_id)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_test_addr_id)
BTF_ID_FLAGS(func, bpf_kbloom_ref_test, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_ref_test_addr, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_put, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_add)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_add_addr)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_add_id)
BTF_ID_FLAGS(func, bpf_kbloom_xdp_add_addr_id)
BTF_ID_FLAGS(func, bpf_kbloom_ref_add, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_ref_add_addr, KF_TRUSTED_ARGS)
KB_KFUNCS_END(kb_bpf_xdp_ids)

KB_KFUNCS_START(kb_bpf_skb_ids)
BTF_ID_FLAGS(func, bpf_kbloom_skb_test)
BTF_ID_FLAGS(func, bpf_kbloom_skb_test_addr)
BTF_ID_FLAGS(func, bpf_kbloom_skb_get, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_skb_id)
BTF_ID_FLAGS(func, bpf_kbloom_skb_test_id)
BTF_ID_FLAGS(func, bpf_kbloom_skb_test_addr_id)
BTF_ID_FLAGS(func, bpf_kbloom_ref_test, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_ref_test_addr, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_put, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_kbloom_skb_add)
BTF_ID_FLAGS(func, bpf_kbloom_skb_add_addr)
BTF_ID_FLAGS(func, bpf_kbloom_skb_add_id)
BTF_ID_FLAGS(func, bpf_kbloom_skb_add_addr_id)
BTF_ID_FLAGS(func, bpf_kbloom_ref_add, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_ref_add_addr, KF_TRUSTED_ARGS)
KB_KFUNCS_END(kb_bpf_skb_ids)

/* TRACING: LSM programs map to this hook too (one set per hook) */
KB_KFUNCS_START(kb_bpf_task_ids)
BTF_ID_FLAGS(func, bpf_kbloom_test)
BTF_ID_FLAGS(func, bpf_kbloom_test_addr)
BTF_ID_FLAGS(func, bpf_kbloom_get, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_id)
BTF_ID_FLAGS(func, bpf_kbloom_test_id)
BTF_ID_FLAGS(func, bpf_kbloom_test_addr_id)
BTF_ID_FLAGS(func, bpf_kbloom_ref_test, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_ref_test_addr, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_put, KF_RELEASE)
KB_KFUNCS_END(kb_bpf_task_ids)

static const struct btf_kfunc_id_set kb_bpf_xdp_set = {
	.owner = THIS_MODULE,
	.set = &kb_bpf_xdp_ids,
};

static const struct btf_kfunc_id_set kb_bpf_skb_set = {
	.owner = THIS_MODULE,
	.set = &kb_bpf_skb_ids,
};

static const struct btf_kfunc_id_set kb_bpf_task_set = {
	.owner = THIS_MODULE,
	.set = &kb_bpf_task_ids,
};

/*
 * Why the kfuncs cannot work, or NULL.  The kernel registers a module
 * without BTF "successfully" (6.1: a warning and 0), so look first: no
 * BTF section (built without a vmlinux, e.g. 6.1 headers or DKMS without
 * the overlay), or BTF ids that resolve_btfids never filled in.
 */
static const char *kb_bpf_missing(void)
{
	if (!IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES))
		return "kernel built without CONFIG_DEBUG_INFO_BTF_MODULES";
#ifdef CONFIG_DEBUG_INFO_BTF_MODULES
	if (!THIS_MODULE->btf_data_size)
		return "module built without BTF: no vmlinux BTF at build time";
#endif
	if (!kb_bpf_xdp_ids.cnt)
		return "module BTF ids not resolved: no resolve_btfids at build time";
	return NULL;
}

/*
 * One registration per hook, each on its own: a kernel may refuse one
 * (and a registered set cannot be taken back), so the state says which
 * hooks have the kfuncs, e.g. "partial (xdp tc; tracing: -EINVAL)".
 */
void kb_bpf_init(void)
{
	static const char *const hook[] = { "xdp", "tc", "tracing" };
	static const struct btf_kfunc_id_set *const set[] = {
		&kb_bpf_xdp_set, &kb_bpf_skb_set, &kb_bpf_task_set,
	};
	static const enum bpf_prog_type type[] = {
		BPF_PROG_TYPE_XDP, BPF_PROG_TYPE_SCHED_CLS, BPF_PROG_TYPE_TRACING,
	};
	const char *why = kb_bpf_missing();
	char ok[32] = "", bad[80] = "";
	int i, ret, nok = 0;

	if (why) {
		pr_warn("no module BTF: BPF kfuncs unavailable (%s)\n", why);
		snprintf(kb_bpf_state, sizeof(kb_bpf_state), "no (%s)", why);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(type); i++) {
		ret = register_btf_kfunc_id_set(type[i], set[i]);
		if (ret) {
			pr_warn("BPF kfuncs for %s programs unavailable (registration failed: %pe)\n",
				hook[i], ERR_PTR(ret));
			scnprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				  "%s%s: %pe", bad[0] ? ", " : "", hook[i],
				  ERR_PTR(ret));
			continue;
		}
		scnprintf(ok + strlen(ok), sizeof(ok) - strlen(ok), "%s%s",
			  nok++ ? " " : "", hook[i]);
	}
	if (nok == ARRAY_SIZE(type))
		strscpy(kb_bpf_state, "yes", sizeof(kb_bpf_state));
	else if (nok)
		snprintf(kb_bpf_state, sizeof(kb_bpf_state), "partial (%s; %s)",
			 ok, bad);
	else
		snprintf(kb_bpf_state, sizeof(kb_bpf_state),
			 "no (registration failed: %s)", bad);
}
