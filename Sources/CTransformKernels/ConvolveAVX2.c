#if defined(__x86_64__)
#include "Internal.h"
#include <immintrin.h>
#include <string.h>

// AVX2 kernels (compiled for AVX2 per function, chosen at run time by Convolve.c).

#define IK_TARGET __attribute__((target("avx2")))
#define IK_NAME(base) base##_avx2
#define IK_DOT(acc, x, c) _mm256_add_epi32(acc, _mm256_madd_epi16(x, c))
#include "ConvolveKernels.h"

IK_TARGET void ik_premultiply_rgba8_avx2(const uint8_t *in, uint8_t *out, size_t pixels) {
    // Per 16-bit sample: its pixel's alpha, or 255 for the alpha sample itself (a * 255 / 255 = a).
    const __m256i spread = _mm256_setr_epi8(
        6, -1, 6, -1, 6, -1, -1, -1, 14, -1, 14, -1, 14, -1, -1, -1, 6, -1, 6, -1, 6, -1, -1, -1, 14, -1, 14, -1, 14, -1, -1, -1);
    const __m256i opaque = _mm256_setr_epi16(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255);
    const __m256i zero = _mm256_setzero_si256(), half = _mm256_set1_epi16(128), divide = _mm256_set1_epi16(257);
    size_t i = 0;
    for (; i + 8 <= pixels; i += 8) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(in + 4 * i));
        __m256i lo = _mm256_unpacklo_epi8(v, zero), hi = _mm256_unpackhi_epi8(v, zero);
        const __m256i alo = _mm256_or_si256(_mm256_shuffle_epi8(lo, spread), opaque);
        const __m256i ahi = _mm256_or_si256(_mm256_shuffle_epi8(hi, spread), opaque);
        // (t + (t >> 8)) >> 8 with t = c * a + 128 equals (t * 257) >> 16 for t < 65536.
        lo = _mm256_mulhi_epu16(_mm256_add_epi16(_mm256_mullo_epi16(lo, alo), half), divide);
        hi = _mm256_mulhi_epu16(_mm256_add_epi16(_mm256_mullo_epi16(hi, ahi), half), divide);
        _mm256_storeu_si256((__m256i *)(out + 4 * i), _mm256_packus_epi16(lo, hi));
    }
    for (; i < pixels; i++) {
        const uint32_t a = in[4 * i + 3];
        for (int c = 0; c < 3; c++) {
            const uint32_t t = (uint32_t)in[4 * i + c] * a + 128;
            out[4 * i + c] = (uint8_t)((t + (t >> 8)) >> 8);
        }
        out[4 * i + 3] = (uint8_t)a;
    }
}

#endif
