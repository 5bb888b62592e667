/* banks.c - the local-memory bank probe: times cl/clscan_banks.cl at strides of 1, 2,
 * 4, ... words, infers the bank count and width from where the times start to double
 * and where they stop, and caches the result (or the failure) per device for the process;
 * a result is also kept between processes as a record in a probe store (the disk cache,
 * handed in by the runtime layer), loaded instead of measuring where its key matches. */
/* SPDX-License-Identifier: MIT */
#include "device/device.h"

#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    BANK_LANES = 64,             /* distinct addresses per stride (cl/clscan_banks.cl) */
    BANK_CHAINS = 8,             /* independent load chains per work-item */
    BANK_MAX_LOG_STRIDE = 7,     /* strides up to 128 words, where local memory allows */
    BANK_MIN_LOG_STRIDE = 4,     /* with less than stride 16 nothing can be concluded */
    BANK_LOCAL_MARGIN = 1024,    /* local bytes left to the implementation */
    BANK_MAX_WG = 512,           /* enough warps to make the loads throughput-bound */
    BANK_REPEATS = 3,            /* rounds over all strides; the minimum counts */
    BANK_START_ITERATIONS = 16,  /* first calibration run: cheap on CPUs and simulators */
    BANK_MAX_ITERATIONS = 16384  /* under Mesa llvmpipe's 65535 loop iterations */
};

/* Stride-1 time the calibration grows the iteration count to: device time by event
 * profiling; more by wall clock, which includes the launch. */
#define BANK_TARGET_PROFILED_US 50.0
#define BANK_TARGET_WALL_US 500.0
/* A profiled launch shorter than this is not a real measurement. */
#define BANK_MIN_PROFILED_US 0.2
/* A round over all strides taking longer than this (a simulator) ends the repeats. */
#define BANK_ROUND_BUDGET_US 500000.0

/* Stride 1 with half the work-items must take at most this fraction of the time with
 * all of them: a time that does not drop is the latency floor, not the banks' throughput,
 * and at that floor stride 2 costs what stride 1 does without 8-byte banks (an H100 with
 * 64 or 128 work-items gave "16 banks x 8 B" so, at ratios 1.00-1.04; 256 gave 0.65-0.81). */
#define BANK_HALF_MAX 0.9

/* Inference tolerances: two times within a factor BANK_SAME are "the same"; a step of
 * the conflict curve must grow the time by BANK_RISE_MIN..BANK_RISE_MAX (ideally 2),
 * and the rise as a whole by at least BANK_RISE_MEAN per step. */
#define BANK_SAME 1.25
#define BANK_RISE_MIN 1.4
#define BANK_RISE_MAX 3.0
#define BANK_RISE_MEAN 1.6

/* ---------------------------------------------------------------- inference -- */

static int same_time(double a, double ref)
{
    return a <= ref * BANK_SAME && a * BANK_SAME >= ref;
}

/* With B banks of w bytes, 4-byte reads at stride s words and L lanes per access, a
 * read touches 4 * s * L / w distinct bank words, so its conflict degree is
 * max(1, min(L, 4 * s * L / (B * w))) in the general case and, for L >= B,
 * max(1, min(B, 4 * s / w)): flat while a stride still fits in one bank word (s <= w/4),
 * doubling per step after, and flat again from the stride that puts every lane in one
 * bank. Hence width = 4 B x the last stride of the flat start, and banks = 2^(doubling
 * steps) = saturation stride / (width / 4). */
bool clscan__bank_infer(const double *times, int count, cl_uint *banks, cl_uint *width)
{
    if (!times || count < 3 || count > 31) return 0;
    for (int i = 0; i < count; ++i)
        if (!(times[i] > 0.0) || !isfinite(times[i])) return 0;
    int knee = 0;
    while (knee + 1 < count && same_time(times[knee + 1], times[0])) ++knee;
    int sat = knee;
    while (sat + 1 < count) {
        double step = times[sat + 1] / times[sat];
        if (step < BANK_RISE_MIN || step > BANK_RISE_MAX) break;
        ++sat;
    }
    int steps = sat - knee;
    /* At least a 4x rise, then at least one stride that confirms the saturation. */
    if (steps < 2 || sat + 1 >= count || knee > 3) return 0;
    if (times[sat] / times[knee] < pow(BANK_RISE_MEAN, steps)) return 0;
    for (int i = sat + 1; i < count; ++i)
        if (!same_time(times[i], times[sat])) return 0;
    *width = 4u << knee;
    *banks = 1u << steps;
    return 1;
}

