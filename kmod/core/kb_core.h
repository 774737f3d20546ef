/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom filter core: public API.
 *
 * THIS HEADER IS THE CONTRACT between the core (kmod/core) and its users: the
 * kernel module, bfctl, the native tests and the benchmark.  Extend it; a
 * change to an existing declaration updates every user in one commit.
 *
 * The core compiles unchanged into the kernel module and into userspace
 * (libkbcore.a).  It has no locks, no allocation and no floating point:
 *  - the caller allocates the payload (kb_params_payload_bytes() bytes,
 *    8-byte aligned, 64-byte aligned recommended) and the struct kb_filter;
 *  - writers (add, del, clear, test_and_add, attach) must be serialized by
 *    the caller; readers (test, stats, image write) are lockless and may run
 *    concurrently with the one writer.  Every store to the bitset is a
 *    whole-word KB_WRITE_ONCE of (old | new bits) and every load a
 *    KB_READ_ONCE, so a concurrent reader never sees a set bit go back to 0
 *    (except through counting deletes and kb_filter_clear()).
 *
 * Kinds: each lives in its own kb_<name>.c (its hot path's inline half,
 * if any, in kb_<name>.h), with its direct-call functions and its struct
 * kb_kind_ops (cold operations and geometry).  KB_KINDS(), the kind
 * table below, names every kind once; the compiler checks it against the
 * ABI and it generates the rest (prototypes, dispatch, ops table, names),
 * so a new kind is its file and one line there (HACKING.md).
 *
 * Errors are negative errno values:
 *   -EINVAL      nonsense parameters (unknown kind/hash/key type, p outside
 *                (0, 1), n = 0 with p, k out of range, m = 0 or not a
 *                multiple of the kind's granule, hash not valid for kind,
 *                malformed key, malformed image)
 *   -E2BIG       the size the parameters ask for is over the caller's
 *                maximum (max_bytes) or over the core's hard limit
 *   -ERANGE      the sizing cannot meet p within the core's limits (e.g. a
 *                blocked filter cannot reach p with k <= KB_K_MAX)
 *   -EOPNOTSUPP  operation not supported by the kind (delete on non-counting)
 *   -ENOENT      counting delete of a key that tests absent (nothing changed)
 *   -EBADMSG     image CRC mismatch
 */
#ifndef _KB_CORE_H
#define _KB_CORE_H

#include "kb_platform.h"
#include <linux/kbloom.h>

/* ---- limits and geometry ---------------------------------------------- */

#define KB_BLOCK_BYTES		64	/* blocked/counting block (cache line) */
#define KB_BLOCK_BITS		512	/* bits per blocked block */
#define KB_CBLOCK_COUNTERS	128	/* 4-bit counters per counting block */
#define KB_COUNTER_MAX		15	/* saturated counter value */
#define KB_K_MAX		32	/* blocked/counting: k in 1..KB_K_MAX */
#define KB_CLASSIC_K_MAX	30	/* classic: k in 1..30 (LevelDB) */
#define KB_BPK_MAX		1000	/* bits (counters) per key 1..1000 */
#define KB_M_MAX		(1ULL << 38)	/* hard limit on m (bits/counters) */
#define KB_CLASSIC_SEED		0xbc9f1d34U	/* LevelDB's bloom hash seed */
#define KB_BATCH_DEPTH		16	/* keys in flight in batched ops */

/* ---- keys and names ----------------------------------------------------- */

/* One key of a batch.  data/len follow the filter's key type encoding. */
struct kb_key {
	const void *data;
	u32 len;
};

/*
 * Filter parameters: everything that defines a filter except its payload.
 * Fill with kb_params_init() and one of the kb_params_from_*() sizers, or
 * from an image (kb_image_parse_header()).
 */
struct kb_params {
	u32 kind;		/* enum kb_kind */
	u32 hash;		/* enum kb_hash */
	u32 key_type;		/* enum kb_key_type */
	u32 k;			/* probes per key */
	u64 m;			/* bits (blocked, classic) or counters */
	u64 items;		/* configured capacity n, 0 = not given */
	u32 fpr_ppb;		/* configured target FPR (ppb), 0 = not given */
	u32 flags;		/* reserved, zero */
	u64 seed[2];		/* xxh64: seed[0]; siphash: k0, k1 */
	u64 plen4;		/* net key types: IPv4 prefix lengths held */
	u64 plen6[3];		/* net key types: IPv6 prefix lengths held */
};

/* true if name[0..len) is a valid filter name (1..31 of [A-Za-z0-9_.:-]) */
bool kb_name_valid(const char *name, u32 len);

/* the net key types: an address and a prefix length */
static KB_ALWAYS_INLINE bool kb_key_type_is_net(u32 key_type)
{
	return key_type == KB_KEY_NET4 || key_type == KB_KEY_NET6 ||
	       key_type == KB_KEY_NET;
}

