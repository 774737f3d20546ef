// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: bfctl save / restore text (userspace/bfctl/savefmt.c).
 *
 * The real bfctl_restore_main() and bfctl_save_main() run against a fake
 * kernel defined here: the transport and /dev/kbloom calls they make are
 * stubs that keep filters in memory (nothing touches the host kernel).
 *
 * Input: byte 0 holds options, the rest is the restore text (filter
 * blocks, create, add and attach lines).  Bit 0 adds -exist, bit 1 makes every
 * name taken in the kernel, bits 2-3 make the Nth kernel write
 * (begin/upload/keys/commit) fail, bits 4-5 add --on-bad-payload=empty
 * (1) or closed (2, 3), whose stand-ins must be images the kernel takes
 * and whose bad text never exits 2.  The fake kernel builds filters with
 * the core (kb_filter_*), so create and add lines give real images.
 * restore's payload cap is FUZZ_MAX_BYTES, so nothing is skipped.  Checks:
 *  - restore exits 0, 2 or 3, never leaves a transaction open, only
 *    uploads images that kb_image_parse() accepts, whose header matches
 *    the transaction's parameters, and only sends keys valid for the
 *    filter's key type (restore checks all before loading);
 *  - a name taken without -exist loads nothing;
 *  - whatever restore loaded, save writes text that restores to the same
 *    images byte for byte and saves to the same text again.
 */
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "bfctl.h"
#include "savefmt.h"

extern u64 bfctl_restore_max_bytes;	/* restore.c */

/* ---- the fake kernel ---- */

struct kfilter {
	char name[KB_NAME_MAX];
	u8 *img;
	u64 len;
};

static struct {
	struct kfilter *f;		/* committed filters, in commit order */
	size_t n;
	bool txn;			/* a transaction is open */
	bool uploaded;			/* it had an image upload */
	struct kb_ioc_create c;		/* its parameters */
	struct kfilter staged;		/* its image (begin: empty) */
	bool names_taken;		/* kbconn_info finds every name */
	unsigned int writes, fail_at;	/* fail write number fail_at (1..) */
	/* churn: exports n % 3 == 2 (1..) stop with EAGAIN halfway */
	unsigned int exports;
	bool churn;
} K;

static void kernel_reset(bool names_taken, unsigned int fail_at)
{
	size_t i;

	for (i = 0; i < K.n; i++)
		free(K.f[i].img);
	free(K.f);
	free(K.staged.img);
	memset(&K, 0, sizeof(K));
	K.names_taken = names_taken;
	K.fail_at = fail_at;
}

/* an injected kernel error for this write? */
static bool write_fails(void)
{
	return ++K.writes == K.fail_at;
}

static bool name_ok(const char *name)
{
	size_t n = strnlen(name, KB_NAME_MAX);

	return n < KB_NAME_MAX && kb_name_valid(name, (u32)n);
}

int bfctl_kernel_main(int argc, char **argv)
{
	FUZZ_CHECK(!"kernel verb called");
	return BFCTL_ERR;
}

int bfctl_image_main(int argc, char **argv)
{
	FUZZ_CHECK(!"image verb called");
	return BFCTL_ERR;
}

int bfctl_sync_main(int argc, char **argv)
{
	FUZZ_CHECK(!"sync called");
	return BFCTL_ERR;
}

int bfctl_redis_main(int argc, char **argv)
{
	FUZZ_CHECK(!"redis called");
	return BFCTL_ERR;
}

int bfctl_lsm_main(int argc, char **argv)
{
	FUZZ_CHECK(!"lsm called");
	return BFCTL_ERR;
}

int bfctl_xdp_main(int argc, char **argv)
{
	FUZZ_CHECK(!"xdp called");
	return BFCTL_ERR;
}

/*
 * restore_attach.c (libbpf) stays out: no attachment to save, and those
 * restore parsed are checked for what the attach verbs rely on
 */
int bfctl_save_attachments(FILE *f, const char *name)
{
	return BFCTL_OK;
}

int bfctl_restore_attachments(struct bfctl_restore *rs)
{
	size_t i;

	for (i = 0; i < rs->natt; i++) {
		const struct rattach *a = &rs->att[i];

		FUZZ_CHECK(kb_name_valid(a->filter, strlen(a->filter)));
		FUZZ_CHECK(a->kind == RA_XDP ? a->mode && a->dir && a->dev[0] :
			   a->hooks && a->list_n && a->list[a->list_len - 1] == '\n');
	}
	return BFCTL_OK;
}

