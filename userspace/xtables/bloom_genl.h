/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bloom match (libxt_bloom.c) and the BLOOM target
 * (libxt_BLOOM.c) share: the filter name's rule, and the question they ask
 * the kernel before a rule goes in.  Like ipset's libxt_set, they ask
 * about the filter so that the iptables user reads what is wrong instead
 * of the bare errno xt_bloom's checkentry can return; the kernel checks
 * again (the selftests build copies with XT_BLOOM_NO_PRECHECK to reach
 * it).  Each extension is one shared object: everything here is static.
 */
#ifndef _BLOOM_GENL_H
#define _BLOOM_GENL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <xtables.h>
#include <linux/genetlink.h>
#include <linux/kbloom.h>
#include <linux/netfilter/xt_bloom.h>
#include <linux/netlink.h>

static bool bloom_name_valid(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= XT_BLOOM_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == len;
}

#ifndef XT_BLOOM_NO_PRECHECK
struct bloom_nlmsg {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[64];
};

/* the attributes a question asks for (u32 each) */
struct bloom_want {
	uint16_t type;
	bool found;
	uint32_t *out;
};

static void bloom_nla_put(struct bloom_nlmsg *m, uint16_t type,
			  const void *data, uint16_t len)
{
	struct nlattr *nla = (void *)((char *)m + NLMSG_ALIGN(m->nlh.nlmsg_len));

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy((char *)nla + NLA_HDRLEN, data, len);
	m->nlh.nlmsg_len = NLMSG_ALIGN(m->nlh.nlmsg_len) + NLA_ALIGN(nla->nla_len);
}

/*
 * One request, one reply: the first n attributes of want found in the
 * answer (their first 4 bytes), 0 if the first one was, else -ENODATA,
 * or -errno
 */
static int bloom_genl_ask(int fd, struct bloom_nlmsg *req,
			  struct bloom_want *want, int n)
{
	char buf[8192];
	struct nlmsghdr *nlh = (void *)buf;
	struct nlattr *nla;
	ssize_t got;
	int rem, i;

	if (send(fd, req, req->nlh.nlmsg_len, 0) < 0)
		return -errno;
	got = recv(fd, buf, sizeof(buf), 0);
	if (got < 0)
		return -errno;
	if (!NLMSG_OK(nlh, (size_t)got))
		return -EBADMSG;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nlh);

		return e->error ? e->error : -ENODATA;
	}
	rem = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	nla = (void *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	for (; rem >= (int)sizeof(*nla) && nla->nla_len >= sizeof(*nla) &&
	       (int)nla->nla_len <= rem;
	     rem -= NLA_ALIGN(nla->nla_len),
	     nla = (void *)((char *)nla + NLA_ALIGN(nla->nla_len))) {
		for (i = 0; i < n; i++) {
			uint32_t v = 0;

			if ((nla->nla_type & NLA_TYPE_MASK) != want[i].type ||
			    nla->nla_len < NLA_HDRLEN + 2)
				continue;
			/* CTRL_ATTR_FAMILY_ID is a u16 */
			memcpy(&v, (char *)nla + NLA_HDRLEN,
			       nla->nla_len >= NLA_HDRLEN + 4 ? 4 : 2);
			*want[i].out = v;
			want[i].found = true;
		}
	}
	return n && want[0].found ? 0 : -ENODATA;
}

static void bloom_req_init(struct bloom_nlmsg *m, uint16_t family,
			   uint8_t cmd, uint8_t version)
{
	memset(m, 0, sizeof(*m));
	m->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nlh.nlmsg_type = family;
	m->nlh.nlmsg_flags = NLM_F_REQUEST;
	m->genl.cmd = cmd;
	m->genl.version = version;
}

/*
 * The filter's key type and kind (KB_A_KEY_TYPE, KB_A_KIND; *kind left
 * as it is if the module does not say), -ENOENT if there is no such
 * filter, or -errno
 */
static int bloom_filter_get(const char *name, uint32_t *key_type,
			    uint32_t *kind)
{
	struct bloom_nlmsg req;
	uint32_t family = 0;
	struct bloom_want w[2] = {
		{ .type = CTRL_ATTR_FAMILY_ID, .out = &family },
	};
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	bloom_req_init(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	bloom_nla_put(&req, CTRL_ATTR_FAMILY_NAME, KB_GENL_NAME,
		      sizeof(KB_GENL_NAME));
	err = bloom_genl_ask(fd, &req, w, 1);
	if (err == 0) {
		w[0] = (struct bloom_want){ .type = KB_A_KEY_TYPE, .out = key_type };
		w[1] = (struct bloom_want){ .type = KB_A_KIND, .out = kind };
		bloom_req_init(&req, (uint16_t)family, KB_CMD_GET,
			       KB_GENL_VERSION);
		bloom_nla_put(&req, KB_A_NAME, name, strlen(name) + 1);
		err = bloom_genl_ask(fd, &req, w, 2);
	}
	close(fd);
	return err;
}

static bool bloom_key_type_serves(uint32_t key_type, int family)
{
	switch (key_type) {
	case KB_KEY_IPV4:
	case KB_KEY_NET4:
		return family == NFPROTO_IPV4;
	case KB_KEY_IPV6:
	case KB_KEY_NET6:
		return family == NFPROTO_IPV6;
	case KB_KEY_IP:
	case KB_KEY_NET:
		return true;
	default:
		return false;
	}
}

static const char *const bloom_key_types[] = {
	[KB_KEY_BYTES] = "bytes", [KB_KEY_STR] = "str", [KB_KEY_IPV4] = "ipv4",
	[KB_KEY_IPV6] = "ipv6", [KB_KEY_IP] = "ip", [KB_KEY_NET4] = "net4",
	[KB_KEY_NET6] = "net6", [KB_KEY_NET] = "net",
};

/* a filter the rule names is missing, or holds keys its family cannot */
static void bloom_check_key_type(const char *ext, const char *name,
				 uint32_t key_type, int family)
{
	if (key_type > KB_KEY_MAX || bloom_key_type_serves(key_type, family))
		return;
	xtables_error(PARAMETER_PROBLEM,
		      "%s: filter \"%s\" holds %s keys; an %s rule needs a filter of key type %s, ip, %s or net",
		      ext, name, bloom_key_types[key_type],
		      family == NFPROTO_IPV6 ? "ip6tables" : "iptables",
		      family == NFPROTO_IPV6 ? "ipv6" : "ipv4",
		      family == NFPROTO_IPV6 ? "net6" : "net4");
}

static void bloom_check_exists(const char *ext, const char *name, int err)
{
	if (err == -ENOENT)
		xtables_error(PARAMETER_PROBLEM,
			      "%s: no kbloom filter \"%s\" in this network namespace (create it first: bfctl create)",
			      ext, name);
}
#endif /* !XT_BLOOM_NO_PRECHECK */

#endif /* _BLOOM_GENL_H */
