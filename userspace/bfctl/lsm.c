// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl lsm: the path filter (userspace/bpf/path_filter.bpf.c), a BPF LSM
 * program pair that denies exec and/or open of the paths listed in a
 * `str` filter.  attach loads it, fills its exact set (the SipHash-2-4-128
 * of each path under a fresh random key) and adds the paths to the filter,
 * then pins links and maps under /sys/fs/bpf/kbloom/lsm/ so that the
 * programs outlive bfctl; detach removes those pins and nothing else;
 * show reports them; log prints the ring buffer's reports as JSON lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sodium/crypto_shorthash_siphash24.h>
#include "kverbs.h"
#include "kbdev.h"
#include "lsm.h"
#include "lsm_content.h"
#include "path_filter.h"
#include "path_filter.skel.h"

/*
 * what attach pins (and detach removes): nothing else is touched.  The
 * links' names are content mode's too, in its own directory.
 */
const char *const bfctl_lsm_link_pins[4] = {
	"link_exec", "link_mmap", "link_mprotect", "link_open",
};

static const char *const lsm_map_pins[] = {
	"paths", "inodes", "list", "stats", "events", "config",
};

int bfctl_lsm_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "bfctl: lsm: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: bfctl lsm %s\n", LSM_USAGE);
	return BFCTL_USAGE;
}

void bfctl_lsm_pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", LSM_DIR, name);
}

bool bfctl_lsm_attached(void)
{
	char p[PATH_MAX];

	bfctl_lsm_pin_path(p, sizeof(p), "config");
	return !access(p, F_OK);
}

_Static_assert(PF_HOOK_EXEC == LSM_HOOK_EXEC && PF_HOOK_OPEN == LSM_HOOK_OPEN,
	       "--exec and --open are lsm.h's bits");

/* bpffs on /sys/fs/bpf (mounted if absent, as systemd would) */
int bfctl_lsm_bpffs(const char *what)
{
	struct statfs st;

	if (!statfs(LSM_BPFFS, &st) && st.f_type == BPF_FS_MAGIC_)
		return 0;
	if (mount("bpf", LSM_BPFFS, "bpf", 0, "mode=0700"))
		return bfctl_fail(BFCTL_ERR, what, "mount bpffs on %s: %s",
				  LSM_BPFFS, strerror(errno));
	return 0;
}

/*
 * Is the BPF LSM active?  CONFIG_BPF_LSM alone is not enough: "bpf" must
 * be in the kernel's LSM order (CONFIG_LSM or lsm= on its command line),
 * else the programs load and attach and deny nothing.
 */
static int lsm_check_bpf_lsm(void)
{
	char buf[512], *tok, *save;
	struct statfs st;
	FILE *f;
	size_t n;

	if (statfs(LSM_SECFS, &st) || st.f_type != 0x73636673 /* SECURITYFS */)
		mount("securityfs", LSM_SECFS, "securityfs", 0, NULL);
	f = fopen(LSM_SECFS "/lsm", "re");
	if (!f)
		return bfctl_fail(BFCTL_ERR, "lsm attach",
				  "cannot read %s/lsm: %s", LSM_SECFS,
				  strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "bpf"))
			return 0;
	return bfctl_fail(BFCTL_ERR, "lsm attach",
			  "the kernel's BPF LSM is not active (%s/lsm: \"%s\"): boot with \"bpf\" in lsm=",
			  LSM_SECFS, buf);
}

/* ---- attach ---- */

struct lsm_entry {
	char *path;
	struct pf_ino id;	/* 0, 0: the path does not exist */
};

struct lsm_list {
	struct lsm_entry *e;
	u64 n, cap, n_ino;
	bool quiet;
	char err[PATH_MAX + 64];
};

/*
 * One listed path, as the hooks will see it: bpf_d_path() gives the path
 * the file was reached by with every symlink resolved, so a listed
 * symlink (/bin/sh on a merged /usr) is replaced by its target, and a
 * path that does not exist (yet) by its deepest existing ancestor's real
 * path and the rest (bfctl_lsm_canon()).
 */
