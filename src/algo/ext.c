/* ext.c - the second-tier API of include/clscan_ext.h (tracing, look-back and cache
 * statistics, algorithm names and forcing, the host chunk, sizes): thin wrappers over the
 * library's internals, with the public enums mapped to the internal ones case by case. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include "clscan_ext.h"

/* ------------------------------------------------------------ tracing ------- */

CLSCAN_API void clscan_ext_trace_events(cl_event *trace, size_t cap, size_t *count)
{
    clscan__trace_events(trace, cap, count);
}

CLSCAN_API void clscan_ext_lookback_stats(cl_mem stats) { clscan__lookback_stats(stats); }

/* ------------------------------------------------------- cache counters ----- */

/* Each public counter, its internal twin and its name, in the public enum's order. */
static const struct {
    clscan_ext_cache_counter which;
    clscan__cache_counter internal;
    const char *name;
} cache_stats[] = {
    {CLSCAN_EXT_CACHE_PROGRAMS, CLSCAN__CACHE_PROGRAMS, "programs"},
    {CLSCAN_EXT_CACHE_SOURCE_BUILDS, CLSCAN__CACHE_SOURCE_BUILDS, "source_builds"},
    {CLSCAN_EXT_CACHE_LOADED, CLSCAN__CACHE_LOADED, "loaded"},
    {CLSCAN_EXT_CACHE_MISSING, CLSCAN__CACHE_MISSING, "missing"},
    {CLSCAN_EXT_CACHE_REJECTED, CLSCAN__CACHE_REJECTED, "rejected"},
    {CLSCAN_EXT_CACHE_REFUSED, CLSCAN__CACHE_REFUSED, "refused"},
    {CLSCAN_EXT_CACHE_WRITTEN, CLSCAN__CACHE_WRITTEN, "written"},
    {CLSCAN_EXT_CACHE_WRITE_FAILED, CLSCAN__CACHE_WRITE_FAILED, "write_failed"},
    {CLSCAN_EXT_CACHE_EVICTED, CLSCAN__CACHE_EVICTED, "evicted"}};
_Static_assert(sizeof cache_stats / sizeof cache_stats[0] == CLSCAN_EXT_CACHE_STAT_COUNT &&
                   CLSCAN_EXT_CACHE_STAT_COUNT == (int)CLSCAN__CACHE_STAT_COUNT,
               "one row per cache counter");

/* The row of `which` in cache_stats, or -1 for an unknown counter. */
static int cache_row(clscan_ext_cache_counter which)
{
    for (int i = 0; i < CLSCAN_EXT_CACHE_STAT_COUNT; ++i)
        if (cache_stats[i].which == which) return i;
    return -1;
}

CLSCAN_API unsigned long clscan_ext_cache_stat(clscan_ext_cache_counter which)
{
    const int i = cache_row(which);
    return i < 0 ? 0 : clscan__cache_stat(cache_stats[i].internal);
}

CLSCAN_API const char *clscan_ext_cache_stat_name(clscan_ext_cache_counter which)
{
    const int i = cache_row(which);
    return i < 0 ? "unknown" : cache_stats[i].name;
}

/* ----------------------------------------------------------- algorithms ----- */

/* Public CLSCAN_ALGORITHM_* (DEFAULT is 0) to the internal clscan__scan_algo (whose
 * MULTI_LEVEL is 0): true and *out, or false for DEFAULT or an unknown value. */
static bool algo_to_internal(clscan_algorithm algorithm, clscan__scan_algo *out)
{
    switch (algorithm) {
    case CLSCAN_ALGORITHM_MULTI_LEVEL: *out = CLSCAN__SCAN_MULTI_LEVEL; return true;
    case CLSCAN_ALGORITHM_SINGLE_PASS: *out = CLSCAN__SCAN_SINGLE_PASS; return true;
    default: return false;
    }
}

static clscan_algorithm algo_to_public(clscan__scan_algo algo)
{
    switch (algo) {
    case CLSCAN__SCAN_MULTI_LEVEL: return CLSCAN_ALGORITHM_MULTI_LEVEL;
    case CLSCAN__SCAN_SINGLE_PASS: return CLSCAN_ALGORITHM_SINGLE_PASS;
    default: return CLSCAN_ALGORITHM_DEFAULT;
    }
}

CLSCAN_API const char *clscan_ext_algorithm_name(clscan_algorithm algorithm)
{
    clscan__scan_algo algo;
    if (algorithm == CLSCAN_ALGORITHM_DEFAULT) return "default";
    return algo_to_internal(algorithm, &algo) ? clscan__scan_algo_name(algo) : "unknown";
}

CLSCAN_API clscan_algorithm clscan_ext_context_algorithm(const clscan_context *ctx)
{
    return clscan__context_live(ctx) ? algo_to_public(ctx->target.profile.scan_algo)
                                     : CLSCAN_ALGORITHM_DEFAULT;
}

CLSCAN_API clscan_status clscan_ext_context_set_algorithm(clscan_context *ctx,
                                                          clscan_algorithm algorithm)
{
    clscan_status s = clscan__check_context(ctx);
    if (s != CLSCAN_SUCCESS) return s;
    clscan__scan_algo algo = CLSCAN__SCAN_MULTI_LEVEL;
    if (algorithm != CLSCAN_ALGORITHM_DEFAULT && !algo_to_internal(algorithm, &algo))
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ARGUMENT, "algorithm %d is not a "
                            "clscan_algorithm", (int)algorithm);
    if (algorithm == CLSCAN_ALGORITHM_DEFAULT) {
        ctx->target.profile.scan_algo = ctx->created_scan_algo;
        ctx->target.profile.scan_algo_source = ctx->created_scan_algo_source;
        return CLSCAN_SUCCESS;
    }
    /* As at creation (choose_device_scan in tune/choose.c): the look-back waits in a loop, so
     * a device that stops a work-item after a number of loop iterations (llvmpipe) gets
     * the multi-level scan; only CLSCAN_SCAN_ALGO=single-pass at creation overrides it. */
    CLSCAN__RETURN_IF(ctx,
                      algo == CLSCAN__SCAN_SINGLE_PASS &&
                          ctx->target.profile.max_loop_iterations &&
                          ctx->created_scan_algo != CLSCAN__SCAN_SINGLE_PASS,
                      CLSCAN_ERROR_UNSUPPORTED,
                     "the single-pass scan cannot run here: the device stops a work-item after "
                     "%llu loop iterations and the look-back waits in a loop",
                     (unsigned long long)ctx->target.profile.max_loop_iterations);
    ctx->target.profile.scan_algo = algo;
    ctx->target.profile.scan_algo_source = "clscan_ext_context_set_algorithm";
    return CLSCAN_SUCCESS;
}

/* ---------------------------------------------------------- host streams ---- */

CLSCAN_API size_t clscan_ext_host_chunk(const clscan_context *ctx, size_t n, size_t chunk,
                                        size_t in_size, size_t out_size)
{
    if (n == 0 || (in_size == 0 && out_size == 0) || !clscan__context_live(ctx))
        return 0; /* (sizes of 0 would divide by zero) */
    return clscan__host_chunk(ctx, n, chunk, in_size, out_size);
}

/* ----------------------------------------------------------------- sizes ---- */

CLSCAN_API int clscan_ext_parse_size(const char *text, unsigned long long *out)
{
    return out ? clscan__parse_size(text, out) : 0;
}
