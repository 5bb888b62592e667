/* profile.c - the device profile: what the device reports (probed once per context),
 * the vendor tables for local-memory banks and tuning, and the CLSCAN_* environment
 * overrides for every value. docs/DEVICES.md documents the overrides. */
#include "clscan_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Extension query tokens and enums that 1.2 headers may lack. */
#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#endif
#ifndef CL_DEVICE_WAVEFRONT_WIDTH_AMD
#define CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043
#endif
#ifndef CL_DEVICE_SUB_GROUP_SIZES_INTEL
#define CL_DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
#endif
#define CLSCAN_DEVICE_OPENCL_C_FEATURES 0x106F           /* OpenCL 3.0 */
#define CLSCAN_DEVICE_PREFERRED_WG_SIZE_MULTIPLE 0x1067  /* OpenCL 3.0 */
#define CLSCAN_NAME_VERSION_MAX_NAME_SIZE 64

/* ------------------------------------------------------------ small parsers -- */

int clscan__has_token(const char *list, const char *token)
{
    if (!list || !token || !*token) return 0;
    size_t len = strlen(token);
    for (const char *p = list; (p = strstr(p, token)) != NULL; p += len) {
        int starts = p == list || isspace((unsigned char)p[-1]);
        int ends = p[len] == '\0' || isspace((unsigned char)p[len]);
        if (starts && ends) return 1;
    }
    return 0;
}

int clscan__parse_version(const char *text, const char *prefix, int *major, int *minor)
{
    size_t lp = strlen(prefix);
    if (!text || strncmp(text, prefix, lp) != 0) return 0;
    int ma, mi;
    if (sscanf(text + lp, "%d.%d", &ma, &mi) != 2 || ma < 1 || mi < 0) return 0;
    *major = ma;
    *minor = mi;
    return 1;
}

int clscan__parse_size(const char *text, unsigned long long *out)
{
    if (!text || !isdigit((unsigned char)*text)) return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno) return 0;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; ++end; break;
    case 'M': shift = 20; ++end; break;
    case 'G': shift = 30; ++end; break;
    default: break;
    }
    if (*end != '\0') return 0;
    if (shift && v > (~0ull >> shift)) return 0;
    *out = v << shift;
    return 1;
}

/* ------------------------------------------------------------------ vendors -- */

static const struct {
    clscan_vendor vendor;
    const char *name;     /* normalised name */
    cl_uint pci_id;       /* CL_DEVICE_VENDOR_ID */
    const char *matches[3]; /* case-insensitive substrings of CL_DEVICE_VENDOR */
} vendors[] = {
    {CLSCAN_VENDOR_NVIDIA, "nvidia", 0x10DE, {"nvidia", NULL, NULL}},
    {CLSCAN_VENDOR_AMD, "amd", 0x1002, {"advanced micro devices", "amd", NULL}},
    {CLSCAN_VENDOR_INTEL, "intel", 0x8086, {"intel", NULL, NULL}},
    {CLSCAN_VENDOR_APPLE, "apple", 0x1027F00, {"apple", NULL, NULL}},
    {CLSCAN_VENDOR_ARM, "arm", 0x13B5, {"arm", NULL, NULL}},
    {CLSCAN_VENDOR_QUALCOMM, "qualcomm", 0x5143, {"qualcomm", NULL, NULL}},
};

static int contains_nocase(const char *hay, const char *needle)
{
    size_t ln = strlen(needle);
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < ln && tolower((unsigned char)hay[i]) == needle[i]) ++i;
        if (i == ln) return 1;
    }
    return 0;
}

clscan_vendor clscan__vendor_normalise(cl_uint vendor_id, const char *vendor_name)
{
    /* The name first: CPU implementations report odd ids (PoCL on an AMD CPU gives
     * Intel's 0x8086 with the name "AuthenticAMD"). */
    size_t count = sizeof vendors / sizeof vendors[0];
    for (size_t i = 0; i < count && vendor_name; ++i)
        for (int m = 0; m < 3 && vendors[i].matches[m]; ++m)
            if (contains_nocase(vendor_name, vendors[i].matches[m])) return vendors[i].vendor;
    for (size_t i = 0; i < count; ++i)
        if (vendor_id == vendors[i].pci_id) return vendors[i].vendor;
    return CLSCAN_VENDOR_OTHER;
}

const char *clscan__vendor_name(clscan_vendor v)
{
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; ++i)
        if (vendors[i].vendor == v) return vendors[i].name;
    return "other";
}

static int vendor_from_name(const char *name, clscan_vendor *out)
{
    if (strcmp(name, "other") == 0) {
        *out = CLSCAN_VENDOR_OTHER;
        return 1;
    }
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; ++i)
        if (strcmp(name, vendors[i].name) == 0) {
            *out = vendors[i].vendor;
            return 1;
        }
    return 0;
}

/* ------------------------------------------------------------------- tables -- */

/* Local-memory banks by vendor, for devices whose local memory is on-chip (a device
 * reporting CL_GLOBAL local memory gets none). Columns: vendor, banks, bank width in
 * bytes, where the figure comes from. The bank probe (banks.c) replaces these where
 * it runs and finds a pattern. */
static const struct bank_row {
    clscan_vendor vendor;
    cl_uint banks;
    cl_uint width;
    const char *source;
} bank_table[] = {
    {CLSCAN_VENDOR_NVIDIA, 32, 4, "table: NVIDIA shared memory, 32 banks x 4 B since Fermi"},
    {CLSCAN_VENDOR_AMD, 32, 4, "table: AMD GCN/RDNA LDS, 32 banks x 4 B"},
    {CLSCAN_VENDOR_INTEL, 16, 4, "table: Intel Gen SLM, 16 banks x 4 B"},
    {CLSCAN_VENDOR_APPLE, 32, 4, "table: Apple GPU threadgroup memory, assumed 32 x 4 B"},
    {CLSCAN_VENDOR_OTHER, 32, 4, "table: default for on-chip local memory, 32 x 4 B"},
};

/* Launch shape by vendor and device type. Columns: vendor (OTHER matches any), device
 * type (0 matches any); for the multi-level scan the work-group size, items per
 * work-item for 4-byte types, work-groups per compute unit, tiles done by one
 * work-group in a single kernel; for the single-pass scan the work-group size and items
 * per work-item. The first matching row wins; the last row matches everything. */
