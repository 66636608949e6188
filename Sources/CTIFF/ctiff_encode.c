#include "ctiff.h"

#include <stdlib.h>
#include <string.h>

int ctiff_encode(ctiff_sink *sink, const ctiff_encode_params *params, const uint8_t *pixels, size_t row_bytes) {
    TIFF *tif = ctiff_open_sink(sink);
    if (tif == NULL) return 0;
    const int has_alpha = params->channels == 2 || params->channels == 4;
    const int colors = params->channels - has_alpha;
    int ok = TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, params->width) && TIFFSetField(tif, TIFFTAG_IMAGELENGTH, params->height) &&
             TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, params->bits) &&
             TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, params->channels) &&
             TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT) &&
             TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, colors == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB) &&
             TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
             TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT) &&
             TIFFSetField(tif, TIFFTAG_COMPRESSION, params->compression) &&
             // Horizontal differencing: smaller files for photographs at little cost, both codecs.
             TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    if (ok && params->compression == COMPRESSION_ADOBE_DEFLATE) ok = TIFFSetField(tif, TIFFTAG_ZIPQUALITY, params->level);
    if (ok && has_alpha) {
        uint16_t extra = params->premultiplied ? EXTRASAMPLE_ASSOCALPHA : EXTRASAMPLE_UNASSALPHA;
        ok = TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    if (ok && params->icc && params->icc_size) ok = TIFFSetField(tif, TIFFTAG_ICCPROFILE, params->icc_size, params->icc);
    // Strips of about 256 KiB uncompressed: small buffers, and deflate still sees long runs.
    const uint64_t row = (uint64_t)params->width * params->channels * (params->bits / 8);
    uint32_t rows_per_strip = (uint32_t)(row ? (262144 + row - 1) / row : 1);
    if (rows_per_strip == 0) rows_per_strip = 1;
    if (rows_per_strip > params->height) rows_per_strip = params->height;
    if (ok) ok = TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
    // libtiff's predictor differences the buffer it is given in place: each strip is copied
    // out of the caller's (immutable) pixels first, which also drops row padding.
    uint8_t *strip = ok ? malloc((size_t)(row * rows_per_strip)) : NULL;
    if (strip == NULL) ok = 0;
    for (uint32_t y = 0; ok && y < params->height; y += rows_per_strip) {
        const uint32_t rows = params->height - y < rows_per_strip ? params->height - y : rows_per_strip;
        for (uint32_t r = 0; r < rows; r++) memcpy(strip + (size_t)r * row, pixels + (size_t)(y + r) * row_bytes, (size_t)row);
        ok = TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, y, 0), strip, (tmsize_t)(row * rows)) >= 0;
    }
    free(strip);
    if (ok) ok = TIFFWriteDirectory(tif);
    TIFFClose(tif);
    return ok && !sink->failed;
}
