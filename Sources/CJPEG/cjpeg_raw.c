/* Thumbnails from libjpeg's raw (downsampled) YCbCr planes: no full-size chroma upsampling and no
 * full-size colour conversion. Each plane is area-averaged straight to the target size (the chroma
 * planes from their own, subsampled, grid), then converted to RGB at the target size. */
#include <stdlib.h>
#include <string.h>

#include "cjpeg_internal.h"
#include "cjpeg_ycc.h"

/* Scales with fast IDCTs only (as the thumbnail planner picks). Sampling this path handles: three components, YCbCr, luma 1x1, 2x1 or 2x2, chroma 1x1. */
static int cjpeg_raw_sampling_ok(j_decompress_ptr cinfo) {
    if (cinfo->num_components != 3 || cinfo->jpeg_color_space != JCS_YCbCr) return 0;
    jpeg_component_info *c = cinfo->comp_info;
    if (c[1].h_samp_factor != 1 || c[1].v_samp_factor != 1 || c[2].h_samp_factor != 1 || c[2].v_samp_factor != 1)
        return 0;
    int h = c[0].h_samp_factor, v = c[0].v_samp_factor;
    return (h == 1 && v == 1) || (h == 2 && v == 1) || (h == 2 && v == 2);
}

int cjpeg_decoder_raw_eligible(const cjpeg_decoder *decoder, int scale_num) {
    if (!decoder->header_read || decoder->started || decoder->poisoned) return 0;
    return (scale_num == 8 || scale_num == 4 || scale_num == 2 || scale_num == 1) && cjpeg_raw_sampling_ok((j_decompress_ptr)&decoder->cinfo);
}

int cjpeg_decoder_start_raw(cjpeg_decoder *decoder, int scale_num, uint32_t *width, uint32_t *height) {
    if (!decoder->header_read || decoder->started) return cjpeg_usage_error(decoder, "start outside the header state");
    if (!cjpeg_decoder_raw_eligible(decoder, scale_num)) return cjpeg_usage_error(decoder, "raw decode of an ineligible JPEG");
    CJPEG_GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    cinfo->scale_num = (unsigned int)scale_num;
    cinfo->scale_denom = 8;
    cinfo->out_color_space = JCS_YCbCr;
    cinfo->raw_data_out = TRUE;
    decoder->cmyk = 0;
    if (!jpeg_start_decompress(cinfo)) return CJPEG_SUSPENDED;
    decoder->started = 1;
    decoder->raw = 1;
    *width = cinfo->output_width;
    *height = cinfo->output_height;
    return CJPEG_OK;
}

/* Area-average windows along one axis: output i covers source [i*scale, (i+1)*scale), clipped to
 * the source; `taps` weights per output (padded with zeros, windows kept inside the source), each
 * window summing to `unit`. */
typedef struct {
    int taps;
    int *first;
    int *weights;
} cjpeg_spans;

/* Window i covers source [i * num / den, (i + 1) * num / den), clipped to the source; exact
 * integer arithmetic in units of 1/den. The windows move forward monotonically, so each bound is
 * advanced rather than divided for, and the weights divide by the window's length only. */
static int cjpeg_spans_taps(int source, int64_t num, int64_t den) {
    /* A window of length num/den touches at most floor(num/den) + 2 samples. */
    int64_t taps = num / den + 2;
    return taps > source ? source : (int)taps;
}

