// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's kbloom program (make bench-bpf): the shape of
 * kb_bench_bloom.bpf.c with the lookup done by the kfunc, by filter name.
 * A separate object, so that the reference points still load where the
 * kfuncs are missing (no module BTF): the driver then says so.
 */
#include "kb_bench_xdp.h"
#include "kbloom.bpf.h"

/*
 * The filter's name, set by the driver before load.  In .data, not
 * .rodata: 6.1's verifier checks a kfunc's memory arguments for writing
 * too, and a read-only map value fails that.
 */
char kb_bench_name[32] = "kbbench";

SEC("xdp")
int xdp_kbloom(struct xdp_md *ctx)
{
	__u32 saddr;

	if (kb_bench_saddr(ctx, &saddr))
		return XDP_PASS;
	/* 1: maybe present; 0 absent; < 0 no such filter (passes) */
	return bpf_kbloom_xdp_test_addr(ctx, kb_bench_name, sizeof(kb_bench_name),
					&saddr, sizeof(saddr)) > 0 ? XDP_DROP : XDP_PASS;
}

/* the filter's id: 0 until the first packet resolves kb_bench_name */
__u64 kb_bench_id;

/*
 * The per-packet fast path (docs/bpf.md): by id, re-resolving the name
 * only when the id answers -ENOENT (the first packet here).
 */
SEC("xdp")
int xdp_kbloom_id(struct xdp_md *ctx)
{
	__u32 saddr;
	__s64 id;
	int r;

	if (kb_bench_saddr(ctx, &saddr))
		return XDP_PASS;
	r = bpf_kbloom_xdp_test_addr_id(ctx, kb_bench_id, &saddr, sizeof(saddr));
	if (r == -ENOENT) {
		id = bpf_kbloom_xdp_id(ctx, kb_bench_name, sizeof(kb_bench_name));
		if (id <= 0)
			return XDP_PASS;
		kb_bench_id = id;
		r = bpf_kbloom_xdp_test_addr_id(ctx, id, &saddr, sizeof(saddr));
	}
	return r > 0 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
