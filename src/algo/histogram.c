/* histogram.c - clscan_histogram_even and clscan_histogram_range: argument checks, the
 * bin parameters the kernels take (cl/clscan_histogram.cl), and the passes: each
 * work-group counts a share of the samples in local memory, then, on devices with 64-bit
 * atomics, adds them to arrival words whose last arrival writes the caller's count (one
 * kernel), elsewhere writes a row of partial counts that a second kernel sums; more bins
 * than local memory holds are counted with global atomics into one cleared row. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <math.h>
#include <string.h>

enum {
    MAX_LOCAL_BINS = 16384, /* local counters a work-group may take */
    MIN_LOCAL_BINS = 256    /* the smallest local program (bins round up to a power of 2) */
};
#define MAX_BINS ((size_t)1 << 31)
#define ROWS_BYTES ((cl_ulong)32 << 20) /* the partial counts of one pass, at most */
#define PASS_SAMPLES_MAX 0xffffffffull  /* a 32-bit counter never wraps within a pass */
/* clscan_hist_fused's arrival words: 24 bits of groups over 40 bits of a bin's sum. */
#define FUSED_GROUPS_MAX 0xffffffull
#define FUSED_SAMPLES_MAX 0xffffffffffull

/* The local counters a program for `bins` declares (a power of two, at least 256), or 0
 * where bins exceed what this device's local memory takes (then global atomics). */
static cl_uint local_bins(const clscan__profile *p, size_t bins)
{
    const cl_ulong words = p->local_mem_size > 1024 ? (p->local_mem_size - 1024) / 4 : 0;
    const cl_ulong cap = words / 8 < MAX_LOCAL_BINS ? words / 8 : MAX_LOCAL_BINS;
    cl_ulong want = MIN_LOCAL_BINS;
    while (want < bins) want *= 2;
    return want <= cap ? (cl_uint)want : 0;
}

/* The program for samples of `type` and bins of `mode` (1 even, 2 levels) with `local`
 * local counters (0: the global path, which declares one), holding clscan_hist_fused
 * where `fused` is set. */
static clscan_status hist_program(clscan_context *ctx, clscan_type type, cl_uint mode,
                                  cl_uint local, int fused, clscan__program **prog)
{
    const clscan__profile *p = &ctx->target.profile;
    clscan__scan_config cfg;
    clscan_status s = clscan__scan_config_choose(ctx, p, CLSCAN__SCAN_MULTI_LEVEL, CLSCAN_UINT32,
                                                 CLSCAN_OP_ADD, &cfg);
    if (s != CLSCAN_SUCCESS) return s;
    cfg.kind = CLSCAN__PROGRAM_HIST;
    cfg.elem_type = type;
    cfg.hist_mode = mode;
    cfg.hist_local_bins = local ? local : 1;
    cfg.hist_fused = fused != 0;
    cfg.items = 1; /* (the kernels take no tiles) */
    /* No scan kernel to check a sub-group layer against (as for sorts). */
    cfg.sg_impl = CLSCAN__SG_LOCAL;
    cfg.wg_algo = CLSCAN__WG_BLELLOCH;
    cfg.sg_width = 1;
    return clscan__program_get(ctx, &cfg, prog);
}

/* One call: the samples, the bins' parameters as the kernels take them, the counts. */
typedef struct hist_call {
    cl_mem samples;
    cl_ulong samples_off, n;
    clscan_type type;
    cl_uint bins, mode;
    unsigned char lower[8], upper[8], scale[8]; /* of the sample type */
    cl_ulong range, magic;                       /* integers: upper - lower, and the
                                                    reciprocal clscan_hist_div takes */
    cl_uint width, wmagic;                       /* integer bins of one width below 2^32
                                                    (else 0), and its 32-bit reciprocal */
    cl_mem levels;                               /* the level buffer, or samples */
    cl_ulong levels_off;
    cl_mem counts;
    cl_ulong counts_off;
    cl_int count64;
} hist_call;

/* Sets the bin arguments (lower, upper, scale, range, magic, width, wmagic, bins, levels,
 * levels_off) as a's next ones. */
static void set_bin_args(clscan__kernel_args *a, const hist_call *c)
{
    const size_t e = clscan_type_size(c->type);
    clscan__arg_bytes(a, e, c->lower);
    clscan__arg_bytes(a, e, c->upper);
    clscan__arg_bytes(a, e, c->scale);
    CLSCAN__ARG(*a, c->range);
    CLSCAN__ARG(*a, c->magic);
    CLSCAN__ARG(*a, c->width);
    CLSCAN__ARG(*a, c->wmagic);
    CLSCAN__ARG(*a, c->bins);
    CLSCAN__ARG(*a, c->levels);
    CLSCAN__ARG(*a, c->levels_off);
}

