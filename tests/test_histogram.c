/* test_histogram.c - Check suite for clscan_histogram_even and clscan_histogram_range:
 * every sample type, even bins and bins between levels, 32- and 64-bit counts, bin
 * counts from 1 to past what local memory holds (the global-atomics path), sizes from 0
 * up, samples on bounds and bin edges, outside the range, extremes, NaNs and infinities,
 * against the host reference (tools/verify_histogram.c) with guard bands around the
 * counts; unsorted levels (counts within bounds, nothing outside written); counts to
 * offsets by a scan; and the argument errors, each with its status and message, nothing
 * written. */
/* SPDX-License-Identifier: MIT */
#include "test_devices.h"
#include "verify_histogram.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t bin_counts[] = {1, 7, 256, 1000, 40000};
static const size_t sizes[] = {0, 1, 255, 4097, 100003};

/* $CLSCAN_TEST_MAX_SIZE caps the sizes, $CLSCAN_TEST_MIN_BINS and $CLSCAN_TEST_MAX_BINS
 * bound the bin counts (for runs under Oclgrind: see tools/dev.sh). */
static size_t env_cap(const char *name, size_t unset)
{
    const char *t = getenv(name);
    return t && *t ? (size_t)strtoull(t, NULL, 0) : unset;
}
static size_t max_size(void) { return env_cap("CLSCAN_TEST_MAX_SIZE", SIZE_MAX); }

/* One sample type: both kinds of bins, every bin count and size, alternating count types
 * and offsets. */
START_TEST(test_matrix)
{
    const clscan_type type = (clscan_type)_i;
    if (!clscan_test_type_wanted(type, "histogram")) return;
    const uint64_t seed = clscan_test_seed(20261126u);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_test_tally t = {0};
        unsigned k = 0;
        for (int levels = 0; levels < 2; levels++)
            for (size_t b = 0; b < sizeof bin_counts / sizeof *bin_counts &&
                               bin_counts[b] <= env_cap("CLSCAN_TEST_MAX_BINS", SIZE_MAX);
                 b++) {
                if (bin_counts[b] < env_cap("CLSCAN_TEST_MIN_BINS", 0)) continue;
                for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= max_size();
                     z++, k++) {
                    const clscan_verify_hist_case c = {
                        type, k % 2 ? CLSCAN_UINT64 : CLSCAN_UINT32, levels, 0, bin_counts[b],
                        sizes[z], k % 3 ? 5 : 0, k % 4 ? 3 : 0,
                        clscan_verify_mix(seed, (uint64_t)type << 32 | k)};
                    char msg[1024], line[1400];
                    const clscan_verify_result r =
                        clscan_verify_run_histogram(d->ctx, d->cl_ctx, d->queue, &c, msg,
                                                    sizeof msg);
                    if (r == CLSCAN_VERIFY_PASS) t.pass++;
                    else if (r == CLSCAN_VERIFY_SKIP) t.skip++;
                    else {
                        snprintf(line, sizeof line, "histogram %s %s bins %zu n %zu counts %s: %s",
                                 clscan_type_name(type), levels ? "levels" : "even", c.num_bins,
                                 c.n, clscan_type_name(c.count_type), msg);
                        clscan_test_tally_fail(&t, d, line);
                    }
                }
            }
        clscan_test_tally_check(&t, d, "histogram", type);
    }
}
END_TEST

/* Levels in random order: some bin for each sample in range, counts within bounds. */
START_TEST(test_unsorted_levels)
{
    const uint64_t seed = clscan_test_seed(20261126u);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        for (int type = 0; type < CLSCAN_TYPE_COUNT; type++) {
            const clscan_verify_hist_case c = {(clscan_type)type, CLSCAN_UINT32, 1, 1, 100,
                                               max_size() < 20000 ? max_size() : 20000, 0, 0,
                                               clscan_verify_mix(seed, 77 + (uint64_t)type)};
            char msg[1024];
            const clscan_verify_result r =
                clscan_verify_run_histogram(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg);
            ck_assert_msg(r != CLSCAN_VERIFY_FAIL, "%s: %s: %s", d->name,
                          clscan_type_name(c.type), msg);
        }
    }
}
END_TEST

