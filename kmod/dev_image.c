// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: image upload and export through /dev/kbloom (uapi section 3),
 * and raw payload writes into a transaction.
 * Both copy in steps through a kernel buffer, and neither holds a lock or
 * a filter reference across a copy to or from user memory: an export
 * re-finds its filter by id for each step and answers EAGAIN if it
 * changed, ENOENT if it was destroyed.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/overflow.h>

#include "internal.h"
#include "dev.h"
#include "slices_image.h"

#define KB_IMG_CHUNK	(1U << 20)	/* image bytes per step */

/*
 * A generation from a user image, fully validated; charged to net.  The
 * cursor checks the header before the generation is allocated, and the
 * payload is copied from the user straight into it.
 */
static struct kb_gen *kb_image_read(struct net *net, const u8 __user *src,
				    u64 len, u32 *why)
{
	struct kb_image_cur c;
	struct kb_gen *g = NULL;
	u64 off = 0, room, n;
	void *dst;
	int ret = 0;

	kb_image_cur_read_begin(&c, len, READ_ONCE(kb_max_filter_bytes));
	while ((dst = kb_image_cur_buf(&c, &room))) {
		n = min_t(u64, room, KB_IMG_CHUNK);
		if (copy_from_user(dst, src + off, n)) {
			ret = -EFAULT;
			goto fail;
		}
		off += n;
		ret = kb_image_cur_advance(&c, n);
		if (ret)
			break;
		if (kb_image_cur_wants_payload(&c)) {
			g = kb_gen_new(net, &c.p, NULL, false, NULL);
			if (IS_ERR(g)) {
				*why = c.why;
				return g;
			}
			c.payload = g->f.payload;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto fail;
		}
		cond_resched();
	}
	ret = kb_image_cur_read_end(&c);
	if (!ret)
		ret = kb_filter_attach(&g->f, &c.p, g->f.payload,
				       c.payload_len);
	*why = c.why;
	if (ret)
		goto fail;
	kb_gen_fill(g);
	g->count = c.count;
	return g;
fail:
	if (g)
		kb_gen_discard(g);
	return ERR_PTR(ret);
}

/*
 * Slice a->slice of a window or growing filter from g (a plain generation
 * of the image): in this file's transaction (the staging generation is
 * this file's alone) or in the live filter (under its lock, published as
 * a rotation is).  Consumes g.
 */
static long kb_ioc_upload_slice(struct kb_file *kf, struct kb_ioc_image *a,
				struct kb_gen *g, u32 *why)
{
	struct kb_slice_up *up;
	struct kb_gen *cur, *ng;
	struct kb_set *s;
	u64 seq;
	long ret;

	if (a->flags & KB_IMAGE_F_TXN) {
		struct kb_txn *t;

		mutex_lock(&kf->lock);
		t = kb_file_txn_find(kf, a->name);
		up = IS_ERR(t) ? ERR_CAST(t) :
		     kb_slice_up_prep(t->gen, a->slice, g, a->age_ms, why,
				      NULL);
		ng = IS_ERR(up) ? ERR_CAST(up) : kb_slice_up_link(up, t->gen,
								  NULL);
		ret = PTR_ERR_OR_ZERO(ng);
		if (!ret)
			ret = kb_txn_set_gen(t, ng, NULL);
		mutex_unlock(&kf->lock);
		if (IS_ERR(ng))
			kb_gen_discard(g);
		else if (ret)
			kb_gen_discard(ng);
		return ret;
	}
	s = kb_set_find(kf->net, a->name, false);
	if (IS_ERR(s)) {
		kb_gen_discard(g);
		return PTR_ERR(s);
	}
	if (mutex_lock_killable(&s->lock)) {
		ret = -EINTR;
		goto out;
	}
	cur = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	refcount_inc(&cur->ref);	/* its payload, read with no lock */
	seq = cur->seq;
	ret = s->dead ? -ENOENT : 0;
	mutex_unlock(&s->lock);
	up = ret ? ERR_PTR(ret) :
	     kb_slice_up_prep(cur, a->slice, g, a->age_ms, why, NULL);
	ret = PTR_ERR_OR_ZERO(up);
	if (ret)
		goto put;
	if (mutex_lock_killable(&s->lock)) {
		kb_slice_up_abort(up);
		ret = -EINTR;
		goto put;
	}
	/* replaced or added to since the copy: the caller retries */
	if (s->dead || cur != rcu_dereference_protected(s->gen,
					lockdep_is_held(&s->lock)) ||
	    cur->seq != seq) {
		kb_slice_up_abort(up);
		ret = s->dead ? -ENOENT : -EAGAIN;
		mutex_unlock(&s->lock);
		goto put;
	}
	ng = kb_slice_up_link(up, cur, NULL);
	ret = PTR_ERR_OR_ZERO(ng);
	if (!ret) {
		/* published as kb_set_replace() does, under the same lock */
		rcu_assign_pointer(s->gen, ng);
		kb_slices_arm(s);
		kb_map_retire(cur, KB_MAP_REPLACED);
	}
	mutex_unlock(&s->lock);
	if (!ret) {
		kb_map_wake(s);
		kb_gen_discard(cur);	/* the filter's reference */
		kb_reg_announce(kf->net, KB_EVENT_REBUILT, a->name, NULL);
	}
put:
	kb_gen_put(cur);
out:
	if (ret)
		kb_gen_discard(g);
	kb_set_put(s);
	return ret;
}

