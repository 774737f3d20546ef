// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl half of kbloom_fuzz: random /dev/kbloom commands (known ones
 * mostly, random _IOC numbers, the old control commands among them:
 * ENOTTY), struct sizes (0, short, exact,
 * longer with a zero or non-zero tail), flags and reserved fields, names,
 * key batches behind NULL, kernel or partially mapped pointers, images
 * exported, then flipped, truncated, extended or resealed, and merges of
 * random ranges.
 */
#include "kb_test.h"
#include "kb_fuzz.h"

#define KEYBUF		(160 << 10)
#define KEYS_UNSET	0x5a5a5a5a5a5a5a5aULL
#define BIGBUF		(4 << 20)
static unsigned char keybuf[KEYBUF] __attribute__((aligned(8)));
static __u64 resbuf[KEYBUF / 64 + 2];
static unsigned char *bigbuf;	/* exports */

/* ---- names and values ---------------------------------------------------- */

void fz_guard(void *name, size_t len)
{
	if (len >= 6 && !memcmp(name, FZ_INV, 6))
		((char *)name)[0] = 'Z';
}

void fz_name(struct fz_rng *r, char *name, bool may_inv)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-";
	unsigned int i, n, c = fz_rnd(r, 100);

	memset(name, 0, KB_NAME_MAX);
	if (c < 70) {
		snprintf(name, KB_NAME_MAX, "fz%u", (unsigned int)fz_rnd(r, FZ_POOL));
	} else if (c < 78) {
		n = 1 + fz_rnd(r, KB_NAME_MAX - 1);
		for (i = 0; i < n; i++)
			name[i] = ok[fz_rnd(r, sizeof(ok) - 1)];
	} else if (c < 82) {
		/* empty */
	} else if (c < 86) {
		memset(name, 'a' + fz_rnd(r, 26), KB_NAME_MAX);	/* no NUL */
	} else if (c < 92) {
		fz_bytes(r, name, 1 + fz_rnd(r, KB_NAME_MAX));
	} else if (c < 96 && may_inv) {
		strcpy(name, FZ_INV);
	} else {
		snprintf(name, KB_NAME_MAX, "fz%u%c", (unsigned int)fz_rnd(r, 10),
			 ok[fz_rnd(r, sizeof(ok) - 1)]);
	}
	if (!may_inv)
		fz_guard(name, KB_NAME_MAX);
}

uint64_t fz_u64(struct fz_rng *r)
{
	static const uint64_t v[] = {
		0, 1, 2, 7, 8, 63, 64, 127, 128, 511, 512, 513, 1024, 4096,
		65536, 1ULL << 31, 1ULL << 32, 1ULL << 40, 1ULL << 63, ~0ULL,
		~0ULL - 1,
	};

	if (fz_pct(r, 60))
		return v[fz_rnd(r, sizeof(v) / sizeof(v[0]))];
	if (fz_pct(r, 70))
		return fz_rnd(r, 5000);
	return fz_next(r);
}

/* CRC32C (Castagnoli, reflected), bitwise: only to re-seal mutated images */
static uint32_t crc32c(const unsigned char *p, size_t len)
{
	uint32_t c = ~0U;
	int b;

	while (len--) {
		c ^= *p++;
		for (b = 0; b < 8; b++)
			c = (c >> 1) ^ (0x82f63b78U & -(c & 1));
	}
	return ~c;
}

static void reseal(unsigned char *img, size_t len)
{
	uint32_t c;

	if (len < 4)
		return;
	c = crc32c(img, len - 4);
	memcpy(img + len - 4, &c, 4);	/* little-endian host */
}

static bool nonzero(const unsigned char *p, size_t len)
{
	while (len--)
		if (*p++)
			return true;
	return false;
}

/* a valid filter name (1..31 of [A-Za-z0-9_.:-]) */
static bool name_ok(const char *n)
{
	size_t len = strnlen(n, KB_NAME_MAX);

	return len && len < KB_NAME_MAX &&
	       strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == len;
}

