/* test_sort.c - Check suite for the radix sort (clscan_sort_keys, clscan_sort_pairs):
 * the host reference and key order on hand-made inputs, then on each platform's first
 * device every key type x pattern x size x layout against the reference (keys, and pairs
 * with 4- and 8-byte values), 2^20 int32 keys, hand-made floats (-0.0, infinities,
 * NaNs) and stability, exact error statuses and messages with nothing enqueued, n == 0,
 * the largest allocation, and a sort chained after a scan on one queue. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_devices.h"
#include "verify.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The devices under test, their fixture, the seed (20261125 unless $CLSCAN_TEST_SEED
 * says otherwise), buffers, reads and event waits (clscan_test_wait_release: every wait
 * here is the event's last use): test_devices.h. */

/* ------------------------------------------------------------ reference ----- */

/* The order the header promises, on hand-made keys, and the reference's stability. */
/* Fills buf with c's keys (es bytes each) in the given pattern; *any and *all: their OR
 * and their AND. */
static void pattern_bits(clscan_verify_sort_case *c, int pattern, void *buf, size_t es,
                         uint64_t *any, uint64_t *all)
{
    c->pattern = pattern;
    clscan_verify_sort_fill(c, buf);
    *any = 0;
    *all = ~(uint64_t)0;
    for (size_t i = 0; i < c->n; i++) {
        uint64_t v = 0;
        memcpy(&v, (char *)buf + i * es, es);
        *any |= v;
        *all &= v;
    }
    if (es == 4) *all &= 0xffffffffu;
}

START_TEST(test_reference)
{
    /* Floats: -NaN < -INFINITY < -1 < -denormal < -0.0 < +0.0 < denormal < 1 < INFINITY
     * < NaN. */
    const uint32_t fl[10] = {0xffc00000u, 0xff800000u, 0xbf800000u, 0x80000001u, 0x80000000u,
                             0x00000000u, 0x00000001u, 0x3f800000u, 0x7f800000u, 0x7fc00000u};
    for (int i = 0; i + 1 < 10; i++)
        ck_assert_msg(clscan_verify_sort_ordered(fl[i], CLSCAN_FLOAT) <
                          clscan_verify_sort_ordered(fl[i + 1], CLSCAN_FLOAT),
                      "float order at %d", i);
    const uint64_t db[6] = {0xfff8000000000000u, 0xfff0000000000000u, 0x8000000000000000u,
                            0, 0x7ff0000000000000u, 0x7ff8000000000001u};
    for (int i = 0; i + 1 < 6; i++)
        ck_assert(clscan_verify_sort_ordered(db[i], CLSCAN_DOUBLE) <
                  clscan_verify_sort_ordered(db[i + 1], CLSCAN_DOUBLE));
    ck_assert(clscan_verify_sort_ordered(0x80000000u, CLSCAN_INT32) <
              clscan_verify_sort_ordered(0xffffffffu, CLSCAN_INT32));
    ck_assert(clscan_verify_sort_ordered(0xffffffffu, CLSCAN_INT32) <
              clscan_verify_sort_ordered(0, CLSCAN_INT32));
    ck_assert(clscan_verify_sort_ordered(0x7fffffffu, CLSCAN_UINT32) <
              clscan_verify_sort_ordered(0x80000000u, CLSCAN_UINT32));
    ck_assert(clscan_verify_sort_ordered(0x8000000000000000u, CLSCAN_INT64) <
              clscan_verify_sort_ordered(0, CLSCAN_INT64));
    /* Stable: equal keys keep their order. */
    const cl_int keys[7] = {3, -1, 3, -1, 2, INT32_MIN, 3};
    const size_t want[7] = {5, 1, 3, 4, 0, 2, 6};
    size_t perm[7];
    ck_assert_int_eq(clscan_verify_sort_reference(CLSCAN_INT32, keys, 7, perm), 0);
    for (int i = 0; i < 7; i++) ck_assert_uint_eq(perm[i], want[i]);
    /* The patterns are what they say. */
    enum { N = 20000 };
    uint64_t *buf = malloc(N * 8);
    size_t *p = malloc(N * sizeof *p);
    ck_assert(buf && p);
    for (clscan_type t = CLSCAN_INT32; t <= CLSCAN_DOUBLE; t++) {
        const size_t es = clscan_type_size(t);
        clscan_verify_sort_case c = {CLSCAN_VERIFY_SORT_KEYS, t, CLSCAN_UINT32,
                                     CLSCAN_VERIFY_KEYS_FEW, N, 0, 0, 0, 0, 0, 7};
        clscan_verify_sort_fill(&c, buf);
        ck_assert_int_eq(clscan_verify_sort_reference(t, buf, N, p), 0);
        size_t runs = 1;
        for (size_t i = 1; i < N; i++)
            runs += memcmp((char *)buf + p[i] * es, (char *)buf + p[i - 1] * es, es) != 0;
        ck_assert_msg(runs <= 16 && runs >= 8, "%s few: %zu distinct", clscan_type_name(t), runs);
        c.pattern = CLSCAN_VERIFY_KEYS_DESCENDING;
        clscan_verify_sort_fill(&c, buf);
        ck_assert_int_eq(clscan_verify_sort_reference(t, buf, N, p), 0);
        for (size_t i = 0; i < N; i++) ck_assert_uint_eq(p[i], N - 1 - i);
        /* Narrow: below 2^24, and the third byte varies. Skewed: 15 in 16 keys equal. */
        uint64_t any, all;
        pattern_bits(&c, CLSCAN_VERIFY_KEYS_NARROW, buf, es, &any, &all);
        ck_assert_uint_eq(any >> 16, 0xff);
        c.pattern = CLSCAN_VERIFY_KEYS_SKEWED;
        clscan_verify_sort_fill(&c, buf);
        size_t same = 0;
        for (size_t i = 0; i < N; i++) same += memcmp((char *)buf + i * es, buf, es) == 0;
        ck_assert_msg(same > N * 9 / 10 && same < N, "%s skewed: %zu of %d equal",
                      clscan_type_name(t), same, N);
        /* Gapped: the second byte is 0x5a throughout, the first and third vary. */
        pattern_bits(&c, CLSCAN_VERIFY_KEYS_GAPPED, buf, es, &any, &all);
        ck_assert_uint_eq((any >> 8) & 0xff, 0x5a);
        ck_assert_uint_eq((all >> 8) & 0xff, 0x5a);
        ck_assert_uint_eq((any ^ all) & 0xff00ff, 0xff00ff);
        /* Low: below 2^20 (8-byte keys: 2^29), whose highest bit varies. */
        pattern_bits(&c, CLSCAN_VERIFY_KEYS_LOW, buf, es, &any, &all);
        ck_assert_uint_eq(any >> (es == 4 ? 19 : 28), 1);
        if (t == CLSCAN_FLOAT) {
            c.pattern = CLSCAN_VERIFY_KEYS_SPECIAL;
            clscan_verify_sort_fill(&c, buf);
            const float *f = (const float *)buf;
            size_t nans = 0, negzero = 0, inf = 0, denorm = 0;
            for (size_t i = 0; i < N; i++) {
                nans += isnan(f[i]) != 0;
                negzero += f[i] == 0 && signbit(f[i]);
                inf += isinf(f[i]) != 0;
                denorm += fpclassify(f[i]) == FP_SUBNORMAL;
            }
            ck_assert_msg(nans > 100 && negzero > 100 && inf > 100 && denorm > 100,
                          "float specials: %zu NaNs, %zu -0.0, %zu infinities, %zu denormals",
                          nans, negzero, inf, denorm);
        }
    }
    free(buf);
    free(p);
}
END_TEST

