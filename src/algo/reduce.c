/* reduce.c - clscan_reduce and clscan_reduce_desc: the combination of a range into one
 * device element. Levels of the multi-level scan's reduce kernel: each work-group folds
 * a contiguous run of tiles to a partial, then the partials are folded the same way,
 * until one work-group writes the result. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

/* What one reduction reads and where its result goes. The first level reads the input
 * with a general program's clscan_gen_reduce_tiles (its transform applied) where
 * `general` is set, else with clscan_reduce_tiles; the plain kernel of the same program
 * folds the partials, which are of the scan type. */
typedef struct reduce_call {
    cl_mem src;
    cl_ulong src_off, n;
    cl_mem result;
    cl_ulong result_off;
    int general; /* first level through clscan_gen_reduce_tiles */
    cl_ulong index_base; /* the transform's index of element 0 (general) */
} reduce_call;

/* Scratch elements the partials of every level take: each level's work-groups leave one
 * partial, the next level folds them, until one work-group is left. */
static cl_ulong scratch_elements(const clscan__profile *p, const clscan__scan_config *cfg,
                                 cl_ulong n)
{
    cl_ulong total = 0;
    for (clscan__level_plan lp = clscan__plan_level(p, cfg, n); lp.groups > 1;
         lp = clscan__plan_level(p, cfg, lp.groups))
        total += lp.groups;
    return total;
}

/* Enqueues one level: groups of lp fold src[src_off, +n) into out[out_off, +groups). */
static clscan_status enqueue_level(clscan__launch *l, clscan__program *prog, int general,
                                   cl_mem src, cl_ulong src_off, cl_ulong index_base,
                                   cl_ulong n, clscan__level_plan lp, cl_mem out,
                                   cl_ulong out_off)
{
    const clscan__scan_config *cfg = &prog->config;
    cl_kernel k = prog->kernels[general ? CLSCAN__K_GEN_REDUCE : CLSCAN__K_REDUCE];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    CLSCAN__ARG(a, src);
    CLSCAN__ARG(a, src_off);
    if (general) { /* (no segments: the segment buffer is not read, nor `inclusive`) */
        const cl_ulong seg_off = 0;
        const cl_int inclusive = 1;
        CLSCAN__ARG(a, src);
        CLSCAN__ARG(a, seg_off);
        CLSCAN__ARG(a, index_base);
        CLSCAN__ARG(a, n);
        CLSCAN__ARG(a, inclusive);
    } else {
        CLSCAN__ARG(a, n);
    }
    CLSCAN__ARG(a, lp.per_group);
    CLSCAN__ARG(a, out);
    CLSCAN__ARG(a, out_off);
    if (general) {
        const cl_uint carry_flags = 0;
        CLSCAN__ARG(a, carry_flags);
    }
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(reduce)");
    return clscan__enqueue(l, k, (size_t)lp.groups, cfg->wg_size,
                           general ? "enqueue gen_reduce_tiles" : "enqueue reduce_tiles");
}

/* Up to how many tiles a compute unit the levels of a reduction run as one kernel (the
 * H200's crossing: below). */
#define ONE_KERNEL_TILES_PER_UNIT 8

/* Whether the plain reduction of n elements with the single-pass program cfg takes
 * clscan_reduce_single: groups of several work-items, up to ONE_KERNEL_TILES_PER_UNIT
 * tiles a compute unit, where the levels would be two kernels, the first level's and
 * the one group's that folds its partials. One kernel does both: the level's last group
 * folds the others' partials, published as look-back aggregates, instead of a kernel
 * launched after the level. On the H200 (docs/PERFORMANCE.md, thirty-ninth session)
 * int32 sums took 0.46-0.60x the batched time of the two kernels at 2^21, 0.63-0.93x at
 * 2^22 and 0.90-0.97x at 2^23 (8 tiles a unit), float sums alike; from 2^24 int32 sums
 * had taken 1.01-1.15x (thirty-eighth session). Not where p->reduce_single is off
 * (llvmpipe, tune/choose.c). */
static bool one_kernel_levels(const clscan__profile *p, const clscan__scan_config *cfg,
                              cl_ulong n)
{
    if (!p->reduce_single || cfg->algo != CLSCAN__SCAN_SINGLE_PASS || cfg->wg_size <= 1 ||
        n == 0)
        return false;
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    if ((n + tile - 1) / tile > (cl_ulong)ONE_KERNEL_TILES_PER_UNIT * p->compute_units)
        return false;
    const clscan__level_plan lp = clscan__plan_level(p, cfg, n);
    return lp.groups > 1 && lp.groups < 0xffffffffu &&
           clscan__plan_level(p, cfg, lp.groups).groups == 1;
}

