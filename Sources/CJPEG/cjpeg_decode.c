/* The decoder object, header reading and whole-file decoding. */
#include <stdlib.h>
#include <string.h>

#include "cjpeg_internal.h"

int cjpeg_usage_error(cjpeg_decoder *decoder, const char *message) {
    snprintf(decoder->error.message, sizeof decoder->error.message, "%s", message);
    decoder->error.failure = CJPEG_FAILURE_USAGE;
    decoder->poisoned = 1;
    return CJPEG_FAILED;
}

cjpeg_decoder *cjpeg_decoder_create(void) {
    cjpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    cjpeg_install_error_mgr(&decoder->error, &decoder->source.eof_hit);
    decoder->cinfo.err = &decoder->error.pub;
    if (setjmp(decoder->error.jump)) {
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    cjpeg_install_source_mgr(&decoder->cinfo, &decoder->source);
    cjpeg_install_scan_limit(decoder);
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF); /* EXIF */
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 2, 0xFFFF); /* ICC */
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 13, 0xFFFF); /* Photoshop IRB: IPTC */
    return decoder;
}

void cjpeg_decoder_set_fast_upsampling(cjpeg_decoder *decoder, int enabled) {
    decoder->fast_upsampling = enabled ? 1 : 0;
}

void cjpeg_decoder_set_cmyk_output(cjpeg_decoder *decoder, int enabled) {
    decoder->cmyk_output = enabled ? 1 : 0;
}

void cjpeg_decoder_destroy(cjpeg_decoder *decoder) {
    if (decoder == NULL) return;
    jpeg_destroy_decompress(&decoder->cinfo); /* never errors */
    cjpeg_raw_release(decoder);
    free(decoder->source.owned);
    free(decoder);
}

void cjpeg_decoder_set_source(cjpeg_decoder *decoder, const uint8_t *bytes, size_t count) {
    cjpeg_source_mgr *source = &decoder->source;
    source->bytes = bytes;
    source->count = count;
    source->incremental = 0;
    source->pub.next_input_byte = bytes;
    source->pub.bytes_in_buffer = count;
}

int cjpeg_decoder_append(cjpeg_decoder *decoder, const uint8_t *bytes, size_t count) {
    cjpeg_source_mgr *source = &decoder->source;
    if (source->input_ended) return cjpeg_usage_error(decoder, "bytes appended after the end of input");
    size_t unread = source->pub.bytes_in_buffer;
    size_t position = source->count - unread;
    if (source->count + count > source->capacity) {
        size_t capacity = source->capacity ? source->capacity : 65536;
        while (capacity < source->count + count) capacity *= 2;
        uint8_t *grown = realloc(source->owned, capacity);
        if (grown == NULL) {
            snprintf(decoder->error.message, sizeof decoder->error.message, "out of memory for %zu bytes", capacity);
            decoder->error.failure = CJPEG_FAILURE_NO_MEMORY;
            decoder->poisoned = 1;
            return CJPEG_FAILED;
        }
        source->owned = grown;
        source->capacity = capacity;
    }
    if (count > 0) memcpy(source->owned + source->count, bytes, count);
    source->bytes = source->owned;
    source->count += count;
    source->incremental = 1;
    /* A skip that ran past the old end swallows the start of the new bytes. */
    size_t skipped = source->skip_pending < count ? source->skip_pending : count;
    source->skip_pending -= skipped;
    position += skipped;
    source->pub.next_input_byte = source->owned + position;
    source->pub.bytes_in_buffer = source->count - position;
    return CJPEG_OK;
}

void cjpeg_decoder_end_input(cjpeg_decoder *decoder) { decoder->source.input_ended = 1; }

int cjpeg_decoder_saw_eoi_bytes(const cjpeg_decoder *decoder) {
    const cjpeg_source_mgr *source = &decoder->source;
    if (!decoder->header_read || source->count < 2) return 0;
    for (size_t i = source->eoi_scan_from; i + 1 < source->count; i++)
        if (source->bytes[i] == 0xFF && source->bytes[i + 1] == JPEG_EOI) return 1;
    return 0;
}

static int cjpeg_space(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return CJPEG_SPACE_GRAY;
    case JCS_RGB: return CJPEG_SPACE_RGB;
    case JCS_YCbCr: return CJPEG_SPACE_YCBCR;
    case JCS_CMYK: return CJPEG_SPACE_CMYK;
    case JCS_YCCK: return CJPEG_SPACE_YCCK;
    default: return CJPEG_SPACE_UNKNOWN;
    }
}