/* ---- ioctls -------------------------------------------------------------- */

static const struct {
	unsigned long cmd;
	unsigned int size;
	const char *name;
	bool ro;		/* may name the invariant */
	bool admin;		/* needs CAP_NET_ADMIN */
	unsigned int ver0;	/* the oldest size the kernel takes */
} cmds[] = {
	{ KB_IOC_ADD, sizeof(struct kb_ioc_keys), "add", 0, 1,
	  KB_IOC_KEYS_SIZE_VER0 },
	{ KB_IOC_TEST, sizeof(struct kb_ioc_keys), "test", 1, 1,
	  KB_IOC_KEYS_SIZE_VER0 },
	{ KB_IOC_DEL, sizeof(struct kb_ioc_keys), "del", 0, 1,
	  KB_IOC_KEYS_SIZE_VER0 },
	{ KB_IOC_TEST_ADD, sizeof(struct kb_ioc_keys), "test_add", 0, 1,
	  KB_IOC_KEYS_SIZE_VER0 },
	{ KB_IOC_UPLOAD, sizeof(struct kb_ioc_image), "upload", 0, 1,
	  KB_IOC_IMAGE_SIZE_VER0 },
	{ KB_IOC_EXPORT, sizeof(struct kb_ioc_image), "export", 1, 1,
	  KB_IOC_IMAGE_SIZE_VER0 },
	{ KB_IOC_TXN_BEGIN, sizeof(struct kb_ioc_create), "txn_begin", 0, 1,
	  KB_IOC_CREATE_SIZE_VER0 },
	/*
	 * VER1 added the commit's max_fpr_ppb: 8..16 bytes are all taken;
	 * the write-only commands know VER1 at most, VER2's generation is
	 * KB_IOC_TXN_COMMIT_GEN's
	 */
	{ KB_IOC_TXN_COMMIT, KB_IOC_TXN_SIZE_VER1, "txn_commit", 0, 1,
	  KB_IOC_TXN_SIZE_VER0 },
	{ KB_IOC_TXN_ABORT, KB_IOC_TXN_SIZE_VER1, "txn_abort", 0, 1,
	  KB_IOC_TXN_SIZE_VER0 },
	{ KB_IOC_TXN_COMMIT_GEN, sizeof(struct kb_ioc_txn), "txn_commit_gen",
	  0, 1, KB_IOC_TXN_SIZE_VER2 },
	{ KB_IOC_TXN_WRITE, sizeof(struct kb_ioc_write), "txn_write", 0, 1,
	  KB_IOC_WRITE_SIZE_VER0 },
	{ KB_IOC_MERGE, sizeof(struct kb_ioc_merge), "merge", 0, 1,
	  KB_IOC_MERGE_SIZE_VER0 },
};
#define NCMDS ((int)(sizeof(cmds) / sizeof(cmds[0])))

static bool is_keys(unsigned long cmd)
{
	return cmd == KB_IOC_ADD || cmd == KB_IOC_TEST || cmd == KB_IOC_DEL ||
	       cmd == KB_IOC_TEST_ADD;
}

static int cmd_index(unsigned long cmd)
{
	int i;

	for (i = 0; i < NCMDS; i++)
		if (cmds[i].cmd == cmd)
			return i;
	return -1;
}

/* the errors /dev/kbloom may return at all */
static bool ioc_errno_ok(int ci, int e)
{
	switch (e) {
	case 0:
	case ENOENT:
	case EEXIST:
	case EINVAL:
	case E2BIG:
	case ENOSPC:
	case EBUSY:
	case EPERM:
	case ENOMEM:
	case EFAULT:
	case EBADMSG:
		return true;
	case EOPNOTSUPP:	/* also a merge into counters or slices */
		return cmds[ci].cmd == KB_IOC_DEL ||
		       cmds[ci].cmd == KB_IOC_MERGE;
	case ESTALE:	/* another generation than the one asked for */
	case EDOM:	/* the saturation guard */
		return cmds[ci].cmd == KB_IOC_MERGE;
	case EAGAIN:	/* changed while copied out (no lock held) */
		return cmds[ci].cmd == KB_IOC_EXPORT;
	case ERANGE:	/* the core's "cannot reach that FPR" (sizing) */
		return cmds[ci].cmd == KB_IOC_TXN_BEGIN;
	}
	return false;
}