static int lsm_list_key(const u8 *k, u32 len, u64 line, void *arg)
{
	struct lsm_list *l = arg;
	char given[PF_PATH_MAX + 1], real[PATH_MAX];
	struct pf_ino id = { 0, 0, 0, 0, 0 };
	const char *p = real, *bad = NULL;
	struct stat st;
	int fd, ret;

	memcpy(given, k, len);
	given[len] = 0;
	if (given[0] != '/' || strlen(given) != len) {
		snprintf(l->err, sizeof(l->err),
			 "line %llu: '%s' is not an absolute path",
			 (unsigned long long)line, given);
		return -EINVAL;
	}
	if (bfctl_lsm_canon(given, real, &bad)) {
		snprintf(l->err, sizeof(l->err),
			 "line %llu: '%s' does not exist, and below its deepest existing directory it has %s: list the path as the kernel will write it",
			 (unsigned long long)line, given, bad);
		return -EINVAL;
	}
	if (strlen(real) > PF_PATH_MAX) {
		snprintf(l->err, sizeof(l->err),
			 "line %llu: the real path of '%s' is longer than %d bytes",
			 (unsigned long long)line, given, PF_PATH_MAX);
		return -EINVAL;
	}
	if (strcmp(real, given) && !l->quiet)
		fprintf(stderr, "bfctl: lsm attach: %s: listed as %s (its real path)\n",
			given, real);
	fd = open(p, O_PATH | O_CLOEXEC);
	ret = fd < 0 ? -errno : bfctl_lsm_file_id(fd, &id);
	/*
	 * a file other users can read, they can copy, and path mode does
	 * not deny a copy (docs/lsm.md, "The threat model")
	 */
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (st.st_mode & (S_IRGRP | S_IROTH)) && !l->quiet)
		fprintf(stderr, "bfctl: lsm attach: warning: %s: other users can read it, and so run a copy, which path mode does not deny\n",
			p);
	if (fd >= 0)
		close(fd);
	if (!ret)
		l->n_ino++;
	else if (!l->quiet)
		fprintf(stderr, "bfctl: lsm attach: warning: %s: %s: matched by this path only, not by its inode\n",
			given, ret == -EOPNOTSUPP ?
			"its filesystem's file handles give no inode generation (overlayfs, NFS, btrfs without BTF...)" :
			ret == -ESTALE ?
			"its filesystem's inode numbers may name another file later (vfat, exfat, squashfs, erofs, isofs)" :
			strerror(-ret));
	if (l->n == l->cap) {
		struct lsm_entry *ne;

		l->cap = l->cap ? 2 * l->cap : 64;
		ne = realloc(l->e, l->cap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		l->e = ne;
	}
	l->e[l->n].path = strdup(p);
	if (!l->e[l->n].path)
		return -ENOMEM;
	l->e[l->n].id = id;
	l->n++;
	return 0;
}

static void lsm_list_free(struct lsm_list *l)
{
	u64 i;

	for (i = 0; i < l->n; i++)
		free(l->e[i].path);
	free(l->e);
}

/* the same function as the program's, from libsodium (tested equal) */
static struct pf_hash lsm_hash(const char *path, const u8 key[16])
{
	unsigned char out[16];
	struct pf_hash h;

	crypto_shorthash_siphashx24(out, (const unsigned char *)path,
				    strlen(path), key);
	memcpy(&h.lo, out, 8);
	memcpy(&h.hi, out + 8, 8);
	h.lo = le64toh(h.lo);
	h.hi = le64toh(h.hi);
	return h;
}

/*
 * the listed paths to the kernel filter: cmd KB_IOC_ADD (as bfctl add
 * -file would) or KB_IOC_TEST (res: one bit per path); -errno
 */
