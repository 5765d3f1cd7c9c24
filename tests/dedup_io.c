// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O side of the memfilter-dedup test (tests/dm_test.sh), run in the
 * guest: O_DIRECT writes of 4 KiB blocks whose content is a function of a
 * seed and the block number, mirrored into an "expected image" file; the
 * exact number of verify reads a filter image predicts for such writes;
 * and the check that concurrent writers left every block with the data of
 * one of them. image writes the same blocks into a plain file (buffered),
 * for images that dd copies onto the target (bench/dm/dedup-guest.sh).
 * raw is one O_DIRECT write of LENGTH bytes at byte OFFSET (multiples of
 * 512), each byte what write would put there: partial, unaligned or
 * multi-block writes. faultwrite writes blocks FIRST.. (COUNT of them)
 * PASSES times while I/O errors are injected under the target
 * (tests/faults.sh): a write that fails with EIO is counted, one that
 * completes is mirrored into EXPECT, and STATE (a byte per block) records
 * whether the block's last write completed (1) or failed (0); pass P
 * writes seed SEED + (P / 2) % 2, so every other pass repeats the one
 * before it (the target's verify path). verify then compares, block by
 * block with O_DIRECT, every block whose last write completed with
 * EXPECT: a write reported complete must be on the device.
 *
 *   dedup_io write DEV EXPECT FIRST COUNT STRIDE SEED [fua]
 *   dedup_io predict IMAGE FIRST COUNT STRIDE SEED
 *   dedup_io settle DEV EXPECT FIRST COUNT SEED...
 *   dedup_io image FILE FIRST COUNT STRIDE SEED
 *   dedup_io raw DEV EXPECT OFFSET LENGTH SEED
 *   dedup_io faultwrite DEV EXPECT STATE FIRST COUNT PASSES SEED
 *   dedup_io verify DEV EXPECT STATE FIRST COUNT
 *
 * Blocks FIRST, FIRST + STRIDE, ... (COUNT of them). Seed 0 is zeros.
 * predict prints how many of the writes' keys the filter in IMAGE would
 * report present, taken one by one in write order with each key added
 * after its test: what the target's test-and-add does. The key is the
 * target's: the block number and XXH64 (seed 0) of the data, 64-bit
 * little endian each (module/consumers/dm.h, struct memfilter_dm_key).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "hash.h"
#include "libmemfilter.h"

#define BLOCK 4096

static int usage(void)
{
	fprintf(stderr, "usage: dedup_io write DEV EXPECT FIRST COUNT STRIDE SEED [fua]\n"
		"       dedup_io predict IMAGE FIRST COUNT STRIDE SEED\n"
		"       dedup_io settle DEV EXPECT FIRST COUNT SEED...\n"
		"       dedup_io image FILE FIRST COUNT STRIDE SEED\n"
		"       dedup_io raw DEV EXPECT OFFSET LENGTH SEED\n"
		"       dedup_io faultwrite DEV EXPECT STATE FIRST COUNT PASSES SEED\n"
		"       dedup_io verify DEV EXPECT STATE FIRST COUNT\n");
	return 2;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "dedup_io: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "dedup_io: not a number: '%s'\n", s);
		exit(2);
	}
	return v;
}

/* FIRST COUNT STRIDE SEED from @argv[0..3]. */
struct blocks {
	uint64_t first, count, stride, seed;
};

static struct blocks blocks_arg(char **argv)
{
	struct blocks r = { num(argv[0]), num(argv[1]), num(argv[2]),
			    num(argv[3]) };

	return r;
}

static uint64_t nth(const struct blocks *r, uint64_t i)
{
	return r->first + i * r->stride;
}

/* Block @b's data under @seed: xorshift64* from both, zeros for seed 0. */
static void fill(uint8_t *buf, uint64_t seed, uint64_t b)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL ^ (b + 1) * 0xBF58476D1CE4E5B9ULL;
	size_t i;

	if (!seed) {
		memset(buf, 0, BLOCK);
		return;
	}
	for (i = 0; i < BLOCK; i += 8) {
		uint64_t v;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = x * 0x2545F4914F6CDD1DULL;
		memcpy(buf + i, &v, 8);
	}
}

static void *block_buf(void)
{
	void *p;

	if (posix_memalign(&p, BLOCK, BLOCK)) {
		perror("dedup_io: posix_memalign");
		exit(1);
	}
	return p;
}

/* The device argv[1] with @flags, and the expected image argv[2]. */
static int open_pair(char **argv, int flags, int *dev, int *exp)
{
	*dev = open(argv[1], flags);
	if (*dev < 0)
		return fail("open", argv[1]);
	*exp = open(argv[2], O_WRONLY);
	if (*exp < 0)
		return fail("open", argv[2]);
	return 0;
}

