#include "ctiff.h"
#include "ctiff_reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint8_t clip8(int v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

/// Pillow's naive CMYK to RGB (Convert.c cmyk2rgb): nk - c·nk/255, rounded like MULDIV255.
static inline uint8_t cmyk_channel(int c, int nk) {
    int tmp = c * nk + 128;
    return clip8(nk - (((tmp >> 8) + tmp) >> 8));
}

static inline unsigned read_bits(const uint8_t *row, uint64_t bit, unsigned count) {
    unsigned value = 0;
    for (unsigned i = 0; i < count; i++, bit++) value = value << 1 | ((row[bit >> 3] >> (7 - (bit & 7))) & 1);
    return value;
}

/// One row of stored samples (interleaved, samples_per_pixel each) to the planned output.
static void convert_row(const ctiff_page *p, const uint8_t *in, uint8_t *out) {
    const uint32_t width = p->width;
    const int spp = p->samples_per_pixel, colors = p->color_channels, alpha = p->alpha_index;
    const int invert = p->photometric == PHOTOMETRIC_MINISWHITE;
    if (p->path == CTIFF_PATH_CMYK) {
        for (uint32_t x = 0; x < width; x++) {
            int s[4];
            for (int c = 0; c < 4; c++) {
                s[c] = p->bits_per_sample == 16 ? ((const uint16_t *)in)[x * spp + c] >> 8 : in[x * spp + c];
            }
            int nk = 255 - s[3];
            out[x * 3] = cmyk_channel(s[0], nk);
            out[x * 3 + 1] = cmyk_channel(s[1], nk);
            out[x * 3 + 2] = cmyk_channel(s[2], nk);
        }
        return;
    }
    if (p->bits_per_sample != 8 && p->bits_per_sample != 16) {
        // 9..15-bit gray, packed MSB first: widened to 16 bits by bit replication.
        const unsigned bits = p->bits_per_sample;
        uint16_t *o = (uint16_t *)out;
        for (uint32_t x = 0; x < width; x++) {
            unsigned v = read_bits(in, (uint64_t)x * bits, bits);
            unsigned wide = (v << (16 - bits)) | (v >> (2 * bits - 16));
            if (invert) wide = 65535 - wide;
            if (p->out_bits == 8) out[x] = (uint8_t)(wide >> 8);
            else o[x] = (uint16_t)wide;
        }
        return;
    }
    const int outc = p->out_channels;
    if (p->bits_per_sample == 8) {
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *s = in + (size_t)x * spp;
            uint8_t *d = out + (size_t)x * outc;
            int a = alpha >= 0 ? s[alpha] : 255;
            for (int c = 0; c < colors; c++) {
                int v = invert ? 255 - s[c] : s[c];
                if (alpha >= 0 && p->alpha_associated && a != 255) v = a == 0 ? 0 : (v * 255 / a > 255 ? 255 : v * 255 / a);
                d[c] = (uint8_t)v;
            }
            if (alpha >= 0) d[colors] = (uint8_t)a;
        }
        return;
    }
    const uint16_t *in16 = (const uint16_t *)in;
    uint16_t *out16 = (uint16_t *)out;
    // out_bits 8: the caller did not ask for 16 bits; the high byte is kept (libpng's strip_16).
    const int narrow = p->out_bits == 8;
    const int is_signed = p->sample_format == SAMPLEFORMAT_INT;
    for (uint32_t x = 0; x < width; x++) {
        const uint16_t *s = in16 + (size_t)x * spp;
        const size_t d = (size_t)x * outc;
        uint32_t a = alpha >= 0 ? s[alpha] : 65535;
        for (int c = 0; c < colors; c++) {
            uint32_t v = s[c];
            if (is_signed) v = (int16_t)s[c] < 0 ? 0 : s[c];
            if (invert) v = 65535 - v;
            if (alpha >= 0 && p->alpha_associated && a != 65535) {
                v = a == 0 ? 0 : (uint32_t)(((uint64_t)v * 65535 + a / 2) / a);
                if (v > 65535) v = 65535;
            }
            if (narrow) out[d + c] = (uint8_t)(v >> 8);
            else out16[d + c] = (uint16_t)v;
        }
        if (alpha >= 0) {
            if (narrow) out[d + colors] = (uint8_t)(a >> 8);
            else out16[d + colors] = (uint16_t)a;
        }
    }
}

/// Copies plane `plane` of `rows` rows of `columns` samples (`bytes` each, `src_row` bytes
/// apart) into interleaved rows of `band` starting at pixel `x0`.
static void scatter(const uint8_t *src, size_t src_row, uint32_t rows, uint32_t columns, uint8_t *band, size_t band_row,
                    uint32_t x0, int plane, int spp, int bytes) {
    for (uint32_t r = 0; r < rows; r++) {
        const uint8_t *s = src + r * src_row;
        uint8_t *d = band + r * band_row + ((size_t)x0 * spp + plane) * bytes;
        if (bytes == 1) {
            for (uint32_t x = 0; x < columns; x++) d[(size_t)x * spp] = s[x];
        } else {
            for (uint32_t x = 0; x < columns; x++) memcpy(d + (size_t)x * spp * 2, s + (size_t)x * 2, 2);
        }
    }
}