/* ------------------------------------------------------------ the matrix ---- */

/* Sizes: 0 to 3, the edges of the tiles the meson tests use (1024 with one work-item on
 * CPUs, 256 with 64 x 4, 64 with 16 x 4), no powers of two, and many tiles; those
 * flagged also run at offsets and in place. Every pattern up to 10007; above, one each in
 * turn. */
static const clscan_verify_size clscan_sort_sizes[] = {
    {0, 1},    {1, 1},    {2, 0},    {3, 1},    {17, 0},    {63, 0},   {64, 0},   {65, 1},
    {255, 0},  {256, 0},  {257, 1},  {1023, 0}, {1024, 0},  {1025, 1}, {2047, 0}, {2049, 0},
    {4095, 0}, {4096, 0}, {4097, 1}, {8193, 0}, {10007, 1}, {65537, 0}, {100003, 1}};

/* Loop test over the key types: keys alone and pairs (value types in turn, so 4- and
 * 8-byte values both run at every size), every pattern, size and layout. */
START_TEST(test_matrix)
{
    const clscan_type type = (clscan_type)_i;
    if (!clscan_test_type_wanted(type, "sort")) return;
    const uint64_t seed = clscan_test_seed(20261125u);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_test_tally tally = {0};
        unsigned turn = 0;
        char msg[1024];
        for (int kind = 0; kind < CLSCAN_VERIFY_SORT_KIND_COUNT; kind++) {
            for (size_t s = 0; s < sizeof clscan_sort_sizes / sizeof *clscan_sort_sizes; s++) {
                const size_t n = clscan_sort_sizes[s].n;
                const int layouts = clscan_sort_sizes[s].all_layouts ? CLSCAN_VERIFY_LAYOUT_COUNT
                                                                     : 1;
                for (int l = 0; l < layouts; l++) {
                    for (int k = 0; k < CLSCAN_VERIFY_KEYS_COUNT; k++) {
                        const int pattern = n <= 10007 ? k : (int)(turn % CLSCAN_VERIFY_KEYS_COUNT);
                        if (n > 10007 && k > 0) break;
                        const clscan_type vt = (clscan_type)(turn++ % CLSCAN_TYPE_COUNT);
                        clscan_verify_sort_case c = {(clscan_verify_sort_kind)kind, type, vt,
                                                     pattern, n, 0, 0, 0, 0, 0, 0};
                        clscan_verify_sort_layout(&c, l);
                        c.seed = clscan_verify_mix(seed, n << 16 ^ (uint64_t)(kind << 12 |
                                                                              pattern << 4 | l));
                        clscan_verify_result r =
                            clscan_verify_run_sort(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg);
                        if (r == CLSCAN_VERIFY_PASS) {
                            tally.pass++;
                        } else if (r == CLSCAN_VERIFY_SKIP) {
                            tally.skip++;
                        } else {
                            char line[1500];
                            snprintf(line, sizeof line,
                                     "%s %s values %s keys %s n=%zu layout %d (seed %" PRIu64
                                     "): %s",
                                     clscan_verify_sort_kind_name(c.kind), clscan_type_name(type),
                                     kind ? clscan_type_name(vt) : "-",
                                     clscan_verify_keys_name(pattern), n, l, seed, msg);
                            clscan_test_tally_fail(&tally, d, line);
                        }
                    }
                }
            }
        }
        clscan_test_tally_check(&tally, d, "sort", type);
    }
}
END_TEST

