// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl lsm attach NAME --content: the path filter's content mode
 * (userspace/bpf/content_filter.bpf.c), which denies files by what they
 * hold, not by their names.  attach reads the list (SHA-256 digests, or
 * files it hashes), fills the programs' exact set, adds the digests to
 * the `bytes` filter NAME and pins links and maps under LSM_CONTENT_DIR,
 * beside path mode's pins, so that both modes can be attached at once;
 * detach and show take both modes (--path, --content pick one).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sodium/crypto_hash_sha256.h>
#include "kverbs.h"
#include "kbdev.h"
#include "lsm.h"
#include "lsm_content.h"
#include "content_filter.h"
#include "content_filter.skel.h"

#define LSM_CONTENT_LOCK	LSM_LOCK_DIR "/lsm-content.lock"
#define CF_PREFIX		"sha256:"

/*
 * what attach pins (and detach removes) besides bfctl_lsm_link_pins;
 * config last: "attached"
 */
static const char *const cf_map_pins[] = {
	"digests", "seen", "stats", "config",
};

_Static_assert(CF_HOOK_EXEC == LSM_HOOK_EXEC && CF_HOOK_OPEN == LSM_HOOK_OPEN,
	       "--exec and --open are lsm.h's bits");

/* SHA-256 of nothing: listing it would deny every empty file */
static const char cf_empty_hex[] =
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static void cf_pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", LSM_CONTENT_DIR, name);
}

int bfctl_lsm_content_obj(const char *name)
{
	char p[PATH_MAX];

	cf_pin_path(p, sizeof(p), name);
	return bpf_obj_get(p);
}

bool bfctl_lsm_content_attached(void)
{
	char p[PATH_MAX];

	cf_pin_path(p, sizeof(p), "config");
	return !access(p, F_OK);
}

bool bfctl_lsm_content_wanted(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--content"))
			return true;
	return false;
}

