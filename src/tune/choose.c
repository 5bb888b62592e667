/* choose.c - the tuning choices for a probed device, each with its reason: banks (probe
 * or table), launch shapes (table, then overrides), the sub-group implementation and
 * width, the work-group scan, the device-wide scan and its look-back atomics, and the
 * work-group sizes fitted to the device's limits. */
/* SPDX-License-Identifier: MIT */
#include "tune/tune.h"

#include <string.h>

static int is_pow2(size_t x) { return x && !(x & (x - 1)); }

/* ---------------------------------------------------------------- sub-groups -- */

/* Whether `impl` can run here, and if not why (for the error of a forced choice). */
static const char *sg_impl_unavailable(const clscan__profile *p, clscan__sg_impl impl)
{
    switch (impl) {
    case CLSCAN__SG_LOCAL: return NULL;
    case CLSCAN__SG_KHR:
        return p->sg_khr ? NULL : "the device has neither cl_khr_subgroups nor "
                                  "__opencl_c_subgroups";
    case CLSCAN__SG_NVIDIA:
        if (!p->nvidia_platform) return "the platform is not NVIDIA's";
        if (!p->subgroup_queried || p->subgroup_width != 32)
            return "CL_DEVICE_WARP_SIZE_NV did not give a warp width of 32";
        return NULL;
    case CLSCAN__SG_INTEL:
        if (!p->sg_intel) return "the device lacks cl_intel_subgroups";
        if (!p->sg_intel_required_size)
            return "the device lacks cl_intel_required_subgroup_size, so the width cannot "
                   "be fixed";
        /* (A width from CLSCAN_SUBGROUP_WIDTH: one the device offers.) */
        if (!p->subgroup_queried &&
            !(is_pow2(p->subgroup_width) && (p->sg_intel_widths & p->subgroup_width)))
            return "the width is not one the device offers (CL_DEVICE_SUB_GROUP_SIZES_INTEL)";
        if (p->subgroup_width != 8 && p->subgroup_width != 16 && p->subgroup_width != 32)
            return "Intel shuffles are used for widths 8, 16 and 32 only";
        return NULL;
    default: return "unknown implementation";
    }
}

/* The emulated width where no query gave one: the local implementation works for any
 * width, and 32 (NVIDIA's warp, half of AMD's wavefront) keeps its barrier count low. */
#define CLSCAN_EMULATED_SG_WIDTH 32

/* Picks the sub-group implementation and the work-group scan from the capabilities:
 * a native implementation where the device has one (NVIDIA's PTX where the platform
 * is NVIDIA's and the warp width was queried, Intel's shuffles where the width can be
 * fixed, the KHR built-ins where present), else local memory; the sub-group-based
 * work-group scan where sub-groups are native, else Blelloch. */
static void choose_subgroups(clscan__profile *p)
{
    /* The sub-group layer needs a power of two; a device reporting another width gets
     * the emulated one (and no native implementation: those check the width). */
    p->sg_width = is_pow2(p->subgroup_width) ? p->subgroup_width : CLSCAN_EMULATED_SG_WIDTH;
    if (!sg_impl_unavailable(p, CLSCAN__SG_NVIDIA)) {
        p->sg_impl = CLSCAN__SG_NVIDIA;
        p->sg_source = "NVIDIA platform, warp width from CL_DEVICE_WARP_SIZE_NV";
    } else if (!sg_impl_unavailable(p, CLSCAN__SG_INTEL)) {
        p->sg_impl = CLSCAN__SG_INTEL;
        p->sg_source = "cl_intel_subgroups, width fixed by cl_intel_required_subgroup_size";
    } else if (!sg_impl_unavailable(p, CLSCAN__SG_KHR)) {
        p->sg_impl = CLSCAN__SG_KHR;
        p->sg_source = "sub-group built-ins; width from clGetKernelSubGroupInfo after build";
    } else {
        p->sg_impl = CLSCAN__SG_LOCAL;
        p->sg_source = p->subgroup_queried ? "no sub-group functions: local memory, the "
                                             "device's width"
                       : p->subgroup_width ? "no sub-group functions: local memory, emulated "
                                             "width from CLSCAN_SUBGROUP_WIDTH"
                                           : "no sub-group functions: local memory, emulated "
                                             "width 32";
    }
    p->wg_algo = p->sg_impl == CLSCAN__SG_LOCAL ? CLSCAN__WG_BLELLOCH : CLSCAN__WG_SUBGROUP;
    p->wg_algo_source = p->sg_impl == CLSCAN__SG_LOCAL ? "no native sub-groups"
                                                      : "native sub-groups";
}

