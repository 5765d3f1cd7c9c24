/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by every memfilter guest selftest and the ioctl fuzzer
 * (the way tools/testing/selftests/iommu/iommufd_utils.h serves iommufd's
 * tests; nf_utils.h and bpf_utils.h add their areas' on top): raw ioctls
 * that return -errno, a fixture with the device open, filter creation,
 * key batches, image dumps and loads, key generators, module parameters,
 * files and command lines, fd passing, running a check in a child or as
 * an unprivileged user, and probes of a prefix blocklist with the answers
 * a filter holding it must give. Everything is static inline so that each
 * test takes only what it uses.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_UTILS_H
#define _MEMFILTER_UTILS_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/memfilter.h>

#include "prefix_list.h"

#define MF_DEV "/dev/memfilter"

/* The unprivileged user and group the privilege tests become. */
#define MF_NOBODY 65534

/* The module's parameters (param_get(), param_set()). */
#define MF_PARAMS "/sys/module/memfilter/parameters/"

/* ioctl() that returns 0 or -errno. */
static inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int dev_open(void)
{
	return open(MF_DEV, O_RDWR | O_CLOEXEC);
}

/*
 * A kselftest fixture @name whose tests find /dev/memfilter open in
 * self->dev. Written on a line of its own, as TEST_HARNESS_MAIN is.
 */
#define MF_DEV_FIXTURE(name)						\
	FIXTURE(name) {							\
		int dev;						\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		self->dev = dev_open();					\
		ASSERT_LE(0, self->dev);				\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		close(self->dev);					\
	}

/*
 * Run the shell command line @fmt: with @out, its whole output (stdout
 * and stderr) into @out (@len bytes, always NUL-terminated); without,
 * its output goes where the caller's does. Returns its exit status, or
 * -1 if it did not exit.
 */
static inline __attribute__((format(printf, 3, 4)))
int run_cmd(char *out, size_t len, const char *fmt, ...)
{
	char cmd[4400];
	size_t n = 0;
	va_list ap;
	FILE *p;
	int status, c;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	if (!out) {
		status = system(cmd);
		return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	strcat(cmd, " 2>&1");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while ((c = fgetc(p)) != EOF)
		if (n + 1 < len)
			out[n++] = c;
	if (len)
		out[n] = 0;
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* memfilterctl in a shell command line: the guest's copy first on PATH. */
#define MF_CTL "PATH=/memfilter/bin:$PATH memfilterctl"

/* Whether there is a memfilterctl to run (MF_CTL). */
static inline bool have_ctl(void)
{
	return !system("PATH=/memfilter/bin:$PATH command -v memfilterctl"
		       " >/dev/null 2>&1");
}

/*
 * memfilterctl @args (MF_CTL), its output thrown away: its exit status,
 * or -1 if it did not exit.
 */
static inline int ctl_status(const char *args)
{
	return run_cmd(NULL, 0, MF_CTL " %s >/dev/null 2>&1", args);
}

/* Write the string @s to the file @path (sysfs, procfs, cgroupfs): 0 or -1. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -1;
	close(fd);
	return ret;
}

/* MEMFILTER_IOC_CREATE with every parameter: the new fd or -errno. */
static inline int create(int dev, __u32 type, __u64 cap, __u64 fpr_ppb,
			 __u32 bpk_q4, __u32 fp_bits, __u32 flags,
			 const char *name)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = type, .capacity = cap,
		.fpr_ppb = fpr_ppb, .bits_per_key_q4 = bpk_q4,
		.fingerprint_bits = fp_bits, .flags = flags,
	};
	int ret;

	if (name)
		strncpy(c.name, name, sizeof(c.name) - 1);
	ret = xioctl(dev, MEMFILTER_IOC_CREATE, &c);
	return ret ? ret : c.out_fd;
}

/* A filter of @type with the tests' usual geometry: 10 bits/key, 12-bit. */
static inline int create_default(int dev, __u32 type, __u64 cap, __u32 flags)
{
	if (type == MEMFILTER_TYPE_BLOOM)
		return create(dev, type, cap, 0, 40, 0, flags, NULL);
	return create(dev, type, cap, 0, 0, 12, flags, NULL);
}

/* Run a batch command over fixed-size 8-byte keys. */
static inline int keys_op(int fd, unsigned long cmd, const __u64 *keys,
			  __u32 n, __u64 *results, __u32 *out_count,
			  __u32 *out_done)
{
	struct memfilter_keys k = {
		.size = sizeof(k), .count = n, .key_size = 8,
		.keys = (__u64)(uintptr_t)keys,
		.results = (__u64)(uintptr_t)results,
	};
	int ret = xioctl(fd, cmd, &k);

	if (out_count)
		*out_count = k.out_count;
	if (out_done)
		*out_done = k.out_done;
	return ret;
}

static inline int info(int fd, struct memfilter_info *i)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	return xioctl(fd, MEMFILTER_IOC_INFO, i);
}

