/* test_build_log.c - Check suite for the compiler's build logs of the library's programs
 * (issue 21): every program a representative set of calls builds (scans, reductions,
 * compactions, general scans, reductions by key, run-length encoding, sorts, histograms;
 * both device-wide algorithms) compiles without a warning, each call's result checked
 * against the host reference (seed printed); a caller's text with a warning builds, and
 * its warning is counted as the caller's, not the library's; and a predicate that does
 * not compile gets a message that puts the compiler's lines on the predicate first, with
 * the predicate's own line numbers. Run with CLSCAN_DISK_CACHE=0 (tests/meson.build):
 * a program loaded from the disk cache has no build log. An implementation that keeps no
 * warning in the log of a build that succeeds (rusticl 22.3) is said so on stderr; the
 * warning checks are then void there, the results still checked. */
/* SPDX-License-Identifier: MIT */
#include "test_devices.h"
#include "verify_general.h"
#include "verify_histogram.h"

#include "base/base.h"
#include "clscan_ext.h"

#include <check.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the build-log hook saw (the builds run on the test's thread). */
typedef struct seen_logs {
    unsigned builds;
    unsigned library_warnings, user_warnings;
    char first[2048];      /* the first library warning, with its program */
    char user_first[1024]; /* the first warning on a caller's text */
} seen_logs;

/* Whether a log line mentions a warning: any "warning", in any case, but Clang's summary
 * ("1 warning generated."), which it writes after whichever part held the warning, and
 * the note NVIDIA's compiler (driver 580) writes for every kernel of every program, the
 * simplest one-line kernel included ("Warning: Function k is a kernel, so overriding
 * noinline attribute. ...": docs/IMPLEMENTATION-ISSUES.md), which says nothing about
 * the code. */
static int warns(const char *line, size_t n)
{
    char buf[512];
    const size_t m = n < sizeof buf - 1 ? n : sizeof buf - 1;
    for (size_t i = 0; i < m; i++) buf[i] = (char)tolower((unsigned char)line[i]);
    buf[m] = '\0';
    if (strstr(buf, "(): warning: function ") &&
        strstr(buf, " is a kernel, so overriding noinline attribute. the function may be "
                    "inlined when called."))
        return 0;
    return strstr(buf, "warning") && !strstr(buf, " generated.");
}

/* The first line of text that warns, or NULL; *n its length. */
static const char *warning_line(const char *text, size_t *n)
{
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        const size_t len = e ? (size_t)(e - s) : strlen(s);
        if (warns(s, len)) {
            *n = len;
            return s;
        }
        s += len + (e != NULL);
    }
    return NULL;
}

static void on_build_log(const char *library_lines, const char *user_lines, const char *program,
                         void *user)
{
    seen_logs *seen = user;
    seen->builds++;
    size_t n;
    const char *w = warning_line(library_lines, &n);
    if (w && seen->library_warnings++ == 0)
        snprintf(seen->first, sizeof seen->first, "%.*s\n  in %s\n  (library lines:\n%.1000s)",
                 (int)n, w, program, library_lines);
    if (w) fprintf(stderr, "library warning: %.*s\n  in %s\n", (int)n, w, program);
    const char *u = warning_line(user_lines, &n);
    if (u && seen->user_warnings++ == 0)
        snprintf(seen->user_first, sizeof seen->user_first, "%.*s (in %s)", (int)n, u, program);
}

/* Whether d's implementation keeps a compiler warning in the log of a build that
 * succeeds (PoCL does; rusticl 22.3 leaves that log empty): a program with a warning of
 * Clang's own, built here without the library. */
