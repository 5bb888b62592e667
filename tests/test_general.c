/* test_general.c - Check suite for clscan_scan (general scans): custom operators on the
 * library's types and on user structs (a non-commutative 2x2 matrix product, a
 * (sum, count) pair), input transforms, segments by flags and by keys, each against a
 * serial host reference on random inputs (seed printed) at edge sizes, with offsets and
 * in place, guard bands around dst; bit-for-bit reproducibility of a float operator; and
 * every argument error with its exact status and message. */
#include "clscan_internal.h"
#include "verify.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the device ---- */

/* The device under test: the first device of the first platform whose name contains
 * $CLSCAN_TEST_PLATFORM (any platform when unset). Opened in each forked test. */
static cl_device_id gen_dev;
static cl_context gen_cl;
static cl_command_queue gen_queue;
static clscan_context *gen_ctx;
static int gen_fp64;

static void gen_setup(void)
{
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[16];
    cl_uint count = 0;
    if (clGetPlatformIDs(16, plats, &count) != CL_SUCCESS) count = 0;
    gen_cl = NULL;
    for (cl_uint p = 0; p < count && p < 16 && !gen_cl; ++p) {
        char name[256] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (want && !strstr(name, want)) continue;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &gen_dev, NULL) != CL_SUCCESS)
            continue;
        cl_int err;
        gen_cl = clCreateContext(NULL, 1, &gen_dev, NULL, NULL, &err);
        ck_assert_msg(gen_cl != NULL, "clCreateContext: %s", clscan_status_string(err));
        fprintf(stderr, "platform %s\n", name);
    }
    ck_assert_msg(gen_cl != NULL, "no OpenCL device found: these tests need one");
    cl_int err;
    gen_queue = clCreateCommandQueue(gen_cl, gen_dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clscan_status s = clscan_context_create(gen_cl, gen_dev, &gen_ctx);
    ck_assert_msg(s == CLSCAN_SUCCESS, "clscan_context_create: %s: %s", clscan_status_string(s),
                  clscan_context_last_error(NULL));
    gen_fp64 = clscan_verify_device_has_fp64(gen_dev);
}

static void gen_teardown(void)
{
    clscan_context_release(gen_ctx);
    clReleaseCommandQueue(gen_queue);
    clReleaseContext(gen_cl);
}

static uint64_t gen_seed(void)
{
    const char *s = getenv("CLSCAN_TEST_SEED");
    const uint64_t seed = s && *s ? strtoull(s, NULL, 0) : 20261124u;
    fprintf(stderr, "seed %" PRIu64 " (set CLSCAN_TEST_SEED to change it)\n", seed);
    return seed;
}

static cl_mem gen_buffer(size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(gen_cl, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 1, (void *)(uintptr_t)init, &err);
    ck_assert_msg(m != NULL, "clCreateBuffer(%zu): %s", bytes, clscan_status_string(err));
    return m;
}

/* ------------------------------------------------------- the test cases ---- */

/* The user types of the cases, as the host lays them out. */
typedef struct { cl_uint a, b, c, d; } mat2u; /* a 2x2 matrix of uints, row-major */
typedef struct { cl_float sum; cl_uint count; } sumcount;

static const char mat2u_source[] =
    "typedef struct { uint a, b, c, d; } mat2u;\n"
    "mat2u mat2u_mul(mat2u x, mat2u y)\n"
    "{\n"
    "    mat2u r;\n"
    "    r.a = x.a * y.a + x.b * y.c;\n"
    "    r.b = x.a * y.b + x.b * y.d;\n"
    "    r.c = x.c * y.a + x.d * y.c;\n"
    "    r.d = x.c * y.b + x.d * y.d;\n"
    "    return r;\n"
    "}\n"
    "mat2u mat2u_one(void) { mat2u r = {1u, 0u, 0u, 1u}; return r; }\n";

static const char sumcount_source[] =
    "typedef struct { float sum; uint count; } sumcount;\n"
    "sumcount sc_make(float x) { sumcount r; r.sum = x; r.count = 1u; return r; }\n"
    "sumcount sc_add(sumcount x, sumcount y)\n"
    "{ sumcount r; r.sum = x.sum + y.sum; r.count = x.count + y.count; return r; }\n"
    "sumcount sc_zero(void) { sumcount r = {0.0f, 0u}; return r; }\n";

