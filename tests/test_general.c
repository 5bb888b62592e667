/* test_general.c - Check suite for clscan_scan (general scans): custom operators on the
 * library's types and on user structs (a non-commutative 2x2 matrix product, a
 * (sum, count) pair), input transforms, segments by flags and by keys, each against a
 * serial host reference on random inputs (seed printed) at edge sizes, with offsets and
 * in place, guard bands around dst; segmented scans of every library type under each
 * built-in operator, bit for bit; bit-for-bit reproducibility of a float operator; and
 * every argument error with its exact status and message; descriptions edited in place
 * behind the same pointers (the context's memo of checked descriptions); a 16-byte
 * struct between buffers over misaligned host memory (CL_MEM_USE_HOST_PTR); segmented
 * scans whose outputs stream past the caches (a context told of a 4 KiB cache). */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_devices.h"
#include "verify_general.h"

#include <check.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device under test in the running loop over clscan_test_devs (tests/test_devices.c:
 * the first device of each platform matching $CLSCAN_TEST_PLATFORM). */
static clscan_test_dev *gd;

/* ------------------------------------------------------- the test cases ---- */

/* ---------------------------------------------------------------- tests ---- */

static const size_t gen_sizes[] = {0,   1,   2,   3,    31,   64,   127,   128,   129,
                                   255, 256, 257, 1000, 4099, 8192, 65537, 200003};

/* Whether case k is left out: $CLSCAN_TEST_SKIP_CASE names one case number not to run,
 * $CLSCAN_TEST_ONLY_CASE the one case to run. tools/dev.sh runs the case whose kernel
 * Oclgrind 21.10 can only run unoptimised in a run of its own
 * (docs/IMPLEMENTATION-ISSUES.md). */
static int case_skipped(int k)
{
    const char *skip = getenv("CLSCAN_TEST_SKIP_CASE");
    const char *only = getenv("CLSCAN_TEST_ONLY_CASE");
    if ((skip && *skip && atoi(skip) == k) || (only && *only && atoi(only) != k)) {
        fprintf(stderr, "case %d skipped (CLSCAN_TEST_%s_CASE)\n", k,
                skip && *skip && atoi(skip) == k ? "SKIP" : "ONLY");
        return 1;
    }
    return 0;
}

/* Case k on device gd, every size, both modes, both layouts. */
static void run_case(int k)
{
    const clscan_verify_gen_case c = clscan_verify_gen_case_get(k);
    if (!gd->fp64 && c.desc.type == CLSCAN_DOUBLE) return;
    if (case_skipped(k)) return;
    const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261124u), (uint64_t)k);
    fprintf(stderr, "%s: case %d: %s\n", gd->name, k, c.name);
    /* $CLSCAN_TEST_MAX_SIZE caps the sizes (for runs under Oclgrind). */
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    for (size_t z = 0; z < sizeof gen_sizes / sizeof gen_sizes[0] && gen_sizes[z] <= cap; ++z)
        for (int inclusive = 0; inclusive < 2; ++inclusive)
            for (int layout = 0; layout < (c.in_size == c.out_size ? 2 : 1); ++layout) {
                char msg[1024];
                const clscan_verify_result r = clscan_verify_run_general(
                    gd->ctx, gd->cl_ctx, gd->queue, &c, gen_sizes[z], inclusive, layout, seed, msg,
                    sizeof msg);
                ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: %s: %s", gd->name, c.name, msg);
            }
}

START_TEST(test_cases)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        run_case(_i);
    }
}
END_TEST

/* Segmented scans of every library type under built-in operators of every form, by
 * flags and by keys of four key types, inclusive and exclusive, against a host loop. The
 * values keep every order of combination exact (small integers; for float products
 * powers of two), so results compare bit for bit whatever tree the device takes (CPUs:
 * the vector path of cl/clscan_general_tile.cl). */
#define SEG_REF(T, U, NAME, FL)                                                             \
    static T NAME##_op(int op, T a, T b)                                                    \
    {                                                                                       \
        switch (op) {                                                                       \
        case CLSCAN_OP_ADD: return FL ? (T)(a + b) : (T)((U)a + (U)b);                      \
        case CLSCAN_OP_MUL: return FL ? (T)(a * b) : (T)((U)a * (U)b);                      \
        case CLSCAN_OP_MIN: return a < b ? a : b;                                           \
        case CLSCAN_OP_MAX: return a > b ? a : b;                                           \
        case CLSCAN_OP_AND: return (T)((U)a & (U)b);                                        \
        case CLSCAN_OP_OR: return (T)((U)a | (U)b);                                         \
        default: return (T)((U)a ^ (U)b);                                                   \
        }                                                                                   \
    }                                                                                       \
    static void NAME(int op, T id, const void *xv, const unsigned char *head, void *yv,     \
                     size_t n, int incl)                                                    \
    {                                                                                       \
        const T *x = xv;                                                                    \
        T *y = yv, acc = id;                                                                \
        for (size_t i = 0; i < n; ++i) {                                                    \
            if (head[i]) acc = id;                                                          \
            if (!incl) y[i] = acc;                                                          \
            acc = NAME##_op(op, acc, x[i]);                                                 \
            if (incl) y[i] = acc;                                                           \
        }                                                                                   \
    }
SEG_REF(cl_int, cl_uint, seg_ref_i32, 0)
SEG_REF(cl_uint, cl_uint, seg_ref_u32, 0)
SEG_REF(cl_long, cl_ulong, seg_ref_i64, 0)
SEG_REF(cl_ulong, cl_ulong, seg_ref_u64, 0)
SEG_REF(cl_float, cl_uint, seg_ref_f32, 1)
SEG_REF(cl_double, cl_ulong, seg_ref_f64, 1)
#undef SEG_REF

/* Element i of type t: small integers (floats: powers of two from 1/2 to 2, signed, for
 * products), in bytes at p. */
static void seg_value(clscan_type t, clscan_op op, uint64_t r, void *p)
{
    const int small = (int)(r % 17) - 8;
    const double f = op == CLSCAN_OP_MUL ? ((r & 1) ? -1.0 : 1.0) * ldexp(1.0, (int)(r >> 1) % 3 - 1)
                                         : (double)small;
    switch (t) {
    case CLSCAN_INT32: { const cl_int v = op == CLSCAN_OP_ADD ? small : (cl_int)r; memcpy(p, &v, 4); break; }
    case CLSCAN_UINT32: { const cl_uint v = (cl_uint)r; memcpy(p, &v, 4); break; }
    case CLSCAN_INT64: { const cl_long v = (cl_long)r; memcpy(p, &v, 8); break; }
    case CLSCAN_UINT64: { const cl_ulong v = r; memcpy(p, &v, 8); break; }
    case CLSCAN_FLOAT: { const cl_float v = (cl_float)f; memcpy(p, &v, 4); break; }
    default: { const cl_double v = f; memcpy(p, &v, 8); break; }
    }
}

