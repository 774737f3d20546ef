// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink half of kbloom_fuzz: random requests to the "kbloom" family
 * (commands, flags, genetlink headers, attribute trees with wrong lengths,
 * duplicates, unknown types and garbage nests, truncated, overlong and
 * oversized messages, two messages in one datagram), dumps abandoned or
 * interleaved with ioctls.  Oracles: a well-formed request gets exactly
 * one ack (or NLMSG_DONE), a malformed one none; errors from a known set;
 * the family's EINVALs carry an extended ACK; replies and export chunks are
 * well-formed and a completed export of the invariant is its exact image.
 */
#include <poll.h>

#include "kselftest.h"
#include "kb_test.h"
#include "kb_nl.h"
#include "kb_fuzz.h"

#ifndef SO_SNDBUFFORCE
#define SO_SNDBUFFORCE 32
#endif

static struct kbtn *nl, *nlv, *nlev;	/* fuzzing, verifying, events */
static unsigned char req[600 << 10] __attribute__((aligned(8)));
static unsigned char rbuf[256 << 10] __attribute__((aligned(8)));
static unsigned char *xbuf;		/* an export being reassembled */

static void nl_events(void);

static struct kbtn *nl_open(void)
{
	struct kbtn *n = kbtn_open();
	int sz = 1 << 20;

	/* big requests reach the kernel (root only; EMSGSIZE otherwise) */
	if (n)
		setsockopt(n->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz));
	return n;
}

int fz_nl_init(void)
{
	nl = nl_open();
	nlv = nl_open();
	nlev = nl_open();
	if (!xbuf)
		xbuf = malloc(1 << 20);
	if (!nl || !nlv || !nlev || !xbuf)
		return -1;
	kbtn_join(nlev);		/* EPERM without CAP_NET_ADMIN */
	return 0;
}

void fz_nl_fini(void)
{
	kbtn_close(nl);
	kbtn_close(nlv);
	kbtn_close(nlev);
	nl = nlv = nlev = NULL;
}

/* ---- building ------------------------------------------------------------ */

struct nb {
	size_t len;		/* bytes used in req */
	size_t nest[4];		/* open nests */
	int depth;
	size_t top[64];		/* top-level attributes of this message */
	int ntop;
};

static void nb_fix_nests(struct nb *b)
{
	int i;

	for (i = 0; i < b->depth; i++)
		((struct nlattr *)(req + b->nest[i]))->nla_len =
			b->len - b->nest[i];	/* wraps past 64 KiB */
}

