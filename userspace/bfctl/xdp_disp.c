// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl xdp: the blocklist in libxdp's dispatcher, so that it shares a
 * device's XDP hook with xdp-filter and the other programs libxdp loads.
 *
 * The kernel runs one XDP program per device.  libxdp's dispatcher is
 * that program; each program it runs replaces one of its stub functions
 * (freplace, BPF_PROG_TYPE_EXT), in the order of their run priorities,
 * and the next one runs after the verdicts a program declares in its
 * metadata (xdp_blocklist.bpf.c: XDP_PASS).  libxdp keeps the programs
 * attached by pinning their links in bpffs (/sys/fs/bpf/xdp/dispatch-*,
 * or under $LIBXDP_BPFFS); adding or removing one builds a new dispatcher
 * and swaps it in atomically, under a lock all libxdp users take.
 *
 * Those pins are the one place the blocklist is referenced outside the
 * device: while they exist kbloom.ko cannot be unloaded, and a device
 * deleted with the blocklist attached leaves them behind until libxdp
 * cleans them up (at its next attach, or xdp-loader clean).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "bfctl.h"
#include "xdp.h"
#include "xdp_blocklist.skel.h"

/* libxdp's notes on stderr: its warnings only, and none with -q */
static int libxdp_print(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBXDP_WARN || bfctl_quiet || bfctl_xdp_mute)
		return 0;
	fputs("libxdp: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static void lx_init(void)
{
	libxdp_set_print(libxdp_print);
}

static const char *lx_err(long err, char *buf, size_t len)
{
	if (libxdp_strerror((int)err, buf, len))
		snprintf(buf, len, "%s", strerror(err < 0 ? (int)-err : (int)err));
	return buf;
}

/* the dispatcher's program of id, or NULL */
static struct xdp_program *mp_find(struct xdp_multiprog *mp, u32 id)
{
	struct xdp_program *p;

	for (p = xdp_multiprog__next_prog(NULL, mp); p;
	     p = xdp_multiprog__next_prog(p, mp))
		if (xdp_program__id(p) == id)
			return p;
	return NULL;
}

int bfctl_xdp_disp_probe(struct dev_state *d)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	struct blk b;
	long err;
	int ret = 0;

	lx_init();
	d->disp_id = d->xdp.prog_id;
	mp = xdp_multiprog__get_from_ifindex(d->ifindex);
	err = libxdp_get_error(mp);
	if (err) {
		/* its programs are pinned in a bpffs this process may not see */
		d->disp_progs = (int)(err < 0 ? err : -err);
		return 0;
	}
	d->disp_progs = xdp_multiprog__program_count(mp);
	/* libxdp removes an empty one: none read means none visible */
	if (d->disp_progs <= 0 || xdp_multiprog__is_legacy(mp)) {
		d->disp_progs = -ENOENT;
		xdp_multiprog__close(mp);
		return 0;
	}
	for (p = xdp_multiprog__next_prog(NULL, mp); p && !ret;
	     p = xdp_multiprog__next_prog(p, mp)) {
		ret = bfctl_xdp_inspect_prog(xdp_program__id(p), false, &b);
		if (ret || !b.ours) {
			bfctl_xdp_blk_release(&b);
			continue;
		}
		b.disp = true;
		b.run_prio = xdp_program__run_prio(p);
		b.xdp_mode = d->xdp.xdp_mode;
		bfctl_xdp_blk_release(&d->xdp);
		d->xdp = b;
		break;
	}
	xdp_multiprog__close(mp);
	/* a program gone meanwhile is no error: the device changed */
	return ret == -ENOENT ? 0 : ret;
}

static enum xdp_attach_mode lx_mode(int mode)
{
	switch (mode) {
	case KB_XDP_MODE_NATIVE:
		return XDP_MODE_NATIVE;
	case KB_XDP_MODE_GENERIC:
		return XDP_MODE_SKB;
	default:
		return XDP_MODE_UNSPEC;	/* the driver's if it has one */
	}
}

/* the id of the XDP program ifindex runs now, 0 if none */
static u32 attached_id(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	return q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id :
	       q.skb_prog_id;
}

int bfctl_xdp_disp_attach(const char *dev, struct dev_state *d,
			  const struct xopts *o, struct xdp_blocklist *skel,
			  bool *alone)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, po, .obj = skel->obj,
			    .prog_name = KB_XDP_PROG_XDP);
	struct xdp_program *p;
	char why[128];
	long err;
	int ret;

	lx_init();
	*alone = false;
	p = xdp_program__create(&po);
	err = libxdp_get_error(p);
	if (err) {
		fprintf(stderr, "bfctl: xdp attach %s: libxdp: %s\n", dev,
			lx_err(err, why, sizeof(why)));
		return (int)(err < 0 ? err : -err);
	}
	/* a replaced blocklist keeps its place unless told otherwise */
	if (o->prio >= 0)
		ret = xdp_program__set_run_prio(p, (unsigned int)o->prio);
	else if (d->xdp.ours && d->xdp.disp)
		ret = xdp_program__set_run_prio(p, d->xdp.run_prio);
	else
		ret = 0;
	if (!ret)
		ret = xdp_program__attach(p, d->ifindex, lx_mode(o->mode), 0);
	if (ret) {
		xdp_program__close(p);
		return ret;
	}
	/* libxdp loads a program alone when the dispatcher cannot be used */
	*alone = attached_id(d->ifindex) == xdp_program__id(p);
	xdp_program__close(p);
	/*
	 * The new blocklist runs beside the old one now; remove the old one
	 * (each step swaps a whole dispatcher in: no packet sees neither)
	 */
	if (d->xdp.ours && d->xdp.disp) {
		ret = bfctl_xdp_disp_detach(dev, d, &d->xdp);
		if (ret)
			fprintf(stderr, "bfctl: xdp attach %s: the blocklist it replaces (program %u) stays attached too: bfctl xdp detach %s twice to remove both\n",
				dev, d->xdp.prog_id, dev);
		return ret ? BFCTL_ERR : 0;
	}
	return 0;
}

int bfctl_xdp_disp_detach(const char *dev, struct dev_state *d,
			  const struct blk *b)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	char why[128];
	long err;
	int ret;

	lx_init();
	/* read again: the dispatcher may have been rebuilt since the probe */
	mp = xdp_multiprog__get_from_ifindex(d->ifindex);
	err = libxdp_get_error(mp);
	if (err) {
		fprintf(stderr, "bfctl: xdp detach %s: reading libxdp's dispatcher: %s\n",
			dev, lx_err(err, why, sizeof(why)));
		return BFCTL_ERR;
	}
	p = xdp_multiprog__is_legacy(mp) ? NULL : mp_find(mp, b->prog_id);
	if (!p) {
		xdp_multiprog__close(mp);
		return bfctl_fail(BFCTL_ERR, "xdp detach",
				  "the blocklist of %s (program %u) is gone from its dispatcher meanwhile",
				  dev, b->prog_id);
	}
	/* only this program: the dispatcher's others stay, in their order */
	ret = xdp_program__detach(p, d->ifindex, xdp_multiprog__attach_mode(mp), 0);
	xdp_multiprog__close(mp);
	if (ret)
		return bfctl_xdp_fail_sys("detach", dev, "detaching from libxdp's dispatcher",
					  ret);
	return BFCTL_OK;
}