int bfctl_lsm_filter_keys(struct kbconn *conn, unsigned long cmd,
			  const char *name, char *const *path, u64 n,
			  u64 *res)
{
	struct bfctl_batch b;
	const char *why = NULL;
	u64 i, done = 0, bad = ~0ULL;
	int ret = 0;

	if (bfctl_batch_init(&b, n, 64 * 1024))
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		if (bfctl_batch_push_text(&b, KB_KEY_STR, KBU_FMT_STR, path[i],
					  strlen(path[i]), i, &why))
			ret = -EILSEQ;
	if (!ret)
		ret = kbconn_keys(conn, cmd, name, b.buf, b.len, b.count, res,
				  &done, &bad);
	bfctl_batch_free(&b);
	return ret;
}

/* add the listed paths to the kernel filter, as bfctl add -file would */
static int lsm_fill_filter(struct kbconn *conn, const char *name,
			   const struct lsm_list *l)
{
	char **path = calloc(l->n, sizeof(*path));
	u64 i;
	int ret;

	if (!path)
		return bfctl_fail(BFCTL_ERR, "lsm attach", "%s", strerror(ENOMEM));
	for (i = 0; i < l->n; i++)
		path[i] = l->e[i].path;
	ret = bfctl_lsm_filter_keys(conn, KB_IOC_ADD, name, path, l->n, NULL);
	free(path);
	if (ret == -EILSEQ)
		return bfctl_fail(BFCTL_ERR, "lsm attach", "a path is not a valid str key");
	if (ret)
		return bfctl_fail_err(conn, bfctl_verb_name("lsm attach", name), ret);
	return 0;
}

/* the programs --exec and --open attach */
struct lsm_links {
	struct bpf_link *link[4];
};

/* dir is made by the caller (bfctl_lsm_make_dir()), which owns it */
int bfctl_lsm_pin_all(const char *dir, struct bpf_link *const *link,
		      struct bpf_map *const *maps, const char *const *names,
		      size_t n)
{
	char p[PATH_MAX];
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(bfctl_lsm_link_pins); i++) {
		if (!link[i])
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, bfctl_lsm_link_pins[i]);
		err = bpf_link__pin(link[i], p);
		if (err)
			return err;
	}
	/* config last: it is what says "attached" (bfctl_lsm_attached()) */
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		err = bpf_map__pin(maps[i], p);
		if (err)
			return err;
	}
	return 0;
}

static int lsm_pin_all(struct path_filter *skel, const struct lsm_links *ls)
{
	struct bpf_map *maps[] = {
		skel->maps.paths, skel->maps.inodes, skel->maps.list,
		skel->maps.stats, skel->maps.events, skel->maps.rodata,
	};

	_Static_assert(ARRAY_SIZE(maps) == ARRAY_SIZE(lsm_map_pins),
		       "a name for each map");
	return bfctl_lsm_pin_all(LSM_DIR, ls->link, maps, lsm_map_pins,
				 ARRAY_SIZE(maps));
}

/* 1 if dir/name was there and is gone */
static int lsm_unpin(const char *dir, const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !unlink(p);
}

int bfctl_lsm_unpin_all(const char *dir, const char *const *names, size_t n)
{
	int removed = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bfctl_lsm_link_pins); i++)
		removed += lsm_unpin(dir, bfctl_lsm_link_pins[i]);
	for (i = 0; i < n; i++)
		removed += lsm_unpin(dir, names[i]);
	rmdir(dir);
	return removed;
}

static int lsm_unpin_all(void)
{
	return bfctl_lsm_unpin_all(LSM_DIR, lsm_map_pins,
				   ARRAY_SIZE(lsm_map_pins));
}

int bfctl_lsm_make_dir(const char *dir, bool *made)
{
	*made = false;
	if (mkdir(LSM_BPFFS "/kbloom", 0700) && errno != EEXIST)
		return -errno;
	if (mkdir(dir, 0700))
		return -errno;
	*made = true;
	return 0;
}

