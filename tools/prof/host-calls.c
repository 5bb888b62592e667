/* host-calls.c - the host's cost of the OpenCL calls one libclscan call makes, each timed
 * alone on the first GPU (else the first device): the queries of the argument checks
 * (clGetCommandQueueInfo, clGetMemObjectInfo, clGetEventInfo), clSetKernelArg, event
 * retain and release, clEnqueueNDRangeKernel of an empty kernel with and without an
 * event and with 6, 18 and 30 arguments, with 12 buffer arguments against 11 of them
 * NULL, and with 16 ulong arguments against one struct of 16 ulongs, against
 * clEnqueueCopyBuffer; each the median
 * over 5 rounds of the mean of R calls (the queue finished between rounds, kernels in
 * rounds of 16 so that it never fills). The CPU stacks' figures swing with their worker
 * threads; the GPU's are the point.
 * Build: cc -O2 -o /tmp/host-calls tools/prof/host-calls.c -lOpenCL */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prof-time.h"

#define ROUNDS 5
#define TIME(label, reps, setup, body)                                                     \
    do {                                                                                   \
        double r_[ROUNDS];                                                                 \
        for (int k_ = 0; k_ < ROUNDS; ++k_) {                                              \
            clFinish(q);                                                                   \
            setup;                                                                         \
            const double t0_ = now_us();                                                   \
            for (int i = 0; i < (reps); ++i) { body; }                                     \
            r_[k_] = (now_us() - t0_) / (reps);                                            \
        }                                                                                  \
        qsort(r_, ROUNDS, sizeof *r_, cmp);                                                \
        printf("%-44s %8.3f us\n", label, r_[ROUNDS / 2]);                                 \
    } while (0)

