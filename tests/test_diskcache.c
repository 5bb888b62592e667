/* test_diskcache.c - Check suite for the disk cache of built programs (src/diskcache.c)
 * and clscan_context_warm: the hashes and the file format; a cold build writes a file
 * that a second context and a second process load; truncated, corrupt and foreign files
 * and binaries the driver refuses are detected, ignored and replaced; the switches and
 * where the cache lives; an unwritable cache; processes filling one cache at once; and a
 * warm call after which no call builds. The library's counters (clscan__cache_stat) show
 * which path a build took. Every result is checked against the host reference.
 *
 * Runs on the first device of the first platform that has one (CLSCAN_TEST_PLATFORM: of
 * the first platform whose name contains it). Each test makes its own directory under
 * $CLSCAN_CACHE_DIR (tests/meson.build points it into the build tree; without it, a new
 * directory in /tmp) and points the library's cache there, never at the user's. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "verify.h"
#include "test_cacheroot.h"

#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* ------------------------------------------------------------ set-up -------- */

/* The root every test's directory goes under, and room for a test's directory. */
enum { DC_ROOT_MAX = 1024, DC_DIR_MAX = 1280 };
static char dc_root[DC_ROOT_MAX];

/* The master seed: $CLSCAN_TEST_SEED, else a fixed one; printed by every test using it. */
static uint64_t dc_seed(void)
{
    const char *s = getenv("CLSCAN_TEST_SEED");
    uint64_t seed = s && *s ? strtoull(s, NULL, 0) : 20261124u;
    fprintf(stderr, "seed %" PRIu64 " (set CLSCAN_TEST_SEED to change it)\n", seed);
    return seed;
}


/* A new, empty directory for the test `name` in out. */
static void dc_test_dir(const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s-%ld", dc_root, name, (long)getpid());
    clscan_test_remove_tree(out);
    ck_assert_msg(mkdir(out, 0700) == 0, "mkdir %s: %s", out, strerror(errno));
}

/* The start of a device test: its seed (printed), then a new, empty directory for the
 * test `name` in dir (DC_DIR_MAX bytes). */
static uint64_t dc_start(const char *name, char dir[DC_DIR_MAX])
{
    const uint64_t seed = dc_seed();
    dc_test_dir(name, dir, DC_DIR_MAX);
    return seed;
}

/* The library's environment for a test: the cache in dir (NULL: unset), switched by
 * on_switch (NULL: unset). */
static void dc_env(const char *dir, const char *on_switch)
{
    if (dir) setenv("CLSCAN_CACHE_DIR", dir, 1);
    else unsetenv("CLSCAN_CACHE_DIR");
    if (on_switch) setenv("CLSCAN_DISK_CACHE", on_switch, 1);
    else unsetenv("CLSCAN_DISK_CACHE");
}

/* ------------------------------------------------------------ devices ------- */

/* One device, its context and an in-order queue. */
typedef struct dc_dev {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl_ctx;
    cl_command_queue queue;
    char name[300];
    int pocl;
} dc_dev;

/* 1 if `name` contains `part`, ignoring case. */
static int dc_name_matches(const char *name, const char *part)
{
    for (size_t len = strlen(part); strlen(name) >= len; ++name) {
        size_t k = 0;
        while (k < len && tolower((unsigned char)name[k]) == tolower((unsigned char)part[k])) k++;
        if (k == len) return 1;
    }
    return 0;
}

/* Opens the device into d; returns "" or what failed (usable in a child process, where
 * Check's assertions must not run). */
static const char *dc_open(dc_dev *d)
{
    static char why[256];
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[16];
    cl_uint count = 0;
    cl_int err;
    memset(d, 0, sizeof *d);
    if (clGetPlatformIDs(16, plats, &count) != CL_SUCCESS) count = 0;
    for (cl_uint p = 0; p < count && p < 16 && !d->device; p++) {
        char pname[200] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (want && !dc_name_matches(pname, want)) continue;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &d->device, NULL) != CL_SUCCESS) {
            d->device = NULL;
            continue;
        }
        char dname[96] = "";
        clGetDeviceInfo(d->device, CL_DEVICE_NAME, sizeof dname, dname, NULL);
        snprintf(d->name, sizeof d->name, "%s / %s", pname, dname);
        d->platform = plats[p];
        d->pocl = strstr(pname, "Portable Computing Language") != NULL;
    }
    if (!d->device) {
        snprintf(why, sizeof why, "no OpenCL device found%s%s", want ? " on a platform matching "
                                                                      "CLSCAN_TEST_PLATFORM="
                                                                    : "",
                 want ? want : "");
        return why;
    }
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           (cl_context_properties)d->platform, 0};
    d->cl_ctx = clCreateContext(props, 1, &d->device, NULL, NULL, &err);
    if (!d->cl_ctx) {
        snprintf(why, sizeof why, "clCreateContext: %s", clscan_status_string(err));
        return why;
    }
    d->queue = clCreateCommandQueue(d->cl_ctx, d->device, 0, &err);
    if (!d->queue) {
        snprintf(why, sizeof why, "clCreateCommandQueue: %s", clscan_status_string(err));
        return why;
    }
    return "";
}

static void dc_open_or_fail(dc_dev *d)
{
    const char *why = dc_open(d);
    ck_assert_msg(!*why, "%s", why);
}

static void dc_close(dc_dev *d)
{
    if (d->queue) clReleaseCommandQueue(d->queue);
    if (d->cl_ctx) clReleaseContext(d->cl_ctx);
    memset(d, 0, sizeof *d);
}

static clscan_context *dc_context(dc_dev *d)
{
    clscan_context *ctx = NULL;
    clscan_status s = clscan_context_create(d->cl_ctx, d->device, &ctx);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: clscan_context_create: %s: %s", d->name,
                  clscan_status_string(s), clscan_context_last_error(NULL));
    return ctx;
}

/* ------------------------------------------------------------ helpers ------- */

/* A snapshot of the library's counters. */
typedef struct dc_stats {
    unsigned long v[CLSCAN__CACHE_STAT_COUNT];
} dc_stats;

static dc_stats dc_snap(void)
{
    dc_stats s;
    for (int i = 0; i < CLSCAN__CACHE_STAT_COUNT; ++i)
        s.v[i] = clscan__cache_stat((clscan__cache_counter)i);
    return s;
}

/* Counter `which` since `before`. */
static unsigned long dc_since(const dc_stats *before, clscan__cache_counter which)
{
    return clscan__cache_stat(which) - before->v[which];
}

static void dc_print_since(const char *what, const dc_stats *b)
{
    fprintf(stderr,
            "%s: programs %lu, source builds %lu, loaded %lu, missing %lu, rejected %lu, "
            "refused %lu, written %lu, write failed %lu\n",
            what, dc_since(b, CLSCAN__CACHE_PROGRAMS), dc_since(b, CLSCAN__CACHE_SOURCE_BUILDS),
            dc_since(b, CLSCAN__CACHE_LOADED), dc_since(b, CLSCAN__CACHE_MISSING),
            dc_since(b, CLSCAN__CACHE_REJECTED), dc_since(b, CLSCAN__CACHE_REFUSED),
            dc_since(b, CLSCAN__CACHE_WRITTEN), dc_since(b, CLSCAN__CACHE_WRITE_FAILED));
}

