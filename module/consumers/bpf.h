/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's BPF kfuncs (bpf.c): built only for 64-bit kernels with the
 * kfunc machinery (BTF_KFUNCS_START: 6.12 has it, 6.1 does not) and module
 * BTF. Elsewhere the module loads without them and says so in
 * MEMFILTER_IOC_API (MEMFILTER_FEAT_BPF_KFUNCS clear).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BPF_H
#define _MEMFILTER_BPF_H

#include <linux/btf_ids.h>
#include <linux/kconfig.h>
#include <linux/rcupdate.h>
#include <linux/rcupdate_trace.h>
#include <linux/types.h>

#if defined(BTF_KFUNCS_START) && IS_ENABLED(CONFIG_64BIT) && \
	IS_ENABLED(CONFIG_BPF_SYSCALL) && \
	IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES)
#define MEMFILTER_BPF_KFUNCS 1
int memfilter_bpf_init(void);
bool memfilter_bpf_available(void);

/**
 * memfilter_bpf_call_after_gp() - call @func once no BPF program can hold
 *	what it frees
 * @head: the rcu_head to use
 * @func: called after an RCU Tasks Trace grace period
 *
 * Programs reach filters without a reference inside rcu_read_lock() or,
 * in bpf_wq callbacks, sleepable and freplace programs, inside
 * rcu_read_lock_trace() only: a filter's free waits for this grace period
 * and then for an RCU one (filter.c), as BPF maps used by sleepable
 * programs do.
 *
 * Context: any but NMI.
 */
static inline void memfilter_bpf_call_after_gp(struct rcu_head *head,
					       rcu_callback_t func)
{
	call_rcu_tasks_trace(head, func);
}

/**
 * memfilter_bpf_barrier() - wait for every memfilter_bpf_call_after_gp()
 *	callback queued so far
 *
 * Context: process context, may sleep (module exit, tests).
 */
static inline void memfilter_bpf_barrier(void)
{
	rcu_barrier_tasks_trace();
}

/* The kfuncs: called by BPF programs only (Documentation/bpf.rst). */
struct memfilter;

struct memfilter_borrowed;

struct memfilter *bpf_memfilter_get(const char *name__str);
struct memfilter_borrowed *bpf_memfilter_borrow(const char *name__str);
struct memfilter_borrowed *bpf_memfilter_borrow_id(u32 id);
void bpf_memfilter_unborrow(struct memfilter_borrowed *b);
void bpf_memfilter_release(struct memfilter *f);
int bpf_memfilter_contains(struct memfilter *f, const void *key, u32 key__sz);
int bpf_memfilter_add(struct memfilter *f, const void *key, u32 key__sz);
int bpf_memfilter_delete(struct memfilter *f, const void *key, u32 key__sz);
int bpf_memfilter_test_and_add(struct memfilter *f, const void *key,
			       u32 key__sz);
int bpf_memfilter_contains_batch(struct memfilter *f, const void *keys,
				 u32 keys__sz, u32 key_size, u64 *bitmap);
int bpf_memfilter_contains_id(u32 id, const void *key, u32 key__sz);
int bpf_memfilter_test_and_add_id(u32 id, const void *key, u32 key__sz);
int bpf_memfilter_contains_addr(struct memfilter *f, const void *addr,
				u32 addr__sz);
int bpf_memfilter_contains_addr_id(u32 id, const void *addr, u32 addr__sz);
void bpf_memfilter_release_dtor(void *f);
#else
#define MEMFILTER_BPF_KFUNCS 0
static inline int memfilter_bpf_init(void)
{
	return 0;
}

/* No kfuncs, no BPF program can hold a filter: nothing to wait for. */
static inline void memfilter_bpf_call_after_gp(struct rcu_head *head,
					       rcu_callback_t func)
{
	func(head);
}

static inline void memfilter_bpf_barrier(void)
{
}

static inline bool memfilter_bpf_available(void)
{
	return false;
}
#endif

#endif /* _MEMFILTER_BPF_H */
