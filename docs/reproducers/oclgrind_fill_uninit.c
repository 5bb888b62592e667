/* oclgrind_fill_uninit.c - minimal reproducer: Oclgrind 21.10 (Debian 12) does not count
 * memory written by clEnqueueFillBuffer as initialised: a kernel reading a zero-filled
 * buffer is reported ("Uninitialized value written to global memory"); the same buffer
 * filled with clEnqueueWriteBuffer is not.
 *   cc oclgrind_fill_uninit.c -lOpenCL -o fill_uninit
 *   oclgrind --uninitialized ./fill_uninit 0    # fill: reported
 *   oclgrind --uninitialized ./fill_uninit 1    # write: clean */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
static const char *src =
    "__kernel void k(__global const uint *c, __global uint *o)\n"
    "{ o[get_global_id(0)] = c[get_global_id(0)] + 1u; }\n";
int main(int argc, char **argv)
{
    int write = argc > 1 && atoi(argv[1]);
    cl_platform_id p; cl_device_id d; cl_int e;
    clGetPlatformIDs(1, &p, NULL);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
    cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    clBuildProgram(pr, 1, &d, "", NULL, NULL);
    cl_kernel k = clCreateKernel(pr, "k", &e);
    cl_mem a = clCreateBuffer(c, 0, 4096, NULL, &e), o = clCreateBuffer(c, 0, 64, NULL, &e);
    static cl_uint zeros[1024];
    const cl_uint zero = 0;
    if (write) clEnqueueWriteBuffer(q, a, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL);
    else clEnqueueFillBuffer(q, a, &zero, sizeof zero, 0, 4096, 0, NULL, NULL);
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof o, &o);
    size_t g = 4;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
    cl_uint r[4];
    clEnqueueReadBuffer(q, o, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL);
    printf("%s: %u %u %u %u (expected 1 1 1 1)\n", write ? "write" : "fill", r[0], r[1], r[2],
           r[3]);
    return 0;
}
