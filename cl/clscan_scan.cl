/* clscan_scan.cl - device-wide scans. Multi-level reduce-then-scan: each work-group
 * reduces a contiguous run of tiles to one partial, the partials are scanned (by one
 * work-group, or recursively by these kernels), then each work-group scans its tiles
 * again starting from its scanned partial; with one work-group the last kernel alone
 * does the whole scan. Single-pass (CLSCAN_SINGLE_PASS=1): one kernel, one tile per
 * work-group, each tile's prefix found by the decoupled look-back. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_SCAN_CL
#define CLSCAN_SCAN_CL
#ifndef CLSCAN_WORKGROUP_CL
#include "clscan_workgroup.cl"
#endif

/* Carry-in and carry-out (include/clscan.h: clscan_carry). A scan kernel's carry
 * arguments: the carry-in given by value (init_value) or in init_buf[init_off], the
 * range's total written to total_buf[total_off], as carry_flags says: */
#define CLSCAN_CARRY_IN 1u        /* there is a carry-in: the value before element 0 */
#define CLSCAN_CARRY_IN_BUFFER 2u /* ... read from init_buf, else init_value */
#define CLSCAN_CARRY_OUT 4u       /* write the total (after the carry-in) */
#define CLSCAN_CARRY_NO_DST 8u    /* reduce only: nothing written to dst */
#define CLSCAN_CARRY_SKIP_STORE 16u /* general scans with an output stage: the outputs run,
                                       dst is not written */
