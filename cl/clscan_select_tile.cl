/* clscan_select_tile.cl - one tile of stream compaction: which elements it keeps (by
 * flags, by a predicate, or by differing from the element before), their ranks among the
 * tile's kept elements from a work-group scan of the keep flags, and the writes. The
 * scan layers run on the count type CLSCAN_T (uint, or ulong where a range holds 2^32
 * elements or more, with CLSCAN_OP_ID add; run-length encoding: a ulong of the head
 * count and the last head's place, CLSCAN_OP_RUNS); the elements have their own type
 * CLSCAN_E. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_SELECT_TILE_CL
#define CLSCAN_SELECT_TILE_CL
#ifndef CLSCAN_WORKGROUP_CL
#include "clscan_workgroup.cl"
#endif

/* What decides that an element is kept (the host's clscan_select_mode). */
#define CLSCAN_SEL_FLAGGED 0   /* flags[i] != 0 */
#define CLSCAN_SEL_IF 1        /* the predicate */
#define CLSCAN_SEL_PARTITION 2 /* the predicate; rejected elements go to the end, reversed */
#define CLSCAN_SEL_UNIQUE 3    /* i == 0 or src[i] != src[i - 1] */
#define CLSCAN_SEL_RUNS 4      /* as UNIQUE, and each run's length written (below) */
#ifndef CLSCAN_SEL_MODE
#define CLSCAN_SEL_MODE CLSCAN_SEL_IF
#endif

/* The element type, numbered as CLSCAN_TYPE_ID. */
#ifndef CLSCAN_SEL_TYPE_ID
#define CLSCAN_SEL_TYPE_ID CLSCAN_INT32
#endif
#if CLSCAN_SEL_TYPE_ID == CLSCAN_INT32
#define CLSCAN_E int
#elif CLSCAN_SEL_TYPE_ID == CLSCAN_UINT32
#define CLSCAN_E uint
#elif CLSCAN_SEL_TYPE_ID == CLSCAN_INT64
#define CLSCAN_E long
#elif CLSCAN_SEL_TYPE_ID == CLSCAN_UINT64
#define CLSCAN_E ulong
#elif CLSCAN_SEL_TYPE_ID == CLSCAN_FLOAT
#define CLSCAN_E float
#elif CLSCAN_SEL_TYPE_ID == CLSCAN_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CLSCAN_E double
#else
#error "CLSCAN_SEL_TYPE_ID must be one of CLSCAN_INT32 .. CLSCAN_DOUBLE (0..5)"
#endif

/* The predicate of the IF and PARTITION modes: nonzero keeps x, element i of the range.
 * The library appends its definition (around the user's expression) after the kernels
 * and defines CLSCAN_SEL_PREDICATE_GIVEN; compiled alone, this file keeps positive
 * elements. */
int clscan_sel_predicate(const CLSCAN_E x, const ulong i);
#ifndef CLSCAN_SEL_PREDICATE_GIVEN
int clscan_sel_predicate(const CLSCAN_E x, const ulong i)
{
    (void)i;
    return x > (CLSCAN_E)0;
}
#endif

/* Elements kept in a private array between a tile's two phases (their keep decisions
 * as the bits of one uint), where a work-item has few enough for registers; otherwise
 * phase two reads and decides them again. */
#ifndef CLSCAN_SEL_PRIVATE
#define CLSCAN_SEL_PRIVATE (CLSCAN_ITEMS <= 32)
#endif
#if CLSCAN_SEL_PRIVATE
#define CLSCAN_SEL_HELD CLSCAN_ITEMS
#else
#define CLSCAN_SEL_HELD 1
#endif

/* Where the sub-group layer has a ballot (NVIDIA warps of 32 lanes) and elements stay
 * in registers, ranks come from ballots of each row of keep decisions: local memory
 * then holds one count per (row, sub-group), CLSCAN_ITEMS * CLSCAN_SG_COUNT of them,
 * instead of a flag per element. */
