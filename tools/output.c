// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: where an image goes (-o FILE, or stdout). What -o does
 * depends on what FILE is, decided once, before any work, from the entry
 * itself (never through a symbolic link):
 *
 *  - missing, or a regular file: the image is written to a new file in
 *    FILE's directory and put in FILE's place only once complete and on
 *    disk (fsync), so FILE is never seen half written; a failed command
 *    leaves FILE as it was. A file replaced hands its mode and, where
 *    this user may give them, its owner and group to the new one, as
 *    '>' would keep them. A file that appears at FILE meanwhile is never
 *    replaced unless it is a regular file either.
 *  - a character or block device or a FIFO: written in place, as the
 *    shell's '>' writes it, but never created and never truncated.
 *  - a symbolic link to the file on stdout (/dev/stdout, /proc/self/fd/1):
 *    stdout, as without -o.
 *  - any other symbolic link, a directory or a socket: refused with the
 *    reason; nothing is written.
 *
 * Every step after the first works relative to one open directory, so a
 * directory of the path swapped for a link midway changes nothing; a
 * device or FIFO is opened without following links and then checked to
 * be the entry first looked at.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memfilterctl.h"

static bool is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

static const char *kind_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a file, device or FIFO";
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Split @o->path into its directory (opened) and last component. */
static int output_dir(struct output *o)
{
	const char *slash = strrchr(o->path, '/');
	char *dir;

	o->base = slash ? slash + 1 : o->path;
	if (!*o->base || !strcmp(o->base, ".") || !strcmp(o->base, "..")) {
		/* As the shell's '>': "file/" is not a directory. */
		struct stat st;

		cli_error("%s: %s", o->path,
			  strerror(stat(o->path, &st) && errno == ENOTDIR ?
				   ENOTDIR : EISDIR));
		return -1;
	}
	if (!slash)
		dir = strdup(".");
	else if (slash == o->path)
		dir = strdup("/");
	else
		dir = strndup(o->path, slash - o->path);
	if (!dir) {
		cli_error("%s", strerror(ENOMEM));
		return -1;
	}
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0)
		cli_error("%s: directory %s: %s", o->path, dir, strerror(errno));
	o->dir = dir;
	return o->dirfd < 0 ? -1 : 0;
}

/* Before any work: an image is never written to a terminal. */
static int output_tty(struct output *o)
{
	if (!isatty(o->fd))
		return 0;
	if (o->kind == OUTPUT_STDOUT)
		usage_error("the image goes to stdout: redirect it to a file or use -o FILE");
	else
		cli_error("%s: is a terminal: an image is never written to one",
			  o->path);
	return -1;
}

/* A link: to stdout's file it is stdout; anything else is refused. */
static int output_link(struct output *o)
{
	struct stat st, out;
	char target[PATH_MAX];
	ssize_t n;

	if (!fstatat(o->dirfd, o->base, &st, 0) &&
	    !fstat(STDOUT_FILENO, &out) &&
	    same_file(&st, &out)) {
		o->kind = OUTPUT_STDOUT;
		o->fd = STDOUT_FILENO;
		return output_tty(o);
	}
	n = readlinkat(o->dirfd, o->base, target, sizeof(target) - 1);
	target[n < 0 ? 0 : n] = '\0';
	cli_error("%s: is a symbolic link (to '%s'): -o does not write through links; give the file it should write",
		  o->path, target);
	return -1;
}

/* A device or FIFO, written in place: open it as the entry found. */
static int output_in_place(struct output *o, const struct stat *st)
{
	struct stat now;

	o->kind = OUTPUT_IN_PLACE;
	o->fd = openat(o->dirfd, o->base,
		       O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (o->fd < 0) {
		cli_error("%s: %s", o->path, strerror(errno));
		return -1;
	}
	if (fstat(o->fd, &now) || !same_file(&now, st) ||
	    (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT)) {
		cli_error("%s: changed while being opened: left alone", o->path);
		return -1;
	}
	return output_tty(o);
}

/* A random name for a temporary file next to the output. */
static void temp_name(struct output *o)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	size_t i, n;

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		for (i = 0; i < sizeof(r); i++)
			r[i] = rand();
	n = snprintf(o->tmp, sizeof(o->tmp), "%.*s.tmp.", NAME_MAX - 12,
		     o->base);
	for (i = 0; i < sizeof(r); i++)
		o->tmp[n + i] = chars[r[i] % (sizeof(chars) - 1)];
	o->tmp[n + i] = '\0';
}

/*
 * The file the image is written to before it takes the output's place:
 * an unnamed one (O_TMPFILE) where the file system has them, so nothing
 * is left behind if the command dies; else a named one. Mode 0600 until
 * output_commit() (a keyed image holds the filter's secret).
 */
