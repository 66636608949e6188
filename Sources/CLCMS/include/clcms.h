#ifndef CLCMS_H
#define CLCMS_H

// ColorLCMS's view of lcms2 (2.14). lcms2 reports errors by value and through a per-context log
// handler; this shim gives every profile and transform a context of its own whose handler keeps
// the last message, so nothing reaches a global handler or stderr, and it wraps the pixel-type
// macros Swift cannot import. Every symbol is prefixed clcms_.

#include <stddef.h>
#include <stdint.h>

typedef struct clcms_profile clcms_profile;
typedef struct clcms_transform clcms_transform;

/// Pixel layouts a transform reads or writes; 16-bit samples are in host byte order.
typedef enum {
    CLCMS_GRAY8 = 1,
    CLCMS_GRAYA8,
    CLCMS_RGB8,
    CLCMS_RGBA8,
    CLCMS_CMYK8,
    /// CMYK as Adobe's APP14 JPEGs store it: 255 means no ink.
    CLCMS_CMYK8_INVERTED,
    CLCMS_GRAY16,
    CLCMS_GRAYA16,
    CLCMS_RGB16,
    CLCMS_RGBA16,
} clcms_pixels;

/// A profile's data colour space.
typedef enum { CLCMS_SPACE_OTHER = 0, CLCMS_SPACE_GRAY = 1, CLCMS_SPACE_RGB = 3, CLCMS_SPACE_CMYK = 4 } clcms_space;

/// Tone curves for clcms_profile_rgb / clcms_profile_gray (ITU-T H.273 transfer characteristics).
typedef enum {
    CLCMS_CURVE_SRGB = 13,
    CLCMS_CURVE_BT709 = 1,
    CLCMS_CURVE_LINEAR = 8,
    CLCMS_CURVE_GAMMA22 = 4,
    CLCMS_CURVE_GAMMA28 = 5,
    CLCMS_CURVE_PQ = 16,
    CLCMS_CURVE_HLG = 18,
} clcms_curve;

/// A profile parsed from ICC bytes (copied). NULL with the reason in `error` when lcms refuses it.
clcms_profile *clcms_profile_from_icc(const void *bytes, size_t size, char *error, size_t error_size);
/// lcms's built-in sRGB profile.
clcms_profile *clcms_profile_srgb(char *error, size_t error_size);
/// An RGB matrix/shaper profile from chromaticities (white x y, red x y, green x y, blue x y)
/// and one of clcms_curve for all three channels.
clcms_profile *clcms_profile_rgb(const double chromaticities[8], int curve, char *error, size_t error_size);
/// An RGB matrix/shaper profile with a pure power curve (Adobe RGB's 563/256, ProPhoto's 1.8, …).
clcms_profile *clcms_profile_rgb_gamma(const double chromaticities[8], double gamma, char *error, size_t error_size);
/// A copy of an RGB matrix/shaper profile whose colours are also given as 17-point A2B0/B2A0
/// tables (red and green swapped in the tables when `swap_red_green`), over a Lab PCS: lcms
/// converts through the tables, though the matrix and curve tags remain (cameras and printers
/// ship such profiles). For tests and benchmarks of which path a conversion takes.
clcms_profile *clcms_profile_rgb_lut(const clcms_profile *base, int swap_red_green, char *error, size_t error_size);
/// A gray profile with the given white point (x y) and curve.
clcms_profile *clcms_profile_gray(double white_x, double white_y, int curve, char *error, size_t error_size);
/// The profile's colour space (clcms_space).
int clcms_profile_space(const clcms_profile *profile);
/// Whether the profile can be a transform's input (or output, `as_output` 1) for relative
/// colorimetric rendering: a device-class profile with the tables it needs.
int clcms_profile_usable(const clcms_profile *profile, int as_output);
/// The profile serialised as ICC bytes into `out` (NULL to ask): the size needed, 0 on failure.
size_t clcms_profile_save(const clcms_profile *profile, void *out, size_t capacity);
void clcms_profile_free(clcms_profile *profile);

/// A transform between two profiles; `intent` is an ICC intent (0 perceptual, 1 relative,
/// 2 saturation, 3 absolute), `black_point_compensation` 0 or 1. Alpha, where both layouts have
/// it, is copied. The transform may be run from several threads at once. NULL with the reason
/// in `error` when lcms cannot build it.
clcms_transform *clcms_transform_create(
    const clcms_profile *input, int input_pixels, const clcms_profile *output, int output_pixels,
    int intent, int black_point_compensation, char *error, size_t error_size);
/// Converts `rows` rows of `width` pixels.
void clcms_transform_run(
    const clcms_transform *transform, const void *source, size_t source_stride,
    void *destination, size_t destination_stride, uint32_t width, uint32_t rows);
void clcms_transform_free(clcms_transform *transform);

/// A direct 8-bit path between two RGB matrix/shaper profiles (what most camera, phone and
/// display profiles are): per channel a tone-curve table to linear light, one fixed-point 3x3
/// matrix (folded into the tone tables, three outputs packed in one 64-bit word), a table back
/// through the target's inverse curve. NULL when either profile is not a matrix/shaper RGB
/// profile or carries any LUT tag (lcms would use the LUT), the intent is absolute colorimetric,
/// or black-point compensation would move a black point (then use a transform). Before use,
/// prove it with clcms_fast8_verify.
typedef struct clcms_fast8 clcms_fast8;
clcms_fast8 *clcms_fast8_create(const clcms_profile *input, const clcms_profile *output, int intent, int black_point_compensation);
/// Converts `rows` rows of `width` pixels of 3 (RGB) or 4 (RGBA, alpha copied) channels.
void clcms_fast8_run(
    const clcms_fast8 *fast, const uint8_t *source, size_t source_stride, uint8_t *destination, size_t destination_stride,
    int channels, uint32_t width, uint32_t rows);
void clcms_fast8_free(clcms_fast8 *fast);
/// A Y′CbCr image's three 8-bit planes and the bytes from one row to the next in each.
typedef struct {
    uint8_t *luma, *cb, *cr;
    size_t luma_stride, cb_stride, cr_stride;
} clcms_planes;
/// Converts JPEG's Y′CbCr planes (full-range BT.601, chroma subsampled by `horizontal` and
/// `vertical`, 1 or 2) from `source` into `destination` (the same planes: in place) through the
/// direct path: each pixel to R′G′B′ with its chroma sample, through the tables, and back to Y′;
/// each chroma sample becomes that of the mean of the converted colours it covers. 1 when done,
/// 0 (nothing written) for another subsampling. `source`'s planes are only read.
int clcms_fast8_run_ycbcr(
    const clcms_fast8 *fast, const clcms_planes *source, const clcms_planes *destination, uint32_t width, uint32_t height,
    int horizontal, int vertical);
/// The largest difference, in 8-bit levels, between the direct path and `transform` (lcms's,
/// built for the same profiles, intent, black-point compensation and layout: RGB8 for 3
/// `channels`, RGBA8 for 4) over a fixed probe set: a 33-level grid of every channel combination
/// and ramps of gray and of each channel, alpha varied. 256 when it cannot run (no memory).
int clcms_fast8_verify(const clcms_fast8 *fast, const clcms_transform *transform, int channels);

#endif
