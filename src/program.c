/* program.c - run-time kernel builds: the launch shape for a type on a device, the
 * generated #define block prepended to the embedded cl/ sources, the per-context
 * cache of built programs (backed by the disk cache of diskcache.c), and
 * clscan_context_warm, which fills it. */
#include "clscan_internal.h"

#include "embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cl/ files a program is made of, in order; each guards its own #include of the
 * layer below, so concatenating them needs no include path. A program takes the files
 * marked for its kind (the scan kernels also scan a compaction's counts and a general
 * scan's partials; a compaction's or general scan's look-back comes after its tile
 * layer, which tells the look-back what a fallback reads); the look-back only where the
 * program is single-pass. */
enum { F_SCAN = 1, F_SELECT = 2, F_GENERAL = 4, F_SORT = 8, F_ALL = 15 };
static const struct {
    const char *name;
    unsigned kinds; /* F_* */
    int lookback;
} program_files[] = {
    {"clscan_common.cl", F_ALL, 0},
    {"clscan_subgroup.cl", F_ALL, 0},
    {"clscan_workgroup.cl", F_ALL, 0},
    {"clscan_lookback.cl", F_SCAN, 1},
    {"clscan_scan.cl", F_SCAN | F_SELECT | F_GENERAL, 0},
    {"clscan_select_tile.cl", F_SELECT, 0},
    {"clscan_general_tile.cl", F_GENERAL, 0},
    {"clscan_lookback.cl", F_SELECT | F_GENERAL, 1},
    {"clscan_select.cl", F_SELECT, 0},
    {"clscan_general.cl", F_GENERAL, 0},
    {"clscan_sort.cl", F_SORT, 0},
};

/* The F_* bit of the files cfg's program is made of. */
static unsigned program_file_kind(const clscan_scan_config *cfg)
{
    switch (cfg->kind) {
    case CLSCAN_PROGRAM_GENERAL: return F_GENERAL;
    case CLSCAN_PROGRAM_SORT: return F_SORT;
    default: return cfg->select ? F_SELECT : F_SCAN;
    }
}

/* Bytes of one element of the scan type of cfg's program. */
size_t clscan__config_elem_bytes(const clscan_scan_config *cfg)
{
    return cfg->elem_bytes ? cfg->elem_bytes : clscan_type_size(cfg->type);
}

const char *clscan__embedded_source(const char *file_name, size_t *length)
{
    for (const clscan_embedded_source *s = clscan_embedded_sources; s->name; ++s)
        if (strcmp(s->name, file_name) == 0) {
            if (length) *length = s->length;
            return s->text;
        }
    return NULL;
}

static unsigned log2u(size_t x)
{
    unsigned l = 0;
    while (x > 1) {
        x >>= 1;
        ++l;
    }
    return l;
}

/* Whether the sub-group layer shuffles through local memory (cl/clscan_subgroup.cl:
 * CLSCAN_SG_SHUFFLE_IN_LOCAL). */
static int sg_shuffles_in_local(const clscan_scan_config *cfg, const clscan_profile *p)
{
    return cfg->sg_impl == CLSCAN_SG_LOCAL ||
           (cfg->sg_impl == CLSCAN_SG_KHR && !p->sg_khr_shuffle_relative);
}

int clscan__lookback_ordered(const clscan_scan_config *cfg)
{
    return cfg->kind == CLSCAN_PROGRAM_GENERAL || clscan__type_is_float(cfg->type);
}

size_t clscan__scan_local_bytes(const clscan_scan_config *cfg, const clscan_profile *p)
{
    size_t tile = cfg->wg_size * cfg->items, scratch = cfg->wg_size;
    if (cfg->log_banks) {
        tile += tile >> cfg->log_banks;
        scratch += scratch >> cfg->log_banks;
    }
    if (cfg->wg_algo == CLSCAN_WG_SUBGROUP) {
        /* CLSCAN_WG_SCRATCH of cl/clscan_workgroup.cl. */
        size_t sg = cfg->sg_width < cfg->wg_size ? cfg->sg_width : cfg->wg_size;
        scratch = (sg_shuffles_in_local(cfg, p) ? cfg->wg_size : 0) + 2 * (cfg->wg_size / sg);
    }
    const size_t elem = clscan__config_elem_bytes(cfg);
    size_t bytes = (tile + scratch) * elem;
    if (cfg->select && cfg->algo == CLSCAN_SCAN_SINGLE_PASS && cfg->wg_size == 1)
        bytes += cfg->items * clscan_type_size(cfg->elem_type); /* clscan_sel_single's stage */
    if (cfg->algo == CLSCAN_SCAN_SINGLE_PASS) { /* clscan_lb_local and the ticket */
        const size_t window = cfg->wg_size < 32 ? cfg->wg_size : 32;
        /* the window's values and kinds, and where the order is fixed
         * (CLSCAN_LB_ORDERED: floats, general scans) CLSCAN_LB_NEAR = 8 windows of
         * totals */
        const size_t near = clscan__lookback_ordered(cfg) ? 8 : 0;
        bytes += window * ((1 + near) * elem + 4) + 32 + elem;
    }
    return bytes;
}

