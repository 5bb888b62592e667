/* verify_histogram.c - the host's histograms (even bins, bins between levels) computed
 * as include/clscan.h defines them, the inputs of a test case, and a runner that checks
 * one device call with guard bands. */
/* SPDX-License-Identifier: MIT */
#include "verify_histogram.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

static int is_float(clscan_type t) { return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE; }

/* An integer element as a 128-bit value, and back. */
static i128 get_int(const void *p, size_t i, clscan_type t)
{
    const uint64_t b = clscan_verify_load_bits(p, i, t);
    if (t == CLSCAN_INT32 || t == CLSCAN_INT64) return (i128)(int64_t)b;
    return t == CLSCAN_UINT32 ? (i128)(b & 0xffffffffu) : (i128)b;
}
static void put_int(void *p, size_t i, clscan_type t, i128 v)
{
    clscan_verify_store_bits(p, i, t, (uint64_t)v);
}
static i128 type_min(clscan_type t)
{
    return t == CLSCAN_INT32 ? (i128)INT32_MIN : t == CLSCAN_INT64 ? (i128)INT64_MIN : 0;
}
static i128 type_max(clscan_type t)
{
    return t == CLSCAN_INT32    ? (i128)INT32_MAX
           : t == CLSCAN_UINT32 ? (i128)UINT32_MAX
           : t == CLSCAN_INT64  ? (i128)INT64_MAX
                                : (i128)UINT64_MAX;
}

/* A uniform 128-bit integer in [0, span] (span < 2^65). */
static i128 below(clscan_verify_rng *r, i128 span)
{
    const u128 x = (u128)clscan_verify_rng_next(r) << 64 | clscan_verify_rng_next(r);
    return (i128)(x % ((u128)span + 1));
}
static double unit(clscan_verify_rng *r)
{
    return (double)(clscan_verify_rng_next(r) >> 11) * 0x1p-53;
}

