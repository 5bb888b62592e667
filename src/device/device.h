/* device.h - the device layer: what a device reports about itself (device/probe.c) and
 * what its local-memory banks measure (device/banks.c), held in the device profile.
 * Builds on base/ only (docs/ARCHITECTURE.md). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_DEVICE_H
#define CLSCAN_DEVICE_H

#include "base/base.h"

typedef enum clscan__vendor {
    CLSCAN__VENDOR_OTHER = 0,
    CLSCAN__VENDOR_NVIDIA,
    CLSCAN__VENDOR_AMD,
    CLSCAN__VENDOR_INTEL,
    CLSCAN__VENDOR_APPLE,
    CLSCAN__VENDOR_ARM,
    CLSCAN__VENDOR_QUALCOMM,
    CLSCAN__VENDOR_COUNT
} clscan__vendor;

/* OpenCL C 3.0 optional features (CL_DEVICE_OPENCL_C_FEATURES), as bits. */
enum {
    CLSCAN__FEAT_SUBGROUPS = 1u << 0,            /* __opencl_c_subgroups */
    CLSCAN__FEAT_WG_COLLECTIVES = 1u << 1,       /* __opencl_c_work_group_collective_functions */
    CLSCAN__FEAT_ATOMIC_ACQ_REL = 1u << 2,       /* __opencl_c_atomic_order_acq_rel */
    CLSCAN__FEAT_ATOMIC_SEQ_CST = 1u << 3,       /* __opencl_c_atomic_order_seq_cst */
    CLSCAN__FEAT_ATOMIC_SCOPE_DEVICE = 1u << 4,  /* __opencl_c_atomic_scope_device */
    CLSCAN__FEAT_GENERIC_AS = 1u << 5,           /* __opencl_c_generic_address_space */
    CLSCAN__FEAT_FP64 = 1u << 6,                 /* __opencl_c_fp64 */
    CLSCAN__FEAT_INT64 = 1u << 7                 /* __opencl_c_int64 */
};

/* What the local-memory bank probe (banks.c) found. */
typedef struct clscan__bank_result {
    int measured;           /* 1: the timings showed a bank pattern; banks and width are valid */
    cl_uint banks;          /* bank count */
    cl_uint width;          /* bank width in bytes */
    char detail[320];       /* the relative times per stride and the conclusion, or why nothing
                               was concluded ("timings show no bank pattern", an OpenCL error) */
} clscan__bank_result;

/* Where a profile's bank probe result came from. */
typedef enum clscan__probe_origin {
    CLSCAN__PROBE_NOT_RUN = 0,
    CLSCAN__PROBE_MEASURED,   /* measured by this call */
    CLSCAN__PROBE_REMEMBERED, /* from earlier in this process (measured or loaded) */
    CLSCAN__PROBE_LOADED      /* loaded from the probe store: the disk cache */
} clscan__probe_origin;
typedef struct clscan__bank_origin {
    clscan__probe_origin how;
    const char *why;          /* MEASURED: why nothing was loaded (a static text), or NULL
                                 where there was no store to load from */
} clscan__bank_origin;

/* Sub-group implementations and work-group scans; the numbers are the CLSCAN_SG_IMPL_*
 * and CLSCAN_WG_ALGO_* values of cl/clscan_subgroup.cl and cl/clscan_workgroup.cl. */
typedef enum clscan__sg_impl {
    CLSCAN__SG_LOCAL = 0,   /* local-memory Kogge-Stone over emulated sub-groups */
    CLSCAN__SG_KHR = 1,     /* cl_khr_subgroups / __opencl_c_subgroups built-ins */
    CLSCAN__SG_NVIDIA = 2,  /* inline PTX shfl.sync */
    CLSCAN__SG_INTEL = 3,   /* cl_intel_subgroups shuffles */
    CLSCAN__SG_IMPL_COUNT
} clscan__sg_impl;
typedef enum clscan__wg_algo {
    CLSCAN__WG_BLELLOCH = 0,
    CLSCAN__WG_SUBGROUP = 1,
    CLSCAN__WG_ALGO_COUNT
} clscan__wg_algo;
/* Device-wide scans, and how the single-pass scan touches its status words (the
 * CLSCAN_LB_ATOMICS values of cl/clscan_lookback.cl). */