/* One scan checked against the host reference; "" or why it failed. */
static const char *dc_scan(clscan_context *ctx, dc_dev *d, clscan_type type, clscan_op op,
                           int inclusive, int in_place, size_t n, uint64_t seed)
{
    static char msg[600];
    clscan_verify_case c = {type, op, inclusive, n, 0, in_place ? 5 : 0, in_place, seed};
    char detail[512];
    clscan_verify_result r = clscan_verify_run_case(ctx, d->cl_ctx, d->queue, &c, detail,
                                                    sizeof detail);
    if (r == CLSCAN_VERIFY_FAIL)
        snprintf(msg, sizeof msg, "%s %s %s n=%zu%s (seed %" PRIu64 "): %s",
                 clscan_type_name(type), clscan_op_name(op), inclusive ? "inclusive" : "exclusive",
                 n, in_place ? " in place" : "", seed, detail);
    return r == CLSCAN_VERIFY_FAIL ? msg : "";
}

/* The scan every test builds: int32 exclusive add. */
static void dc_scan_ok(clscan_context *ctx, dc_dev *d, size_t n, uint64_t seed)
{
    const char *why = dc_scan(ctx, d, CLSCAN_INT32, CLSCAN_OP_ADD, 0, 0, n, seed);
    ck_assert_msg(!*why, "%s: %s", d->name, why);
}

/* That scan in a new context on d, released after it. Returns the counters from before
 * the context was made (making one must move none of them, so the counts since are
 * the scan's and the release's, as when taken after it). */
static dc_stats dc_fresh_scan(dc_dev *d, size_t n, uint64_t seed)
{
    const dc_stats before = dc_snap();
    clscan_context *ctx = dc_context(d);
    for (int i = 0; i < CLSCAN__CACHE_STAT_COUNT; ++i)
        ck_assert_msg(dc_since(&before, (clscan__cache_counter)i) == 0,
                      "%s: counter %d moved when a context was made", d->name, i);
    dc_scan_ok(ctx, d, n, seed);
    clscan_context_release(ctx);
    return before;
}

/* What a cache directory holds. */
enum { DC_MAX_FILES = 160 };
typedef struct dc_listing {
    int files;  /* clscan-*.bin: programs */
    int probes; /* clscan-probe-*.bin: the bank probe's record, where the probe runs (GPUs;
                   test_probecache.c tests it) */
    int temps;  /* hidden files: temporaries */
    int others; /* anything else */
    char paths[DC_MAX_FILES][DC_DIR_MAX + 64];
} dc_listing;

static void dc_list(const char *dir, dc_listing *out)
{
    memset(out, 0, sizeof *out);
    DIR *dp = opendir(dir);
    if (!dp) return;
    for (struct dirent *e; (e = readdir(dp)) != NULL;) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..")) continue;
        const size_t len = strlen(n);
        if (n[0] == '.') out->temps++;
        else if (!strncmp(n, "clscan-probe-", 13)) out->probes++;
        else if (!strncmp(n, "clscan-", 7) && len > 4 && !strcmp(n + len - 4, ".bin")) {
            if (out->files < DC_MAX_FILES)
                snprintf(out->paths[out->files], sizeof out->paths[0], "%s/%.56s", dir, n);
            out->files++;
        } else out->others++;
    }
    closedir(dp);
}

/* Checks that dir holds at least min_files cache files, every one valid, and nothing
 * else (no temporary file left behind). Returns the listing. */
static void dc_check_dir(const char *dir, int min_files, dc_listing *l)
{
    dc_list(dir, l);
    ck_assert_msg(l->temps == 0 && l->others == 0,
                  "%s: %d temporary and %d other files left beside the cache files", dir,
                  l->temps, l->others);
    ck_assert_msg(l->files >= min_files && l->files <= DC_MAX_FILES,
                  "%s: %d cache files, expected at least %d", dir, l->files, min_files);
    for (int i = 0; i < l->files; ++i) {
        clscan__diskcache_file f;
        ck_assert_msg(clscan__diskcache_read_file(l->paths[i], &f) == CLSCAN__FILE_VALID, "%s is not valid: %s",
                      l->paths[i], clscan__diskcache_last_reason());
        ck_assert_msg(f.key_length > 10 && !strncmp(f.key, "libclscan ", 10),
                      "%s: its key text does not start with the library's line", l->paths[i]);
        clscan__diskcache_file_free(&f);
    }
}



/* ------------------------------------------------------------ format -------- */

