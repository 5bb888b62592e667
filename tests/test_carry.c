/* test_carry.c - Check suite for carry-in and carry-out (clscan_*_scan_carry,
 * clscan_scan_carry) and clscan_scan_parts: a range scanned in random pieces, each piece
 * starting from the previous one's total (from a device buffer or a host value), must
 * equal the host reference of one scan over the whole range, for every library type and
 * operator and every general case of tools/verify_general.c (custom operators, structs,
 * transforms, segments); every total and every reduce-only call (dst NULL) against the
 * reference; a host carry-in before the range; nothing written around dst; the parts of
 * one range on several devices of one cl_context (PoCL's sub-devices; elsewhere the
 * device twice); and the argument errors with their exact status and message. The seed
 * is printed ($CLSCAN_TEST_SEED replays it). */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_devices.h"
#include "verify_general.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device under test in the running loop over clscan_test_devs. */
static clscan_test_dev *gd;

enum { MAX_PIECES = 6, SRC_OFF = 3, DST_OFF = 5, GUARD = 8, POISON = 0xa5 };

static const size_t sizes[] = {0, 1, 2, 127, 128, 129, 1000, 4097, 70001};

/* $CLSCAN_TEST_MAX_SIZE caps the sizes, and $CLSCAN_TEST_QUICK=1 keeps three (type, op)
 * pairs of the built-in ones and four general cases (for runs under Oclgrind). */
static size_t max_size(void)
{
    const char *t = getenv("CLSCAN_TEST_MAX_SIZE");
    return t && *t ? (size_t)strtoull(t, NULL, 0) : SIZE_MAX;
}

/* $CLSCAN_TEST_MIN_SIZE: test_parts leaves out the sizes below it too (with the maximum:
 * one size a process, for Oclgrind). */
static size_t min_size(void)
{
    const char *t = getenv("CLSCAN_TEST_MIN_SIZE");
    return t && *t ? (size_t)strtoull(t, NULL, 0) : 0;
}

static int quick(void)
{
    const char *t = getenv("CLSCAN_TEST_QUICK");
    return t && *t == '1';
}

/* Splits [0, n) into 1 to MAX_PIECES pieces at random cuts (empty pieces included):
 * cuts[0] = 0, cuts[pieces] = n, ascending. Returns the number of pieces. */
static int make_cuts(size_t n, clscan_verify_rng *rng, size_t *cuts)
{
    const int pieces = 1 + (int)clscan_verify_gen_below(rng, MAX_PIECES);
    cuts[0] = 0;
    for (int p = 1; p < pieces; ++p)
        cuts[p] = n ? clscan_verify_gen_below(rng, (uint32_t)n + 1) : 0;
    cuts[pieces] = n;
    for (int p = 1; p < pieces; ++p) /* (insertion sort) */
        for (int q = p; q > 0 && cuts[q] < cuts[q - 1]; --q) {
            const size_t t = cuts[q];
            cuts[q] = cuts[q - 1];
            cuts[q - 1] = t;
        }
    return pieces;
}

static void read_at(cl_mem m, size_t off, size_t bytes, void *out)
{
    ck_assert_int_eq(clEnqueueReadBuffer(gd->queue, m, CL_TRUE, off, bytes, out, 0, NULL, NULL),
                     CL_SUCCESS);
}

/* dst's buffer: n elements of `size` at DST_OFF, poison before and GUARD elements after. */
static cl_mem poisoned_dst(size_t n, size_t size, unsigned char **host)
{
    const size_t bytes = (DST_OFF + n + GUARD) * size;
    *host = malloc(bytes);
    ck_assert_ptr_nonnull(*host);
    memset(*host, POISON, bytes);
    return clscan_test_buffer(gd, bytes, *host);
}

/* Reads dst's buffer back into got (n elements) and checks its guard bands. */
static void read_dst(cl_mem dst, size_t n, size_t size, const unsigned char *poison,
                     void *got, const char *what)
{
    const size_t bytes = (DST_OFF + n + GUARD) * size;
    unsigned char *all = malloc(bytes);
    ck_assert_ptr_nonnull(all);
    read_at(dst, 0, bytes, all);
    ck_assert_msg(!memcmp(all, poison, DST_OFF * size), "%s: %s: written before dst", gd->name,
                  what);
    ck_assert_msg(!memcmp(all + (DST_OFF + n) * size, poison + (DST_OFF + n) * size,
                          GUARD * size),
                  "%s: %s: written after dst", gd->name, what);
    memcpy(got, all + DST_OFF * size, n * size);
    free(all);
}