static const struct tuning_row {
    clscan_vendor vendor;
    cl_device_type type;
    size_t wg_size;
    cl_uint items;
    cl_uint groups_per_cu;
    cl_uint single_group_tiles;
    size_t sp_wg_size;
    cl_uint sp_items;
    const char *source;
} tuning_table[] = {
    /* H100 (docs/PERFORMANCE.md has the figures). Single-pass: 256 x 32 was the best of
     * seven shapes measured, 740.7 us for int32 at 2^28, 96.5% of the copy (256 x 8:
     * 64%, 256 x 16: 93%). */
    {CLSCAN_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, 256, 8, 4, 2, 256, 32, "table: NVIDIA GPU"},
    {CLSCAN_VENDOR_AMD, CL_DEVICE_TYPE_GPU, 256, 8, 4, 2, 256, 16, "table: AMD GPU (untested)"},
    {CLSCAN_VENDOR_INTEL, CL_DEVICE_TYPE_GPU, 256, 8, 4, 2, 256, 16,
     "table: Intel GPU (untested)"},
    /* CPU implementations run a work-group's work-items as a loop and pay for every
     * barrier by saving their state: one work-item per group scanning 1024 elements
     * serially is 3-4x faster on PoCL than 64 x 16 (docs/PERFORMANCE.md). */
    {CLSCAN_VENDOR_OTHER, CL_DEVICE_TYPE_CPU, 1, 1024, 2, 4, 1, 8192, "table: CPU device"},
    {CLSCAN_VENDOR_OTHER, 0, 128, 8, 4, 2, 128, 8, "table: default"},
};

/* ---------------------------------------------------------------- overrides -- */

static const char *const sg_impl_names[CLSCAN_SG_IMPL_COUNT] = {"local", "khr", "nvidia",
                                                                "intel"};
static const char *const wg_algo_names[CLSCAN_WG_ALGO_COUNT] = {"blelloch", "subgroup"};
static const char *const scan_algo_names[CLSCAN_SCAN_ALGO_COUNT] = {"multi-level",
                                                                    "single-pass"};
static const char *const lb_atomics_names[CLSCAN_LB_ATOMICS_COUNT] = {"cl12", "c11", "ptx"};
static const char *const lb_test_names[] = {"off", "delay", "silent"};

typedef enum { PHASE_FACT, PHASE_TUNING } override_phase;
typedef enum { KIND_UINT, KIND_SIZE, KIND_ULONG, KIND_BOOL, KIND_VENDOR, KIND_DEVTYPE,
               KIND_MEMTYPE, KIND_VERSION, KIND_STRING, KIND_NAME } override_kind;

/* Every CLSCAN_* variable the profile reads. Facts are applied before the tables are
 * consulted (so CLSCAN_VENDOR=amd picks AMD's rows), tuning after. */
static const struct override {
    const char *name;
    override_phase phase;
    override_kind kind;
    size_t offset;
    unsigned long long min, max; /* KIND_NAME: names[0 .. max) are the values 0 .. max-1 */
    const char *const *names;
} overrides[] = {
#define FIELD(f) offsetof(clscan_profile, f)
#define NAMES(list) 0, sizeof(list) / sizeof(list[0]), list
    {"CLSCAN_VENDOR", PHASE_FACT, KIND_VENDOR, FIELD(vendor), 0, 0, NULL},
    {"CLSCAN_DEVICE_TYPE", PHASE_FACT, KIND_DEVTYPE, FIELD(device_type), 0, 0, NULL},
    {"CLSCAN_OPENCL_VERSION", PHASE_FACT, KIND_VERSION, FIELD(cl_major), 0, 0, NULL},
    {"CLSCAN_OPENCL_C_VERSION", PHASE_FACT, KIND_VERSION, FIELD(c_major), 0, 0, NULL},
    {"CLSCAN_EXTENSIONS", PHASE_FACT, KIND_STRING, FIELD(extensions), 0, 0, NULL},
    {"CLSCAN_LOCAL_MEM_SIZE", PHASE_FACT, KIND_ULONG, FIELD(local_mem_size), 1024, 1ull << 40,
     NULL},
    {"CLSCAN_LOCAL_MEM_TYPE", PHASE_FACT, KIND_MEMTYPE, FIELD(local_mem_is_global), 0, 0, NULL},
    {"CLSCAN_MAX_WORK_GROUP_SIZE", PHASE_FACT, KIND_SIZE, FIELD(max_wg_size), 1, 1u << 16, NULL},
    {"CLSCAN_MAX_MEM_ALLOC_SIZE", PHASE_FACT, KIND_ULONG, FIELD(max_alloc), 4096, 1ull << 50,
     NULL},
    {"CLSCAN_COMPUTE_UNITS", PHASE_FACT, KIND_UINT, FIELD(compute_units), 1, 1u << 20, NULL},
    {"CLSCAN_WG_MULTIPLE", PHASE_FACT, KIND_SIZE, FIELD(wg_multiple), 1, 1024, NULL},
    {"CLSCAN_SUBGROUP_WIDTH", PHASE_FACT, KIND_UINT, FIELD(subgroup_width), 0, 128, NULL},
    {"CLSCAN_FP64", PHASE_FACT, KIND_BOOL, FIELD(fp64), 0, 1, NULL},
    {"CLSCAN_INT64_ATOMICS", PHASE_FACT, KIND_BOOL, FIELD(int64_atomics), 0, 1, NULL},
    {"CLSCAN_MAX_LOOP_ITERATIONS", PHASE_FACT, KIND_ULONG, FIELD(max_loop_iterations), 0,
     ~0ull, NULL},
    {"CLSCAN_LOCAL_MEM_BANKS", PHASE_TUNING, KIND_UINT, FIELD(local_banks), 0, 1024, NULL},
    {"CLSCAN_BANK_WIDTH", PHASE_TUNING, KIND_UINT, FIELD(bank_width), 1, 64, NULL},
    {"CLSCAN_WORK_GROUP_SIZE", PHASE_TUNING, KIND_SIZE, FIELD(wg_size), 1, 1u << 16, NULL},
    {"CLSCAN_ITEMS_PER_THREAD", PHASE_TUNING, KIND_UINT, FIELD(items_per_thread), 1, 4096, NULL},
    {"CLSCAN_GROUPS_PER_CU", PHASE_TUNING, KIND_UINT, FIELD(groups_per_cu), 1, 1024, NULL},
    {"CLSCAN_MAX_GROUPS", PHASE_TUNING, KIND_UINT, FIELD(max_groups), 1, 1u << 20, NULL},
    {"CLSCAN_SP_WORK_GROUP_SIZE", PHASE_TUNING, KIND_SIZE, FIELD(sp_wg_size), 1, 1u << 16, NULL},
    {"CLSCAN_SP_ITEMS_PER_THREAD", PHASE_TUNING, KIND_UINT, FIELD(sp_items), 1, 65536, NULL},
    {"CLSCAN_SINGLE_GROUP_TILES", PHASE_TUNING, KIND_UINT, FIELD(single_group_tiles), 1,
     1u << 20, NULL},
    {"CLSCAN_PADDING", PHASE_TUNING, KIND_BOOL, FIELD(padding), 0, 1, NULL},
    {"CLSCAN_SUBGROUP_IMPL", PHASE_TUNING, KIND_NAME, FIELD(sg_impl), NAMES(sg_impl_names)},
    {"CLSCAN_WG_SCAN", PHASE_TUNING, KIND_NAME, FIELD(wg_algo), NAMES(wg_algo_names)},
    {"CLSCAN_SCAN_ALGO", PHASE_TUNING, KIND_NAME, FIELD(scan_algo), NAMES(scan_algo_names)},
    {"CLSCAN_LOOKBACK_ATOMICS", PHASE_TUNING, KIND_NAME, FIELD(lb_atomics),
     NAMES(lb_atomics_names)},
    {"CLSCAN_LOOKBACK_SPINS", PHASE_TUNING, KIND_UINT, FIELD(lb_spins), 0, 1u << 30, NULL},
    {"CLSCAN_LOOKBACK_TEST", PHASE_TUNING, KIND_NAME, FIELD(lb_test), NAMES(lb_test_names)},
#undef NAMES
#undef FIELD
};

