/* test_threads.c - Check suite for concurrent use of one clscan context: eight threads,
 * each with its own command queue (in-order and, where the device has them, out-of-order)
 * or all on one shared queue, making thousands of mixed scans and compactions of every
 * type and of sizes 0 to 100,000, each checked against the host reference of
 * tools/verify.c; and eight threads racing on the first use of the same programs, so that
 * program builds run concurrently.
 *
 * Environment: CLSCAN_TEST_SEED (the master seed, printed), CLSCAN_TEST_PLATFORM (only
 * platforms whose name contains it), and three that make the mixed cases small enough
 * for valgrind: CLSCAN_TEST_THREAD_CALLS (calls per thread in each mixed case, default
 * 200), CLSCAN_TEST_MAX_SIZE (largest n, default 100000) and CLSCAN_TEST_THREAD_TYPES
 * (the element types drawn, as names: "int32,float"; default all six; fewer types mean
 * fewer programs to build). */
/* SPDX-License-Identifier: MIT */
#include "test_devices.h"
#include "verify.h"

#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLSCAN_THR_THREADS = 8 };

/* ------------------------------------------------------------ build counting -- */

/* clBuildProgram goes through this wrap (-Wl,--wrap=clBuildProgram, tests/meson.build):
 * it counts the builds and how many ran at once, to show that the race case raced. */
cl_int __real_clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs,
                             const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                             void *user);
cl_int __wrap_clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs,
                             const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                             void *user);

static atomic_int clscan_thr_builds_running, clscan_thr_builds_most, clscan_thr_builds;

cl_int __wrap_clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs,
                             const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                             void *user)
{
    atomic_fetch_add(&clscan_thr_builds, 1);
    int now = atomic_fetch_add(&clscan_thr_builds_running, 1) + 1;
    int most = atomic_load(&clscan_thr_builds_most);
    while (now > most && !atomic_compare_exchange_weak(&clscan_thr_builds_most, &most, now))
        ;
    cl_int err = __real_clBuildProgram(p, ndev, devs, options, notify, user);
    atomic_fetch_sub(&clscan_thr_builds_running, 1);
    return err;
}

/* ------------------------------------------------------------ devices ------- */

/* The first device of each platform ($CLSCAN_TEST_PLATFORM: only platforms whose name
 * contains it, in any case), with a cl_context. Opened in each forked test, since OpenCL
 * state must not cross a fork; each test makes its own clscan context, so that it builds
 * its programs itself. */
typedef struct clscan_thr_dev {
    cl_device_id dev;
    cl_context cl_ctx;
    int ooo; /* the device has out-of-order queues */
    int shared_queue_broken; /* see clscan_thr_shared_queue_defect */
    char name[256];
} clscan_thr_dev;

enum { CLSCAN_THR_MAX_PLATFORMS = 16 };
static clscan_thr_dev clscan_thr_devs[CLSCAN_THR_MAX_PLATFORMS];
static int clscan_thr_ndevs;

/* Mesa 22.3's rusticl loses the order of commands that several threads enqueue on one
 * in-order queue: a blocking read made after the kernel's event completed returns the
 * buffer as it was before the kernel (wrong data), and the heap gets corrupted ("corrupted
 * size vs. prev_size"). Reproduced without libclscan: 8 threads, one queue, each writing,
 * running a one-line kernel and reading back its own buffers, fail within 200 rounds; with
 * a queue per thread, and on PoCL, they pass. The shared-queue cases skip it, saying so. */
static const char *const clscan_thr_shared_queue_defect =
    "rusticl of Mesa 22 does not keep the order of commands enqueued on one queue from "
    "several threads (reproduced without libclscan); one shared queue is not tested";

