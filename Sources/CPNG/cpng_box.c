/*
 * Box-average kernels for 8-bit thumbnails (CoderPNG's BoxDownscaler). Plain C, no libpng.
 *
 * Division: q = (x · m) >> s with d's 32-bit multiplier m = ⌊2^s/d⌋ + 1, s = 31 + ⌊log2 d⌋
 * (cpng_box_reciprocal in cpng.h). Exact for every x < 2^30:
 *   e = m·d − 2^s lies in (0, d], so x·m/2^s = x/d + x·e/(d·2^s). The fraction of x/d is at most
 *   1 − 1/d, so the floor is unchanged when x·e/(d·2^s) < 1/d, i.e. x·e < 2^s, which holds when
 *   x·d < 2^s; and d < 2^(⌊log2 d⌋+1) gives x·d < 2^30 · 2^(⌊log2 d⌋+1) = 2^s.
 *   m ≤ 2^s/d + 1 ≤ 2^31 + 1 fits 32 bits; x·m < 2^62 fits 64.
 * Rounded averages divide x = sum + ⌊d/2⌋ < 256·d, so d ≤ 2^22 (the caller's bound) keeps x < 2^30.
 * Per-pixel divisors (alpha sums) get m from a double division: for s ≤ 52 the quotient 2^s/d
 * is within 2^(s−53)/d ≤ 1/(2d) of its exact value, less than its distance 1/d to the next
 * integer, so truncating it gives ⌊2^s/d⌋.
 */
#include "cpng_internal.h"
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* `first`: the sums hold no row yet (stored, not added: no clearing needed between boxes). */
#define ACC(target, v) _mm_storeu_si128((__m128i *)(target), first ? (v) : _mm_add_epi32(_mm_loadu_si128((const __m128i *)(target)), (v)))
#define SACC(target, v) ((target) = first ? (uint32_t)(v) : (target) + (uint32_t)(v))

static inline __attribute__((always_inline)) void accumulate(
    const uint8_t *restrict row, uint32_t *restrict sums, size_t pixels, uint32_t channels, const int first) {
    size_t i = 0;
    if (channels == 4) {
#if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128();
        /* Alpha of each pixel in its colour lanes, 1 in its alpha lane (16-bit lanes). */
        const __m128i alphaOne = _mm_set_epi16(1, 0, 0, 0, 1, 0, 0, 0);
        const __m128i colourMask = _mm_set_epi16(0, -1, -1, -1, 0, -1, -1, -1);
        for (; i + 4 <= pixels; i += 4) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(row + 4 * i));
            __m128i lo = _mm_unpacklo_epi8(bytes, zero); /* pixels 0,1 as 16-bit */
            __m128i hi = _mm_unpackhi_epi8(bytes, zero); /* pixels 2,3 */
            __m128i alo = _mm_shufflehi_epi16(_mm_shufflelo_epi16(lo, 0xFF), 0xFF);
            __m128i ahi = _mm_shufflehi_epi16(_mm_shufflelo_epi16(hi, 0xFF), 0xFF);
            alo = _mm_or_si128(_mm_and_si128(alo, colourMask), alphaOne);
            ahi = _mm_or_si128(_mm_and_si128(ahi, colourMask), alphaOne);
            /* c·a ≤ 65025 fits an unsigned 16-bit lane. */
            __m128i plo = _mm_mullo_epi16(lo, alo), phi = _mm_mullo_epi16(hi, ahi);
            uint32_t *t = sums + 4 * i;
            ACC(t, _mm_unpacklo_epi16(plo, zero));
            ACC((t + 4), _mm_unpackhi_epi16(plo, zero));
            ACC((t + 8), _mm_unpacklo_epi16(phi, zero));
            ACC((t + 12), _mm_unpackhi_epi16(phi, zero));
        }
#endif
        for (; i < pixels; i++) {
            uint32_t a = row[4 * i + 3];
            SACC(sums[4 * i], row[4 * i] * a);
            SACC(sums[4 * i + 1], row[4 * i + 1] * a);
            SACC(sums[4 * i + 2], row[4 * i + 2] * a);
            SACC(sums[4 * i + 3], a);
        }
    } else if (channels == 2) {
        for (; i < pixels; i++) {
            uint32_t a = row[2 * i + 1];
            SACC(sums[2 * i], row[2 * i] * a);
            SACC(sums[2 * i + 1], a);
        }
    } else {
        size_t samples = pixels * channels;
#if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128();
        for (; i + 16 <= samples; i += 16) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(row + i));
            __m128i lo = _mm_unpacklo_epi8(bytes, zero), hi = _mm_unpackhi_epi8(bytes, zero);
            uint32_t *t = sums + i;
            ACC(t, _mm_unpacklo_epi16(lo, zero));
            ACC((t + 4), _mm_unpackhi_epi16(lo, zero));
            ACC((t + 8), _mm_unpacklo_epi16(hi, zero));
            ACC((t + 12), _mm_unpackhi_epi16(hi, zero));
        }
