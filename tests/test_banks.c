/* test_banks.c - Check tests of the local-memory bank probe: the inference on synthetic
 * timing curves (clear patterns, CPU-like and noisy ones, garbage); the record a result
 * is kept in between processes (encoding, decoding, rejecting what the probe cannot
 * give); and the probe itself on the first device of the first platform, including its
 * per-device cache and a probe store held in memory: a fresh result is saved under its
 * key and reads back equal field by field, a matching record is loaded instead of
 * probing, a foreign or damaged one is measured over and rewritten. (tests/test_diskcache.c
 * checks the same through the disk cache, one process per context.) */
/* SPDX-License-Identifier: MIT */
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

/* -------------------------------------------------------------- record ---- */

/* Field by field: what the record must carry unchanged. */
static void expect_same_result(const clscan__bank_result *got, const clscan__bank_result *want)
{
    ck_assert_int_eq(got->measured, want->measured);
    ck_assert_uint_eq(got->banks, want->banks);
    ck_assert_uint_eq(got->width, want->width);
    ck_assert_str_eq(got->detail, want->detail);
    /* Nothing else is in the struct: with the same zero padding, the same bytes. */
    ck_assert(memcmp(got, want, sizeof *got) == 0);
}

static void round_trip(const clscan__bank_result *r)
{
    unsigned char buf[16 + sizeof r->detail];
    const size_t len = clscan__bank_record_encode(r, buf, sizeof buf);
    ck_assert_uint_eq(len, 16 + strlen(r->detail));
    ck_assert_uint_eq(clscan__bank_record_encode(r, NULL, 0), len); /* the length alone */
    clscan__bank_result back;
    memset(&back, 0x77, sizeof back);
    ck_assert(clscan__bank_record_decode(buf, len, &back));
    expect_same_result(&back, r);
    /* One byte short or long is not a record. */
    ck_assert(!clscan__bank_record_decode(buf, len - 1, &back));
    unsigned char longer[sizeof buf + 1];
    memcpy(longer, buf, len);
    longer[len] = 'x';
    ck_assert(!clscan__bank_record_decode(longer, len + 1, &back));
}

START_TEST(test_record_round_trip)
{
    clscan__bank_result r;
    memset(&r, 0, sizeof r);
    r.measured = 1;
    r.banks = 32;
    r.width = 4;
    snprintf(r.detail, sizeof r.detail, "time / stride-1 time at strides 1..128 words: 1 1.91 "
             "3.67 7.28 14.6 29 29 29.1 (...): 32 banks x 4 B");
    round_trip(&r);
    memset(&r, 0, sizeof r);
    snprintf(r.detail, sizeof r.detail, "timings show no bank pattern");
    round_trip(&r);
    memset(&r, 0, sizeof r); /* an empty detail */
    round_trip(&r);
    memset(&r, 0, sizeof r); /* the longest detail */
    memset(r.detail, 'd', sizeof r.detail - 1);
    r.measured = 1;
    r.banks = 128;
    r.width = 32;
    round_trip(&r);
}
END_TEST

