/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom module internals shared by its files: main.c (init), limits.c,
 * gen.c, registry.c, txn.c (the model), dev.c, netlink*.c, api.c (the
 * transports and the consumer API).
 *
 * Objects:
 *  - struct kb_net: one per network namespace (pernet id kb_net_id): the
 *    name table of its filters, under kb_net.lock (a mutex).
 *  - struct kb_set: a named filter.  Its current generation is an RCU
 *    pointer (readers never lock); every change takes kb_set.lock.
 *    Lifetime: a refcount (the table holds one, every operation in flight,
 *    transaction and consumer holds one); freed after an RCU grace period
 *    when the last reference goes.  'users' counts consumer references
 *    (destroy and rename then fail with EBUSY).
 *  - struct kb_gen: a generation: the core filter (params, seed, prefix
 *    bitmaps, payload).  Only its payload changes after publication (bits
 *    0 -> 1, except counting deletes and flush).  Lifetime: a refcount
 *    (its filter or transaction holds one, every mapping of it by a
 *    filter file another, dev_filter.c); freed after a grace period when
 *    the last goes, so refcount_inc_not_zero() under RCU is safe.  Its
 *    payload stays charged to its namespace's account (limits.c) until it
 *    is freed: a mapping keeps a replaced generation charged.
 *  - struct kb_txn: a rebuild in progress: a staging generation nobody
 *    else sees, published by kb_txn_commit().
 *  - struct kb_exc: a filter's exception set (except.c): immutable, an RCU
 *    pointer of the filter (not of a generation), replaced whole under
 *    kb_set.lock, charged like a payload until freed.
 *
 * Lock order: kb_net.lock -> kb_set.lock; kb_set.merge_lock ->
 * kb_set.lock (merges only).  Every registry function takes
 * validated arguments and an extack (may be NULL), returns 0 or -errno.
 *
 * Namespace exit: kb_net_exit() unlinks every filter and drops the table's
 * references.  A consumer (e.g. an xt_bloom rule of that namespace, whose
 * own pernet exit may run after ours) can still hold a filter: the filter
 * then lives on, unreachable by name, until the consumer's kbloom_put().
 * Consumer references also pin the module.
 */
#ifndef _KB_KMOD_INTERNAL_H
#define _KB_KMOD_INTERNAL_H

#include <linux/types.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/list.h>
#include <linux/netlink.h>
#include <linux/cred.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "kb_core.h"
#include "kb_blocked.h"
#include "compat.h"

/* module parameters (limits.c) */
extern unsigned long long kb_max_filters;
extern unsigned long long kb_max_filter_bytes;
extern unsigned long long kb_max_netns_bytes;
extern unsigned long long kb_max_userns_bytes;
extern unsigned long long kb_max_total_bytes;
extern unsigned int kb_net_id;

/*
 * An account of payload bytes (limits.c): a namespace's, a user's (all the
 * namespaces of the user namespaces one user created) or the module's.
 * Charging one charges every account above it.
 */
enum kb_acct_level {
	KB_ACCT_NETNS,
	KB_ACCT_USER,
	KB_ACCT_TOTAL,
};

struct kb_acct {
	atomic64_t bytes;
	refcount_t ref;
	enum kb_acct_level level;
	struct kb_acct *parent;		/* NULL for the module's */
	kuid_t uid;			/* KB_ACCT_USER */
	struct list_head node;		/* KB_ACCT_USER: the user table */
};

/*
 * The lockless index of a namespace's filters (kfuncs cannot take a
 * mutex): hash chains of names and of ids, changed under kb_net.lock,
 * read under RCU.  A name is an entry of its own, never changed once
 * published: a rename publishes the new name's entry before it unpublishes
 * the old one, so a filter is always reachable under one of them.
 */
#define KB_NET_HASH_BITS	6

struct kb_name {
	struct hlist_node node;		/* kb_net.names */
	struct kb_set *set;
	u32 len;			/* strlen(name) */
	char name[KB_NAME_MAX];		/* zero-padded */
	struct rcu_head rcu;
};

