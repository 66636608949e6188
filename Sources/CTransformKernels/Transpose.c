#include "Internal.h"
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

// Byte-matrix transpose for the one-channel resize, which runs its horizontal taps down the
// columns of the transposed rows (see SeparableFilter+Transposed.swift).

#if defined(__x86_64__)
/// One 16x16 block by four rounds of SSE2 unpacks: bytes, then 2-, 4- and 8-byte groups, each
/// round pairing rows twice as far apart, until each register holds one column.
static void transpose16(const uint8_t *s, size_t ss, uint8_t *d, size_t ds) {
    __m128i r[16], a[8][2], b[4][4], c[2][8];
    for (int i = 0; i < 16; i++) r[i] = _mm_loadu_si128((const __m128i *)(s + (size_t)i * ss));
    for (int p = 0; p < 8; p++) {  // rows 2p, 2p + 1; columns 0-7 and 8-15
        a[p][0] = _mm_unpacklo_epi8(r[2 * p], r[2 * p + 1]);
        a[p][1] = _mm_unpackhi_epi8(r[2 * p], r[2 * p + 1]);
    }
    for (int q = 0; q < 4; q++) {  // rows 4q ..< 4q + 4; b[q][k]: columns 4k ..< 4k + 4
        for (int h = 0; h < 2; h++) {
            b[q][2 * h] = _mm_unpacklo_epi16(a[2 * q][h], a[2 * q + 1][h]);
            b[q][2 * h + 1] = _mm_unpackhi_epi16(a[2 * q][h], a[2 * q + 1][h]);
        }
    }
    for (int o = 0; o < 2; o++) {  // rows 8o ..< 8o + 8; c[o][m]: columns 2m, 2m + 1
        for (int k = 0; k < 4; k++) {
            c[o][2 * k] = _mm_unpacklo_epi32(b[2 * o][k], b[2 * o + 1][k]);
            c[o][2 * k + 1] = _mm_unpackhi_epi32(b[2 * o][k], b[2 * o + 1][k]);
        }
    }
    for (int m = 0; m < 8; m++) {  // column 2m and 2m + 1, all 16 rows
        _mm_storeu_si128((__m128i *)(d + (size_t)(2 * m) * ds), _mm_unpacklo_epi64(c[0][m], c[1][m]));
        _mm_storeu_si128((__m128i *)(d + (size_t)(2 * m + 1) * ds), _mm_unpackhi_epi64(c[0][m], c[1][m]));
    }
}
#endif

void ik_transpose_u8(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride, int width, int height) {
    int full_w = 0, full_h = 0;
#if defined(__x86_64__)
    if (ik_simd_level() >= 2) {
        ik_transpose_u8_avx512(src, src_stride, dst, dst_stride, width, height);
        return;
    }
    full_w = width & ~15;
    full_h = height & ~15;
    for (int y = 0; y < full_h; y += 16)
        for (int x = 0; x < full_w; x += 16) transpose16(src + (size_t)y * src_stride + x, src_stride, dst + (size_t)x * dst_stride + y, dst_stride);
#endif
    // The right columns of the block rows, then the bottom rows.
    for (int y = 0; y < full_h; y++)
        for (int x = full_w; x < width; x++) dst[(size_t)x * dst_stride + y] = src[(size_t)y * src_stride + x];
    for (int y = full_h; y < height; y++)
        for (int x = 0; x < width; x++) dst[(size_t)x * dst_stride + y] = src[(size_t)y * src_stride + x];
}
