#include "ctiff_reduce.h"

#include <stdlib.h>
#include <string.h>

// The same box average as the kernel's Image.areaDownscaled(to:): output pixel (x, y) is the mean
// of source columns x·W/w ..< (x+1)·W/w and rows y·H/h ..< (y+1)·H/h; with straight alpha the
// colour is weighted by alpha and divided back; every division rounds to nearest. Rows arrive in
// order, so only one row of column sums is held.

static uint32_t box_start(uint32_t i, uint32_t count, uint32_t length) {
    return (uint32_t)((uint64_t)i * length / count);
}

int ctiff_reducer_init(ctiff_reducer *r, uint32_t src_width, uint32_t src_height, uint32_t dst_width, uint32_t dst_height,
                       int channels, int bytes, int alpha_weighted, uint8_t *out, size_t out_row_bytes) {
    memset(r, 0, sizeof *r);
    r->src_width = src_width, r->src_height = src_height, r->dst_width = dst_width, r->dst_height = dst_height;
    r->channels = channels, r->bytes = bytes, r->alpha_weighted = alpha_weighted;
    r->out = out, r->out_row_bytes = out_row_bytes;
    r->sums = calloc((size_t)src_width * channels, sizeof(uint64_t));
    return r->sums != NULL;
}

void ctiff_reducer_free(ctiff_reducer *r) {
    free(r->sums);
    r->sums = NULL;
}

static uint64_t sample(const uint8_t *row, size_t index, int bytes) {
    if (bytes == 2) {
        uint16_t v;
        memcpy(&v, row + index * 2, 2);
        return v;
    }
    return row[index];
}

static void store(uint8_t *row, size_t index, int bytes, uint64_t v) {
    if (bytes == 2) {
        uint16_t s = (uint16_t)v;
        memcpy(row + index * 2, &s, 2);
    } else {
        row[index] = (uint8_t)v;
    }
}

/// Writes output row r->y from the sums of `rows` source rows, then clears the sums.
static void flush(ctiff_reducer *r, uint32_t rows) {
    const int ch = r->channels, alpha = ch - 1;
    const uint64_t max = r->bytes == 2 ? 65535 : 255;
    uint8_t *out = r->out + (size_t)r->y * r->out_row_bytes;
    for (uint32_t x = 0; x < r->dst_width; x++) {
        const uint32_t lo = box_start(x, r->dst_width, r->src_width), hi = box_start(x + 1, r->dst_width, r->src_width);
        const uint64_t area = (uint64_t)rows * (hi - lo);
        uint64_t totals[4] = {0, 0, 0, 0};
        for (uint32_t sx = lo; sx < hi; sx++) {
            for (int c = 0; c < ch; c++) totals[c] += r->sums[(size_t)sx * ch + c];
        }
        const size_t o = (size_t)x * ch;
        if (r->alpha_weighted) {
            const uint64_t alpha_sum = totals[alpha];
            for (int c = 0; c < alpha; c++) {
                uint64_t v = alpha_sum == 0 ? 0 : (totals[c] + alpha_sum / 2) / alpha_sum;
                store(out, o + c, r->bytes, v < max ? v : max);
            }
            store(out, o + alpha, r->bytes, area ? (alpha_sum + area / 2) / area : 0);
        } else {
            for (int c = 0; c < ch; c++) store(out, o + c, r->bytes, area ? (totals[c] + area / 2) / area : 0);
        }
    }
    memset(r->sums, 0, (size_t)r->src_width * ch * sizeof(uint64_t));
    r->y += 1;
}

void ctiff_reducer_add_row(ctiff_reducer *r, const uint8_t *row) {
    const int ch = r->channels, alpha = ch - 1;
    if (!r->alpha_weighted) {
        // Every sample summed alike: one flat loop the compiler vectorises.
        const size_t count = (size_t)r->src_width * ch;
        uint64_t *sums = r->sums;
        if (r->bytes == 1) {
            for (size_t i = 0; i < count; i++) sums[i] += row[i];
        } else {
            for (size_t i = 0; i < count; i++) sums[i] += sample(row, i, 2);
        }
    }
    for (uint32_t x = 0; r->alpha_weighted && x < r->src_width; x++) {
        const size_t base = (size_t)x * ch;
        const uint64_t a = sample(row, base + alpha, r->bytes);
        for (int c = 0; c < alpha; c++) r->sums[base + c] += sample(row, base + c, r->bytes) * a;
        r->sums[base + alpha] += a;
    }
    r->row += 1;
    // Every output row whose box ends here is written (one per source row at most, as h <= H).
    while (r->y < r->dst_height && box_start(r->y + 1, r->dst_height, r->src_height) <= r->row) {
        const uint32_t lo = box_start(r->y, r->dst_height, r->src_height), hi = box_start(r->y + 1, r->dst_height, r->src_height);
        flush(r, hi - lo);
    }
}
