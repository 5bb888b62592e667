/* clscan_workgroup.cl - work-group scans, chosen by CLSCAN_WG_ALGO: a padded Blelloch
 * up/down-sweep, or sub-group scans whose totals one sub-group scans before all add
 * back. Two levels of interface: one value per work-item (clscan_wg_scan_value), and a
 * tile of CLSCAN_TILE elements in local memory (load, scan or reduce, store), where
 * each work-item scans its CLSCAN_ITEMS consecutive elements serially around a scan of
 * the work-items' totals. Every function is called by the whole work-group in uniform
 * control flow (they contain barriers). Combination order is always left to right. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_WORKGROUP_CL
#define CLSCAN_WORKGROUP_CL
#ifndef CLSCAN_SUBGROUP_CL
#include "clscan_subgroup.cl"
#endif

#define CLSCAN_WG_ALGO_BLELLOCH 0
#define CLSCAN_WG_ALGO_SUBGROUP 1
#ifndef CLSCAN_WG_ALGO
#define CLSCAN_WG_ALGO CLSCAN_WG_ALGO_BLELLOCH
#endif

/* Local scratch (elements of CLSCAN_T) for the value-level functions, and for the
 * tile-level ones a tile of CLSCAN_WG_TILE_LOCAL elements besides. */
#if CLSCAN_WG_ALGO == CLSCAN_WG_ALGO_BLELLOCH
#define CLSCAN_WG_SCRATCH CLSCAN_PADDED(CLSCAN_WG_SIZE)
#elif CLSCAN_WG_ALGO == CLSCAN_WG_ALGO_SUBGROUP
/* Sub-group shuffle scratch, then the sub-group totals and their exclusive prefixes. */
#define CLSCAN_WG_SCRATCH (CLSCAN_SG_SCRATCH_USED + 2 * CLSCAN_SG_COUNT)
#else
#error "CLSCAN_WG_ALGO must be CLSCAN_WG_ALGO_BLELLOCH (0) or CLSCAN_WG_ALGO_SUBGROUP (1)"
#endif
#define CLSCAN_WG_TILE_LOCAL CLSCAN_PADDED(CLSCAN_TILE)

/* Attributes for every kernel that calls these functions (put after __kernel): the work-group size, and where the device lets a kernel
 * fix its sub-group size (cl_intel_required_subgroup_size), the width the sub-group
 * layer was built for. */
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_INTEL && CLSCAN_SG_REQUIRED_SIZE
#define CLSCAN_KERNEL_ATTRIBUTES                                 \
    __attribute__((reqd_work_group_size(CLSCAN_WG_SIZE, 1, 1))) \
    __attribute__((intel_reqd_sub_group_size(CLSCAN_SG_WIDTH)))
#else
#define CLSCAN_KERNEL_ATTRIBUTES __attribute__((reqd_work_group_size(CLSCAN_WG_SIZE, 1, 1)))
#endif

#if CLSCAN_WG_ALGO == CLSCAN_WG_ALGO_BLELLOCH

/* Blelloch up-sweep over sums[0, CLSCAN_WG_SIZE) (padded), x being this work-item's
 * value; leaves the total in the last slot. */
