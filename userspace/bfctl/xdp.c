// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl xdp attach|detach|show: the XDP/tc blocklist
 * (userspace/bpf/xdp_blocklist.bpf.c) on a network device of bfctl's
 * network namespace.
 *
 * Nothing is pinned in bpffs: the device holds the program (XDP, or a tc
 * filter of clsact's ingress hook at KB_XDP_TC_HANDLE/KB_XDP_TC_PRIO) and
 * the program holds its maps, so the attachment outlives bfctl, and
 * `show` and `detach` find it from the device and read its configuration
 * back from the program's own maps (.rodata, .bss, kb_counters).  The
 * device is its only owner: a deleted device or network namespace takes
 * the program with it, and no pin left behind keeps kbloom.ko (whose
 * kfuncs the program calls) from unloading.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <net/if_arp.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bfctl.h"
#include "kverbs.h"
#include "xdp.h"
#include "xdp_blocklist.skel.h"

const char *const bfctl_xdp_counter_names[KB_XDP_NR_COUNTERS] = {
	[KB_XDP_PASSED] = "passed",
	[KB_XDP_DROPPED] = "dropped",
	[KB_XDP_NOFILTER] = "nofilter",
	[KB_XDP_NONIP] = "nonip",
};

#define MAX_PROG_MAPS	8

/* while probing: a device without clsact is no news */
static bool libbpf_mute;
/* while trying libxdp's dispatcher when attaching alone is the fallback */
bool bfctl_xdp_mute;

/* libbpf's warnings (a failed load's verifier log) on stderr, not debug */
int bfctl_xdp_libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBBPF_WARN || bfctl_quiet || libbpf_mute || bfctl_xdp_mute)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void blk_init(struct blk *b)
{
	memset(b, 0, sizeof(*b));
	b->prog_fd = -1;
}

void bfctl_xdp_blk_release(struct blk *b)
{
	if (b->prog_fd >= 0)
		close(b->prog_fd);
	b->prog_fd = -1;
}

/* the sum over CPUs of each of the per-CPU counters of map fd */
static int read_counters(int fd, u64 *cnt)
{
	int ncpu = libbpf_num_possible_cpus();
	u64 *v;
	u32 i;
	int c;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < KB_XDP_NR_COUNTERS; i++) {
		if (bpf_map_lookup_elem(fd, &i, v)) {
			free(v);
			return -errno;
		}
		for (c = 0, cnt[i] = 0; c < ncpu; c++)
			cnt[i] += v[c];
	}
	free(v);
	return 0;
}

/* one of the program's maps: the configuration, the name or the counters */
static int inspect_map(u32 id, struct blk *b, bool *conf, bool *name)
{
	struct bpf_map_info mi = {};
	u32 len = sizeof(mi);
	u32 zero = 0;
	int fd, ret = 0;

	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &mi, &len)) {
		ret = -errno;
	} else if (ends_with(mi.name, ".rodata") &&
		   mi.value_size == sizeof(b->conf)) {
		if (bpf_map_lookup_elem(fd, &zero, &b->conf))
			ret = -errno;
		*conf = !ret;
	} else if (ends_with(mi.name, ".bss") &&
		   mi.value_size == sizeof(b->name)) {
		if (bpf_map_lookup_elem(fd, &zero, b->name))
			ret = -errno;
		b->name[sizeof(b->name) - 1] = 0;
		*name = !ret;
	} else if (ends_with(mi.name, ".data.kb_id") &&
		   mi.value_size == sizeof(b->id)) {
		/* not required: the program updates it, a read may race */
		if (bpf_map_lookup_elem(fd, &zero, &b->id))
			b->id = 0;
	} else if (!strcmp(mi.name, "kb_counters") &&
		   mi.type == BPF_MAP_TYPE_PERCPU_ARRAY &&
		   mi.value_size == sizeof(u64) &&
		   mi.max_entries >= KB_XDP_NR_COUNTERS) {
		ret = read_counters(fd, b->cnt);
	}
	close(fd);
	return ret;
}

/*
 * Program id, found on a device: b says what it is (b->ours: bfctl's
 * blocklist, configuration and counters read; b->disp without ours:
 * libxdp's dispatcher), and keeps an fd of it (to detach exactly this
 * program).  0 or -errno.
 */
