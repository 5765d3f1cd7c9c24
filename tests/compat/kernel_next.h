/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 6.12's kernel API made to look like the next kernels', for the build
 * that forces every entry of module/kernel_compat.h to its newer-kernel
 * side (scripts/compat-test.sh: make MEMFILTER_COMPAT_NEXT=this file, so
 * Kbuild force-includes it into every object before its first line).
 * What the next kernels removed or deprecate is made unusable here (an
 * undefined name, a build-time error), what they added is declared with
 * its upstream signature and implemented on 6.12's API, so that the
 * module built so also links and runs on 6.12. Each entry names the
 * upstream commit; module/kernel_compat.h has the rest of the evidence.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_KERNEL_NEXT_H
#define _MEMFILTER_KERNEL_NEXT_H

#include <linux/btf.h>
#include <linux/build_bug.h>
#include <linux/container_of.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/rcupdate_trace.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

/* 7.0: every kfunc takes trusted arguments, no flag (7646c7afd9a9). */
#undef KF_TRUSTED_ARGS

/*
 * 7.0: RCU Tasks Trace on SRCU-fast (c27cea4416a3); checkpatch lists
 * rcu_read_lock_trace() as deprecated for rcu_read_lock_tasks_trace().
 */
#define rcu_read_lock_trace()	BUILD_BUG_ON_MSG(1, "rcu_read_lock_trace() is deprecated")
#define rcu_read_unlock_trace()	BUILD_BUG_ON_MSG(1, "rcu_read_unlock_trace() is deprecated")

/*
 * 6.13: hrtimer_setup() (908a1d775422); 6.15: hrtimer_init() deleted
 * (9779489a31d7), the callback pointer private (04257da0c99c).
 */
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	ACCESS_PRIVATE(timer, function) = function;
}

#define hrtimer_init(...)	memfilter_next_has_no_hrtimer_init(__VA_ARGS__)

/* 6.16: from_timer() renamed timer_container_of() (41cb08555c41). */
#undef from_timer
#define timer_container_of(var, callback_timer, timer_fieldname) \
	container_of(callback_timer, typeof(*(var)), timer_fieldname)

/* Deprecated in 6.12's own header, converted treewide (8fa7292fee5c). */
#define del_timer_sync(t)	memfilter_next_has_no_del_timer_sync(t)

/* 6.13: MODULE_IMPORT_NS() takes a string (cdd30ebb1b9f). */
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)

/*
 * 7.2 (the workqueue tree's for-7.2): alloc_workqueue() warns unless given
 * WQ_PERCPU or WQ_UNBOUND (21c05ca88a54). It also warns on the first use
 * of system_unbound_wq (64d8eae3f895), which 6.12's own flush_workqueue()
 * names, so it cannot be undefined here: scripts/compat-test.sh greps for
 * it instead. 6.12 has the new names WQ_PERCPU and system_dfl_wq.
 */
#define alloc_workqueue(fmt, flags, max_active, ...) ({			\
	BUILD_BUG_ON_MSG(!((flags) & (WQ_PERCPU | WQ_UNBOUND)),		\
			 "alloc_workqueue() without WQ_PERCPU or WQ_UNBOUND"); \
	(alloc_workqueue)(fmt, flags, max_active, ##__VA_ARGS__);	\
})

#endif /* _MEMFILTER_KERNEL_NEXT_H */
