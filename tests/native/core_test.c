// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of memfilter's shared code (core/), built in userspace with
 * ASan and UBSan from the same sources the module uses: the hashes against
 * libxxhash (XXH64, XXH3_64bits_withSeed) and the SipHash reference vectors.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
/* Inline, for XXH3_kSecret and XXH3_mul128_fold64() (xxHash 0.8). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "filter_type.h"
#include "hash.h"
#include "hash_vectors.h"
#include "kselftest_harness.h"
#include "types.h"

TEST(xxh64_vectors)
{
	u8 buf[256 + 8];

	for (unsigned int i = 0; i < MEMFILTER_TEST_XXH64_LENS; i++) {
		unsigned int len = memfilter_test_xxh64_len(i);

		for (unsigned int off = 0; off < 8; off++) {
			for (unsigned int j = 0; j < len; j++)
				buf[off + j] = memfilter_test_msg(j);
			ASSERT_EQ(memfilter_test_xxh64_seed0[i],
				  memfilter_xxh64(buf + off, len, 0));
			ASSERT_EQ(memfilter_test_xxh64_seed1[i],
				  memfilter_xxh64(buf + off, len,
						  MEMFILTER_TEST_XXH64_SEED1));
		}
	}
}

TEST(xxh64_matches_libxxhash)
{
	static u8 buf[4096 + 8];
	unsigned int seedx = 12345;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = rand_r(&seedx);
	for (unsigned int round = 0; round < 64; round++) {
		u64 seed = ((u64)rand_r(&seedx) << 33) ^ rand_r(&seedx);

		for (size_t len = 0; len <= 4096; len += len < 100 ? 1 : 61) {
			ASSERT_EQ(XXH64(buf + (round & 7), len, seed),
				  memfilter_xxh64(buf + (round & 7), len, seed))
				TH_LOG("len %zu round %u", len, round);
		}
	}
}

/* The pinned vectors, at every misalignment. */
TEST(xxh3_vectors)
{
	static u8 buf[4096 + 8];

	for (unsigned int i = 0; i < MEMFILTER_TEST_XXH3_LENS; i++) {
		unsigned int len = memfilter_test_xxh3_len[i];

		for (unsigned int off = 0; off < 8; off++) {
			for (unsigned int j = 0; j < len; j++)
				buf[off + j] = memfilter_test_msg(j);
			ASSERT_EQ(memfilter_test_xxh3_seed0[i],
				  memfilter_xxh3(buf + off, len, 0))
				TH_LOG("len %u off %u", len, off);
			ASSERT_EQ(memfilter_test_xxh3_seed1[i],
				  memfilter_xxh3(buf + off, len,
						 MEMFILTER_TEST_XXH64_SEED1))
				TH_LOG("len %u off %u", len, off);
		}
	}
}

static u64 rand64(unsigned int *state)
{
	return ((u64)rand_r(state) << 42) ^ ((u64)rand_r(state) << 21) ^
	       rand_r(state);
}

/*
 * Every length 0..1024 under many seeds (0, which takes the default
 * secret on the long path; seeds of one bit, of 32 bits, all ones;
 * random ones), at rotating misalignments, against libxxhash.
 */
TEST(xxh3_matches_libxxhash)
{
	static const u64 fixed[] = {
		0, 1, 2, 0x80000000ULL, 0xffffffffULL, 0x100000000ULL,
		0x8000000000000000ULL, ~0ULL, MEMFILTER_TEST_XXH64_SEED1,
	};
	static u8 buf[1024 + 8];
	unsigned int state = 54321;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = rand_r(&state);
	for (unsigned int round = 0; round < 41; round++) {
		u64 seed = round < ARRAY_SIZE(fixed) ? fixed[round] : rand64(&state);

		struct memfilter_hasher h;

		ASSERT_EQ(0, memfilter_hasher_init(&h, MEMFILTER_HASH_XXH3, seed,
						   NULL));
		for (size_t len = 0; len <= 1024; len++) {
			const u8 *p = buf + ((len + round) & 7);
			u64 want = XXH3_64bits_withSeed(p, len, seed);

			ASSERT_EQ(want, memfilter_xxh3(p, len, seed))
				TH_LOG("len %zu seed %#llx", len,
				       (unsigned long long)seed);
			/* memfilter_hash(): its 8- and 16-byte lines too */
			ASSERT_EQ(want, memfilter_hash(&h, p, len))
				TH_LOG("hasher, len %zu seed %#llx", len,
				       (unsigned long long)seed);
		}
	}
}