/* How piece p gets its carry-in: none for the first piece; then, by turns, the device
 * buffer of totals (element p) or a host value read back from it. */
static clscan_carry piece_carry(int p, cl_mem totals, size_t size, uint64_t seed,
                                unsigned char *host_value)
{
    clscan_carry c = {0};
    c.out_buffer = totals;
    c.out_offset = (size_t)p + 1;
    if (p == 0) return c;
    if ((p + seed) % 2) {
        c.in_buffer = totals;
        c.in_offset = (size_t)p;
    } else {
        read_at(totals, (size_t)p * size, size, host_value);
        c.in_value = host_value;
    }
    return c;
}

/* ------------------------------------------------------ built-in operators ---- */

/* A (type, op) pair scanned in pieces: dst against the whole range's reference, each
 * piece's total (and its reduce-only twin) against the inclusive reference. */
static void run_builtin(clscan_type type, clscan_op op, int inclusive, size_t n, uint64_t seed)
{
    const size_t es = clscan_type_size(type);
    char msg[512], what[160];
    snprintf(what, sizeof what, "%s %s %s n=%zu seed=%llu", clscan_type_name(type),
             clscan_op_name(op), inclusive ? "inclusive" : "exclusive", n,
             (unsigned long long)seed);
    unsigned char *in = malloc((n + 1) * es), *got = malloc((n + 1) * es), *poison;
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(got);
    clscan_verify_fill(in, n, type, op, seed);
    clscan_verify_ref *ref = clscan_verify_reference(type, op, inclusive, in, n);
    clscan_verify_ref *incl = clscan_verify_reference(type, op, 1, in, n);
    ck_assert_ptr_nonnull(ref);
    ck_assert_ptr_nonnull(incl);
    unsigned char *init = calloc(SRC_OFF + n + 1, es);
    ck_assert_ptr_nonnull(init);
    memcpy(init + SRC_OFF * es, in, n * es);
    cl_mem src = clscan_test_buffer(gd, (SRC_OFF + n + 1) * es, init);
    cl_mem dst = poisoned_dst(n, es, &poison);
    cl_mem totals = clscan_test_buffer(gd, (MAX_PIECES + 1) * es, NULL);
    cl_mem reduced = clscan_test_buffer(gd, (MAX_PIECES + 1) * es, NULL);
    clscan_verify_rng rng = {seed ^ 0x5eedu};
    size_t cuts[MAX_PIECES + 1];
    const int pieces = make_cuts(n, &rng, cuts);
    unsigned char value[8], total[8];
    for (int p = 0; p < pieces; ++p) {
        const size_t at = cuts[p], len = cuts[p + 1] - cuts[p];
        clscan_carry c = piece_carry(p, totals, es, seed, value);
        clscan_status (*fn)(clscan_context *, cl_command_queue, cl_mem, size_t, cl_mem, size_t,
                            size_t, clscan_type, clscan_op, const clscan_carry *, cl_uint,
                            const cl_event *, cl_event *) =
            inclusive ? clscan_inclusive_scan_carry : clscan_exclusive_scan_carry;
        cl_event ev = NULL;
        clscan_status s = fn(gd->ctx, gd->queue, src, SRC_OFF + at, dst, DST_OFF + at, len, type,
                             op, &c, 0, NULL, &ev);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s piece %d: %s: %s", gd->name, what, p,
                      clscan_status_string(s), clscan_context_last_error(gd->ctx));
        clscan_test_wait_release(ev, what);
        /* The same piece reduced only, into its own totals. */
        c.out_buffer = reduced;
        s = fn(gd->ctx, gd->queue, src, SRC_OFF + at, NULL, 0, len, type, op, &c, 0, NULL, &ev);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s piece %d reduce: %s: %s", gd->name, what, p,
                      clscan_status_string(s), clscan_context_last_error(gd->ctx));
        clscan_test_wait_release(ev, what);
        if (cuts[p + 1] == 0) continue; /* (the total of nothing: the identity) */
        read_at(totals, (size_t)(p + 1) * es, es, total);
        ck_assert_msg(clscan_verify_compare_range(incl, cuts[p + 1] - 1, 1, total, msg, sizeof msg),
                      "%s: %s: total of piece %d [%zu, %zu): %s", gd->name, what, p, at,
                      cuts[p + 1], msg);
        read_at(reduced, (size_t)(p + 1) * es, es, total);
        ck_assert_msg(clscan_verify_compare_range(incl, cuts[p + 1] - 1, 1, total, msg, sizeof msg),
                      "%s: %s: reduce-only total of piece %d: %s", gd->name, what, p, msg);
    }
    read_dst(dst, n, es, poison, got, what);
    ck_assert_msg(clscan_verify_compare(ref, got, msg, sizeof msg), "%s: %s (%d pieces): %s",
                  gd->name, what, pieces, msg);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseMemObject(totals);
    clReleaseMemObject(reduced);
    clscan_verify_ref_free(ref);
    clscan_verify_ref_free(incl);
    free(in);
    free(got);
    free(init);
    free(poison);
}

