/* test_stream.c - Check suite for clscan_scan_host (host ranges scanned through the device
 * in chunks on two queues): int32, int64 and float add, exclusive and inclusive, at sizes
 * around the chunk (0, 1, chunk - 1, chunk, chunk + 1, many chunks, chunk > n, the
 * default chunk) against the host reference, with guard bands around dst; general scans
 * (custom operators, a non-commutative struct, transforms to wider elements); in place;
 * carry-in from a host value and a buffer, the total, chains of calls; one queue given
 * twice, out-of-order queues, a wait list that holds the call back; thousands of small
 * chunks (event chains kept bounded, issue 20); and every argument error with its exact
 * status and message, nothing enqueued. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_devices.h"
#include "verify_general.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The device under test in the running loop over clscan_test_devs (tests/test_devices.c:
 * the first device of each platform matching $CLSCAN_TEST_PLATFORM). */
static clscan_test_dev *gd;

#define GUARD 16     /* elements of poison on each side of dst */
#define POISON 0xa5

/* A second queue on gd's device with `props`; NULL (and a note) where the device refuses
 * them (out-of-order execution is optional). */
static cl_command_queue make_queue(cl_command_queue_properties props)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(gd->cl_ctx, gd->dev, props, &err);
    if (!q) fprintf(stderr, "%s: no queue with properties 0x%llx (%s)\n", gd->name,
                    (unsigned long long)props, clscan_status_string(err));
    return q;
}

/* Whether the device runs out-of-order queues. */
static int has_out_of_order(void)
{
    cl_command_queue_properties props = 0;
    return clGetDeviceInfo(gd->dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL) ==
               CL_SUCCESS &&
           (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

/* dst with GUARD poisoned elements on each side: a block of (n + 2 GUARD) elements. */
static unsigned char *guarded(size_t n, size_t es)
{
    unsigned char *block = malloc((n + 2 * GUARD) * es);
    ck_assert(block != NULL);
    memset(block, POISON, (n + 2 * GUARD) * es);
    return block;
}

static void check_guards(const unsigned char *block, size_t n, size_t es, const char *what)
{
    for (size_t b = 0; b < GUARD * es; ++b) {
        ck_assert_msg(block[b] == POISON, "%s: byte %zu before dst was written", what,
                      GUARD * es - b);
        ck_assert_msg(block[(GUARD + n) * es + b] == POISON, "%s: byte %zu after dst was written",
                      what, b);
    }
}

/* Runs clscan_scan_host on qs and waits for its event. */
static clscan_status stream(const cl_command_queue qs[2], const clscan_scan_desc *d, int inclusive,
                            const void *src, void *dst, size_t n, size_t chunk,
                            const clscan_carry *carry)
{
    cl_event ev = NULL;
    clscan_status s =
        clscan_scan_host(gd->ctx, qs, d, inclusive, src, dst, n, chunk, carry, 0, NULL, &ev);
    if (s == CLSCAN_SUCCESS) clscan_test_wait_release(ev, "clscan_scan_host");
    return s;
}

/* --------------------------------------------------- built-in operators ---- */

/* (n, chunk) pairs: empty, one element, the chunk's edges, many chunks, one element per
 * chunk, a chunk larger than n, and the library's choice (0). */
static const size_t sizes[][2] = {{0, 1000},   {1, 1000},      {999, 1000}, {1000, 1000},
                                  {1001, 1000}, {100003, 1000}, {37, 1},     {1234, 5000},
                                  {100003, 0}};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const clscan_type builtin_types[] = {CLSCAN_INT32, CLSCAN_INT64, CLSCAN_FLOAT};

/* Add over type t, out of place (in_place 0) or in place, every size, against the
 * reference (floats to its tolerance: the chunks' edges change the association). */
static void builtin(clscan_type t, int inclusive, int in_place, cl_command_queue q1)
{
    const cl_command_queue qs[2] = {gd->queue, q1};
    const size_t es = clscan_type_size(t);
    clscan_scan_desc d = {0};
    d.type = t;
    d.op = CLSCAN_OP_ADD;
    const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261126u), (uint64_t)t);
    for (size_t z = 0; z < NSIZES; ++z) {
        const size_t n = sizes[z][0], chunk = sizes[z][1];
        char what[400], msg[512];
        snprintf(what, sizeof what, "%s: %s add %s, n %zu, chunk %zu%s", gd->name,
                 clscan_type_name(t), inclusive ? "inclusive" : "exclusive", n, chunk,
                 in_place ? ", in place" : "");
        unsigned char *in = malloc(n * es + 1), *block = guarded(n, es), *dst = block + GUARD * es;
        ck_assert(in != NULL);
        clscan_verify_fill(in, n, t, CLSCAN_OP_ADD, clscan_verify_mix(seed, n));
        if (in_place) memcpy(dst, in, n * es);
        const clscan_status s = stream(qs, &d, inclusive, in_place ? dst : in, dst, n, chunk, NULL);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s", what, clscan_status_string(s),
                      clscan_context_last_error(gd->ctx));
        clscan_verify_ref *ref = clscan_verify_reference(t, CLSCAN_OP_ADD, inclusive, in, n);
        ck_assert(ref != NULL);
        ck_assert_msg(clscan_verify_compare(ref, dst, msg, sizeof msg), "%s: %s", what, msg);
        check_guards(block, n, es, what);
        clscan_verify_ref_free(ref);
        free(in);
        free(block);
    }
}