/*
 * Exception sets go over netlink, which the fake kernel has not (c->nl is
 * NULL): except lines are parsed as add lines are, and their load fails
 * after the filter's commit, as without the family
 */
int kbconn_no_nl(struct kbconn *c)
{
	(void)c;
	return -EOPNOTSUPP;
}

int kbnl_except(struct kbnl *nl, bool add, bool exist, const char *name,
		const void *keys, u64 keys_len, u64 count, u64 *processed,
		char *ext, size_t extlen)
{
	FUZZ_CHECK(!"kbnl_except called without netlink");
	return -EIO;
}

/* grant lines are parsed for real (grant.c); no kernel to set them in */
int kbnl_grant(struct kbnl *nl, const char *name, const u32 *readers,
	       const u32 *writers, char *ext, size_t extlen)
{
	FUZZ_CHECK(!"kbnl_grant called without netlink");
	return -EOPNOTSUPP;
}

int bfctl_save_grant(struct kbconn *conn, FILE *f, const char *name)
{
	return 0;
}

int bfctl_save_exc(struct kbconn *conn, FILE *f, const char *name,
		   u32 key_type)
{
	FUZZ_CHECK(!conn->nl);
	return BFCTL_OK;
}

void kbconn_init(struct kbconn *c)
{
	memset(c, 0, sizeof(*c));
	c->dev = -1;
}

void kbconn_close(struct kbconn *c)
{
	FUZZ_CHECK(!K.txn);
}

int kbconn_dev(struct kbconn *c)
{
	c->dev = 1000;	/* never a real fd: the stubs take it */
	return c->dev;
}

int kbconn_list(struct kbconn *c,
	     int (*cb)(const struct kb_ioc_info *i, void *arg), void *arg)
{
	struct kb_ioc_info info;
	size_t i;
	int ret;

	for (i = 0; i < K.n; i++) {
		memset(&info, 0, sizeof(info));
		memcpy(info.name, K.f[i].name, KB_NAME_MAX);
		ret = cb(&info, arg);
		if (ret)
			return ret;
	}
	return 0;
}

int bfctl_fail_err(struct kbconn *c, const char *what, int err)
{
	return BFCTL_ERR;
}

int kbdev_set_name(char *dst, const char *name)
{
	memset(dst, 0, KB_NAME_MAX);
	if (!name_ok(name))
		return -EINVAL;
	strcpy(dst, name);
	return 0;
}

static struct kfilter *kfind(const char *name)
{
	size_t i;

	for (i = 0; i < K.n; i++)
		if (!strcmp(K.f[i].name, name))
			return &K.f[i];
	return NULL;
}

int kbconn_info(struct kbconn *c, const char *name, struct kb_ioc_info *info)
{
	struct kfilter *f = kfind(name);
	struct kb_params p;
	enum kb_img_err err;
	u64 plen, count;
	const void *pl;

	FUZZ_CHECK(c->dev == 1000 && name_ok(name));
	memset(info, 0, sizeof(*info));
	if (!f)
		return K.names_taken ? 0 : -ENOENT;
	FUZZ_CHECK(!kb_image_parse(f->img, f->len, 0, &p, &pl, &plen, &count,
				   &err));
	info->kind = p.kind;
	info->key_type = p.key_type;
	info->hash = p.hash;
	info->m = p.m;
	info->k = p.k;
	info->seed[0] = p.seed[0];
	info->seed[1] = p.seed[1];
	return 0;
}

/* an empty filter's image for a begin request, as the kernel sizes it */
static void empty_image(const struct kb_ioc_create *c, struct kfilter *out)
{
	struct kb_filter f;
	struct kb_params p;
	void *payload;
	s64 n;

	FUZZ_CHECK(!kb_params_init(&p, c->kind));
	p.key_type = c->key_type;
	p.hash = c->hash;
	if (c->sizing == KB_SIZING_FPR) {
		FUZZ_CHECK(!kb_params_from_fpr(&p, c->items, c->fpr_ppb, FUZZ_MAX_BYTES));
	} else if (c->sizing == KB_SIZING_BPK) {
		FUZZ_CHECK(!kb_params_from_bpk(&p, c->items, c->bits_per_key, FUZZ_MAX_BYTES));
	} else {
		p.items = c->items;
		FUZZ_CHECK(!kb_params_from_mk(&p, c->m, c->k, FUZZ_MAX_BYTES));
	}
	if (c->flags & KB_CREATE_F_SEED) {
		p.seed[0] = c->seed[0];
		p.seed[1] = c->seed[1];
	} else if (p.hash != KB_HASH_LEVELDB) {
		/* the kernel's are random: fixed ones keep runs reproducible */
		p.seed[0] = 0x5eed;
		p.seed[1] = p.hash == KB_HASH_SIPHASH ? 0x5eed2 : 0;
	}
	FUZZ_CHECK(!kb_params_validate(&p, FUZZ_MAX_BYTES));
	payload = kbu_alloc_payload(kb_params_payload_bytes(&p));
	FUZZ_CHECK(payload);
	FUZZ_CHECK(!kb_filter_init(&f, &p, payload, kb_params_payload_bytes(&p)));
	out->len = kb_image_size(&p);
	out->img = malloc(out->len);
	FUZZ_CHECK(out->img);
	n = kb_image_write(&f, 0, out->img, out->len);
	FUZZ_CHECK(n == (s64)out->len);
	free(payload);
}

