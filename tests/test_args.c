/* test_args.c - every public function of libclscan given bad arguments: each case must
 * return its exact status with a message naming the problem, enqueue nothing (the
 * library's command trace stays empty), leave *event, dst and count untouched, and not
 * crash; then the same calls with good arguments succeed. On each platform's first
 * device. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000, GUARD = 0x5a5a5a5b };

/* The enqueueing calls, one argument list for all. */
typedef enum call_kind { EXCL, INCL, FLAGGED, IF, PARTITION, UNIQUE, REDUCE, KIND_COUNT } call_kind;
static const char *const kind_names[KIND_COUNT] = {"exclusive_scan", "inclusive_scan",
                                                   "select_flagged", "select_if",
                                                   "partition_if",   "unique", "reduce"};
/* What a call's messages call its output: a reduction's one element is "result". */
static const char *out_name(call_kind k) { return k == REDUCE ? "result" : "dst"; }

typedef struct call {
    clscan_context *ctx;
    cl_command_queue queue;
    cl_mem src, flags, dst, count;
    size_t src_offset, flags_offset, dst_offset, n;
    clscan_type type;
    clscan_op op;
    const char *predicate;
    cl_uint nwait;
    const cl_event *wait;
} call;

static clscan_status run(call_kind k, const call *c, cl_event *ev)
{
    switch (k) {
    case EXCL:
        return clscan_exclusive_scan(c->ctx, c->queue, c->src, c->src_offset, c->dst,
                                     c->dst_offset, c->n, c->type, c->op, c->nwait, c->wait, ev);
    case INCL:
        return clscan_inclusive_scan(c->ctx, c->queue, c->src, c->src_offset, c->dst,
                                     c->dst_offset, c->n, c->type, c->op, c->nwait, c->wait, ev);
    case FLAGGED:
        return clscan_select_flagged(c->ctx, c->queue, c->src, c->src_offset, c->flags,
                                     c->flags_offset, c->dst, c->dst_offset, c->count, c->n,
                                     c->type, c->nwait, c->wait, ev);
    case IF:
        return clscan_select_if(c->ctx, c->queue, c->src, c->src_offset, c->dst, c->dst_offset,
                                c->count, c->n, c->type, c->predicate, c->nwait, c->wait, ev);
    case PARTITION:
        return clscan_partition_if(c->ctx, c->queue, c->src, c->src_offset, c->dst,
                                   c->dst_offset, c->count, c->n, c->type, c->predicate,
                                   c->nwait, c->wait, ev);
    case UNIQUE:
        return clscan_unique(c->ctx, c->queue, c->src, c->src_offset, c->dst, c->dst_offset,
                             c->count, c->n, c->type, c->nwait, c->wait, ev);
    default: /* (dst and dst_offset: where the result goes) */
        return clscan_reduce(c->ctx, c->queue, c->src, c->src_offset, c->n, c->type, c->op,
                             c->dst, c->dst_offset, c->nwait, c->wait, ev);
    }
}

/* The device under test and the objects the cases use. */
static struct fixture {
    cl_device_id dev;
    cl_context cl_ctx, other_ctx;
    cl_command_queue queue, other_queue;
    clscan_context *ctx;
    cl_mem src, flags, dst, count, small_count, other_buf;
    char name[200];
} f;

static cl_mem buffer(cl_context c, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &err);
    ck_assert_msg(m != NULL, "clCreateBuffer(%zu): %s", bytes, clscan_status_string(err));
    return m;
}

static void fill(cl_mem m, size_t bytes, int value)
{
    int *h = malloc(bytes);
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < bytes / sizeof *h; i++) h[i] = value + (value == GUARD ? 0 : (int)i);
    ck_assert_int_eq(clEnqueueWriteBuffer(f.queue, m, CL_TRUE, 0, bytes, h, 0, NULL, NULL),
                     CL_SUCCESS);
    free(h);
}

