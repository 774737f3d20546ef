// SPDX-License-Identifier: GPL-2.0
/*
 * xt_bloom: xtables match on kbloom filters, the way xt_set matches ipset
 * sets.  The rule holds a reference on its filter from checkentry to
 * destroy, so the filter cannot be destroyed under it (EBUSY) and kbloom
 * cannot be unloaded while rules exist; swaps and rebuilds replace the
 * filter's generation, which the next packet sees.
 */
#include <linux/module.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_bloom.h>

#include <linux/kbloom.h>
#include "kbloom.h"

/* Address filters only: a bytes/str filter cannot hold packet addresses. */
static bool bloom_key_type_serves(u32 key_type, int family)
{
	switch (key_type) {
	case KB_KEY_IPV4:
	case KB_KEY_NET4:
		return family == AF_INET;
	case KB_KEY_IPV6:
	case KB_KEY_NET6:
		return family == AF_INET6;
	case KB_KEY_IP:
	case KB_KEY_NET:
		return true;
	default:
		return false;
	}
}

static struct kbloom_ref *bloom_ref(const struct xt_bloom_mtinfo *info)
{
	return (struct kbloom_ref *)(unsigned long)info->filter;
}

/* xtables matches run inside the hook's RCU read-side critical section */
static bool bloom_addr_hit(const struct xt_bloom_mtinfo *info, int family,
			   const void *saddr, const void *daddr)
{
	struct kbloom_ref *ref = bloom_ref(info);

	if ((info->flags & XT_BLOOM_SRC) &&
	    kbloom_test_addr_rcu(ref, family, saddr))
		return true;
	return (info->flags & XT_BLOOM_DST) &&
	       kbloom_test_addr_rcu(ref, family, daddr);
}

static bool bloom_mt4(const struct sk_buff *skb, struct xt_action_param *par)
{
	const struct xt_bloom_mtinfo *info = par->matchinfo;
	const struct iphdr *iph = ip_hdr(skb);

	return bloom_addr_hit(info, AF_INET, &iph->saddr, &iph->daddr) ^
	       !!(info->flags & XT_BLOOM_INVERT);
}

#if IS_ENABLED(CONFIG_IP6_NF_IPTABLES)
static bool bloom_mt6(const struct sk_buff *skb, struct xt_action_param *par)
{
	const struct xt_bloom_mtinfo *info = par->matchinfo;
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);

	return bloom_addr_hit(info, AF_INET6, &ip6h->saddr, &ip6h->daddr) ^
	       !!(info->flags & XT_BLOOM_INVERT);
}
#endif

static int bloom_mt_check(const struct xt_mtchk_param *par)
{
	struct xt_bloom_mtinfo *info = par->matchinfo;
	int family = par->family == NFPROTO_IPV4 ? AF_INET : AF_INET6;
	struct kbloom_ref *ref;
	size_t len;

	if (info->flags & ~XT_BLOOM_FLAGS || info->reserved ||
	    !(info->flags & (XT_BLOOM_SRC | XT_BLOOM_DST))) {
		pr_info_ratelimited("bad flags or reserved fields\n");
		return -EINVAL;
	}
	len = strnlen(info->name, sizeof(info->name));
	if (len == 0 || len == sizeof(info->name)) {
		pr_info_ratelimited("filter name missing or not terminated\n");
		return -EINVAL;
	}
	ref = kbloom_get(par->net, info->name);
	/*
	 * kbloom_get() validates the name first (EINVAL): a name that fails
	 * is user bytes (a user namespace's root may add rules) and must not
	 * reach the log, where control characters would forge lines.
	 */
	if (PTR_ERR_OR_ZERO(ref) == -EINVAL) {
		pr_info_ratelimited("bad filter name (1..31 of [A-Za-z0-9_.:-])\n");
		return -EINVAL;
	}
	if (IS_ERR(ref)) {
		pr_info_ratelimited("no filter named %s in this netns\n",
				    info->name);
		return PTR_ERR(ref);
	}
	if (!bloom_key_type_serves(kbloom_key_type(ref), family)) {
		pr_info_ratelimited("filter %s has key type %u, not usable for IPv%d rules\n",
				    info->name, kbloom_key_type(ref),
				    family == AF_INET ? 4 : 6);
		kbloom_put(ref);
		return -EPROTOTYPE;
	}
	info->filter = (unsigned long)ref;
	return 0;
}

static void bloom_mt_destroy(const struct xt_mtdtor_param *par)
{
	struct xt_bloom_mtinfo *info = par->matchinfo;

	kbloom_put(bloom_ref(info));
}

static struct xt_match bloom_mt_reg[] __read_mostly = {
	{
		.name		= "bloom",
		.revision	= 0,
		.family		= NFPROTO_IPV4,
		.match		= bloom_mt4,
		.checkentry	= bloom_mt_check,
		.destroy	= bloom_mt_destroy,
		.matchsize	= sizeof(struct xt_bloom_mtinfo),
		.usersize	= offsetof(struct xt_bloom_mtinfo, filter),
		.me		= THIS_MODULE,
	},
#if IS_ENABLED(CONFIG_IP6_NF_IPTABLES)
	{
		.name		= "bloom",
		.revision	= 0,
		.family		= NFPROTO_IPV6,
		.match		= bloom_mt6,
		.checkentry	= bloom_mt_check,
		.destroy	= bloom_mt_destroy,
		.matchsize	= sizeof(struct xt_bloom_mtinfo),
		.usersize	= offsetof(struct xt_bloom_mtinfo, filter),
		.me		= THIS_MODULE,
	},
#endif
};

static int __init bloom_mt_init(void)
{
	return xt_register_matches(bloom_mt_reg, ARRAY_SIZE(bloom_mt_reg));
}

static void __exit bloom_mt_exit(void)
{
	xt_unregister_matches(bloom_mt_reg, ARRAY_SIZE(bloom_mt_reg));
}

module_init(bloom_mt_init);
module_exit(bloom_mt_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kbloom developers");
MODULE_DESCRIPTION("Xtables: match addresses against kbloom filters");
MODULE_ALIAS("ipt_bloom");
MODULE_ALIAS("ip6t_bloom");
