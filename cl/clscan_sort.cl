/* clscan_sort.cl - radix sort kernels: one pass sorts by one 8-bit digit of the keys,
 * least significant first. clscan_sort_histogram counts each work-group's digits
 * (written digit-major, so that an exclusive scan of all the counts, done by the scan
 * kernels of another program, gives every (digit, group) its first output slot);
 * clscan_sort_scatter reads the group's tiles again and writes each key (and value)
 * to its slot, keeping equal digits in input order. The scan layers run on the count
 * type CLSCAN_T (uint, or ulong for ranges of 2^32 elements or more, with add); keys
 * move as the unsigned integer of their size, CLSCAN_SORT_K, values as CLSCAN_SORT_V. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_SORT_CL
#define CLSCAN_SORT_CL
#ifndef CLSCAN_WORKGROUP_CL
#include "clscan_workgroup.cl"
#endif

/* The key type, numbered as CLSCAN_TYPE_ID, and the bytes of a value (0: keys only). */
#ifndef CLSCAN_SORT_KEY_ID
#define CLSCAN_SORT_KEY_ID CLSCAN_UINT32
#endif
#ifndef CLSCAN_SORT_VALUE_BYTES
#define CLSCAN_SORT_VALUE_BYTES 0
#endif

#if CLSCAN_SORT_KEY_ID == CLSCAN_INT64 || CLSCAN_SORT_KEY_ID == CLSCAN_UINT64 || \
    CLSCAN_SORT_KEY_ID == CLSCAN_DOUBLE
#define CLSCAN_SORT_K ulong
#define CLSCAN_SORT_KEY_BITS 64
#define CLSCAN_SORT_SIGN 0x8000000000000000ul
#elif CLSCAN_SORT_KEY_ID >= CLSCAN_INT32 && CLSCAN_SORT_KEY_ID <= CLSCAN_FLOAT
#define CLSCAN_SORT_K uint
#define CLSCAN_SORT_KEY_BITS 32
#define CLSCAN_SORT_SIGN 0x80000000u
#else
#error "CLSCAN_SORT_KEY_ID must be one of CLSCAN_INT32 .. CLSCAN_DOUBLE (0..5)"
#endif
#if CLSCAN_SORT_VALUE_BYTES == 8
#define CLSCAN_SORT_V ulong
#elif CLSCAN_SORT_VALUE_BYTES == 4 || CLSCAN_SORT_VALUE_BYTES == 0
#define CLSCAN_SORT_V uint /* (keys only: never read or written) */
#else
#error "CLSCAN_SORT_VALUE_BYTES must be 0, 4 or 8"
#endif

/* With the bucket form (cl/clscan_sort_buckets.cl), the passes' kernels take the word
 * that says which form runs, and return at once where the buckets sort the keys. */
#ifndef CLSCAN_SORT_BUCKETS
#define CLSCAN_SORT_BUCKETS 0
#endif
#if CLSCAN_SORT_BUCKETS
#define CLSCAN_SORT_SKIP_PARAMS , __global const uint *state, ulong state_off
#define CLSCAN_SORT_SKIP()                                                                         \
    if (state[state_off]) return
#else
#define CLSCAN_SORT_SKIP_PARAMS
#define CLSCAN_SORT_SKIP() (void)0
#endif

/* A pass sorts by CLSCAN_SORT_RADIX digits; inside a tile (work-groups of more than
 * one work-item) the digit is ranked in sub-passes of CLSCAN_SORT_SUB_BITS. */
#define CLSCAN_SORT_BITS 8
#define CLSCAN_SORT_RADIX (1u << CLSCAN_SORT_BITS)
#define CLSCAN_SORT_SUB_BITS 4
#define CLSCAN_SORT_SUB_RADIX (1u << CLSCAN_SORT_SUB_BITS)
#define CLSCAN_SORT_SUBS (CLSCAN_SORT_BITS / CLSCAN_SORT_SUB_BITS)

/* The key's bits turned into an unsigned integer whose order is the key's: signed
 * integers flip the sign bit; floats flip every bit of a negative number and the sign
 * bit of a positive one (so -0.0 comes before +0.0, and a NaN sorts by its bits: above
 * +INFINITY with the sign bit clear, below -INFINITY with it set). */
CLSCAN_SORT_K clscan_sort_ordered(CLSCAN_SORT_K k)
{
#if CLSCAN_SORT_KEY_ID == CLSCAN_INT32 || CLSCAN_SORT_KEY_ID == CLSCAN_INT64
    return k ^ CLSCAN_SORT_SIGN;
#elif CLSCAN_SORT_KEY_ID == CLSCAN_FLOAT || CLSCAN_SORT_KEY_ID == CLSCAN_DOUBLE
    /* (All ones where the sign is set, else just the sign bit: no branch.) */
    const CLSCAN_SORT_K neg = (CLSCAN_SORT_K)0 - (k >> (CLSCAN_SORT_KEY_BITS - 1));
    return k ^ (neg | CLSCAN_SORT_SIGN);
#else
    return k;
#endif
}