/* ------------------------------------------------------------------- timing -- */

typedef struct bank_probe {
    cl_command_queue queue;
    cl_kernel kernel;
    size_t wg;
    int wall;                   /* 1: wall-clock timing (no usable profiling times) */
    const char *wall_reason;
    cl_int err;                 /* the failed call's error */
    const char *what;           /* the failed call */
} bank_probe;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* One launch at `stride`; *us receives its time. The first call (first != 0) also
 * decides between event profiling and the wall clock. Returns 0 on an OpenCL error
 * (p->err, p->what) or when profiling times stop making sense after the first call. */
static int time_once(bank_probe *p, size_t wg, cl_uint stride, cl_uint iterations, int first,
                     double *us)
{
    cl_event ev = NULL;
    /* Arguments 1 and 2; out (0) and key (3) stay as probe() set them. */
    clscan__kernel_args a = clscan__args_begin(p->kernel, 1);
    CLSCAN__ARG(a, stride);
    CLSCAN__ARG(a, iterations);
    if (a.err != CL_SUCCESS) {
        p->err = a.err;
        p->what = "clSetKernelArg";
        return 0;
    }
    double t0 = now_us();
    cl_int err = clEnqueueNDRangeKernel(p->queue, p->kernel, 1, NULL, &wg, &wg, 0, NULL, &ev);
    if (err != CL_SUCCESS) {
        p->err = err;
        p->what = "clEnqueueNDRangeKernel";
        return 0;
    }
    err = clFinish(p->queue);
    double wall = now_us() - t0;
    if (err != CL_SUCCESS) {
        clReleaseEvent(ev);
        p->err = err;
        p->what = "clFinish";
        return 0;
    }
    cl_ulong start = 0, end = 0;
    cl_int perr = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                          NULL);
    if (perr == CL_SUCCESS)
        perr = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    clReleaseEvent(ev);
    double profiled = end > start ? (double)(end - start) * 1e-3 : 0.0;
    /* Usable: available, longer than any real launch (Mesa's rusticl stamps 1 ns apart)
     * and not longer than the wall clock saw. */
    const char *bad = perr != CL_SUCCESS ? "no profiling times"
                      : profiled < BANK_MIN_PROFILED_US ? "profiling times implausibly short"
                      : profiled > wall * 1.5 + 100.0 ? "profiling times exceed the wall clock"
                                                      : NULL;
    if (first && bad) {
        p->wall = 1;
        p->wall_reason = bad;
    }
    if (!p->wall && bad) {
        p->err = CL_SUCCESS;
        p->what = bad;
        return 0;
    }
    *us = p->wall ? wall : profiled;
    return 1;
}

