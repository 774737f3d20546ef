// SPDX-License-Identifier: GPL-2.0
/*
 * The client of the kbloom generic netlink family (uapi section 4),
 * on libnl-genl-3.  NETLINK_EXT_ACK is on, so errors come back with the
 * kernel's message, which callers print after strerror().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include "kbnl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* a key nest stays well below the 64 KiB attribute limit */
#define KBNL_NEST_BYTES	60000

struct kbnl {
	struct nl_sock *sk;
	int family;
};

/* what one request's replies did */
struct kbnl_req {
	int err;		/* -errno from the kernel, 0 */
	bool done;
	bool intr;		/* a dump saw NLM_F_DUMP_INTR */
	char *ext;
	size_t extlen;
	int (*parse)(struct nlattr **tb, void *arg);
	void *arg;
	int cb_ret;		/* parse's nonzero return */
};

struct kbnl *kbnl_open(void)
{
	struct kbnl *nl = calloc(1, sizeof(*nl));
	int one = 1;

	if (!nl)
		return NULL;
	nl->sk = nl_socket_alloc();
	if (!nl->sk || genl_connect(nl->sk))
		goto fail;
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	/* resolving the name autoloads kbloom.ko (MODULE_ALIAS_GENL_FAMILY) */
	nl->family = genl_ctrl_resolve(nl->sk, KB_GENL_NAME);
	if (nl->family < 0)
		goto fail;
	return nl;
fail:
	kbnl_close(nl);
	return NULL;
}

void kbnl_close(struct kbnl *nl)
{
	if (!nl)
		return;
	if (nl->sk)
		nl_socket_free(nl->sk);
	free(nl);
}

/* the extack TLVs after a (capped) nlmsgerr */
static void kbnl_extack(struct nlmsgerr *e, struct kbnl_req *r)
{
	struct nlmsghdr *h = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);
	int len;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS) || !r->extlen)
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)h->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len <= 0 ||
	    nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      len, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(r->ext, r->extlen, "%.*s", nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	else if (tb[NLMSGERR_ATTR_MISS_TYPE])
		snprintf(r->ext, r->extlen, "missing attribute %u",
			 nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]));
	/* the message may end in a NUL inside its length */
	r->ext[strnlen(r->ext, r->extlen)] = 0;
}

static int kbnl_on_err(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct kbnl_req *r = arg;

	(void)who;
	r->err = e->error;
	kbnl_extack(e, r);
	r->done = true;
	return NL_STOP;
}

static int kbnl_on_ack(struct nl_msg *msg, void *arg)
{
	struct kbnl_req *r = arg;

	(void)msg;
	r->done = true;
	return NL_STOP;
}

static int kbnl_on_finish(struct nl_msg *msg, void *arg)
{
	struct kbnl_req *r = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	int *perr = nlmsg_data(h);

	/* a dump's NLMSG_DONE carries its error (and extack) */
	if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int) && *perr < 0)
		r->err = *perr;
	r->done = true;
	return NL_STOP;
}

/*
 * The message being parsed, for the attributes that repeat (KB_A_SLICE
 * nests), which genlmsg_parse()'s table holds only the last of
 */
static __thread struct nlmsghdr *kbnl_cur;

static int kbnl_on_valid(struct nl_msg *msg, void *arg)
{
	struct kbnl_req *r = arg;
	struct nlattr *tb[KB_A_MAX + 1];
	struct nlmsghdr *h = nlmsg_hdr(msg);

	if (h->nlmsg_flags & NLM_F_DUMP_INTR)
		r->intr = true;
	if (!r->parse || r->cb_ret)
		return NL_OK;
	if (genlmsg_parse(h, 0, tb, KB_A_MAX, NULL))
		return NL_OK;
	kbnl_cur = h;
	r->cb_ret = r->parse(tb, r->arg);
	kbnl_cur = NULL;
	return NL_OK;
}

/* send msg (consumed) and collect replies until ack, error or done */
static int kbnl_talk(struct kbnl *nl, struct nl_msg *msg, struct kbnl_req *r)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, kbnl_on_err, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, kbnl_on_ack, r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, kbnl_on_finish, r);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, kbnl_on_valid, r);
	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		nl_cb_put(cb);
		return -EIO;
	}
	while (!r->done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !r->done) {
			r->err = ret == -NLE_DUMP_INTR ? -EAGAIN : -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return r->err;
}

