#include "clcms.h"
#include "clcms_internal.h"

#include <string.h>
/* Building with CLCMS_NO_SSE2 defined leaves only the plain C (to check it gives the same bytes). */
#if defined(__SSE2__) && !defined(CLCMS_NO_SSE2)
#include <emmintrin.h>
#endif

/* The direct path on JPEG's Y′CbCr planes (JFIF: full-range BT.601, libjpeg's fixed-point
 * formulas), so a tagged JPEG can stay on the planes: each pixel to R′G′B′ with its block's
 * chroma, through the tables, back to Y′; each chroma sample becomes that of the mean of its
 * block's converted colours (what libjpeg's encoder gives when it downsamples by averaging).
 *
 * A chroma row is done in chunks, over small fixed-size arrays, in stages: the chunk's chroma to
 * table offsets; per pixel the table reads alone (three reads of the widened input tables, whose
 * base the block's offsets move, so the clamp and the chroma cost nothing per pixel; three
 * encode reads), into R′G′B′ rows; then, eight or sixteen lanes at a time (SSE2, or plain C
 * elsewhere), the rows to Y′, the blocks to their sums and the sums to Cb and Cr. The results are
 * those of the straightforward per-pixel formulas, bit for bit. */

enum { clcms_ycc_bits = 16, clcms_ycc_chunk = 64, clcms_ycc_pixels = 2 * clcms_ycc_chunk };
#define CLCMS_FIX(x) ((int32_t)((x) * (1 << clcms_ycc_bits) + 0.5))

void clcms_fast8_prepare_ycbcr(clcms_fast8 *fast) {
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < clcms_wide_size; i++) {
            int v = i - clcms_wide_low;
            fast->wide[c][i] = fast->packed[c][v < 0 ? 0 : v > 255 ? 255 : v];
        }
}

/* The tables, copied to locals (the widened ones at level 0): a byte store could otherwise
 * alias the pointers inside the struct, and each sample would read them again. */
typedef struct {
    const uint64_t *wide0, *wide1, *wide2;
    const uint8_t *e0, *e1, *e2;
} clcms_ycc_tables;

/* One chunk's arrays: the blocks' input-table offsets (their chroma), the converted R′G′B′ of up to two luma
 * rows, the block sums. Lanes past the chunk's end are computed and never stored. */
typedef struct {
    uint8_t rgb[2][3][clcms_ycc_pixels];
    int16_t sums[3][clcms_ycc_chunk];
    int32_t offsets[3][clcms_ycc_chunk];
} clcms_ycc_chunk_arrays;

/* One pixel through the tables: `l` with its block's input-table bases, R′G′B′ stored at `at`. */
static inline __attribute__((always_inline)) void clcms_ycc_pixel(
    const clcms_ycc_tables *t, const uint64_t *restrict r, const uint64_t *restrict g, const uint64_t *restrict b, uint32_t l,
    uint8_t (*restrict rgb)[clcms_ycc_pixels], uint32_t at) {
    uint64_t sum = r[l] + g[l] + b[l];
    rgb[0][at] = t->e0[(sum & clcms_field_mask) >> clcms_contribution_shift];
    rgb[1][at] = t->e1[((sum >> clcms_field_bits) & clcms_field_mask) >> clcms_contribution_shift];
    rgb[2][at] = t->e2[(sum >> (2 * clcms_field_bits)) >> clcms_contribution_shift];
}

/* jccolor.c's Y = (0.299 R + 0.587 G + 0.114 B) rounded, as G + (0.299 (R - G) + 0.114 (B - G))
 * (the weights sum to one), which fits 16-bit lanes' multiply-add; `count` of them to `out`. */
static inline __attribute__((always_inline)) void clcms_ycc_luma(const uint8_t (*rgb)[clcms_ycc_pixels], uint8_t *out, uint32_t count) {
    const int32_t wr = CLCMS_FIX(0.29900), wb = CLCMS_FIX(0.11400), half = 1 << (clcms_ycc_bits - 1);
    uint32_t x = 0;
#if defined(__SSE2__) && !defined(CLCMS_NO_SSE2)
    const __m128i zero = _mm_setzero_si128(), weights = _mm_set1_epi32((int32_t)((uint32_t)wb << 16 | (uint32_t)wr)), round = _mm_set1_epi32(half);
    for (; x + 8 <= count; x += 8) {
        __m128i r = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(rgb[0] + x)), zero);
        __m128i g = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(rgb[1] + x)), zero);
        __m128i b = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(rgb[2] + x)), zero);
        __m128i dr = _mm_sub_epi16(r, g), db = _mm_sub_epi16(b, g);
        __m128i low = _mm_srai_epi32(_mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(dr, db), weights), round), clcms_ycc_bits);
        __m128i high = _mm_srai_epi32(_mm_add_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(dr, db), weights), round), clcms_ycc_bits);
        __m128i y = _mm_add_epi16(_mm_packs_epi32(low, high), g);
        _mm_storel_epi64((__m128i *)(out + x), _mm_packus_epi16(y, y));
    }
