// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter: the /dev/memfilter character device and its commands
 * (handshake, create, open by name, list, load, replace and exchange of
 * names), and the module's init and exit. The commands are served through
 * the ioctl dispatch of ioctl.c.
 *
 * A new filter fd is installed only after everything else succeeded.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "consumers/bpf.h"
#include "consumers/dm.h"
#include "filter/filter.h"
#include "abi/ioctl.h"
#include "consumers/netfilter.h"

static int mf_cmd_api(struct memfilter_ucmd *ucmd)
{
	struct memfilter_api *cmd = ucmd->cmd;
	u32 requested = cmd->api_version;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;

	cmd->api_version = MEMFILTER_API_VERSION;
	cmd->features = MEMFILTER_FEAT_HASH_XXH64 | MEMFILTER_FEAT_HASH_SIPHASH |
			MEMFILTER_FEAT_BLOOM | MEMFILTER_FEAT_CUCKOO |
			MEMFILTER_FEAT_NAMES | MEMFILTER_FEAT_IMAGES |
			MEMFILTER_FEAT_NETFILTER | MEMFILTER_FEAT_WINDOW |
			MEMFILTER_FEAT_TEST_AND_ADD | MEMFILTER_FEAT_COUNT |
			MEMFILTER_FEAT_GROW | MEMFILTER_FEAT_PUB_ID |
			MEMFILTER_FEAT_HASH_XXH3 |
			MEMFILTER_FEAT_HASH_DEFAULT_XXH3 | MEMFILTER_FEAT_LAYOUTS |
			MEMFILTER_FEAT_REPLACE | MEMFILTER_FEAT_PREFIXES;
	if (memfilter_bpf_available())
		cmd->features |= MEMFILTER_FEAT_BPF_KFUNCS;
	ret = memfilter_respond(ucmd, sizeof(*cmd));
	if (ret)
		return ret;
	return requested == MEMFILTER_API_VERSION ? 0 : -EOPNOTSUPP;
}

/*
 * Privileges are those of the credentials a file was opened with
 * (file->f_cred), never of whoever uses it, as for a socket: a fd passed
 * to another process carries its opener's rights, no more and no less.
 * Capabilities count in the initial user namespace: names and filters
 * are global.
 */
static bool mf_file_capable(const struct file *file, int cap)
{
	return file_ns_capable(file, &init_user_ns, cap);
}

/*
 * Record the creator of @f, new and not yet shared: the credentials of
 * its first fd @file, which are the caller's (anon_inode_getfile() took
 * current_cred()), and which of the capabilities that guard published
 * filters they hold. Asked without audit: nothing is denied here.
 */
static void mf_set_owner(struct memfilter *f, const struct file *file)
{
	f->owner = file->f_cred->euid;
	f->owner_caps = 0;
	if (ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN))
		f->owner_caps |= MEMFILTER_OWNER_SYS_ADMIN;
	if (ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN))
		f->owner_caps |= MEMFILTER_OWNER_NET_ADMIN;
}

/*
 * Hand a new fd for @f (whose reference passes to the file) to the caller,
 * publishing @f under @name first if one is given: write the fd number into
 * the reply, install it last, and undo everything if any step fails. A new
 * filter (@owned) gets the new fd's opener as its owner.
 */
static int mf_reply_fd(struct memfilter_ucmd *ucmd, struct memfilter *f,
		       bool writable, bool owned, const char *name,
		       s32 *out_fd, size_t kernel_size)
{
	struct file *file;
	int fd, ret;

	fd = memfilter_filter_install_fd(f, writable, &file);
	if (fd < 0) {
		memfilter_put(f);
		return fd;
	}
	if (owned)
		mf_set_owner(f, file);
	if (name) {
		ret = memfilter_publish(f, name);
		if (ret)
			goto out_put_fd;
	}
	*out_fd = fd;
	ret = memfilter_respond(ucmd, kernel_size);
	if (ret)
		goto out_unpublish;
	fd_install(fd, file);
	return 0;

out_unpublish:
	if (name)
		memfilter_unpublish(f);
out_put_fd:
	put_unused_fd(fd);
	fput(file);
	return ret;
}

/*
 * An optional name in a create or load request on @file: none (all zero),
 * or one its opener may publish. *@out is the name to publish, or NULL.
 */
static int mf_optional_name(const struct file *file, const char *name,
			    const char **out)
{
	*out = NULL;
	if (!memchr_inv(name, 0, MEMFILTER_NAME_MAX))
		return 0;
	if (!mf_file_capable(file, CAP_SYS_ADMIN))
		return -EPERM;
	*out = name;
	return memfilter_name_valid(name);
}

