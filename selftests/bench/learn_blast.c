// SPDX-License-Identifier: GPL-2.0
/*
 * learn_blast DST COUNT FIRST NSRC: send COUNT small UDP datagrams to DST
 * (port 9) from the NSRC source addresses FIRST, FIRST + 1, ... in turn
 * (a raw IPv4 socket with IP_HDRINCL writes any source), with sendmmsg,
 * and print the elapsed nanoseconds.  The learning benchmark sends every
 * packet from a source the learning rules have not seen yet: NSRC = COUNT
 * distinct sources, each learned once.  The receiving side must not drop
 * them for their source (rp_filter off): the rules under test see every
 * packet.  Test traffic only: DST is an address inside the benchmark's
 * own network namespaces.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#define BATCH 64
#define PAYLOAD 16

struct pkt {
	struct iphdr ip;
	struct udphdr udp;
	char data[PAYLOAD];
};

static unsigned short csum(const void *p, int len)
{
	const unsigned short *w = p;
	unsigned int s = 0;

	for (; len > 1; len -= 2)
		s += *w++;
	s = (s >> 16) + (s & 0xffff);
	s += s >> 16;
	return ~s;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	static struct pkt pkts[BATCH];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct in_addr first;
	struct timespec t0, t1;
	long count, nsrc, sent = 0;
	int fd, i, one = 1;

	count = argc == 5 ? atol(argv[2]) : 0;
	nsrc = argc == 5 ? atol(argv[4]) : 0;
	if (argc != 5 || count <= 0 || nsrc <= 0 ||
	    inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[3], &first) != 1) {
		fprintf(stderr, "usage: learn_blast DST COUNT FIRST NSRC\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one))) {
		perror("learn_blast: raw socket");
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		struct pkt *p = &pkts[i];

		p->ip.version = 4;
		p->ip.ihl = 5;
		p->ip.ttl = 64;
		p->ip.protocol = IPPROTO_UDP;
		p->ip.tot_len = htons(sizeof(*p));
		p->ip.daddr = dst.sin_addr.s_addr;
		p->udp.source = htons(40000);
		p->udp.dest = htons(9);
		p->udp.len = htons(sizeof(p->udp) + PAYLOAD);
		memcpy(p->data, "kbloom-learn", 12);
		iov[i].iov_base = p;
		iov[i].iov_len = sizeof(*p);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &dst;
		msgs[i].msg_hdr.msg_namelen = sizeof(dst);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sent < count) {
		int n = count - sent < BATCH ? count - sent : BATCH;
		int r;

		/* the batch's sources (UDP checksum 0: none, as IPv4 allows) */
		for (i = 0; i < n; i++) {
			struct pkt *p = &pkts[i];

			p->ip.saddr = htonl(ntohl(first.s_addr) + (sent + i) % nsrc);
			p->ip.check = 0;
			p->ip.check = csum(&p->ip, sizeof(p->ip));
		}
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN)
				continue;
			perror("learn_blast: sendmmsg");
			return 1;
		}
		sent += r;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