#endif
    for (; x < count; x++) {
        int32_t g = rgb[1][x];
        out[x] = (uint8_t)(g + ((wr * (rgb[0][x] - g) + wb * (rgb[2][x] - g) + half) >> clcms_ycc_bits));
    }
}

/* Cb = -0.16874 R - 0.33126 G + 0.5 B + 128, Cr = 0.5 R - 0.41869 G - 0.08131 B + 128, of each
 * block's mean: its sums (at most 4 x 255) over 2^`shift`, rounded; 0.5 x is x << 15. */
static inline __attribute__((always_inline)) void clcms_ycc_chroma(const int16_t (*sums)[clcms_ycc_chunk], uint8_t *cb, uint8_t *cr, uint32_t count, int shift) {
    const int32_t offset = (128 << shift) + (1 << (shift - 1));
    uint32_t k = 0;
#if defined(__SSE2__) && !defined(CLCMS_NO_SSE2)
    const __m128i zero = _mm_setzero_si128(), add = _mm_set1_epi32(offset);
    const __m128i cb_rg = _mm_set1_epi32((int32_t)((uint32_t)-CLCMS_FIX(0.33126) << 16 | ((uint32_t)-CLCMS_FIX(0.16874) & 0xffff)));
    const __m128i cr_gb = _mm_set1_epi32((int32_t)((uint32_t)-CLCMS_FIX(0.08131) << 16 | ((uint32_t)-CLCMS_FIX(0.41869) & 0xffff)));
    const __m128i count_shift = _mm_cvtsi32_si128(shift);
    for (; k + 8 <= count; k += 8) {
        __m128i r = _mm_loadu_si128((const __m128i *)(sums[0] + k));
        __m128i g = _mm_loadu_si128((const __m128i *)(sums[1] + k));
        __m128i b = _mm_loadu_si128((const __m128i *)(sums[2] + k));
        __m128i cb_low = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(r, g), cb_rg), _mm_slli_epi32(_mm_unpacklo_epi16(b, zero), 15));
        __m128i cb_high = _mm_add_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(r, g), cb_rg), _mm_slli_epi32(_mm_unpackhi_epi16(b, zero), 15));
        __m128i cr_low = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(g, b), cr_gb), _mm_slli_epi32(_mm_unpacklo_epi16(r, zero), 15));
        __m128i cr_high = _mm_add_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(g, b), cr_gb), _mm_slli_epi32(_mm_unpackhi_epi16(r, zero), 15));
        cb_low = _mm_sra_epi32(_mm_add_epi32(cb_low, add), count_shift), cb_high = _mm_sra_epi32(_mm_add_epi32(cb_high, add), count_shift);
        cr_low = _mm_sra_epi32(_mm_add_epi32(cr_low, add), count_shift), cr_high = _mm_sra_epi32(_mm_add_epi32(cr_high, add), count_shift);
        /* The packs saturate: the clamp to 0…255. */
        __m128i cb16 = _mm_packs_epi32(cb_low, cb_high), cr16 = _mm_packs_epi32(cr_low, cr_high);
        _mm_storel_epi64((__m128i *)(cb + k), _mm_packus_epi16(cb16, cb16));
        _mm_storel_epi64((__m128i *)(cr + k), _mm_packus_epi16(cr16, cr16));
    }
#endif
    for (; k < count; k++) {
        int32_t r = sums[0][k], g = sums[1][k], b = sums[2][k];
        int32_t new_cb = (-CLCMS_FIX(0.16874) * r - CLCMS_FIX(0.33126) * g + (b << 15) + offset) >> shift;
        int32_t new_cr = ((r << 15) - CLCMS_FIX(0.41869) * g - CLCMS_FIX(0.08131) * b + offset) >> shift;
        cb[k] = (uint8_t)(new_cb < 0 ? 0 : new_cb > 255 ? 255 : new_cb);
        cr[k] = (uint8_t)(new_cr < 0 ? 0 : new_cr > 255 ? 255 : new_cr);
    }
}

/* Each block's R′, G′ and B′ sums, from the rows (`horizontal` and `vertical` constants where
 * inlined). */
