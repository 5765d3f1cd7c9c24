/* SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0 */
/*
 * libmemfilter: the userspace helper library for /dev/memfilter.
 *
 * Callers never see the ABI's size fields or ioctl numbers: the library
 * fills them in. Every function returns 0 (or a count) on success and a
 * negative errno on failure; mf_strerror() turns that into a message.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _LIBMEMFILTER_H
#define _LIBMEMFILTER_H

#include <stdint.h>

#define MF_DEVICE_PATH "/dev/memfilter"

struct mf_api_info {
	uint32_t api_version;
	uint64_t features;
};

/**
 * mf_open_device() - open /dev/memfilter and check the ABI version
 *
 * Return: a file descriptor, or -errno (-ENOENT when the module is not
 * loaded, -EACCES without permission, -EOPNOTSUPP when the kernel speaks
 * another ABI version).
 */
int mf_open_device(void);

/**
 * mf_api() - the kernel's ABI version and features
 * @devfd: from mf_open_device()
 * @info: filled in
 *
 * Return: 0 or -errno.
 */
int mf_api(int devfd, struct mf_api_info *info);

/**
 * mf_strerror() - a message for a negative errno from this library
 * @err: the negative errno
 *
 * Return: a static string.
 */
const char *mf_strerror(int err);

#endif /* _LIBMEMFILTER_H */