/* The identity of op on t, as the host reference starts from. */
static void seg_identity(clscan_type t, clscan_op op, void *p)
{
    const int fl = t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE, wide = clscan_type_size(t) == 8;
    const int is_signed = t == CLSCAN_INT32 || t == CLSCAN_INT64;
    if (fl) {
        const double v = op == CLSCAN_OP_ADD ? 0.0 : op == CLSCAN_OP_MUL ? 1.0
                         : op == CLSCAN_OP_MIN ? INFINITY : -INFINITY;
        if (wide) memcpy(p, &v, 8);
        else { const float g = (float)v; memcpy(p, &g, 4); }
        return;
    }
    uint64_t v = 0;
    if (op == CLSCAN_OP_MUL) v = 1;
    else if (op == CLSCAN_OP_AND) v = ~0ull;
    else if (op == CLSCAN_OP_MIN) v = is_signed ? (wide ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX) : ~0ull;
    else if (op == CLSCAN_OP_MAX) v = is_signed ? (wide ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)INT32_MIN) : 0;
    if (wide) memcpy(p, &v, 8);
    else { const uint32_t w = (uint32_t)v; memcpy(p, &w, 4); }
}

/* One segmented scan of n elements of type t under op, by flags (sk 0) or by keys of
 * key type kt, inclusive and exclusive, against the host loop. */
static void segmented_case(int t, int op, int sk, clscan_type kt, size_t n, uint64_t seed)
{
    const size_t e = clscan_type_size((clscan_type)t), ke = sk ? clscan_type_size(kt) : 1;
    clscan_verify_rng rng = {clscan_verify_mix(seed, ((uint64_t)t << 40) |
                                                   ((uint64_t)op << 32) |
                                                   ((uint64_t)sk << 24) | n)};
    unsigned char *x = malloc(n * e), *seg = malloc(n * ke), *head = malloc(n);
    unsigned char *want = malloc(n * e), *got = malloc(n * e), id[8];
    ck_assert(x && seg && head && want && got);
    double key = 0;
    for (size_t i = 0; i < n; ++i) {
        seg_value((clscan_type)t, (clscan_op)op, clscan_verify_rng_next(&rng), x + i * e);
        const int starts = clscan_verify_gen_below(&rng, 6) == 0;
        if (!sk) {
            seg[i] = starts ? (unsigned char)(1 + clscan_verify_gen_below(&rng, 3)) : 0;
            head[i] = i == 0 || seg[i] != 0;
        } else {
            if (starts) key += 1 + (double)clscan_verify_gen_below(&rng, 3);
            const cl_int ki = (cl_int)key;
            const cl_ulong ku = (cl_ulong)key;
            const cl_float kf = (cl_float)key;
            const cl_double kd = key;
            memcpy(seg + i * ke, kt == CLSCAN_INT32 ? (const void *)&ki
                                 : kt == CLSCAN_UINT64 ? (const void *)&ku
                                 : kt == CLSCAN_FLOAT ? (const void *)&kf
                                                      : (const void *)&kd, ke);
            head[i] = i == 0 || memcmp(seg + i * ke, seg + (i - 1) * ke, ke) != 0;
        }
    }
    seg_identity((clscan_type)t, (clscan_op)op, id);
    clscan_scan_desc d = {0};
    d.type = (clscan_type)t;
    d.op = (clscan_op)op;
    d.segments = sk ? CLSCAN_SEGMENTS_KEYS : CLSCAN_SEGMENTS_FLAGS;
    d.key_type = kt;
    cl_mem src = clscan_test_buffer(gd, n * e, x);
    cl_mem sg = clscan_test_buffer(gd, n * ke, seg);
    cl_mem dst = clscan_test_buffer(gd, n * e, NULL);
    for (int incl = 0; incl < 2; ++incl) {
        switch (t) {
        case CLSCAN_INT32: { cl_int v; memcpy(&v, id, 4); seg_ref_i32(op, v, x, head, want, n, incl); break; }
        case CLSCAN_UINT32: { cl_uint v; memcpy(&v, id, 4); seg_ref_u32(op, v, x, head, want, n, incl); break; }
        case CLSCAN_INT64: { cl_long v; memcpy(&v, id, 8); seg_ref_i64(op, v, x, head, want, n, incl); break; }
        case CLSCAN_UINT64: { cl_ulong v; memcpy(&v, id, 8); seg_ref_u64(op, v, x, head, want, n, incl); break; }
        case CLSCAN_FLOAT: { cl_float v; memcpy(&v, id, 4); seg_ref_f32(op, v, x, head, want, n, incl); break; }
        default: { cl_double v; memcpy(&v, id, 8); seg_ref_f64(op, v, x, head, want, n, incl); break; }
        }
        const clscan_status st = clscan_scan(gd->ctx, gd->queue, &d, incl, src, 0, sg, 0,
                                             dst, 0, n, 0, NULL, NULL);
        ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s", clscan_status_string(st),
                      clscan_context_last_error(gd->ctx));
        ck_assert_int_eq(clEnqueueReadBuffer(gd->queue, dst, CL_TRUE, 0, n * e, got, 0,
                                             NULL, NULL), CL_SUCCESS);
        for (size_t i = 0; i < n; ++i)
            ck_assert_msg(memcmp(got + i * e, want + i * e, e) == 0,
                          "%s: type %d op %d %s n=%zu %s: element %zu differs "
                          "(seed %llu)", gd->name, t, op,
                          sk ? "keys" : "flags", n,
                          incl ? "inclusive" : "exclusive", i,
                          (unsigned long long)seed);
    }
    clReleaseMemObject(src);
    clReleaseMemObject(sg);
    clReleaseMemObject(dst);
    free(x);
    free(seg);
    free(head);
    free(want);
    free(got);
}

static void segmented_builtins(void)
{
    /* Each type, each form of operator text (signed and unsigned wrapping add and
     * multiply, integer and float min and max, the bitwise ones), flags and each key
     * type, both value widths: sixteen programs, not every pair (each costs a build). */
    static const struct { clscan_type t; clscan_op op; int sk; } pairs[] = {
        {CLSCAN_INT32, CLSCAN_OP_ADD, 0},   {CLSCAN_INT32, CLSCAN_OP_MUL, 1},
        {CLSCAN_INT32, CLSCAN_OP_MIN, 3},   {CLSCAN_INT32, CLSCAN_OP_XOR, 0},
        {CLSCAN_UINT32, CLSCAN_OP_MAX, 2},  {CLSCAN_UINT32, CLSCAN_OP_AND, 0},
        {CLSCAN_INT64, CLSCAN_OP_ADD, 4},   {CLSCAN_INT64, CLSCAN_OP_MAX, 0},
        {CLSCAN_INT64, CLSCAN_OP_OR, 1},    {CLSCAN_UINT64, CLSCAN_OP_MUL, 0},
        {CLSCAN_UINT64, CLSCAN_OP_MIN, 1},  {CLSCAN_FLOAT, CLSCAN_OP_ADD, 1},
        {CLSCAN_FLOAT, CLSCAN_OP_MUL, 0},   {CLSCAN_FLOAT, CLSCAN_OP_MAX, 4},
        {CLSCAN_DOUBLE, CLSCAN_OP_MIN, 0},  {CLSCAN_DOUBLE, CLSCAN_OP_ADD, 2}};
    static const size_t sizes[] = {1, 7, 8, 9, 63, 1000, 70001};
    static const clscan_type key_types[] = {CLSCAN_INT32, CLSCAN_UINT64, CLSCAN_FLOAT, CLSCAN_DOUBLE};
    const uint64_t seed = clscan_test_seed(20261128u);
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    const int fp64 = gd->ctx->target.profile.fp64;
    for (size_t pi = 0; pi < sizeof pairs / sizeof *pairs; ++pi) {
        const int sk = pairs[pi].sk; /* 0: flags; 1-4: keys of key_types[sk - 1] */
        const clscan_type kt = sk ? key_types[sk - 1] : CLSCAN_INT32;
        if ((pairs[pi].t == CLSCAN_DOUBLE || kt == CLSCAN_DOUBLE) && !fp64) continue;
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= cap; ++z)
            segmented_case(pairs[pi].t, pairs[pi].op, sk, kt, sizes[z], seed);
    }
}

