#include "ctiff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(TIFFLIB_VERSION >= 20221213, "libtiff 4.5 or newer (TIFFOpenOptions, per-TIFF handlers)");
_Static_assert(sizeof(toff_t) == 8 && sizeof(tmsize_t) == sizeof(size_t), "64-bit offsets and sizes");
_Static_assert(sizeof(uint32_t) == 4, "TIFFRGBAImage packs a pixel in 32 bits");

// ---- messages -------------------------------------------------------------------------------

static int on_error(TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    ctiff_messages *messages = user_data;
    char text[400];
    vsnprintf(text, sizeof text, fmt, ap);
    snprintf(messages->error, sizeof messages->error, "%s%s%s", module ? module : "", module ? ": " : "", text);
    messages->error_count += 1;
    return 1;  // handled: libtiff's process-wide handler (stderr) is not called
}

static int on_warning(TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    ctiff_messages *messages = user_data;
    messages->warning_count += 1;
    size_t used = strlen(messages->warnings);
    if (messages->warning_count <= 4 && used + 8 < sizeof messages->warnings) {
        char text[300];
        vsnprintf(text, sizeof text, fmt, ap);
        snprintf(messages->warnings + used, sizeof messages->warnings - used, "%s%s%s%s", used ? "; " : "",
                 module ? module : "", module ? ": " : "", text);
    }
    return 1;
}

static TIFFOpenOptions *make_options(ctiff_messages *messages, int64_t max_single_alloc) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, messages);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, messages);
    if (max_single_alloc > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_single_alloc);
    return options;
}

// ---- reading from memory --------------------------------------------------------------------

/// Copies up to `size` bytes at *offset of `data` (`length` bytes) into `buffer`.
static tmsize_t read_at(const uint8_t *data, uint64_t length, uint64_t *offset, void *buffer, tmsize_t size) {
    if (size <= 0 || *offset >= length) return 0;
    uint64_t left = length - *offset;
    uint64_t count = (uint64_t)size < left ? (uint64_t)size : left;
    memcpy(buffer, data + *offset, (size_t)count);
    *offset += count;
    return (tmsize_t)count;
}

static tmsize_t source_read(thandle_t handle, void *buffer, tmsize_t size) {
    ctiff_source *source = handle;
    return read_at(source->data, source->size, &source->offset, buffer, size);
}

static tmsize_t source_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle, (void)buffer, (void)size;
    return -1;
}

static toff_t source_seek(thandle_t handle, toff_t offset, int whence) {
    ctiff_source *source = handle;
    uint64_t base = whence == SEEK_CUR ? source->offset : whence == SEEK_END ? source->size : 0;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return (toff_t)-1;
    // Offsets past the end are allowed (reads there return 0 bytes), as with a file.
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    source->offset = base + offset;
    return source->offset;
}

static int noop_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t source_size(thandle_t handle) {
    return ((ctiff_source *)handle)->size;
}

static int no_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle, (void)base, (void)size;
    return 0;
}

static void no_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle, (void)base, (void)size;
}

TIFF *ctiff_open_source(ctiff_source *source, int64_t max_single_alloc) {
    TIFFOpenOptions *options = make_options(&source->messages, max_single_alloc);
    if (options == NULL) return NULL;
    // "m": no memory mapping (the procs above already read from memory).
    TIFF *tif = TIFFClientOpenExt("memory", "rm", source, source_read, source_write, source_seek, noop_close,
                                  source_size, no_map, no_unmap, options);
    TIFFOpenOptionsFree(options);
    return tif;
}

// ---- writing to memory ----------------------------------------------------------------------

static tmsize_t sink_read(thandle_t handle, void *buffer, tmsize_t size) {
    ctiff_sink *sink = handle;
    return read_at(sink->bytes, sink->size, &sink->offset, buffer, size);
}

static tmsize_t sink_write(thandle_t handle, void *buffer, tmsize_t size) {
    ctiff_sink *sink = handle;
    if (size < 0) return -1;
    uint64_t end = sink->offset + (uint64_t)size;
    if (end > sink->capacity) {
        uint64_t capacity = sink->capacity ? sink->capacity : 65536;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = realloc(sink->bytes, (size_t)capacity);
        if (grown == NULL) {
            sink->failed = 1;
            return -1;
        }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    if (sink->offset > sink->size) memset(sink->bytes + sink->size, 0, (size_t)(sink->offset - sink->size));
    memcpy(sink->bytes + sink->offset, buffer, (size_t)size);
    sink->offset = end;
    if (end > sink->size) sink->size = end;
    return size;
}

static toff_t sink_seek(thandle_t handle, toff_t offset, int whence) {
    ctiff_sink *sink = handle;
    uint64_t base = whence == SEEK_CUR ? sink->offset : whence == SEEK_END ? sink->size : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    sink->offset = base + offset;
    return sink->offset;
}

static toff_t sink_size(thandle_t handle) {
    return ((ctiff_sink *)handle)->size;
}

TIFF *ctiff_open_sink(ctiff_sink *sink) {
    TIFFOpenOptions *options = make_options(&sink->messages, 0);
    if (options == NULL) return NULL;
    TIFF *tif = TIFFClientOpenExt("memory", "w", sink, sink_read, sink_write, sink_seek, noop_close, sink_size,
                                  no_map, no_unmap, options);
    TIFFOpenOptionsFree(options);
    return tif;
}

void ctiff_sink_free(ctiff_sink *sink) {
    free(sink->bytes);
    sink->bytes = NULL;
    sink->size = sink->capacity = sink->offset = 0;
}
