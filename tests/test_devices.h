/* test_devices.h - Shared by the Check suites: the devices under test (the first device
 * of each platform whose name matches $CLSCAN_TEST_PLATFORM), their setup and teardown
 * as a checked fixture, the master seed from $CLSCAN_TEST_SEED, buffer and read helpers,
 * waiting for a call's event, a matrix test's tally, and running a suite. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_TEST_DEVICES_H
#define CLSCAN_TEST_DEVICES_H

#include "verify.h"

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* One device under test: the first of a platform ($CLSCAN_TEST_PLATFORM: only platforms
 * whose name contains it, in any case). Opened in each forked test, since OpenCL state
 * must not cross a fork. */
typedef struct clscan_test_dev {
    cl_device_id dev;
    cl_context cl_ctx;
    cl_command_queue queue; /* in-order */
    clscan_context *ctx;
    int fp64;
    char name[256];
} clscan_test_dev;

enum { CLSCAN_TEST_MAX_PLATFORMS = 16 };
/* The devices clscan_test_setup opened, clscan_test_ndevs of them. */
extern clscan_test_dev clscan_test_devs[CLSCAN_TEST_MAX_PLATFORMS];
extern int clscan_test_ndevs;

/* 1 if `name` contains `part`, ignoring case. */
int clscan_test_name_matches(const char *name, const char *part);

/* Whether a matrix test runs `type`: every type, or those named in $CLSCAN_TEST_TYPES
 * (comma-separated type names; meson's runs of extra settings, whose kernels differ by
 * element size and type only). Prints "<what> <type>: left out" when not. */
int clscan_test_type_wanted(clscan_type type, const char *what);

/* Checked fixture: opens the first device of each matching platform, with a context, an
 * in-order queue and a clscan context, and fails when there is none; teardown releases
 * them. */
void clscan_test_setup(void);
void clscan_test_teardown(void);

/* The master seed: $CLSCAN_TEST_SEED, else `fallback` (each suite has its own); printed
 * to stderr, so that a failure can be replayed. */
uint64_t clscan_test_seed(uint64_t fallback);

/* A buffer of `bytes` on d, a copy of init when it is not NULL. */
cl_mem clscan_test_buffer(clscan_test_dev *d, size_t bytes, const void *init);

/* A blocking read of m's first `bytes` into out, on d's queue. */
void clscan_test_read(clscan_test_dev *d, cl_mem m, size_t bytes, void *out);

/* Waits for a call's event and checks that it completed; `what` names the call. The
 * first keeps the event (the caller may still ask it things), the second releases it. */
void clscan_test_wait(cl_event ev, const char *what);
void clscan_test_wait_release(cl_event ev, const char *what);

/* After a call that had to be refused: its status s must be want, d's last error must
 * contain words, *event must still be sentinel, and the first `bytes` (at most 256) of
 * `check` must equal `before`, read before the call (check NULL: not compared). `what`
 * names the call in messages. */
void clscan_test_refused(clscan_test_dev *d, const char *what, clscan_status s,
                         clscan_status want, const char *words, cl_event ev, cl_event sentinel,
                         cl_mem check, const void *before, size_t bytes);

/* A matrix test's count on one device: cases passed, failed and skipped (double on a
 * device without fp64), and the first failure, which the final check quotes. */
typedef struct clscan_test_tally {
    unsigned pass, fail, skip;
    char first[1500];
} clscan_test_tally;

/* Counts a failed case, described by `line`, and prints it. */
void clscan_test_tally_fail(clscan_test_tally *t, const clscan_test_dev *d, const char *line);

/* Prints "<device>: <what> <type>: counts" and checks that no case failed, that some case
 * ran, and that double was skipped only on a device without fp64. */
void clscan_test_tally_check(const clscan_test_tally *t, const clscan_test_dev *d,
                             const char *what, clscan_type type);

/* Runs every test of s and frees it; main's exit status. */
int clscan_test_run(Suite *s);

#endif