#define CLSCAN_CARRY_STREAM 32u /* single-pass scans of one work-item groups (CPUs): dst
                                   written past the caches (the host sets it
                                   where the call's input and output exceed the cache) */
/* The carry-in (meaningful only with CLSCAN_CARRY_IN; the buffer is read only when the
 * flag says so). */
#define CLSCAN_CARRY_START(flags, value, buf, off) \
    (((flags) & CLSCAN_CARRY_IN_BUFFER) ? (buf)[(off)] : (value))

/* Tiles [first, end) of this group, where the group owns tiles_per_group tiles. */
#define CLSCAN_GROUP_TILES(n, tiles_per_group, first, end)                    \
    const ulong ntiles_ = ((n) + CLSCAN_TILE - 1) / CLSCAN_TILE;              \
    const ulong first = (ulong)get_group_id(0) * (tiles_per_group);           \
    const ulong end = min(first + (tiles_per_group), ntiles_)

/* The reduce kernel's vectors (built-in operators on GPUs): 16 bytes, CLSCAN_RV_LANES
 * elements, folded lane by lane into as many accumulators. */
#ifndef CLSCAN_RV_UNROLL
#define CLSCAN_RV_UNROLL 4
#endif
#if CLSCAN_T_BYTES == 4
#define CLSCAN_RV_LANES 4
#define CLSCAN_RV_T CLSCAN_CAT(CLSCAN_T, 4)
#define CLSCAN_RV_FOLD(a, x)                                                    \
    do {                                                                        \
        a[0] = CLSCAN_OP(a[0], (x).s0);                                         \
        a[1] = CLSCAN_OP(a[1], (x).s1);                                         \
        a[2] = CLSCAN_OP(a[2], (x).s2);                                         \
        a[3] = CLSCAN_OP(a[3], (x).s3);                                         \
    } while (0)
#else
#define CLSCAN_RV_LANES 2
#define CLSCAN_RV_T CLSCAN_CAT(CLSCAN_T, 2)
#define CLSCAN_RV_FOLD(a, x)                                                    \
    do {                                                                        \
        a[0] = CLSCAN_OP(a[0], (x).s0);                                         \
        a[1] = CLSCAN_OP(a[1], (x).s1);                                         \
    } while (0)
#endif

/* The combination of the tiles of src[src_off, src_off + n) that group `group` owns
 * when each owns tiles_per_group, returned to every work-item of the group (which runs
 * it together: tile, without CLSCAN_WG_DIRECT, is the group's tile in local memory).
 * The same group index gives the same bits, whichever work-group runs it. */
CLSCAN_T clscan_reduce_run_(__global const CLSCAN_T *src, ulong src_off, ulong n,
                            ulong tiles_per_group, ulong group, __local CLSCAN_T *tile,
                            __local CLSCAN_T *scratch)
{
    const ulong ntiles = (n + CLSCAN_TILE - 1) / CLSCAN_TILE;
    const ulong first = group * tiles_per_group;
    const ulong end = min(first + tiles_per_group, ntiles);
#if CLSCAN_WG_DIRECT
    (void)tile;
    CLSCAN_T acc = CLSCAN_IDENTITY;
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const CLSCAN_T total = clscan_wg_direct_reduce(
            src + src_off, base, (uint)min((ulong)CLSCAN_TILE, n - base), scratch);
        acc = CLSCAN_OP(acc, total);
    }
#elif CLSCAN_WG_SIZE == 1
    /* One work-item per group (CPUs): the group's elements straight from global memory,
     * folded as four consecutive runs side by side, then the runs' totals left to right
     * (index order kept). One chain of operations waits on each result in turn; four
     * independent ones overlap (PoCL, float add at 2^22: 2.7 ms through the local tile
     * and one chain; docs/PERFORMANCE.md has the runs). */
    (void)tile;
    (void)scratch;
    const ulong lo = min(first * CLSCAN_TILE, n), hi = min(end * CLSCAN_TILE, n);
    const ulong len = (hi - lo + 3) / 4;
    __global const CLSCAN_T *p = src + src_off + lo;
    CLSCAN_T a0 = CLSCAN_IDENTITY, a1 = CLSCAN_IDENTITY, a2 = CLSCAN_IDENTITY,
             a3 = CLSCAN_IDENTITY;
    /* (Runs 0 to 2 have len elements where the range has 3 * len or more; the last the
     * rest.) */
    const ulong full = hi - lo > 3 * len ? min(len, hi - lo - 3 * len) : 0;
    for (ulong j = 0; j < full; ++j) { /* (every run has element j) */
        const CLSCAN_T x0 = p[j], x1 = p[len + j], x2 = p[2 * len + j], x3 = p[3 * len + j];
        a0 = CLSCAN_OP(a0, x0);
        a1 = CLSCAN_OP(a1, x1);
        a2 = CLSCAN_OP(a2, x2);
        a3 = CLSCAN_OP(a3, x3);
    }
    for (ulong j = full; j < len; ++j) { /* the last run is short: the rest one by one */
        if (j < hi - lo) a0 = CLSCAN_OP(a0, p[j]);
        if (len + j < hi - lo) a1 = CLSCAN_OP(a1, p[len + j]);
        if (2 * len + j < hi - lo) a2 = CLSCAN_OP(a2, p[2 * len + j]);
        if (3 * len + j < hi - lo) a3 = CLSCAN_OP(a3, p[3 * len + j]);
    }
    const CLSCAN_T h0 = CLSCAN_OP(a0, a1), h1 = CLSCAN_OP(h0, a2);
    const CLSCAN_T acc = CLSCAN_OP(h1, a3);
#elif CLSCAN_OP_ID != CLSCAN_OP_CUSTOM
    /* A built-in operator (every one is commutative): each work-item folds a strided
     * share of the group's elements straight from global memory into CLSCAN_RV_LANES
     * accumulators, CLSCAN_RV_UNROLL loads of 16 bytes in flight, no tile in local memory
     * and no barrier until the group's one reduction at the end. Still one fixed order
     * per (device, tuning, n), so the bits repeat. (H100, int32 at 2^24: 0.84x the
     * copy's time through the tile, 0.66x this way; 0.50x at 2^28, as fast as CUB;
     * docs/PERFORMANCE.md has the runs.) */
    (void)tile;
    const uint lid = get_local_id(0);
    const ulong lo = min(first * CLSCAN_TILE, n), hi = min(end * CLSCAN_TILE, n);
    __global const CLSCAN_T *p = src + src_off;
    CLSCAN_T a[CLSCAN_RV_LANES];
    for (uint c = 0; c < CLSCAN_RV_LANES; ++c) a[c] = CLSCAN_IDENTITY;
    ulong k = lo;
    /* Vectors where the range starts on a 16-byte boundary of the buffer (lo is a
     * multiple of the tile, so the offset alone decides, for every group alike). */
    if ((src_off & (CLSCAN_RV_LANES - 1)) == 0) {
        const ulong step = (ulong)CLSCAN_WG_SIZE * CLSCAN_RV_LANES * CLSCAN_RV_UNROLL;
        __global const CLSCAN_RV_T *v = (__global const CLSCAN_RV_T *)(p + lo);
        for (; hi - k >= step; k += step, v += step / CLSCAN_RV_LANES) {
            CLSCAN_RV_T x[CLSCAN_RV_UNROLL];
            for (uint u = 0; u < CLSCAN_RV_UNROLL; ++u) x[u] = v[u * CLSCAN_WG_SIZE + lid];
            for (uint u = 0; u < CLSCAN_RV_UNROLL; ++u) CLSCAN_RV_FOLD(a, x[u]);
        }
    }
    for (k += lid; k < hi; k += CLSCAN_WG_SIZE) a[0] = CLSCAN_OP(a[0], p[k]);
    for (uint c = 1; c < CLSCAN_RV_LANES; ++c) a[0] = CLSCAN_OP(a[0], a[c]);
    const CLSCAN_T acc = clscan_wg_reduce_value(a[0], scratch);
#else
    CLSCAN_T acc = CLSCAN_IDENTITY;
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
        /* (clscan_wg_reduce ended with a barrier after its last read of the tile.) */
        clscan_wg_load(src + src_off, base, count, tile);
        /* Not CLSCAN_OP(acc, clscan_wg_reduce(...)): the operator macro may evaluate
         * an argument twice, and a work-group function must run exactly once. */
        const CLSCAN_T total = clscan_wg_reduce(tile, scratch);
        acc = CLSCAN_OP(acc, total);
    }