#define CJPEG_SPANS_FILL(NAME, T) \
static void NAME(cjpeg_spans *spans, int source, int target, T num, T den, int unit, int period, int shift) { \
    int taps = spans->taps; \
    T limit = (T)source * den; \
    int low = 0; \
    const double inv_num = 1.0 / (double)num; /* every window but a clipped last one is num long */ \
    for (int i = 0; i < target; i++) { \
        if (i >= period) { \
            /* Window i is window i - period moved `shift` samples on, unless either is clamped at the end. */ \
            int f = spans->first[i - period] + shift; \
            if (f <= source - taps && (T)i * num + num <= limit) { \
                spans->first[i] = f; \
                memcpy(spans->weights + (size_t)i * taps, spans->weights + (size_t)(i - period) * taps, sizeof(int) * (size_t)taps); \
                low = f; \
                continue; \
            } \
        } \
        T start = (T)i * num, end = start + num; \
        if (end > limit) end = limit; \
        while (low < source - 1 && (T)(low + 1) * den <= start) low++; \
        int high = low; \
        while (high < source - 1 && (T)(high + 1) * den < end) high++; \
        int first = low < source - taps ? low : source - taps; \
        spans->first[i] = first; \
        int *w = spans->weights + (size_t)i * taps; \
        for (int k = 0; k < taps; k++) w[k] = 0; \
        T total = end - start; /* > 0: start < source * den for every i < target */ \
        int sum = 0, largest = low; \
        T best = -1; \
        double inv = total == num ? inv_num : 1.0 / (double)total; \
        for (int s = low; s <= high; s++) { \
            T lo = (T)s * den > start ? (T)s * den : start; \
            T hi = (T)(s + 1) * den < end ? (T)(s + 1) * den : end; \
            T overlap = hi > lo ? hi - lo : 0; \
            T x = overlap * unit + total / 2; \
            int fixed = (int)((double)x * inv); /* x / total, then made exact */ \
            if ((T)(fixed + 1) * total <= x) fixed++; \
            else if ((T)fixed * total > x) fixed--; \
            w[s - first] = fixed; \
            sum += fixed; \
            if (overlap > best) { best = overlap; largest = s; } \
        } \
        w[largest - first] += unit - sum; \
    } \
}

/* In 32-bit arithmetic when every product fits (any thumbnail of a photo), else in 64-bit. */
CJPEG_SPANS_FILL(cjpeg_spans_fill32, int32_t)
CJPEG_SPANS_FILL(cjpeg_spans_fill64, int64_t)

/* The windows repeat: window i + den/g starts num/g samples after window i (g = gcd(num, den)), with
 * the same weights. Only the first period is computed (and windows clamped at the end). */
static void cjpeg_spans_fill(cjpeg_spans *spans, int source, int target, int64_t num, int64_t den, int unit) {
    int64_t g = num, r = den;
    while (r != 0) {
        int64_t t = g % r;
        g = r;
        r = t;
    }
    int period = den / g < target ? (int)(den / g) : target, shift = period < target ? (int)(num / g) : 0;
    int64_t bound = (int64_t)target * num + num;
    if ((int64_t)source * den + den > bound) bound = (int64_t)source * den + den;
    if (bound < INT32_MAX / 2 && num * unit < INT32_MAX / 2)
        cjpeg_spans_fill32(spans, source, target, (int32_t)num, (int32_t)den, unit, period, shift);
    else
        cjpeg_spans_fill64(spans, source, target, num, den, unit, period, shift);
}

/* Vertical weights sum to 2^8 (sums stay in uint16 as 8.8 fixed point, so the row loop is a flat
 * 16-bit multiply-add the compiler vectorises); horizontal weights sum to 2^12. */
