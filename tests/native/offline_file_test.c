// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of mf_offline_save() and mf_offline_load(), with ASan and
 * UBSan, in a directory of their own: a missing path is created (mode
 * 0666 less the umask; 0600 for a keyed filter), a regular file replaced
 * by a new inode of its mode and owners (a hard link to the old one keeps the old bytes: never
 * truncated in place), a FIFO and /dev/null written in place and left
 * what they were, a symbolic link, a directory and a socket refused with
 * nothing changed, no temporary file left behind; load reads back what
 * was saved (the same image bytes, the same answers), from a file and
 * from a FIFO, and refuses a truncated file, a trailing byte, a header
 * that declares more than the file holds (before allocating it), a
 * corrupt payload and a directory; mf_offline_map() answers as the
 * image did after the file is truncated or rewritten under it.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "image.h"
#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"

#define NKEYS 1000

static struct mf_offline *filled(bool keyed)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = NKEYS,
		.fpr = 0.01, .keyed = keyed, .fixed_seed = !keyed,
		.seed = keyed ? 0 : 5);
	uint64_t *keys = mf_test_keys(NKEYS, 0);
	struct mf_offline *f = NULL;

	if (!mf_offline_create(&o, &f))
		mf_offline_add(f, keys, 8, NKEYS, NULL, NULL);
	free(keys);
	return f;
}

static void *image_of(const struct mf_offline *f, size_t *len)
{
	void *img = NULL;

	mf_offline_image(f, &img, len);
	return img;
}

/* The file's bytes; free() them. */
static void *slurp(const char *path, size_t *len)
{
	void *buf = NULL;
	int fd = open(path, O_RDONLY);

	*len = 0;
	if (fd >= 0 && mf_image_read(fd, &buf, len, NULL))
		buf = NULL;
	if (fd >= 0)
		close(fd);
	return buf;
}

static bool file_is_image(const char *path, const struct mf_offline *f)
{
	size_t a, b;
	void *want = image_of(f, &a), *got = slurp(path, &b);
	bool same = want && got && a == b && !memcmp(want, got, a);

	free(want);
	free(got);
	return same;
}

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *fp = fopen(path, "w");

	fwrite(p, 1, n, fp);
	fclose(fp);
}

/* Entries of @dir whose name has ".tmp." in it. */
static int temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

FIXTURE(files) {
	char dir[64];
	char path[128];
	struct mf_offline *f;
};

FIXTURE_SETUP(files)
{
	strcpy(self->dir, "/tmp/mf_file_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/f.img", self->dir);
	self->f = filled(false);
	ASSERT_NE(NULL, self->f);
	umask(022);
}

