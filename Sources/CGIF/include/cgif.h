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

/// Where a frame lands on the logical screen and how it is drawn.
typedef struct {
    int left, top, width, height;
    /// Rows stored in the four interlace passes (every 8th from 0, 8th from 4, 4th from 2, 2nd from 1).
    int interlaced;
    /// The palette index that leaves the canvas as it is; -1 for none.
    int transparent;
} cgif_frame;

/// Fills `palette` with straight RGBA8 pixels (bytes in memory order R, G, B, A) for `map`:
/// indices past its end are opaque black; no map (a file without any table) gives a gray ramp.
void cgif_palette(const ColorMapObject *map, uint32_t palette[256]);

/// Reads the rows of the frame whose descriptor giflib has just read (DGifGetLine, in stored
/// order) into `row` (at least frame->width bytes) and draws each onto `canvas`, a
/// canvas_width x canvas_height screen of RGBA8 pixels: indices are looked up in `palette`, the
/// transparent index is skipped and whatever lies outside the screen is clipped.
/// GIF_OK, or GIF_ERROR with gif->Error set.
int cgif_draw_frame(GifFileType *gif, const cgif_frame *frame, const uint32_t palette[256], uint8_t *row,
                    uint32_t *canvas, int canvas_width, int canvas_height);

/// Sets the part of `frame`'s rectangle inside the screen to transparent black (disposal 2).
void cgif_clear_frame(const cgif_frame *frame, uint32_t *canvas, int canvas_width, int canvas_height);

/// giflib's message for an error code.
const char *cgif_error_string(int error);

#endif
