// SPDX-License-Identifier: GPL-2.0
/*
 * Test fixture: a module whose init leaks an allocation.  The VM runner's
 * own test loads it on the debug kernel with --kmemleak to prove that a
 * leak kmemleak reports fails the run.  Never installed.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/string.h>

#define KB_LEAK_SIZE	128

static int __init kb_leak_init(void)
{
	char *p = kmalloc(KB_LEAK_SIZE, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	strscpy(p, "kb_leak: deliberately leaked", KB_LEAK_SIZE);
	/* Deliberate leak: the only pointer to p is dropped here. */
	pr_info("kb_leak: leaked %d bytes on purpose\n", KB_LEAK_SIZE);
	return 0;
}

static void __exit kb_leak_exit(void)
{
}

module_init(kb_leak_init);
module_exit(kb_leak_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kbloom test fixture: leak memory on load");
