/* clscan_general_tile.cl - what one tile of a general scan reads and writes: the element
 * the scan sees at index i (the user's input transform of src[i]; with segments, the
 * (value, head flag) pair that turns a segmented scan into an ordinary one), the tile's
 * loads and stores in local memory, and what a look-back fallback reduces. The host's
 * prelude (src/general.c) defines the types and functions below before the library's
 * files; every one has a default, so the file also compiles on its own. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_GENERAL_TILE_CL
#define CLSCAN_GENERAL_TILE_CL
#ifndef CLSCAN_WORKGROUP_CL
#include "clscan_workgroup.cl"
#endif

/* Segments: 0 none; 1 a cl_uchar flag per element (nonzero starts a segment); 2 keys (a
 * segment starts wherever the key differs from the one before). */
#define CLSCAN_GEN_SEG_NONE 0
#define CLSCAN_GEN_SEG_FLAGS 1
#define CLSCAN_GEN_SEG_KEYS 2
#ifndef CLSCAN_GEN_SEGMENTS
#define CLSCAN_GEN_SEGMENTS CLSCAN_GEN_SEG_NONE
#endif
/* CLSCAN_GEN_WRAP: the scan's elements wrap the output type (a compensated sum's (s, c)
 * pair): the prelude's clscan_gen_wrap makes one of a value, clscan_gen_unwrap the
 * output of one. */
#ifndef CLSCAN_GEN_WRAP
#define CLSCAN_GEN_WRAP 0
#endif

/* CLSCAN_GEN_IN: the type of src's elements; CLSCAN_GEN_OUT: the type of dst's (the scan
 * type, or a pair's value type); CLSCAN_GEN_SEG: of the segment buffer (cl_uchar flags, or
 * the keys). */
#ifndef CLSCAN_GEN_OUT
#define CLSCAN_GEN_OUT CLSCAN_T
#endif
#ifndef CLSCAN_GEN_IN
#define CLSCAN_GEN_IN CLSCAN_GEN_OUT
#endif
#ifndef CLSCAN_GEN_SEG
#define CLSCAN_GEN_SEG uchar
#endif

/* The element of the scan at index i (counted from the range's start), from x = src[i]:
 * the user's transform where one is given (CLSCAN_GEN_TRANSFORM_GIVEN), which sees the
 * index index_base + i (s: the clscan_gen_source), else x. */
#ifdef CLSCAN_GEN_TRANSFORM_GIVEN
CLSCAN_GEN_OUT clscan_user_transform(const CLSCAN_GEN_IN x, const ulong i);
#define CLSCAN_GEN_TRANSFORM(s, x, i) clscan_user_transform((x), (s).index_base + (i))
#else
#define CLSCAN_GEN_TRANSFORM(s, x, i) (x)
#endif

/* What a tile reads: the range's src and segment buffer, whether the call is exclusive
 * (a segmented exclusive scan reads the element before; see clscan_gen_load), and
 * whether it has a carry-in (then element 0 continues the carry's segment unless its
 * flag is set; see clscan_gen_head). */
typedef struct clscan_gen_source {
    __global const CLSCAN_GEN_IN *src;
    __global const CLSCAN_GEN_SEG *seg;
    int exclusive;
    int carried;
    ulong index_base; /* the index the user's texts see for element 0 (desc->index_base) */
} clscan_gen_source;

/* src[i] and dst[i] = y. Where the prelude scans a user's type of 8 or 16 bytes as an
 * alias aligned to its size (CLSCAN_GEN_ALIGNED_OUT, and CLSCAN_GEN_ALIGNED_IN when src
 * holds that type too), a pointer that is so aligned is read and written through the
 * alias, one access an element instead of one a word; the test is the same for every
 * work-item, so the branch does not diverge. A buffer over host memory
 * (CL_MEM_USE_HOST_PTR) may start anywhere on a CPU device, which takes the other side
 * (PoCL faulted on a 16-byte vector load from such a pointer). The read's two sides
 * load the same bytes, and NVIDIA's compiler merges them into one load of the smaller
 * alignment (Clang 15 does too): reads there go a word at a time, as the H200's SASS
 * shows. Kept apart (a vector on one side, single words on the other), the 2x2 matrix
 * scan took 1.05x the time there, its kernel spilling (docs/PERFORMANCE.md,
 * thirty-fifth session), so the plain form stays. */
#define CLSCAN_GEN_IS_ALIGNED(p, T) (((size_t)(p) & (sizeof(T) - 1)) == 0)
CLSCAN_GEN_IN clscan_gen_read(__global const CLSCAN_GEN_IN *src, ulong i)
{
#ifdef CLSCAN_GEN_ALIGNED_IN
    if (CLSCAN_GEN_IS_ALIGNED(src, CLSCAN_GEN_ALIGNED_IN))
        return ((__global const CLSCAN_GEN_ALIGNED_IN *)src)[i];
#endif
    return src[i];
}

void clscan_gen_write(__global CLSCAN_GEN_OUT *dst, ulong i, const CLSCAN_GEN_OUT y)
{
#ifdef CLSCAN_GEN_ALIGNED_OUT
    if (CLSCAN_GEN_IS_ALIGNED(dst, CLSCAN_GEN_ALIGNED_OUT)) {
        ((__global CLSCAN_GEN_ALIGNED_OUT *)dst)[i] = y;
        return;
    }
#endif
    dst[i] = y;
}

/* The output stage (include/clscan.h: clscan_scan_output): the prelude defines
 * CLSCAN_GEN_OUTPUT_GIVEN, the element types CLSCAN_GEN_O0 to CLSCAN_GEN_O3 of the
 * output buffers, and clscan_user_output, which runs the user's statement for one
 * element. The kernels take the four buffers as bytes (NULL where unused) and an
 * element offset into each, where there is an output stage. */
/* CLSCAN_GEN_OUTPUT_SPARSE (the prelude's, with reduce by key's statements): they do
 * nothing except where an element ends its segment (1), or starts or ends one (3), so
 * the kernels run them for those elements alone (clscan_gen_values_store,
 * clscan_gen_vec_emit). CLSCAN_GEN_SPARSE_HEADS: whether the heads are among them. */
#ifndef CLSCAN_GEN_OUTPUT_SPARSE
#define CLSCAN_GEN_OUTPUT_SPARSE 0
#endif
#define CLSCAN_GEN_SPARSE_HEADS ((CLSCAN_GEN_OUTPUT_SPARSE & 2) != 0)
#ifndef CLSCAN_GEN_O0
#define CLSCAN_GEN_O0 uchar
#define CLSCAN_GEN_O1 uchar
#define CLSCAN_GEN_O2 uchar
#define CLSCAN_GEN_O3 uchar
#endif
typedef struct clscan_gen_outputs {
    __global uchar *o0, *o1, *o2, *o3;
    ulong off0, off1, off2, off3; /* element offsets into them */
    ulong n;       /* the range's length */
    uint flags;    /* the call's carry flags (CLSCAN_CARRY_SKIP_STORE) */
} clscan_gen_outputs;
/* The kernels' last parameters, the four buffers and their offsets, only where there is
 * an output stage (an argument more costs the host's enqueue some 0.2-0.3 us on the
 * H200: docs/PERFORMANCE.md, thirteenth session), and the outputs' value from them and
 * the range's n and carry flags. */
#ifdef CLSCAN_GEN_OUTPUT_GIVEN
#define CLSCAN_GEN_OUTPUT_PARAMS                                                          \
    , __global uchar *out0, __global uchar *out1, __global uchar *out2,                  \
        __global uchar *out3, ulong off0, ulong off1, ulong off2, ulong off3