int bfctl_xdp_inspect_prog(u32 id, bool tc, struct blk *b)
{
	struct bpf_prog_info pi = {};
	u32 ids[MAX_PROG_MAPS], len = sizeof(pi), i, n;
	bool conf = false, name = false;
	int ret;

	blk_init(b);
	b->tc = tc;
	b->prog_id = id;
	b->prog_fd = bpf_prog_get_fd_by_id(id);
	if (b->prog_fd < 0) {
		b->prog_fd = -1;
		return -errno;
	}
	pi.nr_map_ids = MAX_PROG_MAPS;
	pi.map_ids = (u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(b->prog_fd, &pi, &len))
		return -errno;
	if (!tc && !strcmp(pi.name, KB_XDP_DISPATCHER))
		b->disp = true;
	if (strcmp(pi.name, tc ? KB_XDP_PROG_TC : KB_XDP_PROG_XDP))
		return 0;
	n = pi.nr_map_ids < MAX_PROG_MAPS ? pi.nr_map_ids : MAX_PROG_MAPS;
	for (i = 0; i < n; i++) {
		ret = inspect_map(ids[i], b, &conf, &name);
		if (ret)
			return ret;
	}
	b->ours = conf && name && b->conf.magic == KB_XDP_MAGIC;
	return 0;
}

/* the device's XDP program (any mode) and bfctl's tc filter; 0 or -errno */
int bfctl_xdp_dev_probe(int ifindex, struct dev_state *d)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, t, .handle = KB_XDP_TC_HANDLE,
		    .priority = KB_XDP_TC_PRIO);
	u32 id = 0, mode = 0;
	int ret;

	memset(d, 0, sizeof(*d));
	blk_init(&d->xdp);
	blk_init(&d->tc);
	d->ifindex = ifindex;
	if (!if_indextoname(ifindex, d->dev))
		return -errno;
	ret = bpf_xdp_query(ifindex, 0, &q);
	if (ret)
		return ret;
	/* one mode at a time for bpf_xdp_attach's programs (no multi-prog) */
	if (q.drv_prog_id)
		id = q.drv_prog_id, mode = XDP_ATTACHED_DRV;
	else if (q.skb_prog_id)
		id = q.skb_prog_id, mode = XDP_ATTACHED_SKB;
	else if (q.hw_prog_id)
		id = q.hw_prog_id, mode = XDP_ATTACHED_HW;
	if (id) {
		ret = bfctl_xdp_inspect_prog(id, false, &d->xdp);
		if (ret)
			return ret;
		d->xdp.xdp_mode = mode;
		/* libxdp's: bfctl's blocklist may be one of its programs */
		if (d->xdp.disp) {
			ret = bfctl_xdp_disp_probe(d);
			if (ret)
				return ret;
		}
	}
	/* tcx first (6.6+): there, not at the tc filter's handle */
	ret = bfctl_xdp_tcx_probe(d);
	if (ret || d->tc.ours)
		return ret;
	libbpf_mute = true;
	ret = bpf_tc_query(&hook, &t);
	libbpf_mute = false;
	/* no clsact qdisc (EINVAL) or no filter at our handle (ENOENT) */
	if (ret == -ENOENT || ret == -EINVAL)
		return 0;
	if (ret)
		return ret;
	return bfctl_xdp_inspect_prog(t.prog_id, true, &d->tc);
}

void bfctl_xdp_dev_release(struct dev_state *d)
{
	bfctl_xdp_blk_release(&d->xdp);
	bfctl_xdp_blk_release(&d->tc);
}

const char *bfctl_xdp_mode_name(const struct blk *b)
{
	if (b->tc)
		return "tc";
	switch (b->xdp_mode) {
	case XDP_ATTACHED_DRV:
		return "native";
	case XDP_ATTACHED_SKB:
		return "generic";
	default:
		return "offload";
	}
}

int bfctl_xdp_fail_sys(const char *what, const char *dev, const char *step,
		    int err)
{
	if (err < 0)
		err = -err;
	fprintf(stderr, "bfctl: xdp %s %s: %s: %s%s\n", what, dev, step,
		strerror(err),
		err == EPERM ? " (needs CAP_SYS_ADMIN or CAP_BPF + CAP_NET_ADMIN: run as root)" :
		"");
	return BFCTL_ERR;
}

