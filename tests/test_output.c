/* test_output.c - Check suite for clscan_scan_output (the output stage): a
 * variable-length expansion (each element writes its x copies of its index at its
 * exclusive offset y) with and without dst; a segmented scan by keys whose statement
 * writes y and the key at each segment's last element, numbered by `s` (reduce by key in
 * one pass), into buffers at offsets, with a carry-in and total; against host references on random inputs (seed
 * printed) at edge sizes; each element's first and last (segment bounds) as the
 * statements see them; and the argument errors with their messages, nothing written. */
/* SPDX-License-Identifier: MIT */
#include "test_devices.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 255, 257, 1000, 4097, 65537, 200003};

static size_t max_size(void)
{
    const char *t = getenv("CLSCAN_TEST_MAX_SIZE");
    return t && *t ? (size_t)strtoull(t, NULL, 0) : SIZE_MAX;
}

/* Expansion: x in [0, 4] copies of i at the exclusive sum y of the lengths before. */
static void expand(clscan_test_dev *d, size_t n, int with_dst, uint64_t seed)
{
    clscan_verify_rng rng = {seed};
    cl_uint *len = malloc((n + 1) * sizeof *len), *want = malloc((4 * n + 8) * sizeof *want);
    cl_uint *got = malloc((4 * n + 8) * sizeof *got), *offs = malloc((n + 1) * sizeof *offs);
    ck_assert(len && want && got && offs);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        len[i] = (cl_uint)(clscan_verify_rng_next(&rng) % 5);
        offs[i] = (cl_uint)total;
        for (cl_uint k = 0; k < len[i]; k++) want[total + k] = (cl_uint)i;
        total += len[i];
    }
    const size_t out_elems = total + 8; /* (a guard after the used part) */
    for (size_t k = total; k < out_elems; k++) want[k] = 0xdeadbeefu;
    cl_uint *poison = malloc(out_elems * 4);
    ck_assert_ptr_nonnull(poison);
    for (size_t k = 0; k < out_elems; k++) poison[k] = 0xdeadbeefu;
    cl_mem src = clscan_test_buffer(d, (n + 1) * 4, len);
    cl_mem out = clscan_test_buffer(d, out_elems * 4, poison);
    cl_mem dst = with_dst ? clscan_test_buffer(d, (n + 1) * 4, NULL) : NULL;
    clscan_scan_desc desc = {0};
    desc.type = CLSCAN_UINT32;
    desc.op = CLSCAN_OP_ADD;
    desc.output = "for (uint k = 0; k < x; ++k) out0[y + k] = (uint)i;";
    desc.output_types[0] = "uint";
    cl_event ev = NULL;
    const clscan_status s = clscan_scan_output(d->ctx, d->queue, &desc, 0, src, 0, NULL, 0, dst, 0,
                                               n, &out, NULL, 1, NULL, 0, NULL, &ev);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: clscan_scan_output: %s: %s", d->name,
                  clscan_status_string(s), clscan_context_last_error(d->ctx));
    clscan_test_wait_release(ev, "clscan_scan_output");
    clscan_test_read(d, out, out_elems * 4, got);
    for (size_t k = 0; k < out_elems; k++)
        ck_assert_msg(got[k] == want[k], "%s: n %zu%s: out0[%zu] is %u, expected %u", d->name, n,
                      with_dst ? " with dst" : "", k, got[k], want[k]);
    if (with_dst && n) {
        clscan_test_read(d, dst, n * 4, got);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(got[i] == offs[i], "%s: n %zu: dst[%zu] is %u, expected %u", d->name,
                          n, i, got[i], offs[i]);
    }
    if (dst) clReleaseMemObject(dst);
    clReleaseMemObject(src);
    clReleaseMemObject(out);
    free(poison);
    free(len);
    free(want);
    free(got);
    free(offs);
}

START_TEST(test_expand)
{
    const uint64_t seed = clscan_test_seed(20261126u);
    for (int di = 0; di < clscan_test_ndevs; di++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= max_size(); z++)
            for (int with_dst = 0; with_dst < 2; with_dst++)
                expand(&clscan_test_devs[di], sizes[z], with_dst,
                       clscan_verify_mix(seed, sizes[z] * 2 + (uint64_t)with_dst));
}
END_TEST

