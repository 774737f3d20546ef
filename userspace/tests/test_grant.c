// SPDX-License-Identifier: GPL-2.0
/*
 * Grants in bfctl (userspace/bfctl/grant.c): groups by name or number, the
 * save file's grant lines as restore reads them (every group resolved
 * before anything changes; a grant follows its filter's definition), and
 * the request a loaded filter's grant becomes.  Linked with grant.c, the
 * option parser (kargs.c) and the line reader (savefmt_lines.c); the
 * kernel and the spec options are stubbed.
 */
#include <grp.h>
#include <stdio.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "savefmt.h"

bool bfctl_json, bfctl_quiet;

void bfctl_spec_opts_init(struct bfctl_spec_opts *s)
{
	memset(s, 0, sizeof(*s));
}

int bfctl_spec_opt(struct bfctl_spec_opts *s, const char *name,
		   const char *v, char *err, size_t len)
{
	snprintf(err, len, "no spec options here");
	return -1;
}

int bfctl_parse_max_fpr(const char *s, u32 *ppb)
{
	return -1;
}

int bfctl_shape_opt(struct bfctl_shape_opts *o, const char *name,
		    const char *val, char *msg, size_t len)
{
	snprintf(msg, len, "no shape options here");
	return -1;
}

int bfctl_shape_fill(const struct bfctl_kargs *a, struct kb_ioc_create *c)
{
	return BFCTL_OK;
}

bool bfctl_shape_matches(const struct kb_ioc_create *c,
			 const struct kb_ioc_info *info)
{
	return true;
}

bool bfctl_shape_size_matches(const struct kb_ioc_create *c,
			      const struct kb_ioc_info *info)
{
	return true;
}

int bfctl_fail_err(struct kbconn *c, const char *what, int err)
{
	return BFCTL_ERR;
}

int kbconn_no_nl(struct kbconn *c)
{
	return -EOPNOTSUPP;
}

/* the last grant request */
static struct {
	int calls;
	char name[KB_NAME_MAX];
	bool r, w;
	u32 readers, writers;
} sent;

int kbnl_grant(struct kbnl *nl, const char *name, const u32 *readers,
	       const u32 *writers, char *ext, size_t extlen)
{
	sent.calls++;
	snprintf(sent.name, sizeof(sent.name), "%s", name);
	sent.r = readers;
	sent.w = writers;
	sent.readers = readers ? *readers : 0;
	sent.writers = writers ? *writers : 0;
	return 0;
}

TEST(group_parse)
{
	char err[160];
	u32 gid = 7;

	ASSERT_EQ(0, bfctl_group_parse("0", &gid, err, sizeof(err)));
	ASSERT_EQ(0, gid);
	ASSERT_EQ(0, bfctl_group_parse("4242", &gid, err, sizeof(err)));
	ASSERT_EQ(4242, gid);
	ASSERT_EQ(0, bfctl_group_parse("4294967294", &gid, err, sizeof(err)));
	ASSERT_EQ(4294967294u, gid);
	/* by name: what this host's group database says */
	ASSERT_EQ(0, bfctl_group_parse("root", &gid, err, sizeof(err)));
	ASSERT_EQ(0, gid);
	/* KB_GID_NONE is "no group", not a group to grant */
	ASSERT_EQ(-EINVAL, bfctl_group_parse("4294967295", &gid, err, sizeof(err)));
	ASSERT_NE(NULL, strstr(err, "bad group number '4294967295'"));
	ASSERT_EQ(-EINVAL, bfctl_group_parse("12x", &gid, err, sizeof(err)));
	ASSERT_EQ(-EINVAL, bfctl_group_parse("99999999999999999999", &gid, err, sizeof(err)));
	ASSERT_EQ(-EINVAL, bfctl_group_parse("", &gid, err, sizeof(err)));
	ASSERT_EQ(-ENOENT, bfctl_group_parse("kb-no-such-group", &gid, err, sizeof(err)));
	ASSERT_NE(NULL, strstr(err, "no group 'kb-no-such-group'"));
}

TEST(group_text)
{
	char buf[64];

	ASSERT_STREQ("root", bfctl_group_text(0, buf, sizeof(buf)));
	if (getgrgid(4242))
		SKIP(return, "gid 4242 has a name on this host");
	ASSERT_STREQ("4242", bfctl_group_text(4242, buf, sizeof(buf)));
}