static struct nl_msg *kbnl_msg(struct kbnl *nl, u8 cmd, int flags)
{
	/* room for a full key batch (the default is one page) */
	struct nl_msg *msg = nlmsg_alloc_size(KBNL_NEST_BYTES + 4096);

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				flags, cmd, KB_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

/* a request naming one filter (KB_A_NAME), answered through r */
static int kbnl_talk_name(struct kbnl *nl, u8 cmd, int flags,
			  const char *name, struct kbnl_req *r)
{
	struct nl_msg *msg = kbnl_msg(nl, cmd, flags);

	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, KB_A_NAME, name)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return kbnl_talk(nl, msg, r);
}

#define KBNL_REQ(e, el) { .ext = (e), .extlen = (el) }

int kbnl_create(struct kbnl *nl, const struct kb_ioc_create *a, char *ext,
		size_t extlen)
{
	return kbnl_create_grant(nl, a, NULL, NULL, ext, extlen);
}

int kbnl_create_grant(struct kbnl *nl, const struct kb_ioc_create *a,
		      const u32 *readers, const u32 *writers, char *ext,
		      size_t extlen)
{
	struct kbnl_req r = KBNL_REQ(ext, extlen);
	struct nl_msg *msg = kbnl_msg(nl, KB_CMD_CREATE, 0);
	int bad = 0;

	if (!msg)
		return -ENOMEM;
	bad |= nla_put_string(msg, KB_A_NAME, a->name);
	bad |= nla_put_u32(msg, KB_A_KIND, a->kind);
	bad |= nla_put_u32(msg, KB_A_KEY_TYPE, a->key_type);
	bad |= nla_put_u32(msg, KB_A_HASH, a->hash);
	if (a->items)
		bad |= nla_put_u64(msg, KB_A_ITEMS, a->items);
	if (a->sizing == KB_SIZING_MK) {
		bad |= nla_put_u64(msg, KB_A_M, a->m);
		bad |= nla_put_u32(msg, KB_A_K, a->k);
	} else if (a->sizing == KB_SIZING_BPK) {
		bad |= nla_put_u32(msg, KB_A_BITS_PER_KEY, a->bits_per_key);
	} else {
		bad |= nla_put_u32(msg, KB_A_FPR_PPB, a->fpr_ppb);
		if (a->prefixes)
			bad |= nla_put_u32(msg, KB_A_PREFIXES, a->prefixes);
	}
	if (a->flags & KB_CREATE_F_SEED)
		bad |= nla_put(msg, KB_A_SEED, sizeof(a->seed), a->seed);
	/* windows and growing filters (issue 27): only when asked for */
	if (a->window_ms)
		bad |= nla_put_u64(msg, KB_A_WINDOW_MS, a->window_ms);
	if (a->window_ms && a->slices)
		bad |= nla_put_u32(msg, KB_A_SLICES, a->slices);
	if (a->flags & KB_CREATE_F_GROW)
		bad |= nla_put_flag(msg, KB_A_GROW);
	if (a->max_bytes)
		bad |= nla_put_u64(msg, KB_A_MAX_BYTES, a->max_bytes);
	if (readers)
		bad |= nla_put_u32(msg, KB_A_READERS, *readers);
	if (writers)
		bad |= nla_put_u32(msg, KB_A_WRITERS, *writers);
	if (a->max_fpr_ppb)
		bad |= nla_put_u32(msg, KB_A_MAX_FPR_PPB, a->max_fpr_ppb);
	if (bad) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return kbnl_talk(nl, msg, &r);
}

static const u8 kbnl_name_cmds[] = {
	[KBNL_DESTROY] = KB_CMD_DESTROY, [KBNL_FLUSH] = KB_CMD_FLUSH,
	[KBNL_SWAP] = KB_CMD_SWAP, [KBNL_RENAME] = KB_CMD_RENAME,
};

