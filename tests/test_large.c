/* test_large.c - Check suite at the device's limits: calls whose scratch buffer would
 * exceed the device's real CL_DEVICE_MAX_MEM_ALLOC_SIZE (one-element single-pass tiles)
 * must be refused with a clear error and enqueue nothing. Large sizes: clscan-bigcheck. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_devices.h"
#include "verify.h"

#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ devices ------- */

/* The devices under test, their fixture and buffers: test_devices.h. Each device's
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE as the device says it, by its index in clscan_test_devs;
 * filled by clscan_large_setup. */
static cl_ulong clscan_large_max_allocs[CLSCAN_TEST_MAX_PLATFORMS];

static void clscan_large_setup(void)
{
    clscan_test_setup();
    for (int di = 0; di < clscan_test_ndevs; di++)
        ck_assert_int_eq(clGetDeviceInfo(clscan_test_devs[di].dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                         sizeof clscan_large_max_allocs[di],
                                         &clscan_large_max_allocs[di], NULL), CL_SUCCESS);
}

/* d's CL_DEVICE_MAX_MEM_ALLOC_SIZE. */
static cl_ulong clscan_large_max_alloc(const clscan_test_dev *d)
{
    return clscan_large_max_allocs[d - clscan_test_devs];
}

/* ------------------------------------------------------------ max alloc ----- */

/* One call of the test. in_place: src is dst (a compaction then needs its scratch
 * before its copy of the input). */
typedef struct clscan_large_call {
    const char *name;
    int compaction;       /* 0: scan; else clscan_verify_kind + 1 */
    clscan_type type;
    clscan_op op;
    int inclusive;
    int in_place;
} clscan_large_call;

/* Inputs of 4 or 8 bytes whose status words take twice their size, so that half the
 * largest allocation suffices: scans of both sizes, compactions of 4-byte elements. */
#define SCAN(t, o, incl) {#t " " #o, 0, CLSCAN_##t, CLSCAN_OP_##o, incl, 0}
#define COMPACT(k, t, ip) {#k " " #t, 1 + CLSCAN_VERIFY_##k, CLSCAN_##t, CLSCAN_OP_ADD, 0, ip}
static const clscan_large_call clscan_large_calls[] = {
    SCAN(INT32, ADD, 0),
    SCAN(INT64, XOR, 1),
    COMPACT(SELECT_FLAGGED, INT32, 0),
    COMPACT(SELECT_IF, UINT32, 0),
    COMPACT(SELECT_IF, INT32, 1),
    COMPACT(PARTITION_IF, FLOAT, 0),
    COMPACT(UNIQUE, UINT32, 0),
};
#undef SCAN
#undef COMPACT

/* The scratch bytes the call asks for at n elements: the status words of the program
 * the library builds for it; 0 where its look-back cannot number n one-element tiles
 * (2^32 - 1 or more: the call then runs multi-level, whose scratch is small). */
static size_t clscan_large_scratch(clscan_test_dev *d, const clscan_large_call *k, size_t n)
{
    static const clscan__select_mode modes[CLSCAN_VERIFY_KIND_COUNT] = {
        CLSCAN__SELECT_FLAGGED, CLSCAN__SELECT_IF, CLSCAN__SELECT_PARTITION, CLSCAN__SELECT_UNIQUE};
    const clscan__profile *p = &d->ctx->target.profile;
    clscan__scan_config cfg;
    clscan__program *prog = NULL;
    clscan_status st =
        k->compaction ? clscan__select_config_choose(d->ctx, p, p->scan_algo,
                                                     modes[k->compaction - 1], k->type,
                                                     n > 0xffffffffu ? CLSCAN_UINT64
                                                                     : CLSCAN_UINT32,
                                                     "x > 0", &cfg)
                      : clscan__scan_config_choose(d->ctx, p, p->scan_algo, k->type, k->op, &cfg);
    if (st == CLSCAN_SUCCESS)
        st = clscan__program_get(d->ctx, &cfg, &prog);
    ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s: building the program: %s: %s", d->name, k->name,
                  clscan_status_string(st), clscan_context_last_error(d->ctx));
    ck_assert_msg(prog->config.wg_size * prog->config.items == 1 &&
                      prog->config.algo == CLSCAN__SCAN_SINGLE_PASS,
                  "%s: %s: the program has tiles of %zu x %u elements%s: this test needs "
                  "CLSCAN_SCAN_ALGO=single-pass CLSCAN_SP_WORK_GROUP_SIZE=1 "
                  "CLSCAN_SP_ITEMS_PER_THREAD=1", d->name, k->name, prog->config.wg_size,
                  prog->config.items,
                  prog->config.algo == CLSCAN__SCAN_SINGLE_PASS ? "" : " (multi-level)");
    return clscan__lookback_fits(&prog->config, n) ? clscan__lookback_bytes(&prog->config, n) : 0;
}

