// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's reference points (make bench-bpf): the same XDP program
 * with no lookup at all (what parsing and the run itself cost) and with
 * one lookup in a BPF_MAP_TYPE_BLOOM_FILTER, the map kbloom is compared
 * with.  The driver (selftests/bench/kb_bench_bpf.c) creates and fills the
 * map, sized for its target false positive rate, and hands it to this
 * object before load.
 */
#include "kb_bench_xdp.h"

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__type(value, __u32);
	__uint(max_entries, 1);
} kb_bench_bloom SEC(".maps");

SEC("xdp")
int xdp_base(struct xdp_md *ctx)
{
	__u32 saddr;

	if (kb_bench_saddr(ctx, &saddr))
		return XDP_PASS;
	/* the address is the verdict's only input, as in the others */
	return saddr == 0xffffffff ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_bloom(struct xdp_md *ctx)
{
	__u32 saddr;

	if (kb_bench_saddr(ctx, &saddr))
		return XDP_PASS;
	/* peek: 0 when every bit of the value is set (maybe present) */
	return bpf_map_peek_elem(&kb_bench_bloom, &saddr) == 0 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