#define CJPEG_V_BITS 8
#define CJPEG_H_BITS 15

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Eight output rows are resampled together: their vertical sums (8 rows of a plane's width) are
 * transposed so the 8 rows of one column are one vector, the horizontal pass then runs on whole
 * vectors (one multiply-add per tap for 8 outputs), and the colour conversion works on the same
 * column-interleaved layout. */
/* (CJPEG_GROUP, 8: cjpeg_ycc.h.) */

/* (v * w) >> 16 per lane, horizontal weights summing to 2^15: each output is the sample with 7 fractional bits (0...32640),
 * each weight stored 8 times over (one vector per tap). */
static inline __attribute__((always_inline)) void cjpeg_hpass_taps(const uint16_t *restrict columns, const int *restrict first,
                                                                   const uint16_t *restrict weights, uint16_t *restrict out,
                                                                   int tw, int taps) {
    for (int x = 0; x < tw; x++) {
        const uint16_t *base = columns + (size_t)first[x] * CJPEG_GROUP;
        const uint16_t *w = weights + (size_t)x * taps * CJPEG_GROUP;
#if defined(__SSE2__)
        __m128i acc = _mm_setzero_si128();
        for (int k = 0; k < taps; k++)
            acc = _mm_add_epi16(acc, _mm_mulhi_epu16(_mm_loadu_si128((const __m128i *)(base + k * CJPEG_GROUP)),
                                                     _mm_loadu_si128((const __m128i *)(w + k * CJPEG_GROUP))));
        _mm_storeu_si128((__m128i *)(out + (size_t)x * CJPEG_GROUP), acc);
#else
        for (int lane = 0; lane < CJPEG_GROUP; lane++) {
            unsigned acc = 0;
            for (int k = 0; k < taps; k++) acc += ((unsigned)base[k * CJPEG_GROUP + lane] * w[k * CJPEG_GROUP]) >> 16;
            out[(size_t)x * CJPEG_GROUP + lane] = (uint16_t)acc;
        }
#endif
    }
}

static void cjpeg_hpass_group(const uint16_t *restrict columns, const cjpeg_spans *cols, const uint16_t *restrict weights,
                              uint16_t *restrict out, int tw) {
    switch (cols->taps) {
    case 1: cjpeg_hpass_taps(columns, cols->first, weights, out, tw, 1); break;
    case 2: cjpeg_hpass_taps(columns, cols->first, weights, out, tw, 2); break;
    case 3: cjpeg_hpass_taps(columns, cols->first, weights, out, tw, 3); break;
    case 4: cjpeg_hpass_taps(columns, cols->first, weights, out, tw, 4); break;
    default: cjpeg_hpass_taps(columns, cols->first, weights, out, tw, cols->taps); break;
    }
}

/* rows[0..8) (each `width` samples, readable up to a multiple of 8) into columns: column x's 8
 * samples at columns + 8x. */
static void cjpeg_transpose_group(uint16_t *const rows[CJPEG_GROUP], int width, uint16_t *restrict columns) {
    int x = 0;
#if defined(__SSE2__)
    for (; x + 8 <= width; x += 8) {
        __m128i a0 = _mm_loadu_si128((const __m128i *)(rows[0] + x)), a1 = _mm_loadu_si128((const __m128i *)(rows[1] + x));
        __m128i a2 = _mm_loadu_si128((const __m128i *)(rows[2] + x)), a3 = _mm_loadu_si128((const __m128i *)(rows[3] + x));
        __m128i a4 = _mm_loadu_si128((const __m128i *)(rows[4] + x)), a5 = _mm_loadu_si128((const __m128i *)(rows[5] + x));
        __m128i a6 = _mm_loadu_si128((const __m128i *)(rows[6] + x)), a7 = _mm_loadu_si128((const __m128i *)(rows[7] + x));
        __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
        __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
        __m128i b4 = _mm_unpacklo_epi16(a4, a5), b5 = _mm_unpackhi_epi16(a4, a5);
        __m128i b6 = _mm_unpacklo_epi16(a6, a7), b7 = _mm_unpackhi_epi16(a6, a7);
        __m128i c0 = _mm_unpacklo_epi32(b0, b2), c1 = _mm_unpackhi_epi32(b0, b2);
        __m128i c2 = _mm_unpacklo_epi32(b1, b3), c3 = _mm_unpackhi_epi32(b1, b3);
        __m128i c4 = _mm_unpacklo_epi32(b4, b6), c5 = _mm_unpackhi_epi32(b4, b6);
        __m128i c6 = _mm_unpacklo_epi32(b5, b7), c7 = _mm_unpackhi_epi32(b5, b7);
        __m128i *o = (__m128i *)(columns + (size_t)x * CJPEG_GROUP);
        _mm_storeu_si128(o + 0, _mm_unpacklo_epi64(c0, c4));
        _mm_storeu_si128(o + 1, _mm_unpackhi_epi64(c0, c4));
        _mm_storeu_si128(o + 2, _mm_unpacklo_epi64(c1, c5));
        _mm_storeu_si128(o + 3, _mm_unpackhi_epi64(c1, c5));
        _mm_storeu_si128(o + 4, _mm_unpacklo_epi64(c2, c6));
        _mm_storeu_si128(o + 5, _mm_unpackhi_epi64(c2, c6));
        _mm_storeu_si128(o + 6, _mm_unpacklo_epi64(c3, c7));
        _mm_storeu_si128(o + 7, _mm_unpackhi_epi64(c3, c7));
    }
#endif
    for (; x < width; x++)
        for (int r = 0; r < CJPEG_GROUP; r++) columns[(size_t)x * CJPEG_GROUP + r] = rows[r][x];
}

/* Up to CJPEG_VPASS_CHUNK source rows (`n` constant after inlining) weighted and added in
 * registers, the 8.8 sums stored (`add`: added to what `sums` holds) once per sample. */
#define CJPEG_VPASS_CHUNK 4
static inline __attribute__((always_inline)) void cjpeg_vpass_scalar(const uint8_t *const *restrict src, const uint16_t *restrict w,
                                                                     int n, int x, int width, int add, uint16_t *restrict sums) {
    for (; x < width; x++) {
        unsigned acc = add ? sums[x] : 0;
        for (int k = 0; k < n; k++) acc += (unsigned)src[k][x] * w[k];
        sums[x] = (uint16_t)acc;
    }
}

#if defined(__SSE2__)
static inline __attribute__((always_inline)) void cjpeg_vpass_sse2(const uint8_t *const *restrict src, const uint16_t *restrict w,
                                                                   int n, int width, int add, uint16_t *restrict sums) {
    const __m128i zero = _mm_setzero_si128();
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        __m128i acc = add ? _mm_loadu_si128((const __m128i *)(sums + x)) : zero;
        for (int k = 0; k < n; k++)
            acc = _mm_add_epi16(acc, _mm_mullo_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(src[k] + x)), zero),
                                                     _mm_set1_epi16((short)w[k])));
        _mm_storeu_si128((__m128i *)(sums + x), acc);
    }
    cjpeg_vpass_scalar(src, w, n, x, width, add, sums);
}
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CJPEG_HAVE_AVX2_PATH 1
/* The same with 16 samples per vector, for CPUs with AVX2 (cjpeg_has_avx2). */
static inline __attribute__((always_inline, target("avx2"))) void cjpeg_vpass_avx2_n(
    const uint8_t *const *restrict src, const uint16_t *restrict w, int n, int width, int add, uint16_t *restrict sums) {
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        __m256i acc = add ? _mm256_loadu_si256((const __m256i *)(sums + x)) : _mm256_setzero_si256();
        for (int k = 0; k < n; k++)
            acc = _mm256_add_epi16(acc, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src[k] + x))),
                                                           _mm256_set1_epi16((short)w[k])));
        _mm256_storeu_si256((__m256i *)(sums + x), acc);
    }
    cjpeg_vpass_scalar(src, w, n, x, width, add, sums);
}

