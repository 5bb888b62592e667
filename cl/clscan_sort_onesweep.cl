/* clscan_sort_onesweep.cl - the one-sweep radix sort (after Adinets and Merrill, 2022):
 * clscan_sort_os_histogram counts the digits of every pass in one read of the keys;
 * then each pass is one launch of clscan_sort_os_pass, whose tiles take tickets in the
 * order they start, count their keys' digits and publish the counts, rank their keys
 * by the pass's digit in local memory (stably: by warp where the device has NVIDIA's),
 * find where each digit's keys go by decoupled look-back over the earlier tiles'
 * per-digit counts, and write their keys (and values) there through local memory.
 * Built into sort programs with CLSCAN_SORT_ONESWEEP 1 (cl/clscan_sort.cl defines the
 * key types and digits). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_SORT_ONESWEEP_CL
#define CLSCAN_SORT_ONESWEEP_CL
#ifndef CLSCAN_SORT_CL
#include "clscan_sort.cl"
#endif
#ifndef CLSCAN_SORT_ONESWEEP
#define CLSCAN_SORT_ONESWEEP 0
#endif
#if CLSCAN_SORT_ONESWEEP && CLSCAN_WG_SIZE > 1

#define CLSCAN_OS_PASSES (CLSCAN_SORT_KEY_BITS / CLSCAN_SORT_BITS)
/* Keys are ranked by "warps" of CLSCAN_OS_WARP work-items: NVIDIA's warps, or groups
 * of consecutive work-items that local memory lets see each other's digits. */
#if CLSCAN_WG_SIZE >= 32
#define CLSCAN_OS_WARP 32u
#else
#define CLSCAN_OS_WARP ((uint)CLSCAN_WG_SIZE)
#endif
#define CLSCAN_OS_WARPS (CLSCAN_WG_SIZE / CLSCAN_OS_WARP)
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_NVIDIA && CLSCAN_WG_SIZE >= 32
#define CLSCAN_OS_WARP_PTX 1
#else
#define CLSCAN_OS_WARP_PTX 0
#endif

/* Status words of the look-back, one per (tile, digit): a kind in the top two bits and
 * a count below (the host keeps n under 2^30). AGGREGATE: the tile's own keys of the
 * digit; PREFIX: those of every tile up to it, plus the digit's start in the output. */
#define CLSCAN_OS_AGGREGATE 0x40000000u
#define CLSCAN_OS_PREFIX 0x80000000u
#define CLSCAN_OS_KIND 0xc0000000u
#define CLSCAN_OS_VALUE 0x3fffffffu
/* Reads and writes of status words: relaxed PTX loads and stores at GPU scope on
 * NVIDIA (with the look-back after the tile's own scan, 10-17% faster on the H100 than
 * OpenCL 1.2 atomics: docs/PERFORMANCE.md), the 1.2 atomics elsewhere, coherent at
 * device scope on every implementation. The values are self-contained: no ordering is
 * needed. */