static clscan_status bad_env(const clscan_context *ctx, const struct override *o,
                             const char *value, const char *expected)
{
    return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT, "%s=\"%s\": expected %s",
                        o->name, value, expected);
}

static clscan_status apply_one(const clscan_context *ctx, clscan_profile *p,
                               const struct override *o, const char *v)
{
    char *field = (char *)p + o->offset;
    unsigned long long num;
    switch (o->kind) {
    case KIND_UINT:
    case KIND_SIZE:
    case KIND_ULONG:
    case KIND_BOOL:
        if (!clscan__parse_size(v, &num) || num < o->min || num > o->max) {
            char expected[96];
            snprintf(expected, sizeof expected, "an integer from %llu to %llu%s", o->min,
                     o->max, o->kind == KIND_BOOL ? "" : " (K, M, G suffixes allowed)");
            return bad_env(ctx, o, v, expected);
        }
        if (o->kind == KIND_UINT) *(cl_uint *)field = (cl_uint)num;
        else if (o->kind == KIND_SIZE) *(size_t *)field = (size_t)num;
        else if (o->kind == KIND_ULONG) *(cl_ulong *)field = (cl_ulong)num;
        else *(int *)field = (int)num;
        return CLSCAN_SUCCESS;
    case KIND_VENDOR:
        if (!vendor_from_name(v, (clscan_vendor *)field))
            return bad_env(ctx, o, v, "nvidia, amd, intel, apple, arm, qualcomm or other");
        return CLSCAN_SUCCESS;
    case KIND_DEVTYPE: {
        cl_device_type t = strcmp(v, "gpu") == 0           ? CL_DEVICE_TYPE_GPU
                           : strcmp(v, "cpu") == 0         ? CL_DEVICE_TYPE_CPU
                           : strcmp(v, "accelerator") == 0 ? CL_DEVICE_TYPE_ACCELERATOR
                                                           : 0;
        if (!t) return bad_env(ctx, o, v, "gpu, cpu or accelerator");
        *(cl_device_type *)field = t;
        return CLSCAN_SUCCESS;
    }
    case KIND_MEMTYPE:
        if (strcmp(v, "local") != 0 && strcmp(v, "global") != 0)
            return bad_env(ctx, o, v, "local or global");
        *(int *)field = strcmp(v, "global") == 0;
        return CLSCAN_SUCCESS;
    case KIND_VERSION: {
        int ma, mi;
        char buf[32];
        snprintf(buf, sizeof buf, "v%s", v);
        if (!clscan__parse_version(buf, "v", &ma, &mi))
            return bad_env(ctx, o, v, "a version such as 1.2 or 3.0");
        ((int *)field)[0] = ma; /* cl_major/cl_minor and c_major/c_minor are adjacent */
        ((int *)field)[1] = mi;
        return CLSCAN_SUCCESS;
    }
    case KIND_NAME: {
        char expected[128] = "";
        size_t len = 0;
        for (unsigned long long i = 0; i < o->max; ++i) {
            if (strcmp(v, o->names[i]) == 0) {
                *(int *)field = (int)i;
                return CLSCAN_SUCCESS;
            }
            const size_t room = len < sizeof expected ? sizeof expected - len : 0;
            len += (size_t)snprintf(expected + len, room, "%s%s",
                                    i == 0 ? "" : i + 1 == o->max ? " or " : ", ", o->names[i]);
            if (len >= sizeof expected) len = sizeof expected - 1;
        }
        return bad_env(ctx, o, v, expected);
    }
    case KIND_STRING: {
        char *copy = malloc(strlen(v) + 1);
        if (!copy) return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of memory");
        strcpy(copy, v);
        free(*(char **)field);
        *(char **)field = copy;
        return CLSCAN_SUCCESS;
    }
    }
    return CLSCAN_SUCCESS;
}

static clscan_status apply_overrides(const clscan_context *ctx, clscan_profile *p,
                                     override_phase phase, clscan_getenv_fn getenv_fn,
                                     void *user)
{
    if (!getenv_fn) return CLSCAN_SUCCESS;
    for (size_t i = 0; i < sizeof overrides / sizeof overrides[0]; ++i) {
        if (overrides[i].phase != phase) continue;
        const char *v = getenv_fn(overrides[i].name, user);
        if (!v) continue;
        clscan_status s = apply_one(ctx, p, &overrides[i], v);
        if (s != CLSCAN_SUCCESS) return s;
    }
    return CLSCAN_SUCCESS;
}

