// SPDX-License-Identifier: GPL-2.0
/*
 * Window filter images for the image fuzzer's seed corpus (fuzz/
 * gen-corpus.sh): memfilterctl build makes Bloom and cuckoo images only,
 * so this builds window filters with the shared code itself (core/, as the
 * kernel and libmemfilter do), adds keys, rotates and serializes them:
 * 2 to 16 generations, every rotation flag, periods, XXH64 and SipHash,
 * a current generation other than 0, ages other than 0, empty ones. Each
 * image is loaded back with libmemfilter's offline loader, which must
 * accept it and re-serialize it to the same bytes, before it is written.
 *
 *   window_images DIR
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_type.h"
#include "image.h"
#include "libmemfilter.h"
#include "window.h"

struct spec {
	const char *name;
	u32 gens;
	u64 capacity;
	u32 window_flags;
	u64 period_ms;
	u32 flags;		/* MEMFILTER_CREATE_KEYED or _SEED */
	u32 keys;		/* added to each generation */
	u32 rotations;		/* after the first generation's keys */
};

static const struct spec specs[] = {
	{ "window-g2", 2, 16, 0, 0, MEMFILTER_CREATE_SEED, 5, 1 },
	{ "window-g4-period", 4, 20, 0, 20000, MEMFILTER_CREATE_SEED, 10, 3 },
	{ "window-g3-bycount", 3, 8, MEMFILTER_WINDOW_ROTATE_BY_COUNT, 0,
	  MEMFILTER_CREATE_SEED, 8, 5 },
	{ "window-g16", 16, 4, 0, 1000, MEMFILTER_CREATE_SEED, 2, 17 },
	{ "window-keyed", 4, 16, MEMFILTER_WINDOW_ROTATE_BY_COUNT, 60000,
	  MEMFILTER_CREATE_KEYED, 6, 2 },
	{ "window-empty", 2, 10, 0, 0, MEMFILTER_CREATE_SEED, 0, 0 },
};

static int write_image(const char *dir, const struct spec *sp, const void *img,
		       size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.img", dir, sp->name);
	f = fopen(path, "wb");
	if (!f || fwrite(img, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

static int one(const char *dir, const struct spec *sp)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_WINDOW,
		.flags = sp->flags, .capacity = sp->capacity,
		.bits_per_key_q4 = 40, .generations = sp->gens,
		.window_flags = sp->window_flags, .period_ms = sp->period_ms,
		.seed = sp->flags & MEMFILTER_CREATE_SEED ? sp->gens : 0,
	};
	const struct memfilter_type_ops *ops;
	struct memfilter_image_desc d;
	union memfilter_params p;
	union memfilter_state s;
	struct mf_offline *f;
	size_t len, len2;
	void *again;
	const char *why;
	u64 bytes, added = 0;
	u8 *mem, *img;
	char key[32];
	int ret;

	ret = memfilter_create_params(&c, &ops, &p);
	if (ret) {
		fprintf(stderr, "%s: parameters: %d\n", sp->name, ret);
		return 1;
	}
	bytes = ops->mem_bytes(&p);
	mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
	if (!mem)
		return 1;
	memset(mem, 0, bytes);
	ops->init(&s, &p, mem);
	for (u32 r = 0; r <= sp->rotations; r++) {
		if (r)	/* born r seconds "before" the clock's 0: ages r s */
			memfilter_window_rotate_exclusive(&s.window,
							  -(u64)(sp->rotations - r + 1) * 1000);
		for (u32 i = 0; i < sp->keys; i++) {
			int n = snprintf(key, sizeof(key), "key-%u-%u", r, i);

			memfilter_window_add_key(&s.window, key, n);
			added++;
		}
	}
	ops->image(&s, added, &d, NULL);
	len = MEMFILTER_IMAGE_HDR_SIZE + d.payload_size;
	img = malloc(len);
	if (!img)
		return 1;
	ops->image(&s, added, &d, img + MEMFILTER_IMAGE_HDR_SIZE);
	memfilter_image_header((struct memfilter_image_header *)img, &d,
			       img + MEMFILTER_IMAGE_HDR_SIZE);
	free(mem);

	ret = mf_offline_from_image(img, len, &f, &why);
	if (ret) {
		fprintf(stderr, "%s: does not load: %s\n", sp->name, why);
		free(img);
		return 1;
	}
	ret = mf_offline_image(f, &again, &len2);
	mf_offline_free(f);
	if (ret || len2 != len || memcmp(again, img, len)) {
		fprintf(stderr, "%s: does not re-serialize to itself\n", sp->name);
		ret = 1;
	} else {
		ret = write_image(dir, sp, img, len);
	}
	if (!ret)
		free(again);
	free(img);
	return ret;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++)
		rc |= one(argv[1], &specs[i]);
	return rc;
}
