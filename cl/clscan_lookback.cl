/* clscan_lookback.cl - the tile status words of the single-pass scan and the decoupled
 * look-back over them, with a bounded wait: after spin_limit fruitless reads of a
 * predecessor, the work-group reduces that tile's input itself (decoupled fallback), so
 * no scheduling can make it wait forever. docs/ALGORITHMS.md explains the protocol. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_LOOKBACK_CL
#define CLSCAN_LOOKBACK_CL
#ifndef CLSCAN_WORKGROUP_CL
#include "clscan_workgroup.cl"
#endif

/* How status words are read and written (a word carries its value with its flag, so
 * no other memory needs ordering by them):
 *   0 OpenCL C 1.2 atomics: reads are atomic read-modify-writes (atomic_add of 0), so a
 *     stale cache line can never answer them.
 *   1 OpenCL C 2.0/3.0 atomics: atomic_load/store at device scope, acquire/release
 *     (where the device reports those features).
 *   2 NVIDIA PTX: ld.relaxed.gpu / st.relaxed.gpu / atom.cas at GPU scope (the NVIDIA
 *     platform; sm_70 and newer). */
#ifndef CLSCAN_LB_ATOMICS
#define CLSCAN_LB_ATOMICS 0
#endif
/* Status word width: 64 bits needs cl_khr_int64_base_atomics (and, for mode 1, the
 * extended ones); 32-bit words need nothing beyond OpenCL 1.1. Each word carries a tag
 * (per-call epoch and a kind) in its upper half and CLSCAN_LB_HALF_BITS of the value in
 * its lower half; a value takes CLSCAN_LB_PARTS words. */
#ifndef CLSCAN_LB_WORD_BITS
#define CLSCAN_LB_WORD_BITS 64
#endif
/* Predecessors one look-back step reads at once (one per work-item). */
#ifndef CLSCAN_LB_WINDOW
#define CLSCAN_LB_WINDOW (CLSCAN_WG_SIZE < 32 ? CLSCAN_WG_SIZE : 32)
#endif
/* Test modes, never on by default: 1 delays every third tile's first publication, 2
 * makes every fourth tile publish nothing, so its successors must reduce it. In both,
 * fewer tiles publish prefixes (CLSCAN_LB_ANCHOR_ in clscan_lb_tile_prefix) and the
 * ordered walk keeps fewer totals (CLSCAN_LB_NEAR), so that walks go deep. */
#ifndef CLSCAN_LB_TEST
#define CLSCAN_LB_TEST 0
#endif
#define CLSCAN_LB_TEST_DELAY 2000

#if CLSCAN_LB_WORD_BITS == 64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#if CLSCAN_LB_ATOMICS == 1
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#endif
typedef ulong clscan_lb_word;
#define CLSCAN_LB_HALF_BITS 32
#define CLSCAN_LB_HALF_MASK 0xffffffffUL
#elif CLSCAN_LB_WORD_BITS == 32
typedef uint clscan_lb_word;
#define CLSCAN_LB_HALF_BITS 16
#define CLSCAN_LB_HALF_MASK 0xffffu
#else
#error "CLSCAN_LB_WORD_BITS must be 32 or 64"
#endif
#if CLSCAN_TYPE_ID == CLSCAN_TYPE_CUSTOM
#define CLSCAN_LB_PARTS ((uint)(sizeof(CLSCAN_T) * 8 / CLSCAN_LB_HALF_BITS))
#else
#define CLSCAN_LB_PARTS (CLSCAN_T_BYTES * 8 / CLSCAN_LB_HALF_BITS)
#endif
/* The epoch is a per-call number in the tag's upper bits; the host restarts it (and
 * clears the words) before it would overflow. */
#define CLSCAN_LB_EPOCH_BITS (CLSCAN_LB_HALF_BITS - 2)
/* Words before the first tile's status: the tile counter lives in the first 32 bits. */
#define CLSCAN_LB_HEADER_WORDS (128 / (CLSCAN_LB_WORD_BITS / 8))
/* The kernels' statistics words (stats[0..2]): stats_base + stats_off where the host
 * passes a buffer (a test's hook), else the status buffer's header from its 32-bit word
 * stats_off on. (A NULL argument costs NVIDIA's enqueue less than the status buffer
 * passed twice: src/runtime/runtime.h, clscan__no_carry.) */
#define CLSCAN_LB_STATS(state, stats_base, stats_off)                                  \
    ((stats_base) ? (stats_base) + (stats_off) : (__global uint *)(state) + (stats_off))

/* Kinds, in a tag's two low bits. 0 (or another call's epoch): nothing yet. */
#define CLSCAN_LB_AGGREGATE 1u /* the owner's tile total */
#define CLSCAN_LB_FALLBACK 2u  /* the tile total, computed by a waiting successor */
#define CLSCAN_LB_PREFIX 3u    /* the combination of this tile and all before it */

/* The element's bits: CLSCAN_LB_TO_BITS and CLSCAN_LB_FROM_BITS convert, CLSCAN_LB_HALF
 * reads value half p (CLSCAN_LB_HALF_BITS wide) of them as a status word's low half, and
 * CLSCAN_LB_SET_HALF writes it (into bits that start as CLSCAN_LB_BITS_ZERO). For the
 * library's types the bits are an unsigned integer of the element's size; for a user's
 * struct (CLSCAN_TYPE_CUSTOM, any multiple of 4 bytes) a union of it and its words, so
 * that a value of any size is split over as many status words as it needs, each with
 * its own tag (no atomics wider than a word). */
#if CLSCAN_TYPE_ID == CLSCAN_TYPE_CUSTOM
typedef union {
    CLSCAN_T v;
    uint w[sizeof(CLSCAN_T) / 4];
    ushort h[sizeof(CLSCAN_T) / 2];
} clscan_lb_bits;
clscan_lb_bits clscan_lb_to_bits_(CLSCAN_T x)
{
    clscan_lb_bits b;
    b.v = x;
    return b;
}
clscan_lb_bits clscan_lb_bits_zero_(void)
{
    clscan_lb_bits b;
    for (uint p = 0; p < sizeof(CLSCAN_T) / 4; ++p) b.w[p] = 0u;
    return b;
}
#define CLSCAN_LB_TO_BITS(x) clscan_lb_to_bits_(x)
#define CLSCAN_LB_FROM_BITS(b) ((b).v)
#define CLSCAN_LB_BITS_ZERO clscan_lb_bits_zero_()
#if CLSCAN_LB_HALF_BITS == 32
#define CLSCAN_LB_HALF(b, p) ((clscan_lb_word)(b).w[p])
#define CLSCAN_LB_SET_HALF(b, p, half) ((b).w[p] = (uint)(half))
#else
#define CLSCAN_LB_HALF(b, p) ((clscan_lb_word)(b).h[p])
#define CLSCAN_LB_SET_HALF(b, p, half) ((b).h[p] = (ushort)(half))
#endif
#else /* the library's types */
#if CLSCAN_T_BYTES == 8
typedef ulong clscan_lb_bits;
#define CLSCAN_LB_TO_BITS(x) as_ulong(x)
#else
typedef uint clscan_lb_bits;
#define CLSCAN_LB_TO_BITS(x) as_uint(x)
#endif
#define CLSCAN_LB_BITS_ZERO ((clscan_lb_bits)0)
#define CLSCAN_LB_HALF(b, p) \
    ((clscan_lb_word)((b) >> ((p) * CLSCAN_LB_HALF_BITS)) & CLSCAN_LB_HALF_MASK)