static int logs_warnings(const clscan_test_dev *d)
{
    const char *src = "__kernel void k(__global int *p) { p[0] = (p[1] & 1) == 1 && 2; }\n";
    cl_int err;
    cl_program prog = clCreateProgramWithSource(d->cl_ctx, 1, &src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clBuildProgram(prog, 1, &d->dev, NULL, NULL, NULL), CL_SUCCESS);
    size_t len = 0;
    ck_assert_int_eq(clGetProgramBuildInfo(prog, d->dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len),
                     CL_SUCCESS);
    char *log = calloc(len + 1, 1);
    ck_assert(log != NULL);
    ck_assert_int_eq(clGetProgramBuildInfo(prog, d->dev, CL_PROGRAM_BUILD_LOG, len, log, NULL),
                     CL_SUCCESS);
    size_t n;
    const int seen = warning_line(log, &n) != NULL;
    free(log);
    clReleaseProgram(prog);
    if (!seen)
        fprintf(stderr, "%s: a build that succeeds leaves no warning in its log here: the "
                "warning checks below cannot see any on this implementation\n", d->name);
    return seen;
}

/* Counts one case's result: a failure fails the test at the end (with the first). */
static void count(clscan_test_tally *t, const clscan_test_dev *d, clscan_verify_result r,
                  const char *what, const char *msg)
{
    if (r == CLSCAN_VERIFY_PASS) {
        t->pass++;
    } else if (r == CLSCAN_VERIFY_SKIP) {
        t->skip++;
    } else {
        char line[1400];
        snprintf(line, sizeof line, "%s: %s", what, msg);
        clscan_test_tally_fail(t, d, line);
    }
}

/* Element types every call runs with: one of 4 and one of 8 bytes, signed and unsigned,
 * and both float types (the kernels' code differs by size, signedness and float). */
static const clscan_type types[] = {CLSCAN_INT32, CLSCAN_UINT64, CLSCAN_FLOAT, CLSCAN_DOUBLE};
enum { NTYPES = sizeof types / sizeof types[0] };
/* 3000 elements: past one tile of the default shapes on the CPU implementations. */
enum { N = 3000 };

/* Doubles that are multiples of 1/8 in [-1000, 1000) (no NaN, no negative zero: the
 * host's max below and the device's fmax agree on every pair), and their max. */
static void fill_double_eighths(void *dst, size_t n, clscan_verify_rng *rng)
{
    for (size_t i = 0; i < n; ++i)
        ((double *)dst)[i] = (double)((int64_t)(clscan_verify_rng_next(rng) % 16000u) - 8000) / 8.0;
}
static void op_max_double(void *r, const void *a, const void *b)
{
    double x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    const double m = x > y ? x : y;
    memcpy(r, &m, sizeof m);
}