/* A module parameter's value (max_total_mb, ...), 0 if unreadable. */
static inline unsigned long param_get(const char *name)
{
	char path[128];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), MF_PARAMS "%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Set a writable module parameter (root): 0 or -1. */
static inline int param_set(const char *name, unsigned long v)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), MF_PARAMS "%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%lu\n", v) > 0 ? 0 : -1;
	return fclose(f) ? -1 : ret;
}

/*
 * Read the whole image of @fd from offset 0 in @chunk-byte reads. Returns
 * a malloc'ed buffer of *@len bytes; *@err is 0 or the first read's -errno.
 */
static inline unsigned char *dump(int fd, size_t chunk, size_t *len, int *err)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	ssize_t r;

	*err = 0;
	*len = 0;
	if (lseek(fd, 0, SEEK_SET) != 0) {
		*err = -errno;
		return buf;
	}
	for (;;) {
		if (n + chunk > cap) {
			while (n + chunk > cap)
				cap *= 2;
			buf = realloc(buf, cap);
		}
		r = read(fd, buf + n, chunk);
		if (r < 0) {
			*err = -errno;
			break;
		}
		if (!r)
			break;
		n += r;
	}
	*len = n;
	return buf;
}

/* MEMFILTER_IOC_LOAD of @len bytes at @img: the new fd or -errno. */
static inline int load(int dev, const void *img, __u64 len)
{
	struct memfilter_load l = {
		.size = sizeof(l), .image = (__u64)(uintptr_t)img,
		.image_len = len,
	};

	return xioctl(dev, MEMFILTER_IOC_LOAD, &l) ?: l.out_fd;
}

/* MEMFILTER_IOC_REPLACE: @name now refers to @fd's filter; 0 or -errno. */
static inline int name_replace(int dev, const char *name, int fd, __u32 flags)
{
	struct memfilter_replace r = {
		.size = sizeof(r), .flags = flags, .fd = fd,
	};

	strncpy(r.name, name, sizeof(r.name) - 1);
	return xioctl(dev, MEMFILTER_IOC_REPLACE, &r);
}

/* MEMFILTER_IOC_EXCHANGE of names @a and @b; 0 or -errno. */
static inline int name_exchange(int dev, const char *a, const char *b)
{
	struct memfilter_exchange x = { .size = sizeof(x) };

	strncpy(x.name, a, sizeof(x.name) - 1);
	strncpy(x.other, b, sizeof(x.other) - 1);
	return xioctl(dev, MEMFILTER_IOC_EXCHANGE, &x);
}

/* @n distinct 8-byte keys @first, @first + 1, ... (malloc'ed). */
static inline __u64 *seq_keys(size_t n, __u64 first)
{
	__u64 *k = malloc(n * sizeof(*k));

	for (size_t i = 0; k && i < n; i++)
		k[i] = first + i;
	return k;
}

/* @n distinct keys spread over the whole 64-bit space (malloc'ed). */
static inline __u64 *spread_keys(size_t n, __u64 first)
{
	__u64 *k = malloc(n * sizeof(*k));

	for (size_t i = 0; k && i < n; i++)
		k[i] = first + i * 0x9e3779b97f4a7c15ULL;
	return k;
}

/*
 * Bits set among the first @n bits of a result bitmap of 64-bit words
 * (__u64 or uint64_t: the words are copied, not aliased).
 */
static inline size_t popcount_bits(const void *bits, size_t n)
{
	size_t i, c = 0;
	__u64 w = 0;

	for (i = 0; i < n; i++) {
		if (i % 64 == 0)
			memcpy(&w, (const char *)bits + i / 64 * 8, sizeof(w));
		c += w >> (i % 64) & 1;
	}
	return c;
}

