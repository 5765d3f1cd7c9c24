// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libmemfilter: netfilter attachments (MEMFILTER_IOC_NF_ATTACH, _DETACH,
 * _LIST), with the conventions of libmemfilter.c: negative errnos, ABI
 * structs zeroed on the stack with their size set here.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/memfilter.h>

#include "internal.h"
#include "libmemfilter.h"

_Static_assert(MF_NF_IPV4 == MEMFILTER_NF_IPV4, "ipv4");
_Static_assert(MF_NF_IPV6 == MEMFILTER_NF_IPV6, "ipv6");
_Static_assert(MF_NF_PREROUTING == MEMFILTER_NF_PRE_ROUTING, "prerouting");
_Static_assert(MF_NF_POSTROUTING == MEMFILTER_NF_POST_ROUTING, "postrouting");
_Static_assert(MF_NF_OUTPUT == MEMFILTER_NF_LOCAL_OUT, "output");
_Static_assert(MF_NF_KEY_L4_PAYLOAD == MEMFILTER_NF_KEY_L4_PAYLOAD, "keys");
_Static_assert(MF_NF_DEDUP == MEMFILTER_NF_DEDUP, "actions");
_Static_assert(MF_NF_PRIORITY_DEFAULT == MEMFILTER_NF_PRIORITY_DEFAULT,
	       "priority");

/*
 * NF_ATTACH of @name with @o; @strict: 1.8's rules (a priority set
 * without has_priority is refused, not ignored).
 */
static int64_t mf_nf_attach_impl(int devfd, const char *name,
				 const struct mf_nf_attach_opts *o, bool strict)
{
	struct memfilter_nf_attach a;
	size_t len = name ? strnlen(name, MEMFILTER_NAME_MAX) : 0;
	int ret;

	if (!o)
		return -EINVAL;
	ret = libmf_opts_check(o, o->sz ? o->sz : sizeof(*o), sizeof(*o));
	if (ret)
		return ret;
	if (strict && !o->has_priority && o->priority)
		return -EINVAL;
	if (!len)
		return -EINVAL;
	if (len >= MEMFILTER_NAME_MAX)
		return -ENAMETOOLONG;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	memcpy(a.name, name, len);
	a.family = o->family;
	a.hook = o->hook;
	a.key = o->key;
	a.action = o->action;
	if (o->has_priority) {
		a.flags |= MEMFILTER_NF_ATTACH_PRIORITY;
		a.priority = o->priority;
	}
	if (ioctl(devfd, MEMFILTER_IOC_NF_ATTACH, &a))
		return -errno;
	return a.out_id;
}

int64_t libmf_nf_attach_1_8(int devfd, const char *name,
			    const struct mf_nf_attach_opts *opts)
{
	return mf_nf_attach_impl(devfd, name, opts, true);
}
MF_SYMVER_DEFAULT(libmf_nf_attach_1_8, mf_nf_attach, MEMFILTER_1.8);

int64_t libmf_nf_attach_1_2(int devfd, const char *name,
			    const struct mf_nf_attach_opts *opts)
{
	return mf_nf_attach_impl(devfd, name, opts, false);
}
MF_SYMVER(libmf_nf_attach_1_2, mf_nf_attach, MEMFILTER_1.2);

int mf_nf_detach(int devfd, uint32_t id)
{
	struct memfilter_nf_detach d;

	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.id = id;
	return ioctl(devfd, MEMFILTER_IOC_NF_DETACH, &d) ? -errno : 0;
}

static void mf_nf_decode(const struct memfilter_nf_entry *r,
			 struct mf_nf_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->id = r->id;
	e->family = r->family;
	e->hook = (int)r->hook;
	e->priority = r->priority;
	e->key = (int)r->key;
	e->action = (int)r->action;
	memcpy(e->name, r->name, sizeof(e->name));
	e->name[sizeof(e->name) - 1] = 0;
	e->packets = r->packets;
	e->hits = r->hits;
	e->drops = r->drops;
	e->added = r->added;
	e->skipped = r->skipped;
}

ssize_t mf_nf_list(int devfd, struct mf_nf_entry *entries, size_t max)
{
	struct memfilter_nf_entry *raw = NULL;
	struct memfilter_nf_list l;
	size_t i, n;

	if (max && !entries)
		return -EINVAL;
	max = max < MEMFILTER_NF_MAX ? max : MEMFILTER_NF_MAX;
	if (max) {
		raw = calloc(max, sizeof(*raw));
		if (!raw)
			return -ENOMEM;
	}
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.count = max;
	l.entry_size = sizeof(*raw);
	l.entries = (__u64)(uintptr_t)raw;
	if (ioctl(devfd, MEMFILTER_IOC_NF_LIST, &l)) {
		int err = -errno;

		free(raw);
		return err;
	}
	n = l.count < max ? l.count : max;
	for (i = 0; i < n; i++)
		mf_nf_decode(&raw[i], &entries[i]);
	free(raw);
	return l.count;
}

int mf_nf_stats(int devfd, uint32_t id, struct mf_nf_entry *entry)
{
	struct mf_nf_entry all[MEMFILTER_NF_MAX];
	ssize_t n, i;

	if (!entry)
		return -EINVAL;
	n = mf_nf_list(devfd, all, MEMFILTER_NF_MAX);
	if (n < 0)
		return (int)n;
	for (i = 0; i < n && i < MEMFILTER_NF_MAX; i++) {
		if (all[i].id == id) {
			*entry = all[i];
			return 0;
		}
	}
	return -ENOENT;
}