static int is_pow2(size_t x) { return x && !(x & (x - 1)); }

/* ---------------------------------------------------------------- sub-groups -- */

const char *clscan__sg_impl_name(clscan_sg_impl impl)
{
    return (unsigned)impl < CLSCAN_SG_IMPL_COUNT ? sg_impl_names[impl] : "invalid";
}

const char *clscan__wg_algo_name(clscan_wg_algo algo)
{
    return (unsigned)algo < CLSCAN_WG_ALGO_COUNT ? wg_algo_names[algo] : "invalid";
}

const char *clscan__scan_algo_name(clscan_scan_algo algo)
{
    return (unsigned)algo < CLSCAN_SCAN_ALGO_COUNT ? scan_algo_names[algo] : "invalid";
}

const char *clscan__lb_atomics_name(clscan_lb_atomics a)
{
    return (unsigned)a < CLSCAN_LB_ATOMICS_COUNT ? lb_atomics_names[a] : "invalid";
}

/* Whether `impl` can run here, and if not why (for the error of a forced choice). */
static const char *sg_impl_unavailable(const clscan_profile *p, clscan_sg_impl impl)
{
    switch (impl) {
    case CLSCAN_SG_LOCAL: return NULL;
    case CLSCAN_SG_KHR:
        return p->sg_khr ? NULL : "the device has neither cl_khr_subgroups nor "
                                  "__opencl_c_subgroups";
    case CLSCAN_SG_NVIDIA:
        if (!p->nvidia_platform) return "the platform is not NVIDIA's";
        if (!p->subgroup_queried || p->subgroup_width != 32)
            return "CL_DEVICE_WARP_SIZE_NV did not give a warp width of 32";
        return NULL;
    case CLSCAN_SG_INTEL:
        if (!p->sg_intel) return "the device lacks cl_intel_subgroups";
        if (!p->sg_intel_required_size || !p->subgroup_queried)
            return "the device lacks cl_intel_required_subgroup_size, so the width cannot "
                   "be fixed";
        if (p->subgroup_width != 8 && p->subgroup_width != 16 && p->subgroup_width != 32)
            return "Intel shuffles are used for widths 8, 16 and 32 only";
        return NULL;
    default: return "unknown implementation";
    }
}

/* The emulated width where no query gave one: the local implementation works for any
 * width, and 32 (NVIDIA's warp, half of AMD's wavefront) keeps its barrier count low. */
#define CLSCAN_EMULATED_SG_WIDTH 32

/* Picks the sub-group implementation and the work-group scan from the capabilities:
 * a native implementation where the device has one (NVIDIA's PTX where the platform
 * is NVIDIA's and the warp width was queried, Intel's shuffles where the width can be
 * fixed, the KHR built-ins where present), else local memory; the sub-group-based
 * work-group scan where sub-groups are native, else Blelloch. */
static void choose_subgroups(clscan_profile *p)
{
    /* The sub-group layer needs a power of two; a device reporting another width gets
     * the emulated one (and no native implementation: those check the width). */
    p->sg_width = is_pow2(p->subgroup_width) ? p->subgroup_width : CLSCAN_EMULATED_SG_WIDTH;
    if (!sg_impl_unavailable(p, CLSCAN_SG_NVIDIA)) {
        p->sg_impl = CLSCAN_SG_NVIDIA;
        p->sg_source = "NVIDIA platform, warp width from CL_DEVICE_WARP_SIZE_NV";
    } else if (!sg_impl_unavailable(p, CLSCAN_SG_INTEL)) {
        p->sg_impl = CLSCAN_SG_INTEL;
        p->sg_source = "cl_intel_subgroups, width fixed by cl_intel_required_subgroup_size";
    } else if (!sg_impl_unavailable(p, CLSCAN_SG_KHR)) {
        p->sg_impl = CLSCAN_SG_KHR;
        p->sg_source = "sub-group built-ins; width from clGetKernelSubGroupInfo after build";
    } else {
        p->sg_impl = CLSCAN_SG_LOCAL;
        p->sg_source = p->subgroup_queried ? "no sub-group functions: local memory, the "
                                             "device's width"
                       : p->subgroup_width ? "no sub-group functions: local memory, emulated "
                                             "width from CLSCAN_SUBGROUP_WIDTH"
                                           : "no sub-group functions: local memory, emulated "
                                             "width 32";
    }
    p->wg_algo = p->sg_impl == CLSCAN_SG_LOCAL ? CLSCAN_WG_BLELLOCH : CLSCAN_WG_SUBGROUP;
    p->wg_algo_source = p->sg_impl == CLSCAN_SG_LOCAL ? "no native sub-groups"
                                                      : "native sub-groups";
}

static clscan_status check_forced_subgroups(const clscan_context *ctx, clscan_profile *p)
{
    const char *why = sg_impl_unavailable(p, p->sg_impl);
    if (why)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_SUBGROUP_IMPL=%s cannot be used: %s",
                            clscan__sg_impl_name(p->sg_impl), why);
    p->sg_source = "CLSCAN_SUBGROUP_IMPL";
    return CLSCAN_SUCCESS;
}

/* ------------------------------------------------------- device-wide scan -- */

/* Whether the look-back can use `a` here, and if not why. */
static const char *lb_atomics_unavailable(const clscan_profile *p, clscan_lb_atomics a)
{
    switch (a) {
    case CLSCAN_LB_CL12: return NULL;
    case CLSCAN_LB_C11:
        if (p->cl_major < 2) return "the device is older than OpenCL 2.0";
        if (p->cl_major >= 3 && (!(p->features & CLSCAN_FEAT_ATOMIC_ACQ_REL) ||
                                 !(p->features & CLSCAN_FEAT_ATOMIC_SCOPE_DEVICE)))
            return "the device lacks __opencl_c_atomic_order_acq_rel or "
                   "__opencl_c_atomic_scope_device";
        return NULL;
    case CLSCAN_LB_PTX:
        if (!p->nvidia_platform) return "the platform is not NVIDIA's";
        if (!p->int64_atomics) return "64-bit atomics are off (CLSCAN_INT64_ATOMICS=0)";
        return NULL;
    default: return "unknown mode";
    }
}