/* --exec: the exec, mmap and mprotect programs; --open: the open one */
static u32 lsm_prog_hook(size_t i)
{
	return i < 3 ? LSM_HOOK_EXEC : LSM_HOOK_OPEN;
}

void bfctl_lsm_autoload(struct bpf_program *const *progs, u32 hooks)
{
	size_t i;

	for (i = 0; i < 4; i++)
		bpf_program__set_autoload(progs[i], hooks & lsm_prog_hook(i));
}

int bfctl_lsm_attach_progs(struct bpf_program *const *progs,
			   struct bpf_link **link, u32 hooks)
{
	size_t i;
	int err = 0;

	for (i = 0; i < 4 && !err; i++) {
		if (!(hooks & lsm_prog_hook(i)))
			continue;
		link[i] = bpf_program__attach_lsm(progs[i]);
		err = link[i] ? 0 : -errno;
	}
	return err;
}

/* the cookie of bfctl's netns (SO_NETNS_COOKIE, 5.14): never reused */
int bfctl_lsm_netns_cookie(u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		err = -errno;
	close(fd);
	return err;
}

/* the exact set, the inode set and the list, before any hook runs */
static int lsm_fill_maps(struct path_filter *skel, const struct lsm_list *l,
			 const u8 key[16])
{
	struct pf_listed *e;
	u8 one = 1;
	u32 i;
	int err = 0;

	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < l->n && !err; i++) {
		struct pf_hash h = lsm_hash(l->e[i].path, key);

		err = bpf_map__update_elem(skel->maps.paths, &h, sizeof(h),
					   &one, sizeof(one), BPF_ANY);
		if (!err && l->e[i].id.ino)
			err = bpf_map__update_elem(skel->maps.inodes,
						   &l->e[i].id,
						   sizeof(l->e[i].id), &one,
						   sizeof(one), BPF_ANY);
		if (err)
			break;
		memset(e, 0, sizeof(*e));
		e->dev = l->e[i].id.dev;
		e->ino = l->e[i].id.ino;
		strncpy(e->path, l->e[i].path, sizeof(e->path) - 1);
		err = bpf_map__update_elem(skel->maps.list, &i, sizeof(i), e,
					   sizeof(*e), BPF_ANY);
	}
	free(e);
	return err;
}

/*
 * Load, fill the exact set, add the paths to the filter, attach, pin; on
 * any failure before the add, nothing has changed.  The caller holds the
 * lock (bfctl_lsm_lock()) and has checked that nothing is attached.
 */
