/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink helpers for the kbloom family selftests: build
 * requests, send them, read acks with their extended ACK (message, offset
 * of the bad attribute, missing attribute type), dumps and events.
 */
#ifndef _KB_NL_H
#define _KB_NL_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <linux/kbloom.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define KBTN_BUF		(1 << 17)

struct kbtn {
	int fd;
	__u16 family;
	__u32 mcgrp;		/* "events" group id */
	__u32 seq;
	/* the last ack or NLMSG_DONE */
	int err;
	char msg[256];		/* NLMSGERR_ATTR_MSG, "" if none */
	int offs;		/* NLMSGERR_ATTR_OFFS, -1 if none */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if none */
	/* the last reply message of a do request */
	char reply[KBTN_BUF];
	int reply_len;
};

/* a request being built */
struct kbtn_req {
	union {
		struct nlmsghdr nlh;
		char buf[KBTN_BUF];
	};
	struct nlattr *nest;
};

static inline struct nlattr *kbtn_attr_first(struct nlmsghdr *nlh, int hdr)
{
	return (struct nlattr *)((char *)NLMSG_DATA(nlh) + NLMSG_ALIGN(hdr));
}

/* tb[type] = the attribute; attrs in data[0..len) */
static inline void kbtn_parse_attrs(struct nlattr **tb, int max, void *data,
				   int len)
{
	struct nlattr *a = data;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	while (len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= len) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type <= max)
			tb[type] = a;
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* the attributes of a genetlink message */
static inline void kbtn_parse(struct nlmsghdr *nlh, struct nlattr **tb,
			     int max)
{
	kbtn_parse_attrs(tb, max, kbtn_attr_first(nlh, GENL_HDRLEN),
			nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
}

static inline void *kbtn_data(struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static inline int kbtn_len(struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static inline __u32 kbtn_u32(struct nlattr *a)
{
	return *(__u32 *)kbtn_data(a);
}

static inline __u64 kbtn_u64(struct nlattr *a)
{
	__u64 v;

	memcpy(&v, kbtn_data(a), 8);
	return v;
}

static inline void kbtn_init(struct kbtn_req *r, __u16 family, __u8 cmd,
			    __u16 flags)
{
	struct genlmsghdr *g;

	memset(&r->nlh, 0, NLMSG_LENGTH(GENL_HDRLEN));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = family;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g = NLMSG_DATA(&r->nlh);
	g->cmd = cmd;
	g->version = KB_GENL_VERSION;
	r->nest = NULL;
}

static inline struct nlattr *kbtn_put(struct kbtn_req *r, int type,
				     const void *data, int len)
{
	struct nlattr *a = (struct nlattr *)(r->buf +
					     NLMSG_ALIGN(r->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(kbtn_data(a), data, len);
	memset((char *)kbtn_data(a) + len, 0, NLA_ALIGN(len) - len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
	if (r->nest)
		r->nest->nla_len = (char *)r->buf + r->nlh.nlmsg_len -
				   (char *)r->nest;
	return a;
}

static inline struct nlattr *kbtn_put_str(struct kbtn_req *r, int type,
					 const char *s)
{
	return kbtn_put(r, type, s, strlen(s) + 1);
}

static inline struct nlattr *kbtn_put_u32(struct kbtn_req *r, int type,
					 __u32 v)
{
	return kbtn_put(r, type, &v, 4);
}

static inline struct nlattr *kbtn_put_u64(struct kbtn_req *r, int type,
					 __u64 v)
{
	return kbtn_put(r, type, &v, 8);
}

static inline void kbtn_nest_start(struct kbtn_req *r, int type)
{
	r->nest = kbtn_put(r, type | NLA_F_NESTED, NULL, 0);
}

static inline void kbtn_nest_end(struct kbtn_req *r)
{
	r->nest = NULL;
}

/* offset of attribute a in the request (as NLMSGERR_ATTR_OFFS counts) */
static inline int kbtn_offs(struct kbtn_req *r, struct nlattr *a)
{
	return (char *)a - r->buf;
}

static inline int kbtn_send(struct kbtn *n, struct kbtn_req *r)
{
	r->nlh.nlmsg_seq = ++n->seq;
	if (send(n->fd, r->buf, r->nlh.nlmsg_len, 0) < 0)
		return -errno;
	return 0;
}

/* decode an NLMSG_ERROR (or DONE with error) into n->err/msg/offs */
static inline void kbtn_ack(struct kbtn *n, struct nlmsghdr *nlh)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int hlen;

	n->msg[0] = 0;
	n->offs = -1;
	n->miss_type = -1;
	if (nlh->nlmsg_type == NLMSG_DONE) {
		n->err = *(int *)NLMSG_DATA(nlh);
		hlen = sizeof(int);
	} else {
		struct nlmsgerr *e = NLMSG_DATA(nlh);

		n->err = e->error;
		hlen = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			hlen += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	}
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	kbtn_parse_attrs(tb, NLMSGERR_ATTR_MAX,
			(char *)NLMSG_DATA(nlh) + NLMSG_ALIGN(hlen),
			nlh->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(hlen)));
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(n->msg, sizeof(n->msg), "%s",
			 (char *)kbtn_data(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_OFFS])
		n->offs = kbtn_u32(tb[NLMSGERR_ATTR_OFFS]);
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		n->miss_type = kbtn_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
}

/*
 * Callback per message of a dump (or a do reply): return 0 to go on.
 * flags: the message's nlmsg_flags.
 */
typedef int (*kbtn_cb)(struct nlmsghdr *nlh, void *arg);

/*
 * Receive until the ack / NLMSG_DONE: returns its error (0 or -errno);
 * cb for every other message; *nrecv (if not NULL) counts recv() calls.
 * between (if not NULL) runs after the first recv() of data.
 */
static inline int kbtn_recv(struct kbtn *n, kbtn_cb cb, void *arg, int *nrecv,
			   void (*between)(void *), void *barg)
{
	static __thread char buf[KBTN_BUF];	/* threads share helpers */
	int calls = 0;

	for (;;) {
		struct nlmsghdr *nlh;
		int len = recv(n->fd, buf, sizeof(buf), 0);

		if (len < 0)
			return -errno;
		calls++;
		if (nrecv)
			*nrecv = calls;
		for (nlh = (void *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR ||
			    nlh->nlmsg_type == NLMSG_DONE) {
				kbtn_ack(n, nlh);
				return n->err;
			}
			if (nlh->nlmsg_len <= sizeof(n->reply)) {
				memcpy(n->reply, nlh, nlh->nlmsg_len);
				n->reply_len = nlh->nlmsg_len;
			}
			if (cb && cb(nlh, arg))
				return -ECANCELED;
		}
		if (between && calls == 1) {
			between(barg);
			between = NULL;
		}
	}
}

/* send a request and wait for its ack; the reply (if any) in n->reply */
static inline int kbtn_do(struct kbtn *n, struct kbtn_req *r)
{
	int ret = kbtn_send(n, r);

	n->reply_len = 0;
	return ret ? ret : kbtn_recv(n, NULL, NULL, NULL, NULL, NULL);
}

/* the family id and events group from the controller */
static inline int kbtn_resolve(struct kbtn *n)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *g;
	struct nlmsghdr *nlh;
	struct kbtn_req *r = malloc(sizeof(*r));
	int ret, rem;

	kbtn_init(r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	kbtn_put_str(r, CTRL_ATTR_FAMILY_NAME, KB_GENL_NAME);
	ret = kbtn_do(n, r);
	free(r);
	if (ret)
		return ret;
	if (!n->reply_len)
		return -EPROTO;
	nlh = (struct nlmsghdr *)n->reply;
	kbtn_parse(nlh, tb, CTRL_ATTR_MAX);
	if (!tb[CTRL_ATTR_FAMILY_ID])
		return -EPROTO;
	n->family = *(__u16 *)kbtn_data(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	g = kbtn_data(tb[CTRL_ATTR_MCAST_GROUPS]);
	rem = kbtn_len(tb[CTRL_ATTR_MCAST_GROUPS]);
	while (rem >= NLA_HDRLEN && g->nla_len <= rem) {
		struct nlattr *gt[CTRL_ATTR_MCAST_GRP_MAX + 1];

		kbtn_parse_attrs(gt, CTRL_ATTR_MCAST_GRP_MAX, kbtn_data(g),
				kbtn_len(g));
		if (gt[CTRL_ATTR_MCAST_GRP_NAME] && gt[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(kbtn_data(gt[CTRL_ATTR_MCAST_GRP_NAME]),
			    KB_GENL_MCGRP_EVENTS))
			n->mcgrp = kbtn_u32(gt[CTRL_ATTR_MCAST_GRP_ID]);
		rem -= NLA_ALIGN(g->nla_len);
		g = (struct nlattr *)((char *)g + NLA_ALIGN(g->nla_len));
	}
	return 0;
}

/* a socket of the current netns with extended ACKs, family resolved */
static inline struct kbtn *kbtn_open(void)
{
	struct kbtn *n = calloc(1, sizeof(*n));
	int one = 1;

	if (!n)
		return NULL;
	n->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (n->fd < 0 ||
	    setsockopt(n->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(n->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    kbtn_resolve(n)) {
		if (n->fd >= 0)
			close(n->fd);
		free(n);
		return NULL;
	}
	return n;
}

static inline void kbtn_close(struct kbtn *n)
{
	if (n) {
		close(n->fd);
		free(n);
	}
}

/* join the events group: 0 or -errno */
static inline int kbtn_join(struct kbtn *n)
{
	__u32 g = n->mcgrp;

	if (setsockopt(n->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
		       sizeof(g)))
		return -errno;
	return 0;
}

/*
 * The next event within timeout_ms: returns its KB_A_EVENT (0 on timeout)
 * and copies the names (empty if absent).
 */
static inline int kbtn_event(struct kbtn *n, int timeout_ms, char *name,
			    char *name2)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct pollfd p = { .fd = n->fd, .events = POLLIN };
	struct nlmsghdr *nlh;
	int len;

	name[0] = name2[0] = 0;
	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	len = recv(n->fd, n->reply, sizeof(n->reply), 0);
	if (len < (int)NLMSG_LENGTH(GENL_HDRLEN))
		return -1;
	nlh = (struct nlmsghdr *)n->reply;
	if (((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd != KB_CMD_EVENT)
		return -2;
	kbtn_parse(nlh, tb, KB_A_MAX);
	if (tb[KB_A_NAME])
		snprintf(name, KB_NAME_MAX, "%s", (char *)kbtn_data(tb[KB_A_NAME]));
	if (tb[KB_A_NAME2])
		snprintf(name2, KB_NAME_MAX, "%s",
			 (char *)kbtn_data(tb[KB_A_NAME2]));
	return tb[KB_A_EVENT] ? (int)kbtn_u32(tb[KB_A_EVENT]) : -3;
}

/* ---- common requests ---- */

static inline int kbtn_name_cmd(struct kbtn *n, __u8 cmd, const char *name)
{
	struct kbtn_req *r = malloc(sizeof(*r));
	int ret;

	kbtn_init(r, n->family, cmd, 0);
	kbtn_put_str(r, KB_A_NAME, name);
	ret = kbtn_do(n, r);
	free(r);
	return ret;
}

static inline int kbtn_name2_cmd(struct kbtn *n, __u8 cmd, const char *a,
				const char *b)
{
	struct kbtn_req *r = malloc(sizeof(*r));
	int ret;

	kbtn_init(r, n->family, cmd, 0);
	kbtn_put_str(r, KB_A_NAME, a);
	kbtn_put_str(r, KB_A_NAME2, b);
	ret = kbtn_do(n, r);
	free(r);
	return ret;
}

/* create with FPR sizing (bits per key if fpr_ppb == 0) */
static inline int kbtn_create(struct kbtn *n, const char *name, __u32 kind,
			     __u32 key_type, __u64 items, __u32 fpr_ppb)
{
	struct kbtn_req *r = malloc(sizeof(*r));
	int ret;

	kbtn_init(r, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(r, KB_A_NAME, name);
	kbtn_put_u32(r, KB_A_KIND, kind);
	kbtn_put_u32(r, KB_A_KEY_TYPE, key_type);
	kbtn_put_u64(r, KB_A_ITEMS, items);
	if (fpr_ppb)
		kbtn_put_u32(r, KB_A_FPR_PPB, fpr_ppb);
	else
		kbtn_put_u32(r, KB_A_BITS_PER_KEY, 10);
	ret = kbtn_do(n, r);
	free(r);
	return ret;
}

/*
 * A key batch command: keys[i] of len[i] bytes (len NULL: all klen bytes);
 * res (if not NULL) gets KB_A_RESULT (one byte per key).  Returns 0 or
 * -errno; *matches (if not NULL) = KB_A_MATCHES.
 */
static inline int kbtn_keys(struct kbtn *n, __u8 cmd, const char *name,
			   const void *keys, int klen, int count,
			   unsigned char *res, __u32 *matches)
{
	struct kbtn_req *r = malloc(sizeof(*r));
	struct nlattr *tb[KB_A_MAX + 1];
	int i, ret;

	kbtn_init(r, n->family, cmd, 0);
	kbtn_put_str(r, KB_A_NAME, name);
	kbtn_nest_start(r, KB_A_KEYS);
	for (i = 0; i < count; i++)
		kbtn_put(r, KB_KA_DATA, (const char *)keys + i * klen, klen);
	kbtn_nest_end(r);
	ret = kbtn_do(n, r);
	free(r);
	if (ret || cmd == KB_CMD_ADD)
		return ret;
	if (!n->reply_len)
		return -EPROTO;
	kbtn_parse((struct nlmsghdr *)n->reply, tb, KB_A_MAX);
	if (!tb[KB_A_RESULT] || kbtn_len(tb[KB_A_RESULT]) != count ||
	    !tb[KB_A_MATCHES])
		return -EPROTO;
	if (res)
		memcpy(res, kbtn_data(tb[KB_A_RESULT]), count);
	if (matches)
		*matches = kbtn_u32(tb[KB_A_MATCHES]);
	return 0;
}

#endif /* _KB_NL_H */