START_TEST(test_format)
{
    /* FNV-1a 64 test vectors. */
    ck_assert_uint_eq(clscan__hash_fnv1a64(0xcbf29ce484222325ull, "", 0), 0xcbf29ce484222325ull);
    ck_assert_uint_eq(clscan__hash_fnv1a64(0xcbf29ce484222325ull, "a", 1), 0xaf63dc4c8601ec8cull);
    ck_assert_uint_eq(clscan__hash_fnv1a64(0xcbf29ce484222325ull, "foobar", 6),
                      0x85944171f73967e8ull);
    /* The word hash: every single-bit change of a 37-byte input (whole words and a tail)
     * and every length change gives another value. */
    unsigned char buf[37];
    for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (unsigned char)(i * 7 + 3);
    const uint64_t h = clscan__hash_mix64(1, buf, sizeof buf);
    for (size_t bit = 0; bit < 8 * sizeof buf; ++bit) {
        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        ck_assert_msg(clscan__hash_mix64(1, buf, sizeof buf) != h, "bit %zu changes nothing", bit);
        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
    for (size_t len = 0; len < sizeof buf; ++len)
        ck_assert(clscan__hash_mix64(1, buf, len) != h);
    ck_assert(clscan__hash_mix64(2, buf, sizeof buf) != h);

    /* A file written and read back; then each damage is refused. */
    char dir[DC_DIR_MAX], path[PATH_MAX];
    dc_test_dir("format", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/sub/clscan-test.bin", dir);
    static const char key[] = "libclscan test key\nline two";
    unsigned char payload[1000];
    for (size_t i = 0; i < sizeof payload; ++i) payload[i] = (unsigned char)(i * 31 + 1);
    ck_assert(clscan__diskcache_write_file(path, key, sizeof key - 1, payload, sizeof payload));
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    struct stat st;
    ck_assert_int_eq(stat(sub, &st), 0);
    ck_assert_msg((st.st_mode & 0777) == 0700, "%s has mode %o, not 0700", sub,
                  (unsigned)(st.st_mode & 0777));
    static dc_listing l;
    dc_list(sub, &l);
    ck_assert_int_eq(l.files, 1);
    ck_assert_int_eq(l.temps, 0);
    clscan__diskcache_file f;
    ck_assert_int_eq(clscan__diskcache_read_file(path, &f), CLSCAN__FILE_VALID);
    ck_assert_uint_eq(f.key_length, sizeof key - 1);
    ck_assert(memcmp(f.key, key, sizeof key - 1) == 0);
    ck_assert_uint_eq(f.payload_length, sizeof payload);
    ck_assert(memcmp(f.payload, payload, sizeof payload) == 0);
    clscan__diskcache_file_free(&f);

    size_t len;
    unsigned char *good = clscan_test_slurp(path, &len);
    ck_assert_uint_eq(len, 40 + sizeof key - 1 + sizeof payload);
    const struct {
        const char *what;
        size_t at;    /* byte to flip, or (size_t)-1 */
        size_t keep;  /* bytes kept (truncation), or len */
        const char *reason;
    } damages[] = {
        {"empty", (size_t)-1, 0, "shorter than the header"},
        {"truncated header", (size_t)-1, 39, "shorter than the header"},
        {"truncated payload", (size_t)-1, len - 1, "length"},
        {"magic", 0, len, "magic"},
        {"format version", 8, len, "format version"},
        {"key length", 12, len, "length"},
        {"payload length", 16, len, "length"},
        {"payload checksum", 24, len, "header checksum"}, /* (the header covers it) */
        {"header checksum", 32, len, "header checksum"},
        {"key text", 45, len, "header checksum"},
        {"payload first byte", 40 + sizeof key - 1, len, "payload checksum"},
        {"payload last byte", len - 1, len, "payload checksum"},
    };
    for (size_t k = 0; k < sizeof damages / sizeof damages[0]; ++k) {
        unsigned char *bad = malloc(len + 1);
        memcpy(bad, good, len);
        if (damages[k].at != (size_t)-1) bad[damages[k].at] ^= 0x10;
        clscan_test_spit(path, bad, damages[k].keep);
        free(bad);
        ck_assert_msg(clscan__diskcache_read_file(path, &f) == CLSCAN__FILE_INVALID, "%s: damaged file accepted",
                      damages[k].what);
        ck_assert_msg(strstr(clscan__diskcache_last_reason(), damages[k].reason) != NULL,
                      "%s: reason \"%s\", expected one with \"%s\"", damages[k].what,
                      clscan__diskcache_last_reason(), damages[k].reason);
    }
    /* One byte more than the header says. */
    unsigned char *longer = malloc(len + 1);
    memcpy(longer, good, len);
    longer[len] = 0;
    clscan_test_spit(path, longer, len + 1);
    free(longer);
    ck_assert_int_eq(clscan__diskcache_read_file(path, &f), CLSCAN__FILE_INVALID);
    snprintf(path, sizeof path, "%s/sub/absent.bin", dir);
    ck_assert_int_eq(clscan__diskcache_read_file(path, &f), CLSCAN__FILE_MISSING);
    ck_assert_int_eq(clscan__diskcache_read_file(sub, &f), CLSCAN__FILE_INVALID); /* a directory */
    /* Writing where a regular file stands in for a directory fails, and cleanly. */
    snprintf(path, sizeof path, "%s/sub/clscan-test.bin/x/clscan-y.bin", dir);
    ck_assert(!clscan__diskcache_write_file(path, key, 3, payload, 10));
    free(good);
    clscan_test_remove_tree(dir);
}
END_TEST

/* ------------------------------------------------------------ device tests -- */

/* A cold build writes a file; a second context on the same cl_context, and a third on a
 * new one, load it instead of building. */
START_TEST(test_cold_then_loaded)
{
    char dir[DC_DIR_MAX];
    const uint64_t seed = dc_start("cold", dir);
    dc_env(dir, "1");
    dc_dev d;
    dc_open_or_fail(&d);
    clscan_context *ctx = dc_context(&d);
    char text[4096], want[PATH_MAX];
    clscan_context_describe(ctx, text, sizeof text);
    snprintf(want, sizeof want, "disk cache:    on, %s (CLSCAN_CACHE_DIR)", dir);
    ck_assert_msg(strstr(text, want) != NULL, "describe lacks \"%s\":\n%s", want, text);

    dc_stats s0 = dc_snap();
    dc_scan_ok(ctx, &d, 3000, clscan_verify_mix(seed, 1));
    dc_print_since("cold", &s0);
    const unsigned long built = dc_since(&s0, CLSCAN__CACHE_SOURCE_BUILDS);
    ck_assert_uint_ge(dc_since(&s0, CLSCAN__CACHE_PROGRAMS), 1);
    ck_assert_uint_ge(built, 1);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_MISSING), built);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_WRITTEN), built);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_LOADED), 0);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_REJECTED) + dc_since(&s0, CLSCAN__CACHE_REFUSED) +
                          dc_since(&s0, CLSCAN__CACHE_WRITE_FAILED), 0);
    static dc_listing l;
    dc_check_dir(dir, 1, &l);
    ck_assert_uint_eq((unsigned long)l.files, built);
    clscan_context_release(ctx);

    /* Another context, same cl_context: loads, builds nothing. */
    ctx = dc_context(&d);
    dc_stats s1 = dc_snap();
    const char *why = dc_scan(ctx, &d, CLSCAN_INT32, CLSCAN_OP_ADD, 1, 0, 5000,
                              clscan_verify_mix(seed, 2));
    ck_assert_msg(!*why, "%s", why);
    dc_print_since("second context", &s1);
    ck_assert_uint_eq(dc_since(&s1, CLSCAN__CACHE_LOADED), built);
    ck_assert_uint_eq(dc_since(&s1, CLSCAN__CACHE_SOURCE_BUILDS), 0);
    ck_assert_uint_eq(dc_since(&s1, CLSCAN__CACHE_WRITTEN), 0);
    clscan_context_release(ctx);

    /* A new cl_context too. */
    dc_close(&d);
    dc_open_or_fail(&d);
    const dc_stats s2 = dc_fresh_scan(&d, 70001, clscan_verify_mix(seed, 3));
    ck_assert_uint_eq(dc_since(&s2, CLSCAN__CACHE_LOADED), built);
    ck_assert_uint_eq(dc_since(&s2, CLSCAN__CACHE_SOURCE_BUILDS), 0);
    dc_close(&d);
    dc_check_dir(dir, 1, &l);
    clscan_test_remove_tree(dir);
}
END_TEST

/* In a child process (where Check's assertions must not run): opens the device into d
 * and a context on it into *ctx (NULL if it fails); returns "" or what failed. */
static const char *dc_child_open(dc_dev *d, clscan_context **ctx)
{
    const char *why = dc_open(d);
    *ctx = NULL;
    if (!*why && clscan_context_create(d->cl_ctx, d->device, ctx) != CLSCAN_SUCCESS)
        why = clscan_context_last_error(NULL);
    return why;
}

/* The end of a child process: prints the counters since `since` under `what`, and why
 * it failed if it did ("" if not), releases ctx and d, and exits 0 when all was well. */
