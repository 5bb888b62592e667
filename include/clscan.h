/* clscan.h - the whole public API of libclscan, and its manual.
 * Parallel prefix scans, reductions, histograms, stream compaction and radix sort for
 * OpenCL 1.2+ devices, built at run time for the device.
 *
 * ABI (docs/ABI.md): a program built against any 0.x release runs with every later
 * libclscan.so.0. Functions keep their signatures, enumerators and status codes their
 * values, structs their layouts. clscan_context_options alone grows, at its end, read up
 * to the caller's struct_size. The other structs passed by pointer (clscan_scan_desc,
 * clscan_carry, clscan_part, clscan_compact_desc) have no size field and are frozen as
 * in 0.1: a release needing more adds a new struct that starts with its size and new
 * entry points (clscan_scan2 taking a clscan_scan_desc2, say), so no caller's struct
 * is read past its end. An incompatible change would take a new soname. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_H
#define CLSCAN_H

/* The build sets CL_TARGET_OPENCL_VERSION for the library; users who include this
 * header first get OpenCL 1.2, the oldest version libclscan runs on. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLSCAN_API marks every exported symbol; everything else in the library is hidden. */
#if defined(_WIN32) && defined(CLSCAN_BUILDING_SHARED)
#define CLSCAN_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define CLSCAN_API __attribute__((visibility("default")))
#else
#define CLSCAN_API
#endif

/* ------------------------------------------------------------------------------
 * Version: readable at compile time (these macros) and run time (clscan_version).
 * ------------------------------------------------------------------------------ */
#define CLSCAN_VERSION_MAJOR 0
#define CLSCAN_VERSION_MINOR 1
#define CLSCAN_VERSION_PATCH 0
#define CLSCAN_VERSION_NUMBER \
    (CLSCAN_VERSION_MAJOR * 10000 + CLSCAN_VERSION_MINOR * 100 + CLSCAN_VERSION_PATCH)

/* Returns CLSCAN_VERSION_NUMBER of the library actually linked. */
CLSCAN_API unsigned clscan_version(void);

/* ------------------------------------------------------------------------------
 * Status codes.
 *
 * Every function that can fail returns a clscan_status. CLSCAN_SUCCESS is 0.
 * A negative OpenCL error (CL_OUT_OF_RESOURCES, CL_INVALID_COMMAND_QUEUE, ...) that an
 * OpenCL call made by the library returned is passed through unchanged. The library's
 * own codes below lie in -7000..-7099, a range no OpenCL error uses; their values are
 * fixed and never renumbered. clscan_status_string() names any of them.
 * ------------------------------------------------------------------------------ */
typedef int clscan_status;

#define CLSCAN_SUCCESS                  0
/* An argument is NULL, out of range, or inconsistent (detail in clscan_context_last_error). */
#define CLSCAN_ERROR_INVALID_ARGUMENT   (-7001)
/* The device or the type/operator combination cannot do this (DOUBLE without fp64,
 * a bitwise operator on a floating-point type). */
#define CLSCAN_ERROR_UNSUPPORTED        (-7002)
/* A kernel did not compile; clscan_context_last_error() holds the build log. */
#define CLSCAN_ERROR_BUILD_FAILED       (-7003)
/* Host memory ran out, no launch configuration fits the device's limits, or a temporary
 * device buffer would exceed its largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE). */
#define CLSCAN_ERROR_OUT_OF_RESOURCES   (-7004)
/* A CLSCAN_* environment variable has a value the library cannot use. */
#define CLSCAN_ERROR_INVALID_ENVIRONMENT (-7005)

/* Returns a static, never-NULL name for any status: "CLSCAN_SUCCESS",
 * "CLSCAN_ERROR_BUILD_FAILED", "CL_INVALID_VALUE", ... and "unknown status" otherwise. */
CLSCAN_API const char *clscan_status_string(clscan_status s);

/* ------------------------------------------------------------------------------
 * Element types and operators.
 * ------------------------------------------------------------------------------ */
typedef enum clscan_type {
    CLSCAN_INT32 = 0,  /* cl_int    */
    CLSCAN_UINT32 = 1, /* cl_uint   */
    CLSCAN_INT64 = 2,  /* cl_long   */
    CLSCAN_UINT64 = 3, /* cl_ulong  */
    CLSCAN_FLOAT = 4,  /* cl_float  */
    CLSCAN_DOUBLE = 5  /* cl_double; needs a device with fp64 */
} clscan_type;
#define CLSCAN_TYPE_COUNT 6

/* Operators. Integer arithmetic wraps as two's complement. On FLOAT and DOUBLE, MIN and
 * MAX follow OpenCL's fmin/fmax: NaN elements are ignored, so a prefix made only of NaNs
 * gives the identity (+INFINITY for MIN, -INFINITY for MAX), inclusive dst[0] included.
 * AND, OR and XOR are unsupported on FLOAT and DOUBLE. */
typedef enum clscan_op {
    CLSCAN_OP_ADD = 0, /* identity 0 */
    CLSCAN_OP_MUL = 1, /* identity 1 */
    CLSCAN_OP_MIN = 2, /* identity: the type's maximum, +INFINITY for floats */
    CLSCAN_OP_MAX = 3, /* identity: the type's minimum, -INFINITY for floats */
    CLSCAN_OP_AND = 4, /* identity: all bits set */
    CLSCAN_OP_OR = 5,  /* identity 0 */
    CLSCAN_OP_XOR = 6  /* identity 0 */
} clscan_op;
#define CLSCAN_OP_COUNT 7

/* Size in bytes of one element of `type`, or 0 for a value outside the enum. */
CLSCAN_API size_t clscan_type_size(clscan_type type);
/* Static names ("int32", "add", ...); "invalid" for a value outside the enum. */
CLSCAN_API const char *clscan_type_name(clscan_type type);
CLSCAN_API const char *clscan_op_name(clscan_op op);

/* ------------------------------------------------------------------------------
 * Context.
 *
 * A clscan_context belongs to one (cl_context, cl_device_id) pair. Creating it probes
 * the device once (see docs/DEVICES.md for what is probed and the CLSCAN_* environment
 * variables that override each value). On a GPU with on-chip local memory the first
 * context for a device also runs the local-memory bank probe, a timed kernel that
 * blocks the call (about 32 ms on an H100; once per device per process;
 * CLSCAN_BANK_PROBE=0 skips it); its result is kept in the disk cache, so that later
 * processes with the same device and driver read it instead of measuring (see "Disk
 * cache and warming" below). Kernels are built on first use and cached in the
 * context, so the first call with a new type and operator pays a program build; built
 * programs are also kept on disk (see "Disk cache and warming" below), so that a later
 * process loads them instead of compiling, and clscan_context_warm builds them all up
 * front. The context's cache is bounded: at most max_programs programs (default 512,
 * CLSCAN_MAX_PROGRAMS; every built-in program a context can use fits) and
 * max_program_bytes of their keys and texts (default 32 MiB, CLSCAN_MAX_PROGRAM_BYTES);
 * past either, the least recently used programs that no call is using are released, and
 * built again (or loaded from disk) if asked for later. Lookups hash the program's shape
 * and texts, so their cost does not grow with the number cached. The context also keeps
 * the last 16 general-scan descriptions it checked (clscan_scan_desc), under the exact
 * bytes of their fields and texts, so that a repeated call neither checks nor formats
 * its description again; one changed in place behind the same pointers is checked anew.
 *
 * Threading: one context may be used from several threads at once, each with its own
 * command queue or sharing one; the library serialises what must be serialised inside.
 * clscan_context_release must not race with other calls on the same context. Commands
 * on an in-order queue carry no event unless the call asked for one; temporaries in a
 * context's scratch buffers are ordered by that queue. A call on another queue that
 * must reuse such a buffer (all 16 of them last used elsewhere) enqueues a marker on the
 * queue that last used it, flushes that queue and waits for the marker on the device.
 * ------------------------------------------------------------------------------ */
typedef struct clscan_context clscan_context;

/* Creates a context for `device` in `cl_ctx` and stores it in *out (set to NULL on
 * failure). The context retains cl_ctx and device; release it with
 * clscan_context_release. Returns CLSCAN_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT (NULL
 * argument, device not in cl_ctx), CLSCAN_ERROR_INVALID_ENVIRONMENT (a bad CLSCAN_*
 * override), CLSCAN_ERROR_OUT_OF_RESOURCES, or an OpenCL error from a device query. */
CLSCAN_API clscan_status clscan_context_create(cl_context cl_ctx, cl_device_id device,
                                               clscan_context **out);

/* ------------------------------------------------------------------------------
 * Context options: every CLSCAN_* environment variable of docs/DEVICES.md as a typed
 * field, for programs that want to set a tuning choice or emulate a device profile
 * without touching the environment.
 *
 * ABI rule: set struct_size to sizeof(clscan_context_options) and every field you do not
 * set to zero (`clscan_context_options o = {.struct_size = sizeof o};`). Zero means "the
 * default" for every field: the device's own answer or the library's choice. A later
 * version only appends fields, and reads no field beyond the struct_size a caller passed
 * (which must at least hold struct_size and flags).
 *
 * Numbers: a numeric field where zero itself is a meaningful value (no banks, no loop
 * limit, no look-back spins, no sub-group width) takes CLSCAN_OPTION_ZERO for zero.
 * Each field takes the values its variable takes and is checked as the variable is;
 * a bad value makes clscan_context_create_with_options fail with
 * CLSCAN_ERROR_INVALID_ENVIRONMENT and a message naming the variable the field stands
 * for (in the comment beside each field).
 *
 * Precedence: a field that is set wins over its environment variable; the variables
 * still fill every field left at zero unless flags has CLSCAN_OPTIONS_IGNORE_ENVIRONMENT
 * (then the environment is not read at all, CLSCAN_* variables, XDG_CACHE_HOME and HOME
 * included: the disk cache then has a directory only if cache_dir gives one, and is on
 * by the same rules as with the variables: by default, except on PoCL). lookback_test's
 * zero is both "off" and "the default", so only CLSCAN_OPTIONS_IGNORE_ENVIRONMENT turns
 * off a CLSCAN_LOOKBACK_TEST of the environment.
 * ------------------------------------------------------------------------------ */
#define CLSCAN_OPTION_ZERO (~(cl_ulong)0)
#define CLSCAN_OPTIONS_IGNORE_ENVIRONMENT 1u

/* Off/on for the yes-or-no options (zero: the default). */
typedef enum clscan_switch {
    CLSCAN_SWITCH_DEFAULT = 0,
    CLSCAN_SWITCH_OFF = 1,
    CLSCAN_SWITCH_ON = 2
} clscan_switch;

/* The sub-group layer's implementation (CLSCAN_SUBGROUP_IMPL; docs/ALGORITHMS.md). */
typedef enum clscan_subgroups {
    CLSCAN_SUBGROUPS_DEFAULT = 0,
    CLSCAN_SUBGROUPS_LOCAL = 1,  /* local-memory Kogge-Stone over emulated sub-groups */
    CLSCAN_SUBGROUPS_KHR = 2,    /* cl_khr_subgroups / __opencl_c_subgroups */
    CLSCAN_SUBGROUPS_NVIDIA = 3, /* inline PTX shuffles */
    CLSCAN_SUBGROUPS_INTEL = 4   /* cl_intel_subgroups shuffles */
} clscan_subgroups;

/* The work-group scan (CLSCAN_WG_SCAN). */
typedef enum clscan_wg_scan {
    CLSCAN_WG_SCAN_DEFAULT = 0,
    CLSCAN_WG_SCAN_BLELLOCH = 1,
    CLSCAN_WG_SCAN_SUBGROUPS = 2
} clscan_wg_scan;