static void clscan_thr_setup(void)
{
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[CLSCAN_THR_MAX_PLATFORMS];
    cl_uint count = 0;
    clscan_thr_ndevs = 0;
    if (clGetPlatformIDs(CLSCAN_THR_MAX_PLATFORMS, plats, &count) != CL_SUCCESS)
        count = 0;
    for (cl_uint p = 0; p < count && p < CLSCAN_THR_MAX_PLATFORMS; p++) {
        clscan_thr_dev *d = &clscan_thr_devs[clscan_thr_ndevs];
        char pname[128] = "", dname[120] = "";
        cl_int err;
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if ((want && !clscan_test_name_matches(pname, want)) ||
            clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &d->dev, NULL) != CL_SUCCESS)
            continue;
        clGetDeviceInfo(d->dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
        snprintf(d->name, sizeof d->name, "%s / %s", pname, dname);
        const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                               (cl_context_properties)plats[p], 0};
        d->cl_ctx = clCreateContext(props, 1, &d->dev, NULL, NULL, &err);
        ck_assert_msg(d->cl_ctx != NULL, "%s: clCreateContext: %s", d->name,
                      clscan_status_string(err));
        cl_command_queue_properties qp = 0;
        clGetDeviceInfo(d->dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof qp, &qp, NULL);
        d->ooo = (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
        char driver[64] = "";
        clGetDeviceInfo(d->dev, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
        d->shared_queue_broken = clscan_test_name_matches(pname, "rusticl") && atoi(driver) <= 22;
        clscan_thr_ndevs++;
    }
    ck_assert_msg(clscan_thr_ndevs > 0, "no OpenCL device found%s%s%s: these tests need one",
                  want ? " on a platform matching CLSCAN_TEST_PLATFORM='" : "",
                  want ? want : "", want ? "'" : "");
}

static void clscan_thr_teardown(void)
{
    while (clscan_thr_ndevs > 0)
        clReleaseContext(clscan_thr_devs[--clscan_thr_ndevs].cl_ctx);
}

/* ------------------------------------------------------------ settings ------ */

/* A positive whole number from the environment, or `fallback`. */
static unsigned long clscan_thr_env(const char *name, unsigned long fallback)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return fallback;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    ck_assert_msg(*end == '\0' && v > 0 && *s != '-', "%s=%s: a positive whole number is needed",
                  name, s);
    return v;
}

/* ------------------------------------------------------------ one call ------ */

/* What a call does: the two scans, then the four compactions of clscan_verify_kind. */
enum {
    CLSCAN_THR_EXCLUSIVE,
    CLSCAN_THR_INCLUSIVE,
    CLSCAN_THR_COMPACT, /* + clscan_verify_kind */
    CLSCAN_THR_KINDS = CLSCAN_THR_COMPACT + CLSCAN_VERIFY_KIND_COUNT
};

/* One call, scan or compaction; `scan` is used for the first two kinds, `compact` for
 * the others. */
typedef struct clscan_thr_call {
    int kind;
    clscan_verify_case scan;
    clscan_verify_compact_case compact;
} clscan_thr_call;

static const char *clscan_thr_kind_name(int kind)
{
    return kind == CLSCAN_THR_EXCLUSIVE   ? "exclusive_scan"
           : kind == CLSCAN_THR_INCLUSIVE ? "inclusive_scan"
                                          : clscan_verify_kind_name(
                                                (clscan_verify_kind)(kind - CLSCAN_THR_COMPACT));
}

/* A one-line description of a call, for failure messages. */
static void clscan_thr_describe(const clscan_thr_call *c, char *buf, size_t size)
{
    if (c->kind < CLSCAN_THR_COMPACT) {
        const clscan_verify_case *s = &c->scan;
        snprintf(buf, size, "%s %s %s n=%zu src_offset=%zu dst_offset=%zu%s data seed %" PRIu64,
                 clscan_thr_kind_name(c->kind), clscan_type_name(s->type), clscan_op_name(s->op),
                 s->n, s->src_offset, s->dst_offset, s->in_place ? " in place" : "", s->seed);
    } else {
        const clscan_verify_compact_case *s = &c->compact;
        char pat[128];
        snprintf(buf, size, "%s %s %s n=%zu src_offset=%zu dst_offset=%zu%s data seed %" PRIu64,
                 clscan_thr_kind_name(c->kind), clscan_type_name(s->type),
                 clscan_verify_pattern_name(s, pat, sizeof pat), s->n, s->src_offset,
                 s->dst_offset, s->in_place ? " in place" : "", s->seed);
    }
}

