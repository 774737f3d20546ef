// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl image probes: the probe positions of keys in a filter, from an
 * image or from the filter's parameters, to debug a filter shared with
 * another implementation (e.g. go-zero's offsets in a Redis bitmap).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "image.h"

/* the probe positions of keys, from an image or from --kind and sizes */
int bfctl_image_probes(int argc, char **argv)
{
	struct bfctl_image_args a;
	struct bfctl_image_loaded li = { 0 };
	struct kb_params p;
	u64 (*pos)[KB_K_MAX] = NULL;	/* each key's probes */
	u32 *nk = NULL;			/* and their number */
	void *pl = NULL;
	int ret, i, first;
	bool from_params;

	ret = bfctl_image_args_parse(argc, argv, &a,
			       IO_BUILD | IO_KEYFMT | IO_JSON);
	if (ret)
		return ret;
	/*
	 * any filter option (e.g. --bits, even --kind blocked) means "no
	 * image": with an image they would be ignored, the image's own used
	 */
	from_params = a.s.have_bits || a.s.have_hashes || a.s.have_fpr ||
		      a.s.have_bpk || a.s.have_items || a.s.key_type >= 0 ||
		      a.s.hash >= 0 || a.s.seed_parts || a.have_kind;
	first = optind + !from_params;
	if (first >= argc)
		return bfctl_image_usage_err("%s", "probes needs IMG (or --kind K --bits M ...) and at least one KEY");
	if (from_params) {
		if (!a.s.have_bits || a.s.have_fpr || a.s.have_bpk)
			return bfctl_image_usage_err("%s", "probes without an image needs --bits M (and --hashes K but for gozero)");
		ret = bfctl_image_check_modes(&a);
		if (ret)
			return ret;
		kb_params_init(&p, (u32)a.kind);
		p.key_type = a.s.key_type >= 0 ? (u32)a.s.key_type : KB_KEY_BYTES;
		if (a.kind != KB_KIND_CLASSIC && a.kind != KB_KIND_GOZERO &&
		    !a.s.seed_parts)
			return bfctl_image_usage_err("%s", "probes without an image needs the filter's --seed");
		ret = bfctl_image_hash_seed(&p, &a);
		if (ret)
			return ret;
		ret = kb_params_from_mk(&p, a.s.bits, bfctl_image_mk_hashes(&a), 0);
		if (!ret)
			ret = kb_params_validate(&p, 0);
		if (ret)
			return bfctl_fail(BFCTL_USAGE, "image probes", "%s",
					  bfctl_image_sizing_err(ret));
		/*
		 * Positions need no bits: calloc()'s untouched zero pages
		 * (8-byte aligned) make even a 512 MiB filter cost nothing
		 */
		pl = calloc(1, kb_params_payload_bytes(&p));
		if (!pl || kb_filter_init_zeroed(&li.f, &p, pl,
						 kb_params_payload_bytes(&p))) {
			free(pl);
			return bfctl_fail(BFCTL_ERR, "image probes",
					  "out of memory");
		}
	} else {
		ret = bfctl_image_load(argv[optind], &li);
		if (ret)
			return ret;
	}
	/*
	 * Every key parsed and probed before anything is printed, as image
	 * test does: a bad key partway leaves no half a listing (nor a
	 * truncated JSON document) on stdout, only the error
	 */
	pos = calloc((size_t)(argc - first), sizeof(*pos));
	nk = calloc((size_t)(argc - first), sizeof(*nk));
	if (!pos || !nk) {
		ret = bfctl_fail(BFCTL_ERR, "image probes", "out of memory");
		goto out;
	}
	for (i = first; i < argc; i++) {
		u8 key[KB_KEY_MAX_LEN + 1];
		const char *why;
		char msg[160];
		u32 len;

		if (kbu_key_parse(li.f.p.key_type,
				  bfctl_key_format(a.key_fmt, li.f.p.key_type),
				  argv[i], strlen(argv[i]), key, &len, &why)) {
			snprintf(msg, sizeof(msg), "bad key '%.100s': %s",
				 argv[i], why);
			ret = bfctl_image_usage_err("%s", msg);
			goto out;
		}
		nk[i - first] = kb_filter_probes(&li.f, key, len,
						 pos[i - first]);
	}
	if (a.json) {
		bfctl_json_open_obj(NULL);
		bfctl_json_str("kind", kb_kind_name(li.f.p.kind));
		bfctl_json_u64("m", li.f.p.m);
		bfctl_json_open_arr("keys");
	}
	for (i = first; i < argc; i++) {
		const u64 *kp = pos[i - first];
		u32 j, k = nk[i - first];

		if (a.json) {
			bfctl_json_open_obj(NULL);
			bfctl_json_str("key", argv[i]);
			bfctl_json_open_arr("probes");
			for (j = 0; j < k; j++)
				bfctl_json_u64(NULL, kp[j]);
			bfctl_json_close_arr();
			bfctl_json_close_obj();
			continue;
		}
		printf("%s\t", argv[i]);
		for (j = 0; j < k; j++)
			printf("%s%llu", j ? " " : "", (unsigned long long)kp[j]);
		putchar('\n');
	}
	if (a.json) {
		bfctl_json_close_arr();
		bfctl_json_close_obj();
		bfctl_json_end();
	}
out:
	free(nk);
	free(pos);
	free(pl);
	free(li.buf);
	return ret;
}

