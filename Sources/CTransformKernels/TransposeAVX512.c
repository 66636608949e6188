#if defined(__x86_64__)
#include "Internal.h"
#include <immintrin.h>

// The byte transpose on 512-bit registers (AVX-512BW): 16 rows of 64 columns at a time, four
// 16x16 blocks side by side in the four 128-bit lanes, through the same four rounds of in-lane
// unpacks as Transpose.c's SSE2 block. Partial blocks at the right and bottom edges load and
// store under byte masks, so no byte takes a scalar path.

#define IK_TRANSPOSE_TARGET __attribute__((target("avx2,avx512f,avx512bw,avx512vl")))

/// Stores lane `L` of `v` (destination row `16 L + column` of the block) when that row exists.
#define IK_STORE_LANE(v, L)                                                                      \
    if (16 * (L) + column < columns)                                                             \
        _mm_mask_storeu_epi8(d + (size_t)(16 * (L) + column) * ds, keep, _mm512_extracti32x4_epi32(v, L))

/// `rows` (at most 16) x `columns` (at most 64) bytes at `s` into `columns` rows of `rows` bytes at `d`.
IK_TRANSPOSE_TARGET static inline void transpose16x64(const uint8_t *s, size_t ss, int rows, int columns, uint8_t *d, size_t ds) {
    const __mmask64 take = columns >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << columns) - 1);
    const __mmask16 keep = rows >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << rows) - 1);
    __m512i r[16], a[8][2], b[4][4], c[2][8];
#pragma clang loop unroll(full)
    for (int i = 0; i < 16; i++) r[i] = i < rows ? _mm512_maskz_loadu_epi8(take, s + (size_t)i * ss) : _mm512_setzero_si512();
#pragma clang loop unroll(full)
    for (int p = 0; p < 8; p++) {
        a[p][0] = _mm512_unpacklo_epi8(r[2 * p], r[2 * p + 1]);
        a[p][1] = _mm512_unpackhi_epi8(r[2 * p], r[2 * p + 1]);
    }
#pragma clang loop unroll(full)
    for (int q = 0; q < 4; q++) {
        for (int h = 0; h < 2; h++) {
            b[q][2 * h] = _mm512_unpacklo_epi16(a[2 * q][h], a[2 * q + 1][h]);
            b[q][2 * h + 1] = _mm512_unpackhi_epi16(a[2 * q][h], a[2 * q + 1][h]);
        }
    }
#pragma clang loop unroll(full)
    for (int o = 0; o < 2; o++) {
        for (int k = 0; k < 4; k++) {
            c[o][2 * k] = _mm512_unpacklo_epi32(b[2 * o][k], b[2 * o + 1][k]);
            c[o][2 * k + 1] = _mm512_unpackhi_epi32(b[2 * o][k], b[2 * o + 1][k]);
        }
    }
#pragma clang loop unroll(full)
    for (int m = 0; m < 8; m++) {
        for (int j = 0; j < 2; j++) {
            // Column 2m + j of each lane's block, all 16 rows.
            const __m512i v = j ? _mm512_unpackhi_epi64(c[0][m], c[1][m]) : _mm512_unpacklo_epi64(c[0][m], c[1][m]);
            const int column = 2 * m + j;
            IK_STORE_LANE(v, 0);
            IK_STORE_LANE(v, 1);
            IK_STORE_LANE(v, 2);
            IK_STORE_LANE(v, 3);
        }
    }
}

IK_TRANSPOSE_TARGET void ik_transpose_u8_avx512(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride, int width, int height) {
    for (int y = 0; y < height; y += 16) {
        const int rows = height - y < 16 ? height - y : 16;
        for (int x = 0; x < width; x += 64) {
            const int columns = width - x < 64 ? width - x : 64;
            transpose16x64(src + (size_t)y * src_stride + x, src_stride, rows, columns, dst + (size_t)x * dst_stride + y, dst_stride);
        }
    }
}
#endif
