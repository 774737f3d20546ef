// SPDX-License-Identifier: GPL-2.0
/*
 * The path filter: sleepable BPF LSM programs that deny exec
 * (bprm_check_security) and open (file_open) of the paths listed in a
 * kbloom `str` filter.  Loaded, configured and pinned by `bfctl lsm
 * attach` (userspace/bfctl/lsm.c), which enables one or both programs.
 *
 * A Bloom filter answers "maybe": on its own it would deny innocent files.
 * The filter only screens; a "maybe" is confirmed against the exact set,
 * a hash map of the listed paths' SipHash-2-4-128 under a key drawn at
 * load time (rodata, never leaves the kernel and bfctl), so an attacker
 * cannot make up a path colliding with a listed one.  A false positive of
 * the filter costs one map lookup, never a denial.
 *
 * A path is not a file's only name (bind mounts, chroots, hard links,
 * other mount namespaces): the inode set, the identity (struct pf_ino) of
 * each listed file resolved at attach, denies the file by any path; the
 * path check still denies a listed path whose file was replaced or
 * created after attach.
 * With --exec, mapping a listed file's code (mmap_file, file_mprotect
 * with PROT_EXEC) is denied too: `ld.so /listed/binary` never execs it.
 *
 * The filter is tested in the netns bfctl attached from (the kfunc finds
 * filters by the current task's netns): in any other netns, where NAME
 * may be another filter, or none, the exact set alone decides, so that a
 * new netns (unshare -rn, with a filter of its own) is no way around the
 * list; so does it when the filter errors (destroyed): the list stays
 * enforced.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kbloom.bpf.h"
#include "path_filter.h"

#define EPERM	1
#define ENAMETOOLONG	36

/* set by the loader before load; read-only to the programs */
const volatile char filter_name[PF_NAME_MAX];
const volatile __u64 sip_key[2];
const volatile __u64 netns_cookie;	/* the attaching netns: net_cookie */
const volatile __u32 hooks;		/* PF_HOOK_*, for bfctl lsm show */
const volatile __u32 audit;		/* report, deny nothing */
/* tests: for this inode, hold fault_hold of the CPU's path buffers first */
const volatile __u64 fault_ino;
const volatile __u32 fault_hold;

/* the exact set; the loader sizes it to the list */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct pf_hash);
	__type(value, __u8);
} paths SEC(".maps");

/*
 * the inode set: the identity (struct pf_ino: dev, ino, btrfs subvolume,
 * generation) of each listed file that existed at attach on a filesystem
 * whose file handles give it,
 * whatever path (bind mount, chroot, hard link, other mount namespace)
 * reaches it
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct pf_ino);
	__type(value, __u8);
} inodes SEC(".maps");

/* the list as attach resolved it, for bfctl lsm show; never read here */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pf_listed);
} list SEC(".maps");

/*
 * The path buffers, for a path longer than fits on the stack
 * (PF_STACK_PATH): PF_BUF_SLOTS per CPU, each claimed for one check.  A
 * sleepable program runs with migration disabled but preemptible (and on
 * PREEMPT_RT bpf_d_path() may sleep on rename_lock), so another task on
 * this CPU may run a check in the middle of ours: it finds our buffer
 * claimed and takes the next one, instead of overwriting our path and
 * having one task's file judged by another's path.  Preallocated, so a
 * check never allocates; 6.1's task storage, used before, answered NULL
 * whenever a task storage operation on this CPU had been preempted, which
 * its first allocation for each new task could be (docs/lsm.md).  With
 * every buffer claimed, the inode set alone judges (pf_check()).
 */
struct pf_buf {
	__u64 owner;		/* 0: free; else the claiming task's pid_tgid */
	__u64 w[PF_BUF_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PF_BUF_SLOTS);
	__type(key, __u32);
	__type(value, struct pf_buf);
} bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PF_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/*
 * Atomic, though per CPU: a check preempted between the load and the
 * store of a plain increment would lose the preempting check's counts.
 */
static __always_inline void pf_count(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &i);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/*
 * Claim a free path buffer of this CPU for tag (nonzero), or NULL when
 * every one is claimed: PF_BUF_SLOTS checks preempted or asleep on one
 * CPU at once.  Compare-and-exchange: a task preempted between a plain
 * test and set would claim the buffer its preempter had taken meanwhile.
 * hold (tests): leave that many free buffers claimed first, as checks in
 * flight would.  Unrolled, each key a constant: 6.1's verifier loses
 * the bound of a loop counter that passes through the stack as the key.
 */
static __always_inline struct pf_buf *pf_buf_claim(__u64 tag, __u32 hold)
{
	struct pf_buf *b;
	__u32 i, key;

#pragma unroll
	for (i = 0; i < PF_BUF_SLOTS; i++) {
		key = i;
		b = bpf_map_lookup_elem(&bufs, &key);
		if (!b || __sync_val_compare_and_swap(&b->owner, 0, tag))
			continue;
		if (!hold)
			return b;
		hold--;
	}
	return NULL;
}

