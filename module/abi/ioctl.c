// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's ioctl dispatch, shared by /dev/memfilter (main.c) and filter
 * fds (fd.c): a table of commands (ioctl.h) in, one handler called.
 *
 * Conventions in this file: every ioctl argument starts with a __u32 size
 * (at most PAGE_SIZE, as for openat2() and clone3()) and is read with
 * copy_struct_from_user() into a kernel copy; handlers work on that copy
 * and write results back with memfilter_respond(), which copies no more
 * than the caller's size. The command tables are indexed by ioctl number;
 * the size bits of the command are ignored (see the uapi header).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/fs.h>
#include <linux/uaccess.h>

#include "ioctl.h"

/**
 * memfilter_respond() - copy a command's kernel copy back to the caller
 * @ucmd: the call
 * @kernel_size: size of the kernel's struct
 *
 * Context: process context.
 * Return: 0 or -EFAULT.
 */
int memfilter_respond(struct memfilter_ucmd *ucmd, size_t kernel_size)
{
	if (copy_to_user(ucmd->ubuf, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, kernel_size)))
		return -EFAULT;
	return 0;
}

/**
 * memfilter_dispatch() - serve one ioctl from a command table
 * @ops: the table, indexed by command number - MEMFILTER_CMD_BASE
 * @nops: its length
 * @file: the file the ioctl came on (/dev/memfilter or a filter fd)
 * @f: the filter for filter-fd commands, or NULL
 * @cmd: the ioctl command
 * @arg: its argument
 *
 * Commands that change something (MEMFILTER_IOCTL_OP_WRITE) need @file
 * open for writing, as write(2) does: a read-only /dev/memfilter creates
 * and loads nothing, a read-only filter fd only queries, reads its info
 * and dumps an unkeyed filter.
 *
 * Context: process context, may sleep.
 * Return: the command's result, -ENOTTY for unknown commands, -EBADF for
 * a changing command on a read-only fd, -EFAULT, -EINVAL or -E2BIG for a
 * bad argument struct (E2BIG also for a size above PAGE_SIZE).
 */
long memfilter_dispatch(const struct memfilter_ioctl_op *ops, unsigned int nops,
			struct file *file, struct memfilter *f, unsigned int cmd,
			unsigned long arg)
{
	const struct memfilter_ioctl_op *op;
	union memfilter_ucmd_buffer buf;
	struct memfilter_ucmd ucmd;
	unsigned int nr;
	int ret;

	nr = _IOC_NR(cmd);
	if (_IOC_TYPE(cmd) != MEMFILTER_IOCTL_TYPE || nr < MEMFILTER_CMD_BASE ||
	    nr - MEMFILTER_CMD_BASE >= nops)
		return -ENOTTY;
	op = &ops[nr - MEMFILTER_CMD_BASE];
	if (!op->execute)
		return -ENOTTY;
	if (op->write && !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	ucmd.ubuf = (void __user *)arg;
	ucmd.file = file;
	ucmd.f = f;
	ret = get_user(ucmd.user_size, (u32 __user *)ucmd.ubuf);
	if (ret)
		return ret;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	/* Never scan megabytes of user memory for a zero tail. */
	if (ucmd.user_size > PAGE_SIZE)
		return -E2BIG;

	ucmd.cmd = &buf;
	ret = copy_struct_from_user(ucmd.cmd, op->size, ucmd.ubuf,
				    ucmd.user_size);
	if (ret)
		return ret;
	return op->execute(&ucmd);
}
