/* build.c - builds one program: the embedded cl/ files its kind needs after its
 * #define block, from the disk cache or from source, its kernels created into the
 * program's table, rebuilt smaller where the compiled kernels allow fewer work-items or
 * another sub-group width than asked for. */
#include "kernels/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cl/ files a program is made of, in order; each guards its own #include of the
 * layer below, so concatenating them needs no include path. A program takes the files
 * marked for its kind (the scan kernels also scan a compaction's counts and a general
 * scan's partials; a compaction's or general scan's look-back comes after its tile
 * layer, which tells the look-back what a fallback reads); the look-back only where the
 * program is single-pass. */
enum { F_SCAN = 1, F_SELECT = 2, F_GENERAL = 4, F_SORT = 8, F_HIST = 16, F_ALL = 31 };
static const struct {
    const char *name;
    unsigned kinds; /* F_* */
    int lookback;
} program_files[] = {
    {"clscan_common.cl", F_ALL, 0},
    {"clscan_clear.cl", F_ALL, 0},
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
    {"clscan_sort_onesweep.cl", F_SORT, 0},
    {"clscan_histogram.cl", F_HIST, 0},
};

/* The F_* bit of the files cfg's program is made of. */
static unsigned program_file_kind(const clscan__scan_config *cfg)
{
    switch (cfg->kind) {
    case CLSCAN__PROGRAM_GENERAL: return F_GENERAL;
    case CLSCAN__PROGRAM_SORT: return F_SORT;
    case CLSCAN__PROGRAM_HIST: return F_HIST;
    default: return cfg->select ? F_SELECT : F_SCAN;
    }
}

/* Each kernel's name in cl/, and whether it must allow the tile's work-group size. */
static const struct {
    const char *name;
    int shaped;
} kernel_table[CLSCAN__KERNEL_COUNT] = {
    [CLSCAN__K_REDUCE] = {"clscan_reduce_tiles", 1},
    [CLSCAN__K_PARTIALS] = {"clscan_scan_partials", 1},
    [CLSCAN__K_SCAN] = {"clscan_scan_tiles", 1},
    [CLSCAN__K_SINGLE] = {"clscan_scan_single", 1},
    [CLSCAN__K_CLEAR] = {"clscan_clear_words", 0},
    [CLSCAN__K_SEL_COUNT] = {"clscan_sel_count_tiles", 1},
    [CLSCAN__K_SEL_WRITE] = {"clscan_sel_write_tiles", 1},
    [CLSCAN__K_SEL_ZERO] = {"clscan_sel_count_zero", 0},
    [CLSCAN__K_SEL_SINGLE] = {"clscan_sel_single", 1},
    [CLSCAN__K_GEN_REDUCE] = {"clscan_gen_reduce_tiles", 1},
    [CLSCAN__K_GEN_SCAN] = {"clscan_gen_scan_tiles", 1},
    [CLSCAN__K_GEN_SINGLE] = {"clscan_gen_single", 1},
    [CLSCAN__K_SORT_HIST] = {"clscan_sort_histogram", 1},
    [CLSCAN__K_SORT_SCATTER] = {"clscan_sort_scatter", 1},
    [CLSCAN__K_SORT_OS_HIST] = {"clscan_sort_os_histogram", 1},
    [CLSCAN__K_SORT_OS_PASS] = {"clscan_sort_os_pass", 1},
    [CLSCAN__K_HIST_LOCAL] = {"clscan_hist_local", 1},
    [CLSCAN__K_HIST_GLOBAL] = {"clscan_hist_global", 0},
    [CLSCAN__K_HIST_SUM] = {"clscan_hist_sum", 0},
};

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

static void release_shape(clscan__program *prog);

void clscan__program_free(clscan__program *prog)
{
    if (!prog) return;
    release_shape(prog);
    pthread_mutex_destroy(&prog->lock);
    free(prog->key);
    free(prog->predicate);
    free(prog->prelude);
    free(prog);
}

void clscan__programs_free(clscan__program *list)
{
    while (list) {
        clscan__program *next = list->next;
        clscan__program_free(list);
        list = next;
    }
}