struct kb_net {
	struct mutex lock;		/* sets, nsets, reg_gen, the index */
	struct list_head sets;		/* in creation order, for walks */
	struct hlist_head names[1 << KB_NET_HASH_BITS];	/* kb_name, RCU */
	struct hlist_head ids[1 << KB_NET_HASH_BITS];	/* kb_set, RCU */
	u32 seed;			/* of the name hash */
	u32 nsets;
	u64 reg_gen;			/* bumped by create/destroy/rename/swap */
	struct kb_acct *acct;		/* payload bytes of its generations,
					 * until each is freed
					 */
};

/*
 * How a filter's generation is laid out beyond its params (KB_A_WINDOW_MS,
 * KB_A_SLICES, KB_A_GROW, KB_A_MAX_BYTES, KB_A_MAX_FPR_PPB): given at
 * create and rebuild, kept by a generation (kb_gen.shape) and by every
 * generation a rotation or a growth makes from it.  All zero: a plain
 * filter of one slice, the packet path's cap at its default.
 */
struct kb_shape {
	u64 window_ms;			/* 0: no window */
	u64 max_bytes;			/* grow: bound on all slices */
	u32 slices;			/* window: S (S + 1 slices held) */
	u32 max_fpr_ppb;		/* the packet path's cap, of the
					 * whole filter (kb_shape_check()
					 * resolves its default)
					 */
	u32 prefixes;			/* grow: the sizing's prefix lengths
					 * (KB_A_PREFIXES, 0: 1), for the
					 * slices it adds
					 */
	bool grow;
	/*
	 * grow: max_bytes is the default kb_gen_slices_new() gave it (none
	 * was asked for), not a bound a rebuild with no shape keeps
	 */
	bool max_bytes_default;
	/*
	 * windows and growing filters sized by ITEMS + FPR_PPB: what the
	 * create or the rebuild asked of the whole filter (KB_CMD_GET says
	 * these, not its newest slice's share); 0: another sizing
	 */
	u64 items;
	u32 fpr_ppb;
};

/*
 * A payload shared by the generations that hold it as a slice (slices.c):
 * a rotation or a growth makes a new generation whose older slices are the
 * previous one's, each a reference on its payload, not on the generation
 * (so no generation keeps another alive).  Charged to acct until the last
 * generation holding it is freed (after its grace period and mappings).
 */
struct kb_pl {
	void *payload;
	u64 bytes;
	struct kb_acct *acct;
	refcount_t ref;
};

/*
 * An older slice of a generation: read-only (its filter has no fill
 * tracker; bits may still be set by a packet-path add that raced its
 * retirement, never cleared but by a flush), with the statistics it had
 * when it stopped taking adds.
 */
struct kb_oslice {
	struct kb_filter f;		/* f.payload = pl->payload */
	struct kb_pl *pl;		/* a reference */
	u64 born_ns;			/* boottime it began taking adds */
	u64 count;			/* keys added (slow path) */
	struct kb_stats st;		/* frozen when it was retired */
};

/*
 * The fill changes of a generation's adds from the packet path (learn.c;
 * blocked filters only, else pc is NULL).  Each CPU adds its own into pc
 * (this_cpu ops) and folds them into fold_bits and fold_fpr (atomic,
 * only ever growing) every KB_LEARN_BATCH bits.  Only the writer
 * (kb_set.lock, or an unpublished generation's owner) merges what was
 * folded into kb_gen.fill (kb_learn_sync(), which notes how much in m*
 * and the fill it left in w*) and so sets the limits the packet path
 * compares the folded sums with: fpr_lim for the cap, bits_lim for a
 * growing filter's full slice.  Readers of the statistics add the CPUs'
 * pending deltas (folded on read).  lock: the limits' computation and
 * the fields only it reads (m*, w*, the cached thresholds).
 */
struct kb_learn {
	struct kb_fill_delta __percpu *pc;
	atomic64_t fold_bits;		/* bits folded by the CPUs */
	atomic64_t fold_fpr;		/* FPR sum folded, in units of
					 * 2^KB_LEARN_SHIFT
					 */
	s64 fpr_lim;			/* fold_fpr at the cap (0 until the
					 * first computation)
					 */
	s64 bits_lim;			/* fold_bits at a growing newest
					 * slice's items
					 */
	u32 older;			/* the older slices' FPR the limits
					 * were computed with
					 */
	raw_spinlock_t lock;
	s64 mbits, mfpr;		/* folded sums merged into fill */
	u64 wbits, whi, wlo;		/* fill, as its writer last synced */
	u64 qmax;			/* kb_learn_qmax() of cap, older,
					 * nplens
					 */
	u64 bits_full;
	u32 cap, nplens;
	bool ready;			/* qmax and bits_full computed */
	unsigned long told;		/* bit 0: over-capacity announced */
};

