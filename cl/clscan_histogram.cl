/* clscan_histogram.cl - histograms (src/algo/histogram.c): the bin of a sample (even bins
 * over [lower, upper), or bins between sorted levels), each work-group's counts in local
 * memory added into per-bin arrival words whose last arrival writes the caller's 32- or
 * 64-bit count (devices with 64-bit atomics), or written out as one row of partial counts
 * whose column sums a second kernel takes; for more bins than local memory holds, global
 * atomics on one row. Specialised by the host on:
 *   CLSCAN_HIST_SAMPLE_ID   the samples' clscan_type (0 int32 ... 5 double)
 *   CLSCAN_HIST_MODE        1 even bins, 2 bins between levels
 *   CLSCAN_HIST_LOCAL_BINS  the bins a work-group counts in local memory
 *   CLSCAN_HIST_BRANCH_FREE 1: one work-item's even bins counted without a branch
 *   CLSCAN_HIST_FUSED       1: the device has 64-bit global atomics (clscan_hist_fused)
 *   CLSCAN_WG_SIZE          work-items per group */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_HISTOGRAM_CL
#define CLSCAN_HISTOGRAM_CL

#ifndef CLSCAN_HIST_SAMPLE_ID
#define CLSCAN_HIST_SAMPLE_ID 0
#endif
#ifndef CLSCAN_HIST_MODE
#define CLSCAN_HIST_MODE 1
#endif
#ifndef CLSCAN_HIST_LOCAL_BINS
#define CLSCAN_HIST_LOCAL_BINS 256
#endif
#ifndef CLSCAN_WG_SIZE
#define CLSCAN_WG_SIZE 64
#endif

#if CLSCAN_HIST_SAMPLE_ID == 5
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* The sample type, whether it is a float type, and its width. */
#if CLSCAN_HIST_SAMPLE_ID == 0
#define CLSCAN_HS int
#elif CLSCAN_HIST_SAMPLE_ID == 1
#define CLSCAN_HS uint
#elif CLSCAN_HIST_SAMPLE_ID == 2
#define CLSCAN_HS long
#elif CLSCAN_HIST_SAMPLE_ID == 3
#define CLSCAN_HS ulong
#elif CLSCAN_HIST_SAMPLE_ID == 4
#define CLSCAN_HS float
#else
#define CLSCAN_HS double
#endif
#if CLSCAN_HIST_SAMPLE_ID == 0
#define CLSCAN_HS16 int16
#elif CLSCAN_HIST_SAMPLE_ID == 1
#define CLSCAN_HS16 uint16
#elif CLSCAN_HIST_SAMPLE_ID == 2
#define CLSCAN_HS16 long16
#elif CLSCAN_HIST_SAMPLE_ID == 3
#define CLSCAN_HS16 ulong16
#elif CLSCAN_HIST_SAMPLE_ID == 4
#define CLSCAN_HS16 float16
#else
#define CLSCAN_HS16 double16
#endif
#define CLSCAN_HS_FLOAT (CLSCAN_HIST_SAMPLE_ID >= 4)
#define CLSCAN_HS_WIDE (CLSCAN_HIST_SAMPLE_ID == 2 || CLSCAN_HIST_SAMPLE_ID == 3)

/* "No bin": the sample is outside the range (or a NaN). */
#define CLSCAN_HIST_NONE 0xffffffffu

/* What decides a sample's bin. Even bins: lower and upper of the sample type; for
 * integers range = upper - lower (as unsigned 64-bit; upper > lower) and magic (see
 * clscan_hist_div), and where every bin is `width` values wide (range a multiple of
 * bins, below 2^32) width and wmagic = min(floor(2^32 / width), 2^32 - 1), else width 0;
 * for floats scale = bins / (upper - lower) in the sample type; all computed by the
 * host. Levels: the bins + 1 ascending levels in global memory. */
typedef struct clscan_hist_bins {
    CLSCAN_HS lower, upper;
    CLSCAN_HS scale;
    ulong range, magic;
    uint width, wmagic;
    uint bins;
    __global const CLSCAN_HS *levels;
} clscan_hist_bins;