/* add packed keys to an image in place of it (a new image) */
static void image_add(struct kfilter *kf, const u8 *keys, u64 len, u64 count)
{
	struct kb_filter f;
	struct kb_params p;
	enum kb_img_err err;
	u64 plen, n, i, off = 0;
	const void *pl;
	u8 *payload, *img;

	FUZZ_CHECK(!kb_image_parse(kf->img, kf->len, 0, &p, &pl, &plen, &n,
				   &err));
	payload = kbu_alloc_payload(plen);
	FUZZ_CHECK(payload);
	memcpy(payload, pl, plen);
	FUZZ_CHECK(!kb_filter_attach(&f, &p, payload, plen));
	for (i = 0; i < count; i++) {
		u16 l16;

		FUZZ_CHECK(off + 2 <= len);
		memcpy(&l16, keys + off, 2);
		FUZZ_CHECK(off + 2 + l16 <= len);
		/* restore parsed every key as the key type: valid */
		FUZZ_CHECK(!kb_params_note_prefix(&f.p, keys + off + 2, l16));
		kb_filter_add(&f, keys + off + 2, l16);
		off += 2 + (u64)l16;
	}
	FUZZ_CHECK(off == len);
	img = malloc(kf->len);
	FUZZ_CHECK(img);
	FUZZ_CHECK(kb_image_write(&f, n + count, img, kf->len) == (s64)kf->len);
	free(kf->img);
	kf->img = img;
	free(payload);
}

int kbdev_keys(int fd, unsigned long cmd, u32 flags, const char *name,
	       const void *keys, u64 keys_len, u64 count, u64 *result,
	       u64 *processed, u64 *hits, u64 *err_index)
{
	struct kfilter *f;

	FUZZ_CHECK(fd == 1000 && cmd == KB_IOC_ADD && !result && !hits);
	FUZZ_CHECK(count > 0 && count <= (1u << 20));
	if (flags == KB_KEYS_F_TXN) {
		FUZZ_CHECK(K.txn && !strcmp(name, K.c.name));
		f = &K.staged;
	} else {
		FUZZ_CHECK(!flags && name_ok(name));
		f = kfind(name);
		if (!f && !K.names_taken)
			return -ENOENT;
	}
	if (write_fails())
		return -ENOMEM;
	if (f)
		image_add(f, keys, keys_len, count);
	*processed = count;
	if (err_index)
		*err_index = ~0ULL;
	return 0;
}

/* the image in pieces of every size, across header, payload and trailer */
int kbconn_export_slice(struct kbconn *c, const char *name, u32 slice,
			kbnl_chunk_cb cb, void *arg, u64 *age_ms)
{
	static const u64 piece[] = { 1, 7, 57, 3, 4096, 100, 32768 };
	u64 off, n;
	size_t i, j;
	int ret;

	/* the fake kernel holds no windows or growing filters: no slices */
	FUZZ_CHECK(name_ok(name) && !slice);
	for (i = 0; i < K.n; i++)
		if (!strcmp(K.f[i].name, name)) {
			bool cut = K.churn && ++K.exports % 3 == 2;

			for (off = 0, j = 0; off < K.f[i].len; off += n, j++) {
				/* the filter changed: what came is void */
				if (cut && off >= K.f[i].len / 2)
					return -EAGAIN;
				n = piece[j % ARRAY_SIZE(piece)];
				if (n > K.f[i].len - off)
					n = K.f[i].len - off;
				if (cut && n > K.f[i].len / 2 - off)
					n = K.f[i].len / 2 - off;
				ret = cb(K.f[i].img + off, n, off, K.f[i].len,
					 arg);
				if (ret)
					return ret;
			}
			return 0;
		}
	return -ENOENT;
}

