#ifndef CWEBP_H
#define CWEBP_H

// CoderWebP's view of libwebp 1.2 (decode, demux, encode, mux). libwebp reports every error by
// value, so Swift calls most of it directly; these functions wrap the header-inline ABI-version
// initialisers and keep the encoder's picture/memory-writer lifetimes in C.

#include <stddef.h>
#include <stdint.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

/// WebPInitDecoderConfig: 1 on success, 0 on an ABI mismatch.
int cwebp_init_decoder_config(WebPDecoderConfig *config);

/// WebPGetFeatures.
VP8StatusCode cwebp_get_features(const uint8_t *data, size_t size, WebPBitstreamFeatures *features);

/// WebPDemux over bytes the caller keeps alive; NULL when the container is invalid.
WebPDemuxer *cwebp_demux(const uint8_t *data, size_t size);

/// WebPAnimDecoderNew with straight RGBA output; NULL when the file is invalid or out of memory.
WebPAnimDecoder *cwebp_anim_decoder_new(const uint8_t *data, size_t size, int use_threads);

/// Settings for one still or animation encode.
typedef struct {
    float quality;     // 0..100
    int lossless;      // 0 or 1
    int method;        // 0 (fast) .. 6 (small)
    int exact;         // keep RGB under alpha 0 (lossless round trips)
    int use_threads;
} cwebp_encode_settings;

/// Encodes `channels` (3 = RGB, 4 = RGBA) 8-bit pixels. On success returns VP8_ENC_OK and a
/// malloc'd file in *out (free it with cwebp_free); otherwise the WebPEncodingError.
int cwebp_encode(const uint8_t *pixels, int width, int height, int stride, int channels,
                 const cwebp_encode_settings *settings, uint8_t **out, size_t *out_size);

/// Rebuilds the file with ICCP, EXIF and XMP chunks (VP8X), each only when its size is not 0.
/// Returns a WebPMuxError (WEBP_MUX_OK = 1).
int cwebp_attach_chunks(const uint8_t *file, size_t file_size, const uint8_t *icc, size_t icc_size,
                        const uint8_t *exif, size_t exif_size, const uint8_t *xmp, size_t xmp_size,
                        uint8_t **out, size_t *out_size);

/// An animation encoder (WebPAnimEncoder plus the settings of every frame).
typedef struct cwebp_anim_encoder cwebp_anim_encoder;

/// NULL when out of memory or the canvas is invalid. `loop_count` 0 means forever.
cwebp_anim_encoder *cwebp_anim_encoder_create(int width, int height, int loop_count,
                                              const cwebp_encode_settings *settings);
/// Adds a full-canvas RGBA frame shown from `timestamp_ms`. 1 on success, 0 on error.
int cwebp_anim_encoder_add(cwebp_anim_encoder *encoder, const uint8_t *rgba, int stride, int timestamp_ms);
/// Ends the animation at `end_timestamp_ms` and assembles the file (malloc'd, free with
/// cwebp_free). 1 on success, 0 on error.
int cwebp_anim_encoder_finish(cwebp_anim_encoder *encoder, int end_timestamp_ms, uint8_t **out, size_t *out_size);
/// The encoder's last error message (static or owned by the encoder).
const char *cwebp_anim_encoder_error(const cwebp_anim_encoder *encoder);
void cwebp_anim_encoder_destroy(cwebp_anim_encoder *encoder);

/// Frees memory returned by this module.
void cwebp_free(void *pointer);

#endif
