// SPDX-License-Identifier: GPL-2.0
/*
 * Must NOT load: takes a kbloom reference and returns without releasing
 * it on one path.  selftests/kbloom_bpf.c checks that the verifier refuses
 * it ("Unreleased reference").
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kbloom.bpf.h"

char LICENSE[] SEC("license") = "GPL";

char fname[32] = "leak";
__u8 key[4];
int res;

SEC("tp_btf/sys_enter")
int BPF_PROG(kb_leak, struct pt_regs *regs, long id)
{
	struct kbloom_bpf_ref *ref = bpf_kbloom_get(fname, sizeof(fname));

	if (!ref)
		return 0;
	res = bpf_kbloom_ref_test(ref, key, sizeof(key));
	if (res == 1)
		return 0;	/* leaks ref */
	bpf_kbloom_put(ref);
	return 0;
}
