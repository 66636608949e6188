#ifndef CBENCHTIFF_H
#define CBENCHTIFF_H

/*
 * The baseline for bench-tiff: libtiff called directly from C the way a C program would for an
 * 8-bit contiguous RGB TIFF: TIFFClientOpen over the bytes in memory, TIFFReadEncodedStrip into
 * one RGB buffer; and TIFFClientOpen into a growing buffer, TIFFWriteEncodedStrip with the same
 * codec, predictor and strip height CoderTIFF writes.
 */

#include <stddef.h>
#include <stdint.h>

/* Decodes an 8-bit contiguous RGB TIFF into a malloc'd width*height*3 buffer (free with free()).
 * 0 on success. */
int cbenchtiff_decode(const uint8_t *data, size_t size, int *width, int *height, uint8_t **rgb);

/* Encodes tight RGB8 pixels; compression is libtiff's COMPRESSION_* value (deflate or LZW),
 * level the zlib level. *out is malloc'd (free with free()). 0 on success. */
int cbenchtiff_encode(const uint8_t *rgb, int width, int height, int compression, int level, uint8_t **out, size_t *out_size);

/* COMPRESSION_ADOBE_DEFLATE and COMPRESSION_LZW. */
int cbenchtiff_deflate(void);
int cbenchtiff_lzw(void);

/* The libtiff version string's first line. */
const char *cbenchtiff_version(void);

#endif
