/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kbloom - Bloom filters in the Linux kernel: user-visible definitions.
 *
 * This header is shared by the kernel module, the userspace tools and the
 * offline image format.  It only depends on <linux/types.h>.
 *
 * Sections:
 *   1. filter kinds, hash algorithms, key types, names
 *   2. the filter image format (struct kb_image_hdr)
 *   3. the /dev/kbloom ioctl interface
 *   4. the generic netlink family "kbloom"
 *
 * Privileges (as ipset and nftables): every operation on filters, reads
 * included, needs CAP_NET_ADMIN in the user namespace that owns the
 * filters' network namespace; without it the kernel answers EPERM, before
 * looking at the request's filter, and changes and returns nothing.  That
 * covers every /dev/kbloom ioctl (TEST and EXPORT too; the
 * capability is checked against the credentials of the process that
 * opened the file), every generic netlink command, do and dump (GET, TEST
 * and EXPORT too), and joining the "events" multicast group.  A root of a
 * user namespace that owns a network namespace of its own (unshare -Urn)
 * has all rights on that namespace's filters and none on others'.  Only
 * unknown ioctl commands answer ENOTTY (and unknown netlink commands
 * EOPNOTSUPP) regardless of privilege.
 *
 * The one exception is a filter's grants.  Each filter has a readers and
 * a writers group (none at creation; KB_CMD_CREATE's KB_A_READERS and
 * KB_A_WRITERS, KB_CMD_GRANT).  A process that is a member of the readers
 * group (its fsgid or one of its supplementary groups, as file permission
 * checks count them), without any capability, may open that one filter
 * of its own network namespace with KB_IOC_OPEN and test keys through the
 * opened filter (its mapping and its batch TEST); a member of the writers
 * group may also add and test-and-add there.  Nothing else: creating,
 * destroying, flushing, rebuilding, uploading, exporting, listing, info,
 * saving, the events group, and reading a filter's seed by any path but
 * an opened filter still need CAP_NET_ADMIN.  Setting a grant needs
 * CAP_NET_ADMIN too, and the group must be mapped in the user namespace
 * that owns the filter's network namespace (EINVAL otherwise), so a
 * user-namespace root grants only its own namespace's groups.  A grant
 * taken back ends it for the files opened under it too: their batches,
 * KB_IOC_MAP_INFO and mmap answer EPERM from then on (judged on the
 * credentials they were opened with); mappings made before keep their
 * generation until unmapped.
 *
 * Say it plainly: a reader learns the filter's parameters and seed (they
 * are in the mapping's header, and are needed to test), so it can craft
 * keys that collide, that is keys the filter answers "maybe present"
 * without them ever being added (a blocklist's false positives on
 * demand), and it learns which keys are present.  Grant the readers group
 * only to services you trust with that; grant the writers group only to
 * services you trust to fill the filter.
 */
#ifndef _UAPI_LINUX_KBLOOM_H
#define _UAPI_LINUX_KBLOOM_H

#include <linux/types.h>

/* ---- 1. kinds, hashes, key types, names ------------------------------ */

/*
 * Filter kinds.
 * KB_KIND_BLOCKED:  cache-local Bloom filter, every key touches one 512-bit
 *                   (64-byte) block.  Default.
 * KB_KIND_CLASSIC:  byte-identical to LevelDB's leveldb.BuiltinBloomFilter2.
 * KB_KIND_COUNTING: 4-bit saturating counters in 64-byte blocks (128
 *                   counters per block); supports delete.
 * KB_KIND_GOZERO:   byte-identical to go-zero's Redis bitmap Bloom filter
 *                   (core/bloom): m is its bits (any 1..KB_GOZERO_BITS_MAX,
 *                   go-zero does not store it), k is 14, the payload is the
 *                   Redis string value, ceil(m / 8) bytes, bit o at byte
 *                   o / 8, mask 0x80 >> (o % 8).
 */
enum kb_kind {
	KB_KIND_BLOCKED		= 0,
	KB_KIND_CLASSIC		= 1,
	KB_KIND_COUNTING	= 2,
	KB_KIND_GOZERO		= 3,
	KB_KIND_MAX		= KB_KIND_GOZERO,
};

/*
 * Hash algorithms.
 * KB_HASH_XXH64:   xxh64 with a 64-bit seed (seed[0]; seed[1] is zero).
 * KB_HASH_SIPHASH: SipHash-2-4 with a 128-bit key (seed[0] = k0,
 *                  seed[1] = k1, as the two 64-bit words of the kernel's
 *                  siphash_key_t).  For keys an attacker chooses.
 * KB_HASH_LEVELDB: LevelDB's 32-bit Hash(data, n, 0xbc9f1d34); classic
 *                  filters only, and classic filters always use it.
 * KB_HASH_MURMUR3: go-zero's probe scheme: offset i (i = 0..13) of a key d
 *                  is h1(d || byte(i)) % m, h1 the first 64-bit half of
 *                  MurmurHash3_x64_128 with seed 0.  gozero filters only,
 *                  and they always use it.  The value names the whole
 *                  scheme: if go-zero changes it, that is a new value.
 */
enum kb_hash {
	KB_HASH_XXH64		= 0,
	KB_HASH_SIPHASH		= 1,
	KB_HASH_LEVELDB		= 2,
	KB_HASH_MURMUR3		= 3,
	KB_HASH_MAX		= KB_HASH_MURMUR3,
};

/*
 * Key types and their encodings (the bytes that are hashed):
 * KB_KEY_BYTES: 1..KB_KEY_MAX_LEN arbitrary bytes.
 * KB_KEY_STR:   1..KB_KEY_MAX_LEN bytes of a string, without a terminating
 *               NUL (the encoding is the same as bytes; the type is a hint
 *               for display).
 * KB_KEY_IPV4:  4 bytes, the address in network byte order.
 * KB_KEY_IPV6:  16 bytes, the address in network byte order.
 * KB_KEY_IP:    4 or 16 bytes (IPv4 or IPv6 by length).
 * KB_KEY_NET4:  5 bytes: 4 address bytes (network order, host bits zero)
 *               followed by 1 byte prefix length 0..32.
 * KB_KEY_NET6:  17 bytes: 16 address bytes (host bits zero) followed by
 *               1 byte prefix length 0..128.
 * KB_KEY_NET:   5 or 17 bytes (NET4 or NET6 by length).
 * For the net types the filter records which prefix lengths it holds
 * (plen4/plen6 bitmaps below) so that a lookup of an address only probes
 * those prefix lengths.  A test (KB_IOC_TEST, KB_CMD_TEST) of a host key
 * (prefix length 32 or 128) is such a lookup, as a packet's: maybe present
 * if one of the address's prefixes held is, counted as one lookup; a test
 * of a shorter prefix tests that key only.  A configured FPR (fpr_ppb) is
 * per lookup: sizing divides it among the prefix lengths the creator says
 * lookups will test (prefixes), and the estimates (expected_fpr_ppb,
 * est_fpr_ppb, over_capacity) are of a lookup of the lengths held.
 */
enum kb_key_type {
	KB_KEY_BYTES		= 0,
	KB_KEY_STR		= 1,
	KB_KEY_IPV4		= 2,
	KB_KEY_IPV6		= 3,
	KB_KEY_IP		= 4,
	KB_KEY_NET4		= 5,
	KB_KEY_NET6		= 6,
	KB_KEY_NET		= 7,
	KB_KEY_MAX		= KB_KEY_NET,
};

/* gozero: most bits (a Redis string holds at most 512 MiB) and its k */
#define KB_GOZERO_BITS_MAX	(1ULL << 32)
#define KB_GOZERO_K		14