static int lsm_load(struct kbconn *conn, const char *name,
		    const struct lsm_list *l, u32 hooks, bool audit)
{
	struct lsm_links ls = { { NULL } };
	struct bpf_program *progs[4];
	struct path_filter *skel;
	const char *what = "lsm attach";
	const char *fault = getenv("KBLOOM_LSM_FAULT");
	struct stat st;
	bool made_dir = false;
	u8 key[16];
	u64 cookie;
	size_t i;
	int err;

	if (getrandom(key, sizeof(key), 0) != sizeof(key))
		return bfctl_fail(BFCTL_ERR, what, "getrandom: %s", strerror(errno));
	err = bfctl_lsm_netns_cookie(&cookie);
	if (err)
		return bfctl_fail(BFCTL_ERR, what, "the netns cookie (SO_NETNS_COOKIE): %s",
				  strerror(-err));
	skel = path_filter__open();
	if (!skel)
		return bfctl_fail(BFCTL_ERR, what, "open the BPF object: %s",
				  strerror(errno));
	progs[0] = skel->progs.pf_exec;
	progs[1] = skel->progs.pf_mmap;
	progs[2] = skel->progs.pf_mprotect;
	progs[3] = skel->progs.pf_open;
	kbdev_set_name((char *)skel->rodata->filter_name, name);
	memcpy(&skel->rodata->sip_key[0], key, 8);
	memcpy(&skel->rodata->sip_key[1], key + 8, 8);
	skel->rodata->sip_key[0] = le64toh(skel->rodata->sip_key[0]);
	skel->rodata->sip_key[1] = le64toh(skel->rodata->sip_key[1]);
	skel->rodata->netns_cookie = cookie;
	skel->rodata->hooks = hooks;
	skel->rodata->audit = audit;
	/*
	 * fault injection for the selftest (bfctl_lsm.sh): for PATH's inode
	 * the programs first claim path buffers of the CPU, as if other
	 * checks were in flight there: KBLOOM_LSM_FAULT=no_buffer:PATH all
	 * of them, last_buffer:PATH all but one
	 */
	if (fault && !strncmp(fault, "no_buffer:", 10) &&
	    !stat(fault + 10, &st)) {
		skel->rodata->fault_ino = st.st_ino;
		skel->rodata->fault_hold = PF_BUF_SLOTS;
	} else if (fault && !strncmp(fault, "last_buffer:", 12) &&
		   !stat(fault + 12, &st)) {
		skel->rodata->fault_ino = st.st_ino;
		skel->rodata->fault_hold = PF_BUF_SLOTS - 1;
	}
	bfctl_lsm_autoload(progs, hooks);
	bpf_map__set_max_entries(skel->maps.paths, l->n);
	bpf_map__set_max_entries(skel->maps.inodes, l->n_ino ? l->n_ino : 1);
	bpf_map__set_max_entries(skel->maps.list, l->n);
	err = path_filter__load(skel);
	if (err) {
		bfctl_fail(BFCTL_ERR, what,
			   "the kernel refused the program: %s (is kbloom.ko loaded with its BTF? bfctl version says)",
			   strerror(-err));
		goto out;
	}
	err = lsm_fill_maps(skel, l, key);
	memset(key, 0, sizeof(key));
	if (err) {
		bfctl_fail(BFCTL_ERR, what, "fill the maps: %s", strerror(-err));
		goto out;
	}
	err = lsm_fill_filter(conn, name, l);
	if (err)
		goto out;
	err = bfctl_lsm_attach_progs(progs, ls.link, hooks);
	if (err) {
		bfctl_fail(BFCTL_ERR, what, "attach: %s", strerror(-err));
		goto out;
	}
	err = bfctl_lsm_make_dir(LSM_DIR, &made_dir);
	if (!err)
		err = lsm_pin_all(skel, &ls);
	if (err) {
		bfctl_fail(BFCTL_ERR, what, "pin under %s: %s", LSM_DIR,
			   strerror(-err));
		/* only what this attach pinned, in the directory it made */
		if (made_dir)
			lsm_unpin_all();
	}
out:
	/* the pinned links hold the programs; ours go */
	for (i = 0; i < ARRAY_SIZE(ls.link); i++)
		bpf_link__destroy(ls.link[i]);
	path_filter__destroy(skel);
	return err ? BFCTL_ERR : BFCTL_OK;
}

/*
 * attach and detach, one at a time: two attaches would both find nothing
 * attached, and the loser's cleanup unpin the winner's programs; a detach
 * racing an attach would unpin half of them.  The lock is an flock on a
 * file of /run (a tmpfs: a stale lock cannot outlive a reboot, and the
 * kernel drops it when its holder dies).  Returns the fd, or -1 (said).
 */