/* DEV -> ifindex, or BFCTL_ERR with a message */
int bfctl_xdp_dev_index(const char *what, const char *dev, int *ifindex)
{
	*ifindex = strlen(dev) < IF_NAMESIZE ? (int)if_nametoindex(dev) : 0;
	if (!*ifindex)
		return bfctl_fail(BFCTL_ERR, what, "no device '%s' in this network namespace",
				  dev);
	return BFCTL_OK;
}

/*
 * The program parses Ethernet frames: on an L3 device (WireGuard, tun,
 * ipip) or loopback it would read IP headers as Ethernet ones and let
 * almost everything pass.  SIOCGIFHWADDR answers for this netns's DEV
 * (sysfs may be mounted for another).
 */
static int dev_ether(const char *what, const char *dev)
{
	struct ifreq ifr;
	int fd, ret;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return bfctl_xdp_fail_sys("attach", dev, "socket", -errno);
	ret = ioctl(fd, SIOCGIFHWADDR, &ifr) ? -errno : 0;
	close(fd);
	if (ret)
		return bfctl_xdp_fail_sys("attach", dev, "reading its link type", ret);
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		return bfctl_fail(BFCTL_ERR, what,
				  "%s is not an Ethernet device (link type %u): the blocklist parses Ethernet frames only",
				  dev, ifr.ifr_hwaddr.sa_family);
	return BFCTL_OK;
}

/* ---- attach ---- */

/*
 * The filter the blocklist will test: refuse what cannot serve it.  *id:
 * its id (0 if it does not exist yet), the program's first guess.
 */
static int check_filter(const char *what, const char *name, bool force,
			u64 *id)
{
	struct kb_ioc_info i;
	struct kbconn conn;
	int ret;

	kbconn_init(&conn);
	ret = kbconn_info(&conn, name, &i);
	if (ret == -ENOENT && force) {
		kbconn_close(&conn);
		/* loud: until it exists the blocklist blocks nothing */
		fprintf(stderr, "bfctl: %s: warning: no filter '%s' in this network namespace: until it is created every packet passes (counted as nofilter)\n",
			what, name);
		return BFCTL_OK;
	}
	if (ret == -ENOENT) {
		kbconn_close(&conn);
		return bfctl_fail(BFCTL_ERR, what,
				  "no filter '%s' in this network namespace: the blocklist would block nothing (--force attaches anyway)",
				  name);
	}
	if (ret) {
		ret = bfctl_fail_err(&conn, what, ret);
		kbconn_close(&conn);
		return ret;
	}
	kbconn_close(&conn);
	*id = i.id;
	switch (i.key_type) {
	case KB_KEY_IPV4:
	case KB_KEY_IPV6:
	case KB_KEY_IP:
	case KB_KEY_NET4:
	case KB_KEY_NET6:
	case KB_KEY_NET:
		return BFCTL_OK;
	default:
		return bfctl_fail(BFCTL_ERR, what,
				  "filter '%s' has key type %s, which holds no addresses (ipv4, ipv6, ip, net4, net6 or net)",
				  name, kb_key_type_name(i.key_type));
	}
}

/*
 * Open and configure the program for ifindex (only the one of mode
 * loads); the skeleton is destroyed by the caller after attaching (the
 * device, or libxdp's pins, then hold the program, its maps with it).
 */
static int open_prog(struct xdp_blocklist **skelp, const struct xopts *o,
		     int ifindex, const char *name, u64 id)
{
	struct xdp_blocklist *skel;
	bool tc = o->mode == KB_XDP_MODE_TC;

	skel = xdp_blocklist__open();
	if (!skel)
		return -errno;
	*skelp = skel;
	skel->rodata->kb_conf.magic = KB_XDP_MAGIC;
	skel->rodata->kb_conf.version = KB_XDP_VERSION;
	skel->rodata->kb_conf.dir = o->dir;
	skel->rodata->kb_conf.mode = o->mode < 0 ? KB_XDP_MODE_AUTO : o->mode;
	skel->rodata->kb_conf.ifindex = ifindex;
	snprintf(skel->bss->kb_name, sizeof(skel->bss->kb_name), "%s", name);
	skel->data_kb_id->kb_id = id;
	/* the other program would need the other hook's kfuncs verified too */
	bpf_program__set_autoload(tc ? skel->progs.kbloom_xdp : skel->progs.kbloom_tc,
				  false);
	return 0;
}