/* Reduce by key in one pass: int32 values, int32 keys in runs; at each segment's last
 * element (its key differs from the next one's, read through `segments`) the statement
 * writes the inclusive segmented sum y and the key at the segment's number, from `s`.
 * With a carry-in, which continues segment 0 (so `s` counts from 0), into buffers at
 * offsets 3 and 5, and the total out. */
static void by_key(clscan_test_dev *d, size_t n, uint64_t seed)
{
    clscan_verify_rng rng = {seed};
    cl_int *v = malloc((n + 1) * 4), *k = malloc((n + 1) * 4), *keys = malloc((n + 1) * 4);
    cl_int *sums = malloc((n + 1) * 4), *got = malloc((n + 8) * 4);
    ck_assert(v && k && keys && sums && got);
    const cl_int carry_in = 1000;
    size_t nseg = 0;
    cl_int key = 7, acc = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || clscan_verify_rng_next(&rng) % 6 == 0) {
            if (i) key += 1 + (cl_int)(clscan_verify_rng_next(&rng) % 3);
            if (i) nseg++;
            acc = i == 0 ? carry_in : 0; /* (the carry continues segment 0) */
        }
        k[i] = key;
        keys[nseg] = key;
        v[i] = (cl_int)(clscan_verify_rng_next(&rng) % 201) - 100;
        acc += v[i];
        sums[nseg] = acc;
    }
    if (n) nseg++;
    cl_mem vb = clscan_test_buffer(d, (n + 1) * 4, v), kb = clscan_test_buffer(d, (n + 1) * 4, k);
    cl_mem outs[2] = {clscan_test_buffer(d, (n + 8) * 4, NULL),
                      clscan_test_buffer(d, (n + 8) * 4, NULL)};
    const size_t offs[2] = {3, 5};
    cl_mem total = clscan_test_buffer(d, 8, NULL);
    clscan_scan_desc desc = {0};
    desc.type = CLSCAN_INT32;
    desc.op = CLSCAN_OP_ADD;
    desc.segments = CLSCAN_SEGMENTS_KEYS;
    desc.key_type = CLSCAN_INT32;
    desc.output = "if (i + 1 == n || segments[i + 1] != segments[i]) {\n"
                  "    out0[s] = y;\n"
                  "    out1[s] = segments[i];\n"
                  "}";
    desc.output_types[0] = desc.output_types[1] = "int";
    const clscan_carry carry = {&carry_in, NULL, 0, total, 1};
    cl_event ev = NULL;
    const clscan_status s = clscan_scan_output(d->ctx, d->queue, &desc, 1, vb, 0, kb, 0, NULL, 0,
                                               n, outs, offs, 2, &carry, 0, NULL, &ev);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: by key: %s: %s", d->name, clscan_status_string(s),
                  clscan_context_last_error(d->ctx));
    clscan_test_wait_release(ev, "clscan_scan_output by key");
    clscan_test_read(d, outs[0], (nseg + 3) * 4, got);
    for (size_t j = 0; j < nseg; j++)
        ck_assert_msg(got[3 + j] == sums[j], "%s: n %zu: segment %zu sums to %d, expected %d",
                      d->name, n, j, got[3 + j], sums[j]);
    clscan_test_read(d, outs[1], (nseg + 5) * 4, got);
    for (size_t j = 0; j < nseg; j++)
        ck_assert_msg(got[5 + j] == keys[j], "%s: n %zu: segment %zu has key %d, expected %d",
                      d->name, n, j, got[5 + j], keys[j]);
    cl_int tot[2];
    clscan_test_read(d, total, 8, tot);
    ck_assert_msg(tot[1] == (n ? sums[nseg - 1] : carry_in), "%s: n %zu: total %d", d->name, n,
                  tot[1]);
    clReleaseMemObject(vb);
    clReleaseMemObject(kb);
    clReleaseMemObject(outs[0]);
    clReleaseMemObject(outs[1]);
    clReleaseMemObject(total);
    free(v);
    free(k);
    free(keys);
    free(sums);
    free(got);
}

START_TEST(test_by_key)
{
    const uint64_t seed = clscan_test_seed(20261126u);
    for (int di = 0; di < clscan_test_ndevs; di++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= max_size(); z++)
            by_key(&clscan_test_devs[di], sizes[z], clscan_verify_mix(seed, 77 + sizes[z]));
}
END_TEST

