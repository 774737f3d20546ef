// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl lsm attach: a listed file's identity as the path filter's
 * programs see it, (inode->i_sb->s_dev, i_ino, the btrfs subvolume,
 * i_generation), for the inode set that denies the file under its other
 * names (docs/lsm.md, "Other names of a listed file").  A file whose filesystem cannot give
 * an identity that names it alone is matched by its path only: an inode
 * match must never deny an innocent file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "lsm.h"
#include "path_filter.h"

/* the file handle types lsm_inode_gen() reads (<linux/exportfs.h>) */
#define LSM_FILEID_INO32_GEN		1
#define LSM_FILEID_XFS_INO64_GEN	0x81	/* | XFS_FILEID_TYPE_64FLAG */
#define LSM_FILEID_BTRFS		0x4d	/* FILEID_BTRFS_WITHOUT_PARENT */
/* where the programs find btrfs's inode layout (pf_subvol()) */
#define LSM_BTRFS_BTF			"/sys/kernel/btf/btrfs"

/*
 * The kernel's dev_t of the filesystem holding fd's file, as the programs
 * read it (inode->i_sb->s_dev: major << 20 | minor).  Not stat()'s
 * st_dev: glibc encodes it differently (makedev()), and a filesystem's
 * getattr may report another device than its superblock's (btrfs
 * subvolumes).  /proc/self/mountinfo prints each mount's s_dev; statx()
 * names the mount.  0 if it cannot be found.
 */
static u64 lsm_sb_dev(int fd)
{
	unsigned int id, parent, maj, min;
	char *line = NULL;
	size_t cap = 0;
	struct statx stx;
	u64 dev = 0;
	FILE *f;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	/*
	 * whole lines (getline): a line longer than a fixed buffer (a mount
	 * point or source a user chose, e.g. FUSE) would be split, and its
	 * tail parsed as a line of its own, with a mount id and a device
	 * the user wrote
	 */
	while (getline(&line, &cap, f) > 0)
		if (sscanf(line, "%u %u %u:%u", &id, &parent, &maj, &min) == 4 &&
		    id == stx.stx_mnt_id) {
			dev = ((u64)maj << 20) | min;
			break;
		}
	free(line);
	fclose(f);
	return dev;
}

/*
 * The generation of fd's inode (inode->i_generation), and on btrfs its
 * subvolume, read from its file handle.  Only a handle whose layout is
 * known and names st_ino gives them: the generic {ino32, gen} (ext2/3/4,
 * f2fs...), XFS's {ino64, gen}, tmpfs's {gen, ino64} and btrfs's
 * {ino64, root64, gen} (its subvolumes give files of one superblock the
 * same inode numbers: the root tells them apart, if the programs can
 * read it, i.e. the btrfs module has BTF).  Any other is -EOPNOTSUPP:
 * overlayfs, NFS...; the file is then matched by its path only.
 */
static int lsm_inode_gen(int fd, const struct stat *st, long fs_type,
			 struct pf_ino *id)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	u64 ino = st->st_ino;
	u32 w[5] = { 0, 0, 0, 0, 0 };
	int mnt;

	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &h.fh, &mnt, AT_EMPTY_PATH))
		return errno == EOVERFLOW || errno == ENOTSUP ? -EOPNOTSUPP :
		       -errno;
	memcpy(w, h.fh.f_handle, h.fh.handle_bytes < sizeof(w) ?
	       h.fh.handle_bytes : sizeof(w));
	if (h.fh.handle_type == LSM_FILEID_INO32_GEN &&
	    h.fh.handle_bytes == 8 && w[0] == ino) {
		id->gen = w[1];
		return 0;
	}
	if (h.fh.handle_type == LSM_FILEID_INO32_GEN &&
	    h.fh.handle_bytes == 12 && fs_type == TMPFS_MAGIC &&
	    (w[1] | (u64)w[2] << 32) == ino) {
		id->gen = w[0];
		return 0;
	}
	if (h.fh.handle_type == LSM_FILEID_XFS_INO64_GEN &&
	    h.fh.handle_bytes == 12 && fs_type == XFS_SUPER_MAGIC &&
	    (w[0] | (u64)w[1] << 32) == ino) {
		id->gen = w[2];
		return 0;
	}
	if (h.fh.handle_type == LSM_FILEID_BTRFS &&
	    h.fh.handle_bytes == 20 && fs_type == PF_BTRFS_MAGIC &&
	    (w[0] | (u64)w[1] << 32) == ino &&
	    !access(LSM_BTRFS_BTF, R_OK)) {
		id->sub = w[2] | (u64)w[3] << 32;
		id->gen = w[4];
		return 0;
	}
	return -EOPNOTSUPP;
}

/*
 * A listed file as the programs identify it, from an O_PATH descriptor
 * (one lookup for stat, handle and mount; no open hook runs, so a FIFO
 * does not block and the filter attached before does not deny it).
 * -ESTALE: a filesystem whose (dev, ino, gen) may later name another
 * file, where an inode match could deny an innocent one: vfat and exfat
 * number inodes anew each time they are read in, squashfs, erofs and
 * isofs have no generation and their loop device may hold another image
 * tomorrow.
 */
int bfctl_lsm_file_id(int fd, struct pf_ino *id)
{
	struct statfs sf;
	struct stat st;
	int ret;

	if (fstat(fd, &st) || fstatfs(fd, &sf))
		return -errno;
	switch (sf.f_type) {
	case MSDOS_SUPER_MAGIC:
	case EXFAT_SUPER_MAGIC:
	case SQUASHFS_MAGIC:
	case EROFS_SUPER_MAGIC_V1:
	case ISOFS_SUPER_MAGIC:
		return -ESTALE;
	}
	ret = lsm_inode_gen(fd, &st, (long)sf.f_type, id);
	if (ret)
		return ret;
	id->ino = st.st_ino;
	id->dev = lsm_sb_dev(fd);
	if (!id->dev)
		id->dev = ((u64)major(st.st_dev) << 20) | minor(st.st_dev);
	return 0;
}

/*
 * The path the hooks will see for the listed path given (absolute, at
 * most PF_PATH_MAX bytes), into out (PATH_MAX bytes): bpf_d_path() writes
 * a file's path with every symlink resolved, so an existing path is its
 * realpath().  A path that does not exist yet is the realpath() of its
 * deepest existing ancestor and then the rest as given (on a merged /usr,
 * /bin/tool becomes /usr/bin/tool), whose ".", ".." and empty ("//")
 * components nothing could resolve: refused, naming it in bad.  0 or
 * -EINVAL.
 */
int bfctl_lsm_canon(const char *given, char *out, const char **bad)
{
	char pre[PATH_MAX], real[PATH_MAX], *slash;
	const char *rest, *c, *e;
	size_t n;

	if (realpath(given, out))
		return 0;
	snprintf(pre, sizeof(pre), "%s", given);
	/* pre starts with '/': there is always a slash, and "/" resolves */
	do {
		slash = strrchr(pre, '/');
		*slash = 0;
	} while (!realpath(pre[0] ? pre : "/", real));
	rest = given + (slash - pre) + 1;
	for (c = rest;; c = e + 1) {
		e = strchrnul(c, '/');
		n = e - c;
		if (!n || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.')) {
			*bad = !n ? "an empty component (//, or a trailing /)" :
			       n == 1 ? "a '.' component" : "a '..' component";
			return -EINVAL;
		}
		if (!*e)
			break;
	}
	if (snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "",
		     rest) >= PATH_MAX) {
		*bad = "a real path longer than PATH_MAX";
		return -EINVAL;
	}
	return 0;
}
