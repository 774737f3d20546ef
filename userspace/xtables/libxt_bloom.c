// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_bloom: iptables/ip6tables extension for the xt_bloom match.
 *
 *   -m bloom [!] --bloom-name NAME [--bloom-dir src|dst|src,dst]
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <xtables.h>
#include <linux/genetlink.h>
#include <linux/kbloom.h>
#include <linux/netfilter/xt_bloom.h>
#include <linux/netlink.h>

enum {
	O_BLOOM_NAME = 0,
	O_BLOOM_DIR,
};

static const struct xt_option_entry bloom_mt_opts[] = {
	{ .name = "bloom-name", .id = O_BLOOM_NAME, .type = XTTYPE_STRING,
	  .flags = XTOPT_MAND | XTOPT_INVERT },
	{ .name = "bloom-dir", .id = O_BLOOM_DIR, .type = XTTYPE_STRING },
	XTOPT_TABLEEND,
};

static void bloom_mt_help(void)
{
	printf(
"bloom match options:\n"
" [!] --bloom-name NAME         match if the packet's address may be in the\n"
"                               kbloom filter NAME (1..31 characters of\n"
"                               A-Z a-z 0-9 _ . : -)\n"
"     --bloom-dir src|dst|src,dst\n"
"                               address(es) to test (default src); with\n"
"                               src,dst the match holds if either may be\n"
"                               present\n");
}

static void bloom_mt_init(struct xt_entry_match *m)
{
	struct xt_bloom_mtinfo *info = (void *)m->data;

	info->flags = XT_BLOOM_SRC;
}

static bool bloom_name_valid(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= XT_BLOOM_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == len;
}

static unsigned int bloom_parse_dir(const char *s)
{
	if (strcmp(s, "src") == 0)
		return XT_BLOOM_SRC;
	if (strcmp(s, "dst") == 0)
		return XT_BLOOM_DST;
	if (strcmp(s, "src,dst") == 0 || strcmp(s, "dst,src") == 0)
		return XT_BLOOM_SRC | XT_BLOOM_DST;
	xtables_error(PARAMETER_PROBLEM,
		      "bloom: --bloom-dir takes src, dst or src,dst, not \"%s\"",
		      s);
	return 0;
}

static void bloom_mt_parse(struct xt_option_call *cb)
{
	struct xt_bloom_mtinfo *info = cb->data;

	xtables_option_parse(cb);
	switch (cb->entry->id) {
	case O_BLOOM_NAME:
#ifndef XT_BLOOM_NO_PRECHECK	/* the selftests' copy sends bad names */
		if (!bloom_name_valid(cb->arg))
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: invalid filter name \"%s\": 1..%d characters of A-Z a-z 0-9 _ . : -",
				      cb->arg, XT_BLOOM_NAME_MAX - 1);
#endif
		strcpy(info->name, cb->arg);
		if (cb->invert)
			info->flags |= XT_BLOOM_INVERT;
		break;
	case O_BLOOM_DIR:
		info->flags &= ~(XT_BLOOM_SRC | XT_BLOOM_DST);
		info->flags |= bloom_parse_dir(cb->arg);
		break;
	}
}

static const char *bloom_dir_str(unsigned int flags)
{
	switch (flags & (XT_BLOOM_SRC | XT_BLOOM_DST)) {
	case XT_BLOOM_SRC:
		return "src";
	case XT_BLOOM_DST:
		return "dst";
	default:
		return "src,dst";
	}
}

static void bloom_mt_print(const void *ip, const struct xt_entry_match *m,
			   int numeric)
{
	const struct xt_bloom_mtinfo *info = (const void *)m->data;

	printf(" bloom %s%s %s",
	       info->flags & XT_BLOOM_INVERT ? "! " : "", info->name,
	       bloom_dir_str(info->flags));
}

static void bloom_mt_save(const void *ip, const struct xt_entry_match *m)
{
	const struct xt_bloom_mtinfo *info = (const void *)m->data;

	printf("%s --bloom-name %s --bloom-dir %s",
	       info->flags & XT_BLOOM_INVERT ? " !" : "", info->name,
	       bloom_dir_str(info->flags));
}

/*
 * Like ipset's libxt_set, ask the kernel about the filter before the rule
 * goes in, so that the iptables user reads what is wrong instead of the
 * bare errno xt_bloom's checkentry can return.  The kernel checks again
 * (the selftests build a copy with XT_BLOOM_NO_PRECHECK to reach it).
 */