#if !CLSCAN_HS_FLOAT
/* floor(d * bins / range) for d < range (the quotient is below bins <= 2^31), exactly,
 * without a division: magic is floor(2^64 / range) (2^64 - 1 for range 1) where range <=
 * 2^32, so that d * bins fits 64 bits, else floor(bins * 2^64 / range); either estimate
 * is the quotient or one less, and one comparison settles which. */
uint clscan_hist_div(const ulong d, const uint bins, const ulong range, const ulong magic)
{
    const ulong nlo = d * (ulong)bins;
    if (range <= 0x100000000ul) {
        ulong q = mul_hi(nlo, magic);
        if (nlo - q * range >= range) ++q;
        return (uint)q;
    }
    ulong q = mul_hi(d, magic);
    /* (q + 1) * range <= d * bins, in 128 bits? */
    const ulong nhi = mul_hi(d, (ulong)bins), t = q + 1, thi = mul_hi(t, range), tlo = t * range;
    if (thi < nhi || (thi == nhi && tlo <= nlo)) ++q;
    return (uint)q;
}
#endif

/* CLSCAN_HIST_BRANCH_FREE (set by the host for one-work-item groups on the stacks where
 * it measured faster: src/tune/choose.c): even bins are computed whatever the
 * sample, "outside" (not in [lower, upper), or a NaN) ORed in as all bits last, and the
 * one work-item counts a sample in no bin in a counter past the bins instead of
 * branching on it, since samples fall outside in no pattern a processor predicts.
 * Outside the range the arithmetic stays defined: unsigned integers wrap, and a float is
 * raised to 0 (a NaN too) before it is converted. */
#ifndef CLSCAN_HIST_BRANCH_FREE
#define CLSCAN_HIST_BRANCH_FREE 0
#endif
/* Samples whose bins one work-item computes before it counts them (16: one vector of
 * clscan_hist_bins16). */
#define CLSCAN_HIST_BLOCK 16

#if CLSCAN_HIST_MODE == 1
/* Under CLSCAN_HIST_BRANCH_FREE all bits where sample x is outside [lower, upper) (or a
 * NaN), else 0 (the caller has returned CLSCAN_HIST_NONE for those). */
uint clscan_hist_outside(const CLSCAN_HS x, const clscan_hist_bins *h)
{
    return CLSCAN_HIST_BRANCH_FREE ? 0u - (uint)!((x >= h->lower) & (x < h->upper)) : 0u;
}
#endif

#if CLSCAN_HIST_MODE == 1 && !CLSCAN_HS_FLOAT
/* Sample x's offset from lower (x - lower, wrapping outside the range). */
ulong clscan_hist_offset(const CLSCAN_HS x, const clscan_hist_bins *h)
{
#if CLSCAN_HS_WIDE
    return (ulong)x - (ulong)h->lower;
#else
    return (ulong)((uint)x - (uint)h->lower);
#endif
}

/* The bin of an integer sample where every bin is h->width values wide (h->width != 0),
 * with clscan_hist_outside's bits: the form the one-work-item loop takes in blocks
 * (clscan_hist_local), free of the test of width. */
uint clscan_hist_bin_width(const CLSCAN_HS x, const clscan_hist_bins *h)
{
    const ulong d = clscan_hist_offset(x, h);
    /* d / width in 32 bits (d < range < 2^32): the estimate mul_hi(d, wmagic) is the
     * quotient or one less (wmagic * width >= 2^32 - width), one comparison settles
     * it. Two multiplications where clscan_hist_div takes 64-bit ones. */
    const uint d32 = (uint)d;
    const uint q = mul_hi(d32, h->wmagic);
    return (q + (d32 - q * h->width >= h->width)) | clscan_hist_outside(x, h);
}
#endif

