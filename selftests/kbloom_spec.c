// SPDX-License-Identifier: GPL-2.0
/*
 * The shape of requests.  Create and rebuild requests refuse the sizing
 * fields of another mode and seeds the hash does not use (EINVAL, an
 * extack naming the field on netlink) instead of ignoring them:
 * KB_IOC_TXN_BEGIN and KB_CMD_CREATE (kb_params_from_spec(), one check for
 * both transports).  The ioctl numbers are fixed values that do not follow
 * the structs' sizes.
 */
#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

#define SP_NAME	"sp.f"

enum sp_field { SP_FPR, SP_BPK, SP_M, SP_K, SP_SEED0, SP_SEED1 };

static const struct sp_case {
	__u32 kind, sizing;
	enum sp_field extra;
	int attr;		/* the attribute the extack must name */
	const char *word;	/* and its message */
} sp_cases[] = {
	{ KB_KIND_BLOCKED, KB_SIZING_FPR, SP_M, KB_A_M, "M is only" },
	{ KB_KIND_BLOCKED, KB_SIZING_FPR, SP_K, KB_A_K, "K is only" },
	{ KB_KIND_BLOCKED, KB_SIZING_FPR, SP_BPK, KB_A_BITS_PER_KEY,
	  "BITS_PER_KEY is only" },
	{ KB_KIND_COUNTING, KB_SIZING_BPK, SP_FPR, KB_A_FPR_PPB,
	  "FPR_PPB is only" },
	{ KB_KIND_COUNTING, KB_SIZING_BPK, SP_M, KB_A_M, "M is only" },
	{ KB_KIND_COUNTING, KB_SIZING_BPK, SP_K, KB_A_K, "K is only" },
	{ KB_KIND_BLOCKED, KB_SIZING_MK, SP_FPR, KB_A_FPR_PPB,
	  "FPR_PPB is only" },
	{ KB_KIND_BLOCKED, KB_SIZING_MK, SP_BPK, KB_A_BITS_PER_KEY,
	  "BITS_PER_KEY is only" },
	/* a (zero) seed for the leveldb hash, seed[1] for xxh64 */
	{ KB_KIND_CLASSIC, KB_SIZING_FPR, SP_SEED0, KB_A_SEED, "leveldb" },
	{ KB_KIND_CLASSIC, KB_SIZING_MK, SP_SEED0, KB_A_SEED, "leveldb" },
	{ KB_KIND_BLOCKED, KB_SIZING_BPK, SP_SEED1, KB_A_SEED, "xxh64" },
};

/* a valid request of that kind and sizing mode */
static struct kb_ioc_create sp_valid(__u32 kind, __u32 sizing)
{
	struct kb_ioc_create c = kbt_spec(SP_NAME, kind, KB_KEY_BYTES, 100,
					  0);

	c.sizing = sizing;
	if (sizing == KB_SIZING_FPR)
		c.fpr_ppb = 10000000;
	else if (sizing == KB_SIZING_BPK)
		c.bits_per_key = 10;
	else if (kind == KB_KIND_COUNTING)
		c.m = 1280, c.k = 3;
	else
		c.m = 1024, c.k = 3;
	return c;
}

static void sp_add(struct kb_ioc_create *c, enum sp_field f)
{
	switch (f) {
	case SP_FPR:
		c->fpr_ppb = 1000000;
		break;
	case SP_BPK:
		c->bits_per_key = 12;
		break;
	case SP_M:
		c->m = 2048;
		break;
	case SP_K:
		c->k = 4;
		break;
	case SP_SEED0:
		c->flags |= KB_CREATE_F_SEED;	/* all zero: still given */
		break;
	case SP_SEED1:
		c->flags |= KB_CREATE_F_SEED;
		c->seed[0] = 1;
		c->seed[1] = 2;
		break;
	}
}

