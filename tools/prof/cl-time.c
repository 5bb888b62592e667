/* cl-time.c - an LD_PRELOAD library that times the OpenCL calls a process makes through
 * the ICD loader: per function, the number of calls and their total and mean host time,
 * printed to stderr at exit (functions never called are left out). With clscan-bench's
 * batched rows it shows where a small call's host time goes besides libclscan's own code.
 * Build: cc -O2 -shared -fPIC -o /tmp/cl-time.so tools/prof/cl-time.c -ldl
 * Use:   LD_PRELOAD=/tmp/cl-time.so build/clscan-bench ... */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

enum { F_NDRANGE, F_SETARG, F_QUEUEINFO, F_MEMINFO, F_EVENTINFO, F_RETAIN_EV, F_RELEASE_EV,
       F_RETAIN_Q, F_RELEASE_Q, F_MARKER, F_COPY, F_FILL, F_FLUSH, F_FINISH, F_WAIT,
       F_COUNT };
static const char *const names[F_COUNT] = {
    "clEnqueueNDRangeKernel", "clSetKernelArg", "clGetCommandQueueInfo", "clGetMemObjectInfo",
    "clGetEventInfo", "clRetainEvent", "clReleaseEvent", "clRetainCommandQueue",
    "clReleaseCommandQueue", "clEnqueueMarkerWithWaitList", "clEnqueueCopyBuffer",
    "clEnqueueFillBuffer", "clFlush", "clFinish", "clWaitForEvents"};
static double total[F_COUNT];
static unsigned long calls[F_COUNT];

#define NEXT(type, name) static type next_; if (!next_) next_ = (type)dlsym(RTLD_NEXT, name)
#define TIMED(f, expr)                                                                      \
    do {                                                                                   \
        const double t0_ = now_us();                                                       \
        ret = expr;                                                                        \
        total[f] += now_us() - t0_;                                                        \
        ++calls[f];                                                                        \
    } while (0)

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "cl-time: %-30s %10s %12s %9s\n", "function", "calls", "total us",
            "mean us");
    for (int f = 0; f < F_COUNT; ++f)
        if (calls[f])
            fprintf(stderr, "cl-time: %-30s %10lu %12.0f %9.3f\n", names[f], calls[f],
                    total[f], total[f] / calls[f]);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
    cl_uint dim, const size_t *off, const size_t *g, const size_t *l, cl_uint n,
    const cl_event *w, cl_event *e)
{
    typedef cl_int (*fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                         const size_t *, cl_uint, const cl_event *, cl_event *);
    NEXT(fn, "clEnqueueNDRangeKernel");
    cl_int ret;
    TIMED(F_NDRANGE, next_(q, k, dim, off, g, l, n, w, e));
    return ret;
}
CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v)
{
    typedef cl_int (*fn)(cl_kernel, cl_uint, size_t, const void *);
    NEXT(fn, "clSetKernelArg");
    cl_int ret;
    TIMED(F_SETARG, next_(k, i, s, v));
    return ret;
}
#define INFO(F, fname, objtype, infotype)                                                   \
    CL_API_ENTRY cl_int CL_API_CALL fname(objtype o, infotype p, size_t s, void *v, size_t *r) \
    {                                                                                       \
        typedef cl_int (*fn)(objtype, infotype, size_t, void *, size_t *);                  \
        NEXT(fn, #fname);                                                                   \
        cl_int ret;                                                                         \
        TIMED(F, next_(o, p, s, v, r));                                                     \
        return ret;                                                                         \
    }
INFO(F_QUEUEINFO, clGetCommandQueueInfo, cl_command_queue, cl_command_queue_info)
INFO(F_MEMINFO, clGetMemObjectInfo, cl_mem, cl_mem_info)
INFO(F_EVENTINFO, clGetEventInfo, cl_event, cl_event_info)
#define ONE(F, fname, objtype)                                                              \
    CL_API_ENTRY cl_int CL_API_CALL fname(objtype o)                                        \
    {                                                                                       \
        typedef cl_int (*fn)(objtype);                                                      \
        NEXT(fn, #fname);                                                                   \
        cl_int ret;                                                                         \
        TIMED(F, next_(o));                                                                 \
        return ret;                                                                         \
    }
ONE(F_RETAIN_EV, clRetainEvent, cl_event)
ONE(F_RELEASE_EV, clReleaseEvent, cl_event)
ONE(F_RETAIN_Q, clRetainCommandQueue, cl_command_queue)
ONE(F_RELEASE_Q, clReleaseCommandQueue, cl_command_queue)
ONE(F_FLUSH, clFlush, cl_command_queue)
ONE(F_FINISH, clFinish, cl_command_queue)
CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n,
                                                            const cl_event *w, cl_event *e)
{
    typedef cl_int (*fn)(cl_command_queue, cl_uint, const cl_event *, cl_event *);
    NEXT(fn, "clEnqueueMarkerWithWaitList");
    cl_int ret;
    TIMED(F_MARKER, next_(q, n, w, e));
    return ret;
}
CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem a, cl_mem b,
    size_t ao, size_t bo, size_t s, cl_uint n, const cl_event *w, cl_event *e)
{
    typedef cl_int (*fn)(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,
                         const cl_event *, cl_event *);
    NEXT(fn, "clEnqueueCopyBuffer");
    cl_int ret;
    TIMED(F_COPY, next_(q, a, b, ao, bo, s, n, w, e));
    return ret;
}
CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem b,
    const void *p, size_t ps, size_t o, size_t s, cl_uint n, const cl_event *w, cl_event *e)
{
    typedef cl_int (*fn)(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t,
                         cl_uint, const cl_event *, cl_event *);
    NEXT(fn, "clEnqueueFillBuffer");
    cl_int ret;
    TIMED(F_FILL, next_(q, b, p, ps, o, s, n, w, e));
    return ret;
}
CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint n, const cl_event *e)
{
    typedef cl_int (*fn)(cl_uint, const cl_event *);
    NEXT(fn, "clWaitForEvents");
    cl_int ret;
    TIMED(F_WAIT, next_(n, e));
    return ret;
}
