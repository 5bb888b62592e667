/* select.c - stream compaction: clscan_select_flagged, clscan_select_if,
 * clscan_partition_if and clscan_unique, and the kernels of clscan_run_length_encode
 * (clscan__select_runs; bykey.c checks its arguments). Argument checks, then one
 * single-pass kernel (the look-back over kept counts) where the device profile runs the
 * single-pass scan, else count per work-group, scan of the counts, write. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <string.h>

/* One compaction call's arguments. */
typedef struct select_call {
    clscan__select_mode mode;
    cl_mem src, flags, dst, count;
    size_t src_offset, flags_offset, dst_offset, n;
    clscan_type type;
    const char *predicate;
    /* RUNS: where the lengths go, and whether they are cl_ulongs (else cl_uints: the
     * program is built for one or the other). */
    cl_mem lengths;
    size_t lengths_offset;
    cl_int wide;
} select_call;

/* Every check that needs no OpenCL object created. */
static clscan_status check_select(const clscan_context *ctx, cl_command_queue queue,
                                  const select_call *c, cl_uint nwait, const cl_event *wait,
                                  bool *in_order)
{
    clscan_status s = clscan__check_call(ctx, queue, c->type, CLSCAN_OP_ADD, nwait, wait,
                                         in_order);
    if (s != CLSCAN_SUCCESS) return s;
    const size_t elem = clscan_type_size(c->type);
    if ((s = clscan__check_range(ctx, c->src, "src", c->src_offset, c->n, elem)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, c->dst, "dst", c->dst_offset, c->n, elem)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, c->count, "count (one cl_ulong)", 0, 1,
                                 sizeof(cl_ulong))) != CLSCAN_SUCCESS ||
        (s = clscan__check_in_place(ctx, c->src, c->src_offset, c->dst, c->dst_offset, c->n)) !=
            CLSCAN_SUCCESS)
        return s;
    /* (Offsets times sizes cannot overflow once the ranges checked out.) */
    const size_t src_bytes = c->src_offset * elem, dst_bytes = c->dst_offset * elem;
    const size_t len = c->n * elem;
    if ((s = clscan__check_disjoint(ctx, c->count, "count", 0, sizeof(cl_ulong), c->src, "src",
                                    src_bytes, len)) != CLSCAN_SUCCESS ||
        (s = clscan__check_disjoint(ctx, c->count, "count", 0, sizeof(cl_ulong), c->dst, "dst",
                                    dst_bytes, len)) != CLSCAN_SUCCESS)
        return s;
    if (c->mode == CLSCAN__SELECT_FLAGGED) {
        if ((s = clscan__check_range(ctx, c->flags, "flags", c->flags_offset, c->n, 1)) !=
                CLSCAN_SUCCESS ||
            (s = clscan__check_disjoint(ctx, c->flags, "flags", c->flags_offset, c->n, c->dst,
                                        "dst", dst_bytes, len)) != CLSCAN_SUCCESS ||
            (s = clscan__check_disjoint(ctx, c->flags, "flags", c->flags_offset, c->n,
                                        c->count, "count", 0, sizeof(cl_ulong))) !=
                CLSCAN_SUCCESS)
            return s;
    }
    if (c->mode == CLSCAN__SELECT_IF || c->mode == CLSCAN__SELECT_PARTITION) {
        CLSCAN__RETURN_IF(ctx, c->predicate == NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "predicate is NULL");
        const clscan_status ts = clscan__check_text_length(ctx, c->predicate, "predicate");
        if (ts != CLSCAN_SUCCESS) return ts;
        CLSCAN__RETURN_IF(ctx, c->predicate[strspn(c->predicate, " \t\r\n")] == '\0',
                         CLSCAN_ERROR_INVALID_ARGUMENT, "predicate is empty");
    }
    return CLSCAN_SUCCESS;
}

/* Sets the arguments the write kernels start with, as a's next ones: src, src_off, flags,
 * flags_off, dst, dst_off, (RUNS: lengths, lengths_off,) n (flags NULL where there are
 * none: clscan__no_carry says why). */
static void set_range_args(clscan__kernel_args *a, const select_call *c, cl_mem src,
                           cl_ulong src_off)
{
    const cl_ulong flags_off = c->flags_offset, dst_off = c->dst_offset, n = c->n;
    const cl_mem flags = c->flags;
    CLSCAN__ARG(*a, src);
    CLSCAN__ARG(*a, src_off);
    CLSCAN__ARG(*a, flags);
    CLSCAN__ARG(*a, flags_off);
    CLSCAN__ARG(*a, c->dst);
    CLSCAN__ARG(*a, dst_off);
    if (c->mode == CLSCAN__SELECT_RUNS) { /* (CLSCAN_SEL_RUNS_PARAMS) */
        const cl_ulong lengths_off = c->lengths_offset;
        CLSCAN__ARG(*a, c->lengths);
        CLSCAN__ARG(*a, lengths_off);
    }
    CLSCAN__ARG(*a, n);
}