/* Calibrates the iteration count, times every stride and infers; fills res->detail. */
static clscan_status measure(const clscan_context *ctx, bank_probe *p, int log_max,
                             clscan__bank_result *res)
{
    /* A warm-up launch (first launches pay for code upload) that also picks the timer,
     * then grow the iteration count until stride 1 takes long enough to time. */
    cl_uint iterations = BANK_START_ITERATIONS;
    double t1 = 0.0, times[BANK_MAX_LOG_STRIDE + 1] = {0}, half = 0.0;
    size_t half_wg = p->wg > 1 ? p->wg / 2 : 1;
    int count = log_max + 1, rounds = 0;
    if (!time_once(p, p->wg, 1, iterations, 1, &t1)) goto failed;
    for (;;) {
        if (!time_once(p, p->wg, 1, iterations, 0, &t1)) goto failed;
        double target = p->wall ? BANK_TARGET_WALL_US : BANK_TARGET_PROFILED_US;
        if (t1 >= target || iterations >= BANK_MAX_ITERATIONS) break;
        cl_uint grow = 2;
        while (grow < 16 && t1 * grow < target) grow *= 2;
        iterations = iterations * grow < BANK_MAX_ITERATIONS ? iterations * grow
                                                             : BANK_MAX_ITERATIONS;
    }

    for (int r = 0; r < BANK_REPEATS; ++r) {
        double round_start = now_us();
        for (int i = 0; i < count; ++i) {
            double t;
            if (!time_once(p, p->wg, 1u << i, iterations, 0, &t)) goto failed;
            if (r == 0 || t < times[i]) times[i] = t;
        }
        double th;
        if (!time_once(p, half_wg, 1, iterations, 0, &th)) goto failed;
        if (r == 0 || th < half) half = th;
        ++rounds;
        if (now_us() - round_start > BANK_ROUND_BUDGET_US) break;
    }

    size_t len = 0;
    char *d = res->detail;
    clscan__append(d, sizeof res->detail, &len, "time / stride-1 time at strides 1..%u words:",
           1u << log_max);
    for (int i = 0; i < count; ++i)
        clscan__append(d, sizeof res->detail, &len, " %.3g", times[i] / times[0]);
    clscan__append(d, sizeof res->detail, &len,
           " (min of %d, %zu work-items x %d chains x %u iterations, stride 1 %.1f us, "
           "half the work-items %.2f, ",
           rounds, p->wg, BANK_CHAINS, iterations, times[0], half / times[0]);
    if (p->wall)
        clscan__append(d, sizeof res->detail, &len, "wall clock: %s)", p->wall_reason);
    else
        clscan__append(d, sizeof res->detail, &len, "event profiling)");
    cl_uint banks = 0, width = 0;
    if (half > times[0] * BANK_HALF_MAX) {
        clscan__append(d, sizeof res->detail, &len, ": half the work does not take half the time");
    } else if (clscan__bank_infer(times, count, &banks, &width)) {
        res->measured = 1;
        res->banks = banks;
        res->width = width;
        clscan__append(d, sizeof res->detail, &len, ": %u banks x %u B", banks, width);
    } else {
        clscan__append(d, sizeof res->detail, &len, ": timings show no bank pattern");
    }
    return CLSCAN_SUCCESS;

failed:
    if (p->err == CL_SUCCESS) {
        snprintf(res->detail, sizeof res->detail, "inconclusive: %s after the first run",
                 p->what);
        return CLSCAN_SUCCESS;
    }
    snprintf(res->detail, sizeof res->detail, "%s failed: %s (%d)", p->what,
             clscan_status_string(p->err), (int)p->err);
    return clscan__fail_cl(ctx, p->err, p->what);
}

/* Builds the probe and measures; every object it creates is released before it returns. */
static clscan_status probe(const clscan_context *ctx, cl_context cl_ctx, cl_device_id device,
                           size_t max_wg_size, cl_ulong local_mem_size, clscan__bank_result *res)
{
    int log_max = BANK_MAX_LOG_STRIDE;
    while (log_max >= BANK_MIN_LOG_STRIDE &&
           ((cl_ulong)BANK_LANES << log_max) * 4 + BANK_LOCAL_MARGIN > local_mem_size)
        --log_max;
    if (log_max < BANK_MIN_LOG_STRIDE) {
        snprintf(res->detail, sizeof res->detail,
                 "not measured: %llu bytes of local memory are too few for the probe",
                 (unsigned long long)local_mem_size);
        return CLSCAN_SUCCESS;
    }

    clscan_status status = CLSCAN_SUCCESS;
    bank_probe p = {0};
    cl_program program = NULL;
    cl_mem out = NULL;
    cl_int err;
    const char *what;
    size_t kernel_wg = 0, limit;
    cl_uint key = 0;

    char defines[128];
    snprintf(defines, sizeof defines,
             "#define CLSCAN_BANKS_WORDS %u\n#define CLSCAN_BANKS_CHAINS %d\n",
             (unsigned)BANK_LANES << log_max, BANK_CHAINS);
    const char *texts[2] = {defines, NULL};
    size_t lengths[2] = {strlen(defines), 0};
    texts[1] = clscan__embedded_source("clscan_banks.cl", &lengths[1]);
    if (!texts[1]) {
        snprintf(res->detail, sizeof res->detail, "embedded source clscan_banks.cl missing");
        return clscan__fail(ctx, CLSCAN_ERROR_BUILD_FAILED, "%s", res->detail);
    }

    what = "clCreateCommandQueue";
    p.queue = clCreateCommandQueue(cl_ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) goto cl_failed;
    what = "clCreateProgramWithSource";
    program = clCreateProgramWithSource(cl_ctx, 2, texts, lengths, &err);
    if (err != CL_SUCCESS) goto cl_failed;
    what = "clBuildProgram";
    err = clBuildProgram(program, 1, &device, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) goto cl_failed;
    what = "clCreateKernel";
    p.kernel = clCreateKernel(program, "clscan_bank_probe", &err);
    if (err != CL_SUCCESS) goto cl_failed;
    what = "clGetKernelWorkGroupInfo";
    err = clGetKernelWorkGroupInfo(p.kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_wg,
                                   &kernel_wg, NULL);
    if (err != CL_SUCCESS) goto cl_failed;
    limit = max_wg_size < kernel_wg ? max_wg_size : kernel_wg;
    for (p.wg = BANK_MAX_WG; p.wg > limit; p.wg >>= 1) {}
    if (p.wg == 0) {
        snprintf(res->detail, sizeof res->detail, "not measured: the probe kernel cannot run");
        goto done;
    }
    what = "clCreateBuffer";
    out = clCreateBuffer(cl_ctx, CL_MEM_WRITE_ONLY, p.wg * sizeof(cl_uint), NULL, &err);
    if (err != CL_SUCCESS) goto cl_failed;
    what = "clSetKernelArg";
    {
        clscan__kernel_args a = clscan__args_begin(p.kernel, 0);
        CLSCAN__ARG(a, out);
        a.next += 2; /* stride and iterations: time_once, before each launch */
        CLSCAN__ARG(a, key);
        err = a.err;
    }
    if (err != CL_SUCCESS) goto cl_failed;

    status = measure(ctx, &p, log_max, res);
    goto done;

cl_failed:
    snprintf(res->detail, sizeof res->detail, "%s failed: %s (%d)", what,
             clscan_status_string(err), (int)err);
    status = err == CL_BUILD_PROGRAM_FAILURE ? CLSCAN_ERROR_BUILD_FAILED : err;
    clscan__fail(ctx, status, "bank probe: %s", res->detail);
done:
    if (out) clReleaseMemObject(out);
    if (p.kernel) clReleaseKernel(p.kernel);
    if (program) clReleaseProgram(program);
    if (p.queue) clReleaseCommandQueue(p.queue);
    return status;
}

