// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: named Bloom filters per network namespace.
 */
#include <linux/module.h>
#include <linux/init.h>

#include "kbloom_version.h"

static int __init kb_module_init(void)
{
	pr_info("kbloom: version %s loaded\n", KBLOOM_VERSION);
	return 0;
}

static void __exit kb_module_exit(void)
{
	pr_info("kbloom: unloaded\n");
}

module_init(kb_module_init);
module_exit(kb_module_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kbloom developers");
MODULE_DESCRIPTION("Named Bloom filters per network namespace");
MODULE_VERSION(KBLOOM_VERSION);
