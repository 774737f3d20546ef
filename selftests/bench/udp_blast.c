// SPDX-License-Identifier: GPL-2.0
/*
 * udp_blast DST COUNT SRC...: send COUNT small UDP datagrams to DST (port
 * 9) with sendmmsg, batches taken from the SRC addresses in turn, and
 * print the elapsed nanoseconds.  Used by the netfilter benchmark to push
 * a fixed number of packets through a chain; several sources average the
 * lookup cost over addresses instead of timing one hash bucket or block.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#define BATCH 64
#define MAX_SRC 256

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	char payload[16] = "kbloom-bench";
	int fds[MAX_SRC], nsrc = argc - 3;
	struct timespec t0, t1;
	long count, sent = 0, turn = 0;
	int i;

	count = argc > 2 ? atol(argv[2]) : 0;
	if (argc < 4 || nsrc > MAX_SRC || count <= 0 ||
	    inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: udp_blast DST COUNT SRC...\n");
		return 2;
	}
	for (i = 0; i < nsrc; i++) {
		struct sockaddr_in src = { .sin_family = AF_INET };

		if (inet_pton(AF_INET, argv[3 + i], &src.sin_addr) != 1) {
			fprintf(stderr, "udp_blast: bad address %s\n", argv[3 + i]);
			return 2;
		}
		fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (fds[i] < 0 ||
		    bind(fds[i], (struct sockaddr *)&src, sizeof(src))) {
			perror("udp_blast: socket");
			return 1;
		}
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
		int r = sendmmsg(fds[turn % nsrc], msgs, n, 0);

		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN)
				continue;
			perror("udp_blast: sendmmsg");
			return 1;
		}
		sent += r;
		turn++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
