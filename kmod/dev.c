// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: the /dev/kbloom misc device and its ioctls (uapi section 3):
 * only what is bound to an open file or is bulk data (key batches, images,
 * transactions, merges); the control plane is netlink.c's.
 *
 * An open file remembers its opener's network namespace and holds at most
 * one rebuild transaction, discarded when the file is closed.  Image
 * upload and export are in dev_image.c, the merge in dev_merge.c.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/nsproxy.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/sizes.h>
#include <linux/overflow.h>

#include "internal.h"
#include "dev.h"

#define KB_CHUNK_BYTES	(64U << 10)	/* keys copied in per step */
#define KB_CHUNK_KEYS	4096U		/* keys per step at most */

/* an ioctl's name field: a valid name, NUL-padded (the bytes are ABI) */
bool kb_ioc_name_ok(const char name[KB_NAME_MAX])
{
	size_t len = strnlen(name, KB_NAME_MAX);

	return kb_name_ok(name, NULL) &&
	       !memchr_inv(name + len, 0, KB_NAME_MAX - len);
}

/* read a versioned struct: size first, copy_struct_from_user() semantics */
int kb_copy_in(void *k, size_t ksize, size_t ver0,
	       const void __user *u, u32 *usize)
{
	u32 size;
	int ret;

	if (get_user(size, (const u32 __user *)u))
		return -EFAULT;
	if (size < ver0)
		return -EINVAL;
	if (size > SZ_4K)	/* as openat2/clone3: no scan of a huge tail */
		return -E2BIG;
	ret = copy_struct_from_user(k, ksize, u, size);
	if (ret)
		return ret;
	*usize = size;
	return 0;
}

