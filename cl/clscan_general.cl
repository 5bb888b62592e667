/* clscan_general.cl - device-wide general scans over the tiles of
 * cl/clscan_general_tile.cl (custom operators and types, input transforms, segments).
 * Multi-level: each work-group reduces its tiles to a partial, the partials are scanned
 * (clscan_scan_partials of cl/clscan_scan.cl, or its levels), then each work-group scans
 * its tiles from its partial. Single-pass (CLSCAN_GEN_SINGLE_PASS=1): one kernel, one
 * tile per work-group, its prefix from the decoupled look-back. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_GENERAL_CL
#define CLSCAN_GENERAL_CL
#ifndef CLSCAN_GENERAL_TILE_CL
#include "clscan_general_tile.cl"
#endif
#ifndef CLSCAN_SCAN_CL
#include "clscan_scan.cl"
#endif

/* A kernel's tile in local memory: the values and heads of the segmented tile of GPUs,
 * or the elements of the scan (cl/clscan_general_tile.cl). */
#if CLSCAN_GEN_VALUE_TILE
#define CLSCAN_GEN_TILE_DECLARE                                  \
    __local CLSCAN_GEN_OUT values[CLSCAN_WG_TILE_LOCAL];         \
    __local uint heads[CLSCAN_GEN_HEAD_WORDS]
#else
#define CLSCAN_GEN_TILE_DECLARE __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL]
#endif

/* partials[part_off + group] = the combination of the scan's elements in the group's
 * tiles of the range [0, n). */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_gen_reduce_tiles(__global const CLSCAN_GEN_IN *src, ulong src_off,
                             __global const CLSCAN_GEN_SEG *seg, ulong seg_off,
                             ulong index_base, ulong n,
                             int inclusive, ulong tiles_per_group,
                             __global CLSCAN_T *partials, ulong part_off, uint carry_flags)
{
    CLSCAN_GEN_TILE_DECLARE;
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    const clscan_gen_source s = {src + src_off, seg + seg_off, !inclusive,
                                 (carry_flags & CLSCAN_CARRY_IN) != 0, index_base};
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T acc = CLSCAN_IDENTITY;
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
        /* (The group's reduction ended with a barrier after its last read of the tile.) */
#if CLSCAN_GEN_VALUE_TILE
        uint bits;
        const CLSCAN_T mine = clscan_gen_values_part(s, base, count, values, heads, &bits);
        const CLSCAN_T total = clscan_wg_reduce_value(mine, scratch);
#else
        clscan_gen_load_tile(s, base, count, tile);
        const CLSCAN_T total = clscan_wg_reduce(tile, scratch);
#endif
        acc = CLSCAN_OP(acc, total);
    }
    if (get_local_id(0) == 0) partials[part_off + get_group_id(0)] = acc;
}

/* Scans the group's tiles into dst[dst_off, +n), starting from partials[part_off +
 * group] when use_partials is set (else from the identity), after the carry-in; the
 * group of the last tile writes the total (carry arguments: see CLSCAN_CARRY_IN of
 * cl/clscan_scan.cl, their values of the output type). Launched with n == 0 and one
 * group, it writes the total alone. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_gen_scan_tiles(__global const CLSCAN_GEN_IN *src, ulong src_off,
                           __global const CLSCAN_GEN_SEG *seg, ulong seg_off,
                           ulong index_base,
                           __global CLSCAN_GEN_OUT *dst, ulong dst_off, ulong n,
                           int inclusive, ulong tiles_per_group,
                           __global const CLSCAN_T *partials, ulong part_off, int use_partials,
                           CLSCAN_GEN_OUT init_value, __global const CLSCAN_GEN_OUT *init_buf,
                           ulong init_off, __global CLSCAN_GEN_OUT *total_buf,
                           ulong total_off, uint carry_flags CLSCAN_GEN_OUTPUT_PARAMS)
{
    const clscan_gen_outputs o = CLSCAN_GEN_OUTPUTS(n, carry_flags);
    CLSCAN_GEN_TILE_DECLARE;
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    const clscan_gen_source s = {src + src_off, seg + seg_off, !inclusive,
                                 (carry_flags & CLSCAN_CARRY_IN) != 0, index_base};
    const int tile_inclusive = clscan_gen_tile_inclusive(inclusive);
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T start = CLSCAN_IDENTITY;
    if (carry_flags & CLSCAN_CARRY_IN)
        start = clscan_gen_carry(CLSCAN_CARRY_START(carry_flags, init_value, init_buf, init_off));
    CLSCAN_T carry = clscan_group_start(use_partials, partials, part_off, carry_flags, start);
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile is stored */
#if CLSCAN_GEN_VALUE_TILE
        (void)tile_inclusive;
        uint bits;
        CLSCAN_T total;
        const CLSCAN_T mine = clscan_gen_values_part(s, base, count, values, heads, &bits);
        const CLSCAN_T before = clscan_wg_scan_value(mine, 0, scratch, &total);
        if (!(carry_flags & CLSCAN_CARRY_NO_DST))
            clscan_gen_values_store(dst + dst_off, s, base, count, values, heads, bits,
                                    CLSCAN_OP(carry, before), o);
