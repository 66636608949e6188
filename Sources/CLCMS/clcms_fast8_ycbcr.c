#include "clcms.h"
#include "clcms_internal.h"

/* The direct path on JPEG's Y′CbCr planes (JFIF: full-range BT.601, libjpeg's fixed-point
 * formulas), so a tagged JPEG can stay on the planes: each pixel to R′G′B′ with its block's
 * chroma, through the tables, back to Y′; each chroma sample becomes that of the mean of its
 * block's converted colours (what libjpeg's encoder gives when it downsamples by averaging). */

enum { clcms_ycc_bits = 16 };
#define CLCMS_FIX(x) ((int32_t)((x) * (1 << clcms_ycc_bits) + 0.5))

static inline uint8_t clcms_clamp8(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* What one block shares: its chroma offsets, and the sums of its converted colours. */
typedef struct {
    int32_t dr, dg, db;
    int32_t r, g, b, n;
} clcms_block;

/* The tables, copied to locals: a byte store through a luma pointer could otherwise alias the
 * pointers inside the struct, and each sample would read them again. */
typedef struct {
    const uint64_t *red, *green, *blue;
    const uint8_t *e0, *e1, *e2, *clamp;
} clcms_ycc_tables;

/* One luma sample converted in place, its colour added to the block's sums. */
static inline __attribute__((always_inline)) void clcms_ycc_pixel(const clcms_ycc_tables t, uint8_t *restrict sample, clcms_block *restrict block) {
    int32_t l = *sample;
    uint64_t sum = t.red[t.clamp[l + block->dr]] + t.green[t.clamp[l + block->dg]] + t.blue[t.clamp[l + block->db]];
    int32_t r = t.e0[(sum & clcms_field_mask) >> clcms_contribution_shift];
    int32_t g = t.e1[((sum >> clcms_field_bits) & clcms_field_mask) >> clcms_contribution_shift];
    int32_t b = t.e2[(sum >> (2 * clcms_field_bits)) >> clcms_contribution_shift];
    /* jccolor.c: Y = 0.299 R + 0.587 G + 0.114 B. */
    *sample = (uint8_t)((CLCMS_FIX(0.29900) * r + CLCMS_FIX(0.58700) * g + CLCMS_FIX(0.11400) * b + (1 << (clcms_ycc_bits - 1))) >> clcms_ycc_bits);
    block->r += r, block->g += g, block->b += b, block->n++;
}

void clcms_fast8_run_ycbcr(
    const clcms_fast8 *fast, uint8_t *luma, size_t luma_stride, uint8_t *cb, size_t cb_stride, uint8_t *cr, size_t cr_stride,
    uint32_t width, uint32_t height, int horizontal, int vertical) {
    /* R′G′B′ before clamping lie within [-227, 482]: a table clamps without a branch. */
    uint8_t limit[1024];
    for (int i = 0; i < 1024; i++) limit[i] = clcms_clamp8(i - 384);
    const clcms_ycc_tables t = {fast->packed[0], fast->packed[1], fast->packed[2], fast->encode[0], fast->encode[1], fast->encode[2], limit + 384};
    const int32_t half = 1 << (clcms_ycc_bits - 1);
    uint32_t chroma_width = (width + horizontal - 1) / horizontal, chroma_height = (height + vertical - 1) / vertical;
    for (uint32_t cy = 0; cy < chroma_height; cy++) {
        uint8_t *cb_row = cb + cy * cb_stride, *cr_row = cr + cy * cr_stride;
        uint32_t y0 = cy * (uint32_t)vertical, y1 = y0 + (uint32_t)vertical > height ? height : y0 + (uint32_t)vertical;
        uint8_t *row0 = luma + y0 * luma_stride, *row1 = luma + (y1 - 1) * luma_stride;
        for (uint32_t cx = 0; cx < chroma_width; cx++) {
            int32_t u = cb_row[cx] - 128, v = cr_row[cx] - 128;
            /* jdcolor.c: R = Y + 1.402 Cr, G = Y - 0.34414 Cb - 0.71414 Cr, B = Y + 1.772 Cb. */
            clcms_block block = {
                (CLCMS_FIX(1.40200) * v + half) >> clcms_ycc_bits,
                (-CLCMS_FIX(0.34414) * u - CLCMS_FIX(0.71414) * v + half) >> clcms_ycc_bits,
                (CLCMS_FIX(1.77200) * u + half) >> clcms_ycc_bits, 0, 0, 0, 0,
            };
            uint32_t x0 = cx * (uint32_t)horizontal, x1 = x0 + (uint32_t)horizontal > width ? width : x0 + (uint32_t)horizontal;
            if (horizontal == 2 && vertical == 2 && x1 == x0 + 2 && y1 == y0 + 2) {
                /* 4:2:0's whole blocks, unrolled. */
                clcms_ycc_pixel(t, row0 + x0, &block);
                clcms_ycc_pixel(t, row0 + x0 + 1, &block);
                clcms_ycc_pixel(t, row1 + x0, &block);
                clcms_ycc_pixel(t, row1 + x0 + 1, &block);
            } else {
                for (uint32_t y = y0; y < y1; y++)
                    for (uint32_t x = x0; x < x1; x++) clcms_ycc_pixel(t, luma + y * luma_stride + x, &block);
            }
            /* Cb = -0.16874 R - 0.33126 G + 0.5 B + 128, Cr = 0.5 R - 0.41869 G - 0.08131 B + 128, of the block's mean. */
            /* A block holds 1, 2 or 4 samples: the mean is a shift (the sums are never negative). */
            int shift = clcms_ycc_bits + (block.n == 4 ? 2 : block.n == 2 ? 1 : 0);
            int64_t scale = (int64_t)1 << shift, offset = 128 * scale + scale / 2;
            int64_t new_cb = -(int64_t)CLCMS_FIX(0.16874) * block.r - (int64_t)CLCMS_FIX(0.33126) * block.g + (int64_t)CLCMS_FIX(0.5) * block.b + offset;
            int64_t new_cr = (int64_t)CLCMS_FIX(0.5) * block.r - (int64_t)CLCMS_FIX(0.41869) * block.g - (int64_t)CLCMS_FIX(0.08131) * block.b + offset;
            cb_row[cx] = clcms_clamp8((int32_t)(new_cb >> shift));
            cr_row[cx] = clcms_clamp8((int32_t)(new_cr >> shift));
        }
    }
}
