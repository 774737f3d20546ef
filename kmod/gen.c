// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom generations: what a create or a rebuild asks for (a spec) becomes
 * filter params, and params become a generation: a payload charged to its
 * namespace's account (limits.c) with its fill tracker, changed by key
 * batches, freed after a grace period.  See internal.h for the objects
 * and lifetimes.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/sched.h>

#include "internal.h"

static atomic64_t kb_gen_seq = ATOMIC64_INIT(0);

/* payloads of 2 MiB and more get huge vmalloc mappings where possible */
#define KB_HUGE_MIN	(2UL << 20)

/*
 * A sizing field of another mode, or a seed the hash does not use, is
 * refused rather than ignored: the caller asked for something the filter
 * would silently not do.  Returns the field as its netlink attribute (for
 * the extack offset; the ioctl fields have the same names), 0 if none.
 */
int kb_spec_unused(const struct kb_spec *s, struct netlink_ext_ack *extack)
{
	if (s->fpr_ppb && s->sizing != KB_SIZING_FPR) {
		NL_SET_ERR_MSG_MOD(extack, "FPR_PPB is only for sizing by items + FPR_PPB");
		return KB_A_FPR_PPB;
	}
	if (s->bits_per_key && s->sizing != KB_SIZING_BPK) {
		NL_SET_ERR_MSG_MOD(extack, "BITS_PER_KEY is only for sizing by bits per key");
		return KB_A_BITS_PER_KEY;
	}
	if (s->m && s->sizing != KB_SIZING_MK) {
		NL_SET_ERR_MSG_MOD(extack, "M is only for sizing by M + K");
		return KB_A_M;
	}
	if (s->k && s->sizing != KB_SIZING_MK) {
		NL_SET_ERR_MSG_MOD(extack, "K is only for sizing by M + K");
		return KB_A_K;
	}
	if (s->prefixes && (s->sizing != KB_SIZING_FPR ||
			    !kb_key_type_is_net(s->key_type) ||
			    s->prefixes > KB_PLENS_MAX)) {
		NL_SET_ERR_MSG_MOD(extack, "PREFIXES (1..129) is only for net key types sized by items + FPR_PPB");
		return KB_A_PREFIXES;
	}
	if (s->has_seed &&
	    (s->hash == KB_HASH_LEVELDB || s->hash == KB_HASH_MURMUR3)) {
		NL_SET_ERR_MSG_MOD(extack, "SEED: the leveldb and murmur3 hashes (classic, gozero filters) take no seed");
		return KB_A_SEED;
	}
	if (s->has_seed && s->hash == KB_HASH_XXH64 && s->seed[1]) {
		NL_SET_ERR_MSG_MOD(extack, "SEED: xxh64 uses only the first word (the second must be 0)");
		return KB_A_SEED;
	}
	return 0;
}

int kb_params_from_spec(struct kb_params *p, const struct kb_spec *s,
			struct netlink_ext_ack *extack)
{
	u64 max = READ_ONCE(kb_max_filter_bytes);
	int ret;

	if (kb_spec_unused(s, extack))
		return -EINVAL;

	ret = kb_params_init(p, s->kind);
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack, "unknown filter kind");
		return ret;
	}
	p->key_type = s->key_type;
	p->hash = s->hash;
	switch (s->sizing) {
	case KB_SIZING_FPR:
		/* the FPR asked for is per lookup: of this many probes */
		ret = kb_params_from_fpr_plens(p, s->items, s->fpr_ppb,
					       s->prefixes ?: 1, max);
		break;
	case KB_SIZING_BPK:
		ret = kb_params_from_bpk(p, s->items, s->bits_per_key, max);
		break;
	case KB_SIZING_MK:
		p->items = s->items;
		ret = kb_params_from_mk(p, s->m, s->k, max);
		break;
	default:
		ret = -EINVAL;
	}
	if (ret) {
		if (ret == -E2BIG)
			NL_SET_ERR_MSG_MOD(extack, "filter larger than max_filter_bytes");
		else
			NL_SET_ERR_MSG_MOD(extack, "bad sizing parameters");
		return ret;
	}
	if (s->has_seed) {
		p->seed[0] = s->seed[0];
		p->seed[1] = s->seed[1];
	} else if (p->hash == KB_HASH_XXH64) {
		p->seed[0] = get_random_u64();
	} else if (p->hash == KB_HASH_SIPHASH) {
		p->seed[0] = get_random_u64();
		p->seed[1] = get_random_u64();
	}
	ret = kb_params_validate(p, max);
	if (ret)
		NL_SET_ERR_MSG_MOD(extack, "invalid parameters (hash, key type or seed)");
	return ret;
}

