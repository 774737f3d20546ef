// SPDX-License-Identifier: GPL-2.0
/*
 * The path filter's content mode: sleepable BPF LSM programs that deny
 * exec (bprm_check_security), executable mappings (mmap_file with
 * PROT_EXEC) and, with --open, open (file_post_open) of any file whose contents
 * hash to a listed SHA-256, whatever its name: a copy, a renamed or moved
 * file, a memfd.  Loaded, configured and pinned by `bfctl lsm attach NAME
 * --content` (userspace/bfctl/lsm_content.c).
 *
 * The digest comes from IMA (bpf_ima_file_hash(), 5.18): IMA's cached
 * measurement when a policy had it collect one for this version of the
 * inode, else a hash of the whole file, computed for this check.  The
 * digest is a key of the kbloom `bytes` filter NAME; as in path mode the
 * filter only screens, and a "maybe" is confirmed against the exact set
 * (a hash map of the listed digests) before anything is denied, so a
 * false positive of the filter never denies.  In another netns (where
 * NAME may be another filter, or none) and when the filter errors, the
 * exact set alone decides.
 *
 * file_mprotect is not a sleepable hook, so it cannot hash: it denies
 * adding PROT_EXEC to a mapping of a file that a sleepable check of this
 * attachment already found listed (the seen set); docs/lsm.md says what
 * that leaves out.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kbloom.bpf.h"
#include "content_filter.h"

#define EPERM		1
#define CF_PROT_EXEC	0x4		/* PROT_EXEC */
#define CF_FMODE_EXEC	0x20		/* __FMODE_EXEC in f_flags: exec's open */
#define CF_S_IFMT	00170000
#define CF_S_IFREG	0100000

/* set by the loader before load; read-only to the programs */
const volatile char filter_name[CF_NAME_MAX];
const volatile __u64 netns_cookie;	/* the attaching netns: net_cookie */
const volatile __u32 hooks;		/* CF_HOOK_*, for bfctl lsm show */
const volatile __u32 audit;		/* count, deny nothing */

/* the exact set: the listed digests; the loader sizes it to the list */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct cf_digest);
	__type(value, __u8);
} digests SEC(".maps");

/* files found listed by a sleepable check, for file_mprotect */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CF_SEEN_MAX);
	__type(key, struct cf_ino);
	__type(value, __u8);
} seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CF_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* atomic, though per CPU: a sleepable check may be preempted mid-add */
static __always_inline void cf_count(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &i);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* -EPERM if deny, else 0, in a form 6.12's return check accepts */
static __always_inline int cf_verdict(int deny)
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
 * Filesystems whose files are not contents anyone can copy, and whose
 * reads may have side effects or report a size they do not hold: IMA's
 * own default policies leave them out too.
 */
static __always_inline bool cf_pseudo_fs(unsigned long magic)
{
	switch (magic) {
	case 0x9fa0:		/* PROC_SUPER_MAGIC */
	case 0x62656572:	/* SYSFS_MAGIC */
	case 0x64626720:	/* DEBUGFS_MAGIC */
	case 0x74726163:	/* TRACEFS_MAGIC */
	case 0x73636673:	/* SECURITYFS_MAGIC */
	case 0xcafe4a11:	/* BPF_FS_MAGIC */
	case 0x27e0eb:		/* CGROUP_SUPER_MAGIC */
	case 0x63677270:	/* CGROUP2_SUPER_MAGIC */
	case 0x62656570:	/* CONFIGFS_MAGIC */
	case 0xde5e81e4:	/* EFIVARFS_MAGIC */
	case 0x6165676c:	/* PSTOREFS_MAGIC */
	case 0xf97cff8c:	/* SELINUX_MAGIC */
	case 0x43415d53:	/* SMACK_MAGIC */
		return true;
	}
	return false;
}

static __always_inline void cf_ino_of(struct inode *inode, struct cf_ino *id)
{
	id->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	id->ino = BPF_CORE_READ(inode, i_ino);
	id->gen = BPF_CORE_READ(inode, i_generation);
	id->pad = 0;
}