static _Noreturn void dc_child_exit(const char *what, const dc_stats *since, const char *why,
                                    clscan_context *ctx, dc_dev *d)
{
    dc_print_since(what, since);
    if (*why) fprintf(stderr, "%s (pid %ld): %s\n", what, (long)getpid(), why);
    clscan_context_release(ctx);
    dc_close(d);
    _exit(*why ? 1 : 0);
}

/* In a child process: opens the device, runs the scan, checks what the cache did
 * (expect_loaded: only loads; else: builds and writes). Exits 0 when all is well. */
static void dc_child_scan(int expect_loaded, uint64_t seed)
{
    dc_dev d;
    clscan_context *ctx;
    const char *why = dc_child_open(&d, &ctx);
    dc_stats s0 = dc_snap();
    if (!*why) why = dc_scan(ctx, &d, CLSCAN_INT32, CLSCAN_OP_ADD, 0, 0, 4000, seed);
    if (!*why && expect_loaded &&
        (dc_since(&s0, CLSCAN__CACHE_LOADED) == 0 || dc_since(&s0, CLSCAN__CACHE_SOURCE_BUILDS)))
        why = "expected loads and no build from source";
    if (!*why && !expect_loaded &&
        (dc_since(&s0, CLSCAN__CACHE_SOURCE_BUILDS) == 0 ||
         dc_since(&s0, CLSCAN__CACHE_WRITTEN) == 0))
        why = "expected a build from source, written to the cache";
    dc_child_exit(expect_loaded ? "second process" : "first process", &s0, why, ctx, &d);
}

static void dc_wait_child(pid_t pid, const char *what)
{
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "%s failed (status 0x%x; its message is above)", what, status);
}

/* One process builds, the next loads. (This process opens no OpenCL before forking.) */
START_TEST(test_second_process)
{
    char dir[DC_DIR_MAX];
    const uint64_t seed = dc_start("process", dir);
    dc_env(dir, "1");
    for (int round = 0; round < 2; ++round) {
        fflush(NULL);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) dc_child_scan(round, clscan_verify_mix(seed, 10 + (uint64_t)round));
        dc_wait_child(pid, round ? "the second process" : "the first process");
    }
    static dc_listing l;
    dc_check_dir(dir, 1, &l);
    clscan_test_remove_tree(dir);
}
END_TEST

/* How a test damages a cache file: good is the valid file (len bytes, key_len bytes of
 * key text, payload after). Writes the damaged file itself. */
typedef struct dc_damage {
    const char *what;
    int refused; /* the file is valid but the driver must refuse its binary */
    void (*apply)(const char *path, const unsigned char *good, size_t len, size_t key_len,
                  uint64_t seed);
} dc_damage;

static void dmg_empty(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)g, (void)len, (void)k, (void)s;
    clscan_test_spit(p, "", 0);
}
static void dmg_header(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)len, (void)k, (void)s;
    clscan_test_spit(p, g, 20);
}
static void dmg_truncated(const char *p, const unsigned char *g, size_t len, size_t k,
                          uint64_t s)
{
    (void)s;
    clscan_test_spit(p, g, 40 + k + (len - 40 - k) / 2);
}
static void dmg_longer(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)k, (void)s;
    unsigned char *b = malloc(len + 100);
    memcpy(b, g, len);
    memset(b + len, 0x5a, 100);
    clscan_test_spit(p, b, len + 100);
    free(b);
}
/* Flips one bit at `at`. */
static void dc_flip(const char *p, const unsigned char *g, size_t len, size_t at)
{
    unsigned char *b = malloc(len);
    memcpy(b, g, len);
    b[at] ^= 0x04;
    clscan_test_spit(p, b, len);
    free(b);
}
static void dmg_payload(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    dc_flip(p, g, len, 40 + k + (size_t)(s % (len - 40 - k)));
}
static void dmg_keytext(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    dc_flip(p, g, len, 40 + (size_t)(s % k));
}
static void dmg_length(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)k, (void)s;
    dc_flip(p, g, len, 16);
}
static void dmg_magic(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)k, (void)s;
    dc_flip(p, g, len, 3);
}
static void dmg_version(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)k, (void)s;
    dc_flip(p, g, len, 8);
}
static void dmg_garbage(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)g, (void)k;
    unsigned char *b = malloc(len);
    clscan_verify_rng rng = {s};
    for (size_t i = 0; i < len; ++i) b[i] = (unsigned char)clscan_verify_rng_next(&rng);
    clscan_test_spit(p, b, len);
    free(b);
}
/* A valid file whose key text has `line` replaced by `with`. */
static void dc_foreign(const char *p, const unsigned char *g, size_t len, size_t k,
                       const char *line, const char *with)
{
    char *key = malloc(k + strlen(with) + 1);
    memcpy(key, g + 40, k);
    key[k] = '\0';
    char *at = strstr(key, line);
    ck_assert_msg(at != NULL, "the key text has no \"%s\" line:\n%s", line, key);
    char *eol = strchr(at, '\n');
    ck_assert(eol != NULL);
    char *rest = strdup(eol);
    strcpy(at, with);
    strcat(at, rest);
    free(rest);
    ck_assert(clscan__diskcache_write_file(p, key, strlen(key), g + 40 + k, len - 40 - k));
    free(key);
}
static void dmg_driver(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)s;
    dc_foreign(p, g, len, k, "driver: ", "driver: another driver 0.0");
}
static void dmg_library(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)s;
    dc_foreign(p, g, len, k, "libclscan ", "libclscan 99.0.0, disk cache format 1");
}
static void dmg_source(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)s;
    dc_foreign(p, g, len, k, "source: ", "source: 1 texts, 1 bytes, fnv1a64 0, mix64 0");
}
/* A valid file with the right key, but a payload no driver builds. */
static void dmg_binary(const char *p, const unsigned char *g, size_t len, size_t k, uint64_t s)
{
    (void)len;
    unsigned char junk[4096];
    clscan_verify_rng rng = {s};
    for (size_t i = 0; i < sizeof junk; ++i) junk[i] = (unsigned char)clscan_verify_rng_next(&rng);
    ck_assert(clscan__diskcache_write_file(p, (const char *)g + 40, k, junk, sizeof junk));
}

static const dc_damage dc_damages[] = {
    {"zero-length file", 0, dmg_empty},
    {"truncated in the header", 0, dmg_header},
    {"truncated payload", 0, dmg_truncated},
    {"100 bytes appended", 0, dmg_longer},
    {"one bit of the payload flipped", 0, dmg_payload},
    {"one bit of the key text flipped", 0, dmg_keytext},
    {"payload length changed", 0, dmg_length},
    {"wrong magic", 0, dmg_magic},
    {"another format version", 0, dmg_version},
    {"random bytes", 0, dmg_garbage},
    {"foreign: another driver version", 0, dmg_driver},
    {"foreign: another library version", 0, dmg_library},
    {"foreign: another source digest", 0, dmg_source},
    {"a binary the driver refuses", 1, dmg_binary}, /* last: not run on rusticl */
};
#define DC_DAMAGE_COUNT ((int)(sizeof dc_damages / sizeof dc_damages[0]))

/* Damaged files are detected, ignored and replaced: the call still gives the right
 * result, builds from source, rewrites the file, and the next context loads it. */