/* Random contents, lengths up to MEMFILTER_KEY_MAX and beyond, and seeds. */
TEST(xxh3_random)
{
	static u8 buf[3 * MEMFILTER_KEY_MAX];
	unsigned int state = 777;

	for (unsigned int round = 0; round < 20000; round++) {
		size_t len = rand_r(&state) % (round & 1 ? sizeof(buf) - 8 : 300);
		size_t off = rand_r(&state) & 7;
		u64 seed = round & 2 ? rand64(&state) : 0;

		for (size_t i = 0; i < len; i++)
			buf[off + i] = rand_r(&state);
		ASSERT_EQ(XXH3_64bits_withSeed(buf + off, len, seed),
			  memfilter_xxh3(buf + off, len, seed))
			TH_LOG("round %u len %zu", round, len);
	}
}

/*
 * The straight-line hashes of 4-, 8- and 16-byte keys (memfilter_hash_fixed(),
 * memfilter_hash_lean()) against libxxhash and against memfilter_hash()
 * with the length unknown at build time, for XXH3 and XXH64, 2000 seeds
 * (0, all ones, single bits, random) x 50 random keys x 8 alignments;
 * other lengths and SipHash are declined (false, the output untouched).
 */
TEST(hash_fixed_lengths)
{
	static const u32 algos[] = { MEMFILTER_HASH_XXH3, MEMFILTER_HASH_XXH64 };
	static const size_t lens[] = { 4, 8, 16 };
	volatile size_t vlen;
	unsigned int state = 4321;
	struct memfilter_hasher h;
	u8 buf[16 + 8];
	u64 v, checked = 0;

	for (unsigned int a = 0; a < ARRAY_SIZE(algos); a++) {
		for (unsigned int s = 0; s < 2000; s++) {
			u64 seed = s == 0 ? 0 : s == 1 ? ~0ULL :
				   s < 66 ? 1ULL << (s - 2) : rand64(&state);

			ASSERT_EQ(0, memfilter_hasher_init(&h, algos[a], seed, NULL));
			for (unsigned int r = 0; r < 50; r++) {
				size_t off = r & 7;

				for (size_t i = 0; i < sizeof(buf); i++)
					buf[i] = rand_r(&state);
				for (unsigned int l = 0; l < ARRAY_SIZE(lens); l++) {
					size_t len = lens[l];
					u64 ref = algos[a] == MEMFILTER_HASH_XXH3 ?
						  XXH3_64bits_withSeed(buf + off, len, seed) :
						  XXH64(buf + off, len, seed);

					vlen = len;
					v = ~ref;
					ASSERT_TRUE(memfilter_hash_fixed(&h, buf + off, len, &v));
					ASSERT_EQ(ref, v) TH_LOG("algo %u seed %llx len %zu",
								 algos[a], (unsigned long long)seed, len);
					ASSERT_EQ(ref, memfilter_hash(&h, buf + off, vlen));
					ASSERT_EQ(ref, memfilter_hash_lean(&h, buf + off, vlen));
					checked++;
				}
			}
		}
	}
	EXPECT_EQ(2 * 2000 * 50 * 3, checked);
	for (size_t len = 0; len <= 20; len++) {
		if (len == 4 || len == 8 || len == 16)
			continue;
		v = 7;
		EXPECT_FALSE(memfilter_hash_fixed(&h, buf, len, &v));
		EXPECT_EQ(7, v);
	}
	ASSERT_EQ(0, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 0,
					   memfilter_test_sipkey));
	EXPECT_FALSE(memfilter_hash_fixed(&h, buf, 8, &v));
	EXPECT_FALSE(memfilter_hash_fixed(&h, buf, 4, &v));
	EXPECT_FALSE(memfilter_hash_fixed(&h, buf, 16, &v));
	EXPECT_EQ(7, v);
}

