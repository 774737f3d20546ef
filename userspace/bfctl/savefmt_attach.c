// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl save / restore: the attachment lines.  A save ends with what is
 * attached in bfctl's network namespace, after the filters it uses:
 *
 *   attach xdp DEV FILTER mode=native|generic|tc dir=src|dst
 *              [prio=N|alone] [force]
 *   attach lsm FILTER mode=path|content hooks=exec|open|exec,open
 *              enforce|audit
 *   list X		(one per line: what attach's -file listed, as the
 *   ...		 programs hold it: a real path, or sha256:HEX)
 *   end
 *
 * (the lsm line is one line).  restore attaches them after loading the
 * filters, through the attach verbs (bfctl xdp attach, bfctl lsm
 * attach), each on its own: one that fails is reported and the others
 * still attach (restore_attach.c).  An LSM attachment carries its list,
 * not the name of the file it was read from: that file may have changed
 * or gone by the next boot, and what is restored is what was enforced.
 * Words are checked here, the rest (the filter's key type, the device,
 * the paths) by the verbs when they attach.
 *
 * A save without attachments has none of these lines, so older bfctl
 * versions restore it.  One with them makes an older bfctl fail ("line N:
 * expected 'filter NAME ...'", exit 2, nothing changed) rather than boot
 * without the blocklist or the LSM filter the save recorded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"
#include "lsm.h"
#include "savefmt.h"

/* the list an attachment carries, at most: the largest attach allows */
#define RA_LIST_MAX	(64u << 20)
#define RA_HEX_LEN	64		/* a SHA-256 digest in hex */

static int ra_fail(char *err, size_t len, const char *fmt, const char *a)
{
	snprintf(err, len, fmt, a);
	return -EINVAL;
}

static const char *ra_word(const char *v, const char *const *ok)
{
	for (; *ok; ok++)
		if (!strcmp(v, *ok))
			return *ok;
	return NULL;
}

int bfctl_attach_parse(char *s, struct rattach *a, char *err, size_t errlen)
{
	static const char *const modes[] = { "native", "generic", "tc", NULL };
	static const char *const dirs[] = { "src", "dst", NULL };
	char *w[12], *save = NULL, *v;
	const char *name;
	int n = 0, i;

	memset(a, 0, sizeof(*a));
	a->prio = -1;
	for (w[0] = strtok_r(s, " \t", &save); w[n];
	     w[n] = strtok_r(NULL, " \t", &save))
		if (++n == (int)ARRAY_SIZE(w))
			return ra_fail(err, errlen, "%s", "attach: too many words");
	if (n < 3 || (strcmp(w[1], "xdp") && strcmp(w[1], "lsm")))
		return ra_fail(err, errlen, "%s",
			       "expected 'attach xdp DEV FILTER ...' or 'attach lsm FILTER ...'");
	i = 2;
	if (!strcmp(w[1], "xdp")) {
		a->kind = RA_XDP;
		if (n < 4)
			return ra_fail(err, errlen, "%s",
				       "usage: attach xdp DEV FILTER mode=M dir=D [prio=N|alone] [force]");
		if (strlen(w[2]) >= sizeof(a->dev) || strchr(w[2], '/'))
			return ra_fail(err, errlen, "bad device name '%.40s'", w[2]);
		strcpy(a->dev, w[2]);
		i = 3;
	} else {
		a->kind = RA_LSM_PATH;
	}
	name = w[i++];
	if (!kb_name_valid(name, (u32)strlen(name)))
		return ra_fail(err, errlen, "bad filter name '%.40s'", name);
	strcpy(a->filter, name);
	for (; i < n; i++) {
		v = strchr(w[i], '=');
		if (v)
			*v++ = 0;
		if (a->kind == RA_XDP && v && !strcmp(w[i], "mode")) {
			a->mode = ra_word(v, modes);
			if (!a->mode)
				return ra_fail(err, errlen,
					       "bad mode '%.20s' (native, generic or tc)", v);
		} else if (a->kind == RA_XDP && v && !strcmp(w[i], "dir")) {
			a->dir = ra_word(v, dirs);
			if (!a->dir)
				return ra_fail(err, errlen,
					       "bad dir '%.20s' (src or dst)", v);
		} else if (a->kind == RA_XDP && !v && !strcmp(w[i], "force")) {
			a->force = true;
		} else if (a->kind == RA_XDP && !v && !strcmp(w[i], "alone")) {
			a->alone = true;
		} else if (a->kind == RA_XDP && v && !strcmp(w[i], "prio")) {
			char *end;

			errno = 0;
			a->prio = strtol(v, &end, 10);
			if (errno || end == v || *end || a->prio < 0 ||
			    a->prio > BFCTL_XDP_PRIO_MAX)
				return ra_fail(err, errlen,
					       "bad prio '%.20s' (0..2147483647)", v);
		} else if (a->kind != RA_XDP && v && !strcmp(w[i], "mode")) {
			if (!strcmp(v, "content"))
				a->kind = RA_LSM_CONTENT;
			else if (strcmp(v, "path"))
				return ra_fail(err, errlen,
					       "bad mode '%.20s' (path or content)", v);
		} else if (a->kind != RA_XDP && v && !strcmp(w[i], "hooks")) {
			a->hooks = !strcmp(v, "exec") ? LSM_HOOK_EXEC :
				   !strcmp(v, "open") ? LSM_HOOK_OPEN :
				   !strcmp(v, "exec,open") ?
				   LSM_HOOK_EXEC | LSM_HOOK_OPEN : 0;
			if (!a->hooks)
				return ra_fail(err, errlen,
					       "bad hooks '%.20s' (exec, open or exec,open)", v);
		} else if (a->kind != RA_XDP && !v &&
			   (!strcmp(w[i], "audit") || !strcmp(w[i], "enforce"))) {
			a->audit = w[i][0] == 'a';
		} else {
			/* a newer bfctl's option: refused, not half applied */
			return ra_fail(err, errlen, "unknown attach option '%.40s'",
				       w[i]);
		}
	}
	if (a->kind == RA_XDP && (!a->mode || !a->dir))
		return ra_fail(err, errlen, "%s",
			       "attach xdp needs mode= and dir=");
	if (a->kind == RA_XDP && a->alone && a->prio >= 0)
		return ra_fail(err, errlen, "%s",
			       "attach xdp: prio= (in the dispatcher) or alone, not both");
	if (a->kind != RA_XDP && !a->hooks)
		return ra_fail(err, errlen, "%s", "attach lsm needs hooks=");
	return 0;
}

int bfctl_attach_list_add(struct rattach *a, const char *x, char *err,
			  size_t errlen)
{
	size_t n = strlen(x), i;
	char *nl;

	if (a->kind == RA_LSM_PATH && x[0] != '/')
		return ra_fail(err, errlen, "list: '%.64s' is not an absolute path",
			       x);
	if (a->kind == RA_LSM_CONTENT) {
		if (strncmp(x, "sha256:", 7) || n != 7 + RA_HEX_LEN)
			return ra_fail(err, errlen,
				       "list: '%.80s' is not sha256: and 64 hex digits", x);
		for (i = 7; i < n; i++)
			if (kbu_hexval(x[i]) < 0)
				return ra_fail(err, errlen,
					       "list: '%.80s' is not sha256: and 64 hex digits", x);
	}
	if (a->list_len + n + 1 > RA_LIST_MAX)
		return ra_fail(err, errlen, "%s", "list: too long");
	nl = realloc(a->list, a->list_len + n + 1);
	if (!nl) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	a->list = nl;
	memcpy(a->list + a->list_len, x, n);
	a->list_len += n;
	a->list[a->list_len++] = '\n';
	a->list_n++;
	return 0;
}

void bfctl_attach_free(struct rattach *a)
{
	free(a->list);
	a->list = NULL;
}

int bfctl_restore_only_parse(struct bfctl_restore *rs, const char *v)
{
	char buf[64], *w, *save = NULL;
	unsigned int keep = 0;

	if (strlen(v) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, v);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "filters"))
			keep |= RS_SKIP_FILTERS;
		else if (!strcmp(w, "lsm"))
			keep |= RS_SKIP_LSM;
		else if (!strcmp(w, "xdp"))
			keep |= RS_SKIP_XDP;
		else
			return -EINVAL;
	}
	if (!keep)
		return -EINVAL;
	rs->skip = (RS_SKIP_FILTERS | RS_SKIP_LSM | RS_SKIP_XDP) & ~keep;
	return 0;
}