typedef enum clscan__scan_algo {
    CLSCAN__SCAN_MULTI_LEVEL = 0,
    CLSCAN__SCAN_SINGLE_PASS = 1,
    CLSCAN__SCAN_ALGO_COUNT
} clscan__scan_algo;
/* The radix sort: per digit a histogram, a scan of the counts and a scatter (three
 * launches), or one launch per digit whose tiles look back (cl/clscan_sort_onesweep.cl). */
typedef enum clscan__sort_algo {
    CLSCAN__SORT_THREE_STEP = 0,
    CLSCAN__SORT_ONESWEEP = 1,
    CLSCAN__SORT_ALGO_COUNT
} clscan__sort_algo;
typedef enum clscan__lb_atomics {
    CLSCAN__LB_CL12 = 0, /* OpenCL C 1.2 read-modify-write atomics */
    CLSCAN__LB_C11 = 1,  /* OpenCL C 2.0/3.0 acquire/release at device scope */
    CLSCAN__LB_PTX = 2,  /* NVIDIA inline PTX, GPU scope */
    CLSCAN__LB_ATOMICS_COUNT
} clscan__lb_atomics;
/* The look-back's test modes (CLSCAN_LB_TEST of cl/clscan_lookback.cl). */
typedef enum clscan__lb_test {
    CLSCAN__LB_TEST_OFF = 0,
    CLSCAN__LB_TEST_DELAY = 1,  /* every third tile delays its first publication */
    CLSCAN__LB_TEST_SILENT = 2  /* every fourth tile publishes nothing */
} clscan__lb_test;
/* Who walks the look-back (CLSCAN_LB_WALK of cl/clscan_lookback.cl). */
typedef enum clscan__lb_walk {
    CLSCAN__LB_WALK_AUTO = 0,     /* the kernel's own choice by type and program */
    CLSCAN__LB_WALK_GROUP = 1,    /* the work-group */
    CLSCAN__LB_WALK_SUBGROUP = 2  /* sub-group 0, where the sub-groups are native */
} clscan__lb_walk;
/* Everything the library knows about a device: its facts, probed here once per context
 * (device/probe.c, device/banks.c), then overridden and completed with the tuning
 * choices and their reasons by the tune layer (tune/choose.c; docs/DEVICES.md lists the
 * overrides). The choices' enums are declared here because the profile holds them. */
