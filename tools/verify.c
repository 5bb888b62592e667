/* verify.c - host reference scans with stated tolerances, host reference compactions,
 * input generation, size lists and the guarded one-case device runners used by
 * clscan-selftest and the tests. */
/* SPDX-License-Identifier: MIT */
#include "verify.h"

#include <ctype.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- PRNG ---------- */

uint64_t clscan_verify_rng_next(clscan_verify_rng *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t clscan_verify_mix(uint64_t seed, uint64_t value)
{
    clscan_verify_rng rng = {seed ^ (value * 0xd6e8feb86659fd93u)};
    clscan_verify_rng_next(&rng);
    return clscan_verify_rng_next(&rng);
}

/* Uniform in [0, 1) with 53 random bits. */
static double clscan_unit(clscan_verify_rng *rng)
{
    return (double)(clscan_verify_rng_next(rng) >> 11) * 0x1p-53;
}

static int clscan_is_float(clscan_type t)
{
    return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE;
}

static int clscan_is_signed(clscan_type t)
{
    return t == CLSCAN_INT32 || t == CLSCAN_INT64;
}

static void clscan_say(char *msg, size_t size, const char *fmt, ...)
{
    if (size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------- integers, as uint64 ------- */

/* Integers are held as uint64: sign-extended for INT32, so that all arithmetic is
 * unsigned (wrapping, no UB) and truncation on store gives the two's complement result. */
static uint64_t clscan_canon(uint64_t v, clscan_type t)
{
    if (t == CLSCAN_UINT32)
        return v & 0xffffffffu;
    if (t == CLSCAN_INT32)
        return (v & 0x80000000u) ? (v | 0xffffffff00000000u) : (v & 0xffffffffu);
    return v;
}

/* (FLOAT: clscan_canon leaves the 32 bits alone.) */
uint64_t clscan_verify_load_bits(const void *p, size_t i, clscan_type t)
{
    if (clscan_type_size(t) == 4) {
        uint32_t v;
        memcpy(&v, (const char *)p + 4 * i, 4);
        return clscan_canon(v, t);
    }
    uint64_t v;
    memcpy(&v, (const char *)p + 8 * i, 8);
    return v;
}

void clscan_verify_store_bits(void *p, size_t i, clscan_type t, uint64_t v)
{
    if (clscan_type_size(t) == 4) {
        uint32_t w = (uint32_t)v;
        memcpy((char *)p + 4 * i, &w, 4);
    } else {
        memcpy((char *)p + 8 * i, &v, 8);
    }
}

/* a < b in the type's order (signed compares flip the sign bit). */
static int clscan_int_less(uint64_t a, uint64_t b, clscan_type t)
{
    uint64_t flip = clscan_is_signed(t) ? 0x8000000000000000u : 0;
    return (a ^ flip) < (b ^ flip);
}

uint64_t clscan_verify_int_identity(clscan_type t, clscan_op op)
{
    switch (op) {
    case CLSCAN_OP_MUL: return 1;
    case CLSCAN_OP_AND: return clscan_canon(~(uint64_t)0, t);
    case CLSCAN_OP_MIN: /* the type's maximum */
        return t == CLSCAN_INT32 ? 0x7fffffffu
             : t == CLSCAN_INT64 ? 0x7fffffffffffffffu : clscan_canon(~(uint64_t)0, t);
    case CLSCAN_OP_MAX: /* the type's minimum */
        return t == CLSCAN_INT32 ? clscan_canon(0x80000000u, t)
             : t == CLSCAN_INT64 ? 0x8000000000000000u : 0;
    default: return 0; /* ADD, OR, XOR */
    }
}

uint64_t clscan_verify_int_combine(uint64_t a, uint64_t b, clscan_type t, clscan_op op)
{
    switch (op) {
    case CLSCAN_OP_ADD: return clscan_canon(a + b, t);
    case CLSCAN_OP_MUL: return clscan_canon(a * b, t);
    case CLSCAN_OP_MIN: return clscan_int_less(b, a, t) ? b : a;
    case CLSCAN_OP_MAX: return clscan_int_less(a, b, t) ? b : a;
    case CLSCAN_OP_AND: return a & b;
    case CLSCAN_OP_OR: return a | b;
    default: return a ^ b;
    }
}

long double clscan_verify_load_float(const void *p, size_t i, clscan_type t)
{
    if (t == CLSCAN_FLOAT) {
        float v;
        memcpy(&v, (const char *)p + 4 * i, 4);
        return v;
    }
    double v;
    memcpy(&v, (const char *)p + 8 * i, 8);
    return v;
}

void clscan_verify_store_float(void *p, size_t i, clscan_type t, long double v)
{
    if (t == CLSCAN_FLOAT) {
        float f = (float)v;
        memcpy((char *)p + 4 * i, &f, 4);
    } else {
        double d = (double)v;
        memcpy((char *)p + 8 * i, &d, 8);
    }
}

/* ------------------------------------------------------------- inputs -------- */

/* What each (type, op) gets, so that results stay meaningful over 1e6+ elements:
 *  integers  ADD, MIN, MAX, XOR: full-range random bits.
 *            MUL: random odd numbers (any even factor adds a trailing zero bit, so with
 *            full-range inputs every product would be 0 after ~64 elements).
 *            AND: all ones, with one random bit cleared with probability p; OR: zero,
 *            with one random bit set with probability p; p = min(1/2, 3*bits/n), so the
 *            running result keeps changing over the whole array (about 3*bits changes
 *            in all) and a tile's carry decides its results, instead of saturating
 *            after a few dozen elements as denser patterns do.
 *  floats    ADD: uniform in [-1, 1), exactly representable; MUL: uniform in
 *            [0.99, 1.01] (a product of 1e6 of them stays near e^(-17 +- 6));
 *            MIN, MAX: random bit patterns that are finite and normal (no denormals,
 *            whose flushing to zero is allowed on OpenCL devices). */
void clscan_verify_fill(void *dst, size_t n, clscan_type type, clscan_op op, uint64_t seed)
{
    clscan_verify_rng rng = {seed};
    if (!clscan_is_float(type)) {
        unsigned bits = 8 * (unsigned)clscan_type_size(type);
        double p = n ? 3.0 * bits / (double)n : 0.5;
        if (p > 0.5)
            p = 0.5;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = clscan_verify_rng_next(&rng), v = r;
            if (op == CLSCAN_OP_MUL) {
                v = r | 1;
            } else if (op == CLSCAN_OP_AND || op == CLSCAN_OP_OR) {
                uint64_t bit = clscan_unit(&rng) < p ? (uint64_t)1 << (r % bits) : 0;
                v = op == CLSCAN_OP_AND ? ~bit : bit;
            }
            clscan_verify_store_bits(dst, i, type, v);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        long double v;
        uint64_t r = clscan_verify_rng_next(&rng);
        if (op == CLSCAN_OP_ADD) {
            v = type == CLSCAN_FLOAT ? (long double)(r >> 40) * 0x1p-23L - 1
                                     : (long double)(r >> 11) * 0x1p-52L - 1;
        } else if (op == CLSCAN_OP_MUL) {
            v = 0.99 + 0.02 * ((double)(r >> 11) * 0x1p-53);
        } else if (type == CLSCAN_FLOAT) {
            uint32_t b = (uint32_t)r;
            while (((b >> 23) & 0xff) == 0 || ((b >> 23) & 0xff) == 0xff)
                b = (uint32_t)clscan_verify_rng_next(&rng);
            memcpy((char *)dst + 4 * i, &b, 4);
            continue;
        } else {
            while (((r >> 52) & 0x7ff) == 0 || ((r >> 52) & 0x7ff) == 0x7ff)
                r = clscan_verify_rng_next(&rng);
            memcpy((char *)dst + 8 * i, &r, 8);
            continue;
        }
        clscan_verify_store_float(dst, i, type, v);
    }
}

/* --------------------------------------------------------- reference -------- */

struct clscan_verify_ref {
    clscan_type type;
    clscan_op op;
    size_t n;
    void *exact;      /* integers and float MIN/MAX: the exact result, n elements */
    long double *val; /* float ADD/MUL: the reference value ... */
    long double *tol; /* ... and the allowed |got - val| */
};

void clscan_verify_ref_free(clscan_verify_ref *ref)
{
    if (!ref)
        return;
    free(ref->exact);
    free(ref->val);
    free(ref->tol);
    free(ref);
}

/* Tolerances for float ADD and MUL (eps = FLT_EPSILON or DBL_EPSILON = 2u, u the unit
 * roundoff; B = 2*ceil(log2(n+1)) + 64).
 *
 * ADD: |got - ref| <= (B*eps + 4*LDBL_EPSILON) * sum_{j<=i} |x_j|. A sum evaluated as
 * any tree of depth d has |error| <= gamma_d * sum |x_j|, gamma_d = d*u/(1 - d*u)
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 4.2).
 * A scan's tree has an up-sweep and a down-sweep over the elements, at most
 * ceil(log2(n+1)) levels each, plus short serial runs (a work-item's own elements, a
 * carry into a tile); B*eps = 2B*u therefore admits depth up to 2B: both sweeps twice
 * over, plus 128 serial steps. This is an assumption about the library, not a proof:
 * a library that chains more than that serially (a carry passed through thousands of
 * tiles one by one) is outside this bound in the worst case, although its actual
 * error on these random inputs stays far below it. The reference is a compensated
 * (Neumaier) sum in long double, within 2*LDBL_EPSILON*|sum| of exact; 4*LDBL_EPSILON
 * covers it. The exclusive first element (sum of nothing) must be exactly 0.
 *
 * MUL: |got - ref| <= ((B + k)*eps + k*LDBL_EPSILON) * |ref|, k = i + 1. Prefix i has
 * at most k leaves, and a product of k leaves evaluated as any tree takes k - 1
 * roundings (multiplying by the identity 1 is exact), so its relative error is at most
 * (1+u)^k - 1 <= k*eps for k*u <= 1/2, whatever the tree; a depth-based B*eps alone is wrong here, because the
 * roundings add up along all k multiplications and random ones already exceed
 * B*eps near k = 1e6 in float. The long double reference has the same bound with
 * LDBL_EPSILON. The check is tight for small i, loose (a few percent) near i = 1e6
 * for FLOAT, where it still catches a lost tile but not one lost element.
 *
 * Integers and float MIN/MAX are compared exactly (float by value, so -0 == +0).
 * NaN never passes. */
clscan_verify_ref *clscan_verify_reference(clscan_type type, clscan_op op, int inclusive,
                                           const void *src, size_t n)
{
    clscan_verify_ref *ref = calloc(1, sizeof *ref);
    size_t es = clscan_type_size(type), cnt = n ? n : 1;
    if (!ref)
        return NULL;
    ref->type = type;
    ref->op = op;
    ref->n = n;
    int wide = clscan_is_float(type) && (op == CLSCAN_OP_ADD || op == CLSCAN_OP_MUL);
    if (wide) {
        ref->val = malloc(cnt * sizeof *ref->val);
        ref->tol = malloc(cnt * sizeof *ref->tol);
        if (!ref->val || !ref->tol)
            goto oom;
    } else if (!(ref->exact = malloc(cnt * es))) {
        goto oom;
    }

    if (!clscan_is_float(type)) {
        uint64_t acc = clscan_verify_int_identity(type, op);
        for (size_t i = 0; i < n; i++) {
            uint64_t x = clscan_verify_load_bits(src, i, type);
            uint64_t next = clscan_verify_int_combine(acc, x, type, op);
            clscan_verify_store_bits(ref->exact, i, type, inclusive ? next : acc);
            acc = next;
        }
    } else if (!wide) { /* MIN, MAX (AND/OR/XOR are refused, never compared) */
        long double acc = op == CLSCAN_OP_MIN ? INFINITY : -INFINITY;
        for (size_t i = 0; i < n; i++) {
            long double x = clscan_verify_load_float(src, i, type);
            long double next = op == CLSCAN_OP_MIN ? fminl(acc, x) : fmaxl(acc, x);
            clscan_verify_store_float(ref->exact, i, type, inclusive ? next : acc);
            acc = next;
        }
    } else {
        long double eps = type == CLSCAN_FLOAT ? FLT_EPSILON : DBL_EPSILON, B = 64;
        for (size_t m = n + 1; m > 1; m = (m + 1) / 2)
            B += 2; /* + 2*ceil(log2(n+1)) */
        long double s = op == CLSCAN_OP_MUL ? 1 : 0, c = 0, mag = 0;
        for (size_t i = 0; i < n; i++) {
            long double x = clscan_verify_load_float(src, i, type), before = s + c, mag0 = mag, t;
            if (op == CLSCAN_OP_ADD) { /* Neumaier: s + c is the compensated sum */
                t = s + x;
                c += fabsl(s) >= fabsl(x) ? (s - t) + x : (x - t) + s;
                s = t;
                mag += fabsl(x);
            } else {
                s *= x;
            }
            ref->val[i] = inclusive ? s + c : before;
            if (op == CLSCAN_OP_ADD) {
                ref->tol[i] = (B * eps + 4 * LDBL_EPSILON) *
                              (inclusive ? mag : mag0);
            } else {
                long double k = (long double)i + 1;
                ref->tol[i] = ((B + k) * eps + k * LDBL_EPSILON) * fabsl(ref->val[i]);
            }
        }
    }
    return ref;
oom:
    clscan_verify_ref_free(ref);
    return NULL;
}

/* Prints element i of p (integers in decimal and hex, floats with all digits). */
static void clscan_format(char *buf, size_t size, const void *p, size_t i, clscan_type t)
{
    if (clscan_is_float(t)) {
        long double v = clscan_verify_load_float(p, i, t);
        snprintf(buf, size, t == CLSCAN_FLOAT ? "%.9Lg" : "%.17Lg", v);
        return;
    }
    uint64_t v = clscan_verify_load_bits(p, i, t);
    if (clscan_is_signed(t) && (v >> 63))
        snprintf(buf, size, "-%" PRIu64 " (0x%" PRIx64 ")", ~v + 1,
                 t == CLSCAN_INT32 ? v & 0xffffffffu : v);
    else
        snprintf(buf, size, "%" PRIu64 " (0x%" PRIx64 ")", v, v);
}

int clscan_verify_compare(const clscan_verify_ref *ref, const void *got, char *msg,
                          size_t msg_size)
{
    return clscan_verify_compare_range(ref, 0, ref->n, got, msg, msg_size);
}

int clscan_verify_compare_range(const clscan_verify_ref *ref, size_t first, size_t count,
                                const void *got, char *msg, size_t msg_size)
{
    size_t es = clscan_type_size(ref->type);
    char g[64], e[64];
    for (size_t k = 0; k < count && first + k < ref->n; k++) {
        const size_t i = first + k;
        if (ref->val) {
            long double v = clscan_verify_load_float(got, k, ref->type);
            if (fabsl(v - ref->val[i]) <= ref->tol[i])
                continue;
            clscan_format(g, sizeof g, got, k, ref->type);
            clscan_say(msg, msg_size, "index %zu: got %s, expected %.21Lg (tolerance %.3Lg)",
                       i, g, ref->val[i], ref->tol[i]);
            return 0;
        }
        if (clscan_is_float(ref->type)) {
            long double a = clscan_verify_load_float(got, k, ref->type);
            if (a == clscan_verify_load_float(ref->exact, i, ref->type))
                continue;
        } else if (!memcmp((const char *)got + k * es, (const char *)ref->exact + i * es, es)) {
            continue;
        }
        clscan_format(g, sizeof g, got, k, ref->type);
        clscan_format(e, sizeof e, ref->exact, i, ref->type);
        clscan_say(msg, msg_size, "index %zu: got %s, expected %s (exact)", i, g, e);
        return 0;
    }
    clscan_say(msg, msg_size, "ok");
    return 1;
}

/* ------------------------------------------------------------- device -------- */

/* 1 if `token` is a whole word of the space-separated list (an extension string). */
static int clscan_has_token(const char *list, const char *token)
{
    const size_t len = strlen(token);
    for (const char *p = list; (p = strstr(p, token)) != NULL; p += len)
        if ((p == list || isspace((unsigned char)p[-1])) &&
            (p[len] == '\0' || isspace((unsigned char)p[len])))
            return 1;
    return 0;
}

int clscan_verify_device_has_fp64(cl_device_id device)
{
    cl_device_fp_config cfg = 0;
    size_t len = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof cfg, &cfg, NULL) ==
            CL_SUCCESS && cfg != 0)
        return 1;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS)
        return 0;
    char *ext = calloc(1, len + 1);
    int found = ext && clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, len, ext, NULL) ==
                           CL_SUCCESS && clscan_has_token(ext, "cl_khr_fp64");
    free(ext);
    return found;
}

