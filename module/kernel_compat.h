/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions memfilter builds for, in
 * one place, as WireGuard's compat/compat.h keeps them: Debian's 6.1 and
 * 6.12 and the releases that come next. The code is written against the
 * newest API; this header supplies it on kernels that lack it. Each entry
 * is chosen by a feature test where one exists: a macro the kernel
 * defines, or a grep of the kernel's headers at build time (Kbuild's
 * "kernel API probes", MEMFILTER_HAVE_*), so a distribution kernel with a
 * backport takes the right side whatever its version number.
 *
 * MEMFILTER_COMPAT_NEXT (make MEMFILTER_COMPAT_NEXT=tests/compat/kernel_next.h,
 * scripts/compat-test.sh in make check) builds every entry's newer-kernel
 * side against 6.12: that header makes 6.12's API look like the newer
 * kernels' (removed names undefined, new ones added with their upstream
 * signatures) and Kbuild's probes report the newer side; an entry still
 * on its older side then stops the build below.
 *
 * Surveyed and needing no entry (the code uses what every supported
 * kernel has): timer_delete_sync() (6.2, in Debian's 6.1 too;
 * del_timer_sync() is "Do not use in new code" in 6.12 and was converted
 * treewide by 8fa7292fee5c, 6.15); no_llseek, gone in 6.12 (cb787f4ac0c2:
 * file_operations name default_llseek or nothing); <linux/unaligned.h>
 * and class_create() (neither is used: core/ loads unaligned words with
 * memcpy(), the device is a misc device); CFI_NOSEAL() (still in
 * <linux/cfi.h> when CONFIG_CFI_CLANG became CONFIG_CFI); the
 * device-mapper target's map/end_io/status/message/iterate_devices
 * signatures, struct bio, bio_init() and dm_get_device() with
 * dm_table_get_mode()'s type, netfilter's nf_hook_ops; and RCU Tasks
 * Trace, which 7.0 reimplemented on SRCU-fast (c27cea4416a3): bpf.c calls
 * call_rcu_tasks_trace() and rcu_barrier_tasks_trace(), which stay as
 * wrappers of call_srcu() and srcu_barrier() on the exported
 * rcu_tasks_trace_srcu_struct, and never the reader side
 * rcu_read_lock_trace(), which checkpatch then lists as deprecated in
 * favour of rcu_read_lock_tasks_trace() (scripts/compat-test.sh checks
 * that module/ does not call it). A filter's free waits for a Tasks Trace
 * and then an RCU grace period in every case (filter.c), never asking
 * rcu_trace_implies_rcu_gp(), whose answer is an accident of the
 * implementation.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_KERNEL_COMPAT_H
#define _MEMFILTER_KERNEL_COMPAT_H

#include <linux/btf.h>
#include <linux/container_of.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

/*
 * KF_TRUSTED_ARGS. bpf-next made trusted arguments the default for every
 * kfunc (1a5c01d2508a "bpf: Make KF_TRUSTED_ARGS the default for all
 * kfuncs") and removed the flag (7646c7afd9a9 "bpf: Remove redundant
 * KF_TRUSTED_ARGS flag from all kfuncs"), January 2026, for 7.0: the
 * verifier then refuses a possibly-NULL or untrusted pointer for every
 * pointer argument unless the argument is __nullable/__opt or the kfunc
 * is KF_RCU, which memfilter's are not. Where the flag exists, bpf.c
 * still needs it: without it 6.12 accepts a possibly-NULL key.
 */
#ifdef KF_TRUSTED_ARGS
#define MEMFILTER_KF_TRUSTED	KF_TRUSTED_ARGS
#else
#define MEMFILTER_KF_TRUSTED	0
#endif

