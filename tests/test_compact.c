/* test_compact.c - Check suite for clscan_compact: selects and partitions (stable, and in
 * reverse as clscan_partition_if) of float4 elements, of a 12-byte struct of the user's,
 * and of int and ulong elements (which the select kernels take but for stable
 * partitions), by predicates over x and i, against a host reference on random inputs
 * (seed printed) at edge sizes, with guard bands around dst; and the argument errors. */
/* SPDX-License-Identifier: MIT */
#include "test_devices.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { cl_int key; cl_float v; cl_int tag; } rec; /* 12 bytes */

static const size_t sizes[] = {0, 1, 2, 63, 257, 1000, 4097, 65537};

static size_t max_size(void)
{
    const char *t = getenv("CLSCAN_TEST_MAX_SIZE");
    return t && *t ? (size_t)strtoull(t, NULL, 0) : SIZE_MAX;
}

/* The element kinds: kind 0 float4, 1 rec, 2 int, 3 ulong. */
enum { KINDS = 4 };
static const size_t kind_size[KINDS] = {sizeof(cl_float4), sizeof(rec), sizeof(cl_int),
                                        sizeof(cl_ulong)};

/* The host's keep decision for element x (at index i) of each kind. */
static int keep(int kind, const unsigned char *x, size_t i)
{
    cl_float4 f;
    rec r;
    cl_int v;
    cl_ulong u;
    switch (kind) {
    case 0: memcpy(&f, x, sizeof f); return f.s[3] > 0.0f;
    case 1: memcpy(&r, x, sizeof r); return (r.key & 3) == 1 || i % 17 == 0;
    case 2: memcpy(&v, x, sizeof v); return (v & 3) == 1 || i % 17 == 0;
    default: memcpy(&u, x, sizeof u); return u % 5 < 2;
    }
}

/* One call: kind as above; mode 0 select, 1 partition in reverse, 2 stable. */
static void run(clscan_test_dev *d, int kind, int mode, size_t n, uint64_t seed)
{
    const size_t e = kind_size[kind], off = 3, guard = 5;
    unsigned char *in = malloc(n * e + 1), *want = malloc((off + n + guard) * e);
    unsigned char *got = malloc((off + n + guard) * e);
    ck_assert(in && want && got);
    clscan_verify_rng rng = {seed};
    for (size_t i = 0; i < n; i++) {
        if (kind == 1) {
            rec r = {(cl_int)(clscan_verify_rng_next(&rng) % 1000), (float)i, (cl_int)i};
            memcpy(in + i * e, &r, e);
        } else if (kind == 0) {
            cl_float4 f;
            for (int k = 0; k < 4; k++)
                f.s[k] = (float)((int)(clscan_verify_rng_next(&rng) % 200) - 100);
            memcpy(in + i * e, &f, e);
        } else {
            const uint64_t r = clscan_verify_rng_next(&rng);
            memcpy(in + i * e, &r, e); /* (int: r's first 4 bytes) */
        }
    }
    memset(want, 0x6b, (off + n + guard) * e);
    size_t kept = 0, rejected = 0;
    for (size_t i = 0; i < n; i++)
        if (keep(kind, in + i * e, i)) memcpy(want + (off + kept++) * e, in + i * e, e);
    for (size_t i = 0; mode && i < n; i++) {
        if (keep(kind, in + i * e, i)) continue;
        const size_t at = mode == 2 ? kept + rejected : n - 1 - rejected;
        memcpy(want + (off + at) * e, in + i * e, e);
        rejected++;
    }
    cl_mem src = clscan_test_buffer(d, n * e + 1, in);
    cl_mem dst = clscan_test_buffer(d, (off + n + guard) * e, NULL);
    unsigned char *poison = malloc((off + n + guard) * e);
    memset(poison, 0x6b, (off + n + guard) * e);
    ck_assert_int_eq(clEnqueueWriteBuffer(d->queue, dst, CL_TRUE, 0, (off + n + guard) * e,
                                          poison, 0, NULL, NULL), CL_SUCCESS);
    const cl_ulong nine = 9;
    cl_mem count = clscan_test_buffer(d, 8, &nine);
    clscan_compact_desc c = {0};
    static const char *const names[KINDS] = {"float4", "rec", "int", "ulong"};
    static const char *const predicates[KINDS] = {"x.w > 0.0f", "(x.key & 3) == 1 || i % 17 == 0",
                                                  "(x & 3) == 1 || i % 17 == 0", "x % 5 < 2"};
    c.type_name = names[kind];
    c.type_size = e;
    c.source = kind == 1 ? "typedef struct { int key; float v; int tag; } rec;" : NULL;
    c.predicate = predicates[kind];
    c.partition = mode != 0;
    c.stable = mode == 2;
    cl_event ev = NULL;
    const clscan_status s = clscan_compact(d->ctx, d->queue, &c, src, 0, dst, off, count, n, 0,
                                           NULL, &ev);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: clscan_compact: %s: %s", d->name,
                  clscan_status_string(s), clscan_context_last_error(d->ctx));
    clscan_test_wait_release(ev, "clscan_compact");
    cl_ulong m = 0;
    clscan_test_read(d, count, 8, &m);
    clscan_test_read(d, dst, (off + n + guard) * e, got);
    ck_assert_msg(m == kept, "%s: kind %d mode %d n %zu: count %llu, expected %zu", d->name, kind,
                  mode, n, (unsigned long long)m, kept);
    for (size_t b = 0; b < (off + n + guard) * e; b++)
        ck_assert_msg(got[b] == want[b], "%s: kind %d mode %d n %zu: dst byte %zu (element %zu "
                      "from dst_offset %zu) differs", d->name, kind, mode, n, b, b / e, off);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseMemObject(count);
    free(in);
    free(want);
    free(got);
    free(poison);
}