START_TEST(test_segmented_builtins)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        segmented_builtins();
    }
}
END_TEST

/* A second context on gd's device with the look-back test mode `mode` (CLSCAN_LOOKBACK_TEST). */
static clscan_context *test_context(clscan_lookback_test mode)
{
    clscan_context_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.lookback_test = mode;
    clscan_context *ctx = NULL;
    ck_assert_msg(clscan_context_create_with_options(gd->cl_ctx, gd->dev, &o, &ctx) == CLSCAN_SUCCESS,
                  "%s: a context with look-back test mode %d: %s", gd->name, (int)mode,
                  clscan_context_last_error(NULL));
    return ctx;
}

/* One general scan of n elements from src (and seg, where d has segments) into dst under ctx, read into out. */
static void scan_read(clscan_context *ctx, const clscan_scan_desc *d, cl_mem src, cl_mem seg,
                      cl_mem dst, size_t n, float *out)
{
    ck_assert_msg(clscan_scan(ctx, gd->queue, d, 1, src, 0, d->segments ? seg : NULL, 0, dst, 0,
                              n, 0, NULL, NULL) ==
                      CLSCAN_SUCCESS,
                  "%s", clscan_context_last_error(ctx));
    ck_assert_int_eq(clEnqueueReadBuffer(gd->queue, dst, CL_TRUE, 0, n * 4, out, 0, NULL, NULL),
                     CL_SUCCESS);
}

/* A float operator whose result depends on the order of combination (a sum of floats of
 * widely varied magnitude, with segments and without): two runs give the same bits, and
 * so do contexts whose look-back is delayed or silent (CLSCAN_LOOKBACK_TEST), where tiles
 * find their predecessors ready in other orders and successors reduce silent tiles
 * themselves. (The combination is fixed by the tiles, not by the timing: a look-back that
 * folded totals as it found them failed this on the GPU.) CLSCAN_TEST_REPRO_N sets n (a
 * GPU's many tiles in flight), else 300007, either under CLSCAN_TEST_MAX_SIZE. */
static void reproducible(void)
{
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE"), *n_text = getenv("CLSCAN_TEST_REPRO_N");
    size_t n = n_text && *n_text ? (size_t)strtoull(n_text, NULL, 0) : 300007;
    if (cap_text && *cap_text && (size_t)strtoull(cap_text, NULL, 0) < n)
        n = (size_t)strtoull(cap_text, NULL, 0);
    const uint32_t seed = clscan_test_seed(20261124u);
    clscan_verify_rng rng = {seed};
    float *in = malloc(n * 4), *a = malloc(n * 4), *b = malloc(n * 4);
    unsigned char *flags = calloc(n, 1);
    ck_assert(in && a && b && flags);
    for (size_t i = 0; i < n; ++i) { /* sign, mantissa in [1, 2), exponent in [-20, 20) */
        const float m = 1.0f + (float)clscan_verify_gen_below(&rng, 1u << 20) / 1048576.0f;
        const int e = (int)clscan_verify_gen_below(&rng, 40) - 20;
        in[i] = (clscan_verify_gen_below(&rng, 2) ? -1.0f : 1.0f) * ldexpf(m, e);
        flags[i] = clscan_verify_gen_below(&rng, 5000) == 0;
    }
    cl_mem src = clscan_test_buffer(gd, n * 4, in), seg = clscan_test_buffer(gd, n, flags),
           dst = clscan_test_buffer(gd, n * 4, NULL);
    const clscan_lookback_test modes[] = {CLSCAN_LOOKBACK_TEST_DELAY, CLSCAN_LOOKBACK_TEST_SILENT};
    const char *mode_names[] = {"delayed", "silent"};
    clscan_context *other[2];
    for (int m = 0; m < 2; ++m) other[m] = test_context(modes[m]);
    for (int sg = 0; sg < 2; ++sg) {
        clscan_scan_desc d = {0};
        d.type = CLSCAN_FLOAT;
        d.combine = "a + b";
        d.identity = "0.0f";
        d.segments = sg ? CLSCAN_SEGMENTS_FLAGS : CLSCAN_SEGMENTS_NONE;
        const char *what = sg ? "segmented float sum" : "float sum";
        scan_read(gd->ctx, &d, src, seg, dst, n, a);
        scan_read(gd->ctx, &d, src, seg, dst, n, b);
        ck_assert_msg(memcmp(a, b, n * 4) == 0, "%s, n %zu, seed %u: two runs of a %s differ in "
                      "their bits", gd->name, n, seed, what);
        for (int m = 0; m < 2; ++m) {
            scan_read(other[m], &d, src, seg, dst, n, b);
            size_t i = 0;
            while (i < n && memcmp(a + i, b + i, 4) == 0) ++i;
            ck_assert_msg(i == n, "%s, n %zu, seed %u: a %s differs in its bits under a %s "
                          "look-back, first at element %zu (%a, %a)", gd->name, n, seed, what,
                          mode_names[m], i, (double)a[i < n ? i : 0], (double)b[i < n ? i : 0]);
        }
    }
    for (int m = 0; m < 2; ++m) clscan_context_release(other[m]);
    clReleaseMemObject(src);
    clReleaseMemObject(seg);
    clReleaseMemObject(dst);
    free(in);
    free(a);
    free(b);
    free(flags);
}

START_TEST(test_reproducible)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        reproducible();
    }
}
END_TEST

/* Whether the device's general kernels may walk the look-back by sub-group 0 (native
 * sub-groups, single-pass groups of several work-items); the kernels decide the rest. */
static int walks_by_subgroup(void)
{
    const clscan__profile *p = &gd->ctx->target.profile;
    return p->sg_impl != CLSCAN__SG_LOCAL && p->sp_wg_size >= 8 &&
           p->scan_algo == CLSCAN__SCAN_SINGLE_PASS;
}