START_TEST(test_builtin)
{
    const clscan_type type = (clscan_type)(_i / CLSCAN_OP_COUNT);
    const clscan_op op = (clscan_op)(_i % CLSCAN_OP_COUNT);
    if (clscan_verify_expect_unsupported(type, op)) return;
    if (quick() && !((type == CLSCAN_INT32 && op == CLSCAN_OP_ADD) ||
                     (type == CLSCAN_FLOAT && op == CLSCAN_OP_ADD) ||
                     (type == CLSCAN_INT64 && op == CLSCAN_OP_MAX)))
        return;
    const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261124u), (uint64_t)_i);
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        if (type == CLSCAN_DOUBLE && !gd->fp64) continue;
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0] && sizes[z] <= max_size(); ++z)
            for (int inclusive = 0; inclusive < 2; ++inclusive)
                run_builtin(type, op, inclusive, sizes[z],
                            clscan_verify_mix(seed, z * 2 + (size_t)inclusive));
    }
}
END_TEST

/* ---------------------------------------------------------- general cases ---- */

/* The first index, from `from`, that starts a segment of c's segments (n without). */
static size_t first_head(const clscan_verify_gen_case *c, const void *seg, size_t n, size_t from)
{
    for (size_t i = from; i < n; ++i) {
        if (c->desc.segments == CLSCAN_SEGMENTS_FLAGS && ((const unsigned char *)seg)[i])
            return i;
        if (c->desc.segments == CLSCAN_SEGMENTS_KEYS && i > 0 &&
            ((const int32_t *)seg)[i] != ((const int32_t *)seg)[i - 1])
            return i;
    }
    return n;
}

/* Index of the first element of got (n of `size`) that differs from want, or n. */
static size_t first_difference(const void *got, const void *want, size_t n, size_t size)
{
    for (size_t i = 0; i < n; ++i)
        if (memcmp((const char *)got + i * size, (const char *)want + i * size, size)) return i;
    return n;
}

/* Case c scanned in pieces (with keys, cut only inside a run: a carry-in continues
 * element 0's segment), then once more whole from a host carry-in. */