#endif
        for (; i < samples; i++) SACC(sums[i], row[i]);
    }
}

void cpng_box_accumulate_u8(const uint8_t *row, uint32_t *sums, size_t pixels, uint32_t channels, int first) {
    if ((channels == 1 || channels == 3) && cpng_box_accumulate_avx2(row, sums, pixels * channels, first)) return;
    if (first) accumulate(row, sums, pixels, channels, 1);
    else accumulate(row, sums, pixels, channels, 0);
}

static inline uint32_t cpng_div(uint32_t x, uint32_t m, uint32_t s) {
    return (uint32_t)(((uint64_t)x * m) >> s);
}

/* Multiplier for a per-pixel divisor 1 ≤ d ≤ 2^22 (see the header comment); d = 0 gives 0. */
static inline void cpng_pixel_reciprocal(uint32_t d, uint32_t *m, uint32_t *s) {
    uint32_t lg = 31u - (uint32_t)__builtin_clz(d | 1u);
    *s = 31u + lg;
    *m = (uint32_t)((double)(1ull << *s) / (double)(d | (d == 0))) + 1u;
}

/* One output row; `C` and `N` constant after inlining (N = 0: use `narrow`). */

/* The multiplier and shift that divide a colour sum by its alpha sum A: from the table built for
   small boxes, else computed for this pixel. */
static inline void alpha_reciprocal(uint32_t A, const uint32_t *alpha_table, uint32_t *am, uint32_t *as) {
    if (alpha_table) {
        *am = alpha_table[A];
        *as = 31u + (31u - (uint32_t)__builtin_clz(A | 1u));
    } else {
        cpng_pixel_reciprocal(A, am, as);
    }
}
static inline __attribute__((always_inline)) void emit_row(
    const uint32_t *restrict s, const int32_t *restrict starts, const uint32_t *restrict masks, size_t width,
    uint32_t narrow, uint32_t rows, const uint32_t *restrict alpha_table, uint8_t *restrict out, const uint32_t C,
    const uint32_t N) {
    const uint32_t n = N ? N : narrow;
    uint32_t dn = n * rows, dw = (n + 1) * rows;
    uint32_t mn, sn, mw, sw;
    cpng_box_reciprocal(dn, &mn, &sn);
    cpng_box_reciprocal(dw, &mw, &sw);
    const uint32_t hn = dn >> 1, hw = dw >> 1;
    const uint32_t extra = n * C;
    const int alpha = (C == 2 || C == 4);
    for (size_t x = 0; x < width; x++) {
        const uint32_t mask = masks[x];
        const uint32_t *p = s + starts[x];
        uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (uint32_t k = 0; k < n; k++) {
            a0 += p[0];
            if (C > 1) a1 += p[1];
            if (C > 2) a2 += p[2];
            if (C > 3) a3 += p[3];
            p += C;
        }
        const uint32_t *e = s + starts[x] + extra;
        a0 += e[0] & mask;
        if (C > 1) a1 += e[1] & mask;
        if (C > 2) a2 += e[2] & mask;
        if (C > 3) a3 += e[3] & mask;
        const uint32_t m = mask ? mw : mn, sh = mask ? sw : sn, h = mask ? hw : hn;
        uint8_t *o = out + x * C;
        if (!alpha) {
            o[0] = (uint8_t)cpng_div(a0 + h, m, sh);
            if (C == 3) {
                o[1] = (uint8_t)cpng_div(a1 + h, m, sh);
                o[2] = (uint8_t)cpng_div(a2 + h, m, sh);
            }
        } else {
            /* Alpha sum 0: colour sums are 0 too, and multiplier 0 gives 0. */
            const uint32_t A = C == 4 ? a3 : a1;
            uint32_t am, as;
            alpha_reciprocal(A, alpha_table, &am, &as);
            const uint32_t ah = A >> 1;
            o[0] = (uint8_t)cpng_div(a0 + ah, am, as);
            if (C == 4) {
                o[1] = (uint8_t)cpng_div(a1 + ah, am, as);
                o[2] = (uint8_t)cpng_div(a2 + ah, am, as);
            }
            o[C - 1] = (uint8_t)cpng_div(A + h, m, sh);
        }
    }
}