/* ---- generations -------------------------------------------------------- */

/*
 * The payload, mappable into user space page by page (filter files,
 * dev_filter.c), so never slab memory: whole pages of the direct map or
 * vmalloc.  alloc_pages_exact() gives exact-size pages (it frees the tail
 * of its power-of-two block) below 2 MiB, with vmalloc as the fallback
 * when memory is fragmented; from 2 MiB, huge (2 MiB) vmalloc mappings
 * where they waste at most 1/16 (their pages are split since 6.1, so
 * vmalloc_to_page() finds each), plain vmalloc else.  Packet paths read
 * both the same way: the filter code sees a pointer.
 */
static void *kb_payload_alloc(u64 bytes, gfp_t gfp)
{
	size_t len = PAGE_ALIGN(bytes);
	void *p;

	/*
	 * vmalloc takes whole pages anyway; asked for len, not bytes, so that
	 * kb_gen_new()'s clearing of the last page's tail stays within what
	 * FORTIFY_SOURCE knows was allocated
	 */
	if (bytes >= KB_HUGE_MIN &&
	    round_up(bytes, KB_HUGE_MIN) - bytes <= bytes / 16)
		return kb_vmalloc_big(len, gfp);
	if (bytes < KB_HUGE_MIN) {
		/* as kvmalloc(): no reclaim storm for a costly order */
		gfp_t g = gfp | __GFP_NOWARN;

		if (get_order(len) > PAGE_ALLOC_COSTLY_ORDER)
			g |= __GFP_NORETRY;
		p = alloc_pages_exact(len, g);
		if (p)
			return p;
	}
	return __vmalloc(len, gfp);
}

static void kb_payload_free(void *p, u64 bytes)
{
	if (is_vmalloc_addr(p))
		vfree(p);
	else if (p)
		free_pages_exact(p, PAGE_ALIGN(bytes));
}

/* the final free of a generation: its payload is uncharged only now */
static void kb_gen_release(struct kb_gen *g)
{
	kb_map_release(g);
	kb_acct_uncharge(g->acct, g->f.bytes);
	kb_acct_put(g->acct);
	kb_payload_free(g->f.payload, g->f.bytes);
	kfree(g->fill);
	kb_learn_gen_free(g);
	kfree(g);
}

static void kb_gen_free_rcu(struct rcu_head *head)
{
	kb_gen_release(container_of(head, struct kb_gen, rcu));
}

/*
 * A new generation for p, charged to net.  clear: an empty filter (zeroed
 * by the allocator, page by page with rescheduling points, not by one
 * memset); else the caller fills g->f.payload (g->f.bytes long), binds it
 * with kb_filter_attach(&g->f, ...) and counts it with kb_gen_fill().  The
 * fill tracker (~4 KiB) is not charged to the namespace: it is not payload.
 */
