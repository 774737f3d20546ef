/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stress selftest's shared state and helpers: kbloom_stress.c (the
 * harness, the kbloom roles) and kbloom_stress_xt.c (the iptables roles).
 */
#ifndef _KBLOOM_STRESS_H
#define _KBLOOM_STRESS_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "kb_test.h"

#define NS_SRC		"kbs_src"
#define NS_DST		"kbs_dst"
#define XT_PORT		9999
#define E(e)		(1ULL << (e))	/* an accepted errno */

enum role {
	R_LOOKUP, R_ADD, R_REBUILD, R_SWAP, R_RENAME, R_CHURN, R_NETNS,
	R_XT_REBUILD, R_XT_SEND, R_XT_RECV, NR_ROLES
};

/* shared by the workers (the harness runs each test in its own process) */
struct kbs_state {
	atomic_int stop;
	atomic_long ops[NR_ROLES];
	atomic_long bad;		/* unexpected results, false negatives */
	atomic_long false_neg;
	char first[256];		/* the first unexpected result */
	void *core;			/* NCORE 16-byte keys */
	bool xt;
	int dst_fd;			/* /dev/kbloom in NS_DST */
	int rx, tx_ok, tx_bl;		/* UDP sockets */
	struct in_addr dst, ok, bl;	/* 10.98.0.1, .2 (allowed), .3 */
	struct sockaddr_in to;		/* dst:XT_PORT */
	atomic_long rx_ok, rx_bl, tx_bl_sent;
};

extern struct kbs_state kbs;

/* kbloom_stress.c */
bool kbs_running(void);
/* count an unexpected result; the first one's text is kept */
void kbs_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ret (0 or -errno) must be 0 or one of the errnos in ok (E(errno) bits) */
int kbs_chk(int ret, __u64 ok, const char *what, const char *name);
int kbs_add(int fd, const char *name, __u32 flags, const void *keys,
	    __u32 ksz, __u64 n);
void kbs_close_fd(int *fd);
/* one transaction on name that keeps the nmust must-keys: commit or abort */
void kbs_rebuild(int fd, const char *name, __u32 type, const void *must,
		 __u32 ksz, __u32 nmust, __u64 *seed);

/* kbloom_stress_xt.c */
void *kbs_role_xt_rebuild(void *arg);
void *kbs_role_xt_send(void *arg);
void *kbs_role_xt_recv(void *arg);
/* one datagram (flags: MSG_DONTWAIT to drain); 0 if none */
int kbs_xt_recv_one(int flags);
/* packets the bloom DROP rule in NS_DST has matched */
long kbs_rule_pkts(void);
/* why the xt variant cannot run here, or NULL */
const char *kbs_xt_missing(void);
/* the two namespaces, filters, rule and sockets; NULL or what failed */
const char *kbs_xt_setup(void);

#endif /* _KBLOOM_STRESS_H */