/* The calls whose programs depend on the device-wide algorithm. */
static void algorithm_calls(clscan_test_dev *d, uint64_t seed, clscan_test_tally *t)
{
    char msg[1024], what[256];
    for (int k = 0; k < NTYPES; k++) {
        const clscan_type ty = types[k];
        /* Scans: every operator for the integer types, add/mul/min/max for floats (the
         * bitwise ones are refused); inclusive and exclusive share a program. */
        for (int op = 0; op < CLSCAN_OP_COUNT; op++) {
            if (clscan_verify_expect_unsupported(ty, (clscan_op)op)) continue;
            const clscan_verify_case c = {ty, (clscan_op)op, op & 1, N, 3, 17, 0,
                                          clscan_verify_mix(seed, 0x100u + (unsigned)(k * 8 + op))};
            snprintf(what, sizeof what, "scan %s %s", clscan_type_name(ty),
                     clscan_op_name((clscan_op)op));
            count(t, d, clscan_verify_run_case(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg),
                  what, msg);
            if (op == CLSCAN_OP_ADD) {
                snprintf(what, sizeof what, "reduce %s add", clscan_type_name(ty));
                count(t, d,
                      clscan_verify_run_reduce(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg),
                      what, msg);
            }
        }
        /* Compactions: each kind, with the first predicate of the short matrix. */
        for (int kind = 0; kind < CLSCAN_VERIFY_KIND_COUNT; kind++) {
            int pats[16];
            if (!clscan_verify_compact_patterns((clscan_verify_kind)kind, ty, 1, pats, 16))
                continue;
            clscan_verify_compact_case c = {(clscan_verify_kind)kind, ty, pats[0], N, 0, 0, 0,
                                            0, 0, NULL};
            clscan_verify_compact_layout(&c, 1);
            c.seed = clscan_verify_mix(seed, 0x200u + (unsigned)(k * 8 + kind));
            snprintf(what, sizeof what, "%s %s", clscan_verify_kind_name(c.kind),
                     clscan_type_name(ty));
            count(t, d,
                  clscan_verify_run_compact(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg),
                  what, msg);
        }
        /* Run-length encoding (a general scan with the library's own texts), and reduce
         * by key of ones by the elements as keys (keys of each type; on CPUs the
         * segmented vector path loads eight keys at a time). */
        for (int by_key = 0; by_key < 2; by_key++) {
            snprintf(what, sizeof what, "run-length encode %s%s", clscan_type_name(ty),
                     by_key ? " by reduce by key" : "");
            const int mode = by_key ? CLSCAN_VERIFY_RLE_BY_KEY
                                    : k & 1 ? CLSCAN_VERIFY_RLE_NONTRIVIAL : 0;
            const uint64_t s = clscan_verify_mix(seed, 0x300u + (unsigned)(k * 2 + by_key));
            count(t, d,
                  clscan_verify_run_rle(d->ctx, d->cl_ctx, d->queue, ty, CLSCAN_UINT32, mode, N,
                                        s, msg, sizeof msg),
                  what, msg);
        }
    }
    /* A double max segmented by flags: eight doubles a vector on the CPUs' segmented
     * vector path, their fmax in halves (a case the table below has not). */
    if (clscan_verify_device_has_fp64(d->dev)) {
        clscan_verify_gen_case c = {.name = "double max, segmented by flags",
                                    .desc = {.type = CLSCAN_DOUBLE, .op = CLSCAN_OP_MAX,
                                             .segments = CLSCAN_SEGMENTS_FLAGS},
                                    .in_size = 8, .out_size = 8, .fill = fill_double_eighths,
                                    .op = op_max_double};
        const double lowest = -INFINITY;
        memcpy(c.identity, &lowest, sizeof lowest);
        count(t, d,
              clscan_verify_run_general(d->ctx, d->cl_ctx, d->queue, &c, N, 1, 0,
                                        clscan_verify_mix(seed, 0x380u), msg, sizeof msg),
              c.name, msg);
    }
    /* Every general scan case, its reduction and, with segments, its reduction by key. */
    for (int g = 0; g < CLSCAN_VERIFY_GEN_CASES; g++) {
        const clscan_verify_gen_case c = clscan_verify_gen_case_get(g);
        const uint64_t s = clscan_verify_mix(seed, 0x400u + (unsigned)g);
        snprintf(what, sizeof what, "general %d (%s)", g, c.name);
        count(t, d,
              clscan_verify_run_general(d->ctx, d->cl_ctx, d->queue, &c, N, g & 1, 0, s, msg,
                                        sizeof msg),
              what, msg);
        snprintf(what, sizeof what, "general %d (%s) reduce", g, c.name);
        count(t, d,
              clscan_verify_run_general_reduce(d->ctx, d->cl_ctx, d->queue, &c, N, s, msg,
                                               sizeof msg),
              what, msg);
        if (c.desc.segments != CLSCAN_SEGMENTS_NONE) {
            snprintf(what, sizeof what, "general %d (%s) by key", g, c.name);
            count(t, d,
                  clscan_verify_run_general_by_key(d->ctx, d->cl_ctx, d->queue, &c, N, 1, s,
                                                   msg, sizeof msg),
                  what, msg);
        }
    }
}