START_TEST(test_record_rejects)
{
    clscan__bank_result r, back;
    memset(&r, 0, sizeof r);
    r.measured = 1;
    r.banks = 16;
    r.width = 8;
    snprintf(r.detail, sizeof r.detail, "16 banks x 8 B");
    unsigned char good[64], bad[64];
    const size_t len = clscan__bank_record_encode(&r, good, sizeof good);
    ck_assert(clscan__bank_record_decode(good, len, &back));
    ck_assert(!clscan__bank_record_decode(NULL, len, &back));
    ck_assert(!clscan__bank_record_decode(good, 15, &back));
    /* Each word changed to something the probe never gives. */
    static const struct {
        size_t at;
        uint32_t value;
    } words[] = {
        {0, 2},   /* measured neither 0 nor 1 */
        {4, 24},  /* banks not a power of two */
        {4, 256}, /* more banks than inference can give */
        {4, 2},   /* fewer */
        {8, 12},  /* width not a power of two */
        {8, 64},  /* wider than inference can give */
        {12, 13}, /* a detail length that disagrees with the record's */
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i) {
        memcpy(bad, good, len);
        clscan__store_le32(bad + words[i].at, words[i].value);
        memset(&back, 0x77, sizeof back);
        ck_assert_msg(!clscan__bank_record_decode(bad, len, &back), "case %zu accepted", i);
        ck_assert_int_eq(back.measured, 0); /* zeroed, not half-filled */
        ck_assert_uint_eq(back.banks, 0);
    }
    /* No pattern with a shape left in it; a NUL inside the detail. */
    memcpy(bad, good, len);
    clscan__store_le32(bad, 0);
    ck_assert(!clscan__bank_record_decode(bad, len, &back));
    memcpy(bad, good, len);
    bad[16 + 3] = '\0';
    ck_assert(!clscan__bank_record_decode(bad, len, &back));
    /* A detail as long as the field, which leaves no room for its NUL. */
    unsigned char full[16 + sizeof r.detail];
    memcpy(full, good, 16);
    clscan__store_le32(full + 12, (uint32_t)sizeof r.detail);
    memset(full + 16, 'd', sizeof r.detail);
    ck_assert(!clscan__bank_record_decode(full, sizeof full, &back));
    clscan__store_le32(full + 12, (uint32_t)sizeof r.detail - 1); /* one less fits */
    ck_assert(clscan__bank_record_decode(full, sizeof full - 1, &back));
}
END_TEST

