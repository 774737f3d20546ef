// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom over an image file (uapi section 2, as bfctl image build
 * writes it): mapped read-only, parsed and checked (CRC included) by the
 * core, tested in place.  The handle never writes it, so its calls count
 * nothing; bfctl redis watch -o may set bits in it in place (only set:
 * a key present stays present) with no lock, the bytes first and the CRC
 * trailer last: a check that finds a CRC mismatch is tried again
 * (kbu_torn_retry()) before the open fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kbl.h"
#include "kbuser.h"

struct kbl_image {
	const char *path;
	int fd;
};

struct kbl_image_try {
	struct kbloom *h;
	struct kbl_map *m;
};

static int kbl_image_map_once(void *arg, bool last)
{
	const struct kbl_image_try *t = arg;
	const struct kbl_image *im = t->h->ctx;
	struct kbl_map *m = t->m;
	enum kb_img_err why = KB_IMG_OK;
	const void *payload;
	struct kb_params p;
	struct stat st;
	u64 plen;
	void *base;
	int ret;

	if (fstat(im->fd, &st) < 0)
		return kbl_err(-errno, "%s: %s", im->path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return kbl_err(-EINVAL, "%s: not a regular file", im->path);
	if ((u64)st.st_size < sizeof(struct kb_image_hdr) || (u64)st.st_size > SIZE_MAX)
		return kbl_err(-EINVAL, "%s: not a kbloom image (%lld bytes)",
			       im->path, (long long)st.st_size);
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, im->fd, 0);
	if (base == MAP_FAILED)
		return kbl_err(-errno, "%s: mmap: %s", im->path, strerror(errno));
	ret = kb_image_parse(base, (u64)st.st_size, 0, &p, &payload, &plen,
			     NULL, &why);
	if (!ret && KB_BIG_ENDIAN && p.kind != KB_KIND_CLASSIC &&
	    p.kind != KB_KIND_GOZERO) {
		/* an image's words are little-endian: a swapped copy */
		m->copy = malloc(plen);
		if (!m->copy) {
			munmap(base, (size_t)st.st_size);
			return kbl_err(-ENOMEM, "out of memory");
		}
		memcpy(m->copy, payload, plen);
		ret = kb_filter_attach(&m->f, &p, m->copy, plen);
	} else if (!ret) {
		ret = kb_filter_attach_ro(&m->f, &p, payload, plen);
	}
	if (ret) {
		free(m->copy);
		m->copy = NULL;
		munmap(base, (size_t)st.st_size);
		if (ret == -EBADMSG && !last)
			return ret;	/* read while a merge wrote it: again */
		return kbl_err(ret, "%s: not a valid kbloom image: %s", im->path,
			       ret == -EBADMSG ? "CRC mismatch" :
			       kb_image_strerror(why));
	}
	m->payload = m->copy ? m->copy : payload;
	m->base = base;
	m->len = (size_t)st.st_size;
	return 0;
}

static int kbl_image_map(struct kbloom *h, struct kbl_map *m)
{
	struct kbl_image_try t = { h, m };

	return kbu_torn_retry(kbl_image_map_once, &t);
}

static void kbl_image_unmap(struct kbloom *h, struct kbl_map *m)
{
	(void)h;
	free(m->copy);
	munmap(m->base, m->len);
}

static const struct kbl_src_ops kbl_image_ops = {
	.map = kbl_image_map,
	.unmap = kbl_image_unmap,
};

KBL_API int kbloom_open_image(const char *path, struct kbloom **out)
{
	struct kbl_image im;
	int ret;

	if (!out)
		return kbl_err(-EINVAL, "no handle pointer");
	*out = NULL;
	if (!path)
		return kbl_err(-EINVAL, "no path");
	im.path = path;
	im.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im.fd < 0)
		return kbl_err(-errno, "%s: %s", path, strerror(errno));
	/* the mapping outlives the file descriptor; ctx only while mapping */
	ret = kbl_open_src(&kbl_image_ops, &im, -1, KBLOOM_RDONLY, out);
	close(im.fd);
	if (!ret)
		(*out)->ctx = NULL;
	return ret;
}