/* The recipe of the header: counts, then their exclusive scan in place, give each bin's
 * first position (checked against the host). */
START_TEST(test_counts_to_offsets)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        enum { N = 5000, BINS = 64 };
        cl_uint x[N];
        clscan_verify_rng rng = {clscan_test_seed(20261126u)};
        for (int i = 0; i < N; i++) x[i] = (cl_uint)(clscan_verify_rng_next(&rng) % 700);
        const cl_uint lo = 0, hi = 640;
        cl_mem samples = clscan_test_buffer(d, sizeof x, x);
        cl_ulong zero[BINS] = {0};
        cl_mem offsets = clscan_test_buffer(d, sizeof zero, zero);
        cl_event h = NULL, sc = NULL;
        ck_assert_int_eq(clscan_histogram_even(d->ctx, d->queue, samples, 0, N, CLSCAN_UINT32,
                                               BINS, &lo, &hi, offsets, 0, CLSCAN_UINT64, 0,
                                               NULL, &h),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(clscan_exclusive_scan(d->ctx, d->queue, offsets, 0, offsets, 0, BINS,
                                               CLSCAN_UINT64, CLSCAN_OP_ADD, 1, &h, &sc),
                         CLSCAN_SUCCESS);
        clscan_test_wait_release(sc, "exclusive scan of the counts");
        clReleaseEvent(h);
        cl_ulong got[BINS], want[BINS] = {0}, run = 0;
        clscan_test_read(d, offsets, sizeof got, got);
        for (int i = 0; i < N; i++)
            if (x[i] < hi) want[x[i] * BINS / hi]++;
        for (int b = 0; b < BINS; b++) {
            const cl_ulong c = want[b];
            want[b] = run;
            run += c;
        }
        for (int b = 0; b < BINS; b++)
            ck_assert_msg(got[b] == want[b], "%s: offset of bin %d: %llu, expected %llu",
                          d->name, b, (unsigned long long)got[b], (unsigned long long)want[b]);
        clReleaseMemObject(samples);
        clReleaseMemObject(offsets);
    }
}
END_TEST

/* A call that must be refused: its status and words, *event untouched, counts unwritten. */
static void refused(clscan_test_dev *d, clscan_status want, const char *words, int levels,
                    cl_mem samples, size_t n, clscan_type type, size_t bins, const void *lower,
                    const void *upper, cl_mem lv, size_t lv_off, cl_mem counts,
                    size_t counts_off, clscan_type count_type, cl_mem check)
{
    unsigned char before[256];
    clscan_test_read(d, check, sizeof before, before);
    cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
    const clscan_status s =
        levels ? clscan_histogram_range(d->ctx, d->queue, samples, 0, n, type, bins, lv, lv_off,
                                        counts, counts_off, count_type, 0, NULL, &ev)
               : clscan_histogram_even(d->ctx, d->queue, samples, 0, n, type, bins, lower, upper,
                                       counts, counts_off, count_type, 0, NULL, &ev);
    clscan_test_refused(d, "histogram", s, want, words, ev, sentinel, check, before,
                        sizeof before);
}

