/* rusticl_build_crash.cl - one of libclscan's general-scan programs as the library passed it to
 * clBuildProgram (tests/test_general: an int32 multiply segmented by int32 keys, multi-level,
 * one-work-item groups) when Mesa 22.3's compiler crashed: docs/IMPLEMENTATION-ISSUES.md. */
/* libclscan 0.1.0: general scan of a prelude's type (8 bytes), multi-level, blelloch work-group scan, local sub-groups, for llvmpipe (LLVM 15.0.6, 256 bits); built with -cl-std=CL1.2 */
#define CLSCAN_TYPE_ID 99
#define CLSCAN_OP_ID 99
#define CLSCAN_WG_SIZE 1
#define CLSCAN_ITEMS 512
#define CLSCAN_LOG_BANKS 0
#define CLSCAN_WG_ALGO 0
#define CLSCAN_SG_IMPL 0
#define CLSCAN_SG_WIDTH 1
#define CLSCAN_SG_SHUFFLE_RELATIVE 0
#define CLSCAN_SG_REQUIRED_SIZE 0
#define CLSCAN_SINGLE_PASS 0
#define CLSCAN_GEN_SINGLE_PASS 0
#define CLSCAN_T_BYTES 8
#define CLSCAN_WG_DIRECT 1
/* libclscan general scan: the user's source and the generated operator */
#undef sizeof
#undef typedef
#undef char
#undef struct
#undef union
int clscan_user_value_op(const int a, const int b)
{
    return (
#line 1 "combine"
as_int(as_uint(a) * as_uint(b))
#line 1 "libclscan"
    );
}
int clscan_user_value_identity(void)
{
    return (
#line 1 "identity"
(int)1
#line 1 "libclscan"
    );
}
#define CLSCAN_GEN_OUT int
#define CLSCAN_GEN_IN int
#define CLSCAN_LB_ORDERED 0
#define CLSCAN_GEN_SEGMENTS 2
#define CLSCAN_GEN_SEG int
typedef struct clscan_seg_pair { int v; uint f; } clscan_seg_pair;
clscan_seg_pair clscan_seg_make(const int v, const uint f)
{
    clscan_seg_pair r;
    r.v = v;
    r.f = f;
    return r;
}
clscan_seg_pair clscan_user_op(const clscan_seg_pair a, const clscan_seg_pair b)
{
    return clscan_seg_make(b.f ? b.v : clscan_user_value_op(a.v, b.v), add_sat(a.f, b.f));
}
clscan_seg_pair clscan_user_identity(void)
{
    return clscan_seg_make(clscan_user_value_identity(), 0u);
}
typedef char clscan_pair_size_differs_from_host[sizeof(clscan_seg_pair) == CLSCAN_T_BYTES ? 1 : -1];
#define CLSCAN_T clscan_seg_pair
#define CLSCAN_GEN_VEC_OP(a, b) (as_int8(as_uint8(a) * as_uint8(b)))
#define CLSCAN_GEN_VEC_MASK int8
/* clscan_common.cl - the knobs every libclscan kernel is specialised on, each with a
 * default so the file compiles on its own: element type and operator (by number, so a
 * user's build options need only -D NAME=NUMBER), tile shape, and bank padding. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_COMMON_CL
#define CLSCAN_COMMON_CL

/* Pastes two tokens after expanding them: CLSCAN_CAT(CLSCAN_T, 4) names the vector type
 * of four elements. */
#define CLSCAN_CAT_(a, b) a##b
#define CLSCAN_CAT(a, b) CLSCAN_CAT_(a, b)

/* Type and operator numbers: the values of clscan_type and clscan_op in clscan.h. */
#define CLSCAN_INT32 0
#define CLSCAN_UINT32 1
#define CLSCAN_INT64 2
#define CLSCAN_UINT64 3
#define CLSCAN_FLOAT 4
#define CLSCAN_DOUBLE 5
#define CLSCAN_OP_ADD 0
#define CLSCAN_OP_MUL 1
#define CLSCAN_OP_MIN 2
#define CLSCAN_OP_MAX 3
#define CLSCAN_OP_AND 4
#define CLSCAN_OP_OR 5
#define CLSCAN_OP_XOR 6
/* General scans (the host's general.c): a type and an operator given as OpenCL C. With
 * CLSCAN_TYPE_CUSTOM, CLSCAN_T and CLSCAN_T_BYTES are defined before this file; with
 * CLSCAN_OP_CUSTOM, so are the functions clscan_user_op(a, b) and clscan_user_identity(). */
#define CLSCAN_TYPE_CUSTOM 99
#define CLSCAN_OP_CUSTOM 99
/* Run-length encoding's compaction (cl/clscan_select_tile.cl, CLSCAN_SEL_RUNS), on
 * CLSCAN_UINT64 only: a count of run heads in the low 32 bits, added, and one past the
 * last head's index in the high 32 bits, the larger kept. */
#define CLSCAN_OP_RUNS 98

#ifndef CLSCAN_TYPE_ID
#define CLSCAN_TYPE_ID CLSCAN_INT32
#endif
#ifndef CLSCAN_OP_ID
#define CLSCAN_OP_ID CLSCAN_OP_ADD
#endif

/* CLSCAN_T is the element type; CLSCAN_U its unsigned twin of the same size, in which
 * signed integers add and multiply (signed overflow is undefined in OpenCL C, as in C,
 * and the library promises two's complement wrapping). */
#if CLSCAN_TYPE_ID == CLSCAN_INT32
#define CLSCAN_T int
#define CLSCAN_AS_T(x) as_int(x)
#define CLSCAN_AS_U(x) as_uint(x)
#define CLSCAN_T_MIN INT_MIN
#define CLSCAN_T_MAX INT_MAX
#elif CLSCAN_TYPE_ID == CLSCAN_UINT32
#define CLSCAN_T uint
#define CLSCAN_AS_T(x) (x)
#define CLSCAN_AS_U(x) (x)
#define CLSCAN_T_MIN 0u
#define CLSCAN_T_MAX UINT_MAX
#elif CLSCAN_TYPE_ID == CLSCAN_INT64
#define CLSCAN_T long
#define CLSCAN_AS_T(x) as_long(x)
#define CLSCAN_AS_U(x) as_ulong(x)
#define CLSCAN_T_MIN LONG_MIN
#define CLSCAN_T_MAX LONG_MAX
#elif CLSCAN_TYPE_ID == CLSCAN_UINT64
#define CLSCAN_T ulong
#define CLSCAN_AS_T(x) (x)
#define CLSCAN_AS_U(x) (x)
#define CLSCAN_T_MIN 0ul
#define CLSCAN_T_MAX ULONG_MAX
#elif CLSCAN_TYPE_ID == CLSCAN_FLOAT
#define CLSCAN_T float
#define CLSCAN_IS_FLOAT 1
#define CLSCAN_T_MIN (-INFINITY)
#define CLSCAN_T_MAX INFINITY
#elif CLSCAN_TYPE_ID == CLSCAN_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CLSCAN_T double
#define CLSCAN_IS_FLOAT 1
#define CLSCAN_T_MIN (-(double)INFINITY)
#define CLSCAN_T_MAX ((double)INFINITY)
#elif CLSCAN_TYPE_ID == CLSCAN_TYPE_CUSTOM
#if !defined(CLSCAN_T) || !defined(CLSCAN_T_BYTES)
#error "CLSCAN_TYPE_CUSTOM needs CLSCAN_T and CLSCAN_T_BYTES defined first"
#endif
#else
#error "CLSCAN_TYPE_ID must be one of CLSCAN_INT32 .. CLSCAN_DOUBLE (0..5)"
#endif
#ifndef CLSCAN_IS_FLOAT
#define CLSCAN_IS_FLOAT 0
#endif
#if CLSCAN_TYPE_ID == CLSCAN_TYPE_CUSTOM
/* (CLSCAN_T_BYTES given: an upper bound of sizeof(CLSCAN_T), a multiple of 4.) */
#elif CLSCAN_TYPE_ID == CLSCAN_INT64 || CLSCAN_TYPE_ID == CLSCAN_UINT64 || \
    CLSCAN_TYPE_ID == CLSCAN_DOUBLE
#undef CLSCAN_T_BYTES
#define CLSCAN_T_BYTES 8
#else
#undef CLSCAN_T_BYTES
#define CLSCAN_T_BYTES 4
#endif

/* CLSCAN_OP(a, b) combines two elements, a on the left; CLSCAN_IDENTITY is the
 * operator's identity. CLSCAN_OP may evaluate each argument more than once (integer
 * MIN is a ?: expression): pass it plain values, never calls. */