static void run_general(const clscan_verify_gen_case *c, int inclusive, size_t n,
                        uint64_t seed)
{
    const size_t is = c->in_size, os = c->out_size;
    const size_t ss = c->desc.segments == CLSCAN_SEGMENTS_FLAGS  ? 1
                      : c->desc.segments == CLSCAN_SEGMENTS_KEYS ? 4
                                                                 : 0;
    char what[200];
    snprintf(what, sizeof what, "%s %s n=%zu seed=%llu", c->name,
             inclusive ? "inclusive" : "exclusive", n, (unsigned long long)seed);
    clscan_verify_rng rng = {seed};
    unsigned char *in = malloc(n * is + 1), *seg = malloc(n * 4 + 1), *poison;
    unsigned char *want = malloc(n * os + 1), *incl = malloc(n * os + 1), *got = malloc(n * os + 1);
    ck_assert(in && seg && want && incl && got);
    c->fill(in, n, &rng);
    clscan_verify_gen_fill_segments(&c->desc, seg, n, &rng);
    clscan_verify_gen_reference(c, inclusive, in, seg, n, want);
    clscan_verify_gen_reference(c, 1, in, seg, n, incl);
    cl_mem src = clscan_test_buffer(gd, n * is + 1, in);
    cl_mem segs = ss ? clscan_test_buffer(gd, n * ss + 1, seg) : NULL;
    cl_mem dst = poisoned_dst(n, os, &poison);
    cl_mem totals = clscan_test_buffer(gd, (MAX_PIECES + 1) * os, NULL);
    size_t cuts[MAX_PIECES + 1];
    /* (A transform of the index sees a piece's indices from desc.index_base, set to the
     * piece's start below, so it is cut into pieces as the others are.) */
    const int pieces = make_cuts(n, &rng, cuts);
    if (c->desc.segments == CLSCAN_SEGMENTS_KEYS)
        for (int p = 1; p < pieces; ++p) {
            if (cuts[p] < cuts[p - 1]) cuts[p] = cuts[p - 1];
            while (cuts[p] > 0 && cuts[p] < n &&
                   ((const int32_t *)seg)[cuts[p]] != ((const int32_t *)seg)[cuts[p] - 1])
                ++cuts[p];
        }
    unsigned char value[64], total[64];
    for (int p = 0; p < pieces; ++p) {
        const size_t at = cuts[p], len = cuts[p + 1] - cuts[p];
        const clscan_carry carry = piece_carry(p, totals, os, seed, value);
        cl_event ev = NULL;
        clscan_scan_desc d = c->desc;
        d.index_base = at;
        const clscan_status s = clscan_scan_carry(gd->ctx, gd->queue, &d, inclusive, src, at,
                                                  segs, at, dst, DST_OFF + at, len, &carry, 0,
                                                  NULL, &ev);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s piece %d: %s: %s", gd->name, what, p,
                      clscan_status_string(s), clscan_context_last_error(gd->ctx));
        clscan_test_wait_release(ev, what);
        if (cuts[p + 1] == 0) continue;
        read_at(totals, (size_t)(p + 1) * os, os, total);
        ck_assert_msg(!memcmp(total, incl + (cuts[p + 1] - 1) * os, os),
                      "%s: %s: total of piece %d [%zu, %zu) differs", gd->name, what, p, at,
                      cuts[p + 1]);
    }
    read_dst(dst, n, os, poison, got, what);
    size_t bad = first_difference(got, want, n, os);
    ck_assert_msg(bad == n, "%s: %s (%d pieces, cuts %zu %zu %zu ...): first difference at %zu",
                  gd->name, what, pieces, cuts[1], cuts[2 < pieces ? 2 : pieces],
                  cuts[3 < pieces ? 3 : pieces], bad);

    /* Whole, from a host carry-in v (an element of the inclusive result, or the identity):
     * the elements before the first segment start are v op want[i]; a reduce-only call
     * gives the same total. */
    memcpy(value, n ? incl + (n / 2) * os : c->identity, os);
    const size_t h = first_head(c, seg, n, 0);
    unsigned char *expect = malloc(n * os + 1);
    ck_assert_ptr_nonnull(expect);
    for (size_t i = 0; i < n; ++i) {
        if (i < h) c->op(expect + i * os, value, want + i * os);
        else memcpy(expect + i * os, want + i * os, os);
    }
    unsigned char expect_total[64];
    if (n == 0) memcpy(expect_total, value, os);
    else if (h == n) c->op(expect_total, value, incl + (n - 1) * os);
    else memcpy(expect_total, incl + (n - 1) * os, os);
    for (int reduce = 0; reduce < 2; ++reduce) {
        clscan_carry carry = {0};
        carry.in_value = value;
        carry.out_buffer = totals;
        cl_event ev = NULL;
        const clscan_status s = clscan_scan_carry(
            gd->ctx, gd->queue, &c->desc, inclusive, src, 0, segs, 0, reduce ? NULL : dst,
            reduce ? 0 : DST_OFF, n, &carry, 0, NULL, &ev);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s from a host carry-in%s: %s: %s", gd->name,
                      what, reduce ? ", reduce only" : "", clscan_status_string(s),
                      clscan_context_last_error(gd->ctx));
        clscan_test_wait_release(ev, what);
        read_at(totals, 0, os, total);
        ck_assert_msg(!memcmp(total, expect_total, os), "%s: %s: total from a host carry-in%s "
                      "differs", gd->name, what, reduce ? ", reduce only" : "");
    }
    read_dst(dst, n, os, poison, got, what);
    bad = first_difference(got, expect, n, os);
    ck_assert_msg(bad == n, "%s: %s from a host carry-in (first segment start %zu): first "
                  "difference at %zu", gd->name, what, h, bad);
    clReleaseMemObject(src);
    if (segs) clReleaseMemObject(segs);
    clReleaseMemObject(dst);
    clReleaseMemObject(totals);
    free(in);
    free(seg);
    free(want);
    free(incl);
    free(got);
    free(expect);
    free(poison);
}