/* nonzero: deny */
static __always_inline int cf_check(struct file *file)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	char name[CF_NAME_MAX];
	struct cf_digest d;
	struct cf_ino id;
	bool maybe = false;
	__u8 one = 1;
	long r;
	int i;

	/* exec and mmap need a regular file; others have no contents */
	if ((BPF_CORE_READ(inode, i_mode) & CF_S_IFMT) != CF_S_IFREG)
		return 0;
	if (cf_pseudo_fs(BPF_CORE_READ(inode, i_sb, s_magic)))
		return 0;
	r = bpf_ima_file_hash(file, &d, sizeof(d));
	if (r != HASH_ALGO_SHA256) {
		/*
		 * No digest (O_DIRECT, a read error) or one of another
		 * algorithm (an IMA policy's): the list cannot be judged,
		 * and allowing would let a task that can provoke it run a
		 * listed file.  Fail closed, as path mode without a buffer.
		 */
		cf_count(CF_STAT_NO_HASH);
		return !audit;
	}
	cf_count(CF_STAT_CHECKED);

	if (BPF_CORE_READ(task, nsproxy, net_ns, net_cookie) != netns_cookie) {
		cf_count(CF_STAT_FOREIGN);
	} else {
		/* volatile reads of rodata into the stack (path_filter.bpf.c) */
		for (i = 0; i < CF_NAME_MAX; i++)
			name[i] = filter_name[i];
		r = bpf_kbloom_test(name, sizeof(name), d.b, sizeof(d.b));
		if (!r)
			return 0;	/* absent: the common case */
		if (r == 1) {
			maybe = true;
			cf_count(CF_STAT_MAYBE);
		} else {
			cf_count(CF_STAT_NO_FILTER);
		}
	}
	if (!bpf_map_lookup_elem(&digests, &d)) {
		if (maybe)
			cf_count(CF_STAT_FALSE_POS);
		return 0;
	}
	cf_count(CF_STAT_HIT);
	cf_ino_of(inode, &id);
	bpf_map_update_elem(&seen, &id, &one, BPF_ANY);
	return !audit;
}

SEC("lsm.s/bprm_check_security")
int BPF_PROG(cf_exec, struct linux_binprm *bprm, int ret)
{
	if (ret)
		return ret;	/* already denied */
	return cf_verdict(cf_check(bprm->file));
}

/* with --exec: code mapped without exec (ld.so /copy, a loader's mmap) */
SEC("lsm.s/mmap_file")
int BPF_PROG(cf_mmap, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	if (ret)
		return ret;
	if (!file || !(prot & CF_PROT_EXEC))
		return 0;
	return cf_verdict(cf_check(file));
}

/* ...or mapped readable, then made executable: the seen set only */
SEC("lsm/file_mprotect")
int BPF_PROG(cf_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	struct file *file;
	struct cf_ino id;

	if (ret)
		return ret;
	if (!(prot & CF_PROT_EXEC))
		return 0;
	file = BPF_CORE_READ(vma, vm_file);
	if (!file)
		return 0;
	cf_ino_of(BPF_CORE_READ(file, f_inode), &id);
	if (!bpf_map_lookup_elem(&seen, &id))
		return 0;
	cf_count(CF_STAT_HIT);
	cf_count(CF_STAT_MPROTECT);
	return cf_verdict(!audit);
}

/*
 * With --open: file_post_open (6.9), after the filesystem's own ->open:
 * at file_open the file cannot be read yet on overlayfs, 9p, FUSE or NFS
 * (their read needs what ->open sets up), so IMA could not hash it there.
 */
SEC("lsm.s/file_post_open")
int BPF_PROG(cf_open, struct file *file, int mask, int ret)
{
	if (ret)
		return ret;
	/*
	 * exec's own open (and uselib's): bprm_check_security (mmap_file)
	 * judges that file next; open(2) cannot set this flag
	 */
	if (BPF_CORE_READ(file, f_flags) & CF_FMODE_EXEC)
		return 0;
	return cf_verdict(cf_check(file));
}

char LICENSE[] SEC("license") = "GPL";
