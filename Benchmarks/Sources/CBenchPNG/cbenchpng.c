#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "cbenchpng.h"

typedef struct reader {
    const uint8_t *data;
    size_t size;
    size_t position;
} reader;

static void read_memory(png_structp png, png_bytep out, size_t length) {
    reader *r = png_get_io_ptr(png);
    if (length > r->size - r->position) png_error(png, "unexpected end of data");
    memcpy(out, r->data + r->position, length);
    r->position += length;
}

int cbenchpng_decode(const void *data, size_t size, int preserve16, uint32_t *width, uint32_t *height,
                     size_t *rowbytes, uint8_t **pixels) {
    reader r = {data, size, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (png == NULL) return -1;
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile buffer = NULL;
    png_bytep *volatile rows = NULL;
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(buffer);
        free(rows);
        return -1;
    }
    png_set_read_fn(png, &r, read_memory);
    png_read_info(png, info);
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16) {
        if (preserve16) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            png_set_swap(png);
#endif
        } else {
            png_set_strip_16(png);
        }
    }
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);

    uint32_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    size_t stride = png_get_rowbytes(png, info);
    buffer = malloc(stride * h);
    rows = malloc(sizeof(png_bytep) * h);
    if (buffer == NULL || rows == NULL) png_error(png, "out of memory");
    for (uint32_t y = 0; y < h; y++) rows[y] = buffer + (size_t)y * stride;
    png_read_image(png, rows);
    png_read_end(png, info);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    *width = w;
    *height = h;
    *rowbytes = stride;
    *pixels = buffer;
    return 0;
}

typedef struct writer {
    uint8_t *data;
    size_t length;
    size_t capacity;
} writer;

static void write_memory(png_structp png, png_bytep bytes, size_t length) {
    writer *w = png_get_io_ptr(png);
    if (w->length + length > w->capacity) {
        size_t capacity = w->capacity ? w->capacity : 64 * 1024;
        while (capacity < w->length + length) capacity *= 2;
        uint8_t *grown = realloc(w->data, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        w->data = grown;
        w->capacity = capacity;
    }
    memcpy(w->data + w->length, bytes, length);
    w->length += length;
}

static void flush_memory(png_structp png) { (void)png; }

int cbenchpng_encode(const void *pixels, uint32_t width, uint32_t height, size_t stride, int channels,
                     int bit_depth, int level, int interlace, uint8_t **out, size_t *out_length) {
    static const int color_types[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                      PNG_COLOR_TYPE_RGB_ALPHA};
    if (channels < 1 || channels > 4) return -1;
    writer w = {NULL, 0, 0};
    png_bytep *rows = malloc(sizeof(png_bytep) * height);
    if (rows == NULL) return -1;
    for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)pixels + (size_t)y * stride;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rows);
        free(w.data);
        return -1;
    }
    png_set_write_fn(png, &w, write_memory, flush_memory);
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, width, height, bit_depth, color_types[channels],
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bit_depth == 16) png_set_swap(png);
#endif
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    *out = w.data;
    *out_length = w.length;
    return 0;
}

const char *cbenchpng_version(void) { return png_get_libpng_ver(NULL); }
