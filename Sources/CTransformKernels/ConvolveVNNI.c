#if defined(__x86_64__)
#include "Internal.h"
#include <immintrin.h>
#include <string.h>

// The same kernels with AVX-512 VNNI on 256-bit registers: `vpdpwssd` multiplies and adds in one
// instruction where AVX2 needs `vpmaddwd` and `vpaddd`. The column kernels, on 512-bit
// registers, are in ConvolveColumnsVNNI.c.

#define IK_TARGET __attribute__((target("avx2,avx512f,avx512vl,avx512vnni")))
#define IK_NAME(base) base##_vnni
#define IK_DOT(acc, x, c) _mm256_dpwssd_epi32(acc, x, c)
#define IK_WIDE_COLUMNS  // ConvolveColumnsVNNI.c
#include "ConvolveKernels.h"
#endif
