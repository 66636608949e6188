#include <string.h>

#include "cpng_internal.h"

void cpng_set_message(cpng_error_context *context, const char *message) {
    strncpy(context->message, message, sizeof context->message - 1);
    context->message[sizeof context->message - 1] = '\0';
}

void cpng_error_fn(png_structp png, png_const_charp message) {
    cpng_error_context *context = png_get_error_ptr(png);
    /* Our own png_error calls set the message first; keep the more specific one. */
    if (context->message[0] == '\0') cpng_set_message(context, message ? message : "libpng error");
    png_longjmp(png, 1);
}

void cpng_warning_fn(png_structp png, png_const_charp message) {
    cpng_error_context *context = png_get_error_ptr(png);
    /* png_check_IHDR warns "... exceeds user limit ..." and then fails with "Invalid IHDR data";
     * remember the reason so the failure is reported as a limit, not as corruption. */
    if (message != NULL && strstr(message, "exceeds user limit") != NULL) {
        context->limit_hit = 1;
        cpng_set_message(context, message);
    }
}

cpng_status cpng_failure(const cpng_error_context *context) {
    if (context->nomem) return CPNG_ERR_NOMEM;
    if (context->limit_hit) return CPNG_ERR_LIMIT;
    if (context->eof_hit) return CPNG_ERR_TRUNCATED;
    return CPNG_ERR_CORRUPT;
}

/* Text chunks are never used by CoderPNG: treating them as unknown chunks that are never kept
 * skips their decompression (zTXt/iTXt bombs) and their allocation. */
static const png_byte cpng_ignored_chunks[] = {
    't', 'E', 'X', 't', '\0',
    'z', 'T', 'X', 't', '\0',
    'i', 'T', 'X', 't', '\0',
};

/* cICP (PNG 3rd edition, colour code points) is newer than Debian's libpng 1.6.39: kept as an
 * unknown chunk and read by cpng_cicp. */
static const png_byte cpng_kept_chunks[] = {'c', 'I', 'C', 'P', '\0'};

png_structp cpng_create_read(cpng_error_context *context, uint32_t max_dimension) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, context, cpng_error_fn, cpng_warning_fn);
    if (png == NULL) return NULL;
    /* These setters only report misuse, but misuse reports may longjmp: keep a boundary. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, NULL, NULL);
        return NULL;
    }
    if (max_dimension == 0 || max_dimension > PNG_UINT_31_MAX) max_dimension = PNG_UINT_31_MAX;
    png_set_user_limits(png, max_dimension, max_dimension);
    png_set_chunk_cache_max(png, 1000);
    png_set_chunk_malloc_max(png, 8 * 1024 * 1024);
    /* Corrupt critical chunks (IHDR, PLTE, IDAT) are errors, corrupt ancillary chunks are
     * dropped with a warning: libpng's defaults, stated so a change upstream cannot loosen them. */
    png_set_crc_action(png, PNG_CRC_DEFAULT, PNG_CRC_DEFAULT);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, cpng_ignored_chunks,
                                (int)(sizeof cpng_ignored_chunks / 5));
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, cpng_kept_chunks, 1);
    return png;
}

void cpng_configure_read(png_structp png, png_infop info, int flags, cpng_header *header) {
    png_byte color_type = png_get_color_type(png, info);
    png_byte bit_depth = png_get_bit_depth(png, info);

    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16) {
        if (flags & CPNG_FLAG_PRESERVE_16) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            png_set_swap(png);
#endif
        } else {
            png_set_strip_16(png);
        }
    }
    int interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    if (interlaced) (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);

    header->width = png_get_image_width(png, info);
    header->height = png_get_image_height(png, info);
    header->channels = png_get_channels(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->interlaced = (uint32_t)interlaced;
    header->rowbytes = png_get_rowbytes(png, info);
}

const uint8_t *cpng_icc_profile(png_structp png, png_infop info, size_t *length) {
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 size = 0;
    *length = 0;
    if (png == NULL || info == NULL) return NULL;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &size) != PNG_INFO_iCCP || profile == NULL)
        return NULL;
    *length = size;
    return profile;
}

int cpng_color(png_structp png, png_infop info, cpng_color_info *color) {
    memset(color, 0, sizeof *color);
    if (png == NULL || info == NULL) return 0;
    png_unknown_chunkp chunks = NULL;
    int count = png_get_unknown_chunks(png, info, &chunks);
    for (int i = 0; i < count; i++) {
        if (memcmp(chunks[i].name, "cICP", 4) == 0 && chunks[i].size == 4 && chunks[i].data != NULL) {
            memcpy(color->cicp, chunks[i].data, 4);
            color->has_cicp = 1;
            break;
        }
    }
    int intent = 0;
    color->has_srgb = png_get_sRGB(png, info, &intent) == PNG_INFO_sRGB;
    png_fixed_point gamma = 0;
    if (png_get_gAMA_fixed(png, info, &gamma) == PNG_INFO_gAMA) color->gamma = (int32_t)gamma;
    png_fixed_point c[8] = {0};
    if (png_get_cHRM_fixed(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]) == PNG_INFO_cHRM) {
        for (int i = 0; i < 8; i++) color->chrm[i] = (int32_t)c[i];
        color->has_chrm = 1;
    }
    return 1;
}

const uint8_t *cpng_exif(png_structp png, png_infop info, size_t *length) {
    png_bytep exif = NULL;
    png_uint_32 size = 0;
    *length = 0;
    if (png == NULL || info == NULL) return NULL;
    if (png_get_eXIf_1(png, info, &size, &exif) != PNG_INFO_eXIf || exif == NULL) return NULL;
    *length = size;
    return exif;
}
