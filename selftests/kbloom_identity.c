// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel/userspace identity: the same keys and seed give a byte-identical
 * image whether built in the kernel through batched ioctls and exported,
 * or built offline by `bfctl image build`.
 */
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "kb_test.h"

#ifndef BFCTL_PATH
#define BFCTL_PATH "build/user/bfctl"
#endif

struct variant {
	const char *kind_name;
	__u32 kind;
	__u32 hash;
	const char *hash_opt;
	__u32 key_type;
	const char *key_type_name;
	__u64 n;
};

static const struct variant variants[] = {
	{ "blocked", KB_KIND_BLOCKED, KB_HASH_XXH64, "--hash xxh64 --seed 12345",
	  KB_KEY_STR, "str", 20000 },
	{ "counting", KB_KIND_COUNTING, KB_HASH_SIPHASH,
	  "--hash siphash --seed 77,99", KB_KEY_STR, "str", 5000 },
	{ "classic", KB_KIND_CLASSIC, KB_HASH_LEVELDB, "", KB_KEY_STR, "str",
	  7000 },
	{ "blocked", KB_KIND_BLOCKED, KB_HASH_XXH64, "--hash xxh64 --seed 1",
	  KB_KEY_NET4, "net4", 3000 },
};

static int one(struct __test_metadata *_metadata, const struct variant *v)
{
	char dir[] = "/tmp/kbidXXXXXX", path[128], out[128], cmdline[512];
	unsigned char *buf = malloc(v->n * 40), *p = buf;
	struct kb_ioc_create c;
	struct kb_ioc_keys k;
	void *kimg, *uimg;
	long klen, ulen;
	FILE *f;
	__u64 i;
	int fd = kbt_open(), ret = -1;
	struct stat st;

	if (fd < 0 || !mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/keys", dir);
	snprintf(out, sizeof(out), "%s/img", dir);
	f = fopen(path, "w");
	for (i = 0; i < v->n; i++) {
		char line[64];
		__u16 len;

		if (v->key_type == KB_KEY_NET4) {
			fprintf(f, "10.%u.%u.0/24\n", (unsigned)(i / 256),
				(unsigned)(i % 256));
			len = 5;
			memcpy(p, &len, 2);
			p[2] = 10;
			p[3] = i / 256;
			p[4] = i % 256;
			p[5] = 0;
			p[6] = 24;
			p += 7;
			continue;
		}
		snprintf(line, sizeof(line), "key-%llu-%llx",
			 (unsigned long long)i,
			 (unsigned long long)(i * 2654435761ULL));
		fprintf(f, "%s\n", line);
		len = strlen(line);
		memcpy(p, &len, 2);
		memcpy(p + 2, line, len);
		p += 2 + len;
	}
	fclose(f);

	c = kbt_spec("id.k", v->kind, v->key_type, v->n, 10000000);
	c.hash = v->hash;
	if (v->kind != KB_KIND_CLASSIC) {
		c.flags = KB_CREATE_F_SEED;
		c.seed[0] = v->hash == KB_HASH_XXH64 ?
			    (v->n == 3000 ? 1 : 12345) : 77;
		c.seed[1] = v->hash == KB_HASH_SIPHASH ? 99 : 0;
	}
	EXPECT_EQ(0, kbt_create_spec(fd, &c));
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	kbt_name(k.name, "id.k");
	k.keys = (uintptr_t)buf;
	k.keys_len = p - buf;
	k.count = v->n;
	EXPECT_EQ(0, kbt_ioc(fd, KB_IOC_TEST_ADD, &k));
	klen = kbt_export(fd, "id.k", 0, &kimg);
	EXPECT_LT(0, klen);
	snprintf(cmdline, sizeof(cmdline),
		 "%s image build --kind %s --items %llu --fpr 0.01 %s "
		 "--key-type %s -file %s -o %s >/dev/null",
		 BFCTL_PATH, v->kind_name, (unsigned long long)v->n,
		 v->hash_opt, v->key_type_name, path, out);
	EXPECT_EQ(0, system(cmdline));
	if (klen > 0 && !stat(out, &st)) {
		EXPECT_EQ(klen, st.st_size);
		uimg = malloc(st.st_size);
		f = fopen(out, "r");
		ulen = fread(uimg, 1, st.st_size, f);
		fclose(f);
		EXPECT_EQ(klen, ulen);
		if (klen == ulen) {
			ret = memcmp(kimg, uimg, klen) ? -1 : 0;
			for (i = 0; ret && i < (__u64)klen; i++)
				if (((unsigned char *)kimg)[i] !=
				    ((unsigned char *)uimg)[i]) {
					TH_LOG("%s/%s: first difference at byte %llu",
					       v->kind_name, v->key_type_name,
					       (unsigned long long)i);
					break;
				}
		}
		free(uimg);
		free(kimg);
	}
	EXPECT_EQ(0, kbt_destroy(fd, "id.k"));
	snprintf(cmdline, sizeof(cmdline), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmdline));
	free(buf);
	close(fd);
	return ret;
}

TEST(blocked_xxh64_str)
{
	EXPECT_EQ(0, one(_metadata, &variants[0]));
}

TEST(counting_siphash_str)
{
	EXPECT_EQ(0, one(_metadata, &variants[1]));
}

TEST(classic_leveldb_str)
{
	EXPECT_EQ(0, one(_metadata, &variants[2]));
}

TEST(blocked_net4)
{
	EXPECT_EQ(0, one(_metadata, &variants[3]));
}

TEST_HARNESS_MAIN