/* 2^20 + 3 keys: int32 random, few distinct and special, alone and with 4- and 8-byte
 * values; narrow (the buckets' passes ending in the temporary, copied to the output),
 * skewed (one bucket too large: the passes over the whole range), gapped (a byte the
 * buckets skip, which changes where their passes end) and low (buckets by bits 12 to
 * 19, then one pass of 12 bits; 64-bit keys: by bits 21 to 28, then two of 11) keys of
 * 32 and 64 bits, in place and not. */
START_TEST(test_large)
{
    const uint64_t seed = clscan_test_seed(20261125u);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        const struct {
            clscan_verify_sort_kind kind;
            clscan_type kt, vt;
            int pattern, layout;
        } cases[] = {
            {CLSCAN_VERIFY_SORT_KEYS, CLSCAN_INT32, CLSCAN_UINT32, CLSCAN_VERIFY_KEYS_RANDOM, 0},
            {CLSCAN_VERIFY_SORT_PAIRS, CLSCAN_INT32, CLSCAN_INT32, CLSCAN_VERIFY_KEYS_FEW, 1},
            {CLSCAN_VERIFY_SORT_PAIRS, CLSCAN_INT32, CLSCAN_UINT64, CLSCAN_VERIFY_KEYS_SPECIAL, 2},
            {CLSCAN_VERIFY_SORT_KEYS, CLSCAN_FLOAT, CLSCAN_UINT32, CLSCAN_VERIFY_KEYS_NARROW, 2},
            {CLSCAN_VERIFY_SORT_PAIRS, CLSCAN_INT64, CLSCAN_UINT32, CLSCAN_VERIFY_KEYS_NARROW, 0},
            {CLSCAN_VERIFY_SORT_PAIRS, CLSCAN_UINT32, CLSCAN_UINT64, CLSCAN_VERIFY_KEYS_SKEWED, 2},
            {CLSCAN_VERIFY_SORT_KEYS, CLSCAN_UINT64, CLSCAN_UINT32, CLSCAN_VERIFY_KEYS_SKEWED, 0},
            {CLSCAN_VERIFY_SORT_KEYS, CLSCAN_UINT32, CLSCAN_UINT32, CLSCAN_VERIFY_KEYS_GAPPED, 2},
            {CLSCAN_VERIFY_SORT_PAIRS, CLSCAN_INT64, CLSCAN_UINT32, CLSCAN_VERIFY_KEYS_GAPPED, 1},
            {CLSCAN_VERIFY_SORT_PAIRS, CLSCAN_UINT32, CLSCAN_UINT32, CLSCAN_VERIFY_KEYS_LOW, 2},
            {CLSCAN_VERIFY_SORT_KEYS, CLSCAN_INT64, CLSCAN_UINT32, CLSCAN_VERIFY_KEYS_LOW, 0}};
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            char msg[1024];
            clscan_verify_sort_case c = {cases[k].kind, cases[k].kt, cases[k].vt,
                                         cases[k].pattern, ((size_t)1 << 20) + 3, 0, 0, 0, 0,
                                         0, clscan_verify_mix(seed, k)};
            clscan_verify_sort_layout(&c, cases[k].layout);
            clscan_verify_result r =
                clscan_verify_run_sort(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg);
            fprintf(stderr, "%s: %s %s values %s keys %s n=%zu layout %d: %s\n", d->name,
                    clscan_verify_sort_kind_name(c.kind), clscan_type_name(c.key_type),
                    clscan_type_name(c.value_type),
                    clscan_verify_keys_name(c.pattern), c.n, cases[k].layout, msg);
            ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: case %zu: %s", d->name, k, msg);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ hand-made data - */

/* Floats with the values whose order the header spells out, and equal keys whose
 * values show that their order was kept; checked against outputs written by hand. */
START_TEST(test_hand_made)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        /* -NaN, NaN, +0.0, -0.0, INFINITY, -INFINITY, 1, -1, +0.0, -0.0 */
        const uint32_t in[10] = {0xffc00000u, 0x7fc00000u, 0,           0x80000000u,
                                 0x7f800000u, 0xff800000u, 0x3f800000u, 0xbf800000u,
                                 0,           0x80000000u};
        const uint32_t want_keys[10] = {0xffc00000u, 0xff800000u, 0xbf800000u, 0x80000000u,
                                        0x80000000u, 0,           0,           0x3f800000u,
                                        0x7f800000u, 0x7fc00000u};
        const cl_int vals[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        const cl_int want_vals[10] = {0, 5, 7, 3, 9, 2, 8, 6, 4, 1};
        cl_mem k = clscan_test_buffer(d, sizeof in, in), v = clscan_test_buffer(d, sizeof vals, vals);
        cl_mem ko = clscan_test_buffer(d, sizeof in, NULL), vo = clscan_test_buffer(d, sizeof vals, NULL);
        cl_event ev = NULL;
        clscan_status st = clscan_sort_pairs(d->ctx, d->queue, k, 0, v, 0, ko, 0, vo, 0, 10,
                                             CLSCAN_FLOAT, CLSCAN_INT32, 0, NULL, &ev);
        ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s", clscan_status_string(st),
                      clscan_context_last_error(d->ctx));
        clscan_test_wait_release(ev, "sort_pairs float");
        uint32_t got_keys[10];
        cl_int got_vals[10];
        clscan_test_read(d, ko, sizeof got_keys, got_keys);
        clscan_test_read(d, vo, sizeof got_vals, got_vals);
        for (int i = 0; i < 10; i++) {
            ck_assert_msg(got_keys[i] == want_keys[i], "%s: key %d: 0x%08x, want 0x%08x", d->name,
                          i, got_keys[i], want_keys[i]);
            ck_assert_msg(got_vals[i] == want_vals[i], "%s: value %d: %d, want %d", d->name, i,
                          got_vals[i], want_vals[i]);
        }
        /* Keys alone, in place: int64 with the extremes. */
        const cl_long l[6] = {5, INT64_MIN, -1, INT64_MAX, 0, -1};
        const cl_long lwant[6] = {INT64_MIN, -1, -1, 0, 5, INT64_MAX};
        cl_mem lb = clscan_test_buffer(d, sizeof l, l);
        st = clscan_sort_keys(d->ctx, d->queue, lb, 0, lb, 0, 6, CLSCAN_INT64, 0, NULL, &ev);
        ck_assert_msg(st == CLSCAN_SUCCESS, "%s", clscan_context_last_error(d->ctx));
        clscan_test_wait_release(ev, "sort_keys int64 in place");
        cl_long lgot[6];
        clscan_test_read(d, lb, sizeof lgot, lgot);
        for (int i = 0; i < 6; i++) ck_assert_int_eq(lgot[i], lwant[i]);
        clReleaseMemObject(lb);
        clReleaseMemObject(k);
        clReleaseMemObject(v);
        clReleaseMemObject(ko);
        clReleaseMemObject(vo);
    }
}
END_TEST

