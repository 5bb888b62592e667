/* kernels.h - the kernels layer: what a program is specialised on (kernels/config.c), the
 * #define block that specialises it (kernels/defines.c), building one program and its
 * kernels (kernels/build.c), and the disk cache of built programs and of the bank
 * probe's records (declared in kernels/diskcache.h).
 * Builds on tune/ (docs/ARCHITECTURE.md). The per-context cache of programs is the
 * runtime layer's. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_KERNELS_H
#define CLSCAN_KERNELS_H

#include "tune/tune.h"

#include <pthread.h>

/* ----------------------------------------------------------------- target --- */

/* Where a context's programs are cached on disk, settled once at its creation. */
typedef struct clscan__diskcache_config {
    int disk_cache;             /* 1: programs are looked up in and written to cache_dir */
    char *cache_dir;            /* owned; absolute; NULL when disk_cache is 0 */
    const char *cache_source;   /* where cache_dir came from, or why the cache is off */
    char *cache_identity;       /* owned: the library, platform, device and driver lines
                                   that begin every key; NULL when disk_cache is 0 */
    char *cache_note;           /* owned: cache_source where it is composed (a refused
                                   directory's path and owner or mode), else NULL */
} clscan__diskcache_config;
void clscan__diskcache_settings_free(clscan__diskcache_config *p);

/* What programs are built for: the OpenCL context and device, its profile and where its
 * programs are cached on disk. A clscan_context holds one (runtime/runtime.h). */
typedef struct clscan__target {
    cl_context cl_ctx;
    cl_device_id device;
    clscan__profile profile;
    clscan__diskcache_config cache;
} clscan__target;

/* What decides which elements a compaction keeps; CLSCAN_SEL_MODE of
 * cl/clscan_select_tile.cl is the value less one. */
typedef enum clscan__select_mode {
    CLSCAN__SELECT_NONE = 0, /* a scan program */
    CLSCAN__SELECT_FLAGGED,
    CLSCAN__SELECT_IF,
    CLSCAN__SELECT_PARTITION,
    CLSCAN__SELECT_UNIQUE,
    CLSCAN__SELECT_RUNS /* run-length encoding: UNIQUE's heads, and each run's length */
} clscan__select_mode;
const char *clscan__select_mode_name(clscan__select_mode mode);

/* Which kernels a program holds (and which cl/ files it is made of). */
typedef enum clscan__program_kind {
    CLSCAN__PROGRAM_SCAN = 0, /* built-in scans, and compaction where `select` is set */
    CLSCAN__PROGRAM_GENERAL,  /* general scans (general.c): custom operators and types,
                                input transforms, segments */
    CLSCAN__PROGRAM_SORT,     /* radix sort (sort.c) */
    CLSCAN__PROGRAM_HIST      /* histograms (histogram.c) */
} clscan__program_kind;

