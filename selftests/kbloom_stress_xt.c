// SPDX-License-Identifier: GPL-2.0
/*
 * Stress, the xt roles (see kbloom_stress.c): UDP from a blocked and an
 * allowed source in NS_SRC to NS_DST, whose INPUT chain drops the blocked
 * one with "-m bloom --bloom-name xt.bl --bloom-dir src", while xt.bl is
 * rebuilt, swapped with xt.bl2, refused rename and destroy (a rule holds
 * it), and rules on xt.bl2 come and go.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "kbloom_stress.h"

void *kbs_role_xt_rebuild(void *arg)
{
	__u64 seed = 0x5eed0004, r;
	int fd = kbs.dst_fd;

	for (r = 0; kbs_running(); r++) {
		kbs_rebuild(fd, "xt.bl", KB_KEY_IPV4, &kbs.bl, 4, 1, &seed);
		if (r % 4 == 1)
			kbs_rebuild(fd, "xt.bl2", KB_KEY_IPV4, &kbs.bl, 4, 1, &seed);
		if (r % 2)	/* the rule follows the name xt.bl */
			kbs_chk(kbt_name2(fd, KB_CMD_SWAP, "xt.bl", "xt.bl2"), 0,
			    "swap", "xt.bl");
		if (r % 8 == 0) {	/* a filter held by a rule */
			int e = kbt_name2(fd, KB_CMD_RENAME, "xt.bl", "xt.x");

			if (e != -EBUSY)
				kbs_fail("rename of xt.bl (in a rule): %d, not EBUSY",
					 e);
			e = kbt_destroy(fd, "xt.bl");
			if (e != -EBUSY)
				kbs_fail("destroy of xt.bl (in a rule): %d, not EBUSY",
					 e);
		}
		if (r % 16 == 8 &&	/* rules come and go */
		    (kbt_sh("ip netns exec " NS_DST " iptables -w -A OUTPUT -m bloom --bloom-name xt.bl2 -j ACCEPT") ||
		     kbt_sh("ip netns exec " NS_DST " iptables -w -D OUTPUT -m bloom --bloom-name xt.bl2 -j ACCEPT")))
			kbs_fail("iptables rule on xt.bl2 add/delete failed");
		atomic_fetch_add(&kbs.ops[R_XT_REBUILD], 1);
	}
	return NULL;
}

void *kbs_role_xt_send(void *arg)
{
	while (kbs_running()) {
		sendto(kbs.tx_ok, "ok", 2, 0, (void *)&kbs.to, sizeof(kbs.to));
		if (sendto(kbs.tx_bl, "bl", 2, 0, (void *)&kbs.to,
			   sizeof(kbs.to)) == 2)
			atomic_fetch_add(&kbs.tx_bl_sent, 1);
		atomic_fetch_add(&kbs.ops[R_XT_SEND], 1);
		usleep(300);
	}
	return NULL;
}

int kbs_xt_recv_one(int flags)
{
	struct sockaddr_in from;
	socklen_t len = sizeof(from);
	char buf[16];

	if (recvfrom(kbs.rx, buf, sizeof(buf), flags, (void *)&from, &len) < 0)
		return 0;
	if (from.sin_addr.s_addr == kbs.bl.s_addr)
		atomic_fetch_add(&kbs.rx_bl, 1);
	else if (from.sin_addr.s_addr == kbs.ok.s_addr)
		atomic_fetch_add(&kbs.rx_ok, 1);
	return 1;
}

void *kbs_role_xt_recv(void *arg)
{
	while (kbs_running()) {
		kbs_xt_recv_one(0);		/* SO_RCVTIMEO: sees stop */
		atomic_fetch_add(&kbs.ops[R_XT_RECV], 1);
	}
	return NULL;
}

/*
 * A file of netns ns (for this thread only, setns): /dev/kbloom if addr is
 * NULL, else a UDP socket bound to addr:port.  -1 on failure.
 */
static int kbs_fd_in(const char *ns, const struct in_addr *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_usec = 100000 };
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int nsfd, fd = -1;
	char path[64];

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (self >= 0 && nsfd >= 0 && !setns(nsfd, CLONE_NEWNET)) {
		fd = addr ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0) :
			    kbt_open();
		if (addr && fd >= 0) {
			sa.sin_addr = *addr;
			if (bind(fd, (void *)&sa, sizeof(sa)) ||
			    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				       sizeof(tv)))
				kbs_close_fd(&fd);
		}
		if (setns(self, CLONE_NEWNET))
			abort();	/* this thread would stay in ns */
	}
	close(nsfd);
	close(self);
	return fd;
}

