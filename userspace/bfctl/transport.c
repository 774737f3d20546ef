// SPDX-License-Identifier: GPL-2.0
/*
 * Where the kernel verbs' requests go: the generic netlink family for the
 * control plane when it is there (its errors carry extack messages), and
 * /dev/kbloom for bulk work and as the fallback for everything else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bfctl.h"
#include "kbnl.h"

void bfc_init(struct bfctl_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->dev = -1;
	/* BFCTL_TRANSPORT=ioctl forces the device (tests compare both) */
	if (!getenv("BFCTL_TRANSPORT") ||
	    strcmp(getenv("BFCTL_TRANSPORT"), "ioctl"))
		c->nl = kbnl_open();
}

void bfc_close(struct bfctl_conn *c)
{
	if (c->dev >= 0)
		close(c->dev);
	if (c->nl)
		kbnl_close(c->nl);
	c->dev = -1;
	c->nl = NULL;
}

/* the device (fd or -errno), kept open for the bulk and fallback paths */
int bfc_dev(struct bfctl_conn *c)
{
	if (c->dev < 0) {
		c->dev = kbdev_open();
		if (c->dev == -EACCES || c->dev == -EPERM)
			snprintf(c->extack, sizeof(c->extack),
				 "cannot open %s: %s", KBDEV_PATH,
				 BFCTL_PRIV_HINT);
		else if (c->dev < 0)
			snprintf(c->extack, sizeof(c->extack),
				 "cannot open %s (is the kbloom module loaded?)",
				 KBDEV_PATH);
	}
	return c->dev;
}


int bfc_create(struct bfctl_conn *c, const struct kb_ioc_create *a)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_create(c->nl, a, c->extack, sizeof(c->extack));
	return bfc_dev(c) < 0 ? c->dev : kbdev_create(c->dev, a);
}

int bfc_destroy(struct bfctl_conn *c, const char *name)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_name_cmd(c->nl, KBNL_DESTROY, name, NULL,
				     c->extack, sizeof(c->extack));
	return bfc_dev(c) < 0 ? c->dev : kbdev_destroy(c->dev, name);
}

int bfc_flush(struct bfctl_conn *c, const char *name)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_name_cmd(c->nl, KBNL_FLUSH, name, NULL,
				     c->extack, sizeof(c->extack));
	return bfc_dev(c) < 0 ? c->dev : kbdev_flush(c->dev, name);
}

int bfc_swap(struct bfctl_conn *c, const char *a, const char *b)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_name_cmd(c->nl, KBNL_SWAP, a, b, c->extack,
				     sizeof(c->extack));
	return bfc_dev(c) < 0 ? c->dev : kbdev_swap(c->dev, a, b);
}

int bfc_rename(struct bfctl_conn *c, const char *from, const char *to)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_name_cmd(c->nl, KBNL_RENAME, from, to, c->extack,
				     sizeof(c->extack));
	return bfc_dev(c) < 0 ? c->dev : kbdev_rename(c->dev, from, to);
}

int bfc_info(struct bfctl_conn *c, const char *name, struct kb_ioc_info *i)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_get(c->nl, name, i, c->extack, sizeof(c->extack));
	return bfc_dev(c) < 0 ? c->dev : kbdev_info(c->dev, name, i);
}

int bfc_list(struct bfctl_conn *c,
	     int (*cb)(const struct kb_ioc_info *i, void *arg), void *arg)
{
	c->extack[0] = 0;
	if (c->nl)
		return kbnl_dump(c->nl, cb, arg, c->extack, sizeof(c->extack));
	/* /dev/kbloom has no way to enumerate filters */
	snprintf(c->extack, sizeof(c->extack), "%s",
		 access("/sys/module/kbloom", F_OK) ?
		 "the kbloom module is not loaded" :
		 "listing all filters needs the kbloom netlink family");
	return -EOPNOTSUPP;
}

int bfc_keys(struct bfctl_conn *c, unsigned long cmd, const char *name,
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
	if (bfc_dev(c) < 0)
		return c->dev;
	return kbdev_keys(c->dev, cmd, 0, name, keys, keys_len, count, result,
			  processed, NULL, err_index);
}

int bfc_fail(struct bfctl_conn *c, const char *what, int err)
{
	if (err < 0)
		err = -err;
	if (c && c->extack[0])
		fprintf(stderr, "bfctl: %s: %s: %s\n", what, strerror(err),
			c->extack);
	else if (err == EPERM)	/* every request, reads included */
		fprintf(stderr, "bfctl: %s: %s: %s\n", what, strerror(err),
			BFCTL_PRIV_HINT);
	else
		fprintf(stderr, "bfctl: %s: %s\n", what, strerror(err));
	return BFCTL_ERR;
}
