// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter commands of /dev/memfilter (NF_ATTACH, NF_DETACH, NF_LIST):
 * their arguments and privileges, checked here; the attachments themselves
 * are the netfilter hook's (netfilter.c).
 *
 * Privilege is checked where it is used, against the credentials the
 * /dev/memfilter fd was opened with (file->f_cred), like a socket: an fd
 * opened by a privileged process and handed to another keeps its rights,
 * and a privileged process holding an fd opened without them gains none.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/capability.h>
#include <linux/cleanup.h>
#include <linux/fs.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "filter/filter.h"
#include "ioctl.h"
#include "consumers/netfilter.h"

static struct net *mf_nf_caller_net(void)
{
	return current->nsproxy->net_ns;
}

static int mf_nf_check_attach(const struct memfilter_nf_attach *cmd)
{
	const u32 families = MEMFILTER_NF_IPV4 | MEMFILTER_NF_IPV6;

	if ((cmd->flags & ~MEMFILTER_NF_ATTACH_FLAGS) || cmd->__reserved)
		return -EOPNOTSUPP;
	if (cmd->out_id || !cmd->family || (cmd->family & ~families) ||
	    cmd->hook > MEMFILTER_NF_POST_ROUTING ||
	    cmd->key < MEMFILTER_NF_KEY_SADDR ||
	    cmd->key > MEMFILTER_NF_KEY_L4_PAYLOAD ||
	    cmd->action < MEMFILTER_NF_DROP_HIT ||
	    cmd->action > MEMFILTER_NF_DEDUP)
		return -EINVAL;
	if (cmd->flags & MEMFILTER_NF_ATTACH_PRIORITY) {
		if (cmd->priority == INT_MIN || cmd->priority == INT_MAX)
			return -EINVAL;
	} else if (cmd->priority) {
		return -EINVAL;
	}
	if (memfilter_name_valid(cmd->name))
		return -EINVAL;
	if ((cmd->family & MEMFILTER_NF_IPV6) && !IS_ENABLED(CONFIG_IPV6))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * The opener of @file (its f_cred) needs CAP_NET_ADMIN over @net's user
 * namespace, as for any netfilter change there; dedup also writes to a
 * filter every namespace may share, which needs CAP_SYS_ADMIN, as
 * publishing it did.
 */
static int mf_nf_may_attach(const struct file *file, struct net *net,
			    u32 action)
{
	if (!file_ns_capable(file, net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (action == MEMFILTER_NF_DEDUP &&
	    !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

/* The new attachment's id, to the caller; failing, the attach is undone. */
static int mf_nf_reply_id(void *arg, u32 id)
{
	struct memfilter_ucmd *ucmd = arg;
	struct memfilter_nf_attach *cmd = ucmd->cmd;

	cmd->out_id = id;
	return memfilter_respond(ucmd, sizeof(*cmd));
}

/**
 * memfilter_nf_cmd_attach() - MEMFILTER_IOC_NF_ATTACH
 * @ucmd: the call
 *
 * Context: process context, may sleep.
 * Return: 0 or the uapi's errnos for NF_ATTACH.
 */
int memfilter_nf_cmd_attach(struct memfilter_ucmd *ucmd)
{
	struct memfilter_nf_attach *cmd = ucmd->cmd;
	struct net *net = mf_nf_caller_net();
	int ret;

	ret = mf_nf_check_attach(cmd);
	if (ret)
		return ret;
	ret = mf_nf_may_attach(ucmd->file, net, cmd->action);
	if (ret)
		return ret;
	return memfilter_nf_attach(net, cmd, mf_nf_reply_id, ucmd);
}

/**
 * memfilter_nf_cmd_detach() - MEMFILTER_IOC_NF_DETACH
 * @ucmd: the call
 *
 * Context: process context, may sleep.
 * Return: 0, -EPERM, -ENOENT (no such id in the caller's namespace).
 */
int memfilter_nf_cmd_detach(struct memfilter_ucmd *ucmd)
{
	struct memfilter_nf_detach *cmd = ucmd->cmd;
	struct net *net = mf_nf_caller_net();

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	if (!file_ns_capable(ucmd->file, net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	return memfilter_nf_detach(net, cmd->id);
}

/**
 * memfilter_nf_cmd_list() - MEMFILTER_IOC_NF_LIST
 * @ucmd: the call
 *
 * Entries are @entry_size bytes apart, each truncated to it (a caller
 * built before a counter was added gets the entry it knows), the tail
 * past the kernel's entry zeroed.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an entry_size below MEMFILTER_NF_ENTRY_SIZE_VER0,
 * -E2BIG for one above PAGE_SIZE (as for the argument's own size: a huge
 * stride times MEMFILTER_NF_MAX entries would make it clear gigabytes of
 * the caller's memory), -EFAULT, -ENOMEM.
 */
int memfilter_nf_cmd_list(struct memfilter_ucmd *ucmd)
{
	struct memfilter_nf_list *cmd = ucmd->cmd;
	struct net *net = mf_nf_caller_net();
	struct memfilter_nf_entry *e __free(kfree) = NULL;
	u8 __user *out = u64_to_user_ptr(cmd->entries);
	u32 max = min_t(u32, cmd->count, MEMFILTER_NF_MAX), count, i;
	size_t stride = cmd->entry_size, esz = min(stride, sizeof(*e));

	static_assert(MEMFILTER_NF_ENTRY_SIZE_VER0 ==
		      offsetofend(struct memfilter_nf_entry, skipped));
	if (cmd->flags)
		return -EOPNOTSUPP;
	if (stride < MEMFILTER_NF_ENTRY_SIZE_VER0)
		return -EINVAL;
	if (stride > PAGE_SIZE)
		return -E2BIG;
	if (max && !cmd->entries)
		return -EFAULT;
	e = kcalloc(MEMFILTER_NF_MAX, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	count = memfilter_nf_list(net, e);
	for (i = 0; i < min(max, count); i++) {
		if (copy_to_user(out + i * stride, &e[i], esz) ||
		    clear_user(out + i * stride + esz, stride - esz))
			return -EFAULT;
	}
	cmd->count = count;
	return memfilter_respond(ucmd, sizeof(*cmd));
}