cl_ulong clscan__scan_tile_iterations(const clscan_scan_config *cfg)
{
    /* load, reduce, scan and store loops over the items, the two sweeps, the tile loop
     * itself and a margin for loops the compiler adds. */
    return 4ull * cfg->items + 2ull * log2u(cfg->wg_size) + 16;
}

/* Makes the sub-group fields of c fit its work-group size: a native implementation
 * needs whole sub-groups, so a group narrower than one falls back to local memory and
 * Blelloch; emulated sub-groups are capped at the group. */
static void config_subgroups_fit(clscan_scan_config *c)
{
    if (c->sg_impl != CLSCAN_SG_LOCAL && c->sg_width > c->wg_size) {
        c->sg_impl = CLSCAN_SG_LOCAL;
        c->wg_algo = CLSCAN_WG_BLELLOCH;
    }
    if (c->sg_impl == CLSCAN_SG_LOCAL && c->sg_width > c->wg_size) c->sg_width = (cl_uint)c->wg_size;
}

static void config_subgroups(clscan_scan_config *c, const clscan_profile *p)
{
    c->wg_algo = p->wg_algo;
    c->sg_impl = p->sg_impl;
    c->sg_width = p->sg_width ? p->sg_width : 1;
    config_subgroups_fit(c);
}

/* Shrinks c's tile (items first, then the work-group) until it fits the device's local
 * memory and loop budget. */
static clscan_status config_fit(const clscan_context *ctx, const clscan_profile *p,
                                clscan_scan_config *c)
{
    /* Leave room for what the implementation itself keeps in local memory. */
    cl_ulong budget = p->local_mem_size > 1024 ? p->local_mem_size - 256 : p->local_mem_size;
    /* Where loops are limited, a tile must leave room for many tiles per work-item. */
    while (p->max_loop_iterations && c->items > 1 &&
           clscan__scan_tile_iterations(c) * 8 > p->max_loop_iterations)
        c->items /= 2;
    while (clscan__scan_local_bytes(c, p) > budget) {
        if (c->items > 1) c->items /= 2;
        else if (c->wg_size > 1) {
            c->wg_size /= 2;
            config_subgroups_fit(c);
        } else
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                                "no scan tile fits in %llu bytes of local memory",
                                (unsigned long long)p->local_mem_size);
    }
    return CLSCAN_SUCCESS;
}

clscan_status clscan__scan_config_choose(const clscan_context *ctx, const clscan_profile *p,
                                         clscan_scan_algo algo, clscan_type type,
                                         clscan_op op, clscan_scan_config *out)
{
    clscan_scan_config c;
    memset(&c, 0, sizeof c);
    c.type = type;
    c.op = op;
    c.algo = algo;
    c.wg_size = c.algo == CLSCAN_SCAN_SINGLE_PASS ? p->sp_wg_size : p->wg_size;
    c.items = c.algo == CLSCAN_SCAN_SINGLE_PASS ? p->sp_items : p->items_per_thread;
    if (c.algo == CLSCAN_SCAN_SINGLE_PASS) {
        c.lb_atomics = p->lb_atomics;
        c.lb_word_bits = p->lb_word_bits;
        c.lb_test = p->lb_test;
    }
    if (clscan_type_size(type) == 8 && c.items > 1) c.items /= 2;
    c.log_banks = p->padding && p->local_banks > 1 ? log2u(p->local_banks) : 0;
    config_subgroups(&c, p);
    *out = c;
    return config_fit(ctx, p, out);
}

clscan_status clscan__select_config_choose(const clscan_context *ctx, const clscan_profile *p,
                                           clscan_scan_algo algo, clscan_select_mode mode,
                                           clscan_type elem_type, clscan_type count_type,
                                           const char *predicate, clscan_scan_config *out)
{
    clscan_status s =
        clscan__scan_config_choose(ctx, p, algo, count_type, CLSCAN_OP_ADD, out);
    if (s != CLSCAN_SUCCESS) return s;
    out->select = mode;
    out->elem_type = elem_type;
    out->predicate =
        mode == CLSCAN_SELECT_IF || mode == CLSCAN_SELECT_PARTITION ? predicate : NULL;
    /* Each work-item holds its elements in registers between the two phases: 8-byte
     * elements halve the items, as 8-byte counts already did. */
    if (clscan_type_size(elem_type) == 8 && clscan_type_size(count_type) == 4 && out->items > 1)
        out->items /= 2;
    return config_fit(ctx, p, out); /* with what compaction adds to local memory */
}

clscan_status clscan__general_config_choose(const clscan_context *ctx, const clscan_profile *p,
                                            clscan_scan_algo algo, clscan_type type,
                                            size_t elem_bytes, const char *prelude,
                                            clscan_scan_config *out)
{
    clscan_status s = clscan__scan_config_choose(ctx, p, algo, CLSCAN_UINT32,
                                                 CLSCAN_OP_ADD, out);
    if (s != CLSCAN_SUCCESS) return s;
    out->kind = CLSCAN_PROGRAM_GENERAL;
    out->type = type;
    out->op = CLSCAN_OP_ID_CUSTOM;
    out->elem_bytes = elem_bytes;
    out->prelude = prelude;
    /* About as many bytes per work-item as a tile of 4-byte elements holds. */
    const size_t budget = 4 * (size_t)out->items;
    while (out->items > 1 && out->items * elem_bytes > budget) out->items /= 2;
    return config_fit(ctx, p, out);
}