#define CLSCAN_GEN_OUTPUTS(n, flags) {out0, out1, out2, out3, off0, off1, off2, off3, n, flags}
#else
#define CLSCAN_GEN_OUTPUT_PARAMS
#define CLSCAN_GEN_OUTPUTS(n, flags) {0, 0, 0, 0, 0, 0, 0, 0, n, flags}
#endif
#ifdef CLSCAN_GEN_OUTPUT_GIVEN
/* Output k as the statements see it: its buffer from its element offset on where it is
 * given (CLSCAN_GEN_Ok_GIVEN), else a null pointer to const void (CLSCAN_GEN_Ok), which
 * they cannot index: the host passes NULL for it (src/runtime/runtime.h,
 * clscan__no_carry, says why). */
#ifdef CLSCAN_GEN_O0_GIVEN
#define CLSCAN_GEN_AT0(o) ((__global CLSCAN_GEN_O0 *)(o).o0 + (o).off0)
#else
#define CLSCAN_GEN_AT0(o) ((__global CLSCAN_GEN_O0 *)0)
#endif
#ifdef CLSCAN_GEN_O1_GIVEN
#define CLSCAN_GEN_AT1(o) ((__global CLSCAN_GEN_O1 *)(o).o1 + (o).off1)
#else
#define CLSCAN_GEN_AT1(o) ((__global CLSCAN_GEN_O1 *)0)
#endif
#ifdef CLSCAN_GEN_O2_GIVEN
#define CLSCAN_GEN_AT2(o) ((__global CLSCAN_GEN_O2 *)(o).o2 + (o).off2)
#else
#define CLSCAN_GEN_AT2(o) ((__global CLSCAN_GEN_O2 *)0)
#endif
#ifdef CLSCAN_GEN_O3_GIVEN
#define CLSCAN_GEN_AT3(o) ((__global CLSCAN_GEN_O3 *)(o).o3 + (o).off3)
#else
#define CLSCAN_GEN_AT3(o) ((__global CLSCAN_GEN_O3 *)0)
#endif
void clscan_user_output(const CLSCAN_GEN_OUT y, const CLSCAN_GEN_IN x, const ulong i,
                        const ulong p, const ulong n, const ulong s, const uint first,
                        const uint last, __global const CLSCAN_GEN_SEG *segments,
                        __global CLSCAN_GEN_O0 *out0, __global CLSCAN_GEN_O1 *out1,
                        __global CLSCAN_GEN_O2 *out2, __global CLSCAN_GEN_O3 *out3);
#endif

/* The user's output statement for element i, with src[i], where there is one; y: its
 * output; heads: the segments begun up to element i (0 without segments); first, last:
 * whether it starts and ends its segment (clscan_gen_first, clscan_gen_last). */
void clscan_gen_stage(const clscan_gen_source s, ulong i, const CLSCAN_GEN_OUT y,
                      const uint heads, const uint first, const uint last,
                      const clscan_gen_outputs o)
{
#ifdef CLSCAN_GEN_OUTPUT_GIVEN
    const CLSCAN_GEN_IN x = clscan_gen_read(s.src, i);
    clscan_user_output(y, x, s.index_base + i, i, o.n, heads, first, last, s.seg,
                       CLSCAN_GEN_AT0(o), CLSCAN_GEN_AT1(o), CLSCAN_GEN_AT2(o),
                       CLSCAN_GEN_AT3(o));
#else
    (void)s;
    (void)i;
    (void)y;
    (void)heads;
    (void)first;
    (void)last;
    (void)o;
#endif
}

/* Element i's output y: into dst[i] unless the call skips the store, then through the
 * output statement (clscan_gen_stage). */
void clscan_gen_emit(__global CLSCAN_GEN_OUT *dst, const clscan_gen_source s, ulong i,
                     const CLSCAN_GEN_OUT y, const uint heads, const uint first,
                     const uint last, const clscan_gen_outputs o)
{
    if (!(o.flags & CLSCAN_CARRY_SKIP_STORE)) clscan_gen_write(dst, i, y);
    clscan_gen_stage(s, i, y, heads, first, last, o);
}

#if CLSCAN_GEN_SEGMENTS != CLSCAN_GEN_SEG_NONE
/* With segments CLSCAN_T is the pair { CLSCAN_GEN_OUT v; uint f; uint pad[]; } of the
 * prelude, whose operator keeps the right operand's value where its flag is set;
 * clscan_seg_make(v, f) builds one (its padding zeroed), and
 * clscan_user_value_identity() is the value operator's identity. */
CLSCAN_GEN_OUT clscan_user_value_identity(void);
CLSCAN_T clscan_seg_make(const CLSCAN_GEN_OUT v, const uint f);

/* How an element is loaded (clscan_gen_load, clscan_gen_load_tile): 1 without branches,
 * every load made whatever the case (those not needed read a neighbour in the range) and
 * the case selected afterwards, for GPUs, whose threads wait at the first use of a load:
 * with a branch between one element's loads and the next element's, the compiler keeps
 * them apart and each waits for the one before (H100, int32 add by int32 keys at 2^24:
 * 159.5 us with branches, 146.4 without); 0 with branches, for CPUs (one work-item per
 * group), which predict them and lose more to the extra loads and selects (PoCL took
 * 1.5-2x as long without branches). docs/PERFORMANCE.md has the runs. */
#ifndef CLSCAN_GEN_LOAD_BRANCHLESS
#define CLSCAN_GEN_LOAD_BRANCHLESS (CLSCAN_WG_SIZE > 1)
#endif

/* Whether element i starts a segment (prev: i - 1, or 0 for i == 0). Element 0 does,
 * unless the call has a carry-in: then with flags it does where its flag is set, and with
 * keys never (the key before the range is not known: the carry-in continues element 0's
 * segment). */
uint clscan_gen_head(clscan_gen_source s, ulong i, ulong prev)
{
#if CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_FLAGS
    (void)prev;
#if CLSCAN_GEN_LOAD_BRANCHLESS
    const uint flag = s.seg[i] != 0;
    return i == 0 && !s.carried ? 1u : flag;
#else
    if (i == 0 && !s.carried) return 1u;
    return s.seg[i] != 0;
#endif
#else
#if CLSCAN_GEN_LOAD_BRANCHLESS
    const CLSCAN_GEN_SEG key = s.seg[i], before = s.seg[prev];
    const uint differs = key != before;
    return i == 0 ? (uint)!s.carried : differs;
#else
    if (i == 0) return s.carried ? 0u : 1u;
    const CLSCAN_GEN_SEG key = s.seg[i], before = s.seg[prev];
    return key != before;
#endif
#endif
}
#endif

/* The output stage's first and last of element i of the range [0, n) (include/clscan.h:
 * clscan_scan_output), read from global memory: whether it starts a segment (as counted
 * in its heads; never without segments), and whether it is its segment's last (the
 * range's last, or element i + 1 starts a segment); 0 without an output stage, whose
 * emits ignore them. The tile paths take them from their local tiles where they can
 * (clscan_gen_tile_first, clscan_gen_tile_last). */
uint clscan_gen_first(clscan_gen_source s, ulong i)
{
#if defined(CLSCAN_GEN_OUTPUT_GIVEN) && CLSCAN_GEN_SEGMENTS != CLSCAN_GEN_SEG_NONE
    return clscan_gen_head(s, i, i - (i > 0));
#else
    (void)s;
    (void)i;
    return 0u;
#endif
}
uint clscan_gen_last(clscan_gen_source s, ulong i, ulong n)
{
#ifndef CLSCAN_GEN_OUTPUT_GIVEN
    (void)s;
    (void)i;
    (void)n;
    return 0u;
#elif CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    (void)s;
    return i + 1 == n;
#else
    return i + 1 >= n ? 1u : clscan_gen_head(s, i + 1, i);
#endif
}

