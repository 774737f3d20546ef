/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom registry: what registry.c and registry_index.c share (kb_net.lock
 * and the index, internal.h).
 */
#ifndef _KB_REGISTRY_H
#define _KB_REGISTRY_H

#include "internal.h"

/* the index chain of name[0..len) in kn */
struct hlist_head *kb_name_chain(struct kb_net *kn, const char *name, u32 len);
/* a new index entry for name (NUL-terminated) naming s; NULL: no memory */
struct kb_name *kb_name_new(struct kb_set *s, const char *name);
/* the filter named name in kn, or NULL; kn->lock held */
struct kb_set *kb_set_lookup(struct kb_net *kn, const char *name);

#endif