#if CLSCAN_SEL_PRIVATE && CLSCAN_SG_BALLOT && CLSCAN_SG_SIZE == 32 && CLSCAN_ITEMS <= 32
#define CLSCAN_SEL_BALLOT 1
#define CLSCAN_SEL_LOCAL (CLSCAN_ITEMS * CLSCAN_SG_COUNT)
#else
#define CLSCAN_SEL_BALLOT 0
#define CLSCAN_SEL_LOCAL CLSCAN_WG_TILE_LOCAL
#endif

/* With ballots, CLSCAN_SEL_STASH puts each work-item's elements in local memory (its
 * own slots, CLSCAN_TILE of them a group) after phase one decides them, and phase two
 * reads them back from there, so that they do not hold registers across the look-back. */
#ifndef CLSCAN_SEL_STASH
#define CLSCAN_SEL_STASH 0
#endif
#if CLSCAN_SEL_STASH && CLSCAN_SEL_BALLOT
#define CLSCAN_SEL_STASH_SLOTS CLSCAN_TILE
#else
#undef CLSCAN_SEL_STASH
#define CLSCAN_SEL_STASH 0
#define CLSCAN_SEL_STASH_SLOTS 1
#endif

/* Unique and run-length encoding with ballots: in a full tile the element before each
 * one comes from the lane below (a shuffle) or, for a sub-group's lane 0, from the last
 * lane of the sub-group before it in element order, through local memory (one element
 * per row and sub-group, CLSCAN_SEL_EDGE_SLOTS), rather than from a second read of
 * global memory; only the tile's first element reads the one before the tile. */
#if CLSCAN_SEL_BALLOT &&                                                                          \
    (CLSCAN_SEL_MODE == CLSCAN_SEL_UNIQUE || CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS)
#define CLSCAN_SEL_EDGES 1
#define CLSCAN_SEL_EDGE_SLOTS (CLSCAN_ITEMS * CLSCAN_SG_COUNT)
#else
#define CLSCAN_SEL_EDGES 0
#define CLSCAN_SEL_EDGE_SLOTS 1
#endif
#if CLSCAN_SEL_EDGES
/* x of the lane below this one in the sub-group (lane 0: unspecified). */
CLSCAN_E clscan_sel_from_lane_below(CLSCAN_E x)
{
#if CLSCAN_SEL_TYPE_ID == CLSCAN_INT64 || CLSCAN_SEL_TYPE_ID == CLSCAN_UINT64 || \
    CLSCAN_SEL_TYPE_ID == CLSCAN_DOUBLE
    uint2 v = CLSCAN_AS(uint2, x);
    v.x = clscan_sg_shuffle_up_u32(v.x, 1);
    v.y = clscan_sg_shuffle_up_u32(v.y, 1);
    return CLSCAN_AS(CLSCAN_E, v);
#else
    return CLSCAN_AS(CLSCAN_E, clscan_sg_shuffle_up_u32(CLSCAN_AS(uint, x), 1));
#endif
}
#endif

/* What a look-back fallback reads to count another tile's kept elements. */
typedef struct clscan_sel_source {
    __global const CLSCAN_E *src;
    __global const uchar *flags;
} clscan_sel_source;

/* Whether element i (src and flags start at the range), already loaded as x, is kept. */
int clscan_sel_keep_loaded(clscan_sel_source s, ulong i, CLSCAN_E x)
{
#if CLSCAN_SEL_MODE == CLSCAN_SEL_FLAGGED
    (void)x;
    return s.flags[i] != 0;
#elif CLSCAN_SEL_MODE == CLSCAN_SEL_UNIQUE || CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
    if (i == 0) return 1;
    const CLSCAN_E before = s.src[i - 1];
    return x != before;
#else
    (void)s;
    return clscan_sel_predicate(x, i) != 0;
#endif
}

/* Whether element i of the range is kept. *v receives the element where it is kept or
 * `need_value` is set; in FLAGGED mode a dropped element is not read at all when
 * need_value is 0. */