/* an LSM attachment's list, up to its "end" */
static int attach_list(struct bfctl_restore *rs, struct rattach *a)
{
	char why[200], *s;

	rs->r.in_block = true;
	while ((s = bfctl_lines_next(&rs->r))) {
		if (!strcmp(s, "end")) {
			rs->r.in_block = false;
			if (!a->list_n)
				return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
							"attach lsm %s lists nothing",
							a->filter);
			return 0;
		}
		if (strncmp(s, "list ", 5)) {
			bfctl_lines_fail(&rs->r, BFCTL_USAGE,
					 "attach lsm %s: expected 'list X' or 'end'",
					 a->filter);
			/* (--on-bad-payload reads on from it) */
			if (bfctl_lines_begins(s))
				bfctl_lines_unread(&rs->r);
			rs->r.in_block = false;
			return -EINVAL;
		}
		if (bfctl_attach_list_add(a, s + 5, why, sizeof(why)))
			return bfctl_lines_fail(&rs->r, BFCTL_USAGE, "%s", why);
	}
	if (!rs->r.code)
		bfctl_lines_fail(&rs->r, BFCTL_USAGE,
				 "attach lsm %s: no 'end' (cut short?)", a->filter);
	rs->r.in_block = false;
	return -EINVAL;
}

int bfctl_restore_attach_line(struct bfctl_restore *rs, char *s)
{
	struct rattach a, *na;
	char why[200];
	unsigned int part;
	size_t i;
	int ret;

	if (bfctl_attach_parse(s, &a, why, sizeof(why))) {
		bfctl_attach_free(&a);
		return bfctl_lines_fail(&rs->r, BFCTL_USAGE, "%s", why);
	}
	a.line = rs->r.line;
	ret = a.kind == RA_XDP ? 0 : attach_list(rs, &a);
	part = a.kind == RA_XDP ? RS_SKIP_XDP : RS_SKIP_LSM;
	if (ret || (rs->skip & part)) {
		bfctl_attach_free(&a);
		return ret;
	}
	/* one program per device, one per LSM mode: a second is a typo */
	for (i = 0; i < rs->natt; i++)
		if (rs->att[i].kind == a.kind &&
		    (a.kind != RA_XDP || !strcmp(rs->att[i].dev, a.dev))) {
			bfctl_attach_free(&a);
			rs->r.line = a.line;
			return bfctl_lines_fail(&rs->r, BFCTL_USAGE,
						"attached already on line %llu",
						(unsigned long long)rs->att[i].line);
		}
	ret = bfctl_restore_known(rs, a.filter);
	if (ret == -ENOENT && !a.force) {
		bfctl_attach_free(&a);
		rs->r.line = a.line;
		return bfctl_lines_fail(&rs->r, BFCTL_ERR,
					"attach: filter %s does not exist%s",
					a.filter, rs->no_kernel ? " in the file" : "");
	}
	if (ret && ret != -ENOENT) {
		bfctl_attach_free(&a);
		return ret;
	}
	na = realloc(rs->att, (rs->natt + 1) * sizeof(*na));
	if (!na) {
		bfctl_attach_free(&a);
		return bfctl_lines_fail(&rs->r, BFCTL_ERR, "%s",
					strerror(ENOMEM));
	}
	rs->att = na;
	rs->att[rs->natt++] = a;
	return 0;
}
