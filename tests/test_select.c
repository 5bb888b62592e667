/* test_select.c - Check suite for stream compaction (select_flagged, select_if,
 * partition_if, unique): the host reference on hand-made inputs, then on each platform's
 * first device every kind x type x pattern x size x layout against it, exact error
 * statuses and messages, n == 0, predicate caching, hand-made data and a chained scan. */
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

/* ------------------------------------------------------------ helpers ------- */

/* The devices under test, their fixture, the seed (20261123 unless $CLSCAN_TEST_SEED
 * says otherwise), buffers, reads and event waits: test_devices.h. */

/* Every argument of the four calls; `kind` picks the call. */
typedef struct clscan_sel_call {
    clscan_verify_kind kind;
    clscan_context *ctx;
    cl_command_queue queue;
    cl_mem src;
    size_t src_offset;
    cl_mem flags;
    size_t flags_offset;
    cl_mem dst;
    size_t dst_offset;
    cl_mem count;
    size_t n;
    clscan_type type;
    const char *predicate;
    cl_uint num_wait;
    const cl_event *wait;
} clscan_sel_call;

static clscan_status clscan_sel_invoke(const clscan_sel_call *c, cl_event *ev)
{
    switch (c->kind) {
    case CLSCAN_VERIFY_SELECT_FLAGGED:
        return clscan_select_flagged(c->ctx, c->queue, c->src, c->src_offset, c->flags,
                                     c->flags_offset, c->dst, c->dst_offset, c->count, c->n,
                                     c->type, c->num_wait, c->wait, ev);
    case CLSCAN_VERIFY_SELECT_IF:
        return clscan_select_if(c->ctx, c->queue, c->src, c->src_offset, c->dst, c->dst_offset,
                                c->count, c->n, c->type, c->predicate, c->num_wait, c->wait, ev);
    case CLSCAN_VERIFY_PARTITION_IF:
        return clscan_partition_if(c->ctx, c->queue, c->src, c->src_offset, c->dst,
                                   c->dst_offset, c->count, c->n, c->type, c->predicate,
                                   c->num_wait, c->wait, ev);
    default:
        return clscan_unique(c->ctx, c->queue, c->src, c->src_offset, c->dst, c->dst_offset,
                             c->count, c->n, c->type, c->num_wait, c->wait, ev);
    }
}

/* Reads the count a call wrote (a cl_ulong at byte 0). */
static cl_ulong clscan_sel_count(clscan_test_dev *d, cl_mem count)
{
    cl_ulong v;
    clscan_test_read(d, count, sizeof v, &v);
    return v;
}

/* ------------------------------------------------------------ reference ----- */

/* The table's predicate with this text. */
static const clscan_verify_predicate *clscan_sel_pred(const char *text)
{
    for (int k = 0; k < CLSCAN_VERIFY_PREDICATE_COUNT; k++)
        if (!strcmp(clscan_verify_predicates[k].text, text))
            return &clscan_verify_predicates[k];
    ck_abort_msg("predicate \"%s\" is not in the table", text);
    return NULL;
}

/* Runs the host reference on n elements and checks count and output bits. */
static void clscan_sel_expect_ref(clscan_verify_kind kind, clscan_type type, const char *pred,
                                  const void *src, const unsigned char *flags, size_t n,
                                  const void *want, size_t want_kept)
{
    const clscan_verify_predicate *p = pred ? clscan_sel_pred(pred) : NULL;
    size_t es = clscan_type_size(type);
    unsigned char out[64 * 8];
    memset(out, 0xEE, sizeof out);
    size_t kept = clscan_verify_compact_reference(kind, type, p, src, flags, n, out);
    ck_assert_msg(kept == want_kept, "%s %s: kept %zu, want %zu", clscan_verify_kind_name(kind),
                  clscan_type_name(type), kept, want_kept);
    size_t written = kind == CLSCAN_VERIFY_PARTITION_IF ? n : kept;
    ck_assert_msg(!memcmp(out, want, written * es), "%s %s: wrong elements",
                  clscan_verify_kind_name(kind), clscan_type_name(type));
    ck_assert_msg(out[written * es] == 0xEE, "%s: wrote past its output",
                  clscan_verify_kind_name(kind));
}

/* The reference on inputs small enough to work out by hand, and the predicates' host
 * twins at their edges. */