static __attribute__((target("avx2"))) void cjpeg_vpass_avx2(const uint8_t *const *src, const uint16_t *w, int n, int width, int add,
                                                             uint16_t *sums) {
    switch (n) {
    case 1: cjpeg_vpass_avx2_n(src, w, 1, width, add, sums); break;
    case 2: cjpeg_vpass_avx2_n(src, w, 2, width, add, sums); break;
    case 3: cjpeg_vpass_avx2_n(src, w, 3, width, add, sums); break;
    default: cjpeg_vpass_avx2_n(src, w, 4, width, add, sums); break;
    }
}

/* The runtime's CPU model, filled in before main (a load and a test per call). */
static int cjpeg_has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#endif

/* `n` (1...CJPEG_VPASS_CHUNK) weighted rows into `sums`, stored or (`add`) added. */
static void cjpeg_vpass_chunk(const uint8_t *const *src, const uint16_t *w, int n, int width, int add, uint16_t *sums) {
#if defined(CJPEG_HAVE_AVX2_PATH)
    if (cjpeg_has_avx2()) {
        cjpeg_vpass_avx2(src, w, n, width, add, sums);
        return;
    }
#endif
#if defined(__SSE2__)
    switch (n) {
    case 1: cjpeg_vpass_sse2(src, w, 1, width, add, sums); break;
    case 2: cjpeg_vpass_sse2(src, w, 2, width, add, sums); break;
    case 3: cjpeg_vpass_sse2(src, w, 3, width, add, sums); break;
    default: cjpeg_vpass_sse2(src, w, 4, width, add, sums); break;
    }
#else
    cjpeg_vpass_scalar(src, w, n, 0, width, add, sums);
#endif
}

/* The vertical pass of output row y: 8.8 sums of its source rows, vertical weights summing to 2^8
 * (so every partial sum fits 16 bits). Rows of weight 0 are skipped; the others are added in
 * registers, a few at a time. */