static int output_temp(struct output *o)
{
	int i;

	o->fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (o->fd >= 0)
		return 0;
	for (i = 0; i < 100 && (errno == EOPNOTSUPP || errno == EISDIR ||
				errno == EINVAL || errno == EEXIST); i++) {
		temp_name(o);
		o->fd = openat(o->dirfd, o->tmp, O_RDWR | O_CREAT | O_EXCL |
			       O_NOFOLLOW | O_CLOEXEC, 0600);
		if (o->fd >= 0)
			return 0;
	}
	o->tmp[0] = '\0';
	cli_error("%s: cannot create a file in directory %s: %s", o->path,
		  o->dir, strerror(errno));
	return -1;
}

int output_open(struct output *o, const char *path)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = -1;
	o->dirfd = -1;
	if (is_stdout(path)) {
		o->path = "<stdout>";
		o->kind = OUTPUT_STDOUT;
		o->fd = STDOUT_FILENO;
		return output_tty(o);
	}
	/*
	 * As mf_offline_save(): an empty path names no file (output_dir()
	 * would take its empty last component for a directory's).
	 */
	if (!*path) {
		usage_error("option '--output': the path is empty");
		return -1;
	}
	if (output_dir(o))
		goto out_close;
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT) {
			cli_error("%s: %s", o->path, strerror(errno));
			goto out_close;
		}
		o->kind = OUTPUT_NEW;
	} else if (S_ISREG(st.st_mode)) {
		o->kind = OUTPUT_REPLACE;
		o->old = st;
	} else if (S_ISLNK(st.st_mode)) {
		if (output_link(o))
			goto out_close;
		return 0;
	} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
		   S_ISFIFO(st.st_mode)) {
		if (output_in_place(o, &st))
			goto out_close;
		return 0;
	} else {
		cli_error("%s: is %s: -o writes a file, a device or a FIFO",
			  o->path, kind_name(st.st_mode));
		goto out_close;
	}
	if (output_temp(o))
		goto out_close;
	return 0;
out_close:
	output_abort(o);
	return -1;
}

/* Progress lines: for this much output or more, every half second. */
#define PROGRESS_BYTES (64ULL << 20)
#define PROGRESS_NS 500000000LL
/* Bytes per write(): progress between them, and no giant single write. */
#define WRITE_CHUNK ((size_t)16 << 20)

static long long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/*
 * About to write @total bytes: show progress on stderr, if it is a
 * terminal and the output large, as dd status=progress does.
 */
void output_progress(struct output *o, uint64_t total)
{
	o->written = 0;
	o->total = total >= PROGRESS_BYTES && isatty(STDERR_FILENO) ? total : 0;
	clock_gettime(CLOCK_MONOTONIC, &o->start);
	o->last = o->start;
}

static void progress_line(struct output *o, bool force)
{
	struct timespec now;
	double s;

	if (!o->total)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!force && o->written &&
	    ns_between(&o->last, &now) < PROGRESS_NS)
		return;
	o->last = now;
	s = ns_between(&o->start, &now) / 1e9;
	fprintf(stderr, "\r%s: %" PRIu64 " of %" PRIu64 " bytes written (%d%%), %.0f s, %.0f MB/s\033[K",
		o->path, o->written, o->total,
		(int)(o->written * 100 / o->total), s,
		s > 0 ? o->written / s / 1e6 : 0);
	o->shown = true;
}

static void progress_clear(struct output *o)
{
	if (o->shown)
		fputs("\r\033[K", stderr);
	o->shown = false;
	o->total = 0;
}

/* Short writes go on; a write that makes no progress is ENOSPC. */
int output_write(struct output *o, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		progress_line(o, false);
		n = write(o->fd, p, len < WRITE_CHUNK ? len : WRITE_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			progress_clear(o);
			cli_error("%s: %s", o->path,
				  strerror(n < 0 ? errno : ENOSPC));
			return -1;
		}
		p += n;
		len -= n;
		o->written += n;
	}
	return 0;
}

/* Give the unnamed temporary file a name (o->tmp) in its directory. */
static int output_name_temp(struct output *o)
{
	char proc[64];
	int i;

	for (i = 0; i < 100; i++) {
		temp_name(o);
		if (!linkat(o->fd, "", o->dirfd, o->tmp, AT_EMPTY_PATH))
			return 0;
		if (errno == ENOENT || errno == EPERM) {
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
			if (!linkat(AT_FDCWD, proc, o->dirfd, o->tmp,
				    AT_SYMLINK_FOLLOW))
				return 0;
		}
		if (errno != EEXIST)
			break;
	}
	o->tmp[0] = '\0';
	cli_error("%s: cannot create a file in directory %s: %s", o->path,
		  o->dir, strerror(errno));
	return -1;
}