struct kb_gen {
	struct kb_filter f;		/* f.fill = fill once bound */
	struct kb_fill *fill;		/* statistics without a payload scan */
	struct kb_acct *acct;		/* charged f.bytes until freed */
	u64 id;				/* unique, increasing */
	u64 count;			/* keys added (writers only) */
	u64 seq;			/* bumped by every change of the
					 * payload (writers only): netlink
					 * exports check it
					 */
	bool over_told;			/* KB_EVENT_OVER_CAPACITY sent
					 * (writers only; a flush resets)
					 */
	refcount_t ref;			/* owner + mappings (kb_gen_put()) */
	/*
	 * Slices (slices.c): f is the newest, which takes the adds; older[]
	 * the nslices - 1 read-only ones, newest first (NULL for plain
	 * filters: nslices 1).  Tests OR them all.  pl: f's payload once a
	 * later generation holds it as an older slice (it then owns and
	 * frees it), else NULL (g owns f.payload).
	 */
	struct kb_shape shape;
	u32 nslices;
	bool grow_stop;			/* growth refused (max_bytes, caps):
					 * over-capacity from now on
					 */
	u32 older_fpr_ppb;		/* est. FPR of the older slices */
	u64 born_ns;			/* boottime f began taking adds */
	u64 staged_ns;			/* unpublished: the boottime its born
					 * times are as of (published, they
					 * move by the time since); 0 once
					 * published
					 */
	struct kb_oslice *older;
	struct kb_pl *pl;
	/*
	 * The header pages (struct kb_map_hdr) of its mappings, made at the
	 * first mmap, open or MAP_INFO: [0] for read-only files, [1] for
	 * writers (the flags field differs).  Installed, updated and
	 * retired under its filter's kb_set.lock (dev_filter.c); a mapping
	 * holds its own page reference.
	 */
	struct page *hdr[2];
	struct kb_learn learn;		/* the packet path's adds (learn.c) */
	struct rcu_head rcu;
};

struct kb_exc;

struct kb_pcpu {
	u64 lookups;
	u64 hits;
	u64 adds;
	u64 learn_refused;		/* packet-path adds over the cap */
};

/*
 * What a BPF program holding a filter (bpf.c: bpf_kbloom_*get()) may read,
 * embedded in struct kb_set so that acquiring allocates nothing.  Its
 * layout is ABI: userspace/bpf/kbloom.bpf.h declares the same struct.
 */
struct kbloom_bpf_ref {
	u64 id;				/* kb_set.id */
	u32 key_type;			/* never changes */
	u32 kind;			/* of the current generation */
	/*
	 * Always NULL.  A struct of scalars only would let the verifier
	 * accept a pointer to a program's own memory in place of a ref;
	 * a pointer member makes it accept only the ref a get returned.
	 */
	const void *reserved;
};

