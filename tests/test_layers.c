/* test_layers.c - Check suite for the OpenCL C layers called from a user's own kernels
 * (tests/test_layers.cl, built with clscan_kernel_build_options): the sub-group layer
 * (every implementation the device can run, emulated widths 1, 2 and the largest), the
 * work-group layer (Blelloch and sub-group scans, groups of 1, 2, 64 and the device's
 * maximum, 1 and more items a work-item, partial last tiles) and the look-back, against
 * host references, for several types and operators; and docs/GUIDE.md's example kernel
 * with a work-group asked for (clscan_kernel_build_options_wg). Public API only (clscan.h). */
/* SPDX-License-Identifier: MIT */
#include "clscan.h"

#include <check.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if !defined(LAYERS_CL_PATH) || !defined(LAYERS_INCLUDE_DIR)
#error "LAYERS_CL_PATH (tests/test_layers.cl) and LAYERS_INCLUDE_DIR (cl/) come from the build"
#endif

/* ------------------------------------------------------------ devices ------- */

/* The first device of each platform ($CLSCAN_TEST_PLATFORM: only platforms whose name
 * contains it, in any case), opened in each forked test: OpenCL state must not cross a
 * fork. Each configuration makes its own clscan context on it. */
typedef struct layer_dev {
    cl_device_id dev;
    cl_context cl_ctx;
    cl_command_queue queue;
    char name[256];
    size_t max_wg;        /* CL_DEVICE_MAX_WORK_GROUP_SIZE, rounded down to a power of 2 */
    cl_ulong local_mem;   /* CL_DEVICE_LOCAL_MEM_SIZE */
    int int64_atomics;    /* cl_khr_int64_base_atomics */
    int simulator;        /* Oclgrind: the quick matrix (see quick) */
} layer_dev;

#define LAYER_MAX_DEVS 16
static layer_dev layer_devs[LAYER_MAX_DEVS];
static int layer_ndevs;

static int name_matches(const char *name, const char *part)
{
    const size_t len = strlen(part);
    for (const char *p = name; strlen(p) >= len; p++) {
        size_t k = 0;
        while (k < len && tolower((unsigned char)p[k]) == tolower((unsigned char)part[k])) k++;
        if (k == len) return 1;
    }
    return 0;
}

static size_t floor_pow2(size_t x)
{
    size_t p = 1;
    while (p * 2 <= x && p * 2 != 0) p *= 2;
    return p;
}

/* Opens the devices into layer_devs; returns how many (no Check assertions: also used
 * by the probe in main). */
static int open_devices(void)
{
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[LAYER_MAX_DEVS];
    cl_uint count = 0;
    layer_ndevs = 0;
    if (clGetPlatformIDs(LAYER_MAX_DEVS, plats, &count) != CL_SUCCESS) count = 0;
    for (cl_uint p = 0; p < count && p < LAYER_MAX_DEVS; p++) {
        layer_dev *d = &layer_devs[layer_ndevs];
        char pname[128] = "", dname[120] = "", ext[8192] = "";
        cl_int err;
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (want && !name_matches(pname, want)) continue;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &d->dev, NULL) != CL_SUCCESS)
            continue;
        clGetDeviceInfo(d->dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
        snprintf(d->name, sizeof d->name, "%s / %s", pname, dname);
        const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                               (cl_context_properties)plats[p], 0};
        d->cl_ctx = clCreateContext(props, 1, &d->dev, NULL, NULL, &err);
        if (!d->cl_ctx) continue;
        d->queue = clCreateCommandQueue(d->cl_ctx, d->dev, 0, &err);
        if (!d->queue) {
            clReleaseContext(d->cl_ctx);
            continue;
        }
        size_t max_wg = 1;
        clGetDeviceInfo(d->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
        d->max_wg = floor_pow2(max_wg);
        clGetDeviceInfo(d->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem, &d->local_mem,
                        NULL);
        size_t elen = 0;
        if (clGetDeviceInfo(d->dev, CL_DEVICE_EXTENSIONS, 0, NULL, &elen) == CL_SUCCESS &&
            elen <= sizeof ext)
            clGetDeviceInfo(d->dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
        d->int64_atomics = strstr(ext, "cl_khr_int64_base_atomics") != NULL;
        d->simulator = name_matches(pname, "Oclgrind");
        layer_ndevs++;
    }
    return layer_ndevs;
}

static void close_devices(void)
{
    while (layer_ndevs > 0) {
        layer_dev *d = &layer_devs[--layer_ndevs];
        clReleaseCommandQueue(d->queue);
        clReleaseContext(d->cl_ctx);
    }
}

static double time_options, time_builds, time_launches;

static void layers_setup(void)
{
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    time_options = time_builds = time_launches = 0; /* (one process for all with CK_FORK=no) */
    ck_assert_msg(open_devices() > 0, "no OpenCL device found%s%s%s: these tests need one",
                  want ? " on a platform matching CLSCAN_TEST_PLATFORM='" : "",
                  want ? want : "", want ? "'" : "");
}

static void layers_teardown(void) { close_devices(); }

/* Fewer types, shapes and tiles: with $CLSCAN_TEST_QUICK=1, and always on Oclgrind (a
 * simulator, where the full matrix takes half an hour). */
