// SPDX-License-Identifier: GPL-2.0
/*
 * lib_example: libmemfilter without the kernel module.
 *
 * Builds an offline Bloom filter from the keys on the command line (or a
 * few fruits), asks it about them and about keys that were never added,
 * writes it to an image, makes a second filter of that image and checks
 * that both give the same answers. Exit status 0 when every added key is
 * found in both (a filter never forgets a key) and the answers agree.
 *
 *   cc lib_example.c $(pkg-config --cflags --libs libmemfilter)
 *   ./a.out apple banana cherry
 *
 * With the module loaded, the same calls work on a filter in the
 * kernel: mf_open_device(), mf_create() and mf_add()/mf_query() on the fd.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmemfilter.h>

static int ask(const struct mf_offline *f, const char *key)
{
	uint32_t len = strlen(key);

	return mf_offline_queryv(f, key, &len, 1, NULL, NULL);
}

int main(int argc, char **argv)
{
	static const char *const fruits[] = { "apple", "banana", "cherry" };
	static const char *const others[] = { "kiwi", "lemon", "mango" };
	const char *const *keys = argc > 1 ? (const char *const *)argv + 1
					   : fruits;
	int nkeys = argc > 1 ? argc - 1 : 3;
	struct mf_create_opts opts = {
		.type = MF_TYPE_BLOOM,
		.capacity = 1000,
		.fpr = 0.01,
	};
	struct mf_offline *f, *g;
	struct mf_info info;
	void *image;
	size_t len;
	int i, ret;

	printf("libmemfilter %s (built with %s)\n", mf_version(),
	       MEMFILTER_VERSION);
	ret = mf_offline_create(&opts, &f);
	if (ret) {
		fprintf(stderr, "mf_offline_create: %s\n", mf_strerror(ret));
		return 1;
	}
	for (i = 0; i < nkeys; i++) {
		uint32_t klen = strlen(keys[i]);

		ret = mf_offline_addv(f, keys[i], &klen, 1, NULL, NULL);
		if (ret != 1) {
			fprintf(stderr, "add %s: %s\n", keys[i],
				mf_strerror(ret));
			return 1;
		}
	}
	ret = mf_offline_image(f, &image, &len);
	if (ret) {
		fprintf(stderr, "mf_offline_image: %s\n", mf_strerror(ret));
		return 1;
	}
	ret = mf_offline_from_image(image, len, &g, NULL);
	free(image);
	if (ret) {
		fprintf(stderr, "mf_offline_from_image: %s\n",
			mf_strerror(ret));
		return 1;
	}
	mf_offline_info(g, &info);
	printf("%zu-byte image: %llu keys, estimated FPR %.2g\n", len,
	       (unsigned long long)info.keys, info.est_fpr);

	ret = 0;
	for (i = 0; i < nkeys; i++) {
		int a = ask(f, keys[i]), b = ask(g, keys[i]);

		printf("%-10s %s\n", keys[i], a == 1 ? "may be present" : "ABSENT");
		if (a != 1 || b != 1)
			ret = 1;	/* a false negative: never happens */
	}
	for (i = 0; i < 3; i++) {
		int a = ask(f, others[i]), b = ask(g, others[i]);

		printf("%-10s %s\n", others[i],
		       a == 1 ? "may be present (false positive)" : "absent");
		if (a != b || a < 0)
			ret = 1;	/* the image answers differently */
	}
	mf_offline_free(g);
	mf_offline_free(f);
	return ret;
}
