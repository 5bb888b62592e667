/* test_cycles.c - Check test for leaks across context lifetimes: 10,000 cycles of
 * clscan_context_create, a scan and a compaction, wait, clscan_context_release, with the
 * OpenCL objects the library creates and releases counted through link-time wraps
 * (-Wl,--wrap=..., tests/meson.build) and resident memory watched for growth. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_devices.h"
#include "verify.h"

#include <check.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ counting wraps -- */

/* Live references per kind of OpenCL object, as seen through the OpenCL entry points:
 * +1 for each object created and each successful retain, -1 for each successful release.
 * Every call into OpenCL made by this executable, the static libclscan's included, goes
 * through the __wrap_ functions below (the linker's --wrap); __real_ is the loader's. */
enum {
    CLSCAN_CYC_BUFFER,
    CLSCAN_CYC_PROGRAM,
    CLSCAN_CYC_KERNEL,
    CLSCAN_CYC_EVENT,
    CLSCAN_CYC_QUEUE,
    CLSCAN_CYC_CONTEXT,
    CLSCAN_CYC_DEVICE,
    CLSCAN_CYC_KINDS
};
static const char *const clscan_cyc_kind_names[CLSCAN_CYC_KINDS] = {
    "buffers", "programs", "kernels", "events", "command queues", "contexts", "devices"};
static atomic_long clscan_cyc_live[CLSCAN_CYC_KINDS];
/* Creations (not retains) per kind, to show the wraps see the library's calls. */
static atomic_long clscan_cyc_created[CLSCAN_CYC_KINDS];

static void clscan_cyc_count(int kind, int delta, int created)
{
    atomic_fetch_add(&clscan_cyc_live[kind], delta);
    if (created)
        atomic_fetch_add(&clscan_cyc_created[kind], 1);
}

/* An object returned by a create call (non-NULL) counts once. */
#define CLSCAN_CYC_CREATED(kind, obj) \
    do {                              \
        if (obj)                      \
            clscan_cyc_count((kind), 1, 1); \
    } while (0)
/* An enqueue that succeeded and was asked for an event created one. */
#define CLSCAN_CYC_EVENT_OUT(err, ev) \
    do {                              \
        if ((err) == CL_SUCCESS && (ev)) \
            clscan_cyc_count(CLSCAN_CYC_EVENT, 1, 1); \
    } while (0)

/* Declarations of the real entry points and of the wraps (for -Wmissing-prototypes). */
#define CLSCAN_CYC_DECLARE(ret, name, params) \
    ret __real_##name params;                 \
    ret __wrap_##name params;

#define CLSCAN_CYC_RETAIN_RELEASE(kind, type, retain, release) \
    CLSCAN_CYC_DECLARE(cl_int, retain, (type obj))             \
    CLSCAN_CYC_DECLARE(cl_int, release, (type obj))            \
    cl_int __wrap_##retain(type obj)                           \
    {                                                          \
        cl_int err = __real_##retain(obj);                     \
        if (err == CL_SUCCESS)                                 \
            clscan_cyc_count((kind), 1, 0);                    \
        return err;                                            \
    }                                                          \
    cl_int __wrap_##release(type obj)                          \
    {                                                          \
        cl_int err = __real_##release(obj);                    \
        if (err == CL_SUCCESS)                                 \
            clscan_cyc_count((kind), -1, 0);                   \
        return err;                                            \
    }

CLSCAN_CYC_RETAIN_RELEASE(CLSCAN_CYC_BUFFER, cl_mem, clRetainMemObject, clReleaseMemObject)
CLSCAN_CYC_RETAIN_RELEASE(CLSCAN_CYC_PROGRAM, cl_program, clRetainProgram, clReleaseProgram)
CLSCAN_CYC_RETAIN_RELEASE(CLSCAN_CYC_KERNEL, cl_kernel, clRetainKernel, clReleaseKernel)
CLSCAN_CYC_RETAIN_RELEASE(CLSCAN_CYC_EVENT, cl_event, clRetainEvent, clReleaseEvent)
CLSCAN_CYC_RETAIN_RELEASE(CLSCAN_CYC_QUEUE, cl_command_queue, clRetainCommandQueue,
                          clReleaseCommandQueue)
CLSCAN_CYC_RETAIN_RELEASE(CLSCAN_CYC_CONTEXT, cl_context, clRetainContext, clReleaseContext)
CLSCAN_CYC_RETAIN_RELEASE(CLSCAN_CYC_DEVICE, cl_device_id, clRetainDevice, clReleaseDevice)

/* Buffers. */
CLSCAN_CYC_DECLARE(cl_mem, clCreateBuffer,
                   (cl_context c, cl_mem_flags f, size_t size, void *host, cl_int *err))
cl_mem __wrap_clCreateBuffer(cl_context c, cl_mem_flags f, size_t size, void *host, cl_int *err)
{
    cl_mem m = __real_clCreateBuffer(c, f, size, host, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_BUFFER, m);
    return m;
}
CLSCAN_CYC_DECLARE(cl_mem, clCreateSubBuffer,
                   (cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void *info,
                    cl_int *err))
cl_mem __wrap_clCreateSubBuffer(cl_mem b, cl_mem_flags f, cl_buffer_create_type t,
                                const void *info, cl_int *err)
{
    cl_mem m = __real_clCreateSubBuffer(b, f, t, info, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_BUFFER, m);
    return m;
}

