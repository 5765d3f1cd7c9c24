// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's debugfs view: /sys/kernel/debug/memfilter/filters lists every
 * live filter with its parameters and statistics, one line each, so that
 * operators can watch fill and false-positive estimates without the ioctl,
 * and tests can see how often lockless cuckoo readers had to retry. The
 * last column, parts, is a window filter's generations or a growing
 * filter's sub-filters in use (0 for the other types).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "filter/filter.h"

static struct dentry *mf_debugfs_dir;

static int mf_filters_show(struct seq_file *m, void *v)
{
	struct memfilter_cuckoo_snapshot cs;
	struct memfilter_info *info;
	struct memfilter *f;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	seq_puts(m, "id type name bytes capacity keys fill fill_max est_fpr_ppb k fp_bits adds queries hits deletes failed stash status read_retries read_busy parts\n");
	mutex_lock(&memfilter_names_lock);
	list_for_each_entry(f, &memfilter_all_filters, all) {
		if (!memfilter_get(f))
			continue;
		/* memfilter_filter_info() takes memfilter_names_lock itself. */
		mutex_unlock(&memfilter_names_lock);
		memset(info, 0, sizeof(*info));
		memfilter_filter_info(f, info);
		/* Lockless readers' retries: only cuckoo readers ever retry. */
		memset(&cs, 0, sizeof(cs));
		if (f->ops == &memfilter_cuckoo_ops)
			memfilter_cuckoo_stats(&f->s.cuckoo, &cs);
		seq_printf(m, "%llu %s %s %llu %llu %llu %llu %llu %llu %u %u %llu %llu %llu %llu %llu %u 0x%x %llu %llu %u\n",
			   f->id, f->ops->name,
			   info->name[0] ? info->name : "-", info->bytes,
			   info->capacity, info->keys, info->fill, info->fill_max,
			   info->est_fpr_ppb, info->k, info->fingerprint_bits,
			   info->adds, info->queries, info->hits, info->deletes,
			   info->failed, info->stash_used, info->status,
			   cs.read_retries, cs.read_busy,
			   info->generations ?: info->subfilters);
		mutex_lock(&memfilter_names_lock);
		/* @f stays on the list while we hold a reference. */
		memfilter_put(f);
	}
	mutex_unlock(&memfilter_names_lock);
	kfree(info);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mf_filters);

/**
 * memfilter_debugfs_init() - create /sys/kernel/debug/memfilter/
 *
 * Context: process context. debugfs failures are not fatal.
 * Return: 0.
 */
int memfilter_debugfs_init(void)
{
	mf_debugfs_dir = debugfs_create_dir("memfilter", NULL);
	debugfs_create_file("filters", 0400, mf_debugfs_dir, NULL,
			    &mf_filters_fops);
	return 0;
}

void memfilter_debugfs_exit(void)
{
	debugfs_remove_recursive(mf_debugfs_dir);
}
