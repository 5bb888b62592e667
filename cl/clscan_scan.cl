/* clscan_scan.cl - device-wide scan, multi-level reduce-then-scan: each work-group
 * reduces a contiguous run of tiles to one partial, the partials are scanned (by one
 * work-group, or recursively by these kernels), then each work-group scans its tiles
 * again starting from its scanned partial. With one work-group the last kernel alone
 * does the whole scan. */
#ifndef CLSCAN_SCAN_CL
#define CLSCAN_SCAN_CL
#ifndef CLSCAN_WORKGROUP_CL
#include "clscan_workgroup.cl"
#endif

/* Tiles [first, end) of this group, where the group owns tiles_per_group tiles. */
#define CLSCAN_GROUP_TILES(n, tiles_per_group, first, end)                    \
    const ulong ntiles_ = ((n) + CLSCAN_TILE - 1) / CLSCAN_TILE;              \
    const ulong first = (ulong)get_group_id(0) * (tiles_per_group);           \
    const ulong end = min(first + (tiles_per_group), ntiles_)

/* partials[part_off + group] = the combination of the group's tiles of
 * src[src_off, src_off + n). */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_reduce_tiles(__global const CLSCAN_T *src, ulong src_off, ulong n,
                         ulong tiles_per_group, __global CLSCAN_T *partials, ulong part_off)
{
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
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
    if (get_local_id(0) == 0) partials[part_off + get_group_id(0)] = acc;
}

/* Exclusive scan, in place, of partials[part_off, part_off + count) with count <=
 * CLSCAN_TILE: one work-group. (More partials are scanned by the three kernels
 * recursively.) */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_scan_partials(__global CLSCAN_T *partials, ulong part_off, uint count)
{
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    clscan_wg_load(partials, part_off, count, tile);
    clscan_wg_scan(tile, scratch, 0);
    clscan_wg_store(partials, part_off, count, tile, CLSCAN_IDENTITY);
}

/* Scans the group's tiles of src into dst, starting from partials[part_off + group]
 * when use_partials is set (else from the identity). src and dst may be the same
 * range. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_scan_tiles(__global const CLSCAN_T *src, ulong src_off, __global CLSCAN_T *dst,
                       ulong dst_off, ulong n, ulong tiles_per_group,
                       __global const CLSCAN_T *partials, ulong part_off, int use_partials,
                       int inclusive)
{
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T carry = use_partials ? partials[part_off + get_group_id(0)] : CLSCAN_IDENTITY;
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile is stored */
        clscan_wg_load(src + src_off, base, count, tile);
        const CLSCAN_T total = clscan_wg_scan(tile, scratch, inclusive);
        clscan_wg_store(dst + dst_off, base, count, tile, carry);
        carry = CLSCAN_OP(carry, total);
    }
}

#endif /* CLSCAN_SCAN_CL */
