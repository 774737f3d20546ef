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
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sodium/crypto_shorthash_siphash24.h>
#include "kverbs.h"
#include "kbdev.h"
#include "path_filter.h"
#include "path_filter.skel.h"

#define LSM_BPFFS	"/sys/fs/bpf"
#define LSM_DIR		LSM_BPFFS "/kbloom/lsm"
#define LSM_SECFS	"/sys/kernel/security"
#define BPF_FS_MAGIC_	0xcafe4a11

#define LSM_USAGE "attach NAME -file PATHS [--exec] [--open] [--audit] | detach | show | log [--once]"

/* what attach pins (and detach removes): nothing else is touched */
static const char *const lsm_pins[] = {
	"link_exec", "link_open", "paths", "stats", "events", "config",
};

static int lsm_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "bfctl: lsm: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: bfctl lsm %s\n", LSM_USAGE);
	return BFCTL_USAGE;
}

static void lsm_pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", LSM_DIR, name);
}

static bool lsm_attached(void)
{
	char p[PATH_MAX];

	lsm_pin_path(p, sizeof(p), "config");
	return !access(p, F_OK);
}

/* bpffs on /sys/fs/bpf (mounted if absent, as systemd would) */
static int lsm_bpffs(void)
{
	struct statfs st;

	if (!statfs(LSM_BPFFS, &st) && st.f_type == BPF_FS_MAGIC_)
		return 0;
	if (mount("bpf", LSM_BPFFS, "bpf", 0, "mode=0700"))
		return bfctl_fail(BFCTL_ERR, "lsm", "mount bpffs on %s: %s",
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

struct lsm_list {
	char **path;
	u64 n, cap;
	bool quiet;
	char err[PATH_MAX + 64];
};

/*
 * One listed path, as the hooks will see it: bpf_d_path() gives the path
 * the file was reached by with every symlink resolved, so a listed
 * symlink (/bin/sh on a merged /usr) is replaced by its target; a path
 * that does not exist (yet) is kept as written.
 */
static int lsm_list_key(const u8 *k, u32 len, u64 line, void *arg)
{
	struct lsm_list *l = arg;
	char given[PF_PATH_MAX + 1], real[PATH_MAX], *p;

	memcpy(given, k, len);
	given[len] = 0;
	if (given[0] != '/' || strlen(given) != len) {
		snprintf(l->err, sizeof(l->err),
			 "line %llu: '%s' is not an absolute path",
			 (unsigned long long)line, given);
		return -EINVAL;
	}
	p = given;
	if (realpath(given, real)) {
		if (strlen(real) > PF_PATH_MAX) {
			snprintf(l->err, sizeof(l->err),
				 "line %llu: the real path of '%s' is longer than %d bytes",
				 (unsigned long long)line, given, PF_PATH_MAX);
			return -EINVAL;
		}
		if (strcmp(real, given) && !l->quiet)
			fprintf(stderr, "bfctl: lsm attach: %s: listed as %s (its real path)\n",
				given, real);
		p = real;
	}
	if (l->n == l->cap) {
		char **np;

		l->cap = l->cap ? 2 * l->cap : 64;
		np = realloc(l->path, l->cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		l->path = np;
	}
	l->path[l->n] = strdup(p);
	if (!l->path[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static void lsm_list_free(struct lsm_list *l)
{
	u64 i;

	for (i = 0; i < l->n; i++)
		free(l->path[i]);
	free(l->path);
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

/* add the listed paths to the kernel filter, as bfctl add -file would */
static int lsm_fill_filter(struct kbconn *conn, const char *name,
			   const struct lsm_list *l)
{
	struct bfctl_batch b;
	const char *why = NULL;
	u64 i, done = 0, bad = ~0ULL;
	int ret = 0;

	if (bfctl_batch_init(&b, l->n, 64 * 1024))
		return bfctl_fail(BFCTL_ERR, "lsm attach", "%s", strerror(ENOMEM));
	for (i = 0; i < l->n && !ret; i++)
		if (bfctl_batch_push_text(&b, KB_KEY_STR, KBU_FMT_STR,
					  l->path[i], strlen(l->path[i]), i,
					  &why))
			ret = bfctl_fail(BFCTL_ERR, "lsm attach", "%s: %s",
					 l->path[i], why ? why : "bad key");
	if (!ret) {
		ret = kbconn_keys(conn, KB_IOC_ADD, name, b.buf, b.len,
				  b.count, NULL, &done, &bad);
		if (ret)
			ret = bfctl_fail_err(conn, bfctl_verb_name("lsm attach", name), ret);
	}
	bfctl_batch_free(&b);
	return ret;
}

static int lsm_pin_all(struct path_filter *skel, struct bpf_link *le,
		       struct bpf_link *lo)
{
	struct { const char *name; struct bpf_map *map; } maps[] = {
		{ "paths", skel->maps.paths }, { "stats", skel->maps.stats },
		{ "events", skel->maps.events }, { "config", skel->maps.rodata },
	};
	char p[PATH_MAX];
	size_t i;
	int err;

	if (mkdir(LSM_BPFFS "/kbloom", 0700) && errno != EEXIST)
		return -errno;
	if (mkdir(LSM_DIR, 0700))
		return -errno;
	if (le) {
		lsm_pin_path(p, sizeof(p), "link_exec");
		err = bpf_link__pin(le, p);
		if (err)
			return err;
	}
	if (lo) {
		lsm_pin_path(p, sizeof(p), "link_open");
		err = bpf_link__pin(lo, p);
		if (err)
			return err;
	}
	/* config last: it is what says "attached" (lsm_attached()) */
	for (i = 0; i < ARRAY_SIZE(maps); i++) {
		lsm_pin_path(p, sizeof(p), maps[i].name);
		err = bpf_map__pin(maps[i].map, p);
		if (err)
			return err;
	}
	return 0;
}

/* remove attach's pins (and its directory if that leaves it empty) */
static int lsm_unpin_all(void)
{
	char p[PATH_MAX];
	int removed = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lsm_pins); i++) {
		lsm_pin_path(p, sizeof(p), lsm_pins[i]);
		if (!unlink(p))
			removed++;
	}
	rmdir(LSM_DIR);
	return removed;
}

/*
 * Load, fill the exact set, add the paths to the filter, attach, pin; on
 * any failure before the add, nothing has changed.
 */
static int lsm_load(struct kbconn *conn, const char *name,
		    const struct lsm_list *l, u32 hooks, bool audit)
{
	struct bpf_link *le = NULL, *lo = NULL;
	struct path_filter *skel;
	const char *what = "lsm attach";
	u8 key[16];
	struct stat st;
	u64 i;
	int err;

	if (getrandom(key, sizeof(key), 0) != sizeof(key))
		return bfctl_fail(BFCTL_ERR, what, "getrandom: %s", strerror(errno));
	if (stat("/proc/self/ns/net", &st))
		return bfctl_fail(BFCTL_ERR, what, "/proc/self/ns/net: %s",
				  strerror(errno));
	skel = path_filter__open();
	if (!skel)
		return bfctl_fail(BFCTL_ERR, what, "open the BPF object: %s",
				  strerror(errno));
	kbdev_set_name((char *)skel->rodata->filter_name, name);
	memcpy(&skel->rodata->sip_key[0], key, 8);
	memcpy(&skel->rodata->sip_key[1], key + 8, 8);
	skel->rodata->sip_key[0] = le64toh(skel->rodata->sip_key[0]);
	skel->rodata->sip_key[1] = le64toh(skel->rodata->sip_key[1]);
	skel->rodata->netns_ino = st.st_ino;
	skel->rodata->hooks = hooks;
	skel->rodata->audit = audit;
	bpf_program__set_autoload(skel->progs.pf_exec, hooks & PF_HOOK_EXEC);
	bpf_program__set_autoload(skel->progs.pf_open, hooks & PF_HOOK_OPEN);
	bpf_map__set_max_entries(skel->maps.paths, l->n);
	err = path_filter__load(skel);
	if (err) {
		bfctl_fail(BFCTL_ERR, what,
			   "the kernel refused the program: %s (is kbloom.ko loaded with its BTF? bfctl version says)",
			   strerror(-err));
		goto out;
	}
	/* the exact set before any hook runs: no window without it */
	for (i = 0; i < l->n; i++) {
		struct pf_hash h = lsm_hash(l->path[i], key);
		u8 one = 1;

		err = bpf_map__update_elem(skel->maps.paths, &h, sizeof(h),
					   &one, sizeof(one), BPF_ANY);
		if (err) {
			bfctl_fail(BFCTL_ERR, what, "fill the exact set: %s",
				   strerror(-err));
			goto out;
		}
	}
	memset(key, 0, sizeof(key));
	err = lsm_fill_filter(conn, name, l);
	if (err)
		goto out;
	if (hooks & PF_HOOK_EXEC) {
		le = bpf_program__attach_lsm(skel->progs.pf_exec);
		err = le ? 0 : -errno;
	}
	if (!err && (hooks & PF_HOOK_OPEN)) {
		lo = bpf_program__attach_lsm(skel->progs.pf_open);
		err = lo ? 0 : -errno;
	}
	if (err) {
		bfctl_fail(BFCTL_ERR, what, "attach: %s", strerror(-err));
		goto out;
	}
	err = lsm_pin_all(skel, le, lo);
	if (err) {
		bfctl_fail(BFCTL_ERR, what, "pin under %s: %s", LSM_DIR,
			   strerror(-err));
		lsm_unpin_all();
	}
out:
	/* the pinned links hold the programs; ours go */
	bpf_link__destroy(le);
	bpf_link__destroy(lo);
	path_filter__destroy(skel);
	return err ? BFCTL_ERR : BFCTL_OK;
}

static int lsm_attach(int argc, char **argv)
{
	struct lsm_list l = { .quiet = bfctl_quiet };
	const char *name = NULL, *file = NULL;
	struct kb_ioc_info info;
	struct kbconn conn;
	u32 hooks = 0;
	bool audit = false;
	char err[256];
	u64 errline;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-file") || !strcmp(argv[i], "--file")) {
			if (++i == argc)
				return lsm_usage("%s needs a file", argv[i - 1]);
			file = argv[i];
		} else if (!strcmp(argv[i], "--exec")) {
			hooks |= PF_HOOK_EXEC;
		} else if (!strcmp(argv[i], "--open")) {
			hooks |= PF_HOOK_OPEN;
		} else if (!strcmp(argv[i], "--audit")) {
			audit = true;
		} else if (!strcmp(argv[i], "-q")) {
			bfctl_quiet = l.quiet = true;
		} else if (argv[i][0] == '-' || name) {
			return lsm_usage("unexpected argument '%s'", argv[i]);
		} else {
			name = argv[i];
		}
	}
	if (!name)
		return lsm_usage("%s", "attach needs a filter NAME");
	if (!kb_name_valid(name, strlen(name)))
		return lsm_usage("bad filter name '%s'", name);
	if (!file)
		return lsm_usage("%s", "attach needs -file PATHS (the paths to deny)");
	if (!hooks)
		hooks = PF_HOOK_EXEC;
	ret = lsm_check_bpf_lsm();
	if (ret)
		return ret;
	kbconn_init(&conn);
	ret = kbconn_info(&conn, name, &info);
	if (ret) {
		ret = bfctl_fail_err(&conn, bfctl_verb_name("lsm attach", name), ret);
		goto out;
	}
	if (info.key_type != KB_KEY_STR) {
		ret = bfctl_fail(BFCTL_ERR, bfctl_verb_name("lsm attach", name),
				 "the filter's key type is %s: the path filter needs a str filter",
				 kb_key_type_name(info.key_type));
		goto out;
	}
	ret = kbu_keyfile_read(file, KB_KEY_STR, KBU_FMT_STR, lsm_list_key, &l,
			       err, sizeof(err), &errline);
	if (ret) {
		ret = bfctl_fail(BFCTL_ERR, "lsm attach", "%s: %s", file,
				 l.err[0] ? l.err : err);
		goto out;
	}
	if (!l.n) {
		ret = bfctl_fail(BFCTL_ERR, "lsm attach",
				 "%s lists no path: refusing to attach a filter that denies nothing",
				 file);
		goto out;
	}
	ret = lsm_bpffs();
	if (ret)
		goto out;
	if (lsm_attached() || !access(LSM_DIR, F_OK)) {
		ret = bfctl_fail(BFCTL_ERR, "lsm attach",
				 "%s exists: already attached (bfctl lsm detach first)",
				 LSM_DIR);
		goto out;
	}
	ret = lsm_load(&conn, name, &l, hooks, audit);
out:
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
			return lsm_usage("unexpected argument '%s'", argv[i]);
	}
	return 0;
}

/* the id of the program behind a pinned link, 0 if none */
static u32 lsm_link_prog(const char *pin)
{
	struct bpf_link_info li;
	u32 len = sizeof(li);
	char p[PATH_MAX];
	int fd;

	lsm_pin_path(p, sizeof(p), pin);
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
static bool lsm_wait_prog_gone(u32 id)
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
	u32 exec_id, open_id;

	if (lsm_no_args(argc, argv))
		return BFCTL_USAGE;
	exec_id = lsm_link_prog("link_exec");
	open_id = lsm_link_prog("link_open");
	if (!lsm_unpin_all())
		return bfctl_fail(BFCTL_ABSENT, "lsm detach", "not attached");
	if (!lsm_wait_prog_gone(exec_id) || !lsm_wait_prog_gone(open_id))
		return bfctl_fail(BFCTL_ERR, "lsm detach",
				  "unpinned, but a program is still loaded after 30 s (held by another process?)");
	return BFCTL_OK;
}

static int lsm_obj(const char *name)
{
	char p[PATH_MAX];

	lsm_pin_path(p, sizeof(p), name);
	return bpf_obj_get(p);
}

/*
 * Does the pinned path filter test filter name of this network namespace?
 * 1 yes, 0 no (or nothing pinned), -errno if its pins cannot be read.
 */
int bfctl_lsm_uses(const char *name)
{
	struct path_filter__rodata cfg;
	struct bpf_map_info mi = { 0 };
	u32 mlen = sizeof(mi), k = 0;
	struct stat st;
	int fd, ret;

	if (!lsm_attached())
		return 0;
	if (stat("/proc/self/ns/net", &st))
		return -errno;
	fd = lsm_obj("config");
	if (fd < 0)
		return -errno;
	/* the map's value is the program's .rodata: cfg is its layout */
	if (bpf_obj_get_info_by_fd(fd, &mi, &mlen))
		ret = -errno;
	else if (mi.value_size != sizeof(cfg))
		ret = -EPROTO;	/* pinned by another bfctl version */
	else
		ret = bpf_map_lookup_elem(fd, &k, &cfg) ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	cfg.filter_name[sizeof(cfg.filter_name) - 1] = 0;
	return cfg.netns_ino == st.st_ino &&
	       !strcmp((const char *)cfg.filter_name, name);
}

static const char *const lsm_stat_names[PF_STAT_NR] = {
	[PF_STAT_CHECKED] = "checked",
	[PF_STAT_MAYBE] = "maybe",
	[PF_STAT_FALSE_POS] = "false_positives",
	[PF_STAT_HIT] = "hits",
	[PF_STAT_FOREIGN] = "foreign_netns",
	[PF_STAT_NO_FILTER] = "filter_errors",
	[PF_STAT_NO_BUF] = "no_buffer",
	[PF_STAT_LOST] = "events_lost",
};

static int lsm_show(int argc, char **argv)
{
	struct path_filter__rodata cfg;
	struct bpf_map_info mi = { 0 };
	u32 mlen = sizeof(mi), k = 0;
	u64 total[PF_STAT_NR] = { 0 }, *pc, npaths = 0;
	struct pf_hash cur, next;
	int cfd, sfd, pfd, ncpu, i, j, ret = BFCTL_ERR;
	const char *mode;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-j"))
			bfctl_json = true;
		else if (!strcmp(argv[i], "-q"))
			bfctl_quiet = true;
		else
			return lsm_usage("unexpected argument '%s'", argv[i]);
	}
	if (!lsm_attached())
		return bfctl_fail(BFCTL_ABSENT, "lsm show", "not attached");
	cfd = lsm_obj("config");
	sfd = lsm_obj("stats");
	pfd = lsm_obj("paths");
	if (cfd < 0 || sfd < 0 || pfd < 0 ||
	    bpf_obj_get_info_by_fd(cfd, &mi, &mlen) ||
	    mi.value_size != sizeof(cfg) || bpf_map_lookup_elem(cfd, &k, &cfg)) {
		bfctl_fail(BFCTL_ERR, "lsm show", "%s: unreadable: %s", LSM_DIR,
			   strerror(errno));
		goto out;
	}
	ncpu = libbpf_num_possible_cpus();
	pc = calloc(ncpu > 0 ? ncpu : 1, sizeof(*pc));
	if (!pc || ncpu <= 0)
		goto out;
	for (k = 0; k < PF_STAT_NR; k++)
		if (!bpf_map_lookup_elem(sfd, &k, pc))
			for (j = 0; j < ncpu; j++)
				total[k] += pc[j];
	free(pc);
	for (ret = bpf_map_get_next_key(pfd, NULL, &cur); !ret;
	     ret = bpf_map_get_next_key(pfd, &cur, &next), cur = next)
		npaths++;
	mode = cfg.audit ? "audit" : "enforce";
	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("filter", (const char *)cfg.filter_name);
		bfctl_json_open_arr("hooks");
		if (cfg.hooks & PF_HOOK_EXEC)
			bfctl_json_str(NULL, "exec");
		if (cfg.hooks & PF_HOOK_OPEN)
			bfctl_json_str(NULL, "open");
		bfctl_json_close_arr();
		bfctl_json_str("mode", mode);
		bfctl_json_u64("paths", npaths);
		bfctl_json_u64("netns_inode", cfg.netns_ino);
		bfctl_json_open_obj("stats");
		for (k = 0; k < PF_STAT_NR; k++)
			bfctl_json_u64(lsm_stat_names[k], total[k]);
		bfctl_json_close_obj();
		bfctl_json_close_obj();
		bfctl_json_end();
	} else {
		printf("filter %s hooks %s%s%s mode %s paths %llu\n",
		       (const char *)cfg.filter_name,
		       cfg.hooks & PF_HOOK_EXEC ? "exec" : "",
		       cfg.hooks == (PF_HOOK_EXEC | PF_HOOK_OPEN) ? "," : "",
		       cfg.hooks & PF_HOOK_OPEN ? "open" : "", mode,
		       (unsigned long long)npaths);
		for (k = 0; k < PF_STAT_NR; k++)
			printf("%s%s %llu", k ? " " : "  ", lsm_stat_names[k],
			       (unsigned long long)total[k]);
		putchar('\n');
	}
	ret = BFCTL_OK;
out:
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
	if (pfd >= 0)
		close(pfd);
	return ret;
}