/* What a scan or compaction program is specialised on. */
typedef struct clscan__scan_config {
    clscan__program_kind kind;
    clscan_type type;
    clscan_op op;
    size_t wg_size;   /* power of two */
    cl_uint items;    /* elements per work-item */
    cl_uint log_banks;/* padding shift; 0 = no padding */
    clscan__wg_algo wg_algo;
    clscan__sg_impl sg_impl;
    cl_uint sg_width; /* power of two, <= wg_size unless sg_impl is LOCAL */
    clscan__scan_algo algo;
    clscan__lb_atomics lb_atomics; /* single-pass only, like the two below */
    cl_uint lb_word_bits;
    clscan__lb_test lb_test;
    clscan__lb_walk lb_walk;
    /* Compaction programs: type and op are then the count type (UINT32, or UINT64 for
     * ranges of 2^32 elements or more) and ADD; the elements are of elem_type. */
    clscan__select_mode select;
    clscan_type elem_type;
    const char *predicate; /* IF and PARTITION: the user's expression (not owned) */
    /* OpenCL C placed between the #define block and the library's files (general scans:
     * the user's types and functions and the generated operator; not owned). Part of
     * the program's cache key. */
    const char *prelude;
    /* Bytes of one element of CLSCAN_T where type does not say it (general programs:
     * a user's struct, or a segmented scan's pair); 0: clscan_type_size(type). */
    size_t elem_bytes;
    /* Sort programs: the count type and ADD as type and op, keys of elem_type, values of
     * value_bytes (4 or 8; 0: keys only). Run-length encoding's compaction: each
     * length's. General programs: a segmented tile's values' (0: the tile of pairs). */
    cl_uint value_bytes;
    cl_uint sort_onesweep; /* 1: cl/clscan_sort_onesweep.cl's kernels; 0: clscan_sort.cl's */
    cl_uint sort_buckets;  /* three-step, one work-item groups: 1 adds the bucket form
                              (cl/clscan_sort_buckets.cl) */
    /* One-sweep sorts with NVIDIA's warps and no values: 1 places each key in local
     * memory as it is ranked (CLSCAN_OS_PLACE_EARLY; the match words then need their own
     * local memory). */
    cl_uint sort_place_early;
    /* NVIDIA's OpenCL: a cap on every kernel's registers, written into the built PTX as
     * .maxnreg (its compiler does not take -cl-nv-maxrregcount); 0: none. */
    cl_uint ptx_maxnreg;
    /* Compactions ranked by ballots (not unique, not run-length encoding): 1 puts each
     * work-item's elements in local memory between the tile's two phases
     * (CLSCAN_SEL_STASH) instead of holding them in registers across the look-back. */
    cl_uint sel_stash;
    /* Histograms: samples of elem_type; mode 1 even bins, 2 levels; bins in local memory. */
    cl_uint hist_mode;
    cl_uint hist_local_bins;
    /* 1: the program holds clscan_hist_fused (64-bit global atomics), counting and
     * summing in one kernel. */
    cl_uint hist_fused;
} clscan__scan_config;

/* The kernels a program may hold, as indices into clscan__program.kernels (each one's
 * name in cl/ is in kernel_table of kernels/build.c). */
typedef enum clscan__kernel_id {
    CLSCAN__K_REDUCE = 0,    /* clscan_reduce_tiles */
    CLSCAN__K_PARTIALS,      /* clscan_scan_partials */
    CLSCAN__K_SCAN,          /* clscan_scan_tiles */
    CLSCAN__K_SINGLE,        /* clscan_scan_single (single-pass programs only) */
    CLSCAN__K_REDUCE_SINGLE, /* clscan_reduce_single (single-pass programs only) */
    CLSCAN__K_CLEAR,         /* clscan_clear_words (single-pass and one-sweep programs) */
    CLSCAN__K_SEL_COUNT,     /* compaction programs: clscan_sel_count_tiles, */
    CLSCAN__K_SEL_WRITE,     /* clscan_sel_write_tiles, */
    CLSCAN__K_SEL_ZERO,      /* clscan_sel_count_zero */
    CLSCAN__K_SEL_SINGLE,    /* and, single-pass, clscan_sel_single */
    CLSCAN__K_GEN_REDUCE,    /* general programs: clscan_gen_reduce_tiles, */
    CLSCAN__K_GEN_SCAN,      /* clscan_gen_scan_tiles, */
    CLSCAN__K_GEN_SINGLE,    /* and, single-pass, clscan_gen_single */
    CLSCAN__K_SORT_HIST,     /* sort programs: clscan_sort_histogram, */
    CLSCAN__K_SORT_SCATTER,  /* clscan_sort_scatter; one-sweep sort programs: */
    CLSCAN__K_SORT_OS_HIST,  /* clscan_sort_os_histogram, */
    CLSCAN__K_SORT_OS_PASS,  /* clscan_sort_os_pass; the three-step sort's bucket form: */
    CLSCAN__K_SORT_BK_RANGE, /* clscan_sort_bk_range, _histogram, _decide, _scatter, */
    CLSCAN__K_SORT_BK_HIST,
    CLSCAN__K_SORT_BK_DECIDE,
    CLSCAN__K_SORT_BK_SCATTER,
    CLSCAN__K_SORT_BK_BUCKETS, /* _buckets */
    CLSCAN__K_HIST_LOCAL,    /* histogram programs: clscan_hist_local, */
    CLSCAN__K_HIST_GLOBAL,   /* clscan_hist_global, */
    CLSCAN__K_HIST_SUM,      /* clscan_hist_sum, */
    CLSCAN__K_HIST_FUSED,    /* clscan_hist_fused (where hist_fused is set) */
    CLSCAN__KERNEL_COUNT
} clscan__kernel_id;