static void cjpeg_vpass_row(const uint8_t *restrict ring, size_t stride, int ring_rows, int width, const cjpeg_spans *rows,
                            int y, uint16_t *restrict sums) {
    int vt = rows->taps;
    const int *vw = rows->weights + (size_t)y * vt;
    const uint8_t *src[CJPEG_VPASS_CHUNK];
    uint16_t w[CJPEG_VPASS_CHUNK];
    int n = 0, stored = 0;
    int r = rows->first[y] % ring_rows;
    for (int k = 0; k < vt; k++, r = r + 1 == ring_rows ? 0 : r + 1) {
        if (vw[k] == 0) continue;
        src[n] = ring + (size_t)r * stride;
        w[n++] = (uint16_t)vw[k];
        if (n == CJPEG_VPASS_CHUNK) {
            cjpeg_vpass_chunk(src, w, n, width, stored, sums);
            stored = 1;
            n = 0;
        }
    }
    if (n > 0) cjpeg_vpass_chunk(src, w, n, width, stored, sums);
    else if (!stored) memset(sums, 0, sizeof(uint16_t) * (size_t)width); /* not reached: weights sum to 2^8 */
}

/* JFIF YCbCr -> RGB (libjpeg's jdcolor.c: R = Y + 1.40200 Cr', G = Y - 0.34414 Cb' - 0.71414 Cr',
 * B = Y + 1.77200 Cb') on column-interleaved samples with 7 fractional bits, in signed 16-bit arithmetic as
 * libjpeg-turbo's SIMD does it: each coefficient split so the
 * multiplier fits (1.402 = 1 + 0.402, ...), mulhi = (a * b) >> 16 on 2a, saturating adds.
 * Writes pixel x of the group's row r at rows[r] + 3x. */
/* (The coefficients CJPEG_K_*: cjpeg_ycc.h.) */

static inline __attribute__((unused)) int16_t cjpeg_sat16(int v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }
static inline __attribute__((unused)) int cjpeg_mulhi(int a, int b) { return (a * b) >> 16; }
static inline __attribute__((unused)) uint8_t cjpeg_clamp8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

#if defined(__SSE2__)
/* R, G and B of one column (8 rows) as signed 16-bit, not yet clamped. */
static inline void cjpeg_ycc_column(const uint16_t *yv, const uint16_t *cbv, const uint16_t *crv, __m128i *r, __m128i *g,
                                    __m128i *b) {
    __m128i center = _mm_set1_epi16(128 << 7);
    __m128i y = _mm_add_epi16(_mm_loadu_si128((const __m128i *)yv), _mm_set1_epi16(64));
    __m128i cb = _mm_sub_epi16(_mm_loadu_si128((const __m128i *)cbv), center);
    __m128i cr = _mm_sub_epi16(_mm_loadu_si128((const __m128i *)crv), center);
    __m128i cb2 = _mm_add_epi16(cb, cb), cr2 = _mm_add_epi16(cr, cr);
    *r = _mm_srai_epi16(_mm_adds_epi16(y, _mm_add_epi16(cr, _mm_mulhi_epi16(cr2, _mm_set1_epi16(CJPEG_K_CR_R)))), 7);
    *g = _mm_srai_epi16(_mm_subs_epi16(y, _mm_add_epi16(_mm_mulhi_epi16(cb2, _mm_set1_epi16(CJPEG_K_CB_G)),
                                                        _mm_mulhi_epi16(cr2, _mm_set1_epi16(CJPEG_K_CR_G)))), 7);
    *b = _mm_srai_epi16(_mm_adds_epi16(y, _mm_add_epi16(cb, _mm_mulhi_epi16(cb2, _mm_set1_epi16(CJPEG_K_CB_B)))), 7);
}
#endif