START_TEST(test_reference)
{
    const cl_int ten[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const cl_int evens[5] = {2, 4, 6, 8, 10};
    const cl_int parted[10] = {2, 4, 6, 8, 10, 9, 7, 5, 3, 1};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, "(x & 1) == 0", ten, NULL, 10,
                          evens, 5);
    clscan_sel_expect_ref(CLSCAN_VERIFY_PARTITION_IF, CLSCAN_INT32, "(x & 1) == 0", ten, NULL,
                          10, parted, 5);
    const cl_int reversed[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    clscan_sel_expect_ref(CLSCAN_VERIFY_PARTITION_IF, CLSCAN_INT32, "0", ten, NULL, 10,
                          reversed, 0);
    clscan_sel_expect_ref(CLSCAN_VERIFY_PARTITION_IF, CLSCAN_INT32, "1", ten, NULL, 10, ten, 10);
    const cl_int every_third[4] = {1, 4, 7, 10};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, "i % 3 == 0", ten, NULL, 10,
                          every_third, 4);
    const unsigned char flags[10] = {0, 7, 0, 0, 255, 1, 0, 0, 0, 2};
    const cl_int flagged[4] = {2, 5, 6, 10};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_FLAGGED, CLSCAN_INT32, NULL, ten, flags, 10,
                          flagged, 4);

    const cl_long runs[8] = {5, 5, 5, -1, -1, 5, 7, 7};
    const cl_long runs_unique[4] = {5, -1, 5, 7};
    clscan_sel_expect_ref(CLSCAN_VERIFY_UNIQUE, CLSCAN_INT64, NULL, runs, NULL, 8, runs_unique, 4);
    /* Every NaN kept, and the element after one; -0.0 == +0.0, so the first zero stays. */
    const float fl[13] = {1, NAN, NAN, -0.0f, 0.0f, 0.0f, -0.0f, 2, 2, INFINITY, INFINITY, NAN, 1};
    const float fl_unique[8] = {1, NAN, NAN, -0.0f, 2, INFINITY, NAN, 1};
    clscan_sel_expect_ref(CLSCAN_VERIFY_UNIQUE, CLSCAN_FLOAT, NULL, fl, NULL, 13, fl_unique, 8);
    const double db[6] = {0.0, -0.0, NAN, NAN, -INFINITY, -INFINITY};
    const double db_unique[4] = {0.0, NAN, NAN, -INFINITY};
    clscan_sel_expect_ref(CLSCAN_VERIFY_UNIQUE, CLSCAN_DOUBLE, NULL, db, NULL, 6, db_unique, 4);
    const double db_low[6] = {-0.75, -0.5, NAN, 0.25, -1, -0.0};
    const double db_low_kept[3] = {-0.75, NAN, -1};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_DOUBLE, "isnan(x) || x < -0.5f",
                          db_low, NULL, 6, db_low_kept, 3);
    const float fpos[5] = {-0.0f, 0.0f, NAN, 1e-3f, -2};
    const float fpos_kept[1] = {1e-3f};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_FLOAT, "x > 0", fpos, NULL, 5,
                          fpos_kept, 1);
    /* The same bits mean different things to signed and unsigned types: -1 % 7 is -1
     * in C and OpenCL C, while 2^32 - 1 and 2^64 - 6 are 3 modulo 7. */
    const cl_int s32[5] = {-1, 3, 10, -5, 0};
    const cl_int s32_kept[2] = {3, 10};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, "x > 0", s32, NULL, 5, s32_kept,
                          2);
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, "x % 7 == 3", s32, NULL, 5,
                          s32_kept, 2);
    const cl_uint u32[5] = {0xffffffffu, 3, 10, 0xfffffffbu, 0};
    const cl_uint u32_pos[4] = {0xffffffffu, 3, 10, 0xfffffffbu};
    const cl_uint u32_mod[3] = {0xffffffffu, 3, 10};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_UINT32, "x > 0", u32, NULL, 5, u32_pos,
                          4);
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_UINT32, "x % 7 == 3", u32, NULL, 5,
                          u32_mod, 3);
    const cl_ulong u64[4] = {0xfffffffffffffffau, 0x8000000000000000u, 10, 0};
    const cl_ulong u64_mod[2] = {0xfffffffffffffffau, 10};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_UINT64, "x % 7 == 3", u64, NULL, 4,
                          u64_mod, 2);
    const cl_long s64[4] = {-6, INT64_MIN, 10, 0};
    const cl_long s64_kept[1] = {10};
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT64, "x % 7 == 3", s64, NULL, 4,
                          s64_kept, 1);
    clscan_sel_expect_ref(CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT64, "x > 0", s64, NULL, 4,
                          s64_kept, 1);

    /* The bits the host twins see: INT32 sign-extended, UINT32 and FLOAT zero-extended. */
    const cl_int m1 = -1;
    const cl_uint u_m1 = 0xffffffffu;
    const float negzero = -0.0f;
    ck_assert_uint_eq(clscan_verify_load_bits(&m1, 0, CLSCAN_INT32), UINT64_MAX);
    ck_assert_uint_eq(clscan_verify_load_bits(&u_m1, 0, CLSCAN_UINT32), 0xffffffffu);
    ck_assert_uint_eq(clscan_verify_load_bits(&negzero, 0, CLSCAN_FLOAT), 0x80000000u);

    /* No predicate valid on a float type uses an integer-only operator on x. */
    for (int k = 0; k < CLSCAN_VERIFY_PREDICATE_COUNT; k++) {
        const clscan_verify_predicate *p = &clscan_verify_predicates[k];
        if (p->types & (1u << CLSCAN_FLOAT | 1u << CLSCAN_DOUBLE))
            ck_assert_msg(!strstr(p->text, "x &") && !strstr(p->text, "x %") &&
                          !strstr(p->text, "x >>"),
                          "predicate \"%s\" is marked valid on floats", p->text);
        ck_assert_msg(p->types != 0 && p->host != NULL, "predicate %d", k);
    }
}
END_TEST

