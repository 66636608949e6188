#include <stdlib.h>
#include <string.h>

#include "cpng_internal.h"

struct cpng_decoder {
    cpng_error_context error; /* first: libpng's error pointer */
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t position;
    int flags;
    int header_read;
    cpng_header header;
    png_bytep *rows;
    uint32_t rows_read; /* rows delivered by cpng_decoder_read_rows */
};

static void cpng_read_memory(png_structp png, png_bytep out, size_t length) {
    cpng_decoder *decoder = png_get_io_ptr(png);
    if (length > decoder->size - decoder->position) {
        decoder->error.eof_hit = 1;
        cpng_set_message(&decoder->error, "unexpected end of data");
        png_error(png, "unexpected end of data");
    }
    memcpy(out, decoder->data + decoder->position, length);
    decoder->position += length;
}

cpng_decoder *cpng_decoder_create(const void *data, size_t size, uint32_t max_dimension, int flags) {
    cpng_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->flags = flags;
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
    return decoder;
}

cpng_status cpng_decoder_read_header(cpng_decoder *decoder, cpng_header *header) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    size_t checked = decoder->size < 8 ? decoder->size : 8;
    if (checked > 0 && memcmp(decoder->data, signature, checked) != 0) {
        cpng_set_message(&decoder->error, "not a PNG file: bad signature");
        return CPNG_ERR_CORRUPT;
    }
    if (checked < 8) {
        decoder->error.eof_hit = 1;
        cpng_set_message(&decoder->error, "unexpected end of data in the PNG signature");
        return CPNG_ERR_TRUNCATED;
    }
    if (setjmp(png_jmpbuf(decoder->png))) return cpng_failure(&decoder->error);
    png_set_read_fn(decoder->png, decoder, cpng_read_memory);
    png_read_info(decoder->png, decoder->info);
    cpng_configure_read(decoder->png, decoder->info, decoder->flags, &decoder->header);
    decoder->header_read = 1;
    *header = decoder->header;
    return CPNG_OK;
}

/* Every pixel is decoded. Chunks after the image data are still checked (a corrupt one is an
 * error), but running out of bytes here, e.g. a missing IEND, leaves a complete image. */
static cpng_status cpng_read_end(cpng_decoder *decoder) {
    if (setjmp(png_jmpbuf(decoder->png))) {
        if (decoder->error.eof_hit && !decoder->error.limit_hit) {
            decoder->error.eof_hit = 0;
            decoder->error.message[0] = '\0';
            return CPNG_OK;
        }
        return cpng_failure(&decoder->error);
    }
    png_read_end(decoder->png, decoder->info);
    return CPNG_OK;
}

cpng_status cpng_decoder_read_image(cpng_decoder *decoder, void *pixels, size_t stride) {
    if (!decoder->header_read || decoder->rows != NULL || decoder->rows_read != 0 || stride < decoder->header.rowbytes) {
        cpng_set_message(&decoder->error, "cpng_decoder_read_image called out of order or with a short stride");
        return CPNG_ERR_ARGUMENT;
    }
    uint32_t height = decoder->header.height;
    decoder->rows = malloc((size_t)height * sizeof *decoder->rows);
    if (decoder->rows == NULL) {
        decoder->error.nomem = 1;
        cpng_set_message(&decoder->error, "out of memory for row pointers");
        return CPNG_ERR_NOMEM;
    }
    for (uint32_t y = 0; y < height; y++) decoder->rows[y] = (png_bytep)pixels + (size_t)y * stride;

    if (setjmp(png_jmpbuf(decoder->png))) return cpng_failure(&decoder->error);
    png_read_image(decoder->png, decoder->rows);
    return cpng_read_end(decoder);
}

cpng_status cpng_decoder_read_rows(cpng_decoder *decoder, void *rows, size_t stride, uint32_t count) {
    if (!decoder->header_read || decoder->rows != NULL || decoder->header.interlaced || stride < decoder->header.rowbytes ||
        count > decoder->header.height - decoder->rows_read) {
        cpng_set_message(&decoder->error, "cpng_decoder_read_rows called out of order, past the last row, on an "
                                          "interlaced file or with a short stride");
        return CPNG_ERR_ARGUMENT;
    }
    /* Counted before reading: after a failure the decoder is not used again, and nothing that
     * changes between setjmp and a longjmp is read afterwards. */
    decoder->rows_read += count;
    png_bytep first = rows;
    if (setjmp(png_jmpbuf(decoder->png))) return cpng_failure(&decoder->error);
    for (uint32_t y = 0; y < count; y++) png_read_row(decoder->png, first + (size_t)y * stride, NULL);
    return CPNG_OK;
}

cpng_status cpng_decoder_finish(cpng_decoder *decoder) {
    if (!decoder->header_read || decoder->rows_read != decoder->header.height) {
        cpng_set_message(&decoder->error, "cpng_decoder_finish called before every row was read");
        return CPNG_ERR_ARGUMENT;
    }
    return cpng_read_end(decoder);
}

const char *cpng_decoder_message(const cpng_decoder *decoder) {
    return decoder->error.message[0] ? decoder->error.message : "no error";
}

int cpng_decoder_color(const cpng_decoder *decoder, cpng_color_info *color) {
    return cpng_color(decoder->png, decoder->info, color);
}

const uint8_t *cpng_decoder_icc_profile(const cpng_decoder *decoder, size_t *length) {
    return cpng_icc_profile(decoder->png, decoder->info, length);
}

const uint8_t *cpng_decoder_exif(const cpng_decoder *decoder, size_t *length) {
    return cpng_exif(decoder->png, decoder->info, length);
}

const uint8_t *cpng_decoder_xmp(const cpng_decoder *decoder, size_t *length) {
    return cpng_xmp(decoder->png, decoder->info, length);
}

void cpng_decoder_destroy(cpng_decoder *decoder) {
    if (decoder == NULL) return;
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder->rows);
    free(decoder);
}