START_TEST(test_builtin)
{
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        cl_command_queue q1 = make_queue(0);
        ck_assert(q1 != NULL);
        builtin(builtin_types[_i / 2], _i % 2, 0, q1);
        clReleaseCommandQueue(q1);
    }
}
END_TEST

START_TEST(test_in_place)
{
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        cl_command_queue q1 = make_queue(0);
        ck_assert(q1 != NULL);
        builtin(CLSCAN_INT32, 0, 1, q1);
        builtin(CLSCAN_FLOAT, 1, 1, q1);
        clReleaseCommandQueue(q1);
    }
}
END_TEST

/* ----------------------------------------------------- general scans ------ */

/* The unsegmented cases of tools/verify_general.c: a custom float max, the
 * non-commutative 2x2 matrix product (a carry combined on the wrong side shows), a
 * (sum, count) struct from floats (8-byte output from 4-byte input), and transforms, one
 * of them reading the index i, which must count across the chunks. */
static void general(int k)
{
    const clscan_verify_gen_case c = clscan_verify_gen_case_get(k);
    ck_assert(c.desc.segments == CLSCAN_SEGMENTS_NONE);
    cl_command_queue q1 = make_queue(0);
    ck_assert(q1 != NULL);
    const cl_command_queue qs[2] = {gd->queue, q1};
    static const size_t gsizes[][2] = {{5, 2}, {2500, 1000}, {30011, 1024}};
    clscan_verify_rng rng = {clscan_verify_mix(clscan_test_seed(20261126u), 100u + (unsigned)k)};
    for (size_t z = 0; z < sizeof gsizes / sizeof gsizes[0]; ++z)
        for (int inclusive = 0; inclusive < 2; ++inclusive)
            for (int in_place = 0; in_place < (c.in_size == c.out_size ? 2 : 1); ++in_place) {
                const size_t n = gsizes[z][0], chunk = gsizes[z][1];
                char what[400];
                snprintf(what, sizeof what, "%s: %s, %s, n %zu, chunk %zu%s", gd->name, c.name,
                         inclusive ? "inclusive" : "exclusive", n, chunk,
                         in_place ? ", in place" : "");
                unsigned char *in = malloc(n * c.in_size), *want = malloc(n * c.out_size);
                unsigned char *block = guarded(n, c.out_size), *dst = block + GUARD * c.out_size;
                ck_assert(in && want);
                c.fill(in, n, &rng);
                clscan_verify_gen_reference(&c, inclusive, in, NULL, n, want);
                if (in_place) memcpy(dst, in, n * c.in_size);
                const clscan_status s =
                    stream(qs, &c.desc, inclusive, in_place ? dst : in, dst, n, chunk, NULL);
                ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s", what, clscan_status_string(s),
                              clscan_context_last_error(gd->ctx));
                for (size_t i = 0; i < n; ++i)
                    ck_assert_msg(!memcmp(dst + i * c.out_size, want + i * c.out_size,
                                          c.out_size),
                                  "%s: element %zu differs from the host reference", what, i);
                check_guards(block, n, c.out_size, what);
                free(in);
                free(want);
                free(block);
            }
    clReleaseCommandQueue(q1);
}

START_TEST(test_general)
{
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        if (clscan_verify_gen_case_get(_i).desc.type == CLSCAN_DOUBLE && !gd->fp64) continue;
        general(_i);
    }
}
END_TEST

/* ---------------------------------------------------------------- carry --- */