/* Sub-group 0's ordered walk, in blocks (cl/clscan_lookback.cl, clscan_lb_blocked_prefix):
 * the table's general cases against the host at sizes from one element to hundreds of
 * tiles, inclusive and exclusive, in contexts whose look-back is plain, delayed or silent;
 * then the float sums of reproducible, the same bits in all three. Only where sub-group 0
 * walks (on the stacks here, Intel's runtime in groups of several work-items:
 * tools/dev.sh's Intel stage; the H200 in its default tuning). */
START_TEST(test_lookback_blocks)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        if (!walks_by_subgroup()) continue;
        const clscan_lookback_test modes[] = {CLSCAN_LOOKBACK_TEST_OFF, CLSCAN_LOOKBACK_TEST_DELAY,
                                              CLSCAN_LOOKBACK_TEST_SILENT};
        const clscan__profile *p = &gd->ctx->target.profile;
        const size_t tile = p->sp_wg_size * p->sp_items;
        const size_t sizes[] = {1, tile - 1, 37 * tile + 5, 300 * tile + 11};
        const uint64_t seed = clscan_test_seed(20261130u);
        for (int m = 0; m < 3; ++m) {
            clscan_context *ctx = test_context(modes[m]);
            for (int k = 0; k < CLSCAN_VERIFY_GEN_CASES; ++k) {
                const clscan_verify_gen_case c = clscan_verify_gen_case_get(k);
                for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si) {
                    for (int incl = 0; incl < 2; ++incl) {
                        char msg[512];
                        const clscan_verify_result r = clscan_verify_run_general(
                            ctx, gd->cl_ctx, gd->queue, &c, sizes[si], incl, 0, seed + si, msg,
                            sizeof msg);
                        ck_assert_msg(r == CLSCAN_VERIFY_PASS || (r == CLSCAN_VERIFY_SKIP && !p->fp64),
                                      "%s, look-back mode %d, case %d "
                                      "(%s), n %zu, %s, seed %" PRIu64 ": %s", gd->name, m, k,
                                      c.name, sizes[si], incl ? "inclusive" : "exclusive",
                                      seed + si, msg);
                    }
                }
            }
            clscan_context_release(ctx);
        }
        reproducible();
    }
}
END_TEST

/* Operators declared exact (CLSCAN_COMBINE_EXACT in the source): the look-back combines
 * totals as it finds them, the order of operands kept. The table's non-commutative 2x2
 * matrix product, alone and segmented by keys, so declared, against the host at edge
 * sizes up to hundreds of tiles, inclusive and exclusive, in contexts whose look-back is
 * plain, delayed or silent (the fallbacks then compute predecessors' totals). A walk that
 * swapped two totals would give another product (the matrices' determinants are odd, so
 * no prefix product collapses to 0). Where the profile's scan is multi-level (no
 * look-back) it checks nothing and says so; $CLSCAN_TEST_SKIP_CASE and ONLY_CASE
 * apply to the two cases. */
START_TEST(test_exact_operator)
{
    static const int cases[] = {1, 7}; /* the matrix product, then by keys */
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        const clscan_lookback_test modes[] = {CLSCAN_LOOKBACK_TEST_OFF, CLSCAN_LOOKBACK_TEST_DELAY,
                                              CLSCAN_LOOKBACK_TEST_SILENT};
        const clscan__profile *p = &gd->ctx->target.profile;
        if (p->scan_algo != CLSCAN__SCAN_SINGLE_PASS) {
            fprintf(stderr, "%s: exact operators not checked: the scans are multi-level\n",
                    gd->name);
            continue;
        }
        const size_t tile = p->sp_wg_size * p->sp_items;
        const size_t sizes[] = {0, 1, 2, 129, tile - 1, tile + 1, 37 * tile + 5, 300 * tile + 11};
        const uint64_t seed = clscan_test_seed(20261202u);
        for (int m = 0; m < 3; ++m) {
            clscan_context *ctx = test_context(modes[m]);
            for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ++ci) {
                if (case_skipped(cases[ci])) continue;
                const clscan_verify_gen_case c = clscan_verify_gen_case_exact(cases[ci]);
                ck_assert_ptr_nonnull(strstr(c.desc.source, "CLSCAN_COMBINE_EXACT"));
                for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si)
                    for (int incl = 0; incl < 2 && sizes[si] <= cap; ++incl) {
                        char msg[512];
                        const clscan_verify_result r = clscan_verify_run_general(
                            ctx, gd->cl_ctx, gd->queue, &c, sizes[si], incl, 0, seed + si, msg,
                            sizeof msg);
                        ck_assert_msg(r == CLSCAN_VERIFY_PASS,
                                      "%s, look-back mode %d, %s declared exact, n %zu, %s, "
                                      "seed %" PRIu64 ": %s",
                                      gd->name, m, c.name, sizes[si],
                                      incl ? "inclusive" : "exclusive", seed + si, msg);
                    }
            }
            clscan_context_release(ctx);
        }
    }
}
END_TEST

/* Calls clscan_scan expecting `status`, a message containing `text`, *event untouched and
 * no command enqueued (the library's trace of the calling thread stays empty). */
static void expect_error(const clscan_scan_desc *d, cl_mem src, size_t src_off, cl_mem seg,
                         cl_mem dst, size_t dst_off, size_t n, clscan_status status,
                         const char *text)
{
    cl_event ev = (cl_event)(uintptr_t)0x1;
    cl_event trace[4];
    size_t traced = 0;
    clscan__trace_events(trace, 4, &traced);
    clscan_status s =
        clscan_scan(gd->ctx, gd->queue, d, 0, src, src_off, seg, 0, dst, dst_off, n, 0, NULL, &ev);
    clscan__trace_events(NULL, 0, NULL);
    for (size_t i = 0; i < traced; ++i) clReleaseEvent(trace[i]);
    ck_assert_msg(traced == 0, "a failed call (%s) enqueued %zu kernels", text, traced);
    const char *msg = clscan_context_last_error(gd->ctx);
    ck_assert_msg(s == status, "expected %s (%s), got %s: %s", clscan_status_string(status),
                  text, clscan_status_string(s), msg);
    ck_assert_msg(strstr(msg, text) != NULL, "message \"%s\" does not mention \"%s\"", msg, text);
    ck_assert_msg(ev == (cl_event)(uintptr_t)0x1, "a failed call touched *event");
}