/* The device-wide scan (CLSCAN_SCAN_ALGO). */
typedef enum clscan_algorithm {
    CLSCAN_ALGORITHM_DEFAULT = 0,
    CLSCAN_ALGORITHM_MULTI_LEVEL = 1, /* reduce, scan the partials, scan: always available */
    CLSCAN_ALGORITHM_SINGLE_PASS = 2  /* one kernel, decoupled look-back */
} clscan_algorithm;

/* How the single-pass look-back reads and writes its status words
 * (CLSCAN_LOOKBACK_ATOMICS). DEFAULT: acquire/release where the device has them, else
 * the 1.2 atomics; on NVIDIA's platform, PTX for the values of two status words (scans of
 * 8-byte types, and general scans of 8-byte elements, such as segmented scans of 4-byte
 * values, without an output stage). A mode given here holds for every value. */
typedef enum clscan_lookback_atomics {
    CLSCAN_LOOKBACK_ATOMICS_DEFAULT = 0,
    CLSCAN_LOOKBACK_ATOMICS_CL12 = 1, /* OpenCL C 1.2 read-modify-write atomics */
    CLSCAN_LOOKBACK_ATOMICS_C11 = 2,  /* OpenCL C 2.0/3.0 acquire/release, device scope */
    CLSCAN_LOOKBACK_ATOMICS_PTX = 3   /* NVIDIA inline PTX */
} clscan_lookback_atomics;

/* Test modes of the look-back (CLSCAN_LOOKBACK_TEST), for exercising its fallback. */
typedef enum clscan_lookback_test {
    CLSCAN_LOOKBACK_TEST_OFF = 0,
    CLSCAN_LOOKBACK_TEST_DELAY = 1, /* every third tile publishes late */
    CLSCAN_LOOKBACK_TEST_SILENT = 2 /* every fourth tile publishes nothing */
} clscan_lookback_test;

/* The radix sort (CLSCAN_SORT_ALGO). */
typedef enum clscan_sort_algorithm {
    CLSCAN_SORT_ALGORITHM_DEFAULT = 0,
    CLSCAN_SORT_ALGORITHM_THREE_STEP = 1, /* per digit: histogram, scan, scatter */
    CLSCAN_SORT_ALGORITHM_ONESWEEP = 2    /* all histograms at once, then per digit one
                                             kernel whose tiles look back */
} clscan_sort_algorithm;

typedef struct clscan_context_options {
    size_t struct_size;             /* sizeof(clscan_context_options) */
    unsigned flags;                 /* CLSCAN_OPTIONS_* */
    /* The device as the library sees it (emulated profiles; docs/DEVICES.md). */
    const char *vendor;             /* CLSCAN_VENDOR: "nvidia", "amd", "intel", ... */
    cl_device_type device_type;     /* CLSCAN_DEVICE_TYPE: CL_DEVICE_TYPE_GPU, _CPU, ... */
    const char *opencl_version;     /* CLSCAN_OPENCL_VERSION: "1.2", "3.0" */
    const char *opencl_c_version;   /* CLSCAN_OPENCL_C_VERSION */
    const char *extensions;         /* CLSCAN_EXTENSIONS: space-separated */
    cl_ulong local_mem_size;        /* CLSCAN_LOCAL_MEM_SIZE, bytes */
    cl_device_local_mem_type local_mem_type; /* CLSCAN_LOCAL_MEM_TYPE: CL_LOCAL, CL_GLOBAL */
    cl_ulong max_work_group_size;   /* CLSCAN_MAX_WORK_GROUP_SIZE */
    cl_ulong max_mem_alloc_size;    /* CLSCAN_MAX_MEM_ALLOC_SIZE, bytes */
    cl_ulong compute_units;         /* CLSCAN_COMPUTE_UNITS */
    cl_ulong wg_multiple;           /* CLSCAN_WG_MULTIPLE */
    cl_ulong subgroup_width;        /* CLSCAN_SUBGROUP_WIDTH (CLSCAN_OPTION_ZERO: unknown) */
    clscan_switch fp64;             /* CLSCAN_FP64 */
    clscan_switch int64_atomics;    /* CLSCAN_INT64_ATOMICS */
    cl_ulong max_loop_iterations;   /* CLSCAN_MAX_LOOP_ITERATIONS (CLSCAN_OPTION_ZERO: none) */
    /* Local-memory banks and their probe. */
    clscan_switch bank_probe;       /* CLSCAN_BANK_PROBE */
    cl_ulong local_mem_banks;       /* CLSCAN_LOCAL_MEM_BANKS (CLSCAN_OPTION_ZERO: none) */
    cl_ulong bank_width;            /* CLSCAN_BANK_WIDTH, bytes */
    /* Tuning. */
    cl_ulong work_group_size;       /* CLSCAN_WORK_GROUP_SIZE (multi-level scan) */
    cl_ulong items_per_thread;      /* CLSCAN_ITEMS_PER_THREAD */
    cl_ulong groups_per_cu;         /* CLSCAN_GROUPS_PER_CU */
    cl_ulong max_groups;            /* CLSCAN_MAX_GROUPS */
    cl_ulong single_group_tiles;    /* CLSCAN_SINGLE_GROUP_TILES */
    cl_ulong sp_work_group_size;    /* CLSCAN_SP_WORK_GROUP_SIZE (single-pass scan) */
    cl_ulong sp_items_per_thread;   /* CLSCAN_SP_ITEMS_PER_THREAD */
    clscan_switch padding;          /* CLSCAN_PADDING: bank-conflict padding */
    clscan_subgroups subgroups;     /* CLSCAN_SUBGROUP_IMPL */
    clscan_wg_scan wg_scan;         /* CLSCAN_WG_SCAN */
    clscan_algorithm algorithm;     /* CLSCAN_SCAN_ALGO */
    clscan_lookback_atomics lookback_atomics; /* CLSCAN_LOOKBACK_ATOMICS */
    cl_ulong lookback_spins;        /* CLSCAN_LOOKBACK_SPINS (CLSCAN_OPTION_ZERO: none) */
    clscan_lookback_test lookback_test; /* CLSCAN_LOOKBACK_TEST */
    /* Programs. */
    clscan_switch disk_cache;       /* CLSCAN_DISK_CACHE */
    const char *cache_dir;          /* CLSCAN_CACHE_DIR (copied) */
    const char *kernel_include_dir; /* CLSCAN_KERNEL_INCLUDE_DIR (copied) */
    /* Added after the first fields (a struct_size that ends before a field leaves it at
     * its default; docs/ABI.md). */
    clscan_sort_algorithm sort_algorithm; /* CLSCAN_SORT_ALGO */
    cl_ulong max_text_bytes;        /* CLSCAN_MAX_TEXT_BYTES: the longest user text a
                                       call accepts (default 65536) */
    cl_ulong max_programs;          /* CLSCAN_MAX_PROGRAMS: programs a context keeps
                                       (default 512; least recently used released first) */
    cl_ulong max_program_bytes;     /* CLSCAN_MAX_PROGRAM_BYTES: bytes of their keys and
                                       texts it keeps (default 32 MiB) */
    cl_ulong sort_max_registers;    /* CLSCAN_SORT_MAX_REGISTERS: up to 255 registers for
                                       the one-sweep sort's passes of 4-byte keys on
                                       NVIDIA's platform, alone or with 4-byte values
                                       (default 64 for keys alone, 72 for pairs; a value
                                       given holds for both; CLSCAN_OPTION_ZERO: no cap) */
    cl_ulong global_mem_cache_size; /* CLSCAN_GLOBAL_MEM_CACHE_SIZE, bytes: the cache the
                                       CPUs' sort plans for, and past which the CPUs'
                                       single-pass scans (plain, and segmented ones of
                                       the library's types) stream their outputs
                                       (default: the device's
                                       CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, at least 32 MiB) */
} clscan_context_options;

/* clscan_context_create with options (NULL: exactly clscan_context_create). Returns what
 * clscan_context_create returns, and CLSCAN_ERROR_INVALID_ARGUMENT for a struct_size
 * too small to hold struct_size and flags or larger than this library's struct (a
 * program built against a newer header), or for unknown flags;
 * CLSCAN_ERROR_INVALID_ENVIRONMENT for a bad field value. The strings are
 * read during the call only. */
CLSCAN_API clscan_status clscan_context_create_with_options(cl_context cl_ctx,
                                                            cl_device_id device,
                                                            const clscan_context_options *options,
                                                            clscan_context **out);

/* Releases the context, its cached programs and scratch buffers (the OpenCL runtime
 * frees a buffer only once the commands that use it have finished). NULL, or a context
 * already released, is ignored. Every other call given a released context (or a pointer
 * clscan_context_create did not return) refuses it with CLSCAN_ERROR_INVALID_ARGUMENT
 * and reads nothing through it: the library keeps a list of live contexts. (A pointer
 * that a later clscan_context_create returned again is that new context.) */
CLSCAN_API void clscan_context_release(clscan_context *ctx);

/* The detail of the most recent failed call made by the calling thread on `ctx`:
 * what was wrong, or the compiler's build log for CLSCAN_ERROR_BUILD_FAILED. With
 * ctx == NULL, the calling thread's most recent failure on any context (this is how the
 * reason of a failed clscan_context_create is read); a ctx that is not a live context
 * reads as NULL. Returns "" when there is none. The
 * string belongs to the library and stays valid until this thread's next call into it. */
CLSCAN_API const char *clscan_context_last_error(const clscan_context *ctx);

/* Writes a human-readable, multi-line description of what the context detected about
 * its device (vendor, versions, local memory, banks, sub-group width, tuning chosen)
 * into buf (at most size bytes, always NUL-terminated when size > 0; buf NULL counts as
 * size 0). Returns the length the full text needs, excluding the NUL, like snprintf;
 * for a NULL or released context, "" and 0. */
CLSCAN_API size_t clscan_context_describe(const clscan_context *ctx, char *buf, size_t size);

