/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The client of the kbloom generic netlink family (libnl-genl-3).
 * Every call returns 0 or -errno and copies the kernel's extack message,
 * if any, into ext.
 */
#ifndef _KBNL_H
#define _KBNL_H

#include "kbuser.h"

struct kbnl;

/* NULL if the family is not registered (module without netlink) */
struct kbnl *kbnl_open(void);
void kbnl_close(struct kbnl *nl);

enum kbnl_name_cmd { KBNL_DESTROY, KBNL_FLUSH, KBNL_SWAP, KBNL_RENAME };

int kbnl_create(struct kbnl *nl, const struct kb_ioc_create *a, char *ext,
		size_t extlen);
/*
 * Grants (uapi "Privileges"): gids as the netns's user namespace sees
 * them, KB_GID_NONE: no group.  create_grant: a create that sets the
 * groups not NULL; grant: set those not NULL; grants: the filter's
 * (KB_GID_NONE where none)
 */
int kbnl_create_grant(struct kbnl *nl, const struct kb_ioc_create *a,
		      const u32 *readers, const u32 *writers, char *ext,
		      size_t extlen);
int kbnl_grant(struct kbnl *nl, const char *name, const u32 *readers,
	       const u32 *writers, char *ext, size_t extlen);
int kbnl_grants(struct kbnl *nl, const char *name, u32 *readers, u32 *writers);
/* name2 for swap and rename */
int kbnl_name_cmd(struct kbnl *nl, enum kbnl_name_cmd cmd, const char *name,
		  const char *name2, char *ext, size_t extlen);
int kbnl_get(struct kbnl *nl, const char *name, struct kb_ioc_info *i,
	     char *ext, size_t extlen);
int kbnl_dump(struct kbnl *nl,
	      int (*cb)(const struct kb_ioc_info *i, void *arg), void *arg,
	      char *ext, size_t extlen);

/*
 * KB_CMD_EXPORT: the image of name, chunk by chunk as the dump brings
 * them: cb gets each chunk's bytes, its offset in the image (in order,
 * contiguous) and the image's length; its nonzero return (-errno) stops
 * the export.  -EAGAIN: the filter changed during the dump (retry; what
 * cb got is void); -EIO: the chunks did not cover the image.
 */
typedef int (*kbnl_chunk_cb)(const void *data, u64 len, u64 off, u64 total,
			     void *arg);
int kbnl_export(struct kbnl *nl, const char *name, kbnl_chunk_cb cb,
		void *arg, char *ext, size_t extlen);
/* slice n (1 = the newest) of a window or growing filter, and its age */
int kbnl_export_slice(struct kbnl *nl, const char *name, u32 slice,
		      kbnl_chunk_cb cb, void *arg, u64 *age_ms, char *ext,
		      size_t extlen);

/*
 * Key batches over netlink (small: up to KB_NL_KEYS_MAX keys a message).
 * op: 0 add, 1 test, 2 del, 3 test-and-add.  keys as kbdev_keys();
 * result: bitmap of DIV_ROUND_UP(count, 64) words or NULL.
 */
int kbnl_keys(struct kbnl *nl, int op, const char *name, const void *keys,
	      u64 keys_len, u64 count, u64 *result, u64 *processed, char *ext,
	      size_t extlen);

/*
 * A filter's exception set (uapi section 4): add (add) or remove keys as
 * kbnl_keys() sends them, KB_NL_KEYS_MAX a message (so a request of more
 * is several, each atomic); exist: no error for keys already (not)
 * excepted.  list: every key, malloc()ed into *keys as u16 length + bytes.
 */
int kbnl_except(struct kbnl *nl, bool add, bool exist, const char *name,
		const void *keys, u64 keys_len, u64 count, u64 *processed,
		char *ext, size_t extlen);
int kbnl_except_flush(struct kbnl *nl, const char *name, char *ext,
		      size_t extlen);
int kbnl_except_list(struct kbnl *nl, const char *name, u8 **keys,
		     u64 *keys_len, u64 *count, char *ext, size_t extlen);
int kbnl_except_count(struct kbnl *nl, const char *name, u32 *n);

/*
 * Events: subscribe to the events group and call cb for each until it
 * returns nonzero or an error occurs.  what: "created", "destroyed", ...
 */
struct kbnl_event {
	const char *what;
	char name[KB_NAME_MAX];
	char name2[KB_NAME_MAX];	/* swap, rename: the other name */
};
int kbnl_monitor(struct kbnl *nl,
		 int (*cb)(const struct kbnl_event *e, void *arg), void *arg,
		 char *ext, size_t extlen);

#endif /* _KBNL_H */
