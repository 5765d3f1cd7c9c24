// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libmemfilter: writing an image to a path (mf_offline_save()) with the
 * rules of memfilterctl's -o, so that a program never destroys a file it
 * was not asked to write. What happens depends on what the path names,
 * looked at once, without following a link at its last component:
 *
 *  - nothing, or a regular file: the image is written to a new file in the
 *    same directory and put in the path's place only once complete and on
 *    disk (fsync), so no reader ever sees it half written and a failure
 *    leaves the old file as it was. A new file is the caller's, of mode
 *    0666 less the umask; one that replaces a file takes that file's mode
 *    and, as far as the caller may give them, its owner and group (as
 *    '>' keeps them); an image that holds a filter's secret is never
 *    more than 0600.
 *  - a character or block device or a FIFO: written in place, as a shell's
 *    '>' writes it, but never created, replaced or truncated.
 *  - a symbolic link (-ELOOP), a directory (-EISDIR) or a socket (-ENXIO):
 *    refused, nothing written.
 *
 * Conventions in this file: every step after the first works relative to
 * one open directory, so a directory of the path swapped meanwhile
 * changes nothing; the new file is swapped in with RENAME_EXCHANGE and
 * what it displaced is checked (and swapped back unless it was a regular
 * file), so an entry that became a link or a device since it was looked
 * at is never replaced; no global state (the umask is applied by the
 * kernel, never read), so it is safe from any number of threads.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Letters of a temporary file's random suffix. */
#define MF_TMP_SUFFIX 6

/* The path split into an open directory and its last component. */
struct mf_out {
	int dirfd;
	const char *base;
	char tmp[NAME_MAX + 1];
};

static int mf_out_dir(struct mf_out *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	o->base = slash ? slash + 1 : path;
	if (!*o->base || !strcmp(o->base, ".") || !strcmp(o->base, "..")) {
		struct stat st;

		/* As the shell's '>': "file/" is not a directory. */
		return stat(path, &st) && errno == ENOTDIR ? -ENOTDIR : -EISDIR;
	}
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, slash - path);
	if (!dir)
		return -ENOMEM;
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	return o->dirfd < 0 ? -errno : 0;
}

static int mf_write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ENOSPC;
		p += n;
		len -= n;
	}
	return 0;
}

static bool mf_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT);
}

/* A device or FIFO, written in place: opened as the entry looked at. */
static int mf_out_in_place(struct mf_out *o, const struct stat *st,
			   const void *buf, size_t len)
{
	struct stat now;
	int fd, ret;

	fd = openat(o->dirfd, o->base,
		    O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now))
		ret = -errno;
	else if (!mf_same_file(&now, st))
		ret = -EAGAIN;	/* replaced since: left alone */
	else
		ret = mf_write_all(fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* A new file next to the output, of mode @mode (less the umask). */
static int mf_out_temp(struct mf_out *o, mode_t mode)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[MF_TMP_SUFFIX];
	int fd, i, n;
	size_t j;

	for (i = 0; i < 100; i++) {
		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			for (j = 0; j < sizeof(r); j++)
				r[j] = (unsigned char)(i * 31 + j * 7 + getpid());
		n = snprintf(o->tmp, sizeof(o->tmp), "%.*s.tmp.",
			     NAME_MAX - 5 - MF_TMP_SUFFIX, o->base);
		for (j = 0; j < sizeof(r); j++)
			o->tmp[n + j] = chars[r[j] % (sizeof(chars) - 1)];
		o->tmp[n + j] = '\0';
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		o->tmp[0] = '\0';
	return fd < 0 ? -errno : fd;
}

/*
 * The complete temporary file into the output's place, over nothing or
 * over a regular file only. Return: 0 (the temporary name is gone), or
 * -errno (the caller unlinks the temporary name if it is still set).
 */
static int mf_out_rename(struct mf_out *o)
{
	struct stat st;

	if (!renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_NOREPLACE)) {
		o->tmp[0] = '\0';
		return 0;
	}
	if (errno == EEXIST &&
	    !renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_EXCHANGE)) {
		/* The old entry is at the temporary name now: which was it? */
		if (!fstatat(o->dirfd, o->tmp, &st, AT_SYMLINK_NOFOLLOW) &&
		    !S_ISREG(st.st_mode)) {
			if (renameat2(o->dirfd, o->tmp, o->dirfd, o->base,
				      RENAME_EXCHANGE))
				o->tmp[0] = '\0';	/* keep it whatever it is */
			return -EAGAIN;
		}
		return 0;	/* the caller unlinks the old file */
	}
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A file system that cannot swap: check, then a plain rename. */
	if (!fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode))
		return -EAGAIN;
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->base))
		return -errno;
	o->tmp[0] = '\0';
	return 0;
}

/*
 * The file @old replaced: its owner where the caller may give it, else its
 * group where the caller is in it, and its mode (a secret's at most 0600).
 */
static int mf_out_keep(int fd, const struct stat *old, bool secret)
{
	mode_t mode = old->st_mode & 0777;

	if (fchown(fd, old->st_uid, old->st_gid) &&
	    fchown(fd, (uid_t)-1, old->st_gid) && errno != EPERM)
		return -errno;
	return fchmod(fd, secret ? mode & 0600 : mode) ? -errno : 0;
}

/*
 * Nothing (@old NULL) or the regular file @old at the output: a new file
 * in its place.
 */
static int mf_out_replace(struct mf_out *o, const struct stat *old,
			  const void *buf, size_t len, bool secret)
{
	/* The kernel applies the umask: nothing process-wide is touched. */
	int fd = mf_out_temp(o, secret ? 0600 : 0666), ret;

	if (fd < 0)
		return fd;
	ret = old ? mf_out_keep(fd, old, secret) : 0;
	if (!ret)
		ret = mf_write_all(fd, buf, len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret)
		ret = mf_out_rename(o);
	if (o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	if (!ret && fsync(o->dirfd) && errno != EINVAL)
		ret = -errno;
	return ret;
}

int libmf_write_file(const char *path, const void *buf, size_t len,
		     bool secret)
{
	struct mf_out o = { .dirfd = -1 };
	struct stat st;
	int ret;

	if (!path || !buf)
		return -EINVAL;
	if (!*path)
		return -ENOENT;	/* as the system calls say */
	ret = mf_out_dir(&o, path);
	if (ret)
		return ret;
	if (fstatat(o.dirfd, o.base, &st, AT_SYMLINK_NOFOLLOW))
		ret = errno == ENOENT ?
		      mf_out_replace(&o, NULL, buf, len, secret) : -errno;
	else if (S_ISREG(st.st_mode))
		ret = mf_out_replace(&o, &st, buf, len, secret);
	else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
		 S_ISFIFO(st.st_mode))
		ret = mf_out_in_place(&o, &st, buf, len);
	else if (S_ISLNK(st.st_mode))
		ret = -ELOOP;
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else
		ret = -ENXIO;
	close(o.dirfd);
	return ret;
}
