/* clscan_select_tile.cl - one tile of stream compaction: which elements it keeps (by
 * flags, by a predicate, or by differing from the element before), their ranks among the
 * tile's kept elements from a work-group scan of the keep flags, and the writes. The
 * scan layers run on the count type CLSCAN_T (uint, or ulong where a range holds 2^32
 * elements or more, with CLSCAN_OP_ID add); the elements have their own type CLSCAN_E. */
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
#elif CLSCAN_SEL_MODE == CLSCAN_SEL_UNIQUE
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

/* This work-item's kept elements among tile elements [base, base + count) (at most
 * CLSCAN_TILE): elements base + j * CLSCAN_WG_SIZE + lid. */
CLSCAN_T clscan_sel_count_part(clscan_sel_source s, ulong base, uint count)
{
    const uint lid = get_local_id(0);
    uint kept = 0;
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        CLSCAN_E x;
        if (k < count) kept += (uint)clscan_sel_decide(s, base + k, 0, &x);
    }
    return (CLSCAN_T)kept;
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
 * is needed: each work-item writes here only the slots it read there.)
 * With elements in registers, a full tile first issues all its loads (the elements
 * unconditionally, even in FLAGGED mode: a dependent load per element would wait a
 * round trip each), then decides; the last tile checks each index. */
CLSCAN_T clscan_sel_rank(clscan_sel_source s, ulong base, uint count,
                         CLSCAN_E x[CLSCAN_SEL_HELD], uint *keep, __local CLSCAN_T *tile,
                         __local CLSCAN_T *scratch)
{
    const uint lid = get_local_id(0);
#if CLSCAN_SEL_PRIVATE
    uint bits = 0;
    if (count == CLSCAN_TILE) {
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) x[j] = s.src[base + j * CLSCAN_WG_SIZE + lid];
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            const uint k = j * CLSCAN_WG_SIZE + lid;
            const uint kept = (uint)clscan_sel_keep_loaded(s, base + k, x[j]);
            bits |= kept << j;
#if !CLSCAN_SEL_BALLOT
            tile[CLSCAN_PAD(k)] = (CLSCAN_T)kept;
#endif
        }
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
            tile[CLSCAN_PAD(k)] = (CLSCAN_T)kept;
#endif
        }
    }
    *keep = bits;
#if CLSCAN_SEL_BALLOT
    /* Lane j of sub-group g counts row j's kept elements of g's lanes; the counts,
     * in element order (row, then sub-group), are scanned to each row's start. */
    const uint lane = clscan_sg_lane(), sg = clscan_sg_id();
    uint mine = 0;
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint row = popcount(clscan_sg_ballot((bits >> j) & 1u));
        mine = lane == j ? row : mine;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile's counts are read */
    if (lane < CLSCAN_ITEMS) tile[lane * CLSCAN_SG_COUNT + sg] = (CLSCAN_T)mine;
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
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        CLSCAN_E v;
        const uint kept = k < count ? (uint)clscan_sel_decide(s, base + k, 0, &v) : 0u;
        tile[CLSCAN_PAD(k)] = (CLSCAN_T)kept;
    }
    return clscan_wg_scan(tile, scratch, 0);
#endif
}

/* Phase two: writes the tile's elements, `carry` being the count kept before the tile.
 * A kept element goes to dst[carry + rank]; in PARTITION mode a rejected one (the r-th
 * rejected of the range, counting from 0) goes to dst[n - 1 - r]. Within a row of
 * consecutive work-items the kept elements land on consecutive addresses. */
void clscan_sel_write(clscan_sel_source s, __global CLSCAN_E *dst, ulong n, ulong base,
                      uint count, const CLSCAN_E x[CLSCAN_SEL_HELD], uint keep,
                      __local const CLSCAN_T *tile, CLSCAN_T carry)
{
    const uint lid = get_local_id(0);
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
            if ((keep >> j) & 1u) dst[pos] = x[j];
#if CLSCAN_SEL_MODE == CLSCAN_SEL_PARTITION
            else dst[n - 1 - (i - pos)] = x[j];
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

#endif /* CLSCAN_SELECT_TILE_CL */