void bfctl_lsm_content_hex(char *out, const u8 *d)
{
	int i;

	for (i = 0; i < CF_DIGEST_LEN; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/*
 * The kernel's LSM list must have bpf (the programs); IMA (the hash) must
 * be running, which its securityfs directory says: 6.1's LSM list never
 * names it ("integrity" registers no hooks there, and only LSMs that do
 * are listed; 6.9 and later list "ima"); and it must hash with SHA-256.
 */
static int cf_check_kernel(void)
{
	char buf[512], *tok, *save, *h;
	bool bpf = false, ima = false;
	struct statfs st;
	FILE *f;
	size_t n;

	if (statfs(LSM_SECFS, &st) || st.f_type != 0x73636673 /* SECURITYFS */)
		mount("securityfs", LSM_SECFS, "securityfs", 0, NULL);
	f = fopen(LSM_SECFS "/lsm", "re");
	if (!f)
		return bfctl_fail(BFCTL_ERR, "lsm attach", "cannot read %s/lsm: %s",
				  LSM_SECFS, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		bpf |= !strcmp(tok, "bpf");
	}
	ima = !access(LSM_SECFS "/ima", F_OK);
	if (!bpf || !ima)
		return bfctl_fail(BFCTL_ERR, "lsm attach",
				  "content mode needs the BPF LSM and IMA active (%s): boot with bpf and integrity (6.1) or ima in lsm=",
				  bpf ? "no " LSM_SECFS "/ima" :
				  "no \"bpf\" in " LSM_SECFS "/lsm");
	f = fopen("/proc/cmdline", "re");
	if (!f)
		return BFCTL_OK;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	h = strstr(buf, "ima_hash=");
	if (h && strncmp(h + 9, "sha256", 6)) {
		h[9 + strcspn(h + 9, " \n")] = 0;
		return bfctl_fail(BFCTL_ERR, "lsm attach",
				  "IMA hashes with %s (the kernel's command line): content mode needs sha256",
				  h + 9);
	}
	return BFCTL_OK;
}

/*
 * --open judges opens at file_post_open, which 6.9 added: before the
 * filesystem's ->open ran (file_open) IMA cannot read every file
 */
static int cf_check_post_open(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int id;

	if (!btf)
		return bfctl_fail(BFCTL_ERR, "lsm attach", "the kernel's BTF: %s",
				  strerror(errno));
	id = btf__find_by_name_kind(btf, "bpf_lsm_file_post_open",
				    BTF_KIND_FUNC);
	btf__free(btf);
	if (id < 0)
		return bfctl_fail(BFCTL_ERR, "lsm attach",
				  "content mode's --open needs the kernel's file_post_open LSM hook (6.9 and later): this kernel has none; attach without --open");
	return BFCTL_OK;
}

/* ---- the list ---- */

struct cf_list {
	struct cf_digest *d;
	u64 n, cap;
};

static int cf_hash_file(const char *path, struct cf_digest *d)
{
	crypto_hash_sha256_state st;
	unsigned char buf[65536];
	struct stat sb;
	ssize_t r;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		err = -errno;
	} else if (!S_ISREG(sb.st_mode)) {
		err = -EISDIR;	/* said as "not a regular file" */
	} else {
		crypto_hash_sha256_init(&st);
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			crypto_hash_sha256_update(&st, buf, r);
		if (r < 0)
			err = -errno;
		else
			crypto_hash_sha256_final(&st, d->b);
	}
	close(fd);
	return err;
}

/*
 * One line: "sha256:" and 64 hex digits, or a file to hash.  0, or
 * BFCTL_ERR with the line named.
 */
static int cf_parse_line(const char *file, u64 no, char *s,
			 struct cf_digest *d)
{
	const char *what = "lsm attach";
	char hex[2 * CF_DIGEST_LEN + 1];
	size_t len;
	int i, hi, lo, err;

	if (!strncmp(s, CF_PREFIX, strlen(CF_PREFIX))) {
		s += strlen(CF_PREFIX);
		len = strlen(s);
		if (len != 2 * CF_DIGEST_LEN)
			return bfctl_fail(BFCTL_ERR, what,
					  "%s: line %llu: a SHA-256 digest is 64 hex digits, not %zu",
					  file, (unsigned long long)no, len);
		for (i = 0; i < CF_DIGEST_LEN; i++) {
			hi = kbu_hexval(s[2 * i]);
			lo = kbu_hexval(s[2 * i + 1]);
			if (hi < 0 || lo < 0)
				return bfctl_fail(BFCTL_ERR, what,
						  "%s: line %llu: '%c' is not a hex digit",
						  file, (unsigned long long)no,
						  hi < 0 ? s[2 * i] : s[2 * i + 1]);
			d->b[i] = hi << 4 | lo;
		}
	} else {
		err = cf_hash_file(s, d);
		if (err)
			return bfctl_fail(BFCTL_ERR, what,
					  "%s: line %llu: %s: %s (a line is sha256:HEX or a file to hash)",
					  file, (unsigned long long)no, s,
					  err == -EISDIR ? "not a regular file" :
					  strerror(-err));
	}
	bfctl_lsm_content_hex(hex, d->b);
	if (!strcmp(hex, cf_empty_hex))
		return bfctl_fail(BFCTL_ERR, what,
				  "%s: line %llu: the SHA-256 of empty contents: it would deny every empty file",
				  file, (unsigned long long)no);
	return 0;
}

/* cf_read_list()'s state while kbu_keyfile_read() runs */
struct cf_read {
	const char *file;
	struct cf_list *l;
};

static int cf_list_key(const u8 *k, u32 len, u64 no, void *arg)
{
	struct cf_read *rd = arg;
	struct cf_list *l = rd->l;
	char line[KB_KEY_MAX_LEN + 1];

	memcpy(line, k, len);
	line[len] = 0;
	if (strlen(line) != len)
		return bfctl_fail(BFCTL_ERR, "lsm attach",
				  "%s: line %llu: a NUL byte in the line",
				  rd->file, (unsigned long long)no);
	if (l->n == l->cap) {
		struct cf_digest *nd;
		u64 cap = l->cap ? 2 * l->cap : 64;

		nd = realloc(l->d, cap * sizeof(*nd));
		if (!nd)
			return bfctl_fail(BFCTL_ERR, "lsm attach", "%s",
					  strerror(ENOMEM));
		l->d = nd;
		l->cap = cap;
	}
	if (cf_parse_line(rd->file, no, line, &l->d[l->n]))
		return BFCTL_ERR;
	l->n++;
	return 0;
}

/*
 * the one key-file rule (kbu_keyline(), a text key: whole-line '#' and
 * ';' comments, blank lines and the blanks around a line are skipped);
 * 0 or BFCTL_ERR (said)
 */
static int cf_read_list(const char *file, struct cf_list *l)
{
	struct cf_read rd = { file, l };
	char err[KBU_QUOTE_SIZE + 64], msg[PATH_MAX + sizeof(err)];
	u64 line;
	int ret;

	ret = kbu_keyfile_read(file, KB_KEY_STR, KBU_FMT_STR, cf_list_key, &rd,
			       err, sizeof(err), &line);
	if (ret < 0) {
		kbu_keyfile_msg(msg, sizeof(msg), file, ret, err, line);
		return bfctl_fail(BFCTL_ERR, "lsm attach", "%s", msg);
	}
	return ret ? BFCTL_ERR : 0;
}

/* the digests to the filter: cmd KB_IOC_ADD, or KB_IOC_TEST (res) */
int bfctl_lsm_content_keys(struct kbconn *conn, unsigned long cmd,
			    const char *name, const struct cf_digest *d,
			    u64 n, u64 *res)
{
	char hex[2 * CF_DIGEST_LEN + 1];
	struct bfctl_batch b;
	const char *why = NULL;
	u64 i, done = 0, bad = ~0ULL;
	int ret = 0;

	if (bfctl_batch_init(&b, n, 64 * 1024))
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		bfctl_lsm_content_hex(hex, d[i].b);
		if (bfctl_batch_push_text(&b, KB_KEY_BYTES, KBU_FMT_HEX, hex,
					  strlen(hex), i, &why))
			ret = -EILSEQ;
	}
	if (!ret)
		ret = kbconn_keys(conn, cmd, name, b.buf, b.len, b.count, res,
				  &done, &bad);
	bfctl_batch_free(&b);
	return ret;
}

