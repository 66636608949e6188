/* image-proxy's `resize:fill` of Y'CbCr planes (ResizeTransformer+YCbCr.swift, FilterWeights.swift,
 * FixedPointTaps.swift, SeparableFilter+FixedPoint.swift), the same arithmetic in plain C. */
#include "floor_resize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "CTransformKernels.h"

static double lanczos3(double x) {
    if (!(x > -3 && x < 3)) return 0;
    double a = x == 0 ? 1 : sin(x * M_PI) / (x * M_PI);
    double b = x / 3 == 0 ? 1 : sin(x / 3 * M_PI) / (x / 3 * M_PI);
    return a * b;
}

/* FilterWeights(resampling:from:to:outputCount:filter: .lanczos3) then FixedPointTaps. */
static floor_axis_t make_axis(int input_count, double lower, double upper, int output_count) {
    double scale = (upper - lower) / output_count;
    double filter_scale = scale > 1 ? scale : 1;
    double support = 3 * filter_scale;
    int taps = (int)ceil(support) * 2 + 1;
    int padded = (taps + 3) & ~3;
    floor_axis_t a = {output_count, taps, padded, 1, malloc(sizeof(int) * (size_t)output_count), malloc(sizeof(int) * (size_t)output_count),
                      calloc((size_t)output_count * (size_t)padded + 16, sizeof(int16_t)), 0};
    float *weights = calloc((size_t)output_count * (size_t)taps, sizeof(float));
    double *row = malloc(sizeof(double) * (size_t)taps);
    float largest = 0, largest_sum = 0;
    for (int i = 0; i < output_count; i++) {
        double center = lower + (i + 0.5) * scale;
        int first = (int)(center - support + 0.5);
        if (first < 0) first = 0;
        int last = (int)(center + support + 0.5);
        if (last > input_count) last = input_count;
        int count = last - first < taps ? last - first : taps;
        if (count < 0) count = 0;
        double total = 0;
        for (int k = 0; k < count; k++) {
            row[k] = lanczos3(((double)(k + first) - center + 0.5) / filter_scale);
            total += row[k];
        }
        float sum = 0;
        for (int k = 0; k < count; k++) {
            float w = (float)(total != 0 ? row[k] / total : row[k]);
            weights[i * taps + k] = w;
            if (w < 0) a.negative = 1;
            float m = fabsf(w);
            if (m > largest) largest = m;
            sum += m;
        }
        if (sum > largest_sum) largest_sum = sum;
        a.starts[i] = first;
        a.counts[i] = count;
    }
    int bits = 1;
    while (bits < 22) {
        double next = (double)largest * (double)(1 << (bits + 1));
        double worst = 255 * (double)largest_sum * (double)(1 << (bits + 1));
        if (next + 0.5 >= (double)(1 << 15) || worst >= (double)(INT32_MAX / 2)) break;
        bits++;
    }
    a.precision = bits;
    float unit = (float)(1 << bits);
    for (int i = 0; i < output_count; i++)
        for (int k = 0; k < taps; k++) a.coefficients[i * padded + k] = (int16_t)roundf(weights[i * taps + k] * unit);
    free(weights);
    free(row);
    return a;
}

static void reach(const floor_axis_t *a, int *first, int *end) {
    *first = a->outputs ? a->starts[0] : 0;
    *end = *first;
    for (int i = 0; i < a->outputs; i++) {
        if (a->starts[i] < *first) *first = a->starts[i];
        if (a->starts[i] + a->counts[i] > *end) *end = a->starts[i] + a->counts[i];
    }
}

