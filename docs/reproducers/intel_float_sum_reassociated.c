/* intel_float_sum_reassociated.c - Intel's OpenCL CPU runtime 2026.2.0 vectorises a
 * one-work-item loop that sums floats left to right, reassociating the additions,
 * though no -cl-fast-relaxed-math or -cl-unsafe-math-optimizations was given: 8192
 * floats of varied magnitude sum to -274359872 there, to -274359488 left to right on the
 * host, PoCL, and Intel's runtime itself with -cl-opt-disable or with
 * `#pragma clang loop vectorize(disable)` before the loop (argument 2: "pragma").
 *   cc intel_float_sum_reassociated.c -lOpenCL -lm -o fsum
 *   ./fsum "-cl-std=CL3.0"            (DIFFERENT on Intel's runtime, exit 1)
 *   ./fsum "-cl-std=CL3.0" pragma     (equal)
 * (docs/IMPLEMENTATION-ISSUES.md) */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *src_plain =
    "__kernel void fsum(__global const float *in, uint n, __global float *out)\n"
    "{\n"
    "    float total = in[0];\n"
    "    for (uint k = 1; k < n; ++k) total = total + in[k];\n"
    "    out[0] = total;\n"
    "}\n";
static const char *src_pragma =
    "__kernel void fsum(__global const float *in, uint n, __global float *out)\n"
    "{\n"
    "    float total = in[0];\n"
    "    #pragma clang loop vectorize(disable)\n"
    "    for (uint k = 1; k < n; ++k) total = total + in[k];\n"
    "    out[0] = total;\n"
    "}\n";

int main(int argc, char **argv)
{
    const char *opts = argc > 1 ? argv[1] : "";
    const char *src = argc > 2 && strcmp(argv[2], "pragma") == 0 ? src_pragma : src_plain;
    const cl_uint n = 8192;
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
        return 2;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (clBuildProgram(prog, 1, &device, opts, NULL, NULL) != CL_SUCCESS) {
        puts("build failed");
        return 2;
    }
    cl_kernel k = clCreateKernel(prog, "fsum", &err);
    float *in = malloc(n * sizeof *in), out = 0.0f, host;
    if (!in) return 2;
    unsigned long long r = 12345;
    for (cl_uint i = 0; i < n; i++) { /* sign, mantissa in [1, 2), exponent in [-24, 24) */
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        in[i] = (float)(((r >> 63) ? -1.0 : 1.0) *
                        (1.0 + (double)((r >> 20) & 0xfffff) / 1048576.0) *
                        ldexp(1.0, (int)((r >> 40) % 48) - 24));
    }
    host = in[0];
    for (cl_uint i = 1; i < n; i++) host = host + in[i];
    cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in, in,
                                &err);
    cl_mem bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    clSetKernelArg(k, 0, sizeof bin, &bin);
    clSetKernelArg(k, 1, sizeof n, &n);
    clSetKernelArg(k, 2, sizeof bout, &bout);
    const size_t one = 1;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
    clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, &out, 0, NULL, NULL);
    const int differs = memcmp(&out, &host, sizeof out) != 0;
    printf("options \"%s\"%s: device %.9g, host left to right %.9g: %s\n", opts,
           src == src_pragma ? ", vectorize(disable)" : "", out, host,
           differs ? "DIFFERENT" : "equal");
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(in);
    return differs;
}