/* Scan operators of the mix: few, since each (type, op) is a program to build; XOR on
 * the float types is a call the library must refuse. */
static const clscan_op clscan_thr_ops[] = {CLSCAN_OP_ADD, CLSCAN_OP_MAX, CLSCAN_OP_XOR};
/* Predicates of the mix (indices in clscan_verify_predicates): x > 0, i % 3 == 0, and the
 * type's own (keep-even or NaN-or-below); each is a program to build per type and kind. */
static int clscan_thr_predicate(clscan_type type, uint64_t r)
{
    static const char *const common[] = {"x > 0", "i % 3 == 0"};
    const char *text = r % 3 < 2 ? common[r % 3]
                       : (type == CLSCAN_FLOAT || type == CLSCAN_DOUBLE) ? "isnan(x) || x < -0.5f"
                                                                        : "(x & 1) == 0";
    for (int k = 0; k < CLSCAN_VERIFY_PREDICATE_COUNT; k++)
        if (!strcmp(clscan_verify_predicates[k].text, text))
            return k;
    return -1; /* the table changed: the call fails, naming the pattern */
}

/* A random size: 0, 1, a few elements, about a tile to a few tiles, or up to max_n. */
static size_t clscan_thr_size(clscan_verify_rng *rng, size_t max_n)
{
    uint64_t r = clscan_verify_rng_next(rng), pick = r % 100, v = r >> 8;
    size_t n = pick < 5    ? 0
               : pick < 10 ? 1
               : pick < 45 ? 2 + v % 299
               : pick < 85 ? 300 + v % 9700
                           : 10000 + v % 90001;
    return n > max_n ? max_n : n;
}

/* The element types of the mixed cases: $CLSCAN_TEST_THREAD_TYPES, else all. Returns
 * how many were written into out. */
static int clscan_thr_types(clscan_type *out)
{
    const char *list = getenv("CLSCAN_TEST_THREAD_TYPES");
    unsigned chosen = list && *list ? 0 : (1u << CLSCAN_TYPE_COUNT) - 1;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int t = 0; t < CLSCAN_TYPE_COUNT; t++)
            if (strlen(clscan_type_name((clscan_type)t)) == len &&
                !strncmp(p, clscan_type_name((clscan_type)t), len))
                found = t;
        ck_assert_msg(found >= 0, "CLSCAN_TEST_THREAD_TYPES=%s: \"%.*s\" is not one of int32, "
                      "uint32, int64, uint64, float, double", list, (int)len, p);
        chosen |= 1u << found;
        p += len + (p[len] == ',');
    }
    int n = 0;
    for (int t = 0; t < CLSCAN_TYPE_COUNT; t++)
        if (chosen >> t & 1)
            out[n++] = (clscan_type)t;
    return n;
}

/* A random call of any kind, one of the ntypes types and any layout. */
static clscan_thr_call clscan_thr_random_call(clscan_verify_rng *rng, size_t max_n,
                                              const clscan_type *types, int ntypes)
{
    clscan_thr_call c;
    memset(&c, 0, sizeof c);
    c.kind = (int)(clscan_verify_rng_next(rng) % CLSCAN_THR_KINDS);
    clscan_type type = types[clscan_verify_rng_next(rng) % (uint64_t)ntypes];
    size_t n = clscan_thr_size(rng, max_n);
    int layout = (int)(clscan_verify_rng_next(rng) % CLSCAN_VERIFY_LAYOUT_COUNT);
    uint64_t seed = clscan_verify_rng_next(rng);
    if (c.kind < CLSCAN_THR_COMPACT) {
        const clscan_verify_layout *l = &clscan_verify_layouts[layout];
        c.scan = (clscan_verify_case){
            type, clscan_thr_ops[clscan_verify_rng_next(rng) % 3], c.kind == CLSCAN_THR_INCLUSIVE,
            n, l->src_offset, l->dst_offset, l->in_place, seed};
        return c;
    }
    clscan_verify_kind kind = (clscan_verify_kind)(c.kind - CLSCAN_THR_COMPACT);
    uint64_t r = clscan_verify_rng_next(rng);
    int pattern = kind == CLSCAN_VERIFY_SELECT_FLAGGED ? (int)(r % CLSCAN_VERIFY_FLAGS_COUNT)
                  : kind == CLSCAN_VERIFY_UNIQUE       ? (int)(r % CLSCAN_VERIFY_DUPS_COUNT)
                                                       : clscan_thr_predicate(type, r);
    c.compact = (clscan_verify_compact_case){kind, type, pattern, n, 0, 0, 0, 0, seed, NULL};
    clscan_verify_compact_layout(&c.compact, layout);
    return c;
}

