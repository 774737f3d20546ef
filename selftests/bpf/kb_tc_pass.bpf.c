// SPDX-License-Identifier: GPL-2.0
/*
 * A foreign tc program for the blocklist's tests
 * (selftests/bfctl/bfctl_xdp.sh): put by tc(8) at the blocklist's own
 * handle and priority, it must not be replaced by `bfctl xdp attach
 * --mode tc` without --replace, nor removed by `bfctl xdp detach`.  It
 * passes everything on (TC_ACT_UNSPEC, direct action).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tc")
int kb_tc_pass(struct __sk_buff *skb)
{
	return -1;
}

char LICENSE[] SEC("license") = "GPL";
