// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: raw LevelDB filter bytes.
 *
 * Input: byte 0 gives the number of keys (0..7); each key is a length byte
 * (0..15) and its bytes; the rest of the input is the raw filter.  kb_leveldb_key_may_match() must
 * not read out of bounds on any raw filter; when kb_leveldb_import()
 * accepts it, a classic filter attached to a copy must answer every key as
 * key_may_match() does, and export the same bytes.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_key keys[8];
	enum kb_img_err why = KB_IMG_ERR_MAX;
	struct kb_params p;
	struct kb_filter f;
	size_t off = 1;
	u32 n = 0, nk, i;
	u8 *raw, *keybuf, *pl, *out;
	bool may[8];
	u64 len;
	int ret;

	if (!size)
		return 0;
	nk = data[0] % 8;
	keybuf = fuzz_dup(data, size);
	while (n < nk && off < size) {
		u32 kl = data[off] % 16;

		off++;
		if (kl > size - off)
			kl = (u32)(size - off);
		keys[n].data = keybuf + off;
		keys[n].len = kl;
		off += kl;
		n++;
	}
	len = size - off;
	raw = fuzz_dup(data + off, len);
	for (i = 0; i < n; i++)
		may[i] = kb_leveldb_key_may_match(raw, len, keys[i].data,
						  keys[i].len);

	ret = kb_leveldb_import(&p, raw, len, FUZZ_MAX_BYTES, &why);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -E2BIG);
	FUZZ_CHECK(why < KB_IMG_ERR_MAX && (why == KB_IMG_OK) == (ret == 0));
	if (!ret) {
		FUZZ_CHECK(kb_params_payload_bytes(&p) == len);
		pl = fuzz_dup(raw, len);
		FUZZ_CHECK(kb_filter_attach(&f, &p, pl, len) == 0);
		for (i = 0; i < n; i++)
			FUZZ_CHECK(kb_filter_test(&f, keys[i].data,
						  keys[i].len) == may[i]);
		out = malloc(len);
		FUZZ_CHECK(out);
		FUZZ_CHECK(kb_leveldb_export(&f, out, len) == (s64)len);
		FUZZ_CHECK(!memcmp(out, raw, len));
		/* added keys match, in our filter and by LevelDB's rule */
		kb_filter_add_many(&f, keys, n);
		for (i = 0; i < n; i++)
			FUZZ_CHECK(kb_leveldb_key_may_match(pl, len,
							    keys[i].data,
							    keys[i].len));
		free(out);
		free(pl);
	}
	free(raw);
	free(keybuf);
	return 0;
}
