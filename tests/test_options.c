/* test_options.c - clscan_context_create_with_options (include/clscan.h, "Context
 * options"), on the first device of each platform (test_devices.c):
 *   - options NULL, and options with every field zero, give what clscan_context_create
 *     gives (the same description);
 *   - every field, set, changes the profile (or disk cache, or include directory) exactly
 *     as its CLSCAN_* variable set to the same value does: one table row a field (and
 *     a row for each further value worth its own: CLSCAN_OPTION_ZERO, both algorithms,
 *     ...), the two contexts' descriptions equal and the field at the value wanted;
 *   - precedence: a field set wins over its variable, a field left 0 takes it, and
 *     CLSCAN_OPTIONS_IGNORE_ENVIRONMENT reads no variable (CLSCAN_*, XDG_CACHE_HOME, HOME);
 *   - the ABI: struct_size 0 or past this library's struct refused with a message, a
 *     shorter struct_size leaves the fields past it unread, unknown flags refused;
 *   - bad values: CLSCAN_ERROR_INVALID_ENVIRONMENT with a message naming the variable
 *     (the very message the variable set to the same text gives), *out NULL; junk in
 *     every variable the library reads: that error, or a context whose scans are right;
 *   - the strings are read during the call only (freed right after it);
 *   - scans on contexts made from options (multi-level 16 x 2, single-pass 16 x 2)
 *     against a host reference.
 * White-box (algo/algo.h) for the profile's fields. The tests set and restore CLSCAN_*
 * variables: each restores what it changed, so they also run in one process
 * (CK_FORK=no, as under valgrind). */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_cacheroot.h"
#include "test_devices.h"

#include <check.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ environment ---- */

/* Variables the tests changed, with what they held, to put back. */
enum { MAX_SAVED = 32 };
static struct saved_var {
    char *name, *value; /* value NULL: was unset */
} saved[MAX_SAVED];
static int nsaved;

/* Sets name to value (NULL: unsets it), remembering the old value for env_restore. */
static void env_set(const char *name, const char *value)
{
    ck_assert_int_lt(nsaved, MAX_SAVED);
    const char *old = getenv(name);
    saved[nsaved].name = strdup(name);
    saved[nsaved].value = old ? strdup(old) : NULL;
    ck_assert_ptr_nonnull(saved[nsaved].name);
    nsaved++;
    if (value)
        ck_assert_int_eq(setenv(name, value, 1), 0);
    else
        unsetenv(name);
}

/* Puts back every variable env_set changed, latest first. */
static void env_restore(void)
{
    while (nsaved > 0) {
        struct saved_var *v = &saved[--nsaved];
        if (v->value)
            setenv(v->name, v->value, 1);
        else
            unsetenv(v->name);
        free(v->name);
        free(v->value);
    }
}

static void setup(void)
{
    clscan_test_setup();
}

static void teardown(void)
{
    env_restore();
    clscan_test_teardown();
}

/* --------------------------------------------------------------- contexts ---- */

static clscan_context *const not_written = (clscan_context *)&saved; /* any non-NULL */

/* clscan_context_create_with_options on d; *out must be NULL after a failure. */
static clscan_status create(clscan_test_dev *d, const clscan_context_options *o,
                            clscan_context **out)
{
    *out = not_written;
    clscan_status s = clscan_context_create_with_options(d->cl_ctx, d->dev, o, out);
    if (s != CLSCAN_SUCCESS)
        ck_assert_msg(*out == NULL, "%s: a failed clscan_context_create_with_options (%s) "
                      "left *out %p", d->name, clscan_status_string(s), (void *)*out);
    else
        ck_assert_msg(*out != NULL && *out != not_written, "%s: success without a context",
                      d->name);
    return s;
}

/* A context from o (NULL: from the environment alone); fails the test if it cannot. */
static clscan_context *make(clscan_test_dev *d, const clscan_context_options *o,
                            const char *what)
{
    clscan_context *c;
    clscan_status s = create(d, o, &c);
    ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s: %s", d->name, what,
                  clscan_status_string(s), clscan_context_last_error(NULL));
    return c;
}