/* Programs. */
CLSCAN_CYC_DECLARE(cl_program, clCreateProgramWithSource,
                   (cl_context c, cl_uint count, const char **texts, const size_t *lengths,
                    cl_int *err))
cl_program __wrap_clCreateProgramWithSource(cl_context c, cl_uint count, const char **texts,
                                            const size_t *lengths, cl_int *err)
{
    cl_program p = __real_clCreateProgramWithSource(c, count, texts, lengths, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_PROGRAM, p);
    return p;
}
CLSCAN_CYC_DECLARE(cl_program, clCreateProgramWithBinary,
                   (cl_context c, cl_uint ndev, const cl_device_id *devs, const size_t *lengths,
                    const unsigned char **bins, cl_int *status, cl_int *err))
cl_program __wrap_clCreateProgramWithBinary(cl_context c, cl_uint ndev, const cl_device_id *devs,
                                            const size_t *lengths, const unsigned char **bins,
                                            cl_int *status, cl_int *err)
{
    cl_program p = __real_clCreateProgramWithBinary(c, ndev, devs, lengths, bins, status, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_PROGRAM, p);
    return p;
}
CLSCAN_CYC_DECLARE(cl_program, clLinkProgram,
                   (cl_context c, cl_uint ndev, const cl_device_id *devs, const char *options,
                    cl_uint nprog, const cl_program *progs,
                    void(CL_CALLBACK *notify)(cl_program, void *), void *user, cl_int *err))
cl_program __wrap_clLinkProgram(cl_context c, cl_uint ndev, const cl_device_id *devs,
                                const char *options, cl_uint nprog, const cl_program *progs,
                                void(CL_CALLBACK *notify)(cl_program, void *), void *user,
                                cl_int *err)
{
    cl_program p = __real_clLinkProgram(c, ndev, devs, options, nprog, progs, notify, user, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_PROGRAM, p);
    return p;
}

/* Kernels. */
CLSCAN_CYC_DECLARE(cl_kernel, clCreateKernel, (cl_program p, const char *name, cl_int *err))
cl_kernel __wrap_clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    cl_kernel k = __real_clCreateKernel(p, name, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_KERNEL, k);
    return k;
}
CLSCAN_CYC_DECLARE(cl_int, clCreateKernelsInProgram,
                   (cl_program p, cl_uint cap, cl_kernel *kernels, cl_uint *count))
cl_int __wrap_clCreateKernelsInProgram(cl_program p, cl_uint cap, cl_kernel *kernels,
                                       cl_uint *count)
{
    cl_uint made = 0;
    cl_int err = __real_clCreateKernelsInProgram(p, cap, kernels, &made);
    if (count)
        *count = made;
    if (err == CL_SUCCESS && kernels)
        for (cl_uint i = 0; i < made && i < cap; i++)
            clscan_cyc_count(CLSCAN_CYC_KERNEL, 1, 1);
    return err;
}

/* Command queues and contexts (the library may create a queue of its own, the bank
 * probe's). clCreateCommandQueueWithProperties is OpenCL 2.0: declared here. */
CLSCAN_CYC_DECLARE(cl_command_queue, clCreateCommandQueue,
                   (cl_context c, cl_device_id d, cl_command_queue_properties props,
                    cl_int *err))
cl_command_queue __wrap_clCreateCommandQueue(cl_context c, cl_device_id d,
                                             cl_command_queue_properties props, cl_int *err)
{
    cl_command_queue q = __real_clCreateCommandQueue(c, d, props, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_QUEUE, q);
    return q;
}
CLSCAN_CYC_DECLARE(cl_command_queue, clCreateCommandQueueWithProperties,
                   (cl_context c, cl_device_id d, const cl_ulong *props, cl_int *err))
cl_command_queue __wrap_clCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                           const cl_ulong *props, cl_int *err)
{
    cl_command_queue q = __real_clCreateCommandQueueWithProperties(c, d, props, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_QUEUE, q);
    return q;
}
CLSCAN_CYC_DECLARE(cl_context, clCreateContext,
                   (const cl_context_properties *props, cl_uint ndev, const cl_device_id *devs,
                    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                    void *user, cl_int *err))
cl_context __wrap_clCreateContext(const cl_context_properties *props, cl_uint ndev,
                                  const cl_device_id *devs,
                                  void(CL_CALLBACK *notify)(const char *, const void *, size_t,
                                                            void *),
                                  void *user, cl_int *err)
{
    cl_context c = __real_clCreateContext(props, ndev, devs, notify, user, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_CONTEXT, c);
    return c;
}