#endif
    return acc;
}

/* The local memory of a kernel that runs clscan_reduce_run_: the group's tile (none
 * with CLSCAN_WG_DIRECT, whose reduction reads global memory) and the scratch. */
#if CLSCAN_WG_DIRECT
#define CLSCAN_REDUCE_LOCALS                                                   \
    __local CLSCAN_T *tile = 0;                                                \
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH]
#else
#define CLSCAN_REDUCE_LOCALS                                                   \
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];                               \
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH]
#endif

/* partials[part_off + group] = the combination of the group's tiles of
 * src[src_off, src_off + n). */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_reduce_tiles(__global const CLSCAN_T *src, ulong src_off, ulong n,
                         ulong tiles_per_group, __global CLSCAN_T *partials, ulong part_off)
{
    CLSCAN_REDUCE_LOCALS;
    const CLSCAN_T acc = clscan_reduce_run_(src, src_off, n, tiles_per_group, get_group_id(0),
                                            tile, scratch);
    if (get_local_id(0) == 0) partials[part_off + get_group_id(0)] = acc;
}

/* Exclusive scan, in place, of partials[part_off, part_off + count) with count <=
 * CLSCAN_TILE: one work-group. (More partials are scanned by the three kernels
 * recursively.) */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_scan_partials(__global CLSCAN_T *partials, ulong part_off, uint count)
{
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
#if CLSCAN_WG_DIRECT
    clscan_wg_direct_scan(partials, part_off, count, partials, part_off, CLSCAN_IDENTITY, 0, 1,
                          scratch);
#else
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    clscan_wg_load(partials, part_off, count, tile);
    clscan_wg_scan(tile, scratch, 0);
    clscan_wg_store(partials, part_off, count, tile, CLSCAN_IDENTITY);
#endif
}

/* A group's starting value in the multi-level scan: its scanned partial (use_partials),
 * after the call's carry-in when there is one; group 0 starts from the carry-in itself
 * (its partial is the identity). */