int kbnl_name_cmd(struct kbnl *nl, enum kbnl_name_cmd cmd, const char *name,
		  const char *name2, char *ext, size_t extlen)
{
	struct kbnl_req r = KBNL_REQ(ext, extlen);
	struct nl_msg *msg = kbnl_msg(nl, kbnl_name_cmds[cmd], 0);

	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, KB_A_NAME, name) ||
	    (name2 && nla_put_string(msg, KB_A_NAME2, name2))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return kbnl_talk(nl, msg, &r);
}

static u64 kbnl_u64(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static u32 kbnl_u32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

/* a GET reply -> the ioctl's info struct, so both transports look alike */
/* a GET reply's KB_A_SLICE nests, newest first, into i->slice[] */
static void kbnl_to_slices(struct kb_ioc_info *i)
{
	struct nlattr *a, *sb[KB_SA_MAX + 1];
	struct kb_ioc_info_slice *sl;
	int rem;

	if (!kbnl_cur)
		return;
	nlmsg_for_each_attr(a, kbnl_cur, GENL_HDRLEN, rem) {
		if (nla_type(a) != KB_A_SLICE ||
		    i->nslice == sizeof(i->slice) / sizeof(i->slice[0]) ||
		    nla_parse_nested(sb, KB_SA_MAX, a, NULL))
			continue;
		sl = &i->slice[i->nslice++];
		sl->age_ms = kbnl_u64(sb, KB_SA_AGE_MS);
		sl->m = kbnl_u64(sb, KB_SA_M);
		sl->k = kbnl_u32(sb, KB_SA_K);
		sl->items = kbnl_u64(sb, KB_SA_ITEMS);
		sl->fpr_ppb = kbnl_u32(sb, KB_SA_FPR_PPB);
		sl->bytes = kbnl_u64(sb, KB_SA_BYTES);
		sl->bits_set = kbnl_u64(sb, KB_SA_BITS_SET);
		sl->est_fpr_ppb = kbnl_u32(sb, KB_SA_EST_FPR_PPB);
	}
}

static void kbnl_to_info(struct nlattr **tb, struct kb_ioc_info *i)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	if (tb[KB_A_NAME])
		snprintf(i->name, sizeof(i->name), "%s", nla_get_string(tb[KB_A_NAME]));
	i->kind = kbnl_u32(tb, KB_A_KIND);
	i->key_type = kbnl_u32(tb, KB_A_KEY_TYPE);
	i->hash = kbnl_u32(tb, KB_A_HASH);
	i->k = kbnl_u32(tb, KB_A_K);
	i->m = kbnl_u64(tb, KB_A_M);
	i->items = kbnl_u64(tb, KB_A_ITEMS);
	i->fpr_ppb = kbnl_u32(tb, KB_A_FPR_PPB);
	i->expected_fpr_ppb = kbnl_u32(tb, KB_A_EXPECTED_FPR_PPB);
	if (tb[KB_A_SEED] && nla_len(tb[KB_A_SEED]) == sizeof(i->seed))
		memcpy(i->seed, nla_data(tb[KB_A_SEED]), sizeof(i->seed));
	i->plen4 = kbnl_u64(tb, KB_A_PLEN4);
	if (tb[KB_A_PLEN6] && nla_len(tb[KB_A_PLEN6]) == sizeof(i->plen6))
		memcpy(i->plen6, nla_data(tb[KB_A_PLEN6]), sizeof(i->plen6));
	i->bytes = kbnl_u64(tb, KB_A_BYTES);
	i->count = kbnl_u64(tb, KB_A_COUNT);
	i->bits_set = kbnl_u64(tb, KB_A_BITS_SET);
	i->est_items = kbnl_u64(tb, KB_A_EST_ITEMS);
	i->fill_ppm = kbnl_u32(tb, KB_A_FILL_PPM);
	i->est_fpr_ppb = kbnl_u32(tb, KB_A_EST_FPR_PPB);
	i->over_capacity = tb[KB_A_OVER_CAPACITY] ?
			   nla_get_u8(tb[KB_A_OVER_CAPACITY]) : 0;
	i->refs = kbnl_u32(tb, KB_A_REFS);
	i->lookups = kbnl_u64(tb, KB_A_LOOKUPS);
	i->hits = kbnl_u64(tb, KB_A_HITS);
	i->adds = kbnl_u64(tb, KB_A_ADDS);
	i->generation = kbnl_u64(tb, KB_A_GENERATION);
	i->id = kbnl_u64(tb, KB_A_ID);
	i->prefixes = kbnl_u32(tb, KB_A_PREFIXES);
	i->window_ms = kbnl_u64(tb, KB_A_WINDOW_MS);
	i->next_rotation_ms = kbnl_u64(tb, KB_A_NEXT_ROTATION_MS);
	i->max_bytes = kbnl_u64(tb, KB_A_MAX_BYTES);
	i->grow = !!tb[KB_A_GROW];
	/* a module before windows: one slice */
	i->nslices = tb[KB_A_SLICES] ? nla_get_u32(tb[KB_A_SLICES]) : 1;
	kbnl_to_slices(i);
	i->max_fpr_ppb = kbnl_u32(tb, KB_A_MAX_FPR_PPB);
	i->learn_refused = kbnl_u64(tb, KB_A_LEARN_REFUSED);
}