/* The same for element base + k of a tile [base, base + count) of the range [0, n) whose
 * pairs the local tile holds, scanned inclusively within the tile (scanned: each pair's
 * count of heads is the tile's up to it) or as loaded (each pair's head flag): from the
 * neighbours' counts or flags, global memory only for the element after the tile. */
uint clscan_gen_tile_first(clscan_gen_source s, ulong base, uint k,
                           __local const CLSCAN_T *tile, int scanned)
{
#if !defined(CLSCAN_GEN_OUTPUT_GIVEN) || CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    (void)tile;
    (void)scanned;
    return clscan_gen_first(s, base + k);
#else
    const uint here = tile[CLSCAN_PAD(k)].f;
    if (!scanned) return here;
    return here != (k > 0 ? tile[CLSCAN_PAD(k - 1)].f : 0u);
#endif
}
uint clscan_gen_tile_last(clscan_gen_source s, ulong base, uint k, uint count, ulong n,
                          __local const CLSCAN_T *tile, int scanned)
{
#if !defined(CLSCAN_GEN_OUTPUT_GIVEN) || CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    (void)tile;
    (void)count;
    (void)scanned;
    return clscan_gen_last(s, base + k, n);
#else
    if (k + 1 >= count) return clscan_gen_last(s, base + k, n);
    const uint next = tile[CLSCAN_PAD(k + 1)].f;
    return scanned ? (uint)(next != tile[CLSCAN_PAD(k)].f) : next;
#endif
}

/* The scan's element i. Without segments: the transformed src[i]. With segments: the
 * pair (value, head flag); for an exclusive call the value is the element before
 * (the identity at a segment's head), so that the inclusive scan of these pairs is the
 * exclusive segmented scan, and the scan below is always inclusive. */
CLSCAN_T clscan_gen_load(clscan_gen_source s, ulong i)
{
#if CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    const CLSCAN_GEN_IN x = clscan_gen_read(s.src, i);
#if CLSCAN_GEN_WRAP
    return clscan_gen_wrap(CLSCAN_GEN_TRANSFORM(s, x, i));
#else
    return CLSCAN_GEN_TRANSFORM(s, x, i);
#endif
#else
    const ulong prev = i - (i > 0);
    const uint head = clscan_gen_head(s, i, prev);
#if CLSCAN_GEN_LOAD_BRANCHLESS
    const ulong at = s.exclusive ? prev : i;
    const CLSCAN_GEN_IN x = clscan_gen_read(s.src, at);
    const CLSCAN_GEN_OUT v = CLSCAN_GEN_TRANSFORM(s, x, at);
    /* (An exclusive call's element 0 without a head is the carried segment's start.) */
    const int blank = s.exclusive && (head || i == 0);
    return clscan_seg_make(blank ? clscan_user_value_identity() : v, head);
#else
    if (!s.exclusive) {
        const CLSCAN_GEN_IN x = clscan_gen_read(s.src, i);
        return clscan_seg_make(CLSCAN_GEN_TRANSFORM(s, x, i), head);
    }
    /* (Selected, not branched on: where heads fall is the data's, not predictable.) */
    const CLSCAN_GEN_IN x = clscan_gen_read(s.src, prev);
    const CLSCAN_GEN_OUT v = CLSCAN_GEN_TRANSFORM(s, x, prev);
    return clscan_seg_make(head || i == 0 ? clscan_user_value_identity() : v, head);
#endif
#endif
}

/* Whether the tile scan is inclusive for a call (segmented calls always are). */
int clscan_gen_tile_inclusive(int inclusive)
{
#if CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    return inclusive;
#else
    (void)inclusive;
    return 1;
#endif
}

/* The output element for a scanned value. */
CLSCAN_GEN_OUT clscan_gen_output(CLSCAN_T v)
{
#if CLSCAN_GEN_WRAP
    return clscan_gen_unwrap(v);
#elif CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    return v;
#else
    return v.v;
#endif
}

/* The segment heads counted in a scanned element (0 without segments). */
uint clscan_gen_heads(CLSCAN_T v)
{
#if CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    (void)v;
    return 0u;
#else
    return v.f;
#endif
}

/* A carry-in (of the output type) as an element of the scan, and the total of a range
 * of n > 0 elements from the combination v of its scan's elements (including the
 * carry-in): a segmented exclusive scan's elements are shifted by one, so its last
 * element is combined in here. */
CLSCAN_T clscan_gen_carry(const CLSCAN_GEN_OUT v)
{
#if CLSCAN_GEN_WRAP
    return clscan_gen_wrap(v);
#elif CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE
    return v;
#else
    return clscan_seg_make(v, 0u);
#endif
}

CLSCAN_GEN_OUT clscan_gen_total(clscan_gen_source s, ulong n, CLSCAN_T v)
{
#if CLSCAN_GEN_SEGMENTS != CLSCAN_GEN_SEG_NONE
    if (s.exclusive && n > 0) {
        const CLSCAN_GEN_IN x = clscan_gen_read(s.src, n - 1);
        const CLSCAN_T last = clscan_seg_make(CLSCAN_GEN_TRANSFORM(s, x, n - 1), 0u);
        v = CLSCAN_OP(v, last);
    }
#else
    (void)s;
    (void)n;
#endif
    return clscan_gen_output(v);
}

/* Loads the elements [base, base + count) of the scan into tile, the missing tail as the
 * identity, as clscan_wg_load does for plain elements. */
void clscan_gen_load_tile(clscan_gen_source s, ulong base, uint count, __local CLSCAN_T *tile)
{
    const uint lid = get_local_id(0);
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        /* (Through a private value: a struct copied straight from global to local memory
         * becomes llvm.memmove, which Oclgrind's --uninitialized check cannot follow.) */
#if CLSCAN_GEN_LOAD_BRANCHLESS
        /* (Past the end: the last element's loads, and the identity kept; count > 0.) */
        const CLSCAN_T x = clscan_gen_load(s, base + min(k, count - 1));
        const CLSCAN_T v = k < count ? x : CLSCAN_IDENTITY;
#else
        CLSCAN_T v = CLSCAN_IDENTITY;
        if (k < count) v = clscan_gen_load(s, base + k);
#endif
        tile[CLSCAN_PAD(k)] = v;
    }
}

/* Emits the outputs of carry op tile[k] for k < count as element base + k (see
 * clscan_gen_emit). */
void clscan_gen_store_tile(__global CLSCAN_GEN_OUT *dst, clscan_gen_source s, ulong base,
                           uint count, __local const CLSCAN_T *tile, CLSCAN_T carry,
                           const clscan_gen_outputs o)
{
    const uint lid = get_local_id(0);
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        if (k < count) {
            const CLSCAN_T x = tile[CLSCAN_PAD(k)];
            const CLSCAN_T r = CLSCAN_OP(carry, x);
            clscan_gen_emit(dst, s, base + k, clscan_gen_output(r), clscan_gen_heads(r),
                            clscan_gen_tile_first(s, base, k, tile, 1),
                            clscan_gen_tile_last(s, base, k, count, o.n, tile, 1), o);
        }
    }
}