/*
 * memfilter_hash_keys(), the batch paths' hashing: every key's hash is
 * the reference's (libxxhash for XXH3 and XXH64) and memfilter_hash()'s,
 * for each algorithm, keys of 0 to 40 bytes (the loops of 4, 8 and 16
 * bytes and the general one), batches of 0 to 300 keys at any alignment,
 * and nothing past the last hash is written.
 */
TEST(hash_keys_is_hash_of_each)
{
	static const u32 algos[] = { MEMFILTER_HASH_XXH3, MEMFILTER_HASH_XXH64,
				     MEMFILTER_HASH_SIPHASH24 };
	static const size_t counts[] = { 0, 1, 2, 7, 64, 300 };
	unsigned int state = 99;
	struct memfilter_hasher h;
	u8 *buf = malloc(300 * 40 + 8);
	u64 out[301], checked = 0;

	ASSERT_NE(NULL, buf);
	for (size_t i = 0; i < 300 * 40 + 8; i++)
		buf[i] = rand_r(&state);
	for (unsigned int a = 0; a < ARRAY_SIZE(algos); a++) {
		u64 seed = rand64(&state);

		ASSERT_EQ(0, memfilter_hasher_init(&h, algos[a], seed,
						   memfilter_test_sipkey));
		for (size_t len = 0; len <= 40; len++) {
			for (unsigned int c = 0; c < ARRAY_SIZE(counts); c++) {
				size_t n = counts[c], off = (len + c) & 7;

				memset(out, 0x5a, sizeof(out));
				memfilter_hash_keys(&h, buf + off, len, n, out);
				for (size_t i = 0; i < n; i++) {
					const u8 *k = buf + off + i * len;
					u64 ref = memfilter_hash(&h, k, len);

					if (algos[a] == MEMFILTER_HASH_XXH3)
						ASSERT_EQ(XXH3_64bits_withSeed(k, len, seed), ref);
					if (algos[a] == MEMFILTER_HASH_XXH64)
						ASSERT_EQ(XXH64(k, len, seed), ref);
					ASSERT_EQ(ref, out[i])
						TH_LOG("algo %u len %zu key %zu of %zu",
						       algos[a], len, i, n);
					checked++;
				}
				EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, out[n]);
			}
		}
	}
	EXPECT_EQ(3 * 41 * (1 + 2 + 7 + 64 + 300), checked);
	free(buf);
}

/*
 * The pieces the reference gets from elsewhere: the 32-bit-host fold of
 * the 128-bit product, and hash.h's constants folded from the secret.
 */
TEST(xxh3_parts)
{
	const u8 *s = memfilter_xxh3_secret;
	unsigned int state = 99;

	for (unsigned int i = 0; i < 100000; i++) {
		u64 a = rand64(&state), b = rand64(&state);

		if (i < 4) {
			a = i & 1 ? ~0ULL : a;
			b = i & 2 ? ~0ULL : b;
		}
		ASSERT_EQ(XXH3_mul128_fold64(a, b), memfilter_mul128_fold64(a, b));
		ASSERT_EQ(memfilter_mul128_fold64(a, b),
			  memfilter_mul128_fold64_generic(a, b));
		ASSERT_EQ((u64)(((unsigned __int128)a * b) >> 64),
			  memfilter_mulhi64(a, b));
	}
	EXPECT_EQ(0, memcmp(XXH3_kSecret, s, MEMFILTER_XXH3_SECRET_SIZE));
	EXPECT_EQ(MEMFILTER_XXH3_FLIP_1TO3,
		  memfilter_load_le32(s) ^ memfilter_load_le32(s + 4));
	EXPECT_EQ(MEMFILTER_XXH3_FLIP_4TO8,
		  memfilter_load_le64(s + 8) ^ memfilter_load_le64(s + 16));
	EXPECT_EQ(MEMFILTER_XXH3_FLIP_9TO16_LO,
		  memfilter_load_le64(s + 24) ^ memfilter_load_le64(s + 32));
	EXPECT_EQ(MEMFILTER_XXH3_FLIP_9TO16_HI,
		  memfilter_load_le64(s + 40) ^ memfilter_load_le64(s + 48));
	EXPECT_EQ(MEMFILTER_XXH3_FLIP_0,
		  memfilter_load_le64(s + 56) ^ memfilter_load_le64(s + 64));
}

