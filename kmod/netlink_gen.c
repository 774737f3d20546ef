// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	uapi/kbloom.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink_gen.h"

#include <uapi/linux/kbloom_netlink.h>
#include <linux/kbloom.h>

/* Integer value ranges */
static const struct netlink_range_validation kb_a_fpr_ppb_range = {
	.min	= 1ULL,
	.max	= 999999999ULL,
};

static const struct netlink_range_validation kb_a_max_fpr_ppb_range = {
	.min	= 1ULL,
	.max	= 1000000000ULL,
};

static const struct netlink_range_validation kb_a_window_ms_range = {
	.min	= 1000ULL,
	.max	= 2678400000ULL,
};

/* Common nested types */
const struct nla_policy kbloom_keys_nl_policy[KB_KA_DATA + 1] = {
	[KB_KA_DATA] = NLA_POLICY_RANGE(NLA_BINARY, 1, 1024),
};

/* KB_CMD_CREATE - do */
const struct nla_policy kbloom_create_nl_policy[KB_A_MAX_BYTES + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_KIND] = NLA_POLICY_MAX(NLA_U32, 3),
	[KB_A_KEY_TYPE] = NLA_POLICY_MAX(NLA_U32, 7),
	[KB_A_HASH] = NLA_POLICY_MAX(NLA_U32, 3),
	[KB_A_ITEMS] = { .type = NLA_U64, },
	[KB_A_FPR_PPB] = NLA_POLICY_FULL_RANGE(NLA_U32, &kb_a_fpr_ppb_range),
	[KB_A_BITS_PER_KEY] = NLA_POLICY_RANGE(NLA_U32, 1, 1000),
	[KB_A_M] = NLA_POLICY_MIN(NLA_U64, 1),
	[KB_A_K] = NLA_POLICY_RANGE(NLA_U32, 1, 32),
	[KB_A_SEED] = NLA_POLICY_EXACT_LEN(16),
	[KB_A_PREFIXES] = NLA_POLICY_RANGE(NLA_U32, 1, 129),
	[KB_A_READERS] = { .type = NLA_U32, },
	[KB_A_WRITERS] = { .type = NLA_U32, },
	[KB_A_MAX_FPR_PPB] = NLA_POLICY_FULL_RANGE(NLA_U32, &kb_a_max_fpr_ppb_range),
	[KB_A_WINDOW_MS] = NLA_POLICY_FULL_RANGE(NLA_U64, &kb_a_window_ms_range),
	[KB_A_SLICES] = NLA_POLICY_RANGE(NLA_U32, 1, 15),
	[KB_A_GROW] = { .type = NLA_FLAG, },
	[KB_A_MAX_BYTES] = { .type = NLA_U64, },
};

/* KB_CMD_DESTROY - do */
const struct nla_policy kbloom_destroy_nl_policy[KB_A_NAME + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KB_CMD_GET - do */
const struct nla_policy kbloom_get_nl_policy[KB_A_NAME + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KB_CMD_ADD - do */
const struct nla_policy kbloom_add_nl_policy[KB_A_KEYS + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_KEYS] = NLA_POLICY_NESTED(kbloom_keys_nl_policy),
};

/* KB_CMD_TEST - do */
const struct nla_policy kbloom_test_nl_policy[KB_A_KEYS + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_KEYS] = NLA_POLICY_NESTED(kbloom_keys_nl_policy),
};

/* KB_CMD_DEL - do */
const struct nla_policy kbloom_del_nl_policy[KB_A_KEYS + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_KEYS] = NLA_POLICY_NESTED(kbloom_keys_nl_policy),
};

/* KB_CMD_TEST_ADD - do */
const struct nla_policy kbloom_test_add_nl_policy[KB_A_KEYS + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_KEYS] = NLA_POLICY_NESTED(kbloom_keys_nl_policy),
};

/* KB_CMD_SWAP - do */
const struct nla_policy kbloom_swap_nl_policy[KB_A_NAME2 + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_NAME2] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KB_CMD_RENAME - do */
const struct nla_policy kbloom_rename_nl_policy[KB_A_NAME2 + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_NAME2] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KB_CMD_FLUSH - do */
const struct nla_policy kbloom_flush_nl_policy[KB_A_NAME + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KB_CMD_EXPORT - dump */
const struct nla_policy kbloom_export_nl_policy[KB_A_SLICE_INDEX + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_SLICE_INDEX] = NLA_POLICY_RANGE(NLA_U32, 1, 16),
};

/* KB_CMD_EXCEPT_ADD - do */
const struct nla_policy kbloom_except_add_nl_policy[KB_A_EXIST + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_KEYS] = NLA_POLICY_NESTED(kbloom_keys_nl_policy),
	[KB_A_EXIST] = { .type = NLA_FLAG, },
};

/* KB_CMD_EXCEPT_DEL - do */
const struct nla_policy kbloom_except_del_nl_policy[KB_A_EXIST + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_KEYS] = NLA_POLICY_NESTED(kbloom_keys_nl_policy),
	[KB_A_EXIST] = { .type = NLA_FLAG, },
};

/* KB_CMD_EXCEPT_FLUSH - do */
const struct nla_policy kbloom_except_flush_nl_policy[KB_A_NAME + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KB_CMD_EXCEPT_LIST - dump */
const struct nla_policy kbloom_except_list_nl_policy[KB_A_NAME + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KB_CMD_GRANT - do */
const struct nla_policy kbloom_grant_nl_policy[KB_A_WRITERS + 1] = {
	[KB_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KB_A_READERS] = { .type = NLA_U32, },
	[KB_A_WRITERS] = { .type = NLA_U32, },
};