/* The segmented tile of GPUs (CLSCAN_GEN_VALUE_TILE, where the host chose it: several
 * work-items a group): local memory holds the values alone and a byte for each
 * element's head, so a tile of 4-byte values is as long as the plain scan's (the pairs
 * took 8 bytes an element: half the elements a tile, twice the tiles, each paying its
 * look-back). Each work-item reads its CLSCAN_ITEMS heads as the bits of one word and
 * folds its values under them into a (value, heads) pair; the pairs are scanned across
 * the group as before, and each work-item then rewrites its values as outputs, running
 * an output stage's statements for them on the way (clscan_gen_values_store). The
 * tile's total is combined as the pair tile combined it, so a look-back fallback
 * (clscan_lb_tile_part) still gets its owner's bits. */
#ifndef CLSCAN_GEN_VALUE_TILE
#define CLSCAN_GEN_VALUE_TILE 0
#endif
#if CLSCAN_GEN_VALUE_TILE
#if CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_NONE || CLSCAN_WG_SIZE == 1 || \
    CLSCAN_ITEMS > 32 || CLSCAN_ITEMS % 4 != 0
#error "CLSCAN_GEN_VALUE_TILE needs segments, CLSCAN_WG_SIZE > 1 and CLSCAN_ITEMS a multiple of 4 up to 32"
#endif
/* Where sub-groups have ballots and are as wide as a work-item's elements (NVIDIA's
 * warps of 32), sub-group g of the load's step j holds the elements of work-item
 * j * CLSCAN_SG_COUNT + g, and its ballot is that work-item's word of heads. Elsewhere
 * a work-item's heads are a row of CLSCAN_ITEMS bytes and a word of padding, so that the
 * work-items of a sub-group read their rows' words from different banks. On the H200
 * (docs/PERFORMANCE.md, twelfth session) segments by flags took 14-22% less time with
 * the ballot than with the bytes, and segments by keys 3-8% more: keys take the bytes. */
#ifndef CLSCAN_GEN_HEAD_BALLOT
#define CLSCAN_GEN_HEAD_BALLOT                                                          \
    (CLSCAN_SG_BALLOT && CLSCAN_SG_WIDTH == CLSCAN_ITEMS && CLSCAN_WG_SIZE % CLSCAN_ITEMS == 0 && \
     CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_FLAGS)
#endif
/* Elements a work-item loads before it stores the first of them: all their loads in
 * flight together (the H200: 1-8% less time than one at a time at 2^24 and 2^28). */
#ifndef CLSCAN_GEN_LOAD_CHUNK
#define CLSCAN_GEN_LOAD_CHUNK (CLSCAN_ITEMS % 8 == 0 ? 8 : 4)
#endif
#if CLSCAN_GEN_HEAD_BALLOT
#define CLSCAN_GEN_HEAD_ROW 1
#else
#define CLSCAN_GEN_HEAD_ROW (CLSCAN_ITEMS / 4 + 1)
#endif
#define CLSCAN_GEN_HEAD_WORDS (CLSCAN_WG_SIZE * CLSCAN_GEN_HEAD_ROW)

/* Segments by keys: element k of a full tile that does not start the range, as
 * clscan_gen_load gives element base + k, from `t`, the range's source moved to the
 * tile's first element (src, seg and index_base advanced by base): the element before k
 * is then always in the range, so there is no test for the range's first element, and
 * the indices are the tile's (32 bits, the one before k at -1 from it), not 64-bit
 * indices of the range, each with its own address arithmetic (three loads an element:
 * the key, the key before, the value). On the H200 scan by key took 0.93-0.95x the time
 * at 2^24 (1.02x at 2^28: its kernel now holds 64 registers, not 48) and reduce by key
 * 0.92-0.93x at 2^24 and 2^28; segments by flags, one load fewer an element, took
 * 1.04-1.07x as long so, and keep clscan_gen_load (docs/PERFORMANCE.md, thirty-fourth
 * session). */
#define CLSCAN_GEN_LOAD_INNER (CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_KEYS)
#if CLSCAN_GEN_LOAD_INNER
CLSCAN_T clscan_gen_load_inner(clscan_gen_source t, uint k)
{
    const int prev = (int)k - 1;
    const uint head = t.seg[k] != t.seg[prev];
    const int at = t.exclusive ? prev : (int)k;
    const CLSCAN_GEN_IN x = clscan_gen_read(t.src + at, 0);
    const CLSCAN_GEN_OUT v = CLSCAN_GEN_TRANSFORM(t, x, (long)at);
    return clscan_seg_make(t.exclusive && head ? clscan_user_value_identity() : v, head);
}
#endif

/* Loads the elements [base, base + count) of the scan, count > 0, into values (the value
 * identity past count) and heads (where an element's pair has its flag set). */
void clscan_gen_load_values(clscan_gen_source s, ulong base, uint count,
                            __local CLSCAN_GEN_OUT *values, __local uint *heads)
{
    const uint lid = get_local_id(0);
#if CLSCAN_GEN_LOAD_INNER
    const int inner = count == CLSCAN_TILE && base > 0; /* (the same for the group) */
    clscan_gen_source t = s;
    t.src += base;
    t.seg += base;
    t.index_base += base;
#endif
    for (uint j0 = 0; j0 < CLSCAN_ITEMS; j0 += CLSCAN_GEN_LOAD_CHUNK) {
    CLSCAN_T xs[CLSCAN_GEN_LOAD_CHUNK];
#if CLSCAN_GEN_LOAD_INNER
    if (inner) {
#pragma unroll
        for (uint u = 0; u < CLSCAN_GEN_LOAD_CHUNK; ++u)
            xs[u] = clscan_gen_load_inner(t, (j0 + u) * CLSCAN_WG_SIZE + lid);
    } else
#endif
    {
#pragma unroll
        for (uint u = 0; u < CLSCAN_GEN_LOAD_CHUNK; ++u) {
            const uint k = (j0 + u) * CLSCAN_WG_SIZE + lid;
            /* (Past the end: the last element's loads, as clscan_gen_load_tile.) */
            xs[u] = clscan_gen_load(s, base + min(k, count - 1));
        }
    }
#pragma unroll
    for (uint u = 0; u < CLSCAN_GEN_LOAD_CHUNK; ++u) {
        const uint k = (j0 + u) * CLSCAN_WG_SIZE + lid;
        const CLSCAN_T x = xs[u];
        values[CLSCAN_PAD(k)] = k < count ? x.v : clscan_user_value_identity();
        const uint head = k < count && x.f != 0;
#if CLSCAN_GEN_HEAD_BALLOT
        const uint word = clscan_sg_ballot(head);
        if (clscan_sg_lane() == 0) heads[k / CLSCAN_ITEMS] = word;
#else
        ((__local uchar *)heads)[k / CLSCAN_ITEMS * (4 * CLSCAN_GEN_HEAD_ROW) +
                                 k % CLSCAN_ITEMS] = (uchar)head;
#endif
    }
    }
}

/* This work-item's heads (after a barrier that follows clscan_gen_load_values): bit j
 * set where its element j starts a segment. */
uint clscan_gen_head_bits(__local const uint *heads)
{
#if CLSCAN_GEN_HEAD_BALLOT
    return heads[get_local_id(0)];
#else
    __local const uint *row = heads + get_local_id(0) * CLSCAN_GEN_HEAD_ROW;
    uint bits = 0;
    for (uint q = 0; q < CLSCAN_ITEMS / 4; ++q) {
        const uint w = row[q]; /* four bytes, each 0 or 1 */
#ifdef __ENDIAN_LITTLE__
        const uint b = (w & 1u) | (w >> 7 & 2u) | (w >> 14 & 4u) | (w >> 21 & 8u);
#else
        const uint b = (w >> 24 & 1u) | (w >> 15 & 2u) | (w >> 6 & 4u) | (w << 3 & 8u);
#endif
        bits |= b << (4 * q);
    }
    return bits;
#endif
}

