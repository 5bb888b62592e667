/* launch.c - what every enqueueing call shares: argument checks for queues and buffer
 * ranges, the chain of commands of one call (wait lists, events, scratch, tracing for
 * the tools), and the marker an empty call enqueues. */
/* SPDX-License-Identifier: MIT */
#include "runtime/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------------- validation -- */

/* A device buffer of `bytes` for the library's own use (`what` names it in messages);
 * a request above the device's largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE, or
 * CLSCAN_MAX_MEM_ALLOC_SIZE) is refused before OpenCL is asked. */
clscan_status clscan__create_buffer(clscan_context *ctx, size_t bytes, const char *what,
                                    cl_mem *out)
{
    *out = NULL;
    CLSCAN__RETURN_IF(ctx, (cl_ulong)bytes > ctx->target.profile.max_alloc,
                     CLSCAN_ERROR_OUT_OF_RESOURCES,
                     "%s needs %zu bytes, more than the device's largest allocation "
                     "(CL_DEVICE_MAX_MEM_ALLOC_SIZE) of %llu bytes",
                     what, bytes, (unsigned long long)ctx->target.profile.max_alloc);
    cl_int err;
    *out = clCreateBuffer(ctx->target.cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        char msg[160];
        snprintf(msg, sizeof msg, "clCreateBuffer of %zu bytes (%s)", bytes, what);
        return clscan__fail_cl(ctx, err, msg);
    }
    return CLSCAN_SUCCESS;
}

/* ----------------------------------------------------------------- dispatch -- */


clscan_status clscan__enqueue(clscan__launch *l, cl_kernel k, size_t groups, size_t wg_size,
                             const char *what)
{
    size_t global = groups * wg_size;
    cl_event ev = NULL;
    cl_int err = clEnqueueNDRangeKernel(l->queue, k, 1, NULL, &global, &wg_size, l->nwait,
                                        l->wait, l->events ? &ev : NULL);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, what);
    clscan__launch_chain(l, ev);
    return CLSCAN_SUCCESS;
}

void clscan__launch_chain(clscan__launch *l, cl_event ev)
{
    clscan__trace_event(ev);
    if (l->last) clReleaseEvent(l->last);
    l->last = ev;
    l->unevented = ev == NULL;
    if (l->in_order) {
        l->nwait = 0;
        l->wait = NULL;
    } else {
        l->nwait = 1;
        l->wait = &l->last;
    }
}

clscan_status clscan__launch_begin(clscan__launch *l, clscan_context *ctx,
                                   cl_command_queue queue, bool in_order, cl_uint nwait,
                                   const cl_event *wait, size_t scratch_bytes,
                                   const cl_event *event)
{
    memset(l, 0, sizeof *l);
    l->ctx = ctx;
    l->queue = queue;
    l->in_order = in_order;
    l->events = !in_order || event != NULL || clscan__tracing();
    l->nwait = nwait;
    l->wait = wait;
    if (!scratch_bytes) return CLSCAN_SUCCESS;
    clscan_status s = clscan__scratch_acquire(ctx, queue, in_order, scratch_bytes,
                                              &l->scratch, &l->scratch_wait);
    if (s != CLSCAN_SUCCESS) return s;
    if (l->scratch_wait) { /* the first command also waits for the scratch's last use */
        l->first_wait = malloc((nwait + 1) * sizeof *l->first_wait);
        if (!l->first_wait) {
            clscan__launch_end(l, CLSCAN_ERROR_OUT_OF_RESOURCES, NULL);
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
        }
        if (nwait) memcpy(l->first_wait, wait, nwait * sizeof *wait);
        l->first_wait[nwait] = l->scratch_wait;
        l->nwait = nwait + 1;
        l->wait = l->first_wait;
    }
    return CLSCAN_SUCCESS;
}

clscan_status clscan__launch_end(clscan__launch *l, clscan_status s, cl_event *event)
{
    if (l->scratch_wait) clReleaseEvent(l->scratch_wait);
    free(l->first_wait);
    if (l->scratch)
        clscan__scratch_release(l->ctx, l->scratch, l->queue, l->last, l->unevented);
    if (s == CLSCAN_SUCCESS && event) *event = l->last;
    else if (l->last) clReleaseEvent(l->last);
    l->scratch_wait = NULL;
    l->first_wait = NULL;
    l->scratch = NULL;
    l->last = NULL;
    return s;
}

clscan_status clscan__enqueue_copy_input(clscan__launch *l, cl_mem src, size_t offset,
                                         size_t bytes, cl_mem *copy)
{
    clscan_status s = clscan__create_buffer(l->ctx, bytes, "the in-place input's copy", copy);
    if (s != CLSCAN_SUCCESS) return s;
    cl_event ev = NULL;
    cl_int err = clEnqueueCopyBuffer(l->queue, src, *copy, offset, 0, bytes, l->nwait, l->wait,
                                     l->events ? &ev : NULL);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clEnqueueCopyBuffer");
    clscan__launch_chain(l, ev);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__enqueue_clear(clscan__launch *l, clscan__program *prog, cl_mem buf,
                                    cl_ulong n)
{
    const size_t wg = prog->config.wg_size;
    size_t groups = (size_t)((n + wg - 1) / wg);
    if (groups > 1024) groups = 1024; /* (each work-item loops over the rest) */
    if (groups < 1) groups = 1;
    clscan__kernel_args a = clscan__args_begin(prog->kernels[CLSCAN__K_CLEAR], 0);
    CLSCAN__ARG(a, buf);
    CLSCAN__ARG(a, n);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(clear_words)");
    return clscan__enqueue(l, prog->kernels[CLSCAN__K_CLEAR], groups, wg, "enqueue clear_words");
}

clscan_status clscan__enqueue_zero_count(clscan_context *ctx, cl_command_queue queue,
                                         cl_mem count, cl_uint nwait, const cl_event *wait,
                                         cl_event *event)
{
    static const cl_ulong zero = 0;
    CLSCAN__FORWARD_CL(ctx,
                       clEnqueueFillBuffer(queue, count, &zero, sizeof zero, 0, sizeof zero,
                                           nwait, wait, event),
                       "clEnqueueFillBuffer(count)");
    return CLSCAN_SUCCESS;
}

clscan_status clscan__enqueue_marker(clscan_context *ctx, cl_command_queue queue,
                                     cl_uint nwait, const cl_event *wait, cl_event *event)
{
    if (!event && nwait == 0) return CLSCAN_SUCCESS;
    cl_event marker = NULL;
    /* With a wait list and no event the marker still orders later commands on an
     * in-order queue after the wait list, as a kernel would have. */
    CLSCAN__FORWARD_CL(ctx, clEnqueueMarkerWithWaitList(queue, nwait, wait, &marker),
                      "clEnqueueMarkerWithWaitList");
    if (event) *event = marker;
    else clReleaseEvent(marker);
    return CLSCAN_SUCCESS;
}

cl_uint clscan__stream_flag(const clscan_context *ctx, size_t n, size_t in_size,
                            size_t out_size)
{
    const cl_ulong bytes = (cl_ulong)n * (in_size + out_size);
    return bytes >= ctx->target.profile.global_cache_size ? CLSCAN__CARRY_FLAG_STREAM : 0u;
}
