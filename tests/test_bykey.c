/* test_bykey.c - Check suite for clscan_reduce_by_key, clscan_run_length_encode and
 * clscan_run_length_encode_nontrivial: the general cases with segments (keys and flags;
 * built-in and custom operators, a non-commutative struct, a transform) reduced by key
 * with and without unique keys, and run-length encoding of every type, all runs or those
 * longer than one or through reduce by key of ones by keys of that type (runs of 1 to 20,
 * NaNs and signed zeros for floats, 32- and 64-bit lengths), against host references on random inputs (seed printed) at
 * edge sizes with guard bands; and the argument errors with their messages. */
/* SPDX-License-Identifier: MIT */
#include "test_devices.h"
#include "verify_general.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {0, 1, 2, 3, 64, 65, 257, 1000, 4099, 65537};

static size_t env_size(const char *name, size_t unset)
{
    const char *t = getenv(name);
    return t && *t ? (size_t)strtoull(t, NULL, 0) : unset;
}
static size_t max_size(void) { return env_size("CLSCAN_TEST_MAX_SIZE", SIZE_MAX); }
/* Runs longer than one take a temporary buffer a call: $CLSCAN_TEST_NONTRIVIAL_MIN_SIZE
 * leaves out their smaller sizes (Oclgrind reads a buffer that reuses a smaller released
 * one's addresses as uninitialised: docs/IMPLEMENTATION-ISSUES.md). */
static size_t nontrivial_min_size(void) { return env_size("CLSCAN_TEST_NONTRIVIAL_MIN_SIZE", 0); }

/* General case k, if it has segments: every size, with and without unique keys. */
START_TEST(test_by_key)
{
    const clscan_verify_gen_case c = clscan_verify_gen_case_get(_i);
    if (c.desc.segments == CLSCAN_SEGMENTS_NONE) return;
    const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261126u), 0xb7u + (uint64_t)_i);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        fprintf(stderr, "%s: by key, case %d: %s\n", d->name, _i, c.name);
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= max_size(); z++)
            for (int with_keys = 0; with_keys < 2; with_keys++) {
                char msg[1024];
                const clscan_verify_result r = clscan_verify_run_general_by_key(
                    d->ctx, d->cl_ctx, d->queue, &c, sizes[z], with_keys, seed, msg, sizeof msg);
                ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: %s: %s", d->name, c.name, msg);
            }
        /* With desc->index_base: the transform's index moves (a multiple of 5 leaves the
         * one case that reads it, x * (i % 5), as the host computes it), the segments
         * stay where the positions put them. */
        clscan_verify_gen_case based = c;
        based.desc.index_base = 1000000;
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= max_size(); z += 3) {
            char msg[1024];
            const clscan_verify_result r = clscan_verify_run_general_by_key(
                d->ctx, d->cl_ctx, d->queue, &based, sizes[z], 1, seed, msg, sizeof msg);
            ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: %s, index_base %zu: %s", d->name, c.name,
                          based.desc.index_base, msg);
        }
    }
}
END_TEST

START_TEST(test_rle)
{
    /* (_i: the type; bit 3: only runs longer than one are asked for; bit 4: the runs
     * through reduce by key, their elements the keys of ones, so keys of every type.) */
    const clscan_type type = (clscan_type)(_i & 7);
    const int nontrivial = _i >> 3 & 1, by_key = _i >> 4 & 1;
    if (!clscan_test_type_wanted(type, "run-length encode")) return;
    const uint64_t seed = clscan_test_seed(20261126u);
    for (int di = 0; di < clscan_test_ndevs; di++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= max_size(); z++) {
            if (nontrivial && sizes[z] < nontrivial_min_size()) continue;
            char msg[512] = "";
            const clscan_type lt = z % 2 ? CLSCAN_UINT64 : CLSCAN_UINT32;
            clscan_test_dev *d = &clscan_test_devs[di];
            const clscan_verify_result r = clscan_verify_run_rle(
                d->ctx, d->cl_ctx, d->queue, type, lt,
                (nontrivial ? CLSCAN_VERIFY_RLE_NONTRIVIAL : 0) |
                    (by_key ? CLSCAN_VERIFY_RLE_BY_KEY : 0),
                sizes[z], clscan_verify_mix(seed, (uint64_t)_i << 40 | sizes[z]), msg, sizeof msg);
            ck_assert_msg(r == CLSCAN_VERIFY_PASS || (r == CLSCAN_VERIFY_SKIP && !d->fp64),
                          "%s: run-length encode%s %s, n %zu, lengths %s: %s", d->name,
                          nontrivial ? " (runs longer than one)"
                          : by_key   ? " (reduce by key of ones)"
                                     : "",
                          clscan_type_name(type), sizes[z], clscan_type_name(lt), msg);
        }
}
END_TEST