/* The generators make what their names say, so the matrix tests what it claims. */
START_TEST(test_patterns)
{
    enum { N = 100000 };
    unsigned char *flags = malloc(N), *src = malloc(N * 8), *out = malloc(N * 8);
    ck_assert(flags && src && out);
    for (int p = 0; p < CLSCAN_VERIFY_FLAGS_COUNT; p++) {
        clscan_verify_compact_case c = {CLSCAN_VERIFY_SELECT_FLAGGED, CLSCAN_UINT32, p, N,
                                        0, 0, 0, 0, 99, NULL};
        clscan_verify_compact_fill(&c, src, flags);
        size_t set = 0, longest = 0, run = 0, big = 0;
        for (size_t i = 0; i < N; i++) {
            set += flags[i] != 0;
            big += flags[i] > 1;
            run = i && (flags[i] != 0) == (flags[i - 1] != 0) ? run + 1 : 1;
            longest = run > longest ? run : longest;
        }
        char name[64];
        fprintf(stderr, "%s: %zu of %d set, longest run %zu\n",
                clscan_verify_pattern_name(&c, name, sizeof name), set, N, longest);
        switch (p) {
        case CLSCAN_VERIFY_FLAGS_NONE: ck_assert_uint_eq(set, 0); break;
        case CLSCAN_VERIFY_FLAGS_ALL:
            ck_assert_uint_eq(set, N);
            ck_assert_uint_gt(big, N / 2); /* nonzero, not just 1 */
            break;
        case CLSCAN_VERIFY_FLAGS_HALF: ck_assert(set > N * 45 / 100 && set < N * 55 / 100); break;
        case CLSCAN_VERIFY_FLAGS_RUNS:
            ck_assert(longest >= 2000 && set > N / 4 && set < N * 3 / 4);
            break;
        default: ck_assert(set > N / 200 && set < N / 50);
        }
    }
    for (clscan_type t = CLSCAN_INT32; t <= CLSCAN_DOUBLE; t++) {
        size_t kept[CLSCAN_VERIFY_DUPS_COUNT];
        for (int p = 0; p < CLSCAN_VERIFY_DUPS_COUNT; p++) {
            clscan_verify_compact_case c = {CLSCAN_VERIFY_UNIQUE, t, p, N, 0, 0, 0, 0, 7, NULL};
            clscan_verify_compact_fill(&c, src, NULL);
            kept[p] = clscan_verify_compact_reference(c.kind, t, NULL, src, NULL, N, out);
            if (p == CLSCAN_VERIFY_DUPS_SPECIAL && t == CLSCAN_FLOAT) {
                size_t nans = 0, zero_pairs = 0;
                const float *f = (const float *)src;
                for (size_t i = 1; i < N; i++) {
                    nans += isnan(f[i]) != 0;
                    zero_pairs += f[i] == 0 && f[i - 1] == 0 && signbit(f[i]) != signbit(f[i - 1]);
                }
                ck_assert_msg(nans > 0 && zero_pairs > 0, "float specials: %zu NaNs, %zu "
                              "+-0 pairs", nans, zero_pairs);
            }
        }
        fprintf(stderr, "unique %s: kept %zu (runs), %zu (equal), %zu (distinct), %zu "
                "(special) of %d\n", clscan_type_name(t), kept[0], kept[1], kept[2], kept[3], N);
        ck_assert_uint_eq(kept[CLSCAN_VERIFY_DUPS_EQUAL], 1);
        ck_assert_uint_eq(kept[CLSCAN_VERIFY_DUPS_DISTINCT], N);
        ck_assert(kept[CLSCAN_VERIFY_DUPS_RUNS] > 10 && kept[CLSCAN_VERIFY_DUPS_RUNS] < N / 20);
        ck_assert(kept[CLSCAN_VERIFY_DUPS_SPECIAL] > 10 &&
                  kept[CLSCAN_VERIFY_DUPS_SPECIAL] < N / 2);
    }
    /* Selects see values that make every predicate choose a real mix. */
    for (clscan_type t = CLSCAN_INT32; t <= CLSCAN_DOUBLE; t++) {
        int pats[CLSCAN_VERIFY_PREDICATE_COUNT];
        size_t np = clscan_verify_compact_patterns(CLSCAN_VERIFY_SELECT_IF, t, 0, pats, 16);
        ck_assert_uint_ge(np, 6);
        for (size_t k = 0; k < np; k++) {
            clscan_verify_compact_case c = {CLSCAN_VERIFY_SELECT_IF, t, pats[k], N, 0, 0, 0, 0,
                                            11, NULL};
            clscan_verify_compact_fill(&c, src, NULL);
            size_t kept = clscan_verify_compact_reference(
                c.kind, t, &clscan_verify_predicates[pats[k]], src, NULL, N, out);
            const char *text = clscan_verify_predicates[pats[k]].text;
            if (!strcmp(text, "0"))
                ck_assert_uint_eq(kept, 0);
            else if (!strcmp(text, "1"))
                ck_assert_uint_eq(kept, N);
            else
                ck_assert_msg(kept > N / 100 && kept < N - N / 100, "%s \"%s\": kept %zu of %d",
                              clscan_type_name(t), text, kept, N);
        }
    }
    free(flags);
    free(src);
    free(out);
}
END_TEST

/* ------------------------------------------------------------ the matrix ---- */

/* Edges of every tile the meson tests use (16 and 32 elements with the recursive
 * settings, 64 and 128 with the small single-pass and multi-level tiles, 512 to 8192 by
 * default on CPUs), each size +-1, sizes that are no power of two, and many tiles: with
 * the small tiles up to about 1000 (65537 / 64), with PoCL's default single-pass tile
 * (8192 four-byte elements) 9 to 17. Flagged sizes also run at offsets and in place.
 * Larger sizes run in clscan-selftest's full list (up to 2^20 + 7). */
static const clscan_verify_size clscan_sel_sizes[] = {
    {0, 1},     {1, 1},     {2, 0},     {15, 0},    {16, 0},    {17, 1},    {31, 0},
    {32, 0},    {33, 0},    {63, 0},    {64, 0},    {65, 1},    {127, 0},   {128, 0},
    {129, 1},   {255, 0},   {256, 0},   {257, 0},   {1000, 0},  {1023, 0},  {1024, 0},
    {1025, 1},  {2047, 0},  {2049, 0},  {4095, 0},  {4096, 0},  {4097, 1},  {8191, 0},
    {8192, 0},  {8193, 1},  {12289, 0}, {24577, 1}, {65537, 0}};

/* Loop test over the types: every kind, every pattern that applies, every size and the
 * layouts flagged for it. */
START_TEST(test_matrix)
{
    const clscan_type type = (clscan_type)_i;
    if (!clscan_test_type_wanted(type, "select")) return;
    const uint64_t seed = clscan_test_seed(20261123u);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_test_tally tally = {0};
        char msg[1024], pname[96];
        for (int kind = 0; kind < CLSCAN_VERIFY_KIND_COUNT; kind++) {
            int pats[16];
            size_t np = clscan_verify_compact_patterns((clscan_verify_kind)kind, type, 0, pats,
                                                       16);
            for (size_t k = 0; k < np; k++) {
                for (size_t s = 0; s < sizeof clscan_sel_sizes / sizeof *clscan_sel_sizes; s++) {
                    const int layouts =
                        clscan_sel_sizes[s].all_layouts ? CLSCAN_VERIFY_LAYOUT_COUNT : 1;
                    for (int l = 0; l < layouts; l++) {
                        clscan_verify_compact_case c = {(clscan_verify_kind)kind, type, pats[k],
                                                        clscan_sel_sizes[s].n, 0, 0, 0, 0, 0,
                                                        NULL};
                        clscan_verify_compact_layout(&c, l);
                        c.seed = clscan_verify_mix(seed, c.n << 16 ^
                                                             (uint64_t)(kind << 12 |
                                                                        pats[k] << 4 | l));
                        clscan_verify_result r = clscan_verify_run_compact(
                            d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg);
                        if (r == CLSCAN_VERIFY_PASS) {
                            tally.pass++;
                        } else if (r == CLSCAN_VERIFY_SKIP) {
                            tally.skip++;
                        } else {
                            char line[1500];
                            snprintf(line, sizeof line,
                                     "%s %s %s n=%zu src_offset=%zu flags_offset=%zu "
                                     "dst_offset=%zu in_place=%d (seed %" PRIu64 "): %s",
                                     clscan_verify_kind_name(c.kind), clscan_type_name(type),
                                     clscan_verify_pattern_name(&c, pname, sizeof pname), c.n,
                                     c.src_offset, c.flags_offset, c.dst_offset, c.in_place,
                                     seed, msg);
                            clscan_test_tally_fail(&tally, d, line);
                        }
                    }
                }
            }
        }
        clscan_test_tally_check(&tally, d, "compaction", type);
    }
}
END_TEST

