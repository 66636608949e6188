#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpng_internal.h"

struct cpng_progressive {
    cpng_error_context error; /* first: libpng's error pointer */
    png_structp png;
    png_infop info;
    int flags;
    uint64_t pixel_limit;
    cpng_status status;
    int has_header;
    int done;
    int pass;
    uint64_t rows_delivered;
    cpng_header header;
    uint8_t *pixels;
};

/* Called by libpng once every chunk before the image data is read. */
static void cpng_info_callback(png_structp png, png_infop info) {
    cpng_progressive *decoder = png_get_progressive_ptr(png);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if ((uint64_t)width * height > decoder->pixel_limit) {
        decoder->error.limit_hit = 1;
        snprintf(decoder->error.message, sizeof decoder->error.message,
                 "the PNG is %ux%u, over the pixel limit of %llu pixels", (unsigned)width, (unsigned)height,
                 (unsigned long long)decoder->pixel_limit);
        png_error(png, "pixel limit");
    }
    cpng_configure_read(png, info, decoder->flags, &decoder->header);
    uint64_t bytes = (uint64_t)decoder->header.rowbytes * decoder->header.height;
    /* Zeroed, so rows not decoded yet read as black (transparent where there is alpha). */
    decoder->pixels = bytes == (size_t)bytes ? calloc((size_t)bytes, 1) : NULL;
    if (decoder->pixels == NULL) {
        decoder->error.nomem = 1;
        cpng_set_message(&decoder->error, "out of memory for the pixel buffer");
        png_error(png, "out of memory");
    }
    decoder->has_header = 1;
}

/* Called for every row of every pass. With interlace handling on, libpng calls it for each
 * image row in each pass, repeating a pass's row over the rows its Adam7 block covers and
 * passing NULL for rows an earlier pass already owns; png_progressive_combine_row fills each
 * block ("blocky display"), which makes the early passes a coarse preview of the whole image. */
static void cpng_row_callback(png_structp png, png_bytep row, png_uint_32 row_number, int pass) {
    cpng_progressive *decoder = png_get_progressive_ptr(png);
    if (row == NULL || row_number >= decoder->header.height) return;
    png_bytep target = decoder->pixels + (size_t)row_number * decoder->header.rowbytes;
    if (decoder->header.interlaced)
        png_progressive_combine_row(png, target, row);
    else
        memcpy(target, row, decoder->header.rowbytes);
    decoder->pass = pass;
    decoder->rows_delivered++;
}

static void cpng_end_callback(png_structp png, png_infop info) {
    (void)info;
    cpng_progressive *decoder = png_get_progressive_ptr(png);
    decoder->done = 1;
    /* Stop here: bytes after IEND are not part of the image. */
    (void)png_process_data_pause(png, 0);
}

cpng_progressive *cpng_progressive_create(uint32_t max_dimension, uint64_t pixel_limit, int flags) {
    cpng_progressive *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->flags = flags;
    decoder->pixel_limit = pixel_limit;
    decoder->status = CPNG_NEED_MORE;
    decoder->png = cpng_create_read(&decoder->error, max_dimension);
    if (decoder->png == NULL) {
        free(decoder);
        return NULL;
    }
    decoder->info = png_create_info_struct(decoder->png);
    if (decoder->info == NULL) {
        png_destroy_read_struct(&decoder->png, NULL, NULL);
        free(decoder);
        return NULL;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
        free(decoder);
        return NULL;
    }
    png_set_progressive_read_fn(decoder->png, decoder, cpng_info_callback, cpng_row_callback, cpng_end_callback);
    return decoder;
}

cpng_status cpng_progressive_feed(cpng_progressive *decoder, const void *data, size_t size) {
    if (decoder->status < 0) return decoder->status;
    if (decoder->done) return CPNG_DONE;
    if (size == 0) return CPNG_NEED_MORE;
    if (setjmp(png_jmpbuf(decoder->png))) {
        decoder->status = cpng_failure(&decoder->error);
        return decoder->status;
    }
    png_process_data(decoder->png, decoder->info, (png_bytep)data, size);
    decoder->status = decoder->done ? CPNG_DONE : CPNG_NEED_MORE;
    return decoder->status;
}

int cpng_progressive_header(const cpng_progressive *decoder, cpng_header *header) {
    if (!decoder->has_header) return 0;
    *header = decoder->header;
    return 1;
}

const uint8_t *cpng_progressive_pixels(const cpng_progressive *decoder) { return decoder->pixels; }

uint64_t cpng_progressive_rows_delivered(const cpng_progressive *decoder) { return decoder->rows_delivered; }

int cpng_progressive_pass(const cpng_progressive *decoder) { return decoder->pass; }

const char *cpng_progressive_message(const cpng_progressive *decoder) {
    return decoder->error.message[0] ? decoder->error.message : "no error";
}

int cpng_progressive_color(const cpng_progressive *decoder, cpng_color_info *color) {
    return cpng_color(decoder->png, decoder->info, color);
}

const uint8_t *cpng_progressive_icc_profile(const cpng_progressive *decoder, size_t *length) {
    return cpng_icc_profile(decoder->png, decoder->info, length);
}

const uint8_t *cpng_progressive_exif(const cpng_progressive *decoder, size_t *length) {
    return cpng_exif(decoder->png, decoder->info, length);
}

const uint8_t *cpng_progressive_xmp(const cpng_progressive *decoder, size_t *length) {
    return cpng_xmp(decoder->png, decoder->info, length);
}

void cpng_progressive_destroy(cpng_progressive *decoder) {
    if (decoder == NULL) return;
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder->pixels);
    free(decoder);
}
