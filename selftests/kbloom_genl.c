// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "kbloom" (uapi section 4): every command's
 * success and failure paths, strict policies and their extended ACKs,
 * permissions.  Dumps, exports, events and namespaces: kbloom_genl_dump.c.
 */
#include <sched.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_nl.h"

static struct kbtn_req req;
static char zeros[KB_KEY_MAX_LEN + 1];

/* the filter's KB_CMD_GET reply attributes, in n->reply */
static int get_info(struct kbtn *n, const char *name, struct nlattr **tb)
{
	int ret = kbtn_name_cmd(n, KB_CMD_GET, name);

	if (ret)
		return ret;
	if (!n->reply_len)
		return -EPROTO;
	kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
	return 0;
}

TEST(family)
{
	struct kbtn *n = kbtn_open();

	ASSERT_NE(NULL, n);
	EXPECT_NE(0, n->family);
	EXPECT_NE(0, n->mcgrp);
	kbtn_close(n);
}

TEST(create_get_destroy)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct kb_ioc_info info;
	struct kbtn *n = kbtn_open();
	int fd = kbt_open();

	ASSERT_NE(NULL, n);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kbtn_create(n, "g.one", KB_KIND_BLOCKED, KB_KEY_IPV4,
				10000, 1000000));
	ASSERT_EQ(0, get_info(n, "g.one", tb));
	ASSERT_EQ(0, kbt_info(fd, "g.one", &info));
	ASSERT_NE(NULL, tb[KB_A_NAME]);
	EXPECT_STREQ("g.one", (char *)kbtn_data(tb[KB_A_NAME]));
	EXPECT_EQ(KB_KIND_BLOCKED, kbtn_u32(tb[KB_A_KIND]));
	EXPECT_EQ(KB_KEY_IPV4, kbtn_u32(tb[KB_A_KEY_TYPE]));
	EXPECT_EQ(KB_HASH_XXH64, kbtn_u32(tb[KB_A_HASH]));
	EXPECT_EQ(info.m, kbtn_u64(tb[KB_A_M]));
	EXPECT_EQ(info.k, kbtn_u32(tb[KB_A_K]));
	EXPECT_EQ(10000, kbtn_u64(tb[KB_A_ITEMS]));
	EXPECT_EQ(1000000, kbtn_u32(tb[KB_A_FPR_PPB]));
	EXPECT_EQ(info.bytes, kbtn_u64(tb[KB_A_BYTES]));
	EXPECT_EQ(info.expected_fpr_ppb,
		  kbtn_u32(tb[KB_A_EXPECTED_FPR_PPB]));
	EXPECT_EQ(info.generation, kbtn_u64(tb[KB_A_GENERATION]));
	ASSERT_NE(NULL, tb[KB_A_ID]);
	EXPECT_NE(0, kbtn_u64(tb[KB_A_ID]));
	EXPECT_EQ(info.id, kbtn_u64(tb[KB_A_ID]));
	EXPECT_EQ(0, memcmp(info.seed, kbtn_data(tb[KB_A_SEED]), 16));
	EXPECT_EQ(0, kbtn_u64(tb[KB_A_COUNT]));
	EXPECT_EQ(0, kbtn_u64(tb[KB_A_EST_ITEMS]));
	EXPECT_EQ(0, kbtn_u32(tb[KB_A_FILL_PPM]));
	EXPECT_EQ(0, *(__u8 *)kbtn_data(tb[KB_A_OVER_CAPACITY]));
	EXPECT_EQ(0, kbtn_u32(tb[KB_A_REFS]));
	EXPECT_NE(NULL, tb[KB_A_LOOKUPS]);
	EXPECT_NE(NULL, tb[KB_A_HITS]);
	EXPECT_NE(NULL, tb[KB_A_ADDS]);
	EXPECT_NE(NULL, tb[KB_A_BITS_SET]);
	EXPECT_NE(NULL, tb[KB_A_EST_FPR_PPB]);
	EXPECT_NE(NULL, tb[KB_A_PLEN4]);
	EXPECT_EQ(24, kbtn_len(tb[KB_A_PLEN6]));
	EXPECT_EQ(-EEXIST, kbtn_create(n, "g.one", KB_KIND_BLOCKED,
				      KB_KEY_IPV4, 10, 1000000));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.one"));
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_GET, "g.one"));
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.one"));
	EXPECT_STREQ("kbloom: no such filter", n->msg);
	close(fd);
	kbtn_close(n);
}