/*
 * The named temporary file in the output's place, replacing only a
 * regular file: swapped in atomically (RENAME_EXCHANGE) and what it
 * displaced checked and swapped back if it is not one (a link or FIFO
 * put there since output_open()). Where the file system cannot swap,
 * the entry is checked just before a plain rename.
 */
static int output_replace(struct output *o)
{
	struct stat st;

	if (!renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_EXCHANGE)) {
		if (fstatat(o->dirfd, o->tmp, &st, AT_SYMLINK_NOFOLLOW) ||
		    S_ISREG(st.st_mode))
			return 0;	/* output_abort() unlinks what was there */
		if (renameat2(o->dirfd, o->tmp, o->dirfd, o->base,
			      RENAME_EXCHANGE)) {
			cli_error("%s: became %s while the image was made; it is now %s/%s",
				  o->path, kind_name(st.st_mode), o->dir,
				  o->tmp);
			o->tmp[0] = '\0';
			return -1;
		}
		cli_error("%s: became %s while the image was made: left alone",
			  o->path, kind_name(st.st_mode));
		return -1;
	}
	/* Gone since: put the image there, over nothing. */
	if (errno == ENOENT &&
	    !renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_NOREPLACE))
		return 1;
	if (errno != EINVAL && errno != ENOSYS)
		goto out_err;
	if (!fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode)) {
		cli_error("%s: became %s while the image was made: left alone",
			  o->path, kind_name(st.st_mode));
		return -1;
	}
	if (!renameat(o->dirfd, o->tmp, o->dirfd, o->base))
		return 1;
out_err:
	cli_error("%s: %s", o->path, strerror(errno));
	return -1;
}

/*
 * The named temporary file at a missing output, never over anything
 * that appeared there since (then as output_replace()).
 */
static int output_create(struct output *o)
{
	if (!renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_NOREPLACE))
		return 1;
	if (errno == EEXIST)
		return output_replace(o);
	if (errno != EINVAL && errno != ENOSYS) {
		cli_error("%s: %s", o->path, strerror(errno));
		return -1;
	}
	/* No RENAME_NOREPLACE here: a hard link never replaces either. */
	if (!linkat(o->dirfd, o->tmp, o->dirfd, o->base, 0))
		return 0;
	if (errno == EEXIST)
		return output_replace(o);
	cli_error("%s: %s", o->path, strerror(errno));
	return -1;
}

/*
 * The new file's owners and mode: a replaced file's (its owner where this
 * user may give it, else its group where this user is in it), or 0666
 * less the umask; a @secret image never more than 0600.
 */
static int output_mode(struct output *o, bool secret)
{
	mode_t mode, mask;

	if (o->kind == OUTPUT_REPLACE) {
		if (fchown(o->fd, o->old.st_uid, o->old.st_gid) &&
		    fchown(o->fd, (uid_t)-1, o->old.st_gid) && errno != EPERM)
			return -1;
		mode = o->old.st_mode & 0777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	return fchmod(o->fd, secret ? mode & 0600 : mode);
}

/*
 * Finish: the new file gets its mode and owners (output_mode()), reaches
 * the disk and takes the output's place.
 */
int output_commit(struct output *o, bool secret)
{
	int ret;

	progress_clear(o);
	if (o->kind == OUTPUT_STDOUT) {
		output_abort(o);
		return 0;
	}
	if (o->kind == OUTPUT_IN_PLACE) {
		ret = close(o->fd);
		o->fd = -1;
		if (ret)
			cli_error("%s: %s", o->path, strerror(errno));
		output_abort(o);
		return ret ? -1 : 0;
	}
	if (output_mode(o, secret) || fsync(o->fd)) {
		cli_error("%s: %s", o->path, strerror(errno));
		goto out_abort;
	}
	if (!o->tmp[0] && output_name_temp(o))
		goto out_abort;
	ret = o->kind == OUTPUT_NEW ? output_create(o) : output_replace(o);
	if (ret < 0)
		goto out_abort;
	if (ret)	/* renamed: no temporary name left to remove */
		o->tmp[0] = '\0';
	if (fsync(o->dirfd) && errno != EINVAL)
		cli_error("%s: directory %s: %s", o->path, o->dir,
			  strerror(errno));
	output_abort(o);
	return 0;
out_abort:
	output_abort(o);
	return -1;
}

/* Drop the output: any temporary file goes, FILE stays as it was. */
void output_abort(struct output *o)
{
	progress_clear(o);
	if (o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	o->tmp[0] = '\0';
	if (o->fd >= 0 && o->kind != OUTPUT_STDOUT)
		close(o->fd);
	o->fd = -1;
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
	free(o->dir);
	o->dir = NULL;
}
