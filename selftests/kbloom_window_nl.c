// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom_window's requests (kbloom_window.h): create with a shape, GET
 * with the slices, key batches, the module's limits.  No harness here:
 * it is kbloom_window.c's alone (its runner and lists are that file's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kbloom_window.h"

__s64 kbw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void kbw_sleep_ms(__s64 ms)
{
	if (ms > 0)
		usleep(ms * 1000);
}

/*
 * KB_CMD_CREATE of a blocked filter of 16-byte keys with a shape; the
 * extack's message and offset stay in the pair's socket: *offs gets the
 * offset (or -1), offs_attr the attribute the caller expects blamed
 */
int kbw_create(int fd, const char *name, __u32 kind, __u64 items,
	       __u32 fpr_ppb, const struct kbw_shape *sh, int blame,
	       int *blamed)
{
	struct kbtn *n = kbt_nl(fd);
	struct nlattr *a, *want = NULL;
	struct kbtn_req *r = malloc(sizeof(*r));
	int ret;

	kbtn_init(r, n->family, KB_CMD_CREATE, 0);
	kbtn_put_str(r, KB_A_NAME, name);
	kbtn_put_u32(r, KB_A_KIND, kind);
	kbtn_put_u32(r, KB_A_KEY_TYPE, KB_KEY_BYTES);
	kbtn_put_u64(r, KB_A_ITEMS, items);
	if (fpr_ppb)
		kbtn_put_u32(r, KB_A_FPR_PPB, fpr_ppb);
	else
		kbtn_put_u32(r, KB_A_BITS_PER_KEY, 10);
	if (sh && sh->window_ms) {
		a = kbtn_put_u64(r, KB_A_WINDOW_MS, sh->window_ms);
		if (blame == KB_A_WINDOW_MS)
			want = a;
	}
	if (sh && sh->slices) {
		a = kbtn_put_u32(r, KB_A_SLICES, sh->slices);
		if (blame == KB_A_SLICES)
			want = a;
	}
	if (sh && sh->grow) {
		a = kbtn_put(r, KB_A_GROW, NULL, 0);
		if (blame == KB_A_GROW)
			want = a;
	}
	if (sh && sh->max_bytes) {
		a = kbtn_put_u64(r, KB_A_MAX_BYTES, sh->max_bytes);
		if (blame == KB_A_MAX_BYTES)
			want = a;
	}
	ret = kbtn_do(n, r);
	if (blamed)
		*blamed = want && n->offs == kbtn_offs(r, want) &&
			  n->msg[0];
	kbt_nl_put(fd, n);
	free(r);
	return ret;
}

/* KB_CMD_GET with the slices' attributes and nests (newest first) */
int kbw_get(int fd, const char *name, struct kbw_info *w)
{
	struct kbtn *n = kbt_nl(fd);
	struct nlmsghdr *nlh;
	struct nlattr *a;
	int ret, len;

	memset(w, 0, sizeof(*w));
	ret = kbtn_name_cmd(n, KB_CMD_GET, name);
	if (!ret && !n->reply_len)
		ret = -EPROTO;
	if (ret) {
		kbt_nl_put(fd, n);
		return ret;
	}
	nlh = (struct nlmsghdr *)n->reply;
	a = kbtn_attr_first(nlh, GENL_HDRLEN);
	len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	while (len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= len) {
		switch (a->nla_type & NLA_TYPE_MASK) {
		case KB_A_GENERATION:
			w->generation = kbtn_u64(a);
			break;
		case KB_A_WINDOW_MS:
			w->window_ms = kbtn_u64(a);
			break;
		case KB_A_NEXT_ROTATION_MS:
			w->next_rotation_ms = kbtn_u64(a);
			break;
		case KB_A_MAX_BYTES:
			w->max_bytes = kbtn_u64(a);
			break;
		case KB_A_COUNT:
			w->count = kbtn_u64(a);
			break;
		case KB_A_ITEMS:
			w->items = kbtn_u64(a);
			break;
		case KB_A_FPR_PPB:
			w->fpr_ppb = kbtn_u32(a);
			break;
		case KB_A_SLICES:
			w->slices = kbtn_u32(a);
			break;
		case KB_A_GROW:
			w->grow = 1;
			break;
		case KB_A_OVER_CAPACITY:
			w->over = *(__u8 *)kbtn_data(a);
			break;
		case KB_A_SLICE: {
			struct nlattr *t[KB_SA_MAX + 1];
			struct kbw_slice *s = &w->sl[w->nnest];

			if (w->nnest >= KB_SLICES_MAX)
				break;
			w->nnest++;
			kbtn_parse_attrs(t, KB_SA_MAX, kbtn_data(a),
					 kbtn_len(a));
			s->age_ms = kbt_nla_u64(t, KB_SA_AGE_MS);
			s->m = kbt_nla_u64(t, KB_SA_M);
			s->items = kbt_nla_u64(t, KB_SA_ITEMS);
			s->bytes = kbt_nla_u64(t, KB_SA_BYTES);
			s->bits_set = kbt_nla_u64(t, KB_SA_BITS_SET);
			s->k = kbt_nla_u32(t, KB_SA_K);
			s->fpr_ppb = kbt_nla_u32(t, KB_SA_FPR_PPB);
			s->est_fpr_ppb = kbt_nla_u32(t, KB_SA_EST_FPR_PPB);
			break;
		}
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	kbt_nl_put(fd, n);
	return 0;
}

/* keys first..first+n-1 of family fam (16 bytes each): add, or test */
int kbw_add(int fd, const char *name, __u32 fam, __u64 first, __u64 n)
{
	void *keys = kbt_keys16(fam, first, n);
	int ret = kbt_keys(fd, KB_IOC_ADD, name, 0, keys, 16, n, NULL, NULL);

	free(keys);
	return ret;
}

/* how many of the keys test maybe (-errno on failure) */
long kbw_hits(int fd, const char *name, __u32 fam, __u64 first, __u64 n)
{
	void *keys = kbt_keys16(fam, first, n);
	struct kb_ioc_keys k;
	int ret = kbt_keys(fd, KB_IOC_TEST, name, 0, keys, 16, n, NULL, &k);

	free(keys);
	return ret ? ret : (long)k.hits;
}

/* the module's max_filter_bytes (0: unreadable) */
__u64 kbw_module_max_bytes(void)
{
	FILE *f = fopen("/sys/module/kbloom/parameters/max_filter_bytes", "r");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* the bytes of a plain blocked filter of items at fpr_ppb */
__u64 kbw_plain_bytes(int fd, __u64 items, __u32 fpr_ppb)
{
	struct kb_ioc_info i;
	__u64 b = 0;

	if (!kbw_create(fd, "probe", KB_KIND_BLOCKED, items, fpr_ppb, NULL, 0,
		       NULL) && !kbt_info(fd, "probe", &i))
		b = i.bytes;
	kbt_destroy(fd, "probe");
	return b;
}
