/* llvmpipe_store_after_wait_loop.c - minimal reproducer: Mesa's llvmpipe (rusticl, Mesa
 * 22.3.6 on Debian 12) drops a store that follows a bounded wait loop inside a loop with
 * barriers. Work-items 0..4 of one work-group each wait (at most `limit` reads) for
 * their word of w to be non-zero; the smallest index still zero goes to local memory,
 * work-item 0 sets that word, and the group goes round again until no word is zero. w
 * starts with only w[1] zero, so every work-item should count 2 rounds. On llvmpipe
 * w[1] is never set, the group goes round until llvmpipe's loop budget (65535
 * iterations) ends every loop, and the rounds counted are 65535 / (limit + 2) in one
 * 8-lane half of the group and 0 (never stored) in the other. The same with every
 * work-item storing the word, with plain loads and stores instead of atomics, and with
 * groups of 4; PoCL and Oclgrind (--data-races --uninitialized) count 2.
 *   cc llvmpipe_store_after_wait_loop.c -lOpenCL -o storewait
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd RUSTICL_ENABLE=llvmpipe ./storewait
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd ./storewait */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
static const char *src =
    "__kernel void k(__global uint *w, __global uint *out, uint limit, uint nwords)\n"
    "{\n"
    "    __local uint missing;\n"
    "    const uint lid = get_local_id(0);\n"
    "    uint rounds = 0;\n"
    "    for (;;) {\n"
    "        if (lid == 0) missing = 0xffffffffu;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        if (lid < nwords) {\n"
    "            uint spins = 0, v;\n"
    "            while ((v = atomic_add((volatile __global uint *)(w + lid), 0u)) == 0u &&\n"
    "                   spins++ < limit) {\n"
    "            }\n"
    "            if (v == 0u) atomic_min(&missing, lid);\n"
    "        }\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        const uint m = missing;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        ++rounds;\n"
    "        if (m == 0xffffffffu) break;\n"
    "        if (lid == 0) atomic_xchg((volatile __global uint *)(w + m), 1u);\n"
    "        barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    }\n"
    "    out[lid] = rounds;\n"
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
    enum { ITEMS = 16 };
    static cl_uint w[ITEMS], rounds[ITEMS];
    for (int i = 0; i < ITEMS; ++i) w[i] = i != 1;
    cl_uint limit = 256, nwords = 5;
    cl_mem wb = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, sizeof w, w, &e);
    cl_mem out = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, sizeof rounds, rounds, &e);
    clSetKernelArg(k, 0, sizeof wb, &wb);
    clSetKernelArg(k, 1, sizeof out, &out);
    clSetKernelArg(k, 2, sizeof limit, &limit);
    clSetKernelArg(k, 3, sizeof nwords, &nwords);
    size_t global = ITEMS, local = ITEMS;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof rounds, rounds, 0, NULL, NULL);
    clEnqueueReadBuffer(q, wb, CL_TRUE, 0, sizeof w, w, 0, NULL, NULL);
    int wrong = 0;
    for (int i = 0; i < ITEMS; ++i) wrong += rounds[i] != 2;
    printf("%d of %d work-items counted other than 2 rounds (work-item 0: %u, 15: %u); "
           "w[1] = %u (expected 1)\n", wrong, ITEMS, rounds[0], rounds[ITEMS - 1], w[1]);
    return wrong != 0 || w[1] != 1;
}