static void invalid(void)
{
    cl_mem a = clscan_test_buffer(gd, 4096, NULL), b = clscan_test_buffer(gd, 4096, NULL);
    cl_mem f = clscan_test_buffer(gd, 64, NULL);
    clscan_scan_desc ok = {0};
    ok.type = CLSCAN_INT32;
    ok.combine = "a + b";
    ok.identity = "0";
    clscan_scan_desc d;

    expect_error(NULL, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc is NULL");
    ck_assert_int_eq(clscan_scan(NULL, gd->queue, &ok, 0, a, 0, NULL, 0, b, 0, 10, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clscan_scan(gd->ctx, NULL, &ok, 0, a, 0, NULL, 0, b, 0, 10, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    expect_error(&ok, NULL, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "src is NULL");
    expect_error(&ok, a, 0, NULL, NULL, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "dst is NULL");
    expect_error(&ok, a, 1000, NULL, b, 0, 100, CLSCAN_ERROR_INVALID_ARGUMENT, "src: elements");
    expect_error(&ok, a, 0, NULL, b, 0, SIZE_MAX, CLSCAN_ERROR_INVALID_ARGUMENT, "overflows");
    expect_error(&ok, a, 0, NULL, a, 4, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "overlap");

    d = ok;
    d.identity = NULL;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "desc->combine is given without desc->identity");
    d = ok;
    d.combine = " \n";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc->combine is empty");
    d = ok;
    d.type = (clscan_type)17;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc->type 17");
    d = ok;
    d.combine = d.identity = NULL;
    d.type = CLSCAN_FLOAT;
    d.op = CLSCAN_OP_XOR;
    d.transform = "x";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_UNSUPPORTED, "xor");
    d = ok;
    d.type_name = "mat2u";
    d.type_size = 6;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "multiple of 4");
    d.type_size = 16;
    d.type_name = "a_type_name_that_goes_on_and_on_far_past_the_sixty_four_characters_allowed";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "longer than 64 characters");
    d.type_name = "mat2u";
    d.combine = d.identity = NULL;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "needs desc->combine");
    d = ok;
    d.transform = "x";
    d.input_type_name = "mystruct";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "input_type_size");
    d = ok;
    d.input_type_name = "float";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "without desc->transform");
    d = ok;
    d.segments = (clscan_segments)5;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc->segments 5");
    d.segments = CLSCAN_SEGMENTS_KEYS;
    d.key_type = (clscan_type)-1;
    expect_error(&d, a, 0, f, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc->key_type -1");
    d.segments = CLSCAN_SEGMENTS_FLAGS;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "segments is NULL");
    expect_error(&d, a, 0, f, b, 0, 100, CLSCAN_ERROR_INVALID_ARGUMENT, "segments: elements");
    expect_error(&d, a, 0, b, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "overlap");
    expect_error(&ok, a, 0, f, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "desc->segments is CLSCAN_SEGMENTS_NONE");
    if (!gd->fp64) {
        d = ok;
        d.type = CLSCAN_DOUBLE;
        expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_UNSUPPORTED, "fp64");
    }
    /* Texts that do not compile, and a host size that is not the device's. */
    d = ok;
    d.combine = "a +* b";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED, "--- build log ---");
    /* The compiler's log names the text the error is in (#line "combine"), or quotes it
     * (Oclgrind's ignores #line). */
    const char *log = strstr(clscan_context_last_error(gd->ctx), "--- build log ---");
    ck_assert_msg(log && (strstr(log, "combine") || strstr(log, "a +* b")),
                  "the build log names neither combine nor its text: %s",
                  clscan_context_last_error(gd->ctx));
    d = ok;
    d.transform = "undefined_function(x)";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED, "undefined_function");
    d = clscan_verify_gen_case_get(1).desc;
    d.type_size = 32;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED,
                 "clscan_type_size_differs_from_device_sizeof");
    /* ... also where the source redefines sizeof (or typedef, char) to pass the check. */
    d = clscan_verify_gen_case_get(1).desc;
    char src_text[2048];
    snprintf(src_text, sizeof src_text, "%s\n#define sizeof(x) %zu\n#define typedef\n", d.source,
             d.type_size + 16);
    d.source = src_text;
    d.type_size += 16;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED,
                 "clscan_type_size_differs_from_device_sizeof");

    /* After the failures the context still scans: the good description, on 10 ones. */
    const cl_int ones[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    cl_int got[10];
    cl_mem src = clscan_test_buffer(gd, sizeof ones, ones);
    cl_event ev;
    ck_assert_int_eq(clscan_scan(gd->ctx, gd->queue, &ok, 1, src, 0, NULL, 0, b, 0, 10, 0, NULL,
                                 &ev),
                     CLSCAN_SUCCESS);
    clscan_test_wait_release(ev, "clscan_scan");
    clscan_test_read(gd, b, sizeof got, got);
    for (int i = 0; i < 10; ++i) ck_assert_int_eq(got[i], i + 1);
    clReleaseMemObject(src);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(f);
}

/* Compensated sums: 2^24 floats of magnitudes 1e-3 to 1e3 (log-uniform), 35% of them
 * negative, whose exact prefix sums a plain float scan drifts from by many ulps while the
 * compensated scan stays within 4 ulps of each; then the same values as doubles,
 * compensated. (Under $CLSCAN_TEST_MAX_SIZE the drift is not asserted.) */
static double ulps(long double got, long double exact, int is_float)
{
    const long double u = is_float ? (long double)FLT_EPSILON : (long double)DBL_EPSILON;
    long double scale = fabsl(exact);
    return (double)(fabsl(got - exact) / (scale * u > 0 ? scale * u : u));
}

static double max_ulps(const clscan_scan_desc *d, const void *in, size_t n, const long double *exact)
{
    const int is_float = d->type == CLSCAN_FLOAT;
    const size_t es = is_float ? 4 : 8;
    cl_mem src = clscan_test_buffer(gd, n * es, in), dst = clscan_test_buffer(gd, n * es, NULL);
    cl_event ev = NULL;
    const clscan_status st =
        clscan_scan(gd->ctx, gd->queue, d, 1, src, 0, NULL, 0, dst, 0, n, 0, NULL, &ev);
    ck_assert_msg(st == CLSCAN_SUCCESS, "%s: compensated: %s: %s", gd->name,
                  clscan_status_string(st), clscan_context_last_error(gd->ctx));
    clscan_test_wait_release(ev, "compensated scan");
    void *out = malloc(n * es);
    ck_assert_ptr_nonnull(out);
    clscan_test_read(gd, dst, n * es, out);
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
        const long double y = is_float ? ((float *)out)[i] : ((double *)out)[i];
        const double e = ulps(y, exact[i], is_float);
        if (e > worst) worst = e;
    }
    free(out);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    return worst;
}