static inline __attribute__((always_inline)) void clcms_ycc_sums(
    clcms_ycc_chunk_arrays *restrict a, uint32_t count, const int horizontal, const int vertical) {
#if defined(__SSE2__) && !defined(CLCMS_NO_SSE2)
    const __m128i zero = _mm_setzero_si128(), low_bytes = _mm_set1_epi16(0xff);
    for (int c = 0; c < 3; c++)
        for (uint32_t k = 0; k < count; k += 8) {
            __m128i top, bottom;
            if (horizontal == 2) {
                /* Sixteen pixels a row: each 16-bit lane adds its two bytes. */
                __m128i t = _mm_loadu_si128((const __m128i *)(a->rgb[0][c] + 2 * k));
                __m128i b = _mm_loadu_si128((const __m128i *)(a->rgb[1][c] + 2 * k));
                top = _mm_add_epi16(_mm_and_si128(t, low_bytes), _mm_srli_epi16(t, 8));
                bottom = _mm_add_epi16(_mm_and_si128(b, low_bytes), _mm_srli_epi16(b, 8));
            } else {
                top = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(a->rgb[0][c] + k)), zero);
                bottom = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(a->rgb[1][c] + k)), zero);
            }
            _mm_storeu_si128((__m128i *)(a->sums[c] + k), vertical == 2 ? _mm_add_epi16(top, bottom) : top);
        }
#else
    for (int c = 0; c < 3; c++)
        for (uint32_t k = 0; k < count; k++) {
            const uint8_t *top = a->rgb[0][c] + k * (uint32_t)horizontal, *bottom = a->rgb[1][c] + k * (uint32_t)horizontal;
            int sum = top[0] + (horizontal == 2 ? top[1] : 0);
            if (vertical == 2) sum += bottom[0] + (horizontal == 2 ? bottom[1] : 0);
            a->sums[c][k] = (int16_t)sum;
        }
#endif
}

/* Blocks `first` to `last` of a chunk, `horizontal` pixels wide, through the tables: `columns`
 * pixels of `rows` luma rows each (constants where inlined). */
static inline __attribute__((always_inline)) void clcms_ycc_blocks(
    const clcms_ycc_tables *t, clcms_ycc_chunk_arrays *restrict a, const uint8_t *const lines[2], uint32_t first, uint32_t last,
    const int horizontal, const int rows, const int columns) {
    for (uint32_t k = first; k < last; k++) {
        const uint64_t *r = t->wide0 + a->offsets[0][k], *g = t->wide1 + a->offsets[1][k], *b = t->wide2 + a->offsets[2][k];
        for (int row = 0; row < rows; row++)
            for (int i = 0; i < columns; i++) {
                uint32_t x = k * (uint32_t)horizontal + (uint32_t)i;
                clcms_ycc_pixel(t, r, g, b, lines[row][x], a->rgb[row], x);
            }
    }
}

/* One chunk of a chroma row `cy`: `count` chroma samples from `cx0`, luma rows `y0` to `y1`, blocks
 * of `horizontal` x `vertical` (constants where inlined). A block cut by the image's edge has its
 * missing pixels copied from the ones it has, which gives the same rounded mean. Everything the
 * chunk reads is read before anything is written, so the planes may be converted in place. */
static inline __attribute__((always_inline)) void clcms_ycc_chunk_run(
    const clcms_ycc_tables *t, clcms_ycc_chunk_arrays *restrict a, const clcms_planes *in, const clcms_planes *out, uint32_t cy,
    uint32_t cx0, uint32_t count, uint32_t width, uint32_t y0, uint32_t y1, const int horizontal, const int vertical) {
    const uint8_t *cb_row = in->cb + cy * in->cb_stride, *cr_row = in->cr + cy * in->cr_stride;
    const int32_t half = 1 << (clcms_ycc_bits - 1);
    /* jdcolor.c: R = Y + 1.402 Cr, G = Y - 0.34414 Cb - 0.71414 Cr, B = Y + 1.772 Cb. */
    for (uint32_t k = 0; k < count; k++) {
        int32_t u = cb_row[cx0 + k] - 128, v = cr_row[cx0 + k] - 128;
        a->offsets[0][k] = (CLCMS_FIX(1.40200) * v + half) >> clcms_ycc_bits;
        a->offsets[1][k] = (-CLCMS_FIX(0.34414) * u - CLCMS_FIX(0.71414) * v + half) >> clcms_ycc_bits;
        a->offsets[2][k] = (CLCMS_FIX(1.77200) * u + half) >> clcms_ycc_bits;
    }
    const uint32_t x0 = cx0 * (uint32_t)horizontal, pixels = width - x0 < count * (uint32_t)horizontal ? width - x0 : count * (uint32_t)horizontal;
    const uint32_t whole = pixels / (uint32_t)horizontal;
    const int rows = (int)(y1 - y0);
    const uint8_t *const lines[2] = {in->luma + y0 * in->luma_stride + x0, in->luma + (y1 - 1) * in->luma_stride + x0};
    if (rows == vertical)
        clcms_ycc_blocks(t, a, lines, 0, whole, horizontal, vertical, horizontal);
    else
        clcms_ycc_blocks(t, a, lines, 0, whole, horizontal, 1, horizontal);
    if (whole < count) {
        /* The last block has only its first column (horizontal is 2 here). */
        clcms_ycc_blocks(t, a, lines, whole, count, horizontal, rows, 1);
        for (int row = 0; row < rows; row++)
            for (int c = 0; c < 3; c++) a->rgb[row][c][pixels] = a->rgb[row][c][pixels - 1];
    }
    for (int row = 0; row < rows; row++) clcms_ycc_luma(a->rgb[row], out->luma + (y0 + (uint32_t)row) * out->luma_stride + x0, pixels);
    if (rows < vertical) memcpy(a->rgb[1], a->rgb[0], sizeof a->rgb[0]);
    clcms_ycc_sums(a, count, horizontal, vertical);
    clcms_ycc_chroma(
        a->sums, out->cb + cy * out->cb_stride + cx0, out->cr + cy * out->cr_stride + cx0, count,
        clcms_ycc_bits + (horizontal == 2) + (vertical == 2));
}