/* Longest key (bytes/str). */
#define KB_KEY_MAX_LEN		1024

/*
 * Filter names: 1..KB_NAME_MAX-1 bytes of [A-Za-z0-9_.:-]; buffers holding
 * a name are KB_NAME_MAX bytes including the terminating NUL.
 */
#define KB_NAME_MAX		32

/* Configured false-positive rates are carried in parts per billion. */
#define KB_FPR_PPB_ONE		1000000000U

/* ---- 2. image format -------------------------------------------------- */

/*
 * A filter image is:
 *
 *   struct kb_image_hdr   (hdr_len bytes, currently 128)
 *   payload               (payload_len bytes, the filter's bitset)
 *   __le32 crc            (CRC32C, Castagnoli, reflected, init ~0, final
 *                          xor ~0, the usual "crc32c", over header and
 *                          payload)
 *
 * so its total length is hdr_len + payload_len + 4.  Every multi-byte
 * field is little-endian.  The header has no padding and no holes; every
 * field is naturally aligned.
 *
 * Payload layout by kind:
 * blocked:  m / 512 blocks of 64 bytes; each block is 8 little-endian
 *           64-bit words, bit b of the block is bit (b % 64) of word
 *           (b / 64).  payload_len = m / 8.
 * classic:  the LevelDB filter bytes: m / 8 bytes of bits (bit b is
 *           bit (b % 8) of byte (b / 8)) followed by one byte holding k.
 *           payload_len = m / 8 + 1.
 * counting: m / 128 blocks of 64 bytes; each block is 8 little-endian
 *           64-bit words of 16 4-bit counters, counter c of the block is
 *           bits 4 * (c % 16) .. 4 * (c % 16) + 3 of word (c / 16).
 *           payload_len = m / 2.
 * gozero:   the go-zero Redis value: bit b is mask 0x80 >> (b % 8) of
 *           byte (b / 8), MSB first; the bits past m in the last byte are
 *           zero.  payload_len = ceil(m / 8).
 */
#define KB_IMAGE_MAGIC		0x4d4c424bU	/* "KBLM" little-endian */
#define KB_IMAGE_VERSION	1
#define KB_IMAGE_TRAILER_LEN	4

struct kb_image_hdr {
	__le32	magic;		/* KB_IMAGE_MAGIC */
	__le16	version;	/* KB_IMAGE_VERSION */
	__le16	hdr_len;	/* sizeof(struct kb_image_hdr) (128) */
	__le32	kind;		/* enum kb_kind */
	__le32	key_type;	/* enum kb_key_type */
	__le32	hash;		/* enum kb_hash; classic: KB_HASH_LEVELDB,
				 * gozero: KB_HASH_MURMUR3,
				 * blocked/counting: XXH64 or SIPHASH
				 */
	__le32	k;		/* probes per key: classic 1..30, gozero
				 * 14, others 1..32
				 */
	__le64	m;		/* bits (blocked: multiple of 512; classic:
				 * multiple of 8, >= 8; gozero: any
				 * 1..KB_GOZERO_BITS_MAX) or counters
				 * (counting: multiple of 128)
				 */
	__le64	items;		/* configured capacity n, 0 = not given */
	__le32	fpr_ppb;	/* configured target FPR in parts per
				 * billion (1..999999999), 0 = not given
				 */
	__le32	flags;		/* none defined: must be zero */
	__le64	seed[2];	/* xxh64: seed[0] = seed, seed[1] = 0;
				 * siphash: k0, k1; classic: both zero
				 */
	__le64	plen4;		/* net key types: bit p set = the filter
				 * holds IPv4 prefixes of length p (0..32);
				 * other key types: zero
				 */
	__le64	plen6[3];	/* net key types: bit p % 64 of word p / 64
				 * set = the filter holds IPv6 prefixes of
				 * length p (0..128); other types: zero
				 */
	__le64	count;		/* keys added as counted by the writer
				 * (informational, 0 = unknown)
				 */
	__le64	payload_len;	/* bytes of payload, must match kind and m */
	__le64	reserved[2];	/* must be zero */
};

/* ---- 3. /dev/kbloom ioctl interface ----------------------------------- */

/*
 * Why two transports, and which does what: the control plane (create,
 * destroy, flush, info, swap, rename, list) is the generic netlink family
 * only (section 4): one place with extended ACKs naming the bad attribute,
 * strict policies, events and dumps, and a new control operation is added
 * once, there.  /dev/kbloom keeps only what is bound to an open file or is
 * bulk data: key batches (KB_IOC_ADD, TEST, DEL, TEST_ADD), whole images
 * (KB_IOC_UPLOAD, EXPORT) and transactions (KB_IOC_TXN_*), which live as
 * long as the file.  As with ipset and nftables, a tool needs the netlink
 * family anyway; the device spares bulk loads netlink's per-message limits.
 *
 * /dev/kbloom works on the filters of the network namespace of the process
 * that opened it.  Every command, KB_IOC_TEST and KB_IOC_EXPORT included,
 * needs CAP_NET_ADMIN over that namespace's user namespace, checked
 * against the opener's credentials (EPERM otherwise, before the argument
 * is read; see "Privileges" above), except KB_IOC_OPEN, which a filter's
 * grant also allows.  The node is mode 0666, as /dev/net/tun: opening it
 * grants nothing, every ioctl checks its own rights, and a service granted
 * a filter must reach it without root or a group of its own for the node.
 *
 * Every argument struct starts with __u32 size = sizeof(the struct as the
 * caller knows it).  The kernel reads it with copy_struct_from_user():
 * size < the first version's size -> EINVAL; a bigger struct whose extra
 * bytes are not zero, or size > 4096 -> E2BIG.  Output fields are written
 * back for min(size, kernel's size) bytes.  Every flags/reserved field
 * must be zero (EINVAL).  The command numbers never change: they encode the
 * size of the first version of each struct (KB_IOC_*_SIZE_VER0).  Unknown
 * command -> ENOTTY.  Names are NUL-padded (1..31 bytes of
 * [A-Za-z0-9_.:-], EINVAL otherwise).
 *
 * Errors common to all commands: ENOENT (no filter of that name), EEXIST
 * (the name is taken), EINVAL (bad argument; bad key: err_index names it),
 * E2BIG (one filter over max_filter_bytes), ERANGE (KB_IOC_TXN_BEGIN:
 * no filter of at most 1000 bits per key meets fpr_ppb
 * for that kind), ENOSPC (over max_filters or
 * max_netns_bytes; too small export buffer), EBUSY (held by an in-kernel
 * consumer, or a second transaction on one open file), EPERM, ENOMEM,
 * EINTR (fatal signal during a batch: processed tells how far it got).
 */
#define KB_IOC_MAGIC		0xBF

/* sizing modes of struct kb_ioc_create */
enum kb_ioc_sizing {
	KB_SIZING_FPR		= 0,	/* items + fpr_ppb */
	KB_SIZING_BPK		= 1,	/* bits_per_key (+ items, may be 0) */
	KB_SIZING_MK		= 2,	/* m + k (+ items, informational) */
};

/* struct kb_ioc_create.flags */
#define KB_CREATE_F_SEED	(1U << 0)	/* use seed[]; else random */
#define KB_CREATE_F_GROW	(1U << 1)	/* VER1: KB_A_GROW */

