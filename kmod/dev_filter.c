// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: the file of one filter (uapi section 3, "A file per filter").
 * KB_IOC_OPEN on /dev/kbloom makes it; on it, key batches, KB_IOC_MERGE
 * (writers, as adds), KB_IOC_MAP_INFO, a read-only mapping of a header
 * page and the live payload of one generation, and poll() for that
 * generation's replacement.
 *
 * Lifetimes: the file holds a reference on its filter (not a consumer's:
 * destroy still works, and the file then answers ENOENT) and on its
 * namespace, as an open /dev/kbloom does.  A mapping holds a reference on
 * its generation (internal.h) and on its header page, so a replaced
 * generation stays, charged to its namespace, until its last mapping
 * goes.  Pages are faulted in one at a time with no lock taken: an mmap
 * costs the same whatever the filter's size, and nothing O(size) runs
 * under a lock.
 *
 * Header pages: one per generation and kind of file (read-only, writer:
 * the flags field differs), made at the first open or mmap under
 * kb_set.lock and kept in step (state, prefix lengths, exceptions) under
 * that lock by the registry and except.c, through kb_map_retire() and
 * kb_map_sync().  A retired (replaced) page lives on in the mappings and
 * files that hold it, with its state saying so.
 */
#include <linux/anon_inodes.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "internal.h"
#include "dev.h"

/* an open filter file */
struct kb_ffile {
	struct kb_set *s;
	struct net *net;		/* of s: events name it */
	bool write;			/* KB_OPEN_F_WRITE */
	const struct cred *cred;	/* opened under a grant: judged again
					 * (NULL: by an administrator)
					 */
	spinlock_t lock;		/* hdr */
	struct page *hdr;		/* of the last mmap's generation (or
					 * the one current at open): poll()
					 */
};

/* what the vmas of one mmap share (split and fork copy them) */
struct kb_vmap {
	refcount_t ref;			/* vmas */
	struct kb_gen *g;		/* a reference */
	struct page *hdr;		/* a reference */
	unsigned long pages;		/* map_bytes / PAGE_SIZE */
};

static struct kb_map_hdr *kb_hdr(struct page *page)
{
	return page_address(page);
}

/*
 * Slice i of g in a mapping: at the page after the one before it (the
 * newest at KB_MAP_PAYLOAD_OFFSET), pages of each back to back.
 */
static u64 kb_map_slice_offset(const struct kb_gen *g, u32 i)
{
	u64 off = KB_MAP_PAYLOAD_OFFSET;
	u32 j;

	for (j = 0; j < i; j++)
		off += PAGE_ALIGN(kb_gen_slice(g, j)->bytes);
	return off;
}

/* the slice table of page 0 (uapi struct kb_map_slice), newest first */
static void kb_map_fill_slices(struct kb_map_hdr *h, const struct kb_gen *g)
{
	struct kb_map_slice *t = (void *)((u8 *)h + KB_MAP_SLICES_OFFSET);
	u32 i;

	BUILD_BUG_ON(sizeof(*h) > KB_MAP_SLICES_OFFSET);
	BUILD_BUG_ON(KB_MAP_SLICES_OFFSET + KB_SLICES_MAX * sizeof(*t) >
		     KB_MAP_PAYLOAD_OFFSET);
	for (i = 0; i < g->nslices; i++) {
		const struct kb_filter *f = kb_gen_slice(g, i);

		t[i] = (struct kb_map_slice) {
			.offset = kb_map_slice_offset(g, i),
			.bytes = f->bytes, .m = f->p.m, .items = f->p.items,
			.k = f->p.k, .fpr_ppb = f->p.fpr_ppb,
		};
	}
}

/* as page 0 of a mapping of g made now (s->lock held) */
static void kb_map_fill(struct kb_map_hdr *h, struct kb_set *s,
			struct kb_gen *g, bool write)
{
	const struct kb_params *p = &g->f.p;

	lockdep_assert_held(&s->lock);
	h->size = sizeof(*h);
	h->magic = KB_MAP_MAGIC;
	/* a reader of one payload refuses what it would half read */
	h->version = g->nslices > 1 ? KB_MAP_VERSION_SLICES : KB_MAP_VERSION;
	h->state = KB_MAP_LIVE;
	h->generation = g->id;
	h->id = s->id;
	h->kind = p->kind;
	h->key_type = p->key_type;
	h->hash = p->hash;
	h->k = p->k;
	h->m = p->m;
	h->items = p->items;
	h->fpr_ppb = p->fpr_ppb;
	h->prefixes = kb_params_nplens(p);
	h->seed[0] = p->seed[0];
	h->seed[1] = p->seed[1];
	h->plen4 = p->plen4;
	memcpy(h->plen6, p->plen6, sizeof(h->plen6));
	h->payload_offset = KB_MAP_PAYLOAD_OFFSET;
	/* sliced: from the newest's first byte to the oldest's last */
	h->payload_bytes = kb_map_slice_offset(g, g->nslices - 1) +
			   kb_gen_slice(g, g->nslices - 1)->bytes -
			   KB_MAP_PAYLOAD_OFFSET;
	h->map_bytes = kb_map_slice_offset(g, g->nslices);
	h->exceptions = kb_exc_count(s);
	h->flags = write ? KB_OPEN_F_WRITE : 0;
	h->nslices = g->nslices;
	h->slices_offset = KB_MAP_SLICES_OFFSET;
}