struct bloom_nlmsg {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[64];
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

/* One request, one reply: the attribute @want of the answer, or -errno. */
static int bloom_genl_ask(int fd, struct bloom_nlmsg *req, uint16_t want,
			  void *out, size_t len)
{
	char buf[8192];
	struct nlmsghdr *nlh = (void *)buf;
	struct nlattr *nla;
	ssize_t n;
	int rem;

	if (send(fd, req, req->nlh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(nlh, (size_t)n))
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
		if ((nla->nla_type & NLA_TYPE_MASK) == want &&
		    nla->nla_len >= NLA_HDRLEN + len) {
			memcpy(out, (char *)nla + NLA_HDRLEN, len);
			return 0;
		}
	}
	return -ENODATA;
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

/* The filter's key type, -ENOENT if there is no such filter, or -errno. */
static int bloom_filter_key_type(const char *name, uint32_t *key_type)
{
	struct bloom_nlmsg req;
	uint16_t family;
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	bloom_req_init(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	bloom_nla_put(&req, CTRL_ATTR_FAMILY_NAME, KB_GENL_NAME,
		      sizeof(KB_GENL_NAME));
	err = bloom_genl_ask(fd, &req, CTRL_ATTR_FAMILY_ID, &family,
			     sizeof(family));
	if (err == 0) {
		bloom_req_init(&req, family, KB_CMD_GET, KB_GENL_VERSION);
		bloom_nla_put(&req, KB_A_NAME, name, strlen(name) + 1);
		err = bloom_genl_ask(fd, &req, KB_A_KEY_TYPE, key_type,
				     sizeof(*key_type));
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

static void bloom_mt_check(const struct xt_bloom_mtinfo *info, int family)
{
	uint32_t key_type;
	int err;

	err = bloom_filter_key_type(info->name, &key_type);
	if (err == -ENOENT)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: no kbloom filter \"%s\" in this network namespace (create it first: bfctl create)",
			      info->name);
	/* No kbloom family (module not loaded yet) or an older kernel:
	 * leave the decision to xt_bloom's checkentry.
	 */
	if (err || key_type > KB_KEY_MAX || bloom_key_type_serves(key_type, family))
		return;
	xtables_error(PARAMETER_PROBLEM,
		      "bloom: filter \"%s\" holds %s keys; an %s rule needs a filter of key type %s, ip, %s or net",
		      info->name, bloom_key_types[key_type],
		      family == NFPROTO_IPV6 ? "ip6tables" : "iptables",
		      family == NFPROTO_IPV6 ? "ipv6" : "ipv4",
		      family == NFPROTO_IPV6 ? "net6" : "net4");
}

static void bloom_mt4_check(struct xt_fcheck_call *cb)
{
	bloom_mt_check(cb->data, NFPROTO_IPV4);
}

static void bloom_mt6_check(struct xt_fcheck_call *cb)
{
	bloom_mt_check(cb->data, NFPROTO_IPV6);
}

/* iptables and ip6tables: the same match, checked for its family. */
static struct xtables_match bloom_mt_reg[2] = {
	{
		.name		= "bloom",
		.revision	= 0,
		.family		= NFPROTO_IPV4,
		.version	= XTABLES_VERSION,
		.size		= XT_ALIGN(sizeof(struct xt_bloom_mtinfo)),
		.userspacesize	= offsetof(struct xt_bloom_mtinfo, filter),
		.help		= bloom_mt_help,
		.init		= bloom_mt_init,
		.print		= bloom_mt_print,
		.save		= bloom_mt_save,
		.x6_parse	= bloom_mt_parse,
#ifndef XT_BLOOM_NO_PRECHECK
		.x6_fcheck	= bloom_mt4_check,
#endif
		.x6_options	= bloom_mt_opts,
	},
};

static void __attribute__((constructor)) bloom_mt_ldr(void)
{
	bloom_mt_reg[1] = bloom_mt_reg[0];
	bloom_mt_reg[1].family = NFPROTO_IPV6;
#ifndef XT_BLOOM_NO_PRECHECK
	bloom_mt_reg[1].x6_fcheck = bloom_mt6_check;
#endif
	xtables_register_matches(bloom_mt_reg, 2);
}
