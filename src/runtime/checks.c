/* checks.c - the argument checks every enqueueing call shares: queue and wait list,
 * types and operators on this device, buffer ranges, aliasing, and carries. */
/* SPDX-License-Identifier: MIT */
#include "runtime/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Zeros for the by-value carry-in of a call without one (the largest element type). */
static const unsigned char no_value[256];

clscan_status clscan__check_text_length(const clscan_context *ctx, const char *text,
                                        const char *name)
{
    const cl_ulong cap = ctx->target.profile.max_text_bytes;
    /* (strnlen: a hostile text of gigabytes is not walked to its end.) */
    const size_t len = text ? strnlen(text, cap < SIZE_MAX ? (size_t)cap + 1 : SIZE_MAX) : 0;
    CLSCAN__RETURN_IF(ctx, (cl_ulong)len > cap, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s is longer than %llu bytes, the most a user text may have "
                     "(CLSCAN_MAX_TEXT_BYTES, or the options' max_text_bytes)",
                     name, (unsigned long long)cap);
    /* Programs are cached by their text, so a text's program must depend on nothing
     * else: a file it included could change under a cached program. */
    const char *word = clscan__text_reads_files(text);
    CLSCAN__RETURN_IF(ctx, word != NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s has a preprocessor directive and the word \"%s\": user texts may "
                     "not read files (#include and the like), since programs are cached by "
                     "their text; put the file's text in the description's source",
                     name, word);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_range(const clscan_context *ctx, cl_mem mem, const char *name,
                                 size_t offset, size_t n, size_t elem)
{
    CLSCAN__RETURN_IF(ctx, mem == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "%s is NULL", name);
    size_t bytes = 0;
    cl_context owner = NULL;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    CLSCAN__RETURN_IF(ctx, err != CL_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s is not a valid buffer (%s)", name, clscan_status_string(err));
    CLSCAN__RETURN_IF(ctx, owner != ctx->target.cl_ctx, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s belongs to another cl_context than the clscan context", name);
    CLSCAN__RETURN_IF(ctx, offset > SIZE_MAX - n || offset + n > SIZE_MAX / elem,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s: offset %zu + n %zu elements overflows a size_t byte count", name,
                     offset, n);
    CLSCAN__RETURN_IF(ctx, (offset + n) * elem > bytes, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s: elements [%zu, %zu) of %zu bytes each need %zu bytes, but the "
                     "buffer has %zu",
                     name, offset, offset + n, elem, (offset + n) * elem, bytes);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_type_op(const clscan_context *ctx, clscan_type type, clscan_op op)
{
    CLSCAN__RETURN_IF(ctx, !clscan__type_valid((int)type), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "type %d is not a clscan_type", (int)type);
    CLSCAN__RETURN_IF(ctx, !clscan__op_valid((int)op), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "op %d is not a clscan_op", (int)op);
    CLSCAN__RETURN_IF(ctx, clscan__type_is_float(type) && op >= CLSCAN_OP_AND,
                     CLSCAN_ERROR_UNSUPPORTED, "operator %s is not defined on %s",
                     clscan_op_name(op), clscan_type_name(type));
    CLSCAN__RETURN_IF(ctx, type == CLSCAN_DOUBLE && !ctx->target.profile.fp64,
                     CLSCAN_ERROR_UNSUPPORTED, "device %s has no double precision (fp64)",
                     ctx->target.profile.device_name);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_call(const clscan_context *ctx, cl_command_queue queue,
                                clscan_type type, clscan_op op, cl_uint nwait,
                                const cl_event *wait, bool *in_order)
{
    clscan_status s = clscan__check_context(ctx);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, queue == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "queue is NULL");
    s = clscan__check_type_op(ctx, type, op);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, (nwait == 0) != (wait == NULL), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "event wait list: %u events but the list is %s", nwait,
                     wait ? "not NULL" : "NULL");
    for (cl_uint i = 0; i < nwait; ++i) {
        cl_context ectx = NULL;
        CLSCAN__RETURN_IF(ctx, wait[i] == NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "event_wait_list[%u] is NULL", i);
        cl_int e = clGetEventInfo(wait[i], CL_EVENT_CONTEXT, sizeof ectx, &ectx, NULL);
        CLSCAN__RETURN_IF(ctx, e != CL_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "event_wait_list[%u] is not a valid event (%s)", i,
                         clscan_status_string(e));
        CLSCAN__RETURN_IF(ctx, ectx != ctx->target.cl_ctx, CLSCAN_ERROR_INVALID_ARGUMENT,
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
    CLSCAN__RETURN_IF(ctx, err != CL_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "queue is not a valid command queue (%s)", clscan_status_string(err));
    CLSCAN__RETURN_IF(ctx, qctx != ctx->target.cl_ctx || qdev != ctx->target.device,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "queue belongs to another cl_context or device than the clscan context");
    *in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_in_place(const clscan_context *ctx, cl_mem src, size_t src_offset,
                                     cl_mem dst, size_t dst_offset, size_t n)
{
    CLSCAN__RETURN_IF(ctx,
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
    CLSCAN__RETURN_IF(ctx,
                     a == b && a_len && b_len && a_off < b_off + b_len && b_off < a_off + a_len,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s (bytes [%zu, %zu)) and %s (bytes [%zu, %zu)) overlap in one buffer",
                     a_name, a_off, a_off + a_len, b_name, b_off, b_off + b_len);
    return CLSCAN_SUCCESS;
}

clscan__carry_args clscan__no_carry(size_t elem)
{
    clscan__carry_args a = {no_value, elem, NULL, NULL, 0, 0, 0};
    return a;
}

clscan_status clscan__check_carry(const clscan_context *ctx, const clscan_carry *carry,
                                  size_t elem, bool no_dst,
                                  const clscan__byte_range *ranges, int nranges,
                                  clscan__carry_args *out)
{
    *out = clscan__no_carry(elem);
    if (no_dst) out->flags |= CLSCAN__CARRY_FLAG_NO_DST;
    CLSCAN__RETURN_IF(ctx, no_dst && (!carry || !carry->out_buffer),
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "dst is NULL but there is no carry->out_buffer: a call without dst only "
                     "reduces, and must write its total");
    if (!carry) return CLSCAN_SUCCESS;
    clscan_status s;
    CLSCAN__RETURN_IF(ctx, carry->in_value && carry->in_buffer, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "carry->in_value and carry->in_buffer are both given: the carry-in comes "
                     "from one of them");
    if (carry->in_value) {
        out->value = carry->in_value;
        out->flags |= CLSCAN__CARRY_FLAG_IN;
    }
    if (carry->in_buffer) {
        if ((s = clscan__check_range(ctx, carry->in_buffer, "carry->in_buffer",
                                     carry->in_offset, 1, elem)) != CLSCAN_SUCCESS)
            return s;
        out->in_buf = carry->in_buffer;
        out->in_off = carry->in_offset;
        out->flags |= CLSCAN__CARRY_FLAG_IN | CLSCAN__CARRY_FLAG_IN_BUFFER;
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
        out->flags |= CLSCAN__CARRY_FLAG_OUT;
    }
    return CLSCAN_SUCCESS;
}

void clscan__set_carry_args(clscan__kernel_args *a, const clscan__carry_args *c)
{
    clscan__arg_bytes(a, c->value_size, c->value);
    CLSCAN__ARG(*a, c->in_buf);
    CLSCAN__ARG(*a, c->in_off);
    CLSCAN__ARG(*a, c->out_buf);
    CLSCAN__ARG(*a, c->out_off);
    CLSCAN__ARG(*a, c->flags);
}