/* A built scan program and its kernels. Kernel arguments are set and the kernels
 * enqueued under `lock`, since cl_kernel objects are not safe to share across threads. */
typedef struct clscan__program {
    struct clscan__program *next;               /* the context's hash bucket chain */
    struct clscan__program *lru_prev, *lru_next; /* the context's use order, newest first */
    uint64_t hash;              /* of the fingerprint and texts (runtime/programs.c) */
    size_t text_bytes;          /* the key and texts it keeps */
    unsigned pins;              /* calls using it now: not released while nonzero */
    char *key;                  /* #define block of the shape asked for: the cache key */
    clscan__scan_config config;
    cl_program program;
    cl_kernel kernels[CLSCAN__KERNEL_COUNT]; /* by clscan__kernel_id; NULL where the kind has none */
    char *predicate;            /* owned copy of config.predicate */
    char *prelude;              /* owned copy of config.prelude */
    /* The shape it was asked for, as clscan__config_fingerprint writes it (the per-context
     * cache finds a program by it without formatting the key; runtime/programs.c). */
    clscan__scan_config asked;
    pthread_mutex_t lock;
} clscan__program;

/* Writes into *out the fields of cfg that specialise a program, every byte of *out
 * defined (padding zeroed) so that two fingerprints compare with memcmp; the predicate
 * and prelude pointers are left out (compare their texts). Within one context (one
 * profile), equal fingerprints and texts give equal program keys. */
void clscan__config_fingerprint(const clscan__scan_config *cfg, clscan__scan_config *out);

/* The two forms of a program's specialisation: the #define block prepended to the
 * embedded sources (with a compaction's predicate, the program cache key), or
 * clBuildProgram options "-cl-std=CL1.2 -D CLSCAN_TYPE_ID=0 ..." for a user's kernel. */
typedef enum clscan__defines_form {
    CLSCAN__DEFINES_BLOCK = 0,
    CLSCAN__DEFINES_OPTIONS = 1
} clscan__defines_form;
/* Writes the specialisation of a program for `cfg` in `form`. Returns the length it
 * needs (like snprintf). */
size_t clscan__kernel_defines(const clscan__scan_config *cfg, const clscan__profile *p,
                              clscan__defines_form form, char *buf, size_t size);
/* CLSCAN_LOG_BANKS for a local tile of elem_bytes elements (0: no padding). */
unsigned clscan__pad_shift(const clscan__profile *p, size_t elem_bytes);
/* Picks the launch shape of device scan `algo` for `type` on this profile (the tile
 * from its table row): the largest work-group size and items per work-item that fit
 * the device's local memory and limits. */
clscan_status clscan__scan_config_choose(const clscan_context *ctx, const clscan__profile *p,
                                         clscan__scan_algo algo, clscan_type type,
                                         clscan_op op, clscan__scan_config *out);
/* The launch shape of a compaction of elements of elem_type by `mode` (predicate: the
 * user's text for IF and PARTITION) with counts of count_type, for device scan algo. */
clscan_status clscan__select_config_choose(const clscan_context *ctx, const clscan__profile *p,
                                           clscan__scan_algo algo, clscan__select_mode mode,
                                           clscan_type elem_type, clscan_type count_type,
                                           const char *predicate, clscan__scan_config *out);