static clscan_status check_forced_subgroups(const clscan_context *ctx, clscan__profile *p)
{
    const char *why = sg_impl_unavailable(p, p->sg_impl);
    if (why)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_SUBGROUP_IMPL=%s cannot be used: %s",
                            clscan__sg_impl_name(p->sg_impl), why);
    p->sg_source = "CLSCAN_SUBGROUP_IMPL";
    return CLSCAN_SUCCESS;
}

/* ------------------------------------------------------- device-wide scan -- */

/* Whether the look-back can use `a` here, and if not why. */
static const char *lb_atomics_unavailable(const clscan__profile *p, clscan__lb_atomics a)
{
    switch (a) {
    case CLSCAN__LB_CL12: return NULL;
    case CLSCAN__LB_C11:
        if (p->cl_major < 2) return "the device is older than OpenCL 2.0";
        if (p->cl_major >= 3 && (!(p->features & CLSCAN__FEAT_ATOMIC_ACQ_REL) ||
                                 !(p->features & CLSCAN__FEAT_ATOMIC_SCOPE_DEVICE)))
            return "the device lacks __opencl_c_atomic_order_acq_rel or "
                   "__opencl_c_atomic_scope_device";
        return NULL;
    case CLSCAN__LB_PTX:
        if (!p->nvidia_platform) return "the platform is not NVIDIA's";
        if (!p->int64_atomics) return "64-bit atomics are off (CLSCAN_INT64_ATOMICS=0)";
        return NULL;
    default: return "unknown mode";
    }
}

/* The single-pass scan wherever a work-item may loop freely (the look-back waits in a
 * loop; llvmpipe stops a work-item after 65535 iterations in all); its status words
 * through the OpenCL 2.0/3.0 acquire/release atomics where the device has them, else
 * OpenCL 1.2 atomics. NVIDIA's OpenCL has no acquire/release, and its PTX loads were
 * measured slower than the 1.2 read-modify-writes for values of one word
 * (docs/PERFORMANCE.md), so there PTX is an override; values of whole pairs of words
 * take it (finish_lookback). */