static int kbnl_parse_one(struct nlattr **tb, void *arg)
{
	kbnl_to_info(tb, arg);
	return 0;
}

int kbnl_get(struct kbnl *nl, const char *name, struct kb_ioc_info *i,
	     char *ext, size_t extlen)
{
	struct kbnl_req r = KBNL_REQ(ext, extlen);

	r.parse = kbnl_parse_one;
	r.arg = i;
	return kbnl_talk_name(nl, KB_CMD_GET, 0, name, &r);
}

struct kbnl_export {
	kbnl_chunk_cb cb;
	void *arg;
	u64 off, total;		/* the next chunk's offset; the image's length */
	u64 age_ms;		/* a slice's (KB_A_AGE_MS of its chunks) */
};

static int kbnl_parse_chunk(struct nlattr **tb, void *arg)
{
	struct kbnl_export *x = arg;
	u64 len, total;

	if (tb[KB_A_AGE_MS])
		x->age_ms = nla_get_u64(tb[KB_A_AGE_MS]);
	if (!tb[KB_A_CHUNK] || !tb[KB_A_OFFSET] || !tb[KB_A_IMAGE_SIZE])
		return -EIO;
	len = (u64)nla_len(tb[KB_A_CHUNK]);
	total = nla_get_u64(tb[KB_A_IMAGE_SIZE]);
	if (!x->off)
		x->total = total;
	/* in order, contiguous, within one image: else not ours to use */
	if (total != x->total || nla_get_u64(tb[KB_A_OFFSET]) != x->off ||
	    !len || len > x->total - x->off)
		return -EIO;
	x->off += len;
	return x->cb(nla_data(tb[KB_A_CHUNK]), len, x->off - len, x->total,
		     x->arg);
}

int kbnl_export(struct kbnl *nl, const char *name, kbnl_chunk_cb cb,
		void *arg, char *ext, size_t extlen)
{
	return kbnl_export_slice(nl, name, 0, cb, arg, NULL, ext, extlen);
}

int kbnl_export_slice(struct kbnl *nl, const char *name, u32 slice,
		      kbnl_chunk_cb cb, void *arg, u64 *age_ms, char *ext,
		      size_t extlen)
{
	struct kbnl_req r = KBNL_REQ(ext, extlen);
	struct kbnl_export x = { .cb = cb, .arg = arg };
	struct nl_msg *msg;
	int ret;

	/* a dump's messages hold up to KB_NL_CHUNK_MAX bytes: peek their size */
	nl_socket_enable_msg_peek(nl->sk);
	r.parse = kbnl_parse_chunk;
	r.arg = &x;
	msg = kbnl_msg(nl, KB_CMD_EXPORT, NLM_F_DUMP);
	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, KB_A_NAME, name) ||
	    (slice && nla_put_u32(msg, KB_A_SLICE_INDEX, slice))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	ret = kbnl_talk(nl, msg, &r);
	if (!ret)
		ret = r.cb_ret;
	if (!ret && (!x.total || x.off != x.total))
		ret = -EIO;
	if (!ret && age_ms)
		*age_ms = x.age_ms;
	return ret;
}