static void cjpeg_ycc_group_to_rgb(const uint16_t *restrict yp, const uint16_t *restrict cbp, const uint16_t *restrict crp,
                                   uint8_t *const rows[CJPEG_GROUP], int count, int tw) {
    int x = 0;
#if defined(CJPEG_HAVE_AVX2_PATH)
    if (cjpeg_has_avx2()) x = cjpeg_ycc_blocks_avx2(yp, cbp, crp, rows, count, tw);
#endif
#if defined(__SSE2__)
    /* Eight columns at a time: transposed back to rows, packed to bytes, interleaved to RGBX and
     * stored as overlapping 8-byte pairs of pixels (the row's last block is stored exactly). */
    for (; x + 8 <= tw; x += 8) {
        __m128i R[8], G[8], B[8];
        for (int i = 0; i < 8; i++) {
            size_t o = (size_t)(x + i) * CJPEG_GROUP;
            cjpeg_ycc_column(yp + o, cbp + o, crp + o, &R[i], &G[i], &B[i]);
        }
        cjpeg_transpose8(R);
        cjpeg_transpose8(G);
        cjpeg_transpose8(B);
        for (int lane = 0; lane < count; lane++) {
            __m128i rg = _mm_packus_epi16(R[lane], G[lane]);
            __m128i b8 = _mm_packus_epi16(B[lane], B[lane]);
            __m128i rgi = _mm_unpacklo_epi8(rg, _mm_srli_si128(rg, 8));
            __m128i bz = _mm_unpacklo_epi8(b8, _mm_setzero_si128());
            __m128i lo = _mm_unpacklo_epi16(rgi, bz), hi = _mm_unpackhi_epi16(rgi, bz);
            uint8_t *o = rows[lane] + 3 * x;
            if (x + 8 < tw) {
                /* Each 64-bit lane holds two RGBX pixels; squeeze out the X to 6 bytes and store
                 * 8, the last 2 overwritten by the next store (or the next block). */
                __m128i m0 = _mm_set1_epi64x(0xFFFFFF), m1 = _mm_set1_epi64x(0xFFFFFF000000);
                __m128i plo = _mm_or_si128(_mm_and_si128(lo, m0), _mm_and_si128(_mm_srli_epi64(lo, 8), m1));
                __m128i phi = _mm_or_si128(_mm_and_si128(hi, m0), _mm_and_si128(_mm_srli_epi64(hi, 8), m1));
                _mm_storel_epi64((__m128i *)o, plo);
                _mm_storel_epi64((__m128i *)(o + 6), _mm_unpackhi_epi64(plo, plo));
                _mm_storel_epi64((__m128i *)(o + 12), phi);
                _mm_storel_epi64((__m128i *)(o + 18), _mm_unpackhi_epi64(phi, phi));
            } else {
                uint8_t t[32];
                _mm_storeu_si128((__m128i *)t, lo);
                _mm_storeu_si128((__m128i *)(t + 16), hi);
                for (int i = 0; i < 8; i++) memcpy(o + 3 * i, t + 4 * i, 3);
            }
        }
    }
#endif
    for (; x < tw; x++) {
        const uint16_t *yv = yp + (size_t)x * CJPEG_GROUP, *cbv = cbp + (size_t)x * CJPEG_GROUP, *crv = crp + (size_t)x * CJPEG_GROUP;
        uint8_t px[3 * CJPEG_GROUP];
#if defined(__SSE2__)
        __m128i r, g, b;
        cjpeg_ycc_column(yv, cbv, crv, &r, &g, &b);
        _mm_storeu_si128((__m128i *)px, _mm_packus_epi16(r, g));
        _mm_storel_epi64((__m128i *)(px + 16), _mm_packus_epi16(b, b));
#else
        for (int lane = 0; lane < CJPEG_GROUP; lane++) {
            int y = yv[lane] + 64;
            int cb = cbv[lane] - (128 << 7), cr = crv[lane] - (128 << 7);
            int r = cjpeg_sat16(y + (int16_t)(cr + cjpeg_mulhi(2 * cr, CJPEG_K_CR_R)));
            int g = cjpeg_sat16(y - (int16_t)(cjpeg_mulhi(2 * cb, CJPEG_K_CB_G) + cjpeg_mulhi(2 * cr, CJPEG_K_CR_G)));
            int b = cjpeg_sat16(y + (int16_t)(cb + cjpeg_mulhi(2 * cb, CJPEG_K_CB_B)));
            px[lane] = cjpeg_clamp8(r >> 7);
            px[CJPEG_GROUP + lane] = cjpeg_clamp8(g >> 7);
            px[2 * CJPEG_GROUP + lane] = cjpeg_clamp8(b >> 7);
        }
#endif
        for (int lane = 0; lane < count; lane++) {
            uint8_t *o = rows[lane] + 3 * x;
            o[0] = px[lane];
            o[1] = px[CJPEG_GROUP + lane];
            o[2] = px[2 * CJPEG_GROUP + lane];
        }
    }
}

static void *cjpeg_raw_alloc(cjpeg_decoder *decoder, size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) cjpeg_fail((j_common_ptr)&decoder->cinfo, CJPEG_FAILURE_NO_MEMORY, "out of memory for raw planes");
    decoder->raw_blocks[decoder->raw_block_count++] = p;
    return p;
}

