/* rusticl_kernel_arg_in_control_flow.c - when does rusticl (Mesa 22.3, llvmpipe) print
 * "MESA: warning: Treating load_kernel_arg in control flow as uniform, results may be
 * incorrect.", and are the results then right? Builds and runs four small kernels (one
 * group of 64 work-items, n = 100, m = 7), each in a fresh context, and checks every
 * output against the host. The message goes to stderr, once per process at most, and only
 * when the kernel is compiled (Mesa's shader cache skips the compile that prints it):
 * run each kernel in its own process, with MESA_SHADER_CACHE_DISABLE=true.
 *   for k in 0 1 2 3; do MESA_SHADER_CACHE_DISABLE=true ./rusticl_kernel_arg_in_control_flow $k; done
 * Build: cc rusticl_kernel_arg_in_control_flow.c -lOpenCL */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const kernels[] = {
    /* 0: get_global_id() called inside a branch (rusticl adds the global offset as a
     * hidden kernel argument, read where get_global_id is). p[g] = g + m for lid 0. */
    "__kernel void k(__global uint *p, uint n, uint m)\n"
    "{ if (get_local_id(0) == 0) p[get_group_id(0)] = (uint)get_global_id(0) + m; }\n",
    /* 1: a struct with a constant initializer, returned by a function called inside a
     * branch (the initializer goes to constant memory, whose address is a hidden kernel
     * argument): work-items lid >= m take {1, 0, 0, 1}, the others {m, m, m, m}. */
    "typedef struct { uint a, b, c, d; } mat2u;\n"
    "mat2u one(void) { const mat2u r = {1u, 0u, 0u, 1u}; return r; }\n"
    "__kernel void k(__global uint *p, uint n, uint m)\n"
    "{ const uint lid = get_local_id(0); mat2u x = {m, m, m, m};\n"
    "  if (lid >= m) x = one();\n"
    "  p[get_group_id(0) * get_local_size(0) + lid] = x.a + x.b + x.c + x.d; }\n",
    /* 2: the same value computed before the branch: no message. */
    "typedef struct { uint a, b, c, d; } mat2u;\n"
    "mat2u one(void) { const mat2u r = {1u, 0u, 0u, 1u}; return r; }\n"
    "__kernel void k(__global uint *p, uint n, uint m)\n"
    "{ const uint lid = get_local_id(0); const mat2u o = one(); mat2u x = {m, m, m, m};\n"
    "  if (lid >= m) x = o;\n"
    "  p[get_group_id(0) * get_local_size(0) + lid] = x.a + x.b + x.c + x.d; }\n",
    /* 3: get_global_id() read before the branch: no message. */
    "__kernel void k(__global uint *p, uint n, uint m)\n"
    "{ const uint g = (uint)get_global_id(0);\n"
    "  if (get_local_id(0) == 0) p[get_group_id(0)] = g + m; }\n",
};

int main(int argc, char **argv)
{
    const int which = argc > 1 ? atoi(argv[1]) : 0;
    if (which < 0 || which > 3) return 2;
    cl_platform_id pl;
    cl_device_id d;
    clGetPlatformIDs(1, &pl, NULL);
    clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, NULL);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, NULL);
    cl_program p = clCreateProgramWithSource(c, 1, &kernels[which], NULL, NULL);
    if (clBuildProgram(p, 1, &d, NULL, NULL, NULL) != CL_SUCCESS) return 1;
    cl_kernel k = clCreateKernel(p, "k", NULL);
    cl_uint out[64] = {0}, n = 100, m = 7;
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof out, out, NULL);
    clSetKernelArg(k, 0, sizeof b, &b);
    clSetKernelArg(k, 1, sizeof n, &n);
    clSetKernelArg(k, 2, sizeof m, &m);
    size_t g = 64, l = 64;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
    clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    int bad = 0;
    for (cl_uint i = 0; i < 64; i++) {
        cl_uint want = which == 0 || which == 3 ? (i == 0 ? m : 0) : i >= m ? 2u : 4u * m;
        if (out[i] != want) bad++;
    }
    printf("kernel %d: %s\n", which, bad ? "WRONG results" : "results right");
    return bad != 0;
}