struct kb_set {
	struct list_head node;		/* kb_net.sets */
	struct kb_name __rcu *nm;	/* its name: changed under
					 * kb_net.lock, read under RCU
					 */
	struct hlist_node id_node;	/* kb_net.ids */
	u64 id;				/* unique in the module, never
					 * reused while it is loaded:
					 * holders that must not pin the
					 * filter (dumps, transactions,
					 * BPF programs) re-find it by id
					 */
	u32 key_type;			/* never changes */
	bool dead;			/* unlinked: written under kb_set.lock,
					 * read locklessly by TEST (READ_ONCE)
					 */
	struct kb_gen __rcu *gen;
	struct kb_exc __rcu *exc;	/* exceptions (except.c), NULL:
					 * none; the filter's, not a
					 * generation's: changed under
					 * kb_set.lock, read under RCU
					 */
	struct mutex lock;		/* serializes changes */
	/*
	 * KB_IOC_MERGE's guard and ORs (dev_merge.c), so that two merges are
	 * guarded one after the other's bits: taken by merges only, after
	 * their copy-in, never across a user copy; lookups, adds and the
	 * in-kernel consumers never wait for it
	 */
	struct mutex merge_lock;
	refcount_t ref;
	atomic_t users;			/* consumer references */
	unsigned long over;		/* bit 0: over capacity announced,
					 * once per filter until its slices
					 * are all back within capacity
					 * (kb_set_over_once())
					 */
	struct kb_pcpu __percpu *stats;
	kgid_t readers;			/* grants (KB_A_READERS, _WRITERS):
					 * INVALID_GID: none; written under
					 * kb_set.lock, read with READ_ONCE
					 */
	kgid_t writers;
	struct kbloom_bpf_ref bpf;	/* id, key_type: set at insert; kind:
					 * WRITE_ONCE with every generation
					 * published
					 */
	wait_queue_head_t wq;		/* filter files' poll(): woken when
					 * the generation is replaced,
					 * flushed or the filter destroyed
					 */
	/*
	 * slices_next.c: a window's rotation, a work queued by an hrtimer
	 * on CLOCK_BOOTTIME (rotate_at: suspend counts), neither holding a
	 * reference on s; a growing filter's growth, holding one while
	 * queued.  All cancelled when s is unlinked (kb_slices_stop(),
	 * before the table's reference goes), so that they never run with
	 * net or s gone.  net: s's namespace, no reference (valid while s is
	 * linked).
	 */
	struct net *net;
	struct hrtimer rotate_at;
	struct work_struct rotate;
	struct work_struct grow;
	/*
	 * learn.c's work (what the packet path cannot do: netlink events,
	 * mapping headers): learn_todo's bits say what, learn_net (a
	 * reference) where.
	 */
	unsigned long learn_todo;
	struct net *learn_net;
	struct work_struct learn_work;
	struct rcu_head rcu;
};

/* What a create or a rebuild asks for (both transports). */
struct kb_spec {
	u32 kind;
	u32 key_type;
	u32 hash;
	u32 sizing;			/* enum kb_ioc_sizing */
	u64 items;
	u32 fpr_ppb;
	u32 bits_per_key;
	u64 m;
	u32 k;
	u32 prefixes;			/* net types' lookups, 0: 1 */
	bool has_seed;
	u64 seed[2];
};

struct kb_info {
	struct kb_params p;
	struct kb_stats st;
	u64 count;
	u64 lookups;
	u64 hits;
	u64 adds;
	u64 learn_refused;
	u32 max_fpr_ppb;		/* the cap in force (default resolved) */
	u64 gen_id;
	u64 set_id;
	u32 refs;
	u32 exceptions;
	kgid_t readers;			/* the grants, INVALID_GID: none */
	kgid_t writers;
};

/*
 * A change of a filter's grants (KB_CMD_GRANT, KB_CMD_CREATE): only the
 * groups flagged are set; INVALID_GID clears one.
 */
struct kb_grant {
	bool set_readers;
	bool set_writers;
	kgid_t readers;
	kgid_t writers;
};

enum kb_op {
	KB_OP_ADD,
	KB_OP_TEST,
	KB_OP_DEL,
	KB_OP_TEST_ADD,
};

struct kb_txn {
	struct net *net;
	u64 set_id;			/* kb_set.id, 0: create at commit;
					 * no reference: an open transaction
					 * must not pin a destroyed filter
					 */
	char name[KB_NAME_MAX];
	struct kb_gen *gen;
	u8 fill;			/* enum kb_txn_fill */
};

/*
 * How a transaction's staging generation is filled: by key batches or an
 * uploaded image (a bound, counted filter), or by raw payload bytes
 * (KB_IOC_TXN_WRITE: checked, byte-swapped where needed and counted only at
 * commit).  One or the other: a raw write into a bound payload would skip
 * the commit's checks, a key into a raw one would be lost by its swap.
 */
enum kb_txn_fill {
	KB_TXN_EMPTY,
	KB_TXN_KEYS,
	KB_TXN_RAW,
};

static inline struct kb_net *kb_net(const struct net *net)
{
	return net_generic(net, kb_net_id);
}

/* limits.c */
void kb_limits_init(void);
struct kb_acct *kb_acct_netns_new(const struct net *net);
struct kb_acct *kb_acct_get(struct kb_acct *a);
void kb_acct_put(struct kb_acct *a);
int kb_acct_charge(struct kb_acct *a, u64 bytes,
		   struct netlink_ext_ack *extack);
void kb_acct_uncharge(struct kb_acct *a, u64 bytes);

