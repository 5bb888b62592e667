/* test_reduce.c - Check suite for clscan_reduce and clscan_reduce_desc: every type and
 * built-in operator at edge sizes (0, 1, tile +- 1, non powers of two, many tiles) against
 * the host's fold, with offsets and guard bands around the one result; the general cases
 * of tools/verify_general.c (custom operators, user structs, transforms) reduced without
 * their segments; bit-for-bit reproducibility of a float sum; a result consumed by a
 * later command through the call's event alone; and the description's argument errors
 * (the rest are in test_args.c), each with its status and message and nothing written. */
/* SPDX-License-Identifier: MIT */
#include "test_devices.h"
#include "verify_general.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {0,    1,    2,    31,   32,    33,    255,   256,    257,
                               1023, 1024, 1025, 4097, 70001, 262145, 1000003};

/* $CLSCAN_TEST_MAX_SIZE caps the sizes (for runs under Oclgrind). */
static size_t max_size(void)
{
    const char *t = getenv("CLSCAN_TEST_MAX_SIZE");
    return t && *t ? (size_t)strtoull(t, NULL, 0) : SIZE_MAX;
}

/* Every op on one type, every size, two layouts (offsets 0, and src 3 / result 17). */
START_TEST(test_builtin)
{
    const clscan_type type = (clscan_type)_i;
    if (!clscan_test_type_wanted(type, "reduce")) return;
    const uint64_t seed = clscan_test_seed(20261126u);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_test_tally t = {0};
        for (int op = 0; op < CLSCAN_OP_COUNT; op++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes && sizes[s] <= max_size(); s++)
                for (int l = 0; l < 2; l++) {
                    clscan_verify_case c = {type, (clscan_op)op, 1, sizes[s], l ? 3 : 0,
                                            l ? 17 : 0, 0,
                                            clscan_verify_mix(seed, sizes[s] * 64 +
                                                                        (uint64_t)(op * 2 + l))};
                    char msg[1024], line[1400];
                    const clscan_verify_result r =
                        clscan_verify_run_reduce(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg);
                    if (r == CLSCAN_VERIFY_PASS) t.pass++;
                    else if (r == CLSCAN_VERIFY_SKIP) t.skip++;
                    else {
                        snprintf(line, sizeof line, "reduce %s %s n=%zu layout %d: %s",
                                 clscan_type_name(type), clscan_op_name(c.op), c.n, l, msg);
                        clscan_test_tally_fail(&t, d, line);
                    }
                }
        clscan_test_tally_check(&t, d, "reduce", type);
    }
}
END_TEST

/* General case k (its segments left out), every size. */
START_TEST(test_general)
{
    const clscan_verify_gen_case c = clscan_verify_gen_case_get(_i);
    const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261126u), (uint64_t)_i);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        if (!d->fp64 && c.desc.type == CLSCAN_DOUBLE) continue;
        fprintf(stderr, "%s: reduce, general case %d: %s\n", d->name, _i, c.name);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes && sizes[s] <= max_size(); s++) {
            char msg[1024];
            const clscan_verify_result r = clscan_verify_run_general_reduce(
                d->ctx, d->cl_ctx, d->queue, &c, sizes[s], seed, msg, sizeof msg);
            ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: %s: %s", d->name, c.name, msg);
        }
    }
}
END_TEST

/* Reduces src[0, n) of floats into res[at]; waits and returns the result's bits. */
static uint32_t float_sum(clscan_test_dev *d, cl_mem src, size_t n, cl_mem res, size_t at)
{
    cl_event ev = NULL;
    ck_assert_int_eq(clscan_reduce(d->ctx, d->queue, src, 0, n, CLSCAN_FLOAT, CLSCAN_OP_ADD, res,
                                   at, 0, NULL, &ev),
                     CLSCAN_SUCCESS);
    clscan_test_wait_release(ev, "clscan_reduce");
    uint32_t all[8];
    clscan_test_read(d, res, sizeof all, all);
    return all[at];
}

/* A float sum of random values, whose bits depend on the association: the same call
 * gives the same bits every time; and the result feeds a later command (a copy) that
 * waits only for the call's event, on an out-of-order queue where the device has one. */