/* Whether n elements in tiles of `tile` leave some of p's compute units without a tile
 * (fewer elements than a tile for each unit): the size rule of the general scans' small
 * tiles (src/algo/general.c). */
bool clscan__tiles_leave_units_idle(const clscan__profile *p, cl_ulong tile, cl_ulong n);
/* Makes the sub-group fields of c fit its work-group size (a native implementation needs
 * whole sub-groups; emulated ones are capped at the group). */
void clscan__config_subgroups_fit(clscan__scan_config *c);
/* The -cl-std option a program of cfg is built with on p's device. */
const char *clscan__cl_std_option(const clscan__scan_config *cfg, const clscan__profile *p);
/* Bytes of one element of the scan type of cfg's program (elem_bytes, else the type's). */
size_t clscan__config_elem_bytes(const clscan__scan_config *cfg);
/* Whether cfg's look-back may keep a fixed order (CLSCAN_LB_ORDERED): float types and
 * general programs (their prelude frees it where the operator is exact). */
bool clscan__lookback_ordered(const clscan__scan_config *cfg);
/* The type id of a general program whose elements are a type of its prelude
 * (cl/clscan_common.cl: CLSCAN_TYPE_CUSTOM), and the operator id of every general program
 * (CLSCAN_OP_CUSTOM: the prelude's clscan_user_op). */
#define CLSCAN__TYPE_ID_CUSTOM ((clscan_type)99)
#define CLSCAN__OP_ID_CUSTOM ((clscan_op)99)
/* CLSCAN_OP_RUNS of cl/clscan_common.cl: run-length encoding's count type (UINT64). */
#define CLSCAN__OP_ID_RUNS ((clscan_op)98)
/* The launch shape of a general scan (general.c) whose elements are `type` (a library
 * type, or CLSCAN__TYPE_ID_CUSTOM) of elem_bytes each, built with `prelude` (not copied):
 * the tile of 4-byte elements, fewer items for larger ones. value_bytes: a segmented
 * scan's values', or 0 (see clscan__scan_config.value_bytes). */
clscan_status clscan__general_config_choose(const clscan_context *ctx, const clscan__profile *p,
                                            clscan__scan_algo algo, clscan_type type,
                                            size_t elem_bytes, size_t value_bytes,
                                            const char *prelude, clscan__scan_config *out);
/* Loop iterations one work-item runs per tile in the scan kernels (an upper bound). */
cl_ulong clscan__scan_tile_iterations(const clscan__scan_config *cfg);
/* Bytes of local memory a scan program with this shape declares. */
size_t clscan__scan_local_bytes(const clscan__scan_config *cfg, const clscan__profile *p);
/* Whether cfg's Intel sub-groups ballot through cl_khr_subgroup_ballot
 * (CLSCAN_SG_KHR_BALLOT of cl/clscan_subgroup.cl: sub-groups of 32 lanes). */
bool clscan__sg_khr_ballot(const clscan__scan_config *cfg, const clscan__profile *p);
/* The local memory a program's declarations may take on p's device: room is left for
 * what the implementation itself keeps there. */
cl_ulong clscan__local_budget(const clscan__profile *p);
/* Builds the program of cfg (cached under `key`, its #define block and texts) for t: from
 * the disk cache or from source, rebuilt smaller where the compiled kernels allow fewer
 * work-items, or another sub-group width, than cfg asks for (prog->config then holds the
 * shape built). Errors are recorded against ctx. */
clscan_status clscan__program_build(const clscan_context *ctx, const clscan__target *t,
                                    const clscan__scan_config *cfg, const char *key,
                                    clscan__program **out);
void clscan__program_free(clscan__program *prog);
/* Frees a list of programs linked by next. */
void clscan__programs_free(clscan__program *list);

/* The disk cache, and the binaries of built programs (kernels/diskcache.h). */
#include "kernels/diskcache.h"

#endif /* CLSCAN_KERNELS_H */