#if defined(__SSE2__)
/* RGBA boxes already summed (4 per pixel) divided: colour by the alpha sum, alpha by the pixels. */
static void divide_rgba(const uint32_t *restrict b, const uint32_t *restrict masks, size_t width, uint32_t n, uint32_t rows,
                        const uint32_t *restrict alpha_table, uint8_t *restrict out) {
    const uint32_t dn = n * rows, dw = (n + 1) * rows;
    uint32_t mn, sn, mw, sw;
    cpng_box_reciprocal(dn, &mn, &sn);
    cpng_box_reciprocal(dw, &mw, &sw);
    const uint32_t hn = dn >> 1, hw = dw >> 1;
    for (size_t x = 0; x < width; x++, b += 4, out += 4) {
        const uint32_t mask = masks[x];
        const uint32_t m = mask ? mw : mn, sh = mask ? sw : sn, h = mask ? hw : hn;
        const uint32_t A = b[3];
        uint32_t am, as;
        alpha_reciprocal(A, alpha_table, &am, &as);
        const uint32_t ah = A >> 1;
        out[0] = (uint8_t)cpng_div(b[0] + ah, am, as);
        out[1] = (uint8_t)cpng_div(b[1] + ah, am, as);
        out[2] = (uint8_t)cpng_div(b[2] + ah, am, as);
        out[3] = (uint8_t)cpng_div(A + h, m, sh);
    }
}

/* Rows without alpha, in two passes: each box's sums into `boxes` (4-lane vectors per pixel for
 * 3 channels), then every sample divided 16 at a time. One shift serves both box widths: the
 * narrow divisor's `s`, with the wide multiplier ⌊2^s/dw⌋ + 1 (below 2^32 as dw > dn), exact for
 * x < 256·dw when 256·dw² ≤ 2^s (the same argument as above, with x·dw < 2^s). Returns 0 (nothing
 * written) where that does not hold. */
/* Each box's sums of 3 or 4 channels (`N` constant after inlining, 0: use `narrow`) into `boxes`,
 * one 4-lane vector per pixel (with 3 channels the fourth lane is overwritten by the next box). */
static inline __attribute__((always_inline)) void reduce_sse2(
    const uint32_t *restrict s, const int32_t *restrict starts, const uint32_t *restrict masks, size_t width,
    uint32_t narrow, const uint32_t C, const uint32_t N, uint32_t *restrict boxes) {
    const uint32_t n = N ? N : narrow;
    for (size_t x = 0; x < width; x++) {
        const uint32_t *p = s + starts[x];
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        for (uint32_t k = 1; k < n; k++) v = _mm_add_epi32(v, _mm_loadu_si128((const __m128i *)(p + C * k)));
        const __m128i e = _mm_and_si128(_mm_loadu_si128((const __m128i *)(p + C * n)), _mm_set1_epi32((int)masks[x]));
        _mm_storeu_si128((__m128i *)(boxes + C * x), _mm_add_epi32(v, e));
    }
}

static void reduce_boxes_sse2(const uint32_t *s, const int32_t *starts, const uint32_t *masks, size_t width, uint32_t n,
                              uint32_t C, uint32_t *boxes) {
    if (C == 3) {
        if (n == 1) reduce_sse2(s, starts, masks, width, n, 3, 1, boxes);
        else if (n == 2) reduce_sse2(s, starts, masks, width, n, 3, 2, boxes);
        else reduce_sse2(s, starts, masks, width, n, 3, 0, boxes);
    } else {
        if (n == 1) reduce_sse2(s, starts, masks, width, n, 4, 1, boxes);
        else if (n == 2) reduce_sse2(s, starts, masks, width, n, 4, 2, boxes);
        else reduce_sse2(s, starts, masks, width, n, 4, 0, boxes);
    }
}