TEST(siphash_vectors)
{
	u8 buf[64 + 8];

	for (unsigned int off = 0; off < 8; off++) {
		for (unsigned int len = 0; len < 64; len++) {
			for (unsigned int i = 0; i < len; i++)
				buf[off + i] = i;
			ASSERT_EQ(memfilter_test_siphash24[len],
				  memfilter_siphash24(buf + off, len,
						      memfilter_test_sipkey)) {
				TH_LOG("len %u off %u", len, off);
			}
		}
	}
}

TEST(hasher_init)
{
	static const u64 zero[2], key[2] = { 1, 2 };
	struct memfilter_hasher h;

	EXPECT_EQ(-EOPNOTSUPP, memfilter_hasher_init(&h, 0, 0, NULL));
	EXPECT_EQ(-EOPNOTSUPP, memfilter_hasher_init(&h, 99, 0, key));
	EXPECT_EQ(-EOPNOTSUPP, memfilter_hasher_init(&h, 4, 0, NULL));
	EXPECT_EQ(-EINVAL, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 0, NULL));
	EXPECT_EQ(-EINVAL, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 0, zero));
	ASSERT_EQ(0, memfilter_hasher_init(&h, MEMFILTER_HASH_XXH64, 42, NULL));
	EXPECT_EQ(XXH64("abc", 3, 42), memfilter_hash(&h, "abc", 3));
	ASSERT_EQ(0, memfilter_hasher_init(&h, MEMFILTER_HASH_XXH3, 42, key));
	EXPECT_EQ(MEMFILTER_HASH_XXH3, h.algo);
	EXPECT_EQ(42, h.seed);
	EXPECT_EQ(0, h.key[0] | h.key[1]);
	/* memfilter_hash()'s straight-line 8- and 16-byte paths, and the rest. */
	for (size_t len = 0; len <= 40; len++)
		EXPECT_EQ(XXH3_64bits_withSeed("0123456789abcdef0123456789abcdef01234567",
					       len, 42),
			  memfilter_hash(&h, "0123456789abcdef0123456789abcdef01234567",
					 len));
	ASSERT_EQ(0, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 42,
					   memfilter_test_sipkey));
	EXPECT_EQ(memfilter_test_siphash24[0], memfilter_hash(&h, "", 0));
}

/*
 * Each type-specific field of a create request belongs to the types whose
 * table claims it: set for any other type, or an unknown one, it is
 * -EINVAL; an unknown type with none of them (or a layout) is
 * -EOPNOTSUPP.
 */
