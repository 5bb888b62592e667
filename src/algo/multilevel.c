/* multilevel.c - the multi-level scan: how a level splits n elements over work-groups,
 * the scratch its partials need, and the reduce / scan partials / scan kernels of each
 * level, recursing where the partials outgrow one work-group. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

/* Tiles of wg * items elements; a bounded number of work-groups, each taking a
 * contiguous run of tiles, so that the partials normally fit in one tile. Where the
 * device limits a work-item's loop iterations, more groups are used (each with fewer
 * tiles), and the partials are then scanned recursively. */
clscan__level_plan clscan__plan_level(const clscan__profile *p, const clscan__scan_config *cfg,
                             cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    const cl_ulong ntiles = (n + tile - 1) / tile;
    if (ntiles == 0) { /* (a total alone: one group, no tile) */
        const clscan__level_plan none = {1, 1};
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
    clscan__level_plan lp;
    if (ntiles <= p->single_group_tiles && ntiles <= max_tiles) lp.groups = 1;
    else lp.groups = ntiles < max_groups ? ntiles : max_groups;
    if ((ntiles + lp.groups - 1) / lp.groups > max_tiles)
        lp.groups = (ntiles + max_tiles - 1) / max_tiles;
    lp.per_group = (ntiles + lp.groups - 1) / lp.groups;
    lp.groups = (ntiles + lp.per_group - 1) / lp.per_group; /* no group without a tile */
    return lp;
}

cl_ulong clscan__scan_scratch_elements(const clscan__profile *p, const clscan__scan_config *cfg,
                                 cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    cl_ulong total = 0;
    for (clscan__level_plan lp = clscan__plan_level(p, cfg, n); lp.groups > 1;
         lp = clscan__plan_level(p, cfg, lp.groups)) {
        total += lp.groups;
        if (lp.groups <= tile) break; /* one work-group scans them */
    }
    return total;
}

clscan_status clscan__enqueue_scan_partials(clscan__launch *l, clscan__program *prog,
                                            cl_mem scratch, cl_ulong part_off, cl_ulong count)
{
    const clscan__scan_config *cfg = &prog->config;
    if (count > (cl_ulong)cfg->wg_size * cfg->items) /* more than a work-group scans */
        return clscan__enqueue_scan_level(l, prog, scratch, part_off, scratch, part_off, count,
                                          0, scratch, part_off + count, NULL);
    const cl_uint n = (cl_uint)count;
    clscan__kernel_args a = clscan__args_begin(prog->kernels[CLSCAN__K_PARTIALS], 0);
    CLSCAN__ARG(a, scratch);
    CLSCAN__ARG(a, part_off);
    CLSCAN__ARG(a, n);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(scan_partials)");
    return clscan__enqueue(l, prog->kernels[CLSCAN__K_PARTIALS], 1, cfg->wg_size, "enqueue scan_partials");
}

/* Kernel arguments are set right before each enqueue, since a level may reuse a
 * kernel. */
clscan_status clscan__enqueue_scan_level(clscan__launch *l, clscan__program *prog, cl_mem src,
                                         cl_ulong src_off, cl_mem dst, cl_ulong dst_off,
                                         cl_ulong n, cl_int inclusive, cl_mem scratch,
                                         cl_ulong part_off, const clscan__carry_args *carry)
{
    const clscan__scan_config *cfg = &prog->config;
    const clscan__level_plan lp = clscan__plan_level(&l->ctx->target.profile, cfg, n);
    const cl_int use_partials = lp.groups > 1;
    const clscan__carry_args none = clscan__no_carry(clscan__config_elem_bytes(cfg));
    if (!carry) carry = &none;
    clscan_status s;
    if (use_partials) {
        clscan__kernel_args a = clscan__args_begin(prog->kernels[CLSCAN__K_REDUCE], 0);
        CLSCAN__ARG(a, src);
        CLSCAN__ARG(a, src_off);
        CLSCAN__ARG(a, n);
        CLSCAN__ARG(a, lp.per_group);
        CLSCAN__ARG(a, scratch);
        CLSCAN__ARG(a, part_off);
        if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(reduce)");
        s = clscan__enqueue(l, prog->kernels[CLSCAN__K_REDUCE], (size_t)lp.groups, cfg->wg_size,
                            "enqueue reduce_tiles");
        if (s != CLSCAN_SUCCESS) return s;
        s = clscan__enqueue_scan_partials(l, prog, scratch, part_off, lp.groups);
        if (s != CLSCAN_SUCCESS) return s;
    }
    clscan__kernel_args a = clscan__args_begin(prog->kernels[CLSCAN__K_SCAN], 0);
    CLSCAN__ARG(a, src);
    CLSCAN__ARG(a, src_off);
    CLSCAN__ARG(a, dst);
    CLSCAN__ARG(a, dst_off);
    CLSCAN__ARG(a, n);
    CLSCAN__ARG(a, lp.per_group);
    CLSCAN__ARG(a, scratch);
    CLSCAN__ARG(a, part_off);
    CLSCAN__ARG(a, use_partials);
    CLSCAN__ARG(a, inclusive);
    clscan__set_carry_args(&a, carry);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(scan_tiles)");
    return clscan__enqueue(l, prog->kernels[CLSCAN__K_SCAN], (size_t)lp.groups, cfg->wg_size, "enqueue scan_tiles");
}