/* Send @fd over the AF_UNIX socket @sock (SCM_RIGHTS): 0 or -1. */
static inline int send_fd(int sock, int fd)
{
	char c = 0, cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

/* The fd send_fd() sent over @sock, or -1. */
static inline int recv_fd(int sock)
{
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * Run @fn(@arg) in a child process: its result as the child's exit
 * status (0 means the check passed, else the step that failed), or -1
 * when the child could not run or did not exit normally.
 */
static inline int run_child(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

struct as_nobody_call {
	int (*fn)(void *arg);
	void *arg;
};

static inline int as_nobody_child(void *arg)
{
	const struct as_nobody_call *call = arg;

	if (setgid(MF_NOBODY) || setuid(MF_NOBODY))
		return 100;
	return call->fn(call->arg);
}

/*
 * Run @fn(@arg) in a child process that has become user and group
 * MF_NOBODY; file descriptors the caller opened before are inherited (an
 * open fd is a grant). Returns what run_child() returns; 100 when
 * privileges could not be dropped.
 */
static inline int as_nobody(int (*fn)(void *arg), void *arg)
{
	struct as_nobody_call call = { .fn = fn, .arg = arg };

	return run_child(as_nobody_child, &call);
}

/* A capability's bit, for set_effective(). */
#define CAP_BIT(c)	(1ull << (c))

/*
 * Set the calling thread's effective capabilities to @eff (a subset of
 * its permitted): a device fd opened now has the opener's credentials
 * without the others. 0 or -1.
 */
static inline int set_effective(uint64_t eff)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective = eff & d[0].permitted;
	d[1].effective = (eff >> 32) & d[1].permitted;
	return syscall(SYS_capset, &h, d);
}

/* In a kselftest TEST body: skip unless we can drop privileges. */
#define SKIP_UNLESS_ROOT()						\
	do {								\
		if (geteuid() != 0)					\
			SKIP(return, "needs root to drop privileges");	\
	} while (0)

/* Probe addresses of a prefix blocklist (struct plist_probes). */
#define PLIST_PROBES 600

/*
 * A list shaped like a published blocklist (tests/prefix_list.h's, from
 * seed 44), PLIST_PROBES probe addresses (every third inside a listed
 * range, the others outside every one) and which of them a filter holding
 * the list covers, by the offline lookup of its dump: the probes inside
 * and its false positives outside.
 */
struct plist_probes {
	struct mf_prefix *list;
	size_t n;				/* entries of @list */
	struct mf_prefix a[PLIST_PROBES];	/* the probes */
	uint64_t want[(PLIST_PROBES + 63) / 64];	/* bit i: a[i] covered */
	size_t inside;				/* probes inside a listed range */
	size_t hits;				/* probes covered */
};

/* The list of a new struct plist_probes, or NULL; plist_probes_free() it. */
static inline struct plist_probes *plist_probes_new(void)
{
	struct plist_probes *pp = calloc(1, sizeof(*pp));

	if (!pp)
		return NULL;
	pp->list = calloc(mf_plist_size(), sizeof(*pp->list));
	if (!pp->list) {
		free(pp);
		return NULL;
	}
	pp->n = mf_plist_make(44, pp->list);
	return pp;
}

static inline void plist_probes_free(struct plist_probes *pp)
{
	if (pp)
		free(pp->list);
	free(pp);
}

/*
 * @pp's probes from @seed and which of them @off (a dump of a filter
 * holding @pp->list, offline) covers. Return: 0, or -1 if the lookup
 * failed or covers fewer probes than lie inside the list.
 */
static inline int plist_probe(struct plist_probes *pp, uint64_t seed,
			      const struct mf_offline *off)
{
	ssize_t hits;

	mf_plist_probes(seed, pp->list, pp->n, pp->a, PLIST_PROBES,
			&pp->inside);
	hits = mf_offline_query_addrs(off, pp->a, PLIST_PROBES, pp->want, NULL);
	pp->hits = hits < 0 ? 0 : hits;
	return hits < 0 || pp->hits < pp->inside ? -1 : 0;
}

/* Whether a filter holding @pp->list covers probe @i. */
static inline bool plist_hit(const struct plist_probes *pp, size_t i)
{
	return pp->want[i / 64] >> (i % 64) & 1;
}

#endif /* _MEMFILTER_UTILS_H */