START_TEST(test_damaged_files)
{
    char dir[DC_DIR_MAX];
    const uint64_t seed = dc_start("damaged", dir);
    dc_env(dir, "1");
    dc_dev d;
    dc_open_or_fail(&d);
    (void)dc_fresh_scan(&d, 3000, clscan_verify_mix(seed, 20));
    static dc_listing l;
    dc_check_dir(dir, 1, &l);
    const int nfiles = l.files;
    unsigned char *good[DC_MAX_FILES];
    size_t len[DC_MAX_FILES], key_len[DC_MAX_FILES];
    for (int f = 0; f < nfiles; ++f) {
        good[f] = clscan_test_slurp(l.paths[f], &len[f]);
        key_len[f] = (size_t)good[f][12] | (size_t)good[f][13] << 8 | (size_t)good[f][14] << 16;
    }

    for (int k = 0; k < DC_DAMAGE_COUNT; ++k) {
        const dc_damage *dm = &dc_damages[k];
        if (dm->refused && strstr(d.name, "rusticl")) {
            /* Mesa 22.3's rusticl aborts the process (a Rust panic, "unknown version") on a
             * binary it cannot parse instead of returning CL_INVALID_BINARY. The library
             * hands a driver only binaries that passed the key and checksum checks. */
            fprintf(stderr, "%s: not tested on rusticl, which aborts on such a binary\n",
                    dm->what);
            continue;
        }
        const uint64_t s = clscan_verify_mix(seed, 100 + (uint64_t)k);
        for (int f = 0; f < nfiles; ++f) dm->apply(l.paths[f], good[f], len[f], key_len[f], s);
        const dc_stats s0 = dc_fresh_scan(&d, 2000 + (size_t)k * 97, s);
        const char *reason = clscan__diskcache_last_reason();
        fprintf(stderr, "%s: \"%s\"; ", dm->what, reason);
        dc_print_since("then", &s0);
        ck_assert_msg(dc_since(&s0, dm->refused ? CLSCAN__CACHE_REFUSED : CLSCAN__CACHE_REJECTED) ==
                          (unsigned long)nfiles,
                      "%s: not detected (%s)", dm->what, reason);
        ck_assert_msg(
            dc_since(&s0, dm->refused ? CLSCAN__CACHE_REJECTED : CLSCAN__CACHE_REFUSED) == 0,
            "%s: detected as the wrong kind (%s)", dm->what, reason);
        ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_LOADED), 0);
        ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_SOURCE_BUILDS), (unsigned long)nfiles);
        ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_WRITTEN), (unsigned long)nfiles);
        if (strncmp(dm->what, "foreign", 7) == 0)
            ck_assert_msg(strstr(reason, "key text differs") != NULL, "%s: reason \"%s\"",
                          dm->what, reason);
        /* Replaced by a valid file with the original key, which the next context loads. */
        for (int f = 0; f < nfiles; ++f) {
            clscan__diskcache_file file;
            ck_assert_msg(clscan__diskcache_read_file(l.paths[f], &file) == CLSCAN__FILE_VALID,
                          "%s: %s not replaced by a valid file: %s", dm->what, l.paths[f],
                          clscan__diskcache_last_reason());
            ck_assert_msg(file.key_length == key_len[f] &&
                              memcmp(file.key, good[f] + 40, key_len[f]) == 0,
                          "%s: the file has another key text after the rebuild", dm->what);
            clscan__diskcache_file_free(&file);
        }
        const dc_stats s1 = dc_fresh_scan(&d, 1000 + (size_t)k, clscan_verify_mix(s, 1));
        ck_assert_msg(dc_since(&s1, CLSCAN__CACHE_LOADED) == (unsigned long)nfiles &&
                          dc_since(&s1, CLSCAN__CACHE_SOURCE_BUILDS) == 0,
                      "%s: the rewritten file was not loaded", dm->what);
    }
    for (int f = 0; f < nfiles; ++f) free(good[f]);
    dc_close(&d);
    dc_check_dir(dir, nfiles, &l);
    clscan_test_remove_tree(dir);
}
END_TEST

/* CLSCAN_DISK_CACHE: 0 writes and reads nothing; 1 turns the cache on; anything else,
 * and an empty CLSCAN_CACHE_DIR, fail context creation. */
