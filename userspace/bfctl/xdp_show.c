// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl xdp show, and the blocklists using a filter (bfctl destroy's
 * guard): both read the devices' programs back (bfctl_xdp_dev_probe()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"
#include "xdp.h"

/* ---- show ---- */

struct id_find {
	u64 id;
	char name[KB_NAME_MAX];
};

static int id_find_cb(const struct kb_ioc_info *i, void *arg)
{
	struct id_find *f = arg;

	if (i->id != f->id)
		return 0;
	snprintf(f->name, sizeof(f->name), "%s", i->name);
	return 1;
}

/*
 * The filter a blocklist tests: the one of its id (it follows a rename),
 * else the one of its name (the program looks the name up again once the
 * id is gone).  1 and its name in now, 0 if neither exists, -errno.
 */
static int filter_tested(const struct blk *b, char now[KB_NAME_MAX])
{
	struct id_find f = { .id = b->id };
	struct kb_ioc_info i;
	struct kbconn conn;
	int ret = 0;

	kbconn_init(&conn);
	if (b->id)
		ret = kbconn_list(&conn, id_find_cb, &f);
	if (ret > 0) {
		snprintf(now, KB_NAME_MAX, "%s", f.name);
	} else {
		ret = kbconn_info(&conn, b->name, &i);
		ret = ret == -ENOENT ? 0 : ret ? ret : 1;
		snprintf(now, KB_NAME_MAX, "%s", b->name);
	}
	kbconn_close(&conn);
	return ret;
}

static void show_one(const struct dev_state *d, const struct blk *b)
{
	char now[KB_NAME_MAX];
	int exists = filter_tested(b, now);
	bool renamed = exists > 0 && strcmp(now, b->name);
	u32 i;

	/* loud, on stderr even with -j: the blocklist blocks nothing */
	if (!exists)
		fprintf(stderr, "bfctl: xdp show: %s: WARNING: filter '%s' does not exist in this network namespace: every packet passes (counted as nofilter)\n",
			d->dev, b->name);
	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("dev", d->dev);
		bfctl_json_u64("ifindex", d->ifindex);
		bfctl_json_str("hook", b->tc ? "tc" : "xdp");
		bfctl_json_str("mode", bfctl_xdp_mode_name(b));
		bfctl_json_str("filter", b->name);
		if (exists >= 0)
			bfctl_json_bool("filter_exists", exists);
		if (renamed)	/* the filter it tests, renamed since attach */
			bfctl_json_str("filter_now", now);
		bfctl_json_str("dir", b->conf.dir == KB_XDP_DIR_DST ? "dst" : "src");
		bfctl_json_u64("prog_id", b->prog_id);
		bfctl_json_bool("dispatcher", b->disp);
		bfctl_json_bool("tcx", b->tcx);
		if (b->disp)
			bfctl_json_u64("priority", b->run_prio);
		for (i = 0; i < KB_XDP_NR_COUNTERS; i++)
			bfctl_json_u64(bfctl_xdp_counter_names[i], b->cnt[i]);
		bfctl_json_close_obj();
		return;
	}
	/* the hook, and for XDP its mode: "tc", "tcx", "xdp native" */
	printf("%s: %s%s%s", d->dev, b->tcx ? "tcx" : b->tc ? "tc" : "xdp",
	       b->tc ? "" : " ",
	       b->tc ? "" : bfctl_xdp_mode_name(b));
	if (b->disp)
		printf(" dispatcher priority %u", b->run_prio);
	printf(" filter %s%s%s%s dir %s prog %u", b->name,
	       renamed ? " (renamed " : "", renamed ? now : "",
	       renamed ? ")" : "", b->conf.dir == KB_XDP_DIR_DST ? "dst" : "src", b->prog_id);
	for (i = 0; i < KB_XDP_NR_COUNTERS; i++)
		printf(" %s %llu", bfctl_xdp_counter_names[i], (unsigned long long)b->cnt[i]);
	putchar('\n');
}