/* The bin of sample x, or CLSCAN_HIST_NONE. */
uint clscan_hist_bin(const CLSCAN_HS x, const clscan_hist_bins *h)
{
#if CLSCAN_HIST_MODE == 1
#if !CLSCAN_HIST_BRANCH_FREE
    if (!(x >= h->lower && x < h->upper)) return CLSCAN_HIST_NONE;
#endif
    const uint outside = clscan_hist_outside(x, h);
#if CLSCAN_HS_FLOAT
    CLSCAN_HS v = (x - h->lower) * h->scale;
#if CLSCAN_HIST_BRANCH_FREE
    v = v > (CLSCAN_HS)0 ? v : (CLSCAN_HS)0; /* (in the range v is not below 0) */
#endif
    const uint b = v < (CLSCAN_HS)h->bins ? (uint)v : h->bins - 1u;
    return min(b, h->bins - 1u) | outside;
#else
    if (h->width) return clscan_hist_bin_width(x, h);
    return clscan_hist_div(clscan_hist_offset(x, h), h->bins, h->range, h->magic) | outside;
#endif
#else
    __global const CLSCAN_HS *lv = h->levels;
    if (!(x >= lv[0] && x < lv[h->bins])) return CLSCAN_HIST_NONE;
    uint lo = 0, hi = h->bins; /* lv[lo] <= x < lv[hi] */
    while (hi - lo > 1) {
        const uint mid = lo + (hi - lo) / 2;
        if (x >= lv[mid]) lo = mid;
        else hi = mid;
    }
    return lo;
#endif
}

/* CLSCAN_HIST_VECTORS (with CLSCAN_HIST_BRANCH_FREE, one work-item groups): even bins
 * of floats, or of integers of one width, computed 16 at once in OpenCL C vectors, for
 * the stacks that do not vectorise a work-item's loop themselves (src/tune/choose.c). */
#ifndef CLSCAN_HIST_VECTORS
#define CLSCAN_HIST_VECTORS 0
#endif
#if CLSCAN_HIST_MODE == 1 && CLSCAN_HIST_BRANCH_FREE && CLSCAN_WG_SIZE == 1 && CLSCAN_HIST_VECTORS
/* Sixteen samples' even bins at once, in OpenCL C's vectors,
 * each clamped to `bins` (no bin) as the one-work-item loop counts them: floats, and
 * integers where every bin is h->width values wide. The same arithmetic as
 * clscan_hist_bin's, lane by lane; for floats min(v, bins - 1) truncated is its clamp
 * (bins <= CLSCAN_HIST_LOCAL_BINS is exact in the sample type). */
uint16 clscan_hist_bins16(const CLSCAN_HS16 x, const clscan_hist_bins *h)
{
    /* (Comparisons give all bits set for true, in lanes of the samples' width.) */
    const uint16 outside = ~convert_uint16((x >= h->lower) & (x < h->upper));
#if CLSCAN_HS_FLOAT
    CLSCAN_HS16 v = (x - h->lower) * h->scale;
    v = fmax(v, (CLSCAN_HS16)0); /* (a NaN too) */
    const uint16 b = convert_uint16(fmin(v, (CLSCAN_HS16)(h->bins - 1u)));
#else
#if CLSCAN_HS_WIDE
    const uint16 d32 = convert_uint16(as_ulong16(x) - (ulong)h->lower);
#else
    const uint16 d32 = as_uint16(x) - (uint)h->lower;
#endif
    const uint16 q = mul_hi(d32, (uint16)h->wmagic);
    const uint16 b = q + (as_uint16(d32 - q * h->width >= (uint16)h->width) & 1u);
#endif
    return min(b | outside, (uint16)h->bins);
}
#endif

/* The arguments every counting kernel takes after the samples, as one struct. */
#define CLSCAN_HIST_PARAMS                                                               \
    const CLSCAN_HS lower, const CLSCAN_HS upper, const CLSCAN_HS scale, const ulong range, \
        const ulong magic, const uint width, const uint wmagic, const uint bins,            \
        __global const CLSCAN_HS *levels, const ulong levels_off