static int mf_cmd_create(struct memfilter_ucmd *ucmd)
{
	struct memfilter_create *cmd = ucmd->cmd;
	struct memfilter *f;
	const char *name;
	int ret;

	if (cmd->out_fd)
		return -EINVAL;
	ret = mf_optional_name(ucmd->file, cmd->name, &name);
	if (ret)
		return ret;
	f = memfilter_filter_create(cmd);
	if (IS_ERR(f))
		return PTR_ERR(f);
	return mf_reply_fd(ucmd, f, true, true, name, &cmd->out_fd,
			   sizeof(*cmd));
}

/*
 * May the opener of /dev/memfilter @file open @f for writing? CAP_SYS_ADMIN
 * may. Its owner may too: the same effective uid as its creator, holding
 * every capability of MEMFILTER_OWNER_* the creator held, so that a uid 0
 * without them (a container without a user namespace, a service that
 * dropped them) is not the owner of what full root made. The new fd then
 * carries the right (its FMODE_WRITE), so later commands check the fd.
 */
static bool mf_may_write(const struct file *file, const struct memfilter *f)
{
	if (mf_file_capable(file, CAP_SYS_ADMIN))
		return true;
	if (!uid_eq(file->f_cred->euid, f->owner))
		return false;
	if (f->owner_caps & MEMFILTER_OWNER_SYS_ADMIN)
		return false;
	return !(f->owner_caps & MEMFILTER_OWNER_NET_ADMIN) ||
	       mf_file_capable(file, CAP_NET_ADMIN);
}

static int mf_cmd_open(struct memfilter_ucmd *ucmd)
{
	struct memfilter_open *cmd = ucmd->cmd;
	struct memfilter *f;
	bool write;
	int ret;

	if ((cmd->flags & ~MEMFILTER_OPEN_FLAGS) || cmd->__reserved)
		return -EOPNOTSUPP;
	if (cmd->out_fd)
		return -EINVAL;
	write = cmd->flags & MEMFILTER_OPEN_WRITE;
	if (write && !(ucmd->file->f_mode & FMODE_WRITE))
		return -EBADF;
	ret = memfilter_name_valid(cmd->name);
	if (ret)
		return ret;
	f = memfilter_get_by_name(cmd->name);
	if (!f)
		return -ENOENT;
	if (write && !mf_may_write(ucmd->file, f)) {
		memfilter_put(f);
		return -EPERM;
	}
	return mf_reply_fd(ucmd, f, write, false, NULL, &cmd->out_fd,
			   sizeof(*cmd));
}

static int mf_cmd_load(struct memfilter_ucmd *ucmd)
{
	struct memfilter_load *cmd = ucmd->cmd;
	struct memfilter *f;
	const char *name;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	if (cmd->out_fd)
		return -EINVAL;
	ret = mf_optional_name(ucmd->file, cmd->name, &name);
	if (ret)
		return ret;
	f = memfilter_filter_load(u64_to_user_ptr(cmd->image), cmd->image_len);
	if (IS_ERR(f))
		return PTR_ERR(f);
	return mf_reply_fd(ucmd, f, true, true, name, &cmd->out_fd,
			   sizeof(*cmd));
}

static int mf_cmd_list(struct memfilter_ucmd *ucmd)
{
	struct memfilter_list *cmd = ucmd->cmd;
	char *names = NULL;
	u32 max = cmd->count, count;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	if (max && !cmd->names)
		return -EFAULT;
	max = min_t(u32, max, 4096);
	if (max) {
		names = kvcalloc(max, MEMFILTER_NAME_MAX, GFP_KERNEL_ACCOUNT);
		if (!names)
			return -ENOMEM;
	}
	count = memfilter_list_names(names, max);
	ret = 0;
	if (max && copy_to_user(u64_to_user_ptr(cmd->names), names,
				(size_t)min(max, count) * MEMFILTER_NAME_MAX))
		ret = -EFAULT;
	kvfree(names);
	if (ret)
		return ret;
	cmd->count = count;
	return memfilter_respond(ucmd, sizeof(*cmd));
}

/*
 * Replacing and exchanging change what a published name refers to, for
 * every hook and program that uses it: the privilege of naming
 * (CAP_SYS_ADMIN, as PUBLISH), held by the opener of /dev/memfilter.
 */
static int mf_cmd_replace(struct memfilter_ucmd *ucmd)
{
	struct memfilter_replace *cmd = ucmd->cmd;
	struct memfilter *f;
	int ret;

	if ((cmd->flags & ~MEMFILTER_REPLACE_FLAGS) || cmd->__reserved)
		return -EOPNOTSUPP;
	if (!mf_file_capable(ucmd->file, CAP_SYS_ADMIN))
		return -EPERM;
	ret = memfilter_name_valid(cmd->name);
	if (ret)
		return ret;
	f = memfilter_filter_fget(cmd->fd, true);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = memfilter_replace(cmd->name, f,
				cmd->flags & MEMFILTER_REPLACE_PUBLISH);
	memfilter_put(f);
	return ret;
}

