#include "clcms.h"
#include "clcms_internal.h"

/* The direct path on JPEG's Y′CbCr planes (JFIF: full-range BT.601, libjpeg's fixed-point
 * formulas), so a tagged JPEG can stay on the planes: each pixel to R′G′B′ with its block's
 * chroma, through the tables, back to Y′; each chroma sample becomes that of the mean of its
 * block's converted colours (what libjpeg's encoder gives when it downsamples by averaging).
 *
 * A chroma row is done in chunks of small fixed-size arrays, in three stages: the chunk's chroma
 * to table offsets (vectorised), then per pixel the scalar part (three reads of the widened input
 * tables, whose base the block's offsets move, so the clamp and the chroma cost nothing per pixel;
 * three encode reads; three reads of the luma tables, whose sum is Y′ and the block's colour
 * sums at once), then the chunk's sums to Cb and Cr (vectorised). The results are those of the
 * straightforward per-pixel formulas, bit for bit. */

enum { clcms_ycc_bits = 16, clcms_ycc_chunk = 64 };
#define CLCMS_FIX(x) ((int32_t)((x) * (1 << clcms_ycc_bits) + 0.5))

static inline uint8_t clcms_clamp8(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

void clcms_fast8_prepare_ycbcr(clcms_fast8 *fast) {
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < clcms_wide_size; i++) {
            int v = i - clcms_wide_low;
            fast->wide[c][i] = fast->packed[c][v < 0 ? 0 : v > 255 ? 255 : v];
        }
    /* jccolor.c: Y = 0.299 R + 0.587 G + 0.114 B, rounded (the half rides on red). */
    const int64_t share[3] = {CLCMS_FIX(0.29900), CLCMS_FIX(0.58700), CLCMS_FIX(0.11400)};
    for (int c = 0; c < 3; c++)
        for (int64_t v = 0; v < 256; v++)
            fast->luma[c][v] = (uint64_t)(share[c] * v + (c == 0 ? 1 << (clcms_ycc_bits - 1) : 0)) << 32 | (uint64_t)v << (10 * c);
}

/* The tables, copied to locals: a byte store through a luma pointer could otherwise alias the
 * pointers inside the struct, and each sample would read them again. */
typedef struct {
    const uint64_t *wide0, *wide1, *wide2, *luma0, *luma1, *luma2;
    const uint8_t *e0, *e1, *e2;
} clcms_ycc_tables;

/* One luma sample converted in place; returns its luma-table sum (its R′G′B′ in bits 0-29). */
static inline __attribute__((always_inline)) uint64_t clcms_ycc_pixel(
    const clcms_ycc_tables *t, const uint64_t *restrict r, const uint64_t *restrict g, const uint64_t *restrict b, uint8_t *restrict sample) {
    uint32_t l = *sample;
    uint64_t sum = r[l] + g[l] + b[l];
    uint64_t w = t->luma0[t->e0[(sum & clcms_field_mask) >> clcms_contribution_shift]]
        + t->luma1[t->e1[((sum >> clcms_field_bits) & clcms_field_mask) >> clcms_contribution_shift]]
        + t->luma2[t->e2[(sum >> (2 * clcms_field_bits)) >> clcms_contribution_shift]];
    *sample = (uint8_t)(w >> 48);
    return w;
}

/* One chunk of a chroma row: `count` chroma samples from `cx0`, luma rows `y0` to `y1`. Blocks
 * are `horizontal` x `vertical` (constants where inlined); a block cut by the image's edge has its
 * sums scaled to a whole block's, which gives the same rounded mean. */
