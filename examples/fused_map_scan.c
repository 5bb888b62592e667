/* fused_map_scan.c - example: your own kernels call libclscan's work-group scan. Computes
 * the inclusive prefix sums of x*x (uint, wrapping) over n inputs in three steps: a
 * kernel that squares and reduces each tile, clscan_exclusive_scan over the tile totals,
 * and a kernel that squares, scans each tile and adds its tile's offset. The squares
 * are never stored. Checks the result against a loop on the host.
 *
 * usage: fused_map_scan [n [seed]]     (first OpenCL device of the first platform) */
/* SPDX-License-Identifier: MIT */
#include <clscan.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The kernels: everything CLSCAN_* comes from the library's header, specialised by the
 * options clscan_kernel_build_options returns. */
static const char *kernel_source =
    "#include <clscan_workgroup.cl>\n"
    "\n"
    "/* The map fused into both passes. */\n"
    "CLSCAN_T square(CLSCAN_T x) { return x * x; }\n"
    "\n"
    "/* Loads this group's tile of in, squared; the missing tail is the identity. */\n"
    "void load_squares(__global const CLSCAN_T *in, ulong n, __local CLSCAN_T *tile,\n"
    "                  ulong *base, uint *count)\n"
    "{\n"
    "    *base = (ulong)get_group_id(0) * CLSCAN_TILE;\n"
    "    *count = (uint)min((ulong)CLSCAN_TILE, n - *base);\n"
    "    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {\n"
    "        const uint k = j * CLSCAN_WG_SIZE + get_local_id(0);\n"
    "        tile[CLSCAN_PAD(k)] = k < *count ? square(in[*base + k]) : CLSCAN_IDENTITY;\n"
    "    }\n"
    "}\n"
    "\n"
    "__kernel CLSCAN_KERNEL_ATTRIBUTES\n"
    "void tile_totals(__global const CLSCAN_T *in, ulong n, __global CLSCAN_T *totals)\n"
    "{\n"
    "    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];\n"
    "    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];\n"
    "    ulong base;\n"
    "    uint count;\n"
    "    load_squares(in, n, tile, &base, &count);\n"
    "    const CLSCAN_T total = clscan_wg_reduce(tile, scratch);\n"
    "    if (get_local_id(0) == 0) totals[get_group_id(0)] = total;\n"
    "}\n"
    "\n"
    "__kernel CLSCAN_KERNEL_ATTRIBUTES\n"
    "void scan_tiles(__global const CLSCAN_T *in, ulong n, __global const CLSCAN_T *offsets,\n"
    "                __global CLSCAN_T *out)\n"
    "{\n"
    "    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];\n"
    "    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];\n"
    "    ulong base;\n"
    "    uint count;\n"
    "    load_squares(in, n, tile, &base, &count);\n"
    "    clscan_wg_scan(tile, scratch, 1);\n"
    "    clscan_wg_store(out, base, count, tile, offsets[get_group_id(0)]);\n"
    "}\n";