CLSCAN_T clscan_group_start(int use_partials, __global const CLSCAN_T *partials,
                            ulong part_off, uint carry_flags, CLSCAN_T start)
{
    const ulong g = get_group_id(0);
    const CLSCAN_T p = use_partials ? partials[part_off + g] : CLSCAN_IDENTITY;
    if (!(carry_flags & CLSCAN_CARRY_IN)) return p;
    return use_partials && g != 0 ? CLSCAN_OP(start, p) : start;
}

/* Scans the group's tiles of src into dst, starting from partials[part_off + group]
 * when use_partials is set (else from the identity), after the carry-in; the group of
 * the last tile writes the total (carry arguments: see CLSCAN_CARRY_IN). Launched with
 * n == 0 and one group, it writes the total alone (the carry-in, or the identity). src
 * and dst may be the same range. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_scan_tiles(__global const CLSCAN_T *src, ulong src_off, __global CLSCAN_T *dst,
                       ulong dst_off, ulong n, ulong tiles_per_group,
                       __global const CLSCAN_T *partials, ulong part_off, int use_partials,
                       int inclusive, CLSCAN_T init_value, __global const CLSCAN_T *init_buf,
                       ulong init_off, __global CLSCAN_T *total_buf, ulong total_off,
                       uint carry_flags)
{
#if !CLSCAN_WG_DIRECT
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
#endif
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T start = CLSCAN_IDENTITY;
    if (carry_flags & CLSCAN_CARRY_IN)
        start = CLSCAN_CARRY_START(carry_flags, init_value, init_buf, init_off);
    CLSCAN_T carry = clscan_group_start(use_partials, partials, part_off, carry_flags, start);
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
#if CLSCAN_WG_DIRECT
        const CLSCAN_T total =
            clscan_wg_direct_scan(src + src_off, base, count, dst + dst_off, base, carry,
                                  inclusive, !(carry_flags & CLSCAN_CARRY_NO_DST), scratch);
#else
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile is stored */
        clscan_wg_load(src + src_off, base, count, tile);
        const CLSCAN_T total = clscan_wg_scan(tile, scratch, inclusive);
        if (!(carry_flags & CLSCAN_CARRY_NO_DST))
            clscan_wg_store(dst + dst_off, base, count, tile, carry);
#endif
        carry = CLSCAN_OP(carry, total);
    }
    if ((carry_flags & CLSCAN_CARRY_OUT) && get_local_id(0) == 0 &&
        get_group_id(0) == get_num_groups(0) - 1)
        total_buf[total_off] = carry;
}

#ifndef CLSCAN_SINGLE_PASS
#define CLSCAN_SINGLE_PASS 0
#endif
#if CLSCAN_SINGLE_PASS
#ifndef CLSCAN_LOOKBACK_CL
#include "clscan_lookback.cl"
#endif

#if CLSCAN_WG_SIZE == 1
/* out[base + k] for k < count: run op the scan (inclusive, or exclusive) of in[base,
 * base + k], one element after another, stored with STORE (CLSCAN_PLAIN_STORE or
 * CLSCAN_STREAM_STORE: twins, cl/clscan_common.cl). */
#define CLSCAN_SCAN_SERIAL_OUT_(name, STORE)                                               \
    void name(__global const CLSCAN_T *in, __global CLSCAN_T *out, ulong base, uint count,  \
              CLSCAN_T run, int inclusive)                                                  \
    {                                                                                       \
        if (inclusive) {                                                                    \
            for (uint k = 0; k < count; ++k) {                                              \
                const CLSCAN_T x = in[base + k];                                            \
                run = CLSCAN_OP(run, x);                                                    \
                STORE(out + base + k, run);                                                 \
            }                                                                               \
        } else {                                                                            \
            for (uint k = 0; k < count; ++k) {                                              \
                const CLSCAN_T x = in[base + k];                                            \
                STORE(out + base + k, run);                                                 \
                run = CLSCAN_OP(run, x);                                                    \
            }                                                                               \
        }                                                                                   \
    }