/* The OpenCL C version to compile for: 3.0 where the sub-group built-ins come from the
 * __opencl_c_subgroups feature alone (1.2 has them only through cl_khr_subgroups), and
 * 2.0 or 3.0 for the look-back's acquire/release atomics. */
static const char *cl_std_option(const clscan_scan_config *cfg, const clscan_profile *p)
{
    if (cfg->algo == CLSCAN_SCAN_SINGLE_PASS && cfg->lb_atomics == CLSCAN_LB_C11)
        return p->cl_major >= 3 ? "-cl-std=CL3.0" : "-cl-std=CL2.0";
    return cfg->sg_impl == CLSCAN_SG_KHR && !clscan__has_token(p->extensions, "cl_khr_subgroups")
               ? "-cl-std=CL3.0"
               : "-cl-std=CL1.2";
}

size_t clscan__kernel_defines(const clscan_scan_config *cfg, const clscan_profile *p,
                              int as_options, char *buf, size_t size)
{
    const int single = cfg->algo == CLSCAN_SCAN_SINGLE_PASS, sel = cfg->select != 0;
    const int general = cfg->kind == CLSCAN_PROGRAM_GENERAL;
    const struct {
        const char *name;
        unsigned long value;
        int on; /* written only where the program uses it */
    } defs[] = {
        {"CLSCAN_TYPE_ID", (unsigned long)cfg->type, 1},
        {"CLSCAN_OP_ID", (unsigned long)cfg->op, 1},
        {"CLSCAN_WG_SIZE", (unsigned long)cfg->wg_size, 1},
        {"CLSCAN_ITEMS", (unsigned long)cfg->items, 1},
        {"CLSCAN_LOG_BANKS", (unsigned long)cfg->log_banks, 1},
        {"CLSCAN_WG_ALGO", (unsigned long)cfg->wg_algo, 1},
        {"CLSCAN_SG_IMPL", (unsigned long)cfg->sg_impl, 1},
        {"CLSCAN_SG_WIDTH", (unsigned long)cfg->sg_width, 1},
        {"CLSCAN_SG_SHUFFLE_RELATIVE",
         (unsigned long)(cfg->sg_impl == CLSCAN_SG_KHR && p->sg_khr_shuffle_relative), 1},
        {"CLSCAN_SG_REQUIRED_SIZE",
         (unsigned long)(cfg->sg_impl == CLSCAN_SG_INTEL && p->sg_intel_required_size), 1},
        /* A compaction program's scan kernels are the multi-level ones. */
        {"CLSCAN_SINGLE_PASS", (unsigned long)(single && !sel && !general), 1},
        {"CLSCAN_GEN_SINGLE_PASS", (unsigned long)single, general},
        {"CLSCAN_SEL_SINGLE_PASS", (unsigned long)single, sel},
        {"CLSCAN_SEL_MODE", (unsigned long)(cfg->select - 1), sel},
        {"CLSCAN_SEL_TYPE_ID", (unsigned long)cfg->elem_type, sel},
        {"CLSCAN_SEL_PREDICATE_GIVEN", 1, sel && cfg->predicate},
        /* The look-back knobs mean nothing to a multi-level program. */
        {"CLSCAN_LB_ATOMICS", (unsigned long)cfg->lb_atomics, single},
        {"CLSCAN_LB_WORD_BITS", (unsigned long)(cfg->lb_word_bits ? cfg->lb_word_bits : 64),
         single},
        {"CLSCAN_LB_TEST", (unsigned long)cfg->lb_test, single},
        {"CLSCAN_LB_ORDERED", 1, single && general},
        /* A general program's element size (its prelude checks sizeof against it). */
        {"CLSCAN_T_BYTES", (unsigned long)cfg->elem_bytes, general},
        /* A sort program's key type and value size (cl/clscan_sort.cl). */
        {"CLSCAN_SORT_KEY_ID", (unsigned long)cfg->elem_type, cfg->kind == CLSCAN_PROGRAM_SORT},
        {"CLSCAN_SORT_VALUE_BYTES", (unsigned long)cfg->value_bytes,
         cfg->kind == CLSCAN_PROGRAM_SORT},
    };
    const size_t ndefs = sizeof defs / sizeof defs[0];
    size_t len = 0;
    int n;
    if (size) buf[0] = '\0';
#define CLSCAN_APPEND(...)                                                              \
    do {                                                                                \
        n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0, __VA_ARGS__); \
        if (n < 0) return 0;                                                            \
        len += (size_t)n;                                                               \
    } while (0)
    if (as_options)
        CLSCAN_APPEND("%s", cl_std_option(cfg, p));
    else if (general)
        CLSCAN_APPEND("/* libclscan %d.%d.%d: general scan of %s (%zu bytes), %s, %s work-group "
                      "scan, %s sub-groups, for %s; built with %s */\n",
                      CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR, CLSCAN_VERSION_PATCH,
                      cfg->type == CLSCAN_TYPE_ID_CUSTOM ? "a prelude's type"
                                                         : clscan_type_name(cfg->type),
                      cfg->elem_bytes, clscan__scan_algo_name(cfg->algo),
                      clscan__wg_algo_name(cfg->wg_algo), clscan__sg_impl_name(cfg->sg_impl),
                      p->device_name, cl_std_option(cfg, p));
    else if (sel)
        CLSCAN_APPEND("/* libclscan %d.%d.%d: %s of %s (counts %s), %s, %s work-group scan, "
                      "%s sub-groups, for %s; built with %s */\n",
                      CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR, CLSCAN_VERSION_PATCH,
                      clscan__select_mode_name(cfg->select), clscan_type_name(cfg->elem_type),
                      clscan_type_name(cfg->type), clscan__scan_algo_name(cfg->algo),
                      clscan__wg_algo_name(cfg->wg_algo), clscan__sg_impl_name(cfg->sg_impl),
                      p->device_name, cl_std_option(cfg, p));
    else
        CLSCAN_APPEND("/* libclscan %d.%d.%d: %s %s, %s scan, %s work-group scan, %s "
                      "sub-groups, for %s; built with %s */\n",
                      CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR, CLSCAN_VERSION_PATCH,
                      clscan_type_name(cfg->type), clscan_op_name(cfg->op),
                      clscan__scan_algo_name(cfg->algo),
                      clscan__wg_algo_name(cfg->wg_algo), clscan__sg_impl_name(cfg->sg_impl),
                      p->device_name, cl_std_option(cfg, p));
    for (size_t i = 0; i < ndefs; ++i)
        if (defs[i].on)
            CLSCAN_APPEND(as_options ? " -D %s=%lu" : "#define %s %lu\n", defs[i].name,
                          defs[i].value);