/* The single-pass scan wherever a work-item may loop freely (the look-back waits in a
 * loop; llvmpipe stops a work-item after 65535 iterations in all); its status words
 * through the OpenCL 2.0/3.0 acquire/release atomics where the device has them, else
 * OpenCL 1.2 atomics. NVIDIA's OpenCL has no acquire/release, and its PTX loads were
 * measured slower than the 1.2 read-modify-writes (docs/PERFORMANCE.md), so PTX is an
 * override only. */
static void choose_device_scan(clscan_profile *p)
{
    p->scan_algo = p->max_loop_iterations ? CLSCAN_SCAN_MULTI_LEVEL : CLSCAN_SCAN_SINGLE_PASS;
    p->scan_algo_source = p->max_loop_iterations
                              ? "a work-item's loop iterations are limited: multi-level"
                              : "default: single-pass";
    if (!lb_atomics_unavailable(p, CLSCAN_LB_C11)) {
        p->lb_atomics = CLSCAN_LB_C11;
        p->lb_atomics_source = "device-scope acquire/release";
    } else {
        p->lb_atomics = CLSCAN_LB_CL12;
        p->lb_atomics_source = "OpenCL 1.2 atomics";
    }
    /* GPUs: a predecessor that has not published after this many reads (about a
     * microsecond each) is stalled, not slow; CPUs run a started group to its end. */
    p->lb_spins = 256;
    p->lb_test = 0;
}

/* After the overrides: checks a forced atomics mode and picks the status word width
 * (64 bits with 64-bit atomics, which C11 mode needs in their extended form too). */
static clscan_status finish_lookback(const clscan_context *ctx, clscan_profile *p, int forced)
{
    const char *why = lb_atomics_unavailable(p, p->lb_atomics);
    if (why && forced)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_LOOKBACK_ATOMICS=%s cannot be used: %s",
                            clscan__lb_atomics_name(p->lb_atomics), why);
    if (why) { /* a fact override took the default's ground away */
        p->lb_atomics = CLSCAN_LB_CL12;
        p->lb_atomics_source = "OpenCL 1.2 atomics";
    } else if (forced) {
        p->lb_atomics_source = "CLSCAN_LOOKBACK_ATOMICS";
    }
    p->lb_word_bits = p->int64_atomics ? 64 : 32;
    if (p->lb_atomics == CLSCAN_LB_C11 &&
        !clscan__has_token(p->extensions, "cl_khr_int64_extended_atomics"))
        p->lb_word_bits = 32;
    return CLSCAN_SUCCESS;
}

/* A work-group size must be a power of two the device allows; a default from the table
 * shrinks to fit, an explicit override (variable `name`) that does not fit is an error. */
static clscan_status fit_wg_size(const clscan_context *ctx, const clscan_profile *p,
                                 size_t *wg, const char *name, clscan_getenv_fn getenv_fn,
                                 void *user)
{
    if (!is_pow2(*wg))
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "%s: work-group size %zu is not a power of two", name, *wg);
    while (*wg > p->max_wg_size && *wg > 1) {
        if (getenv_fn && getenv_fn(name, user))
            return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                                "%s=%zu exceeds the device's maximum work-group size %zu", name,
                                *wg, p->max_wg_size);
        *wg >>= 1;
    }
    return CLSCAN_SUCCESS;
}

clscan_status clscan__profile_finish(const clscan_context *ctx, clscan_profile *p,
                                     clscan_getenv_fn getenv_fn, void *user)
{
    clscan_status s = apply_overrides(ctx, p, PHASE_FACT, getenv_fn, user);
    if (s != CLSCAN_SUCCESS) return s;
    /* Capabilities that follow from (possibly overridden) extension lists. */
    if (getenv_fn && getenv_fn("CLSCAN_EXTENSIONS", user)) {
        if (!getenv_fn("CLSCAN_FP64", user))
            p->fp64 = clscan__has_token(p->extensions, "cl_khr_fp64") ||
                      (p->features & CLSCAN_FEAT_FP64);
        if (!getenv_fn("CLSCAN_INT64_ATOMICS", user))
            p->int64_atomics = clscan__has_token(p->extensions, "cl_khr_int64_base_atomics");
    }

    /* Banks: none where local memory is ordinary memory. */
    p->local_banks = 0;
    p->bank_width = 4;
    p->banks_source = "none: local memory is global memory";
    if (!p->local_mem_is_global && p->bank_probe_ran && p->bank_probe.measured) {
        p->local_banks = p->bank_probe.banks;
        p->bank_width = p->bank_probe.width;
        p->banks_source = "measured by the bank probe";
    } else if (!p->local_mem_is_global) {
        size_t last = sizeof bank_table / sizeof bank_table[0] - 1;
        const struct bank_row *row = &bank_table[last];
        for (size_t i = 0; i < last; ++i)
            if (bank_table[i].vendor == p->vendor) row = &bank_table[i];
        p->local_banks = row->banks;
        p->bank_width = row->width;
        p->banks_source = row->source;
    }

    const struct tuning_row *t = NULL;
    for (size_t i = 0; i < sizeof tuning_table / sizeof tuning_table[0] && !t; ++i) {
        const struct tuning_row *r = &tuning_table[i];
        /* A row for a type matches devices of that type alone: Oclgrind, which reports
         * several types at once, gets the default row. */
        if ((r->vendor == CLSCAN_VENDOR_OTHER || r->vendor == p->vendor) &&
            (r->type == 0 || (p->device_type & ~(r->type | CL_DEVICE_TYPE_DEFAULT)) == 0))
            t = r;
    }
    p->wg_size = t->wg_size;
    p->items_per_thread = t->items;
    p->groups_per_cu = t->groups_per_cu;
    p->max_groups = 0;
    p->single_group_tiles = t->single_group_tiles;
    p->padding = 1;
    p->tuning_source = t->source;
    p->sp_wg_size = t->sp_wg_size;
    p->sp_items = t->sp_items;
    choose_device_scan(p);

    /* Sub-group capabilities follow the (possibly overridden) extension list. */
    p->sg_khr = clscan__has_token(p->extensions, "cl_khr_subgroups") ||
                (p->features & CLSCAN_FEAT_SUBGROUPS);
    p->sg_khr_shuffle_relative =
        clscan__has_token(p->extensions, "cl_khr_subgroup_shuffle_relative");
    p->sg_intel = clscan__has_token(p->extensions, "cl_intel_subgroups");
    p->sg_intel_required_size =
        clscan__has_token(p->extensions, "cl_intel_required_subgroup_size");
    if (getenv_fn && getenv_fn("CLSCAN_SUBGROUP_WIDTH", user)) {
        if (p->subgroup_width && !is_pow2(p->subgroup_width))
            return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                                "CLSCAN_SUBGROUP_WIDTH=%u is not a power of two",
                                p->subgroup_width);
        p->subgroup_queried = 0;
        p->subgroup_source = "CLSCAN_SUBGROUP_WIDTH";
    }
    choose_subgroups(p);

    s = apply_overrides(ctx, p, PHASE_TUNING, getenv_fn, user);
    if (s != CLSCAN_SUCCESS) return s;
    if (getenv_fn && getenv_fn("CLSCAN_SUBGROUP_IMPL", user)) {
        s = check_forced_subgroups(ctx, p);
        if (s != CLSCAN_SUCCESS) return s;
    }
    if (getenv_fn && getenv_fn("CLSCAN_WG_SCAN", user)) p->wg_algo_source = "CLSCAN_WG_SCAN";
    if (getenv_fn && getenv_fn("CLSCAN_SCAN_ALGO", user)) p->scan_algo_source = "CLSCAN_SCAN_ALGO";
    s = finish_lookback(ctx, p, getenv_fn && getenv_fn("CLSCAN_LOOKBACK_ATOMICS", user));
    if (s != CLSCAN_SUCCESS) return s;
    if (getenv_fn && getenv_fn("CLSCAN_LOCAL_MEM_BANKS", user))
        p->banks_source = "CLSCAN_LOCAL_MEM_BANKS";
    if (getenv_fn && getenv_fn("CLSCAN_WORK_GROUP_SIZE", user)) p->tuning_source = "overridden";

    s = fit_wg_size(ctx, p, &p->wg_size, "CLSCAN_WORK_GROUP_SIZE", getenv_fn, user);
    if (s == CLSCAN_SUCCESS)
        s = fit_wg_size(ctx, p, &p->sp_wg_size, "CLSCAN_SP_WORK_GROUP_SIZE", getenv_fn, user);
    if (s != CLSCAN_SUCCESS) return s;
    if (p->local_banks && !is_pow2(p->local_banks)) p->padding = 0;
    if (p->compute_units == 0) p->compute_units = 1;
    return CLSCAN_SUCCESS;
}