/* a dump is collected first: cb only sees a consistent list */
struct kbnl_list {
	struct kb_ioc_info *v;
	size_t n, cap;
};

static int kbnl_parse_list(struct nlattr **tb, void *arg)
{
	struct kbnl_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct kb_ioc_info *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	kbnl_to_info(tb, &l->v[l->n++]);
	return 0;
}

static int kbnl_cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct kb_ioc_info *)a)->name,
		      ((const struct kb_ioc_info *)b)->name);
}

int kbnl_dump(struct kbnl *nl,
	      int (*cb)(const struct kb_ioc_info *i, void *arg), void *arg,
	      char *ext, size_t extlen)
{
	struct kbnl_list l = { 0 };
	int tries, ret = 0;
	size_t i;

	for (tries = 0; tries < 16; tries++) {
		struct kbnl_req r = KBNL_REQ(ext, extlen);
		struct nl_msg *msg = kbnl_msg(nl, KB_CMD_GET, NLM_F_DUMP);

		if (!msg) {
			ret = -ENOMEM;
			break;
		}
		l.n = 0;
		r.parse = kbnl_parse_list;
		r.arg = &l;
		ret = kbnl_talk(nl, msg, &r);
		if (!ret)
			ret = r.cb_ret;
		/* the set changed during the dump: ask again */
		if (ret || !r.intr)
			break;
		ret = -EAGAIN;
	}
	if (!ret && l.n) {
		qsort(l.v, l.n, sizeof(*l.v), kbnl_cmp_name);
		for (i = 0; i < l.n && !ret; i++)
			ret = cb(&l.v[i], arg);
	}
	free(l.v);
	return ret;
}

/* ---- key batches ---- */

struct kbnl_result {
	u64 *bitmap;
	u64 base;		/* index of this message's first key */
	u64 n;
};

static int kbnl_parse_result(struct nlattr **tb, void *arg)
{
	struct kbnl_result *res = arg;
	const u8 *b;
	u64 i, n;

	if (!tb[KB_A_RESULT] || !res->bitmap)
		return 0;
	b = nla_data(tb[KB_A_RESULT]);
	n = (u64)nla_len(tb[KB_A_RESULT]);
	if (n > res->n)
		n = res->n;
	for (i = 0; i < n; i++)
		if (b[i])
			res->bitmap[(res->base + i) / 64] |=
				1ULL << ((res->base + i) % 64);
	return 0;
}

static const u8 kbnl_key_cmds[] = {
	[0] = KB_CMD_ADD, [1] = KB_CMD_TEST, [2] = KB_CMD_DEL,
	[3] = KB_CMD_TEST_ADD,
};

static int kbnl_batches(struct kbnl *nl, u8 cmd, bool exist, const char *name,
			const void *keys, u64 keys_len, u64 count, u64 *result,
			u64 *processed, char *ext, size_t extlen);

int kbnl_keys(struct kbnl *nl, int op, const char *name, const void *keys,
	      u64 keys_len, u64 count, u64 *result, u64 *processed, char *ext,
	      size_t extlen)
{
	return kbnl_batches(nl, kbnl_key_cmds[op], false, name, keys, keys_len,
			    count, result, processed, ext, extlen);
}

int kbnl_except(struct kbnl *nl, bool add, bool exist, const char *name,
		const void *keys, u64 keys_len, u64 count, u64 *processed,
		char *ext, size_t extlen)
{
	return kbnl_batches(nl, add ? KB_CMD_EXCEPT_ADD : KB_CMD_EXCEPT_DEL,
			    exist, name, keys, keys_len, count, NULL,
			    processed, ext, extlen);
}

int kbnl_except_flush(struct kbnl *nl, const char *name, char *ext,
		      size_t extlen)
{
	struct kbnl_req r = KBNL_REQ(ext, extlen);

	return kbnl_talk_name(nl, KB_CMD_EXCEPT_FLUSH, 0, name, &r);
}

/* the dump's keys, appended as u16 length + bytes */
struct kbnl_exc {
	u8 *buf;
	u64 len, cap, count;
};