/* ------------------------------------------------------------ errors -------- */

enum { CLSCAN_SORT_ELEMS = 100, CLSCAN_SORT_POISON = 0x5b };

/* Every argument of both calls; pairs picks the call. */
typedef struct clscan_sort_call {
    int pairs;
    clscan_context *ctx;
    cl_command_queue queue;
    cl_mem keys, values, keys_out, values_out;
    size_t keys_offset, values_offset, keys_out_offset, values_out_offset, n;
    clscan_type key_type, value_type;
    cl_uint num_wait;
    const cl_event *wait;
} clscan_sort_call;

static clscan_status clscan_sort_invoke(const clscan_sort_call *c, cl_event *ev)
{
    if (c->pairs)
        return clscan_sort_pairs(c->ctx, c->queue, c->keys, c->keys_offset, c->values,
                                 c->values_offset, c->keys_out, c->keys_out_offset,
                                 c->values_out, c->values_out_offset, c->n, c->key_type,
                                 c->value_type, c->num_wait, c->wait, ev);
    return clscan_sort_keys(c->ctx, c->queue, c->keys, c->keys_offset, c->keys_out,
                            c->keys_out_offset, c->n, c->key_type, c->num_wait, c->wait, ev);
}

/* The buffers of the error cases: keys and values (each of CLSCAN_SORT_ELEMS 8-byte
 * elements) and two outputs of the same size, all poisoned but the inputs. */