/* Host operators: r = a op b (r never aliases a or b). */
typedef void (*host_op)(void *r, const void *a, const void *b);
/* Host transform of input element x at index i into the scan element r. */
typedef void (*host_transform)(void *r, const void *x, size_t i);
/* Fills n input elements. */
typedef void (*host_fill)(void *dst, size_t n, clscan_verify_rng *rng);

static void op_max_float(void *r, const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    *(float *)r = x > y ? x : y;
}
static void op_add_int(void *r, const void *a, const void *b)
{
    *(int32_t *)r = (int32_t)((uint32_t) * (const int32_t *)a + (uint32_t) * (const int32_t *)b);
}
static void op_add_long(void *r, const void *a, const void *b)
{
    *(int64_t *)r = (int64_t)((uint64_t) * (const int64_t *)a + (uint64_t) * (const int64_t *)b);
}
static void op_min_long(void *r, const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    *(int64_t *)r = x < y ? x : y;
}
static void op_mat2u(void *r, const void *a, const void *b)
{
    const mat2u *x = a, *y = b;
    mat2u m = {x->a * y->a + x->b * y->c, x->a * y->b + x->b * y->d,
               x->c * y->a + x->d * y->c, x->c * y->b + x->d * y->d};
    *(mat2u *)r = m;
}
static void op_sumcount(void *r, const void *a, const void *b)
{
    const sumcount *x = a, *y = b;
    sumcount s = {x->sum + y->sum, x->count + y->count};
    *(sumcount *)r = s;
}

static void tr_sumcount(void *r, const void *x, size_t i)
{
    (void)i;
    sumcount s = {*(const float *)x, 1u};
    *(sumcount *)r = s;
}
static void tr_count_above(void *r, const void *x, size_t i)
{
    (void)i;
    *(int32_t *)r = *(const float *)x > 0.5f ? 1 : 0;
}
static void tr_index_weight(void *r, const void *x, size_t i)
{
    *(int64_t *)r = (int64_t)*(const int32_t *)x * (int64_t)(i % 5);
}
static void tr_float_to_int(void *r, const void *x, size_t i)
{
    (void)i;
    *(int32_t *)r = (int32_t)*(const float *)x;
}

static uint32_t rnd(clscan_verify_rng *rng, uint32_t below)
{
    return (uint32_t)(clscan_verify_rng_next(rng) % below);
}
static void fill_float_any(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((float *)dst)[i] = ((float)rnd(rng, 2000001) - 1e6f) / 8.0f;
}
/* Small integers as floats, so that sums are exact in any order. */
static void fill_float_small(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((float *)dst)[i] = (float)rnd(rng, 8);
}
static void fill_float_unit(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((float *)dst)[i] = (float)rnd(rng, 1000) / 1000.0f;
}
static void fill_int_small(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((int32_t *)dst)[i] = (int32_t)rnd(rng, 201) - 100;
}
static void fill_long_any(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((int64_t *)dst)[i] = (int64_t)clscan_verify_rng_next(rng);
}
/* Matrices with small entries (products wrap as uint, on both sides alike). */
static void fill_mat2u(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) {
        mat2u m = {rnd(rng, 4), rnd(rng, 4), rnd(rng, 4), rnd(rng, 4)};
        ((mat2u *)dst)[i] = m;
    }
}

/* One general scan to test: its description, and the host's version of it. */
typedef struct gen_case {
    const char *name;
    clscan_scan_desc desc;
    size_t in_size, out_size;
    host_fill fill;
    host_transform transform; /* NULL: the input is the scan element */
    host_op op;
    unsigned char identity[16];
} gen_case;

static const mat2u mat2u_identity = {1, 0, 0, 1};
static const float float_minus_inf = -INFINITY;
static const int64_t long_max = INT64_MAX;