START_TEST(test_compensated)
{
    /* $CLSCAN_TEST_SKIP_COMPENSATED: not in the one shape Oclgrind 21.10 cannot create
     * an unsegmented struct scan's kernel in (docs/IMPLEMENTATION-ISSUES.md). */
    const char *skip = getenv("CLSCAN_TEST_SKIP_COMPENSATED");
    if (skip && *skip && strcmp(skip, "0") != 0) {
        fprintf(stderr, "compensated sums skipped (CLSCAN_TEST_SKIP_COMPENSATED)\n");
        return;
    }
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    const size_t n = cap < ((size_t)1 << 24) ? cap : (size_t)1 << 24;
    clscan_verify_rng rng = {clscan_test_seed(20261126u)};
    float *xf = malloc(n * sizeof *xf);
    double *xd = malloc(n * sizeof *xd);
    long double *ef = malloc(n * sizeof *ef), *ed = malloc(n * sizeof *ed);
    ck_assert(xf && xd && ef && ed);
    /* The exact sums: every float here is a multiple of 2^-33 below 2^10 in magnitude, so
     * the prefix sums are integers (times 2^-33) that a 128-bit integer holds exactly; their long
     * double values are within 2^-64 relative, far below a double's ulp. The doubles are
     * the same values. */
    __int128 k = 0;
    for (size_t i = 0; i < n; ++i) {
        const double mag = pow(10.0, -3.0 + 6.0 * (double)(clscan_verify_rng_next(&rng) >> 11) *
                                                0x1p-53);
        const int negative = clscan_verify_rng_next(&rng) % 20 < 7; /* 35%: sum |x| ~ 3.3 |sum x| */
        xf[i] = negative ? -(float)mag : (float)mag;
        xd[i] = xf[i];
        k += (__int128)ldexpl((long double)xf[i], 33);
        ef[i] = ed[i] = ldexpl((long double)k, -33);
    }
    for (int di = 0; di < clscan_test_ndevs; ++di) {
        gd = &clscan_test_devs[di];
        clscan_scan_desc d = {0};
        d.type = CLSCAN_FLOAT;
        d.op = CLSCAN_OP_ADD;
        d.combine = "a + b"; /* (the plain sum as a general scan, as the compensated one is) */
        d.identity = "0.0f";
        const double plain = max_ulps(&d, xf, n, ef);
        memset(&d, 0, sizeof d);
        d.type = CLSCAN_FLOAT;
        d.op = CLSCAN_OP_ADD;
        d.compensated = 1;
        const double comp = max_ulps(&d, xf, n, ef);
        fprintf(stderr, "%s: %zu floats: plain sum off by up to %.1f ulps, compensated %.2f\n",
                gd->name, n, plain, comp);
        ck_assert_msg(comp <= 4, "%s: compensated float sum off by %.2f ulps", gd->name, comp);
        if (n == (size_t)1 << 24)
            ck_assert_msg(plain > 16, "%s: the plain float sum was off by only %.1f ulps: the "
                          "data no longer shows the drift", gd->name, plain);
        if (!gd->fp64) continue;
        d.type = CLSCAN_DOUBLE;
        const double compd = max_ulps(&d, xd, n, ed);
        fprintf(stderr, "%s: %zu doubles: compensated %.2f ulps\n", gd->name, n, compd);
        ck_assert_msg(compd <= 4, "%s: compensated double sum off by %.2f ulps", gd->name, compd);
    }
    free(xf);
    free(xd);
    free(ef);
    free(ed);
}
END_TEST

START_TEST(test_invalid)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        invalid();
    }
}
END_TEST

/* The context keeps what a description's checks and prelude gave under the exact bytes
 * of its fields (algo/general.c, the memo): a description changed in place, behind the
 * same pointers, must be checked and built again. One struct and writable texts: an
 * operator edited in place, then its segments, a blank text (refused, then fixed), more
 * descriptions than the memo holds, long sources (a prelude longer than a call's stack
 * copy, a key longer than the memo keeps), and index_base (a kernel argument, not in the
 * key), each against a host loop on random inputs. */
static void memo_case(const clscan_scan_desc *d, const cl_int *in, const unsigned char *flags,
                      cl_mem src, cl_mem seg, cl_mem dst, size_t n, int op_xor, int add_index,
                      const char *what)
{
    cl_int *got = malloc(n * 4);
    ck_assert(got != NULL);
    ck_assert_msg(clscan_scan(gd->ctx, gd->queue, d, 1, src, 0,
                              d->segments == CLSCAN_SEGMENTS_NONE ? NULL : seg, 0, dst, 0, n,
                              0, NULL, NULL) == CLSCAN_SUCCESS,
                  "%s: %s: %s", gd->name, what, clscan_context_last_error(gd->ctx));
    ck_assert_int_eq(clEnqueueReadBuffer(gd->queue, dst, CL_TRUE, 0, n * 4, got, 0, NULL, NULL),
                     CL_SUCCESS);
    cl_uint acc = 0;
    for (size_t i = 0; i < n; ++i) {
        if (d->segments != CLSCAN_SEGMENTS_NONE && flags[i]) acc = 0;
        const cl_uint x = (cl_uint)in[i] + (add_index ? (cl_uint)(d->index_base + i) : 0u);
        acc = op_xor ? acc ^ x : acc + x;
        ck_assert_msg(got[i] == (cl_int)acc, "%s: %s: element %zu is %d, expected %d",
                      gd->name, what, i, got[i], (cl_int)acc);
    }
    free(got);
}

static void memo(void)
{
    /* (Several tiles; $CLSCAN_TEST_MAX_SIZE caps it, for runs under Oclgrind.) */
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    const size_t n = cap < 1 ? 1 : cap < 20011 ? cap : 20011;
    const uint64_t seed = clscan_test_seed(20261128u);
    fprintf(stderr, "%s: memo: seed %llu\n", gd->name, (unsigned long long)seed);
    clscan_verify_rng rng = {seed};
    cl_int *in = malloc(n * 4);
    unsigned char *flags = calloc(n, 1);
    ck_assert(in && flags);
    for (size_t i = 0; i < n; ++i) {
        in[i] = (cl_int)clscan_verify_gen_below(&rng, 1u << 20);
        flags[i] = clscan_verify_gen_below(&rng, 50) == 0;
    }
    cl_mem src = clscan_test_buffer(gd, n * 4, in), seg = clscan_test_buffer(gd, n, flags),
           dst = clscan_test_buffer(gd, n * 4, NULL);
    char combine[16] = "a + b", identity[8] = "0", transform[24] = "x";
    clscan_scan_desc d = {0};
    d.type = CLSCAN_INT32;
    d.combine = combine;
    d.identity = identity;
    memo_case(&d, in, flags, src, seg, dst, n, 0, 0, "a + b");
    strcpy(combine, "a ^ b"); /* (same pointer, same length) */
    memo_case(&d, in, flags, src, seg, dst, n, 1, 0, "a ^ b edited in place");
    d.segments = CLSCAN_SEGMENTS_FLAGS;
    memo_case(&d, in, flags, src, seg, dst, n, 1, 0, "a ^ b by flags");
    strcpy(combine, "   ");
    ck_assert_int_eq(clscan_scan(gd->ctx, gd->queue, &d, 1, src, 0, seg, 0, dst, 0, n, 0, NULL,
                                 NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(clscan_context_last_error(gd->ctx), "desc->combine is empty") != NULL);
    strcpy(combine, "a + b");
    memo_case(&d, in, flags, src, seg, dst, n, 0, 0, "a + b by flags after a blank operator");
    /* More descriptions than the memo keeps, then the first again. */
    d.segments = CLSCAN_SEGMENTS_NONE;
    d.transform = transform;
    d.input_type_name = "int";
    for (int k = 0; k < 20; ++k) {
        snprintf(transform, sizeof transform, "x + %d * 0", k);
        memo_case(&d, in, flags, src, seg, dst, n, 0, 0, transform);
    }
    /* Sources whose prelude outgrows the copy a call makes on its stack, and whose key
     * outgrows the memo's (not kept): each twice. */
    for (size_t len = 3500; len <= 9000; len += 5500) {
        char *source = malloc(len + 1);
        ck_assert(source != NULL);
        memset(source, ' ', len);
        memcpy(source, "/*", 2);
        memcpy(source + len - 2, "*/", 2);
        source[len] = '\0';
        d.source = source;
        for (int k = 0; k < 2; ++k)
            memo_case(&d, in, flags, src, seg, dst, n, 0, 0, "a long source");
        d.source = NULL;
        free(source);
    }
    strcpy(transform, "x + (int)i");
    memo_case(&d, in, flags, src, seg, dst, n, 0, 1, "x + i, index_base 0");
    d.index_base = 1000003;
    memo_case(&d, in, flags, src, seg, dst, n, 0, 1, "x + i, index_base 1000003");
    clReleaseMemObject(src);
    clReleaseMemObject(seg);
    clReleaseMemObject(dst);
    free(in);
    free(flags);
}

START_TEST(test_memo)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        memo();
    }
}
END_TEST