#undef CLSCAN_APPEND
    return len;
}

/* The definition of a compaction's predicate, appended after the kernels (which
 * declare it): the user's expression on a line of its own, which compiler messages
 * call line 1 of "predicate". Returns a malloc'd string, or NULL when out of memory. */
static char *predicate_source(const char *predicate)
{
    static const char head[] = "\nint clscan_sel_predicate(const CLSCAN_E x, const ulong i)\n"
                               "{\n    (void)x;\n    (void)i;\n    return (\n"
                               "#line 1 \"predicate\"\n";
    static const char tail[] = "\n    ) != 0;\n}\n";
    const size_t len = strlen(predicate);
    char *text = malloc(sizeof head - 1 + len + sizeof tail);
    if (!text) return NULL;
    memcpy(text, head, sizeof head - 1);
    memcpy(text + sizeof head - 1, predicate, len);
    memcpy(text + sizeof head - 1 + len, tail, sizeof tail);
    return text;
}

static void release_shape(clscan_program *prog);

static void program_free(clscan_program *prog)
{
    if (!prog) return;
    release_shape(prog);
    pthread_mutex_destroy(&prog->lock);
    free(prog->key);
    free(prog->predicate);
    free(prog->prelude);
    free(prog);
}

void clscan__programs_free(clscan_program *list)
{
    while (list) {
        clscan_program *next = list->next;
        program_free(list);
        list = next;
    }
}

/* Reads the build log for a failed build into the thread's last error. */
static clscan_status build_failed(clscan_context *ctx, cl_program program, cl_int err,
                                  const char *defines, const char *predicate, int general)
{
    size_t len = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) ==
            CL_SUCCESS &&
        (log = malloc(len + 1)) != NULL) {
        if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, len, log,
                                  NULL) != CL_SUCCESS)
            len = 0;
        log[len] = '\0';
    }
    /* A compaction's program that does not build names the predicate first: compilers
     * differ in how their logs name the source it came from. */
    char prefix[3072], head[300] = "";
    if (predicate)
        snprintf(head, sizeof head, "the predicate \"%.200s%s\" does not compile; ", predicate,
                 strlen(predicate) > 200 ? "..." : "");
    else if (general)
        snprintf(head, sizeof head, "the general scan's OpenCL C (desc->source, combine, "
                 "identity or transform) does not compile; ");
    snprintf(prefix, sizeof prefix, "%sclBuildProgram failed: %s (%d)\n--- options ---\n%s"
             "--- build log ---\n",
             head, clscan_status_string(err), (int)err, defines);
    clscan__fail_text(ctx, CLSCAN_ERROR_BUILD_FAILED, prefix, log ? log : "(no log)");
    free(log);
    return CLSCAN_ERROR_BUILD_FAILED;
}

/* Creates kernel `name`; *max_wg receives the largest work-group it can run with. */
static clscan_status create_kernel(clscan_context *ctx, cl_program program, const char *name,
                                   cl_kernel *out, size_t *max_wg)
{
    cl_int err;
    *out = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) return clscan__fail_cl(ctx, err, name);
    size_t wg = 0;
    err = clGetKernelWorkGroupInfo(*out, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                   NULL);
    if (err != CL_SUCCESS) return clscan__fail_cl(ctx, err, "clGetKernelWorkGroupInfo");
    if (wg < *max_wg) *max_wg = wg;
    return CLSCAN_SUCCESS;
}

