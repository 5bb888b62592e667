/* nvidia_kernel_noinline_note.c - NVIDIA's OpenCL compiler (driver 580, H100) writes
 * "Warning: Function k is a kernel, so overriding noinline attribute. The function may be
 * inlined when called." into the build log of every kernel, the one-line kernel below
 * included, whatever the kernel's attributes; and it ignores #line (its positions are
 * "<kernel>:LINE:COL" of the whole program). Run with the driver's cache off:
 *   cc nvidia_kernel_noinline_note.c -lOpenCL -o note && CUDA_CACHE_DISABLE=1 ./note */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
static const char *src = "__kernel void k(__global uint *w) { w[get_global_id(0)] = 0u; }\n"
                         "#line 1 \"predicate\"\n"
                         "__kernel void j(__global uint *w) { w[0] = 1u && 2; }\n";
int main(void)
{
    cl_platform_id p; cl_device_id d; cl_int e;
    clGetPlatformIDs(1, &p, NULL);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, NULL);
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    e = clBuildProgram(pr, 1, &d, "-cl-std=CL1.2", NULL, NULL);
    static char log[1 << 14];
    clGetProgramBuildInfo(pr, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    printf("build %d, log:\n%s\n", e, log);
    return 0;
}