START_TEST(test_switches)
{
    char dir[DC_DIR_MAX], never[PATH_MAX];
    const uint64_t seed = dc_start("switches", dir);
    snprintf(never, sizeof never, "%s/never", dir);
    dc_dev d;
    dc_open_or_fail(&d);

    dc_env(never, "0");
    clscan_context *ctx = dc_context(&d);
    ck_assert_int_eq(ctx->target.cache.disk_cache, 0);
    char text[4096];
    clscan_context_describe(ctx, text, sizeof text);
    ck_assert_msg(strstr(text, "disk cache:    off: CLSCAN_DISK_CACHE=0\n") != NULL,
                  "describe:\n%s", text);
    dc_stats s0 = dc_snap();
    dc_scan_ok(ctx, &d, 2500, clscan_verify_mix(seed, 30));
    clscan_context_release(ctx);
    ck_assert_uint_ge(dc_since(&s0, CLSCAN__CACHE_SOURCE_BUILDS), 1);
    for (int i = CLSCAN__CACHE_LOADED; i < CLSCAN__CACHE_STAT_COUNT; ++i)
        ck_assert_msg(dc_since(&s0, (clscan__cache_counter)i) == 0,
                      "counter %d moved with the cache off", i);
    struct stat st;
    ck_assert_msg(stat(never, &st) != 0 && errno == ENOENT, "%s was created with the cache off",
                  never);

    static const char *const bad[] = {"2", "", "yes", "on", "true", " 1", "01", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        dc_env(dir, bad[i]);
        ctx = (clscan_context *)&ctx; /* must be set to NULL */
        ck_assert_int_eq(clscan_context_create(d.cl_ctx, d.device, &ctx),
                         CLSCAN_ERROR_INVALID_ENVIRONMENT);
        ck_assert_ptr_null(ctx);
        ck_assert_msg(strstr(clscan_context_last_error(NULL), "CLSCAN_DISK_CACHE") != NULL,
                      "CLSCAN_DISK_CACHE=\"%s\": message \"%s\"", bad[i],
                      clscan_context_last_error(NULL));
    }
    dc_env("", "1");
    ck_assert_int_eq(clscan_context_create(d.cl_ctx, d.device, &ctx),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    ck_assert(strstr(clscan_context_last_error(NULL), "CLSCAN_CACHE_DIR") != NULL);
    dc_env("", "0"); /* checked even when the cache is off */
    ck_assert_int_eq(clscan_context_create(d.cl_ctx, d.device, &ctx),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);

    dc_env(dir, "1");
    ctx = dc_context(&d);
    ck_assert_int_eq(ctx->target.cache.disk_cache, 1);
    ck_assert_str_eq(ctx->target.cache.cache_dir, dir);
    clscan_context_release(ctx);
    /* Unset: on, except on PoCL. */
    dc_env(dir, NULL);
    ctx = dc_context(&d);
    ck_assert_int_eq(ctx->target.cache.disk_cache, !d.pocl);
    if (d.pocl) ck_assert(strstr(ctx->target.cache.cache_source, "PoCL") != NULL);
    clscan_context_release(ctx);
    dc_close(&d);
    clscan_test_remove_tree(dir);
}
END_TEST

/* Where the cache lives: CLSCAN_CACHE_DIR (created, mode 0700; relative to the working
 * directory), else $XDG_CACHE_HOME/clscan, else $HOME/.cache/clscan, else off. */
START_TEST(test_directories)
{
    char dir[DC_DIR_MAX], want[PATH_MAX], set[PATH_MAX];
    const uint64_t seed = dc_start("dirs", dir);
    dc_dev d;
    dc_open_or_fail(&d); /* before HOME changes: the driver may keep its own cache there */
    dc_env(NULL, "1");

    snprintf(set, sizeof set, "%s/nest/a/b//", dir);
    snprintf(want, sizeof want, "%s/nest/a/b", dir);
    setenv("CLSCAN_CACHE_DIR", set, 1);
    clscan_context *ctx = dc_context(&d);
    ck_assert_str_eq(ctx->target.cache.cache_dir, want);
    dc_scan_ok(ctx, &d, 1500, clscan_verify_mix(seed, 40));
    clscan_context_release(ctx);
    static dc_listing l;
    dc_check_dir(want, 1, &l);
    struct stat st;
    ck_assert_int_eq(stat(want, &st), 0);
    ck_assert_msg((st.st_mode & 0777) == 0700, "%s: mode %o", want, (unsigned)(st.st_mode & 0777));

    /* Relative: from the working directory at context creation. */
    char cwd[PATH_MAX], here[DC_DIR_MAX];
    ck_assert(getcwd(cwd, sizeof cwd) != NULL);
    ck_assert_int_eq(chdir(dir), 0);
    ck_assert(getcwd(here, sizeof here) != NULL);
    setenv("CLSCAN_CACHE_DIR", "rel/c", 1);
    ctx = dc_context(&d);
    snprintf(want, sizeof want, "%s/rel/c", here);
    ck_assert_str_eq(ctx->target.cache.cache_dir, want);
    clscan_context_release(ctx);
    ck_assert_int_eq(chdir(cwd), 0);

    /* The defaults. */
    unsetenv("CLSCAN_CACHE_DIR");
    snprintf(set, sizeof set, "%s/xdg", dir);
    setenv("XDG_CACHE_HOME", set, 1);
    ctx = dc_context(&d);
    snprintf(want, sizeof want, "%s/xdg/clscan", dir);
    ck_assert_str_eq(ctx->target.cache.cache_dir, want);
    ck_assert(strstr(ctx->target.cache.cache_source, "XDG_CACHE_HOME") != NULL);
    dc_scan_ok(ctx, &d, 1600, clscan_verify_mix(seed, 41));
    clscan_context_release(ctx);
    dc_check_dir(want, 1, &l);

    setenv("XDG_CACHE_HOME", "relative/ignored", 1);
    snprintf(set, sizeof set, "%s/home", dir);
    setenv("HOME", set, 1);
    ctx = dc_context(&d);
    snprintf(want, sizeof want, "%s/home/.cache/clscan", dir);
    ck_assert_str_eq(ctx->target.cache.cache_dir, want);
    clscan_context_release(ctx);

    /* No home: off, and calls work as ever. */
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    ctx = dc_context(&d);
    ck_assert_int_eq(ctx->target.cache.disk_cache, 0);
    char text[4096];
    clscan_context_describe(ctx, text, sizeof text);
    ck_assert_msg(strstr(text, "disk cache:    off: none of") != NULL, "describe:\n%s", text);
    dc_stats s0 = dc_snap();
    dc_scan_ok(ctx, &d, 1700, clscan_verify_mix(seed, 42));
    clscan_context_release(ctx);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_MISSING) + dc_since(&s0, CLSCAN__CACHE_WRITTEN) +
                          dc_since(&s0, CLSCAN__CACHE_WRITE_FAILED), 0);
    setenv("HOME", "", 1);
    ctx = dc_context(&d);
    ck_assert_int_eq(ctx->target.cache.disk_cache, 0);
    clscan_context_release(ctx);
    dc_close(&d);
    clscan_test_remove_tree(dir);
}
END_TEST

/* A cache that cannot be written (a file where a directory should be, a read-only
 * directory, a directory where a cache file should be) never fails a call. */
START_TEST(test_unwritable)
{
    char dir[DC_DIR_MAX], path[PATH_MAX];
    const uint64_t seed = dc_start("unwritable", dir);
    dc_dev d;
    dc_open_or_fail(&d);

    snprintf(path, sizeof path, "%s/file", dir);
    clscan_test_spit(path, "x", 1);
    snprintf(path, sizeof path, "%s/file/sub", dir);
    dc_env(path, "1");
    dc_stats s0 = dc_fresh_scan(&d, 2222, clscan_verify_mix(seed, 50));
    dc_print_since("under a file", &s0);
    ck_assert_uint_ge(dc_since(&s0, CLSCAN__CACHE_WRITE_FAILED), 1);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_WRITTEN), 0);
    ck_assert_uint_ge(dc_since(&s0, CLSCAN__CACHE_MISSING), 1);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_REJECTED), 0);

    if (geteuid() != 0) {
        snprintf(path, sizeof path, "%s/ro", dir);
        ck_assert_int_eq(mkdir(path, 0500), 0);
        dc_env(path, "1");
        s0 = dc_fresh_scan(&d, 2223, clscan_verify_mix(seed, 51));
        ck_assert_uint_ge(dc_since(&s0, CLSCAN__CACHE_WRITE_FAILED), 1);
        static dc_listing l;
        dc_list(path, &l);
        ck_assert_int_eq(l.files + l.temps + l.others, 0);
        chmod(path, 0700);
    } else {
        fprintf(stderr, "read-only directory: not tested as root, who may write anywhere\n");
    }

    /* A directory where the cache file goes: it cannot be read, nor replaced by the
     * rename; the temporary file is removed. */
    snprintf(path, sizeof path, "%s/d", dir);
    dc_env(path, "1");
    (void)dc_fresh_scan(&d, 2224, clscan_verify_mix(seed, 52));
    static dc_listing l;
    dc_check_dir(path, 1, &l);
    for (int f = 0; f < l.files; ++f) {
        ck_assert_int_eq(unlink(l.paths[f]), 0);
        ck_assert_int_eq(mkdir(l.paths[f], 0700), 0);
    }
    s0 = dc_fresh_scan(&d, 2225, clscan_verify_mix(seed, 53));
    dc_print_since("directory in place of the file", &s0);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_REJECTED), (unsigned long)l.files);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_WRITE_FAILED), (unsigned long)l.files);
    static dc_listing after;
    dc_list(path, &after);
    ck_assert_msg(after.temps == 0, "%d temporary files left behind", after.temps);
    dc_close(&d);
    clscan_test_remove_tree(dir);
}
END_TEST

