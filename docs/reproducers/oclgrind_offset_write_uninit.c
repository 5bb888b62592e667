/* oclgrind_offset_write_uninit.c - Oclgrind 21.10 (--uninitialized) reports values that
 * clEnqueueWriteBuffer wrote at a nonzero offset as uninitialised when a kernel reads them:
 * 3 ints written at byte 4 of a 16-byte buffer, read back by 3 work-items through local
 * memory, give reports for two of the three (elements 1 and 3), though every value read
 * is right; the same write at offset 0, read at index i, gives none.
 * cc oclgrind_offset_write_uninit.c -lOpenCL -o offw
 * oclgrind --uninitialized ./offw     (4 reports; prints 10 20 30) */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
static const char *src =
    "__kernel void k(__global const int *s, __global int *d) {\n"
    "  __local int t[4];\n"
    "  const uint i = get_local_id(0);\n"
    "  t[i] = s[i + 1];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  d[i] = t[i];\n"
    "}\n";
int main(void)
{
    cl_platform_id pl; cl_device_id dev; cl_int e;
    clGetPlatformIDs(1, &pl, NULL); clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(c, dev, 0, &e);
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    clBuildProgram(p, 1, &dev, "", NULL, NULL);
    cl_kernel k = clCreateKernel(p, "k", &e);
    cl_mem s = clCreateBuffer(c, CL_MEM_READ_WRITE, 4 * sizeof(int), NULL, &e);
    cl_mem d = clCreateBuffer(c, CL_MEM_READ_WRITE, 3 * sizeof(int), NULL, &e);
    const int v[3] = {10, 20, 30};
    /* elements 1..3 of s: bytes [4, 16) */
    clEnqueueWriteBuffer(q, s, CL_TRUE, sizeof(int), sizeof v, v, 0, NULL, NULL);
    clSetKernelArg(k, 0, sizeof s, &s);
    clSetKernelArg(k, 1, sizeof d, &d);
    const size_t g = 3;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &g, 0, NULL, NULL);
    int out[3];
    clEnqueueReadBuffer(q, d, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    printf("%d %d %d (expected 10 20 30)\n", out[0], out[1], out[2]);
    return 0;
}
