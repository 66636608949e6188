#ifndef CTIFF_REDUCE_H
#define CTIFF_REDUCE_H

// Internal to CTIFF: the streaming box average behind ctiff_read_direct_scaled.

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t src_width, src_height, dst_width, dst_height;
    int channels, bytes, alpha_weighted;
    uint8_t *out;
    size_t out_row_bytes;
    uint64_t *sums;
    /// Source rows added, output rows written.
    uint32_t row, y;
} ctiff_reducer;

int ctiff_reducer_init(ctiff_reducer *r, uint32_t src_width, uint32_t src_height, uint32_t dst_width, uint32_t dst_height,
                       int channels, int bytes, int alpha_weighted, uint8_t *out, size_t out_row_bytes);
void ctiff_reducer_add_row(ctiff_reducer *r, const uint8_t *row);
void ctiff_reducer_free(ctiff_reducer *r);

#endif
