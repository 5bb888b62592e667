/* verify_general.c - host references for general scans (clscan_scan): a table of test
 * cases (custom operators on library types and on user structs, among them a
 * non-commutative 2x2 matrix product; transforms; segments by flags and by keys), their
 * inputs and segment buffers, the serial reference, and a runner with guard bands that
 * clscan-selftest and tests/test_general.c share. */
/* SPDX-License-Identifier: MIT */
#include "verify_general.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The user types of the cases, as the host lays them out. */
typedef struct { cl_uint a, b, c, d; } mat2u; /* a 2x2 matrix of uints, row-major */
typedef struct { cl_float sum; cl_uint count; } sumcount;

#define MAT2U_SOURCE                                                                       \
    "typedef struct { uint a, b, c, d; } mat2u;\n"                                         \
    "mat2u mat2u_mul(mat2u x, mat2u y)\n"                                                  \
    "{\n"                                                                                  \
    "    mat2u r;\n"                                                                       \
    "    r.a = x.a * y.a + x.b * y.c;\n"                                                   \
    "    r.b = x.a * y.b + x.b * y.d;\n"                                                   \
    "    r.c = x.c * y.a + x.d * y.c;\n"                                                   \
    "    r.d = x.c * y.b + x.d * y.d;\n"                                                   \
    "    return r;\n"                                                                      \
    "}\n"                                                                                  \
    "mat2u mat2u_one(void) { mat2u r = {1u, 0u, 0u, 1u}; return r; }\n"
static const char mat2u_source[] = MAT2U_SOURCE;
/* The same, its product declared exact (include/clscan.h, "Exact operators"). */
static const char mat2u_exact_source[] = "#define CLSCAN_COMBINE_EXACT\n" MAT2U_SOURCE;

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
/* Matrices with small entries (products wrap as uint, on both sides alike) and an odd
 * determinant (a and d odd, b or c even), so that every product of them is invertible
 * modulo 2^32 and prefixes never collapse: with entries drawn freely, the even
 * determinants made long prefix products 0 modulo 2^32 after a few hundred elements, and
 * a look-back that swapped two totals went unseen past them. */
