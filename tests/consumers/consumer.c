/* consumer.c - a program built against an installed libclscan, only from what the install
 * holds (tests/consumers/run.sh builds it with CMake and with pkg-config, shared and
 * static): an exclusive int32 sum by clscan_exclusive_scan, and a kernel of its own that
 * scans tiles with the installed <clscan_workgroup.cl>, both checked
 * against loops on the host on random inputs.
 *
 * usage: consumer [n [seed]]   (first device of the first platform that has one)
 * Exit status: 0 when both match, 1 on a mismatch or any error, 77 (skipped) when there
 * is no OpenCL platform at all. */
/* SPDX-License-Identifier: MIT */
#include <clscan.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SKIP 77

static const char *kernel_source =
    "#include <clscan_workgroup.cl>\n"
    "__kernel CLSCAN_KERNEL_ATTRIBUTES\n"
    "void tile_scan(__global const CLSCAN_T *in, ulong n, __global CLSCAN_T *out)\n"
    "{\n"
    "    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];\n"
    "    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];\n"
    "    const ulong base = (ulong)get_group_id(0) * CLSCAN_TILE;\n"
    "    const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);\n"
    "    clscan_wg_load(in, base, count, tile);\n"
    "    clscan_wg_scan(tile, scratch, 1);\n"
    "    clscan_wg_store(out, base, count, tile, 0);\n"
    "}\n";

static uint64_t rng_state;
static uint32_t next_random(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static int cl_failed(cl_int err, const char *what)
{
    if (err == CL_SUCCESS) return 0;
    fprintf(stderr, "consumer: %s failed: %s (%d)\n", what, clscan_status_string(err), err);
    return 1;
}

static int scan_failed(clscan_status s, clscan_context *sctx, const char *what)
{
    if (s == CLSCAN_SUCCESS) return 0;
    fprintf(stderr, "consumer: %s: %s: %s\n", what, clscan_status_string(s),
            clscan_context_last_error(sctx));
    return 1;
}

/* Device scan of n random int32 (exclusive, add, in place) against a wrapping host sum. */
static int check_library_scan(clscan_context *sctx, cl_context ctx, cl_command_queue queue,
                              size_t n)
{
    cl_int *host = malloc(n * sizeof *host), *out = malloc(n * sizeof *out);
    if (!host || !out) return 1;
    for (size_t i = 0; i < n; ++i) host[i] = (cl_int)next_random();
    cl_int err;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                n * sizeof *host, host, &err);
    if (cl_failed(err, "clCreateBuffer")) return 1;
    cl_event done;
    if (scan_failed(clscan_exclusive_scan(sctx, queue, buf, 0, buf, 0, n, CLSCAN_INT32,
                                          CLSCAN_OP_ADD, 0, NULL, &done),
                    sctx, "clscan_exclusive_scan"))
        return 1;
    err = clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, n * sizeof *out, out, 1, &done, NULL);
    if (cl_failed(err, "clEnqueueReadBuffer")) return 1;
    size_t bad = 0;
    uint32_t sum = 0;
    for (size_t i = 0; i < n; ++i) {
        if ((uint32_t)out[i] != sum && bad++ < 5)
            fprintf(stderr, "consumer: scan: element %zu is %d, not %d\n", i, out[i],
                    (cl_int)sum);
        sum += (uint32_t)host[i];
    }
    clReleaseEvent(done);
    clReleaseMemObject(buf);
    free(host);
    free(out);
    printf("consumer: clscan_exclusive_scan of %zu int32: %s\n", n, bad ? "MISMATCH" : "ok");
    return bad != 0;
}

/* Builds tile_scan with the library's options for uint ADD (again with a cap if the
 * compiled kernel allows fewer work-items than asked). */
static int build_kernel(clscan_context *sctx, cl_context ctx, cl_device_id dev,
                        cl_program *prog, cl_kernel *kernel, size_t *wg, size_t *tile)
{
    size_t cap = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
        char options[2048];
        if (scan_failed(clscan_kernel_build_options(sctx, CLSCAN_UINT32, CLSCAN_OP_ADD, cap,
                                                    options, sizeof options, NULL, wg, tile),
                        sctx, "clscan_kernel_build_options"))
            return 1;
        cl_int err;
        *prog = clCreateProgramWithSource(ctx, 1, &kernel_source, NULL, &err);
        if (cl_failed(err, "clCreateProgramWithSource")) return 1;
        err = clBuildProgram(*prog, 1, &dev, options, NULL, NULL);
        if (err != CL_SUCCESS) {
            static char log[65536];
            clGetProgramBuildInfo(*prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            log[sizeof log - 1] = '\0';
            fprintf(stderr, "consumer: building with %s failed (%d):\n%s\n", options, err, log);
            return 1;
        }
        *kernel = clCreateKernel(*prog, "tile_scan", &err);
        if (cl_failed(err, "clCreateKernel")) return 1;
        err = clGetKernelWorkGroupInfo(*kernel, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof cap,
                                       &cap, NULL);
        if (cl_failed(err, "clGetKernelWorkGroupInfo")) return 1;
        if (cap >= *wg) return 0;
        clReleaseKernel(*kernel);
        clReleaseProgram(*prog);
    }
    fprintf(stderr, "consumer: no work-group size fits tile_scan\n");
    return 1;
}

