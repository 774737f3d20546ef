// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: who a filter's grant lets open it (uapi "Privileges";
 * KB_IOC_OPEN in dev_filter.c asks).  Setting a grant is the registry's
 * (kb_reg_grant(), under kb_set.lock) and netlink_grant.c's.
 */
#include <linux/cred.h>
#include <linux/uidgid.h>

#include "internal.h"

/*
 * cred is a member of g as in_group_p() counts it for current: its fsgid
 * or a supplementary group (sorted; groups_search() is not exported).
 */
static bool kb_cred_in_group(const struct cred *cred, kgid_t g)
{
	const struct group_info *gi = cred->group_info;
	unsigned int lo = 0, hi = gi ? gi->ngroups : 0;

	if (!gid_valid(g))
		return false;
	if (gid_eq(cred->fsgid, g))
		return true;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (gid_gt(g, gi->gid[mid]))
			lo = mid + 1;
		else if (gid_lt(g, gi->gid[mid]))
			hi = mid;
		else
			return true;
	}
	return false;
}

/* writers may do what readers may: the writers group grants both */
bool kb_set_granted(struct kb_set *s, const struct cred *cred, bool write)
{
	if (kb_cred_in_group(cred, READ_ONCE(s->writers)))
		return true;
	return !write && kb_cred_in_group(cred, READ_ONCE(s->readers));
}