/* ------------------------------------------------------------ hand-made data - */

/* Runs one call on host data (int32 / float / double as bytes) and checks the count
 * and dst against values written out by hand, not by the reference. */
static void clscan_sel_expect_device(clscan_test_dev *d, clscan_verify_kind kind,
                                     clscan_type type, const char *pred, const void *src,
                                     const unsigned char *flags, size_t n, const void *want,
                                     size_t want_kept)
{
    size_t es = clscan_type_size(type), bytes = n * es;
    unsigned char poison[64 * 8], got[64 * 8];
    memset(poison, 0xA5, sizeof poison);
    cl_mem bsrc = clscan_test_buffer(d, bytes, src), bdst = clscan_test_buffer(d, bytes, poison);
    cl_mem bflags = clscan_test_buffer(d, n, flags ? flags : poison);
    cl_mem bcount = clscan_test_buffer(d, 8, poison);
    clscan_sel_call c = {kind, d->ctx, d->queue, bsrc, 0, bflags, 0, bdst, 0, bcount, n, type,
                         pred, 0, NULL};
    cl_event ev = NULL;
    clscan_status st = clscan_sel_invoke(&c, &ev);
    ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s %s: %s: %s", d->name,
                  clscan_verify_kind_name(kind), clscan_type_name(type),
                  clscan_status_string(st), clscan_context_last_error(d->ctx));
    clscan_test_wait(ev, clscan_verify_kind_name(kind));
    clReleaseEvent(ev);
    ck_assert_uint_eq(clscan_sel_count(d, bcount), want_kept);
    clscan_test_read(d, bdst, bytes, got);
    size_t written = kind == CLSCAN_VERIFY_PARTITION_IF ? n : want_kept;
    for (size_t i = 0; i < n; i++) {
        const void *w = i < written ? (const void *)((const char *)want + i * es) : poison;
        ck_assert_msg(!memcmp(got + i * es, w, es), "%s: %s %s: dst[%zu] wrong (kept %zu)",
                      d->name, clscan_verify_kind_name(kind), clscan_type_name(type), i,
                      want_kept);
    }
    clReleaseMemObject(bsrc);
    clReleaseMemObject(bdst);
    clReleaseMemObject(bflags);
    clReleaseMemObject(bcount);
}

/* NaNs, signed zeros and infinities through unique and select_if, bit for bit; a
 * partition's reversed tail; flags that are any nonzero byte. */
START_TEST(test_hand_made)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        const float fl[13] = {1, NAN, NAN, -0.0f, 0.0f, 0.0f, -0.0f, 2, 2, INFINITY, INFINITY,
                              -NAN, 1};
        const float fl_unique[8] = {1, NAN, NAN, -0.0f, 2, INFINITY, -NAN, 1};
        clscan_sel_expect_device(d, CLSCAN_VERIFY_UNIQUE, CLSCAN_FLOAT, NULL, fl, NULL, 13,
                                 fl_unique, 8);
        const float fl_pos[6] = {1, 2, 2, INFINITY, INFINITY, 1};
        clscan_sel_expect_device(d, CLSCAN_VERIFY_SELECT_IF, CLSCAN_FLOAT, "x > 0", fl, NULL, 13,
                                 fl_pos, 6);
        if (d->fp64) {
            const double db[7] = {0.0, -0.0, NAN, NAN, -INFINITY, -INFINITY, 0.0};
            const double db_unique[5] = {0.0, NAN, NAN, -INFINITY, 0.0};
            clscan_sel_expect_device(d, CLSCAN_VERIFY_UNIQUE, CLSCAN_DOUBLE, NULL, db, NULL, 7,
                                     db_unique, 5);
        }
        const cl_int ten[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        const cl_int parted[10] = {2, 4, 6, 8, 10, 9, 7, 5, 3, 1};
        clscan_sel_expect_device(d, CLSCAN_VERIFY_PARTITION_IF, CLSCAN_INT32, "(x & 1) == 0", ten,
                                 NULL, 10, parted, 5);
        const unsigned char flags[10] = {0, 7, 0, 0, 255, 1, 0, 0, 0, 128};
        const cl_int flagged[4] = {2, 5, 6, 10};
        clscan_sel_expect_device(d, CLSCAN_VERIFY_SELECT_FLAGGED, CLSCAN_INT32, NULL, ten, flags,
                                 10, flagged, 4);
        const cl_int runs[9] = {-1, -1, 0, 0, 0, -1, INT32_MIN, INT32_MIN, INT32_MAX};
        const cl_int runs_unique[5] = {-1, 0, -1, INT32_MIN, INT32_MAX};
        clscan_sel_expect_device(d, CLSCAN_VERIFY_UNIQUE, CLSCAN_INT32, NULL, runs, NULL, 9,
                                 runs_unique, 5);
    }
}
END_TEST

/* ------------------------------------------------------------ errors -------- */

enum { CLSCAN_SEL_ELEMS = 64 }; /* int32 elements of the error tests' buffers */
#define CLSCAN_SEL_POISON 0xA5

/* The error tests' buffers and what each held before. */
typedef struct clscan_sel_bufs {
    cl_mem src, dst, flags, count;
    cl_int src_img[CLSCAN_SEL_ELEMS];
    unsigned char dst_img[CLSCAN_SEL_ELEMS * 4], flags_img[CLSCAN_SEL_ELEMS], count_img[64];
} clscan_sel_bufs;