static int mf_cmd_exchange(struct memfilter_ucmd *ucmd)
{
	struct memfilter_exchange *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	if (!mf_file_capable(ucmd->file, CAP_SYS_ADMIN))
		return -EPERM;
	if (memfilter_name_valid(cmd->name) || memfilter_name_valid(cmd->other) ||
	    !strcmp(cmd->name, cmd->other))
		return -EINVAL;
	return memfilter_exchange(cmd->name, cmd->other);
}

static const struct memfilter_ioctl_op mf_dev_ops[] = {
	MEMFILTER_IOCTL_OP(MEMFILTER_IOC_API, mf_cmd_api, struct memfilter_api,
			   features),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_CREATE, mf_cmd_create,
				 struct memfilter_create, name),
	MEMFILTER_IOCTL_OP(MEMFILTER_IOC_OPEN, mf_cmd_open, struct memfilter_open,
			   __reserved),
	MEMFILTER_IOCTL_OP(MEMFILTER_IOC_LIST, mf_cmd_list, struct memfilter_list,
			   names),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_LOAD, mf_cmd_load,
				 struct memfilter_load, name),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_NF_ATTACH, memfilter_nf_cmd_attach,
				 struct memfilter_nf_attach, __reserved),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_NF_DETACH, memfilter_nf_cmd_detach,
				 struct memfilter_nf_detach, __reserved),
	MEMFILTER_IOCTL_OP(MEMFILTER_IOC_NF_LIST, memfilter_nf_cmd_list,
			   struct memfilter_nf_list, entries),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_REPLACE, mf_cmd_replace,
				 struct memfilter_replace, __reserved),
	MEMFILTER_IOCTL_OP_WRITE(MEMFILTER_IOC_EXCHANGE, mf_cmd_exchange,
				 struct memfilter_exchange, other),
};

static long mf_dev_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	return memfilter_dispatch(mf_dev_ops, ARRAY_SIZE(mf_dev_ops), file, NULL,
				  cmd, arg);
}

static const struct file_operations mf_dev_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = mf_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/*
 * A fixed minor from the range devices.txt reserves for local use: with it,
 * depmod's modules.devname lets kmod create /dev/memfilter at boot and
 * opening it loads the module (MODULE_ALIAS_MISCDEV below).
 */
#define MEMFILTER_MINOR 248

static struct miscdevice mf_miscdev = {
	.minor = MEMFILTER_MINOR,
	.name = "memfilter",
	.fops = &mf_dev_fops,
	.mode = 0600,
};

#ifdef CONFIG_X86_64
/* The machine runs the AVX2 paths (core/compat.h); set at init, never after. */
struct static_key_false memfilter_simd_key = STATIC_KEY_FALSE_INIT;
EXPORT_SYMBOL_IF_KUNIT(memfilter_simd_key);

/**
 * memfilter_simd_init() - may the AVX2 paths run on this machine?
 *
 * Enables memfilter_simd_key (core/compat.h) when the CPU has AVX2 and AVX
 * and the kernel saves the YMM state, once, before any filter exists.
 *
 * Context: module init.
 */
void __init memfilter_simd_init(void)
{
	if (boot_cpu_has(X86_FEATURE_AVX2) && boot_cpu_has(X86_FEATURE_AVX) &&
	    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL))
		static_branch_enable(&memfilter_simd_key);
}
#endif

static int __init memfilter_init(void)
{
	int ret;

	memfilter_simd_init();
	ret = memfilter_filter_init();
	if (ret)
		return ret;
	ret = memfilter_bpf_init();
	if (ret)
		goto out_filter;
	memfilter_debugfs_init();
	ret = memfilter_nf_init();
	if (ret)
		goto out_debugfs;
	ret = memfilter_dm_init();
	if (ret)
		goto out_nf;
	ret = misc_register(&mf_miscdev);
	if (ret)
		goto out_dm;
	pr_info("ready, ABI version %u\n", MEMFILTER_API_VERSION);
	return 0;

out_dm:
	memfilter_dm_exit();
out_nf:
	memfilter_nf_exit();
out_debugfs:
	memfilter_debugfs_exit();
out_filter:
	memfilter_filter_exit();
	return ret;
}

static void __exit memfilter_exit(void)
{
	/*
	 * No fd can be open (each pins the module) and no new one can appear
	 * after misc_deregister(); published names hold the last references.
	 */
	misc_deregister(&mf_miscdev);
	memfilter_dm_exit();
	/* Attachments hold filter references: gone before the names. */
	memfilter_nf_exit();
	memfilter_unpublish_all();
	memfilter_debugfs_exit();
	memfilter_filter_exit();
}

module_init(memfilter_init);
module_exit(memfilter_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The memfilter authors");
MODULE_DESCRIPTION("In-kernel membership filters: Bloom, cuckoo, time-window and growing");
MODULE_VERSION(MEMFILTER_VERSION);
MODULE_ALIAS_MISCDEV(MEMFILTER_MINOR);
MODULE_ALIAS("devname:memfilter");