/*
 * KB_IOC_TXN_BEGIN's argument: the name and the new parameters of a
 * rebuild (the fields of KB_CMD_CREATE's attributes).  hash: KB_HASH_XXH64 or
 * KB_HASH_SIPHASH (blocked, counting), KB_HASH_LEVELDB (classic) or
 * KB_HASH_MURMUR3 (gozero), the last two with a seed that is always zero.  Without KB_CREATE_F_SEED the kernel picks a random seed.
 * The fields of the other sizing modes must be zero, KB_CREATE_F_SEED is
 * refused for the leveldb hash and seed[1] must be zero for xxh64: EINVAL,
 * not silently ignored.
 */
struct kb_ioc_create {
	__u32		size;
	__u32		flags;		/* KB_CREATE_F_* */
	char		name[KB_NAME_MAX];
	__u32		kind;		/* enum kb_kind */
	__u32		key_type;	/* enum kb_key_type */
	__u32		hash;		/* enum kb_hash */
	__u32		sizing;		/* enum kb_ioc_sizing */
	__aligned_u64	items;
	__u32		fpr_ppb;	/* KB_SIZING_FPR: 1..999999999 */
	__u32		bits_per_key;	/* KB_SIZING_BPK: 1..1000 */
	__aligned_u64	m;		/* KB_SIZING_MK: bits or counters */
	__u32		k;		/* KB_SIZING_MK: probes per key */
	__u32		prefixes;	/* KB_SIZING_FPR, net key types: prefix
					 * lengths a lookup tests, 1..129 (0: 1)
					 */
	__aligned_u64	seed[2];	/* with KB_CREATE_F_SEED */
	__aligned_u64	reserved[2];
	/* VER1: windows, growth, the packet path's cap (KB_A_* of the same
	 * names; 0: not asked for, or the default)
	 */
	__aligned_u64	window_ms;	/* KB_A_WINDOW_MS */
	__aligned_u64	max_bytes;	/* KB_A_MAX_BYTES (KB_CREATE_F_GROW) */
	__u32		slices;		/* KB_A_SLICES (with window_ms) */
	__u32		max_fpr_ppb;	/* KB_A_MAX_FPR_PPB */
};
#define KB_IOC_CREATE_SIZE_VER0	120
#define KB_IOC_CREATE_SIZE_VER1	144

/*
 * One slice of a window or a growing filter in struct kb_ioc_info (the
 * KB_SA_* of a KB_A_SLICE nest), newest first.
 */
struct kb_ioc_info_slice {
	__aligned_u64	age_ms;		/* since it began taking adds */
	__aligned_u64	m;
	__aligned_u64	items;
	__aligned_u64	bytes;
	__aligned_u64	bits_set;
	__u32		k;
	__u32		fpr_ppb;
	__u32		est_fpr_ppb;
	__u32		reserved;
};

/*
 * A filter's description: what KB_CMD_GET's attributes say (section 4),
 * as one struct for userspace (bfctl and the selftests decode replies into
 * it).  No ioctl takes it.
 */
struct kb_ioc_info {
	__u32		size;
	__u32		flags;
	char		name[KB_NAME_MAX];
	__u32		kind;
	__u32		key_type;
	__u32		hash;
	__u32		k;
	__aligned_u64	m;
	__aligned_u64	items;		/* configured capacity */
	__u32		fpr_ppb;	/* configured FPR (per lookup) */
	__u32		expected_fpr_ppb; /* model FPR of a lookup at items */
	__aligned_u64	seed[2];
	__aligned_u64	plen4;		/* prefix lengths held (net types) */
	__aligned_u64	plen6[3];
	__aligned_u64	bytes;		/* payload bytes */
	__aligned_u64	count;		/* keys added to this generation */
	__aligned_u64	bits_set;
	__aligned_u64	est_items;
	__u32		fill_ppm;
	__u32		est_fpr_ppb;	/* of a lookup (prefixes probes) */
	__u32		over_capacity;
	__u32		refs;		/* references held by consumers */
	__aligned_u64	lookups;	/* keys and addresses tested (ioctl,
					 * netlink, consumers), one each
					 */
	__aligned_u64	hits;		/* of which maybe present */
	__aligned_u64	adds;		/* keys added */
	__aligned_u64	generation;	/* id of the current generation */
	__aligned_u64	id;		/* the filter's (KB_A_ID) */
	__u32		prefixes;	/* prefix lengths a lookup tests */
	__u32		reserved0;
	__aligned_u64	reserved[2];
	/* windows and growing filters (KB_A_WINDOW_MS ... KB_A_SLICE) */
	__aligned_u64	window_ms;	/* 0: no window */
	__aligned_u64	next_rotation_ms;
	__aligned_u64	max_bytes;	/* grow: the bound of all slices */
	__u32		grow;		/* 1: a growing filter */
	__u32		nslices;	/* slices held (KB_A_SLICES); 1 for
					 * a plain filter
					 */
	__u32		nslice;		/* entries of slice[] filled (the
					 * KB_A_SLICE nests, at most 16)
					 */
	__u32		reserved1;
	struct kb_ioc_info_slice slice[16];	/* KB_SLICES_MAX */
	/* adds from the packet path (KB_A_MAX_FPR_PPB, KB_A_LEARN_REFUSED) */
	__u32		max_fpr_ppb;	/* their cap; 0: not reported */
	__u32		reserved2;
	__aligned_u64	learn_refused;	/* refused by the cap */
};

/*
 * Batch key operations: KB_IOC_ADD, KB_IOC_TEST, KB_IOC_DEL (counting only,
 * else EOPNOTSUPP), KB_IOC_TEST_ADD.
 *
 * keys points to keys_len bytes holding count keys: with key_size 1..1024
 * every key is key_size bytes (keys_len = count * key_size); with key_size
 * 0 every key is a native-endian __u16 length (1..1024) followed by that
 * many bytes, no padding.  Keys are encoded as the filter's key type says
 * (section 1).
 *
 * result (optional, 0 = none): DIV_ROUND_UP(count, 64) __u64 words, key i
 * is bit i % 64 of word i / 64; set = maybe present (TEST), was new
 * (TEST_ADD), deleted (DEL; a counting delete of an absent key changes
 * nothing).  hits = number of set bits.
 *
 * Keys are processed in order, in chunks; processed = number of keys done.
 * A malformed key fails the call with EINVAL and err_index = its index;
 * the keys before it were processed (use a transaction for
 * all-or-nothing).  A fatal signal ends the call with EINTR.  err_index is
 * ~0 when no key is at fault.
 *
 * KB_KEYS_F_TXN: work on this open file's transaction's staging generation
 * (name must be the transaction's name) instead of the live filter.  Adds
 * to a growing filter's staging generation grow it as live adds do: when
 * its newest slice holds its items, a slice of twice the items at half
 * the FPR is added, up to max_bytes and the memory limits (then it goes
 * over capacity, told at commit); an abort drops every slice it grew.  A
 * window's staging generation does not rotate: its keys go to the newest
 * slice, whose period starts at the commit.
 */
#define KB_KEYS_F_TXN		(1U << 0)

struct kb_ioc_keys {
	__u32		size;
	__u32		flags;		/* KB_KEYS_F_* */
	char		name[KB_NAME_MAX];
	__u32		key_size;	/* 0 = __u16-length-prefixed keys */
	__u32		reserved0;
	__aligned_u64	keys;		/* user pointer */
	__aligned_u64	keys_len;	/* bytes at keys */
	__aligned_u64	count;		/* keys at keys */
	__aligned_u64	result;		/* user pointer to the bitmap, or 0 */
	__aligned_u64	processed;	/* out */
	__aligned_u64	hits;		/* out */
	__aligned_u64	err_index;	/* out */
	__aligned_u64	reserved[2];
};
#define KB_IOC_KEYS_SIZE_VER0	120