static void gen_create(struct fz_rng *r, struct kb_ioc_create *c)
{
	static const __u32 fprs[] = { 0, 1, 1000, 1000000, 10000000,
				      999999999, 1000000000, ~0U };

	memset(c, 0, sizeof(*c));
	c->kind = fz_rnd(r, 3);
	c->key_type = fz_rnd(r, KB_KEY_MAX + 1);
	c->hash = c->kind == KB_KIND_CLASSIC ? KB_HASH_LEVELDB : fz_rnd(r, 2);
	c->sizing = fz_rnd(r, 3);
	c->items = 1 + fz_rnd(r, 5000);
	c->fpr_ppb = 1000 + fz_rnd(r, 100000000);
	c->bits_per_key = 1 + fz_rnd(r, 40);
	c->m = (1 + fz_rnd(r, 256)) * 512;
	c->k = 1 + fz_rnd(r, 16);
	if (fz_pct(r, 30) && c->kind != KB_KIND_CLASSIC) {
		c->flags = KB_CREATE_F_SEED;
		c->seed[0] = fz_next(r);
		c->seed[1] = c->hash == KB_HASH_SIPHASH ? fz_next(r) : 0;
	}
	/* the fields of the other sizing modes are refused (EINVAL) */
	if (fz_pct(r, 90)) {
		if (c->sizing != KB_SIZING_FPR)
			c->fpr_ppb = 0;
		if (c->sizing != KB_SIZING_BPK)
			c->bits_per_key = 0;
		if (c->sizing != KB_SIZING_MK)
			c->m = c->k = 0;
	}
	if (fz_pct(r, 50))
		return;		/* valid, or nearly */
	switch (fz_rnd(r, 12)) {
	case 0:
		c->kind = fz_next(r) % 8;
		break;
	case 1:
		c->key_type = fz_next(r) % 16;
		break;
	case 2:
		c->hash = fz_next(r) % 5;
		break;
	case 3:
		c->sizing = fz_next(r) % 6;
		break;
	case 4:
		c->items = fz_u64(r);
		break;
	case 5:
		c->fpr_ppb = fprs[fz_rnd(r, 8)];
		break;
	case 6:
		c->bits_per_key = fz_u64(r);
		break;
	case 7:
		c->m = fz_u64(r);
		break;
	case 8:
		c->k = fz_rnd(r, 40);
		break;
	case 9:
		c->flags = fz_next(r);
		c->seed[1] = fz_next(r);
		break;
	case 10:
		c->prefixes = fz_next(r) | 0x100;	/* past 129 */
		break;
	default:
		c->reserved[fz_rnd(r, 2)] = fz_next(r) | 1;
		break;
	}
	/* huge items or bits per key only where they fail before allocating */
	if (c->items > 20000 && c->items < (1ULL << 40))
		c->items = 20000;
	if (c->bits_per_key > 1000)
		c->items = c->items ? c->items : 1;
}

/* a valid key of a random type-ish shape */
static unsigned int gen_key(struct fz_rng *r, unsigned char *k,
			    unsigned int len)
{
	static const unsigned int lens[] = { 4, 5, 16, 17, 1, 8, 1024 };
	unsigned int plen, bits, i;

	if (!len)
		len = fz_pct(r, 60) ? lens[fz_rnd(r, 7)] : 1 + fz_rnd(r, 64);
	fz_bytes(r, k, len);
	if ((len == 5 || len == 17) && fz_pct(r, 80)) {
		/* a net key: host bits zero */
		bits = (len - 1) * 8;
		plen = fz_rnd(r, bits + 1);
		for (i = plen; i < bits; i++)
			k[i / 8] &= ~(0x80 >> (i % 8));
		k[len - 1] = plen;
	}
	return len;
}

