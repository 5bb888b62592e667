/* clscan_sort_buckets.cl - the three-step sort's bucket form for groups of one work-item
 * (CPUs): one pass by the eight bits that end at the highest bit in which the keys
 * differ puts them in 256 buckets, then each bucket is sorted on its own by the bytes
 * below, in cache, by one work-item; the passes over the whole range
 * (cl/clscan_sort.cl) run instead where one bucket would hold too many keys for the
 * work to spread. Both forms are enqueued; a word the decision kernel writes tells each
 * kernel of the form not taken to return at once. Built into sort programs with
 * CLSCAN_SORT_BUCKETS 1 (and CLSCAN_WG_SIZE 1). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_SORT_BUCKETS_CL
#define CLSCAN_SORT_BUCKETS_CL
#ifndef CLSCAN_SORT_CL
#include "clscan_sort.cl"
#endif
#ifndef CLSCAN_SORT_BUCKETS
#define CLSCAN_SORT_BUCKETS 0
#endif
#if CLSCAN_SORT_BUCKETS
#if CLSCAN_WG_SIZE != 1
#error "the bucket form is for groups of one work-item"
#endif

/* The kernels' arguments: buffers with element offsets (sort.c sets them). */
#define CLSCAN_BK_RANGES_PARAMS __global CLSCAN_SORT_K *ranges_buf, ulong ranges_off
#define CLSCAN_BK_SIDES_PARAMS                                                                     \
    __global CLSCAN_SORT_K *kout_buf, ulong kout_off, __global CLSCAN_SORT_K *ktmp_buf,             \
        ulong ktmp_off, __global CLSCAN_SORT_V *vout_buf, ulong vout_off,                          \
        __global CLSCAN_SORT_V *vtmp_buf, ulong vtmp_off
#define CLSCAN_BK_SIDES()                                                                          \
    __global CLSCAN_SORT_K *out = kout_buf + kout_off;                                            \
    __global CLSCAN_SORT_K *tmp = ktmp_buf + ktmp_off;                                            \
    __global CLSCAN_SORT_V *vout = vout_buf + vout_off;                                           \
    __global CLSCAN_SORT_V *vtmp = vtmp_buf + vtmp_off;                                           \
    (void)vout;                                                                                    \
    (void)vtmp

/* The run of keys of group g: [*lo, *hi) of the n keys. */
void clscan_sort_bk_run(ulong n, ulong tiles_per_group, ulong g, ulong *lo, ulong *hi)
{
    *lo = min(g * tiles_per_group * CLSCAN_TILE, n);
    *hi = min(*lo + tiles_per_group * CLSCAN_TILE, n);
}

/* ranges[g] and ranges[groups + g]: the OR and the AND of the ordered keys of group g's
 * run (all ones and zero for an empty run). */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_bk_range(__global const CLSCAN_SORT_K *src, ulong src_off, ulong n,
                          ulong tiles_per_group, CLSCAN_BK_RANGES_PARAMS)
{
    __global CLSCAN_SORT_K *ranges = ranges_buf + ranges_off;
    const ulong g = get_group_id(0), groups = get_num_groups(0);
    __global const CLSCAN_SORT_K *in = src + src_off;
    ulong lo, hi;
    clscan_sort_bk_run(n, tiles_per_group, g, &lo, &hi);
    CLSCAN_SORT_K any = 0, all = ~(CLSCAN_SORT_K)0;
    for (ulong i = lo; i < hi; ++i) {
        const CLSCAN_SORT_K k = clscan_sort_ordered(in[i]);
        any |= k;
        all &= k;
    }
    ranges[g] = any;
    ranges[groups + g] = all;
}

/* The bits in which the ordered keys differ, from the ranges of `groups` runs. */
CLSCAN_SORT_K clscan_sort_bk_diff(__global const CLSCAN_SORT_K *ranges, ulong groups)
{
    CLSCAN_SORT_K any = 0, all = ~(CLSCAN_SORT_K)0;
    for (ulong g = 0; g < groups; ++g) {
        any |= ranges[g];
        all &= ranges[groups + g];
    }
    return any ^ all;
}

