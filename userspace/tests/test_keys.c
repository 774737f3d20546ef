// SPDX-License-Identifier: GPL-2.0
/*
 * Names, key encodings, prefix-length bitmaps, and libkbcore's key text
 * parsing and key files.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "kbtest.h"

TEST(names)
{
	char longname[40];

	ASSERT_TRUE(kb_name_valid("a", 1));
	ASSERT_TRUE(kb_name_valid("Block-list_v4.1:x", 17));
	ASSERT_FALSE(kb_name_valid("", 0));
	ASSERT_FALSE(kb_name_valid("a b", 3));
	ASSERT_FALSE(kb_name_valid("a/b", 3));
	ASSERT_FALSE(kb_name_valid("a\0b", 3));
	memset(longname, 'x', sizeof(longname));
	ASSERT_TRUE(kb_name_valid(longname, 31));
	ASSERT_FALSE(kb_name_valid(longname, 32));
	ASSERT_EQ(KB_KIND_COUNTING, kb_kind_from_name("counting"));
	ASSERT_EQ(-EINVAL, kb_kind_from_name("bloom"));
	ASSERT_EQ(KB_HASH_SIPHASH, kb_hash_from_name("siphash"));
	ASSERT_EQ(KB_KEY_NET6, kb_key_type_from_name("net6"));
	ASSERT_STREQ("leveldb", kb_hash_name(KB_HASH_LEVELDB));
	ASSERT_STREQ("?", kb_kind_name(9));
}

TEST(key_validate)
{
	u8 k[20] = { 10, 0, 0, 0, 8 };
	static u8 big[KB_KEY_MAX_LEN + 1];

	ASSERT_EQ(0, kb_key_validate(KB_KEY_BYTES, big, KB_KEY_MAX_LEN));
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_BYTES, big, KB_KEY_MAX_LEN + 1));
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_STR, big, 0));
	ASSERT_EQ(0, kb_key_validate(KB_KEY_IPV4, k, 4));
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_IPV4, k, 5));
	ASSERT_EQ(0, kb_key_validate(KB_KEY_IPV6, k, 16));
	ASSERT_EQ(0, kb_key_validate(KB_KEY_IP, k, 4));
	ASSERT_EQ(0, kb_key_validate(KB_KEY_IP, k, 16));
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_IP, k, 5));
	ASSERT_EQ(0, kb_key_validate(KB_KEY_NET4, k, 5));	/* 10/8 */
	k[1] = 1;						/* 10.1/8: host bits */
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_NET4, k, 5));
	k[4] = 16;
	ASSERT_EQ(0, kb_key_validate(KB_KEY_NET4, k, 5));
	k[4] = 33;
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_NET4, k, 5));
	k[4] = 0;
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_NET4, k, 5));	/* /0 not 0.0.0.0 */
	memset(k, 0, sizeof(k));
	ASSERT_EQ(0, kb_key_validate(KB_KEY_NET4, k, 5));	/* 0/0 */
	ASSERT_EQ(0, kb_key_validate(KB_KEY_NET, k, 5));
	ASSERT_EQ(0, kb_key_validate(KB_KEY_NET, k, 17));
	k[16] = 129;
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_NET6, k, 17));
	k[16] = 127;
	k[15] = 1;	/* bit 127 is host for /127 */
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_NET6, k, 17));
	k[15] = 2;
	ASSERT_EQ(0, kb_key_validate(KB_KEY_NET6, k, 17));
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_NET6, k, 5));
	ASSERT_EQ(-EINVAL, kb_key_validate(KB_KEY_NET, k, 16));
	ASSERT_EQ(-EINVAL, kb_key_validate(8, k, 4));
}