/* Whether work-item w's first element starts a segment (after the same barrier). */
uint clscan_gen_first_head(__local const uint *heads, uint w)
{
#if CLSCAN_GEN_HEAD_BALLOT
    return heads[w] & 1u;
#else
    return ((__local const uchar *)heads)[w * (4 * CLSCAN_GEN_HEAD_ROW)];
#endif
}

/* This work-item's elements combined left to right under its head bits: the pair of the
 * combination since its last head (or of all of them) and its count of heads. */
CLSCAN_T clscan_gen_values_fold(__local const CLSCAN_GEN_OUT *values, uint bits)
{
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_GEN_OUT a = values[CLSCAN_PAD(first)];
    for (uint j = 1; j < CLSCAN_ITEMS; ++j) {
        const CLSCAN_GEN_OUT x = values[CLSCAN_PAD(first + j)];
        a = (bits >> j & 1u) ? x : clscan_user_value_op(a, x);
    }
    return clscan_seg_make(a, popcount(bits));
}

/* Loads the tile [base, base + count), count > 0, into values and heads, and returns
 * this work-item's fold of its elements (*bits: its head bits). */
CLSCAN_T clscan_gen_values_part(clscan_gen_source s, ulong base, uint count,
                                __local CLSCAN_GEN_OUT *values, __local uint *heads,
                                uint *bits)
{
    clscan_gen_load_values(s, base, count, values, heads);
    barrier(CLK_LOCAL_MEM_FENCE);
    *bits = clscan_gen_head_bits(heads);
    return clscan_gen_values_fold(values, *bits);
}

/* Stores the outputs of the tile [base, base + count) to dst[base + k], given `before`,
 * the combination of everything before this work-item's first element: each work-item
 * rewrites its values as outputs, then the group stores the tile. With an output stage,
 * each work-item then runs the statements for its elements that end a segment (the set
 * bits of its heads shifted down by one), those that start one where the statements ask
 * for them (CLSCAN_GEN_SPARSE_HEADS: its head bits), and the tile's last element, in
 * order, reading their outputs back from values (element k's count of
 * heads is before's and its bits' up to k; last is its next bit, the next work-item's
 * first head, or from global memory after the tile); the group stores the tile unless
 * the call skips the store. The host takes this tile only for statements that do
 * nothing elsewhere (reduce by key: clscan__scan_output_sparse), never a user's, which
 * may write every element, and whose stores would then be a work-item's run apart, not
 * side by side (one store an element took 4-6 times as long so; docs/PERFORMANCE.md,
 * twenty-sixth session). Reduce by key on the H200 took 8-14% less time on this tile
 * than on the pairs' tile with statements for every element, and 18-22% less again at
 * 2^24 and 2^28 with statements for the heads and ends alone, and 4-5% less again for
 * the ends alone (thirty-second session). */
void clscan_gen_values_store(__global CLSCAN_GEN_OUT *dst, clscan_gen_source s, ulong base,
                             uint count, __local CLSCAN_GEN_OUT *values,
                             __local const uint *heads, uint bits, CLSCAN_T before,
                             const clscan_gen_outputs o)
{
    const uint lid = get_local_id(0), first = lid * CLSCAN_ITEMS;
    CLSCAN_GEN_OUT run = before.v;
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = CLSCAN_PAD(first + j);
        const CLSCAN_GEN_OUT x = values[k];
        run = (bits >> j & 1u) ? x : clscan_user_value_op(run, x);
        values[k] = run;
    }
#ifdef CLSCAN_GEN_OUTPUT_GIVEN
    if (first < count) {
        /* (Bit CLSCAN_ITEMS: the next work-item's first head.) */
        const ulong ext =
            bits | (ulong)(lid + 1 < CLSCAN_WG_SIZE ? clscan_gen_first_head(heads, lid + 1) : 0u)
                       << CLSCAN_ITEMS;
        const uint left = count - first; /* this work-item's elements in the tile */
        uint todo = (CLSCAN_GEN_SPARSE_HEADS ? bits : 0u) | (uint)(ext >> 1);
        if (left <= CLSCAN_ITEMS) todo = (todo & ((2u << (left - 1)) - 1u)) | 1u << (left - 1);
        while (todo != 0) {
            const uint j = 31u - clz(todo & (0u - todo)); /* the lowest set bit */
            todo &= todo - 1u;
            const ulong i = base + first + j;
            const uint last = j + 1 < left ? (uint)(ext >> (j + 1) & 1u) : clscan_gen_last(s, i, o.n);
            clscan_gen_stage(s, i, values[CLSCAN_PAD(first + j)],
                             add_sat(before.f, (uint)popcount(bits & ((2u << j) - 1u))),
                             bits >> j & 1u, last, o);
        }
    }
#else
    (void)s;
    (void)heads;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
#ifdef CLSCAN_GEN_OUTPUT_GIVEN
    if (o.flags & CLSCAN_CARRY_SKIP_STORE) return;
#else
    (void)o;
#endif
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = j * CLSCAN_WG_SIZE + lid;
        if (k < count) dst[base + k] = values[CLSCAN_PAD(k)];
    }
}
#endif

/* One work-item per group (CPUs): the single-pass kernel takes its tile as
 * CLSCAN_GEN_RUNS consecutive runs of ceil(count / CLSCAN_GEN_RUNS) elements and folds
 * them side by side, first for their totals and then, after the look-back, for the
 * outputs, which go straight to dst. One element after another, every step waits for the
 * operator's result before; four independent runs let the processor overlap them. The
 * elements come straight from global memory, or for segmented scans from the local tile
 * loaded first (whose loop the compiler vectorises; their loads inside the runs took
 * 1.2-1.5x as long). PoCL, 2^22 elements, against one work-item folding the local tile:
 * the custom float max 2.5x, the 2x2 matrix product 3x, the segmented scans 1.2-1.5x
 * as fast (docs/PERFORMANCE.md). */
#define CLSCAN_GEN_USE_RUNS (CLSCAN_WG_SIZE == 1)
#define CLSCAN_GEN_RUNS_FROM_TILE (CLSCAN_GEN_SEGMENTS != CLSCAN_GEN_SEG_NONE)
#define CLSCAN_GEN_RUNS 4 /* (the steps below are written out for four runs) */
#if CLSCAN_GEN_USE_RUNS
/* One step of the four runs at offset j (each run's element j where it has one):
 * STEP(r, k) for run r's element k. Written out, not as a loop over an array indexed by
 * r, which compilers leave in memory (each step then waits on a store and a load). */
#define CLSCAN_GEN_RUNS_STEP(len, j, count, STEP) \
    do {                                         \
        if ((j) < (count)) STEP(0, (j));         \
        if ((len) + (j) < (count)) STEP(1, (len) + (j)); \
        if (2 * (len) + (j) < (count)) STEP(2, 2 * (len) + (j)); \
        if (3 * (len) + (j) < (count)) STEP(3, 3 * (len) + (j)); \
    } while (0)
/* The same step where every run has element j: no test between the four, so the steps
 * lie in one block that a compiler may pack into vector lanes, a lane a run (each lane
 * still its own run's chain, in order). */
#define CLSCAN_GEN_RUNS_FULL_STEP(len, j, STEP) \
    do {                                        \
        STEP(0, (j));                           \
        STEP(1, (len) + (j));                   \
        STEP(2, 2 * (len) + (j));               \
        STEP(3, 3 * (len) + (j));               \
    } while (0)