/* Where the buckets' digit starts: the eight bits (CLSCAN_SORT_BITS) that end at the
 * highest bit set in diff (the highest in which the keys differ), so that the keys fill
 * as many buckets as their range allows (keys below 2^20: bits 12 to 19, where the byte
 * from bit 16 would fill 16). -1 where they differ in no bit above their lowest eight
 * (or none): no buckets then. */
int clscan_sort_bk_shift(CLSCAN_SORT_K diff)
{
    if (diff == 0) return -1;
    const int high = (int)(CLSCAN_SORT_KEY_BITS - 1 - (uint)clz(diff));
    return high >= CLSCAN_SORT_BITS ? high - (CLSCAN_SORT_BITS - 1) : -1;
}

/* The decision's words (from state[state_off]): whether the buckets sort the keys (the
 * word the passes' kernels read, CLSCAN_SORT_SKIP), then the bits in which the keys
 * differ, low 32 first (clscan_sort_bk_decide writes them, for the scatter and the
 * buckets, which would otherwise each combine all groups' ranges again). */
#define CLSCAN_BK_STATE_PARAMS __global uint *state_buf, ulong state_off
CLSCAN_SORT_K clscan_sort_bk_state_diff(__global const uint *state)
{
#if CLSCAN_SORT_KEY_BITS == 64
    return (CLSCAN_SORT_K)state[1] | ((CLSCAN_SORT_K)state[2] << 32);
#else
    return (CLSCAN_SORT_K)state[1];
#endif
}

/* counts[counts_off + d * groups + g]: the keys of group g's run whose bucket digit
 * (clscan_sort_bk_shift) is d; all zero where there are no buckets. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_bk_histogram(__global const CLSCAN_SORT_K *src, ulong src_off, ulong n,
                              ulong tiles_per_group, CLSCAN_BK_RANGES_PARAMS,
                              __global CLSCAN_T *counts, ulong counts_off)
{
    __global const CLSCAN_SORT_K *ranges = ranges_buf + ranges_off;
    const ulong g = get_group_id(0), groups = get_num_groups(0);
    __global const CLSCAN_SORT_K *in = src + src_off;
    const int from = clscan_sort_bk_shift(clscan_sort_bk_diff(ranges, groups));
    /* Four rows of counters, key i counted in row i % 4: keys mostly of one digit then
     * do not wait on each other's increments of one counter. */
    CLSCAN_T bins[4][CLSCAN_SORT_RADIX];
    for (uint d = 0; d < CLSCAN_SORT_RADIX; ++d) bins[0][d] = bins[1][d] = bins[2][d] = bins[3][d] = 0;
    if (from >= 0) {
        const uint shift = (uint)from;
        ulong lo, hi;
        clscan_sort_bk_run(n, tiles_per_group, g, &lo, &hi);
        ulong i = lo;
        for (; i + 4 <= hi; i += 4) {
            ++bins[0][clscan_sort_digit(in[i], shift)];
            ++bins[1][clscan_sort_digit(in[i + 1], shift)];
            ++bins[2][clscan_sort_digit(in[i + 2], shift)];
            ++bins[3][clscan_sort_digit(in[i + 3], shift)];
        }
        for (; i < hi; ++i) ++bins[0][clscan_sort_digit(in[i], shift)];
    }
    for (uint d = 0; d < CLSCAN_SORT_RADIX; ++d)
        counts[counts_off + d * groups + g] = bins[0][d] + bins[1][d] + bins[2][d] + bins[3][d];
}

/* Where bucket d starts (the scanned counts of `groups` runs), or n past the last. */
CLSCAN_T clscan_sort_bk_start(__global const CLSCAN_T *counts, ulong groups, uint d, ulong n)
{
    return d < CLSCAN_SORT_RADIX ? counts[d * groups] : (CLSCAN_T)n;
}

