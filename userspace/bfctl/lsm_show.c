// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl lsm show and log: what the path filter (lsm.c attaches it) has
 * pinned under /sys/fs/bpf/kbloom/lsm/: its configuration and counters,
 * whether its filter still holds the listed paths, and the ring buffer's
 * reports as JSON lines.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kverbs.h"
#include "lsm.h"
#include "path_filter.h"
#include "path_filter.skel.h"

int bfctl_lsm_obj(const char *name)
{
	char p[PATH_MAX];

	bfctl_lsm_pin_path(p, sizeof(p), name);
	return bpf_obj_get(p);
}

/* the skeleton's struct is the section padded to its alignment (8) */
int bfctl_lsm_config_read(int fd, void *cfg, size_t size)
{
	struct bpf_map_info mi = { 0 };
	u32 mlen = sizeof(mi), k = 0;

	if (bpf_obj_get_info_by_fd(fd, &mi, &mlen))
		return -errno;
	if (mi.value_size > size || size - mi.value_size >= 8)
		return -EPROTO;
	memset(cfg, 0, size);
	return bpf_map_lookup_elem(fd, &k, cfg) ? -errno : 0;
}

static int lsm_config_read(int fd, struct path_filter__rodata *cfg)
{
	return bfctl_lsm_config_read(fd, cfg, sizeof(*cfg));
}

int bfctl_lsm_unreadable(const char *dir, int err)
{
	return bfctl_fail(BFCTL_ERR, "lsm show", "%s: unreadable: %s", dir,
			  err == -EPROTO ?
			  "pinned by another version of bfctl (detach with it)" :
			  strerror(-err));
}

int bfctl_lsm_stats_sum(int sfd, u64 *total, u32 n)
{
	int ncpu = libbpf_num_possible_cpus(), j;
	u64 *pc = calloc(ncpu > 0 ? ncpu : 1, sizeof(*pc));
	u32 k;

	if (!pc || ncpu <= 0) {
		free(pc);
		return -1;
	}
	for (k = 0; k < n; k++)
		if (!bpf_map_lookup_elem(sfd, &k, pc))
			for (j = 0; j < ncpu; j++)
				total[k] += pc[j];
	free(pc);
	return 0;
}

const char *bfctl_lsm_hooks_text(char *buf, size_t len, u32 hooks)
{
	snprintf(buf, len, "%s%s%s", hooks & LSM_HOOK_EXEC ? "exec" : "",
		 hooks == (LSM_HOOK_EXEC | LSM_HOOK_OPEN) ? "," : "",
		 hooks & LSM_HOOK_OPEN ? "open" : "");
	return buf;
}

void bfctl_lsm_json_head(const char *filter, u32 hooks, const char *mode)
{
	bfctl_json_str("filter", filter);
	bfctl_json_open_arr("hooks");
	if (hooks & LSM_HOOK_EXEC)
		bfctl_json_str(NULL, "exec");
	if (hooks & LSM_HOOK_OPEN)
		bfctl_json_str(NULL, "open");
	bfctl_json_close_arr();
	bfctl_json_str("mode", mode);
}

void bfctl_lsm_json_tail(const char *why, u64 missing, u64 cookie,
			 const char *const *names, const u64 *total, u32 n)
{
	u32 k;

	if (why)
		bfctl_json_str("not_in_filter_untested", why);
	else
		bfctl_json_u64("not_in_filter", missing);
	bfctl_json_u64("netns_cookie", cookie);
	bfctl_json_open_obj("stats");
	for (k = 0; k < n; k++)
		bfctl_json_u64(names[k], total[k]);
	bfctl_json_close_obj();
}

u64 bfctl_lsm_missing(int err, const u64 *res, u64 n, const char **why)
{
	u64 i, missing = 0;

	*why = NULL;
	if (err == -ENOENT)
		return n;	/* no such filter: nothing passes */
	if (err) {
		*why = strerror(-err);
		return ~0ULL;
	}
	for (i = 0; i < n; i++)
		missing += !(res[i / 64] >> (i % 64) & 1);
	return missing;
}

void bfctl_lsm_text_stats(const char *const *names, const u64 *total, u32 n)
{
	u32 k;

	for (k = 0; k < n; k++)
		printf("%s%s %llu", k ? " " : "  ", names[k],
		       (unsigned long long)total[k]);
	putchar('\n');
}