/* gen.c */
int kb_spec_unused(const struct kb_spec *s, struct netlink_ext_ack *extack);
int kb_params_from_spec(struct kb_params *p, const struct kb_spec *s,
			struct netlink_ext_ack *extack);
/* sh: the shape (NULL: a plain filter of one slice) */
struct kb_gen *kb_gen_new(struct net *net, const struct kb_params *p,
			  const struct kb_shape *sh, bool clear,
			  struct netlink_ext_ack *extack);
struct kb_gen *kb_gen_alloc(struct kb_acct *acct, const struct kb_params *p,
			    const struct kb_shape *sh, bool clear,
			    struct netlink_ext_ack *extack);
/* a zeroed payload for an older slice, charged to acct */
struct kb_pl *kb_pl_new(struct kb_acct *acct, u64 bytes,
			struct netlink_ext_ack *extack);
void kb_pl_put(struct kb_pl *pl);
void kb_gen_fill(struct kb_gen *g);
/* writers: g just went over its capacity (true once until a flush) */
bool kb_gen_over(struct kb_gen *g);
/* an unpublished g's saturation guard: 0, or -EDOM and KB_EVENT_REFUSED */
int kb_gen_guard(struct net *net, struct kb_gen *g, const char *name,
		 u32 max_fpr_ppb, struct netlink_ext_ack *extack);
int kb_gen_keys(struct kb_gen *g, enum kb_op op, const struct kb_key *keys,
		u32 n, u64 *bitmap, u32 *bad, struct netlink_ext_ack *extack);
/* drop a reference (the owner's: discard); the last frees after a GP */
void kb_gen_put(struct kb_gen *g);
void kb_gen_put_rcu(struct kb_gen *g);
void kb_gen_discard(struct kb_gen *g);
/* a flush: g (cleared in place) takes a new id, as a new generation would */
void kb_gen_renew(struct kb_gen *g);

/* registry.c; registry_index.c (lookups, rename) */
int kb_net_init(struct net *net);
void kb_net_exit(struct net *net);
bool kb_name_ok(const char *name, struct netlink_ext_ack *extack);
struct kb_set *kb_set_find(struct net *net, const char *name, bool user);
struct kb_set *kb_set_find_id(struct net *net, u64 id);
/*
 * Lockless lookups (in an RCU read-side section of any flavour): the
 * filter of that name or id, or NULL; never sleep.  The filter stays
 * valid until the section ends; kb_set_get_rcu() takes a reference on it
 * (NULL if it is being destroyed).
 */
struct kb_set *kb_set_find_rcu(struct net *net, const char *name);
struct kb_set *kb_set_find_len_rcu(struct net *net, const char *name, u32 len);
struct kb_set *kb_set_find_id_rcu(struct net *net, u64 id);
struct kb_set *kb_set_get_rcu(struct kb_set *s);
/* the filter's current name into buf (KB_NAME_MAX bytes) */
void kb_set_name(struct kb_set *s, char *buf);
void kb_set_put(struct kb_set *s);
/*
 * Whether cred (of the opener of /dev/kbloom) may open s by its grant:
 * for reading (a member of its readers or writers group) or, write, for
 * writing (of its writers group).  CAP_NET_ADMIN is the caller's check.
 */
bool kb_set_granted(struct kb_set *s, const struct cred *cred, bool write);
/*
 * *over (may be NULL) is set true when this add took the filter over its
 * capacity (kb_gen_over()): the caller, who knows net and the name it
 * asked for, announces KB_EVENT_OVER_CAPACITY
 */
int kb_set_keys(struct kb_set *s, enum kb_op op, const struct kb_key *keys,
		u32 n, u64 *bitmap, u32 *bad, bool *over,
		struct netlink_ext_ack *extack);
int kb_set_info(struct kb_set *s, struct kb_info *info);
/*
 * for txn.c: insert under kb_net.lock (with the grants of gr, NULL:
 * none); publish a generation in s
 */
int kb_set_insert(struct net *net, const char *name, struct kb_gen *g,
		  const struct kb_grant *gr, struct netlink_ext_ack *extack);
int kb_set_replace(struct net *net, struct kb_set *s, struct kb_gen *g,
		   struct netlink_ext_ack *extack);
