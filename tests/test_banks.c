/* test_banks.c - Check tests of the local-memory bank probe: the inference on synthetic
 * timing curves (clear patterns, CPU-like and noisy ones, garbage), and the probe itself
 * on the first device of the first platform, including its per-device cache. */
#include "algo/algo.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ----------------------------------------------------------- inference ---- */

/* Relative times at strides 1, 2, 4, ... 128 words. */
#define STRIDES 8

/* Asserts that `times` (count entries) infer `banks` x `width`, or nothing when banks == 0. */
static void expect(const double *times, int count, cl_uint banks, cl_uint width)
{
    cl_uint b = 12345, w = 12345;
    int got = clscan__bank_infer(times, count, &b, &w);
    if (banks == 0) {
        ck_assert_msg(!got, "inferred %u banks x %u B from a curve without a pattern", b, w);
        ck_assert_uint_eq(b, 12345); /* untouched */
        ck_assert_uint_eq(w, 12345);
        return;
    }
    ck_assert_msg(got, "no pattern inferred, expected %u banks x %u B", banks, width);
    ck_assert_uint_eq(b, banks);
    ck_assert_uint_eq(w, width);
}

/* The ideal curve: conflict degree max(1, min(banks, 4 * s / width)), times scale. */
static void model(cl_uint banks, cl_uint width, double scale, double *times, int count)
{
    for (int i = 0; i < count; ++i) {
        double degree = 4.0 * (double)(1u << i) / width;
        if (degree < 1.0) degree = 1.0;
        if (degree > banks) degree = banks;
        times[i] = scale * degree;
    }
}

START_TEST(test_infer_32x4)
{
    double t[STRIDES];
    model(32, 4, 41.7, t, STRIDES);   /* NVIDIA, AMD: 1 2 4 8 16 32 32 32 */
    expect(t, STRIDES, 32, 4);
    expect(t, 7, 32, 4);              /* strides up to 64 only (16 KiB of local memory) */
    expect(t, 6, 0, 0);               /* up to 32: the saturation is never confirmed */
}
END_TEST

START_TEST(test_infer_16x4)
{
    double t[STRIDES];
    model(16, 4, 0.003, t, STRIDES);  /* Intel Gen: 1 2 4 8 16 16 16 16 */
    expect(t, STRIDES, 16, 4);
    expect(t, 6, 16, 4);
    expect(t, 5, 0, 0);
}
END_TEST

START_TEST(test_infer_64x4)
{
    double t[STRIDES];
    model(64, 4, 12.0, t, STRIDES);   /* 1 2 4 ... 64 64 */
    expect(t, STRIDES, 64, 4);
    expect(t, 7, 0, 0);               /* 1 .. 64 still doubling: no saturation seen */
}
END_TEST

START_TEST(test_infer_8byte)
{
    double t[STRIDES];
    model(32, 8, 5.0, t, STRIDES);    /* Kepler 8-byte mode: 1 1 2 4 8 16 32 32 */
    expect(t, STRIDES, 32, 8);
    model(16, 8, 5.0, t, STRIDES);    /* 1 1 2 4 8 16 16 16 */
    expect(t, STRIDES, 16, 8);
}
END_TEST

START_TEST(test_infer_flat)
{
    /* A CPU: local memory is cached ordinary memory, every stride costs the same... */
    const double flat[STRIDES] = {100, 102, 97, 105, 110, 103, 99, 100};
    expect(flat, STRIDES, 0, 0);
    /* ... or a little more once lanes leave a cache line: no doubling. */
    const double cache[STRIDES] = {100, 100, 101, 110, 130, 160, 170, 171};
    expect(cache, STRIDES, 0, 0);
    /* A single jump is not a pattern either. */
    const double jump[STRIDES] = {100, 100, 100, 100, 200, 200, 200, 200};
    expect(jump, STRIDES, 0, 0);
}
END_TEST

START_TEST(test_infer_noisy)
{
    /* 32 x 4 B, each time off by up to about 15%, and a first step that is short of
     * doubling (one warp's latency still shows). */
    const double noisy[STRIDES] = {52.0, 81.0, 170.1, 322.5, 701.0, 1390.0, 1262.0, 1405.5};
    expect(noisy, STRIDES, 32, 4);
    /* 16 x 4 B with a flat tail that wanders within 20%. */
    const double tail[STRIDES] = {10.0, 19.0, 42.0, 77.0, 170.0, 150.0, 185.0, 160.0};
    expect(tail, STRIDES, 16, 4);
}
END_TEST

START_TEST(test_infer_garbage)
{
    const double zigzag[STRIDES] = {1, 3, 0.5, 8, 2, 16, 4, 32};
    expect(zigzag, STRIDES, 0, 0);
    /* Doubles, then falls back after the "saturation". */
    const double falls[STRIDES] = {1, 2, 4, 8, 16, 32, 32, 5};
    expect(falls, STRIDES, 0, 0);
    /* Rises far faster than any conflict can. */
    const double steep[STRIDES] = {1, 10, 100, 1000, 10000, 10000, 10000, 10000};
    expect(steep, STRIDES, 0, 0);
    /* Keeps rising slowly after the doubling. */
    const double creeps[STRIDES] = {1, 2, 4, 8, 16, 32, 44, 60};
    expect(creeps, STRIDES, 0, 0);
    /* Times that cannot be times. */
    const double zero[STRIDES] = {0, 2, 4, 8, 16, 32, 32, 32};
    expect(zero, STRIDES, 0, 0);
    const double negative[STRIDES] = {1, 2, 4, 8, -16, 32, 32, 32};
    expect(negative, STRIDES, 0, 0);
    const double nan[STRIDES] = {1, 2, 4, 8, NAN, 32, 32, 32};
    expect(nan, STRIDES, 0, 0);
    const double inf[STRIDES] = {1, 2, 4, 8, 16, 32, INFINITY, 32};
    expect(inf, STRIDES, 0, 0);
    double t[STRIDES];
    model(32, 4, 1.0, t, STRIDES);
    expect(t, 2, 0, 0);
    expect(t, 0, 0, 0);
    expect(NULL, STRIDES, 0, 0);
}
END_TEST

