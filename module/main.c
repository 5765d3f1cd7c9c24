// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter: the /dev/memfilter character device and its ioctl dispatch.
 *
 * Conventions in this file: every ioctl argument starts with a __u32 size
 * and is read with copy_struct_from_user() into a kernel copy; handlers
 * work on that copy and write results back with mf_respond(), which copies
 * no more than the caller's size. The command table is indexed by ioctl
 * number; the size bits of the command are ignored (see the uapi header).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/memfilter.h>

struct mf_ucmd {
	void __user *ubuf;
	u32 user_size;
	void *cmd;
};

union mf_ucmd_buffer {
	struct memfilter_api api;
};

static int mf_respond(struct mf_ucmd *ucmd, size_t kernel_size)
{
	if (copy_to_user(ucmd->ubuf, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, kernel_size)))
		return -EFAULT;
	return 0;
}

static int mf_cmd_api(struct mf_ucmd *ucmd)
{
	struct memfilter_api *cmd = ucmd->cmd;
	u32 requested = cmd->api_version;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;

	cmd->api_version = MEMFILTER_API_VERSION;
	cmd->features = MEMFILTER_FEAT_HASH_XXH64 | MEMFILTER_FEAT_HASH_SIPHASH;
	ret = mf_respond(ucmd, sizeof(*cmd));
	if (ret)
		return ret;
	return requested == MEMFILTER_API_VERSION ? 0 : -EOPNOTSUPP;
}

struct mf_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	int (*execute)(struct mf_ucmd *ucmd);
};

#define MF_IOCTL_OP(_ioctl, _fn, _struct, _last)                         \
	[_IOC_NR(_ioctl) - MEMFILTER_CMD_BASE] = {                       \
		.size = sizeof(_struct) +                                \
			BUILD_BUG_ON_ZERO(sizeof(union mf_ucmd_buffer) < \
					  sizeof(_struct)),              \
		.min_size = offsetofend(_struct, _last),                 \
		.execute = _fn,                                          \
	}

static const struct mf_ioctl_op mf_dev_ops[] = {
	MF_IOCTL_OP(MEMFILTER_IOC_API, mf_cmd_api, struct memfilter_api,
		    features),
};

static long mf_dispatch(const struct mf_ioctl_op *ops, unsigned int nops,
			unsigned int cmd, unsigned long arg)
{
	const struct mf_ioctl_op *op;
	union mf_ucmd_buffer buf;
	struct mf_ucmd ucmd;
	unsigned int nr;
	int ret;

	nr = _IOC_NR(cmd);
	if (_IOC_TYPE(cmd) != MEMFILTER_IOCTL_TYPE || nr < MEMFILTER_CMD_BASE ||
	    nr - MEMFILTER_CMD_BASE >= nops)
		return -ENOTTY;
	op = &ops[nr - MEMFILTER_CMD_BASE];
	if (!op->execute)
		return -ENOTTY;

	ucmd.ubuf = (void __user *)arg;
	ret = get_user(ucmd.user_size, (u32 __user *)ucmd.ubuf);
	if (ret)
		return ret;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;

	ucmd.cmd = &buf;
	ret = copy_struct_from_user(ucmd.cmd, op->size, ucmd.ubuf,
				    ucmd.user_size);
	if (ret)
		return ret;
	return op->execute(&ucmd);
}

static long mf_dev_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	return mf_dispatch(mf_dev_ops, ARRAY_SIZE(mf_dev_ops), cmd, arg);
}

static const struct file_operations mf_dev_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = mf_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice mf_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "memfilter",
	.fops = &mf_dev_fops,
	.mode = 0600,
};

static int __init memfilter_init(void)
{
	int ret;

	ret = misc_register(&mf_miscdev);
	if (ret)
		return ret;
	pr_info("ready, ABI version %u\n", MEMFILTER_API_VERSION);
	return 0;
}

static void __exit memfilter_exit(void)
{
	misc_deregister(&mf_miscdev);
}

module_init(memfilter_init);
module_exit(memfilter_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The memfilter authors");
MODULE_DESCRIPTION("In-kernel membership filters: blocked Bloom and cuckoo");