TEST(ioctl_begin_refuses_unused_fields)
{
	struct kb_ioc_create c;
	struct kb_ioc_info info;
	unsigned int i;
	int fd = kbt_open();

	ASSERT_LE(0, fd);
	kbt_destroy(fd, SP_NAME);
	for (i = 0; i < sizeof(sp_cases) / sizeof(sp_cases[0]); i++) {
		const struct sp_case *t = &sp_cases[i];

		/* the request without the extra field is good */
		c = sp_valid(t->kind, t->sizing);
		ASSERT_EQ(0, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c))
			TH_LOG("case %u", i);
		ASSERT_EQ(0, kbt_txn(fd, KB_IOC_TXN_ABORT));
		sp_add(&c, t->extra);
		EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c))
			TH_LOG("case %u", i);
		/* no transaction was begun */
		EXPECT_EQ(-ENOENT, kbt_txn(fd, KB_IOC_TXN_ABORT));
		EXPECT_EQ(-ENOENT, kbt_info(fd, SP_NAME, &info));
	}
	/* a rebuild of an existing filter likewise, and it stays as it was */
	c = sp_valid(KB_KIND_BLOCKED, KB_SIZING_FPR);
	ASSERT_EQ(0, kbt_create_spec(fd, &c));
	c.m = 4096;
	EXPECT_EQ(-EINVAL, kbt_ioc(fd, KB_IOC_TXN_BEGIN, &c));
	EXPECT_EQ(-ENOENT, kbt_txn(fd, KB_IOC_TXN_ABORT));
	EXPECT_EQ(0, kbt_destroy(fd, SP_NAME));
	close(fd);
}

static struct kbtn_req req;

/* the request of c as netlink attributes; *bad = the extra field's */
static void sp_nl_req(struct kbtn *n, const struct kb_ioc_create *c,
		      enum sp_field extra, int with_extra, struct nlattr **bad)
{
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, SP_NAME);
	kbtn_put_u32(&req, KB_A_KIND, c->kind);
	kbtn_put_u64(&req, KB_A_ITEMS, c->items);
	if (c->sizing == KB_SIZING_MK) {
		kbtn_put_u64(&req, KB_A_M, c->m);
		kbtn_put_u32(&req, KB_A_K, c->k);
	} else if (c->sizing == KB_SIZING_BPK) {
		kbtn_put_u32(&req, KB_A_BITS_PER_KEY, c->bits_per_key);
	} else {
		kbtn_put_u32(&req, KB_A_FPR_PPB, c->fpr_ppb);
	}
	*bad = NULL;
	if (!with_extra)
		return;
	switch (extra) {
	case SP_FPR:
		*bad = kbtn_put_u32(&req, KB_A_FPR_PPB, 1000000);
		break;
	case SP_BPK:
		*bad = kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 12);
		break;
	case SP_M:
		*bad = kbtn_put_u64(&req, KB_A_M, 2048);
		break;
	case SP_K:
		*bad = kbtn_put_u32(&req, KB_A_K, 4);
		break;
	case SP_SEED0:
		*bad = kbtn_put(&req, KB_A_SEED, (__u64[2]){ 0, 0 }, 16);
		break;
	case SP_SEED1:
		*bad = kbtn_put(&req, KB_A_SEED, (__u64[2]){ 1, 2 }, 16);
		break;
	}
}

TEST(netlink_create_refuses_unused_fields)
{
	struct kbtn *n = kbtn_open();
	struct nlattr *bad;
	unsigned int i;

	ASSERT_NE(NULL, n);
	kbtn_name_cmd(n, KB_CMD_DESTROY, SP_NAME);
	for (i = 0; i < sizeof(sp_cases) / sizeof(sp_cases[0]); i++) {
		const struct sp_case *t = &sp_cases[i];
		struct kb_ioc_create c = sp_valid(t->kind, t->sizing);

		/*
		 * The first of M, BITS_PER_KEY, FPR_PPB picks the mode: an
		 * M given to a BPK request would make it an M request.
		 */
		if ((t->sizing == KB_SIZING_FPR || t->sizing == KB_SIZING_BPK) &&
		    t->extra == SP_M)
			continue;
		if (t->sizing == KB_SIZING_FPR && t->extra == SP_BPK)
			continue;
		sp_nl_req(n, &c, t->extra, 0, &bad);
		ASSERT_EQ(0, kbtn_do(n, &req)) TH_LOG("case %u: %s", i, n->msg);
		ASSERT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, SP_NAME));
		sp_nl_req(n, &c, t->extra, 1, &bad);
		EXPECT_EQ(-EINVAL, kbtn_do(n, &req)) TH_LOG("case %u", i);
		EXPECT_EQ(kbtn_offs(&req, bad), n->offs) TH_LOG("case %u", i);
		EXPECT_NE(NULL, strstr(n->msg, t->word))
			TH_LOG("case %u: '%s'", i, n->msg);
		EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_GET, SP_NAME));
	}
	/* the mode-picking cases skipped above, blamed on the other field */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, SP_NAME);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	kbtn_put_u64(&req, KB_A_M, 2048);
	kbtn_put_u32(&req, KB_A_K, 3);
	kbtn_put_u64(&req, KB_A_ITEMS, 100);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_NE(NULL, strstr(n->msg, "BITS_PER_KEY is only"));
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_GET, SP_NAME));
	kbtn_close(n);
}

