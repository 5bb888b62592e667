/* sort-profile.c - per-kernel device times of clscan_sort_keys / clscan_sort_pairs
 * (uint32 random keys), median of R calls: a profiling aid for the radix sort.
 * Usage: sort-profile log2n [pairs|keys] [mask] [zero%]: the keys ANDed with mask (hex,
 * default ffffffff), as keys of few distinct digits, and that share of them (percent,
 * default 0) set to zero, as keys mostly of one value. */
/* SPDX-License-Identifier: MIT */
#include <clscan.h>
#include <clscan_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    const int lg = argc > 1 ? atoi(argv[1]) : 24, pairs = argc > 2 && !strcmp(argv[2], "pairs");
    const unsigned mask = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 16) : 0xffffffffu;
    const unsigned zero = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
    const size_t n = (size_t)1 << lg;
    cl_platform_id pl; cl_device_id dev;
    clGetPlatformIDs(1, &pl, NULL);
    clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
    cl_command_queue q = clCreateCommandQueue(c, dev, CL_QUEUE_PROFILING_ENABLE, NULL);
    clscan_context *x;
    if (clscan_context_create(c, dev, &x) != CLSCAN_SUCCESS) { puts("create failed"); return 1; }
    unsigned *h = malloc(n * 4);
    unsigned long long s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; h[i] = (unsigned)(s >> 32) % 100 < zero ? 0 : (unsigned)s & mask; }
    cl_mem a = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, h, NULL);
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, n * 4, NULL, NULL);
    cl_mem va = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, h, NULL);
    cl_mem vb = clCreateBuffer(c, CL_MEM_READ_WRITE, n * 4, NULL, NULL);
    enum { R = 9, CAP = 64 };
    double t[CAP][R]; size_t nk = 0;
    for (int r = -2; r < R; r++) {
        cl_event ev[CAP]; size_t cnt = 0;
        clscan_ext_trace_events(ev, CAP, &cnt);
        clscan_status st = pairs ? clscan_sort_pairs(x, q, a, 0, va, 0, b, 0, vb, 0, n, CLSCAN_UINT32, CLSCAN_UINT32, 0, NULL, NULL)
                                 : clscan_sort_keys(x, q, a, 0, b, 0, n, CLSCAN_UINT32, 0, NULL, NULL);
        clscan_ext_trace_events(NULL, 0, NULL);
        clFinish(q);
        if (st != CLSCAN_SUCCESS) { printf("sort failed %d\n", st); return 1; }
        nk = cnt;
        for (size_t k = 0; k < cnt; k++) {
            cl_ulong t0, t1;
            clGetEventProfilingInfo(ev[k], CL_PROFILING_COMMAND_START, 8, &t0, NULL);
            clGetEventProfilingInfo(ev[k], CL_PROFILING_COMMAND_END, 8, &t1, NULL);
            if (r >= 0) t[k][r] = (t1 - t0) / 1e3;
            clReleaseEvent(ev[k]);
        }
    }
    double total = 0;
    printf("n=2^%d %s mask %08x zero %u%%:", lg, pairs ? "pairs" : "keys", mask, zero);
    for (size_t k = 0; k < nk; k++) { qsort(t[k], R, sizeof(double), cmp); printf(" %.1f", t[k][R / 2]); total += t[k][R / 2]; }
    printf("  | sum %.1f us\n", total);
    return 0;
}