static int kbnl_parse_exc(struct nlattr **tb, void *arg)
{
	struct kbnl_exc *x = arg;
	struct nlattr *a;
	int rem;

	if (!tb[KB_A_KEYS])
		return -EIO;
	nla_for_each_nested(a, tb[KB_A_KEYS], rem) {
		u16 len = (u16)nla_len(a);

		if (x->len + sizeof(len) + len > x->cap) {
			u64 cap = (x->cap ? x->cap * 2 : 4096) + len;
			u8 *nb = realloc(x->buf, cap);

			if (!nb)
				return -ENOMEM;
			x->buf = nb;
			x->cap = cap;
		}
		memcpy(x->buf + x->len, &len, sizeof(len));
		memcpy(x->buf + x->len + sizeof(len), nla_data(a), len);
		x->len += sizeof(len) + len;
		x->count++;
	}
	return 0;
}

int kbnl_except_list(struct kbnl *nl, const char *name, u8 **keys,
		     u64 *keys_len, u64 *count, char *ext, size_t extlen)
{
	struct kbnl_req r = KBNL_REQ(ext, extlen);
	struct kbnl_exc x = { 0 };
	int ret;

	nl_socket_enable_msg_peek(nl->sk);
	r.parse = kbnl_parse_exc;
	r.arg = &x;
	ret = kbnl_talk_name(nl, KB_CMD_EXCEPT_LIST, NLM_F_DUMP, name, &r);
	if (!ret)
		ret = r.cb_ret;
	if (ret) {
		free(x.buf);
		return ret;
	}
	*keys = x.buf;
	*keys_len = x.len;
	*count = x.count;
	return 0;
}

static int kbnl_parse_exc_count(struct nlattr **tb, void *arg)
{
	*(u32 *)arg = kbnl_u32(tb, KB_A_EXCEPT_COUNT);
	return 0;
}

int kbnl_grant(struct kbnl *nl, const char *name, const u32 *readers,
	       const u32 *writers, char *ext, size_t extlen)
{
	struct kbnl_req r = KBNL_REQ(ext, extlen);
	struct nl_msg *msg = kbnl_msg(nl, KB_CMD_GRANT, 0);

	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, KB_A_NAME, name) ||
	    (readers && nla_put_u32(msg, KB_A_READERS, *readers)) ||
	    (writers && nla_put_u32(msg, KB_A_WRITERS, *writers))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return kbnl_talk(nl, msg, &r);
}

static int kbnl_parse_grants(struct nlattr **tb, void *arg)
{
	u32 *g = arg;

	g[0] = tb[KB_A_READERS] ? nla_get_u32(tb[KB_A_READERS]) : KB_GID_NONE;
	g[1] = tb[KB_A_WRITERS] ? nla_get_u32(tb[KB_A_WRITERS]) : KB_GID_NONE;
	return 0;
}

int kbnl_grants(struct kbnl *nl, const char *name, u32 *readers, u32 *writers)
{
	struct kbnl_req r = KBNL_REQ(NULL, 0);
	u32 g[2] = { KB_GID_NONE, KB_GID_NONE };
	int ret;

	r.parse = kbnl_parse_grants;
	r.arg = g;
	ret = kbnl_talk_name(nl, KB_CMD_GET, 0, name, &r);
	*readers = g[0];
	*writers = g[1];
	return ret;
}

int kbnl_except_count(struct kbnl *nl, const char *name, u32 *n)
{
	struct kbnl_req r = KBNL_REQ(NULL, 0);

	r.parse = kbnl_parse_exc_count;
	r.arg = n;
	return kbnl_talk_name(nl, KB_CMD_GET, 0, name, &r);
}