TEST(create_sizings_and_seed)
{
	struct nlattr *tb[KB_A_MAX + 1];
	__u64 seed[2] = { 0x1234, 0x5678 };
	struct kbtn *n = kbtn_open();

	ASSERT_NE(NULL, n);
	/* M + K */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.mk");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_COUNTING);
	kbtn_put_u64(&req, KB_A_M, 1280);
	kbtn_put_u32(&req, KB_A_K, 3);
	kbtn_put_u32(&req, KB_A_HASH, KB_HASH_SIPHASH);
	kbtn_put(&req, KB_A_SEED, seed, 16);
	ASSERT_EQ(0, kbtn_do(n, &req));
	ASSERT_EQ(0, get_info(n, "g.mk", tb));
	EXPECT_EQ(1280, kbtn_u64(tb[KB_A_M]));
	EXPECT_EQ(3, kbtn_u32(tb[KB_A_K]));
	EXPECT_EQ(640, kbtn_u64(tb[KB_A_BYTES]));
	EXPECT_EQ(KB_HASH_SIPHASH, kbtn_u32(tb[KB_A_HASH]));
	EXPECT_EQ(0, memcmp(seed, kbtn_data(tb[KB_A_SEED]), 16));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.mk"));
	/* bits per key, classic (leveldb hash by default) */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bpk");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_CLASSIC);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	kbtn_put_u64(&req, KB_A_ITEMS, 100);
	ASSERT_EQ(0, kbtn_do(n, &req));
	ASSERT_EQ(0, get_info(n, "g.bpk", tb));
	EXPECT_EQ(KB_HASH_LEVELDB, kbtn_u32(tb[KB_A_HASH]));
	EXPECT_EQ(1000, kbtn_u64(tb[KB_A_M]));
	EXPECT_EQ(6, kbtn_u32(tb[KB_A_K]));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.bpk"));
	/* gozero: murmur3 by default, any m, k 14; payload ceil(m / 8) */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.gz");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_GOZERO);
	kbtn_put_u64(&req, KB_A_M, 1001);
	kbtn_put_u32(&req, KB_A_K, 14);
	ASSERT_EQ(0, kbtn_do(n, &req));
	ASSERT_EQ(0, get_info(n, "g.gz", tb));
	EXPECT_EQ(KB_HASH_MURMUR3, kbtn_u32(tb[KB_A_HASH]));
	EXPECT_EQ(1001, kbtn_u64(tb[KB_A_M]));
	EXPECT_EQ(126, kbtn_u64(tb[KB_A_BYTES]));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.gz"));
	/* ... and nothing else: another hash, k, a seed, m over 2^32 */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.gz");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_GOZERO);
	kbtn_put_u32(&req, KB_A_HASH, KB_HASH_XXH64);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_NE(NULL, strstr(n->msg, "murmur3"));
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.gz");
	kbtn_put_u32(&req, KB_A_HASH, KB_HASH_MURMUR3);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.gz");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_GOZERO);
	kbtn_put_u64(&req, KB_A_M, 1001);
	kbtn_put_u32(&req, KB_A_K, 7);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.gz");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_GOZERO);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	kbtn_put(&req, KB_A_SEED, seed, 16);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.gz");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_GOZERO);
	kbtn_put_u64(&req, KB_A_M, (1ULL << 32) + 1);
	kbtn_put_u32(&req, KB_A_K, 14);
	EXPECT_NE(0, kbtn_do(n, &req));
	EXPECT_EQ(-ENOENT, get_info(n, "g.gz", tb));
	kbtn_close(n);
}