/* an address of alen bytes, then a prefix length byte, host bits zero */
int kb_key_net_valid(const u8 *d, u32 alen);

/*
 * 0 if data/len is a valid encoding for key_type, else -EINVAL.  Inline:
 * a bulk load checks every key, and for the other types a call would cost
 * more than the length check.
 */
static KB_ALWAYS_INLINE int kb_key_validate(u32 key_type, const void *data,
					    u32 len)
{
	switch (key_type) {
	case KB_KEY_BYTES:
	case KB_KEY_STR:
		return len >= 1 && len <= KB_KEY_MAX_LEN ? 0 : -EINVAL;
	case KB_KEY_IPV4:
		return len == 4 ? 0 : -EINVAL;
	case KB_KEY_IPV6:
		return len == 16 ? 0 : -EINVAL;
	case KB_KEY_IP:
		return len == 4 || len == 16 ? 0 : -EINVAL;
	case KB_KEY_NET4:
		return len == 5 ? kb_key_net_valid(data, 4) : -EINVAL;
	case KB_KEY_NET6:
		return len == 17 ? kb_key_net_valid(data, 16) : -EINVAL;
	case KB_KEY_NET:
		if (len == 5)
			return kb_key_net_valid(data, 4);
		if (len == 17)
			return kb_key_net_valid(data, 16);
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

/*
 * kb_params_note_prefix()'s out-of-line half: the prefix length of a net
 * key into p->plen4/plen6.  d must have passed kb_key_validate(), which
 * bounds the length byte it shifts and indexes by.
 */
void kb_params_note_plen(struct kb_params *p, const u8 *d, u32 len);

/*
 * Validate a key for p->key_type and, for the net types, record its prefix
 * length in p->plen4/plen6 (KB_WRITE_ONCE, so lockless readers see whole
 * words).  -EINVAL for a malformed key (length, prefix length range, host
 * bits not zero).  Other key types: validation only, inline.
 */
static KB_ALWAYS_INLINE int kb_params_note_prefix(struct kb_params *p,
						  const void *data, u32 len)
{
	int ret = kb_key_validate(p->key_type, data, len);

	if (!ret && kb_key_type_is_net(p->key_type))
		kb_params_note_plen(p, data, len);
	return ret;
}

/* true if the filter holds prefixes of length plen (family 4 or 6) */
bool kb_params_has_prefix(const struct kb_params *p, u32 family, u32 plen);

/*
 * The net key (alen + 1 bytes) of addr's prefix of length plen: addr with
 * the bits past plen cleared, then plen.  A lookup of an address in a net
 * filter tests this for every prefix length the filter holds.
 */
static inline void kb_key_net(u8 *key, const u8 *addr, u32 alen, u32 plen)
{
	u32 full = plen / 8, rem = plen % 8;

	memset(key, 0, alen);
	memcpy(key, addr, full);
	if (rem)
		key[full] = addr[full] & (u8)(0xff << (8 - rem));
	key[alen] = (u8)plen;
}

/* names <-> values; *_from_name return the value or -EINVAL */
const char *kb_kind_name(u32 kind);
const char *kb_hash_name(u32 hash);
const char *kb_key_type_name(u32 key_type);
int kb_kind_from_name(const char *s);
int kb_hash_from_name(const char *s);
int kb_key_type_from_name(const char *s);

/* ---- sizing: kb_sizing.h (kb_sizing.c, kb_math.c) ------------------------ */

#include "kb_sizing.h"

/* ---- filters ------------------------------------------------------------ */

struct kb_filter;
struct kb_fill;

/*
 * A kind's cold operations, through this table: statistics, the fill
 * tracker's scan, and delete (counting only; NULL for the others); and
 * its geometry, which the kind-generic code (sizing, params checks,
 * binding, fill tracking) reads instead of naming kinds.  The per-key and
 * batched add and test go through kb_filter_test() and the others below,
 * which call the kind's functions directly (see "kind dispatch").
 */
struct kb_kind_ops {
	const char *name;
	u32 kind;
	u32 granule;		/* m is a multiple of it */
	u32 block_units;	/* bits or counters per 64-byte block (a
				 * power of two; the block FPR model and fill
				 * terms), 0: not made of blocks (the classic
				 * model, fill from bits_set)
				 */
	u32 k_min, k_max;	/* k in k_min..k_max (equal: a fixed k) */
	u64 m_max;		/* largest m */
	u32 default_hash;	/* kb_kind_default_hash() */
	u32 hashes;		/* the hashes it takes, 1 << enum kb_hash */
	bool bytewise;		/* the payload is a byte array: any
				 * alignment, no word byte order
				 */
	bool hashless;		/* no one-hash scheme ("kind dispatch"): single
				 * keys run as batches of one
				 */
	/* payload bytes for m (kb_params_payload_bytes()) */
	u64 (*payload_bytes)(u64 m);
	int (*del)(struct kb_filter *f, u64 h);
	u32 (*del_many)(struct kb_filter *f, const struct kb_key *keys, u32 n,
			u64 *bitmap);
	u64 (*bits_set)(const struct kb_filter *f);
	/* sum over blocks of (fill of block)^k, in units of 2^-62 / nblocks */
	u64 (*est_fpr_q62)(const struct kb_filter *f);
	/* the key's k probe positions (bits/counters, 0..m-1) into pos */
	u32 (*probes)(const struct kb_filter *f, const void *key, u32 len,
		      u64 *pos);
	/* del updating f->fill (f->fill != NULL) */
	int (*del_fill)(struct kb_filter *f, u64 h);
	/* terms and counts of the current payload into fl (kb_fill_init) */
	void (*fill_scan)(struct kb_filter *f, struct kb_fill *fl);
};

/* ops for a kind, NULL if unknown */
const struct kb_kind_ops *kb_kind_ops_get(u32 kind);

/*
 * A filter: params + the caller's payload.  All fields are set by
 * kb_filter_init()/kb_filter_attach(); treat as read-only except
 * p.plen4/plen6 through kb_params_note_prefix(&f->p, ...).
 */
struct kb_filter {
	struct kb_params p;
	const struct kb_kind_ops *ops;
	void *payload;		/* caller-owned, 'bytes' long */
	u64 bytes;		/* kb_params_payload_bytes(&p) */
	u64 nblocks;		/* blocked/counting: payload blocks */
	u32 cbits;		/* classic: m if m < 2^32, else 0 */
	struct kb_fill *fill;	/* kb_fill_init(), NULL: no fill tracking */
};

/*
 * Validate params (as kb_params_validate(p, 0)), bind the payload
 * (payload_len must equal kb_params_payload_bytes(p); blocked/counting need
 * 8-byte alignment) and clear it (classic: zero bits + trailing k byte).
 * -EINVAL, -E2BIG.
 */
int kb_filter_init(struct kb_filter *f, const struct kb_params *p,
		   void *payload, u64 payload_len);

/*
 * Like kb_filter_init() but keep the payload's contents (an image's or an
 * imported LevelDB filter's).  classic: the trailing byte must equal k.
 */
int kb_filter_attach(struct kb_filter *f, const struct kb_params *p,
		     void *payload, u64 payload_len);

/*
 * Like kb_filter_attach() for a payload already in the filter's memory
 * format that the caller may not write: the kernel's own generation,
 * mapped read-only into a process (libkbloom).  Reads only (the classic k
 * byte, gozero's padding), never converts or clears; only readers (test,
 * stats, image write) may use f.  -EINVAL, -E2BIG.
 */
int kb_filter_attach_ro(struct kb_filter *f, const struct kb_params *p,
			const void *payload, u64 payload_len);

/*
 * Like kb_filter_init() for a payload the caller knows is all zero (e.g.
 * from a zeroing allocator): nothing is written but classic's k byte, so
 * that creating a big filter does not touch every page twice.
 */
int kb_filter_init_zeroed(struct kb_filter *f, const struct kb_params *p,
			  void *payload, u64 payload_len);

/* zero the bitset (classic keeps its k byte); a writer operation */
void kb_filter_clear(struct kb_filter *f);

/*
 * The kind table: every kind of uapi/linux/kbloom.h, once, in the ABI's
 * order, as X(name, NAME, ...).  A kind's value is KB_KIND_<NAME>, its
 * name the string "name", its functions kb_<name>_*() and its cold
 * operations kb_<name>_ops, all defined in kmod/core/kb_<name>.c.  The
 * table generates the prototypes below, the dispatch (KB_KIND_CALL()),
 * the table of ops (kb_kind_ops_get()) and the names (kb_kind_name(),
 * kb_kind_from_name()); the build fails unless it holds every value
 * 0..KB_KIND_MAX, each once, in order.  A new kind is its value in the
 * ABI, one line here, its kb_<name>.c and its object in kmod/Kbuild
 * (HACKING.md, "Adding a kind").  The dispatch compares in this order:
 * blocked, the kind of the per-packet path, first.
 *
 * X gets the rest of KB_KINDS()'s arguments after the two names (none:
 * KB_KINDS(X)).  KB_EXPAND_() only makes the body one expression to
 * checkpatch.
 */
#define KB_EXPAND_(...)	__VA_ARGS__
#define KB_KINDS(X, ...) KB_EXPAND_(					\
	X(blocked, BLOCKED, __VA_ARGS__)				\
	X(classic, CLASSIC, __VA_ARGS__)				\
	X(counting, COUNTING, __VA_ARGS__)				\
	X(gozero, GOZERO, __VA_ARGS__))

/*
 * Each line's position (a repeated name is a repeated enumerator), which
 * must be its value; as many lines as values
 */
#define KB_KIND_POS_(name, NAME, ...)	KB_KIND_POS_##name,
enum { KB_KINDS(KB_KIND_POS_) KB_KIND_POS_N_ };
#define KB_KIND_AT_(name, NAME, ...)	KB_EXPAND_(			\
	_Static_assert((int)KB_KIND_POS_##name == (int)KB_KIND_##NAME,	\
		       "KB_KINDS(): " #name " is not in the ABI's order");)
KB_KINDS(KB_KIND_AT_)
_Static_assert((int)KB_KIND_POS_N_ == (int)KB_KIND_MAX + 1,
	       "KB_KINDS() lacks a kind of uapi/linux/kbloom.h");

/*
 * Kind dispatch.  Per-key and batched add and test (the per-packet path of
 * xt_bloom and of BPF programs) call the kind's function directly, chosen
 * by comparing f->p.kind, not through a table of function pointers: in a
 * kernel built with retpolines (Debian's) each indirect call is a thunk of
 * tens of cycles, next to a probe that costs one cached line.
 *
 * KB_KIND_CALL(f, op, args, bad) is the dispatch: one comparison per line
 * of KB_KINDS(), then a call of kb_<name>_<op> args.  Each kind defines
 * the functions KB_KIND_DECLARE_() declares (test_core_kinds checks that
 * every kind has ops and dispatches):
 *  - hash: the key's hash; test: a test of the key; test_hash: the same
 *    from a hash; add_hash: an add of a hash (fill tracked);
 *  - add_many, test_many, test_and_add_many: the batched operations, as
 *    kb_filter_add_many() ...
 * The cold operations are in its kb_<name>_ops (struct kb_kind_ops).
 * A kind whose probes do not follow from one 64-bit value (gozero's 14;
 * hashless in its ops) hashes to 0, answers true (maybe present) to test_hash and adds nothing
 * in add_hash; its key operations hash each key in full (kb_filter_add()
 * and kb_filter_test_and_add() run a batch of one).
 *
 * An unknown kind never reaches the dispatch: kb_filter_init() and its
 * siblings bind only kinds that have ops, and a bound filter's params are
 * read-only (test_core_kinds checks that every kind with ops dispatches).
 * Reaching it anyway means memory corruption; the fallback, kb_kind_bad(),
 * warns once (a kernel WARN) and answers "maybe present" for every key,
 * the one answer a Bloom filter may always give (no false negatives: a
 * blocklist then blocks rather than lets through), and adds nothing.
 */
#define KB_KIND_COND_(name, NAME, f, op, args)				\
	(f)->p.kind == KB_KIND_##NAME ? kb_##name##_##op args :
#define KB_KIND_CALL(f, op, args, bad)					\
	(KB_KINDS(KB_KIND_COND_, f, op, args) (bad))

#define KB_KIND_DECLARE_(name, NAME, ...)	KB_EXPAND_(		\
u64 kb_##name##_hash(const struct kb_filter *f, const void *key, u32 len); \
bool kb_##name##_test(const struct kb_filter *f, const void *key,	\
		      u32 len);						\
bool kb_##name##_test_hash(const struct kb_filter *f, u64 h);		\
void kb_##name##_add_hash(struct kb_filter *f, u64 h);			\
void kb_##name##_add_many(struct kb_filter *f, const struct kb_key *keys, \
			  u32 n);					\
