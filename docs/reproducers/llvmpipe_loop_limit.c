/* llvmpipe_loop_limit.c - minimal reproducer: Mesa's llvmpipe (rusticl, Mesa 22.3.6 on
 * Debian 12) stops a work-item once its loops have run 65535 iterations, silently.
 * A kernel counts to n in a loop and stores the count.
 *   cc llvmpipe_loop_limit.c -lOpenCL -o loop_limit
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd RUSTICL_ENABLE=llvmpipe ./loop_limit */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
static const char *src =
    "__kernel void count(__global uint *out, uint n) {\n"
    "    uint c = 0;\n"
    "    for (uint i = 0; i < n; ++i) c += 1;\n"
    "    out[get_global_id(0)] = c;\n"
    "}\n";
int main(void)
{
    cl_platform_id p; cl_device_id d; cl_int e;
    clGetPlatformIDs(1, &p, NULL);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
    cl_program prog = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    clBuildProgram(prog, 1, &d, "", NULL, NULL);
    cl_kernel k = clCreateKernel(prog, "count", &e);
    cl_mem out = clCreateBuffer(c, CL_MEM_READ_WRITE, 4, NULL, &e);
    cl_uint ns[] = {1000, 65535, 65536, 65537, 100000};
    for (int i = 0; i < 5; ++i) {
        cl_uint got = 0; size_t one = 1;
        clSetKernelArg(k, 0, sizeof out, &out);
        clSetKernelArg(k, 1, sizeof ns[i], &ns[i]);
        clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
        clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, &got, 0, NULL, NULL);
        printf("n = %6u: kernel counted %6u%s\n", ns[i], got, got == ns[i] ? "" : "  WRONG");
    }
    return 0;
}