int clscan_verify_expect_unsupported(clscan_type type, clscan_op op)
{
    return clscan_is_float(type) &&
           (op == CLSCAN_OP_AND || op == CLSCAN_OP_OR || op == CLSCAN_OP_XOR);
}

#define CLSCAN_GUARD_ELEMS 67 /* guard band after the output, in elements */
#define CLSCAN_GUARD_BYTE 0xA5

/* First byte offset in [from, to) of img that differs from want, or (size_t)-1. */
static size_t clscan_first_diff(const unsigned char *img, const unsigned char *want,
                                size_t from, size_t to)
{
    for (size_t b = from; b < to; b++)
        if (img[b] != (want ? want[b] : CLSCAN_GUARD_BYTE))
            return b;
    return (size_t)-1;
}

/* 0 when `type` is DOUBLE and the queue's device has no fp64, else 1. */
static int clscan_queue_fp64(cl_command_queue queue, clscan_type type)
{
    cl_device_id dev;
    if (type != CLSCAN_DOUBLE ||
        clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS)
        return 1;
    return clscan_verify_device_has_fp64(dev);
}

cl_int clscan_verify_wait(cl_event ev, const char **what)
{
    cl_int exec = CL_QUEUED, err;
    *what = "clWaitForEvents on the call's event";
    if ((err = clWaitForEvents(1, &ev)) != CL_SUCCESS)
        return err;
    *what = "clGetEventInfo";
    if ((err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec,
                              NULL)) != CL_SUCCESS)
        return err;
    *what = "the call's event (its execution status)";
    return exec == CL_COMPLETE ? CL_SUCCESS : exec < 0 ? exec : CL_INVALID_EVENT;
}

/* Releases a case's events: the call's (unless it is NULL or the sentinel a refused
 * call must leave alone), and the writes that filled its buffers, once they are done
 * (the host images must outlive them). */
static void clscan_release_events(cl_event ev, cl_event sentinel, cl_event *writes, cl_uint n)
{
    if (ev && ev != sentinel)
        clReleaseEvent(ev);
    for (cl_uint i = 0; i < n; i++)
        if (writes[i]) {
            clWaitForEvents(1, &writes[i]);
            clReleaseEvent(writes[i]);
        }
}