#define CLSCAN_HIST_MAKE(h)                                                              \
    const clscan_hist_bins h = {lower,  upper, scale, range, magic,                     \
                                width,  wmagic, bins, levels + levels_off}

/* The local counters a work-group declares: one work-item without a branch takes four
 * rows of counters, each with one past the bins (the host leaves local memory of 8 words
 * a counter, src/algo/histogram.c). */
#define CLSCAN_HIST_COUNTERS                                                             \
    (CLSCAN_WG_SIZE == 1 && CLSCAN_HIST_BRANCH_FREE ? 4 * (CLSCAN_HIST_LOCAL_BINS + 1)    \
                                                    : CLSCAN_HIST_LOCAL_BINS)

/* Work-group g counts samples[off + [g * per_group, (g + 1) * per_group) and < n) into
 * counts[0, bins) (local, CLSCAN_HIST_COUNTERS of them), which it clears first; the
 * counts are complete for every work-item of the group on return. */
void clscan_hist_count_group(__global const CLSCAN_HS *samples, const ulong off,
                             const ulong n, const ulong per_group, const clscan_hist_bins *hp,
                             __local uint *counts)
{
    const clscan_hist_bins h = *hp;
    const uint bins = h.bins;
    const uint lid = get_local_id(0);
    for (uint b = lid; b < bins; b += CLSCAN_WG_SIZE) counts[b] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong first = (ulong)get_group_id(0) * per_group;
    const ulong end = min(first + per_group, n);
    __global const CLSCAN_HS *s = samples + off;
#if CLSCAN_WG_SIZE == 1 && CLSCAN_HIST_BRANCH_FREE
    /* Blocks of CLSCAN_HIST_BLOCK samples: their bins first (a loop free of stores, which
     * the compiler may vectorise), then their counts, sample u into row u % 4, so that
     * samples of one bin (those in no bin, say, often half of them) do not each wait on
     * the increment before; the rows are summed last. */
    __local uint *rows[4] = {counts, counts + (bins + 1), counts + 2 * (bins + 1),
                             counts + 3 * (bins + 1)};
    for (uint b = 0; b < 4 * (bins + 1); ++b) counts[b] = 0u;
    ulong i = first;
#define CLSCAN_HIST_BLOCKS(FILL)                                                           \
    for (; i + CLSCAN_HIST_BLOCK <= end; i += CLSCAN_HIST_BLOCK) {                         \
        uint at[CLSCAN_HIST_BLOCK];                                                        \
        FILL;                                                                              \
        for (uint u = 0; u < CLSCAN_HIST_BLOCK; u += 4) {                                  \
            rows[0][at[u]] += 1u;                                                          \
            rows[1][at[u + 1]] += 1u;                                                      \
            rows[2][at[u + 2]] += 1u;                                                      \
            rows[3][at[u + 3]] += 1u;                                                      \
        }                                                                                  \
    }
#define CLSCAN_HIST_FILL_VECTOR vstore16(clscan_hist_bins16(vload16(0, s + i), &h), 0, at)
#define CLSCAN_HIST_FILL_EACH(BIN) \
    for (uint u = 0; u < CLSCAN_HIST_BLOCK; ++u) at[u] = min(BIN(s[i + u], &h), bins)
#if CLSCAN_HIST_VECTORS && CLSCAN_HIST_MODE == 1 && CLSCAN_HS_FLOAT
    CLSCAN_HIST_BLOCKS(CLSCAN_HIST_FILL_VECTOR)
#else
#if CLSCAN_HIST_VECTORS && CLSCAN_HIST_MODE == 1
    if (h.width) CLSCAN_HIST_BLOCKS(CLSCAN_HIST_FILL_VECTOR) /* (bins of one width) */
#elif CLSCAN_HIST_MODE == 1 && !CLSCAN_HS_FLOAT
    /* (Bins of one width: a loop of their own, free of the test of the width, which the
     * compiler vectorises.) */
    if (h.width) CLSCAN_HIST_BLOCKS(CLSCAN_HIST_FILL_EACH(clscan_hist_bin_width))
#endif
    CLSCAN_HIST_BLOCKS(CLSCAN_HIST_FILL_EACH(clscan_hist_bin))
#endif
#undef CLSCAN_HIST_FILL_VECTOR
#undef CLSCAN_HIST_FILL_EACH
#undef CLSCAN_HIST_BLOCKS
    for (; i < end; ++i) rows[0][min(clscan_hist_bin(s[i], &h), bins)] += 1u;
    for (uint b = 0; b < bins; ++b) counts[b] += rows[1][b] + rows[2][b] + rows[3][b];
#elif CLSCAN_WG_SIZE == 1
    for (ulong i = first; i < end; ++i) {
        const uint b = clscan_hist_bin(s[i], &h);
        if (b != CLSCAN_HIST_NONE) counts[b] += 1u; /* (one work-item: no race) */
    }
#else
    /* Four samples loaded before any is counted: four loads in flight per work-item. */
    ulong i = first + lid;
    for (; i + 3 * CLSCAN_WG_SIZE < end; i += 4 * CLSCAN_WG_SIZE) {
        CLSCAN_HS x[4];
        for (uint u = 0; u < 4; ++u) x[u] = s[i + u * CLSCAN_WG_SIZE];
        for (uint u = 0; u < 4; ++u) {
            const uint b = clscan_hist_bin(x[u], &h);
            if (b != CLSCAN_HIST_NONE) atomic_inc(&counts[b]);
        }
    }
    for (; i < end; i += CLSCAN_WG_SIZE) {
        const uint b = clscan_hist_bin(s[i], &h);
        if (b != CLSCAN_HIST_NONE) atomic_inc(&counts[b]);
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Work-group g counts its share of samples (clscan_hist_count_group) and writes the
 * counts as row g of partials, for clscan_hist_sum. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG_SIZE, 1, 1)))