TEST(create_type_fields)
{
	static const struct {
		u32 type;
		bool layout, window, grow;
	} types[] = {
		{ MEMFILTER_TYPE_BLOOM, true, false, false },
		{ MEMFILTER_TYPE_CUCKOO, false, false, false },
		{ MEMFILTER_TYPE_WINDOW, true, true, false },
		{ MEMFILTER_TYPE_GROW, true, false, true },
		{ 99, false, false, false },
	};

	for (unsigned int t = 0; t < ARRAY_SIZE(types); t++) {
		const struct memfilter_create base = {
			.size = sizeof(base), .type = types[t].type,
			.capacity = 1000, .fpr_ppb = 10000000,
			.generations = types[t].window ? 4 : 0,
		};
		int known = types[t].type == 99 ? -EOPNOTSUPP : 0;
		const struct memfilter_type_ops *ops;
		union memfilter_params p;
		struct memfilter_create c;

		c = base;
		EXPECT_EQ(known, memfilter_create_params(&c, &ops, &p));
		c = base;
		c.layout = MEMFILTER_LAYOUT_SPLIT32;
		EXPECT_EQ(types[t].layout || known ? known : -EINVAL,
			  memfilter_create_params(&c, &ops, &p));
		c = base;
		c.period_ms = 1000;
		EXPECT_EQ(types[t].window ? known : -EINVAL,
			  memfilter_create_params(&c, &ops, &p));
		c = base;
		c.grow_max = 4;
		EXPECT_EQ(types[t].grow ? known : -EINVAL,
			  memfilter_create_params(&c, &ops, &p));
	}
}

/*
 * A type's image flags are its create fields' in an image: a Bloom
 * layout's SPLIT32 exactly for the types that take a layout, the other
 * type-specific flags for no more than one type each.
 */
TEST(type_image_flags)
{
	u32 seen = 0;

	for (u32 t = 0; t < 64; t++) {
		const struct memfilter_type_ops *ops = memfilter_type_ops(t);

		if (!ops)
			continue;
		EXPECT_EQ(t, ops->type);
		EXPECT_EQ(0, ops->image_flags & ~MEMFILTER_IMAGE_TYPE_FLAGS);
		EXPECT_EQ(!!(ops->create_fields & MEMFILTER_FIELDS_LAYOUT),
			  !!(ops->image_flags & MEMFILTER_IMAGE_SPLIT32))
			TH_LOG("type %s", ops->name);
		EXPECT_EQ(0, seen & ops->image_flags &
			     ~MEMFILTER_IMAGE_SPLIT32) TH_LOG("type %s", ops->name);
		seen |= ops->image_flags;
	}
	EXPECT_EQ(MEMFILTER_IMAGE_TYPE_FLAGS, seen);
}

/*
 * libmemfilter's type table (lib/types.h) and the core's describe the
 * same types: each number names the same type in both, and the library's
 * flags for a layout and for a type's own options are the create fields
 * the core's table claims; the refusal of unknown types lists them all.
 */
TEST(type_tables_agree)
{
	static const struct {
		unsigned int lib;
		u32 core;
	} same[] = {
		{ LIBMF_TYPE_LAYOUT, MEMFILTER_FIELDS_LAYOUT },
		{ LIBMF_OPTS_WINDOW, MEMFILTER_FIELDS_WINDOW },
		{ LIBMF_OPTS_GROW, MEMFILTER_FIELDS_GROW },
	};
	unsigned int core_types = 0;
	char constant[32];

	for (u32 t = 0; t < 64; t++)
		core_types += !!memfilter_type_ops(t);
	EXPECT_EQ(core_types, LIBMF_TYPES_N);
	for (size_t i = 0; i < LIBMF_TYPES_N; i++) {
		const struct libmf_type *lt = &libmf_types[i];
		const struct memfilter_type_ops *ops = memfilter_type_ops(lt->type);

		ASSERT_NE(NULL, ops) TH_LOG("type %d (%s)", lt->type, lt->name);
		EXPECT_STREQ(ops->name, lt->name);
		for (size_t f = 0; f < ARRAY_SIZE(same); f++) {
			EXPECT_EQ(!!(lt->flags & same[f].lib),
				  !!(ops->create_fields & same[f].core))
				TH_LOG("type %s, flag %zu", lt->name, f);
		}
		EXPECT_EQ(!!(lt->flags & (LIBMF_OPTS_WINDOW | LIBMF_OPTS_GROW)),
			  !!lt->wrong_opts) TH_LOG("type %s", lt->name);
		/* The refusal of other types lists its MF_TYPE_<NAME>. */
		snprintf(constant, sizeof(constant), "MF_TYPE_%s", lt->name);
		for (char *c = constant; *c; c++)
			*c = toupper((unsigned char)*c);
		EXPECT_NE(NULL, strstr(LIBMF_TYPES_WHY, constant))
			TH_LOG("LIBMF_TYPES_WHY lacks %s", constant);
	}
}