int clscan_sel_decide(clscan_sel_source s, ulong i, int need_value, CLSCAN_E *v)
{
#if CLSCAN_SEL_MODE == CLSCAN_SEL_FLAGGED
    const int kept = s.flags[i] != 0;
    *v = kept && need_value ? s.src[i] : (CLSCAN_E)0;
    return kept;
#else
    (void)need_value;
    *v = s.src[i];
    return clscan_sel_keep_loaded(s, i, *v);
#endif
}

/* What element i of the range adds to the scan: 1 where it is kept. In RUNS mode a kept
 * element (a run's head) adds 1 to the count in the low half and puts i + 1 in the high
 * half (CLSCAN_OP_RUNS keeps the larger), so an exclusive scan gives each element the
 * number of heads before it and one past the index of the last of them. */
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
#if CLSCAN_OP_ID != CLSCAN_OP_RUNS
#error "CLSCAN_SEL_RUNS needs CLSCAN_OP_RUNS"
#endif
#define CLSCAN_SEL_VALUE(kept, i) ((kept) ? upsample((uint)(i) + 1u, 1u) : 0UL)
#define CLSCAN_SEL_COUNT_OF(v) ((ulong)(uint)(v))
/* The heads among 32 consecutive elements of the range, the first being `first`, whose
 * keep decisions are the bits of b. (The range is below 2^32 elements: places are
 * uints.) */
ulong clscan_sel_runs_of(uint b, uint first)
{
    return b ? upsample(first + (32u - clz(b)), (uint)popcount(b)) : 0UL;
}
#else
#define CLSCAN_SEL_VALUE(kept, i) ((CLSCAN_T)(kept))
#define CLSCAN_SEL_COUNT_OF(v) ((ulong)(v))
#endif

/* This work-item's part of tile elements [base, base + count) (at most CLSCAN_TILE):
 * elements base + j * CLSCAN_WG_SIZE + lid, combined (their kept count). */
CLSCAN_T clscan_sel_count_part(clscan_sel_source s, ulong base, uint count)
{
    const uint lid = get_local_id(0);
    CLSCAN_T part = CLSCAN_IDENTITY;
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        CLSCAN_E x;
        if (k < count) {
            const CLSCAN_T v = CLSCAN_SEL_VALUE(clscan_sel_decide(s, base + k, 0, &x), base + k);
            part = CLSCAN_OP(part, v);
        }
    }
    return part;
}

/* The look-back's fallback reduces whole tiles (cl/clscan_lookback.cl). */
#define CLSCAN_LB_SOURCE clscan_sel_source
CLSCAN_T clscan_lb_tile_part(clscan_sel_source s, ulong base)
{
    return clscan_sel_count_part(s, base, CLSCAN_TILE);
}

/* Phase one of tile [base, base + count): loads the work-item's elements (consecutive
 * work-items, consecutive elements) into x and whether they are kept into keep, writes
 * the keep flags into the local tile and scans them there (exclusive: each element's
 * rank among the tile's kept ones). Returns the tile's kept count to every work-item.
 * Called by the whole work-group. (Between a clscan_sel_write and this call no barrier
 * is needed: each work-item writes here only the slots it read there, and the edges read
 * here are written again only after the ballot ranks' barriers.)
 * With elements in registers, a full tile first issues all its loads (the elements
 * unconditionally, even in FLAGGED mode: a dependent load per element would wait a
 * round trip each), then decides; the last tile checks each index. */
