/* oclgrind_uninit_vector_sum.c - Oclgrind 21.10 crashes (segmentation fault) under
 * --uninitialized when a kernel accumulates in a vector variable: one work-item sums 64
 * floats as float4 (acc = acc + vload4(...)), then the lanes. Without --uninitialized,
 * or with --data-races alone, it runs and prints 2016; PoCL prints 2016. The same sum
 * kept in four scalar accumulators fed from the vector load ("scalar" argument) runs
 * under --uninitialized too, which is how cl/clscan_lookback.cl writes its lanes.
 *   cc oclgrind_uninit_vector_sum.c -lOpenCL -o vsum
 *   oclgrind --uninitialized ./vsum          (segmentation fault)
 *   oclgrind --uninitialized ./vsum scalar   (sum 2016) */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

static const char *src_vector =
    "__kernel void vsum(__global const float *p, uint count, __global float *out)\n"
    "{\n"
    "    float4 acc = (float4)(0.0f);\n"
    "    for (uint i = 0; i + 4 <= count; i += 4) acc = acc + vload4(0, p + i);\n"
    "    out[0] = ((acc.s0 + acc.s1) + acc.s2) + acc.s3;\n"
    "}\n";
static const char *src_scalar =
    "__kernel void vsum(__global const float *p, uint count, __global float *out)\n"
    "{\n"
    "    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;\n"
    "    for (uint i = 0; i + 4 <= count; i += 4) {\n"
    "        const float4 x = vload4(0, p + i);\n"
    "        a0 = a0 + x.s0; a1 = a1 + x.s1; a2 = a2 + x.s2; a3 = a3 + x.s3;\n"
    "    }\n"
    "    out[0] = ((a0 + a1) + a2) + a3;\n"
    "}\n";

int main(int argc, char **argv)
{
    const char *src = argc > 1 && strcmp(argv[1], "scalar") == 0 ? src_scalar : src_vector;
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
        return 2;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (clBuildProgram(prog, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        puts("build failed");
        return 2;
    }
    cl_kernel k = clCreateKernel(prog, "vsum", &err);
    float in[64], out = 0.0f;
    for (int i = 0; i < 64; i++) in[i] = (float)i;
    const cl_uint n = 64;
    cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    clSetKernelArg(k, 0, sizeof bin, &bin);
    clSetKernelArg(k, 1, sizeof n, &n);
    clSetKernelArg(k, 2, sizeof bout, &bout);
    const size_t one = 1;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
    clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, &out, 0, NULL, NULL);
    printf("sum %g (expected 2016)\n", out);
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return out != 2016.0f;
}