/* How a call's samples are split: passes of at most pass_n samples (so no 32-bit counter
 * of a pass wraps, and no work-item loops past the device's budget), each counted by
 * rows work-groups of per_group samples (local counters: one row of partials each, or
 * with `fused` one addition to every bin's arrival word) or by the device's groups with
 * global atomics into one row. */
typedef struct hist_plan {
    int local, fused;
    cl_ulong groups;    /* the device's work-groups (profile) */
    cl_ulong max_rows;  /* rows of partials a pass may write */
    cl_ulong per_group; /* local: the most samples one work-group counts */
    cl_ulong pass_n;
} hist_plan;

static cl_ulong sat_mul(cl_ulong a, cl_ulong b)
{
    return a && b > ~(cl_ulong)0 / a ? ~(cl_ulong)0 : a * b;
}

static hist_plan plan_passes(const clscan__profile *p, cl_ulong wg, cl_uint bins, int local,
                             int fused, cl_uint mode)
{
    hist_plan h = {local, fused,
                   p->max_groups ? p->max_groups
                                 : (cl_ulong)p->compute_units * p->groups_per_cu,
                   1, 0, 0};
    if (h.groups < 1) h.groups = 1;
    /* (Loop iterations a work-item may run; llvmpipe stops one at 65535, counting inner
     * loops too: a sample between levels costs its binary search's steps.) */
    cl_ulong steps = 1;
    while (mode == 2 && ((cl_ulong)1 << (steps - 1)) < bins) ++steps;
    const cl_ulong budget =
        p->max_loop_iterations ? p->max_loop_iterations / (steps + 1) : ~(cl_ulong)0;
    if (local) {
        const cl_ulong fixed = 2 * ((bins + wg - 1) / wg) + 8; /* clearing, writing out */
        const cl_ulong per_item = budget > 2 * fixed ? budget - fixed : fixed;
        h.per_group = sat_mul(per_item, wg);
        if (h.per_group > PASS_SAMPLES_MAX) h.per_group = PASS_SAMPLES_MAX;
        h.max_rows = ROWS_BYTES / 4 / bins;
        if (h.max_rows > budget / 2) h.max_rows = budget / 2; /* (the sum loops over rows) */
        if (h.fused) h.max_rows = FUSED_GROUPS_MAX; /* (no rows, no sum loop) */
        if (h.max_rows < 1) h.max_rows = 1;
        h.pass_n = sat_mul(h.max_rows, h.per_group);
        if (h.fused && h.pass_n > FUSED_SAMPLES_MAX) h.pass_n = FUSED_SAMPLES_MAX;
    } else {
        h.pass_n = sat_mul(sat_mul(budget / 2, wg), h.groups);
        if (h.pass_n > PASS_SAMPLES_MAX) h.pass_n = PASS_SAMPLES_MAX;
    }
    return h;
}

/* The work-groups a local pass of m samples takes, and the samples of each: no more than
 * the device's groups, and each with at least 16 samples a work-item and 4 a bin, so that
 * clearing and writing out a row stays small beside the counting. (H100, 256 bins: one
 * group for every 256 samples left 2^16 samples at 2.6x the copy's time.) */
static cl_ulong pass_rows(const hist_plan *h, cl_ulong wg, cl_uint bins, cl_ulong m,
                          cl_ulong *per_group)
{
    const cl_ulong least = 16 * wg > 4 * (cl_ulong)bins ? 16 * wg : 4 * (cl_ulong)bins;
    cl_ulong rows = (m + least - 1) / least;
    if (rows > h->groups) rows = h->groups;
    if (rows < 1) rows = 1;
    if ((m + rows - 1) / rows > h->per_group) rows = (m + h->per_group - 1) / h->per_group;
    *per_group = (m + rows - 1) / rows;
    return rows;
}