typedef struct clscan_sort_bufs {
    cl_mem keys, values, keys_out, values_out;
} clscan_sort_bufs;

/* Runs c, which must fail with `want` and a message containing `words`, enqueue nothing
 * (the library's command trace stays empty), leave *event alone, and write nothing. */
static void clscan_sort_expect_error(clscan_test_dev *d, const clscan_sort_bufs *b,
                                     clscan_sort_call c, clscan_status want, const char *words,
                                     const char *what)
{
    cl_event trace[16];
    size_t traced = 0;
    cl_event sentinel = (cl_event)(uintptr_t)0x1234, ev = sentinel;
    clscan__trace_events(trace, 16, &traced);
    const clscan_status got = clscan_sort_invoke(&c, &ev);
    clscan__trace_events(NULL, 0, NULL);
    const char *msg = clscan_context_last_error(c.ctx == NULL || !clscan__context_live(c.ctx)
                                                    ? NULL
                                                    : c.ctx);
    const char *call = c.pairs ? "sort_pairs" : "sort_keys";
    fprintf(stderr, "  %-10s %-44s -> %s: %.160s\n", call, what, clscan_status_string(got), msg);
    ck_assert_msg(got == want, "%s: %s: returned %s, expected %s (%s)", call, what,
                  clscan_status_string(got), clscan_status_string(want), msg);
    ck_assert_msg(strstr(msg, words) != NULL, "%s: %s: message \"%s\" lacks \"%s\"", call, what,
                  msg, words);
    ck_assert_msg(ev == sentinel, "%s: %s: *event changed", call, what);
    for (size_t i = 0; i < traced; i++) clReleaseEvent(trace[i]);
    ck_assert_msg(traced == 0, "%s: %s: %zu commands enqueued", call, what, traced);
    ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
    const cl_mem outs[2] = {b->keys_out, b->values_out};
    for (int o = 0; o < 2; o++) {
        unsigned char img[CLSCAN_SORT_ELEMS * 8];
        clscan_test_read(d, outs[o], sizeof img, img);
        for (size_t i = 0; i < sizeof img; i++)
            ck_assert_msg(img[i] == CLSCAN_SORT_POISON, "%s: %s: output %d byte %zu written",
                          call, what, o, i);
    }
}