TEST(prefix_bitmaps)
{
	struct kb_params p;
	u8 k4[5] = { 192, 168, 0, 0, 16 }, k6[17] = { 0x20, 1, 0xd, 0xb8 };

	kb_params_init(&p, KB_KIND_BLOCKED);
	p.key_type = KB_KEY_NET;
	k6[16] = 32;
	ASSERT_EQ(0, kb_params_note_prefix(&p, k4, 5));
	ASSERT_EQ(0, kb_params_note_prefix(&p, k6, 17));
	k6[16] = 128;
	ASSERT_EQ(0, kb_params_note_prefix(&p, k6, 17));
	ASSERT_EQ(1ULL << 16, p.plen4);
	ASSERT_EQ(1ULL << 32, p.plen6[0]);
	ASSERT_EQ(1ULL, p.plen6[2]);
	ASSERT_TRUE(kb_params_has_prefix(&p, 4, 16));
	ASSERT_FALSE(kb_params_has_prefix(&p, 4, 24));
	ASSERT_TRUE(kb_params_has_prefix(&p, 6, 128));
	ASSERT_FALSE(kb_params_has_prefix(&p, 6, 129));
	ASSERT_FALSE(kb_params_has_prefix(&p, 5, 1));
	k4[3] = 1;	/* host bits */
	ASSERT_EQ(-EINVAL, kb_params_note_prefix(&p, k4, 5));
	ASSERT_EQ(1ULL << 16, p.plen4);
	/* non-net types: validation only */
	p.key_type = KB_KEY_IPV4;
	p.plen4 = p.plen6[0] = p.plen6[2] = 0;
	ASSERT_EQ(0, kb_params_note_prefix(&p, k4, 4));
	ASSERT_EQ(0, p.plen4);
	ASSERT_EQ(-EINVAL, kb_params_note_prefix(&p, k4, 5));
}

TEST(key_text_parsing)
{
	u8 out[KB_KEY_MAX_LEN + 1];
	u32 len;
	const char *why;

	ASSERT_EQ(0, kbu_key_parse(KB_KEY_STR, KBU_FMT_STR, "hello", 5, out, &len, &why));
	ASSERT_EQ(5, len);
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_BYTES, KBU_FMT_HEX, "00fFa1", 6, out, &len, &why));
	ASSERT_EQ(3, len);
	ASSERT_EQ(0xff, out[1]);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_BYTES, KBU_FMT_HEX, "abc", 3, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_BYTES, KBU_FMT_HEX, "zz", 2, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_BYTES, KBU_FMT_STR, "", 0, out, &len, &why));
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_IPV4, KBU_FMT_STR, "10.1.2.3", 8, out, &len, &why));
	ASSERT_EQ(4, len);
	ASSERT_EQ(10, out[0]);
	ASSERT_EQ(3, out[3]);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_IPV4, KBU_FMT_STR, "::1", 3, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_IPV4, KBU_FMT_STR, "10.1.2.3/8", 10, out, &len, &why));
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_IP, KBU_FMT_STR, "::1", 3, out, &len, &why));
	ASSERT_EQ(16, len);
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_NET, KBU_FMT_STR, "10.0.0.0/8", 10, out, &len, &why));
	ASSERT_EQ(5, len);
	ASSERT_EQ(8, out[4]);
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.0.0.1", 8, out, &len, &why));
	ASSERT_EQ(32, out[4]);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.0.0.1/8", 10, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.0.0.0/33", 11, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.0.0.0/", 9, out, &len, &why));
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_NET6, KBU_FMT_STR, "2001:db8::/32", 13, out, &len, &why));
	ASSERT_EQ(17, len);
	ASSERT_EQ(32, out[16]);
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_NET6, KBU_FMT_HEX,
				   "20010db800000000000000000000000020", 34, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_IPV6, KBU_FMT_STR, "nonsense", 8, out, &len, &why));
	ASSERT_EQ(KBU_FMT_HEX, kbu_key_format_from_name("hex"));
	ASSERT_EQ(-1, kbu_key_format_from_name("b64"));
}