/* Builds the program for one shape into prog (no locks held: builds are slow and may
 * run in parallel). *max_wg receives the largest work-group all its kernels allow. */
static clscan_status build_shape(clscan_context *ctx, clscan_program *prog, size_t *max_wg)
{
    char defines[2048];
    size_t dlen = clscan__kernel_defines(&prog->config, &ctx->profile, 0, defines,
                                         sizeof defines);
    if (dlen == 0 || dlen >= sizeof defines)
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "kernel options too long");
    enum { NFILES = sizeof program_files / sizeof program_files[0] };
    const clscan_scan_config *cfg = &prog->config;
    const char *texts[NFILES + 3] = {defines};
    size_t lengths[NFILES + 3] = {dlen};
    cl_uint count = 1;
    if (cfg->prelude) {
        texts[count] = cfg->prelude;
        lengths[count++] = strlen(cfg->prelude);
    }
    for (size_t i = 0; i < NFILES; ++i) {
        if (!(program_files[i].kinds & program_file_kind(cfg)) ||
            (program_files[i].lookback && cfg->algo != CLSCAN_SCAN_SINGLE_PASS))
            continue;
        texts[count] = clscan__embedded_source(program_files[i].name, &lengths[count]);
        if (!texts[count])
            return clscan__fail(ctx, CLSCAN_ERROR_BUILD_FAILED, "embedded source %s missing",
                                program_files[i].name);
        ++count;
    }
    char *predicate = NULL;
    if (cfg->predicate) {
        if (!(predicate = predicate_source(cfg->predicate)))
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
        texts[count] = predicate;
        lengths[count++] = strlen(predicate);
    }
    /* The disk cache first (diskcache.c): a binary built earlier from exactly these texts
     * and options, for this device and driver. Anything wrong with it, or with the cache
     * itself, means a build from source, whose binary then replaces the file. */
    const char *options = cl_std_option(cfg, &ctx->profile);
    clscan_diskcache_key dkey;
    const int cached = clscan__diskcache_key(ctx, texts, lengths, count, options, &dkey) == 0;
    if (cached) prog->program = clscan__diskcache_load(ctx, &dkey, options);
    cl_int err = CL_SUCCESS;
    if (!prog->program) {
        prog->program = clCreateProgramWithSource(ctx->cl_ctx, count, texts, lengths, &err);
        if (err == CL_SUCCESS) {
            clscan__cache_stat_add(CLSCAN_CACHE_SOURCE_BUILDS);
            err = clBuildProgram(prog->program, 1, &ctx->device, options, NULL, NULL);
            if (err == CL_SUCCESS && cached) clscan__diskcache_store(ctx, &dkey, prog->program);
        }
    }
    free(predicate);
    if (cached) clscan__diskcache_key_free(&dkey);
    if (!prog->program) return clscan__fail_cl(ctx, err, "clCreateProgramWithSource");
    if (err != CL_SUCCESS)
        return build_failed(ctx, prog->program, err, defines, cfg->predicate,
                            cfg->kind == CLSCAN_PROGRAM_GENERAL);
    /* Kernels with a tile shape must allow the configured work-group size; the others
     * (one work-item, or any size) are asked nothing. */
    const int single = cfg->algo == CLSCAN_SCAN_SINGLE_PASS;
    const int general = cfg->kind == CLSCAN_PROGRAM_GENERAL;
    const int sort = cfg->kind == CLSCAN_PROGRAM_SORT;
    const struct {
        const char *name;
        cl_kernel *kernel;
        int wanted, shaped;
    } kernels[] = {
        /* (A sort program holds only its own kernels: it scans its counts with a scan
         * program.) */
        /* (A general program scans its partials, recursively, with these three.) */
        {"clscan_reduce_tiles", &prog->k_reduce, !sort, 1},
        {"clscan_scan_partials", &prog->k_partials, !sort, 1},
        {"clscan_scan_tiles", &prog->k_scan, !sort, 1},
        {"clscan_scan_single", &prog->k_single, single && !cfg->select && !general, 1},
        {"clscan_lb_clear", &prog->k_clear, single, 0},
        {"clscan_sel_count_tiles", &prog->k_sel_count, cfg->select != 0, 1},
        {"clscan_sel_write_tiles", &prog->k_sel_write, cfg->select != 0, 1},
        {"clscan_sel_count_zero", &prog->k_sel_zero, cfg->select != 0, 0},
        {"clscan_sel_single", &prog->k_sel_single, single && cfg->select, 1},
        {"clscan_gen_reduce_tiles", &prog->k_gen_reduce, general, 1},
        {"clscan_gen_scan_tiles", &prog->k_gen_scan, general, 1},
        {"clscan_gen_single", &prog->k_gen_single, general && single, 1},
        {"clscan_sort_histogram", &prog->k_sort_hist, sort, 1},
        {"clscan_sort_scatter", &prog->k_sort_scatter, sort, 1},
    };
    *max_wg = cfg->wg_size;
    clscan_status s = CLSCAN_SUCCESS;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0] && s == CLSCAN_SUCCESS; ++i) {
        size_t any = (size_t)-1;
        if (kernels[i].wanted)
            s = create_kernel(ctx, prog->program, kernels[i].name, kernels[i].kernel,
                              kernels[i].shaped ? max_wg : &any);
    }
    return s;
}

