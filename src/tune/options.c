/* options.c - clscan_context_options as a source of the CLSCAN_* settings: each field
 * that is set is formatted as the text its variable would hold, so that options and the
 * environment go through one parser (tune/overrides.c) with the same checks. */
/* SPDX-License-Identifier: MIT */
#include "tune/tune.h"

#include <stdio.h>
#include <string.h>

typedef enum { OPT_STRING, OPT_ULONG, OPT_SWITCH, OPT_DEVTYPE, OPT_MEMTYPE, OPT_ENUM } opt_kind;

static const char *const subgroups_names[] = {NULL, "local", "khr", "nvidia", "intel"};
static const char *const wg_scan_names[] = {NULL, "blelloch", "subgroup"};
static const char *const algorithm_names[] = {NULL, "multi-level", "single-pass"};
static const char *const atomics_names[] = {NULL, "cl12", "c11", "ptx"};
static const char *const test_names[] = {NULL, "delay", "silent"};
static const char *const sort_names[] = {NULL, "three-step", "onesweep"};

/* Column legend: the variable, the field's offset and size, how it is written, and for
 * OPT_ENUM the names of values 1, 2, ... (value 0 is the default). */
static const struct option_field {
    const char *name;
    size_t offset, size;
    opt_kind kind;
    const char *const *names;
    size_t count;
} fields[] = {
#define F(var, field, kind) \
    {var, offsetof(clscan_context_options, field), \
     sizeof(((clscan_context_options *)0)->field), kind, NULL, 0}
#define E(var, field, list) \
    {var, offsetof(clscan_context_options, field), \
     sizeof(((clscan_context_options *)0)->field), OPT_ENUM, list, sizeof list / sizeof list[0]}
    F("CLSCAN_VENDOR", vendor, OPT_STRING),
    F("CLSCAN_DEVICE_TYPE", device_type, OPT_DEVTYPE),
    F("CLSCAN_OPENCL_VERSION", opencl_version, OPT_STRING),
    F("CLSCAN_OPENCL_C_VERSION", opencl_c_version, OPT_STRING),
    F("CLSCAN_EXTENSIONS", extensions, OPT_STRING),
    F("CLSCAN_LOCAL_MEM_SIZE", local_mem_size, OPT_ULONG),
    F("CLSCAN_LOCAL_MEM_TYPE", local_mem_type, OPT_MEMTYPE),
    F("CLSCAN_MAX_WORK_GROUP_SIZE", max_work_group_size, OPT_ULONG),
    F("CLSCAN_MAX_MEM_ALLOC_SIZE", max_mem_alloc_size, OPT_ULONG),
    F("CLSCAN_COMPUTE_UNITS", compute_units, OPT_ULONG),
    F("CLSCAN_WG_MULTIPLE", wg_multiple, OPT_ULONG),
    F("CLSCAN_SUBGROUP_WIDTH", subgroup_width, OPT_ULONG),
    F("CLSCAN_FP64", fp64, OPT_SWITCH),
    F("CLSCAN_INT64_ATOMICS", int64_atomics, OPT_SWITCH),
    F("CLSCAN_MAX_LOOP_ITERATIONS", max_loop_iterations, OPT_ULONG),
    F("CLSCAN_BANK_PROBE", bank_probe, OPT_SWITCH),
    F("CLSCAN_LOCAL_MEM_BANKS", local_mem_banks, OPT_ULONG),
    F("CLSCAN_BANK_WIDTH", bank_width, OPT_ULONG),
    F("CLSCAN_WORK_GROUP_SIZE", work_group_size, OPT_ULONG),
    F("CLSCAN_ITEMS_PER_THREAD", items_per_thread, OPT_ULONG),
    F("CLSCAN_GROUPS_PER_CU", groups_per_cu, OPT_ULONG),
    F("CLSCAN_MAX_GROUPS", max_groups, OPT_ULONG),
    F("CLSCAN_SINGLE_GROUP_TILES", single_group_tiles, OPT_ULONG),
    F("CLSCAN_SP_WORK_GROUP_SIZE", sp_work_group_size, OPT_ULONG),
    F("CLSCAN_SP_ITEMS_PER_THREAD", sp_items_per_thread, OPT_ULONG),
    F("CLSCAN_PADDING", padding, OPT_SWITCH),
    E("CLSCAN_SUBGROUP_IMPL", subgroups, subgroups_names),
    E("CLSCAN_WG_SCAN", wg_scan, wg_scan_names),
    E("CLSCAN_SCAN_ALGO", algorithm, algorithm_names),
    E("CLSCAN_LOOKBACK_ATOMICS", lookback_atomics, atomics_names),
    F("CLSCAN_LOOKBACK_SPINS", lookback_spins, OPT_ULONG),
    E("CLSCAN_LOOKBACK_TEST", lookback_test, test_names),
    F("CLSCAN_DISK_CACHE", disk_cache, OPT_SWITCH),
    F("CLSCAN_CACHE_DIR", cache_dir, OPT_STRING),
    F("CLSCAN_KERNEL_INCLUDE_DIR", kernel_include_dir, OPT_STRING),
    E("CLSCAN_SORT_ALGO", sort_algorithm, sort_names),
    F("CLSCAN_MAX_TEXT_BYTES", max_text_bytes, OPT_ULONG),
    F("CLSCAN_MAX_PROGRAMS", max_programs, OPT_ULONG),
    F("CLSCAN_MAX_PROGRAM_BYTES", max_program_bytes, OPT_ULONG),
    F("CLSCAN_SORT_MAX_REGISTERS", sort_max_registers, OPT_ULONG),
    F("CLSCAN_GLOBAL_MEM_CACHE_SIZE", global_mem_cache_size, OPT_ULONG),
#undef E
#undef F
};
enum { FIELD_COUNT = sizeof fields / sizeof fields[0] };

