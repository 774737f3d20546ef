// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl's guard against destroying a filter that a blocklist it attached
 * still tests.  The XDP/tc blocklist and the LSM path filter look their
 * filter up by name at every packet or exec; the kernel does not count
 * them as consumers (a program holds no reference between calls), so
 * `destroy` would succeed and they would fail open silently.  Like
 * ipset's "Set cannot be destroyed: it is in use by a kernel component",
 * bfctl refuses unless --force.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "bfctl.h"
#include "lsm_content.h"

int bfctl_in_use_guard(const char *verb, const char *name, bool force)
{
	char devs[256];
	int n, lsm;

	if (force)
		return BFCTL_OK;
	n = bfctl_xdp_users(name, devs, sizeof(devs));
	lsm = bfctl_lsm_uses(name);
	if (!lsm)
		lsm = bfctl_lsm_content_uses(name);
	/*
	 * Unreadable (no CAP_SYS_ADMIN/CAP_BPF to inspect a device's
	 * program): say so and let the kernel decide, as before this guard
	 */
	if (n < 0 && !bfctl_quiet)
		fprintf(stderr, "bfctl: %s %s: warning: cannot check the XDP/tc blocklists for it: %s\n",
			verb, name, strerror(-n));
	if (lsm < 0 && !bfctl_quiet)
		fprintf(stderr, "bfctl: %s %s: warning: cannot check the LSM path filter for it: %s\n",
			verb, name, strerror(-lsm));
	if (n > 0)
		return bfctl_fail(BFCTL_ERR, verb,
				  "filter %s is in use by a kernel component: the XDP/tc blocklist on %s; without it every packet would pass; nothing changed (bfctl xdp detach first, or --force)",
				  name, devs);
	if (lsm > 0)
		return bfctl_fail(BFCTL_ERR, verb,
				  "filter %s is in use by a kernel component: the LSM path filter or its content mode (bfctl lsm show); without it nothing would be denied; nothing changed (bfctl lsm detach first, or --force)",
				  name);
	return BFCTL_OK;
}