/* Checks that no buffer of b changed. */
static void clscan_sel_untouched(clscan_test_dev *d, const clscan_sel_bufs *b, const char *what)
{
    unsigned char got[CLSCAN_SEL_ELEMS * 4];
    const struct { cl_mem mem; const void *img; size_t len; const char *name; } all[4] = {
        {b->src, b->src_img, sizeof b->src_img, "src"},
        {b->dst, b->dst_img, sizeof b->dst_img, "dst"},
        {b->flags, b->flags_img, sizeof b->flags_img, "flags"},
        {b->count, b->count_img, sizeof b->count_img, "count"}};
    ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
    for (int k = 0; k < 4; k++) {
        clscan_test_read(d, all[k].mem, all[k].len, got);
        ck_assert_msg(!memcmp(got, all[k].img, all[k].len), "%s: %s: %s written by a failing call",
                      d->name, what, all[k].name);
    }
}

/* 1 if text mentions one of the '|'-separated words (in any case). */
static int clscan_sel_mentions(const char *text, const char *words)
{
    char word[64];
    for (const char *w = words; *w; w += strcspn(w, "|") + (w[strcspn(w, "|")] == '|')) {
        snprintf(word, sizeof word, "%.*s", (int)strcspn(w, "|"), w);
        if (clscan_test_name_matches(text, word))
            return 1;
    }
    return 0;
}

/* Makes call c for each kind in `kinds` (a bit mask) and checks: the exact status,
 * *event untouched, a last error that mentions one of `words` ('|'-separated, any
 * case), no buffer changed. */
static void clscan_sel_expect_error(clscan_test_dev *d, const clscan_sel_bufs *b,
                                    clscan_sel_call c, unsigned kinds, clscan_status want,
                                    const char *word, const char *what)
{
    static char sentinel_obj;
    cl_event const sentinel = (cl_event)(void *)&sentinel_obj;
    for (int kind = 0; kind < CLSCAN_VERIFY_KIND_COUNT; kind++) {
        if (!(kinds >> kind & 1))
            continue;
        cl_event ev = sentinel;
        c.kind = (clscan_verify_kind)kind;
        clscan_status st = clscan_sel_invoke(&c, &ev);
        const char *err = clscan_context_last_error(c.ctx);
        ck_assert_msg(st == want, "%s: %s: %s: got %s, want %s (%s)", d->name,
                      clscan_verify_kind_name(c.kind), what, clscan_status_string(st),
                      clscan_status_string(want), err);
        ck_assert_msg(ev == sentinel, "%s: %s: %s: *event was changed by a failing call",
                      d->name, clscan_verify_kind_name(c.kind), what);
        ck_assert_msg(clscan_sel_mentions(err, word),
                      "%s: %s: %s: the last error does not mention \"%s\": \"%s\"", d->name,
                      clscan_verify_kind_name(c.kind), what, word, err);
        clscan_sel_untouched(d, b, what);
    }
}

#define CLSCAN_SEL_ALL_KINDS 0xfu
#define CLSCAN_SEL_PRED_KINDS (1u << CLSCAN_VERIFY_SELECT_IF | 1u << CLSCAN_VERIFY_PARTITION_IF)
#define CLSCAN_SEL_FLAGGED (1u << CLSCAN_VERIFY_SELECT_FLAGGED)

