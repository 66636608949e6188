#include "cbenchwebp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>

int cbenchwebp_decode(const uint8_t *data, size_t size, int *width, int *height, int *channels, uint8_t **pixels) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK) return 1;
    int rgba = features.has_alpha || features.format == 2;
    *width = features.width;
    *height = features.height;
    *channels = rgba ? 4 : 3;
    size_t stride = (size_t)features.width * *channels;
    uint8_t *out = malloc(stride * features.height);
    if (out == NULL) return 1;
    uint8_t *ok = rgba ? WebPDecodeRGBAInto(data, size, out, stride * features.height, (int)stride)
                       : WebPDecodeRGBInto(data, size, out, stride * features.height, (int)stride);
    if (ok == NULL) {
        free(out);
        return 1;
    }
    *pixels = out;
    return 0;
}

size_t cbenchwebp_encode(const uint8_t *pixels, int width, int height, int channels, float quality, int lossless, int method) {
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) return 0;
    config.quality = quality;
    config.lossless = lossless;
    config.method = method;
    config.exact = lossless;
    picture.width = width;
    picture.height = height;
    picture.use_argb = lossless;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = (channels == 4 ? WebPPictureImportRGBA(&picture, pixels, width * 4) : WebPPictureImportRGB(&picture, pixels, width * 3))
             && WebPEncode(&config, &picture);
    size_t result = ok ? writer.size : 0;
    WebPPictureFree(&picture);
    WebPMemoryWriterClear(&writer);
    return result;
}

int cbenchwebp_decode_animation(const uint8_t *data, size_t size, int *frame_count, uint8_t **frames) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return 1;
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData bytes = {data, size};
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&bytes, &options);
    if (decoder == NULL) return 1;
    WebPAnimInfo info;
    WebPAnimDecoderGetInfo(decoder, &info);
    size_t canvas = (size_t)info.canvas_width * info.canvas_height * 4;
    uint8_t *out = malloc(canvas * info.frame_count);
    int status = out == NULL;
    for (uint32_t i = 0; status == 0 && i < info.frame_count; i++) {
        uint8_t *buffer;
        int timestamp;
        if (!WebPAnimDecoderGetNext(decoder, &buffer, &timestamp)) status = 1;
        else memcpy(out + canvas * i, buffer, canvas);
    }
    WebPAnimDecoderDelete(decoder);
    if (status != 0) {
        free(out);
        return 1;
    }
    *frame_count = (int)info.frame_count;
    *frames = out;
    return 0;
}

const char *cbenchwebp_version(void) {
    static char text[16];
    int version = WebPGetDecoderVersion();
    snprintf(text, sizeof text, "%d.%d.%d", version >> 16, (version >> 8) & 0xFF, version & 0xFF);
    return text;
}