/* fill a kb_ioc_keys with a batch in keybuf; returns keys bytes */
static void gen_keys(struct fz_rng *r, struct kb_ioc_keys *a)
{
	static const __u64 counts[] = { 0, 1, 2, 63, 64, 65, 4095, 4096,
					4097, 9000 };
	__u64 i, n, pos = 0, ks;
	unsigned char *p;
	__u16 l;

	a->key_size = fz_pct(r, 30) ? 0 : gen_key(r, keybuf, 0);
	if (fz_pct(r, 5))
		a->key_size = fz_pct(r, 50) ? KB_KEY_MAX_LEN + 1 : fz_next(r);
	n = fz_pct(r, 70) ? fz_rnd(r, 80) : counts[fz_rnd(r, 10)];
	ks = a->key_size && a->key_size <= KB_KEY_MAX_LEN ? a->key_size : 0;
	if (ks) {
		if (n * ks > KEYBUF)
			n = KEYBUF / ks;
		for (i = 0; i < n; i++)
			gen_key(r, keybuf + i * ks, ks);
		pos = n * ks;
	} else {
		for (i = 0; i < n && pos + 2 + KB_KEY_MAX_LEN <= KEYBUF; i++) {
			p = keybuf + pos;
			l = gen_key(r, p + 2, 0);
			if (fz_pct(r, 2))
				l = fz_pct(r, 50) ? 0 : KB_KEY_MAX_LEN + 1 +
							fz_rnd(r, 60000);
			memcpy(p, &l, 2);
			pos += 2 + (l <= KB_KEY_MAX_LEN ? l : 0);
		}
		n = i;
	}
	a->count = n;
	a->keys_len = pos;
	a->keys = (uintptr_t)keybuf;
	if (fz_pct(r, 8))
		a->count = fz_u64(r);
	if (fz_pct(r, 8))
		a->keys_len = fz_pct(r, 50) ? pos + 1 + fz_rnd(r, 8) : fz_u64(r);
	if (a->keys_len > KEYBUF && fz_pct(r, 80))
		a->keys_len = pos;	/* mostly stay inside keybuf */
	switch (fz_rnd(r, 20)) {
	case 0:
		a->keys = 0;
		break;
	case 1:
		a->keys = 0xffffffff81000000ULL;
		break;
	case 2:	/* runs into the inaccessible page */
		n = a->keys_len < (__u64)fz.pagesz ? a->keys_len : fz.pagesz;
		n = n ? fz_rnd(r, n) : 0;
		memcpy(fz.edge + fz.pagesz - n, keybuf, n);
		a->keys = (uintptr_t)(fz.edge + fz.pagesz - n);
		break;
	}
	switch (fz_rnd(r, 10)) {
	case 0: case 1: case 2: case 3:
		a->result = 0;
		break;
	case 4:
		a->result = (uintptr_t)(fz.edge + fz.pagesz - 8);
		break;
	case 5:
		a->result = fz_pct(r, 50) ? 8 : 0xffff888000000000ULL;
		break;
	default:
		a->result = (uintptr_t)resbuf;
		break;
	}
}

