/* clscan_select.cl - device-wide stream compaction over tiles of
 * cl/clscan_select_tile.cl. Single-pass (CLSCAN_SEL_SINGLE_PASS=1): one kernel, each
 * tile finding how many earlier tiles kept by the decoupled look-back. Multi-level: the
 * kept count of each work-group's tiles, their exclusive scan (the scan kernels of
 * cl/clscan_scan.cl on the count type), then the writes. The count ends up in
 * count[0], a ulong, written by the work-group of the last tile. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_SELECT_CL
#define CLSCAN_SELECT_CL
#ifndef CLSCAN_SELECT_TILE_CL
#include "clscan_select_tile.cl"
#endif
#ifndef CLSCAN_SCAN_CL
#include "clscan_scan.cl"
#endif

/* Writes count[0] = 0: the count of an empty range (one work-item). */
__kernel void clscan_sel_count_zero(__global ulong *count) { count[0] = 0; }

/* partials[part_off + group] = the number of elements the group's tiles of the range
 * [0, n) keep. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sel_count_tiles(__global const CLSCAN_E *src, ulong src_off,
                            __global const uchar *flags, ulong flags_off, ulong n,
                            ulong tiles_per_group, __global CLSCAN_T *partials, ulong part_off)
{
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    const clscan_sel_source s = {src + src_off, flags + flags_off};
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T mine = CLSCAN_IDENTITY;
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const CLSCAN_T part =
            clscan_sel_count_part(s, base, (uint)min((ulong)CLSCAN_TILE, n - base));
        mine = CLSCAN_OP(mine, part);
    }
    const CLSCAN_T total = clscan_wg_reduce_value(mine, scratch);
    if (get_local_id(0) == 0) partials[part_off + get_group_id(0)] = total;
}

/* Writes the kept elements of the group's tiles, the group's first kept element going
 * to dst[partials[part_off + group]] (to dst[0] when use_partials is 0: one group). The
 * last group writes the count. (RUNS mode: also the lengths, CLSCAN_SEL_RUNS_PARAMS.) */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sel_write_tiles(__global const CLSCAN_E *src, ulong src_off,
                            __global const uchar *flags, ulong flags_off,
                            __global CLSCAN_E *dst, ulong dst_off,
                            CLSCAN_SEL_RUNS_PARAMS ulong n,
                            ulong tiles_per_group, __global const CLSCAN_T *partials,
                            ulong part_off, int use_partials, __global ulong *count)
{
    __local CLSCAN_T tile[CLSCAN_SEL_LOCAL];
    __local CLSCAN_E edges[CLSCAN_SEL_EDGE_SLOTS];
    __local CLSCAN_E stash[CLSCAN_SEL_STASH_SLOTS];
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    CLSCAN_E x[CLSCAN_SEL_HELD];
    uint keep = 0;
    const clscan_sel_source s = {src + src_off, flags + flags_off};
    CLSCAN_SEL_RUNS_SINK
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T carry = use_partials ? partials[part_off + get_group_id(0)] : CLSCAN_IDENTITY;
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint in_tile = (uint)min((ulong)CLSCAN_TILE, n - base);
        /* (No barrier between tiles: with flags in local memory each work-item reads in
         * clscan_sel_write only the slots it writes first in the next clscan_sel_rank;
         * the ballot ranks start with a barrier of their own.) */
        const CLSCAN_T total =
            clscan_sel_rank(s, base, in_tile, x, &keep, tile, scratch, edges, stash);
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
        clscan_sel_write_runs(s, dst + dst_off, lengths, base, in_tile, x, keep, tile, stash,
                              carry);
#else
        clscan_sel_write(s, dst + dst_off, n, base, in_tile, x, keep, tile, stash, carry);
#endif
        carry = CLSCAN_OP(carry, total);
    }
    if (get_local_id(0) == 0 && end == ntiles_) {
        count[0] = CLSCAN_SEL_COUNT_OF(carry);
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
        clscan_sel_last_run(lengths, n, carry);
#endif
    }
}

#ifndef CLSCAN_SEL_SINGLE_PASS
#define CLSCAN_SEL_SINGLE_PASS 0
#endif
#if CLSCAN_SEL_SINGLE_PASS
#ifndef CLSCAN_LOOKBACK_CL
#include "clscan_lookback.cl"
#endif

