/* scan.c - clscan_exclusive_scan and clscan_inclusive_scan: argument checks, then the
 * dispatch: the single-pass scan (one kernel) or the multi-level reduce-then-scan (one
 * kernel for small n, three otherwise), as the device profile chose. The level plan,
 * the multi-level levels and the look-back's status buffer are shared with compaction. */
#include "clscan_internal.h"

#define SET_ARG(k, i, v) CLSCAN_SET_ARG(err, k, i, v)

/* Tiles of wg * items elements; a bounded number of work-groups, each taking a
 * contiguous run of tiles, so that the partials normally fit in one tile. Where the
 * device limits a work-item's loop iterations, more groups are used (each with fewer
 * tiles), and the partials are then scanned recursively. */
clscan_level_plan clscan__plan_level(const clscan_profile *p, const clscan_scan_config *cfg,
                             cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    const cl_ulong ntiles = (n + tile - 1) / tile;
    if (ntiles == 0) { /* (a total alone: one group, no tile) */
        const clscan_level_plan none = {1, 1};
        return none;
    }
    cl_ulong max_groups = p->max_groups ? p->max_groups
                                        : (cl_ulong)p->compute_units * p->groups_per_cu;
    if (max_groups > tile) max_groups = tile;
    if (max_groups < 1) max_groups = 1;
    cl_ulong max_tiles = ~(cl_ulong)0; /* per work-group */
    if (p->max_loop_iterations) {
        cl_ulong per_tile = clscan__scan_tile_iterations(cfg);
        max_tiles = p->max_loop_iterations > 2 * per_tile
                        ? (p->max_loop_iterations - per_tile) / per_tile
                        : 1;
    }
    clscan_level_plan lp;
    if (ntiles <= p->single_group_tiles && ntiles <= max_tiles) lp.groups = 1;
    else lp.groups = ntiles < max_groups ? ntiles : max_groups;
    if ((ntiles + lp.groups - 1) / lp.groups > max_tiles)
        lp.groups = (ntiles + max_tiles - 1) / max_tiles;
    lp.per_group = (ntiles + lp.groups - 1) / lp.groups;
    lp.groups = (ntiles + lp.per_group - 1) / lp.per_group; /* no group without a tile */
    return lp;
}

cl_ulong clscan__scan_scratch_elements(const clscan_profile *p, const clscan_scan_config *cfg,
                                 cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    cl_ulong total = 0;
    for (clscan_level_plan lp = clscan__plan_level(p, cfg, n); lp.groups > 1;
         lp = clscan__plan_level(p, cfg, lp.groups)) {
        total += lp.groups;
        if (lp.groups <= tile) break; /* one work-group scans them */
    }
    return total;
}

clscan_status clscan__enqueue_scan_partials(clscan_launch *l, clscan_program *prog,
                                            cl_mem scratch, cl_ulong part_off, cl_ulong count)
{
    const clscan_scan_config *cfg = &prog->config;
    if (count > (cl_ulong)cfg->wg_size * cfg->items) /* more than a work-group scans */
        return clscan__enqueue_scan_level(l, prog, scratch, part_off, scratch, part_off, count,
                                          0, scratch, part_off + count, NULL);
    const cl_uint n = (cl_uint)count;
    cl_int err = CL_SUCCESS;
    SET_ARG(prog->k_partials, 0, scratch);
    SET_ARG(prog->k_partials, 1, part_off);
    SET_ARG(prog->k_partials, 2, n);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(scan_partials)");
    return clscan__enqueue(l, prog->k_partials, 1, cfg->wg_size, "enqueue scan_partials");
}

/* Kernel arguments are set right before each enqueue, since a level may reuse a
 * kernel. */
