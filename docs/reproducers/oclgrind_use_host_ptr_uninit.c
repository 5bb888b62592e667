/* oclgrind_use_host_ptr_uninit.c - minimal reproducer: Oclgrind 21.10 (Debian 12) takes
 * the contents of a buffer made with CL_MEM_USE_HOST_PTR as uninitialised: a kernel that
 * stages in[i] through local memory is reported ("Uninitialized value written to local
 * memory", 128 reports for 64 elements) though it reads the host's values and prints the
 * right result; the same buffer made with CL_MEM_COPY_HOST_PTR is not reported.
 *   cc oclgrind_use_host_ptr_uninit.c -lOpenCL -o use_host_ptr_uninit
 *   oclgrind --uninitialized ./use_host_ptr_uninit 0   # USE_HOST_PTR: reported
 *   oclgrind --uninitialized ./use_host_ptr_uninit 1   # COPY_HOST_PTR: clean */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
static const char *src =
    "__kernel void k(__global const uint *in, __global uint *out) {\n"
    "  __local uint t[64]; uint i = get_local_id(0);\n"
    "  t[i] = in[i]; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[63 - i]; }\n";
int main(int argc, char **argv)
{
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    cl_platform_id pl; cl_device_id dev; cl_int e;
    clGetPlatformIDs(1, &pl, NULL);
    clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(c, dev, 0, &e);
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    clBuildProgram(p, 1, &dev, "", NULL, NULL);
    cl_kernel k = clCreateKernel(p, "k", &e);
    static cl_uint host[64], res[64];
    for (int i = 0; i < 64; ++i) host[i] = i;
    cl_mem in = clCreateBuffer(c, CL_MEM_READ_ONLY | (mode ? CL_MEM_COPY_HOST_PTR : CL_MEM_USE_HOST_PTR),
                               sizeof host, host, &e);
    cl_mem out = clCreateBuffer(c, CL_MEM_WRITE_ONLY, sizeof res, NULL, &e);
    clSetKernelArg(k, 0, sizeof in, &in);
    clSetKernelArg(k, 1, sizeof out, &out);
    size_t g = 64;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &g, 0, NULL, NULL);
    clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof res, res, 0, NULL, NULL);
    printf("mode %s: out[0] = %u (expect 63)\n", mode ? "COPY_HOST_PTR" : "USE_HOST_PTR", res[0]);
    return res[0] != 63;
}
