// SPDX-License-Identifier: GPL-2.0
/*
 * The kbloom kfuncs from each program type (selftests/kbloom_bpf.c runs
 * them): an XDP and a tc program (BPF_PROG_TEST_RUN on crafted packets)
 * and a TRACING program on the test thread's getppid().  Each tests the
 * packet's (or key[]'s) address by name, by reference, by id (and by a
 * cached id with the name as fallback), and key[] as a raw key, and leaves
 * every answer in res[] for the test to check.  The test sets the filter
 * name (fname, fname_sz: not necessarily NUL-terminated), key/key_sz and
 * the ids tid/cid through the skeleton's globals.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>
#include "kbloom.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define KB_ETH_P_IP	0x0800
#define KB_ETH_P_IPV6	0x86DD
#define KB_NONE		(-1000)	/* not called */

char fname[32];
__u32 fname_sz;
__u8 key[32];
__u32 key_sz;

/*
 * res[0] test_addr by name on the packet's source (or key[] for TRACING)
 * res[1] ref_test_addr on the same, or -ENOENT... if the get gave NULL
 * res[2] test (raw key[]/key_sz) by name
 * res[3] test_addr by name on key[] with key_sz (the size checks)
 * res[4] ref_test on key[]/key_sz
 * res[5] test_addr_id by tid on the packet's source (key[] for TRACING)
 * res[6] test_id by tid on key[]/key_sz (raw)
 * res[7] test_addr_id by tid on key[] with key_sz (the size checks)
 * res[8] test_addr_id by cid on the source, re-resolving fname into cid
 *        on -ENOENT (the fallback docs/bpf.md shows)
 * rid is the id fname resolves to (or -ENOENT, -EINVAL).
 */
int res[9];
__u64 tid;
__u64 cid;
__s64 rid;
__u64 ref_id;
__u32 ref_key_type;
__u32 ref_kind;
__u64 runs;

/* TRACING: only the test thread's getppid() */
int target_tid;
long trig_nr;
/* TRACING race: 1 = hold the ref until the test destroyed the filter */
int hold;
int held;		/* the program holds its ref (the test waits for it) */
int destroyed;		/* the test destroyed the filter */
int after;		/* ref_test on the held ref after the destroy */
__u64 after_id;		/* its id, read after the destroy */

static int kb_ok_sizes(__u32 *nsz, __u32 *ksz)
{
	*nsz = fname_sz;
	*ksz = key_sz;
	if (*nsz < 1 || *nsz > sizeof(fname) || *ksz < 1 || *ksz > sizeof(key))
		return 0;
	return 1;
}

/* the source address of an Ethernet frame into a[]: its size, or 0 */
static __u32 kb_saddr(void *data, void *end, __u8 *a)
{
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end)
		return 0;
	if (eth->h_proto == bpf_htons(KB_ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end)
			return 0;
		__builtin_memcpy(a, &ip->saddr, 4);
		return 4;
	}
	if (eth->h_proto == bpf_htons(KB_ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end)
			return 0;
		__builtin_memcpy(a, &ip6->saddr, 16);
		return 16;
	}
	return 0;
}

static void kb_ref_read(struct kbloom_bpf_ref *ref)
{
	ref_id = ref->id;
	ref_key_type = ref->key_type;
	ref_kind = ref->kind;
}

SEC("xdp")
int kb_xdp(struct xdp_md *ctx)
{
	struct kbloom_bpf_ref *ref;
	__u32 nsz, ksz, alen;
	__u8 a[16] = {};

	runs++;
	if (!kb_ok_sizes(&nsz, &ksz))
		return XDP_ABORTED;
	alen = kb_saddr((void *)(long)ctx->data, (void *)(long)ctx->data_end, a);
	if (alen != 4 && alen != 16)
		return XDP_ABORTED;
	res[0] = bpf_kbloom_xdp_test_addr(ctx, fname, nsz, a, alen);
	res[1] = -ENOENT;
	res[4] = -ENOENT;
	ref = bpf_kbloom_xdp_get(ctx, fname, nsz);
	if (ref) {
		res[1] = bpf_kbloom_ref_test_addr(ref, a, alen);
		res[4] = bpf_kbloom_ref_test(ref, key, ksz);
		kb_ref_read(ref);
		bpf_kbloom_put(ref);
	}
	res[2] = bpf_kbloom_xdp_test(ctx, fname, nsz, key, ksz);
	res[3] = bpf_kbloom_xdp_test_addr(ctx, fname, nsz, key, ksz);
	rid = bpf_kbloom_xdp_id(ctx, fname, nsz);
	res[5] = bpf_kbloom_xdp_test_addr_id(ctx, tid, a, alen);
	res[6] = bpf_kbloom_xdp_test_id(ctx, tid, key, ksz);
	res[7] = bpf_kbloom_xdp_test_addr_id(ctx, tid, key, ksz);
	res[8] = bpf_kbloom_xdp_test_addr_id(ctx, cid, a, alen);
	if (res[8] == -ENOENT) {
		__s64 id = bpf_kbloom_xdp_id(ctx, fname, nsz);

		if (id > 0) {
			cid = id;
			res[8] = bpf_kbloom_xdp_test_addr_id(ctx, id, a, alen);
		}
	}
	return res[0] == 1 ? XDP_DROP : XDP_PASS;
}