static gen_case gen_cases(int k)
{
    gen_case c;
    memset(&c, 0, sizeof c);
    clscan_scan_desc *d = &c.desc;
    switch (k) {
    case 0:
        c.name = "float max, custom";
        d->type = CLSCAN_FLOAT;
        d->combine = "a > b ? a : b";
        d->identity = "-INFINITY";
        c.in_size = c.out_size = 4;
        c.fill = fill_float_any;
        c.op = op_max_float;
        memcpy(c.identity, &float_minus_inf, 4);
        break;
    case 1:
        c.name = "2x2 uint matrix product (non-commutative struct)";
        d->type_name = "mat2u";
        d->type_size = sizeof(mat2u);
        d->source = mat2u_source;
        d->combine = "mat2u_mul(a, b)";
        d->identity = "mat2u_one()";
        c.in_size = c.out_size = sizeof(mat2u);
        c.fill = fill_mat2u;
        c.op = op_mat2u;
        memcpy(c.identity, &mat2u_identity, sizeof mat2u_identity);
        break;
    case 2:
        c.name = "(sum, count) struct from a float transform";
        d->type_name = "sumcount";
        d->type_size = sizeof(sumcount);
        d->source = sumcount_source;
        d->combine = "sc_add(a, b)";
        d->identity = "sc_zero()";
        d->transform = "sc_make(x)";
        d->input_type_name = "float";
        c.in_size = 4;
        c.out_size = sizeof(sumcount);
        c.fill = fill_float_small;
        c.transform = tr_sumcount;
        c.op = op_sumcount;
        break;
    case 3:
        c.name = "int32 add of a predicate on floats (transform)";
        d->type = CLSCAN_INT32;
        d->op = CLSCAN_OP_ADD;
        d->transform = "x > 0.5f ? 1 : 0";
        d->input_type_name = "float";
        c.in_size = 4;
        c.out_size = 4;
        c.fill = fill_float_unit;
        c.transform = tr_count_above;
        c.op = op_add_int;
        break;
    case 4:
        c.name = "int64 add of x * (i % 5) (transform with the index)";
        d->type = CLSCAN_INT64;
        d->op = CLSCAN_OP_ADD;
        d->transform = "(long)x * (long)(i % 5)";
        d->input_type_name = "int";
        c.in_size = 4;
        c.out_size = 8;
        c.fill = fill_int_small;
        c.transform = tr_index_weight;
        c.op = op_add_long;
        break;
    case 5:
        c.name = "int32 add, segmented by flags";
        d->type = CLSCAN_INT32;
        d->op = CLSCAN_OP_ADD;
        d->segments = CLSCAN_SEGMENTS_FLAGS;
        c.in_size = c.out_size = 4;
        c.fill = fill_int_small;
        c.op = op_add_int;
        break;
    case 6:
        c.name = "float max (built-in), segmented by flags";
        d->type = CLSCAN_FLOAT;
        d->op = CLSCAN_OP_MAX;
        d->segments = CLSCAN_SEGMENTS_FLAGS;
        c.in_size = c.out_size = 4;
        c.fill = fill_float_any;
        c.op = op_max_float;
        memcpy(c.identity, &float_minus_inf, 4);
        break;
    case 7:
        c.name = "2x2 uint matrix product, segmented by int32 keys";
        *d = gen_cases(1).desc;
        d->segments = CLSCAN_SEGMENTS_KEYS;
        d->key_type = CLSCAN_INT32;
        c.in_size = c.out_size = sizeof(mat2u);
        c.fill = fill_mat2u;
        c.op = op_mat2u;
        memcpy(c.identity, &mat2u_identity, sizeof mat2u_identity);
        break;
    case 8:
        c.name = "int64 min, segmented by int32 keys";
        d->type = CLSCAN_INT64;
        d->op = CLSCAN_OP_MIN;
        d->segments = CLSCAN_SEGMENTS_KEYS;
        d->key_type = CLSCAN_INT32;
        c.in_size = c.out_size = 8;
        c.fill = fill_long_any;
        c.op = op_min_long;
        memcpy(c.identity, &long_max, 8);
        break;
    default:
        c.name = "custom int32 add of (int)x, segmented by flags";
        d->type = CLSCAN_INT32;
        d->combine = "a + b";
        d->identity = "0";
        d->transform = "(int)x";
        d->input_type_name = "float";
        d->segments = CLSCAN_SEGMENTS_FLAGS;
        c.in_size = c.out_size = 4;
        c.fill = fill_float_small;
        c.transform = tr_float_to_int;
        c.op = op_add_int;
        break;
    }
    return c;
}
enum { GEN_CASES = 10 };