CLSCAN_T clscan_sel_rank(clscan_sel_source s, ulong base, uint count,
                         CLSCAN_E x[CLSCAN_SEL_HELD], uint *keep, __local CLSCAN_T *tile,
                         __local CLSCAN_T *scratch, __local CLSCAN_E *edges,
                         __local CLSCAN_E *stash)
{
    const uint lid = get_local_id(0);
#if CLSCAN_SEL_PRIVATE
    uint bits = 0;
    if (count == CLSCAN_TILE) {
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) x[j] = s.src[base + j * CLSCAN_WG_SIZE + lid];
#if CLSCAN_SEL_EDGES
        const CLSCAN_E first_before = lid == 0 && base > 0 ? s.src[base - 1] : x[0];
        const uint lane = clscan_sg_lane(), sg = clscan_sg_id();
        const bool first_of_range = lid == 0 && base == 0;
        if (lane == CLSCAN_SG_SIZE - 1) {
#pragma unroll
            for (uint j = 0; j < CLSCAN_ITEMS; ++j) edges[j * CLSCAN_SG_COUNT + sg] = x[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            const uint slot = j * CLSCAN_SG_COUNT + sg; /* (row, sub-group) in element order */
            const CLSCAN_E below = clscan_sel_from_lane_below(x[j]);
            const CLSCAN_E before = lane ? below : slot ? edges[slot - 1] : first_before;
            /* (As clscan_sel_keep_loaded: element 0 of the range is kept. Tiles start at
             * multiples of CLSCAN_TILE, so that is row 0 of work-item 0 in tile 0: a test
             * made once, not a 64-bit index compared in every row.) */
            const uint kept = (j == 0 && first_of_range) ? 1u : (uint)(x[j] != before);
            bits |= kept << j;
        }
#else
        (void)edges;
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            const uint k = j * CLSCAN_WG_SIZE + lid;
            const uint kept = (uint)clscan_sel_keep_loaded(s, base + k, x[j]);
            bits |= kept << j;
#if !CLSCAN_SEL_BALLOT
            tile[CLSCAN_PAD(k)] = CLSCAN_SEL_VALUE(kept, base + k);
#endif
        }
#endif
    } else {
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            const uint k = j * CLSCAN_WG_SIZE + lid;
            x[j] = k < count ? s.src[base + k] : (CLSCAN_E)0;
        }
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            const uint k = j * CLSCAN_WG_SIZE + lid;
            const uint kept = k < count ? (uint)clscan_sel_keep_loaded(s, base + k, x[j]) : 0u;
            bits |= kept << j;
#if !CLSCAN_SEL_BALLOT
            tile[CLSCAN_PAD(k)] = CLSCAN_SEL_VALUE(kept, base + k);
#endif
        }
    }
    *keep = bits;
#if CLSCAN_SEL_STASH
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) stash[j * CLSCAN_WG_SIZE + lid] = x[j];
#else
    (void)stash;
#endif
#if CLSCAN_SEL_BALLOT
    /* Lane j of sub-group g counts row j's kept elements of g's lanes; the counts,
     * in element order (row, then sub-group), are scanned to each row's start. */
    const uint lane = clscan_sg_lane(), sg = clscan_sg_id();
    CLSCAN_T mine = 0;
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint b = clscan_sg_ballot((bits >> j) & 1u);
#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
        const CLSCAN_T row = clscan_sel_runs_of(b, (uint)base + j * CLSCAN_WG_SIZE + sg * 32u);
#else
        const CLSCAN_T row = (CLSCAN_T)popcount(b);
#endif
        mine = lane == j ? row : mine;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile's counts are read */
    if (lane < CLSCAN_ITEMS) tile[lane * CLSCAN_SG_COUNT + sg] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T v = lid < CLSCAN_SEL_LOCAL ? tile[lid] : (CLSCAN_T)0;
    CLSCAN_T total;
    const CLSCAN_T start = clscan_wg_scan_value(v, 0, scratch, &total);
    if (lid < CLSCAN_SEL_LOCAL) tile[lid] = start;
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
#else
    return clscan_wg_scan(tile, scratch, 0);
#endif
#else
    (void)x;
    (void)keep;
    (void)edges;
    (void)stash;
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        CLSCAN_E v;
        const uint kept = k < count ? (uint)clscan_sel_decide(s, base + k, 0, &v) : 0u;
        tile[CLSCAN_PAD(k)] = CLSCAN_SEL_VALUE(kept, base + k);
    }
    return clscan_wg_scan(tile, scratch, 0);
#endif
}