START_TEST(test_errors)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned char init[256];
        memset(init, 0x77, sizeof init);
        cl_mem s = clscan_test_buffer(d, sizeof init, init);
        cl_mem c = clscan_test_buffer(d, sizeof init, init);
        const int BAD = CLSCAN_ERROR_INVALID_ARGUMENT;
        const cl_int lo = 0, hi = 100, lo2 = 100;
        const cl_float flo = 0, fnan = NAN, finf = INFINITY, fmax = 3e38f, fmin = -3e38f;
        refused(d, BAD, "count_type 0", 0, s, 8, CLSCAN_INT32, 4, &lo, &hi, NULL, 0, c, 0,
                CLSCAN_INT32, c);
        refused(d, BAD, "num_bins is 0", 0, s, 8, CLSCAN_INT32, 0, &lo, &hi, NULL, 0, c, 0,
                CLSCAN_UINT32, c);
        refused(d, BAD, "num_bins is 2147483649", 0, s, 8, CLSCAN_INT32, ((size_t)1 << 31) + 1,
                &lo, &hi, NULL, 0, c, 0, CLSCAN_UINT32, c);
        refused(d, BAD, "lower is NULL", 0, s, 8, CLSCAN_INT32, 4, NULL, &hi, NULL, 0, c, 0,
                CLSCAN_UINT32, c);
        refused(d, BAD, "upper is NULL", 0, s, 8, CLSCAN_INT32, 4, &lo, NULL, NULL, 0, c, 0,
                CLSCAN_UINT32, c);
        refused(d, BAD, "must be below upper", 0, s, 8, CLSCAN_INT32, 4, &lo2, &hi, NULL, 0, c,
                0, CLSCAN_UINT32, c);
        refused(d, BAD, "must be finite", 0, s, 8, CLSCAN_FLOAT, 4, &flo, &fnan, NULL, 0, c, 0,
                CLSCAN_UINT32, c);
        refused(d, BAD, "must be finite", 0, s, 8, CLSCAN_FLOAT, 4, &flo, &finf, NULL, 0, c, 0,
                CLSCAN_UINT32, c);
        refused(d, BAD, "overflows float", 0, s, 8, CLSCAN_FLOAT, 4, &fmin, &fmax, NULL, 0, c,
                0, CLSCAN_UINT32, c);
        refused(d, BAD, "counts is NULL", 0, s, 8, CLSCAN_INT32, 4, &lo, &hi, NULL, 0, NULL, 0,
                CLSCAN_UINT32, c);
        refused(d, BAD, "counts: elements [30, 34)", 0, s, 8, CLSCAN_INT32, 4, &lo, &hi, NULL,
                0, c, 30, CLSCAN_UINT64, c);
        refused(d, BAD, "samples: elements [0, 65)", 0, s, 65, CLSCAN_INT32, 4, &lo, &hi, NULL,
                0, c, 0, CLSCAN_UINT32, c);
        refused(d, BAD, "overlap", 0, c, 8, CLSCAN_INT32, 4, &lo, &hi, NULL, 0, c, 4,
                CLSCAN_UINT32, c);
        refused(d, BAD, "type 9 is not a clscan_type", 0, s, 8, (clscan_type)9, 4, &lo, &hi,
                NULL, 0, c, 0, CLSCAN_UINT32, c);
        refused(d, BAD, "levels is NULL", 1, s, 8, CLSCAN_INT32, 4, NULL, NULL, NULL, 0, c, 0,
                CLSCAN_UINT32, c);
        refused(d, BAD, "levels: elements [60, 65)", 1, s, 8, CLSCAN_INT32, 4, NULL, NULL, s,
                60, c, 0, CLSCAN_UINT32, c);
        refused(d, BAD, "overlap", 1, s, 8, CLSCAN_INT32, 4, NULL, NULL, c, 2, c, 0,
                CLSCAN_UINT32, c);
        clReleaseMemObject(s);
        clReleaseMemObject(c);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("histogram");
    TCase *tc = tcase_create("devices");
    tcase_add_checked_fixture(tc, clscan_test_setup, clscan_test_teardown);
    tcase_add_loop_test(tc, test_matrix, 0, CLSCAN_TYPE_COUNT);
    tcase_add_test(tc, test_unsorted_levels);
    tcase_add_test(tc, test_counts_to_offsets);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return clscan_test_run(s);
}