CLSCAN_SCAN_SERIAL_OUT_(clscan_scan_serial_out, CLSCAN_PLAIN_STORE)
CLSCAN_SCAN_SERIAL_OUT_(clscan_scan_serial_out_streamed, CLSCAN_STREAM_STORE)
#undef CLSCAN_SCAN_SERIAL_OUT_
#endif

/* Single-pass scan of src[src_off, +n) into dst[dst_off, +n), which must not overlap
 * (a fallback reads other tiles' input while their owners write output; in-place calls
 * take the multi-level scan), one tile per work-group, launched with exactly
 * ceil(n / CLSCAN_TILE) groups. Tiles are numbered by an atomic ticket (state's first
 * word, which the last ticket resets to 0), not by group id, so a tile waits only on
 * tiles whose groups have started. state holds the status words after its header,
 * tagged with `epoch`, which the host makes new for every call. stats: see
 * clscan_lb_tile_prefix. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_scan_single(__global const CLSCAN_T *src, ulong src_off, __global CLSCAN_T *dst,
                        ulong dst_off, ulong n, __global clscan_lb_word *state, uint epoch,
                        uint spin_limit, int inclusive, __global uint *stats_base,
                        uint stats_off, CLSCAN_T init_value, __global const CLSCAN_T *init_buf,
                        ulong init_off, __global CLSCAN_T *total_buf, ulong total_off,
                        uint carry_flags)
{
    __global uint *stats = CLSCAN_LB_STATS(state, stats_base, stats_off);
#if CLSCAN_WG_SIZE > 1
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
#endif
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    __local clscan_lb_local lb;
    __local uint ticket;
    const ulong t = clscan_lb_ticket(state, (n + CLSCAN_TILE - 1) / CLSCAN_TILE, &ticket);
    __global const CLSCAN_T *in = src + src_off;
    __global clscan_lb_word *status = state + CLSCAN_LB_HEADER_WORDS;
    const ulong base = t * CLSCAN_TILE;
    const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
#if CLSCAN_WG_SIZE > 1
    clscan_wg_load(in, base, count, tile);
    const CLSCAN_T total = clscan_wg_scan(tile, scratch, inclusive);
#else
    /* One work-item per group (CPU devices): no local staging. The tile is reduced
     * straight from global memory now, and scanned from it once the carry is known
     * (that second read finds it in the cache). (Walking 8 segments side by side, for
     * more independent chains of operations, measured 60% slower on PoCL.) */
    /* (As clscan_lb_tile_part combines a tile: in lanes where the look-back keeps a
     * fixed order and the operator is built in, else from the first element.) */
#ifdef CLSCAN_LB_LANES
    const CLSCAN_T total = clscan_lb_fold_lanes(in + base, count);
#else
    CLSCAN_T total = in[base];
    CLSCAN_IN_ORDER
    for (uint k = 1; k < count; ++k) {
        const CLSCAN_T x = in[base + k];
        total = CLSCAN_OP(total, x);
    }
#endif
#endif
    const int has_start = (carry_flags & CLSCAN_CARRY_IN) != 0;
    CLSCAN_T start = CLSCAN_IDENTITY;
    if (has_start) start = CLSCAN_CARRY_START(carry_flags, init_value, init_buf, init_off);
    const CLSCAN_T carry = clscan_lb_tile_prefix(status, t, epoch, spin_limit, total, has_start,
                                                 start, in, &lb, scratch, stats);
    if ((carry_flags & CLSCAN_CARRY_OUT) && get_local_id(0) == 0 &&
        t == (n + CLSCAN_TILE - 1) / CLSCAN_TILE - 1)
        total_buf[total_off] = CLSCAN_OP(carry, total);
    if (carry_flags & CLSCAN_CARRY_NO_DST) return;
#if CLSCAN_WG_SIZE > 1
    clscan_wg_store(dst + dst_off, base, count, tile, carry);
#else
    if (carry_flags & CLSCAN_CARRY_STREAM)
        clscan_scan_serial_out_streamed(in, dst + dst_off, base, count, carry, inclusive);
    else
        clscan_scan_serial_out(in, dst + dst_off, base, count, carry, inclusive);
