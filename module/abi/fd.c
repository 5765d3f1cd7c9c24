// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter filter file descriptors: one anonymous-inode file per open of
 * a filter, and the commands served on it (batched add, query, delete,
 * add-if-absent, test-and-add, count; info; clear; rotate; publish and
 * unpublish).
 *
 * Conventions in this file: batches are copied from userspace in windows
 * of MF_WINDOW keys; each window's keys are hashed into an array, the
 * filter works on the whole window (SIMD and prefetch-friendly), and the
 * window's result bits are copied out before the next one starts. Between
 * windows the call may reschedule and stops early for a fatal signal.
 * Every key length of a variable-size batch is checked before the first
 * window takes effect.
 *
 * Permissions live in the file, as for any file: a filter fd opened
 * read-only (MEMFILTER_IOC_OPEN without MEMFILTER_OPEN_WRITE) queries,
 * reads the info and dumps unkeyed filters; every command that changes the
 * filter needs FMODE_WRITE (the dispatcher's EBADF). Publishing,
 * unpublishing and a keyed dump also need the credentials the fd was
 * opened with (file->f_cred: the caller of the CREATE, LOAD or OPEN that
 * made it) to hold CAP_SYS_ADMIN, whoever uses it: a privileged process
 * handed an fd does not lend its privilege, and an fd handed on keeps its
 * opener's.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/anon_inodes.h>
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cleanup.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "filter/filter.h"
#include "ioctl.h"

/* Keys per window: a multiple of BITS_PER_LONG and of MEMFILTER_SIMD_CHUNK. */
#define MF_WINDOW	256
/* Bytes of keys copied from userspace at a time (the batch is ~20 KiB). */
#define MF_KEYBUF	(16 * 1024)

static_assert(MF_WINDOW % BITS_PER_LONG == 0);
static_assert(MF_WINDOW * sizeof(struct memfilter_prefix) <= MF_KEYBUF);
static_assert(MEMFILTER_KEY_MAX <= MF_KEYBUF);
static_assert(2 * MEMFILTER_CUCKOO_SLOTS + 1 == MEMFILTER_COUNT_MAX);

struct mf_batch {
	u64 hashes[MF_WINDOW];
	unsigned long result[MF_WINDOW / BITS_PER_LONG];
	u64 result64[MF_WINDOW / 64];
	u8 counts[MF_WINDOW];
	u32 lens[MF_WINDOW];
	u8 keys[MF_KEYBUF];
};

/**
 * struct mf_file - one open filter fd
 * @f: the filter; the file holds a reference
 * @lock: serializes dumps through this fd
 * @image: the image being read out, from a read() at offset 0
 * @image_len: its length (kept after the snapshot is dropped at its end)
 * @batch_lock: held by the batch command using @batch
 * @batch: the batch commands' buffer, made by the first one and kept until
 *	release, so that a command does not allocate (and, with
 *	init_on_alloc, zero) 20 KiB each time; a command that finds it busy
 *	(threads sharing the fd) allocates its own
 */
struct mf_file {
	struct memfilter *f;
	struct mutex lock;	/* dumps through this fd */
	void *image;
	size_t image_len;
	struct mutex batch_lock;	/* @batch in use */
	struct mf_batch *batch;
};

/*
 * The batch buffer for one command on @mfile: the fd's own if it is free
 * (*@own: @batch_lock is held), else a new one. Not zeroed: every command
 * writes what it reads back. @batch is only touched under @batch_lock.
 */
static struct mf_batch *mf_batch_get(struct mf_file *mfile, bool *own)
{
	*own = mutex_trylock(&mfile->batch_lock);
	if (*own) {
		if (!mfile->batch)
			mfile->batch = kvmalloc(sizeof(*mfile->batch),
						GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (mfile->batch)
			return mfile->batch;
		mutex_unlock(&mfile->batch_lock);
		*own = false;
	}
	/* Not a kmalloc(): an order-3 page would fail on fragmented memory. */
	return kvmalloc(sizeof(struct mf_batch),
			GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
}

static void mf_batch_put(struct mf_file *mfile, struct mf_batch *b, bool own)
{
	if (own)
		mutex_unlock(&mfile->batch_lock);
	else
		kvfree(b);
}

/*
 * Copy the @count key lengths of a variable-size batch from userspace once
 * and check them all, before any key takes effect: EINVAL never leaves a
 * batch half done, and the lengths checked are the lengths used, however
 * the caller's memory changes during the call. One window's worth lives in
 * @b; more are a kvmalloc'd array the caller frees with kvfree() when it is
 * not @b->lens.
 */
static int mf_copy_lens(const struct memfilter_keys *k, struct mf_batch *b,
			u32 **lensp)
{
	u32 *lens = b->lens;
	u32 x;

	if (k->count > MF_WINDOW) {
		lens = kvmalloc_array(k->count, sizeof(u32),
				      GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!lens)
			return -ENOMEM;
	}
	*lensp = lens;
	if (copy_from_user(lens, u64_to_user_ptr(k->lens),
			   (size_t)k->count * sizeof(u32)))
		return -EFAULT;
	for (x = 0; x < k->count; x++)
		if (lens[x] > MEMFILTER_KEY_MAX)
			return -EINVAL;
	return 0;
}

/*
 * Hash keys [i, i + n) of the call into b->hashes[0..n): copy them in
 * pieces of at most MF_KEYBUF bytes. *@off is the byte offset of key i in
 * the user's key array (variable-size keys) and advances.
 */
static int mf_hash_window(struct memfilter *f, const struct memfilter_keys *k,
			  struct mf_batch *b, const u32 *lens, u32 i, u32 n,
			  u64 *off)
{
	const u8 __user *ukeys = u64_to_user_ptr(k->keys);
	const struct memfilter_hasher *hasher;
	u32 j = 0, x;

	if (k->key_size) {
		u32 per = MF_KEYBUF / k->key_size;

		while (j < n) {
			u32 m = min(per, n - j);

			if (copy_from_user(b->keys, ukeys +
					   (u64)(i + j) * k->key_size,
					   (size_t)m * k->key_size))
				return -EFAULT;
			memfilter_filter_hash_keys(f, b->keys, k->key_size, m,
						   b->hashes + j);
			j += m;
		}
		return 0;
	}

	/* Each piece holds at least one key: every length is checked. */
	hasher = memfilter_state_hasher(f->ops, &f->s);
	lens += i;
	while (j < n) {
		size_t bytes = 0;
		u32 m = 0;

		while (j + m < n && bytes + lens[j + m] <= MF_KEYBUF) {
			bytes += lens[j + m];
			m++;
		}
		if (copy_from_user(b->keys, ukeys + *off, bytes))
			return -EFAULT;
		bytes = 0;
		for (x = 0; x < m; x++) {
			b->hashes[j + x] = memfilter_hash_lean(hasher, b->keys + bytes,
							       lens[j + x]);
			bytes += lens[j + x];
		}
		*off += bytes;
		j += m;
	}
	return 0;
}

/*
 * ADD_PREFIXES, before any key: every entry checked and the lengths of
 * the whole batch recorded (or refused), so that EINVAL and ENOSPC change
 * nothing.
 */
static int mf_prefixes_check(struct memfilter *f, const struct memfilter_keys *k,
			     struct mf_batch *b)
{
	const struct memfilter_prefix __user *up = u64_to_user_ptr(k->keys);
	const struct memfilter_prefix *p = (const void *)b->keys;
	const u32 per = MF_KEYBUF / sizeof(*p);
	u64 want[MEMFILTER_PREFIX_WORDS] = {};
	u32 i, x, n;

	for (i = 0; i < k->count; i += n) {
		n = min(per, k->count - i);
		if (copy_from_user(b->keys, up + i, n * sizeof(*p)))
			return -EFAULT;
		for (x = 0; x < n; x++) {
			if (memfilter_prefix_check(&p[x]))
				return -EINVAL;
			memfilter_prefix_mark(want, &p[x]);
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return memfilter_filter_add_lengths(f, want);
}

/*
 * Hash prefixes [i, i + n) of an ADD_PREFIXES call into b->hashes[0..n):
 * each one's key (core/prefix.h). An entry that changed since
 * mf_prefixes_check() to one invalid or of a length not recorded is
 * EINVAL here: its key is never added without its length.
 */
static int mf_prefixes_window(struct memfilter *f, const struct memfilter_keys *k,
			      struct mf_batch *b, u32 i, u32 n)
{
	const struct memfilter_prefix __user *up = u64_to_user_ptr(k->keys);

	if (copy_from_user(b->keys, up + i, n * sizeof(struct memfilter_prefix)))
		return -EFAULT;
	return memfilter_filter_prefix_hashes(f, (const void *)b->keys, n,
					      b->hashes);
}

typedef int (*mf_keys_op)(struct memfilter *f, const u64 *hashes, u32 n,
			  unsigned long *result, u32 *done);

static int mf_query(struct memfilter *f, const u64 *hashes, u32 n,
		    unsigned long *result, u32 *done)
{
	memfilter_filter_contains(f, hashes, n, result);
	*done = n;
	return 0;
}

/* COUNT on window [i, i + n): a byte per key, out to the results array. */
static int mf_count_window(struct memfilter *f, const struct memfilter_keys *k,
			   struct mf_batch *b, u32 i, u32 n, u32 *done,
			   u32 *count)
{
	u8 __user *ucounts = u64_to_user_ptr(k->results);

	*count += memfilter_filter_count(f, b->hashes, n, b->counts);
	*done = n;
	if (ucounts && copy_to_user(ucounts + i, b->counts, n))
		return -EFAULT;
	return 0;
}

/*
 * One batch command: keys in, hashed by window, @op on each window, whose
 * result bits go out; @op NULL: COUNT, a byte per key. @has_op: the
 * filter's type has the operation; a command it lacks fails with
 * EOPNOTSUPP even with no keys, before anything else is checked.
 * @prefixes: the keys are struct memfilter_prefix entries (ADD_PREFIXES).
 */
static int mf_cmd_keys(struct memfilter_ucmd *ucmd, mf_keys_op op, bool has_op,
		       bool prefixes)
{
	struct memfilter_keys *k = ucmd->cmd;
	struct mf_file *mfile = ucmd->file->private_data;
	struct memfilter *f = ucmd->f;
	u64 __user *ures = u64_to_user_ptr(k->results);
	struct mf_batch *b;
	u32 *lens = NULL;
	u32 i = 0, n, done, count = 0;
	u64 off = 0;
	int ret = 0, ret2;
	bool own;

	if (!has_op)
		return -EOPNOTSUPP;
	if (k->flags)
		return -EOPNOTSUPP;
	if (k->count > MEMFILTER_BATCH_MAX || k->key_size > MEMFILTER_KEY_MAX)
		return -EINVAL;
	if (k->key_size ? k->lens != 0 : (k->count && !k->lens))
		return -EINVAL;
	if (prefixes && k->key_size != sizeof(struct memfilter_prefix))
		return -EINVAL;
	if (k->count && !k->keys && (k->key_size || k->lens))
		return -EFAULT;

	b = mf_batch_get(mfile, &own);
	if (!b)
		return -ENOMEM;
	if (prefixes)
		ret = mf_prefixes_check(f, k, b);
	else if (!k->key_size)
		ret = mf_copy_lens(k, b, &lens);
	while (!ret && i < k->count) {
		n = min_t(u32, k->count - i, MF_WINDOW);
		ret = prefixes ? mf_prefixes_window(f, k, b, i, n) :
		      mf_hash_window(f, k, b, lens, i, n, &off);
		if (ret)
			break;
		if (!op) {
			ret = mf_count_window(f, k, b, i, n, &done, &count);
		} else {
			ret = op(f, b->hashes, n, b->result, &done);
			count += bitmap_weight(b->result, done);
			bitmap_to_arr64(b->result64, b->result, n);
			if (ures && copy_to_user(ures + i / 64, b->result64,
						 DIV_ROUND_UP(n, 64) * sizeof(u64)))
				ret = -EFAULT;
		}
		i += done;
		if (ret)
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	if (lens != b->lens)
		kvfree(lens);
	mf_batch_put(mfile, b, own);
	k->out_count = count;
	k->out_done = i;
	ret2 = memfilter_respond(ucmd, sizeof(*k));
	return ret ?: ret2;
}

/* Adds may sleep here: a growing filter grows rather than say EAGAIN. */
static int mf_cmd_add(struct memfilter_ucmd *ucmd)
{
	return mf_cmd_keys(ucmd, memfilter_filter_add_sleepable,
			   ucmd->f->ops->add, false);
}

static int mf_cmd_query(struct memfilter_ucmd *ucmd)
{
	return mf_cmd_keys(ucmd, mf_query, ucmd->f->ops->contains, false);
}

static int mf_cmd_delete(struct memfilter_ucmd *ucmd)
{
	return mf_cmd_keys(ucmd, memfilter_filter_delete, ucmd->f->ops->delete,
			   false);
}

static int mf_cmd_add_unique(struct memfilter_ucmd *ucmd)
{
	return mf_cmd_keys(ucmd, memfilter_filter_add_unique,
			   ucmd->f->ops->add_unique, false);
}

static int mf_cmd_test_and_add(struct memfilter_ucmd *ucmd)
{
	return mf_cmd_keys(ucmd, memfilter_filter_test_and_add_sleepable,
			   ucmd->f->ops->test_and_add, false);
}

static int mf_cmd_count(struct memfilter_ucmd *ucmd)
{
	return mf_cmd_keys(ucmd, NULL, ucmd->f->ops->count, false);
}

/* Prefixes, each as its key, after their lengths (core/prefix.h). */
static int mf_cmd_add_prefixes(struct memfilter_ucmd *ucmd)
{
	return mf_cmd_keys(ucmd, memfilter_filter_add_sleepable,
			   ucmd->f->px.max != 0, true);
}

/*
 * Window filters' generations, growing filters' sub-filters: into the
 * caller's optional array.
 */
static int mf_info_gens(struct memfilter *f, struct memfilter_info *info,
			u64 ugens, u32 count)
{
	struct memfilter_generation *g;
	int ret = 0;

	g = kcalloc(MEMFILTER_INFO_PARTS_MAX, sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	info->gens = ugens;
	info->gens_count = memfilter_filter_parts(f, g);
	count = min(count, info->gens_count);
	if (ugens && count &&
	    copy_to_user(u64_to_user_ptr(ugens), g, count * sizeof(*g)))
		ret = -EFAULT;
	kfree(g);
	return ret;
}

static int mf_cmd_info(struct memfilter_ucmd *ucmd)
{
	struct memfilter_info *info = ucmd->cmd;
	u32 size = info->size, count = info->gens_count;
	u64 ugens = info->gens;
	int ret;

	if (info->flags || info->__reserved || info->__reserved2)
		return -EOPNOTSUPP;
	memset(info, 0, sizeof(*info));
	info->size = size;
	memfilter_filter_info(ucmd->f, info);
	ret = mf_info_gens(ucmd->f, info, ugens, count);
	return ret ?: memfilter_respond(ucmd, sizeof(*info));
}

static int mf_cmd_rotate(struct memfilter_ucmd *ucmd)
{
	struct memfilter_rotate *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	return memfilter_filter_rotate(ucmd->f);
}

static int mf_cmd_clear(struct memfilter_ucmd *ucmd)
{
	struct memfilter_clear *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	memfilter_filter_clear(ucmd->f);
	return 0;
}

static int mf_cmd_publish(struct memfilter_ucmd *ucmd)
{
	struct memfilter_name *cmd = ucmd->cmd;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;
	if (!file_ns_capable(ucmd->file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	ret = memfilter_name_valid(cmd->name);
	if (ret)
		return ret;
	return memfilter_publish(ucmd->f, cmd->name);
}

static int mf_cmd_unpublish(struct memfilter_ucmd *ucmd)
{
	struct memfilter_name *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	if (memchr_inv(cmd->name, 0, sizeof(cmd->name)))
		return -EINVAL;
	if (!file_ns_capable(ucmd->file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	return memfilter_unpublish(ucmd->f);
}

static const struct memfilter_ioctl_op mf_filter_ops[] = {
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_ADD, mf_cmd_add,
				 struct memfilter_keys, out_done),
	MEMFILTER_IOCTL_OP(MEMFILTER_IOC_QUERY, mf_cmd_query,
			   struct memfilter_keys, out_done),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_DELETE, mf_cmd_delete,
				 struct memfilter_keys, out_done),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_ADD_UNIQUE, mf_cmd_add_unique,
				 struct memfilter_keys, out_done),
	MEMFILTER_IOCTL_OP(MEMFILTER_IOC_INFO, mf_cmd_info, struct memfilter_info,
			   name),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_CLEAR, mf_cmd_clear,
				 struct memfilter_clear, flags),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_PUBLISH, mf_cmd_publish,
				 struct memfilter_name, name),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_UNPUBLISH, mf_cmd_unpublish,
				 struct memfilter_name, name),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_TEST_AND_ADD, mf_cmd_test_and_add,
				 struct memfilter_keys, out_done),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_ROTATE, mf_cmd_rotate,
				 struct memfilter_rotate, flags),
	MEMFILTER_IOCTL_OP(MEMFILTER_IOC_COUNT, mf_cmd_count,
			   struct memfilter_keys, out_done),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_ADD_PREFIXES, mf_cmd_add_prefixes,
				 struct memfilter_keys, out_done),
};

static long mf_filter_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct mf_file *mfile = file->private_data;

	return memfilter_dispatch(mf_filter_ops, ARRAY_SIZE(mf_filter_ops), file,
				  mfile->f, cmd, arg);
}

/*
 * Reading a filter fd yields its image. A read at offset 0 takes a fresh,
 * consistent snapshot; later reads continue through it; the snapshot is
 * dropped at its end. Reading elsewhere without a snapshot is -EINVAL.
 */
static ssize_t mf_filter_read(struct file *file, char __user *buf,
			      size_t len, loff_t *ppos)
{
	struct mf_file *mfile = file->private_data;
	loff_t pos = *ppos;
	ssize_t ret;
	size_t n;

	if (pos < 0)
		return -EINVAL;
	/* A keyed image carries the secret: the opener must be allowed it. */
	if ((mfile->f->flags & MEMFILTER_CREATE_KEYED) &&
	    (!(file->f_mode & FMODE_WRITE) ||
	     !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN)))
		return -EPERM;
	guard(mutex)(&mfile->lock);
	if (!pos) {
		memfilter_filter_image_free(mfile->image, mfile->image_len);
		mfile->image = memfilter_filter_image(mfile->f, &mfile->image_len);
		if (IS_ERR(mfile->image)) {
			ret = PTR_ERR(mfile->image);
			mfile->image = NULL;
			return ret;
		}
	}
	if (!mfile->image)	/* EOF right after a dump; else dumps start at 0. */
		return pos == mfile->image_len ? 0 : -EINVAL;
	if (pos >= mfile->image_len)
		return 0;
	n = min_t(size_t, len, mfile->image_len - pos);
	if (copy_to_user(buf, (u8 *)mfile->image + pos, n))
		return -EFAULT;
	*ppos = pos + n;
	if (*ppos == mfile->image_len) {
		memfilter_filter_image_free(mfile->image, mfile->image_len);
		mfile->image = NULL;
	}
	return n;
}