u32 kb_##name##_test_many(const struct kb_filter *f,			\
			  const struct kb_key *keys, u32 n, u64 *bitmap); \
u32 kb_##name##_test_and_add_many(struct kb_filter *f,			\
				  const struct kb_key *keys, u32 n,	\
				  u64 *bitmap);)

KB_KINDS(KB_KIND_DECLARE_)

/* the fallbacks of an unknown kind (never reached, see above) */
bool kb_kind_bad(const struct kb_filter *f);
u32 kb_kind_bad_many(const struct kb_filter *f, u32 n, u64 *bitmap,
		     bool maybe);

/*
 * Single-key operations (key not validated: use kb_key_validate()).
 * Inline, so that a caller's per-packet path makes one direct call.
 */
static KB_ALWAYS_INLINE u64 kb_filter_hash(const struct kb_filter *f,
					   const void *key, u32 len)
{
	return KB_KIND_CALL(f, hash, (f, key, len), kb_kind_bad(f));
}

static KB_ALWAYS_INLINE bool kb_filter_test(const struct kb_filter *f,
					    const void *key, u32 len)
{
	return KB_KIND_CALL(f, test, (f, key, len), kb_kind_bad(f));
}

/*
 * A net filter's test of an address (alen 4 or 16 bytes): the address
 * masked to each prefix length the filter holds (plens: &f->p.plen4 or
 * f->p.plen6), longest first; true at the first that tests present.
 */