#else
        clscan_gen_load_tile(s, base, count, tile);
        const CLSCAN_T total = clscan_wg_scan(tile, scratch, tile_inclusive);
        if (!(carry_flags & CLSCAN_CARRY_NO_DST))
            clscan_gen_store_tile(dst + dst_off, s, base, count, tile, carry, o);
#endif
        carry = CLSCAN_OP(carry, total);
    }
    if ((carry_flags & CLSCAN_CARRY_OUT) && get_local_id(0) == 0 &&
        get_group_id(0) == get_num_groups(0) - 1)
        total_buf[total_off] = clscan_gen_total(s, n, carry);
}

#ifndef CLSCAN_GEN_SINGLE_PASS
#define CLSCAN_GEN_SINGLE_PASS 0
#endif
#if CLSCAN_GEN_SINGLE_PASS
#ifndef CLSCAN_LOOKBACK_CL
#include "clscan_lookback.cl"
#endif

/* Single-pass general scan of the range into dst[dst_off, +n), which must not overlap
 * src or seg (a fallback reads other tiles' input; in-place calls scan a copy), one tile
 * per work-group, launched with exactly ceil(n / CLSCAN_TILE) groups. The ticket,
 * state, epoch, spin limit and stats are those of clscan_scan_single. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_gen_single(__global const CLSCAN_GEN_IN *src, ulong src_off,
                       __global const CLSCAN_GEN_SEG *seg, ulong seg_off,
                       ulong index_base,
                       __global CLSCAN_GEN_OUT *dst, ulong dst_off, ulong n, int inclusive,
                       __global clscan_lb_word *state, uint epoch, uint spin_limit,
                       __global uint *stats_base, uint stats_off, CLSCAN_GEN_OUT init_value,
                       __global const CLSCAN_GEN_OUT *init_buf, ulong init_off,
                       __global CLSCAN_GEN_OUT *total_buf, ulong total_off,
                       uint carry_flags CLSCAN_GEN_OUTPUT_PARAMS)
{
    const clscan_gen_outputs o = CLSCAN_GEN_OUTPUTS(n, carry_flags);
    __global uint *stats = CLSCAN_LB_STATS(state, stats_base, stats_off);
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    __local clscan_lb_local lb;
    __local uint ticket;
    const int has_start = (carry_flags & CLSCAN_CARRY_IN) != 0;
    const clscan_gen_source s = {src + src_off, seg + seg_off, !inclusive, has_start,
                                 index_base};
    const ulong t = clscan_lb_ticket(state, (n + CLSCAN_TILE - 1) / CLSCAN_TILE, &ticket);
    __global clscan_lb_word *status = state + CLSCAN_LB_HEADER_WORDS;
    const ulong base = t * CLSCAN_TILE;
    const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
#if CLSCAN_GEN_VALUE_TILE
    CLSCAN_GEN_TILE_DECLARE;
    uint bits;
    CLSCAN_T total;
    const CLSCAN_T mine = clscan_gen_values_part(s, base, count, values, heads, &bits);
    const CLSCAN_T before = clscan_wg_scan_value(mine, 0, scratch, &total);
#elif CLSCAN_GEN_VEC
    uint first = 0;
    /* (With an output stage the total alone: the outputs come after the look-back.) */
