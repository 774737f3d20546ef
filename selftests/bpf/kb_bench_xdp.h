/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shape every XDP program of the BPF benchmark shares (make bench-bpf,
 * selftests/bench/bpf.sh): parse Ethernet and IPv4, copy the source address
 * to the stack, one lookup, XDP_DROP when the address may be listed.  Only
 * the lookup differs between the programs, so their per-packet costs
 * compare the lookups alone.  Non-IPv4 traffic passes.
 */
#ifndef KB_BENCH_XDP_H
#define KB_BENCH_XDP_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define KB_BENCH_ETH_P_IP 0x0800

/* The source address of an IPv4 packet in *saddr: 0, or -1 to pass it. */
static __always_inline int kb_bench_saddr(struct xdp_md *ctx, __u32 *saddr)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = data + sizeof(*eth);

	if ((void *)(iph + 1) > end)
		return -1;
	if (eth->h_proto != bpf_htons(KB_BENCH_ETH_P_IP) || iph->version != 4)
		return -1;
	*saddr = iph->saddr;
	return 0;
}

#endif
