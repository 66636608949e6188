#ifndef CBENCHHEIF_H
#define CBENCHHEIF_H

/*
 * The baseline for bench-heif: libheif called directly with the options CoderHEIF uses
 * (primary image, transformations applied, interleaved 8-bit RGB or RGBA, HDR reduced to 8 bits;
 * encode from interleaved RGB(A) at a 0-100 quality).
 */

#include <stddef.h>
#include <stdint.h>

/* Decodes the primary image. With pixels NULL the pixels stay in libheif's image, which is
   released; otherwise they are first copied into a malloc'd buffer of tight rows returned in
   *pixels (the caller frees it after this returns, as ours frees its Image), as a caller that
   keeps the pixels after the codec's objects are gone must do. Returns 0 on success and the
   decoded width and height. */
int cbenchheif_decode(const void *data, size_t size, uint8_t **pixels, int *width, int *height);

/* Encodes interleaved 8-bit RGB (channels 3) or RGBA (4) as HEVC (av1 = 0) or AV1 (av1 = 1) into a
   malloc'd buffer (free with free()). 0 on success. */
int cbenchheif_encode(const uint8_t *pixels, int width, int height, int channels, int av1, int quality,
                      uint8_t **out, size_t *out_length);

/* The libheif version linked. */
const char *cbenchheif_version(void);

#endif