/* a missing attribute: EINVAL, the missing type and a message naming it */
TEST(missing_attributes)
{
	struct kbtn *n = kbtn_open();

	ASSERT_NE(NULL, n);
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_STREQ("kbloom: missing attribute NAME (the filter name)",
		     n->msg);
	EXPECT_EQ(KB_A_NAME, n->miss_type);

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.miss");
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_STREQ("kbloom: missing sizing attribute: FPR_PPB + ITEMS, BITS_PER_KEY or M + K",
		     n->msg);
	EXPECT_EQ(KB_A_FPR_PPB, n->miss_type);

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.miss");
	kbtn_put_u64(&req, KB_A_M, 512);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_STREQ("kbloom: missing attribute K (sizing by M needs K)",
		     n->msg);
	EXPECT_EQ(KB_A_K, n->miss_type);

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.miss");
	kbtn_put_u32(&req, KB_A_FPR_PPB, 1000);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(KB_A_ITEMS, n->miss_type);
	EXPECT_NE(NULL, strstr(n->msg, "ITEMS"));

	kbtn_init(&req, n->family, KB_CMD_DESTROY, 0);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(KB_A_NAME, n->miss_type);
	EXPECT_NE(NULL, strstr(n->msg, "NAME"));

	kbtn_init(&req, n->family, KB_CMD_RENAME, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.a");
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(KB_A_NAME2, n->miss_type);
	EXPECT_STREQ("kbloom: missing attribute NAME2 (the second filter name)",
		     n->msg);

	kbtn_init(&req, n->family, KB_CMD_TEST, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.a");
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(KB_A_KEYS, n->miss_type);
	EXPECT_STREQ("kbloom: missing attribute KEYS (the key batch)", n->msg);

	kbtn_init(&req, n->family, KB_CMD_EXPORT, NLM_F_DUMP);
	EXPECT_EQ(0, kbtn_send(n, &req));
	EXPECT_EQ(-EINVAL, kbtn_recv(n, NULL, NULL, NULL, NULL, NULL));
	/* 6.1 reports it in NLMSG_DONE: the message only */
	if (n->miss_type != -1)
		EXPECT_EQ(KB_A_NAME, n->miss_type);
	EXPECT_NE(NULL, strstr(n->msg, "NAME"));
	kbtn_close(n);
}

/*
 * policy violations name the attribute by its offset; values out of a
 * policy range get the netlink core's ERANGE
 */
TEST(bad_values)
{
	char longname[48];
	struct nlattr *a;
	struct kbtn *n = kbtn_open();
	__u32 big = 5000;

	ASSERT_NE(NULL, n);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	/* enums out of range */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put_u32(&req, KB_A_KIND, KB_KIND_MAX + 1);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-ERANGE, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_NE(NULL, strstr(n->msg, "out of range"));

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put_u32(&req, KB_A_KEY_TYPE, KB_KEY_MAX + 1);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-ERANGE, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put_u32(&req, KB_A_HASH, KB_HASH_MAX + 1);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-ERANGE, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put_u32(&req, KB_A_BITS_PER_KEY, big);
	EXPECT_EQ(-ERANGE, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	kbtn_put_u64(&req, KB_A_ITEMS, 10);
	a = kbtn_put_u32(&req, KB_A_FPR_PPB, KB_FPR_PPB_ONE);
	EXPECT_EQ(-ERANGE, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	/* a u32 where a u64 belongs */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put_u32(&req, KB_A_M, 512);
	kbtn_put_u32(&req, KB_A_K, 3);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	/* hash not for the kind, seed not for the hash, bad m */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	kbtn_put_u32(&req, KB_A_KIND, KB_KIND_CLASSIC);
	a = kbtn_put_u32(&req, KB_A_HASH, KB_HASH_XXH64);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_NE(NULL, strstr(n->msg, "HASH"));

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put(&req, KB_A_SEED, (__u64[2]){ 1, 2 }, 16);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_NE(NULL, strstr(n->msg, "SEED"));

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put(&req, KB_A_SEED, (__u64[1]){ 1 }, 8);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-ERANGE, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put_u64(&req, KB_A_M, 1000);
	kbtn_put_u32(&req, KB_A_K, 3);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_NE(NULL, strstr(n->msg, "bad M or K"));

	/* names: too long, bad characters, empty */
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	a = kbtn_put_str(&req, KB_A_NAME, longname);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_STRNE("", n->msg);

	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	a = kbtn_put_str(&req, KB_A_NAME, "with space");
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_NE(NULL, strstr(n->msg, "bad filter name"));

	kbtn_init(&req, n->family, KB_CMD_GET, 0);
	a = kbtn_put_str(&req, KB_A_NAME, "");
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	/* 31 bytes is the longest name */
	longname[31] = 0;
	EXPECT_EQ(0, kbtn_create(n, longname, KB_KIND_BLOCKED, KB_KEY_BYTES,
				10, 0));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, longname));

	/* strict: an attribute the command does not take, unknown ones */
	kbtn_init(&req, n->family, KB_CMD_DESTROY, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put_u32(&req, KB_A_KIND, 0);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	kbtn_init(&req, n->family, KB_CMD_DESTROY, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.bad");
	a = kbtn_put_u32(&req, KB_A_MAX + 5, 0);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	kbtn_close(n);
}

TEST(unknown_filter)
{
	struct kbtn *n = kbtn_open();
	char key[4] = { 1, 2, 3, 4 };

	ASSERT_NE(NULL, n);
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_GET, "g.none"));
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.none"));
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_FLUSH, "g.none"));
	EXPECT_EQ(-ENOENT, kbtn_name2_cmd(n, KB_CMD_SWAP, "g.none", "g.n2"));
	EXPECT_EQ(-ENOENT, kbtn_name2_cmd(n, KB_CMD_RENAME, "g.none", "g.n2"));
	EXPECT_EQ(-ENOENT, kbtn_keys(n, KB_CMD_ADD, "g.none", key, 4, 1,
				    NULL, NULL));
	EXPECT_EQ(-ENOENT, kbtn_keys(n, KB_CMD_TEST, "g.none", key, 4, 1,
				    NULL, NULL));
	kbtn_init(&req, n->family, KB_CMD_EXPORT, NLM_F_DUMP);
	kbtn_put_str(&req, KB_A_NAME, "g.none");
	EXPECT_EQ(0, kbtn_send(n, &req));
	EXPECT_EQ(-ENOENT, kbtn_recv(n, NULL, NULL, NULL, NULL, NULL));
	kbtn_close(n);
}

