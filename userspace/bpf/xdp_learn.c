// SPDX-License-Identifier: GPL-2.0
/*
 * xdp-learn: the loader of the XDP learning trap (xdp_learn.bpf.c), an
 * example of docs/bpf.md ("Learning a blocklist"), built by make user and
 * not installed:
 *
 *   xdp-learn attach DEV FILTER PORT [generic|native] [refresh]
 *   xdp-learn detach DEV
 *   xdp-learn stats DEV
 *
 * attach loads the program for FILTER (a blocked filter of the device's
 * network namespace, resolved by the program itself at its first packet)
 * and PORT, and attaches it to DEV's XDP hook, where it stays after the
 * loader exits (refused if DEV has an XDP program already); detach
 * removes whatever XDP program DEV has; stats prints the attached
 * program's counters (xdp_learn.h).  Exit 0, or 1 with a message.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include "xdp_learn.h"
#include "xdp_learn.skel.h"

static int fail(const char *what, int err)
{
	fprintf(stderr, "xdp-learn: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: xdp-learn attach DEV FILTER PORT [generic|native] [refresh]\n"
			"       xdp-learn detach DEV\n"
			"       xdp-learn stats DEV\n");
	return 2;
}

static int attach(int ifindex, int argc, char **argv)
{
	struct xdp_learn *skel;
	__u32 flags = XDP_FLAGS_UPDATE_IF_NOEXIST;
	char *end;
	long port;
	int i, err;

	port = strtol(argv[1], &end, 10);
	if (strlen(argv[0]) >= KB_LEARN_NAME_LEN || *end || port < 1 ||
	    port > 65535)
		return usage();
	skel = xdp_learn__open();
	if (!skel)
		return fail("open", errno);
	skel->rodata->kb_learn_conf.port = htons((__u16)port);
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "generic"))
			flags |= XDP_FLAGS_SKB_MODE;
		else if (!strcmp(argv[i], "native"))
			flags |= XDP_FLAGS_DRV_MODE;
		else if (!strcmp(argv[i], "refresh"))
			skel->rodata->kb_learn_conf.refresh = 1;
		else
			return xdp_learn__destroy(skel), usage();
	}
	memcpy(skel->bss->kb_learn_name, argv[0], strlen(argv[0]));
	err = xdp_learn__load(skel);
	if (!err)
		err = bpf_xdp_attach(ifindex,
				     bpf_program__fd(skel->progs.kbloom_learn),
				     flags, NULL);
	xdp_learn__destroy(skel);	/* the device holds the program */
	return err ? fail("attach", err) : 0;
}

/* the XDP program attached to ifindex: its fd, or -errno */
static int prog_fd(int ifindex)
{
	__u32 id = 0;
	int err = bpf_xdp_query_id(ifindex, 0, &id);

	if (err)
		return err;
	if (!id)
		return -ENOENT;
	err = bpf_prog_get_fd_by_id(id);
	return err < 0 ? -errno : err;
}

/* whichever mode it was attached in (no program in a mode: no error) */
static int detach(int ifindex)
{
	int err = bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL);

	if (!err)
		err = bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL);
	return err ? fail("detach", err) : 0;
}

static const char *const names[KB_LEARN_NR_COUNTERS] = {
	"added", "known", "refused", "dropped", "passed", "other",
};

static int stats(int ifindex)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), map_ids[4], i, j;
	int fd = prog_fd(ifindex), mfd = -1, ncpu = libbpf_num_possible_cpus();
	__u64 v[512];

	if (fd < 0)
		return fail("no XDP program", fd);
	info.nr_map_ids = 4;
	info.map_ids = (__u64)(unsigned long)map_ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return fail("program info", errno);
	close(fd);
	for (i = 0; i < info.nr_map_ids && i < 4 && mfd < 0; i++) {
		struct bpf_map_info mi = {};
		__u32 ml = sizeof(mi);

		fd = bpf_map_get_fd_by_id(map_ids[i]);
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &mi, &ml) &&
		    !strcmp(mi.name, "kb_learn_counte"))
			mfd = fd;
		else if (fd >= 0)
			close(fd);
	}
	if (mfd < 0 || ncpu < 1 || ncpu > 512)
		return fail("not the learning trap", ENOENT);
	for (i = 0; i < KB_LEARN_NR_COUNTERS; i++) {
		__u64 sum = 0;

		if (bpf_map_lookup_elem(mfd, &i, v))
			return fail("counters", errno);
		for (j = 0; j < (__u32)ncpu; j++)
			sum += v[j];
		printf("%s %llu\n", names[i], (unsigned long long)sum);
	}
	close(mfd);
	return 0;
}

int main(int argc, char **argv)
{
	int ifindex;

	if (argc < 3)
		return usage();
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex)
		return fail(argv[2], errno);
	if (!strcmp(argv[1], "attach") && argc >= 5)
		return attach(ifindex, argc - 3, argv + 3);
	if (!strcmp(argv[1], "detach") && argc == 3)
		return detach(ifindex);
	if (!strcmp(argv[1], "stats") && argc == 3)
		return stats(ifindex);
	return usage();
}