/* The installed OpenCL C layers: inclusive sums of random uints within each tile, over
 * two and a half tiles. */
static int check_kernel_layers(clscan_context *sctx, cl_context ctx, cl_device_id dev,
                               cl_command_queue queue)
{
    cl_program prog;
    cl_kernel kernel;
    size_t wg, tile;
    if (build_kernel(sctx, ctx, dev, &prog, &kernel, &wg, &tile)) return 1;
    const size_t n = 2 * tile + tile / 2 + 1, groups = (n + tile - 1) / tile;
    const size_t global = groups * wg;
    const cl_ulong n64 = n;
    cl_uint *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    if (!in || !out) return 1;
    for (size_t i = 0; i < n; ++i) in[i] = next_random();
    cl_int err;
    cl_mem d_in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in,
                                 in, &err);
    if (cl_failed(err, "clCreateBuffer")) return 1;
    cl_mem d_out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * sizeof *out, NULL, &err);
    if (cl_failed(err, "clCreateBuffer")) return 1;
    if (cl_failed(clSetKernelArg(kernel, 0, sizeof d_in, &d_in), "clSetKernelArg") ||
        cl_failed(clSetKernelArg(kernel, 1, sizeof n64, &n64), "clSetKernelArg") ||
        cl_failed(clSetKernelArg(kernel, 2, sizeof d_out, &d_out), "clSetKernelArg") ||
        cl_failed(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &wg, 0, NULL, NULL),
                  "clEnqueueNDRangeKernel") ||
        cl_failed(clEnqueueReadBuffer(queue, d_out, CL_TRUE, 0, n * sizeof *out, out, 0, NULL,
                                      NULL),
                  "clEnqueueReadBuffer"))
        return 1;
    size_t bad = 0;
    cl_uint sum = 0;
    for (size_t i = 0; i < n; ++i) {
        sum = (i % tile == 0 ? 0 : sum) + in[i];
        if (out[i] != sum && bad++ < 5)
            fprintf(stderr, "consumer: tile_scan: element %zu is %u, not %u\n", i, out[i], sum);
    }
    clReleaseMemObject(d_in);
    clReleaseMemObject(d_out);
    clReleaseKernel(kernel);
    clReleaseProgram(prog);
    free(in);
    free(out);
    printf("consumer: <clscan_workgroup.cl> scans of %zu elements in tiles of %zu (%zu "
           "work-items): %s\n", n, tile, wg, bad ? "MISMATCH" : "ok");
    return bad != 0;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100003;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
    if (n == 0) {
        fprintf(stderr, "consumer: n must be at least 1\n");
        return 1;
    }
    rng_state = seed;
    printf("consumer: n = %zu, seed = %llu\n", n, (unsigned long long)seed);

    cl_uint platforms = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &platforms);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && platforms == 0)) {
        printf("consumer: no OpenCL platform: skipped\n");
        return SKIP;
    }
    if (cl_failed(err, "clGetPlatformIDs")) return 1;
    cl_platform_id ids[16];
    if (platforms > 16) platforms = 16;
    if (cl_failed(clGetPlatformIDs(platforms, ids, NULL), "clGetPlatformIDs")) return 1;
    cl_device_id dev = NULL;
    for (cl_uint p = 0; p < platforms && !dev; ++p)
        if (clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    if (!dev) {
        fprintf(stderr, "consumer: %u OpenCL platforms, none with a device\n", platforms);
        return 1;
    }
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    name[sizeof name - 1] = '\0';
    printf("consumer: device %s\n", name);

    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (cl_failed(err, "clCreateContext")) return 1;
    cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, &err);
    if (cl_failed(err, "clCreateCommandQueue")) return 1;
    clscan_context *sctx;
    if (scan_failed(clscan_context_create(ctx, dev, &sctx), NULL, "clscan_context_create"))
        return 1;
    int failed = check_library_scan(sctx, ctx, queue, n);
    failed |= check_kernel_layers(sctx, ctx, dev, queue);
    clscan_context_release(sctx);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return failed;
}