/* 1 if ifindex has a blocklist (shown), 0 if not, else BFCTL_ERR */
static int show_dev(int ifindex, const char *dev)
{
	struct dev_state d;
	int ret;

	ret = bfctl_xdp_dev_probe(ifindex, &d);
	if (ret == -ENODEV || ret == -ENXIO)
		return 0;	/* gone meanwhile */
	if (ret) {
		bfctl_xdp_dev_release(&d);
		return bfctl_xdp_fail_sys("show", dev, "reading its programs", ret);
	}
	if (d.xdp.ours)
		show_one(&d, &d.xdp);
	if (d.tc.ours)
		show_one(&d, &d.tc);
	ret = d.xdp.ours || d.tc.ours;
	bfctl_xdp_dev_release(&d);
	return ret;
}

int bfctl_xdp_show(int argc, char **argv)
{
	const char *what = "xdp show";
	struct if_nameindex *ifs, *it;
	struct xopts o;
	int ifindex, ret;

	ret = bfctl_xdp_parse_opts(argc, argv, what, false, &o);
	if (ret)
		return ret;
	if (o.npos > 1)
		return bfctl_usage(what, "%s", "usage: xdp show [DEV] [-j]");
	if (o.npos) {
		ret = bfctl_xdp_dev_index(what, o.pos[0], &ifindex);
		if (ret)
			return ret;
	}
	libbpf_set_print(bfctl_xdp_libbpf_print);
	if (bfctl_json)
		bfctl_json_open_arr(NULL);
	if (o.npos) {
		ret = show_dev(ifindex, o.pos[0]);
		if (ret == 0)
			ret = bfctl_fail(BFCTL_ERR, bfctl_verb_name(what, o.pos[0]),
					 "no kbloom blocklist on %s", o.pos[0]);
	} else {
		ifs = if_nameindex();
		if (!ifs)
			return bfctl_xdp_fail_sys("show", "", "listing devices", errno);
		for (it = ifs, ret = 0; it->if_index && ret != BFCTL_ERR; it++)
			ret = show_dev(it->if_index, it->if_name);
		if_freenameindex(ifs);
	}
	if (ret == BFCTL_ERR)
		return ret;
	if (bfctl_json) {
		bfctl_json_close_arr();
		bfctl_json_end();
	}
	return BFCTL_OK;
}

/* ---- the blocklists using a filter (bfctl destroy's guard) ---- */

int bfctl_xdp_users(const char *name, char *buf, size_t len)
{
	struct if_nameindex *ifs, *it;
	struct kb_ioc_info fi;
	struct kbconn conn;
	struct dev_state d;
	size_t off = 0;
	u64 fid = 0;
	int n = 0, ret = 0, i;

	buf[0] = 0;
	/* by id too: a blocklist follows its filter through a rename */
	kbconn_init(&conn);
	if (!kbconn_info(&conn, name, &fi))
		fid = fi.id;
	kbconn_close(&conn);
	ifs = if_nameindex();
	if (!ifs)
		return -errno;
	libbpf_set_print(bfctl_xdp_libbpf_print);
	for (it = ifs; it->if_index && !ret; it++) {
		ret = bfctl_xdp_dev_probe(it->if_index, &d);
		if (ret == -ENODEV || ret == -ENXIO)
			ret = 0;	/* gone meanwhile */
		for (i = 0; !ret && i < 2; i++) {
			const struct blk *b = i ? &d.tc : &d.xdp;

			if (!b->ours ||
			    (strcmp(b->name, name) && (!fid || b->id != fid)))
				continue;
			if (off < len)
				off += snprintf(buf + off, len - off, "%s%s (%s%s)",
						n ? ", " : "", d.dev,
						b->tc ? "" : "xdp ", bfctl_xdp_mode_name(b));
			n++;
		}
		bfctl_xdp_dev_release(&d);
	}
	if_freenameindex(ifs);
	return ret ? ret : n;
}
