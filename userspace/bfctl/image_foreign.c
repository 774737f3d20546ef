// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl image export and import: the filters kbloom shares byte for byte
 * with other implementations.  A classic image's payload is a LevelDB
 * filter block, a gozero image's the go-zero Redis value:
 *
 *   bfctl image export --format leveldb|redis IMG [-o OUT]
 *   bfctl image import --format leveldb RAW -o OUT.img
 *   bfctl image import --format redis --bits B [--key-type T] RAW -o OUT.img
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "image.h"

/* --format leveldb (classic filters) or redis (gozero); -1 else */
static int foreign_kind(const char *format)
{
	if (format && !strcmp(format, "leveldb"))
		return KB_KIND_CLASSIC;
	if (format && !strcmp(format, "redis"))
		return KB_KIND_GOZERO;
	return -1;
}

int bfctl_image_export(int argc, char **argv)
{
	struct bfctl_image_args a;
	struct bfctl_image_loaded li;
	int ret, kind;
	u64 len;

	ret = bfctl_image_args_parse(argc, argv, &a, IO_FORMAT | IO_OUT | IO_QUIET);
	if (ret)
		return ret;
	kind = foreign_kind(a.format);
	if (kind < 0)
		return bfctl_image_usage_err("%s", "export needs --format leveldb or redis");
	if (optind + 1 != argc)
		return bfctl_image_usage_err("%s", "export needs exactly one IMG");
	ret = bfctl_image_load(argv[optind], &li);
	if (ret)
		return ret;
	if (li.f.p.kind != (u32)kind) {
		free(li.buf);
		return bfctl_fail(BFCTL_ERR, argv[optind],
				  "%s filter: only %s filters export as %s",
				  kb_kind_name(li.f.p.kind), kb_kind_name(kind),
				  a.format);
	}
	/*
	 * The payload of a classic filter is the LevelDB filter, that of a
	 * gozero filter the Redis value; go-zero's value ends at the last
	 * byte a SETBIT reached, which has a bit set: without the trailing
	 * zero bytes it is byte for byte what go-zero would have written.
	 */
	len = li.f.bytes;
	while (kind == KB_KIND_GOZERO && len && !((u8 *)li.f.payload)[len - 1])
		len--;
	ret = kbu_write_file(a.out ? a.out : "-", li.f.payload, len);
	free(li.buf);
	if (ret)
		return bfctl_fail(BFCTL_ERR, a.out ? a.out : "stdout", "%s",
				  strerror(-ret));
	return BFCTL_OK;
}

/*
 * A go-zero Redis value (GET of its key) of a filter of --bits bits: the
 * value zero-extended (Redis reads missing bytes as 0) is the payload.
 * Read straight into the payload, one copy, and no further than one byte
 * past the longest value of --bits (not a whole too-long file, or a
 * FIFO without end); the size refused from the options, as image build's.
 */
static int import_redis(const struct bfctl_image_args *a, const char *path)
{
	struct bfctl_image_args g = *a;
	u64 need = (a->s.bits + 7) / 8;
	struct kb_params p;
	struct kb_filter f;
	enum kb_img_err why;
	size_t len;
	u8 *pl;
	int ret;

	g.kind = KB_KIND_GOZERO;
	ret = bfctl_image_size_check(&g, KB_KIND_GOZERO, 0);
	if (ret)
		return ret;
	/* the parameters of --bits, to size the payload before reading */
	ret = kb_gozero_import(&p, NULL, 0, a->s.bits, 0, &why);
	if (ret)
		return bfctl_fail(BFCTL_USAGE, "image import", "--bits: %s",
				  kb_image_strerror(why));
	pl = kbu_alloc_payload(kb_params_payload_bytes(&p));
	if (!pl)
		return bfctl_fail(BFCTL_ERR, "image import", "out of memory");
	ret = kbu_read_file_max(path, pl, need, &len);
	if (ret == -EFBIG) {
		free(pl);
		return bfctl_fail(BFCTL_ERR, path,
				  "not the value of a go-zero filter of %llu bits: longer than its %llu bytes",
				  (unsigned long long)a->s.bits,
				  (unsigned long long)need);
	}
	if (ret) {
		free(pl);
		return bfctl_fail(BFCTL_ERR, path, "%s", strerror(-ret));
	}
	ret = kb_gozero_import(&p, pl, len, a->s.bits, 0, &why);
	if (ret) {
		free(pl);
		return bfctl_fail(BFCTL_ERR, path,
				  "not the value of a go-zero filter of %llu bits: %s",
				  (unsigned long long)a->s.bits,
				  kb_image_strerror(why));
	}
	p.key_type = a->s.key_type >= 0 ? (u32)a->s.key_type : KB_KEY_BYTES;
	ret = kb_filter_attach(&f, &p, pl, kb_params_payload_bytes(&p));
	if (!ret)
		ret = bfctl_image_write(a->out, &f, 0);
	else
		ret = bfctl_fail(BFCTL_ERR, path, "%s", strerror(-ret));
	free(pl);
	return ret;
}

int bfctl_image_import(int argc, char **argv)
{
	struct bfctl_image_args a;
	struct kb_params p;
	struct kb_filter f;
	enum kb_img_err why;
	size_t len;
	u8 *raw;
	int ret, kind;

	ret = bfctl_image_args_parse(argc, argv, &a,
			       IO_FORMAT | IO_OUT | IO_QUIET | IO_BUILD);
	if (ret)
		return ret;
	kind = foreign_kind(a.format);
	if (kind < 0)
		return bfctl_image_usage_err("%s", "import needs --format leveldb or redis");
	/* only redis values take options: their bits and key type */
	if (a.have_kind || a.s.have_items || a.s.have_fpr ||
	    a.s.have_bpk || a.s.have_hashes || a.s.hash >= 0 ||
	    a.s.seed_parts || (kind == KB_KIND_CLASSIC &&
			       (a.s.have_bits || a.s.key_type >= 0)))
		return bfctl_image_usage_err("%s", "import takes --bits and --key-type with --format redis, no other filter option");
	if (kind == KB_KIND_GOZERO && !a.s.have_bits)
		return bfctl_image_usage_err("%s", "import --format redis needs --bits M (go-zero does not store it)");
	/* a --bits no go-zero filter has: refused before RAW is read */
	if (kind == KB_KIND_GOZERO &&
	    (!a.s.bits || a.s.bits > KB_GOZERO_BITS_MAX))
		return bfctl_image_usage_err("%s", "--bits: a go-zero filter has 1 to 2^32 bits");
	if (optind + 1 != argc || !a.out)
		return bfctl_image_usage_err("%s", "import needs RAW and -o OUT.img");
	if (kind == KB_KIND_GOZERO)
		return import_redis(&a, argv[optind]);
	ret = kbu_read_file(argv[optind], &raw, &len);
	if (ret)
		return bfctl_fail(BFCTL_ERR, argv[optind], "%s",
				  strerror(-ret));
	ret = kb_leveldb_import(&p, raw, len, 0, &why);
	if (!ret)
		ret = kb_filter_attach(&f, &p, raw, len);
	if (ret) {
		free(raw);
		return bfctl_fail(BFCTL_ERR, argv[optind],
				  "not a LevelDB bloom filter: %s",
				  kb_image_strerror(why));
	}
	ret = bfctl_image_write(a.out, &f, 0);
	free(raw);
	return ret;
}