/* Sorts and histograms (their programs do not depend on the device-wide algorithm). */
static void other_calls(clscan_test_dev *d, uint64_t seed, clscan_test_tally *t)
{
    char msg[1024], what[256];
    for (int k = 0; k < NTYPES; k++) {
        const clscan_type ty = types[k];
        for (int kind = 0; kind < CLSCAN_VERIFY_SORT_KIND_COUNT; kind++) {
            /* Pairs with values of 4 and 8 bytes, in turn. */
            clscan_verify_sort_case c = {(clscan_verify_sort_kind)kind, ty,
                                         k & 1 ? CLSCAN_UINT32 : CLSCAN_DOUBLE,
                                         CLSCAN_VERIFY_KEYS_SPECIAL, N, 0, 0, 0, 0, 0,
                                         clscan_verify_mix(seed, 0x500u + (unsigned)(k * 2 + kind))};
            clscan_verify_sort_layout(&c, 1);
            snprintf(what, sizeof what, "%s %s", clscan_verify_sort_kind_name(c.kind),
                     clscan_type_name(ty));
            count(t, d, clscan_verify_run_sort(d->ctx, d->cl_ctx, d->queue, &c, msg, sizeof msg),
                  what, msg);
        }
        /* Even bins and levels; 256 bins (local counters) and 40000 (global ones). */
        for (int levels = 0; levels < 2; levels++)
            for (int big = 0; big < 2; big++) {
                const clscan_verify_hist_case c = {
                    ty, big ? CLSCAN_UINT64 : CLSCAN_UINT32, levels, 0, big ? 40000 : 256, N,
                    3, 2, clscan_verify_mix(seed, 0x600u + (unsigned)(k * 4 + levels * 2 + big))};
                snprintf(what, sizeof what, "histogram %s %s %zu bins", clscan_type_name(ty),
                         levels ? "levels" : "even", c.num_bins);
                count(t, d,
                      clscan_verify_run_histogram(d->ctx, d->cl_ctx, d->queue, &c, msg,
                                                  sizeof msg),
                      what, msg);
            }
    }
}

/* Every program those calls build compiles without a warning on each device. The texts
 * the calls pass (predicates, general scan cases) have none either, so a warning on a
 * caller's text fails too: it would be in a text the library writes itself (the output
 * stage of a reduction by key or run-length encoding) or in the test's. */
START_TEST(library_builds_without_warnings)
{
    const uint64_t seed = clscan_test_seed(0x6275696c64ull);
    for (int i = 0; i < clscan_test_ndevs; i++) {
        clscan_test_dev *d = &clscan_test_devs[i];
        seen_logs seen = {0};
        clscan_test_tally t = {0};
        logs_warnings(d);
        clscan__build_log_hook(on_build_log, &seen);
        static const clscan_algorithm algos[] = {CLSCAN_ALGORITHM_MULTI_LEVEL,
                                                 CLSCAN_ALGORITHM_SINGLE_PASS};
        for (int a = 0; a < 2; a++) {
            const clscan_status s = clscan_ext_context_set_algorithm(d->ctx, algos[a]);
            if (s == CLSCAN_ERROR_UNSUPPORTED) {
                fprintf(stderr, "%s: %s: unsupported here\n", d->name,
                        clscan_ext_algorithm_name(algos[a]));
                continue;
            }
            ck_assert_msg(s == CLSCAN_SUCCESS, "%s: set algorithm %s: %s", d->name,
                          clscan_ext_algorithm_name(algos[a]), clscan_context_last_error(d->ctx));
            algorithm_calls(d, seed, &t);
        }
        clscan_ext_context_set_algorithm(d->ctx, CLSCAN_ALGORITHM_DEFAULT);
        other_calls(d, seed, &t);
        clscan__build_log_hook(NULL, NULL);
        fprintf(stderr, "%s: %u programs built from source, %u cases passed, %u failed, %u "
                "skipped; warnings: %u in the library's lines, %u in the callers' texts\n",
                d->name, seen.builds, t.pass, t.fail, t.skip, seen.library_warnings,
                seen.user_warnings);
        ck_assert_msg(t.fail == 0, "%s: %u cases failed; first: %s", d->name, t.fail, t.first);
        /* Some 100 programs; far fewer means they came from somewhere without a log. */
        ck_assert_msg(seen.builds >= 40,
                      "%s: only %u programs built from source: is the disk cache on "
                      "(CLSCAN_DISK_CACHE=0)?", d->name, seen.builds);
        ck_assert_msg(seen.library_warnings == 0,
                      "%s: %u builds warned in the library's code; first: %s", d->name,
                      seen.library_warnings, seen.first);
        ck_assert_msg(seen.user_warnings == 0, "%s: %u builds warned on a text; first: %s",
                      d->name, seen.user_warnings, seen.user_first);
    }
}
END_TEST