/* Creates a case's src and dst buffers (in place: dst is src, retained once more). */
static cl_int clscan_src_dst(cl_context cl_ctx, size_t src_len, size_t dst_len, int in_place,
                             cl_mem *src, cl_mem *dst)
{
    cl_int err;
    if (!(*src = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, src_len, NULL, &err)))
        return err;
    if (in_place) {
        clRetainMemObject(*src);
        *dst = *src;
        return CL_SUCCESS;
    }
    *dst = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, dst_len, NULL, &err);
    return *dst ? CL_SUCCESS : err;
}

/* clscan_verify_run_case (reduce 0) and clscan_verify_run_reduce (1). */
static clscan_verify_result run_scan_or_reduce(clscan_context *ctx, cl_context cl_ctx,
                                               cl_command_queue queue,
                                               const clscan_verify_case *c, int reduce,
                                               char *msg, size_t msg_size)
{
    static char sentinel_obj;
    cl_event const sentinel = (cl_event)(void *)&sentinel_obj;
    const int in_place = c->in_place && !reduce;
    size_t es = clscan_type_size(c->type), n = c->n, doff = c->dst_offset;
    size_t soff = in_place ? doff : c->src_offset;
    const size_t n_out = reduce ? 1 : n; /* output elements */
    size_t src_len = (soff + n + CLSCAN_GUARD_ELEMS) * es;
    size_t dst_len = (doff + n_out + CLSCAN_GUARD_ELEMS) * es;
    unsigned char *src_img = malloc(src_len), *got = malloc(dst_len > src_len ? dst_len : src_len);
    unsigned char *dst_img = in_place ? src_img : malloc(dst_len);
    clscan_verify_ref *ref = NULL;
    cl_mem src = NULL, dst = NULL;
    cl_event writes[2] = {NULL, NULL}, ev = sentinel;
    cl_uint nwrites = 0;
    cl_int err = CL_SUCCESS;
    size_t bad;
    const char *what = "";
    clscan_verify_result res = CLSCAN_VERIFY_FAIL;
    int expect_unsup = clscan_verify_expect_unsupported(c->type, c->op);

    if (!src_img || !got || !dst_img) {
        clscan_say(msg, msg_size, "host out of memory");
        goto done;
    }
    memset(src_img, CLSCAN_GUARD_BYTE, src_len);
    clscan_verify_fill(src_img + soff * es, n, c->type, c->op, c->seed);
    if (!in_place)
        memset(dst_img, CLSCAN_GUARD_BYTE, dst_len);

    what = "clCreateBuffer";
    if ((err = clscan_src_dst(cl_ctx, src_len, dst_len, in_place, &src, &dst)) != CL_SUCCESS)
        goto cl_fail;
    /* Non-blocking writes whose events form the scan's wait list. */
    what = "clEnqueueWriteBuffer";
    if ((err = clEnqueueWriteBuffer(queue, src, CL_FALSE, 0, src_len, src_img, 0, NULL,
                                    &writes[nwrites++])) != CL_SUCCESS)
        goto cl_fail;
    if (!in_place &&
        (err = clEnqueueWriteBuffer(queue, dst, CL_FALSE, 0, dst_len, dst_img, 0, NULL,
                                    &writes[nwrites++])) != CL_SUCCESS)
        goto cl_fail;

    clscan_status st =
        reduce ? clscan_reduce(ctx, queue, src, soff, n, c->type, c->op, dst, doff, nwrites,
                                  writes, &ev)
                  : (c->inclusive ? clscan_inclusive_scan : clscan_exclusive_scan)(
                        ctx, queue, src, soff, dst, doff, n, c->type, c->op, nwrites, writes,
                        &ev);

    if (st != CLSCAN_SUCCESS) {
        /* A refused call must leave *event alone and write nothing. */
        what = "clFinish";
        if ((err = clFinish(queue)) != CL_SUCCESS)
            goto cl_fail;
        what = "clEnqueueReadBuffer";
        if ((err = clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, dst_len, got, 0, NULL, NULL)) !=
            CL_SUCCESS)
            goto cl_fail;
        int fp64 = clscan_queue_fp64(queue, c->type);
        if (ev != sentinel)
            clscan_say(msg, msg_size, "%s but *event was changed", clscan_status_string(st));
        else if ((bad = clscan_first_diff(got, dst_img, 0, dst_len)) != (size_t)-1)
            clscan_say(msg, msg_size, "%s but dst byte %zu was written",
                       clscan_status_string(st), bad);
        else if (st == CLSCAN_ERROR_UNSUPPORTED && (expect_unsup || !fp64)) {
            res = expect_unsup ? CLSCAN_VERIFY_PASS : CLSCAN_VERIFY_SKIP;
            clscan_say(msg, msg_size, expect_unsup
                       ? "refused with CLSCAN_ERROR_UNSUPPORTED as expected"
                       : "device has no fp64: CLSCAN_ERROR_UNSUPPORTED");
        } else
            clscan_say(msg, msg_size, "%s: %s%s", clscan_status_string(st),
                       clscan_context_last_error(ctx),
                       c->type == CLSCAN_DOUBLE && fp64 ? " (the device reports fp64)" : "");
        goto done;
    }
    if (ev == sentinel || ev == NULL) {
        ev = NULL;
        clscan_say(msg, msg_size, "CLSCAN_SUCCESS but no event was returned");
        goto done;
    }
    if (expect_unsup) {
        clscan_say(msg, msg_size, "CLSCAN_SUCCESS where CLSCAN_ERROR_UNSUPPORTED is required");
        goto done;
    }
    if ((err = clscan_verify_wait(ev, &what)) != CL_SUCCESS)
        goto cl_fail;
    what = "clEnqueueReadBuffer";
    if (!in_place) { /* the input must be untouched */
        if ((err = clEnqueueReadBuffer(queue, src, CL_TRUE, 0, src_len, got, 0, NULL, NULL)) !=
            CL_SUCCESS)
            goto cl_fail;
        if ((bad = clscan_first_diff(got, src_img, 0, src_len)) != (size_t)-1) {
            clscan_say(msg, msg_size, "src byte %zu was changed (element %zu)", bad, bad / es);
            goto done;
        }
    }
    if ((err = clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, dst_len, got, 0, NULL, NULL)) !=
        CL_SUCCESS)
        goto cl_fail;
    if ((bad = clscan_first_diff(got, NULL, 0, doff * es)) != (size_t)-1 ||
        (bad = clscan_first_diff(got, NULL, (doff + n_out) * es, dst_len)) != (size_t)-1) {
        clscan_say(msg, msg_size, "write outside the output: dst byte %zu (element %zu; "
                   "output is elements [%zu, %zu))", bad, bad / es, doff, doff + n_out);
        goto done;
    }
    /* A reduction is the inclusive scan's last element; with n == 0 the identity, which
     * is element 0 of an exclusive scan of one (guard) element. */
    if (!(ref = reduce ? clscan_verify_reference(c->type, c->op, n > 0, src_img + soff * es,
                                                    n ? n : 1)
                          : clscan_verify_reference(c->type, c->op, c->inclusive,
                                                    src_img + soff * es, n))) {
        clscan_say(msg, msg_size, "host out of memory (reference)");
        goto done;
    }
    if (reduce ? clscan_verify_compare_range(ref, n ? n - 1 : 0, 1, got + doff * es, msg,
                                                msg_size)
                  : clscan_verify_compare(ref, got + doff * es, msg, msg_size))
        res = CLSCAN_VERIFY_PASS;
    goto done;

cl_fail:
    clscan_say(msg, msg_size, "%s failed: %s", what, clscan_status_string(err));
    clFinish(queue);
done:
    clscan_release_events(ev, sentinel, writes, nwrites);
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    clscan_verify_ref_free(ref);
    if (!in_place)
        free(dst_img);
    free(src_img);
    free(got);
    return res;
}

clscan_verify_result clscan_verify_run_case(clscan_context *ctx, cl_context cl_ctx,
                                            cl_command_queue queue,
                                            const clscan_verify_case *c, char *msg,
                                            size_t msg_size)
{
    return run_scan_or_reduce(ctx, cl_ctx, queue, c, 0, msg, msg_size);
}

clscan_verify_result clscan_verify_run_reduce(clscan_context *ctx, cl_context cl_ctx,
                                              cl_command_queue queue,
                                              const clscan_verify_case *c, char *msg,
                                              size_t msg_size)
{
    return run_scan_or_reduce(ctx, cl_ctx, queue, c, 1, msg, msg_size);
}

/* ---------------------------------------------------------------- sizes ------- */

const clscan_verify_layout clscan_verify_layouts[CLSCAN_VERIFY_LAYOUT_COUNT] = {
    {0, 0, 0}, {3, 17, 0}, {5, 5, 1}};

/* Copies count sizes of list into out (at most cap); returns how many. */
static size_t clscan_copy_sizes(const clscan_verify_size *list, size_t count,
                                clscan_verify_size *out, size_t cap)
{
    size_t k = 0;
    for (; k < count && k < cap; k++)
        out[k] = list[k];
    return k;
}