/* Runs up to a third of the range long, so that many tiles in a row have no head and a
 * run's length spans them: int32 keys, lengths of both types, sizes up to 2^24 (on the
 * GPU, whose tiles hold 8192 elements, runs then span hundreds of tiles). */
START_TEST(test_rle_long)
{
    static const size_t long_sizes[] = {3, 4099, 65537, 1048583, 16777259};
    const clscan_type lt = _i ? CLSCAN_UINT64 : CLSCAN_UINT32;
    const uint64_t seed = clscan_test_seed(20261128u);
    for (int di = 0; di < clscan_test_ndevs; di++)
        for (size_t z = 0; z < sizeof long_sizes / sizeof *long_sizes; z++) {
            const size_t n = long_sizes[z];
            if (n > max_size()) continue;
            char msg[512] = "";
            clscan_test_dev *d = &clscan_test_devs[di];
            const clscan_verify_result r = clscan_verify_run_rle(
                d->ctx, d->cl_ctx, d->queue, CLSCAN_INT32, lt, CLSCAN_VERIFY_RLE_LONG, n,
                clscan_verify_mix(seed, (uint64_t)_i << 40 | n), msg, sizeof msg);
            ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: run-length encode, long runs, n %zu, "
                          "lengths %s: %s", d->name, n, clscan_type_name(lt), msg);
        }
}
END_TEST

