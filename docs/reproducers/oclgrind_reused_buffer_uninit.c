/* oclgrind_reused_buffer_uninit.c - Oclgrind 21.10 (--uninitialized) reports values one
 * kernel wrote and the next reads as uninitialised, past byte 4096 of a 5116-byte buffer,
 * when a 4096-byte buffer was created, written and released just before it (its address
 * range is reused); with no earlier buffer it reports nothing.
 * cc oclgrind_reused_buffer_uninit.c -lOpenCL -o reuse
 * oclgrind --uninitialized ./reuse        (one buffer: no report)
 * oclgrind --uninitialized ./reuse grow   (the smaller one first: 255 reports) */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
static const char *src =
"__kernel void w(__global uint *b, ulong off, uint n) { for (uint i = get_local_id(0); i < n; i += get_local_size(0)) b[off + i] = i; }\n"
"__kernel void r(__global const uint *b, ulong off, uint n, __global uint *o) { __local uint bins[256];\n"
"  for (uint d = get_local_id(0); d < 256; d += get_local_size(0)) bins[d] = 0; barrier(CLK_LOCAL_MEM_FENCE);\n"
"  for (uint i = get_local_id(0); i < n; i += get_local_size(0)) atomic_inc(&bins[b[off + i] & 255]);\n"
"  barrier(CLK_LOCAL_MEM_FENCE); if (get_local_id(0) == 0) o[0] = bins[0]; }\n";
int main(int argc, char **argv) {
  cl_platform_id p; cl_device_id d; cl_int e;
  clGetPlatformIDs(1, &p, NULL); clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
  cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
  cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &e); clBuildProgram(pr, 1, &d, "", NULL, NULL);
  cl_kernel kw = clCreateKernel(pr, "w", &e), kr = clCreateKernel(pr, "r", &e);
  cl_mem o = clCreateBuffer(c, CL_MEM_READ_WRITE, 4, NULL, &e);
  size_t sizes[2] = {4096, 5116}; int grow = argc > 1;
  for (int call = grow ? 0 : 1; call < 2; call++) {
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, sizes[call], NULL, &e);
    cl_ulong off = 256; cl_uint n = (cl_uint)(sizes[call] / 4 - 256); size_t l = 128, g = 128;
    clSetKernelArg(kw, 0, sizeof b, &b); clSetKernelArg(kw, 1, 8, &off); clSetKernelArg(kw, 2, 4, &n);
    clEnqueueNDRangeKernel(q, kw, 1, NULL, &g, &l, 0, NULL, NULL);
    clSetKernelArg(kr, 0, sizeof b, &b); clSetKernelArg(kr, 1, 8, &off); clSetKernelArg(kr, 2, 4, &n); clSetKernelArg(kr, 3, sizeof o, &o);
    clEnqueueNDRangeKernel(q, kr, 1, NULL, &g, &l, 0, NULL, NULL);
    clFinish(q); clReleaseMemObject(b); printf("call %d: buffer of %zu bytes\n", call, sizes[call]);
  }
  return 0;
}
