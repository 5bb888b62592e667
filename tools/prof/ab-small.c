/* ab-small.c - two builds of libclscan in one process, for small calls whose difference
 * is below the noise between machines and runs: each build is dlopen'ed from its own
 * path (with its own clscan_context on one cl_context and in-order queue), and batches of
 * 200 calls without events (then clFinish) alternate between them, 30 rounds after 2 of
 * warm-up; printed per call, the median and quartiles of each build's wall time a call.
 * Calls: reduce by key, scan by key (int32 add by int32 keys in runs of 1 to 64), the
 * plain int32 inclusive scan and a uint32 keys-only sort (of those keys), n elements.
 * Swap the paths to see the order's own effect.
 * Build: cc -O2 -Iinclude -o /tmp/ab-small tools/prof/ab-small.c -lOpenCL -ldl
 * Use:   /tmp/ab-small OLD/libclscan.so NEW/libclscan.so 65536 */
/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 300
#include <clscan.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prof-time.h"

enum { ROUNDS = 30, WARMUP = 2, CALLS = 200 };

typedef struct build {
    clscan_context *ctx;
    clscan_status (*create)(cl_context, cl_device_id, clscan_context **);
    clscan_status (*reduce_by_key)(clscan_context *, cl_command_queue, const clscan_scan_desc *,
                                   cl_mem, size_t, cl_mem, size_t, size_t, cl_mem, size_t,
                                   cl_mem, size_t, cl_mem, cl_uint, const cl_event *, cl_event *);
    clscan_status (*scan)(clscan_context *, cl_command_queue, const clscan_scan_desc *, int,
                          cl_mem, size_t, cl_mem, size_t, cl_mem, size_t, size_t, cl_uint,
                          const cl_event *, cl_event *);
    clscan_status (*inclusive_scan)(clscan_context *, cl_command_queue, cl_mem, size_t, cl_mem,
                                    size_t, size_t, clscan_type, clscan_op, cl_uint,
                                    const cl_event *, cl_event *);
    clscan_status (*sort_keys)(clscan_context *, cl_command_queue, cl_mem, size_t, cl_mem, size_t,
                               size_t, clscan_type, cl_uint, const cl_event *, cl_event *);
} build;

static int load(const char *path, build *b)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return printf("%s\n", dlerror()), 1;
    *(void **)&b->create = dlsym(h, "clscan_context_create");
    *(void **)&b->reduce_by_key = dlsym(h, "clscan_reduce_by_key");
    *(void **)&b->scan = dlsym(h, "clscan_scan");
    *(void **)&b->inclusive_scan = dlsym(h, "clscan_inclusive_scan");
    *(void **)&b->sort_keys = dlsym(h, "clscan_sort_keys");
    return !b->create || !b->reduce_by_key || !b->scan || !b->inclusive_scan || !b->sort_keys;
}

int main(int argc, char **argv)
{
    if (argc != 4) return printf("usage: ab-small A/libclscan.so B/libclscan.so n\n"), 2;
    const size_t n = (size_t)strtoull(argv[3], NULL, 10);
    cl_platform_id pl;
    cl_device_id dev;
    cl_int err;
    if (n == 0 || clGetPlatformIDs(1, &pl, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        return printf("no device (or n is 0)\n"), 1;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueueWithProperties(c, dev, NULL, &err);
    build b[2];
    for (int k = 0; k < 2; ++k)
        if (load(argv[1 + k], &b[k]) || b[k].create(c, dev, &b[k].ctx) != CLSCAN_SUCCESS)
            return printf("%s: not loaded\n", argv[1 + k]), 1;
    int *keys_h = malloc(n * sizeof *keys_h);
    if (!keys_h) return 1;
    srand(1);
    int key = 0;
    for (size_t i = 0, left = 0; i < n; ++i, --left) {
        if (!left) key++, left = 1 + (size_t)(rand() % 64);
        keys_h[i] = key;
    }
    const cl_mem_flags rw = CL_MEM_READ_WRITE;
    cl_mem keys = clCreateBuffer(c, rw | CL_MEM_COPY_HOST_PTR, n * 4, keys_h, &err);
    cl_mem vals = clCreateBuffer(c, rw | CL_MEM_COPY_HOST_PTR, n * 4, keys_h, &err);
    cl_mem out = clCreateBuffer(c, rw, n * 4, NULL, &err);
    cl_mem uniq = clCreateBuffer(c, rw, n * 4, NULL, &err);
    cl_mem count = clCreateBuffer(c, rw, 8, NULL, &err);
    clscan_scan_desc d = {0};
    d.type = CLSCAN_INT32;
    d.op = CLSCAN_OP_ADD;
    d.segments = CLSCAN_SEGMENTS_KEYS;
    d.key_type = CLSCAN_INT32;
    static const char *const names[4] = {"reduce by key", "scan by key", "plain scan",
                                         "sort keys"};
    for (int which = 0; which < 4; ++which) {
        double w[2][ROUNDS];
        for (int r = -WARMUP; r < ROUNDS; ++r)
            for (int k = 0; k < 2; ++k) {
                const double t0 = now_us();
                for (int i = 0; i < CALLS; ++i) {
                    clscan_status s =
                        which == 0 ? b[k].reduce_by_key(b[k].ctx, q, &d, keys, 0, vals, 0, n, uniq,
                                                        0, out, 0, count, 0, NULL, NULL)
                        : which == 1 ? b[k].scan(b[k].ctx, q, &d, 1, vals, 0, keys, 0, out, 0, n,
                                                 0, NULL, NULL)
                        : which == 2 ? b[k].inclusive_scan(b[k].ctx, q, vals, 0, out, 0, n,
                                                           CLSCAN_INT32, CLSCAN_OP_ADD, 0, NULL,
                                                           NULL)
                                     : b[k].sort_keys(b[k].ctx, q, keys, 0, out, 0, n, CLSCAN_UINT32,
                                                      0, NULL, NULL);
                    if (s != CLSCAN_SUCCESS) return printf("%s: status %d\n", names[which], s), 1;
                }
                clFinish(q);
                if (r >= 0) w[k][r] = (now_us() - t0) / CALLS;
            }
        for (int k = 0; k < 2; ++k) qsort(w[k], ROUNDS, sizeof(double), cmp);
        printf("n=%-9zu %-14s A %6.2f (quartiles %6.2f %6.2f)  B %6.2f (%6.2f %6.2f) us a call\n",
               n, names[which], w[0][ROUNDS / 2], w[0][ROUNDS / 4], w[0][3 * ROUNDS / 4],
               w[1][ROUNDS / 2], w[1][ROUNDS / 4], w[1][3 * ROUNDS / 4]);
    }
    return 0;
}
