/* verify.c - host reference scans with stated tolerances, input generation, size lists
 * and the guarded one-case device runner used by clscan-selftest and the tests. */
#include "verify.h"

#include "clscan_internal.h"

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

static uint64_t clscan_load_int(const void *p, size_t i, clscan_type t)
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

static void clscan_store_int(void *p, size_t i, clscan_type t, uint64_t v)
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

static uint64_t clscan_int_identity(clscan_type t, clscan_op op)
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

static uint64_t clscan_int_combine(uint64_t a, uint64_t b, clscan_type t, clscan_op op)
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

static long double clscan_load_float(const void *p, size_t i, clscan_type t)
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

static void clscan_store_float(void *p, size_t i, clscan_type t, long double v)
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
            clscan_store_int(dst, i, type, v);
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
        clscan_store_float(dst, i, type, v);
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
        uint64_t acc = clscan_int_identity(type, op);
        for (size_t i = 0; i < n; i++) {
            uint64_t x = clscan_load_int(src, i, type), next = clscan_int_combine(acc, x, type, op);
            clscan_store_int(ref->exact, i, type, inclusive ? next : acc);
            acc = next;
        }
    } else if (!wide) { /* MIN, MAX (AND/OR/XOR are refused, never compared) */
        long double acc = op == CLSCAN_OP_MIN ? INFINITY : -INFINITY;
        for (size_t i = 0; i < n; i++) {
            long double x = clscan_load_float(src, i, type);
            long double next = op == CLSCAN_OP_MIN ? fminl(acc, x) : fmaxl(acc, x);
            clscan_store_float(ref->exact, i, type, inclusive ? next : acc);
            acc = next;
        }
    } else {
        long double eps = type == CLSCAN_FLOAT ? FLT_EPSILON : DBL_EPSILON, B = 64;
        for (size_t m = n + 1; m > 1; m = (m + 1) / 2)
            B += 2; /* + 2*ceil(log2(n+1)) */
        long double s = op == CLSCAN_OP_MUL ? 1 : 0, c = 0, mag = 0;
        for (size_t i = 0; i < n; i++) {
            long double x = clscan_load_float(src, i, type), before = s + c, mag0 = mag, t;
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
        long double v = clscan_load_float(p, i, t);
        snprintf(buf, size, t == CLSCAN_FLOAT ? "%.9Lg" : "%.17Lg", v);
        return;
    }
    uint64_t v = clscan_load_int(p, i, t);
    if (clscan_is_signed(t) && (v >> 63))
        snprintf(buf, size, "-%" PRIu64 " (0x%" PRIx64 ")", ~v + 1,
                 t == CLSCAN_INT32 ? v & 0xffffffffu : v);
    else
        snprintf(buf, size, "%" PRIu64 " (0x%" PRIx64 ")", v, v);
}

int clscan_verify_compare(const clscan_verify_ref *ref, const void *got, char *msg,
                          size_t msg_size)
{
    size_t es = clscan_type_size(ref->type);
    char g[64], e[64];
    for (size_t i = 0; i < ref->n; i++) {
        if (ref->val) {
            long double v = clscan_load_float(got, i, ref->type);
            if (fabsl(v - ref->val[i]) <= ref->tol[i])
                continue;
            clscan_format(g, sizeof g, got, i, ref->type);
            clscan_say(msg, msg_size, "index %zu: got %s, expected %.21Lg (tolerance %.3Lg)",
                       i, g, ref->val[i], ref->tol[i]);
            return 0;
        }
        if (clscan_is_float(ref->type)) {
            long double a = clscan_load_float(got, i, ref->type);
            if (a == clscan_load_float(ref->exact, i, ref->type))
                continue;
        } else if (!memcmp((const char *)got + i * es, (const char *)ref->exact + i * es, es)) {
            continue;
        }
        clscan_format(g, sizeof g, got, i, ref->type);
        clscan_format(e, sizeof e, ref->exact, i, ref->type);
        clscan_say(msg, msg_size, "index %zu: got %s, expected %s (exact)", i, g, e);
        return 0;
    }
    clscan_say(msg, msg_size, "ok");
    return 1;
}

/* ------------------------------------------------------------- device -------- */

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
                           CL_SUCCESS && clscan__has_token(ext, "cl_khr_fp64");
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