/* Runs one call on queue q through tools/verify.c's runners (guarded buffers, wait on the
 * call's event, read back, compare with the host reference). */
static clscan_verify_result clscan_thr_run(clscan_context *ctx, cl_context cl_ctx,
                                           cl_command_queue q, const clscan_thr_call *c,
                                           char *msg, size_t size)
{
    if (c->kind < CLSCAN_THR_COMPACT)
        return clscan_verify_run_case(ctx, cl_ctx, q, &c->scan, msg, size);
    return clscan_verify_run_compact(ctx, cl_ctx, q, &c->compact, msg, size);
}

/* ------------------------------------------------------------ workers ------- */

/* One thread's work and what came of it. The thread never calls ck_assert: it records
 * its first failure, and the test's own thread checks after joining. */
typedef struct clscan_thr_job {
    const clscan_thr_dev *d;
    clscan_context *ctx;
    cl_command_queue queue; /* shared, or NULL: the thread makes its own */
    int own_ooo;            /* its own queue is out-of-order */
    int index;
    unsigned long calls;
    size_t max_n;
    clscan_type types[CLSCAN_TYPE_COUNT];
    int ntypes;
    uint64_t seed;
    pthread_barrier_t *start; /* all threads begin together */
    /* Results. */
    unsigned long pass, skip, fail, refused_checked;
    unsigned long by_kind[CLSCAN_THR_KINDS];
    char first[2048];
} clscan_thr_job;

static void clscan_thr_failed(clscan_thr_job *job, const char *fmt, const char *a,
                              const char *b)
{
    if (job->fail++ == 0)
        snprintf(job->first, sizeof job->first, fmt, a, b);
}

/* A refused call (n past the end of small[0], 64 bytes; small[1] is the count): the
 * status, *event left alone, and clscan_context_last_error on this thread naming this
 * thread's own n, whatever the other threads were refused for meanwhile. */
static void clscan_thr_refused_call(clscan_thr_job *job, cl_command_queue q, cl_mem *small,
                                    unsigned long k)
{
    static char sentinel_obj;
    cl_event const sentinel = (cl_event)(void *)&sentinel_obj;
    cl_event ev = sentinel;
    const size_t n = 100000 + 1000 * (size_t)job->index + k % 1000;
    clscan_status st =
        k % 2 ? clscan_inclusive_scan(job->ctx, q, small[0], 0, small[0], 0, n, CLSCAN_UINT32,
                                      CLSCAN_OP_ADD, 0, NULL, &ev)
              : clscan_unique(job->ctx, q, small[0], 0, small[0], 0, small[1], n, CLSCAN_INT32,
                              0, NULL, &ev);
    char want[32], what[64];
    snprintf(want, sizeof want, "%zu", n);
    snprintf(what, sizeof what, "thread %d: a refused call with n=%zu", job->index, n);
    if (st != CLSCAN_ERROR_INVALID_ARGUMENT)
        clscan_thr_failed(job, "%s returned %s, not CLSCAN_ERROR_INVALID_ARGUMENT", what,
                          clscan_status_string(st));
    else if (ev != sentinel)
        clscan_thr_failed(job, "%s%s changed *event", what, "");
    else if (!strstr(clscan_context_last_error(job->ctx), want))
        clscan_thr_failed(job, "%s: this thread's last error is \"%s\"", what,
                          clscan_context_last_error(job->ctx));
    else
        job->refused_checked++;
}

