/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's in-kernel API: what netfilter hooks, block-layer code, BPF
 * kfuncs and other modules call to use a filter that userspace created and
 * published by name. Userspace's ABI is <uapi/linux/memfilter.h>, which
 * this header includes, as the kernel's own include/linux headers do (out
 * of tree, Kbuild's -I$(src) finds it in memfilter's top-level uapi/).
 * struct memfilter is opaque here; the functions are EXPORT_SYMBOL_GPL()
 * and documented where they are defined (module/abi/api.c,
 * module/filter/names.c, module/filter/filter.c). memfilter.ko's own
 * consumers also inline a few per-key paths of the object, which are not
 * part of this API (Documentation/internals.rst).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_KERNEL_H
#define _MEMFILTER_KERNEL_H

#include <linux/types.h>
#include <uapi/linux/memfilter.h>

struct memfilter;

struct memfilter *memfilter_get_by_name(const char *name);
struct memfilter *memfilter_lookup_rcu(const char *name);
struct memfilter *memfilter_lookup_id_rcu(u32 id);
struct memfilter *memfilter_get(struct memfilter *f);
void memfilter_put(struct memfilter *f);

bool memfilter_contains(struct memfilter *f, const void *key, u32 len);
bool memfilter_contains_addr(struct memfilter *f, const void *addr, u32 len);
int memfilter_add(struct memfilter *f, const void *key, u32 len);
int memfilter_delete(struct memfilter *f, const void *key, u32 len);
int memfilter_test_and_add(struct memfilter *f, const void *key, u32 len);
u32 memfilter_contains_batch(struct memfilter *f, const void *keys,
			     u32 key_size, u32 n, unsigned long *result);
int memfilter_add_batch(struct memfilter *f, const void *keys, u32 key_size,
			u32 n, u32 *done);

#endif /* _MEMFILTER_KERNEL_H */