START_TEST(test_invalid_arguments)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned char in[CLSCAN_SORT_ELEMS * 8], poison[CLSCAN_SORT_ELEMS * 8];
        for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)(i * 7);
        memset(poison, CLSCAN_SORT_POISON, sizeof poison);
        clscan_sort_bufs b = {clscan_test_buffer(d, sizeof in, in),
                              clscan_test_buffer(d, sizeof in, in),
                              clscan_test_buffer(d, sizeof poison, poison),
                              clscan_test_buffer(d, sizeof poison, poison)};
        cl_int err;
        cl_context other = clCreateContext(NULL, 1, &d->dev, NULL, NULL, &err);
        ck_assert(other != NULL);
        cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
        cl_command_queue foreign_q = clCreateCommandQueue(other, d->dev, 0, &err);
        ck_assert(foreign && foreign_q);
        const cl_event null_event = NULL;
        enum { E = CLSCAN_SORT_ELEMS };
        const clscan_status BAD = CLSCAN_ERROR_INVALID_ARGUMENT;
        for (int pairs = 0; pairs < 2; pairs++) {
            const clscan_sort_call ok = {pairs, d->ctx, d->queue, b.keys, b.values, b.keys_out,
                                         b.values_out, 0, 0, 0, 0, E / 2, CLSCAN_UINT32,
                                         CLSCAN_UINT64, 0, NULL};
            const char *kname = pairs ? "keys" : "src", *koname = pairs ? "keys_out" : "dst";
            char words[128];
            clscan_sort_call c;
            c = ok, c.ctx = NULL;
            clscan_sort_expect_error(d, &b, c, BAD, "context is NULL", "NULL context");
            c = ok, c.ctx = (clscan_context *)(uintptr_t)&c;
            clscan_sort_expect_error(d, &b, c, BAD, "not a live clscan context",
                                     "pointer that is no context");
            c = ok, c.queue = NULL;
            clscan_sort_expect_error(d, &b, c, BAD, "queue is NULL", "NULL queue");
            c = ok, c.queue = foreign_q;
            clscan_sort_expect_error(d, &b, c, BAD, "queue belongs to another cl_context",
                                     "queue of another cl_context");
            c = ok, c.num_wait = 1;
            clscan_sort_expect_error(d, &b, c, BAD, "event wait list", "count 1, list NULL");
            c = ok, c.num_wait = 1, c.wait = &null_event;
            clscan_sort_expect_error(d, &b, c, BAD, "event_wait_list[0] is NULL",
                                     "a NULL event in the list");
            c = ok, c.key_type = (clscan_type)99;
            clscan_sort_expect_error(d, &b, c, BAD, "key_type 99 is not a clscan_type",
                                     "key_type 99");
            c = ok, c.key_type = (clscan_type)-1;
            clscan_sort_expect_error(d, &b, c, BAD, "key_type -1 is not a clscan_type",
                                     "key_type -1");
            if (pairs) {
                c = ok, c.value_type = (clscan_type)6;
                clscan_sort_expect_error(d, &b, c, BAD, "value_type 6 is not a clscan_type",
                                         "value_type 6");
            }
            if (!d->fp64) {
                c = ok, c.key_type = CLSCAN_DOUBLE;
                clscan_sort_expect_error(d, &b, c, CLSCAN_ERROR_UNSUPPORTED, "fp64",
                                         "double keys without fp64");
            }
            snprintf(words, sizeof words, "%s is NULL", kname);
            c = ok, c.keys = NULL;
            clscan_sort_expect_error(d, &b, c, BAD, words, "NULL keys");
            snprintf(words, sizeof words, "%s is NULL", koname);
            c = ok, c.keys_out = NULL;
            clscan_sort_expect_error(d, &b, c, BAD, words, "NULL keys_out");
            snprintf(words, sizeof words, "%s belongs to another cl_context", kname);
            c = ok, c.keys = foreign;
            clscan_sort_expect_error(d, &b, c, BAD, words, "keys of another cl_context");
            snprintf(words, sizeof words, "%s: elements [190, 240) of 4 bytes each need 960 "
                     "bytes, but the buffer has 800", kname);
            c = ok, c.keys_offset = 2 * E - 10;
            clscan_sort_expect_error(d, &b, c, BAD, words, "keys range past the end");
            snprintf(words, sizeof words, "%s: elements [0, 201)", kname);
            c = ok, c.n = 2 * E + 1;
            clscan_sort_expect_error(d, &b, c, BAD, words, "n past the end (4-byte keys)");
            snprintf(words, sizeof words, "%s: elements [151, 201)", koname);
            c = ok, c.keys_out_offset = 151;
            clscan_sort_expect_error(d, &b, c, BAD, words, "keys_out range past the end");
            snprintf(words, sizeof words, "%s: elements [0, 101) of 8 bytes", kname);
            c = ok, c.key_type = CLSCAN_INT64, c.n = E + 1;
            clscan_sort_expect_error(d, &b, c, BAD, words, "n past the end (8-byte keys)");
            c = ok, c.keys_offset = SIZE_MAX - 10;
            clscan_sort_expect_error(d, &b, c, BAD, "overflows", "keys_offset + n overflows");
            c = ok, c.keys_out = b.keys, c.keys_out_offset = 10;
            clscan_sort_expect_error(d, &b, c, BAD, "overlap", "keys and keys_out overlap");
            if (pairs) {
                c = ok, c.values = NULL;
                clscan_sort_expect_error(d, &b, c, BAD, "values is NULL", "NULL values");
                c = ok, c.values_out = NULL;
                clscan_sort_expect_error(d, &b, c, BAD, "values_out is NULL", "NULL values_out");
                c = ok, c.values_out_offset = E / 2 + 1;
                clscan_sort_expect_error(d, &b, c, BAD, "values_out: elements [51, 101) of 8 "
                                         "bytes", "values_out past the end (8-byte values)");
                c = ok, c.values_out = b.values, c.values_out_offset = 1;
                clscan_sort_expect_error(d, &b, c, BAD, "values (bytes [0, 400)) and values_out "
                                         "(bytes [8, 408)) overlap",
                                         "values and values_out overlap");
                c = ok, c.values_out = b.keys_out, c.values_out_offset = 24;
                clscan_sort_expect_error(d, &b, c, BAD, "keys_out (bytes [0, 200)) and "
                                         "values_out (bytes [192, 592))",
                                         "keys_out and values_out overlap");
                c = ok, c.keys_out = b.values, c.keys_out_offset = 99;
                clscan_sort_expect_error(d, &b, c, BAD, "keys_out (bytes [396, 596)) and values",
                                         "keys_out inside values");
                c = ok, c.values_out = b.keys, c.values_out_offset = 0;
                clscan_sort_expect_error(d, &b, c, BAD, "values_out (bytes [0, 400)) and keys",
                                         "values_out over keys");
            }
        }
        /* A released context. */
        clscan_context *gone = NULL;
        ck_assert_int_eq(clscan_context_create(d->cl_ctx, d->dev, &gone), CLSCAN_SUCCESS);
        clscan_context_release(gone);
        const clscan_sort_call dead = {0, gone, d->queue, b.keys, NULL, b.keys_out, NULL,
                                       0, 0, 0, 0, 10, CLSCAN_UINT32, CLSCAN_UINT32, 0, NULL};
        clscan_sort_expect_error(d, &b, dead, BAD, "not a live clscan context",
                                 "released context");
        /* The same calls with good arguments succeed: keys in place, and pairs with both
         * inputs on one buffer (only read, they may overlap). */
        cl_event ev = NULL;
        ck_assert_int_eq(clscan_sort_keys(d->ctx, d->queue, b.keys, 3, b.keys, 3, 50,
                                          CLSCAN_UINT32, 0, NULL, &ev),
                         CLSCAN_SUCCESS);
        clscan_test_wait_release(ev, "sort_keys in place");
        ck_assert_int_eq(clscan_sort_pairs(d->ctx, d->queue, b.keys, 0, b.keys, 10, b.keys_out,
                                           0, b.values_out, 0, 50, CLSCAN_UINT32,
                                           CLSCAN_FLOAT, 0, NULL, &ev),
                         CLSCAN_SUCCESS);
        clscan_test_wait_release(ev, "sort_pairs with overlapping inputs");
        clReleaseMemObject(foreign);
        clReleaseCommandQueue(foreign_q);
        clReleaseContext(other);
        clReleaseMemObject(b.keys);
        clReleaseMemObject(b.values);
        clReleaseMemObject(b.keys_out);
        clReleaseMemObject(b.values_out);
    }
}
END_TEST

