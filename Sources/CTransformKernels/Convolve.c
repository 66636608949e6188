#include "Internal.h"
#include <stdlib.h>
#include <string.h>

// Portable kernels, and the dispatch to the AVX2 ones when the CPU has AVX2.

/// The highest kernel level allowed: 0 portable, 1 AVX2, 2 AVX-512 VNNI; -1 until first read
/// from `IMAGEKERNEL_SIMD` (default 2).
static int simd_enabled = -1;

void ik_set_simd_enabled(int enabled) { __atomic_store_n(&simd_enabled, enabled, __ATOMIC_RELAXED); }

static int simd_limit(void) {
    int limit = __atomic_load_n(&simd_enabled, __ATOMIC_RELAXED);
    if (limit >= 0) return limit;
    const char *text = getenv("IMAGEKERNEL_SIMD");
    limit = text && text[0] >= '0' && text[0] <= '2' && text[1] == 0 ? text[0] - '0' : 2;
    int unset = -1;
    // A concurrent ik_set_simd_enabled wins over the environment.
    if (!__atomic_compare_exchange_n(&simd_enabled, &unset, limit, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return unset;
    return limit;
}

int ik_simd_level(void) {
#if defined(__x86_64__)
    int enabled = simd_limit();
    if (!enabled || !__builtin_cpu_supports("avx2")) return 0;
    if (enabled > 1 && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni")) return 2;
    return 1;
#else
    return 0;
#endif
}

static void convolve_row_portable(const uint8_t *in, uint8_t *out, int channels, const ik_taps *t) {
    const int32_t round = 1 << (t->precision - 1);
    for (int32_t i = 0; i < t->count; i++) {
        const uint8_t *p = in + (size_t)t->starts[i] * channels;
        const int16_t *k = t->coefficients + t->offsets[i];
        int32_t s[4] = {round, round, round, round};
        for (int32_t j = 0; j < t->counts[i]; j++) {
            for (int c = 0; c < channels; c++) s[c] += (int32_t)p[j * channels + c] * k[j];
        }
        for (int c = 0; c < channels; c++) out[(size_t)i * channels + c] = ik_clamp_u8(s[c], t->precision);
    }
}

void ik_convolve_rows_u8(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_taps *taps) {
#if defined(__x86_64__)
    if (channels == 1) {
        switch (ik_simd_level()) {
        case 2: ik_convolve_rows_gray_u8_vnni(in, out, rows, taps); return;
        case 1: ik_convolve_rows_gray_u8_avx2(in, out, rows, taps); return;
        default: break;
        }
    }
    if (channels == 3 || channels == 4) {
        switch (ik_simd_level()) {
        case 2: ik_convolve_rows_u8_vnni(in, out, rows, channels, taps); return;
        case 1: ik_convolve_rows_u8_avx2(in, out, rows, channels, taps); return;
        default: break;
        }
    }
#endif
    for (int r = 0; r < rows; r++) convolve_row_portable(in[r], out[r], channels, taps);
}

void ik_convolve_columns_u8(
    const uint8_t *const *rows, int32_t count, const int16_t *coefficients, int32_t precision, uint8_t *out, size_t bytes) {
#if defined(__x86_64__)
    switch (ik_simd_level()) {
    case 2: ik_convolve_columns_u8_vnni(rows, count, coefficients, precision, out, bytes); return;
    case 1: ik_convolve_columns_u8_avx2(rows, count, coefficients, precision, out, bytes); return;
    default: break;
    }
#endif
    const int32_t round = 1 << (precision - 1);
    for (size_t x = 0; x < bytes; x++) {
        int32_t s = round;
        for (int32_t k = 0; k < count; k++) s += (int32_t)rows[k][x] * coefficients[k];
        out[x] = ik_clamp_u8(s, precision);
    }
}

void ik_convolve_columns2_u8(
    const uint8_t *const *rows, int32_t count, const int16_t *k0, const int16_t *k1, int32_t precision, uint8_t *out0, uint8_t *out1,
    size_t bytes) {
#if defined(__x86_64__)
    switch (ik_simd_level()) {
    case 2: ik_convolve_columns2_u8_vnni(rows, count, k0, k1, precision, out0, out1, bytes); return;
    case 1: ik_convolve_columns2_u8_avx2(rows, count, k0, k1, precision, out0, out1, bytes); return;
    default: break;
    }
#endif
    ik_convolve_columns_u8(rows, count, k0, precision, out0, bytes);
    ik_convolve_columns_u8(rows, count, k1, precision, out1, bytes);
}

void ik_convolve_rows_paired_u8(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_pair_taps *t) {
#if defined(__x86_64__)
    if (channels == 3 || channels == 4) {
        switch (ik_simd_level()) {
        case 2: ik_convolve_rows_paired_u8_vnni(in, out, rows, channels, t); return;
        case 1: ik_convolve_rows_paired_u8_avx2(in, out, rows, channels, t); return;
        default: break;
        }
    }
#endif
    const int32_t round = 1 << (t->precision - 1);
    for (int r = 0; r < rows; r++) {
        for (int32_t p = 0; p < t->count; p++) {
            const uint8_t *src = in[r] + (size_t)t->starts[p] * channels;
            for (int32_t o = 0; o < 2 && 2 * p + o < t->outputs; o++) {
                const int16_t *k = t->coefficients + t->offsets[p] + o * t->strides[p];
                int32_t s[4] = {round, round, round, round};
                for (int32_t j = 0; j < t->counts[p]; j++) {
                    for (int c = 0; c < channels; c++) s[c] += (int32_t)src[j * channels + c] * k[j];
                }
                for (int c = 0; c < channels; c++) out[r][(size_t)(2 * p + o) * channels + c] = ik_clamp_u8(s[c], t->precision);
            }
        }
    }
}
