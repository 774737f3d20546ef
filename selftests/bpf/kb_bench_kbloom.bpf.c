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

char LICENSE[] SEC("license") = "GPL";
