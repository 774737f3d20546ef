// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs on keys of the command line: add, del, test, test-and-add,
 * one function each (add -file streams through bulk.c).  The keys are all
 * parsed before any is sent, so a bad one changes nothing; each key's
 * answer is reported on its own line or in the -j document.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kverbs.h"
#include "../libkbloom/kbloom.h"	/* not kmod/kbloom.h */

static bool bit(const u64 *bm, u64 i)
{
	return bm[i / 64] >> (i % 64) & 1;
}

/* keys from argv: parse them all first so a bad one changes nothing */
static int argv_keys(struct bfctl_kargs *a, u32 key_type, struct bfctl_batch *b)
{
	const char *why;
	int i;

	if (bfctl_batch_init(b, (u64)a->npos,
			     (u64)a->npos * (KB_KEY_MAX_LEN + 3)))
		return bfctl_fail(BFCTL_ERR, a->verb, "%s", strerror(ENOMEM));
	for (i = 1; i < a->npos; i++) {
		if (bfctl_batch_push_text(b, key_type,
					  bfctl_key_format(a->key_fmt, key_type),
					  a->pos[i],
					  strlen(a->pos[i]), (u64)i, &why)) {
			fprintf(stderr, "bfctl: %s %s: key %d '%s': %s (key type %s)\n",
				a->verb, a->pos[0], i, a->pos[i], why,
				kb_key_type_name(key_type));
			bfctl_batch_free(b);
			return BFCTL_USAGE;
		}
	}
	return BFCTL_OK;
}

/* the keys of a verb's command line and the kernel's answer */
struct kbatch {
	struct kb_ioc_info info;	/* its key type reads the keys */
	struct bfctl_batch b;
	u64 *res;			/* one bit per key */
};

static void kbatch_free(struct kbatch *kb)
{
	free(kb->res);
	bfctl_batch_free(&kb->b);
}

/*
 * NAME's description, and with dev the device for a bulk -file load; keys
 * on the command line go over netlink and never open /dev/kbloom, which
 * may be closed to the caller (mode 0600, a udev group); BFCTL_*
 */
static int keys_filter(struct kbconn *conn, struct bfctl_kargs *a,
		       struct kb_ioc_info *info, bool dev)
{
	int ret = bfctl_check_name(a, a->pos[0]);

	if (ret)
		return ret;
	ret = kbconn_info(conn, a->pos[0], info);
	if (ret)
		return bfctl_fail_err(conn, bfctl_verb_name(a->verb, a->pos[0]),
				      ret);
	if (dev && kbconn_dev(conn) < 0)
		return bfctl_fail_err(conn, bfctl_verb_name(a->verb, a->pos[0]),
				      conn->dev);
	return BFCTL_OK;
}

/* the keys of argv for kb->info's key type, and room for the answers */
static int keys_parse(struct bfctl_kargs *a, struct kbatch *kb)
{
	int ret = argv_keys(a, kb->info.key_type, &kb->b);

	if (ret)
		return ret;
	kb->res = calloc((kb->b.count + 63) / 64, sizeof(u64));
	if (!kb->res) {
		bfctl_batch_free(&kb->b);
		return bfctl_fail(BFCTL_ERR, a->verb, "%s", strerror(ENOMEM));
	}
	return BFCTL_OK;
}

/* NAME KEY... (use: the usage line) -> kb; BFCTL_* */
static int keys_argv(struct kbconn *conn, struct bfctl_kargs *a,
		     const char *use, struct kbatch *kb)
{
	int ret = bfctl_want_pos(a, 2, -1, use);

	if (!ret)
		ret = keys_filter(conn, a, &kb->info, false);
	if (ret)
		return ret;
	return keys_parse(a, kb);
}

/* the kernel's answer ret to the batch; bad: the refused key or ~0 */
static int keys_sent(struct kbconn *conn, struct bfctl_kargs *a,
		     struct kbatch *kb, int ret, u64 bad)
{
	if (!ret)
		return BFCTL_OK;
	/* without the kernel's own words, say what we know */
	if (!conn->extack[0] && ret == -EINVAL && bad < kb->b.count)
		snprintf(conn->extack, sizeof(conn->extack),
			 "key %llu '%s' refused",
			 (unsigned long long)kb->b.line[bad],
			 a->pos[kb->b.line[bad]]);
	return bfctl_fail_err(conn, bfctl_verb_name(a->verb, a->pos[0]), ret);
}