/* ---- attach, detach ---- */

static int cf_unpin_all(void)
{
	return bfctl_lsm_unpin_all(LSM_CONTENT_DIR, cf_map_pins,
				   ARRAY_SIZE(cf_map_pins));
}

static int cf_pin_all(struct content_filter *skel, struct bpf_link **link)
{
	struct bpf_map *maps[] = {
		skel->maps.digests, skel->maps.seen, skel->maps.stats,
		skel->maps.rodata,
	};

	_Static_assert(ARRAY_SIZE(maps) == ARRAY_SIZE(cf_map_pins),
		       "a name for each map");
	return bfctl_lsm_pin_all(LSM_CONTENT_DIR, link, maps, cf_map_pins,
				 ARRAY_SIZE(maps));
}

/*
 * Load, fill the exact set, add the digests to the filter, attach, pin.
 * The caller holds the lock and found nothing attached.
 */
static int cf_load(struct kbconn *conn, const char *name,
		   const struct cf_list *l, u32 hooks, bool audit)
{
	const char *what = "lsm attach";
	struct bpf_link *link[4] = { NULL };
	struct bpf_program *progs[4];
	struct content_filter *skel;
	bool made_dir = false;
	u8 one = 1;
	u64 cookie, i;
	int err;

	err = bfctl_lsm_netns_cookie(&cookie);
	if (err)
		return bfctl_fail(BFCTL_ERR, what, "the netns cookie (SO_NETNS_COOKIE): %s",
				  strerror(-err));
	skel = content_filter__open();
	if (!skel)
		return bfctl_fail(BFCTL_ERR, what, "open the BPF object: %s",
				  strerror(errno));
	progs[0] = skel->progs.cf_exec;
	progs[1] = skel->progs.cf_mmap;
	progs[2] = skel->progs.cf_mprotect;
	progs[3] = skel->progs.cf_open;
	kbdev_set_name((char *)skel->rodata->filter_name, name);
	skel->rodata->netns_cookie = cookie;
	skel->rodata->hooks = hooks;
	skel->rodata->audit = audit;
	bfctl_lsm_autoload(progs, hooks);
	bpf_map__set_max_entries(skel->maps.digests, l->n);
	err = content_filter__load(skel);
	if (err) {
		bfctl_fail(BFCTL_ERR, what,
			   "the kernel refused the program: %s (bpf_ima_file_hash() needs 5.18; is kbloom.ko loaded with its BTF? bfctl version says)",
			   strerror(-err));
		goto out;
	}
	for (i = 0; i < l->n && !err; i++)
		err = bpf_map__update_elem(skel->maps.digests, &l->d[i],
					   sizeof(l->d[i]), &one, sizeof(one),
					   BPF_ANY);
	if (err) {
		bfctl_fail(BFCTL_ERR, what, "fill the exact set: %s",
			   strerror(-err));
		goto out;
	}
	err = bfctl_lsm_content_keys(conn, KB_IOC_ADD, name, l->d, l->n, NULL);
	if (err) {
		bfctl_fail_err(conn, bfctl_verb_name(what, name), err);
		goto out;
	}
	err = bfctl_lsm_attach_progs(progs, link, hooks);
	if (err) {
		bfctl_fail(BFCTL_ERR, what, "attach: %s", strerror(-err));
		goto out;
	}
	err = bfctl_lsm_make_dir(LSM_CONTENT_DIR, &made_dir);
	if (!err)
		err = cf_pin_all(skel, link);
	if (err) {
		bfctl_fail(BFCTL_ERR, what, "pin under %s: %s", LSM_CONTENT_DIR,
			   strerror(-err));
		if (made_dir)
			cf_unpin_all();
	}
out:
	for (i = 0; i < ARRAY_SIZE(link); i++)
		bpf_link__destroy(link[i]);
	content_filter__destroy(skel);
	return err ? BFCTL_ERR : BFCTL_OK;
}