#define CLSCAN_LARGE_WINDOW 4096 /* bytes checked untouched at each end of dst */

/* Runs call k on n elements of src into dst behind a user event (so that even a call
 * that wrongly went ahead runs nothing); checks the refusal, its message, *event, and
 * that the ends of dst and the count stay untouched. */
static void clscan_large_refused(clscan_test_dev *d, const clscan_large_call *k, size_t n,
                                 size_t need, cl_mem src, cl_mem dst, cl_mem flags, cl_mem count)
{
    const size_t es = clscan_type_size(k->type);
    const cl_ulong max_alloc = clscan_large_max_alloc(d);
    unsigned char pattern[CLSCAN_LARGE_WINDOW], got[CLSCAN_LARGE_WINDOW];
    for (size_t b = 0; b < sizeof pattern; b++)
        pattern[b] = (unsigned char)(0x5A ^ b * 31);
    if (k->in_place)
        dst = src;
    const size_t ends[2] = {0, n * es - sizeof pattern};
    for (int e = 0; e < 2; e++)
        ck_assert_int_eq(clEnqueueWriteBuffer(d->queue, dst, CL_TRUE, ends[e], sizeof pattern,
                                              pattern, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueWriteBuffer(d->queue, count, CL_TRUE, 0, 64, pattern, 0, NULL,
                                          NULL), CL_SUCCESS);
    cl_int err;
    cl_event gate = clCreateUserEvent(d->cl_ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    static char sentinel_obj;
    cl_event const sentinel = (cl_event)(void *)&sentinel_obj;
    cl_event ev = sentinel;
    clscan_status st;
    switch (k->compaction) {
    case 0:
        st = (k->inclusive ? clscan_inclusive_scan : clscan_exclusive_scan)(
            d->ctx, d->queue, src, 0, dst, 0, n, k->type, k->op, 1, &gate, &ev);
        break;
    case 1 + CLSCAN_VERIFY_SELECT_FLAGGED:
        st = clscan_select_flagged(d->ctx, d->queue, src, 0, flags, 0, dst, 0, count, n, k->type,
                                   1, &gate, &ev);
        break;
    case 1 + CLSCAN_VERIFY_SELECT_IF:
        st = clscan_select_if(d->ctx, d->queue, src, 0, dst, 0, count, n, k->type, "x > 0", 1,
                              &gate, &ev);
        break;
    case 1 + CLSCAN_VERIFY_PARTITION_IF:
        st = clscan_partition_if(d->ctx, d->queue, src, 0, dst, 0, count, n, k->type, "x > 0",
                                 1, &gate, &ev);
        break;
    default:
        st = clscan_unique(d->ctx, d->queue, src, 0, dst, 0, count, n, k->type, 1, &gate, &ev);
    }
    const char *msg = clscan_context_last_error(d->ctx);
    fprintf(stderr, "%s: %s n=%zu (%zu bytes of input): %s: %s\n", d->name, k->name, n, n * es,
            clscan_status_string(st), msg);
    if (st == CLSCAN_SUCCESS) { /* run nothing: fail the gate, then the test */
        clSetUserEventStatus(gate, -1);
        clFinish(d->queue);
        if (ev && ev != sentinel)
            clReleaseEvent(ev);
        ck_abort_msg("%s: %s n=%zu: CLSCAN_SUCCESS, where a scratch buffer of %zu bytes "
                     "exceeds the largest allocation %llu", d->name, k->name, n, need,
                     (unsigned long long)max_alloc);
    }
    char need_text[32], max_text[32];
    snprintf(need_text, sizeof need_text, "%zu", need);
    snprintf(max_text, sizeof max_text, "%llu", (unsigned long long)max_alloc);
    ck_assert_msg(st == CLSCAN_ERROR_OUT_OF_RESOURCES && ev == sentinel &&
                      strstr(msg, "CL_DEVICE_MAX_MEM_ALLOC_SIZE") && strstr(msg, need_text) &&
                      strstr(msg, max_text),
                  "%s: %s n=%zu (scratch %zu bytes, largest allocation %llu): expected "
                  "CLSCAN_ERROR_OUT_OF_RESOURCES, *event untouched and a message naming "
                  "CL_DEVICE_MAX_MEM_ALLOC_SIZE, %s and %s bytes; got %s%s: \"%s\"", d->name,
                  k->name, n, need, (unsigned long long)max_alloc, need_text, max_text,
                  clscan_status_string(st), ev == sentinel ? "" : " and *event changed", msg);
    /* Nothing enqueued: with the gate open, the ends of dst and the count are as they
     * were. */
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
    for (int e = 0; e < 2; e++) {
        ck_assert_int_eq(clEnqueueReadBuffer(d->queue, dst, CL_TRUE, ends[e], sizeof got, got, 0,
                                             NULL, NULL), CL_SUCCESS);
        ck_assert_msg(!memcmp(got, pattern, sizeof got), "%s: %s: refused, but dst bytes [%zu, "
                      "+%zu) were written", d->name, k->name, ends[e], sizeof got);
    }
    ck_assert_int_eq(clEnqueueReadBuffer(d->queue, count, CL_TRUE, 0, 64, got, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_msg(!memcmp(got, pattern, 64), "%s: %s: refused, but count was written", d->name,
                  k->name);
    clReleaseEvent(gate);
}

/* Every call of clscan_large_calls at the smallest n whose scratch is above the
 * device's largest allocation, on src and dst buffers of half of it. Where that
 * allocation is above what 2^32 - 2 one-element tiles' status words take (about 32 GiB
 * for 4-byte elements, 64 GiB for 8-byte ones: an H200's is 35 GiB), no n provokes
 * the call: it is named as not run, and at least one call must be provoked a device. */
START_TEST(test_scratch_above_max_alloc)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        const cl_ulong max_alloc = clscan_large_max_allocs[di];
        ck_assert_msg(d->ctx->target.profile.max_alloc == max_alloc,
                      "%s: the context's max alloc %llu is not the device's %llu: run this "
                      "test without CLSCAN_MAX_MEM_ALLOC_SIZE", d->name,
                      (unsigned long long)d->ctx->target.profile.max_alloc,
                      (unsigned long long)max_alloc);
        const size_t half = (size_t)(max_alloc / 2) / 8 * 8;
        cl_mem src = clscan_test_buffer(d, half, NULL), dst = clscan_test_buffer(d, half, NULL);
        cl_mem flags = clscan_test_buffer(d, half / 4, NULL);
        cl_mem count = clscan_test_buffer(d, 64, NULL);
        int provoked = 0;
        for (size_t c = 0; c < sizeof clscan_large_calls / sizeof *clscan_large_calls; c++) {
            const clscan_large_call *k = &clscan_large_calls[c];
            /* The smallest n whose scratch is above the limit, by bisection over what the
             * library says it needs; the input must fit in half, and the look-back must
             * number its tiles. */
            size_t lo = 1, hi = half / clscan_type_size(k->type);
            if (!clscan_large_scratch(d, k, hi)) { /* the most n the look-back numbers */
                size_t fits = 1, over = hi;
                while (over - fits > 1) {
                    size_t mid = fits + (over - fits) / 2;
                    *(clscan_large_scratch(d, k, mid) ? &fits : &over) = mid;
                }
                hi = fits;
            }
            const size_t top = clscan_large_scratch(d, k, hi);
            if (top <= max_alloc) {
                fprintf(stderr, "%s: %s: not run: %zu elements (the most one-element tiles the "
                        "look-back numbers) need only %zu bytes of scratch, within the largest "
                        "allocation %llu\n", d->name, k->name, hi, top,
                        (unsigned long long)max_alloc);
                continue;
            }
            provoked++;
            while (hi - lo > 1) {
                size_t mid = lo + (hi - lo) / 2;
                *(clscan_large_scratch(d, k, mid) > max_alloc ? &hi : &lo) = mid;
            }
            clscan_large_refused(d, k, hi, clscan_large_scratch(d, k, hi), src, dst, flags, count);
        }
        ck_assert_msg(provoked > 0, "%s: the largest allocation %llu is above every call's "
                      "scratch at the most tiles the look-back numbers: nothing provoked",
                      d->name, (unsigned long long)max_alloc);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(flags);
        clReleaseMemObject(count);
    }
}
END_TEST

/* ------------------------------------------------------------ suite --------- */

static Suite *clscan_large_suite(void)
{
    Suite *s = suite_create("large");
    TCase *tc = tcase_create("max-alloc");
    tcase_add_checked_fixture(tc, clscan_large_setup, clscan_test_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_scratch_above_max_alloc);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return clscan_test_run(clscan_large_suite());
}