/* The decision's first word 1 where the buckets sort the keys: enabled, the keys differ
 * in a bit above their lowest eight, and no bucket (from the scanned counts) holds more
 * than `limit` keys; else 0, and the passes over the whole range sort them; then the bits in
 * which the keys differ (clscan_sort_bk_state_diff). One work-item. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_bk_decide(CLSCAN_BK_RANGES_PARAMS, ulong groups,
                           __global const CLSCAN_T *counts, ulong counts_off, ulong n,
                           ulong limit, uint enabled, CLSCAN_BK_STATE_PARAMS)
{
    __global const CLSCAN_SORT_K *ranges = ranges_buf + ranges_off;
    __global uint *state = state_buf + state_off;
    uint take = 0;
    const CLSCAN_SORT_K diff = enabled ? clscan_sort_bk_diff(ranges, groups) : 0;
    if (clscan_sort_bk_shift(diff) >= 0) {
        ulong most = 0;
        for (uint d = 0; d < CLSCAN_SORT_RADIX; ++d) {
            const ulong size = (ulong)(clscan_sort_bk_start(counts + counts_off, groups, d + 1, n) -
                                       clscan_sort_bk_start(counts + counts_off, groups, d, n));
            most = max(most, size);
        }
        take = most <= limit;
    }
    state[0] = take;
    state[1] = (uint)diff;
#if CLSCAN_SORT_KEY_BITS == 64
    state[2] = (uint)(diff >> 32);
#endif
}

/* The first chunk of `width` bits at or above bit `at` (a multiple of width) and below
 * `from` in which the keys differ (diff), or `from` where none is left: the chunks the
 * buckets' passes skip move no key. */
uint clscan_sort_bk_next_chunk(CLSCAN_SORT_K diff, uint at, uint from, uint width)
{
    const CLSCAN_SORT_K mask = ((CLSCAN_SORT_K)1 << width) - 1u;
    while (at < from && ((diff >> at) & mask) == 0) at += width;
    return at < from ? at : from;
}

/* How the buckets sort their keys by the `from` bits below the bucket digit (the keys
 * differing in the bits of diff): in chunks of *width bits from bit 0, a pass each but
 * for chunks in which no keys differ, *passes in all. Eight bits a chunk, or as few
 * chunks of up to CLSCAN_BK_MAX_BITS as cover the bits where that takes fewer passes
 * (a bucket, in cache, then takes the wider digit's scattered writes well: bits 0 to
 * 11 in one pass instead of two, 24 bits in two), keys alone and pairs alike (pairs took
 * byte passes until the twenty-eighth session, when the first pass's destination came
 * to be fetched ahead: docs/PERFORMANCE.md). */
#define CLSCAN_BK_MAX_BITS 12
void clscan_sort_bk_plan(int from, CLSCAN_SORT_K diff, uint *width, uint *passes)
{
    const uint bits = from > 0 ? (uint)from : 0u;
    const uint narrow = (bits + CLSCAN_SORT_BITS - 1) / CLSCAN_SORT_BITS;
    const uint wide = (bits + CLSCAN_BK_MAX_BITS - 1) / CLSCAN_BK_MAX_BITS;
    const int fewer = wide < narrow;
    const uint w = fewer ? (bits + wide - 1) / wide : CLSCAN_SORT_BITS;
    uint p = 0;
    for (uint at = clscan_sort_bk_next_chunk(diff, 0, bits, w); at < bits;
         at = clscan_sort_bk_next_chunk(diff, at + w, bits, w))
        ++p;
    *width = w;
    *passes = p;
}

/* Whether the scatter puts the keys (and values) in the output rather than the
 * temporary: where the buckets' passes (clscan_sort_bk_plan) are even in number, so that
 * they end in the output, and the output is not the input (out_free, from the host:
 * neither the keys nor the values sorted in place). */
int clscan_sort_bk_scatter_to_out(uint passes, uint out_free)
{
    return out_free && (passes & 1u) == 0;
}