START_TEST(test_record_key)
{
    char *a = clscan__bank_record_key(1024, 49152), *b = clscan__bank_record_key(1024, 49152),
         *c = clscan__bank_record_key(512, 49152), *d = clscan__bank_record_key(1024, 65536);
    ck_assert(a && b && c && d);
    ck_assert_str_eq(a, b);
    ck_assert_str_ne(a, c); /* the limits the probe sizes itself by are part of it */
    ck_assert_str_ne(a, d);
    ck_assert(strstr(a, "bank probe: record ") == a);
    ck_assert(strstr(a, "clscan_banks.cl ") != NULL);
    ck_assert(strstr(a, "max work-group 1024; local memory 49152 bytes\n") != NULL);
    free(a);
    free(b);
    free(c);
    free(d);
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

/* A probe store in memory: one record, and what was asked of it. */
typedef struct mem_store {
    char *key;
    unsigned char payload[512];
    size_t length;
    int loads, saves;
} mem_store;

static bool mem_load(void *user, const char *key, unsigned char **payload, size_t *length,
                     const char **why)
{
    mem_store *m = user;
    m->loads++;
    if (!m->key || strcmp(m->key, key) != 0) {
        *why = m->key ? "another key" : "nothing kept";
        return false;
    }
    *payload = malloc(m->length ? m->length : 1);
    ck_assert(*payload != NULL);
    memcpy(*payload, m->payload, m->length);
    *length = m->length;
    return true;
}

static void mem_save(void *user, const char *key, const unsigned char *payload, size_t length)
{
    mem_store *m = user;
    m->saves++;
    free(m->key);
    m->key = strdup(key);
    ck_assert(m->key != NULL && length <= sizeof m->payload);
    memcpy(m->payload, payload, length);
    m->length = length;
}

/* The first device of the first platform, its limits and a context on it. */
typedef struct probe_dev {
    cl_device_id dev;
    cl_context cl_ctx;
    char name[256];
    size_t max_wg;
    cl_ulong local_mem;
} probe_dev;

static void probe_dev_open(probe_dev *d)
{
    cl_platform_id platform;
    memset(d, 0, sizeof *d);
    ck_assert_int_eq(clGetPlatformIDs(1, &platform, NULL), CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &d->dev, NULL), CL_SUCCESS);
    clGetDeviceInfo(d->dev, CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
    ck_assert_int_eq(clGetDeviceInfo(d->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg,
                                     &d->max_wg, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceInfo(d->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem,
                                     &d->local_mem, NULL),
                     CL_SUCCESS);
    cl_int err;
    d->cl_ctx = clCreateContext(NULL, 1, &d->dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
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
    mem_store m = {0};
    const clscan__probe_store store = {mem_load, mem_save, &m};
    clscan__bank_origin origin = {CLSCAN__PROBE_NOT_RUN, NULL};
    double t0 = now_ms();
    clscan_status s = clscan__bank_probe(NULL, cl_ctx, dev, max_wg, local_mem, &store, &a,
                                         &origin);
    double first_ms = now_ms() - t0;
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s", name, clscan_status_string(s),
                  clscan_context_last_error(NULL));
    /* Measured (each Check test runs in a process of its own), after asking the store
     * once; then kept there under its key, and that record decodes to the very result. */
    ck_assert_int_eq(origin.how, CLSCAN__PROBE_MEASURED);
    ck_assert_str_eq(origin.why, "nothing kept");
    ck_assert_int_eq(m.loads, 1);
    ck_assert_int_eq(m.saves, 1);
    char *key = clscan__bank_record_key(max_wg, local_mem);
    ck_assert(key != NULL);
    ck_assert_str_eq(m.key, key);
    free(key);
    clscan__bank_result kept;
    ck_assert(clscan__bank_record_decode(m.payload, m.length, &kept));
    expect_same_result(&kept, &a);
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

    /* The second call is answered from the cache: the same bytes, at once, without
     * asking the store. */
    memset(&b, 0xa5, sizeof b);
    t0 = now_ms();
    s = clscan__bank_probe(NULL, cl_ctx, dev, max_wg, local_mem, &store, &b, &origin);
    double second_ms = now_ms() - t0;
    ck_assert_int_eq(s, CLSCAN_SUCCESS);
    ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "cached result differs:\n  %s\n  %s", a.detail,
                  b.detail);
    ck_assert_msg(second_ms < 5.0, "second call took %.3f ms: not cached", second_ms);
    ck_assert_int_eq(origin.how, CLSCAN__PROBE_REMEMBERED);
    ck_assert_int_eq(m.loads + m.saves, 2);

    /* Also from another cl_context on the same device, with no store. */
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    memset(&b, 0xa5, sizeof b);
    ck_assert_int_eq(clscan__bank_probe(NULL, other, dev, max_wg, local_mem, NULL, &b, NULL),
                     CLSCAN_SUCCESS);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    clReleaseContext(other);
    clReleaseContext(cl_ctx);
    free(m.key);
}
END_TEST

/* Each case in a process of its own (Check forks one per test): the device's first call
 * finds `m` in the store. Returns the origin; fills *r. */
static clscan__bank_origin probe_with(probe_dev *d, mem_store *m, clscan__bank_result *r)
{
    const clscan__probe_store store = {mem_load, mem_save, m};
    clscan__bank_origin origin = {CLSCAN__PROBE_NOT_RUN, NULL};
    memset(r, 0x5a, sizeof *r);
    clscan_status s = clscan__bank_probe(NULL, d->cl_ctx, d->dev, d->max_wg, d->local_mem, &store,
                                         r, &origin);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s", d->name, clscan_status_string(s),
                  clscan_context_last_error(NULL));
    ck_assert_msg(origin.how != CLSCAN__PROBE_REMEMBERED,
                  "the device was probed earlier in this process (CK_FORK=no?)");
    return origin;
}