bool kb_filter_test_prefixes(const struct kb_filter *f, const u64 *plens,
			     u32 alen, const u8 *addr);

/*
 * Lookups of keys[0..n) (valid for the filter's key type) as a packet's
 * address is looked up: in a net filter, a host key (the prefix length is
 * the address's: /32, /128) is tested at every prefix length the filter
 * holds, as kb_filter_test_prefixes(); any other key, and every key of the
 * other types, as itself (kb_filter_test_many()).  One bit per key in
 * bitmap (may be NULL); returns the keys maybe present.
 */
u32 kb_filter_lookup_many(const struct kb_filter *f, const struct kb_key *keys,
			  u32 n, u64 *bitmap);

void kb_filter_add(struct kb_filter *f, const void *key, u32 len);
/* true if the key was not present before (it is added either way) */
bool kb_filter_test_and_add(struct kb_filter *f, const void *key, u32 len);
/* counting only: 0, -ENOENT (tests absent, unchanged), -EOPNOTSUPP */
int kb_filter_del(struct kb_filter *f, const void *key, u32 len);

/* the same on a precomputed kb_filter_hash() value */
static KB_ALWAYS_INLINE void kb_filter_add_hash(struct kb_filter *f, u64 h)
{
	KB_KIND_CALL(f, add_hash, (f, h), (void)kb_kind_bad(f));
}