static int cmd_write(int argc, char **argv)
{
	int dev, exp, flags = O_WRONLY | O_DIRECT;
	struct blocks r;
	uint64_t i;
	uint8_t *buf = block_buf();

	if (argc < 7 || argc > 8 || (argc == 8 && strcmp(argv[7], "fua")))
		return usage();
	if (argc == 8)
		flags |= O_DSYNC;
	r = blocks_arg(argv + 3);
	if (open_pair(argv, flags, &dev, &exp))
		return 1;
	for (i = 0; i < r.count; i++) {
		uint64_t b = nth(&r, i);

		fill(buf, r.seed, b);
		if (pwrite(dev, buf, BLOCK, b * BLOCK) != BLOCK)
			return fail("write", argv[1]);
		if (pwrite(exp, buf, BLOCK, b * BLOCK) != BLOCK)
			return fail("write", argv[2]);
	}
	close(exp);
	return close(dev) ? fail("close", argv[1]) : 0;
}

static int cmd_predict(int argc, char **argv)
{
	uint64_t i, present = 0;
	struct blocks r;
	uint8_t *buf = block_buf(), *image;
	struct mf_offline *f;
	const char *why = "";
	struct stat st;
	ssize_t ret;
	int fd;

	if (argc != 6)
		return usage();
	r = blocks_arg(argv + 2);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return fail("open", argv[1]);
	image = malloc(st.st_size);
	if (!image || read(fd, image, st.st_size) != st.st_size)
		return fail("read", argv[1]);
	close(fd);
	ret = mf_offline_from_image(image, st.st_size, &f, &why);
	if (ret) {
		fprintf(stderr, "dedup_io: %s: %s (%s)\n", argv[1],
			strerror((int)-ret), why ? why : "");
		return 1;
	}
	for (i = 0; i < r.count; i++) {
		uint64_t b = nth(&r, i), key[2];

		fill(buf, r.seed, b);
		key[0] = htole64(b);
		key[1] = htole64(memfilter_xxh64(buf, BLOCK, 0));
		ret = mf_offline_query(f, key, sizeof(key), 1, NULL, NULL);
		if (ret >= 0 && !ret)
			ret = mf_offline_add(f, key, sizeof(key), 1, NULL, NULL);
		else if (ret > 0)
			present++;
		if (ret < 0) {
			fprintf(stderr, "dedup_io: offline filter: %s\n",
				strerror((int)-ret));
			return 1;
		}
	}
	mf_offline_free(f);
	free(image);
	printf("%llu\n", (unsigned long long)present);
	return 0;
}

static int cmd_settle(int argc, char **argv)
{
	uint8_t *buf = block_buf(), *want = block_buf();
	uint64_t first, count, i;
	int dev, exp, s, nseeds = argc - 5;
	uint64_t hits[16] = { 0 };

	if (argc < 6 || nseeds > 16)
		return usage();
	first = num(argv[3]);
	count = num(argv[4]);
	if (open_pair(argv, O_RDONLY | O_DIRECT, &dev, &exp))
		return 1;
	for (i = 0; i < count; i++) {
		uint64_t b = first + i;

		if (pread(dev, buf, BLOCK, b * BLOCK) != BLOCK)
			return fail("read", argv[1]);
		for (s = 0; s < nseeds; s++) {
			fill(want, num(argv[5 + s]), b);
			if (!memcmp(buf, want, BLOCK))
				break;
		}
		if (s == nseeds) {
			fprintf(stderr, "dedup_io: block %llu holds none of the writers' data\n",
				(unsigned long long)b);
			return 1;
		}
		hits[s]++;
		if (pwrite(exp, buf, BLOCK, b * BLOCK) != BLOCK)
			return fail("write", argv[2]);
	}
	for (s = 0; s < nseeds; s++)
		printf("%sseed %s: %llu", s ? ", " : "", argv[5 + s],
		       (unsigned long long)hits[s]);
	printf("\n");
	close(exp);
	close(dev);
	return 0;
}

static int cmd_image(int argc, char **argv)
{
	uint8_t *buf = block_buf();
	struct blocks r;
	uint64_t i;
	int fd;

	if (argc != 6)
		return usage();
	r = blocks_arg(argv + 2);
	fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return fail("open", argv[1]);
	for (i = 0; i < r.count; i++) {
		uint64_t b = nth(&r, i);

		fill(buf, r.seed, b);
		if (pwrite(fd, buf, BLOCK, b * BLOCK) != BLOCK)
			return fail("write", argv[1]);
	}
	return close(fd) ? fail("close", argv[1]) : 0;
}