size_t clscan_verify_sizes(int quick, uint64_t seed, clscan_verify_size *out, size_t cap)
{
    /* Edges of any plausible tile (powers of two and their neighbours), many tiles
     * (odd sizes past a power of two), and about a million. */
    static const size_t full[] = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255,
                                  256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048,
                                  2049, 4095, 4096, 4097, 8191, 8193, 16385, 65537, 1000003};
    /* For CI and Oclgrind; the offset and in-place layouts run for the sizes flagged. */
    static const clscan_verify_size quick_list[] = {
        {0, 1}, {1, 1}, {2, 0}, {33, 1}, {255, 0}, {256, 0}, {257, 1},
        {1023, 0}, {1025, 1}, {2049, 1}, {4097, 0}, {12345, 1}};
    size_t k = 0;
    if (quick)
        return clscan_copy_sizes(quick_list, sizeof quick_list / sizeof *quick_list, out, cap);
    for (size_t i = 0; i < sizeof full / sizeof *full && k < cap; i++) {
        size_t n = full[i];
        /* All layouts for 0, 1 and each 2^j + 1 (a partial last tile) up to 65537. */
        int all = n <= 1 || (n <= 65537 && ((n - 1) & (n - 2)) == 0);
        out[k++] = (clscan_verify_size){n, all};
    }
    clscan_verify_rng rng = {clscan_verify_mix(seed, 0x5173)};
    for (int i = 0; i < 3 && k < cap; i++)
        out[k++] = (clscan_verify_size){1 + clscan_verify_rng_next(&rng) % 300000, 1};
    return k;
}

/* ------------------------------------------------------------- compaction ---- */

const char *clscan_verify_kind_name(clscan_verify_kind kind)
{
    static const char *const names[CLSCAN_VERIFY_KIND_COUNT] = {"select_flagged", "select_if",
                                                                "partition_if", "unique"};
    return (unsigned)kind < CLSCAN_VERIFY_KIND_COUNT ? names[kind] : "invalid";
}

/* The value of float bits x of type t (FLOAT widened exactly to double). */
static double clscan_bits_value(clscan_type t, uint64_t x)
{
    if (t == CLSCAN_FLOAT) {
        uint32_t w = (uint32_t)x;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    double d;
    memcpy(&d, &x, 8);
    return d;
}

/* Host twins of the predicates' OpenCL C. x holds INT32 sign-extended, so the int64 view
 * of a signed type is its value; OpenCL C's % truncates towards zero, as C's does. */
static int clscan_pred_even(clscan_type t, uint64_t x, uint64_t i)
{
    (void)t, (void)i;
    return (x & 1) == 0;
}

static int clscan_pred_positive(clscan_type t, uint64_t x, uint64_t i)
{
    (void)i;
    if (clscan_is_float(t))
        return clscan_bits_value(t, x) > 0; /* false for NaN and both zeros */
    return clscan_is_signed(t) ? (int64_t)x > 0 : x > 0;
}

static int clscan_pred_mod7(clscan_type t, uint64_t x, uint64_t i)
{
    (void)i;
    return clscan_is_signed(t) ? (int64_t)x % 7 == 3 : x % 7 == 3;
}

static int clscan_pred_nan_or_low(clscan_type t, uint64_t x, uint64_t i)
{
    (void)i;
    double v = clscan_bits_value(t, x);
    return isnan(v) || v < -0.5;
}

static int clscan_pred_every_third(clscan_type t, uint64_t x, uint64_t i)
{
    (void)t, (void)x;
    return i % 3 == 0;
}

static int clscan_pred_thousands(clscan_type t, uint64_t x, uint64_t i)
{
    (void)t, (void)x;
    return (i / 1000) % 2 == 0;
}

static int clscan_pred_none(clscan_type t, uint64_t x, uint64_t i)
{
    (void)t, (void)x, (void)i;
    return 0;
}

static int clscan_pred_all(clscan_type t, uint64_t x, uint64_t i)
{
    (void)t, (void)x, (void)i;
    return 1;
}

#define CLSCAN_INT_TYPES 0x0fu   /* INT32, UINT32, INT64, UINT64 */
#define CLSCAN_FLOAT_TYPES 0x30u /* FLOAT, DOUBLE */
#define CLSCAN_ALL_TYPES 0x3fu

const clscan_verify_predicate clscan_verify_predicates[CLSCAN_VERIFY_PREDICATE_COUNT] = {
    {"(x & 1) == 0", CLSCAN_INT_TYPES, 1, clscan_pred_even},
    {"x > 0", CLSCAN_ALL_TYPES, 0, clscan_pred_positive},
    {"x % 7 == 3", CLSCAN_INT_TYPES, 0, clscan_pred_mod7},
    {"isnan(x) || x < -0.5f", CLSCAN_FLOAT_TYPES, 1, clscan_pred_nan_or_low},
    {"i % 3 == 0", CLSCAN_ALL_TYPES, 0, clscan_pred_every_third},
    {"(i / 1000) % 2 == 0", CLSCAN_ALL_TYPES, 1, clscan_pred_thousands},
    {"0", CLSCAN_ALL_TYPES, 1, clscan_pred_none},
    {"1", CLSCAN_ALL_TYPES, 0, clscan_pred_all}};

size_t clscan_verify_compact_patterns(clscan_verify_kind kind, clscan_type type, int quick,
                                      int *out, size_t cap)
{
    size_t k = 0;
    if (kind == CLSCAN_VERIFY_SELECT_IF || kind == CLSCAN_VERIFY_PARTITION_IF) {
        for (int p = 0; p < CLSCAN_VERIFY_PREDICATE_COUNT && k < cap; p++)
            if ((clscan_verify_predicates[p].types >> type & 1) &&
                (!quick || clscan_verify_predicates[p].quick))
                out[k++] = p;
        /* Quick: each predicate is a program to build, so two per kind and type: the data
         * predicate, then the runs or the keep-nothing one, alternating. */
        if (quick && k == 3) {
            out[1] = out[1 + (kind + type) % 2];
            k = 2;
        }
        return k;
    }
    int count = kind == CLSCAN_VERIFY_UNIQUE ? CLSCAN_VERIFY_DUPS_COUNT : CLSCAN_VERIFY_FLAGS_COUNT;
    for (int p = 0; p < count && k < cap; p++)
        out[k++] = p;
    return k;
}

const char *clscan_verify_pattern_name(const clscan_verify_compact_case *c, char *buf,
                                       size_t size)
{
    static const char *const flags[CLSCAN_VERIFY_FLAGS_COUNT] = {
        "flags none", "flags all", "flags half", "flags runs", "flags sparse"};
    static const char *const dups[CLSCAN_VERIFY_DUPS_COUNT] = {
        "dups runs", "dups equal", "dups distinct", "dups special"};
    unsigned p = (unsigned)c->pattern;
    if (c->kind == CLSCAN_VERIFY_SELECT_FLAGGED)
        return p < CLSCAN_VERIFY_FLAGS_COUNT ? flags[p] : "flags invalid";
    if (c->kind == CLSCAN_VERIFY_UNIQUE)
        return p < CLSCAN_VERIFY_DUPS_COUNT ? dups[p] : "dups invalid";
    const char *text = c->predicate ? c->predicate->text
                       : p < CLSCAN_VERIFY_PREDICATE_COUNT ? clscan_verify_predicates[p].text
                                                           : NULL;
    if (!text)
        return "predicate invalid";
    clscan_say(buf, size, "predicate \"%s\"", text);
    return buf;
}

void clscan_verify_compact_layout(clscan_verify_compact_case *c, int l)
{
    c->src_offset = clscan_verify_layouts[l].src_offset;
    c->dst_offset = clscan_verify_layouts[l].dst_offset;
    c->in_place = clscan_verify_layouts[l].in_place;
    c->flags_offset = l ? 5 : 0;
}

/* The bits of one special value of type t, chosen by r: floats +0.0, -0.0, a quiet NaN
 * (random sign and payload), +-infinity, 1.0; integers 0, 1, all ones, the minimum, the
 * maximum. */
static uint64_t clscan_special_bits(clscan_type t, uint64_t r)
{
    unsigned k = (unsigned)(r % 6);
    uint64_t pay = r >> 8;
    if (t == CLSCAN_FLOAT) {
        static const uint32_t v[6] = {0, 0x80000000u, 0x7fc00000u, 0x7f800000u, 0xff800000u,
                                      0x3f800000u};
        return k == 2 ? v[2] | (pay & 0x3fffffu) | (uint32_t)(pay >> 40 & 1) << 31 : v[k];
    }
    if (t == CLSCAN_DOUBLE) {
        static const uint64_t v[6] = {0, 0x8000000000000000u, 0x7ff8000000000000u,
                                      0x7ff0000000000000u, 0xfff0000000000000u,
                                      0x3ff0000000000000u};
        return k == 2 ? v[2] | (pay & 0x7ffffffffffffu) | (r >> 63) << 63 : v[k];
    }
    uint64_t min = t == CLSCAN_INT32 ? 0x80000000u : t == CLSCAN_INT64 ? 0x8000000000000000u : 0;
    switch (k) {
    case 0: return 0;
    case 1: return 1;
    case 2: return clscan_canon(~(uint64_t)0, t);
    case 3: return clscan_canon(min, t);
    case 4: return clscan_canon(min - 1, t); /* the maximum: min - 1 wraps, all ones if unsigned */
    default: return clscan_canon(r >> 16, t);
    }
}

/* A random element of type t: integers all bits random, floats uniform in [-1, 1) on a
 * grid of 2^-23 (FLOAT) or 2^-52 (DOUBLE), so never denormal. With probability
 * `special`/64 a special value instead. */
static uint64_t clscan_random_bits(clscan_verify_rng *rng, clscan_type t, unsigned special)
{
    uint64_t r = clscan_verify_rng_next(rng);
    if ((r & 63) < special)
        return clscan_special_bits(t, clscan_verify_rng_next(rng));
    if (t == CLSCAN_FLOAT) {
        float f = (float)((double)(r >> 40) * 0x1p-23 - 1);
        uint32_t w;
        memcpy(&w, &f, 4);
        return w;
    }
    if (t == CLSCAN_DOUBLE) {
        double d = (double)(r >> 11) * 0x1p-52 - 1;
        uint64_t w;
        memcpy(&w, &d, 8);
        return w;
    }
    return clscan_canon(r, t);
}

/* A run length: mostly 1 to 4, sometimes up to 64, one in eight up to 4000 (several
 * tiles of every shape the tests use). */
static size_t clscan_run_length(clscan_verify_rng *rng)
{
    uint64_t r = clscan_verify_rng_next(rng);
    unsigned scale = (unsigned)(r & 7);
    r >>= 8;
    return 1 + (size_t)(scale < 5 ? r % 4 : scale < 7 ? r % 64 : r % 4000);
}

/* 1 where element a and element b of p differ by C's != on the type (NaN differs from
 * everything, -0.0 equals +0.0), as OpenCL C's != does. */
int clscan_verify_differs(const void *p, size_t a, size_t b, clscan_type t)
{
    if (t == CLSCAN_FLOAT) {
        float x, y;
        memcpy(&x, (const char *)p + 4 * a, 4);
        memcpy(&y, (const char *)p + 4 * b, 4);
        return x != y;
    }
    if (t == CLSCAN_DOUBLE) {
        double x, y;
        memcpy(&x, (const char *)p + 8 * a, 8);
        memcpy(&y, (const char *)p + 8 * b, 8);
        return x != y;
    }
    return clscan_verify_load_bits(p, a, t) != clscan_verify_load_bits(p, b, t);
}

void clscan_verify_compact_fill(const clscan_verify_compact_case *c, void *src,
                                unsigned char *flags)
{
    clscan_verify_rng rng = {c->seed};
    const clscan_type t = c->type;
    const size_t n = c->n;
    if (c->kind != CLSCAN_VERIFY_UNIQUE) {
        for (size_t i = 0; i < n; i++)
            clscan_verify_store_bits(src, i, t, clscan_random_bits(&rng, t, 4));
    } else if (c->pattern == CLSCAN_VERIFY_DUPS_DISTINCT) {
        for (size_t i = 0; i < n; i++) {
            do
                clscan_verify_store_bits(src, i, t, clscan_random_bits(&rng, t, 4));
            while (i > 0 && !clscan_verify_differs(src, i - 1, i, t));
        }
    } else {
        uint64_t v = clscan_random_bits(&rng, t, 0);
        for (size_t i = 0, left = 0; i < n; i++, left--) {
            if (left == 0 && c->pattern != CLSCAN_VERIFY_DUPS_EQUAL) {
                left = clscan_run_length(&rng);
                v = c->pattern == CLSCAN_VERIFY_DUPS_SPECIAL
                        ? clscan_special_bits(t, clscan_verify_rng_next(&rng))
                        : clscan_random_bits(&rng, t, 4);
            }
            clscan_verify_store_bits(src, i, t, v);
        }
    }
    if (c->kind != CLSCAN_VERIFY_SELECT_FLAGGED || !flags)
        return;
    int on = (int)(clscan_verify_rng_next(&rng) & 1);
    for (size_t i = 0, left = 0; i < n; i++) {
        uint64_t r = clscan_verify_rng_next(&rng);
        unsigned char set = (unsigned char)(1 + (r >> 8) % 255); /* any nonzero byte keeps */
        switch (c->pattern) {
        case CLSCAN_VERIFY_FLAGS_ALL: flags[i] = set; break;
        case CLSCAN_VERIFY_FLAGS_HALF: flags[i] = r & 1 ? set : 0; break;
        case CLSCAN_VERIFY_FLAGS_SPARSE: flags[i] = r % 100 == 0 ? set : 0; break;
        case CLSCAN_VERIFY_FLAGS_RUNS:
            if (left == 0) {
                left = r % 5 ? 1 + (size_t)((r >> 32) % 4000) : 1 + (size_t)((r >> 32) % 16);
                on = !on;
            }
            left--;
            flags[i] = on ? set : 0;
            break;
        default: flags[i] = 0; /* FLAGS_NONE */
        }
    }
}

size_t clscan_verify_compact_reference(clscan_verify_kind kind, clscan_type type,
                                       const clscan_verify_predicate *pred, const void *src,
                                       const unsigned char *flags, size_t n, void *out)
{
    const size_t es = clscan_type_size(type);
    size_t kept = 0, rejected = 0;
    for (size_t i = 0; i < n; i++) {
        int keep;
        switch (kind) {
        case CLSCAN_VERIFY_SELECT_FLAGGED: keep = flags[i] != 0; break;
        case CLSCAN_VERIFY_UNIQUE:
            keep = i == 0 || clscan_verify_differs(src, i - 1, i, type);
            break;
        default: keep = pred->host(type, clscan_verify_load_bits(src, i, type), i) != 0;
        }
        const char *from = (const char *)src + i * es;
        if (keep)
            memcpy((char *)out + kept++ * es, from, es);
        else if (kind == CLSCAN_VERIFY_PARTITION_IF) /* the first rejected goes last */
            memcpy((char *)out + (n - ++rejected) * es, from, es);
    }
    return kept;
}

/* Element i of p as clscan_format prints it, with the bits of a float (NaN payloads,
 * the sign of zero). */
static void clscan_format_bits(char *buf, size_t size, const void *p, size_t i, clscan_type t)
{
    clscan_format(buf, size, p, i, t);
    if (clscan_is_float(t)) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, " (bits 0x%0*" PRIx64 ")", t == CLSCAN_FLOAT ? 8 : 16,
                 clscan_verify_load_bits(p, i, t));
    }
}