static int mf_filter_release(struct inode *inode, struct file *file)
{
	struct mf_file *mfile = file->private_data;

	memfilter_filter_image_free(mfile->image, mfile->image_len);
	memfilter_put(mfile->f);
	kvfree(mfile->batch);
	mutex_destroy(&mfile->batch_lock);
	mutex_destroy(&mfile->lock);
	kfree(mfile);
	return 0;
}

static const struct file_operations mf_filter_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = mf_filter_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.read = mf_filter_read,
	.release = mf_filter_release,
	.llseek = default_llseek,
};

/**
 * memfilter_filter_fget() - the filter of a filter fd
 * @fd: a file descriptor of the caller's
 * @write: the fd must be open for writing
 *
 * Context: process context.
 * Return: the filter, with a reference for the caller, or ERR_PTR(-EBADF)
 * if @fd is not a memfilter filter fd (open for writing, with @write).
 */
struct memfilter *memfilter_filter_fget(int fd, bool write)
{
	struct memfilter *f = NULL;
	struct file *file = fget(fd);

	if (!file)
		return ERR_PTR(-EBADF);
	if (file->f_op == &mf_filter_fops &&
	    (!write || (file->f_mode & FMODE_WRITE)))
		f = memfilter_get(((struct mf_file *)file->private_data)->f);
	fput(file);
	return f ?: ERR_PTR(-EBADF);
}