/* A user's 16-byte struct scanned between buffers made with CL_MEM_USE_HOST_PTR over host
 * memory 4 bytes off any 16-byte boundary. PoCL runs kernels on such a pointer as given,
 * so src and dst must not be read or written as 16-byte vectors (which the scan's own
 * values are, through an aligned alias: src/algo/general.c; a form that aliased src and
 * dst too faulted here). Checked against a host reference, with the memory past the range
 * untouched. */
static void host_ptr(void)
{
    /* The table's matrix case (tools/verify_general.c), unsegmented: its description,
     * inputs and host reference. */
    const clscan_verify_gen_case c = clscan_verify_gen_case_get(1);
    ck_assert(c.desc.type_name && c.out_size == 16 && c.in_size == 16 &&
              c.desc.segments == CLSCAN_SEGMENTS_NONE);
    /* (3001 elements, fewer under $CLSCAN_TEST_MAX_SIZE: Oclgrind runs.) */
    enum { PAD = 8 };
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    const size_t N = cap < 3001 ? cap + 1 : 3001;
    unsigned char *in_raw = malloc(16 * (N + 2 * PAD) + 16);
    unsigned char *out_raw = malloc(16 * (N + 2 * PAD) + 16);
    unsigned char *again = malloc(16 * (N + PAD)), *want = malloc(16 * N);
    ck_assert(in_raw && out_raw && again && want);
    /* 4 bytes past a 16-byte boundary. */
    unsigned char *in = in_raw + (16 - (uintptr_t)in_raw % 16) % 16 + 4;
    unsigned char *out = out_raw + (16 - (uintptr_t)out_raw % 16) % 16 + 4;
    const uint64_t seed = clscan_test_seed(20261130u);
    clscan_verify_rng rng = {seed};
    c.fill(in, N, &rng);
    memset(out, 0xab, 16 * (N + PAD));
    /* dst[1, N) gets the inclusive scan of src[0, N - 1). */
    clscan_verify_gen_reference(&c, 1, in, NULL, N - 1, want);
    cl_int err;
    cl_mem src = clCreateBuffer(gd->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 16 * N, in, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem dst = clCreateBuffer(gd->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 16 * (N + PAD),
                                out, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    /* The same bytes once more through the API, into the same host memory: Oclgrind
     * 21.10 takes a host pointer's contents as uninitialised (docs/IMPLEMENTATION-
     * ISSUES.md) but counts a write at offset 0. */
    memcpy(again, in, 16 * N);
    ck_assert_int_eq(clEnqueueWriteBuffer(gd->queue, src, CL_TRUE, 0, 16 * N, again, 0, NULL, NULL),
                     CL_SUCCESS);
    memcpy(again, out, 16 * (N + PAD));
    ck_assert_int_eq(clEnqueueWriteBuffer(gd->queue, dst, CL_TRUE, 0, 16 * (N + PAD), again, 0, NULL,
                                          NULL),
                     CL_SUCCESS);
    ck_assert_msg(clscan_scan(gd->ctx, gd->queue, &c.desc, 1, src, 0, NULL, 0, dst, 1, N - 1, 0,
                              NULL, NULL) == CLSCAN_SUCCESS,
                  "%s", clscan_context_last_error(gd->ctx));
    const unsigned char *got = clEnqueueMapBuffer(gd->queue, dst, CL_TRUE, CL_MAP_READ, 0,
                                                  16 * (N + PAD), 0, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    for (size_t i = 0; i < N + PAD; ++i) {
        if (i == 0 || i >= N) { /* outside dst's range [1, N) */
            for (int b = 0; b < 16; ++b)
                ck_assert_msg(got[16 * i + b] == 0xab, "%s: seed %" PRIu64 ": element %zu written",
                              gd->name, seed, i);
        } else {
            ck_assert_msg(memcmp(got + 16 * i, want + 16 * (i - 1), 16) == 0,
                          "%s: seed %" PRIu64 ": element %zu differs", gd->name, seed, i);
        }
    }
    clEnqueueUnmapMemObject(gd->queue, dst, (void *)got, 0, NULL, NULL);
    clFinish(gd->queue);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(in_raw);
    free(out_raw);
    free(again);
    free(want);
}

START_TEST(test_host_ptr)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        host_ptr();
    }
}
END_TEST

/* The segmented scans' vector path with its outputs streamed (one work-item groups:
 * the CPUs; cl/clscan_general_tile.cl, clscan_gen_vec_local_streamed): a context told
 * its cache holds 4 KiB, so that every call here streams, over host memory aligned to a
 * page (CL_MEM_USE_HOST_PTR: the CPU runtimes take it as it is, so dst's vectors are
 * aligned as the streaming stores need), from dst offsets 0 (aligned) and 1 (not: the
 * ordinary stores), against the host loop as segmented_case checks it. */
static void segmented_streamed(void)
{
    static const struct { clscan_type t; clscan_op op; int sk; } pairs[] = {
        {CLSCAN_INT32, CLSCAN_OP_ADD, 0}, {CLSCAN_INT32, CLSCAN_OP_ADD, 1},
        {CLSCAN_UINT64, CLSCAN_OP_MAX, 2}, {CLSCAN_FLOAT, CLSCAN_OP_ADD, 1}};
    static const size_t sizes[] = {600, 1000, 70001}; /* (600: Oclgrind's runs, up to 700) */
    const uint64_t seed = clscan_test_seed(20261130u);
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    /* (Only where the general scans take that path: one work-item groups of the
     * single-pass scan. Elsewhere the same calls are segmented_builtins' again.) */
    const clscan__profile *p = &gd->ctx->target.profile;
    if (p->scan_algo != CLSCAN__SCAN_SINGLE_PASS || p->sp_wg_size != 1) {
        printf("%s: streamed segmented scans skipped (the single-pass scan in groups of one "
               "work-item only)\n", gd->name);
        return;
    }
    clscan_context_options o = {.struct_size = sizeof o, .global_mem_cache_size = 4096};
    clscan_context *ctx = NULL;
    ck_assert_msg(clscan_context_create_with_options(gd->cl_ctx, gd->dev, &o, &ctx) ==
                      CLSCAN_SUCCESS,
                  "%s: %s", gd->name, clscan_context_last_error(NULL));
    for (size_t pi = 0; pi < sizeof pairs / sizeof *pairs; ++pi) {
        const clscan_type t = pairs[pi].t, kt = pairs[pi].sk == 2 ? CLSCAN_UINT64 : CLSCAN_INT32;
        const size_t e = clscan_type_size(t), ke = pairs[pi].sk ? clscan_type_size(kt) : 1;
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= cap; ++z) {
            const size_t n = sizes[z], page = 4096;
            const size_t xb = (n * e + page) / page * page, sb = (n * ke + page) / page * page;
            clscan_verify_rng rng = {clscan_verify_mix(seed, pi << 32 | n)};
            unsigned char *x = aligned_alloc(page, xb), *seg = aligned_alloc(page, sb);
            unsigned char *out = aligned_alloc(page, xb + page), *head = malloc(n);
            unsigned char *want = malloc(n * e), *got = malloc(n * e), id[8];
            unsigned char *again = malloc(xb > sb ? xb : sb);
            ck_assert(x && seg && out && head && want && got && again);
            memset(x, 0, xb);
            memset(seg, 0, sb);
            for (size_t i = 0; i < n; ++i) {
                /* (Small values: a float sum stays exact, whatever its order.) */
                const uint64_t v = clscan_verify_gen_below(&rng, 64);
                const cl_int vi = (cl_int)v;
                const cl_float vf = (cl_float)v;
                memcpy(x + i * e, t == CLSCAN_FLOAT ? (const void *)&vf
                                  : e == 8 ? (const void *)&v : (const void *)&vi, e);
                const int starts = clscan_verify_gen_below(&rng, 6) == 0;
                if (!pairs[pi].sk) {
                    seg[i] = (unsigned char)starts;
                    head[i] = i == 0 || starts;
                } else { /* (keys counting up: little-endian bytes of a small number) */
                    uint64_t k = 0;
                    if (i > 0) memcpy(&k, seg + (i - 1) * ke, ke);
                    if (starts) k += 1;
                    memcpy(seg + i * ke, &k, ke);
                    head[i] = i == 0 || starts;
                }
            }
            seg_identity(t, pairs[pi].op, id);
            clscan_scan_desc d = {0};
            d.type = t;
            d.op = pairs[pi].op;
            d.segments = pairs[pi].sk ? CLSCAN_SEGMENTS_KEYS : CLSCAN_SEGMENTS_FLAGS;
            d.key_type = kt;
            cl_int err;
            cl_mem src = clCreateBuffer(gd->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, xb, x, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
            cl_mem sg = clCreateBuffer(gd->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, sb, seg, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
            cl_mem dst = clCreateBuffer(gd->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, xb + page,
                                        out, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
            /* The same bytes once more through the API: Oclgrind 21.10 takes a host
             * pointer's contents as uninitialised (docs/IMPLEMENTATION-ISSUES.md). */
            memcpy(again, x, xb);
            ck_assert_int_eq(clEnqueueWriteBuffer(gd->queue, src, CL_TRUE, 0, xb, again, 0, NULL, NULL),
                             CL_SUCCESS);
            memcpy(again, seg, sb);
            ck_assert_int_eq(clEnqueueWriteBuffer(gd->queue, sg, CL_TRUE, 0, sb, again, 0, NULL, NULL),
                             CL_SUCCESS);
            for (int run = 0; run < 4; ++run) {
                const int incl = run & 1;
                const size_t off = (size_t)run >> 1; /* dst offset 0, then 1 */
                switch (t) {
                case CLSCAN_INT32: { cl_int v; memcpy(&v, id, 4); seg_ref_i32(pairs[pi].op, v, x, head, want, n, incl); break; }
                case CLSCAN_UINT64: { cl_ulong v; memcpy(&v, id, 8); seg_ref_u64(pairs[pi].op, v, x, head, want, n, incl); break; }
                default: { cl_float v; memcpy(&v, id, 4); seg_ref_f32(pairs[pi].op, v, x, head, want, n, incl); break; }
                }
                const clscan_status st =
                    clscan_scan(ctx, gd->queue, &d, incl, src, 0, sg, 0, dst, off, n, 0, NULL, NULL);
                ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s", clscan_status_string(st),
                              clscan_context_last_error(ctx));
                ck_assert_int_eq(clEnqueueReadBuffer(gd->queue, dst, CL_TRUE, off * e, n * e, got, 0,
                                                     NULL, NULL),
                                 CL_SUCCESS);
                for (size_t i = 0; i < n; ++i)
                    ck_assert_msg(memcmp(got + i * e, want + i * e, e) == 0,
                                  "%s: streamed: type %d op %d %s n=%zu %s dst offset %zu: "
                                  "element %zu differs (seed %" PRIu64 ")",
                                  gd->name, t, pairs[pi].op, pairs[pi].sk ? "keys" : "flags", n,
                                  incl ? "inclusive" : "exclusive", off, i, seed);
            }
            clReleaseMemObject(src);
            clReleaseMemObject(sg);
            clReleaseMemObject(dst);
            free(x);
            free(seg);
            free(out);
            free(head);
            free(want);
            free(got);
            free(again);
        }
    }
    clscan_context_release(ctx);
}

START_TEST(test_segmented_streamed)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        segmented_streamed();
    }
}
END_TEST

