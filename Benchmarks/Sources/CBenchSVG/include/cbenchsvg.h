#ifndef CBENCHSVG_H
#define CBENCHSVG_H
#include <stddef.h>
#include <stdint.h>

/// librsvg's version, e.g. "librsvg 2.54.7, cairo 1.16.0".
const char *cbenchsvg_version(void);

/// The baseline of bench-svg: librsvg called directly, as an application would. Parses `length`
/// bytes with rsvg_handle_new_from_data, renders the document scaled to `width`x`height` into a
/// cairo ARGB32 surface (rsvg_handle_render_document), and un-premultiplies it into `rgba` (the
/// straight-alpha RGBA8 an image library hands out). Returns 0 on success.
int cbenchsvg_render(const uint8_t *bytes, size_t length, int width, int height, uint8_t *rgba);
#endif