void kb_map_retire(struct kb_gen *g, u32 state)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(g->hdr); i++) {
		struct page *page = g->hdr[i];

		if (!page)
			continue;
		WRITE_ONCE(kb_hdr(page)->state, state);
		/* the next mmap of g (as another filter's, after a swap or
		 * a flush) gets a page of its own
		 */
		if (state == KB_MAP_REPLACED) {
			g->hdr[i] = NULL;
			put_page(page);
		}
	}
}

void kb_map_sync(struct kb_set *s, struct kb_gen *g)
{
	const struct kb_params *p = &g->f.p;
	u32 exc, n;
	int i, j;

	lockdep_assert_held(&s->lock);
	if (!g->hdr[0] && !g->hdr[1])
		return;
	exc = kb_exc_count(s);
	n = kb_params_nplens(p);
	for (i = 0; i < ARRAY_SIZE(g->hdr); i++) {
		struct kb_map_hdr *h;

		if (!g->hdr[i])
			continue;
		h = kb_hdr(g->hdr[i]);
		WRITE_ONCE(h->plen4, p->plen4);
		for (j = 0; j < ARRAY_SIZE(h->plen6); j++)
			WRITE_ONCE(h->plen6[j], p->plen6[j]);
		WRITE_ONCE(h->prefixes, n);
		WRITE_ONCE(h->exceptions, exc);
	}
}

void kb_map_wake(struct kb_set *s)
{
	wake_up_all(&s->wq);
}

void kb_map_release(struct kb_gen *g)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(g->hdr); i++)
		if (g->hdr[i])
			put_page(g->hdr[i]);
}

/*
 * The current generation of ff's filter (a reference, if gp) and its
 * header page for ff's kind of file (a reference; made now if it has
 * none).  ENOENT once the filter is destroyed.
 */
static int kb_map_take(struct kb_ffile *ff, struct kb_gen **gp,
		       struct page **hp)
{
	struct kb_set *s = ff->s;
	struct page *spare;
	struct kb_gen *g;
	int ret = 0;

	/* allocated before the lock: one page, freed if not needed */
	spare = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!spare)
		return -ENOMEM;
	if (mutex_lock_killable(&s->lock)) {
		__free_page(spare);
		return -EINTR;
	}
	if (s->dead) {
		ret = -ENOENT;
		goto out;
	}
	g = rcu_dereference_protected(s->gen, lockdep_is_held(&s->lock));
	if (!g->hdr[ff->write]) {
		kb_map_fill(kb_hdr(spare), s, g, ff->write);
		kb_map_fill_slices(kb_hdr(spare), g);
		g->hdr[ff->write] = spare;
		spare = NULL;
	}
	*hp = g->hdr[ff->write];
	get_page(*hp);
	if (gp) {
		/* the filter holds one: not zero */
		refcount_inc(&g->ref);
		*gp = g;
	}
out:
	mutex_unlock(&s->lock);
	if (spare)
		__free_page(spare);
	return ret;
}

/*
 * A file opened under a grant is judged by it again at every batch,
 * MAP_INFO and mmap, on the credentials it was opened with: a grant taken
 * back (KB_CMD_GRANT) ends what the file may do next, as it ends what a
 * new open may do.  (Mappings made before keep their generation until
 * they go: their pages cannot be taken back.)  EPERM before ENOENT, as at
 * open: a revoked reader does not learn that the filter went.
 */
static bool kb_ffile_granted(const struct kb_ffile *ff, bool write)
{
	return !ff->cred || kb_set_granted(ff->s, ff->cred, write);
}

/* ---- the mapping -------------------------------------------------------- */

static void kb_vmap_open(struct vm_area_struct *vma)
{
	struct kb_vmap *m = vma->vm_private_data;

	refcount_inc(&m->ref);
}

static void kb_vmap_close(struct vm_area_struct *vma)
{
	struct kb_vmap *m = vma->vm_private_data;

	if (!refcount_dec_and_test(&m->ref))
		return;
	put_page(m->hdr);
	kb_gen_put(m->g);
	kfree(m);
}

