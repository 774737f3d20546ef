// SPDX-License-Identifier: GPL-2.0
/*
 * Must NOT load: passes a struct kbloom_bpf_ref of its own (on the stack)
 * where a reference from bpf_kbloom_get() belongs; the kernel would
 * follow it as a filter.  selftests/kbloom_bpf.c checks that the verifier
 * refuses it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kbloom.bpf.h"

char LICENSE[] SEC("license") = "GPL";

__u8 key[4];
int res;

SEC("tp_btf/sys_enter")
int BPF_PROG(kb_forge, struct pt_regs *regs, long id)
{
	struct kbloom_bpf_ref fake = { .id = 1 };

	res = bpf_kbloom_ref_test(&fake, key, sizeof(key));
	return 0;
}