static void nb_put(struct nb *b, __u16 type, const void *d, size_t len)
{
	struct nlattr *a = (struct nlattr *)(req + b->len);

	if (b->len + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(req) - 64)
		return;
	if (!b->depth && b->ntop < 64)
		b->top[b->ntop++] = b->len;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (d)
		memcpy(req + b->len + NLA_HDRLEN, d, len);
	memset(req + b->len + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	b->len += NLA_HDRLEN + NLA_ALIGN(len);
	nb_fix_nests(b);
}

static void nb_nest(struct nb *b, __u16 type)
{
	size_t at = b->len;

	nb_put(b, type | NLA_F_NESTED, NULL, 0);
	if (b->depth < 4)
		b->nest[b->depth++] = at;
}

static void nb_u32(struct nb *b, __u16 type, __u32 v)
{
	nb_put(b, type, &v, 4);
}

static void nb_u64(struct nb *b, __u16 type, __u64 v)
{
	nb_put(b, type, &v, 8);
}

static void nb_name(struct fz_rng *r, struct nb *b, __u16 type, bool ro)
{
	char name[KB_NAME_MAX + 1] = "";
	size_t len;

	fz_name(r, name, ro);
	len = strnlen(name, KB_NAME_MAX) + 1;
	if (fz_pct(r, 4))
		len = fz_rnd(r, KB_NAME_MAX + 1);	/* maybe no NUL */
	nb_put(b, type, name, len);
}

static void nb_keys(struct fz_rng *r, struct nb *b)
{
	static const unsigned int lens[] = { 4, 5, 16, 17, 1, 1024, 0, 1025 };
	unsigned char key[1100];
	unsigned int i, n, len;

	n = fz_pct(r, 80) ? fz_rnd(r, 10) :
	    (fz_pct(r, 50) ? KB_NL_KEYS_MAX + fz_rnd(r, 3) - 1 : 60 + fz_rnd(r, 600));
	len = fz_pct(r, 50) ? lens[fz_rnd(r, 6)] : 0;
	nb_nest(b, KB_A_KEYS);
	for (i = 0; i < n; i++) {
		unsigned int l = len ? len : (fz_pct(r, 97) ?
			lens[fz_rnd(r, 5)] : lens[fz_rnd(r, 8)]);

		fz_bytes(r, key, l);
		if (l == 5 || l == 17)	/* a /0 prefix: host bits zero */
			memset(key, 0, l);
		nb_put(b, fz_pct(r, 98) ? KB_KA_DATA : fz_rnd(r, 4), key, l);
	}
	b->depth--;
}

/* garbage: random types, lengths, nests */
static void nb_tree(struct fz_rng *r, struct nb *b, int depth)
{
	static const unsigned int lens[] = { 0, 1, 2, 3, 4, 7, 8, 12, 16, 24,
					     31, 32, 33 };
	unsigned char d[300];
	int i, n = fz_rnd(r, 6);

	for (i = 0; i < n; i++) {
		__u16 type = fz_rnd(r, KB_A_MAX + 3);
		unsigned int l = fz_pct(r, 80) ? lens[fz_rnd(r, 13)] :
						  fz_rnd(r, sizeof(d));

		if (fz_pct(r, 3))
			type |= NLA_F_NET_BYTEORDER;
		if (fz_pct(r, 15) && depth < 3) {
			nb_nest(b, type);
			nb_tree(r, b, depth + 1);
			b->depth--;
			continue;
		}
		fz_bytes(r, d, l);
		if (fz_pct(r, 30) && l)
			memset(d, 0, l);
		nb_put(b, type, d, l);
	}
}

/* the attributes a command expects, with wrong values now and then */
static void nb_template(struct fz_rng *r, struct nb *b, int cmd, bool ro)
{
	__u64 seed[2] = { fz_next(r), 0 };
	int kind = fz_rnd(r, 3);

	if (fz_pct(r, 90))
		nb_name(r, b, KB_A_NAME, ro);
	switch (cmd) {
	case KB_CMD_CREATE:
		if (fz_pct(r, 70))
			nb_u32(b, KB_A_KIND, fz_pct(r, 95) ? kind : fz_next(r));
		if (fz_pct(r, 50))
			nb_u32(b, KB_A_KEY_TYPE, fz_rnd(r, KB_KEY_MAX + 2));
		if (fz_pct(r, 30))
			nb_u32(b, KB_A_HASH, fz_rnd(r, KB_HASH_MAX + 2));
		switch (fz_rnd(r, 4)) {
		case 0:
			nb_u64(b, KB_A_M, fz_pct(r, 80) ?
			       (1 + fz_rnd(r, 64)) * 512 : fz_u64(r));
			if (fz_pct(r, 90))
				nb_u32(b, KB_A_K, fz_rnd(r, 34));
			break;
		case 1:
			nb_u32(b, KB_A_BITS_PER_KEY, fz_rnd(r, 1002));
			nb_u64(b, KB_A_ITEMS, fz_rnd(r, 5000));
			break;
		default:
			if (fz_pct(r, 90))
				nb_u64(b, KB_A_ITEMS, fz_pct(r, 90) ?
				       fz_rnd(r, 5000) : fz_u64(r) | (1ULL << 40));
			nb_u32(b, KB_A_FPR_PPB, fz_pct(r, 90) ?
			       1 + fz_rnd(r, 100000000) : fz_next(r));
		}
		if (fz_pct(r, 20)) {
			if (fz_pct(r, 50))
				seed[1] = fz_next(r);
			nb_put(b, KB_A_SEED, seed, fz_pct(r, 90) ? 16 : fz_rnd(r, 24));
		}
		break;
	case KB_CMD_SWAP:
	case KB_CMD_RENAME:
		if (fz_pct(r, 90))
			nb_name(r, b, KB_A_NAME2, false);
		break;
	case KB_CMD_ADD:
	case KB_CMD_TEST:
	case KB_CMD_DEL:
	case KB_CMD_TEST_ADD:
		if (fz_pct(r, 95))
			nb_keys(r, b);
		break;
	}
}

/* damage a message's attributes: b->len may change */
static void nb_mutate(struct fz_rng *r, struct nb *b, size_t attrs)
{
	struct nlattr *a;
	size_t at, l;

	if (!b->ntop)
		return;
	at = b->top[fz_rnd(r, b->ntop)];
	a = (struct nlattr *)(req + at);
	l = NLA_ALIGN(a->nla_len);
	if (at + l > b->len)
		l = b->len - at;
	switch (fz_rnd(r, 6)) {
	case 0:		/* duplicate */
		if (b->len + l < sizeof(req) - 64) {
			memcpy(req + b->len, a, l);
			b->len += l;
		}
		break;
	case 1:		/* wrong length */
		a->nla_len = fz_pct(r, 50) ? fz_rnd(r, a->nla_len + 1) :
					      a->nla_len + 1 + fz_rnd(r, 64);
		break;
	case 2:		/* drop it */
		memmove(req + at, req + at + l, b->len - at - l);
		b->len -= l;
		break;
	case 3:		/* trailing bytes that are no attribute */
		l = 1 + fz_rnd(r, 3);
		fz_bytes(r, req + b->len, l);
		b->len += l;
		break;
	case 4:		/* an unknown or misplaced type */
		nb_u32(b, fz_pct(r, 50) ? KB_A_MAX + 1 + fz_rnd(r, 200) :
		       fz_rnd(r, KB_A_MAX + 1), fz_next(r));
		break;
	default:	/* NLA_F_NESTED flipped */
		a->nla_type ^= NLA_F_NESTED;
	}
	(void)attrs;
}

/* ---- receiving ------------------------------------------------------------ */

struct drain {
	__u32 seq0, nseq;
	int term[2];		/* acks / DONE per message */
	int err[2];
	int msgs;
	bool overrun;
	/* the export being reassembled */
	bool export, inv;
	__u64 xsize, xoff;
};

static bool nl_errno_ok(int e)
{
	switch (e) {
	case 0: case EINVAL: case ERANGE: case ENOENT: case EEXIST:
	case E2BIG: case ENOSPC: case EBUSY: case EPERM: case ENOMEM:
	case EOPNOTSUPP: case EAGAIN: case EMSGSIZE: case ENOBUFS:
		return true;
	}
	return false;
}

/* a kbloom reply or dump message */
static void nl_check_reply(struct nlmsghdr *h, struct drain *d, __u16 family)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct genlmsghdr *g = NLMSG_DATA(h);
	__u32 i, ones = 0, len;
	unsigned char *p;

	if (h->nlmsg_type != family || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return;
	/* every command needs CAP_NET_ADMIN: no data without it */
	if (fz.unpriv)
		fz_fail("nl", "a reply (cmd %u) without CAP_NET_ADMIN",
			((struct genlmsghdr *)NLMSG_DATA(h))->cmd);
	kbtn_parse(h, tb, KB_A_MAX);
	if (!tb[KB_A_NAME] && g->cmd != 0)
		fz_fail("netlink", "reply cmd %u without NAME", g->cmd);
	if (tb[KB_A_RESULT]) {
		p = kbtn_data(tb[KB_A_RESULT]);
		for (i = 0; i < (__u32)kbtn_len(tb[KB_A_RESULT]); i++) {
			if (p[i] > 1)
				fz_fail("netlink", "RESULT byte %u", p[i]);
			ones += p[i];
		}
		if (!tb[KB_A_MATCHES] || kbtn_u32(tb[KB_A_MATCHES]) != ones)
			fz_fail("netlink", "MATCHES != %u", ones);
	}
	if (g->cmd != KB_CMD_EXPORT)
		return;
	if (!tb[KB_A_CHUNK] || !tb[KB_A_OFFSET] || !tb[KB_A_IMAGE_SIZE]) {
		fz_fail("netlink", "export message without chunk");
		return;
	}
	len = kbtn_len(tb[KB_A_CHUNK]);
	if (!d->export) {
		d->export = true;
		d->xsize = kbtn_u64(tb[KB_A_IMAGE_SIZE]);
		d->inv = !strcmp(kbtn_data(tb[KB_A_NAME]), FZ_INV);
	}
	if (kbtn_u64(tb[KB_A_OFFSET]) != d->xoff || !len ||
	    len > KB_NL_CHUNK_MAX || d->xoff + len > d->xsize ||
	    kbtn_u64(tb[KB_A_IMAGE_SIZE]) != d->xsize)
		fz_fail("netlink", "export chunk at %llu (+%u) of %llu, want %llu",
			kbtn_u64(tb[KB_A_OFFSET]), len, d->xsize, d->xoff);
	else if (d->inv && d->xoff + len <= (1 << 20))
		memcpy(xbuf + d->xoff, kbtn_data(tb[KB_A_CHUNK]), len);
	d->xoff += len;
}

/* everything queued on n (MSG_DONTWAIT: the kernel answers in send()) */
static int nl_drain(struct kbtn *n, struct drain *d, int max_recv)
{
	struct nlmsghdr *h;
	int len, k, calls = 0;

	while (calls++ < max_recv) {
		len = recv(n->fd, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (len < 0) {
			if (errno == ENOBUFS)
				d->overrun = true;
			return errno == EAGAIN ? 0 : -errno;
		}
		for (h = (void *)rbuf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			d->msgs++;
			fz.nl_msgs++;
			k = h->nlmsg_seq - d->seq0;
			if (k < 0 || k >= (int)d->nseq) {
				fz_fail("netlink", "stray message seq %u type %u",
					h->nlmsg_seq, h->nlmsg_type);
				continue;
			}
			if (h->nlmsg_type != NLMSG_ERROR &&
			    h->nlmsg_type != NLMSG_DONE) {
				nl_check_reply(h, d, n->family);
				continue;
			}
			fz.nl_acks++;
			kbtn_ack(n, h);
			d->term[k]++;
			d->err[k] = -n->err;
			if (!nl_errno_ok(-n->err))
				fz_fail("netlink", "errno %d", -n->err);
		}
	}
	return 0;
}

/* ---- one request ----------------------------------------------------------- */

static void nl_reopen(void)
{
	kbtn_close(nl);
	nl = nl_open();
	if (!nl)
		fz_fail("netlink", "cannot reopen the socket");
}

void fz_nl_op(struct fz_rng *r)
{
	struct drain d = {};
	struct nb b = {};
	struct nlmsghdr *h = (void *)req, *h2;
	struct genlmsghdr *g;
	int cmd, i, ret, sendlen, pass;
	bool ro, formed, dump, extack;
	__u16 family;

	if (!nl)
		return;
	family = nl->family;
	cmd = fz_pct(r, 92) ? 1 + fz_rnd(r, KB_CMD_MAX) : fz_rnd(r, 256);
	ro = cmd == KB_CMD_GET || cmd == KB_CMD_TEST || cmd == KB_CMD_EXPORT;
	memset(h, 0, NLMSG_LENGTH(GENL_HDRLEN));
	h->nlmsg_type = family;
	if (fz_pct(r, 4))
		h->nlmsg_type = fz_pct(r, 50) ? fz_rnd(r, NLMSG_MIN_TYPE) :
			0xfff0 + fz_rnd(r, 15);
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (fz_pct(r, 3))
		h->nlmsg_flags &= ~NLM_F_REQUEST;
	if (fz_pct(r, 15))
		h->nlmsg_flags &= ~NLM_F_ACK;
	if (fz_pct(r, cmd == KB_CMD_GET || cmd == KB_CMD_EXPORT ? 70 : 5))
		h->nlmsg_flags |= NLM_F_DUMP;
	if (fz_pct(r, 5))
		h->nlmsg_flags |= fz_next(r) & 0xffff;
	g = NLMSG_DATA(h);
	g->cmd = cmd;
	g->version = fz_pct(r, 95) ? KB_GENL_VERSION : fz_next(r);
	g->reserved = fz_pct(r, 97) ? 0 : fz_next(r) | 1;
	b.len = NLMSG_LENGTH(GENL_HDRLEN);
	if (fz_pct(r, 80))
		nb_template(r, &b, cmd, ro);
	if (fz_pct(r, 25))
		nb_tree(r, &b, 0);
	for (i = fz_pct(r, 25) ? 1 + fz_rnd(r, 3) : 0; i > 0; i--)
		nb_mutate(r, &b, 0);
	h->nlmsg_len = b.len;
	sendlen = b.len;
	formed = true;
	switch (fz_rnd(r, 30)) {
	case 0:		/* shorter than a header */
		h->nlmsg_len = fz_rnd(r, NLMSG_HDRLEN);
		formed = false;
		break;
	case 1:		/* longer than what is sent */
		h->nlmsg_len = b.len + 1 + fz_rnd(r, 100);
		formed = false;
		break;
	case 2:		/* cut anywhere: the header says so */
		h->nlmsg_len = NLMSG_HDRLEN + fz_rnd(r, b.len - NLMSG_HDRLEN + 1);
		sendlen = h->nlmsg_len;
		break;
	case 3:		/* a datagram shorter than a header */
		sendlen = 1 + fz_rnd(r, NLMSG_HDRLEN - 1);	/* 0: ENODATA */
		formed = false;
		break;
	case 4:		/* oversized: hundreds of KiB of keys */
		b.len = NLMSG_LENGTH(GENL_HDRLEN);
		b.ntop = 0;
		nb_name(r, &b, KB_A_NAME, ro);
		nb_nest(&b, KB_A_KEYS);
		for (i = 0; i < 300 + (int)fz_rnd(r, 250); i++)
			nb_put(&b, KB_KA_DATA, rbuf, KB_KEY_MAX_LEN);
		b.depth = 0;
		h->nlmsg_len = sendlen = b.len;
		break;
	}
	/* sometimes a second, clean request in the same datagram */
	d.nseq = 1;
	if (formed && fz_pct(r, 4) && sendlen + 64 < (int)sizeof(req)) {
		size_t at = NLMSG_ALIGN(sendlen);

		memset(req + sendlen, 0, at - sendlen);
		h2 = (void *)(req + at);
		b.len = at + NLMSG_LENGTH(GENL_HDRLEN);
		b.ntop = 0;
		memset(h2, 0, NLMSG_LENGTH(GENL_HDRLEN));
		h2->nlmsg_type = family;
		h2->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		((struct genlmsghdr *)NLMSG_DATA(h2))->cmd = KB_CMD_GET;
		nb_name(r, &b, KB_A_NAME, true);
		h2->nlmsg_len = b.len - at;
		h2->nlmsg_seq = nl->seq + 2;
		sendlen = b.len;
		d.nseq = 2;
	}
	/* nothing that may change a filter names the invariant */
	if (!ro || h->nlmsg_type != family)
		for (i = 0; i + 6 <= sendlen; i++)
			if (!memcmp(req + i, FZ_INV, 6))
				req[i] = 'Z';
	h->nlmsg_seq = d.seq0 = ++nl->seq;
	nl->seq += d.nseq - 1;
	dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP &&
	       (h->nlmsg_flags & NLM_F_REQUEST) &&
	       h->nlmsg_type == family && (cmd == KB_CMD_GET ||
					  cmd == KB_CMD_EXPORT);
	if (fz.verbose)
		printf("# %ld netlink type %u cmd %d flags 0x%x len %u/%d\n",
		       fz.iter, h->nlmsg_type, cmd, h->nlmsg_flags,
		       h->nlmsg_len, sendlen);
	if (send(nl->fd, req, sendlen, 0) < 0) {
		if (errno != EMSGSIZE && errno != ENOBUFS && errno != ENOMEM)
			fz_fail("netlink", "send: errno %d", errno);
		return;
	}
	fz.nl_dumps += dump;
	/* a dump: abandoned after one read, or interleaved with ioctls */
	pass = dump && fz_pct(r, 30) ? 1 : 1000;
	ret = nl_drain(nl, &d, pass);
	if (pass == 1 && fz_pct(r, 50)) {
		nl_reopen();
		return;
	}
	if (pass == 1) {
		for (i = 1 + fz_rnd(r, 3); i > 0; i--)
			fz_ioc_op(r, fz_fd(r));
		ret = nl_drain(nl, &d, 1000);
	}
	if (ret && ret != -ENOBUFS)
		fz_fail("netlink", "recv: errno %d", -ret);
	if (d.overrun)
		return;
	formed = formed && h->nlmsg_len >= NLMSG_HDRLEN;
	if (!formed && d.msgs)
		fz_fail("netlink", "%d answers to a malformed message (len %u, sent %d)",
			d.msgs, h->nlmsg_len, sendlen);
	for (i = 0; formed && i < (int)d.nseq; i++) {
		__u16 fl = i ? NLM_F_ACK | NLM_F_REQUEST : h->nlmsg_flags;

		if (d.term[i] > 1 || (!d.term[i] && ((fl & NLM_F_ACK) || (!i && dump))))
			fz_fail("netlink", "message %d (cmd %d flags 0x%x): %d acks",
				i, cmd, fl, d.term[i]);
	}
	/* the family explains every EINVAL (core policies included) */
	extack = formed && h->nlmsg_type == family && !g->reserved &&
		 h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) &&
		 (h->nlmsg_flags & NLM_F_REQUEST) && cmd >= 1 && cmd <= KB_CMD_EXPORT;
	if (extack && d.err[0] == EINVAL && d.term[0] == 1 && !nl->msg[0] &&
	    nl->offs < 0 && nl->miss_type < 0 && d.nseq == 1)
		fz_fail("netlink", "EINVAL without extended ACK (cmd %d)", cmd);
	if (d.export && d.term[0] == 1 && !d.err[0]) {
		if (d.xoff != d.xsize)
			fz_fail("netlink", "export ended at %llu of %llu",
				d.xoff, d.xsize);
		else if (d.inv && (d.xsize != (__u64)fz.inv_img_len ||
				   memcmp(xbuf, fz.inv_img, d.xsize)))
			fz_fail("netlink", "the invariant's export differs");
	}
	if (fz_pct(r, 5))
		nl_events();
}

/* ---- events, the invariant, the list --------------------------------------- */

static void nl_events(void)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct nlmsghdr *h;
	int len;

	while ((len = recv(nlev->fd, rbuf, sizeof(rbuf), MSG_DONTWAIT)) > 0) {
		for (h = (void *)rbuf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			struct genlmsghdr *g = NLMSG_DATA(h);

			kbtn_parse(h, tb, KB_A_MAX);
			if (h->nlmsg_type != nlev->family ||
			    g->cmd != KB_CMD_EVENT || !tb[KB_A_EVENT] ||
			    !kbtn_u32(tb[KB_A_EVENT]) ||
			    kbtn_u32(tb[KB_A_EVENT]) > KB_EVENT_MAX ||
			    !tb[KB_A_NAME])
				fz_fail("events", "bad event (type %u cmd %u)",
					h->nlmsg_type, g->cmd);
		}
	}
	if (len < 0 && errno != EAGAIN && errno != ENOBUFS)
		fz_fail("events", "recv: errno %d", errno);
}