START_TEST(test_invalid_arguments)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_sel_bufs b;
        for (int i = 0; i < CLSCAN_SEL_ELEMS; i++) {
            b.src_img[i] = i + 1;
            b.flags_img[i] = (unsigned char)(i % 3 ? 0 : 1 + i);
        }
        memset(b.dst_img, CLSCAN_SEL_POISON, sizeof b.dst_img);
        memset(b.count_img, CLSCAN_SEL_POISON, sizeof b.count_img);
        b.src = clscan_test_buffer(d, sizeof b.src_img, b.src_img);
        b.dst = clscan_test_buffer(d, sizeof b.dst_img, b.dst_img);
        b.flags = clscan_test_buffer(d, sizeof b.flags_img, b.flags_img);
        b.count = clscan_test_buffer(d, sizeof b.count_img, b.count_img);
        cl_mem count4 = clscan_test_buffer(d, 4, b.count_img);
        cl_mem flags_short = clscan_test_buffer(d, CLSCAN_SEL_ELEMS - 1, b.flags_img);
        const clscan_sel_call ok = {CLSCAN_VERIFY_SELECT_IF, d->ctx, d->queue, b.src, 0, b.flags,
                                    0, b.dst, 0, b.count, CLSCAN_SEL_ELEMS, CLSCAN_INT32,
                                    "(x & 1) == 0", 0, NULL};
        const unsigned all = CLSCAN_SEL_ALL_KINDS, pred = CLSCAN_SEL_PRED_KINDS;
        const clscan_status BAD = CLSCAN_ERROR_INVALID_ARGUMENT;
        clscan_sel_call c;

        c = ok, c.ctx = NULL;
        clscan_sel_expect_error(d, &b, c, all, BAD, "context", "NULL context");
        c = ok, c.queue = NULL;
        clscan_sel_expect_error(d, &b, c, all, BAD, "queue", "NULL queue");
        c = ok, c.src = NULL;
        clscan_sel_expect_error(d, &b, c, all, BAD, "src", "NULL src");
        c = ok, c.dst = NULL;
        clscan_sel_expect_error(d, &b, c, all, BAD, "dst", "NULL dst");
        c = ok, c.count = NULL;
        clscan_sel_expect_error(d, &b, c, all, BAD, "count", "NULL count");
        c = ok, c.flags = NULL;
        clscan_sel_expect_error(d, &b, c, CLSCAN_SEL_FLAGGED, BAD, "flags", "NULL flags");
        c = ok, c.predicate = NULL;
        clscan_sel_expect_error(d, &b, c, pred, BAD, "predicate", "NULL predicate");
        c = ok, c.predicate = "";
        clscan_sel_expect_error(d, &b, c, pred, BAD, "predicate", "empty predicate");
        c = ok, c.predicate = "x +* 2";
        clscan_sel_expect_error(d, &b, c, pred, CLSCAN_ERROR_BUILD_FAILED, "predicate",
                                "a predicate that does not compile");
        c = ok, c.predicate = "y > 0";
        clscan_sel_expect_error(d, &b, c, pred, CLSCAN_ERROR_BUILD_FAILED, "predicate",
                                "a predicate naming an unknown variable");
        c = ok, c.count = count4;
        clscan_sel_expect_error(d, &b, c, all, BAD, "count", "a count buffer of 4 bytes");
        c = ok, c.flags = flags_short;
        clscan_sel_expect_error(d, &b, c, CLSCAN_SEL_FLAGGED, BAD, "flags",
                                "a flags buffer one byte short");
        c = ok, c.flags_offset = 1;
        clscan_sel_expect_error(d, &b, c, CLSCAN_SEL_FLAGGED, BAD, "flags",
                                "flags_offset + n past the flags buffer");
        c = ok, c.dst_offset = 1;
        clscan_sel_expect_error(d, &b, c, all, BAD, "dst", "dst_offset + n past CL_MEM_SIZE");
        c = ok, c.src_offset = 1;
        clscan_sel_expect_error(d, &b, c, all, BAD, "src", "src_offset + n past CL_MEM_SIZE");
        c = ok, c.n = CLSCAN_SEL_ELEMS + 1;
        clscan_sel_expect_error(d, &b, c, all, BAD, "src|dst|flags", "n past CL_MEM_SIZE");
        c = ok, c.type = CLSCAN_INT64, c.n = CLSCAN_SEL_ELEMS / 2 + 1;
        clscan_sel_expect_error(d, &b, c, all, BAD, "src|dst",
                                "int64 range past CL_MEM_SIZE (bytes, not elements)");
        c = ok, c.dst_offset = SIZE_MAX - 2, c.n = 4;
        clscan_sel_expect_error(d, &b, c, all, BAD, "dst", "dst_offset + n overflows SIZE_MAX");
        c = ok, c.flags_offset = SIZE_MAX - 2, c.n = 4;
        clscan_sel_expect_error(d, &b, c, CLSCAN_SEL_FLAGGED, BAD, "flags",
                                "flags_offset + n overflows SIZE_MAX");
        c = ok, c.type = (clscan_type)17;
        clscan_sel_expect_error(d, &b, c, all, BAD, "type", "type 17");
        c = ok, c.type = (clscan_type)-1;
        clscan_sel_expect_error(d, &b, c, all, BAD, "type", "type -1");
        c = ok, c.num_wait = 1, c.wait = NULL;
        clscan_sel_expect_error(d, &b, c, all, BAD, "wait|event", "1 event with a NULL wait list");
        /* Overlaps inside one buffer, other than exactly in place. */
        c = ok, c.src = b.dst, c.src_offset = 0, c.dst_offset = 3, c.n = 32;
        clscan_sel_expect_error(d, &b, c, all, BAD, "src", "src overlapping dst (dst later)");
        c = ok, c.src = b.dst, c.src_offset = 3, c.dst_offset = 0, c.n = 32;
        clscan_sel_expect_error(d, &b, c, all, BAD, "dst", "src overlapping dst (dst earlier)");
        c = ok, c.count = b.dst, c.dst_offset = 1, c.n = 32;
        clscan_sel_expect_error(d, &b, c, all, BAD, "count",
                                "count's 8 bytes overlapping dst's first element");
        c = ok, c.count = b.dst, c.dst_offset = 0, c.n = 1;
        clscan_sel_expect_error(d, &b, c, all, BAD, "count", "count at dst's byte 0");
        c = ok, c.count = b.src, c.src_offset = 1, c.n = 32;
        clscan_sel_expect_error(d, &b, c, all, BAD, "count", "count overlapping src");
        c = ok, c.flags = b.dst, c.flags_offset = 100, c.dst_offset = 0, c.n = 32;
        clscan_sel_expect_error(d, &b, c, CLSCAN_SEL_FLAGGED, BAD, "flags",
                                "flags inside dst's bytes");
        if (!d->fp64) {
            c = ok, c.type = CLSCAN_DOUBLE, c.n = CLSCAN_SEL_ELEMS / 2;
            clscan_sel_expect_error(d, &b, c, all, CLSCAN_ERROR_UNSUPPORTED, "fp64|double",
                                    "DOUBLE on a device without fp64");
        }

        /* Controls: what the refused calls stood next to works. count in dst's buffer just
         * before dst; flags in src's buffer after src (little-endian int bytes: 33 0 0 0
         * 34 0 0 0 ...); the largest valid ranges. */
        cl_event ev = NULL;
        c = ok, c.count = b.dst, c.dst_offset = 2, c.n = CLSCAN_SEL_ELEMS - 2;
        ck_assert_int_eq(clscan_sel_invoke(&c, &ev), CLSCAN_SUCCESS);
        clscan_test_wait(ev, "count before dst in one buffer");
        clReleaseEvent(ev);
        cl_int got[CLSCAN_SEL_ELEMS];
        clscan_test_read(d, b.dst, sizeof got, got);
        cl_ulong kept;
        memcpy(&kept, got, sizeof kept);
        ck_assert_uint_eq(kept, (CLSCAN_SEL_ELEMS - 2) / 2);
        for (int i = 0; i < (CLSCAN_SEL_ELEMS - 2) / 2; i++)
            ck_assert_int_eq(got[2 + i], 2 * (i + 1));
        for (int i = 2 + (CLSCAN_SEL_ELEMS - 2) / 2; i < CLSCAN_SEL_ELEMS; i++)
            ck_assert_int_eq(got[i], (cl_int)0xA5A5A5A5u);
        cl_bool little = CL_FALSE;
        clGetDeviceInfo(d->dev, CL_DEVICE_ENDIAN_LITTLE, sizeof little, &little, NULL);
        if (little) {
            c = ok, c.kind = CLSCAN_VERIFY_SELECT_FLAGGED, c.flags = b.src, c.flags_offset = 128,
            c.n = 32;
            ck_assert_int_eq(clscan_sel_invoke(&c, &ev), CLSCAN_SUCCESS);
            clscan_test_wait(ev, "flags after src in one buffer");
            clReleaseEvent(ev);
            ck_assert_uint_eq(clscan_sel_count(d, b.count), 8);
            clscan_test_read(d, b.dst, sizeof got, got);
            for (int i = 0; i < 8; i++)
                ck_assert_int_eq(got[i], 1 + 4 * i);
        }
        c = ok, c.kind = CLSCAN_VERIFY_UNIQUE, c.src_offset = 10, c.dst_offset = 3,
        c.n = CLSCAN_SEL_ELEMS - 10;
        ck_assert_int_eq(clscan_sel_invoke(&c, NULL), CLSCAN_SUCCESS); /* no event asked for */
        ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
        ck_assert_uint_eq(clscan_sel_count(d, b.count), CLSCAN_SEL_ELEMS - 10);
        clscan_test_read(d, b.dst, sizeof got, got);
        for (int i = 0; i < CLSCAN_SEL_ELEMS - 10; i++)
            ck_assert_int_eq(got[3 + i], 11 + i);
        clReleaseMemObject(b.src);
        clReleaseMemObject(b.dst);
        clReleaseMemObject(b.flags);
        clReleaseMemObject(b.count);
        clReleaseMemObject(count4);
        clReleaseMemObject(flags_short);
    }
}
END_TEST