long kb_ioc_upload(struct file *file, struct kb_file *kf, void __user *u)
{
	struct kb_ioc_image a;
	struct kb_gen *g;
	u32 usize, why = 0;
	bool over = false;
	long ret;

	ret = kb_copy_in(&a, sizeof(a), KB_IOC_IMAGE_SIZE_VER0, u, &usize);
	if (ret)
		return ret;
	if ((a.flags & ~(KB_IMAGE_F_CREATE | KB_IMAGE_F_TXN)) ||
	    (a.flags & KB_IMAGE_F_CREATE && a.flags & KB_IMAGE_F_TXN) ||
	    (a.flags & KB_IMAGE_F_TXN && a.max_fpr_ppb) ||
	    (a.slice && (a.flags & KB_IMAGE_F_CREATE || a.max_fpr_ppb)) ||
	    a.slice > KB_SLICES_MAX || (!a.slice && a.age_ms) ||
	    a.reserved0 || !kb_ioc_name_ok(a.name))
		return -EINVAL;
	g = kb_image_read(kf->net, u64_to_user_ptr(a.image), a.image_len,
			  &why);
	if (IS_ERR(g)) {
		ret = PTR_ERR(g);
		a.why = why;
		if (kb_copy_out(u, &a, sizeof(a), usize))
			return -EFAULT;
		return ret;
	}
	if (a.slice) {
		ret = kb_ioc_upload_slice(kf, &a, g, &why);
		if (ret && why) {
			a.why = why;
			if (kb_copy_out(u, &a, sizeof(a), usize))
				ret = -EFAULT;
		}
		return ret;	/* g consumed either way */
	}
	if (a.flags & KB_IMAGE_F_TXN) {
		struct kb_txn *t;

		mutex_lock(&kf->lock);
		t = kb_file_txn_find(kf, a.name);
		ret = IS_ERR(t) ? PTR_ERR(t) : kb_txn_set_gen(t, g, NULL);
		mutex_unlock(&kf->lock);
	} else {
		/* g is not published yet: nobody else writes its counters */
		ret = kb_gen_guard(kf->net, g, a.name, a.max_fpr_ppb, NULL);
		over = !ret && kb_gen_over(g);
		if (ret) {
			a.why = KB_IMG_SATURATED;
			if (kb_copy_out(u, &a, sizeof(a), usize))
				ret = -EFAULT;
		} else {
			ret = kb_reg_upload(kf->net, a.name, g,
					    a.flags & KB_IMAGE_F_CREATE, NULL);
		}
		if (!ret && over)
			kb_reg_announce(kf->net, KB_EVENT_OVER_CAPACITY,
					a.name, NULL);
	}
	if (ret)
		kb_gen_discard(g);
	return ret;
}