/* The exact reference with a carry-in: add or max over int32 or int64 (load and store
 * as the low bytes of an int64). carry NULL: none. Returns the total. */
static int64_t combine(clscan_type t, clscan_op op, int64_t a, int64_t b)
{
    if (op == CLSCAN_OP_MAX) return a > b ? a : b;
    const uint64_t sum = (uint64_t)a + (uint64_t)b;
    return t == CLSCAN_INT32 ? (int64_t)(int32_t)(uint32_t)sum : (int64_t)sum;
}
static int64_t load(const void *p, size_t i, clscan_type t)
{
    if (t == CLSCAN_INT32) return ((const int32_t *)p)[i];
    return ((const int64_t *)p)[i];
}
static void store(void *p, size_t i, clscan_type t, int64_t v)
{
    if (t == CLSCAN_INT32) ((int32_t *)p)[i] = (int32_t)v;
    else ((int64_t *)p)[i] = v;
}
static int64_t reference(clscan_type t, clscan_op op, int inclusive, const void *in, size_t n,
                         const void *carry, void *out)
{
    int64_t acc = op == CLSCAN_OP_MAX ? (t == CLSCAN_INT32 ? INT32_MIN : INT64_MIN) : 0;
    if (carry) acc = load(carry, 0, t);
    for (size_t i = 0; i < n; ++i) {
        const int64_t next = combine(t, op, acc, load(in, i, t));
        store(out, i, t, inclusive ? next : acc);
        acc = next;
    }
    return acc;
}

/* Where a case takes its carry-in from, and whether it asks for the total. */
enum { CARRY_NONE, CARRY_VALUE, CARRY_BUFFER };

/* One call with a carry over (t, op; custom: the operator as combine and identity text)
 * against the reference, the total too. */
static void carry_case(const cl_command_queue qs[2], clscan_type t, clscan_op op, int custom,
                       int inclusive, size_t n, size_t chunk, int in_from, int want_total,
                       uint64_t seed)
{
    const size_t es = clscan_type_size(t);
    clscan_scan_desc d = {0};
    d.type = t;
    d.op = op;
    if (custom) {
        d.combine = "max(a, b)";
        d.identity = t == CLSCAN_INT32 ? "INT_MIN" : "LONG_MIN";
    }
    char what[400];
    snprintf(what, sizeof what, "%s: %s %s%s %s, n %zu, chunk %zu, carry-in %s%s", gd->name,
             clscan_type_name(t), custom ? "custom " : "", clscan_op_name(op),
             inclusive ? "inclusive" : "exclusive", n, chunk,
             in_from == CARRY_VALUE ? "value" : in_from == CARRY_BUFFER ? "buffer" : "none",
             want_total ? ", total" : "");
    unsigned char *in = malloc(n * es + 1), *want = malloc(n * es + 1), *block = guarded(n, es);
    unsigned char *dst = block + GUARD * es;
    ck_assert(in && want);
    clscan_verify_fill(in, n, t, op, seed);
    int64_t c64 = (int64_t)clscan_verify_mix(seed, 7);
    unsigned char cin[8];
    store(cin, 0, t, c64);
    const int64_t total =
        reference(t, op, inclusive, in, n, in_from != CARRY_NONE ? cin : NULL, want);
    /* The carry buffer: the carry-in at element 3, the total at element 5, poison around. */
    unsigned char cbuf[64];
    memset(cbuf, POISON, sizeof cbuf);
    memcpy(cbuf + 3 * es, cin, es);
    cl_mem cmem = clscan_test_buffer(gd, 8 * es, cbuf);
    clscan_carry carry = {0};
    if (in_from == CARRY_VALUE) carry.in_value = cin;
    if (in_from == CARRY_BUFFER) carry.in_buffer = cmem, carry.in_offset = 3;
    if (want_total) carry.out_buffer = cmem, carry.out_offset = 5;
    const clscan_status s = stream(qs, &d, inclusive, in, dst, n, chunk, &carry);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s", what, clscan_status_string(s),
                  clscan_context_last_error(gd->ctx));
    for (size_t i = 0; i < n; ++i)
        ck_assert_msg(load(dst, i, t) == load(want, i, t),
                      "%s: element %zu is %lld, expected %lld", what, i,
                      (long long)load(dst, i, t), (long long)load(want, i, t));
    check_guards(block, n, es, what);
    unsigned char got[64];
    clscan_test_read(gd, cmem, 8 * es, got);
    for (size_t e = 0; e < 8; ++e) {
        if (e == 5 && want_total) {
            ck_assert_msg(load(got, 5, t) == total, "%s: total %lld, expected %lld", what,
                          (long long)load(got, 5, t), (long long)total);
            continue;
        }
        ck_assert_msg(!memcmp(got + e * es, cbuf + e * es, es),
                      "%s: carry buffer element %zu was written", what, e);
    }
    clReleaseMemObject(cmem);
    free(in);
    free(want);
    free(block);
}