long kbs_rule_pkts(void)
{
	return kbt_sh_long("ip netns exec " NS_DST " iptables -w -L INPUT -v -x -n | "
			   "awk '/bloom/ { print $1; exit }'");
}

const char *kbs_xt_missing(void)
{
	if (access("/sys/module/xt_bloom", F_OK))
		return "xt_bloom not loaded";
	if (access(XT_LIBDIR "/libxt_bloom.so", R_OK))
		return "no " XT_LIBDIR "/libxt_bloom.so";
	if (kbt_sh("iptables -V >/dev/null 2>&1 && ip -V >/dev/null 2>&1"))
		return "no iptables or ip";
	return NULL;
}

const char *kbs_xt_setup(void)
{
	int i;

	setenv("XTABLES_LIBDIR", XT_LIBDIR ":" XT_SYSDIR, 1);
	kbt_sh("ip netns del " NS_SRC " 2>/dev/null; ip netns del " NS_DST " 2>/dev/null");
	if (kbt_sh("ip netns add " NS_SRC " && ip netns add " NS_DST " && "
			"ip -n " NS_SRC " link add veth-s type veth peer name veth-d netns " NS_DST " && "
			"ip -n " NS_SRC " link set veth-s up && ip -n " NS_DST " link set veth-d up && "
			"ip -n " NS_DST " addr add 10.98.0.1/24 dev veth-d && "
			"ip -n " NS_SRC " addr add 10.98.0.2/24 dev veth-s && "
			"ip -n " NS_SRC " addr add 10.98.0.3/24 dev veth-s"))
		return "namespaces and veth";
	inet_pton(AF_INET, "10.98.0.1", &kbs.dst);
	inet_pton(AF_INET, "10.98.0.2", &kbs.ok);
	inet_pton(AF_INET, "10.98.0.3", &kbs.bl);
	kbs.to = (struct sockaddr_in){ .sin_family = AF_INET,
				      .sin_port = htons(XT_PORT),
				      .sin_addr = kbs.dst };
	kbs.dst_fd = kbs_fd_in(NS_DST, NULL, 0);
	if (kbs.dst_fd < 0)
		return "open " KB_DEV " in " NS_DST;
	if (kbt_create(kbs.dst_fd, "xt.bl", KB_KIND_BLOCKED, KB_KEY_IPV4, 1000) ||
	    kbt_create(kbs.dst_fd, "xt.bl2", KB_KIND_COUNTING, KB_KEY_IPV4, 1000) ||
	    kbs_add(kbs.dst_fd, "xt.bl", 0, &kbs.bl, 4, 1) ||
	    kbs_add(kbs.dst_fd, "xt.bl2", 0, &kbs.bl, 4, 1))
		return "filters xt.bl and xt.bl2";
	if (kbt_sh("ip netns exec " NS_DST " iptables -w -A INPUT -p udp "
		   "--dport %d -m bloom --bloom-name xt.bl --bloom-dir src -j DROP",
		   XT_PORT))
		return "the -m bloom DROP rule";
	kbs.rx = kbs_fd_in(NS_DST, &kbs.dst, XT_PORT);
	kbs.tx_ok = kbs_fd_in(NS_SRC, &kbs.ok, 0);
	kbs.tx_bl = kbs_fd_in(NS_SRC, &kbs.bl, 0);
	if (kbs.rx < 0 || kbs.tx_ok < 0 || kbs.tx_bl < 0)
		return "UDP sockets";
	/* the allowed source gets through before the stress (ARP, TCG) */
	for (i = 0; i < 200 && !atomic_load(&kbs.rx_ok); i++) {
		sendto(kbs.tx_ok, "ok", 2, 0, (void *)&kbs.to, sizeof(kbs.to));
		kbs_xt_recv_one(0);
	}
	if (!atomic_load(&kbs.rx_ok))
		return "the allowed source does not get through";
	while (kbs_xt_recv_one(MSG_DONTWAIT))
		;
	atomic_store(&kbs.rx_ok, 0);
	if (atomic_load(&kbs.rx_bl))
		return "the blocked source got through";
	return NULL;
}