/* c's description (malloc'd). */
static char *describe(const clscan_context *c)
{
    size_t n = clscan_context_describe(c, NULL, 0);
    ck_assert_uint_gt(n, 0);
    char *buf = malloc(n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(clscan_context_describe(c, buf, n + 1), n);
    return buf;
}

/* Blanks, in a description, where the bank probe's result came from ("measured now",
 * "from earlier in this process", "loaded from the disk cache"): that is history, not the
 * context's settings (a first context in a fresh process measures, the next reuses). */
static void drop_probe_source(char *text)
{
    char *line = strstr(text, "bank probe:    ");
    char *open = line ? strchr(line, '(') : NULL, *eol = line ? strchr(line, '\n') : NULL;
    char *close = open ? strstr(open, "): ") : NULL;
    if (!open || !close || (eol && close > eol)) return;
    memmove(open + 1, close, strlen(close) + 1);
}

/* Fails unless a and b describe themselves alike. */
static void check_same_description(const clscan_test_dev *d, const clscan_context *a,
                                   const clscan_context *b, const char *what)
{
    char *da = describe(a), *db = describe(b);
    drop_probe_source(da);
    drop_probe_source(db);
    int same = strcmp(da, db) == 0;
    if (!same)
        fprintf(stderr, "%s: %s: descriptions differ:\n--- first\n%s--- second\n%s", d->name,
                what, da, db);
    free(da);
    free(db);
    ck_assert_msg(same, "%s: %s: the descriptions differ (printed above)", d->name, what);
}

/* --------------------------------------------------------------- getters ----- */

#define GET(name, expr)                                                  \
    static unsigned long long get_##name(const clscan_context *c)        \
    {                                                                    \
        const clscan__profile *p = &c->target.profile;                    \
        (void)p;                                                         \
        return (unsigned long long)(expr);                               \
    }
#define SGET(name, expr)                                                 \
    static const char *sget_##name(const clscan_context *c)              \
    {                                                                    \
        const clscan__profile *p = &c->target.profile;                    \
        (void)p;                                                         \
        return (expr);                                                   \
    }
GET(vendor, p->vendor)
GET(device_type, p->device_type)
GET(cl_version, p->cl_major * 10 + p->cl_minor)
GET(c_version, p->c_major * 10 + p->c_minor)
GET(fp64, p->fp64)
GET(local_mem_size, p->local_mem_size)
GET(local_mem_is_global, p->local_mem_is_global)
GET(max_wg_size, p->max_wg_size)
GET(max_alloc, p->max_alloc)
GET(compute_units, p->compute_units)
GET(wg_multiple, p->wg_multiple)
GET(subgroup_width, p->subgroup_width)
GET(int64_atomics, p->int64_atomics)
GET(max_loop_iterations, p->max_loop_iterations)
GET(bank_probe_ran, p->bank_probe_ran)
GET(local_banks, p->local_banks)
GET(bank_width, p->bank_width)
GET(wg_size, p->wg_size)
GET(items_per_thread, p->items_per_thread)
GET(groups_per_cu, p->groups_per_cu)
GET(max_groups, p->max_groups)
GET(single_group_tiles, p->single_group_tiles)
GET(sp_wg_size, p->sp_wg_size)
GET(sp_items, p->sp_items)
GET(padding, p->padding)
GET(sg_impl, p->sg_impl)
GET(wg_algo, p->wg_algo)
GET(scan_algo, p->scan_algo)
GET(lb_atomics, p->lb_atomics)
GET(lb_spins, p->lb_spins)
GET(max_text_bytes, p->max_text_bytes)
GET(max_programs, p->max_programs)
GET(max_program_bytes, p->max_program_bytes)
GET(sort_max_registers, p->sort_max_registers)
GET(global_cache_size, p->global_cache_size)
GET(lb_test, p->lb_test)
GET(disk_cache, c->target.cache.disk_cache)
SGET(extensions, p->extensions)
SGET(cache_dir, c->target.cache.cache_dir)
SGET(kernel_include_dir, c->kernel_include_dir)
#undef GET
#undef SGET

/* ------------------------------------------------------- option fields ------- */

#define FIELD(f) offsetof(clscan_context_options, f), sizeof(((clscan_context_options *)0)->f)

/* Writes a numeric value or a string into the option field at offset (size bytes). */
static void set_field(clscan_context_options *o, size_t offset, size_t size, cl_ulong num,
                      const char *str, int is_string)
{
    char *at = (char *)o + offset;
    if (is_string) {
        ck_assert_uint_eq(size, sizeof str);
        memcpy(at, &str, sizeof str);
    } else if (size == sizeof(cl_ulong)) {
        memcpy(at, &num, sizeof num);
    } else {
        ck_assert_uint_eq(size, sizeof(cl_uint)); /* the enums and cl_device_local_mem_type */
        cl_uint v = (cl_uint)num;
        memcpy(at, &v, sizeof v);
    }
}

/* One field: the variable it stands for and the text set there, the field and the value
 * set in it (a string field: text itself), a variable both contexts get (or NULL), and
 * the context's answer wanted: get() == want, or sget() equal to text. */
typedef struct field_case {
    const char *var, *text;
    size_t offset, size;
    cl_ulong num;
    int is_string;
    const char *base_var, *base_text;
    const char *what;
    unsigned long long (*get)(const clscan_context *);
    const char *(*sget)(const clscan_context *);
    unsigned long long want;
} field_case;

#define NUM_WITH(var, text, field, value, bvar, btext, getter, wanted) \
    {var, text, FIELD(field), (cl_ulong)(value), 0, bvar, btext, #getter, get_##getter, NULL, \
     (unsigned long long)(wanted)}
#define NUM(var, text, field, value, getter, wanted) \
    NUM_WITH(var, text, field, value, NULL, NULL, getter, wanted)
#define STR_NUM(var, text, field, getter, wanted) \
    {var, text, FIELD(field), 0, 1, NULL, NULL, #getter, get_##getter, NULL, \
     (unsigned long long)(wanted)}
#define STR_WITH(var, text, field, bvar, btext, getter) \
    {var, text, FIELD(field), 0, 1, bvar, btext, #getter, NULL, sget_##getter, 0}
#define STR(var, text, field, getter) STR_WITH(var, text, field, NULL, NULL, getter)

#define TEST_CACHE "/tmp/clscan-test-options-cache" /* never written: no build is made */
#define TEST_INCLUDE "/tmp/clscan-test-options-include"

static const field_case field_cases[] = {
    /* Device facts. */
    STR_NUM("CLSCAN_VENDOR", "amd", vendor, vendor, CLSCAN__VENDOR_AMD),
    STR_NUM("CLSCAN_VENDOR", "intel", vendor, vendor, CLSCAN__VENDOR_INTEL),
    NUM("CLSCAN_DEVICE_TYPE", "gpu", device_type, CL_DEVICE_TYPE_GPU, device_type,
        CL_DEVICE_TYPE_GPU),
    NUM("CLSCAN_DEVICE_TYPE", "accelerator", device_type, CL_DEVICE_TYPE_ACCELERATOR,
        device_type, CL_DEVICE_TYPE_ACCELERATOR),
    STR_NUM("CLSCAN_OPENCL_VERSION", "1.2", opencl_version, cl_version, 12),
    STR_NUM("CLSCAN_OPENCL_C_VERSION", "1.1", opencl_c_version, c_version, 11),
    STR("CLSCAN_EXTENSIONS", "cl_khr_fp64 cl_khr_global_int32_base_atomics", extensions,
        extensions),
    NUM("CLSCAN_LOCAL_MEM_SIZE", "16K", local_mem_size, 16384, local_mem_size, 16384),
    NUM("CLSCAN_LOCAL_MEM_TYPE", "global", local_mem_type, CL_GLOBAL, local_mem_is_global, 1),
    NUM("CLSCAN_LOCAL_MEM_TYPE", "local", local_mem_type, CL_LOCAL, local_mem_is_global, 0),
    NUM("CLSCAN_MAX_WORK_GROUP_SIZE", "32", max_work_group_size, 32, max_wg_size, 32),
    NUM("CLSCAN_MAX_MEM_ALLOC_SIZE", "1M", max_mem_alloc_size, 1 << 20, max_alloc, 1 << 20),
    NUM("CLSCAN_COMPUTE_UNITS", "3", compute_units, 3, compute_units, 3),
    NUM("CLSCAN_WG_MULTIPLE", "8", wg_multiple, 8, wg_multiple, 8),
    NUM("CLSCAN_SUBGROUP_WIDTH", "16", subgroup_width, 16, subgroup_width, 16),
    NUM("CLSCAN_SUBGROUP_WIDTH", "0", subgroup_width, CLSCAN_OPTION_ZERO, subgroup_width, 0),
    NUM("CLSCAN_FP64", "0", fp64, CLSCAN_SWITCH_OFF, fp64, 0),
    NUM("CLSCAN_FP64", "1", fp64, CLSCAN_SWITCH_ON, fp64, 1),
    NUM("CLSCAN_INT64_ATOMICS", "0", int64_atomics, CLSCAN_SWITCH_OFF, int64_atomics, 0),
    NUM("CLSCAN_INT64_ATOMICS", "1", int64_atomics, CLSCAN_SWITCH_ON, int64_atomics, 1),
    NUM("CLSCAN_MAX_LOOP_ITERATIONS", "100", max_loop_iterations, 100, max_loop_iterations,
        100),
    NUM("CLSCAN_MAX_LOOP_ITERATIONS", "0", max_loop_iterations, CLSCAN_OPTION_ZERO,
        max_loop_iterations, 0),
    /* Banks. */
    NUM("CLSCAN_BANK_PROBE", "0", bank_probe, CLSCAN_SWITCH_OFF, bank_probe_ran, 0),
    NUM("CLSCAN_LOCAL_MEM_BANKS", "16", local_mem_banks, 16, local_banks, 16),
    NUM("CLSCAN_LOCAL_MEM_BANKS", "0", local_mem_banks, CLSCAN_OPTION_ZERO, local_banks, 0),
    NUM("CLSCAN_BANK_WIDTH", "8", bank_width, 8, bank_width, 8),
    /* Tuning. */
    NUM("CLSCAN_WORK_GROUP_SIZE", "64", work_group_size, 64, wg_size, 64),
    NUM("CLSCAN_ITEMS_PER_THREAD", "2", items_per_thread, 2, items_per_thread, 2),
    NUM("CLSCAN_GROUPS_PER_CU", "3", groups_per_cu, 3, groups_per_cu, 3),
    NUM("CLSCAN_MAX_GROUPS", "5", max_groups, 5, max_groups, 5),
    NUM("CLSCAN_SINGLE_GROUP_TILES", "7", single_group_tiles, 7, single_group_tiles, 7),
    NUM("CLSCAN_SP_WORK_GROUP_SIZE", "32", sp_work_group_size, 32, sp_wg_size, 32),
    NUM("CLSCAN_SP_ITEMS_PER_THREAD", "3", sp_items_per_thread, 3, sp_items, 3),
    NUM("CLSCAN_PADDING", "0", padding, CLSCAN_SWITCH_OFF, padding, 0),
    NUM("CLSCAN_SUBGROUP_IMPL", "local", subgroups, CLSCAN_SUBGROUPS_LOCAL, sg_impl,
        CLSCAN__SG_LOCAL),
    NUM("CLSCAN_WG_SCAN", "blelloch", wg_scan, CLSCAN_WG_SCAN_BLELLOCH, wg_algo,
        CLSCAN__WG_BLELLOCH),
    NUM("CLSCAN_WG_SCAN", "subgroup", wg_scan, CLSCAN_WG_SCAN_SUBGROUPS, wg_algo,
        CLSCAN__WG_SUBGROUP),
    /* (Groups of 16: llvmpipe takes the multi-level scan for narrower ones.) */
    NUM_WITH("CLSCAN_SCAN_ALGO", "single-pass", algorithm, CLSCAN_ALGORITHM_SINGLE_PASS,
             "CLSCAN_SP_WORK_GROUP_SIZE", "16", scan_algo, CLSCAN__SCAN_SINGLE_PASS),
    NUM("CLSCAN_SCAN_ALGO", "multi-level", algorithm, CLSCAN_ALGORITHM_MULTI_LEVEL, scan_algo,
        CLSCAN__SCAN_MULTI_LEVEL),
    NUM("CLSCAN_LOOKBACK_ATOMICS", "cl12", lookback_atomics, CLSCAN_LOOKBACK_ATOMICS_CL12,
        lb_atomics, CLSCAN__LB_CL12),
    NUM("CLSCAN_LOOKBACK_SPINS", "8", lookback_spins, 8, lb_spins, 8),
    NUM("CLSCAN_LOOKBACK_SPINS", "0", lookback_spins, CLSCAN_OPTION_ZERO, lb_spins, 0),
    NUM("CLSCAN_LOOKBACK_TEST", "delay", lookback_test, CLSCAN_LOOKBACK_TEST_DELAY, lb_test, 1),
    NUM("CLSCAN_LOOKBACK_TEST", "silent", lookback_test, CLSCAN_LOOKBACK_TEST_SILENT, lb_test,
        2),
    /* Programs. */
    NUM("CLSCAN_DISK_CACHE", "0", disk_cache, CLSCAN_SWITCH_OFF, disk_cache, 0),
    NUM_WITH("CLSCAN_DISK_CACHE", "1", disk_cache, CLSCAN_SWITCH_ON, "CLSCAN_CACHE_DIR",
             TEST_CACHE, disk_cache, 1),
    STR_WITH("CLSCAN_CACHE_DIR", TEST_CACHE, cache_dir, "CLSCAN_DISK_CACHE", "1", cache_dir),
    STR("CLSCAN_KERNEL_INCLUDE_DIR", TEST_INCLUDE, kernel_include_dir, kernel_include_dir),
    NUM("CLSCAN_MAX_TEXT_BYTES", "100", max_text_bytes, 100, max_text_bytes, 100),
    NUM("CLSCAN_MAX_PROGRAMS", "7", max_programs, 7, max_programs, 7),
    NUM("CLSCAN_MAX_PROGRAM_BYTES", "65536", max_program_bytes, 65536, max_program_bytes, 65536),
    NUM("CLSCAN_SORT_MAX_REGISTERS", "48", sort_max_registers, 48, sort_max_registers, 48),
    NUM("CLSCAN_SORT_MAX_REGISTERS", "0", sort_max_registers, CLSCAN_OPTION_ZERO,
        sort_max_registers, 0),
    NUM("CLSCAN_GLOBAL_MEM_CACHE_SIZE", "1M", global_mem_cache_size, 1 << 20, global_cache_size,
        1 << 20),
    NUM("CLSCAN_GLOBAL_MEM_CACHE_SIZE", "0", global_mem_cache_size, CLSCAN_OPTION_ZERO,
        global_cache_size, 0),
};
enum { FIELD_CASES = sizeof field_cases / sizeof field_cases[0] };

/* Every field: the option and its variable give the same context, at the value wanted. */
START_TEST(test_every_field)
{
    size_t offsets_seen[64];
    int nfields = 0;
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_context *def = make(d, NULL, "the default context");
        unsigned already = 0;
        for (int i = 0; i < FIELD_CASES; i++) {
            const field_case *fc = &field_cases[i];
            char what[200];
            snprintf(what, sizeof what, "%s=\"%s\" and its option", fc->var, fc->text);
            if (fc->base_var) env_set(fc->base_var, fc->base_text);

            clscan_context_options o = {.struct_size = sizeof o};
            set_field(&o, fc->offset, fc->size, fc->num, fc->text, fc->is_string);
            clscan_context *by_option = make(d, &o, what);
            env_set(fc->var, fc->text);
            clscan_context *by_env = make(d, NULL, what);
            env_restore();

            if (fc->sget) {
                const char *a = fc->sget(by_option), *b = fc->sget(by_env),
                           *was = fc->sget(def);
                ck_assert_msg(a && strcmp(a, fc->text) == 0, "%s: %s: option gave %s \"%s\"",
                              d->name, what, fc->what, a ? a : "(null)");
                ck_assert_msg(b && strcmp(b, fc->text) == 0, "%s: %s: variable gave %s \"%s\"",
                              d->name, what, fc->what, b ? b : "(null)");
                already += was && strcmp(was, fc->text) == 0;
            } else {
                ck_assert_msg(fc->get(by_option) == fc->want,
                              "%s: %s: option gave %s %llu, wanted %llu", d->name, what,
                              fc->what, fc->get(by_option), fc->want);
                ck_assert_msg(fc->get(by_env) == fc->want,
                              "%s: %s: variable gave %s %llu, wanted %llu", d->name, what,
                              fc->what, fc->get(by_env), fc->want);
                already += fc->get(def) == fc->want;
            }
            check_same_description(d, by_option, by_env, what);
            clscan_context_release(by_option);
            clscan_context_release(by_env);

            int seen = 0;
            for (int k = 0; k < nfields; k++) seen |= offsets_seen[k] == fc->offset;
            if (!seen && nfields < 64) offsets_seen[nfields++] = fc->offset;
        }
        clscan_context_release(def);
        fprintf(stderr, "%s: %d option/variable pairs agree (%u of them at the device's "
                "default value)\n", d->name, FIELD_CASES, already);
    }
    /* Every field but struct_size, flags and sort_algorithm (test_sort) has a row: the 40
     * variables. */
    ck_assert_int_eq(nfields, 40);
}
END_TEST

/* options NULL and options all zero are clscan_context_create. */
START_TEST(test_null_and_zero_options)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_context *plain;
        ck_assert_int_eq(clscan_context_create(d->cl_ctx, d->dev, &plain), CLSCAN_SUCCESS);
        clscan_context *null_opts = make(d, NULL, "options NULL");
        clscan_context_options zero = {.struct_size = sizeof zero};
        clscan_context *zero_opts = make(d, &zero, "options all zero");
        check_same_description(d, plain, null_opts, "options NULL");
        check_same_description(d, plain, zero_opts, "options all zero");
        check_same_description(d, d->ctx, null_opts, "options NULL (the fixture's context)");
        const char *a = sget_kernel_include_dir(plain), *b = sget_kernel_include_dir(zero_opts);
        ck_assert_msg((!a && !b) || (a && b && strcmp(a, b) == 0),
                      "%s: kernel include directory \"%s\" with zero options, \"%s\" without",
                      d->name, b ? b : "(null)", a ? a : "(null)");
        clscan_context_release(plain);
        clscan_context_release(null_opts);
        clscan_context_release(zero_opts);

        /* out NULL: refused before anything else. */
        ck_assert_int_eq(clscan_context_create_with_options(d->cl_ctx, d->dev, &zero, NULL),
                         CLSCAN_ERROR_INVALID_ARGUMENT);
    }
}
END_TEST