/*
 * What an export reads: a filter's live generation (set_id) or the file's
 * transaction (set_id 0).  No lock is held across a copy to the user (a
 * userfaultfd- or FUSE-backed buffer can stall it for ever, and a GET
 * waiting on the filter's mutex would hold genetlink's cb_lock): each step
 * copies a chunk into a kernel buffer under the lock, after checking the
 * rule of the netlink export (netlink_export.c): same generation id,
 * change counter and prefix bitmaps as at the first step, else EAGAIN.
 * No reference is kept between steps either: the filter is re-found by id
 * (destroyed: ENOENT).
 */
struct kb_out {
	struct kb_file *kf;
	u32 slice;			/* 0: the whole filter */
	u64 set_id;
	struct kb_set *s;		/* between lock and unlock */
	bool bound;			/* the fields below are set */
	u64 gen_id;
	u64 seq;
	u64 plen4;
	u64 plen6[3];
};

static void kb_out_unlock(struct kb_out *o)
{
	if (o->s) {
		mutex_unlock(&o->s->lock);
		kb_set_put(o->s);
		o->s = NULL;
	} else {
		mutex_unlock(&o->kf->lock);
	}
}

/*
 * lock the source; *fp: its filter (the slice o->slice of its generation),
 * unchanged since the first call; *count, *age_ms its keys and age
 */
static int kb_out_lock(struct kb_out *o, const char *name,
		       const struct kb_filter **fp, u64 *count, u64 *age_ms)
{
	const struct kb_filter *f;
	struct kb_gen *g;
	int ret = 0;

	if (o->set_id) {
		o->s = kb_set_find_id(o->kf->net, o->set_id);
		if (IS_ERR(o->s)) {
			ret = PTR_ERR(o->s);
			o->s = NULL;
			return ret;
		}
		if (mutex_lock_killable(&o->s->lock)) {
			kb_set_put(o->s);
			o->s = NULL;
			return -EINTR;
		}
		g = rcu_dereference_protected(o->s->gen,
					      lockdep_is_held(&o->s->lock));
		if (o->s->dead)
			ret = -ENOENT;
	} else {
		struct kb_txn *t;

		if (mutex_lock_killable(&o->kf->lock))
			return -EINTR;
		t = kb_file_txn_find(o->kf, name);
		if (IS_ERR(t))
			ret = PTR_ERR(t);
		else
			g = t->gen;
	}
	if (!ret)
		ret = kb_gen_slice_out(g, o->slice, &f, count, age_ms, NULL);
	if (!ret && o->bound &&
	    (g->id != o->gen_id || g->seq != o->seq ||
	     f->p.plen4 != o->plen4 ||
	     memcmp(f->p.plen6, o->plen6, sizeof(o->plen6))))
		ret = -EAGAIN;
	if (ret) {
		kb_out_unlock(o);
		return ret;
	}
	if (!o->bound) {
		o->bound = true;
		o->gen_id = g->id;
		o->seq = g->seq;
		o->plen4 = f->p.plen4;
		memcpy(o->plen6, f->p.plen6, sizeof(o->plen6));
	}
	*fp = f;
	return 0;
}