TEST(keys)
{
	unsigned char keys[8][4], res[8];
	struct nlattr *tb[KB_A_MAX + 1];
	struct kbtn *n = kbtn_open();
	__u32 matches, i;
	struct nlattr *a;

	ASSERT_NE(NULL, n);
	for (i = 0; i < 8; i++) {
		keys[i][0] = 10;
		keys[i][1] = 0;
		keys[i][2] = 0;
		keys[i][3] = i + 1;
	}
	ASSERT_EQ(0, kbtn_create(n, "g.keys", KB_KIND_BLOCKED, KB_KEY_IPV4,
				1000, 1000));
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, "g.keys", keys, 4, 4, NULL,
			      NULL));
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST, "g.keys", keys, 4, 8, res,
			      &matches));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(i < 4, res[i]);
	EXPECT_EQ(4, matches);
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST_ADD, "g.keys", keys[2], 4, 4,
			      res, &matches));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(1, res[2]);
	EXPECT_EQ(1, res[3]);
	EXPECT_EQ(2, matches);
	ASSERT_EQ(0, get_info(n, "g.keys", tb));
	EXPECT_EQ(6, kbtn_u64(tb[KB_A_COUNT]));
	EXPECT_EQ(8, kbtn_u64(tb[KB_A_ADDS]));
	EXPECT_EQ(12, kbtn_u64(tb[KB_A_LOOKUPS]));
	EXPECT_EQ(6, kbtn_u64(tb[KB_A_HITS]));
	EXPECT_EQ(-EOPNOTSUPP, kbtn_keys(n, KB_CMD_DEL, "g.keys", keys, 4, 1,
					NULL, NULL));

	/* a malformed key (3 bytes for ipv4): EINVAL at it, nothing done */
	kbtn_init(&req, n->family, KB_CMD_ADD, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.keys");
	kbtn_nest_start(&req, KB_A_KEYS);
	kbtn_put(&req, KB_KA_DATA, (char[4]){ 10, 9, 9, 9 }, 4);
	a = kbtn_put(&req, KB_KA_DATA, keys[7], 3);
	kbtn_nest_end(&req);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_STREQ("kbloom: malformed key for the filter's key type", n->msg);
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST, "g.keys",
			      (char[4]){ 10, 9, 9, 9 }, 4, 1, res, NULL));
	EXPECT_EQ(0, res[0]);

	/* an empty key, an empty batch, a too-long key, too many keys */
	kbtn_init(&req, n->family, KB_CMD_TEST, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.keys");
	kbtn_nest_start(&req, KB_A_KEYS);
	a = kbtn_put(&req, KB_KA_DATA, NULL, 0);
	kbtn_nest_end(&req);
	EXPECT_EQ(-ERANGE, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	kbtn_init(&req, n->family, KB_CMD_TEST, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.keys");
	kbtn_nest_start(&req, KB_A_KEYS);
	a = req.nest;
	kbtn_nest_end(&req);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_STREQ("kbloom: KEYS holds no key", n->msg);

	kbtn_init(&req, n->family, KB_CMD_TEST, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.keys");
	kbtn_nest_start(&req, KB_A_KEYS);
	a = kbtn_put(&req, KB_KA_DATA, zeros, KB_KEY_MAX_LEN + 1);
	kbtn_nest_end(&req);
	EXPECT_EQ(-ERANGE, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	kbtn_init(&req, n->family, KB_CMD_TEST, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.keys");
	kbtn_nest_start(&req, KB_A_KEYS);
	for (i = 0; i <= KB_NL_KEYS_MAX; i++)
		a = kbtn_put(&req, KB_KA_DATA, keys[0], 4);
	kbtn_nest_end(&req);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);
	EXPECT_NE(NULL, strstr(n->msg, "more than 1024"));

	/* a key attribute of another type inside the nest */
	kbtn_init(&req, n->family, KB_CMD_TEST, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.keys");
	kbtn_nest_start(&req, KB_A_KEYS);
	a = kbtn_put(&req, KB_KA_DATA + 1, keys[0], 4);
	kbtn_nest_end(&req);
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	EXPECT_EQ(kbtn_offs(&req, a), n->offs);

	/* 1024 keys is fine */
	kbtn_init(&req, n->family, KB_CMD_TEST, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.keys");
	kbtn_nest_start(&req, KB_A_KEYS);
	for (i = 0; i < KB_NL_KEYS_MAX; i++)
		kbtn_put(&req, KB_KA_DATA, keys[i % 4], 4);
	kbtn_nest_end(&req);
	EXPECT_EQ(0, kbtn_do(n, &req));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.keys"));
	kbtn_close(n);
}

TEST(delete_counting)
{
	unsigned char res[2];
	struct kbtn *n = kbtn_open();
	__u32 matches;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, kbtn_create(n, "g.cnt", KB_KIND_COUNTING, KB_KEY_STR, 100,
				1000000));
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, "g.cnt", "alpha", 5, 1, NULL,
			      NULL));
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_DEL, "g.cnt", "alphabeta!", 5, 2, res,
			      &matches));
	EXPECT_EQ(1, res[0]);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(1, matches);
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST, "g.cnt", "alpha", 5, 1, res,
			      NULL));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.cnt"));
	kbtn_close(n);
}