START_TEST(test_carry)
{
    static const size_t csizes[][2] = {{0, 1000}, {500, 1000}, {1000, 1000}, {100003, 1000}};
    const clscan_type t = _i ? CLSCAN_INT64 : CLSCAN_INT32;
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        cl_command_queue q1 = make_queue(0);
        ck_assert(q1 != NULL);
        const cl_command_queue qs[2] = {gd->queue, q1};
        const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261126u), 200u + (unsigned)_i);
        for (size_t z = 0; z < sizeof csizes / sizeof csizes[0]; ++z)
            for (int inclusive = 0; inclusive < 2; ++inclusive)
                for (int in_from = CARRY_NONE; in_from <= CARRY_BUFFER; ++in_from)
                    for (int total = 0; total < 2; ++total)
                        carry_case(qs, t, CLSCAN_OP_ADD, 0, inclusive, csizes[z][0], csizes[z][1],
                                   in_from, total, clscan_verify_mix(seed, z));
        /* A custom operator (text), with both carries. */
        for (int inclusive = 0; inclusive < 2; ++inclusive) {
            carry_case(qs, t, CLSCAN_OP_MAX, 1, inclusive, 20011, 777, CARRY_VALUE, 1, seed);
            carry_case(qs, t, CLSCAN_OP_MAX, 1, inclusive, 20011, 777, CARRY_BUFFER, 1, seed);
        }
        clReleaseCommandQueue(q1);
    }
}
END_TEST

/* Two calls chained through a device buffer, with no wait list: the first's total (on
 * the in-order queues[0] after the call) is the second's carry-in; together they give
 * the scan of the whole range. Then the total read on queues[0] right after a call,
 * without its event: queue order alone puts it after the call. */
static void chain(void)
{
    cl_command_queue q1 = make_queue(0);
    ck_assert(q1 != NULL);
    const cl_command_queue qs[2] = {gd->queue, q1};
    const size_t n = 50001, half = 23456, chunk = 4000;
    int32_t *in = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
    ck_assert(in && want && got);
    clscan_verify_fill(in, n, CLSCAN_INT32, CLSCAN_OP_ADD, clscan_test_seed(20261126u));
    const int64_t total = reference(CLSCAN_INT32, CLSCAN_OP_ADD, 0, in, n, NULL, want);
    clscan_scan_desc d = {0};
    d.type = CLSCAN_INT32;
    cl_mem t = clscan_test_buffer(gd, 8, NULL);
    clscan_carry first = {0}, second = {0};
    first.out_buffer = t;
    second.in_buffer = t;
    second.out_buffer = t;
    second.out_offset = 1;
    ck_assert_int_eq(clscan_scan_host(gd->ctx, qs, &d, 0, in, got, half, chunk, &first, 0, NULL,
                                      NULL),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(clscan_scan_host(gd->ctx, qs, &d, 0, in + half, got + half, n - half, chunk,
                                      &second, 0, NULL, NULL),
                     CLSCAN_SUCCESS);
    int32_t totals[2];
    ck_assert_int_eq(clEnqueueReadBuffer(gd->queue, t, CL_TRUE, 0, sizeof totals, totals, 0,
                                         NULL, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clFinish(q1), CL_SUCCESS);
    ck_assert_int_eq(totals[1], (int32_t)total);
    for (size_t i = 0; i < n; ++i)
        ck_assert_msg(got[i] == want[i], "%s: chained calls: element %zu is %d, expected %d",
                      gd->name, i, got[i], want[i]);
    clReleaseMemObject(t);
    clReleaseCommandQueue(q1);
    free(in);
    free(want);
    free(got);
}

START_TEST(test_chain)
{
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        chain();
    }
}
END_TEST

/* ---------------------------------------------------------------- queues --- */

/* int64 add with a total, n 30011 in chunks of 1000, on the queue pair qs. */
static void on_queues(const cl_command_queue qs[2], const char *pair)
{
    const uint64_t seed = clscan_test_seed(20261126u);
    fprintf(stderr, "%s: queues %s\n", gd->name, pair);
    for (int inclusive = 0; inclusive < 2; ++inclusive)
        carry_case(qs, CLSCAN_INT64, CLSCAN_OP_ADD, 0, inclusive, 30011, 1000, CARRY_BUFFER, 1,
                   seed);
}

START_TEST(test_queues)
{
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        const cl_command_queue same[2] = {gd->queue, gd->queue};
        on_queues(same, "one in-order queue twice");
        if (!has_out_of_order()) {
            fprintf(stderr, "%s: no out-of-order queues: those cases skipped\n", gd->name);
            continue;
        }
        cl_command_queue o1 = make_queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        cl_command_queue o2 = make_queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        ck_assert(o1 && o2);
        const cl_command_queue ooo[2] = {o1, o2}, one_ooo[2] = {o1, o1};
        const cl_command_queue mixed[2] = {gd->queue, o1}, mixed2[2] = {o1, gd->queue};
        on_queues(ooo, "two out-of-order queues");
        on_queues(one_ooo, "one out-of-order queue twice");
        on_queues(mixed, "in-order, out-of-order");
        on_queues(mixed2, "out-of-order, in-order");
        clReleaseCommandQueue(o1);
        clReleaseCommandQueue(o2);
    }
}
END_TEST

