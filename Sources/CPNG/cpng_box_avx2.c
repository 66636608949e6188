/*
 * AVX2 kernels for 8-bit rows without alpha, used by cpng_box.c where the CPU has AVX2 (checked
 * once at run time); other CPUs keep cpng_box.c's SSE2 or plain C loops.
 *
 * Accumulating: 16 samples widened to 32 bits per step (two 8-lane vectors).
 *
 * Dividing (cpng_box_emit_u8's last step), in single-precision floats, 8 samples per vector.
 * Each output is q = ⌊X/d⌋ for X = box sum + ⌊d/2⌋ < 257·d, computed as ⌊fl(X · r)⌋ with r the
 * float 1/d rounded up. Exact for d ≤ 2^14:
 *   r lies in [1/d, (1/d)(1 + 2^-23)); X < 2^24 converts exactly.
 *   d divides X: X·r ≥ q, an integer below 2^24, so rounding to nearest cannot go below it, and
 *   X·r < q + 257·2^-23 stays far below q + 1.
 *   otherwise: X/d ≤ q + 1 − 1/d, so X·r < q + 1 − 1/d + 257·2^-23, and rounding adds at most half
 *   an ulp (2^-17 below 256); 1/d ≥ 2^-14 exceeds 257·2^-23 + 2^-17, so the floor is q.
 */
#include "cpng_internal.h"
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* The float just above or at 1/d. */
static float reciprocal_up(uint32_t d) {
    float r = 1.0f / (float)d;
    if ((double)r * (double)d < 1.0) {
        uint32_t bits; /* positive and finite: the next float up is the next bit pattern */
        memcpy(&bits, &r, sizeof bits);
        bits++;
        memcpy(&r, &bits, sizeof r);
    }
    return r;
}

static __attribute__((target("avx2"))) void divide_avx2(const uint32_t *restrict boxes, const uint32_t *restrict sample_masks,
                                                        size_t samples, uint32_t dn, uint32_t dw, uint8_t *restrict out) {
    const float rn = reciprocal_up(dn), rw = reciprocal_up(dw);
    const __m256 vrn = _mm256_set1_ps(rn), vrw = _mm256_set1_ps(rw);
    const __m256i vhn = _mm256_set1_epi32((int)(dn >> 1)), vhw = _mm256_set1_epi32((int)(dw >> 1));
    /* packs/packus work per 128-bit half: this puts the four quarter-vectors back in order. */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    size_t i = 0;
    for (; i + 32 <= samples; i += 32) {
        __m256i q[4];
        for (int j = 0; j < 4; j++) {
            const __m256i wide = _mm256_loadu_si256((const __m256i *)(sample_masks + i + 8 * j));
            const __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(boxes + i + 8 * j)), _mm256_blendv_epi8(vhn, vhw, wide));
            const __m256 r = _mm256_blendv_ps(vrn, vrw, _mm256_castsi256_ps(wide));
            q[j] = _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_cvtepi32_ps(x), r));
        }
        const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_permutevar8x32_epi32(bytes, order));
    }
    for (; i < samples; i++) {
        const int wide = sample_masks[i] != 0;
        out[i] = (uint8_t)(uint32_t)((float)(boxes[i] + ((wide ? dw : dn) >> 1)) * (wide ? rw : rn));
    }
}

static __attribute__((target("avx2"))) void accumulate_avx2(const uint8_t *restrict row, uint32_t *restrict sums, size_t samples,
                                                            int first) {
    size_t i = 0;
    for (; i + 16 <= samples; i += 16) {
        const __m128i bytes = _mm_loadu_si128((const __m128i *)(row + i));
        __m256i lo = _mm256_cvtepu8_epi32(bytes), hi = _mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8));
        if (!first) {
            lo = _mm256_add_epi32(lo, _mm256_loadu_si256((const __m256i *)(sums + i)));
            hi = _mm256_add_epi32(hi, _mm256_loadu_si256((const __m256i *)(sums + i + 8)));
        }
        _mm256_storeu_si256((__m256i *)(sums + i), lo);
        _mm256_storeu_si256((__m256i *)(sums + i + 8), hi);
    }
    for (; i < samples; i++) sums[i] = first ? row[i] : sums[i] + row[i];
}

/* The runtime's CPU model, filled in before main (a load and a test per call). */
static int has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#endif

int cpng_box_divide_float(const uint32_t *boxes, const uint32_t *sample_masks, size_t samples, uint32_t dn, uint32_t dw, uint8_t *out) {
#if defined(__x86_64__) || defined(__i386__)
    if (dn <= CPNG_BOX_FLOAT_LARGEST_DIVISOR && dw <= CPNG_BOX_FLOAT_LARGEST_DIVISOR && has_avx2()) {
        divide_avx2(boxes, sample_masks, samples, dn, dw, out);
        return 1;
    }
#else
    (void)boxes, (void)sample_masks, (void)samples, (void)dn, (void)dw, (void)out;
#endif
    return 0;
}

int cpng_box_accumulate_avx2(const uint8_t *row, uint32_t *sums, size_t samples, int first) {
#if defined(__x86_64__) || defined(__i386__)
    if (has_avx2()) {
        if (first) accumulate_avx2(row, sums, samples, 1);
        else accumulate_avx2(row, sums, samples, 0);
        return 1;
    }
#else
    (void)row, (void)sums, (void)samples, (void)first;
#endif
    return 0;
}