static void choose_device_scan(clscan__profile *p)
{
    p->scan_algo = p->max_loop_iterations ? CLSCAN__SCAN_MULTI_LEVEL : CLSCAN__SCAN_SINGLE_PASS;
    p->scan_algo_source = p->max_loop_iterations
                              ? "a work-item's loop iterations are limited: multi-level"
                              : "default: single-pass";
    if (!lb_atomics_unavailable(p, CLSCAN__LB_C11)) {
        p->lb_atomics = CLSCAN__LB_C11;
        p->lb_atomics_source = "device-scope acquire/release";
    } else {
        p->lb_atomics = CLSCAN__LB_CL12;
        p->lb_atomics_source = "OpenCL 1.2 atomics";
    }
    /* GPUs: a predecessor that has not published after this many reads (about a
     * microsecond each) is stalled, not slow; CPUs run a started group to its end. */
    p->lb_spins = 256;
    p->reduce_single = 1;
    p->reduce_single_source = "default";
    p->lb_test = CLSCAN__LB_TEST_OFF;
    p->lb_walk = CLSCAN__LB_WALK_AUTO;
    /* 64 KiB: far beyond any predicate or operator, and far below what overflows a
     * compiler's stack (a 2 MiB predicate did on PoCL and rusticl). */
    p->max_text_bytes = 65536;
    /* Every built-in program a context can use (clscan_context_warm's 84 or so, the sorts,
     * histograms and reductions) fits well within 512; user texts beyond it are released
     * least recently used first (one program took 0.6 MB on PoCL, 1.6 MB on rusticl). */
    p->max_programs = 512;
    p->max_program_bytes = (cl_ulong)32 << 20;
    /* The one-sweep sort ranks keys by warp match in inline PTX on NVIDIA's OpenCL (and
     * through local memory elsewhere, much slower); its look-back waits in loops. */
    if (p->nvidia_platform && !p->max_loop_iterations) {
        p->sort_algo = CLSCAN__SORT_ONESWEEP;
        p->sort_algo_source = "NVIDIA: warp match ranks the keys";
    } else {
        p->sort_algo = CLSCAN__SORT_THREE_STEP;
        p->sort_algo_source = p->max_loop_iterations
                                  ? "a work-item's loop iterations are limited"
                                  : "default off NVIDIA";
    }
    /* Plain scans (kernels/config.c; integers walked by a sub-group): five work-groups of
     * 256 a multiprocessor for 4-byte types, six for 8-byte ones (H200: int32 exclusive
     * sums of 2^28 570 us under 40, 551 under 48; int64 1215 under 40, 1258 under 48;
     * docs/PERFORMANCE.md, thirtieth session; float and double 5-7% faster at 2^24 and
     * up, thirty-third session). */
    p->scan_max_registers = p->nvidia_platform ? 48 : 0;
    p->scan_max_registers_8 = p->nvidia_platform ? 40 : 0;
    /* Compactions of 4-byte elements (kernels/config.c): five work-groups of 256 a
     * multiprocessor for select-if, select-flagged and partition, four (not three) for
     * run-length encoding (H200, docs/PERFORMANCE.md, thirty-first session); the first
     * cap also for unique and run-length encoding of 8-byte elements, stashed (five
     * groups, not four; thirty-sixth session). */
    p->select_max_registers = p->nvidia_platform ? 48 : 0;
    p->runs_max_registers = p->nvidia_platform ? 64 : 0;
    /* Keys alone: four work-groups of 256 a multiprocessor rather than two at the 98
     * registers the compiler takes (H200: sorts of 2^24 uint32 keys 488 -> 403 us,
     * docs/PERFORMANCE.md, seventeenth session). Pairs: 72 rather than the compiler's
     * 80, three work-groups either way (H200: 2^24 uint32 pairs 610 -> 583 us,
     * twenty-first session). */
    p->sort_max_registers = p->nvidia_platform ? 64 : 0;
    p->sort_pair_max_registers = p->nvidia_platform ? 72 : 0;
    p->sort_max_registers_source = p->nvidia_platform ? "NVIDIA: as measured on the H200"
                                                      : "no cap off NVIDIA";
    /* Where it measured faster (docs/PERFORMANCE.md, sixteenth session): PoCL 0.5-0.8 of
     * the time, in the blocks of the thirty-first session 0.12-0.20 of the time before
     * them, which PoCL vectorises itself (its vectors were 1.05-1.20x slower); Intel's CPU
     * runtime, which did not vectorise the blocks, in vectors: 0.14-0.22 of the time of
     * the form before them, every sample type (which had kept the branch but for floats). */
    p->hist_vectors = 0;
    if (strstr(p->platform_name, "Portable Computing Language")) {
        p->hist_branch_free = (1u << CLSCAN_TYPE_COUNT) - 1;
        p->hist_branch_free_source = "every sample type (PoCL)";
    } else if (strstr(p->platform_name, "Intel(R) OpenCL") &&
               (p->device_type & CL_DEVICE_TYPE_CPU)) {
        p->hist_branch_free = (1u << CLSCAN_TYPE_COUNT) - 1;
        p->hist_vectors = 1;
        p->hist_branch_free_source = "every sample type, 16 at once in vectors (Intel's CPU runtime)";
    } else {
        p->hist_branch_free = 0;
        p->hist_branch_free_source = "no sample type (default)";
    }
}

/* After the overrides: checks a forced atomics mode and picks the status word width
 * (64 bits with 64-bit atomics, which C11 mode needs in their extended form too). */
