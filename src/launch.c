/* launch.c - what every enqueueing call shares: argument checks for queues and buffer
 * ranges, the chain of commands of one call (wait lists, events, scratch, tracing for
 * the tools), and the marker an empty call enqueues. */
#include "clscan_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ tracing -- */

static _Thread_local cl_event *trace_buf;
static _Thread_local size_t trace_cap;
static _Thread_local size_t *trace_count;

void clscan__trace_events(cl_event *trace, size_t cap, size_t *count)
{
    trace_buf = trace;
    trace_cap = cap;
    trace_count = count;
    if (count) *count = 0;
}

static _Thread_local cl_mem lookback_stats;

void clscan__lookback_stats(cl_mem stats) { lookback_stats = stats; }
cl_mem clscan__lookback_stats_buffer(void) { return lookback_stats; }

static void trace(cl_event e)
{
    if (trace_buf && trace_count && *trace_count < trace_cap && e) {
        clRetainEvent(e);
        trace_buf[(*trace_count)++] = e;
    }
}

/* --------------------------------------------------------------- validation -- */

clscan_status clscan__check_range(const clscan_context *ctx, cl_mem mem, const char *name,
                                 size_t offset, size_t n, size_t elem)
{
    CLSCAN_RETURN_IF(ctx, mem == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "%s is NULL", name);
    size_t bytes = 0;
    cl_context owner = NULL;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    CLSCAN_RETURN_IF(ctx, err != CL_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s is not a valid buffer (%s)", name, clscan_status_string(err));
    CLSCAN_RETURN_IF(ctx, owner != ctx->cl_ctx, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s belongs to another cl_context than the clscan context", name);
    CLSCAN_RETURN_IF(ctx, offset > SIZE_MAX - n || offset + n > SIZE_MAX / elem,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s: offset %zu + n %zu elements overflows a size_t byte count", name,
                     offset, n);
    CLSCAN_RETURN_IF(ctx, (offset + n) * elem > bytes, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s: elements [%zu, %zu) of %zu bytes each need %zu bytes, but the "
                     "buffer has %zu",
                     name, offset, offset + n, elem, (offset + n) * elem, bytes);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_type_op(const clscan_context *ctx, clscan_type type, clscan_op op)
{
    CLSCAN_RETURN_IF(ctx, !clscan__type_valid((int)type), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "type %d is not a clscan_type", (int)type);
    CLSCAN_RETURN_IF(ctx, !clscan__op_valid((int)op), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "op %d is not a clscan_op", (int)op);
    CLSCAN_RETURN_IF(ctx, clscan__type_is_float(type) && op >= CLSCAN_OP_AND,
                     CLSCAN_ERROR_UNSUPPORTED, "operator %s is not defined on %s",
                     clscan_op_name(op), clscan_type_name(type));
    CLSCAN_RETURN_IF(ctx, type == CLSCAN_DOUBLE && !ctx->profile.fp64,
                     CLSCAN_ERROR_UNSUPPORTED, "device %s has no double precision (fp64)",
                     ctx->profile.device_name);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_call(const clscan_context *ctx, cl_command_queue queue,
                                clscan_type type, clscan_op op, cl_uint nwait,
                                const cl_event *wait, int *in_order)
{
    clscan_status s = clscan__check_context(ctx);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN_RETURN_IF(ctx, queue == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "queue is NULL");
    s = clscan__check_type_op(ctx, type, op);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN_RETURN_IF(ctx, (nwait == 0) != (wait == NULL), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "event wait list: %u events but the list is %s", nwait,
                     wait ? "not NULL" : "NULL");
    for (cl_uint i = 0; i < nwait; ++i) {
        cl_context ectx = NULL;
        CLSCAN_RETURN_IF(ctx, wait[i] == NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "event_wait_list[%u] is NULL", i);
        cl_int e = clGetEventInfo(wait[i], CL_EVENT_CONTEXT, sizeof ectx, &ectx, NULL);
        CLSCAN_RETURN_IF(ctx, e != CL_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "event_wait_list[%u] is not a valid event (%s)", i,
                         clscan_status_string(e));
        CLSCAN_RETURN_IF(ctx, ectx != ctx->cl_ctx, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "event_wait_list[%u] belongs to another cl_context than the clscan "
                         "context", i);
    }

    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    CLSCAN_RETURN_IF(ctx, err != CL_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "queue is not a valid command queue (%s)", clscan_status_string(err));
    CLSCAN_RETURN_IF(ctx, qctx != ctx->cl_ctx || qdev != ctx->device,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "queue belongs to another cl_context or device than the clscan context");
    *in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    return CLSCAN_SUCCESS;
}

/* A device buffer of `bytes` for the library's own use (`what` names it in messages);
 * a request above the device's largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE, or
 * CLSCAN_MAX_MEM_ALLOC_SIZE) is refused before OpenCL is asked. */
clscan_status clscan__create_buffer(clscan_context *ctx, size_t bytes, const char *what,
                                    cl_mem *out)
{
    *out = NULL;
    CLSCAN_RETURN_IF(ctx, (cl_ulong)bytes > ctx->profile.max_alloc,
                     CLSCAN_ERROR_OUT_OF_RESOURCES,
                     "%s needs %zu bytes, more than the device's largest allocation "
                     "(CL_DEVICE_MAX_MEM_ALLOC_SIZE) of %llu bytes",
                     what, bytes, (unsigned long long)ctx->profile.max_alloc);
    cl_int err;
    *out = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        char msg[160];
        snprintf(msg, sizeof msg, "clCreateBuffer of %zu bytes (%s)", bytes, what);
        return clscan__fail_cl(ctx, err, msg);
    }
    return CLSCAN_SUCCESS;
}

/* ----------------------------------------------------------------- dispatch -- */


clscan_status clscan__enqueue(clscan_launch *l, cl_kernel k, size_t groups, size_t wg_size,
                             const char *what)
{
    size_t global = groups * wg_size;
    cl_event ev = NULL;
    cl_int err = clEnqueueNDRangeKernel(l->queue, k, 1, NULL, &global, &wg_size, l->nwait,
                                        l->wait, &ev);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, what);
    clscan__launch_chain(l, ev);
    return CLSCAN_SUCCESS;
}

void clscan__launch_chain(clscan_launch *l, cl_event ev)
{
    trace(ev);
    if (l->last) clReleaseEvent(l->last);
    l->last = ev;
    if (l->in_order) {
        l->nwait = 0;
        l->wait = NULL;
    } else {
        l->nwait = 1;
        l->wait = &l->last;
    }
}

clscan_status clscan__launch_begin(clscan_launch *l, clscan_context *ctx,
                                   cl_command_queue queue, int in_order, cl_uint nwait,
                                   const cl_event *wait, size_t scratch_bytes)
{
    memset(l, 0, sizeof *l);
    l->ctx = ctx;
    l->queue = queue;
    l->in_order = in_order;
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

clscan_status clscan__launch_end(clscan_launch *l, clscan_status s, cl_event *event)
{
    if (l->scratch_wait) clReleaseEvent(l->scratch_wait);
    free(l->first_wait);
    if (l->scratch) clscan__scratch_release(l->ctx, l->scratch, l->queue, l->last);
    if (s == CLSCAN_SUCCESS && event) *event = l->last;
    else if (l->last) clReleaseEvent(l->last);
    l->scratch_wait = NULL;
    l->first_wait = NULL;
    l->scratch = NULL;
    l->last = NULL;
    return s;
}

clscan_status clscan__enqueue_copy_input(clscan_launch *l, cl_mem src, size_t offset,
                                         size_t bytes, cl_mem *copy)
{
    clscan_status s = clscan__create_buffer(l->ctx, bytes, "the in-place input's copy", copy);
    if (s != CLSCAN_SUCCESS) return s;
    cl_event ev = NULL;
    cl_int err = clEnqueueCopyBuffer(l->queue, src, *copy, offset, 0, bytes, l->nwait, l->wait,
                                     &ev);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clEnqueueCopyBuffer");
    clscan__launch_chain(l, ev);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__enqueue_marker(clscan_context *ctx, cl_command_queue queue,
                                     cl_uint nwait, const cl_event *wait, cl_event *event)
{
    if (!event && nwait == 0) return CLSCAN_SUCCESS;
    cl_event marker = NULL;
    /* With a wait list and no event the marker still orders later commands on an
     * in-order queue after the wait list, as a kernel would have. */
    CLSCAN_FORWARD_CL(ctx, clEnqueueMarkerWithWaitList(queue, nwait, wait, &marker),
                      "clEnqueueMarkerWithWaitList");
    if (event) *event = marker;
    else clReleaseEvent(marker);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_in_place(const clscan_context *ctx, cl_mem src, size_t src_offset,
                                     cl_mem dst, size_t dst_offset, size_t n)
{
    CLSCAN_RETURN_IF(ctx,
                     src == dst && src_offset != dst_offset &&
                         (src_offset < dst_offset ? dst_offset - src_offset
                                                  : src_offset - dst_offset) < n,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "src and dst overlap without being the same range (offsets %zu and "
                     "%zu, n %zu); only exact in-place use is allowed",
                     src_offset, dst_offset, n);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_disjoint(const clscan_context *ctx, cl_mem a, const char *a_name,
                                     size_t a_off, size_t a_len, cl_mem b, const char *b_name,
                                     size_t b_off, size_t b_len)
{
    CLSCAN_RETURN_IF(ctx,
                     a == b && a_len && b_len && a_off < b_off + b_len && b_off < a_off + a_len,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s (bytes [%zu, %zu)) and %s (bytes [%zu, %zu)) overlap in one buffer",
                     a_name, a_off, a_off + a_len, b_name, b_off, b_off + b_len);
    return CLSCAN_SUCCESS;
}

/* ------------------------------------------------------------------- carry --- */

/* Zeros for the by-value carry-in of a call without one (the largest element type). */
static const unsigned char no_value[256];

clscan_carry_args clscan__no_carry(size_t elem, cl_mem dummy)
{
    clscan_carry_args a = {no_value, elem, dummy, dummy, 0, 0, 0};
    return a;
}

clscan_status clscan__check_carry(const clscan_context *ctx, const clscan_carry *carry,
                                  size_t elem, int no_dst, cl_mem dummy,
                                  const clscan_byte_range *ranges, int nranges,
                                  clscan_carry_args *out)
{
    *out = clscan__no_carry(elem, dummy);
    if (no_dst) out->flags |= CLSCAN_CARRY_FLAG_NO_DST;
    CLSCAN_RETURN_IF(ctx, no_dst && (!carry || !carry->out_buffer),
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "dst is NULL but there is no carry->out_buffer: a call without dst only "
                     "reduces, and must write its total");
    if (!carry) return CLSCAN_SUCCESS;
    clscan_status s;
    CLSCAN_RETURN_IF(ctx, carry->in_value && carry->in_buffer, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "carry->in_value and carry->in_buffer are both given: the carry-in comes "
                     "from one of them");
    if (carry->in_value) {
        out->value = carry->in_value;
        out->flags |= CLSCAN_CARRY_FLAG_IN;
    }
    if (carry->in_buffer) {
        if ((s = clscan__check_range(ctx, carry->in_buffer, "carry->in_buffer",
                                     carry->in_offset, 1, elem)) != CLSCAN_SUCCESS)
            return s;
        out->in_buf = carry->in_buffer;
        out->in_off = carry->in_offset;
        out->flags |= CLSCAN_CARRY_FLAG_IN | CLSCAN_CARRY_FLAG_IN_BUFFER;
    }
    if (carry->out_buffer) {
        if ((s = clscan__check_range(ctx, carry->out_buffer, "carry->out_buffer",
                                     carry->out_offset, 1, elem)) != CLSCAN_SUCCESS)
            return s;
        const size_t at = carry->out_offset * elem;
        for (int r = 0; r < nranges; ++r)
            if (ranges[r].mem &&
                (s = clscan__check_disjoint(ctx, carry->out_buffer, "carry->out_buffer's element",
                                            at, elem, ranges[r].mem, ranges[r].name,
                                            ranges[r].off, ranges[r].len)) != CLSCAN_SUCCESS)
                return s;
        if (carry->in_buffer &&
            (s = clscan__check_disjoint(ctx, carry->out_buffer, "carry->out_buffer's element", at,
                                        elem, carry->in_buffer, "carry->in_buffer's element",
                                        carry->in_offset * elem, elem)) != CLSCAN_SUCCESS)
            return s;
        out->out_buf = carry->out_buffer;
        out->out_off = carry->out_offset;
        out->flags |= CLSCAN_CARRY_FLAG_OUT;
    }
    return CLSCAN_SUCCESS;
}

cl_int clscan__set_carry_args(cl_kernel k, cl_uint first, const clscan_carry_args *a)
{
    cl_int err = clSetKernelArg(k, first, a->value_size, a->value);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, first + 1, sizeof(cl_mem), &a->in_buf);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, first + 2, sizeof(cl_ulong), &a->in_off);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, first + 3, sizeof(cl_mem), &a->out_buf);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, first + 4, sizeof(cl_ulong), &a->out_off);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, first + 5, sizeof(cl_uint), &a->flags);
    return err;
}
