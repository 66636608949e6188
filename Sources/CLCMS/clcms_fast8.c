#include "clcms.h"
#include "clcms_internal.h"

#include <lcms2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The matrix/shaper model lcms itself uses for these profiles, in integers: 8-bit samples through
 * each channel's tone curve to linear light (Q15), a Q12 matrix from the source's colorants to the
 * target's (both in the D50 PCS), and a 13-bit linear index into the target's inverse curve. */

enum { clcms_linear_one = 1 << 15, clcms_matrix_one = 1 << 12, clcms_output_bits = 13, clcms_output_size = 1 << clcms_output_bits };

struct clcms_fast8 {
    int32_t linear[3][256];
    int32_t matrix[9];
    uint8_t encode[3][clcms_output_size];
};

/* Colorants (columns of the RGB-to-XYZ matrix) and the three tone curves, or 0. */
static int clcms_matrix_shaper(cmsHPROFILE h, double m[9], cmsToneCurve *curves[3]) {
    if (cmsGetColorSpace(h) != cmsSigRgbData || !cmsIsMatrixShaper(h)) return 0;
    const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    const cmsTagSignature trcs[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(h, colorants[c]);
        curves[c] = cmsReadTag(h, trcs[c]);
        if (!xyz || !curves[c]) return 0;
        m[0 * 3 + c] = xyz->X;
        m[1 * 3 + c] = xyz->Y;
        m[2 * 3 + c] = xyz->Z;
    }
    return 1;
}

static int clcms_invert3(const double m[9], double out[9]) {
    double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7], i = m[8];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    if (!(fabs(det) > 1e-9)) return 0;
    out[0] = (e * i - f * h) / det; out[1] = (c * h - b * i) / det; out[2] = (b * f - c * e) / det;
    out[3] = (f * g - d * i) / det; out[4] = (a * i - c * g) / det; out[5] = (c * d - a * f) / det;
    out[6] = (d * h - e * g) / det; out[7] = (b * g - a * h) / det; out[8] = (a * e - b * d) / det;
    return 1;
}

static int clcms_black_is_zero(cmsHPROFILE h, int intent, int as_output) {
    cmsCIEXYZ black = {0, 0, 0};
    cmsBool found = as_output ? cmsDetectDestinationBlackPoint(&black, h, (cmsUInt32Number)intent, 0)
                              : cmsDetectBlackPoint(&black, h, (cmsUInt32Number)intent, 0);
    return found && fabs(black.X) < 1e-4 && fabs(black.Y) < 1e-4 && fabs(black.Z) < 1e-4;
}

clcms_fast8 *clcms_fast8_create(const clcms_profile *input, const clcms_profile *output, int intent, int black_point_compensation) {
    if (intent == INTENT_ABSOLUTE_COLORIMETRIC) return NULL;
    double source[9], target[9], inverse[9];
    cmsToneCurve *in_curves[3], *out_curves[3];
    if (!clcms_matrix_shaper(input->handle, source, in_curves) || !clcms_matrix_shaper(output->handle, target, out_curves)) return NULL;
    /* Black-point compensation only maps black to black here; with a black above zero it scales. */
    if (black_point_compensation && !(clcms_black_is_zero(input->handle, intent, 0) && clcms_black_is_zero(output->handle, intent, 1)))
        return NULL;
    if (!clcms_invert3(target, inverse)) return NULL;
    clcms_fast8 *fast = calloc(1, sizeof *fast);
    if (!fast) return NULL;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += inverse[r * 3 + k] * source[k * 3 + c];
            /* Real colorants give entries within a few units; anything else is left to lcms. */
            if (!(fabs(sum) < 64)) {
                free(fast);
                return NULL;
            }
            fast->matrix[r * 3 + c] = (int32_t)lround(sum * clcms_matrix_one);
        }
    for (int c = 0; c < 3; c++) {
        for (int v = 0; v < 256; v++) {
            float linear = cmsEvalToneCurveFloat(in_curves[c], (float)v / 255.0f);
            if (linear < 0) linear = 0;
            if (linear > 1) linear = 1;
            fast->linear[c][v] = (int32_t)lroundf(linear * clcms_linear_one);
        }
        cmsToneCurve *reverse = cmsReverseToneCurveEx(4096, out_curves[c]);
        if (!reverse) {
            free(fast);
            return NULL;
        }
        for (int i = 0; i < clcms_output_size; i++) {
            float encoded = cmsEvalToneCurveFloat(reverse, (float)i / clcms_output_size);
            long v = lroundf(encoded * 255.0f);
            fast->encode[c][i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        cmsFreeToneCurve(reverse);
    }
    return fast;
}

static inline int32_t clcms_index(int64_t value) {
    /* Q15 linear x Q12 matrix = Q27; to a 13-bit index with rounding. */
    int64_t index = (value + (1 << 13)) >> 14;
    return (int32_t)(index < 0 ? 0 : index > clcms_output_size - 1 ? clcms_output_size - 1 : index);
}

void clcms_fast8_run(
    const clcms_fast8 *fast, const uint8_t *source, size_t source_stride, uint8_t *destination, size_t destination_stride,
    int channels, uint32_t width, uint32_t rows) {
    const int32_t *m = fast->matrix;
    for (uint32_t y = 0; y < rows; y++) {
        const uint8_t *s = source + (size_t)y * source_stride;
        uint8_t *d = destination + (size_t)y * destination_stride;
        for (uint32_t x = 0; x < width; x++, s += channels, d += channels) {
            int64_t r = fast->linear[0][s[0]], g = fast->linear[1][s[1]], b = fast->linear[2][s[2]];
            d[0] = fast->encode[0][clcms_index(m[0] * r + m[1] * g + m[2] * b)];
            d[1] = fast->encode[1][clcms_index(m[3] * r + m[4] * g + m[5] * b)];
            d[2] = fast->encode[2][clcms_index(m[6] * r + m[7] * g + m[8] * b)];
            if (channels == 4) d[3] = s[3];
        }
    }
}

void clcms_fast8_free(clcms_fast8 *fast) { free(fast); }
