// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom.so over image files: for every kind and key type, an image
 * built by the build tree's bfctl (BFCTL_PATH) is opened with
 * kbloom_open_image() and its answers compared, key by key, false
 * positives included, with the core's kb_filter_lookup_many() on the same
 * image and with `bfctl image test`; kbloom_test(), kbloom_test_addr()
 * and kbloom_info() agree; the failures (no file, a bad CRC, a truncated
 * image, writes, malformed keys) are the documented errors with a
 * message; an open that finds a CRC mismatch (a read torn by bfctl redis
 * watch -o's merge) checks again, and succeeds once the trailer is
 * written, fails after 5 tries if never.  Linked against the built
 * libkbloom.so, not its objects.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "kbtest.h"
#include "../libkbloom/kbloom.h"	/* not kmod/kbloom.h */

#define NIN	1500		/* keys in the image */
#define NOUT	6000		/* keys tested that are not */
#define NBF	300		/* of those, also through bfctl image test */

static char dir[64];

/*
 * The library's pause between tries (kbu_torn_retry()), interposed over
 * libc's: the test's own process calls it, so a torn open is made
 * deterministic.  Each pause counts; the first one finishes the merge the
 * open found half done (torn_fix written at torn_at), as the watcher's
 * trailer lands after its bytes.  It does not sleep.
 */
static int torn_pauses, torn_fd = -1;
static u8 torn_fix[4];
static off_t torn_at;

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	(void)req;
	(void)rem;
	torn_pauses++;
	if (torn_fd >= 0 &&
	    pwrite(torn_fd, torn_fix, sizeof(torn_fix), torn_at) !=
	    (ssize_t)sizeof(torn_fix))
		abort();
	torn_fd = -1;
	return 0;
}

static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* net types: out keys that are hosts of a prefix held */
static bool in_prefix(u32 kt, u32 i)
{
	return kb_key_type_is_net(kt) && i >= NIN && (i - NIN) % 4 == 0;
}

/* a host address in the prefix of in key m (m % 3 == 0: a /24 or /64) */
static void key_text_host(u32 kt, u32 m, char *s, size_t n)
{
	u32 a = m * 2654435761U;

	if (kt == KB_KEY_NET4 || (kt == KB_KEY_NET && (m & 1)))
		snprintf(s, n, "10.%u.%u.5", (a >> 8) & 0xff, m & 0xff);
	else
		snprintf(s, n, "2001:db8:%x:%x::5", (a >> 8) & 0xff, m & 0xffff);
}

/* the text of key i of a key type: in (i < NIN) or not */
static void key_text(u32 kt, u32 i, char *s, size_t n)
{
	u32 a = i * 2654435761U;

	switch (kt) {
	case KB_KEY_BYTES:
		snprintf(s, n, "%08x%02x", a, i & 0xff);
		break;
	case KB_KEY_STR:
		snprintf(s, n, "key-%u", i);
		break;
	case KB_KEY_IPV4:
		snprintf(s, n, "10.%u.%u.%u", a >> 24, (a >> 16) & 0xff, i & 0xff);
		break;
	case KB_KEY_IPV6:
		snprintf(s, n, "2001:db8::%x:%x", a >> 16, i);
		break;
	case KB_KEY_IP:
		if (i & 1)
			snprintf(s, n, "10.%u.%u.%u", a >> 24, (a >> 16) & 0xff, i & 0xff);
		else
			snprintf(s, n, "2001:db8::%x:%x", a >> 16, i);
		break;
	case KB_KEY_NET4:
	case KB_KEY_NET6:
	case KB_KEY_NET: {
		bool v4 = kt == KB_KEY_NET4 || (kt == KB_KEY_NET && (i & 1));

		/* in: prefixes of three lengths; out: host addresses */
		if (i < NIN && v4)
			snprintf(s, n, i % 3 == 0 ? "10.%u.%u.0/24" :
				 i % 3 == 1 ? "10.%u.%u.128/25" : "10.%u.%u.77/32",
				 (a >> 8) & 0xff, i & 0xff);
		else if (i < NIN)
			snprintf(s, n, i % 3 == 0 ? "2001:db8:%x:%x::/64" :
				 i % 3 == 1 ? "2001:db8:%x:%x::/48" : "2001:db8:%x:%x::1/128",
				 (a >> 8) & 0xff, i % 3 == 1 ? 0 : i & 0xffff);
		else if (in_prefix(kt, i))
			/* a host in the /24 or /64 of an in key */
			key_text_host(kt, (i - NIN) / 4 * 3 % NIN, s, n);
		else if (v4)
			snprintf(s, n, "11.%u.%u.%u", (a >> 8) & 0xff, i & 0xff,
				 (a >> 16) & 0xff);
		else
			snprintf(s, n, "2001:db9:%x:%x::%x", (a >> 8) & 0xff,
				 i & 0xffff, a >> 20);
		break;
	}
	}
}

