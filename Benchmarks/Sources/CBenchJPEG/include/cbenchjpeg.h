/* CBenchJPEG: libjpeg-turbo called directly, the baseline CoderJPEG is measured against. */
#ifndef CBENCHJPEG_H
#define CBENCHJPEG_H

#include <stddef.h>
#include <stdint.h>

/* Decodes to RGB (3 channels) or, for grayscale files, gray (1 channel) at scale_num/8, the
 * same pixel formats CoderJPEG produces, into a malloc'd buffer. Returns 0 on success. */
int cbench_jpeg_decode(const uint8_t *data, size_t count, int scale_num, uint8_t **pixels,
                       uint32_t *width, uint32_t *height, int *channels);

/* Encodes 8-bit gray (1) or RGB (3) rows at a quality with libjpeg's defaults (4:2:0, or 4:4:4
 * when asked), into a malloc'd buffer. Returns 0 on success. */
int cbench_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                       int quality, int subsampling_444, int progressive, uint8_t **out, size_t *count);

void cbench_free(void *pointer);

#endif