int bfctl_lsm_lock(const char *what, const char *file)
{
	int fd;

	if (mkdir(LSM_LOCK_DIR, 0700) && errno != EEXIST)
		return bfctl_fail(BFCTL_ERR, what, "%s: %s", LSM_LOCK_DIR,
				  strerror(errno)), -1;
	fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return bfctl_fail(BFCTL_ERR, what, "%s: %s", file,
				  strerror(errno)), -1;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			bfctl_fail(BFCTL_ERR, what, "lock %s: %s", file,
				   strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

int bfctl_lsm_attach_args(int argc, char **argv, struct lsm_attach_args *a,
			  const char *nofile)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-file") || !strcmp(argv[i], "--file")) {
			if (++i == argc)
				return bfctl_lsm_usage("%s needs a file", argv[i - 1]);
			a->file = argv[i];
		} else if (!strcmp(argv[i], "--exec")) {
			a->hooks |= LSM_HOOK_EXEC;
		} else if (!strcmp(argv[i], "--open")) {
			a->hooks |= LSM_HOOK_OPEN;
		} else if (!strcmp(argv[i], "--audit")) {
			a->audit = true;
		} else if (!strcmp(argv[i], "--content")) {
			continue;	/* picked the mode (bfctl_lsm_main()) */
		} else if (!strcmp(argv[i], "-q")) {
			bfctl_quiet = true;
		} else if (argv[i][0] == '-' || a->name) {
			return bfctl_lsm_usage("unexpected argument '%s'", argv[i]);
		} else {
			a->name = argv[i];
		}
	}
	if (!a->name)
		return bfctl_lsm_usage("%s", "attach needs a filter NAME");
	if (!kb_name_valid(a->name, strlen(a->name)))
		return bfctl_lsm_usage("bad filter name '%s'", a->name);
	if (!a->file)
		return bfctl_lsm_usage("%s", nofile);
	if (!a->hooks)
		a->hooks = LSM_HOOK_EXEC;
	return 0;
}

int bfctl_lsm_filter_check(struct kbconn *conn, const char *name,
			   u32 key_type, const char *needs)
{
	struct kb_ioc_info info;
	int ret;

	ret = kbconn_info(conn, name, &info);
	if (ret)
		return bfctl_fail_err(conn, bfctl_verb_name("lsm attach", name),
				      ret);
	if (info.key_type != key_type)
		return bfctl_fail(BFCTL_ERR, bfctl_verb_name("lsm attach", name),
				  "the filter's key type is %s: %s",
				  kb_key_type_name(info.key_type), needs);
	return BFCTL_OK;
}

static int lsm_attach(int argc, char **argv)
{
	struct lsm_list l = { 0 };
	struct lsm_attach_args a;
	struct kbconn conn;
	char err[KBU_QUOTE_SIZE + 64];
	u64 errline;
	int ret, lock = -1;

	if (bfctl_lsm_attach_args(argc, argv, &a,
				  "attach needs -file PATHS (the paths to deny)"))
		return BFCTL_USAGE;
	l.quiet = bfctl_quiet;
	ret = lsm_check_bpf_lsm();
	if (ret)
		return ret;
	kbconn_init(&conn);
	ret = bfctl_lsm_filter_check(&conn, a.name, KB_KEY_STR,
				     "the path filter needs a str filter");
	if (ret)
		goto out;
	ret = kbu_keyfile_read(a.file, KB_KEY_STR, KBU_FMT_STR, lsm_list_key, &l,
			       err, sizeof(err), &errline);
	if (ret) {
		char msg[PATH_MAX + sizeof(err)];

		kbu_keyfile_msg(msg, sizeof(msg), a.file, ret, err, errline);
		if (l.err[0])
			ret = bfctl_fail(BFCTL_ERR, "lsm attach", "%s: %s",
					 a.file, l.err);
		else
			ret = bfctl_fail(BFCTL_ERR, "lsm attach", "%s", msg);
		goto out;
	}
	if (!l.n) {
		ret = bfctl_fail(BFCTL_ERR, "lsm attach",
				 "%s lists no path: refusing to attach a filter that denies nothing",
				 a.file);
		goto out;
	}
	ret = bfctl_lsm_bpffs("lsm");
	if (ret)
		goto out;
	lock = bfctl_lsm_lock("lsm attach", LSM_LOCK);
	if (lock < 0) {
		ret = BFCTL_ERR;
		goto out;
	}
	if (bfctl_lsm_attached() || !access(LSM_DIR, F_OK)) {
		ret = bfctl_fail(BFCTL_ERR, "lsm attach",
				 "%s exists: already attached (bfctl lsm detach first)",
				 LSM_DIR);
		goto out;
	}
	ret = lsm_load(&conn, a.name, &l, a.hooks, a.audit);
out:
	if (lock >= 0)
		close(lock);
	lsm_list_free(&l);
	kbconn_close(&conn);
	return ret;
}