/* The first device of the first platform (CLSCAN_TEST_PLATFORM: whose name contains it). */
static void setup(void)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    ck_assert_int_eq(clGetPlatformIDs(16, plats, &np), CL_SUCCESS);
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    int found = 0;
    for (cl_uint i = 0; i < np && i < 16 && !found; i++) {
        char pname[128] = "";
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (want && !strstr(pname, want)) continue;
        found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &f.dev, NULL) == CL_SUCCESS;
        snprintf(f.name, sizeof f.name, "%s", pname);
    }
    ck_assert_msg(found, "no OpenCL device");
    cl_int err;
    f.cl_ctx = clCreateContext(NULL, 1, &f.dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    f.other_ctx = clCreateContext(NULL, 1, &f.dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    f.queue = clCreateCommandQueue(f.cl_ctx, f.dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    f.other_queue = clCreateCommandQueue(f.other_ctx, f.dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clscan_context_create(f.cl_ctx, f.dev, &f.ctx), CLSCAN_SUCCESS);
    f.src = buffer(f.cl_ctx, N * 8);
    f.flags = buffer(f.cl_ctx, N);
    f.dst = buffer(f.cl_ctx, N * 8);
    f.count = buffer(f.cl_ctx, 64);
    f.small_count = buffer(f.cl_ctx, 4);
    f.other_buf = buffer(f.other_ctx, N * 8);
    fill(f.src, N * 8, 1);
    fill(f.flags, N, 0x01000100); /* some bytes nonzero */
}

static void teardown(void)
{
    cl_mem mems[] = {f.src, f.flags, f.dst, f.count, f.small_count, f.other_buf};
    for (size_t i = 0; i < sizeof mems / sizeof *mems; i++) clReleaseMemObject(mems[i]);
    clscan_context_release(f.ctx);
    clReleaseCommandQueue(f.queue);
    clReleaseCommandQueue(f.other_queue);
    clReleaseContext(f.cl_ctx);
    clReleaseContext(f.other_ctx);
}

/* A good call of kind k: int32 elements [0, N/2) of src to dst from 0. */
static call good(call_kind k)
{
    call c = {f.ctx, f.queue, f.src, k == FLAGGED ? f.flags : NULL, f.dst,
              k >= FLAGGED && k <= UNIQUE ? f.count : NULL, 0, 0, 0, N / 2, CLSCAN_INT32, CLSCAN_OP_ADD,
              k == IF || k == PARTITION ? "x > 3" : NULL, 0, NULL};
    return c;
}

/* Runs c, which must fail with `want` and a message containing `words` (as read back
 * through clscan_context_last_error on c's context, which may be a released or bogus
 * pointer: it then reads as NULL). Nothing may be enqueued or written. */
static void expect(call_kind k, call c, clscan_status want, const char *words,
                   const char *what)
{
    fill(f.dst, N * 8, GUARD);
    fill(f.count, 64, GUARD);
    cl_event trace[8];
    size_t traced = 0;
    cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
    clscan__trace_events(trace, 8, &traced);
    const clscan_status got = run(k, &c, &ev);
    clscan__trace_events(NULL, 0, NULL);
    const char *msg = clscan_context_last_error(c.ctx);
    fprintf(stderr, "  %-15s %-48s -> %s: %.160s\n", kind_names[k], what,
            clscan_status_string(got), msg);
    ck_assert_msg(got == want, "%s: %s: returned %s, expected %s (%s)", kind_names[k], what,
                  clscan_status_string(got), clscan_status_string(want), msg);
    ck_assert_msg(strstr(msg, words) != NULL, "%s: %s: message \"%s\" lacks \"%s\"",
                  kind_names[k], what, msg, words);
    ck_assert_msg(ev == sentinel, "%s: %s: *event changed", kind_names[k], what);
    for (size_t i = 0; i < traced; i++) clReleaseEvent(trace[i]);
    ck_assert_msg(traced == 0, "%s: %s: %zu commands enqueued", kind_names[k], what, traced);
    ck_assert_int_eq(clFinish(f.queue), CL_SUCCESS);
    int dst[N * 2], count[16];
    ck_assert_int_eq(clEnqueueReadBuffer(f.queue, f.dst, CL_TRUE, 0, sizeof dst, dst, 0, NULL,
                                         NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(f.queue, f.count, CL_TRUE, 0, sizeof count, count, 0,
                                         NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < N * 2; i++)
        ck_assert_msg(dst[i] == GUARD, "%s: %s: dst word %d written", kind_names[k], what, i);
    for (int i = 0; i < 16; i++)
        ck_assert_msg(count[i] == GUARD, "%s: %s: count word %d written", kind_names[k], what,
                      i);
}

static const int BAD = CLSCAN_ERROR_INVALID_ARGUMENT;

/* Arguments every enqueueing call checks the same way. */
START_TEST(test_common)
{
    const call_kind k = (call_kind)_i;
    fprintf(stderr, "%s: %s\n", f.name, kind_names[k]);
    call c;
    int local;
    clscan_context *released = NULL;
    ck_assert_int_eq(clscan_context_create(f.cl_ctx, f.dev, &released), CLSCAN_SUCCESS);
    clscan_context_release(released);
    /* (Another live context may since have been made at that address: not here.) */

    c = good(k), c.ctx = NULL;
    expect(k, c, BAD, "context is NULL", "NULL context");
    c = good(k), c.ctx = released;
    expect(k, c, BAD, "not a live clscan context", "released context");
    c = good(k), c.ctx = (clscan_context *)(void *)&local;
    expect(k, c, BAD, "not a live clscan context", "pointer that is no context");
    c = good(k), c.queue = NULL;
    expect(k, c, BAD, "queue is NULL", "NULL queue");
    c = good(k), c.queue = f.other_queue;
    expect(k, c, BAD, "queue belongs to another cl_context", "queue of another cl_context");
    c = good(k), c.src = NULL;
    expect(k, c, BAD, "src is NULL", "NULL src");
    char words[160];
    snprintf(words, sizeof words, "%s is NULL", out_name(k));
    c = good(k), c.dst = NULL;
    expect(k, c, BAD, words, "NULL dst");
    c = good(k), c.src = f.other_buf;
    expect(k, c, BAD, "src belongs to another cl_context", "src of another cl_context");
    snprintf(words, sizeof words, "%s belongs to another cl_context", out_name(k));
    c = good(k), c.dst = f.other_buf;
    expect(k, c, BAD, words, "dst of another cl_context");
    c = good(k), c.src_offset = 2 * N - c.n + 1;
    expect(k, c, BAD, "src: elements [1501, 2001) of 4 bytes each need 8004 bytes, but the "
                      "buffer has 8000", "src_offset + n past CL_MEM_SIZE");
    snprintf(words, sizeof words, "%s: elements [2000, %d)", out_name(k),
             k == REDUCE ? 2001 : 2500);
    c = good(k), c.dst_offset = 2 * N;
    expect(k, c, BAD, words, "dst_offset past CL_MEM_SIZE");
    c = good(k), c.n = 2 * N + 1, c.type = CLSCAN_INT32;
    expect(k, c, BAD, "need 8004 bytes, but the buffer has 8000", "n past CL_MEM_SIZE");
    c = good(k), c.type = CLSCAN_INT64, c.n = N + 1;
    expect(k, c, BAD, "of 8 bytes each need 8008 bytes", "int64 n past CL_MEM_SIZE");
    c = good(k), c.src_offset = SIZE_MAX - 2, c.n = 4;
    expect(k, c, BAD, "overflows", "src_offset + n overflows size_t");
    c = good(k), c.dst_offset = SIZE_MAX / 4 + 1, c.n = 1;
    expect(k, c, BAD, "overflows", "(dst_offset + n) * 4 overflows size_t");
    c = good(k), c.dst = f.src, c.dst_offset = 1;
    expect(k, c, BAD, "overlap", "src and dst overlap, not in place");
    c = good(k), c.type = (clscan_type)99;
    expect(k, c, BAD, "type 99 is not a clscan_type", "type 99");
    c = good(k), c.type = (clscan_type)-1;
    expect(k, c, BAD, "type -1 is not a clscan_type", "type -1");
    c = good(k), c.nwait = 1, c.wait = NULL;
    expect(k, c, BAD, "event wait list: 1 events but the list is NULL", "count 1, list NULL");
    cl_event user = clCreateUserEvent(f.cl_ctx, NULL), other_user = clCreateUserEvent(f.other_ctx, NULL);
    cl_event null_event = NULL;
    c = good(k), c.nwait = 0, c.wait = &user;
    expect(k, c, BAD, "event wait list: 0 events but the list is not NULL", "list, count 0");
    c = good(k), c.nwait = 1, c.wait = &null_event;
    expect(k, c, BAD, "event_wait_list[0] is NULL", "NULL event in the list");
    c = good(k), c.nwait = 1, c.wait = &other_user;
    expect(k, c, BAD, "event_wait_list[0] belongs to another cl_context",
           "event of another cl_context");
    clSetUserEventStatus(user, CL_COMPLETE);
    clSetUserEventStatus(other_user, CL_COMPLETE);
    clReleaseEvent(user);
    clReleaseEvent(other_user);

    /* Double precision on a device without it: a context that believes so. */
    setenv("CLSCAN_FP64", "0", 1);
    clscan_context *no_fp64 = NULL;
    ck_assert_int_eq(clscan_context_create(f.cl_ctx, f.dev, &no_fp64), CLSCAN_SUCCESS);
    unsetenv("CLSCAN_FP64");
    c = good(k), c.ctx = no_fp64, c.type = CLSCAN_DOUBLE, c.n = 10;
    expect(k, c, CLSCAN_ERROR_UNSUPPORTED, "has no double precision (fp64)", "double, no fp64");
    clscan_context_release(no_fp64);

    /* The control: the good call works, and afterwards the released context is still
     * refused (its memory may have been reused). */
    cl_event ev = NULL;
    c = good(k);
    ck_assert_int_eq(run(k, &c, &ev), CLSCAN_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    c.ctx = released;
    expect(k, c, BAD, "not a live clscan context", "released context, again");
}
END_TEST

/* What only scans check. */
START_TEST(test_scan_only)
{
    const call_kind kinds[] = {EXCL, INCL, REDUCE};
    for (size_t ki = 0; ki < sizeof kinds / sizeof *kinds; ki++) {
        const call_kind k = kinds[ki];
        call c;
        c = good(k), c.op = (clscan_op)99;
        expect(k, c, BAD, "op 99 is not a clscan_op", "op 99");
        c = good(k), c.op = (clscan_op)-1;
        expect(k, c, BAD, "op -1 is not a clscan_op", "op -1");
        for (clscan_type t = CLSCAN_FLOAT; t <= CLSCAN_DOUBLE; t++)
            for (clscan_op op = CLSCAN_OP_AND; op <= CLSCAN_OP_XOR; op++) {
                char what[64], words[64];
                snprintf(what, sizeof what, "%s on %s", clscan_op_name(op), clscan_type_name(t));
                snprintf(words, sizeof words, "operator %s is not defined on %s",
                         clscan_op_name(op), clscan_type_name(t));
                c = good(k), c.type = t, c.op = op, c.n = 10;
                expect(k, c, CLSCAN_ERROR_UNSUPPORTED, words, what);
            }
    }
}
END_TEST

/* What only compactions check: count, flags, predicates, the in-place copy's size. */
START_TEST(test_compaction_only)
{
    for (call_kind k = FLAGGED; k <= UNIQUE; k++) {
        call c;
        c = good(k), c.count = NULL;
        expect(k, c, BAD, "count (one cl_ulong) is NULL", "NULL count");
        c = good(k), c.count = f.small_count;
        expect(k, c, BAD, "count (one cl_ulong): elements [0, 1) of 8 bytes each need 8 bytes, "
                          "but the buffer has 4", "count of 4 bytes");
        c = good(k), c.count = f.other_buf;
        expect(k, c, BAD, "count (one cl_ulong) belongs to another cl_context",
               "count of another cl_context");
        c = good(k), c.count = f.src, c.src_offset = 0;
        expect(k, c, BAD, "count (bytes [0, 8)) and src (bytes [0, 2000)) overlap",
               "count inside src");
        c = good(k), c.count = f.dst, c.dst_offset = 1;
        expect(k, c, BAD, "count (bytes [0, 8)) and dst (bytes [4, 2004)) overlap",
               "count inside dst");
        if (k == FLAGGED) {
            c = good(k), c.flags = NULL;
            expect(k, c, BAD, "flags is NULL", "NULL flags");
            c = good(k), c.flags_offset = N - c.n + 1;
            expect(k, c, BAD, "flags: elements [501, 1001) of 1 bytes each need 1001 bytes, "
                              "but the buffer has 1000", "flags too short");
            c = good(k), c.flags = f.other_buf;
            expect(k, c, BAD, "flags belongs to another cl_context", "flags of another context");
            c = good(k), c.flags = f.dst, c.flags_offset = 8;
            expect(k, c, BAD, "flags (bytes [8, 508)) and dst (bytes [0, 2000)) overlap",
                   "flags inside dst");
        }
        if (k == IF || k == PARTITION) {
            c = good(k), c.predicate = NULL;
            expect(k, c, BAD, "predicate is NULL", "NULL predicate");
            c = good(k), c.predicate = " \t\n";
            expect(k, c, BAD, "predicate is empty", "blank predicate");
            c = good(k), c.predicate = "x > nonsense";
            expect(k, c, CLSCAN_ERROR_BUILD_FAILED,
                   "the predicate \"x > nonsense\" does not compile",
                   "predicate that fails to compile");
            c = good(k), c.predicate = "x >", c.n = 0;
            expect(k, c, CLSCAN_ERROR_BUILD_FAILED, "the predicate \"x >\" does not compile",
                   "bad predicate, n == 0");
        }
    }
    /* The in-place input's copy above the device's largest allocation (a context told
     * it is 64 KiB). */
    setenv("CLSCAN_MAX_MEM_ALLOC_SIZE", "64K", 1);
    clscan_context *small = NULL;
    ck_assert_int_eq(clscan_context_create(f.cl_ctx, f.dev, &small), CLSCAN_SUCCESS);
    unsetenv("CLSCAN_MAX_MEM_ALLOC_SIZE");
    for (call_kind k = FLAGGED; k <= UNIQUE; k++) {
        cl_mem big = buffer(f.cl_ctx, 65536 + 8), big_flags = buffer(f.cl_ctx, 16385);
        call c = good(k);
        c.ctx = small, c.src = c.dst = big, c.n = 16385;
        if (k == FLAGGED) c.flags = big_flags;
        expect(k, c, CLSCAN_ERROR_OUT_OF_RESOURCES,
               "the in-place input's copy needs 65540 bytes, more than the device's largest "
               "allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) of 65536 bytes",
               "in-place copy above max alloc");
        c.n = 16384; /* exactly the largest allocation: works */
        cl_event ev = NULL;
        ck_assert_msg(run(k, &c, &ev) == CLSCAN_SUCCESS, "%s", clscan_context_last_error(small));
        ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
        clReleaseEvent(ev);
        clReleaseMemObject(big);
        clReleaseMemObject(big_flags);
    }
    clscan_context_release(small);
}
END_TEST

/* The functions that enqueue nothing. */
START_TEST(test_other_functions)
{
    clscan_context *out = (clscan_context *)(void *)&f, *released = NULL;
    int local;
    ck_assert_int_eq(clscan_context_create(f.cl_ctx, f.dev, NULL), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(NULL), "out is NULL"));
    ck_assert_int_eq(clscan_context_create(NULL, f.dev, &out), BAD);
    ck_assert_ptr_null(out);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(NULL), "cl_context is NULL"));
    ck_assert_int_eq(clscan_context_create(f.cl_ctx, NULL, &out), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(NULL), "device is NULL"));
    setenv("CLSCAN_WORK_GROUP_SIZE", "many", 1);
    ck_assert_int_eq(clscan_context_create(f.cl_ctx, f.dev, &out), CLSCAN_ERROR_INVALID_ENVIRONMENT);
    unsetenv("CLSCAN_WORK_GROUP_SIZE");
    ck_assert_ptr_null(out);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(NULL), "CLSCAN_WORK_GROUP_SIZE"));

    /* Release: NULL, and a second release of the same context, are ignored. */
    ck_assert_int_eq(clscan_context_create(f.cl_ctx, f.dev, &released), CLSCAN_SUCCESS);
    clscan_context_release(released);
    clscan_context_release(released);
    clscan_context_release(NULL);
    clscan_context_release((clscan_context *)(void *)&local);

    /* describe: NULL, released or bogus contexts give "" and 0; a NULL buffer is size 0. */
    char buf[16];
    memset(buf, 'x', sizeof buf);
    ck_assert_uint_eq(clscan_context_describe(NULL, buf, sizeof buf), 0);
    ck_assert_int_eq(buf[0], '\0');
    memset(buf, 'x', sizeof buf);
    ck_assert_uint_eq(clscan_context_describe(released, buf, sizeof buf), 0);
    ck_assert_int_eq(buf[0], '\0');
    const size_t need = clscan_context_describe(f.ctx, NULL, 0);
    ck_assert_uint_gt(need, 0);
    ck_assert_uint_eq(clscan_context_describe(f.ctx, NULL, 100), need);

    /* last_error with a released context reads the thread's last failure. */
    cl_event ev = NULL;
    ck_assert_int_eq(clscan_exclusive_scan(released, f.queue, f.src, 0, f.dst, 0, 10,
                                           CLSCAN_INT32, CLSCAN_OP_ADD, 0, NULL, &ev), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(released), "not a live"));

    /* kernel_build_options */
    char opts[4096];
    size_t len = 0;
    ck_assert_int_eq(clscan_kernel_build_options(NULL, CLSCAN_INT32, CLSCAN_OP_ADD, 0, opts,
                                                 sizeof opts, &len, NULL, NULL), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(NULL), "context is NULL"));
    ck_assert_int_eq(clscan_kernel_build_options(released, CLSCAN_INT32, CLSCAN_OP_ADD, 0, opts,
                                                 sizeof opts, &len, NULL, NULL), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(NULL), "not a live"));
    ck_assert_int_eq(clscan_kernel_build_options(f.ctx, CLSCAN_INT32, CLSCAN_OP_ADD, 0, NULL, 8,
                                                 &len, NULL, NULL), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(f.ctx), "options is NULL but "
                                                                    "options_size is 8"));
    ck_assert_int_eq(clscan_kernel_build_options(f.ctx, (clscan_type)7, CLSCAN_OP_ADD, 0, opts,
                                                 sizeof opts, &len, NULL, NULL), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(f.ctx), "type 7 is not a clscan_type"));
    ck_assert_int_eq(clscan_kernel_build_options(f.ctx, CLSCAN_INT32, (clscan_op)7, 0, opts,
                                                 sizeof opts, &len, NULL, NULL), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(f.ctx), "op 7 is not a clscan_op"));
    ck_assert_int_eq(clscan_kernel_build_options(f.ctx, CLSCAN_FLOAT, CLSCAN_OP_XOR, 0, opts,
                                                 sizeof opts, &len, NULL, NULL),
                     CLSCAN_ERROR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(f.ctx), "not defined on float"));
    memset(opts, 'x', sizeof opts);
    ck_assert_int_eq(clscan_kernel_build_options(f.ctx, CLSCAN_INT32, CLSCAN_OP_ADD, 0, opts, 10,
                                                 &len, NULL, NULL), BAD);
    ck_assert_ptr_nonnull(strstr(clscan_context_last_error(f.ctx), "is too small"));
    ck_assert_uint_eq(strlen(opts), 9);
    ck_assert_int_eq(opts[10], 'x');
    ck_assert_int_eq(clscan_kernel_build_options(f.ctx, CLSCAN_INT32, CLSCAN_OP_ADD, 0, opts,
                                                 sizeof opts, &len, NULL, NULL), CLSCAN_SUCCESS);
    ck_assert_uint_eq(strlen(opts), len);

    /* Names of values outside the enums. */
    ck_assert_str_eq(clscan_status_string(-99999), "unknown status");
    ck_assert_str_eq(clscan_type_name((clscan_type)-1), "invalid");
    ck_assert_str_eq(clscan_op_name((clscan_op)CLSCAN_OP_COUNT), "invalid");
    ck_assert_uint_eq(clscan_type_size((clscan_type)CLSCAN_TYPE_COUNT), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("args");
    TCase *tc = tcase_create("device");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_common, 0, KIND_COUNT);
    tcase_add_test(tc, test_scan_only);
    tcase_add_test(tc, test_compaction_only);
    tcase_add_test(tc, test_other_functions);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
