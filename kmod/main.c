// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: named Bloom filters per network namespace.
 *
 * Module init/exit: module parameters (limits), pernet operations (the
 * registry of each namespace), the generic netlink family "kbloom" and the
 * /dev/kbloom misc device.  The family is registered before the device
 * (registry changes announce themselves to its "events" group) and goes
 * after it.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/moduleparam.h>
#include <net/net_namespace.h>

#include "kbloom_version.h"
#include "internal.h"

unsigned int kb_max_filters = 1024;
module_param_named(max_filters, kb_max_filters, uint, 0644);
MODULE_PARM_DESC(max_filters, "Most filters per network namespace (1024)");

unsigned long long kb_max_filter_bytes = 4ULL << 30;
module_param_named(max_filter_bytes, kb_max_filter_bytes, ullong, 0644);
MODULE_PARM_DESC(max_filter_bytes, "Most payload bytes of one filter (4 GiB)");

unsigned long long kb_max_netns_bytes = 16ULL << 30;
module_param_named(max_netns_bytes, kb_max_netns_bytes, ullong, 0644);
MODULE_PARM_DESC(max_netns_bytes,
		 "Most payload bytes per network namespace, rebuilds in progress included (16 GiB)");

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

	ret = register_pernet_subsys(&kb_net_ops);
	if (ret)
		return ret;
	ret = kb_nl_init();
	if (ret) {
		unregister_pernet_subsys(&kb_net_ops);
		return ret;
	}
	ret = kb_dev_init();
	if (ret) {
		kb_nl_exit();
		unregister_pernet_subsys(&kb_net_ops);
		return ret;
	}
	pr_info("kbloom: version %s loaded\n", KBLOOM_VERSION);
	return 0;
}

static void __exit kb_module_exit(void)
{
	kb_dev_exit();
	kb_nl_exit();
	unregister_pernet_subsys(&kb_net_ops);
	/* generations and filters are freed by RCU callbacks */
	rcu_barrier();
	pr_info("kbloom: unloaded\n");
}

module_init(kb_module_init);
module_exit(kb_module_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kbloom developers");
MODULE_DESCRIPTION("Named Bloom filters per network namespace");
MODULE_VERSION(KBLOOM_VERSION);