/* the hand-written dotted-quad parser takes exactly what inet_pton takes */
TEST(ipv4_parser_matches_inet_pton)
{
	static const char *const fixed[] = {
		"0.0.0.0", "255.255.255.255", "1.2.3.4", "01.2.3.4", "1.2.3.04",
		"1.2.3.00", "256.1.1.1", "1.2.3.256", "1.2.3", "1.2.3.4.",
		".1.2.3.4", "1..2.3", "1.2.3.4.5", "1234.1.1.1", "1.2.3.1000",
		"1.2.3.4 ", " 1.2.3.4", "1.2.3.4/32", "1.2.3.-4", "1.2.3.+4",
		"0x1.2.3.4", "1.2.3.4\n", "99.999.9.9", "255.255.255.2555",
	};
	char text[24], tmp[32];
	u8 out[KB_KEY_MAX_LEN + 1], ref[4];
	u64 x = 12345;
	u32 len, i, j, n;
	const char *why;

	for (i = 0; i < ARRAY_SIZE(fixed) + 200000; i++) {
		const char *t = text;

		if (i < ARRAY_SIZE(fixed)) {
			t = fixed[i];
		} else {
			/* mostly near-misses of a dotted quad */
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			n = 1 + (u32)(x >> 59) % 20;
			for (j = 0; j < n; j++) {
				x = x * 6364136223846793005ULL + 1;
				text[j] = "0123456789....12/ x"[(x >> 40) % 19];
			}
			text[n] = 0;
		}
		snprintf(tmp, sizeof(tmp), "%s", t);
		n = (u32)strlen(t);
		ASSERT_EQ(inet_pton(AF_INET, tmp, ref) == 1 ? 0 : -EINVAL,
			  kbu_key_parse(KB_KEY_IPV4, KBU_FMT_STR, t, n, out, &len, &why))
			TH_LOG("'%s'", t);
		if (inet_pton(AF_INET, tmp, ref) == 1) {
			ASSERT_EQ(4, len);
			ASSERT_EQ(0, memcmp(out, ref, 4));
		}
	}
	/* prefixes: the fast path and the general one agree with the rules */
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.1.2.0/24", 11, out, &len, &why));
	ASSERT_EQ(5, len);
	ASSERT_EQ(24, out[4]);
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.1.2.0/024", 12, out, &len, &why));
	ASSERT_EQ(24, out[4]);
	ASSERT_EQ(0, kbu_key_parse(KB_KEY_NET, KBU_FMT_STR, "0.0.0.0/0", 9, out, &len, &why));
	ASSERT_EQ(0, out[4]);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.1.2.3/24", 11, out, &len, &why));
	/* host bits: the one cause, and the network probably meant */
	ASSERT_STREQ("host bits set; did you mean 10.1.2.0/24?", why);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET, KBU_FMT_STR, "10.1.2.3/8", 10, out, &len, &why));
	ASSERT_STREQ("host bits set; did you mean 10.0.0.0/8?", why);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.1.2.3/0", 10, out, &len, &why));
	ASSERT_STREQ("host bits set; did you mean 0.0.0.0/0?", why);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET6, KBU_FMT_STR, "2001:db8::1/33", 14, out, &len, &why));
	ASSERT_STREQ("host bits set; did you mean 2001:db8::/33?", why);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_HEX, "0a01020321", 10, out, &len, &why));
	ASSERT_STREQ("bad prefix length", why);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET6, KBU_FMT_HEX, "0a01020308", 10, out, &len, &why));
	ASSERT_STREQ("bad length for the key type", why);
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.1.2.0/2x", 11, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.1.2.0/-1", 11, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "10.1.2.0//24", 12, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET4, KBU_FMT_STR, "1.2.0/24", 8, out, &len, &why));
	ASSERT_EQ(-EINVAL, kbu_key_parse(KB_KEY_NET6, KBU_FMT_STR, "10.1.2.0/24", 11, out, &len, &why));
}

static char *tmpfile_with(const char *content, size_t len)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/kbtest_keysXXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, content, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

TEST(keyset_load)
{
	struct kbu_keyset ks;
	char err[256], *path;

	path = tmpfile_with("alpha\nbeta\n\ngamma", 17);
	ASSERT_EQ(0, kbu_keyset_load(&ks, path, KB_KEY_STR, KBU_FMT_STR, err, sizeof(err)));
	ASSERT_EQ(3, ks.n);
	ASSERT_EQ(5, ks.keys[0].len);
	ASSERT_EQ(0, memcmp(ks.keys[2].data, "gamma", 5));
	kbu_keyset_free(&ks);
	unlink(path);

	path = tmpfile_with("0a0b\nff\n", 8);
	ASSERT_EQ(0, kbu_keyset_load(&ks, path, KB_KEY_BYTES, KBU_FMT_HEX, err, sizeof(err)));
	ASSERT_EQ(2, ks.n);
	ASSERT_EQ(2, ks.keys[0].len);
	ASSERT_EQ(0xff, ((const u8 *)ks.keys[1].data)[0]);
	kbu_keyset_free(&ks);
	unlink(path);

	path = tmpfile_with("0a0b\nfg\n", 8);
	ASSERT_EQ(-EINVAL, kbu_keyset_load(&ks, path, KB_KEY_BYTES, KBU_FMT_HEX, err, sizeof(err)));
	ASSERT_NE(NULL, strstr(err, ":2: bad hex digit"));
	unlink(path);

	path = tmpfile_with("1.2.3.4\n::/0\n", 13);
	ASSERT_EQ(0, kbu_keyset_load(&ks, path, KB_KEY_NET, KBU_FMT_STR, err, sizeof(err)));
	ASSERT_EQ(2, ks.n);
	ASSERT_EQ(5, ks.keys[0].len);
	ASSERT_EQ(17, ks.keys[1].len);
	kbu_keyset_free(&ks);
	unlink(path);

	path = tmpfile_with("", 0);
	ASSERT_EQ(0, kbu_keyset_load(&ks, path, KB_KEY_STR, KBU_FMT_STR, err, sizeof(err)));
	ASSERT_EQ(0, ks.n);
	kbu_keyset_free(&ks);
	unlink(path);

	ASSERT_EQ(-ENOENT, kbu_keyset_load(&ks, "/nonexistent/keys", KB_KEY_STR,
					   KBU_FMT_STR, err, sizeof(err)));
}

