#include "cbenchheif.h"

#include <libheif/heif.h>
#include <stdlib.h>
#include <string.h>

int cbenchheif_decode(const void *data, size_t size, uint8_t **pixels, int *width, int *height) {
    struct heif_context *ctx = heif_context_alloc();
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    int status = -1;
    if (!ctx || !options) goto done;
    options->convert_hdr_to_8bit = 1;
    if (heif_context_read_from_memory_without_copy(ctx, data, size, NULL).code != heif_error_Ok) goto done;
    if (heif_context_get_primary_image_handle(ctx, &handle).code != heif_error_Ok) goto done;
    enum heif_chroma chroma = heif_image_handle_has_alpha_channel(handle) ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
    if (heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options).code != heif_error_Ok) goto done;
    *width = heif_image_get_width(image, heif_channel_interleaved);
    *height = heif_image_get_height(image, heif_channel_interleaved);
    if (pixels) {
        // Handed to the caller, who frees it: a copy freed here unread is dead code that the
        // compiler removes (malloc, memcpy and free all vanished from the object file).
        int stride = 0;
        const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
        size_t row = (size_t)*width * (chroma == heif_chroma_interleaved_RGBA ? 4 : 3);
        uint8_t *copy = malloc(row * (size_t)*height);
        if (!copy) goto done;
        for (int y = 0; y < *height; y++) memcpy(copy + row * y, plane + (size_t)stride * y, row);
        *pixels = copy;
    }
    status = 0;
done:
    if (image) heif_image_release(image);
    if (handle) heif_image_handle_release(handle);
    if (options) heif_decoding_options_free(options);
    if (ctx) heif_context_free(ctx);
    return status;
}

struct sink {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
};

static struct heif_error write_to_sink(struct heif_context *ctx, const void *data, size_t size, void *user) {
    (void)ctx;
    struct sink *sink = user;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, NULL};
    if (sink->length + size > sink->capacity) {
        size_t capacity = (sink->length + size) * 2;
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (!grown) {
            struct heif_error failed = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
            return failed;
        }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->length, data, size);
    sink->length += size;
    return ok;
}

int cbenchheif_encode(const uint8_t *pixels, int width, int height, int channels, int av1, int quality,
                      uint8_t **out, size_t *out_length) {
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct sink sink = {NULL, 0, 0};
    int status = -1;
    if (!ctx) goto done;
    if (heif_context_get_encoder_for_format(ctx, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder).code != heif_error_Ok) goto done;
    heif_encoder_set_lossy_quality(encoder, quality);
    enum heif_chroma chroma = channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
    if (heif_image_create(width, height, heif_colorspace_RGB, chroma, &image).code != heif_error_Ok) goto done;
    if (heif_image_add_plane(image, heif_channel_interleaved, width, height, 8).code != heif_error_Ok) goto done;
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) memcpy(plane + (size_t)y * stride, pixels + (size_t)y * width * channels, (size_t)width * channels);
    if (heif_context_encode_image(ctx, image, encoder, NULL, NULL).code != heif_error_Ok) goto done;
    struct heif_writer writer = {1, write_to_sink};
    if (heif_context_write(ctx, &writer, &sink).code != heif_error_Ok) goto done;
    *out = sink.bytes;
    *out_length = sink.length;
    sink.bytes = NULL;
    status = 0;
done:
    free(sink.bytes);
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    if (ctx) heif_context_free(ctx);
    return status;
}

const char *cbenchheif_version(void) { return heif_get_version(); }
