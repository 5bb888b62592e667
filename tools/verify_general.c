/* verify_general.c - host references for general scans (clscan_scan): a table of test
 * cases (custom operators on library types and on user structs, among them a
 * non-commutative 2x2 matrix product; transforms; segments by flags and by keys), their
 * inputs and segment buffers, the serial reference, and a runner with guard bands that
 * clscan-selftest and tests/test_general.c share. */
#include "verify_general.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static void tr_widen_uint(void *r, const void *x, size_t i)
{
    (void)i;
    *(uint64_t *)r = *(const uint32_t *)x;
}
static void tr_float_to_int(void *r, const void *x, size_t i)
{
    (void)i;
    *(int32_t *)r = (int32_t)*(const float *)x;
}

uint32_t clscan_verify_gen_below(clscan_verify_rng *rng, uint32_t below)
{
    return (uint32_t)(clscan_verify_rng_next(rng) % below);
}
void clscan_verify_gen_fill_float(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((float *)dst)[i] = ((float)clscan_verify_gen_below(rng, 2000001) - 1e6f) /
                                                    8.0f;
}
/* Small integers as floats, so that sums are exact in any order. */
static void fill_float_small(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((float *)dst)[i] = (float)clscan_verify_gen_below(rng, 8);
}
static void fill_float_unit(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((float *)dst)[i] = (float)clscan_verify_gen_below(rng, 1000) / 1000.0f;
}
static void fill_int_small(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((int32_t *)dst)[i] = (int32_t)clscan_verify_gen_below(rng, 201) - 100;
}
/* uints of 32 random bits: their uint sums wrap within a few elements. */
static void fill_uint_any(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((uint32_t *)dst)[i] = (uint32_t)clscan_verify_rng_next(rng);
}
static void fill_long_any(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) ((int64_t *)dst)[i] = (int64_t)clscan_verify_rng_next(rng);
}
/* Matrices with small entries (products wrap as uint, on both sides alike). */
static void fill_mat2u(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) {
        mat2u m = {clscan_verify_gen_below(rng, 4), clscan_verify_gen_below(rng, 4), clscan_verify_gen_below(rng, 4), clscan_verify_gen_below(rng, 4)};
        ((mat2u *)dst)[i] = m;
    }
}


static const mat2u mat2u_identity = {1, 0, 0, 1};
static const float float_minus_inf = -INFINITY;
static const int64_t long_max = INT64_MAX;

/* The cases: each one's description and host version, with its identity's bytes
 * (identity NULL: all zero bytes). */