/* Element j of this work-item's elements in phase two (k: its place in the tile). */
#if CLSCAN_SEL_STASH
#define CLSCAN_SEL_HELD_AT(j, k) stash[k]
#else
#define CLSCAN_SEL_HELD_AT(j, k) x[j]
#endif

#if CLSCAN_SEL_MODE != CLSCAN_SEL_RUNS
/* Phase two: writes the tile's elements, `carry` being the count kept before the tile.
 * A kept element goes to dst[carry + rank]; in PARTITION mode a rejected one (the r-th
 * rejected of the range, counting from 0) goes to dst[n - 1 - r]. Within a row of
 * consecutive work-items the kept elements land on consecutive addresses. */
void clscan_sel_write(clscan_sel_source s, __global CLSCAN_E *dst, ulong n, ulong base,
                      uint count, const CLSCAN_E x[CLSCAN_SEL_HELD], uint keep,
                      __local const CLSCAN_T *tile, __local const CLSCAN_E *stash,
                      CLSCAN_T carry)
{
    const uint lid = get_local_id(0);
    (void)stash;
#if CLSCAN_SEL_PRIVATE
    (void)s;
#if CLSCAN_SEL_BALLOT
    const uint lane = clscan_sg_lane(), sg = clscan_sg_id();
#endif
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
#if CLSCAN_SEL_BALLOT
        /* (The ballot before the test: every lane of the warp must take part.) */
        const uint below = popcount(clscan_sg_ballot((keep >> j) & 1u) & ((1u << lane) - 1u));
        const CLSCAN_T rank = tile[j * CLSCAN_SG_COUNT + sg] + below;
#else
        const CLSCAN_T rank = tile[CLSCAN_PAD(k)];
#endif
        if (k < count) {
            const ulong i = base + k;
            const ulong pos = (ulong)carry + (ulong)rank;
            if ((keep >> j) & 1u) dst[pos] = CLSCAN_SEL_HELD_AT(j, k);
#if CLSCAN_SEL_MODE == CLSCAN_SEL_PARTITION
            else dst[n - 1 - (i - pos)] = CLSCAN_SEL_HELD_AT(j, k);
#endif
            (void)i;
        }
    }
#else
    (void)x;
    (void)keep;
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        if (k >= count) break;
        const ulong i = base + k;
        CLSCAN_E v;
        const int kept = clscan_sel_decide(s, i, 1, &v);
        const ulong pos = (ulong)carry + (ulong)tile[CLSCAN_PAD(k)];
        if (kept) dst[pos] = v;
#if CLSCAN_SEL_MODE == CLSCAN_SEL_PARTITION
        else dst[n - 1 - (i - pos)] = v;
#endif
    }
#endif
    (void)n;
}
#endif /* not RUNS */

#if CLSCAN_SEL_MODE == CLSCAN_SEL_RUNS
/* The lengths' type: cl_uint, or cl_ulong where CLSCAN_SEL_LENGTH_BYTES is 8. */
#ifndef CLSCAN_SEL_LENGTH_BYTES
#define CLSCAN_SEL_LENGTH_BYTES 4
#endif
#if CLSCAN_SEL_LENGTH_BYTES == 8
#define CLSCAN_SEL_LENGTH ulong
#else
#define CLSCAN_SEL_LENGTH uint
#endif

/* Element i of the range is a head (kept), the heads-th of the range (from 0), and the
 * head before it (where heads > 0) is element after_last - 1: the head goes to
 * dst[heads] and ends the run before it, whose length is then known. The range's last
 * run is ended once, by clscan_sel_last_run. */
void clscan_sel_run_head(__global CLSCAN_E *dst, __global CLSCAN_SEL_LENGTH *lengths, uint i,
                         CLSCAN_E x, uint heads, uint after_last)
{
    dst[heads] = x;
    if (heads > 0) lengths[heads - 1] = (CLSCAN_SEL_LENGTH)(i - (after_last - 1));
}

/* The last run's length, from `all`, the value of the whole range (n elements): its
 * head is element (all >> 32) - 1, its number (uint)all - 1 (element 0 is a head, so
 * both are at least 1). */