static int needed_plane(const ctiff_page *p, int plane) {
    return plane < p->color_channels || plane == p->alpha_index;
}

int ctiff_read_direct(TIFF *tif, const ctiff_page *p, uint8_t *out, size_t out_row_bytes, int64_t max_alloc) {
    return ctiff_read_direct_scaled(tif, p, out, out_row_bytes, p->width, p->height, max_alloc);
}

int ctiff_read_direct_scaled(TIFF *tif, const ctiff_page *p, uint8_t *out, size_t out_row_bytes, uint32_t out_width,
                             uint32_t out_height, int64_t max_alloc) {
    const int reduces = out_width != p->width || out_height != p->height;
    if (out_width == 0 || out_height == 0 || out_width > p->width || out_height > p->height) {
        TIFFErrorExtR(tif, "CoderTIFF", "cannot reduce %ux%u to %ux%u", p->width, p->height, out_width, out_height);
        return 0;
    }
    const int spp = p->samples_per_pixel;
    const int bytes = p->bits_per_sample == 16 ? 2 : 1;
    const int separate = p->planar == PLANARCONFIG_SEPARATE && spp > 1;
    const int packed = p->bits_per_sample != 8 && p->bits_per_sample != 16;
    const uint64_t band_row = packed ? ((uint64_t)p->width * p->bits_per_sample + 7) / 8 : (uint64_t)p->width * spp * bytes;
    const uint32_t band_rows = p->tiled ? p->tile_height : p->rows_per_strip;
    if (band_rows == 0 || (p->tiled && p->tile_width == 0)) {
        TIFFErrorExtR(tif, "CoderTIFF", "zero tile or strip size");
        return 0;
    }
    // Stored rows already in the kernel's layout: strips are read straight into the output.
    const int stored_layout = !packed && p->path == CTIFF_PATH_DIRECT && spp == p->out_channels &&
                              p->photometric != PHOTOMETRIC_MINISWHITE && !p->alpha_associated &&
                              p->sample_format == SAMPLEFORMAT_UINT && p->out_bits == p->bits_per_sample;
    const int as_stored = stored_layout && !reduces && !p->tiled && !separate && out_row_bytes == band_row;
    if (as_stored) {
        for (uint32_t y0 = 0; y0 < p->height; y0 += band_rows) {
            const uint32_t rows = p->height - y0 < band_rows ? p->height - y0 : band_rows;
            uint8_t *start = out + (size_t)y0 * out_row_bytes;
            tmsize_t n = TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y0, 0), start, (tmsize_t)(band_row * rows));
            if (n < 0) return 0;
            if ((uint64_t)n < band_row * rows) memset(start + n, 0, (size_t)(band_row * rows - (uint64_t)n));
        }
        return 1;
    }
    uint64_t chunk_size = 0;
    if (p->tiled) {
        chunk_size = (uint64_t)TIFFTileSize64(tif);
    } else if (separate) {
        chunk_size = (uint64_t)band_rows * p->width * bytes;
    }
    const uint64_t band_size = band_row * band_rows;
    if (band_size / band_rows != band_row || band_size > (uint64_t)max_alloc || chunk_size > (uint64_t)max_alloc) {
        TIFFErrorExtR(tif, "CoderTIFF", "a strip or tile band of %llu bytes is over the allocation limit",
                      (unsigned long long)(band_size > chunk_size ? band_size : chunk_size));
        return 0;
    }
    if (p->tiled && chunk_size == 0) {
        TIFFErrorExtR(tif, "CoderTIFF", "bad tile size");
        return 0;
    }
    uint8_t *band = calloc(1, (size_t)band_size);
    uint8_t *chunk = chunk_size ? malloc((size_t)chunk_size) : NULL;
    // When reducing, each converted row goes to a one-row buffer and into the box average.
    const size_t full_row = (size_t)p->width * p->out_channels * (p->out_bits / 8);
    uint8_t *row_buffer = reduces ? malloc(full_row) : NULL;
    ctiff_reducer reducer = {0};
    const int has_alpha = p->out_channels == 2 || p->out_channels == 4;
    int ok = band != NULL && (chunk_size == 0 || chunk != NULL) &&
             (!reduces || (row_buffer != NULL && ctiff_reducer_init(&reducer, p->width, p->height, out_width, out_height,
                                                                    p->out_channels, p->out_bits / 8, has_alpha, out,
                                                                    out_row_bytes)));
    if (!ok) TIFFErrorExtR(tif, "CoderTIFF", "out of memory for a band of %llu bytes", (unsigned long long)band_size);
    for (uint32_t y0 = 0; ok && y0 < p->height; y0 += band_rows) {
        const uint32_t rows = p->height - y0 < band_rows ? p->height - y0 : band_rows;
        if (!p->tiled && !separate) {
            tmsize_t n = TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y0, 0), band, (tmsize_t)(band_row * rows));
            if (n < 0) ok = 0;
            else if ((uint64_t)n < band_row * rows) memset(band + n, 0, (size_t)(band_row * rows - (uint64_t)n));
        } else if (!p->tiled) {
            for (int s = 0; ok && s < spp; s++) {
                if (!needed_plane(p, s)) continue;
                const uint64_t plane_row = (uint64_t)p->width * bytes;
                memset(chunk, 0, (size_t)(plane_row * rows));
                if (TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y0, (uint16_t)s), chunk, (tmsize_t)(plane_row * rows)) < 0) ok = 0;
                else scatter(chunk, plane_row, rows, p->width, band, band_row, 0, s, spp, bytes);
            }
        } else {
            for (uint32_t x0 = 0; ok && x0 < p->width; x0 += p->tile_width) {
                const uint32_t columns = p->width - x0 < p->tile_width ? p->width - x0 : p->tile_width;
                for (int s = 0; ok && s < (separate ? spp : 1); s++) {
                    if (separate && !needed_plane(p, s)) continue;
                    memset(chunk, 0, (size_t)chunk_size);
                    if (TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x0, y0, 0, (uint16_t)s), chunk, (tmsize_t)chunk_size) < 0) {
                        ok = 0;
                    } else if (separate) {
                        scatter(chunk, (size_t)p->tile_width * bytes, rows, columns, band, band_row, x0, s, spp, bytes);
                    } else {
                        const size_t pixel = (size_t)spp * bytes, tile_row = (size_t)p->tile_width * pixel;
                        for (uint32_t r = 0; r < rows; r++) {
                            memcpy(band + r * band_row + x0 * pixel, chunk + r * tile_row, columns * pixel);
                        }
                    }
                }
            }
        }
        for (uint32_t r = 0; ok && r < rows; r++) {
            if (reduces && stored_layout) {
                ctiff_reducer_add_row(&reducer, band + r * band_row);  // already the output layout
            } else if (reduces) {
                convert_row(p, band + r * band_row, row_buffer);
                ctiff_reducer_add_row(&reducer, row_buffer);
            } else {
                convert_row(p, band + r * band_row, out + (size_t)(y0 + r) * out_row_bytes);
            }
        }
    }
    ctiff_reducer_free(&reducer);
    free(row_buffer);
    free(band);
    free(chunk);
    return ok;
}