struct keyset {
	u8 (*bin)[KB_KEY_MAX_LEN + 1];
	struct kbloom_key *k;
	struct kb_key *ck;
	char (*text)[64];
	u32 n;
};

static void keyset_make(struct keyset *ks, u32 kt, u32 n0, u32 n)
{
	int fmt = kt == KB_KEY_BYTES ? KBU_FMT_HEX : KBU_FMT_STR;
	u32 i, len;

	ks->bin = calloc(n, sizeof(*ks->bin));
	ks->k = calloc(n, sizeof(*ks->k));
	ks->ck = calloc(n, sizeof(*ks->ck));
	ks->text = calloc(n, sizeof(*ks->text));
	ks->n = n;
	for (i = 0; i < n; i++) {
		key_text(kt, n0 + i, ks->text[i], sizeof(ks->text[i]));
		if (kbu_key_parse(kt, fmt, ks->text[i], strlen(ks->text[i]),
				  ks->bin[i], &len, NULL))
			abort();
		ks->k[i].data = ks->bin[i];
		ks->k[i].len = len;
		ks->ck[i].data = ks->bin[i];
		ks->ck[i].len = len;
	}
}

static void keyset_free(struct keyset *ks)
{
	free(ks->bin);
	free(ks->k);
	free(ks->ck);
	free(ks->text);
}

static bool bit(const u64 *bm, u32 i)
{
	return bm[i / 64] >> (i % 64) & 1;
}