/* Stores v (a double) as element i of a float type, rounded to it. */
static void put_float(void *p, size_t i, clscan_type t, double v)
{
    if (t == CLSCAN_FLOAT) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
}
static double get_float(const void *p, size_t i, clscan_type t)
{
    return t == CLSCAN_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

/* qsort's order of elements of qsort_type (NaN-free). */
static clscan_type qsort_type;
static int compare_elements(const void *a, const void *b)
{
    if (is_float(qsort_type)) {
        const double x = get_float(a, 0, qsort_type), y = get_float(b, 0, qsort_type);
        return (x > y) - (x < y);
    }
    const i128 x = get_int(a, 0, qsort_type), y = get_int(b, 0, qsort_type);
    return (x > y) - (x < y);
}

void clscan_verify_hist_fill(const clscan_verify_hist_case *c, void *samples, void *lower,
                             void *upper, void *levels)
{
    clscan_verify_rng r = {c->seed};
    const clscan_type t = c->type;
    const size_t bins = c->num_bins;
    if (is_float(t)) {
        static const double widths[] = {1.0, 3.75, 1000.0, 0.001};
        const double lo_d = (double)((int)(clscan_verify_rng_next(&r) % 2001) - 1000) / 8;
        const double w = widths[clscan_verify_rng_next(&r) % 4] * (1 + bins / 64);
        double b[2];
        put_float(b, 0, t, lo_d);
        put_float(b, 1, t, lo_d + w);
        const double lo = get_float(b, 0, t), hi = get_float(b, 1, t), wd = hi - lo;
        memcpy(lower, b, clscan_type_size(t));
        memcpy(upper, (unsigned char *)b + clscan_type_size(t), clscan_type_size(t));
        for (size_t i = 0; i < c->n; i++) {
            const uint64_t k = clscan_verify_rng_next(&r) % 20;
            double v = lo - wd / 4 + unit(&r) * wd * 1.5;
            if (k == 0) v = lo;
            else if (k == 1) v = hi;
            else if (k == 2) v = nextafter(hi, -INFINITY);
            else if (k == 3) v = lo + wd * (double)(clscan_verify_rng_next(&r) % (bins + 1)) / bins;
            else if (k == 4) v = (clscan_verify_rng_next(&r) & 3) == 0 ? NAN
                                 : (clscan_verify_rng_next(&r) & 1) ? INFINITY : -INFINITY;
            put_float(samples, i, t, v);
        }
        for (size_t j = 0; levels && j <= bins; j++)
            put_float(levels, j, t, lo + unit(&r) * wd);
    } else {
        const i128 mn = type_min(t), mx = type_max(t);
        /* Spans of one value a bin, of a few values and a remainder, of a few values
         * each, of the widest bins below 2^32 values in all, and a third or all of the
         * type (the device takes 32-bit division where bins have one width and the span
         * is below 2^32). */
        const uint64_t kind = clscan_verify_rng_next(&r) % 6;
        i128 span = kind == 0   ? (i128)bins
                    : kind == 1 ? (i128)bins * (1 + (i128)(clscan_verify_rng_next(&r) % 100)) +
                                      (i128)(clscan_verify_rng_next(&r) % bins)
                    : kind == 2 ? (i128)bins * (1 + (i128)(clscan_verify_rng_next(&r) % 100))
                    : kind == 3 ? (i128)bins * (i128)(UINT32_MAX / bins)
                    : kind == 4 ? (mx - mn) / 3
                                : mx - mn;
        if (span > mx - mn) span = mx - mn;
        if (span < 1) span = 1;
        const i128 lo = mn + below(&r, mx - mn - span), hi = lo + span;
        put_int(lower, 0, t, lo);
        put_int(upper, 0, t, hi);
        for (size_t i = 0; i < c->n; i++) {
            const uint64_t k = clscan_verify_rng_next(&r) % 20;
            i128 v = lo - span / 4 + below(&r, span + span / 2);
            if (k == 0) v = lo;
            else if (k == 1) v = hi;
            else if (k == 2) v = hi - 1;
            else if (k == 3) v = lo - 1;
            else if (k == 4) v = clscan_verify_rng_next(&r) & 1 ? mn : mx;
            else if (k == 5) /* the first value of a random bin */
                v = lo + (span * (i128)(clscan_verify_rng_next(&r) % bins) + (i128)bins - 1) /
                             (i128)bins;
            put_int(samples, i, t, v < mn ? mn : v > mx ? mx : v);
        }
        for (size_t j = 0; levels && j <= bins; j++) put_int(levels, j, t, lo + below(&r, span));
    }
    if (!levels) return;
    /* Levels ascending, or shuffled. */
    const size_t e = clscan_type_size(t);
    unsigned char tmp[8];
    qsort_type = t;
    qsort(levels, bins + 1, e, compare_elements);
    for (size_t j = bins; c->shuffled && j > 0; j--) {
        const size_t m = (size_t)(clscan_verify_rng_next(&r) % (j + 1));
        unsigned char *a = (unsigned char *)levels + j * e, *b = (unsigned char *)levels + m * e;
        memcpy(tmp, a, e);
        memcpy(a, b, e);
        memcpy(b, tmp, e);
    }
}

void clscan_verify_histogram_even(const void *samples, size_t n, clscan_type type,
                                  size_t num_bins, const void *lower, const void *upper,
                                  uint64_t *counts)
{
    memset(counts, 0, num_bins * sizeof *counts);
    /* Floats: every step rounded to T (volatile keeps x87-style excess precision and
     * contraction out), as the device computes it. */
#define CLSCAN_EVEN_FLOAT_BINS(T)                                                 \
    do {                                                                          \
        const T lo = *(const T *)lower, hi = *(const T *)upper;                  \
        volatile T width = hi - lo;                                               \
        volatile T scale = (T)num_bins / width;                                   \
        for (size_t i = 0; i < n; i++) {                                          \
            const T x = ((const T *)samples)[i];                                  \
            if (!(x >= lo && x < hi)) continue;                                   \
            volatile T d = x - lo;                                                \
            volatile T v = d * scale;                                             \
            const size_t b = v < (T)num_bins ? (size_t)v : num_bins - 1;          \
            counts[b < num_bins ? b : num_bins - 1]++;                            \
        }                                                                         \
    } while (0)
    if (type == CLSCAN_FLOAT) {
        CLSCAN_EVEN_FLOAT_BINS(float);
    } else if (type == CLSCAN_DOUBLE) {
        CLSCAN_EVEN_FLOAT_BINS(double);
    } else {
        const i128 lo = get_int(lower, 0, type), hi = get_int(upper, 0, type);
        for (size_t i = 0; i < n; i++) {
            const i128 x = get_int(samples, i, type);
            if (!(x >= lo && x < hi)) continue;
            counts[(size_t)((u128)(x - lo) * num_bins / (u128)(hi - lo))]++;
        }
    }
#undef CLSCAN_EVEN_FLOAT_BINS
}

void clscan_verify_histogram_range(const void *samples, size_t n, clscan_type type,
                                   size_t num_bins, const void *levels, uint64_t *counts)
{
    memset(counts, 0, num_bins * sizeof *counts);
    for (size_t i = 0; i < n; i++) {
        /* The last level at or below x, if x lies in [levels[0], levels[num_bins]). */
        size_t lo = 0, hi = num_bins;
        if (is_float(type)) {
            const double x = get_float(samples, i, type);
            if (!(x >= get_float(levels, 0, type) && x < get_float(levels, num_bins, type)))
                continue;
            while (hi - lo > 1) {
                const size_t mid = lo + (hi - lo) / 2;
                if (get_float(levels, mid, type) <= x) lo = mid;
                else hi = mid;
            }
        } else {
            const i128 x = get_int(samples, i, type);
            if (!(x >= get_int(levels, 0, type) && x < get_int(levels, num_bins, type))) continue;
            while (hi - lo > 1) {
                const size_t mid = lo + (hi - lo) / 2;
                if (get_int(levels, mid, type) <= x) lo = mid;
                else hi = mid;
            }
        }
        counts[lo]++;
    }
}

enum { GUARD = 37, POISON = 0x5b };

static cl_mem buffer_of(cl_context cl_ctx, size_t bytes, const void *init)
{
    cl_int err;
    return clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)(uintptr_t)init, &err);
}