/* The scatter loops' parameters (both forms below). */
#define CLSCAN_BK_SCATTER_PARAMS                                                                   \
    __global const CLSCAN_SORT_K *in, __global const CLSCAN_SORT_V *vin,                          \
        __global CLSCAN_SORT_K *to, __global CLSCAN_SORT_V *vto, CLSCAN_T *next, uint shift,      \
        ulong lo, ulong hi

/* The scatter's loop over keys [lo, hi) of the input (in, vin), each to next[its
 * digit]++ of the destination (to, vto): one store a key, each to wherever its bucket
 * has got to. Where the keys and values fit in the device's cache, the buckets' passes
 * then find them there. */
void clscan_sort_bk_scatter_direct(CLSCAN_BK_SCATTER_PARAMS)
{
    (void)vin;
    (void)vto;
    for (ulong i = lo; i < hi; ++i) {
        const CLSCAN_SORT_K k = in[i];
        const CLSCAN_T at = next[clscan_sort_digit(k, shift)]++;
        to[at] = k;
#if CLSCAN_SORT_VALUE_BYTES
        vto[at] = vin[i];
#endif
    }
}

/* Keys (and values) the combined scatter gathers for a bucket before it writes them: a
 * cache line of the wider of the two. */
#if CLSCAN_SORT_VALUE_BYTES > 4 || CLSCAN_SORT_KEY_BITS == 64
#define CLSCAN_BK_WC 8u
#else
#define CLSCAN_BK_WC 16u
#endif

/* The same loop, write-combined, for keys and values too many for the cache: each
 * bucket's keys (and values) gather in a line's worth of private slots, and go out past
 * the caches (CLSCAN_STREAM_STORE) a whole line at once when its last slot fills. A
 * single store to each of 256 places would first read its line from memory; the
 * streamed line is not read at all. The key going to position pos takes slot (pos +
 * phase) % CLSCAN_BK_WC, phase being where `to` starts in a line, so that a full set of
 * slots is one line of memory (of the values' too where their array starts in a line as
 * the keys' does: the temporary, and buffers at offset 0). The part of a bucket's first
 * line below where this run starts (start[d]) belongs to the run before and is left to
 * it; the last, partial lines are written with ordinary stores. */
void clscan_sort_bk_scatter_combined(CLSCAN_BK_SCATTER_PARAMS)
{
    (void)vin;
    (void)vto;
    const uint phase = (uint)((ulong)to / sizeof(CLSCAN_SORT_K)) & (CLSCAN_BK_WC - 1u);
    CLSCAN_T start[CLSCAN_SORT_RADIX];
    CLSCAN_SORT_K kline[CLSCAN_SORT_RADIX][CLSCAN_BK_WC];
#if CLSCAN_SORT_VALUE_BYTES
    CLSCAN_SORT_V vline[CLSCAN_SORT_RADIX][CLSCAN_BK_WC];
#endif
    for (uint d = 0; d < CLSCAN_SORT_RADIX; ++d) start[d] = next[d];
    for (ulong i = lo; i < hi; ++i) {
        const CLSCAN_SORT_K k = in[i];
        const uint d = clscan_sort_digit(k, shift);
        const CLSCAN_T pos = next[d]++;
        const uint slot = ((uint)pos + phase) & (CLSCAN_BK_WC - 1u);
        kline[d][slot] = k;
#if CLSCAN_SORT_VALUE_BYTES
        vline[d][slot] = vin[i];
#endif
        if (slot == CLSCAN_BK_WC - 1u) {
            const CLSCAN_T line = pos - slot;
            if (pos >= slot && line >= start[d]) {
                for (uint j = 0; j < CLSCAN_BK_WC; ++j)
                    CLSCAN_STREAM_STORE(to + line + j, kline[d][j]);
#if CLSCAN_SORT_VALUE_BYTES
                for (uint j = 0; j < CLSCAN_BK_WC; ++j)
                    CLSCAN_STREAM_STORE(vto + line + j, vline[d][j]);
#endif
            } else {
                for (CLSCAN_T at = start[d]; at <= pos; ++at) {
                    to[at] = kline[d][at + slot - pos];
#if CLSCAN_SORT_VALUE_BYTES
                    vto[at] = vline[d][at + slot - pos];
#endif
                }
            }
        }
    }
    /* What each bucket's last line gathered. */
    for (uint d = 0; d < CLSCAN_SORT_RADIX; ++d) {
        const uint fill = ((uint)next[d] + phase) & (CLSCAN_BK_WC - 1u);
        const CLSCAN_T first = next[d] - start[d] < fill ? start[d] : next[d] - fill;
        for (CLSCAN_T at = first; at < next[d]; ++at) {
            const uint slot = ((uint)at + phase) & (CLSCAN_BK_WC - 1u);
            to[at] = kline[d][slot];
#if CLSCAN_SORT_VALUE_BYTES
            vto[at] = vline[d][slot];
#endif
        }
    }
}