/* Segment buffers: flags (one byte each, about one in eight set, as random nonzero
 * bytes) or int32 keys in runs of 1 to 24. */
static void fill_segments(const clscan_scan_desc *d, void *seg, size_t n, clscan_verify_rng *rng)
{
    if (d->segments == CLSCAN_SEGMENTS_FLAGS) {
        for (size_t i = 0; i < n; ++i)
            ((unsigned char *)seg)[i] = rnd(rng, 8) == 0 ? (unsigned char)(1 + rnd(rng, 255)) : 0;
    } else if (d->segments == CLSCAN_SEGMENTS_KEYS) {
        int32_t key = (int32_t)rnd(rng, 1000);
        for (size_t i = 0; i < n;) {
            size_t run = 1 + rnd(rng, 24);
            for (; run > 0 && i < n; --run, ++i) ((int32_t *)seg)[i] = key;
            key += 1 + (int32_t)rnd(rng, 3);
        }
    }
}

/* The serial reference: out[i] from the elements of i's segment. */
static void reference(const gen_case *c, int inclusive, const void *in, const void *seg,
                      size_t n, void *out)
{
    unsigned char acc[32], e[32], t[32];
    const size_t os = c->out_size;
    for (size_t i = 0; i < n; ++i) {
        int head = i == 0;
        if (c->desc.segments == CLSCAN_SEGMENTS_FLAGS)
            head |= ((const unsigned char *)seg)[i] != 0;
        else if (c->desc.segments == CLSCAN_SEGMENTS_KEYS)
            head |= ((const int32_t *)seg)[i] != ((const int32_t *)seg)[i - (i > 0)];
        if (head) memcpy(acc, c->identity, os);
        if (c->transform) c->transform(e, (const unsigned char *)in + i * c->in_size, i);
        else memcpy(e, (const unsigned char *)in + i * c->in_size, os);
        if (!inclusive) memcpy((unsigned char *)out + i * os, acc, os);
        c->op(t, acc, e);
        memcpy(acc, t, os);
        if (inclusive) memcpy((unsigned char *)out + i * os, acc, os);
    }
}

enum { GUARD = 16, POISON = 0xa5 }; /* elements after dst; poison bytes */

/* Runs case c at size n: layout 0 with offsets (src 3, segments 7, dst 5) into a
 * separate buffer, layout 1 in place at offset 2 (cases with equal in and out sizes).
 * Checks dst against the reference and the guard bands around it. */