static int kbnl_batches(struct kbnl *nl, u8 cmd, bool exist, const char *name,
			const void *keys, u64 keys_len, u64 count, u64 *result,
			u64 *processed, char *ext, size_t extlen)
{
	const u8 *p = keys, *end = p + keys_len;
	u64 done = 0;
	int ret = 0;

	if (result)
		memset(result, 0, (count + 63) / 64 * sizeof(u64));
	while (done < count) {
		struct kbnl_req r = KBNL_REQ(ext, extlen);
		struct kbnl_result res = { result, done, 0 };
		struct nl_msg *msg = kbnl_msg(nl, cmd, 0);
		struct nlattr *nest;
		size_t bytes = 0;

		if (!msg)
			return -ENOMEM;
		nest = NULL;
		if (!nla_put_string(msg, KB_A_NAME, name) &&
		    (!exist || !nla_put_flag(msg, KB_A_EXIST)))
			nest = nla_nest_start(msg, KB_A_KEYS);
		if (!nest) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
		while (done + res.n < count && res.n < KB_NL_KEYS_MAX && p < end) {
			u16 len;

			memcpy(&len, p, sizeof(len));
			if (bytes + NLA_HDRLEN + NLA_ALIGN(len) > KBNL_NEST_BYTES)
				break;
			if (nla_put(msg, KB_KA_DATA, len, p + sizeof(len))) {
				nlmsg_free(msg);
				return -EMSGSIZE;
			}
			bytes += NLA_HDRLEN + NLA_ALIGN(len);
			p += sizeof(len) + len;
			res.n++;
		}
		nla_nest_end(msg, nest);
		r.parse = kbnl_parse_result;
		r.arg = &res;
		ret = kbnl_talk(nl, msg, &r);
		if (ret)
			break;
		done += res.n;
	}
	if (processed)
		*processed = done;
	return ret;
}

/* ---- events ---- */

static const char *const kbnl_event_names[] = {
	[KB_EVENT_CREATED] = "created", [KB_EVENT_DESTROYED] = "destroyed",
	[KB_EVENT_SWAPPED] = "swapped", [KB_EVENT_RENAMED] = "renamed",
	[KB_EVENT_FLUSHED] = "flushed", [KB_EVENT_REBUILT] = "rebuilt",
	[KB_EVENT_OVER_CAPACITY] = "over-capacity",
	[KB_EVENT_REFUSED] = "refused",
	[KB_EVENT_GRANTED] = "granted",
	[KB_EVENT_ROTATED] = "rotated", [KB_EVENT_GREW] = "grew",
};

struct kbnl_mon {
	int (*cb)(const struct kbnl_event *e, void *arg);
	void *arg;
	int ret;
};

static int kbnl_on_event(struct nl_msg *msg, void *arg)
{
	struct kbnl_mon *m = arg;
	struct nlattr *tb[KB_A_MAX + 1];
	struct kbnl_event e = { 0 };
	u32 ev;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, KB_A_MAX, NULL) ||
	    !tb[KB_A_EVENT])
		return NL_SKIP;
	ev = nla_get_u32(tb[KB_A_EVENT]);
	e.what = ev <= KB_EVENT_MAX && kbnl_event_names[ev] ?
		 kbnl_event_names[ev] : "unknown";
	if (tb[KB_A_NAME])
		snprintf(e.name, sizeof(e.name), "%s", nla_get_string(tb[KB_A_NAME]));
	if (tb[KB_A_NAME2])
		snprintf(e.name2, sizeof(e.name2), "%s", nla_get_string(tb[KB_A_NAME2]));
	m->ret = m->cb(&e, m->arg);
	return m->ret ? NL_STOP : NL_OK;
}

int kbnl_monitor(struct kbnl *nl,
		 int (*cb)(const struct kbnl_event *e, void *arg), void *arg,
		 char *ext, size_t extlen)
{
	struct kbnl_mon m = { cb, arg, 0 };
	int grp, ret;

	grp = genl_ctrl_resolve_grp(nl->sk, KB_GENL_NAME, KB_GENL_MCGRP_EVENTS);
	if (grp < 0) {
		snprintf(ext, extlen, "no '%s' multicast group", KB_GENL_MCGRP_EVENTS);
		return -ENOENT;
	}
	/* only CAP_NET_ADMIN may join: EPERM otherwise */
	if (setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK,
		       NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
		return -errno;
	nl_socket_disable_seq_check(nl->sk);
	nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM, kbnl_on_event, &m);
	while (!m.ret) {
		ret = nl_recvmsgs_default(nl->sk);
		if (ret < 0 && ret != -NLE_INTR && ret != -NLE_AGAIN)
			return -EIO;
	}
	return m.ret < 0 ? m.ret : 0;
}
