/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/kbloom.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_KBLOOM_GEN_H
#define _LINUX_KBLOOM_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/kbloom_netlink.h>
#include <linux/kbloom.h>

/* Common nested types */
extern const struct nla_policy kbloom_keys_nl_policy[KB_KA_DATA + 1];

extern const struct nla_policy kbloom_create_nl_policy[KB_A_MAX_BYTES + 1];

extern const struct nla_policy kbloom_destroy_nl_policy[KB_A_NAME + 1];

extern const struct nla_policy kbloom_get_nl_policy[KB_A_NAME + 1];

extern const struct nla_policy kbloom_add_nl_policy[KB_A_KEYS + 1];

extern const struct nla_policy kbloom_test_nl_policy[KB_A_KEYS + 1];

extern const struct nla_policy kbloom_del_nl_policy[KB_A_KEYS + 1];

extern const struct nla_policy kbloom_test_add_nl_policy[KB_A_KEYS + 1];

extern const struct nla_policy kbloom_swap_nl_policy[KB_A_NAME2 + 1];

extern const struct nla_policy kbloom_rename_nl_policy[KB_A_NAME2 + 1];

extern const struct nla_policy kbloom_flush_nl_policy[KB_A_NAME + 1];

extern const struct nla_policy kbloom_except_add_nl_policy[KB_A_EXIST + 1];

extern const struct nla_policy kbloom_except_del_nl_policy[KB_A_EXIST + 1];

extern const struct nla_policy kbloom_except_flush_nl_policy[KB_A_NAME + 1];

extern const struct nla_policy kbloom_grant_nl_policy[KB_A_WRITERS + 1];

extern const struct nla_policy kbloom_export_nl_policy[KB_A_SLICE_INDEX + 1];

extern const struct nla_policy kbloom_except_list_nl_policy[KB_A_NAME + 1];

enum {
	KBLOOM_NLGRP_EVENTS,
};

#endif /* _LINUX_KBLOOM_GEN_H */
