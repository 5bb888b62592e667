/* test_scan.c - Check suite for the public scan API on real devices: every type x op x mode
 * against the host reference, exact error statuses, events, out-of-order queues, threads. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "verify.h"

#include <check.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ devices ------- */

/* The first device of each platform ($CLSCAN_TEST_PLATFORM: only platforms whose name
 * contains it, case-insensitively). Set up in each forked test: OpenCL state must not
 * cross a fork. */
typedef struct clscan_test_dev {
    cl_device_id dev;
    cl_context cl_ctx;
    cl_command_queue queue; /* in-order */
    clscan_context *ctx;
    char name[256];
} clscan_test_dev;

#define CLSCAN_TEST_MAX_DEVS 16
static clscan_test_dev clscan_devs[CLSCAN_TEST_MAX_DEVS];
static int clscan_ndevs;

static int clscan_contains_nocase(const char *hay, const char *needle)
{
    for (; *hay; hay++) {
        size_t i = 0;
        while (needle[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (!needle[i])
            return 1;
    }
    return !*needle;
}

static void clscan_setup(void)
{
    const char *filter = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[CLSCAN_TEST_MAX_DEVS];
    cl_uint np = 0;
    char pname[256];
    clscan_ndevs = 0;
    if (clGetPlatformIDs(CLSCAN_TEST_MAX_DEVS, plats, &np) != CL_SUCCESS)
        np = 0;
    if (np > CLSCAN_TEST_MAX_DEVS)
        np = CLSCAN_TEST_MAX_DEVS;
    for (cl_uint p = 0; p < np; p++) {
        clscan_test_dev *d = &clscan_devs[clscan_ndevs];
        cl_int err;
        if (clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL) != CL_SUCCESS)
            pname[0] = '\0';
        if (filter && !clscan_contains_nocase(pname, filter))
            continue;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &d->dev, NULL) != CL_SUCCESS)
            continue;
        char dname[200] = "";
        clGetDeviceInfo(d->dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
        snprintf(d->name, sizeof d->name, "%s / %s", pname, dname);
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plats[p], 0};
        d->cl_ctx = clCreateContext(props, 1, &d->dev, NULL, NULL, &err);
        ck_assert_msg(d->cl_ctx, "%s: clCreateContext: %s", d->name, clscan_status_string(err));
        d->queue = clCreateCommandQueue(d->cl_ctx, d->dev, 0, &err);
        ck_assert_msg(d->queue, "%s: clCreateCommandQueue: %s", d->name,
                      clscan_status_string(err));
        clscan_status st = clscan_context_create(d->cl_ctx, d->dev, &d->ctx);
        ck_assert_msg(st == CLSCAN_SUCCESS, "%s: clscan_context_create: %s: %s", d->name,
                      clscan_status_string(st), clscan_context_last_error(NULL));
        clscan_ndevs++;
    }
    ck_assert_msg(clscan_ndevs > 0, "no OpenCL device found%s%s%s: these tests need one",
                  filter ? " on a platform matching CLSCAN_TEST_PLATFORM='" : "",
                  filter ? filter : "", filter ? "'" : "");
}

static void clscan_teardown(void)
{
    for (int i = 0; i < clscan_ndevs; i++) {
        clscan_context_release(clscan_devs[i].ctx);
        clReleaseCommandQueue(clscan_devs[i].queue);
        clReleaseContext(clscan_devs[i].cl_ctx);
    }
    clscan_ndevs = 0;
}

/* ------------------------------------------------------------ helpers ------- */

static cl_mem clscan_buffer(clscan_test_dev *d, size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    ck_assert_msg(m, "clCreateBuffer(%zu): %s", bytes, clscan_status_string(err));
    if (init)
        ck_assert_int_eq(clEnqueueWriteBuffer(d->queue, m, CL_TRUE, 0, bytes, init, 0, NULL,
                                              NULL), CL_SUCCESS);
    return m;
}

static void clscan_read(cl_command_queue q, cl_mem m, size_t bytes, void *out)
{
    ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL),
                     CL_SUCCESS);
}

static void clscan_wait_complete(cl_event ev, const char *what)
{
    cl_int exec = CL_QUEUED;
    ck_assert_msg(clWaitForEvents(1, &ev) == CL_SUCCESS, "%s: clWaitForEvents", what);
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec,
                                    NULL), CL_SUCCESS);
    ck_assert_msg(exec == CL_COMPLETE, "%s: event ended with %d", what, (int)exec);
}

typedef clscan_status (*clscan_scan_fn)(clscan_context *, cl_command_queue, cl_mem, size_t,
                                        cl_mem, size_t, size_t, clscan_type, clscan_op, cl_uint,
                                        const cl_event *, cl_event *);
static clscan_scan_fn const clscan_scans[2] = {clscan_exclusive_scan, clscan_inclusive_scan};
static const char *const clscan_mode_names[2] = {"exclusive", "inclusive"};

/* Scans host data on d (in-order queue) and compares with the host reference. */
static void clscan_check_host_data(clscan_test_dev *d, clscan_type type, clscan_op op,
                                   int inclusive, const void *data, size_t n)
{
    size_t bytes = n * clscan_type_size(type);
    char msg[512];
    void *got = malloc(bytes);
    cl_mem src = clscan_buffer(d, bytes, data), dst = clscan_buffer(d, bytes, NULL);
    cl_event ev = NULL;
    clscan_status st = clscan_scans[inclusive](d->ctx, d->queue, src, 0, dst, 0, n, type, op,
                                               0, NULL, &ev);
    ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s %s %s n=%zu: %s: %s", d->name,
                  clscan_type_name(type), clscan_op_name(op), clscan_mode_names[inclusive], n,
                  clscan_status_string(st), clscan_context_last_error(d->ctx));
    clscan_wait_complete(ev, "scan");
    clReleaseEvent(ev);
    clscan_read(d->queue, dst, bytes, got);
    clscan_verify_ref *ref = clscan_verify_reference(type, op, inclusive, data, n);
    ck_assert_ptr_nonnull(ref);
    int ok = clscan_verify_compare(ref, got, msg, sizeof msg);
    ck_assert_msg(ok, "%s: %s %s %s n=%zu: %s", d->name, clscan_type_name(type),
                  clscan_op_name(op), clscan_mode_names[inclusive], n, msg);
    clscan_verify_ref_free(ref);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(got);
}

/* ------------------------------------------------------------ the matrix ---- */

static const clscan_verify_size clscan_test_sizes[] = {
    {0, 1}, {1, 1}, {2, 0}, {31, 0}, {32, 0}, {33, 1}, {255, 0}, {256, 0}, {257, 1},
    {1023, 0}, {1025, 1}, {4097, 1}, {70001, 1}};