/* Where the buckets take the keys: each key of group g's run (and its value) to its
 * bucket (clscan_sort_bk_shift), stably, in the temporary or, where
 * clscan_sort_bk_scatter_to_out says, the output; write-combined where `combine` (from
 * the host: the keys and values fill the device's cache), else directly. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_bk_scatter(__global const CLSCAN_SORT_K *src, ulong src_off,
                            __global const CLSCAN_SORT_V *vsrc, ulong vsrc_off,
                            CLSCAN_BK_SIDES_PARAMS, ulong n, ulong tiles_per_group,
                            __global const CLSCAN_T *counts, ulong counts_off,
                            CLSCAN_BK_STATE_PARAMS, uint out_free, uint combine)
{
    __global const uint *state = state_buf + state_off;
    if (!state[0]) return;
    CLSCAN_BK_SIDES();
    const ulong g = get_group_id(0), groups = get_num_groups(0);
    const CLSCAN_SORT_K diff = clscan_sort_bk_state_diff(state);
    const int from = clscan_sort_bk_shift(diff);
    uint width, passes;
    clscan_sort_bk_plan(from, diff, &width, &passes);
    const int to_out = clscan_sort_bk_scatter_to_out(passes, out_free);
    __global CLSCAN_SORT_K *to = to_out ? out : tmp;
    __global CLSCAN_SORT_V *vto = to_out ? vout : vtmp;
    CLSCAN_T next[CLSCAN_SORT_RADIX];
    for (uint d = 0; d < CLSCAN_SORT_RADIX; ++d) next[d] = counts[counts_off + d * groups + g];
    ulong lo, hi;
    clscan_sort_bk_run(n, tiles_per_group, g, &lo, &hi);
    if (combine)
        clscan_sort_bk_scatter_combined(src + src_off, vsrc + vsrc_off, to, vto, next,
                                        (uint)from, lo, hi);
    else
        clscan_sort_bk_scatter_direct(src + src_off, vsrc + vsrc_off, to, vto, next,
                                      (uint)from, lo, hi);
}

/* Keys a cache line holds (the stride of the buckets' prefetches). */
#define CLSCAN_BK_LINE (64 / (uint)sizeof(CLSCAN_SORT_K))

/* A bucket's keys [lo, hi) and their values from the temporary to the output (where its
 * last pass wrote the temporary). */
void clscan_sort_bk_copy_out(__global CLSCAN_SORT_K *out, __global const CLSCAN_SORT_K *tmp,
                             __global CLSCAN_SORT_V *vout, __global const CLSCAN_SORT_V *vtmp,
                             ulong lo, ulong hi)
{
    (void)vout;
    (void)vtmp;
    for (ulong i = lo; i < hi; ++i) {
        out[i] = tmp[i];
#if CLSCAN_SORT_VALUE_BYTES
        vout[i] = vtmp[i];
#endif
    }
}

/* A pass's sides in a bucket's kernel: keys (kf) and values (vf) from the temporary where
 * from_tmp, else from the output, to the other (kt, vt). */