/* ------------------------------------------------------------------------------
 * Scans.
 *
 * clscan_exclusive_scan writes dst[i] = src[0] op ... op src[i-1], with dst[0] the
 * identity of op. clscan_inclusive_scan writes dst[i] = src[0] op ... op src[i].
 * (Indices are relative to src_offset and dst_offset.)
 *
 *   ctx, queue      queue must belong to the context's cl_context and device. In-order
 *                   and out-of-order queues both work.
 *   src, src_offset the input: n elements of `type` starting at element src_offset.
 *   dst, dst_offset the output: n elements starting at element dst_offset. Nothing
 *                   outside [dst_offset, dst_offset + n) is written. src == dst with
 *                   src_offset == dst_offset (in place) is allowed.
 *   n               element count; 0 is valid and enqueues no kernel.
 *   type, op        see clscan_type and clscan_op.
 *   num_events_in_wait_list, event_wait_list
 *                   the work starts after these events complete (as in clEnqueue*).
 *   event           if not NULL, receives a new event that completes when dst is final;
 *                   the caller releases it. With n == 0 it is a marker that completes
 *                   once the wait list has.
 *
 * The call returns once the work is enqueued: it never blocks on the device and never
 * calls clFinish. The first call for a (type, op) pair builds its program (once per
 * context; loaded from the disk cache where an earlier process built it, and never
 * built at all after clscan_context_warm). Where the device profile allows
 * (docs/DEVICES.md), the scan is one kernel, single-pass with decoupled look-back:
 * tiles find their prefix from their predecessors' published totals, and a tile that
 * waits too long computes what it waits for itself, so the scan finishes whatever the
 * device's scheduling; otherwise,
 * and for every in-place call, it is the multi-level scan (one to three kernels).
 * Temporaries live in scratch buffers owned by the context.
 *
 * Integer results are exact. Floating-point results differ from a serial loop by
 * rounding, since elements are combined in a tree, but they are reproducible: the same
 * call (device, tuning, type, op, n, in place or not) gives the same bits every time,
 * whatever the timing. The single-pass scan combines tile totals strictly left to right
 * however its look-back finds them, and a total that a waiting tile computes for a slow
 * predecessor has the predecessor's own bits (docs/ALGORITHMS.md). In place and out of
 * place may differ in the last bits (in place takes the multi-level scan).
 *
 * Returns CLSCAN_SUCCESS; CLSCAN_ERROR_INVALID_ARGUMENT for a NULL or released
 * context, a NULL queue or buffer, a queue, buffer or waited-for event of another
 * cl_context (or a queue of another device), a bad type or op, a range past the end of
 * a buffer (CL_MEM_SIZE), offset arithmetic that overflows, src and dst overlapping
 * without being the same range, or a wait list that does not match its count or holds
 * a NULL event; CLSCAN_ERROR_UNSUPPORTED for DOUBLE without fp64 or a bitwise op on a
 * float type; CLSCAN_ERROR_BUILD_FAILED; CLSCAN_ERROR_OUT_OF_RESOURCES where a
 * temporary buffer would exceed the device's largest allocation
 * (CL_DEVICE_MAX_MEM_ALLOC_SIZE); or the OpenCL error of the enqueue that failed. The
 * message (clscan_context_last_error) names the argument and the values. On any
 * failure *event is left untouched and nothing is enqueued, except when an OpenCL
 * enqueue itself fails part way (the kernels already enqueued then run harmlessly on
 * scratch memory and dst, and dst is undefined).
 * ------------------------------------------------------------------------------ */
CLSCAN_API clscan_status clscan_exclusive_scan(clscan_context *ctx, cl_command_queue queue,
                                               cl_mem src, size_t src_offset, cl_mem dst,
                                               size_t dst_offset, size_t n, clscan_type type,
                                               clscan_op op, cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list,
                                               cl_event *event);

CLSCAN_API clscan_status clscan_inclusive_scan(clscan_context *ctx, cl_command_queue queue,
                                               cl_mem src, size_t src_offset, cl_mem dst,
                                               size_t dst_offset, size_t n, clscan_type type,
                                               clscan_op op, cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list,
                                               cl_event *event);

/* ------------------------------------------------------------------------------
 * General scans: custom operators and types, input transforms, segments.
 *
 * clscan_scan does what a clscan_scan_desc describes, in one call:
 *
 *   dst[i] = e[s] op e[s+1] op ... op e[i]      (inclusive)
 *   dst[i] = e[s] op ... op e[i-1], or the identity at i == s   (exclusive)
 *
 * where e[k] is the transform of src[k] (src[k] itself without one), and s is the start
 * of the segment holding i (0 without segments). The combination is always left to right
 * in index order, so the operator need only be associative: non-commutative ones (matrix
 * products, "take the right one", string-like concatenations) are scanned correctly.
 *
 * The operator is a built-in one (type and op, as for clscan_exclusive_scan), or OpenCL C
 * given as text: `combine`, an expression over `a` and `b` (the left and right operands,
 * const, of the scan type), and `identity`, an expression for the value e with
 * combine(e, x) == combine(x, e) == x for every x (exclusive scans start from it). For
 * example, over CLSCAN_FLOAT: combine "a > b ? a : b", identity "-INFINITY". The scan
 * type may also be a
 * type of yours: `type_name` names it, `source` defines it (with any helper functions the
 * expressions call), `type_size` is its size on the host (sizeof), which must equal its
 * size on the device (a build fails otherwise, naming
 * "clscan_type_size_differs_from_device_sizeof") and be a multiple of 4. Lay such a
 * struct out with cl_ types so both sides agree, for example:
 *
 *     typedef struct { cl_float a, b, c, d; } mat2;      (host; type_size 16)
 *     source:   "typedef struct { float a, b, c, d; } mat2;
 *                mat2 mat2_mul(mat2 x, mat2 y) { mat2 r; r.a = x.a * y.a + x.b * y.c;
 *                  r.b = x.a * y.b + x.b * y.d; r.c = x.c * y.a + x.d * y.c;
 *                  r.d = x.c * y.b + x.d * y.d; return r; }
 *                mat2 mat2_one(void) { mat2 r = {1, 0, 0, 1}; return r; }"
 *     type_name "mat2", combine "mat2_mul(a, b)", identity "mat2_one()"
 *
 * The expressions must be pure (they may be evaluated more than once, in any work-item)
 * and may call OpenCL C built-ins and the functions of `source`. A compiler message
 * calls the texts "source", "combine", "identity" and "transform", each from line 1.
 *
 * User texts are device code. Every text a call takes (a description's source, combine,
 * identity, transform and output, a predicate) is pasted into an OpenCL C program and
 * compiled and run with the library's own kernels: a text can end the function it is
 * placed in and define kernels or functions of its own, read or write through any
 * pointer it forms, or hang the device. Pass only texts from a source you trust as much
 * as your own code, never text taken from a user of your program. Each text may be at
 * most max_text_bytes long (CLSCAN_MAX_TEXT_BYTES, default 65536 bytes; a 2 MiB
 * predicate overflowed the compiler's stack in the calling process on PoCL and rusticl);
 * a longer one is refused with CLSCAN_ERROR_INVALID_ARGUMENT before any compiler sees
 * it. Programs are cached (in the context and on disk) by their full text, so a text
 * may not read files: one with a directive sign (# or %:) and, read across line
 * splices, a word that reads or tests for a file (include, include_next, import, embed,
 * __has_include, __has_include_next, __has_embed) is refused the same way, even where
 * the word is only in a comment or a name. Put a header's text in `source` instead.
 *
 * The input transform: `transform`, an expression over `x` (a src element, const, of the
 * input type) and `i` (its index, const ulong, counted from src_offset, plus
 * desc->index_base: pieces of one range give their first element's global index there,
 * as clscan_scan_parts and clscan_scan_host do for theirs) giving an element
 * of the scan type, so a scan of f(x, i) needs no pass to materialise f: for example
 * "x > 0.5f ? 1 : 0" to count, or "make_pair(x, 1u)" with a function of `source` that
 * builds your struct. The input type is `input_type_name` (an OpenCL C name: "int", "uint",
 * "long", "ulong", "float", "double", or a type of `source`, whose host size is then
 * `input_type_size`); NULL means the scan type.
 *
 * Widened scans: without a transform, input_type_name may name a library type that the
 * scan type (a library type) holds without loss: "int" into CLSCAN_INT64, "uint" into
 * CLSCAN_UINT64 or CLSCAN_INT64, "float" into CLSCAN_DOUBLE. Each element is converted as
 * it is loaded, so 32-bit counts scan into 64-bit offsets (totals past 2^32) with no pass
 * and no transform to write. Any other input type without a transform is refused.
 *
 * Segments: with CLSCAN_SEGMENTS_FLAGS, `segments` holds one cl_uchar per element and a
 * nonzero one starts a new segment; with CLSCAN_SEGMENTS_KEYS it holds one key (of
 * key_type) per element and a segment starts wherever the key differs (OpenCL C `!=`;
 * for float keys a NaN starts a segment of its own) from the key before. Element 0
 * always starts a segment; its flag is not read. With CLSCAN_SEGMENTS_NONE (0),
 * `segments` must be NULL.
 *
 * Compensated sums: with `compensated` set, a FLOAT or DOUBLE add scan (built-in
 * operator, no segments) carries each partial sum as an unevaluated pair (s, c) of the
 * type: combining two pairs adds the sums and keeps the addition's rounding error exactly
 * (TwoSum) in c, and the output is s + c rounded once. The rounding errors of the
 * additions then no longer accumulate: each result y_i of the exact prefix sum S_i of
 * x_0..x_i satisfies about |y_i - S_i| <= u |S_i| + n u^2 sum |x_j| (u: half an ulp of 1
 * in the type; the bound of Ogita, Rump and Oishi's cascaded sum, whose tree form this
 * is), against about (log2 n + carries) u sum |x_j| for the plain scan. The pair doubles
 * the bytes each element takes in local memory and status words; a transform is
 * applied first (its result is the element); carries into and out of a call are rounded
 * values of the type. Reductions (clscan_reduce_desc) refuse it.
 *
 * Costs. Where the device runs the single-pass scan (docs/DEVICES.md) a call is one
 * kernel, whatever the operator, type, transform or segments: the look-back publishes a
 * struct (or a segmented scan's (value, flag) pair) split over as many status words as it
 * takes, each carrying its own tag, so no atomic wider than the device's word is needed.
 * Elsewhere it is one kernel for small n, three otherwise. In place (src == dst, same
 * offset, same element size) the input is first copied to a temporary buffer (one more
 * pass over the data; released when the call's commands finish), because a segmented
 * exclusive scan and a look-back fallback both read elements that other tiles overwrite.
 * Every distinct description is built once per context (the first call with it pays a
 * program build; the disk cache keeps the binary, as for the scans) and cannot be
 * warmed by clscan_context_warm. A call with a built-in operator, no transform and no
 * segments is an ordinary clscan_exclusive_scan or clscan_inclusive_scan.
 *
 * Results: as for the scans. Integer results of built-in operators are exact;
 * floating-point results (and every user operator's) are reproducible bit for bit for
 * the same call on the same device: for them tiles and their totals are always combined
 * in the same order, whatever the timing.
 *
 * Exact operators: a user's combine that gives the same bits however a sequence is
 * bracketed, (a op b) op c == a op (b op c) bit for bit (integer arithmetic, which wraps;
 * bitwise operations; min and max of integers; structs of these, such as a product of
 * integer matrices), may say so by defining the macro CLSCAN_COMBINE_EXACT in `source`
 * (a line "#define CLSCAN_COMBINE_EXACT"). The single-pass look-back then combines the
 * tiles' totals as it finds them instead of in a fixed bracketing, as it does for the
 * built-in integer operators; the order of the operands is kept, so the operator need
 * not be commutative. On the H200 that took the 2x2 uint matrix scan 13% less time at 2^28
 * (about 2860 to 2490 us, with the registers NVIDIA's build then fits to the kernel's local
 * memory; docs/PERFORMANCE.md). Declared for an operator that rounds (floats), it
 * gives results whose last bits may differ from call to call.
 * ------------------------------------------------------------------------------ */
typedef enum clscan_segments {
    CLSCAN_SEGMENTS_NONE = 0,  /* one scan over the whole range */
    CLSCAN_SEGMENTS_FLAGS = 1, /* a cl_uchar per element; nonzero starts a segment */
    CLSCAN_SEGMENTS_KEYS = 2   /* a key per element; a new key starts a segment */
} clscan_segments;

/* What clscan_scan computes. Zero-initialise it (clscan_scan_desc d = {0};) and set what
 * you use; zero means the default. Its layout is frozen for libclscan.so.0: a release
 * that needs more fields adds a new struct and new entry points (docs/ABI.md). The
 * library copies what it needs during the call; the strings need not outlive it. */
