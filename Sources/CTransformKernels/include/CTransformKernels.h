#ifndef C_TRANSFORM_KERNELS_H
#define C_TRANSFORM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Fixed-point taps of a 1-D convolution over 8-bit samples: output `i` is the sum over
/// `k < counts[i]` of `coefficients[offsets[i] + k]` times input pixel `starts[i] + k`, divided by
/// 2^precision with rounding and clamped to 0...255. Each output's coefficients are zero-padded to
/// a multiple of 4 (offsets are multiples of 4), so kernels may read 4 taps at a time.
typedef struct {
    int32_t count;
    const int32_t *starts;
    const int32_t *counts;
    const int32_t *offsets;
    const int16_t *coefficients;
    int32_t precision;
} ik_taps;

/// The horizontal pass over `rows` rows (1...4) with the same taps: `in[r]` into `out[r]`.
/// `channels` is 1...4 interleaved samples per pixel. Input pixel `starts[i]` is at
/// `in[r] + starts[i] * channels`; inputs must stay readable `IK_ROW_PADDING` bytes past the last
/// pixel any output uses. Each output row receives `count * channels` bytes. With one channel the
/// SIMD kernels read 16 coefficients from each output's offset: the coefficient array must stay
/// readable 16 past the last output's first (FixedPointTaps pads it with zeros).
void ik_convolve_rows_u8(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_taps *taps);

/// Horizontal taps for outputs in pairs: pair `p` computes outputs `2p` and `2p + 1` (the
/// second only while below `outputs`) from input pixels `starts[p] ..< starts[p] + counts[p]`
/// (the union of both outputs' taps), with coefficients at `offsets[p]` for the first output and
/// `offsets[p] + stride[p]` for the second, each zero-padded to `stride[p]`, a multiple of 4.
typedef struct {
    int32_t outputs;
    int32_t count;
    const int32_t *starts;
    const int32_t *counts;
    const int32_t *offsets;
    const int32_t *strides;
    const int16_t *coefficients;
    int32_t precision;
} ik_pair_taps;

/// As ``ik_convolve_rows_u8`` with paired taps: each loaded and widened group of pixels serves
/// two outputs, which pays when neighbouring outputs' taps overlap (blurs, enlargements, and
/// reductions by small factors).
void ik_convolve_rows_paired_u8(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_pair_taps *taps);

/// The vertical pass: `out[x]` (for `x < bytes`) is the sum over `k < count` of
/// `coefficients[k] * rows[k][x]`, rounded at `precision` fractional bits and clamped.
void ik_convolve_columns_u8(
    const uint8_t *const *rows, int32_t count, const int16_t *coefficients, int32_t precision, uint8_t *out, size_t bytes);

/// Two outputs of the vertical pass over the same `rows`, with coefficients `k0` and `k1`
/// (consecutive output rows of an enlargement share their source rows).
void ik_convolve_columns2_u8(
    const uint8_t *const *rows, int32_t count, const int16_t *k0, const int16_t *k1, int32_t precision, uint8_t *out0, uint8_t *out1,
    size_t bytes);

/// Straight to premultiplied alpha (alpha last; `channels` 2 or 4), rounding as Pillow's RGBa.
void ik_premultiply_u8(const uint8_t *in, uint8_t *out, size_t pixels, int channels);

/// Premultiplied back to straight alpha in place, rounding to nearest.
void ik_unpremultiply_u8(uint8_t *row, size_t pixels, int channels);

/// Bytes past a row's last used pixel that the horizontal pass may read.
#define IK_ROW_PADDING 64

/// The kernels that run: 2 AVX-512 VNNI with AVX-512BW (512-bit registers for the column kernels,
/// 256-bit for the others), 1 AVX2, 0 portable C; the highest the CPU has, up to the limit set
/// below.
int ik_simd_level(void);

/// `dst` row `x` (`dst_stride` apart) receives column `x` of the `width` x `height` bytes at `src`
/// (rows `src_stride` apart): `dst[x][y] = src[y][x]`.
void ik_transpose_u8(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride, int width, int height);

/// Limits the kernels for the whole process to `level` (0, 1 or 2; 2 by default); for tests
/// comparing each level with the portable kernels, and for benchmarks.
void ik_set_simd_enabled(int level);

#endif