/*
 * KB_IOC_UPLOAD: a whole image (section 2) of image_len bytes at image,
 * fully validated (header, length, CRC, payload) before anything changes:
 * EINVAL (malformed; why = enum kb_img_err of the core), EBADMSG (CRC),
 * E2BIG (over max_filter_bytes).  Without flags it atomically replaces the
 * live filter's generation (the key type must stay the same: EINVAL);
 * KB_IMAGE_F_CREATE creates the filter from the image if it does not exist;
 * KB_IMAGE_F_TXN replaces this file's transaction's staging generation.
 * max_fpr_ppb (0: no limit; KB_IMAGE_F_TXN: 0, give it at commit) is the
 * saturation guard: an image whose estimated FPR (kb_ioc_info.est_fpr_ppb,
 * from its fill) is over it is refused with EDOM (why = KB_IMG_SATURATED
 * of the core) and a KB_EVENT_REFUSED event, and the live filter serves
 * unchanged: a value set to all ones would answer "maybe" for every key.
 * An upload that leaves a filter over its configured capacity raises
 * KB_EVENT_OVER_CAPACITY, as an add does.
 *
 * KB_IOC_EXPORT: write the image of the filter (or with KB_IMAGE_F_TXN of
 * the staging generation) to image, a buffer of image_len bytes.  If it is
 * too small (e.g. 0), ENOSPC and image_len = the size needed; on success
 * image_len = the image's length.  The image is copied out in chunks with
 * no lock held (a slow buffer stalls nobody): EAGAIN if the filter changed
 * meanwhile (retry), ENOENT if it was destroyed.
 *
 * Sliced filters (windows and growing filters, KB_A_WINDOW_MS, KB_A_GROW)
 * hold up to KB_SLICES_MAX filters of one kind, hash, key type and seed,
 * newest first; a test ORs them, adds go to the newest.  Their image is one
 * image per slice: slice = n (1 = the newest) exports that slice's image and
 * its age (age_ms: milliseconds since it began taking adds); slice = 0 is
 * EOPNOTSUPP for them, export and upload alike (a whole image, also with
 * KB_IMAGE_F_CREATE of an existing one, or with KB_IMAGE_F_TXN into a
 * transaction that makes one), and slice != 0 EINVAL for the others.  An upload
 * with slice = n (flags 0 or KB_IMAGE_F_TXN) replaces slice n's payload,
 * whose parameters the image must have (EINVAL), and sets its age to
 * age_ms: a window whose newest slice is older than window / slices
 * rotates at once, as many times as are due, so restoring a save taken
 * long ago forgets what has expired since.  A growing filter with fewer
 * than n slices first grows to n.
 */
#define KB_SLICES_MAX		16

#define KB_IMAGE_F_CREATE	(1U << 0)
#define KB_IMAGE_F_TXN		(1U << 1)

struct kb_ioc_image {
	__u32		size;
	__u32		flags;		/* KB_IMAGE_F_* */
	char		name[KB_NAME_MAX];
	__aligned_u64	image;		/* user pointer */
	__aligned_u64	image_len;	/* in: bytes at image; out: see above */
	__u32		why;		/* out: enum kb_img_err on failure */
	__u32		max_fpr_ppb;	/* upload: saturation guard; export: 0 */
	__u32		slice;		/* 0: the whole filter; n: its n-th
					 * slice, 1 = the newest (windows and
					 * growing filters, see below)
					 */
	__u32		reserved0;
	__aligned_u64	age_ms;		/* slice: upload: in; export: out */
};
#define KB_IOC_IMAGE_SIZE_VER0	80

/*
 * Transactions (atomic rebuild), bound to the open file: KB_IOC_TXN_BEGIN
 * (struct kb_ioc_create: name and the new parameters) creates an empty
 * staging generation invisible to lookups (a second begin on the same file
 * -> EBUSY; the key type of an existing filter cannot change -> EINVAL; a
 * name that does not exist yet is created at commit).  Fill it with
 * KB_KEYS_F_TXN batches, KB_IMAGE_F_TXN uploads or KB_IOC_TXN_WRITE's
 * raw bytes, then KB_IOC_TXN_COMMIT
 * publishes it with one pointer replacement (ENOENT if the filter was
 * destroyed meanwhile, EEXIST if a new name was taken); KB_IOC_TXN_ABORT or
 * closing the file discards it (ENOENT: no transaction).  The live filter
 * serves unchanged until commit.  A transaction on an existing filter is
 * bound to that filter, not to its name: if the filter is renamed before
 * commit, the commit replaces it under its new name (and the rebuilt
 * event carries that name).  The batches, uploads and exports of the
 * transaction (the *_F_TXN flags) name it by the name given at begin.
 * A TXN_BEGIN of the first version's size (no shape fields) of a window
 * or a growing filter keeps its window (window_ms, slices) or its growth
 * and the growing filter's max_bytes if one was given (the default for
 * the new sizing if none was, or if its first slice is bigger than the
 * one given), with the default packet-path cap for the new sizing; a VER1
 * one gives the shape (all zero: a plain filter).  items and fpr_ppb are
 * the whole filter's in both, as at create.
 * A commit with max_fpr_ppb (VER1; 0: no limit) refuses a staging
 * generation whose estimated FPR is over it, as an upload does (EDOM, a
 * KB_EVENT_REFUSED event; the transaction ends, the live filter serves
 * unchanged); a commit that leaves the filter over its configured
 * capacity raises KB_EVENT_OVER_CAPACITY.
 *
 * KB_IOC_TXN_COMMIT_GEN commits as KB_IOC_TXN_COMMIT does and, on success,
 * writes back generation: the kb_ioc_info.generation the commit installed
 * (the KB_IOC_MERGE generation to merge into), known without a KB_CMD_GET
 * after it, which would report the generation of whoever replaced the
 * filter in between.  It takes VER2 and bigger only (EINVAL below
 * KB_IOC_TXN_SIZE_VER2, before the transaction is looked at: it stays
 * open); so does a non-zero generation on input (it is kept for a later
 * use as an input).  KB_IOC_TXN_COMMIT and KB_IOC_TXN_ABORT are
 * write-only commands: they never write their argument, and know VER1 at
 * most (a bigger struct's tail must be zero, E2BIG otherwise, as before
 * VER2).  A module without KB_IOC_TXN_COMMIT_GEN
 * answers it ENOTTY and changes nothing: commit with KB_IOC_TXN_COMMIT and
 * read the generation with KB_CMD_GET, knowing that a rebuild in between
 * is indistinguishable from your own.
 */
struct kb_ioc_txn {
	__u32		size;
	__u32		flags;
	/* since VER1: commit's saturation guard, as an upload's; abort: 0 */
	__u32		max_fpr_ppb;
	__u32		reserved;
	/*
	 * since VER2, KB_IOC_TXN_COMMIT_GEN only: in, 0; out, the generation
	 * made
	 */
	__aligned_u64	generation;
};
#define KB_IOC_TXN_SIZE_VER0	8
#define KB_IOC_TXN_SIZE_VER1	16
#define KB_IOC_TXN_SIZE_VER2	24