static inline uint8_t clamp_u8(int32_t sum, int precision) {
    int32_t v = sum >> precision;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* One row through the horizontal taps; `in` holds input samples from column `origin` on. */
static void convolve_row(const uint8_t *in, int origin, uint8_t *out, const floor_axis_t *h) {
    const int32_t round = 1 << (h->precision - 1);
    for (int i = 0; i < h->outputs; i++) {
        const uint8_t *p = in + h->starts[i] - origin;
        const int16_t *k = h->coefficients + (size_t)i * (size_t)h->stride;
        int32_t s = round;
        for (int j = 0; j < h->counts[i]; j++) s += (int32_t)p[j] * k[j];
        out[i] = clamp_u8(s, h->precision);
    }
}

/* Output `y` of the vertical taps over `width` columns; rows[r] is input row first_row + r. */
static void convolve_column(uint8_t *const *rows, int first_row, int y, int width, uint8_t *out, const floor_axis_t *v, int32_t *acc) {
    const int32_t round = 1 << (v->precision - 1);
    const int16_t *k = v->coefficients + (size_t)y * (size_t)v->stride;
    for (int x = 0; x < width; x++) acc[x] = round;
    for (int j = 0; j < v->counts[y]; j++) {
        const uint8_t *row = rows[v->starts[y] + j - first_row];
        int32_t c = k[j];
        for (int x = 0; x < width; x++) acc[x] += (int32_t)row[x] * c;
    }
    for (int x = 0; x < width; x++) out[x] = clamp_u8(acc[x], v->precision);
}

/* The project's column kernel over `rows(start + k)` for each output of `a`: output i into out + i * out_stride. */
static void column_pass(const floor_axis_t *a, const uint8_t *base, size_t row_stride, int row_origin, int bytes, uint8_t *out, size_t out_stride) {
    const uint8_t *window[64];
    for (int i = 0; i < a->outputs; i++) {
        for (int k = 0; k < a->counts[i] && k < 64; k++) window[k] = base + (size_t)(a->starts[i] + k - row_origin) * row_stride;
        ik_convolve_columns_u8(window, a->counts[i], a->coefficients + (size_t)i * (size_t)a->stride, a->precision, out + (size_t)i * out_stride, (size_t)bytes);
    }
}

/* SeparableFilter.applyTransposed: the service's path for one-channel planes with SIMD kernels. The
 * rows the filter reads are transposed, the horizontal taps run down the columns, the result is
 * transposed back and the vertical taps run as usual (the project's own C kernels throughout). */
static void filter_plane_transposed(const uint8_t *src, size_t stride, const floor_filter_t *f, uint8_t *dst, int first_col, int load,
                                    int first_row, int plane_rows, int vertical_first) {
    const floor_axis_t *h = &f->horizontal, *v = &f->vertical;
    int ow = h->outputs, oh = v->outputs, across = vertical_first ? oh : plane_rows, slack = 64;
    size_t t_stride = (size_t)(across + slack), u_stride = (size_t)(ow + slack), w_stride = (size_t)(load + slack);
    uint8_t *t = malloc((size_t)load * t_stride), *t1 = malloc((size_t)ow * t_stride);
    uint8_t *u = malloc(vertical_first ? (size_t)oh * w_stride : (size_t)plane_rows * u_stride);
    if (vertical_first) {
        column_pass(v, src + first_col, stride, 0, load, u, w_stride);
        ik_transpose_u8(u, w_stride, t, t_stride, load, oh);
    } else {
        ik_transpose_u8(src + (size_t)first_row * stride + first_col, stride, t, t_stride, load, plane_rows);
    }
    column_pass(h, t, t_stride, first_col, across, t1, t_stride);
    if (vertical_first) {
        ik_transpose_u8(t1, t_stride, dst, (size_t)ow, oh, ow);
    } else {
        ik_transpose_u8(t1, t_stride, u, u_stride, plane_rows, ow);
        column_pass(v, u, u_stride, first_row, ow, dst, (size_t)ow);
    }
    free(t);
    free(t1);
    free(u);
}

/* One plane through both passes, in the order SeparableFilter.fixedPointLayout picks. */
static void filter_plane(const uint8_t *src, size_t stride, const floor_filter_t *f, uint8_t *dst) {
    const floor_axis_t *h = &f->horizontal, *v = &f->vertical;
    int first_col, end_col, first_row, end_row;
    reach(h, &first_col, &end_col);
    reach(v, &first_row, &end_row);
    int load = end_col - first_col, plane_rows = end_row - first_row, ow = h->outputs, oh = v->outputs;
    int vertical_first;
    if (h->negative || v->negative) {
        vertical_first = 5 * load * oh < 4 * ow * plane_rows;
    } else {
        long vf = (long)oh * load * v->taps + 5L * oh * ow * h->taps, hf = 5L * plane_rows * ow * h->taps + (long)oh * ow * v->taps;
        vertical_first = vf <= hf;
    }
    if (ik_simd_level() >= 1) {
        filter_plane_transposed(src, stride, f, dst, first_col, load, first_row, plane_rows, vertical_first);
        return;
    }
    int32_t *acc = malloc(sizeof(int32_t) * (size_t)(load > ow ? load : ow));
    if (vertical_first) {
        uint8_t **rows = malloc(sizeof(uint8_t *) * (size_t)plane_rows);
        for (int r = 0; r < plane_rows; r++) rows[r] = (uint8_t *)src + (size_t)(first_row + r) * stride + first_col;
        uint8_t *temp = malloc((size_t)load);
        for (int y = 0; y < oh; y++) {
            convolve_column(rows, first_row, y, load, temp, v, acc);
            convolve_row(temp, first_col, dst + (size_t)y * (size_t)ow, h);
        }
        free(temp);
        free(rows);
    } else {
        uint8_t *inter = malloc((size_t)plane_rows * (size_t)ow);
        uint8_t **rows = malloc(sizeof(uint8_t *) * (size_t)plane_rows);
        for (int r = 0; r < plane_rows; r++) {
            rows[r] = inter + (size_t)r * (size_t)ow;
            convolve_row(src + (size_t)(first_row + r) * stride + first_col, first_col, rows[r], h);
        }
        for (int y = 0; y < oh; y++) convolve_column(rows, first_row, y, ow, dst + (size_t)y * (size_t)ow, v, acc);
        free(rows);
        free(inter);
    }
    free(acc);
}

/* ResizeTransformer.geometry (fill, never enlarging, centre) and planeFilters. */
static void make_plan(const floor_planes_t *in, const floor_box_t *box, floor_plan_t *p) {
    double w = in->width[0], h = in->height[0];
    double scale = box->width / w > box->height / h ? box->width / w : box->height / h;
    if (scale > 1) scale = 1;
    int ow = (int)round(w * scale), oh = (int)round(h * scale);
    ow = ow < 1 ? 1 : ow > box->width ? box->width : ow;
    oh = oh < 1 ? 1 : oh > box->height ? box->height : oh;
    double sx, sy, sw, sh;
    if (scale == 1) { /* an exact crop, placed on whole luma samples */
        sw = ow;
        sh = oh;
        sx = floor((w - sw > 0 ? w - sw : 0) * 0.5);
        sy = floor((h - sh > 0 ? h - sh : 0) * 0.5);
    } else {
        sw = w < ow / scale ? w : ow / scale;
        sh = h < oh / scale ? h : oh / scale;
        sx = (w - sw > 0 ? w - sw : 0) * 0.5;
        sy = (h - sh > 0 ? h - sh : 0) * 0.5;
    }
    for (int c = 0; c < 3; c++) {
        int fx = c ? 2 : 1, fy = c ? 2 : 1; /* the output is 4:2:0 */
        double gx = in->factor_h[c], gy = in->factor_v[c];
        int outs_w = (ow + fx - 1) / fx, outs_h = (oh + fy - 1) / fy;
        double scale_x = sw / ow, scale_y = sh / oh, left = sx / gx, top = sy / gy;
        p->out_width[c] = outs_w;
        p->out_height[c] = outs_h;
        p->filters[c].horizontal = make_axis(in->width[c], left, left + (double)outs_w * fx * scale_x / gx, outs_w);
        p->filters[c].vertical = make_axis(in->height[c], top, top + (double)outs_h * fy * scale_y / gy, outs_h);
    }
}

void floor_resize(const floor_planes_t *in, const floor_box_t *box, floor_plan_cache_t *plans, floor_planes_t *out) {
    int key[14] = {box->width, box->height};
    for (int c = 0; c < 3; c++) {
        key[2 + c * 4] = in->width[c];
        key[3 + c * 4] = in->height[c];
        key[4 + c * 4] = in->factor_h[c];
        key[5 + c * 4] = in->factor_v[c];
    }
    floor_plan_t *plan = NULL;
    for (int i = 0; i < plans->used && plan == NULL; i++)
        if (memcmp(plans->plans[i].key, key, sizeof key) == 0) plan = &plans->plans[i];
    if (plan == NULL) { /* a small cache; a floor run has one or two geometries */
        plan = &plans->plans[plans->used < 8 ? plans->used++ : 7];
        memcpy(plan->key, key, sizeof key);
        make_plan(in, box, plan);
    }
    for (int c = 0; c < 3; c++) {
        out->width[c] = plan->out_width[c];
        out->height[c] = plan->out_height[c];
        out->stride[c] = (size_t)out->width[c];
        out->factor_h[c] = out->factor_v[c] = c ? 2 : 1;
        out->plane[c] = malloc(out->stride[c] * (size_t)out->height[c]);
        filter_plane(in->plane[c], in->stride[c], &plan->filters[c], out->plane[c]);
    }
}

void floor_write_planes(j_compress_ptr cinfo, const floor_planes_t *planes) {
    JSAMPROW pointers[3][2 * DCTSIZE];
    JSAMPARRAY arrays[3] = {pointers[0], pointers[1], pointers[2]};
    int group = cinfo->max_v_samp_factor * DCTSIZE;
    uint8_t *scratch[3];
    for (int c = 0; c < 3; c++)
        scratch[c] = malloc((size_t)cinfo->comp_info[c].width_in_blocks * DCTSIZE * (size_t)(cinfo->comp_info[c].v_samp_factor * DCTSIZE));
    for (JDIMENSION y = 0; y < cinfo->image_height; y += (JDIMENSION)group) {
        size_t row_group = y / (JDIMENSION)group;
        for (int c = 0; c < 3; c++) {
            jpeg_component_info *comp = &cinfo->comp_info[c];
            size_t padded = (size_t)comp->width_in_blocks * DCTSIZE, width = (size_t)planes->width[c];
            int rows = comp->v_samp_factor * DCTSIZE;
            for (int r = 0; r < rows; r++) {
                size_t source_row = row_group * (size_t)rows + (size_t)r;
                if (source_row >= (size_t)planes->height[c]) source_row = (size_t)planes->height[c] - 1;
                uint8_t *row = scratch[c] + (size_t)r * padded;
                const uint8_t *source = planes->plane[c] + source_row * planes->stride[c];
                memcpy(row, source, width);
                if (padded > width) memset(row + width, source[width - 1], padded - width);
                pointers[c][r] = row;
            }
        }
        jpeg_write_raw_data(cinfo, arrays, (JDIMENSION)group);
    }
    for (int c = 0; c < 3; c++) free(scratch[c]);
}