FIXTURE_TEARDOWN(files)
{
	char cmd[128];

	mf_offline_free(self->f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

TEST_F(files, new_file_then_load)
{
	struct mf_offline *g;
	struct stat st;
	uint64_t *keys = mf_test_keys(NKEYS, 0);
	const char *why = "unset";

	ASSERT_EQ(0, mf_offline_save(self->f, self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0644, st.st_mode & 07777);
	EXPECT_TRUE(file_is_image(self->path, self->f));
	ASSERT_EQ(0, mf_offline_load(self->path, &g, &why));
	EXPECT_EQ(NULL, why);
	EXPECT_EQ(NKEYS, mf_offline_query(g, keys, 8, NKEYS, NULL, NULL));
	EXPECT_EQ(0, mf_offline_save(g, self->path));
	EXPECT_TRUE(file_is_image(self->path, self->f));
	mf_offline_free(g);
	free(keys);
	EXPECT_EQ(0, temporaries(self->dir));
}

TEST_F(files, keyed_image_is_0600)
{
	struct mf_offline *k = filled(true);
	struct stat st;

	umask(0);
	ASSERT_EQ(0, mf_offline_save(k, self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	/* Replacing a world-readable file: the secret stays 0600. */
	chmod(self->path, 0644);
	ASSERT_EQ(0, mf_offline_save(k, self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	mf_offline_free(k);
}

/*
 * A replaced file's mode, owner and group go to the new one, as '>' keeps
 * them (a keyed image's at most 0600); the umask is for new files only.
 */
TEST_F(files, replaced_file_keeps_mode_and_owners)
{
	struct mf_offline *k = filled(true);
	struct stat st;

	write_bytes(self->path, "old", 3);
	ASSERT_EQ(0, chmod(self->path, 0640));
	umask(077);
	ASSERT_EQ(0, mf_offline_save(self->f, self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0640, st.st_mode & 07777);
	ASSERT_EQ(0, chmod(self->path, 0444));
	ASSERT_EQ(0, mf_offline_save(self->f, self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0444, st.st_mode & 07777);
	EXPECT_TRUE(file_is_image(self->path, self->f));
	ASSERT_EQ(0, chmod(self->path, 0640));
	ASSERT_EQ(0, mf_offline_save(k, self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	if (!geteuid()) {
		ASSERT_EQ(0, chown(self->path, 65534, 65534));
		ASSERT_EQ(0, mf_offline_save(self->f, self->path));
		ASSERT_EQ(0, stat(self->path, &st));
		EXPECT_EQ(65534, st.st_uid);
		EXPECT_EQ(65534, st.st_gid);
	}
	EXPECT_EQ(0, temporaries(self->dir));
	mf_offline_free(k);
}

/* A regular file is replaced, never truncated or rewritten in place. */
TEST_F(files, regular_file_replaced_by_a_new_one)
{
	struct stat before, after;
	char other[160], buf[32] = { 0 };
	FILE *fp;

	write_bytes(self->path, "old bytes", 9);
	snprintf(other, sizeof(other), "%s/hardlink", self->dir);
	ASSERT_EQ(0, link(self->path, other));
	ASSERT_EQ(0, stat(self->path, &before));
	ASSERT_EQ(0, mf_offline_save(self->f, self->path));
	ASSERT_EQ(0, stat(self->path, &after));
	EXPECT_NE(before.st_ino, after.st_ino);
	EXPECT_TRUE(file_is_image(self->path, self->f));
	/* The old inode, through its other name: untouched. */
	fp = fopen(other, "r");
	ASSERT_NE(NULL, fp);
	EXPECT_EQ(9, fread(buf, 1, sizeof(buf) - 1, fp));
	fclose(fp);
	EXPECT_STREQ("old bytes", buf);
	EXPECT_EQ(0, temporaries(self->dir));
}

TEST_F(files, link_dir_socket_refused)
{
	char target[160], sock[160];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int s;

	snprintf(target, sizeof(target), "%s/target", self->dir);
	write_bytes(target, "target", 6);
	ASSERT_EQ(0, symlink("target", self->path));
	EXPECT_EQ(-ELOOP, mf_offline_save(self->f, self->path));
	ASSERT_EQ(0, lstat(self->path, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_EQ(0, stat(target, &st));
	EXPECT_EQ(6, st.st_size);
	/* A dangling link too. */
	unlink(target);
	EXPECT_EQ(-ELOOP, mf_offline_save(self->f, self->path));
	EXPECT_EQ(-1, stat(target, &st));
	/* A directory, and a path ending in '/'. */
	EXPECT_EQ(-EISDIR, mf_offline_save(self->f, self->dir));
	snprintf(target, sizeof(target), "%s/", self->dir);
	EXPECT_EQ(-EISDIR, mf_offline_save(self->f, target));
	/* "file/" is not a directory, as the shell says. */
	snprintf(target, sizeof(target), "%s/target", self->dir);
	write_bytes(target, "target", 6);
	strcat(target, "/");
	EXPECT_EQ(-ENOTDIR, mf_offline_save(self->f, target));
	/* A socket. */
	snprintf(sock, sizeof(sock), "%s/sock", self->dir);
	strcpy(sa.sun_path, sock);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_LE(0, s);
	ASSERT_EQ(0, bind(s, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(-ENXIO, mf_offline_save(self->f, sock));
	ASSERT_EQ(0, lstat(sock, &st));
	EXPECT_TRUE(S_ISSOCK(st.st_mode));
	close(s);
	EXPECT_EQ(0, temporaries(self->dir));
}

/* A FIFO is written in place, as '>' writes it, and stays a FIFO. */
TEST_F(files, fifo_written_in_place)
{
	struct mf_offline *g = NULL;
	struct stat st;
	int status;
	pid_t pid;

	ASSERT_EQ(0, mkfifo(self->path, 0600));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The reader: the whole image from the FIFO, as a stream. */
		int ret = mf_offline_load(self->path, &g, NULL);

		_exit(ret || !g ? 1 : mf_offline_query_key(g, "x", 1) < 0);
	}
	EXPECT_EQ(0, mf_offline_save(self->f, self->path));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(0, lstat(self->path, &st));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	EXPECT_EQ(0, temporaries(self->dir));
}

TEST_F(files, char_device_written_in_place)
{
	struct stat st;

	ASSERT_EQ(0, mf_offline_save(self->f, "/dev/null"));
	ASSERT_EQ(0, stat("/dev/null", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0, temporaries("/dev"));
	EXPECT_EQ(-ENOSPC, mf_offline_save(self->f, "/dev/full"));
	ASSERT_EQ(0, stat("/dev/full", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
}

/* A missing directory, and the rule's errors through mf_call_strerror(). */
TEST_F(files, errors_in_the_calls_terms)
{
	char p[160];

	snprintf(p, sizeof(p), "%s/no/such", self->dir);
	EXPECT_EQ(-ENOENT, mf_offline_save(self->f, p));
	EXPECT_STREQ("no such directory",
		     MF_CALL_STRERROR(mf_offline_save, -ENOENT));
	EXPECT_STREQ("is a symbolic link: not written through (give the file it should write)",
		     MF_CALL_STRERROR(mf_offline_save, -ELOOP));
	EXPECT_STREQ("no such file", MF_CALL_STRERROR(mf_offline_load, -ENOENT));
}

/* What load refuses, each with its reason, nothing left allocated. */
TEST_F(files, load_refuses_bad_files)
{
	struct memfilter_image_header *h;
	struct mf_offline *g = (struct mf_offline *)&g;
	const char *why;
	size_t len;
	unsigned char *img = image_of(self->f, &len), *big;

	ASSERT_NE(NULL, img);
	write_bytes(self->path, img, len - 1);
	EXPECT_EQ(-EBADMSG, mf_offline_load(self->path, &g, &why));
	EXPECT_EQ(NULL, g);
	EXPECT_STREQ("truncated: shorter than header + payload", why);
	big = malloc(len + 1);
	memcpy(big, img, len);
	big[len] = 0;
	write_bytes(self->path, big, len + 1);
	EXPECT_EQ(-EBADMSG, mf_offline_load(self->path, &g, &why));
	EXPECT_STREQ("trailing bytes after the payload", why);
	/* The header of a 1.2 MB filter alone: refused by the file's size. */
	ASSERT_EQ(0, mf_offline_create(&(struct mf_create_opts){
		.type = MF_TYPE_BLOOM, .capacity = 1000000, .fpr = 0.01 }, &g));
	free(big);
	big = image_of(g, &len);
	mf_offline_free(g);
	write_bytes(self->path, big, MEMFILTER_IMAGE_HDR_SIZE);
	EXPECT_EQ(-EBADMSG, mf_offline_load(self->path, &g, &why));
	EXPECT_STREQ("truncated: shorter than header + payload", why);
	/* A header whose sizes do not add up. */
	h = (struct memfilter_image_header *)big;
	h->payload_size = htole64(1ULL << 40);
	h->header_xxh64 = htole64(memfilter_xxh64(h,
		offsetof(struct memfilter_image_header, header_xxh64), 0));
	write_bytes(self->path, big, MEMFILTER_IMAGE_HDR_SIZE);
	EXPECT_EQ(-EBADMSG, mf_offline_load(self->path, &g, &why));
	EXPECT_STREQ("inconsistent header fields (geometry, sizes or hash parameters)",
		     why);
	free(big);
	big = image_of(self->f, &len);
	/* A flipped payload bit. */
	memcpy(big, img, len);
	big[len - 1] ^= 1;
	write_bytes(self->path, big, len);
	EXPECT_EQ(-EBADMSG, mf_offline_load(self->path, &g, &why));
	EXPECT_STREQ("payload checksum mismatch (corrupt table)", why);
	write_bytes(self->path, "", 0);
	EXPECT_EQ(-EBADMSG, mf_offline_load(self->path, &g, &why));
	EXPECT_EQ(-EISDIR, mf_offline_load(self->dir, &g, &why));
	EXPECT_EQ(NULL, why);
	free(big);
	free(img);
}

/*
 * mf_offline_map() of a file another program truncates (to nothing, to
 * half) or rewrites in place after the call: the filter answers as the
 * image did, adds and images as before, never SIGBUS (the filter is the
 * library's copy, not the file's pages). Cut before the call: refused.
 * A table of 1.2 MB: the library's own mapping (small ones are
 * malloc()'s, which new_file_then_load reads).
 */
TEST_F(files, map_survives_truncation)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 1000000,
		.fpr = 0.01, .fixed_seed = true, .seed = 5);
	uint64_t *keys = mf_test_keys(NKEYS + 1, 0);
	static const off_t cut[] = { 0, 1 };
	struct mf_offline *big, *g;
	size_t len, got_len;
	void *img, *got;
	const char *why;
	int fd, wfd, i;

	ASSERT_EQ(0, mf_offline_create(&o, &big));
	ASSERT_EQ(NKEYS, mf_offline_add(big, keys, 8, NKEYS, NULL, NULL));
	img = image_of(big, &len);
	ASSERT_NE(NULL, img);
	/* Several pages, so that half of them can go. */
	ASSERT_LT(8 * 4096, len);
	for (i = 0; i < 2; i++) {
		write_bytes(self->path, img, len);
		fd = open(self->path, O_RDONLY);
		wfd = open(self->path, O_WRONLY);
		ASSERT_LE(0, fd);
		ASSERT_LE(0, wfd);
		ASSERT_EQ(0, mf_offline_map(fd, &g, &why));
		close(fd);
		ASSERT_EQ(0, ftruncate(wfd, cut[i] * (off_t)len / 2));
		EXPECT_EQ(NKEYS, mf_offline_query(g, keys, 8, NKEYS, NULL,
						  NULL));
		got = image_of(g, &got_len);
		ASSERT_NE(NULL, got);
		EXPECT_EQ(len, got_len);
		EXPECT_EQ(0, memcmp(img, got, len));
		free(got);
		/* Rewritten in place, as cp does: still the image mapped. */
		EXPECT_EQ((ssize_t)strlen(self->dir),
			  pwrite(wfd, self->dir, strlen(self->dir), 0));
		EXPECT_EQ(1, mf_offline_add(g, keys + NKEYS, 8, 1, NULL, NULL));
		EXPECT_EQ(NKEYS + 1, mf_offline_query(g, keys, 8, NKEYS + 1,
						      NULL, NULL));
		mf_offline_free(g);
		close(wfd);
	}
	/* Cut after open, before the call: the call sees it and refuses. */
	write_bytes(self->path, img, len);
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, truncate(self->path, len / 2));
	g = (struct mf_offline *)&g;
	EXPECT_EQ(-EBADMSG, mf_offline_map(fd, &g, &why));
	EXPECT_EQ(NULL, g);
	EXPECT_STREQ("truncated: shorter than header + payload", why);
	close(fd);
	mf_offline_free(big);
	free(img);
	free(keys);
}

TEST_HARNESS_MAIN