static void run_case(const gen_case *c, size_t n, int inclusive, int layout, uint64_t seed)
{
    clscan_verify_rng rng = {clscan_verify_mix(seed, n * 4 + (size_t)layout * 2 + inclusive)};
    const size_t is = c->in_size, os = c->out_size;
    const size_t seg_size = c->desc.segments == CLSCAN_SEGMENTS_FLAGS  ? 1
                            : c->desc.segments == CLSCAN_SEGMENTS_KEYS ? 4
                                                                       : 0;
    void *in = malloc(n * is + 1), *seg = malloc(n * 4 + 1), *want = malloc(n * os + 1);
    ck_assert(in && seg && want);
    c->fill(in, n, &rng);
    fill_segments(&c->desc, seg, n, &rng);
    reference(c, inclusive, in, seg, n, want);

    const size_t src_off = layout ? 2 : 3, dst_off = layout ? 2 : 5, seg_off = 7;
    /* dst (and, in place, src) sits GUARD elements into a poisoned buffer. */
    const size_t dst_elems = dst_off + n + GUARD;
    unsigned char *init = malloc(dst_elems * os);
    ck_assert(init);
    memset(init, POISON, dst_elems * os);
    if (layout) memcpy(init + src_off * is, in, n * is);
    cl_mem dst = gen_buffer(dst_elems * os, init);
    cl_mem src = dst;
    if (!layout) {
        unsigned char *sinit = calloc(src_off + n + 1, is);
        ck_assert(sinit);
        memcpy(sinit + src_off * is, in, n * is);
        src = gen_buffer((src_off + n + 1) * is, sinit);
        free(sinit);
    }
    cl_mem segs = NULL;
    if (seg_size) {
        unsigned char *ginit = calloc(seg_off + n + 1, seg_size);
        ck_assert(ginit);
        memcpy(ginit + seg_off * seg_size, seg, n * seg_size);
        segs = gen_buffer((seg_off + n + 1) * seg_size, ginit);
        free(ginit);
    }
    cl_event ev = NULL;
    clscan_status s = clscan_scan(gen_ctx, gen_queue, &c->desc, inclusive, src, src_off, segs,
                                  seg_off, dst, dst_off, n, 0, NULL, &ev);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s, n %zu: %s: %s", c->name, n, clscan_status_string(s),
                  clscan_context_last_error(gen_ctx));
    const char *what = NULL;
    ck_assert_msg(clscan_verify_wait(ev, &what) == CL_SUCCESS, "%s, n %zu: %s", c->name, n,
                  what ? what : "");
    clReleaseEvent(ev);
    unsigned char *all = malloc(dst_elems * os);
    ck_assert(all);
    ck_assert_int_eq(clEnqueueReadBuffer(gen_queue, dst, CL_TRUE, 0, dst_elems * os, all, 0,
                                         NULL, NULL),
                     CL_SUCCESS);
    for (size_t i = 0; i < n; ++i)
        if (memcmp(all + (dst_off + i) * os, (unsigned char *)want + i * os, os) != 0)
            ck_abort_msg("%s, %s, n %zu, %s: element %zu differs from the host reference",
                         c->name, inclusive ? "inclusive" : "exclusive", n,
                         layout ? "in place" : "offsets", i);
    for (size_t b = 0; b < dst_elems * os; ++b) {
        const int inside = b >= dst_off * os && b < (dst_off + n) * os;
        const unsigned char expect = layout && !inside && b >= src_off * is &&
                                             b < (src_off + n) * is
                                         ? init[b]
                                         : POISON;
        if (!inside && all[b] != expect)
            ck_abort_msg("%s, n %zu: byte %zu outside dst was written", c->name, n, b);
    }
    free(all);
    free(init);
    if (segs) clReleaseMemObject(segs);
    if (src != dst) clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(in);
    free(seg);
    free(want);
}

/* ---------------------------------------------------------------- tests ---- */

static const size_t gen_sizes[] = {0,   1,   2,   3,    31,   64,   127,   128,   129,
                                   255, 256, 257, 1000, 4099, 8192, 65537, 200003};

START_TEST(test_cases)
{
    const gen_case c = gen_cases(_i);
    if (!gen_fp64 && c.desc.type == CLSCAN_DOUBLE) return;
    const uint64_t seed = clscan_verify_mix(gen_seed(), (uint64_t)_i);
    fprintf(stderr, "case %d: %s\n", _i, c.name);
    /* $CLSCAN_TEST_MAX_SIZE caps the sizes (for runs under Oclgrind). */
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    for (size_t k = 0; k < sizeof gen_sizes / sizeof gen_sizes[0] && gen_sizes[k] <= cap; ++k)
        for (int inclusive = 0; inclusive < 2; ++inclusive)
            for (int layout = 0; layout < (c.in_size == c.out_size ? 2 : 1); ++layout)
                run_case(&c, gen_sizes[k], inclusive, layout, seed);
}
END_TEST

/* A float operator whose result depends on the order of combination (a sum of random
 * floats): two runs give the same bits. */