/* write the source's image to the user, one consistent generation */
static long kb_image_out(struct kb_out *o, struct kb_ioc_image *a)
{
	u8 __user *dst = u64_to_user_ptr(a->image);
	const struct kb_filter *f;
	struct kb_image_cur c;
	u64 off, n, count, age;
	u8 *bounce;
	long ret;

	ret = kb_out_lock(o, a->name, &f, &count, &a->age_ms);
	if (ret)
		return ret;
	kb_image_cur_write_begin(&c, &f->p, count);
	kb_out_unlock(o);
	if (a->image_len < c.total) {
		a->image_len = c.total;
		return -ENOSPC;
	}
	/* a small filter needs no 1 MiB bounce buffer (and no high order) */
	bounce = kvmalloc(min_t(u64, c.total, KB_IMG_CHUNK), GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	for (off = 0; off < c.total; off += n) {
		n = min_t(u64, c.total - off, KB_IMG_CHUNK);
		/* the filter's lock only for pieces that hold payload */
		f = NULL;
		if (kb_image_cur_wants_filter(&c, n)) {
			ret = kb_out_lock(o, a->name, &f, &count, &age);
			if (ret)
				goto out;
		}
		kb_image_cur_produce(&c, f, bounce, n);
		if (f)
			kb_out_unlock(o);
		if (copy_to_user(dst + off, bounce, n)) {
			ret = -EFAULT;
			goto out;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out;
		}
		cond_resched();
	}
	a->image_len = c.total;
out:
	kvfree(bounce);
	return ret;
}

long kb_ioc_export(struct file *file, struct kb_file *kf, void __user *u)
{
	struct kb_out o = { .kf = kf };
	struct kb_ioc_image a;
	struct kb_set *s;
	u32 usize;
	long ret;

	ret = kb_copy_in(&a, sizeof(a), KB_IOC_IMAGE_SIZE_VER0, u, &usize);
	if (ret)
		return ret;
	if ((a.flags & ~KB_IMAGE_F_TXN) || a.max_fpr_ppb ||
	    a.slice > KB_SLICES_MAX || a.reserved0 || a.age_ms ||
	    !kb_ioc_name_ok(a.name))
		return -EINVAL;
	a.why = 0;
	o.slice = a.slice;
	if (!(a.flags & KB_IMAGE_F_TXN)) {
		s = kb_set_find(kf->net, a.name, false);
		if (IS_ERR(s))
			return PTR_ERR(s);
		o.set_id = s->id;
		kb_set_put(s);
	}
	ret = kb_image_out(&o, &a);
	if ((!ret || ret == -ENOSPC) && kb_copy_out(u, &a, sizeof(a), usize))
		return -EFAULT;
	return ret;
}

/*
 * KB_IOC_TXN_WRITE: raw payload bytes into the file's transaction, copied
 * from the user a chunk at a time into a bounce buffer with no lock held,
 * then stored under kf->lock (a transaction found again for each chunk:
 * one aborted meanwhile answers ENOENT; commit and begin answer EBUSY
 * while the write runs, kf->busy).
 */
long kb_ioc_txn_write(struct file *file, struct kb_file *kf, void __user *u)
{
	struct kb_ioc_write a;
	const u8 __user *src;
	struct kb_txn *t;
	u64 done, n, end;
	u32 usize;
	u8 *bounce;
	long ret;

	ret = kb_copy_in(&a, sizeof(a), KB_IOC_WRITE_SIZE_VER0, u, &usize);
	if (ret)
		return ret;
	if (a.flags || !kb_zero(a.reserved, sizeof(a.reserved)) ||
	    !kb_ioc_name_ok(a.name) || check_add_overflow(a.offset, a.len, &end))
		return -EINVAL;
	/* the bounds first: a bad write copies nothing */
	if (mutex_lock_killable(&kf->lock))
		return -EINTR;
	t = kb_file_txn_find(kf, a.name);
	if (IS_ERR(t))
		ret = PTR_ERR(t);
	else if (end > t->gen->f.bytes)
		ret = -EINVAL;
	else if (kb_key_type_is_net(t->gen->f.p.key_type))
		/*
		 * lookups probe only the prefix lengths the filter records
		 * (plen4/plen6), which raw bytes cannot carry: committed, the
		 * filter would match no address at all
		 */
		ret = -EINVAL;
	else if (t->fill == KB_TXN_KEYS)
		ret = -EBUSY;
	if (!ret && a.len)
		kf->busy++;
	mutex_unlock(&kf->lock);
	if (ret || !a.len)
		return ret;
	bounce = kvmalloc(min_t(u64, a.len, KB_IMG_CHUNK), GFP_KERNEL_ACCOUNT);
	if (!bounce) {
		kb_file_unbusy(kf);
		return -ENOMEM;
	}
	src = u64_to_user_ptr(a.data);
	for (done = 0; done < a.len; done += n) {
		n = min_t(u64, a.len - done, KB_IMG_CHUNK);
		if (copy_from_user(bounce, src + done, n)) {
			ret = -EFAULT;
			break;
		}
		if (mutex_lock_killable(&kf->lock)) {
			ret = -EINTR;
			break;
		}
		t = kb_file_txn_find(kf, a.name);
		ret = IS_ERR(t) ? -ENOENT :
		      kb_txn_write(t, a.offset + done, bounce, n);
		mutex_unlock(&kf->lock);
		if (ret)
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	kvfree(bounce);
	kb_file_unbusy(kf);
	return ret;
}
