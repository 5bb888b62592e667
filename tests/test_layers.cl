/* test_layers.cl - the kernels of tests/test_layers.c: a user's kernels that call the
 * library's OpenCL C layers directly (sub-group scans and shuffles, work-group value and
 * tile scans, the decoupled look-back), built with clscan_kernel_build_options' options.
 * LAYERS_LOOKBACK (the test's own -D) selects the look-back kernels instead. */
/* SPDX-License-Identifier: MIT */
#ifdef LAYERS_LOOKBACK
#include <clscan_lookback.cl>
#else
#include <clscan_workgroup.cl>
#endif

#ifndef LAYERS_LOOKBACK

/* Planes of vout, each get_global_size(0) elements: what each work-item got back. */
#define V_SG_INCL 0
#define V_SG_EXCL 1
#define V_SG_SHUF1 2  /* clscan_sg_shuffle_up(x, 1) */
#define V_SG_SHUFH 3  /* clscan_sg_shuffle_up(x, max(1, CLSCAN_SG_SIZE / 2)) */
#define V_WG_EXCL 4   /* clscan_wg_scan_value(x, 0) */
#define V_WG_INCL 5   /* clscan_wg_scan_value(x, 1) */
#define V_WG_ETOT 6   /* its *total */
#define V_WG_ITOT 7   /* the inclusive call's *total */
#define V_WG_RED 8    /* clscan_wg_reduce_value(x) */
#define V_PLANES 9
/* Planes of ttot (per work-item): the tile functions' returns. */
#define T_RED 0
#define T_ETOT 1
#define T_ITOT 2
#define T_PLANES 3

/* Every layer below the look-back, by every work-item of every group:
 *   the sub-group layer on vin (one value per work-item): inclusive and exclusive scans,
 *     two shuffles, and each work-item's lane and sub-group (ids);
 *   the work-group value layer on vin: exclusive and inclusive scans with their totals,
 *     the reduction;
 *   the tile layer on tin[0, n) (group g: tile g, the last one partial when n says so):
 *     load, reduce, exclusive scan and store with carries[g] on the left, then load
 *     again, inclusive scan and store.
 * info gets the shape the kernel was compiled for (work-item 0 of group 0). */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void layers_check(__global const CLSCAN_T *vin, __global const CLSCAN_T *tin, ulong n,
                  __global const CLSCAN_T *carries, __global CLSCAN_T *vout,
                  __global CLSCAN_T *tout, ulong tout_plane, __global CLSCAN_T *ttot,
                  __global uint *ids, __global uint *info)
{
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH]; /* (at least CLSCAN_SG_SCRATCH) */
    const size_t g = get_global_id(0), gs = get_global_size(0);
    const CLSCAN_T x = vin[g];

    /* Sub-group layer. */
    const CLSCAN_T sg_incl = clscan_sg_scan_inclusive(x, scratch);
    const CLSCAN_T sg_excl = clscan_sg_scan_exclusive(x, scratch);
    const CLSCAN_T shuf1 = clscan_sg_shuffle_up(x, 1, scratch);
    const CLSCAN_T shufh =
        clscan_sg_shuffle_up(x, CLSCAN_SG_SIZE > 1 ? CLSCAN_SG_SIZE / 2 : 1, scratch);
    vout[V_SG_INCL * gs + g] = sg_incl;
    vout[V_SG_EXCL * gs + g] = sg_excl;
    vout[V_SG_SHUF1 * gs + g] = shuf1;
    vout[V_SG_SHUFH * gs + g] = shufh;
    ids[2 * g] = clscan_sg_lane();
    ids[2 * g + 1] = clscan_sg_id();

    /* Work-group layer, one value per work-item. */
    CLSCAN_T etot, itot;
    const CLSCAN_T wg_excl = clscan_wg_scan_value(x, 0, scratch, &etot);
    const CLSCAN_T wg_incl = clscan_wg_scan_value(x, 1, scratch, &itot);
    const CLSCAN_T red = clscan_wg_reduce_value(x, scratch);
    vout[V_WG_EXCL * gs + g] = wg_excl;
    vout[V_WG_INCL * gs + g] = wg_incl;
    vout[V_WG_ETOT * gs + g] = etot;
    vout[V_WG_ITOT * gs + g] = itot;
    vout[V_WG_RED * gs + g] = red;

    /* Tile layer. */
    const ulong base = (ulong)get_group_id(0) * CLSCAN_TILE;
    const uint count = base < n ? (uint)min((ulong)CLSCAN_TILE, n - base) : 0u;
    const CLSCAN_T carry = carries[get_group_id(0)];
    clscan_wg_load(tin, base, count, tile);
    const CLSCAN_T tred = clscan_wg_reduce(tile, scratch);
    const CLSCAN_T tetot = clscan_wg_scan(tile, scratch, 0);
    clscan_wg_store(tout, base, count, tile, carry);
    barrier(CLK_LOCAL_MEM_FENCE); /* the store has read the tile */
    clscan_wg_load(tin, base, count, tile);
    const CLSCAN_T titot = clscan_wg_scan(tile, scratch, 1);
    clscan_wg_store(tout + tout_plane, base, count, tile, carry);
    ttot[T_RED * gs + g] = tred;
    ttot[T_ETOT * gs + g] = tetot;
    ttot[T_ITOT * gs + g] = titot;

    if (g == 0) {
        info[0] = CLSCAN_WG_SIZE;
        info[1] = CLSCAN_ITEMS;
        info[2] = CLSCAN_TILE;
        info[3] = CLSCAN_SG_IMPL;
        info[4] = CLSCAN_SG_SIZE;
        info[5] = CLSCAN_SG_COUNT;
        info[6] = CLSCAN_WG_ALGO;
        info[7] = (uint)sizeof(CLSCAN_T);
        info[8] = CLSCAN_TYPE_ID;
        info[9] = CLSCAN_OP_ID;
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_KHR || CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_INTEL
        info[10] = get_max_sub_group_size(); /* the width the compiler really chose */
#else
        info[10] = 0;
#endif
        info[11] = CLSCAN_SG_SHUFFLE_IN_LOCAL;
    }
}