/* Events: every enqueue that can return one, and user events. */
CLSCAN_CYC_DECLARE(cl_event, clCreateUserEvent, (cl_context c, cl_int *err))
cl_event __wrap_clCreateUserEvent(cl_context c, cl_int *err)
{
    cl_event e = __real_clCreateUserEvent(c, err);
    CLSCAN_CYC_CREATED(CLSCAN_CYC_EVENT, e);
    return e;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueNDRangeKernel,
                   (cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
                    const size_t *global, const size_t *local, cl_uint nwait,
                    const cl_event *wait, cl_event *ev))
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint nwait, const cl_event *wait,
                                     cl_event *ev)
{
    cl_int err = __real_clEnqueueNDRangeKernel(q, k, dim, offset, global, local, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueTask,
                   (cl_command_queue q, cl_kernel k, cl_uint nwait, const cl_event *wait,
                    cl_event *ev))
cl_int __wrap_clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint nwait, const cl_event *wait,
                            cl_event *ev)
{
    cl_int err = __real_clEnqueueTask(q, k, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueMarkerWithWaitList,
                   (cl_command_queue q, cl_uint nwait, const cl_event *wait, cl_event *ev))
cl_int __wrap_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint nwait, const cl_event *wait,
                                          cl_event *ev)
{
    cl_int err = __real_clEnqueueMarkerWithWaitList(q, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueBarrierWithWaitList,
                   (cl_command_queue q, cl_uint nwait, const cl_event *wait, cl_event *ev))
cl_int __wrap_clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint nwait,
                                           const cl_event *wait, cl_event *ev)
{
    cl_int err = __real_clEnqueueBarrierWithWaitList(q, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueCopyBuffer,
                   (cl_command_queue q, cl_mem src, cl_mem dst, size_t soff, size_t doff,
                    size_t size, cl_uint nwait, const cl_event *wait, cl_event *ev))
cl_int __wrap_clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t soff,
                                  size_t doff, size_t size, cl_uint nwait, const cl_event *wait,
                                  cl_event *ev)
{
    cl_int err = __real_clEnqueueCopyBuffer(q, src, dst, soff, doff, size, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueFillBuffer,
                   (cl_command_queue q, cl_mem m, const void *pattern, size_t psize,
                    size_t off, size_t size, cl_uint nwait, const cl_event *wait, cl_event *ev))
cl_int __wrap_clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pattern,
                                  size_t psize, size_t off, size_t size, cl_uint nwait,
                                  const cl_event *wait, cl_event *ev)
{
    cl_int err = __real_clEnqueueFillBuffer(q, m, pattern, psize, off, size, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueWriteBuffer,
                   (cl_command_queue q, cl_mem m, cl_bool block, size_t off, size_t size,
                    const void *p, cl_uint nwait, const cl_event *wait, cl_event *ev))
cl_int __wrap_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool block, size_t off,
                                   size_t size, const void *p, cl_uint nwait,
                                   const cl_event *wait, cl_event *ev)
{
    cl_int err = __real_clEnqueueWriteBuffer(q, m, block, off, size, p, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueReadBuffer,
                   (cl_command_queue q, cl_mem m, cl_bool block, size_t off, size_t size,
                    void *p, cl_uint nwait, const cl_event *wait, cl_event *ev))
cl_int __wrap_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool block, size_t off,
                                  size_t size, void *p, cl_uint nwait, const cl_event *wait,
                                  cl_event *ev)
{
    cl_int err = __real_clEnqueueReadBuffer(q, m, block, off, size, p, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}
CLSCAN_CYC_DECLARE(void *, clEnqueueMapBuffer,
                   (cl_command_queue q, cl_mem m, cl_bool block, cl_map_flags f, size_t off,
                    size_t size, cl_uint nwait, const cl_event *wait, cl_event *ev, cl_int *err))
void *__wrap_clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool block, cl_map_flags f,
                                size_t off, size_t size, cl_uint nwait, const cl_event *wait,
                                cl_event *ev, cl_int *err)
{
    void *p = __real_clEnqueueMapBuffer(q, m, block, f, off, size, nwait, wait, ev, err);
    if (p && ev)
        clscan_cyc_count(CLSCAN_CYC_EVENT, 1, 1);
    return p;
}
CLSCAN_CYC_DECLARE(cl_int, clEnqueueUnmapMemObject,
                   (cl_command_queue q, cl_mem m, void *p, cl_uint nwait, const cl_event *wait,
                    cl_event *ev))
cl_int __wrap_clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *p, cl_uint nwait,
                                      const cl_event *wait, cl_event *ev)
{
    cl_int err = __real_clEnqueueUnmapMemObject(q, m, p, nwait, wait, ev);
    CLSCAN_CYC_EVENT_OUT(err, ev);
    return err;
}

/* ------------------------------------------------------------ heap wraps ---- */

/* Host memory: malloc, calloc, realloc, free and strdup of this executable's objects (the
 * static libclscan's, tools/verify.c's, this file's) go through these wraps, which keep
 * each live block's size in a table, so clscan_cyc_heap_live is exactly the bytes those
 * objects hold. The OpenCL implementation's allocations (in shared libraries) are not
 * seen. A free of a block the wraps did not hand out (from an allocator not wrapped here)
 * is passed on and counted apart. */
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

enum { CLSCAN_CYC_HEAP_SLOTS = 1 << 18 }; /* a power of two */
/* Blocks are kept as their address XOR this (odd, so never 0 for an aligned block: 0 marks
 * a free slot), not as pointers: valgrind and LeakSanitizer must not take the table for a
 * reference that keeps a leaked block reachable. */
#define CLSCAN_CYC_HIDE ((uintptr_t)0x5bd1e995a5a5a5a5u)
static struct {
    uintptr_t key;
    size_t size;
} clscan_cyc_heap[CLSCAN_CYC_HEAP_SLOTS];
static long clscan_cyc_heap_live, clscan_cyc_heap_blocks, clscan_cyc_foreign_frees;
static int clscan_cyc_heap_full;
static pthread_mutex_t clscan_cyc_heap_lock = PTHREAD_MUTEX_INITIALIZER;

/* The table is open-addressed with linear probing; removal shifts later entries back, so
 * no tombstones build up. */
