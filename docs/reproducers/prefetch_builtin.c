/* prefetch_builtin.c - builds and runs a one-line kernel that calls clang's
 * __builtin_prefetch on the first device of the first platform: Mesa 22.3's rusticl ends
 * the process inside clBuildProgram and Oclgrind 21.10 refuses the kernel, where PoCL 3.1
 * and Intel's OpenCL CPU runtime run it (docs/IMPLEMENTATION-ISSUES.md).
 *   cc prefetch_builtin.c -lOpenCL -o repro
 *   RUSTICL_ENABLE=llvmpipe OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd ./repro
 *   oclgrind ./repro */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *source = "kernel void k(global int *p) { __builtin_prefetch(p + 16); p[0] = 7; }";

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "no OpenCL device (%d)\n", err);
        return 1;
    }
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(ctx, device, 0, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    printf("building...\n");
    fflush(stdout);
    err = clBuildProgram(prog, 1, &device, "", NULL, NULL);
    printf("clBuildProgram: %d\n", err);
    cl_kernel kernel = clCreateKernel(prog, "k", &err);
    if (err != CL_SUCCESS) {
        printf("clCreateKernel: %d\n", err);
        return 1;
    }
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL, &err);
    clSetKernelArg(kernel, 0, sizeof buf, &buf);
    const size_t one = 1;
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL);
    cl_int v = 0;
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL);
    printf("p[0] = %d (7 expected)\n", v);
    clReleaseMemObject(buf);
    clReleaseKernel(kernel);
    clReleaseProgram(prog);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return v == 7 ? 0 : 1;
}