void clscan_hist_local(__global const CLSCAN_HS *samples, ulong off, ulong n, ulong per_group,
                       CLSCAN_HIST_PARAMS, __global uint *partials)
{
    CLSCAN_HIST_MAKE(h);
    __local uint counts[CLSCAN_HIST_COUNTERS];
    clscan_hist_count_group(samples, off, n, per_group, &h, counts);
    __global uint *row = partials + (ulong)get_group_id(0) * bins;
    for (uint b = get_local_id(0); b < bins; b += CLSCAN_WG_SIZE) row[b] = counts[b];
}

#if CLSCAN_HIST_FUSED
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
/* An arrival word (clscan_hist_fused): the groups that have added their count to the bin
 * so far, above CLSCAN_HIST_ARRIVAL_SHIFT, and the sum of those counts below it (a pass
 * counts fewer than 2^40 samples, the host launches fewer than 2^24 groups). */
#define CLSCAN_HIST_ARRIVAL_SHIFT 40
#define CLSCAN_HIST_SUM_MASK (((ulong)1 << CLSCAN_HIST_ARRIVAL_SHIFT) - 1u)

/* Counts and sums in one kernel, for the devices with 64-bit global atomics: work-group g
 * counts its share of samples (clscan_hist_count_group), then adds one arrival and its
 * count of bin b to arrivals[b] for every bin, zero counts included. The group whose
 * addition to a word finds every other group's already there holds the bin's total: it
 * writes counts[off + b] (plus its old value where accumulate is set; 64-bit counts
 * where count64 is set, counts64 then the buffer) and sets the word back to zero. No
 * word needs another's: each bin is finished by its own last arrival, whatever the
 * order in which the device makes the groups' writes visible. arrivals[0, bins) must be
 * zero at the start (the host clears them once; every call leaves them zero). */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG_SIZE, 1, 1)))