/* How many steps from j = 0 find an element in every run. (Through min: Clang made the
 * test and subtraction written out into llvm.usub.sat, which Oclgrind 21.10 cannot run.) */
#define CLSCAN_GEN_RUNS_FULL(len, count) ((count) - min((count), 3 * (len)))

/* The runs' totals of the tile [base, base + count), count > 0 (the identity where a
 * run is empty), each folded from the identity. */
typedef struct clscan_gen_runs {
    CLSCAN_T r0, r1, r2, r3;
} clscan_gen_runs;
clscan_gen_runs clscan_gen_run_totals(clscan_gen_source s, ulong base, uint count,
                                      __local const CLSCAN_T *tile, int from_tile)
{
    const uint len = (count + CLSCAN_GEN_RUNS - 1) / CLSCAN_GEN_RUNS;
    CLSCAN_T a0 = CLSCAN_IDENTITY, a1 = CLSCAN_IDENTITY, a2 = CLSCAN_IDENTITY,
             a3 = CLSCAN_IDENTITY;
#define CLSCAN_GEN_TOTAL_STEP_(r, k)                         \
    do {                                                     \
        const CLSCAN_T x = from_tile ? tile[CLSCAN_PAD(k)] : clscan_gen_load(s, base + (k)); \
        a##r = CLSCAN_OP(a##r, x);                           \
    } while (0)
    const uint full = CLSCAN_GEN_RUNS_FULL(len, count);
    uint j = 0;
    CLSCAN_IN_ORDER
    for (; j < full; ++j) CLSCAN_GEN_RUNS_FULL_STEP(len, j, CLSCAN_GEN_TOTAL_STEP_);
    CLSCAN_IN_ORDER
    for (; j < len; ++j) CLSCAN_GEN_RUNS_STEP(len, j, count, CLSCAN_GEN_TOTAL_STEP_);
#undef CLSCAN_GEN_TOTAL_STEP_
    const clscan_gen_runs runs = {a0, a1, a2, a3};
    return runs;
}

/* The runs' totals combined left to right: the tile's total. */
CLSCAN_T clscan_gen_runs_total(const clscan_gen_runs a)
{
    const CLSCAN_T h0 = CLSCAN_OP(a.r0, a.r1);
    const CLSCAN_T h1 = CLSCAN_OP(h0, a.r2);
    return CLSCAN_OP(h1, a.r3);
}

/* The outputs of the tile [base, base + count) as elements base + k (clscan_gen_emit),
 * given the combination `carry` of everything before it and the runs' totals. */
