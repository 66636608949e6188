#ifndef CBENCHWEBP_H
#define CBENCHWEBP_H

/*
 * The baseline for bench-webp: libwebp called directly from C, doing what CoderWebP does
 * (RGB for lossy files without alpha, else RGBA; the same encoder settings; every animation
 * frame composited by WebPAnimDecoder and copied out), so both produce the same bytes.
 */

#include <stddef.h>
#include <stdint.h>

/* Decodes a still WebP into a malloc'd buffer (free with free()). 0 on success. */
int cbenchwebp_decode(const uint8_t *data, size_t size, int *width, int *height, int *channels, uint8_t **pixels);

/* Encodes RGB (3) or RGBA (4) pixels; returns the file size, 0 on failure. */
size_t cbenchwebp_encode(const uint8_t *pixels, int width, int height, int channels, float quality, int lossless, int method);

/* Decodes every frame of an animation with WebPAnimDecoder into one malloc'd buffer of
 * frame_count canvases (free with free()). 0 on success. */
int cbenchwebp_decode_animation(const uint8_t *data, size_t size, int *frame_count, uint8_t **frames);

/* libwebp's decoder version, "major.minor.revision". */
const char *cbenchwebp_version(void);

#endif