START_TEST(test_errors)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned char init[256];
        memset(init, 0x2d, sizeof init);
        cl_mem k = clscan_test_buffer(d, 256, init), v = clscan_test_buffer(d, 256, init);
        cl_mem r = clscan_test_buffer(d, 256, init), c = clscan_test_buffer(d, 256, init);
        cl_mem small = clscan_test_buffer(d, 4, init);
        const int BAD = CLSCAN_ERROR_INVALID_ARGUMENT;
        clscan_scan_desc ok = {0};
        ok.type = CLSCAN_INT32;
        ok.op = CLSCAN_OP_ADD;
        ok.segments = CLSCAN_SEGMENTS_KEYS;
        ok.key_type = CLSCAN_INT32;
        const struct {
            clscan_scan_desc d;
            cl_mem uniq, red, cnt;
            size_t red_off, n;
            const char *words;
        } cases[] = {
            {{.type = CLSCAN_INT32, .op = CLSCAN_OP_ADD}, r, r, c, 0, 8,
             "desc->segments is CLSCAN_SEGMENTS_NONE"},
            {{.type = CLSCAN_INT32, .op = CLSCAN_OP_ADD, .segments = CLSCAN_SEGMENTS_FLAGS}, r, c,
             small, 0, 8, "unique_keys is given but the segments are flags"},
            {{.type = CLSCAN_INT32, .op = CLSCAN_OP_ADD, .segments = CLSCAN_SEGMENTS_KEYS,
              .output = "out0[i] = y;"}, NULL, r, c, 0, 8, "writes its own outputs"},
            {ok, NULL, NULL, c, 0, 8, "reduced is NULL"},
            {ok, NULL, r, NULL, 0, 8, "count (one cl_ulong) is NULL"},
            {ok, NULL, r, small, 0, 8, "count (one cl_ulong): elements [0, 1) of 8 bytes"},
            {ok, NULL, r, c, 60, 8, "reduced: elements [60, 68)"},
            {ok, NULL, r, r, 0, 8, "overlap"},
            {ok, NULL, k, c, 0, 8, "overlap"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            unsigned char before[256];
            clscan_test_read(d, r, sizeof before, before);
            cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
            const clscan_status s = clscan_reduce_by_key(
                d->ctx, d->queue, &cases[i].d, k, 0, v, 0, cases[i].n, cases[i].uniq, 0,
                cases[i].red, cases[i].red_off, cases[i].cnt, 0, NULL, &ev);
            clscan_test_refused(d, "reduce_by_key", s, BAD, cases[i].words, ev, sentinel, r,
                                before, sizeof before);
        }
        unsigned char before[256];
        clscan_test_read(d, r, sizeof before, before);
        cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
        clscan_status s = clscan_run_length_encode(d->ctx, d->queue, k, 0, 8, CLSCAN_INT32, r, 0,
                                                   c, 0, CLSCAN_INT64, v, 0, NULL, &ev);
        clscan_test_refused(d, "run_length_encode", s, BAD, "length_type 2", ev, sentinel, r,
                            before, sizeof before);
        s = clscan_run_length_encode(d->ctx, d->queue, k, 0, 8, CLSCAN_INT32, NULL, 0, c, 0,
                                     CLSCAN_UINT32, v, 0, NULL, &ev);
        clscan_test_refused(d, "run_length_encode", s, BAD, "unique is NULL", ev, sentinel, r,
                            before, sizeof before);
        s = clscan_run_length_encode(d->ctx, d->queue, k, 0, 8, CLSCAN_INT32, r, 0, c, 62,
                                     CLSCAN_UINT32, v, 0, NULL, &ev);
        clscan_test_refused(d, "run_length_encode", s, BAD, "lengths: elements [62, 70)", ev,
                            sentinel, r, before, sizeof before);
        /* Runs longer than one: offsets and lengths need room for n / 2 elements. */
        s = clscan_run_length_encode_nontrivial(d->ctx, d->queue, k, 0, 8, CLSCAN_INT32, r, 0, c,
                                                0, CLSCAN_INT32, v, 0, NULL, &ev);
        clscan_test_refused(d, "run_length_encode_nontrivial", s, BAD, "length_type 0", ev,
                            sentinel, r, before, sizeof before);
        s = clscan_run_length_encode_nontrivial(d->ctx, d->queue, k, 0, 8, CLSCAN_INT32, NULL, 0,
                                                c, 0, CLSCAN_UINT32, v, 0, NULL, &ev);
        clscan_test_refused(d, "run_length_encode_nontrivial", s, BAD, "offsets is NULL", ev,
                            sentinel, r, before, sizeof before);
        s = clscan_run_length_encode_nontrivial(d->ctx, d->queue, k, 0, 10, CLSCAN_INT32, r, 60,
                                                c, 0, CLSCAN_UINT32, v, 0, NULL, &ev);
        clscan_test_refused(d, "run_length_encode_nontrivial", s, BAD,
                            "offsets: elements [60, 65)", ev, sentinel, r, before, sizeof before);
        s = clscan_run_length_encode_nontrivial(d->ctx, d->queue, k, 0, 8, CLSCAN_INT32, r, 0, r,
                                                2, CLSCAN_UINT32, v, 0, NULL, &ev);
        clscan_test_refused(d, "run_length_encode_nontrivial", s, BAD, "overlap", ev, sentinel,
                            r, before, sizeof before);
        s = clscan_run_length_encode_nontrivial(d->ctx, d->queue, k, 0, 8, CLSCAN_INT32, r, 0, c,
                                                0, CLSCAN_UINT32, small, 0, NULL, &ev);
        clscan_test_refused(d, "run_length_encode_nontrivial", s, BAD, "count (one cl_ulong)",
                            ev, sentinel, r, before, sizeof before);
        cl_mem all[] = {k, v, r, c, small};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++) clReleaseMemObject(all[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bykey");
    TCase *tc = tcase_create("devices");
    tcase_add_checked_fixture(tc, clscan_test_setup, clscan_test_teardown);
    tcase_add_loop_test(tc, test_by_key, 0, CLSCAN_VERIFY_GEN_CASES);
    tcase_add_loop_test(tc, test_rle, 0, CLSCAN_TYPE_COUNT);
    tcase_add_loop_test(tc, test_rle, 8, 8 + CLSCAN_TYPE_COUNT);
    tcase_add_loop_test(tc, test_rle, 16, 16 + CLSCAN_TYPE_COUNT);
    tcase_add_loop_test(tc, test_rle_long, 0, 2);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return clscan_test_run(s);
}
