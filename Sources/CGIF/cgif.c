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

const char *cgif_error_string(int error) {
    const char *text = GifErrorString(error);
    return text != NULL ? text : "unknown giflib error";
}