/* what kbu_keyfile_read() handed over: the count, the last key and line */
struct kf_seen {
	u64 n, last_line, stop_at;
	u8 last[KB_KEY_MAX_LEN + 1];
	u32 last_len;
};

static int kf_key(const u8 *k, u32 len, u64 line, void *arg)
{
	struct kf_seen *s = arg;

	s->n++;
	s->last_line = line;
	memcpy(s->last, k, len);
	s->last_len = len;
	return s->n == s->stop_at ? 42 : 0;
}

TEST(keyfile_read)
{
	struct kf_seen seen;
	char err[256], *path, *big;
	size_t i, len;
	u64 line;

	/* CRLF, empty lines (counted, skipped), a last line without '\n' */
	path = tmpfile_with("a\r\n\nbb\n\r\nccc", 12);
	memset(&seen, 0, sizeof(seen));
	ASSERT_EQ(0, kbu_keyfile_read(path, KB_KEY_STR, KBU_FMT_STR, kf_key,
				      &seen, err, sizeof(err), &line));
	ASSERT_EQ(3, seen.n);
	ASSERT_EQ(5, seen.last_line);
	ASSERT_EQ(3, seen.last_len);
	ASSERT_EQ(0, memcmp(seen.last, "ccc", 3));
	/* the format is the caller's: the same line, hex */
	memset(&seen, 0, sizeof(seen));
	ASSERT_EQ(-EINVAL, kbu_keyfile_read(path, KB_KEY_BYTES, KBU_FMT_HEX,
					    kf_key, &seen, err, sizeof(err),
					    &line));
	ASSERT_EQ(1, line);
	ASSERT_STREQ("odd number of hex digits 'a'", err);
	ASSERT_EQ(0, seen.n);
	/* key()'s nonzero return stops the read and comes back as is */
	memset(&seen, 0, sizeof(seen));
	seen.stop_at = 2;
	ASSERT_EQ(42, kbu_keyfile_read(path, KB_KEY_STR, KBU_FMT_STR, kf_key,
				       &seen, err, sizeof(err), &line));
	ASSERT_EQ(2, seen.n);
	ASSERT_EQ(0, line);
	unlink(path);

	/* keys across the reader's 4 MiB chunks: none lost or split */
	len = 600000 * 8;
	big = malloc(len + 1);
	ASSERT_NE(NULL, big);
	for (i = 0; i < 600000; i++)
		snprintf(big + i * 8, 9, "%07zu\n", i);
	path = tmpfile_with(big, len);
	memset(&seen, 0, sizeof(seen));
	ASSERT_EQ(0, kbu_keyfile_read(path, KB_KEY_STR, KBU_FMT_STR, kf_key,
				      &seen, err, sizeof(err), &line));
	ASSERT_EQ(600000, seen.n);
	ASSERT_EQ(600000, seen.last_line);
	ASSERT_EQ(0, memcmp(seen.last, "0599999", 7));
	unlink(path);
	/* a bad key past the first chunk: its line */
	for (i = 0; i < 600000; i++)
		memcpy(big + i * 8, "1.2.3.4\n", 8);
	memcpy(big + 550000 * 8, "1.2.3.x", 7);
	path = tmpfile_with(big, len);
	ASSERT_EQ(-EINVAL, kbu_keyfile_read(path, KB_KEY_IPV4, KBU_FMT_STR,
					    kf_key, &seen, err, sizeof(err),
					    &line));
	ASSERT_EQ(550001, line);
	unlink(path);
	/* one line longer than a chunk */
	memset(big, 'x', len);
	path = tmpfile_with(big, len);
	ASSERT_EQ(-EINVAL, kbu_keyfile_read(path, KB_KEY_STR, KBU_FMT_STR,
					    kf_key, &seen, err, sizeof(err),
					    &line));
	ASSERT_EQ(1, line);
	ASSERT_EQ(0, strncmp("line too long: 'xxxx", err, 20));
	ASSERT_NE(NULL, strstr(err, "x'..."));
	unlink(path);
	free(big);

	ASSERT_EQ(-ENOENT, kbu_keyfile_read("/nonexistent/keys", KB_KEY_STR,
					    KBU_FMT_STR, kf_key, &seen, err,
					    sizeof(err), &line));
	ASSERT_EQ(0, line);
}