/* A predicate with a warning of its own builds and runs (the warning is the caller's
 * business); the hook counts the warning on the caller's text, none on the library's. */
START_TEST(user_warning_is_the_callers)
{
    const uint64_t seed = clscan_test_seed(0x75736572ull);
    /* `&& 2`: Clang warns of a logical operator with a constant operand. */
    for (int i = 0; i < clscan_test_ndevs; i++) {
        clscan_test_dev *d = &clscan_test_devs[i];
        seen_logs seen = {0};
        clscan__build_log_hook(on_build_log, &seen);
        cl_int in[64], got[64];
        for (int k = 0; k < 64; k++) in[k] = (cl_int)(clscan_verify_mix(seed, (uint64_t)k) % 100);
        cl_mem src = clscan_test_buffer(d, sizeof in, in);
        cl_mem dst = clscan_test_buffer(d, sizeof got, NULL);
        const cl_ulong zero = 0;
        cl_mem cnt = clscan_test_buffer(d, 8, &zero);
        cl_event ev = NULL;
        const clscan_status s = clscan_select_if(d->ctx, d->queue, src, 0, dst, 0, cnt, 64,
                                                 CLSCAN_INT32, "(x & 1) == 1 && 2", 0, NULL, &ev);
        clscan__build_log_hook(NULL, NULL);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: select_if: %s", d->name,
                      clscan_context_last_error(d->ctx));
        clscan_test_wait_release(ev, "select_if");
        cl_ulong kept = 0;
        clscan_test_read(d, cnt, 8, &kept);
        clscan_test_read(d, dst, sizeof got, got);
        size_t want = 0;
        for (int k = 0; k < 64; k++)
            if ((in[k] & 1) == 1) {
                ck_assert_msg(got[want] == in[k], "%s: dst[%zu] %d, want %d (seed %" PRIu64 ")",
                              d->name, want, got[want], in[k], seed);
                want++;
            }
        ck_assert_msg(kept == want, "%s: kept %llu, want %zu (seed %" PRIu64 ")", d->name,
                      (unsigned long long)kept, want, seed);
        fprintf(stderr, "%s: %u builds; warnings: %u library, %u caller's (%s)\n", d->name,
                seen.builds, seen.library_warnings, seen.user_warnings, seen.user_first);
        ck_assert_msg(seen.builds >= 1, "%s: nothing built from source", d->name);
        ck_assert_msg(seen.library_warnings == 0, "%s: a warning in the library's lines: %s",
                      d->name, seen.first);
        /* Oclgrind ignores #line: its log cannot say which lines are the caller's. */
        if (!clscan_test_name_matches(d->name, "oclgrind") && logs_warnings(d))
            ck_assert_msg(seen.user_warnings == 1,
                          "%s: the predicate's warning was not seen as the caller's (%u)",
                          d->name, seen.user_warnings);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(cnt);
    }
}
END_TEST

/* A predicate whose error is on its second line: the message names predicate:2 (the
 * predicate's own numbering) before any line of the library's, and before the #define
 * block the library was compiled with. */
