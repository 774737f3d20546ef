// SPDX-License-Identifier: GPL-2.0
/*
 * udp_blast SRC DST COUNT: send COUNT small UDP datagrams from SRC to DST
 * (port 9) with sendmmsg and print the elapsed nanoseconds.  Used by the
 * netfilter benchmark to push a fixed number of packets through a chain.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#define BATCH 64

int main(int argc, char **argv)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	char payload[16] = "kbloom-bench";
	struct timespec t0, t1;
	long count, sent = 0;
	int fd, i;

	if (argc != 4 || inet_pton(AF_INET, argv[1], &src.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1 ||
	    (count = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: udp_blast SRC DST COUNT\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src))) {
		perror("udp_blast: socket");
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = payload;
		iov[i].iov_len = sizeof(payload);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &dst;
		msgs[i].msg_hdr.msg_namelen = sizeof(dst);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sent < count) {
		int n = count - sent < BATCH ? count - sent : BATCH;
		int r = sendmmsg(fd, msgs, n, 0);

		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN)
				continue;
			perror("udp_blast: sendmmsg");
			return 1;
		}
		sent += r;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