/*
 * KB_IOC_TXN_WRITE: write len raw payload bytes from data at offset into
 * this file's transaction's staging generation (begun under name), in the
 * byte order of an image's payload, so that a payload can be streamed in
 * pieces as it arrives (bfctl redis pull of a gozero filter: the Redis
 * value is the payload) instead of being held whole for KB_IOC_UPLOAD.
 * EINVAL: flags or reserved non-zero, bad name, offset + len past the
 * payload (kb_ioc_info.bytes); ENOENT: no transaction (EINVAL: another
 * name); EBUSY: the transaction was filled by key batches or an upload (a
 * transaction takes raw writes or those, not both).  Bytes never written
 * stay zero.  EINVAL too for the net4/net6/net key types: their lookups
 * probe only the prefix lengths the image header records, which raw bytes
 * cannot carry (upload an image instead).  KB_IOC_TXN_COMMIT then checks
 * the payload as an upload's (gozero: no bit set past m, EINVAL; classic:
 * its trailing k byte) before publishing it; on failure the transaction
 * ends and the live filter serves unchanged.  The bytes are copied with
 * no lock held.  A write that fails halfway (EFAULT, EINTR) may have
 * stored part of its bytes: abort the transaction.  While a write or a
 * KB_KEYS_F_TXN batch runs on the file's transaction (another thread),
 * KB_IOC_TXN_COMMIT and KB_IOC_TXN_BEGIN answer EBUSY and change nothing,
 * so a half-written payload never goes live.
 */
struct kb_ioc_write {
	__u32		size;
	__u32		flags;		/* none yet: 0 */
	char		name[KB_NAME_MAX];
	__aligned_u64	offset;		/* into the payload */
	__aligned_u64	data;		/* user pointer */
	__aligned_u64	len;
	__aligned_u64	reserved[4];
};
#define KB_IOC_WRITE_SIZE_VER0	96

/*
 * KB_IOC_MERGE: OR byte ranges into the payload of the live generation of
 * the filter called name, in the byte order of an image's payload: what a
 * fleet follower does with the chunks of a Redis value that changed (bfctl
 * redis watch of a stream of deltas), at a cost that grows with the
 * change, not with the filter.  ranges points to nr_ranges struct
 * kb_merge_range (1..KB_MERGE_RANGES_MAX; in any order, overlaps allowed),
 * whose lengths sum to at most KB_MERGE_BYTES_MAX.
 *
 * All of it is copied in and checked before any bit changes, with no lock
 * held; then every range is ORed in with atomic word operations, under RCU
 * and beside concurrent lookups and adds (a merge never clears a bit, so a
 * lookup that overlaps it sees each key either before or after; none that
 * was in the filter is ever missing).  The fill tracker counts exactly the
 * bits the merge set (new_bits), so the FPR estimate and over-capacity
 * hold as for adds; a merge that leaves the filter over its configured
 * capacity raises KB_EVENT_OVER_CAPACITY.
 *
 * generation (in): 0, or the kb_ioc_info.generation the ranges apply to:
 * if the filter now serves another generation (a rebuild, an upload, a
 * flush, a swap), ESTALE and nothing changes (the follower pulls whole).
 * A generation replaced while the merge runs: ESTALE as well; the bits
 * went only to the replaced generation.  generation (out): the generation
 * merged into.  max_fpr_ppb (0: no limit) is the saturation guard of an
 * upload: a merge after which the estimated FPR would be over it is
 * refused with EDOM (why = KB_IMG_SATURATED), a KB_EVENT_REFUSED event,
 * and nothing changes.  Merges of one filter are guarded and applied one
 * at a time (lookups and adds are not held up): of two merges run at once
 * whose deltas each pass the guard but not together, one is refused.  A
 * merge so waits for those of the filter before it, each at most
 * KB_MERGE_BYTES_MAX of ORs with no user copy, in no set order (a
 * writers-group member merging back to back delays another's merges by
 * the time its own take); a fatal signal ends the wait (EINTR, nothing
 * changed).
 *
 * Errors (nothing changed): EINVAL (flags or reserved non-zero, bad name,
 * nr_ranges 0 or over the maximum, a range empty or past the payload, a
 * classic filter's trailing k byte, a gozero bit past m; net4/net6/net
 * key types, as KB_IOC_TXN_WRITE), E2BIG (over KB_MERGE_BYTES_MAX),
 * EOPNOTSUPP (counting filters, whose payload is not bits; sliced filters),
 * ENOENT, ESTALE, EDOM, EFAULT, ENOMEM.  CAP_NET_ADMIN on /dev/kbloom; on
 * a filter's fd (name all zero), KB_OPEN_F_WRITE fds, whose merges are
 * always guarded, at most at the filter's cap (KB_A_MAX_FPR_PPB, as the
 * packet path's adds): a max_fpr_ppb of 0 or above it means the cap, so
 * that a writers-group member cannot saturate the filter in one call.
 */
#define KB_MERGE_RANGES_MAX	4096
#define KB_MERGE_BYTES_MAX	(16U << 20)

struct kb_merge_range {
	__aligned_u64	offset;		/* into the payload */
	__aligned_u64	data;		/* user pointer */
	__aligned_u64	len;		/* bytes, >= 1 */
};

struct kb_ioc_merge {
	__u32		size;
	__u32		flags;		/* none yet: 0 */
	char		name[KB_NAME_MAX];
	__aligned_u64	ranges;		/* user pointer: struct kb_merge_range[] */
	__u32		nr_ranges;
	__u32		max_fpr_ppb;	/* saturation guard; 0: none */
	__aligned_u64	generation;	/* in: 0 or the one expected; out */
	__aligned_u64	new_bits;	/* out: bits the merge set */
	__u32		why;		/* out: enum kb_img_err on failure */
	__u32		reserved0;
	__aligned_u64	reserved[2];
};
#define KB_IOC_MERGE_SIZE_VER0	96

/*
 * A file per filter (for applications: libkbloom).  KB_IOC_OPEN on
 * /dev/kbloom opens the filter named name (or, with name all zero, the
 * filter whose KB_A_ID is id) of the device file's network namespace and
 * returns a new file descriptor bound to that filter (O_CLOEXEC; also
 * stored in fd).  KB_OPEN_F_WRITE opens it for writing.  Who may open:
 * CAP_NET_ADMIN (as every command), or, by the filter's grant (netlink
 * KB_A_READERS, KB_A_WRITERS; see "Privileges"), a member of its readers
 * group (read-only) or of its writers group (either way), both judged on
 * the credentials of the process that opened /dev/kbloom.  Anyone else
 * gets EPERM, whether the filter exists or not; ENOENT only for those who
 * would be allowed to see it.  The fd follows the filter, not its name
 * (a rename keeps it; a destroy ends it: ENOENT from then on).  Like an
 * open /dev/kbloom, it keeps its network namespace; it is not a consumer
 * reference (destroy and rename still work).
 *
 * On the filter's fd:
 *  - KB_IOC_TEST (any fd), KB_IOC_ADD and KB_IOC_TEST_ADD (KB_OPEN_F_WRITE
 *    fds only, else EPERM) take struct kb_ioc_keys with name all zero and
 *    no flags; they work as on /dev/kbloom (exceptions included).
 *  - KB_IOC_MAP_INFO fills a struct kb_map_hdr describing the current
 *    generation, as page 0 of a mapping made now would (its size field is
 *    the caller's, as every ioctl struct's).
 *  - mmap(PROT_READ, MAP_SHARED, offset 0) maps struct kb_map_hdr (page
 *    0, read-only), then the payload of the generation that is current at
 *    the time of the mmap, from offset KB_MAP_PAYLOAD_OFFSET (one page),
 *    map_bytes in all: a page past it answers SIGBUS.  PROT_WRITE,
 *    PROT_EXEC, MAP_PRIVATE, a non-zero offset: EINVAL/EACCES; mprotect to
 *    write and mremap growth fail.  The payload is the live one: adds to
 *    that generation show in the mapping at once.  A mapping keeps its
 *    generation (and its memory, charged to the namespace as before) until
 *    it is unmapped and the fd closed; fork shares it.
 *  - poll(): EPOLLPRI | EPOLLIN once the generation of the fd's last mmap
 *    (or, before any, the one current at open) is no longer the filter's
 *    current one (rebuild, swap, upload, sync, flush, destroy); also
 *    EPOLLHUP once the filter is destroyed.  A flush clears the payload in
 *    place (mappings see the bits go) and starts a new generation id.
 *  - Every other ioctl: ENOTTY.
 *
 * A reader of a mapping tests keys with the core's code on the header's
 * params and the payload; it checks state (one load per call) and maps
 * again when it is no longer KB_MAP_LIVE.  plen4/plen6 and exceptions
 * change while live (adds of new prefix lengths, exception changes); the
 * rest never does.  While exceptions is non-zero a "maybe" found in the
 * mapping must be confirmed with KB_IOC_TEST (the exception set is not
 * mapped; an excepted key answers absent).
 */