int cjpeg_decoder_read_header(cjpeg_decoder *decoder, cjpeg_header *header) {
    CJPEG_GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (!decoder->header_read) {
        if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) return CJPEG_SUSPENDED;
        decoder->header_read = 1;
        /* EOI bytes count only after the header: APP1 thumbnails carry their own. */
        decoder->source.eoi_scan_from = decoder->source.count - decoder->source.pub.bytes_in_buffer;
    }
    header->width = cinfo->image_width;
    header->height = cinfo->image_height;
    header->components = cinfo->num_components;
    header->color_space = cjpeg_space(cinfo->jpeg_color_space);
    header->progressive = cinfo->progressive_mode ? 1 : 0;
    decoder->multi_scan = jpeg_has_multiple_scans(cinfo) ? 1 : 0;
    header->multi_scan = decoder->multi_scan;
    header->arithmetic = cinfo->arith_code ? 1 : 0;
    header->adobe_inverted = cinfo->saw_Adobe_marker ? 1 : 0;
    return CJPEG_OK;
}

int cjpeg_decoder_scaled_size(cjpeg_decoder *decoder, int scale_num, uint32_t *width, uint32_t *height) {
    if (!decoder->header_read || decoder->started) return cjpeg_usage_error(decoder, "scaled_size outside the header state");
    if (scale_num < 1 || scale_num > 16) return cjpeg_usage_error(decoder, "scale_num outside 1...16");
    CJPEG_GUARD(decoder);
    cjpeg_configure_output(decoder, scale_num);
    jpeg_calc_output_dimensions(&decoder->cinfo);
    *width = decoder->cinfo.output_width;
    *height = decoder->cinfo.output_height;
    return CJPEG_OK;
}

size_t cjpeg_decoder_marker_count(const cjpeg_decoder *decoder) {
    size_t count = 0;
    for (jpeg_saved_marker_ptr m = decoder->cinfo.marker_list; m != NULL; m = m->next) count++;
    return count;
}

int cjpeg_decoder_marker_at(const cjpeg_decoder *decoder, size_t index, int *marker,
                            const uint8_t **bytes, size_t *count) {
    jpeg_saved_marker_ptr m = decoder->cinfo.marker_list;
    for (size_t i = 0; m != NULL && i < index; i++) m = m->next;
    if (m == NULL) return CJPEG_FAILED;
    *marker = m->marker;
    *bytes = m->data;
    *count = m->data_length;
    return CJPEG_OK;
}

/* Chooses the output colour space and scale. CMYK and YCCK are read as CMYK (libjpeg turns
 * YCCK into CMYK) and converted to RGB row by row. */
void cjpeg_configure_output(cjpeg_decoder *decoder, int scale_num) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    cinfo->scale_num = (unsigned int)scale_num;
    cinfo->scale_denom = 8;
    /* Merged (non-fancy) chroma upsampling has a SIMD path and is about 20% cheaper at 8/8;
     * only for output that is averaged down afterwards, since it changes pixels. */
    cinfo->do_fancy_upsampling = decoder->fast_upsampling ? FALSE : TRUE;
    decoder->cmyk = 0;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        /* With cmyk_output the caller takes the samples as stored and converts them itself. */
        decoder->cmyk = decoder->cmyk_output ? 0 : 1;
        decoder->inverted = cinfo->saw_Adobe_marker ? 1 : 0;
        break;
    default:
        cinfo->out_color_space = JCS_RGB;
        break;
    }
}

void cjpeg_after_start(cjpeg_decoder *decoder, uint32_t *width, uint32_t *height, int *channels) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (decoder->cmyk) {
        decoder->cmyk_row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                        cinfo->output_width * 4, 1);
    }
    decoder->started = 1;
    *width = cinfo->output_width;
    *height = cinfo->output_height;
    *channels = decoder->cmyk ? 3 : cinfo->output_components;
}

/* (a·b)/255 rounded to nearest, exactly, for a, b in 0...255. */
static inline uint8_t cjpeg_mul_div_255(unsigned a, unsigned b) {
    unsigned t = a * b + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

/* R = (255 − C)(255 − K)/255 on true ink values. Adobe files store 255 − ink. */
static void cjpeg_cmyk_to_rgb(const JSAMPLE *cmyk, uint8_t *rgb, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++, cmyk += 4, rgb += 3) {
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        rgb[0] = cjpeg_mul_div_255(c, k);
        rgb[1] = cjpeg_mul_div_255(m, k);
        rgb[2] = cjpeg_mul_div_255(y, k);
    }
}

