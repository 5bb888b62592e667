/* llvmpipe_loop_after_endless_loop.c - minimal reproducer: Mesa's llvmpipe (rusticl, Mesa
 * 22.3.6 on Debian 12) runs a loop that follows a `for (;;)` loop only once, when that
 * loop is left by a `break` on a value work-item 0 wrote to local memory (the shape of
 * a work-group waiting in turns, as libclscan's look-back does). The kernel counts to
 * `spins` that way, then stores k + count for k in [0, n): every element but the first
 * is left unwritten. With a bounded first loop (`for (uint i = 0; i < 100; ++i)`), or
 * with the break decided in private memory, every element is written.
 *   cc llvmpipe_loop_after_endless_loop.c -lOpenCL -o endless
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd RUSTICL_ENABLE=llvmpipe ./endless
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd ./endless */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
static const char *src =
    "__kernel void k(__global uint *out, uint n, uint spins)\n"
    "{\n"
    "    __local uint stop;\n"
    "    uint count = 0;\n"
    "    for (;;) {\n"
    "        count += 1;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        if (get_local_id(0) == 0) stop = count >= spins;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        if (stop) break;\n"
    "    }\n"
    "    for (uint k = 0; k < n; ++k) out[get_group_id(0) * n + k] = k + count;\n"
    "}\n";
int main(void)
{
    cl_platform_id p; cl_device_id d; cl_int e;
    clGetPlatformIDs(1, &p, NULL);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
    cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    if (clBuildProgram(pr, 1, &d, "", NULL, NULL) != CL_SUCCESS) return 1;
    cl_kernel k = clCreateKernel(pr, "k", &e);
    enum { N = 64, ITEMS = 4 };
    static cl_uint host[N * ITEMS];
    cl_uint n = N, spins = 3;
    cl_mem out = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, sizeof host, host, &e);
    clSetKernelArg(k, 0, sizeof out, &out);
    clSetKernelArg(k, 1, sizeof n, &n);
    clSetKernelArg(k, 2, sizeof spins, &spins);
    size_t global = ITEMS, local = 1;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL);
    int wrong = 0;
    for (int i = 0; i < N * ITEMS; ++i) wrong += host[i] != (cl_uint)(i % N) + spins;
    printf("%d of %d elements wrong (out[0] = %u, out[1] = %u; expected %u, %u)\n", wrong,
           N * ITEMS, host[0], host[1], spins, spins + 1);
    return wrong != 0;
}