/* A cache directory that others may write or that another user owns is not used (the
 * context says why, and calls work); a cache file that others may write is not loaded,
 * and is replaced by one only this user may write. */
START_TEST(test_untrusted)
{
    char dir[DC_DIR_MAX], path[PATH_MAX], text[8192];
    const uint64_t seed = dc_start("untrusted", dir);
    dc_dev d;
    dc_open_or_fail(&d);

    snprintf(path, sizeof path, "%s/open", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(chmod(path, 0777), 0);
    dc_env(path, "1");
    clscan_context *ctx = dc_context(&d);
    ck_assert_int_eq(ctx->target.cache.disk_cache, 0);
    clscan_context_describe(ctx, text, sizeof text);
    ck_assert_msg(strstr(text, "is writable by group or others (owner uid") &&
                      strstr(text, "mode 777"),
                  "describe:\n%s", text);
    dc_stats s0 = dc_snap();
    dc_scan_ok(ctx, &d, 2300, clscan_verify_mix(seed, 60));
    clscan_context_release(ctx);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_MISSING) + dc_since(&s0, CLSCAN__CACHE_WRITTEN) +
                          dc_since(&s0, CLSCAN__CACHE_LOADED), 0);
    static dc_listing l;
    dc_list(path, &l);
    ck_assert_int_eq(l.files + l.temps + l.others, 0);

    if (geteuid() == 0) { /* (only root can give a directory away) */
        snprintf(path, sizeof path, "%s/theirs", dir);
        ck_assert_int_eq(mkdir(path, 0700), 0);
        ck_assert_int_eq(chown(path, 12345, 12345), 0);
        dc_env(path, "1");
        ctx = dc_context(&d);
        ck_assert_int_eq(ctx->target.cache.disk_cache, 0);
        clscan_context_describe(ctx, text, sizeof text);
        ck_assert_msg(strstr(text, "is not owned by this user (owner uid 12345"),
                      "describe:\n%s", text);
        clscan_context_release(ctx);
    } else {
        fprintf(stderr, "a directory of another user: not tested (only root can chown)\n");
    }

    /* A good directory; its file made group-writable is rejected, then rewritten 0600. */
    snprintf(path, sizeof path, "%s/mine", dir);
    dc_env(path, "1");
    (void)dc_fresh_scan(&d, 2301, clscan_verify_mix(seed, 61));
    dc_check_dir(path, 1, &l);
    for (int f = 0; f < l.files; ++f) ck_assert_int_eq(chmod(l.paths[f], 0664), 0);
    s0 = dc_fresh_scan(&d, 2302, clscan_verify_mix(seed, 62));
    dc_print_since("group-writable files", &s0);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_LOADED), 0);
    ck_assert_uint_ge(dc_since(&s0, CLSCAN__CACHE_REJECTED), 1);
    ck_assert_uint_ge(dc_since(&s0, CLSCAN__CACHE_WRITTEN), 1);
    dc_check_dir(path, 1, &l);
    for (int f = 0; f < l.files; ++f) {
        struct stat st;
        ck_assert_int_eq(stat(l.paths[f], &st), 0);
        ck_assert_msg((st.st_mode & 0777) == 0600, "%s: mode %o", l.paths[f],
                      (unsigned)(st.st_mode & 0777));
    }
    s0 = dc_fresh_scan(&d, 2303, clscan_verify_mix(seed, 63));
    ck_assert_uint_ge(dc_since(&s0, CLSCAN__CACHE_LOADED), 1);
    ck_assert_uint_eq(dc_since(&s0, CLSCAN__CACHE_REJECTED), 0);
    dc_close(&d);
    clscan_test_remove_tree(dir);
}
END_TEST

/* Child `i` of the concurrent test: waits for the start signal on fd, then runs the
 * shared scan and one of two others (in an order that depends on i), checks every
 * result, and that it never saw a damaged file; in the second round, that it built
 * nothing. Exits 0 when all is well. */
enum { DC_CHILDREN = 4 };
static void dc_child_concurrent(int i, int round, int start_fd, uint64_t seed)
{
    char c;
    while (read(start_fd, &c, 1) < 0 && errno == EINTR) {
    }
    close(start_fd);
    dc_dev d;
    clscan_context *ctx;
    const char *why = dc_child_open(&d, &ctx);
    dc_stats s0 = dc_snap();
    for (int k = 0; k < 2 && !*why; ++k) {
        const int shared = (k + i) % 2 == 0;
        const clscan_type type = shared ? CLSCAN_INT32 : i / 2 % 2 ? CLSCAN_INT64 : CLSCAN_UINT32;
        const clscan_op op = shared ? CLSCAN_OP_ADD : i / 2 % 2 ? CLSCAN_OP_XOR : CLSCAN_OP_MAX;
        const uint64_t s = clscan_verify_mix(seed, 1000 * (uint64_t)round + 10 * (uint64_t)i +
                                                       (uint64_t)k);
        why = dc_scan(ctx, &d, type, op, !shared, 0, 3000 + 100 * (size_t)i, s);
    }
    if (!*why && (dc_since(&s0, CLSCAN__CACHE_REJECTED) || dc_since(&s0, CLSCAN__CACHE_REFUSED)))
        why = "saw a damaged file or a refused binary";
    if (!*why && round == 1 &&
        (dc_since(&s0, CLSCAN__CACHE_SOURCE_BUILDS) || dc_since(&s0, CLSCAN__CACHE_WRITTEN) ||
         dc_since(&s0, CLSCAN__CACHE_LOADED) < 2))
        why = "built or wrote in the second round";
    char what[64];
    snprintf(what, sizeof what, "round %d, process %d", round, i);
    dc_child_exit(what, &s0, why, ctx, &d);
}

/* Several processes fill one empty cache at once, with the same and different
 * programs; then again from the full cache. */
START_TEST(test_concurrent)
{
    char dir[DC_DIR_MAX];
    const uint64_t seed = dc_start("concurrent", dir);
    dc_env(dir, "1");
    for (int round = 0; round < 2; ++round) {
        int start[2];
        ck_assert_int_eq(pipe(start), 0);
        pid_t pids[DC_CHILDREN];
        fflush(NULL);
        for (int i = 0; i < DC_CHILDREN; ++i) {
            pids[i] = fork();
            ck_assert_int_ge(pids[i], 0);
            if (pids[i] == 0) {
                close(start[1]);
                dc_child_concurrent(i, round, start[0], seed);
            }
        }
        close(start[0]);
        close(start[1]); /* all start now */
        for (int i = 0; i < DC_CHILDREN; ++i) dc_wait_child(pids[i], "a concurrent process");
        static dc_listing l;
        dc_check_dir(dir, 3, &l);
        fprintf(stderr, "round %d: %d valid files, no temporary file\n", round, l.files);
    }
    clscan_test_remove_tree(dir);
}
END_TEST