/* the keys kbu_keyfile_read() gave, as text, "|" after each, and lines */
struct kf_all {
	u32 key_type;
	char text[1024];
	u64 lines[32];
	u64 n;
};

static int kf_all_key(const u8 *k, u32 len, u64 line, void *arg)
{
	struct kf_all *a = arg;
	size_t o = strlen(a->text);
	char addr[INET6_ADDRSTRLEN];

	if (a->key_type == KB_KEY_IPV4) {
		inet_ntop(AF_INET, k, addr, sizeof(addr));
		snprintf(a->text + o, sizeof(a->text) - o, "%s|", addr);
	} else if (a->key_type == KB_KEY_NET4) {
		inet_ntop(AF_INET, k, addr, sizeof(addr));
		snprintf(a->text + o, sizeof(a->text) - o, "%s/%u|", addr,
			 k[4]);
	} else if (a->key_type == KB_KEY_BYTES) {
		u32 i;

		for (i = 0; i < len; i++)
			o += (size_t)snprintf(a->text + o, sizeof(a->text) - o,
					      "%02x", k[i]);
		snprintf(a->text + o, sizeof(a->text) - o, "|");
	} else {
		snprintf(a->text + o, sizeof(a->text) - o, "%.*s|", (int)len,
			 (const char *)k);
	}
	if (a->n < 32)
		a->lines[a->n] = line;
	a->n++;
	return 0;
}

/* read content as key_type/fmt: kbu_keyfile_read()'s return */
static int kf_read_all(const char *content, u32 key_type, int fmt,
		       struct kf_all *a, char *err, size_t errlen, u64 *line)
{
	char *path = tmpfile_with(content, strlen(content));
	int ret;

	memset(a, 0, sizeof(*a));
	a->key_type = key_type;
	ret = kbu_keyfile_read(path, key_type, fmt, kf_all_key, a, err,
			       errlen, line);
	unlink(path);
	return ret;
}

/*
 * Files as admins have them: FireHOL's and Spamhaus' headers, comments
 * after an address, trailing blanks, CRLF, ';' comments (issue 25)
 */
