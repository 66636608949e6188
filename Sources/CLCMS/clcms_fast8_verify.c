#include "clcms.h"

#include <stdlib.h>

/* The probe set: a 33-level grid of every channel combination (0, 8, …, 248, 255), then ramps of
 * all 256 levels of gray, of each channel alone, and of each channel with the others full. */
enum { clcms_grid = 33, clcms_probe_count = clcms_grid * clcms_grid * clcms_grid + 7 * 256 };

static uint8_t clcms_grid_level(int i) { return (uint8_t)(i * 8 > 255 ? 255 : i * 8); }

static void clcms_probe_fill(uint8_t *pixels, int channels) {
    size_t p = 0;
    for (int r = 0; r < clcms_grid; r++)
        for (int g = 0; g < clcms_grid; g++)
            for (int b = 0; b < clcms_grid; b++, p++) {
                uint8_t *px = pixels + p * channels;
                px[0] = clcms_grid_level(r), px[1] = clcms_grid_level(g), px[2] = clcms_grid_level(b);
            }
    for (int ramp = 0; ramp < 7; ramp++)
        for (int v = 0; v < 256; v++, p++) {
            uint8_t *px = pixels + p * channels;
            for (int c = 0; c < 3; c++) {
                if (ramp == 0) px[c] = (uint8_t)v;
                else if (ramp <= 3) px[c] = c == ramp - 1 ? (uint8_t)v : 0;
                else px[c] = c == ramp - 4 ? (uint8_t)v : 255;
            }
        }
    if (channels == 4)
        for (size_t i = 0; i < clcms_probe_count; i++) pixels[i * 4 + 3] = (uint8_t)(i * 37);
}

int clcms_fast8_verify(const clcms_fast8 *fast, const clcms_transform *transform, int channels) {
    if (channels != 3 && channels != 4) return 256;
    size_t size = (size_t)clcms_probe_count * channels;
    uint8_t *probe = malloc(size), *direct = malloc(size), *reference = malloc(size);
    int largest = 256;
    if (probe && direct && reference) {
        clcms_probe_fill(probe, channels);
        clcms_fast8_run(fast, probe, size, direct, size, channels, clcms_probe_count, 1);
        clcms_transform_run(transform, probe, size, reference, size, clcms_probe_count, 1);
        largest = 0;
        for (size_t i = 0; i < size; i++) {
            int d = abs((int)direct[i] - (int)reference[i]);
            if (d > largest) largest = d;
        }
    }
    free(probe);
    free(direct);
    free(reference);
    return largest;
}
