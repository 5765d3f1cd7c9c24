// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's filters to and from images (Documentation/image-format.rst):
 * loading a filter from an image in user memory, and taking a consistent
 * image of a live filter for a read() of its fd. The header is built and
 * checked by core/image.c, the table by the filter's type.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "filter.h"
#include "image.h"

/* Copy an image's payload from user memory in pieces, yielding between. */
static int mf_copy_payload(u8 *table, const u8 __user *upayload, u64 size)
{
	u64 off, n;

	for (off = 0; off < size; off += n) {
		n = min_t(u64, size - off, SZ_1M);
		if (copy_from_user(table + off, upayload + off, n))
			return -EFAULT;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/**
 * memfilter_filter_load() - make a filter from an image in user memory
 * @uimage: the image (header and payload)
 * @len: its length
 *
 * Context: process context, may sleep; interruptible by fatal signals.
 * Return: the filter with one reference, or an ERR_PTR(): -EBADMSG for a
 * corrupt or inconsistent image, -EOPNOTSUPP for an unsupported one,
 * -E2BIG or -ENOMEM for the module's limits, -EFAULT, -EINTR. Nothing is
 * left behind on error.
 */
struct memfilter *memfilter_filter_load(const u8 __user *uimage, u64 len)
{
	const struct memfilter_type_ops *ops;
	struct memfilter_image_header hdr;
	struct memfilter_image_desc d;
	struct memfilter *f;
	u8 *table;
	u32 algo;
	int ret;

	if (len < sizeof(hdr))
		return ERR_PTR(-EBADMSG);
	if (copy_from_user(&hdr, uimage, sizeof(hdr)))
		return ERR_PTR(-EFAULT);
	ret = memfilter_image_parse(&hdr, len, &d);
	memzero_explicit(&hdr, sizeof(hdr));
	if (ret)
		return ERR_PTR(ret);

	ops = memfilter_type_ops(d.type);
	algo = ops->hasher(&d.params)->algo;
	f = memfilter_filter_alloc(ops, algo == MEMFILTER_HASH_SIPHASH24 ?
				   MEMFILTER_CREATE_KEYED : 0, &d.params);
	memzero_explicit(&d.params, sizeof(d.params));
	if (IS_ERR(f))
		return f;

	table = PTR_ALIGN(f->mem, MEMFILTER_BLOOM_BLOCK_BYTES);
	ret = mf_copy_payload(table, uimage + sizeof(hdr), d.payload_size);
	if (!ret)
		ret = memfilter_image_check_payload(&d, table);
	if (!ret)
		ret = ops->restore(&f->s, &d);
	if (ret)
		goto out_put;
	if (!ops->counts_keys)
		this_cpu_write(f->stats->adds, d.keys);
	memfilter_rotation_start(f);
	return f;

out_put:
	memfilter_put(f);
	return ERR_PTR(ret);
}

/**
 * memfilter_filter_image() - take a consistent image of a live filter
 * @f: the filter
 * @len: out: the image's length
 *
 * Types without a writer lock (Bloom) are copied word by word without a
 * lock: every key added before the call is in the image (bits are only
 * ever set). Types with one (cuckoo) are copied under it, since
 * fingerprints move.
 *
 * Context: process context, may sleep.
 * Return: the image in a kvmalloc()ed buffer, or an ERR_PTR(): -EPERM for
 * a keyed filter without CAP_SYS_ADMIN (its image carries the secret),
 * -ENOMEM.
 */
void *memfilter_filter_image(struct memfilter *f, size_t *len)
{
	const struct memfilter_hasher *h = memfilter_state_hasher(f->ops, &f->s);
	const size_t hdr = sizeof(struct memfilter_image_header);
	struct memfilter_image_desc d;
	u8 *image;

	if (h->algo == MEMFILTER_HASH_SIPHASH24 && !capable(CAP_SYS_ADMIN))
		return ERR_PTR(-EPERM);
	*len = hdr + f->ops->payload_bytes(f->ops->params_of(&f->s));
	image = kvmalloc(*len, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!image)
		return ERR_PTR(-ENOMEM);

	memfilter_rotation_lock(f);
	memfilter_writer_lock(f);
	f->ops->image(&f->s, memfilter_filter_added(f), &d, image + hdr);
	memfilter_writer_unlock(f);
	memfilter_rotation_unlock(f);
	memfilter_image_header((struct memfilter_image_header *)image, &d,
			       image + hdr);
	return image;
}