#ifndef CLSCAN_OS_STATUS_PTX
#define CLSCAN_OS_STATUS_PTX CLSCAN_OS_WARP_PTX
#endif
#if CLSCAN_OS_STATUS_PTX
uint clscan_os_load_(__global uint *p)
{
    uint v;
    __asm__ volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
void clscan_os_store_(__global uint *p, uint v)
{
    __asm__ volatile("st.relaxed.gpu.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}
#define CLSCAN_OS_LOAD(p) clscan_os_load_(p)
#define CLSCAN_OS_STORE(p, v) clscan_os_store_((p), (v))
#else
#define CLSCAN_OS_LOAD(p) atomic_or((p), 0u)
#define CLSCAN_OS_STORE(p, v) atomic_xchg((p), (v))
#endif

/* Test modes of the look-back, as for the scans (CLSCAN_LOOKBACK_TEST). */
#ifndef CLSCAN_SORT_LB_TEST
#define CLSCAN_SORT_LB_TEST 0
#endif

#define CLSCAN_OS_HIST_LOADS 8
/* hist[p * 256 + d] += how many keys of src[src_off, +n) have digit d in pass p, for
 * every pass p (the counts start at zero). Any number of work-groups. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_os_histogram(__global const CLSCAN_SORT_K *src, ulong src_off, ulong n,
                              __global uint *hist)
{
    __local uint bins[CLSCAN_OS_PASSES * CLSCAN_SORT_RADIX];
    const uint lid = get_local_id(0);
    for (uint i = lid; i < CLSCAN_OS_PASSES * CLSCAN_SORT_RADIX; i += CLSCAN_WG_SIZE) bins[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __global const CLSCAN_SORT_K *in = src + src_off;
    /* Each work-item loads CLSCAN_OS_HIST_LOADS keys before counting them (loads in
     * flight together), strided by the work-group size. */
    const ulong chunk = (ulong)CLSCAN_WG_SIZE * CLSCAN_OS_HIST_LOADS;
    const ulong stride = (ulong)get_num_groups(0) * chunk;
    for (ulong c = get_group_id(0) * chunk + lid; c < n; c += stride) {
        CLSCAN_SORT_K k[CLSCAN_OS_HIST_LOADS];
#pragma unroll
        for (uint u = 0; u < CLSCAN_OS_HIST_LOADS; ++u) {
            const ulong i = c + (ulong)u * CLSCAN_WG_SIZE;
            k[u] = i < n ? clscan_sort_ordered(in[i]) : 0;
        }
#pragma unroll
        for (uint u = 0; u < CLSCAN_OS_HIST_LOADS; ++u) {
            if (c + (ulong)u * CLSCAN_WG_SIZE >= n) break;
#pragma unroll
            for (uint p = 0; p < CLSCAN_OS_PASSES; ++p)
                atomic_inc(&bins[p * CLSCAN_SORT_RADIX +
                                 ((uint)(k[u] >> (p * CLSCAN_SORT_BITS)) & (CLSCAN_SORT_RADIX - 1u))]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < CLSCAN_OS_PASSES * CLSCAN_SORT_RADIX; i += CLSCAN_WG_SIZE)
        if (bins[i]) atomic_add(&hist[i], bins[i]);
}

#if CLSCAN_OS_WARP_PTX
/* A warp finds the lanes whose keys share a lane's digit by setting each lane's bit in
 * the warp's word of the digit in local memory (RADIX + 1 words a warp, the last for
 * keys past n) and reading the word back once all have set theirs: on the H200, 7.5-10%
 * faster a pass than a ballot per bit of the digit (docs/PERFORMANCE.md). The words of
 * all warps lie in the tile's local memory for keys where it holds them (keys go there
 * after they are ranked). */
#define CLSCAN_OS_MATCH_WORDS (CLSCAN_OS_WARPS * (CLSCAN_SORT_RADIX + 1))
/* CLSCAN_OS_PLACE_EARLY 1 (the host's choice): a key goes to its place in the tile's
 * local memory as soon as it is ranked, so that no register holds the key (nor, keys
 * alone, its rank) past the ranking; the match words then have local memory of their
 * own. Values (no wider than keys) follow the keys through the same local memory once
 * the keys are written out: each work-item loads its values then, puts them at its
 * keys' ranks, and writes them where the keys of the same places went, whose digits the
 * match words' memory keeps meanwhile (CUB's order). */
#ifndef CLSCAN_OS_PLACE_EARLY
#define CLSCAN_OS_PLACE_EARLY 0
#endif
#if CLSCAN_OS_PLACE_EARLY && CLSCAN_SORT_VALUE_BYTES > CLSCAN_SORT_KEY_BITS / 8
#error "CLSCAN_OS_PLACE_EARLY takes values no wider than the keys"
#endif
#define CLSCAN_OS_MATCH_IN_KEYS                                                                    \
    (!CLSCAN_OS_PLACE_EARLY && CLSCAN_TILE * (CLSCAN_SORT_KEY_BITS / 32) >= CLSCAN_OS_MATCH_WORDS)
/* x of lane `src` of this warp. */
uint clscan_os_shfl(uint x, uint src)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(src));
    return r;
}
void clscan_os_warp_sync(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }
#else
#undef CLSCAN_OS_PLACE_EARLY
#define CLSCAN_OS_PLACE_EARLY 0
#endif

/* How many keys of tile t of in[0, n) have digit d at `shift`: what a work-item counts
 * itself when tile t has published nothing for too long. */
uint clscan_os_count_tile(__global const CLSCAN_SORT_K *in, ulong n, ulong t, uint shift,
                          uint d)
{
    const ulong base = t * CLSCAN_TILE, stop = min(base + CLSCAN_TILE, n);
    uint c = 0;
    for (ulong i = base; i < stop; ++i) c += clscan_sort_digit(in[i], shift) == d;
    return c;
}

/* Where digit d's keys of tile t start in the output: the keys of digit d in tiles
 * before t, plus the keys of smaller digits in all (the digits' exclusive scan, which
 * tile 0 publishes and the look-back carries). Reads the words of CLSCAN_OS_WINDOW
 * earlier tiles at a time (their loads in flight together), and adds them in order up to
 * the first prefix or the first tile that has published nothing; waits for such a tile
 * at most `spins` rounds, then counts its keys itself. */
#define CLSCAN_OS_WINDOW 4
uint clscan_os_lookback(__global uint *st, __global const CLSCAN_SORT_K *in, ulong n, ulong t,
                        uint shift, uint d, uint spins, __global const uint *hist_pass)
{
    uint prefix = 0;
    long p = (long)t - 1; /* the next tile to add */
    uint waited = 0;
    while (p >= 0) {
        uint w[CLSCAN_OS_WINDOW];
#pragma unroll
        for (uint k = 0; k < CLSCAN_OS_WINDOW; ++k)
            w[k] = p >= (long)k ? CLSCAN_OS_LOAD(&st[(ulong)(p - (long)k) * CLSCAN_SORT_RADIX + d])
                                : 0u;
        const long from = p;
        int found = 0;
#pragma unroll
        for (uint k = 0; k < CLSCAN_OS_WINDOW; ++k) {
            if (found || p != from - (long)k || p < 0 || !(w[k] & CLSCAN_OS_KIND)) continue;
            prefix += w[k] & CLSCAN_OS_VALUE;
            --p;
            found = (w[k] & CLSCAN_OS_PREFIX) != 0;
        }
        if (found) return prefix;
        if (p != from) {
            waited = 0;
        } else if (++waited > spins) {
            prefix += clscan_os_count_tile(in, n, (ulong)p, shift, d);
            --p;
            waited = 0;
        }
    }
    /* Past tile 0 without its prefix: add the digit's start. */
    for (uint e = 0; e < d; ++e) prefix += hist_pass[e];
    return prefix;
}

/* For tile t > 0: each digit d's place in the output (dest[d]) by looking back, and the
 * tile's prefix published (own: the tile's count of digit lid + i * WG_SIZE). */
void clscan_os_find_dests(__global uint *st, __global const CLSCAN_SORT_K *in, ulong n, ulong t,
                          uint shift, uint spins, __global const uint *hist_pass, int silent,
                          const uint *own, __local uint *dest)
{
    for (uint d = get_local_id(0), i = 0; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE, ++i) {
        const uint before = clscan_os_lookback(st, in, n, t, shift, d, spins, hist_pass);
        if (!silent)
            CLSCAN_OS_STORE(&st[t * CLSCAN_SORT_RADIX + d], CLSCAN_OS_PREFIX | (before + own[i]));
        dest[d] = before;
    }
}

/* Ranks the work-item's keys kr[0, ITEMS) (item j of lane `lane` of its warp being key
 * first + j * WARP of the tile, valid below count, or all of them where `full`) by the
 * digit at `shift`: rank[j] is counts[d] (the warp's counter of the key's digit d)
 * plus the warp's keys of the digit before it, in input order; counts[d] goes up by the
 * warp's keys of d. */
#if CLSCAN_OS_WARP_PTX
/* masks: the warp's match words, at zero, left at zero; place: where CLSCAN_OS_PLACE_EARLY,
 * each valid key is written to place[rank]. */
#define CLSCAN_OS_RANK_PARAMS , __local uint *masks, __local CLSCAN_SORT_K *place
#define CLSCAN_OS_RANK_ARGS , masks, place
#else
#define CLSCAN_OS_RANK_PARAMS , __local uint *lane_digit, __local uint *lane_base, uint lid, uint warp
#define CLSCAN_OS_RANK_ARGS , lane_digit, lane_base, lid, warp
#endif
void clscan_os_rank(const CLSCAN_SORT_K *kr, uint *rank, uint count, uint first, uint shift,
                    __local uint *my_counts, uint lane, const int full CLSCAN_OS_RANK_PARAMS)
{
#if CLSCAN_OS_WARP_PTX
#pragma unroll
#else
/* (Not unrolled where each key has barriers: Intel's CPU compiler 2026.2 then reads
 * freed memory and crashes at times, docs/IMPLEMENTATION-ISSUES.md.) */
#pragma unroll 1
#endif
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint valid = full || first + j * CLSCAN_OS_WARP < count;
        const uint d = valid ? clscan_sort_digit(kr[j], shift) : CLSCAN_SORT_RADIX;
#if CLSCAN_OS_WARP_PTX
        atomic_or(&masks[d], 1u << lane);
        clscan_os_warp_sync();
        const uint peers = masks[d];
        const uint below = peers & ((1u << lane) - 1u);
        const uint leader = 31u - clz(peers & (0u - peers)); /* the lowest peer */
        uint old = 0;
        if (below == 0 && valid) {
            old = my_counts[d];
            my_counts[d] = old + popcount(peers);
        }
        /* (Every lane has read its word when the shuffle, which waits for them all,
         * returns: the lowest peer then sets the word back to zero.) */
        old = clscan_os_shfl(old, leader);
        if (below == 0) masks[d] = 0;
        clscan_os_warp_sync();
        rank[j] = old + popcount(below);
#if CLSCAN_OS_PLACE_EARLY
        if (valid) place[rank[j]] = kr[j];
#endif
#else
        /* The same through local memory: each sees its warp's digits, the lowest lane
         * of each digit adds the warp's count of it, and tells the others its base. */
        const uint w0 = warp * CLSCAN_OS_WARP;
        lane_digit[lid] = d;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint below = 0, same = 0, lowest = lane;
        for (uint l = 0; l < CLSCAN_OS_WARP; ++l) {
            const uint e = lane_digit[w0 + l] == d;
            same += e;
            below += e && l < lane;
            if (e && l < lowest) lowest = l;
        }
        if (below == 0 && valid) {
            lane_base[lid] = my_counts[d];
            my_counts[d] += same;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        rank[j] = valid ? lane_base[w0 + lowest] + below : 0;
        barrier(CLK_LOCAL_MEM_FENCE); /* read before the next key's writes */
#endif
    }
}

/* The tile's keys ranked (clscan_os_rank): with NVIDIA's warps a full tile (all but the
 * last) ranks without the checks of keys past n. */
void clscan_os_rank_tile(const CLSCAN_SORT_K *kr, uint *rank, uint count, uint first, uint shift,
                         __local uint *my_counts, uint lane CLSCAN_OS_RANK_PARAMS)
{
#if CLSCAN_OS_WARP_PTX
    if (count == CLSCAN_TILE) {
        clscan_os_rank(kr, rank, count, first, shift, my_counts, lane, 1 CLSCAN_OS_RANK_ARGS);
        return;
    }
#endif
    clscan_os_rank(kr, rank, count, first, shift, my_counts, lane, 0 CLSCAN_OS_RANK_ARGS);
}

#if CLSCAN_SORT_VALUE_BYTES
/* A work-item's values (item j: tile element first + j * WARP, where below count). */
void clscan_os_load_values(__global const CLSCAN_SORT_V *vin, uint count, uint first,
                           CLSCAN_SORT_V *vr)
{
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = first + j * CLSCAN_OS_WARP;
        vr[j] = k < count ? vin[k] : (CLSCAN_SORT_V)0;
    }
}
#endif

/* One pass of the sort, by the digit at `shift`: reads the keys of src[src_off, +n)
 * (and the values of vsrc at the same indices), writes them to dst (vdst) ordered
 * stably by the digit. In `work` (32-bit words from the offsets given): the histogram
 * kernel's counts of this pass's digits (hist), a ticket counter at zero, this pass's
 * status words at zero (st: tiles * 256), and the next pass's (st_next), whose row of
 * tile t this tile sets to zero where clear_next is 1. spins: fruitless reads of a
 * predecessor's word before counting its keys instead. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_os_pass(__global const CLSCAN_SORT_K *src, ulong src_off,
                         __global CLSCAN_SORT_K *dst, ulong dst_off,
                         __global const CLSCAN_SORT_V *vsrc, ulong vsrc_off,
                         __global CLSCAN_SORT_V *vdst, ulong vdst_off, ulong n, uint shift,
                         __global uint *work, ulong hist_off, ulong ticket_off, ulong st_off,
                         ulong st_next_off, uint clear_next, uint spins)
{
    __local CLSCAN_SORT_K keys[CLSCAN_TILE];
#if CLSCAN_SORT_VALUE_BYTES && !CLSCAN_OS_PLACE_EARLY
    __local CLSCAN_SORT_V vals[CLSCAN_TILE];
#endif
    /* Per warp and digit: the warp's keys of the digit, then (scanned over the warps,
     * plus the digit's start in the tile) where the warp's next key of it goes among the
     * tile's keys. */
    __local uint warp_counts[CLSCAN_OS_WARPS * CLSCAN_SORT_RADIX];
    __local uint starts[CLSCAN_PADDED(CLSCAN_SORT_BINS_LOCAL)]; /* the tile's digit starts */
    __local uint dest[CLSCAN_SORT_RADIX]; /* output index of a sorted position, less it */
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    __local uint tile_id;
#if !CLSCAN_OS_WARP_PTX
    __local uint lane_digit[CLSCAN_WG_SIZE];
    __local uint lane_base[CLSCAN_WG_SIZE];
#elif CLSCAN_OS_MATCH_IN_KEYS
    __local uint *match_words = (__local uint *)keys;
#else
    __local uint match_words[CLSCAN_OS_MATCH_WORDS];
#endif
#if CLSCAN_OS_PLACE_EARLY && CLSCAN_SORT_VALUE_BYTES
    /* Values take the keys' memory once the keys are out; the digit of each sorted place
     * is kept meanwhile (in the match words' memory where it holds a byte a place). */
    __local CLSCAN_SORT_V *vals = (__local CLSCAN_SORT_V *)keys;
#if CLSCAN_TILE <= 4 * CLSCAN_OS_MATCH_WORDS
    __local uchar *digits = (__local uchar *)match_words;
#else
    __local uchar digits[CLSCAN_TILE];
#endif
#endif
    __global const uint *hist_pass = work + hist_off;
    __global uint *ticket = work + ticket_off;
    __global uint *st = work + st_off;
    __global uint *st_next = work + st_next_off;
    const uint lid = get_local_id(0);
    if (lid == 0) tile_id = atomic_inc(ticket);
    for (uint i = lid; i < CLSCAN_OS_WARPS * CLSCAN_SORT_RADIX; i += CLSCAN_WG_SIZE)
        warp_counts[i] = 0;
#if CLSCAN_OS_WARP_PTX
    for (uint i = lid; i < CLSCAN_OS_MATCH_WORDS; i += CLSCAN_WG_SIZE) match_words[i] = 0;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong t = tile_id;
    const ulong base = t * CLSCAN_TILE;
    const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
    CLSCAN_SORT_POINTERS();
    if (clear_next)
        for (uint d = lid; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE)
            st_next[t * CLSCAN_SORT_RADIX + d] = 0;

    /* Warp w holds the tile's keys [w * WARP * ITEMS, +WARP * ITEMS), item j of lane l
     * being key j * WARP + l of them: in (w, j, l) order the keys are in input order,
     * which is the order they are ranked in. Keys past n take digit RADIX (none). */
    const uint warp = lid / CLSCAN_OS_WARP, lane = lid % CLSCAN_OS_WARP;
    const uint first = warp * CLSCAN_OS_WARP * CLSCAN_ITEMS + lane;
    CLSCAN_SORT_K kr[CLSCAN_ITEMS];
#if CLSCAN_SORT_VALUE_BYTES
    CLSCAN_SORT_V vr[CLSCAN_ITEMS];
#endif
    uint rank[CLSCAN_ITEMS];
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = first + j * CLSCAN_OS_WARP;
        kr[j] = k < count ? in[base + k] : (CLSCAN_SORT_K)0;
    }
