/* clscan_internal.h - private declarations shared by the library's src/ files, the
 * tests and the tools: the device profile, the program cache, scratch memory, errors. */
#ifndef CLSCAN_INTERNAL_H
#define CLSCAN_INTERNAL_H

#include "clscan.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- errors ---- */

/* Records a message for the calling thread (see clscan_context_last_error) and returns
 * `status`, so that validation reads `return clscan__fail(ctx, CODE, "...", ...)`. */
clscan_status clscan__fail(const clscan_context *ctx, clscan_status status, const char *fmt,
                           ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Like clscan__fail for an OpenCL error: "what: CL_NAME (code)". */
clscan_status clscan__fail_cl(const clscan_context *ctx, cl_int err, const char *what);
/* Stores a long text (a build log) as the calling thread's last error, with a prefix. */
clscan_status clscan__fail_text(const clscan_context *ctx, clscan_status status,
                                const char *prefix, const char *text);

#define CLSCAN_RETURN_IF(ctx, cond, status, ...)                  \
    do {                                                          \
        if (cond) return clscan__fail((ctx), (status), __VA_ARGS__); \
    } while (0)
#define CLSCAN_FORWARD_CL(ctx, call, what)                        \
    do {                                                          \
        cl_int clscan_err_ = (call);                              \
        if (clscan_err_ != CL_SUCCESS) return clscan__fail_cl((ctx), clscan_err_, (what)); \
    } while (0)

/* ---------------------------------------------------------------- types ----- */

int clscan__type_valid(int type);
int clscan__op_valid(int op);
int clscan__type_is_float(clscan_type type);
/* Checks type and op values, and that the device supports them (fp64, bitwise on
 * integers only); ctx is not NULL. */
clscan_status clscan__check_type_op(const clscan_context *ctx, clscan_type type, clscan_op op);

/* ---------------------------------------------------------------- profile --- */

typedef enum clscan_vendor {
    CLSCAN_VENDOR_OTHER = 0,
    CLSCAN_VENDOR_NVIDIA,
    CLSCAN_VENDOR_AMD,
    CLSCAN_VENDOR_INTEL,
    CLSCAN_VENDOR_APPLE,
    CLSCAN_VENDOR_ARM,
    CLSCAN_VENDOR_QUALCOMM,
    CLSCAN_VENDOR_COUNT
} clscan_vendor;

/* OpenCL C 3.0 optional features (CL_DEVICE_OPENCL_C_FEATURES), as bits. */
enum {
    CLSCAN_FEAT_SUBGROUPS = 1u << 0,            /* __opencl_c_subgroups */
    CLSCAN_FEAT_WG_COLLECTIVES = 1u << 1,       /* __opencl_c_work_group_collective_functions */
    CLSCAN_FEAT_ATOMIC_ACQ_REL = 1u << 2,       /* __opencl_c_atomic_order_acq_rel */
    CLSCAN_FEAT_ATOMIC_SEQ_CST = 1u << 3,       /* __opencl_c_atomic_order_seq_cst */
    CLSCAN_FEAT_ATOMIC_SCOPE_DEVICE = 1u << 4,  /* __opencl_c_atomic_scope_device */
    CLSCAN_FEAT_GENERIC_AS = 1u << 5,           /* __opencl_c_generic_address_space */
    CLSCAN_FEAT_FP64 = 1u << 6,                 /* __opencl_c_fp64 */
    CLSCAN_FEAT_INT64 = 1u << 7                 /* __opencl_c_int64 */
};

/* What the local-memory bank probe (banks.c) found. */
typedef struct clscan_bank_result {
    int measured;           /* 1: the timings showed a bank pattern; banks and width are valid */
    cl_uint banks;          /* bank count */
    cl_uint width;          /* bank width in bytes */
    char detail[320];       /* the relative times per stride and the conclusion, or why nothing
                               was concluded ("timings show no bank pattern", an OpenCL error) */
} clscan_bank_result;

/* Sub-group implementations and work-group scans; the numbers are the CLSCAN_SG_IMPL_*
 * and CLSCAN_WG_ALGO_* values of cl/clscan_subgroup.cl and cl/clscan_workgroup.cl. */
typedef enum clscan_sg_impl {
    CLSCAN_SG_LOCAL = 0,   /* local-memory Kogge-Stone over emulated sub-groups */
    CLSCAN_SG_KHR = 1,     /* cl_khr_subgroups / __opencl_c_subgroups built-ins */
    CLSCAN_SG_NVIDIA = 2,  /* inline PTX shfl.sync */
    CLSCAN_SG_INTEL = 3,   /* cl_intel_subgroups shuffles */
    CLSCAN_SG_IMPL_COUNT
} clscan_sg_impl;
typedef enum clscan_wg_algo {
    CLSCAN_WG_BLELLOCH = 0,
    CLSCAN_WG_SUBGROUP = 1,
    CLSCAN_WG_ALGO_COUNT
} clscan_wg_algo;
/* Device-wide scans, and how the single-pass scan touches its status words (the
 * CLSCAN_LB_ATOMICS values of cl/clscan_lookback.cl). */
typedef enum clscan_scan_algo {
    CLSCAN_SCAN_MULTI_LEVEL = 0,
    CLSCAN_SCAN_SINGLE_PASS = 1,
    CLSCAN_SCAN_ALGO_COUNT
} clscan_scan_algo;
typedef enum clscan_lb_atomics {
    CLSCAN_LB_CL12 = 0, /* OpenCL C 1.2 read-modify-write atomics */
    CLSCAN_LB_C11 = 1,  /* OpenCL C 2.0/3.0 acquire/release at device scope */
    CLSCAN_LB_PTX = 2,  /* NVIDIA inline PTX, GPU scope */
    CLSCAN_LB_ATOMICS_COUNT
} clscan_lb_atomics;
const char *clscan__sg_impl_name(clscan_sg_impl impl);
const char *clscan__wg_algo_name(clscan_wg_algo algo);
const char *clscan__scan_algo_name(clscan_scan_algo algo);
const char *clscan__lb_atomics_name(clscan_lb_atomics a);

/* Everything the library knows about a device, probed once per context, then
 * overridden by CLSCAN_* environment variables (docs/DEVICES.md lists them). */
typedef struct clscan_profile {
    /* What the device says about itself. */
    char platform_name[128];
    char device_name[128];
    char vendor_name[128];
    char driver_version[64];
    char device_version[64];    /* "OpenCL 3.0 CUDA" */
    char c_version[64];         /* "OpenCL C 1.2 ..." */
    char *extensions;           /* owned; space-separated tokens */
    clscan_vendor vendor;       /* normalised from vendor id and name */
    cl_uint vendor_id;
    cl_device_type device_type;
    int cl_major, cl_minor;     /* device OpenCL version */
    int c_major, c_minor;       /* highest OpenCL C version */
    unsigned features;          /* CLSCAN_FEAT_* */
    cl_ulong local_mem_size;    /* bytes */
    int local_mem_is_global;    /* CL_GLOBAL: "local" memory is ordinary memory */
    size_t max_wg_size;
    cl_uint compute_units;
    size_t wg_multiple;         /* preferred work-group size multiple; 0 if unknown */
    cl_uint subgroup_width;     /* 0 if unknown */
    const char *subgroup_source;/* which query gave subgroup_width */
    int subgroup_queried;       /* subgroup_width is the device's own answer (no override) */
    int nvidia_platform;        /* the platform is NVIDIA's ("NVIDIA CUDA") */
    int sg_khr;                 /* cl_khr_subgroups or __opencl_c_subgroups */
    int sg_khr_shuffle_relative;/* cl_khr_subgroup_shuffle_relative */
    int sg_intel;               /* cl_intel_subgroups */
    int sg_intel_required_size; /* cl_intel_required_subgroup_size */
    int fp64;
    int int64_atomics;
    cl_ulong max_alloc;
    /* Loop iterations one work-item may run in all before the implementation silently
     * stops it (0: no limit). Mesa's llvmpipe stops at 65535 (docs/DEVICES.md). */
    cl_ulong max_loop_iterations;
    /* Local-memory banks: measured by the probe where it ran and found a pattern, else
     * from the vendor table. */
    int bank_probe_ran;         /* bank_probe holds a result */
    clscan_bank_result bank_probe;
    cl_uint local_banks;        /* 0: no banks to avoid (or unknown) */
    cl_uint bank_width;         /* bytes per bank */
    const char *banks_source;
    /* Tuning chosen for this device (the device table, then overrides). */
    size_t wg_size;             /* work-items per group, a power of two */
    cl_uint items_per_thread;   /* for 4-byte types; halved for 8-byte types */
    cl_uint groups_per_cu;      /* work-groups launched per compute unit */
    cl_uint max_groups;         /* 0: compute_units * groups_per_cu */
    cl_uint single_group_tiles; /* up to this many tiles: one kernel, one work-group */
    int padding;                /* bank-conflict padding on (if banks are known) */
    const char *tuning_source;
    clscan_sg_impl sg_impl;     /* the sub-group layer's implementation */
    cl_uint sg_width;           /* width it is built for (local: emulated width) */
    const char *sg_source;      /* why this implementation and width */
    clscan_wg_algo wg_algo;     /* the work-group scan */
    const char *wg_algo_source;
    clscan_scan_algo scan_algo; /* the device-wide scan */
    const char *scan_algo_source;
    /* Single-pass scan: tile shape (4-byte types), status words, bounded wait. */
    size_t sp_wg_size;
    cl_uint sp_items;
    clscan_lb_atomics lb_atomics;
    const char *lb_atomics_source;
    cl_uint lb_word_bits;       /* 64 with 64-bit atomics, else 32 */
    cl_uint lb_spins;           /* fruitless look-back reads before the fallback */
    int lb_test;                /* 0, or a test mode of cl/clscan_lookback.cl */
    /* The disk cache of built programs (diskcache.c), settled at context creation from
     * CLSCAN_DISK_CACHE, CLSCAN_CACHE_DIR, XDG_CACHE_HOME and HOME. */
    int disk_cache;             /* 1: programs are looked up in and written to cache_dir */
    char *cache_dir;            /* owned; absolute; NULL when disk_cache is 0 */
    const char *cache_source;   /* where cache_dir came from, or why the cache is off */
    char *cache_identity;       /* owned: the library, platform, device and driver lines
                                   that begin every key; NULL when disk_cache is 0 */
} clscan_profile;

/* Looks `name` up; returns its value or NULL. The library passes a wrapper of getenv;
 * tests pass their own table. */
typedef const char *(*clscan_getenv_fn)(const char *name, void *user);

/* Probes the device, applies the tables and then the overrides. On failure the profile
 * holds nothing that needs freeing. */
clscan_status clscan__profile_probe(const clscan_context *ctx, cl_context cl_ctx,
                                    cl_device_id device,
                                    clscan_getenv_fn getenv_fn, void *user,
                                    clscan_profile *out);
/* Fills banks and tuning from the tables for the device facts already in p, then
 * applies the overrides from getenv_fn (both phases). Split out for tests. */
clscan_status clscan__profile_finish(const clscan_context *ctx, clscan_profile *p,
                                     clscan_getenv_fn getenv_fn, void *user);
void clscan__profile_free(clscan_profile *p);
size_t clscan__profile_describe(const clscan_profile *p, char *buf, size_t size);

/* Whole-token search in a space-separated list ("cl_khr_fp64 cl_khr_int64..."). */
int clscan__has_token(const char *list, const char *token);
clscan_vendor clscan__vendor_normalise(cl_uint vendor_id, const char *vendor_name);
const char *clscan__vendor_name(clscan_vendor v);
/* Parses "OpenCL 3.0 ..." (prefix "OpenCL ") or "OpenCL C 1.2 ..." ("OpenCL C "). */
int clscan__parse_version(const char *text, const char *prefix, int *major, int *minor);
/* Parses a size with an optional K, M or G suffix (powers of 1024). */
int clscan__parse_size(const char *text, unsigned long long *out);

/* ---------------------------------------------------------------- programs -- */

/* What decides which elements a compaction keeps; CLSCAN_SEL_MODE of
 * cl/clscan_select_tile.cl is the value less one. */
typedef enum clscan_select_mode {
    CLSCAN_SELECT_NONE = 0, /* a scan program */
    CLSCAN_SELECT_FLAGGED,
    CLSCAN_SELECT_IF,
    CLSCAN_SELECT_PARTITION,
    CLSCAN_SELECT_UNIQUE
} clscan_select_mode;
const char *clscan__select_mode_name(clscan_select_mode mode);

/* Which kernels a program holds (and which cl/ files it is made of). */
typedef enum clscan_program_kind {
    CLSCAN_PROGRAM_SCAN = 0, /* built-in scans, and compaction where `select` is set */
    CLSCAN_PROGRAM_GENERAL,  /* general scans (general.c): custom operators and types,
                                input transforms, segments */
    CLSCAN_PROGRAM_SORT      /* radix sort (sort.c) */
} clscan_program_kind;

/* What a scan or compaction program is specialised on. */
typedef struct clscan_scan_config {
    clscan_program_kind kind;
    clscan_type type;
    clscan_op op;
    size_t wg_size;   /* power of two */
    cl_uint items;    /* elements per work-item */
    cl_uint log_banks;/* padding shift; 0 = no padding */
    clscan_wg_algo wg_algo;
    clscan_sg_impl sg_impl;
    cl_uint sg_width; /* power of two, <= wg_size unless sg_impl is LOCAL */
    clscan_scan_algo algo;
    clscan_lb_atomics lb_atomics; /* single-pass only, like the two below */
    cl_uint lb_word_bits;
    int lb_test;
    /* Compaction programs: type and op are then the count type (UINT32, or UINT64 for
     * ranges of 2^32 elements or more) and ADD; the elements are of elem_type. */
    clscan_select_mode select;
    clscan_type elem_type;
    const char *predicate; /* IF and PARTITION: the user's expression (not owned) */
    /* OpenCL C placed between the #define block and the library's files (general scans:
     * the user's types and functions and the generated operator; not owned). Part of
     * the program's cache key. */
    const char *prelude;
    /* Bytes of one element of CLSCAN_T where type does not say it (general programs:
     * a user's struct, or a segmented scan's pair); 0: clscan_type_size(type). */
    size_t elem_bytes;
    /* Sort programs: type and op are the count type (as for compaction) and ADD, the
     * keys are of elem_type, and each value has value_bytes (4 or 8; 0: keys only). */
    cl_uint value_bytes;
} clscan_scan_config;

/* A built scan program and its kernels. Kernel arguments are set and the kernels
 * enqueued under `lock`, since cl_kernel objects are not safe to share across threads. */
typedef struct clscan_program {
    struct clscan_program *next;
    char *key;                  /* #define block of the shape asked for: the cache key */
    clscan_scan_config config;
    cl_program program;
    cl_kernel k_reduce;         /* clscan_reduce_tiles */
    cl_kernel k_partials;       /* clscan_scan_partials */
    cl_kernel k_scan;           /* clscan_scan_tiles */
    cl_kernel k_single;         /* clscan_scan_single (single-pass programs only) */
    cl_kernel k_clear;          /* clscan_lb_clear (single-pass programs only) */
    cl_kernel k_sel_count;      /* compaction programs: clscan_sel_count_tiles, */
    cl_kernel k_sel_write;      /* clscan_sel_write_tiles, */
    cl_kernel k_sel_zero;       /* clscan_sel_count_zero */
    cl_kernel k_sel_single;     /* and, single-pass, clscan_sel_single */
    cl_kernel k_gen_reduce;     /* general programs: clscan_gen_reduce_tiles, */
    cl_kernel k_gen_scan;       /* clscan_gen_scan_tiles, */
    cl_kernel k_gen_single;     /* and, single-pass, clscan_gen_single */
    cl_kernel k_sort_hist;      /* sort programs: clscan_sort_histogram, */
    cl_kernel k_sort_scatter;   /* clscan_sort_scatter */
    char *predicate;            /* owned copy of config.predicate */
    char *prelude;              /* owned copy of config.prelude */
    pthread_mutex_t lock;
} clscan_program;

/* Writes the specialisation of a program for `cfg`: as the #define block prepended to
 * the embedded sources (as_options 0; with a compaction's predicate, the program cache
 * key), or as clBuildProgram
 * options "-cl-std=CL1.2 -D CLSCAN_TYPE_ID=0 ..." for a user's kernel (as_options 1).
 * Returns the length it needs (like snprintf). */
size_t clscan__kernel_defines(const clscan_scan_config *cfg, const clscan_profile *p,
                              int as_options, char *buf, size_t size);
/* Picks the launch shape of device scan `algo` for `type` on this profile (the tile
 * from its table row): the largest work-group size and items per work-item that fit
 * the device's local memory and limits. */
clscan_status clscan__scan_config_choose(const clscan_context *ctx, const clscan_profile *p,
                                         clscan_scan_algo algo, clscan_type type,
                                         clscan_op op, clscan_scan_config *out);
/* The launch shape of a compaction of elements of elem_type by `mode` (predicate: the
 * user's text for IF and PARTITION) with counts of count_type, for device scan algo. */
clscan_status clscan__select_config_choose(const clscan_context *ctx, const clscan_profile *p,
                                           clscan_scan_algo algo, clscan_select_mode mode,
                                           clscan_type elem_type, clscan_type count_type,
                                           const char *predicate, clscan_scan_config *out);
/* Bytes of one element of the scan type of cfg's program (elem_bytes, else the type's). */
size_t clscan__config_elem_bytes(const clscan_scan_config *cfg);
/* Whether cfg's look-back combines tile totals in a fixed order (cl/clscan_lookback.cl:
 * CLSCAN_LB_ORDERED): float types and every general program. */
int clscan__lookback_ordered(const clscan_scan_config *cfg);
/* The type id of a general program whose elements are a type of its prelude
 * (cl/clscan_common.cl: CLSCAN_TYPE_CUSTOM), and the operator id of every general program
 * (CLSCAN_OP_CUSTOM: the prelude's clscan_user_op). */
#define CLSCAN_TYPE_ID_CUSTOM ((clscan_type)99)
#define CLSCAN_OP_ID_CUSTOM ((clscan_op)99)
/* The launch shape of a general scan (general.c) whose elements are `type` (a library
 * type, or CLSCAN_TYPE_ID_CUSTOM) of elem_bytes each, built with `prelude` (not copied):
 * the tile of 4-byte elements, with fewer items per work-item for larger elements. */
clscan_status clscan__general_config_choose(const clscan_context *ctx, const clscan_profile *p,
                                            clscan_scan_algo algo, clscan_type type,
                                            size_t elem_bytes, const char *prelude,
                                            clscan_scan_config *out);
/* The element sizes of a general scan's description (checked as clscan_scan checks it):
 * src's elements, and dst's (the scan type; a segmented scan's value type). */
clscan_status clscan__desc_sizes(const clscan_context *ctx, const clscan_scan_desc *desc,
                                 size_t *in_size, size_t *out_size);
/* Loop iterations one work-item runs per tile in the scan kernels (an upper bound). */
cl_ulong clscan__scan_tile_iterations(const clscan_scan_config *cfg);
/* Bytes of local memory a scan program with this shape declares. */
size_t clscan__scan_local_bytes(const clscan_scan_config *cfg, const clscan_profile *p);
/* Returns the cached program for cfg, building it on first use. */
clscan_status clscan__program_get(clscan_context *ctx, const clscan_scan_config *cfg,
                                  clscan_program **out);
void clscan__programs_free(clscan_program *list);

/* Embedded cl/ sources, in build order. */
const char *clscan__embedded_source(const char *file_name, size_t *length);

/* ---------------------------------------------------------------- scratch --- */

/* A device buffer for per-call temporaries (tile partials). A slot is handed to one
 * call at a time; afterwards it remembers the event of its last use, so a later call
 * reuses it only when that is safe without blocking (see scratch.c). */
typedef struct clscan_scratch {
    struct clscan_scratch *next;
    cl_mem buffer;
    size_t size;
    int busy;
    cl_event last_use;          /* retained; NULL when unused */
    cl_command_queue last_queue;/* retained with last_use */
    /* Single-pass status words: lb_clean says the buffer holds nothing but zeros and
     * status words of lb_word_bits tagged with epochs up to lb_epoch (the last call's). */
    int lb_clean;
    cl_uint lb_word_bits;
    cl_uint lb_epoch;
} clscan_scratch;

/* Hands out a scratch slot of at least `size` bytes for use on `queue`. If the only
 * safe choice is to wait for an earlier use, *wait_for receives that event (retained;
 * the caller adds it to its first kernel's wait list and releases it). */
clscan_status clscan__scratch_acquire(clscan_context *ctx, cl_command_queue queue,
                                      int queue_in_order, size_t size, clscan_scratch **out,
                                      cl_event *wait_for);
/* Returns the slot; last_use (may be NULL) is the event after which it is free again.
 * The slot retains what it keeps; the caller still owns its references. */
void clscan__scratch_release(clscan_context *ctx, clscan_scratch *slot,
                             cl_command_queue queue, cl_event last_use);
void clscan__scratch_free(clscan_scratch *list);

/* ---------------------------------------------------------------- context --- */

struct clscan_context {
    unsigned long id;           /* unique per process; ties last errors to contexts */
    cl_context cl_ctx;
    cl_device_id device;
    clscan_profile profile;
    pthread_mutex_t lock;       /* guards programs and scratch lists */
    clscan_program *programs;
    clscan_scratch *scratch;
    unsigned scratch_count;
};

/* Whether ctx is a context clscan_context_create made and clscan_context_release has
 * not released (context.c keeps the list). Track adds ctx to the list (0: out of
 * memory), untrack removes it (0: it was not there); creation and release use them,
 * and unit tests with contexts of their own. */
int clscan__context_live(const clscan_context *ctx);
int clscan__context_track(const clscan_context *ctx);
int clscan__context_untrack(const clscan_context *ctx);
/* CLSCAN_ERROR_INVALID_ARGUMENT, with a message, unless ctx is live. */
clscan_status clscan__check_context(const clscan_context *ctx);

/* --------------------------------------------------------------- dispatch --- */

/* Argument checks every enqueueing call shares (launch.c). clscan__check_call validates
 * ctx, queue (of ctx's context and device), type and op, and the wait list, and says
 * whether the queue is in order. */
clscan_status clscan__check_call(const clscan_context *ctx, cl_command_queue queue,
                                 clscan_type type, clscan_op op, cl_uint nwait,
                                 const cl_event *wait, int *in_order);
/* Checks that `mem` is a buffer of ctx holding elements [offset, offset + n) of `elem`
 * bytes each; messages call it `name`. */
clscan_status clscan__check_range(const clscan_context *ctx, cl_mem mem, const char *name,
                                  size_t offset, size_t n, size_t elem);
/* Creates a read-write device buffer of `bytes` for the library's own use, refusing
 * (CLSCAN_ERROR_OUT_OF_RESOURCES) more than the device's largest allocation. */
clscan_status clscan__create_buffer(clscan_context *ctx, size_t bytes, const char *what,
                                    cl_mem *out);
/* Refuses src and dst ranges of n elements that overlap without being the same range. */
clscan_status clscan__check_in_place(const clscan_context *ctx, cl_mem src, size_t src_offset,
                                     cl_mem dst, size_t dst_offset, size_t n);
/* Refuses byte ranges [a_off, +a_len) of a and [b_off, +b_len) of b that share a byte
 * of one buffer; messages call them a_name and b_name. */
clscan_status clscan__check_disjoint(const clscan_context *ctx, cl_mem a, const char *a_name,
                                     size_t a_off, size_t a_len, cl_mem b, const char *b_name,
                                     size_t b_off, size_t b_len);

/* The commands of one call: each waits for the one before (through the wait list on an
 * out-of-order queue), the first for the caller's wait list and, where needed, the
 * scratch slot's last use. */
/* A call's carry (include/clscan.h: clscan_carry), checked, as the scan kernels' carry
 * arguments take it (cl/clscan_scan.cl: CLSCAN_CARRY_IN): the value by value (the host
 * carry-in, or zeros), the buffers (a buffer of the call where there is none), their
 * element offsets and the flags. */
typedef struct clscan_carry_args {
    const void *value;
    size_t value_size;
    cl_mem in_buf, out_buf;
    cl_ulong in_off, out_off;
    cl_uint flags;
} clscan_carry_args;
#define CLSCAN_CARRY_FLAG_IN 1u
#define CLSCAN_CARRY_FLAG_IN_BUFFER 2u
#define CLSCAN_CARRY_FLAG_OUT 4u
#define CLSCAN_CARRY_FLAG_NO_DST 8u
/* A byte range of a buffer that a call reads or writes, for the overlap checks. */
typedef struct clscan_byte_range {
    cl_mem mem;
    const char *name;
    size_t off, len;
} clscan_byte_range;
/* Checks carry (NULL: none) for elements of elem bytes: the buffers' context and range,
 * the total's element against `ranges` (the call's other ranges, NULL mems skipped);
 * no_dst: the call has no dst (then the total is required). dummy: a buffer of the call
 * to stand in for absent ones. Fills *out. */
clscan_status clscan__check_carry(const clscan_context *ctx, const clscan_carry *carry,
                                  size_t elem, int no_dst, cl_mem dummy,
                                  const clscan_byte_range *ranges, int nranges,
                                  clscan_carry_args *out);
/* clscan_exclusive_scan_carry (inclusive 0) and clscan_inclusive_scan_carry (scan.c). */
clscan_status clscan__scan_carry(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                 size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                 clscan_type type, clscan_op op, int inclusive,
                                 const clscan_carry *carry, cl_uint nwait,
                                 const cl_event *wait, cl_event *event);
/* No carry, for internal scans: zeros of elem bytes and `dummy` as the buffers. */
clscan_carry_args clscan__no_carry(size_t elem, cl_mem dummy);
/* Sets the six carry arguments of kernel k from argument `first` on. */
cl_int clscan__set_carry_args(cl_kernel k, cl_uint first, const clscan_carry_args *a);

typedef struct clscan_launch {
    clscan_context *ctx;
    cl_command_queue queue;
    int in_order;
    cl_uint nwait;          /* wait list for the next command */
    const cl_event *wait;
    cl_event last;          /* event of the last command enqueued (owned) */
    clscan_scratch *scratch;/* the call's scratch slot, or NULL */
    cl_event scratch_wait;  /* owned: the slot's earlier use the first command waits for */
    cl_event *first_wait;   /* owned: the first command's wait list, when extended */
} clscan_launch;

/* Starts a launch; with scratch_bytes > 0 it holds a scratch slot of that size. */
clscan_status clscan__launch_begin(clscan_launch *l, clscan_context *ctx,
                                   cl_command_queue queue, int in_order, cl_uint nwait,
                                   const cl_event *wait, size_t scratch_bytes);
/* Ends it with status s: hands the last command's event to *event (if s is success and
 * event is not NULL), gives the scratch slot back, frees the rest. Returns s. */
clscan_status clscan__launch_end(clscan_launch *l, clscan_status s, cl_event *event);
/* Enqueues kernel k on `groups` work-groups of wg_size as the launch's next command. */
clscan_status clscan__enqueue(clscan_launch *l, cl_kernel k, size_t groups, size_t wg_size,
                              const char *what);
/* Makes ev (owned) the launch's last command, which the next one waits for. */
void clscan__launch_chain(clscan_launch *l, cl_event ev);
/* Copies bytes [offset, +bytes) of src into a new buffer (*copy, which the caller
 * releases once it has enqueued what reads it), as the launch's next command: an in-place
 * call's input, where tiles would otherwise read what others overwrite. */
clscan_status clscan__enqueue_copy_input(clscan_launch *l, cl_mem src, size_t offset,
                                         size_t bytes, cl_mem *copy);
/* An empty call: a marker after the wait list, if an event or a wait list asks for it. */
clscan_status clscan__enqueue_marker(clscan_context *ctx, cl_command_queue queue,
                                     cl_uint nwait, const cl_event *wait, cl_event *event);
/* The chunk clscan_scan_host takes for n > 0 elements of in_size and out_size bytes when
 * asked for `chunk` (0: its default, docs/GUIDE.md): at most n (stream.c). */
size_t clscan__host_chunk(const clscan_context *ctx, size_t n, size_t chunk, size_t in_size,
                          size_t out_size);

/* Sets argument i of kernel k to v unless err already holds an error. */
#define CLSCAN_SET_ARG(err, k, i, v)                                                \
    do {                                                                            \
        if ((err) == CL_SUCCESS) (err) = clSetKernelArg((k), (i), sizeof(v), &(v)); \
    } while (0)

/* How one level of the multi-level scan splits n elements (scan.c). */
typedef struct clscan_level_plan {
    cl_ulong groups;     /* work-groups; 1: a single kernel does the level */
    cl_ulong per_group;  /* tiles each work-group owns */
} clscan_level_plan;
clscan_level_plan clscan__plan_level(const clscan_profile *p, const clscan_scan_config *cfg,
                                     cl_ulong n);
/* Elements of scratch the partials of all levels below an n-element scan need. */
cl_ulong clscan__scan_scratch_elements(const clscan_profile *p, const clscan_scan_config *cfg,
                                       cl_ulong n);
/* Enqueues the multi-level scan of src[src_off, +n) into dst[dst_off, +n) with prog's
 * scan kernels (prog->lock held), keeping this level's partials at scratch[part_off,
 * +groups) and deeper levels' after them; carry: the call's (NULL: none). */
clscan_status clscan__enqueue_scan_level(clscan_launch *l, clscan_program *prog, cl_mem src,
                                         cl_ulong src_off, cl_mem dst, cl_ulong dst_off,
                                         cl_ulong n, cl_int inclusive, cl_mem scratch,
                                         cl_ulong part_off, const clscan_carry_args *carry);

/* Enqueues the exclusive scan, in place, of scratch[part_off, +count) (partials of one
 * level): one work-group, or the levels above when there are more than a tile. */
clscan_status clscan__enqueue_scan_partials(clscan_launch *l, clscan_program *prog,
                                            cl_mem scratch, cl_ulong part_off, cl_ulong count);

/* The single-pass look-back over a scratch slot (scan.c). fits: whether n elements go
 * through a single-pass program with cfg (its tile counter is 32 bits); bytes: the
 * status buffer it needs; begin: clears the slot's status words where their content is
 * unknown or the epochs ran out (a kernel of the launch) and returns the kernel
 * arguments of this call. */
typedef struct clscan_lookback_args {
    cl_mem state;           /* the status buffer */
    cl_uint epoch;          /* this call's tag */
    cl_uint spins;          /* fruitless reads before a fallback */
    cl_mem stats;           /* fallback counters: the slot's header, or the test hook's */
    cl_uint stats_off;
} clscan_lookback_args;
int clscan__lookback_fits(const clscan_scan_config *cfg, cl_ulong n);
size_t clscan__lookback_bytes(const clscan_scan_config *cfg, cl_ulong n);
clscan_status clscan__lookback_begin(clscan_launch *l, clscan_program *prog,
                                     clscan_lookback_args *out);

/* --------------------------------------------------------------- tracing ---- */

/* For clscan-bench and tests: while set on the calling thread, every kernel the
 * library enqueues from this thread has its event retained into trace[*count] (up to
 * cap; the caller releases them). Pass NULL to stop. */
void clscan__trace_events(cl_event *trace, size_t cap, size_t *count);
/* For tests and clscan-bench: while set on the calling thread (NULL stops), single-pass
 * scans count into buffer `stats` (cl_uint [0]: fallback reductions, [1]: fallbacks
 * published) instead of their scratch header. */
void clscan__lookback_stats(cl_mem stats);
/* The calling thread's stats buffer set by clscan__lookback_stats, or NULL. */
cl_mem clscan__lookback_stats_buffer(void);

/* ---------------------------------------------------------------- banks ----- */


/* Runs the probe on `device` in `cl_ctx` (its own in-order profiling queue, released
 * after), or returns the process-wide cached result for that device (a mutex-guarded
 * cache keyed by the cl_device_id). Blocks until the probe's kernels finish. */
clscan_status clscan__bank_probe(const clscan_context *ctx, cl_context cl_ctx, cl_device_id device,
                                 size_t max_wg_size, cl_ulong local_mem_size,
                                 clscan_bank_result *out);
/* Pure inference, for unit tests: times[i] is the time at stride 1 << i words (i < count).
 * Returns 1 and sets banks and width when the times show a pattern, else 0. */
int clscan__bank_infer(const double *times, int count, cl_uint *banks, cl_uint *width);

/* ------------------------------------------------------------ disk cache ---- */

/* Settles p's disk-cache fields from getenv_fn: CLSCAN_DISK_CACHE (0 or 1, else
 * CLSCAN_ERROR_INVALID_ENVIRONMENT), CLSCAN_CACHE_DIR (not empty; relative to the working
 * directory), else $XDG_CACHE_HOME/clscan (if absolute), else $HOME/.cache/clscan, else
 * off. Queries device for the key's identity lines; a failed query turns the cache off.
 * Creates nothing on disk. */
clscan_status clscan__diskcache_settings(const clscan_context *ctx, cl_device_id device,
                                         clscan_getenv_fn getenv_fn, void *user,
                                         clscan_profile *p);

/* What identifies one program build: the key text and the file it is cached in. */
typedef struct clscan_diskcache_key {
    char *text;     /* owned: identity lines, build options, source digest, #define block */
    size_t length;  /* of text, without the NUL */
    char *path;     /* owned: <cache dir>/clscan-<32 hex digits>.bin */
} clscan_diskcache_key;
/* Makes the key of the program built from texts[0..count) (as passed to
 * clCreateProgramWithSource; texts[0] is the #define block) with `options`. Returns 0, or
 * -1 when ctx's disk cache is off or memory ran out (out is then empty). */
int clscan__diskcache_key(const clscan_context *ctx, const char *const *texts,
                          const size_t *lengths, cl_uint count, const char *options,
                          clscan_diskcache_key *out);
void clscan__diskcache_key_free(clscan_diskcache_key *key);
/* The program of key from its file, created from the binary and built with options; NULL
 * when there is no file, it is truncated, corrupt or foreign, or the driver refuses it
 * (each counted below; clscan__diskcache_last_reason says which). Never fails a call. */
cl_program clscan__diskcache_load(clscan_context *ctx, const clscan_diskcache_key *key,
                                  const char *options);
/* Writes program's binary for ctx's device to key's file, atomically (a temporary file in
 * the same directory, then rename), creating the directories (mode 0700) as needed.
 * Failures are counted, never reported. */
void clscan__diskcache_store(clscan_context *ctx, const clscan_diskcache_key *key,
                             cl_program program);

/* A cache file read back and checked (magic, format version, lengths, both checksums);
 * its key text is not compared here. key and payload point into data. */
typedef struct clscan_diskcache_file {
    unsigned char *data; /* owned: the whole file */
    const char *key;
    size_t key_length;
    const unsigned char *payload;
    size_t payload_length;
} clscan_diskcache_file;
/* Returns 0 with *out filled, 1 when there is no file, -1 when it cannot be read or is
 * not a valid cache file (clscan__diskcache_last_reason says why). For load and tests. */
int clscan__diskcache_read_file(const char *path, clscan_diskcache_file *out);
void clscan__diskcache_file_free(clscan_diskcache_file *f);
/* Writes a cache file (header, key text, payload) atomically. 0 on success. For store
 * and tests (which write files with a foreign key or a payload the driver refuses). */
int clscan__diskcache_write_file(const char *path, const char *key, size_t key_length,
                                 const void *payload, size_t payload_length);
/* The calling thread's reason why its last load found no usable file ("" after a load). */
const char *clscan__diskcache_last_reason(void);

/* The two hashes: FNV-1a over bytes, continuing from h (start: 0xcbf29ce484222325), and
 * an unrelated one over 64-bit little-endian words with a final avalanche. */
uint64_t clscan__hash_fnv1a64(uint64_t h, const void *data, size_t len);
uint64_t clscan__hash_mix64(uint64_t seed, const void *data, size_t len);

/* Process-wide counters, for tests and clscan-bench. */
typedef enum clscan_cache_stat {
    CLSCAN_CACHE_PROGRAMS = 0,  /* programs a context did not have and made (program.c) */
    CLSCAN_CACHE_SOURCE_BUILDS, /* clBuildProgram from source (program.c) */
    CLSCAN_CACHE_LOADED,        /* programs built from a cached binary */
    CLSCAN_CACHE_MISSING,       /* lookups that found no file */
    CLSCAN_CACHE_REJECTED,      /* files truncated, corrupt or foreign */
    CLSCAN_CACHE_REFUSED,       /* valid files whose binary the driver refused */
    CLSCAN_CACHE_WRITTEN,       /* files written */
    CLSCAN_CACHE_WRITE_FAILED,  /* binaries that could not be written */
    CLSCAN_CACHE_STAT_COUNT
} clscan_cache_stat;
void clscan__cache_stat_add(clscan_cache_stat which);
unsigned long clscan__cache_stat(clscan_cache_stat which);

#endif /* CLSCAN_INTERNAL_H */
