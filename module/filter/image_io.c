// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's filters to and from images (Documentation/image-format.rst):
 * loading a filter from an image in user memory, and taking a consistent
 * image of a live filter for a read() of its fd. The header is built and
 * checked by core/image.c, the table by the filter's type.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/visibility.h>
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
	u8 trailer[MEMFILTER_IMAGE_PREFIXES_SIZE];
	struct memfilter_image_header hdr;
	struct memfilter_image_desc d;
	struct memfilter *f;
	u64 tbytes;
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

	/* The table into its place; a prefix filter's lengths after it here. */
	table = PTR_ALIGN(f->mem, MEMFILTER_BLOOM_BLOCK_BYTES);
	tbytes = memfilter_image_table_bytes(&d);
	ret = mf_copy_payload(table, uimage + sizeof(hdr), tbytes);
	if (!ret && d.prefixes &&
	    copy_from_user(trailer, uimage + sizeof(hdr) + tbytes,
			   sizeof(trailer)))
		ret = -EFAULT;
	if (!ret)
		ret = memfilter_image_check_parts(&d, table,
						  d.prefixes ? trailer : NULL);
	if (!ret)
		ret = memfilter_image_get_prefixes(&d, trailer);
	if (!ret)
		ret = ops->restore(&f->s, &d);
	if (ret)
		goto out_put;
	f->px = d.px;
	if (!ops->counts_keys)
		this_cpu_write(f->stats->adds, d.keys);
	if (f->kops->start)
		f->kops->start(f);
	return f;

out_put:
	memfilter_put(f);
	return ERR_PTR(ret);
}

/*
 * Copy the table of a type with locked writers into @payload as it is at
 * one instant, holding the writer lock (bottom halves off) for one step
 * (16 KiB of table) at a time; writers in between copy out what they are
 * about to change first. One such copy per filter at a time.
 */
static int mf_copy_stepwise(struct memfilter *f, u8 *payload,
			    struct memfilter_image_desc *d)
{
	struct memfilter_table_copy t = { .dst = payload };
	u64 k, steps = f->ops->steps(&f->s);

	t.copied = kvcalloc(DIV_ROUND_UP(steps, 64), sizeof(u64),
			    GFP_KERNEL_ACCOUNT);
	if (!t.copied)
		return -ENOMEM;
	mutex_lock(&f->dump_lock);
	memfilter_writer_lock(f);
	f->ops->copy_begin(&f->s, &t, d);
	memfilter_writer_unlock(f);
	for (k = 0; k < steps; k++) {
		memfilter_writer_lock(f);
		f->ops->copy_step(&f->s, k);
		memfilter_writer_unlock(f);
		cond_resched();
	}
	memfilter_writer_lock(f);
	f->ops->copy_end(&f->s);
	memfilter_writer_unlock(f);
	mutex_unlock(&f->dump_lock);
	kvfree(t.copied);
	return 0;
}

/**
 * memfilter_filter_image() - take a consistent image of a live filter
 * @f: the filter
 * @len: out: the image's length
 *
 * Types without a writer lock (Bloom, window) are copied word by word
 * without a lock, yielding: every key added before the call is in the
 * image (bits are only ever set; the type's kernel-side hooks keep a
 * window's rotations and a growing filter's growth out of the copy).
 * Types with one (cuckoo) are copied as they were when the copy
 * began (fingerprints move), in 16 KiB locked steps. The image counts
 * against max_total_mb until memfilter_filter_image_free(). Whether the
 * caller may have a keyed filter's secret is the caller's to check.
 *
 * Context: process context, may sleep.
 * Return: the image, or an ERR_PTR(): -ENOMEM (also past max_total_mb).
 */
void *memfilter_filter_image(struct memfilter *f, size_t *len)
{
	const size_t hdr = sizeof(struct memfilter_image_header);
	struct memfilter_image_desc d;
	u8 *image;
	int ret;

	/* The table's shape (generations, sub-filters) holds still from here. */
	if (f->kops->image_begin)
		f->kops->image_begin(f);
	*len = hdr + f->ops->payload_bytes(f->ops->params_of(&f->s)) +
	       memfilter_image_prefix_bytes(&f->px);
	ret = memfilter_charge(*len);
	if (ret)
		goto out_end;
	image = memfilter_table_alloc(*len);
	if (!image) {
		memfilter_uncharge(*len);
		ret = -ENOMEM;
		goto out_end;
	}

	if (f->ops->steps) {
		ret = mf_copy_stepwise(f, image + hdr, &d);
		if (ret) {
			memfilter_filter_image_free(image, *len);
			goto out_end;
		}
	} else {
		/* Types without steps copy with no lock, yielding (filter_type.h). */
		f->ops->image(&f->s, memfilter_filter_added(f), &d, image + hdr);
	}
	/* After the table: every key copied has its length (core/prefix.h). */
	memfilter_image_put_prefixes(&d, &f->px, image + hdr);
	if (f->kops->image_end)
		f->kops->image_end(f);
	memfilter_image_header((struct memfilter_image_header *)image, &d,
			       image + hdr);
	return image;

out_end:
	if (f->kops->image_end)
		f->kops->image_end(f);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_image);

/**
 * memfilter_filter_image_free() - free an image and stop counting it
 * @image: from memfilter_filter_image(), or NULL
 * @len: its length
 *
 * Context: process context.
 */
void memfilter_filter_image_free(void *image, size_t len)
{
	if (!image)
		return;
	kvfree(image);
	memfilter_uncharge(len);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_image_free);