static int cmd_raw(int argc, char **argv)
{
	uint8_t *blk = block_buf(), *buf;
	uint64_t off, len, seed, i;
	int dev, exp;

	if (argc != 6)
		return usage();
	off = num(argv[3]);
	len = num(argv[4]);
	seed = num(argv[5]);
	if (posix_memalign((void **)&buf, BLOCK, len ? len : 1))
		return fail("allocate", "buffer");
	for (i = 0; i < len; i++) {
		if (!i || !((off + i) % BLOCK))
			fill(blk, seed, (off + i) / BLOCK);
		buf[i] = blk[(off + i) % BLOCK];
	}
	if (open_pair(argv, O_WRONLY | O_DIRECT, &dev, &exp))
		return 1;
	if (pwrite(dev, buf, len, off) != (ssize_t)len)
		return fail("write", argv[1]);
	if (pwrite(exp, buf, len, off) != (ssize_t)len)
		return fail("write", argv[2]);
	close(exp);
	return close(dev) ? fail("close", argv[1]) : 0;
}

static int cmd_faultwrite(int argc, char **argv)
{
	uint64_t first, count, passes, seed, p, i, done = 0, errors = 0;
	uint8_t *buf = block_buf();
	int dev, exp, st;

	if (argc != 8)
		return usage();
	first = num(argv[4]);
	count = num(argv[5]);
	passes = num(argv[6]);
	seed = num(argv[7]);
	if (open_pair(argv, O_WRONLY | O_DIRECT, &dev, &exp))
		return 1;
	st = open(argv[3], O_WRONLY);
	if (st < 0)
		return fail("open", argv[3]);
	for (p = 0; p < passes; p++) {
		for (i = 0; i < count; i++) {
			uint64_t b = first + i;
			uint8_t ok = 1;

			fill(buf, seed + (p / 2) % 2, b);
			if (pwrite(dev, buf, BLOCK, b * BLOCK) == BLOCK) {
				if (pwrite(exp, buf, BLOCK, b * BLOCK) != BLOCK)
					return fail("write", argv[2]);
				done++;
			} else if (errno == EIO) {
				ok = 0;
				errors++;
			} else {
				return fail("write", argv[1]);
			}
			if (pwrite(st, &ok, 1, b) != 1)
				return fail("write", argv[3]);
		}
	}
	printf("%llu writes, %llu completed, %llu I/O errors\n",
	       (unsigned long long)(passes * count),
	       (unsigned long long)done, (unsigned long long)errors);
	close(st);
	close(exp);
	return close(dev) ? fail("close", argv[1]) : 0;
}

static int cmd_verify(int argc, char **argv)
{
	uint8_t *buf = block_buf(), *want = block_buf();
	uint64_t first, count, i, same = 0, differ = 0, skipped = 0;
	int dev, exp, st;
	uint8_t ok;

	if (argc != 6)
		return usage();
	first = num(argv[4]);
	count = num(argv[5]);
	dev = open(argv[1], O_RDONLY | O_DIRECT);
	if (dev < 0)
		return fail("open", argv[1]);
	exp = open(argv[2], O_RDONLY);
	if (exp < 0)
		return fail("open", argv[2]);
	st = open(argv[3], O_RDONLY);
	if (st < 0)
		return fail("open", argv[3]);
	for (i = 0; i < count; i++) {
		uint64_t b = first + i;

		if (pread(st, &ok, 1, b) != 1)
			return fail("read", argv[3]);
		if (!ok) {
			skipped++;
			continue;
		}
		if (pread(dev, buf, BLOCK, b * BLOCK) != BLOCK)
			return fail("read", argv[1]);
		if (pread(exp, want, BLOCK, b * BLOCK) != BLOCK)
			return fail("read", argv[2]);
		if (memcmp(buf, want, BLOCK)) {
			fprintf(stderr, "dedup_io: block %llu: its last write completed, the device holds other data\n",
				(unsigned long long)b);
			differ++;
		} else {
			same++;
		}
	}
	printf("%llu blocks (%llu bytes) verified, %llu differ, %llu skipped (last write failed)\n",
	       (unsigned long long)same, (unsigned long long)same * BLOCK,
	       (unsigned long long)differ, (unsigned long long)skipped);
	close(st);
	close(exp);
	close(dev);
	return differ ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "write"))
		return cmd_write(argc - 1, argv + 1);
	if (!strcmp(argv[1], "predict"))
		return cmd_predict(argc - 1, argv + 1);
	if (!strcmp(argv[1], "settle"))
		return cmd_settle(argc - 1, argv + 1);
	if (!strcmp(argv[1], "image"))
		return cmd_image(argc - 1, argv + 1);
	if (!strcmp(argv[1], "raw"))
		return cmd_raw(argc - 1, argv + 1);
	if (!strcmp(argv[1], "faultwrite"))
		return cmd_faultwrite(argc - 1, argv + 1);
	if (!strcmp(argv[1], "verify"))
		return cmd_verify(argc - 1, argv + 1);
	return usage();
}