/* the payload byte at page pgoff (>= 1) of a mapping of g */
static void *kb_vmap_payload(const struct kb_gen *g, unsigned long pgoff)
{
	u64 off = (u64)(pgoff - 1) << PAGE_SHIFT;
	u32 i;

	for (i = 0; i < g->nslices; i++) {
		const struct kb_filter *f = kb_gen_slice(g, i);

		if (off < PAGE_ALIGN(f->bytes))
			return (u8 *)f->payload + off;
		off -= PAGE_ALIGN(f->bytes);
	}
	return NULL;
}

/*
 * One page at a time, as relay does: the header, or the payload page
 * (direct map or vmalloc, kb_payload_alloc()) under it, of whichever
 * slice it is in.  The generation (and so its slices) cannot go while the
 * vma holds it.  Past map_bytes: SIGBUS.
 */
static vm_fault_t kb_vmap_fault(struct vm_fault *vmf)
{
	struct kb_vmap *m = vmf->vma->vm_private_data;
	struct page *page;
	void *p;

	if (vmf->pgoff >= m->pages)
		return VM_FAULT_SIGBUS;
	if (!vmf->pgoff) {
		page = m->hdr;
	} else {
		p = kb_vmap_payload(m->g, vmf->pgoff);
		if (WARN_ON_ONCE(!p))
			return VM_FAULT_SIGBUS;
		page = is_vmalloc_addr(p) ? vmalloc_to_page(p) :
					    virt_to_page(p);
		if (WARN_ON_ONCE(!page))
			return VM_FAULT_SIGBUS;
	}
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct kb_vmap_ops = {
	.open = kb_vmap_open,
	.close = kb_vmap_close,
	.fault = kb_vmap_fault,
};

static int kb_ffile_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kb_ffile *ff = file->private_data;
	struct page *old;
	struct kb_vmap *m;
	int ret;

	/* the payload is at page 1 of the ABI's 4 KiB pages */
	if (PAGE_SIZE != KB_MAP_PAYLOAD_OFFSET)
		return -ENODEV;
	/* (VM_SHARED is clear for a read-only file's shared mapping) */
	if (vma->vm_pgoff || !(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EACCES;
	if (!kb_ffile_granted(ff, false))
		return -EPERM;
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	ret = kb_map_take(ff, &m->g, &m->hdr);
	if (ret) {
		kfree(m);
		return ret;
	}
	refcount_set(&m->ref, 1);
	m->pages = kb_map_slice_offset(m->g, m->g->nslices) >> PAGE_SHIFT;
	/* never writable nor executable, never grown, nor dumped */
	kb_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	kb_vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_ops = &kb_vmap_ops;
	vma->vm_private_data = m;
	/* poll() follows the generation mapped last */
	get_page(m->hdr);
	spin_lock(&ff->lock);
	old = ff->hdr;
	ff->hdr = m->hdr;
	spin_unlock(&ff->lock);
	put_page(old);
	return 0;
}

/* ---- the file ----------------------------------------------------------- */

static __poll_t kb_ffile_poll(struct file *file, poll_table *pt)
{
	struct kb_ffile *ff = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &ff->s->wq, pt);
	spin_lock(&ff->lock);
	if (READ_ONCE(kb_hdr(ff->hdr)->state) != KB_MAP_LIVE)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLPRI;
	spin_unlock(&ff->lock);
	if (READ_ONCE(ff->s->dead))
		mask |= EPOLLHUP;
	return mask;
}

/* KB_IOC_MAP_INFO: page 0 of a mapping made now, without one */
static long kb_ioc_map_info(struct kb_ffile *ff, void __user *u)
{
	struct kb_set *s = ff->s;
	struct kb_map_hdr h;
	u32 usize;
	int ret;

	ret = kb_copy_in(&h, sizeof(h), KB_MAP_HDR_SIZE_VER0, u, &usize);
	if (ret)
		return ret;
	memset(&h, 0, sizeof(h));
	if (mutex_lock_killable(&s->lock))
		return -EINTR;
	if (s->dead) {
		mutex_unlock(&s->lock);
		return -ENOENT;
	}
	kb_map_fill(&h, s, rcu_dereference_protected(s->gen,
						     lockdep_is_held(&s->lock)),
		    ff->write);
	mutex_unlock(&s->lock);
	h.size = usize;
	return kb_copy_out(u, &h, sizeof(h), usize);
}

static long kb_ffile_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct kb_ffile *ff = file->private_data;
	void __user *u = (void __user *)arg;
	bool write = cmd == KB_IOC_ADD || cmd == KB_IOC_TEST_ADD;

	switch (cmd) {
	case KB_IOC_TEST:
	case KB_IOC_ADD:
	case KB_IOC_TEST_ADD:
	case KB_IOC_MAP_INFO:
		break;
	case KB_IOC_MERGE:
		write = true;
		break;
	default:
		return -ENOTTY;
	}
	if (write && !ff->write)
		return -EPERM;
	if (!kb_ffile_granted(ff, write))
		return -EPERM;
	/* (the batches check again under the filter's lock or RCU) */
	if (READ_ONCE(ff->s->dead))
		return -ENOENT;
	switch (cmd) {
	case KB_IOC_TEST:
		return kb_keys_ioctl(ff->net, NULL, ff->s, u, KB_OP_TEST);
	case KB_IOC_ADD:
		return kb_keys_ioctl(ff->net, NULL, ff->s, u, KB_OP_ADD);
	case KB_IOC_TEST_ADD:
		return kb_keys_ioctl(ff->net, NULL, ff->s, u, KB_OP_TEST_ADD);
	case KB_IOC_MERGE:
		return kb_merge_ioctl(ff->net, ff->s, u);
	}
	return kb_ioc_map_info(ff, u);
}

