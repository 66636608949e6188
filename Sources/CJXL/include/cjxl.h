#ifndef CJXL_H
#define CJXL_H

// CoderJXL's view of libjxl 0.7. libjxl reports errors by status (no longjmp), so Swift drives
// the decoder and encoder itself; the C here is what Swift cannot do well: a memory manager that
// bounds what libjxl allocates through it (0.7 routes its decoder state, boxes, ICC and JPEG
// reconstruction through the manager, not its image planes), charged from its worker threads.

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

#endif