typedef struct clscan__profile {
    /* What the device says about itself. */
    char platform_name[128];
    char device_name[128];
    char vendor_name[128];
    char driver_version[64];
    char device_version[64];    /* "OpenCL 3.0 CUDA" */
    char c_version[64];         /* "OpenCL C 1.2 ..." */
    char *extensions;           /* owned; space-separated tokens */
    char *identity;             /* owned: the platform, device and driver lines that key the
                                   disk cache (names and versions in full, the vendor id);
                                   NULL where one of them could not be queried */
    clscan__vendor vendor;       /* normalised from vendor id and name */
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
    int prefetch_builtin;       /* a CPU runtime that compiles __builtin_prefetch (PoCL,
                                   Intel's): CLSCAN_CPU_PREFETCH, kernels/defines.c */
    int sg_khr;                 /* cl_khr_subgroups or __opencl_c_subgroups */
    int sg_khr_shuffle_relative;/* cl_khr_subgroup_shuffle_relative */
    int sg_intel;               /* cl_intel_subgroups */
    int sg_intel_required_size; /* cl_intel_required_subgroup_size */
    /* CL_DEVICE_SUB_GROUP_SIZES_INTEL as a mask: the bit of value w set where kernels may
     * fix a width of w lanes (a power of two; CLSCAN_SUBGROUP_WIDTH may pick any of them). */
    cl_uint sg_intel_widths;
    int fp64;
    int int64_atomics;
    cl_ulong max_alloc;
    cl_ulong global_cache_size; /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, bytes, at least 32 MiB */
    /* Loop iterations one work-item may run in all before the implementation silently
     * stops it (0: no limit). Mesa's llvmpipe stops at 65535 (docs/DEVICES.md). */
    cl_ulong max_loop_iterations;
    /* Local-memory banks: measured by the probe where it ran and found a pattern, else
     * from the vendor table. */
    int bank_probe_ran;         /* bank_probe holds a result */
    clscan__bank_result bank_probe;
    clscan__bank_origin bank_probe_origin; /* measured, or kept from before (NOT_RUN: no result) */
    cl_uint local_banks;        /* 0: no banks to avoid (or unknown) */
    cl_uint bank_width;         /* bytes per bank */
    const char *banks_source;
    /* Tuning chosen for this device (the device table, then overrides). */
    size_t wg_size;             /* work-items per group, a power of two */
    cl_uint items_per_thread;   /* for 4-byte types */
    cl_uint items_per_thread_8; /* for 8-byte types */
    cl_uint groups_per_cu;      /* work-groups launched per compute unit */
    cl_uint max_groups;         /* 0: compute_units * groups_per_cu */
    cl_uint single_group_tiles; /* up to this many tiles: one kernel, one work-group */
    int padding;                /* bank-conflict padding on (if banks are known) */
    const char *tuning_source;
    clscan__sg_impl sg_impl;     /* the sub-group layer's implementation */
    cl_uint sg_width;           /* width it is built for (local: emulated width) */
    const char *sg_source;      /* why this implementation and width */
    clscan__wg_algo wg_algo;     /* the work-group scan */
    const char *wg_algo_source;
    clscan__scan_algo scan_algo; /* the device-wide scan */
    const char *scan_algo_source;
    /* Single-pass scan: tile shape (4-byte types), status words, bounded wait. */
    size_t sp_wg_size;
    cl_uint sp_items;
    cl_uint sp_items_8;         /* for 8-byte types */
    clscan__lb_atomics lb_atomics;
    const char *lb_atomics_source;
    cl_uint lb_word_bits;       /* 64 with 64-bit atomics, else 32 */
    /* The mode for values of whole pairs of words (8, 16, ... bytes in 64-bit words) in
     * the scans without an output stage: PTX on NVIDIA unless a mode is forced, else
     * lb_atomics. */
    clscan__lb_atomics lb_atomics_pair;
    cl_uint lb_spins;           /* fruitless look-back reads before the fallback */
    /* Plain reductions of up to 8 single-pass tiles a compute unit in one kernel
     * (clscan_reduce_single) where the levels would take two, and why or why not. */
    int reduce_single;
    const char *reduce_single_source;
    clscan__lb_test lb_test;    /* a test mode of cl/clscan_lookback.cl, or off */
    clscan__lb_walk lb_walk;    /* who walks the look-back (AUTO: the library's choice) */
    /* NVIDIA's plain single-pass scans (integers' look-back walked by sub-group 0):
     * registers a work-item may use, for 4-byte and for 8-byte types (0: no cap). */
    cl_uint scan_max_registers, scan_max_registers_8;
    /* NVIDIA's single-pass compactions of 4-byte elements: registers a work-item may use
     * in select-if, select-flagged and partition, and in run-length encoding (0: no cap;
     * unique takes none). */
    cl_uint select_max_registers, runs_max_registers;
    clscan__sort_algo sort_algo; /* the radix sort's */
    const char *sort_algo_source;
    /* NVIDIA's one-sweep pass for 4-byte keys: registers a work-item may use, through
     * .maxnreg in its PTX, for keys alone and for pairs (CLSCAN_SORT_MAX_REGISTERS sets
     * both; 0: no cap). */
    cl_uint sort_max_registers, sort_pair_max_registers;
    const char *sort_max_registers_source;
    /* Histograms of one-work-item groups counting without a branch on "no bin"
     * (CLSCAN_HIST_BRANCH_FREE): bit t for samples of clscan_type t. */
    unsigned hist_branch_free;
    /* Those groups compute 16 samples' bins at once in OpenCL C vectors
     * (CLSCAN_HIST_VECTORS), for the stacks that do not vectorise a work-item's loop. */
    unsigned hist_vectors;
    const char *hist_branch_free_source;
    /* The longest user text (a predicate, a description's texts) a call accepts, in
     * bytes (CLSCAN_MAX_TEXT_BYTES); longer ones are refused before any compiler sees
     * them. */
    cl_ulong max_text_bytes;
    /* The context's program cache: at most this many programs, and this many bytes of
     * their keys and texts (CLSCAN_MAX_PROGRAMS, CLSCAN_MAX_PROGRAM_BYTES); the least
     * recently used are released first. */
    cl_ulong max_programs;
    cl_ulong max_program_bytes;
} clscan__profile;