static const struct gen_case_row {
    clscan_verify_gen_case c;
    const void *identity;
    size_t identity_size;
} gen_cases[CLSCAN_VERIFY_GEN_CASES] = {
    {{.name = "float max, custom",
      .desc = {.type = CLSCAN_FLOAT, .combine = "a > b ? a : b", .identity = "-INFINITY"},
      .in_size = 4, .out_size = 4, .fill = clscan_verify_gen_fill_float, .op = op_max_float},
     &float_minus_inf, 4},
    {{.name = "2x2 uint matrix product (non-commutative struct)",
      .desc = {.type_name = "mat2u", .type_size = sizeof(mat2u), .source = mat2u_source,
               .combine = "mat2u_mul(a, b)", .identity = "mat2u_one()"},
      .in_size = sizeof(mat2u), .out_size = sizeof(mat2u), .fill = fill_mat2u, .op = op_mat2u},
     &mat2u_identity, sizeof mat2u_identity},
    {{.name = "(sum, count) struct from a float transform",
      .desc = {.type_name = "sumcount", .type_size = sizeof(sumcount), .source = sumcount_source,
               .combine = "sc_add(a, b)", .identity = "sc_zero()", .transform = "sc_make(x)",
               .input_type_name = "float"},
      .in_size = 4, .out_size = sizeof(sumcount), .fill = fill_float_small,
      .transform = tr_sumcount, .op = op_sumcount},
     NULL, 0},
    {{.name = "int32 add of a predicate on floats (transform)",
      .desc = {.type = CLSCAN_INT32, .op = CLSCAN_OP_ADD, .transform = "x > 0.5f ? 1 : 0",
               .input_type_name = "float"},
      .in_size = 4, .out_size = 4, .fill = fill_float_unit, .transform = tr_count_above,
      .op = op_add_int},
     NULL, 0},
    {{.name = "int64 add of x * (i % 5) (transform with the index)",
      .desc = {.type = CLSCAN_INT64, .op = CLSCAN_OP_ADD, .transform = "(long)x * (long)(i % 5)",
               .input_type_name = "int"},
      .in_size = 4, .out_size = 8, .fill = fill_int_small, .transform = tr_index_weight,
      .op = op_add_long},
     NULL, 0},
    {{.name = "int32 add, segmented by flags",
      .desc = {.type = CLSCAN_INT32, .op = CLSCAN_OP_ADD, .segments = CLSCAN_SEGMENTS_FLAGS},
      .in_size = 4, .out_size = 4, .fill = fill_int_small, .op = op_add_int},
     NULL, 0},
    {{.name = "float max (built-in), segmented by flags",
      .desc = {.type = CLSCAN_FLOAT, .op = CLSCAN_OP_MAX, .segments = CLSCAN_SEGMENTS_FLAGS},
      .in_size = 4, .out_size = 4, .fill = clscan_verify_gen_fill_float, .op = op_max_float},
     &float_minus_inf, 4},
    {{.name = "2x2 uint matrix product, segmented by int32 keys",
      .desc = {.type_name = "mat2u", .type_size = sizeof(mat2u), .source = mat2u_source,
               .combine = "mat2u_mul(a, b)", .identity = "mat2u_one()",
               .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_INT32},
      .in_size = sizeof(mat2u), .out_size = sizeof(mat2u), .fill = fill_mat2u, .op = op_mat2u},
     &mat2u_identity, sizeof mat2u_identity},
    {{.name = "int64 min, segmented by int32 keys",
      .desc = {.type = CLSCAN_INT64, .op = CLSCAN_OP_MIN, .segments = CLSCAN_SEGMENTS_KEYS,
               .key_type = CLSCAN_INT32},
      .in_size = 8, .out_size = 8, .fill = fill_long_any, .op = op_min_long},
     &long_max, 8},
    {{.name = "custom int32 add of (int)x, segmented by flags",
      .desc = {.type = CLSCAN_INT32, .combine = "a + b", .identity = "0", .transform = "(int)x",
               .input_type_name = "float", .segments = CLSCAN_SEGMENTS_FLAGS},
      .in_size = 4, .out_size = 4, .fill = fill_float_small, .transform = tr_float_to_int,
      .op = op_add_int},
     NULL, 0},
    {{.name = "int32 add, segmented by int32 keys (scan by key)",
      .desc = {.type = CLSCAN_INT32, .op = CLSCAN_OP_ADD, .segments = CLSCAN_SEGMENTS_KEYS,
               .key_type = CLSCAN_INT32},
      .in_size = 4, .out_size = 4, .fill = fill_int_small, .op = op_add_int},
     NULL, 0},
    {{.name = "uint64 add of uint input (widened, no transform)",
      .desc = {.type = CLSCAN_UINT64, .op = CLSCAN_OP_ADD, .input_type_name = "uint"},
      .in_size = 4, .out_size = 8, .fill = fill_uint_any, .transform = tr_widen_uint,
      .op = op_add_long},
     NULL, 0}};

clscan_verify_gen_case clscan_verify_gen_case_get(int k)
{
    /* (k out of range: the last case.) */
    const struct gen_case_row *row =
        &gen_cases[k >= 0 && k < CLSCAN_VERIFY_GEN_CASES ? k : CLSCAN_VERIFY_GEN_CASES - 1];
    clscan_verify_gen_case c = row->c; /* (its identity: zeros) */
    if (row->identity) memcpy(c.identity, row->identity, row->identity_size);
    return c;
}

/* Segment buffers: flags (one byte each, about one in eight set, as random nonzero
 * bytes) or int32 keys in runs of 1 to 24. */
void clscan_verify_gen_fill_segments(const clscan_scan_desc *d, void *seg, size_t n,
                                      clscan_verify_rng *rng)
{
    if (d->segments == CLSCAN_SEGMENTS_FLAGS) {
        for (size_t i = 0; i < n; ++i)
            ((unsigned char *)seg)[i] = clscan_verify_gen_below(rng, 8) == 0 ? (unsigned char)(1 + clscan_verify_gen_below(rng, 255)) : 0;
    } else if (d->segments == CLSCAN_SEGMENTS_KEYS) {
        int32_t key = (int32_t)clscan_verify_gen_below(rng, 1000);
        for (size_t i = 0; i < n;) {
            size_t run = 1 + clscan_verify_gen_below(rng, 24);
            for (; run > 0 && i < n; --run, ++i) ((int32_t *)seg)[i] = key;
            key += 1 + (int32_t)clscan_verify_gen_below(rng, 3);
        }
    }
}