/* Reads the build log for a failed build into the thread's last error. */
static clscan_status build_failed(const clscan_context *ctx, const clscan__target *t,
                                  cl_program program, cl_int err,
                                  const char *defines, const char *predicate, int general)
{
    size_t len = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(program, t->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) ==
            CL_SUCCESS &&
        (log = malloc(len + 1)) != NULL) {
        if (clGetProgramBuildInfo(program, t->device, CL_PROGRAM_BUILD_LOG, len, log,
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
                 "identity, transform or output) does not compile; ");
    snprintf(prefix, sizeof prefix, "%sclBuildProgram failed: %s (%d)\n--- options ---\n%s"
             "--- build log ---\n",
             head, clscan_status_string(err), (int)err, defines);
    clscan__fail_text(ctx, CLSCAN_ERROR_BUILD_FAILED, prefix, log ? log : "(no log)");
    free(log);
    return CLSCAN_ERROR_BUILD_FAILED;
}

/* Creates kernel `name`; *max_wg receives the largest work-group it can run with. */
static clscan_status create_kernel(const clscan_context *ctx, const clscan__target *t,
                                   cl_program program, const char *name,
                                   cl_kernel *out, size_t *max_wg)
{
    cl_int err;
    *out = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) return clscan__fail_cl(ctx, err, name);
    size_t wg = 0;
    err = clGetKernelWorkGroupInfo(*out, t->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                   NULL);
    if (err != CL_SUCCESS) return clscan__fail_cl(ctx, err, "clGetKernelWorkGroupInfo");
    if (wg < *max_wg) *max_wg = wg;
    return CLSCAN_SUCCESS;
}

/* Builds the program for one shape into prog (no locks held: builds are slow and may
 * run in parallel). *max_wg receives the largest work-group all its kernels allow. */
static clscan_status build_shape(const clscan_context *ctx, const clscan__target *t,
                                 clscan__program *prog, size_t *max_wg)
{
    char defines[2048];
    size_t dlen = clscan__kernel_defines(&prog->config, &t->profile, CLSCAN__DEFINES_BLOCK, defines,
                                         sizeof defines);
    if (dlen == 0 || dlen >= sizeof defines)
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "kernel options too long");
    enum { NFILES = sizeof program_files / sizeof program_files[0] };
    const clscan__scan_config *cfg = &prog->config;
    const char *texts[NFILES + 3] = {defines};
    size_t lengths[NFILES + 3] = {dlen};
    cl_uint count = 1;
    if (cfg->prelude) {
        texts[count] = cfg->prelude;
        lengths[count++] = strlen(cfg->prelude);
    }
    for (size_t i = 0; i < NFILES; ++i) {
        if (!(program_files[i].kinds & program_file_kind(cfg)) ||
            (program_files[i].lookback && cfg->algo != CLSCAN__SCAN_SINGLE_PASS))
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
    const char *options = clscan__cl_std_option(cfg, &t->profile);
    clscan__cache_key dkey;
    const int cached = clscan__diskcache_key(&t->cache, texts, lengths, count, options, &dkey);
    if (cached) prog->program = clscan__diskcache_load(t, &dkey, options);
    cl_int err = CL_SUCCESS;
    if (!prog->program) {
        prog->program = clCreateProgramWithSource(t->cl_ctx, count, texts, lengths, &err);
        if (err == CL_SUCCESS) {
            clscan__cache_stat_add(CLSCAN__CACHE_SOURCE_BUILDS);
            err = clBuildProgram(prog->program, 1, &t->device, options, NULL, NULL);
            if (err == CL_SUCCESS && cached) clscan__diskcache_store(t, &dkey, prog->program);
        }
    }
    free(predicate);
    if (cached) clscan__diskcache_key_free(&dkey);
    if (!prog->program) return clscan__fail_cl(ctx, err, "clCreateProgramWithSource");
    if (err != CL_SUCCESS)
        return build_failed(ctx, t, prog->program, err, defines, cfg->predicate,
                            cfg->kind == CLSCAN__PROGRAM_GENERAL);
    /* Kernels with a tile shape must allow the configured work-group size; the others
     * (one work-item, or any size) are asked nothing. */
    const int single = cfg->algo == CLSCAN__SCAN_SINGLE_PASS;
    const int general = cfg->kind == CLSCAN__PROGRAM_GENERAL;
    const int sort = cfg->kind == CLSCAN__PROGRAM_SORT;
    const int hist = cfg->kind == CLSCAN__PROGRAM_HIST;
    /* Which kernels the program holds, and whether each has the tile's shape (the
     * others, one work-item or any size, are asked nothing). A sort program holds only
     * its own kernels (it scans its counts with a scan program); a general program scans
     * its partials, recursively, with the first three; a histogram program holds its own
     * and the clear kernel. */
    int wanted[CLSCAN__KERNEL_COUNT] = {0};
    wanted[CLSCAN__K_REDUCE] = wanted[CLSCAN__K_PARTIALS] = wanted[CLSCAN__K_SCAN] =
        !sort && !hist;
    wanted[CLSCAN__K_SINGLE] = single && !cfg->select && !general;
    wanted[CLSCAN__K_CLEAR] = (single && !hist) || (sort && cfg->sort_onesweep) || hist;
    wanted[CLSCAN__K_SEL_COUNT] = wanted[CLSCAN__K_SEL_WRITE] = wanted[CLSCAN__K_SEL_ZERO] =
        cfg->select != 0;
    wanted[CLSCAN__K_SEL_SINGLE] = single && cfg->select;
    wanted[CLSCAN__K_GEN_REDUCE] = wanted[CLSCAN__K_GEN_SCAN] = general;
    wanted[CLSCAN__K_GEN_SINGLE] = general && single;
    wanted[CLSCAN__K_SORT_HIST] = wanted[CLSCAN__K_SORT_SCATTER] = sort && !cfg->sort_onesweep;
    wanted[CLSCAN__K_SORT_OS_HIST] = wanted[CLSCAN__K_SORT_OS_PASS] = sort && cfg->sort_onesweep;
    wanted[CLSCAN__K_HIST_LOCAL] = wanted[CLSCAN__K_HIST_GLOBAL] = wanted[CLSCAN__K_HIST_SUM] =
        hist;
    *max_wg = cfg->wg_size;
    clscan_status s = CLSCAN_SUCCESS;
    for (int k = 0; k < CLSCAN__KERNEL_COUNT && s == CLSCAN_SUCCESS; ++k) {
        size_t any = (size_t)-1;
        if (wanted[k])
            s = create_kernel(ctx, t, prog->program, kernel_table[k].name, &prog->kernels[k],
                              kernel_table[k].shaped ? max_wg : &any);
    }
    return s;
}