int kbdev_txn_begin(int fd, const struct kb_ioc_create *c)
{
	FUZZ_CHECK(fd == 1000 && !K.txn && name_ok(c->name));
	/* restore checked the create line's shape as bfctl create does */
	FUZZ_CHECK(!(c->window_ms && c->flags & KB_CREATE_F_GROW));
	FUZZ_CHECK(!c->slices || c->window_ms);
	if (write_fails())
		return -ENOMEM;
	/* windows and growing filters: a kernel of before them */
	if (c->window_ms || c->flags & KB_CREATE_F_GROW)
		return -EINVAL;
	K.txn = true;
	K.uploaded = false;
	K.c = *c;
	empty_image(c, &K.staged);
	memcpy(K.staged.name, c->name, KB_NAME_MAX);
	return 0;
}

/* never reached: the fake kernel refuses to begin a sliced filter */
int kbdev_upload_slice(int fd, u32 flags, const char *name, const void *img,
		       u64 len, u32 slice, u64 age_ms, u32 *why)
{
	FUZZ_CHECK(0);
	return -EINVAL;
}

int kbdev_upload(int fd, u32 flags, const char *name, const void *img,
		 u64 len, u32 *why)
{
	const struct kb_ioc_create *c = &K.c;
	enum kb_img_err err;
	struct kb_params p;
	u64 plen, count;
	const void *pl;

	FUZZ_CHECK(fd == 1000 && K.txn && !K.uploaded);
	FUZZ_CHECK(flags == KB_IMAGE_F_TXN && !strcmp(name, c->name));
	/* restore must have checked the image as the kernel does */
	FUZZ_CHECK(kb_image_parse(img, len, 0, &p, &pl, &plen, &count,
				  &err) == 0);
	FUZZ_CHECK(c->sizing == KB_SIZING_MK && c->kind == p.kind &&
		   c->key_type == p.key_type && c->hash == p.hash &&
		   c->m == p.m && c->k == p.k && c->items == p.items);
	FUZZ_CHECK(!(c->flags & KB_CREATE_F_SEED) ||
		   (c->seed[0] == p.seed[0] && c->seed[1] == p.seed[1]));
	if (write_fails()) {
		*why = KB_IMG_TOO_BIG;
		return -E2BIG;
	}
	free(K.staged.img);
	K.staged.img = fuzz_dup(img, len);
	K.staged.len = len;
	K.uploaded = true;
	return 0;
}

int kbdev_txn_abort(int fd)
{
	FUZZ_CHECK(fd == 1000 && K.txn);
	free(K.staged.img);
	K.staged.img = NULL;
	K.txn = false;
	return 0;
}

int kbdev_txn_commit(int fd)
{
	struct kfilter *nf;
	size_t i;

	FUZZ_CHECK(fd == 1000 && K.txn && K.staged.img);
	if (write_fails())
		return -EIO;	/* restore aborts */
	K.txn = false;
	for (i = 0; i < K.n; i++)
		if (!strcmp(K.f[i].name, K.staged.name)) {
			/* -exist: the image replaces the filter's */
			free(K.f[i].img);
			K.f[i] = K.staged;
			K.staged.img = NULL;
			return 0;
		}
	nf = realloc(K.f, (K.n + 1) * sizeof(*nf));
	FUZZ_CHECK(nf);
	K.f = nf;
	K.f[K.n++] = K.staged;
	K.staged.img = NULL;
	return 0;
}

/* the guard is the kernel's: the fake kernel accepts what restore sends */
int kbdev_txn_commit_guarded(int fd, u32 max_fpr_ppb)
{
	(void)max_fpr_ppb;
	return kbdev_txn_commit(fd);
}

/* ---- running the verbs ---- */

/*
 * bfctl's messages (one per rejected input) would flood the fuzzing log:
 * they go to /dev/null unless KB_FUZZ_VERBOSE is set.
 */
static int run_verb(int (*verb)(int argc, char **argv), int argc,
		    char **argv)
{
	static FILE *quiet;
	FILE *err = stderr;
	int ret;

	if (getenv("KB_FUZZ_VERBOSE"))
		return verb(argc, argv);
	if (!quiet)
		quiet = fopen("/dev/null", "we");
	FUZZ_CHECK(quiet);
	stderr = quiet;
	ret = verb(argc, argv);
	stderr = err;
	return ret;
}

