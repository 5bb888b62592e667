/* test_devices.c - Shared by the Check suites: opening the first device of each matching
 * platform, the master seed, buffers, reads, event waits, matrix tallies and running a
 * suite (see
 * test_devices.h). */
/* SPDX-License-Identifier: MIT */
#include "test_devices.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

clscan_test_dev clscan_test_devs[CLSCAN_TEST_MAX_PLATFORMS];
int clscan_test_ndevs;

int clscan_test_name_matches(const char *name, const char *part)
{
    size_t len = strlen(part);
    for (const char *p = name; strlen(p) >= len; p++) {
        size_t k = 0;
        while (k < len && tolower((unsigned char)p[k]) == tolower((unsigned char)part[k]))
            k++;
        if (k == len)
            return 1;
    }
    return 0;
}

int clscan_test_type_wanted(clscan_type type, const char *what)
{
    const char *list = getenv("CLSCAN_TEST_TYPES");
    if (!list || !*list) return 1;
    const char *name = clscan_type_name(type);
    const size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, len) == 0) return 1;
        p += n + (end != NULL);
    }
    fprintf(stderr, "%s %s: left out (CLSCAN_TEST_TYPES=%s)\n", what, name, list);
    return 0;
}

/* Opens platform p's first device into d; 0 when the platform has none. */
static int clscan_test_open(cl_platform_id p, const char *pname, clscan_test_dev *d)
{
    char dname[200] = "";
    cl_int err;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d->dev, NULL) != CL_SUCCESS)
        return 0;
    clGetDeviceInfo(d->dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    snprintf(d->name, sizeof d->name, "%s / %s", pname, dname);
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
    d->cl_ctx = clCreateContext(props, 1, &d->dev, NULL, NULL, &err);
    ck_assert_msg(d->cl_ctx != NULL, "%s: clCreateContext: %s", d->name,
                  clscan_status_string(err));
    d->queue = clCreateCommandQueue(d->cl_ctx, d->dev, 0, &err);
    ck_assert_msg(d->queue != NULL, "%s: clCreateCommandQueue: %s", d->name,
                  clscan_status_string(err));
    clscan_status st = clscan_context_create(d->cl_ctx, d->dev, &d->ctx);
    ck_assert_msg(st == CLSCAN_SUCCESS, "%s: clscan_context_create: %s: %s", d->name,
                  clscan_status_string(st), clscan_context_last_error(NULL));
    d->fp64 = clscan_verify_device_has_fp64(d->dev);
    return 1;
}

void clscan_test_setup(void)
{
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[CLSCAN_TEST_MAX_PLATFORMS];
    cl_uint count = 0;
    clscan_test_ndevs = 0;
    if (clGetPlatformIDs(CLSCAN_TEST_MAX_PLATFORMS, plats, &count) != CL_SUCCESS)
        count = 0;
    for (cl_uint p = 0; p < count && p < CLSCAN_TEST_MAX_PLATFORMS; p++) {
        char pname[256] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if ((!want || clscan_test_name_matches(pname, want)) &&
            clscan_test_open(plats[p], pname, &clscan_test_devs[clscan_test_ndevs]))
            clscan_test_ndevs++;
    }
    ck_assert_msg(clscan_test_ndevs > 0, "no OpenCL device found%s%s%s: these tests need one",
                  want ? " on a platform matching CLSCAN_TEST_PLATFORM='" : "",
                  want ? want : "", want ? "'" : "");
}

void clscan_test_teardown(void)
{
    while (clscan_test_ndevs > 0) {
        clscan_test_dev *d = &clscan_test_devs[--clscan_test_ndevs];
        clscan_context_release(d->ctx);
        clReleaseCommandQueue(d->queue);
        clReleaseContext(d->cl_ctx);
    }
}

uint64_t clscan_test_seed(uint64_t fallback)
{
    const char *s = getenv("CLSCAN_TEST_SEED");
    uint64_t seed = s && *s ? strtoull(s, NULL, 0) : fallback;
    fprintf(stderr, "seed %" PRIu64 " (set CLSCAN_TEST_SEED to change it)\n", seed);
    return seed;
}

cl_mem clscan_test_buffer(clscan_test_dev *d, size_t bytes, const void *init)
{
    cl_int err;
    cl_mem_flags how = CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0);
    cl_mem m = clCreateBuffer(d->cl_ctx, how, bytes, (void *)(uintptr_t)init, &err);
    ck_assert_msg(m != NULL, "%s: clCreateBuffer(%zu bytes): %s", d->name, bytes,
                  clscan_status_string(err));
    return m;
}

void clscan_test_read(clscan_test_dev *d, cl_mem m, size_t bytes, void *out)
{
    ck_assert_int_eq(clEnqueueReadBuffer(d->queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL),
                     CL_SUCCESS);
}

void clscan_test_wait(cl_event ev, const char *what)
{
    const char *step = "";
    ck_assert_msg(ev != NULL, "%s: no event returned", what);
    cl_int err = clscan_verify_wait(ev, &step);
    ck_assert_msg(err == CL_SUCCESS, "%s: %s: %s", what, step, clscan_status_string(err));
}

void clscan_test_wait_release(cl_event ev, const char *what)
{
    clscan_test_wait(ev, what);
    clReleaseEvent(ev);
}

void clscan_test_refused(clscan_test_dev *d, const char *what, clscan_status s,
                         clscan_status want, const char *words, cl_event ev, cl_event sentinel,
                         cl_mem check, const void *before, size_t bytes)
{
    const char *msg = clscan_context_last_error(d->ctx);
    fprintf(stderr, "  %s: %s: %.300s\n", what, clscan_status_string(s), msg);
    ck_assert_msg(s == want, "%s: %s: returned %s, expected %s (%s)", what, words,
                  clscan_status_string(s), clscan_status_string(want), msg);
    ck_assert_msg(strstr(msg, words) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg,
                  words);
    ck_assert_msg(ev == sentinel, "%s: %s: *event changed", what, words);
    ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
    if (!check) return;
    unsigned char after[256];
    ck_assert(bytes <= sizeof after);
    clscan_test_read(d, check, bytes, after);
    ck_assert_msg(memcmp(before, after, bytes) == 0, "%s: %s: a buffer was written", what, words);
}

void clscan_test_tally_fail(clscan_test_tally *t, const clscan_test_dev *d, const char *line)
{
    if (!t->fail++)
        snprintf(t->first, sizeof t->first, "%s", line);
    fprintf(stderr, "FAIL %s: %s\n", d->name, line);
}

void clscan_test_tally_check(const clscan_test_tally *t, const clscan_test_dev *d,
                             const char *what, clscan_type type)
{
    fprintf(stderr, "%s: %s %s: %u passed, %u failed, %u skipped%s\n", d->name, what,
            clscan_type_name(type), t->pass, t->fail, t->skip,
            t->skip ? " (skipped: device has no fp64)" : "");
    ck_assert_msg(t->fail == 0, "%s: %u failed; first: %s", d->name, t->fail, t->first);
    ck_assert_msg(t->pass > 0 || (t->skip > 0 && type == CLSCAN_DOUBLE && !d->fp64),
                  "%s: no case ran", d->name);
    if (type == CLSCAN_DOUBLE && d->fp64)
        ck_assert_msg(t->skip == 0, "%s: double skipped on a device with fp64", d->name);
}

int clscan_test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