/* a restore that defined filter f (how), reading line */
static int line(struct bfctl_restore *rs, enum rf_how how, const char *text)
{
	static struct rfilter v[1];
	char buf[256];

	memset(rs, 0, sizeof(*rs));
	memset(v, 0, sizeof(v));
	strcpy(v[0].name, "f");
	v[0].how = how;
	rs->v = v;
	rs->n = 1;
	rs->r.line = 9;
	snprintf(buf, sizeof(buf), "%s", text);
	return bfctl_restore_grant_line(rs, buf);
}

TEST(grant_lines)
{
	struct bfctl_restore rs;
	struct bfctl_grant *g;

	ASSERT_EQ(0, line(&rs, RF_IMAGE, "grant f --readers root --writers 4242"));
	g = &rs.v[0].grant;
	ASSERT_TRUE(g->set_readers && g->set_writers);
	ASSERT_EQ(0, g->readers);
	ASSERT_EQ(4242, g->writers);
	/* one group only: the other is left as the filter has it */
	ASSERT_EQ(0, line(&rs, RF_CREATE, "grant\tf  --writers root"));
	ASSERT_FALSE(rs.v[0].grant.set_readers);
	ASSERT_TRUE(rs.v[0].grant.set_writers);
	/* a kernel filter the file adds to, or keeps (-exist) */
	ASSERT_EQ(0, line(&rs, RF_LIVE, "grant f --readers 5"));
	ASSERT_EQ(5, rs.v[0].grant.readers);
	ASSERT_EQ(0, line(&rs, RF_CREATE, "grant f --none"));
	ASSERT_EQ(KB_GID_NONE, rs.v[0].grant.readers);
	ASSERT_EQ(KB_GID_NONE, rs.v[0].grant.writers);
	ASSERT_TRUE(rs.v[0].grant.set_readers && rs.v[0].grant.set_writers);
}

TEST(bad_grant_lines)
{
	static const struct {
		enum rf_how how;
		const char *text, *why;
	} bad[] = {
		{ RF_IMAGE, "grant f --readers kb-no-such-group",
		  "line 9: grant f: no group 'kb-no-such-group'" },
		{ RF_IMAGE, "grant f --readers root --writers kb-no-such-group",
		  "no group 'kb-no-such-group'" },
		{ RF_IMAGE, "grant g --readers root",
		  "line 9: grant g: the filter is not defined above" },
		{ RF_IMAGE, "grant f", "give --readers GROUP" },
		{ RF_IMAGE, "grant f --none --writers root", "--none clears both" },
		{ RF_IMAGE, "grant f --readers", "incomplete option" },
		{ RF_IMAGE, "grant f --items 3", "not allowed here" },
		{ RF_IMAGE, "grant f g --readers root", "usage: bfctl grant NAME" },
		{ RF_IMAGE, "grant f/x --readers root", "bad filter name" },
		{ RF_IMAGE, "grant f --readers 4294967295", "bad group number" },
		/* 15 words: the line splitter's bound (bfctl_lines_words) */
		{ RF_IMAGE, "grant f --readers root x x x x x x x x x x x",
		  "line 9: too many words" },
	};
	struct bfctl_restore rs;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, line(&rs, bad[i].how, bad[i].text));
		EXPECT_EQ(BFCTL_USAGE, rs.r.code);
		EXPECT_NE(NULL, strstr(rs.r.err, bad[i].why))
			TH_LOG("%s: %s", bad[i].text, rs.r.err);
		/* nothing recorded for the filter */
		EXPECT_FALSE(rs.v[0].grant.set_readers || rs.v[0].grant.set_writers);
	}
}

TEST(grant_request)
{
	struct kbconn conn = { .dev = -1, .nl = (struct kbnl *)&conn };
	struct rfilter rf;

	memset(&rf, 0, sizeof(rf));
	strcpy(rf.name, "f");
	sent.calls = 0;
	/* no grant line: no request */
	ASSERT_EQ(0, bfctl_restore_grant(&conn, "restore", &rf));
	ASSERT_EQ(0, sent.calls);
	rf.grant.set_writers = true;
	rf.grant.writers = KB_GID_NONE;
	ASSERT_EQ(0, bfctl_restore_grant(&conn, "restore", &rf));
	ASSERT_EQ(1, sent.calls);
	ASSERT_STREQ("f", sent.name);
	ASSERT_FALSE(sent.r);
	ASSERT_TRUE(sent.w);
	ASSERT_EQ(KB_GID_NONE, sent.writers);
	/* without the netlink family: an error, not silence */
	conn.nl = NULL;
	ASSERT_EQ(BFCTL_ERR, bfctl_restore_grant(&conn, "restore", &rf));
	ASSERT_EQ(1, sent.calls);
}

TEST_HARNESS_MAIN