typedef struct clscan_scan_desc {
    /* The scan type (of dst and of the operator): a library type, used when type_name is
     * NULL; or a type of the user's, named by type_name (defined in source, or an OpenCL C
     * type such as "float2"), of type_size bytes. */
    clscan_type type;
    const char *type_name;
    size_t type_size;
    /* OpenCL C before the library's kernels: the user's types and helper functions. */
    const char *source;
    /* The operator: the built-in op when combine is NULL (library types only); else the
     * expression combine over a and b, and identity. */
    clscan_op op;
    const char *combine;
    const char *identity;
    /* The input transform, an expression over x and i (NULL: src holds the scan type),
     * and the type of src's elements (NULL: the scan type; see above for sizes). */
    const char *transform;
    const char *input_type_name;
    size_t input_type_size;
    /* Segments, and the keys' type for CLSCAN_SEGMENTS_KEYS. */
    clscan_segments segments;
    clscan_type key_type;
    /* The output stage (clscan_scan_output only): OpenCL C statements run once per
     * element with its output y, and the element types of the buffers out0 to out3 it
     * may use (NULL: that buffer is not passed). */
    const char *output;
    const char *output_types[4];
    /* The index the transform and the output stage see for the range's first element:
     * i = index_base + the element's position in the range (0: positions alone). */
    size_t index_base;
    /* Nonzero: a compensated sum (FLOAT or DOUBLE with CLSCAN_OP_ADD only; see
     * "Compensated sums" above). */
    int compensated;
} clscan_scan_desc;

/* Scans src[src_offset, +n) as *desc says into dst[dst_offset, +n), exclusive or (with
 * inclusive nonzero) inclusive, with segments from segments[segments_offset, +n) (flags
 * or keys; NULL without segments). Queues, events, wait lists, threads, n == 0 and what
 * is written (only dst[dst_offset, +n)) as for clscan_exclusive_scan; segments must not
 * overlap dst.
 *
 * Returns CLSCAN_SUCCESS; CLSCAN_ERROR_INVALID_ARGUMENT for what the scans refuse, a NULL
 * desc, a type_name without type_size (or one that is not a multiple of 4, or above 256),
 * a type_name or input_type_name longer than 64 characters,
 * combine without identity or the reverse, a user type without combine, an empty
 * expression, a text longer than max_text_bytes or one that could read a file (see "User
 * texts are device code"), an input_type_name that is not a library type's name given without
 * input_type_size, an input_type_name without a transform that the scan type does not
 * hold without loss, a bad segments value or key_type, a segments buffer missing, given
 * without segments, too short, or overlapping dst; CLSCAN_ERROR_UNSUPPORTED for DOUBLE
 * (scan, input or key type) without fp64, or a bitwise built-in op on a float type;
 * CLSCAN_ERROR_BUILD_FAILED where the texts do not compile (clscan_context_last_error
 * holds the compiler's log, its lines about your texts first);
 * CLSCAN_ERROR_OUT_OF_RESOURCES where the in-place copy would exceed the device's
 * largest allocation or the type is too large for the device's local memory; or the
 * OpenCL error of the call that failed. On failure *event is left untouched and, unless
 * an enqueue itself failed part way, nothing is enqueued. */
CLSCAN_API clscan_status clscan_scan(clscan_context *ctx, cl_command_queue queue,
                                     const clscan_scan_desc *desc, int inclusive, cl_mem src,
                                     size_t src_offset, cl_mem segments,
                                     size_t segments_offset, cl_mem dst, size_t dst_offset,
                                     size_t n, cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------------------
 * Carry-in and carry-out: scans in pieces.
 *
 * A range too large for one buffer, one device or one machine is scanned in pieces:
 * each piece starts from the combination of everything before it (its carry-in) and
 * hands on its own total (its carry-out). clscan_carry says where a call's carry-in
 * comes from and where its total goes; both are folded into the scan's own kernels, so
 * neither costs a pass over the data, and a chain of calls whose carries live in device
 * buffers needs no round trip to the host.
 *
 *   in_value       a host pointer to the carry-in, one element of the scan type (for a
 *                  general scan: desc's type, its type_size bytes; for a segmented scan,
 *                  the value type). Read during the call; it need not outlive it.
 *   in_buffer,     or the carry-in read by the device from element in_offset of a
 *   in_offset      device buffer (of the scan type), when the scan runs: an earlier
 *                  call's out_buffer, written by commands the call waits for (by queue
 *                  order or the wait list). At most one of in_value and in_buffer.
 *   out_buffer,    if not NULL, receives the range's total at element out_offset: the
 *   out_offset     carry-in (when there is one) combined with every element of the
 *                  range, left to right. That is the next piece's carry-in. It must not
 *                  overlap src, dst, the segments or the carry-in's element.
 *
 * With a carry-in c, the scan of the piece is that of c followed by its elements:
 *
 *   inclusive  dst[i] = c op x[0] op ... op x[i]
 *   exclusive  dst[i] = c op x[0] op ... op x[i-1]; dst[0] = c
 *   total      c op x[0] op ... op x[n-1]    (x[0] op ... op x[n-1] without a carry-in)
 *
 * so scanning a range in pieces, each piece's carry-in the previous one's total, gives
 * the same result as one scan: exactly for integers, and for floats up to rounding (the
 * combination's association changes at the pieces' edges). With n == 0 the total is the
 * carry-in (the identity without one), written by a kernel of one work-group.
 *
 * Segmented scans (clscan_scan with segments): the carry-in belongs to the segment that
 * was open at the end of the previous piece, and the total is that of the range's last
 * segment (with the carry-in if no segment starts in the range). With
 * CLSCAN_SEGMENTS_FLAGS, element 0's flag is read when there is a carry-in: a set flag
 * starts a new segment and the carry-in is not used (without a carry-in element 0
 * always starts one). With CLSCAN_SEGMENTS_KEYS the library cannot see the key before
 * the range: a carry-in always continues into element 0's segment, so give none where
 * the key changes at the piece's edge.
 *
 * dst may be NULL when out_buffer is given (with dst_offset 0): the call then only
 * reduces, writing the total and nothing else, for one read of the input. (clscan_reduce
 * reduces too, by plain reduce kernels, without a carry-in; floating-point totals of the
 * two may differ in the last bits.) Scanning in
 * pieces across devices or machines takes that form: reduce every piece, combine the
 * totals, then scan every piece from its combined carry-in (three passes over the data
 * in all, and the pieces run in parallel); examples/mpi_scan.c does it across MPI ranks
 * and clscan_scan_parts across the devices of one cl_context.
 * ------------------------------------------------------------------------------ */
typedef struct clscan_carry {
    const void *in_value;
    cl_mem in_buffer;
    size_t in_offset;
    cl_mem out_buffer;
    size_t out_offset;
} clscan_carry;

/* clscan_exclusive_scan and clscan_inclusive_scan with a carry (NULL: none, as the
 * plain calls; a clscan_carry with every field zero is the same), and clscan_scan with
 * one. Everything else as for those calls, and in addition they return
 * CLSCAN_ERROR_INVALID_ARGUMENT for both in_value and in_buffer given, a carry buffer of
 * another cl_context, an in_offset or out_offset past the end of its buffer, out_buffer's
 * element overlapping src, dst, the segments or the carry-in's element, or dst NULL
 * without out_buffer (or with a dst_offset). In place (src == dst) with a carry is
 * allowed, as without one. */
