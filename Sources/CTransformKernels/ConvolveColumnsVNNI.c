#if defined(__x86_64__)
#include "Internal.h"
#include <immintrin.h>
#include <string.h>

// The vertical (column) kernels of the VNNI level on 512-bit registers: 64 samples per step, the
// last step of a row under a byte mask, so no sample takes a scalar path. The same integer sums
// as the other levels (two source rows interleaved, `vpdpwssd` applying two taps per product),
// so the same bytes. The shuffles that widen the samples bound these kernels; a 512-bit shuffle
// does twice the work of a 256-bit one.

#define IK_COLUMNS_TARGET __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

static inline int32_t columns_pair(const int16_t *k) {
    int32_t v;
    memcpy(&v, k, sizeof v);
    return v;
}

/// The bytes `x ..< bytes` of a row, at most 64.
IK_COLUMNS_TARGET static inline __mmask64 columns_mask(size_t x, size_t bytes) {
    const size_t left = bytes - x;
    return left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
}

/// Taps `k` and `k + 1` (or `k` alone, paired with zeros, when it is the last) of 64 samples
/// from `x`: the two rows' samples interleaved and widened to 16 bits in `w`, ready for
/// `vpdpwssd` with the tap pair `coefficients[k], coefficients[k + 1]`.
IK_COLUMNS_TARGET static inline void columns_widen(
    const uint8_t *const *rows, int32_t k, int32_t count, size_t x, __mmask64 m, __m512i w[4]) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i a = _mm512_maskz_loadu_epi8(m, rows[k] + x);
    const __m512i b = k + 1 < count ? _mm512_maskz_loadu_epi8(m, rows[k + 1] + x) : zero;
    const __m512i lo = _mm512_unpacklo_epi8(a, b), hi = _mm512_unpackhi_epi8(a, b);
    w[0] = _mm512_unpacklo_epi8(lo, zero);
    w[1] = _mm512_unpackhi_epi8(lo, zero);
    w[2] = _mm512_unpacklo_epi8(hi, zero);
    w[3] = _mm512_unpackhi_epi8(hi, zero);
}

/// The tap pair `k, k + 1` of `coefficients` in every 32-bit lane (the second 0 past the last).
IK_COLUMNS_TARGET static inline __m512i columns_taps(const int16_t *coefficients, int32_t k, int32_t count) {
    return _mm512_set1_epi32(k + 1 < count ? columns_pair(coefficients + k) : (uint16_t)coefficients[k]);
}

/// Rounds four sums of 16 samples each (as the unpacks ordered them) to 64 bytes.
IK_COLUMNS_TARGET static inline __m512i columns_round(__m512i s0, __m512i s1, __m512i s2, __m512i s3, __m128i shift) {
    const __m512i p0 = _mm512_packs_epi32(_mm512_sra_epi32(s0, shift), _mm512_sra_epi32(s1, shift));
    const __m512i p1 = _mm512_packs_epi32(_mm512_sra_epi32(s2, shift), _mm512_sra_epi32(s3, shift));
    return _mm512_packus_epi16(p0, p1);
}

IK_COLUMNS_TARGET void ik_convolve_columns_u8_vnni(
    const uint8_t *const *rows, int32_t count, const int16_t *coefficients, int32_t precision, uint8_t *out, size_t bytes) {
    const __m512i round = _mm512_set1_epi32(1 << (precision - 1));
    const __m128i shift = _mm_cvtsi32_si128(precision);
    for (size_t x = 0; x < bytes; x += 64) {
        const __mmask64 m = columns_mask(x, bytes);
        __m512i s0 = round, s1 = round, s2 = round, s3 = round;
        for (int32_t k = 0; k < count; k += 2) {
            __m512i w[4];
            columns_widen(rows, k, count, x, m, w);
            const __m512i c = columns_taps(coefficients, k, count);
            s0 = _mm512_dpwssd_epi32(s0, w[0], c);
            s1 = _mm512_dpwssd_epi32(s1, w[1], c);
            s2 = _mm512_dpwssd_epi32(s2, w[2], c);
            s3 = _mm512_dpwssd_epi32(s3, w[3], c);
        }
        _mm512_mask_storeu_epi8(out + x, m, columns_round(s0, s1, s2, s3, shift));
    }
}

IK_COLUMNS_TARGET void ik_convolve_columns2_u8_vnni(
    const uint8_t *const *rows, int32_t count, const int16_t *k0, const int16_t *k1, int32_t precision, uint8_t *out0, uint8_t *out1,
    size_t bytes) {
    // Two outputs over the same rows: the rows are loaded and widened once, multiplied twice.
    const __m512i round = _mm512_set1_epi32(1 << (precision - 1));
    const __m128i shift = _mm_cvtsi32_si128(precision);
    for (size_t x = 0; x < bytes; x += 64) {
        const __mmask64 m = columns_mask(x, bytes);
        __m512i s0 = round, s1 = round, s2 = round, s3 = round;
        __m512i t0 = round, t1 = round, t2 = round, t3 = round;
        for (int32_t k = 0; k < count; k += 2) {
            __m512i w[4];
            columns_widen(rows, k, count, x, m, w);
            const __m512i c = columns_taps(k0, k, count), d = columns_taps(k1, k, count);
            s0 = _mm512_dpwssd_epi32(s0, w[0], c);
            s1 = _mm512_dpwssd_epi32(s1, w[1], c);
            s2 = _mm512_dpwssd_epi32(s2, w[2], c);
            s3 = _mm512_dpwssd_epi32(s3, w[3], c);
            t0 = _mm512_dpwssd_epi32(t0, w[0], d);
            t1 = _mm512_dpwssd_epi32(t1, w[1], d);
            t2 = _mm512_dpwssd_epi32(t2, w[2], d);
            t3 = _mm512_dpwssd_epi32(t3, w[3], d);
        }
        _mm512_mask_storeu_epi8(out0 + x, m, columns_round(s0, s1, s2, s3, shift));
        _mm512_mask_storeu_epi8(out1 + x, m, columns_round(t0, t1, t2, t3, shift));
    }
}
#endif
