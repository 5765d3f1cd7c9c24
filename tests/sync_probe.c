// SPDX-License-Identifier: GPL-2.0
/*
 * What a file system told its writer, for the crash checks of `make
 * realworld` (tests/qemu/realworld-dm.sh), run in the guest. busybox's
 * `sync -f` calls syncfs() and ignores its result ("syncfs is documented
 * to only fail with EBADF", coreutils/sync.c), and cp never learns of a
 * writeback error: only fsync() and syncfs() report one, so this calls
 * them and prints what they returned.
 *
 *   sync_probe syncfs PATH
 *   sync_probe syncfs-fd FD
 *   sync_probe fsync PATH
 *   sync_probe copy SRC DST LIST LOG
 *
 * syncfs prints "syncfs PATH: 0" or "syncfs PATH: -1 ENAME (N)" and
 * exits 0 or 1 accordingly; syncfs-fd calls it on descriptor FD, which
 * the caller opened (a shell's `exec 7<DIR` before a copy), and prints
 * "syncfs (fd FD): ..."; fsync does the same for fsync() of PATH.
 * copy copies every regular file named in LIST (paths relative to SRC,
 * one a line) to the same path under DST, one at a time: each directory
 * it creates (DST too) is fsync'ed through its parent, and each file is
 * written, fsync'ed and its directory fsync'ed. LOG gets a line per
 * file, "ok PATH" if every one of those calls returned 0 (the file
 * system said the file is durable), else "fail PATH STEP ERRNO"; copy
 * goes on after a failure. At the end it calls syncfs() on DST's parent
 * through a descriptor opened before the first file: syncfs reports a
 * writeback error only to descriptors opened before it happened, or to
 * the first caller after it (errseq_t, fs/sync.c). It prints a summary
 * line and that syncfs line, and exits 0 (2 if LIST, LOG or DST's parent
 * cannot be opened).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static int usage(void)
{
	fprintf(stderr, "usage: sync_probe syncfs PATH\n"
		"       sync_probe syncfs-fd FD\n"
		"       sync_probe fsync PATH\n"
		"       sync_probe copy SRC DST LIST LOG\n");
	return 2;
}

/* Print what syncfs() or fsync() of @fd returned; 0 or 1. */
static int report(const char *call, const char *path, int fd)
{
	int ret, err;

	if (fd < 0) {
		printf("%s %s: open -1 %s (%d)\n", call, path,
		       strerrorname_np(errno), errno);
		return 1;
	}
	ret = *call == 's' ? syncfs(fd) : fsync(fd);
	err = errno;
	close(fd);
	if (ret) {
		printf("%s %s: -1 %s (%d)\n", call, path,
		       strerrorname_np(err), err);
		return 1;
	}
	printf("%s %s: 0\n", call, path);
	return 0;
}

/* fsync the directory @path names. */
static int fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	int ret;

	if (fd < 0)
		return -1;
	ret = fsync(fd);
	if (ret) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return close(fd);
}

/*
 * Create the directories of @path (DST and those under it) that are
 * missing, each made durable by an fsync of its parent. Returns 0, or -1
 * with *step set.
 */
static int make_parents(char *path, const char **step)
{
	char *p = path;

	while ((p = strchr(p + 1, '/'))) {
		*p = '\0';
		if (mkdir(path, 0755) == 0) {
			char *slash = strrchr(path, '/');
			int ret;

			if (slash)
				*slash = '\0';
			ret = fsync_dir(!slash ? "." : slash == path ? "/" : path);
			if (slash)
				*slash = '/';
			if (ret) {
				*p = '/';
				*step = "fsync-parent";
				return -1;
			}
		} else if (errno != EEXIST) {
			*p = '/';
			*step = "mkdir";
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* Copy @src to @dst, fsync it and its directory; *step on failure. */
static int copy_one(const char *src, char *dst, const char **step)
{
	static char buf[1 << 16];
	int in, out, err;
	ssize_t n;
	char *slash;

	*step = "open-src";
	in = open(src, O_RDONLY);
	if (in < 0)
		return -1;
	*step = "create";
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		goto err_in;
	*step = "write";
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (n > 0) {
			ssize_t w = write(out, p, n);

			if (w < 0)
				goto err_out;
			p += w;
			n -= w;
		}
	}
	if (n < 0) {
		*step = "read-src";
		goto err_out;
	}
	*step = "fsync";
	if (fsync(out))
		goto err_out;
	*step = "close";
	if (close(out))
		goto err_in;
	close(in);
	*step = "fsync-dir";
	slash = strrchr(dst, '/');
	*slash = '\0';
	err = fsync_dir(dst);
	*slash = '/';
	return err;
err_out:
	err = errno;
	close(out);
	errno = err;
err_in:
	err = errno;
	close(in);
	errno = err;
	return -1;
}

static int do_copy(const char *src, const char *dst, const char *list,
		   const char *log)
{
	char line[PATH_MAX], from[PATH_MAX * 2], to[PATH_MAX * 2];
	unsigned long files = 0, ok = 0, failed = 0, first_fail = 0;
	const char *first_step = "", *step;
	int first_errno = 0, held;
	char parent[PATH_MAX];
	FILE *l, *o;

	snprintf(parent, sizeof(parent), "%s", dst);
	*(strrchr(parent, '/') ?: parent) = '\0';
	held = open(*parent ? parent : ".", O_RDONLY | O_DIRECTORY);
	l = fopen(list, "r");
	o = fopen(log, "w");
	if (held < 0 || !l || !o) {
		perror("sync_probe: LIST or LOG");
		return 2;
	}
	while (fgets(line, sizeof(line), l)) {
		const char *rel = line;
		line[strcspn(line, "\n")] = '\0';
		while (rel[0] == '.' && rel[1] == '/')
			rel += 2;
		if (!*rel)
			continue;
		files++;
		snprintf(from, sizeof(from), "%s/%s", src, rel);
		snprintf(to, sizeof(to), "%s/%s", dst, rel);
		if (make_parents(to, &step) == 0 &&
		    copy_one(from, to, &step) == 0) {
			ok++;
			fprintf(o, "ok %s\n", rel);
			continue;
		}
		if (!failed++) {
			first_fail = files;
			first_step = step;
			first_errno = errno;
		}
		fprintf(o, "fail %s %s %s\n", rel, step,
			strerrorname_np(errno));
		/* Durable is what the file system said: the log must be. */
		fflush(o);
	}
	fclose(l);
	if (fclose(o)) {
		perror("sync_probe: LOG");
		return 2;
	}
	printf("copy: %lu files, %lu durable (fsync 0), %lu failed", files,
	       ok, failed);
	if (failed)
		printf(", the first at file %lu: %s %s", first_fail,
		       first_step, strerrorname_np(first_errno));
	printf("\n");
	report("syncfs", "(opened before the copy)", held);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "syncfs"))
		return report("syncfs", argv[2],
			      open(argv[2], O_RDONLY | O_NONBLOCK));
	if (argc == 3 && !strcmp(argv[1], "syncfs-fd")) {
		char what[32];

		snprintf(what, sizeof(what), "(fd %d)", atoi(argv[2]));
		return report("syncfs", what, atoi(argv[2]));
	}
	if (argc == 3 && !strcmp(argv[1], "fsync"))
		return report("fsync", argv[2],
			      open(argv[2], O_RDONLY | O_NONBLOCK));
	if (argc == 6 && !strcmp(argv[1], "copy"))
		return do_copy(argv[2], argv[3], argv[4], argv[5]);
	return usage();
}
