#ifndef CBENCHJXL_H
#define CBENCHJXL_H

/*
 * The baseline for bench-jxl: libjxl 0.7 called directly from C the way a C program would:
 * JxlDecoderCreate with a JxlThreadParallelRunner of `threads` workers, the whole input closed,
 * 8-bit interleaved output into one buffer; JxlEncoderCreate with the same runner, the same
 * distance (or lossless) and effort CoderJXL uses, output into a growing buffer.
 */

#include <stddef.h>
#include <stdint.h>

/* Decodes to 8-bit RGB (3 channels) into a malloc'd buffer (free with free()). 0 on success. */
int cbenchjxl_decode(const uint8_t *data, size_t size, int threads, int *width, int *height, uint8_t **rgb);

/* Encodes tight RGB8 pixels at `distance` (0 with lossless = 1) and `effort`; *out is malloc'd. */
int cbenchjxl_encode(const uint8_t *rgb, int width, int height, float distance, int lossless, int effort, int threads,
                     uint8_t **out, size_t *out_size);

/* libjxl's version as "major.minor.patch". */
const char *cbenchjxl_version(void);

#endif
