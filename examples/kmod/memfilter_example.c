// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter_example: a module that uses memfilter's in-kernel API.
 *
 * At load it takes a reference to the filter published as @filter (by
 * memfilterctl create or load), asks it about each of @keys and logs the
 * answers; at unload it drops the reference. For example:
 *
 *   memfilterctl create seen --type bloom --capacity 1000
 *   echo apple | memfilterctl add seen
 *   insmod memfilter_example.ko filter=seen keys=apple,pear
 *   -> memfilter_example: seen: "apple" may be present
 *   -> memfilter_example: seen: "pear" is absent
 *
 * Building it needs memfilter's Module.symvers (see Makefile: the
 * KBUILD_EXTRA_SYMBOLS recipe), and loading it needs memfilter.ko loaded.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include <linux/memfilter.h>

static char *filter = "example";
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "Name of the published filter to use");

static char *keys[16];
static int nkeys;
module_param_array(keys, charp, &nkeys, 0444);
MODULE_PARM_DESC(keys, "Keys to look up, comma-separated");

static struct memfilter *example_filter;

static int __init memfilter_example_init(void)
{
	int i;

	example_filter = memfilter_get_by_name(filter);
	if (!example_filter) {
		pr_err("no filter is published as '%s'\n", filter);
		return -ENOENT;
	}
	for (i = 0; i < nkeys; i++)
		pr_info("%s: \"%s\" %s\n", filter, keys[i],
			memfilter_contains(example_filter, keys[i],
					   strlen(keys[i])) ?
			"may be present" : "is absent");
	return 0;
}

static void __exit memfilter_example_exit(void)
{
	memfilter_put(example_filter);
}

module_init(memfilter_example_init);
module_exit(memfilter_example_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Example user of memfilter's in-kernel API");