static int is_gray(uint16_t photometric) {
    return photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
}

int ctiff_read_rgba(TIFF *tif, ctiff_page *page, uint8_t *out, ctiff_messages *messages) {
    char message[1024] = {0};
    TIFFRGBAImage image;
    if (!TIFFRGBAImageOK(tif, message) || !TIFFRGBAImageBegin(&image, tif, 0, message)) {
        if (message[0]) snprintf(messages->error, sizeof messages->error, "%s", message);
        messages->error_count += 1;
        return 0;
    }
    // Stored order: the Orientation tag is reported, not applied.
    image.req_orientation = image.orientation;
    int ok = TIFFRGBAImageGet(&image, (uint32_t *)out, page->width, page->height);
    const int alpha = image.alpha != 0;
    TIFFRGBAImageEnd(&image);
    if (!ok) {
        if (messages->error_count == 0) {
            snprintf(messages->error, sizeof messages->error, "TIFFRGBAImageGet failed");
            messages->error_count += 1;
        }
        return 0;
    }
    const int channels = alpha ? 4 : (is_gray(page->photometric) ? 1 : 3);
    // TIFFRGBAImage premultiplies colour by alpha (associated or not), except for gray.
    const int premultiplied = alpha && !is_gray(page->photometric);
    const uint64_t count = (uint64_t)page->width * page->height;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t packed;
        memcpy(&packed, out + i * 4, 4);
        uint8_t r = (uint8_t)TIFFGetR(packed), g = (uint8_t)TIFFGetG(packed), b = (uint8_t)TIFFGetB(packed);
        uint8_t a = (uint8_t)TIFFGetA(packed);
        uint8_t *d = out + i * channels;  // never past pixel i's own four bytes
        if (channels == 1) {
            d[0] = r;
            continue;
        }
        if (premultiplied && a != 255) {
            r = a == 0 ? 0 : clip8(r * 255 / a);
            g = a == 0 ? 0 : clip8(g * 255 / a);
            b = a == 0 ? 0 : clip8(b * 255 / a);
        }
        d[0] = r, d[1] = g, d[2] = b;
        if (channels == 4) d[3] = a;
    }
    page->out_channels = channels;
    page->out_bits = 8;
    return 1;
}
