// SPDX-License-Identifier: GPL-2.0
/*
 * Test fixture: a module whose init triggers a kernel warning.  The VM
 * runner's own test loads it to prove that a WARN in the guest (which
 * panics under panic_on_warn=1) fails the run.  Never installed.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/bug.h>

static int __init kb_warn_init(void)
{
	WARN(1, "kb_warn: deliberate warning for the VM runner's test\n");
	return 0;
}

static void __exit kb_warn_exit(void)
{
}

module_init(kb_warn_init);
module_exit(kb_warn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kbloom test fixture: warn on load");
