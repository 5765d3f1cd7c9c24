/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctl plumbing shared by /dev/memfilter and filter fds: a table of
 * commands, each with its argument struct, read with copy_struct_from_user()
 * and answered with memfilter_respond(); ioctl.c serves them.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_IOCTL_H
#define _MEMFILTER_IOCTL_H

#include <linux/build_bug.h>
#include <linux/memfilter.h>

struct memfilter;

/**
 * struct memfilter_ucmd - one ioctl call being served
 * @ubuf: the caller's argument
 * @user_size: its size field
 * @cmd: the kernel copy, already validated for size and tail
 * @file: the file the ioctl came on
 * @f: the filter, for commands on a filter fd
 */
struct memfilter_ucmd {
	void __user *ubuf;
	u32 user_size;
	void *cmd;
	struct file *file;
	struct memfilter *f;
};

union memfilter_ucmd_buffer {
	struct memfilter_api api;
	struct memfilter_create create;
	struct memfilter_open open;
	struct memfilter_list list;
	struct memfilter_load load;
	struct memfilter_keys keys;
	struct memfilter_info info;
	struct memfilter_name name;
	struct memfilter_clear clear;
	struct memfilter_nf_attach nf_attach;
	struct memfilter_nf_detach nf_detach;
	struct memfilter_nf_list nf_list;
	struct memfilter_rotate rotate;
	struct memfilter_replace replace;
	struct memfilter_exchange exchange;
};

/**
 * struct memfilter_ioctl_op - one command of a table
 * @size: the kernel's argument struct
 * @min_size: its first version's size
 * @write: the command changes something: the fd must be open for writing
 * @execute: the handler
 */
struct memfilter_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	bool write;
	int (*execute)(struct memfilter_ucmd *ucmd);
};

#define __MEMFILTER_IOCTL_OP(_ioctl, _fn, _struct, _last, _write)        \
	[_IOC_NR(_ioctl) - MEMFILTER_CMD_BASE] = {                       \
		.size = sizeof(_struct) +                                \
			BUILD_BUG_ON_ZERO(sizeof(union memfilter_ucmd_buffer) < \
					  sizeof(_struct)),              \
		.min_size = offsetofend(_struct, _last),                 \
		.write = _write,                                         \
		.execute = _fn,                                          \
	}
/* A command that only reads: any fd of the right kind may issue it. */
#define MEMFILTER_IOCTL_OP(_ioctl, _fn, _struct, _last)                  \
	__MEMFILTER_IOCTL_OP(_ioctl, _fn, _struct, _last, false)
/* A command that changes something: the fd must be open for writing. */
#define MEMFILTER_IOCTL_OP_WRITE(_ioctl, _fn, _struct, _last)            \
	__MEMFILTER_IOCTL_OP(_ioctl, _fn, _struct, _last, true)

long memfilter_dispatch(const struct memfilter_ioctl_op *ops, unsigned int nops,
			struct file *file, struct memfilter *f,
			unsigned int cmd, unsigned long arg);
int memfilter_respond(struct memfilter_ucmd *ucmd, size_t kernel_size);

/* nf_ioctl.c: the netfilter commands of /dev/memfilter */
int memfilter_nf_cmd_attach(struct memfilter_ucmd *ucmd);
int memfilter_nf_cmd_detach(struct memfilter_ucmd *ucmd);
int memfilter_nf_cmd_list(struct memfilter_ucmd *ucmd);

#endif /* _MEMFILTER_IOCTL_H */