#define KB_OPEN_F_WRITE		(1U << 0)

struct kb_ioc_open {
	__u32		size;
	__u32		flags;		/* KB_OPEN_F_* */
	char		name[KB_NAME_MAX];	/* or all zero: by id */
	__aligned_u64	id;		/* KB_A_ID; 0 with a name */
	__s32		fd;		/* out */
	__u32		reserved0;
	__aligned_u64	reserved[2];
};
#define KB_IOC_OPEN_SIZE_VER0	72

#define KB_MAP_MAGIC		0x484d424bU	/* "KBMH", little endian */
#define KB_MAP_VERSION		1
#define KB_MAP_PAYLOAD_OFFSET	4096		/* payload follows one page */

/* struct kb_map_hdr.state */
enum kb_map_state {
	KB_MAP_LIVE		= 1,	/* the filter's current generation */
	KB_MAP_REPLACED		= 2,	/* another generation serves: map again */
	KB_MAP_DESTROYED	= 3,	/* the filter is gone: ENOENT */
};

struct kb_map_hdr {
	__u32		size;		/* sizeof(struct kb_map_hdr) (ioctl:
					 * the caller's)
					 */
	__u32		magic;		/* KB_MAP_MAGIC */
	__u32		version;	/* KB_MAP_VERSION */
	__u32		state;		/* enum kb_map_state: changes */
	__aligned_u64	generation;	/* kb_ioc_info.generation */
	__aligned_u64	id;		/* the filter's KB_A_ID */
	__u32		kind;
	__u32		key_type;
	__u32		hash;
	__u32		k;
	__aligned_u64	m;
	__aligned_u64	items;
	__u32		fpr_ppb;
	__u32		prefixes;
	__aligned_u64	seed[2];
	__aligned_u64	plen4;		/* changes (adds of new lengths) */
	__aligned_u64	plen6[3];	/* changes */
	__aligned_u64	payload_offset;	/* KB_MAP_PAYLOAD_OFFSET */
	__aligned_u64	payload_bytes;	/* kb_ioc_info.bytes */
	__aligned_u64	map_bytes;	/* the mmap length: payload_offset +
					 * payload_bytes rounded up to pages
					 */
	__u32		exceptions;	/* changes: non-zero: confirm maybes */
	__u32		flags;		/* KB_OPEN_F_WRITE if the fd may add */
	__u32		nslices;	/* entries of the slice table: 1 for
					 * KB_MAP_VERSION, 2.. for
					 * KB_MAP_VERSION_SLICES
					 */
	__u32		slices_offset;	/* of the slice table in this page
					 * (KB_MAP_SLICES_OFFSET)
					 */
	__aligned_u64	reserved[3];
};
#define KB_MAP_HDR_SIZE_VER0	184

/*
 * A mapping's slice table (struct kb_map_slice[nslices], at slices_offset
 * of page 0), newest first.  A filter of one slice has one entry equal to
 * the header's payload.  Sliced filters (windows, growing filters) have
 * version KB_MAP_VERSION_SLICES, so that a reader that knows only one
 * payload refuses them rather than miss the keys of the older slices: a
 * key may be present if any slice says so, each tested with its own m and
 * k and the header's kind, hash, key type, seed and prefix lengths (those
 * of all slices).  The header's m, k, items and fpr_ppb are the newest
 * slice's; payload_offset and payload_bytes span all of them.
 */
#define KB_MAP_VERSION_SLICES	2
#define KB_MAP_SLICES_OFFSET	256

struct kb_map_slice {
	__aligned_u64	offset;		/* from the start of the mapping,
					 * page-aligned
					 */
	__aligned_u64	bytes;		/* its payload's length */
	__aligned_u64	m;
	__aligned_u64	items;
	__u32		k;
	__u32		fpr_ppb;
	__aligned_u64	reserved;
};

/*
 * The numbers encode the size of the first version of each struct (the
 * *_SIZE_VER0 constants), not sizeof(): a struct that grows keeps its
 * number, and the caller's size field tells the versions apart.
 */
#define KB_IOC_ADD	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x01, \
			     KB_IOC_KEYS_SIZE_VER0)
#define KB_IOC_TEST	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x02, \
			     KB_IOC_KEYS_SIZE_VER0)
#define KB_IOC_DEL	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x03, \
			     KB_IOC_KEYS_SIZE_VER0)
#define KB_IOC_TEST_ADD	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x04, \
			     KB_IOC_KEYS_SIZE_VER0)
#define KB_IOC_UPLOAD	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x05, \
			     KB_IOC_IMAGE_SIZE_VER0)
#define KB_IOC_EXPORT	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x06, \
			     KB_IOC_IMAGE_SIZE_VER0)
#define KB_IOC_TXN_BEGIN _IOC(_IOC_WRITE, KB_IOC_MAGIC, 0x07, \
			      KB_IOC_CREATE_SIZE_VER0)
#define KB_IOC_TXN_COMMIT _IOC(_IOC_WRITE, KB_IOC_MAGIC, 0x08, \
			       KB_IOC_TXN_SIZE_VER0)
#define KB_IOC_TXN_ABORT _IOC(_IOC_WRITE, KB_IOC_MAGIC, 0x09, \
			      KB_IOC_TXN_SIZE_VER0)
#define KB_IOC_TXN_WRITE _IOC(_IOC_WRITE, KB_IOC_MAGIC, 0x0a, \
			      KB_IOC_WRITE_SIZE_VER0)
#define KB_IOC_OPEN	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x0b, \
			     KB_IOC_OPEN_SIZE_VER0)
#define KB_IOC_MAP_INFO	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x0c, \
			     KB_MAP_HDR_SIZE_VER0)
#define KB_IOC_MERGE	_IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, 0x0d, \
			     KB_IOC_MERGE_SIZE_VER0)
/*
 * A commit that writes back (read-write, so that it is not 0x08 with a
 * direction that lied to strace and seccomp); its first size is VER2
 */
#define KB_IOC_TXN_COMMIT_GEN _IOC(_IOC_READ | _IOC_WRITE, KB_IOC_MAGIC, \
				   0x0e, KB_IOC_TXN_SIZE_VER2)
/* the highest command number (_IOC_NR); 1..KB_IOC_NR_MAX are all used */
#define KB_IOC_NR_MAX	0x0e

/* ---- 4. generic netlink family "kbloom" ------------------------------- */