static void fill_mat2u(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i) {
        const cl_uint a = 1 + 2 * clscan_verify_gen_below(rng, 2);
        const cl_uint d = 1 + 2 * clscan_verify_gen_below(rng, 2);
        cl_uint b = clscan_verify_gen_below(rng, 4), c = clscan_verify_gen_below(rng, 4);
        if (b & c & 1) {
            if (clscan_verify_gen_below(rng, 2)) b ^= 1;
            else c ^= 1;
        }
        const mat2u m = {a, b, c, d};
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

clscan_verify_gen_case clscan_verify_gen_case_exact(int k)
{
    clscan_verify_gen_case c = clscan_verify_gen_case_get(k);
    if (c.desc.source == mat2u_source) c.desc.source = mat2u_exact_source;
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

clscan_verify_result clscan_verify_run_general_by_key(clscan_context *ctx, cl_context cl_ctx,
                                                      cl_command_queue queue,
                                                      const clscan_verify_gen_case *c,
                                                      size_t n, int with_keys, uint64_t seed,
                                                      char *msg, size_t msg_size)
{
    const size_t is = c->in_size, os = c->out_size, vo = 3, ko = 4, ro = 5, uo = 6;
    const size_t seg_size = c->desc.segments == CLSCAN_SEGMENTS_FLAGS ? 1 : 4;
    const int keys = c->desc.segments == CLSCAN_SEGMENTS_KEYS && with_keys;
    clscan_verify_result r = CLSCAN_VERIFY_FAIL;
    if (msg_size) msg[0] = '\0';
    cl_mem src = NULL, seg = NULL, red = NULL, uniq = NULL, cnt = NULL;
    cl_event ev = NULL;
    void *in = malloc(n * is + 1), *sg = malloc(n * 4 + 1), *scan = malloc(n * os + 1);
    unsigned char *red_init = malloc((ro + n + GUARD) * os), *red_all = malloc((ro + n + GUARD) * os);
    unsigned char *u_init = malloc((uo + n + GUARD) * 4), *u_all = malloc((uo + n + GUARD) * 4);
    if (!in || !sg || !scan || !red_init || !red_all || !u_init || !u_all) {
        snprintf(msg, msg_size, "out of host memory");
        goto done;
    }
    clscan_verify_rng rng = {clscan_verify_mix(seed, n * 4 + 1)};
    c->fill(in, n, &rng);
    clscan_verify_gen_fill_segments(&c->desc, sg, n, &rng);
    clscan_verify_gen_reference(c, 1, in, sg, n, scan);
    memset(red_init, POISON, (ro + n + GUARD) * os);
    memset(u_init, POISON, (uo + n + GUARD) * 4);
    const cl_ulong poison_count = 0xa5a5a5a5a5a5a5a5ull;
    red = gen_buffer(cl_ctx, (ro + n + GUARD) * os, red_init);
    uniq = gen_buffer(cl_ctx, (uo + n + GUARD) * 4, u_init);
    cnt = gen_buffer(cl_ctx, 8, &poison_count);
    src = gen_buffer_at(cl_ctx, in, n, is, vo);
    seg = gen_buffer_at(cl_ctx, sg, n, seg_size, ko);
    if (!red || !uniq || !cnt || !src || !seg) {
        snprintf(msg, msg_size, "buffers could not be created");
        goto done;
    }
    clscan_status s = clscan_reduce_by_key(ctx, queue, &c->desc, seg, ko, src, vo, n,
                                           keys ? uniq : NULL, uo, red, ro, cnt, 0, NULL, &ev);
    cl_ulong m = 0;
    if (!gen_finish(ctx, queue, "clscan_reduce_by_key", s, ev, red, (ro + n + GUARD) * os,
                    red_all, msg, msg_size) ||
        clEnqueueReadBuffer(queue, uniq, CL_TRUE, 0, (uo + n + GUARD) * 4, u_all, 0, NULL, NULL) !=
            CL_SUCCESS ||
        clEnqueueReadBuffer(queue, cnt, CL_TRUE, 0, 8, &m, 0, NULL, NULL) != CL_SUCCESS) {
        if (!msg[0]) snprintf(msg, msg_size, "reading the results failed");
        goto done;
    }
    /* The host's: segment j ends at the element before the next head (or at n - 1). */
    size_t j = 0;
    for (size_t i = 0; i < n; ++i) {
        int last = i + 1 == n;
        if (!last && c->desc.segments == CLSCAN_SEGMENTS_FLAGS)
            last = ((const unsigned char *)sg)[i + 1] != 0;
        else if (!last)
            last = ((const int32_t *)sg)[i + 1] != ((const int32_t *)sg)[i];
        if (!last) continue;
        if (j >= m || memcmp(red_all + (ro + j) * os, (unsigned char *)scan + i * os, os) != 0) {
            snprintf(msg, msg_size, "by key, n %zu: segment %zu (ending at %zu) differs from "
                     "the host reference (count %llu)", n, j, i, (unsigned long long)m);
            goto done;
        }
        /* (int32 keys: a segment's last key is its first) */
        if (keys && memcmp(u_all + (uo + j) * 4, (const int32_t *)sg + i, 4) != 0) {
            snprintf(msg, msg_size, "by key, n %zu: segment %zu's key differs", n, j);
            goto done;
        }
        ++j;
    }
    if (m != j) {
        snprintf(msg, msg_size, "by key, n %zu: count %llu, expected %zu", n,
                 (unsigned long long)m, j);
        goto done;
    }
    for (size_t b = 0; b < (ro + n + GUARD) * os; ++b)
        if ((b < ro * os || b >= (ro + m) * os) && red_all[b] != POISON) {
            snprintf(msg, msg_size, "by key, n %zu: reduced byte %zu outside the %llu results "
                     "was written", n, b, (unsigned long long)m);
            goto done;
        }
    for (size_t b = 0; b < (uo + n + GUARD) * 4; ++b)
        if ((!keys || b < uo * 4 || b >= (uo + m) * 4) && u_all[b] != POISON) {
            snprintf(msg, msg_size, "by key, n %zu: unique_keys byte %zu was written", n, b);
            goto done;
        }
    snprintf(msg, msg_size, "by key, n %zu: %llu segments match the host reference", n,
             (unsigned long long)m);
    r = CLSCAN_VERIFY_PASS;
done:
    if (ev) clReleaseEvent(ev);
    if (src) clReleaseMemObject(src);
    if (seg) clReleaseMemObject(seg);
    if (red) clReleaseMemObject(red);
    if (uniq) clReleaseMemObject(uniq);
    if (cnt) clReleaseMemObject(cnt);
    free(in);
    free(sg);
    free(scan);
    free(red_init);
    free(red_all);
    free(u_init);
    free(u_all);
    return r;
}

clscan_verify_result clscan_verify_run_rle(clscan_context *ctx, cl_context cl_ctx,
                                           cl_command_queue queue, clscan_type type,
                                           clscan_type length_type, int mode, size_t n,
                                           uint64_t seed, char *msg, size_t msg_size)
{
    const int nontrivial = mode & CLSCAN_VERIFY_RLE_NONTRIVIAL;
    /* (nontrivial: "unique" holds the runs' offsets, of length_type.) */
    const size_t e = nontrivial ? clscan_type_size(length_type) : clscan_type_size(type),
                 le = clscan_type_size(length_type), se = clscan_type_size(type);
    const size_t so = 2, uo = 3, lo = 4, u_bytes = (uo + n + GUARD) * e;
    const size_t l_bytes = (lo + n + GUARD) * le;
    clscan_verify_result res = CLSCAN_VERIFY_FAIL;
    unsigned char *src = calloc(so + n + 1, se), *uniq = malloc(u_bytes), *lens = malloc(l_bytes);
    unsigned char *want_u = malloc((n + 1) * e), *got_u = malloc(u_bytes), *got_l = malloc(l_bytes);
    uint64_t *want_l = malloc((n + 1) * sizeof *want_l);
    cl_mem sb = NULL, ub = NULL, lb = NULL, cb = NULL, ones = NULL;
    cl_event ev = NULL;
    if (!src || !uniq || !lens || !want_u || !got_u || !got_l || !want_l) {
        snprintf(msg, msg_size, "out of host memory");
        goto done;
    }
    /* Runs of 1 to 20 equal elements, and one run in 16 of up to 6000 (longer than a
     * tile: its length crosses tiles), or with CLSCAN_VERIFY_RLE_LONG one in 4 of up to
     * n / 3 (many tiles without a head); floats also get NaNs (each a run of its own) and
     * -0.0 beside +0.0 (one run, its element the first one's). */
    clscan_verify_rng rng = {seed};
    uint64_t bits = 0;
    const int long_runs = mode & CLSCAN_VERIFY_RLE_LONG;
    const uint64_t long_every = long_runs ? 4 : 16, run_max = long_runs ? n / 3 + 1 : 6000;
    for (size_t i = 0; i < n;) {
        const uint64_t pick = clscan_verify_rng_next(&rng);
        size_t len = 1 + (size_t)(pick % long_every == 0 ? (pick >> 4) % run_max
                                                         : (pick >> 4) % 20);
        const uint64_t r = clscan_verify_rng_next(&rng);
        bits = r % 7 == 0 ? bits + 1 : r;
        if (type == CLSCAN_FLOAT || type == CLSCAN_DOUBLE) {
            /* (Zeros of both signs often, so that runs of -0.0 and +0.0 meet.) */
            const double v = r % 11 == 0 ? NAN
                             : r % 6 == 0 ? -0.0
                             : r % 4 == 0 ? 0.0
                                          : (double)(r % 50);
            if (type == CLSCAN_FLOAT) {
                const float f = (float)v;
                bits = 0;
                memcpy(&bits, &f, 4);
            } else {
                memcpy(&bits, &v, 8);
            }
        }
        for (; len > 0 && i < n; --len, ++i) clscan_verify_store_bits(src + so * se, i, type, bits);
    }
    size_t runs = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || clscan_verify_differs(src + so * se, i - 1, i, type)) {
            if (nontrivial && runs > 0 && want_l[runs - 1] == 1) --runs; /* (too short) */
            if (nontrivial) clscan_verify_store_bits(want_u, runs, length_type, i);
            else memcpy(want_u + runs * e, src + (so + i) * e, e);
            want_l[runs++] = 0;
        }
        want_l[runs - 1]++;
    }
    if (nontrivial && runs > 0 && want_l[runs - 1] == 1) --runs;
    memset(uniq, POISON, u_bytes);
    memset(lens, POISON, l_bytes);
    const cl_ulong poison_count = ~0ull;
    sb = gen_buffer(cl_ctx, (so + n + 1) * se, src);
    ub = gen_buffer(cl_ctx, u_bytes, uniq);
    lb = gen_buffer(cl_ctx, l_bytes, lens);
    cb = gen_buffer(cl_ctx, 8, &poison_count);
    if (!sb || !ub || !lb || !cb) {
        snprintf(msg, msg_size, "buffers could not be created");
        goto done;
    }
    clscan_status s;
    if (mode & CLSCAN_VERIFY_RLE_BY_KEY) {
        /* (Reduce by key of ones, of length_type, at the keys' offset.) */
        for (size_t i = 0; i < so + n; i++) clscan_verify_store_bits(lens, i, length_type, 1);
        ones = gen_buffer(cl_ctx, (so + n + 1) * le, lens);
        memset(lens, POISON, l_bytes);
        if (!ones) {
            snprintf(msg, msg_size, "buffers could not be created");
            goto done;
        }
        clscan_scan_desc d = {0};
        d.type = length_type;
        d.op = CLSCAN_OP_ADD;
        d.segments = CLSCAN_SEGMENTS_KEYS;
        d.key_type = type;
        s = clscan_reduce_by_key(ctx, queue, &d, sb, so, ones, so, n, ub, uo, lb, lo, cb, 0, NULL,
                                 &ev);
    } else if (nontrivial) {
        s = clscan_run_length_encode_nontrivial(ctx, queue, sb, so, n, type, ub, uo, lb, lo,
                                                length_type, cb, 0, NULL, &ev);
    } else {
        s = clscan_run_length_encode(ctx, queue, sb, so, n, type, ub, uo, lb, lo, length_type,
                                     cb, 0, NULL, &ev);
    }
    if (s == CLSCAN_ERROR_UNSUPPORTED && type == CLSCAN_DOUBLE) {
        snprintf(msg, msg_size, "refused (no fp64?): %s", clscan_context_last_error(ctx));
        res = CLSCAN_VERIFY_SKIP;
        goto done;
    }
    cl_ulong m = 0;
    if (!gen_finish(ctx, queue, "clscan_run_length_encode", s, ev, ub, u_bytes, got_u, msg,
                    msg_size) ||
        clEnqueueReadBuffer(queue, lb, CL_TRUE, 0, l_bytes, got_l, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(queue, cb, CL_TRUE, 0, 8, &m, 0, NULL, NULL) != CL_SUCCESS) {
        if (s == CLSCAN_SUCCESS) snprintf(msg, msg_size, "reading the results failed");
        goto done;
    }
    if (m != runs) {
        snprintf(msg, msg_size, "count %llu, expected %zu", (unsigned long long)m, runs);
        goto done;
    }
    for (size_t j = 0; j < runs; j++) {
        uint64_t l = 0;
        memcpy(&l, got_l + (lo + j) * le, le);
        if (memcmp(got_u + (uo + j) * e, want_u + j * e, e) != 0 || l != want_l[j]) {
            snprintf(msg, msg_size, "run %zu: length %llu, expected %llu, or its %s differs", j,
                     (unsigned long long)l, (unsigned long long)want_l[j],
                     nontrivial ? "offset" : "element");
            goto done;
        }
    }
    for (size_t b = 0; b < u_bytes; b++)
        if ((b < uo * e || b >= (uo + runs) * e) && got_u[b] != POISON) {
            snprintf(msg, msg_size, "%s byte %zu outside the runs was written",
                     nontrivial ? "offsets" : "unique", b);
            goto done;
        }
    for (size_t b = 0; b < l_bytes; b++)
        if ((b < lo * le || b >= (lo + runs) * le) && got_l[b] != POISON) {
            snprintf(msg, msg_size, "lengths byte %zu outside the runs was written", b);
            goto done;
        }
    snprintf(msg, msg_size, "n %zu: %zu %sruns match the host's", n, runs,
             nontrivial ? "nontrivial " : "");
    res = CLSCAN_VERIFY_PASS;
done:
    if (ev) clReleaseEvent(ev);
    if (sb) clReleaseMemObject(sb);
    if (ub) clReleaseMemObject(ub);
    if (lb) clReleaseMemObject(lb);
    if (cb) clReleaseMemObject(cb);
    if (ones) clReleaseMemObject(ones);
    free(src);
    free(uniq);
    free(lens);
    free(want_u);
    free(got_u);
    free(got_l);
    free(want_l);
    return res;
}
