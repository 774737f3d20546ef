/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom: differences between the kernels kbloom builds for (6.1 .. 6.12).
 * Every item is detected from the kernel headers themselves (a macro that
 * exists only in some versions), never from LINUX_VERSION_CODE.
 */
#ifndef _KB_COMPAT_H
#define _KB_COMPAT_H

#include <linux/netlink.h>
#include <linux/vmalloc.h>

/*
 * NL_SET_ERR_MSG_FMT() (formatted extack messages) arrived in 6.2.  Older
 * kernels get the format string itself, which is still a useful message.
 */
#ifndef NL_SET_ERR_MSG_FMT
#define NL_SET_ERR_MSG_FMT(extack, fmt, args...) \
	NL_SET_ERR_MSG(extack, fmt)
#endif
#ifndef NL_SET_ERR_MSG_FMT_MOD
#define NL_SET_ERR_MSG_FMT_MOD(extack, fmt, args...) \
	NL_SET_ERR_MSG_MOD(extack, fmt)
#endif

/*
 * Policy range pointers are const since 6.2; the generated policies
 * (netlink_gen.c) point to const ranges, which 6.1's non-const member
 * would warn about.  Cast to the member's own type: a no-op where it is
 * const, and 6.1 only reads through it.
 */
#include <net/netlink.h>
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (typeof(((struct nla_policy *)0)->range))(_range),	\
}

/*
 * Huge (PMD) vmalloc mappings for big payloads: vmalloc_huge() exists in
 * both 6.1 and 6.12 (6.12 makes it an alloc_hooks() macro around
 * vmalloc_huge_noprof()); VM_ALLOW_HUGE_VMAP tells that it is available.
 */
#ifdef VM_ALLOW_HUGE_VMAP
#define kb_vmalloc_big(size, gfp)	vmalloc_huge(size, gfp)
#else
#define kb_vmalloc_big(size, gfp)	__vmalloc(size, gfp)
#endif

/*
 * Generic netlink multicast groups only CAP_NET_ADMIN may join: the
 * genl_multicast_group.flags GENL_MCAST_CAP_NET_ADMIN (6.6, backported to
 * 6.1.y, present in Debian's 6.1 and 6.12).  Without it the "events" group
 * would be open to everyone: refuse to build instead.
 */
#include <net/genetlink.h>
#ifndef GENL_MCAST_CAP_NET_ADMIN
#error "kbloom needs GENL_MCAST_CAP_NET_ADMIN (genetlink multicast group flags)"
#endif

/*
 * BPF kfuncs (bpf.c).  6.1 has no __bpf_kfunc tag (its kfuncs are plain
 * noinline functions) and only BTF_SET8_START; 6.12 needs the set to
 * come from BTF_KFUNCS_START (the BTF_SET8_KFUNCS flag), or
 * register_btf_kfunc_id_set() refuses it.  The KF_* flags kbloom uses
 * (ACQUIRE, RELEASE, RET_NULL, TRUSTED_ARGS) have the same meaning in
 * both.  Program context arguments (struct xdp_md *, struct __sk_buff *)
 * are PTR_TO_CTX in both: the kernel object (xdp_buff, sk_buff) is passed.
 */
#include <linux/btf.h>
#include <linux/btf_ids.h>
#ifndef __bpf_kfunc
#define __bpf_kfunc	noinline	/* global: never dropped */
#endif
#ifdef BTF_KFUNCS_START
#define KB_KFUNCS_START(name)	BTF_KFUNCS_START(name)
#define KB_KFUNCS_END(name)	BTF_KFUNCS_END(name)
#else
#define KB_KFUNCS_START(name)	BTF_SET8_START(name)
#define KB_KFUNCS_END(name)	BTF_SET8_END(name)
#endif

/*
 * vma->vm_flags became read-only in 6.3, changed through vm_flags_set()
 * and vm_flags_clear() (which also take the per-VMA lock); the same
 * series renamed VM_LOCKED_CLEAR_MASK to VM_LOCKED_MASK, which tells them
 * apart.  6.1 writes the field.
 */
#include <linux/mm.h>
#ifdef VM_LOCKED_MASK
#define kb_vm_flags_set(vma, flags)	vm_flags_set(vma, flags)
#define kb_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#else
#define kb_vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#define kb_vm_flags_clear(vma, flags)	((vma)->vm_flags &= ~(flags))
#endif

#endif /* _KB_COMPAT_H */
