#ifndef CBENCHGIF_H
#define CBENCHGIF_H

/*
 * The baseline for bench-gif: giflib's low-level reader called directly from C with the same
 * compositing CoderGIF does (canvas starts transparent black; transparent index skipped;
 * disposal 2 clears to transparent, 3 restores; frames clipped to the screen), every frame
 * copied out as a full RGBA canvas.
 */

#include <stddef.h>
#include <stdint.h>

/* Decodes every frame into one malloc'd buffer of frame_count RGBA canvases (free with
 * free()). 0 on success. */
int cbenchgif_decode(const uint8_t *data, size_t size, int *width, int *height, int *frame_count, uint8_t **frames);

/* The giflib version compiled against, "major.minor.release". */
const char *cbenchgif_version(void);

#endif