/* Enqueues the single-pass kernel. */
static clscan_status enqueue_single(clscan__launch *l, clscan__program *prog, const select_call *c,
                                    cl_mem src, cl_ulong src_off)
{
    const clscan__scan_config *cfg = &prog->config;
    clscan__lookback_args lb;
    clscan_status s = clscan__lookback_begin(l, prog, &lb);
    if (s != CLSCAN_SUCCESS) return s;
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    cl_kernel k = prog->kernels[CLSCAN__K_SEL_SINGLE];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    set_range_args(&a, c, src, src_off);
    CLSCAN__ARG(a, lb.state);
    CLSCAN__ARG(a, lb.epoch);
    CLSCAN__ARG(a, lb.spins);
    CLSCAN__ARG(a, c->count);
    CLSCAN__ARG(a, lb.stats);
    CLSCAN__ARG(a, lb.stats_off);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sel_single)");
    return clscan__enqueue(l, k, (size_t)((c->n + tile - 1) / tile), cfg->wg_size,
                           "enqueue sel_single");
}

/* Enqueues the multi-level compaction: kept counts per work-group into the scratch slot,
 * their exclusive scan (one work-group, or the scan levels), then the writes. */
static clscan_status enqueue_multi(clscan__launch *l, clscan__program *prog, const select_call *c,
                                   cl_mem src, cl_ulong src_off)
{
    const clscan__scan_config *cfg = &prog->config;
    const clscan__level_plan lp = clscan__plan_level(&l->ctx->target.profile, cfg, c->n);
    const cl_int use_partials = lp.groups > 1;
    const cl_ulong flags_off = c->flags_offset, n = c->n;
    const cl_ulong part_off = 0;
    const cl_mem flags = c->flags;
    cl_mem partials = l->scratch ? l->scratch->buffer : NULL; /* (unused with one group) */
    clscan_status s;
    if (use_partials) {
        l->scratch->lb_clean = 0; /* partials overwrite status words */
        cl_kernel k = prog->kernels[CLSCAN__K_SEL_COUNT];
        clscan__kernel_args a = clscan__args_begin(k, 0);
        CLSCAN__ARG(a, src);
        CLSCAN__ARG(a, src_off);
        CLSCAN__ARG(a, flags);
        CLSCAN__ARG(a, flags_off);
        CLSCAN__ARG(a, n);
        CLSCAN__ARG(a, lp.per_group);
        CLSCAN__ARG(a, partials);
        CLSCAN__ARG(a, part_off);
        if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sel_count)");
        s = clscan__enqueue(l, k, (size_t)lp.groups, cfg->wg_size, "enqueue sel_count_tiles");
        if (s != CLSCAN_SUCCESS) return s;
        s = clscan__enqueue_scan_partials(l, prog, partials, part_off, lp.groups);
        if (s != CLSCAN_SUCCESS) return s;
    }
    cl_kernel k = prog->kernels[CLSCAN__K_SEL_WRITE];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    set_range_args(&a, c, src, src_off);
    CLSCAN__ARG(a, lp.per_group);
    CLSCAN__ARG(a, partials);
    CLSCAN__ARG(a, part_off);
    CLSCAN__ARG(a, use_partials);
    CLSCAN__ARG(a, c->count);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sel_write)");
    return clscan__enqueue(l, k, (size_t)lp.groups, cfg->wg_size, "enqueue sel_write_tiles");
}

/* n == 0: only the count, 0, by a one-work-item kernel (a kernel rather than a fill,
 * so that tools such as Oclgrind see it as written). */
static clscan_status enqueue_zero(clscan__launch *l, clscan__program *prog, const select_call *c)
{
    clscan__kernel_args a = clscan__args_begin(prog->kernels[CLSCAN__K_SEL_ZERO], 0);
    CLSCAN__ARG(a, c->count);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sel_zero)");
    return clscan__enqueue(l, prog->kernels[CLSCAN__K_SEL_ZERO], 1, 1, "enqueue sel_count_zero");
}

