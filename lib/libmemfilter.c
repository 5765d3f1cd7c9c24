// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libmemfilter: thin, safe wrappers over the /dev/memfilter ioctls.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "memfilter.h"

int mf_api(int devfd, struct mf_api_info *info)
{
	struct memfilter_api a = {
		.size = sizeof(a),
		.api_version = MEMFILTER_API_VERSION,
	};
	int ret = ioctl(devfd, MEMFILTER_IOC_API, &a) ? -errno : 0;

	if (info) {
		info->api_version = a.api_version;
		info->features = a.features;
	}
	return ret;
}

int mf_open_device(void)
{
	int fd = open(MF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = mf_api(fd, NULL);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

const char *mf_strerror(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such filter or device (is memfilter.ko loaded?)";
	case EOPNOTSUPP:
		return "not supported by this kernel's memfilter";
	default:
		return strerror(-err);
	}
}
