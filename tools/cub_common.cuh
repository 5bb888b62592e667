// cub_common.cuh - what the CUDA timers of tools/ share (tools/cub_more.cu,
// tools/prof/small-vs-cub.cu): a check of CUDA calls that exits on error, the hash that
// makes their inputs (cub_anchor's), and a monotonic clock in seconds.
// SPDX-License-Identifier: MIT
#ifndef CLSCAN_CUB_COMMON_CUH
#define CLSCAN_CUB_COMMON_CUH
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                            \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__);  \
            std::exit(2);                                                                \
        }                                                                                \
    } while (0)

static inline uint32_t mix(uint64_t i)
{
    uint32_t h = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 32);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    return h ^ (h >> 15);
}
static inline double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
#endif
