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

/* CLSCAN_VLOAD8(T, p) and CLSCAN_VSTORE8(T, v, p): vload8 and vstore8 of eight T (a
 * scalar type's one-word name), those of 64-bit types as two halves of four. PoCL on x86
 * processors without AVX-512 warns at every call of a built-in that takes or returns
 * eight 64-bit lanes (512 bits) that it changes the ABI (docs/IMPLEMENTATION-ISSUES.md);
 * halves of four fit AVX2's 256-bit registers. Narrower types keep vload8 and vstore8:
 * in halves PoCL's int32 scan by flags took 1.18-1.29x its time (docs/PERFORMANCE.md). */
#define CLSCAN_VLOAD8(T, p) CLSCAN_CAT(CLSCAN_VLOAD8_, T)(p)
#define CLSCAN_VSTORE8(T, v, p) CLSCAN_CAT(CLSCAN_VSTORE8_, T)(v, p)
#define CLSCAN_VLOAD8_HALVES_(T, p) ((CLSCAN_CAT(T, 8))(vload4(0, (p)), vload4(1, (p))))
#define CLSCAN_VSTORE8_HALVES_(v, p) (vstore4((v).lo, 0, (p)), vstore4((v).hi, 1, (p)))
#define CLSCAN_VLOAD8_long(p) CLSCAN_VLOAD8_HALVES_(long, p)
#define CLSCAN_VLOAD8_ulong(p) CLSCAN_VLOAD8_HALVES_(ulong, p)
#define CLSCAN_VLOAD8_double(p) CLSCAN_VLOAD8_HALVES_(double, p)
#define CLSCAN_VLOAD8_int(p) vload8(0, (p))
#define CLSCAN_VLOAD8_uint(p) vload8(0, (p))
#define CLSCAN_VLOAD8_float(p) vload8(0, (p))
#define CLSCAN_VLOAD8_uchar(p) vload8(0, (p))
#define CLSCAN_VSTORE8_long(v, p) CLSCAN_VSTORE8_HALVES_(v, p)
#define CLSCAN_VSTORE8_ulong(v, p) CLSCAN_VSTORE8_HALVES_(v, p)
#define CLSCAN_VSTORE8_double(v, p) CLSCAN_VSTORE8_HALVES_(v, p)
#define CLSCAN_VSTORE8_int(v, p) vstore8((v), 0, (p))
#define CLSCAN_VSTORE8_uint(v, p) vstore8((v), 0, (p))
#define CLSCAN_VSTORE8_float(v, p) vstore8((v), 0, (p))

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