int kb_reg_create(struct net *net, const char *name,
		  const struct kb_params *p, const struct kb_shape *sh,
		  const struct kb_grant *gr, struct netlink_ext_ack *extack);
/* set the groups gr flags; event KB_EVENT_GRANTED */
int kb_reg_grant(struct net *net, const char *name, const struct kb_grant *gr,
		 struct netlink_ext_ack *extack);
int kb_reg_upload(struct net *net, const char *name, struct kb_gen *g,
		  bool create, struct netlink_ext_ack *extack);
int kb_reg_destroy(struct net *net, const char *name,
		   struct netlink_ext_ack *extack);
int kb_reg_flush(struct net *net, const char *name,
		 struct netlink_ext_ack *extack);
int kb_reg_swap(struct net *net, const char *a, const char *b,
		struct netlink_ext_ack *extack);
int kb_reg_rename(struct net *net, const char *from, const char *to,
		  struct netlink_ext_ack *extack);
/*
 * A registry event: logged (info, over-capacity a warning; rate-limited;
 * with the netns's inode number) and sent to the "events" group
 * (kb_nl_notify()).  Called without registry locks.
 */
void kb_reg_announce(struct net *net, enum kb_nl_event ev, const char *name,
		     const char *name2);

/*
 * Walk the filters of net from position *pos (0 = first): fn(s, name, arg)
 * for each, called WITHOUT kb_net.lock (references and names are taken
 * under it a batch at a time, so that nothing per filter runs under the
 * lock every lookup by name needs); name is the filter's name when it was
 * taken.  fn may sleep and call kb_set_info().  fn returning nonzero stops
 * the walk before that filter (*pos names it: the next walk resumes there)
 * and is returned.  *reg_gen = the namespace's kb_net.reg_gen at the last
 * batch (changes when filters come, go, are renamed or swapped: a dump's
 * consistency check).  Returns 0 at the end, -EINTR if killed.
 */
int kb_reg_walk(struct net *net, unsigned long *pos, u64 *reg_gen,
		int (*fn)(struct kb_set *s, const char *name, void *arg),
		void *arg);

/* txn.c */
struct kb_txn *kb_txn_begin(struct net *net, const char *name,
			    const struct kb_params *p, const struct kb_shape *sh,
			    struct netlink_ext_ack *extack);
int kb_txn_set_gen(struct kb_txn *t, struct kb_gen *g,
		   struct netlink_ext_ack *extack);
int kb_txn_use(struct kb_txn *t, enum kb_txn_fill how);
int kb_txn_write(struct kb_txn *t, u64 off, const void *buf, u64 len);
/*
 * max_fpr_ppb: the saturation guard (kb_gen_guard(), 0: none); *gen_id:
 * the id of the generation published (set when it succeeds)
 */
int kb_txn_commit(struct kb_txn *t, u32 max_fpr_ppb, u64 *gen_id,
		  struct netlink_ext_ack *extack);
void kb_txn_abort(struct kb_txn *t);

/*
 * Registry events (netlink.c): announced to the "events" multicast group
 * of net's family.  name2: the second name for swap (the other filter)
 * and rename (the new name), else NULL.  Called without registry locks.
 */
void kb_nl_notify(struct net *net, enum kb_nl_event ev, const char *name,
		  const char *name2);

/*
 * api.c: one lookup of a key in s (RCU held), counted in its statistics;
 * an address: kb_set_test_addr() (lookup.h)
 */
bool kb_set_test_rcu(struct kb_set *s, const void *key, u32 len);

/*
 * learn.c: adds from the packet path (the BLOOM target, the add kfuncs),
 * in an RCU read-side section of any flavour; they never sleep.  Return 1
 * (added: the key tested absent), 0 (it may be present: nothing done,
 * unless flags has KBLOOM_ADD_REFRESH), -ENOSPC (over the cap), -EOPNOTSUPP
 * (not blocked), -ENOENT (destroyed), -EINVAL (bad key, or an address
 * the filter's key type does not take).  Events go to the filter's netns.
 * kb_set_learn_addr(): an address (AF_INET: 4 bytes, AF_INET6: 16), for
 * net key types its prefix of length plen.
 */
int kb_set_learn_key(struct kb_set *s, const void *key, u32 len, u32 flags);
int kb_set_learn_addr(struct kb_set *s, int family, const void *addr,
		      u32 plen, u32 flags);