static Suite *gen_suite(void)
{
    Suite *s = suite_create("general");
    TCase *dev = tcase_create("device");
    tcase_add_checked_fixture(dev, clscan_test_setup, clscan_test_teardown);
    tcase_set_timeout(dev, 850);
    tcase_add_loop_test(dev, test_cases, 0, CLSCAN_VERIFY_GEN_CASES);
    tcase_add_test(dev, test_reproducible);
    tcase_add_test(dev, test_segmented_builtins);
    tcase_add_test(dev, test_compensated);
    tcase_add_test(dev, test_invalid);
    tcase_add_test(dev, test_memo);
    tcase_add_test(dev, test_host_ptr);
    tcase_add_test(dev, test_segmented_streamed);
    suite_add_tcase(s, dev);
    /* (A case of its own, so that tools/dev.sh's Intel stage can run it alone:
     * CK_RUN_CASE=blocks. Exact operators' unordered walk, by sub-group 0 there, with it.) */
    TCase *blocks = tcase_create("blocks");
    tcase_add_checked_fixture(blocks, clscan_test_setup, clscan_test_teardown);
    tcase_set_timeout(blocks, 850);
    tcase_add_test(blocks, test_lookback_blocks);
    tcase_add_test(blocks, test_exact_operator);
    suite_add_tcase(s, blocks);
    return s;
}

int main(void) { return clscan_test_run(gen_suite()); }