#if CLSCAN_OP_ID == CLSCAN_OP_CUSTOM
/* Functions, so each argument is evaluated once. */
#define CLSCAN_OP(a, b) clscan_user_op((a), (b))
#define CLSCAN_IDENTITY clscan_user_identity()
#elif CLSCAN_TYPE_ID == CLSCAN_TYPE_CUSTOM
#error "a CLSCAN_TYPE_CUSTOM type needs CLSCAN_OP_CUSTOM"
#elif CLSCAN_OP_ID == CLSCAN_OP_RUNS
#if CLSCAN_TYPE_ID != CLSCAN_UINT64
#error "CLSCAN_OP_RUNS needs CLSCAN_UINT64"
#endif
/* (Commutative as well as associative, like the built-in operators.) */
ulong clscan_runs_op(ulong a, ulong b)
{
    return upsample(max((uint)(a >> 32), (uint)(b >> 32)), (uint)a + (uint)b);
}
#define CLSCAN_OP(a, b) clscan_runs_op((a), (b))
#define CLSCAN_IDENTITY 0UL
#elif CLSCAN_OP_ID == CLSCAN_OP_ADD || CLSCAN_OP_ID == CLSCAN_OP_MUL
#if CLSCAN_OP_ID == CLSCAN_OP_ADD
#define CLSCAN_ARITH_(a, b) ((a) + (b))
#define CLSCAN_IDENTITY ((CLSCAN_T)0)
#else
#define CLSCAN_ARITH_(a, b) ((a) * (b))
#define CLSCAN_IDENTITY ((CLSCAN_T)1)
#endif
#if CLSCAN_IS_FLOAT
#define CLSCAN_OP(a, b) CLSCAN_ARITH_(a, b)
#else
#define CLSCAN_OP(a, b) CLSCAN_AS_T(CLSCAN_ARITH_(CLSCAN_AS_U(a), CLSCAN_AS_U(b)))
#endif
#elif CLSCAN_OP_ID == CLSCAN_OP_MIN || CLSCAN_OP_ID == CLSCAN_OP_MAX
/* Floats use fmin/fmax, which ignore a NaN operand. */
#if CLSCAN_OP_ID == CLSCAN_OP_MIN
#define CLSCAN_IDENTITY ((CLSCAN_T)CLSCAN_T_MAX)
#if CLSCAN_IS_FLOAT
#define CLSCAN_OP(a, b) fmin((a), (b))
#else
#define CLSCAN_OP(a, b) ((a) < (b) ? (a) : (b))
#endif
#else
#define CLSCAN_IDENTITY ((CLSCAN_T)CLSCAN_T_MIN)
#if CLSCAN_IS_FLOAT
#define CLSCAN_OP(a, b) fmax((a), (b))
#else
#define CLSCAN_OP(a, b) ((a) > (b) ? (a) : (b))
#endif
#endif
#elif CLSCAN_IS_FLOAT
#error "bitwise operators (AND, OR, XOR) need an integer CLSCAN_TYPE_ID"
#elif CLSCAN_OP_ID == CLSCAN_OP_AND
#define CLSCAN_OP(a, b) ((a) & (b))
#define CLSCAN_IDENTITY ((CLSCAN_T)~(CLSCAN_T)0)
#elif CLSCAN_OP_ID == CLSCAN_OP_OR
#define CLSCAN_OP(a, b) ((a) | (b))
#define CLSCAN_IDENTITY ((CLSCAN_T)0)
#elif CLSCAN_OP_ID == CLSCAN_OP_XOR
#define CLSCAN_OP(a, b) ((a) ^ (b))
#define CLSCAN_IDENTITY ((CLSCAN_T)0)
#else
#error "CLSCAN_OP_ID must be CLSCAN_OP_ADD .. CLSCAN_OP_XOR (0..6), _RUNS or _CUSTOM"
#endif

/* Work-items per work-group (a power of two) and elements each one owns. */
#ifndef CLSCAN_WG_SIZE
#define CLSCAN_WG_SIZE 128
#endif
#ifndef CLSCAN_ITEMS
#define CLSCAN_ITEMS 4
#endif
#define CLSCAN_TILE (CLSCAN_WG_SIZE * CLSCAN_ITEMS)

/* Whether the look-back combines tile totals in a fixed order, so that results are the
 * same bits whatever the timing: floating-point types, whose operators round (and whose
 * fmin/fmax may return either zero of two). Integer operators are associative and
 * commutative, so any order gives the same bits: they keep the walk that combines
 * totals as it finds them. (In a fixed order a tile combines all the totals above its
 * anchor after finding it, on the path to publishing its own prefix; that fold is
 * unrolled, since a plain loop of dependent local reads made the H100's float scan 46%
 * slower at 2^28; docs/PERFORMANCE.md.) A general scan's prelude defines it for its own
 * operator. */
#ifndef CLSCAN_LB_ORDERED
#if CLSCAN_TYPE_ID == CLSCAN_FLOAT || CLSCAN_TYPE_ID == CLSCAN_DOUBLE
#define CLSCAN_LB_ORDERED 1
#else
#define CLSCAN_LB_ORDERED 0
#endif
#endif

/* Put before a loop that folds a tile's elements one after another where the order must
 * hold: the owner's total and a look-back fallback's reduction of the same tile must
 * have the same bits (CLSCAN_LB_ORDERED). It keeps the compiler from vectorising the
 * loop, which Intel's OpenCL CPU compiler (2026.2) does to a float sum with the additions
 * reassociated, although no fast-math option was given: the owner's loop and the
 * fallback's then summed in different orders (docs/IMPLEMENTATION-ISSUES.md). Only with
 * one work-item a group (the CPU shapes), where a work-item's loop is what gets
 * vectorised; other shapes' kernels are left as they were. */
#if CLSCAN_LB_ORDERED && CLSCAN_WG_SIZE == 1 && defined(__clang__)
#define CLSCAN_IN_ORDER _Pragma("clang loop vectorize(disable)")
#else
#define CLSCAN_IN_ORDER
#endif

/* CLSCAN_STREAM_STORE(p, v): *p = v past the caches where the compiler can (clang's
 * __builtin_nontemporal_store, which CPU compilers make a streaming store): a CPU's
 * ordinary store first reads the line it writes. Only with one work-item a group (the
 * CPU shapes), on library types. A loop that streams must be a function of its own
 * beside its ordinary twin (CLSCAN_PLAIN_STORE), each called on its side of the branch:
 * clang 14 and 15 merged the two stores of `if (stream) streamed; else plain;` into an
 * ordinary one, in a loop and also where one function took `stream` as a constant
 * argument at two calls (docs/PERFORMANCE.md, twenty-sixth session). */
#if CLSCAN_WG_SIZE == 1 && defined(__clang__) && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define CLSCAN_STREAM_STORE(p, v) __builtin_nontemporal_store((v), (p))
#endif
#endif
#ifndef CLSCAN_STREAM_STORE
#define CLSCAN_STREAM_STORE(p, v) (*(p) = (v))
#endif
#define CLSCAN_PLAIN_STORE(p, v) (*(p) = (v))

/* CLSCAN_PREFETCH(p): asks for the cache line at p ahead of its use, with clang's
 * __builtin_prefetch (a hint: no fault, nothing read into the program), where the host
 * defines CLSCAN_CPU_PREFETCH: one work-item groups on the CPU runtimes known to compile
 * it (PoCL, Intel's; Mesa's rusticl translates to SPIR-V, whose translator aborted the
 * process on it: docs/IMPLEMENTATION-ISSUES.md). For loops that walk a tile in steps long
 * enough that the processor's own prefetching falls behind (the segmented vector path,
 * cl/clscan_general_tile.cl; in the plain scan's short loops it cost 1.05-1.4x,
 * docs/PERFORMANCE.md, twenty-seventh session). */
#ifndef CLSCAN_CPU_PREFETCH
#define CLSCAN_CPU_PREFETCH 0
#endif
#if CLSCAN_CPU_PREFETCH && defined(__clang__) && defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#define CLSCAN_PREFETCH(p) __builtin_prefetch(p)
#endif
#endif
#ifndef CLSCAN_PREFETCH
#define CLSCAN_PREFETCH(p) ((void)0)
#endif

/* Bank-conflict padding: one extra slot after every 2^CLSCAN_LOG_BANKS elements, so
 * that work-items walking local memory with a power-of-two stride land in different
 * banks. 0 turns padding off (devices whose local memory is ordinary memory). */
#ifndef CLSCAN_LOG_BANKS
#define CLSCAN_LOG_BANKS 0
#endif
#if CLSCAN_LOG_BANKS > 0
#define CLSCAN_PAD(i) ((i) + ((i) >> CLSCAN_LOG_BANKS))
#define CLSCAN_PADDED(n) ((n) + ((n) >> CLSCAN_LOG_BANKS))
#else
#define CLSCAN_PAD(i) (i)
#define CLSCAN_PADDED(n) (n)
#endif

#endif /* CLSCAN_COMMON_CL */
/* clscan_clear.cl - clscan_clear_words, the kernel that zeroes a range of a buffer where
 * the library needs zeros it will read back (the single-pass look-back's status words,
 * the one-sweep sort's counts). A kernel rather than clEnqueueFillBuffer: Oclgrind 21.10
 * counts filled memory as uninitialised (docs/IMPLEMENTATION-ISSUES.md). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_CLEAR_CL
#define CLSCAN_CLEAR_CL

/* words[0, n) = 0, by any number of work-items of any group size. */
__kernel void clscan_clear_words(__global uint *words, ulong n)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) words[i] = 0u;
}

#endif /* CLSCAN_CLEAR_CL */
/* clscan_subgroup.cl - sub-group scans: one interface (shuffle up, inclusive and
 * exclusive scan) over four implementations, chosen by CLSCAN_SG_IMPL: a local-memory
 * Kogge-Stone over emulated sub-groups of consecutive work-items (any device), the
 * cl_khr_subgroups built-ins and shuffles, NVIDIA's shfl.sync in inline PTX, and
 * cl_intel_subgroups shuffles. None of them relies on lock-step execution. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_SUBGROUP_CL
#define CLSCAN_SUBGROUP_CL
#ifndef CLSCAN_COMMON_CL
#include "clscan_common.cl"
#endif

#define CLSCAN_SG_IMPL_LOCAL 0  /* local memory and work-group barriers */
#define CLSCAN_SG_IMPL_KHR 1    /* cl_khr_subgroups or OpenCL 3.0 __opencl_c_subgroups */
#define CLSCAN_SG_IMPL_NVIDIA 2 /* inline PTX shfl.sync.up.b32 (NVIDIA's OpenCL only) */
#define CLSCAN_SG_IMPL_INTEL 3  /* intel_sub_group_shuffle_up (cl_intel_subgroups) */