void clscan_hist_fused(__global const CLSCAN_HS *samples, ulong off, ulong n, ulong per_group,
                       CLSCAN_HIST_PARAMS, volatile __global ulong *arrivals,
                       __global uint *counts32, __global ulong *counts64, ulong counts_off,
                       int count64, int accumulate)
{
    CLSCAN_HIST_MAKE(h);
    __local uint counts[CLSCAN_HIST_COUNTERS];
    clscan_hist_count_group(samples, off, n, per_group, &h, counts);
    const ulong others = (ulong)(get_num_groups(0) - 1u) << CLSCAN_HIST_ARRIVAL_SHIFT;
    for (uint b = get_local_id(0); b < bins; b += CLSCAN_WG_SIZE) {
        const ulong mine = counts[b];
        const ulong old = atom_add(&arrivals[b], ((ulong)1 << CLSCAN_HIST_ARRIVAL_SHIFT) + mine);
        if ((old & ~CLSCAN_HIST_SUM_MASK) != others) continue;
        const ulong total = (old & CLSCAN_HIST_SUM_MASK) + mine;
        (void)atom_xchg(&arrivals[b], 0ul);
        const ulong at = counts_off + b;
        if (count64) counts64[at] = (accumulate ? counts64[at] : 0ul) + total;
        else counts32[at] = (accumulate ? counts32[at] : 0u) + (uint)total;
    }
}
#endif

/* More bins than local memory holds: every sample of samples[off, +n) counted straight
 * into partials[0, bins) (zeroed before; n < 2^32, so no counter wraps). */
__kernel void clscan_hist_global(__global const CLSCAN_HS *samples, ulong off, ulong n,
                                 CLSCAN_HIST_PARAMS, __global uint *partials)
{
    CLSCAN_HIST_MAKE(h);
    __global const CLSCAN_HS *s = samples + off;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const uint b = clscan_hist_bin(s[i], &h);
        if (b != CLSCAN_HIST_NONE) atomic_inc(&partials[b]);
    }
}

/* The column sum's shape: a work-group takes CLSCAN_HIST_SUM_BINS consecutive bins, and
 * its work-items split the rows into CLSCAN_HIST_SUM_STRIPES interleaved stripes. */
#if CLSCAN_WG_SIZE >= 32
#define CLSCAN_HIST_SUM_BINS 32
#else
#define CLSCAN_HIST_SUM_BINS CLSCAN_WG_SIZE
#endif
#define CLSCAN_HIST_SUM_STRIPES (CLSCAN_WG_SIZE / CLSCAN_HIST_SUM_BINS)

/* counts[off + b] = the sum of partials[g * bins + b] over rows g < rows (plus its old
 * value where accumulate is set), as 64-bit counts where count64 is set (counts64 is
 * then the buffer), else 32-bit ones (wrapping past 2^32 - 1). Work-item (bin, stripe)
 * sums rows stripe, stripe + STRIPES, ...; the stripes' sums are added in order. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG_SIZE, 1, 1)))
void clscan_hist_sum(__global const uint *partials, ulong rows, uint bins,
                     __global uint *counts32, __global ulong *counts64, ulong off,
                     int count64, int accumulate)
{
    __local ulong sums[CLSCAN_WG_SIZE];
    const uint lid = get_local_id(0);
    const uint stripe = lid / CLSCAN_HIST_SUM_BINS;
    const ulong b = (ulong)get_group_id(0) * CLSCAN_HIST_SUM_BINS + lid % CLSCAN_HIST_SUM_BINS;
    ulong total = 0;
    if (b < bins)
        for (ulong g = stripe; g < rows; g += CLSCAN_HIST_SUM_STRIPES)
            total += partials[g * bins + b];
    sums[lid] = total;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (stripe != 0 || b >= bins) return;
    for (uint k = 1; k < CLSCAN_HIST_SUM_STRIPES; ++k)
        total += sums[k * CLSCAN_HIST_SUM_BINS + lid];
    if (count64) counts64[off + b] = (accumulate ? counts64[off + b] : 0ul) + total;
    else counts32[off + b] = (accumulate ? counts32[off + b] : 0u) + (uint)total;
}

#endif /* CLSCAN_HISTOGRAM_CL */