int main(void)
{
    cl_platform_id ps[8];
    cl_uint np = 0;
    clGetPlatformIDs(8, ps, &np);
    cl_device_id dev = NULL;
    for (cl_uint i = 0; i < np && !dev; ++i)
        if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    for (cl_uint i = 0; i < np && !dev; ++i)
        if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    if (!dev) return printf("no OpenCL device\n"), 1;
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("device: %s\n", name);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    const char *src = "__kernel void k(__global int *a, ulong b, __global int *c, ulong d,"
                      " ulong e, int f, __global uint *g, uint h, __global uint *i, ulong j)"
                      " { if (get_global_id(0) == (size_t)-1) a[0] = (int)(b + d + e + f + h + j); }";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) return printf("build failed\n"), 1;
    cl_kernel k = clCreateKernel(prog, "k", &err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);
    cl_ulong u = 1;
    cl_uint w = 1;
    cl_int s = 1;
    for (int x = 0; x < 10; ++x) {
        clSetKernelArg(k, 0, sizeof a, &a); clSetKernelArg(k, 1, 8, &u);
        clSetKernelArg(k, 2, sizeof c, &c); clSetKernelArg(k, 3, 8, &u);
        clSetKernelArg(k, 4, 8, &u); clSetKernelArg(k, 5, 4, &s);
        clSetKernelArg(k, 6, sizeof a, &a); clSetKernelArg(k, 7, 4, &w);
        clSetKernelArg(k, 8, sizeof c, &c); clSetKernelArg(k, 9, 8, &u);
    }
    size_t g = 256, l = 256;
    cl_event ev = NULL;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &ev);
    clFinish(q);
    cl_context qc;
    cl_device_id qd;
    cl_command_queue_properties qp;
    size_t sz;
    cl_int st;
    TIME("clGetCommandQueueInfo(CONTEXT)", 1000, (void)0,
         clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL));
    TIME("clGetCommandQueueInfo(DEVICE)", 1000, (void)0,
         clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL));
    TIME("clGetCommandQueueInfo(PROPERTIES)", 1000, (void)0,
         clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL));
    TIME("clGetMemObjectInfo(SIZE)", 1000, (void)0,
         clGetMemObjectInfo(a, CL_MEM_SIZE, sizeof sz, &sz, NULL));
    TIME("clGetMemObjectInfo(CONTEXT)", 1000, (void)0,
         clGetMemObjectInfo(a, CL_MEM_CONTEXT, sizeof qc, &qc, NULL));
    TIME("clGetEventInfo(EXECUTION_STATUS)", 1000, (void)0,
         clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    TIME("clRetainEvent + clReleaseEvent", 1000, (void)0, {
        clRetainEvent(ev);
        clReleaseEvent(ev);
    });
    TIME("clRetainCommandQueue + clRelease", 1000, (void)0, {
        clRetainCommandQueue(q);
        clReleaseCommandQueue(q);
    });
    TIME("clSetKernelArg (a buffer)", 1000, (void)0, clSetKernelArg(k, 0, sizeof a, &a));
    TIME("clSetKernelArg (a ulong)", 1000, (void)0, clSetKernelArg(k, 1, 8, &u));
    TIME("clEnqueueNDRangeKernel, no event", 16, (void)0,
         clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    cl_event evs[16];
    TIME("clEnqueueNDRangeKernel, event (released)", 16, (void)0, {
        clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &evs[i]);
        clReleaseEvent(evs[i]);
    });
    TIME("clEnqueueNDRangeKernel, waiting on last", 16, cl_event last = NULL, {
        cl_event e2 = NULL;
        clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, last ? 1 : 0, last ? &last : NULL, &e2);
        if (last) clReleaseEvent(last);
        last = e2;
    });
    TIME("10 x clSetKernelArg + NDRange, no event", 16, (void)0, {
        clSetKernelArg(k, 0, sizeof a, &a); clSetKernelArg(k, 1, 8, &u);
        clSetKernelArg(k, 2, sizeof c, &c); clSetKernelArg(k, 3, 8, &u);
        clSetKernelArg(k, 4, 8, &u); clSetKernelArg(k, 5, 4, &s);
        clSetKernelArg(k, 6, sizeof a, &a); clSetKernelArg(k, 7, 4, &w);
        clSetKernelArg(k, 8, sizeof c, &c); clSetKernelArg(k, 9, 8, &u);
        clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
    });
    /* The enqueue's cost against the kernel's argument count: 6, 18 and 30 arguments
     * (buffers and ulongs alternating), each set once before. */
    for (int nargs = 6; nargs <= 30; nargs += 12) {
        char text[4096];
        int len = snprintf(text, sizeof text, "__kernel void w(");
        for (int i = 0; i < nargs; ++i)
            len += snprintf(text + len, sizeof text - len, "%s%s a%d", i ? ", " : "",
                            i % 2 ? "ulong" : "__global int *", i);
        len += snprintf(text + len, sizeof text - len,
                        ") { if (get_global_id(0) == (size_t)-1) a0[0] = (int)a1; }");
        const char *wsrc = text;
        cl_program wp = clCreateProgramWithSource(ctx, 1, &wsrc, NULL, &err);
        if (clBuildProgram(wp, 1, &dev, "", NULL, NULL) != CL_SUCCESS) return printf("build failed\n"), 1;
        cl_kernel wk = clCreateKernel(wp, "w", &err);
        for (int i = 0; i < nargs; ++i)
            if (i % 2) clSetKernelArg(wk, i, 8, &u);
            else clSetKernelArg(wk, i, sizeof a, &a);
        char label[64];
        snprintf(label, sizeof label, "NDRange, %d arguments, no event", nargs);
        TIME(label, 16, (void)0, clEnqueueNDRangeKernel(q, wk, 1, NULL, &g, &l, 0, NULL, NULL));
        clFinish(q);
        clReleaseKernel(wk);
        clReleaseProgram(wp);
    }
    /* What the arguments' kind costs: 12 pointers, all buffers or all but one NULL; 16
     * ulongs apart or in one struct (docs/PERFORMANCE.md, fortieth session). */
    const char *ksrc =
        "__kernel void p12(__global int *a0, __global int *a1, __global int *a2,"
        " __global int *a3, __global int *a4, __global int *a5, __global int *a6,"
        " __global int *a7, __global int *a8, __global int *a9, __global int *a10,"
        " __global int *a11) { if (get_global_id(0) == (size_t)-1) a0[0] = 1; }\n"
        "__kernel void u16(__global int *p, ulong b0, ulong b1, ulong b2, ulong b3, ulong b4,"
        " ulong b5, ulong b6, ulong b7, ulong b8, ulong b9, ulong b10, ulong b11, ulong b12,"
        " ulong b13, ulong b14, ulong b15) { if (get_global_id(0) == (size_t)-1) p[0] = (int)b15; }\n"
        "typedef struct { ulong b[16]; } s16;\n"
        "__kernel void s16k(__global int *p, s16 s) { if (get_global_id(0) == (size_t)-1) p[0] = (int)s.b[15]; }\n";
    cl_program kp = clCreateProgramWithSource(ctx, 1, &ksrc, NULL, &err);
    if (clBuildProgram(kp, 1, &dev, "", NULL, NULL) != CL_SUCCESS) return printf("build failed\n"), 1;
    cl_kernel p12 = clCreateKernel(kp, "p12", &err), u16 = clCreateKernel(kp, "u16", &err);
    cl_kernel s16 = clCreateKernel(kp, "s16k", &err);
    cl_mem bufs[12];
    for (int i = 0; i < 12; ++i) bufs[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    const cl_mem none = NULL;
    for (int nulls = 0; nulls < 2; ++nulls) {
        for (int i = 0; i < 12; ++i) clSetKernelArg(p12, i, sizeof(cl_mem), i && nulls ? &none : &bufs[i]);
        TIME(nulls ? "NDRange, 12 pointers, 11 of them NULL" : "NDRange, 12 pointers, 12 buffers", 16,
             (void)0, clEnqueueNDRangeKernel(q, p12, 1, NULL, &g, &l, 0, NULL, NULL));
    }
    cl_ulong sixteen[16] = {0};
    clSetKernelArg(u16, 0, sizeof a, &a);
    clSetKernelArg(s16, 0, sizeof a, &a);
    for (int i = 0; i < 16; ++i) clSetKernelArg(u16, 1 + i, 8, &sixteen[i]);
    clSetKernelArg(s16, 1, sizeof sixteen, sixteen);
    TIME("NDRange, a buffer and 16 ulongs", 16, (void)0,
         clEnqueueNDRangeKernel(q, u16, 1, NULL, &g, &l, 0, NULL, NULL));
    TIME("NDRange, a buffer and a struct of 16 ulongs", 16, (void)0,
         clEnqueueNDRangeKernel(q, s16, 1, NULL, &g, &l, 0, NULL, NULL));
    clFinish(q);
    for (int i = 0; i < 12; ++i) clReleaseMemObject(bufs[i]);
    clReleaseKernel(p12);
    clReleaseKernel(u16);
    clReleaseKernel(s16);
    clReleaseProgram(kp);
    TIME("clEnqueueCopyBuffer 256 KiB, no event", 16, (void)0,
         clEnqueueCopyBuffer(q, a, c, 0, 0, 256 << 10, 0, NULL, NULL));
    TIME("clEnqueueFillBuffer 8 B, no event", 16, (void)0, {
        static const cl_ulong zero = 0;
        clEnqueueFillBuffer(q, c, &zero, 8, 0, 8, 0, NULL, NULL);
    });
    clFinish(q);
    clReleaseEvent(ev);
    return 0;
}