static void *clscan_thr_worker(void *arg)
{
    clscan_thr_job *job = arg;
    cl_int err;
    cl_command_queue q = job->queue;
    char msg[1024], desc[512];
    if (!q) {
        q = clCreateCommandQueue(job->d->cl_ctx, job->d->dev,
                                 job->own_ooo ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
        if (!q) {
            clscan_thr_failed(job, "clCreateCommandQueue: %s%s", clscan_status_string(err), "");
            pthread_barrier_wait(job->start);
            return NULL;
        }
    }
    cl_mem small[2] = {clCreateBuffer(job->d->cl_ctx, CL_MEM_READ_WRITE, 64, NULL, &err),
                       clCreateBuffer(job->d->cl_ctx, CL_MEM_READ_WRITE, 64, NULL, &err)};
    clscan_verify_rng rng = {job->seed};
    pthread_barrier_wait(job->start);
    for (unsigned long k = 0; k < job->calls && small[0] && small[1]; k++) {
        if (k % 25 == 3) {
            clscan_thr_refused_call(job, q, small, k);
            continue;
        }
        clscan_thr_call c = clscan_thr_random_call(&rng, job->max_n, job->types, job->ntypes);
        job->by_kind[c.kind]++;
        clscan_verify_result r = clscan_thr_run(job->ctx, job->d->cl_ctx, q, &c, msg, sizeof msg);
        if (r == CLSCAN_VERIFY_PASS) {
            job->pass++;
        } else if (r == CLSCAN_VERIFY_SKIP) {
            job->skip++;
        } else {
            char where[64];
            snprintf(where, sizeof where, "thread %d, call %lu", job->index, k);
            clscan_thr_describe(&c, desc, sizeof desc);
            if (job->fail++ == 0)
                snprintf(job->first, sizeof job->first, "%s (%s queue): %s: %s", where,
                         job->queue ? "shared" : job->own_ooo ? "own out-of-order" : "own in-order",
                         desc, msg);
        }
    }
    if (!small[0] || !small[1])
        clscan_thr_failed(job, "clCreateBuffer: %s%s", clscan_status_string(err), "");
    for (int b = 0; b < 2; b++)
        if (small[b])
            clReleaseMemObject(small[b]);
    if (!job->queue)
        clReleaseCommandQueue(q);
    return NULL;
}

/* Runs CLSCAN_THR_THREADS workers on one new clscan context of d, with `shared` as their
 * queue (NULL: each makes its own, odd-numbered ones out-of-order where the device has
 * them), and checks what they report. */
static void clscan_thr_run_workers(const clscan_thr_dev *d, cl_command_queue shared,
                                   uint64_t seed, uint64_t salt, const char *label)
{
    const unsigned long calls = clscan_thr_env("CLSCAN_TEST_THREAD_CALLS", 200);
    const size_t max_n = clscan_thr_env("CLSCAN_TEST_MAX_SIZE", 100000);
    clscan_type types[CLSCAN_TYPE_COUNT];
    const int ntypes = clscan_thr_types(types);
    clscan_context *ctx = NULL;
    clscan_status st = clscan_context_create(d->cl_ctx, d->dev, &ctx);
    ck_assert_msg(st == CLSCAN_SUCCESS, "%s: clscan_context_create: %s: %s", d->name,
                  clscan_status_string(st), clscan_context_last_error(NULL));
    pthread_barrier_t start;
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, CLSCAN_THR_THREADS), 0);
    static clscan_thr_job jobs[CLSCAN_THR_THREADS];
    pthread_t tid[CLSCAN_THR_THREADS];
    atomic_store(&clscan_thr_builds, 0);
    for (int i = 0; i < CLSCAN_THR_THREADS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].d = d;
        jobs[i].ctx = ctx;
        jobs[i].queue = shared;
        jobs[i].own_ooo = !shared && d->ooo && i % 2 == 1;
        jobs[i].index = i;
        jobs[i].calls = calls;
        jobs[i].max_n = max_n;
        memcpy(jobs[i].types, types, sizeof types);
        jobs[i].ntypes = ntypes;
        jobs[i].seed = clscan_verify_mix(clscan_verify_mix(seed, salt), (uint64_t)i);
        jobs[i].start = &start;
        ck_assert_int_eq(pthread_create(&tid[i], NULL, clscan_thr_worker, &jobs[i]), 0);
    }
    for (int i = 0; i < CLSCAN_THR_THREADS; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&start);
    clscan_context_release(ctx);

    unsigned long pass = 0, skip = 0, refused = 0, by_kind[CLSCAN_THR_KINDS] = {0};
    for (int i = 0; i < CLSCAN_THR_THREADS; i++) {
        pass += jobs[i].pass;
        skip += jobs[i].skip;
        refused += jobs[i].refused_checked;
        for (int k = 0; k < CLSCAN_THR_KINDS; k++)
            by_kind[k] += jobs[i].by_kind[k];
    }
    fprintf(stderr, "%s: %s: %d threads, %lu calls checked (%lu passed, %lu skipped for want of "
            "fp64, %lu refused as they should be), %d program builds; by kind:",
            d->name, label, CLSCAN_THR_THREADS, pass + skip + refused, pass, skip, refused,
            atomic_load(&clscan_thr_builds));
    for (int k = 0; k < CLSCAN_THR_KINDS; k++)
        fprintf(stderr, " %s %lu", clscan_thr_kind_name(k), by_kind[k]);
    fputc('\n', stderr);
    for (int i = 0; i < CLSCAN_THR_THREADS; i++) {
        ck_assert_msg(jobs[i].fail == 0, "%s: %s (seed %" PRIu64 "): %lu failed calls; the "
                      "first: %s", d->name, label, seed, jobs[i].fail, jobs[i].first);
        ck_assert_uint_eq(jobs[i].pass + jobs[i].skip + jobs[i].refused_checked, calls);
    }
    /* Skips are DOUBLE on a device without fp64, never anything else. */
    if (clscan_verify_device_has_fp64(d->dev))
        ck_assert_msg(skip == 0, "%s: %lu calls skipped on a device with fp64", d->name, skip);
    ck_assert_msg(pass > 0, "%s: %s: nothing passed", d->name, label);
}