TEST(swap_rename_flush)
{
	struct nlattr *tb[KB_A_MAX + 1];
	unsigned char res[1];
	struct kbtn *n = kbtn_open();
	__u64 ga, gb;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, kbtn_create(n, "g.a", KB_KIND_BLOCKED, KB_KEY_STR, 100,
				1000000));
	ASSERT_EQ(0, kbtn_create(n, "g.b", KB_KIND_BLOCKED, KB_KEY_STR, 100,
				1000000));
	ASSERT_EQ(0, kbtn_create(n, "g.ip", KB_KIND_BLOCKED, KB_KEY_IPV4, 100,
				1000000));
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_ADD, "g.a", "key-a", 5, 1, NULL,
			      NULL));
	ASSERT_EQ(0, get_info(n, "g.a", tb));
	ga = kbtn_u64(tb[KB_A_GENERATION]);
	ASSERT_EQ(0, get_info(n, "g.b", tb));
	gb = kbtn_u64(tb[KB_A_GENERATION]);
	EXPECT_EQ(0, kbtn_name2_cmd(n, KB_CMD_SWAP, "g.a", "g.b"));
	ASSERT_EQ(0, get_info(n, "g.a", tb));
	EXPECT_EQ(gb, kbtn_u64(tb[KB_A_GENERATION]));
	ASSERT_EQ(0, get_info(n, "g.b", tb));
	EXPECT_EQ(ga, kbtn_u64(tb[KB_A_GENERATION]));
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST, "g.b", "key-a", 5, 1, res,
			      NULL));
	EXPECT_EQ(1, res[0]);
	/* different key types */
	EXPECT_EQ(-EINVAL, kbtn_name2_cmd(n, KB_CMD_SWAP, "g.a", "g.ip"));
	EXPECT_NE(NULL, strstr(n->msg, "same key type"));
	EXPECT_LT(0, n->offs);

	EXPECT_EQ(-EEXIST, kbtn_name2_cmd(n, KB_CMD_RENAME, "g.a", "g.b"));
	EXPECT_EQ(0, kbtn_name2_cmd(n, KB_CMD_RENAME, "g.b", "g.c"));
	EXPECT_EQ(-ENOENT, kbtn_name_cmd(n, KB_CMD_GET, "g.b"));
	ASSERT_EQ(0, get_info(n, "g.c", tb));
	EXPECT_EQ(ga, kbtn_u64(tb[KB_A_GENERATION]));

	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_FLUSH, "g.c"));
	ASSERT_EQ(0, kbtn_keys(n, KB_CMD_TEST, "g.c", "key-a", 5, 1, res,
			      NULL));
	EXPECT_EQ(0, res[0]);
	ASSERT_EQ(0, get_info(n, "g.c", tb));
	EXPECT_EQ(0, kbtn_u64(tb[KB_A_COUNT]));
	EXPECT_EQ(0, kbtn_u64(tb[KB_A_BITS_SET]));

	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.a"));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.c"));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.ip"));
	kbtn_close(n);
}

