/* Encoding: one call, a growing memory destination, errors captured behind setjmp. */
#include <stdlib.h>
#include <string.h>

#include "cjpeg_internal.h"

typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;
    size_t capacity;
    size_t used; /* set by term_destination */
} cjpeg_destination_mgr;

typedef struct {
    cjpeg_error_mgr error;
    cjpeg_destination_mgr destination;
} cjpeg_encoder_state;

static void cjpeg_init_destination(j_compress_ptr cinfo) {
    cjpeg_destination_mgr *dest = (cjpeg_destination_mgr *)cinfo->dest;
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

static boolean cjpeg_empty_output_buffer(j_compress_ptr cinfo) {
    cjpeg_destination_mgr *dest = (cjpeg_destination_mgr *)cinfo->dest;
    size_t used = dest->capacity; /* libjpeg calls this only when the buffer is full */
    size_t capacity = dest->capacity * 2;
    uint8_t *grown = realloc(dest->buffer, capacity);
    if (grown == NULL) cjpeg_fail((j_common_ptr)cinfo, CJPEG_FAILURE_NO_MEMORY, "out of memory growing the output");
    dest->buffer = grown;
    dest->capacity = capacity;
    dest->pub.next_output_byte = grown + used;
    dest->pub.free_in_buffer = capacity - used;
    return TRUE;
}

static void cjpeg_term_destination(j_compress_ptr cinfo) {
    cjpeg_destination_mgr *dest = (cjpeg_destination_mgr *)cinfo->dest;
    dest->used = dest->capacity - dest->pub.free_in_buffer;
}

/* Sets up compression for interleaved rows; everything here may longjmp. */
static void cjpeg_configure(j_compress_ptr cinfo, const cjpeg_encode_params *params, const void *context) {
    (void)context;
    cinfo->image_width = params->width;
    cinfo->image_height = params->height;
    cinfo->input_components = params->components;
    cinfo->in_color_space = params->components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, params->quality, TRUE);
    if (params->components == 3 && params->subsampling_444) {
        cinfo->comp_info[0].h_samp_factor = 1;
        cinfo->comp_info[0].v_samp_factor = 1;
    }
    if (params->progressive) jpeg_simple_progression(cinfo);
}

typedef struct {
    const uint8_t *pixels;
    size_t stride;
} cjpeg_rows_input;

static void cjpeg_write_rows(j_compress_ptr cinfo, const void *context, uint8_t *scratch) {
    (void)scratch;
    const cjpeg_rows_input *input = context;
    JSAMPROW rows[16];
    while (cinfo->next_scanline < cinfo->image_height) {
        JDIMENSION y = cinfo->next_scanline;
        JDIMENSION left = cinfo->image_height - y;
        JDIMENSION count = left < 16 ? left : 16;
        for (JDIMENSION i = 0; i < count; i++) rows[i] = (JSAMPROW)(input->pixels + (size_t)(y + i) * input->stride);
        jpeg_write_scanlines(cinfo, rows, count);
    }
}

int cjpeg_encode_run(const cjpeg_encode_params *params, char *message, size_t message_capacity, uint8_t **out, size_t *out_count,
                     cjpeg_configure_fn configure, cjpeg_write_fn write, const void *context, uint8_t *scratch) {
    struct jpeg_compress_struct cinfo;
    cjpeg_encoder_state *state = calloc(1, sizeof *state);
    *out = NULL;
    *out_count = 0;
    if (state == NULL) {
        snprintf(message, message_capacity, "out of memory");
        return CJPEG_FAILED;
    }
    cjpeg_install_error_mgr(&state->error, NULL);
    cinfo.err = &state->error.pub;
    state->destination.capacity = 65536;
    state->destination.buffer = malloc(state->destination.capacity);
    if (state->destination.buffer == NULL) {
        snprintf(message, message_capacity, "out of memory");
        free(state);
        return CJPEG_FAILED;
    }
    if (setjmp(state->error.jump)) {
        snprintf(message, message_capacity, "%s", state->error.message);
        jpeg_destroy_compress(&cinfo);
        free(state->destination.buffer);
        free(state);
        return CJPEG_FAILED;
    }
    jpeg_create_compress(&cinfo);
    state->destination.pub.init_destination = cjpeg_init_destination;
    state->destination.pub.empty_output_buffer = cjpeg_empty_output_buffer;
    state->destination.pub.term_destination = cjpeg_term_destination;
    cinfo.dest = &state->destination.pub;
    configure(&cinfo, params, context);
    jpeg_start_compress(&cinfo, TRUE);
    for (size_t at = 0; params->markers != NULL && at + 3 <= params->markers_count;) {
        size_t length = (size_t)params->markers[at + 1] << 8 | params->markers[at + 2];
        if (params->markers[at] < 0xE0 || params->markers[at] > 0xEF || length > 65533 || length > params->markers_count - at - 3) break;
        jpeg_write_marker(&cinfo, params->markers[at], params->markers + at + 3, (unsigned int)length);
        at += 3 + length;
    }
    if (params->icc != NULL && params->icc_count > 0)
        jpeg_write_icc_profile(&cinfo, params->icc, (unsigned int)params->icc_count);
    write(&cinfo, context, scratch);
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = state->destination.buffer;
    *out_count = state->destination.used;
    free(state);
    return CJPEG_OK;
}

int cjpeg_encode(const cjpeg_encode_params *params, const uint8_t *pixels, size_t stride,
                 uint8_t **out, size_t *out_count, char *message, size_t message_capacity) {
    *out = NULL;
    *out_count = 0;
    if (params->components != 1 && params->components != 3) {
        snprintf(message, message_capacity, "%d components: only 1 (gray) or 3 (RGB) can be encoded", params->components);
        return CJPEG_FAILED;
    }
    cjpeg_rows_input input = {pixels, stride};
    return cjpeg_encode_run(params, message, message_capacity, out, out_count, cjpeg_configure, cjpeg_write_rows, &input, NULL);
}

void cjpeg_free(void *pointer) { free(pointer); }
