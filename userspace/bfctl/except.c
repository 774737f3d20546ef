// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl except NAME add|del|list|flush: a filter's exception set (uapi
 * section 4): keys (net filters: prefixes) every lookup answers absent,
 * so a must-pass source a false positive would drop can be listed.  Keys
 * are all parsed before any is sent, so a bad one changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kverbs.h"
#include "savefmt.h"

#define USE "except NAME add|del KEY... [-file FILE] [-exist] | list [-j] | flush"

/* a streamed file's batch appended to the keys of the command line */
static int file_keys(struct bfctl_batch *fb, void *arg)
{
	struct bfctl_batch *b = arg;
	u8 *nb;

	if (b->count + fb->count > KB_EXC_MAX)
		return -ENOSPC;	/* the kernel would refuse the set */
	nb = realloc(b->buf, b->len + fb->len);
	if (!nb)
		return -ENOMEM;
	b->buf = nb;
	memcpy(b->buf + b->len, fb->buf, fb->len);
	b->len += fb->len;
	b->cap = b->len;
	b->count += fb->count;
	return 0;
}

static int read_keys(struct bfctl_kargs *a, u32 key_type, struct bfctl_batch *b)
{
	int fmt = bfctl_key_format(a->key_fmt, key_type);
	const char *why;
	char err[256];
	int i, ret;

	if (bfctl_batch_init(b, 64, 64 * (KB_KEY_MAX_LEN + 3)))
		return bfctl_fail(BFCTL_ERR, a->verb, "%s", strerror(ENOMEM));
	for (i = 2; i < a->npos; i++) {
		if (bfctl_batch_reserve(b)) {
			bfctl_batch_free(b);
			return bfctl_fail(BFCTL_ERR, a->verb, "%s", strerror(ENOMEM));
		}
		if (bfctl_batch_push_text(b, key_type, fmt, a->pos[i],
					  strlen(a->pos[i]), (u64)i, &why)) {
			fprintf(stderr, "bfctl: except %s: key '%s': %s (key type %s)\n",
				a->pos[0], a->pos[i], why,
				kb_key_type_name(key_type));
			bfctl_batch_free(b);
			return BFCTL_USAGE;
		}
	}
	if (a->file) {
		char msg[KBU_QUOTE_SIZE + 600];
		struct bfctl_batch fb;
		u64 line = 0;
		int fd;

		fd = strcmp(a->file, "-") ? open(a->file, O_RDONLY | O_CLOEXEC) : 0;
		if (fd < 0) {
			ret = -errno;
			bfctl_batch_free(b);
			return bfctl_fail(BFCTL_ERR, a->verb, "%s: %s", a->file,
					  strerror(-ret));
		}
		ret = bfctl_batch_init(&fb, KB_NL_KEYS_MAX,
				       KB_NL_KEYS_MAX * (KB_KEY_MAX_LEN + 3));
		if (!ret)
			ret = bfctl_batch_stream_fd(fd, key_type, fmt, &fb,
						    file_keys, b, err,
						    sizeof(err), &line);
		else
			snprintf(err, sizeof(err), "%s", strerror(ENOMEM));
		bfctl_batch_free(&fb);
		if (fd > 0)
			close(fd);
		if (ret == -ENOSPC)
			snprintf(err, sizeof(err), "more than %u keys", KB_EXC_MAX);
		if (ret) {
			/* nothing is sent before the whole file is read */
			kbu_keyfile_msg(msg, sizeof(msg), a->file, ret, err, line);
			fprintf(stderr, "bfctl: except %s: %s\n", a->pos[0], msg);
			bfctl_batch_free(b);
			return line || ret == -EINVAL ? BFCTL_USAGE : BFCTL_ERR;
		}
	}
	if (!b->count) {
		bfctl_batch_free(b);
		return bfctl_usage(a->verb, "%s", "no key given (KEY... or -file)");
	}
	return BFCTL_OK;
}