static clscan_status enqueue_sum(clscan__launch *l, clscan__program *prog, const hist_call *c,
                                 cl_mem partials, cl_ulong rows, cl_int accumulate)
{
    const size_t wg = prog->config.wg_size;
    cl_kernel k = prog->kernels[CLSCAN__K_HIST_SUM];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    CLSCAN__ARG(a, partials);
    CLSCAN__ARG(a, rows);
    CLSCAN__ARG(a, c->bins);
    CLSCAN__ARG(a, c->counts);
    CLSCAN__ARG(a, c->counts);
    CLSCAN__ARG(a, c->counts_off);
    CLSCAN__ARG(a, c->count64);
    CLSCAN__ARG(a, accumulate);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(hist_sum)");
    const size_t per_group = wg >= 32 ? 32 : wg; /* CLSCAN_HIST_SUM_BINS */
    return clscan__enqueue(l, k, (c->bins + per_group - 1) / per_group, wg, "enqueue hist_sum");
}

/* Enqueues every pass of call c with prog (its lock held) on a launch holding the scratch
 * the plan needs. */
static clscan_status enqueue_hist(clscan__launch *l, clscan__program *prog, const hist_call *c,
                                  const hist_plan *h)
{
    const cl_ulong wg = prog->config.wg_size;
    clscan_status s = CLSCAN_SUCCESS;
    if (c->n == 0) return enqueue_sum(l, prog, c, c->counts, 0, 0); /* (all zeros) */
    cl_mem rows_buf = l->scratch->buffer;
    if (h->fused) { /* (the arrival words, zero between calls: cleared once) */
        clscan__scratch *slot = l->scratch;
        clscan_status s0 = clscan__scratch_zeros(l->ctx, slot, (size_t)c->bins * 8);
        if (s0 == CLSCAN_SUCCESS && !slot->zeros_clean)
            s0 = clscan__enqueue_clear(l, prog, slot->zeros, (cl_ulong)c->bins * 2);
        slot->zeros_clean = 0; /* (until every pass is enqueued) */
        if (s0 != CLSCAN_SUCCESS) return s0;
    } else {
        l->scratch->lb_clean = 0; /* the rows overwrite status words */
    }
    for (cl_ulong done = 0, pass = 0; done < c->n && s == CLSCAN_SUCCESS; ++pass) {
        const cl_ulong m = c->n - done < h->pass_n ? c->n - done : h->pass_n;
        const cl_ulong off = c->samples_off + done;
        cl_ulong rows = 1, per_group = 0;
        if (h->local) {
            rows = pass_rows(h, wg, c->bins, m, &per_group);
            cl_kernel k = prog->kernels[h->fused ? CLSCAN__K_HIST_FUSED : CLSCAN__K_HIST_LOCAL];
            clscan__kernel_args a = clscan__args_begin(k, 0);
            CLSCAN__ARG(a, c->samples);
            CLSCAN__ARG(a, off);
            CLSCAN__ARG(a, m);
            CLSCAN__ARG(a, per_group);
            set_bin_args(&a, c);
            if (h->fused) { /* (the arrival words, then where the counts go) */
                const cl_int accumulate = pass > 0;
                CLSCAN__ARG(a, l->scratch->zeros);
                CLSCAN__ARG(a, c->counts);
                CLSCAN__ARG(a, c->counts);
                CLSCAN__ARG(a, c->counts_off);
                CLSCAN__ARG(a, c->count64);
                CLSCAN__ARG(a, accumulate);
            } else {
                CLSCAN__ARG(a, rows_buf);
            }
            if (a.err != CL_SUCCESS)
                return clscan__fail_cl(l->ctx, a.err, h->fused ? "clSetKernelArg(hist_fused)"
                                                               : "clSetKernelArg(hist_local)");
            s = clscan__enqueue(l, k, (size_t)rows, (size_t)wg,
                                h->fused ? "enqueue hist_fused" : "enqueue hist_local");
        } else {
            s = clscan__enqueue_clear(l, prog, rows_buf, c->bins);
            cl_kernel k = prog->kernels[CLSCAN__K_HIST_GLOBAL];
            clscan__kernel_args a = clscan__args_begin(k, 0);
            CLSCAN__ARG(a, c->samples);
            CLSCAN__ARG(a, off);
            CLSCAN__ARG(a, m);
            set_bin_args(&a, c);
            CLSCAN__ARG(a, rows_buf);
            if (a.err != CL_SUCCESS)
                return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(hist_global)");
            if (s == CLSCAN_SUCCESS)
                s = clscan__enqueue(l, k, (size_t)h->groups, (size_t)wg, "enqueue hist_global");
        }
        if (s == CLSCAN_SUCCESS && !h->fused)
            s = enqueue_sum(l, prog, c, rows_buf, rows, pass > 0);
        done += m;
    }
    if (h->fused && s == CLSCAN_SUCCESS) l->scratch->zeros_clean = 1;
    return s;
}