/* send the batch (cmd: KB_IOC_*); BFCTL_OK or the error, printed */
static int keys_send(struct kbconn *conn, struct bfctl_kargs *a,
		     unsigned long cmd, struct kbatch *kb)
{
	u64 done = 0, bad = ~0ULL;
	int ret;

	ret = kbconn_keys(conn, cmd, a->pos[0], kb->b.buf, kb->b.len,
			  kb->b.count, kb->res, &done, &bad);
	return keys_sent(conn, a, kb, ret, bad);
}

/*
 * Each key's answer: with -j an object {key, field: set} in the "keys"
 * array (the caller ends the document: keys_json_end()), else the verb's
 * say() line unless -q.  Returns how many keys were not set.
 */
static u64 keys_report(struct bfctl_kargs *a, const struct kbatch *kb,
		       const char *field,
		       void (*say)(const struct bfctl_kargs *a, const char *key,
				   bool set))
{
	char key[1100];
	u64 i, miss = 0;

	if (bfctl_json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("filter", a->pos[0]);
		bfctl_json_open_arr("keys");
	}
	for (i = 0; i < kb->b.count; i++) {
		bool set = bit(kb->res, i);
		const char *text = a->pos[kb->b.line[i]];

		miss += !set;
		if (bfctl_json) {
			bfctl_json_open_obj(NULL);
			bfctl_json_str("key", text);
			bfctl_json_bool(field, set);
			bfctl_json_close_obj();
			continue;
		}
		if (bfctl_quiet)
			continue;
		snprintf(key, sizeof(key), "%s", text);
		say(a, key, set);
	}
	if (bfctl_json)
		bfctl_json_close_arr();
	return miss;
}

static void keys_json_end(void)
{
	if (!bfctl_json)
		return;
	bfctl_json_close_obj();
	bfctl_json_end();
}

static void say_add(const struct bfctl_kargs *a, const char *key, bool set)
{
	if (!set && !a->exist)
		fprintf(stderr, "bfctl: add %s: %s: already (maybe) present\n",
			a->pos[0], key);
}

int bfctl_do_add(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kbatch kb = { 0 };
	int ret;

	if (a->file) {
		ret = bfctl_want_pos(a, 1, 1, "add NAME -file FILE");
		if (!ret)
			ret = keys_filter(conn, a, &kb.info, true);
		if (ret)
			return ret;
		ret = bfctl_add_file(conn, "add", a->pos[0], kb.info.key_type,
				     bfctl_key_format(a->key_fmt,
						      kb.info.key_type),
				     a->file, 0, a->force ? NULL : &kb.info,
				     NULL);
		if (!ret)
			bfctl_cap_warn(conn, a->pos[0]);
		return ret;
	}
	ret = keys_argv(conn, a, "add NAME KEY... [-exist] [--force] | add NAME -file FILE [--force]",
			&kb);
	if (!ret)
		ret = bfctl_cap_check(&kb.info, kb.b.count, a->force,
				      bfctl_verb_name("add", a->pos[0]));
	if (ret) {
		kbatch_free(&kb);
		return ret;
	}
	/* TEST_ADD: which keys were new, for the "already present" lines */
	ret = keys_send(conn, a, KB_IOC_TEST_ADD, &kb);
	if (!ret) {
		keys_report(a, &kb, "new", say_add);
		keys_json_end();
		bfctl_cap_warn(conn, a->pos[0]);
	}
	kbatch_free(&kb);
	return ret;
}

static void say_del(const struct bfctl_kargs *a, const char *key, bool set)
{
	if (!set && !a->exist)
		fprintf(stderr, "bfctl: del %s: %s: absent, nothing deleted\n",
			a->pos[0], key);
}

int bfctl_do_del(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kbatch kb = { 0 };
	u64 miss, done = 0, bad = ~0ULL;
	int ret;

	ret = keys_argv(conn, a, "del NAME KEY... [-exist]", &kb);
	if (ret)
		return ret;
	ret = kbconn_keys(conn, KB_IOC_DEL, a->pos[0], kb.b.buf, kb.b.len,
			  kb.b.count, kb.res, &done, &bad);
	if (ret == -EOPNOTSUPP && !conn->extack[0])
		snprintf(conn->extack, sizeof(conn->extack),
			 "delete needs a counting filter");
	ret = keys_sent(conn, a, &kb, ret, bad);
	if (!ret) {
		miss = keys_report(a, &kb, "deleted", say_del);
		keys_json_end();
		if (miss && !a->exist)
			ret = BFCTL_ABSENT;
	}
	kbatch_free(&kb);
	return ret;
}