START_TEST(test_matrix)
{
    const uint64_t seed = clscan_test_seed(20261126u);
    for (int di = 0; di < clscan_test_ndevs; di++)
        for (int kind = 0; kind < KINDS; kind++)
            for (int mode = 0; mode < 3; mode++)
                for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z] <= max_size(); z++)
                    run(&clscan_test_devs[di], kind, mode, sizes[z],
                        clscan_verify_mix(seed, (uint64_t)(kind * 3 + mode) << 32 | sizes[z]));
}
END_TEST

START_TEST(test_errors)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned char init[256];
        memset(init, 0x19, sizeof init);
        cl_mem a = clscan_test_buffer(d, 256, init), b = clscan_test_buffer(d, 256, init);
        cl_mem c = clscan_test_buffer(d, 256, init);
        const clscan_compact_desc ok = {"float4", 16, NULL, "x.w > 0.0f", 1, 0};
        /* (Library types: what the select kernels refuse, and what stays general.) */
        const clscan_compact_desc lib = {"int", 4, NULL, "x > 0", 0, 0};
        enum { BAD = 10 };
        clscan_compact_desc bad[BAD] = {ok, ok, ok, ok, ok, ok, lib, lib, lib, lib};
        bad[0].type_name = NULL;
        bad[1].predicate = NULL;
        bad[2].type_size = 0;
        bad[3].partition = 0, bad[3].stable = 1;
        bad[4].predicate = "x.w > no_such_thing";
        bad[5].type_size = 12; /* (float4 is 16 bytes on the device) */
        /* (Which program the log shows: the select kernels', or the general scan's.) */
        bad[6].predicate = "x > no_such_thing";
        bad[7].partition = 1, bad[7].predicate = "x > no_such_thing";
        bad[8].type_size = 8; /* (int is 4 bytes) */
        bad[9].predicate = " \n "; /* (blank: the general path, which cannot compile it) */
        const char *words[BAD] = {"desc->type_name is NULL", "desc->predicate is NULL",
                                  "desc->type_size is 0", "desc->stable is set without",
                                  "no_such_thing", "sizeof", "select-if of int32",
                                  "partition-if of int32",
                                  "desc->type_size 8 is not the size of int (4 bytes)",
                                  "general scan of"};
        const clscan_status want[BAD] = {
            CLSCAN_ERROR_INVALID_ARGUMENT, CLSCAN_ERROR_INVALID_ARGUMENT,
            CLSCAN_ERROR_INVALID_ARGUMENT, CLSCAN_ERROR_INVALID_ARGUMENT,
            CLSCAN_ERROR_BUILD_FAILED,     CLSCAN_ERROR_BUILD_FAILED,
            CLSCAN_ERROR_BUILD_FAILED,     CLSCAN_ERROR_BUILD_FAILED,
            CLSCAN_ERROR_INVALID_ARGUMENT, CLSCAN_ERROR_BUILD_FAILED};
        for (int k = 0; k < BAD; k++) {
            unsigned char before[256];
            clscan_test_read(d, b, sizeof before, before);
            cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
            const clscan_status s = clscan_compact(d->ctx, d->queue, &bad[k], a, 0, b, 0, c, 8, 0,
                                                   NULL, &ev);
            clscan_test_refused(d, "compact", s, want[k], words[k], ev, sentinel, b, before,
                                sizeof before);
        }
        unsigned char before[256];
        clscan_test_read(d, b, sizeof before, before);
        cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
        clscan_status s = clscan_compact(d->ctx, d->queue, NULL, a, 0, b, 0, c, 8, 0, NULL, &ev);
        clscan_test_refused(d, "compact", s, CLSCAN_ERROR_INVALID_ARGUMENT, "desc is NULL", ev,
                            sentinel, b, before, sizeof before);
        s = clscan_compact(d->ctx, d->queue, &ok, a, 0, a, 4, c, 8, 0, NULL, &ev);
        clscan_test_refused(d, "compact", s, CLSCAN_ERROR_INVALID_ARGUMENT, "overlap", ev,
                            sentinel, b, before, sizeof before);
        s = clscan_compact(d->ctx, d->queue, &ok, a, 0, b, 10, c, 8, 0, NULL, &ev);
        clscan_test_refused(d, "compact", s, CLSCAN_ERROR_INVALID_ARGUMENT,
                            "dst: elements [10, 18)", ev, sentinel, b, before, sizeof before);
        clReleaseMemObject(a);
        clReleaseMemObject(b);
        clReleaseMemObject(c);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compact");
    TCase *tc = tcase_create("devices");
    tcase_add_checked_fixture(tc, clscan_test_setup, clscan_test_teardown);
    tcase_add_test(tc, test_matrix);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return clscan_test_run(s);
}
