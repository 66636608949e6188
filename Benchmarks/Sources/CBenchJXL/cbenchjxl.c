#include "cbenchjxl.h"

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
#include <stdio.h>
#include <stdlib.h>

int cbenchjxl_decode(const uint8_t *data, size_t size, int threads, int *width, int *height, uint8_t **rgb) {
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    void *runner = threads > 0 ? JxlThreadParallelRunnerCreate(NULL, (size_t)threads) : NULL;
    int result = -1;
    uint8_t *buffer = NULL;
    if (runner) JxlDecoderSetParallelRunner(dec, JxlThreadParallelRunner, runner);
    JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE);
    JxlDecoderSetInput(dec, data, size);
    JxlDecoderCloseInput(dec);
    JxlPixelFormat format = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    JxlBasicInfo info;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(dec);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlDecoderGetBasicInfo(dec, &info);
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            JxlDecoderImageOutBufferSize(dec, &format, &needed);
            buffer = malloc(needed);
            if (!buffer || JxlDecoderSetImageOutBuffer(dec, &format, buffer, needed) != JXL_DEC_SUCCESS) break;
        } else if (status == JXL_DEC_FULL_IMAGE) {
            *width = (int)info.xsize, *height = (int)info.ysize, *rgb = buffer;
            buffer = NULL;
            result = 0;
            break;
        } else {
            break;
        }
    }
    free(buffer);
    if (runner) JxlThreadParallelRunnerDestroy(runner);
    JxlDecoderDestroy(dec);
    return result;
}

int cbenchjxl_encode(const uint8_t *rgb, int width, int height, float distance, int lossless, int effort, int threads,
                     uint8_t **out, size_t *out_size) {
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    void *runner = threads > 0 ? JxlThreadParallelRunnerCreate(NULL, (size_t)threads) : NULL;
    if (runner) JxlEncoderSetParallelRunner(enc, JxlThreadParallelRunner, runner);
    JxlBasicInfo info;
    JxlEncoderInitBasicInfo(&info);
    info.xsize = (uint32_t)width, info.ysize = (uint32_t)height, info.bits_per_sample = 8, info.num_color_channels = 3;
    info.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE;
    JxlColorEncoding color;
    JxlColorEncodingSetToSRGB(&color, JXL_FALSE);
    int result = -1;
    size_t capacity = 1 << 16, used = 0;
    uint8_t *buffer = malloc(capacity);
    JxlEncoderFrameSettings *settings = NULL;
    if (JxlEncoderSetBasicInfo(enc, &info) != JXL_ENC_SUCCESS || JxlEncoderSetColorEncoding(enc, &color) != JXL_ENC_SUCCESS) goto done;
    settings = JxlEncoderFrameSettingsCreate(enc, NULL);
    JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort);
    if (lossless) JxlEncoderSetFrameLossless(settings, JXL_TRUE);
    else JxlEncoderSetFrameDistance(settings, distance);
    JxlPixelFormat format = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    if (JxlEncoderAddImageFrame(settings, &format, rgb, (size_t)width * height * 3) != JXL_ENC_SUCCESS) goto done;
    JxlEncoderCloseInput(enc);
    for (;;) {
        uint8_t *next = buffer + used;
        size_t avail = capacity - used;
        JxlEncoderStatus status = JxlEncoderProcessOutput(enc, &next, &avail);
        used = (size_t)(next - buffer);
        if (status == JXL_ENC_SUCCESS) break;
        if (status != JXL_ENC_NEED_MORE_OUTPUT) goto done;
        capacity *= 2;
        uint8_t *grown = realloc(buffer, capacity);
        if (!grown) goto done;
        buffer = grown;
    }
    *out = buffer, *out_size = used;
    buffer = NULL;
    result = 0;
done:
    free(buffer);
    if (runner) JxlThreadParallelRunnerDestroy(runner);
    JxlEncoderDestroy(enc);
    return result;
}

const char *cbenchjxl_version(void) {
    static char text[32];
    uint32_t v = JxlDecoderVersion();
    snprintf(text, sizeof text, "%u.%u.%u", v / 1000000, (v / 1000) % 1000, v % 1000);
    return text;
}
