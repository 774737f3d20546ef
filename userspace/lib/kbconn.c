// SPDX-License-Identifier: GPL-2.0
/*
 * A program's connection to the kbloom module (see kbconn.h): where each
 * request goes.  The generic netlink family for the control plane (the
 * module has no other: uapi/linux/kbloom.h says why), and /dev/kbloom for
 * what is bound to an open file or is bulk data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kbconn.h"

void kbconn_init(struct kbconn *c)
{
	memset(c, 0, sizeof(*c));
	c->dev = -1;
	c->nl = kbnl_open();
}

void kbconn_close(struct kbconn *c)
{
	if (c->dev >= 0)
		close(c->dev);
	if (c->nl)
		kbnl_close(c->nl);
	c->dev = -1;
	c->nl = NULL;
}

/* CAP_NET_ADMIN in our effective set: which of two causes an EACCES is */
static bool kbconn_net_admin(void)
{
	unsigned long long eff = 0;
	char line[128];
	bool found = false;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	if (f)
		fclose(f);
	return eff & (1ULL << 12);	/* CAP_NET_ADMIN */
}

/* the device (fd or -errno), kept open for the bulk paths */
int kbconn_dev(struct kbconn *c)
{
	if (c->dev < 0) {
		c->dev = kbdev_open();
		/* say which: the node's permissions, the capability, the module */
		if (c->dev == -EACCES && kbconn_net_admin())
			snprintf(c->extack, sizeof(c->extack),
				 "cannot open %s: Permission denied (bulk loads, images and transactions need the device: see its mode and group)",
				 KBDEV_PATH);
		else if (c->dev == -EACCES || c->dev == -EPERM)
			snprintf(c->extack, sizeof(c->extack),
				 "cannot open %s: %s", KBDEV_PATH,
				 KBCONN_PRIV_HINT);
		else if (c->dev < 0 && c->nl)
			snprintf(c->extack, sizeof(c->extack),
				 "cannot open %s: %s, although the kbloom module is loaded (no device node: udev?)",
				 KBDEV_PATH, strerror(-c->dev));
		else if (c->dev < 0)
			snprintf(c->extack, sizeof(c->extack),
				 "cannot open %s: the kbloom module is not loaded",
				 KBDEV_PATH);
	}
	return c->dev;
}

/*
 * The control plane without its netlink family: kbnl_open() failed, and
 * the family is registered with the module, so the module is not loaded
 * (or not this one).
 */
int kbconn_no_nl(struct kbconn *c)
{
	snprintf(c->extack, sizeof(c->extack),
		 "the kbloom module is not loaded (no generic netlink family '%s')",
		 KB_GENL_NAME);
	return -EOPNOTSUPP;
}

int kbconn_create(struct kbconn *c, const struct kb_ioc_create *a)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_create(c->nl, a, c->extack, sizeof(c->extack));
	return kbconn_no_nl(c);
}

int kbconn_destroy(struct kbconn *c, const char *name)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_name_cmd(c->nl, KBNL_DESTROY, name, NULL,
				     c->extack, sizeof(c->extack));
	return kbconn_no_nl(c);
}

int kbconn_flush(struct kbconn *c, const char *name)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_name_cmd(c->nl, KBNL_FLUSH, name, NULL,
				     c->extack, sizeof(c->extack));
	return kbconn_no_nl(c);
}

int kbconn_swap(struct kbconn *c, const char *a, const char *b)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_name_cmd(c->nl, KBNL_SWAP, a, b, c->extack,
				     sizeof(c->extack));
	return kbconn_no_nl(c);
}

int kbconn_rename(struct kbconn *c, const char *from, const char *to)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_name_cmd(c->nl, KBNL_RENAME, from, to, c->extack,
				     sizeof(c->extack));
	return kbconn_no_nl(c);
}

int kbconn_info(struct kbconn *c, const char *name, struct kb_ioc_info *i)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_get(c->nl, name, i, c->extack, sizeof(c->extack));
	return kbconn_no_nl(c);
}

int kbconn_list(struct kbconn *c,
	     int (*cb)(const struct kb_ioc_info *i, void *arg), void *arg)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_dump(c->nl, cb, arg, c->extack, sizeof(c->extack));
	return kbconn_no_nl(c);
}

int kbconn_export(struct kbconn *c, const char *name, kbnl_chunk_cb cb,
		  void *arg)
{
	return kbconn_export_slice(c, name, 0, cb, arg, NULL);
}

int kbconn_export_slice(struct kbconn *c, const char *name, u32 slice,
			kbnl_chunk_cb cb, void *arg, u64 *age_ms)
{
	u8 *img;
	u64 len;
	int ret;

	c->extack[0] = 0;
	if (c->nl)
		return kbnl_export_slice(c->nl, name, slice, cb, arg, age_ms,
					 c->extack, sizeof(c->extack));
	ret = kbconn_dev(c);
	if (ret < 0)
		return ret;
	ret = kbdev_export_slice(c->dev, 0, name, slice, &img, &len, age_ms);
	if (ret)
		return ret;
	ret = cb(img, len, 0, len, arg);
	free(img);
	return ret;
}

int kbconn_keys(struct kbconn *c, unsigned long cmd, const char *name,
	     const void *keys, u64 keys_len, u64 count, u64 *result,
	     u64 *processed, u64 *err_index)
{
	c->extack[0] = 0;
	if (c->nl) {
		int op = cmd == KB_IOC_ADD ? 0 : cmd == KB_IOC_TEST ? 1 :
			 cmd == KB_IOC_DEL ? 2 : 3;

		if (err_index)
			*err_index = ~0ULL;
		return kbnl_keys(c->nl, op, name, keys, keys_len, count,
				 result, processed, c->extack,
				 sizeof(c->extack));
	}
	if (kbconn_dev(c) < 0)
		return c->dev;
	return kbdev_keys(c->dev, cmd, 0, name, keys, keys_len, count, result,
			  processed, NULL, err_index);
}
