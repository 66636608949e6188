#ifndef CBENCHPNG_H
#define CBENCHPNG_H

/*
 * The baseline for bench-png: libpng's classic API called directly, with the same expansions
 * CoderPNG applies (palette/low-bit gray to 8 bits, tRNS to alpha, 16-bit stripped to its high
 * byte or kept in host order), so both produce the same pixels.
 */

#include <stddef.h>
#include <stdint.h>

/* Decodes a PNG held in memory into a malloc'd buffer (free with free()). 0 on success. */
int cbenchpng_decode(const void *data, size_t size, int preserve16, uint32_t *width, uint32_t *height,
                     size_t *rowbytes, uint8_t **pixels);

/* Encodes 8/16-bit (host order) gray, gray+alpha, RGB or RGBA into a malloc'd buffer. 0 on success. */
int cbenchpng_encode(const void *pixels, uint32_t width, uint32_t height, size_t stride, int channels,
                     int bit_depth, int level, int interlace, uint8_t **out, size_t *out_length);

/* The libpng version linked. */
const char *cbenchpng_version(void);

#endif
