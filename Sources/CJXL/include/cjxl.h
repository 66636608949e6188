#ifndef CJXL_H
#define CJXL_H

// CoderJXL's view of libjxl 0.7. libjxl reports errors by status (no longjmp), so Swift drives
// the decoder and encoder itself; the C here is what Swift cannot do well: a memory manager that
// bounds what libjxl may hold at once, and the multithreaded image-out callbacks that reduce a
// frame to a thumbnail while libjxl renders it, without the full-size frame ever existing.

#include <stddef.h>
#include <stdint.h>
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>

/// What libjxl may allocate through a manager from ``cjxl_memory_manager``: `limit` bytes held at
/// once (checked on every allocation; updated by the caller between calls, e.g. once the header
/// is known). `refused` counts the allocations refused for the limit; `peak` is the most held.
typedef struct {
    size_t limit;
    size_t in_use;
    size_t peak;
    int refused;
} cjxl_budget;

/// A memory manager for JxlDecoderCreate/JxlEncoderCreate charging `budget`, which must outlive
/// the decoder or encoder. Thread-safe (libjxl allocates from its worker threads).
JxlMemoryManager cjxl_memory_manager(cjxl_budget *budget);

/// Reduces one frame, as libjxl's image-out callbacks deliver it (rows in any order, from any
/// thread), to `dst_width` x `dst_height` by the kernel's box average (Image.areaDownscaled):
/// each worker thread sums into its own accumulator, so no lock is taken per row.
typedef struct {
    uint32_t src_width, src_height, dst_width, dst_height;
    int channels, bytes, alpha_weighted;
    /// Source column and row -> output column and row.
    uint32_t *column_box, *row_box;
    /// One accumulator of dst_width * dst_height * channels sums per worker thread.
    uint64_t **sums;
    size_t threads;
    int failed;
} cjxl_reducer;

/// Prepares `r` for a frame; 0 when the sizes are not a reduction or memory runs out.
int cjxl_reducer_init(cjxl_reducer *r, uint32_t src_width, uint32_t src_height, uint32_t dst_width, uint32_t dst_height,
                      int channels, int bytes, int alpha_weighted);

/// Installs `r` as the decoder's image-out callback for the current frame (`format` is the
/// pixel format the rows arrive in: `channels` samples of `bytes` bytes, native endian).
JxlDecoderStatus cjxl_reducer_attach(JxlDecoder *dec, const JxlPixelFormat *format, cjxl_reducer *r);

/// Writes the averages of the frame into `out` (dst_width * channels * bytes per row), then
/// frees the accumulators. 0 when a callback failed.
int cjxl_reducer_finish(cjxl_reducer *r, uint8_t *out);

/// Frees what `cjxl_reducer_init` allocated (safe after `cjxl_reducer_finish`).
void cjxl_reducer_free(cjxl_reducer *r);

#endif
