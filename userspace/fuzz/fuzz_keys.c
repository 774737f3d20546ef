// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the key text parsers of userspace/lib (what `bfctl
 * image build` and `bfctl image test` use): kbu_key_parse() for every key
 * type in str and hex format, and kbu_keyset_load() on a key file.
 *
 * Input: byte 0 picks the key type (values past KB_KEY_MAX included), byte
 * 1 the format, the rest is the text.  Every key accepted must validate
 * for its type, fit the output buffer, and (hex) re-encode to the same
 * key; every key of an accepted key file must validate.
 */
#include <arpa/inet.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"

static void fuzz_one(u32 key_type, int fmt, const u8 *text, size_t len)
{
	u8 out[KB_KEY_MAX_LEN + 1 + 16], out2[KB_KEY_MAX_LEN + 1];
	char hex[2 * (KB_KEY_MAX_LEN + 1)];
	const char *why = NULL;
	struct kb_params p;
	u32 olen = 0, olen2 = 0, i;
	u8 *s = fuzz_dup(text, len);
	int ret;

	/* canary past the documented KB_KEY_MAX_LEN + 1 bytes of output */
	memset(out, 0xa5, sizeof(out));
	ret = kbu_key_parse(key_type, fmt, (const char *)s, len, out, &olen,
			    &why);
	for (i = KB_KEY_MAX_LEN + 1; i < sizeof(out); i++)
		FUZZ_CHECK(out[i] == 0xa5);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	FUZZ_CHECK(why != NULL);
	/* the hand-written dotted-quad parser against libc's */
	if (key_type == KB_KEY_IPV4 && fmt == KBU_FMT_STR && len < 64 &&
	    !memchr(s, 0, len)) {
		char z[64];
		u8 ref[4];
		int ok;

		memcpy(z, s, len);
		z[len] = 0;
		ok = inet_pton(AF_INET, z, ref) == 1;

		FUZZ_CHECK(ok == !ret);
		FUZZ_CHECK(!ok || !memcmp(out, ref, 4));
	}
	if (!ret) {
		FUZZ_CHECK(key_type <= KB_KEY_MAX);
		FUZZ_CHECK(olen >= 1 && olen <= KB_KEY_MAX_LEN + 1);
		FUZZ_CHECK(kb_key_validate(key_type, out, olen) == 0);
		kb_params_init(&p, KB_KIND_BLOCKED);
		p.key_type = key_type;
		FUZZ_CHECK(kb_params_note_prefix(&p, out, olen) == 0);
		/* hex of the key parses back to the key */
		for (i = 0; i < olen; i++) {
			hex[2 * i] = "0123456789abcdef"[out[i] >> 4];
			hex[2 * i + 1] = "0123456789abcdef"[out[i] & 15];
		}
		FUZZ_CHECK(kbu_key_parse(key_type, KBU_FMT_HEX, hex, 2 * olen,
					 out2, &olen2, NULL) == 0);
		FUZZ_CHECK(olen2 == olen && !memcmp(out, out2, olen));
	}
	free(s);
}

static void fuzz_file(u32 key_type, int fmt, const u8 *text, size_t len)
{
	struct kbu_keyset ks;
	char path[64], err[256];
	u64 i;
	int fd, ret;

	fd = memfd_create("fuzz_keys", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, text, len) == (ssize_t)len);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err[0] = 0;
	ret = kbu_keyset_load(&ks, path, key_type, fmt, err, sizeof(err));
	if (!ret) {
		for (i = 0; i < ks.n; i++) {
			FUZZ_CHECK(ks.keys[i].len >= 1);
			FUZZ_CHECK(kb_key_validate(key_type, ks.keys[i].data,
						   ks.keys[i].len) == 0);
		}
		kbu_keyset_free(&ks);
	} else {
		FUZZ_CHECK(ret < 0 && err[0]);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u32 key_type;
	int fmt;

	if (size < 2)
		return 0;
	key_type = data[0] % (KB_KEY_MAX + 3);
	fmt = data[1] & 1 ? KBU_FMT_HEX : KBU_FMT_STR;
	data += 2;
	size -= 2;
	if (data[-1] & 2) {
		/* a key file */
		if (key_type <= KB_KEY_MAX)
			fuzz_file(key_type, fmt, data, size);
	} else {
		fuzz_one(key_type, fmt, data, size);
	}
	return 0;
}
