/* test_general.c - Check suite for clscan_scan (general scans): custom operators on the
 * library's types and on user structs (a non-commutative 2x2 matrix product, a
 * (sum, count) pair), input transforms, segments by flags and by keys, each against a
 * serial host reference on random inputs (seed printed) at edge sizes, with offsets and
 * in place, guard bands around dst; bit-for-bit reproducibility of a float operator; and
 * every argument error with its exact status and message. */
#include "clscan_internal.h"
#include "verify_general.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the device ---- */

/* The device under test: the first device of the first platform whose name contains
 * $CLSCAN_TEST_PLATFORM (any platform when unset). Opened in each forked test. */
static cl_device_id gen_dev;
static cl_context gen_cl;
static cl_command_queue gen_queue;
static clscan_context *gen_ctx;
static int gen_fp64;

static void gen_setup(void)
{
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[16];
    cl_uint count = 0;
    if (clGetPlatformIDs(16, plats, &count) != CL_SUCCESS) count = 0;
    gen_cl = NULL;
    for (cl_uint p = 0; p < count && p < 16 && !gen_cl; ++p) {
        char name[256] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (want && !strstr(name, want)) continue;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &gen_dev, NULL) != CL_SUCCESS)
            continue;
        cl_int err;
        gen_cl = clCreateContext(NULL, 1, &gen_dev, NULL, NULL, &err);
        ck_assert_msg(gen_cl != NULL, "clCreateContext: %s", clscan_status_string(err));
        fprintf(stderr, "platform %s\n", name);
    }
    ck_assert_msg(gen_cl != NULL, "no OpenCL device found: these tests need one");
    cl_int err;
    gen_queue = clCreateCommandQueue(gen_cl, gen_dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clscan_status s = clscan_context_create(gen_cl, gen_dev, &gen_ctx);
    ck_assert_msg(s == CLSCAN_SUCCESS, "clscan_context_create: %s: %s", clscan_status_string(s),
                  clscan_context_last_error(NULL));
    gen_fp64 = clscan_verify_device_has_fp64(gen_dev);
}

static void gen_teardown(void)
{
    clscan_context_release(gen_ctx);
    clReleaseCommandQueue(gen_queue);
    clReleaseContext(gen_cl);
}

static uint64_t gen_seed(void)
{
    const char *s = getenv("CLSCAN_TEST_SEED");
    const uint64_t seed = s && *s ? strtoull(s, NULL, 0) : 20261124u;
    fprintf(stderr, "seed %" PRIu64 " (set CLSCAN_TEST_SEED to change it)\n", seed);
    return seed;
}

static cl_mem gen_buffer(size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(gen_cl, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 1, (void *)(uintptr_t)init, &err);
    ck_assert_msg(m != NULL, "clCreateBuffer(%zu): %s", bytes, clscan_status_string(err));
    return m;
}

/* ------------------------------------------------------- the test cases ---- */

/* ---------------------------------------------------------------- tests ---- */

static const size_t gen_sizes[] = {0,   1,   2,   3,    31,   64,   127,   128,   129,
                                   255, 256, 257, 1000, 4099, 8192, 65537, 200003};

START_TEST(test_cases)
{
    const clscan_verify_gen_case c = clscan_verify_gen_case_get(_i);
    if (!gen_fp64 && c.desc.type == CLSCAN_DOUBLE) return;
    /* $CLSCAN_TEST_SKIP_CASE: one case number not to run, for the one shape Oclgrind 21.10
     * cannot create the kernel of (docs/IMPLEMENTATION-ISSUES.md). */
    const char *skip = getenv("CLSCAN_TEST_SKIP_CASE");
    if (skip && *skip && atoi(skip) == _i) {
        fprintf(stderr, "case %d skipped (CLSCAN_TEST_SKIP_CASE)\n", _i);
        return;
    }
    const uint64_t seed = clscan_verify_mix(gen_seed(), (uint64_t)_i);
    fprintf(stderr, "case %d: %s\n", _i, c.name);
    /* $CLSCAN_TEST_MAX_SIZE caps the sizes (for runs under Oclgrind). */
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t cap = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : SIZE_MAX;
    for (size_t k = 0; k < sizeof gen_sizes / sizeof gen_sizes[0] && gen_sizes[k] <= cap; ++k)
        for (int inclusive = 0; inclusive < 2; ++inclusive)
            for (int layout = 0; layout < (c.in_size == c.out_size ? 2 : 1); ++layout)
            {
                char msg[1024];
                const clscan_verify_result r = clscan_verify_run_general(
                    gen_ctx, gen_cl, gen_queue, &c, gen_sizes[k], inclusive, layout, seed, msg,
                    sizeof msg);
                ck_assert_msg(r == CLSCAN_VERIFY_PASS, "%s: %s", c.name, msg);
            }
}
END_TEST