/* The digit of key k that starts at bit `shift` of its ordered form. */
uint clscan_sort_digit(CLSCAN_SORT_K k, uint shift)
{
    return (uint)(clscan_sort_ordered(k) >> shift) & (CLSCAN_SORT_RADIX - 1u);
}

/* A pass kernel's keys and values in and out, from its arguments src, dst, vsrc, vdst
 * and their offsets (the values unused when keys are sorted alone). */
#define CLSCAN_SORT_POINTERS()                                  \
    __global const CLSCAN_SORT_K *in = src + src_off;           \
    __global CLSCAN_SORT_K *out = dst + dst_off;                \
    __global const CLSCAN_SORT_V *vin = vsrc + vsrc_off;        \
    __global CLSCAN_SORT_V *vout = vdst + vdst_off;             \
    (void)vin;                                                  \
    (void)vout

/* Tiles [first, end) of this group, where the group owns tiles_per_group tiles. */
#define CLSCAN_SORT_GROUP_TILES(n, tiles_per_group, first, end)               \
    const ulong first = (ulong)get_group_id(0) * (tiles_per_group);           \
    const ulong end = min(first + (tiles_per_group), ((n) + CLSCAN_TILE - 1) / CLSCAN_TILE)

/* counts[counts_off + d * groups + g] = how many keys of group g's tiles of
 * src[src_off, +n) have digit d (at `shift`), groups being the launch's work-groups. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_histogram(__global const CLSCAN_SORT_K *src, ulong src_off, ulong n,
                           ulong tiles_per_group, uint shift, __global CLSCAN_T *counts,
                           ulong counts_off CLSCAN_SORT_SKIP_PARAMS)
{
    CLSCAN_SORT_SKIP();
    __local uint bins[CLSCAN_SORT_RADIX];
    const uint lid = get_local_id(0);
    const ulong groups = get_num_groups(0), g = get_group_id(0);
    __global const CLSCAN_SORT_K *in = src + src_off;
    CLSCAN_SORT_GROUP_TILES(n, tiles_per_group, first, end);
    for (uint d = lid; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE) bins[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_WG_SIZE > 1
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            const uint k = j * CLSCAN_WG_SIZE + lid;
            if (k < count) atomic_inc(&bins[clscan_sort_digit(in[base + k], shift)]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    /* One work-item: its whole run of keys in one loop, key i counted in row i % 4 of
     * four rows of counters (keys mostly of one digit then do not wait on each other's
     * increments of one counter: on PoCL 13 -> 3.5 ms for 2^24 keys 90% zero). */
    const ulong stop = min(end * CLSCAN_TILE, n);
    uint rows[3][CLSCAN_SORT_RADIX];
    for (uint d = 0; d < CLSCAN_SORT_RADIX; ++d) rows[0][d] = rows[1][d] = rows[2][d] = 0;
    ulong i = first * CLSCAN_TILE;
    for (; i + 4 <= stop; i += 4) {
        ++bins[clscan_sort_digit(in[i], shift)];
        ++rows[0][clscan_sort_digit(in[i + 1], shift)];
        ++rows[1][clscan_sort_digit(in[i + 2], shift)];
        ++rows[2][clscan_sort_digit(in[i + 3], shift)];
    }
    for (; i < stop; ++i) ++bins[clscan_sort_digit(in[i], shift)];
    for (uint d = 0; d < CLSCAN_SORT_RADIX; ++d) bins[d] += rows[0][d] + rows[1][d] + rows[2][d];
#endif
    for (uint d = lid; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE)
        counts[counts_off + d * groups + g] = (CLSCAN_T)bins[d];
}

#if CLSCAN_WG_SIZE > 1
/* Entries of the bins' scan: at least one per work-item. */
#if CLSCAN_WG_SIZE > CLSCAN_SORT_RADIX
#define CLSCAN_SORT_BINS_LOCAL CLSCAN_WG_SIZE
#else
#define CLSCAN_SORT_BINS_LOCAL CLSCAN_SORT_RADIX
#endif

/* Exclusive scan in place of a[PAD(0 .. chunk * CLSCAN_WG_SIZE)), work-item l owning
 * the chunk consecutive entries from l * chunk (so the scan is in index order). The
 * entries must have been written before a barrier; ends with a barrier. */