/* kernel_include_dir is what clscan_kernel_build_options puts after -I. */
START_TEST(test_kernel_include_dir)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        env_set("CLSCAN_KERNEL_INCLUDE_DIR", "/tmp/clscan-test-options-the-variable");
        clscan_context_options o = {.struct_size = sizeof o};
        o.kernel_include_dir = TEST_INCLUDE;
        clscan_context *c = make(d, &o, "kernel_include_dir");
        env_restore();
        char opts[4096];
        size_t len = 0, wg = 0, tile = 0;
        clscan_status s = clscan_kernel_build_options(c, CLSCAN_INT32, CLSCAN_OP_ADD, 0, opts,
                                                      sizeof opts, &len, &wg, &tile);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: clscan_kernel_build_options: %s: %s", d->name,
                      clscan_status_string(s), clscan_context_last_error(c));
        ck_assert_msg(strncmp(opts, "-I " TEST_INCLUDE " ", strlen("-I " TEST_INCLUDE " ")) == 0,
                      "%s: kernel_include_dir gave options \"%s\"", d->name, opts);
        ck_assert_uint_eq(len, strlen(opts));
        clscan_context_release(c);
    }
}
END_TEST

/* A field set wins over its variable; a field left zero takes it. */
START_TEST(test_precedence)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        env_set("CLSCAN_WORK_GROUP_SIZE", "32");
        env_set("CLSCAN_ITEMS_PER_THREAD", "3");
        env_set("CLSCAN_VENDOR", "intel");
        env_set("CLSCAN_SCAN_ALGO", "single-pass");
        env_set("CLSCAN_LOOKBACK_SPINS", "77");
        env_set("CLSCAN_PADDING", "1");
        env_set("CLSCAN_KERNEL_INCLUDE_DIR", "/tmp/clscan-test-options-the-variable");
        clscan_context_options o = {.struct_size = sizeof o};
        o.work_group_size = 64;
        o.vendor = "amd";
        o.algorithm = CLSCAN_ALGORITHM_MULTI_LEVEL;
        o.lookback_spins = CLSCAN_OPTION_ZERO;
        o.padding = CLSCAN_SWITCH_OFF;
        clscan_context *c = make(d, &o, "fields over variables");
        /* The fields set win. */
        ck_assert_uint_eq(get_wg_size(c), 64);
        ck_assert_uint_eq(get_vendor(c), CLSCAN__VENDOR_AMD);
        ck_assert_uint_eq(get_scan_algo(c), CLSCAN__SCAN_MULTI_LEVEL);
        ck_assert_uint_eq(get_lb_spins(c), 0);
        ck_assert_uint_eq(get_padding(c), 0);
        /* The fields left zero take the variables. */
        ck_assert_uint_eq(get_items_per_thread(c), 3);
        ck_assert_str_eq(sget_kernel_include_dir(c), "/tmp/clscan-test-options-the-variable");
        clscan_context_release(c);

        /* A bad variable under a field that is set is never parsed; one under a field
         * left zero is, and named. */
        env_set("CLSCAN_WORK_GROUP_SIZE", "lots");
        clscan_context_options good = {.struct_size = sizeof good};
        good.work_group_size = 16;
        c = make(d, &good, "a field over a bad variable");
        ck_assert_uint_eq(get_wg_size(c), 16);
        clscan_context_release(c);
        clscan_context_options unset = {.struct_size = sizeof unset};
        ck_assert_int_eq(create(d, &unset, &c), CLSCAN_ERROR_INVALID_ENVIRONMENT);
        ck_assert_ptr_nonnull(strstr(clscan_context_last_error(NULL), "CLSCAN_WORK_GROUP_SIZE"));
        env_restore();

        /* A field over a fact variable that would otherwise make it not fit: the device
         * maximum from the option, the group from the variable, then the other way. */
        env_set("CLSCAN_WORK_GROUP_SIZE", "64");
        clscan_context_options small = {.struct_size = sizeof small};
        small.max_work_group_size = 32;
        ck_assert_int_eq(create(d, &small, &c), CLSCAN_ERROR_INVALID_ENVIRONMENT);
        ck_assert_msg(strstr(clscan_context_last_error(NULL), "CLSCAN_WORK_GROUP_SIZE=64"),
                      "%s: message \"%s\"", d->name, clscan_context_last_error(NULL));
        env_restore();
        small.work_group_size = 64;
        ck_assert_int_eq(create(d, &small, &c), CLSCAN_ERROR_INVALID_ENVIRONMENT);
        ck_assert_msg(strstr(clscan_context_last_error(NULL), "CLSCAN_WORK_GROUP_SIZE=64"),
                      "%s: message \"%s\"", d->name, clscan_context_last_error(NULL));
    }
}
END_TEST

