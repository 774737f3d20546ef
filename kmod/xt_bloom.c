// SPDX-License-Identifier: GPL-2.0
/*
 * xt_bloom: xtables match on kbloom filters, the way xt_set matches ipset
 * sets, and the BLOOM target, which adds the packet's address to a filter
 * the way ipset's SET target does (--add-set).  A rule holds a reference
 * on its filter from checkentry to destroy, so the filter cannot be
 * destroyed under it (EBUSY) and kbloom cannot be unloaded while rules
 * exist; swaps and rebuilds replace the filter's generation, which the
 * next packet sees.
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

/*
 * A rule's filter: a counted reference, or -errno with the reason logged
 * (match and target share it).
 */
static struct kbloom_ref *bloom_get(struct net *net, const char *name,
				    size_t size, int family)
{
	struct kbloom_ref *ref;
	size_t len;

	len = strnlen(name, size);
	if (len == 0 || len == size) {
		pr_info_ratelimited("filter name missing or not terminated\n");
		return ERR_PTR(-EINVAL);
	}
	ref = kbloom_get(net, name);
	/*
	 * kbloom_get() validates the name first (EINVAL): a name that fails
	 * is user bytes (a user namespace's root may add rules) and must not
	 * reach the log, where control characters would forge lines.
	 */
	if (PTR_ERR_OR_ZERO(ref) == -EINVAL) {
		pr_info_ratelimited("bad filter name (1..31 of [A-Za-z0-9_.:-])\n");
		return ref;
	}
	if (IS_ERR(ref)) {
		pr_info_ratelimited("no filter named %s in this netns\n", name);
		return ref;
	}
	if (!bloom_key_type_serves(kbloom_key_type(ref), family)) {
		pr_info_ratelimited("filter %s has key type %u, not usable for IPv%d rules\n",
				    name, kbloom_key_type(ref),
				    family == AF_INET ? 4 : 6);
		kbloom_put(ref);
		return ERR_PTR(-EPROTOTYPE);
	}
	return ref;
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

	if (info->flags & ~XT_BLOOM_FLAGS || info->reserved ||
	    !(info->flags & (XT_BLOOM_SRC | XT_BLOOM_DST))) {
		pr_info_ratelimited("bad flags or reserved fields\n");
		return -EINVAL;
	}
	ref = bloom_get(par->net, info->name, sizeof(info->name), family);
	if (IS_ERR(ref))
		return PTR_ERR(ref);
	info->filter = (unsigned long)ref;
	return 0;
}

static void bloom_mt_destroy(const struct xt_mtdtor_param *par)
{
	struct xt_bloom_mtinfo *info = par->matchinfo;

	kbloom_put(bloom_ref(info));
}

/* ---- the BLOOM target --------------------------------------------------- */

static struct kbloom_ref *bloom_tg_ref(const struct xt_bloom_tginfo *info)
{
	return (struct kbloom_ref *)(unsigned long)info->filter;
}

/*
 * The add's outcome does not change the verdict: refused adds (the cap)
 * are counted by kbloom, and the rule goes on as SET's does.
 */
static void bloom_tg_add(const struct xt_bloom_tginfo *info,
			 const struct xt_action_param *par, int family,
			 const void *addr)
{
	u32 plen = info->flags & XT_BLOOM_T_PREFIX ? info->prefix :
		   family == AF_INET ? 32 : 128;

	kbloom_add_addr_rcu(xt_net(par), bloom_tg_ref(info), family, addr,
			    plen, info->flags & XT_BLOOM_T_EXIST ?
			    KBLOOM_ADD_REFRESH : 0);
}

static unsigned int bloom_tg4(struct sk_buff *skb,
			      const struct xt_action_param *par)
{
	const struct xt_bloom_tginfo *info = par->targinfo;
	const struct iphdr *iph = ip_hdr(skb);

	bloom_tg_add(info, par, AF_INET,
		     info->dir == XT_BLOOM_SRC ? &iph->saddr : &iph->daddr);
	return XT_CONTINUE;
}

#if IS_ENABLED(CONFIG_IP6_NF_IPTABLES)
static unsigned int bloom_tg6(struct sk_buff *skb,
			      const struct xt_action_param *par)
{
	const struct xt_bloom_tginfo *info = par->targinfo;
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);

	bloom_tg_add(info, par, AF_INET6,
		     info->dir == XT_BLOOM_SRC ? &ip6h->saddr : &ip6h->daddr);
	return XT_CONTINUE;
}
#endif