/* open_prog() and load: the program's fd */
static int load_prog(struct xdp_blocklist **skelp, const struct xopts *o,
		     int ifindex, const char *name, u64 id)
{
	struct xdp_blocklist *skel;
	bool tc = o->mode == KB_XDP_MODE_TC;
	int ret;

	ret = open_prog(skelp, o, ifindex, name, id);
	if (ret)
		return ret;
	skel = *skelp;
	ret = xdp_blocklist__load(skel);
	if (ret)
		return ret;
	return bpf_program__fd(tc ? skel->progs.kbloom_tc : skel->progs.kbloom_xdp);
}

static u32 xdp_mode_flags(int mode)
{
	switch (mode) {
	case KB_XDP_MODE_NATIVE:
		return XDP_FLAGS_DRV_MODE;
	case KB_XDP_MODE_GENERIC:
		return XDP_FLAGS_SKB_MODE;
	default:
		return 0;	/* driver mode if the driver has one */
	}
}

static int mode_from_attached(u32 xdp_mode)
{
	return xdp_mode == XDP_ATTACHED_SKB ? KB_XDP_MODE_GENERIC :
	       xdp_mode == XDP_ATTACHED_DRV ? KB_XDP_MODE_NATIVE : KB_XDP_MODE_AUTO;
}

static int attach_xdp(const char *what, const char *dev, struct dev_state *d,
		      struct xopts *o, int fd)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	u32 flags = xdp_mode_flags(o->mode);
	int ret;

	if (d->xdp.prog_id) {
		/* exactly the program we saw, or fail: no lost race */
		flags |= XDP_FLAGS_REPLACE;
		ao.old_prog_fd = d->xdp.prog_fd;
	} else {
		flags |= XDP_FLAGS_UPDATE_IF_NOEXIST;
	}
	ret = bpf_xdp_attach(d->ifindex, fd, flags, &ao);
	if (ret == -EOPNOTSUPP && o->mode == KB_XDP_MODE_NATIVE)
		return bfctl_fail(BFCTL_ERR, what,
				  "the driver of %s has no native XDP (--mode generic or tc)",
				  dev);
	if (ret == -EEXIST || ret == -EBUSY)
		return bfctl_fail(BFCTL_ERR, what,
				  "%s has another XDP program now, or one in another mode: %s",
				  dev, strerror(-ret));
	if (ret)
		return bfctl_xdp_fail_sys("attach", dev, "attaching", ret);
	return BFCTL_OK;
}

/*
 * The kernel replaces and deletes a tc filter by handle and priority,
 * whatever program it holds: before either, check that the filter there
 * still holds the program inspected (b), by id, so that a program put
 * there since (a foreign one, or another bfctl's) is left alone.  A
 * window stays between this check and the request: a cls_bpf filter has
 * no compare-and-replace (tcx links would, from 6.6; 6.1 has none).
 */
static int tc_same_prog(const char *what, const char *dev, struct dev_state *d,
			const struct blk *b)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = d->ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, t, .handle = KB_XDP_TC_HANDLE,
		    .priority = KB_XDP_TC_PRIO);
	char verb[64];
	int ret;

	snprintf(verb, sizeof(verb), "xdp %s %s", what, dev);
	libbpf_mute = true;
	ret = bpf_tc_query(&hook, &t);
	libbpf_mute = false;
	if (ret == -ENOENT || ret == -EINVAL)
		t.prog_id = 0;
	else if (ret)
		return bfctl_xdp_fail_sys(what, dev, "reading its tc filter", ret);
	if (t.prog_id == b->prog_id)
		return BFCTL_OK;
	if (!t.prog_id)
		return bfctl_fail(BFCTL_ERR, verb,
				  "the tc filter of %s (program %u) is gone meanwhile",
				  dev, b->prog_id);
	return bfctl_fail(BFCTL_ERR, verb,
			  "the tc filter of %s at handle and priority 0x%x is program %u now, not %u: left alone",
			  dev, KB_XDP_TC_HANDLE, t.prog_id, b->prog_id);
}