void clscan_gen_run_outputs(clscan_gen_source s, ulong base, uint count,
                            __local const CLSCAN_T *tile, int from_tile,
                            const clscan_gen_runs a, CLSCAN_T carry, int inclusive,
                            __global CLSCAN_GEN_OUT *dst, const clscan_gen_outputs o)
{
    const uint len = (count + CLSCAN_GEN_RUNS - 1) / CLSCAN_GEN_RUNS;
    CLSCAN_T p0 = carry;
    CLSCAN_T p1 = CLSCAN_OP(p0, a.r0);
    CLSCAN_T p2 = CLSCAN_OP(p1, a.r1);
    CLSCAN_T p3 = CLSCAN_OP(p2, a.r2);
#define CLSCAN_GEN_OUTPUT_STEP_(r, k)                                     \
    do {                                                                  \
        const CLSCAN_T x = from_tile ? tile[CLSCAN_PAD(k)] : clscan_gen_load(s, base + (k)); \
        const CLSCAN_T next = CLSCAN_OP(p##r, x);                         \
        clscan_gen_emit(dst, s, base + (k), clscan_gen_output(inclusive ? next : p##r),    \
                        clscan_gen_heads(next),                                          \
                        clscan_gen_tile_first(s, base, (k), tile, 0),                    \
                        clscan_gen_tile_last(s, base, (k), count, o.n, tile, 0), o);     \
        p##r = next;                                                      \
    } while (0)
    const uint full = CLSCAN_GEN_RUNS_FULL(len, count);
    uint j = 0;
    for (; j < full; ++j) CLSCAN_GEN_RUNS_FULL_STEP(len, j, CLSCAN_GEN_OUTPUT_STEP_);
    for (; j < len; ++j) CLSCAN_GEN_RUNS_STEP(len, j, count, CLSCAN_GEN_OUTPUT_STEP_);
#undef CLSCAN_GEN_OUTPUT_STEP_
}
#endif

#if CLSCAN_GEN_USE_RUNS && defined(CLSCAN_GEN_VEC_OP) && \
    CLSCAN_GEN_SEGMENTS != CLSCAN_GEN_SEG_NONE
/* Segmented scans of a library type under a built-in operator, without a transform (the
 * host then defines CLSCAN_GEN_VEC_OP(a, b), the operator on vectors of eight values, and
 * CLSCAN_GEN_VEC_MASK_LANE, the integer type as wide as a value): one
 * work-item takes its tile eight elements at a time in vector registers. The eight
 * (value, head) pairs are scanned inside the vector in three shifted steps, then joined
 * to the carry from the vectors before, so a chain of operations waits once per eight
 * elements, where the runs above wait once per element. The tile's total and its
 * outputs come from one pass over it (with an output stage, a second pass after the
 * look-back: clscan_gen_vec_emit), and a look-back fallback's total from the same
 * function (clscan_gen_vec_local), so it has the owner's bits. */
#define CLSCAN_GEN_VEC 1
#define CLSCAN_GEN_VT CLSCAN_CAT(CLSCAN_GEN_OUT, 8)
#define CLSCAN_GEN_KT CLSCAN_CAT(CLSCAN_GEN_SEG, 8)
#define CLSCAN_GEN_MT CLSCAN_CAT(CLSCAN_GEN_VEC_MASK_LANE, 8)
/* x (a comparison's result, lanes as wide as a key's) as a mask of CLSCAN_GEN_MT; where
 * the value or the key has 64 bits (the host's CLSCAN_GEN_VEC_HALVES), in halves of four
 * lanes, as CLSCAN_VLOAD8 loads those (cl/clscan_common.cl says why). */
#if CLSCAN_GEN_VEC_HALVES
#define CLSCAN_GEN_TO_MASK4_ CLSCAN_CAT(convert_, CLSCAN_CAT(CLSCAN_GEN_VEC_MASK_LANE, 4))
#define CLSCAN_GEN_TO_MASK(x) \
    ((CLSCAN_GEN_MT)(CLSCAN_GEN_TO_MASK4_((x).lo), CLSCAN_GEN_TO_MASK4_((x).hi)))
#else
#define CLSCAN_GEN_TO_MASK CLSCAN_CAT(convert_, CLSCAN_GEN_MT)
#endif
/* x (of T: values or masks, whose lanes are as wide as a value's) shifted up by d lanes
 * (d = 1, 2, 4), `fill` in the lanes below d: x turned by d lanes, the lanes below d then
 * chosen from a vector of fills. (Written as a vector of x's lanes and `fill`, Oclgrind
 * 21.10's --uninitialized check took the result for uninitialised; shuffle2 made PoCL
 * 1.2-1.4x slower; docs/IMPLEMENTATION-ISSUES.md.) */
#define CLSCAN_GEN_SHIFT1(T, x, fill) \
    ((CLSCAN_GEN_MT)(-1, 0, 0, 0, 0, 0, 0, 0) ? (T)(fill) : (x).s70123456)
#define CLSCAN_GEN_SHIFT2(T, x, fill) \
    ((CLSCAN_GEN_MT)(-1, -1, 0, 0, 0, 0, 0, 0) ? (T)(fill) : (x).s67012345)
#define CLSCAN_GEN_SHIFT4(T, x, fill) \
    ((CLSCAN_GEN_MT)(-1, -1, -1, -1, 0, 0, 0, 0) ? (T)(fill) : (x).s45670123)

/* The scan's elements g0 .. g0 + 7 (all in the range), as clscan_gen_load makes them:
 * the values in *v, the heads in *h (all bits set where an element starts a segment). */
void clscan_gen_vec_load(const clscan_gen_source s, ulong g0, CLSCAN_GEN_VT *v,
                         CLSCAN_GEN_MT *h)
{
    const CLSCAN_GEN_OUT id = clscan_user_value_identity();
    /* (The lines 512 elements on: 0.88-0.99 of the time on PoCL and Intel's runtime, 256
     * the same, 1024 slower; docs/PERFORMANCE.md, twenty-seventh session. Past the range
     * it is a hint that fetches nothing.) */
    CLSCAN_PREFETCH(s.src + g0 + 512);
    CLSCAN_PREFETCH(s.seg + g0 + 512);
#if CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_FLAGS
    const CLSCAN_GEN_KT flags = CLSCAN_VLOAD8(CLSCAN_GEN_SEG, s.seg + g0);
    CLSCAN_GEN_MT head = CLSCAN_GEN_TO_MASK(flags != (CLSCAN_GEN_KT)0);
    if (g0 == 0 && !s.carried) head.s0 = -1;
#else
    const CLSCAN_GEN_KT k = CLSCAN_VLOAD8(CLSCAN_GEN_SEG, s.seg + g0);
    const CLSCAN_GEN_SEG before = g0 > 0 ? s.seg[g0 - 1] : k.s0;
    /* (Each key against the one before: the keys turned by a lane, a key's lanes being
     * as wide as the key and not a value's; then lane 0 against `before`.) */
    CLSCAN_GEN_MT head = CLSCAN_GEN_TO_MASK(k != k.s70123456);
    head.s0 = k.s0 != before ? -1 : 0;
    if (g0 == 0) head.s0 = s.carried ? 0 : -1;
#endif
    const CLSCAN_GEN_VT x = CLSCAN_VLOAD8(CLSCAN_GEN_OUT, s.src + g0);
    if (s.exclusive) {
        /* (Each value is the element before; the identity at a head and at element 0.) */
        const CLSCAN_GEN_OUT first = g0 > 0 ? s.src[g0 - 1] : id;
        *v = head ? (CLSCAN_GEN_VT)(id) : CLSCAN_GEN_SHIFT1(CLSCAN_GEN_VT, x, first);
    } else {
        *v = x;
    }
    *h = head;
}

/* The segmented inclusive scan of the pairs (v, h) inside the vector: v lane i becomes
 * the combination of the lanes from the last head at or before i (or lane 0) to i, and h
 * lane i whether a head lies at or before i. */
void clscan_gen_vec_scan(CLSCAN_GEN_VT *v, CLSCAN_GEN_MT *h)
{
    const CLSCAN_GEN_OUT id = clscan_user_value_identity();
    CLSCAN_GEN_VT a = *v;
    CLSCAN_GEN_MT f = *h;
    a = f ? a : CLSCAN_GEN_VEC_OP(CLSCAN_GEN_SHIFT1(CLSCAN_GEN_VT, a, id), a);
    f = f | CLSCAN_GEN_SHIFT1(CLSCAN_GEN_MT, f, 0);
    a = f ? a : CLSCAN_GEN_VEC_OP(CLSCAN_GEN_SHIFT2(CLSCAN_GEN_VT, a, id), a);
    f = f | CLSCAN_GEN_SHIFT2(CLSCAN_GEN_MT, f, 0);
    a = f ? a : CLSCAN_GEN_VEC_OP(CLSCAN_GEN_SHIFT4(CLSCAN_GEN_VT, a, id), a);
    f = f | CLSCAN_GEN_SHIFT4(CLSCAN_GEN_MT, f, 0);
    *v = a;
    *h = f;
}

/* By keys the heads are counted lane by lane (each lane's count negated) and summed
 * across the lanes once after the loop; by flags once a vector (each form the faster for
 * its segments on PoCL, by 10-20%; docs/PERFORMANCE.md, nineteenth session). */
#if CLSCAN_GEN_SEGMENTS == CLSCAN_GEN_SEG_KEYS
#define CLSCAN_GEN_VEC_COUNT_(h) (lanes += (h))
#else
#define CLSCAN_GEN_VEC_COUNT_(h) \
    (heads -= (uint)((h).s0 + (h).s1 + (h).s2 + (h).s3 + (h).s4 + (h).s5 + (h).s6 + (h).s7))
#endif
/* The total of the tile [base, base + count), count > 0: the pair of the combination
 * since its last head (or of all of it) and its count of heads. Where dst is not null,
 * in the same pass its outputs as if nothing came before the tile go to dst, and *first
 * gets the index of its first head (count where it has none): only the outputs before
 * that one depend on what comes before the tile, and clscan_gen_vec_fix combines them
 * with it after the look-back. So the owner reads and scans its tile once, and a
 * look-back fallback (dst null) takes the owner's steps and gets its bits. The vectors
 * go to dst through VSTORE(r, p): twins, one with ordinary stores and one that streams
 * them past the caches (for dst + base aligned to a vector; cl/clscan_common.cl,
 * CLSCAN_STREAM_STORE, says why twins). */
#define CLSCAN_GEN_VEC_LOCAL_(name, VSTORE)                                                 \
    CLSCAN_T name(const clscan_gen_source s, ulong base, uint count,                        \
                  __global CLSCAN_GEN_OUT *dst, uint *first)                                \
    {                                                                                       \
        CLSCAN_GEN_OUT c = clscan_user_value_identity();                                    \
        uint f = count, heads = 0;                                                          \
        uint j = 0;                                                                         \
        CLSCAN_GEN_MT lanes = (CLSCAN_GEN_MT)(0);                                           \
        for (; j + 8 <= count; j += 8) {                                                    \
            CLSCAN_GEN_VT v;                                                                \
            CLSCAN_GEN_MT h;                                                                \
            clscan_gen_vec_load(s, base + j, &v, &h);                                       \
            CLSCAN_GEN_VEC_COUNT_(h);                                                       \
            clscan_gen_vec_scan(&v, &h);                                                    \
            if (dst) {                                                                      \
                /* (After the scan the lanes from the first head on are set; the tile's     \
                 * first head is looked for only until it is found.) */                     \
                if (f == count) {                                                           \
                    const uint after =                                                      \
                        -(uint)(h.s0 + h.s1 + h.s2 + h.s3 + h.s4 + h.s5 + h.s6 + h.s7);     \
                    if (after) f = j + 8 - after;                                           \
                }                                                                           \
                const CLSCAN_GEN_VT r = h ? v : CLSCAN_GEN_VEC_OP((CLSCAN_GEN_VT)(c), v);   \
                VSTORE(r, dst + base + j);                                                  \
            }                                                                               \
            c = h.s7 ? v.s7 : clscan_user_value_op(c, v.s7);                                \
        }                                                                                   \
        heads -= (uint)(lanes.s0 + lanes.s1 + lanes.s2 + lanes.s3 + lanes.s4 + lanes.s5 +   \
                        lanes.s6 + lanes.s7);                                               \
        CLSCAN_T acc = clscan_seg_make(c, heads);                                           \
        for (; j < count; ++j) {                                                            \
            const CLSCAN_T x = clscan_gen_load(s, base + j);                                \
            if (f == count && x.f) f = j;                                                   \
            acc = CLSCAN_OP(acc, x);                                                        \
            if (dst) dst[base + j] = acc.v;                                                 \
        }                                                                                   \
        *first = f;                                                                         \
        return acc;                                                                         \
    }
#define CLSCAN_GEN_VSTORE_PLAIN_(r, p) CLSCAN_VSTORE8(CLSCAN_GEN_OUT, (r), (p))
#define CLSCAN_GEN_VSTORE_STREAM_(r, p) CLSCAN_STREAM_STORE((__global CLSCAN_GEN_VT *)(p), (r))
CLSCAN_GEN_VEC_LOCAL_(clscan_gen_vec_local, CLSCAN_GEN_VSTORE_PLAIN_)
CLSCAN_GEN_VEC_LOCAL_(clscan_gen_vec_local_streamed, CLSCAN_GEN_VSTORE_STREAM_)
#undef CLSCAN_GEN_VEC_LOCAL_
#undef CLSCAN_GEN_VEC_COUNT_

/* dst[base + j] = carry op dst[base + j] for j < first (clscan_gen_vec_local). */
void clscan_gen_vec_fix(__global CLSCAN_GEN_OUT *dst, ulong base, uint first, CLSCAN_T carry)
{
    for (uint j = 0; j < first; ++j) {
        const CLSCAN_GEN_OUT y = dst[base + j];
        dst[base + j] = clscan_user_value_op(carry.v, y);
    }
}

#ifdef CLSCAN_GEN_OUTPUT_GIVEN
/* With an output stage, whose statements need each element's final result and count of
 * heads: after the look-back (clscan_gen_vec_local having given the tile's total) the
 * tile [base, base + count) is scanned again as clscan_gen_vec_local scans it, and each
 * element emitted (clscan_gen_emit) with the result clscan_gen_vec_fix would leave in
 * dst: carry op the local result up to the tile's first head, the local result from it
 * on (so the bits are those of the scan without an output stage). An element's heads
 * are carry's plus the tile's up to it, its vector's counted in the same three shifted
 * steps as the values. */
void clscan_gen_vec_emit(const clscan_gen_source s, ulong base, uint count, CLSCAN_T carry,
                         __global CLSCAN_GEN_OUT *dst, const clscan_gen_outputs o)
{
    CLSCAN_GEN_OUT c = clscan_user_value_identity();
    uint heads = 0; /* the tile's, before the vector */
    uint j = 0;
    for (; j + 8 <= count; j += 8) {
        CLSCAN_GEN_VT v;
        CLSCAN_GEN_MT h;
        clscan_gen_vec_load(s, base + j, &v, &h);
#if CLSCAN_GEN_OUTPUT_SPARSE
        /* (Bit l set where lane l starts a segment.) */
        const CLSCAN_GEN_MT hw = h & (CLSCAN_GEN_MT)(1, 2, 4, 8, 16, 32, 64, 128);
        const uint hb = (uint)(hw.s0 | hw.s1 | hw.s2 | hw.s3 | hw.s4 | hw.s5 | hw.s6 | hw.s7);
#endif
        CLSCAN_GEN_MT n = -h; /* (1 where a head) */
        n += CLSCAN_GEN_SHIFT1(CLSCAN_GEN_MT, n, 0);
        n += CLSCAN_GEN_SHIFT2(CLSCAN_GEN_MT, n, 0);
        n += CLSCAN_GEN_SHIFT4(CLSCAN_GEN_MT, n, 0);
        clscan_gen_vec_scan(&v, &h);
        const CLSCAN_GEN_VT r = h ? v : CLSCAN_GEN_VEC_OP((CLSCAN_GEN_VT)(c), v);
        /* (Before the tile's first head the carry goes in front.) */
        const CLSCAN_GEN_VT y = (heads != 0 || h) ? r : CLSCAN_GEN_VEC_OP((CLSCAN_GEN_VT)(carry.v), r);
        CLSCAN_GEN_OUT ys[8];
        CLSCAN_VSTORE8(CLSCAN_GEN_OUT, y, ys);
        const uint k[8] = {(uint)n.s0, (uint)n.s1, (uint)n.s2, (uint)n.s3,
                           (uint)n.s4, (uint)n.s5, (uint)n.s6, (uint)n.s7};
#if CLSCAN_GEN_OUTPUT_SPARSE
        /* Sparse statements run for the lanes that end a segment alone (the head bits
         * shifted down by one, and lane 7 where the element after it starts a segment),
         * and those that start one where they ask for it (the head bits). */
        if (!(o.flags & CLSCAN_CARRY_SKIP_STORE)) CLSCAN_VSTORE8(CLSCAN_GEN_OUT, y, dst + base + j);
        const uint last7 = clscan_gen_last(s, base + j + 7, o.n);
        for (uint todo = (CLSCAN_GEN_SPARSE_HEADS ? hb : 0u) | hb >> 1 | last7 << 7; todo != 0;
             todo &= todo - 1u) {
            const uint l = 31u - clz(todo & (0u - todo)); /* the lowest set bit */
            clscan_gen_stage(s, base + j + l, ys[l], add_sat(carry.f, heads + k[l]),
                             hb >> l & 1u, l < 7 ? hb >> (l + 1) & 1u : last7, o);
        }
#else
        /* (An element's first from the vector's counts of heads: its own against its
         * left neighbour's.) */
        for (uint l = 0; l < 8; ++l)
            clscan_gen_emit(dst, s, base + j + l, ys[l], add_sat(carry.f, heads + k[l]),
                            k[l] != (l > 0 ? k[l - 1] : 0u), clscan_gen_last(s, base + j + l, o.n),
                            o);
#endif
        c = r.s7;
        heads += k[7];
    }
    CLSCAN_T acc = clscan_seg_make(c, heads);
    for (; j < count; ++j) {
        acc = CLSCAN_OP(acc, clscan_gen_load(s, base + j));
        const CLSCAN_GEN_OUT y = acc.f ? acc.v : clscan_user_value_op(carry.v, acc.v);
        clscan_gen_emit(dst, s, base + j, y, add_sat(carry.f, acc.f),
                        clscan_gen_first(s, base + j), clscan_gen_last(s, base + j, o.n), o);
    }
}
#endif
#else
#define CLSCAN_GEN_VEC 0
#endif

/* The look-back's fallback (cl/clscan_lookback.cl) reduces a full tile that starts at
 * base as its owner did, so that the total has the owner's bits: this work-item's
 * CLSCAN_ITEMS consecutive elements, combined left to right from the first, as
 * clscan_wg_scan combines them, or in the runs or vectors above where the owner used
 * them. */
#define CLSCAN_LB_SOURCE clscan_gen_source
CLSCAN_T clscan_lb_tile_part(clscan_gen_source s, ulong base)
{
#if CLSCAN_GEN_VEC
    uint first;
    return clscan_gen_vec_local(s, base, CLSCAN_TILE, (__global CLSCAN_GEN_OUT *)0, &first);
#elif CLSCAN_GEN_USE_RUNS
    return clscan_gen_runs_total(
        clscan_gen_run_totals(s, base, CLSCAN_TILE, (__local const CLSCAN_T *)0, 0));
#else
    const ulong first = base + (ulong)get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_T x = clscan_gen_load(s, first);
    for (uint i = 1; i < CLSCAN_ITEMS; ++i) {
        const CLSCAN_T e = clscan_gen_load(s, first + i);
        x = CLSCAN_OP(x, e);
    }
    return x;
#endif
}

#endif /* CLSCAN_GENERAL_TILE_CL */
