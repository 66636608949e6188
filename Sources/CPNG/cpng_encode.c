#include <stdlib.h>
#include <string.h>

#include "cpng_internal.h"

typedef struct cpng_writer {
    cpng_error_context error; /* first: libpng's error pointer */
    uint8_t *data;
    size_t length;
    size_t capacity;
} cpng_writer;

static void cpng_write_memory(png_structp png, png_bytep bytes, size_t length) {
    cpng_writer *writer = png_get_io_ptr(png);
    if (length > writer->capacity - writer->length) {
        size_t needed = writer->length + length;
        size_t capacity = writer->capacity ? writer->capacity : 64 * 1024;
        while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
        uint8_t *grown = needed >= writer->length ? realloc(writer->data, capacity) : NULL;
        if (grown == NULL) {
            writer->error.nomem = 1;
            cpng_set_message(&writer->error, "out of memory for the encoded file");
            png_error(png, "out of memory");
        }
        writer->data = grown;
        writer->capacity = capacity;
    }
    memcpy(writer->data + writer->length, bytes, length);
    writer->length += length;
}

static void cpng_flush_memory(png_structp png) { (void)png; }

static int cpng_color_type(uint32_t channels) {
    switch (channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 2: return PNG_COLOR_TYPE_GRAY_ALPHA;
    case 3: return PNG_COLOR_TYPE_RGB;
    case 4: return PNG_COLOR_TYPE_RGB_ALPHA;
    default: return -1;
    }
}

static cpng_status cpng_encode_argument_error(cpng_encoded *result, const char *message) {
    strncpy(result->message, message, sizeof result->message - 1);
    return CPNG_ERR_ARGUMENT;
}

cpng_status cpng_encode(const cpng_encode_params *params, cpng_encoded *result) {
    memset(result, 0, sizeof *result);
    int color_type = cpng_color_type(params->channels);
    if (color_type < 0) return cpng_encode_argument_error(result, "channels must be 1...4");
    if (params->bit_depth != 8 && params->bit_depth != 16) return cpng_encode_argument_error(result, "bit depth must be 8 or 16");
    if (params->width == 0 || params->height == 0 || params->width > PNG_UINT_31_MAX || params->height > PNG_UINT_31_MAX)
        return cpng_encode_argument_error(result, "width and height must be 1...2^31-1");
    if (params->pixels == NULL || params->stride < (size_t)params->width * params->channels * (params->bit_depth / 8))
        return cpng_encode_argument_error(result, "the pixel buffer's stride is shorter than a row");

    png_bytep *rows = malloc((size_t)params->height * sizeof *rows);
    if (rows == NULL) {
        strncpy(result->message, "out of memory for row pointers", sizeof result->message - 1);
        return CPNG_ERR_NOMEM;
    }
    for (uint32_t y = 0; y < params->height; y++) rows[y] = (png_bytep)params->pixels + (size_t)y * params->stride;

    cpng_writer writer;
    memset(&writer, 0, sizeof writer);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &writer.error, cpng_error_fn, cpng_warning_fn);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        free(rows);
        strncpy(result->message, "out of memory for libpng's write structures", sizeof result->message - 1);
        return CPNG_ERR_NOMEM;
    }
    if (setjmp(png_jmpbuf(png))) {
        cpng_status status = writer.error.nomem ? CPNG_ERR_NOMEM : CPNG_ERR_ARGUMENT;
        memcpy(result->message, writer.error.message, sizeof result->message);
        png_destroy_write_struct(&png, &info);
        free(rows);
        free(writer.data);
        return status;
    }
    png_set_write_fn(png, &writer, cpng_write_memory, cpng_flush_memory);
    /* An ICC profile libpng finds invalid is dropped with a warning rather than failing the
     * encode: the pixels matter more than the profile. */
    png_set_benign_errors(png, 1);
    int level = params->compression_level < 0 ? 0 : params->compression_level > 9 ? 9 : params->compression_level;
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, params->width, params->height, (int)params->bit_depth, color_type,
                 params->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    int wrote_icc = 0;
    if (params->icc_profile != NULL && params->icc_length >= 132 && params->icc_length <= PNG_UINT_31_MAX) {
        png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE,
                     (png_const_bytep)params->icc_profile, (png_uint_32)params->icc_length);
        wrote_icc = 1;
    }
    if (params->has_cicp && !wrote_icc) {
        /* Before PLTE and IDAT, as the chunk must be. */
        static const png_byte cicp_name[] = {'c', 'I', 'C', 'P', '\0'};
        png_unknown_chunk chunk;
        memset(&chunk, 0, sizeof chunk);
        memcpy(chunk.name, "cICP", 5);
        chunk.data = (png_bytep)params->cicp;
        chunk.size = 4;
        chunk.location = PNG_HAVE_IHDR;
        png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, cicp_name, 1);
        png_set_unknown_chunks(png, info, &chunk, 1);
    }
    if (params->exif != NULL && params->exif_length > 0 && params->exif_length <= PNG_UINT_31_MAX)
        png_set_eXIf_1(png, info, (png_uint_32)params->exif_length, (png_bytep)params->exif);
    if (params->xmp != NULL && params->xmp[0] != '\0') {
        png_text text;
        memset(&text, 0, sizeof text);
        text.compression = PNG_ITXT_COMPRESSION_NONE;
        text.key = "XML:com.adobe.xmp";
        text.text = (png_charp)params->xmp;
        text.lang = "";
        text.lang_key = "";
        png_set_text(png, info, &text, 1);
    }
    png_write_info(png, info);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (params->bit_depth == 16) png_set_swap(png);
#endif
    png_write_image(png, rows);
    png_write_end(png, NULL);

    png_destroy_write_struct(&png, &info);
    free(rows);
    result->data = writer.data;
    result->length = writer.length;
    return CPNG_OK;
}
