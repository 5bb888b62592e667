/* clscan_ext.h - libclscan's second-tier API: what the library's own tools (clscan-bench,
 * clscan-selftest, clscan-bigcheck) need beyond clscan.h, exported for them and for yours.
 * LESS STABLE than clscan.h: these calls may change between minor versions. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_EXT_H
#define CLSCAN_EXT_H

#include "clscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Event tracing --------------------------------------------------------------
 * While set on the calling thread, every kernel and copy the library enqueues from this
 * thread has its event retained into trace[*count] (up to cap entries; the caller releases
 * them). trace NULL stops tracing. For timing each kernel of a call. */
CLSCAN_API void clscan_ext_trace_events(cl_event *trace, size_t cap, size_t *count);

/* ---- Look-back statistics -------------------------------------------------------
 * While set on the calling thread (NULL stops), single-pass scans and compactions
 * enqueued from this thread add their fallback counters into `stats`, a buffer of at
 * least two cl_uint: [0] tiles reduced by a waiting work-group itself, [1] such totals
 * published. */
CLSCAN_API void clscan_ext_lookback_stats(cl_mem stats);

/* ---- Program cache statistics ---------------------------------------------------
 * Process-wide counters since the library was loaded. */
typedef enum clscan_ext_cache_counter {
    CLSCAN_EXT_CACHE_PROGRAMS = 0,  /* programs a context did not have and made */
    CLSCAN_EXT_CACHE_SOURCE_BUILDS, /* clBuildProgram from source */
    CLSCAN_EXT_CACHE_LOADED,        /* programs built from a disk-cached binary */
    CLSCAN_EXT_CACHE_MISSING,       /* disk-cache lookups that found no file */
    CLSCAN_EXT_CACHE_REJECTED,      /* files truncated, corrupt or foreign */
    CLSCAN_EXT_CACHE_REFUSED,       /* valid files whose binary the driver refused */
    CLSCAN_EXT_CACHE_WRITTEN,       /* files written */
    CLSCAN_EXT_CACHE_WRITE_FAILED,  /* binaries that could not be written */
    CLSCAN_EXT_CACHE_EVICTED,       /* programs a context released to stay within its
                                       caps (max_programs, max_program_bytes) */
    CLSCAN_EXT_CACHE_STAT_COUNT
} clscan_ext_cache_counter; /* (not "clscan_ext_cache_stat": that is the function's name) */
/* The counter's value (0 for an unknown counter). */
CLSCAN_API unsigned long clscan_ext_cache_stat(clscan_ext_cache_counter which);
/* Its short name ("programs", "source_builds", ...), or "unknown". */
CLSCAN_API const char *clscan_ext_cache_stat_name(clscan_ext_cache_counter which);

/* ---- Algorithms -----------------------------------------------------------------
 * The device-wide scan a context uses, by name: "multi-level" or "single-pass" (or
 * "default" for CLSCAN_ALGORITHM_DEFAULT, "unknown" otherwise). */
CLSCAN_API const char *clscan_ext_algorithm_name(clscan_algorithm algorithm);
/* The device-wide scan ctx uses now (CLSCAN_ALGORITHM_DEFAULT for a NULL or released
 * context). */
CLSCAN_API clscan_algorithm clscan_ext_context_algorithm(const clscan_context *ctx);
/* Makes ctx use `algorithm` for the calls enqueued after it (CLSCAN_ALGORITHM_DEFAULT:
 * the one chosen at creation). Not safe while another thread enqueues on ctx: for tools
 * that compare algorithms on one context. Returns CLSCAN_SUCCESS,
 * CLSCAN_ERROR_INVALID_ARGUMENT (NULL or released context, unknown algorithm) or
 * CLSCAN_ERROR_UNSUPPORTED (single-pass where the device cannot run it). */
CLSCAN_API clscan_status clscan_ext_context_set_algorithm(clscan_context *ctx,
                                                          clscan_algorithm algorithm);

/* ---- Host streams ---------------------------------------------------------------
 * The chunk, in elements, that clscan_scan_host takes for n > 0 elements of in_size and
 * out_size bytes when asked for `chunk` (0: its default): at most n. 0 for a NULL or
 * released context, n == 0, or both sizes 0. */
CLSCAN_API size_t clscan_ext_host_chunk(const clscan_context *ctx, size_t n, size_t chunk,
                                        size_t in_size, size_t out_size);

/* ---- Sizes ----------------------------------------------------------------------
 * Parses a size as the CLSCAN_* variables take it: an unsigned integer as C writes one
 * (decimal, 0x hexadecimal or 0 octal), then an optional K, M or G (powers of 1024), and
 * nothing else. Returns 1 and sets *out, or 0 for anything else (overflow included). */
CLSCAN_API int clscan_ext_parse_size(const char *text, unsigned long long *out);

#ifdef __cplusplus
}
#endif
#endif /* CLSCAN_EXT_H */
