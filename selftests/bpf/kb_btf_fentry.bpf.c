// SPDX-License-Identifier: GPL-2.0
/*
 * An fentry program on kbloom_get(), a function of kbloom.ko: libbpf finds
 * its attach target only in the module's BTF (/sys/kernel/btf/kbloom), so
 * loading it proves the module was built with BTF the running kernel
 * accepted, which the kfuncs need too.  It records the last name looked
 * up and counts the calls, so the test sees the probe really fired.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* only calls from this thread group: the test's own */
int target_tgid;
__u64 calls;
char last_name[32];

SEC("fentry/kbloom_get")
int BPF_PROG(kb_on_get, struct net *net, const char *name)
{
	if ((bpf_get_current_pid_tgid() >> 32) != (__u32)target_tgid)
		return 0;
	bpf_probe_read_kernel_str(last_name, sizeof(last_name), name);
	__sync_fetch_and_add(&calls, 1);
	return 0;
}
