// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl lsm show for the path filter's content mode (lsm_content.c
 * attaches it): its configuration, counters and whether its filter still
 * holds the listed digests; and show of both modes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kverbs.h"
#include "lsm.h"
#include "lsm_content.h"
#include "content_filter.h"
#include "content_filter.skel.h"

static const char *const cf_stat_names[CF_STAT_NR] = {
	[CF_STAT_CHECKED] = "checked",
	[CF_STAT_MAYBE] = "maybe",
	[CF_STAT_FALSE_POS] = "false_positives",
	[CF_STAT_HIT] = "hits",
	[CF_STAT_FOREIGN] = "foreign_netns",
	[CF_STAT_NO_FILTER] = "filter_errors",
	[CF_STAT_NO_HASH] = "no_hash",
	[CF_STAT_MPROTECT] = "mprotect_hits",
};

static int cf_config_read(int fd, struct content_filter__rodata *cfg)
{
	int err = bfctl_lsm_config_read(fd, cfg, sizeof(*cfg));

	if (err)
		return err;
	cfg->filter_name[sizeof(cfg->filter_name) - 1] = 0;
	return 0;
}

int bfctl_lsm_content_uses(const char *name)
{
	struct content_filter__rodata cfg;
	u64 mine;
	int fd, ret;

	if (!bfctl_lsm_content_attached())
		return 0;
	ret = bfctl_lsm_netns_cookie(&mine);
	if (ret)
		return ret;
	fd = bfctl_lsm_content_obj("config");
	if (fd < 0)
		return -errno;
	ret = cf_config_read(fd, &cfg);
	close(fd);
	if (ret)
		return ret;
	return cfg.netns_cookie == mine &&
	       !strcmp((const char *)cfg.filter_name, name);
}

/*
 * The listed digests (the exact set's keys), and how many the filter no
 * longer holds, tested in the netns attach ran in; ~0: untested (*why)
 */
static u64 cf_missing(int dfd, const struct content_filter__rodata *cfg,
		      u64 *n, const char **why)
{
	struct cf_digest *d = NULL, cur, next, *nd;
	u64 cap = 0, missing = ~0ULL, *res = NULL, mine;
	struct kbconn conn;
	int err;

	*n = 0;
	*why = "out of memory";
	for (err = bpf_map_get_next_key(dfd, NULL, &cur); !err;
	     err = bpf_map_get_next_key(dfd, &cur, &next), cur = next) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			nd = realloc(d, cap * sizeof(*d));
			if (!nd)
				goto out;
			d = nd;
		}
		d[(*n)++] = cur;
	}
	*why = "bfctl runs in another netns than attach did";
	if (bfctl_lsm_netns_cookie(&mine) || mine != cfg->netns_cookie)
		goto out;
	res = calloc(*n / 64 + 1, sizeof(*res));
	*why = "out of memory";
	if (!res)
		goto out;
	kbconn_init(&conn);
	err = bfctl_lsm_content_keys(&conn, KB_IOC_TEST, (const char *)cfg->filter_name,
			     d, *n, res);
	kbconn_close(&conn);
	missing = bfctl_lsm_missing(err, res, *n, why);
out:
	free(res);
	free(d);
	return missing;
}

static int cf_show(void)
{
	struct content_filter__rodata cfg;
	u64 total[CF_STAT_NR] = { 0 }, n, missing;
	int cfd, sfd, dfd, err, ret = BFCTL_ERR;
	const char *why, *mode;
	char hooks[16];

	cfd = bfctl_lsm_content_obj("config");
	sfd = bfctl_lsm_content_obj("stats");
	dfd = bfctl_lsm_content_obj("digests");
	if (cfd < 0 || sfd < 0 || dfd < 0)
		err = -errno;
	else
		err = cf_config_read(cfd, &cfg);
	if (err) {
		bfctl_lsm_unreadable(LSM_CONTENT_DIR, err);
		goto out;
	}
	if (bfctl_lsm_stats_sum(sfd, total, CF_STAT_NR))
		goto out;
	missing = cf_missing(dfd, &cfg, &n, &why);
	mode = cfg.audit ? "audit" : "enforce";
	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_open_obj("content");
		bfctl_lsm_json_head((const char *)cfg.filter_name, cfg.hooks,
				    mode);
		bfctl_json_u64("digests", n);
		bfctl_lsm_json_tail(why, missing, cfg.netns_cookie,
				    cf_stat_names, total, CF_STAT_NR);
		bfctl_json_close_obj();
		bfctl_json_close_obj();
		bfctl_json_end();
	} else {
		printf("content filter %s hooks %s mode %s digests %llu\n",
		       (const char *)cfg.filter_name,
		       bfctl_lsm_hooks_text(hooks, sizeof(hooks), cfg.hooks),
		       mode, (unsigned long long)n);
		bfctl_lsm_text_stats(cf_stat_names, total, CF_STAT_NR);
	}
	if (!why && missing)
		fprintf(stderr, "bfctl: lsm show: WARNING: %llu of %llu listed digests are not in filter %s (flushed, rebuilt or destroyed?): content mode allows them in this netns. bfctl lsm detach --content and attach again to re-add them.\n",
			(unsigned long long)missing, (unsigned long long)n,
			(const char *)cfg.filter_name);
	ret = BFCTL_OK;
out:
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

int bfctl_lsm_show_modes(int argc, char **argv,
			 int (*path_verb)(int argc, char **argv))
{
	return bfctl_lsm_run_modes(argc, argv, "lsm show", path_verb,
				   bfctl_lsm_attached, cf_show,
				   bfctl_lsm_content_attached);
}
