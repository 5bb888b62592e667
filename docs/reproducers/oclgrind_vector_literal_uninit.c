/* oclgrind_vector_literal_uninit.c - Oclgrind 21.10's --uninitialized check reports
 * "Uninitialized value written to global memory" for a vector built from a scalar and
 * lanes of a loaded vector, (int8)(0, x.s0, ..., x.s6), though every lane is written
 * from initialised memory; the values are right. The same shift written as the vector
 * turned by a lane (x.s70123456) with lane 0 then chosen from (int8)(0) by a constant
 * mask ("select" argument) is not reported. cl/clscan_general_tile.cl writes its lane
 * shifts the second way (docs/IMPLEMENTATION-ISSUES.md).
 *   cc oclgrind_vector_literal_uninit.c -lOpenCL -o vlit
 *   oclgrind --uninitialized ./vlit          (8 reports, prints 0 0 2 4 1 3 0 2)
 *   oclgrind --uninitialized ./vlit select   (no report, the same values) */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

static const char *src_literal =
    "__kernel void shift(__global const int *p, __global int *o)\n"
    "{\n"
    "    for (uint i = 0; i < 64; i += 8) {\n"
    "        const int8 x = vload8(0, p + i);\n"
    "        vstore8((int8)(0, x.s0, x.s1, x.s2, x.s3, x.s4, x.s5, x.s6), 0, o + i);\n"
    "    }\n"
    "}\n";
static const char *src_select =
    "__kernel void shift(__global const int *p, __global int *o)\n"
    "{\n"
    "    for (uint i = 0; i < 64; i += 8) {\n"
    "        const int8 x = vload8(0, p + i);\n"
    "        vstore8((int8)(-1, 0, 0, 0, 0, 0, 0, 0) ? (int8)(0) : x.s70123456, 0, o + i);\n"
    "    }\n"
    "}\n";

int main(int argc, char **argv)
{
    const char *src = argc > 1 && strcmp(argv[1], "select") == 0 ? src_select : src_literal;
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
    cl_kernel k = clCreateKernel(prog, "shift", &err);
    int in[64], out[64] = {0};
    for (int i = 0; i < 64; i++) in[i] = (i * 7) % 5;
    cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    clSetKernelArg(k, 0, sizeof bin, &bin);
    clSetKernelArg(k, 1, sizeof bout, &bout);
    const size_t one = 1;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
    clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    int bad = 0;
    for (int i = 0; i < 64; i++) bad |= out[i] != (i % 8 == 0 ? 0 : in[i - 1]);
    for (int i = 0; i < 8; i++) printf("%d ", out[i]);
    puts(bad ? "(wrong)" : "(right)");
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return bad;
}
