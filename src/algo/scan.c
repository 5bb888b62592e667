/* scan.c - clscan_exclusive_scan and clscan_inclusive_scan: argument checks, then the
 * dispatch: the single-pass scan (one kernel) or the multi-level reduce-then-scan (one
 * kernel for small n, three otherwise), as the device profile chose. The level plan,
 * the multi-level levels and the look-back's status buffer are shared with compaction. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

/* ---------------------------------------------------------------- single-pass -- */

/* Enqueues the single-pass scan over the launch's scratch slot. */
static clscan_status enqueue_single(clscan__launch *l, clscan__program *prog, cl_mem src,
                                    cl_ulong src_off, cl_mem dst, cl_ulong dst_off, cl_ulong n,
                                    cl_int inclusive, const clscan__carry_args *carry)
{
    const clscan__scan_config *cfg = &prog->config;
    clscan__lookback_args lb;
    clscan_status s = clscan__lookback_begin(l, prog, &lb);
    if (s != CLSCAN_SUCCESS) return s;
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    cl_kernel k = prog->kernels[CLSCAN__K_SINGLE];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    CLSCAN__ARG(a, src);
    CLSCAN__ARG(a, src_off);
    CLSCAN__ARG(a, dst);
    CLSCAN__ARG(a, dst_off);
    CLSCAN__ARG(a, n);
    CLSCAN__ARG(a, lb.state);
    CLSCAN__ARG(a, lb.epoch);
    CLSCAN__ARG(a, lb.spins);
    CLSCAN__ARG(a, inclusive);
    CLSCAN__ARG(a, lb.stats);
    CLSCAN__ARG(a, lb.stats_off);
    clscan__set_carry_args(&a, carry);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(scan_single)");
    return clscan__enqueue(l, k, (size_t)((n + tile - 1) / tile), cfg->wg_size, "enqueue scan_single");
}

/* With dst NULL and the total asked for, the call only reduces. */
static clscan_status check_dst(const clscan_context *ctx, cl_mem src, size_t src_offset,
                               cl_mem dst, size_t dst_offset, size_t n, size_t elem,
                               const clscan_carry *carry, clscan__carry_args *ca)
{
    clscan_status s;
    const bool no_dst = dst == NULL && carry && carry->out_buffer;
    if (no_dst)
        CLSCAN__RETURN_IF(ctx, dst_offset != 0, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "dst is NULL (a reduction) but dst_offset is %zu", dst_offset);
    else if ((s = clscan__check_range(ctx, dst, "dst", dst_offset, n, elem)) != CLSCAN_SUCCESS ||
             (s = clscan__check_in_place(ctx, src, src_offset, dst, dst_offset, n)) !=
                 CLSCAN_SUCCESS)
        return s;
    const clscan__byte_range ranges[2] = {{src, "src", src_offset * elem, n * elem},
                                         {dst, "dst", dst_offset * elem, n * elem}};
    return clscan__check_carry(ctx, carry, elem, no_dst, ranges, 2, ca);
}

clscan_status clscan__scan_carry(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                 size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                 clscan_type type, clscan_op op, int inclusive,
                                 const clscan_carry *carry, cl_uint nwait,
                                 const cl_event *wait, cl_event *event)
{
    bool in_order = true;
    clscan_status s = clscan__check_call(ctx, queue, type, op, nwait, wait, &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    size_t elem = clscan_type_size(type);
    clscan__carry_args ca;
    if ((s = clscan__check_range(ctx, src, "src", src_offset, n, elem)) != CLSCAN_SUCCESS ||
        (s = check_dst(ctx, src, src_offset, dst, dst_offset, n, elem, carry, &ca)) !=
            CLSCAN_SUCCESS)
        return s;
    const int want_total = (ca.flags & CLSCAN__CARRY_FLAG_OUT) != 0;
    if (n == 0 && !want_total) return clscan__enqueue_marker(ctx, queue, nwait, wait, event);
    /* (A NULL dst is not written: CLSCAN__CARRY_FLAG_NO_DST.) */

    /* In place, a look-back fallback would read tiles their owners are overwriting:
     * those calls take the multi-level scan (with its own tile shape), whose kernels
     * never share a range. */
    const int in_place = src == dst && src_offset == dst_offset &&
                         !(ca.flags & CLSCAN__CARRY_FLAG_NO_DST);
    const clscan__scan_algo algo = in_place ? CLSCAN__SCAN_MULTI_LEVEL : ctx->target.profile.scan_algo;
    clscan__scan_config cfg;
    if ((s = clscan__scan_config_choose(ctx, &ctx->target.profile, algo, type, op, &cfg)) !=
        CLSCAN_SUCCESS)
        return s;
    clscan__program *prog;
    if ((s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS) return s;
    cfg = prog->config; /* the shape actually built */
    const int single = n > 0 && clscan__lookback_fits(&cfg, n);
    const size_t scratch_bytes =
        single ? clscan__lookback_bytes(&cfg, n)
               : (size_t)clscan__scan_scratch_elements(&ctx->target.profile, &cfg, n) * elem;
    clscan__launch l;
    if ((s = clscan__launch_begin(&l, ctx, queue, in_order, nwait, wait, scratch_bytes, event)) !=
        CLSCAN_SUCCESS) {
        clscan__program_put(ctx, prog);
        return s;
    }
    pthread_mutex_lock(&prog->lock);
    if (single) {
        if (cfg.wg_size == 1) /* (only that kernel streams) */
            ca.flags |= clscan__stream_flag(ctx, n, elem, elem);
        s = enqueue_single(&l, prog, src, src_offset, dst, dst_offset, n, inclusive, &ca);
    } else {
        if (l.scratch) l.scratch->lb_clean = 0; /* partials overwrite status words */
        s = clscan__enqueue_scan_level(&l, prog, src, src_offset, dst, dst_offset, n,
                                       inclusive, l.scratch ? l.scratch->buffer : NULL, 0, &ca);
    }
    pthread_mutex_unlock(&prog->lock);
    clscan__program_put(ctx, prog);
    return clscan__launch_end(&l, s, event);
}

clscan_status clscan_exclusive_scan(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                    size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                    clscan_type type, clscan_op op,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    return clscan__scan_carry(ctx, queue, src, src_offset, dst, dst_offset, n, type, op, 0,
                              NULL, num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_inclusive_scan(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                    size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                    clscan_type type, clscan_op op,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    return clscan__scan_carry(ctx, queue, src, src_offset, dst, dst_offset, n, type, op, 1,
                              NULL, num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_exclusive_scan_carry(clscan_context *ctx, cl_command_queue queue,
                                          cl_mem src, size_t src_offset, cl_mem dst,
                                          size_t dst_offset, size_t n, clscan_type type,
                                          clscan_op op, const clscan_carry *carry,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event)
{
    return clscan__scan_carry(ctx, queue, src, src_offset, dst, dst_offset, n, type, op, 0,
                              carry, num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_inclusive_scan_carry(clscan_context *ctx, cl_command_queue queue,
                                          cl_mem src, size_t src_offset, cl_mem dst,
                                          size_t dst_offset, size_t n, clscan_type type,
                                          clscan_op op, const clscan_carry *carry,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event)
{
    return clscan__scan_carry(ctx, queue, src, src_offset, dst, dst_offset, n, type, op, 1,
                              carry, num_events_in_wait_list, event_wait_list, event);
}
