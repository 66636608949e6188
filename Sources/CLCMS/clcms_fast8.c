#include "clcms.h"
#include "clcms_internal.h"

#include <lcms2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The matrix/shaper model lcms itself uses for these profiles, in integers: 8-bit samples through
 * each channel's tone curve to linear light (Q15), a Q12 matrix from the source's colorants to the
 * target's (both in the D50 PCS), and a 13-bit linear index into the target's inverse curve.
 *
 * The matrix is folded into the tone tables: each source level holds what it adds to all three
 * outputs, in Q17, packed as three biased 21-bit fields of one 64-bit word. A pixel is three
 * word reads and two additions (no field can carry into the next), then per output a shift and a
 * mask give an index into its encode table, which also covers the values below black and above
 * white (out-of-gamut colours) with 0 and 255: no clamp, no branch. Clang does not vectorise the
 * table reads into gathers (checked at -O3 -mavx2), and the packed sum is faster than lanes. */

enum { clcms_linear_one = 1 << 15, clcms_matrix_one = 1 << 12, clcms_output_bits = 13, clcms_output_size = 1 << clcms_output_bits };

/* Colorants (columns of the RGB-to-XYZ matrix) and the three tone curves, or 0 when lcms would
 * not convert the profile as a matrix/shaper: not RGB, no colorants or curves, or any LUT tag
 * (lcms prefers a LUT to the matrix when a profile has both). */
static int clcms_matrix_shaper(cmsHPROFILE h, double m[9], cmsToneCurve *curves[3]) {
    if (cmsGetColorSpace(h) != cmsSigRgbData || !cmsIsMatrixShaper(h)) return 0;
    const cmsTagSignature luts[] = {
        cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag, cmsSigBToA0Tag, cmsSigBToA1Tag, cmsSigBToA2Tag,
        cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag, cmsSigDToB3Tag, cmsSigBToD0Tag, cmsSigBToD1Tag, cmsSigBToD2Tag, cmsSigBToD3Tag,
    };
    for (size_t i = 0; i < sizeof luts / sizeof luts[0]; i++)
        if (cmsIsTag(h, luts[i])) return 0;
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

/* The source-to-target matrix in Q12, or 0 when it cannot be inverted or has entries past 64
 * (no real colorants give them). */
static int clcms_matrix(const double source[9], const double target[9], int32_t matrix[9]) {
    double inverse[9];
    if (!clcms_invert3(target, inverse)) return 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += inverse[r * 3 + k] * source[k * 3 + c];
            if (!(fabs(sum) < 64)) return 0;
            matrix[r * 3 + c] = (int32_t)lround(sum * clcms_matrix_one);
        }
    return 1;
}