clscan_verify_result clscan_verify_run_case(clscan_context *ctx, cl_context cl_ctx,
                                            cl_command_queue queue,
                                            const clscan_verify_case *c, char *msg,
                                            size_t msg_size)
{
    static char sentinel_obj;
    cl_event const sentinel = (cl_event)(void *)&sentinel_obj;
    size_t es = clscan_type_size(c->type), n = c->n, doff = c->dst_offset;
    size_t soff = c->in_place ? doff : c->src_offset;
    size_t src_len = (soff + n + CLSCAN_GUARD_ELEMS) * es;
    size_t dst_len = (doff + n + CLSCAN_GUARD_ELEMS) * es;
    unsigned char *src_img = malloc(src_len), *got = malloc(dst_len > src_len ? dst_len : src_len);
    unsigned char *dst_img = c->in_place ? src_img : malloc(dst_len);
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
    if (!c->in_place)
        memset(dst_img, CLSCAN_GUARD_BYTE, dst_len);

    what = "clCreateBuffer";
    src = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, src_len, NULL, &err);
    if (err != CL_SUCCESS)
        goto cl_fail;
    if (c->in_place) {
        dst = src;
        clRetainMemObject(dst);
    } else if (!(dst = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, dst_len, NULL, &err))) {
        goto cl_fail;
    }
    /* Non-blocking writes whose events form the scan's wait list. */
    what = "clEnqueueWriteBuffer";
    if ((err = clEnqueueWriteBuffer(queue, src, CL_FALSE, 0, src_len, src_img, 0, NULL,
                                    &writes[nwrites++])) != CL_SUCCESS)
        goto cl_fail;
    if (!c->in_place &&
        (err = clEnqueueWriteBuffer(queue, dst, CL_FALSE, 0, dst_len, dst_img, 0, NULL,
                                    &writes[nwrites++])) != CL_SUCCESS)
        goto cl_fail;

    clscan_status st = (c->inclusive ? clscan_inclusive_scan : clscan_exclusive_scan)(
        ctx, queue, src, soff, dst, doff, n, c->type, c->op, nwrites, writes, &ev);

    if (st != CLSCAN_SUCCESS) {
        /* A refused call must leave *event alone and write nothing. */
        what = "clFinish";
        if ((err = clFinish(queue)) != CL_SUCCESS)
            goto cl_fail;
        what = "clEnqueueReadBuffer";
        if ((err = clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, dst_len, got, 0, NULL, NULL)) !=
            CL_SUCCESS)
            goto cl_fail;
        int fp64 = 1;
        if (c->type == CLSCAN_DOUBLE) {
            cl_device_id dev;
            if (clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) == CL_SUCCESS)
                fp64 = clscan_verify_device_has_fp64(dev);
        }
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
    cl_int exec = CL_QUEUED;
    what = "clWaitForEvents on the scan's event";
    if ((err = clWaitForEvents(1, &ev)) != CL_SUCCESS)
        goto cl_fail;
    what = "clGetEventInfo";
    if ((err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec,
                              NULL)) != CL_SUCCESS)
        goto cl_fail;
    if (exec != CL_COMPLETE) {
        clscan_say(msg, msg_size, "scan event ended with status %d (%s)", (int)exec,
                   clscan_status_string(exec));
        goto done;
    }
    what = "clEnqueueReadBuffer";
    if (!c->in_place) { /* the input must be untouched */
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
        (bad = clscan_first_diff(got, NULL, (doff + n) * es, dst_len)) != (size_t)-1) {
        clscan_say(msg, msg_size, "write outside the output: dst byte %zu (element %zu; "
                   "output is elements [%zu, %zu))", bad, bad / es, doff, doff + n);
        goto done;
    }
    if (!(ref = clscan_verify_reference(c->type, c->op, c->inclusive, src_img + soff * es, n))) {
        clscan_say(msg, msg_size, "host out of memory (reference)");
        goto done;
    }
    if (clscan_verify_compare(ref, got + doff * es, msg, msg_size))
        res = CLSCAN_VERIFY_PASS;
    goto done;

cl_fail:
    clscan_say(msg, msg_size, "%s failed: %s", what, clscan_status_string(err));
    clFinish(queue);
done:
    if (ev && ev != sentinel)
        clReleaseEvent(ev);
    for (cl_uint i = 0; i < nwrites; i++)
        if (writes[i]) {
            clWaitForEvents(1, &writes[i]); /* the host images must outlive the writes */
            clReleaseEvent(writes[i]);
        }
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    clscan_verify_ref_free(ref);
    if (!c->in_place)
        free(dst_img);
    free(src_img);
    free(got);
    return res;
}

/* ---------------------------------------------------------------- sizes ------- */

const clscan_verify_layout clscan_verify_layouts[CLSCAN_VERIFY_LAYOUT_COUNT] = {
    {0, 0, 0}, {3, 17, 0}, {5, 5, 1}};

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
    if (quick) {
        for (size_t i = 0; i < sizeof quick_list / sizeof *quick_list && k < cap; i++)
            out[k++] = quick_list[i];
        return k;
    }
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