int bfctl_lsm_content_attach(int argc, char **argv)
{
	const char *what = "lsm attach";
	struct cf_list l = { NULL, 0, 0 };
	struct lsm_attach_args a;
	struct kbconn conn;
	int ret, lock = -1;

	if (bfctl_lsm_attach_args(argc, argv, &a,
				  "attach --content needs -file DIGESTS (sha256:HEX lines, or files to hash)"))
		return BFCTL_USAGE;
	ret = cf_check_kernel();
	if (!ret && (a.hooks & CF_HOOK_OPEN))
		ret = cf_check_post_open();
	if (ret)
		return ret;
	kbconn_init(&conn);
	ret = bfctl_lsm_filter_check(&conn, a.name, KB_KEY_BYTES,
				     "content mode needs a bytes filter (its keys are the digests)");
	if (ret)
		goto out;
	ret = cf_read_list(a.file, &l);
	if (ret)
		goto out;
	if (!l.n) {
		ret = bfctl_fail(BFCTL_ERR, what,
				 "%s lists no digest: refusing to attach a filter that denies nothing",
				 a.file);
		goto out;
	}
	ret = bfctl_lsm_bpffs(what);
	if (ret)
		goto out;
	lock = bfctl_lsm_lock(what, LSM_CONTENT_LOCK);
	if (lock < 0) {
		ret = BFCTL_ERR;
		goto out;
	}
	if (!access(LSM_CONTENT_DIR, F_OK)) {
		ret = bfctl_fail(BFCTL_ERR, what,
				 "%s exists: content mode is already attached (bfctl lsm detach --content first)",
				 LSM_CONTENT_DIR);
		goto out;
	}
	ret = cf_load(&conn, a.name, &l, a.hooks, a.audit);
out:
	if (lock >= 0)
		close(lock);
	free(l.d);
	kbconn_close(&conn);
	return ret;
}

