#ifndef CRSVG_H
#define CRSVG_H

// CoderSVG's view of librsvg 2.54 and cairo. Swift never sees a GObject, a GError or a cairo
// type: the shim loads a document from memory with no base URL (so librsvg resolves no reference
// but `data:` URLs: no file, no network), reports its intrinsic size, and renders it into a
// caller-owned RGBA8 buffer with straight alpha.

#include <stddef.h>
#include <stdint.h>

/// A parsed SVG document (an RsvgHandle). Not thread-safe; one per decode.
typedef struct crsvg_document crsvg_document;

/// What librsvg or cairo said when a call failed.
typedef struct {
    char message[512];
    /// The GError's domain and code (0 when none); for classifying the failure.
    int xml_error;
} crsvg_error;

/// Parses `length` bytes of SVG (the caller keeps them alive during the call) without a base
/// URL and without RSVG_HANDLE_FLAG_UNLIMITED, so libxml2's limits stand (entity amplification,
/// depth 256, no external entities). NULL on failure, with the message in `error`.
crsvg_document *crsvg_load(const uint8_t *bytes, size_t length, crsvg_error *error);

/// Frees a document; NULL is ignored.
void crsvg_free(crsvg_document *document);

/// The root `<svg>` element's size as the document states it.
typedef struct {
    /// 1 when librsvg can turn width and height into pixels at 96 dpi (absolute units, no %).
    int has_pixel_size;
    double pixel_width;
    double pixel_height;
    /// 1 when the root has a viewBox.
    int has_viewbox;
    double viewbox_width;
    double viewbox_height;
} crsvg_intrinsic;

/// Fills `out` with the document's intrinsic size.
void crsvg_intrinsic_size(crsvg_document *document, crsvg_intrinsic *out);

/// Renders the document into `rgba` (`width`×`height` pixels, `width`×4 bytes per row, zeroed by
/// the caller): the document's viewport (`viewport_width`×`viewport_height` pixels, its intrinsic
/// size) is drawn scaled by `scale_x`, `scale_y` (1 at the intrinsic size, as rsvg-convert draws
/// a fractional size into the rounded-up surface; the canvas over the intrinsic size for a
/// thumbnail, so it is drawn at its own size), with the root's viewBox and preserveAspectRatio
/// honoured inside it. The pixels are RGBA8 with straight alpha (cairo's premultiplied ARGB32
/// un-premultiplied as cairo's own PNG writer does). Returns 0 on success, else -1 with the
/// message in `error`.
int crsvg_render(
    crsvg_document *document, uint8_t *rgba, int width, int height, double viewport_width, double viewport_height,
    double scale_x, double scale_y, crsvg_error *error);

/// Converts cairo's premultiplied ARGB32 (native-endian 32-bit words) in place to RGBA8 with
/// straight alpha: c' = (c × 255 + a / 2) / a, as cairo's PNG writer (and so rsvg-convert) does.
void crsvg_unpremultiply_argb32(uint8_t *pixels, size_t count);

#endif