/* Loop test over the types: every op, both modes, all sizes and layouts. */
START_TEST(test_matrix)
{
    clscan_type type = (clscan_type)_i;
    uint64_t seed = 20261122;
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        unsigned pass = 0, fail = 0, skip = 0;
        char msg[1024], first[1400] = "";
        for (int op = 0; op < CLSCAN_OP_COUNT; op++)
            for (int incl = 0; incl < 2; incl++)
                for (size_t s = 0; s < sizeof clscan_test_sizes / sizeof *clscan_test_sizes; s++)
                    for (int l = 0; l < (clscan_test_sizes[s].all_layouts ? CLSCAN_VERIFY_LAYOUT_COUNT : 1); l++) {
                        const clscan_verify_layout *lay = &clscan_verify_layouts[l];
                        clscan_verify_case c = {type, (clscan_op)op, incl,
                                                clscan_test_sizes[s].n, lay->src_offset,
                                                lay->dst_offset, lay->in_place,
                                                clscan_verify_mix(seed, clscan_test_sizes[s].n * 64 +
                                                                  (uint64_t)(op * 8 + incl * 4 + l))};
                        clscan_verify_result r = clscan_verify_run_case(d->ctx, d->cl_ctx,
                                                                        d->queue, &c, msg, sizeof msg);
                        if (r == CLSCAN_VERIFY_PASS) {
                            pass++;
                        } else if (r == CLSCAN_VERIFY_SKIP) {
                            skip++;
                        } else {
                            if (!fail++)
                                snprintf(first, sizeof first,
                                         "%s %s %s n=%zu src_offset=%zu dst_offset=%zu in_place=%d: %s",
                                         clscan_type_name(type), clscan_op_name(c.op),
                                         clscan_mode_names[incl], c.n, c.src_offset,
                                         c.dst_offset, c.in_place, msg);
                            fprintf(stderr, "FAIL %s: %s %s %s n=%zu layout %d: %s\n", d->name,
                                    clscan_type_name(type), clscan_op_name(c.op),
                                    clscan_mode_names[incl], c.n, l, msg);
                        }
                    }
        fprintf(stderr, "%s: %s: %u passed, %u failed, %u skipped%s\n", d->name,
                clscan_type_name(type), pass, fail, skip,
                skip ? " (skipped: device has no fp64)" : "");
        ck_assert_msg(fail == 0, "%s: %u failed; first: %s", d->name, fail, first);
        ck_assert_msg(pass > 0 || skip > 0, "%s: no case ran", d->name);
    }
}
END_TEST

/* The single-pass scan's look-back, where the profile chose it: scans of some 40 tiles
 * (int32 and int64, whose values take two status words; in place, which must take the
 * multi-level scan and count no fallback, and out of place) with the fallback counters
 * read back. In the silent test mode (CLSCAN_LOOKBACK_TEST=silent:
 * every fourth tile publishes nothing) successors must have reduced those tiles
 * themselves, on any scheduler; otherwise the counts are reported. Then the status
 * epochs are made to run out, so the status words are cleared between calls. */
START_TEST(test_lookback)
{
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        const clscan__profile *p = &d->ctx->target.profile;
        if (p->scan_algo != CLSCAN__SCAN_SINGLE_PASS) {
            fprintf(stderr, "%s: look-back: the profile chose the multi-level scan\n", d->name);
            continue;
        }
        cl_int err;
        cl_mem stats = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, 16, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        char msg[1024];
        for (int rep = 0; rep < 6; rep++) {
            if (rep == 3) { /* the epochs of every scratch slot run out in the next calls */
                for (clscan__scratch *sl = d->ctx->scratch; sl; sl = sl->next)
                    if (sl->lb_clean) sl->lb_epoch = (1u << (sl->lb_word_bits / 2 - 2)) - 2;
            }
            const clscan_type type = rep % 2 ? CLSCAN_INT64 : CLSCAN_INT32;
            const size_t tile = p->sp_wg_size * p->sp_items / clscan_type_size(type) * 4;
            const int in_place = rep == 2 || rep == 5;
            clscan_verify_case c = {type, CLSCAN_OP_ADD, rep % 3 == 0, 40 * tile + 7,
                                    in_place ? 5 : 0, in_place ? 5 : 3, in_place,
                                    clscan_verify_mix(777, (uint64_t)rep)};
            const cl_uint zero[4] = {0};
            cl_uint count[4];
            ck_assert_int_eq(clEnqueueWriteBuffer(d->queue, stats, CL_TRUE, 0, 16, zero, 0,
                                                  NULL, NULL), CL_SUCCESS);
            clscan__lookback_stats(stats);
            clscan_verify_result r =
                clscan_verify_run_case(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg);
            clscan__lookback_stats(NULL);
            ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: look-back %s n=%zu%s: %s", d->name,
                          clscan_type_name(type), c.n, in_place ? " in place" : "", msg);
            ck_assert_int_eq(clEnqueueReadBuffer(d->queue, stats, CL_TRUE, 0, 16, count, 0,
                                                 NULL, NULL), CL_SUCCESS);
            fprintf(stderr, "%s: look-back %s n=%zu%s: %u fallback reductions, %u published "
                    "(spins %u, test mode %d)\n", d->name, clscan_type_name(type), c.n,
                    in_place ? " in place" : "", count[0], count[1], p->lb_spins, p->lb_test);
            if (in_place)
                ck_assert_msg(count[0] == 0, "%s: an in-place call ran the look-back (%u "
                              "fallbacks)", d->name, count[0]);
            else if (p->lb_test == CLSCAN__LB_TEST_SILENT)
                ck_assert_msg(count[0] > 0 && count[1] > 0,
                              "%s: silent tiles, yet no fallback ran (%u, %u)", d->name,
                              count[0], count[1]);
        }
        clReleaseMemObject(stats);
    }
}
END_TEST

/* Fails the test where the n elements of elem bytes at got differ bitwise from first's,
 * naming the first that does and its tile; what: the call, for the message. */
static void assert_same_bits(const char *got, const char *first, size_t n, size_t elem,
                             size_t tile, const char *what)
{
    size_t diff = 0, at = n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * elem, first + i * elem, elem) != 0) {
            if (at == n) at = i;
            diff++;
        }
    ck_assert_msg(diff == 0, "%s: %zu elements differ from the first call's, first at %zu "
                  "(tile %zu)", what, diff, at, at / tile);
}