/* Enqueues clscan_reduce_single over the launch's scratch slot (look-back words). */
static clscan_status enqueue_one_kernel(clscan__launch *l, clscan__program *prog,
                                        const reduce_call *c)
{
    const clscan__scan_config *cfg = &prog->config;
    const clscan__level_plan lp = clscan__plan_level(&l->ctx->target.profile, cfg, c->n);
    clscan__lookback_args lb;
    clscan_status s = clscan__lookback_begin(l, prog, &lb);
    if (s != CLSCAN_SUCCESS) return s;
    const cl_uint groups = (cl_uint)lp.groups;
    cl_kernel k = prog->kernels[CLSCAN__K_REDUCE_SINGLE];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    CLSCAN__ARG(a, c->src);
    CLSCAN__ARG(a, c->src_off);
    CLSCAN__ARG(a, c->n);
    CLSCAN__ARG(a, lp.per_group);
    CLSCAN__ARG(a, groups);
    CLSCAN__ARG(a, lb.state);
    CLSCAN__ARG(a, lb.epoch);
    CLSCAN__ARG(a, lb.spins);
    CLSCAN__ARG(a, c->result);
    CLSCAN__ARG(a, c->result_off);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(reduce_single)");
    return clscan__enqueue(l, k, (size_t)groups, cfg->wg_size, "enqueue reduce_single");
}

/* The levels of one reduction, on a launch holding the scratch they need. */
static clscan_status enqueue_reduce(clscan__launch *l, clscan__program *prog,
                                    const reduce_call *c)
{
    const clscan__profile *p = &l->ctx->target.profile;
    cl_mem src = c->src;
    cl_ulong src_off = c->src_off, n = c->n, part_off = 0;
    int general = c->general;
    for (;;) {
        const clscan__level_plan lp = clscan__plan_level(p, &prog->config, n);
        const int last = lp.groups == 1;
        if (!last) l->scratch->lb_clean = 0; /* partials overwrite status words */
        cl_mem out = last ? c->result : l->scratch->buffer;
        const cl_ulong out_off = last ? c->result_off : part_off;
        clscan_status s =
            enqueue_level(l, prog, general, src, src_off, c->index_base, n, lp, out, out_off);
        if (s != CLSCAN_SUCCESS || last) return s;
        src = out;
        src_off = out_off;
        n = lp.groups;
        part_off += lp.groups;
        general = 0;
    }
}

/* Whether the single-pass scan's reduction (no dst, the total as its carry out: one
 * kernel) takes a plain reduction of n elements with the device scan's shape cfg: where
 * the levels would take two kernels or more and the single-pass tiles fit in one wave of
 * the compute units, so that no tile waits long for a predecessor. A kernel fewer is the
 * larger part of a small call's time (host and device: docs/PERFORMANCE.md, thirteenth
 * session); above a wave the levels' wide loads without a tile take less device time. */
static bool one_pass_reduces(const clscan__profile *p, const clscan__scan_config *cfg,
                             cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    return cfg->algo == CLSCAN__SCAN_SINGLE_PASS && n > 0 &&
           clscan__plan_level(p, cfg, n).groups > 1 &&
           (n + tile - 1) / tile <= (cl_ulong)p->compute_units;
}

/* Checks src's range and result's element (elements of in_size and out_size bytes),
 * which must not overlap. */
static clscan_status check_ranges(const clscan_context *ctx, const reduce_call *c,
                                  size_t in_size, size_t out_size)
{
    clscan_status s;
    if ((s = clscan__check_range(ctx, c->src, "src", c->src_off, c->n, in_size)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, c->result, "result", c->result_off, 1, out_size)) !=
            CLSCAN_SUCCESS)
        return s;
    return clscan__check_disjoint(ctx, c->src, "src", c->src_off * in_size, c->n * in_size,
                                  c->result, "result", c->result_off * out_size, out_size);
}