START_TEST(test_general)
{
    const clscan_verify_gen_case c = clscan_verify_gen_case_get(_i);
    const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261124u), 100u + (uint64_t)_i);
    /* $CLSCAN_TEST_SKIP_CASE: as in test_general.c (a shape Oclgrind 21.10 cannot run). */
    const char *skip = getenv("CLSCAN_TEST_SKIP_CASE");
    if (skip && *skip && atoi(skip) == _i) return;
    /* Quick: the struct cases, flags and keys (a non-commutative struct, plain and keyed;
     * flags; 8-byte values by keys). */
    if (quick() && _i != 1 && _i != 5 && _i != 7 && _i != 8) return;
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        if (!gd->fp64 && c.desc.type == CLSCAN_DOUBLE) continue;
        fprintf(stderr, "%s: case %d: %s\n", gd->name, _i, c.name);
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0] && sizes[z] <= max_size(); ++z)
            for (int inclusive = 0; inclusive < 2; ++inclusive)
                run_general(&c, inclusive, sizes[z], clscan_verify_mix(seed, z * 2 + (size_t)inclusive));
    }
}
END_TEST

/* With keys, a carry-in continues element 0's segment whatever its key; with flags, a set
 * flag at element 0 drops it. int32 add, inclusive, carry-in 100, x = 1, 2, 3. */
START_TEST(test_segment_edges)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        const cl_int x[3] = {1, 2, 3}, key[3] = {5, 5, 7}, hundred = 100;
        const cl_uchar flag_set[3] = {1, 0, 1};
        cl_mem src = clscan_test_buffer(gd, sizeof x, x), dst = clscan_test_buffer(gd, sizeof x, NULL);
        cl_mem keys = clscan_test_buffer(gd, sizeof key, key);
        cl_mem flags = clscan_test_buffer(gd, sizeof flag_set, flag_set);
        clscan_carry carry = {0};
        carry.in_value = &hundred;
        clscan_scan_desc desc = {0};
        desc.type = CLSCAN_INT32;
        desc.op = CLSCAN_OP_ADD;
        desc.segments = CLSCAN_SEGMENTS_KEYS;
        desc.key_type = CLSCAN_INT32;
        cl_int got[3];
        ck_assert_int_eq(clscan_scan_carry(gd->ctx, gd->queue, &desc, 1, src, 0, keys, 0, dst, 0,
                                           3, &carry, 0, NULL, NULL),
                         CLSCAN_SUCCESS);
        read_at(dst, 0, sizeof got, got);
        ck_assert_msg(got[0] == 101 && got[1] == 103 && got[2] == 3,
                      "%s: keys: got %d %d %d, expected 101 103 3", gd->name, got[0], got[1],
                      got[2]);
        desc.segments = CLSCAN_SEGMENTS_FLAGS;
        ck_assert_int_eq(clscan_scan_carry(gd->ctx, gd->queue, &desc, 0, src, 0, flags, 0, dst, 0,
                                           3, &carry, 0, NULL, NULL),
                         CLSCAN_SUCCESS);
        read_at(dst, 0, sizeof got, got);
        ck_assert_msg(got[0] == 0 && got[1] == 1 && got[2] == 0,
                      "%s: flags, exclusive: got %d %d %d, expected 0 1 0", gd->name, got[0],
                      got[1], got[2]);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(keys);
        clReleaseMemObject(flags);
    }
}
END_TEST

/* ------------------------------------------------------------------ parts ---- */

/* The devices the parts run on: PoCL's sub-devices (at most 4) where the device can be
 * partitioned and $CLSCAN_TEST_SUBDEVICES is 1, else the device twice. Fills out and returns the count; *subs says
 * whether they are sub-devices (released by the caller). */
