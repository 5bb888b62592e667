/* overrides.c - the CLSCAN_* settings as a table (name, phase, kind, profile field,
 * bounds), their parsing and checking, the names they take, and the environment as
 * their default source. docs/DEVICES.md documents each. */
/* SPDX-License-Identifier: MIT */
#include "tune/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sg_impl_names[CLSCAN__SG_IMPL_COUNT] = {"local", "khr", "nvidia",
                                                                "intel"};
static const char *const wg_algo_names[CLSCAN__WG_ALGO_COUNT] = {"blelloch", "subgroup"};
static const char *const scan_algo_names[CLSCAN__SCAN_ALGO_COUNT] = {"multi-level",
                                                                    "single-pass"};
static const char *const lb_atomics_names[CLSCAN__LB_ATOMICS_COUNT] = {"cl12", "c11", "ptx"};
static const char *const lb_test_names[] = {"off", "delay", "silent"};
static const char *const lb_walk_names[] = {"auto", "group", "sub-group"};
static const char *const sort_algo_names[CLSCAN__SORT_ALGO_COUNT] = {"three-step", "onesweep"};

typedef enum { KIND_UINT, KIND_SIZE, KIND_ULONG, KIND_BOOL, KIND_VENDOR, KIND_DEVTYPE,
               KIND_MEMTYPE, KIND_VERSION, KIND_STRING, KIND_NAME } override_kind;

/* Every CLSCAN_* variable the profile reads. Facts are applied before the tables are
 * consulted (so CLSCAN_VENDOR=amd picks AMD's rows), tuning after. */
static const struct override {
    const char *name;
    clscan__override_phase phase;
    override_kind kind;
    size_t offset;
    unsigned long long min, max; /* KIND_NAME: names[0 .. max) are the values 0 .. max-1 */
    const char *const *names;
} overrides[] = {
#define FIELD(f) offsetof(clscan__profile, f)
#define NAMES(list) 0, sizeof(list) / sizeof(list[0]), list
    {"CLSCAN_VENDOR", CLSCAN__PHASE_FACT, KIND_VENDOR, FIELD(vendor), 0, 0, NULL},
    {"CLSCAN_DEVICE_TYPE", CLSCAN__PHASE_FACT, KIND_DEVTYPE, FIELD(device_type), 0, 0, NULL},
    {"CLSCAN_OPENCL_VERSION", CLSCAN__PHASE_FACT, KIND_VERSION, FIELD(cl_major), 0, 0, NULL},
    {"CLSCAN_OPENCL_C_VERSION", CLSCAN__PHASE_FACT, KIND_VERSION, FIELD(c_major), 0, 0, NULL},
    {"CLSCAN_EXTENSIONS", CLSCAN__PHASE_FACT, KIND_STRING, FIELD(extensions), 0, 0, NULL},
    {"CLSCAN_LOCAL_MEM_SIZE", CLSCAN__PHASE_FACT, KIND_ULONG, FIELD(local_mem_size), 1024, 1ull << 40,
     NULL},
    {"CLSCAN_LOCAL_MEM_TYPE", CLSCAN__PHASE_FACT, KIND_MEMTYPE, FIELD(local_mem_is_global), 0, 0, NULL},
    {"CLSCAN_MAX_WORK_GROUP_SIZE", CLSCAN__PHASE_FACT, KIND_SIZE, FIELD(max_wg_size), 1, 1u << 16, NULL},
    {"CLSCAN_MAX_MEM_ALLOC_SIZE", CLSCAN__PHASE_FACT, KIND_ULONG, FIELD(max_alloc), 4096, 1ull << 50,
     NULL},
    {"CLSCAN_GLOBAL_MEM_CACHE_SIZE", CLSCAN__PHASE_FACT, KIND_ULONG, FIELD(global_cache_size), 0,
     1ull << 40, NULL},
    {"CLSCAN_COMPUTE_UNITS", CLSCAN__PHASE_FACT, KIND_UINT, FIELD(compute_units), 1, 1u << 20, NULL},
    {"CLSCAN_WG_MULTIPLE", CLSCAN__PHASE_FACT, KIND_SIZE, FIELD(wg_multiple), 1, 1024, NULL},
    {"CLSCAN_SUBGROUP_WIDTH", CLSCAN__PHASE_FACT, KIND_UINT, FIELD(subgroup_width), 0, 128, NULL},
    {"CLSCAN_FP64", CLSCAN__PHASE_FACT, KIND_BOOL, FIELD(fp64), 0, 1, NULL},
    {"CLSCAN_INT64_ATOMICS", CLSCAN__PHASE_FACT, KIND_BOOL, FIELD(int64_atomics), 0, 1, NULL},
    {"CLSCAN_MAX_LOOP_ITERATIONS", CLSCAN__PHASE_FACT, KIND_ULONG, FIELD(max_loop_iterations), 0,
     ~0ull, NULL},
    {"CLSCAN_LOCAL_MEM_BANKS", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(local_banks), 0, 1024, NULL},
    {"CLSCAN_BANK_WIDTH", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(bank_width), 1, 64, NULL},
    {"CLSCAN_WORK_GROUP_SIZE", CLSCAN__PHASE_TUNING, KIND_SIZE, FIELD(wg_size), 1, 1u << 16, NULL},
    {"CLSCAN_ITEMS_PER_THREAD", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(items_per_thread), 1, 4096, NULL},
    {"CLSCAN_GROUPS_PER_CU", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(groups_per_cu), 1, 1024, NULL},
    {"CLSCAN_MAX_GROUPS", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(max_groups), 1, 1u << 20, NULL},
    {"CLSCAN_SP_WORK_GROUP_SIZE", CLSCAN__PHASE_TUNING, KIND_SIZE, FIELD(sp_wg_size), 1, 1u << 16, NULL},
    {"CLSCAN_SP_ITEMS_PER_THREAD", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(sp_items), 1, 65536, NULL},
    {"CLSCAN_SINGLE_GROUP_TILES", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(single_group_tiles), 1,
     1u << 20, NULL},
    {"CLSCAN_PADDING", CLSCAN__PHASE_TUNING, KIND_BOOL, FIELD(padding), 0, 1, NULL},
    {"CLSCAN_SUBGROUP_IMPL", CLSCAN__PHASE_TUNING, KIND_NAME, FIELD(sg_impl), NAMES(sg_impl_names)},
    {"CLSCAN_WG_SCAN", CLSCAN__PHASE_TUNING, KIND_NAME, FIELD(wg_algo), NAMES(wg_algo_names)},
    {"CLSCAN_SCAN_ALGO", CLSCAN__PHASE_TUNING, KIND_NAME, FIELD(scan_algo), NAMES(scan_algo_names)},
    {"CLSCAN_LOOKBACK_ATOMICS", CLSCAN__PHASE_TUNING, KIND_NAME, FIELD(lb_atomics),
     NAMES(lb_atomics_names)},
    {"CLSCAN_LOOKBACK_SPINS", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(lb_spins), 0, 1u << 30, NULL},
    {"CLSCAN_LOOKBACK_TEST", CLSCAN__PHASE_TUNING, KIND_NAME, FIELD(lb_test), NAMES(lb_test_names)},
    {"CLSCAN_LOOKBACK_WALK", CLSCAN__PHASE_TUNING, KIND_NAME, FIELD(lb_walk), NAMES(lb_walk_names)},
    {"CLSCAN_SORT_ALGO", CLSCAN__PHASE_TUNING, KIND_NAME, FIELD(sort_algo), NAMES(sort_algo_names)},
    {"CLSCAN_SORT_MAX_REGISTERS", CLSCAN__PHASE_TUNING, KIND_UINT, FIELD(sort_max_registers), 0, 255,
     NULL},
    {"CLSCAN_MAX_TEXT_BYTES", CLSCAN__PHASE_TUNING, KIND_ULONG, FIELD(max_text_bytes), 1,
     1ull << 30, NULL},
    {"CLSCAN_MAX_PROGRAMS", CLSCAN__PHASE_TUNING, KIND_ULONG, FIELD(max_programs), 1, 1u << 20,
     NULL},
    {"CLSCAN_MAX_PROGRAM_BYTES", CLSCAN__PHASE_TUNING, KIND_ULONG, FIELD(max_program_bytes),
     4096, 1ull << 40, NULL},
#undef NAMES
#undef FIELD
};