/* ------------------------------------------------------------------- record -- */

/* The record's version, part of its key: raise it whenever this file or
 * cl/clscan_banks.cl changes what the probe finds for a device, or the layout below. */
#define BANK_RECORD_VERSION 1u
/* The layout: measured, banks, width and the detail's length as 32-bit little-endian
 * words, then the detail's bytes (no NUL). */
#define BANK_RECORD_HEADER 16u
#define SEED_BANKS 0x62616e6b73303031ull /* "banks001" */

char *clscan__bank_record_key(size_t max_wg_size, cl_ulong local_mem_size)
{
    size_t len = 0;
    const char *src = clscan__embedded_source("clscan_banks.cl", &len);
    if (!src) return NULL;
    const char *fmt = "bank probe: record %u; clscan_banks.cl %zu bytes, mix64 %016llx; "
                      "max work-group %zu; local memory %llu bytes\n";
    const unsigned long long digest = clscan__hash_mix64(SEED_BANKS, src, len);
    int n = snprintf(NULL, 0, fmt, BANK_RECORD_VERSION, len, digest, max_wg_size,
                     (unsigned long long)local_mem_size);
    char *key = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (key)
        snprintf(key, (size_t)n + 1, fmt, BANK_RECORD_VERSION, len, digest, max_wg_size,
                 (unsigned long long)local_mem_size);
    return key;
}

size_t clscan__bank_record_encode(const clscan__bank_result *r, unsigned char *buf, size_t size)
{
    const size_t detail = strnlen(r->detail, sizeof r->detail - 1);
    const size_t need = BANK_RECORD_HEADER + detail;
    if (size < need) return need;
    clscan__store_le32(buf, (uint32_t)r->measured);
    clscan__store_le32(buf + 4, r->banks);
    clscan__store_le32(buf + 8, r->width);
    clscan__store_le32(buf + 12, (uint32_t)detail);
    memcpy(buf + BANK_RECORD_HEADER, r->detail, detail);
    return need;
}

static bool is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

bool clscan__bank_record_decode(const unsigned char *buf, size_t length, clscan__bank_result *out)
{
    memset(out, 0, sizeof *out);
    if (!buf || length < BANK_RECORD_HEADER) return false;
    const uint32_t measured = clscan__load_le32(buf), banks = clscan__load_le32(buf + 4),
                   width = clscan__load_le32(buf + 8), detail = clscan__load_le32(buf + 12);
    /* Only what the probe can give: a pattern (clscan__bank_infer: 4 to 128 banks of 4 to
     * 32 bytes) or none (zeros), and a detail that fits, without NULs. */
    const bool shape = measured == 1 ? is_pow2(banks) && banks >= 4 && banks <= 128 &&
                                           is_pow2(width) && width >= 4 && width <= 32
                                     : measured == 0 && banks == 0 && width == 0;
    if (!shape || detail >= sizeof out->detail || length != BANK_RECORD_HEADER + detail ||
        memchr(buf + BANK_RECORD_HEADER, '\0', detail) != NULL)
        return false;
    out->measured = (int)measured;
    out->banks = banks;
    out->width = width;
    memcpy(out->detail, buf + BANK_RECORD_HEADER, detail);
    return true;
}