static void print_list(const struct kb_ioc_info *info, struct bfctl_batch *b)
{
	char text[2 * KB_KEY_MAX_LEN + 8];
	u64 i;

	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("name", info->name);
		bfctl_json_u64("count", b->count);
		bfctl_json_open_arr("keys");
	}
	for (i = 0; i < b->count; i++) {
		bfctl_batch_key_text(b, info->key_type, i, text, sizeof(text));
		if (bfctl_json)
			bfctl_json_str(NULL, text);
		else
			printf("%s\n", text);
	}
	if (bfctl_json) {
		bfctl_json_close_arr();
		bfctl_json_close_obj();
		bfctl_json_end();
	}
}

int bfctl_do_except(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kb_ioc_info info;
	struct bfctl_batch b;
	const char *op;
	u64 done = 0;
	bool add;
	int ret;

	if (a->npos < 2)
		return bfctl_usage(a->verb, "%s", "usage: " USE);
	op = a->pos[1];
	if (strcmp(op, "add") && strcmp(op, "del") && strcmp(op, "list") &&
	    strcmp(op, "flush"))
		return bfctl_usage(a->verb, "unknown operation '%s' (add, del, list, flush)",
				   op);
	if ((strcmp(op, "add") && strcmp(op, "del")) &&
	    (a->npos > 2 || a->file || a->exist))
		return bfctl_usage(a->verb, "%s", "list and flush take no key, -file or -exist");
	if (bfctl_json && strcmp(op, "list"))
		return bfctl_usage(a->verb, "option '%s' is not allowed here", "-j");
	ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	if (!conn->nl)
		return bfctl_fail_err(conn, "except", kbconn_no_nl(conn));
	ret = kbconn_info(conn, a->pos[0], &info);
	if (ret)
		return bfctl_fail_err(conn, bfctl_verb_name("except", a->pos[0]), ret);
	if (!strcmp(op, "flush")) {
		ret = kbnl_except_flush(conn->nl, a->pos[0], conn->extack,
					sizeof(conn->extack));
		return ret ? bfctl_fail_err(conn, "except flush", ret) : BFCTL_OK;
	}
	if (!strcmp(op, "list")) {
		memset(&b, 0, sizeof(b));
		ret = kbnl_except_list(conn->nl, a->pos[0], &b.buf, &b.len,
				       &b.count, conn->extack,
				       sizeof(conn->extack));
		if (ret)
			return bfctl_fail_err(conn, "except list", ret);
		print_list(&info, &b);
		free(b.buf);
		return BFCTL_OK;
	}
	add = !strcmp(op, "add");
	ret = read_keys(a, info.key_type, &b);
	if (ret)
		return ret;
	ret = kbnl_except(conn->nl, add, a->exist, a->pos[0], b.buf, b.len,
			  b.count, &done, conn->extack, sizeof(conn->extack));
	bfctl_batch_free(&b);
	if (ret && done)
		fprintf(stderr, "bfctl: except %s: %llu of the keys were %s before the failure\n",
			a->pos[0], (unsigned long long)done,
			add ? "added" : "removed");
	return ret ? bfctl_fail_err(conn, add ? "except add" : "except del", ret) :
		     BFCTL_OK;
}

int bfctl_save_exc(struct kbconn *conn, FILE *f, const char *name,
		   u32 key_type)
{
	char text[2 * KB_KEY_MAX_LEN + 8], what[64];
	struct bfctl_batch b;
	u64 i;
	int ret;

	/* no netlink: no exception set to save (the kernel's needs it) */
	if (!conn->nl)
		return BFCTL_OK;
	memset(&b, 0, sizeof(b));
	ret = kbnl_except_list(conn->nl, name, &b.buf, &b.len, &b.count,
			       conn->extack, sizeof(conn->extack));
	if (ret) {
		snprintf(what, sizeof(what), "save %s: exceptions", name);
		return bfctl_fail_err(conn, what, ret);
	}
	for (i = 0; i < b.count; i++) {
		bfctl_batch_key_text(&b, key_type, i, text, sizeof(text));
		fprintf(f, "except %s %s\n", name, text);
	}
	free(b.buf);
	return BFCTL_OK;
}