static int count_cb(struct nlmsghdr *nlh, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

/* without CAP_NET_ADMIN: every command, reads included, EPERM */
TEST(eperm_without_cap_net_admin)
{
	__u64 seed[2] = { 7, 8 };
	unsigned char res[1];
	struct kbtn *n = kbtn_open(), *u;
	int msgs = 0;

	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, kbtn_create(n, "g.p1", KB_KIND_BLOCKED, KB_KEY_STR, 10,
				1000000));
	ASSERT_EQ(0, kbtn_create(n, "g.p2", KB_KIND_BLOCKED, KB_KEY_STR, 10,
				1000000));
	kbtn_init(&req, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.sip");
	kbtn_put_u32(&req, KB_A_HASH, KB_HASH_SIPHASH);
	kbtn_put(&req, KB_A_SEED, seed, 16);
	kbtn_put_u32(&req, KB_A_BITS_PER_KEY, 10);
	ASSERT_EQ(0, kbtn_do(n, &req));

	ASSERT_EQ(0, kbt_drop_net_admin());
	u = kbtn_open();
	ASSERT_NE(NULL, u);
	EXPECT_EQ(-EPERM, kbtn_name_cmd(u, KB_CMD_GET, "g.p1"));
	EXPECT_EQ(0, u->reply_len);
	EXPECT_EQ(-EPERM, kbtn_keys(u, KB_CMD_TEST, "g.p1", "x", 1, 1, res,
				   NULL));
	kbtn_init(&req, u->family, KB_CMD_GET, NLM_F_DUMP);
	EXPECT_EQ(0, kbtn_send(u, &req));
	EXPECT_EQ(-EPERM, kbtn_recv(u, count_cb, &msgs, NULL, NULL, NULL));
	EXPECT_EQ(0, msgs);
	kbtn_init(&req, u->family, KB_CMD_EXPORT, NLM_F_DUMP);
	kbtn_put_str(&req, KB_A_NAME, "g.p1");
	EXPECT_EQ(0, kbtn_send(u, &req));
	EXPECT_EQ(-EPERM, kbtn_recv(u, count_cb, &msgs, NULL, NULL, NULL));
	kbtn_init(&req, u->family, KB_CMD_EXPORT, NLM_F_DUMP);
	kbtn_put_str(&req, KB_A_NAME, "g.sip");
	EXPECT_EQ(0, kbtn_send(u, &req));
	EXPECT_EQ(-EPERM, kbtn_recv(u, count_cb, &msgs, NULL, NULL, NULL));
	EXPECT_EQ(0, msgs);

	EXPECT_EQ(-EPERM, kbtn_create(u, "g.p3", KB_KIND_BLOCKED, KB_KEY_STR,
				     10, 1000000));
	EXPECT_EQ(-EPERM, kbtn_name_cmd(u, KB_CMD_DESTROY, "g.p1"));
	EXPECT_EQ(-EPERM, kbtn_name_cmd(u, KB_CMD_FLUSH, "g.p1"));
	EXPECT_EQ(-EPERM, kbtn_name2_cmd(u, KB_CMD_SWAP, "g.p1", "g.p2"));
	EXPECT_EQ(-EPERM, kbtn_name2_cmd(u, KB_CMD_RENAME, "g.p1", "g.p4"));
	EXPECT_EQ(-EPERM, kbtn_keys(u, KB_CMD_ADD, "g.p1", "x", 1, 1, NULL,
				   NULL));
	EXPECT_EQ(-EPERM, kbtn_keys(u, KB_CMD_TEST_ADD, "g.p1", "x", 1, 1,
				   res, NULL));
	EXPECT_EQ(-EPERM, kbtn_keys(u, KB_CMD_DEL, "g.p1", "x", 1, 1, res,
				   NULL));
	/* nor may it listen to the events */
	EXPECT_EQ(-EPERM, kbtn_join(u));
	kbtn_close(u);
	/* the privileged socket is refused too: the caller counts */
	EXPECT_EQ(-EPERM, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.p1"));
	kbtn_close(n);
}

/* cleanup of the filters the previous test left (it lost the right) */
TEST(eperm_cleanup)
{
	struct kbtn *n = kbtn_open();

	ASSERT_NE(NULL, n);
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.p1"));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.p2"));
	EXPECT_EQ(0, kbtn_name_cmd(n, KB_CMD_DESTROY, "g.sip"));
	kbtn_close(n);
}

/* requests carrying a reserved genlmsghdr field or a wrong cmd */
TEST(unknown_command)
{
	struct kbtn *n = kbtn_open();
	struct genlmsghdr *g;

	ASSERT_NE(NULL, n);
	kbtn_init(&req, n->family, KB_CMD_EVENT, 0);
	EXPECT_EQ(-EOPNOTSUPP, kbtn_do(n, &req));
	kbtn_init(&req, n->family, KB_CMD_MAX + 10, 0);
	EXPECT_EQ(-EOPNOTSUPP, kbtn_do(n, &req));
	/* export is a dump only */
	kbtn_init(&req, n->family, KB_CMD_EXPORT, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.x");
	EXPECT_EQ(-EOPNOTSUPP, kbtn_do(n, &req));
	/* strict: the reserved header field must be zero */
	kbtn_init(&req, n->family, KB_CMD_GET, 0);
	kbtn_put_str(&req, KB_A_NAME, "g.x");
	g = NLMSG_DATA(&req.nlh);
	g->reserved = 1;
	EXPECT_EQ(-EINVAL, kbtn_do(n, &req));
	kbtn_close(n);
}

TEST_HARNESS_MAIN