/* The serial reference: out[i] from the elements of i's segment. */
void clscan_verify_gen_reference(const clscan_verify_gen_case *c, int inclusive, const void *in, const void *seg,
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

/* A buffer of `bytes` (at least 1), a copy of init when it is not NULL. */
static cl_mem gen_buffer(cl_context cl_ctx, size_t bytes, const void *init)
{
    cl_int err;
    return clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                          bytes ? bytes : 1, (void *)(uintptr_t)init, &err);
}

/* Copies n elements of `size` into a new buffer at element `offset` (zeros before). */
static cl_mem gen_buffer_at(cl_context cl_ctx, const void *data, size_t n, size_t size,
                            size_t offset)
{
    unsigned char *init = calloc(offset + n + 1, size);
    if (!init) return NULL;
    memcpy(init + offset * size, data, n * size);
    cl_mem m = gen_buffer(cl_ctx, (offset + n + 1) * size, init);
    free(init);
    return m;
}

/* After a call named `call` returned s with event ev: waits for it and reads `bytes` of
 * out into host. 1 on success; else 0 with msg saying what failed. */
static int gen_finish(clscan_context *ctx, cl_command_queue queue, const char *call,
                      clscan_status s, cl_event ev, cl_mem out, size_t bytes, void *host,
                      char *msg, size_t msg_size)
{
    if (s != CLSCAN_SUCCESS) {
        snprintf(msg, msg_size, "%s: %s: %s", call, clscan_status_string(s),
                 clscan_context_last_error(ctx));
        return 0;
    }
    const char *what = NULL;
    cl_int err = clscan_verify_wait(ev, &what);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(msg, msg_size, "%s: %s", what ? what : "clEnqueueReadBuffer",
                 clscan_status_string(err));
        return 0;
    }
    return 1;
}

clscan_verify_result clscan_verify_run_general(clscan_context *ctx, cl_context cl_ctx,
                                               cl_command_queue queue,
                                               const clscan_verify_gen_case *c, size_t n,
                                               int inclusive, int layout, uint64_t seed,
                                               char *msg, size_t msg_size)
{
    const size_t is = c->in_size, os = c->out_size;
    const size_t seg_size = c->desc.segments == CLSCAN_SEGMENTS_FLAGS  ? 1
                            : c->desc.segments == CLSCAN_SEGMENTS_KEYS ? 4
                                                                       : 0;
    const size_t src_off = layout ? 2 : 3, dst_off = layout ? 2 : 5, seg_off = 7;
    const size_t dst_elems = dst_off + n + GUARD;
    const char *where = layout ? "in place" : "at offsets";
    clscan_verify_result r = CLSCAN_VERIFY_FAIL;
    cl_mem src = NULL, dst = NULL, segs = NULL;
    cl_event ev = NULL;
    void *in = malloc(n * is + 1), *seg = malloc(n * 4 + 1), *want = malloc(n * os + 1);
    unsigned char *init = malloc(dst_elems * os), *all = malloc(dst_elems * os);
    if (!in || !seg || !want || !init || !all) {
        snprintf(msg, msg_size, "out of host memory");
        goto done;
    }
    clscan_verify_rng rng = {clscan_verify_mix(seed, n * 4 + (size_t)layout * 2 + inclusive)};
    c->fill(in, n, &rng);
    clscan_verify_gen_fill_segments(&c->desc, seg, n, &rng);
    clscan_verify_gen_reference(c, inclusive, in, seg, n, want);
    /* dst (and, in place, src) sits in a poisoned buffer with GUARD elements after it. */
    memset(init, POISON, dst_elems * os);
    if (layout) memcpy(init + src_off * is, in, n * is);
    dst = gen_buffer(cl_ctx, dst_elems * os, init);
    src = layout ? dst : gen_buffer_at(cl_ctx, in, n, is, src_off);
    if (seg_size) segs = gen_buffer_at(cl_ctx, seg, n, seg_size, seg_off);
    if (!dst || !src || (seg_size && !segs)) {
        snprintf(msg, msg_size, "buffers could not be created");
        goto done;
    }
    clscan_status s = clscan_scan(ctx, queue, &c->desc, inclusive, src, src_off, segs, seg_off,
                                  dst, dst_off, n, 0, NULL, &ev);
    if (!gen_finish(ctx, queue, "clscan_scan", s, ev, dst, dst_elems * os, all, msg, msg_size))
        goto done;
    for (size_t i = 0; i < n; ++i)
        if (memcmp(all + (dst_off + i) * os, (unsigned char *)want + i * os, os) != 0) {
            snprintf(msg, msg_size, "%s, n %zu, %s: element %zu differs from the host reference",
                     inclusive ? "inclusive" : "exclusive", n, where, i);
            goto done;
        }
    /* Outside dst: the poison, and in place the input's bytes beyond dst (none, as src
     * and dst are then the same range). */
    for (size_t b = 0; b < dst_elems * os; ++b)
        if ((b < dst_off * os || b >= (dst_off + n) * os) && all[b] != init[b]) {
            snprintf(msg, msg_size, "n %zu, %s: byte %zu outside dst was written", n, where, b);
            goto done;
        }
    snprintf(msg, msg_size, "%s, n %zu, %s: matches the host reference",
             inclusive ? "inclusive" : "exclusive", n, where);
    r = CLSCAN_VERIFY_PASS;
done:
    if (ev) clReleaseEvent(ev);
    if (segs) clReleaseMemObject(segs);
    if (src && src != dst) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    free(in);
    free(seg);
    free(want);
    free(init);
    free(all);
    return r;
}

