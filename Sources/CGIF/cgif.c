#include "cgif.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(GIFLIB_MAJOR == 5 && GIFLIB_MINOR >= 1, "giflib 5.1 or newer (error codes by value)");
_Static_assert(sizeof(GifPixelType) == 1, "8-bit pixel indices");

static int read_source(GifFileType *gif, GifByteType *buffer, int length) {
    cgif_source *source = gif->UserData;
    if (length <= 0) return 0;
    size_t left = source->size - source->offset;
    size_t count = (size_t)length < left ? (size_t)length : left;
    memcpy(buffer, source->data + source->offset, count);
    source->offset += count;
    return (int)count;
}

GifFileType *cgif_open_source(cgif_source *source, int *error) {
    return DGifOpen(source, read_source, error);
}

static int write_sink(GifFileType *gif, const GifByteType *bytes, int length) {
    cgif_sink *sink = gif->UserData;
    if (length <= 0) return 0;
    if (sink->size + (size_t)length > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 4096;
        while (capacity < sink->size + (size_t)length) capacity *= 2;
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (grown == NULL) return 0;
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->size, bytes, (size_t)length);
    sink->size += (size_t)length;
    return length;
}

GifFileType *cgif_open_sink(cgif_sink *sink, int *error) {
    return EGifOpen(sink, write_sink, error);
}

void cgif_sink_free(cgif_sink *sink) {
    free(sink->bytes);
    sink->bytes = NULL;
    sink->size = sink->capacity = 0;
}

ColorMapObject *cgif_make_map(int bits, const uint8_t *rgb, int count) {
    ColorMapObject *map = GifMakeMapObject(1 << bits, NULL);
    if (map == NULL) return NULL;
    memset(map->Colors, 0, sizeof(GifColorType) * (size_t)map->ColorCount);
    for (int i = 0; i < count && i < map->ColorCount; i++) {
        map->Colors[i].Red = rgb[i * 3];
        map->Colors[i].Green = rgb[i * 3 + 1];
        map->Colors[i].Blue = rgb[i * 3 + 2];
    }
    return map;
}

void cgif_palette(const ColorMapObject *map, uint32_t palette[256]) {
    uint8_t *bytes = (uint8_t *)palette;
    int count = map != NULL && map->Colors != NULL ? (map->ColorCount < 256 ? map->ColorCount : 256) : 0;
    for (int i = 0; i < 256; i++, bytes += 4) {
        if (map == NULL || map->Colors == NULL) {
            bytes[0] = bytes[1] = bytes[2] = (uint8_t)i;
        } else if (i < count) {
            bytes[0] = map->Colors[i].Red;
            bytes[1] = map->Colors[i].Green;
            bytes[2] = map->Colors[i].Blue;
        } else {
            bytes[0] = bytes[1] = bytes[2] = 0;
        }
        bytes[3] = 0xFF;
    }
}

/// Draws `count` pixels of one row; `transparent` is -1 for none.
static void draw_row(uint32_t *restrict dst, const uint8_t *restrict indices, int count, const uint32_t *restrict palette, int transparent) {
    if (transparent < 0) {
        for (int x = 0; x < count; x++) dst[x] = palette[indices[x]];
    } else {
        uint8_t skip = (uint8_t)transparent;
        for (int x = 0; x < count; x++)
            if (indices[x] != skip) dst[x] = palette[indices[x]];
    }
}

int cgif_draw_frame(GifFileType *gif, const cgif_frame *frame, const uint32_t palette[256], uint8_t *row,
                    uint32_t *canvas, int canvas_width, int canvas_height) {
    static const int starts[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
    int visible = frame->left < canvas_width ? (frame->width < canvas_width - frame->left ? frame->width : canvas_width - frame->left) : 0;
    int passes = frame->interlaced ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int step = frame->interlaced ? steps[pass] : 1;
        for (int y = frame->interlaced ? starts[pass] : 0; y < frame->height; y += step) {
            if (DGifGetLine(gif, row, frame->width) == GIF_ERROR) return GIF_ERROR;
            int canvas_y = frame->top + y;
            if (canvas_y >= canvas_height || visible <= 0) continue;
            draw_row(canvas + (size_t)canvas_y * (size_t)canvas_width + (size_t)frame->left, row, visible, palette, frame->transparent);
        }
    }
    return GIF_OK;
}

void cgif_clear_frame(const cgif_frame *frame, uint32_t *canvas, int canvas_width, int canvas_height) {
    if (frame->left >= canvas_width || frame->top >= canvas_height) return;
    int right = frame->left + frame->width < canvas_width ? frame->left + frame->width : canvas_width;
    int bottom = frame->top + frame->height < canvas_height ? frame->top + frame->height : canvas_height;
    for (int y = frame->top; y < bottom; y++)
        memset(canvas + (size_t)y * (size_t)canvas_width + (size_t)frame->left, 0, (size_t)(right - frame->left) * 4);
}

const char *cgif_error_string(int error) {
    const char *text = GifErrorString(error);
    return text != NULL ? text : "unknown giflib error";
}