static clscan_status bad_env(const clscan_context *ctx, const struct override *o,
                             const char *value, const char *expected)
{
    return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT, "%s=\"%s\": expected %s",
                        o->name, value, expected);
}

static clscan_status apply_one(const clscan_context *ctx, clscan__profile *p,
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
        if (!clscan__vendor_from_name(v, (clscan__vendor *)field))
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

clscan_status clscan__apply_overrides(const clscan_context *ctx, clscan__profile *p,
                                      clscan__override_phase phase, clscan__getenv_fn getenv_fn,
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

const char *clscan__sg_impl_name(clscan__sg_impl impl)
{
    return (unsigned)impl < CLSCAN__SG_IMPL_COUNT ? sg_impl_names[impl] : "invalid";
}

const char *clscan__wg_algo_name(clscan__wg_algo algo)
{
    return (unsigned)algo < CLSCAN__WG_ALGO_COUNT ? wg_algo_names[algo] : "invalid";
}

const char *clscan__sort_algo_name(clscan__sort_algo algo)
{
    return (unsigned)algo < CLSCAN__SORT_ALGO_COUNT ? sort_algo_names[algo] : "invalid";
}

const char *clscan__scan_algo_name(clscan__scan_algo algo)
{
    return (unsigned)algo < CLSCAN__SCAN_ALGO_COUNT ? scan_algo_names[algo] : "invalid";
}

const char *clscan__lb_atomics_name(clscan__lb_atomics a)
{
    return (unsigned)a < CLSCAN__LB_ATOMICS_COUNT ? lb_atomics_names[a] : "invalid";
}

const char *clscan__lb_test_name(clscan__lb_test mode)
{
    return (size_t)mode < sizeof lb_test_names / sizeof lb_test_names[0]
               ? lb_test_names[mode]
               : "invalid";
}

const char *clscan__lb_walk_name(clscan__lb_walk mode)
{
    return (size_t)mode < sizeof lb_walk_names / sizeof lb_walk_names[0] ? lb_walk_names[mode]
                                                                           : "invalid";
}

const char *clscan__env_getter(const char *name, void *user)
{
    (void)user;
    return getenv(name);
}