static void release_shape(clscan_program *prog)
{
    cl_kernel *const kernels[] = {
        &prog->k_reduce,     &prog->k_partials,   &prog->k_scan,       &prog->k_single,
        &prog->k_clear,      &prog->k_sel_count,  &prog->k_sel_write,  &prog->k_sel_zero,
        &prog->k_sel_single, &prog->k_gen_reduce, &prog->k_gen_scan,   &prog->k_gen_single,
        &prog->k_sort_hist,  &prog->k_sort_scatter};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i) {
        if (*kernels[i]) clReleaseKernel(*kernels[i]);
        *kernels[i] = NULL;
    }
    if (prog->program) clReleaseProgram(prog->program);
    prog->program = NULL;
}

/* clGetKernelSubGroupInfo is OpenCL 2.1; the library compiles against the 1.2 API, so
 * it is declared here, weak: a loader without it leaves the pointer NULL. */
#define CLSCAN_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE 0x2033
typedef cl_int(CL_API_CALL *kernel_sg_info_fn)(cl_kernel, cl_device_id, cl_uint, size_t,
                                               const void *, size_t, void *, size_t *);
extern CL_API_ENTRY cl_int CL_API_CALL clGetKernelSubGroupInfo(cl_kernel, cl_device_id,
                                                               cl_uint, size_t, const void *,
                                                               size_t, void *, size_t *)
    __attribute__((weak));

/* The KHR sub-group layer is compiled for prog->config.sg_width, but the compiler picks
 * the width: ask the built kernel (clGetKernelSubGroupInfo, or clGetKernelSubGroupInfoKHR
 * of cl_khr_subgroups). Returns 1 if they agree; otherwise changes the config (to the
 * reported width, or to local memory and Blelloch when no usable answer comes) and
 * returns 0, so the caller rebuilds. */
static int kernel_sg_width_matches(clscan_context *ctx, clscan_program *prog)
{
    kernel_sg_info_fn fn = NULL;
    cl_platform_id platform = NULL;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) ==
            CL_SUCCESS &&
        clscan__has_token(ctx->profile.extensions, "cl_khr_subgroups"))
        fn = (kernel_sg_info_fn)clGetExtensionFunctionAddressForPlatform(
            platform, "clGetKernelSubGroupInfoKHR");
    if (!fn && (ctx->profile.cl_major > 2 || (ctx->profile.cl_major == 2 &&
                                              ctx->profile.cl_minor >= 1)))
        fn = clGetKernelSubGroupInfo;
    size_t wg = prog->config.wg_size, width = 0;
    if (!fn || fn(prog->k_scan, ctx->device, CLSCAN_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                  sizeof wg, &wg, sizeof width, &width, NULL) != CL_SUCCESS)
        width = 0;
    if (width == prog->config.sg_width) return 1;
    if (width && !(width & (width - 1)) && width <= wg) {
        prog->config.sg_width = (cl_uint)width;
    } else {
        prog->config.sg_impl = CLSCAN_SG_LOCAL;
        prog->config.wg_algo = CLSCAN_WG_BLELLOCH;
    }
    return 0;
}

/* Builds the program cached under `key` for cfg. Where the compiled kernels allow
 * fewer work-items than asked for (registers, or an implementation's own limit), it
 * is rebuilt with the largest power of two they allow; the cache entry keeps the
 * shape actually built in prog->config. */
static clscan_status program_build(clscan_context *ctx, const clscan_scan_config *cfg,
                                   const char *key, clscan_program **out)
{
    *out = NULL;
    clscan_program *prog = calloc(1, sizeof *prog);
    if (!prog) return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    prog->config = *cfg;
    prog->key = strdup(key);
    prog->predicate = cfg->predicate ? strdup(cfg->predicate) : NULL;
    prog->prelude = cfg->prelude ? strdup(cfg->prelude) : NULL;
    if (!prog->key || (cfg->predicate && !prog->predicate) ||
        (cfg->prelude && !prog->prelude) || pthread_mutex_init(&prog->lock, NULL) != 0) {
        free(prog->key);
        free(prog->predicate);
        free(prog->prelude);
        free(prog);
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    }
    prog->config.predicate = prog->predicate;
    prog->config.prelude = prog->prelude;
    int width_rebuilds = 0;
    for (;;) {
        size_t max_wg = 0;
        clscan_status s = build_shape(ctx, prog, &max_wg);
        if (s == CLSCAN_SUCCESS && max_wg >= prog->config.wg_size) {
            if (prog->config.sg_impl != CLSCAN_SG_KHR ||
                kernel_sg_width_matches(ctx, prog))
                break;
            release_shape(prog); /* rebuilt for the width the kernel really has */
            /* A compiler whose width keeps changing with the source gets local memory. */
            if (++width_rebuilds > 2) {
                prog->config.sg_impl = CLSCAN_SG_LOCAL;
                prog->config.wg_algo = CLSCAN_WG_BLELLOCH;
            }
            continue;
        }
        release_shape(prog);
        if (s != CLSCAN_SUCCESS || max_wg == 0) {
            program_free(prog);
            return s != CLSCAN_SUCCESS
                       ? s
                       : clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                                      "the scan kernels cannot run with any work-group size");
        }
        if (s == CLSCAN_SUCCESS && max_wg < prog->config.wg_size) {
            while (prog->config.wg_size > max_wg) prog->config.wg_size >>= 1;
            config_subgroups_fit(&prog->config);
        }
    }
    *out = prog;
    return CLSCAN_SUCCESS;
}