/* bfctl restore -file TEXT [-exist] [--on-bad-payload=...]; its exit code */
static int restore(const u8 *text, size_t len, bool exist, int on_bad)
{
	char path[64], *argv[6] = { "restore", "-file", path, NULL, NULL, NULL };
	int fd, ret, argc = 3;

	fd = memfd_create("fuzz_savefmt", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, text, len) == (ssize_t)len);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (exist)
		argv[argc++] = "-exist";
	if (on_bad)
		argv[argc++] = on_bad == 1 ? "--on-bad-payload=empty" :
					     "--on-bad-payload=closed";
	ret = run_verb(bfctl_restore_main, argc, argv);
	close(fd);
	FUZZ_CHECK(!K.txn);
	return ret;
}

/* bfctl save (all filters) with stdout captured; the text, malloc'd */
static char *save(size_t *len)
{
	char *argv[] = { "save", NULL }, *text = NULL;
	FILE *out = stdout, *mem;

	mem = open_memstream(&text, len);
	FUZZ_CHECK(mem);
	stdout = mem;
	FUZZ_CHECK(run_verb(bfctl_save_main, 1, argv) == BFCTL_OK);
	stdout = out;
	FUZZ_CHECK(fclose(mem) == 0);
	return text;
}

/*
 * Saves while the filters change: to a file, the blocks an export cut
 * short are written again and the file is the same text; to stdout, which
 * cannot take back a block, the save fails without its end line.
 */
static void save_churn(const char *text, size_t tlen)
{
	char path[64], *argv[] = { "save", "-file", path, NULL }, *t;
	FILE *out = stdout, *mem;
	size_t len;
	u8 *back;
	int ret;

	snprintf(path, sizeof(path), "/tmp/fuzz_savefmt.%d", (int)getpid());
	K.churn = true;
	K.exports = 0;
	ret = run_verb(bfctl_save_main, 3, argv);
	FUZZ_CHECK(ret == BFCTL_OK);
	FUZZ_CHECK(!kbu_read_file(path, &back, &len));
	FUZZ_CHECK(len == tlen && !memcmp(back, text, len));
	free(back);
	unlink(path);
	K.exports = 0;
	t = NULL;
	mem = open_memstream(&t, &len);
	FUZZ_CHECK(mem);
	stdout = mem;
	ret = run_verb(bfctl_save_main, 1, argv);
	stdout = out;
	FUZZ_CHECK(fclose(mem) == 0);
	/* the second export, the first filter's payload pass, is cut */
	FUZZ_CHECK(K.n ? ret == BFCTL_ERR && !strstr(t, SAVE_END) :
		   ret == BFCTL_OK);
	free(t);
	K.churn = false;
}

/* K's filters, moved out (K is left empty) */
static struct kfilter *take(size_t *n)
{
	struct kfilter *f = K.f;

	*n = K.n;
	K.f = NULL;
	K.n = 0;
	return f;
}

static void round_trip(void)
{
	struct kfilter *f;
	size_t n, i, tlen, tlen2;
	char *text, *text2;

	/* save what restore loaded, restore that into an empty kernel */
	text = save(&tlen);
	f = take(&n);
	kernel_reset(false, 0);
	FUZZ_CHECK(restore((const u8 *)text, tlen, false, 0) == BFCTL_OK);
	FUZZ_CHECK(K.n == n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(!strcmp(K.f[i].name, f[i].name));
		FUZZ_CHECK(K.f[i].len == f[i].len);
		FUZZ_CHECK(!memcmp(K.f[i].img, f[i].img, f[i].len));
		free(f[i].img);
	}
	free(f);
	text2 = save(&tlen2);
	FUZZ_CHECK(tlen2 == tlen && !memcmp(text, text2, tlen));
	free(text2);
	save_churn(text, tlen);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool exist, taken;
	int ret, on_bad;

	if (size < 1)
		return 0;
	bfctl_restore_max_bytes = FUZZ_MAX_BYTES;
	exist = data[0] & 1;
	taken = data[0] & 2;
	on_bad = (data[0] >> 4) & 3;
	kernel_reset(taken, (data[0] >> 2) & 3);
	ret = restore(data + 1, size - 1, exist, on_bad);
	FUZZ_CHECK(ret == BFCTL_OK || ret == BFCTL_USAGE || ret == BFCTL_ERR);
	if (on_bad)	/* bad text is reported and skipped: exit 3 */
		FUZZ_CHECK(ret != BFCTL_USAGE);
	if (taken && !exist)
		FUZZ_CHECK(K.n == 0);
	if (ret == BFCTL_OK)
		round_trip();
	kernel_reset(false, 0);
	return 0;
}