clscan_status clscan__enqueue_scan_level(clscan_launch *l, clscan_program *prog, cl_mem src,
                                         cl_ulong src_off, cl_mem dst, cl_ulong dst_off,
                                         cl_ulong n, cl_int inclusive, cl_mem scratch,
                                         cl_ulong part_off, const clscan_carry_args *carry)
{
    const clscan_scan_config *cfg = &prog->config;
    const clscan_level_plan lp = clscan__plan_level(&l->ctx->profile, cfg, n);
    const cl_int use_partials = lp.groups > 1;
    const clscan_carry_args none = clscan__no_carry(clscan__config_elem_bytes(cfg), src);
    if (!carry) carry = &none;
    cl_int err = CL_SUCCESS;
    clscan_status s;
    if (use_partials) {
        SET_ARG(prog->k_reduce, 0, src);
        SET_ARG(prog->k_reduce, 1, src_off);
        SET_ARG(prog->k_reduce, 2, n);
        SET_ARG(prog->k_reduce, 3, lp.per_group);
        SET_ARG(prog->k_reduce, 4, scratch);
        SET_ARG(prog->k_reduce, 5, part_off);
        if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(reduce)");
        s = clscan__enqueue(l, prog->k_reduce, (size_t)lp.groups, cfg->wg_size,
                            "enqueue reduce_tiles");
        if (s != CLSCAN_SUCCESS) return s;
        s = clscan__enqueue_scan_partials(l, prog, scratch, part_off, lp.groups);
        if (s != CLSCAN_SUCCESS) return s;
    }
    SET_ARG(prog->k_scan, 0, src);
    SET_ARG(prog->k_scan, 1, src_off);
    SET_ARG(prog->k_scan, 2, dst);
    SET_ARG(prog->k_scan, 3, dst_off);
    SET_ARG(prog->k_scan, 4, n);
    SET_ARG(prog->k_scan, 5, lp.per_group);
    SET_ARG(prog->k_scan, 6, scratch);
    SET_ARG(prog->k_scan, 7, part_off);
    SET_ARG(prog->k_scan, 8, use_partials);
    SET_ARG(prog->k_scan, 9, inclusive);
    if (err == CL_SUCCESS) err = clscan__set_carry_args(prog->k_scan, 10, carry);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(scan_tiles)");
    return clscan__enqueue(l, prog->k_scan, (size_t)lp.groups, cfg->wg_size, "enqueue scan_tiles");
}

/* ---------------------------------------------------------------- single-pass -- */

/* Bytes before the first status word (cl/clscan_lookback.cl: CLSCAN_LB_HEADER_WORDS);
 * the tile counter is its first cl_uint, the statistics its cl_uints 8 to 10. */
#define LB_HEADER_BYTES 128
#define LB_STATS_OFFSET 8

int clscan__lookback_fits(const clscan_scan_config *cfg, cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    return cfg->algo == CLSCAN_SCAN_SINGLE_PASS && (n + tile - 1) / tile < 0xffffffffull;
}

/* A header, then per tile the value split over words that each carry a tag (2 bytes of
 * word per value byte, either width). */
size_t clscan__lookback_bytes(const clscan_scan_config *cfg, cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    return LB_HEADER_BYTES + (size_t)((n + tile - 1) / tile) * 2 * clscan__config_elem_bytes(cfg);
}

clscan_status clscan__lookback_begin(clscan_launch *l, clscan_program *prog,
                                     clscan_lookback_args *out)
{
    const clscan_scan_config *cfg = &prog->config;
    clscan_scratch *slot = l->scratch;
    const cl_uint max_epoch = (1u << (cfg->lb_word_bits / 2 - 2)) - 1;
    cl_int err = CL_SUCCESS;
    if (!slot->lb_clean || slot->lb_word_bits != cfg->lb_word_bits ||
        slot->lb_epoch >= max_epoch) {
        /* A kernel of its own rather than a fill: see clscan_lb_clear. */
        const cl_ulong words = slot->size / 4;
        size_t groups = (size_t)((words + cfg->wg_size - 1) / cfg->wg_size);
        if (groups > 1024) groups = 1024;
        SET_ARG(prog->k_clear, 0, slot->buffer);
        SET_ARG(prog->k_clear, 1, words);
        if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(lb_clear)");
        clscan_status s =
            clscan__enqueue(l, prog->k_clear, groups, cfg->wg_size, "enqueue lb_clear");
        if (s != CLSCAN_SUCCESS) return s;
        slot->lb_clean = 1;
        slot->lb_word_bits = cfg->lb_word_bits;
        slot->lb_epoch = 0;
    }
    cl_mem hook = clscan__lookback_stats_buffer();
    out->state = slot->buffer;
    out->epoch = ++slot->lb_epoch;
    out->spins = l->ctx->profile.lb_spins;
    out->stats = hook ? hook : slot->buffer;
    out->stats_off = hook ? 0 : LB_STATS_OFFSET;
    return CLSCAN_SUCCESS;
}

