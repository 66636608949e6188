#include "cbenchsvg.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <stdio.h>
#include <string.h>

const char *cbenchsvg_version(void) {
    static char text[64];
    snprintf(text, sizeof text, "librsvg %s, cairo %s", LIBRSVG_VERSION, cairo_version_string());
    return text;
}

int cbenchsvg_render(const uint8_t *bytes, size_t length, int width, int height, uint8_t *rgba) {
    GError *error = NULL;
    RsvgHandle *handle = rsvg_handle_new_from_data(bytes, length, &error);
    if (handle == NULL) {
        g_clear_error(&error);
        return -1;
    }
    rsvg_handle_set_dpi(handle, 96);
    double w = 0, h = 0;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(handle, &w, &h)) {
        g_object_unref(handle);
        return -1;
    }
    memset(rgba, 0, (size_t)width * height * 4);
    cairo_surface_t *surface = cairo_image_surface_create_for_data(rgba, CAIRO_FORMAT_ARGB32, width, height, width * 4);
    cairo_t *cr = cairo_create(surface);
    cairo_scale(cr, width / w, height / h);
    RsvgRectangle viewport = {0, 0, w, h};
    gboolean ok = rsvg_handle_render_document(handle, cr, &viewport, &error);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    g_object_unref(handle);
    if (!ok) {
        g_clear_error(&error);
        return -1;
    }
    for (size_t i = 0; i < (size_t)width * height; i++) {
        uint8_t *p = rgba + 4 * i;
        uint32_t word;
        memcpy(&word, p, 4);
        uint32_t a = word >> 24, r = (word >> 16) & 0xFF, g = (word >> 8) & 0xFF, b = word & 0xFF;
        if (a == 0) {
            r = g = b = 0;
        } else if (a != 255) {
            r = (r * 255 + a / 2) / a;
            g = (g * 255 + a / 2) / a;
            b = (b * 255 + a / 2) / a;
        }
        p[0] = (uint8_t)r, p[1] = (uint8_t)g, p[2] = (uint8_t)b, p[3] = (uint8_t)a;
    }
    return 0;
}