void clscan_sel_last_run(__global CLSCAN_SEL_LENGTH *lengths, ulong n, CLSCAN_T all)
{
    lengths[(uint)all - 1] = (CLSCAN_SEL_LENGTH)((uint)n - ((uint)(all >> 32) - 1));
}

/* Phase two in RUNS mode: each head to dst[its run number] and each run's length but
 * the range's last to lengths, `carry` being the value of the range before the tile.
 * Only heads do work (places in uints: the range is below 2^32 elements). */
void clscan_sel_write_runs(clscan_sel_source s, __global CLSCAN_E *dst,
                           __global CLSCAN_SEL_LENGTH *lengths, ulong base, uint count,
                           const CLSCAN_E x[CLSCAN_SEL_HELD], uint keep,
                           __local const CLSCAN_T *tile, __local const CLSCAN_E *stash,
                           CLSCAN_T carry)
{
    const uint lid = get_local_id(0);
    (void)stash;
    const uint heads0 = (uint)carry, after0 = (uint)(carry >> 32);
#if CLSCAN_SEL_PRIVATE
    (void)s;
#if CLSCAN_SEL_BALLOT
    const uint lane = clscan_sg_lane(), sg = clscan_sg_id();
    const uint first = (uint)base + sg * 32u; /* the sub-group's first element in row 0 */
    /* The tile's heads go to dst from heads0 on, the runs they end to lengths from
     * heads0 - 1 on: both addressed once here, then by a head's rank in the tile (a
     * uint), not by a 64-bit index a head. */
    __global CLSCAN_E *dst_tile = dst + heads0;
    __global CLSCAN_SEL_LENGTH *ended = lengths + heads0;
    (void)count; /* (keep has no bit past count: a partial tile's are cleared) */
#endif
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
#if CLSCAN_SEL_BALLOT
        /* The heads below in the row from the ballot (taken by every lane: before the
         * test), those before the row from the tile. */
        const uint below = clscan_sg_ballot((keep >> j) & 1u) & ((1u << lane) - 1u);
        if ((keep >> j) & 1u) {
            const CLSCAN_T row = tile[j * CLSCAN_SG_COUNT + sg];
            const uint rank = (uint)row + (uint)popcount(below);
            const uint in_row = first + j * CLSCAN_WG_SIZE + (32u - clz(below));
            const uint after_last = below ? in_row : max((uint)(row >> 32), after0);
            dst_tile[rank] = CLSCAN_SEL_HELD_AT(j, k);
            /* (As clscan_sel_run_head: the range's first head ends no run.) */
            if (heads0 + rank > 0)
                ended[(int)rank - 1] = (CLSCAN_SEL_LENGTH)((uint)base + k - (after_last - 1));
        }
#else
        if (k < count && ((keep >> j) & 1u)) {
            const CLSCAN_T in_tile = tile[CLSCAN_PAD(k)];
            clscan_sel_run_head(dst, lengths, (uint)base + k, x[j], heads0 + (uint)in_tile,
                                max((uint)(in_tile >> 32), after0));
        }
#endif
    }
#else
    (void)x;
    (void)keep;
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        if (k >= count) break;
        CLSCAN_E v;
        if (clscan_sel_decide(s, base + k, 1, &v)) {
            const CLSCAN_T in_tile = tile[CLSCAN_PAD(k)];
            clscan_sel_run_head(dst, lengths, (uint)base + k, v, heads0 + (uint)in_tile,
                                max((uint)(in_tile >> 32), after0));
        }
    }
#endif
}
#define CLSCAN_SEL_RUNS_PARAMS __global CLSCAN_SEL_LENGTH *lengths_base, ulong lengths_off,
#define CLSCAN_SEL_RUNS_SINK __global CLSCAN_SEL_LENGTH *lengths = lengths_base + lengths_off;
#else
#define CLSCAN_SEL_RUNS_PARAMS
#define CLSCAN_SEL_RUNS_SINK
#endif

#endif /* CLSCAN_SELECT_TILE_CL */
