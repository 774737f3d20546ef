// SPDX-License-Identifier: GPL-2.0
/*
 * The save file's attachment lines (userspace/bfctl/savefmt_attach.c):
 * the words of an attach line, an LSM attachment's list block as restore
 * reads it, and restore --only.  Linked with savefmt_attach.c and the
 * line reader (savefmt_lines.c); the kernel is stubbed: a filter named
 * "missing" does not exist.
 */
#include <stdio.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "lsm.h"
#include "savefmt.h"

int bfctl_restore_known(struct bfctl_restore *rs, const char *name)
{
	return strcmp(name, "missing") ? 0 : -ENOENT;
}

static int parse(const char *line, struct rattach *a, char *err)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", line);
	return bfctl_attach_parse(buf, a, err, 200);
}

TEST(xdp_line)
{
	struct rattach a;
	char err[200];

	ASSERT_EQ(0, parse("attach xdp eth0 bl mode=generic dir=dst", &a, err));
	ASSERT_EQ(RA_XDP, a.kind);
	ASSERT_STREQ("eth0", a.dev);
	ASSERT_STREQ("bl", a.filter);
	ASSERT_STREQ("generic", a.mode);
	ASSERT_STREQ("dst", a.dir);
	ASSERT_FALSE(a.force);
	ASSERT_EQ(0, parse("attach xdp e1 bl dir=src force mode=tc", &a, err));
	ASSERT_TRUE(a.force);
	ASSERT_STREQ("tc", a.mode);
	ASSERT_EQ(-1, a.prio);
	ASSERT_FALSE(a.alone);
	/* the place in libxdp's dispatcher, or none */
	ASSERT_EQ(0, parse("attach xdp e1 bl mode=native dir=src prio=20", &a, err));
	ASSERT_EQ(20, a.prio);
	ASSERT_EQ(0, parse("attach xdp e1 bl mode=generic dir=src alone", &a, err));
	ASSERT_TRUE(a.alone);
	ASSERT_EQ(0, parse("attach xdp e1 bl mode=native dir=dst prio=7 force", &a, err));
	ASSERT_TRUE(a.force);
	ASSERT_EQ(7, a.prio);
	ASSERT_EQ(-EINVAL, parse("attach xdp e1 bl mode=native dir=src prio=20 alone", &a, err));
	ASSERT_NE(NULL, strstr(err, "not both"));
	ASSERT_EQ(-EINVAL, parse("attach xdp e1 bl mode=native dir=src prio=-1", &a, err));
	ASSERT_NE(NULL, strstr(err, "bad prio '-1'"));
	ASSERT_EQ(-EINVAL, parse("attach xdp e1 bl mode=native dir=src prio=2147483648", &a, err));
	ASSERT_EQ(-EINVAL, parse("attach xdp e1 bl mode=native dir=src prio=2x", &a, err));
	/* what attach could not take is refused, not dropped */
	ASSERT_EQ(-EINVAL, parse("attach xdp eth0 bl mode=offload dir=src", &a, err));
	ASSERT_NE(NULL, strstr(err, "bad mode 'offload'"));
	ASSERT_EQ(-EINVAL, parse("attach xdp eth0 bl mode=tc dir=up", &a, err));
	ASSERT_EQ(-EINVAL, parse("attach xdp eth0 bl mode=tc", &a, err));
	ASSERT_NE(NULL, strstr(err, "needs mode= and dir="));
	ASSERT_EQ(-EINVAL, parse("attach xdp eth0 bl mode=tc dir=src replace", &a, err));
	ASSERT_NE(NULL, strstr(err, "unknown attach option 'replace'"));
	ASSERT_EQ(-EINVAL, parse("attach xdp eth0 bl mode=tc dir=src hooks=exec", &a, err));
	ASSERT_EQ(-EINVAL, parse("attach xdp a123456789abcdef bl mode=tc dir=src", &a, err));
	ASSERT_NE(NULL, strstr(err, "bad device name"));
	ASSERT_EQ(-EINVAL, parse("attach xdp eth0 b/l mode=tc dir=src", &a, err));
	ASSERT_EQ(-EINVAL, parse("attach xdp eth0", &a, err));
	ASSERT_EQ(-EINVAL, parse("attach tc eth0 bl", &a, err));
}

TEST(lsm_line_and_list)
{
	struct rattach a;
	char err[200];

	ASSERT_EQ(0, parse("attach lsm p mode=path hooks=exec,open audit", &a, err));
	ASSERT_EQ(RA_LSM_PATH, a.kind);
	ASSERT_EQ(LSM_HOOK_EXEC | LSM_HOOK_OPEN, a.hooks);
	ASSERT_TRUE(a.audit);
	ASSERT_EQ(0, bfctl_attach_list_add(&a, "/usr/bin/true", err, 200));
	ASSERT_EQ(0, bfctl_attach_list_add(&a, "/tmp/a b", err, 200));
	ASSERT_EQ(-EINVAL, bfctl_attach_list_add(&a, "tmp/x", err, 200));
	ASSERT_EQ(2, a.list_n);
	ASSERT_EQ(0, memcmp(a.list, "/usr/bin/true\n/tmp/a b\n", a.list_len));
	bfctl_attach_free(&a);

	ASSERT_EQ(0, parse("attach lsm d hooks=open mode=content enforce", &a, err));
	ASSERT_EQ(RA_LSM_CONTENT, a.kind);
	ASSERT_FALSE(a.audit);
	ASSERT_EQ(0, bfctl_attach_list_add(&a,
		"sha256:0123456789abcdef0123456789abcdef0123456789ABCDEF0123456789abcdef",
		err, 200));
	ASSERT_EQ(-EINVAL, bfctl_attach_list_add(&a,
		"sha256:0123456789abcdef0123456789abcdef0123456789ABCDEF0123456789abcdeg",
		err, 200));
	ASSERT_EQ(-EINVAL, bfctl_attach_list_add(&a, "/usr/bin/true", err, 200));
	bfctl_attach_free(&a);

	ASSERT_EQ(-EINVAL, parse("attach lsm p mode=path", &a, err));
	ASSERT_NE(NULL, strstr(err, "needs hooks="));
	ASSERT_EQ(-EINVAL, parse("attach lsm p mode=inode hooks=exec", &a, err));
	ASSERT_EQ(-EINVAL, parse("attach lsm p hooks=mmap", &a, err));
	ASSERT_EQ(-EINVAL, parse("attach lsm p hooks=exec mode=path force", &a, err));
}

