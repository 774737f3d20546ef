// SPDX-License-Identifier: GPL-2.0
/*
 * Module BTF, which the BPF kfuncs need: kbloom.ko was built with BTF
 * against the running kernel's own, the kernel accepted it, and BPF can
 * use it.
 *
 * KB_BUILD names the build directory (the host's, visible in the guest).
 * scripts/kdir-btf wrote the KDIR the module was built with to
 * KB_BUILD/kmod-RELEASE/.kb-kdir: the headers (6.12, whose vmlinux is
 * BTF only) or an overlay whose vmlinux was extracted from
 * /boot/vmlinuz-RELEASE (6.1, 6.1-rt).  Its .BTF section must be
 * byte-identical to /sys/kernel/btf/vmlinux: the module's split BTF
 * numbers its types after the base's, and the kernel (with Debian's
 * CONFIG_MODULE_ALLOW_BTF_MISMATCH) silently drops module BTF built on
 * another base, and with it every kfunc.
 */
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "kselftest_harness.h"
#include "kb_btf_fentry.skel.h"

#define CONSUMER_CMD "/sys/module/kb_consumer/parameters/cmd"

struct blob {
	void *p;
	size_t len;
};

/* All of a file (sysfs BTF files have their size in st_size). */
static int read_file(const char *path, struct blob *b)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	size_t done;
	ssize_t r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -EINVAL;
	}
	b->len = st.st_size;
	b->p = malloc(b->len);
	if (!b->p) {
		close(fd);
		return -ENOMEM;
	}
	/* sysfs returns a page or so per read */
	for (done = 0; done < b->len; done += r) {
		r = pread(fd, (char *)b->p + done, b->len - done, done);
		if (r <= 0)
			break;
	}
	close(fd);
	if (done != b->len) {
		free(b->p);
		return -EIO;
	}
	return 0;
}

/* A copy of section NAME of the ELF64 file PATH. */
static int elf_section(const char *path, const char *name, struct blob *b)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *strs;
	struct blob f;
	int i, r;

	r = read_file(path, &f);
	if (r)
		return r;
	r = -ENOENT;
	eh = f.p;
	if (f.len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > f.len) {
		r = -ENOEXEC;
		goto out;
	}
	sh = (const Elf64_Shdr *)((const char *)f.p + eh->e_shoff);
	if (sh[eh->e_shstrndx].sh_offset >= f.len) {
		r = -ENOEXEC;
		goto out;
	}
	strs = (const char *)f.p + sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_shnum; i++) {
		if (strcmp(strs + sh[i].sh_name, name))
			continue;
		if (sh[i].sh_type == SHT_NOBITS ||
		    sh[i].sh_offset + sh[i].sh_size > f.len) {
			r = -ENOEXEC;
			break;
		}
		b->len = sh[i].sh_size;
		b->p = malloc(b->len ? b->len : 1);
		if (!b->p) {
			r = -ENOMEM;
			break;
		}
		memcpy(b->p, (const char *)f.p + sh[i].sh_offset, b->len);
		r = 0;
		break;
	}
out:
	free(f.p);
	return r;
}

/* KB_BUILD/kmod-RELEASE/SUFFIX */
static void build_path(char *buf, size_t len, const char *suffix)
{
	const char *build = getenv("KB_BUILD");
	struct utsname u;

	uname(&u);
	snprintf(buf, len, "%s/kmod-%s/%s", build ? build : "build", u.release,
		 suffix);
}

/* The KDIR kbloom.ko was built with (scripts/kdir-btf's record). */
static int built_kdir(char *buf, size_t len)
{
	char stamp[4096];
	FILE *f;

	build_path(stamp, sizeof(stamp), ".kb-kdir");
	f = fopen(stamp, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

TEST(module_file_has_btf)
{
	char ko[4096];
	struct blob b;

	build_path(ko, sizeof(ko), "kmod/kbloom.ko");
	ASSERT_EQ(0, elf_section(ko, ".BTF", &b)) TH_LOG("no .BTF in %s", ko);
	EXPECT_LT(24, b.len);
	free(b.p);
}

TEST(build_vmlinux_btf_is_the_running_kernels)
{
	char kdir[4096], vmlinux[4200];
	struct blob built, running;

	ASSERT_EQ(0, built_kdir(kdir, sizeof(kdir)));
	snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", kdir);
	ASSERT_EQ(0, elf_section(vmlinux, ".BTF", &built))
		TH_LOG("no .BTF in %s", vmlinux);
	ASSERT_EQ(0, read_file("/sys/kernel/btf/vmlinux", &running));
	TH_LOG("%s: .BTF %zu bytes; /sys/kernel/btf/vmlinux %zu bytes",
	       vmlinux, built.len, running.len);
	ASSERT_EQ(running.len, built.len);
	EXPECT_EQ(0, memcmp(running.p, built.p, built.len));
	free(built.p);
	free(running.p);
}

/* The kernel registered the module's BTF: the very bytes of its .BTF. */
TEST(kernel_registered_module_btf)
{
	struct blob file, reg;
	char ko[4096];

	ASSERT_EQ(0, read_file("/sys/kernel/btf/kbloom", &reg))
		TH_LOG("no /sys/kernel/btf/kbloom: module BTF missing or rejected (dmesg)");
	build_path(ko, sizeof(ko), "kmod/kbloom.ko");
	ASSERT_EQ(0, elf_section(ko, ".BTF", &file));
	ASSERT_EQ(file.len, reg.len);
	EXPECT_EQ(0, memcmp(file.p, reg.p, reg.len));
	free(file.p);
	free(reg.p);
}

/*
 * libbpf finds kbloom_get() only in kbloom's BTF: an fentry program on it
 * loads, attaches and sees the name kb_consumer passes to it.
 */
TEST(bpf_attaches_to_module_function)
{
	static const char name[] = "kb.btf.nosuch";
	struct kb_btf_fentry *skel;
	char cmd[64];
	int fd;

	skel = kb_btf_fentry__open_and_load();
	ASSERT_NE(NULL, skel) TH_LOG("fentry/kbloom_get did not load");
	skel->bss->target_tgid = getpid();
	ASSERT_EQ(0, kb_btf_fentry__attach(skel));

	fd = open(CONSUMER_CMD, O_WRONLY);
	ASSERT_LE(0, fd);
	snprintf(cmd, sizeof(cmd), "get %s", name);
	/* no such filter: kbloom_get() was called all the same */
	EXPECT_EQ(-1, write(fd, cmd, strlen(cmd)));
	EXPECT_EQ(ENOENT, errno);
	close(fd);

	EXPECT_EQ(1, skel->bss->calls);
	EXPECT_STREQ(name, skel->bss->last_name);
	kb_btf_fentry__destroy(skel);
}

TEST_HARNESS_MAIN