/* Reads the device's facts into p (zeroing it first): the fields above the bank probe's.
 * Context creation (runtime/context.c) runs it, then the tune layer's
 * clscan__profile_complete the bank probe and the tables. On failure p holds nothing that
 * needs freeing. */
clscan_status clscan__device_probe(const clscan_context *ctx, cl_device_id device,
                                   clscan__profile *p);
void clscan__profile_free(clscan__profile *p);

clscan__vendor clscan__vendor_normalise(cl_uint vendor_id, const char *vendor_name);
const char *clscan__vendor_name(clscan__vendor v);
/* The vendor a name given to CLSCAN_VENDOR stands for ("nvidia", ...); 0 if none. */
bool clscan__vendor_from_name(const char *name, clscan__vendor *out);

/* ---------------------------------------------------------------- banks ----- */
/* Where bank probe results are kept between processes. The device layer reads and writes
 * no files: the runtime layer hands in one backed by the disk cache (runtime/context.c).
 * A record is kept under a key text that names what the result depends on besides the
 * device and its driver (clscan__bank_record_key; the store adds those) and holds
 * clscan__bank_record_encode's bytes. */
typedef struct clscan__probe_store {
    /* True and a malloc'd payload for the record kept under exactly `key`; false and *why
     * (a static text: "no file", a damaged file, another key) where there is none. */
    bool (*load)(void *user, const char *key, unsigned char **payload, size_t *length,
                 const char **why);
    /* Keeps payload under key; a failure is not reported (the next process measures). */
    void (*save)(void *user, const char *key, const unsigned char *payload, size_t length);
    void *user;
} clscan__probe_store;

/* Returns the process-wide cached result for `device` (a mutex-guarded cache keyed by the
 * cl_device_id); else the record in store (NULL: none) whose key matches; else runs the
 * probe on `device` in `cl_ctx` (its own in-order profiling queue, released after),
 * blocking until its kernels finish, and keeps its result in store. *origin (NULL: not
 * wanted) says which. */
clscan_status clscan__bank_probe(const clscan_context *ctx, cl_context cl_ctx, cl_device_id device,
                                 size_t max_wg_size, cl_ulong local_mem_size,
                                 const clscan__probe_store *store, clscan__bank_result *out,
                                 clscan__bank_origin *origin);
/* The key of a record of the probe on a device with these limits (malloc'd; NULL if out of
 * memory): the record's version, a digest of cl/clscan_banks.cl and the limits the probe
 * sizes itself by. */
char *clscan__bank_record_key(size_t max_wg_size, cl_ulong local_mem_size);
/* A result as a record's bytes: writes them into buf if size allows; returns how many
 * there are (at most 16 + sizeof detail). */
size_t clscan__bank_record_encode(const clscan__bank_result *r, unsigned char *buf, size_t size);
/* A record's bytes back into the result they were made from (*out zeroed first); false
 * for bytes the probe cannot have given (a length that does not add up, an impossible
 * bank shape, a NUL in the detail). */
bool clscan__bank_record_decode(const unsigned char *buf, size_t length, clscan__bank_result *out);
/* Pure inference, for unit tests: times[i] is the time at stride 1 << i words (i < count).
 * Returns 1 and sets banks and width when the times show a pattern, else 0. */
bool clscan__bank_infer(const double *times, int count, cl_uint *banks, cl_uint *width);

#endif /* CLSCAN_DEVICE_H */