/* Floating-point sums are the same bits from call to call (include/clscan.h promises
 * it for the same device, n, type, op and placement), on every tuning the suite runs,
 * the look-back's delayed, silent and give-up modes included, where which predecessor a
 * tile finds ready varies with timing. Elements of widely varied magnitude make every
 * change of combination order show in the last bits. Each call is checked against the
 * host reference too; how many elements differ from a serial sum is reported. (The
 * test fails against the first look-back, which folded totals as it found them.)
 * Where the device scan is single-pass, a second context whose every fourth tile
 * publishes nothing (CLSCAN_LOOKBACK_TEST_SILENT) must give the same bits: its
 * successors reduce those tiles themselves, every call, and a fallback's total must be
 * the owner's. (Intel's CPU compiler summed the owner's loop vectorised and out of
 * order, the fallback's in order: docs/IMPLEMENTATION-ISSUES.md.) */
START_TEST(test_reproducible)
{
    const uint64_t seed = getenv("CLSCAN_TEST_SEED") ? strtoull(getenv("CLSCAN_TEST_SEED"), NULL, 0)
                                                      : 20261124;
    fprintf(stderr, "reproducibility: seed %llu\n", (unsigned long long)seed);
    enum { REPS = 10 };
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        const clscan__profile *p = &d->ctx->target.profile;
        clscan_context *silent = NULL;
        if (p->scan_algo == CLSCAN__SCAN_SINGLE_PASS && p->lb_test != CLSCAN__LB_TEST_SILENT) {
            clscan_context_options o;
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            o.lookback_test = CLSCAN_LOOKBACK_TEST_SILENT;
            const clscan_status cs = clscan_context_create_with_options(d->cl_ctx, d->dev, &o,
                                                                        &silent);
            ck_assert_msg(cs == CLSCAN_SUCCESS, "%s: a context with silent tiles: %s: %s",
                          d->name, clscan_status_string(cs), clscan_context_last_error(NULL));
        }
        for (int ti = 0; ti < 2; ti++) {
            const clscan_type type = ti ? CLSCAN_DOUBLE : CLSCAN_FLOAT;
            if (type == CLSCAN_DOUBLE && !p->fp64) continue;
            const size_t elem = clscan_type_size(type);
            const size_t tile = p->sp_wg_size * p->sp_items * 4 / elem;
            /* CLSCAN_TEST_REPRO_N adds a size (a GPU's many tiles in flight). */
            const char *extra = getenv("CLSCAN_TEST_REPRO_N");
            const size_t sizes[] = {60 * tile + 5, 300001, extra ? strtoull(extra, NULL, 0) : 0};
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes && sizes[si]; si++) {
                const size_t n = sizes[si];
                clscan_verify_rng rng = {clscan_verify_mix(seed, n * 2 + (size_t)ti)};
                char *data = malloc(n * elem), *first = malloc(n * elem), *got = malloc(n * elem);
                ck_assert(data && first && got);
                for (size_t i = 0; i < n; i++) {
                    const uint64_t r = clscan_verify_rng_next(&rng);
                    /* sign, mantissa in [1, 2), exponent in [-24, 24) */
                    const double v = ((r & 1) ? -1.0 : 1.0) *
                                     (1.0 + (double)((r >> 8) & 0xfffff) / 1048576.0) *
                                     ldexp(1.0, (int)((r >> 40) % 48) - 24);
                    if (type == CLSCAN_FLOAT) ((float *)data)[i] = (float)v;
                    else ((double *)data)[i] = v;
                }
                cl_mem src = clscan_buffer(d, n * elem, data), dst = clscan_buffer(d, n * elem, NULL);
                for (int incl = 0; incl < 2; incl++) {
                    size_t serial_diff = 0;
                    for (int rep = 0; rep < REPS; rep++) {
                        cl_event ev = NULL;
                        clscan_status st = clscan_scans[incl](d->ctx, d->queue, src, 0, dst, 0, n,
                                                              type, CLSCAN_OP_ADD, 0, NULL, &ev);
                        ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s", clscan_status_string(st),
                                      clscan_context_last_error(d->ctx));
                        clscan_wait_complete(ev, "reproducibility scan");
                        clReleaseEvent(ev);
                        clscan_read(d->queue, dst, n * elem, rep ? got : first);
                        if (rep == 0) {
                            char msg[512];
                            clscan_verify_ref *ref = clscan_verify_reference(type, CLSCAN_OP_ADD,
                                                                             incl, data, n);
                            ck_assert_ptr_nonnull(ref);
                            ck_assert_msg(clscan_verify_compare(ref, first, msg, sizeof msg),
                                          "%s: %s add %s n=%zu: %s", d->name,
                                          clscan_type_name(type), clscan_mode_names[incl], n, msg);
                            clscan_verify_ref_free(ref);
                            double run = 0.0;
                            for (size_t i = 0; i < n; i++) {
                                const double x = type == CLSCAN_FLOAT ? ((float *)data)[i]
                                                                      : ((double *)data)[i];
                                double want;
                                if (type == CLSCAN_FLOAT) {
                                    const float before = (float)run;
                                    run = (float)(before + (float)x);
                                    want = incl ? run : before;
                                    serial_diff += ((float *)first)[i] != (float)want;
                                } else {
                                    const double before = run;
                                    run = before + x;
                                    want = incl ? run : before;
                                    serial_diff += ((double *)first)[i] != want;
                                }
                            }
                            continue;
                        }
                        char what[400];
                        snprintf(what, sizeof what, "%s: %s add %s n=%zu: call %d", d->name,
                                 clscan_type_name(type), clscan_mode_names[incl], n, rep + 1);
                        assert_same_bits(got, first, n, elem, tile, what);
                    }
                    fprintf(stderr, "%s: %s add %s n=%zu: %d calls bitwise equal; %zu elements "
                            "differ from a serial sum\n", d->name, clscan_type_name(type),
                            clscan_mode_names[incl], n, REPS, serial_diff);
                    if (!silent) continue;
                    cl_event ev = NULL;
                    const clscan_status st = clscan_scans[incl](silent, d->queue, src, 0, dst, 0,
                                                                n, type, CLSCAN_OP_ADD, 0, NULL,
                                                                &ev);
                    ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s", clscan_status_string(st),
                                  clscan_context_last_error(silent));
                    clscan_wait_complete(ev, "reproducibility scan, silent tiles");
                    clReleaseEvent(ev);
                    clscan_read(d->queue, dst, n * elem, got);
                    char what[400];
                    snprintf(what, sizeof what, "%s: %s add %s n=%zu: with silent tiles "
                             "(fallbacks)", d->name, clscan_type_name(type),
                             clscan_mode_names[incl], n);
                    assert_same_bits(got, first, n, elem, tile, what);
                }
                clReleaseMemObject(src);
                clReleaseMemObject(dst);
                free(data);
                free(first);
                free(got);
            }
        }
        clscan_context_release(silent);
    }
}
END_TEST