START_TEST(test_reproducible_and_chained)
{
    const size_t n = max_size() < 300007 ? max_size() : 300007;
    clscan_verify_rng rng = {clscan_test_seed(20261126u)};
    float *in = calloc(n + 1, sizeof *in);
    ck_assert_ptr_nonnull(in);
    double exact = 0;
    for (size_t i = 0; i < n; i++) {
        in[i] = (float)((double)(clscan_verify_rng_next(&rng) >> 11) / 9007199254740992.0 - 0.3);
        exact += in[i];
    }
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        cl_mem src = clscan_test_buffer(d, n * sizeof *in + 4, in);
        const uint32_t zero[8] = {0};
        cl_mem res = clscan_test_buffer(d, sizeof zero, zero);
        const uint32_t first = float_sum(d, src, n, res, 2);
        for (int rep = 0; rep < 3; rep++)
            ck_assert_msg(float_sum(d, src, n, res, 5) == first,
                          "%s: a float sum of %zu elements changed bits between calls",
                          d->name, n);
        float got;
        memcpy(&got, &first, 4);
        const double tol = 1e-6 * (double)n; /* |x| < 1: n rounding errors of at most 2^-24 */
        ck_assert_msg(got - exact <= tol && exact - got <= tol, "%s: sum %.9g, exact %.9g",
                      d->name, (double)got, exact);

        /* Chained: reduce, then a copy of the result that waits only for its event. */
        cl_int err;
        cl_command_queue q = clCreateCommandQueue(d->cl_ctx, d->dev,
                                                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
        if (!q) q = clCreateCommandQueue(d->cl_ctx, d->dev, 0, &err);
        ck_assert_ptr_nonnull(q);
        cl_mem copy = clscan_test_buffer(d, sizeof zero, zero);
        cl_event ev = NULL, copied = NULL;
        ck_assert_int_eq(clscan_reduce(d->ctx, q, src, 0, n, CLSCAN_FLOAT, CLSCAN_OP_ADD, res, 7,
                                       0, NULL, &ev),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(clEnqueueCopyBuffer(q, res, copy, 7 * 4, 0, 4, 1, &ev, &copied),
                         CL_SUCCESS);
        clscan_test_wait_release(copied, "copy after clscan_reduce");
        clReleaseEvent(ev);
        uint32_t back[8];
        clscan_test_read(d, copy, sizeof back, back);
        ck_assert_msg(back[0] == first, "%s: the copy after the reduction's event read %08x, "
                      "the result is %08x", d->name, back[0], first);
        clReleaseMemObject(copy);
        clReleaseCommandQueue(q);
        clReleaseMemObject(src);
        clReleaseMemObject(res);
    }
    free(in);
}
END_TEST

/* clscan_reduce_desc's own refusals: each with its status and words, *event untouched,
 * the result buffer unwritten. */
static void refused(clscan_test_dev *d, const clscan_scan_desc *desc, cl_mem src, cl_mem res,
                    size_t at, size_t n, clscan_status want, const char *words)
{
    uint32_t before[16] = {0};
    if (res) clscan_test_read(d, res, sizeof before, before);
    cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
    const clscan_status s = clscan_reduce_desc(d->ctx, d->queue, desc, src, 0, n, res, at, 0,
                                               NULL, &ev);
    clscan_test_refused(d, "reduce_desc", s, want, words, ev, sentinel, res, before,
                        sizeof before);
}

START_TEST(test_desc_errors)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        uint32_t init[64];
        for (int i = 0; i < 64; i++) init[i] = 0xa5a5a5a5u - (uint32_t)i;
        cl_mem src = clscan_test_buffer(d, sizeof init, init);
        cl_mem res = clscan_test_buffer(d, sizeof init, init);
        const int BAD = CLSCAN_ERROR_INVALID_ARGUMENT;
        clscan_scan_desc desc = {0};
        desc.type = CLSCAN_INT32;
        desc.combine = "max(a, b)";
        desc.identity = "INT_MIN";
        refused(d, NULL, src, res, 0, 8, BAD, "desc is NULL");
        clscan_scan_desc seg = desc;
        seg.segments = CLSCAN_SEGMENTS_FLAGS;
        refused(d, &seg, src, res, 0, 8, BAD, "segments must be CLSCAN_SEGMENTS_NONE");
        clscan_scan_desc half = desc;
        half.identity = NULL;
        refused(d, &half, src, res, 0, 8, BAD, "desc->combine is given without desc->identity");
        refused(d, &desc, src, NULL, 0, 8, BAD, "result is NULL");
        refused(d, &desc, src, res, 64, 8, BAD, "result: elements [64, 65)");
        refused(d, &desc, src, src, 3, 8, BAD, "overlap");
        refused(d, &desc, src, res, 0, 65, BAD, "src: elements [0, 65)");
        clscan_scan_desc user = {0};
        user.type_name = "pair";
        user.type_size = 8;
        user.source = "typedef struct { int a, b; } pair;";
        user.combine = "a";
        user.identity = "a_missing_name";
        refused(d, &user, src, res, 0, 4, CLSCAN_ERROR_BUILD_FAILED, "identity");
        clReleaseMemObject(src);
        clReleaseMemObject(res);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reduce");
    /* (The library's types in a case of their own: CK_RUN_CASE=builtin runs them alone.) */
    TCase *builtin = tcase_create("builtin");
    tcase_add_checked_fixture(builtin, clscan_test_setup, clscan_test_teardown);
    tcase_add_loop_test(builtin, test_builtin, 0, CLSCAN_TYPE_COUNT);
    suite_add_tcase(s, builtin);
    TCase *tc = tcase_create("devices");
    tcase_add_checked_fixture(tc, clscan_test_setup, clscan_test_teardown);
    tcase_add_loop_test(tc, test_general, 0, CLSCAN_VERIFY_GEN_CASES);
    tcase_add_test(tc, test_reproducible_and_chained);
    tcase_add_test(tc, test_desc_errors);
    suite_add_tcase(s, tc);
    return clscan_test_run(s);
}