/* clscan_context_warm builds every program later calls use: after it, scans of every
 * type and operator (in place and not) and the compactions without a predicate (unique
 * of a large n too) build nothing. Where the disk cache is on by default, a second
 * context's warm call loads every program. */
START_TEST(test_warm)
{
    char dir[DC_DIR_MAX];
    const uint64_t seed = dc_start("warm", dir);
    dc_env(dir, NULL);
    dc_dev d;
    dc_open_or_fail(&d);
    ck_assert_int_eq(clscan_context_warm(NULL), CLSCAN_ERROR_INVALID_ARGUMENT);
    clscan_context *ctx = dc_context(&d);
    dc_stats s0 = dc_snap();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clscan_status s = clscan_context_warm(ctx);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_msg(s == CLSCAN_SUCCESS, "clscan_context_warm: %s: %s", clscan_status_string(s),
                  clscan_context_last_error(ctx));
    const unsigned long programs = dc_since(&s0, CLSCAN__CACHE_PROGRAMS);
    fprintf(stderr, "warm: %lu programs in %.2f s (disk cache %s)\n", programs,
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
            ctx->target.cache.disk_cache ? "on" : "off");
    dc_print_since("warm", &s0);
    ck_assert_uint_ge(programs, 20);
    dc_stats s1 = dc_snap();
    ck_assert_int_eq(clscan_context_warm(ctx), CLSCAN_SUCCESS);
    ck_assert_uint_eq(dc_since(&s1, CLSCAN__CACHE_PROGRAMS), 0);

    /* Every scan the device takes, in place (the multi-level scan) and not; bitwise
     * operators on floats and doubles without fp64 are refused before any build. */
    clscan_verify_rng rng = {clscan_verify_mix(seed, 60)};
    char msg[512];
    int calls = 0;
    for (int t = 0; t < CLSCAN_TYPE_COUNT; ++t)
        for (int o = 0; o < CLSCAN_OP_COUNT; ++o)
            for (int in_place = 0; in_place < 2; ++in_place) {
                const size_t n = 1 + (size_t)(clscan_verify_rng_next(&rng) % 5000);
                const char *why = dc_scan(ctx, &d, (clscan_type)t, (clscan_op)o, in_place,
                                          in_place, n, clscan_verify_rng_next(&rng));
                ck_assert_msg(!*why, "%s", why);
                ++calls;
            }
    /* select_flagged and unique of every type, in place and not. */
    for (int t = 0; t < CLSCAN_TYPE_COUNT; ++t)
        for (int kind = 0; kind < 2; ++kind)
            for (int layout = 0; layout < 3; layout += 2) {
                clscan_verify_compact_case c;
                memset(&c, 0, sizeof c);
                c.kind = kind ? CLSCAN_VERIFY_UNIQUE : CLSCAN_VERIFY_SELECT_FLAGGED;
                c.type = (clscan_type)t;
                c.pattern = kind ? CLSCAN_VERIFY_DUPS_RUNS : CLSCAN_VERIFY_FLAGS_HALF;
                c.n = 1 + (size_t)(clscan_verify_rng_next(&rng) % 5000);
                c.seed = clscan_verify_rng_next(&rng);
                clscan_verify_compact_layout(&c, layout);
                clscan_verify_result r =
                    clscan_verify_run_compact(ctx, d.cl_ctx, d.queue, &c, msg, sizeof msg);
                ck_assert_msg(r != CLSCAN_VERIFY_FAIL, "%s %s n=%zu layout %d: %s",
                              clscan_verify_kind_name(c.kind), clscan_type_name(c.type), c.n,
                              layout, msg);
                ++calls;
            }
    /* unique of one tile a compute unit and more, the size that took a program of its
     * own (groups of half the size on NVIDIA) until the thirty-eighth session: it builds
     * nothing either. */
    {
        const clscan__profile *p = &ctx->target.profile;
        clscan_verify_compact_case c;
        memset(&c, 0, sizeof c);
        c.kind = CLSCAN_VERIFY_UNIQUE;
        c.type = CLSCAN_INT32;
        c.pattern = CLSCAN_VERIFY_DUPS_RUNS;
        c.n = (size_t)p->sp_wg_size * p->sp_items * p->compute_units + 1;
        c.seed = clscan_verify_rng_next(&rng);
        clscan_verify_compact_layout(&c, 0);
        clscan_verify_result r =
            clscan_verify_run_compact(ctx, d.cl_ctx, d.queue, &c, msg, sizeof msg);
        ck_assert_msg(r != CLSCAN_VERIFY_FAIL, "unique int32 n=%zu: %s", c.n, msg);
        ++calls;
    }
    size_t wg = 0;
    ck_assert_int_eq(clscan_kernel_build_options(ctx, CLSCAN_FLOAT, CLSCAN_OP_MAX, 0, NULL, 0,
                                                 NULL, &wg, NULL),
                     CLSCAN_SUCCESS);
    dc_print_since("calls after warm", &s1);
    ck_assert_msg(dc_since(&s1, CLSCAN__CACHE_PROGRAMS) == 0,
                  "%lu programs built by %d calls after the warm call",
                  dc_since(&s1, CLSCAN__CACHE_PROGRAMS), calls);
    const int disk = ctx->target.cache.disk_cache;
    clscan_context_release(ctx);

    if (disk) {
        ctx = dc_context(&d);
        dc_stats s2 = dc_snap();
        ck_assert_int_eq(clscan_context_warm(ctx), CLSCAN_SUCCESS);
        dc_print_since("second context's warm", &s2);
        ck_assert_uint_eq(dc_since(&s2, CLSCAN__CACHE_PROGRAMS), programs);
        ck_assert_uint_eq(dc_since(&s2, CLSCAN__CACHE_SOURCE_BUILDS), 0);
        ck_assert_uint_ge(dc_since(&s2, CLSCAN__CACHE_LOADED), programs);
        clscan_context_release(ctx);
        static dc_listing l;
        dc_check_dir(dir, (int)programs, &l);
    } else {
        fprintf(stderr, "disk cache off by default on %s: the warm call's loads are not "
                        "tested here\n", d.name);
    }
    dc_close(&d);
    clscan_test_remove_tree(dir);
}
END_TEST

/* ------------------------------------------------------------ suite --------- */

static Suite *dc_suite(void)
{
    Suite *s = suite_create("diskcache");
    TCase *host = tcase_create("format");
    tcase_add_test(host, test_format);
    suite_add_tcase(s, host);
    TCase *dev = tcase_create("device");
    tcase_set_timeout(dev, 580);
    tcase_add_test(dev, test_cold_then_loaded);
    tcase_add_test(dev, test_second_process);
    tcase_add_test(dev, test_damaged_files);
    tcase_add_test(dev, test_switches);
    tcase_add_test(dev, test_directories);
    tcase_add_test(dev, test_unwritable);
    tcase_add_test(dev, test_untrusted);
    tcase_add_test(dev, test_concurrent);
    tcase_add_test(dev, test_warm);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    return clscan_test_cache_main(dc_suite(), dc_root, sizeof dc_root, "diskcache");
}