/* Checks what both calls share, fills c's buffers and sizes, and settles count64. */
static clscan_status check_common(clscan_context *ctx, cl_command_queue queue,
                                  const hist_call *c, size_t num_bins, clscan_type count_type,
                                  cl_uint nwait, const cl_event *wait, bool *in_order)
{
    clscan_status s = clscan__check_call(ctx, queue, c->type, CLSCAN_OP_ADD, nwait, wait, in_order);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, count_type != CLSCAN_UINT32 && count_type != CLSCAN_UINT64,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "count_type %d: the counts are CLSCAN_UINT32 or CLSCAN_UINT64",
                     (int)count_type);
    CLSCAN__RETURN_IF(ctx, num_bins == 0 || num_bins > MAX_BINS, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "num_bins is %zu: from 1 to 2^31 bins", num_bins);
    const size_t e = clscan_type_size(c->type), ce = clscan_type_size(count_type);
    if ((s = clscan__check_range(ctx, c->samples, "samples", c->samples_off, c->n, e)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, c->counts, "counts", c->counts_off, num_bins, ce)) !=
            CLSCAN_SUCCESS)
        return s;
    return clscan__check_disjoint(ctx, c->samples, "samples", c->samples_off * e, c->n * e,
                                  c->counts, "counts", c->counts_off * ce, num_bins * ce);
}

/* Enqueues checked call c. */
static clscan_status run_hist(clscan_context *ctx, cl_command_queue queue, bool in_order,
                              const hist_call *c, cl_uint nwait, const cl_event *wait,
                              cl_event *event)
{
    const clscan__profile *p = &ctx->target.profile;
    const cl_uint local = local_bins(p, c->bins);
    clscan__program *prog;
    clscan_status s = hist_program(ctx, c->type, c->mode, local, local && p->int64_atomics, &prog);
    if (s != CLSCAN_SUCCESS) return s;
    const cl_ulong wg = prog->config.wg_size;
    /* (fused as the program was built: clscan_hist_fused is there) */
    const hist_plan h = plan_passes(p, wg, c->bins, local != 0, (int)prog->config.hist_fused,
                                    c->mode);
    cl_ulong rows = 1, per_group;
    if (local) rows = pass_rows(&h, wg, c->bins, c->n < h.pass_n ? c->n : h.pass_n, &per_group);
    /* (The fused kernel takes a slot for its zeros buffer alone.) */
    const size_t scratch = !c->n ? 0 : h.fused ? 4 : (size_t)(rows * c->bins * 4);
    clscan__launch l;
    if ((s = clscan__launch_begin(&l, ctx, queue, in_order, nwait, wait, scratch, event)) !=
        CLSCAN_SUCCESS) {
        clscan__program_put(ctx, prog);
        return s;
    }
    pthread_mutex_lock(&prog->lock);
    s = enqueue_hist(&l, prog, c, &h);
    pthread_mutex_unlock(&prog->lock);
    clscan__program_put(ctx, prog);
    return clscan__launch_end(&l, s, event);
}

/* Reads a bound of `type` at p as a long double (exactly for every integer type, which
 * is all the comparisons below need) and whether it is finite. */
static long double bound_value(const void *p, clscan_type type)
{
    switch (type) {
    case CLSCAN_INT32: { cl_int v; memcpy(&v, p, 4); return v; }
    case CLSCAN_UINT32: { cl_uint v; memcpy(&v, p, 4); return v; }
    case CLSCAN_INT64: { cl_long v; memcpy(&v, p, 8); return v; }
    case CLSCAN_UINT64: { cl_ulong v; memcpy(&v, p, 8); return v; }
    case CLSCAN_FLOAT: { cl_float v; memcpy(&v, p, 4); return v; }
    default: { cl_double v; memcpy(&v, p, 8); return v; }
    }
}