#define CLSCAN_LB_SET_HALF(b, p, half) \
    ((b) |= (clscan_lb_bits)(half) << ((p) * CLSCAN_LB_HALF_BITS))
#endif
#if CLSCAN_TYPE_ID == CLSCAN_TYPE_CUSTOM
/* (CLSCAN_LB_FROM_BITS above.) */
#elif CLSCAN_TYPE_ID == CLSCAN_INT32
#define CLSCAN_LB_FROM_BITS(b) as_int(b)
#elif CLSCAN_TYPE_ID == CLSCAN_INT64
#define CLSCAN_LB_FROM_BITS(b) as_long(b)
#elif CLSCAN_TYPE_ID == CLSCAN_FLOAT
#define CLSCAN_LB_FROM_BITS(b) as_float(b)
#elif CLSCAN_TYPE_ID == CLSCAN_DOUBLE
#define CLSCAN_LB_FROM_BITS(b) as_double(b)
#else
#define CLSCAN_LB_FROM_BITS(b) (b)
#endif

/* ---- the three ways to touch a status word: load, store, compare-and-swap ---- */
#if CLSCAN_LB_ATOMICS == 0
#if CLSCAN_LB_WORD_BITS == 64
#define CLSCAN_LB_LOAD(p) atom_add((volatile __global ulong *)(p), 0UL)
#define CLSCAN_LB_STORE(p, v) ((void)atom_xchg((volatile __global ulong *)(p), (v)))
#define CLSCAN_LB_CAS(p, cmp, v) atom_cmpxchg((volatile __global ulong *)(p), (cmp), (v))
#else
#define CLSCAN_LB_LOAD(p) atomic_add((volatile __global uint *)(p), 0u)
#define CLSCAN_LB_STORE(p, v) ((void)atomic_xchg((volatile __global uint *)(p), (v)))
#define CLSCAN_LB_CAS(p, cmp, v) atomic_cmpxchg((volatile __global uint *)(p), (cmp), (v))
#endif

#elif CLSCAN_LB_ATOMICS == 1
#if CLSCAN_LB_WORD_BITS == 64
typedef atomic_ulong clscan_lb_atomic;
#else
typedef atomic_uint clscan_lb_atomic;
#endif
#define CLSCAN_LB_LOAD(p)                                                              \
    atomic_load_explicit((volatile __global clscan_lb_atomic *)(p), memory_order_acquire, \
                         memory_scope_device)
#define CLSCAN_LB_STORE(p, v)                                                          \
    atomic_store_explicit((volatile __global clscan_lb_atomic *)(p), (v),              \
                          memory_order_release, memory_scope_device)
clscan_lb_word clscan_lb_cas_(__global clscan_lb_word *p, clscan_lb_word cmp,
                              clscan_lb_word v)
{
    atomic_compare_exchange_strong_explicit((volatile __global clscan_lb_atomic *)p, &cmp, v,
                                            memory_order_acq_rel, memory_order_acquire,
                                            memory_scope_device);
    return cmp; /* the value found: equal to the old cmp exactly when the swap happened */
}
#define CLSCAN_LB_CAS(p, cmp, v) clscan_lb_cas_((p), (cmp), (v))