static clscan_status finish_lookback(const clscan_context *ctx, clscan__profile *p, int forced)
{
    const char *why = lb_atomics_unavailable(p, p->lb_atomics);
    if (why && forced)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_LOOKBACK_ATOMICS=%s cannot be used: %s",
                            clscan__lb_atomics_name(p->lb_atomics), why);
    if (why) { /* a fact override took the default's ground away */
        p->lb_atomics = CLSCAN__LB_CL12;
        p->lb_atomics_source = "OpenCL 1.2 atomics";
    } else if (forced) {
        p->lb_atomics_source = "CLSCAN_LOOKBACK_ATOMICS";
    }
    p->lb_word_bits = p->int64_atomics ? 64 : 32;
    if (p->lb_atomics == CLSCAN__LB_C11 &&
        !clscan__has_token(p->extensions, "cl_khr_int64_extended_atomics"))
        p->lb_word_bits = 32;
    /* Values of whole pairs of words: on the H200, PTX words (each pair in one 16-byte
     * access) made int64 scans 8% and int32 scans by key 6-8% faster than the 1.2
     * atomics (tenth session), a user's 16-byte struct (the 2x2 matrix product) 38-39%
     * (twenty-second), reduce by key 3-15% (thirty-seventh); the 1.2 atomics stay for
     * the rest (PTX: int32 scans 17% slower; docs/PERFORMANCE.md). */
    p->lb_atomics_pair = p->lb_atomics;
    if (!forced && p->lb_word_bits == 64 && !lb_atomics_unavailable(p, CLSCAN__LB_PTX))
        p->lb_atomics_pair = CLSCAN__LB_PTX;
    return CLSCAN_SUCCESS;
}

/* A work-group size must be a power of two the device allows; a default from the table
 * shrinks to fit, an explicit override (variable `name`) that does not fit is an error. */
static clscan_status fit_wg_size(const clscan_context *ctx, const clscan__profile *p,
                                 size_t *wg, const char *name, clscan__getenv_fn getenv_fn,
                                 void *user)
{
    if (!is_pow2(*wg))
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "%s: work-group size %zu is not a power of two", name, *wg);
    while (*wg > p->max_wg_size && *wg > 1) {
        if (getenv_fn && getenv_fn(name, user))
            return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                                "%s=%zu exceeds the device's maximum work-group size %zu", name,
                                *wg, p->max_wg_size);
        *wg >>= 1;
    }
    return CLSCAN_SUCCESS;
}