#define CLSCAN_COUNT_BYTES 64 /* the count buffer: the cl_ulong, then guard bytes */

/* Reads `len` bytes of mem (after the wait list) into got and returns the first byte
 * that differs from img (NULL: the guard byte), or (size_t)-1; *err gets the read's. */
static size_t clscan_read_diff(cl_command_queue queue, cl_mem mem, size_t len,
                               const unsigned char *img, unsigned char *got, cl_uint nwait,
                               const cl_event *wait, cl_int *err)
{
    *err = clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, len, got, nwait, nwait ? wait : NULL,
                               NULL);
    return *err == CL_SUCCESS ? clscan_first_diff(got, img, 0, len) : (size_t)-1;
}

/* Explains the first byte `bad` where the dst image got differs from want. */
static void clscan_explain_dst(char *msg, size_t size, const clscan_verify_compact_case *c,
                               size_t kept, const unsigned char *got,
                               const unsigned char *want, size_t bad)
{
    size_t es = clscan_type_size(c->type), e = bad / es, doff = c->dst_offset;
    char g[96], w[96];
    clscan_format_bits(g, sizeof g, got, e, c->type);
    clscan_format_bits(w, sizeof w, want, e, c->type);
    if (e < doff || e >= doff + c->n) {
        clscan_say(msg, size, "write outside the output: dst element %zu (output is "
                   "elements [%zu, %zu)): got %s, was %s", e, doff, doff + c->n, g, w);
    } else if (e - doff < kept) {
        clscan_say(msg, size, "dst[%zu] (kept element %zu of %zu): got %s, expected %s",
                   e - doff, e - doff, kept, g, w);
    } else if (c->kind == CLSCAN_VERIFY_PARTITION_IF) {
        clscan_say(msg, size, "dst[%zu] (rejected element %zu of %zu in input order, stored "
                   "in reverse): got %s, expected %s", e - doff, c->n - 1 - (e - doff),
                   c->n - kept, g, w);
    } else {
        clscan_say(msg, size, "dst[%zu], past the %zu kept, was written: got %s, was %s",
                   e - doff, kept, g, w);
    }
}

/* One compaction case of clscan_verify_run_compact: its host images (src, dst, flags and
 * count as written before the call; want: dst as it must be after), its buffers and the
 * writes that filled them. In place, dst_img is src_img. */
typedef struct clscan_compact_run {
    const clscan_verify_compact_case *c;
    const clscan_verify_predicate *pred;
    int flagged;
    size_t es, soff, src_len, dst_len, flags_len, kept;
    unsigned char *src_img, *dst_img, *flags_img, *want, *got, *ref;
    unsigned char count_img[CLSCAN_COUNT_BYTES], count_got[CLSCAN_COUNT_BYTES];
    cl_mem src, dst, flags, count;
    cl_event writes[4];
    cl_uint nwrites;
} clscan_compact_run;

/* Sizes and fills r's images for case c: guard bytes around src's input, dst's output
 * and the flags; the reference pasted into want. 0, or -1 with msg saying why. */