/* the numbers of uapi section 3, as _IOC(dir, 0xBF, nr, VER0 size) */
static const struct { unsigned long cmd; unsigned int want; } sp_nrs[] = {
	{ KB_IOC_ADD, 0xc078bf01U },
	{ KB_IOC_TEST, 0xc078bf02U },
	{ KB_IOC_DEL, 0xc078bf03U },
	{ KB_IOC_TEST_ADD, 0xc078bf04U },
	{ KB_IOC_UPLOAD, 0xc050bf05U },
	{ KB_IOC_EXPORT, 0xc050bf06U },
	{ KB_IOC_TXN_BEGIN, 0x4078bf07U },
	{ KB_IOC_TXN_COMMIT, 0x4008bf08U },
	{ KB_IOC_TXN_ABORT, 0x4008bf09U },
	{ KB_IOC_TXN_WRITE, 0x4060bf0aU },
	{ KB_IOC_OPEN, 0xc048bf0bU },
	{ KB_IOC_MAP_INFO, 0xc0b8bf0cU },
	{ KB_IOC_MERGE, 0xc060bf0dU },
	{ KB_IOC_TXN_COMMIT_GEN, 0xc018bf0eU },
};
_Static_assert(sizeof(sp_nrs) / sizeof(sp_nrs[0]) == KB_IOC_NR_MAX,
	       "an ioctl without its fixed number here");
_Static_assert(KB_IOC_ADD == 0xc078bf01U, "KB_IOC_ADD moved");

TEST(ioctl_numbers_are_fixed)
{
	struct {
		struct kb_ioc_keys k;
		__u64 tail[4];
	} big;
	unsigned int i;
	int fd = kbt_open();

	for (i = 0; i < KB_IOC_NR_MAX; i++) {
		EXPECT_EQ(sp_nrs[i].want, sp_nrs[i].cmd);
		EXPECT_EQ(i + 1, _IOC_NR(sp_nrs[i].cmd));
	}
	/* a bigger struct keeps the number: zero tail fine, else E2BIG */
	ASSERT_LE(0, fd);
	kbt_destroy(fd, SP_NAME);
	ASSERT_EQ(0, kbt_create(fd, SP_NAME, KB_KIND_BLOCKED, KB_KEY_BYTES,
				100));
	memset(&big, 0, sizeof(big));
	big.k.size = sizeof(big);
	kbt_name(big.k.name, SP_NAME);
	big.k.key_size = 1;
	big.k.keys = (uintptr_t)"a";
	big.k.keys_len = 1;
	big.k.count = 1;
	EXPECT_EQ(0, kbt_ioc(fd, KB_IOC_TEST_ADD, &big));
	EXPECT_EQ(1, big.k.processed);
	EXPECT_EQ(1, big.k.hits);
	big.tail[3] = 1;
	EXPECT_EQ(-E2BIG, kbt_ioc(fd, KB_IOC_TEST_ADD, &big));
	EXPECT_EQ(0, kbt_destroy(fd, SP_NAME));
	close(fd);
}

TEST_HARNESS_MAIN