/* A user event in the wait list holds every chunk back (those of queues[1] too): dst stays
 * untouched until it completes, then the result is right. */
static void gated(void)
{
    cl_command_queue q1 = make_queue(0);
    ck_assert(q1 != NULL);
    const cl_command_queue qs[2] = {gd->queue, q1};
    const size_t n = 20000, chunk = 3000;
    int32_t *in = malloc(n * 4), *want = malloc(n * 4);
    unsigned char *block = guarded(n, 4), *dst = block + GUARD * 4;
    ck_assert(in && want);
    clscan_verify_fill(in, n, CLSCAN_INT32, CLSCAN_OP_ADD, 99);
    reference(CLSCAN_INT32, CLSCAN_OP_ADD, 1, in, n, NULL, want);
    cl_int err;
    cl_event gate = clCreateUserEvent(gd->cl_ctx, &err), ev = NULL;
    ck_assert_int_eq(err, CL_SUCCESS);
    clscan_scan_desc d = {0};
    d.type = CLSCAN_INT32;
    ck_assert_int_eq(clscan_scan_host(gd->ctx, qs, &d, 1, in, dst, n, chunk, NULL, 1, &gate, &ev),
                     CLSCAN_SUCCESS);
    const struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    cl_int status = CL_COMPLETE;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                                    NULL),
                     CL_SUCCESS);
    ck_assert_msg(status != CL_COMPLETE, "%s: the call completed before its wait list", gd->name);
    for (size_t b = 0; b < (n + 2 * GUARD) * 4; ++b)
        ck_assert_msg(block[b] == POISON, "%s: dst byte %zu written before the wait list completed",
                      gd->name, b);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    clscan_test_wait_release(ev, "clscan_scan_host after a user event");
    ck_assert(!memcmp(dst, want, n * 4));
    check_guards(block, n, 4, "gated");
    clReleaseEvent(gate);
    clReleaseCommandQueue(q1);
    free(in);
    free(want);
    free(block);
}

START_TEST(test_wait_list)
{
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        gated();
    }
}
END_TEST

/* ------------------------------------------------------------ long chains --- */

/* Many small chunks (issue 20): $CLSCAN_TEST_STREAM_CHUNKS chunks (default 2000; the
 * 'stream-long' test runs 20,000) of 256 int32 and a partial last one, on two in-order
 * queues. Each chunk's scan waits for the previous one's on the other queue, so the
 * library must keep the chains of events any driver sees bounded: rusticl (Mesa 22.3)
 * keeps every event's wait list alive with the event and frees such a chain recursively;
 * its queue thread crashed at 14,000 chunks before they were. (The 'stream' test gives
 * rusticl's threads 256 KiB of stack, RUST_MIN_STACK, where 1500 chunks crashed.) Once
 * with no event asked for (a marker after it on queues[0] waited for instead: the
 * driver drops the call's last event itself), once with the event and a total, against
 * the host reference. */