static size_t clscan_cyc_home(uintptr_t key)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 40) & (CLSCAN_CYC_HEAP_SLOTS - 1);
}

static void clscan_cyc_heap_add(void *p, size_t size)
{
    if (!p)
        return;
    pthread_mutex_lock(&clscan_cyc_heap_lock);
    if (clscan_cyc_heap_blocks >= CLSCAN_CYC_HEAP_SLOTS / 2) {
        clscan_cyc_heap_full = 1; /* the test fails on it */
    } else {
        const uintptr_t key = (uintptr_t)p ^ CLSCAN_CYC_HIDE;
        size_t i = clscan_cyc_home(key);
        while (clscan_cyc_heap[i].key)
            i = (i + 1) & (CLSCAN_CYC_HEAP_SLOTS - 1);
        clscan_cyc_heap[i].key = key;
        clscan_cyc_heap[i].size = size;
        clscan_cyc_heap_live += (long)size;
        clscan_cyc_heap_blocks++;
    }
    pthread_mutex_unlock(&clscan_cyc_heap_lock);
}

/* Forgets p, if the wraps handed it out; else counts a foreign free. */
static void clscan_cyc_heap_remove(void *p)
{
    const size_t mask = CLSCAN_CYC_HEAP_SLOTS - 1;
    pthread_mutex_lock(&clscan_cyc_heap_lock);
    const uintptr_t key = (uintptr_t)p ^ CLSCAN_CYC_HIDE;
    size_t i = clscan_cyc_home(key);
    while (clscan_cyc_heap[i].key && clscan_cyc_heap[i].key != key)
        i = (i + 1) & mask;
    if (!clscan_cyc_heap[i].key) {
        clscan_cyc_foreign_frees++;
    } else {
        clscan_cyc_heap_live -= (long)clscan_cyc_heap[i].size;
        clscan_cyc_heap_blocks--;
        clscan_cyc_heap[i].key = 0;
        /* Move back each later entry of the run whose home is not in (i, j]. */
        for (size_t j = (i + 1) & mask; clscan_cyc_heap[j].key; j = (j + 1) & mask) {
            size_t home = clscan_cyc_home(clscan_cyc_heap[j].key);
            if (((j - home) & mask) >= ((j - i) & mask)) {
                clscan_cyc_heap[i] = clscan_cyc_heap[j];
                clscan_cyc_heap[j].key = 0;
                i = j;
            }
        }
    }
    pthread_mutex_unlock(&clscan_cyc_heap_lock);
}

void *__wrap_malloc(size_t size)
{
    void *p = __real_malloc(size);
    clscan_cyc_heap_add(p, size);
    return p;
}

void *__wrap_calloc(size_t count, size_t size)
{
    void *p = __real_calloc(count, size);
    clscan_cyc_heap_add(p, count * size);
    return p;
}

void *__wrap_realloc(void *p, size_t size)
{
    if (!p)
        return __wrap_malloc(size);
    void *q = __real_realloc(p, size);
    if (q || size == 0) { /* p is gone (freed, or moved into q) */
        clscan_cyc_heap_remove(p);
        clscan_cyc_heap_add(q, size);
    }
    return q;
}

void __wrap_free(void *p)
{
    if (p)
        clscan_cyc_heap_remove(p);
    __real_free(p);
}

char *__wrap_strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *p = __wrap_malloc(len);
    if (p)
        memcpy(p, s, len);
    return p;
}

char *__wrap_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = __wrap_malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

static void clscan_cyc_heap_get(long *bytes, long *blocks)
{
    pthread_mutex_lock(&clscan_cyc_heap_lock);
    *bytes = clscan_cyc_heap_live;
    *blocks = clscan_cyc_heap_blocks;
    pthread_mutex_unlock(&clscan_cyc_heap_lock);
}

/* ------------------------------------------------------------ devices ------- */

/* The first device of each platform ($CLSCAN_TEST_PLATFORM: only platforms whose name
 * contains it, in any case), written into devs (at most cap); returns how many. */
static int clscan_cyc_devices(cl_device_id *devs, char (*names)[256], int cap)
{
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[16];
    cl_uint count = 0;
    int n = 0;
    if (clGetPlatformIDs(16, plats, &count) != CL_SUCCESS)
        count = 0;
    for (cl_uint p = 0; p < count && p < 16 && n < cap; p++) {
        char pname[128] = "", dname[120] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if ((want && !clscan_test_name_matches(pname, want)) ||
            clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &devs[n], NULL) != CL_SUCCESS)
            continue;
        clGetDeviceInfo(devs[n], CL_DEVICE_NAME, sizeof dname, dname, NULL);
        snprintf(names[n], sizeof names[n], "%s / %s", pname, dname);
        n++;
    }
    ck_assert_msg(n > 0, "no OpenCL device found%s%s%s: this test needs one",
                  want ? " on a platform matching CLSCAN_TEST_PLATFORM='" : "", want ? want : "",
                  want ? "'" : "");
    return n;
}

/* ------------------------------------------------------------ helpers ------- */

/* A positive whole number from the environment, or `fallback`. */
static long clscan_cyc_env_long(const char *name, long fallback)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return fallback;
    char *end;
    long v = strtol(s, &end, 10);
    ck_assert_msg(*end == '\0' && v > 0, "%s=%s: a positive whole number is needed", name, s);
    return v;
}