struct kb_gen *kb_gen_new(struct net *net, const struct kb_params *p,
			  bool clear, struct netlink_ext_ack *extack)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN;
	struct kb_acct *acct = kb_net(net)->acct;
	u64 bytes = kb_params_payload_bytes(p);
	struct kb_fill *fill;
	struct kb_gen *g;
	void *payload;
	int ret;

	/* (size_t) for 32-bit kernels, where a u64 size would truncate */
	if (bytes > READ_ONCE(kb_max_filter_bytes) || (size_t)bytes != bytes) {
		NL_SET_ERR_MSG_MOD(extack, "filter larger than max_filter_bytes");
		return ERR_PTR(-E2BIG);
	}
	ret = kb_acct_charge(acct, bytes, extack);
	if (ret)
		return ERR_PTR(ret);
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	payload = kb_payload_alloc(bytes, clear ? gfp | __GFP_ZERO : gfp);
	fill = kmalloc(kb_fill_bytes(p), GFP_KERNEL_ACCOUNT);
	if (!g || !payload || !fill) {
		kfree(g);
		kb_payload_free(payload, bytes);
		kfree(fill);
		kb_acct_uncharge(acct, bytes);
		NL_SET_ERR_MSG_MOD(extack, "out of memory for the filter");
		return ERR_PTR(-ENOMEM);
	}
	/*
	 * a mapping shows whole pages: the bytes after the payload in its
	 * last page are zero, never what the page held before
	 */
	if (!clear)
		memset((u8 *)payload + bytes, 0, PAGE_ALIGN(bytes) - bytes);
	refcount_set(&g->ref, 1);
	g->acct = kb_acct_get(acct);
	g->f.payload = payload;
	g->f.bytes = bytes;
	g->f.p = *p;
	g->fill = fill;
	g->id = atomic64_inc_return(&kb_gen_seq);
	if (kb_learn_gen_init(g)) {
		kb_gen_discard(g);
		NL_SET_ERR_MSG_MOD(extack, "out of memory for the filter");
		return ERR_PTR(-ENOMEM);
	}
	if (clear) {
		ret = kb_filter_init_zeroed(&g->f, p, payload, bytes);
		if (ret) {
			kb_gen_discard(g);
			NL_SET_ERR_MSG_MOD(extack, "invalid parameters");
			return ERR_PTR(ret);
		}
		kb_fill_init_empty(g->fill, &g->f);
	}
	return g;
}

/*
 * Count an attached payload (an upload) into g's fill tracker: one scan,
 * yielding, before g is published and outside any lock.
 */
void kb_gen_fill(struct kb_gen *g)
{
	kb_fill_init(g->fill, &g->f);
	kb_learn_sync(g);
}

/*
 * Whether g is over its configured capacity (kb_stats.over_capacity: more
 * keys estimated than items, or the estimated FPR past the configured
 * one) and has not said so yet.  From the fill tracker's counters, no
 * payload scan: cheap enough after every add batch.  Writers only.
 */
bool kb_gen_over(struct kb_gen *g)
{
	struct kb_stats st;

	if (g->over_told)
		return false;
	kb_filter_stats_fill(&g->f, &st);
	g->over_told = st.over_capacity;
	return g->over_told;
}

/*
 * The saturation guard of an upload or a commit (uapi KB_IOC_UPLOAD), on
 * g before it is published, no lock held: from the fill tracker's
 * counters, so no payload scan runs here (kb_gen_fill() or the writers
 * counted them).  Refused: -EDOM, announced as KB_EVENT_REFUSED under
 * name, and the caller discards g, so the live generation serves on.
 */
int kb_gen_guard(struct net *net, struct kb_gen *g, const char *name,
		 u32 max_fpr_ppb, struct netlink_ext_ack *extack)
{
	struct kb_stats st;

	if (!kb_filter_guard(&g->f, max_fpr_ppb, &st))
		return 0;
	NL_SET_ERR_MSG_MOD(extack, "saturated: estimated false positive rate over the limit");
	kb_reg_announce(net, KB_EVENT_REFUSED, name, NULL);
	return -EDOM;
}

/*
 * The last reference frees g after a grace period: lockless readers that
 * found it through kb_set.gen may still be reading it.
 */