/*
 * Generic netlink family KB_GENL_NAME, version KB_GENL_VERSION, no family
 * header (attributes follow struct genlmsghdr).  The kernel loads kbloom.ko
 * when the family is resolved (MODULE_ALIAS_GENL_FAMILY).  The family is
 * netns-aware: every command works on the filters of the network namespace
 * of the requesting socket.  The YAML spec is uapi/kbloom.yaml; the
 * family's name, commands, attributes and events are generated from it
 * (<linux/kbloom_netlink.h>, included at the end of this section).
 *
 * Validation is strict for every command: unknown attributes, attributes of
 * the wrong length or type, a non-zero genlmsghdr.reserved and trailing
 * garbage are rejected with EINVAL, values outside a policy range (the
 * enums, FPR_PPB, BITS_PER_KEY, K, key and seed lengths) with ERANGE (both
 * by the netlink core), always with an extended ACK naming the attribute
 * (NLMSGERR_ATTR_OFFS; NLMSGERR_ATTR_MISS_TYPE for a missing one).  Every
 * EINVAL the family returns itself carries an NLMSGERR_ATTR_MSG text
 * ("kbloom: missing attribute NAME (the filter name)", ...).
 *
 * Permissions: every command, do and dump (GET, TEST, EXPORT and GRANT
 * included), needs CAP_NET_ADMIN over the user namespace owning the
 * socket's network namespace (GENL_UNS_ADMIN_PERM; EPERM before the
 * attributes are looked at; see "Privileges" above: grants open filters
 * through /dev/kbloom only).
 *
 * Errors as for the ioctls (section 3): ENOENT (no such filter), EEXIST
 * (name taken), EINVAL, E2BIG, ENOSPC, EBUSY (held by an in-kernel
 * consumer), EPERM, ENOMEM, EOPNOTSUPP (DEL on a non-counting filter),
 * EAGAIN (EXPORT: the filter changed during the dump).
 *
 * Commands (request attributes; "[]" = optional):
 *
 * KB_CMD_CREATE (do): create an empty filter.
 *	KB_A_NAME, [KB_A_KIND] (default blocked), [KB_A_KEY_TYPE] (default
 *	bytes), [KB_A_HASH] (default: classic leveldb, gozero murmur3, others
 *	xxh64),
 *	sizing: KB_A_M + KB_A_K (+ [KB_A_ITEMS], informational), or
 *	KB_A_BITS_PER_KEY (+ [KB_A_ITEMS]), or KB_A_ITEMS + KB_A_FPR_PPB;
 *	the first of KB_A_M, KB_A_BITS_PER_KEY, KB_A_FPR_PPB present picks
 *	the mode (like enum kb_ioc_sizing); a sizing attribute of another
 *	mode is refused (EINVAL, the extack names it).  [KB_A_SEED] (else
 *	random; not for the leveldb hash, second word zero for xxh64).
 *	[KB_A_PREFIXES] (net key types sized by FPR only, 1..129, default
 *	1): the prefix lengths a lookup will test; KB_A_FPR_PPB is met per
 *	lookup of that many (each probe sized for KB_A_FPR_PPB / prefixes).
 *	[KB_A_READERS], [KB_A_WRITERS]: the filter's grants from its
 *	first moment (as KB_CMD_GRANT).
 *	[KB_A_MAX_FPR_PPB] (blocked filters, else EINVAL; not below
 *	KB_A_FPR_PPB, the whole filter's, EINVAL): the cap on adds from the
 *	packet path (the BLOOM target, the add kfuncs): once the filter's
 *	estimated FPR (all its slices) is over it those adds are refused
 *	and counted (KB_A_LEARN_REFUSED) and over-capacity is announced
 *	once per generation.  Default (absent): twice KB_A_FPR_PPB (of the
 *	whole filter, not a window's or growing filter's slices), or 1% for
 *	a filter sized without one.  A rebuild takes the one its
 *	KB_IOC_TXN_BEGIN gives (struct kb_ioc_create.max_fpr_ppb, VER1,
 *	the same checks; 0: the default), as it takes the other parameters.
 *	Reply: ack only.  Event KB_EVENT_CREATED.
 * KB_CMD_DESTROY (do): KB_A_NAME.  Event KB_EVENT_DESTROYED.
 * KB_CMD_GET (do): KB_A_NAME.  Reply: one KB_CMD_GET message with the
 *	filter's info attributes (below).
 * KB_CMD_GET (dump, NLM_F_DUMP): no attributes.  One KB_CMD_GET message
 *	per filter of the namespace, each exactly once if the set of filters
 *	did not change during the dump; if a filter was created, destroyed,
 *	renamed or swapped meanwhile, the messages after the change carry
 *	NLM_F_DUMP_INTR (restart the dump to get a consistent list).
 * KB_CMD_ADD (do): KB_A_NAME, KB_A_KEYS.  Reply: ack only.
 * KB_CMD_TEST (do): KB_A_NAME, KB_A_KEYS.  Reply: KB_CMD_TEST message with
 *	KB_A_NAME, KB_A_RESULT (1 = maybe present, 0 = absent), KB_A_MATCHES.
 * KB_CMD_DEL (do, counting filters only): KB_A_NAME, KB_A_KEYS.  Reply:
 *	KB_CMD_DEL message, KB_A_RESULT 1 = deleted (key tested present).
 * KB_CMD_TEST_ADD (do): KB_A_NAME, KB_A_KEYS.  Reply: KB_CMD_TEST_ADD
 *	message, KB_A_RESULT 1 = the key was new (tested absent before).
 *	A key batch is validated as a whole before anything is done: a
 *	malformed key (for the filter's key type) fails the request with
 *	EINVAL, the extack offset pointing at its KB_KA_DATA, and changes
 *	nothing.  Bulk loads belong to /dev/kbloom (section 3).
 * KB_CMD_SWAP (do): KB_A_NAME, KB_A_NAME2: exchange the two filters'
 *	contents (same key type).  Event KB_EVENT_SWAPPED (NAME, NAME2).
 * KB_CMD_RENAME (do): KB_A_NAME -> KB_A_NAME2.  Event KB_EVENT_RENAMED
 *	(KB_A_NAME = old name, KB_A_NAME2 = new name).
 * KB_CMD_FLUSH (do): KB_A_NAME: clear every bit.  Event KB_EVENT_FLUSHED.
 * KB_CMD_EXPORT (dump only, NLM_F_DUMP): KB_A_NAME.  The filter's image
 *	(section 2, byte-identical to KB_IOC_EXPORT's) in chunks: every
 *	message carries KB_A_NAME, KB_A_IMAGE_SIZE (the whole image's
 *	length), KB_A_OFFSET (of this chunk in the image) and KB_A_CHUNK
 *	(1..KB_NL_CHUNK_MAX bytes); chunks come in order, contiguous, and
 *	cover the image exactly.  Consistency: the export is bound to the
 *	filter's generation and change counter when it starts; if the filter
 *	is changed (keys added or deleted, flushed, swapped, rebuilt,
 *	uploaded) before the last chunk, the dump ends with EAGAIN in
 *	NLMSG_DONE and the extack message "filter changed during export,
 *	retry"; destroyed, with ENOENT ("filter destroyed during export"):
 *	discard what was received.  A completed dump is a consistent
 *	image (its CRC checks).  Request errors (ENOENT, EPERM, EINVAL) come
 *	as the request's NLMSG_ERROR on kernels that give dump starts an extended ACK (6.12)
 *	and as the NLMSG_DONE error with the same message on older ones (6.1).
 *
 * Exceptions (ipset's nomatch): every filter has an exception set, empty
 * at creation, of at most KB_EXC_MAX keys and KB_EXC_BYTES_MAX key bytes
 * in all (more: ENOSPC), charged to the namespace's memory limits.  A key
 * in it (encoded for the filter's key type) is answered absent by every
 * lookup whatever the bits say: KB_CMD_TEST, xt_bloom, the BPF kfuncs and
 * kbloom_test*().  Net key types: an exception is a prefix (an address is
 * its /32 or /128); an address, or a tested net key, within an excepted
 * prefix is absent.  The set is consulted only after the bits said maybe,
 * so absent lookups cost nothing more; lookups and hits count the final
 * answer.  It belongs to the filter, not to a generation: flush, rebuilds,
 * uploads, transaction commits and swaps keep it (a swap exchanges the
 * contents and each filter keeps its own exceptions); rename keeps it;
 * destroy frees it.  KB_IOC_EXPORT and KB_CMD_EXPORT images hold no
 * exceptions (save them with KB_CMD_EXCEPT_LIST).
 * KB_CMD_EXCEPT_ADD (do): KB_A_NAME, KB_A_KEYS, [KB_A_EXIST]: add the keys
 *	(validated as a batch: EINVAL and nothing done for a malformed one).
 *	A key already excepted fails the request with EEXIST (the extack
 *	points at its KB_KA_DATA) unless KB_A_EXIST is given.
 * KB_CMD_EXCEPT_DEL (do): KB_A_NAME, KB_A_KEYS, [KB_A_EXIST]: remove them;
 *	a key not excepted: ENOENT (pointing at it) unless KB_A_EXIST.
 * KB_CMD_EXCEPT_FLUSH (do): KB_A_NAME: empty the set.
 * KB_CMD_EXCEPT_LIST (dump only): KB_A_NAME.  KB_CMD_EXCEPT_LIST messages
 *	of KB_A_NAME and a KB_A_KEYS nest (possibly empty), the keys in a
 *	canonical order (by length, then bytes), each exactly once.  If the
 *	set changes during the dump it ends with EAGAIN ("exceptions changed
 *	during the list, retry").  KB_A_EXCEPT_COUNT in KB_CMD_GET replies
 *	says how many keys the set holds.
 *	No event is sent for exception changes.
 *
 * Grants (see "Privileges" above): a filter's readers and writers groups.
 * KB_CMD_GRANT (do): KB_A_NAME, [KB_A_READERS], [KB_A_WRITERS], at least
 *	one of the two (EINVAL, "missing attribute READERS or WRITERS"):
 *	sets only the groups given.  Each is a u32 gid as the user namespace
 *	owning the filter's network namespace sees it, or KB_GID_NONE to
 *	clear that group.  A gid that user namespace does not map: EINVAL,
 *	the extack naming the attribute, nothing changed.  Event
 *	KB_EVENT_GRANTED (KB_A_NAME).  Grants belong to the filter, not to
 *	its contents: flush, rebuilds, uploads and transaction commits keep
 *	them; a swap exchanges contents and each filter keeps its own grants
 *	(so a rebuild by "create tmp, fill, swap, destroy tmp" keeps the live
 *	filter's readers); rename keeps them; an upload or a commit that
 *	creates a filter creates it without grants.  KB_CMD_GET reports
 *	KB_A_READERS and KB_A_WRITERS only when set, as gids of the user
 *	namespace owning the requesting socket's network namespace.
 *	Membership is checked when the filter is opened (KB_IOC_OPEN): an
 *	open filter stays open after its grant is changed or cleared.
 *
 * Events: multicast group KB_GENL_MCGRP_EVENTS ("events"); only
 * CAP_NET_ADMIN (over the namespace's user namespace) may join (EPERM).
 * Sent per network namespace, only when someone listens: KB_CMD_EVENT
 * messages with KB_A_EVENT (enum kb_nl_event), KB_A_NAME and, for swap and
 * rename, KB_A_NAME2.  Created: KB_CMD_CREATE, an upload that creates, a
 * transaction commit that creates.  Rebuilt: a transaction commit or an
 * image upload that replaces a live filter's generation.  Over-capacity:
 * an add (either transport), an upload or a transaction commit left the
 * filter over its configured capacity (KB_A_OVER_CAPACITY: more keys
 * estimated than KB_A_ITEMS, or an estimated FPR 5% above KB_A_FPR_PPB);
 * once per generation until a flush, so a blocklist about to match
 * everything is noticed; and, once per generation too, an add from the
 * packet path was refused by the filter's KB_A_MAX_FPR_PPB.  Refused: an upload or commit carrying a
 * saturation guard (max_fpr_ppb) was refused as saturated; the filter
 * serves unchanged (the name is the filter's, or the name given to an
 * upload that would have created it).  Granted: KB_CMD_GRANT changed the
 * filter's readers or writers group.  Every event is
 * also logged, rate-limited, with the namespace's inode number: at info
 * level, over-capacity and refused as warnings.
 *
 * Filter info attributes (KB_CMD_GET replies): KB_A_NAME, KB_A_KIND,
 * KB_A_KEY_TYPE, KB_A_HASH, KB_A_M, KB_A_K, KB_A_ITEMS, KB_A_FPR_PPB,
 * KB_A_SEED, KB_A_PLEN4, KB_A_PLEN6, KB_A_BYTES, KB_A_EXPECTED_FPR_PPB,
 * KB_A_COUNT, KB_A_BITS_SET, KB_A_EST_ITEMS, KB_A_FILL_PPM,
 * KB_A_EST_FPR_PPB, KB_A_OVER_CAPACITY, KB_A_REFS, KB_A_LOOKUPS,
 * KB_A_HITS, KB_A_ADDS, KB_A_GENERATION, KB_A_ID, KB_A_PREFIXES (same
 * meanings as struct kb_ioc_info), KB_A_EXCEPT_COUNT (the exception
 * set's size, above), KB_A_READERS and KB_A_WRITERS (the grants, only
 * when set), KB_A_MAX_FPR_PPB (the cap in force, its default resolved)
 * and KB_A_LEARN_REFUSED (adds from the packet path it refused).  The
 * statistics count the packet path's adds (KB_A_ADDS: those that added;
 * KB_A_BITS_SET, KB_A_EST_FPR_PPB: their bits, folded on read).
 * KB_A_PREFIXES (u32) is the number of
 * prefix lengths a lookup tests: for the net key types the most either
 * family holds (0 while empty), 1 for the others; KB_A_EXPECTED_FPR_PPB
 * and KB_A_EST_FPR_PPB are of a lookup of that many probes.  KB_A_ID is the filter's id: unique and never reused
 * while the module is loaded, kept across renames and swaps (a swap
 * exchanges contents, not names), new for a filter destroyed and created
 * again.  u64 attributes are 8 bytes, 64-bit aligned with KB_A_PAD
 * (NLA_PUT_U64_64BIT); all integers are in host byte order.
 */
/* keys per KB_A_KEYS batch at most (and the nest must stay < 64 KiB) */
#define KB_NL_KEYS_MAX		1024
/* KB_A_READERS, KB_A_WRITERS: no group (clears a grant) */
#define KB_GID_NONE		0xffffffffU
/* bytes per KB_A_CHUNK at most */
#define KB_NL_CHUNK_MAX		32768
/* a filter's exception set: keys at most, and their bytes in all */
#define KB_EXC_MAX		4096
#define KB_EXC_BYTES_MAX	65536

/*
 * KB_GENL_NAME, KB_GENL_VERSION, KB_GENL_MCGRP_EVENTS and the enums
 * kb_nl_cmd (KB_CMD_*), kb_nl_event (KB_EVENT_*), kb_nl_attr (KB_A_*) and
 * kb_nl_key_attr (KB_KA_*, nested in KB_A_KEYS) are generated from
 * uapi/kbloom.yaml, where each attribute's type and checks are: edit the
 * spec and run make regen.
 */
#include <linux/kbloom_netlink.h>

#endif /* _UAPI_LINUX_KBLOOM_H */