/* Single-pass compaction of src[src_off, +n) into dst[dst_off, +n) (which must not
 * overlap it: a fallback reads other tiles' input), one tile per work-group, launched
 * with exactly ceil(n / CLSCAN_TILE) groups; the tile protocol, state, epoch and stats
 * are those of clscan_scan_single (cl/clscan_scan.cl), with kept counts as the values. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sel_single(__global const CLSCAN_E *src, ulong src_off,
                       __global const uchar *flags, ulong flags_off, __global CLSCAN_E *dst,
                       ulong dst_off, CLSCAN_SEL_RUNS_PARAMS ulong n,
                       __global clscan_lb_word *state, uint epoch, uint spin_limit,
                       __global ulong *count, __global uint *stats_base, uint stats_off)
{
    __global uint *stats = CLSCAN_LB_STATS(state, stats_base, stats_off);
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    __local clscan_lb_local lb;
    __local uint ticket;
    const ulong ntiles = (n + CLSCAN_TILE - 1) / CLSCAN_TILE;
    const ulong t = clscan_lb_ticket(state, ntiles, &ticket);
    const clscan_sel_source s = {src + src_off, flags + flags_off};
    CLSCAN_SEL_RUNS_SINK
    __global CLSCAN_E *out = dst + dst_off;
    __global clscan_lb_word *status = state + CLSCAN_LB_HEADER_WORDS;
    const ulong base = t * CLSCAN_TILE;
    const uint in_tile = (uint)min((ulong)CLSCAN_TILE, n - base);
#if CLSCAN_WG_SIZE > 1
    __local CLSCAN_T tile[CLSCAN_SEL_LOCAL];
    __local CLSCAN_E edges[CLSCAN_SEL_EDGE_SLOTS];
    __local CLSCAN_E stash[CLSCAN_SEL_STASH_SLOTS];
    CLSCAN_E x[CLSCAN_SEL_HELD];
    uint keep = 0;
    const CLSCAN_T total =
        clscan_sel_rank(s, base, in_tile, x, &keep, tile, scratch, edges, stash);
    const CLSCAN_T carry =
        clscan_lb_tile_prefix(status, t, epoch, spin_limit, total, 0, total, s, &lb,
                              scratch, stats);
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
    clscan_sel_write_runs(s, out, lengths, base, in_tile, x, keep, tile, stash, carry);
#else
    clscan_sel_write(s, out, n, base, in_tile, x, keep, tile, stash, carry);
#endif
#else
    /* One work-item per group (CPU devices): one walk over the tile stages its kept
     * elements at the front of a local buffer (and, for partition, the rejected ones at
     * its back) through a store whose address is computed, not branched on (a branch on
     * a random keep decision mispredicts half the time: docs/ALGORITHMS.md); after the
     * look-back both runs are copied out. */
    __local CLSCAN_E stage[CLSCAN_TILE];
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
    __local uint head[CLSCAN_TILE]; /* the kept elements' places in the tile */
#endif
    uint kept = 0;
    for (uint k = 0; k < in_tile; ++k) {
        const ulong i = base + k;
        const CLSCAN_E v = s.src[i];
        const uint keep = (uint)clscan_sel_keep_loaded(s, i, v);
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
        head[kept] = k;
#endif
#if CLSCAN_SEL_MODE == CLSCAN_SEL_PARTITION
        /* (Arithmetic, not ?:, which compiled to a branch on PoCL.) */
        const uint back = CLSCAN_TILE - 1 - (k - kept);
        stage[back + keep * (kept - back)] = v;
#else
        stage[kept] = v; /* (taken by the next kept element unless this one is kept) */
#endif
        kept += keep;
    }
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
    const CLSCAN_T total = kept ? upsample((uint)base + head[kept - 1] + 1u, kept) : 0UL;
#else
    const CLSCAN_T total = (CLSCAN_T)kept;
#endif
    const CLSCAN_T carry =
        clscan_lb_tile_prefix(status, t, epoch, spin_limit, total, 0, total, s, &lb,
                              scratch, stats);
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
    /* Each head ends the run before it (the last run: below). */
    uint after_last = (uint)(carry >> 32);
    for (uint k = 0; k < kept; ++k) {
        const uint i = (uint)base + head[k];
        clscan_sel_run_head(out, lengths, i, stage[k], (uint)carry + k, after_last);
        after_last = i + 1;
    }
#else
    for (uint k = 0; k < kept; ++k) out[(ulong)carry + k] = stage[k];
#endif
#if CLSCAN_SEL_MODE == CLSCAN_SEL_PARTITION
    /* The tile's r-th rejected element is the range's (base - carry + r)-th. */
    const ulong last = n - 1 - (base - (ulong)carry);
    for (uint r = 0; r < in_tile - kept; ++r) out[last - r] = stage[CLSCAN_TILE - 1 - r];
#endif
#endif
    if (get_local_id(0) == 0 && t == ntiles - 1) {
        const CLSCAN_T all = CLSCAN_OP(carry, total);
        count[0] = CLSCAN_SEL_COUNT_OF(all);
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
        clscan_sel_last_run(lengths, n, all);
#endif
    }
}
#endif /* CLSCAN_SEL_SINGLE_PASS */

#endif /* CLSCAN_SELECT_CL */