/* a restore's reading of text: rs set up on a file holding it */
static int read_text(struct bfctl_restore *rs, const char *text)
{
	char path[] = "/tmp/kbtest-attach-XXXXXX";
	unsigned int skip = rs->skip;
	int fd = mkstemp(path), ret;
	char *s;

	memset(rs, 0, sizeof(*rs));
	rs->skip = skip;
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -EIO;
	close(fd);
	ret = bfctl_lines_open(&rs->r, path);
	unlink(path);
	if (ret)
		return ret;
	while (!ret && (s = bfctl_lines_next(&rs->r)))
		if (!strncmp(s, "attach ", 7))
			ret = bfctl_restore_attach_line(rs, s);
	bfctl_lines_close(&rs->r);
	return ret ?: (rs->r.code ? -EINVAL : 0);
}

static void free_all(struct bfctl_restore *rs)
{
	size_t i;

	for (i = 0; i < rs->natt; i++)
		bfctl_attach_free(&rs->att[i]);
	free(rs->att);
}

TEST(restore_reads_blocks)
{
	struct bfctl_restore rs = { .skip = 0 };

	ASSERT_EQ(0, read_text(&rs,
		"attach xdp e0 bl mode=tc dir=src\n"
		"attach lsm p mode=path hooks=exec enforce\nlist /a\nlist /b\nend\n"
		"attach xdp e1 missing mode=generic dir=src force\n"));
	ASSERT_EQ(3, rs.natt);
	ASSERT_EQ(1, rs.att[0].line);
	ASSERT_EQ(2, rs.att[1].list_n);
	ASSERT_EQ(6, rs.att[2].line);
	free_all(&rs);

	/* no end: a save cut short; a line of another kind ends it too */
	ASSERT_EQ(-EINVAL, read_text(&rs,
		"attach lsm p mode=path hooks=exec\nlist /a\n"));
	ASSERT_NE(NULL, strstr(rs.r.err, "no 'end'"));
	free_all(&rs);
	ASSERT_EQ(-EINVAL, read_text(&rs,
		"attach lsm p mode=path hooks=exec\nlist /a\nadd p x\nend\n"));
	ASSERT_NE(NULL, strstr(rs.r.err, "line 3: attach lsm p: expected 'list X' or 'end'"));
	free_all(&rs);
	ASSERT_EQ(-EINVAL, read_text(&rs, "attach lsm p mode=path hooks=exec\nend\n"));
	ASSERT_NE(NULL, strstr(rs.r.err, "lists nothing"));
	free_all(&rs);
	/* the filter: in the file or the kernel, unless force */
	ASSERT_EQ(-EINVAL, read_text(&rs, "attach xdp e0 missing mode=tc dir=src\n"));
	ASSERT_EQ(BFCTL_ERR, rs.r.code);
	ASSERT_NE(NULL, strstr(rs.r.err, "filter missing does not exist"));
	free_all(&rs);
	/* one program per device and per LSM mode */
	ASSERT_EQ(-EINVAL, read_text(&rs,
		"attach xdp e0 bl mode=tc dir=src\nattach xdp e0 bl mode=generic dir=src\n"));
	ASSERT_NE(NULL, strstr(rs.r.err, "line 2: attached already on line 1"));
	free_all(&rs);
	ASSERT_EQ(0, read_text(&rs,
		"attach xdp e0 bl mode=tc dir=src\nattach xdp e1 bl mode=tc dir=src\n"
		"attach lsm p mode=path hooks=exec\nlist /a\nend\n"
		"attach lsm p mode=content hooks=exec\nlist sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\nend\n"));
	ASSERT_EQ(4, rs.natt);
	free_all(&rs);
}

TEST(restore_only)
{
	struct bfctl_restore rs;

	memset(&rs, 0, sizeof(rs));
	ASSERT_EQ(0, bfctl_restore_only_parse(&rs, "filters,lsm"));
	ASSERT_EQ(RS_SKIP_XDP, rs.skip);
	ASSERT_EQ(0, bfctl_restore_only_parse(&rs, "xdp"));
	ASSERT_EQ(RS_SKIP_FILTERS | RS_SKIP_LSM, rs.skip);
	ASSERT_EQ(-EINVAL, bfctl_restore_only_parse(&rs, ""));
	ASSERT_EQ(-EINVAL, bfctl_restore_only_parse(&rs, "xdp,tc"));
	/* a part left out is read (checked) but not kept */
	rs.skip = RS_SKIP_LSM;
	ASSERT_EQ(0, bfctl_restore_only_parse(&rs, "filters,xdp"));
	ASSERT_EQ(0, read_text(&rs,
		"attach lsm p mode=path hooks=exec\nlist /a\nend\n"
		"attach xdp e0 bl mode=tc dir=src\n"));
	ASSERT_EQ(1, rs.natt);
	ASSERT_EQ(RA_XDP, rs.att[0].kind);
	free_all(&rs);
}

TEST_HARNESS_MAIN