/* The 8-bit encoding of a 13-bit linear index through the inverse of `curve`. */
static int clcms_encode_table(cmsToneCurve *curve, uint8_t table[clcms_output_size]) {
    cmsToneCurve *reverse = cmsReverseToneCurveEx(4096, curve);
    if (!reverse) return 0;
    for (int i = 0; i < clcms_output_size; i++) {
        long v = lroundf(cmsEvalToneCurveFloat(reverse, (float)i / clcms_output_size) * 255.0f);
        table[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    cmsFreeToneCurve(reverse);
    return 1;
}

clcms_fast8 *clcms_fast8_create(const clcms_profile *input, const clcms_profile *output, int intent, int black_point_compensation) {
    if (intent == INTENT_ABSOLUTE_COLORIMETRIC) return NULL;
    double source[9], target[9];
    int32_t matrix[9];
    cmsToneCurve *in_curves[3], *out_curves[3];
    if (!clcms_matrix_shaper(input->handle, source, in_curves) || !clcms_matrix_shaper(output->handle, target, out_curves)) return NULL;
    /* Black-point compensation only maps black to black here; with a black above zero it scales. */
    if (black_point_compensation && !(clcms_black_is_zero(input->handle, intent, 0) && clcms_black_is_zero(output->handle, intent, 1)))
        return NULL;
    if (!clcms_matrix(source, target, matrix)) return NULL;
    /* Each level's Q17 contribution to each output, and per output the lowest and highest. */
    static const int32_t none = 0;
    int32_t (*contribution)[256][3] = malloc(sizeof(int32_t) * 3 * 256 * 3);
    if (!contribution) return NULL;
    int64_t low[3][3], high[3][3];
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++) low[c][r] = high[c][r] = none;
        for (int v = 0; v < 256; v++) {
            float linear = cmsEvalToneCurveFloat(in_curves[c], (float)v / 255.0f);
            linear = linear < 0 ? 0 : linear > 1 ? 1 : linear;
            int64_t q15 = lroundf(linear * clcms_linear_one);
            for (int r = 0; r < 3; r++) {
                /* Q15 times Q12 is Q27; to Q17 with rounding. */
                int32_t q17 = (int32_t)((q15 * matrix[r * 3 + c] + (1 << 9)) >> 10);
                contribution[c][v][r] = q17;
                if (q17 < low[c][r]) low[c][r] = q17;
                if (q17 > high[c][r]) high[c][r] = q17;
            }
        }
    }
    /* Per output: a bias (a multiple of 16, so the shift commutes with it) lifts every field
     * above zero; the rounding half rides on the red entries. */
    int64_t bias[3], top[3];
    size_t sizes = 0;
    for (int r = 0; r < 3; r++) {
        int64_t negative = 0, span = 0;
        for (int c = 0; c < 3; c++) {
            negative -= low[c][r];
            span += high[c][r] - low[c][r];
        }
        bias[r] = (negative + 15) & ~(int64_t)15;
        top[r] = span + (bias[r] - negative) + (1 << (clcms_contribution_shift - 1));
        if (top[r] >= (1 << clcms_field_bits)) {
            free(contribution);
            return NULL;
        }
        sizes += (size_t)(top[r] >> clcms_contribution_shift) + 1;
    }
    clcms_fast8 *fast = calloc(1, sizeof *fast + sizes);
    uint8_t *linear_table = malloc(clcms_output_size);
    if (!fast || !linear_table) goto fail;
    uint8_t *next = fast->tables;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            for (int v = 0; v < 256; v++) {
                int64_t field = contribution[c][v][r] - low[c][r];
                if (c == 0) field += bias[r] - (-low[0][r] - low[1][r] - low[2][r]) + (1 << (clcms_contribution_shift - 1));
                fast->packed[c][v] |= (uint64_t)field << (clcms_field_bits * r);
            }
        if (!clcms_encode_table(out_curves[r], linear_table)) goto fail;
        int64_t count = (top[r] >> clcms_contribution_shift) + 1, zero = bias[r] >> clcms_contribution_shift;
        fast->encode[r] = next;
        for (int64_t i = 0; i < count; i++) {
            int64_t index = i - zero;
            next[i] = linear_table[index < 0 ? 0 : index >= clcms_output_size ? clcms_output_size - 1 : index];
        }
        next += count;
    }
    free(linear_table);
    free(contribution);
    clcms_fast8_prepare_ycbcr(fast);
    return fast;
fail:
    free(linear_table);
    free(contribution);
    free(fast);
    return NULL;
}

void clcms_fast8_run(
    const clcms_fast8 *fast, const uint8_t *source, size_t source_stride, uint8_t *destination, size_t destination_stride,
    int channels, uint32_t width, uint32_t rows) {
    /* Local, restrict-qualified tables: the byte stores below cannot then be taken to alias them. */
    const uint64_t *restrict red = fast->packed[0], *restrict green = fast->packed[1], *restrict blue = fast->packed[2];
    const uint8_t *restrict e0 = fast->encode[0], *restrict e1 = fast->encode[1], *restrict e2 = fast->encode[2];
    const uint64_t mask = clcms_field_mask;
    const int shift = clcms_contribution_shift, field = clcms_field_bits;
    for (uint32_t y = 0; y < rows; y++) {
        const uint8_t *restrict s = source + (size_t)y * source_stride;
        uint8_t *restrict d = destination + (size_t)y * destination_stride;
        if (channels == 4) {
            for (uint32_t x = 0; x < width; x++, s += 4, d += 4) {
                uint64_t sum = red[s[0]] + green[s[1]] + blue[s[2]];
                uint8_t alpha = s[3];
                d[0] = e0[(sum & mask) >> shift];
                d[1] = e1[((sum >> field) & mask) >> shift];
                d[2] = e2[(sum >> (2 * field)) >> shift];
                d[3] = alpha;
            }
        } else {
            for (uint32_t x = 0; x < width; x++, s += 3, d += 3) {
                uint64_t sum = red[s[0]] + green[s[1]] + blue[s[2]];
                d[0] = e0[(sum & mask) >> shift];
                d[1] = e1[((sum >> field) & mask) >> shift];
                d[2] = e2[(sum >> (2 * field)) >> shift];
            }
        }
    }
}

void clcms_fast8_free(clcms_fast8 *fast) { free(fast); }