clscan_verify_result clscan_verify_run_general_reduce(clscan_context *ctx, cl_context cl_ctx,
                                                      cl_command_queue queue,
                                                      const clscan_verify_gen_case *gc,
                                                      size_t n, uint64_t seed, char *msg,
                                                      size_t msg_size)
{
    clscan_verify_gen_case c = *gc;
    c.desc.segments = CLSCAN_SEGMENTS_NONE; /* (a reduction has none) */
    c.desc.key_type = CLSCAN_INT32;
    const size_t is = c.in_size, os = c.out_size, src_off = 3, res_off = 3;
    const size_t res_elems = res_off + 1 + GUARD;
    clscan_verify_result r = CLSCAN_VERIFY_FAIL;
    cl_mem src = NULL, res = NULL;
    cl_event ev = NULL;
    void *in = malloc(n * is + 1), *scan = malloc(n * os + 1);
    unsigned char *init = malloc(res_elems * os), *all = malloc(res_elems * os);
    if (!in || !scan || !init || !all) {
        snprintf(msg, msg_size, "out of host memory");
        goto done;
    }
    clscan_verify_rng rng = {clscan_verify_mix(seed, n * 4 + 3)};
    c.fill(in, n, &rng);
    /* The reduction is the inclusive scan's last element, the identity for n == 0. */
    clscan_verify_gen_reference(&c, 1, in, NULL, n, scan);
    const unsigned char *want = n ? (unsigned char *)scan + (n - 1) * os : c.identity;
    memset(init, POISON, res_elems * os);
    res = gen_buffer(cl_ctx, res_elems * os, init);
    src = gen_buffer_at(cl_ctx, in, n, is, src_off);
    if (!res || !src) {
        snprintf(msg, msg_size, "buffers could not be created");
        goto done;
    }
    clscan_status s =
        clscan_reduce_desc(ctx, queue, &c.desc, src, src_off, n, res, res_off, 0, NULL, &ev);
    if (!gen_finish(ctx, queue, "clscan_reduce_desc", s, ev, res, res_elems * os, all, msg,
                    msg_size))
        goto done;
    if (memcmp(all + res_off * os, want, os) != 0) {
        snprintf(msg, msg_size, "reduce, n %zu: the result differs from the host reference", n);
        goto done;
    }
    for (size_t b = 0; b < res_elems * os; ++b)
        if ((b < res_off * os || b >= (res_off + 1) * os) && all[b] != init[b]) {
            snprintf(msg, msg_size, "reduce, n %zu: byte %zu outside the result was written", n,
                     b);
            goto done;
        }
    snprintf(msg, msg_size, "reduce, n %zu: matches the host reference", n);
    r = CLSCAN_VERIFY_PASS;
done:
    if (ev) clReleaseEvent(ev);
    if (src) clReleaseMemObject(src);
    if (res) clReleaseMemObject(res);
    free(in);
    free(scan);
    free(init);
    free(all);
    return r;
}
