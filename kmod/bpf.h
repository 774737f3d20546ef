/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom BPF kfuncs (bpf.c), declared for -Wmissing-prototypes and sparse:
 * only BPF programs call them, through the module's BTF.  Programs see
 * them through userspace/bpf/kbloom.bpf.h.  The __sz parameter names are
 * ABI: the verifier pairs each pointer with the size that follows it by
 * its name.
 */
#ifndef _KB_KMOD_BPF_H
#define _KB_KMOD_BPF_H

#include <linux/types.h>

struct xdp_md;
struct __sk_buff;
struct kbloom_bpf_ref;

int bpf_kbloom_xdp_test(struct xdp_md *ctx, const char *name, u32 name__sz,
			const void *key, u32 key__sz);
int bpf_kbloom_xdp_test_addr(struct xdp_md *ctx, const char *name,
			     u32 name__sz, const void *addr, u32 addr__sz);
struct kbloom_bpf_ref *bpf_kbloom_xdp_get(struct xdp_md *ctx,
					  const char *name, u32 name__sz);
int bpf_kbloom_skb_test(struct __sk_buff *ctx, const char *name,
			u32 name__sz, const void *key, u32 key__sz);
int bpf_kbloom_skb_test_addr(struct __sk_buff *ctx, const char *name,
			     u32 name__sz, const void *addr, u32 addr__sz);
struct kbloom_bpf_ref *bpf_kbloom_skb_get(struct __sk_buff *ctx,
					  const char *name, u32 name__sz);
int bpf_kbloom_test(const char *name, u32 name__sz, const void *key,
		    u32 key__sz);
int bpf_kbloom_test_addr(const char *name, u32 name__sz, const void *addr,
			 u32 addr__sz);
struct kbloom_bpf_ref *bpf_kbloom_get(const char *name, u32 name__sz);
s64 bpf_kbloom_xdp_id(struct xdp_md *ctx, const char *name, u32 name__sz);
int bpf_kbloom_xdp_test_id(struct xdp_md *ctx, u64 id, const void *key,
			   u32 key__sz);
int bpf_kbloom_xdp_test_addr_id(struct xdp_md *ctx, u64 id, const void *addr,
				u32 addr__sz);
s64 bpf_kbloom_skb_id(struct __sk_buff *ctx, const char *name, u32 name__sz);
int bpf_kbloom_skb_test_id(struct __sk_buff *ctx, u64 id, const void *key,
			   u32 key__sz);
int bpf_kbloom_skb_test_addr_id(struct __sk_buff *ctx, u64 id,
				const void *addr, u32 addr__sz);
s64 bpf_kbloom_id(const char *name, u32 name__sz);
int bpf_kbloom_test_id(u64 id, const void *key, u32 key__sz);
int bpf_kbloom_test_addr_id(u64 id, const void *addr, u32 addr__sz);
int bpf_kbloom_ref_test(struct kbloom_bpf_ref *ref, const void *key,
			u32 key__sz);
int bpf_kbloom_ref_test_addr(struct kbloom_bpf_ref *ref, const void *addr,
			     u32 addr__sz);
void bpf_kbloom_put(struct kbloom_bpf_ref *ref);
int bpf_kbloom_xdp_add(struct xdp_md *ctx, const char *name, u32 name__sz,
		       const void *key, u32 key__sz);
int bpf_kbloom_xdp_add_addr(struct xdp_md *ctx, const char *name,
			    u32 name__sz, const void *addr, u32 addr__sz);
int bpf_kbloom_xdp_add_id(struct xdp_md *ctx, u64 id, const void *key,
			  u32 key__sz, u32 flags);
int bpf_kbloom_xdp_add_addr_id(struct xdp_md *ctx, u64 id, const void *addr,
			       u32 addr__sz, u32 flags);
int bpf_kbloom_skb_add(struct __sk_buff *ctx, const char *name, u32 name__sz,
		       const void *key, u32 key__sz);
int bpf_kbloom_skb_add_addr(struct __sk_buff *ctx, const char *name,
			    u32 name__sz, const void *addr, u32 addr__sz);
int bpf_kbloom_skb_add_id(struct __sk_buff *ctx, u64 id, const void *key,
			  u32 key__sz, u32 flags);
int bpf_kbloom_skb_add_addr_id(struct __sk_buff *ctx, u64 id,
			       const void *addr, u32 addr__sz, u32 flags);
int bpf_kbloom_ref_add(struct kbloom_bpf_ref *ref, const void *key,
		       u32 key__sz, u32 flags);
int bpf_kbloom_ref_add_addr(struct kbloom_bpf_ref *ref, const void *addr,
			    u32 addr__sz, u32 flags);

#endif /* _KB_KMOD_BPF_H */