void fz_nl_check_inv(void)
{
	struct nlattr *tb[KB_A_MAX + 1];
	unsigned char res[FZ_INV_KEYS];
	struct kbtn_req *q = malloc(sizeof(*q));
	struct drain d = {};
	__u32 matches = 0;
	int ret;

	ret = kbtn_keys(nlv, KB_CMD_TEST, FZ_INV, fz.inv_keys, 16, FZ_INV_KEYS,
		       res, &matches);
	if (ret || matches != FZ_INV_KEYS)
		fz_fail("invariant", "netlink test: %d, %u matches", ret,
			matches);
	ret = kbtn_name_cmd(nlv, KB_CMD_GET, FZ_INV);
	if (!ret && nlv->reply_len)
		kbtn_parse((struct nlmsghdr *)nlv->reply, tb, KB_A_MAX);
	if (ret || !nlv->reply_len || !tb[KB_A_M] || !tb[KB_A_COUNT] ||
	    !tb[KB_A_GENERATION] ||
	    kbtn_u64(tb[KB_A_M]) != fz.inv_info.m ||
	    kbtn_u64(tb[KB_A_COUNT]) != fz.inv_info.count ||
	    kbtn_u64(tb[KB_A_GENERATION]) != fz.inv_info.generation)
		fz_fail("invariant", "netlink get: %d", ret);
	/* a whole export dump, byte for byte */
	kbtn_init(q, nlv->family, KB_CMD_EXPORT, NLM_F_DUMP);
	kbtn_put_str(q, KB_A_NAME, FZ_INV);
	ret = kbtn_send(nlv, q);
	free(q);
	d.seq0 = nlv->seq;
	d.nseq = 1;
	if (!ret)
		ret = nl_drain(nlv, &d, 10000);
	if (ret || d.term[0] != 1 || d.err[0] || !d.inv ||
	    d.xoff != (__u64)fz.inv_img_len ||
	    memcmp(xbuf, fz.inv_img, fz.inv_img_len))
		fz_fail("invariant", "netlink export: %d/%d, %llu bytes", ret,
			d.err[0], d.xoff);
}

struct names {
	char (*names)[KB_NAME_MAX];
	int n, max;
};

static int list_cb(struct nlmsghdr *h, void *arg)
{
	struct nlattr *tb[KB_A_MAX + 1];
	struct names *l = arg;

	kbtn_parse(h, tb, KB_A_MAX);
	if (tb[KB_A_NAME] && l->n < l->max)
		snprintf(l->names[l->n++], KB_NAME_MAX, "%s",
			 (char *)kbtn_data(tb[KB_A_NAME]));
	return 0;
}

int fz_nl_list(char (*names)[KB_NAME_MAX], int max)
{
	struct kbtn_req *q = malloc(sizeof(*q));
	struct names l = { names, 0, max };
	int ret;

	kbtn_init(q, nlv->family, KB_CMD_GET, NLM_F_DUMP);
	ret = kbtn_send(nlv, q);
	free(q);
	if (!ret)
		ret = kbtn_recv(nlv, list_cb, &l, NULL, NULL, NULL);
	return ret ? -1 : l.n;
}
