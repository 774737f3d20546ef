// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP learning trap, docs/bpf.md's example of adds from the packet
 * path: a TCP or UDP packet to the trap port teaches the filter its source
 * (bpf_kbloom_xdp_add_addr_id(), lockless, refused past the filter's
 * max-fpr cap) and is dropped; any other packet is dropped when its source
 * may be in the filter, and passed otherwise.  A scanner that touches the
 * trap port is cut off from every port from its next packet on.
 *
 * The filter is found by id at every packet, as the XDP blocklist does
 * (xdp_blocklist.bpf.c): the loader resolves the name, and on -ENOENT
 * (destroyed, maybe created again) the program resolves it once more.
 * IPv4 without options past the ports' offset and IPv6 without extension
 * headers are parsed; no VLAN tags (a sketch, not a firewall).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "kbloom.bpf.h"
#include "xdp_learn.h"

#define KB_ETH_P_IP	0x0800
#define KB_ETH_P_IPV6	0x86DD
#define KB_IPPROTO_TCP	6
#define KB_IPPROTO_UDP	17

char LICENSE[] SEC("license") = "GPL";	/* the kfuncs are GPL-only */

/* set by the loader before load: constants to the verifier */
const volatile struct kb_learn_conf kb_learn_conf = {};

/* in .bss: a kfunc's memory argument may not be a frozen map (6.12) */
char kb_learn_name[KB_LEARN_NAME_LEN];

/* the filter's id, 0 for none yet; the program renews it on -ENOENT */
__u64 kb_learn_id SEC(".data.kb_learn_id");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KB_LEARN_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} kb_learn_counters SEC(".maps");

static __always_inline void kb_learn_count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&kb_learn_counters, &idx);

	if (c)
		*c += 1;
}

/* the filter's id again after -ENOENT: > 0, or -ENOENT */
static __always_inline __s64 kb_learn_renew(struct xdp_md *ctx)
{
	__s64 id = bpf_kbloom_xdp_id(ctx, kb_learn_name,
				     sizeof(kb_learn_name));

	if (id > 0)
		kb_learn_id = id;
	return id;
}

SEC("xdp")
int kbloom_learn(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u8 saddr[16] = {};
	__u16 *ports;
	__u32 alen;
	__u32 flags = kb_learn_conf.refresh ? KBLOOM_ADD_REFRESH : 0;
	__u8 proto;
	int r;

	if ((void *)(eth + 1) > end)
		goto other;
	if (eth->h_proto == bpf_htons(KB_ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end)
			goto other;
		__builtin_memcpy(saddr, &ip->saddr, 4);
		alen = 4;
		proto = ip->protocol;
		ports = (void *)ip + ip->ihl * 4;
	} else if (eth->h_proto == bpf_htons(KB_ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end)
			goto other;
		__builtin_memcpy(saddr, &ip6->saddr, 16);
		alen = 16;
		proto = ip6->nexthdr;
		ports = (void *)(ip6 + 1);
	} else {
		goto other;
	}
	/* ports[1]: the destination port of TCP and UDP alike */
	if ((proto == KB_IPPROTO_TCP || proto == KB_IPPROTO_UDP) &&
	    (void *)(ports + 2) <= end && ports[1] == kb_learn_conf.port) {
		r = bpf_kbloom_xdp_add_addr_id(ctx, kb_learn_id, saddr, alen,
					       flags);
		if (r == -ENOENT && kb_learn_renew(ctx) > 0)
			r = bpf_kbloom_xdp_add_addr_id(ctx, kb_learn_id, saddr,
						       alen, flags);
		if (r < 0 && r != -ENOSPC)
			goto other;
		kb_learn_count(r == 1 ? KB_LEARN_ADDED :
			       r == 0 ? KB_LEARN_KNOWN : KB_LEARN_REFUSED);
		return XDP_DROP;
	}
	r = bpf_kbloom_xdp_test_addr_id(ctx, kb_learn_id, saddr, alen);
	if (r == -ENOENT && kb_learn_renew(ctx) > 0)
		r = bpf_kbloom_xdp_test_addr_id(ctx, kb_learn_id, saddr, alen);
	if (r < 0)
		goto other;
	kb_learn_count(r == 1 ? KB_LEARN_DROPPED : KB_LEARN_PASSED);
	return r == 1 ? XDP_DROP : XDP_PASS;
other:
	kb_learn_count(KB_LEARN_OTHER);
	return XDP_PASS;
}