/* ---- detach, show ---- */

/* -q, which every verb takes: nothing else */
static int lsm_no_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			bfctl_quiet = true;
		else
			return bfctl_lsm_usage("unexpected argument '%s'", argv[i]);
	}
	return 0;
}

u32 bfctl_lsm_link_prog(const char *dir, const char *pin)
{
	struct bpf_link_info li;
	u32 len = sizeof(li);
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, pin);
	fd = bpf_obj_get(p);
	if (fd < 0)
		return 0;
	memset(&li, 0, sizeof(li));
	if (bpf_obj_get_info_by_fd(fd, &li, &len))
		li.prog_id = 0;
	close(fd);
	return li.prog_id;
}

/*
 * The kernel frees a link whose last pin is gone from a work item, later:
 * wait until its program is gone, so that when detach returns, exec and
 * open are no longer filtered.
 */
bool bfctl_lsm_wait_prog_gone(u32 id)
{
	int i, fd;

	for (i = 0; id && i < 3000; i++) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			return true;
		close(fd);
		usleep(10000);
	}
	return !id;
}

static int lsm_detach(int argc, char **argv)
{
	u32 id[ARRAY_SIZE(bfctl_lsm_link_pins)];
	int lock, ret = BFCTL_OK;
	size_t i;

	if (lsm_no_args(argc, argv))
		return BFCTL_USAGE;
	/*
	 * no pin directory: nothing to wait for (as if this detach ran
	 * before any attach in progress), and no lock file made for it
	 */
	if (access(LSM_DIR, F_OK))
		return bfctl_fail(BFCTL_ABSENT, "lsm detach", "not attached");
	lock = bfctl_lsm_lock("lsm detach", LSM_LOCK);
	if (lock < 0)
		return BFCTL_ERR;
	for (i = 0; i < ARRAY_SIZE(id); i++)
		id[i] = bfctl_lsm_link_prog(LSM_DIR, bfctl_lsm_link_pins[i]);
	if (!lsm_unpin_all()) {
		ret = bfctl_fail(BFCTL_ABSENT, "lsm detach", "not attached");
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(id); i++)
		if (!bfctl_lsm_wait_prog_gone(id[i]))
			ret = BFCTL_ERR;
	if (ret)
		bfctl_fail(BFCTL_ERR, "lsm detach",
			   "unpinned, but a program is still loaded after 30 s (held by another process?)");
out:
	close(lock);
	return ret;
}

int bfctl_lsm_main(int argc, char **argv)
{
	if (argc < 2)
		return bfctl_lsm_usage("%s", "which: attach, detach, show or log?");
	if (!strcmp(argv[1], "attach"))
		return bfctl_lsm_content_wanted(argc - 1, argv + 1) ?
		       bfctl_lsm_content_attach(argc - 1, argv + 1) :
		       lsm_attach(argc - 1, argv + 1);
	/* both modes, or the one --path or --content picks (lsm_content.c) */
	if (!strcmp(argv[1], "detach"))
		return bfctl_lsm_detach_modes(argc - 1, argv + 1, lsm_detach);
	if (!strcmp(argv[1], "show"))
		return bfctl_lsm_show_modes(argc - 1, argv + 1, bfctl_lsm_show);
	if (!strcmp(argv[1], "log"))
		return bfctl_lsm_log(argc - 1, argv + 1);
	return bfctl_lsm_usage("unknown lsm command '%s'", argv[1]);
}