/* The field's value as text, in buf where it is formatted; NULL when it is not set. */
static const char *field_text(const struct option_field *f, const void *o, char *buf,
                              size_t size)
{
    const char *at = (const char *)o + f->offset;
    unsigned long long num = 0;
    if (f->kind == OPT_STRING) {
        const char *text;
        memcpy(&text, at, sizeof text);
        return text;
    }
    if (f->size == sizeof(cl_ulong)) {
        cl_ulong v;
        memcpy(&v, at, sizeof v);
        num = v;
    } else {
        int v; /* the enums and cl_device_local_mem_type (cl_uint) */
        memcpy(&v, at, sizeof v);
        num = (unsigned)v;
    }
    if (num == 0) return NULL;
    switch (f->kind) {
    case OPT_ULONG:
        snprintf(buf, size, "%llu", num == CLSCAN_OPTION_ZERO ? 0ull : num);
        return buf;
    case OPT_SWITCH:
        /* A value other than on or off reaches the parser as a number it refuses. */
        snprintf(buf, size, "%llu", num == CLSCAN_SWITCH_OFF ? 0ull
                                    : num == CLSCAN_SWITCH_ON ? 1ull
                                                             : num);
        return buf;
    case OPT_DEVTYPE:
        snprintf(buf, size, "%s", num == CL_DEVICE_TYPE_GPU           ? "gpu"
                                  : num == CL_DEVICE_TYPE_CPU         ? "cpu"
                                  : num == CL_DEVICE_TYPE_ACCELERATOR ? "accelerator"
                                                                      : "(not one type)");
        return buf;
    case OPT_MEMTYPE:
        snprintf(buf, size, "%s", num == CL_LOCAL ? "local" : num == CL_GLOBAL ? "global"
                                                                          : "(unknown)");
        return buf;
    case OPT_ENUM:
        if (num < f->count) snprintf(buf, size, "%s", f->names[num]);
        else snprintf(buf, size, "(value %llu)", num);
        return buf;
    case OPT_STRING: break;
    }
    return NULL;
}

clscan_status clscan__options_env_init(clscan__options_env *env,
                                       const clscan_context_options *options)
{
    _Static_assert(sizeof env->values / sizeof env->values[0] >= FIELD_COUNT,
                   "room for every option");
    memset(env, 0, sizeof *env);
    if (!options) return CLSCAN_SUCCESS;
    CLSCAN__RETURN_IF(NULL, options->struct_size < offsetof(clscan_context_options, vendor) ||
                               options->struct_size > sizeof *options,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "options->struct_size is %zu: expected sizeof(clscan_context_options), "
                     "%zu in this library", options->struct_size, sizeof *options);
    CLSCAN__RETURN_IF(NULL, options->flags & ~CLSCAN_OPTIONS_IGNORE_ENVIRONMENT,
                     CLSCAN_ERROR_INVALID_ARGUMENT, "options->flags has unknown bits 0x%x",
                     options->flags & ~CLSCAN_OPTIONS_IGNORE_ENVIRONMENT);
    env->options = options;
    env->ignore_environment = (options->flags & CLSCAN_OPTIONS_IGNORE_ENVIRONMENT) != 0;
    return CLSCAN_SUCCESS;
}

const char *clscan__options_getenv(const char *name, void *user)
{
    clscan__options_env *env = user;
    if (env->options) {
        for (size_t i = 0; i < FIELD_COUNT; ++i) {
            const struct option_field *f = &fields[i];
            /* A caller built against an older header passed a shorter struct. */
            if (strcmp(f->name, name) != 0 || f->offset + f->size > env->options->struct_size)
                continue;
            const char *v = field_text(f, env->options, env->values[i], sizeof env->values[i]);
            if (v) return v;
            break;
        }
    }
    return env->ignore_environment ? NULL : clscan__env_getter(name, NULL);
}