/* tests: release every buffer of this CPU that tag claimed */
static __always_inline void pf_buf_release(__u64 tag)
{
	struct pf_buf *b;
	__u32 i, key;

#pragma unroll
	for (i = 0; i < PF_BUF_SLOTS; i++) {
		key = i;
		b = bpf_map_lookup_elem(&bufs, &key);
		if (b)
			__sync_val_compare_and_swap(&b->owner, tag, 0);
	}
}

/* w: the path (NUL terminated), or NULL: none */
static __always_inline void pf_report(const __u64 *w, __u32 hook,
				      const struct pf_ino *id, __u32 why)
{
	struct pf_event *e;
	__u64 ugid = bpf_get_current_uid_gid();
	__u64 pt = bpf_get_current_pid_tgid();

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		pf_count(PF_STAT_LOST);
		return;
	}
	e->time_ns = bpf_ktime_get_boot_ns();
	e->dev = id->dev;
	e->ino = id->ino;
	e->pid = (__u32)pt;
	e->tgid = pt >> 32;
	e->uid = (__u32)ugid;
	e->gid = ugid >> 32;
	e->hook = hook;
	/* without a path buffer, only the inode set denies */
	e->denied = (why & (PF_WHY_PATH | PF_WHY_INODE)) && !audit;
	e->why = why;
	e->pad = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	/*
	 * up to the NUL: w is a path buffer or a shorter one on the stack,
	 * whose neighbours are not for the ring buffer
	 */
	e->path[0] = 0;
	if (w)
		bpf_probe_read_kernel_str(e->path, sizeof(e->path), w);
	e->path[sizeof(e->path) - 1] = 0;
	bpf_ringbuf_submit(e, 0);
}

/*
 * -EPERM if deny, else 0, as a value the verifier sees is one or the
 * other: 6.12 checks that an LSM program returns an errno or 0, and clang
 * may otherwise return a register it knows to be 0 (the kfunc's answer)
 * whose upper half the verifier cannot bound.
 */
static __always_inline int pf_verdict(int deny)
{
	int v;

	asm volatile("%[v] = 0\n\t"
		     "if %[d] == 0 goto +1\n\t"
		     "%[v] = %[e]"
		     : [v] "=&r"(v)
		     : [d] "r"(deny), [e] "i"(-EPERM));
	return v;
}

/*
 * btrfs's inode and subvolume root, as far as the programs read them:
 * the btrfs module's BTF gives CO-RE their layout (vmlinux.h has none)
 */
struct btrfs_key___pf {
	__u64 objectid;
} __attribute__((preserve_access_index));

struct btrfs_root___pf {
	struct btrfs_key___pf root_key;
} __attribute__((preserve_access_index));

struct btrfs_inode___pf {
	struct btrfs_root___pf *root;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

/*
 * The btrfs subvolume of inode (BTRFS_I(inode)->root's objectid, what
 * btrfs's file handles carry), or 0: not btrfs, or no btrfs BTF at load
 * (bfctl then matches btrfs files by path only).
 */
static __always_inline __u64 pf_subvol(struct inode *inode)
{
	struct btrfs_inode___pf *bi;

	if (!bpf_core_type_exists(struct btrfs_inode___pf))
		return 0;
	if (BPF_CORE_READ(inode, i_sb, s_magic) != PF_BTRFS_MAGIC)
		return 0;
	bi = (void *)((unsigned long)inode -
		      bpf_core_field_offset(struct btrfs_inode___pf, vfs_inode));
	return BPF_CORE_READ(bi, root, root_key.objectid);
}

/* is the file's inode listed?  id: its identity, for the report */
static __always_inline bool pf_ino_listed(struct file *file,
					  struct pf_ino *id)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);

	id->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	id->ino = BPF_CORE_READ(inode, i_ino);
	id->gen = BPF_CORE_READ(inode, i_generation);
	id->sub = pf_subvol(inode);
	id->pad = 0;
	return bpf_map_lookup_elem(&inodes, id);
}

/*
 * nonzero: deny.  w: the path bpf_d_path() wrote, len its return (the
 * length with the NUL, or -errno); max: the most w holds without its
 * NUL, so that the verifier knows where the hash and the filter stop.
 * id: the file's identity; why: PF_WHY_INODE if the inode set listed it
 */