#define CHECK_CL(call)                                                                  \
    do {                                                                                \
        cl_int e_ = (call);                                                             \
        if (e_ != CL_SUCCESS) {                                                         \
            fprintf(stderr, "fused_map_scan: %s failed: %s (%d)\n", #call,              \
                    clscan_status_string(e_), e_);                                      \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

static uint64_t rng_state;
static uint32_t next_random(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* Builds the two kernels with the library's options for uint ADD; *wg receives the
 * work-group size to launch with. Rebuilds once with a cap if the compiled kernels
 * allow fewer work-items than the library's shape. */
static int build(clscan_context *sctx, cl_context ctx, cl_device_id dev, cl_program *prog,
                 cl_kernel *k_totals, cl_kernel *k_scan, size_t *wg, size_t *tile)
{
    size_t cap = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
        char options[2048];
        clscan_status s = clscan_kernel_build_options(sctx, CLSCAN_UINT32, CLSCAN_OP_ADD, cap,
                                                      options, sizeof options, NULL, wg, tile);
        if (s != CLSCAN_SUCCESS) {
            fprintf(stderr, "fused_map_scan: clscan_kernel_build_options: %s: %s\n",
                    clscan_status_string(s), clscan_context_last_error(sctx));
            return 1;
        }
        printf("build options: %s\n", options);
        cl_int err;
        *prog = clCreateProgramWithSource(ctx, 1, &kernel_source, NULL, &err);
        CHECK_CL(err);
        err = clBuildProgram(*prog, 1, &dev, options, NULL, NULL);
        if (err != CL_SUCCESS) {
            static char log[65536];
            clGetProgramBuildInfo(*prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            log[sizeof log - 1] = '\0';
            fprintf(stderr, "fused_map_scan: build failed (%d):\n%s\n", err, log);
            return 1;
        }
        *k_totals = clCreateKernel(*prog, "tile_totals", &err);
        CHECK_CL(err);
        *k_scan = clCreateKernel(*prog, "scan_tiles", &err);
        CHECK_CL(err);
        size_t a = 0, b = 0;
        CHECK_CL(clGetKernelWorkGroupInfo(*k_totals, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof a,
                                          &a, NULL));
        CHECK_CL(clGetKernelWorkGroupInfo(*k_scan, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof b,
                                          &b, NULL));
        cap = a < b ? a : b;
        if (cap >= *wg) return 0;
        printf("kernels allow %zu work-items, not %zu: building again\n", cap, *wg);
        clReleaseKernel(*k_totals);
        clReleaseKernel(*k_scan);
        clReleaseProgram(*prog);
    }
    fprintf(stderr, "fused_map_scan: no work-group size fits the kernels\n");
    return 1;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000003;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
    printf("fused_map_scan: n = %zu, seed = %llu\n", n, (unsigned long long)seed);
    if (n == 0) {
        fprintf(stderr, "fused_map_scan: n must be at least 1\n");
        return 2;
    }

    cl_platform_id platform;
    cl_device_id dev;
    CHECK_CL(clGetPlatformIDs(1, &platform, NULL));
    CHECK_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK_CL(err);
    cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK_CL(err);
    clscan_context *sctx;
    clscan_status s = clscan_context_create(ctx, dev, &sctx);
    if (s != CLSCAN_SUCCESS) {
        fprintf(stderr, "fused_map_scan: clscan_context_create: %s: %s\n",
                clscan_status_string(s), clscan_context_last_error(NULL));
        return 1;
    }

    cl_program prog;
    cl_kernel k_totals, k_scan;
    size_t wg, tile;
    if (build(sctx, ctx, dev, &prog, &k_totals, &k_scan, &wg, &tile)) return 1;
    const size_t tiles = (n + tile - 1) / tile;
    printf("work-group %zu, tile %zu: %zu tiles\n", wg, tile, tiles);

    cl_uint *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    if (!in || !out) return 1;
    rng_state = seed;
    for (size_t i = 0; i < n; ++i) in[i] = next_random();
    cl_mem d_in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in,
                                 in, &err);
    CHECK_CL(err);
    cl_mem d_out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * sizeof *out, NULL, &err);
    CHECK_CL(err);
    cl_mem d_totals = clCreateBuffer(ctx, CL_MEM_READ_WRITE, tiles * sizeof(cl_uint), NULL,
                                     &err);
    CHECK_CL(err);

    /* 1. squares reduced per tile; 2. the library scans the totals into tile offsets,
     * in place; 3. squares scanned per tile, plus the tile's offset. */
    const cl_ulong n64 = n;
    const size_t global = tiles * wg;
    CHECK_CL(clSetKernelArg(k_totals, 0, sizeof d_in, &d_in));
    CHECK_CL(clSetKernelArg(k_totals, 1, sizeof n64, &n64));
    CHECK_CL(clSetKernelArg(k_totals, 2, sizeof d_totals, &d_totals));
    CHECK_CL(clEnqueueNDRangeKernel(queue, k_totals, 1, NULL, &global, &wg, 0, NULL, NULL));
    s = clscan_exclusive_scan(sctx, queue, d_totals, 0, d_totals, 0, tiles, CLSCAN_UINT32,
                              CLSCAN_OP_ADD, 0, NULL, NULL);
    if (s != CLSCAN_SUCCESS) {
        fprintf(stderr, "fused_map_scan: clscan_exclusive_scan: %s: %s\n",
                clscan_status_string(s), clscan_context_last_error(sctx));
        return 1;
    }
    CHECK_CL(clSetKernelArg(k_scan, 0, sizeof d_in, &d_in));
    CHECK_CL(clSetKernelArg(k_scan, 1, sizeof n64, &n64));
    CHECK_CL(clSetKernelArg(k_scan, 2, sizeof d_totals, &d_totals));
    CHECK_CL(clSetKernelArg(k_scan, 3, sizeof d_out, &d_out));
    CHECK_CL(clEnqueueNDRangeKernel(queue, k_scan, 1, NULL, &global, &wg, 0, NULL, NULL));
    CHECK_CL(clEnqueueReadBuffer(queue, d_out, CL_TRUE, 0, n * sizeof *out, out, 0, NULL,
                                 NULL));

    size_t bad = 0;
    cl_uint sum = 0;
    for (size_t i = 0; i < n; ++i) {
        sum += in[i] * in[i];
        if (out[i] != sum && bad++ < 5)
            fprintf(stderr, "  out[%zu] = %u, expected %u\n", i, out[i], sum);
    }
    printf("fused_map_scan: %s (%zu of %zu wrong)\n", bad ? "FAILED" : "OK", bad, n);

    clReleaseMemObject(d_in);
    clReleaseMemObject(d_out);
    clReleaseMemObject(d_totals);
    clReleaseKernel(k_totals);
    clReleaseKernel(k_scan);
    clReleaseProgram(prog);
    clscan_context_release(sctx);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    free(in);
    free(out);
    return bad ? 1 : 0;
}