/* The compaction whose arguments have been checked. */
static clscan_status run_compaction(clscan_context *ctx, cl_command_queue queue,
                                    const select_call *c, bool in_order, cl_uint nwait,
                                    const cl_event *wait, cl_event *event)
{
    clscan_status s;
    /* Counts of 32 bits while they cannot overflow; the look-back then moves half as
     * many status words. (Run-length encoding: a count and a place, in a ulong.) */
    const clscan_type count_type =
        c->n > 0xffffffffu || c->mode == CLSCAN__SELECT_RUNS ? CLSCAN_UINT64 : CLSCAN_UINT32;
    clscan__scan_config cfg;
    clscan__program *prog;
    if ((s = clscan__select_config_choose(ctx, &ctx->target.profile,
                                          ctx->target.profile.scan_algo, c->mode, c->type,
                                          count_type, c->predicate, &cfg)) != CLSCAN_SUCCESS)
        return s;
    if (c->mode == CLSCAN__SELECT_RUNS) cfg.value_bytes = c->wide ? 8 : 4; /* the lengths' */
    if ((s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS) return s;
    cfg = prog->config; /* the shape actually built */
    const int single = c->n > 0 && clscan__lookback_fits(&cfg, c->n);
    size_t scratch_bytes = 0;
    if (single)
        scratch_bytes = clscan__lookback_bytes(&cfg, c->n);
    else if (c->n > 0) /* the partials: as many as a scan of n elements keeps */
        scratch_bytes = (size_t)clscan__scan_scratch_elements(&ctx->target.profile, &cfg, c->n) *
                        clscan_type_size(count_type);
    clscan__launch l;
    if ((s = clscan__launch_begin(&l, ctx, queue, in_order, nwait, wait, scratch_bytes, event)) !=
        CLSCAN_SUCCESS) {
        clscan__program_put(ctx, prog);
        return s;
    }
    cl_mem src = c->src, copy = NULL;
    cl_ulong src_off = c->src_offset;
    if (c->n > 0 && c->src == c->dst && c->src_offset == c->dst_offset) {
        /* In place: the launch's commands read a copy (released below; OpenCL frees it
         * when the commands using it have finished). */
        const size_t elem = clscan_type_size(c->type);
        s = clscan__enqueue_copy_input(&l, c->src, c->src_offset * elem, c->n * elem, &copy);
        src = copy;
        src_off = 0;
    }
    if (s == CLSCAN_SUCCESS) {
        pthread_mutex_lock(&prog->lock);
        if (c->n == 0) s = enqueue_zero(&l, prog, c);
        else if (single) s = enqueue_single(&l, prog, c, src, src_off);
        else s = enqueue_multi(&l, prog, c, src, src_off);
        pthread_mutex_unlock(&prog->lock);
    }
    clscan__program_put(ctx, prog);
    if (copy) clReleaseMemObject(copy);
    return clscan__launch_end(&l, s, event);
}

static clscan_status compact(clscan_context *ctx, cl_command_queue queue, const select_call *c,
                             cl_uint nwait, const cl_event *wait, cl_event *event)
{
    bool in_order = true;
    clscan_status s = check_select(ctx, queue, c, nwait, wait, &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    return run_compaction(ctx, queue, c, in_order, nwait, wait, event);
}

clscan_status clscan__select_runs(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                  size_t src_offset, size_t n, clscan_type type, cl_mem unique,
                                  size_t unique_offset, cl_mem lengths, size_t lengths_offset,
                                  clscan_type length_type, cl_mem count, bool in_order,
                                  cl_uint nwait, const cl_event *wait, cl_event *event)
{
    select_call c = {CLSCAN__SELECT_RUNS, src, NULL, unique, count,
                     src_offset, 0, unique_offset, n, type, NULL, NULL, 0, 0};
    c.lengths = lengths;
    c.lengths_offset = lengths_offset;
    c.wide = length_type == CLSCAN_UINT64;
    return run_compaction(ctx, queue, &c, in_order, nwait, wait, event);
}

clscan_status clscan_select_flagged(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                    size_t src_offset, cl_mem flags, size_t flags_offset,
                                    cl_mem dst, size_t dst_offset, cl_mem count, size_t n,
                                    clscan_type type, cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    const select_call c = {CLSCAN__SELECT_FLAGGED, src, flags, dst, count,
                           src_offset, flags_offset, dst_offset, n, type, NULL, NULL, 0, 0};
    return compact(ctx, queue, &c, num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_select_if(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                               size_t src_offset, cl_mem dst, size_t dst_offset, cl_mem count,
                               size_t n, clscan_type type, const char *predicate,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event)
{
    const select_call c = {CLSCAN__SELECT_IF, src, NULL, dst, count,
                           src_offset, 0, dst_offset, n, type, predicate, NULL, 0, 0};
    return compact(ctx, queue, &c, num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_partition_if(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                  size_t src_offset, cl_mem dst, size_t dst_offset,
                                  cl_mem count, size_t n, clscan_type type,
                                  const char *predicate, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list, cl_event *event)
{
    const select_call c = {CLSCAN__SELECT_PARTITION, src, NULL, dst, count,
                           src_offset, 0, dst_offset, n, type, predicate, NULL, 0, 0};
    return compact(ctx, queue, &c, num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_unique(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                            size_t src_offset, cl_mem dst, size_t dst_offset, cl_mem count,
                            size_t n, clscan_type type, cl_uint num_events_in_wait_list,
                            const cl_event *event_wait_list, cl_event *event)
{
    const select_call c = {CLSCAN__SELECT_UNIQUE, src, NULL, dst, count,
                           src_offset, 0, dst_offset, n, type, NULL, NULL, 0, 0};
    return compact(ctx, queue, &c, num_events_in_wait_list, event_wait_list, event);
}