#endif
}

/* A reduction of src[src_off, +n) into result[result_off] in one kernel, where the
 * levels would take two (src/algo/reduce.c), launched with `groups` work-groups: each
 * folds the run of tiles of its ticket (state's counter, as clscan_scan_single) with
 * clscan_reduce_tiles's code and publishes it as that ticket's look-back aggregate; the
 * group of the last ticket, which starts after every other has, then folds the
 * partials before its own, work-item l a consecutive share, and the shares in order.
 * A partial that does not show within spin_limit reads (the silent test's, or one a
 * failed earlier call left unpublished) is folded again by that group with the owner's
 * code, so its bits are the owner's, and published in the owner's words: the smallest
 * such index a round. A published partial stays, so the rounds end, at the latest with
 * the `groups`-th, in one that finds every partial. (Not on llvmpipe, which drops that
 * store: docs/IMPLEMENTATION-ISSUES.md.) */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_reduce_single(__global const CLSCAN_T *src, ulong src_off, ulong n,
                          ulong tiles_per_group, uint groups, __global clscan_lb_word *state,
                          uint epoch, uint spin_limit, __global CLSCAN_T *result,
                          ulong result_off)
{
    CLSCAN_REDUCE_LOCALS;
    __local uint ticket, missing;
    const uint lid = get_local_id(0);
    const ulong g = clscan_lb_ticket(state, groups, &ticket);
    __global clscan_lb_word *status = state + CLSCAN_LB_HEADER_WORDS;
    const CLSCAN_T acc = clscan_reduce_run_(src, src_off, n, tiles_per_group, g, tile, scratch);
    if (g + 1 < groups) {
#if CLSCAN_LB_TEST == 2
        if (g % 4 == 1) return; /* the silent test: the last group folds this one again */
#endif
        if (lid == 0)
            clscan_lb_publish(status + g * CLSCAN_LB_PARTS, epoch, CLSCAN_LB_AGGREGATE, acc);
        return;
    }
    const uint per = (groups - 1 + CLSCAN_WG_SIZE - 1) / CLSCAN_WG_SIZE;
    CLSCAN_T share = CLSCAN_IDENTITY;
    uint m = 0u;
    for (uint round = 0; m != 0xffffffffu && round < groups; ++round) {
        if (lid == 0) missing = 0xffffffffu;
        barrier(CLK_LOCAL_MEM_FENCE);
        share = CLSCAN_IDENTITY;
        for (uint j = 0; j < per; ++j) {
            const uint i = lid * per + j;
            if (i + 1 < groups) {
                __global clscan_lb_word *words = status + (ulong)i * CLSCAN_LB_PARTS;
                CLSCAN_T v = CLSCAN_IDENTITY;
                uint kind, spins = 0;
                while ((kind = clscan_lb_read(words, epoch, &v)) == 0u && spins++ < spin_limit) {
                }
                /* (Decided by what was read, not by how the wait ended.) */
                if (kind == 0u)
                    atomic_min(&missing, i);
                else
                    share = CLSCAN_OP(share, v);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        m = missing;
        barrier(CLK_LOCAL_MEM_FENCE); /* (read by all before work-item 0 resets it) */
        if (m != 0xffffffffu) {
            const CLSCAN_T again = clscan_reduce_run_(src, src_off, n, tiles_per_group, m, tile,
                                                      scratch);
            /* (The owner's words, bit for bit: should the owner publish too, both write the
             * same words.) */
            if (lid == 0)
                clscan_lb_publish(status + (ulong)m * CLSCAN_LB_PARTS, epoch,
                                  CLSCAN_LB_AGGREGATE, again);
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
    }
    const CLSCAN_T before = clscan_wg_reduce_value(share, scratch);
    if (lid == 0) result[result_off] = CLSCAN_OP(before, acc);
}
#endif /* CLSCAN_SINGLE_PASS */

#endif /* CLSCAN_SCAN_CL */