int kb_copy_out(void __user *u, const void *k, size_t ksize, u32 usize)
{
	return copy_to_user(u, k, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

bool kb_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

bool kb_admin(struct file *file, struct kb_file *kf)
{
	return file_ns_capable(file, kf->net->user_ns, CAP_NET_ADMIN);
}

/*
 * kf's transaction, if it was begun under name (kf->lock held): the one
 * lookup of the batches, uploads and exports that name it (the *_F_TXN
 * flags).  ENOENT without one, EINVAL if it has another name.
 */
struct kb_txn *kb_file_txn_find(struct kb_file *kf, const char *name)
{
	lockdep_assert_held(&kf->lock);
	if (!kf->txn)
		return ERR_PTR(-ENOENT);
	if (strncmp(kf->txn->name, name, KB_NAME_MAX))
		return ERR_PTR(-EINVAL);
	return kf->txn;
}

/* ---- batches -------------------------------------------------------------- */

/* appends result bits to the user's bitmap at any bit offset */
struct kb_bitw {
	u64 __user *dst;
	u64 cur;
	u64 nbits;
};

static int kb_bitw_put(struct kb_bitw *w, const u64 *bits, u32 n)
{
	u32 i;

	if (!w->dst)
		return 0;
	for (i = 0; i < n; i += 64) {
		u32 cnt = min(n - i, 64U), sh = w->nbits % 64;
		u64 v = bits[i / 64];

		if (cnt < 64)
			v &= (1ULL << cnt) - 1;
		w->cur |= v << sh;
		if (sh + cnt >= 64) {
			if (put_user(w->cur, w->dst + w->nbits / 64))
				return -EFAULT;
			w->cur = sh ? v >> (64 - sh) : 0;
		}
		w->nbits += cnt;
	}
	return 0;
}

static int kb_bitw_flush(struct kb_bitw *w)
{
	if (!w->dst || !(w->nbits % 64))
		return 0;
	return put_user(w->cur, w->dst + w->nbits / 64) ? -EFAULT : 0;
}

struct kb_batch {
	u8 *buf;
	struct kb_key *keys;
	u64 bits[KB_CHUNK_KEYS / 64];
};

/* split buf[0..avail) into at most max keys; *used = bytes consumed */
static u32 kb_parse_keys(struct kb_batch *b, u32 key_size, u32 avail,
			 u32 max, u32 *used, bool *bad)
{
	u32 n = 0, pos = 0;
	u16 len;

	while (n < max) {
		if (key_size) {
			if (avail - pos < key_size)
				break;
			b->keys[n].data = b->buf + pos;
			b->keys[n].len = key_size;
			pos += key_size;
		} else {
			if (avail - pos < 2)
				break;
			memcpy(&len, b->buf + pos, 2);
			if (!len || len > KB_KEY_MAX_LEN) {
				*bad = true;
				break;
			}
			if (avail - pos - 2 < len)
				break;
			b->keys[n].data = b->buf + pos + 2;
			b->keys[n].len = len;
			pos += 2 + len;
		}
		n++;
	}
	*used = pos;
	return n;
}

/*
 * One step of a key batch on kf's transaction: kf->lock is taken per step,
 * never across the copies from and to the user, nor across a growing
 * filter's growth (kb_slices_staged_keys(): a new slice is allocated
 * with no lock held).  The transaction ended (or was replaced) since the
 * batch began: ENOENT.
 */
static int kb_txn_keys(struct kb_file *kf, const char *name, enum kb_op op,
		       const struct kb_key *keys, u32 n, u64 *bits, u32 *bad)
{
	struct kb_gen *full = NULL, *g = NULL;
	u32 i = 0, new = 0;
	struct kb_txn *t;
	int ret;

	if (mutex_lock_killable(&kf->lock))
		return -EINTR;
	for (;;) {
		t = kb_file_txn_find(kf, name);
		ret = IS_ERR(t) ? -ENOENT : kb_txn_use(t, KB_TXN_KEYS);
		if (full)
			kb_slices_staged_grow(ret ? NULL : t, full, g);
		if (ret)
			break;
		ret = kb_slices_staged_keys(t->gen, op, keys, n, &i, bits,
					    &new, bad, &full);
		if (ret < 0 || !full)
			break;
		mutex_unlock(&kf->lock);
		g = kb_slices_staged_prep(full);
		mutex_lock(&kf->lock);
	}
	mutex_unlock(&kf->lock);
	return ret;
}

/* s: the filter (of net), or NULL for kf's transaction */
static long kb_keys_run(struct net *net, struct kb_file *kf,
			struct kb_ioc_keys *a, enum kb_op op, struct kb_set *s)
{
	const u8 __user *src = u64_to_user_ptr(a->keys);
	struct kb_bitw w = { .dst = u64_to_user_ptr(a->result) };
	u64 off = 0, done = 0, hits = 0;
	bool over = false;
	struct kb_batch *b;
	long ret = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	/* small batches (single keys) get small buffers */
	b->buf = kvmalloc(max_t(u64, min_t(u64, a->keys_len, KB_CHUNK_BYTES),
				1), GFP_KERNEL);
	b->keys = kvmalloc_array(max_t(u64, min_t(u64, a->count,
						  KB_CHUNK_KEYS), 1),
				 sizeof(*b->keys), GFP_KERNEL);
	if (!b->buf || !b->keys) {
		ret = -ENOMEM;
		goto out;
	}
	while (done < a->count) {
		u32 avail = min_t(u64, a->keys_len - off, KB_CHUNK_BYTES);
		u32 max = min_t(u64, a->count - done, KB_CHUNK_KEYS);
		u32 n, used, bad_at = U32_MAX, i;
		bool bad = false;
		int r;

		if (copy_from_user(b->buf, src + off, avail)) {
			ret = -EFAULT;
			break;
		}
		n = kb_parse_keys(b, a->key_size, avail, max, &used, &bad);
		if (!n && !bad)
			bad = true;	/* a key runs past keys_len */
		if (n) {
			if (s)
				r = kb_set_keys(s, op, b->keys, n, b->bits,
						&bad_at, &over, NULL);
			else
				r = kb_txn_keys(kf, a->name, op, b->keys, n,
						b->bits, &bad_at);
			if (r < 0 && r != -EINVAL) {
				ret = r;
				break;
			}
			if (r == -EINVAL) {
				n = bad_at;
				bad = true;
			}
			for (i = 0; i < DIV_ROUND_UP(n, 64); i++) {
				u64 v = b->bits[i];

				if (n - i * 64 < 64)
					v &= (1ULL << (n - i * 64)) - 1;
				hits += hweight64(v);
			}
			/* applied: processed counts them even if results fault */
			done += n;
			off += used;
			ret = kb_bitw_put(&w, b->bits, n);
			if (ret)
				break;
		}
		if (bad) {
			a->err_index = done;
			ret = -EINVAL;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	if (!ret && off != a->keys_len)
		ret = -EINVAL;	/* bytes after the last key */
	if (ret != -EFAULT && kb_bitw_flush(&w))
		ret = -EFAULT;
	a->processed = done;
	a->hits = hits;
	if (over) {
		/* the name now: a filter file's batch names none */
		char name[KB_NAME_MAX];

		kb_set_name(s, name);
		kb_reg_announce(net, KB_EVENT_OVER_CAPACITY, name, NULL);
	}
out:
	kvfree(b->keys);
	kvfree(b->buf);
	kfree(b);
	return ret;
}

long kb_keys_ioctl(struct net *net, struct kb_file *kf, struct kb_set *fs,
		   void __user *u, enum kb_op op)
{
	struct kb_ioc_keys a;
	struct kb_set *s = NULL;
	u64 len;
	u32 usize;
	long ret;

	ret = kb_copy_in(&a, sizeof(a), KB_IOC_KEYS_SIZE_VER0, u, &usize);
	if (ret)
		return ret;
	if ((a.flags & ~KB_KEYS_F_TXN) || a.reserved0 ||
	    !kb_zero(a.reserved, sizeof(a.reserved)) ||
	    a.key_size > KB_KEY_MAX_LEN)
		return -EINVAL;
	/* a filter file's batch names no filter and has no transaction */
	if (fs ? a.flags || !kb_zero(a.name, sizeof(a.name)) :
		 !kb_ioc_name_ok(a.name))
		return -EINVAL;
	if (a.key_size && (check_mul_overflow(a.count, (u64)a.key_size, &len) ||
			   a.keys_len != len))
		return -EINVAL;
	if (a.count > a.keys_len)
		return -EINVAL;
	a.processed = 0;
	a.hits = 0;
	a.err_index = U64_MAX;
	if (fs) {
		ret = kb_keys_run(net, NULL, &a, op, fs);
	} else if (a.flags & KB_KEYS_F_TXN) {
		mutex_lock(&kf->lock);
		ret = PTR_ERR_OR_ZERO(kb_file_txn_find(kf, a.name));
		if (!ret)
			kf->busy++;
		mutex_unlock(&kf->lock);
		if (!ret) {
			ret = kb_keys_run(net, kf, &a, op, NULL);
			kb_file_unbusy(kf);
		}
	} else {
		s = kb_set_find(net, a.name, false);
		if (IS_ERR(s))
			return PTR_ERR(s);
		ret = kb_keys_run(net, kf, &a, op, s);
		kb_set_put(s);
	}
	if (kb_copy_out(u, &a, sizeof(a), usize))
		return -EFAULT;
	return ret;
}

/* ---- transactions ------------------------------------------------------- */

void kb_file_unbusy(struct kb_file *kf)
{
	mutex_lock(&kf->lock);
	kf->busy--;
	mutex_unlock(&kf->lock);
}

/* KB_IOC_TXN_BEGIN: the name and new parameters in a struct kb_ioc_create */
static long kb_ioc_txn_begin(struct file *file, struct kb_file *kf,
			     void __user *u)
{
	struct kb_ioc_create a;
	struct kb_params p;
	struct kb_shape sh;
	struct kb_spec s;
	struct kb_txn *t;
	u32 usize;
	int ret, attr;

	ret = kb_copy_in(&a, sizeof(a), KB_IOC_CREATE_SIZE_VER0, u, &usize);
	if (ret)
		return ret;
	if ((a.flags & ~(KB_CREATE_F_SEED | KB_CREATE_F_GROW)) ||
	    !kb_zero(a.reserved, sizeof(a.reserved)) ||
	    !kb_ioc_name_ok(a.name))
		return -EINVAL;
	s = (struct kb_spec) {
		.kind = a.kind, .key_type = a.key_type, .hash = a.hash,
		.sizing = a.sizing, .items = a.items, .fpr_ppb = a.fpr_ppb,
		.bits_per_key = a.bits_per_key, .m = a.m, .k = a.k,
		.prefixes = a.prefixes, .has_seed = a.flags & KB_CREATE_F_SEED,
		.seed = { a.seed[0], a.seed[1] },
	};
	/* VER1: the shape (the same checks as KB_CMD_CREATE's) */
	sh = (struct kb_shape) {
		.window_ms = a.window_ms, .max_bytes = a.max_bytes,
		.slices = a.slices, .grow = a.flags & KB_CREATE_F_GROW,
		.max_fpr_ppb = a.max_fpr_ppb,
	};
	/* VER0 knows no shape: a window or growing filter keeps its own */
	if (usize < KB_IOC_CREATE_SIZE_VER1)
		kb_shape_keep(kf->net, a.name, &sh);
	ret = kb_shape_check(&sh, &s, &attr, NULL);
	if (ret)
		return ret;
	ret = kb_params_from_spec(&p, &s, NULL);
	if (ret)
		return ret;
	/*
	 * The max_bytes kept from a growing filter holds if the new first
	 * slice fits it; a bigger one (a rebuild for more items) gets the
	 * default bound for its size, as a new filter would
	 */
	if (usize < KB_IOC_CREATE_SIZE_VER1 && sh.grow &&
	    kb_params_payload_bytes(&p) > sh.max_bytes)
		sh.max_bytes = 0;
	mutex_lock(&kf->lock);
	if (kf->txn || kf->busy) {
		ret = -EBUSY;
	} else {
		t = kb_txn_begin(kf->net, a.name, &p, &sh, NULL);
		if (IS_ERR(t))
			ret = PTR_ERR(t);
		else
			kf->txn = t;
	}
	mutex_unlock(&kf->lock);
	return ret;
}

/*
 * KB_IOC_TXN_COMMIT, KB_IOC_TXN_ABORT (write-only: they know VER1 at most
 * and never write back) and KB_IOC_TXN_COMMIT_GEN (VER2 and bigger: the
 * generation installed is written back)
 */
static long kb_ioc_txn_end(struct file *file, struct kb_file *kf,
			   void __user *u, unsigned int cmd)
{
	bool commit = cmd != KB_IOC_TXN_ABORT, out = cmd == KB_IOC_TXN_COMMIT_GEN;
	struct kb_ioc_txn a = {};
	struct kb_txn *t;
	u64 gen_id = 0;
	u32 usize;
	long ret;

	BUILD_BUG_ON(sizeof(a) != KB_IOC_TXN_SIZE_VER2);
	ret = kb_copy_in(&a, out ? sizeof(a) : KB_IOC_TXN_SIZE_VER1,
			 out ? KB_IOC_TXN_SIZE_VER2 : KB_IOC_TXN_SIZE_VER0, u,
			 &usize);
	if (ret)
		return ret;
	/*
	 * generation is out only, for now: 0 on the way in, so that it can
	 * become a compare-and-swap's input without a new command
	 */
	if (a.flags || a.reserved || a.generation ||
	    (!commit && a.max_fpr_ppb))
		return -EINVAL;
	mutex_lock(&kf->lock);
	t = kf->txn;
	if (t && commit && kf->busy) {
		/* another thread's batch or write is halfway through it */
		mutex_unlock(&kf->lock);
		return -EBUSY;
	}
	kf->txn = NULL;
	mutex_unlock(&kf->lock);
	if (!t)
		return -ENOENT;
	if (!commit) {
		kb_txn_abort(t);
		return 0;
	}
	ret = kb_txn_commit(t, a.max_fpr_ppb, &gen_id, NULL);
	if (ret || !out)
		return ret;
	/* committed: an EFAULT here cannot take it back, but says so */
	a.generation = gen_id;
	return kb_copy_out(u, &a, sizeof(a), usize);
}

/* ---- file operations ---------------------------------------------------- */

/* every command by its number (the numbers are ABI: uapi section 3) */
static const unsigned int kb_ioc_cmds[KB_IOC_NR_MAX + 1] = {
	[_IOC_NR(KB_IOC_ADD)] = KB_IOC_ADD,
	[_IOC_NR(KB_IOC_TEST)] = KB_IOC_TEST,
	[_IOC_NR(KB_IOC_DEL)] = KB_IOC_DEL,
	[_IOC_NR(KB_IOC_TEST_ADD)] = KB_IOC_TEST_ADD,
	[_IOC_NR(KB_IOC_UPLOAD)] = KB_IOC_UPLOAD,
	[_IOC_NR(KB_IOC_EXPORT)] = KB_IOC_EXPORT,
	[_IOC_NR(KB_IOC_TXN_BEGIN)] = KB_IOC_TXN_BEGIN,
	[_IOC_NR(KB_IOC_TXN_COMMIT)] = KB_IOC_TXN_COMMIT,
	[_IOC_NR(KB_IOC_TXN_ABORT)] = KB_IOC_TXN_ABORT,
	[_IOC_NR(KB_IOC_TXN_WRITE)] = KB_IOC_TXN_WRITE,
	[_IOC_NR(KB_IOC_OPEN)] = KB_IOC_OPEN,
	[_IOC_NR(KB_IOC_MAP_INFO)] = KB_IOC_MAP_INFO,
	[_IOC_NR(KB_IOC_MERGE)] = KB_IOC_MERGE,
	[_IOC_NR(KB_IOC_TXN_COMMIT_GEN)] = KB_IOC_TXN_COMMIT_GEN,
};

static bool kb_ioc_known(unsigned int cmd)
{
	return _IOC_TYPE(cmd) == KB_IOC_MAGIC && _IOC_NR(cmd) >= 1 &&
	       _IOC_NR(cmd) <= KB_IOC_NR_MAX && kb_ioc_cmds[_IOC_NR(cmd)] == cmd;
}

static long kb_dev_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct kb_file *kf = file->private_data;
	void __user *u = (void __user *)arg;

	/* an unknown command is ENOTTY for everyone, not EPERM */
	if (!kb_ioc_known(cmd))
		return -ENOTTY;
	/* judged by the filter's grant as well (dev_filter.c) */
	if (cmd == KB_IOC_OPEN)
		return kb_ioc_open(file, kf, u);
	/*
	 * Every command, reads included, needs CAP_NET_ADMIN over the
	 * opener's netns (as ipset and nftables): filter contents and
	 * siphash keys are the administrator's, and even a TEST tells
	 * which keys a filter holds.
	 */
	if (!kb_admin(file, kf))
		return -EPERM;
	switch (cmd) {
	case KB_IOC_ADD:
		return kb_keys_ioctl(kf->net, kf, NULL, u, KB_OP_ADD);
	case KB_IOC_TEST:
		return kb_keys_ioctl(kf->net, kf, NULL, u, KB_OP_TEST);
	case KB_IOC_DEL:
		return kb_keys_ioctl(kf->net, kf, NULL, u, KB_OP_DEL);
	case KB_IOC_TEST_ADD:
		return kb_keys_ioctl(kf->net, kf, NULL, u, KB_OP_TEST_ADD);
	case KB_IOC_UPLOAD:
		return kb_ioc_upload(file, kf, u);
	case KB_IOC_EXPORT:
		return kb_ioc_export(file, kf, u);
	case KB_IOC_TXN_BEGIN:
		return kb_ioc_txn_begin(file, kf, u);
	case KB_IOC_TXN_COMMIT:
	case KB_IOC_TXN_COMMIT_GEN:
	case KB_IOC_TXN_ABORT:
		return kb_ioc_txn_end(file, kf, u, cmd);
	case KB_IOC_TXN_WRITE:
		return kb_ioc_txn_write(file, kf, u);
	case KB_IOC_MERGE:
		return kb_merge_ioctl(kf->net, NULL, u);
	}
	/* KB_IOC_MAP_INFO is the filter file's */
	return -ENOTTY;
}

static int kb_dev_open(struct inode *inode, struct file *file)
{
	struct kb_file *kf = kzalloc(sizeof(*kf), GFP_KERNEL_ACCOUNT);

	if (!kf)
		return -ENOMEM;
	mutex_init(&kf->lock);
	kf->net = get_net(current->nsproxy->net_ns);
	file->private_data = kf;
	return 0;
}

static int kb_dev_release(struct inode *inode, struct file *file)
{
	struct kb_file *kf = file->private_data;

	if (kf->txn)
		kb_txn_abort(kf->txn);
	put_net(kf->net);
	kfree(kf);
	return 0;
}

static const struct file_operations kb_dev_fops = {
	.owner = THIS_MODULE,
	.open = kb_dev_open,
	.release = kb_dev_release,
	.unlocked_ioctl = kb_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice kb_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kbloom",
	.fops = &kb_dev_fops,
	/*
	 * Everyone may open it, as /dev/net/tun: an open grants nothing.
	 * Every ioctl checks its own rights (CAP_NET_ADMIN, or a filter's
	 * grant for KB_IOC_OPEN), and services granted a filter must reach
	 * it without being root (uapi section 3).
	 */
	.mode = 0666,
};

int kb_dev_init(void)
{
	return misc_register(&kb_miscdev);
}

void kb_dev_exit(void)
{
	misc_deregister(&kb_miscdev);
}