static void release_shape(clscan__program *prog)
{
    for (int k = 0; k < CLSCAN__KERNEL_COUNT; ++k) {
        if (prog->kernels[k]) clReleaseKernel(prog->kernels[k]);
        prog->kernels[k] = NULL;
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
static int kernel_sg_width_matches(const clscan__target *t, clscan__program *prog)
{
    kernel_sg_info_fn fn = NULL;
    cl_platform_id platform = NULL;
    if (clGetDeviceInfo(t->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) ==
            CL_SUCCESS &&
        clscan__has_token(t->profile.extensions, "cl_khr_subgroups"))
        fn = (kernel_sg_info_fn)clGetExtensionFunctionAddressForPlatform(
            platform, "clGetKernelSubGroupInfoKHR");
    if (!fn && (t->profile.cl_major > 2 || (t->profile.cl_major == 2 &&
                                              t->profile.cl_minor >= 1)))
        fn = clGetKernelSubGroupInfo;
    size_t wg = prog->config.wg_size, width = 0;
    if (!fn || fn(prog->kernels[CLSCAN__K_SCAN], t->device, CLSCAN_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                  sizeof wg, &wg, sizeof width, &width, NULL) != CL_SUCCESS)
        width = 0;
    if (width == prog->config.sg_width) return 1;
    if (width && !(width & (width - 1)) && width <= wg) {
        prog->config.sg_width = (cl_uint)width;
    } else {
        prog->config.sg_impl = CLSCAN__SG_LOCAL;
        prog->config.wg_algo = CLSCAN__WG_BLELLOCH;
    }
    return 0;
}

/* Builds the program cached under `key` for cfg. Where the compiled kernels allow
 * fewer work-items than asked for (registers, or an implementation's own limit), it
 * is rebuilt with the largest power of two they allow; the cache entry keeps the
 * shape actually built in prog->config. */
clscan_status clscan__program_build(const clscan_context *ctx, const clscan__target *t,
                                    const clscan__scan_config *cfg, const char *key,
                                    clscan__program **out)
{
    *out = NULL;
    clscan__program *prog = calloc(1, sizeof *prog);
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
        clscan_status s = build_shape(ctx, t, prog, &max_wg);
        if (s == CLSCAN_SUCCESS && max_wg >= prog->config.wg_size) {
            if (prog->config.sg_impl != CLSCAN__SG_KHR ||
                kernel_sg_width_matches(t, prog))
                break;
            release_shape(prog); /* rebuilt for the width the kernel really has */
            /* A compiler whose width keeps changing with the source gets local memory. */
            if (++width_rebuilds > 2) {
                prog->config.sg_impl = CLSCAN__SG_LOCAL;
                prog->config.wg_algo = CLSCAN__WG_BLELLOCH;
            }
            continue;
        }
        release_shape(prog);
        if (s != CLSCAN_SUCCESS || max_wg == 0) {
            clscan__program_free(prog);
            return s != CLSCAN_SUCCESS
                       ? s
                       : clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                                      "the scan kernels cannot run with any work-group size");
        }
        if (s == CLSCAN_SUCCESS && max_wg < prog->config.wg_size) {
            while (prog->config.wg_size > max_wg) prog->config.wg_size >>= 1;
            clscan__config_subgroups_fit(&prog->config);
        }
    }
    *out = prog;
    return CLSCAN_SUCCESS;
}

/* ---------------------------------------------------------------- warming -- */

/* ------------------------------------------------------ options for users -- */

#ifndef CLSCAN_INSTALL_INCLUDEDIR
#error "the build defines CLSCAN_INSTALL_INCLUDEDIR, where clscan/*.cl are installed"
#endif