static int clscan_compact_prepare(clscan_compact_run *r, const clscan_verify_compact_case *c,
                                  char *msg, size_t msg_size)
{
    const size_t n = c->n, doff = c->dst_offset, foff = c->flags_offset;
    r->c = c;
    r->flagged = c->kind == CLSCAN_VERIFY_SELECT_FLAGGED;
    r->pred = c->predicate;
    if (!r->pred && (c->kind == CLSCAN_VERIFY_SELECT_IF || c->kind == CLSCAN_VERIFY_PARTITION_IF) &&
        (unsigned)c->pattern < CLSCAN_VERIFY_PREDICATE_COUNT)
        r->pred = &clscan_verify_predicates[c->pattern];
    r->es = clscan_type_size(c->type);
    r->soff = c->in_place ? doff : c->src_offset;
    r->src_len = (r->soff + n + CLSCAN_GUARD_ELEMS) * r->es;
    r->dst_len = (doff + n + CLSCAN_GUARD_ELEMS) * r->es;
    r->flags_len = r->flagged ? foff + n + CLSCAN_GUARD_ELEMS : 0;
    size_t got_len = r->src_len > r->dst_len ? r->src_len : r->dst_len;
    if (got_len < r->flags_len)
        got_len = r->flags_len;
    r->src_img = malloc(r->src_len);
    r->want = malloc(r->dst_len);
    r->got = malloc(got_len);
    r->dst_img = c->in_place ? r->src_img : malloc(r->dst_len);
    r->flags_img = r->flagged ? malloc(r->flags_len) : NULL;
    r->ref = malloc(n ? n * r->es : 1);
    if (!r->src_img || !r->want || !r->got || !r->dst_img || (r->flagged && !r->flags_img) ||
        !r->ref) {
        clscan_say(msg, msg_size, "host out of memory");
        return -1;
    }
    if (!r->flagged && c->kind != CLSCAN_VERIFY_UNIQUE && !r->pred) {
        clscan_say(msg, msg_size, "pattern %d is not a predicate of the table", c->pattern);
        return -1;
    }
    memset(r->src_img, CLSCAN_GUARD_BYTE, r->src_len);
    if (!c->in_place)
        memset(r->dst_img, CLSCAN_GUARD_BYTE, r->dst_len);
    if (r->flagged)
        memset(r->flags_img, CLSCAN_GUARD_BYTE, r->flags_len);
    memset(r->count_img, CLSCAN_GUARD_BYTE, sizeof r->count_img);
    unsigned char *input = r->src_img + r->soff * r->es;
    unsigned char *flags = r->flagged ? r->flags_img + foff : NULL;
    clscan_verify_compact_fill(c, input, flags);
    /* What dst must hold afterwards: as before the call, with the reference pasted in. */
    r->kept = clscan_verify_compact_reference(c->kind, c->type, r->pred, input, flags, n, r->ref);
    memcpy(r->want, r->dst_img, r->dst_len);
    memcpy(r->want + doff * r->es, r->ref,
           (c->kind == CLSCAN_VERIFY_PARTITION_IF ? n : r->kept) * r->es);
    return 0;
}

/* Creates r's buffers and enqueues the non-blocking writes of their images, whose events
 * (r->writes) form the call's wait list. CL_SUCCESS, or the error and *what failed. */
static cl_int clscan_compact_upload(clscan_compact_run *r, cl_context cl_ctx,
                                    cl_command_queue queue, const char **what)
{
    const int in_place = r->c->in_place;
    cl_int err;
    *what = "clCreateBuffer";
    if ((err = clscan_src_dst(cl_ctx, r->src_len, r->dst_len, in_place, &r->src, &r->dst)) !=
        CL_SUCCESS)
        return err;
    if (r->flagged &&
        !(r->flags = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, r->flags_len, NULL, &err)))
        return err;
    if (!(r->count = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, sizeof r->count_img, NULL, &err)))
        return err;
    *what = "clEnqueueWriteBuffer";
    struct { cl_mem mem; size_t len; const void *img; } init[4] = {
        {r->src, r->src_len, r->src_img}, {in_place ? NULL : r->dst, r->dst_len, r->dst_img},
        {r->flags, r->flags_len, r->flags_img}, {r->count, sizeof r->count_img, r->count_img}};
    for (int k = 0; k < 4; k++)
        if (init[k].mem && (err = clEnqueueWriteBuffer(queue, init[k].mem, CL_FALSE, 0,
                                                       init[k].len, init[k].img, 0, NULL,
                                                       &r->writes[r->nwrites++])) != CL_SUCCESS)
            return err;
    return CL_SUCCESS;
}

/* Enqueues r's compaction after the writes; its event into *ev. */
static clscan_status clscan_compact_call(const clscan_compact_run *r, clscan_context *ctx,
                                         cl_command_queue queue, cl_event *ev)
{
    const clscan_verify_compact_case *c = r->c;
    const size_t soff = r->soff, doff = c->dst_offset, n = c->n;
    switch (c->kind) {
    case CLSCAN_VERIFY_SELECT_FLAGGED:
        return clscan_select_flagged(ctx, queue, r->src, soff, r->flags, c->flags_offset, r->dst,
                                     doff, r->count, n, c->type, r->nwrites, r->writes, ev);
    case CLSCAN_VERIFY_SELECT_IF:
        return clscan_select_if(ctx, queue, r->src, soff, r->dst, doff, r->count, n, c->type,
                                r->pred->text, r->nwrites, r->writes, ev);
    case CLSCAN_VERIFY_PARTITION_IF:
        return clscan_partition_if(ctx, queue, r->src, soff, r->dst, doff, r->count, n, c->type,
                                   r->pred->text, r->nwrites, r->writes, ev);
    default:
        return clscan_unique(ctx, queue, r->src, soff, r->dst, doff, r->count, n, c->type,
                             r->nwrites, r->writes, ev);
    }
}

/* After a refused call (status st; event_changed: it wrote *event): every buffer must be
 * as it was. The result, with msg; on a failed read FAIL and *err (msg unwritten). */
static clscan_verify_result clscan_compact_refused(clscan_compact_run *r, clscan_context *ctx,
                                                   cl_command_queue queue, clscan_status st,
                                                   int event_changed, cl_int *err, char *msg,
                                                   size_t msg_size)
{
    const clscan_type t = r->c->type;
    char detail[512];
    clscan_say(detail, sizeof detail, "%s", clscan_context_last_error(ctx));
    int fp64 = clscan_queue_fp64(queue, t);
    /* Every buffer as it was: dst, src, flags, count. */
    struct {
        cl_mem mem;
        size_t len;
        const unsigned char *img;
        unsigned char *into;
        const char *name;
    } b[4] = {
        {r->dst, r->dst_len, r->dst_img, r->got, "dst"},
        {r->c->in_place ? NULL : r->src, r->src_len, r->src_img, r->got, "src"},
        {r->flags, r->flags_len, r->flags_img, r->got, "flags"},
        {r->count, sizeof r->count_img, r->count_img, r->count_got, "count"}};
    const char *name = "";
    size_t bad = (size_t)-1;
    *err = CL_SUCCESS;
    for (int k = 0; k < 4 && !*name && *err == CL_SUCCESS; k++)
        if (b[k].mem && (bad = clscan_read_diff(queue, b[k].mem, b[k].len, b[k].img, b[k].into,
                                                r->nwrites, r->writes, err)) != (size_t)-1)
            name = b[k].name;
    if (*err != CL_SUCCESS)
        return CLSCAN_VERIFY_FAIL;
    if (event_changed) {
        clscan_say(msg, msg_size, "%s but *event was changed", clscan_status_string(st));
    } else if (*name) {
        clscan_say(msg, msg_size, "%s but %s byte %zu was written", clscan_status_string(st),
                   name, bad);
    } else if (st == CLSCAN_ERROR_UNSUPPORTED && t == CLSCAN_DOUBLE && !fp64) {
        clscan_say(msg, msg_size, "device has no fp64: CLSCAN_ERROR_UNSUPPORTED");
        return CLSCAN_VERIFY_SKIP;
    } else {
        clscan_say(msg, msg_size, "%s: %s%s", clscan_status_string(st), detail,
                   t == CLSCAN_DOUBLE ? " (the device reports fp64)" : "");
    }
    return CLSCAN_VERIFY_FAIL;
}

/* After a completed call: the count exactly (and nothing past its 8 bytes), dst against
 * want, src (unless in place) and flags unchanged. The result, with msg; on a failed read
 * FAIL and *err (msg unwritten). */
static clscan_verify_result clscan_compact_check(clscan_compact_run *r, cl_command_queue queue,
                                                 cl_int *err, char *msg, size_t msg_size)
{
    const size_t n = r->c->n, kept = r->kept;
    size_t bad;
    clscan_read_diff(queue, r->count, sizeof r->count_img, r->count_img, r->count_got, 0, NULL,
                     err);
    if (*err != CL_SUCCESS)
        return CLSCAN_VERIFY_FAIL;
    cl_ulong got_count;
    memcpy(&got_count, r->count_got, sizeof got_count);
    if ((bad = clscan_first_diff(r->count_got, NULL, 8, sizeof r->count_got)) != (size_t)-1) {
        clscan_say(msg, msg_size, "count byte %zu (past the cl_ulong) was written", bad);
        return CLSCAN_VERIFY_FAIL;
    }
    /* dst: the kept elements, then (selects and unique) what was there before. */
    bad = clscan_read_diff(queue, r->dst, r->dst_len, r->want, r->got, 0, NULL, err);
    if (*err != CL_SUCCESS)
        return CLSCAN_VERIFY_FAIL;
    char why[512] = "dst as expected";
    if (bad != (size_t)-1)
        clscan_explain_dst(why, sizeof why, r->c, kept, r->got, r->want, bad);
    if (got_count != kept) {
        clscan_say(msg, msg_size, "count: got %llu%s, expected %zu; %s",
                   (unsigned long long)got_count,
                   clscan_first_diff(r->count_got, NULL, 0, 8) == (size_t)-1 ? " (never written)"
                                                                             : "",
                   kept, why);
        return CLSCAN_VERIFY_FAIL;
    }
    if (bad != (size_t)-1) {
        clscan_say(msg, msg_size, "%s", why);
        return CLSCAN_VERIFY_FAIL;
    }
    if (!r->c->in_place) { /* the input must be untouched */
        if ((bad = clscan_read_diff(queue, r->src, r->src_len, r->src_img, r->got, 0, NULL,
                                    err)) != (size_t)-1) {
            clscan_say(msg, msg_size, "src byte %zu was changed (element %zu)", bad, bad / r->es);
            return CLSCAN_VERIFY_FAIL;
        }
        if (*err != CL_SUCCESS)
            return CLSCAN_VERIFY_FAIL;
    }
    if (r->flagged) {
        if ((bad = clscan_read_diff(queue, r->flags, r->flags_len, r->flags_img, r->got, 0, NULL,
                                    err)) != (size_t)-1) {
            clscan_say(msg, msg_size, "flags byte %zu was changed", bad);
            return CLSCAN_VERIFY_FAIL;
        }
        if (*err != CL_SUCCESS)
            return CLSCAN_VERIFY_FAIL;
    }
    clscan_say(msg, msg_size, "ok (kept %zu of %zu)", kept, n);
    return CLSCAN_VERIFY_PASS;
}