/* CLSCAN_OPTIONS_IGNORE_ENVIRONMENT: no variable read, bad ones included; the disk cache
 * off without cache_dir (HOME and XDG_CACHE_HOME are not read either). */
START_TEST(test_ignore_environment)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        /* The profile with no variable set at all, for comparison. */
        env_set("CLSCAN_CACHE_DIR", NULL);
        env_set("CLSCAN_KERNEL_INCLUDE_DIR", NULL);
        env_set("CLSCAN_DISK_CACHE", "0");
        clscan_context *clean = make(d, NULL, "no variables");
        env_restore();

        env_set("CLSCAN_ITEMS_PER_THREAD", "3");
        env_set("CLSCAN_WORK_GROUP_SIZE", "not a number");
        env_set("CLSCAN_VENDOR", "martian");
        env_set("CLSCAN_FP64", "7");
        env_set("CLSCAN_DISK_CACHE", "1");
        env_set("CLSCAN_CACHE_DIR", TEST_CACHE);
        env_set("CLSCAN_KERNEL_INCLUDE_DIR", "/tmp/clscan-test-options-the-variable");
        env_set("XDG_CACHE_HOME", "/tmp/clscan-test-options-xdg");
        env_set("HOME", "/tmp/clscan-test-options-home");
        clscan_context *c;
        ck_assert_int_eq(create(d, NULL, &c), CLSCAN_ERROR_INVALID_ENVIRONMENT);

        clscan_context_options o = {.struct_size = sizeof o,
                                    .flags = CLSCAN_OPTIONS_IGNORE_ENVIRONMENT};
        c = make(d, &o, "CLSCAN_OPTIONS_IGNORE_ENVIRONMENT over bad variables");
        char a[8192], b[8192];
        clscan__profile_describe(&clean->target.profile, a, sizeof a);
        clscan__profile_describe(&c->target.profile, b, sizeof b);
        ck_assert_msg(strcmp(a, b) == 0, "%s: the profile read the environment:\n%s\n---\n%s",
                      d->name, a, b);
        ck_assert_uint_eq(get_items_per_thread(c), get_items_per_thread(clean));
        ck_assert_uint_eq(get_disk_cache(c), 0);
        ck_assert_ptr_null(sget_cache_dir(c));
        ck_assert_ptr_null(sget_kernel_include_dir(c));
        clscan_context_release(c);

        /* cache_dir (with disk_cache on) is the cache's place, whatever HOME says. */
        o.disk_cache = CLSCAN_SWITCH_ON;
        o.cache_dir = "/tmp/clscan-test-options-ignored-env-cache";
        o.items_per_thread = 2;
        c = make(d, &o, "ignore the environment, with cache_dir");
        ck_assert_uint_eq(get_disk_cache(c), 1);
        ck_assert_str_eq(sget_cache_dir(c), "/tmp/clscan-test-options-ignored-env-cache");
        ck_assert_uint_eq(get_items_per_thread(c), 2);
        clscan_context_release(c);

        /* cache_dir alone: on, except on PoCL, where the disk cache is off unless
         * asked for (kernels/diskcache.c), with or without the environment. */
        o.disk_cache = CLSCAN_SWITCH_DEFAULT;
        c = make(d, &o, "ignore the environment, cache_dir alone");
        int pocl = strstr(c->target.profile.platform_name, "Portable Computing Language") != NULL;
        ck_assert_uint_eq(get_disk_cache(c), !pocl);
        if (!pocl)
            ck_assert_str_eq(sget_cache_dir(c), "/tmp/clscan-test-options-ignored-env-cache");
        clscan_context_release(c);

        /* disk_cache on without any directory: nowhere to go, so off. */
        o.disk_cache = CLSCAN_SWITCH_ON;
        o.cache_dir = NULL;
        c = make(d, &o, "ignore the environment, disk_cache on, no directory");
        ck_assert_uint_eq(get_disk_cache(c), 0);
        ck_assert_ptr_null(sget_cache_dir(c));
        clscan_context_release(c);
        env_restore();
        clscan_context_release(clean);
    }
}
END_TEST