/* Resident set size in bytes, from /proc/self/statm. */
static long clscan_cyc_rss(void)
{
    long pages_total = 0, pages_resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    ck_assert_msg(f != NULL, "cannot open /proc/self/statm");
    ck_assert_int_eq(fscanf(f, "%ld %ld", &pages_total, &pages_resident), 2);
    fclose(f);
    return pages_resident * sysconf(_SC_PAGESIZE);
}

static double clscan_cyc_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void clscan_cyc_snapshot(long *out)
{
    for (int k = 0; k < CLSCAN_CYC_KINDS; k++)
        out[k] = atomic_load(&clscan_cyc_live[k]);
}

/* Fails naming each kind whose live count differs from the baseline. */
static void clscan_cyc_expect_baseline(const long *base, const char *dev, long cycle,
                                       const char *when)
{
    long now[CLSCAN_CYC_KINDS];
    clscan_cyc_snapshot(now);
    char diff[512] = "";
    size_t len = 0;
    for (int k = 0; k < CLSCAN_CYC_KINDS; k++)
        if (now[k] != base[k] && len < sizeof diff)
            len += (size_t)snprintf(diff + len, sizeof diff - len, " %s %+ld",
                                    clscan_cyc_kind_names[k], now[k] - base[k]);
    ck_assert_msg(len == 0, "%s: cycle %ld, %s: live OpenCL references differ from before the "
                  "first cycle:%s", dev, cycle, when, diff);
}

/* ------------------------------------------------------------ the test ------ */

/* Elements per call: a few tiles on a CPU, one or two on a GPU. */
enum { CLSCAN_CYC_N = 3001 };
/* Resident memory is sampled from this cycle on, once allocator pools, the OpenCL
 * implementation's caches and the test's own buffers have settled. */
enum { CLSCAN_CYC_SETTLED = 500 };
/* Resident memory may grow from cycle CLSCAN_CYC_SETTLED to the end by a fixed slack (what
 * malloc's arenas and the implementation's pools may move their high-water mark by) plus
 * an allowance per program the library built, for what the OpenCL implementation itself
 * keeps of every program built until the process ends. Measured (10,000 cycles, two
 * programs each): PoCL 3.1 grows by 1.7 KiB per program, all of it inside PoCL (valgrind:
 * LLVM metadata allocated under pocl_driver_build_binary -> llvm::parseBitcodeFile, in
 * its process-wide LLVMContext, never freed); Mesa 22.3 rusticl loses about 0.5 KiB per
 * program (valgrind: "definitely lost" in libRusticlOpenCL). libclscan's own share is
 * checked exactly, not by this bound: every cycle must hand back every OpenCL object and
 * every byte of host memory it took (the wraps above). */
#define CLSCAN_CYC_RSS_SLACK (4L << 20)
#define CLSCAN_CYC_RSS_PER_BUILD (4L << 10)

/* Host memory held through the wraps after cycle 0 (one-time state of the process, such
 * as the thread's error record, is allocated then) is the baseline of the later cycles. */
static void clscan_cyc_expect_heap(long base_bytes, long base_blocks, const char *dev,
                                   long cycle)
{
    long bytes, blocks;
    clscan_cyc_heap_get(&bytes, &blocks);
    ck_assert_msg(!clscan_cyc_heap_full, "the heap table of the wraps is full");
    ck_assert_msg(bytes == base_bytes && blocks == base_blocks,
                  "%s: cycle %ld, after clscan_context_release: the library and test hold %+ld "
                  "bytes in %+ld blocks of host memory more than after cycle 0", dev, cycle,
                  bytes - base_bytes, blocks - base_blocks);
}

/* Every cycle: clscan_context_create, an exclusive scan and a select_if of 3001 uint32
 * (the select in place on odd cycles, through the library's temporary copy), wait for
 * both, check both against the host reference, release the events and the context; then
 * every kind of OpenCL object must be back at its count from before the first cycle, and
 * host memory (malloc & co. of libclscan and this test) at its amount after cycle 0.
 * $CLSCAN_TEST_CYCLES sets the count (default 10,000); resident memory is checked when
 * it is at least 2 x CLSCAN_CYC_SETTLED. */