static clscan_status program_find_or_build(clscan_context *ctx, const clscan_scan_config *cfg,
                                           const char *key, clscan_program **out);

clscan_status clscan__program_get(clscan_context *ctx, const clscan_scan_config *cfg,
                                  clscan_program **out)
{
    /* The key: the #define block, then a compaction's predicate and a general scan's
     * prelude, each after a newline. */
    char defines[2048];
    size_t len = clscan__kernel_defines(cfg, &ctx->profile, 0, defines, sizeof defines);
    if (len == 0 || len >= sizeof defines)
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "kernel options too long");
    const size_t plen = cfg->predicate ? strlen(cfg->predicate) : 0;
    const size_t rlen = cfg->prelude ? strlen(cfg->prelude) : 0;
    char *key = malloc(len + plen + rlen + 3);
    if (!key) return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    memcpy(key, defines, len);
    key[len] = '\n';
    memcpy(key + len + 1, plen ? cfg->predicate : "", plen);
    key[len + 1 + plen] = '\n';
    memcpy(key + len + 2 + plen, rlen ? cfg->prelude : "", rlen + 1);
    clscan_status s = program_find_or_build(ctx, cfg, key, out);
    free(key);
    return s;
}

/* The cached program under key, built (without holding the context's lock) if there is
 * none. */
static clscan_status program_find_or_build(clscan_context *ctx, const clscan_scan_config *cfg,
                                           const char *key, clscan_program **out)
{

    pthread_mutex_lock(&ctx->lock);
    for (clscan_program *p = ctx->programs; p; p = p->next)
        if (strcmp(p->key, key) == 0) {
            pthread_mutex_unlock(&ctx->lock);
            *out = p;
            return CLSCAN_SUCCESS;
        }
    pthread_mutex_unlock(&ctx->lock);

    /* Not cached: build without holding the lock. Two threads may build the same
     * program at once; the first to finish is kept and the other discarded. */
    clscan__cache_stat_add(CLSCAN_CACHE_PROGRAMS);
    clscan_program *built;
    const clscan_status s = program_build(ctx, cfg, key, &built);
    if (s != CLSCAN_SUCCESS) return s;
    pthread_mutex_lock(&ctx->lock);
    for (clscan_program *p = ctx->programs; p; p = p->next)
        if (strcmp(p->key, key) == 0) {
            pthread_mutex_unlock(&ctx->lock);
            program_free(built);
            *out = p;
            return CLSCAN_SUCCESS;
        }
    built->next = ctx->programs;
    ctx->programs = built;
    pthread_mutex_unlock(&ctx->lock);
    *out = built;
    return CLSCAN_SUCCESS;
}

/* ---------------------------------------------------------------- warming -- */

/* Whether the calls take type and op on this device: clscan__check_type_op's
 * conditions, asked without recording an error. */
static int warm_supported(const clscan_profile *p, clscan_type type, clscan_op op)
{
    return !(clscan__type_is_float(type) && op >= CLSCAN_OP_AND) &&
           !(type == CLSCAN_DOUBLE && !p->fp64);
}

/* Gets (builds, or loads from the disk cache) the program a scan of type and op by
 * device scan algo uses. */
static clscan_status warm_scan(clscan_context *ctx, clscan_scan_algo algo, clscan_type type,
                               clscan_op op)
{
    clscan_scan_config cfg;
    clscan_program *prog;
    clscan_status s = clscan__scan_config_choose(ctx, &ctx->profile, algo, type, op, &cfg);
    return s == CLSCAN_SUCCESS ? clscan__program_get(ctx, &cfg, &prog) : s;
}

/* The same for a compaction of elements of `type` by `mode` with counts of count_type. */
static clscan_status warm_select(clscan_context *ctx, clscan_select_mode mode, clscan_type type,
                                 clscan_type count_type)
{
    clscan_scan_config cfg;
    clscan_program *prog;
    clscan_status s = clscan__select_config_choose(ctx, &ctx->profile, ctx->profile.scan_algo,
                                                   mode, type, count_type, NULL, &cfg);
    return s == CLSCAN_SUCCESS ? clscan__program_get(ctx, &cfg, &prog) : s;
}

