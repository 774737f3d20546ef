/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom.bpf.h: the kbloom kfuncs, for BPF programs (XDP, tc, TRACING and
 * LSM) that test keys and addresses against kbloom filters.  Include it
 * after vmlinux.h (or <linux/bpf.h>) and <bpf/bpf_helpers.h>; programs
 * using it must be GPL ("license" section).  docs/bpf.md is the guide.
 *
 * Which kfuncs a program may call depends on its type:
 *   XDP               bpf_kbloom_xdp_*,  bpf_kbloom_ref_*,  bpf_kbloom_put
 *   tc (SCHED_CLS)    bpf_kbloom_skb_*,  bpf_kbloom_ref_*,  bpf_kbloom_put
 *   TRACING and LSM   bpf_kbloom_test*,  bpf_kbloom_get,  bpf_kbloom_id,
 *                     bpf_kbloom_ref_*,  bpf_kbloom_put  (sleepable LSM
 *                     programs too)
 *
 * Filters are per network namespace: XDP programs see the filters of the
 * receiving device's netns, tc programs those of skb->dev's (or, without
 * a device, the socket's), TRACING and LSM programs those of the current
 * task's (none in interrupt context: -ENOENT).
 *
 * Arguments:
 *   name, name__sz   the filter name: the bytes up to the first NUL within
 *                    name__sz, or all name__sz bytes (1..31 of
 *                    [A-Za-z0-9_.:-]); a string literal with sizeof works
 *   key, key__sz     a key encoded for the filter's key type, as bfctl and
 *                    the netlink API encode it (ipv4: 4 bytes, ipv6: 16,
 *                    net4: 4 + prefix length byte, str/bytes: 1..max)
 *   addr, addr__sz   an address in network byte order: 4 bytes IPv4, 16
 *                    bytes IPv6; net4/net6/net filters test every prefix
 *                    length they hold, ipv4/ipv6 filters answer 0 for the
 *                    other family, ip/str/bytes filters test the raw bytes
 * Pointers may point to the stack, a map value or the packet (after the
 * usual bounds check); the verifier checks that each covers its __sz.
 *
 * Every test returns
 *   1        maybe present (a Bloom filter has false positives)
 *   0        absent (never a false negative)
 *   -ENOENT  no filter of that name in that netns, or it was destroyed
 *   -EINVAL  bad name, or a key or address size the filter cannot hold
 * and counts one lookup (and a hit) in the filter's statistics.
 *
 * By-name tests find the filter at every call: they follow renames, swaps
 * (a swap exchanges contents, not names) and rebuilds at the next call.
 *
 * bpf_kbloom_*get() returns a reference for several tests of one filter
 * (one name lookup), or NULL (no such filter, or a bad name).  The verifier
 * insists that the program checks it for NULL and passes it to
 * bpf_kbloom_put() on every path: a program that may leak a reference does
 * not load.  A reference pins the filter's memory, not the filter: destroy
 * still succeeds, and tests on the reference then answer -ENOENT.  Swaps and
 * rebuilds are seen by the next test on the reference.
 * The per-packet fast path is by id: bpf_kbloom_*id() resolves a name to
 * the filter's id (> 0; -ENOENT, -EINVAL as above), which stays the same
 * across renames, swaps and rebuilds and is never reused while the module
 * is loaded; bpf_kbloom_*test*_id() tests by id without touching a name
 * (an id of another netns answers -ENOENT).  Resolve once (or let
 * userspace resolve with bfctl info and pass the id in a map), test by id,
 * and on -ENOENT (the filter was destroyed, maybe re-created under its
 * name with a new id) resolve the name again: see docs/bpf.md.  A loaded program
 * that uses any kfunc here pins the kbloom module (rmmod fails until the
 * program is gone).
 */
#ifndef _KBLOOM_BPF_H
#define _KBLOOM_BPF_H

/* vmlinux.h has no errno macros; the kfuncs return these negated */
#ifndef ENOENT
#define ENOENT	2
#endif
#ifndef EINVAL
#define EINVAL	22
#endif

#ifndef __ksym
#define __ksym __attribute__((section(".ksyms")))
#endif

/*
 * What a reference lets a program read (complete: libbpf 1.1 refuses a
 * kfunc whose prototype names an incomplete struct).  Read it through the
 * pointer a get returned; never build one: the verifier refuses it.
 */
struct kbloom_bpf_ref {
	__u64 id;		/* the filter's id, stable across renames */
	__u32 key_type;		/* enum kb_key_type (linux/kbloom.h) */
	__u32 kind;		/* enum kb_kind of its current contents */
	const void *reserved;	/* kernel use */
};

/* XDP */
extern int bpf_kbloom_xdp_test(struct xdp_md *ctx, const char *name,
			       __u32 name__sz, const void *key,
			       __u32 key__sz) __ksym;
extern int bpf_kbloom_xdp_test_addr(struct xdp_md *ctx, const char *name,
				    __u32 name__sz, const void *addr,
				    __u32 addr__sz) __ksym;
extern struct kbloom_bpf_ref *bpf_kbloom_xdp_get(struct xdp_md *ctx,
						 const char *name,
						 __u32 name__sz) __ksym;

extern __s64 bpf_kbloom_xdp_id(struct xdp_md *ctx, const char *name,
				__u32 name__sz) __ksym;
extern int bpf_kbloom_xdp_test_id(struct xdp_md *ctx, __u64 id,
				  const void *key, __u32 key__sz) __ksym;
extern int bpf_kbloom_xdp_test_addr_id(struct xdp_md *ctx, __u64 id,
				       const void *addr,
				       __u32 addr__sz) __ksym;

/* tc (SCHED_CLS) */
extern int bpf_kbloom_skb_test(struct __sk_buff *ctx, const char *name,
			       __u32 name__sz, const void *key,
			       __u32 key__sz) __ksym;
extern int bpf_kbloom_skb_test_addr(struct __sk_buff *ctx, const char *name,
				    __u32 name__sz, const void *addr,
				    __u32 addr__sz) __ksym;
extern struct kbloom_bpf_ref *bpf_kbloom_skb_get(struct __sk_buff *ctx,
						 const char *name,
						 __u32 name__sz) __ksym;

extern __s64 bpf_kbloom_skb_id(struct __sk_buff *ctx, const char *name,
				__u32 name__sz) __ksym;
extern int bpf_kbloom_skb_test_id(struct __sk_buff *ctx, __u64 id,
				  const void *key, __u32 key__sz) __ksym;
extern int bpf_kbloom_skb_test_addr_id(struct __sk_buff *ctx, __u64 id,
				       const void *addr,
				       __u32 addr__sz) __ksym;

/* TRACING and LSM: the current task's netns */
extern int bpf_kbloom_test(const char *name, __u32 name__sz,
			   const void *key, __u32 key__sz) __ksym;
extern int bpf_kbloom_test_addr(const char *name, __u32 name__sz,
				const void *addr, __u32 addr__sz) __ksym;
extern struct kbloom_bpf_ref *bpf_kbloom_get(const char *name,
					     __u32 name__sz) __ksym;

extern __s64 bpf_kbloom_id(const char *name, __u32 name__sz) __ksym;
extern int bpf_kbloom_test_id(__u64 id, const void *key,
			      __u32 key__sz) __ksym;
extern int bpf_kbloom_test_addr_id(__u64 id, const void *addr,
				   __u32 addr__sz) __ksym;

/*
 * Adds from the packet path (XDP, tc; blocked filters): the key, or the
 * address (net filters: its full-length prefix), into the filter's newest
 * slice, with atomics (no lock; any CPU, concurrently with lookups, other
 * adds, bulk loads and rebuilds).  Return
 *   1        added (it tested absent before)
 *   0        it may already be present: nothing changed (windows: the key
 *            is not refreshed; pass KBLOOM_ADD_REFRESH in flags to add it
 *            to the newest slice anyway)
 *   -ENOSPC  refused: the filter's estimated FPR is over its max-fpr-ppb
 *            cap (counted in learn-refused; over-capacity is announced
 *            once); a learning rule never saturates a blocklist
 *   -EOPNOTSUPP  the filter's kind is not blocked
 *   -ENOENT, -EINVAL  as for the tests
 * An add counts in the filter's adds statistic, not as a lookup.
 * The adds by name (bpf_kbloom_{xdp,skb}_add{,_addr}) have NO flags
 * argument: a BPF call passes at most five, and ctx, name, name__sz, key
 * and key__sz take them.  They add as flags 0 would (never a refresh); a
 * refresh goes by id or by ref.  This is the ABI, not an omission.
 */
#ifndef ENOSPC
#define ENOSPC	28
#endif
#ifndef EOPNOTSUPP
#define EOPNOTSUPP	95
#endif
#define KBLOOM_ADD_REFRESH	(1U << 0)

extern int bpf_kbloom_xdp_add(struct xdp_md *ctx, const char *name,
			      __u32 name__sz, const void *key,
			      __u32 key__sz) __ksym;
extern int bpf_kbloom_xdp_add_addr(struct xdp_md *ctx, const char *name,
				   __u32 name__sz, const void *addr,
				   __u32 addr__sz) __ksym;
extern int bpf_kbloom_xdp_add_id(struct xdp_md *ctx, __u64 id,
				 const void *key, __u32 key__sz,
				 __u32 flags) __ksym;
extern int bpf_kbloom_xdp_add_addr_id(struct xdp_md *ctx, __u64 id,
				      const void *addr, __u32 addr__sz,
				      __u32 flags) __ksym;
extern int bpf_kbloom_skb_add(struct __sk_buff *ctx, const char *name,
			      __u32 name__sz, const void *key,
			      __u32 key__sz) __ksym;
extern int bpf_kbloom_skb_add_addr(struct __sk_buff *ctx, const char *name,
				   __u32 name__sz, const void *addr,
				   __u32 addr__sz) __ksym;
extern int bpf_kbloom_skb_add_id(struct __sk_buff *ctx, __u64 id,
				 const void *key, __u32 key__sz,
				 __u32 flags) __ksym;
extern int bpf_kbloom_skb_add_addr_id(struct __sk_buff *ctx, __u64 id,
				      const void *addr, __u32 addr__sz,
				      __u32 flags) __ksym;
extern int bpf_kbloom_ref_add(struct kbloom_bpf_ref *ref, const void *key,
			      __u32 key__sz, __u32 flags) __ksym;
extern int bpf_kbloom_ref_add_addr(struct kbloom_bpf_ref *ref,
				   const void *addr, __u32 addr__sz,
				   __u32 flags) __ksym;

/* every type: tests on a reference, and its release */
extern int bpf_kbloom_ref_test(struct kbloom_bpf_ref *ref, const void *key,
			       __u32 key__sz) __ksym;
extern int bpf_kbloom_ref_test_addr(struct kbloom_bpf_ref *ref,
				    const void *addr, __u32 addr__sz) __ksym;
extern void bpf_kbloom_put(struct kbloom_bpf_ref *ref) __ksym;

#endif /* _KBLOOM_BPF_H */