/* A float operator whose result depends on the order of combination (a sum of random
 * floats): two runs give the same bits. */
START_TEST(test_reproducible)
{
    clscan_scan_desc d = {0};
    d.type = CLSCAN_FLOAT;
    d.combine = "a + b";
    d.identity = "0.0f";
    d.segments = CLSCAN_SEGMENTS_FLAGS;
    const char *cap_text = getenv("CLSCAN_TEST_MAX_SIZE");
    const size_t n = cap_text && *cap_text ? (size_t)strtoull(cap_text, NULL, 0) : 300007;
    clscan_verify_rng rng = {gen_seed()};
    float *in = malloc(n * 4), *a = malloc(n * 4), *b = malloc(n * 4);
    unsigned char *flags = calloc(n, 1);
    ck_assert(in && a && b && flags);
    clscan_verify_gen_fill_float(in, n, &rng);
    for (size_t i = 0; i < n; ++i) flags[i] = clscan_verify_gen_below(&rng, 5000) == 0;
    cl_mem src = gen_buffer(n * 4, in), seg = gen_buffer(n, flags), dst = gen_buffer(n * 4, NULL);
    for (int run = 0; run < 2; ++run) {
        ck_assert_int_eq(clscan_scan(gen_ctx, gen_queue, &d, 1, src, 0, seg, 0, dst, 0, n, 0,
                                     NULL, NULL),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(gen_queue, dst, CL_TRUE, 0, n * 4, run ? b : a, 0,
                                             NULL, NULL),
                         CL_SUCCESS);
    }
    ck_assert_msg(memcmp(a, b, n * 4) == 0, "two runs of a float sum differ in their bits");
    clReleaseMemObject(src);
    clReleaseMemObject(seg);
    clReleaseMemObject(dst);
    free(in);
    free(a);
    free(b);
    free(flags);
}
END_TEST

/* Calls clscan_scan expecting `status` and a message containing `text`. */
static void expect_error(const clscan_scan_desc *d, cl_mem src, size_t src_off, cl_mem seg,
                         cl_mem dst, size_t dst_off, size_t n, clscan_status status,
                         const char *text)
{
    cl_event ev = (cl_event)(uintptr_t)0x1;
    clscan_status s =
        clscan_scan(gen_ctx, gen_queue, d, 0, src, src_off, seg, 0, dst, dst_off, n, 0, NULL, &ev);
    const char *msg = clscan_context_last_error(gen_ctx);
    ck_assert_msg(s == status, "expected %s (%s), got %s: %s", clscan_status_string(status),
                  text, clscan_status_string(s), msg);
    ck_assert_msg(strstr(msg, text) != NULL, "message \"%s\" does not mention \"%s\"", msg, text);
    ck_assert_msg(ev == (cl_event)(uintptr_t)0x1, "a failed call touched *event");
}

