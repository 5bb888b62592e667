/* defines.c - the #define block that specialises the embedded cl/ sources for one
 * configuration, or the same as clBuildProgram options for a user's kernel. */
/* SPDX-License-Identifier: MIT */
#include "kernels/kernels.h"

#include <stdio.h>
#include <string.h>

/* The OpenCL C version to compile for: 3.0 where the sub-group built-ins come from the
 * __opencl_c_subgroups feature alone (1.2 has them only through cl_khr_subgroups), and
 * 2.0 or 3.0 for the look-back's acquire/release atomics. */
const char *clscan__cl_std_option(const clscan__scan_config *cfg, const clscan__profile *p)
{
    if (cfg->algo == CLSCAN__SCAN_SINGLE_PASS && cfg->lb_atomics == CLSCAN__LB_C11)
        return p->cl_major >= 3 ? "-cl-std=CL3.0" : "-cl-std=CL2.0";
    return cfg->sg_impl == CLSCAN__SG_KHR && !clscan__has_token(p->extensions, "cl_khr_subgroups")
               ? "-cl-std=CL3.0"
               : "-cl-std=CL1.2";
}

size_t clscan__kernel_defines(const clscan__scan_config *cfg, const clscan__profile *p,
                              clscan__defines_form form, char *buf, size_t size)
{
    const int single = cfg->algo == CLSCAN__SCAN_SINGLE_PASS, sel = cfg->select != 0;
    const int general = cfg->kind == CLSCAN__PROGRAM_GENERAL;
    const int hist = cfg->kind == CLSCAN__PROGRAM_HIST;
    const struct {
        const char *name;
        unsigned long value;
        int on; /* written only where the program uses it */
    } defs[] = {
        {"CLSCAN_TYPE_ID", (unsigned long)cfg->type, 1},
        {"CLSCAN_OP_ID", (unsigned long)cfg->op, 1},
        {"CLSCAN_WG_SIZE", (unsigned long)cfg->wg_size, 1},
        {"CLSCAN_ITEMS", (unsigned long)cfg->items, 1},
        {"CLSCAN_LOG_BANKS", (unsigned long)cfg->log_banks, 1},
        {"CLSCAN_WG_ALGO", (unsigned long)cfg->wg_algo, 1},
        {"CLSCAN_SG_IMPL", (unsigned long)cfg->sg_impl, 1},
        {"CLSCAN_SG_WIDTH", (unsigned long)cfg->sg_width, 1},
        {"CLSCAN_SG_SHUFFLE_RELATIVE",
         (unsigned long)(cfg->sg_impl == CLSCAN__SG_KHR && p->sg_khr_shuffle_relative), 1},
        {"CLSCAN_SG_KHR_BALLOT", 1, clscan__sg_khr_ballot(cfg, p)},
        {"CLSCAN_SG_REQUIRED_SIZE",
         (unsigned long)(cfg->sg_impl == CLSCAN__SG_INTEL && p->sg_intel_required_size), 1},
        /* A compaction program's scan kernels are the multi-level ones. */
        {"CLSCAN_SINGLE_PASS", (unsigned long)(single && !sel && !general), 1},
        {"CLSCAN_GEN_SINGLE_PASS", (unsigned long)single, general},
        {"CLSCAN_SEL_SINGLE_PASS", (unsigned long)single, sel},
        {"CLSCAN_SEL_MODE", (unsigned long)(cfg->select - 1), sel},
        {"CLSCAN_SEL_TYPE_ID", (unsigned long)cfg->elem_type, sel},
        {"CLSCAN_SEL_PREDICATE_GIVEN", 1, sel && cfg->predicate},
        {"CLSCAN_SEL_STASH", 1, sel && cfg->sel_stash},
        {"CLSCAN_SEL_LENGTH_BYTES", (unsigned long)cfg->value_bytes,
         cfg->select == CLSCAN__SELECT_RUNS},
        /* The look-back knobs mean nothing to a multi-level program. */
        {"CLSCAN_LB_ATOMICS", (unsigned long)cfg->lb_atomics, single},
        {"CLSCAN_LB_WORD_BITS", (unsigned long)(cfg->lb_word_bits ? cfg->lb_word_bits : 64),
         single},
        {"CLSCAN_LB_TEST", (unsigned long)cfg->lb_test, single},
        {"CLSCAN_LB_WALK", (unsigned long)cfg->lb_walk, single && cfg->lb_walk},
        /* The library's own single-pass scan sums a one-work-item tile of floats in lanes,
         * its fallbacks too (cl/clscan_lookback.cl: clscan_lb_fold_lanes); a user's kernel
         * keeps the order of clscan_wg_scan. */
        {"CLSCAN_LB_TILE_LANES", 1,
         single && !sel && !general && form == CLSCAN__DEFINES_BLOCK},
        /* (A general program's prelude says whether its look-back keeps a fixed order:
         * src/algo/general.c, make_prelude.) */
        /* A general program's element size (its prelude checks sizeof against it). */
        {"CLSCAN_T_BYTES", (unsigned long)cfg->elem_bytes, general},
        /* A general program's segmented tile of values and head bits, and the kernels
         * of cl/clscan_scan.cl (its partials) without a tile of their own. */
        {"CLSCAN_GEN_VALUE_TILE", 1, general && cfg->value_bytes},
        {"CLSCAN_WG_DIRECT", 1, general},
        /* A sort program's key type and value size (cl/clscan_sort.cl). */
        {"CLSCAN_SORT_KEY_ID", (unsigned long)cfg->elem_type, cfg->kind == CLSCAN__PROGRAM_SORT},
        {"CLSCAN_SORT_VALUE_BYTES", (unsigned long)cfg->value_bytes,
         cfg->kind == CLSCAN__PROGRAM_SORT},
        {"CLSCAN_SORT_ONESWEEP", (unsigned long)cfg->sort_onesweep,
         cfg->kind == CLSCAN__PROGRAM_SORT && cfg->sort_onesweep},
        {"CLSCAN_SORT_LB_TEST", (unsigned long)cfg->lb_test,
         cfg->kind == CLSCAN__PROGRAM_SORT && cfg->sort_onesweep && cfg->lb_test},
        {"CLSCAN_SORT_BUCKETS", 1,
         cfg->kind == CLSCAN__PROGRAM_SORT && !cfg->sort_onesweep && cfg->sort_buckets},
        {"CLSCAN_OS_PLACE_EARLY", 1,
         cfg->kind == CLSCAN__PROGRAM_SORT && cfg->sort_onesweep && cfg->sort_place_early},
        /* Software prefetches in one work-item groups' loops (cl/clscan_common.cl,
         * CLSCAN_PREFETCH), on the runtimes known to compile them. */
        {"CLSCAN_CPU_PREFETCH", 1, cfg->wg_size == 1 && p->prefetch_builtin},
        /* (Not read by the kernels: the build puts it into the PTX, kernels/build.c.) */
        {"CLSCAN_PTX_MAXNREG", (unsigned long)cfg->ptx_maxnreg, cfg->ptx_maxnreg != 0},
        /* A histogram program's samples, bins and local counters (cl/clscan_histogram.cl). */
        {"CLSCAN_HIST_SAMPLE_ID", (unsigned long)cfg->elem_type, hist},
        {"CLSCAN_HIST_MODE", (unsigned long)cfg->hist_mode, hist},
        {"CLSCAN_HIST_LOCAL_BINS", (unsigned long)cfg->hist_local_bins, hist},
        /* (where the tune layer chose it for the sample type: one work-item groups only) */
        {"CLSCAN_HIST_BRANCH_FREE", 1,
         hist && cfg->wg_size == 1 && (p->hist_branch_free >> cfg->elem_type & 1u)},
        /* (read only under CLSCAN_HIST_BRANCH_FREE) */
        {"CLSCAN_HIST_VECTORS", 1, hist && cfg->wg_size == 1 && p->hist_vectors},
        {"CLSCAN_HIST_FUSED", 1, hist && cfg->hist_fused},
    };
    const size_t ndefs = sizeof defs / sizeof defs[0];
    size_t len = 0;
    int n;
    if (size) buf[0] = '\0';
#define CLSCAN_APPEND(...)                                                              \
    do {                                                                                \
        n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0, __VA_ARGS__); \
        if (n < 0) return 0;                                                            \
        len += (size_t)n;                                                               \
    } while (0)
    const bool as_options = form == CLSCAN__DEFINES_OPTIONS;
    if (as_options)
        CLSCAN_APPEND("%s", clscan__cl_std_option(cfg, p));
    else if (general)
        CLSCAN_APPEND("/* libclscan %d.%d.%d: general scan of %s (%zu bytes), %s, %s work-group "
                      "scan, %s sub-groups, for %s; built with %s */\n",
                      CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR, CLSCAN_VERSION_PATCH,
                      cfg->type == CLSCAN__TYPE_ID_CUSTOM ? "a prelude's type"
                                                         : clscan_type_name(cfg->type),
                      cfg->elem_bytes, clscan__scan_algo_name(cfg->algo),
                      clscan__wg_algo_name(cfg->wg_algo), clscan__sg_impl_name(cfg->sg_impl),
                      p->device_name, clscan__cl_std_option(cfg, p));
    else if (hist)
        CLSCAN_APPEND("/* libclscan %d.%d.%d: histogram of %s, %s bins, for %s; built with "
                      "%s */\n",
                      CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR, CLSCAN_VERSION_PATCH,
                      clscan_type_name(cfg->elem_type), cfg->hist_mode == 1 ? "even" : "level",
                      p->device_name, clscan__cl_std_option(cfg, p));
    else if (sel)
        CLSCAN_APPEND("/* libclscan %d.%d.%d: %s of %s (counts %s), %s, %s work-group scan, "
                      "%s sub-groups, for %s; built with %s */\n",
                      CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR, CLSCAN_VERSION_PATCH,
                      clscan__select_mode_name(cfg->select), clscan_type_name(cfg->elem_type),
                      clscan_type_name(cfg->type), clscan__scan_algo_name(cfg->algo),
                      clscan__wg_algo_name(cfg->wg_algo), clscan__sg_impl_name(cfg->sg_impl),
                      p->device_name, clscan__cl_std_option(cfg, p));
    else
        CLSCAN_APPEND("/* libclscan %d.%d.%d: %s %s, %s scan, %s work-group scan, %s "
                      "sub-groups, for %s; built with %s */\n",
                      CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR, CLSCAN_VERSION_PATCH,
                      clscan_type_name(cfg->type), clscan_op_name(cfg->op),
                      clscan__scan_algo_name(cfg->algo),
                      clscan__wg_algo_name(cfg->wg_algo), clscan__sg_impl_name(cfg->sg_impl),
                      p->device_name, clscan__cl_std_option(cfg, p));
    for (size_t i = 0; i < ndefs; ++i)
        if (defs[i].on)
            CLSCAN_APPEND(as_options ? " -D %s=%lu" : "#define %s %lu\n", defs[i].name,
                          defs[i].value);
#undef CLSCAN_APPEND
    return len;
}