#if CLSCAN_SORT_VALUE_BYTES && !CLSCAN_OS_PLACE_EARLY
    clscan_os_load_values(vin + base, count, first, vr);
#endif
    __local uint *my_counts = warp_counts + warp * CLSCAN_SORT_RADIX;
#if CLSCAN_OS_WARP_PTX
    __local uint *masks = match_words + warp * (CLSCAN_SORT_RADIX + 1);
    __local CLSCAN_SORT_K *place = keys;
#endif
    /* Each warp's keys of each digit counted first (CUB's order: the tiles after this
     * one then find its counts without waiting for its ranking). */
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j)
        if (first + j * CLSCAN_OS_WARP < count) atomic_inc(&my_counts[clscan_sort_digit(kr[j], shift)]);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Per digit: the warps' counts scanned in place (each warp's keys of the digit then
     * start there among the tile's), the tile's total kept (own) and published to the
     * tiles after this one (tile 0: with the digits' starts, as a prefix). */
    const int silent = CLSCAN_SORT_LB_TEST == 2 && (t & 3) == 3;
    const int delayed = CLSCAN_SORT_LB_TEST == 1 && t % 3 == 2;
    uint own[CLSCAN_SORT_BINS_LOCAL / CLSCAN_WG_SIZE];
    for (uint d = lid, i = 0; d < CLSCAN_SORT_BINS_LOCAL; d += CLSCAN_WG_SIZE, ++i) {
        uint sum = 0;
        if (d < CLSCAN_SORT_RADIX) {
            for (uint w = 0; w < CLSCAN_OS_WARPS; ++w) {
                const uint c = warp_counts[w * CLSCAN_SORT_RADIX + d];
                warp_counts[w * CLSCAN_SORT_RADIX + d] = sum;
                sum += c;
            }
            __global uint *mine = &st[t * CLSCAN_SORT_RADIX + d];
            /* (Delay mode: every third tile reads its own word a while before publishing.) */
            for (uint w = 0; delayed && w < 4 * spins + 64; ++w) (void)CLSCAN_OS_LOAD(mine);
            if ((t > 0) & !silent) CLSCAN_OS_STORE(mine, CLSCAN_OS_AGGREGATE | sum);
        }
        own[i] = sum;
    }
    if (t == 0) {
        /* The digits' starts: the exclusive scan of the pass's histogram. */
        for (uint d = lid; d < CLSCAN_SORT_BINS_LOCAL; d += CLSCAN_WG_SIZE)
            starts[CLSCAN_PAD(d)] = d < CLSCAN_SORT_RADIX ? hist_pass[d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        clscan_sort_scan_chunks(starts, CLSCAN_SORT_BINS_LOCAL / CLSCAN_WG_SIZE, scratch);
        for (uint d = lid, i = 0; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE, ++i) {
            dest[d] = starts[CLSCAN_PAD(d)];
            CLSCAN_OS_STORE(&st[d], CLSCAN_OS_PREFIX | (dest[d] + own[i]));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* The tile's own digit starts, for the positions in local memory. */
    for (uint d = lid, i = 0; d < CLSCAN_SORT_BINS_LOCAL; d += CLSCAN_WG_SIZE, ++i)
        starts[CLSCAN_PAD(d)] = own[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    clscan_sort_scan_chunks(starts, CLSCAN_SORT_BINS_LOCAL / CLSCAN_WG_SIZE, scratch);
    for (uint d = lid; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE) {
        const uint s = starts[CLSCAN_PAD(d)];
        for (uint w = 0; w < CLSCAN_OS_WARPS; ++w) warp_counts[w * CLSCAN_SORT_RADIX + d] += s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The keys ranked: rank[j] is key j's place among the tile's keys sorted by digit. */
    clscan_os_rank_tile(kr, rank, count, first, shift, my_counts, lane CLSCAN_OS_RANK_ARGS);
#if CLSCAN_OS_MATCH_IN_KEYS
    barrier(CLK_LOCAL_MEM_FENCE); /* every warp's matches done before keys go there */
#endif
    /* The look-back as late as it can be: on the H100, looking back straight after
     * publishing was 5-8% slower with PTX status words (docs/PERFORMANCE.md). */
    if (t > 0) clscan_os_find_dests(st, in, n, t, shift, spins, hist_pass, silent, own, dest);
    /* dest: where a key of digit d at sorted place p of the tile goes, less p. */
    for (uint d = lid; d < CLSCAN_SORT_RADIX; d += CLSCAN_WG_SIZE)
        dest[d] -= starts[CLSCAN_PAD(d)];

#if CLSCAN_OS_PLACE_EARLY && CLSCAN_SORT_VALUE_BYTES
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < count; p += CLSCAN_WG_SIZE) {
        const CLSCAN_SORT_K k = keys[p];
        const uint d = clscan_sort_digit(k, shift);
        digits[p] = (uchar)d;
        out[dest[d] + p] = k;
    }
    clscan_os_load_values(vin + base, count, first, vr);
    barrier(CLK_LOCAL_MEM_FENCE); /* every key read before values take their memory */
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j)
        if (first + j * CLSCAN_OS_WARP < count) vals[rank[j]] = vr[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < count; p += CLSCAN_WG_SIZE) vout[dest[digits[p]] + p] = vals[p];
#else
#if !CLSCAN_OS_PLACE_EARLY
    /* Keys (and values) to their sorted places in the tile. */
#pragma unroll
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        if (first + j * CLSCAN_OS_WARP < count) {
            keys[rank[j]] = kr[j];
#if CLSCAN_SORT_VALUE_BYTES
            vals[rank[j]] = vr[j];
#endif
        }
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Consecutive work-items write consecutive keys of a digit's run. With values, a
     * full tile's work-items read all their keys and places first (the reads in flight
     * together): on the H200 2% faster for pairs at 2^24, and 1-2.5% slower for keys
     * alone (docs/PERFORMANCE.md). */
#if CLSCAN_SORT_VALUE_BYTES
    if (count == CLSCAN_TILE) {
        CLSCAN_SORT_K ks[CLSCAN_ITEMS];
        uint at[CLSCAN_ITEMS];
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) ks[j] = keys[j * CLSCAN_WG_SIZE + lid];
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j)
            at[j] = dest[clscan_sort_digit(ks[j], shift)] + j * CLSCAN_WG_SIZE + lid;
#pragma unroll
        for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
            out[at[j]] = ks[j];
            vout[at[j]] = vals[j * CLSCAN_WG_SIZE + lid];
        }
        return;
    }
#endif
    for (uint p = lid; p < count; p += CLSCAN_WG_SIZE) {
        const CLSCAN_SORT_K k = keys[p];
        const uint at = dest[clscan_sort_digit(k, shift)] + p;
        out[at] = k;
#if CLSCAN_SORT_VALUE_BYTES
        vout[at] = vals[p];
#endif
    }
#endif
}

#endif /* CLSCAN_SORT_ONESWEEP && CLSCAN_WG_SIZE > 1 */
#endif /* CLSCAN_SORT_ONESWEEP_CL */
