// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP/tc blocklist: drop a packet whose source (or destination)
 * address may be in a named kbloom filter of the device's network
 * namespace.  One source, two programs: kbloom_xdp (XDP, native or
 * generic) and kbloom_tc (tc ingress, SCHED_CLS); bfctl loads the one it
 * attaches (`bfctl xdp attach`, userspace/bfctl/xdp.c).
 *
 * The filter is looked up at every packet by its id (the kfuncs' RCU
 * index; bfctl resolves it at attach), so a rebuild, a swap or a rename is
 * seen at the next packet and the program holds no reference that would
 * keep a destroyed filter alive.  When the id answers -ENOENT (the filter
 * was destroyed, or did not exist at attach) the name is resolved again
 * and the new id kept: a filter re-created under the name is found.
 * A filter that does not exist (-ENOENT) or refuses the address (-EINVAL)
 * fails open: the packet passes and counts as KB_XDP_NOFILTER, as an
 * ipset rule whose set is gone matches nothing; bfctl refuses to attach to
 * a missing filter without --force, and `bfctl xdp show` shows the count.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <xdp/xdp_helpers.h>
#include "kbloom.bpf.h"
#include "xdp_blocklist.h"

/* uapi/linux/if_ether.h's, which vmlinux.h (types only) lacks */
#define KB_ETH_P_IP	0x0800
#define KB_ETH_P_IPV6	0x86DD
#define KB_ETH_P_8021Q	0x8100
#define KB_ETH_P_8021AD	0x88A8
#define KB_ETH_HLEN	14

#define KB_TC_ACT_UNSPEC	(-1)
#define KB_TC_ACT_SHOT		2

struct kb_vlan_hdr {
	__be16 tci;
	__be16 proto;
};

/* set by bfctl before load: constants to the verifier, which prunes by dir */
const volatile struct kb_xdp_conf kb_conf = {};

/*
 * The filter's name.  In .bss, not .rodata: the verifier of 6.12 checks a
 * kfunc's memory arguments for writing too (check_kfunc_mem_size_reg), and
 * refuses a pointer into a frozen, read-only map.
 */
char kb_name[KB_XDP_NAME_LEN];

/*
 * The filter's id, 0 for none yet; rewritten by the program when the name
 * resolves to a new one.  In a section of its own: bfctl xdp show reads
 * .bss as the name alone.
 */
__u64 kb_id SEC(".data.kb_id");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KB_XDP_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} kb_counters SEC(".maps");

static __always_inline void kb_count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&kb_counters, &idx);

	if (c)
		*c += 1;
}

/*
 * VLAN tags parsed before the IP header.  The kernel delivers the IP
 * packet behind any number of tags: a VID-0 (priority) tag is stripped
 * wherever it is (__netif_receive_skb_core, check_vlan_id), a tag with
 * another VID takes the frame into its vlan device.  At most 7 vlan
 * devices stack on a device (MAX_NEST_DEV counts the device too), so a
 * frame with more than 8 tags reaches IP only through priority tags no
 * stack sends: crafted, it is dropped (KB_PARSE_DEEP) instead of let
 * past an address it hides.  A non-zero VID without a vlan device is
 * tested all the same: the kernel drops its IP packet (PACKET_OTHERHOST),
 * so a drop here changes nothing.  8 turns keep the verifier's walk small.
 */
#define KB_VLAN_MAX	8

/* kb_parse()'s answers other than an address length */
#define KB_PARSE_OTHER		0	/* neither IPv4 nor IPv6: passed */
#define KB_PARSE_SHORT		(-1)	/* truncated (tc: not linear) */
#define KB_PARSE_DEEP		(-2)	/* more than KB_VLAN_MAX tags */

static __always_inline bool kb_is_vlan(__be16 proto)
{
	return proto == bpf_htons(KB_ETH_P_8021Q) ||
	       proto == bpf_htons(KB_ETH_P_8021AD);
}

/*
 * The address to test of the Ethernet frame [data, data_end), behind at
 * most ntags 802.1Q/802.1ad tags of any VID, in any order (as the
 * kernel's vlan devices take them): copied to out, returns its length (4
 * or 16), or one of KB_PARSE_*.
 */
static __always_inline int kb_parse(void *data, void *data_end, int ntags,
				    __u8 *out)
{
	struct ethhdr *eth = data;
	void *l3 = eth + 1;
	__be16 proto;
	int i;

	if (l3 > data_end)
		return KB_PARSE_SHORT;
	proto = eth->h_proto;
	for (i = 0; i < KB_VLAN_MAX; i++) {
		struct kb_vlan_hdr *vh = l3;

		if (i >= ntags || !kb_is_vlan(proto))
			break;
		if ((void *)(vh + 1) > data_end)
			return KB_PARSE_SHORT;
		proto = vh->proto;
		l3 = vh + 1;
	}
	if (kb_is_vlan(proto))
		return KB_PARSE_DEEP;
	if (proto == bpf_htons(KB_ETH_P_IP)) {
		struct iphdr *ip = l3;

		if ((void *)(ip + 1) > data_end)
			return KB_PARSE_SHORT;
		if (kb_conf.dir == KB_XDP_DIR_DST)
			__builtin_memcpy(out, &ip->daddr, 4);
		else
			__builtin_memcpy(out, &ip->saddr, 4);
		return 4;
	}
	if (proto == bpf_htons(KB_ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > data_end)
			return KB_PARSE_SHORT;
		if (kb_conf.dir == KB_XDP_DIR_DST)
			__builtin_memcpy(out, &ip6->daddr, 16);
		else
			__builtin_memcpy(out, &ip6->saddr, 16);
		return 16;
	}
	return KB_PARSE_OTHER;
}