/* struct_size and flags. */
START_TEST(test_abi)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_context *c, *def = make(d, NULL, "the default context");
        const size_t bad_sizes[] = {0, sizeof(clscan_context_options) + 1,
                                    sizeof(clscan_context_options) + 8,
                                    2 * sizeof(clscan_context_options), (size_t)-1};
        for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
            clscan_context_options o = {.struct_size = bad_sizes[i]};
            ck_assert_int_eq(create(d, &o, &c), CLSCAN_ERROR_INVALID_ARGUMENT);
            const char *m = clscan_context_last_error(NULL);
            ck_assert_msg(strstr(m, "struct_size"), "%s: struct_size %zu: message \"%s\"",
                          d->name, bad_sizes[i], m);
        }

        /* A struct that ends before work_group_size (an older header's): the fields in it
         * apply, those past it are never read (an invalid 3 there is no error) and their
         * variables apply instead. */
        const size_t ends[] = {offsetof(clscan_context_options, work_group_size),
                               offsetof(clscan_context_options, work_group_size) + 1,
                               offsetof(clscan_context_options, work_group_size) +
                                   sizeof(cl_ulong) - 1};
        for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
            clscan_context_options o = {.struct_size = ends[i]};
            o.bank_width = 8;       /* inside */
            o.work_group_size = 3;  /* past the end: ignored */
            o.items_per_thread = 5000;
            o.kernel_include_dir = "/tmp/clscan-test-options-not-read";
            c = make(d, &o, "a short struct_size");
            ck_assert_uint_eq(get_bank_width(c), 8);
            ck_assert_uint_eq(get_wg_size(c), get_wg_size(def));
            ck_assert_uint_eq(get_items_per_thread(c), get_items_per_thread(def));
            const char *a = sget_kernel_include_dir(c), *b = sget_kernel_include_dir(def);
            ck_assert_msg((!a && !b) || (a && b && strcmp(a, b) == 0),
                          "%s: kernel_include_dir past struct_size read: \"%s\"", d->name,
                          a ? a : "(null)");
            clscan_context_release(c);

            env_set("CLSCAN_WORK_GROUP_SIZE", "32");
            c = make(d, &o, "a short struct_size over CLSCAN_WORK_GROUP_SIZE");
            env_restore();
            ck_assert_uint_eq(get_wg_size(c), 32);
            clscan_context_release(c);
        }
        /* One byte more and work_group_size is read. */
        clscan_context_options whole = {
            .struct_size = offsetof(clscan_context_options, work_group_size) + sizeof(cl_ulong)};
        whole.work_group_size = 64;
        c = make(d, &whole, "struct_size through work_group_size");
        ck_assert_uint_eq(get_wg_size(c), 64);
        clscan_context_release(c);

        /* Unknown flags. */
        const unsigned bad_flags[] = {2, 4, 0x80000000u, CLSCAN_OPTIONS_IGNORE_ENVIRONMENT | 8};
        for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++) {
            clscan_context_options o = {.struct_size = sizeof o, .flags = bad_flags[i]};
            ck_assert_int_eq(create(d, &o, &c), CLSCAN_ERROR_INVALID_ARGUMENT);
            const char *m = clscan_context_last_error(NULL);
            ck_assert_msg(strstr(m, "flags"), "%s: flags 0x%x: message \"%s\"", d->name,
                          bad_flags[i], m);
        }
        clscan_context_release(def);
    }
}
END_TEST

/* A bad value: the field, set, and its variable, set to the text the field stands for,
 * give the same error (when text is NULL the value has no text, and only the option's
 * error is checked). */
typedef struct bad_case {
    const char *var;
    size_t offset, size;
    cl_ulong num;
    const char *str;
    int is_string;
    const char *text;
} bad_case;
#define BAD(var, field, value, text) {var, FIELD(field), (cl_ulong)(value), NULL, 0, text}
#define BAD_STR(var, field, value) {var, FIELD(field), 0, value, 1, value}

static const bad_case bad_cases[] = {
    BAD("CLSCAN_WORK_GROUP_SIZE", work_group_size, 3, "3"),
    BAD("CLSCAN_WORK_GROUP_SIZE", work_group_size, CLSCAN_OPTION_ZERO, "0"),
    BAD("CLSCAN_WORK_GROUP_SIZE", work_group_size, 1 << 20, "1048576"),
    BAD("CLSCAN_WORK_GROUP_SIZE", work_group_size, 1ull << 63, "9223372036854775808"),
    BAD("CLSCAN_SP_WORK_GROUP_SIZE", sp_work_group_size, 48, "48"),
    BAD("CLSCAN_ITEMS_PER_THREAD", items_per_thread, 5000, "5000"),
    BAD("CLSCAN_SP_ITEMS_PER_THREAD", sp_items_per_thread, CLSCAN_OPTION_ZERO, "0"),
    BAD("CLSCAN_MAX_GROUPS", max_groups, CLSCAN_OPTION_ZERO, "0"),
    BAD("CLSCAN_GROUPS_PER_CU", groups_per_cu, 2000, "2000"),
    BAD("CLSCAN_SINGLE_GROUP_TILES", single_group_tiles, CLSCAN_OPTION_ZERO, "0"),
    BAD("CLSCAN_LOCAL_MEM_SIZE", local_mem_size, 100, "100"),
    BAD("CLSCAN_MAX_WORK_GROUP_SIZE", max_work_group_size, CLSCAN_OPTION_ZERO, "0"),
    BAD("CLSCAN_MAX_MEM_ALLOC_SIZE", max_mem_alloc_size, 100, "100"),
    BAD("CLSCAN_COMPUTE_UNITS", compute_units, CLSCAN_OPTION_ZERO, "0"),
    BAD("CLSCAN_WG_MULTIPLE", wg_multiple, 4096, "4096"),
    BAD("CLSCAN_SUBGROUP_WIDTH", subgroup_width, 12, "12"),
    BAD("CLSCAN_SUBGROUP_WIDTH", subgroup_width, 256, "256"),
    BAD("CLSCAN_LOCAL_MEM_BANKS", local_mem_banks, 2000, "2000"),
    BAD("CLSCAN_BANK_WIDTH", bank_width, CLSCAN_OPTION_ZERO, "0"),
    BAD("CLSCAN_LOOKBACK_SPINS", lookback_spins, (1ull << 30) + 1, "1073741825"),
    BAD("CLSCAN_MAX_TEXT_BYTES", max_text_bytes, (1ull << 30) + 1, "1073741825"),
    BAD("CLSCAN_MAX_PROGRAMS", max_programs, (1ull << 20) + 1, "1048577"),
    BAD("CLSCAN_MAX_PROGRAM_BYTES", max_program_bytes, 4095, "4095"),
    BAD("CLSCAN_SORT_MAX_REGISTERS", sort_max_registers, 256, "256"),
    BAD("CLSCAN_GLOBAL_MEM_CACHE_SIZE", global_mem_cache_size, (1ull << 40) + 1, "1099511627777"),
    BAD("CLSCAN_FP64", fp64, 7, "7"),
    BAD("CLSCAN_INT64_ATOMICS", int64_atomics, 3, "3"),
    BAD("CLSCAN_PADDING", padding, 3, "3"),
    BAD("CLSCAN_BANK_PROBE", bank_probe, 3, "3"),
    BAD("CLSCAN_DISK_CACHE", disk_cache, 7, "7"),
    BAD("CLSCAN_FP64", fp64, -1, NULL),
    BAD("CLSCAN_SUBGROUP_IMPL", subgroups, 9, NULL),
    BAD("CLSCAN_SUBGROUP_IMPL", subgroups, -1, NULL),
    BAD("CLSCAN_WG_SCAN", wg_scan, 3, NULL),
    BAD("CLSCAN_SCAN_ALGO", algorithm, 3, NULL),
    BAD("CLSCAN_LOOKBACK_ATOMICS", lookback_atomics, 4, NULL),
    BAD("CLSCAN_LOOKBACK_TEST", lookback_test, 3, NULL),
    BAD("CLSCAN_DEVICE_TYPE", device_type, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU, NULL),
    BAD("CLSCAN_DEVICE_TYPE", device_type, CL_DEVICE_TYPE_ALL, NULL),
    BAD("CLSCAN_LOCAL_MEM_TYPE", local_mem_type, 7, NULL),
    BAD_STR("CLSCAN_VENDOR", vendor, "martian"),
    BAD_STR("CLSCAN_VENDOR", vendor, ""),
    BAD_STR("CLSCAN_OPENCL_VERSION", opencl_version, "three"),
    BAD_STR("CLSCAN_OPENCL_C_VERSION", opencl_c_version, "x.y"),
    BAD_STR("CLSCAN_CACHE_DIR", cache_dir, ""),
};
enum { BAD_CASES = sizeof bad_cases / sizeof bad_cases[0] };

