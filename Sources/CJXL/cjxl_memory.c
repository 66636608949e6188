#include "cjxl.h"

#include <stdlib.h>

// Each block starts with a 16-byte header holding its size, so free knows what to give back;
// the payload stays 16-byte aligned, as malloc's.
enum { CJXL_HEADER = 16 };

static void *cjxl_alloc(void *opaque, size_t size) {
    cjxl_budget *budget = opaque;
    if (size > SIZE_MAX - CJXL_HEADER) return NULL;
    size_t held = __atomic_add_fetch(&budget->in_use, size, __ATOMIC_RELAXED);
    if (held > budget->limit) {
        __atomic_sub_fetch(&budget->in_use, size, __ATOMIC_RELAXED);
        __atomic_add_fetch(&budget->refused, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    size_t peak = __atomic_load_n(&budget->peak, __ATOMIC_RELAXED);
    while (held > peak && !__atomic_compare_exchange_n(&budget->peak, &peak, held, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    unsigned char *block = malloc(size + CJXL_HEADER);
    if (!block) {
        __atomic_sub_fetch(&budget->in_use, size, __ATOMIC_RELAXED);
        return NULL;
    }
    *(size_t *)block = size;
    return block + CJXL_HEADER;
}

static void cjxl_free(void *opaque, void *address) {
    if (!address) return;
    cjxl_budget *budget = opaque;
    unsigned char *block = (unsigned char *)address - CJXL_HEADER;
    __atomic_sub_fetch(&budget->in_use, *(size_t *)block, __ATOMIC_RELAXED);
    free(block);
}

JxlMemoryManager cjxl_memory_manager(cjxl_budget *budget) {
    JxlMemoryManager manager = {budget, cjxl_alloc, cjxl_free};
    return manager;
}
