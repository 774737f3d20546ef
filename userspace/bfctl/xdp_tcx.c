// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl xdp --mode tc on tcx (kernel 6.6 and later): the blocklist as a
 * program of the device's tcx ingress hook instead of a cls_bpf filter.
 *
 * A cls_bpf filter is replaced and deleted by handle and priority,
 * whatever program it holds, so detach checks the program there and then
 * deletes: a window (xdp.c, tc_same_prog()).  tcx attaches programs
 * themselves: BPF_PROG_ATTACH with BPF_F_REPLACE replaces exactly the
 * program given, BPF_PROG_DETACH with the program's fd removes exactly
 * it (-ENOENT when it is gone), in one request under RTNL.  Attached
 * with BPF_PROG_ATTACH (not a link), the program is held by the device,
 * as a tc filter is: nothing is pinned, and a deleted device takes it
 * with it.
 *
 * Debian 12's uapi headers (6.1) and libbpf 1.1 predate tcx: the attach
 * type's value is the kernel's ABI, and libbpf's bpf_prog_attach_opts(),
 * bpf_prog_detach2() and bpf_prog_query() pass it through unchanged.
 * A kernel without tcx (6.1) answers a query for it with -EINVAL: bfctl
 * then uses a cls_bpf filter.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bfctl.h"
#include "xdp.h"

/* enum bpf_attach_type's BPF_TCX_INGRESS (include/uapi/linux/bpf.h, 6.6) */
#define KB_BPF_TCX_INGRESS	46

#define KB_TCX_MAX_PROGS	64

/* the programs of ifindex's tcx ingress: their count, or -errno */
static int tcx_ids(int ifindex, u32 *ids, u32 max)
{
	u32 cnt = max, flags = 0;

	if (bpf_prog_query(ifindex, KB_BPF_TCX_INGRESS, 0, &flags, ids, &cnt))
		return -errno;
	return cnt < max ? (int)cnt : (int)max;
}

bool bfctl_xdp_tcx_available(int ifindex)
{
	u32 ids[1];

	return tcx_ids(ifindex, ids, 1) != -EINVAL;
}

int bfctl_xdp_tcx_probe(struct dev_state *d)
{
	u32 ids[KB_TCX_MAX_PROGS];
	struct blk b;
	int n, i, ret;

	n = tcx_ids(d->ifindex, ids, KB_TCX_MAX_PROGS);
	if (n == -EINVAL || n == -ENOENT)
		return 0;	/* no tcx in this kernel, or nothing there */
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		ret = bfctl_xdp_inspect_prog(ids[i], true, &b);
		if (ret == -ENOENT) {	/* gone meanwhile */
			bfctl_xdp_blk_release(&b);
			continue;
		}
		if (ret || !b.ours) {
			bfctl_xdp_blk_release(&b);
			if (ret)
				return ret;
			continue;
		}
		b.tcx = true;
		bfctl_xdp_blk_release(&d->tc);
		d->tc = b;
		break;
	}
	return 0;
}

int bfctl_xdp_tcx_attach(const char *dev, struct dev_state *d, int fd)
{
	LIBBPF_OPTS(bpf_prog_attach_opts, ao);
	int ret;

	/* ours replaced exactly, or fail: -ENOENT if it went meanwhile */
	if (d->tc.ours && d->tc.tcx) {
		ao.flags = BPF_F_REPLACE;
		ao.replace_prog_fd = d->tc.prog_fd;
	}
	ret = bpf_prog_attach_opts(fd, d->ifindex, KB_BPF_TCX_INGRESS, &ao);
	if (ret == -ENOENT && ao.flags)
		return bfctl_fail(BFCTL_ERR, "xdp attach",
				  "the blocklist of %s (program %u) is gone from tcx meanwhile",
				  dev, d->tc.prog_id);
	if (ret)
		return bfctl_xdp_fail_sys("attach", dev, "attaching to tcx", ret);
	return BFCTL_OK;
}

int bfctl_xdp_tcx_detach(const char *dev, struct dev_state *d,
			 const struct blk *b)
{
	int ret;

	/* exactly this program, in one request: no check-then-delete */
	ret = bpf_prog_detach2(b->prog_fd, d->ifindex, KB_BPF_TCX_INGRESS);
	if (ret == -ENOENT)
		return bfctl_fail(BFCTL_ERR, "xdp detach",
				  "the blocklist of %s (program %u) is gone from tcx meanwhile",
				  dev, b->prog_id);
	if (ret)
		return bfctl_xdp_fail_sys("detach", dev, "detaching from tcx", ret);
	return BFCTL_OK;
}