clscan_status clscan_histogram_even(clscan_context *ctx, cl_command_queue queue, cl_mem samples,
                                    size_t samples_offset, size_t n, clscan_type sample_type,
                                    size_t num_bins, const void *lower, const void *upper,
                                    cl_mem counts, size_t counts_offset, clscan_type count_type,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    hist_call c = {samples, samples_offset, n, sample_type, (cl_uint)num_bins, 1,
                   {0}, {0}, {0}, 0, 0, 0, 0, samples, 0, counts, counts_offset,
                   count_type == CLSCAN_UINT64};
    bool in_order = true;
    clscan_status s = check_common(ctx, queue, &c, num_bins, count_type,
                                   num_events_in_wait_list, event_wait_list, &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, !lower || !upper, CLSCAN_ERROR_INVALID_ARGUMENT, "%s is NULL",
                     !lower ? "lower" : "upper");
    const size_t e = clscan_type_size(sample_type);
    memcpy(c.lower, lower, e);
    memcpy(c.upper, upper, e);
    const long double lo = bound_value(lower, sample_type), hi = bound_value(upper, sample_type);
    CLSCAN__RETURN_IF(ctx, !isfinite(lo) || !isfinite(hi), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "the bounds must be finite (lower %Lg, upper %Lg)", lo, hi);
    CLSCAN__RETURN_IF(ctx, !(lo < hi), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "lower (%Lg) must be below upper (%Lg)", lo, hi);
    if (sample_type == CLSCAN_FLOAT) {
        cl_float l, u;
        memcpy(&l, lower, 4);
        memcpy(&u, upper, 4);
        volatile cl_float width = u - l; /* (rounded to float, as the device rounds) */
        CLSCAN__RETURN_IF(ctx, !isfinite(width), CLSCAN_ERROR_INVALID_ARGUMENT,
                         "upper - lower overflows float");
        const cl_float scale = (cl_float)num_bins / width;
        memcpy(c.scale, &scale, 4);
    } else if (sample_type == CLSCAN_DOUBLE) {
        cl_double l, u;
        memcpy(&l, lower, 8);
        memcpy(&u, upper, 8);
        volatile cl_double width = u - l;
        CLSCAN__RETURN_IF(ctx, !isfinite(width), CLSCAN_ERROR_INVALID_ARGUMENT,
                         "upper - lower overflows double");
        const cl_double scale = (cl_double)num_bins / width;
        memcpy(c.scale, &scale, 8);
    } else if (e == 4) {
        cl_uint l, u;
        memcpy(&l, lower, 4);
        memcpy(&u, upper, 4);
        c.range = (cl_uint)(u - l);
    } else {
        cl_ulong l, u;
        memcpy(&l, lower, 8);
        memcpy(&u, upper, 8);
        c.range = u - l;
    }
    if (!clscan__type_is_float(sample_type)) {
        /* (See clscan_hist_div in cl/clscan_histogram.cl.) */
        const unsigned __int128 two64 = (unsigned __int128)1 << 64;
        const unsigned __int128 m = c.range <= ((cl_ulong)1 << 32)
                                        ? two64 / c.range
                                        : (unsigned __int128)num_bins * two64 / c.range;
        c.magic = m >= two64 ? ~(cl_ulong)0 : (cl_ulong)m;
        if (c.range < ((cl_ulong)1 << 32) && c.range % num_bins == 0) {
            c.width = (cl_uint)(c.range / num_bins);
            const cl_ulong wm = ((cl_ulong)1 << 32) / c.width;
            c.wmagic = wm > 0xffffffffu ? 0xffffffffu : (cl_uint)wm;
        }
    }
    return run_hist(ctx, queue, in_order, &c, num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_histogram_range(clscan_context *ctx, cl_command_queue queue,
                                     cl_mem samples, size_t samples_offset, size_t n,
                                     clscan_type sample_type, size_t num_bins, cl_mem levels,
                                     size_t levels_offset, cl_mem counts, size_t counts_offset,
                                     clscan_type count_type, cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event)
{
    hist_call c = {samples, samples_offset, n, sample_type, (cl_uint)num_bins, 2,
                   {0}, {0}, {0}, 0, 0, 0, 0, levels, levels_offset, counts, counts_offset,
                   count_type == CLSCAN_UINT64};
    bool in_order = true;
    clscan_status s = check_common(ctx, queue, &c, num_bins, count_type,
                                   num_events_in_wait_list, event_wait_list, &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    const size_t e = clscan_type_size(sample_type), ce = clscan_type_size(count_type);
    if ((s = clscan__check_range(ctx, levels, "levels", levels_offset, num_bins + 1, e)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__check_disjoint(ctx, levels, "levels", levels_offset * e,
                                    (num_bins + 1) * e, counts, "counts", counts_offset * ce,
                                    num_bins * ce)) != CLSCAN_SUCCESS)
        return s;
    return run_hist(ctx, queue, in_order, &c, num_events_in_wait_list, event_wait_list, event);
}