/* A record kept under the device's key is loaded, as it is, instead of probing. */
START_TEST(test_probe_loads_record)
{
    probe_dev d;
    probe_dev_open(&d);
    clscan__bank_result want, got;
    memset(&want, 0, sizeof want);
    want.measured = 1;
    want.banks = 64; /* no device here has these: only the record can have said so */
    want.width = 8;
    snprintf(want.detail, sizeof want.detail, "a record written by test_probe_loads_record");
    mem_store m = {0};
    m.key = clscan__bank_record_key(d.max_wg, d.local_mem);
    m.length = clscan__bank_record_encode(&want, m.payload, sizeof m.payload);
    double t0 = now_ms();
    clscan__bank_origin origin = probe_with(&d, &m, &got);
    printf("bank probe on %s: loaded a record in %.3f ms\n", d.name, now_ms() - t0);
    ck_assert_int_eq(origin.how, CLSCAN__PROBE_LOADED);
    ck_assert_int_eq(m.loads, 1);
    ck_assert_int_eq(m.saves, 0);
    expect_same_result(&got, &want);
    free(m.key);
    clReleaseContext(d.cl_ctx);
}
END_TEST

/* A record under another key is not used: the probe runs and its result replaces it. */
START_TEST(test_probe_foreign_record)
{
    probe_dev d;
    probe_dev_open(&d);
    clscan__bank_result kept, got;
    memset(&kept, 0, sizeof kept);
    snprintf(kept.detail, sizeof kept.detail, "a record for another device");
    mem_store m = {0};
    m.key = clscan__bank_record_key(d.max_wg + 1, d.local_mem);
    m.length = clscan__bank_record_encode(&kept, m.payload, sizeof m.payload);
    clscan__bank_origin origin = probe_with(&d, &m, &got);
    ck_assert_int_eq(origin.how, CLSCAN__PROBE_MEASURED);
    ck_assert_str_eq(origin.why, "another key");
    ck_assert_int_eq(m.saves, 1);
    char *key = clscan__bank_record_key(d.max_wg, d.local_mem);
    ck_assert_str_eq(m.key, key);
    free(key);
    ck_assert(clscan__bank_record_decode(m.payload, m.length, &kept));
    expect_same_result(&kept, &got);
    ck_assert_str_ne(got.detail, "a record for another device");
    free(m.key);
    clReleaseContext(d.cl_ctx);
}
END_TEST

/* A record under the right key whose bytes the probe cannot have given is measured over
 * and rewritten. */
START_TEST(test_probe_damaged_record)
{
    probe_dev d;
    probe_dev_open(&d);
    clscan__bank_result got, kept;
    mem_store m = {0};
    m.key = clscan__bank_record_key(d.max_wg, d.local_mem);
    memcpy(m.payload, "\1\0\0\0\3\0\0\0\4\0\0\0\0\0\0\0", 16); /* 3 banks */
    m.length = 16;
    clscan__bank_origin origin = probe_with(&d, &m, &got);
    ck_assert_int_eq(origin.how, CLSCAN__PROBE_MEASURED);
    ck_assert_str_eq(origin.why, "the record is not a bank probe result");
    ck_assert_int_eq(m.saves, 1);
    ck_assert(clscan__bank_record_decode(m.payload, m.length, &kept));
    expect_same_result(&kept, &got);
    free(m.key);
    clReleaseContext(d.cl_ctx);
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
    ck_assert_int_eq(clscan__bank_probe(NULL, cl_ctx, dev, 256, 65536, NULL, NULL, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clscan__bank_probe(NULL, NULL, dev, 256, 65536, NULL, &r, NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clscan__bank_probe(NULL, cl_ctx, NULL, 256, 65536, NULL, &r, NULL),
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
    TCase *rec = tcase_create("record");
    tcase_add_test(rec, test_record_round_trip);
    tcase_add_test(rec, test_record_rejects);
    tcase_add_test(rec, test_record_key);
    suite_add_tcase(s, rec);
    TCase *dev = tcase_create("device");
    tcase_set_timeout(dev, 240);
    tcase_add_test(dev, test_probe_first_device);
    tcase_add_test(dev, test_probe_loads_record);
    tcase_add_test(dev, test_probe_foreign_record);
    tcase_add_test(dev, test_probe_damaged_record);
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