void kb_gen_put(struct kb_gen *g)
{
	if (refcount_dec_and_test(&g->ref))
		call_rcu(&g->rcu, kb_gen_free_rcu);
}

/*
 * The same from an RCU callback (a filter's free): the readers that could
 * reach g through its filter are gone already, so the last reference
 * frees at once.  A call_rcu() queued from a callback could outlive the
 * rcu_barrier() of the module's exit.
 */
void kb_gen_put_rcu(struct kb_gen *g)
{
	if (refcount_dec_and_test(&g->ref))
		kb_gen_release(g);
}

/*
 * Drop the owner's reference of a generation that is not or no longer
 * live; mappings may keep it (and its charge) a while longer.
 */
void kb_gen_discard(struct kb_gen *g)
{
	if (g)
		kb_gen_put(g);
}

/*
 * A flush clears g in place: it takes a new id, so that exports restart,
 * kb_ioc_info.generation changes and mappings see a new generation
 * (the filter's kb_set.lock held).
 */
void kb_gen_renew(struct kb_gen *g)
{
	g->id = atomic64_inc_return(&kb_gen_seq);
}

/*
 * Validate keys[0..n) for g's key type (recording prefix lengths for adds
 * to net types) and apply op.  A bad key at index j: keys [0, j) are
 * processed, *bad = j, -EINVAL.  Returns the number of bits set in bitmap
 * (maybe present / new / deleted) otherwise.  Writers serialize.
 */
int kb_gen_keys(struct kb_gen *g, enum kb_op op, const struct kb_key *keys,
		u32 n, u64 *bitmap, u32 *bad, struct netlink_ext_ack *extack)
{
	bool adding = op == KB_OP_ADD || op == KB_OP_TEST_ADD;
	u32 i, good = n;
	int ret = 0;

	if (op == KB_OP_DEL && g->f.p.kind != KB_KIND_COUNTING) {
		NL_SET_ERR_MSG_MOD(extack, "delete needs a counting filter");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < n; i++) {
		if (adding)
			ret = kb_params_note_prefix(&g->f.p, keys[i].data,
						    keys[i].len);
		else
			ret = kb_key_validate(g->f.p.key_type, keys[i].data,
					      keys[i].len);
		if (ret) {
			good = i;
			*bad = i;
			NL_SET_ERR_MSG_MOD(extack, "malformed key for the filter's key type");
			break;
		}
	}
	if (!good)
		return ret;
	switch (op) {
	case KB_OP_ADD: {
		/* count distinct keys, as offline image builds do */
		u32 new = kb_filter_test_and_add_many(&g->f, keys, good, NULL);

		WRITE_ONCE(g->count, g->count + new);
		/* no new key, no new bit (counting: counters still move) */
		if (new || g->f.p.kind == KB_KIND_COUNTING)
			g->seq++;
		if (bitmap)
			memset(bitmap, 0, DIV_ROUND_UP(good, 64) * 8);
		kb_learn_sync(g);
		break;
	}
	case KB_OP_TEST: {
		/*
		 * the keys before a bad one are processed: their answers too.
		 * A host address in a net filter is one lookup of every
		 * prefix length held, as a packet's, and counts as one.
		 */
		u32 hits = kb_filter_lookup_many(&g->f, keys, good, bitmap);

		ret = ret ?: hits;
		break;
	}
	case KB_OP_TEST_ADD: {
		u32 new = kb_filter_test_and_add_many(&g->f, keys, good, bitmap);

		WRITE_ONCE(g->count, g->count + new);
		if (new || g->f.p.kind == KB_KIND_COUNTING)
			g->seq++;
		kb_learn_sync(g);
		ret = ret ?: new;
		break;
	}
	case KB_OP_DEL: {
		int del = kb_filter_del_many(&g->f, keys, good, bitmap);

		if (del > 0) {
			WRITE_ONCE(g->count, g->count - min_t(u64, del, g->count));
			g->seq++;
		}
		ret = ret ?: del;
		break;
	}
	}
	return ret;
}