void clscan_wg_upsweep_(CLSCAN_T x, __local CLSCAN_T *sums)
{
    const uint lid = get_local_id(0);
    sums[CLSCAN_PAD(lid)] = x;
    /* (Both sweeps stay loops: unrolled, with a barrier in every copy, they make Intel's
     * CPU compiler 2026.2 read freed memory and crash at times, docs/IMPLEMENTATION-ISSUES.md;
     * a step costs a barrier either way.) */
#pragma unroll 1
    for (uint d = 1; d < CLSCAN_WG_SIZE; d <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint i = (lid + 1) * 2 * d - 1;
        if (i < CLSCAN_WG_SIZE)
            sums[CLSCAN_PAD(i)] = CLSCAN_OP(sums[CLSCAN_PAD(i - d)], sums[CLSCAN_PAD(i)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The combination of every work-item's x, returned to all. Ends with a barrier, so
 * scratch may be reused at once. */
CLSCAN_T clscan_wg_reduce_value(CLSCAN_T x, __local CLSCAN_T *scratch)
{
    clscan_wg_upsweep_(x, scratch);
    const CLSCAN_T total = scratch[CLSCAN_PAD(CLSCAN_WG_SIZE - 1)];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* Scan of one value per work-item in local-id order: returns the exclusive prefix
 * (the identity for work-item 0), or the inclusive one if `inclusive`; *total gets the
 * group's total. Ends with a barrier, so scratch may be reused at once. */
CLSCAN_T clscan_wg_scan_value(CLSCAN_T x, int inclusive, __local CLSCAN_T *scratch,
                              CLSCAN_T *total)
{
    const uint lid = get_local_id(0);
    clscan_wg_upsweep_(x, scratch);
    *total = scratch[CLSCAN_PAD(CLSCAN_WG_SIZE - 1)];
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read the total */
    if (lid == 0) scratch[CLSCAN_PAD(CLSCAN_WG_SIZE - 1)] = CLSCAN_IDENTITY;
    /* Down-sweep: a node's left child gets the node's prefix, its right child that
     * prefix combined with the left subtree's total. */
#pragma unroll 1
    for (uint d = CLSCAN_WG_SIZE >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint i = (lid + 1) * 2 * d - 1;
        if (i < CLSCAN_WG_SIZE) {
            const CLSCAN_T left = scratch[CLSCAN_PAD(i - d)];
            scratch[CLSCAN_PAD(i - d)] = scratch[CLSCAN_PAD(i)];
            scratch[CLSCAN_PAD(i)] = CLSCAN_OP(scratch[CLSCAN_PAD(i)], left);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T prefix = scratch[CLSCAN_PAD(lid)];
    barrier(CLK_LOCAL_MEM_FENCE);
    return inclusive ? CLSCAN_OP(prefix, x) : prefix;
}

#else /* CLSCAN_WG_ALGO_SUBGROUP */

CLSCAN_T clscan_wg_reduce_value(CLSCAN_T x, __local CLSCAN_T *scratch)
{
    __local CLSCAN_T *totals = scratch + CLSCAN_SG_SCRATCH_USED;
    const CLSCAN_T inclusive = clscan_sg_scan_inclusive(x, scratch);
    if (clscan_sg_lane() == CLSCAN_SG_SIZE - 1) totals[clscan_sg_id()] = inclusive;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Every work-item reads the few totals (one address per step: a broadcast). */
    CLSCAN_T total = totals[0];
    for (uint s = 1; s < CLSCAN_SG_COUNT; ++s) total = CLSCAN_OP(total, totals[s]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

CLSCAN_T clscan_wg_scan_value(CLSCAN_T x, int inclusive, __local CLSCAN_T *scratch,
                              CLSCAN_T *total)
{
    __local CLSCAN_T *totals = scratch + CLSCAN_SG_SCRATCH_USED;
    __local CLSCAN_T *prefixes = totals + CLSCAN_SG_COUNT;
    const uint lane = clscan_sg_lane(), sg = clscan_sg_id();
    const CLSCAN_T incl = clscan_sg_scan_inclusive(x, scratch);
    const CLSCAN_T shifted = clscan_sg_shuffle_up(incl, 1, scratch);
    const CLSCAN_T mine = inclusive ? incl : (lane == 0 ? CLSCAN_IDENTITY : shifted);
    if (lane == CLSCAN_SG_SIZE - 1) totals[sg] = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_SG_COUNT == 1
    *total = totals[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return mine;
#else
    /* Sub-group 0 scans the totals, each lane R consecutive ones. With shuffles in
     * local memory every sub-group runs this scan (its barriers need the whole group)
     * and only sub-group 0 writes; with native shuffles the others skip it. */
#define CLSCAN_SG_R_ ((CLSCAN_SG_COUNT + CLSCAN_SG_SIZE - 1) / CLSCAN_SG_SIZE)
#if !CLSCAN_SG_SHUFFLE_IN_LOCAL
    if (sg == 0)
#endif
    {
        CLSCAN_T v = CLSCAN_IDENTITY;
        for (uint r = 0; r < CLSCAN_SG_R_; ++r) {
            const uint k = lane * CLSCAN_SG_R_ + r;
            if (k < CLSCAN_SG_COUNT) {
                const CLSCAN_T t = totals[k];
                v = CLSCAN_OP(v, t);
            }
        }
        CLSCAN_T p = clscan_sg_scan_exclusive(v, scratch);
        if (sg == 0)
            for (uint r = 0; r < CLSCAN_SG_R_; ++r) {
                const uint k = lane * CLSCAN_SG_R_ + r;
                if (k < CLSCAN_SG_COUNT) {
                    const CLSCAN_T t = totals[k];
                    prefixes[k] = p;
                    p = CLSCAN_OP(p, t);
                }
            }
    }
#undef CLSCAN_SG_R_
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T prefix = prefixes[sg];
    const CLSCAN_T last_prefix = prefixes[CLSCAN_SG_COUNT - 1];
    const CLSCAN_T last_total = totals[CLSCAN_SG_COUNT - 1];
    *total = CLSCAN_OP(last_prefix, last_total);
    barrier(CLK_LOCAL_MEM_FENCE);
    return CLSCAN_OP(prefix, mine);
#endif
}

#endif /* CLSCAN_WG_ALGO */

/* Loads elements [base, base + count) of src into tile (count <= CLSCAN_TILE), the
 * missing tail as the identity. Consecutive work-items read consecutive elements. */
void clscan_wg_load(__global const CLSCAN_T *src, ulong base, uint count,
                    __local CLSCAN_T *tile)
{
    const uint lid = get_local_id(0);
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        tile[CLSCAN_PAD(k)] = k < count ? src[base + k] : CLSCAN_IDENTITY;
    }
}

/* Stores carry op tile[k] for k < count to dst[base + k]. */
void clscan_wg_store(__global CLSCAN_T *dst, ulong base, uint count,
                     __local const CLSCAN_T *tile, CLSCAN_T carry)
{
    const uint lid = get_local_id(0);
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        if (k < count) dst[base + k] = CLSCAN_OP(carry, tile[CLSCAN_PAD(k)]);
    }
}

/* This work-item's CLSCAN_ITEMS consecutive tile elements, combined. */
CLSCAN_T clscan_wg_thread_reduce_(__local const CLSCAN_T *tile)
{
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_T acc = tile[CLSCAN_PAD(first)];
    for (uint j = 1; j < CLSCAN_ITEMS; ++j) {
        const CLSCAN_T x = tile[CLSCAN_PAD(first + j)];
        acc = CLSCAN_OP(acc, x);
    }
    return acc;
}

/* The combination of the whole tile, returned to every work-item. The tile must have
 * been written by the group before the call (the first barrier inside makes those
 * writes visible); it ends with a barrier. */
CLSCAN_T clscan_wg_reduce(__local const CLSCAN_T *tile, __local CLSCAN_T *scratch)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T mine = clscan_wg_thread_reduce_(tile);
    return clscan_wg_reduce_value(mine, scratch);
}

/* Scans the tile in place (inclusive, or exclusive with the identity first) and
 * returns its total to every work-item. Same rules as clscan_wg_reduce. */
CLSCAN_T clscan_wg_scan(__local CLSCAN_T *tile, __local CLSCAN_T *scratch, int inclusive)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    const CLSCAN_T mine = clscan_wg_thread_reduce_(tile);
    CLSCAN_T total;
    CLSCAN_T run = clscan_wg_scan_value(mine, 0, scratch, &total);
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = CLSCAN_PAD(first + j);
        const CLSCAN_T x = tile[k];
        const CLSCAN_T next = CLSCAN_OP(run, x);
        tile[k] = inclusive ? next : run;
        run = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* The same reduce and scan straight from global memory (CLSCAN_WG_DIRECT, general
 * programs): each work-item reads its CLSCAN_ITEMS consecutive elements itself, so the
 * kernel needs no tile in local memory (a general program's kernels in
 * cl/clscan_scan.cl scan only partials, and its local memory goes to its own tile).
 * Same combination order as the tile's, the identity past count included. */
#ifndef CLSCAN_WG_DIRECT
#define CLSCAN_WG_DIRECT 0
#endif
#if CLSCAN_WG_DIRECT
CLSCAN_T clscan_wg_direct_fold_(__global const CLSCAN_T *src, ulong base, uint count)
{
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_T acc = first < count ? src[base + first] : CLSCAN_IDENTITY;
    for (uint j = 1; j < CLSCAN_ITEMS; ++j) {
        const CLSCAN_T x = first + j < count ? src[base + first + j] : CLSCAN_IDENTITY;
        acc = CLSCAN_OP(acc, x);
    }
    return acc;
}

/* The combination of src[base, base + count), count <= CLSCAN_TILE, to every
 * work-item; ends with a barrier. */
CLSCAN_T clscan_wg_direct_reduce(__global const CLSCAN_T *src, ulong base, uint count,
                                 __local CLSCAN_T *scratch)
{
    return clscan_wg_reduce_value(clscan_wg_direct_fold_(src, base, count), scratch);
}

/* Where `store`: dst[dbase + k] = carry op the scan (inclusive, or exclusive) of
 * src[base, base + count) at k, for k < count. Returns the total to every work-item.
 * src and dst may be the same elements (each work-item writes only those it read). */
CLSCAN_T clscan_wg_direct_scan(__global const CLSCAN_T *src, ulong base, uint count,
                               __global CLSCAN_T *dst, ulong dbase, CLSCAN_T carry,
                               int inclusive, int store, __local CLSCAN_T *scratch)
{
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_T total;
    CLSCAN_T run = clscan_wg_scan_value(clscan_wg_direct_fold_(src, base, count), 0, scratch,
                                        &total);
    for (uint j = 0; store && j < CLSCAN_ITEMS && first + j < count; ++j) {
        const CLSCAN_T x = src[base + first + j];
        const CLSCAN_T next = CLSCAN_OP(run, x);
        dst[dbase + first + j] = CLSCAN_OP(carry, inclusive ? next : run);
        run = next;
    }
    return total;
}
#endif

#endif /* CLSCAN_WORKGROUP_CL */