/* ------------------------------------------------------------------- probing -- */

static cl_int device_string(cl_device_id d, cl_device_info what, char *buf, size_t size)
{
    /* A buffer too small makes the query fail without writing anything (PoCL's device
     * version is 66 bytes), so ask for the length first and keep what fits. */
    size_t need = 0;
    cl_int err = clGetDeviceInfo(d, what, 0, NULL, &need);
    buf[0] = '\0';
    if (err == CL_SUCCESS && need > size) {
        char *full = malloc(need);
        if (!full) return CL_OUT_OF_HOST_MEMORY;
        err = clGetDeviceInfo(d, what, need, full, NULL);
        if (err == CL_SUCCESS) memcpy(buf, full, size - 1);
        free(full);
    } else if (err == CL_SUCCESS) {
        err = clGetDeviceInfo(d, what, size, buf, NULL);
        if (err != CL_SUCCESS) buf[0] = '\0';
    }
    buf[size - 1] = '\0';
    /* Drop trailing spaces some drivers add. */
    for (size_t n = strlen(buf); n && isspace((unsigned char)buf[n - 1]); --n) buf[n - 1] = 0;
    return err;
}

static clscan_status probe_features(cl_device_id d, clscan_profile *p)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {
        {"__opencl_c_subgroups", CLSCAN_FEAT_SUBGROUPS},
        {"__opencl_c_work_group_collective_functions", CLSCAN_FEAT_WG_COLLECTIVES},
        {"__opencl_c_atomic_order_acq_rel", CLSCAN_FEAT_ATOMIC_ACQ_REL},
        {"__opencl_c_atomic_order_seq_cst", CLSCAN_FEAT_ATOMIC_SEQ_CST},
        {"__opencl_c_atomic_scope_device", CLSCAN_FEAT_ATOMIC_SCOPE_DEVICE},
        {"__opencl_c_generic_address_space", CLSCAN_FEAT_GENERIC_AS},
        {"__opencl_c_fp64", CLSCAN_FEAT_FP64},
        {"__opencl_c_int64", CLSCAN_FEAT_INT64},
    };
    typedef struct {
        cl_uint version;
        char name[CLSCAN_NAME_VERSION_MAX_NAME_SIZE];
    } name_version;
    size_t bytes = 0;
    if (p->cl_major < 3 ||
        clGetDeviceInfo(d, CLSCAN_DEVICE_OPENCL_C_FEATURES, 0, NULL, &bytes) != CL_SUCCESS ||
        bytes == 0)
        return CLSCAN_SUCCESS; /* no 3.0 features to read: not an error */
    name_version *list = malloc(bytes);
    if (!list) return CLSCAN_ERROR_OUT_OF_RESOURCES;
    if (clGetDeviceInfo(d, CLSCAN_DEVICE_OPENCL_C_FEATURES, bytes, list, NULL) == CL_SUCCESS) {
        for (size_t i = 0; i < bytes / sizeof *list; ++i) {
            list[i].name[CLSCAN_NAME_VERSION_MAX_NAME_SIZE - 1] = '\0';
            for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
                if (strcmp(list[i].name, names[k].name) == 0) p->features |= names[k].bit;
        }
    }
    free(list);
    return CLSCAN_SUCCESS;
}