START_TEST(test_invalid)
{
    cl_mem a = gen_buffer(4096, NULL), b = gen_buffer(4096, NULL), f = gen_buffer(64, NULL);
    clscan_scan_desc ok = {0};
    ok.type = CLSCAN_INT32;
    ok.combine = "a + b";
    ok.identity = "0";
    clscan_scan_desc d;

    expect_error(NULL, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc is NULL");
    ck_assert_int_eq(clscan_scan(NULL, gen_queue, &ok, 0, a, 0, NULL, 0, b, 0, 10, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clscan_scan(gen_ctx, NULL, &ok, 0, a, 0, NULL, 0, b, 0, 10, 0, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    expect_error(&ok, NULL, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "src is NULL");
    expect_error(&ok, a, 0, NULL, NULL, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "dst is NULL");
    expect_error(&ok, a, 1000, NULL, b, 0, 100, CLSCAN_ERROR_INVALID_ARGUMENT, "src: elements");
    expect_error(&ok, a, 0, NULL, b, 0, SIZE_MAX, CLSCAN_ERROR_INVALID_ARGUMENT, "overflows");
    expect_error(&ok, a, 0, NULL, a, 4, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "overlap");

    d = ok;
    d.identity = NULL;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "desc->combine is given without desc->identity");
    d = ok;
    d.combine = " \n";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc->combine is empty");
    d = ok;
    d.type = (clscan_type)17;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc->type 17");
    d = ok;
    d.combine = d.identity = NULL;
    d.type = CLSCAN_FLOAT;
    d.op = CLSCAN_OP_XOR;
    d.transform = "x";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_UNSUPPORTED, "xor");
    d = ok;
    d.type_name = "mat2u";
    d.type_size = 6;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "multiple of 4");
    d.type_size = 16;
    d.type_name = "a_type_name_that_goes_on_and_on_far_past_the_sixty_four_characters_allowed";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "longer than 64 characters");
    d.type_name = "mat2u";
    d.combine = d.identity = NULL;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "needs desc->combine");
    d = ok;
    d.transform = "x";
    d.input_type_name = "mystruct";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "input_type_size");
    d = ok;
    d.input_type_name = "float";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "without desc->transform");
    d = ok;
    d.segments = (clscan_segments)5;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc->segments 5");
    d.segments = CLSCAN_SEGMENTS_KEYS;
    d.key_type = (clscan_type)-1;
    expect_error(&d, a, 0, f, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "desc->key_type -1");
    d.segments = CLSCAN_SEGMENTS_FLAGS;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "segments is NULL");
    expect_error(&d, a, 0, f, b, 0, 100, CLSCAN_ERROR_INVALID_ARGUMENT, "segments: elements");
    expect_error(&d, a, 0, b, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT, "overlap");
    expect_error(&ok, a, 0, f, b, 0, 10, CLSCAN_ERROR_INVALID_ARGUMENT,
                 "desc->segments is CLSCAN_SEGMENTS_NONE");
    if (!gen_fp64) {
        d = ok;
        d.type = CLSCAN_DOUBLE;
        expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_UNSUPPORTED, "fp64");
    }
    /* Texts that do not compile, and a host size that is not the device's. */
    d = ok;
    d.combine = "a +* b";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED, "--- build log ---");
    /* The compiler's log names the text the error is in (#line "combine"), or quotes it
     * (Oclgrind's ignores #line). */
    const char *log = strstr(clscan_context_last_error(gen_ctx), "--- build log ---");
    ck_assert_msg(log && (strstr(log, "combine") || strstr(log, "a +* b")),
                  "the build log names neither combine nor its text: %s",
                  clscan_context_last_error(gen_ctx));
    d = ok;
    d.transform = "undefined_function(x)";
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED, "undefined_function");
    d = clscan_verify_gen_case_get(1).desc;
    d.type_size = 32;
    expect_error(&d, a, 0, NULL, b, 0, 10, CLSCAN_ERROR_BUILD_FAILED,
                 "clscan_type_size_differs_from_device_sizeof");

    /* Nothing was enqueued by any of them: an empty call after them still works, and a
     * good call after a failed build does too. */
    cl_event ev;
    ck_assert_int_eq(clscan_scan(gen_ctx, gen_queue, &ok, 1, a, 0, NULL, 0, b, 0, 0, 0, NULL, &ev),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(f);
}
END_TEST

static Suite *gen_suite(void)
{
    Suite *s = suite_create("general");
    TCase *dev = tcase_create("device");
    tcase_add_checked_fixture(dev, gen_setup, gen_teardown);
    tcase_set_timeout(dev, 850);
    tcase_add_loop_test(dev, test_cases, 0, CLSCAN_VERIFY_GEN_CASES);
    tcase_add_test(dev, test_reproducible);
    tcase_add_test(dev, test_invalid);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gen_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