static cl_uint part_devices(cl_device_id dev, cl_device_id *out, int *subs)
{
    cl_uint cus = 0, count = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                  cus >= 2 ? cus / 2 : 1, 0};
    *subs = 0;
    /* (Only where the device lists equal partitions: rusticl's dispatch table has no
     * clCreateSubDevices, and calling it through ocl-icd jumps to address 0.) */
    cl_device_partition_property kinds[8] = {0};
    size_t kinds_bytes = 0;
    int equally = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_PARTITION_PROPERTIES, sizeof kinds, kinds, &kinds_bytes) ==
        CL_SUCCESS)
        for (size_t k = 0; k < kinds_bytes / sizeof kinds[0]; ++k)
            equally |= kinds[k] == CL_DEVICE_PARTITION_EQUALLY;
    /* Sub-devices only with $CLSCAN_TEST_SUBDEVICES=1: on PoCL 3.1 about one run in
     * four under load crashes in PoCL's worker threads (POclReleaseEvent) after the
     * parts' results were checked (docs/IMPLEMENTATION-ISSUES.md). */
    const char *subs_wanted = getenv("CLSCAN_TEST_SUBDEVICES");
    if (!subs_wanted || *subs_wanted != '1') equally = 0;
    if (equally && cus >= 2 && clCreateSubDevices(dev, props, 0, NULL, &count) == CL_SUCCESS &&
        count >= 2 && count <= 4 && clCreateSubDevices(dev, props, count, out, NULL) == CL_SUCCESS) {
        *subs = 1;
        return count;
    }
    out[0] = out[1] = dev;
    return 2;
}

/* One range of n elements (type, op) in parts over the devices, against the reference. */
static void run_parts(cl_context cl_ctx, clscan_context **ctxs, cl_command_queue *queues,
                      cl_uint ndev, const clscan_scan_desc *desc, int inclusive, size_t n,
                      uint64_t seed)
{
    const clscan_type type = desc->type;
    const size_t es = clscan_type_size(type);
    char msg[512], what[160];
    snprintf(what, sizeof what, "parts over %u devices: %s %s %s n=%zu seed=%llu", ndev,
             clscan_type_name(type), clscan_op_name(desc->op),
             inclusive ? "inclusive" : "exclusive", n, (unsigned long long)seed);
    unsigned char *in = malloc(n * es + 1), *got = malloc(n * es + 1);
    ck_assert(in && got);
    clscan_verify_fill(in, n, type, desc->op, seed);
    clscan_verify_ref *ref = clscan_verify_reference(type, desc->op, inclusive, in, n);
    clscan_verify_ref *incl = clscan_verify_reference(type, desc->op, 1, in, n);
    ck_assert(ref && incl);
    clscan_verify_rng rng = {seed ^ 0x9a27u};
    size_t cuts[MAX_PIECES + 1];
    const int nparts = make_cuts(n, &rng, cuts);
    clscan_part parts[MAX_PIECES];
    cl_mem src[MAX_PIECES], dst[MAX_PIECES];
    cl_int err;
    for (int p = 0; p < nparts; ++p) {
        const size_t len = cuts[p + 1] - cuts[p];
        /* Each part in its own buffers, at an offset of 1. */
        src[p] = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, (len + 1) * es, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        dst[p] = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, (len + 1) * es, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_command_queue q = queues[p % ndev];
        /* The whole buffer is written, element 0 (before the part) with a value of its
         * own, which no result may show: Oclgrind 21.10 takes bytes written at a nonzero
         * offset for uninitialised (docs/reproducers/oclgrind_offset_write_uninit.c). */
        unsigned char *stage = malloc((len + 1) * es);
        ck_assert(stage);
        memset(stage, 0x5a, es);
        memcpy(stage + es, in + cuts[p] * es, len * es);
        ck_assert_int_eq(clEnqueueWriteBuffer(q, src[p], CL_TRUE, 0, (len + 1) * es, stage, 0,
                                              NULL, NULL),
                         CL_SUCCESS);
        free(stage);
        clscan_part part = {ctxs[p % ndev], q, src[p], 1, NULL, 0, dst[p], 1, len};
        parts[p] = part;
    }
    cl_mem total = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, 2 * es, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clscan_carry carry = {0};
    carry.out_buffer = total;
    carry.out_offset = 1;
    cl_event events[MAX_PIECES];
    const clscan_status s =
        clscan_scan_parts(desc, inclusive, parts, (size_t)nparts, &carry, 0, NULL, events);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s: %s", gd->name, what, clscan_status_string(s),
                  clscan_context_last_error(NULL));
    for (int p = 0; p < nparts; ++p) {
        clscan_test_wait_release(events[p], what);
        const size_t len = cuts[p + 1] - cuts[p];
        if (len)
            ck_assert_int_eq(clEnqueueReadBuffer(queues[p % ndev], dst[p], CL_TRUE, es, len * es,
                                                 got + cuts[p] * es, 0, NULL, NULL),
                             CL_SUCCESS);
        clReleaseMemObject(src[p]);
        clReleaseMemObject(dst[p]);
    }
    ck_assert_msg(clscan_verify_compare(ref, got, msg, sizeof msg), "%s: %s (%d parts): %s",
                  gd->name, what, nparts, msg);
    if (n) {
        unsigned char t[8];
        ck_assert_int_eq(clEnqueueReadBuffer(queues[0], total, CL_TRUE, es, es, t, 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert_msg(clscan_verify_compare_range(incl, n - 1, 1, t, msg, sizeof msg),
                      "%s: %s: total: %s", gd->name, what, msg);
    }
    clReleaseMemObject(total);
    clscan_verify_ref_free(ref);
    clscan_verify_ref_free(incl);
    free(in);
    free(got);
}

START_TEST(test_parts)
{
    const uint64_t seed = clscan_verify_mix(clscan_test_seed(20261124u), 777u);
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        cl_device_id devs[4];
        int subs = 0;
        const cl_uint ndev = part_devices(gd->dev, devs, &subs);
        const cl_uint unique = subs ? ndev : 1;
        cl_int err;
        cl_context cl_ctx = clCreateContext(NULL, unique, devs, NULL, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        clscan_context *ctxs[4];
        cl_command_queue queues[4];
        for (cl_uint i = 0; i < ndev; ++i) {
            if (i < unique) {
                const clscan_status s = clscan_context_create(cl_ctx, devs[i], &ctxs[i]);
                ck_assert_msg(s == CLSCAN_SUCCESS, "%s: clscan_context_create on part device %u: "
                              "%s: %s", gd->name, i, clscan_status_string(s),
                              clscan_context_last_error(NULL));
            } else
                ctxs[i] = ctxs[0];
            queues[i] = clCreateCommandQueue(cl_ctx, devs[i], 0, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
        }
        fprintf(stderr, "%s: parts over %u %s\n", gd->name, ndev,
                subs ? "sub-devices" : "uses of the device");
        static const clscan_type types[] = {CLSCAN_INT32, CLSCAN_INT64, CLSCAN_FLOAT};
        static const clscan_op ops[] = {CLSCAN_OP_ADD, CLSCAN_OP_MAX, CLSCAN_OP_ADD};
        /* $CLSCAN_TEST_PARTS_TYPE: only the parts of that type (with one size: one
         * scan a process, as CI runs them under Oclgrind). */
        const char *only = getenv("CLSCAN_TEST_PARTS_TYPE");
        int runs = 0;
        for (size_t k = 0; k < 3; ++k)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0] && sizes[z] <= max_size(); ++z) {
                if (sizes[z] < min_size()) continue;
                if (only && *only && strcmp(only, clscan_type_name(types[k])) != 0) continue;
                ++runs;
                clscan_scan_desc desc = {0};
                desc.type = types[k];
                desc.op = ops[k];
                run_parts(cl_ctx, ctxs, queues, ndev, &desc, (int)((k + z) % 2), sizes[z],
                          clscan_verify_mix(seed, k * 100 + z));
            }
        ck_assert_msg(runs > 0, "%s: no parts ran: CLSCAN_TEST_PARTS_TYPE or the size limits "
                      "leave none", gd->name);
        for (cl_uint i = 0; i < ndev; ++i) {
            clReleaseCommandQueue(queues[i]);
            if (i < unique) clscan_context_release(ctxs[i]);
            if (subs) clReleaseDevice(devs[i]);
        }
        clReleaseContext(cl_ctx);
    }
}
END_TEST

