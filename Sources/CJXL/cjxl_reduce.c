#include "cjxl.h"

#include <stdlib.h>
#include <string.h>

// The kernel's box average (Image.areaDownscaled): output pixel (x, y) is the mean of source
// columns x·W/w ..< (x+1)·W/w and rows y·H/h ..< (y+1)·H/h; with straight alpha the colour is
// weighted by alpha and divided back; every division rounds to nearest. Sums are integers, so
// the order libjxl delivers rows in does not change the result.

static uint32_t box_start(uint32_t i, uint32_t count, uint32_t length) {
    return (uint32_t)((uint64_t)i * length / count);
}

static uint32_t *box_map(uint32_t length, uint32_t count) {
    uint32_t *map = malloc((size_t)length * sizeof *map);
    if (!map) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        for (uint32_t s = box_start(i, count, length); s < box_start(i + 1, count, length); s++) map[s] = i;
    }
    return map;
}

int cjxl_reducer_init(cjxl_reducer *r, uint32_t src_width, uint32_t src_height, uint32_t dst_width, uint32_t dst_height,
                      int channels, int bytes, int alpha_weighted) {
    memset(r, 0, sizeof *r);
    if (!dst_width || !dst_height || dst_width > src_width || dst_height > src_height) return 0;
    r->src_width = src_width, r->src_height = src_height, r->dst_width = dst_width, r->dst_height = dst_height;
    r->channels = channels, r->bytes = bytes, r->alpha_weighted = alpha_weighted;
    r->column_box = box_map(src_width, dst_width);
    r->row_box = box_map(src_height, dst_height);
    return r->column_box && r->row_box;
}

static void *reducer_init_threads(void *opaque, size_t num_threads, size_t num_pixels_per_thread) {
    (void)num_pixels_per_thread;
    cjxl_reducer *r = opaque;
    const size_t count = (size_t)r->dst_width * r->dst_height * r->channels;
    if (r->sums) return NULL;  // one frame per reducer
    r->sums = calloc(num_threads, sizeof *r->sums);
    if (!r->sums) return NULL;
    r->threads = num_threads;
    for (size_t t = 0; t < num_threads; t++) {
        r->sums[t] = calloc(count, sizeof(uint64_t));
        if (!r->sums[t]) return NULL;
    }
    return r;
}

static void reducer_run(void *opaque, size_t thread_id, size_t x, size_t y, size_t num_pixels, const void *pixels) {
    cjxl_reducer *r = opaque;
    if (!r || !r->sums || thread_id >= r->threads || !r->sums[thread_id] || y >= r->src_height || x + num_pixels > r->src_width) {
        if (r) r->failed = 1;
        return;
    }
    const int ch = r->channels, alpha = ch - 1;
    uint64_t *row = r->sums[thread_id] + (size_t)r->row_box[y] * r->dst_width * ch;
    const uint8_t *p8 = pixels;
    const uint16_t *p16 = pixels;
    for (size_t i = 0; i < num_pixels; i++) {
        uint64_t *out = row + (size_t)r->column_box[x + i] * ch;
        const size_t base = i * ch;
        if (r->alpha_weighted) {
            const uint64_t a = r->bytes == 2 ? p16[base + alpha] : p8[base + alpha];
            for (int c = 0; c < alpha; c++) out[c] += (r->bytes == 2 ? p16[base + c] : p8[base + c]) * a;
            out[alpha] += a;
        } else if (r->bytes == 2) {
            for (int c = 0; c < ch; c++) out[c] += p16[base + c];
        } else {
            for (int c = 0; c < ch; c++) out[c] += p8[base + c];
        }
    }
}

static void reducer_destroy(void *opaque) { (void)opaque; }

JxlDecoderStatus cjxl_reducer_attach(JxlDecoder *dec, const JxlPixelFormat *format, cjxl_reducer *r) {
    return JxlDecoderSetMultithreadedImageOutCallback(dec, format, reducer_init_threads, reducer_run, reducer_destroy, r);
}

static void store(uint8_t *row, size_t index, int bytes, uint64_t v) {
    if (bytes == 2) {
        uint16_t s = (uint16_t)v;
        memcpy(row + index * 2, &s, 2);
    } else {
        row[index] = (uint8_t)v;
    }
}

int cjxl_reducer_finish(cjxl_reducer *r, uint8_t *out) {
    if (r->failed || !r->sums || !r->threads) {
        cjxl_reducer_free(r);
        return 0;
    }
    const int ch = r->channels, alpha = ch - 1;
    const size_t count = (size_t)r->dst_width * r->dst_height * ch;
    uint64_t *total = r->sums[0];
    for (size_t t = 1; t < r->threads; t++) {
        for (size_t i = 0; i < count; i++) total[i] += r->sums[t][i];
    }
    const uint64_t max = r->bytes == 2 ? 65535 : 255;
    for (uint32_t y = 0; y < r->dst_height; y++) {
        const uint64_t rows = box_start(y + 1, r->dst_height, r->src_height) - box_start(y, r->dst_height, r->src_height);
        uint8_t *line = out + (size_t)y * r->dst_width * ch * r->bytes;
        for (uint32_t x = 0; x < r->dst_width; x++) {
            const uint64_t area = rows * (box_start(x + 1, r->dst_width, r->src_width) - box_start(x, r->dst_width, r->src_width));
            const uint64_t *s = total + ((size_t)y * r->dst_width + x) * ch;
            const size_t o = (size_t)x * ch;
            if (r->alpha_weighted) {
                const uint64_t alpha_sum = s[alpha];
                for (int c = 0; c < alpha; c++) {
                    uint64_t v = alpha_sum == 0 ? 0 : (s[c] + alpha_sum / 2) / alpha_sum;
                    store(line, o + c, r->bytes, v < max ? v : max);
                }
                store(line, o + alpha, r->bytes, area ? (alpha_sum + area / 2) / area : 0);
            } else {
                for (int c = 0; c < ch; c++) store(line, o + c, r->bytes, area ? (s[c] + area / 2) / area : 0);
            }
        }
    }
    cjxl_reducer_free(r);
    return 1;
}

void cjxl_reducer_free(cjxl_reducer *r) {
    if (r->sums) {
        for (size_t t = 0; t < r->threads; t++) free(r->sums[t]);
        free(r->sums);
    }
    free(r->column_box);
    free(r->row_box);
    r->sums = NULL, r->column_box = NULL, r->row_box = NULL, r->threads = 0;
}