#define CLSCAN_BK_PASS_SIDES()                                                                     \
    __global const CLSCAN_SORT_K *kf = from_tmp ? tmp : out;                                      \
    __global CLSCAN_SORT_K *kt = from_tmp ? out : tmp;                                            \
    __global const CLSCAN_SORT_V *vf = from_tmp ? vtmp : vout;                                    \
    __global CLSCAN_SORT_V *vt = from_tmp ? vout : vtmp;                                          \
    (void)vf;                                                                                      \
    (void)vt

/* A bucket of few keys (clscan_sort_bk_buckets): the keys [lo, hi) and their values,
 * from where the scatter put them (from_tmp: the temporary, else the output), sorted
 * stably by the chunks of `width` bits that clscan_sort_bk_plan passes over, each pass
 * putting each key at lo + the number of keys of smaller digit and of earlier keys of its
 * digit, found by comparing with every key of the bucket; then in the output. Where the
 * square of the count is no more than the digit's 2^width counters, this costs less
 * than clearing, counting and scanning them (a bucket of 8 keys, as with 2049 keys under
 * a 4 KiB cache, would clear and scan 4096 counters in each pass of 12 bits). */
void clscan_sort_bk_bucket_few(__global CLSCAN_SORT_K *out, __global CLSCAN_SORT_K *tmp,
                               __global CLSCAN_SORT_V *vout, __global CLSCAN_SORT_V *vtmp,
                               int from_tmp, CLSCAN_SORT_K diff, uint from, uint width,
                               ulong lo, ulong hi)
{
    (void)vout;
    (void)vtmp;
    const uint mask = (1u << width) - 1u;
    for (uint shift = clscan_sort_bk_next_chunk(diff, 0, from, width); shift < from;
         shift = clscan_sort_bk_next_chunk(diff, shift + width, from, width)) {
        CLSCAN_BK_PASS_SIDES();
        for (ulong i = lo; i < hi; ++i) {
            const CLSCAN_SORT_K k = kf[i];
            const uint d = (uint)(clscan_sort_ordered(k) >> shift) & mask;
            ulong to = lo;
            for (ulong j = lo; j < hi; ++j) {
                const uint e = (uint)(clscan_sort_ordered(kf[j]) >> shift) & mask;
                to += e < d || (e == d && j < i);
            }
            kt[to] = k;
#if CLSCAN_SORT_VALUE_BYTES
            vt[to] = vf[i];
#endif
        }
        from_tmp = !from_tmp;
    }
    if (from_tmp) clscan_sort_bk_copy_out(out, tmp, vout, vtmp, lo, hi);
}