static int quick(const layer_dev *d)
{
    const char *q = getenv("CLSCAN_TEST_QUICK");
    return (q && *q && strcmp(q, "0") != 0) || d->simulator;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ seeds --------- */

static uint64_t master_seed;

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A seed of its own for each case, from the master seed and the case's numbers. */
static uint64_t case_seed(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t s = master_seed ^ (a * 0x100000001b3ull) ^ (b << 20) ^ (c << 40);
    return splitmix(&s);
}

/* ------------------------------------------------------------ values -------- */

/* Elements travel as their bits in a uint64_t (4-byte types in the low half). */
static size_t tsize(clscan_type t) { return clscan_type_size(t); }

static uint64_t get_elem(clscan_type t, const void *buf, size_t i)
{
    if (tsize(t) == 4) {
        uint32_t v;
        memcpy(&v, (const char *)buf + 4 * i, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)buf + 8 * i, 8);
    return v;
}

static void put_elem(clscan_type t, void *buf, size_t i, uint64_t v)
{
    if (tsize(t) == 4) {
        const uint32_t w = (uint32_t)v;
        memcpy((char *)buf + 4 * i, &w, 4);
    } else {
        memcpy((char *)buf + 8 * i, &v, 8);
    }
}

static float as_f(uint64_t b)
{
    const uint32_t w = (uint32_t)b;
    float f;
    memcpy(&f, &w, 4);
    return f;
}
static uint64_t f_bits(float f)
{
    uint32_t w;
    memcpy(&w, &f, 4);
    return w;
}
static double as_d(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}
static uint64_t d_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

/* a op b, as the layers define it (clscan.h: integers wrap, floats' MIN/MAX are
 * fmin/fmax). */
static uint64_t host_op(clscan_type t, clscan_op op, uint64_t a, uint64_t b)
{
    switch (t) {
    case CLSCAN_INT32:
    case CLSCAN_UINT32: {
        const uint32_t x = (uint32_t)a, y = (uint32_t)b;
        const int s = t == CLSCAN_INT32;
        switch (op) {
        case CLSCAN_OP_ADD: return (uint32_t)(x + y);
        case CLSCAN_OP_MUL: return (uint32_t)(x * y);
        case CLSCAN_OP_MIN: return (s ? (int32_t)x < (int32_t)y : x < y) ? x : y;
        case CLSCAN_OP_MAX: return (s ? (int32_t)x > (int32_t)y : x > y) ? x : y;
        case CLSCAN_OP_AND: return x & y;
        case CLSCAN_OP_OR: return x | y;
        case CLSCAN_OP_XOR: return x ^ y;
        }
        break;
    }
    case CLSCAN_INT64:
    case CLSCAN_UINT64: {
        const int s = t == CLSCAN_INT64;
        switch (op) {
        case CLSCAN_OP_ADD: return a + b;
        case CLSCAN_OP_MUL: return a * b;
        case CLSCAN_OP_MIN: return (s ? (int64_t)a < (int64_t)b : a < b) ? a : b;
        case CLSCAN_OP_MAX: return (s ? (int64_t)a > (int64_t)b : a > b) ? a : b;
        case CLSCAN_OP_AND: return a & b;
        case CLSCAN_OP_OR: return a | b;
        case CLSCAN_OP_XOR: return a ^ b;
        }
        break;
    }
    case CLSCAN_FLOAT: {
        const float x = as_f(a), y = as_f(b);
        switch (op) {
        case CLSCAN_OP_ADD: return f_bits(x + y);
        case CLSCAN_OP_MUL: return f_bits(x * y);
        case CLSCAN_OP_MIN: return f_bits(fminf(x, y));
        case CLSCAN_OP_MAX: return f_bits(fmaxf(x, y));
        default: break;
        }
        break;
    }
    case CLSCAN_DOUBLE: {
        const double x = as_d(a), y = as_d(b);
        switch (op) {
        case CLSCAN_OP_ADD: return d_bits(x + y);
        case CLSCAN_OP_MUL: return d_bits(x * y);
        case CLSCAN_OP_MIN: return d_bits(fmin(x, y));
        case CLSCAN_OP_MAX: return d_bits(fmax(x, y));
        default: break;
        }
        break;
    }
    }
    ck_abort_msg("host_op: unexpected %s %s", clscan_type_name(t), clscan_op_name(op));
    return 0;
}

static uint64_t identity(clscan_type t, clscan_op op)
{
    const int is_signed = t == CLSCAN_INT32 || t == CLSCAN_INT64;
    const int wide = tsize(t) == 8;
    switch (op) {
    case CLSCAN_OP_ADD:
    case CLSCAN_OP_OR:
    case CLSCAN_OP_XOR: return 0; /* (+0.0 for floats) */
    case CLSCAN_OP_MUL:
        return t == CLSCAN_FLOAT ? f_bits(1.0f) : t == CLSCAN_DOUBLE ? d_bits(1.0) : 1;
    case CLSCAN_OP_AND: return wide ? ~0ull : 0xffffffffull;
    case CLSCAN_OP_MIN:
        if (t == CLSCAN_FLOAT) return f_bits(INFINITY);
        if (t == CLSCAN_DOUBLE) return d_bits(INFINITY);
        if (wide) return is_signed ? (uint64_t)INT64_MAX : UINT64_MAX;
        return is_signed ? (uint64_t)INT32_MAX : UINT32_MAX;
    case CLSCAN_OP_MAX:
        if (t == CLSCAN_FLOAT) return f_bits(-INFINITY);
        if (t == CLSCAN_DOUBLE) return d_bits(-INFINITY);
        if (wide) return is_signed ? (uint64_t)INT64_MIN : 0;
        return is_signed ? (uint32_t)INT32_MIN : 0;
    }
    return 0;
}

/* A random input. Exact mode: floats are quarter-integers of at most 16 (ADD) or a
 * random finite value (MIN, MAX), so that any order of combination gives the same bits
 * for the sizes here, and never -0.0; integers are random bits (odd for MUL, so that
 * products do not collapse to 0). Inexact mode (floats only): values that round. */
static uint64_t random_elem(clscan_type t, clscan_op op, uint64_t *rng, int exact)
{
    const uint64_t r = splitmix(rng);
    switch (t) {
    case CLSCAN_INT32:
    case CLSCAN_UINT32: return (uint32_t)(op == CLSCAN_OP_MUL ? r | 1 : r);
    case CLSCAN_INT64:
    case CLSCAN_UINT64: return op == CLSCAN_OP_MUL ? r | 1 : r;
    case CLSCAN_FLOAT:
        if (!exact)
            return f_bits(ldexpf((float)(r >> 40) / 16777216.0f + 0.1f, (int)(r % 9) - 4));
        if (op == CLSCAN_OP_ADD || op == CLSCAN_OP_MUL)
            return f_bits((float)((int)(r % 129) - 64) * 0.25f);
        return f_bits((float)((int)(r % 200001) - 100000) * 0.125f);
    case CLSCAN_DOUBLE:
        if (!exact)
            return d_bits(ldexp((double)(r >> 11) / 9007199254740992.0 + 0.1, (int)(r % 9) - 4));
        if (op == CLSCAN_OP_ADD || op == CLSCAN_OP_MUL)
            return d_bits((double)((int)(r % 129) - 64) * 0.25);
        { /* any finite double but -0.0 */
            const double m = (double)(r >> 12) + 1.0;
            return d_bits(((r >> 11) & 1 ? -m : m) * ldexp(1.0, (int)(r % 64) - 80));
        }
    }
    return 0;
}

/* Writes the value as text (bits and number) into buf. */
static const char *show(clscan_type t, uint64_t v, char *buf, size_t size)
{
    switch (t) {
    case CLSCAN_INT32: snprintf(buf, size, "%" PRId32, (int32_t)(uint32_t)v); break;
    case CLSCAN_UINT32: snprintf(buf, size, "%" PRIu32, (uint32_t)v); break;
    case CLSCAN_INT64: snprintf(buf, size, "%" PRId64, (int64_t)v); break;
    case CLSCAN_UINT64: snprintf(buf, size, "%" PRIu64, v); break;
    case CLSCAN_FLOAT: snprintf(buf, size, "%.9g (0x%08" PRIx32 ")", as_f(v), (uint32_t)v); break;
    case CLSCAN_DOUBLE: snprintf(buf, size, "%.17g (0x%016" PRIx64 ")", as_d(v), v); break;
    }
    return buf;
}

/* ------------------------------------------------------------ tally --------- */

/* Seconds spent in clscan_kernel_build_options (which builds the library's own program
 * on first use), in clBuildProgram, and in launches (PoCL compiles there), by the
 * current test (layers_setup resets them; defined there). */

/* One test's count: cases passed, failed, skipped; the first failure for the final
 * assertion; at most a few lines printed per case. */
typedef struct tally {
    unsigned pass, fail, skip;
    unsigned case_errors; /* in the current case */
    char first[1600];
} tally;

static void case_begin(tally *tl) { tl->case_errors = 0; }

static void case_end(tally *tl)
{
    if (tl->case_errors) tl->fail++;
    else tl->pass++;
}

/* Records one wrong value of the current case: `where` names the case. */
static void mismatch(tally *tl, const char *where, const char *fmt, ...)
{
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (tl->case_errors == 0 && tl->fail == 0 && tl->first[0] == '\0')
        snprintf(tl->first, sizeof tl->first, "%s: %s", where, what);
    if (tl->case_errors++ < 6) fprintf(stderr, "FAIL %s: %s\n", where, what);
    else if (tl->case_errors == 7) fprintf(stderr, "FAIL %s: (more errors not shown)\n", where);
}

static void skip_note(tally *tl, const char *fmt, ...)
{
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    tl->skip++;
    fprintf(stderr, "SKIP %s\n", what);
}

static void tally_check(const tally *tl, const char *what)
{
    fprintf(stderr, "%s: %.1f s in clscan_kernel_build_options, %.1f s building test kernels, "
                    "%.1f s in launches\n", what, time_options, time_builds, time_launches);
    fprintf(stderr, "%s: %u passed, %u failed, %u skipped\n", what, tl->pass, tl->fail, tl->skip);
    ck_assert_msg(tl->fail == 0, "%s: %u failed; first: %s", what, tl->fail, tl->first);
    ck_assert_msg(tl->pass > 0, "%s: no case ran", what);
}

/* ------------------------------------------------------------ configurations */

/* The environment variables a configuration sets (others' values are kept out of the
 * way while its context is made, and restored after). */
static const char *const managed_env[] = {
    "CLSCAN_SCAN_ALGO",      "CLSCAN_SUBGROUP_IMPL",    "CLSCAN_SUBGROUP_WIDTH",
    "CLSCAN_WG_SCAN",        "CLSCAN_WORK_GROUP_SIZE",  "CLSCAN_ITEMS_PER_THREAD",
};
enum { N_MANAGED = sizeof managed_env / sizeof managed_env[0] };

/* A context configuration: values of managed_env (NULL: unset; "max": the device's
 * largest work-group), and the work-group caps passed to clscan_kernel_build_options
 * (0: none; LAYER_CAP_MAX: the device's largest). */
#define LAYER_CAP_MAX ((size_t)-1)
typedef struct layer_config {
    const char *name;
    const char *env[N_MANAGED];
    size_t caps[5];
    size_t ncaps;     /* caps used */
} layer_config;

/* Makes a clscan context on d with cfg's environment. Returns the status; *why gets the
 * library's message on failure. */
static clscan_status config_context(layer_dev *d, const layer_config *cfg, clscan_context **out,
                                    char *why, size_t why_size)
{
    char *saved[N_MANAGED];
    for (size_t i = 0; i < N_MANAGED; i++) {
        const char *old = getenv(managed_env[i]);
        saved[i] = old ? strdup(old) : NULL;
        const char *v = cfg->env[i];
        char num[32];
        if (v && strcmp(v, "max") == 0) {
            snprintf(num, sizeof num, "%zu", d->max_wg);
            v = num;
        }
        if (v) setenv(managed_env[i], v, 1);
        else unsetenv(managed_env[i]);
    }
    *out = NULL;
    const clscan_status s = clscan_context_create(d->cl_ctx, d->dev, out);
    if (s != CLSCAN_SUCCESS) snprintf(why, why_size, "%s", clscan_context_last_error(NULL));
    for (size_t i = 0; i < N_MANAGED; i++) {
        if (saved[i]) setenv(managed_env[i], saved[i], 1);
        else unsetenv(managed_env[i]);
        free(saved[i]);
    }
    return s;
}

/* ------------------------------------------------------------ building ------ */

static char *layers_source;

static void load_source(void)
{
    if (layers_source) return;
    FILE *f = fopen(LAYERS_CL_PATH, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", LAYERS_CL_PATH);
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    ck_assert(len > 0);
    layers_source = malloc((size_t)len + 1);
    ck_assert(layers_source != NULL);
    ck_assert_uint_eq(fread(layers_source, 1, (size_t)len, f), (size_t)len);
    layers_source[len] = '\0';
    fclose(f);
}

typedef struct built {
    cl_program prog;
    cl_kernel kernel;
    size_t wg, tile;
    char options[2600];
} built;

static void built_release(built *b)
{
    if (b->kernel) clReleaseKernel(b->kernel);
    if (b->prog) clReleaseProgram(b->prog);
    b->kernel = NULL;
    b->prog = NULL;
}

static unsigned builds_done; /* user programs built by this process */

/* Builds test_layers.cl's kernel `kname` for (type, op) with the options of
 * clscan_kernel_build_options (work-group cap `cap`, 0 for none) and `extra` after them.
 * As docs/GUIDE.md says, a kernel that allows fewer work-items (or needs more local
 * memory than the device has) is built again with a smaller cap. Returns 0, or
 * CLSCAN_ERROR_UNSUPPORTED where the library refuses the type (double without fp64). */
static clscan_status build_kernel(layer_dev *d, clscan_context *sc, clscan_type t, clscan_op op,
                                  size_t cap, const char *extra, const char *kname, built *b)
{
    load_source();
    memset(b, 0, sizeof *b);
    for (int attempt = 0; attempt < 6; attempt++) {
        char opts[2048];
        size_t len = 0;
        double t0 = now_s();
        clscan_status s = clscan_kernel_build_options(sc, t, op, cap, opts, sizeof opts, &len,
                                                      &b->wg, &b->tile);
        time_options += now_s() - t0;
        if (s == CLSCAN_ERROR_UNSUPPORTED) return s;
        ck_assert_msg(s == CLSCAN_SUCCESS,
                      "%s: clscan_kernel_build_options(%s %s, cap %zu): %s: %s", d->name,
                      clscan_type_name(t), clscan_op_name(op), cap, clscan_status_string(s),
                      clscan_context_last_error(sc));
        ck_assert_msg(b->wg >= 1 && (b->wg & (b->wg - 1)) == 0 && (cap == 0 || b->wg <= cap),
                      "%s: work-group size %zu for cap %zu", d->name, b->wg, cap);
        ck_assert_msg(b->tile >= b->wg && b->tile % b->wg == 0, "%s: tile %zu, work-group %zu",
                      d->name, b->tile, b->wg);
        snprintf(b->options, sizeof b->options, "%s %s", opts, extra);
        cl_int err;
        const char *src = layers_source;
        b->prog = clCreateProgramWithSource(d->cl_ctx, 1, &src, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        t0 = now_s();
        err = clBuildProgram(b->prog, 1, &d->dev, b->options, NULL, NULL);
        time_builds += now_s() - t0;
        builds_done++;
        if (err != CL_SUCCESS) {
            static char log[32768];
            log[0] = '\0';
            clGetProgramBuildInfo(b->prog, d->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            log[sizeof log - 1] = '\0';
            ck_abort_msg("%s: test_layers.cl does not build with \"%s\": %s: %s", d->name,
                         b->options, clscan_status_string(err), log);
        }
        {   /* A build that warns says so (once a process: the same text each time). */
            static int warned;
            static char log[8192];
            log[0] = '\0';
            clGetProgramBuildInfo(b->prog, d->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            log[sizeof log - 1] = '\0';
            if (!warned && strstr(log, "warning")) {
                warned = 1;
                fprintf(stderr,
                        "note %s: test_layers.cl built with warnings (options \"%s\"):\n%s\n",
                        d->name, b->options, log);
            }
        }
        b->kernel = clCreateKernel(b->prog, kname, &err);
        ck_assert_msg(err == CL_SUCCESS, "%s: clCreateKernel(%s): %s", d->name, kname,
                      clscan_status_string(err));
        size_t kwg = 0;
        cl_ulong klocal = 0;
        clGetKernelWorkGroupInfo(b->kernel, d->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                 NULL);
        clGetKernelWorkGroupInfo(b->kernel, d->dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof klocal,
                                 &klocal, NULL);
        if (kwg >= b->wg && klocal <= d->local_mem) return CLSCAN_SUCCESS;
        const size_t next = kwg < b->wg ? floor_pow2(kwg ? kwg : 1) : b->wg / 2;
        fprintf(stderr, "note %s: %s for %s %s allows %zu work-items and needs %llu bytes of "
                        "local memory (of %llu): built again for %zu\n",
                d->name, kname, clscan_type_name(t), clscan_op_name(op), kwg,
                (unsigned long long)klocal, (unsigned long long)d->local_mem, next);
        ck_assert_msg(b->wg > 1, "%s: %s cannot run even with one work-item", d->name, kname);
        built_release(b);
        cap = next;
    }
    ck_abort_msg("%s: no work-group size fits %s", d->name, kname);
    return CLSCAN_ERROR_OUT_OF_RESOURCES;
}

static cl_mem make_buffer(layer_dev *d, size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 1, (void *)(uintptr_t)init, &err);
    ck_assert_msg(m != NULL, "%s: clCreateBuffer(%zu): %s", d->name, bytes,
                  clscan_status_string(err));
    return m;
}

static void read_buffer(layer_dev *d, cl_mem m, size_t bytes, void *out)
{
    const cl_int err = clEnqueueReadBuffer(d->queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    ck_assert_msg(err == CL_SUCCESS, "%s: clEnqueueReadBuffer: %s", d->name,
                  clscan_status_string(err));
}

static void set_arg(cl_kernel k, cl_uint i, size_t size, const void *v)
{
    const cl_int err = clSetKernelArg(k, i, size, v);
    ck_assert_msg(err == CL_SUCCESS, "clSetKernelArg(%u): %s", i, clscan_status_string(err));
}

static void launch(layer_dev *d, cl_kernel k, size_t global, size_t local, const char *what)
{
    const double t0 = now_s();
    cl_int err = clEnqueueNDRangeKernel(d->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
    ck_assert_msg(err == CL_SUCCESS, "%s: %s: clEnqueueNDRangeKernel(%zu, %zu): %s", d->name,
                  what, global, local, clscan_status_string(err));
    err = clFinish(d->queue);
    ck_assert_msg(err == CL_SUCCESS, "%s: %s: clFinish: %s", d->name, what,
                  clscan_status_string(err));
    time_launches += now_s() - t0;
}

/* ------------------------------------------------------------ the layers ---- */

/* What the kernel reports of the shape it was compiled for (test_layers.cl: info). */
enum { I_WG, I_ITEMS, I_TILE, I_SG_IMPL, I_SG_SIZE, I_SG_COUNT, I_WG_ALGO, I_BYTES, I_TYPE,
       I_OP, I_NATIVE_WIDTH, I_SHUFFLE_IN_LOCAL, I_COUNT = 16 };
static const char *const sg_impl_names[] = {"local", "khr", "nvidia", "intel"};
static const char *const wg_algo_names[] = {"blelloch", "subgroup"};
enum { SG_LOCAL = 0, SG_KHR = 1, SG_NVIDIA = 2, SG_INTEL = 3 };
enum { V_PLANES = 9, T_PLANES = 3 };
enum { V_SG_INCL, V_SG_EXCL, V_SG_SHUF1, V_SG_SHUFH, V_WG_EXCL, V_WG_INCL, V_WG_ETOT,
       V_WG_ITOT, V_WG_RED };
enum { T_RED, T_ETOT, T_ITOT };
static const char *const v_plane_names[] = {
    "clscan_sg_scan_inclusive", "clscan_sg_scan_exclusive", "clscan_sg_shuffle_up(x, 1)",
    "clscan_sg_shuffle_up(x, size/2)", "clscan_wg_scan_value(exclusive)",
    "clscan_wg_scan_value(inclusive)", "clscan_wg_scan_value(exclusive) *total",
    "clscan_wg_scan_value(inclusive) *total", "clscan_wg_reduce_value"};
static const char *const t_plane_names[] = {"clscan_wg_reduce", "clscan_wg_scan(exclusive)",
                                            "clscan_wg_scan(inclusive)"};

/* Which shapes a test has covered, for its coverage assertions. */
typedef struct coverage {
    unsigned sg_widths[2][4];   /* [wg algo][impl]: bit log2(width) set when run */
    unsigned wg_sizes[2];       /* [wg algo]: bit log2(wg) */
    size_t largest_wg;          /* the largest group built (kernels may allow fewer than
                                 * the device: rusticl's allow 32) */
    int items_gt1[2], items_1[2], partial_tile[2];
} coverage;

static unsigned log2u(size_t x)
{
    unsigned l = 0;
    while (x > 1) x >>= 1, l++;
    return l;
}

/* Runs layers_check once: `groups` groups of b->wg work-items, tiles over tin[0, n), and
 * checks everything it wrote. */
static void run_layers(layer_dev *d, const built *b, clscan_type t, clscan_op op, size_t groups,
                       size_t n, uint64_t seed, const char *label, int expect_impl, tally *tl,
                       coverage *cov)
{
    const size_t es = tsize(t), wg = b->wg, tile = b->tile, gs = groups * wg;
    const size_t tplane = groups * tile + tile; /* a tile of guard after the last */
    unsigned char *vin = malloc(gs * es), *tin = malloc((n ? n : 1) * es);
    unsigned char *carries = malloc(groups * es), *vout = malloc(V_PLANES * gs * es);
    unsigned char *tout = malloc(2 * tplane * es), *ttot = malloc(T_PLANES * gs * es);
    cl_uint *ids = malloc(2 * gs * sizeof *ids), info[I_COUNT];
    size_t *slot = malloc(wg * sizeof *slot);
    ck_assert(vin && tin && carries && vout && tout && ttot && ids && slot);
    uint64_t rng = seed;
    for (size_t i = 0; i < gs; i++) put_elem(t, vin, i, random_elem(t, op, &rng, 1));
    for (size_t i = 0; i < n; i++) put_elem(t, tin, i, random_elem(t, op, &rng, 1));
    for (size_t g = 0; g < groups; g++) put_elem(t, carries, g, random_elem(t, op, &rng, 1));
    memset(tout, 0xa5, 2 * tplane * es); /* the sentinel: what nobody may overwrite */
    memset(info, 0, sizeof info);

    cl_mem m_vin = make_buffer(d, gs * es, vin), m_tin = make_buffer(d, (n ? n : 1) * es, tin);
    cl_mem m_car = make_buffer(d, groups * es, carries);
    cl_mem m_vout = make_buffer(d, V_PLANES * gs * es, NULL);
    cl_mem m_tout = make_buffer(d, 2 * tplane * es, tout);
    cl_mem m_ttot = make_buffer(d, T_PLANES * gs * es, NULL);
    cl_mem m_ids = make_buffer(d, 2 * gs * sizeof *ids, NULL);
    cl_mem m_info = make_buffer(d, sizeof info, info);
    const cl_ulong n64 = n, plane64 = tplane;
    set_arg(b->kernel, 0, sizeof m_vin, &m_vin);
    set_arg(b->kernel, 1, sizeof m_tin, &m_tin);
    set_arg(b->kernel, 2, sizeof n64, &n64);
    set_arg(b->kernel, 3, sizeof m_car, &m_car);
    set_arg(b->kernel, 4, sizeof m_vout, &m_vout);
    set_arg(b->kernel, 5, sizeof m_tout, &m_tout);
    set_arg(b->kernel, 6, sizeof plane64, &plane64);
    set_arg(b->kernel, 7, sizeof m_ttot, &m_ttot);
    set_arg(b->kernel, 8, sizeof m_ids, &m_ids);
    set_arg(b->kernel, 9, sizeof m_info, &m_info);
    launch(d, b->kernel, gs, wg, label);
    read_buffer(d, m_vout, V_PLANES * gs * es, vout);
    read_buffer(d, m_tout, 2 * tplane * es, tout);
    read_buffer(d, m_ttot, T_PLANES * gs * es, ttot);
    read_buffer(d, m_ids, 2 * gs * sizeof *ids, ids);
    read_buffer(d, m_info, sizeof info, info);

    const unsigned sg_size = info[I_SG_SIZE], sg_count = info[I_SG_COUNT];
    const unsigned impl = info[I_SG_IMPL], algo = info[I_WG_ALGO];
    char where[600], e1[64], e2[64];
    snprintf(where, sizeof where,
             "%s: %s %s %s, wg %zu x %u items, %s sub-groups of %u (%u a group), %s work-group "
             "scan, %zu groups, n %zu, seed %" PRIu64,
             d->name, label, clscan_type_name(t), clscan_op_name(op), wg, info[I_ITEMS],
             impl < 4 ? sg_impl_names[impl] : "?", sg_size, sg_count,
             algo < 2 ? wg_algo_names[algo] : "?", groups, n, seed);
    case_begin(tl);

    /* The shape: what the options promised, and a consistent sub-group layout. */
    if (info[I_WG] != wg || info[I_TILE] != tile || info[I_ITEMS] * wg != tile ||
        info[I_BYTES] != es || info[I_TYPE] != (unsigned)t || info[I_OP] != (unsigned)op)
        mismatch(tl, where,
                 "kernel compiled for wg %u, tile %u (%u items), %u-byte type %u op %u; "
                 "clscan_kernel_build_options said wg %zu, tile %zu, %zu bytes",
                 info[I_WG], info[I_TILE], info[I_ITEMS], info[I_BYTES], info[I_TYPE],
                 info[I_OP], wg, tile, es);
    const int shape_ok = sg_size >= 1 && (sg_size & (sg_size - 1)) == 0 &&
                         (size_t)sg_size * sg_count == wg && impl < 4 && algo < 2;
    if (!shape_ok)
        mismatch(tl, where, "sub-group shape: impl %u, %u sub-groups of %u in a group of %zu",
                 impl, sg_count, sg_size, wg);
    if (expect_impl >= 0 && impl != (unsigned)expect_impl && wg >= 64)
        fprintf(stderr, "note %s: the library built %s sub-groups, not %s\n", where,
                impl < 4 ? sg_impl_names[impl] : "?", sg_impl_names[expect_impl]);
    if ((impl == SG_KHR || impl == SG_INTEL) && info[I_NATIVE_WIDTH] != sg_size)
        mismatch(tl, where,
                 "the layer was compiled for sub-groups of %u but the kernel's are %u wide "
                 "(get_max_sub_group_size)", sg_size, info[I_NATIVE_WIDTH]);

    for (size_t g = 0; shape_ok && g < groups; g++) {
        const size_t first = g * wg;
        /* Sub-group layout: each (sub-group, lane) exactly once; the local and NVIDIA
         * implementations number consecutive work-items. */
        for (size_t s = 0; s < wg; s++) slot[s] = (size_t)-1;
        int layout_ok = 1;
        for (size_t l = 0; l < wg; l++) {
            const cl_uint lane = ids[2 * (first + l)], sg = ids[2 * (first + l) + 1];
            const int consecutive = impl == SG_LOCAL || impl == SG_NVIDIA;
            if (lane >= sg_size || sg >= sg_count ||
                (consecutive && (lane != l % sg_size || sg != l / sg_size)) ||
                slot[(size_t)sg * sg_size + lane] != (size_t)-1) {
                mismatch(tl, where, "group %zu, local id %zu: lane %u of sub-group %u", g, l,
                         lane, sg);
                layout_ok = 0;
                break;
            }
            slot[(size_t)sg * sg_size + lane] = first + l;
        }
        /* Sub-group scans and shuffles, in lane order. */
        for (size_t s = 0; layout_ok && s < sg_count; s++) {
            uint64_t acc = identity(t, op);
            const unsigned half = sg_size > 1 ? sg_size / 2 : 1;
            for (unsigned lane = 0; lane < sg_size; lane++) {
                const size_t i = slot[s * sg_size + lane];
                const uint64_t x = get_elem(t, vin, i);
                const uint64_t excl = acc;
                acc = host_op(t, op, acc, x);
                const uint64_t want[4] = {
                    acc, excl, lane >= 1 ? get_elem(t, vin, slot[s * sg_size + lane - 1]) : 0,
                    lane >= half ? get_elem(t, vin, slot[s * sg_size + lane - half]) : 0};
                for (int p = 0; p < 4; p++) {
                    if ((p == V_SG_SHUF1 && lane < 1) || (p == V_SG_SHUFH && lane < half))
                        continue; /* unspecified below delta */
                    const uint64_t got = get_elem(t, vout, (size_t)p * gs + i);
                    if (got != want[p])
                        mismatch(tl, where, "%s: group %zu, sub-group %zu, lane %u: got %s, "
                                 "expected %s", v_plane_names[p], g, s, lane,
                                 show(t, got, e1, sizeof e1), show(t, want[p], e2, sizeof e2));
                }
            }
        }
        /* Work-group value scans, in local-id order; every work-item gets the total. */
        uint64_t acc = identity(t, op);
        for (size_t l = 0; l < wg; l++) {
            const uint64_t x = get_elem(t, vin, first + l), excl = acc;
            acc = host_op(t, op, acc, x);
            const uint64_t got_e = get_elem(t, vout, V_WG_EXCL * gs + first + l);
            const uint64_t got_i = get_elem(t, vout, V_WG_INCL * gs + first + l);
            if (got_e != excl)
                mismatch(tl, where, "%s: group %zu, local id %zu: got %s, expected %s",
                         v_plane_names[V_WG_EXCL], g, l, show(t, got_e, e1, sizeof e1),
                         show(t, excl, e2, sizeof e2));
            if (got_i != acc)
                mismatch(tl, where, "%s: group %zu, local id %zu: got %s, expected %s",
                         v_plane_names[V_WG_INCL], g, l, show(t, got_i, e1, sizeof e1),
                         show(t, acc, e2, sizeof e2));
        }
        for (size_t l = 0; l < wg; l++)
            for (int p = V_WG_ETOT; p <= V_WG_RED; p++) {
                const uint64_t got = get_elem(t, vout, (size_t)p * gs + first + l);
                if (got != acc)
                    mismatch(tl, where, "%s: group %zu, local id %zu: got %s, expected %s",
                             v_plane_names[p], g, l, show(t, got, e1, sizeof e1),
                             show(t, acc, e2, sizeof e2));
            }
        /* The tile: [base, base + count) scanned after the carry; the rest of the tile
         * (and the guard after the last) untouched; every work-item gets the total. */
        const size_t base = g * tile;
        const size_t count = base < n ? (n - base < tile ? n - base : tile) : 0;
        const uint64_t carry = get_elem(t, carries, g);
        uint64_t run = identity(t, op);
        for (size_t k = 0; k < count; k++) {
            const uint64_t x = get_elem(t, tin, base + k);
            const uint64_t want_e = host_op(t, op, carry, run);
            run = host_op(t, op, run, x);
            const uint64_t want_i = host_op(t, op, carry, run);
            const uint64_t got_e = get_elem(t, tout, base + k);
            const uint64_t got_i = get_elem(t, tout, tplane + base + k);
            if (got_e != want_e)
                mismatch(tl, where, "clscan_wg_scan(exclusive) + clscan_wg_store: tile %zu, "
                         "element %zu of %zu: got %s, expected %s", g, k, count,
                         show(t, got_e, e1, sizeof e1), show(t, want_e, e2, sizeof e2));
            if (got_i != want_i)
                mismatch(tl, where, "clscan_wg_scan(inclusive) + clscan_wg_store: tile %zu, "
                         "element %zu of %zu: got %s, expected %s", g, k, count,
                         show(t, got_i, e1, sizeof e1), show(t, want_i, e2, sizeof e2));
        }
        const size_t stop = g + 1 == groups ? base + 2 * tile : base + tile;
        for (int p = 0; p < 2; p++)
            for (size_t k = base + count; k < stop; k++) {
                uint64_t sentinel;
                memset(&sentinel, 0xa5, sizeof sentinel);
                if (es == 4) sentinel &= 0xffffffffu;
                const uint64_t got = get_elem(t, tout, (size_t)p * tplane + k);
                if (got != sentinel) {
                    mismatch(tl, where, "clscan_wg_store (%s) wrote element %zu, past the %zu "
                             "elements of tile %zu", p ? "inclusive" : "exclusive", k - base,
                             count, g);
                    break;
                }
            }
        for (size_t l = 0; l < wg; l++)
            for (int p = 0; p < T_PLANES; p++) {
                const uint64_t got = get_elem(t, ttot, (size_t)p * gs + first + l);
                if (got != run)
                    mismatch(tl, where, "%s returned %s to local id %zu of tile %zu, expected "
                             "its total %s", t_plane_names[p], show(t, got, e1, sizeof e1), l,
                             g, show(t, run, e2, sizeof e2));
            }
    }
    case_end(tl);
    if (shape_ok && cov) {
        cov->sg_widths[algo][impl] |= 1u << log2u(sg_size);
        cov->wg_sizes[algo] |= 1u << log2u(wg);
        if (wg > cov->largest_wg) cov->largest_wg = wg;
        if (info[I_ITEMS] > 1) cov->items_gt1[algo] = 1;
        else cov->items_1[algo] = 1;
        if (n % tile != 0) cov->partial_tile[algo] = 1;
    }
    clReleaseMemObject(m_vin);
    clReleaseMemObject(m_tin);
    clReleaseMemObject(m_car);
    clReleaseMemObject(m_vout);
    clReleaseMemObject(m_tout);
    clReleaseMemObject(m_ttot);
    clReleaseMemObject(m_ids);
    clReleaseMemObject(m_info);
    free(vin);
    free(tin);
    free(carries);
    free(vout);
    free(tout);
    free(ttot);
    free(ids);
    free(slot);
}

/* The (type, op) pairs: the first two run at every cap of a configuration, the rest at
 * its last (largest) cap only, to keep the builds few. Quick mode keeps the first two. */
typedef struct tyop {
    clscan_type type;
    clscan_op op;
} tyop;
static const tyop all_tyops[] = {
    {CLSCAN_INT32, CLSCAN_OP_ADD},  {CLSCAN_UINT64, CLSCAN_OP_MUL},
    {CLSCAN_UINT32, CLSCAN_OP_MAX}, {CLSCAN_FLOAT, CLSCAN_OP_ADD},
    {CLSCAN_INT64, CLSCAN_OP_MIN},  {CLSCAN_DOUBLE, CLSCAN_OP_MIN},
};
enum { N_TYOPS = sizeof all_tyops / sizeof all_tyops[0] };

/* Runs one configuration on every device: its context (a forced sub-group
 * implementation the device cannot run is skipped with the library's reason), then for
 * each (type, op) and cap, layers_check on three groups (the last tile partial) and on
 * one group holding a single element. `ntyops` limits the pairs. */
static void run_config(const layer_config *cfg, size_t ntyops, int expect_impl, tally *tl,
                       coverage *cov_per_dev)
{
    const size_t ntyops_all = ntyops;
    for (int di = 0; di < layer_ndevs; di++) {
        layer_dev *d = &layer_devs[di];
        ntyops = quick(d) && ntyops_all > 2 ? 2 : ntyops_all;
        const double t0 = now_s();
        const unsigned builds0 = builds_done;
        clscan_context *sc;
        char why[1024] = "";
        const clscan_status s = config_context(d, cfg, &sc, why, sizeof why);
        if (s != CLSCAN_SUCCESS && expect_impl > 0 && s == CLSCAN_ERROR_INVALID_ENVIRONMENT) {
            skip_note(tl, "%s: %s: %s (%s)", d->name, cfg->name, why, clscan_status_string(s));
            continue;
        }
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: clscan_context_create: %s: %s", d->name,
                      cfg->name, clscan_status_string(s), why);
        unsigned launches = 0;
        char shapes[512] = "";
        size_t shapes_len = 0;
        for (size_t ti = 0; ti < ntyops; ti++) {
            const clscan_type t = all_tyops[ti].type;
            const clscan_op op = all_tyops[ti].op;
            for (size_t ci = ti < 2 ? 0 : cfg->ncaps - 1; ci < cfg->ncaps; ci++) {
                size_t cap = cfg->caps[ci];
                if (cap == LAYER_CAP_MAX) cap = d->max_wg;
                if (quick(d) && cap > 256) cap = 256;
                built b;
                const clscan_status bs = build_kernel(d, sc, t, op, cap, "", "layers_check", &b);
                if (bs == CLSCAN_ERROR_UNSUPPORTED) {
                    ck_assert_msg(t == CLSCAN_DOUBLE, "%s: %s %s refused as unsupported",
                                  d->name, clscan_type_name(t), clscan_op_name(op));
                    skip_note(tl, "%s: %s: double: the device has no fp64", d->name, cfg->name);
                    break;
                }
                char label[160];
                snprintf(label, sizeof label, "%s (cap %zu)", cfg->name, cap);
                const uint64_t seed = case_seed((uint64_t)di << 8 | ti, ci, b.wg);
                /* Three tiles, the last one partial (one element past two full tiles,
                 * plus a third of a tile); then a lone element in one group. */
                const size_t n3 = 2 * b.tile + 1 + b.tile / 3;
                const size_t n_last = n3 > 3 * b.tile ? 3 * b.tile : n3;
                run_layers(d, &b, t, op, 3, n_last, seed, label, expect_impl, tl,
                           &cov_per_dev[di]);
                run_layers(d, &b, t, op, 1, 1, seed + 1, label, expect_impl, tl,
                           &cov_per_dev[di]);
                launches += 2;
                if (ti == 0 && shapes_len < sizeof shapes - 40)
                    shapes_len += (size_t)snprintf(shapes + shapes_len, sizeof shapes - shapes_len,
                                                   "%s%zu x %zu", shapes_len ? ", " : "", b.wg,
                                                   b.tile / b.wg);
                built_release(&b);
            }
        }
        fprintf(stderr, "%s: %s: %u launches, %u kernel builds, groups (work-items x items) "
                        "%s: %.1f s\n", d->name, cfg->name, launches, builds_done - builds0,
                shapes, now_s() - t0);
        clscan_context_release(sc);
    }
}

/* env order: SCAN_ALGO, SUBGROUP_IMPL, SUBGROUP_WIDTH, WG_SCAN, WORK_GROUP_SIZE, ITEMS. */
#define ML "multi-level"

/* Whatever the device gets by default (no overrides, the device scan included, whose
 * tile shape the options then carry). */
START_TEST(test_default_shape)
{
    static const layer_config cfg = {"default", {NULL}, {0}, 1};
    tally tl = {0};
    coverage cov[LAYER_MAX_DEVS];
    memset(cov, 0, sizeof cov);
    run_config(&cfg, 2, -1, &tl, cov);
    tally_check(&tl, "default shape");
}
END_TEST

/* The local-memory sub-groups under the Blelloch work-group scan: groups of 1, 2, 64
 * and the device's largest (4 items a work-item, 2 for 8-byte types), at the default
 * emulated width (so widths 1, 2 and 32 where the group allows); then the largest group
 * with 1 item, over sub-groups of 2. */
START_TEST(test_local_blelloch)
{
    static const layer_config cfgs[] = {
        {"local-blelloch", {ML, "local", NULL, "blelloch", "max", "4"},
         {1, 2, 64, LAYER_CAP_MAX}, 4},
        {"local-blelloch-1-item", {ML, "local", "2", "blelloch", "max", "1"}, {LAYER_CAP_MAX}, 1},
    };
    tally tl = {0};
    coverage cov[LAYER_MAX_DEVS];
    memset(cov, 0, sizeof cov);
    run_config(&cfgs[0], N_TYOPS, SG_LOCAL, &tl, cov);
    run_config(&cfgs[1], 2, SG_LOCAL, &tl, cov);
    tally_check(&tl, "local sub-groups, Blelloch work-group scan");
    for (int di = 0; di < layer_ndevs; di++) {
        const coverage *c = &cov[di];
        const size_t mx = layer_devs[di].max_wg, largest = c->largest_wg;
        const unsigned want_wg = 1u | 2u | (largest >= 64 ? 1u << 6 : 0);
        ck_assert_msg((c->wg_sizes[0] & want_wg) == want_wg,
                      "%s: Blelloch ran work-groups 0x%x, wanted 0x%x", layer_devs[di].name,
                      c->wg_sizes[0], want_wg);
        fprintf(stderr, "%s: Blelloch: the largest group run: %zu work-items (device maximum "
                        "%zu)\n", layer_devs[di].name, largest, mx);
        ck_assert_msg(c->items_gt1[0] && c->items_1[0] && c->partial_tile[0],
                      "%s: Blelloch shapes missing", layer_devs[di].name);
    }
}
END_TEST

/* The local-memory sub-groups under the sub-group work-group scan, at the edge widths:
 *   w128: the largest width the override takes (128), groups of 1, 2, 64 and the
 *         largest (widths 1, 2, 64 and 128: one sub-group, or several), 3 items;
 *   w1:   width 1 (every work-item its own sub-group; one lane scans all the totals),
 *         groups of 64 and the largest, 1 item;
 *   w2:   width 2 (a lane scans many totals), the largest group, 2 items. */
START_TEST(test_local_subgroup)
{
    static const layer_config cfgs[] = {
        {"local-subgroup-w128", {ML, "local", "128", "subgroup", "max", "3"},
         {1, 2, 64, LAYER_CAP_MAX}, 4},
        {"local-subgroup-w1", {ML, "local", "1", "subgroup", "max", "1"}, {64, LAYER_CAP_MAX}, 2},
        {"local-subgroup-w2", {ML, "local", "2", "subgroup", "max", "2"}, {LAYER_CAP_MAX}, 1},
    };
    tally tl = {0};
    coverage cov[LAYER_MAX_DEVS];
    memset(cov, 0, sizeof cov);
    run_config(&cfgs[0], N_TYOPS, SG_LOCAL, &tl, cov);
    run_config(&cfgs[1], 2, SG_LOCAL, &tl, cov);
    run_config(&cfgs[2], 2, SG_LOCAL, &tl, cov);
    tally_check(&tl, "local sub-groups, sub-group work-group scan");
    for (int di = 0; di < layer_ndevs; di++) {
        const coverage *c = &cov[di];
        const size_t mx = c->largest_wg;
        const unsigned largest = 1u << log2u(mx < 128 ? mx : 128);
        const unsigned want = 1u | 2u | largest;
        ck_assert_msg((c->sg_widths[1][SG_LOCAL] & want) == want,
                      "%s: local sub-group widths run: 0x%x, wanted 0x%x (1, 2, %u)",
                      layer_devs[di].name, c->sg_widths[1][SG_LOCAL], want, largest);
        ck_assert_msg(c->items_gt1[1] && c->items_1[1] && c->partial_tile[1],
                      "%s: sub-group scan shapes missing", layer_devs[di].name);
    }
}
END_TEST

/* ------------------------------------------------------------ native -------- */

/* The native implementations, each tested only where some device can run it (main
 * probes that in a child process and prints why the others are skipped). */
static const char *const native_names[] = {"khr", "nvidia", "intel"};
static const int native_impls[] = {SG_KHR, SG_NVIDIA, SG_INTEL};
static int native_runnable[3];
static int native_list[3], native_count;

START_TEST(test_native_subgroups)
{
    const int which = native_list[_i];
    char name[64], name2[64];
    snprintf(name, sizeof name, "%s-subgroup", native_names[which]);
    snprintf(name2, sizeof name2, "%s-blelloch", native_names[which]);
    /* Groups of 64 and the largest (a native sub-group is never wider than the group:
     * narrower caps fall back to local memory by design), both work-group scans. */
    const layer_config cfgs[] = {
        {name, {ML, native_names[which], NULL, "subgroup", "max", "4"}, {64, LAYER_CAP_MAX}, 2},
        {name2, {ML, native_names[which], NULL, "blelloch", "max", "2"}, {LAYER_CAP_MAX}, 1},
    };
    tally tl = {0};
    coverage cov[LAYER_MAX_DEVS];
    memset(cov, 0, sizeof cov);
    run_config(&cfgs[0], N_TYOPS, native_impls[which], &tl, cov);
    run_config(&cfgs[1], N_TYOPS, native_impls[which], &tl, cov);
    char what[96];
    snprintf(what, sizeof what, "%s sub-groups", native_names[which]);
    tally_check(&tl, what);
    int ran = 0;
    for (int di = 0; di < layer_ndevs; di++)
        ran |= cov[di].sg_widths[1][native_impls[which]] != 0;
    ck_assert_msg(ran, "%s: accepted, but no kernel was built with them", what);
}
END_TEST

/* In a child process (OpenCL must not be opened before Check forks): which native
 * sub-group implementations some device accepts. The reasons for the rest go to stderr. */
static void probe_native(void)
{
    int fds[2];
    if (pipe(fds) != 0) return;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        unsigned char mask = 0;
        open_devices();
        for (int di = 0; di < layer_ndevs; di++)
            for (int k = 0; k < 3; k++) {
                const layer_config cfg = {"probe", {ML, native_names[k], NULL, NULL, NULL, NULL},
                                          {0}, 1};
                clscan_context *sc;
                char why[1024] = "";
                const clscan_status s = config_context(&layer_devs[di], &cfg, &sc, why, sizeof why);
                if (s == CLSCAN_SUCCESS) {
                    mask |= (unsigned char)(1u << k);
                    clscan_context_release(sc);
                } else {
                    fprintf(stderr, "SKIP %s: %s sub-groups: %s (%s)\n", layer_devs[di].name,
                            native_names[k], why, clscan_status_string(s));
                }
            }
        close_devices();
        if (write(fds[1], &mask, 1) != 1) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    unsigned char mask = 0;
    if (pid < 0 || read(fds[0], &mask, 1) != 1) mask = 0;
    close(fds[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    for (int k = 0; k < 3; k++) {
        native_runnable[k] = (mask >> k) & 1;
        if (native_runnable[k]) native_list[native_count++] = k;
    }
}

/* ------------------------------------------------------------ look-back ----- */

/* One look-back variant: (type, op), status word width, test mode (test_layers.cl gets
 * CLSCAN_LB_TEST: 1 delays every third tile's first publication, 2 silences every
 * fourth tile), the work-group cap, and whether its floats are exact. */
typedef struct lb_variant {
    clscan_type type;
    clscan_op op;
    unsigned word_bits, test_mode;
    size_t cap;
    int exact;
} lb_variant;

static const lb_variant lb_variants[] = {
    {CLSCAN_INT32, CLSCAN_OP_ADD, 64, 0, LAYER_CAP_MAX, 1},
    {CLSCAN_INT32, CLSCAN_OP_ADD, 32, 2, 1, 1},        /* a window of one tile */
    {CLSCAN_UINT64, CLSCAN_OP_MAX, 32, 2, 64, 1},      /* 4 words of 16 bits a value */
    {CLSCAN_UINT64, CLSCAN_OP_MUL, 64, 1, 2, 1},       /* delayed tiles */
    {CLSCAN_FLOAT, CLSCAN_OP_ADD, 64, 2, 64, 0},       /* ordered, with fallbacks */
    {CLSCAN_FLOAT, CLSCAN_OP_ADD, 32, 0, LAYER_CAP_MAX, 0},
    {CLSCAN_DOUBLE, CLSCAN_OP_ADD, 32, 2, 16, 0},      /* ordered, 4 words a value */
};
enum { N_LB = sizeof lb_variants / sizeof lb_variants[0] };

/* What run_lookback hands on when asked: its input (host and device) and the tiles'
 * totals as their owners computed them. */
typedef struct lb_keep {
    unsigned char *src, *totals;
    cl_mem m_src;
} lb_keep;

/* Runs layers_lookback over `ntiles` tiles (n elements) with `epoch` on the state buffer
 * (reused across runs: older epochs' words must be ignored), and checks each tile's
 * carry (its exclusive prefix), total, output and final status words, the tile counter
 * and, with silenced tiles, that fallbacks ran. keep (if not NULL) takes the input and
 * the totals. */

static void run_lookback(layer_dev *d, const built *b, const lb_variant *v, cl_mem m_state,
                         size_t ntiles, size_t n, cl_uint epoch, cl_uint spins, int inclusive,
                         int has_start, uint64_t seed, const char *label, tally *tl,
                         lb_keep *keep)
{
    const clscan_type t = v->type;
    const clscan_op op = v->op;
    const size_t es = tsize(t), tile = b->tile;
    const unsigned half = v->word_bits / 2, parts = (unsigned)(es * 8 / half);
    const size_t word_bytes = v->word_bits / 8, header = 128;
    unsigned char *src = malloc(n * es), *dst = malloc(n * es);
    unsigned char *carries = malloc(ntiles * es), *totals = malloc(ntiles * es);
    unsigned char *state = malloc(header + ntiles * parts * word_bytes);
    ck_assert(src && dst && carries && totals && state);
    uint64_t rng = seed;
    for (size_t i = 0; i < n; i++) put_elem(t, src, i, random_elem(t, op, &rng, v->exact));
    const uint64_t start = random_elem(t, op, &rng, v->exact);
    cl_uint stats[3] = {0, 0, 0};

    cl_mem m_src = make_buffer(d, n * es, src), m_dst = make_buffer(d, n * es, NULL);
    cl_mem m_car = make_buffer(d, ntiles * es, NULL), m_tot = make_buffer(d, ntiles * es, NULL);
    cl_mem m_stats = make_buffer(d, sizeof stats, stats);
    const cl_ulong n64 = n;
    const cl_int inc = inclusive, hs = has_start;
    unsigned char start_bytes[8];
    put_elem(t, start_bytes, 0, start);
    cl_kernel k = b->kernel;
    set_arg(k, 0, sizeof m_src, &m_src);
    set_arg(k, 1, sizeof m_dst, &m_dst);
    set_arg(k, 2, sizeof n64, &n64);
    set_arg(k, 3, sizeof m_state, &m_state);
    set_arg(k, 4, sizeof epoch, &epoch);
    set_arg(k, 5, sizeof spins, &spins);
    set_arg(k, 6, sizeof inc, &inc);
    set_arg(k, 7, sizeof hs, &hs);
    set_arg(k, 8, es, start_bytes);
    set_arg(k, 9, sizeof m_car, &m_car);
    set_arg(k, 10, sizeof m_tot, &m_tot);
    set_arg(k, 11, sizeof m_stats, &m_stats);
    launch(d, k, ntiles * b->wg, b->wg, label);
    read_buffer(d, m_dst, n * es, dst);
    read_buffer(d, m_car, ntiles * es, carries);
    read_buffer(d, m_tot, ntiles * es, totals);
    read_buffer(d, m_stats, sizeof stats, stats);
    read_buffer(d, m_state, header + ntiles * parts * word_bytes, state);

    char where[600], e1[64], e2[64];
    snprintf(where, sizeof where,
             "%s: look-back %s %s, %u-bit words, test mode %u, wg %zu x %zu items, %zu tiles "
             "(n %zu), epoch %u, spins %u, %s%s, seed %" PRIu64,
             d->name, clscan_type_name(t), clscan_op_name(op), v->word_bits, v->test_mode,
             b->wg, tile / b->wg, ntiles, n, epoch, spins, inclusive ? "inclusive" : "exclusive",
             has_start ? ", carry-in" : "", seed);
    (void)label;
    case_begin(tl);
    const uint64_t id = identity(t, op);
    /* Carries: exact types against the serial prefix; inexact floats (the ordered
     * look-back) bit for bit against the tile totals folded strictly left to right. */
    uint64_t fold = has_start ? start : id;
    int have = has_start;
    double abs_sum = has_start ? fabs(t == CLSCAN_FLOAT ? as_f(start) : as_d(start)) : 0.0;
    double exact_sum = has_start ? (t == CLSCAN_FLOAT ? as_f(start) : as_d(start)) : 0.0;
    uint64_t serial = has_start ? start : id;
    for (size_t tt = 0; tt < ntiles; tt++) {
        const size_t base = tt * tile, count = n - base < tile ? n - base : tile;
        const uint64_t carry = get_elem(t, carries, tt), total = get_elem(t, totals, tt);
        if (carry != (have ? fold : id))
            mismatch(tl, where, "tile %zu's carry (clscan_lb_tile_prefix): got %s, expected %s "
                     "(%s)", tt, show(t, carry, e1, sizeof e1),
                     show(t, have ? fold : id, e2, sizeof e2),
                     v->exact ? "the serial prefix" : "the totals folded left to right");
        /* The tile's own total and output. */
        uint64_t tile_total = id;
        for (size_t kk = 0; kk < count; kk++) {
            const uint64_t x = get_elem(t, src, base + kk);
            const uint64_t before = serial;
            tile_total = host_op(t, op, tile_total, x);
            serial = host_op(t, op, serial, x);
            const double xv = v->exact ? 0.0 : t == CLSCAN_FLOAT ? as_f(x) : as_d(x);
            const double before_sum = exact_sum;
            exact_sum += xv;
            abs_sum += fabs(xv);
            const uint64_t got = get_elem(t, dst, base + kk);
            if (v->exact) {
                const uint64_t want = inclusive ? serial : before;
                if (got != want)
                    mismatch(tl, where, "output %zu (tile %zu): got %s, expected %s", base + kk,
                             tt, show(t, got, e1, sizeof e1), show(t, want, e2, sizeof e2));
            } else {
                const double g = t == CLSCAN_FLOAT ? as_f(got) : as_d(got);
                const double want = inclusive ? exact_sum : before_sum;
                const double eps = t == CLSCAN_FLOAT ? 1.1920929e-7 : 2.220446049250313e-16;
                const double tol = (2.0 * ceil(log2((double)n + 1.0)) + 64.0) * eps * abs_sum;
                if (!(fabs(g - want) <= tol))
                    mismatch(tl, where, "output %zu (tile %zu): got %.17g, expected %.17g "
                             "within %.3g", base + kk, tt, g, want, tol);
            }
        }
        if (v->exact && total != tile_total)
            mismatch(tl, where, "tile %zu's total (clscan_wg_scan): got %s, expected %s", tt,
                     show(t, total, e1, sizeof e1), show(t, tile_total, e2, sizeof e2));
        /* Its status words, as the last writer left them: every tile its inclusive
         * prefix (tile 0 without a carry-in: its total), except silenced tiles: the
         * total a successor's fallback published, or (the last tile) nothing of this
         * epoch. In the test modes only tile 0 and every fourth tile (t % 4 == 3)
         * publish their prefixes; the others leave their totals as the owner published
         * them last (a fallback's publication takes only an empty word). */
        const int silent = v->test_mode == 2 && tt % 4 == 1;
        const int anchor = v->test_mode == 0 || tt == 0 || tt % 4 == 3;
        unsigned want_kind = 3;
        uint64_t want_value = tt == 0 && !has_start ? total : host_op(t, op, carry, total);
        if (silent) {
            want_kind = tt + 1 < ntiles ? 2 : 0;
            want_value = total;
        } else if (!anchor) {
            want_kind = 1;
            want_value = total;
        }
        uint64_t value = 0;
        for (unsigned p = 0; p < parts; p++) {
            uint64_t w;
            const unsigned char *at = state + header + (tt * parts + p) * word_bytes;
            if (word_bytes == 8) memcpy(&w, at, 8);
            else {
                uint32_t w32;
                memcpy(&w32, at, 4);
                w = w32;
            }
            const uint64_t tag = w >> half, low = w & ((1ull << half) - 1);
            const unsigned kind = (tag >> 2) == epoch ? (unsigned)(tag & 3) : 0;
            if (kind != want_kind) {
                mismatch(tl, where, "tile %zu's status word %u: kind %u (tag 0x%" PRIx64
                         "), expected kind %u of epoch %u", tt, p, kind, tag, want_kind, epoch);
                break;
            }
            value |= low << (p * half);
        }
        if (want_kind != 0 && value != want_value)
            mismatch(tl, where, "tile %zu's published %s: got %s, expected %s", tt,
                     want_kind == 3 ? "inclusive prefix" : "fallback total",
                     show(t, value, e1, sizeof e1), show(t, want_value, e2, sizeof e2));
        fold = have ? host_op(t, op, fold, total) : total;
        have = 1;
    }
    uint32_t counter;
    memcpy(&counter, state, 4);
    if (counter != 0)
        mismatch(tl, where, "the tile counter was left at %u, not reset to 0", counter);
    /* A silenced tile with a successor can only be known through a fallback. */
    if (v->test_mode == 2 && ntiles >= 3 && stats[0] == 0)
        mismatch(tl, where, "tile 1 published nothing, yet no fallback ran (stats %u %u)",
                 stats[0], stats[1]);
    case_end(tl);
    if (keep) {
        keep->src = src;
        keep->totals = totals;
        keep->m_src = m_src;
    } else {
        clReleaseMemObject(m_src);
        free(src);
        free(totals);
    }
    clReleaseMemObject(m_dst);
    clReleaseMemObject(m_car);
    clReleaseMemObject(m_tot);
    clReleaseMemObject(m_stats);
    free(dst);
    free(carries);
    free(state);
}

/* Status word patterns for run_lb_direct: tile 0 an inclusive prefix and every other an
 * aggregate (the farthest anchors; past CLSCAN_LB_NEAR tiles the ordered look-back
 * reads the totals again going up); a random mix of prefixes, aggregates, fallback
 * totals, no word and words of an earlier epoch; no word at all (every total reduced
 * by a fallback, down to the carry-in). */
enum { LB_AGGREGATES, LB_MIXED, LB_NONE };
static const char *const lb_pattern_names[] = {"aggregates", "mixed", "none"};
enum { K_NONE = 0, K_AGGREGATE = 1, K_FALLBACK = 2, K_PREFIX = 3, K_STALE = 4, K_TORN = 5 };

/* Encodes value bits v of kind `kind` (K_STALE: a random kind of epoch - 1; K_TORN: an
 * aggregate's first word alone, as while its owner is still writing the others) into the
 * status words of one tile, as clscan_lookback.cl lays them out: the tag (epoch << 2 |
 * kind) in a word's upper half, the value's bits in the lower halves of `parts` words. */
static void lb_encode(unsigned char *words, size_t tile, const lb_variant *v, unsigned parts,
                      unsigned kind, cl_uint epoch, uint64_t value, uint64_t *rng)
{
    const unsigned half = v->word_bits / 2;
    const size_t wb = v->word_bits / 8;
    uint64_t tag = ((uint64_t)epoch << 2) | (kind == K_TORN ? K_AGGREGATE : kind);
    if (kind == K_STALE) {
        tag = ((uint64_t)(epoch - 1) << 2) | (1 + splitmix(rng) % 3);
        value = splitmix(rng);
    }
    for (unsigned p = 0; p < parts; p++) {
        const uint64_t low = (value >> (p * half)) & ((1ull << half) - 1);
        const uint64_t w = kind == K_NONE || (kind == K_TORN && p > 0) ? 0 : (tag << half) | low;
        unsigned char *at = words + (tile * parts + p) * wb;
        if (wb == 8) memcpy(at, &w, 8);
        else {
            const uint32_t w32 = (uint32_t)w;
            memcpy(at, &w32, 4);
        }
    }
}

/* clscan_lb_exclusive_prefix from every tile t in [0, ntiles] (one group each) over
 * status words the host wrote in `pattern`, the tiles' totals those their owners
 * computed (keep, from run_lookback over the same input). Each carry must be the start
 * and the totals folded strictly left to right, bit for bit (floats too: a fallback's
 * total has its owner's bits); afterwards every tile that showed nothing (or an
 * earlier epoch) must show its total as a fallback, and every other word be unchanged. */
static void run_lb_direct(layer_dev *d, cl_kernel k, size_t wg, const lb_variant *v,
                          const lb_keep *keep, size_t ntiles, int pattern, cl_uint epoch,
                          int has_start, uint64_t seed, tally *tl)
{
    const clscan_type t = v->type;
    const clscan_op op = v->op;
    const size_t es = tsize(t), wb = v->word_bits / 8;
    const unsigned parts = (unsigned)(es * 8 / (v->word_bits / 2));
    const size_t bytes = ntiles * parts * wb;
    unsigned char *words = calloc(1, bytes), *after = malloc(bytes);
    unsigned char *carries = malloc((ntiles + 1) * es);
    unsigned *kinds = malloc(ntiles * sizeof *kinds);
    ck_assert(words && after && carries && kinds);
    uint64_t rng = seed;
    const uint64_t id = identity(t, op), start = random_elem(t, op, &rng, v->exact);
    uint64_t fold = has_start ? start : id;
    int have = has_start;
    for (size_t j = 0; j < ntiles; j++) {
        const uint64_t total = get_elem(t, keep->totals, j);
        fold = have ? host_op(t, op, fold, total) : total;
        have = 1;
        unsigned kind = K_NONE;
        if (pattern == LB_AGGREGATES) kind = j == 0 ? K_PREFIX : K_AGGREGATE;
        else if (pattern == LB_MIXED) {
            const unsigned r = (unsigned)(splitmix(&rng) % 100);
            kind = r < 10 ? K_PREFIX : r < 50 ? K_AGGREGATE : r < 65 ? K_FALLBACK
                 : r < 78 ? K_NONE : r < 90 ? K_STALE : parts > 1 ? K_TORN : K_NONE;
        }
        kinds[j] = kind;
        lb_encode(words, j, v, parts, kind, epoch, kind == K_PREFIX ? fold : total, &rng);
    }
    cl_uint stats[3] = {0, 0, 0};
    cl_mem m_words = make_buffer(d, bytes, words), m_stats = make_buffer(d, sizeof stats, stats);
    cl_mem m_car = make_buffer(d, (ntiles + 1) * es, NULL);
    const cl_uint spins = 2;
    const cl_int hs = has_start;
    unsigned char start_bytes[8];
    put_elem(t, start_bytes, 0, start);
    set_arg(k, 0, sizeof m_words, &m_words);
    set_arg(k, 1, sizeof epoch, &epoch);
    set_arg(k, 2, sizeof spins, &spins);
    set_arg(k, 3, sizeof hs, &hs);
    set_arg(k, 4, es, start_bytes);
    set_arg(k, 5, sizeof keep->m_src, &keep->m_src);
    set_arg(k, 6, sizeof m_car, &m_car);
    set_arg(k, 7, sizeof m_stats, &m_stats);
    launch(d, k, (ntiles + 1) * wg, wg, "clscan_lb_exclusive_prefix");
    read_buffer(d, m_car, (ntiles + 1) * es, carries);
    read_buffer(d, m_words, bytes, after);
    read_buffer(d, m_stats, sizeof stats, stats);

    char where[600], e1[64], e2[64];
    snprintf(where, sizeof where,
             "%s: clscan_lb_exclusive_prefix %s %s, %u-bit words, wg %zu, %zu tiles of %s "
             "words, epoch %u%s, seed %" PRIu64,
             d->name, clscan_type_name(t), clscan_op_name(op), v->word_bits, wg, ntiles,
             lb_pattern_names[pattern], epoch, has_start ? ", carry-in" : "", seed);
    case_begin(tl);
    fold = has_start ? start : id;
    have = has_start;
    unsigned reduced = 0;
    for (size_t q = 0; q <= ntiles; q++) {
        const uint64_t got = get_elem(t, carries, q), want = have ? fold : id;
        if (got != want)
            mismatch(tl, where, "tile %zu's exclusive prefix: got %s, expected %s (the totals "
                     "folded left to right)", q, show(t, got, e1, sizeof e1),
                     show(t, want, e2, sizeof e2));
        if (q == ntiles) break;
        const uint64_t total = get_elem(t, keep->totals, q);
        fold = have ? host_op(t, op, fold, total) : total;
        have = 1;
        /* The words afterwards. */
        unsigned char expect[32];
        uint64_t dummy = 0;
        const int resolved = kinds[q] == K_NONE || kinds[q] == K_STALE || kinds[q] == K_TORN;
        reduced += resolved;
        if (resolved) {
            /* The total as a fallback, in every word but a torn tile's first: a fallback
             * never writes over a word of this epoch. */
            unsigned char tmp[32 * 8];
            memset(tmp, 0, sizeof tmp);
            lb_encode(tmp, 0, v, parts, K_FALLBACK, epoch, total, &dummy);
            memcpy(expect, tmp, parts * wb);
            if (kinds[q] == K_TORN) memcpy(expect, words + q * parts * wb, wb);
        } else {
            memcpy(expect, words + q * parts * wb, parts * wb);
        }
        if (memcmp(after + q * parts * wb, expect, parts * wb) != 0)
            mismatch(tl, where, "tile %zu's status words afterwards: expected %s", q,
                     kinds[q] == K_TORN ? "the owner's first word kept, its total as a "
                                          "fallback in the others"
                     : resolved ? "its total, published as a fallback" : "unchanged");
    }
    if (reduced && stats[0] < reduced)
        mismatch(tl, where, "%u tiles showed nothing but only %u fallbacks ran", reduced,
                 stats[0]);
    case_end(tl);
    clReleaseMemObject(m_words);
    clReleaseMemObject(m_stats);
    clReleaseMemObject(m_car);
    free(words);
    free(after);
    free(carries);
    free(kinds);
}

/* The look-back layer, each variant of lb_variants:
 *   driven by a user's single-pass kernel (test_layers.cl: layers_lookback) over 1, 2 and
 *     many tiles (the last partial), waiting patiently and giving up at once, exclusive
 *     and inclusive, with and without a carry-in, all on one state buffer with a new
 *     epoch a run: outputs, carries, totals, the status words left, the tile counter;
 *   clscan_lb_exclusive_prefix alone (layers_lb_prefix), from every tile over status
 *     words written here in each pattern of run_lb_direct.
 * Both through the work-group walk (CLSCAN_LB_BY_SUBGROUP 0).
 * Sub-groups and work-group scan: the device's own choice, with the multi-level shape of
 * the largest group, 2 items. */
START_TEST(test_lookback)
{
    static const layer_config cfg = {"lookback", {ML, NULL, NULL, NULL, "max", "2"}, {0}, 1};
    tally tl = {0};
    for (int di = 0; di < layer_ndevs; di++) {
        layer_dev *d = &layer_devs[di];
        const double t0 = now_s();
        clscan_context *sc;
        char why[1024] = "";
        const clscan_status s = config_context(d, &cfg, &sc, why, sizeof why);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: lookback: clscan_context_create: %s: %s",
                      d->name, clscan_status_string(s), why);
        for (size_t vi = 0; vi < N_LB; vi++) {
            lb_variant vv = lb_variants[vi];
            const lb_variant *v = &vv;
            if (quick(d) && vi >= 3 && vi != 4) continue;
            if (vv.word_bits == 64 && !d->int64_atomics) {
                fprintf(stderr, "note %s: look-back %s %s with 32-bit status words, not 64: the "
                                "device lacks cl_khr_int64_base_atomics\n", d->name,
                        clscan_type_name(v->type), clscan_op_name(v->op));
                vv.word_bits = 32;
            }
            size_t cap = v->cap == LAYER_CAP_MAX ? d->max_wg : v->cap;
            if (quick(d) && cap > 8) cap = 8; /* (the direct test: near + window + 8 tiles) */
            /* (The work-group walk, whose contract this test checks word by word: every
             * tile publishes its inclusive prefix (in the test modes every fourth), and
             * clscan_lb_exclusive_prefix stands alone. Where sub-group 0 walks an
             * ordered look-back it goes in blocks, whose last tile alone publishes a
             * prefix: test_general's
             * test_lookback_blocks and the selftests check that walk.) */
            char extra[200];
            snprintf(extra, sizeof extra,
                     "-D LAYERS_LOOKBACK=1 -D CLSCAN_LB_WORD_BITS=%u -D CLSCAN_LB_TEST=%u "
                     "-D CLSCAN_LB_BY_SUBGROUP=0",
                     v->word_bits, v->test_mode);
            built b;
            const clscan_status bs = build_kernel(d, sc, v->type, v->op, cap, extra,
                                                  "layers_lookback", &b);
            if (bs == CLSCAN_ERROR_UNSUPPORTED) {
                ck_assert(v->type == CLSCAN_DOUBLE);
                skip_note(&tl, "%s: look-back double: the device has no fp64", d->name);
                continue;
            }
            /* Many tiles: about 2^17 elements' worth, 9 to 67 of them (fewer in quick mode). */
            size_t many = ((size_t)1 << 17) / b.tile;
            if (many < 9) many = 9;
            if (many > 67) many = 67;
            if (quick(d) && many > 9) many = 9;
            const size_t tiles[3] = {1, 2, many};
            const size_t state_bytes = 128 + many * (tsize(v->type) * 8 / (v->word_bits / 2)) *
                                                  (v->word_bits / 8);
            unsigned char *zero = calloc(1, state_bytes);
            ck_assert(zero != NULL);
            cl_mem m_state = make_buffer(d, state_bytes, zero); /* (no fill: Oclgrind) */
            free(zero);
            cl_uint epoch = 0;
            for (int ti = 0; ti < 3; ti++)
                for (int mode = 0; mode < 2; mode++) {
                    const size_t nt = tiles[ti];
                    /* 1 tile: one element short of full; 2: full; many: the last partial. */
                    size_t n = nt * b.tile;
                    if (ti == 0 && b.tile > 1) n -= 1;
                    if (ti == 2 && b.tile > 2) n -= b.tile / 3 + 1;
                    const cl_uint spins = mode ? 0u : (v->test_mode ? 16u : 256u);
                    char label[64];
                    snprintf(label, sizeof label, "look-back %zu", vi);
                    run_lookback(d, &b, v, m_state, nt, n, ++epoch, spins, (ti + mode) % 2,
                                 mode == 1 || ti == 2,
                                 case_seed((uint64_t)di << 8 | vi, (uint64_t)ti, (uint64_t)mode),
                                 label, &tl, NULL);
                }
            clReleaseMemObject(m_state);
            /* The look-back alone, over status words written here: the totals come from
             * run_lookback over the same input, all tiles full. */
            cl_int err;
            cl_kernel kp = clCreateKernel(b.prog, "layers_lb_prefix", &err);
            ck_assert_msg(err == CL_SUCCESS, "%s: clCreateKernel(layers_lb_prefix): %s",
                          d->name, clscan_status_string(err));
            size_t kwg = 0;
            clGetKernelWorkGroupInfo(kp, d->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                     NULL);
            ck_assert_msg(kwg >= b.wg, "%s: layers_lb_prefix allows %zu work-items, not %zu",
                          d->name, kwg, b.wg);
            const size_t window = b.wg < 32 ? b.wg : 32, near = 8 * window;
            const size_t mixed = 2 * window + 9 < 20 ? 20 : 2 * window + 9;
            const size_t direct_tiles[3] = {near + window + 8, mixed, 5};
            for (int pattern = 0; pattern < 3; pattern++) {
                const size_t nt = direct_tiles[pattern];
                const size_t state2 = 128 + nt * (tsize(v->type) * 8 / (v->word_bits / 2)) *
                                                (v->word_bits / 8);
                unsigned char *zero2 = calloc(1, state2);
                ck_assert(zero2 != NULL);
                cl_mem m_state2 = make_buffer(d, state2, zero2);
                free(zero2);
                lb_keep keep;
                const uint64_t seed2 = case_seed((uint64_t)di << 8 | vi, 7, (uint64_t)pattern);
                run_lookback(d, &b, v, m_state2, nt, nt * b.tile, 1, 256, 0, 0, seed2,
                             "look-back totals", &tl, &keep);
                run_lb_direct(d, kp, b.wg, v, &keep, nt, pattern, 100 + (cl_uint)pattern,
                              pattern != LB_MIXED, seed2 + 1, &tl);
                clReleaseMemObject(keep.m_src);
                clReleaseMemObject(m_state2);
                free(keep.src);
                free(keep.totals);
            }
            clReleaseKernel(kp);
            built_release(&b);
        }
        fprintf(stderr, "%s: look-back: %.1f s\n", d->name, now_s() - t0);
        clscan_context_release(sc);
    }
    tally_check(&tl, "look-back");
}
END_TEST

/* ------------------------------------------------------------ GUIDE.md ------ */

/* docs/GUIDE.md's example kernel ("The library's scans in your own kernels"), as the
 * guide prints it. */
static const char guide_source[] =
    "#include <clscan_workgroup.cl>\n"
    "\n"
    "__kernel CLSCAN_KERNEL_ATTRIBUTES\n"
    "void prefix_of_squares(__global const CLSCAN_T *in, __global CLSCAN_T *out)\n"
    "{\n"
    "    __local CLSCAN_T scratch[CLSCAN_WG_SCRATCH];\n"
    "    const CLSCAN_T x = in[get_global_id(0)];\n"
    "    CLSCAN_T total;\n"
    "    out[get_global_id(0)] = clscan_wg_scan_value(x * x, 1, scratch, &total);\n"
    "}\n";

/* The guide's example with the work-group it asks for through
 * clscan_kernel_build_options_wg (64 work-items, or the device's largest if smaller, or
 * half of it while the call says the kernels allow fewer; on a CPU device the default
 * shape has one work-item a group, where the kernel scans nothing): 5 groups of random uint32 values against each group's inclusive scan of the
 * squares on the host. Then the sizes the call must refuse: 0, not a power of two, past
 * the device's largest group. */
START_TEST(test_guide_example)
{
    static const layer_config cfg = {"guide", {NULL}, {0}, 1};
    tally tl = {0};
    for (int di = 0; di < layer_ndevs; di++) {
        layer_dev *d = &layer_devs[di];
        clscan_context *sc;
        char why[1024] = "";
        clscan_status s = config_context(d, &cfg, &sc, why, sizeof why);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: guide: clscan_context_create: %s: %s", d->name,
                      clscan_status_string(s), why);
        size_t want = d->max_wg < 64 ? d->max_wg : 64;
        char opts[2048], options[2600];
        size_t len = 0, tile = 0;
        double t0 = now_s();
        /* A device whose kernels allow fewer work-items than it says (rusticl on
         * llvmpipe: 32) refuses with the number: asked again with half, as the guide says. */
        while ((s = clscan_kernel_build_options_wg(sc, CLSCAN_UINT32, CLSCAN_OP_ADD, want, opts,
                                                   sizeof opts, &len, &tile)) ==
                   CLSCAN_ERROR_INVALID_ARGUMENT &&
               want > 2 && strstr(clscan_context_last_error(sc), "at most")) {
            fprintf(stderr, "note %s: %s\n", d->name, clscan_context_last_error(sc));
            want /= 2;
        }
        time_options += now_s() - t0;
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: clscan_kernel_build_options_wg(%zu): %s: %s",
                      d->name, want, clscan_status_string(s), clscan_context_last_error(sc));
        ck_assert_msg(len == strlen(opts) && tile >= want && tile % want == 0,
                      "%s: length %zu of \"%s\", tile %zu for a group of %zu", d->name, len,
                      opts, tile, want);
        char wgdef[64];
        snprintf(wgdef, sizeof wgdef, "-D CLSCAN_WG_SIZE=%zu ", want);
        ck_assert_msg(strstr(opts, wgdef) != NULL, "%s: no \"%s\" in \"%s\"", d->name, wgdef,
                      opts);
        snprintf(options, sizeof options, "%s", opts);
        cl_int err;
        const char *src = guide_source;
        cl_program prog = clCreateProgramWithSource(d->cl_ctx, 1, &src, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        t0 = now_s();
        err = clBuildProgram(prog, 1, &d->dev, options, NULL, NULL);
        time_builds += now_s() - t0;
        if (err != CL_SUCCESS) {
            static char log[16384];
            log[0] = '\0';
            clGetProgramBuildInfo(prog, d->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            log[sizeof log - 1] = '\0';
            ck_abort_msg("%s: the guide's kernel does not build with \"%s\": %s: %s", d->name,
                         options, clscan_status_string(err), log);
        }
        cl_kernel k = clCreateKernel(prog, "prefix_of_squares", &err);
        ck_assert_msg(err == CL_SUCCESS, "%s: clCreateKernel: %s", d->name,
                      clscan_status_string(err));
        size_t kwg = 0;
        clGetKernelWorkGroupInfo(k, d->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL);
        ck_assert_msg(kwg >= want, "%s: the guide's kernel allows %zu work-items, asked %zu",
                      d->name, kwg, want);
        const size_t groups = 5, n = groups * want;
        uint32_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
        ck_assert(in && out);
        uint64_t rng = case_seed(0x9d1de, (uint64_t)di, want);
        for (size_t i = 0; i < n; i++) in[i] = (uint32_t)splitmix(&rng);
        cl_mem m_in = make_buffer(d, n * sizeof *in, in);
        cl_mem m_out = make_buffer(d, n * sizeof *out, NULL);
        set_arg(k, 0, sizeof m_in, &m_in);
        set_arg(k, 1, sizeof m_out, &m_out);
        launch(d, k, n, want, "prefix_of_squares");
        read_buffer(d, m_out, n * sizeof *out, out);
        char where[400];
        snprintf(where, sizeof where, "%s: guide example, %zu groups of %zu (seed %" PRIu64 ")",
                 d->name, groups, want, master_seed);
        case_begin(&tl);
        for (size_t g = 0; g < groups; g++) {
            uint32_t acc = 0;
            for (size_t i = g * want; i < (g + 1) * want; i++) {
                acc += in[i] * in[i];
                if (out[i] != acc)
                    mismatch(&tl, where, "out[%zu] = %" PRIu32 ", expected %" PRIu32, i, out[i],
                             acc);
            }
        }
        case_end(&tl);
        clReleaseMemObject(m_in);
        clReleaseMemObject(m_out);
        clReleaseKernel(k);
        clReleaseProgram(prog);

        /* Sizes the call refuses, each with a message naming it. */
        const size_t bad[] = {0, 3, 96, d->max_wg * 2};
        for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
            char num[32];
            snprintf(num, sizeof num, "work_group_size %zu", bad[b]);
            s = clscan_kernel_build_options_wg(sc, CLSCAN_UINT32, CLSCAN_OP_ADD, bad[b], opts,
                                               sizeof opts, NULL, NULL);
            const char *msg = clscan_context_last_error(sc);
            case_begin(&tl);
            if (s != CLSCAN_ERROR_INVALID_ARGUMENT || !strstr(msg, num))
                mismatch(&tl, "clscan_kernel_build_options_wg", "%s: %s gave %s: \"%s\"",
                         d->name, num, clscan_status_string(s), msg);
            case_end(&tl);
        }
        clscan_context_release(sc);
    }
    tally_check(&tl, "guide example");
}
END_TEST

/* ------------------------------------------------------------ suite --------- */

static Suite *layers_suite(void)
{
    Suite *s = suite_create("layers");
    TCase *tc = tcase_create("layers");
    tcase_add_checked_fixture(tc, layers_setup, layers_teardown);
    if (!getenv("CK_DEFAULT_TIMEOUT")) tcase_set_timeout(tc, 1800);
    tcase_add_test(tc, test_default_shape);
    tcase_add_test(tc, test_local_blelloch);
    tcase_add_test(tc, test_local_subgroup);
    if (native_count) tcase_add_loop_test(tc, test_native_subgroups, 0, native_count);
    tcase_add_test(tc, test_lookback);
    tcase_add_test(tc, test_guide_example);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *s = getenv("CLSCAN_TEST_SEED");
    master_seed = s && *s ? strtoull(s, NULL, 0) : 20261125u;
    fprintf(stderr, "seed %" PRIu64 " (set CLSCAN_TEST_SEED to change it)\n", master_seed);
    probe_native();
    for (int k = 0; k < 3; k++)
        if (!native_runnable[k])
            fprintf(stderr, "SKIP %s sub-groups: no device here can run them (reasons above); "
                            "their test is not registered\n", native_names[k]);
    /* Run by hand (under Oclgrind, say): the source tree's layers, and room for builds. */
    setenv("CLSCAN_KERNEL_INCLUDE_DIR", LAYERS_INCLUDE_DIR, 0);
    SRunner *sr = srunner_create(layers_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