clscan_status clscan__profile_finish(const clscan_context *ctx, clscan__profile *p,
                                     clscan__getenv_fn getenv_fn, void *user)
{
    clscan_status s = clscan__apply_overrides(ctx, p, CLSCAN__PHASE_FACT, getenv_fn, user);
    if (s != CLSCAN_SUCCESS) return s;
    /* Capabilities that follow from (possibly overridden) extension lists. */
    if (getenv_fn && getenv_fn("CLSCAN_EXTENSIONS", user)) {
        if (!getenv_fn("CLSCAN_FP64", user))
            p->fp64 = clscan__has_token(p->extensions, "cl_khr_fp64") ||
                      (p->features & CLSCAN__FEAT_FP64);
        if (!getenv_fn("CLSCAN_INT64_ATOMICS", user))
            p->int64_atomics = clscan__has_token(p->extensions, "cl_khr_int64_base_atomics");
    }

    /* Banks: none where local memory is ordinary memory. */
    p->local_banks = 0;
    p->bank_width = 4;
    p->banks_source = "none: local memory is global memory";
    if (!p->local_mem_is_global && p->bank_probe_ran && p->bank_probe.measured) {
        p->local_banks = p->bank_probe.banks;
        p->bank_width = p->bank_probe.width;
        p->banks_source = "measured by the bank probe";
    } else if (!p->local_mem_is_global) {
        const clscan__bank_row *row = clscan__table_banks(p);
        p->local_banks = row->banks;
        p->bank_width = row->width;
        p->banks_source = row->source;
    }

    const clscan__tuning_row *t = clscan__table_tuning(p);
    p->wg_size = t->wg_size;
    p->items_per_thread = t->items;
    p->items_per_thread_8 = t->items8;
    p->groups_per_cu = t->groups_per_cu;
    p->max_groups = 0;
    p->single_group_tiles = t->single_group_tiles;
    p->padding = 1;
    p->tuning_source = t->source;
    p->sp_wg_size = t->sp_wg_size;
    p->sp_items = t->sp_items;
    p->sp_items_8 = t->sp_items8;
    choose_device_scan(p);

    /* Sub-group capabilities follow the (possibly overridden) extension list. */
    p->sg_khr = clscan__has_token(p->extensions, "cl_khr_subgroups") ||
                (p->features & CLSCAN__FEAT_SUBGROUPS);
    p->sg_khr_shuffle_relative =
        clscan__has_token(p->extensions, "cl_khr_subgroup_shuffle_relative");
    p->sg_intel = clscan__has_token(p->extensions, "cl_intel_subgroups");
    p->sg_intel_required_size =
        clscan__has_token(p->extensions, "cl_intel_required_subgroup_size");
    if (getenv_fn && getenv_fn("CLSCAN_SUBGROUP_WIDTH", user)) {
        if (p->subgroup_width && !is_pow2(p->subgroup_width))
            return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                                "CLSCAN_SUBGROUP_WIDTH=%u is not a power of two",
                                p->subgroup_width);
        p->subgroup_queried = 0;
        p->subgroup_source = "CLSCAN_SUBGROUP_WIDTH";
    }
    choose_subgroups(p);

    s = clscan__apply_overrides(ctx, p, CLSCAN__PHASE_TUNING, getenv_fn, user);
    if (s != CLSCAN_SUCCESS) return s;
    if (getenv_fn && getenv_fn("CLSCAN_SUBGROUP_IMPL", user)) {
        s = check_forced_subgroups(ctx, p);
        if (s != CLSCAN_SUCCESS) return s;
    }
    if (getenv_fn && getenv_fn("CLSCAN_WG_SCAN", user)) p->wg_algo_source = "CLSCAN_WG_SCAN";
    if (getenv_fn && getenv_fn("CLSCAN_SCAN_ALGO", user)) p->scan_algo_source = "CLSCAN_SCAN_ALGO";
    if (getenv_fn && getenv_fn("CLSCAN_SORT_ALGO", user)) p->sort_algo_source = "CLSCAN_SORT_ALGO";
    if (getenv_fn && getenv_fn("CLSCAN_SORT_MAX_REGISTERS", user)) {
        p->sort_max_registers_source = "CLSCAN_SORT_MAX_REGISTERS";
        p->sort_pair_max_registers = p->sort_max_registers;
    }
    /* The one-sweep look-back waits in loops: never where a work-item's loop iterations
     * are limited, asked for or not (the sort then takes the three-step kernels, and
     * describe says so). */
    if (p->sort_algo == CLSCAN__SORT_ONESWEEP && p->max_loop_iterations) {
        p->sort_algo = CLSCAN__SORT_THREE_STEP;
        p->sort_algo_source = "one-sweep ruled out: a work-item's loop iterations are limited";
    }
    s = finish_lookback(ctx, p, getenv_fn && getenv_fn("CLSCAN_LOOKBACK_ATOMICS", user));
    if (s != CLSCAN_SUCCESS) return s;
    if (getenv_fn && getenv_fn("CLSCAN_LOCAL_MEM_BANKS", user))
        p->banks_source = "CLSCAN_LOCAL_MEM_BANKS";
    if (getenv_fn && getenv_fn("CLSCAN_WORK_GROUP_SIZE", user)) p->tuning_source = "overridden";
    /* An overridden item count (for 4-byte types) gives 8-byte types half as many. */
    if (getenv_fn && getenv_fn("CLSCAN_ITEMS_PER_THREAD", user))
        p->items_per_thread_8 = p->items_per_thread > 1 ? p->items_per_thread / 2 : 1;
    if (getenv_fn && getenv_fn("CLSCAN_SP_ITEMS_PER_THREAD", user))
        p->sp_items_8 = p->sp_items > 1 ? p->sp_items / 2 : 1;

    s = fit_wg_size(ctx, p, &p->wg_size, "CLSCAN_WORK_GROUP_SIZE", getenv_fn, user);
    if (s == CLSCAN_SUCCESS)
        s = fit_wg_size(ctx, p, &p->sp_wg_size, "CLSCAN_SP_WORK_GROUP_SIZE", getenv_fn, user);
    if (s != CLSCAN_SUCCESS) return s;
    /* Mesa's llvmpipe runs a loop that follows the look-back's endless loop only once
     * when a work-group is narrower than its vectors (8 lanes here; 1, 2 and 4 fail:
     * docs/IMPLEMENTATION-ISSUES.md): a single-pass scan asked for there with groups
     * under 16 takes the multi-level scan, and describe says so; unless a work-item
     * holds one element (its loops then run once anyway: the max-alloc test's tiles). */
    if (p->scan_algo == CLSCAN__SCAN_SINGLE_PASS && p->sp_wg_size < 16 &&
        (p->sp_items > 1 || p->sp_items_8 > 1) && strstr(p->device_name, "llvmpipe")) {
        p->scan_algo = CLSCAN__SCAN_MULTI_LEVEL;
        p->scan_algo_source = "single-pass ruled out: llvmpipe with work-groups under 16";
    }
    /* llvmpipe drops the store by which the one-kernel reduction's last group publishes
     * a partial it folded again, in the loop that waits for the others' partials; the
     * group then goes round until llvmpipe's loop budget ends every loop
     * (docs/IMPLEMENTATION-ISSUES.md): the levels stay two kernels there. */
    if (strstr(p->device_name, "llvmpipe")) {
        p->reduce_single = 0;
        p->reduce_single_source = "ruled out: llvmpipe drops a store after its wait loop";
    }
    if (p->local_banks && !is_pow2(p->local_banks)) p->padding = 0;
    if (p->compute_units == 0) p->compute_units = 1;
    return CLSCAN_SUCCESS;
}