static KB_ALWAYS_INLINE bool kb_filter_test_hash(const struct kb_filter *f,
						 u64 h)
{
	return KB_KIND_CALL(f, test_hash, (f, h), kb_kind_bad(f));
}

/*
 * Batched operations over keys[0..n), software pipelined: the hashes of the
 * next KB_BATCH_DEPTH keys are computed and their blocks prefetched while
 * earlier keys are probed.  Result bitmaps have one bit per key, LSB-first
 * in u64 words (key i is bit i % 64 of bitmap[i / 64]); they hold
 * DIV_ROUND_UP(n, 64) words and are fully written (bits past n zero).
 */
static KB_ALWAYS_INLINE void kb_filter_add_many(struct kb_filter *f,
						const struct kb_key *keys,
						u32 n)
{
	KB_KIND_CALL(f, add_many, (f, keys, n), (void)kb_kind_bad(f));
}

/* bit set = maybe present; returns the number of keys maybe present */
static KB_ALWAYS_INLINE u32 kb_filter_test_many(const struct kb_filter *f,
						const struct kb_key *keys,
						u32 n, u64 *bitmap)
{
	return KB_KIND_CALL(f, test_many, (f, keys, n, bitmap),
			    kb_kind_bad_many(f, n, bitmap, true));
}

/*
 * Add all keys; bit set = the key was new (tested absent before its add).
 * Keys are processed in order, so a key repeated in the batch counts new
 * at most once.  bitmap may be NULL.  Returns the number of new keys.
 */
static KB_ALWAYS_INLINE u32
kb_filter_test_and_add_many(struct kb_filter *f, const struct kb_key *keys,
			    u32 n, u64 *bitmap)
{
	return KB_KIND_CALL(f, test_and_add_many, (f, keys, n, bitmap),
			    kb_kind_bad_many(f, n, bitmap, false));
}

/*
 * counting only: delete keys; bit set = deleted (key tested present).
 * bitmap may be NULL.  Returns the number deleted, or -EOPNOTSUPP.
 */
int kb_filter_del_many(struct kb_filter *f, const struct kb_key *keys, u32 n,
		       u64 *bitmap);

/*
 * The key's probe positions (bits, or counters) 0..m-1 into pos, which has
 * room for KB_K_MAX: blocked block * 512 + bit, counting block * 128 +
 * counter, classic and gozero the bit offset.  Returns k.  For debugging.
 */
u32 kb_filter_probes(const struct kb_filter *f, const void *key, u32 len,
		     u64 *pos);

/* ---- statistics --------------------------------------------------------- */

struct kb_stats {
	u64 bytes;		/* payload bytes */
	u64 m;			/* bits or counters */
	u32 k;
	u32 expected_fpr_ppb;	/* model FPR of a lookup at p.items (0 if
				 * items == 0); net types: of nplens probes
				 */
	u64 bits_set;		/* set bits (counting: nonzero counters) */
	u32 fill_ppm;		/* bits_set / m in parts per million */
	u32 est_fpr_ppb;	/* FPR of a lookup in the current bitset (net
				 * types: of nplens probes, each as likely)
				 */
	u64 est_items;		/* Swamidass-Baldi -(m/k) ln(1 - X/m);
				 * U64_MAX when every bit is set
				 */
	u32 over_capacity;	/* est_items > items, or est_fpr_ppb >
				 * 1.05 * fpr_ppb (each when configured)
				 */
	u32 nplens;		/* kb_params_nplens(): probes per lookup */
};

/* integer math only; lockless reader; scans the whole payload */
void kb_filter_stats(const struct kb_filter *f, struct kb_stats *st);

