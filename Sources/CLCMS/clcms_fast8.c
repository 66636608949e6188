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

/* What one source sample adds to the three outputs' linear values: the matrix entry times the
 * sample's linear light, in Q17 (13 index bits and 4 more), so a pixel is three table reads and
 * two additions per channel; entries below 64 keep the sums far from int32's range. */
enum { clcms_contribution_shift = 4 };

struct clcms_fast8 {
    int32_t contribution[3][256][4];
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
    int32_t matrix[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += inverse[r * 3 + k] * source[k * 3 + c];
            /* Real colorants give entries within a few units; anything else is left to lcms. */
            if (!(fabs(sum) < 64)) {
                free(fast);
                return NULL;
            }
            matrix[r * 3 + c] = (int32_t)lround(sum * clcms_matrix_one);
        }
    for (int c = 0; c < 3; c++) {
        for (int v = 0; v < 256; v++) {
            float linear = cmsEvalToneCurveFloat(in_curves[c], (float)v / 255.0f);
            if (linear < 0) linear = 0;
            if (linear > 1) linear = 1;
            /* Q15 linear light times a Q12 entry is Q27; to Q17 with rounding. */
            int64_t q15 = lroundf(linear * clcms_linear_one);
            for (int r = 0; r < 3; r++) {
                int64_t q27 = q15 * matrix[r * 3 + c];
                fast->contribution[c][v][r] = (int32_t)((q27 + (1 << 9)) >> 10);
            }
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

static inline int32_t clcms_index(int32_t sum) {
    /* Q17 to a 13-bit index with rounding, clamped to the table. */
    int32_t index = (sum + (1 << (clcms_contribution_shift - 1))) >> clcms_contribution_shift;
    return index < 0 ? 0 : index > clcms_output_size - 1 ? clcms_output_size - 1 : index;
}

void clcms_fast8_run(
    const clcms_fast8 *fast, const uint8_t *source, size_t source_stride, uint8_t *destination, size_t destination_stride,
    int channels, uint32_t width, uint32_t rows) {
    /* Local, restrict-qualified tables: the byte stores below cannot then be taken to alias them. */
    const int32_t (*restrict red)[4] = fast->contribution[0];
    const int32_t (*restrict green)[4] = fast->contribution[1];
    const int32_t (*restrict blue)[4] = fast->contribution[2];
    const uint8_t *restrict e0 = fast->encode[0], *restrict e1 = fast->encode[1], *restrict e2 = fast->encode[2];
    for (uint32_t y = 0; y < rows; y++) {
        const uint8_t *restrict s = source + (size_t)y * source_stride;
        uint8_t *restrict d = destination + (size_t)y * destination_stride;
        for (uint32_t x = 0; x < width; x++, s += channels, d += channels) {
            const int32_t *r = red[s[0]], *g = green[s[1]], *b = blue[s[2]];
            int32_t x0 = r[0] + g[0] + b[0], x1 = r[1] + g[1] + b[1], x2 = r[2] + g[2] + b[2];
            if (channels == 4) d[3] = s[3];
            d[0] = e0[clcms_index(x0)];
            d[1] = e1[clcms_index(x1)];
            d[2] = e2[clcms_index(x2)];
        }
    }
}

void clcms_fast8_free(clcms_fast8 *fast) { free(fast); }
