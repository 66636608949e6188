#ifndef CTIFF_H
#define CTIFF_H

// CoderTIFF's view of libtiff 4.5. libtiff reports errors by return value (no longjmp), so the
// only C here is what Swift cannot do well: the in-memory client procs, the per-call message
// handlers (never stderr, never libtiff's process-wide handlers), reading a page's tags, and the
// strip/tile loops that turn stored samples into the kernel's pixel layouts.

#include <stddef.h>
#include <stdint.h>
#include <tiffio.h>

/// What libtiff said during one call: the last error and the first warnings.
typedef struct {
    char error[512];
    char warnings[1024];
    int error_count;
    int warning_count;
} ctiff_messages;

/// Bytes libtiff reads from; the caller keeps `data` alive until TIFFClose.
typedef struct {
    const uint8_t *data;
    uint64_t size;
    uint64_t offset;
    ctiff_messages messages;
} ctiff_source;

/// Opens `source` for reading with messages routed to `source->messages` and libtiff's own
/// allocations bounded by `max_single_alloc` bytes. NULL on failure (see the messages).
TIFF *ctiff_open_source(ctiff_source *source, int64_t max_single_alloc);

/// A growing buffer libtiff writes to (and seeks in, and reads back).
typedef struct {
    uint8_t *bytes;
    uint64_t size;
    uint64_t capacity;
    uint64_t offset;
    int failed;
    ctiff_messages messages;
} ctiff_sink;

/// Opens `sink` (zeroed by the caller) for writing a classic TIFF in host byte order.
TIFF *ctiff_open_sink(ctiff_sink *sink);

/// Frees a sink's bytes.
void ctiff_sink_free(ctiff_sink *sink);

/// How a page's pixels reach the kernel.
typedef enum {
    /// Gray or RGB, 8 or 16 bits (9–15-bit gray widened to 16), optional alpha; read strip by
    /// strip or tile by tile and converted by ctiff_read_direct.
    CTIFF_PATH_DIRECT = 0,
    /// CMYK (8 or 16 bits): Pillow's naive conversion to RGB8 by ctiff_read_direct.
    CTIFF_PATH_CMYK = 1,
    /// Everything else libtiff can show (palette, 1–4-bit, YCbCr, JPEG, Lab, LogLuv, …) through
    /// TIFFRGBAImage, 8 bits: ctiff_read_rgba.
    CTIFF_PATH_RGBA = 2,
} ctiff_path;

/// The tags of the current directory that decide how it is decoded.
typedef struct {
    uint32_t width, height;
    uint16_t bits_per_sample, samples_per_pixel, photometric, planar, compression, sample_format;
    uint16_t orientation, inkset;
    /// Index of the alpha sample (associated or unassociated), -1 for none.
    int32_t alpha_index;
    int32_t alpha_associated;
    /// Colour samples before the extra samples (1 gray, 3 RGB, 4 CMYK).
    int32_t color_channels;
    int32_t tiled;
    uint32_t tile_width, tile_height, rows_per_strip;
    uint32_t subfile_type;
    const uint8_t *icc;
    uint32_t icc_size;
    /// How to decode it and what comes out: 1–4 channels of 8 or 16 bits. A caller may lower
    /// out_bits from 16 to 8 before ctiff_read_direct: 16-bit samples then keep their high byte.
    ctiff_path path;
    int32_t out_channels;
    int32_t out_bits;
} ctiff_page;

/// Reads the current directory's tags into `page` and plans the decode. 0 when libtiff cannot
/// read it at all (messages say why); unsupported layouts are planned as CTIFF_PATH_RGBA.
int ctiff_read_page(TIFF *tif, ctiff_page *page);

/// Decodes the current page (planned DIRECT or CMYK) into `out`: height rows of `out_row_bytes`
/// holding width × out_channels samples of out_bits (16-bit in host order). Allocates at most
/// `max_alloc` bytes of its own (one band of strips or tiles). 1 on success, 0 on error.
int ctiff_read_direct(TIFF *tif, const ctiff_page *page, uint8_t *out, size_t out_row_bytes, int64_t max_alloc);

/// ctiff_read_direct reduced on the fly to out_width × out_height (at most the page's size) by
/// the kernel's area average (Image.areaDownscaled: box means, colour weighted by straight
/// alpha, rounded to nearest), holding one band and one row of sums instead of the whole page.
int ctiff_read_direct_scaled(TIFF *tif, const ctiff_page *page, uint8_t *out, size_t out_row_bytes, uint32_t out_width,
                             uint32_t out_height, int64_t max_alloc);

/// Decodes the current page with TIFFRGBAImage in stored order (Orientation not applied) into
/// `out`, width × height × 4 bytes, then un-premultiplies and packs it to page->out_channels
/// (1 gray, 3 RGB or 4 RGBA) tightly. 1 on success, 0 on error (messages say why).
int ctiff_read_rgba(TIFF *tif, ctiff_page *page, uint8_t *out, ctiff_messages *messages);

/// What to write.
typedef struct {
    uint32_t width, height;
    /// 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    uint16_t channels;
    /// 8 or 16 (host order).
    uint16_t bits;
    /// The alpha sample is premultiplied (ExtraSamples associated) rather than straight.
    int premultiplied;
    /// COMPRESSION_ADOBE_DEFLATE or COMPRESSION_LZW.
    uint16_t compression;
    /// zlib level 1–9 for deflate.
    int level;
    const uint8_t *icc;
    uint32_t icc_size;
} ctiff_encode_params;

/// Writes one page from `pixels` (height rows `row_bytes` apart) into `sink`. 1 on success.
int ctiff_encode(ctiff_sink *sink, const ctiff_encode_params *params, const uint8_t *pixels, size_t row_bytes);

#endif