TEST(keyfile_comments)
{
	struct kf_all a;
	char err[512];
	u64 line;

	ASSERT_EQ(0, kf_read_all(
		"#\n# FireHOL blocklist\n#   maintainer: x\n\n"
		"10.0.0.1\n"
		"10.0.0.2 # why\n"
		"10.0.0.3\t;\tSBL123\n"
		"10.0.0.4;SBL9\n"
		"10.0.0.5 \t \n"
		"\t 10.0.0.6\r\n"
		"; a Spamhaus-style comment\n"
		"   # indented comment\n"
		" \t\r\n"
		"10.0.0.7#x", KB_KEY_IPV4, KBU_FMT_STR, &a, err, sizeof(err),
		&line));
	ASSERT_STREQ("10.0.0.1|10.0.0.2|10.0.0.3|10.0.0.4|10.0.0.5|10.0.0.6|10.0.0.7|",
		     a.text);
	ASSERT_EQ(5, a.lines[0]);
	ASSERT_EQ(14, a.lines[6]);
	/* networks and hex bytes keys: the same, comments after the key */
	ASSERT_EQ(0, kf_read_all("# nets\n10.0.0.0/8 ; x\r\n192.168.0.0/16\t\n",
				 KB_KEY_NET4, KBU_FMT_STR, &a, err, sizeof(err),
				 &line));
	ASSERT_STREQ("10.0.0.0/8|192.168.0.0/16|", a.text);
	ASSERT_EQ(0, kf_read_all("; hex\n00ff # a\n  cafe  \r\n", KB_KEY_BYTES,
				 KBU_FMT_HEX, &a, err, sizeof(err), &line));
	ASSERT_STREQ("00ff|cafe|", a.text);
	/*
	 * text keys hold '#', ';' and inner blanks: only whole-line comments,
	 * and the blanks around the line, go
	 */
	ASSERT_EQ(0, kf_read_all("# header\n; too\nurl#frag\n  a b  \t\r\nc;d\nk # not a comment\n",
				 KB_KEY_STR, KBU_FMT_STR, &a, err, sizeof(err),
				 &line));
	ASSERT_STREQ("url#frag|a b|c;d|k # not a comment|", a.text);
	ASSERT_EQ(0, kf_read_all("#x\n a#b \n", KB_KEY_BYTES, KBU_FMT_STR, &a,
				 err, sizeof(err), &line));
	ASSERT_STREQ("612362|", a.text);
	/* ... and such a key is given in hex: "#x" is 2378 */
	ASSERT_EQ(0, kf_read_all("2378 # the key '#x'\n", KB_KEY_STR,
				 KBU_FMT_HEX, &a, err, sizeof(err), &line));
	ASSERT_STREQ("#x|", a.text);
	/* a comment-only file has no key, and is no error */
	ASSERT_EQ(0, kf_read_all("# nothing\n;\n\n", KB_KEY_IPV4, KBU_FMT_STR,
				 &a, err, sizeof(err), &line));
	ASSERT_EQ(0, a.n);
}

/* a bad line: its number and its text, quoted safely */
TEST(keyfile_errors)
{
	char err[512], q[KBU_QUOTE_SIZE], msg[600], longl[300];
	struct kf_all a;
	u64 line;

	ASSERT_EQ(-EINVAL, kf_read_all("# h\n10.0.0.1\n10.0.0.300 # typo\n10.0.0.2\n",
				       KB_KEY_IPV4, KBU_FMT_STR, &a, err,
				       sizeof(err), &line));
	ASSERT_EQ(3, line);
	ASSERT_STREQ("bad address '10.0.0.300'", err);
	kbu_keyfile_msg(msg, sizeof(msg), "blocklist.txt", -EINVAL, err, line);
	ASSERT_STREQ("blocklist.txt:3: bad address '10.0.0.300'", msg);
	/* two addresses on a line are not one */
	ASSERT_EQ(-EINVAL, kf_read_all("10.0.0.1 10.0.0.2\n", KB_KEY_IPV4,
				       KBU_FMT_STR, &a, err, sizeof(err),
				       &line));
	ASSERT_EQ(1, line);
	ASSERT_STREQ("bad address '10.0.0.1 10.0.0.2'", err);
	/* control bytes, quotes and backslashes escaped */
	ASSERT_EQ(-EINVAL, kf_read_all("1.2.3.\x1b[2J'\\\xff\n", KB_KEY_IPV4,
				       KBU_FMT_STR, &a, err, sizeof(err),
				       &line));
	ASSERT_STREQ("bad address '1.2.3.\\x1b[2J\\'\\\\\\xff'", err);
	/* a long line: its start, then "..." */
	memset(longl, '9', sizeof(longl) - 2);
	longl[sizeof(longl) - 2] = '\n';
	longl[sizeof(longl) - 1] = 0;
	ASSERT_EQ(-EINVAL, kf_read_all(longl, KB_KEY_IPV4, KBU_FMT_STR, &a,
				       err, sizeof(err), &line));
	ASSERT_EQ(strlen("bad address length ''...") + KBU_QUOTE_MAX,
		  strlen(err));
	ASSERT_STREQ("9'...", err + strlen(err) - 5);
	/* kbu_quote() in a buffer too small stops in time, still quoted */
	kbu_quote(q, 12, "abcdefghijklmnop", 16);
	ASSERT_GE(11, strlen(q));
	ASSERT_EQ('\'', q[0]);
	ASSERT_NE(NULL, strstr(q, "'..."));
	kbu_quote(q, sizeof(q), "", 0);
	ASSERT_STREQ("''", q);
	/* no line: the file's error */
	kbu_keyfile_msg(msg, sizeof(msg), "/x", -ENOENT, "", 0);
	ASSERT_STREQ("/x: No such file or directory", msg);
}

TEST_HARNESS_MAIN