/*
 * Does the pinned path filter test filter name of this network namespace?
 * 1 yes, 0 no (or nothing pinned), -errno if its pins cannot be read.
 */
int bfctl_lsm_uses(const char *name)
{
	struct path_filter__rodata cfg;
	u64 mine;
	int fd, ret;

	if (!bfctl_lsm_attached())
		return 0;
	ret = bfctl_lsm_netns_cookie(&mine);
	if (ret)
		return ret;
	fd = bfctl_lsm_obj("config");
	if (fd < 0)
		return -errno;
	ret = lsm_config_read(fd, &cfg);
	close(fd);
	if (ret)
		return ret;
	cfg.filter_name[sizeof(cfg.filter_name) - 1] = 0;
	return cfg.netns_cookie == mine &&
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
	[PF_STAT_BY_INODE] = "inode_hits",
};

/* what show reports of the list attach resolved */
struct lsm_listed {
	u64 n, n_ino;		/* paths; those with an inode */
	u64 missing;		/* not in the filter (tested), or ~0: untested */
	const char *why;	/* why untested */
};

/*
 * Test the listed paths against the filter, in bfctl's netns if it is the
 * one attach ran in (the programs ask the filter there, and only there): a
 * path it no longer holds (flush, rebuild, del) passes the pre-check, so
 * the programs allow it by path (its inode, if listed, is still denied).
 */
static void lsm_list_check(int lfd, const char *name, u64 cookie,
			   u32 n, struct lsm_listed *r)
{
	struct pf_listed *e = calloc(n ? n : 1, sizeof(*e));
	char **path = calloc(n ? n : 1, sizeof(*path));
	u64 *res = calloc((n + 63) / 64 + 1, sizeof(*res));
	struct kbconn conn;
	u64 mine;
	u32 i;
	int err;

	r->missing = ~0ULL;
	r->why = "out of memory";
	if (!e || !path || !res)
		goto out;
	r->why = "unreadable list";
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(lfd, &i, &e[i]))
			goto out;
		e[i].path[sizeof(e[i].path) - 1] = 0;
		path[i] = e[i].path;
		r->n++;
		r->n_ino += !!e[i].ino;
	}
	r->why = "bfctl runs in another netns than attach did";
	if (bfctl_lsm_netns_cookie(&mine) || mine != cookie)
		goto out;
	kbconn_init(&conn);
	err = bfctl_lsm_filter_keys(&conn, KB_IOC_TEST, name, path, n, res);
	kbconn_close(&conn);
	r->missing = bfctl_lsm_missing(err, res, n, &r->why);
out:
	free(res);
	free(path);
	free(e);
}