/* ------------------------------------------------------------ tests --------- */

/* Eight threads on one context, each with its own queue (the odd-numbered ones
 * out-of-order where the device has such queues), random calls of every kind. */
START_TEST(test_own_queues)
{
    const uint64_t seed = clscan_test_seed(20261125u);
    for (int di = 0; di < clscan_thr_ndevs; di++) {
        const clscan_thr_dev *d = &clscan_thr_devs[di];
        if (!d->ooo)
            fprintf(stderr, "%s: no out-of-order queues: in-order ones only\n", d->name);
        clscan_thr_run_workers(d, NULL, seed, 1, "own queues");
    }
}
END_TEST

/* Eight threads on one context and one queue: in-order (_i == 0), out-of-order (1). */
START_TEST(test_shared_queue)
{
    const uint64_t seed = clscan_test_seed(20261125u);
    for (int di = 0; di < clscan_thr_ndevs; di++) {
        const clscan_thr_dev *d = &clscan_thr_devs[di];
        if (_i == 1 && !d->ooo) {
            fprintf(stderr, "%s: no out-of-order queues: shared out-of-order queue not tested\n",
                    d->name);
            continue;
        }
        if (d->shared_queue_broken) {
            fprintf(stderr, "%s: NOT TESTED: %s\n", d->name, clscan_thr_shared_queue_defect);
            continue;
        }
        cl_int err;
        cl_command_queue q = clCreateCommandQueue(
            d->cl_ctx, d->dev, _i ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
        ck_assert_msg(q != NULL, "%s: clCreateCommandQueue: %s", d->name,
                      clscan_status_string(err));
        clscan_thr_run_workers(d, q, seed, 2 + (uint64_t)_i,
                               _i ? "one shared out-of-order queue" : "one shared in-order queue");
        clReleaseCommandQueue(q);
    }
}
END_TEST

/* The race on first use: in each round every thread waits at a barrier, then makes a call
 * whose program no thread has built yet in this context; in most rounds all threads make
 * the same (type, op) or (kind, type, predicate) call, on their own data and sizes, so
 * they all find the program missing and build it at once (the library keeps one and
 * drops the others); in the last round, half build one program and half another. */
typedef struct clscan_thr_race {
    const clscan_thr_dev *d;
    clscan_context *ctx;
    int index;
    uint64_t seed;
    pthread_barrier_t *barrier;
    unsigned long pass, skip, fail;
    char first[2048];
} clscan_thr_race;

enum { CLSCAN_THR_ROUNDS = 6 };

/* Round r's call for thread i. */
static clscan_thr_call clscan_thr_race_call(int r, int i, uint64_t seed)
{
    clscan_thr_call c;
    memset(&c, 0, sizeof c);
    const size_t n = 1000 + 997 * (size_t)i;
    switch (r) {
    case 0: /* every thread: the same exclusive scan program */
    case 1: /* the same inclusive scan (other type and op) */
        c.kind = r == 0 ? CLSCAN_THR_EXCLUSIVE : CLSCAN_THR_INCLUSIVE;
        c.scan = (clscan_verify_case){r == 0 ? CLSCAN_INT32 : CLSCAN_FLOAT,
                                      r == 0 ? CLSCAN_OP_ADD : CLSCAN_OP_MAX, r == 1, n, 0, 0, 0,
                                      seed};
        return c;
    case 2: /* select_if with one predicate */
        c.kind = CLSCAN_THR_COMPACT + CLSCAN_VERIFY_SELECT_IF;
        c.compact = (clscan_verify_compact_case){CLSCAN_VERIFY_SELECT_IF, CLSCAN_UINT64,
                                                 clscan_thr_predicate(CLSCAN_UINT64, 0), n, 0, 0,
                                                 0, 0, seed, NULL};
        return c;
    case 3: /* unique */
        c.kind = CLSCAN_THR_COMPACT + CLSCAN_VERIFY_UNIQUE;
        c.compact = (clscan_verify_compact_case){CLSCAN_VERIFY_UNIQUE, CLSCAN_INT64,
                                                 CLSCAN_VERIFY_DUPS_RUNS, n, 0, 0, 0, 0, seed,
                                                 NULL};
        return c;
    case 4: /* select_flagged, in place on odd threads */
        c.kind = CLSCAN_THR_COMPACT + CLSCAN_VERIFY_SELECT_FLAGGED;
        c.compact = (clscan_verify_compact_case){CLSCAN_VERIFY_SELECT_FLAGGED, CLSCAN_UINT32,
                                                 CLSCAN_VERIFY_FLAGS_HALF, n, 0, 0, 0, 0, seed,
                                                 NULL};
        clscan_verify_compact_layout(&c.compact, i % 2 ? 2 : 0);
        return c;
    default: /* half: a partition; half: a scan; two programs built at once, each twice */
        if (i % 2) {
            c.kind = CLSCAN_THR_COMPACT + CLSCAN_VERIFY_PARTITION_IF;
            c.compact = (clscan_verify_compact_case){CLSCAN_VERIFY_PARTITION_IF, CLSCAN_INT32,
                                                     clscan_thr_predicate(CLSCAN_INT32, 2), n, 0,
                                                     0, 0, 0, seed, NULL};
        } else {
            c.kind = CLSCAN_THR_EXCLUSIVE;
            c.scan = (clscan_verify_case){CLSCAN_UINT64, CLSCAN_OP_XOR, 0, n, 0, 0, 0, seed};
        }
        return c;
    }
}

static void *clscan_thr_race_worker(void *arg)
{
    clscan_thr_race *job = arg;
    cl_int err;
    char msg[1024], desc[512];
    cl_command_queue q = clCreateCommandQueue(job->d->cl_ctx, job->d->dev, 0, &err);
    for (int r = 0; r < CLSCAN_THR_ROUNDS; r++) {
        pthread_barrier_wait(job->barrier);
        if (!q)
            continue;
        clscan_thr_call c = clscan_thr_race_call(r, job->index, clscan_verify_mix(job->seed, r));
        clscan_verify_result res = clscan_thr_run(job->ctx, job->d->cl_ctx, q, &c, msg,
                                                  sizeof msg);
        if (res == CLSCAN_VERIFY_PASS) {
            job->pass++;
        } else if (res == CLSCAN_VERIFY_SKIP) {
            job->skip++;
        } else if (job->fail++ == 0) {
            clscan_thr_describe(&c, desc, sizeof desc);
            snprintf(job->first, sizeof job->first, "thread %d, round %d: %s: %s", job->index, r,
                     desc, msg);
        }
    }
    if (!q) {
        job->fail++;
        snprintf(job->first, sizeof job->first, "clCreateCommandQueue: %s",
                 clscan_status_string(err));
    } else {
        clReleaseCommandQueue(q);
    }
    return NULL;
}

START_TEST(test_first_use_race)
{
    const uint64_t seed = clscan_test_seed(20261125u);
    for (int di = 0; di < clscan_thr_ndevs; di++) {
        const clscan_thr_dev *d = &clscan_thr_devs[di];
        clscan_context *ctx = NULL;
        clscan_status st = clscan_context_create(d->cl_ctx, d->dev, &ctx);
        ck_assert_msg(st == CLSCAN_SUCCESS, "%s: clscan_context_create: %s: %s", d->name,
                      clscan_status_string(st), clscan_context_last_error(NULL));
        pthread_barrier_t barrier;
        ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, CLSCAN_THR_THREADS), 0);
        static clscan_thr_race jobs[CLSCAN_THR_THREADS];
        pthread_t tid[CLSCAN_THR_THREADS];
        atomic_store(&clscan_thr_builds, 0);
        atomic_store(&clscan_thr_builds_most, 0);
        for (int i = 0; i < CLSCAN_THR_THREADS; i++) {
            jobs[i] = (clscan_thr_race){d, ctx, i, clscan_verify_mix(seed, 100 + (uint64_t)i),
                                        &barrier, 0, 0, 0, ""};
            ck_assert_int_eq(pthread_create(&tid[i], NULL, clscan_thr_race_worker, &jobs[i]), 0);
        }
        for (int i = 0; i < CLSCAN_THR_THREADS; i++)
            pthread_join(tid[i], NULL);
        pthread_barrier_destroy(&barrier);
        clscan_context_release(ctx);
        fprintf(stderr, "%s: first-use race: %d threads x %d rounds, %d program builds, at most "
                "%d at once\n", d->name, CLSCAN_THR_THREADS, CLSCAN_THR_ROUNDS,
                atomic_load(&clscan_thr_builds), atomic_load(&clscan_thr_builds_most));
        for (int i = 0; i < CLSCAN_THR_THREADS; i++) {
            ck_assert_msg(jobs[i].fail == 0, "%s: first-use race (seed %" PRIu64 "): %s",
                          d->name, seed, jobs[i].first);
            ck_assert_uint_eq(jobs[i].pass + jobs[i].skip, CLSCAN_THR_ROUNDS);
        }
        /* Each round needs at least one build of its program (two in the last). */
        ck_assert_int_ge(atomic_load(&clscan_thr_builds), CLSCAN_THR_ROUNDS + 1);
    }
}
END_TEST

/* ------------------------------------------------------------ suite --------- */

static Suite *clscan_thr_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_add_checked_fixture(tc, clscan_thr_setup, clscan_thr_teardown);
    tcase_set_timeout(tc, 880);
    tcase_add_test(tc, test_first_use_race);
    tcase_add_test(tc, test_own_queues);
    tcase_add_loop_test(tc, test_shared_queue, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return clscan_test_run(clscan_thr_suite());
}