/* All chroma rows with blocks of `horizontal` x `vertical` (constants where inlined). */
static inline __attribute__((always_inline)) void clcms_ycc_rows(
    const clcms_ycc_tables *t, const clcms_planes *in, const clcms_planes *out, uint32_t width, uint32_t height, const int horizontal,
    const int vertical) {
    clcms_ycc_chunk_arrays arrays;
    memset(&arrays, 0, sizeof arrays);
    uint32_t chroma_width = (width + horizontal - 1) / horizontal, chroma_height = (height + vertical - 1) / vertical;
    for (uint32_t cy = 0; cy < chroma_height; cy++) {
        uint32_t y0 = cy * (uint32_t)vertical, y1 = y0 + (uint32_t)vertical > height ? height : y0 + (uint32_t)vertical;
        for (uint32_t cx0 = 0; cx0 < chroma_width; cx0 += clcms_ycc_chunk) {
            uint32_t count = chroma_width - cx0 < clcms_ycc_chunk ? chroma_width - cx0 : clcms_ycc_chunk;
            clcms_ycc_chunk_run(t, &arrays, in, out, cy, cx0, count, width, y0, y1, horizontal, vertical);
        }
    }
}

/* Every subsampling the planes may have, each with constant block sizes; 0 for any other. */
static inline __attribute__((always_inline)) int clcms_ycc_subsampled(
    const clcms_ycc_tables *t, const clcms_planes *in, const clcms_planes *out, uint32_t width, uint32_t height, int horizontal,
    int vertical) {
    if (horizontal == 2 && vertical == 2)
        clcms_ycc_rows(t, in, out, width, height, 2, 2);
    else if (horizontal == 2 && vertical == 1)
        clcms_ycc_rows(t, in, out, width, height, 2, 1);
    else if (horizontal == 1 && vertical == 2)
        clcms_ycc_rows(t, in, out, width, height, 1, 2);
    else if (horizontal == 1 && vertical == 1)
        clcms_ycc_rows(t, in, out, width, height, 1, 1);
    else
        return 0;
    return 1;
}

#if defined(__x86_64__) && !defined(CLCMS_NO_SSE2)
/* The same, compiled for AVX2 and BMI2 (VEX-coded lanes, three-operand shifts). */
__attribute__((target("avx2,bmi2"))) static int clcms_ycc_subsampled_avx2(
    const clcms_ycc_tables *t, const clcms_planes *in, const clcms_planes *out, uint32_t width, uint32_t height, int horizontal,
    int vertical) {
    return clcms_ycc_subsampled(t, in, out, width, height, horizontal, vertical);
}
#endif

int clcms_fast8_run_ycbcr(
    const clcms_fast8 *fast, const clcms_planes *source, const clcms_planes *destination, uint32_t width, uint32_t height,
    int horizontal, int vertical) {
    const clcms_ycc_tables t = {
        fast->wide[0] + clcms_wide_low, fast->wide[1] + clcms_wide_low, fast->wide[2] + clcms_wide_low,
        fast->encode[0], fast->encode[1], fast->encode[2],
    };
#if defined(__x86_64__) && !defined(CLCMS_NO_SSE2)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"))
        return clcms_ycc_subsampled_avx2(&t, source, destination, width, height, horizontal, vertical);
#endif
    return clcms_ycc_subsampled(&t, source, destination, width, height, horizontal, vertical);
}