static int emit_plain_sse2(const uint32_t *restrict s, const int32_t *restrict starts, const uint32_t *restrict masks,
                           const uint32_t *restrict sample_masks, size_t width, uint32_t n, uint32_t rows, uint32_t C,
                           uint32_t *restrict boxes, uint8_t *restrict out) {
    const uint32_t dn = n * rows, dw = (n + 1) * rows;
    uint32_t mn, sh, unused, mw;
    cpng_box_reciprocal(dn, &mn, &sh);
    cpng_box_reciprocal(dw, &mw, &unused);
    if ((uint64_t)256 * dw * dw > (1ull << sh)) return 0;
    mw = (uint32_t)((1ull << sh) / dw) + 1u;
    if (C == 3) {
        reduce_boxes_sse2(s, starts, masks, width, n, 3, boxes);
    } else {
        for (size_t x = 0; x < width; x++) {
            const uint32_t *p = s + starts[x];
            uint32_t a = 0;
            for (uint32_t k = 0; k < n; k++) a += p[k];
            boxes[x] = a + (p[n] & masks[x]);
        }
    }
    const size_t samples = width * C;
    if (cpng_box_divide_float(boxes, sample_masks, samples, dn, dw, out)) return 1;
    const __m128i vmn = _mm_set1_epi32((int)mn), vmx = _mm_set1_epi32((int)(mn ^ mw));
    const __m128i vhn = _mm_set1_epi32((int)(dn >> 1)), vhx = _mm_set1_epi32((int)((dn >> 1) ^ (dw >> 1)));
    const __m128i count = _mm_cvtsi32_si128((int)sh);
    size_t i = 0;
    for (; i + 16 <= samples; i += 16) {
        __m128i q[4];
        for (int j = 0; j < 4; j++) {
            const __m128i wide = _mm_loadu_si128((const __m128i *)(sample_masks + i + 4 * j));
            const __m128i m = _mm_xor_si128(vmn, _mm_and_si128(vmx, wide));
            const __m128i x = _mm_add_epi32(_mm_loadu_si128((const __m128i *)(boxes + i + 4 * j)),
                                            _mm_xor_si128(vhn, _mm_and_si128(vhx, wide)));
            const __m128i even = _mm_srl_epi64(_mm_mul_epu32(x, m), count);
            const __m128i odd = _mm_srl_epi64(_mm_mul_epu32(_mm_srli_epi64(x, 32), _mm_srli_epi64(m, 32)), count);
            q[j] = _mm_or_si128(even, _mm_slli_epi64(odd, 32));
        }
        const __m128i lo = _mm_packs_epi32(q[0], q[1]), hi = _mm_packs_epi32(q[2], q[3]);
        _mm_storeu_si128((__m128i *)(out + i), _mm_packus_epi16(lo, hi));
    }
    for (; i < samples; i++) {
        const uint32_t wide = sample_masks[i];
        out[i] = (uint8_t)cpng_div(boxes[i] + ((dn >> 1) ^ (((dn >> 1) ^ (dw >> 1)) & wide)), mn ^ ((mn ^ mw) & wide), sh);
    }
    return 1;
}
#endif

void cpng_box_emit_u8(const uint32_t *sums, const int32_t *starts, const uint32_t *masks, size_t width, uint32_t narrow,
                      uint32_t rows, uint32_t channels, const uint32_t *alpha_table, const uint32_t *sample_masks,
                      uint32_t *scratch, uint8_t *out) {
#if defined(__SSE2__)
    if (channels == 4 && scratch) {
        reduce_boxes_sse2(sums, starts, masks, width, narrow, 4, scratch);
        divide_rgba(scratch, masks, width, narrow, rows, alpha_table, out);
        return;
    }
    if ((channels == 1 || channels == 3) && sample_masks && scratch &&
        emit_plain_sse2(sums, starts, masks, sample_masks, width, narrow, rows, channels, scratch, out))
        return;
#endif
    switch (channels * 4 + (narrow <= 2 ? narrow : 0)) {
    case 1 * 4 + 1: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 1, 1); break;
    case 1 * 4 + 2: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 1, 2); break;
    case 1 * 4 + 0: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 1, 0); break;
    case 2 * 4 + 1: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 2, 1); break;
    case 2 * 4 + 2: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 2, 2); break;
    case 2 * 4 + 0: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 2, 0); break;
    case 3 * 4 + 1: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 3, 1); break;
    case 3 * 4 + 2: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 3, 2); break;
    case 3 * 4 + 0: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 3, 0); break;
    case 4 * 4 + 1: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 4, 1); break;
    case 4 * 4 + 2: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 4, 2); break;
    default: emit_row(sums, starts, masks, width, narrow, rows, alpha_table, out, 4, 0); break;
    }
}

uint32_t cpng_box_divide_u32(uint32_t x, uint32_t d) {
    uint32_t m, s;
    cpng_pixel_reciprocal(d, &m, &s);
    return cpng_div(x, m, s);
}

void cpng_box_alpha_table(uint32_t *table, size_t count) {
    for (size_t d = 0; d < count; d++) {
        uint32_t m, s;
        cpng_pixel_reciprocal((uint32_t)d, &m, &s);
        table[d] = d == 0 ? 0 : m;
    }
}