JDIMENSION cjpeg_read_rows(cjpeg_decoder *decoder, uint8_t *dst, size_t stride, JDIMENSION first_row,
                           JDIMENSION max_rows) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    JDIMENSION y = cinfo->output_scanline;
    uint8_t *row = dst + (size_t)(y - first_row) * stride;
    if (decoder->cmyk) {
        JDIMENSION n = jpeg_read_scanlines(cinfo, decoder->cmyk_row, 1);
        if (n == 1) cjpeg_cmyk_to_rgb(decoder->cmyk_row[0], row, cinfo->output_width, decoder->inverted);
        return n;
    }
    JSAMPROW rows[16];
    JDIMENSION left = cinfo->output_height - y;
    JDIMENSION want = left < max_rows ? left : max_rows;
    if (want > 16) want = 16;
    for (JDIMENSION i = 0; i < want; i++) rows[i] = row + (size_t)i * stride;
    return jpeg_read_scanlines(cinfo, rows, want);
}

int cjpeg_decoder_start(cjpeg_decoder *decoder, int scale_num, uint32_t *width, uint32_t *height, int *channels) {
    if (!decoder->header_read || decoder->started) return cjpeg_usage_error(decoder, "start outside the header state");
    if (scale_num < 1 || scale_num > 16) return cjpeg_usage_error(decoder, "scale_num outside 1...16");
    CJPEG_GUARD(decoder);
    cjpeg_configure_output(decoder, scale_num);
    if (!jpeg_start_decompress(&decoder->cinfo)) return CJPEG_SUSPENDED;
    cjpeg_after_start(decoder, width, height, channels);
    return CJPEG_OK;
}

/* After the last row of a one-shot decode. libjpeg pads missing data and carries on; the image is
 * only whole if the data never ran out, or ran out just before EOI of a single Huffman scan that
 * needed no more bits. */
int cjpeg_finish_one_shot(cjpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    jpeg_finish_decompress(cinfo);
    decoder->finished = 1;
    if (decoder->source.eof_hit &&
        (decoder->multi_scan || cinfo->arith_code || decoder->error.data_warnings > 0)) {
        snprintf(decoder->error.message, sizeof decoder->error.message,
                 "Premature end of JPEG file: the data ends before the image (%s)",
                 decoder->error.warnings ? decoder->error.first_warning : "no EOI marker");
        decoder->error.failure = CJPEG_FAILURE_TRUNCATED;
        decoder->poisoned = 1;
        return CJPEG_FAILED;
    }
    return CJPEG_OK;
}

int cjpeg_decoder_read_pixels(cjpeg_decoder *decoder, uint8_t *dst, size_t stride) {
    if (!decoder->started || decoder->buffered || decoder->finished)
        return cjpeg_usage_error(decoder, "read_pixels outside a started one-shot decode");
    CJPEG_GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    while (cinfo->output_scanline < cinfo->output_height) {
        if (cjpeg_read_rows(decoder, dst, stride, 0, 16) == 0) return CJPEG_SUSPENDED;
    }
    return cjpeg_finish_one_shot(decoder);
}

int cjpeg_decoder_read_strip(cjpeg_decoder *decoder, uint8_t *dst, size_t stride, uint32_t capacity, uint32_t *rows) {
    *rows = 0;
    if (!decoder->started || decoder->buffered || decoder->finished || capacity == 0)
        return cjpeg_usage_error(decoder, "read_strip outside a started one-shot decode");
    CJPEG_GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    JDIMENSION first = cinfo->output_scanline;
    while (cinfo->output_scanline < cinfo->output_height && cinfo->output_scanline - first < capacity) {
        JDIMENSION room = capacity - (cinfo->output_scanline - first);
        if (cjpeg_read_rows(decoder, dst, stride, first, room) == 0) return CJPEG_SUSPENDED;
    }
    *rows = cinfo->output_scanline - first;
    if (cinfo->output_scanline < cinfo->output_height) return CJPEG_OK;
    return cjpeg_finish_one_shot(decoder);
}

int cjpeg_decoder_failure(const cjpeg_decoder *decoder) { return decoder->error.failure; }
const char *cjpeg_decoder_message(const cjpeg_decoder *decoder) { return decoder->error.message; }