/* unpin, then wait until the programs are gone (lsm.c's detach says why) */
static int cf_detach(void)
{
	u32 id[ARRAY_SIZE(bfctl_lsm_link_pins)];
	int lock, ret = BFCTL_OK;
	size_t i;

	lock = bfctl_lsm_lock("lsm detach", LSM_CONTENT_LOCK);
	if (lock < 0)
		return BFCTL_ERR;
	for (i = 0; i < ARRAY_SIZE(id); i++)
		id[i] = bfctl_lsm_link_prog(LSM_CONTENT_DIR,
					    bfctl_lsm_link_pins[i]);
	if (!cf_unpin_all()) {
		ret = bfctl_fail(BFCTL_ABSENT, "lsm detach", "content mode: not attached");
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(id); i++)
		if (!bfctl_lsm_wait_prog_gone(id[i]))
			ret = bfctl_fail(BFCTL_ERR, "lsm detach",
					 "content mode: unpinned, but a program is still loaded after 30 s (held by another process?)");
out:
	close(lock);
	return ret;
}

/*
 * --path, --content of detach and show: which modes; pargv (5 slots)
 * gets argv[0] and the -q, -j path mode's verb takes; 0 or BFCTL_USAGE
 */
static int cf_modes(int argc, char **argv, bool *path, bool *content,
		    char **pargv, int *pargc)
{
	bool p = false, c = false;
	int i;

	*pargc = 0;
	pargv[(*pargc)++] = argv[0];
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--path"))
			p = true;
		else if (!strcmp(argv[i], "--content"))
			c = true;
		else if (*pargc < 4 && (!strcmp(argv[i], "-q") ||
					!strcmp(argv[i], "-j")))
			pargv[(*pargc)++] = argv[i];
		else
			return bfctl_lsm_usage("unexpected argument '%s'", argv[i]);
		if (!strcmp(argv[i], "-q"))
			bfctl_quiet = true;
		if (!strcmp(argv[i], "-j"))
			bfctl_json = true;
	}
	pargv[*pargc] = NULL;
	*path = p || !c;
	*content = c || !p;
	return 0;
}

int bfctl_lsm_run_modes(int argc, char **argv, const char *what,
			int (*path_verb)(int argc, char **argv),
			bool (*path_on)(void), int (*content_verb)(void),
			bool (*content_on)(void))
{
	bool path = false, content = false, any = false;
	char *pargv[5];
	int pargc, r, ret = BFCTL_OK;

	if (cf_modes(argc, argv, &path, &content, pargv, &pargc))
		return BFCTL_USAGE;
	if (path && path_on()) {
		any = true;
		ret = path_verb(pargc, pargv);
	}
	if (content && content_on()) {
		any = true;
		r = content_verb();
		if (r > ret)
			ret = r;
	}
	if (!any)
		return bfctl_fail(BFCTL_ABSENT, what, "not attached");
	return ret;
}

/* detach takes a mode whose directory is there, even half pinned */
static bool cf_path_dir(void)
{
	return !access(LSM_DIR, F_OK);
}

static bool cf_content_dir(void)
{
	return !access(LSM_CONTENT_DIR, F_OK);
}

int bfctl_lsm_detach_modes(int argc, char **argv,
			   int (*path_verb)(int argc, char **argv))
{
	return bfctl_lsm_run_modes(argc, argv, "lsm detach", path_verb,
				   cf_path_dir, cf_detach, cf_content_dir);
}