static int attach_tc(const char *dev, struct dev_state *d, int fd)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = d->ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, t, .handle = KB_XDP_TC_HANDLE,
		    .priority = KB_XDP_TC_PRIO, .prog_fd = fd);
	int ret;

	/* tcx where the kernel has it, but over a filter at our handle */
	if ((!d->tc.prog_id || d->tc.tcx) && bfctl_xdp_tcx_available(d->ifindex))
		return bfctl_xdp_tcx_attach(dev, d, fd);
	/*
	 * The clsact qdisc stays after detach (other filters may use it by
	 * then; `tc qdisc del dev DEV clsact` removes it)
	 */
	ret = bpf_tc_hook_create(&hook);
	if (ret && ret != -EEXIST)
		return bfctl_xdp_fail_sys("attach", dev, "creating the clsact qdisc", ret);
	/* without REPLACE the kernel refuses a filter that came meanwhile */
	if (d->tc.prog_id) {
		ret = tc_same_prog("attach", dev, d, &d->tc);
		if (ret)
			return ret;
		t.flags = BPF_TC_F_REPLACE;
	}
	ret = bpf_tc_attach(&hook, &t);
	if (ret)
		return bfctl_xdp_fail_sys("attach", dev, "attaching the tc filter", ret);
	return BFCTL_OK;
}

static void load_failed(const char *dev, const char *step, int err)
{
	char why[128];
	enum bfctl_kf kf = bfctl_kfuncs_state(why, sizeof(why));

	bfctl_xdp_fail_sys("attach", dev, step, err);
	if (kf != BFCTL_KF_YES)
		fprintf(stderr, "bfctl: kbloom's kfuncs are %s: %s (bfctl version)\n",
			kf == BFCTL_KF_PARTIAL ? "partly registered" : "unavailable",
			why);
}

/* the blocklist alone on the hook: XDP, or tc */
static int attach_alone(const char *dev, struct dev_state *d,
			struct xopts *o, const char *name, u64 id)
{
	struct xdp_blocklist *skel = NULL;
	int fd, ret = BFCTL_ERR;

	fd = load_prog(&skel, o, d->ifindex, name, id);
	if (fd < 0)
		load_failed(dev, "loading the program", fd);
	else if (o->mode == KB_XDP_MODE_TC)
		ret = attach_tc(dev, d, fd);
	else
		ret = attach_xdp(bfctl_verb_name("xdp attach", dev), dev, d, o, fd);
	xdp_blocklist__destroy(skel);
	return ret;
}

/*
 * Through libxdp's dispatcher: 0, -errno (told on stderr unless quiet; a
 * device without an XDP program is unchanged), or BFCTL_ERR (told).
 * *alone: libxdp attached the blocklist without a dispatcher.
 */
static int attach_disp(const char *dev, struct dev_state *d, struct xopts *o,
		       const char *name, u64 id, bool quiet, bool *alone)
{
	struct xdp_blocklist *skel = NULL;
	int ret;

	ret = open_prog(&skel, o, d->ifindex, name, id);
	if (!ret) {
		bfctl_xdp_mute = quiet;
		ret = bfctl_xdp_disp_attach(dev, d, o, skel, alone);
		bfctl_xdp_mute = false;
	}
	if (ret < 0 && !quiet)
		load_failed(dev, "loading it into libxdp's dispatcher", ret);
	xdp_blocklist__destroy(skel);
	return ret;
}

/* how the blocklist went on DEV's XDP hook, on stdout (not with -q) */
static void say_how(const char *dev, const struct dev_state *d,
		    const struct xopts *o, bool disp, const char *why)
{
	if (bfctl_quiet)
		return;
	if (disp)
		printf("%s: in libxdp's dispatcher at priority %ld\n", dev,
		       o->prio >= 0 ? o->prio : d->xdp.ours && d->xdp.disp ?
		       (long)d->xdp.run_prio : KB_XDP_PRIO_DEFAULT);
	else
		printf("%s: alone, without libxdp's dispatcher (%s): other XDP programs cannot run beside it\n",
		       dev, why);
}

