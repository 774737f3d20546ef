// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl save / restore: the attachments (the lines are described in
 * savefmt_attach.c).  save reads them back from where attach left them:
 * the blocklists from the devices of bfctl's network namespace (xdp.c's
 * probe), the LSM filters from their pins (the configuration and the
 * list the programs hold).  restore runs the attach verbs themselves, so
 * an attachment restored is one `bfctl xdp attach` or `bfctl lsm attach`
 * would make, with their checks and their refusals: a device's foreign
 * XDP or tc program is never replaced (restore gives no --replace), and an
 * LSM filter attached already is left as it is (restore detaches nothing).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kverbs.h"
#include "lsm.h"
#include "lsm_content.h"
#include "savefmt.h"
#include "xdp.h"
#include "path_filter.h"
#include "path_filter.skel.h"
#include "content_filter.h"
#include "content_filter.skel.h"

/* ---- save ---- */

static bool filter_missing(const char *name)
{
	struct kb_ioc_info i;
	struct kbconn conn;
	int ret;

	kbconn_init(&conn);
	ret = kbconn_info(&conn, name, &i);
	kbconn_close(&conn);
	return ret == -ENOENT;
}

static int save_xdp(FILE *f, const char *name)
{
	struct if_nameindex *ifs = if_nameindex(), *p;
	int ret = BFCTL_OK, err;

	if (!ifs)
		return bfctl_fail(BFCTL_ERR, "save", "listing the devices: %s",
				  strerror(errno));
	libbpf_set_print(bfctl_xdp_libbpf_print);
	for (p = ifs; !ret && p->if_index; p++) {
		struct dev_state d;
		struct blk *b[2] = { &d.xdp, &d.tc };
		int i;

		err = bfctl_xdp_dev_probe((int)p->if_index, &d);
		/* a device gone since the listing had nothing to save */
		if (err == -ENODEV || err == -ENXIO) {
			bfctl_xdp_dev_release(&d);
			continue;
		}
		/* a save that left a blocklist out would restore without it */
		if (err)
			ret = bfctl_xdp_fail_sys("save", p->if_name,
						 "reading its programs", err);
		for (i = 0; !err && i < 2; i++) {
			if (!b[i]->ours || (name && strcmp(b[i]->name, name)))
				continue;
			fprintf(f, "attach xdp %s %s mode=%s dir=%s", d.dev,
				b[i]->name, bfctl_xdp_mode_name(b[i]),
				b[i]->conf.dir == KB_XDP_DIR_DST ? "dst" : "src");
			/* in libxdp's dispatcher, in its place; or alone */
			if (b[i]->disp)
				fprintf(f, " prio=%u", b[i]->run_prio);
			else if (!b[i]->tc)
				fputs(" alone", f);
			fputs(filter_missing(b[i]->name) ? " force\n" : "\n", f);
		}
		bfctl_xdp_dev_release(&d);
	}
	if_freenameindex(ifs);
	return ret;
}

static void save_lsm_head(FILE *f, const char *name, const char *mode,
			  u32 hooks, bool audit)
{
	char h[16];

	fprintf(f, "attach lsm %s mode=%s hooks=%s %s\n", name, mode,
		bfctl_lsm_hooks_text(h, sizeof(h), hooks),
		audit ? "audit" : "enforce");
}

static int save_lsm_path(FILE *f, const char *name)
{
	struct path_filter__rodata cfg;
	struct bpf_map_info li = { 0 };
	u32 llen = sizeof(li), i;
	struct pf_listed e;
	int cfd, lfd, err = 0;

	cfd = bfctl_lsm_obj("config");
	lfd = bfctl_lsm_obj("list");
	if (cfd < 0 || lfd < 0 || bpf_obj_get_info_by_fd(lfd, &li, &llen))
		err = -errno;
	else if (li.value_size != sizeof(e))
		err = -EPROTO;
	else
		err = bfctl_lsm_config_read(cfd, &cfg, sizeof(cfg));
	if (!err && (!name || !strcmp((const char *)cfg.filter_name, name))) {
		save_lsm_head(f, (const char *)cfg.filter_name, "path",
			      cfg.hooks, cfg.audit);
		for (i = 0; !err && i < li.max_entries; i++) {
			if (bpf_map_lookup_elem(lfd, &i, &e)) {
				err = -errno;
				break;
			}
			e.path[sizeof(e.path) - 1] = 0;
			fprintf(f, "list %s\n", e.path);
		}
		fprintf(f, "end\n");
	}
	if (cfd >= 0)
		close(cfd);
	if (lfd >= 0)
		close(lfd);
	return err ? bfctl_lsm_unreadable(LSM_DIR, err) : BFCTL_OK;
}

