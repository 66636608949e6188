#include "crsvg.h"

#include <cairo.h>
#include <gio/gio.h>
#include <librsvg/rsvg.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(uint32_t) == 4, "cairo's ARGB32 pixels are 32-bit words");

struct crsvg_document {
    RsvgHandle *handle;
};

static void crsvg_set_error(crsvg_error *error, const char *what, const GError *cause) {
    if (error == NULL) return;
    if (cause != NULL) {
        snprintf(error->message, sizeof error->message, "%s: %s", what, cause->message);
        error->xml_error = cause->code;
    } else {
        snprintf(error->message, sizeof error->message, "%s", what);
        error->xml_error = 0;
    }
}

crsvg_document *crsvg_load(const uint8_t *bytes, size_t length, crsvg_error *error) {
    if (bytes == NULL || length == 0) {
        crsvg_set_error(error, "no data", NULL);
        return NULL;
    }
    // No copy: the stream reads the caller's bytes, which outlive this call. No base file: with
    // base_file NULL librsvg's URL resolver allows `data:` URLs only, refusing every other
    // reference (images, <use> of other documents, XInclude, CSS @import) before any I/O.
    GInputStream *stream = g_memory_input_stream_new_from_data(bytes, (gssize)length, NULL);
    GError *cause = NULL;
    RsvgHandle *handle = rsvg_handle_new_from_stream_sync(stream, NULL, RSVG_HANDLE_FLAGS_NONE, NULL, &cause);
    g_object_unref(stream);
    if (handle == NULL) {
        crsvg_set_error(error, "cannot read the SVG", cause);
        if (cause != NULL) g_error_free(cause);
        return NULL;
    }
    rsvg_handle_set_dpi(handle, 96.0);
    crsvg_document *document = g_malloc0(sizeof *document);
    document->handle = handle;
    return document;
}

void crsvg_free(crsvg_document *document) {
    if (document == NULL) return;
    g_object_unref(document->handle);
    g_free(document);
}

void crsvg_intrinsic_size(crsvg_document *document, crsvg_intrinsic *out) {
    memset(out, 0, sizeof *out);
    gboolean has_width = FALSE, has_height = FALSE, has_viewbox = FALSE;
    RsvgLength width, height;
    RsvgRectangle viewbox;
    rsvg_handle_get_intrinsic_dimensions(document->handle, &has_width, &width, &has_height, &height, &has_viewbox, &viewbox);
    if (has_viewbox) {
        out->has_viewbox = 1;
        out->viewbox_width = viewbox.width;
        out->viewbox_height = viewbox.height;
    }
    double pixel_width = 0, pixel_height = 0;
    // False when width or height is a percentage (or missing, which means 100%).
    if (rsvg_handle_get_intrinsic_size_in_pixels(document->handle, &pixel_width, &pixel_height)) {
        out->has_pixel_size = 1;
        out->pixel_width = pixel_width;
        out->pixel_height = pixel_height;
    }
}

int crsvg_render(
    crsvg_document *document, uint8_t *rgba, int width, int height, double viewport_width, double viewport_height,
    double scale_x, double scale_y, crsvg_error *error) {
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width);
    if (stride != width * 4) {
        crsvg_set_error(error, "cairo cannot use a tight ARGB32 buffer of this width", NULL);
        return -1;
    }
    cairo_surface_t *surface = cairo_image_surface_create_for_data(rgba, CAIRO_FORMAT_ARGB32, width, height, stride);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        crsvg_set_error(error, cairo_status_to_string(cairo_surface_status(surface)), NULL);
        cairo_surface_destroy(surface);
        return -1;
    }
    cairo_t *cr = cairo_create(surface);
    // The document is laid out at its own size and the scale brings it to the buffer's: a
    // document without a viewBox scales too (a viewport of the buffer's size would crop it).
    cairo_scale(cr, scale_x, scale_y);
    RsvgRectangle viewport = {0, 0, viewport_width, viewport_height};
    GError *cause = NULL;
    gboolean rendered = rsvg_handle_render_document(document->handle, cr, &viewport, &cause);
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
    if (!rendered) {
        crsvg_set_error(error, "cannot render the SVG", cause);
        if (cause != NULL) g_error_free(cause);
        return -1;
    }
    if (status != CAIRO_STATUS_SUCCESS) {
        crsvg_set_error(error, cairo_status_to_string(status), NULL);
        return -1;
    }
    crsvg_unpremultiply_argb32(rgba, (size_t)width * (size_t)height);
    return 0;
}

void crsvg_unpremultiply_argb32(uint8_t *pixels, size_t count) {
    for (size_t i = 0; i < count; i++) {
        uint8_t *p = pixels + 4 * i;
        uint32_t word;
        memcpy(&word, p, 4);
        uint32_t a = word >> 24;
        uint32_t r = (word >> 16) & 0xFF, g = (word >> 8) & 0xFF, b = word & 0xFF;
        if (a == 0) {
            r = g = b = 0;
        } else if (a != 255) {
            r = (r * 255 + a / 2) / a;
            g = (g * 255 + a / 2) / a;
            b = (b * 255 + a / 2) / a;
        }
        p[0] = (uint8_t)r;
        p[1] = (uint8_t)g;
        p[2] = (uint8_t)b;
        p[3] = (uint8_t)a;
    }
}
