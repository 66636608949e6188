#include "ctiff.h"

#include <string.h>

static int is_gray(uint16_t photometric) {
    return photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
}

static void plan(ctiff_page *page) {
    const uint16_t bits = page->bits_per_sample, format = page->sample_format;
    const int whole_bytes = bits == 8 || bits == 16;
    const int unsigned_samples = format == SAMPLEFORMAT_UINT;
    // Signed 16-bit gray is clipped at 0 (see ctiff_read_direct); other signed layouts and
    // floats go to TIFFRGBAImage, which refuses what it cannot show.
    const int signed_gray16 = format == SAMPLEFORMAT_INT && bits == 16 && page->color_channels == 1;
    const int usable = page->samples_per_pixel >= page->color_channels &&
                       page->compression != COMPRESSION_OJPEG;
    page->path = CTIFF_PATH_RGBA;
    if (usable && (is_gray(page->photometric) || page->photometric == PHOTOMETRIC_RGB)) {
        if ((whole_bytes && (unsigned_samples || signed_gray16)) ||
            (page->color_channels == 1 && page->samples_per_pixel == 1 && !page->tiled && unsigned_samples && bits > 8 && bits < 16)) {
            page->path = CTIFF_PATH_DIRECT;
            page->out_channels = page->color_channels + (page->alpha_index >= 0 ? 1 : 0);
            page->out_bits = bits == 8 ? 8 : 16;
            return;
        }
    }
    if (usable && page->photometric == PHOTOMETRIC_SEPARATED && page->inkset == INKSET_CMYK && page->color_channels == 4 &&
        whole_bytes && unsigned_samples) {
        page->path = CTIFF_PATH_CMYK;
        page->out_channels = 3;
        page->out_bits = 8;
        return;
    }
    page->out_bits = 8;
    if (page->alpha_index >= 0) {
        page->out_channels = 4;
    } else {
        page->out_channels = is_gray(page->photometric) ? 1 : 3;
    }
}

int ctiff_read_page(TIFF *tif, ctiff_page *page) {
    memset(page, 0, sizeof *page);
    page->alpha_index = -1;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &page->width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &page->height)) {
        TIFFErrorExtR(tif, "CoderTIFF", "the page has no ImageWidth or ImageLength");
        return 0;
    }
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &page->bits_per_sample);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &page->samples_per_pixel);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &page->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &page->compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &page->sample_format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &page->orientation);
    TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &page->inkset);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SUBFILETYPE, &page->subfile_type);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &page->photometric)) {
        // As TIFFRGBAImage guesses: three or more samples are RGB, fewer are gray.
        page->photometric = page->samples_per_pixel >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    }
    switch (page->photometric) {
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE:
    case PHOTOMETRIC_PALETTE:
        page->color_channels = 1;
        break;
    case PHOTOMETRIC_SEPARATED:
        page->color_channels = page->inkset == INKSET_CMYK ? 4 : page->samples_per_pixel;
        break;
    default:
        page->color_channels = 3;
        break;
    }
    uint16_t extra_count = 0;
    const uint16_t *extra_types = NULL;
    if (TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) && extra_count > 0 && extra_types &&
        page->samples_per_pixel > page->color_channels &&
        (extra_types[0] == EXTRASAMPLE_ASSOCALPHA || extra_types[0] == EXTRASAMPLE_UNASSALPHA)) {
        page->alpha_index = page->color_channels;
        page->alpha_associated = extra_types[0] == EXTRASAMPLE_ASSOCALPHA;
    }
    page->tiled = TIFFIsTiled(tif);
    if (page->tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &page->tile_width);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &page->tile_height);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &page->rows_per_strip);
        if (page->rows_per_strip == 0 || page->rows_per_strip > page->height) page->rows_per_strip = page->height;
    }
    uint32_t icc_size = 0;
    const void *icc = NULL;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc != NULL && icc_size > 0) {
        page->icc = icc;
        page->icc_size = icc_size;
    }
    plan(page);
    return 1;
}