/*
 * The create request's hash flags, as the module and libmemfilter's
 * offline filters check them: XXH3 alone or with a seed, never with KEYED;
 * the hasher that results, for every filter type's parameter block.
 */
TEST(create_hash_flags)
{
	static const u32 types[] = {
		MEMFILTER_TYPE_BLOOM, MEMFILTER_TYPE_CUCKOO,
		MEMFILTER_TYPE_WINDOW, MEMFILTER_TYPE_GROW,
	};

	for (unsigned int t = 0; t < ARRAY_SIZE(types); t++) {
		struct memfilter_create c = {
			.size = sizeof(c), .type = types[t], .capacity = 1000,
			.fpr_ppb = 10000000,
		};
		const struct memfilter_type_ops *ops;
		const struct memfilter_hasher *h;
		union memfilter_params p;

		if (types[t] == MEMFILTER_TYPE_WINDOW)
			c.generations = 4;
		c.flags = MEMFILTER_CREATE_XXH3 | MEMFILTER_CREATE_SEED;
		c.seed = 0x1234;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		h = ops->hasher(&p);
		EXPECT_EQ(MEMFILTER_HASH_XXH3, h->algo);
		EXPECT_EQ(0x1234, h->seed);
		EXPECT_EQ(memfilter_xxh3_flip_4to8(0x1234), h->xxh3_flip);

		c.flags = MEMFILTER_CREATE_XXH3;
		c.seed = 0;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		EXPECT_EQ(MEMFILTER_HASH_XXH3, ops->hasher(&p)->algo);

		/* No hash named: XXH3; XXH64 on request. */
		c.flags = 0;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		EXPECT_EQ(MEMFILTER_HASH_XXH3, ops->hasher(&p)->algo);
		c.flags = MEMFILTER_CREATE_XXH64 | MEMFILTER_CREATE_SEED;
		c.seed = 0x1234;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		EXPECT_EQ(MEMFILTER_HASH_XXH64, ops->hasher(&p)->algo);
		EXPECT_EQ(0x1234, ops->hasher(&p)->seed);
		EXPECT_EQ(0, ops->hasher(&p)->xxh3_flip);
		c.flags = MEMFILTER_CREATE_XXH64 | MEMFILTER_CREATE_XXH3;
		c.seed = 0;
		EXPECT_EQ(-EINVAL, memfilter_create_params(&c, &ops, &p));
		c.flags = MEMFILTER_CREATE_XXH64 | MEMFILTER_CREATE_KEYED;
		EXPECT_EQ(-EINVAL, memfilter_create_params(&c, &ops, &p));
		c.flags = MEMFILTER_CREATE_KEYED;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		EXPECT_EQ(MEMFILTER_HASH_SIPHASH24, ops->hasher(&p)->algo);

		c.flags = MEMFILTER_CREATE_XXH3 | MEMFILTER_CREATE_KEYED;
		EXPECT_EQ(-EINVAL, memfilter_create_params(&c, &ops, &p));
		c.flags = MEMFILTER_CREATE_XXH3 | MEMFILTER_CREATE_KEYED |
			  MEMFILTER_CREATE_SEED;
		c.seed = 1;
		EXPECT_EQ(-EINVAL, memfilter_create_params(&c, &ops, &p));
		c.flags = MEMFILTER_CREATE_XXH64 << 1;
		c.seed = 0;
		EXPECT_EQ(-EOPNOTSUPP, memfilter_create_params(&c, &ops, &p));
		/* A seed without SEED stays refused under XXH3 too. */
		c.flags = MEMFILTER_CREATE_XXH3;
		c.seed = 5;
		EXPECT_EQ(-EINVAL, memfilter_create_params(&c, &ops, &p));
	}
}

TEST_HARNESS_MAIN