/* Where the buckets take the keys: group b sorts bucket b (of the scanned counts of
 * `groups` runs), stably, by the chunks of clscan_sort_bk_plan from the lowest (the
 * bucket's keys agree in every bit from the bucket digit up, so a chunk that reaches
 * into it orders them by the bits below), skipping chunks in which no keys differ (they
 * would move none), moving its keys (and values) between where the scatter put them and
 * the other of the temporary and the output, and copies them to the output where the
 * last pass wrote the temporary; a bucket of few keys takes clscan_sort_bk_bucket_few
 * instead. Launched with CLSCAN_SORT_RADIX groups. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_sort_bk_buckets(CLSCAN_BK_SIDES_PARAMS, ulong n, ulong groups,
                            __global const CLSCAN_T *counts, ulong counts_off,
                            CLSCAN_BK_STATE_PARAMS, uint out_free)
{
    __global const uint *state = state_buf + state_off;
    if (!state[0]) return;
    CLSCAN_BK_SIDES();
    const uint b = (uint)get_group_id(0);
    const CLSCAN_SORT_K diff = clscan_sort_bk_state_diff(state);
    const int from = clscan_sort_bk_shift(diff);
    uint width, passes;
    clscan_sort_bk_plan(from, diff, &width, &passes);
    const uint radix = 1u << width, mask = radix - 1u;
    const ulong lo = (ulong)clscan_sort_bk_start(counts + counts_off, groups, b, n);
    const ulong hi = (ulong)clscan_sort_bk_start(counts + counts_off, groups, b + 1, n);
    if (hi - lo <= 64 && (hi - lo) * (hi - lo) <= (ulong)radix) {
        clscan_sort_bk_bucket_few(out, tmp, vout, vtmp,
                                  !clscan_sort_bk_scatter_to_out(passes, out_free), diff,
                                  (uint)from, width, lo, hi);
        return;
    }
    /* Two rows of counters: the digits of the pass about to move the keys, and those of
     * the pass after it, counted while this one moves them (one counting loop in all,
     * before the first pass). */
    CLSCAN_T bins[2][1 << CLSCAN_BK_MAX_BITS];
    /* Where the keys are: where the scatter put them. */
    int from_tmp = !clscan_sort_bk_scatter_to_out(passes, out_free);
    uint shift = clscan_sort_bk_next_chunk(diff, 0, (uint)from, width);
    uint row = 0;
    if (shift < (uint)from) {
        __global const CLSCAN_SORT_K *kf = from_tmp ? tmp : out;
        __global const CLSCAN_SORT_K *kt = from_tmp ? out : tmp;
        __global const uchar *vt = (__global const uchar *)(from_tmp ? vout : vtmp);
        for (uint d = 0; d < radix; ++d) bins[0][d] = 0;
        /* The first pass's writes land all over the other side's part for the bucket,
         * which nothing has touched since the last call: ask for its lines while
         * counting, so that the scattered writes find them in cache. */
        ulong i = lo;
        for (; i + CLSCAN_BK_LINE <= hi; i += CLSCAN_BK_LINE) {
            CLSCAN_PREFETCH(kt + i);
            for (uint v = 0; v < CLSCAN_BK_LINE * CLSCAN_SORT_VALUE_BYTES; v += 64)
                CLSCAN_PREFETCH(vt + i * CLSCAN_SORT_VALUE_BYTES + v);
            for (uint j = 0; j < CLSCAN_BK_LINE; ++j)
                ++bins[0][(uint)(clscan_sort_ordered(kf[i + j]) >> shift) & mask];
        }
        for (; i < hi; ++i) ++bins[0][(uint)(clscan_sort_ordered(kf[i]) >> shift) & mask];
        (void)kt;
        (void)vt;
    }
    while (shift < (uint)from) {
        const uint next = clscan_sort_bk_next_chunk(diff, shift + width, (uint)from, width);
        CLSCAN_BK_PASS_SIDES();
        CLSCAN_T *now = bins[row], *later = bins[row ^ 1u];
        CLSCAN_T at = 0;
        for (uint d = 0; d < radix; ++d) {
            const CLSCAN_T c = now[d];
            now[d] = at;
            at += c;
        }
        if (next < (uint)from) {
            for (uint d = 0; d < radix; ++d) later[d] = 0;
            for (ulong i = lo; i < hi; ++i) {
                const CLSCAN_SORT_K k = kf[i];
                const CLSCAN_SORT_K o = clscan_sort_ordered(k);
                const ulong to = lo + now[(uint)(o >> shift) & mask]++;
                ++later[(uint)(o >> next) & mask];
                kt[to] = k;
#if CLSCAN_SORT_VALUE_BYTES
                vt[to] = vf[i];
#endif
            }
        } else {
            for (ulong i = lo; i < hi; ++i) {
                const CLSCAN_SORT_K k = kf[i];
                const ulong to = lo + now[(uint)(clscan_sort_ordered(k) >> shift) & mask]++;
                kt[to] = k;
#if CLSCAN_SORT_VALUE_BYTES
                vt[to] = vf[i];
#endif
            }
        }
        from_tmp = !from_tmp;
        row ^= 1u;
        shift = next;
    }
    if (from_tmp) clscan_sort_bk_copy_out(out, tmp, vout, vtmp, lo, hi);
}

#endif /* CLSCAN_SORT_BUCKETS */
#endif /* CLSCAN_SORT_BUCKETS_CL */