static int bloom_tg_check(const struct xt_tgchk_param *par)
{
	struct xt_bloom_tginfo *info = par->targinfo;
	int family = par->family == NFPROTO_IPV4 ? AF_INET : AF_INET6;
	u32 key_type, i;
	struct kbloom_ref *ref;

	for (i = 0; i < sizeof(info->reserved); i++)
		if (info->reserved[i])
			break;
	if ((info->dir != XT_BLOOM_SRC && info->dir != XT_BLOOM_DST) ||
	    info->flags & ~XT_BLOOM_T_FLAGS || i < sizeof(info->reserved)) {
		pr_info_ratelimited("bad direction, flags or reserved fields\n");
		return -EINVAL;
	}
	if (info->flags & XT_BLOOM_T_PREFIX &&
	    info->prefix > (family == AF_INET ? 32 : 128)) {
		pr_info_ratelimited("prefix %u over the IPv%d address length\n",
				    info->prefix, family == AF_INET ? 4 : 6);
		return -EINVAL;
	}
	ref = bloom_get(par->net, info->name, sizeof(info->name), family);
	if (IS_ERR(ref))
		return PTR_ERR(ref);
	key_type = kbloom_key_type(ref);
	if (info->flags & XT_BLOOM_T_PREFIX && key_type != KB_KEY_NET4 &&
	    key_type != KB_KEY_NET6 && key_type != KB_KEY_NET) {
		pr_info_ratelimited("--prefix: filter %s is not of a net key type\n",
				    info->name);
		kbloom_put(ref);
		return -EINVAL;
	}
	if (kbloom_kind(ref) != KB_KIND_BLOCKED) {
		pr_info_ratelimited("filter %s is not of kind blocked: only those take adds from packets\n",
				    info->name);
		kbloom_put(ref);
		return -EOPNOTSUPP;
	}
	info->filter = (unsigned long)ref;
	return 0;
}

static void bloom_tg_destroy(const struct xt_tgdtor_param *par)
{
	struct xt_bloom_tginfo *info = par->targinfo;

	kbloom_put(bloom_tg_ref(info));
}

static struct xt_target bloom_tg_reg[] __read_mostly = {
	{
		.name		= "BLOOM",
		.revision	= 0,
		.family		= NFPROTO_IPV4,
		.target		= bloom_tg4,
		.checkentry	= bloom_tg_check,
		.destroy	= bloom_tg_destroy,
		.targetsize	= sizeof(struct xt_bloom_tginfo),
		.usersize	= offsetof(struct xt_bloom_tginfo, filter),
		.me		= THIS_MODULE,
	},
#if IS_ENABLED(CONFIG_IP6_NF_IPTABLES)
	{
		.name		= "BLOOM",
		.revision	= 0,
		.family		= NFPROTO_IPV6,
		.target		= bloom_tg6,
		.checkentry	= bloom_tg_check,
		.destroy	= bloom_tg_destroy,
		.targetsize	= sizeof(struct xt_bloom_tginfo),
		.usersize	= offsetof(struct xt_bloom_tginfo, filter),
		.me		= THIS_MODULE,
	},
#endif
};

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
	int ret = xt_register_matches(bloom_mt_reg, ARRAY_SIZE(bloom_mt_reg));

	if (ret)
		return ret;
	ret = xt_register_targets(bloom_tg_reg, ARRAY_SIZE(bloom_tg_reg));
	if (ret)
		xt_unregister_matches(bloom_mt_reg, ARRAY_SIZE(bloom_mt_reg));
	return ret;
}

static void __exit bloom_mt_exit(void)
{
	xt_unregister_targets(bloom_tg_reg, ARRAY_SIZE(bloom_tg_reg));
	xt_unregister_matches(bloom_mt_reg, ARRAY_SIZE(bloom_mt_reg));
}

module_init(bloom_mt_init);
module_exit(bloom_mt_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kbloom developers");
MODULE_DESCRIPTION("Xtables: match addresses against kbloom filters, and add them");
MODULE_ALIAS("ipt_bloom");
MODULE_ALIAS("ip6t_bloom");
MODULE_ALIAS("ipt_BLOOM");
MODULE_ALIAS("ip6t_BLOOM");