/* Releases what r holds (ev as clscan_release_events takes it). */
static void clscan_compact_free(clscan_compact_run *r, cl_event ev, cl_event sentinel)
{
    clscan_release_events(ev, sentinel, r->writes, r->nwrites);
    cl_mem mems[4] = {r->src, r->dst, r->flags, r->count};
    for (int k = 0; k < 4; k++)
        if (mems[k])
            clReleaseMemObject(mems[k]);
    if (!r->c->in_place)
        free(r->dst_img);
    free(r->src_img);
    free(r->flags_img);
    free(r->want);
    free(r->got);
    free(r->ref);
}

clscan_verify_result clscan_verify_run_compact(clscan_context *ctx, cl_context cl_ctx,
                                               cl_command_queue queue,
                                               const clscan_verify_compact_case *c,
                                               char *msg, size_t msg_size)
{
    static char sentinel_obj;
    cl_event const sentinel = (cl_event)(void *)&sentinel_obj;
    clscan_compact_run r = {0};
    cl_event ev = sentinel;
    cl_int err = CL_SUCCESS;
    const char *what = "";
    clscan_verify_result res = CLSCAN_VERIFY_FAIL;

    if (clscan_compact_prepare(&r, c, msg, msg_size))
        goto done;
    if ((err = clscan_compact_upload(&r, cl_ctx, queue, &what)) != CL_SUCCESS)
        goto cl_fail;
    clscan_status st = clscan_compact_call(&r, ctx, queue, &ev);
    if (st != CLSCAN_SUCCESS) { /* a refused call must leave *event alone, write nothing */
        what = "clEnqueueReadBuffer";
        res = clscan_compact_refused(&r, ctx, queue, st, ev != sentinel, &err, msg, msg_size);
        if (err != CL_SUCCESS)
            goto cl_fail;
        ev = sentinel;
        goto done;
    }
    if (ev == sentinel || ev == NULL) {
        ev = NULL;
        clscan_say(msg, msg_size, "CLSCAN_SUCCESS but no event was returned");
        goto done;
    }
    if ((err = clscan_verify_wait(ev, &what)) != CL_SUCCESS)
        goto cl_fail;
    what = "clEnqueueReadBuffer";
    res = clscan_compact_check(&r, queue, &err, msg, msg_size);
    if (err == CL_SUCCESS)
        goto done;

cl_fail:
    clscan_say(msg, msg_size, "%s failed: %s", what, clscan_status_string(err));
    clFinish(queue);
done:
    clscan_compact_free(&r, ev, sentinel);
    return res;
}

size_t clscan_verify_compact_sizes(int quick, uint64_t seed, clscan_verify_size *out,
                                   size_t cap)
{
    /* Under 3000 for Oclgrind: around Oclgrind's tiles (1024 elements of 4 bytes, 512 of
     * 8) and a few of them. */
    static const clscan_verify_size quick_list[] = {
        {0, 1}, {1, 1}, {2, 0}, {33, 1}, {511, 0}, {513, 0}, {1023, 0}, {1024, 0},
        {1025, 1}, {2049, 1}, {2999, 0}};
    if (quick)
        return clscan_copy_sizes(quick_list, sizeof quick_list / sizeof *quick_list, out, cap);
    size_t k = clscan_verify_sizes(0, seed, out, cap);
    if (k < cap)
        out[k++] = (clscan_verify_size){((size_t)1 << 20) + 7, 1};
    return k;
}

/* ---------------------------------------------------------------- sorts -------- */

const char *clscan_verify_sort_kind_name(clscan_verify_sort_kind kind)
{
    return kind == CLSCAN_VERIFY_SORT_KEYS ? "sort_keys"
           : kind == CLSCAN_VERIFY_SORT_PAIRS ? "sort_pairs"
                                              : "invalid";
}

const char *clscan_verify_keys_name(int pattern)
{
    static const char *const names[CLSCAN_VERIFY_KEYS_COUNT] = {
        "random", "few", "special", "descending", "narrow", "skewed", "gapped", "low"};
    return pattern >= 0 && pattern < CLSCAN_VERIFY_KEYS_COUNT ? names[pattern] : "invalid";
}

uint64_t clscan_verify_sort_ordered(uint64_t bits, clscan_type type)
{
    switch (type) {
    case CLSCAN_INT32: return (bits & 0xffffffffu) ^ 0x80000000u;
    case CLSCAN_UINT32: return bits & 0xffffffffu;
    case CLSCAN_INT64: return bits ^ 0x8000000000000000u;
    case CLSCAN_FLOAT:
        bits &= 0xffffffffu;
        return bits & 0x80000000u ? ~bits & 0xffffffffu : bits | 0x80000000u;
    case CLSCAN_DOUBLE:
        return bits & 0x8000000000000000u ? ~bits : bits | 0x8000000000000000u;
    default: return bits;
    }
}

/* The key bits whose ordered form is o: the inverse of clscan_verify_sort_ordered. */
static uint64_t clscan_sort_unordered(uint64_t o, clscan_type type)
{
    switch (type) {
    case CLSCAN_INT32: return o ^ 0x80000000u;
    case CLSCAN_INT64: return o ^ 0x8000000000000000u;
    case CLSCAN_FLOAT: return o & 0x80000000u ? o ^ 0x80000000u : ~o & 0xffffffffu;
    case CLSCAN_DOUBLE: return o & 0x8000000000000000u ? o ^ 0x8000000000000000u : ~o;
    default: return o;
    }
}

void clscan_verify_sort_layout(clscan_verify_sort_case *c, int l)
{
    static const size_t offs[3][4] = {{0, 0, 0, 0}, {3, 5, 17, 9}, {5, 7, 5, 7}};
    c->keys_offset = offs[l][0];
    c->values_offset = offs[l][1];
    c->keys_out_offset = offs[l][2];
    c->values_out_offset = offs[l][3];
    c->in_place = l == 2;
}

static uint64_t clscan_sort_load(const void *p, size_t i, size_t es)
{
    if (es == 4) {
        uint32_t w;
        memcpy(&w, (const unsigned char *)p + i * 4, 4);
        return w;
    }
    uint64_t w;
    memcpy(&w, (const unsigned char *)p + i * 8, 8);
    return w;
}

static void clscan_sort_store(void *p, size_t i, size_t es, uint64_t v)
{
    if (es == 4) {
        uint32_t w = (uint32_t)v;
        memcpy((unsigned char *)p + i * 4, &w, 4);
    } else {
        memcpy((unsigned char *)p + i * 8, &v, 8);
    }
}

/* The value of index i (see clscan_verify_sort_case). */
static uint64_t clscan_sort_value(size_t i, size_t es)
{
    return es == 4 ? ((uint64_t)i ^ 0xa5a5a5a5u) & 0xffffffffu
                   : (uint64_t)(uint32_t)i | (uint64_t)(uint32_t)~(uint32_t)i << 32;
}

/* A special key of type t chosen by r: the compaction's specials, and for floats also
 * denormals of either sign and NaNs with the sign bit set. */
static uint64_t clscan_sort_special(clscan_type t, uint64_t r)
{
    if (clscan_is_float(t) && (r & 3) == 0) {
        const int f = t == CLSCAN_FLOAT;
        const uint64_t sign = f ? 0x80000000u : 0x8000000000000000u;
        const uint64_t mant = (r >> 8) & (f ? 0x7fffffu : 0xfffffffffffffu);
        return ((r >> 2) & 1 ? sign : 0) | (mant ? mant : 1); /* a denormal */
    }
    return clscan_special_bits(t, r >> 2);
}

void clscan_verify_sort_fill(const clscan_verify_sort_case *c, void *keys)
{
    clscan_verify_rng rng = {c->seed};
    const size_t es = clscan_type_size(c->key_type);
    const uint64_t mask = es == 4 ? 0xffffffffu : ~(uint64_t)0;
    uint64_t few[16];
    for (int k = 0; k < 16; k++) few[k] = clscan_verify_rng_next(&rng) & mask;
    /* Descending: distinct ordered values from the top, in steps of up to 2^16. */
    uint64_t down = mask;
    for (size_t i = 0; i < c->n; i++) {
        const uint64_t r = clscan_verify_rng_next(&rng);
        uint64_t v;
        switch (c->pattern) {
        case CLSCAN_VERIFY_KEYS_FEW: v = few[r & 15]; break;
        case CLSCAN_VERIFY_KEYS_SPECIAL:
            v = r & 1 ? clscan_sort_special(c->key_type, r >> 1) : clscan_verify_rng_next(&rng);
            break;
        case CLSCAN_VERIFY_KEYS_DESCENDING:
            v = clscan_sort_unordered(down, c->key_type);
            down -= 1 + (r & 0xffff);
            break;
        case CLSCAN_VERIFY_KEYS_NARROW: v = r & 0xffffffu; break;
        case CLSCAN_VERIFY_KEYS_SKEWED: v = (r & 15) ? few[0] : clscan_verify_rng_next(&rng); break;
        case CLSCAN_VERIFY_KEYS_GAPPED: v = (r & ~(uint64_t)0xff00) | 0x5a00; break;
        case CLSCAN_VERIFY_KEYS_LOW: v = r & (es == 4 ? 0xfffffu : 0x1fffffffu); break;
        default: v = r; break;
        }
        clscan_sort_store(keys, i, es, v & mask);
    }
}