/* -------------------------------------------------------------- device ---- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static cl_uint context_refs(cl_context c)
{
    cl_uint refs = 0;
    ck_assert_int_eq(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL),
                     CL_SUCCESS);
    return refs;
}

static int is_pow2(cl_uint x)
{
    return x && !(x & (x - 1));
}

START_TEST(test_probe_first_device)
{
    cl_platform_id platform;
    cl_device_id dev;
    ck_assert_int_eq(clGetPlatformIDs(1, &platform, NULL), CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), CL_SUCCESS);
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    size_t max_wg = 0;
    cl_ulong local_mem = 0;
    ck_assert_int_eq(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg,
                                     NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem,
                                     &local_mem, NULL),
                     CL_SUCCESS);
    cl_int err;
    cl_context cl_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);

    cl_uint refs = context_refs(cl_ctx);
    clscan__bank_result a, b;
    memset(&a, 0x5a, sizeof a);
    double t0 = now_ms();
    clscan_status s = clscan__bank_probe(NULL, cl_ctx, dev, max_wg, local_mem, &a);
    double first_ms = now_ms() - t0;
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s", name, clscan_status_string(s),
                  clscan_context_last_error(NULL));
    ck_assert(memchr(a.detail, '\0', sizeof a.detail) != NULL);
    ck_assert_msg(a.detail[0] != '\0', "%s: empty detail", name);
    printf("bank probe on %s (%.1f ms): measured %d, %u banks x %u B\n  %s\n", name, first_ms,
           a.measured, a.banks, a.width, a.detail);
    ck_assert(a.measured == 0 || a.measured == 1);
    /* Everything the probe created is released: the queue, program, kernel and buffer
     * each held a reference to the context (PoCL drops its last ones asynchronously). */
    for (int wait = 0; wait < 200 && context_refs(cl_ctx) != refs; ++wait) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    ck_assert_uint_eq(context_refs(cl_ctx), refs);
    if (a.measured) {
        ck_assert_msg(is_pow2(a.banks) && a.banks >= 4 && a.banks <= 128, "%u banks", a.banks);
        ck_assert_msg(is_pow2(a.width) && a.width >= 4 && a.width <= 32, "%u B", a.width);
        ck_assert(strstr(a.detail, "banks x") != NULL);
    } else {
        ck_assert_uint_eq(a.banks, 0);
        ck_assert_uint_eq(a.width, 0);
    }

    /* The second call is answered from the cache: the same bytes, at once. */
    memset(&b, 0xa5, sizeof b);
    t0 = now_ms();
    s = clscan__bank_probe(NULL, cl_ctx, dev, max_wg, local_mem, &b);
    double second_ms = now_ms() - t0;
    ck_assert_int_eq(s, CLSCAN_SUCCESS);
    ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "cached result differs:\n  %s\n  %s", a.detail,
                  b.detail);
    ck_assert_msg(second_ms < 5.0, "second call took %.3f ms: not cached", second_ms);

    /* Also from another cl_context on the same device. */
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    memset(&b, 0xa5, sizeof b);
    ck_assert_int_eq(clscan__bank_probe(NULL, other, dev, max_wg, local_mem, &b),
                     CLSCAN_SUCCESS);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    clReleaseContext(other);
    clReleaseContext(cl_ctx);
}
END_TEST

START_TEST(test_probe_invalid)
{
    cl_platform_id platform;
    cl_device_id dev;
    ck_assert_int_eq(clGetPlatformIDs(1, &platform, NULL), CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), CL_SUCCESS);
    cl_int err;
    cl_context cl_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clscan__bank_result r;
    ck_assert_int_eq(clscan__bank_probe(NULL, cl_ctx, dev, 256, 65536, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clscan__bank_probe(NULL, NULL, dev, 256, 65536, &r),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clscan__bank_probe(NULL, cl_ctx, NULL, 256, 65536, &r),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(clscan_context_last_error(NULL), "must not be NULL") != NULL);
    clReleaseContext(cl_ctx);
}
END_TEST

static Suite *banks_suite(void)
{
    Suite *s = suite_create("banks");
    TCase *tc = tcase_create("infer");
    tcase_add_test(tc, test_infer_32x4);
    tcase_add_test(tc, test_infer_16x4);
    tcase_add_test(tc, test_infer_64x4);
    tcase_add_test(tc, test_infer_8byte);
    tcase_add_test(tc, test_infer_flat);
    tcase_add_test(tc, test_infer_noisy);
    tcase_add_test(tc, test_infer_garbage);
    suite_add_tcase(s, tc);
    TCase *dev = tcase_create("device");
    tcase_set_timeout(dev, 240);
    tcase_add_test(dev, test_probe_first_device);
    tcase_add_test(dev, test_probe_invalid);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(banks_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
