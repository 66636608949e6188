/* Writes a Display P3 ICC profile (D65, P3 primaries, the sRGB tone curve; a matrix/shaper
 * profile built by lcms, as image-proxy's own CICP profiles are) to the file named by argv[1]:
 * the tag tagged.sh embeds in its sources. */
#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: p3icc OUT.icc\n"); return 2; }
    cmsCIExyY white = {0.3127, 0.3290, 1.0};
    cmsCIExyYTRIPLE primaries = {{0.680, 0.320, 1.0}, {0.265, 0.690, 1.0}, {0.150, 0.060, 1.0}};
    cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb);
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = curve ? cmsCreateRGBProfile(&white, &primaries, curves) : NULL;
    if (!profile) { fprintf(stderr, "p3icc: lcms could not build the profile\n"); return 1; }
    cmsMLU *description = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(description, "en", "US", "Display P3 (tagged.sh)");
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, description);
    int ok = cmsSaveProfileToFile(profile, argv[1]);
    cmsMLUfree(description);
    cmsCloseProfile(profile);
    cmsFreeToneCurve(curve);
    return ok ? 0 : 1;
}