/* Sub-group width from the vendor queries that need no kernel. */
static void probe_subgroup_width(cl_device_id d, clscan_profile *p)
{
    cl_uint w = 0;
    if (clscan__has_token(p->extensions, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(d, CL_DEVICE_WARP_SIZE_NV, sizeof w, &w, NULL) == CL_SUCCESS && w) {
        p->subgroup_width = w;
        p->subgroup_source = "CL_DEVICE_WARP_SIZE_NV";
        p->subgroup_queried = 1;
        return;
    }
    if (clscan__has_token(p->extensions, "cl_amd_device_attribute_query") &&
        clGetDeviceInfo(d, CL_DEVICE_WAVEFRONT_WIDTH_AMD, sizeof w, &w, NULL) == CL_SUCCESS &&
        w) {
        p->subgroup_width = w;
        p->subgroup_source = "CL_DEVICE_WAVEFRONT_WIDTH_AMD";
        p->subgroup_queried = 1;
        return;
    }
    size_t sizes[16], bytes = 0;
    if (clscan__has_token(p->extensions, "cl_intel_required_subgroup_size") &&
        clGetDeviceInfo(d, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &bytes) ==
            CL_SUCCESS) {
        /* 16 where offered (SIMD16 is Intel's usual width for 32-bit work), else the
         * largest size listed. */
        for (size_t i = 0; i < bytes / sizeof sizes[0]; ++i)
            if (p->subgroup_width != 16 && (sizes[i] == 16 || sizes[i] > p->subgroup_width))
                p->subgroup_width = (cl_uint)sizes[i];
        if (p->subgroup_width) {
            p->subgroup_source = "CL_DEVICE_SUB_GROUP_SIZES_INTEL";
            p->subgroup_queried = 1;
            return;
        }
    }
    p->subgroup_source = "unknown (no query without a kernel)";
}

static const char *env_getter(const char *name, void *user)
{
    (void)user;
    return getenv(name);
}

/* Runs the bank probe where it can tell something: by default on GPUs whose local
 * memory is on-chip (a CPU's timings show no banks, and the probe would only cost
 * time); CLSCAN_BANK_PROBE=1 runs it anywhere, 0 never. Uses the device's own facts,
 * before overrides: it measures the hardware, not the emulated profile. A probe that
 * fails leaves the vendor table in charge; its reason shows in the description. */
static clscan_status run_bank_probe(const clscan_context *ctx, cl_context cl_ctx,
                                    cl_device_id d, clscan_getenv_fn getenv_fn, void *user,
                                    clscan_profile *p)
{
    const char *mode = getenv_fn("CLSCAN_BANK_PROBE", user);
    if (mode && strcmp(mode, "0") != 0 && strcmp(mode, "1") != 0)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_BANK_PROBE=\"%s\": expected 0 or 1", mode);
    int run = mode ? mode[0] == '1'
                   : p->device_type == CL_DEVICE_TYPE_GPU && !p->local_mem_is_global;
    if (!run || !cl_ctx) return CLSCAN_SUCCESS;
    clscan_status s = clscan__bank_probe(ctx, cl_ctx, d, p->max_wg_size, p->local_mem_size,
                                         &p->bank_probe);
    p->bank_probe_ran = 1;
    if (s != CLSCAN_SUCCESS) p->bank_probe.measured = 0; /* the detail says why */
    return CLSCAN_SUCCESS;
}

clscan_status clscan__profile_probe(const clscan_context *ctx, cl_context cl_ctx,
                                    cl_device_id d, clscan_getenv_fn getenv_fn, void *user,
                                    clscan_profile *p)
{
    memset(p, 0, sizeof *p);
    if (!getenv_fn) getenv_fn = env_getter;

    cl_platform_id platform;
    CLSCAN_FORWARD_CL(ctx, clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof platform, &platform,
                                           NULL),
                      "clGetDeviceInfo(CL_DEVICE_PLATFORM)");
    size_t got;
    if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof p->platform_name,
                          p->platform_name, &got) != CL_SUCCESS)
        p->platform_name[0] = '\0';
    p->platform_name[sizeof p->platform_name - 1] = '\0';
    CLSCAN_FORWARD_CL(ctx, device_string(d, CL_DEVICE_NAME, p->device_name,
                                         sizeof p->device_name),
                      "clGetDeviceInfo(CL_DEVICE_NAME)");
    device_string(d, CL_DEVICE_VENDOR, p->vendor_name, sizeof p->vendor_name);
    device_string(d, CL_DRIVER_VERSION, p->driver_version, sizeof p->driver_version);
    device_string(d, CL_DEVICE_VERSION, p->device_version, sizeof p->device_version);
    device_string(d, CL_DEVICE_OPENCL_C_VERSION, p->c_version, sizeof p->c_version);

    size_t ext_len = 0;
    CLSCAN_FORWARD_CL(ctx, clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len),
                      "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    p->extensions = calloc(ext_len + 1, 1);
    if (!p->extensions)
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    cl_int err = clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, ext_len, p->extensions, NULL);
    clscan_status s = CLSCAN_SUCCESS;
#define QUERY(what, field)                                                            \
    if (err == CL_SUCCESS) {                                                          \
        err = clGetDeviceInfo(d, what, sizeof(field), &(field), NULL);                \
        if (err != CL_SUCCESS) s = clscan__fail_cl(ctx, err, "clGetDeviceInfo(" #what ")"); \
    }
    if (err != CL_SUCCESS) s = clscan__fail_cl(ctx, err, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    cl_device_local_mem_type mem_type = CL_LOCAL;
    cl_device_fp_config fp64_config = 0;
    QUERY(CL_DEVICE_VENDOR_ID, p->vendor_id);
    QUERY(CL_DEVICE_TYPE, p->device_type);
    QUERY(CL_DEVICE_LOCAL_MEM_SIZE, p->local_mem_size);
    QUERY(CL_DEVICE_LOCAL_MEM_TYPE, mem_type);
    QUERY(CL_DEVICE_MAX_WORK_GROUP_SIZE, p->max_wg_size);
    QUERY(CL_DEVICE_MAX_COMPUTE_UNITS, p->compute_units);
    QUERY(CL_DEVICE_MAX_MEM_ALLOC_SIZE, p->max_alloc);
#undef QUERY
    if (s != CLSCAN_SUCCESS) {
        clscan__profile_free(p);
        return s;
    }
    /* Optional queries: absence is not an error. */
    if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64_config, &fp64_config,
                        NULL) != CL_SUCCESS)
        fp64_config = 0;
    p->local_mem_is_global = mem_type == CL_GLOBAL;
    p->vendor = clscan__vendor_normalise(p->vendor_id, p->vendor_name);
    if (!clscan__parse_version(p->device_version, "OpenCL ", &p->cl_major, &p->cl_minor)) {
        p->cl_major = 1;
        p->cl_minor = 2;
    }
    if (!clscan__parse_version(p->c_version, "OpenCL C ", &p->c_major, &p->c_minor)) {
        p->c_major = 1;
        p->c_minor = 2;
    }
    s = probe_features(d, p);
    if (s != CLSCAN_SUCCESS) {
        clscan__profile_free(p);
        return clscan__fail(ctx, s, "out of host memory");
    }
    if (p->cl_major >= 3 &&
        clGetDeviceInfo(d, CLSCAN_DEVICE_PREFERRED_WG_SIZE_MULTIPLE, sizeof p->wg_multiple,
                        &p->wg_multiple, NULL) != CL_SUCCESS)
        p->wg_multiple = 0;
    p->fp64 = fp64_config != 0 || clscan__has_token(p->extensions, "cl_khr_fp64") ||
              (p->features & CLSCAN_FEAT_FP64);
    p->int64_atomics = clscan__has_token(p->extensions, "cl_khr_int64_base_atomics");
    probe_subgroup_width(d, p);
    p->nvidia_platform = strstr(p->platform_name, "NVIDIA") != NULL;
    /* Mesa's llvmpipe (under rusticl or clover) ends a work-item silently once its loops
     * have run 65535 iterations in all; docs/DEVICES.md has the reproducer. */
    if (strstr(p->device_name, "llvmpipe")) p->max_loop_iterations = 65535;

    s = run_bank_probe(ctx, cl_ctx, d, getenv_fn, user, p);
    if (s == CLSCAN_SUCCESS) s = clscan__profile_finish(ctx, p, getenv_fn, user);
    /* Read once here, so that a context's programs go to one place all its life. */
    if (s == CLSCAN_SUCCESS) s = clscan__diskcache_settings(ctx, d, getenv_fn, user, p);
    if (s != CLSCAN_SUCCESS) clscan__profile_free(p);
    return s;
}