static int save_lsm_content(FILE *f, const char *name)
{
	struct content_filter__rodata cfg;
	struct cf_digest cur, next;
	char hex[2 * CF_DIGEST_LEN + 1];
	int cfd, dfd, err;

	cfd = bfctl_lsm_content_obj("config");
	dfd = bfctl_lsm_content_obj("digests");
	if (cfd < 0 || dfd < 0)
		err = -errno;
	else
		err = bfctl_lsm_config_read(cfd, &cfg, sizeof(cfg));
	if (!err && (!name || !strcmp((const char *)cfg.filter_name, name))) {
		save_lsm_head(f, (const char *)cfg.filter_name, "content",
			      cfg.hooks, cfg.audit);
		for (err = bpf_map_get_next_key(dfd, NULL, &cur); !err;
		     err = bpf_map_get_next_key(dfd, &cur, &next), cur = next) {
			bfctl_lsm_content_hex(hex, cur.b);
			fprintf(f, "list sha256:%s\n", hex);
		}
		err = err == -ENOENT ? 0 : err;
		fprintf(f, "end\n");
	}
	if (cfd >= 0)
		close(cfd);
	if (dfd >= 0)
		close(dfd);
	return err ? bfctl_lsm_unreadable(LSM_CONTENT_DIR, err) : BFCTL_OK;
}

int bfctl_save_attachments(FILE *f, const char *name)
{
	int ret = save_xdp(f, name);

	if (!ret && bfctl_lsm_attached())
		ret = save_lsm_path(f, name);
	if (!ret && bfctl_lsm_content_attached())
		ret = save_lsm_content(f, name);
	return ret;
}

/* ---- restore ---- */

/*
 * A device the save names may not exist yet when restore runs (a driver
 * still probing, a device another unit creates): it is waited for up to
 * KBLOOM_ATTACH_WAIT seconds (default 0: restore by hand does not wait)
 */
static void wait_dev(const char *dev)
{
	const char *w = getenv("KBLOOM_ATTACH_WAIT");
	long left = w ? strtol(w, NULL, 10) * 10 : 0;
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	while (left-- > 0 && !if_nametoindex(dev))
		nanosleep(&ts, NULL);
}

static int attach_xdp(struct rattach *a)
{
	char *argv[16] = { "xdp", "attach", a->dev, a->filter, "--mode",
			   (char *)a->mode, "--dir", (char *)a->dir };
	char prio[24];
	int argc = 8;

	if (a->force)
		argv[argc++] = "--force";
	if (a->alone)
		argv[argc++] = "--no-dispatcher";
	if (a->prio >= 0) {
		snprintf(prio, sizeof(prio), "%ld", a->prio);
		argv[argc++] = "--priority";
		argv[argc++] = prio;
	}
	if (bfctl_quiet)
		argv[argc++] = "-q";
	wait_dev(a->dev);
	return bfctl_xdp_main(argc, argv);
}

/* the list goes to attach as its -file: an anonymous file of ours */
static int attach_lsm(struct rattach *a)
{
	char *argv[12] = { "lsm", "attach", a->filter, "-file" };
	bool content = a->kind == RA_LSM_CONTENT;
	char path[64];
	int argc = 5, fd, ret;

	if (content ? bfctl_lsm_content_attached() : bfctl_lsm_attached()) {
		fprintf(stderr, "bfctl: restore: line %llu: attach lsm %s: %s mode is attached already: left as it is (bfctl lsm detach%s replaces it on the next restore)\n",
			(unsigned long long)a->line, a->filter,
			content ? "content" : "path",
			content ? " --content" : " --path");
		return BFCTL_OK;
	}
	fd = memfd_create("kbloom-attach-list", MFD_CLOEXEC);
	if (fd < 0)
		return bfctl_fail(BFCTL_ERR, "restore", "memfd: %s",
				  strerror(errno));
	if (write(fd, a->list, a->list_len) != (ssize_t)a->list_len) {
		close(fd);
		return bfctl_fail(BFCTL_ERR, "restore", "memfd: %s",
				  strerror(errno));
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	argv[4] = path;
	if (a->hooks & LSM_HOOK_EXEC)
		argv[argc++] = "--exec";
	if (a->hooks & LSM_HOOK_OPEN)
		argv[argc++] = "--open";
	if (a->audit)
		argv[argc++] = "--audit";
	if (content)
		argv[argc++] = "--content";
	if (bfctl_quiet)
		argv[argc++] = "-q";
	ret = bfctl_lsm_main(argc, argv);
	close(fd);
	return ret;
}

int bfctl_restore_attachments(struct bfctl_restore *rs)
{
	char failed[512] = "";
	size_t i, len = 0;
	int ret;

	for (i = 0; i < rs->natt; i++) {
		struct rattach *a = &rs->att[i];

		ret = a->kind == RA_XDP ? attach_xdp(a) : attach_lsm(a);
		a->done = !ret;
		if (ret && len < sizeof(failed))
			len += (size_t)snprintf(failed + len, sizeof(failed) - len,
						"%s%s %s", len ? ", " : "",
						a->kind == RA_XDP ? "xdp" : "lsm",
						a->kind == RA_XDP ? a->dev :
						a->kind == RA_LSM_PATH ? "path" :
						"content");
	}
	if (!failed[0])
		return BFCTL_OK;
	/* one line that names them all (kbloom-persist copies it to kmsg) */
	fprintf(stderr, "bfctl: restore: %s: not attached (above): %s\n",
		rs->file, failed);
	return BFCTL_ERR;
}