static int xdp_attach(int argc, char **argv)
{
	const char *dev, *name, *what = "xdp attach", *why = NULL;
	struct dev_state d;
	struct xopts o;
	struct blk *same, *other;
	bool tc, alone = false;
	int ifindex, ret;
	u64 id = 0;

	ret = bfctl_xdp_parse_opts(argc, argv, what, true, &o);
	if (ret)
		return ret;
	if (o.npos != 2)
		return bfctl_usage(what, "%s",
				   "usage: xdp attach DEV NAME [--dir src|dst] [--mode native|generic|tc] [--priority N] [--no-dispatcher] [--force] [--replace]");
	dev = o.pos[0];
	name = o.pos[1];
	tc = o.mode == KB_XDP_MODE_TC;
	if (!kb_name_valid(name, (u32)strlen(name)))
		return bfctl_usage(what, "bad filter name '%s' (1..31 of A-Z a-z 0-9 _ . : -)",
				   name);
	ret = bfctl_xdp_dev_index(what, dev, &ifindex);
	if (!ret)
		ret = dev_ether(what, dev);
	if (ret)
		return ret;
	ret = check_filter(bfctl_verb_name(what, dev), name, o.force, &id);
	if (ret)
		return ret;
	libbpf_set_print(bfctl_xdp_libbpf_print);
	ret = bfctl_xdp_dev_probe(ifindex, &d);
	if (ret) {
		bfctl_xdp_dev_release(&d);
		return bfctl_xdp_fail_sys("attach", dev, "reading its programs", ret);
	}
	same = tc ? &d.tc : &d.xdp;
	other = tc ? &d.xdp : &d.tc;
	ret = BFCTL_ERR;
	if (other->ours) {
		bfctl_fail(BFCTL_ERR, what,
			   "%s has a kbloom blocklist (%s) already: bfctl xdp detach %s first",
			   dev, bfctl_xdp_mode_name(other), dev);
		goto out;
	}
	/* a dispatcher is joined, not replaced: --replace is not needed */
	if (!tc && d.disp_id && o.no_disp) {
		bfctl_fail(BFCTL_ERR, what,
			   "%s runs libxdp's dispatcher (program %u): alone, the blocklist would replace all its programs; attach without --no-dispatcher",
			   dev, d.disp_id);
		goto out;
	}
	if (!tc && d.disp_id && d.disp_progs < 0) {
		bfctl_fail(BFCTL_ERR, what,
			   "%s runs libxdp's dispatcher (program %u) whose programs cannot be read: %s (is its bpffs mounted here? LIBXDP_BPFFS names another)",
			   dev, d.disp_id, strerror(-d.disp_progs));
		goto out;
	}
	if (same->prog_id && !same->ours && !o.replace && !(!tc && d.disp_id)) {
		bfctl_fail(BFCTL_ERR, what,
			   "%s has %s program %u that is not a kbloom blocklist; not replacing it without --replace",
			   dev, same->tc ? "a tc" : "an XDP", same->prog_id);
		goto out;
	}
	/*
	 * An XDP program (ours, or a foreign one with --replace) is replaced
	 * in place, in its mode, and a dispatcher joined in its mode: the
	 * kernel has one mode at a time
	 */
	if (same->prog_id && !same->tc && o.mode < 0)
		o.mode = mode_from_attached(same->xdp_mode);
	if (same->prog_id && !same->tc && o.mode != mode_from_attached(same->xdp_mode)) {
		if (same->ours)
			bfctl_fail(BFCTL_ERR, what,
				   "%s has a kbloom blocklist in XDP %s mode: bfctl xdp detach %s first",
				   dev, bfctl_xdp_mode_name(same), dev);
		else if (d.disp_id)
			bfctl_fail(BFCTL_ERR, what,
				   "%s runs libxdp's dispatcher in XDP %s mode: its programs share one mode",
				   dev, bfctl_xdp_mode_name(same));
		else
			bfctl_fail(BFCTL_ERR, what,
				   "%s has an XDP program in XDP %s mode: remove it first (ip link set dev %s xdp off)",
				   dev, bfctl_xdp_mode_name(same), dev);
		goto out;
	}
	/*
	 * Through libxdp's dispatcher unless told not to, or replacing a
	 * program that is not in one (ours alone, or a foreign one): libxdp
	 * would refuse the device.  A device without XDP program falls back
	 * to attaching alone when the dispatcher cannot be used.
	 */
	if (tc) {
		ret = attach_alone(dev, &d, &o, name, id);
	} else if (o.no_disp || (same->prog_id && !d.disp_id)) {
		why = o.no_disp ? "--no-dispatcher" : same->ours ?
		      "the blocklist it replaces was alone: detach it first to use the dispatcher" :
		      "it replaces a program that is not in one";
		ret = attach_alone(dev, &d, &o, name, id);
	} else {
		ret = attach_disp(dev, &d, &o, name, id, !same->prog_id, &alone);
		if (ret && !same->prog_id) {
			why = "libxdp could not use one here";
			if (!bfctl_quiet)
				fprintf(stderr, "bfctl: xdp attach %s: libxdp's dispatcher: %s: attaching alone\n",
					dev, strerror(-ret));
			ret = attach_alone(dev, &d, &o, name, id);
		} else if (ret) {
			ret = BFCTL_ERR;
		} else if (alone) {
			why = "libxdp loaded it alone: no bpffs at /sys/fs/bpf or $LIBXDP_BPFFS?";
		}
	}
	if (!ret && !tc)
		say_how(dev, &d, &o, !why, why);
	/* exactly that program was replaced (XDP_FLAGS_REPLACE, or checked) */
	if (!ret && same->prog_id && !same->ours && !(!tc && d.disp_id))
		printf("%s: replaced %s program %u (not a kbloom blocklist)\n",
		       dev, same->tc ? "tc" : "XDP", same->prog_id);
out:
	bfctl_xdp_dev_release(&d);
	return ret;
}