#ifdef CLSCAN_GEN_OUTPUT_GIVEN
    const int vec_dst = 0;
#else
    const int vec_dst = !(carry_flags & CLSCAN_CARRY_NO_DST);
#endif
    /* (Outputs past the caches where the host asks for it and the tile's vectors are
     * aligned: the streaming twin; cl/clscan_common.cl, CLSCAN_STREAM_STORE.) */
    const int vec_stream = vec_dst && (carry_flags & CLSCAN_CARRY_STREAM) &&
                           ((ulong)(dst + dst_off + base) & (sizeof(CLSCAN_GEN_VT) - 1)) == 0;
    const CLSCAN_T total =
        vec_stream ? clscan_gen_vec_local_streamed(s, base, count, dst + dst_off, &first)
                   : clscan_gen_vec_local(s, base, count,
                                          vec_dst ? dst + dst_off : (__global CLSCAN_GEN_OUT *)0,
                                          &first);
#elif CLSCAN_GEN_USE_RUNS
#if CLSCAN_GEN_RUNS_FROM_TILE
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    clscan_gen_load_tile(s, base, count, tile);
#else
    __local CLSCAN_T *tile = 0;
#endif
    const clscan_gen_runs runs =
        clscan_gen_run_totals(s, base, count, tile, CLSCAN_GEN_RUNS_FROM_TILE);
    const CLSCAN_T total = clscan_gen_runs_total(runs);
#else
#if defined(CLSCAN_SG_IMPL_NVIDIA) && CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_NVIDIA && \
    !CLSCAN_LB_ORDERED && CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    /* Asks the host for the register cap that lets as many groups onto a multiprocessor
     * as this kernel's local memory allows (src/kernels/ptx.c reads the comment in the
     * PTX). A 2x2 integer matrix product declared exact took 48 registers uncapped, five
     * groups of 256 where its 37 KiB of local memory allow six; under the cap of 40 it
     * took 0.93-0.94x the time on the H200 (docs/PERFORMANCE.md, forty-third session).
     * The ordered look-back (floats, other user operators) keeps its registers: its
     * lb->near takes 4 KiB more local memory, and under 40 the matrix scan spilled and
     * lost 2%. */
    __asm__ volatile("// clscan-fit-registers");
#endif
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    clscan_gen_load_tile(s, base, count, tile);
    const CLSCAN_T total = clscan_wg_scan(tile, scratch, clscan_gen_tile_inclusive(inclusive));
#endif
    CLSCAN_T start = CLSCAN_IDENTITY;
    if (has_start)
        start = clscan_gen_carry(CLSCAN_CARRY_START(carry_flags, init_value, init_buf, init_off));
    const CLSCAN_T carry = clscan_lb_tile_prefix(status, t, epoch, spin_limit, total, has_start,
                                                 start, s, &lb, scratch, stats);
    if ((carry_flags & CLSCAN_CARRY_OUT) && get_local_id(0) == 0 &&
        t == (n + CLSCAN_TILE - 1) / CLSCAN_TILE - 1)
        total_buf[total_off] = clscan_gen_total(s, n, CLSCAN_OP(carry, total));
    if (!(carry_flags & CLSCAN_CARRY_NO_DST)) {
#if CLSCAN_GEN_VALUE_TILE
        clscan_gen_values_store(dst + dst_off, s, base, count, values, heads, bits,
                                CLSCAN_OP(carry, before), o);
#elif CLSCAN_GEN_VEC && defined(CLSCAN_GEN_OUTPUT_GIVEN)
        (void)first;
        clscan_gen_vec_emit(s, base, count, carry, dst + dst_off, o);
#elif CLSCAN_GEN_VEC
        (void)o;
        clscan_gen_vec_fix(dst + dst_off, base, first, carry);
#elif CLSCAN_GEN_USE_RUNS
        clscan_gen_run_outputs(s, base, count, tile, CLSCAN_GEN_RUNS_FROM_TILE, runs, carry,
                               clscan_gen_tile_inclusive(inclusive), dst + dst_off, o);
#else
        clscan_gen_store_tile(dst + dst_off, s, base, count, tile, carry, o);
#endif
    }
}
#endif /* CLSCAN_GEN_SINGLE_PASS */

#endif /* CLSCAN_GENERAL_CL */