static void kb_ffile_free(struct kb_ffile *ff)
{
	put_page(ff->hdr);
	if (ff->cred)
		put_cred(ff->cred);
	kb_set_put(ff->s);
	put_net(ff->net);
	kfree(ff);
}

static int kb_ffile_release(struct inode *inode, struct file *file)
{
	kb_ffile_free(file->private_data);
	return 0;
}

static const struct file_operations kb_ffile_fops = {
	.owner = THIS_MODULE,
	.release = kb_ffile_release,
	.unlocked_ioctl = kb_ffile_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = kb_ffile_mmap,
	.poll = kb_ffile_poll,
	.llseek = noop_llseek,
};

/*
 * The filter a->name or a->id of net, with a reference, if the opener may
 * open it: NULL otherwise, whether it exists or not.  A lockless lookup:
 * anyone may ask, and must not be able to stall the registry's lock.
 */
static struct kb_set *kb_open_find(struct file *file, struct kb_file *kf,
				   const struct kb_ioc_open *a, bool *admin)
{
	struct kb_set *s;

	rcu_read_lock();
	if (a->name[0])
		s = kb_set_find_rcu(kf->net, a->name);
	else
		s = kb_set_find_id_rcu(kf->net, a->id);
	s = kb_set_get_rcu(s);
	rcu_read_unlock();
	*admin = kb_admin(file, kf);
	if (s && !*admin &&
	    !kb_set_granted(s, file->f_cred, a->flags & KB_OPEN_F_WRITE)) {
		kb_set_put(s);
		s = NULL;
	}
	return s;
}

long kb_ioc_open(struct file *file, struct kb_file *kf, void __user *u)
{
	struct kb_ffile *ff;
	struct kb_ioc_open a;
	struct file *nf;
	struct kb_set *s;
	bool admin;
	u32 usize;
	int fd, ret;

	ret = kb_copy_in(&a, sizeof(a), KB_IOC_OPEN_SIZE_VER0, u, &usize);
	if (ret)
		return ret;
	if ((a.flags & ~KB_OPEN_F_WRITE) || a.reserved0 ||
	    !kb_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	/* by name (id 0) or, name all zero, by id */
	if (kb_zero(a.name, sizeof(a.name)) ? !a.id :
	    a.id || !kb_ioc_name_ok(a.name))
		return -EINVAL;
	s = kb_open_find(file, kf, &a, &admin);
	if (!s)
		return admin ? -ENOENT : -EPERM;
	ff = kzalloc(sizeof(*ff), GFP_KERNEL_ACCOUNT);
	if (!ff) {
		kb_set_put(s);
		return -ENOMEM;
	}
	ff->s = s;
	ff->net = get_net(kf->net);
	ff->write = a.flags & KB_OPEN_F_WRITE;
	/* the credentials the grant was judged on (see kb_ffile_granted()) */
	if (!admin)
		ff->cred = get_cred(file->f_cred);
	spin_lock_init(&ff->lock);
	ret = kb_map_take(ff, NULL, &ff->hdr);
	if (ret) {
		if (ff->cred)
			put_cred(ff->cred);
		put_net(ff->net);
		kfree(ff);
		kb_set_put(s);
		return ret;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto out_ff;
	}
	/* read-only: written by ioctls only, and never mapped for writing */
	nf = anon_inode_getfile("[kbloom]", &kb_ffile_fops, ff,
				O_RDONLY | O_CLOEXEC);
	if (IS_ERR(nf)) {
		ret = PTR_ERR(nf);
		put_unused_fd(fd);
		goto out_ff;
	}
	/* the fd goes live only once the caller has its number */
	a.fd = fd;
	if (kb_copy_out(u, &a, sizeof(a), usize)) {
		put_unused_fd(fd);
		fput(nf);		/* releases ff */
		return -EFAULT;
	}
	fd_install(fd, nf);
	return fd;
out_ff:
	kb_ffile_free(ff);
	return ret;
}