/*
 * Fill tracking: the counters kb_filter_stats() would compute by scanning
 * the payload, kept exact by the writers, so that the statistics cost
 * O(1).  term[u] is the per-block FPR term of a block with u bits set (u
 * counters nonzero): (u / B)^k in Q62, B = 512 bits (blocked) or 128
 * counters (counting); classic has no terms (its FPR follows from
 * bits_set).  fpr_hi:fpr_lo is the 128-bit sum of term[used] over blocks.
 * The caller allocates kb_fill_bytes(&f->p) bytes (8-byte aligned) and
 * serializes readers of the counters with the writers.
 */
struct kb_fill {
	u64 bits_set;
	u64 fpr_hi;
	u64 fpr_lo;
	u32 nterms;		/* B + 1, 0 for classic */
	u32 reserved;
	u64 term[];
};

/* bytes of a struct kb_fill for valid params (about 4 KiB at most) */
u64 kb_fill_bytes(const struct kb_params *p);

/*
 * Bind fill to f (an initialized or attached filter nobody writes to
 * concurrently): compute the terms and count the current payload with one
 * scan (yielding with kb_cond_resched()).  From then on f's writers keep
 * fill exact; kb_filter_init()/kb_filter_attach() unbind it.
 */
void kb_fill_init(struct kb_fill *fill, struct kb_filter *f);

/* the same for a payload known to be empty (just initialized): no scan */
void kb_fill_init_empty(struct kb_fill *fill, struct kb_filter *f);

/*
 * A merge (KB_IOC_MERGE): OR mask[0..n) into f's payload words [w, w + n),
 * the masks in the payload's memory format.  Blocked filters: w and n are
 * multiples of 8 (whole blocks, so that a block's FPR term moves once).
 * apply: the ORs, atomic for the words (the packet path's adds beside
 * them), the one writer's operation otherwise (bytes past f->bytes in
 * the last word of a bytewise kind are left alone); fl (f->fill, or
 * NULL) moves by the bits newly set, as a writer's add moves it.  !apply:
 * nothing is written; fl (a copy of f's fill, terms included) moves by
 * what the ORs would set now.  Returns the bits newly set (or that would
 * be).  Not for counting filters (0, nothing done).  No rescheduling
 * point: the caller takes the payload a piece at a time.
 */
u64 kb_filter_merge_words(struct kb_filter *f, u64 w, const u64 *mask, u64 n,
			  struct kb_fill *fl, bool apply);

/*
 * kb_filter_stats() from f's fill counters (f->fill != NULL) without
 * reading the payload: the same results.  A reader of the counters: it
 * must not run concurrently with a writer of f.
 */
void kb_filter_stats_fill(const struct kb_filter *f, struct kb_stats *st);

/*
 * The saturation guard: whether a payload about to replace a filter (an
 * upload, a restore, a Redis pull) answers "maybe" too often to be a
 * filter anyone meant.  A value set to all ones by whoever can write it
 * would otherwise turn a DROP rule on the filter into "drop everything".
 * The estimate is kb_filter_stats()'s est_fpr_ppb: from f's fill counters
 * when it has them (O(1)), else by scanning the payload (yielding).
 * Returns -EDOM when it is over max_fpr_ppb (0: no limit), else 0; *st
 * holds the statistics either way.  For a net filter holding more prefix
 * lengths than its sizing allowed for (expected_fpr_ppb over its
 * fpr_ppb), the limit is scaled by expected_fpr_ppb / fpr_ppb.
 */
int kb_filter_guard(const struct kb_filter *f, u32 max_fpr_ppb,
		    struct kb_stats *st);

/* the guard's default limit: 10x the configured FPR, else 1% */
#define KB_GUARD_FPR_FACTOR	10
#define KB_GUARD_FPR_PPB	10000000U
u32 kb_guard_default_ppb(const struct kb_params *p);

/* ---- images ------------------------------------------------------------- */

/* Which check an image failed (for logs, extack and tests). */
enum kb_img_err {
	KB_IMG_OK = 0,
	KB_IMG_TRUNCATED,	/* shorter than header + trailer / payload */
	KB_IMG_BAD_MAGIC,
	KB_IMG_BAD_VERSION,
	KB_IMG_BAD_HDR_LEN,
	KB_IMG_BAD_KIND,
	KB_IMG_BAD_KEY_TYPE,
	KB_IMG_BAD_HASH,	/* unknown hash */
	KB_IMG_HASH_KIND,	/* hash not valid for the kind */
	KB_IMG_BAD_K,
	KB_IMG_BAD_M,		/* m zero, not a multiple, over limits */
	KB_IMG_TOO_BIG,		/* over the caller's max_bytes (-E2BIG) */
	KB_IMG_BAD_FPR,
	KB_IMG_BAD_SEED,	/* seed words that must be zero are not */
	KB_IMG_BAD_PLEN,	/* prefix bitmaps invalid for the key type */
	KB_IMG_BAD_FLAGS,
	KB_IMG_BAD_RESERVED,
	KB_IMG_PAYLOAD_LEN,	/* payload_len does not match kind and m */
	KB_IMG_TRAILING,	/* bytes after the trailer */
	KB_IMG_CLASSIC_K,	/* classic trailing k byte != k */
	KB_IMG_BAD_CRC,		/* -EBADMSG */
	KB_IMG_NOT_CLASSIC,	/* LevelDB export of a non-classic filter */
	KB_IMG_GOZERO_PAD,	/* gozero: bits set past m in the last byte */
	KB_IMG_GOZERO_LONG,	/* gozero import: value over ceil(m / 8) */
	KB_IMG_SATURATED,	/* kb_filter_guard(): FPR over the limit */
	KB_IMG_ERR_MAX,
};