/**
 * memfilter_filter_install_fd() - reserve an fd and make a file for a filter
 * @f: the filter; the caller's reference passes to the file on success
 * @writable: open it read-write (else read-only: see the top of this file)
 * @filep: out: the file, to be fd_install()ed by the caller, or fput()
 *	together with put_unused_fd() on a later error
 *
 * The file records the caller's credentials (f_cred), which later checks
 * on it use.
 *
 * Context: process context, may sleep.
 * Return: the reserved fd (O_CLOEXEC), or -errno (the reference is then
 * still the caller's).
 */
int memfilter_filter_install_fd(struct memfilter *f, bool writable,
				struct file **filep)
{
	struct mf_file *mfile;
	struct file *file;
	int fd;

	mfile = kzalloc(sizeof(*mfile), GFP_KERNEL_ACCOUNT);
	if (!mfile)
		return -ENOMEM;
	mutex_init(&mfile->lock);
	mutex_init(&mfile->batch_lock);
	mfile->f = f;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		goto out_free;
	file = anon_inode_getfile("[memfilter]", &mf_filter_fops, mfile,
				  writable ? O_RDWR : O_RDONLY);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		fd = PTR_ERR(file);
		goto out_free;
	}
	/* Dumps are read from offset 0: make the fd seekable and preadable. */
	file->f_mode |= FMODE_LSEEK | FMODE_PREAD;
	*filep = file;
	return fd;

out_free:
	mutex_destroy(&mfile->batch_lock);
	mutex_destroy(&mfile->lock);
	kfree(mfile);
	return fd;
}