/* Runs the bank probe where it can tell something: by default on GPUs whose local
 * memory is on-chip (a CPU's timings show no banks, and the probe would only cost
 * time); CLSCAN_BANK_PROBE=1 runs it anywhere, 0 never. Uses the device's own facts,
 * before overrides: it measures the hardware, not the emulated profile. A result kept in
 * store is loaded instead of measured. A probe that fails leaves the vendor table in
 * charge; its reason shows in the description. */
static clscan_status run_bank_probe(const clscan_context *ctx, cl_context cl_ctx,
                                    cl_device_id d, clscan__getenv_fn getenv_fn, void *user,
                                    const clscan__probe_store *store, clscan__profile *p)
{
    const char *mode = getenv_fn("CLSCAN_BANK_PROBE", user);
    if (mode && strcmp(mode, "0") != 0 && strcmp(mode, "1") != 0)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_BANK_PROBE=\"%s\": expected 0 or 1", mode);
    int run = mode ? mode[0] == '1'
                   : p->device_type == CL_DEVICE_TYPE_GPU && !p->local_mem_is_global;
    if (!run || !cl_ctx) return CLSCAN_SUCCESS;
    clscan_status s = clscan__bank_probe(ctx, cl_ctx, d, p->max_wg_size, p->local_mem_size,
                                         store, &p->bank_probe, &p->bank_probe_origin);
    p->bank_probe_ran = 1;
    if (s != CLSCAN_SUCCESS) p->bank_probe.measured = 0; /* the detail says why */
    return CLSCAN_SUCCESS;
}

clscan_status clscan__profile_complete(const clscan_context *ctx, cl_context cl_ctx,
                                       cl_device_id d, clscan__getenv_fn getenv_fn, void *user,
                                       const clscan__probe_store *store, clscan__profile *p)
{
    if (!getenv_fn) getenv_fn = clscan__env_getter;
    clscan_status s = run_bank_probe(ctx, cl_ctx, d, getenv_fn, user, store, p);
    if (s == CLSCAN_SUCCESS) s = clscan__profile_finish(ctx, p, getenv_fn, user);
    if (s != CLSCAN_SUCCESS) clscan__profile_free(p);
    return s;
}