/* short English description of why */
const char *kb_image_strerror(enum kb_img_err why);

/* total image length for params: header + payload + trailer */
u64 kb_image_size(const struct kb_params *p);

/*
 * Streaming step 1: validate the header from its bytes alone.  hdr points
 * to hdr_avail readable bytes (only the header is read; hdr_avail <
 * sizeof(struct kb_image_hdr) -> TRUNCATED); total_len is the whole
 * image's length.  Fills *p and *payload_len (and *count if not NULL).
 * Returns 0, -EINVAL or -E2BIG (max_bytes: caller's payload limit, 0 =
 * none); *why (if not NULL) tells which check failed.
 */
int kb_image_parse_header(const void *hdr, u64 hdr_avail, u64 total_len,
			  u64 max_bytes, struct kb_params *p, u64 *payload_len,
			  u64 *count, enum kb_img_err *why);

/*
 * Streaming step 2: CRC32C over header then payload, in any number of
 * pieces: st = kb_image_crc_init(); st = kb_image_crc_update(st, ...)...;
 * kb_image_crc_check(st, trailer) -> 0 or -EBADMSG (why = BAD_CRC).
 * trailer points to the image's last 4 bytes.
 */
u32 kb_image_crc_init(void);
u32 kb_image_crc_update(u32 st, const void *buf, u64 len);
u32 kb_image_crc_final(u32 st);
int kb_image_crc_check(u32 st, const void *trailer, enum kb_img_err *why);

/*
 * The CRC of an image (crc, as in its trailer) whose bytes old became
 * new (len bytes each) at a place followed by `after` bytes of header
 * and payload, without reading any byte but those: O(len + log after).
 * For writers that patch an image in place (bfctl redis watch -o).
 */
u32 kb_image_crc_patch(u32 crc, const void *old, const void *new, u64 len,
		       u64 after);

/* Step 3: payload content checks (classic trailing k byte). -EINVAL */
int kb_image_check_payload(const struct kb_params *p, const void *payload,
			   u64 payload_len, enum kb_img_err *why);

/*
 * One-shot parse of a whole image in memory: steps 1-3.  On success
 * *payload points into img.  Returns 0, -EINVAL, -E2BIG or -EBADMSG.
 */
int kb_image_parse(const void *img, u64 len, u64 max_bytes,
		   struct kb_params *p, const void **payload, u64 *payload_len,
		   u64 *count, enum kb_img_err *why);

/* fill a header for params (payload_len from the params) */
void kb_image_fill_header(struct kb_image_hdr *h, const struct kb_params *p,
			  u64 count);

/*
 * Write the whole image of f (header, payload snapshot read with
 * KB_READ_ONCE, CRC) into buf of buf_len >= kb_image_size(&f->p) bytes.
 * Returns the image length, or -E2BIG if buf is too small.
 */
s64 kb_image_write(const struct kb_filter *f, u64 count, void *buf,
		   u64 buf_len);

/*
 * The image cursor: the one place that knows the image layout (header,
 * payload, CRC32C trailer) and reads or writes an image in pieces of any
 * size, so that a transport (an ioctl's user buffer, netlink messages, a
 * file) only moves bytes.  The cursor holds no lock and no reference:
 * between pieces the caller may drop its locks, and must itself make sure
 * that every piece of a written image comes from the same generation.
 */
struct kb_image_cur {
	struct kb_image_hdr h;		/* write: built at begin; read: read */
	u8 trailer[KB_IMAGE_TRAILER_LEN];
	bool hdr_ok;			/* read: the header checked out */
	u32 kind;			/* write: the image's filter kind */
	struct kb_params p;		/* read: from the header */
	u64 count;			/* read: from the header */
	u64 payload_len;
	u64 total;			/* image length */
	u64 off;			/* image bytes written or read so far */
	u64 max_bytes;			/* read: payload limit, 0 = none */
	void *payload;			/* read: where the payload goes */
	u32 crc;			/* CRC state over header and payload */
	int err;			/* read: first failure, or 0 */
	enum kb_img_err why;		/* read: which check it was */
};

