/* YCbCr -> RGB for cjpeg_raw.c's row groups with AVX2: two columns (16 lanes) per vector, R and G
 * packed into one 16-bit lane so two transposes (not three) bring the group back to rows, and
 * each row's RGBX squeezed to RGB by one byte shuffle per 4 pixels. The arithmetic is
 * cjpeg_ycc_column's (cjpeg_raw.c) lane for lane, so the bytes are the same. */
#include "cjpeg_ycc.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* R, G and B of two columns (16 lanes), signed 16-bit, not yet clamped. */
static inline __attribute__((always_inline, target("avx2"))) void ycc_pair(const uint16_t *yv, const uint16_t *cbv,
                                                                           const uint16_t *crv, __m256i *r, __m256i *g, __m256i *b) {
    const __m256i center = _mm256_set1_epi16(128 << 7);
    __m256i y = _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)yv), _mm256_set1_epi16(64));
    __m256i cb = _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *)cbv), center);
    __m256i cr = _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *)crv), center);
    __m256i cb2 = _mm256_add_epi16(cb, cb), cr2 = _mm256_add_epi16(cr, cr);
    *r = _mm256_srai_epi16(_mm256_adds_epi16(y, _mm256_add_epi16(cr, _mm256_mulhi_epi16(cr2, _mm256_set1_epi16(CJPEG_K_CR_R)))), 7);
    *g = _mm256_srai_epi16(_mm256_subs_epi16(y, _mm256_add_epi16(_mm256_mulhi_epi16(cb2, _mm256_set1_epi16(CJPEG_K_CB_G)),
                                                                 _mm256_mulhi_epi16(cr2, _mm256_set1_epi16(CJPEG_K_CR_G)))), 7);
    *b = _mm256_srai_epi16(_mm256_adds_epi16(y, _mm256_add_epi16(cb, _mm256_mulhi_epi16(cb2, _mm256_set1_epi16(CJPEG_K_CB_B)))), 7);
}

__attribute__((target("avx2"))) int cjpeg_ycc_blocks_avx2(const uint16_t *yp, const uint16_t *cbp, const uint16_t *crp,
                                                          uint8_t *const rows[CJPEG_GROUP], int count, int tw) {
    /* Bytes r0..r7 g0..g7 (packus) to r0 g0 r1 g1 ...: lanes of R | G << 8. */
    const __m256i interleave = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15));
    /* RGBX RGBX RGBX RGBX to RGBRGBRGBRGB and four zero bytes. */
    const __m128i squeeze = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    const __m256i zero = _mm256_setzero_si256(), top = _mm256_set1_epi16(255);
    int x = 0;
    for (; x + 10 <= tw; x += 8) {
        __m128i rg[8], b[8];
        for (int i = 0; i < 8; i += 2) {
            const size_t o = (size_t)(x + i) * CJPEG_GROUP;
            __m256i r, g, bl;
            ycc_pair(yp + o, cbp + o, crp + o, &r, &g, &bl);
            const __m256i pair = _mm256_shuffle_epi8(_mm256_packus_epi16(r, g), interleave);
            const __m256i blue = _mm256_min_epi16(_mm256_max_epi16(bl, zero), top); /* packus's clamp, kept 16-bit */
            rg[i] = _mm256_castsi256_si128(pair);
            rg[i + 1] = _mm256_extracti128_si256(pair, 1);
            b[i] = _mm256_castsi256_si128(blue);
            b[i + 1] = _mm256_extracti128_si256(blue, 1);
        }
        cjpeg_transpose8(rg);
        cjpeg_transpose8(b);
        for (int lane = 0; lane < count; lane++) {
            uint8_t *o = rows[lane] + 3 * x;
            /* 16 bytes at 3x and at 3x + 12: the second ends 4 bytes into pixel x + 8, which the row
             * has (x + 10 <= tw) and a later block rewrites. */
            _mm_storeu_si128((__m128i *)o, _mm_shuffle_epi8(_mm_unpacklo_epi16(rg[lane], b[lane]), squeeze));
            _mm_storeu_si128((__m128i *)(o + 12), _mm_shuffle_epi8(_mm_unpackhi_epi16(rg[lane], b[lane]), squeeze));
        }
    }
    return x;
}
#else
int cjpeg_ycc_blocks_avx2(const uint16_t *yp, const uint16_t *cbp, const uint16_t *crp, uint8_t *const rows[CJPEG_GROUP],
                          int count, int tw) {
    (void)yp, (void)cbp, (void)crp, (void)rows, (void)count, (void)tw;
    return 0;
}
#endif