static void say_test(const struct bfctl_kargs *a, const char *key, bool set)
{
	(void)a;
	printf("%s: %s\n", key, set ? "maybe present" : "absent");
}

/* the report of test's answers, either way they came; BFCTL_* */
static int test_report(struct bfctl_kargs *a, struct kbatch *kb)
{
	u64 miss = keys_report(a, kb, "present", say_test);

	if (bfctl_json)
		bfctl_json_bool("all_present", !miss);
	keys_json_end();
	return miss ? BFCTL_ABSENT : BFCTL_OK;
}

/*
 * test without CAP_NET_ADMIN (netlink answered EPERM): a member of the
 * filter's readers group may still open it through libkbloom and test it
 * in its mapping, with the kernel's answers.  Anyone else gets netlink's
 * EPERM, as before.  BFCTL_*
 */
static int test_granted(struct kbconn *conn, struct bfctl_kargs *a, int nlerr)
{
	const char *what = bfctl_verb_name(a->verb, a->pos[0]);
	struct kbatch kb = { 0 };
	struct kbloom_info info;
	struct kbloom_key *keys;
	struct kbloom *f = NULL;
	const u8 *p;
	long ret;
	u64 i;

	/* not granted, or no way to ask: netlink's answer stands */
	ret = kbloom_open(a->pos[0], KBLOOM_RDONLY, &f);
	if (ret == -EPERM || ret == -EACCES || ret == -ENODEV ||
	    ret == -EOPNOTSUPP)
		return bfctl_fail_err(conn, what, nlerr);
	if (!ret)
		ret = kbloom_info(f, &info);
	if (ret) {
		snprintf(conn->extack, sizeof(conn->extack), "%s", kbloom_errmsg());
		kbloom_close(f);
		return bfctl_fail_err(conn, what, (int)ret);
	}
	kb.info.key_type = info.key_type;
	ret = keys_parse(a, &kb);
	if (ret) {
		kbloom_close(f);
		return (int)ret;
	}
	keys = calloc(kb.b.count, sizeof(*keys));
	if (!keys) {
		ret = bfctl_fail(BFCTL_ERR, a->verb, "%s", strerror(ENOMEM));
		goto out;
	}
	/* the batch holds __u16 length + bytes per key, as for the kernel */
	for (i = 0, p = kb.b.buf; i < kb.b.count; i++) {
		u16 len;

		memcpy(&len, p, sizeof(len));
		keys[i].data = p + sizeof(len);
		keys[i].len = len;
		p += sizeof(len) + len;
	}
	ret = kbloom_test_many(f, keys, kb.b.count, kb.res);
	if (ret < 0) {
		snprintf(conn->extack, sizeof(conn->extack), "%s", kbloom_errmsg());
		ret = bfctl_fail_err(conn, what, (int)ret);
		goto out;
	}
	ret = test_report(a, &kb);
out:
	free(keys);
	kbatch_free(&kb);
	kbloom_close(f);
	return (int)ret;
}

int bfctl_do_test(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kbatch kb = { 0 };
	int ret;

	ret = bfctl_want_pos(a, 2, -1, "test NAME KEY... [-j] [-q]");
	if (!ret)
		ret = bfctl_check_name(a, a->pos[0]);
	if (ret)
		return ret;
	ret = kbconn_info(conn, a->pos[0], &kb.info);
	if (ret == -EPERM)
		return test_granted(conn, a, ret);
	if (ret)
		return bfctl_fail_err(conn, bfctl_verb_name(a->verb, a->pos[0]),
				      ret);
	ret = keys_parse(a, &kb);
	if (ret)
		return ret;
	/*
	 * on a net filter the kernel looks an address up at every prefix
	 * length the filter holds, as for a packet, and counts one lookup
	 */
	ret = keys_send(conn, a, KB_IOC_TEST, &kb);
	if (!ret)
		ret = test_report(a, &kb);
	kbatch_free(&kb);
	return ret;
}

static void say_test_add(const struct bfctl_kargs *a, const char *key, bool set)
{
	(void)a;
	if (set)
		printf("%s\n", key);	/* the new ones */
}

int bfctl_do_test_and_add(struct kbconn *conn, struct bfctl_kargs *a)
{
	struct kbatch kb = { 0 };
	int ret;

	ret = keys_argv(conn, a, "test-and-add NAME KEY...", &kb);
	if (ret)
		return ret;
	ret = keys_send(conn, a, KB_IOC_TEST_ADD, &kb);
	if (!ret) {
		keys_report(a, &kb, "new", say_test_add);
		keys_json_end();
	}
	kbatch_free(&kb);
	return ret;
}