/* an image: an export of a fuzzer filter or the invariant's, mutated */
static long gen_image(struct fz_rng *r, unsigned char **out, int *mut)
{
	struct kb_image_hdr *h;
	char name[KB_NAME_MAX];
	unsigned char *img;
	void *src = NULL;
	long len = -1, n, i;

	if (fz_pct(r, 50)) {
		fz_name(r, name, false);
		len = kbt_export(fz.fds[0], name, 0, &src);
	}
	if (len < 0) {
		len = fz.inv_img_len;
		src = NULL;
	}
	img = malloc(len + 65536);
	memcpy(img, src ? src : fz.inv_img, len);
	free(src);
	h = (struct kb_image_hdr *)img;
	*mut = fz_rnd(r, 10);
	switch (*mut) {
	case 0: case 1: case 2:
		break;
		/* as is */
	case 3:	/* payload bit flip, CRC left stale: EBADMSG */
		if (len > (long)sizeof(*h) + 4)
			img[sizeof(*h) + fz_rnd(r, len - sizeof(*h) - 4)] ^=
				1 << fz_rnd(r, 8);
		else
			*mut = 0;
		break;
	case 4:	/* header field, resealed */
		n = fz_rnd(r, sizeof(*h) / 4);
		((__u32 *)h)[n] = fz_pct(r, 50) ? fz_next(r) : ((__u32 *)h)[n] ^ 1;
		reseal(img, len);
		break;
	case 5:	/* bad magic, resealed: EINVAL */
		h->magic ^= 0x100;
		reseal(img, len);
		break;
	case 6:	/* truncated */
		len = fz_rnd(r, len);
		break;
	case 7:	/* extended with junk, maybe resealed */
		n = 1 + fz_rnd(r, 65536 - 4);
		fz_bytes(r, img + len, n);
		len += n;
		if (fz_pct(r, 50))
			reseal(img, len);
		break;
	default:	/* random bytes anywhere */
		for (i = 0, n = 1 + fz_rnd(r, 16); i < n && len; i++)
			img[fz_rnd(r, len)] = fz_next(r);
		if (fz_pct(r, 50))
			reseal(img, len);
		break;
	}
	*out = img;
	return len;
}

/*
 * A merge: ranges of keybuf's random bytes at offsets near a filter's
 * payload sizes, sometimes empty, wrapping, overlapping, too many, or
 * behind bad or partially mapped pointers; a guard, a generation.
 */
static struct kb_merge_range mranges[64];

static void gen_merge(struct fz_rng *r, struct kb_ioc_merge *a)
{
	unsigned int i, n = 1 + fz_rnd(r, 64);

	for (i = 0; i < n; i++) {
		struct kb_merge_range *m = &mranges[i];

		m->offset = fz_pct(r, 80) ? fz_rnd(r, 4096) : fz_u64(r);
		m->len = fz_pct(r, 85) ? 1 + fz_rnd(r, 512) : fz_u64(r);
		m->data = (uintptr_t)(keybuf + fz_rnd(r, KEYBUF - 512));
		if (fz_pct(r, 3))
			m->data = (uintptr_t)(fz.edge + fz.pagesz -
					      fz_rnd(r, 64));
		if (fz_pct(r, 2))
			m->data = 0;
	}
	fz_bytes(r, keybuf, 4096);
	a->ranges = (uintptr_t)mranges;
	if (fz_pct(r, 3))
		a->ranges = (uintptr_t)(fz.edge + fz.pagesz -
					sizeof(mranges[0]) * (n - 1));
	a->nr_ranges = fz_pct(r, 95) ? n : fz_next(r);
	a->max_fpr_ppb = fz_pct(r, 70) ? 0 : fz_rnd(r, 1000000001);
	a->generation = fz_pct(r, 80) ? 0 : fz_u64(r);
}

/* pick the command: a known one mostly, else a random _IOC number */
static unsigned long gen_cmd(struct fz_rng *r)
{
	static const unsigned int types[] = { KB_IOC_MAGIC, 0xbe, 0xc0, 0x01 };

	if (fz_pct(r, 92))
		return cmds[fz_rnd(r, NCMDS)].cmd;
	if (fz_pct(r, 50))	/* a kbloom number with the wrong size/dir */
		return _IOC(fz_rnd(r, 4), KB_IOC_MAGIC, fz_rnd(r, 20),
			    fz_rnd(r, 300));
	return _IOC(fz_rnd(r, 4), types[fz_rnd(r, 4)], fz_rnd(r, 256),
		    fz_rnd(r, 1 << 14));
}