/* Enqueues the checked reduction with prog, and hands prog back to the cache. */
static clscan_status reduce_with(clscan_context *ctx, cl_command_queue queue, bool in_order,
                                 clscan__program *prog, const reduce_call *c, cl_uint nwait,
                                 const cl_event *wait, cl_event *event)
{
    clscan_status s;
    const int one = !c->general && one_kernel_levels(&ctx->target.profile, &prog->config, c->n);
    const size_t bytes =
        one ? clscan__lookback_bytes(&prog->config, c->n)
            : (size_t)scratch_elements(&ctx->target.profile, &prog->config, c->n) *
                  clscan__config_elem_bytes(&prog->config);
    clscan__launch l;
    if ((s = clscan__launch_begin(&l, ctx, queue, in_order, nwait, wait, bytes, event)) !=
        CLSCAN_SUCCESS) {
        clscan__program_put(ctx, prog);
        return s;
    }
    pthread_mutex_lock(&prog->lock);
    s = one ? enqueue_one_kernel(&l, prog, c) : enqueue_reduce(&l, prog, c);
    pthread_mutex_unlock(&prog->lock);
    clscan__program_put(ctx, prog);
    return clscan__launch_end(&l, s, event);
}

clscan_status clscan_reduce(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                            size_t src_offset, size_t n, clscan_type type, clscan_op op,
                            cl_mem result, size_t result_offset, cl_uint num_events_in_wait_list,
                            const cl_event *event_wait_list, cl_event *event)
{
    bool in_order = true;
    clscan_status s = clscan__check_call(ctx, queue, type, op, num_events_in_wait_list,
                                         event_wait_list, &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    const size_t elem = clscan_type_size(type);
    const reduce_call c = {src, src_offset, n, result, result_offset, 0, 0};
    /* (The ranges are checked first, so that a bad call builds no program.) */
    if ((s = check_ranges(ctx, &c, elem, elem)) != CLSCAN_SUCCESS) return s;
    clscan__scan_config cfg;
    clscan__program *prog;
    if ((s = clscan__scan_config_choose(ctx, &ctx->target.profile,
                                        ctx->target.profile.scan_algo, type, op, &cfg)) !=
            CLSCAN_SUCCESS)
        return s;
    if (one_pass_reduces(&ctx->target.profile, &cfg, n)) { /* (the scan's own checks agree) */
        const clscan_carry total = {NULL, NULL, 0, result, result_offset};
        return clscan__scan_carry(ctx, queue, src, src_offset, NULL, 0, n, type, op, 1, &total,
                                  num_events_in_wait_list, event_wait_list, event);
    }
    if ((s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS) return s;
    return reduce_with(ctx, queue, in_order, prog, &c, num_events_in_wait_list,
                       event_wait_list, event);
}

clscan_status clscan_reduce_desc(clscan_context *ctx, cl_command_queue queue,
                                 const clscan_scan_desc *desc, cl_mem src, size_t src_offset,
                                 size_t n, cl_mem result, size_t result_offset,
                                 cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    bool in_order = true;
    size_t in_size, out_size;
    clscan_status s = clscan__check_desc_call(ctx, queue, desc, num_events_in_wait_list,
                                              event_wait_list, &in_order, &in_size, &out_size);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, desc->output != NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->output is given: a reduction has no per-element outputs");
    CLSCAN__RETURN_IF(ctx, desc->compensated, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->compensated is set: compensated reductions are not supported "
                     "(a compensated scan's carry out gives the total)");
    CLSCAN__RETURN_IF(ctx, desc->segments != CLSCAN_SEGMENTS_NONE, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->segments is %d: clscan_reduce_desc reduces a whole range "
                     "(segments must be CLSCAN_SEGMENTS_NONE)",
                     (int)desc->segments);
    /* A built-in operator on a library type, as it is: the plain reduction. */
    if (clscan__desc_is_plain(desc))
        return clscan_reduce(ctx, queue, src, src_offset, n, desc->type, desc->op, result,
                             result_offset, num_events_in_wait_list, event_wait_list, event);
    const reduce_call c = {src, src_offset, n, result, result_offset, 1, desc->index_base};
    if ((s = check_ranges(ctx, &c, in_size, out_size)) != CLSCAN_SUCCESS) return s;
    clscan__program *prog;
    if ((s = clscan__desc_program(ctx, desc, ctx->target.profile.scan_algo, &prog, &in_size,
                                  &out_size)) != CLSCAN_SUCCESS)
        return s;
    return reduce_with(ctx, queue, in_order, prog, &c, num_events_in_wait_list,
                       event_wait_list, event);
}