#ifndef CLSCAN_SG_IMPL
#define CLSCAN_SG_IMPL CLSCAN_SG_IMPL_LOCAL
#endif
/* Sub-group width, a power of two. The native implementations need the device's real
 * width (the library queries it); the local one uses it as given, capped at the
 * work-group size. */
#ifndef CLSCAN_SG_WIDTH
#define CLSCAN_SG_WIDTH 32
#endif
/* 1 where cl_intel_required_subgroup_size lets kernels fix their width (Intel only). */
#ifndef CLSCAN_SG_REQUIRED_SIZE
#define CLSCAN_SG_REQUIRED_SIZE 0
#endif
/* 1 where cl_khr_subgroup_shuffle_relative is present (KHR implementation only). */
#ifndef CLSCAN_SG_SHUFFLE_RELATIVE
#define CLSCAN_SG_SHUFFLE_RELATIVE 0
#endif

#if CLSCAN_SG_WIDTH > CLSCAN_WG_SIZE
#if CLSCAN_SG_IMPL != CLSCAN_SG_IMPL_LOCAL
#error "a native sub-group is wider than the work-group: use CLSCAN_SG_IMPL_LOCAL"
#endif
#define CLSCAN_SG_SIZE CLSCAN_WG_SIZE
#else
#define CLSCAN_SG_SIZE CLSCAN_SG_WIDTH
#endif
/* Sub-groups per work-group (work-groups are one-dimensional, sizes powers of two). */
#define CLSCAN_SG_COUNT (CLSCAN_WG_SIZE / CLSCAN_SG_SIZE)

#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_KHR
#if !defined(__opencl_c_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#if CLSCAN_SG_SHUFFLE_RELATIVE
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle_relative : enable
#endif
#elif CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_INTEL
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#endif

/* Whether shuffles go through local memory: always for the local implementation; for
 * KHR when the relative shuffles are missing (MUL, AND, OR, XOR and float MIN/MAX have
 * no built-in scan and are then done in local memory with the real sub-group ids). */
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_LOCAL || \
    (CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_KHR && !CLSCAN_SG_SHUFFLE_RELATIVE)
#define CLSCAN_SG_SHUFFLE_IN_LOCAL 1
/* Local scratch (elements of CLSCAN_T) a sub-group function needs: one per work-item. */
#define CLSCAN_SG_SCRATCH_USED CLSCAN_WG_SIZE
#else
#define CLSCAN_SG_SHUFFLE_IN_LOCAL 0
#define CLSCAN_SG_SCRATCH_USED 0
#endif
/* For declaring the scratch array (OpenCL C has no empty arrays). */
#define CLSCAN_SG_SCRATCH (CLSCAN_SG_SCRATCH_USED > 0 ? CLSCAN_SG_SCRATCH_USED : 1)

/* The built-in scans exist for ADD, and for MIN/MAX of integers (float MIN/MAX go
 * through shuffles so that NaN is ignored as fmin/fmax do). */
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_KHR && \
    (CLSCAN_OP_ID == CLSCAN_OP_ADD || \
     (!CLSCAN_IS_FLOAT && (CLSCAN_OP_ID == CLSCAN_OP_MIN || CLSCAN_OP_ID == CLSCAN_OP_MAX)))
#define CLSCAN_SG_BUILTIN_SCAN 1
#else
#define CLSCAN_SG_BUILTIN_SCAN 0
#endif

/* This work-item's lane in its sub-group, and its sub-group's index. */
uint clscan_sg_lane(void)
{
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_KHR || CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_INTEL
    return get_sub_group_local_id();
#else
    /* NVIDIA forms warps from consecutive work-items of a one-dimensional group. */
    return (uint)get_local_id(0) & (CLSCAN_SG_SIZE - 1);
#endif
}

uint clscan_sg_id(void)
{
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_KHR || CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_INTEL
    return get_sub_group_id();
#else
    return (uint)get_local_id(0) / CLSCAN_SG_SIZE;
#endif
}

#define CLSCAN_AS_(t, x) as_##t(x)
#define CLSCAN_AS(t, x) CLSCAN_AS_(t, x)

#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_NVIDIA
/* Lane i receives x from lane i - delta (lanes below delta keep their own x). The
 * whole warp must be converged here: every caller is in uniform control flow. */
uint clscan_sg_shuffle_up_u32(uint x, uint delta)
{
    uint r;
    asm("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
    return r;
}
/* Bit l set where lane l's pred is nonzero, for every lane of the converged warp. */
uint clscan_sg_ballot(uint pred)
{
    uint r;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
                 : "=r"(r)
                 : "r"(pred));
    return r;
}
#define CLSCAN_SG_BALLOT 1
#elif CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_INTEL
uint clscan_sg_shuffle_up_u32(uint x, uint delta)
{
    return intel_sub_group_shuffle_up(x, x, delta);
}
/* CLSCAN_SG_KHR_BALLOT 1 (the host's, where the device has cl_khr_subgroup_ballot and
 * the sub-groups are 32 lanes wide, as NVIDIA's warps): the same ballot, whose first
 * word then holds every lane. (So CPUs with Intel's runtime run the ballot paths too.) */
#if defined(CLSCAN_SG_KHR_BALLOT) && CLSCAN_SG_KHR_BALLOT && CLSCAN_SG_SIZE == 32
#pragma OPENCL EXTENSION cl_khr_subgroup_ballot : enable
uint clscan_sg_ballot(uint pred)
{
    return sub_group_ballot(pred != 0).x;
}
#define CLSCAN_SG_BALLOT 1
#endif
#endif

/* CLSCAN_SG_BALLOT: 1 where clscan_sg_ballot exists (NVIDIA's warps, and Intel's
 * sub-groups of 32 with cl_khr_subgroup_ballot: sub-groups of at most 32 lanes). */
#ifndef CLSCAN_SG_BALLOT
#define CLSCAN_SG_BALLOT 0
#endif

/* The highest lane of this sub-group whose pred is nonzero, or -1 where none is. Native
 * sub-groups only (no barriers: one sub-group may call it alone, all its lanes
 * together). */
#if CLSCAN_SG_IMPL != CLSCAN_SG_IMPL_LOCAL
int clscan_sg_highest(uint pred)
{
#if CLSCAN_SG_BALLOT
    return 31 - (int)clz(clscan_sg_ballot(pred));
#else
    return sub_group_reduce_max(pred ? (int)clscan_sg_lane() : -1);
#endif
}

/* Waits for the lanes of this sub-group, and orders their local memory accesses before
 * it against those after it (one sub-group may call it alone, all its lanes together:
 * NVIDIA's warps need not run in step). */
void clscan_sg_sync_local(void)
{
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_NVIDIA
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
#else
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
#endif
}
#endif

/* Returns x of lane (lane - delta) of this sub-group; what lanes below delta get is
 * unspecified (callers ignore it). Called by every work-item of the work-group in
 * uniform control flow (the local implementations contain barriers). */
CLSCAN_T clscan_sg_shuffle_up(CLSCAN_T x, uint delta, __local CLSCAN_T *scratch)
{
#if CLSCAN_SG_SHUFFLE_IN_LOCAL
    const uint lane = clscan_sg_lane();
    const uint slot = clscan_sg_id() * CLSCAN_SG_SIZE + lane;
    scratch[slot] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T y = lane >= delta ? scratch[slot - delta] : x;
    barrier(CLK_LOCAL_MEM_FENCE); /* read before the next call writes */
    return y;
#elif CLSCAN_TYPE_ID == CLSCAN_TYPE_CUSTOM
    /* A user's struct (or a segmented scan's pair) travels as its 32-bit words. */
    (void)scratch;
    union {
        CLSCAN_T v;
        uint w[sizeof(CLSCAN_T) / 4];
    } u;
    u.v = x;
#pragma unroll
    for (uint p = 0; p < sizeof(CLSCAN_T) / 4; ++p)
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_KHR
        u.w[p] = sub_group_shuffle_up(u.w[p], delta);
#else
        u.w[p] = clscan_sg_shuffle_up_u32(u.w[p], delta);
#endif
    return u.v;
#elif CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_KHR
    (void)scratch;
    return sub_group_shuffle_up(x, delta);
#else
    (void)scratch;
#if CLSCAN_T_BYTES == 4
    return CLSCAN_AS(CLSCAN_T, clscan_sg_shuffle_up_u32(as_uint(x), delta));
#else
    /* 64-bit values travel as two 32-bit halves. */
    uint2 v = as_uint2(x);
    v.x = clscan_sg_shuffle_up_u32(v.x, delta);
    v.y = clscan_sg_shuffle_up_u32(v.y, delta);
    return CLSCAN_AS(CLSCAN_T, v);
#endif
#endif
}

/* Inclusive scan across the sub-group, in lane order: lane i gets x[0] op ... op x[i].
 * Same calling rule as clscan_sg_shuffle_up. */
CLSCAN_T clscan_sg_scan_inclusive(CLSCAN_T x, __local CLSCAN_T *scratch)
{
#if CLSCAN_SG_BUILTIN_SCAN
    (void)scratch;
#if CLSCAN_OP_ID == CLSCAN_OP_ADD && !CLSCAN_IS_FLOAT
    return CLSCAN_AS_T(sub_group_scan_inclusive_add(CLSCAN_AS_U(x)));
#elif CLSCAN_OP_ID == CLSCAN_OP_ADD
    return sub_group_scan_inclusive_add(x);
#elif CLSCAN_OP_ID == CLSCAN_OP_MIN
    return sub_group_scan_inclusive_min(x);
#else
    return sub_group_scan_inclusive_max(x);
#endif
#else
    /* Kogge-Stone: after the step with distance d, lane i holds the combination of
     * lanes max(0, i - 2d + 1) .. i. */
    const uint lane = clscan_sg_lane();
    for (uint d = 1; d < CLSCAN_SG_SIZE; d <<= 1) {
        const CLSCAN_T y = clscan_sg_shuffle_up(x, d, scratch);
        if (lane >= d) x = CLSCAN_OP(y, x);
    }
    return x;
#endif
}