START_TEST(predicate_error_comes_first)
{
    static const char *const bad = "x > 3 &&\n    clscan_no_such_function(x)";
    for (int i = 0; i < clscan_test_ndevs; i++) {
        clscan_test_dev *d = &clscan_test_devs[i];
        cl_mem src = clscan_test_buffer(d, 64 * 4, NULL);
        cl_mem dst = clscan_test_buffer(d, 64 * 4, NULL);
        cl_mem cnt = clscan_test_buffer(d, 8, NULL);
        cl_event ev = NULL;
        const clscan_status s = clscan_select_if(d->ctx, d->queue, src, 0, dst, 0, cnt, 64,
                                                 CLSCAN_INT32, bad, 0, NULL, &ev);
        const char *m = clscan_context_last_error(d->ctx);
        ck_assert_msg(s == CLSCAN_ERROR_BUILD_FAILED, "%s: status %s, want BUILD_FAILED: %s",
                      d->name, clscan_status_string(s), m);
        ck_assert_msg(ev == NULL, "%s: an event from a call that failed", d->name);
        const char *log = strstr(m, "--- build log ---\n");
        const char *defines = strstr(m, "#define CLSCAN_");
        ck_assert_msg(log && defines && defines > log,
                      "%s: the build log does not come before the #define block: %s", d->name, m);
        const char *first = log + strlen("--- build log ---\n");
        const char *nl = strchr(first, '\n');
        const size_t len = nl ? (size_t)(nl - first) : strlen(first);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < 511 ? len : 511), first);
        if (clscan_test_name_matches(d->name, "oclgrind")) {
            /* Oclgrind ignores #line: its log names the function instead. */
            ck_assert_msg(strstr(log, "clscan_no_such_function") != NULL,
                          "%s: the log does not name the error: %s", d->name, m);
        } else {
            ck_assert_msg(strstr(line, "predicate:2:") != NULL &&
                              strstr(line, "clscan_no_such_function") != NULL,
                          "%s: the log's first line is not the predicate's line 2: \"%s\"\n%s",
                          d->name, line, m);
            ck_assert_msg(strstr(m, "predicate:1:") == NULL && strstr(m, "predicate:3:") == NULL,
                          "%s: the log names a line of the predicate other than 2: %s", d->name,
                          m);
        }
        fprintf(stderr, "%s: %.600s\n", d->name, m);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(cnt);
    }
}
END_TEST

/* A predicate that is a statement, not an expression: its error is at predicate:1, and
 * the library's line after it is not counted as the predicate's (it once read
 * "predicate:2:5"). */
START_TEST(statement_predicate_line)
{
    for (int i = 0; i < clscan_test_ndevs; i++) {
        clscan_test_dev *d = &clscan_test_devs[i];
        if (clscan_test_name_matches(d->name, "oclgrind")) continue; /* (no #line there) */
        cl_mem src = clscan_test_buffer(d, 64 * 4, NULL);
        cl_mem dst = clscan_test_buffer(d, 64 * 4, NULL);
        cl_mem cnt = clscan_test_buffer(d, 8, NULL);
        const clscan_status s = clscan_select_if(d->ctx, d->queue, src, 0, dst, 0, cnt, 64,
                                                 CLSCAN_INT32, "return x > 3;", 0, NULL, NULL);
        const char *m = clscan_context_last_error(d->ctx);
        ck_assert_msg(s == CLSCAN_ERROR_BUILD_FAILED, "%s: status %s: %s", d->name,
                      clscan_status_string(s), m);
        const char *first = strstr(m, "--- build log ---\n");
        ck_assert_msg(first && strstr(first, "predicate:1:") != NULL,
                      "%s: no error at predicate:1: %s", d->name, m);
        ck_assert_msg(strstr(m, "predicate:2:") == NULL,
                      "%s: a line 2 of a one-line predicate: %s", d->name, m);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(cnt);
    }
}
END_TEST

static Suite *build_log_suite(void)
{
    Suite *s = suite_create("build_log");
    TCase *tc = tcase_create("build_log");
    tcase_add_checked_fixture(tc, clscan_test_setup, clscan_test_teardown);
    tcase_add_test(tc, predicate_error_comes_first);
    tcase_add_test(tc, statement_predicate_line);
    tcase_add_test(tc, user_warning_is_the_callers);
    tcase_add_test(tc, library_builds_without_warnings);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return clscan_test_run(build_log_suite()); }