START_TEST(test_bad_values)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        for (int i = 0; i < BAD_CASES; i++) {
            const bad_case *bc = &bad_cases[i];
            clscan_context_options o = {.struct_size = sizeof o};
            set_field(&o, bc->offset, bc->size, bc->num, bc->str, bc->is_string);
            clscan_context *c;
            clscan_status s = create(d, &o, &c);
            if (s == CLSCAN_SUCCESS) clscan_context_release(c);
            char m[1024];
            snprintf(m, sizeof m, "%s", clscan_context_last_error(NULL));
            ck_assert_msg(s == CLSCAN_ERROR_INVALID_ENVIRONMENT,
                          "%s: bad %s (value %llu, \"%s\") gave %s", d->name, bc->var,
                          (unsigned long long)bc->num, bc->str ? bc->str : "",
                          clscan_status_string(s));
            ck_assert_msg(strstr(m, bc->var) != NULL, "%s: bad %s: message \"%s\"", d->name,
                          bc->var, m);
            if (!bc->text) continue;
            env_set(bc->var, bc->text);
            s = create(d, NULL, &c);
            env_restore();
            if (s == CLSCAN_SUCCESS) clscan_context_release(c);
            ck_assert_msg(s == CLSCAN_ERROR_INVALID_ENVIRONMENT, "%s: %s=\"%s\" gave %s",
                          d->name, bc->var, bc->text, clscan_status_string(s));
            ck_assert_msg(strcmp(m, clscan_context_last_error(NULL)) == 0,
                          "%s: %s: the option's message \"%s\", the variable's \"%s\"",
                          d->name, bc->var, m, clscan_context_last_error(NULL));
        }

        /* A sub-group implementation the device cannot run: refused with the reason. */
        if (!d->ctx->target.profile.nvidia_platform) {
            clscan_context_options o = {.struct_size = sizeof o};
            o.subgroups = CLSCAN_SUBGROUPS_NVIDIA;
            clscan_context *c;
            ck_assert_int_eq(create(d, &o, &c), CLSCAN_ERROR_INVALID_ENVIRONMENT);
            ck_assert_ptr_nonnull(strstr(clscan_context_last_error(NULL),
                                         "CLSCAN_SUBGROUP_IMPL=nvidia"));
        }
        fprintf(stderr, "%s: %d bad values refused\n", d->name, BAD_CASES);
    }
}
END_TEST

/* The strings are read during the call only. */
START_TEST(test_strings_copied)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        char *vendor = strdup("amd"), *ext = strdup("cl_khr_fp64 cl_khr_int64_base_atomics");
        char *cache = strdup(TEST_CACHE), *inc = strdup(TEST_INCLUDE);
        char *ver = strdup("2.0");
        ck_assert(vendor && ext && cache && inc && ver);
        clscan_context_options o = {.struct_size = sizeof o};
        o.vendor = vendor;
        o.extensions = ext;
        o.cache_dir = cache;
        o.kernel_include_dir = inc;
        o.opencl_version = ver;
        o.disk_cache = CLSCAN_SWITCH_ON;
        clscan_context *c = make(d, &o, "strings");
        memset(vendor, 'x', 3);
        memset(ext, 'x', strlen(ext));
        memset(cache, 'x', strlen(cache));
        memset(inc, 'x', strlen(inc));
        free(vendor);
        free(ext);
        free(cache);
        free(inc);
        free(ver);
        ck_assert_uint_eq(get_vendor(c), CLSCAN__VENDOR_AMD);
        ck_assert_str_eq(sget_extensions(c), "cl_khr_fp64 cl_khr_int64_base_atomics");
        ck_assert_str_eq(sget_cache_dir(c), TEST_CACHE);
        ck_assert_str_eq(sget_kernel_include_dir(c), TEST_INCLUDE);
        ck_assert_uint_eq(get_cl_version(c), 20);
        char *text = describe(c);
        ck_assert_ptr_nonnull(strstr(text, TEST_CACHE));
        free(text);
        clscan_context_release(c);
    }
}
END_TEST

/* ------------------------------------------------------------------ scans ---- */

static uint64_t rng_state;
static uint32_t next_u32(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* Exclusive and inclusive int32 sums of each size on c, against the host. */
static void check_scans(clscan_test_dev *d, clscan_context *c, const char *what)
{
    static const size_t sizes[] = {0, 1, 31, 32, 33, 1000};
    enum { MAX_N = 1000 };
    cl_int *src = malloc(MAX_N * sizeof *src), *out = malloc(MAX_N * sizeof *out);
    ck_assert(src && out);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        for (size_t i = 0; i < n; i++) src[i] = (cl_int)(next_u32() % 2001u) - 1000;
        cl_mem s = clscan_test_buffer(d, (n ? n : 1) * sizeof *src, src);
        cl_mem o = clscan_test_buffer(d, (n ? n : 1) * sizeof *out, NULL);
        for (int inclusive = 0; inclusive < 2; inclusive++) {
            cl_event ev = NULL;
            clscan_status st =
                inclusive ? clscan_inclusive_scan(c, d->queue, s, 0, o, 0, n, CLSCAN_INT32,
                                                  CLSCAN_OP_ADD, 0, NULL, &ev)
                          : clscan_exclusive_scan(c, d->queue, s, 0, o, 0, n, CLSCAN_INT32,
                                                  CLSCAN_OP_ADD, 0, NULL, &ev);
            ck_assert_msg(st == CLSCAN_SUCCESS, "%s: %s: %s scan of %zu: %s: %s", d->name, what,
                          inclusive ? "inclusive" : "exclusive", n, clscan_status_string(st),
                          clscan_context_last_error(c));
            clscan_test_wait_release(ev, what);
            if (!n) continue;
            clscan_test_read(d, o, n * sizeof *out, out);
            uint32_t acc = 0;
            for (size_t i = 0; i < n; i++) {
                uint32_t want = inclusive ? acc + (uint32_t)src[i] : acc;
                acc += (uint32_t)src[i];
                ck_assert_msg((uint32_t)out[i] == want,
                              "%s: %s: %s scan of %zu: [%zu] is %d, wanted %d", d->name, what,
                              inclusive ? "inclusive" : "exclusive", n, i, out[i], (cl_int)want);
            }
        }
        clReleaseMemObject(s);
        clReleaseMemObject(o);
    }
    free(src);
    free(out);
}