/* The statements' first and last: "out0[p] = first | last << 1" for every element,
 * without segments, by flags and by keys (runs of 1 to about 6: neighbouring heads, and
 * heads at tile edges), with and without a carry-in (by keys element 0 then continues
 * the carry's segment; by flags it starts one where its flag is set), inclusive and
 * exclusive, with an identity transform (which takes the CPUs' four runs instead of
 * their vectors) and without, and index_base 1000 (first and last go by position). */
static void ends(clscan_test_dev *d, size_t n, clscan_segments segs, int carried,
                 int inclusive, int transformed, uint64_t seed)
{
    clscan_verify_rng rng = {seed};
    cl_int *v = malloc((n + 1) * 4), *k = malloc((n + 1) * 4);
    cl_uchar *f = malloc(n + 1);
    cl_uint *want = malloc((n + 1) * 4), *got = malloc((n + 1) * 4), *head = malloc((n + 2) * 4);
    ck_assert(v && k && f && want && got && head);
    cl_int key = -3;
    for (size_t i = 0; i < n; i++) {
        const int change = clscan_verify_rng_next(&rng) % 3 == 0;
        key += change;
        k[i] = key;
        f[i] = (cl_uchar)(clscan_verify_rng_next(&rng) % 3 == 0 ? 1 + i % 7 : 0);
        v[i] = (cl_int)(clscan_verify_rng_next(&rng) % 100);
    }
    for (size_t i = 0; i < n; i++) {
        if (segs == CLSCAN_SEGMENTS_NONE) head[i] = 0;
        else if (i == 0) head[i] = !carried || (segs == CLSCAN_SEGMENTS_FLAGS && f[0] != 0);
        else head[i] = segs == CLSCAN_SEGMENTS_FLAGS ? f[i] != 0 : k[i] != k[i - 1];
    }
    for (size_t i = 0; i < n; i++)
        want[i] = head[i] | (cl_uint)(i + 1 == n || (segs != CLSCAN_SEGMENTS_NONE && head[i + 1]))
                                << 1;
    cl_mem vb = clscan_test_buffer(d, (n + 1) * 4, v);
    cl_mem sb = segs == CLSCAN_SEGMENTS_KEYS    ? clscan_test_buffer(d, (n + 1) * 4, k)
                : segs == CLSCAN_SEGMENTS_FLAGS ? clscan_test_buffer(d, n + 1, f)
                                                : NULL;
    for (size_t i = 0; i <= n; i++) got[i] = 0xdeadbeefu;
    cl_mem out = clscan_test_buffer(d, (n + 1) * 4, got);
    clscan_scan_desc desc = {0};
    desc.type = CLSCAN_INT32;
    desc.op = CLSCAN_OP_ADD;
    desc.segments = segs;
    desc.key_type = CLSCAN_INT32;
    desc.transform = transformed ? "x" : NULL;
    desc.index_base = 1000;
    desc.output = "out0[p] = first | last << 1;";
    desc.output_types[0] = "uint";
    const cl_int carry_in = 5;
    const clscan_carry carry = {&carry_in, NULL, 0, NULL, 0};
    cl_event ev = NULL;
    const clscan_status s =
        clscan_scan_output(d->ctx, d->queue, &desc, inclusive, vb, 0, sb, 0, NULL, 0, n, &out,
                           NULL, 1, carried ? &carry : NULL, 0, NULL, &ev);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: ends: %s: %s", d->name, clscan_status_string(s),
                  clscan_context_last_error(d->ctx));
    clscan_test_wait_release(ev, "clscan_scan_output first/last");
    clscan_test_read(d, out, (n + 1) * 4, got);
    for (size_t i = 0; i <= n; i++) {
        const cl_uint w = i < n ? want[i] : 0xdeadbeefu;
        ck_assert_msg(got[i] == w,
                      "%s: n %zu, segments %d, %s, %s%s (seed %llu): element %zu has first %u "
                      "last %u (0x%x), expected first %u last %u",
                      d->name, n, (int)segs, carried ? "carried" : "no carry",
                      inclusive ? "inclusive" : "exclusive", transformed ? ", transform" : "",
                      (unsigned long long)seed, i, got[i] & 1, got[i] >> 1 & 1, got[i], w & 1,
                      w >> 1 & 1);
    }
    if (sb) clReleaseMemObject(sb);
    clReleaseMemObject(vb);
    clReleaseMemObject(out);
    free(v);
    free(k);
    free(f);
    free(want);
    free(got);
    free(head);
}