/* A stable least-significant-digit radix sort on the host, by bytes of the ordered
 * bits, which carries each key's input index (a pass whose keys all share the byte
 * changes nothing and is skipped): seconds at 2^27 keys, where qsort took a minute. */
int clscan_verify_sort_reference(clscan_type key_type, const void *keys, size_t n,
                                 size_t *perm)
{
    const size_t es = clscan_type_size(key_type), m = n ? n : 1;
    uint64_t *kbuf = malloc(m * sizeof *kbuf), *kbuf2 = malloc(m * sizeof *kbuf2);
    size_t *ibuf = malloc(m * sizeof *ibuf);
    if (!kbuf || !kbuf2 || !ibuf) {
        free(kbuf), free(kbuf2), free(ibuf);
        return -1;
    }
    uint64_t *k = kbuf, *k_to = kbuf2;
    size_t *idx = perm, *idx_to = ibuf;
    for (size_t i = 0; i < n; i++) {
        k[i] = clscan_verify_sort_ordered(clscan_sort_load(keys, i, es), key_type);
        idx[i] = i;
    }
    for (unsigned shift = 0; n && shift < 8 * es; shift += 8) {
        size_t start[256] = {0};
        for (size_t i = 0; i < n; i++) start[(k[i] >> shift) & 255]++;
        if (start[(k[0] >> shift) & 255] == n) continue;
        for (size_t d = 0, sum = 0; d < 256; d++) {
            const size_t c = start[d];
            start[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            const size_t at = start[(k[i] >> shift) & 255]++;
            k_to[at] = k[i];
            idx_to[at] = idx[i];
        }
        uint64_t *kt = k;
        k = k_to, k_to = kt;
        size_t *it = idx;
        idx = idx_to, idx_to = it;
    }
    if (idx != perm) memcpy(perm, idx, n * sizeof *perm);
    free(kbuf), free(kbuf2), free(ibuf);
    return 0;
}

/* One guarded range of a sort case: a buffer of `len` bytes whose bytes [off, off +
 * bytes) hold the range; img is its host image. */
typedef struct clscan_sort_range {
    cl_mem mem;
    unsigned char *img;
    size_t len, off, bytes;
} clscan_sort_range;

enum { CLSCAN_SORT_GUARD = 16, CLSCAN_SORT_POISON = 0xa7 };

/* Creates r's buffer with `data` (if not NULL) at its range and poison around. */
static cl_int clscan_sort_range_make(cl_context cl_ctx, clscan_sort_range *r, size_t off_elems,
                                     size_t n, size_t es, const void *data)
{
    r->off = off_elems * es;
    r->bytes = n * es;
    r->len = r->off + r->bytes + CLSCAN_SORT_GUARD * es;
    r->img = malloc(r->len);
    if (!r->img) return CL_OUT_OF_HOST_MEMORY;
    memset(r->img, CLSCAN_SORT_POISON, r->len);
    if (data) memcpy(r->img + r->off, data, r->bytes);
    cl_int err;
    r->mem = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, r->len, r->img,
                            &err);
    return err;
}

clscan_verify_result clscan_verify_run_sort(clscan_context *ctx, cl_context cl_ctx,
                                            cl_command_queue queue,
                                            const clscan_verify_sort_case *c, char *msg,
                                            size_t msg_size)
{
    const int pairs = c->kind == CLSCAN_VERIFY_SORT_PAIRS;
    const size_t n = c->n, kb = clscan_type_size(c->key_type);
    const size_t vb = pairs ? clscan_type_size(c->value_type) : 0;
    clscan_verify_result res = CLSCAN_VERIFY_FAIL;
    clscan_sort_range kin = {0}, vin = {0}, kout = {0}, vout = {0};
    unsigned char *keys = malloc(n * kb + 1), *values = malloc(n * (vb ? vb : 1) + 1);
    unsigned char *got = NULL;
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    cl_event ev = NULL;
    cl_int err = CL_SUCCESS;
    const char *what = "host memory";
    if (!keys || !values || !perm) goto cl_fail;
    clscan_verify_sort_fill(c, keys);
    for (size_t i = 0; i < n && pairs; i++) clscan_sort_store(values, i, vb, clscan_sort_value(i, vb));
    what = "clCreateBuffer";
    if ((err = clscan_sort_range_make(cl_ctx, &kin, c->keys_offset, n, kb, keys)) != CL_SUCCESS ||
        (pairs &&
         (err = clscan_sort_range_make(cl_ctx, &vin, c->values_offset, n, vb, values)) !=
             CL_SUCCESS) ||
        (!c->in_place &&
         (err = clscan_sort_range_make(cl_ctx, &kout, c->keys_out_offset, n, kb, NULL)) !=
             CL_SUCCESS) ||
        (pairs && !c->in_place &&
         (err = clscan_sort_range_make(cl_ctx, &vout, c->values_out_offset, n, vb, NULL)) !=
             CL_SUCCESS))
        goto cl_fail;
    const clscan_sort_range *ko = c->in_place ? &kin : &kout, *vo = c->in_place ? &vin : &vout;
    clscan_status st =
        pairs ? clscan_sort_pairs(ctx, queue, kin.mem, c->keys_offset, vin.mem,
                                  c->values_offset, ko->mem, ko->off / kb, vo->mem,
                                  vo->off / vb, n, c->key_type, c->value_type, 0, NULL, &ev)
              : clscan_sort_keys(ctx, queue, kin.mem, c->keys_offset, ko->mem, ko->off / kb, n,
                                 c->key_type, 0, NULL, &ev);
    const int skip = c->key_type == CLSCAN_DOUBLE && !clscan_queue_fp64(queue, c->key_type);
    if (skip) {
        if (st != CLSCAN_ERROR_UNSUPPORTED) {
            clscan_say(msg, msg_size, "double keys on a device without fp64 returned %s, not "
                       "CLSCAN_ERROR_UNSUPPORTED", clscan_status_string(st));
            goto done;
        }
        /* (The outputs are checked untouched below.) */
    } else if (st != CLSCAN_SUCCESS) {
        clscan_say(msg, msg_size, "returned %s: %s", clscan_status_string(st),
                   clscan_context_last_error(ctx));
        goto done;
    } else {
        if ((err = clscan_verify_wait(ev, &what)) != CL_SUCCESS) goto cl_fail;
    }
    what = "the host reference (out of memory)";
    if (clscan_verify_sort_reference(c->key_type, keys, n, perm)) goto cl_fail;
    /* Every buffer is read whole: the outputs' ranges must hold the reference, and every
     * other byte what was there before (the inputs' images, poison around the outputs). */
    const clscan_sort_range *all[4] = {&kin, &vin, &kout, &vout};
    for (int b = 0; b < 4; b++) {
        const clscan_sort_range *r = all[b];
        if (!r->mem) continue;
        free(got);
        what = "clEnqueueReadBuffer";
        if (!(got = malloc(r->len)) ||
            (err = clEnqueueReadBuffer(queue, r->mem, CL_TRUE, 0, r->len, got, 0, NULL, NULL)) !=
                CL_SUCCESS)
            goto cl_fail;
        const int is_out = !skip && (r == ko || (pairs && r == vo));
        const int is_keys = r == &kin || r == &kout;
        const size_t es = is_keys ? kb : vb;
        static const char *const names[4] = {"keys", "values", "keys_out", "values_out"};
        for (size_t at = 0; at < r->len; at++) {
            const int inside = at >= r->off && at < r->off + r->bytes;
            if (is_out && inside) continue;
            if (got[at] != r->img[at]) {
                clscan_say(msg, msg_size, "%s byte %zu (element %zu) was changed%s", names[b],
                           at, at / es, inside ? "" : ", outside the ranges of the call");
                goto done;
            }
        }
        if (!is_out) continue;
        for (size_t i = 0; i < n; i++) {
            const uint64_t g = clscan_sort_load(got + r->off, i, es);
            const uint64_t w = is_keys ? clscan_sort_load(keys, perm[i], kb)
                                       : clscan_sort_value(perm[i], vb);
            if (g != w) {
                clscan_say(msg, msg_size, "%s[%zu] = 0x%" PRIx64 ", expected 0x%" PRIx64
                           " (input index %zu)", names[b], i,
                           g, w, perm[i]);
                goto done;
            }
        }
    }
    clscan_say(msg, msg_size, skip ? "refused (no fp64), nothing written" : "ok");
    res = skip ? CLSCAN_VERIFY_SKIP : CLSCAN_VERIFY_PASS;
    goto done;
cl_fail:
    clscan_say(msg, msg_size, "%s failed: %s", what, clscan_status_string(err));
    res = CLSCAN_VERIFY_FAIL;
done:
    if (ev) clReleaseEvent(ev);
    clscan_sort_range *own[4] = {&kin, &vin, &kout, &vout};
    for (int b = 0; b < 4; b++) {
        if (own[b]->mem) clReleaseMemObject(own[b]->mem);
        free(own[b]->img);
    }
    free(got);
    free(keys);
    free(values);
    free(perm);
    return res;
}