/* Texts at the cap run; one byte more is refused with a message naming the cap, before
 * any build: a predicate, a description's transform and output, a compaction's source;
 * and the default cap (64 KiB) refuses a text of 64 KiB + 1. */
START_TEST(test_text_cap)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_context_options o = {.struct_size = sizeof o};
        o.max_text_bytes = 100;
        clscan_context *c = make(d, &o, "texts of up to 100 bytes");
        cl_int err;
        const cl_int init[8] = {5, -1, 7, 0, 3, -8, 2, 9};
        cl_mem src = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    sizeof init, (void *)init, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_mem dst = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_mem count = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, 8, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        char text[70000];
        /* "x > 0" padded with spaces to 100 bytes: kept, and the count is right. */
        memset(text, ' ', 100);
        memcpy(text, "x > 0", 5);
        text[100] = '\0';
        clscan_status s = clscan_select_if(c, d->queue, src, 0, dst, 0, count, 8, CLSCAN_INT32,
                                           text, 0, NULL, NULL);
        ck_assert_msg(s == CLSCAN_SUCCESS, "%s: a 100-byte predicate: %s: %s", d->name,
                      clscan_status_string(s), clscan_context_last_error(c));
        cl_ulong kept = 0;
        ck_assert_int_eq(clEnqueueReadBuffer(d->queue, count, CL_TRUE, 0, 8, &kept, 0, NULL,
                                             NULL), CL_SUCCESS);
        ck_assert_uint_eq(kept, 5);
        /* One byte more. */
        text[100] = ' ';
        text[101] = '\0';
        s = clscan_select_if(c, d->queue, src, 0, dst, 0, count, 8, CLSCAN_INT32, text, 0, NULL,
                             NULL);
        ck_assert_int_eq(s, CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(clscan_context_last_error(c), "predicate is longer than 100 bytes"),
                      "%s: %s", d->name, clscan_context_last_error(c));
        clscan_scan_desc g = {0};
        g.type = CLSCAN_INT32;
        g.op = CLSCAN_OP_ADD;
        g.transform = text;
        s = clscan_scan(c, d->queue, &g, 1, src, 0, NULL, 0, dst, 0, 8, 0, NULL, NULL);
        ck_assert_int_eq(s, CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(clscan_context_last_error(c), "desc->transform is longer than 100"),
                      "%s: %s", d->name, clscan_context_last_error(c));
        g.transform = NULL;
        g.output = text;
        const cl_mem outs[1] = {count};
        const size_t offs[1] = {0};
        g.output_types[0] = "ulong";
        s = clscan_scan_output(c, d->queue, &g, 1, src, 0, NULL, 0, dst, 0, 8, outs, offs, 1,
                               NULL, 0, NULL, NULL);
        ck_assert_int_eq(s, CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(clscan_context_last_error(c), "desc->output is longer than 100"),
                      "%s: %s", d->name, clscan_context_last_error(c));
        const clscan_compact_desc cd = {"int", 4, text, "x > 0", 0, 0};
        s = clscan_compact(c, d->queue, &cd, src, 0, dst, 0, count, 8, 0, NULL, NULL);
        ck_assert_int_eq(s, CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(clscan_context_last_error(c), "desc->source is longer than 100"),
                      "%s: %s", d->name, clscan_context_last_error(c));
        /* A text that would read a file: refused (programs are cached by their text). */
        s = clscan_select_if(c, d->queue, src, 0, dst, 0, count, 8, CLSCAN_INT32,
                             "x > 0\n#include \"/dev/null\"\n", 0, NULL, NULL);
        ck_assert_int_eq(s, CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(clscan_context_last_error(c), "may not read files"), "%s: %s",
                      d->name, clscan_context_last_error(c));
        g.output = NULL;
        g.output_types[0] = NULL;
        g.source = "#in\\\nclude \"x.h\"\n";
        g.transform = "x";
        s = clscan_scan(c, d->queue, &g, 1, src, 0, NULL, 0, dst, 0, 8, 0, NULL, NULL);
        ck_assert_int_eq(s, CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(clscan_context_last_error(c), "desc->source has a preprocessor"),
                      "%s: %s", d->name, clscan_context_last_error(c));
        clscan_context_release(c);
        /* The default cap. */
        c = make(d, NULL, "the default context");
        memset(text, ' ', 65537);
        memcpy(text, "x > 0", 5);
        text[65537] = '\0';
        s = clscan_select_if(c, d->queue, src, 0, dst, 0, count, 8, CLSCAN_INT32, text, 0, NULL,
                             NULL);
        ck_assert_int_eq(s, CLSCAN_ERROR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(clscan_context_last_error(c), "longer than 65536 bytes"), "%s: %s",
                      d->name, clscan_context_last_error(c));
        clscan_context_release(c);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(count);
    }
}
END_TEST

/* The program cache keeps at most max_programs programs and max_program_bytes of their
 * texts, releasing the least recently used: 12 predicates through a cache of 4 leave 4,
 * and every call (the evicted first predicate again, too) keeps the right elements. */
START_TEST(test_program_cache)
{
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_context_options o = {.struct_size = sizeof o};
        o.max_programs = 4;
        clscan_context *c = make(d, &o, "a cache of 4 programs");
        cl_int err, init[64];
        for (int k = 0; k < 64; ++k) init[k] = (k * 37) % 64 - 20;
        cl_mem src = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    sizeof init, init, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_mem dst = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, sizeof init, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_mem count = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, 8, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        const unsigned long evicted0 = clscan__cache_stat(CLSCAN__CACHE_EVICTED);
        for (int round = 0; round < 13; ++round) {
            const int k = round % 12; /* (the last round: predicate 0 again, evicted) */
            char pred[32];
            snprintf(pred, sizeof pred, "x > %d", k);
            clscan_status s = clscan_select_if(c, d->queue, src, 0, dst, 0, count, 64,
                                               CLSCAN_INT32, pred, 0, NULL, NULL);
            ck_assert_msg(s == CLSCAN_SUCCESS, "%s: %s: %s", d->name, pred,
                          clscan_context_last_error(c));
            cl_ulong kept = 0, want = 0;
            ck_assert_int_eq(clEnqueueReadBuffer(d->queue, count, CL_TRUE, 0, 8, &kept, 0, NULL,
                                                 NULL), CL_SUCCESS);
            for (int e = 0; e < 64; ++e) want += init[e] > k;
            ck_assert_msg(kept == want, "%s: %s kept %llu, expected %llu", d->name, pred,
                          (unsigned long long)kept, (unsigned long long)want);
            ck_assert_msg(c->program_count <= 4, "%s: %zu programs kept", d->name,
                          c->program_count);
        }
        ck_assert_uint_ge(clscan__cache_stat(CLSCAN__CACHE_EVICTED) - evicted0, 9);
        clscan_context_release(c);
        /* The bytes cap: at its least (4096) a select program's key alone nearly fills it. */
        clscan_context_options b = {.struct_size = sizeof b};
        b.max_program_bytes = 4096;
        c = make(d, &b, "4096 bytes of program texts");
        for (int k = 0; k < 4; ++k) {
            char pred[32];
            snprintf(pred, sizeof pred, "x < %d", k);
            ck_assert_int_eq(clscan_select_if(c, d->queue, src, 0, dst, 0, count, 64,
                                              CLSCAN_INT32, pred, 0, NULL, NULL),
                             CLSCAN_SUCCESS);
            ck_assert_msg(c->program_bytes <= 4096, "%s: %zu bytes kept", d->name,
                          c->program_bytes);
        }
        ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
        clscan_context_release(c);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clReleaseMemObject(count);
    }
}
END_TEST