/* n == 0: a marker when an event or a wait list asks for one, nothing written; and the
 * temporaries past the device's largest allocation are refused before anything is
 * enqueued. */
START_TEST(test_empty_and_max_alloc)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned char poison[64];
        memset(poison, CLSCAN_SORT_POISON, sizeof poison);
        cl_mem k = clscan_test_buffer(d, sizeof poison, poison);
        cl_mem o = clscan_test_buffer(d, sizeof poison, poison);
        cl_event ev = NULL, ev2 = NULL;
        ck_assert_int_eq(clscan_sort_keys(d->ctx, d->queue, k, 16, o, 16, 0, CLSCAN_FLOAT, 0,
                                          NULL, &ev),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(clscan_sort_pairs(d->ctx, d->queue, k, 0, k, 8, o, 0, o, 8, 0,
                                           CLSCAN_UINT64, CLSCAN_INT32, 1, &ev, &ev2),
                         CLSCAN_SUCCESS);
        clscan_test_wait_release(ev, "n == 0 keys");
        clscan_test_wait_release(ev2, "n == 0 pairs after it");
        ck_assert_int_eq(clscan_sort_keys(d->ctx, d->queue, k, 0, o, 0, 0, CLSCAN_INT32, 0,
                                          NULL, NULL),
                         CLSCAN_SUCCESS);
        unsigned char img[64];
        clscan_test_read(d, o, sizeof img, img);
        ck_assert(!memcmp(img, poison, sizeof img));
        clReleaseMemObject(k);
        clReleaseMemObject(o);

        /* A context that believes the largest allocation is 1 MiB: 2^17 int64 keys with
         * int64 values need 2 MiB of temporaries. */
        setenv("CLSCAN_MAX_MEM_ALLOC_SIZE", "1M", 1);
        clscan_context *small = NULL;
        ck_assert_int_eq(clscan_context_create(d->cl_ctx, d->dev, &small), CLSCAN_SUCCESS);
        unsetenv("CLSCAN_MAX_MEM_ALLOC_SIZE");
        const size_t n = (size_t)1 << 17;
        cl_mem kb = clscan_test_buffer(d, n * 8, NULL), vb = clscan_test_buffer(d, n * 8, NULL);
        cl_event trace[8];
        size_t traced = 0;
        clscan__trace_events(trace, 8, &traced);
        ev = NULL;
        clscan_status st = clscan_sort_pairs(small, d->queue, kb, 0, vb, 0, kb, 0, vb, 0, n,
                                             CLSCAN_INT64, CLSCAN_INT64, 0, NULL, &ev);
        clscan__trace_events(NULL, 0, NULL);
        const char *msg = clscan_context_last_error(small);
        fprintf(stderr, "%s: 2^17 int64 pairs, max alloc 1 MiB: %s: %s\n", d->name,
                clscan_status_string(st), msg);
        ck_assert_int_eq(st, CLSCAN_ERROR_OUT_OF_RESOURCES);
        ck_assert_msg(strstr(msg, "largest allocation") != NULL, "message: %s", msg);
        ck_assert(ev == NULL && traced == 0);
        /* An eighth of it fits, with the one-sweep sort's status words of tiles as short
         * as 128 pairs (work-groups of 16) too. */
        st = clscan_sort_pairs(small, d->queue, kb, 0, vb, 0, kb, 0, vb, 0, n / 8, CLSCAN_INT64,
                               CLSCAN_INT64, 0, NULL, &ev);
        ck_assert_msg(st == CLSCAN_SUCCESS, "%s", clscan_context_last_error(small));
        clscan_test_wait_release(ev, "2^14 int64 pairs under a 1 MiB allocation limit");
        clscan_context_release(small);
        clReleaseMemObject(kb);
        clReleaseMemObject(vb);
    }
}
END_TEST