/* float/double MIN and MAX ignore NaN operands (fmin/fmax); src[0] is finite so every
 * prefix has a defined result whatever the evaluation order. */
START_TEST(test_nan_minmax)
{
    enum { N = 5000 };
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        for (clscan_type t = CLSCAN_FLOAT; t <= CLSCAN_DOUBLE; t++) {
            if (t == CLSCAN_DOUBLE && !clscan_verify_device_has_fp64(d->dev))
                continue;
            double buf[N];
            clscan_verify_fill(buf, N, t, CLSCAN_OP_MIN, 77);
            for (size_t i = 1; i < N; i += 1 + i % 7) {
                if (t == CLSCAN_FLOAT)
                    ((float *)buf)[i] = NAN;
                else
                    buf[i] = NAN;
            }
            for (clscan_op op = CLSCAN_OP_MIN; op <= CLSCAN_OP_MAX; op++)
                for (int incl = 0; incl < 2; incl++)
                    clscan_check_host_data(d, t, op, incl, buf, N);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ errors -------- */

#define CLSCAN_T_ELEMS 64 /* int32 elements in the buffers of the error tests */

typedef struct clscan_call {
    clscan_context *ctx;
    cl_command_queue queue;
    cl_mem src;
    size_t src_offset;
    cl_mem dst;
    size_t dst_offset, n;
    clscan_type type;
    clscan_op op;
    cl_uint num_wait;
    const cl_event *wait;
} clscan_call;

/* Makes the call (both modes) and checks: the exact status, *event untouched, a
 * non-empty last error, and `guard` (the real dst) unchanged. */
static void clscan_expect(clscan_test_dev *d, clscan_call c, cl_mem guard,
                          clscan_status want, const char *what)
{
    static char sentinel_obj;
    cl_event const sentinel = (cl_event)(void *)&sentinel_obj;
    cl_int got[CLSCAN_T_ELEMS];
    for (int incl = 0; incl < 2; incl++) {
        cl_event ev = sentinel;
        clscan_status st = clscan_scans[incl](c.ctx, c.queue, c.src, c.src_offset, c.dst,
                                              c.dst_offset, c.n, c.type, c.op, c.num_wait,
                                              c.wait, &ev);
        ck_assert_msg(st == want, "%s: %s (%s): got %s, want %s", d->name, what,
                      clscan_mode_names[incl], clscan_status_string(st),
                      clscan_status_string(want));
        ck_assert_msg(ev == sentinel, "%s: %s: *event was changed by a failing call", d->name,
                      what);
        const char *err = clscan_context_last_error(c.ctx);
        ck_assert_msg(err && *err, "%s: %s: clscan_context_last_error is empty", d->name, what);
        ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
        clscan_read(d->queue, guard, sizeof got, got);
        for (int i = 0; i < CLSCAN_T_ELEMS; i++)
            ck_assert_msg(got[i] == -0x5a5a5a5b, "%s: %s: dst[%d] written by a failing call",
                          d->name, what, i);
    }
}

START_TEST(test_invalid_arguments)
{
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        cl_int init[CLSCAN_T_ELEMS], pattern[CLSCAN_T_ELEMS];
        for (int i = 0; i < CLSCAN_T_ELEMS; i++)
            init[i] = i + 1, pattern[i] = -0x5a5a5a5b;
        cl_mem src = clscan_buffer(d, sizeof init, init);
        cl_mem dst = clscan_buffer(d, sizeof pattern, pattern);
        const clscan_call ok = {d->ctx, d->queue, src, 0, dst, 0, CLSCAN_T_ELEMS, CLSCAN_INT32,
                                CLSCAN_OP_ADD, 0, NULL};
        clscan_call c;
        const int BAD = CLSCAN_ERROR_INVALID_ARGUMENT;

        c = ok, c.ctx = NULL;
        clscan_expect(d, c, dst, BAD, "NULL context");
        c = ok, c.queue = NULL;
        clscan_expect(d, c, dst, BAD, "NULL queue");
        c = ok, c.src = NULL;
        clscan_expect(d, c, dst, BAD, "NULL src");
        c = ok, c.dst = NULL;
        clscan_expect(d, c, dst, BAD, "NULL dst");
        c = ok, c.src_offset = 1;
        clscan_expect(d, c, dst, BAD, "src_offset + n past CL_MEM_SIZE");
        c = ok, c.dst_offset = 1;
        clscan_expect(d, c, dst, BAD, "dst_offset + n past CL_MEM_SIZE");
        c = ok, c.n = CLSCAN_T_ELEMS + 1;
        clscan_expect(d, c, dst, BAD, "n past CL_MEM_SIZE");
        c = ok, c.type = CLSCAN_INT64, c.n = CLSCAN_T_ELEMS / 2 + 1;
        clscan_expect(d, c, dst, BAD, "int64 range past CL_MEM_SIZE (bytes, not elements)");
        c = ok, c.src_offset = SIZE_MAX - 2, c.n = 4;
        clscan_expect(d, c, dst, BAD, "src_offset + n overflows SIZE_MAX");
        c = ok, c.dst_offset = SIZE_MAX - 2, c.n = 4;
        clscan_expect(d, c, dst, BAD, "dst_offset + n overflows SIZE_MAX");
        c = ok, c.src_offset = SIZE_MAX / 4 + 1, c.n = 1;
        clscan_expect(d, c, dst, BAD, "(src_offset + n) * 4 overflows SIZE_MAX");
        c = ok, c.dst_offset = SIZE_MAX / 8, c.n = 2, c.type = CLSCAN_INT64;
        clscan_expect(d, c, dst, BAD, "(dst_offset + n) * 8 overflows SIZE_MAX");
        c = ok, c.type = (clscan_type)99;
        clscan_expect(d, c, dst, BAD, "type 99");
        c = ok, c.type = (clscan_type)-1;
        clscan_expect(d, c, dst, BAD, "type -1");
        c = ok, c.op = (clscan_op)99;
        clscan_expect(d, c, dst, BAD, "op 99");
        c = ok, c.op = (clscan_op)-1;
        clscan_expect(d, c, dst, BAD, "op -1");
        c = ok, c.num_wait = 1, c.wait = NULL;
        clscan_expect(d, c, dst, BAD, "num_events_in_wait_list 1 with a NULL list");
        cl_event user = clCreateUserEvent(d->cl_ctx, NULL);
        c = ok, c.num_wait = 0, c.wait = &user;
        clscan_expect(d, c, dst, BAD, "a wait list with num_events_in_wait_list 0");
        clSetUserEventStatus(user, CL_COMPLETE);
        clReleaseEvent(user);
        for (clscan_type t = CLSCAN_FLOAT; t <= CLSCAN_DOUBLE; t++)
            for (clscan_op op = CLSCAN_OP_AND; op <= CLSCAN_OP_XOR; op++) {
                char what[64];
                snprintf(what, sizeof what, "%s on %s", clscan_op_name(op), clscan_type_name(t));
                c = ok, c.type = t, c.op = op, c.n = t == CLSCAN_DOUBLE ? 32 : 64;
                clscan_expect(d, c, dst, CLSCAN_ERROR_UNSUPPORTED, what);
            }

        /* Controls: the largest valid ranges succeed and compute. */
        cl_int got[CLSCAN_T_ELEMS];
        cl_event ev = NULL;
        ck_assert_int_eq(clscan_inclusive_scan(d->ctx, d->queue, src, 10, dst, 0,
                                               CLSCAN_T_ELEMS - 10, CLSCAN_INT32, CLSCAN_OP_ADD,
                                               0, NULL, &ev), CLSCAN_SUCCESS);
        clscan_wait_complete(ev, "control scan");
        clReleaseEvent(ev);
        clscan_read(d->queue, dst, sizeof got, got);
        for (int i = 0, sum = 0; i < CLSCAN_T_ELEMS - 10; i++) {
            sum += i + 11;
            ck_assert_int_eq(got[i], sum);
        }
        for (int i = CLSCAN_T_ELEMS - 10; i < CLSCAN_T_ELEMS; i++)
            ck_assert_int_eq(got[i], -0x5a5a5a5b);
        ck_assert_int_eq(clscan_exclusive_scan(d->ctx, d->queue, src, 0, dst, 0, CLSCAN_T_ELEMS,
                                               CLSCAN_INT32, CLSCAN_OP_ADD, 0, NULL, NULL),
                         CLSCAN_SUCCESS); /* no event asked for */
        ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
        clscan_read(d->queue, dst, sizeof got, got);
        for (int i = 0, sum = 0; i < CLSCAN_T_ELEMS; sum += init[i], i++)
            ck_assert_int_eq(got[i], sum);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
}
END_TEST

START_TEST(test_context_api)
{
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        static clscan_context *const junk = (clscan_context *)(void *)&clscan_ndevs;
        clscan_context *out = junk;
        ck_assert_int_eq(clscan_context_create(NULL, d->dev, &out), CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_ptr_null(out);
        ck_assert_str_ne(clscan_context_last_error(NULL), "");
        out = junk;
        ck_assert_int_eq(clscan_context_create(d->cl_ctx, NULL, &out),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_ptr_null(out);
        ck_assert_int_eq(clscan_context_create(d->cl_ctx, d->dev, NULL),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
        clscan_context_release(NULL);

        /* describe: snprintf-like. */
        size_t need = clscan_context_describe(d->ctx, NULL, 0);
        ck_assert_uint_gt(need, 0);
        char *full = malloc(need + 1), small[8];
        ck_assert_uint_eq(clscan_context_describe(d->ctx, full, need + 1), need);
        ck_assert_uint_eq(strlen(full), need);
        memset(small, 'x', sizeof small);
        ck_assert_uint_eq(clscan_context_describe(d->ctx, small, 5), need);
        ck_assert_uint_eq(strlen(small), need < 4 ? need : 4);
        ck_assert_int_eq(small[5], 'x');
        ck_assert(!strncmp(small, full, strlen(small)));
        free(full);

        /* A second context on the same device works independently. */
        clscan_context *second = NULL;
        ck_assert_int_eq(clscan_context_create(d->cl_ctx, d->dev, &second), CLSCAN_SUCCESS);
        ck_assert_ptr_nonnull(second);
        clscan_context_release(second);
    }
}
END_TEST

/* clscan_kernel_build_options: argument checks, snprintf-like lengths, and a user kernel
 * (the one-value-per-work-item scan of docs/GUIDE.md) built with the options and run. */
static const char *guide_kernel =
    "#include <clscan_workgroup.cl>\n"
    "__kernel CLSCAN_KERNEL_ATTRIBUTES\n"
    "void prefix_of_squares(__global const CLSCAN_T *in, __global CLSCAN_T *out,\n"
    "                       __global CLSCAN_T *totals)\n"
    "{\n"
    "    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];\n"
    "    const CLSCAN_T x = in[get_global_id(0)];\n"
    "    CLSCAN_T total;\n"
    "    out[get_global_id(0)] = clscan_wg_scan_value(x * x, 1, scratch, &total);\n"
    "    if (get_local_id(0) == 0) totals[get_group_id(0)] = total;\n"
    "}\n";

START_TEST(test_kernel_build_options)
{
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        char opts[2048];
        size_t len = 0, wg = 0, tile = 0;
        ck_assert_int_eq(clscan_kernel_build_options(NULL, CLSCAN_UINT32, CLSCAN_OP_ADD, 0, opts,
                                                     sizeof opts, &len, &wg, &tile),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_int_eq(clscan_kernel_build_options(d->ctx, (clscan_type)99, CLSCAN_OP_ADD, 0,
                                                     opts, sizeof opts, &len, &wg, &tile),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_int_eq(clscan_kernel_build_options(d->ctx, CLSCAN_FLOAT, CLSCAN_OP_XOR, 0, opts,
                                                     sizeof opts, &len, &wg, &tile),
                         CLSCAN_ERROR_UNSUPPORTED);
        ck_assert_int_eq(clscan_kernel_build_options(d->ctx, CLSCAN_UINT32, CLSCAN_OP_ADD, 0,
                                                     NULL, 10, &len, &wg, &tile),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert(strstr(clscan_context_last_error(d->ctx), "options is NULL"));
        /* Length query, then the text. */
        len = 0;
        ck_assert_int_eq(clscan_kernel_build_options(d->ctx, CLSCAN_FLOAT, CLSCAN_OP_MAX, 0, NULL,
                                                     0, &len, NULL, NULL),
                         CLSCAN_SUCCESS);
        ck_assert_uint_gt(len, 0);
        ck_assert_int_eq(clscan_kernel_build_options(d->ctx, CLSCAN_FLOAT, CLSCAN_OP_MAX, 0, opts,
                                                     len + 1, NULL, &wg, &tile),
                         CLSCAN_SUCCESS);
        ck_assert_uint_eq(strlen(opts), len);
        ck_assert(strstr(opts, "-D CLSCAN_TYPE_ID=4") && strstr(opts, "-D CLSCAN_OP_ID=3"));
        ck_assert(strncmp(opts, "-I ", 3) == 0);
        ck_assert(wg >= 1 && tile >= wg && tile % wg == 0);
        /* One byte short: an error, a terminated truncated copy, the length needed. */
        size_t len2 = 0;
        ck_assert_int_eq(clscan_kernel_build_options(d->ctx, CLSCAN_FLOAT, CLSCAN_OP_MAX, 0, opts,
                                                     len, &len2, NULL, NULL),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_uint_eq(len2, len);
        ck_assert_uint_eq(strlen(opts), len - 1);
        /* A cap on the work-group size is honoured. */
        ck_assert_int_eq(clscan_kernel_build_options(d->ctx, CLSCAN_UINT32, CLSCAN_OP_ADD, 1, opts,
                                                     sizeof opts, NULL, &wg, NULL),
                         CLSCAN_SUCCESS);
        ck_assert_uint_eq(wg, 1);

        /* The guide's kernel, built with the options, against a host loop. */
        ck_assert_int_eq(clscan_kernel_build_options(d->ctx, CLSCAN_UINT32, CLSCAN_OP_ADD, 0, opts,
                                                     sizeof opts, NULL, &wg, NULL),
                         CLSCAN_SUCCESS);
        cl_int err;
        cl_program prog = clCreateProgramWithSource(d->cl_ctx, 1, &guide_kernel, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        err = clBuildProgram(prog, 1, &d->dev, opts, NULL, NULL);
        if (err != CL_SUCCESS) {
            char log[8192] = "";
            clGetProgramBuildInfo(prog, d->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            log[sizeof log - 1] = '\0';
            ck_abort_msg("%s: the guide's kernel does not build with \"%s\": %s", d->name, opts,
                         log);
        }
        cl_kernel k = clCreateKernel(prog, "prefix_of_squares", &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        size_t kwg = 0;
        clGetKernelWorkGroupInfo(k, d->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL);
        if (kwg < wg) { /* rebuild for the kernel's own limit, as the guide says */
            clReleaseKernel(k);
            clReleaseProgram(prog);
            ck_assert_int_eq(clscan_kernel_build_options(d->ctx, CLSCAN_UINT32, CLSCAN_OP_ADD, kwg,
                                                         opts, sizeof opts, NULL, &wg, NULL),
                             CLSCAN_SUCCESS);
            prog = clCreateProgramWithSource(d->cl_ctx, 1, &guide_kernel, NULL, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
            ck_assert_int_eq(clBuildProgram(prog, 1, &d->dev, opts, NULL, NULL), CL_SUCCESS);
            k = clCreateKernel(prog, "prefix_of_squares", &err);
            ck_assert_int_eq(err, CL_SUCCESS);
        }
        const size_t groups = 3, n = groups * wg;
        cl_uint *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out), totals[3];
        uint64_t seed = 0x5eed0000u + (uint64_t)di;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            in[i] = (cl_uint)(seed >> 40);
        }
        cl_mem b_in = clCreateBuffer(d->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                     n * sizeof *in, in, &err);
        cl_mem b_out = clCreateBuffer(d->cl_ctx, CL_MEM_WRITE_ONLY, n * sizeof *out, NULL, &err);
        cl_mem b_tot = clCreateBuffer(d->cl_ctx, CL_MEM_WRITE_ONLY, sizeof totals, NULL, &err);
        ck_assert(b_in && b_out && b_tot);
        clSetKernelArg(k, 0, sizeof b_in, &b_in);
        clSetKernelArg(k, 1, sizeof b_out, &b_out);
        clSetKernelArg(k, 2, sizeof b_tot, &b_tot);
        ck_assert_int_eq(clEnqueueNDRangeKernel(d->queue, k, 1, NULL, &n, &wg, 0, NULL, NULL),
                         CL_SUCCESS);
        clEnqueueReadBuffer(d->queue, b_out, CL_TRUE, 0, n * sizeof *out, out, 0, NULL, NULL);
        clEnqueueReadBuffer(d->queue, b_tot, CL_TRUE, 0, sizeof totals, totals, 0, NULL, NULL);
        for (size_t g = 0; g < groups; g++) {
            cl_uint sum = 0;
            for (size_t i = g * wg; i < (g + 1) * wg; i++) {
                sum += in[i] * in[i];
                ck_assert_msg(out[i] == sum, "%s: out[%zu] = %u, expected %u (wg %zu)", d->name,
                              i, out[i], sum, wg);
            }
            ck_assert_uint_eq(totals[g], sum);
        }
        clReleaseMemObject(b_in);
        clReleaseMemObject(b_out);
        clReleaseMemObject(b_tot);
        clReleaseKernel(k);
        clReleaseProgram(prog);
        free(in);
        free(out);
    }
}
END_TEST

START_TEST(test_names)
{
    static const struct { clscan_status s; const char *name; } known[] = {
        {CLSCAN_SUCCESS, "CLSCAN_SUCCESS"},
        {CLSCAN_ERROR_INVALID_ARGUMENT, "CLSCAN_ERROR_INVALID_ARGUMENT"},
        {CLSCAN_ERROR_UNSUPPORTED, "CLSCAN_ERROR_UNSUPPORTED"},
        {CLSCAN_ERROR_BUILD_FAILED, "CLSCAN_ERROR_BUILD_FAILED"},
        {CLSCAN_ERROR_OUT_OF_RESOURCES, "CLSCAN_ERROR_OUT_OF_RESOURCES"},
        {CLSCAN_ERROR_INVALID_ENVIRONMENT, "CLSCAN_ERROR_INVALID_ENVIRONMENT"},
        {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
        {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
        {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE"},
        {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
        {CL_INVALID_EVENT_WAIT_LIST, "CL_INVALID_EVENT_WAIT_LIST"},
        {12345, "unknown status"},
        {-7099, "unknown status"}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        ck_assert_str_eq(clscan_status_string(known[i].s), known[i].name);
    ck_assert_uint_eq(CLSCAN_ERROR_INVALID_ARGUMENT, -7001); /* fixed values */
    ck_assert_int_eq(CLSCAN_ERROR_INVALID_ENVIRONMENT, -7005);

    static const char *const types[] = {"int32", "uint32", "int64", "uint64", "float", "double"};
    static const size_t sizes[] = {4, 4, 8, 8, 4, 8};
    for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
        ck_assert_str_eq(clscan_type_name((clscan_type)t), types[t]);
        ck_assert_uint_eq(clscan_type_size((clscan_type)t), sizes[t]);
    }
    static const char *const ops[] = {"add", "mul", "min", "max", "and", "or", "xor"};
    for (int o = 0; o < CLSCAN_OP_COUNT; o++)
        ck_assert_str_eq(clscan_op_name((clscan_op)o), ops[o]);
    ck_assert_str_eq(clscan_type_name((clscan_type)CLSCAN_TYPE_COUNT), "invalid");
    ck_assert_str_eq(clscan_op_name((clscan_op)-1), "invalid");
    ck_assert_uint_eq(clscan_type_size((clscan_type)-1), 0);
    ck_assert_uint_eq(clscan_version(), CLSCAN_VERSION_NUMBER);
}
END_TEST

/* ------------------------------------------------------------ events -------- */

/* n == 0 gives a marker that completes only once its wait list has; a scan gated on a
 * user event does not run before it. */
START_TEST(test_wait_lists)
{
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        cl_int err, exec;
        cl_event user = clCreateUserEvent(d->cl_ctx, &err), ev = NULL;
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_mem buf = clscan_buffer(d, 64, NULL);
        ck_assert_int_eq(clscan_exclusive_scan(d->ctx, d->queue, buf, 0, buf, 0, 0,
                                               CLSCAN_UINT64, CLSCAN_OP_XOR, 1, &user, &ev),
                         CLSCAN_SUCCESS);
        ck_assert_ptr_nonnull(ev);
        clFlush(d->queue);
        ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec,
                                        &exec, NULL), CL_SUCCESS);
        ck_assert_msg(exec != CL_COMPLETE, "n == 0 marker completed before its wait list");
        ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
        clscan_wait_complete(ev, "n == 0 marker");
        clReleaseEvent(ev);
        clReleaseEvent(user);
        clReleaseMemObject(buf);

        /* Input written by a write that waits on a user event: the scan must see it. */
        enum { N = 20000 };
        cl_uint *in = malloc(N * sizeof *in), *got = malloc(N * sizeof *got);
        for (cl_uint i = 0; i < N; i++)
            in[i] = i * 2654435761u;
        cl_mem src = clscan_buffer(d, N * sizeof *in, NULL), dst = clscan_buffer(d, N * sizeof *in, NULL);
        cl_event wev = NULL;
        user = clCreateUserEvent(d->cl_ctx, &err);
        ck_assert_int_eq(clEnqueueWriteBuffer(d->queue, src, CL_FALSE, 0, N * sizeof *in, in, 1,
                                              &user, &wev), CL_SUCCESS);
        ck_assert_int_eq(clscan_inclusive_scan(d->ctx, d->queue, src, 0, dst, 0, N, CLSCAN_UINT32,
                                               CLSCAN_OP_ADD, 1, &wev, &ev), CLSCAN_SUCCESS);
        clFlush(d->queue);
        ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec,
                                        &exec, NULL), CL_SUCCESS);
        ck_assert_msg(exec != CL_COMPLETE, "scan completed before its wait list");
        ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
        clscan_wait_complete(ev, "gated scan");
        clscan_read(d->queue, dst, N * sizeof *got, got);
        cl_uint sum = 0;
        for (cl_uint i = 0; i < N; i++) {
            sum += in[i];
            if (got[i] != sum)
                ck_abort_msg("%s: gated scan: index %u: got %u, want %u", d->name, i, got[i], sum);
        }
        clReleaseEvent(ev);
        clReleaseEvent(wev);
        clReleaseEvent(user);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        free(in);
        free(got);
    }
}
END_TEST

/* Scratch slots shared by in-order queues whose calls ask for no event (their commands
 * then have none, runtime/launch.c): 20 queues, more than a context's 16 slots, each
 * scanning the same input into its own output with nothing waited for between calls,
 * twice round; the calls past the pool's slots must wait for a marker after the earlier
 * queue's use. Every output against a host scan. */
START_TEST(test_scratch_queues)
{
    enum { QUEUES = 20 };
    const uint64_t seed = getenv("CLSCAN_TEST_SEED") ? strtoull(getenv("CLSCAN_TEST_SEED"), NULL, 0)
                                                     : 20261128u;
    fprintf(stderr, "scratch queues: seed %llu\n", (unsigned long long)seed);
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        const size_t n = 3 * d->ctx->target.profile.sp_wg_size * d->ctx->target.profile.sp_items + 5;
        clscan_verify_rng rng = {clscan_verify_mix(seed, di)};
        cl_int *in = malloc(n * 4), *got = malloc(n * 4);
        ck_assert(in && got);
        for (size_t i = 0; i < n; ++i) in[i] = (cl_int)(clscan_verify_rng_next(&rng) % 1000);
        cl_int err;
        cl_mem src = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4,
                                    in, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_command_queue q[QUEUES];
        cl_mem dst[QUEUES];
        for (int k = 0; k < QUEUES; ++k) {
            q[k] = clCreateCommandQueue(d->cl_ctx, d->dev, 0, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
            dst[k] = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
        }
        for (int round = 0; round < 2; ++round)
            for (int k = 0; k < QUEUES; ++k) {
                ck_assert_msg(clscan_exclusive_scan(d->ctx, q[k], src, 0, dst[k], 0, n,
                                                    CLSCAN_INT32, CLSCAN_OP_ADD, 0, NULL,
                                                    NULL) == CLSCAN_SUCCESS,
                              "%s: queue %d: %s", d->name, k,
                              clscan_context_last_error(d->ctx));
                ck_assert_int_eq(clFlush(q[k]), CL_SUCCESS);
            }
        for (int k = 0; k < QUEUES; ++k) {
            ck_assert_int_eq(clEnqueueReadBuffer(q[k], dst[k], CL_TRUE, 0, n * 4, got, 0, NULL,
                                                 NULL), CL_SUCCESS);
            cl_int acc = 0;
            for (size_t i = 0; i < n; acc += in[i], ++i)
                ck_assert_msg(got[i] == acc, "%s: queue %d, seed %llu: element %zu is %d, "
                              "expected %d", d->name, k, (unsigned long long)seed, i, got[i],
                              acc);
        }
        ck_assert_uint_le(d->ctx->scratch_count, 16);
        for (int k = 0; k < QUEUES; ++k) {
            clReleaseMemObject(dst[k]);
            clReleaseCommandQueue(q[k]);
        }
        clReleaseMemObject(src);
        free(in);
        free(got);
    }
}
END_TEST

/* Two chains of dependent scans on an out-of-order queue, ordered only by wait lists,
 * all enqueued before a user event releases them. */
START_TEST(test_out_of_order_queue)
{
    enum { N = 100003, CHAINS = 2 };
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_test_dev *d = &clscan_devs[di];
        cl_command_queue_properties props = 0;
        ck_assert_int_eq(clGetDeviceInfo(d->dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props,
                                         &props, NULL), CL_SUCCESS);
        if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
            fprintf(stderr, "SKIP out-of-order queue case on %s: the device does not support "
                            "CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE\n", d->name);
            continue;
        }
        cl_int err;
        cl_command_queue q = clCreateCommandQueue(d->cl_ctx, d->dev,
                                                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
        ck_assert_msg(q, "clCreateCommandQueue(out of order): %s", clscan_status_string(err));
        cl_event user = clCreateUserEvent(d->cl_ctx, &err);
        cl_long *in = malloc(N * sizeof *in), *got[CHAINS];
        cl_mem src[CHAINS], mid[CHAINS], dst[CHAINS];
        cl_event ev[CHAINS][4];
        clscan_verify_fill(in, N, CLSCAN_INT64, CLSCAN_OP_ADD, 99);
        for (int k = 0; k < CHAINS; k++) {
            size_t bytes = N * sizeof *in;
            got[k] = malloc(bytes);
            src[k] = clscan_buffer(d, bytes, NULL);
            mid[k] = clscan_buffer(d, bytes, NULL);
            dst[k] = clscan_buffer(d, bytes, NULL);
            ck_assert_int_eq(clEnqueueWriteBuffer(q, src[k], CL_FALSE, 0, bytes, in, 1, &user,
                                                  &ev[k][0]), CL_SUCCESS);
            /* chain k: inclusive (k ? MAX : ADD) into mid, then exclusive ADD in place. */
            ck_assert_int_eq(clscan_inclusive_scan(d->ctx, q, src[k], 0, mid[k], 0, N,
                                                   CLSCAN_INT64, k ? CLSCAN_OP_MAX : CLSCAN_OP_ADD,
                                                   1, &ev[k][0], &ev[k][1]), CLSCAN_SUCCESS);
            ck_assert_int_eq(clscan_exclusive_scan(d->ctx, q, mid[k], 0, mid[k], 0, N,
                                                   CLSCAN_INT64, CLSCAN_OP_ADD, 1, &ev[k][1],
                                                   &ev[k][2]), CLSCAN_SUCCESS);
            ck_assert_int_eq(clEnqueueCopyBuffer(q, mid[k], dst[k], 0, 0, bytes, 1, &ev[k][2],
                                                 &ev[k][3]), CL_SUCCESS);
        }
        ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
        for (int k = 0; k < CHAINS; k++) {
            clscan_wait_complete(ev[k][3], "out-of-order chain");
            clscan_read(q, dst[k], N * sizeof *in, got[k]);
            /* Host reference: exclusive ADD of (inclusive ADD or MAX), wrapping via uint64. */
            uint64_t sum1 = 0, sum2 = 0;
            cl_long mx = INT64_MIN;
            for (size_t i = 0; i < N; i++) {
                if (k)
                    mx = in[i] > mx ? in[i] : mx;
                else
                    sum1 += (uint64_t)in[i];
                if ((uint64_t)got[k][i] != sum2)
                    ck_abort_msg("%s: out-of-order chain %d: index %zu wrong", d->name, k, i);
                sum2 += k ? (uint64_t)mx : sum1;
            }
            for (int j = 0; j < 4; j++)
                clReleaseEvent(ev[k][j]);
            clReleaseMemObject(src[k]);
            clReleaseMemObject(mid[k]);
            clReleaseMemObject(dst[k]);
            free(got[k]);
        }
        clReleaseEvent(user);
        clReleaseCommandQueue(q);
        free(in);
    }
}
END_TEST

/* ------------------------------------------------------------ threads ------- */

/* Several threads share one context, each with its own queue, and all start with
 * (type, op) pairs not built yet, so program builds race too. */
typedef struct clscan_thread_job {
    clscan_test_dev *d;
    int index;
    unsigned pass, fail;
    char first[1400];
} clscan_thread_job;

static void *clscan_thread_main(void *arg)
{
    clscan_thread_job *job = arg;
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(job->d->cl_ctx, job->d->dev, 0, &err);
    if (!q) {
        job->fail++;
        snprintf(job->first, sizeof job->first, "clCreateCommandQueue: %s",
                 clscan_status_string(err));
        return NULL;
    }
    for (int rep = 0; rep < 3; rep++)
        for (int op = 0; op < CLSCAN_OP_COUNT; op++) {
            clscan_verify_case c = {job->index % 2 ? CLSCAN_UINT32 : CLSCAN_INT64,
                                    (clscan_op)((op + job->index) % CLSCAN_OP_COUNT),
                                    (rep + job->index) % 2, 3000 + 1000 * (size_t)job->index,
                                    0, 0, 0, (uint64_t)(job->index * 100 + op)};
            char msg[1024];
            if (clscan_verify_run_case(job->d->ctx, job->d->cl_ctx, q, &c, msg, sizeof msg) ==
                CLSCAN_VERIFY_PASS) {
                job->pass++;
            } else if (!job->fail++) {
                snprintf(job->first, sizeof job->first, "thread %d: %s %s n=%zu: %s", job->index,
                         clscan_type_name(c.type), clscan_op_name(c.op), c.n, msg);
            }
        }
    clReleaseCommandQueue(q);
    return NULL;
}

START_TEST(test_threads)
{
    enum { THREADS = 4 };
    for (int di = 0; di < clscan_ndevs; di++) {
        clscan_thread_job jobs[THREADS];
        pthread_t tid[THREADS];
        for (int i = 0; i < THREADS; i++) {
            jobs[i] = (clscan_thread_job){&clscan_devs[di], i, 0, 0, ""};
            ck_assert_int_eq(pthread_create(&tid[i], NULL, clscan_thread_main, &jobs[i]), 0);
        }
        for (int i = 0; i < THREADS; i++)
            pthread_join(tid[i], NULL);
        for (int i = 0; i < THREADS; i++) {
            ck_assert_msg(jobs[i].fail == 0, "%s: %s", clscan_devs[di].name, jobs[i].first);
            ck_assert_uint_eq(jobs[i].pass, 3 * CLSCAN_OP_COUNT);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ suite --------- */

static Suite *clscan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *names = tcase_create("names");
    tcase_add_test(names, test_names);
    suite_add_tcase(s, names);

    TCase *dev = tcase_create("device");
    tcase_add_checked_fixture(dev, clscan_setup, clscan_teardown);
    tcase_set_timeout(dev, 1700);
    tcase_add_loop_test(dev, test_matrix, 0, CLSCAN_TYPE_COUNT);
    tcase_add_test(dev, test_nan_minmax);
    tcase_add_test(dev, test_lookback);
    tcase_add_test(dev, test_reproducible);
    tcase_add_test(dev, test_invalid_arguments);
    tcase_add_test(dev, test_context_api);
    tcase_add_test(dev, test_kernel_build_options);
    tcase_add_test(dev, test_wait_lists);
    tcase_add_test(dev, test_out_of_order_queue);
    tcase_add_test(dev, test_scratch_queues);
    tcase_add_test(dev, test_threads);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(clscan_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