/* 1 if buffer m still holds the `bytes` of want. */
static int unchanged(cl_command_queue q, cl_mem m, const void *want, size_t bytes, void *tmp)
{
    return clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, tmp, 0, NULL, NULL) == CL_SUCCESS &&
           memcmp(tmp, want, bytes) == 0;
}

clscan_verify_result clscan_verify_run_histogram(clscan_context *ctx, cl_context cl_ctx,
                                                 cl_command_queue queue,
                                                 const clscan_verify_hist_case *c, char *msg,
                                                 size_t msg_size)
{
    const size_t e = clscan_type_size(c->type), ce = clscan_type_size(c->count_type);
    const size_t bins = c->num_bins, soff = c->samples_offset, coff = c->counts_offset;
    const size_t loff = 2, s_bytes = (soff + c->n + GUARD) * e, c_bytes = (coff + bins + GUARD) * ce;
    const size_t l_bytes = (loff + bins + 1 + GUARD) * e;
    const size_t big = s_bytes > c_bytes ? (s_bytes > l_bytes ? s_bytes : l_bytes)
                                         : (c_bytes > l_bytes ? c_bytes : l_bytes);
    clscan_verify_result res = CLSCAN_VERIFY_FAIL;
    unsigned char *s_img = malloc(s_bytes), *c_img = malloc(c_bytes), *l_img = malloc(l_bytes);
    unsigned char *got = malloc(big);
    uint64_t *want = malloc(bins * sizeof *want);
    uint64_t lower = 0, upper = 0;
    cl_mem s = NULL, cb = NULL, lb = NULL;
    cl_event ev = NULL;
    if (!s_img || !c_img || !l_img || !got || !want) {
        snprintf(msg, msg_size, "host out of memory");
        goto done;
    }
    memset(s_img, POISON, s_bytes);
    memset(c_img, POISON, c_bytes);
    memset(l_img, POISON, l_bytes);
    clscan_verify_hist_fill(c, s_img + soff * e, &lower, &upper, c->levels ? l_img + loff * e : NULL);
    s = buffer_of(cl_ctx, s_bytes, s_img);
    cb = buffer_of(cl_ctx, c_bytes, c_img);
    lb = buffer_of(cl_ctx, l_bytes, l_img);
    if (!s || !cb || !lb) {
        snprintf(msg, msg_size, "buffers could not be created");
        goto done;
    }
    clscan_status st =
        c->levels ? clscan_histogram_range(ctx, queue, s, soff, c->n, c->type, bins, lb, loff, cb,
                                           coff, c->count_type, 0, NULL, &ev)
                  : clscan_histogram_even(ctx, queue, s, soff, c->n, c->type, bins, &lower,
                                          &upper, cb, coff, c->count_type, 0, NULL, &ev);
    if (st == CLSCAN_ERROR_UNSUPPORTED && c->type == CLSCAN_DOUBLE) {
        cl_device_id dev;
        clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
        if (!clscan_verify_device_has_fp64(dev)) {
            snprintf(msg, msg_size, "device has no fp64: CLSCAN_ERROR_UNSUPPORTED");
            res = CLSCAN_VERIFY_SKIP;
            goto done;
        }
    }
    if (st != CLSCAN_SUCCESS) {
        snprintf(msg, msg_size, "%s: %s", clscan_status_string(st), clscan_context_last_error(ctx));
        goto done;
    }
    const char *what = "";
    cl_int err = clscan_verify_wait(ev, &what);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, cb, CL_TRUE, 0, c_bytes, got, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(msg, msg_size, "%s: %s", what, clscan_status_string(err));
        goto done;
    }
    for (size_t b = 0; b < c_bytes; b++)
        if ((b < coff * ce || b >= (coff + bins) * ce) && got[b] != POISON) {
            snprintf(msg, msg_size, "counts byte %zu outside the %zu counts was written", b, bins);
            goto done;
        }
    uint64_t total = 0;
    if (c->levels) clscan_verify_histogram_range(s_img + soff * e, c->n, c->type, bins,
                                                 l_img + loff * e, want);
    else clscan_verify_histogram_even(s_img + soff * e, c->n, c->type, bins, &lower, &upper, want);
    for (size_t b = 0; b < bins; b++) {
        uint64_t g;
        if (ce == 4) {
            uint32_t g32;
            memcpy(&g32, got + (coff + b) * 4, 4);
            g = g32;
        } else {
            memcpy(&g, got + (coff + b) * 8, 8);
        }
        total += g;
        const uint64_t w = ce == 4 ? (uint32_t)want[b] : want[b];
        if (!c->shuffled && g != w) {
            snprintf(msg, msg_size, "bin %zu: got %llu, expected %llu", b, (unsigned long long)g,
                     (unsigned long long)w);
            goto done;
        }
    }
    if (total > c->n) {
        snprintf(msg, msg_size, "the counts add up to %llu, more than the %zu samples",
                 (unsigned long long)total, c->n);
        goto done;
    }
    if (!unchanged(queue, s, s_img, s_bytes, got) || !unchanged(queue, lb, l_img, l_bytes, got)) {
        snprintf(msg, msg_size, "the samples or levels were changed");
        goto done;
    }
    snprintf(msg, msg_size, "%s", c->shuffled ? "unsorted levels: counts within bounds"
                                              : "matches the host reference");
    res = CLSCAN_VERIFY_PASS;
done:
    if (ev) clReleaseEvent(ev);
    if (s) clReleaseMemObject(s);
    if (cb) clReleaseMemObject(cb);
    if (lb) clReleaseMemObject(lb);
    free(s_img);
    free(c_img);
    free(l_img);
    free(got);
    free(want);
    return res;
}
