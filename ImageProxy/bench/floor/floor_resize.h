/* The resize of the codec floor (floor.c): image-proxy's fill of Y'CbCr planes, in plain C. */
#ifndef FLOOR_RESIZE_H
#define FLOOR_RESIZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jpeglib.h>

typedef struct {
    int width, height; /* the fill box */
} floor_box_t;

/* Three planes (Y', Cb, Cr); factor_h/v: luma samples per plane sample (1 or 2). */
typedef struct {
    uint8_t *plane[3];
    size_t stride[3];
    int width[3], height[3];
    int factor_h[3], factor_v[3];
} floor_planes_t;

/* One axis of a filter in fixed point: output i is the clamped sum over k < counts[i] of
 * coefficients[i * stride + k] times input starts[i] + k, shifted right by precision; each
 * output's coefficients zero-padded to stride, a multiple of 4 (as FixedPointTaps lays them out). */
typedef struct {
    int outputs, taps, stride, precision;
    int *starts, *counts;
    int16_t *coefficients;
    int negative; /* any negative weight (a filter with lobes) */
} floor_axis_t;

typedef struct {
    floor_axis_t horizontal, vertical;
} floor_filter_t;

/* The filters of one source geometry: the three planes' filters and the output sizes. */
typedef struct {
    int key[14];
    int out_width[3], out_height[3];
    floor_filter_t filters[3];
} floor_plan_t;

typedef struct {
    floor_plan_t plans[8];
    int used;
} floor_plan_cache_t;

/* Resizes `in` into newly allocated tight planes `out` (4:2:0), as the service's fill does. */
void floor_resize(const floor_planes_t *in, const floor_box_t *box, floor_plan_cache_t *plans, floor_planes_t *out);

/* Feeds the 4:2:0 planes to a started raw-data compressor, edges replicated to whole blocks. */
void floor_write_planes(j_compress_ptr cinfo, const floor_planes_t *planes);

#endif
