/* rusticl_finish_early.c - does clFinish wait for every command enqueued before it?
 * Enqueues K kernels that each spin for a while on an in-order queue, then clFlush and
 * clFinish, then reads the last kernel's event status: CL_COMPLETE (0) is required by the
 * OpenCL spec ("clFinish blocks until all previously queued commands ... have completed").
 * Build: cc rusticl_finish_early.c -lOpenCL */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static const char *src =
    "__kernel void spin(__global uint *p, uint n) {\n"
    "  uint x = p[get_global_id(0)];\n"
    "  for (uint i = 0; i < n; ++i) x = x * 1664525u + 1013904223u;\n"
    "  p[get_global_id(0)] = x; }\n";
int main(int argc, char **argv)
{
    const int flush = argc > 1 && argv[1][0] == 'f';
    cl_platform_id pl; cl_device_id d;
    clGetPlatformIDs(1, &pl, NULL); clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, NULL);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, NULL);
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, 4096 * 4, NULL, NULL);
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, NULL);
    clBuildProgram(p, 1, &d, NULL, NULL, NULL);
    cl_kernel k = clCreateKernel(p, "spin", NULL);
    cl_uint n = 20000; size_t g = 4096;
    clSetKernelArg(k, 0, sizeof b, &b); clSetKernelArg(k, 1, sizeof n, &n);
    cl_event last = NULL;
    double t0 = now();
    for (int i = 0; i < 50; i++) {
        if (last) clReleaseEvent(last);
        clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, &last);
    }
    if (flush) clFlush(q);
    cl_int err = clFinish(q);
    double t1 = now();
    cl_int st = -99;
    clGetEventInfo(last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    clWaitForEvents(1, &last);
    double t2 = now();
    printf("%s: clFinish returned %d after %.1f ms; last kernel's status then %d (0 = complete); "
           "waiting for it took %.1f ms more\n", flush ? "clFlush + clFinish" : "clFinish",
           err, (t1 - t0) * 1e3, st, (t2 - t1) * 1e3);
    return st == CL_COMPLETE ? 0 : 1;
}