#elif CLSCAN_LB_ATOMICS == 2
#if CLSCAN_LB_WORD_BITS != 64
#error "the PTX status words are 64-bit"
#endif
/* Generic addressing: a __global pointer is a valid generic address on NVIDIA. */
ulong clscan_lb_load_(__global ulong *p)
{
    ulong v;
    __asm__ volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
void clscan_lb_store_(__global ulong *p, ulong v)
{
    __asm__ volatile("st.relaxed.gpu.u64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
}
ulong clscan_lb_cas_(__global ulong *p, ulong cmp, ulong v)
{
    ulong old;
    __asm__ volatile("atom.relaxed.gpu.cas.b64 %0, [%1], %2, %3;"
                     : "=l"(old)
                     : "l"(p), "l"(cmp), "l"(v)
                     : "memory");
    return old;
}
#define CLSCAN_LB_LOAD(p) clscan_lb_load_(p)
#define CLSCAN_LB_STORE(p, v) clscan_lb_store_((p), (v))
#define CLSCAN_LB_CAS(p, cmp, v) clscan_lb_cas_((p), (cmp), (v))
/* A value of two words (8 bytes: int64, double, a segmented scan's pair) has them read
 * or written by one instruction of 16 bytes, a value of 4, 6, ... words by one for each
 * pair (a tile's words start on a 16-byte boundary: the buffer's start, then a header of
 * 128 bytes, then an even number of words a tile). PTX makes each word of the vector a
 * relaxed access of its own, not the pair one access; nothing needs more, since every
 * word carries its tag and readers check them all, as when they are read one at a time.
 * (H200, against the 1.2 atomics: int64 scans 8% and int32 scans by key 6-8% faster this
 * way, tenth session; a 16-byte user struct's scan 38-39%, twenty-second;
 * docs/PERFORMANCE.md.) */
#define CLSCAN_LB_PAIRED 1
void clscan_lb_load2_(__global ulong *p, ulong *w0, ulong *w1)
{
    ulong a, b;
    __asm__ volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
    *w0 = a;
    *w1 = b;
}
void clscan_lb_store2_(__global ulong *p, ulong w0, ulong w1)
{
    __asm__ volatile("st.relaxed.gpu.v2.u64 [%0], {%1, %2};" : : "l"(p), "l"(w0), "l"(w1) : "memory");
}
#else
#error "CLSCAN_LB_ATOMICS must be 0, 1 or 2"
#endif

/* The tag a word of this call carries for `kind`. */
#define CLSCAN_LB_TAG(epoch, kind) ((clscan_lb_word)(((epoch) << 2) | (kind)))
/* The kind a word read in call `epoch` shows (0: another call's word, or none). */
uint clscan_lb_kind_(clscan_lb_word w, uint epoch)
{
    const uint tag = (uint)(w >> CLSCAN_LB_HALF_BITS);
    return (tag >> 2) == epoch ? (tag & 3u) : 0u;
}
/* Word `part` of value bits b with kind `kind`. */
clscan_lb_word clscan_lb_word_(clscan_lb_bits b, uint part, uint epoch, uint kind)
{
    return (CLSCAN_LB_TAG(epoch, kind) << CLSCAN_LB_HALF_BITS) | CLSCAN_LB_HALF(b, part);
}

/* Reads a tile's status words: returns the kind, 0 unless every word shows this call
 * and the same kind (the words are written one at a time), and sets *value. */
uint clscan_lb_read(__global clscan_lb_word *st, uint epoch, CLSCAN_T *value)
{
    clscan_lb_bits bits = CLSCAN_LB_BITS_ZERO;
#ifdef CLSCAN_LB_PAIRED
    if (CLSCAN_LB_PARTS % 2 == 0) {
        uint kind = 0;
#pragma unroll
        for (uint p = 0; p < CLSCAN_LB_PARTS; p += 2) {
            clscan_lb_word w0, w1;
            clscan_lb_load2_(st + p, &w0, &w1);
            const uint k0 = clscan_lb_kind_(w0, epoch), k1 = clscan_lb_kind_(w1, epoch);
            const uint k = k0 == k1 ? k0 : 0u;
            kind = p == 0 ? k : (k == kind ? kind : 0u);
            CLSCAN_LB_SET_HALF(bits, p, w0 & CLSCAN_LB_HALF_MASK);
            CLSCAN_LB_SET_HALF(bits, p + 1, w1 & CLSCAN_LB_HALF_MASK);
        }
        *value = CLSCAN_LB_FROM_BITS(bits);
        return kind;
    }
#endif
    uint kind = 0;
    /* Unrolled: PoCL 3.1 fails to compile this loop around OpenCL C 3.0 atomic loads
     * ("Could not find a dominating alternative variable"; docs/DEVICES.md). */
#pragma unroll
    for (uint p = 0; p < CLSCAN_LB_PARTS; ++p) {
        const clscan_lb_word w = CLSCAN_LB_LOAD(st + p);
        const uint k = clscan_lb_kind_(w, epoch);
        kind = p == 0 ? k : (k == kind ? kind : 0u);
        CLSCAN_LB_SET_HALF(bits, p, w & CLSCAN_LB_HALF_MASK);
    }
    *value = CLSCAN_LB_FROM_BITS(bits);
    return kind;
}

/* Publishes value with `kind` (the owner: aggregate, then prefix). */
void clscan_lb_publish(__global clscan_lb_word *st, uint epoch, uint kind,
                              CLSCAN_T value)
{
    const clscan_lb_bits bits = CLSCAN_LB_TO_BITS(value);
#ifdef CLSCAN_LB_PAIRED
    if (CLSCAN_LB_PARTS % 2 == 0) {
#pragma unroll
        for (uint p = 0; p < CLSCAN_LB_PARTS; p += 2)
            clscan_lb_store2_(st + p, clscan_lb_word_(bits, p, epoch, kind),
                              clscan_lb_word_(bits, p + 1, epoch, kind));
        return;
    }
#endif
#pragma unroll
    for (uint p = 0; p < CLSCAN_LB_PARTS; ++p)
        CLSCAN_LB_STORE(st + p, clscan_lb_word_(bits, p, epoch, kind));
}

/* Publishes a fallback total into the words that show no word of this call yet, never
 * over the owner's (a failed swap means a writer of this call got there first; its
 * word is at least as good, so two tries suffice). Returns 1 if every word took it. */
int clscan_lb_publish_fallback(__global clscan_lb_word *st, uint epoch,
                                      CLSCAN_T value)
{
    const clscan_lb_bits bits = CLSCAN_LB_TO_BITS(value);
    int all = 1;
    for (uint p = 0; p < CLSCAN_LB_PARTS; ++p) {
        const clscan_lb_word mine = clscan_lb_word_(bits, p, epoch, CLSCAN_LB_FALLBACK);
        clscan_lb_word seen = CLSCAN_LB_LOAD(st + p);
        int took = 0;
        for (uint tries = 0; tries < 2 && !took && clscan_lb_kind_(seen, epoch) == 0; ++tries) {
            const clscan_lb_word found = CLSCAN_LB_CAS(st + p, seen, mine);
            took = found == seen;
            seen = found;
        }
        all &= took;
    }
    return all;
}

/* What a fallback reduces. By default the scan's input, elements of CLSCAN_T; a program
 * whose tile totals come from something else (compaction: counts of kept elements)
 * defines CLSCAN_LB_SOURCE as its own argument type, and clscan_lb_tile_part for it,
 * before this file. */
#ifndef CLSCAN_LB_SOURCE
#define CLSCAN_LB_SOURCE __global const CLSCAN_T *
#if defined(CLSCAN_LB_TILE_LANES) && CLSCAN_LB_ORDERED && CLSCAN_WG_SIZE == 1 && \
    CLSCAN_OP_ID != CLSCAN_OP_CUSTOM
/* Where the program asks for it (CLSCAN_LB_TILE_LANES, defined by the host for the
 * library's single-pass scan of cl/clscan_scan.cl), one work-item a group (CPUs), and a
 * built-in operator on a floating-point type: a tile's total as eight lanes, element i
 * into lane i % 8 (each lane in index order), the lanes then combined from lane 0 up, and
 * the last count % 8 elements after them in order. The tile's owner and a fallback both
 * take this function, so their totals are the same bits; the lanes are independent, so a
 * compiler can keep them in one vector register without reordering anything (a single
 * left-to-right chain cannot be, and Intel's CPU compiler reordered one to vectorise it:
 * docs/IMPLEMENTATION-ISSUES.md). Other kernels keep the order below, which
 * clscan_wg_scan's totals have. */
#define CLSCAN_LB_LANES 1
CLSCAN_T clscan_lb_fold_lanes(__global const CLSCAN_T *p, uint count)
{
    /* (Eight scalar accumulators fed from one vector load: accumulating in a vector
     * variable crashes Oclgrind 21.10's --uninitialized check, docs/IMPLEMENTATION-
     * ISSUES.md; either way each lane is its own chain.) */
    CLSCAN_T l0 = CLSCAN_IDENTITY, l1 = CLSCAN_IDENTITY, l2 = CLSCAN_IDENTITY,
             l3 = CLSCAN_IDENTITY, l4 = CLSCAN_IDENTITY, l5 = CLSCAN_IDENTITY,
             l6 = CLSCAN_IDENTITY, l7 = CLSCAN_IDENTITY;
    uint i = 0;
    CLSCAN_IN_ORDER
    for (; i + 8 <= count; i += 8) {
        const CLSCAN_CAT(CLSCAN_T, 8) x = CLSCAN_VLOAD8(CLSCAN_T, p + i);
        l0 = CLSCAN_OP(l0, x.s0);
        l1 = CLSCAN_OP(l1, x.s1);
        l2 = CLSCAN_OP(l2, x.s2);
        l3 = CLSCAN_OP(l3, x.s3);
        l4 = CLSCAN_OP(l4, x.s4);
        l5 = CLSCAN_OP(l5, x.s5);
        l6 = CLSCAN_OP(l6, x.s6);
        l7 = CLSCAN_OP(l7, x.s7);
    }
    CLSCAN_T t = CLSCAN_OP(l0, l1);
    t = CLSCAN_OP(t, l2);
    t = CLSCAN_OP(t, l3);
    t = CLSCAN_OP(t, l4);
    t = CLSCAN_OP(t, l5);
    t = CLSCAN_OP(t, l6);
    t = CLSCAN_OP(t, l7);
    CLSCAN_IN_ORDER
    for (; i < count; ++i) t = CLSCAN_OP(t, p[i]);
    return t;
}
#endif

/* This work-item's share of the total of the full tile that starts at element base:
 * its CLSCAN_ITEMS consecutive elements, combined left to right from the first, as
 * clscan_wg_scan combines them in local memory (and as the one-work-item scan kernel
 * does), so that the look-back's fallback, which then takes the total of these shares
 * with clscan_wg_scan_value as clscan_wg_scan does, gets the owner's total bit for bit.
 * (A fallback is rare; these reads are not coalesced.) Where the library's scan sums
 * its tiles in lanes (CLSCAN_LB_LANES, above), that sum instead. */
CLSCAN_T clscan_lb_tile_part(__global const CLSCAN_T *src, ulong base)
{
#ifdef CLSCAN_LB_LANES
    return clscan_lb_fold_lanes(src + base, CLSCAN_TILE);
#else
    const ulong first = base + (ulong)get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_T x = src[first];
    CLSCAN_IN_ORDER
    for (uint i = 1; i < CLSCAN_ITEMS; ++i) {
        const CLSCAN_T e = src[first + i];
        x = CLSCAN_OP(x, e);
    }
    return x;
#endif
}
#endif

/* The fallback, called by the whole work-group (uniformly: it has barriers) once tile
 * `tile` has shown nothing usable for more than spin_limit reads. The group reduces the
 * tile's input itself (src, through clscan_lb_tile_part, then clscan_wg_scan_value: in
 * the order its owner combines it, so the total has the owner's bits; src is never
 * written during the scan) and work-item 0 counts the reduction in stats[0]. Work-item 0
 * gets back in *value, with its kind as the result: with check_prefix, if the owner has
 * published its inclusive prefix meanwhile, that prefix (CLSCAN_LB_PREFIX); else the
 * total (CLSCAN_LB_FALLBACK), which it has published for later waiters with
 * clscan_lb_publish_fallback (stats[1] counts the publications every word took). Every
 * other work-item gets the total and CLSCAN_LB_FALLBACK. Uses scratch; a fallback is
 * rare, and none of this is on the look-back's path when no wait gives up. */
uint clscan_lb_fallback_(__global clscan_lb_word *status, long tile, uint epoch,
                         int check_prefix, CLSCAN_LB_SOURCE src, __local CLSCAN_T *scratch,
                         __global uint *stats, CLSCAN_T *value)
{
    const CLSCAN_T x = clscan_lb_tile_part(src, (ulong)tile * CLSCAN_TILE);
    CLSCAN_T total;
    (void)clscan_wg_scan_value(x, 0, scratch, &total);
    *value = total;
    uint kind = CLSCAN_LB_FALLBACK;
    if (get_local_id(0) == 0) {
        __global clscan_lb_word *st = status + (ulong)tile * CLSCAN_LB_PARTS;
        CLSCAN_T published;
        if (check_prefix && clscan_lb_read(st, epoch, &published) == CLSCAN_LB_PREFIX) {
            kind = CLSCAN_LB_PREFIX;
            *value = published;
        }
        atomic_inc(stats);
        if (kind == CLSCAN_LB_FALLBACK && clscan_lb_publish_fallback(st, epoch, total))
            atomic_inc(stats + 1);
    }
    return kind;
}

/* CLSCAN_LB_BY_SUBGROUP: the walk down the predecessors is done by sub-group 0 alone,
 * one predecessor a lane, with no work-group barrier until it ends (or gives up on a
 * tile), where native sub-groups have shuffles (cl/clscan_subgroup.cl). The work-group
 * versions spend two barriers of the whole group on every window they read. For the
 * general kernels' own types (a segmented scan's pairs, a user's struct), for every
 * ordered look-back (floats, custom operators) and for compaction (a program with
 * cl/clscan_select_tile.cl): on the H100 the unordered walk made int32 scans by key 14-17%
 * faster and reduce by key 13-17%, but the plain integer scans 3-7% slower at 2^24-2^28
 * (more registers: 40 -> 60 for int64 scans), and on the H200 int64 scans 6-9% slower
 * still; on the H200 the ordered walk in blocks made a float max under a custom operator
 * 30% faster and the plain float and double scans 2-26%, and the unordered walk made
 * select_if, select_flagged and run-length encoding 4-10% faster at 2^24-2^28 (unique 2-3%
 * slower at 2^28, partition unchanged) (docs/PERFORMANCE.md, twenty-third to twenty-fifth
 * sessions). */
/* CLSCAN_LB_WALK (the host's: 2 for the plain integer scans on NVIDIA's warps, under a
 * register cap, src/kernels/config.c; or the profile's CLSCAN_LOOKBACK_WALK): 0 the
 * choice above, 1 the work-group walk, 2 the sub-group walk wherever the sub-groups
 * allow it. */
#ifndef CLSCAN_LB_WALK
#define CLSCAN_LB_WALK 0
#endif
#ifndef CLSCAN_LB_BY_SUBGROUP
#if CLSCAN_SG_IMPL != CLSCAN_SG_IMPL_LOCAL && !CLSCAN_SG_SHUFFLE_IN_LOCAL && \
    CLSCAN_SG_SIZE >= 8 && CLSCAN_SG_SIZE <= CLSCAN_WG_SIZE && \
    (!CLSCAN_LB_ORDERED || CLSCAN_SG_SIZE <= CLSCAN_LB_WINDOW) && \
    (CLSCAN_LB_WALK == 2 ||                                                             \
     (CLSCAN_LB_WALK == 0 && (CLSCAN_TYPE_ID == CLSCAN_TYPE_CUSTOM || CLSCAN_LB_ORDERED || \
                              defined(CLSCAN_SELECT_TILE_CL))))
#define CLSCAN_LB_BY_SUBGROUP 1
#else
#define CLSCAN_LB_BY_SUBGROUP 0
#endif
#endif
/* The ordered look-back where sub-group 0 walks goes in blocks of a sub-group's tiles
 * (clscan_lb_blocked_prefix). */
#define CLSCAN_LB_BLOCKED (CLSCAN_LB_ORDERED && CLSCAN_LB_BY_SUBGROUP)

/* (CLSCAN_LB_ORDERED, whether totals are combined in a fixed order: cl/clscan_common.cl.) */

/* Predecessors whose totals the look-back keeps in local memory while it walks down, by
 * distance, so that it can combine them forward without reading them again (tiles, or
 * blocks in clscan_lb_blocked_prefix). Past them the walk up reads again, which at the
 * default only large calls reach; the test modes keep two, so that their runs take it. */
#ifndef CLSCAN_LB_NEAR
#if CLSCAN_LB_TEST
#define CLSCAN_LB_NEAR 2
#else
#define CLSCAN_LB_NEAR (8 * CLSCAN_LB_WINDOW)
#endif
#endif

/* What the look-back shares through local memory. */
typedef struct clscan_lb_local {
    CLSCAN_T value[CLSCAN_LB_WINDOW];
    uint kind[CLSCAN_LB_WINDOW];
#if CLSCAN_LB_ORDERED
    CLSCAN_T near[CLSCAN_LB_NEAR]; /* [d]: the total of tile t - 1 - d */
#endif
    CLSCAN_T acc;  /* work-item 0's combination, handed to all at the end */
#if CLSCAN_LB_BLOCKED
    CLSCAN_T block_prefix; /* P(b + 1), what a block's last tile publishes */
#endif
    long cursor;   /* the tile the next window starts at */
    uint up;       /* ordered: 0 walking down to an anchor, 1 combining from it up */
    uint step;     /* what the group does next */
} clscan_lb_local;

#define CLSCAN_LB_STEP_READ 0u
#define CLSCAN_LB_STEP_FALLBACK 1u
#define CLSCAN_LB_STEP_DONE 2u

/* lb->step as sub-group 0 or work-item 0 left it, read by the whole group, which then
 * lets them write it again. */
uint clscan_lb_shared_step_(__local const clscan_lb_local *lb)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint step = lb->step;
    barrier(CLK_LOCAL_MEM_FENCE);
    return step;
}

/* lb->acc, written before a barrier, read by the whole group; ends with a barrier. */
CLSCAN_T clscan_lb_shared_acc_(__local const clscan_lb_local *lb)
{
    const CLSCAN_T result = lb->acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    return result;
}

/* The parameters of clscan_lb_exclusive_prefix, whichever version below is built. */
#define CLSCAN_LB_PREFIX_PARAMS                                                            \
    __global clscan_lb_word *status, ulong t, uint epoch, uint spin_limit, int has_start, \
        CLSCAN_T start, CLSCAN_LB_SOURCE src, __local clscan_lb_local *lb,               \
        __local CLSCAN_T *scratch, __global uint *stats

#if CLSCAN_LB_ORDERED
/* Combines v after *acc (or starts with v when *have is 0). */
void clscan_lb_fold_(CLSCAN_T *acc, int *have, CLSCAN_T v)
{
    *acc = *have ? CLSCAN_OP(*acc, v) : v;
    *have = 1;
}

/* The walker, once the fold has reached tile `from`: the kept totals of tiles from, ...,
 * t - 1, in order (tiles, or blocks in clscan_lb_blocked_prefix). */
void clscan_lb_fold_near_(__local const clscan_lb_local *lb, ulong t, long from,
                          CLSCAN_T *acc, int *have)
{
#if defined(CLSCAN_SG_IMPL_NVIDIA) && CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_NVIDIA
    /* (NVIDIA, known by its sub-group layer: the pragma; the loop by hand below was 2-3%
     * slower there for float sums at 2^24 and 2^28, docs/PERFORMANCE.md.) */
#pragma unroll 8
    for (long d = (long)t - 1 - from; d >= 0; --d) clscan_lb_fold_(acc, have, lb->near[d]);
#else
    /* Eight at a time, then the rest, in the same order. (By hand: with `#pragma unroll 8`
     * Clang warned "loop not unrolled" where it could not, for float min and max on PoCL;
     * the library's builds have no warnings, test build-log.) */
    long d = (long)t - 1 - from;
    for (; d >= 7; d -= 8)
        for (int k = 0; k < 8; ++k) clscan_lb_fold_(acc, have, lb->near[d - k]);
    for (; d >= 0; --d) clscan_lb_fold_(acc, have, lb->near[d]);
#endif
}

/* The ordered walk up: folds the window's tiles lb->kind/value[used, limit), tile *cursor
 * first, into *acc in order, up to the first that shows nothing or far_end (a tile that
 * shows its prefix gives exactly the fold so far, and is taken as is); *cursor moves past
 * them. Returns `used` plus how many it took. */
uint clscan_lb_fold_up_(__local const clscan_lb_local *lb, uint used, uint limit, long far_end,
                        long *cursor, CLSCAN_T *acc, int *have)
{
    for (; used < limit && *cursor < far_end; ++used, ++*cursor) {
        const uint k = lb->kind[used];
        if (k == 0) break;
        if (k == CLSCAN_LB_PREFIX) {
            *acc = lb->value[used];
            *have = 1;
        } else {
            clscan_lb_fold_(acc, have, lb->value[used]);
        }
    }
    return used;
}

/* The ordered walk past tile *cursor, whose total the group has just computed (a
 * fallback): going up, the total is folded in and the walk goes on above it (at far_end
 * it ends with the kept totals); going down, it is kept and the walk goes on below it.
 * Returns the next step. */
uint clscan_lb_ordered_skip_(__local clscan_lb_local *lb, ulong t, long far_end, int up,
                             CLSCAN_T total, long *cursor, CLSCAN_T *acc, int *have)
{
    if (up) {
        clscan_lb_fold_(acc, have, total);
        if (++*cursor >= far_end) {
            clscan_lb_fold_near_(lb, t, far_end, acc, have);
            return CLSCAN_LB_STEP_DONE;
        }
    } else {
        const long d = (long)t - 1 - *cursor;
        if (d < CLSCAN_LB_NEAR) lb->near[d] = total;
        *cursor -= 1; /* (below tile 0, the next window finds the start) */
    }
    return CLSCAN_LB_STEP_READ;
}

/* CLSCAN_LB_ORDERED 1 (floats): the combination of every element before tile t,
 * returned to every work-item, starting from `start` when has_start is set (the
 * carry-in of the call: the value before tile 0; for t == 0 that start, or the identity).
 * It is always the same value, bit for bit, whatever the timing:
 * the tiles' totals combined strictly left to right, ((T0 op T1) op T2) op ... T(t-1),
 * which is also what every inclusive prefix a tile publishes holds. (Combining the
 * totals from the nearest tile down, as they are found, would give floats a rounding
 * that depends on where a prefix was found.) Two phases:
 *   down: windows of CLSCAN_LB_WINDOW predecessors below `cursor` are read at once, and
 *     work-item 0 walks from the nearest tile over those that show their total (kept
 *     in lb->near while within CLSCAN_LB_NEAR tiles of t) to the anchor: the first that
 *     shows its inclusive prefix, or the start of the input. From the anchor it
 *     combines the totals above it forward, in order;
 *   up: only if the anchor lies farther than CLSCAN_LB_NEAR tiles below t: the tiles
 *     between it and the kept ones are read again, a window at a time from the lowest,
 *     and combined in order (a tile that shows its inclusive prefix by now gives
 *     exactly the combination so far), then the kept ones.
 * After more than spin_limit reads that made no progress, the group reduces the
 * waited-for tile's input itself (src, through clscan_lb_tile_part, in the order its
 * owner combines it, so the total has the owner's bits) and goes on. stats[0] counts
 * those reductions, stats[1] the ones whose result this group published. Called by the
 * whole work-group; ends with a barrier. */
#if CLSCAN_LB_BLOCKED
/* CLSCAN_LB_BLOCKED (the ordered look-back where sub-group 0 walks: CLSCAN_LB_BY_SUBGROUP):
 * a fixed combination that does not chain each tile on the one before. Tiles fall in
 * blocks of CLSCAN_LB_BLOCK, the sub-group's width; Q(c, i) is the sub-group scan
 * (clscan_sg_scan_inclusive) of the totals of block c's tiles 0 to i, tile cB + j in lane
 * j, so its bracketing is fixed by the lanes; S(c) = Q(c, B - 1) is the block's total, and
 * P(c) the combination before block c: P(0) the start (or nothing), P(c + 1) = P(c) op
 * S(c). Tile t = bB + k starts from P(b) op Q(b, k - 1) (P(b) alone for k = 0); only a
 * block's last tile publishes an inclusive prefix, P(b + 1), the others their totals
 * alone. The same value, bit for bit, whatever the timing, with one operation a block in
 * the chain from tile to tile where the fold of clscan_lb_exclusive_prefix below has one
 * a tile (a float max under a custom operator took 1.4x the time of folding as found on
 * the H200, docs/PERFORMANCE.md, twenty-third session).
 * Sub-group 0 walks alone: it reads its own block's tiles below t (lane k holds t's
 * total, `total`), then whole blocks down, the next one's statuses read with the
 * current one's, until a block whose last tile shows its prefix, or block 0; each block
 * on the way must show every total (kept in lb->near by distance, S(c)). It then folds
 * P forward block by block (reading again, a block a step, those farther than
 * CLSCAN_LB_NEAR blocks down). Where a tile has shown nothing for more than spin_limit
 * reads, the group reduces its input (clscan_lb_fallback_) and the walk goes on. Returns
 * t's starting value to every work-item and leaves P(b + 1) in lb->block_prefix; ends
 * with a barrier. */
#define CLSCAN_LB_BLOCK CLSCAN_SG_SIZE
CLSCAN_T clscan_lb_blocked_prefix(__global clscan_lb_word *status, ulong t, uint epoch,
                                  uint spin_limit, int has_start, CLSCAN_T start,
                                  CLSCAN_T total, CLSCAN_LB_SOURCE src,
                                  __local clscan_lb_local *lb, __local CLSCAN_T *scratch,
                                  __global uint *stats)
{
    const int walker = clscan_sg_id() == 0, lane = (int)clscan_sg_lane();
    const long b = (long)(t / CLSCAN_LB_BLOCK);
    const int k = (int)(t % CLSCAN_LB_BLOCK);
    const long far_end = b - CLSCAN_LB_NEAR; /* blocks below it are not kept in lb->near */
    /* Sub-group 0's state, the same in each lane: acc the fold from P(anchor) up to
     * block c (have: it holds anything), before = Q(b, k - 1), through = Q(b, k). */
    CLSCAN_T acc = CLSCAN_IDENTITY, before = CLSCAN_IDENTITY, through = CLSCAN_IDENTITY;
    int have = 0, up = 0;
    long c = b; /* the block read: c == b t's own, lanes 0 to k */
    uint spins = 0;
    /* Each lane's status of its tile in block c, and going down, in block c - 1. */
    CLSCAN_T cv = CLSCAN_IDENTITY, nv = CLSCAN_IDENTITY;
    uint ck = 0, nk = 0;
    for (;;) {
        if (walker) {
            uint step = CLSCAN_LB_STEP_READ;
            for (;;) {
                const int count = c == b ? k + 1 : CLSCAN_LB_BLOCK;
                if (c == b && lane == k) {
                    cv = total;
                    ck = CLSCAN_LB_AGGREGATE;
                } else if (lane < count && ck == 0u) {
                    ck = clscan_lb_read(status + (ulong)(c * CLSCAN_LB_BLOCK + lane) * CLSCAN_LB_PARTS,
                                        epoch, &cv);
                }
                if (!up && c > 0 && nk == 0u)
                    nk = clscan_lb_read(
                        status + (ulong)((c - 1) * CLSCAN_LB_BLOCK + lane) * CLSCAN_LB_PARTS,
                        epoch, &nv);
                const int missing = clscan_sg_highest(lane < count && ck == 0u);
                const int anchored =
                    c != b &&
                    clscan_sg_highest(lane == CLSCAN_LB_BLOCK - 1 && ck == CLSCAN_LB_PREFIX) >= 0;
                if (!anchored && missing >= 0) {
                    if (++spins > spin_limit) {
                        if (lane == 0) lb->cursor = c * CLSCAN_LB_BLOCK + missing;
                        step = CLSCAN_LB_STEP_FALLBACK;
                        break;
                    }
                    continue;
                }
                spins = 0;
                /* s: P(c + 1) where block c's last tile shows it, else Q(c, count - 1). */
                CLSCAN_T s;
                if (anchored) {
                    if (lane == CLSCAN_LB_BLOCK - 1) lb->value[0] = cv;
                    clscan_sg_sync_local();
                    s = lb->value[0];
                } else {
                    lb->value[lane] = clscan_sg_scan_inclusive(lane < count ? cv : CLSCAN_IDENTITY,
                                                               scratch);
                    clscan_sg_sync_local();
                    s = lb->value[count - 1];
                    if (c == b && k > 0) before = lb->value[k - 1];
                }
                clscan_sg_sync_local(); /* lb->value read before it is written again */
                ck = 0;
                cv = CLSCAN_IDENTITY;
                if (c == b) {
                    through = s;
                } else if (anchored) {
                    acc = s; /* (going up: the same bits as folding on) */
                    have = 1;
                    up = 1;
                } else if (up) {
                    clscan_lb_fold_(&acc, &have, s);
                } else if (c >= far_end) {
                    lb->near[b - 1 - c] = s;
                }
                if (up) {
                    ++c;
                } else if (c > 0) { /* on down, what was read of block c - 1 with it */
                    --c;
                    cv = nv;
                    ck = nk;
                    nv = CLSCAN_IDENTITY;
                    nk = 0;
                    continue;
                } else { /* below block 0: the start */
                    if (has_start) clscan_lb_fold_(&acc, &have, start);
                    up = 1;
                    c = 0;
                }
                if (c >= far_end) { /* the kept blocks from c up to b */
                    clscan_lb_fold_near_(lb, (ulong)b, c, &acc, &have);
                    step = CLSCAN_LB_STEP_DONE;
                    break;
                }
            }
            if (lane == 0) {
                const CLSCAN_T e = k == 0 ? acc : have ? CLSCAN_OP(acc, before) : before;
                lb->acc = have || k > 0 ? e : CLSCAN_IDENTITY;
                lb->block_prefix = have ? CLSCAN_OP(acc, through) : through;
                lb->step = step;
            }
        }
        if (clscan_lb_shared_step_(lb) == CLSCAN_LB_STEP_DONE) break;
        /* Tile lb->cursor has shown nothing for too long: the group reduces its input. */
        CLSCAN_T got;
        (void)clscan_lb_fallback_(status, lb->cursor, epoch, 0, src, scratch, stats, &got);
        if (walker && lane == (int)(lb->cursor % CLSCAN_LB_BLOCK)) {
            cv = got;
            ck = CLSCAN_LB_FALLBACK;
        }
        spins = 0;
        barrier(CLK_LOCAL_MEM_FENCE); /* lb->cursor read before it is written again */
    }
    return clscan_lb_shared_acc_(lb);
}
#else
CLSCAN_T clscan_lb_exclusive_prefix(CLSCAN_LB_PREFIX_PARAMS)
{
    const uint lid = get_local_id(0);
    /* Tiles below far_end are not kept in lb->near. */
    const long far_end = (long)t - CLSCAN_LB_NEAR;
    /* Work-item 0's state: acc holds the combination from the anchor up to cursor
     * (have: it holds anything yet). */
    CLSCAN_T acc = CLSCAN_IDENTITY;
    int have = 0;
    uint up = 0;
    long cursor = (long)t - 1;
    uint spins = 0;
    if (lid == 0) {
        lb->cursor = cursor;
        lb->up = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (;;) {
        if (lid < CLSCAN_LB_WINDOW) {
            const int going_up = lb->up;
            const long j = going_up ? lb->cursor + (long)lid : lb->cursor - (long)lid;
            CLSCAN_T v = CLSCAN_IDENTITY;
            uint k = 0;
            if (j >= 0 && j < (going_up ? far_end : (long)t))
                k = clscan_lb_read(status + (ulong)j * CLSCAN_LB_PARTS, epoch, &v);
            lb->kind[lid] = k;
            lb->value[lid] = v;
            const long d = (long)t - 1 - j;
            if (!going_up && d < CLSCAN_LB_NEAR) lb->near[d] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            uint step = CLSCAN_LB_STEP_READ, used = 0;
            int progress = 0, done = 0;
            if (!up) {
                for (; used < CLSCAN_LB_WINDOW; ++used) {
                    const long j = cursor - (long)used;
                    const uint k = j < 0 ? CLSCAN_LB_PREFIX : lb->kind[used];
                    if (k == 0) break;
                    if (k == CLSCAN_LB_PREFIX) { /* the anchor: combine forward from it */
                        if (j >= 0) clscan_lb_fold_(&acc, &have, lb->value[used]);
                        else if (has_start) clscan_lb_fold_(&acc, &have, start);
                        if (j + 1 >= far_end) {
                            clscan_lb_fold_near_(lb, t, j + 1, &acc, &have);
                            done = 1;
                        }
                        up = 1;
                        cursor = j + 1;
                        break;
                    }
                }
                progress = up || used;
                if (!up) cursor -= (long)used;
            } else {
                used = clscan_lb_fold_up_(lb, used, CLSCAN_LB_WINDOW, far_end, &cursor, &acc, &have);
                progress = used != 0;
                if (cursor >= far_end) {
                    clscan_lb_fold_near_(lb, t, far_end, &acc, &have);
                    done = 1;
                }
            }
            spins = progress ? 0u : spins + 1u;
            if (done) step = CLSCAN_LB_STEP_DONE;
            else if (spins > spin_limit) step = CLSCAN_LB_STEP_FALLBACK;
            lb->cursor = cursor;
            lb->up = up;
            lb->step = step;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint step = lb->step;
        if (step == CLSCAN_LB_STEP_DONE) break;
        if (step == CLSCAN_LB_STEP_FALLBACK) {
            /* Tile `cursor` has shown nothing usable for too long: reduce its input. */
            CLSCAN_T total;
            (void)clscan_lb_fallback_(status, lb->cursor, epoch, 0, src, scratch, stats,
                                      &total);
            if (lid == 0) {
                const uint next =
                    clscan_lb_ordered_skip_(lb, t, far_end, (int)up, total, &cursor, &acc, &have);
                spins = 0;
                lb->cursor = cursor;
                lb->step = next;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lb->step == CLSCAN_LB_STEP_DONE) break;
        }
    }
    if (lid == 0) lb->acc = have ? acc : CLSCAN_IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    return clscan_lb_shared_acc_(lb);
}

#endif /* CLSCAN_LB_BLOCKED */

#else /* !CLSCAN_LB_ORDERED */


/* CLSCAN_LB_ORDERED 0 (integers): the combination of every element before tile t,
 * returned to every work-item, starting from `start` when has_start is set (for t == 0
 * that start or the identity, after one round): the window
 * of CLSCAN_LB_WINDOW predecessors below `cursor` is read at once, work-item 0 folds
 * it from the nearest tile down to the first not ready or to an inclusive prefix
 * (which ends the look-back). The order of combination then depends on timing, which
 * integer operators (associative and commutative) never show. After more than spin_limit reads that
 * made no progress, the group reduces the waited-for tile's input (src, through
 * clscan_lb_tile_part) itself and goes on below it. stats[0] counts those reductions, stats[1]
 * the ones whose result this group published. Called by the whole work-group; ends
 * with a barrier. */
#if CLSCAN_LB_BY_SUBGROUP
/* Sub-group 0 reads the CLSCAN_SG_SIZE tiles at and below `cursor`, the nearest in its
 * last lane; the tiles it may combine are those above the highest lane that shows
 * nothing yet, down to the highest one that shows an inclusive prefix (which ends the
 * walk). Their values, the identity elsewhere, are scanned across the lanes in tile
 * order, and the last lane, which keeps the combination so far, puts the result before
 * it. The same contract as the version below; the group's fallback is that version's. */
CLSCAN_T clscan_lb_exclusive_prefix(CLSCAN_LB_PREFIX_PARAMS)
{
    const uint lid = get_local_id(0);
    const int walker = clscan_sg_id() == 0, lane = (int)clscan_sg_lane();
    const int last = CLSCAN_SG_SIZE - 1;
    CLSCAN_T acc = CLSCAN_IDENTITY; /* the last lane's: tiles (cursor, t) combined */
    long cursor = (long)t - 1;      /* the same in every lane of sub-group 0 */
    uint spins = 0;
    for (;;) {
        if (walker) {
            uint step = CLSCAN_LB_STEP_READ;
            for (;;) {
                const long j = cursor - (long)(last - lane);
                CLSCAN_T v = CLSCAN_IDENTITY;
                uint k = CLSCAN_LB_PREFIX; /* before tile 0: the start (or identity), final */
                if (j >= 0) k = clscan_lb_read(status + (ulong)j * CLSCAN_LB_PARTS, epoch, &v);
                else if (has_start) v = start;
                const int waiting = clscan_sg_highest(k == 0u);
                const int anchor = clscan_sg_highest(k == CLSCAN_LB_PREFIX);
                const int done = anchor > waiting;
                const int low = done ? anchor : waiting + 1; /* the lowest lane combined */
                const CLSCAN_T x = lane >= low ? v : CLSCAN_IDENTITY;
                const CLSCAN_T window = clscan_sg_scan_inclusive(x, scratch);
                if (lane == last) acc = CLSCAN_OP(window, acc);
                cursor -= (long)(CLSCAN_SG_SIZE - low);
                spins = low < CLSCAN_SG_SIZE ? 0u : spins + 1u;
                if (done) {
                    step = CLSCAN_LB_STEP_DONE;
                    break;
                }
                if (spins > spin_limit) {
                    step = CLSCAN_LB_STEP_FALLBACK;
                    break;
                }
            }
            if (lane == last) {
                lb->acc = acc;
                lb->cursor = cursor;
                lb->step = step;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lb->step == CLSCAN_LB_STEP_DONE) break;
        /* Tile `cursor` has published nothing usable for too long: the group reduces its
         * input (as in the version below; an inclusive prefix published meanwhile ends
         * the look-back). */
        CLSCAN_T v;
        const uint k = clscan_lb_fallback_(status, lb->cursor, epoch, 1, src, scratch, stats, &v);
        if (lid == 0) { /* (work-item 0's: the prefix itself where one was published) */
            lb->kind[0] = k;
            lb->value[0] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (walker) {
            int done = lb->kind[0] == CLSCAN_LB_PREFIX;
            const CLSCAN_T found = lb->value[0];
            if (lane == last) acc = CLSCAN_OP(found, acc);
            cursor -= 1;
            spins = 0;
            if (!done && cursor < 0) {
                if (has_start && lane == last) acc = CLSCAN_OP(start, acc);
                done = 1;
            }
            if (lane == last) {
                lb->acc = acc;
                lb->step = done ? CLSCAN_LB_STEP_DONE : CLSCAN_LB_STEP_READ;
            }
        }
        if (clscan_lb_shared_step_(lb) == CLSCAN_LB_STEP_DONE) break;
    }
    return clscan_lb_shared_acc_(lb);
}
#else
CLSCAN_T clscan_lb_exclusive_prefix(CLSCAN_LB_PREFIX_PARAMS)
{
    const uint lid = get_local_id(0);
    CLSCAN_T acc = CLSCAN_IDENTITY; /* work-item 0's: tiles (cursor, t) combined */
    long cursor = (long)t - 1;
    uint spins = 0;
    if (lid == 0) lb->cursor = cursor;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (;;) {
        if (lid < CLSCAN_LB_WINDOW) {
            const long j = lb->cursor - (long)lid;
            CLSCAN_T v = CLSCAN_IDENTITY;
            uint k = CLSCAN_LB_PREFIX; /* before tile 0: the start (or identity), final */
            if (j >= 0) k = clscan_lb_read(status + (ulong)j * CLSCAN_LB_PARTS, epoch, &v);
            else if (has_start) v = start;
            lb->kind[lid] = k;
            lb->value[lid] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            uint step = CLSCAN_LB_STEP_READ, used = 0;
            for (; used < CLSCAN_LB_WINDOW; ++used) {
                const uint k = lb->kind[used];
                if (k == 0) break;
                const CLSCAN_T v = lb->value[used];
                acc = CLSCAN_OP(v, acc);
                if (k == CLSCAN_LB_PREFIX) {
                    step = CLSCAN_LB_STEP_DONE;
                    break;
                }
            }
            cursor -= (long)used;
            spins = used ? 0u : spins + 1u;
            if (step != CLSCAN_LB_STEP_DONE && spins > spin_limit) step = CLSCAN_LB_STEP_FALLBACK;
            lb->cursor = cursor;
            lb->step = step;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint step = lb->step;
        if (step == CLSCAN_LB_STEP_DONE) break;
        if (step == CLSCAN_LB_STEP_FALLBACK) {
            /* Tile `cursor` has published nothing usable for too long: reduce its input.
             * The owner may have published meanwhile: an inclusive prefix ends the
             * look-back at once (src is never written during the scan: the total just
             * computed is right either way). */
            CLSCAN_T v;
            const uint k =
                clscan_lb_fallback_(status, lb->cursor, epoch, 1, src, scratch, stats, &v);
            if (lid == 0) {
                acc = CLSCAN_OP(v, acc);
                if (k == CLSCAN_LB_PREFIX) {
                    lb->step = CLSCAN_LB_STEP_DONE;
                } else {
                    cursor -= 1;
                    lb->cursor = cursor;
                    lb->step = CLSCAN_LB_STEP_READ;
                    if (cursor < 0) {
                        if (has_start) acc = CLSCAN_OP(start, acc);
                        lb->step = CLSCAN_LB_STEP_DONE;
                    }
                }
                spins = 0;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lb->step == CLSCAN_LB_STEP_DONE) break;
        }
    }
    if (lid == 0) lb->acc = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    return clscan_lb_shared_acc_(lb);
}
#endif /* CLSCAN_LB_BY_SUBGROUP */
#endif /* CLSCAN_LB_ORDERED */

/* Tile t's side of the protocol, given its total: publishes the total (tile 0: as its
 * inclusive prefix, after `start` when has_start is set: the call's carry-in), looks back
 * for the combination of the start and all earlier tiles, publishes that combined with
 * the total, and returns the combination (for tile 0 the start or the identity: its
 * look-back ends at once) to every work-item. Called by the whole work-group;
 * its last use of local memory is behind a barrier. stats: see
 * clscan_lb_exclusive_prefix; stats[2] is the delay
 * test's busy-wait target. (The look-back runs for tile 0 too: PoCL 3.1's compiler
 * fails on a call of it under a branch in this function, docs/IMPLEMENTATION-ISSUES.md.)
 * CLSCAN_LB_BLOCKED: every tile publishes its total, only a block's last tile a prefix
 * (see clscan_lb_blocked_prefix). */
CLSCAN_T clscan_lb_tile_prefix(__global clscan_lb_word *status, ulong t, uint epoch,
                               uint spin_limit, CLSCAN_T total, int has_start,
                               CLSCAN_T start, CLSCAN_LB_SOURCE src,
                               __local clscan_lb_local *lb, __local CLSCAN_T *scratch,
                               __global uint *stats)
{
    const uint lid = get_local_id(0);
    __global clscan_lb_word *mine = status + t * CLSCAN_LB_PARTS;
    /* Work-item 0 publishes, except in the silent test's every fourth tile, which
     * publishes nothing (see CLSCAN_LB_TEST). (A macro, not a constant 0 in the
     * condition: Clang warns of `&&` with a constant operand, and the library's builds
     * have no warnings, test build-log; and not a variable kept across the look-back,
     * which made float sums 2% slower on the H100.) */
#if CLSCAN_LB_TEST == 2
#define CLSCAN_LB_SPEAKS_(lid, t) ((lid) == 0 && (t) % 4 != 1)
#else
#define CLSCAN_LB_SPEAKS_(lid, t) ((lid) == 0)
#endif
    /* Which tiles publish their prefixes after the look-back: every tile but tile 0
     * (which did before it), or in the blocked walk a block's last tile. In the test
     * modes only every fourth tile, or every fourth block's last, so that walks go past
     * the kept totals (CLSCAN_LB_NEAR) and back up. */
#if CLSCAN_LB_BLOCKED && CLSCAN_LB_TEST
#define CLSCAN_LB_ANCHOR_(t) \
    ((t) % CLSCAN_LB_BLOCK == CLSCAN_LB_BLOCK - 1 && (t) / CLSCAN_LB_BLOCK % 4 == 3)
#elif CLSCAN_LB_BLOCKED
#define CLSCAN_LB_ANCHOR_(t) ((t) % CLSCAN_LB_BLOCK == CLSCAN_LB_BLOCK - 1)
#elif CLSCAN_LB_TEST
#define CLSCAN_LB_ANCHOR_(t) ((t) % 4 == 3)
#else
#define CLSCAN_LB_ANCHOR_(t) ((t) != 0)
#endif
    if (CLSCAN_LB_SPEAKS_(lid, t)) {
#if CLSCAN_LB_TEST == 1
        if (t % 3 == 1) /* delay the aggregate; later tiles must not wait for it */
            for (uint i = 0; i < CLSCAN_LB_TEST_DELAY; ++i)
                if (atomic_add(stats + 2, 0u) == 0xffffffffu) break;
#endif
#if CLSCAN_LB_BLOCKED
        clscan_lb_publish(mine, epoch, CLSCAN_LB_AGGREGATE, total);
#else
        if (t != 0) clscan_lb_publish(mine, epoch, CLSCAN_LB_AGGREGATE, total);
        else clscan_lb_publish(mine, epoch, CLSCAN_LB_PREFIX, has_start ? CLSCAN_OP(start, total) : total);
#endif
    }
#if CLSCAN_LB_BLOCKED
    /* (Only a block's last tile publishes its prefix, P(b + 1).) */
    const CLSCAN_T carry = clscan_lb_blocked_prefix(status, t, epoch, spin_limit, has_start,
                                                    start, total, src, lb, scratch, stats);
    if (CLSCAN_LB_SPEAKS_(lid, t) && CLSCAN_LB_ANCHOR_(t))
        clscan_lb_publish(mine, epoch, CLSCAN_LB_PREFIX, lb->block_prefix);
#else
    const CLSCAN_T carry = clscan_lb_exclusive_prefix(status, t, epoch, spin_limit, has_start,
                                                      start, src, lb, scratch, stats);
    if (CLSCAN_LB_SPEAKS_(lid, t) && CLSCAN_LB_ANCHOR_(t)) {
        const CLSCAN_T prefix = CLSCAN_OP(carry, total);
        clscan_lb_publish(mine, epoch, CLSCAN_LB_PREFIX, prefix);
    }
#endif
    return carry;
}

/* The tile this work-group scans, for a kernel launched with exactly ntiles groups:
 * the next ticket from the counter in state's first 32 bits, so a tile only ever waits
 * on tiles whose groups have started. The last ticket resets the counter to 0 for the
 * next call. Called by the whole work-group (ticket: local scratch). */
ulong clscan_lb_ticket(__global clscan_lb_word *state, ulong ntiles, __local uint *ticket)
{
    if (get_local_id(0) == 0) {
        volatile __global uint *counter = (volatile __global uint *)state;
        const uint got = atomic_inc(counter);
        if (got == (uint)(ntiles - 1)) atomic_xchg(counter, 0u); /* every ticket is out */
        *ticket = got;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* (The modulo only matters if a failed earlier call left the counter off zero:
     * every tile still gets exactly one group and nothing is written out of range.) */
    return (ulong)*ticket % ntiles;
}

#endif /* CLSCAN_LOOKBACK_CL */
