// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: named Bloom filters per network namespace.
 *
 * Module init/exit: the limits (limits.c), pernet operations (the registry
 * of each namespace), the generic netlink family "kbloom" and the
 * /dev/kbloom misc device.  The family is registered before the device
 * (registry changes announce themselves to its "events" group) and goes
 * after it.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <net/net_namespace.h>

#include "kbloom_version.h"
#include "internal.h"

unsigned int kb_net_id __read_mostly;

static struct pernet_operations kb_net_ops = {
	.init = kb_net_init,
	.exit = kb_net_exit,
	.id = &kb_net_id,
	.size = sizeof(struct kb_net),
};

static int __init kb_module_init(void)
{
	int ret;

	kb_limits_init();
	ret = kb_learn_init();
	if (ret)
		return ret;
	ret = register_pernet_subsys(&kb_net_ops);
	if (ret) {
		kb_learn_exit();
		return ret;
	}
	ret = kb_nl_init();
	if (ret) {
		unregister_pernet_subsys(&kb_net_ops);
		kb_learn_exit();
		return ret;
	}
	ret = kb_dev_init();
	if (ret) {
		kb_nl_exit();
		unregister_pernet_subsys(&kb_net_ops);
		kb_learn_exit();
		return ret;
	}
	/* last: registered kfuncs cannot be unregistered on a later failure */
	kb_bpf_init();
	pr_info("version %s loaded\n", KBLOOM_VERSION);
	return 0;
}

static void __exit kb_module_exit(void)
{
	/* first: a pending work announces through the family, in a netns */
	kb_learn_exit();
	kb_dev_exit();
	kb_nl_exit();
	unregister_pernet_subsys(&kb_net_ops);
	/* generations and filters are freed by RCU callbacks */
	rcu_barrier();
	pr_info("unloaded\n");
}

module_init(kb_module_init);
module_exit(kb_module_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kbloom developers");
MODULE_DESCRIPTION("Named Bloom filters per network namespace");
MODULE_VERSION(KBLOOM_VERSION);