START_TEST(test_scan_with_options)
{
    rng_state = clscan_test_seed(20261201);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        clscan_context_options o = {.struct_size = sizeof o};
        o.algorithm = CLSCAN_ALGORITHM_MULTI_LEVEL;
        o.work_group_size = 16;
        o.items_per_thread = 2;
        o.max_groups = 2;
        clscan_context *c = make(d, &o, "multi-level 16 x 2");
        ck_assert_uint_eq(get_scan_algo(c), CLSCAN__SCAN_MULTI_LEVEL);
        ck_assert_uint_eq(get_wg_size(c), 16);
        ck_assert_uint_eq(get_items_per_thread(c), 2);
        check_scans(d, c, "multi-level 16 x 2, 2 groups");
        clscan_context_release(c);

        clscan_context_options sp = {.struct_size = sizeof sp};
        sp.algorithm = CLSCAN_ALGORITHM_SINGLE_PASS;
        sp.sp_work_group_size = 16;
        sp.sp_items_per_thread = 2;
        c = make(d, &sp, "single-pass 16 x 2");
        ck_assert_uint_eq(get_scan_algo(c), CLSCAN__SCAN_SINGLE_PASS);
        ck_assert_uint_eq(get_sp_wg_size(c), 16);
        ck_assert_uint_eq(get_sp_items(c), 2);
        check_scans(d, c, "single-pass 16 x 2");
        clscan_context_release(c);
        fprintf(stderr, "%s: scans with options agree with the host\n", d->name);
    }
}
END_TEST

/* Variables that would change what these tests compare against: the suite clears them
 * (the disk cache's and the include directory's stay, as meson sets them). */
static const char *const tuning_vars[] = {
    "CLSCAN_VENDOR", "CLSCAN_DEVICE_TYPE", "CLSCAN_OPENCL_VERSION", "CLSCAN_OPENCL_C_VERSION",
    "CLSCAN_EXTENSIONS", "CLSCAN_LOCAL_MEM_SIZE", "CLSCAN_LOCAL_MEM_TYPE",
    "CLSCAN_MAX_WORK_GROUP_SIZE", "CLSCAN_MAX_MEM_ALLOC_SIZE", "CLSCAN_COMPUTE_UNITS",
    "CLSCAN_WG_MULTIPLE", "CLSCAN_SUBGROUP_WIDTH", "CLSCAN_FP64", "CLSCAN_INT64_ATOMICS",
    "CLSCAN_MAX_LOOP_ITERATIONS", "CLSCAN_BANK_PROBE", "CLSCAN_LOCAL_MEM_BANKS",
    "CLSCAN_BANK_WIDTH", "CLSCAN_WORK_GROUP_SIZE", "CLSCAN_ITEMS_PER_THREAD",
    "CLSCAN_GROUPS_PER_CU", "CLSCAN_MAX_GROUPS", "CLSCAN_SINGLE_GROUP_TILES",
    "CLSCAN_SP_WORK_GROUP_SIZE", "CLSCAN_SP_ITEMS_PER_THREAD", "CLSCAN_PADDING",
    "CLSCAN_SUBGROUP_IMPL", "CLSCAN_WG_SCAN", "CLSCAN_SCAN_ALGO", "CLSCAN_LOOKBACK_ATOMICS",
    "CLSCAN_LOOKBACK_SPINS", "CLSCAN_LOOKBACK_TEST", "CLSCAN_LOOKBACK_WALK",
    "CLSCAN_MAX_TEXT_BYTES",
    "CLSCAN_MAX_PROGRAMS", "CLSCAN_MAX_PROGRAM_BYTES", "CLSCAN_SORT_MAX_REGISTERS",
    "CLSCAN_GLOBAL_MEM_CACHE_SIZE",
};
/* The variables the library reads besides those. */
static const char *const other_vars[] = {"CLSCAN_SORT_ALGO", "CLSCAN_DISK_CACHE",
                                         "CLSCAN_CACHE_DIR", "CLSCAN_KERNEL_INCLUDE_DIR"};

/* Junk in any CLSCAN_* variable the library reads (issue 20): each variable alone set to
 * each junk text either gives CLSCAN_ERROR_INVALID_ENVIRONMENT with a message naming it,
 * or a context whose scans agree with the host (the text taken as a value, or ignored
 * for the documented default); never a crash, never another status. */
START_TEST(test_junk_environment)
{
    static char long_text[5001];
    memset(long_text, '7', sizeof long_text - 1);
    const char *const junk[] = {"",         "junk",    "-1",     "99999999999999999999999",
                                "12abc",    " 3",      "0x7fffffff", "1e3",
                                "\xff\xfe\x01", "%s%s%n%n", long_text};
    const size_t ntuning = sizeof tuning_vars / sizeof tuning_vars[0];
    const size_t nvars = ntuning + sizeof other_vars / sizeof other_vars[0];
    const size_t njunk = sizeof junk / sizeof junk[0];
    /* (In a directory of its own: a relative CLSCAN_CACHE_DIR is taken from the working
     * directory, and the disk cache writes there where it is on.) */
    char here[4096], dir[] = "/tmp/clscan-test-junk-XXXXXX";
    ck_assert(getcwd(here, sizeof here) != NULL);
    ck_assert(mkdtemp(dir) != NULL);
    ck_assert_int_eq(chdir(dir), 0);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned refused = 0, taken = 0;
        for (size_t v = 0; v < nvars; v++) {
            const char *var = v < ntuning ? tuning_vars[v] : other_vars[v - ntuning];
            for (size_t j = 0; j < njunk; j++) {
                env_set(var, junk[j]);
                clscan_context *c = NULL;
                const clscan_status s = create(d, NULL, &c);
                char what[160];
                snprintf(what, sizeof what, "%s=\"%.20s%s\"", var, junk[j],
                         strlen(junk[j]) > 20 ? "..." : "");
                if (s == CLSCAN_SUCCESS) {
                    /* (One exclusive and one inclusive scan of each size: the junk taken
                     * as a value must still give a working context.) */
                    check_scans(d, c, what);
                    clscan_context_release(c);
                    taken++;
                } else {
                    ck_assert_msg(s == CLSCAN_ERROR_INVALID_ENVIRONMENT, "%s: %s gave %s: %s",
                                  d->name, what, clscan_status_string(s),
                                  clscan_context_last_error(NULL));
                    ck_assert_msg(strstr(clscan_context_last_error(NULL), var) != NULL,
                                  "%s: %s: the message \"%s\" does not name it", d->name, what,
                                  clscan_context_last_error(NULL));
                    refused++;
                }
                env_restore();
            }
        }
        fprintf(stderr, "%s: %zu junk settings: %u refused, %u taken (scans checked)\n", d->name,
                nvars * njunk, refused, taken);
    }
    ck_assert_int_eq(chdir(here), 0);
    clscan_test_remove_tree(dir);
}
END_TEST


int main(void)
{
    for (size_t i = 0; i < sizeof tuning_vars / sizeof tuning_vars[0]; i++)
        unsetenv(tuning_vars[i]);
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("options");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_null_and_zero_options);
    tcase_add_test(tc, test_every_field);
    tcase_add_test(tc, test_text_cap);
    tcase_add_test(tc, test_program_cache);
    tcase_add_test(tc, test_precedence);
    tcase_add_test(tc, test_ignore_environment);
    tcase_add_test(tc, test_abi);
    tcase_add_test(tc, test_bad_values);
    tcase_add_test(tc, test_junk_environment);
    tcase_add_test(tc, test_strings_copied);
    tcase_add_test(tc, test_kernel_include_dir);
    tcase_add_test(tc, test_scan_with_options);
    suite_add_tcase(s, tc);
    return clscan_test_run(s);
}
