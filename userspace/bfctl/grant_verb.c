// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl grant NAME --readers GROUP | --writers GROUP | --none, and the
 * grants of info, list, -j and save (grant.c: the groups' names and the
 * save file's grant lines).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kverbs.h"
#include "savefmt.h"

int bfctl_grant_apply(struct kbconn *conn, struct bfctl_kargs *a,
		      const char *name)
{
	struct bfctl_grant g;
	char err[160];
	int ret;

	if (bfctl_grant_from_args(a, &g, err, sizeof(err)))
		return bfctl_usage(a->verb, "%s", err);
	if (!conn->nl)
		return bfctl_fail_err(conn, "grant", kbconn_no_nl(conn));
	ret = kbnl_grant(conn->nl, name, g.set_readers ? &g.readers : NULL,
			 g.set_writers ? &g.writers : NULL, conn->extack,
			 sizeof(conn->extack));
	if (ret)
		return bfctl_fail_err(conn, bfctl_verb_name(a->verb, name), ret);
	return BFCTL_OK;
}

int bfctl_do_grant(struct kbconn *conn, struct bfctl_kargs *a)
{
	int ret;

	ret = bfctl_want_pos(a, 1, 1,
			     "grant NAME [--readers GROUP] [--writers GROUP] | --none");
	if (!ret)
		ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	if (!a->readers && !a->writers && !a->grant_none)
		return bfctl_usage(a->verb, "%s",
				   "give --readers GROUP, --writers GROUP or --none");
	return bfctl_grant_apply(conn, a, a->pos[0]);
}

int bfctl_create_grant(struct kbconn *conn, struct bfctl_kargs *a,
		       const struct kb_ioc_create *c)
{
	struct bfctl_grant g;
	char err[160];

	if (a->grant_none)
		return bfctl_usage(a->verb, "%s",
				   "--none is for bfctl grant (a new filter has no grants)");
	if (bfctl_grant_from_args(a, &g, err, sizeof(err)))
		return bfctl_usage(a->verb, "%s", err);
	if (!conn->nl)
		return kbconn_no_nl(conn);
	return kbnl_create_grant(conn->nl, c,
				 g.set_readers ? &g.readers : NULL,
				 g.set_writers ? &g.writers : NULL,
				 conn->extack, sizeof(conn->extack));
}

void bfctl_grants_get(struct kbconn *conn, const char *name, u32 *readers,
		      u32 *writers)
{
	*readers = *writers = KB_GID_NONE;
	if (conn->nl)
		kbnl_grants(conn->nl, name, readers, writers);
}

void bfctl_grants_json(u32 readers, u32 writers)
{
	char buf[64];

	if (readers != KB_GID_NONE) {
		bfctl_json_str("readers",
			       bfctl_group_text(readers, buf, sizeof(buf)));
		bfctl_json_u64("readers_gid", readers);
	}
	if (writers != KB_GID_NONE) {
		bfctl_json_str("writers",
			       bfctl_group_text(writers, buf, sizeof(buf)));
		bfctl_json_u64("writers_gid", writers);
	}
}

/* " readers=G writers=G" (what is set), for the end of a list row */
void bfctl_grants_row(u32 readers, u32 writers)
{
	char buf[64];

	if (readers != KB_GID_NONE)
		printf(" readers=%s", bfctl_group_text(readers, buf, sizeof(buf)));
	if (writers != KB_GID_NONE)
		printf(" writers=%s", bfctl_group_text(writers, buf, sizeof(buf)));
}

int bfctl_save_grant(struct kbconn *conn, FILE *f, const char *name)
{
	u32 r = KB_GID_NONE, w = KB_GID_NONE;
	char rb[64], wb[64], what[64];
	int ret;

	/* no netlink: no grants (only the kernel's family sets them) */
	if (!conn->nl)
		return BFCTL_OK;
	ret = kbnl_grants(conn->nl, name, &r, &w);
	if (ret) {
		snprintf(what, sizeof(what), "save %s: grants", name);
		return bfctl_fail_err(conn, what, ret);
	}
	if (r == KB_GID_NONE && w == KB_GID_NONE)
		return BFCTL_OK;
	fprintf(f, "grant %s", name);
	if (r != KB_GID_NONE)
		fprintf(f, " --readers %s", bfctl_group_text(r, rb, sizeof(rb)));
	if (w != KB_GID_NONE)
		fprintf(f, " --writers %s", bfctl_group_text(w, wb, sizeof(wb)));
	fprintf(f, "\n");
	return BFCTL_OK;
}
