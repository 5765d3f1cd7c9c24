/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memfilter: in-kernel membership filters (blocked Bloom and cuckoo).
 *
 * This is the userspace ABI of /dev/memfilter. It is the single definition
 * shared by the kernel module, libmemfilter and every tool; nothing else
 * describes the ABI.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _UAPI_LINUX_MEMFILTER_H
#define _UAPI_LINUX_MEMFILTER_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * DOC: General ioctl format
 *
 * Every ioctl takes a pointer to a structure whose first member is
 * ``__u32 size``, set by the caller to the size of the structure it was
 * compiled with. The kernel copies the structure with
 * copy_struct_from_user(): a caller built against an older, smaller
 * structure gets the newer fields zeroed; a caller built against a newer,
 * larger structure is accepted as long as every byte the kernel does not know
 * is zero. Output is written back only up to the smaller of the two sizes.
 * Structures grow only at the end, in 64-bit aligned steps. Fields named
 * ``__reserved`` and all unknown ``flags`` bits must be zero.
 *
 * The commands are encoded with _IOWR() for the benefit of tracing tools;
 * the kernel dispatches on the type and number only and takes the size from
 * the ``size`` member, so a structure that grows keeps its command number.
 *
 * The errnos have one meaning across all commands:
 *
 *  - ENOTTY: the command number is not known to this kernel.
 *  - EFAULT: the argument pointer (or a pointer inside it) is not valid.
 *  - EINVAL: ``size`` is smaller than the first version of the structure,
 *    or a known field holds an invalid value.
 *  - E2BIG: ``size`` is larger than the kernel's structure and the extra
 *    bytes are not all zero (a newer feature this kernel lacks).
 *  - EOPNOTSUPP: the structure is understood but asks for something this
 *    kernel does not support (an unknown ``flags`` bit, an unknown
 *    ABI version).
 *  - EACCES: /dev/memfilter was opened without the needed permission
 *    (the device is mode 0600 unless udev says otherwise).
 *  - ENOMEM: out of memory.
 */

#define MEMFILTER_IOCTL_TYPE	0xB9
#define MEMFILTER_CMD_BASE	0x80

/* The ABI version this header describes. */
#define MEMFILTER_API_VERSION	1

#define MEMFILTER_CMD_API	(MEMFILTER_CMD_BASE + 0)

/* Bits of memfilter_api.features: what this kernel module can do. */
#define MEMFILTER_FEAT_HASH_XXH64	_BITULL(0)
#define MEMFILTER_FEAT_HASH_SIPHASH	_BITULL(1)

/**
 * struct memfilter_api - ioctl(MEMFILTER_IOC_API): version handshake
 * @size: sizeof(struct memfilter_api)
 * @flags: must be 0
 * @api_version: in: the version the caller speaks (MEMFILTER_API_VERSION);
 *	out: the version the kernel speaks
 * @__reserved: must be 0
 * @features: out: MEMFILTER_FEAT_* bits this kernel supports
 *
 * Like UFFDIO_API: the caller states the ABI version it was built for and
 * learns what the kernel supports. An @api_version the kernel does not
 * speak fails with EOPNOTSUPP and reports the kernel's version in
 * @api_version.
 */
struct memfilter_api {
	__u32 size;
	__u32 flags;
	__u32 api_version;
	__u32 __reserved;
	__aligned_u64 features;
};

#define MEMFILTER_IOC_API \
	_IOWR(MEMFILTER_IOCTL_TYPE, MEMFILTER_CMD_API, struct memfilter_api)

#endif /* _UAPI_LINUX_MEMFILTER_H */
