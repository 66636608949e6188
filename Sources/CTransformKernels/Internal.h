#ifndef C_TRANSFORM_KERNELS_INTERNAL_H
#define C_TRANSFORM_KERNELS_INTERNAL_H

#include "include/CTransformKernels.h"

/// Rounds a fixed-point sum with `precision` fractional bits (rounding term already added) and clamps to a byte.
static inline uint8_t ik_clamp_u8(int32_t sum, int32_t precision) {
    int32_t v = sum >> precision;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

#if defined(__x86_64__)
void ik_convolve_rows_u8_avx2(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_taps *taps);
void ik_convolve_rows_gray_u8_avx2(const uint8_t *const *in, uint8_t *const *out, int rows, const ik_taps *taps);
void ik_convolve_rows_paired_u8_avx2(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_pair_taps *taps);
void ik_convolve_rows_u8_vnni(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_taps *taps);
void ik_convolve_rows_gray_u8_vnni(const uint8_t *const *in, uint8_t *const *out, int rows, const ik_taps *taps);
void ik_convolve_rows_paired_u8_vnni(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_pair_taps *taps);
void ik_convolve_columns_u8_vnni(
    const uint8_t *const *rows, int32_t count, const int16_t *coefficients, int32_t precision, uint8_t *out, size_t bytes);
void ik_convolve_columns2_u8_vnni(
    const uint8_t *const *rows, int32_t count, const int16_t *k0, const int16_t *k1, int32_t precision, uint8_t *out0, uint8_t *out1,
    size_t bytes);
void ik_transpose_u8_avx512(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride, int width, int height);
void ik_premultiply_rgba8_avx2(const uint8_t *in, uint8_t *out, size_t pixels);
void ik_convolve_columns_u8_avx2(
    const uint8_t *const *rows, int32_t count, const int16_t *coefficients, int32_t precision, uint8_t *out, size_t bytes);
void ik_convolve_columns2_u8_avx2(
    const uint8_t *const *rows, int32_t count, const int16_t *k0, const int16_t *k1, int32_t precision, uint8_t *out0, uint8_t *out1,
    size_t bytes);
#endif

#endif
