/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * What bloom_avx2.c sees of <immintrin.h> when sparse checks it: sparse
 * cannot parse GCC's intrinsic headers (vector initialisers,
 * __builtin_ia32_*), so under __CHECKER__ the intrinsics the file uses are
 * declared here as plain functions, and the rest of the file is still
 * checked. Never used for code generation.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BLOOM_AVX2_SPARSE_H
#define _MEMFILTER_BLOOM_AVX2_SPARSE_H

struct memfilter_sparse_m256i {
	long long v[4];
};

struct memfilter_sparse_m256d {
	double v[4];
};

struct memfilter_sparse_m128i {
	long long v[2];
};

#define __m256i	struct memfilter_sparse_m256i
#define __m256d	struct memfilter_sparse_m256d
#define __m128i	struct memfilter_sparse_m128i

__m256i _mm256_and_si256(__m256i a, __m256i b);
__m256i _mm256_andnot_si256(__m256i a, __m256i b);
__m256d _mm256_castsi256_pd(__m256i a);
__m128i _mm256_castsi256_si128(__m256i a);
__m256i _mm256_cmpeq_epi64(__m256i a, __m256i b);
__m256i _mm256_cmpgt_epi32(__m256i a, __m256i b);
__m256i _mm256_cvtepu32_epi64(__m128i a);
__m256i _mm256_cvtepu8_epi32(__m128i a);
__m128i _mm_cvtsi64_si128(long long a);
__m128i _mm256_extracti128_si256(__m256i a, const int i);
__m256i _mm256_load_si256(const void *p);
__m256i _mm256_loadu_si256(const void *p);
int _mm256_movemask_pd(__m256d a);
__m256i _mm256_mullo_epi32(__m256i a, __m256i b);
__m256i _mm256_or_si256(__m256i a, __m256i b);
__m256i _mm256_set1_epi32(int a);
__m256i _mm256_set1_epi64x(long long a);
__m256i _mm256_setr_epi32(int a, int b, int c, int d, int e, int f, int g,
			  int h);
__m256i _mm256_sllv_epi32(__m256i a, __m256i b);
__m256i _mm256_sllv_epi64(__m256i a, __m256i b);
__m256i _mm256_srli_epi32(__m256i a, int i);
void _mm256_store_si256(void *p, __m256i a);
__m256i _mm256_sub_epi32(__m256i a, __m256i b);
int _mm256_testc_si256(__m256i a, __m256i b);
int _mm256_testz_si256(__m256i a, __m256i b);
__m256i _mm256_xor_si256(__m256i a, __m256i b);

#endif /* _MEMFILTER_BLOOM_AVX2_SPARSE_H */