START_TEST(test_cycles)
{
    const uint64_t seed = clscan_test_seed(20261124u);
    const long cycles = clscan_cyc_env_long("CLSCAN_TEST_CYCLES", 10000);
    const clscan_verify_predicate *pred = &clscan_verify_predicates[0]; /* (x & 1) == 0 */
    ck_assert_str_eq(pred->text, "(x & 1) == 0");
    cl_device_id devs[16];
    char names[16][256];
    int ndev = clscan_cyc_devices(devs, names, 16);
    enum { N = CLSCAN_CYC_N };
    const size_t bytes = N * sizeof(cl_uint);
    cl_uint *in = malloc(bytes), *got = malloc(bytes), *want_sel = malloc(bytes);
    ck_assert(in && got && want_sel);
    clscan_verify_fill(in, N, CLSCAN_UINT32, CLSCAN_OP_ADD, clscan_verify_mix(seed, 1));
    clscan_verify_ref *ref = clscan_verify_reference(CLSCAN_UINT32, CLSCAN_OP_ADD, 0, in, N);
    ck_assert_ptr_nonnull(ref);
    const size_t kept = clscan_verify_compact_reference(CLSCAN_VERIFY_SELECT_IF, CLSCAN_UINT32,
                                                        pred, in, NULL, N, want_sel);
    ck_assert_msg(kept > 0 && kept < N, "the input keeps %zu of %d: pick another seed", kept, N);

    for (int di = 0; di < ndev; di++) {
        const char *dev = names[di];
        cl_int err;
        cl_context cl_ctx = clCreateContext(NULL, 1, &devs[di], NULL, NULL, &err);
        ck_assert_msg(cl_ctx != NULL, "%s: clCreateContext: %s", dev, clscan_status_string(err));
        cl_command_queue q = clCreateCommandQueue(cl_ctx, devs[di], 0, &err);
        ck_assert_msg(q != NULL, "%s: clCreateCommandQueue: %s", dev, clscan_status_string(err));
        cl_mem src = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, in,
                                    &err);
        cl_mem scanned = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        cl_mem work = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        cl_mem count = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, 8, NULL, &err);
        ck_assert_msg(src && scanned && work && count, "%s: clCreateBuffer", dev);

        long base[CLSCAN_CYC_KINDS], created_before[CLSCAN_CYC_KINDS];
        clscan_cyc_snapshot(base);
        for (int k = 0; k < CLSCAN_CYC_KINDS; k++)
            created_before[k] = atomic_load(&clscan_cyc_created[k]);
        long heap_bytes = 0, heap_blocks = 0, heap_before, blocks_before;
        clscan_cyc_heap_get(&heap_before, &blocks_before);
        long rss_settled = 0, rss_max = 0, builds_settled = 0;
        double t0 = clscan_cyc_now(), t_settled = t0;
        for (long cycle = 0; cycle < cycles; cycle++) {
            const int in_place = (int)(cycle & 1);
            clscan_context *ctx = NULL;
            clscan_status st = clscan_context_create(cl_ctx, devs[di], &ctx);
            ck_assert_msg(st == CLSCAN_SUCCESS, "%s: cycle %ld: clscan_context_create: %s: %s",
                          dev, cycle, clscan_status_string(st), clscan_context_last_error(NULL));
            cl_event ev[3] = {NULL, NULL, NULL};
            st = clscan_exclusive_scan(ctx, q, src, 0, scanned, 0, N, CLSCAN_UINT32,
                                       CLSCAN_OP_ADD, 0, NULL, &ev[0]);
            ck_assert_msg(st == CLSCAN_SUCCESS, "%s: cycle %ld: scan: %s: %s", dev, cycle,
                          clscan_status_string(st), clscan_context_last_error(ctx));
            /* The select reads src, or (in place) a fresh copy of it in work. */
            cl_mem sel_src = src;
            if (in_place) {
                ck_assert_int_eq(clEnqueueCopyBuffer(q, src, work, 0, 0, bytes, 0, NULL, &ev[1]),
                                 CL_SUCCESS);
                sel_src = work;
            }
            st = clscan_select_if(ctx, q, sel_src, 0, work, 0, count, N, CLSCAN_UINT32,
                                  pred->text, ev[1] ? 1 : 0, ev[1] ? &ev[1] : NULL, &ev[2]);
            ck_assert_msg(st == CLSCAN_SUCCESS, "%s: cycle %ld: select_if%s: %s: %s", dev, cycle,
                          in_place ? " in place" : "", clscan_status_string(st),
                          clscan_context_last_error(ctx));
            for (int e = 0; e < 3; e++) {
                const char *step = "";
                err = ev[e] ? clscan_verify_wait(ev[e], &step) : CL_SUCCESS;
                ck_assert_msg(err == CL_SUCCESS, "%s: cycle %ld: %s: %s", dev, cycle, step,
                              clscan_status_string(err));
            }
            if (cycle == 0) { /* the wraps see the library's objects and memory */
                /* (Not buffers: a multi-level scan or compaction that one work-group does,
                 * as on rusticl at this size, needs no scratch buffer at all.) */
                const int kinds[] = {CLSCAN_CYC_PROGRAM, CLSCAN_CYC_KERNEL, CLSCAN_CYC_EVENT};
                for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
                    ck_assert_msg(atomic_load(&clscan_cyc_live[kinds[k]]) > base[kinds[k]],
                                  "%s: a live context holds no %s: the link-time wraps do not "
                                  "see the library's OpenCL calls", dev,
                                  clscan_cyc_kind_names[kinds[k]]);
                long live, blocks;
                clscan_cyc_heap_get(&live, &blocks);
                ck_assert_msg(blocks > blocks_before, "%s: a live context holds no host memory: "
                              "the link-time wraps do not see the library's malloc", dev);
            }

            char msg[512];
            ck_assert_int_eq(clEnqueueReadBuffer(q, scanned, CL_TRUE, 0, bytes, got, 0, NULL,
                                                 NULL), CL_SUCCESS);
            ck_assert_msg(clscan_verify_compare(ref, got, msg, sizeof msg),
                          "%s: cycle %ld: scan (seed %" PRIu64 "): %s", dev, cycle, seed, msg);
            cl_ulong n_kept = 0;
            ck_assert_int_eq(clEnqueueReadBuffer(q, count, CL_TRUE, 0, 8, &n_kept, 0, NULL,
                                                 NULL), CL_SUCCESS);
            ck_assert_int_eq(clEnqueueReadBuffer(q, work, CL_TRUE, 0, kept * sizeof(cl_uint),
                                                 got, 0, NULL, NULL), CL_SUCCESS);
            ck_assert_msg(n_kept == kept && !memcmp(got, want_sel, kept * sizeof(cl_uint)),
                          "%s: cycle %ld: select_if%s (seed %" PRIu64 "): count %llu (want "
                          "%zu) or the elements differ", dev, cycle, in_place ? " in place" : "",
                          seed, (unsigned long long)n_kept, kept);

            for (int e = 0; e < 3; e++)
                if (ev[e])
                    clReleaseEvent(ev[e]);
            clscan_context_release(ctx);
            clscan_cyc_expect_baseline(base, dev, cycle, "after clscan_context_release");
            if (cycle == 0) {
                clscan_cyc_heap_get(&heap_bytes, &heap_blocks);
                fprintf(stderr, "%s: after cycle 0, %+ld bytes in %+ld blocks of host memory "
                        "stay (one-time state)\n", dev, heap_bytes - heap_before,
                        heap_blocks - blocks_before);
            } else {
                clscan_cyc_expect_heap(heap_bytes, heap_blocks, dev, cycle);
            }

            long rss = clscan_cyc_rss();
            if (cycle == CLSCAN_CYC_SETTLED) {
                rss_settled = rss;
                t_settled = clscan_cyc_now();
                builds_settled = atomic_load(&clscan_cyc_created[CLSCAN_CYC_PROGRAM]);
            }
            if (cycle >= CLSCAN_CYC_SETTLED && rss > rss_max)
                rss_max = rss;
            if ((cycle + 1) % 1000 == 0 || cycle + 1 == cycles)
                fprintf(stderr, "%s: %ld cycles, %.1f s, resident %.1f MiB\n", dev, cycle + 1,
                        clscan_cyc_now() - t0, (double)rss / (1 << 20));
        }
        double t1 = clscan_cyc_now();
        fprintf(stderr, "%s: %ld cycles in %.1f s (%.2f ms each from cycle %d on); per cycle "
                "the library and test created", dev, cycles, t1 - t0,
                cycles > CLSCAN_CYC_SETTLED + 1
                    ? 1e3 * (t1 - t_settled) / (double)(cycles - CLSCAN_CYC_SETTLED - 1)
                    : 1e3 * (t1 - t0) / (double)cycles,
                CLSCAN_CYC_SETTLED);
        for (int k = 0; k < CLSCAN_CYC_KINDS; k++)
            fprintf(stderr, " %.1f %s", (double)(atomic_load(&clscan_cyc_created[k]) -
                                                 created_before[k]) / (double)cycles,
                    clscan_cyc_kind_names[k]);
        fprintf(stderr, "; %ld frees of blocks from allocators not wrapped\n",
                clscan_cyc_foreign_frees);
        if (cycles >= 2 * CLSCAN_CYC_SETTLED) {
            const long builds =
                atomic_load(&clscan_cyc_created[CLSCAN_CYC_PROGRAM]) - builds_settled;
            const long allowed = CLSCAN_CYC_RSS_SLACK + builds * CLSCAN_CYC_RSS_PER_BUILD;
            fprintf(stderr, "%s: resident %.1f MiB at cycle %d, at most %.1f MiB after: "
                    "%+.1f MiB, %.2f KiB per program built (%ld built; allowed: %.1f MiB)\n",
                    dev, (double)rss_settled / (1 << 20), CLSCAN_CYC_SETTLED,
                    (double)rss_max / (1 << 20), (double)(rss_max - rss_settled) / (1 << 20),
                    builds ? (double)(rss_max - rss_settled) / 1024.0 / (double)builds : 0.0,
                    builds, (double)allowed / (1 << 20));
            ck_assert_msg(rss_max - rss_settled <= allowed,
                          "%s: resident memory grew by %.1f MiB between cycle %d and %ld "
                          "(allowed: %.1f MiB: %.1f MiB and %ld KiB for each of the %ld "
                          "programs built)", dev, (double)(rss_max - rss_settled) / (1 << 20),
                          CLSCAN_CYC_SETTLED, cycles, (double)allowed / (1 << 20),
                          (double)CLSCAN_CYC_RSS_SLACK / (1 << 20),
                          CLSCAN_CYC_RSS_PER_BUILD >> 10, builds);
        } else {
            fprintf(stderr, "%s: %ld cycles: too few to judge resident memory (at least %d)\n",
                    dev, cycles, 2 * CLSCAN_CYC_SETTLED);
        }
        clReleaseMemObject(src);
        clReleaseMemObject(scanned);
        clReleaseMemObject(work);
        clReleaseMemObject(count);
        clReleaseCommandQueue(q);
        clReleaseContext(cl_ctx);
    }
    clscan_verify_ref_free(ref);
    free(in);
    free(got);
    free(want_sel);
}
END_TEST