/* ---------------------------------------------------------------- errors ---- */

/* Checks that a failed call returned `want` with `text` in its message. */
static void expect_error(clscan_status got, clscan_status want, const char *text, const char *what)
{
    const char *m = clscan_context_last_error(gd->ctx);
    ck_assert_msg(got == want, "%s: %s: got %s, expected %s (%s)", gd->name, what,
                  clscan_status_string(got), clscan_status_string(want), m);
    ck_assert_msg(strstr(m, text) != NULL, "%s: %s: message \"%s\" lacks \"%s\"", gd->name,
                  what, m, text);
}

START_TEST(test_invalid)
{
    for (int d = 0; d < clscan_test_ndevs; ++d) {
        gd = &clscan_test_devs[d];
        cl_mem src = clscan_test_buffer(gd, 64 * 4, NULL), dst = clscan_test_buffer(gd, 64 * 4, NULL);
        cl_mem small = clscan_test_buffer(gd, 4, NULL);
        const cl_int v = 1;
        clscan_carry c = {0};
        c.in_value = &v;
        c.in_buffer = small;
        expect_error(clscan_exclusive_scan_carry(gd->ctx, gd->queue, src, 0, dst, 0, 64,
                                                 CLSCAN_INT32, CLSCAN_OP_ADD, &c, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "carry->in_value and carry->in_buffer are both given", "both carry-ins");
        memset(&c, 0, sizeof c);
        c.in_buffer = small;
        c.in_offset = 1;
        expect_error(clscan_exclusive_scan_carry(gd->ctx, gd->queue, src, 0, dst, 0, 64,
                                                 CLSCAN_INT32, CLSCAN_OP_ADD, &c, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT, "carry->in_buffer: elements [1, 2)",
                     "in_offset past the end");
        memset(&c, 0, sizeof c);
        c.out_buffer = dst;
        c.out_offset = 63;
        expect_error(clscan_inclusive_scan_carry(gd->ctx, gd->queue, src, 0, dst, 0, 64,
                                                 CLSCAN_INT32, CLSCAN_OP_ADD, &c, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT, "carry->out_buffer's element",
                     "total inside dst");
        c.out_buffer = src;
        c.out_offset = 10;
        expect_error(clscan_inclusive_scan_carry(gd->ctx, gd->queue, src, 0, NULL, 0, 64,
                                                 CLSCAN_INT32, CLSCAN_OP_ADD, &c, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT, "and src (bytes [0, 256)) overlap",
                     "total inside src");
        c.out_buffer = small;
        c.out_offset = 0;
        c.in_buffer = small;
        expect_error(clscan_inclusive_scan_carry(gd->ctx, gd->queue, src, 0, dst, 0, 64,
                                                 CLSCAN_INT32, CLSCAN_OP_ADD, &c, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT, "carry->in_buffer's element",
                     "total on the carry-in");
        expect_error(clscan_inclusive_scan_carry(gd->ctx, gd->queue, src, 0, NULL, 0, 64,
                                                 CLSCAN_INT32, CLSCAN_OP_ADD, NULL, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT, "dst is NULL", "dst NULL without a total");
        memset(&c, 0, sizeof c);
        c.out_buffer = small;
        expect_error(clscan_inclusive_scan_carry(gd->ctx, gd->queue, src, 0, NULL, 3, 64,
                                                 CLSCAN_INT32, CLSCAN_OP_ADD, &c, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT, "dst_offset is 3", "dst NULL with an offset");
        clscan_scan_desc desc = {0};
        desc.type = CLSCAN_INT32;
        desc.combine = "a + b";
        desc.identity = "0";
        expect_error(clscan_scan_carry(gd->ctx, gd->queue, &desc, 1, src, 0, NULL, 0, NULL, 0, 64,
                                       NULL, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT, "dst is NULL", "general: dst NULL");
        clscan_part part = {gd->ctx, gd->queue, src, 0, NULL, 0, dst, 0, 64};
        ck_assert_int_eq(clscan_scan_parts(&desc, 1, &part, 0, NULL, 0, NULL, NULL),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_int_eq(clscan_scan_parts(&desc, 1, NULL, 1, NULL, 0, NULL, NULL),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
        desc.segments = CLSCAN_SEGMENTS_KEYS;
        desc.key_type = CLSCAN_INT32;
        part.segments = small;
        ck_assert_int_eq(clscan_scan_parts(&desc, 1, &part, 1, NULL, 0, NULL, NULL),
                         CLSCAN_ERROR_UNSUPPORTED);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(small);
    }
}
END_TEST

static Suite *carry_suite(void)
{
    Suite *s = suite_create("carry");
    TCase *dev = tcase_create("devices");
    tcase_add_checked_fixture(dev, clscan_test_setup, clscan_test_teardown);
    tcase_add_loop_test(dev, test_builtin, 0, CLSCAN_TYPE_COUNT * CLSCAN_OP_COUNT);
    tcase_add_loop_test(dev, test_general, 0, CLSCAN_VERIFY_GEN_CASES);
    tcase_add_test(dev, test_segment_edges);
    tcase_add_test(dev, test_invalid);
    suite_add_tcase(s, dev);
    /* (A case of its own: CK_RUN_CASE=parts runs the parts alone, in a fresh process.) */
    TCase *parts = tcase_create("parts");
    tcase_add_checked_fixture(parts, clscan_test_setup, clscan_test_teardown);
    tcase_add_test(parts, test_parts);
    suite_add_tcase(s, parts);
    return s;
}

int main(void) { return clscan_test_run(carry_suite()); }