static inline __attribute__((always_inline)) void clcms_ycc_chunk_run(
    const clcms_ycc_tables *t, uint8_t *luma, size_t luma_stride, uint8_t *restrict cb_row, uint8_t *restrict cr_row,
    uint32_t cx0, uint32_t count, uint32_t width, uint32_t y0, uint32_t y1, const int horizontal, const int vertical) {
    int32_t dr[clcms_ycc_chunk], dg[clcms_ycc_chunk], db[clcms_ycc_chunk];
    uint32_t sums[clcms_ycc_chunk];
    const int32_t half = 1 << (clcms_ycc_bits - 1);
    /* jdcolor.c: R = Y + 1.402 Cr, G = Y - 0.34414 Cb - 0.71414 Cr, B = Y + 1.772 Cb. */
    for (uint32_t k = 0; k < count; k++) {
        int32_t u = cb_row[cx0 + k] - 128, v = cr_row[cx0 + k] - 128;
        dr[k] = ((CLCMS_FIX(1.40200) * v + half) >> clcms_ycc_bits) + clcms_wide_low;
        dg[k] = ((-CLCMS_FIX(0.34414) * u - CLCMS_FIX(0.71414) * v + half) >> clcms_ycc_bits) + clcms_wide_low;
        db[k] = ((CLCMS_FIX(1.77200) * u + half) >> clcms_ycc_bits) + clcms_wide_low;
    }
    const int full = horizontal * vertical, rows = (int)(y1 - y0);
    uint8_t *row0 = luma + y0 * luma_stride, *row1 = luma + (y1 - 1) * luma_stride;
    for (uint32_t k = 0; k < count; k++) {
        const uint64_t *r = t->wide0 + dr[k], *g = t->wide1 + dg[k], *b = t->wide2 + db[k];
        uint32_t x0 = (cx0 + k) * (uint32_t)horizontal;
        uint64_t sum;
        if (x0 + (uint32_t)horizontal <= width && rows == vertical) {
            sum = clcms_ycc_pixel(t, r, g, b, row0 + x0);
            if (horizontal == 2) sum += clcms_ycc_pixel(t, r, g, b, row0 + x0 + 1);
            if (vertical == 2) {
                sum += clcms_ycc_pixel(t, r, g, b, row1 + x0);
                if (horizontal == 2) sum += clcms_ycc_pixel(t, r, g, b, row1 + x0 + 1);
            }
        } else {
            int n = 0;
            sum = 0;
            for (uint32_t y = y0; y < y1; y++)
                for (uint32_t x = x0; x < width && x < x0 + (uint32_t)horizontal; x++, n++)
                    sum += clcms_ycc_pixel(t, r, g, b, luma + y * luma_stride + x);
            /* Doubling the sums and the divisor rounds the same; fields of 10 bits hold 4 x 255. */
            sum = (sum & 0x3fffffff) << (full == 4 ? (n == 1 ? 2 : n == 2 ? 1 : 0) : n == 1 && full == 2 ? 1 : 0);
        }
        sums[k] = (uint32_t)sum;
    }
    /* Cb = -0.16874 R - 0.33126 G + 0.5 B + 128, Cr = 0.5 R - 0.41869 G - 0.08131 B + 128, of the
     * block's mean: its sum over a shift (every term fits 31 bits: 4 x 255 x 32768 < 2^27). */
    const int shift = clcms_ycc_bits + (full == 4 ? 2 : full == 2 ? 1 : 0);
    const int32_t offset = (128 << shift) + (1 << (shift - 1));
    for (uint32_t k = 0; k < count; k++) {
        int32_t r = (int32_t)(sums[k] & 1023), g = (int32_t)((sums[k] >> 10) & 1023), b = (int32_t)(sums[k] >> 20);
        int32_t new_cb = -CLCMS_FIX(0.16874) * r - CLCMS_FIX(0.33126) * g + CLCMS_FIX(0.5) * b + offset;
        int32_t new_cr = CLCMS_FIX(0.5) * r - CLCMS_FIX(0.41869) * g - CLCMS_FIX(0.08131) * b + offset;
        cb_row[cx0 + k] = clcms_clamp8(new_cb >> shift);
        cr_row[cx0 + k] = clcms_clamp8(new_cr >> shift);
    }
}

/* All chroma rows with blocks of `horizontal` x `vertical` (constants where inlined). */
static inline __attribute__((always_inline)) void clcms_ycc_rows(
    const clcms_ycc_tables *t, uint8_t *luma, size_t luma_stride, uint8_t *cb, size_t cb_stride, uint8_t *cr, size_t cr_stride,
    uint32_t width, uint32_t height, const int horizontal, const int vertical) {
    uint32_t chroma_width = (width + horizontal - 1) / horizontal, chroma_height = (height + vertical - 1) / vertical;
    for (uint32_t cy = 0; cy < chroma_height; cy++) {
        uint32_t y0 = cy * (uint32_t)vertical, y1 = y0 + (uint32_t)vertical > height ? height : y0 + (uint32_t)vertical;
        for (uint32_t cx0 = 0; cx0 < chroma_width; cx0 += clcms_ycc_chunk) {
            uint32_t count = chroma_width - cx0 < clcms_ycc_chunk ? chroma_width - cx0 : clcms_ycc_chunk;
            clcms_ycc_chunk_run(t, luma, luma_stride, cb + cy * cb_stride, cr + cy * cr_stride, cx0, count, width, y0, y1, horizontal, vertical);
        }
    }
}

int clcms_fast8_run_ycbcr(
    const clcms_fast8 *fast, uint8_t *luma, size_t luma_stride, uint8_t *cb, size_t cb_stride, uint8_t *cr, size_t cr_stride,
    uint32_t width, uint32_t height, int horizontal, int vertical) {
    const clcms_ycc_tables t = {
        fast->wide[0], fast->wide[1], fast->wide[2], fast->luma[0], fast->luma[1], fast->luma[2],
        fast->encode[0], fast->encode[1], fast->encode[2],
    };
    if (horizontal == 2 && vertical == 2)
        clcms_ycc_rows(&t, luma, luma_stride, cb, cb_stride, cr, cr_stride, width, height, 2, 2);
    else if (horizontal == 2 && vertical == 1)
        clcms_ycc_rows(&t, luma, luma_stride, cb, cb_stride, cr, cr_stride, width, height, 2, 1);
    else if (horizontal == 1 && vertical == 1)
        clcms_ycc_rows(&t, luma, luma_stride, cb, cb_stride, cr, cr_stride, width, height, 1, 1);
    else
        return 0;
    return 1;
}