/* ------------------------------------------------------------ n == 0 -------- */

/* n == 0 writes a count of 0 (over poison), touches no dst element, and returns an
 * event that completes only after its wait list; without an event asked for, the count
 * is still written. */
START_TEST(test_empty)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned char poison[64], got[64];
        memset(poison, CLSCAN_SEL_POISON, sizeof poison);
        for (int kind = 0; kind < CLSCAN_VERIFY_KIND_COUNT; kind++)
            for (int with_event = 1; with_event >= 0; with_event--) {
                const char *what = clscan_verify_kind_name((clscan_verify_kind)kind);
                cl_int err, exec = CL_QUEUED;
                cl_mem src = clscan_test_buffer(d, 64, poison);
                cl_mem dst = clscan_test_buffer(d, 64, poison);
                cl_mem count = clscan_test_buffer(d, 64, poison);
                cl_mem flags = clscan_test_buffer(d, 64, poison);
                cl_event user = clCreateUserEvent(d->cl_ctx, &err), ev = NULL;
                ck_assert_int_eq(err, CL_SUCCESS);
                clscan_sel_call c = {(clscan_verify_kind)kind, d->ctx, d->queue, src, 2, flags, 3,
                                     dst, 5, count, 0, CLSCAN_UINT64, "x > 0", 1, &user};
                ck_assert_msg(clscan_sel_invoke(&c, with_event ? &ev : NULL) == CLSCAN_SUCCESS,
                              "%s: %s n == 0: %s", d->name, what,
                              clscan_context_last_error(d->ctx));
                clFlush(d->queue);
                if (with_event) {
                    ck_assert_ptr_nonnull(ev);
                    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                                    sizeof exec, &exec, NULL), CL_SUCCESS);
                    ck_assert_msg(exec != CL_COMPLETE, "%s: %s n == 0 completed before its "
                                  "wait list", d->name, what);
                }
                ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
                if (with_event) {
                    clscan_test_wait(ev, "n == 0");
                    clReleaseEvent(ev);
                } else {
                    ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
                }
                clscan_test_read(d, count, 64, got);
                cl_ulong n;
                memcpy(&n, got, 8);
                ck_assert_msg(n == 0, "%s: %s n == 0 (event %d): count 0x%llx", d->name, what,
                              with_event, (unsigned long long)n);
                ck_assert_msg(!memcmp(got + 8, poison, 56), "%s: %s n == 0: count bytes past 8 "
                              "written", d->name, what);
                clscan_test_read(d, dst, 64, got);
                ck_assert_msg(!memcmp(got, poison, 64), "%s: %s n == 0 wrote dst", d->name, what);
                clReleaseEvent(user);
                clReleaseMemObject(src);
                clReleaseMemObject(dst);
                clReleaseMemObject(count);
                clReleaseMemObject(flags);
            }
    }
}
END_TEST

/* ------------------------------------------------------------ predicates ---- */

static int clscan_sel_third_plus_one(clscan_type t, uint64_t x, uint64_t i)
{
    (void)t, (void)x;
    return i % 3 == 1;
}

static int clscan_sel_even_or_fifth(clscan_type t, uint64_t x, uint64_t i)
{
    (void)t;
    return (x & 1) == 0 || i % 5 == 0;
}

static int clscan_sel_positive(clscan_type t, uint64_t x, uint64_t i)
{
    return clscan_sel_pred("x > 0")->host(t, x, i);
}

/* The predicate cache: the same text twice, texts that differ by one character, the
 * same text on types where it means different things (x > 0 on int32 and uint32 bits),
 * the same text for select_if and partition_if, a text over several lines, a text of
 * some 4000 characters; each on its own data against the reference. */