/* The result kept in store under key, if there is a usable one; else *why says why not. */
static bool record_load(const clscan__probe_store *store, const char *key,
                        clscan__bank_result *out, const char **why)
{
    unsigned char *payload = NULL;
    size_t length = 0;
    if (!store->load(store->user, key, &payload, &length, why)) return false;
    const bool ok = clscan__bank_record_decode(payload, length, out);
    free(payload);
    if (!ok) {
        memset(out, 0, sizeof *out);
        *why = "the record is not a bank probe result";
    }
    return ok;
}

static void record_save(const clscan__probe_store *store, const char *key,
                        const clscan__bank_result *r)
{
    unsigned char buf[BANK_RECORD_HEADER + sizeof r->detail];
    const size_t length = clscan__bank_record_encode(r, buf, sizeof buf);
    store->save(store->user, key, buf, length);
}

/* -------------------------------------------------------------------- cache -- */

/* One entry per device probed in this process; never freed (a handful of devices). */
typedef struct bank_entry {
    struct bank_entry *next;
    cl_device_id device;
    int done;                   /* 0 while a thread is probing */
    clscan_status status;
    clscan__bank_result result;
} bank_entry;

static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bank_cond = PTHREAD_COND_INITIALIZER;
static bank_entry *bank_cache;

/* A failed probe is cached like a measured one: later calls return the same status,
 * record the same message as the last error and fill *out with the same result. Only a
 * result (measured or not) goes to the store, never a failure: the next process tries
 * again. */
clscan_status clscan__bank_probe(const clscan_context *ctx, cl_context cl_ctx, cl_device_id device,
                                 size_t max_wg_size, cl_ulong local_mem_size,
                                 const clscan__probe_store *store, clscan__bank_result *out,
                                 clscan__bank_origin *origin)
{
    clscan__bank_origin how = {CLSCAN__PROBE_NOT_RUN, NULL};
    if (origin) *origin = how;
    CLSCAN__RETURN_IF(ctx, !out || !cl_ctx || !device, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "clscan__bank_probe: out, cl_ctx and device must not be NULL");
    memset(out, 0, sizeof *out);

    pthread_mutex_lock(&bank_lock);
    bank_entry *e = bank_cache;
    while (e && e->device != device) e = e->next;
    if (e) {
        while (!e->done) pthread_cond_wait(&bank_cond, &bank_lock);
        *out = e->result;
        clscan_status s = e->status;
        pthread_mutex_unlock(&bank_lock);
        how.how = CLSCAN__PROBE_REMEMBERED;
        if (origin) *origin = how;
        if (s != CLSCAN_SUCCESS) clscan__fail(ctx, s, "bank probe: %s", out->detail);
        return s;
    }
    e = calloc(1, sizeof *e);
    if (!e) {
        pthread_mutex_unlock(&bank_lock);
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    }
    e->device = device;
    e->next = bank_cache;
    bank_cache = e;
    pthread_mutex_unlock(&bank_lock);

    /* Load or probe without the lock; callers for the same device wait on bank_cond. */
    clscan__bank_result res;
    memset(&res, 0, sizeof res);
    clscan_status s = CLSCAN_SUCCESS;
    char *key = store ? clscan__bank_record_key(max_wg_size, local_mem_size) : NULL;
    how.how = CLSCAN__PROBE_MEASURED;
    how.why = store && !key ? "out of host memory" : NULL;
    if (key && record_load(store, key, &res, &how.why)) {
        how.how = CLSCAN__PROBE_LOADED;
        how.why = NULL;
    } else {
        s = probe(ctx, cl_ctx, device, max_wg_size, local_mem_size, &res);
        if (s == CLSCAN_SUCCESS && key) record_save(store, key, &res);
    }
    free(key);

    pthread_mutex_lock(&bank_lock);
    e->result = res;
    e->status = s;
    e->done = 1;
    pthread_cond_broadcast(&bank_cond);
    pthread_mutex_unlock(&bank_lock);
    *out = res;
    if (origin) *origin = how;
    return s;
}