/* bfctl image test's answers for keys [0, n) of ks into want */
static int bfctl_answers(const char *img, const struct keyset *ks, u32 n,
			 bool *want)
{
	char path[128], line[256];
	size_t cmdlen = 64 + strlen(BFCTL_PATH) + strlen(img) + n * 70;
	char *cmd = malloc(cmdlen), *p;
	FILE *f;
	u32 i = 0;

	p = cmd + sprintf(cmd, "%s image test %s", BFCTL_PATH, img);
	for (i = 0; i < n; i++)
		p += sprintf(p, " '%s'", ks->text[i]);
	snprintf(path, sizeof(path), "%s/out", dir);
	sprintf(p, " > %s", path);
	sh("%s", cmd);
	free(cmd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	for (i = 0; i < n && fgets(line, sizeof(line), f); i++)
		want[i] = strstr(line, ": maybe present") != NULL;
	fclose(f);
	return i == n ? 0 : -1;
}

FIXTURE(img) {
	int unused;
};

FIXTURE_SETUP(img)
{
	strcpy(dir, "/tmp/kblibimgXXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
}

FIXTURE_TEARDOWN(img)
{
	sh("rm -rf %s", dir);
}

static const char *const kinds[] = { "blocked", "classic", "counting", "gozero" };

TEST_F(img, every_kind_and_key_type)
{
	u32 kind, kt, i;

	for (kind = 0; kind < 4; kind++) {
		for (kt = 0; kt <= KB_KEY_MAX; kt++) {
			char img[128], keys[128], size[64];
			u64 *bm = calloc((NIN + NOUT) / 64 + 1, 8);
			u64 *cbm = calloc((NIN + NOUT) / 64 + 1, 8);
			struct keyset in, all;
			struct kbloom_info info;
			struct kb_filter cf;
			struct kb_params cp;
			const void *cpl;
			struct kbloom *h;
			bool want[NBF];
			size_t imglen;
			long hits, fp = 0;
			u8 *ibuf;
			u64 plen;
			FILE *f;

			keyset_make(&in, kt, 0, NIN);
			keyset_make(&all, kt, 0, NIN + NOUT);
			snprintf(keys, sizeof(keys), "%s/keys", dir);
			f = fopen(keys, "w");
			ASSERT_NE(NULL, f);
			for (i = 0; i < NIN; i++)
				fprintf(f, "%s\n", in.text[i]);
			fclose(f);
			snprintf(img, sizeof(img), "%s/%s-%s.img", dir, kinds[kind],
				 kb_key_type_name(kt));
			/* sized for false positives to show on NOUT keys */
			if (kind == KB_KIND_GOZERO)
				snprintf(size, sizeof(size), "--bits %u", NIN * 12);
			else
				snprintf(size, sizeof(size), "--items %u --fpr 0.03", NIN);
			ASSERT_EQ(0, sh("%s image build --kind %s --key-type %s %s %s -file %s -o %s > /dev/null",
					BFCTL_PATH, kinds[kind], kb_key_type_name(kt),
					size, kind == KB_KIND_CLASSIC || kind == KB_KIND_GOZERO ?
					"" : "--seed 7", keys, img)) {
				TH_LOG("%s %s: image build failed", kinds[kind],
				       kb_key_type_name(kt));
			}

			ASSERT_EQ(0, kbloom_open_image(img, &h)) {
				TH_LOG("%s", kbloom_errmsg());
			}
			ASSERT_EQ(-1, kbloom_fd(h));
			ASSERT_EQ(0, kbloom_info(h, &info));
			ASSERT_EQ(kind, info.kind);
			ASSERT_EQ(kt, info.key_type);
			ASSERT_EQ(0, info.flags);
			ASSERT_EQ(0, kbloom_refresh(h));

			/* the core on the same image, read and parsed apart */
			ASSERT_EQ(0, kbu_read_file(img, &ibuf, &imglen));
			ASSERT_EQ(0, kb_image_parse(ibuf, imglen, 0, &cp, &cpl, &plen,
						    NULL, NULL));
			ASSERT_EQ(0, kb_filter_attach(&cf, &cp, (void *)cpl, plen));
			ASSERT_EQ(info.payload_bytes, plen);
			for (i = 0; i < NIN + NOUT; i += 4096) {
				u32 c = NIN + NOUT - i < 4096 ? NIN + NOUT - i : 4096;

				kb_filter_lookup_many(&cf, all.ck + i, c, cbm + i / 64);
			}

			hits = kbloom_test_many(h, all.k, NIN + NOUT, bm);
			ASSERT_GE(hits, NIN);
			for (i = 0; i < NIN + NOUT; i++) {
				int one = kbloom_test(h, all.k[i].data, all.k[i].len);

				ASSERT_EQ(bit(cbm, i), bit(bm, i)) {
					TH_LOG("%s %s key %u '%s'", kinds[kind],
					       kb_key_type_name(kt), i, all.text[i]);
				}
				ASSERT_EQ(bit(bm, i), one);
				if (i < NIN || in_prefix(kt, i)) {
					ASSERT_EQ(1, one) {
						TH_LOG("false negative '%s'", all.text[i]);
					}
				} else {
					fp += one;
				}
				/* an address as a packet's: its host key's answer */
				if (kt >= KB_KEY_IPV4 && i >= NIN) {
					u32 l = (u32)all.k[i].len;
					u32 alen = kb_key_type_is_net(kt) ? l - 1 : l;

					ASSERT_EQ(one, kbloom_test_addr(h,
						alen == 4 ? AF_INET : AF_INET6,
						all.k[i].data));
				}
			}
			/* enough keys to see false positives, and not all */
			ASSERT_GT(fp, 0) {
				TH_LOG("%s %s: no false positive in %d keys",
				       kinds[kind], kb_key_type_name(kt), NOUT);
			}
			ASSERT_LT(fp, NOUT / 4);

			/* bfctl's own offline test: keys straddling in and out */
			ASSERT_EQ(0, bfctl_answers(img, &all, NBF, want));
			for (i = 0; i < NBF; i++)
				ASSERT_EQ(want[i], bit(bm, i));
			{
				struct keyset tail = { 0 };

				tail.text = all.text + NIN;
				ASSERT_EQ(0, bfctl_answers(img, &tail, NBF, want));
				for (i = 0; i < NBF; i++)
					ASSERT_EQ(want[i], bit(bm, NIN + i)) {
						TH_LOG("bfctl image test '%s'",
						       all.text[NIN + i]);
					}
			}

			ASSERT_EQ(-EROFS, kbloom_add(h, all.k[0].data, all.k[0].len));
			ASSERT_EQ(-EROFS, kbloom_add_many(h, all.k, 2));
			ASSERT_EQ(-EROFS, kbloom_test_and_add(h, all.k[0].data,
							      all.k[0].len));
			ASSERT_NE(0, strlen(kbloom_errmsg()));
			kbloom_close(h);
			free(ibuf);
			free(bm);
			free(cbm);
			keyset_free(&in);
			keyset_free(&all);
		}
	}
}

/* a bad key, a bad family: an error and a message, nothing answered */
TEST_F(img, bad_keys)
{
	char img[128];
	struct kbloom *h;
	struct kbloom_key k[3] = { { "ab", 2 }, { "", 0 }, { "cd", 2 } };
	u8 v4[5] = { 10, 0, 0, 1, 32 }, net[5] = { 10, 0, 0, 1, 24 };
	struct kbloom_key *many, bad[3];
	u64 bm = ~0ULL, bms[24];
	unsigned int i;

	snprintf(img, sizeof(img), "%s/s.img", dir);
	ASSERT_EQ(0, sh("printf 'ab\\ncd\\n' | %s image build --kind blocked --key-type str --items 10 --fpr 0.01 -file - -o %s > /dev/null",
			BFCTL_PATH, img));
	ASSERT_EQ(0, kbloom_open_image(img, &h));
	ASSERT_EQ(1, kbloom_test(h, "ab", 2));
	ASSERT_EQ(-EINVAL, kbloom_test(h, "", 0));
	ASSERT_NE(NULL, strstr(kbloom_errmsg(), "malformed"));
	/* all or nothing: the bitmap is left alone */
	ASSERT_EQ(-EINVAL, kbloom_test_many(h, k, 3, &bm));
	ASSERT_EQ(~0ULL, bm);
	ASSERT_NE(NULL, strstr(kbloom_errmsg(), "key 1"));
	ASSERT_EQ(2, kbloom_test_many(h, k + 2, 1, NULL) + 1);
	ASSERT_EQ(-EAFNOSUPPORT, kbloom_test_addr(h, 99, v4));
	/*
	 * the batch check, whose pass is branch-free: one bad key past
	 * the first 1024 fails the whole call; no data, too long, and a
	 * length whose low 32 bits alone would be valid are bad
	 */
	many = calloc(1500, sizeof(*many));
	ASSERT_NE(NULL, many);
	for (i = 0; i < 1500; i++)
		many[i] = (struct kbloom_key){ "ab", 2 };
	bms[0] = bms[23] = ~0ULL;
	ASSERT_EQ(1500, kbloom_test_many(h, many, 1500, bms));
	ASSERT_EQ(~0ULL, bms[0]);
	ASSERT_EQ(0xfffffffULL, bms[23]);	/* bits past n zero */
	bad[0] = (struct kbloom_key){ NULL, 2 };
	bad[1] = (struct kbloom_key){ "ab", KB_KEY_MAX_LEN + 1 };
	bad[2] = (struct kbloom_key){ "ab", (size_t)(sizeof(size_t) > 4) << 31 << 1 | 2 };
	for (i = 0; i < 3; i++) {
		if (i == 2 && sizeof(size_t) == 4)
			break;
		many[1300] = bad[i];
		memset(bms, 0x5a, sizeof(bms));
		ASSERT_EQ(-EINVAL, kbloom_test_many(h, many, 1500, bms));
		ASSERT_EQ(0x5a5a5a5a5a5a5a5aULL, bms[0]);
		ASSERT_NE(NULL, strstr(kbloom_errmsg(), "key 1300"));
		ASSERT_EQ(-EINVAL, kbloom_test(h, bad[i].data, bad[i].len));
	}
	free(many);
	kbloom_close(h);

	snprintf(img, sizeof(img), "%s/n.img", dir);
	ASSERT_EQ(0, sh("echo 10.0.0.0/24 | %s image build --kind blocked --key-type net4 --items 10 --fpr 0.01 -file - -o %s > /dev/null",
			BFCTL_PATH, img));
	ASSERT_EQ(0, kbloom_open_image(img, &h));
	/* a host key is looked up at the /24 the filter holds */
	ASSERT_EQ(1, kbloom_test(h, v4, 5));
	ASSERT_EQ(1, kbloom_test_addr(h, AF_INET, v4));
	/* an IPv6 address cannot be in a net4 filter */
	ASSERT_EQ(0, kbloom_test_addr(h, AF_INET6, "0123456789abcdef"));
	/* host bits set under the prefix length: malformed */
	ASSERT_EQ(-EINVAL, kbloom_test(h, net, 5));
	kbloom_close(h);
}

TEST_F(img, bad_files)
{
	char img[128], bad[128];
	struct kbloom *h = (struct kbloom *)1;

	ASSERT_EQ(-ENOENT, kbloom_open_image("/nonexistent/x.img", &h));
	ASSERT_EQ(NULL, h);
	ASSERT_NE(NULL, strstr(kbloom_errmsg(), "/nonexistent/x.img"));
	ASSERT_EQ(-EINVAL, kbloom_open_image("/tmp", &h));

	snprintf(img, sizeof(img), "%s/s.img", dir);
	ASSERT_EQ(0, sh("printf 'ab\\ncd\\n' | %s image build --kind blocked --key-type str --items 1000 --fpr 0.01 -file - -o %s > /dev/null",
			BFCTL_PATH, img));
	/* one payload byte flipped: the CRC catches it */
	snprintf(bad, sizeof(bad), "%s/crc.img", dir);
	ASSERT_EQ(0, sh("cp %s %s && printf '\\377' | dd of=%s bs=1 seek=200 conv=notrunc status=none",
			img, bad, bad));
	ASSERT_EQ(-EBADMSG, kbloom_open_image(bad, &h));
	ASSERT_NE(NULL, strstr(kbloom_errmsg(), "CRC"));
	/* truncated */
	snprintf(bad, sizeof(bad), "%s/short.img", dir);
	ASSERT_EQ(0, sh("head -c 300 %s > %s", img, bad));
	ASSERT_EQ(-EINVAL, kbloom_open_image(bad, &h));
	/* too short for a header */
	ASSERT_EQ(0, sh("head -c 10 %s > %s", img, bad));
	ASSERT_EQ(-EINVAL, kbloom_open_image(bad, &h));
	ASSERT_EQ(-EINVAL, kbloom_open_image(NULL, &h));
	ASSERT_EQ(-EINVAL, kbloom_open_image(img, NULL));
	/* kbloom_open without the module (never loaded on the test host) */
	ASSERT_EQ(-EINVAL, kbloom_open("bad name", KBLOOM_RDONLY, &h));
	ASSERT_EQ(-EINVAL, kbloom_open("ok", 2, &h));
}

TEST_F(img, torn_read)
{
	char img[128], cmd[512];
	struct kbloom *h = NULL;
	struct stat st;
	int fd;

	snprintf(img, sizeof(img), "%s/t.img", dir);
	snprintf(cmd, sizeof(cmd), "printf 'ab\\ncd\\n' | %s image build --kind gozero --key-type str --bits 4096 -file - -o %s > /dev/null",
		 BFCTL_PATH, img);
	ASSERT_EQ(0, sh("%s", cmd));
	fd = open(img, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	torn_at = st.st_size - (off_t)sizeof(torn_fix);
	ASSERT_EQ(4, pread(fd, torn_fix, sizeof(torn_fix), torn_at));
	/* a whole image: one try, no pause */
	torn_pauses = 0;
	ASSERT_EQ(0, kbloom_open_image(img, &h));
	kbloom_close(h);
	ASSERT_EQ(0, torn_pauses);
	/* the trailer not yet written: the first pause writes it */
	ASSERT_EQ(1, pwrite(fd, "\xa5", 1, torn_at));
	torn_fd = fd;
	ASSERT_EQ(0, kbloom_open_image(img, &h));
	ASSERT_EQ(1, torn_pauses);
	ASSERT_EQ(1, kbloom_test(h, "ab", 2));
	kbloom_close(h);
	/* never written (a crash): refused after 5 tries */
	ASSERT_EQ(1, pwrite(fd, "\xa5", 1, torn_at));
	torn_pauses = 0;
	h = (struct kbloom *)1;
	ASSERT_EQ(-EBADMSG, kbloom_open_image(img, &h));
	ASSERT_EQ(NULL, h);
	ASSERT_NE(NULL, strstr(kbloom_errmsg(), "CRC"));
	ASSERT_EQ(4, torn_pauses);
	close(fd);
}

TEST_HARNESS_MAIN