/* Exclusive scan across the sub-group: lane 0 gets the identity. */
CLSCAN_T clscan_sg_scan_exclusive(CLSCAN_T x, __local CLSCAN_T *scratch)
{
#if CLSCAN_SG_BUILTIN_SCAN
    (void)scratch;
#if CLSCAN_OP_ID == CLSCAN_OP_ADD && !CLSCAN_IS_FLOAT
    return CLSCAN_AS_T(sub_group_scan_exclusive_add(CLSCAN_AS_U(x)));
#elif CLSCAN_OP_ID == CLSCAN_OP_ADD
    return sub_group_scan_exclusive_add(x);
#elif CLSCAN_OP_ID == CLSCAN_OP_MIN
    return sub_group_scan_exclusive_min(x);
#else
    return sub_group_scan_exclusive_max(x);
#endif
#else
    const CLSCAN_T inclusive = clscan_sg_scan_inclusive(x, scratch);
    const CLSCAN_T shifted = clscan_sg_shuffle_up(inclusive, 1, scratch);
    return clscan_sg_lane() == 0 ? CLSCAN_IDENTITY : shifted;
#endif
}

#endif /* CLSCAN_SUBGROUP_CL */
/* clscan_workgroup.cl - work-group scans, chosen by CLSCAN_WG_ALGO: a padded Blelloch
 * up/down-sweep, or sub-group scans whose totals one sub-group scans before all add
 * back. Two levels of interface: one value per work-item (clscan_wg_scan_value), and a
 * tile of CLSCAN_TILE elements in local memory (load, scan or reduce, store), where
 * each work-item scans its CLSCAN_ITEMS consecutive elements serially around a scan of
 * the work-items' totals. Every function is called by the whole work-group in uniform
 * control flow (they contain barriers). Combination order is always left to right. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_WORKGROUP_CL
#define CLSCAN_WORKGROUP_CL
#ifndef CLSCAN_SUBGROUP_CL
#include "clscan_subgroup.cl"
#endif

#define CLSCAN_WG_ALGO_BLELLOCH 0
#define CLSCAN_WG_ALGO_SUBGROUP 1
#ifndef CLSCAN_WG_ALGO
#define CLSCAN_WG_ALGO CLSCAN_WG_ALGO_BLELLOCH
#endif

/* Local scratch (elements of CLSCAN_T) for the value-level functions, and for the
 * tile-level ones a tile of CLSCAN_WG_TILE_LOCAL elements besides. */
#if CLSCAN_WG_ALGO == CLSCAN_WG_ALGO_BLELLOCH
#define CLSCAN_WG_SCRATCH CLSCAN_PADDED(CLSCAN_WG_SIZE)
#elif CLSCAN_WG_ALGO == CLSCAN_WG_ALGO_SUBGROUP
/* Sub-group shuffle scratch, then the sub-group totals and their exclusive prefixes. */
#define CLSCAN_WG_SCRATCH (CLSCAN_SG_SCRATCH_USED + 2 * CLSCAN_SG_COUNT)
#else
#error "CLSCAN_WG_ALGO must be CLSCAN_WG_ALGO_BLELLOCH (0) or CLSCAN_WG_ALGO_SUBGROUP (1)"
#endif
#define CLSCAN_WG_TILE_LOCAL CLSCAN_PADDED(CLSCAN_TILE)

/* Attributes for every kernel that calls these functions (put after __kernel): the work-group size, and where the device lets a kernel
 * fix its sub-group size (cl_intel_required_subgroup_size), the width the sub-group
 * layer was built for. */
#if CLSCAN_SG_IMPL == CLSCAN_SG_IMPL_INTEL && CLSCAN_SG_REQUIRED_SIZE
#define CLSCAN_KERNEL_ATTRIBUTES                                 \
    __attribute__((reqd_work_group_size(CLSCAN_WG_SIZE, 1, 1))) \
    __attribute__((intel_reqd_sub_group_size(CLSCAN_SG_WIDTH)))
#else
#define CLSCAN_KERNEL_ATTRIBUTES __attribute__((reqd_work_group_size(CLSCAN_WG_SIZE, 1, 1)))
#endif

#if CLSCAN_WG_ALGO == CLSCAN_WG_ALGO_BLELLOCH

/* Blelloch up-sweep over sums[0, CLSCAN_WG_SIZE) (padded), x being this work-item's
 * value; leaves the total in the last slot. */