/*
 * Kernel-mode FPU in softirqs. From 6.15 (d02198550423 "x86/fpu: Improve
 * crypto performance by making kernel-mode FPU reliably usable in
 * softirqs") kernel_fpu_begin() disables bottom halves (unless hard
 * interrupts are off), so no softirq can run inside a task's FPU section
 * and irq_fpu_usable() is always true in softirq context: XDP, TC and
 * netfilter programs' batches always get the AVX2 path. Before, a softirq
 * that interrupted a task's kernel_fpu_begin() section got false from
 * may_use_simd() and took the scalar path. The change itself is in
 * arch/x86/kernel/fpu/core.c; the same commit rewrote <asm/fpu/api.h>'s
 * comment to say kernel_fpu_begin() "disables preemption and softirq
 * processing", which Kbuild probes (MEMFILTER_HAVE_FPU_SOFTIRQ_OFF), so a
 * backport counts too. Documentation/filters.rst ("SIMD in the kernel")
 * has each context's path on each kernel; KUnit
 * mf_simd_softirq_in_fpu_section checks the running kernel's.
 */
#ifdef MEMFILTER_HAVE_FPU_SOFTIRQ_OFF
#define MEMFILTER_FPU_HOLDS_SOFTIRQS	1
#else
#define MEMFILTER_FPU_HOLDS_SOFTIRQS	0
#endif

/*
 * hrtimer_setup(): 6.13 added it (908a1d775422 "hrtimers: Introduce
 * hrtimer_setup() to replace hrtimer_init()"), 6.15 made the callback
 * pointer private (04257da0c99c) and deleted hrtimer_init()
 * (9779489a31d7); some stable series have hrtimer_setup() too. Probed:
 * Kbuild's MEMFILTER_HAVE_HRTIMER_SETUP.
 */
#ifndef MEMFILTER_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * timer_container_of(): 6.16 renamed from_timer() (41cb08555c41
 * "treewide, timers: Rename from_timer() to timer_container_of()").
 * A macro: its own feature test.
 */
#ifndef timer_container_of
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)
#endif

/*
 * MODULE_IMPORT_NS() takes a string from 6.13 (cdd30ebb1b9f "module:
 * Convert symbol namespace to string literal"; also in some stable
 * series). Probed: Kbuild's MEMFILTER_HAVE_NS_STRING is set unless
 * <linux/module.h> still stringifies the namespace.
 */
#ifndef MEMFILTER_HAVE_NS_STRING
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#endif

/*
 * Workqueues. 6.17 added system_dfl_wq for system_unbound_wq
 * (128ea9f6ccfb "workqueue: Add system_percpu_wq and system_dfl_wq") and
 * WQ_PERCPU (930c2ea566af "workqueue: Add new WQ_PERCPU flag"), because
 * alloc_workqueue() will become unbound by default. The workqueue tree
 * for 7.2 then warns once when system_unbound_wq is used (64d8eae3f895
 * "workqueue: Add warnings and fallback if system_{unbound}_wq is used")
 * and when alloc_workqueue() is given neither WQ_PERCPU nor WQ_UNBOUND
 * (21c05ca88a54). Debian's 6.12 has both names (a stable backport); 6.1
 * has neither. Probed: MEMFILTER_HAVE_SYSTEM_DFL_WQ,
 * MEMFILTER_HAVE_WQ_PERCPU.
 */
#ifndef MEMFILTER_HAVE_SYSTEM_DFL_WQ
#define system_dfl_wq	system_unbound_wq
#endif
#ifndef MEMFILTER_HAVE_WQ_PERCPU
#define WQ_PERCPU	0
#endif

#ifdef MEMFILTER_COMPAT_NEXT
#if defined(KF_TRUSTED_ARGS) || !MEMFILTER_FPU_HOLDS_SOFTIRQS || \
	!defined(MEMFILTER_HAVE_HRTIMER_SETUP) || \
	!defined(MEMFILTER_HAVE_NS_STRING) || \
	!defined(MEMFILTER_HAVE_SYSTEM_DFL_WQ) || \
	!defined(MEMFILTER_HAVE_WQ_PERCPU) || defined(from_timer)
#error "MEMFILTER_COMPAT_NEXT: an entry is on its older-kernel side"
#endif
#endif

#endif /* _MEMFILTER_KERNEL_COMPAT_H */