void clscan__profile_free(clscan_profile *p)
{
    free(p->extensions);
    free(p->cache_dir);
    free(p->cache_identity);
    p->extensions = p->cache_dir = p->cache_identity = NULL;
    p->disk_cache = 0;
}

/* Appends to buf like snprintf, tracking the total length needed. */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *len += (size_t)n;
}

size_t clscan__profile_describe(const clscan_profile *p, char *buf, size_t size)
{
    size_t len = 0;
    if (size) buf[0] = '\0';
    const char *type = (p->device_type & CL_DEVICE_TYPE_GPU)           ? "GPU"
                       : (p->device_type & CL_DEVICE_TYPE_CPU)         ? "CPU"
                       : (p->device_type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                                       : "other";
    append(buf, size, &len, "device:        %s (%s), platform %s\n", p->device_name, type,
           p->platform_name);
    append(buf, size, &len, "vendor:        %s (\"%s\", id 0x%x)\n",
           clscan__vendor_name(p->vendor), p->vendor_name, p->vendor_id);
    append(buf, size, &len, "versions:      OpenCL %d.%d, OpenCL C %d.%d, driver %s\n",
           p->cl_major, p->cl_minor, p->c_major, p->c_minor, p->driver_version);
    append(buf, size, &len, "compute units: %u, max work-group %zu, wg multiple %zu%s\n",
           p->compute_units, p->max_wg_size, p->wg_multiple,
           p->wg_multiple ? "" : " (unknown)");
    append(buf, size, &len, "local memory:  %llu KiB, %s, banks %u x %u B (%s)\n",
           (unsigned long long)(p->local_mem_size / 1024),
           p->local_mem_is_global ? "global (no padding)" : "on-chip", p->local_banks,
           p->bank_width, p->banks_source);
    if (p->bank_probe_ran)
        append(buf, size, &len, "bank probe:    %s: %s\n",
               p->bank_probe.measured ? "found" : "no result", p->bank_probe.detail);
    else
        append(buf, size, &len, "bank probe:    not run (%s)\n",
               p->local_mem_is_global ? "local memory is global memory"
                                      : "runs on GPUs only; CLSCAN_BANK_PROBE=1 forces it");
    append(buf, size, &len, "sub-groups:    width %u (%s)%s%s%s%s\n", p->subgroup_width,
           p->subgroup_source ? p->subgroup_source : "override", p->sg_khr ? ", khr" : "",
           p->sg_khr_shuffle_relative ? ", khr relative shuffles" : "",
           p->sg_intel ? ", intel" : "", p->nvidia_platform ? ", NVIDIA platform" : "");
    append(buf, size, &len, "scan layers:   %s work-group scan (%s), %s sub-groups of %u (%s)\n",
           clscan__wg_algo_name(p->wg_algo), p->wg_algo_source,
           clscan__sg_impl_name(p->sg_impl), p->sg_width, p->sg_source);
    append(buf, size, &len, "device scan:   %s (%s); single-pass tiles %zu x %u, %u-bit "
           "status words, %s atomics (%s), fallback after %u reads%s%s\n",
           clscan__scan_algo_name(p->scan_algo), p->scan_algo_source, p->sp_wg_size,
           p->sp_items, p->lb_word_bits, clscan__lb_atomics_name(p->lb_atomics),
           p->lb_atomics_source, p->lb_spins, p->lb_test ? ", TEST MODE " : "",
           p->lb_test ? lb_test_names[p->lb_test] : "");
    append(buf, size, &len, "capabilities:  fp64 %s, 64-bit atomics %s, max alloc %llu MiB\n",
           p->fp64 ? "yes" : "no", p->int64_atomics ? "yes" : "no",
           (unsigned long long)(p->max_alloc >> 20));
    if (p->max_loop_iterations)
        append(buf, size, &len, "quirks:        a work-item stops after %llu loop iterations\n",
               (unsigned long long)p->max_loop_iterations);
    append(buf, size, &len,
           "tuning:        work-group %zu, %u items/work-item (4-byte types), padding %s, "
           "%u groups/CU, one group up to %u tiles (%s)\n",
           p->wg_size, p->items_per_thread,
           p->padding && p->local_banks ? "on" : "off", p->groups_per_cu,
           p->single_group_tiles, p->tuning_source);
    if (p->disk_cache)
        append(buf, size, &len, "disk cache:    on, %s (%s)\n", p->cache_dir, p->cache_source);
    else
        append(buf, size, &len, "disk cache:    %s\n",
               p->cache_source ? p->cache_source : "off");
    return len;
}