/* A scan and then a sort of its output on one in-order queue, the sort waiting on the
 * scan's event, and an out-of-order queue where the device has one: the event chain
 * orders the passes. */
static int clscan_sort_cmp_int(const void *x, const void *y)
{
    const cl_int a = *(const cl_int *)x, b = *(const cl_int *)y;
    return (a > b) - (a < b);
}

START_TEST(test_chain)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        enum { N = 5000 };
        static cl_int host[N], want[N], got[N];
        cl_int run = 0;
        for (int i = 0; i < N; i++) {
            host[i] = (i * 7919) % 13 - 6; /* prefix sums that go up and down */
            run += host[i];
            want[i] = run;
        }
        qsort(want, N, sizeof *want, clscan_sort_cmp_int);
        cl_mem a = clscan_test_buffer(d, sizeof host, host);
        cl_mem b = clscan_test_buffer(d, sizeof host, NULL);
        cl_event scanned = NULL, sorted = NULL;
        ck_assert_int_eq(clscan_inclusive_scan(d->ctx, d->queue, a, 0, b, 0, N, CLSCAN_INT32,
                                               CLSCAN_OP_ADD, 0, NULL, &scanned),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(clscan_sort_keys(d->ctx, d->queue, b, 0, b, 0, N, CLSCAN_INT32, 1,
                                          &scanned, &sorted),
                         CLSCAN_SUCCESS);
        clReleaseEvent(scanned);
        clscan_test_wait_release(sorted, "scan then sort");
        clscan_test_read(d, b, sizeof got, got);
        for (int i = 0; i < N; i++) ck_assert_int_eq(got[i], want[i]);

        /* An out-of-order queue: every command of the call waits for the one before. */
        cl_command_queue_properties props = 0;
        clGetDeviceInfo(d->dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
        if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
            cl_int err;
            cl_command_queue ooo = clCreateCommandQueue(
                d->cl_ctx, d->dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
            ck_assert(ooo != NULL);
            cl_event written = NULL;
            ck_assert_int_eq(clEnqueueWriteBuffer(ooo, a, CL_FALSE, 0, sizeof host, host, 0,
                                                  NULL, &written),
                             CL_SUCCESS);
            ck_assert_int_eq(clscan_sort_pairs(d->ctx, ooo, a, 0, a, 0, b, 0, a, 0, N,
                                               CLSCAN_INT32, CLSCAN_INT32, 1, &written, &sorted),
                             CLSCAN_ERROR_INVALID_ARGUMENT);
            /* (Keys and values_out on one range: refused; now a valid call.) */
            ck_assert_int_eq(clscan_sort_keys(d->ctx, ooo, a, 0, b, 0, N, CLSCAN_INT32, 1,
                                              &written, &sorted),
                             CLSCAN_SUCCESS);
            clReleaseEvent(written);
            clscan_test_wait_release(sorted, "sort on an out-of-order queue");
            memcpy(want, host, sizeof host);
            qsort(want, N, sizeof *want, clscan_sort_cmp_int);
            ck_assert_int_eq(clEnqueueReadBuffer(ooo, b, CL_TRUE, 0, sizeof got, got, 0, NULL,
                                                 NULL),
                             CL_SUCCESS);
            for (int i = 0; i < N; i++) ck_assert_int_eq(got[i], want[i]);
            clReleaseCommandQueue(ooo);
        }
        clReleaseMemObject(a);
        clReleaseMemObject(b);
    }
}
END_TEST

static Suite *clscan_sort_suite(void)
{
    Suite *s = suite_create("sort");
    TCase *host = tcase_create("host");
    tcase_add_test(host, test_reference);
    suite_add_tcase(s, host);
    TCase *dev = tcase_create("device");
    tcase_add_checked_fixture(dev, clscan_test_setup, clscan_test_teardown);
    tcase_add_loop_test(dev, test_matrix, 0, CLSCAN_TYPE_COUNT);
    tcase_add_test(dev, test_large);
    tcase_add_test(dev, test_hand_made);
    tcase_add_test(dev, test_invalid_arguments);
    tcase_add_test(dev, test_empty_and_max_alloc);
    tcase_add_test(dev, test_chain);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    return clscan_test_run(clscan_sort_suite());
}
