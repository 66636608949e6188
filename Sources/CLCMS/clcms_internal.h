#ifndef CLCMS_INTERNAL_H
#define CLCMS_INTERNAL_H

#include <lcms2.h>
#include <stdint.h>

/* A profile and the context it was made in (whose log handler keeps the last message). */
struct clcms_profile {
    cmsContext context;
    cmsHPROFILE handle;
};

/* Q17 sums to a 13-bit index: 4 more bits. Fields of 21 bits hold a span of 16 in linear light. */
enum { clcms_contribution_shift = 4, clcms_field_bits = 21 };
#define clcms_field_mask ((((uint64_t)1) << clcms_field_bits) - 1)

/* R′G′B′ from Y′CbCr before clamping lie within [-227, 482]: the Y′CbCr path's input tables
 * cover [-clcms_wide_low, clcms_wide_size - clcms_wide_low). */
enum { clcms_wide_low = 256, clcms_wide_size = 768 };

/* The direct path's tables (clcms_fast8.c): per source channel and level, the three outputs'
 * biased contributions packed in 21-bit fields; per output, the biased index to the 8-bit level.
 * For Y′CbCr planes (clcms_fast8_ycbcr.c), `packed` widened over unclamped R′G′B′: the clamp is
 * in the table. */
struct clcms_fast8 {
    uint64_t packed[3][256];
    uint64_t wide[3][clcms_wide_size];
    uint8_t *encode[3];
    uint8_t tables[];
};

/* Fills `wide` from `packed` (clcms_fast8_ycbcr.c). */
void clcms_fast8_prepare_ycbcr(clcms_fast8 *fast);

/* A context whose log handler keeps the first message (see clcms.c), and its release. */
cmsContext clcms_context(void);
void clcms_context_free(cmsContext context);
/* Wraps a handle made in `context`, or frees the context and reports `what` (or lcms's message). */
clcms_profile *clcms_wrap(cmsContext context, cmsHPROFILE handle, const char *what, char *error, size_t error_size);

#endif