static void long_chain(void)
{
    const char *t = getenv("CLSCAN_TEST_STREAM_CHUNKS");
    const size_t chunks = t && *t ? (size_t)strtoull(t, NULL, 0) : 2000, chunk = 256;
    const size_t n = chunks * chunk + chunk / 3;
    cl_command_queue q1 = make_queue(0);
    ck_assert(q1 != NULL);
    const cl_command_queue qs[2] = {gd->queue, q1};
    const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261126u), 300u);
    fprintf(stderr, "%s: %zu chunks of %zu int32 and one of %zu\n", gd->name, chunks, chunk,
            chunk / 3);
    int32_t *in = malloc(n * 4), *want = malloc(n * 4);
    unsigned char *block = guarded(n, 4);
    int32_t *dst = (int32_t *)(block + GUARD * 4);
    ck_assert(in && want);
    clscan_verify_fill(in, n, CLSCAN_INT32, CLSCAN_OP_ADD, seed);
    reference(CLSCAN_INT32, CLSCAN_OP_ADD, 1, in, n, NULL, want);
    clscan_scan_desc d = {0};
    d.type = CLSCAN_INT32;
    const clscan_status s =
        clscan_scan_host(gd->ctx, qs, &d, 1, in, dst, n, chunk, NULL, 0, NULL, NULL);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s", clscan_status_string(s),
                  clscan_context_last_error(gd->ctx));
    /* (A marker after the call on the in-order queues[0] completes after all of it; not
     * clFinish, which returns early on rusticl 22.3 after a flush:
     * docs/IMPLEMENTATION-ISSUES.md.) */
    cl_event after = NULL;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(qs[0], 0, NULL, &after), CL_SUCCESS);
    clscan_test_wait_release(after, "a marker after clscan_scan_host");
    for (size_t i = 0; i < n; ++i)
        ck_assert_msg(dst[i] == want[i], "%s: %zu chunks, no event: element %zu is %d, expected %d",
                      gd->name, chunks, i, dst[i], want[i]);
    check_guards(block, n, 4, "long chain, no event");
    free(in);
    free(want);
    free(block);
    carry_case(qs, CLSCAN_INT32, CLSCAN_OP_ADD, 0, 0, n, chunk, CARRY_VALUE, 1, seed);
    clReleaseCommandQueue(q1);
}

START_TEST(test_long_chain)
{
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        long_chain();
    }
}
END_TEST

/* ---------------------------------------------------------------- errors --- */

/* The host array the error cases pass as dst, checked to stay untouched (others are
 * NULL or never dereferenced). */
static int32_t *watched;

/* Calls clscan_scan_host expecting `status` and a message containing `text`, *event
 * untouched, no kernel enqueued (the library's trace of the calling thread) and the
 * watched dst untouched once the queue is finished. */
static void expect_error(clscan_context *ctx, const cl_command_queue *qs,
                         const clscan_scan_desc *d, const void *src, void *dst, size_t n,
                         size_t chunk, const clscan_carry *carry, cl_uint nwait,
                         const cl_event *wait, clscan_status status, const char *text)
{
    cl_event ev = (cl_event)(uintptr_t)0x1;
    cl_event trace[4];
    size_t traced = 0;
    unsigned char before[64];
    if (dst == watched) memcpy(before, dst, sizeof before);
    clscan__trace_events(trace, 4, &traced);
    const clscan_status s =
        clscan_scan_host(ctx, qs, d, 0, src, dst, n, chunk, carry, nwait, wait, &ev);
    clscan__trace_events(NULL, 0, NULL);
    for (size_t i = 0; i < traced; ++i) clReleaseEvent(trace[i]);
    ck_assert_msg(traced == 0, "a failed call (%s) enqueued %zu kernels", text, traced);
    const char *msg = clscan_context_last_error(ctx);
    ck_assert_msg(s == status, "expected %s (%s), got %s: %s", clscan_status_string(status), text,
                  clscan_status_string(s), msg);
    ck_assert_msg(strstr(msg, text) != NULL, "message \"%s\" does not mention \"%s\"", msg, text);
    ck_assert_msg(ev == (cl_event)(uintptr_t)0x1, "a failed call (%s) touched *event", text);
    ck_assert_int_eq(clFinish(gd->queue), CL_SUCCESS);
    if (dst == watched)
        ck_assert_msg(!memcmp(before, dst, sizeof before), "a failed call (%s) wrote dst", text);
}

