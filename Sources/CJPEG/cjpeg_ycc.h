/* What cjpeg_raw.c and its AVX2 colour conversion (cjpeg_ycc_avx2.c) share. */
#ifndef CJPEG_YCC_H
#define CJPEG_YCC_H

#include <stdint.h>

/* Output rows resampled together: each column's 8 rows are one vector of 16-bit lanes. */
#define CJPEG_GROUP 8

/* JFIF YCbCr -> RGB coefficients, round(k * 2^15): 1.40200 - 1, 0.34414, 0.71414, 1.77200 - 1. */
enum { CJPEG_K_CR_R = 13173, CJPEG_K_CB_G = 11277, CJPEG_K_CR_G = 23401, CJPEG_K_CB_B = 25297 };

#if defined(__SSE2__)
#include <emmintrin.h>
/* An 8x8 transpose of 16-bit lanes in registers. */
static inline __attribute__((always_inline)) void cjpeg_transpose8(__m128i v[8]) {
    __m128i b0 = _mm_unpacklo_epi16(v[0], v[1]), b1 = _mm_unpackhi_epi16(v[0], v[1]);
    __m128i b2 = _mm_unpacklo_epi16(v[2], v[3]), b3 = _mm_unpackhi_epi16(v[2], v[3]);
    __m128i b4 = _mm_unpacklo_epi16(v[4], v[5]), b5 = _mm_unpackhi_epi16(v[4], v[5]);
    __m128i b6 = _mm_unpacklo_epi16(v[6], v[7]), b7 = _mm_unpackhi_epi16(v[6], v[7]);
    __m128i c0 = _mm_unpacklo_epi32(b0, b2), c1 = _mm_unpackhi_epi32(b0, b2);
    __m128i c2 = _mm_unpacklo_epi32(b1, b3), c3 = _mm_unpackhi_epi32(b1, b3);
    __m128i c4 = _mm_unpacklo_epi32(b4, b6), c5 = _mm_unpackhi_epi32(b4, b6);
    __m128i c6 = _mm_unpacklo_epi32(b5, b7), c7 = _mm_unpackhi_epi32(b5, b7);
    v[0] = _mm_unpacklo_epi64(c0, c4);
    v[1] = _mm_unpackhi_epi64(c0, c4);
    v[2] = _mm_unpacklo_epi64(c1, c5);
    v[3] = _mm_unpackhi_epi64(c1, c5);
    v[4] = _mm_unpacklo_epi64(c2, c6);
    v[5] = _mm_unpackhi_epi64(c2, c6);
    v[6] = _mm_unpacklo_epi64(c3, c7);
    v[7] = _mm_unpackhi_epi64(c3, c7);
}

#endif

/* AVX2 (call only where the CPU has it): converts the group's columns [0, x) to RGB rows exactly
 * as cjpeg_raw.c's SSE2 loop does, for the largest x (a multiple of 8) with x + 2 <= tw: each
 * block stores whole 16-byte vectors, running up to 4 bytes into the next block's pixels. The
 * caller converts the rest. */
int cjpeg_ycc_blocks_avx2(const uint16_t *yp, const uint16_t *cbp, const uint16_t *crp, uint8_t *const rows[CJPEG_GROUP],
                          int count, int tw);

#endif /* CJPEG_YCC_H */
