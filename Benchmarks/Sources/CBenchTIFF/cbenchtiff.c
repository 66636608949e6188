#include "cbenchtiff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

typedef struct {
    uint8_t *bytes;
    uint64_t size, capacity, offset;
} memory;

static tmsize_t mem_read(thandle_t h, void *buffer, tmsize_t n) {
    memory *m = h;
    if (n <= 0 || m->offset >= m->size) return 0;
    uint64_t count = (uint64_t)n < m->size - m->offset ? (uint64_t)n : m->size - m->offset;
    memcpy(buffer, m->bytes + m->offset, count);
    m->offset += count;
    return (tmsize_t)count;
}

static tmsize_t mem_write(thandle_t h, void *buffer, tmsize_t n) {
    memory *m = h;
    uint64_t end = m->offset + (uint64_t)n;
    if (end > m->capacity) {
        uint64_t capacity = m->capacity ? m->capacity : 65536;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = realloc(m->bytes, capacity);
        if (!grown) return -1;
        m->bytes = grown;
        m->capacity = capacity;
    }
    memcpy(m->bytes + m->offset, buffer, (size_t)n);
    m->offset = end;
    if (end > m->size) m->size = end;
    return n;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence) {
    memory *m = h;
    m->offset = (whence == SEEK_CUR ? m->offset : whence == SEEK_END ? m->size : 0) + off;
    return m->offset;
}

static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return ((memory *)h)->size; }
static int no_map(thandle_t h, void **b, toff_t *s) { (void)h, (void)b, (void)s; return 0; }
static void no_unmap(thandle_t h, void *b, toff_t s) { (void)h, (void)b, (void)s; }

int cbenchtiff_decode(const uint8_t *data, size_t size, int *width, int *height, uint8_t **rgb) {
    memory m = {(uint8_t *)data, size, size, 0};
    TIFF *tif = TIFFClientOpen("memory", "rm", &m, mem_read, mem_write, mem_seek, mem_close, mem_size, no_map, no_unmap);
    if (!tif) return 1;
    uint32_t w = 0, h = 0, rows = 0;
    uint16_t spp = 0, bits = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
    if (spp != 3 || bits != 8 || TIFFIsTiled(tif)) {
        TIFFClose(tif);
        return 2;
    }
    if (rows == 0 || rows > h) rows = h;
    size_t row = (size_t)w * 3;
    uint8_t *out = malloc(row * h);
    int status = out ? 0 : 3;
    for (uint32_t y = 0; status == 0 && y < h; y += rows) {
        uint32_t n = h - y < rows ? h - y : rows;
        if (TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y, 0), out + row * y, (tmsize_t)(row * n)) < 0) status = 4;
    }
    TIFFClose(tif);
    if (status) {
        free(out);
        return status;
    }
    *width = (int)w, *height = (int)h, *rgb = out;
    return 0;
}

int cbenchtiff_encode(const uint8_t *rgb, int width, int height, int compression, int level, uint8_t **out, size_t *out_size) {
    memory m = {0};
    TIFF *tif = TIFFClientOpen("memory", "w", &m, mem_read, mem_write, mem_seek, mem_close, mem_size, no_map, no_unmap);
    if (!tif) return 1;
    const size_t row = (size_t)width * 3;
    uint32_t rows = (uint32_t)((262144 + row - 1) / row);
    if (rows > (uint32_t)height) rows = (uint32_t)height;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
    TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    if (compression == COMPRESSION_ADOBE_DEFLATE) TIFFSetField(tif, TIFFTAG_ZIPQUALITY, level);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows);
    /* The predictor differences the buffer in place: one strip copy, as CoderTIFF makes. */
    uint8_t *strip = malloc(row * rows);
    int status = strip ? 0 : 3;
    for (uint32_t y = 0; status == 0 && y < (uint32_t)height; y += rows) {
        uint32_t n = (uint32_t)height - y < rows ? (uint32_t)height - y : rows;
        memcpy(strip, rgb + row * y, row * n);
        if (TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, y, 0), strip, (tmsize_t)(row * n)) < 0) status = 4;
    }
    free(strip);
    if (status == 0 && !TIFFWriteDirectory(tif)) status = 5;
    TIFFClose(tif);
    if (status) {
        free(m.bytes);
        return status;
    }
    *out = m.bytes, *out_size = m.size;
    return 0;
}

int cbenchtiff_deflate(void) { return COMPRESSION_ADOBE_DEFLATE; }
int cbenchtiff_lzw(void) { return COMPRESSION_LZW; }

const char *cbenchtiff_version(void) {
    static char first[64];
    const char *v = TIFFGetVersion();
    size_t n = strcspn(v, "\n");
    if (n >= sizeof first) n = sizeof first - 1;
    memcpy(first, v, n);
    first[n] = 0;
    return first;
}