#else /* LAYERS_LOOKBACK */

/* A single-pass scan written by a user around the look-back layer: tiles numbered by
 * clscan_lb_ticket, each scanned in local memory (clscan_wg_scan: its total as the
 * fallback computes it), its exclusive prefix found by clscan_lb_tile_prefix, stored
 * with that carry. Launched with exactly ceil(n / CLSCAN_TILE) groups. Each tile's
 * carry and total go to carries[t] and totals[t]. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void layers_lookback(__global const CLSCAN_T *src, __global CLSCAN_T *dst, ulong n,
                     __global clscan_lb_word *state, uint epoch, uint spin_limit,
                     int inclusive, int has_start, CLSCAN_T start,
                     __global CLSCAN_T *carries, __global CLSCAN_T *totals,
                     __global uint *stats)
{
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    __local clscan_lb_local lb;
    __local uint ticket;
    const ulong ntiles = (n + CLSCAN_TILE - 1) / CLSCAN_TILE;
    const ulong t = clscan_lb_ticket(state, ntiles, &ticket);
    __global clscan_lb_word *status = state + CLSCAN_LB_HEADER_WORDS;
    const ulong base = t * CLSCAN_TILE;
    const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
    clscan_wg_load(src, base, count, tile);
    const CLSCAN_T total = clscan_wg_scan(tile, scratch, inclusive);
    const CLSCAN_T carry = clscan_lb_tile_prefix(status, t, epoch, spin_limit, total,
                                                 has_start, start, src, &lb, scratch, stats);
    if (get_local_id(0) == 0) {
        carries[t] = carry;
        totals[t] = total;
    }
    clscan_wg_store(dst, base, count, tile, carry);
}

/* clscan_lb_exclusive_prefix alone, over status words the host wrote (any mix of
 * inclusive prefixes, aggregates, fallback totals, words of another epoch and none):
 * group t looks back from tile t (tiles of src, as the fallback reduces them) and writes
 * what it got to carries[t]. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void layers_lb_prefix(__global clscan_lb_word *status, uint epoch, uint spin_limit,
                      int has_start, CLSCAN_T start, __global const CLSCAN_T *src,
                      __global CLSCAN_T *carries, __global uint *stats)
{
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    __local clscan_lb_local lb;
    const ulong t = get_group_id(0);
    const CLSCAN_T carry = clscan_lb_exclusive_prefix(status, t, epoch, spin_limit, has_start,
                                                      start, src, &lb, scratch, stats);
    if (get_local_id(0) == 0) carries[t] = carry;
}

#endif /* LAYERS_LOOKBACK */
