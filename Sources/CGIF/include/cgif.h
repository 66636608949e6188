#ifndef CGIF_H
#define CGIF_H

// CoderGIF's view of giflib 5.2. giflib reports every error by value (GIF_ERROR plus an error
// code), so Swift calls it directly; this module adds the in-memory reader and writer whose
// callbacks giflib calls, so no Swift closure has to become a C function pointer with state.

#include <stddef.h>
#include <stdint.h>
#include <gif_lib.h>

/// Bytes giflib reads from; the caller keeps `data` alive until DGifCloseFile.
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
} cgif_source;

/// DGifOpen over `source`. NULL with *error set (a D_GIF_ERR_* code) on failure.
GifFileType *cgif_open_source(cgif_source *source, int *error);

/// A growing buffer giflib writes to.
typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
} cgif_sink;

/// EGifOpen writing into `sink` (zeroed by the caller). NULL with *error set on failure.
GifFileType *cgif_open_sink(cgif_sink *sink, int *error);

/// Frees a sink's bytes.
void cgif_sink_free(cgif_sink *sink);

/// A colour map of 2^bits entries from packed RGB triples (missing entries black); NULL when
/// out of memory. Free with GifFreeMapObject.
ColorMapObject *cgif_make_map(int bits, const uint8_t *rgb, int count);

/// giflib's message for an error code.
const char *cgif_error_string(int error);

#endif
