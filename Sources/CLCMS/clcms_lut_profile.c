#include "clcms.h"
#include "clcms_internal.h"

#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>

/* An RGB profile whose colours live in A2B0/B2A0 tables while it keeps a matrix/shaper's colorant
 * and curve tags: lcms converts through the tables, so a matrix fast path must not be taken. */

typedef struct {
    cmsHTRANSFORM transform;
    int swap;
} clcms_lut_cargo;

static cmsInt32Number clcms_sample_to_lab(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    const clcms_lut_cargo *c = cargo;
    cmsUInt16Number rgb[3] = {c->swap ? in[1] : in[0], c->swap ? in[0] : in[1], in[2]};
    cmsDoTransform(c->transform, rgb, out, 1);
    return 1;
}

static cmsInt32Number clcms_sample_from_lab(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    const clcms_lut_cargo *c = cargo;
    cmsUInt16Number rgb[3];
    cmsDoTransform(c->transform, in, rgb, 1);
    out[0] = c->swap ? rgb[1] : rgb[0];
    out[1] = c->swap ? rgb[0] : rgb[1];
    out[2] = rgb[2];
    return 1;
}

/* Identity curves, a 17-point table sampled through `transform`, identity curves: the shape an
 * ICC v4 lutAtoB/lutBtoA tag can hold. */
static cmsPipeline *clcms_table(cmsContext context, cmsHTRANSFORM transform, int swap, int to_lab) {
    clcms_lut_cargo cargo = {transform, swap};
    cmsPipeline *pipeline = cmsPipelineAlloc(context, 3, 3);
    if (!pipeline) return NULL;
    cmsStage *stages[3] = {cmsStageAllocToneCurves(context, 3, NULL), cmsStageAllocCLut16bit(context, 17, 3, 3, NULL), cmsStageAllocToneCurves(context, 3, NULL)};
    int ok = stages[0] && stages[1] && stages[2] && cmsStageSampleCLut16bit(stages[1], to_lab ? clcms_sample_to_lab : clcms_sample_from_lab, &cargo, 0);
    for (int i = 0; i < 3; i++) {
        if (ok && cmsPipelineInsertStage(pipeline, cmsAT_END, stages[i])) continue;
        ok = 0;
        if (stages[i]) cmsStageFree(stages[i]);
    }
    if (!ok) {
        cmsPipelineFree(pipeline);
        return NULL;
    }
    return pipeline;
}

clcms_profile *clcms_profile_rgb_lut(const clcms_profile *base, int swap_red_green, char *error, size_t error_size) {
    size_t size = clcms_profile_save(base, NULL, 0);
    void *bytes = size ? malloc(size) : NULL;
    cmsContext context = clcms_context();
    if (!bytes || !context || clcms_profile_save(base, bytes, size) != size) {
        free(bytes);
        return clcms_wrap(context, NULL, "the base profile could not be copied", error, error_size);
    }
    cmsHPROFILE handle = cmsOpenProfileFromMemTHR(context, bytes, (cmsUInt32Number)size);
    free(bytes);
    cmsHPROFILE lab = cmsCreateLab4ProfileTHR(context, NULL);
    cmsHTRANSFORM to_lab = handle && lab ? cmsCreateTransformTHR(context, base->handle, TYPE_RGB_16, lab, TYPE_Lab_16, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE) : NULL;
    cmsHTRANSFORM from_lab = handle && lab ? cmsCreateTransformTHR(context, lab, TYPE_Lab_16, base->handle, TYPE_RGB_16, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE) : NULL;
    cmsPipeline *a2b = to_lab ? clcms_table(context, to_lab, swap_red_green, 1) : NULL;
    cmsPipeline *b2a = from_lab ? clcms_table(context, from_lab, swap_red_green, 0) : NULL;
    int ok = a2b && b2a;
    if (ok) {
        cmsSetPCS(handle, cmsSigLabData);
        ok = cmsWriteTag(handle, cmsSigAToB0Tag, a2b) && cmsWriteTag(handle, cmsSigBToA0Tag, b2a);
    }
    if (a2b) cmsPipelineFree(a2b);
    if (b2a) cmsPipelineFree(b2a);
    if (to_lab) cmsDeleteTransform(to_lab);
    if (from_lab) cmsDeleteTransform(from_lab);
    if (lab) cmsCloseProfile(lab);
    if (!ok && handle) {
        cmsCloseProfile(handle);
        handle = NULL;
    }
    return clcms_wrap(context, handle, "lcms could not build the table profile", error, error_size);
}
