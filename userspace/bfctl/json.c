// SPDX-License-Identifier: GPL-2.0
/*
 * A tiny streaming JSON writer for bfctl -j: compact, one document, keys in
 * the order the caller writes them (so the output is stable).
 */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include "bfctl.h"

#define JSON_DEPTH 16

static bool json_need_comma[JSON_DEPTH];
static int json_depth;

/* length of the valid UTF-8 sequence at s, 0 if invalid (RFC 3629) */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t n, i;
	u32 cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * Keys are bytes, JSON strings are Unicode: valid UTF-8 passes through,
 * any other byte b >= 0x80 becomes U+00bb so the document stays valid.
 */
static void json_escape(const char *s, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c >= 0x80 ?
			   utf8_len((const unsigned char *)s + i, len - i) : 1;

		if (c >= 0x80 && n) {
			fwrite(s + i, 1, n, stdout);
			i += n - 1;
		} else if (c == '"' || c == '\\') {
			printf("\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", stdout);
		} else if (c == '\t') {
			fputs("\\t", stdout);
		} else if (c < 0x20 || c >= 0x7f) {
			printf("\\u%04x", c);
		} else {
			putchar(c);
		}
	}
	putchar('"');
}

/* comma and "key": before a value */
static void json_prefix(const char *key)
{
	if (json_depth > 0 && json_need_comma[json_depth - 1])
		putchar(',');
	if (json_depth > 0)
		json_need_comma[json_depth - 1] = true;
	if (key) {
		json_escape(key, strlen(key));
		putchar(':');
	}
}

static void json_open(const char *key, char c)
{
	json_prefix(key);
	putchar(c);
	if (json_depth < JSON_DEPTH)
		json_need_comma[json_depth] = false;
	json_depth++;
}

void bfctl_json_open_obj(const char *key)
{
	json_open(key, '{');
}

void bfctl_json_open_arr(const char *key)
{
	json_open(key, '[');
}

void bfctl_json_close_obj(void)
{
	json_depth--;
	putchar('}');
}

void bfctl_json_close_arr(void)
{
	json_depth--;
	putchar(']');
}

void bfctl_json_strn(const char *key, const char *v, size_t len)
{
	json_prefix(key);
	json_escape(v, len);
}

void bfctl_json_str(const char *key, const char *v)
{
	bfctl_json_strn(key, v, strlen(v));
}

void bfctl_json_u64(const char *key, u64 v)
{
	json_prefix(key);
	printf("%llu", (unsigned long long)v);
}

void bfctl_json_est_items(const char *key, u64 v)
{
	json_prefix(key);
	if (v == U64_MAX)
		fputs("null", stdout);
	else
		printf("%llu", (unsigned long long)v);
}

void bfctl_json_bool(const char *key, bool v)
{
	json_prefix(key);
	fputs(v ? "true" : "false", stdout);
}

void bfctl_json_double(const char *key, double v)
{
	json_prefix(key);
	if (isfinite(v))
		printf("%.9g", v);
	else
		fputs("null", stdout);
}

void bfctl_json_end(void)
{
	putchar('\n');
	fflush(stdout);
}