clscan_status clscan_context_warm(clscan_context *ctx)
{
    clscan_status s = clscan__check_context(ctx);
    if (s != CLSCAN_SUCCESS) return s;
    const clscan_profile *p = &ctx->profile;
    /* Scans (scan.c): the profile's device scan, and the multi-level one that calls in
     * place take; one program serves exclusive and inclusive calls at every n. */
    const clscan_scan_algo algos[2] = {p->scan_algo, CLSCAN_SCAN_MULTI_LEVEL};
    const int nalgos = p->scan_algo == CLSCAN_SCAN_MULTI_LEVEL ? 1 : 2;
    for (int t = 0; t < CLSCAN_TYPE_COUNT && s == CLSCAN_SUCCESS; ++t)
        for (int o = 0; o < CLSCAN_OP_COUNT && s == CLSCAN_SUCCESS; ++o)
            for (int a = 0; a < nalgos && s == CLSCAN_SUCCESS &&
                            warm_supported(p, (clscan_type)t, (clscan_op)o);
                 ++a)
                s = warm_scan(ctx, algos[a], (clscan_type)t, (clscan_op)o);
    /* Compactions without a predicate (select.c): the profile's device scan for every
     * call (in place, the input is copied first); counts of 32 bits, and of 64 bits
     * (from n = 2^32 on) where one buffer can hold 2^32 elements of the type. */
    const clscan_select_mode modes[2] = {CLSCAN_SELECT_FLAGGED, CLSCAN_SELECT_UNIQUE};
    for (int t = 0; t < CLSCAN_TYPE_COUNT && s == CLSCAN_SUCCESS; ++t) {
        if (!warm_supported(p, (clscan_type)t, CLSCAN_OP_ADD)) continue;
        const int wide = p->max_alloc / clscan_type_size((clscan_type)t) > 0xffffffffull;
        for (int m = 0; m < 2 && s == CLSCAN_SUCCESS; ++m)
            for (int c = 0; c < 1 + wide && s == CLSCAN_SUCCESS; ++c)
                s = warm_select(ctx, modes[m], (clscan_type)t, c ? CLSCAN_UINT64 : CLSCAN_UINT32);
    }
    return s;
}

/* ------------------------------------------------------ options for users -- */

#ifndef CLSCAN_INSTALL_INCLUDEDIR
#error "the build defines CLSCAN_INSTALL_INCLUDEDIR, where clscan/*.cl are installed"
#endif

clscan_status clscan_kernel_build_options(clscan_context *ctx, clscan_type type, clscan_op op,
                                          size_t max_work_group_size, char *options,
                                          size_t options_size, size_t *options_length,
                                          size_t *work_group_size, size_t *tile_size)
{
    clscan_status s = clscan__check_context(ctx);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN_RETURN_IF(ctx, options == NULL && options_size > 0, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "options is NULL but options_size is %zu", options_size);
    s = clscan__check_type_op(ctx, type, op);
    if (s != CLSCAN_SUCCESS) return s;
    clscan_scan_config cfg;
    clscan_program *prog;
    if ((s = clscan__scan_config_choose(ctx, &ctx->profile, ctx->profile.scan_algo, type, op,
                                           &cfg)) != CLSCAN_SUCCESS ||
        (s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS)
        return s;
    clscan_scan_config c = prog->config;
    /* The user's kernels get the tile functions; the look-back stays the library's. */
    c.algo = CLSCAN_SCAN_MULTI_LEVEL;
    c.lb_atomics = CLSCAN_LB_CL12;
    c.lb_word_bits = 0;
    c.lb_test = 0;
    if (max_work_group_size && c.wg_size > max_work_group_size) {
        while (c.wg_size > max_work_group_size && c.wg_size > 1) c.wg_size >>= 1;
        config_subgroups_fit(&c);
    }

    const char *dir = getenv("CLSCAN_KERNEL_INCLUDE_DIR");
    if (!dir || !*dir) dir = CLSCAN_INSTALL_INCLUDEDIR;
    const char *quote = strpbrk(dir, " \t") ? "\"" : "";
    char head[4200];
    int hl = snprintf(head, sizeof head, "-I %s%s%s ", quote, dir, quote);
    CLSCAN_RETURN_IF(ctx, hl < 0 || (size_t)hl >= sizeof head, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "CLSCAN_KERNEL_INCLUDE_DIR is longer than %zu bytes", sizeof head - 16);
    CLSCAN_RETURN_IF(ctx, strchr(dir, '"') != NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "the kernel include directory \"%s\" contains a double quote", dir);
    char defs[1024];
    size_t dl = clscan__kernel_defines(&c, &ctx->profile, 1, defs, sizeof defs);
    CLSCAN_RETURN_IF(ctx, dl == 0 || dl >= sizeof defs, CLSCAN_ERROR_OUT_OF_RESOURCES,
                     "kernel options too long");
    const size_t need = (size_t)hl + dl;
    if (options_length) *options_length = need;
    if (work_group_size) *work_group_size = c.wg_size;
    if (tile_size) *tile_size = c.wg_size * c.items;
    if (options_size) snprintf(options, options_size, "%s%s", head, defs);
    CLSCAN_RETURN_IF(ctx, options_size > 0 && options_size <= need, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "options buffer of %zu bytes is too small: %zu needed", options_size,
                     need + 1);
    return CLSCAN_SUCCESS;
}
