/* clscan_workgroup.cl - work-group scan of one tile (CLSCAN_TILE elements) held in
 * local memory: a serial scan per work-item, then a padded Blelloch up-sweep and
 * down-sweep over the work-items' totals. Every function is called by the whole
 * work-group (they contain barriers). Combination order is always left to right. */
#ifndef CLSCAN_WORKGROUP_CL
#define CLSCAN_WORKGROUP_CL
#ifndef CLSCAN_COMMON_CL
#include "clscan_common.cl"
#endif

/* Local scratch the functions below need, in elements of CLSCAN_T. */
#define CLSCAN_WG_TILE_LOCAL CLSCAN_PADDED(CLSCAN_TILE)
#define CLSCAN_WG_SUMS_LOCAL CLSCAN_PADDED(CLSCAN_WG_SIZE)

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

/* Each work-item combines its CLSCAN_ITEMS consecutive tile elements into sums[lid];
 * then the Blelloch up-sweep leaves the tile's total in sums[last]. Returns the total
 * to every work-item. */
CLSCAN_T clscan_wg_upsweep(__local const CLSCAN_T *tile, __local CLSCAN_T *sums)
{
    const uint lid = get_local_id(0);
    CLSCAN_T acc = tile[CLSCAN_PAD(lid * CLSCAN_ITEMS)];
    for (uint j = 1; j < CLSCAN_ITEMS; ++j)
        acc = CLSCAN_OP(acc, tile[CLSCAN_PAD(lid * CLSCAN_ITEMS + j)]);
    sums[CLSCAN_PAD(lid)] = acc;
    for (uint d = 1; d < CLSCAN_WG_SIZE; d <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint i = (lid + 1) * 2 * d - 1;
        if (i < CLSCAN_WG_SIZE)
            sums[CLSCAN_PAD(i)] = CLSCAN_OP(sums[CLSCAN_PAD(i - d)], sums[CLSCAN_PAD(i)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return sums[CLSCAN_PAD(CLSCAN_WG_SIZE - 1)];
}

/* Scans the tile in place (inclusive or exclusive, the identity first) and returns
 * its total to every work-item. tile must have been written by the whole group before
 * the call (the first barrier inside makes those writes visible). */
CLSCAN_T clscan_wg_scan(__local CLSCAN_T *tile, __local CLSCAN_T *sums, int inclusive)
{
    const uint lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T total = clscan_wg_upsweep(tile, sums);
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read the total */
    if (lid == 0) sums[CLSCAN_PAD(CLSCAN_WG_SIZE - 1)] = CLSCAN_IDENTITY;
    /* Down-sweep: a node's left child gets the node's prefix, its right child that
     * prefix combined with the left subtree's total. */
    for (uint d = CLSCAN_WG_SIZE >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint i = (lid + 1) * 2 * d - 1;
        if (i < CLSCAN_WG_SIZE) {
            const CLSCAN_T left = sums[CLSCAN_PAD(i - d)];
            sums[CLSCAN_PAD(i - d)] = sums[CLSCAN_PAD(i)];
            sums[CLSCAN_PAD(i)] = CLSCAN_OP(sums[CLSCAN_PAD(i)], left);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    CLSCAN_T run = sums[CLSCAN_PAD(lid)];
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = CLSCAN_PAD(lid * CLSCAN_ITEMS + j);
        const CLSCAN_T x = tile[k];
        const CLSCAN_T next = CLSCAN_OP(run, x);
        tile[k] = inclusive ? next : run;
        run = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

#endif /* CLSCAN_WORKGROUP_CL */