static __always_inline int pf_judge(__u64 *w, long len, long max, __u32 hook,
				    const struct pf_ino *id, __u32 why)
{
	struct task_struct *task = bpf_get_current_task_btf();
	char name[PF_NAME_MAX];
	struct pf_hash h;
	bool maybe = false;
	__u64 n;
	int i, r;

	/*
	 * n: the length without the NUL, 1 to max, else (longer than w or
	 * a str key, or an error) it cannot be listed.  One unsigned compare
	 * of the very register the kfunc and the hash get, opaque to clang
	 * (which would otherwise fold two compares of len into one of a
	 * temporary, and the verifier not see n bounded).
	 */
	n = len - 2;
	asm volatile("" : "+r"(n));
	if (n > max - 1) {
		w[0] = 0;
		goto decide;
	}
	n++;
	pf_count(PF_STAT_CHECKED);

	if (BPF_CORE_READ(task, nsproxy, net_ns, net_cookie) != netns_cookie) {
		pf_count(PF_STAT_FOREIGN);
	} else {
		/*
		 * from the stack: the verifier takes a kfunc's memory
		 * argument as writable, and rodata is not.  Volatile reads:
		 * a memcpy from it would be folded to the zeroes clang
		 * sees in the object file.
		 */
		for (i = 0; i < PF_NAME_MAX; i++)
			name[i] = filter_name[i];
		r = bpf_kbloom_test(name, sizeof(name), w, n);
		if (!r)
			goto decide;	/* absent: the common case */
		if (r == 1) {
			maybe = true;
			pf_count(PF_STAT_MAYBE);
		} else {
			pf_count(PF_STAT_NO_FILTER);
		}
	}

	h = pf_siphash128_w(w, n, sip_key[0], sip_key[1], max / 8);
	if (bpf_map_lookup_elem(&paths, &h))
		why |= PF_WHY_PATH;
	else if (maybe)
		pf_count(PF_STAT_FALSE_POS);
decide:
	if (!why)
		return 0;
	pf_count(PF_STAT_HIT);
	if (!(why & PF_WHY_PATH))
		pf_count(PF_STAT_BY_INODE);
	pf_report(w, hook, id, why);
	return !audit;
}

/* nonzero: deny */
static __always_inline int pf_check(struct file *file, __u32 hook)
{
	__u64 tag = bpf_get_current_pid_tgid();
	__u64 sw[PF_STACK_WORDS] = {};
	struct pf_ino id;
	struct pf_buf *b;
	__u32 why = 0;
	bool fault;
	long len;
	int deny;

	if (pf_ino_listed(file, &id))
		why = PF_WHY_INODE;
	/* tests: as if fault_hold other checks were in flight on this CPU */
	fault = fault_ino && id.ino == fault_ino;
	/*
	 * On this task's own stack first: no other check can take it, so
	 * however many are preempted or asleep on this CPU (an unprivileged
	 * user's openers and renames can make that many), this one is
	 * judged.  Only a longer path needs a shared buffer.
	 */
	if (!fault) {
		len = bpf_d_path(&file->f_path, (char *)sw, PF_STACK_PATH + 1);
		if (len != -ENAMETOOLONG)
			return pf_judge(sw, len, PF_STACK_PATH, hook, &id, why);
	}
	b = pf_buf_claim(tag, fault ? fault_hold : 0);
	if (!b) {
		/*
		 * PF_BUF_SLOTS long-path checks in flight on this CPU: the
		 * inode set alone decides, which cannot deny a file that is
		 * not listed (failing closed here let any user who can fill
		 * the CPU's buffers deny everyone's files: docs/lsm.md).
		 * Counted, and reported.
		 */
		pf_count(PF_STAT_NO_BUF);
		pf_report(NULL, hook, &id, why | PF_WHY_NO_BUF);
		deny = why && !audit;
	} else {
		len = bpf_d_path(&file->f_path, (char *)b->w, PF_PATH_MAX + 1);
		deny = pf_judge(b->w, len, PF_PATH_MAX, hook, &id, why);
		*(volatile __u64 *)&b->owner = 0;
	}
	if (fault)
		pf_buf_release(tag);
	return deny;
}

SEC("lsm.s/bprm_check_security")
int BPF_PROG(pf_exec, struct linux_binprm *bprm, int ret)
{
	if (ret)
		return ret;	/* already denied */
	return pf_verdict(pf_check(bprm->file, PF_HOOK_EXEC));
}

/*
 * With --exec: code of a listed file mapped without exec'ing it (the
 * dynamic loader run as a command, `ld.so /listed/binary`, or any
 * program's own mmap with PROT_EXEC).
 */
SEC("lsm.s/mmap_file")
int BPF_PROG(pf_mmap, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	if (ret)
		return ret;
	if (!file || !(prot & PF_PROT_EXEC))
		return 0;
	return pf_verdict(pf_check(file, PF_HOOK_MMAP));
}

/*
 * ...or mapped readable, then made executable.  file_mprotect is not a
 * sleepable hook on 6.1 (it runs under mmap_lock): no bpf_d_path(), so
 * only the inode set decides here (docs/lsm.md).
 */
SEC("lsm/file_mprotect")
int BPF_PROG(pf_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	struct file *file;
	struct pf_ino id;

	if (ret)
		return ret;
	if (!(prot & PF_PROT_EXEC))
		return 0;
	file = BPF_CORE_READ(vma, vm_file);
	if (!file || !pf_ino_listed(file, &id))
		return 0;
	pf_count(PF_STAT_HIT);
	pf_count(PF_STAT_BY_INODE);
	pf_report(NULL, PF_HOOK_MPROTECT, &id, PF_WHY_INODE);
	return pf_verdict(!audit);
}

SEC("lsm.s/file_open")
int BPF_PROG(pf_open, struct file *file, int ret)
{
	if (ret)
		return ret;
	return pf_verdict(pf_check(file, PF_HOOK_OPEN));
}

char LICENSE[] SEC("license") = "GPL";
