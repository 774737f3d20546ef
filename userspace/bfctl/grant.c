// SPDX-License-Identifier: GPL-2.0
/*
 * Per-filter grants (uapi "Privileges"): the readers and writers groups
 * of `bfctl create --readers G --writers G`, `bfctl grant` and the save
 * file's grant lines.  Groups travel as names (a save restores on another
 * host by name: gids differ between hosts); the kernel keeps gids.  No
 * kernel access but bfctl_restore_grant(), so the fuzz target and the
 * unit tests link it; the verb itself is in grant_verb.c.
 *
 *   grant NAME [--readers GROUP] [--writers GROUP] [--none]
 *
 * in a restore or sync file follows the block, create line or add lines
 * of filter NAME and sets the groups it names after the filter loaded
 * (--none: both cleared); a filter without a grant line keeps the groups
 * it has.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"
#include "savefmt.h"

int bfctl_group_parse(const char *s, u32 *gid, char *err, size_t errlen)
{
	struct group *gr;
	char *end;
	unsigned long long v;

	if (!s || !*s) {
		snprintf(err, errlen, "an empty group name");
		return -EINVAL;
	}
	if (*s >= '0' && *s <= '9') {
		errno = 0;
		v = strtoull(s, &end, 10);
		if (errno || *end || v >= KB_GID_NONE) {
			snprintf(err, errlen, "bad group number '%.40s'", s);
			return -EINVAL;
		}
		*gid = (u32)v;
		return 0;
	}
	errno = 0;
	gr = getgrnam(s);
	if (!gr) {
		snprintf(err, errlen, "no group '%.40s' on this host%s%s", s,
			 errno ? ": " : "", errno ? strerror(errno) : "");
		return -ENOENT;
	}
	*gid = (u32)gr->gr_gid;
	return 0;
}

const char *bfctl_group_text(u32 gid, char *buf, size_t len)
{
	struct group *gr = getgrgid((gid_t)gid);

	/* a name that would not read back as itself: the number */
	if (gr && gr->gr_name[0] && strlen(gr->gr_name) < len &&
	    !strpbrk(gr->gr_name, " \t\n"))
		snprintf(buf, len, "%s", gr->gr_name);
	else
		snprintf(buf, len, "%u", gid);
	return buf;
}

int bfctl_grant_from_args(const struct bfctl_kargs *a, struct bfctl_grant *g,
			  char *err, size_t errlen)
{
	int ret = 0;

	memset(g, 0, sizeof(*g));
	if (a->grant_none && (a->readers || a->writers)) {
		snprintf(err, errlen,
			 "--none clears both groups: not with --readers or --writers");
		return -EINVAL;
	}
	if (a->grant_none) {
		g->set_readers = g->set_writers = true;
		g->readers = g->writers = KB_GID_NONE;
		return 0;
	}
	if (a->readers) {
		g->set_readers = true;
		ret = bfctl_group_parse(a->readers, &g->readers, err, errlen);
	}
	if (!ret && a->writers) {
		g->set_writers = true;
		ret = bfctl_group_parse(a->writers, &g->writers, err, errlen);
	}
	return ret;
}

int bfctl_restore_grant_line(struct bfctl_restore *rs, char *s)
{
	char *argv[16], msg[200] = "";
	struct bfctl_grant g;
	struct bfctl_kargs a;
	int argc, ret;
	size_t i;

	argc = bfctl_lines_words(&rs->r, s, argv, (int)ARRAY_SIZE(argv));
	if (argc < 0)
		return argc;
	bfctl_usage_capture(msg, sizeof(msg));
	ret = bfctl_kargs_parse(argc, argv, &a, KO_GRANT);
	if (!ret)
		ret = bfctl_want_pos(&a, 1, 1,
				     "grant NAME [--readers GROUP] [--writers GROUP] | --none");
	if (!ret)
		ret = bfctl_check_name(&a, a.pos[0]);
	bfctl_usage_capture(NULL, 0);
	if (ret)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE, "%s", msg);
	if (!a.readers && !a.writers && !a.grant_none)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
					"grant %s: give --readers GROUP, --writers GROUP or --none",
					a.pos[0]);
	/* every group resolved before anything changes */
	if (bfctl_grant_from_args(&a, &g, msg, sizeof(msg)))
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE, "grant %s: %s",
					a.pos[0], msg);
	for (i = rs->n; i-- > 0;)
		if (!strcmp(rs->v[i].name, a.pos[0]))
			break;
	if (i == (size_t)-1)
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
					"grant %s: the filter is not defined above (a grant line follows its filter block, create line or add lines)",
					a.pos[0]);
	if (g.set_readers) {
		rs->v[i].grant.set_readers = true;
		rs->v[i].grant.readers = g.readers;
	}
	if (g.set_writers) {
		rs->v[i].grant.set_writers = true;
		rs->v[i].grant.writers = g.writers;
	}
	return 0;
}

int bfctl_restore_grant(struct kbconn *conn, const char *verb,
			struct rfilter *rf)
{
	const struct bfctl_grant *g = &rf->grant;
	char what[96];
	int ret;

	if (!g->set_readers && !g->set_writers)
		return 0;
	snprintf(what, sizeof(what), "%s %s (line %llu): grant", verb,
		 rf->name, (unsigned long long)rf->line);
	if (!conn->nl)
		return bfctl_fail_err(conn, what, kbconn_no_nl(conn));
	ret = kbnl_grant(conn->nl, rf->name,
			 g->set_readers ? &g->readers : NULL,
			 g->set_writers ? &g->writers : NULL, conn->extack,
			 sizeof(conn->extack));
	return ret ? bfctl_fail_err(conn, what, ret) : 0;
}