static void invalid(void)
{
    enum { N = 256 };
    int32_t *a = calloc(N, 4), *b = calloc(N, 4);
    ck_assert(a && b);
    watched = b;
    cl_command_queue q1 = make_queue(0);
    ck_assert(q1 != NULL);
    const cl_command_queue qs[2] = {gd->queue, q1}, first_null[2] = {NULL, q1},
                           second_null[2] = {gd->queue, NULL};
    clscan_scan_desc ok = {0};
    ok.type = CLSCAN_INT32;
    clscan_scan_desc d;
    clscan_context *ctx = gd->ctx;
    const cl_int one = 1;

    ck_assert_int_eq(clscan_scan_host(NULL, qs, &ok, 0, a, b, 16, 4, NULL, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clscan_context_last_error(NULL), "context is NULL");
    expect_error(ctx, NULL, &ok, a, b, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "queues is NULL");
    expect_error(ctx, first_null, &ok, a, b, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "queues[0] is NULL");
    expect_error(ctx, second_null, &ok, a, b, 16, 4, NULL, 0, NULL,
                 CLSCAN_ERROR_INVALID_ARGUMENT, "queues[1] is NULL");
    /* A queue of another cl_context. */
    cl_int err;
    cl_context other = clCreateContext(NULL, 1, &gd->dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_command_queue foreign = clCreateCommandQueue(other, gd->dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    const cl_command_queue with_foreign[2] = {gd->queue, foreign};
    expect_error(ctx, with_foreign, &ok, a, b, 16, 4, NULL, 0, NULL,
                 CLSCAN_ERROR_INVALID_ARGUMENT, "another cl_context");
    expect_error(ctx, qs, &ok, a, b, 16, 4, NULL, 1, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "event wait list: 1 events but the list is NULL");
    expect_error(ctx, qs, NULL, a, b, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "desc is NULL");
    d = ok;
    d.type = (clscan_type)17;
    expect_error(ctx, qs, &d, a, b, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "desc->type 17");
    d = ok;
    d.combine = "a + b";
    expect_error(ctx, qs, &d, a, b, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "desc->combine is given without desc->identity");
    d = ok;
    d.segments = CLSCAN_SEGMENTS_FLAGS;
    expect_error(ctx, qs, &d, a, b, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_UNSUPPORTED,
                 "clscan_scan_host takes no segments (desc->segments is CLSCAN_SEGMENTS_FLAGS)");
    d.segments = CLSCAN_SEGMENTS_KEYS;
    expect_error(ctx, qs, &d, a, b, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_UNSUPPORTED,
                 "(desc->segments is CLSCAN_SEGMENTS_KEYS)");
    expect_error(ctx, qs, &ok, NULL, b, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "src is NULL (n is 16)");
    expect_error(ctx, qs, &ok, a, NULL, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "dst is NULL (n is 16)");
    expect_error(ctx, qs, &ok, a, a + 4, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "overlap without being the same range");
    expect_error(ctx, qs, &ok, a + 4, a, 16, 4, NULL, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "overlap without being the same range");
    /* In place needs one element size: (sum, count) structs of 8 bytes from floats. */
    const clscan_verify_gen_case wider = clscan_verify_gen_case_get(2);
    expect_error(ctx, qs, &wider.desc, a, a, 16, 4, NULL, 0, NULL,
                 CLSCAN_ERROR_INVALID_ARGUMENT,
                 "in place (src == dst) needs input and output elements of one size, not 4 "
                 "and 8 bytes");
    /* Ranges that end within a byte of each other are apart. */
    d = ok;
    ck_assert_int_eq(stream(qs, &d, 0, a, a + 16, 16, 4, NULL), CLSCAN_SUCCESS);
    /* Byte counts past a size_t, and a chunk past the largest allocation (the pointers
     * are never dereferenced: the calls fail first). */
    expect_error(ctx, qs, &ok, a, b, SIZE_MAX / 2, 4, NULL, 0, NULL,
                 CLSCAN_ERROR_INVALID_ARGUMENT, "overflow a size_t byte count");
    const size_t big = (size_t)(ctx->target.profile.max_alloc / 4) + 1;
    void *far_src = (void *)(uintptr_t)0x100000, *far_dst = (void *)(uintptr_t)(0x100000 + 8 * big);
    expect_error(ctx, qs, &ok, far_src, far_dst, big, big, NULL, 0, NULL,
                 CLSCAN_ERROR_INVALID_ARGUMENT, "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
    /* Carries, as clscan_scan_carry checks them. */
    cl_mem c = clscan_test_buffer(gd, 16, NULL);
    clscan_carry bad = {0};
    bad.in_value = &one;
    bad.in_buffer = c;
    expect_error(ctx, qs, &ok, a, b, 16, 4, &bad, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "carry->in_value and carry->in_buffer are both given");
    bad.in_value = NULL;
    bad.in_offset = 4;
    expect_error(ctx, qs, &ok, a, b, 16, 4, &bad, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "carry->in_buffer: elements [4, 5)");
    bad.in_offset = 1;
    bad.out_buffer = c;
    bad.out_offset = 1;
    expect_error(ctx, qs, &ok, a, b, 16, 4, &bad, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "overlap");
    cl_mem foreign_buf = clCreateBuffer(other, CL_MEM_READ_WRITE, 16, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    memset(&bad, 0, sizeof bad);
    bad.out_buffer = foreign_buf;
    expect_error(ctx, qs, &ok, a, b, 16, 4, &bad, 0, NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "carry->out_buffer belongs to another cl_context");
    /* Transforms see the index in the whole range (plus index_base), chunk after chunk:
     * x * (i % 7) over 10007 ints in chunks of 1000, from index_base 0 and 100. */
    d = ok;
    d.type = CLSCAN_INT64;
    d.input_type_name = "int";
    d.transform = "(long)x * (long)(i % 7)";
    enum { TN = 10007 };
    int *xs = malloc(TN * sizeof *xs);
    cl_long *ys = malloc(TN * sizeof *ys);
    ck_assert(xs && ys);
    for (int i = 0; i < TN; ++i) xs[i] = (i * 37) % 101 - 50;
    for (size_t base = 0; base <= 100; base += 100) {
        d.index_base = base;
        ck_assert_int_eq(stream(qs, &d, 1, xs, ys, TN, 1000, NULL), CLSCAN_SUCCESS);
        cl_long acc = 0;
        for (int i = 0; i < TN; ++i) {
            acc += (cl_long)xs[i] * (cl_long)((base + (size_t)i) % 7);
            ck_assert_msg(ys[i] == acc, "index_base %zu: element %d is %lld, expected %lld",
                          base, i, (long long)ys[i], (long long)acc);
        }
    }
    free(xs);
    free(ys);
    /* n == 0: nothing is checked of the host pointers; the event is a marker. */
    ck_assert_int_eq(stream(qs, &ok, 0, NULL, NULL, 0, 0, NULL), CLSCAN_SUCCESS);

    /* After the failures the context still streams: 16 ones. */
    for (int i = 0; i < 16; ++i) a[i] = 1;
    ck_assert_int_eq(stream(qs, &ok, 1, a, b, 16, 4, NULL), CLSCAN_SUCCESS);
    for (int i = 0; i < 16; ++i) ck_assert_int_eq(b[i], i + 1);

    clReleaseMemObject(c);
    clReleaseMemObject(foreign_buf);
    clReleaseCommandQueue(foreign);
    clReleaseContext(other);
    clReleaseCommandQueue(q1);
    free(a);
    free(b);
}

START_TEST(test_invalid)
{
    for (int v = 0; v < clscan_test_ndevs; ++v) {
        gd = &clscan_test_devs[v];
        invalid();
    }
}
END_TEST

static Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *dev = tcase_create("device");
    tcase_add_checked_fixture(dev, clscan_test_setup, clscan_test_teardown);
    tcase_set_timeout(dev, 580);
    tcase_add_loop_test(dev, test_builtin, 0, 2 * (int)(sizeof builtin_types / sizeof *builtin_types));
    tcase_add_test(dev, test_in_place);
    tcase_add_loop_test(dev, test_general, 0, 5);
    tcase_add_loop_test(dev, test_carry, 0, 2);
    tcase_add_test(dev, test_chain);
    tcase_add_test(dev, test_queues);
    tcase_add_test(dev, test_wait_list);
    tcase_add_test(dev, test_invalid);
    suite_add_tcase(s, dev);
    /* (Its own case, so that CK_RUN_CASE=long-chain runs it alone.) */
    TCase *chain_case = tcase_create("long-chain");
    tcase_add_checked_fixture(chain_case, clscan_test_setup, clscan_test_teardown);
    tcase_set_timeout(chain_case, 580);
    tcase_add_test(chain_case, test_long_chain);
    suite_add_tcase(s, chain_case);
    return s;
}

int main(void) { return clscan_test_run(stream_suite()); }