/* ---- detach ---- */

static int detach_one(const char *dev, struct dev_state *d, struct blk *b)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = d->ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, t, .handle = KB_XDP_TC_HANDLE,
		    .priority = KB_XDP_TC_PRIO);
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao, .old_prog_fd = b->prog_fd);
	u32 flags;
	int ret;

	if (b->disp)
		return bfctl_xdp_disp_detach(dev, d, b);
	if (b->tcx)
		return bfctl_xdp_tcx_detach(dev, d, b);
	if (b->tc) {
		ret = tc_same_prog("detach", dev, d, b);
		if (ret)
			return ret;
		ret = bpf_tc_detach(&hook, &t);
	} else {
		flags = xdp_mode_flags(mode_from_attached(b->xdp_mode));
		/* only the program we inspected: a replacement stays */
		ret = bpf_xdp_detach(d->ifindex, flags | XDP_FLAGS_REPLACE, &ao);
	}
	if (ret)
		return bfctl_xdp_fail_sys("detach", dev, "detaching", ret);
	return BFCTL_OK;
}

static int xdp_detach(int argc, char **argv)
{
	const char *what = "xdp detach";
	struct dev_state d;
	struct xopts o;
	int ifindex, ret;

	ret = bfctl_xdp_parse_opts(argc, argv, what, false, &o);
	if (ret)
		return ret;
	if (o.npos != 1)
		return bfctl_usage(what, "%s", "usage: xdp detach DEV");
	ret = bfctl_xdp_dev_index(what, o.pos[0], &ifindex);
	if (ret)
		return ret;
	libbpf_set_print(bfctl_xdp_libbpf_print);
	ret = bfctl_xdp_dev_probe(ifindex, &d);
	if (ret) {
		bfctl_xdp_dev_release(&d);
		return bfctl_xdp_fail_sys("detach", o.pos[0], "reading its programs", ret);
	}
	/* the tests (bfctl_xdp.sh) change the device here */
	bfctl_test_pause("BFCTL_XDP_TEST_PAUSE");
	if (!d.xdp.ours && !d.tc.ours) {
		ret = bfctl_fail(BFCTL_ERR, bfctl_verb_name(what, o.pos[0]),
				 "no kbloom blocklist on %s%s", o.pos[0],
				 d.disp_id && d.disp_progs < 0 ?
				 " seen: the programs of its libxdp dispatcher are pinned in a bpffs not mounted here (LIBXDP_BPFFS names one)" :
				 d.xdp.prog_id ? " (its XDP program is not one: left alone)" : "");
	} else {
		ret = BFCTL_OK;
		if (d.xdp.ours)
			ret = detach_one(o.pos[0], &d, &d.xdp);
		if (d.tc.ours && !ret)
			ret = detach_one(o.pos[0], &d, &d.tc);
	}
	bfctl_xdp_dev_release(&d);
	return ret;
}

int bfctl_xdp_main(int argc, char **argv)
{
	if (argc < 2)
		return bfctl_usage("xdp", "%s", "attach, detach or show? (bfctl help xdp)");
	if (!strcmp(argv[1], "attach"))
		return xdp_attach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "detach"))
		return xdp_detach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return bfctl_xdp_show(argc - 1, argv + 1);
	return bfctl_usage("xdp", "unknown xdp verb '%s' (attach, detach or show)",
			   argv[1]);
}