void clscan_wg_upsweep_(CLSCAN_T x, __local CLSCAN_T *sums)
{
    const uint lid = get_local_id(0);
    sums[CLSCAN_PAD(lid)] = x;
    /* (Both sweeps stay loops: unrolled, with a barrier in every copy, they make Intel's
     * CPU compiler 2026.2 read freed memory and crash at times, docs/IMPLEMENTATION-ISSUES.md;
     * a step costs a barrier either way.) */
#pragma unroll 1
    for (uint d = 1; d < CLSCAN_WG_SIZE; d <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint i = (lid + 1) * 2 * d - 1;
        if (i < CLSCAN_WG_SIZE)
            sums[CLSCAN_PAD(i)] = CLSCAN_OP(sums[CLSCAN_PAD(i - d)], sums[CLSCAN_PAD(i)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The combination of every work-item's x, returned to all. Ends with a barrier, so
 * scratch may be reused at once. */
CLSCAN_T clscan_wg_reduce_value(CLSCAN_T x, __local CLSCAN_T *scratch)
{
    clscan_wg_upsweep_(x, scratch);
    const CLSCAN_T total = scratch[CLSCAN_PAD(CLSCAN_WG_SIZE - 1)];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* Scan of one value per work-item in local-id order: returns the exclusive prefix
 * (the identity for work-item 0), or the inclusive one if `inclusive`; *total gets the
 * group's total. Ends with a barrier, so scratch may be reused at once. */
CLSCAN_T clscan_wg_scan_value(CLSCAN_T x, int inclusive, __local CLSCAN_T *scratch,
                              CLSCAN_T *total)
{
    const uint lid = get_local_id(0);
    clscan_wg_upsweep_(x, scratch);
    *total = scratch[CLSCAN_PAD(CLSCAN_WG_SIZE - 1)];
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read the total */
    if (lid == 0) scratch[CLSCAN_PAD(CLSCAN_WG_SIZE - 1)] = CLSCAN_IDENTITY;
    /* Down-sweep: a node's left child gets the node's prefix, its right child that
     * prefix combined with the left subtree's total. */
#pragma unroll 1
    for (uint d = CLSCAN_WG_SIZE >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint i = (lid + 1) * 2 * d - 1;
        if (i < CLSCAN_WG_SIZE) {
            const CLSCAN_T left = scratch[CLSCAN_PAD(i - d)];
            scratch[CLSCAN_PAD(i - d)] = scratch[CLSCAN_PAD(i)];
            scratch[CLSCAN_PAD(i)] = CLSCAN_OP(scratch[CLSCAN_PAD(i)], left);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T prefix = scratch[CLSCAN_PAD(lid)];
    barrier(CLK_LOCAL_MEM_FENCE);
    return inclusive ? CLSCAN_OP(prefix, x) : prefix;
}

#else /* CLSCAN_WG_ALGO_SUBGROUP */

CLSCAN_T clscan_wg_reduce_value(CLSCAN_T x, __local CLSCAN_T *scratch)
{
    __local CLSCAN_T *totals = scratch + CLSCAN_SG_SCRATCH_USED;
    const CLSCAN_T inclusive = clscan_sg_scan_inclusive(x, scratch);
    if (clscan_sg_lane() == CLSCAN_SG_SIZE - 1) totals[clscan_sg_id()] = inclusive;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Every work-item reads the few totals (one address per step: a broadcast). */
    CLSCAN_T total = totals[0];
    for (uint s = 1; s < CLSCAN_SG_COUNT; ++s) total = CLSCAN_OP(total, totals[s]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

CLSCAN_T clscan_wg_scan_value(CLSCAN_T x, int inclusive, __local CLSCAN_T *scratch,
                              CLSCAN_T *total)
{
    __local CLSCAN_T *totals = scratch + CLSCAN_SG_SCRATCH_USED;
    __local CLSCAN_T *prefixes = totals + CLSCAN_SG_COUNT;
    const uint lane = clscan_sg_lane(), sg = clscan_sg_id();
    const CLSCAN_T incl = clscan_sg_scan_inclusive(x, scratch);
    const CLSCAN_T shifted = clscan_sg_shuffle_up(incl, 1, scratch);
    const CLSCAN_T mine = inclusive ? incl : (lane == 0 ? CLSCAN_IDENTITY : shifted);
    if (lane == CLSCAN_SG_SIZE - 1) totals[sg] = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_SG_COUNT == 1
    *total = totals[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return mine;
#else
    /* Sub-group 0 scans the totals, each lane R consecutive ones. With shuffles in
     * local memory every sub-group runs this scan (its barriers need the whole group)
     * and only sub-group 0 writes; with native shuffles the others skip it. */
#define CLSCAN_SG_R_ ((CLSCAN_SG_COUNT + CLSCAN_SG_SIZE - 1) / CLSCAN_SG_SIZE)
#if !CLSCAN_SG_SHUFFLE_IN_LOCAL
    if (sg == 0)
#endif
    {
        CLSCAN_T v = CLSCAN_IDENTITY;
        for (uint r = 0; r < CLSCAN_SG_R_; ++r) {
            const uint k = lane * CLSCAN_SG_R_ + r;
            if (k < CLSCAN_SG_COUNT) {
                const CLSCAN_T t = totals[k];
                v = CLSCAN_OP(v, t);
            }
        }
        CLSCAN_T p = clscan_sg_scan_exclusive(v, scratch);
        if (sg == 0)
            for (uint r = 0; r < CLSCAN_SG_R_; ++r) {
                const uint k = lane * CLSCAN_SG_R_ + r;
                if (k < CLSCAN_SG_COUNT) {
                    const CLSCAN_T t = totals[k];
                    prefixes[k] = p;
                    p = CLSCAN_OP(p, t);
                }
            }
    }
#undef CLSCAN_SG_R_
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T prefix = prefixes[sg];
    const CLSCAN_T last_prefix = prefixes[CLSCAN_SG_COUNT - 1];
    const CLSCAN_T last_total = totals[CLSCAN_SG_COUNT - 1];
    *total = CLSCAN_OP(last_prefix, last_total);
    barrier(CLK_LOCAL_MEM_FENCE);
    return CLSCAN_OP(prefix, mine);
#endif
}

#endif /* CLSCAN_WG_ALGO */

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

/* This work-item's CLSCAN_ITEMS consecutive tile elements, combined. */
CLSCAN_T clscan_wg_thread_reduce_(__local const CLSCAN_T *tile)
{
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_T acc = tile[CLSCAN_PAD(first)];
    for (uint j = 1; j < CLSCAN_ITEMS; ++j) {
        const CLSCAN_T x = tile[CLSCAN_PAD(first + j)];
        acc = CLSCAN_OP(acc, x);
    }
    return acc;
}

/* The combination of the whole tile, returned to every work-item. The tile must have
 * been written by the group before the call (the first barrier inside makes those
 * writes visible); it ends with a barrier. */
CLSCAN_T clscan_wg_reduce(__local const CLSCAN_T *tile, __local CLSCAN_T *scratch)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    const CLSCAN_T mine = clscan_wg_thread_reduce_(tile);
    return clscan_wg_reduce_value(mine, scratch);
}

/* Scans the tile in place (inclusive, or exclusive with the identity first) and
 * returns its total to every work-item. Same rules as clscan_wg_reduce. */
CLSCAN_T clscan_wg_scan(__local CLSCAN_T *tile, __local CLSCAN_T *scratch, int inclusive)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    const CLSCAN_T mine = clscan_wg_thread_reduce_(tile);
    CLSCAN_T total;
    CLSCAN_T run = clscan_wg_scan_value(mine, 0, scratch, &total);
    for (uint j = 0; j < CLSCAN_ITEMS; ++j) {
        const uint k = CLSCAN_PAD(first + j);
        const CLSCAN_T x = tile[k];
        const CLSCAN_T next = CLSCAN_OP(run, x);
        tile[k] = inclusive ? next : run;
        run = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* The same reduce and scan straight from global memory (CLSCAN_WG_DIRECT, general
 * programs): each work-item reads its CLSCAN_ITEMS consecutive elements itself, so the
 * kernel needs no tile in local memory (a general program's kernels in
 * cl/clscan_scan.cl scan only partials, and its local memory goes to its own tile).
 * Same combination order as the tile's, the identity past count included. */
#ifndef CLSCAN_WG_DIRECT
#define CLSCAN_WG_DIRECT 0
#endif
#if CLSCAN_WG_DIRECT
CLSCAN_T clscan_wg_direct_fold_(__global const CLSCAN_T *src, ulong base, uint count)
{
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_T acc = first < count ? src[base + first] : CLSCAN_IDENTITY;
    for (uint j = 1; j < CLSCAN_ITEMS; ++j) {
        const CLSCAN_T x = first + j < count ? src[base + first + j] : CLSCAN_IDENTITY;
        acc = CLSCAN_OP(acc, x);
    }
    return acc;
}

/* The combination of src[base, base + count), count <= CLSCAN_TILE, to every
 * work-item; ends with a barrier. */
CLSCAN_T clscan_wg_direct_reduce(__global const CLSCAN_T *src, ulong base, uint count,
                                 __local CLSCAN_T *scratch)
{
    return clscan_wg_reduce_value(clscan_wg_direct_fold_(src, base, count), scratch);
}

/* Where `store`: dst[dbase + k] = carry op the scan (inclusive, or exclusive) of
 * src[base, base + count) at k, for k < count. Returns the total to every work-item.
 * src and dst may be the same elements (each work-item writes only those it read). */
CLSCAN_T clscan_wg_direct_scan(__global const CLSCAN_T *src, ulong base, uint count,
                               __global CLSCAN_T *dst, ulong dbase, CLSCAN_T carry,
                               int inclusive, int store, __local CLSCAN_T *scratch)
{
    const uint first = get_local_id(0) * CLSCAN_ITEMS;
    CLSCAN_T total;
    CLSCAN_T run = clscan_wg_scan_value(clscan_wg_direct_fold_(src, base, count), 0, scratch,
                                        &total);
    for (uint j = 0; store && j < CLSCAN_ITEMS && first + j < count; ++j) {
        const CLSCAN_T x = src[base + first + j];
        const CLSCAN_T next = CLSCAN_OP(run, x);
        dst[dbase + first + j] = CLSCAN_OP(carry, inclusive ? next : run);
        run = next;
    }
    return total;
}
#endif

#endif /* CLSCAN_WORKGROUP_CL */
/* clscan_scan.cl - device-wide scans. Multi-level reduce-then-scan: each work-group
 * reduces a contiguous run of tiles to one partial, the partials are scanned (by one
 * work-group, or recursively by these kernels), then each work-group scans its tiles
 * again starting from its scanned partial; with one work-group the last kernel alone
 * does the whole scan. Single-pass (CLSCAN_SINGLE_PASS=1): one kernel, one tile per
 * work-group, each tile's prefix found by the decoupled look-back. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_SCAN_CL
#define CLSCAN_SCAN_CL
#ifndef CLSCAN_WORKGROUP_CL
#include "clscan_workgroup.cl"
#endif

/* Carry-in and carry-out (include/clscan.h: clscan_carry). A scan kernel's carry
 * arguments: the carry-in given by value (init_value) or in init_buf[init_off], the
 * range's total written to total_buf[total_off], as carry_flags says: */
#define CLSCAN_CARRY_IN 1u        /* there is a carry-in: the value before element 0 */
#define CLSCAN_CARRY_IN_BUFFER 2u /* ... read from init_buf, else init_value */
#define CLSCAN_CARRY_OUT 4u       /* write the total (after the carry-in) */
#define CLSCAN_CARRY_NO_DST 8u    /* reduce only: nothing written to dst */
#define CLSCAN_CARRY_SKIP_STORE 16u /* general scans with an output stage: the outputs run,
                                       dst is not written */
#define CLSCAN_CARRY_STREAM 32u /* single-pass scans of one work-item groups (CPUs): dst
                                   written past the caches (the host sets it
                                   where the call's input and output exceed the cache) */
/* The carry-in (meaningful only with CLSCAN_CARRY_IN; the buffer is read only when the
 * flag says so). */
#define CLSCAN_CARRY_START(flags, value, buf, off) \
    (((flags) & CLSCAN_CARRY_IN_BUFFER) ? (buf)[(off)] : (value))

/* Tiles [first, end) of this group, where the group owns tiles_per_group tiles. */
#define CLSCAN_GROUP_TILES(n, tiles_per_group, first, end)                    \
    const ulong ntiles_ = ((n) + CLSCAN_TILE - 1) / CLSCAN_TILE;              \
    const ulong first = (ulong)get_group_id(0) * (tiles_per_group);           \
    const ulong end = min(first + (tiles_per_group), ntiles_)

/* The reduce kernel's vectors (built-in operators on GPUs): 16 bytes, CLSCAN_RV_LANES
 * elements, folded lane by lane into as many accumulators. */
#ifndef CLSCAN_RV_UNROLL
#define CLSCAN_RV_UNROLL 4
#endif
#if CLSCAN_T_BYTES == 4
#define CLSCAN_RV_LANES 4
#define CLSCAN_RV_T CLSCAN_CAT(CLSCAN_T, 4)
#define CLSCAN_RV_FOLD(a, x)                                                    \
    do {                                                                        \
        a[0] = CLSCAN_OP(a[0], (x).s0);                                         \
        a[1] = CLSCAN_OP(a[1], (x).s1);                                         \
        a[2] = CLSCAN_OP(a[2], (x).s2);                                         \
        a[3] = CLSCAN_OP(a[3], (x).s3);                                         \
    } while (0)
#else
#define CLSCAN_RV_LANES 2
#define CLSCAN_RV_T CLSCAN_CAT(CLSCAN_T, 2)
#define CLSCAN_RV_FOLD(a, x)                                                    \
    do {                                                                        \
        a[0] = CLSCAN_OP(a[0], (x).s0);                                         \
        a[1] = CLSCAN_OP(a[1], (x).s1);                                         \
    } while (0)
#endif

/* partials[part_off + group] = the combination of the group's tiles of
 * src[src_off, src_off + n). */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_reduce_tiles(__global const CLSCAN_T *src, ulong src_off, ulong n,
                         ulong tiles_per_group, __global CLSCAN_T *partials, ulong part_off)
{
#if !CLSCAN_WG_DIRECT
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
#endif
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
#if CLSCAN_WG_DIRECT
    CLSCAN_T acc = CLSCAN_IDENTITY;
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const CLSCAN_T total = clscan_wg_direct_reduce(
            src + src_off, base, (uint)min((ulong)CLSCAN_TILE, n - base), scratch);
        acc = CLSCAN_OP(acc, total);
    }
#elif CLSCAN_WG_SIZE == 1
    /* One work-item per group (CPUs): the group's elements straight from global memory,
     * folded as four consecutive runs side by side, then the runs' totals left to right
     * (index order kept). One chain of operations waits on each result in turn; four
     * independent ones overlap (PoCL, float add at 2^22: 2.7 ms through the local tile
     * and one chain; docs/PERFORMANCE.md has the runs). */
    (void)tile;
    (void)scratch;
    const ulong lo = min(first * CLSCAN_TILE, n), hi = min(end * CLSCAN_TILE, n);
    const ulong len = (hi - lo + 3) / 4;
    __global const CLSCAN_T *p = src + src_off + lo;
    CLSCAN_T a0 = CLSCAN_IDENTITY, a1 = CLSCAN_IDENTITY, a2 = CLSCAN_IDENTITY,
             a3 = CLSCAN_IDENTITY;
    /* (Runs 0 to 2 have len elements where the range has 3 * len or more; the last the
     * rest.) */
    const ulong full = hi - lo > 3 * len ? min(len, hi - lo - 3 * len) : 0;
    for (ulong j = 0; j < full; ++j) { /* (every run has element j) */
        const CLSCAN_T x0 = p[j], x1 = p[len + j], x2 = p[2 * len + j], x3 = p[3 * len + j];
        a0 = CLSCAN_OP(a0, x0);
        a1 = CLSCAN_OP(a1, x1);
        a2 = CLSCAN_OP(a2, x2);
        a3 = CLSCAN_OP(a3, x3);
    }
    for (ulong j = full; j < len; ++j) { /* the last run is short: the rest one by one */
        if (j < hi - lo) a0 = CLSCAN_OP(a0, p[j]);
        if (len + j < hi - lo) a1 = CLSCAN_OP(a1, p[len + j]);
        if (2 * len + j < hi - lo) a2 = CLSCAN_OP(a2, p[2 * len + j]);
        if (3 * len + j < hi - lo) a3 = CLSCAN_OP(a3, p[3 * len + j]);
    }
    const CLSCAN_T h0 = CLSCAN_OP(a0, a1), h1 = CLSCAN_OP(h0, a2);
    const CLSCAN_T acc = CLSCAN_OP(h1, a3);
#elif CLSCAN_OP_ID != CLSCAN_OP_CUSTOM
    /* A built-in operator (every one is commutative): each work-item folds a strided
     * share of the group's elements straight from global memory into CLSCAN_RV_LANES
     * accumulators, CLSCAN_RV_UNROLL loads of 16 bytes in flight, no tile in local memory
     * and no barrier until the group's one reduction at the end. Still one fixed order
     * per (device, tuning, n), so the bits repeat. (H100, int32 at 2^24: 0.84x the
     * copy's time through the tile, 0.66x this way; 0.50x at 2^28, as fast as CUB;
     * docs/PERFORMANCE.md has the runs.) */
    (void)tile;
    const uint lid = get_local_id(0);
    const ulong lo = min(first * CLSCAN_TILE, n), hi = min(end * CLSCAN_TILE, n);
    __global const CLSCAN_T *p = src + src_off;
    CLSCAN_T a[CLSCAN_RV_LANES];
    for (uint c = 0; c < CLSCAN_RV_LANES; ++c) a[c] = CLSCAN_IDENTITY;
    ulong k = lo;
    /* Vectors where the range starts on a 16-byte boundary of the buffer (lo is a
     * multiple of the tile, so the offset alone decides, for every group alike). */
    if ((src_off & (CLSCAN_RV_LANES - 1)) == 0) {
        const ulong step = (ulong)CLSCAN_WG_SIZE * CLSCAN_RV_LANES * CLSCAN_RV_UNROLL;
        __global const CLSCAN_RV_T *v = (__global const CLSCAN_RV_T *)(p + lo);
        for (; hi - k >= step; k += step, v += step / CLSCAN_RV_LANES) {
            CLSCAN_RV_T x[CLSCAN_RV_UNROLL];
            for (uint u = 0; u < CLSCAN_RV_UNROLL; ++u) x[u] = v[u * CLSCAN_WG_SIZE + lid];
            for (uint u = 0; u < CLSCAN_RV_UNROLL; ++u) CLSCAN_RV_FOLD(a, x[u]);
        }
    }
    for (k += lid; k < hi; k += CLSCAN_WG_SIZE) a[0] = CLSCAN_OP(a[0], p[k]);
    for (uint c = 1; c < CLSCAN_RV_LANES; ++c) a[0] = CLSCAN_OP(a[0], a[c]);
    const CLSCAN_T acc = clscan_wg_reduce_value(a[0], scratch);
#else
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
#endif
    if (get_local_id(0) == 0) partials[part_off + get_group_id(0)] = acc;
}

/* Exclusive scan, in place, of partials[part_off, part_off + count) with count <=
 * CLSCAN_TILE: one work-group. (More partials are scanned by the three kernels
 * recursively.) */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_scan_partials(__global CLSCAN_T *partials, ulong part_off, uint count)
{
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
#if CLSCAN_WG_DIRECT
    clscan_wg_direct_scan(partials, part_off, count, partials, part_off, CLSCAN_IDENTITY, 0, 1,
                          scratch);
#else
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    clscan_wg_load(partials, part_off, count, tile);
    clscan_wg_scan(tile, scratch, 0);
    clscan_wg_store(partials, part_off, count, tile, CLSCAN_IDENTITY);
#endif
}

/* A group's starting value in the multi-level scan: its scanned partial (use_partials),
 * after the call's carry-in when there is one; group 0 starts from the carry-in itself
 * (its partial is the identity). */
CLSCAN_T clscan_group_start(int use_partials, __global const CLSCAN_T *partials,
                            ulong part_off, uint carry_flags, CLSCAN_T start)
{
    const ulong g = get_group_id(0);
    const CLSCAN_T p = use_partials ? partials[part_off + g] : CLSCAN_IDENTITY;
    if (!(carry_flags & CLSCAN_CARRY_IN)) return p;
    return use_partials && g != 0 ? CLSCAN_OP(start, p) : start;
}

/* Scans the group's tiles of src into dst, starting from partials[part_off + group]
 * when use_partials is set (else from the identity), after the carry-in; the group of
 * the last tile writes the total (carry arguments: see CLSCAN_CARRY_IN). Launched with
 * n == 0 and one group, it writes the total alone (the carry-in, or the identity). src
 * and dst may be the same range. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_scan_tiles(__global const CLSCAN_T *src, ulong src_off, __global CLSCAN_T *dst,
                       ulong dst_off, ulong n, ulong tiles_per_group,
                       __global const CLSCAN_T *partials, ulong part_off, int use_partials,
                       int inclusive, CLSCAN_T init_value, __global const CLSCAN_T *init_buf,
                       ulong init_off, __global CLSCAN_T *total_buf, ulong total_off,
                       uint carry_flags)
{
#if !CLSCAN_WG_DIRECT
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
#endif
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T start = CLSCAN_IDENTITY;
    if (carry_flags & CLSCAN_CARRY_IN)
        start = CLSCAN_CARRY_START(carry_flags, init_value, init_buf, init_off);
    CLSCAN_T carry = clscan_group_start(use_partials, partials, part_off, carry_flags, start);
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
#if CLSCAN_WG_DIRECT
        const CLSCAN_T total =
            clscan_wg_direct_scan(src + src_off, base, count, dst + dst_off, base, carry,
                                  inclusive, !(carry_flags & CLSCAN_CARRY_NO_DST), scratch);
#else
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile is stored */
        clscan_wg_load(src + src_off, base, count, tile);
        const CLSCAN_T total = clscan_wg_scan(tile, scratch, inclusive);
        if (!(carry_flags & CLSCAN_CARRY_NO_DST))
            clscan_wg_store(dst + dst_off, base, count, tile, carry);
#endif
        carry = CLSCAN_OP(carry, total);
    }
    if ((carry_flags & CLSCAN_CARRY_OUT) && get_local_id(0) == 0 &&
        get_group_id(0) == get_num_groups(0) - 1)
        total_buf[total_off] = carry;
}

#ifndef CLSCAN_SINGLE_PASS
#define CLSCAN_SINGLE_PASS 0
#endif
#if CLSCAN_SINGLE_PASS
#ifndef CLSCAN_LOOKBACK_CL
#include "clscan_lookback.cl"
#endif

#if CLSCAN_WG_SIZE == 1
/* out[base + k] for k < count: run op the scan (inclusive, or exclusive) of in[base,
 * base + k], one element after another, stored with STORE (CLSCAN_PLAIN_STORE or
 * CLSCAN_STREAM_STORE: twins, cl/clscan_common.cl). */
#define CLSCAN_SCAN_SERIAL_OUT_(name, STORE)                                               \
    void name(__global const CLSCAN_T *in, __global CLSCAN_T *out, ulong base, uint count,  \
              CLSCAN_T run, int inclusive)                                                  \
    {                                                                                       \
        if (inclusive) {                                                                    \
            for (uint k = 0; k < count; ++k) {                                              \
                const CLSCAN_T x = in[base + k];                                            \
                run = CLSCAN_OP(run, x);                                                    \
                STORE(out + base + k, run);                                                 \
            }                                                                               \
        } else {                                                                            \
            for (uint k = 0; k < count; ++k) {                                              \
                const CLSCAN_T x = in[base + k];                                            \
                STORE(out + base + k, run);                                                 \
                run = CLSCAN_OP(run, x);                                                    \
            }                                                                               \
        }                                                                                   \
    }
CLSCAN_SCAN_SERIAL_OUT_(clscan_scan_serial_out, CLSCAN_PLAIN_STORE)
CLSCAN_SCAN_SERIAL_OUT_(clscan_scan_serial_out_streamed, CLSCAN_STREAM_STORE)
#undef CLSCAN_SCAN_SERIAL_OUT_
#endif

/* Single-pass scan of src[src_off, +n) into dst[dst_off, +n), which must not overlap
 * (a fallback reads other tiles' input while their owners write output; in-place calls
 * take the multi-level scan), one tile per work-group, launched with exactly
 * ceil(n / CLSCAN_TILE) groups. Tiles are numbered by an atomic ticket (state's first
 * word, which the last ticket resets to 0), not by group id, so a tile waits only on
 * tiles whose groups have started. state holds the status words after its header,
 * tagged with `epoch`, which the host makes new for every call. stats: see
 * clscan_lb_tile_prefix. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_scan_single(__global const CLSCAN_T *src, ulong src_off, __global CLSCAN_T *dst,
                        ulong dst_off, ulong n, __global clscan_lb_word *state, uint epoch,
                        uint spin_limit, int inclusive, __global uint *stats_base,
                        uint stats_off, CLSCAN_T init_value, __global const CLSCAN_T *init_buf,
                        ulong init_off, __global CLSCAN_T *total_buf, ulong total_off,
                        uint carry_flags)
{
    __global uint *stats = stats_base + stats_off;
#if CLSCAN_WG_SIZE > 1
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
#endif
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    __local clscan_lb_local lb;
    __local uint ticket;
    const ulong t = clscan_lb_ticket(state, (n + CLSCAN_TILE - 1) / CLSCAN_TILE, &ticket);
    __global const CLSCAN_T *in = src + src_off;
    __global clscan_lb_word *status = state + CLSCAN_LB_HEADER_WORDS;
    const ulong base = t * CLSCAN_TILE;
    const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
#if CLSCAN_WG_SIZE > 1
    clscan_wg_load(in, base, count, tile);
    const CLSCAN_T total = clscan_wg_scan(tile, scratch, inclusive);
#else
    /* One work-item per group (CPU devices): no local staging. The tile is reduced
     * straight from global memory now, and scanned from it once the carry is known
     * (that second read finds it in the cache). (Walking 8 segments side by side, for
     * more independent chains of operations, measured 60% slower on PoCL.) */
    /* (As clscan_lb_tile_part combines a tile: in lanes where the look-back keeps a
     * fixed order and the operator is built in, else from the first element.) */
#ifdef CLSCAN_LB_LANES
    const CLSCAN_T total = clscan_lb_fold_lanes(in + base, count);
#else
    CLSCAN_T total = in[base];
    CLSCAN_IN_ORDER
    for (uint k = 1; k < count; ++k) {
        const CLSCAN_T x = in[base + k];
        total = CLSCAN_OP(total, x);
    }
#endif
#endif
    const int has_start = (carry_flags & CLSCAN_CARRY_IN) != 0;
    CLSCAN_T start = CLSCAN_IDENTITY;
    if (has_start) start = CLSCAN_CARRY_START(carry_flags, init_value, init_buf, init_off);
    const CLSCAN_T carry = clscan_lb_tile_prefix(status, t, epoch, spin_limit, total, has_start,
                                                 start, in, &lb, scratch, stats);
    if ((carry_flags & CLSCAN_CARRY_OUT) && get_local_id(0) == 0 &&
        t == (n + CLSCAN_TILE - 1) / CLSCAN_TILE - 1)
        total_buf[total_off] = CLSCAN_OP(carry, total);
    if (carry_flags & CLSCAN_CARRY_NO_DST) return;
#if CLSCAN_WG_SIZE > 1
    clscan_wg_store(dst + dst_off, base, count, tile, carry);
#else
    if (carry_flags & CLSCAN_CARRY_STREAM)
        clscan_scan_serial_out_streamed(in, dst + dst_off, base, count, carry, inclusive);
    else
        clscan_scan_serial_out(in, dst + dst_off, base, count, carry, inclusive);
#endif
}
#endif /* CLSCAN_SINGLE_PASS */

#endif /* CLSCAN_SCAN_CL */
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
 * element. The kernels take the four buffers as bytes (a dummy where unused) and an
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
                       (__global CLSCAN_GEN_O0 *)o.o0 + o.off0,
                       (__global CLSCAN_GEN_O1 *)o.o1 + o.off1,
                       (__global CLSCAN_GEN_O2 *)o.o2 + o.off2,
                       (__global CLSCAN_GEN_O3 *)o.o3 + o.off3);
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
    CLSCAN_IN_ORDER
    for (uint j = 0; j < len; ++j) CLSCAN_GEN_RUNS_STEP(len, j, count, CLSCAN_GEN_TOTAL_STEP_);
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
    for (uint j = 0; j < len; ++j) CLSCAN_GEN_RUNS_STEP(len, j, count, CLSCAN_GEN_OUTPUT_STEP_);
#undef CLSCAN_GEN_OUTPUT_STEP_
}
#endif

#if CLSCAN_GEN_USE_RUNS && defined(CLSCAN_GEN_VEC_OP) && \
    CLSCAN_GEN_SEGMENTS != CLSCAN_GEN_SEG_NONE
/* Segmented scans of a library type under a built-in operator, without a transform (the
 * host then defines CLSCAN_GEN_VEC_OP(a, b), the operator on vectors of eight values, and
 * CLSCAN_GEN_VEC_MASK, the integer vector of eight lanes as wide as a value): one
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
#define CLSCAN_GEN_MT CLSCAN_GEN_VEC_MASK
#define CLSCAN_GEN_TO_MASK CLSCAN_CAT(convert_, CLSCAN_GEN_VEC_MASK)
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
    CLSCAN_GEN_MT head = CLSCAN_GEN_TO_MASK(vload8(0, s.seg + g0) != (CLSCAN_GEN_KT)0);
    if (g0 == 0 && !s.carried) head.s0 = -1;
#else
    const CLSCAN_GEN_KT k = vload8(0, s.seg + g0);
    const CLSCAN_GEN_SEG before = g0 > 0 ? s.seg[g0 - 1] : k.s0;
    /* (Each key against the one before: the keys turned by a lane, a key's lanes being
     * as wide as the key and not a value's; then lane 0 against `before`.) */
    CLSCAN_GEN_MT head = CLSCAN_GEN_TO_MASK(k != k.s70123456);
    head.s0 = k.s0 != before ? -1 : 0;
    if (g0 == 0) head.s0 = s.carried ? 0 : -1;
#endif
    const CLSCAN_GEN_VT x = vload8(0, s.src + g0);
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
#define CLSCAN_GEN_VSTORE_PLAIN_(r, p) vstore8((r), 0, (p))
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
        vstore8(y, 0, ys);
        const uint k[8] = {(uint)n.s0, (uint)n.s1, (uint)n.s2, (uint)n.s3,
                           (uint)n.s4, (uint)n.s5, (uint)n.s6, (uint)n.s7};
#if CLSCAN_GEN_OUTPUT_SPARSE
        /* Sparse statements run for the lanes that end a segment alone (the head bits
         * shifted down by one, and lane 7 where the element after it starts a segment),
         * and those that start one where they ask for it (the head bits). */
        if (!(o.flags & CLSCAN_CARRY_SKIP_STORE)) vstore8(y, 0, dst + base + j);
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
/* clscan_general.cl - device-wide general scans over the tiles of
 * cl/clscan_general_tile.cl (custom operators and types, input transforms, segments).
 * Multi-level: each work-group reduces its tiles to a partial, the partials are scanned
 * (clscan_scan_partials of cl/clscan_scan.cl, or its levels), then each work-group scans
 * its tiles from its partial. Single-pass (CLSCAN_GEN_SINGLE_PASS=1): one kernel, one
 * tile per work-group, its prefix from the decoupled look-back. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_GENERAL_CL
#define CLSCAN_GENERAL_CL
#ifndef CLSCAN_GENERAL_TILE_CL
#include "clscan_general_tile.cl"
#endif
#ifndef CLSCAN_SCAN_CL
#include "clscan_scan.cl"
#endif

/* A kernel's tile in local memory: the values and heads of the segmented tile of GPUs,
 * or the elements of the scan (cl/clscan_general_tile.cl). */
#if CLSCAN_GEN_VALUE_TILE
#define CLSCAN_GEN_TILE_DECLARE                                  \
    __local CLSCAN_GEN_OUT values[CLSCAN_WG_TILE_LOCAL];         \
    __local uint heads[CLSCAN_GEN_HEAD_WORDS]
#else
#define CLSCAN_GEN_TILE_DECLARE __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL]
#endif

/* partials[part_off + group] = the combination of the scan's elements in the group's
 * tiles of the range [0, n). */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_gen_reduce_tiles(__global const CLSCAN_GEN_IN *src, ulong src_off,
                             __global const CLSCAN_GEN_SEG *seg, ulong seg_off,
                             ulong index_base, ulong n,
                             int inclusive, ulong tiles_per_group,
                             __global CLSCAN_T *partials, ulong part_off, uint carry_flags)
{
    CLSCAN_GEN_TILE_DECLARE;
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    const clscan_gen_source s = {src + src_off, seg + seg_off, !inclusive,
                                 (carry_flags & CLSCAN_CARRY_IN) != 0, index_base};
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T acc = CLSCAN_IDENTITY;
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
        /* (The group's reduction ended with a barrier after its last read of the tile.) */
#if CLSCAN_GEN_VALUE_TILE
        uint bits;
        const CLSCAN_T mine = clscan_gen_values_part(s, base, count, values, heads, &bits);
        const CLSCAN_T total = clscan_wg_reduce_value(mine, scratch);
#else
        clscan_gen_load_tile(s, base, count, tile);
        const CLSCAN_T total = clscan_wg_reduce(tile, scratch);
#endif
        acc = CLSCAN_OP(acc, total);
    }
    if (get_local_id(0) == 0) partials[part_off + get_group_id(0)] = acc;
}

/* Scans the group's tiles into dst[dst_off, +n), starting from partials[part_off +
 * group] when use_partials is set (else from the identity), after the carry-in; the
 * group of the last tile writes the total (carry arguments: see CLSCAN_CARRY_IN of
 * cl/clscan_scan.cl, their values of the output type). Launched with n == 0 and one
 * group, it writes the total alone. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_gen_scan_tiles(__global const CLSCAN_GEN_IN *src, ulong src_off,
                           __global const CLSCAN_GEN_SEG *seg, ulong seg_off,
                           ulong index_base,
                           __global CLSCAN_GEN_OUT *dst, ulong dst_off, ulong n,
                           int inclusive, ulong tiles_per_group,
                           __global const CLSCAN_T *partials, ulong part_off, int use_partials,
                           CLSCAN_GEN_OUT init_value, __global const CLSCAN_GEN_OUT *init_buf,
                           ulong init_off, __global CLSCAN_GEN_OUT *total_buf,
                           ulong total_off, uint carry_flags CLSCAN_GEN_OUTPUT_PARAMS)
{
    const clscan_gen_outputs o = CLSCAN_GEN_OUTPUTS(n, carry_flags);
    CLSCAN_GEN_TILE_DECLARE;
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    const clscan_gen_source s = {src + src_off, seg + seg_off, !inclusive,
                                 (carry_flags & CLSCAN_CARRY_IN) != 0, index_base};
    const int tile_inclusive = clscan_gen_tile_inclusive(inclusive);
    CLSCAN_GROUP_TILES(n, tiles_per_group, first, end);
    CLSCAN_T start = CLSCAN_IDENTITY;
    if (carry_flags & CLSCAN_CARRY_IN)
        start = clscan_gen_carry(CLSCAN_CARRY_START(carry_flags, init_value, init_buf, init_off));
    CLSCAN_T carry = clscan_group_start(use_partials, partials, part_off, carry_flags, start);
    for (ulong t = first; t < end; ++t) {
        const ulong base = t * CLSCAN_TILE;
        const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile is stored */
#if CLSCAN_GEN_VALUE_TILE
        (void)tile_inclusive;
        uint bits;
        CLSCAN_T total;
        const CLSCAN_T mine = clscan_gen_values_part(s, base, count, values, heads, &bits);
        const CLSCAN_T before = clscan_wg_scan_value(mine, 0, scratch, &total);
        if (!(carry_flags & CLSCAN_CARRY_NO_DST))
            clscan_gen_values_store(dst + dst_off, s, base, count, values, heads, bits,
                                    CLSCAN_OP(carry, before), o);
#else
        clscan_gen_load_tile(s, base, count, tile);
        const CLSCAN_T total = clscan_wg_scan(tile, scratch, tile_inclusive);
        if (!(carry_flags & CLSCAN_CARRY_NO_DST))
            clscan_gen_store_tile(dst + dst_off, s, base, count, tile, carry, o);
#endif
        carry = CLSCAN_OP(carry, total);
    }
    if ((carry_flags & CLSCAN_CARRY_OUT) && get_local_id(0) == 0 &&
        get_group_id(0) == get_num_groups(0) - 1)
        total_buf[total_off] = clscan_gen_total(s, n, carry);
}

#ifndef CLSCAN_GEN_SINGLE_PASS
#define CLSCAN_GEN_SINGLE_PASS 0
#endif
#if CLSCAN_GEN_SINGLE_PASS
#ifndef CLSCAN_LOOKBACK_CL
#include "clscan_lookback.cl"
#endif

/* Single-pass general scan of the range into dst[dst_off, +n), which must not overlap
 * src or seg (a fallback reads other tiles' input; in-place calls scan a copy), one tile
 * per work-group, launched with exactly ceil(n / CLSCAN_TILE) groups. The ticket,
 * state, epoch, spin limit and stats are those of clscan_scan_single. */
__kernel CLSCAN_KERNEL_ATTRIBUTES
void clscan_gen_single(__global const CLSCAN_GEN_IN *src, ulong src_off,
                       __global const CLSCAN_GEN_SEG *seg, ulong seg_off,
                       ulong index_base,
                       __global CLSCAN_GEN_OUT *dst, ulong dst_off, ulong n, int inclusive,
                       __global clscan_lb_word *state, uint epoch, uint spin_limit,
                       __global uint *stats_base, uint stats_off, CLSCAN_GEN_OUT init_value,
                       __global const CLSCAN_GEN_OUT *init_buf, ulong init_off,
                       __global CLSCAN_GEN_OUT *total_buf, ulong total_off,
                       uint carry_flags CLSCAN_GEN_OUTPUT_PARAMS)
{
    const clscan_gen_outputs o = CLSCAN_GEN_OUTPUTS(n, carry_flags);
    __global uint *stats = stats_base + stats_off;
    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];
    __local clscan_lb_local lb;
    __local uint ticket;
    const int has_start = (carry_flags & CLSCAN_CARRY_IN) != 0;
    const clscan_gen_source s = {src + src_off, seg + seg_off, !inclusive, has_start,
                                 index_base};
    const ulong t = clscan_lb_ticket(state, (n + CLSCAN_TILE - 1) / CLSCAN_TILE, &ticket);
    __global clscan_lb_word *status = state + CLSCAN_LB_HEADER_WORDS;
    const ulong base = t * CLSCAN_TILE;
    const uint count = (uint)min((ulong)CLSCAN_TILE, n - base);
#if CLSCAN_GEN_VALUE_TILE
    CLSCAN_GEN_TILE_DECLARE;
    uint bits;
    CLSCAN_T total;
    const CLSCAN_T mine = clscan_gen_values_part(s, base, count, values, heads, &bits);
    const CLSCAN_T before = clscan_wg_scan_value(mine, 0, scratch, &total);
#elif CLSCAN_GEN_VEC
    uint first = 0;
    /* (With an output stage the total alone: the outputs come after the look-back.) */
#ifdef CLSCAN_GEN_OUTPUT_GIVEN
    const int vec_dst = 0;
#else
    const int vec_dst = !(carry_flags & CLSCAN_CARRY_NO_DST);
#endif
    /* (Outputs past the caches where the host asks for it and the tile's vectors are
     * aligned: the streaming twin; cl/clscan_common.cl, CLSCAN_STREAM_STORE.) */
    const int vec_stream = vec_dst && (carry_flags & CLSCAN_CARRY_STREAM) &&
                           ((ulong)(dst + dst_off + base) & (sizeof(CLSCAN_GEN_VT) - 1)) == 0;
    const CLSCAN_T total =
        vec_stream ? clscan_gen_vec_local_streamed(s, base, count, dst + dst_off, &first)
                   : clscan_gen_vec_local(s, base, count,
                                          vec_dst ? dst + dst_off : (__global CLSCAN_GEN_OUT *)0,
                                          &first);
#elif CLSCAN_GEN_USE_RUNS
#if CLSCAN_GEN_RUNS_FROM_TILE
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    clscan_gen_load_tile(s, base, count, tile);
#else
    __local CLSCAN_T *tile = 0;
#endif
    const clscan_gen_runs runs =
        clscan_gen_run_totals(s, base, count, tile, CLSCAN_GEN_RUNS_FROM_TILE);
    const CLSCAN_T total = clscan_gen_runs_total(runs);
#else
    __local CLSCAN_T tile[CLSCAN_WG_TILE_LOCAL];
    clscan_gen_load_tile(s, base, count, tile);
    const CLSCAN_T total = clscan_wg_scan(tile, scratch, clscan_gen_tile_inclusive(inclusive));
#endif
    CLSCAN_T start = CLSCAN_IDENTITY;
    if (has_start)
        start = clscan_gen_carry(CLSCAN_CARRY_START(carry_flags, init_value, init_buf, init_off));
    const CLSCAN_T carry = clscan_lb_tile_prefix(status, t, epoch, spin_limit, total, has_start,
                                                 start, s, &lb, scratch, stats);
    if ((carry_flags & CLSCAN_CARRY_OUT) && get_local_id(0) == 0 &&
        t == (n + CLSCAN_TILE - 1) / CLSCAN_TILE - 1)
        total_buf[total_off] = clscan_gen_total(s, n, CLSCAN_OP(carry, total));
    if (!(carry_flags & CLSCAN_CARRY_NO_DST)) {
#if CLSCAN_GEN_VALUE_TILE
        clscan_gen_values_store(dst + dst_off, s, base, count, values, heads, bits,
                                CLSCAN_OP(carry, before), o);
#elif CLSCAN_GEN_VEC && defined(CLSCAN_GEN_OUTPUT_GIVEN)
        (void)first;
        clscan_gen_vec_emit(s, base, count, carry, dst + dst_off, o);
#elif CLSCAN_GEN_VEC
        (void)o;
        clscan_gen_vec_fix(dst + dst_off, base, first, carry);
#elif CLSCAN_GEN_USE_RUNS
        clscan_gen_run_outputs(s, base, count, tile, CLSCAN_GEN_RUNS_FROM_TILE, runs, carry,
                               clscan_gen_tile_inclusive(inclusive), dst + dst_off, o);
#else
        clscan_gen_store_tile(dst + dst_off, s, base, count, tile, carry, o);
#endif
    }
}
#endif /* CLSCAN_GEN_SINGLE_PASS */

#endif /* CLSCAN_GENERAL_CL */