void cjpeg_raw_release(cjpeg_decoder *decoder) {
    for (int i = 0; i < decoder->raw_block_count; i++) free(decoder->raw_blocks[i]);
    decoder->raw_block_count = 0;
}

int cjpeg_decoder_read_raw_resampled(cjpeg_decoder *decoder, uint32_t target_width, uint32_t target_height,
                                     uint8_t *dst, size_t dst_stride) {
    if (!decoder->started || !decoder->raw || decoder->finished || target_width == 0 || target_height == 0)
        return cjpeg_usage_error(decoder, "read_raw_resampled outside a started raw decode");
    CJPEG_GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    int tw = (int)target_width, th = (int)target_height;
    int group = cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size; /* rows of one jpeg_read_raw_data */
    JDIMENSION groups = (cinfo->output_height + group - 1) / group;
    uint8_t *planes[3]; /* rings of ring_rows[c] rows: plane row r lives at r % ring_rows[c] */
    size_t strides[3];
    int comp_rows[3], ring_rows[3], read_rows[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++) {
        jpeg_component_info *comp = &cinfo->comp_info[c];
        comp_rows[c] = comp->v_samp_factor * comp->DCT_scaled_size;
        /* libjpeg writes whole blocks: rows of the padded width. */
        strides[c] = ((size_t)comp->width_in_blocks + comp->h_samp_factor) * comp->DCT_scaled_size;
    }
    /* Spans of each plane, from its own sampling grid to the target. */
    jpeg_component_info *luma = &cinfo->comp_info[0];
    cjpeg_spans cols[3], rows[3];
    uint16_t *hweights[3];
    int widths[3];
    size_t widest = 8;
    for (int c = 0; c < 3; c++) {
        jpeg_component_info *comp = &cinfo->comp_info[c];
        int w = (int)comp->downsampled_width, h = (int)comp->downsampled_height;
        widths[c] = w;
        if ((size_t)w + 8 > widest) widest = (size_t)w + 8;
        if (c == 2) {
            /* Cr has Cb's sampling (cjpeg_raw_sampling_ok): the same spans and weights. */
            cols[2] = cols[1];
            rows[2] = rows[1];
            hweights[2] = hweights[1];
            continue;
        }
        /* One sample of this plane spans (lh lD)/(ch cD) luma samples across, and likewise down, so
         * output x covers plane samples [x W ch cD / (tw lh lD), ...). */
        int64_t xnum = (int64_t)cinfo->output_width * comp->h_samp_factor * comp->DCT_scaled_size;
        int64_t xden = (int64_t)tw * luma->h_samp_factor * luma->DCT_scaled_size;
        int64_t ynum = (int64_t)cinfo->output_height * comp->v_samp_factor * comp->DCT_scaled_size;
        int64_t yden = (int64_t)th * luma->v_samp_factor * luma->DCT_scaled_size;
        cols[c].taps = cjpeg_spans_taps(w, xnum, xden);
        rows[c].taps = cjpeg_spans_taps(h, ynum, yden);
        cols[c].first = cjpeg_raw_alloc(decoder, sizeof(int) * (size_t)tw * (1 + cols[c].taps));
        cols[c].weights = cols[c].first + tw;
        rows[c].first = cjpeg_raw_alloc(decoder, sizeof(int) * (size_t)th * (1 + rows[c].taps));
        rows[c].weights = rows[c].first + th;
        cjpeg_spans_fill(&cols[c], w, tw, xnum, xden, 1 << CJPEG_H_BITS);
        cjpeg_spans_fill(&rows[c], h, th, ynum, yden, 1 << CJPEG_V_BITS);
        hweights[c] = cjpeg_raw_alloc(decoder, sizeof(uint16_t) * (size_t)tw * cols[c].taps * CJPEG_GROUP);
        for (size_t i = 0; i < (size_t)tw * cols[c].taps; i++)
            for (int lane = 0; lane < CJPEG_GROUP; lane++) hweights[c][i * CJPEG_GROUP + lane] = (uint16_t)cols[c].weights[i];
    }
    /* Each ring holds the rows the widest group of 8 output rows reads, plus two row groups of
     * libjpeg's output (the planes advance together, so one may run ahead of its need). */
    for (int c = 0; c < 3; c++) {
        int most = 1;
        for (int y0 = 0; y0 < th; y0 += CJPEG_GROUP) {
            int last = y0 + CJPEG_GROUP - 1 < th ? y0 + CJPEG_GROUP - 1 : th - 1;
            int span = rows[c].first[last] + rows[c].taps - rows[c].first[y0];
            if (span > most) most = span;
        }
        int ring = (most + 3 * comp_rows[c] - 1) / comp_rows[c] * comp_rows[c];
        int whole = (int)groups * comp_rows[c];
        ring_rows[c] = ring < whole ? ring : whole;
        planes[c] = cjpeg_raw_alloc(decoder, strides[c] * (size_t)ring_rows[c]);
    }
    JSAMPROW pointers[3][2 * DCTSIZE * 2];
    JSAMPARRAY arrays[3] = {pointers[0], pointers[1], pointers[2]};
    /* Work space: 8 rows of sums, their transpose, 8 output rows per plane, and RGB. */
    uint16_t *work = cjpeg_raw_alloc(decoder, sizeof(uint16_t) * (widest * CJPEG_GROUP * 2 + (size_t)tw * CJPEG_GROUP * 3));
    uint16_t *sum_rows[CJPEG_GROUP];
    for (int r = 0; r < CJPEG_GROUP; r++) sum_rows[r] = work + widest * r;
    uint16_t *columns = work + widest * CJPEG_GROUP;
    uint16_t *fixed = columns + widest * CJPEG_GROUP;
    for (int y0 = 0; y0 < th; y0 += CJPEG_GROUP) {
        int count = th - y0 < CJPEG_GROUP ? th - y0 : CJPEG_GROUP;
        /* Read row groups until every plane holds the rows these output rows read. */
        for (;;) {
            int behind = 0;
            for (int c = 0; c < 3; c++) {
                int need = rows[c].first[y0 + count - 1] + rows[c].taps;
                if (read_rows[c] < need) behind = 1;
            }
            if (!behind || cinfo->output_scanline >= cinfo->output_height) break;
            for (int c = 0; c < 3; c++) {
                for (int r = 0; r < comp_rows[c]; r++)
                    pointers[c][r] = planes[c] + (size_t)((read_rows[c] + r) % ring_rows[c]) * strides[c];
            }
            if (jpeg_read_raw_data(cinfo, arrays, (JDIMENSION)group) == 0) return CJPEG_SUSPENDED;
            for (int c = 0; c < 3; c++) read_rows[c] += comp_rows[c];
        }
        for (int c = 0; c < 3; c++) {
            if (read_rows[c] - ring_rows[c] > rows[c].first[y0])
                cjpeg_fail((j_common_ptr)cinfo, CJPEG_FAILURE_USAGE, "raw decode: a plane ring overran rows still needed");
        }
        for (int c = 0; c < 3; c++) {
            for (int r = 0; r < CJPEG_GROUP; r++) {
                if (r < count) cjpeg_vpass_row(planes[c], strides[c], ring_rows[c], widths[c], &rows[c], y0 + r, sum_rows[r]);
                else memcpy(sum_rows[r], sum_rows[count - 1], sizeof(uint16_t) * (size_t)widths[c]);
            }
            cjpeg_transpose_group(sum_rows, widths[c], columns);
            cjpeg_hpass_group(columns, &cols[c], hweights[c], fixed + (size_t)c * tw * CJPEG_GROUP, tw);
        }
        size_t n = (size_t)tw * CJPEG_GROUP;
        uint8_t *out_rows[CJPEG_GROUP];
        for (int r = 0; r < CJPEG_GROUP; r++) out_rows[r] = dst + (size_t)(y0 + (r < count ? r : 0)) * dst_stride;
        cjpeg_ycc_group_to_rgb(fixed, fixed + n, fixed + 2 * n, out_rows, count, tw);
    }
    /* Rows no output pixel reads (past the last window) are still decoded, into the rings. */
    while (cinfo->output_scanline < cinfo->output_height) {
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < comp_rows[c]; r++)
                pointers[c][r] = planes[c] + (size_t)((read_rows[c] + r) % ring_rows[c]) * strides[c];
        if (jpeg_read_raw_data(cinfo, arrays, (JDIMENSION)group) == 0) return CJPEG_SUSPENDED;
        for (int c = 0; c < 3; c++) read_rows[c] += comp_rows[c];
    }
    cjpeg_raw_release(decoder);
    return cjpeg_finish_one_shot(decoder);
}