void clscan_sort_scan_chunks(__local uint *a, uint chunk, __local CLSCAN_T *scratch)
{
    const uint first = get_local_id(0) * chunk;
    uint sum = 0;
    for (uint c = 0; c < chunk; ++c) sum += a[CLSCAN_PAD(first + c)];
    CLSCAN_T total;
    uint run = (uint)clscan_wg_scan_value((CLSCAN_T)sum, 0, scratch, &total);
    for (uint c = 0; c < chunk; ++c) {
        const uint x = a[CLSCAN_PAD(first + c)];
        a[CLSCAN_PAD(first + c)] = run;
        run += x;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

/* Writes each key of the group's tiles of src[src_off, +n) (and the value at the same
 * index of vsrc) to dst (vdst) at counts[counts_off + d * groups + g], the scanned
 * count of its digit d for group g, plus its rank among the earlier keys of the group
 * with digit d. Keys of one digit keep their input order: the pass is stable. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_scatter(__global const CLSCAN_SORT_K *src, ulong src_off,
                         __global CLSCAN_SORT_K *dst, ulong dst_off,
                         __global const CLSCAN_SORT_V *vsrc, ulong vsrc_off,
                         __global CLSCAN_SORT_V *vdst, ulong vdst_off, ulong n,
                         ulong tiles_per_group, uint shift, __global const CLSCAN_T *counts,
                         ulong counts_off CLSCAN_SORT_SKIP_PARAMS)
{
    CLSCAN_SORT_SKIP();
    const uint lid = get_local_id(0);
    const ulong groups = get_num_groups(0), g = get_group_id(0);
    CLSCAN_SORT_POINTERS();
    CLSCAN_SORT_GROUP_TILES(n, tiles_per_group, first, end);
    /* A pass in which every key has the same digit (keys whose upper bytes do not vary)
     * moves no key: the group then writes each key where it was, without ranking. The
     * scanned counts tell: no key before the digit of the group's first key, all n up
     * to it. (The same for every work-item of the group: all or none skip the ranking's
     * barriers.) */
    const uint d0 = clscan_sort_digit(in[first * CLSCAN_TILE], shift);
    const int whole = counts[counts_off + d0 * groups] == 0 &&
                      (d0 + 1 < CLSCAN_SORT_RADIX ? counts[counts_off + (d0 + 1) * groups]
                                                  : (CLSCAN_T)n) == (CLSCAN_T)n;
    /* Where the group's next key of each digit goes. */
    __local CLSCAN_T next[CLSCAN_SORT_RADIX];
    for (uint d = lid; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE)
        next[d] = counts[counts_off + d * groups + g];
#if CLSCAN_WG_SIZE == 1
    /* One work-item walks its run of keys in order: each goes to the next slot of its
     * digit, which is stable by construction (where no key moves, where it was: one loop
     * for both, since a loop of its own for that case gave wrong output on rusticl 22.3's
     * llvmpipe for 10^6 keys below 2^24, which a reproducer has not yet isolated). */
    const ulong stop = min(end * CLSCAN_TILE, n);
    for (ulong i = first * CLSCAN_TILE; i < stop; ++i) {
        const CLSCAN_SORT_K k = in[i];
        const uint d = clscan_sort_digit(k, shift);
        const CLSCAN_T at = whole ? (CLSCAN_T)i : next[d]++;
        out[at] = k;
#if CLSCAN_SORT_VALUE_BYTES
        vout[at] = vin[i];
#endif
    }
#else
    /* Each tile is first sorted by the digit in local memory, stably, in sub-passes of
     * CLSCAN_SORT_SUB_BITS from the lowest: work-item l holds the tile's keys
     * [l * ITEMS, +ITEMS) (their current order) in registers, counts their sub-digits
     * in its column of a sub-digit-major matrix, whose exclusive scan gives each
     * (sub-digit, work-item) its first position; the keys go there in their order.
     * Keys past the end of the last tile take the largest sub-digit each time, so they
     * stay behind every real key. Then the sorted tile is written out: a key at
     * sorted position p with digit d goes to next[d] + p - (the tile's keys before
     * digit d). */
    __local CLSCAN_SORT_K keys[CLSCAN_PADDED(CLSCAN_TILE)];
#if CLSCAN_SORT_VALUE_BYTES
    __local CLSCAN_SORT_V vals[CLSCAN_PADDED(CLSCAN_TILE)];
#endif
    __local uint matrix[CLSCAN_PADDED(CLSCAN_SORT_SUB_RADIX * CLSCAN_WG_SIZE)];
    __local uint bins[CLSCAN_PADDED(CLSCAN_SORT_BINS_LOCAL)];  /* the tile's keys per digit */
    __local uint starts[CLSCAN_PADDED(CLSCAN_SORT_BINS_LOCAL)];/* and before each digit */
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    CLSCAN_SORT_K kr[CLSCAN_ITEMS];
#if CLSCAN_SORT_VALUE_BYTES
    CLSCAN_SORT_V vr[CLSCAN_ITEMS];
#endif
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
        /* (Each work-item's slots here are the ones it read in the last tile's writes,
         * and its bins the ones it added to next: no barrier needed before.) */
        for (uint d = lid; d < CLSCAN_SORT_BINS_LOCAL; d += CLSCAN_WG_SIZE)
            bins[CLSCAN_PAD(d)] = 0;
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            const uint k = j * CLSCAN_WG_SIZE + lid;
            if (k < count) {
                keys[CLSCAN_PAD(k)] = in[base + k];
#if CLSCAN_SORT_VALUE_BYTES
                vals[CLSCAN_PAD(k)] = vin[base + k];
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!whole) {
            const uint mine = lid * CLSCAN_ITEMS;
            for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
                if (mine + j < count) {
                    kr[j] = keys[CLSCAN_PAD(mine + j)];
#if CLSCAN_SORT_VALUE_BYTES
                    vr[j] = vals[CLSCAN_PAD(mine + j)];
#endif
                    atomic_inc(&bins[CLSCAN_PAD(clscan_sort_digit(kr[j], shift))]);
                } else {
                    kr[j] = 0;
#if CLSCAN_SORT_VALUE_BYTES
                    vr[j] = 0;
#endif
                }
            }
            for (uint sub = 0; sub < CLSCAN_SORT_SUBS; ++sub) {
                const uint sub_shift = shift + sub * CLSCAN_SORT_SUB_BITS;
                /* (The last reads of the matrix, by the previous sub-pass's scan and
                 * writes, are behind a barrier; the column is this work-item's own.) */
                for (uint s = 0; s < CLSCAN_SORT_SUB_RADIX; ++s)
                    matrix[CLSCAN_PAD(s * CLSCAN_WG_SIZE + lid)] = 0;
                for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
                    const uint s = mine + j < count
                                       ? (uint)(clscan_sort_ordered(kr[j]) >> sub_shift) &
                                             (CLSCAN_SORT_SUB_RADIX - 1u)
                                       : CLSCAN_SORT_SUB_RADIX - 1u;
                    ++matrix[CLSCAN_PAD(s * CLSCAN_WG_SIZE + lid)];
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                clscan_sort_scan_chunks(matrix, CLSCAN_SORT_SUB_RADIX, scratch);
                for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
                    const uint s = mine + j < count
                                       ? (uint)(clscan_sort_ordered(kr[j]) >> sub_shift) &
                                             (CLSCAN_SORT_SUB_RADIX - 1u)
                                       : CLSCAN_SORT_SUB_RADIX - 1u;
                    const uint p = matrix[CLSCAN_PAD(s * CLSCAN_WG_SIZE + lid)]++;
                    keys[CLSCAN_PAD(p)] = kr[j];
#if CLSCAN_SORT_VALUE_BYTES
                    vals[CLSCAN_PAD(p)] = vr[j];
#endif
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (sub + 1 < CLSCAN_SORT_SUBS) {
                    /* (The real keys are at [0, count) again: padding sorts last.) */
                    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
                        kr[j] = keys[CLSCAN_PAD(mine + j)];
#if CLSCAN_SORT_VALUE_BYTES
                        vr[j] = vals[CLSCAN_PAD(mine + j)];
#endif
                    }
                    /* (No barrier: keys are written again only after the scan's.) */
                }
            }
            /* The tile's digit starts: bins scanned into starts. */
            for (uint d = lid; d < CLSCAN_SORT_BINS_LOCAL; d += CLSCAN_WG_SIZE)
                starts[CLSCAN_PAD(d)] = bins[CLSCAN_PAD(d)];
            barrier(CLK_LOCAL_MEM_FENCE);
            clscan_sort_scan_chunks(starts, CLSCAN_SORT_BINS_LOCAL / CLSCAN_WG_SIZE, scratch);
        }
        /* Consecutive work-items write consecutive keys of a digit's run. */
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            const uint p = j * CLSCAN_WG_SIZE + lid;
            if (p < count) {
                const CLSCAN_SORT_K k = keys[CLSCAN_PAD(p)];
                const uint d = clscan_sort_digit(k, shift);
                const CLSCAN_T at = whole ? (CLSCAN_T)(base + p)
                                          : next[d] + (CLSCAN_T)(p - starts[CLSCAN_PAD(d)]);
                out[at] = k;
#if CLSCAN_SORT_VALUE_BYTES
                vout[at] = vals[CLSCAN_PAD(p)];
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* next and starts are read */
        for (uint d = lid; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE)
            next[d] += (CLSCAN_T)bins[CLSCAN_PAD(d)];
    }
#endif
}

#endif /* CLSCAN_SORT_CL */
