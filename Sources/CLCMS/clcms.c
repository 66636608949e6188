#include "clcms.h"
#include "clcms_internal.h"

#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(LCMS_VERSION >= 2080, "cmsFLAGS_COPY_ALPHA needs lcms 2.8");
_Static_assert(sizeof(cmsUInt16Number) == 2, "16-bit samples");

/// What a context's log handler writes to: the first error message since it was cleared.
typedef struct {
    char message[256];
} clcms_log;

struct clcms_transform {
    cmsContext context;
    cmsHTRANSFORM handle;
};

static void clcms_log_handler(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    clcms_log *log = cmsGetContextUserData(context);
    if (log && log->message[0] == 0) snprintf(log->message, sizeof log->message, "%s", text ? text : "lcms error");
}

cmsContext clcms_context(void) {
    clcms_log *log = calloc(1, sizeof *log);
    if (!log) return NULL;
    cmsContext context = cmsCreateContext(NULL, log);
    if (!context) {
        free(log);
        return NULL;
    }
    cmsSetLogErrorHandlerTHR(context, clcms_log_handler);
    return context;
}

void clcms_context_free(cmsContext context) {
    if (!context) return;
    void *log = cmsGetContextUserData(context);
    cmsDeleteContext(context);
    free(log);
}

static void clcms_report(cmsContext context, const char *fallback, char *error, size_t error_size) {
    if (!error || error_size == 0) return;
    clcms_log *log = context ? cmsGetContextUserData(context) : NULL;
    snprintf(error, error_size, "%s", log && log->message[0] ? log->message : fallback);
}