/* Enqueues the single-pass scan over the launch's scratch slot. */
static clscan_status enqueue_single(clscan_launch *l, clscan_program *prog, cl_mem src,
                                    cl_ulong src_off, cl_mem dst, cl_ulong dst_off, cl_ulong n,
                                    cl_int inclusive, const clscan_carry_args *carry)
{
    const clscan_scan_config *cfg = &prog->config;
    clscan_lookback_args lb;
    clscan_status s = clscan__lookback_begin(l, prog, &lb);
    if (s != CLSCAN_SUCCESS) return s;
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    cl_int err = CL_SUCCESS;
    cl_kernel k = prog->k_single;
    SET_ARG(k, 0, src);
    SET_ARG(k, 1, src_off);
    SET_ARG(k, 2, dst);
    SET_ARG(k, 3, dst_off);
    SET_ARG(k, 4, n);
    SET_ARG(k, 5, lb.state);
    SET_ARG(k, 6, lb.epoch);
    SET_ARG(k, 7, lb.spins);
    SET_ARG(k, 8, inclusive);
    SET_ARG(k, 9, lb.stats);
    SET_ARG(k, 10, lb.stats_off);
    if (err == CL_SUCCESS) err = clscan__set_carry_args(k, 11, carry);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(scan_single)");
    return clscan__enqueue(l, k, (size_t)((n + tile - 1) / tile), cfg->wg_size, "enqueue scan_single");
}

/* With dst NULL and the total asked for, the call only reduces. */
static clscan_status check_dst(const clscan_context *ctx, cl_mem src, size_t src_offset,
                               cl_mem dst, size_t dst_offset, size_t n, size_t elem,
                               const clscan_carry *carry, clscan_carry_args *ca)
{
    clscan_status s;
    const int no_dst = dst == NULL && carry && carry->out_buffer;
    if (no_dst)
        CLSCAN_RETURN_IF(ctx, dst_offset != 0, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "dst is NULL (a reduction) but dst_offset is %zu", dst_offset);
    else if ((s = clscan__check_range(ctx, dst, "dst", dst_offset, n, elem)) != CLSCAN_SUCCESS ||
             (s = clscan__check_in_place(ctx, src, src_offset, dst, dst_offset, n)) !=
                 CLSCAN_SUCCESS)
        return s;
    const clscan_byte_range ranges[2] = {{src, "src", src_offset * elem, n * elem},
                                         {dst, "dst", dst_offset * elem, n * elem}};
    return clscan__check_carry(ctx, carry, elem, no_dst, src, ranges, 2, ca);
}

clscan_status clscan__scan_carry(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                 size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                 clscan_type type, clscan_op op, int inclusive,
                                 const clscan_carry *carry, cl_uint nwait,
                                 const cl_event *wait, cl_event *event)
{
    int in_order = 1;
    clscan_status s = clscan__check_call(ctx, queue, type, op, nwait, wait, &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    size_t elem = clscan_type_size(type);
    clscan_carry_args ca;
    if ((s = clscan__check_range(ctx, src, "src", src_offset, n, elem)) != CLSCAN_SUCCESS ||
        (s = check_dst(ctx, src, src_offset, dst, dst_offset, n, elem, carry, &ca)) !=
            CLSCAN_SUCCESS)
        return s;
    const int want_total = (ca.flags & CLSCAN_CARRY_FLAG_OUT) != 0;
    if (n == 0 && !want_total) return clscan__enqueue_marker(ctx, queue, nwait, wait, event);
    if (!dst) dst = src; /* (not written: CLSCAN_CARRY_FLAG_NO_DST) */

    /* In place, a look-back fallback would read tiles their owners are overwriting:
     * those calls take the multi-level scan (with its own tile shape), whose kernels
     * never share a range. */
    const int in_place = src == dst && src_offset == dst_offset &&
                         !(ca.flags & CLSCAN_CARRY_FLAG_NO_DST);
    const clscan_scan_algo algo = in_place ? CLSCAN_SCAN_MULTI_LEVEL : ctx->profile.scan_algo;
    clscan_scan_config cfg;
    if ((s = clscan__scan_config_choose(ctx, &ctx->profile, algo, type, op, &cfg)) !=
        CLSCAN_SUCCESS)
        return s;
    clscan_program *prog;
    if ((s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS) return s;
    cfg = prog->config; /* the shape actually built */
    const int single = n > 0 && clscan__lookback_fits(&cfg, n);
    const size_t scratch_bytes =
        single ? clscan__lookback_bytes(&cfg, n)
               : (size_t)clscan__scan_scratch_elements(&ctx->profile, &cfg, n) * elem;
    clscan_launch l;
    if ((s = clscan__launch_begin(&l, ctx, queue, in_order, nwait, wait, scratch_bytes)) !=
        CLSCAN_SUCCESS)
        return s;
    pthread_mutex_lock(&prog->lock);
    if (single) {
        s = enqueue_single(&l, prog, src, src_offset, dst, dst_offset, n, inclusive, &ca);
    } else {
        if (l.scratch) l.scratch->lb_clean = 0; /* partials overwrite status words */
        s = clscan__enqueue_scan_level(&l, prog, src, src_offset, dst, dst_offset, n,
                                       inclusive, l.scratch ? l.scratch->buffer : NULL, 0, &ca);
    }
    pthread_mutex_unlock(&prog->lock);
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
