#ifndef CPNG_INTERNAL_H
#define CPNG_INTERNAL_H

#include <png.h>
#include <stddef.h>
#include <stdint.h>

#include "cpng.h"

_Static_assert(PNG_LIBPNG_VER >= 10600, "CPNG needs libpng 1.6");
/* cpng.h speaks size_t and uint32_t where libpng speaks png_size_t and png_uint_32. */
_Static_assert(sizeof(png_size_t) == sizeof(size_t), "png_size_t is size_t");
_Static_assert(sizeof(png_uint_32) == sizeof(uint32_t), "png_uint_32 is 32 bits");

/* Why a libpng call failed. Every cpng object starts with one; libpng's error pointer points at
 * it. Fields are set just before png_error (or by libpng's warnings) and read after the longjmp. */
typedef struct cpng_error_context {
    char message[256];
    int eof_hit;    /* the reader ran out of bytes */
    int limit_hit;  /* a size limit refused the image */
    int nomem;      /* one of our own allocations failed */
} cpng_error_context;

/* libpng error/warning handlers writing into a cpng_error_context. */
void cpng_error_fn(png_structp png, png_const_charp message);
void cpng_warning_fn(png_structp png, png_const_charp message);

/* Records a failure message; png_error's longjmp follows. */
void cpng_set_message(cpng_error_context *context, const char *message);

/* The status a failed call returns, from what the context recorded. */
cpng_status cpng_failure(const cpng_error_context *context);

/* Creates a read struct with our handlers, size limits and chunk policy. */
png_structp cpng_create_read(cpng_error_context *context, uint32_t max_dimension);

/* Sets the expansion transforms (see cpng.h) and updates the info; fills `header`. */
void cpng_configure_read(png_structp png, png_infop info, int flags, cpng_header *header);

/* The iCCP profile and eXIf bytes held by `info`, or NULL. */
const uint8_t *cpng_icc_profile(png_structp png, png_infop info, size_t *length);
const uint8_t *cpng_exif(png_structp png, png_infop info, size_t *length);
const uint8_t *cpng_xmp(png_structp png, png_infop info, size_t *length);
int cpng_color(png_structp png, png_infop info, cpng_color_info *color);

/* Rows without alpha: stores (`first`) or adds `samples` 8-bit samples into 32-bit sums, with AVX2
 * (cpng_box_avx2.c). Returns 0, writing nothing, on a CPU without AVX2. */
int cpng_box_accumulate_avx2(const uint8_t *row, uint32_t *sums, size_t samples, int first);

/* Rows without alpha: out[i] = round(boxes[i] / (sample_masks[i] ? dw : dn)) (halves rounded up)
 * for `samples` samples, in floats (cpng_box_avx2.c). Returns 0, writing nothing, where that is
 * not available (no AVX2) or not exact (a divisor over CPNG_BOX_FLOAT_LARGEST_DIVISOR). */
#define CPNG_BOX_FLOAT_LARGEST_DIVISOR (1u << 14)
int cpng_box_divide_float(const uint32_t *boxes, const uint32_t *sample_masks, size_t samples, uint32_t dn, uint32_t dw, uint8_t *out);

#endif /* CPNG_INTERNAL_H */