/*
 * Write side.  Begin with the filter's params and count (the header is
 * built now: call it where p is stable, e.g. under the filter's lock),
 * then produce the image's bytes in order: each call writes the next
 * min(len, total - off) bytes into dst and returns how many.  f supplies
 * the payload bytes (read with KB_READ_ONCE, as a lockless reader); it
 * must have the params given at begin, and may be NULL for a piece that
 * holds no payload byte (kb_image_cur_wants_filter() says).  The trailer
 * is the CRC of everything produced before it.  Yields in long pieces.
 */
void kb_image_cur_write_begin(struct kb_image_cur *c,
			      const struct kb_params *p, u64 count);
u64 kb_image_cur_produce(struct kb_image_cur *c, const struct kb_filter *f,
			 void *dst, u64 len);
bool kb_image_cur_wants_filter(const struct kb_image_cur *c, u64 len);

/*
 * Read side, for an image of total_len bytes (the whole input's length:
 * a shorter or longer image is rejected as truncated or trailing).
 * kb_image_cur_buf() says where the next bytes go (NULL: complete, failed
 * or waiting for the payload's place) and how many at most; the caller
 * writes up to that many there and calls kb_image_cur_advance().  The
 * header is checked when it is complete (kb_image_parse_header()); the
 * caller then points c->payload at c->payload_len bytes
 * (kb_image_cur_wants_payload()).  The CRC is checked when the trailer is
 * complete, the payload's contents at kb_image_cur_read_end(), which
 * also rejects an incomplete image.  Every failure is -errno with c->why
 * and sticks.  kb_image_cur_consume() does the copying from memory (no
 * copy where src already is the place, for a parse in place).
 */
void kb_image_cur_read_begin(struct kb_image_cur *c, u64 total_len,
			     u64 max_bytes);
void *kb_image_cur_buf(struct kb_image_cur *c, u64 *room);
int kb_image_cur_advance(struct kb_image_cur *c, u64 n);
bool kb_image_cur_wants_payload(const struct kb_image_cur *c);
s64 kb_image_cur_consume(struct kb_image_cur *c, const void *src, u64 len);
int kb_image_cur_read_end(struct kb_image_cur *c);

/* ---- go-zero compatibility ---------------------------------------------- */

/* the first 64-bit half of MurmurHash3_x64_128(data, len, seed 0) */
u64 kb_murmur3_h1(const void *data, u64 len);

/*
 * go-zero's KB_GOZERO_K offsets of key for bits (1..KB_GOZERO_BITS_MAX):
 * off[i] = kb_murmur3_h1(key || byte(i)) % bits, in one pass over key.
 */
void kb_gozero_offsets(const void *key, u32 len, u64 bits, u64 *off);

/*
 * Params of a gozero filter of m = bits for a Redis value raw[0..len).
 * The payload is the value zero-extended to ceil(bits / 8) bytes.
 * Rejects bits out of 1..KB_GOZERO_BITS_MAX (-EINVAL, BAD_M), over
 * max_bytes (-E2BIG, TOO_BIG), a longer value (-EINVAL, GOZERO_LONG) and
 * bits set past bits in a full-length value (-EINVAL, GOZERO_PAD): both
 * almost always mean a wrong bits.
 */
int kb_gozero_import(struct kb_params *p, const void *raw, u64 len, u64 bits,
		     u64 max_bytes, enum kb_img_err *why);

/* ---- LevelDB compatibility ---------------------------------------------- */

/* LevelDB's Hash(data, n, seed) (util/hash.cc) */
u32 kb_leveldb_hash(const void *data, u64 len, u32 seed);

/*
 * LevelDB's BloomFilterPolicy::KeyMayMatch on raw filter bytes, exactly:
 * len < 2 -> false; k byte > 30 -> true.
 */
bool kb_leveldb_key_may_match(const void *raw, u64 len, const void *key,
			      u64 keylen);

/*
 * Params of a classic filter whose payload is the raw LevelDB filter bytes
 * raw[0..len) (so the payload is a copy of them).  Rejects what cannot be
 * a classic filter: len < 2, k byte 0 or > 30 (-EINVAL, why = BAD_M or
 * BAD_K), or too big (-E2BIG).  p's key_type is BYTES, items/fpr 0.
 */
int kb_leveldb_import(struct kb_params *p, const void *raw, u64 len,
		      u64 max_bytes, enum kb_img_err *why);

/*
 * Copy a classic filter's payload (the raw LevelDB bytes) to buf, which has
 * buf_len >= f->bytes bytes.  Returns the length, -EINVAL (not classic) or
 * -E2BIG.
 */
s64 kb_leveldb_export(const struct kb_filter *f, void *buf, u64 buf_len);

#endif /* _KB_CORE_H */
