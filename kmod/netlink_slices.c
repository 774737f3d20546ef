// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: the generic netlink side of windows and growing filters
 * (slices.c): a create's shape attributes, and what KB_CMD_GET says of a
 * filter's slices.
 */
#include <linux/slab.h>
#include <net/genetlink.h>

#include "netlink.h"

int kb_nl_shape_parse(struct genl_info *info, struct kb_spec *sp,
		      struct kb_shape *sh)
{
	struct nlattr **tb = info->attrs;
	int ret, attr;

	memset(sh, 0, sizeof(*sh));
	if (tb[KB_A_WINDOW_MS])
		sh->window_ms = nla_get_u64(tb[KB_A_WINDOW_MS]);
	if (tb[KB_A_SLICES])
		sh->slices = nla_get_u32(tb[KB_A_SLICES]);
	if (tb[KB_A_MAX_BYTES])
		sh->max_bytes = nla_get_u64(tb[KB_A_MAX_BYTES]);
	sh->grow = nla_get_flag(tb[KB_A_GROW]);
	if (tb[KB_A_MAX_FPR_PPB])
		sh->max_fpr_ppb = nla_get_u32(tb[KB_A_MAX_FPR_PPB]);
	ret = kb_shape_check(sh, sp, &attr, info->extack);
	if (ret)
		NL_SET_BAD_ATTR(info->extack, tb[attr]);
	return ret;
}

static int kb_nl_slice_put(struct sk_buff *skb, const struct kb_slice_info *i)
{
	struct nlattr *nest = nla_nest_start(skb, KB_A_SLICE);

	if (!nest ||
	    nla_put_u64_64bit(skb, KB_SA_AGE_MS, i->age_ms, KB_SA_PAD) ||
	    nla_put_u64_64bit(skb, KB_SA_M, i->m, KB_SA_PAD) ||
	    nla_put_u32(skb, KB_SA_K, i->k) ||
	    nla_put_u64_64bit(skb, KB_SA_ITEMS, i->items, KB_SA_PAD) ||
	    nla_put_u32(skb, KB_SA_FPR_PPB, i->fpr_ppb) ||
	    nla_put_u64_64bit(skb, KB_SA_BYTES, i->bytes, KB_SA_PAD) ||
	    nla_put_u64_64bit(skb, KB_SA_BITS_SET, i->bits_set, KB_SA_PAD) ||
	    nla_put_u32(skb, KB_SA_EST_FPR_PPB, i->est_fpr_ppb))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * KB_A_SLICES always (1 for plain filters); windows: KB_A_WINDOW_MS,
 * KB_A_NEXT_ROTATION_MS; growing filters: KB_A_GROW, KB_A_MAX_BYTES (the
 * bound in force); both: a KB_A_SLICE nest per slice, newest first.
 */
int kb_nl_slices_put(struct sk_buff *skb, struct kb_set *s)
{
	struct kb_slices_info *si = kmalloc(sizeof(*si), GFP_KERNEL);
	const struct kb_shape *sh;
	u32 i;
	int ret;

	if (!si)
		return -ENOMEM;
	ret = kb_set_slices_info(s, si);
	if (ret)
		goto out;
	sh = &si->shape;
	ret = -EMSGSIZE;
	if (nla_put_u32(skb, KB_A_SLICES, si->nslices))
		goto out;
	if (sh->window_ms &&
	    (kb_nl_put_u64(skb, KB_A_WINDOW_MS, sh->window_ms) ||
	     kb_nl_put_u64(skb, KB_A_NEXT_ROTATION_MS, si->next_rotation_ms)))
		goto out;
	if (sh->grow && (nla_put_flag(skb, KB_A_GROW) ||
			 kb_nl_put_u64(skb, KB_A_MAX_BYTES, si->max_bytes)))
		goto out;
	for (i = 0; (sh->window_ms || sh->grow) && i < si->nslices; i++)
		if (kb_nl_slice_put(skb, &si->sl[i]))
			goto out;
	ret = 0;
out:
	kfree(si);
	return ret;
}
