// SPDX-License-Identifier: GPL-2.0
/*
 * The add kfuncs (selftests/kbloom_learn.c runs them by BPF_PROG_TEST_RUN):
 *  - "one": the kfunc op names, on key[]/key_sz (or the name fname,
 *    fname_sz; the id id; flags flags, not by name), its answer in res;
 *  - "flood": each run derives an IPv4 source from a shared counter
 *    (mix32(seed + n)), adds it by id and counts the answers, so that one
 *    test run with repeat = N adds N sources without N system calls.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kbloom.bpf.h"

char LICENSE[] SEC("license") = "GPL";

char fname[32];
__u32 fname_sz;
__u8 key[32];
__u32 key_sz;
__u32 flags;
__u64 id;
int op;
int res;

/* flood */
__u64 ctr;		/* the next source's index (all runs, all CPUs) */
__u32 seed;
__u64 n_added;		/* answers 1 */
__u64 n_maybe;		/* 0 */
__u64 n_nospc;		/* -ENOSPC */
__u64 n_other;		/* anything else */
int last_other;

enum {
	OP_ADD,			/* xdp_add by name, raw key */
	OP_ADD_ADDR,		/* xdp_add_addr by name */
	OP_ADD_ID,
	OP_ADD_ADDR_ID,
	OP_REF_ADD,		/* xdp_get + ref_add + put */
	OP_REF_ADD_ADDR,
};

/* the test's mix of n into an IPv4 address (the same in kbloom_learn.c) */
static __always_inline __u32 mix32(__u32 x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	x *= 0x846ca68b;
	x ^= x >> 16;
	return x;
}

/* through pointers, as kb_kfunc.bpf.c: the verifier keeps the bounds */
static int kb_ok_sizes(__u32 *nsz, __u32 *ksz)
{
	*nsz = fname_sz;
	*ksz = key_sz;
	if (*nsz < 1 || *nsz > sizeof(fname) || *ksz < 1 || *ksz > sizeof(key))
		return 0;
	return 1;
}

SEC("xdp")
int one(struct xdp_md *ctx)
{
	struct kbloom_bpf_ref *ref;
	__u32 nsz, ksz;

	if (!kb_ok_sizes(&nsz, &ksz))
		return XDP_ABORTED;
	switch (op) {
	case OP_ADD:
		res = bpf_kbloom_xdp_add(ctx, fname, nsz, key, ksz);
		break;
	case OP_ADD_ADDR:
		res = bpf_kbloom_xdp_add_addr(ctx, fname, nsz, key, ksz);
		break;
	case OP_ADD_ID:
		res = bpf_kbloom_xdp_add_id(ctx, id, key, ksz, flags);
		break;
	case OP_ADD_ADDR_ID:
		res = bpf_kbloom_xdp_add_addr_id(ctx, id, key, ksz, flags);
		break;
	case OP_REF_ADD:
	case OP_REF_ADD_ADDR:
		ref = bpf_kbloom_xdp_get(ctx, fname, nsz);
		if (!ref) {
			res = -1000;
			break;
		}
		if (op == OP_REF_ADD)
			res = bpf_kbloom_ref_add(ref, key, ksz, flags);
		else
			res = bpf_kbloom_ref_add_addr(ref, key, ksz, flags);
		bpf_kbloom_put(ref);
		break;
	default:
		return XDP_ABORTED;
	}
	return XDP_PASS;
}

SEC("xdp")
int flood(struct xdp_md *ctx)
{
	__u64 n = __sync_fetch_and_add(&ctr, 1);
	__u32 a = mix32(seed + (__u32)n);
	int r;

	r = bpf_kbloom_xdp_add_addr_id(ctx, id, &a, sizeof(a), flags);
	if (r == 1)
		__sync_fetch_and_add(&n_added, 1);
	else if (r == 0)
		__sync_fetch_and_add(&n_maybe, 1);
	else if (r == -ENOSPC)
		__sync_fetch_and_add(&n_nospc, 1);
	else {
		__sync_fetch_and_add(&n_other, 1);
		last_other = r;
	}
	return XDP_PASS;
}