START_TEST(test_predicates)
{
    const uint64_t seed = clscan_test_seed(20261123u);
    static char long_text[4200];
    size_t len = (size_t)snprintf(long_text, sizeof long_text, "(x > 0)");
    while (len + 20 < sizeof long_text)
        len += (size_t)snprintf(long_text + len, sizeof long_text - len, " && (i < %zu)",
                                (size_t)1 << 40);
    const clscan_verify_predicate third = {"i % 3 == 1", 0x3f, 0, clscan_sel_third_plus_one};
    const clscan_verify_predicate lines = {"(x & 1) == 0 ||\n  i % 5 == 0", 0x0f, 0,
                                           clscan_sel_even_or_fifth};
    const clscan_verify_predicate spaced = {"x>0", 0x3f, 0, clscan_sel_positive};
    const clscan_verify_predicate longp = {long_text, 0x3f, 0, clscan_sel_positive};
    const clscan_verify_predicate *mod3 = clscan_sel_pred("i % 3 == 0"),
                                  *pos = clscan_sel_pred("x > 0");
    const struct {
        clscan_verify_kind kind;
        clscan_type type;
        const clscan_verify_predicate *p;
        size_t n;
    } steps[] = {
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, mod3, 3001},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, mod3, 777},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, &third, 3001},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, mod3, 3001},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, pos, 5000},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_UINT32, pos, 5000},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, &spaced, 5000},
        {CLSCAN_VERIFY_PARTITION_IF, CLSCAN_INT32, pos, 5000},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT32, pos, 4999},
        {CLSCAN_VERIFY_PARTITION_IF, CLSCAN_UINT64, &lines, 3333},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_INT64, &longp, 2500},
        {CLSCAN_VERIFY_SELECT_IF, CLSCAN_FLOAT, &longp, 2500}};
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
            clscan_verify_compact_case c = {steps[k].kind, steps[k].type, 0, steps[k].n, 0, 0, 0,
                                            0, clscan_verify_mix(seed, 4000 + k), steps[k].p};
            clscan_verify_compact_layout(&c, (int)(k % CLSCAN_VERIFY_LAYOUT_COUNT));
            char msg[1024];
            clscan_verify_result r =
                clscan_verify_run_compact(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg);
            ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: step %zu: %s %s predicate \"%.60s\" "
                          "n=%zu (seed %" PRIu64 "): %s", d->name, k,
                          clscan_verify_kind_name(c.kind), clscan_type_name(c.type),
                          steps[k].p->text, c.n, seed, msg);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ chains -------- */

/* select_if, then an inclusive scan of dst that waits on its event, with no host round
 * trip between: on the in-order queue and, where the device has one, an out-of-order
 * queue gated on a user event. dst starts as zeros, so the scan's elements past the
 * kept ones all hold the total. */
START_TEST(test_chain)
{
    enum { N = 50021 };
    const uint64_t seed = clscan_test_seed(20261123u);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        cl_command_queue_properties props = 0;
        clGetDeviceInfo(d->dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
        cl_uint *in = malloc(N * sizeof *in), *zeros = calloc(N, sizeof *in);
        cl_uint *got = malloc(N * sizeof *got);
        ck_assert(in && zeros && got);
        clscan_verify_fill(in, N, CLSCAN_UINT32, CLSCAN_OP_ADD, clscan_verify_mix(seed, 5));
        for (int ooo = 0; ooo < 2; ooo++) {
            if (ooo && !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
                fprintf(stderr, "%s: no out-of-order queue: chain on the in-order one only\n",
                        d->name);
                break;
            }
            cl_int err;
            cl_command_queue q = ooo ? clCreateCommandQueue(d->cl_ctx, d->dev,
                                                            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                                            &err)
                                     : d->queue;
            ck_assert_ptr_nonnull(q);
            cl_event user = clCreateUserEvent(d->cl_ctx, &err), ev[3] = {NULL, NULL, NULL};
            cl_mem src = clscan_test_buffer(d, N * sizeof *in, NULL);
            cl_mem dst = clscan_test_buffer(d, N * sizeof *in, zeros);
            cl_mem out = clscan_test_buffer(d, N * sizeof *in, NULL);
            cl_mem count = clscan_test_buffer(d, 8, NULL);
            ck_assert_int_eq(clEnqueueWriteBuffer(q, src, CL_FALSE, 0, N * sizeof *in, in, 1,
                                                  &user, &ev[0]), CL_SUCCESS);
            ck_assert_int_eq(clscan_select_if(d->ctx, q, src, 0, dst, 0, count, N, CLSCAN_UINT32,
                                              "(x & 1) == 0", 1, &ev[0], &ev[1]),
                             CLSCAN_SUCCESS);
            ck_assert_int_eq(clscan_inclusive_scan(d->ctx, q, dst, 0, out, 0, N, CLSCAN_UINT32,
                                                   CLSCAN_OP_ADD, 1, &ev[1], &ev[2]),
                             CLSCAN_SUCCESS);
            clFlush(q);
            ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
            clscan_test_wait(ev[2], "select then scan");
            ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * sizeof *got, got, 0,
                                                 NULL, NULL), CL_SUCCESS);
            cl_ulong kept = 0;
            ck_assert_int_eq(clEnqueueReadBuffer(q, count, CL_TRUE, 0, 8, &kept, 0, NULL, NULL),
                             CL_SUCCESS);
            cl_uint sum = 0;
            size_t k = 0;
            for (size_t i = 0; i < N; i++)
                if ((in[i] & 1) == 0) {
                    sum += in[i];
                    if (got[k] != sum)
                        ck_abort_msg("%s: chain (%s queue): scan[%zu] = %u, want %u", d->name,
                                     ooo ? "out-of-order" : "in-order", k, got[k], sum);
                    k++;
                }
            ck_assert_uint_eq(kept, k);
            for (; k < N; k++)
                if (got[k] != sum)
                    ck_abort_msg("%s: chain: scan[%zu] past the kept = %u, want %u", d->name, k,
                                 got[k], sum);
            for (int e = 0; e < 3; e++)
                clReleaseEvent(ev[e]);
            clReleaseEvent(user);
            clReleaseMemObject(src);
            clReleaseMemObject(dst);
            clReleaseMemObject(out);
            clReleaseMemObject(count);
            if (ooo)
                clReleaseCommandQueue(q);
        }
        free(in);
        free(zeros);
        free(got);
    }
}
END_TEST

/* ------------------------------------------------------------ suite --------- */

static Suite *clscan_sel_suite(void)
{
    Suite *s = suite_create("select");
    TCase *host = tcase_create("reference");
    tcase_add_test(host, test_reference);
    tcase_add_test(host, test_patterns);
    suite_add_tcase(s, host);

    TCase *dev = tcase_create("device");
    tcase_add_checked_fixture(dev, clscan_test_setup, clscan_test_teardown);
    tcase_set_timeout(dev, 850);
    tcase_add_loop_test(dev, test_matrix, 0, CLSCAN_TYPE_COUNT);
    tcase_add_test(dev, test_hand_made);
    tcase_add_test(dev, test_invalid_arguments);
    tcase_add_test(dev, test_empty);
    tcase_add_test(dev, test_predicates);
    tcase_add_test(dev, test_chain);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    return clscan_test_run(clscan_sel_suite());
}
