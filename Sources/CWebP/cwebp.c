#include "cwebp.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(WEBP_DECODER_ABI_VERSION >= 0x0208, "libwebp 1.1 or newer (WebPDecoderConfig with use_scaling)");
_Static_assert(WEBP_DEMUX_ABI_VERSION >= 0x0107, "libwebp demux with WebPAnimDecoder");
_Static_assert(WEBP_MUX_ABI_VERSION >= 0x0108, "libwebp mux with WebPAnimEncoder");
_Static_assert(WEBP_MUX_OK == 1, "mux success value");

int cwebp_init_decoder_config(WebPDecoderConfig *config) { return WebPInitDecoderConfig(config); }

VP8StatusCode cwebp_get_features(const uint8_t *data, size_t size, WebPBitstreamFeatures *features) {
    return WebPGetFeatures(data, size, features);
}

WebPDemuxer *cwebp_demux(const uint8_t *data, size_t size) {
    WebPData bytes = {data, size};
    return WebPDemux(&bytes);
}

WebPAnimDecoder *cwebp_anim_decoder_new(const uint8_t *data, size_t size, int use_threads) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return NULL;
    options.color_mode = MODE_RGBA;
    options.use_threads = use_threads;
    WebPData bytes = {data, size};
    return WebPAnimDecoderNew(&bytes, &options);
}

static int configure(WebPConfig *config, const cwebp_encode_settings *settings) {
    if (!WebPConfigInit(config)) return 0;
    config->quality = settings->quality;
    config->lossless = settings->lossless;
    config->method = settings->method;
    config->exact = settings->exact;
    config->thread_level = settings->use_threads;
    return WebPValidateConfig(config);
}

static int import(WebPPicture *picture, const uint8_t *pixels, int stride, int channels) {
    return channels == 4 ? WebPPictureImportRGBA(picture, pixels, stride) : WebPPictureImportRGB(picture, pixels, stride);
}

int cwebp_encode(const uint8_t *pixels, int width, int height, int stride, int channels,
                 const cwebp_encode_settings *settings, uint8_t **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    WebPConfig config;
    if (!configure(&config, settings)) return VP8_ENC_ERROR_INVALID_CONFIGURATION;
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return VP8_ENC_ERROR_INVALID_CONFIGURATION;
    picture.width = width;
    picture.height = height;
    picture.use_argb = settings->lossless;  // lossless encodes ARGB; lossy converts to YUV once here
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int status;
    if (!import(&picture, pixels, stride, channels)) {
        status = picture.error_code != VP8_ENC_OK ? picture.error_code : VP8_ENC_ERROR_OUT_OF_MEMORY;
    } else if (!WebPEncode(&config, &picture)) {
        status = picture.error_code;
    } else {
        status = VP8_ENC_OK;
    }
    WebPPictureFree(&picture);
    if (status != VP8_ENC_OK) {
        WebPMemoryWriterClear(&writer);
        return status;
    }
    *out = writer.mem;
    *out_size = writer.size;
    return VP8_ENC_OK;
}

int cwebp_attach_chunks(const uint8_t *file, size_t file_size, const uint8_t *icc, size_t icc_size,
                        const uint8_t *exif, size_t exif_size, const uint8_t *xmp, size_t xmp_size,
                        uint8_t **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    WebPData input = {file, file_size};
    WebPMux *mux = WebPMuxCreate(&input, 0);
    if (mux == NULL) return WEBP_MUX_BAD_DATA;
    const char *names[3] = {"ICCP", "EXIF", "XMP "};
    WebPData chunks[3] = {{icc, icc_size}, {exif, exif_size}, {xmp, xmp_size}};
    int status = WEBP_MUX_OK;
    for (int i = 0; i < 3 && status == WEBP_MUX_OK; i++)
        if (chunks[i].size > 0) status = WebPMuxSetChunk(mux, names[i], &chunks[i], 0);
    WebPData assembled = {NULL, 0};
    if (status == WEBP_MUX_OK) status = WebPMuxAssemble(mux, &assembled);
    WebPMuxDelete(mux);
    if (status != WEBP_MUX_OK) return status;
    *out = (uint8_t *)assembled.bytes;
    *out_size = assembled.size;
    return WEBP_MUX_OK;
}

struct cwebp_anim_encoder {
    WebPAnimEncoder *encoder;
    WebPConfig config;
    int width, height;
    const char *error;
};

cwebp_anim_encoder *cwebp_anim_encoder_create(int width, int height, int loop_count,
                                              const cwebp_encode_settings *settings) {
    cwebp_anim_encoder *self = calloc(1, sizeof *self);
    if (self == NULL) return NULL;
    WebPAnimEncoderOptions options;
    if (!configure(&self->config, settings) || !WebPAnimEncoderOptionsInit(&options)) {
        free(self);
        return NULL;
    }
    options.anim_params.loop_count = loop_count;
    options.allow_mixed = 0;
    self->encoder = WebPAnimEncoderNew(width, height, &options);
    if (self->encoder == NULL) {
        free(self);
        return NULL;
    }
    self->width = width;
    self->height = height;
    return self;
}

int cwebp_anim_encoder_add(cwebp_anim_encoder *self, const uint8_t *rgba, int stride, int timestamp_ms) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return 0;
    picture.width = self->width;
    picture.height = self->height;
    picture.use_argb = 1;  // WebPAnimEncoder compares frames in ARGB
    int ok = WebPPictureImportRGBA(&picture, rgba, stride)
             && WebPAnimEncoderAdd(self->encoder, &picture, timestamp_ms, &self->config);
    if (!ok) self->error = WebPAnimEncoderGetError(self->encoder);
    WebPPictureFree(&picture);
    return ok;
}

int cwebp_anim_encoder_finish(cwebp_anim_encoder *self, int end_timestamp_ms, uint8_t **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    WebPData assembled = {NULL, 0};
    if (!WebPAnimEncoderAdd(self->encoder, NULL, end_timestamp_ms, NULL)
        || !WebPAnimEncoderAssemble(self->encoder, &assembled)) {
        self->error = WebPAnimEncoderGetError(self->encoder);
        return 0;
    }
    *out = (uint8_t *)assembled.bytes;
    *out_size = assembled.size;
    return 1;
}

const char *cwebp_anim_encoder_error(const cwebp_anim_encoder *self) {
    return self->error != NULL && self->error[0] != '\0' ? self->error : "unknown error";
}

void cwebp_anim_encoder_destroy(cwebp_anim_encoder *self) {
    if (self == NULL) return;
    WebPAnimEncoderDelete(self->encoder);
    free(self);
}

void cwebp_free(void *pointer) { WebPFree(pointer); }