void fz_ioc_op(struct fz_rng *r, int fd)
{
	static unsigned char arg[1024] __attribute__((aligned(8)));
	unsigned long cmd = gen_cmd(r);
	int ci = cmd_index(cmd), mut = -1, ret, place, exp = -1;
	unsigned char *img = NULL, *p = arg;
	unsigned int ksz = ci >= 0 ? cmds[ci].size : 8 + fz_rnd(r, 200);
	unsigned int usize = ksz, blen, ver0;
	struct kb_ioc_keys *k = (void *)arg;
	struct kb_ioc_image *im = (void *)arg;
	bool dirty = false;
	long ilen;

	if (!bigbuf)
		bigbuf = malloc(BIGBUF);
	if (!bigbuf)
		return;
	memset(arg, 0, sizeof(arg));
	if (ci < 0) {
		fz_bytes(r, arg, ksz);
	} else if (cmd == KB_IOC_TXN_BEGIN) {
		gen_create(r, (void *)arg);
	} else if (is_keys(cmd)) {
		gen_keys(r, k);
		if (fz_pct(r, 20))
			k->flags = KB_KEYS_F_TXN;
		if (fz_pct(r, 3))
			k->flags |= fz_next(r);
		if (fz_pct(r, 3))
			k->reserved0 = 1;
	} else if (cmd == KB_IOC_UPLOAD) {
		ilen = gen_image(r, &img, &mut);
		im->image = (uintptr_t)img;
		im->image_len = ilen;
		im->flags = fz_rnd(r, 4);
		if (fz_pct(r, 5)) {
			im->image_len = fz_u64(r);
			mut = -1;
		}
		if (fz_pct(r, 4)) {
			im->image = fz_pct(r, 50) ? 0 : (uintptr_t)(fz.edge + 16);
			mut = -1;
		}
	} else if (cmd == KB_IOC_MERGE) {
		gen_merge(r, (void *)arg);
	} else if (cmd == KB_IOC_EXPORT) {
		im->flags = fz_pct(r, 15) ? KB_IMAGE_F_TXN : 0;
		im->image = fz_pct(r, 90) ? (uintptr_t)bigbuf :
			    (uintptr_t)(fz.edge + fz.pagesz - 200);
		im->image_len = fz_pct(r, 70) ? BIGBUF : fz_u64(r) % BIGBUF;
	}
	if (ci >= 0 && cmds[ci].size > 8)
		fz_name(r, (char *)arg + 8, cmds[ci].ro);
	if (ci >= 0 && fz_pct(r, 3)) {	/* flags */
		((__u32 *)arg)[1] = fz_next(r);
		dirty = true;
	}
	if (ci >= 0 && fz_pct(r, 3)) {	/* anything at all */
		fz_bytes(r, arg + fz_rnd(r, ksz), 1 + fz_rnd(r, 8));
		dirty = true;
	}
	/* the size field */
	ver0 = ci >= 0 ? cmds[ci].ver0 : ksz;
	switch (fz_rnd(r, 20)) {
	case 0:
		usize = 0;
		break;
	case 1:
		usize = fz_rnd(r, ksz);
		break;
	case 2:
		usize = ksz + 1 + fz_rnd(r, 512);
		break;
		/* zero tail */
	case 3:
		usize = ksz + 1 + fz_rnd(r, 512);
		arg[ksz + fz_rnd(r, usize - ksz)] = 1 + fz_rnd(r, 255);
		break;
	case 4:
		usize = fz_next(r);
		break;
	}
	((__u32 *)arg)[0] = usize;
	if (ci >= 0 && !cmds[ci].ro)
		fz_guard(arg + 8, KB_NAME_MAX);
	/* where the struct lives */
	blen = usize < sizeof(arg) ? (usize > ksz ? usize : ksz) : sizeof(arg);
	place = fz_rnd(r, 25);
	if (usize > sizeof(arg))
		place = 0;
	if (place == 0 || place == 1) {
		/* at the end of the accessible page, maybe cut short */
		if (place == 1)
			blen = fz_rnd(r, blen + 1);
		p = fz.edge + fz.pagesz - blen;
		memcpy(p, arg, blen);
	} else if (place == 2) {
		p = NULL;
	} else if (place == 3) {
		p = (void *)0xffffffff81000000ULL;
	}
	/* the documented outcomes of the clean cases */
	if (ci < 0)
		exp = ENOTTY;
	else if (fz.unpriv)	/* every command, before its argument */
		exp = EPERM;
	else if (p == NULL || (uintptr_t)p >= 0xffff800000000000ULL)
		exp = EFAULT;
	else if (p != arg && blen < 4)
		exp = EFAULT;
	else if (usize < ver0)
		exp = EINVAL;
	else if (usize > ksz && usize <= blen && nonzero(p + ksz, usize - ksz))
		exp = E2BIG;
	else if (mut == 3 && p == arg && !dirty && usize == ksz &&
		 im->flags != 3 && name_ok((char *)arg + 8) && !fz.unpriv)
		exp = EBADMSG;
	if (is_keys(cmd))	/* outputs: did the kernel write them back? */
		k->processed = k->hits = k->err_index = KEYS_UNSET;
	if (fz.verbose)
		printf("# %ld ioctl %s fd %d size %u place %d\n", fz.iter,
		       ci >= 0 ? cmds[ci].name : "?", fd, usize, place);
	ret = kbt_ioc(fd, cmd, p);
	fz.ioc_calls++;
	fz.ioc_ok += !ret;
	ret = -ret;
	if (ci < 0 ? ret != ENOTTY : !ioc_errno_ok(ci, ret))
		fz_fail("ioctl", "%s (0x%lx) size %u: errno %d", ci >= 0 ?
			cmds[ci].name : "unknown", cmd, usize, ret);
	else if (exp >= 0 && ret != exp)
		fz_fail("ioctl", "%s size %u place %d mut %d: errno %d, want %d (flags %u len %llu why %u name %.32s)",
			ci >= 0 ? cmds[ci].name : "unknown", usize, place, mut,
			ret, exp, im->flags, im->image_len, im->why, arg + 8);
	else if (fz.unpriv && !ret && ci >= 0 && cmds[ci].admin)
		fz_fail("ioctl", "%s succeeded without CAP_NET_ADMIN",
			cmds[ci].name);
	if (is_keys(cmd) && p == arg && usize >= ksz &&
	    k->processed != KEYS_UNSET) {
		if (k->processed > k->count || k->hits > k->processed)
			fz_fail("ioctl", "%s: processed %llu hits %llu count %llu",
				cmds[ci].name, k->processed, k->hits, k->count);
		if (ret == EINVAL && k->err_index != ~0ULL &&
		    k->err_index != k->processed)
			fz_fail("ioctl", "%s: err_index %llu processed %llu",
				cmds[ci].name, k->err_index, k->processed);
		/* what was added tests present */
		if (!ret && (cmd == KB_IOC_ADD || cmd == KB_IOC_TEST_ADD)) {
			ret = kbt_ioc(fd, KB_IOC_TEST, k);
			if (ret || k->hits != k->count)
				fz_fail("ioctl", "test after %s: %d, %llu of %llu",
					cmds[ci].name, ret, k->hits, k->count);
		}
	}
	if (ci >= 0 && p == arg && cmd == KB_IOC_EXPORT && usize >= ksz &&
	    !strcmp((char *)arg + 8, FZ_INV) && !im->flags) {
		if (!ret && (im->image_len != (__u64)fz.inv_img_len ||
			     memcmp(bigbuf, fz.inv_img, fz.inv_img_len)))
			fz_fail("ioctl", "the invariant's export changed");
		if (ret == ENOSPC && im->image_len != (__u64)fz.inv_img_len)
			fz_fail("ioctl", "export ENOSPC: image_len %llu",
				im->image_len);
	}
	free(img);
}