/* a generation's state (gen.c: kb_gen_new(), its release) */
int kb_learn_gen_init(struct kb_gen *g);
void kb_learn_gen_free(struct kb_gen *g);
/* writers: merge the packet path's folded fill into g->fill, re-estimate */
void kb_learn_sync(struct kb_gen *g);
/* a flush cleared g in place: forget its deltas (writers) */
void kb_learn_reset(struct kb_gen *g);
/* into a copy of g's fill: the deltas of every CPU not folded yet */
void kb_learn_fill_read(struct kb_gen *g, struct kb_fill *fill);
/*
 * The cap of g in force: its shape's (resolved at create and rebuild by
 * kb_shape_check()), else (a filter an upload made) the default for its
 * FPR; kb_learn_default_cap(): twice fpr_ppb, or 1% without one.
 */
u32 kb_learn_cap(const struct kb_gen *g);
u32 kb_learn_default_cap(u32 fpr_ppb);
void kb_learn_set_init(struct kb_set *s);
int kb_learn_init(void);
void kb_learn_exit(void);

/*
 * except.c: a filter's exception set.  kb_exc_addr(), kb_exc_key(): the
 * address or key (encoded for key_type) is excepted (answer absent);
 * out of line, called only after the filter said maybe (RCU held).
 */
bool kb_exc_addr(const struct kb_exc *e, u32 key_type, int family,
		 const void *addr);
bool kb_exc_key(const struct kb_exc *e, u32 key_type, const void *key,
		u32 len);
/* clear the bits of excepted keys in a test's bitmap; returns how many */
u32 kb_exc_test_keys(struct kb_set *s, const struct kb_key *keys, u32 n,
		     u64 *bitmap);
u32 kb_exc_count(struct kb_set *s);
int kb_exc_change(struct net *net, struct kb_set *s, bool add,
		  const struct kb_key *keys, u32 n, bool exist, u32 *bad,
		  struct netlink_ext_ack *extack);
int kb_exc_flush(struct kb_set *s, struct netlink_ext_ack *extack);
int kb_exc_walk(struct kb_set *s, u32 *pos, u64 *ver,
		int (*fn)(const void *key, u32 len, void *arg), void *arg);
void kb_exc_release(struct kb_exc *e);

/*
 * slices.c: windows and growing filters, a layer over the kinds.
 *
 * kb_shape_check(): whether sh fits sp (windows and growth: blocked
 * filters; not both; growth sized by items + FPR), else -EINVAL with an
 * extack, *attr = the attribute to blame; then adjusts sp so that each
 * slice is sized as the shape says (window: items / S at fpr / (S + 1);
 * grow: the first at fpr / 2).
 */
int kb_shape_check(struct kb_shape *sh, struct kb_spec *sp, int *attr,
		   struct netlink_ext_ack *extack);
/* g is a window or a growing filter (held as slices) */
static inline bool kb_gen_sliced(const struct kb_gen *g)
{
	return g->shape.window_ms || g->shape.grow;
}

/* the same of s's current generation (any context but hard irq) */
bool kb_set_sliced(struct kb_set *s);
/*
 * TXN_BEGIN VER0 (no shape fields) of filter name: its window or growth
 * and a growing filter's max_bytes, if one was asked for (a default one
 * is the new sizing's), into sh (the cap stays at its default), if it
 * exists
 */
void kb_shape_keep(struct net *net, const char *name, struct kb_shape *sh);
/* g's older slices for its shape (kb_gen_alloc()), and their release */
int kb_gen_slices_new(struct kb_gen *g, struct netlink_ext_ack *extack);
void kb_gen_slices_free(struct kb_gen *g);
/* slice i of g (0: the newest, g->f) */
const struct kb_filter *kb_gen_slice(const struct kb_gen *g, u32 i);
/*
 * For the packet path (RCU held): the older slices' answer for a key
 * (kb_filter_test()) or an address (lookup.h's kb_filter_test_addr());
 * the older slices' frozen estimated FPR (ppb, 0: none)
 */
/* g's newest slice as the next generation's older slice o (writer) */
int kb_oslice_freeze(struct kb_gen *g, struct kb_oslice *o);
bool kb_gen_test_older(const struct kb_gen *g, const void *key, u32 len);
bool kb_gen_test_older_addr(const struct kb_gen *g, int family,
			    const void *addr);
