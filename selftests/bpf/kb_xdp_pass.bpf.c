// SPDX-License-Identifier: GPL-2.0
/*
 * A foreign XDP program for the blocklist's tests
 * (selftests/bfctl/bfctl_xdp.sh): it passes everything and is not bfctl's,
 * so `bfctl xdp attach` must not replace it without --replace and `bfctl xdp
 * detach` must leave it alone.  Attached with ip(8).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int kb_xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