START_TEST(test_ends)
{
    const uint64_t seed = clscan_test_seed(20261201u);
    const clscan_segments segs[3] = {CLSCAN_SEGMENTS_NONE, CLSCAN_SEGMENTS_FLAGS,
                                     CLSCAN_SEGMENTS_KEYS};
    for (int di = 0; di < clscan_test_ndevs; di++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= max_size(); z++)
            for (int m = 0; m < 3; m++)
                for (int c = 0; c < 4; c++)
                    for (int t = 0; t < 2; t++)
                        ends(&clscan_test_devs[di], sizes[z], segs[m], c & 1, c >> 1, t,
                             clscan_verify_mix(seed, sizes[z] * 24 + (uint64_t)(m * 8 + c * 2 + t)));
}
END_TEST

/* A call that must be refused, with its words; nothing written to the buffer `check`. */
static void refused(clscan_test_dev *d, const clscan_scan_desc *desc, cl_mem src, cl_mem dst,
                    const cl_mem *outs, cl_uint nouts, clscan_status want, const char *words,
                    int through_scan, cl_mem check)
{
    unsigned char before[64];
    clscan_test_read(d, check, sizeof before, before);
    cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
    const clscan_status s =
        through_scan ? clscan_scan(d->ctx, d->queue, desc, 0, src, 0, NULL, 0, dst, 0, 8, 0, NULL,
                                   &ev)
                     : clscan_scan_output(d->ctx, d->queue, desc, 0, src, 0, NULL, 0, dst, 0, 8,
                                          outs, NULL, nouts, NULL, 0, NULL, &ev);
    clscan_test_refused(d, "output", s, want, words, ev, sentinel, check, before, sizeof before);
}

START_TEST(test_errors)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned char init[64];
        memset(init, 0x3c, sizeof init);
        cl_mem a = clscan_test_buffer(d, 64, init), b = clscan_test_buffer(d, 64, init);
        cl_mem o = clscan_test_buffer(d, 64, init);
        const int BAD = CLSCAN_ERROR_INVALID_ARGUMENT;
        clscan_scan_desc ok = {0};
        ok.type = CLSCAN_INT32;
        ok.op = CLSCAN_OP_ADD;
        ok.output = "out0[i] = y;";
        ok.output_types[0] = "int";
        const cl_mem one[1] = {o}, five[5] = {o, o, o, o, o}, none[1] = {NULL};
        refused(d, &ok, a, b, one, 1, BAD, "call clscan_scan_output", 1, o);
        clscan_scan_desc no = ok;
        no.output = NULL;
        refused(d, &no, a, b, one, 1, BAD, "desc->output_types[0] is given without desc->output",
                0, o);
        no.output_types[0] = NULL;
        refused(d, &no, a, b, NULL, 0, BAD, "desc->output is NULL", 0, o);
        refused(d, &ok, a, b, five, 5, BAD, "at most 4 output buffers", 0, o);
        refused(d, &ok, a, b, NULL, 1, BAD, "outputs is NULL but num_outputs is 1", 0, o);
        refused(d, &ok, a, b, none, 1, BAD, "output buffer 0 is missing", 0, o);
        clscan_scan_desc extra = ok;
        extra.output_types[0] = NULL;
        refused(d, &extra, a, b, one, 1, BAD, "output buffer 0 is given but", 0, o);
        clscan_scan_desc broken = ok;
        broken.output = "out0[i] = y;\nout0[i] = no_such_thing;";
        refused(d, &broken, a, b, one, 1, CLSCAN_ERROR_BUILD_FAILED, "no_such_thing", 0, o);
        /* An output without a type is a null pointer to const void: the statements
         * cannot write it (before, it stood for src, which such a write changed). */
        clscan_scan_desc untyped = ok;
        untyped.output = "out0[i] = y;\nout1[i] = 1;";
        refused(d, &untyped, a, b, one, 1, CLSCAN_ERROR_BUILD_FAILED, "does not compile", 0, a);
        untyped.output = "out0[i] = y + out3[0];";
        refused(d, &untyped, a, b, one, 1, CLSCAN_ERROR_BUILD_FAILED, "does not compile", 0, a);
        clReleaseMemObject(a);
        clReleaseMemObject(b);
        clReleaseMemObject(o);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("output");
    TCase *tc = tcase_create("devices");
    tcase_add_checked_fixture(tc, clscan_test_setup, clscan_test_teardown);
    tcase_add_test(tc, test_expand);
    tcase_add_test(tc, test_by_key);
    tcase_add_test(tc, test_ends);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return clscan_test_run(s);
}
