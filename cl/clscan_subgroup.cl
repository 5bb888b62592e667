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