/// Wraps a handle made in `context`, or frees the context and reports.
clcms_profile *clcms_wrap(cmsContext context, cmsHPROFILE handle, const char *what, char *error, size_t error_size) {
    if (!handle) {
        clcms_report(context, what, error, error_size);
        clcms_context_free(context);
        return NULL;
    }
    clcms_profile *profile = malloc(sizeof *profile);
    if (!profile) {
        cmsCloseProfile(handle);
        clcms_context_free(context);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    profile->context = context;
    profile->handle = handle;
    return profile;
}

clcms_profile *clcms_profile_from_icc(const void *bytes, size_t size, char *error, size_t error_size) {
    if (!bytes || size < 132 || size > UINT32_MAX) {
        snprintf(error, error_size, "an ICC profile of %zu bytes is too short or too long", size);
        return NULL;
    }
    cmsContext context = clcms_context();
    if (!context) return clcms_wrap(NULL, NULL, "out of memory", error, error_size);
    cmsHPROFILE handle = cmsOpenProfileFromMemTHR(context, bytes, (cmsUInt32Number)size);
    return clcms_wrap(context, handle, "lcms could not read the ICC profile", error, error_size);
}

clcms_profile *clcms_profile_srgb(char *error, size_t error_size) {
    cmsContext context = clcms_context();
    if (!context) return clcms_wrap(NULL, NULL, "out of memory", error, error_size);
    return clcms_wrap(context, cmsCreate_sRGBProfileTHR(context), "lcms could not build sRGB", error, error_size);
}

/// Samples of a curve lcms has no parametric form for, as 4096 floats.
enum { clcms_table_size = 4096 };

static double clcms_pq(double e) {
    // SMPTE ST 2084 EOTF in units of 10000 cd/m², scaled so 203 cd/m² (BT.2408 reference white)
    // is 1.0 and clipped above: HDR highlights are clipped, not tone-mapped.
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32,
                 c3 = 2392.0 / 4096 * 32;
    double p = pow(e, 1 / m2);
    double num = p - c1 > 0 ? p - c1 : 0;
    double y = pow(num / (c2 - c3 * p), 1 / m1) * 10000.0 / 203.0;
    return y > 1 ? 1 : y;
}

static double clcms_hlg(double e) {
    // ARIB STD-B67 inverse OETF, scene light scaled so the reference white signal (0.75) is 1.0,
    // clipped above; no system gamma.
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    double l = e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12;
    double white = (exp((0.75 - c) / a) + b) / 12;
    double y = l / white;
    return y > 1 ? 1 : y;
}

static cmsToneCurve *clcms_curve_build(cmsContext context, int curve) {
    switch (curve) {
    case CLCMS_CURVE_SRGB: {
        const cmsFloat64Number p[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
        return cmsBuildParametricToneCurve(context, 4, p);
    }
    case CLCMS_CURVE_BT709: {
        // The inverse of BT.709's OETF (as libavif and Skia read transfer 1, 6, 14 and 15).
        const cmsFloat64Number p[5] = {1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081};
        return cmsBuildParametricToneCurve(context, 4, p);
    }
    case CLCMS_CURVE_LINEAR: return cmsBuildGamma(context, 1.0);
    case CLCMS_CURVE_GAMMA22: return cmsBuildGamma(context, 2.2);
    case CLCMS_CURVE_GAMMA28: return cmsBuildGamma(context, 2.8);
    case CLCMS_CURVE_PQ:
    case CLCMS_CURVE_HLG: {
        float *table = malloc(sizeof(float) * clcms_table_size);
        if (!table) return NULL;
        for (int i = 0; i < clcms_table_size; i++) {
            double e = (double)i / (clcms_table_size - 1);
            table[i] = (float)(curve == CLCMS_CURVE_PQ ? clcms_pq(e) : clcms_hlg(e));
        }
        cmsToneCurve *result = cmsBuildTabulatedToneCurveFloat(context, clcms_table_size, table);
        free(table);
        return result;
    }
    default: return NULL;
    }
}

static clcms_profile *clcms_rgb_with(cmsContext context, const double c[8], cmsToneCurve *tone, char *error, size_t error_size) {
    if (!tone) return clcms_wrap(context, NULL, "no tone curve for that transfer characteristic", error, error_size);
    cmsCIExyY white = {c[0], c[1], 1.0};
    cmsCIExyYTRIPLE primaries = {{c[2], c[3], 1.0}, {c[4], c[5], 1.0}, {c[6], c[7], 1.0}};
    cmsToneCurve *curves[3] = {tone, tone, tone};
    cmsHPROFILE handle = cmsCreateRGBProfileTHR(context, &white, &primaries, curves);
    cmsFreeToneCurve(tone);
    return clcms_wrap(context, handle, "lcms could not build an RGB profile from those primaries", error, error_size);
}

clcms_profile *clcms_profile_rgb(const double c[8], int curve, char *error, size_t error_size) {
    cmsContext context = clcms_context();
    if (!context) return clcms_wrap(NULL, NULL, "out of memory", error, error_size);
    return clcms_rgb_with(context, c, clcms_curve_build(context, curve), error, error_size);
}

clcms_profile *clcms_profile_rgb_gamma(const double c[8], double gamma, char *error, size_t error_size) {
    if (!(gamma > 0.1 && gamma < 10)) {
        snprintf(error, error_size, "gamma %g is out of range", gamma);
        return NULL;
    }
    cmsContext context = clcms_context();
    if (!context) return clcms_wrap(NULL, NULL, "out of memory", error, error_size);
    return clcms_rgb_with(context, c, cmsBuildGamma(context, gamma), error, error_size);
}

clcms_profile *clcms_profile_gray(double white_x, double white_y, int curve, char *error, size_t error_size) {
    cmsContext context = clcms_context();
    if (!context) return clcms_wrap(NULL, NULL, "out of memory", error, error_size);
    cmsToneCurve *tone = clcms_curve_build(context, curve);
    if (!tone) return clcms_wrap(context, NULL, "no tone curve for that transfer characteristic", error, error_size);
    cmsCIExyY white = {white_x, white_y, 1.0};
    cmsHPROFILE handle = cmsCreateGrayProfileTHR(context, &white, tone);
    cmsFreeToneCurve(tone);
    return clcms_wrap(context, handle, "lcms could not build a gray profile", error, error_size);
}

int clcms_profile_space(const clcms_profile *profile) {
    switch (cmsGetColorSpace(profile->handle)) {
    case cmsSigGrayData: return CLCMS_SPACE_GRAY;
    case cmsSigRgbData: return CLCMS_SPACE_RGB;
    case cmsSigCmykData: return CLCMS_SPACE_CMYK;
    default: return CLCMS_SPACE_OTHER;
    }
}

int clcms_profile_usable(const clcms_profile *profile, int as_output) {
    cmsProfileClassSignature cls = cmsGetDeviceClass(profile->handle);
    if (cls != cmsSigDisplayClass && cls != cmsSigInputClass && cls != cmsSigOutputClass && cls != cmsSigColorSpaceClass)
        return 0;
    if (as_output && cls == cmsSigInputClass && !cmsIsMatrixShaper(profile->handle)) return 0;
    return cmsIsIntentSupported(profile->handle, INTENT_RELATIVE_COLORIMETRIC, as_output ? LCMS_USED_AS_OUTPUT : LCMS_USED_AS_INPUT);
}

size_t clcms_profile_save(const clcms_profile *profile, void *out, size_t capacity) {
    cmsUInt32Number needed = 0;
    if (!cmsSaveProfileToMem(profile->handle, NULL, &needed) || needed == 0) return 0;
    if (!out) return needed;
    if (capacity < needed) return 0;
    cmsUInt32Number size = needed;
    return cmsSaveProfileToMem(profile->handle, out, &size) ? size : 0;
}

void clcms_profile_free(clcms_profile *profile) {
    if (!profile) return;
    cmsCloseProfile(profile->handle);
    clcms_context_free(profile->context);
    free(profile);
}

static cmsUInt32Number clcms_format(int pixels) {
    switch (pixels) {
    case CLCMS_GRAY8: return TYPE_GRAY_8;
    case CLCMS_GRAYA8: return TYPE_GRAYA_8;
    case CLCMS_RGB8: return TYPE_RGB_8;
    case CLCMS_RGBA8: return TYPE_RGBA_8;
    case CLCMS_CMYK8: return TYPE_CMYK_8;
    case CLCMS_CMYK8_INVERTED: return TYPE_CMYK_8_REV;
    case CLCMS_GRAY16: return TYPE_GRAY_16;
    case CLCMS_GRAYA16: return TYPE_GRAYA_16;
    case CLCMS_RGB16: return TYPE_RGB_16;
    case CLCMS_RGBA16: return TYPE_RGBA_16;
    default: return 0;
    }
}

static int clcms_has_alpha(int pixels) {
    return pixels == CLCMS_GRAYA8 || pixels == CLCMS_RGBA8 || pixels == CLCMS_GRAYA16 || pixels == CLCMS_RGBA16;
}

clcms_transform *clcms_transform_create(
    const clcms_profile *input, int input_pixels, const clcms_profile *output, int output_pixels,
    int intent, int black_point_compensation, char *error, size_t error_size) {
    cmsUInt32Number in_format = clcms_format(input_pixels), out_format = clcms_format(output_pixels);
    if (!in_format || !out_format || intent < 0 || intent > 3) {
        snprintf(error, error_size, "unknown pixel layout or intent");
        return NULL;
    }
    cmsContext context = clcms_context();
    if (!context) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    // NOCACHE: the one-pixel cache is state that concurrent runs would share.
    cmsUInt32Number flags = cmsFLAGS_NOCACHE;
    if (black_point_compensation) flags |= cmsFLAGS_BLACKPOINTCOMPENSATION;
    if (clcms_has_alpha(input_pixels) && clcms_has_alpha(output_pixels)) flags |= cmsFLAGS_COPY_ALPHA;
    cmsHTRANSFORM handle = cmsCreateTransformTHR(
        context, input->handle, in_format, output->handle, out_format, (cmsUInt32Number)intent, flags);
    if (!handle) {
        clcms_report(context, "lcms could not build a transform between those profiles", error, error_size);
        clcms_context_free(context);
        return NULL;
    }
    clcms_transform *transform = malloc(sizeof *transform);
    if (!transform) {
        cmsDeleteTransform(handle);
        clcms_context_free(context);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    transform->context = context;
    transform->handle = handle;
    return transform;
}

void clcms_transform_run(
    const clcms_transform *transform, const void *source, size_t source_stride,
    void *destination, size_t destination_stride, uint32_t width, uint32_t rows) {
    cmsDoTransformLineStride(
        transform->handle, source, destination, width, rows, (cmsUInt32Number)source_stride,
        (cmsUInt32Number)destination_stride, 0, 0);
}

void clcms_transform_free(clcms_transform *transform) {
    if (!transform) return;
    cmsDeleteTransform(transform->handle);
    clcms_context_free(transform->context);
    free(transform);
}