SEC("tc")
int kb_tc(struct __sk_buff *ctx)
{
	struct kbloom_bpf_ref *ref;
	__u32 nsz, ksz, alen;
	__u8 a[16] = {};

	runs++;
	if (!kb_ok_sizes(&nsz, &ksz))
		return -1;
	alen = kb_saddr((void *)(long)ctx->data, (void *)(long)ctx->data_end, a);
	if (alen != 4 && alen != 16)
		return -1;
	res[0] = bpf_kbloom_skb_test_addr(ctx, fname, nsz, a, alen);
	res[1] = -ENOENT;
	res[4] = -ENOENT;
	ref = bpf_kbloom_skb_get(ctx, fname, nsz);
	if (ref) {
		res[1] = bpf_kbloom_ref_test_addr(ref, a, alen);
		res[4] = bpf_kbloom_ref_test(ref, key, ksz);
		kb_ref_read(ref);
		bpf_kbloom_put(ref);
	}
	res[2] = bpf_kbloom_skb_test(ctx, fname, nsz, key, ksz);
	res[3] = bpf_kbloom_skb_test_addr(ctx, fname, nsz, key, ksz);
	rid = bpf_kbloom_skb_id(ctx, fname, nsz);
	res[5] = bpf_kbloom_skb_test_addr_id(ctx, tid, a, alen);
	res[6] = bpf_kbloom_skb_test_id(ctx, tid, key, ksz);
	res[7] = bpf_kbloom_skb_test_addr_id(ctx, tid, key, ksz);
	res[8] = bpf_kbloom_skb_test_addr_id(ctx, cid, a, alen);
	if (res[8] == -ENOENT) {
		__s64 id = bpf_kbloom_skb_id(ctx, fname, nsz);

		if (id > 0) {
			cid = id;
			res[8] = bpf_kbloom_skb_test_addr_id(ctx, id, a, alen);
		}
	}
	return res[0] == 1 ? 2 /* TC_ACT_SHOT */ : 0 /* TC_ACT_OK */;
}

static long kb_wait(__u32 i, void *arg)
{
	return destroyed ? 1 : 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(kb_sys, struct pt_regs *regs, long id)
{
	struct kbloom_bpf_ref *ref;
	__u32 nsz, ksz;
	int i;

	if (id != trig_nr || (__u32)bpf_get_current_pid_tgid() != target_tid)
		return 0;
	runs++;
	if (!kb_ok_sizes(&nsz, &ksz))
		return 0;
	res[0] = bpf_kbloom_test_addr(fname, nsz, key, ksz);
	res[2] = bpf_kbloom_test(fname, nsz, key, ksz);
	res[3] = res[0];
	rid = bpf_kbloom_id(fname, nsz);
	res[5] = bpf_kbloom_test_addr_id(tid, key, ksz);
	res[6] = bpf_kbloom_test_id(tid, key, ksz);
	res[7] = res[5];
	res[8] = bpf_kbloom_test_addr_id(cid, key, ksz);
	if (res[8] == -ENOENT) {
		__s64 nid = bpf_kbloom_id(fname, nsz);

		if (nid > 0) {
			cid = nid;
			res[8] = bpf_kbloom_test_addr_id(nid, key, ksz);
		}
	}
	res[1] = -ENOENT;
	res[4] = -ENOENT;
	ref = bpf_kbloom_get(fname, nsz);
	if (!ref)
		return 0;
	res[1] = bpf_kbloom_ref_test_addr(ref, key, ksz);
	res[4] = bpf_kbloom_ref_test(ref, key, ksz);
	kb_ref_read(ref);
	if (hold) {
		/* the test destroys the filter while this program holds it */
		held = 1;
		for (i = 0; i < 16 && !destroyed; i++)
			bpf_loop(1 << 23, kb_wait, NULL, 0);
		after = bpf_kbloom_ref_test(ref, key, ksz);
		after_id = ref->id;
	}
	bpf_kbloom_put(ref);
	return 0;
}
