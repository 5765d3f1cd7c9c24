// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the filter image loader: arbitrary bytes go through
 * the whole offline load path, the same checks the kernel's
 * MEMFILTER_IOC_LOAD runs (core/image.c: parse, payload checksum; core/
 * filters: table adoption, cuckoo restore), then a few queries, and an
 * image that loaded must re-serialize to exactly its own bytes. Built with
 * ASan and UBSan (make fuzz, make fuzz-smoke); seeds in fuzz/corpus/image.
 *
 * Most mutations break a checksum and stop at the first check. To reach the
 * field checks behind it, half of the inputs (chosen by a hash of their
 * bytes, so runs reproduce) have their checksums recomputed first.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "libmemfilter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fix_checksums(u8 *img, size_t len)
{
	struct memfilter_image_header *h = (void *)img;
	u64 n = len - MEMFILTER_IMAGE_HDR_SIZE;

	h->payload_xxh64 = cpu_to_le64(memfilter_xxh64(img +
					MEMFILTER_IMAGE_HDR_SIZE, n, 0));
	h->header_xxh64 = cpu_to_le64(memfilter_xxh64(h,
						      offsetof(struct memfilter_image_header,
							       header_xxh64), 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const probes[] = { "", "a", "key-1", "12345678",
		"a somewhat longer key of more than thirty-two bytes" };
	struct memfilter_image_desc d;
	struct mf_offline *f;
	u8 *img = malloc(size ? size : 1);
	const char *why;
	size_t len, i;
	void *out;
	int ret;

	if (!img)
		return 0;
	memcpy(img, data, size);
	if (size >= MEMFILTER_IMAGE_HDR_SIZE &&
	    (memfilter_xxh64(data, size, 1) & 1))
		fix_checksums(img, size);

	/* The core parser alone and the library's full path must agree. */
	ret = memfilter_image_parse(img, size, &d);
	if (!ret)
		ret = memfilter_image_check_payload(&d, img +
						    MEMFILTER_IMAGE_HDR_SIZE);
	if (mf_offline_from_image(img, size, &f, &why)) {
		if (!why)
			abort();
		goto out;
	}
	if (ret)
		abort();
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		u32 l = strlen(probes[i]);

		if (mf_offline_queryv(f, probes[i], &l, 1, NULL, NULL) < 0)
			abort();
	}
	if (mf_offline_image(f, &out, &len))
		abort();
	if (len != size || memcmp(out, img, size))
		abort();
	free(out);
	mf_offline_free(f);
out:
	free(img);
	return 0;
}