/* ---- log ---- */

static volatile sig_atomic_t lsm_stop;

static void lsm_on_signal(int sig)
{
	(void)sig;
	lsm_stop = 1;
}

static int lsm_event(void *ctx, void *data, size_t len)
{
	const struct pf_event *e = data;

	(void)ctx;
	if (len < sizeof(*e))
		return 0;
	bfctl_json_open_obj(NULL);
	bfctl_json_u64("time_ns", e->time_ns);
	bfctl_json_str("hook", e->hook == PF_HOOK_EXEC ? "exec" : "open");
	bfctl_json_str("action", e->denied ? "deny" : "audit");
	bfctl_json_strn("path", e->path, strnlen(e->path, sizeof(e->path)));
	bfctl_json_u64("pid", e->tgid);
	bfctl_json_u64("tid", e->pid);
	bfctl_json_u64("uid", e->uid);
	bfctl_json_u64("gid", e->gid);
	bfctl_json_strn("comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	bfctl_json_close_obj();
	bfctl_json_end();
	return 0;
}

static int lsm_log(int argc, char **argv)
{
	struct ring_buffer *rb;
	bool once = false;
	int fd, i, ret = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--once"))
			once = true;
		else if (!strcmp(argv[i], "-q"))
			bfctl_quiet = true;
		else
			return lsm_usage("unexpected argument '%s'", argv[i]);
	}
	if (!lsm_attached())
		return bfctl_fail(BFCTL_ABSENT, "lsm log", "not attached");
	fd = lsm_obj("events");
	if (fd < 0)
		return bfctl_fail(BFCTL_ERR, "lsm log", "%s/events: %s", LSM_DIR,
				  strerror(errno));
	rb = ring_buffer__new(fd, lsm_event, NULL, NULL);
	if (!rb) {
		close(fd);
		return bfctl_fail(BFCTL_ERR, "lsm log", "ring buffer: %s",
				  strerror(errno));
	}
	signal(SIGINT, lsm_on_signal);
	signal(SIGTERM, lsm_on_signal);
	if (once)
		ret = ring_buffer__consume(rb);
	/* until a signal, or until detach removes the pins */
	while (!once && !lsm_stop && ret >= 0 && lsm_attached())
		ret = ring_buffer__poll(rb, 500);
	if (ret == -EINTR)
		ret = 0;
	ring_buffer__free(rb);
	close(fd);
	if (ret < 0)
		return bfctl_fail(BFCTL_ERR, "lsm log", "%s", strerror(-ret));
	return BFCTL_OK;
}

int bfctl_lsm_main(int argc, char **argv)
{
	if (argc < 2)
		return lsm_usage("%s", "which: attach, detach, show or log?");
	if (!strcmp(argv[1], "attach"))
		return lsm_attach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "detach"))
		return lsm_detach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return lsm_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "log"))
		return lsm_log(argc - 1, argv + 1);
	return lsm_usage("unknown lsm command '%s'", argv[1]);
}