CLSCAN_API clscan_status clscan_exclusive_scan_carry(
    clscan_context *ctx, cl_command_queue queue, cl_mem src, size_t src_offset, cl_mem dst,
    size_t dst_offset, size_t n, clscan_type type, clscan_op op, const clscan_carry *carry,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

CLSCAN_API clscan_status clscan_inclusive_scan_carry(
    clscan_context *ctx, cl_command_queue queue, cl_mem src, size_t src_offset, cl_mem dst,
    size_t dst_offset, size_t n, clscan_type type, clscan_op op, const clscan_carry *carry,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

CLSCAN_API clscan_status clscan_scan_carry(clscan_context *ctx, cl_command_queue queue,
                                           const clscan_scan_desc *desc, int inclusive,
                                           cl_mem src, size_t src_offset, cl_mem segments,
                                           size_t segments_offset, cl_mem dst,
                                           size_t dst_offset, size_t n,
                                           const clscan_carry *carry,
                                           cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list,
                                           cl_event *event);

/* ------------------------------------------------------------------------------
 * The output stage: scan, then scatter, in one pass.
 *
 * A scan's result is often only a means: offsets at which each element writes something
 * (compaction, CSR row pointers, variable-length output, a radix split). With
 * desc->output, clscan_scan_output runs OpenCL C statements once per element, in the
 * scan's own kernel, right where the element's result is known, instead of (dst NULL)
 * or as well as storing it in dst. The statements see
 *
 *   y      the element's result (const, what dst[i] would get: the scan type, or a
 *          segmented scan's value type)
 *   x      the element as read from src (const, of the input type: before any
 *          transform)
 *   i      its index in the range (const ulong, plus desc->index_base), p its
 *          position in the range (const ulong: i without desc->index_base), and n,
 *          the range's length (const ulong)
 *   s      with segments: how many segments began at or before element i within the
 *          range (const ulong; 1 for the first segment's elements when element 0 starts
 *          one, 0 for elements that continue a carry-in's segment; it stops counting at
 *          2^32 - 1); 0 without segments
 *   first  1 where the element starts a segment (one that s counts), else 0 (const
 *          uint; always 0 without segments)
 *   last   1 where the element is the last of its segment in the range: the range's
 *          last element, or the next element starts a segment; else 0 (const uint;
 *          without segments 1 for the range's last element only). Without a
 *          carry-in, "if (last) out0[s - 1] = y;" writes each segment's result at its
 *          number (reduce by key). The kernel takes first and last from the head flags
 *          it holds where it can; on GPUs that costs less than comparing keys through
 *          segments
 *   segments  the call's segment buffer from segments_offset on (flags as uchar, or the
 *          keys), const, to compare an element's key with its neighbours'
 *   out0 .. out3   __global pointers to the element types desc->output_types[0..3]
 *          names: the buffers `outputs` passes, from element output_offsets[k] on; an
 *          output without a type is a null `__global const void *`, which the
 *          statements cannot index (CLSCAN_ERROR_BUILD_FAILED where they try)
 *
 * and may write to the output buffers (and read them, and read anything else they can
 * reach through them). Example, a variable-length output: with an exclusive add scan of
 * per-element lengths, "for (uint k = 0; k < x; ++k) out0[y + k] = (float)i;" writes
 * element i's x values at its offset y, with no offsets array in between;
 * examples/csr_from_coo.c builds a CSR matrix's row pointers and column and value arrays
 * from sorted COO entries in one call.
 *
 * The statements are device code of yours, as the other texts are: the library cannot
 * check their indices, so a write outside an output buffer is the caller's bug. They run
 * exactly once per element, in no particular order across elements (work-items run in
 * parallel), after the element's result is final; they must not write to src, dst, the
 * segments or the carry's buffers (reading src through an output buffer is fine). Each
 * distinct text (with its types) is one program, as for clscan_scan. On devices that stop
 * a work-item after a number of loop iterations (Mesa's llvmpipe: 65535), the tiles of an
 * output stage are made small enough to leave 16 iterations an element for loops in the
 * statements; statements that loop more per element may be cut short there.
 *
 *   outputs, num_outputs  up to four buffers of the call's cl_context: outputs[k] is
 *                         out k, and is given exactly where output_types[k] is set.
 *   output_offsets        NULL, or num_outputs element offsets (out k points to element
 *                         output_offsets[k] of outputs[k]).
 *   dst                   may be NULL (with dst_offset 0): then only the statements run.
 *
 * Everything else (desc, inclusive, src, segments, carry, events) as for
 * clscan_scan_carry; the carry's total is written as there. Returns what clscan_scan_carry
 * returns, and CLSCAN_ERROR_INVALID_ARGUMENT for a desc without output, more than four
 * outputs, a buffer missing where its type is given or given where its type is not, an
 * output buffer of another cl_context, or an output type name longer than 64
 * characters; CLSCAN_ERROR_BUILD_FAILED where the statements do not compile (the log
 * calls them "output", from line 1). clscan_scan, clscan_scan_carry and the calls built
 * on them refuse a desc with output (CLSCAN_ERROR_INVALID_ARGUMENT).
 * ------------------------------------------------------------------------------ */
CLSCAN_API clscan_status clscan_scan_output(clscan_context *ctx, cl_command_queue queue,
                                            const clscan_scan_desc *desc, int inclusive,
                                            cl_mem src, size_t src_offset, cl_mem segments,
                                            size_t segments_offset, cl_mem dst,
                                            size_t dst_offset, size_t n,
                                            const cl_mem *outputs,
                                            const size_t *output_offsets, cl_uint num_outputs,
                                            const clscan_carry *carry,
                                            cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------------------
 * One range over several devices: clscan_scan_parts.
 *
 * Scans one logical range whose parts lie on different devices of one cl_context (say
 * the two GPUs of one machine, or the sub-devices of a CPU), each part scanned by its
 * own device, as if it were one clscan_scan_carry over the parts in order. Every
 * device but the last reduces its part (dst NULL, its total into a small buffer the
 * library creates); the device of part 0 scans those totals, starting from the call's
 * carry-in; then every device scans its part from its combined carry-in. The data
 * never moves between devices: only one element per part does, inside the cl_context.
 * The parts run in parallel, each reading its input twice and writing it once, and the
 * call never blocks. Segmented scans (flags) chain the parts instead: part p starts
 * from part p - 1's total once that part is scanned (a total does not say whether a
 * segment started in its part), so the parts run one after the other.
 *
 *   parts, nparts  the parts in order; every part's ctx must be a clscan context of the
 *                  same cl_context (one per device; two parts may share a device), its
 *                  queue one of ctx's device; src, segments, dst, their offsets and n as
 *                  for clscan_scan (segments NULL without them; n == 0 is fine).
 *   desc, inclusive  as for clscan_scan; CLSCAN_SEGMENTS_KEYS is refused
 *                  (CLSCAN_ERROR_UNSUPPORTED: keys at the parts' edges are not compared).
 *                  A transform's index i counts across the parts: part p's first element
 *                  has desc->index_base plus the n of the parts before it.
 *   carry          as for clscan_scan_carry, for the whole range: out_buffer (of the
 *                  cl_context) receives the total of all parts. NULL: none.
 *   num_events_in_wait_list, event_wait_list
 *                  every part's work starts after these.
 *   events         NULL, or nparts events: events[p] completes when part p's dst is
 *                  final (and for the last part, the carry's out_buffer too).
 *
 * Returns what clscan_scan_carry returns for any part, and
 * CLSCAN_ERROR_INVALID_ARGUMENT for nparts 0, NULL parts, a NULL or released context,
 * or parts of different cl_contexts. A failure's message is in clscan_context_last_error
 * of the part it concerns (and of NULL, for the thread). On failure no event is
 * returned, and nothing that writes the parts' dst or the carry's out_buffer is
 * enqueued unless an enqueue itself failed part way (reductions of earlier parts may
 * have been, and write only the library's temporary buffer).
 *
 * Parts in different cl_contexts (or on different machines) follow the same steps with
 * a host step in the middle: reduce each part with clscan_scan_carry (dst NULL), read
 * the totals, combine them (for built-in operators on the host; MPI_Exscan across
 * machines), and scan each part with in_value: see examples/mpi_scan.c and
 * docs/GUIDE.md.
 * ------------------------------------------------------------------------------ */
typedef struct clscan_part {
    clscan_context *ctx;
    cl_command_queue queue;
    cl_mem src;
    size_t src_offset;
    cl_mem segments;
    size_t segments_offset;
    cl_mem dst;
    size_t dst_offset;
    size_t n;
} clscan_part;

CLSCAN_API clscan_status clscan_scan_parts(const clscan_scan_desc *desc, int inclusive,
                                           const clscan_part *parts, size_t nparts,
                                           const clscan_carry *carry,
                                           cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list,
                                           cl_event *events);

/* ------------------------------------------------------------------------------
 * Host ranges larger than the device: clscan_scan_host.
 *
 * Scans n elements of host memory, src, into host memory, dst, through the device in
 * chunks of `chunk` elements: each chunk is written to the device, scanned with
 * clscan_scan_carry from the previous chunk's total (kept in a device buffer, so the
 * chain never waits for the host), and read back. Chunks alternate between the two
 * queues, so that one chunk's transfers overlap the other queue's work (on a GPU with
 * copy engines: uploads, scans and read-backs of different chunks at the same time).
 * The result is that of one clscan_scan_carry over the whole range: exactly for
 * integers, up to rounding for floats (the association changes at the chunks' edges, so
 * float results also depend on the chunk).
 *
 *   queues         two command queues of ctx's cl_context and device (in-order or not;
 *                  both may be the same queue, which gives no overlap). Even chunks go
 *                  to queues[0], odd ones to queues[1]; the call ends with a marker on
 *                  queues[0] after both, so later commands on an in-order queues[0] run
 *                  after the whole call.
 *   desc, inclusive  as for clscan_scan, without segments (CLSCAN_ERROR_UNSUPPORTED)
 *                  and without an output stage. A transform's index i is the element's
 *                  index in the whole range (plus desc->index_base): each chunk's scan
 *                  starts from its first element's.
 *   src, dst       host memory: n elements of the input type and of the scan type. They
 *                  must stay valid, src unchanged and dst untouched, until *event
 *                  completes. dst == src (in place) is allowed when both types have the
 *                  same size; any other overlap is refused. Pinned memory (from
 *                  clEnqueueMapBuffer of a CL_MEM_ALLOC_HOST_PTR buffer on most GPUs)
 *                  transfers fastest, and only pinned memory lets a transfer overlap
 *                  other work on some drivers.
 *   chunk          elements per chunk; 0 lets the library choose (docs/GUIDE.md); more
 *                  than n is one chunk of n. The call allocates two sets of chunk buffers
 *                  (2 * chunk * (input + output size) bytes; one set for a single chunk),
 *                  released when its commands finish.
 *   carry          as for clscan_scan_carry, over the whole range; NULL: none. A carry-in
 *                  buffer is read by chunk 0's scan, on queues[0], after the wait list.
 *   num_events_in_wait_list, event_wait_list
 *                  the first commands (the first upload on each queue) wait for these.
 *   event          if not NULL, completes when all of dst is written (and the total).
 *
 * n == 0 transfers nothing: with carry->out_buffer the total (the carry-in, or the
 * identity) is written as clscan_scan_carry writes it; otherwise *event is a marker after
 * the wait list. The call returns once every chunk's commands are enqueued: it never
 * blocks. Returns what clscan_scan_carry returns, and CLSCAN_ERROR_INVALID_ARGUMENT for
 * a NULL queue array or host pointer (with n > 0), overlapping src and dst, or a chunk
 * whose buffers would exceed the device's largest allocation; or
 * CLSCAN_ERROR_UNSUPPORTED for segments. Arguments are
 * checked, the carry's too, before anything is enqueued; a failure after that (a build
 * failure at chunk 0's scan, an enqueue that fails) leaves the commands already enqueued
 * to run, without an event: they may still read src and write dst, so finish both queues
 * (clFinish) before reusing that memory.
 * ------------------------------------------------------------------------------ */
CLSCAN_API clscan_status clscan_scan_host(clscan_context *ctx, const cl_command_queue queues[2],
                                          const clscan_scan_desc *desc, int inclusive,
                                          const void *src, void *dst, size_t n, size_t chunk,
                                          const clscan_carry *carry,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------------------
 * Reductions.
 *
 * clscan_reduce writes one element, the combination of all n elements of
 * src[src_offset, +n) under op, to result[result_offset]:
 *
 *   result[result_offset] = src[0] op src[1] op ... op src[n-1]   (the identity for n == 0)
 *
 * clscan_reduce_desc does the same for what a clscan_scan_desc describes (a custom
 * operator, a type of yours, an input transform; no segments): the combination of e[0],
 * ..., e[n-1], the transformed elements, of desc's scan type. Its texts are compiled as
 * clscan_scan compiles them (the same program, built once per context and description).
 *
 * The result stays on the device: the call never reads it back, so a pipeline goes on
 * without a round trip (read it with clEnqueueReadBuffer after the call's event where
 * the host needs it). Nothing but that one element of result is written. result must not
 * overlap src's range.
 *
 * Order: each work-group folds a contiguous run of the range and the runs' totals are
 * folded in order. clscan_reduce_desc keeps index order within a run too (its operator
 * need only be associative). clscan_reduce's built-in operators are all commutative, so
 * on devices with more than one work-item per group each work-item folds a strided
 * share of its group's run (wide loads, no local tile). Either way floating-point
 * results differ from a serial loop by rounding but are reproducible: the same call
 * (device, tuning, type, op, n, src_offset) gives the same bits every time. It is not
 * the same association as a scan's total (clscan_scan_carry's out_buffer), so the two
 * may differ in the last bits.
 *
 * Cost: one read of the input. Each work-group reduces a run of tiles to a partial in
 * one kernel, and a second kernel of one work-group reduces the partials into result
 * (small n: one kernel of one work-group). Temporaries live in the context's scratch.
 *
 * Events, wait lists, queues and threads as for the scans. Returns CLSCAN_SUCCESS;
 * CLSCAN_ERROR_INVALID_ARGUMENT for what the scans refuse (for clscan_reduce_desc, what
 * clscan_scan refuses of desc), a NULL result, result_offset past its end, result
 * overlapping src's range, or a desc with segments; CLSCAN_ERROR_UNSUPPORTED for DOUBLE
 * without fp64 or a bitwise op on a float type; CLSCAN_ERROR_BUILD_FAILED;
 * CLSCAN_ERROR_OUT_OF_RESOURCES; or the OpenCL error of the enqueue that failed. On
 * failure *event is left untouched and, unless an enqueue itself failed part way,
 * nothing is enqueued.
 * ------------------------------------------------------------------------------ */
CLSCAN_API clscan_status clscan_reduce(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                       size_t src_offset, size_t n, clscan_type type,
                                       clscan_op op, cl_mem result, size_t result_offset,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event);

CLSCAN_API clscan_status clscan_reduce_desc(clscan_context *ctx, cl_command_queue queue,
                                            const clscan_scan_desc *desc, cl_mem src,
                                            size_t src_offset, size_t n, cl_mem result,
                                            size_t result_offset,
                                            cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------------------
 * Reduce by key, and run-length encoding.
 *
 * clscan_reduce_by_key reduces each segment of values[values_offset, +n) to one element:
 * segments as desc->segments says (CLSCAN_SEGMENTS_KEYS: runs of equal keys in
 * keys[keys_offset, +n), of desc->key_type, compared with OpenCL C `!=`, so a NaN key is
 * a segment of its own; CLSCAN_SEGMENTS_FLAGS: `keys` holds one cl_uchar per element and
 * a nonzero one starts a segment), and the reduction as for clscan_reduce_desc (a
 * built-in or custom operator, a type of yours, a transform of the values). For the
 * m segments in order it writes
 *
 *   reduced[reduced_offset + j]         segment j's values combined left to right
 *   unique_keys[unique_keys_offset + j] segment j's key, as its first element has it
 *                                       (CLSCAN_SEGMENTS_KEYS; NULL: not written; with
 *                                       flags it must be NULL)
 *   count                               m, as one cl_ulong at byte 0 (0 for n == 0)
 *
 * reduced and unique_keys need room for n elements (m <= n); nothing past element m - 1
 * is written. The count stays on the device, as for the compactions.
 *
 * clscan_run_length_encode does that for runs of equal elements of src (CUB's
 * RunLengthEncode::Encode): unique[unique_offset + j] is run j's first element,
 * lengths[lengths_offset + j] its length (length_type CLSCAN_UINT32 or CLSCAN_UINT64),
 * and count the number of runs. Float elements compare with `!=`: every NaN is a run of
 * its own, and -0.0 continues a run of +0.0.
 *
 * Cost: reduce by key, one pass, the segmented scan's kernel with an output stage
 * (clscan_scan_output) that writes each segment's result at its last element; one
 * program per description, built on first use. Run-length encoding, one pass of the
 * compaction kernel (as clscan_unique, which also writes the lengths); one program per
 * element type and length type. Segments are numbered in 32 bits: n of 2^32 or more is
 * refused (CLSCAN_ERROR_UNSUPPORTED). Results are exact for integers and for non-float
 * operators; float sums are reproducible as for the scans.
 *
 * Events, wait lists, queues and threads as for the scans. Returns CLSCAN_SUCCESS;
 * CLSCAN_ERROR_INVALID_ARGUMENT for what clscan_scan refuses (for the description, the
 * values and keys), a desc without segments or with its own output, unique_keys given
 * with flags, a NULL or too short reduced, unique_keys, unique or lengths range, a NULL
 * count or one under 8 bytes, outputs overlapping one another or the inputs, or a
 * length_type other than UINT32 or UINT64; CLSCAN_ERROR_UNSUPPORTED for DOUBLE without
 * fp64; CLSCAN_ERROR_BUILD_FAILED; or the OpenCL error of the enqueue that failed. On
 * failure *event is left untouched and, unless an enqueue itself failed part way,
 * nothing is enqueued.
 * ------------------------------------------------------------------------------ */
CLSCAN_API clscan_status clscan_reduce_by_key(clscan_context *ctx, cl_command_queue queue,
                                              const clscan_scan_desc *desc, cl_mem keys,
                                              size_t keys_offset, cl_mem values,
                                              size_t values_offset, size_t n,
                                              cl_mem unique_keys, size_t unique_keys_offset,
                                              cl_mem reduced, size_t reduced_offset,
                                              cl_mem count, cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event);

CLSCAN_API clscan_status clscan_run_length_encode(clscan_context *ctx, cl_command_queue queue,
                                                  cl_mem src, size_t src_offset, size_t n,
                                                  clscan_type type, cl_mem unique,
                                                  size_t unique_offset, cl_mem lengths,
                                                  size_t lengths_offset,
                                                  clscan_type length_type, cl_mem count,
                                                  cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list,
                                                  cl_event *event);

/* Runs longer than one element (CUB's RunLengthEncode::NonTrivialRuns): for the runs of
 * equal elements of src[src_offset, +n) that have two elements or more, in order, run c's
 * first index (counted from src_offset) at offsets[offsets_offset + c] and its length at
 * lengths[lengths_offset + c], both of length_type (CLSCAN_UINT32 or CLSCAN_UINT64), and
 * their number as one cl_ulong at byte 0 of count. Elements compare as for
 * clscan_run_length_encode. offsets and lengths need room for n / 2 elements (no more
 * runs can be that long); nothing past the last such run is written.
 *
 * Cost: two passes and a temporary of n cl_uints created by the call (released at once;
 * OpenCL frees it when the commands are done): a segmented scan writes each run's length
 * at its last element, then an unsegmented scan counts the lengths above one and writes
 * the outputs; two programs, built on first use. Returns what clscan_run_length_encode
 * returns (a NULL or too short offsets or lengths range; CLSCAN_ERROR_OUT_OF_RESOURCES
 * where the temporary cannot be had). Where the second pass fails after the first was
 * enqueued, the first has written only the temporary.
 */
CLSCAN_API clscan_status clscan_run_length_encode_nontrivial(
    clscan_context *ctx, cl_command_queue queue, cl_mem src, size_t src_offset, size_t n,
    clscan_type type, cl_mem offsets, size_t offsets_offset, cl_mem lengths,
    size_t lengths_offset, clscan_type length_type, cl_mem count,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------------------
 * Histograms.
 *
 * clscan_histogram_even counts the n samples of samples[samples_offset, +n), of
 * sample_type, into num_bins even bins over [*lower, *upper): counts[counts_offset + b]
 * becomes the number of samples x with lower <= x < upper whose bin is b,
 *
 *   integer types:  b = floor((x - lower) * num_bins / (upper - lower)), exactly (the
 *                   difference and the product are taken without overflow);
 *   float, double:  b = min(num_bins - 1, (size_t)((x - lower) * scale)), with
 *                   scale = (T)num_bins / (upper - lower), every operation rounded in
 *                   the sample type T (a sample on a bin's edge falls where that
 *                   arithmetic puts it; host code doing the same gets the same bins).
 *
 * clscan_histogram_range takes the bins' edges instead: num_bins + 1 ascending levels in
 * levels[levels_offset, +num_bins + 1) (a device buffer of sample_type), and bin b holds
 * the samples with levels[b] <= x < levels[b + 1]. Levels that are not ascending give
 * some bin for each sample in range, never a write outside counts.
 *
 * Samples outside the range, and NaNs, are not counted. Every one of the num_bins counts
 * is written (overwritten, not added to), also for n == 0. count_type is CLSCAN_UINT32
 * (a count above 2^32 - 1 wraps) or CLSCAN_UINT64. lower and upper point to one value of
 * sample_type each (read during the call), with lower < upper (for floats, both finite).
 * Devices that flush denormals to zero may bin denormal samples or bounds as zeros.
 *
 * Counts to offsets: an exclusive scan of the counts (clscan_exclusive_scan with
 * CLSCAN_OP_ADD on count_type, in place allowed) turns them into each bin's first
 * position in a bucketed output, the scatter step of a counting sort.
 *
 * Cost: one read of the samples. Where num_bins, rounded up to a power of two (256 at
 * least), fits in an eighth of the device's local memory (less 1 KiB) as 32-bit counters,
 * and 16384 at most (1024 bins on a 48 KiB device, 4096 on a 160 KiB one), each
 * work-group counts its share there; on devices with cl_khr_int64_base_atomics the
 * groups then add their counts into num_bins 64-bit words and the last to arrive at a
 * bin writes its count, one kernel (the words are a scratch buffer that every call
 * leaves at zero, cleared once when made), elsewhere each group writes one row of
 * partial counts and a second kernel sums the rows into counts (a scratch buffer of rows
 * * num_bins 32-bit counts); beyond that the samples are counted with global atomics
 * into a cleared scratch row. Counts are exact and do not depend on timing. Each sample type, kind of bins and power of two of local
 * counters (256 and up) is one program, built on first use.
 *
 * Events, wait lists, queues and threads as for the scans. Returns CLSCAN_SUCCESS;
 * CLSCAN_ERROR_INVALID_ARGUMENT for what the scans refuse, a count_type other than
 * UINT32 or UINT64, num_bins 0 or above 2^31, NULL lower or upper, lower >= upper (or a
 * NaN or infinite bound), a NULL or too short counts or levels buffer, or counts
 * overlapping samples or levels; CLSCAN_ERROR_UNSUPPORTED for DOUBLE samples without
 * fp64; CLSCAN_ERROR_OUT_OF_RESOURCES; or the OpenCL error of the enqueue that failed.
 * On failure *event is left untouched and, unless an enqueue itself failed part way,
 * nothing is enqueued.
 * ------------------------------------------------------------------------------ */
CLSCAN_API clscan_status clscan_histogram_even(clscan_context *ctx, cl_command_queue queue,
                                               cl_mem samples, size_t samples_offset,
                                               size_t n, clscan_type sample_type,
                                               size_t num_bins, const void *lower,
                                               const void *upper, cl_mem counts,
                                               size_t counts_offset, clscan_type count_type,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list,
                                               cl_event *event);

CLSCAN_API clscan_status clscan_histogram_range(clscan_context *ctx, cl_command_queue queue,
                                                cl_mem samples, size_t samples_offset,
                                                size_t n, clscan_type sample_type,
                                                size_t num_bins, cl_mem levels,
                                                size_t levels_offset, cl_mem counts,
                                                size_t counts_offset, clscan_type count_type,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list,
                                                cl_event *event);

/* ------------------------------------------------------------------------------
 * Stream compaction: select, partition, unique.
 *
 * Each of these keeps some elements of src[src_offset, +n), in their order, writes them
 * to dst from dst_offset on, and writes how many it kept as one cl_ulong at byte 0 of
 * `count` (a device buffer of at least 8 bytes: the call never reads it back, so a
 * pipeline can go on without a round trip to the host). Indices are relative to the
 * offsets: element i is src[src_offset + i]. Counts and positions are 64-bit throughout
 * (the tiles' counts are scanned as 64-bit integers from 2^32 elements on), so ranges of
 * 2^32 elements and more compact correctly.
 *
 *   clscan_select_flagged  keeps element i where flags[flags_offset + i] (one cl_uchar
 *                          per element) is nonzero.
 *   clscan_select_if       keeps element i where `predicate` is true (nonzero).
 *   clscan_partition_if    writes all n elements: those where `predicate` is true first,
 *                          in order, at dst[0, kept); then the others in REVERSE order,
 *                          at dst[kept, n) (the last rejected element at dst[kept], the
 *                          first at dst[n - 1]), as CUB's DevicePartition does: one pass
 *                          cannot know where the rejected ones would start in order.
 *   clscan_unique          keeps element 0 and each element not equal (OpenCL C `!=`)
 *                          to the one before it in src: runs of equal elements shrink to
 *                          their first. For float types a NaN equals nothing (every NaN
 *                          is kept) and -0.0 equals +0.0.
 *
 * The predicate is an OpenCL C expression over `x`, the element (const, of `type`: int,
 * uint, long, ulong, float or double), and `i`, its index (const ulong, counted from
 * src_offset), for example "x > 0", "(x & 1) == 0" or "i % 3 == 0 && !isnan(x)". It may
 * call OpenCL C built-in functions. It must be pure: it may be evaluated more than once
 * per element. It is device code from a trusted source, at most max_text_bytes long (see
 * "User texts are device code" above). Each distinct predicate text is compiled once per
 * context and type and
 * cached; one that does not compile gives CLSCAN_ERROR_BUILD_FAILED, with the
 * compiler's log in clscan_context_last_error(): first its lines about your text (called
 * "predicate", numbered from its line 1), then the library's own lines, then the build's
 * #define block.
 *
 * Selects and unique write only dst[dst_offset, dst_offset + kept); the rest of
 * [dst_offset, dst_offset + n) is left as it was. Partition writes all n. Nothing
 * outside [dst_offset, dst_offset + n) and count's first 8 bytes is written.
 *
 * In place (src == dst, src_offset == dst_offset) is allowed for all four: the call then
 * copies the input into a temporary device buffer of n elements first (released by the
 * library once the call's commands finish), because tiles of a compaction write where
 * other tiles may still be reading. Any other overlap of src, dst, flags and count's 8
 * bytes within one buffer is refused. (Overlap through sub-buffers of one buffer is not
 * detected and gives undefined results.)
 *
 * Where the device runs the single-pass scan (docs/DEVICES.md), each call is one
 * kernel: every tile loads its elements, evaluates the predicate, scans the keep flags
 * in the work-group, finds how many earlier tiles kept by the decoupled look-back, and
 * writes its kept elements; the last tile writes the count. Elsewhere it is one to
 * three kernels (count per work-group, scan of the counts, write; small n: the write
 * alone). In place adds a copy first. Results are exact for every type, floats
 * included: elements are moved, never combined. n == 0 is valid: the count (0) is
 * still written, by a kernel.
 *
 * Events, wait lists, queues and threads as for the scans. Returns CLSCAN_SUCCESS;
 * CLSCAN_ERROR_INVALID_ARGUMENT for what the scans refuse, a NULL predicate, an empty
 * one, one longer than max_text_bytes or one that could read a file, a flags range past
 * the end of its buffer, a count buffer smaller than 8 bytes,
 * or overlapping ranges; CLSCAN_ERROR_UNSUPPORTED for DOUBLE without fp64;
 * CLSCAN_ERROR_BUILD_FAILED (a predicate that does not compile);
 * CLSCAN_ERROR_OUT_OF_RESOURCES where the in-place copy would exceed the device's
 * largest allocation; or the OpenCL error of the call that failed. On failure *event is
 * left untouched and, unless an enqueue itself failed part way, nothing is enqueued.
 * ------------------------------------------------------------------------------ */
CLSCAN_API clscan_status clscan_select_flagged(clscan_context *ctx, cl_command_queue queue,
                                               cl_mem src, size_t src_offset, cl_mem flags,
                                               size_t flags_offset, cl_mem dst,
                                               size_t dst_offset, cl_mem count, size_t n,
                                               clscan_type type,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list,
                                               cl_event *event);

CLSCAN_API clscan_status clscan_select_if(clscan_context *ctx, cl_command_queue queue,
                                          cl_mem src, size_t src_offset, cl_mem dst,
                                          size_t dst_offset, cl_mem count, size_t n,
                                          clscan_type type, const char *predicate,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

CLSCAN_API clscan_status clscan_partition_if(clscan_context *ctx, cl_command_queue queue,
                                             cl_mem src, size_t src_offset, cl_mem dst,
                                             size_t dst_offset, cl_mem count, size_t n,
                                             clscan_type type, const char *predicate,
                                             cl_uint num_events_in_wait_list,
                                             const cl_event *event_wait_list,
                                             cl_event *event);

CLSCAN_API clscan_status clscan_unique(clscan_context *ctx, cl_command_queue queue,
                                       cl_mem src, size_t src_offset, cl_mem dst,
                                       size_t dst_offset, cl_mem count, size_t n,
                                       clscan_type type, cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------------------
 * Compaction of any element type, and stable partition: clscan_compact.
 *
 * The calls above move elements of the library's types. clscan_compact moves elements of
 * any OpenCL C type (float4, a struct of yours) that `predicate` keeps, and can partition
 * stably: the rejected elements follow the kept ones in their input order.
 *
 *   type_name, type_size, source  the elements' OpenCL C type, its size on the host
 *                  (sizeof of the same layout; checked against the device's when the
 *                  program is built), and OpenCL C defining it (NULL for a built-in type
 *                  such as "float4" or "int2").
 *   predicate      an expression over x (const, of the type) and i (its index, const
 *                  ulong), as for clscan_select_if; compiler messages call it
 *                  "transform" (it is compiled inside one), or "predicate" where the
 *                  call is clscan_select_if's (below).
 *   partition      0: keep the selected elements at dst[0, kept) (the rest of dst is left
 *                  as it was); nonzero: write all n elements, the rejected ones at
 *                  dst[kept, n).
 *   stable         with partition: the rejected elements in input order (one more read
 *                  of the input: the count is reduced first); 0: in reverse order, as
 *                  clscan_partition_if writes them, in one pass.
 *
 * The number kept goes to count (one cl_ulong) as for the other compactions. src and dst
 * must not overlap. Costs: one general scan with an output stage (clscan_scan_output:
 * positions are scanned in 64 bits), plus a reduction for a stable partition; one
 * program per description, built on first use. Where type_name is one of the library's
 * types as OpenCL C names it (int, uint, long, ulong, float, double; double on a device
 * with fp64), type_size is its size, source is NULL and the predicate is not blank, a
 * select is clscan_select_if's call and an unstable partition clscan_partition_if's
 * (same results, one pass of their kernel, errors as they report them).
 * ------------------------------------------------------------------------------ */
typedef struct clscan_compact_desc {
    const char *type_name;
    size_t type_size;
    const char *source;
    const char *predicate;
    int partition;
    int stable;
} clscan_compact_desc;

/* Returns CLSCAN_SUCCESS; CLSCAN_ERROR_INVALID_ARGUMENT for a NULL desc, type_name or
 * predicate, a type_size of 0 or (for a library type's name: int, uint, long, ulong,
 * float, double) other than that type's size, a type_name longer than 64 characters, a
 * source or predicate longer than max_text_bytes or one that could read a file, stable
 * without partition, src, dst or count ranges past their buffers (count: 8 bytes), src
 * and dst overlapping, and what the scans refuse of the queue and events;
 * CLSCAN_ERROR_BUILD_FAILED where the texts do not compile or type_size differs from the
 * device's sizeof; or the OpenCL error of the enqueue that failed. On failure *event is
 * left untouched and, unless an enqueue itself failed part way, nothing is enqueued. */
CLSCAN_API clscan_status clscan_compact(clscan_context *ctx, cl_command_queue queue,
                                        const clscan_compact_desc *desc, cl_mem src,
                                        size_t src_offset, cl_mem dst, size_t dst_offset,
                                        cl_mem count, size_t n,
                                        cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------------------
 * Radix sort.
 *
 * clscan_sort_keys sorts the n keys of src[src_offset, +n) into dst[dst_offset, +n),
 * ascending. clscan_sort_pairs sorts keys[keys_offset, +n) into keys_out and moves each
 * value with its key: values_out[i] is the value that was beside the key now at
 * keys_out[i] (values[j] belongs to keys[j]). Both are stable: keys that compare equal
 * keep their input order, and so do their values.
 *
 *   key_type        any clscan_type. Integers sort by value (signed ones as two's
 *                   complement: INT_MIN first). FLOAT and DOUBLE sort by their bits in
 *                   the usual radix order (a negative number with all its bits flipped,
 *                   a positive one with its sign bit flipped): -INFINITY < negative
 *                   numbers < -0.0 < +0.0 < positive numbers < +INFINITY, so -0.0 sorts
 *                   before +0.0, a NaN with the sign bit clear after +INFINITY and one
 *                   with it set before -INFINITY, NaNs among themselves by their bits.
 *                   DOUBLE needs a device with fp64.
 *   value_type      any clscan_type: values are moved as their 4 or 8 bytes, never
 *                   looked at (DOUBLE values need no fp64).
 *   offsets, n      in elements of each range's own type. n == 0 is valid.
 *
 * In place (src == dst with src_offset == dst_offset; for pairs keys and keys_out, or
 * values and values_out, likewise) is allowed. Any other overlap is refused: an output
 * must be its own input's exact range or share no byte with any input or the other
 * output. The two inputs of sort_pairs, only read, may overlap each other. (Overlap
 * through sub-buffers of one buffer is not detected and gives undefined results.)
 * Nothing outside the outputs' ranges is written; the inputs are not written unless
 * they are the outputs.
 *
 * The sort is least-significant digit first, with 8-bit digits: 4 passes over 32-bit
 * keys, 8 over 64-bit ones, in one of two forms (CLSCAN_SORT_ALGO, or the options'
 * sort_algorithm; docs/ALGORITHMS.md). One-sweep, the default on NVIDIA's platform for
 * fewer than 2^30 keys: one kernel clears its counters, one counts the digits of every
 * pass, then one kernel per pass whose tiles find their places by look-back (with a
 * bounded wait, as the single-pass scan; for 4-byte keys, alone or with 4-byte values, a
 * pass with at most CLSCAN_SORT_MAX_REGISTERS registers, the options' sort_max_registers). Three-step, the default elsewhere: per pass a
 * histogram of every work-group's digits, a scan of those counts (the library's
 * multi-level scan) and a stable scatter, 3 to 5 kernels; on CPUs (groups of one
 * work-item), where the keys and values fill the cache (CLSCAN_GLOBAL_MEM_CACHE_SIZE),
 * a pass by the eight bits that end at the highest bit in which the keys differ first
 * puts them in 256 buckets,
 * each then sorted on its own, and the passes return at once (the device decides, from
 * the buckets' sizes, which form runs). The passes alternate between
 * the output and a temporary of n keys (and n values) in the context's scratch memory,
 * with the counts (one-sweep: and 2 x 1 KiB of status words per tile of a few thousand
 * keys), which the context keeps for later calls and frees when it is released; a
 * scratch that would exceed the device's largest allocation
 * (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is refused with CLSCAN_ERROR_OUT_OF_RESOURCES. The
 * first call for a (key type, value size) builds the sort's program (three-step: and
 * the scan's program for the counts if no call built it yet); clscan_context_warm does
 * not build the sort programs.
 *
 * Events, wait lists, queues and threads as for the scans: the call returns once the
 * work is enqueued, never blocks, and *event (if not NULL) completes when the outputs
 * are final (with n == 0, a marker after the wait list). Returns CLSCAN_SUCCESS;
 * CLSCAN_ERROR_INVALID_ARGUMENT for a NULL or released context, a NULL queue or
 * buffer, a queue, buffer or waited-for event of another cl_context (or a queue of
 * another device), a key_type or value_type outside clscan_type, a range past the end
 * of its buffer, offset arithmetic that overflows, overlapping ranges (above), or a
 * wait list that does not match its count or holds a NULL event;
 * CLSCAN_ERROR_UNSUPPORTED for DOUBLE keys without fp64; CLSCAN_ERROR_BUILD_FAILED;
 * CLSCAN_ERROR_OUT_OF_RESOURCES; or the OpenCL error of the enqueue that failed. The
 * message (clscan_context_last_error) names the argument. On failure *event is left
 * untouched and, unless an enqueue itself failed part way, nothing is enqueued.
 * ------------------------------------------------------------------------------ */
CLSCAN_API clscan_status clscan_sort_keys(clscan_context *ctx, cl_command_queue queue,
                                          cl_mem src, size_t src_offset, cl_mem dst,
                                          size_t dst_offset, size_t n, clscan_type key_type,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

CLSCAN_API clscan_status clscan_sort_pairs(clscan_context *ctx, cl_command_queue queue,
                                           cl_mem keys, size_t keys_offset, cl_mem values,
                                           size_t values_offset, cl_mem keys_out,
                                           size_t keys_out_offset, cl_mem values_out,
                                           size_t values_out_offset, size_t n,
                                           clscan_type key_type, clscan_type value_type,
                                           cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list,
                                           cl_event *event);

/* ------------------------------------------------------------------------------
 * Disk cache and warming.
 *
 * Every program the library builds is also written, as the driver's binary
 * (CL_PROGRAM_BINARIES), to a cache directory; a later context in any process that
 * needs the same program loads that binary (clCreateProgramWithBinary) instead of
 * compiling the source. A file is used only for the same platform, device, driver
 * version, library version, build options and full source text (the #define block of
 * the tuning chosen and a compaction's predicate included); anything else (another
 * driver, a truncated, corrupt or foreign file, a binary the driver refuses) is ignored
 * and replaced by a fresh build. Files are written to a temporary name in the same
 * directory and renamed, so processes may share a cache directory and fill it at the
 * same time. The cache never makes a call fail: one that cannot be read or written (a
 * read-only or full disk, no home directory) is simply not used, and a call builds from
 * source as it would without it. The cache is looked up only where a program is built,
 * on a context's first use of it.
 *
 * Trust: whoever can write the cache runs code in every process that loads from it (a
 * file's checksums catch damage, not forgery). So the cache is used only where this
 * process's effective user owns it and no one else may write it: an existing cache
 * directory owned by another user or writable by group or others turns the disk cache
 * off for the context (clscan_context_describe says which directory and why; calls build
 * from source), a directory the library makes has mode 0700 and its files 0600, and a
 * file owned by another user or writable by group or others is not loaded (it is
 * rebuilt and replaced). Within those rules the cache trusts the user's own files, as
 * compiler caches do (docs/RELIABILITY.md).
 *
 * The bank probe's result (see Context above) is kept there too, in a small file
 * clscan-probe-<digits>.bin, keyed like a program by the platform, device, driver and
 * library version, and also by the probe's own version, the digest of its kernel's
 * source and the device limits it is sized by. clscan_context_create, where it would run
 * the probe, first reads that file and uses what it holds (the result exactly as measured
 * then, including a measurement that found no bank pattern); where there is none, or it
 * is truncated, corrupt, of another format or keyed otherwise, it measures and writes the
 * file anew. Only the first context for a device in a process reads or writes it; a
 * probe that failed (an OpenCL error) is not written. Removing the file makes the next
 * process measure again. With the cache off, the probe runs as without it.
 *
 * The environment, read once by clscan_context_create (a context keeps its settings for
 * its life; clscan_context_describe shows them on its "disk cache:" line):
 *   CLSCAN_DISK_CACHE=0|1  off or on; any other value makes clscan_context_create
 *                          fail with CLSCAN_ERROR_INVALID_ENVIRONMENT. Default: on,
 *                          except on PoCL, which caches built programs itself and
 *                          compiles every kernel of a program to hand out its binary
 *                          (seconds per program on a CPU; docs/PERFORMANCE.md).
 *   CLSCAN_CACHE_DIR=dir   the cache directory (a relative one is taken from the working
 *                          directory at context creation; empty is an error). Default:
 *                          $XDG_CACHE_HOME/clscan, else $HOME/.cache/clscan; with none
 *                          of the three set, the cache is off. Missing directories are
 *                          created, with mode 0700, when the first file is written.
 * The library never deletes files from the cache: removing the directory (at any time
 * no process is writing it) empties it; a process killed while writing may leave a
 * hidden temporary file (.clscan-*.tmp) there. Some drivers keep their own cache as
 * well (PoCL: POCL_CACHE_DIR; NVIDIA: ~/.nv/ComputeCache; Mesa: MESA_SHADER_CACHE_DIR).
 * ------------------------------------------------------------------------------ */

/* Builds, or loads from the disk cache, every program that the scans and the
 * compactions without a user predicate can use on this context's device, so that no
 * later call pays a build: for each type and operator the device supports, the scan's
 * program for the device scan the context chose and for the multi-level scan that calls
 * in place take; for each type, select_flagged's and unique's programs with 32-bit
 * counts, and with 64-bit counts too where one buffer can hold 2^32 elements (and, where
 * large calls of unique take smaller work-groups, as on NVIDIA's GPUs, those too).
 * clscan_kernel_build_options then needs no build either.
 *
 * select_if and partition_if cannot be warmed: their programs are built around the
 * predicate's text, on the first call with each predicate (loaded from the disk cache
 * where an earlier process built it).
 *
 * This call BLOCKS until every program is built or loaded: some 40 to 110 programs,
 * depending on the device (fp64, the device scan chosen, the largest buffer). That takes
 * from a tenth of a second (every program in the disk cache and in the driver's own
 * cache) to a minute (in neither: about 1 s on Mesa's rusticl, 10 s on PoCL, 50 s on an
 * H100; docs/PERFORMANCE.md). It enqueues nothing and may be called at any time, from
 * any thread; programs already built are not built again, so a second call returns at
 * once. Returns CLSCAN_SUCCESS; CLSCAN_ERROR_INVALID_ARGUMENT for a NULL or released
 * context; or, at the first program that fails, what a call needing it would return
 * (CLSCAN_ERROR_BUILD_FAILED with the log in clscan_context_last_error,
 * CLSCAN_ERROR_OUT_OF_RESOURCES, an OpenCL error); the programs built before it stay
 * built. */
CLSCAN_API clscan_status clscan_context_warm(clscan_context *ctx);

/* ------------------------------------------------------------------------------
 * The library's scans inside your own kernels.
 *
 * The OpenCL C layers are installed as headers in <includedir>/clscan/ (in the
 * source tree: cl/). A kernel includes the work-group layer, which brings the
 * sub-group and common layers with it:
 *
 *     #include <clscan_workgroup.cl>
 *
 * and is built with the options clscan_kernel_build_options returns. They select the
 * element type and operator and the shape tuned for the device, as plain
 * -D NAME=NUMBER options (after "-cl-std=..." and "-I <dir>"); append your own options
 * after them. In the kernel, then:
 *
 *   CLSCAN_T, CLSCAN_OP(a, b), CLSCAN_IDENTITY
 *       the element type, its combine operator (a on the left; it may evaluate its
 *       arguments twice: pass plain values) and the operator's identity.
 *   CLSCAN_WG_SIZE, CLSCAN_ITEMS, CLSCAN_TILE
 *       work-items per group (launch with exactly this local size, one dimension),
 *       elements per work-item, elements per tile (their product).
 *   CLSCAN_KERNEL_ATTRIBUTES
 *       put it after __kernel: the required work-group size and, where the device
 *       needs it, the required sub-group size.
 *   CLSCAN_T clscan_wg_scan_value(CLSCAN_T x, int inclusive, __local CLSCAN_T *scratch,
 *                                 CLSCAN_T *total)
 *   CLSCAN_T clscan_wg_reduce_value(CLSCAN_T x, __local CLSCAN_T *scratch)
 *       scan (exclusive, or inclusive if `inclusive`) or reduce one value per
 *       work-item in local-id order; scratch holds CLSCAN_WG_SCRATCH elements.
 *   void clscan_wg_load(__global const CLSCAN_T *src, ulong base, uint count,
 *                       __local CLSCAN_T *tile)
 *   CLSCAN_T clscan_wg_scan(__local CLSCAN_T *tile, __local CLSCAN_T *scratch,
 *                           int inclusive)
 *   CLSCAN_T clscan_wg_reduce(__local const CLSCAN_T *tile, __local CLSCAN_T *scratch)
 *   void clscan_wg_store(__global CLSCAN_T *dst, ulong base, uint count,
 *                        __local const CLSCAN_T *tile, CLSCAN_T carry)
 *       a tile of CLSCAN_TILE elements in local memory (CLSCAN_WG_TILE_LOCAL elements,
 *       indexed through CLSCAN_PAD(k), which spreads it over the banks): load (missing
 *       elements become the identity), scan in place or reduce (both return the
 *       tile's total), store with a carry combined on the left.
 *   CLSCAN_T clscan_sg_scan_inclusive(CLSCAN_T x, __local CLSCAN_T *scratch)
 *   CLSCAN_T clscan_sg_scan_exclusive(CLSCAN_T x, __local CLSCAN_T *scratch)
 *   CLSCAN_T clscan_sg_shuffle_up(CLSCAN_T x, uint delta, __local CLSCAN_T *scratch)
 *   uint clscan_sg_lane(void), clscan_sg_id(void); CLSCAN_SG_SIZE, CLSCAN_SG_COUNT
 *       the sub-group layer (scratch: CLSCAN_SG_SCRATCH elements; unused by native
 *       sub-groups).
 * Every one of these functions must be called by all work-items of the work-group in
 * uniform control flow: some implementations use work-group barriers. Values in local
 * memory written before a call are visible inside it; each function ends with a
 * barrier, so its scratch may be reused at once. examples/fused_map_scan.c is a
 * complete program.
 * ------------------------------------------------------------------------------ */

/* Writes into options (at most options_size bytes, NUL-terminated when options_size >
 * 0) the clBuildProgram options for a kernel of yours that includes the library's
 * OpenCL C headers, specialised for `type` and `op` with the shape the library uses on
 * the context's device (building the library's own program for them first if needed,
 * so that shape is the one that really compiled). max_work_group_size, if not 0, caps
 * the work-group size (pass CL_KERNEL_WORK_GROUP_SIZE of your kernel when it is smaller
 * than *work_group_size). *options_length (if not NULL) receives the length of the
 * full text, excluding the NUL; *work_group_size (if not NULL) the local size to
 * launch your kernels with (CLSCAN_WG_SIZE); *tile_size (if not NULL) the elements of a
 * tile (CLSCAN_TILE). options may be NULL with options_size 0 to ask for the length.
 *
 * The include directory (-I) is the installed <includedir>/clscan, or
 * CLSCAN_KERNEL_INCLUDE_DIR (the context option kernel_include_dir, or the environment
 * when the context was created) when set (a source tree's cl/, or a
 * relocated install). A directory containing spaces is passed in double quotes.
 *
 * Returns CLSCAN_SUCCESS; CLSCAN_ERROR_INVALID_ARGUMENT for a NULL context, a bad type
 * or op, options NULL with options_size > 0, or options_size too small for the text
 * (the buffer then holds a truncated copy, and *options_length the length needed);
 * CLSCAN_ERROR_UNSUPPORTED as for the scans; CLSCAN_ERROR_BUILD_FAILED or an OpenCL
 * error from building the library's program. */
CLSCAN_API clscan_status clscan_kernel_build_options(clscan_context *ctx, clscan_type type,
                                                     clscan_op op, size_t max_work_group_size,
                                                     char *options, size_t options_size,
                                                     size_t *options_length,
                                                     size_t *work_group_size,
                                                     size_t *tile_size);

/* The same options for kernels launched with work_group_size work-items a group (a power
 * of two, at most the device's CL_DEVICE_MAX_WORK_GROUP_SIZE), where the default shape's
 * group is narrower than your kernel needs: on CPU devices (PoCL, rusticl, Intel's CPU
 * runtime) that shape has ONE work-item a group, so clscan_wg_scan_value scans a single
 * value and only the tile functions do useful work. The tile keeps about the default
 * shape's elements (fewer a work-item), halved until it fits local memory. The
 * library's own program of that shape is built first (as above), so that the sub-group
 * implementation in the options is one that compiled there. *options_length and
 * *tile_size as for clscan_kernel_build_options; CLSCAN_WG_SIZE is work_group_size.
 *
 * Returns as clscan_kernel_build_options, and CLSCAN_ERROR_INVALID_ARGUMENT, with a
 * message naming the size, for a work_group_size that is 0, not a power of two, over the
 * device's maximum, too wide for the device's local memory with one element a
 * work-item, or wider than the library's scan kernel of that shape can run with there
 * (its CL_KERNEL_WORK_GROUP_SIZE). */
CLSCAN_API clscan_status clscan_kernel_build_options_wg(clscan_context *ctx, clscan_type type,
                                                        clscan_op op, size_t work_group_size,
                                                        char *options, size_t options_size,
                                                        size_t *options_length,
                                                        size_t *tile_size);

#ifdef __cplusplus
}
#endif
#endif /* CLSCAN_H */