/* a test kfunc's answer -> true to drop; counts the packet */
static __always_inline bool kb_verdict(int ret)
{
	if (ret > 0) {
		kb_count(KB_XDP_DROPPED);
		return true;
	}
	kb_count(ret == 0 ? KB_XDP_PASSED : KB_XDP_NOFILTER);
	return false;
}

/*
 * By id; on -ENOENT resolve the name to a new id (racing CPUs store the
 * same value).  A constant address size at each call: the verifier checks
 * addr against it.
 */
static __always_inline int kb_xdp_test(struct xdp_md *ctx, const __u8 *addr,
				       int len)
{
	__s64 id;
	int ret;

	ret = len == 4 ? bpf_kbloom_xdp_test_addr_id(ctx, kb_id, addr, 4) :
			 bpf_kbloom_xdp_test_addr_id(ctx, kb_id, addr, 16);
	if (ret != -ENOENT)
		return ret;
	id = bpf_kbloom_xdp_id(ctx, kb_name, sizeof(kb_name));
	if (id <= 0)
		return id;
	kb_id = id;
	return len == 4 ? bpf_kbloom_xdp_test_addr_id(ctx, id, addr, 4) :
			  bpf_kbloom_xdp_test_addr_id(ctx, id, addr, 16);
}

static __always_inline int kb_skb_test(struct __sk_buff *skb,
				       const __u8 *addr, int len)
{
	__s64 id;
	int ret;

	ret = len == 4 ? bpf_kbloom_skb_test_addr_id(skb, kb_id, addr, 4) :
			 bpf_kbloom_skb_test_addr_id(skb, kb_id, addr, 16);
	if (ret != -ENOENT)
		return ret;
	id = bpf_kbloom_skb_id(skb, kb_name, sizeof(kb_name));
	if (id <= 0)
		return id;
	kb_id = id;
	return len == 4 ? bpf_kbloom_skb_test_addr_id(skb, id, addr, 4) :
			  bpf_kbloom_skb_test_addr_id(skb, id, addr, 16);
}

/* a frame kb_parse() found no address in: true to drop; counts it */
static __always_inline bool kb_noaddr(int len)
{
	if (len == KB_PARSE_DEEP) {
		kb_count(KB_XDP_DROPPED);
		return true;
	}
	kb_count(KB_XDP_NONIP);
	return false;
}

/*
 * What libxdp's dispatcher reads from the object (libxdp(3), "program
 * metadata"; the variable is named after the program, the section is
 * XDP_RUN_CONFIG's) so that kbloom_xdp can share a device with xdp-filter
 * and other libxdp programs: its default place in the chain (bfctl xdp
 * attach --priority overrides it), and the verdict after which the next
 * program runs.  A passed packet goes on; a dropped one is final.
 */
struct {
	__uint(priority, KB_XDP_PRIO_DEFAULT);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(kbloom_xdp);

SEC("xdp")
int kbloom_xdp(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	__u8 addr[16];
	int len, ret;

	/* a tag the NIC stripped (rx VLAN offload) is not seen: not counted */
	len = kb_parse(data, data_end, KB_VLAN_MAX, addr);
	if (len <= 0)
		return kb_noaddr(len) ? XDP_DROP : XDP_PASS;
	ret = kb_xdp_test(ctx, addr, len);
	return kb_verdict(ret) ? XDP_DROP : XDP_PASS;
}

SEC("tc")
int kbloom_tc(struct __sk_buff *skb)
{
	/*
	 * Before tc ingress the kernel moved the outer tag (if any) into the
	 * skb's metadata: it counts, so a stack is as deep here as in XDP
	 */
	int ntags = KB_VLAN_MAX - (skb->vlan_present ? 1 : 0);
	__u8 addr[16];
	int len, ret;

	len = kb_parse((void *)(long)skb->data, (void *)(long)skb->data_end,
		       ntags, addr);
	if (len == KB_PARSE_SHORT) {
		/* headers past the linear part: pull them in, once */
		__u32 want = KB_ETH_HLEN +
			     KB_VLAN_MAX * sizeof(struct kb_vlan_hdr) +
			     sizeof(struct ipv6hdr);

		if (bpf_skb_pull_data(skb, skb->len < want ? skb->len : want) == 0)
			len = kb_parse((void *)(long)skb->data,
				       (void *)(long)skb->data_end, ntags,
				       addr);
	}
	/* UNSPEC, not OK: a passed packet goes on to the hook's other filters */
	if (len <= 0)
		return kb_noaddr(len) ? KB_TC_ACT_SHOT : KB_TC_ACT_UNSPEC;
	ret = kb_skb_test(skb, addr, len);
	return kb_verdict(ret) ? KB_TC_ACT_SHOT : KB_TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";