/* $CLSCAN_TEST_PREDICATES (default 10,000) distinct predicates on one context of each
 * device, each select_if checked against the host: once the program cache is full
 * (max_programs, default 512) what the library holds stays flat: live OpenCL programs and
 * kernels at most the cap's, and the library's heap within 1 MiB of where it was after
 * 1.5 times the cap (a program took 0.6 MB on PoCL, 1.9 MB on rusticl, so without the cap
 * 10,000 would take gigabytes). Prints the resident set (the driver's memory included,
 * which the wraps do not see) and malloc's bytes in use as it goes. */
START_TEST(test_predicates)
{
    const long count = clscan_cyc_env_long("CLSCAN_TEST_PREDICATES", 10000);
    cl_device_id devs[16];
    char names[16][256];
    const int ndev = clscan_cyc_devices(devs, names, 16);
    enum { N = 256 };
    cl_uint in[N];
    for (int k = 0; k < N; ++k) in[k] = (cl_uint)((k * 7919) % 20011);
    for (int di = 0; di < ndev; di++) {
        cl_int err;
        cl_context cl_ctx = clCreateContext(NULL, 1, &devs[di], NULL, NULL, &err);
        ck_assert_msg(cl_ctx != NULL, "%s: clCreateContext", names[di]);
        cl_command_queue q = clCreateCommandQueue(cl_ctx, devs[di], 0, &err);
        ck_assert_msg(q != NULL, "%s: clCreateCommandQueue", names[di]);
        cl_mem src = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof in,
                                    in, &err);
        cl_mem dst = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
        cl_mem cnt = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, 8, NULL, &err);
        ck_assert_msg(src && dst && cnt, "%s: clCreateBuffer", names[di]);
        clscan_context *ctx = NULL;
        ck_assert_int_eq(clscan_context_create(cl_ctx, devs[di], &ctx), CLSCAN_SUCCESS);
        const long cap = (long)ctx->target.profile.max_programs;
        const long settle = cap + cap / 2;
        long rss_settled = 0, rss_max = 0, heap_settled = 0, heap_max = 0, blocks;
        const double t0 = clscan_cyc_now();
        for (long k = 0; k < count; ++k) {
            char pred[48];
            const cl_uint bound = (cl_uint)(k % 20011);
            snprintf(pred, sizeof pred, "x > %uu && i != %ld", bound, k + N);
            ck_assert_int_eq(clscan_select_if(ctx, q, src, 0, dst, 0, cnt, N, CLSCAN_UINT32, pred,
                                              0, NULL, NULL),
                             CLSCAN_SUCCESS);
            cl_ulong kept = 0, want = 0;
            ck_assert_int_eq(clEnqueueReadBuffer(q, cnt, CL_TRUE, 0, 8, &kept, 0, NULL, NULL),
                             CL_SUCCESS);
            for (int e = 0; e < N; ++e) want += in[e] > bound;
            ck_assert_msg(kept == want, "%s: %s kept %llu, expected %llu", names[di], pred,
                          (unsigned long long)kept, (unsigned long long)want);
            ck_assert_msg(ctx->program_count <= (size_t)cap, "%s: %zu programs kept", names[di],
                          ctx->program_count);
            const long rss = clscan_cyc_rss();
            long heap;
            clscan_cyc_heap_get(&heap, &blocks);
            if (k + 1 == settle) {
                rss_settled = rss;
                heap_settled = heap;
            }
            if (k + 1 >= settle && rss > rss_max) rss_max = rss;
            if (k + 1 >= settle && heap > heap_max) heap_max = heap;
            ck_assert_msg(atomic_load(&clscan_cyc_live[CLSCAN_CYC_PROGRAM]) <= cap,
                          "%s: %ld live programs", names[di],
                          (long)atomic_load(&clscan_cyc_live[CLSCAN_CYC_PROGRAM]));
            if ((k + 1) % 1000 == 0 || k + 1 == count || k + 1 == cap || k + 1 == settle)
            {
                const struct mallinfo2 mi = mallinfo2();
                fprintf(stderr, "%s: %ld predicates, %.1f s, %zu programs kept, RSS %.1f MiB, "
                        "malloc in use %.1f MiB\n",
                        names[di], k + 1, clscan_cyc_now() - t0, ctx->program_count,
                        (double)rss / (1 << 20), (double)(mi.uordblks + mi.hblkhd) / (1 << 20));
            }
        }
        if (count > settle) {
            fprintf(stderr, "%s: after %ld predicates (cap %ld): the library's heap %+.1f KiB, "
                    "the resident set %+.1f MiB; live now: %ld programs, %ld kernels, %ld "
                    "events, %ld buffers\n", names[di], settle, cap,
                    (double)(heap_max - heap_settled) / 1024, (double)(rss_max - rss_settled) / (1 << 20),
                    (long)atomic_load(&clscan_cyc_live[CLSCAN_CYC_PROGRAM]),
                    (long)atomic_load(&clscan_cyc_live[CLSCAN_CYC_KERNEL]),
                    (long)atomic_load(&clscan_cyc_live[CLSCAN_CYC_EVENT]),
                    (long)atomic_load(&clscan_cyc_live[CLSCAN_CYC_BUFFER]));
            ck_assert_msg(heap_max - heap_settled <= (1L << 20),
                          "%s: the library's heap grew by %.1f KiB after %ld predicates (cap %ld)",
                          names[di], (double)(heap_max - heap_settled) / 1024, settle, cap);
        }
        clscan_context_release(ctx);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(cnt);
        clReleaseCommandQueue(q);
        clReleaseContext(cl_ctx);
    }
}
END_TEST

static Suite *clscan_cyc_suite(void)
{
    Suite *s = suite_create("cycles");
    TCase *tc = tcase_create("cycles");
    tcase_add_test(tc, test_cycles);
    suite_add_tcase(s, tc);
    /* (meson: 'cycles' runs the case above, 'program-cache-flat' this one.) */
    TCase *tp = tcase_create("predicates");
    tcase_add_test(tp, test_predicates);
    suite_add_tcase(s, tp);
    return s;
}

int main(void)
{
    return clscan_test_run(clscan_cyc_suite());
}