START_TEST(test_reproducible)
{
    clscan_scan_desc d = {0};
    d.type = CLSCAN_FLOAT;
    d.combine = "a + b";
    d.identity = "0.0f";
    d.segments = CLSCAN_SEGMENTS_FLAGS;
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t n = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : 300007;
    clscan_verify_rng rng = {gen_seed()};
    float *in = malloc(n * 4), *a = malloc(n * 4), *b = malloc(n * 4);
    unsigned char *flags = calloc(n, 1);
    ck_assert(in && a && b && flags);
    fill_float_any(in, n, &rng);
    for (size_t i = 0; i < n; ++i) flags[i] = rnd(&rng, 5000) == 0;
    cl_mem src = gen_buffer(n * 4, in), seg = gen_buffer(n, flags), dst = gen_buffer(n * 4, NULL);
    for (int run = 0; run < 2; ++run) {
        ck_assert_int_eq(clscan_scan(gen_ctx, gen_queue, &d, 1, src, 0, seg, 0, dst, 0, n, 0,
                                     NULL, NULL),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(gen_queue, dst, CL_TRUE, 0, n * 4, run ? b : a, 0,
                                             NULL, NULL),
                         CL_SUCCESS);
    }
    ck_assert_msg(memcmp(a, b, n * 4) == 0, "two runs of a float sum differ in their bits");
    clReleaseMemObject(src);
    clReleaseMemObject(seg);
    clReleaseMemObject(dst);
    free(in);
    free(a);
    free(b);
    free(flags);
}
END_TEST

/* Calls clscan_scan expecting `status` and a message containing `text`. */
static void expect_error(const clscan_scan_desc *d, cl_mem src, size_t src_off, cl_mem seg,
                         cl_mem dst, size_t dst_off, size_t n, clscan_status status,
                         const char *text)
{
    cl_event ev = (cl_event)(uintptr_t)0x1;
    clscan_status s =
        clscan_scan(gen_ctx, gen_queue, d, 0, src, src_off, seg, 0, dst, dst_off, n, 0, NULL, &ev);
    const char *msg = clscan_context_last_error(gen_ctx);
    ck_assert_msg(s == status, "expected %s (%s), got %s: %s", clscan_status_string(status),
                  text, clscan_status_string(s), msg);
    ck_assert_msg(strstr(msg, text) != NULL, "message \"%s\" does not mention \"%s\"", msg, text);
    ck_assert_msg(ev == (cl_event)(uintptr_t)0x1, "a failed call touched *event");
}

START_TEST(test_invalid)
{
    cl_mem a = gen_buffer(4096, NULL), b = gen_buffer(4096, NULL), f = gen_buffer(64, NULL);
    clscan_scan_desc ok = {0};
    ok.type = CLSCAN_INT32;
    ok.combine = "a + b";
    ok.identity = "0";
    clscan_scan_desc d;

    expect_error(NULL, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc is NULL");
    ck_assert_int_eq(clscan_scan(NULL, gen_queue, &ok, 0, a, 0, NULL, 0, b, 0, 10, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clscan_scan(gen_ctx, NULL, &ok, 0, a, 0, NULL, 0, b, 0, 10, 0, NULL, NULL),
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
    if (!gen_fp64) {
        d = ok;
        d.type = CLSCAN_DOUBLE;
        expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_UNSUPPORTED, "fp64");
    }
    /* Texts that do not compile, and a host size that is not the device's. */
    d = ok;
    d.combine = "a +* b";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED, "--- build log ---");
    /* The compiler's log names the text the error is in (#line "combine"). */
    const char *log = strstr(clscan_context_last_error(gen_ctx), "--- build log ---");
    ck_assert_msg(log && strstr(log, "combine"), "the build log does not name combine: %s",
                  clscan_context_last_error(gen_ctx));
    d = ok;
    d.transform = "undefined_function(x)";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED, "undefined_function");
    d = gen_cases(1).desc;
    d.type_size = 32;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED,
                 "clscan_type_size_differs_from_device_sizeof");

    /* Nothing was enqueued by any of them: an empty call after them still works, and a
     * good call after a failed build does too. */
    cl_event ev;
    ck_assert_int_eq(clscan_scan(gen_ctx, gen_queue, &ok, 1, a, 0, NULL, 0, b, 0, 0, 0, NULL, &ev),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(f);
}
END_TEST

static Suite *gen_suite(void)
{
    Suite *s = suite_create("general");
    TCase *dev = tcase_create("device");
    tcase_add_checked_fixture(dev, gen_setup, gen_teardown);
    tcase_set_timeout(dev, 850);
    tcase_add_loop_test(dev, test_cases, 0, GEN_CASES);
    tcase_add_test(dev, test_reproducible);
    tcase_add_test(dev, test_invalid);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gen_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