int bfctl_lsm_show(int argc, char **argv)
{
	struct path_filter__rodata cfg;
	struct bpf_map_info li = { 0 };
	u32 llen = sizeof(li);
	u64 total[PF_STAT_NR] = { 0 }, npaths = 0;
	struct lsm_listed ls = { 0 };
	struct pf_hash cur, next;
	int cfd, sfd, pfd, lfd, i, err, ret = BFCTL_ERR;
	const char *mode;
	char hooks[16];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-j"))
			bfctl_json = true;
		else if (!strcmp(argv[i], "-q"))
			bfctl_quiet = true;
		else
			return bfctl_lsm_usage("unexpected argument '%s'", argv[i]);
	}
	if (!bfctl_lsm_attached())
		return bfctl_fail(BFCTL_ABSENT, "lsm show", "not attached");
	cfd = bfctl_lsm_obj("config");
	sfd = bfctl_lsm_obj("stats");
	pfd = bfctl_lsm_obj("paths");
	lfd = bfctl_lsm_obj("list");
	if (cfd < 0 || sfd < 0 || pfd < 0 || lfd < 0 ||
	    bpf_obj_get_info_by_fd(lfd, &li, &llen))
		err = -errno;
	else if (li.value_size != sizeof(struct pf_listed))
		err = -EPROTO;
	else
		err = lsm_config_read(cfd, &cfg);
	if (err) {
		bfctl_lsm_unreadable(LSM_DIR, err);
		goto out;
	}
	if (bfctl_lsm_stats_sum(sfd, total, PF_STAT_NR))
		goto out;
	for (ret = bpf_map_get_next_key(pfd, NULL, &cur); !ret;
	     ret = bpf_map_get_next_key(pfd, &cur, &next), cur = next)
		npaths++;
	lsm_list_check(lfd, (const char *)cfg.filter_name, cfg.netns_cookie,
		       li.max_entries, &ls);
	mode = cfg.audit ? "audit" : "enforce";
	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_lsm_json_head((const char *)cfg.filter_name, cfg.hooks,
				    mode);
		bfctl_json_u64("paths", npaths);
		bfctl_json_u64("inodes", ls.n_ino);
		bfctl_lsm_json_tail(ls.why, ls.missing, cfg.netns_cookie,
				    lsm_stat_names, total, PF_STAT_NR);
		bfctl_json_close_obj();
		bfctl_json_end();
	} else {
		printf("filter %s hooks %s mode %s paths %llu inodes %llu\n",
		       (const char *)cfg.filter_name,
		       bfctl_lsm_hooks_text(hooks, sizeof(hooks), cfg.hooks),
		       mode, (unsigned long long)npaths,
		       (unsigned long long)ls.n_ino);
		bfctl_lsm_text_stats(lsm_stat_names, total, PF_STAT_NR);
	}
	/* loud, even with -j (on stderr): the list is half enforced */
	if (!ls.why && ls.missing)
		fprintf(stderr, "bfctl: lsm show: WARNING: %llu of %llu listed paths are not in filter %s (flushed, rebuilt or destroyed?): the programs allow them by path in this netns; listed files recorded by inode at attach are still denied by inode. bfctl lsm detach and attach again to re-add them.\n",
			(unsigned long long)ls.missing,
			(unsigned long long)ls.n, (const char *)cfg.filter_name);
	else if (ls.why && !bfctl_quiet)
		fprintf(stderr, "bfctl: lsm show: cannot test the listed paths against the filter: %s\n",
			ls.why);
	ret = BFCTL_OK;
out:
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
	if (pfd >= 0)
		close(pfd);
	if (lfd >= 0)
		close(lfd);
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
	bfctl_json_str("hook", e->hook == PF_HOOK_EXEC ? "exec" :
		       e->hook == PF_HOOK_MMAP ? "mmap" :
		       e->hook == PF_HOOK_MPROTECT ? "mprotect" : "open");
	/* allow: unjudged without a path buffer, and not listed by inode */
	bfctl_json_str("action", e->denied ? "deny" :
		       e->why & (PF_WHY_PATH | PF_WHY_INODE) ? "audit" :
		       "allow");
	/* empty: unknown (no buffer; mprotect cannot ask for a path) */
	bfctl_json_strn("path", e->path, strnlen(e->path, sizeof(e->path)));
	bfctl_json_u64("dev", e->dev);
	bfctl_json_u64("ino", e->ino);
	bfctl_json_open_arr("why");
	if (e->why & PF_WHY_PATH)
		bfctl_json_str(NULL, "path");
	if (e->why & PF_WHY_INODE)
		bfctl_json_str(NULL, "inode");
	if (e->why & PF_WHY_NO_BUF)
		bfctl_json_str(NULL, "no_buffer");
	bfctl_json_close_arr();
	bfctl_json_u64("pid", e->tgid);
	bfctl_json_u64("tid", e->pid);
	bfctl_json_u64("uid", e->uid);
	bfctl_json_u64("gid", e->gid);
	bfctl_json_strn("comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	bfctl_json_close_obj();
	bfctl_json_end();
	return 0;
}

int bfctl_lsm_log(int argc, char **argv)
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
			return bfctl_lsm_usage("unexpected argument '%s'", argv[i]);
	}
	if (!bfctl_lsm_attached())
		return bfctl_fail(BFCTL_ABSENT, "lsm log", "not attached");
	fd = bfctl_lsm_obj("events");
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
	while (!once && !lsm_stop && ret >= 0 && bfctl_lsm_attached())
		ret = ring_buffer__poll(rb, 500);
	if (ret == -EINTR)
		ret = 0;
	ring_buffer__free(rb);
	close(fd);
	if (ret < 0)
		return bfctl_fail(BFCTL_ERR, "lsm log", "%s", strerror(-ret));
	return BFCTL_OK;
}