u32 kb_gen_older_fpr_ppb(const struct kb_gen *g);
/* OR the older slices into a TEST batch's answers; returns hits added */
u32 kb_gen_test_older_many(const struct kb_gen *g, const struct kb_key *keys,
			   u32 n, u64 *bitmap);
/*
 * Whether to announce KB_EVENT_OVER_CAPACITY of s now: once per filter,
 * not per generation (a window's rotations would repeat it every period
 * under a flood); again after new contents (a rebuild, a flush) or a
 * rotation that leaves no slice over capacity.  Any context.
 */
bool kb_set_over_once(struct kb_set *s);
/* a growing filter's newest slice may be full: grow (any context) */
void kb_set_grow_kick(struct kb_set *s);
/*
 * kb_set_keys() of adds on a sliced generation (s->lock held): keys that
 * fill the newest slice make it grow on the spot
 */
int kb_slices_keys(struct kb_set *s, enum kb_op op, const struct kb_key *keys,
		   u32 n, u64 *bitmap, u32 *bad, struct netlink_ext_ack *extack);
/*
 * Adds into a transaction's staging generation g (its file's lock held)
 * from key *i on, with the answers of kb_slices_keys() (new keys count in
 * *new across calls).  A growing g grows as a live one does: when a key
 * fills its newest slice, the call returns with *i past it and *full = g
 * (a reference); the caller drops its lock, makes the next generation
 * with kb_slices_staged_prep(full) (an allocation: no lock held), takes
 * the lock again and hands it to kb_slices_staged_grow() with the
 * transaction it finds then (NULL: none), which links it if that still
 * stages full, puts full, and goes on adding.  Other generations and ops:
 * kb_gen_keys() on them all.
 */
int kb_slices_staged_keys(struct kb_gen *g, enum kb_op op,
			  const struct kb_key *keys, u32 n, u32 *i,
			  u64 *bitmap, u32 *new, u32 *bad,
			  struct kb_gen **full);
struct kb_gen *kb_slices_staged_prep(struct kb_gen *old);
void kb_slices_staged_grow(struct kb_txn *t, struct kb_gen *old,
			   struct kb_gen *g);
/* s's generation was published (s->lock held): arm its rotation */
void kb_slices_arm(struct kb_set *s);
/* s is unlinked (dead): cancel its work, no lock held that it takes */
void kb_slices_stop(struct kb_set *s);
void kb_slices_init_set(struct kb_set *s, struct net *net);
/* a flush: clear every slice of g (s->lock held) */
void kb_slices_flush(struct kb_gen *g);
/* a consistent snapshot of s's slices for KB_CMD_GET (netlink_slices.c) */
struct kb_slice_info {
	u64 age_ms;
	u64 m;
	u64 items;
	u64 bytes;
	u64 bits_set;
	u32 k;
	u32 fpr_ppb;
	u32 est_fpr_ppb;
};

struct kb_slices_info {
	struct kb_shape shape;
	u32 nslices;
	u64 max_bytes;			/* grow: the bound in force */
	u64 next_rotation_ms;		/* window */
	struct kb_slice_info sl[KB_SLICES_MAX];
};

int kb_set_slices_info(struct kb_set *s, struct kb_slices_info *si);
int kb_slices_init(void);
void kb_slices_exit(void);

/* bpf.c: registers the kfuncs, or says why not; never fails */
void kb_bpf_init(void);

/* netlink.c */
int kb_nl_init(void);
void kb_nl_exit(void);

/* dev.c */
int kb_dev_init(void);
void kb_dev_exit(void);

/*
 * dev_filter.c: the header pages of mapped generations, all with the
 * filter's kb_set.lock held.  kb_map_retire(): g stops being s's current
 * generation (KB_MAP_REPLACED: its header pages are detached, later
 * mappings get new ones) or s is destroyed (KB_MAP_DESTROYED); the caller
 * wakes s->wq after unlocking (kb_map_wake()).  kb_map_sync(): g's
 * prefix lengths or s's exceptions changed.
 */
void kb_map_retire(struct kb_gen *g, u32 state);
void kb_map_sync(struct kb_set *s, struct kb_gen *g);
void kb_map_wake(struct kb_set *s);
void kb_map_release(struct kb_gen *g);

#endif /* _KB_KMOD_INTERNAL_H */
