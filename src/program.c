/* program.c - run-time kernel builds: the launch shape for a type on a device, the
 * generated #define block prepended to the embedded cl/ sources, and the per-context
 * cache of built programs. */
#include "clscan_internal.h"

#include "embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cl/ files a scan program is made of, in order; each guards its own #include of
 * the layer below, so concatenating them needs no include path. */
static const char *const scan_files[] = {"clscan_common.cl", "clscan_workgroup.cl",
                                         "clscan_scan.cl"};

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

size_t clscan__scan_local_bytes(const clscan_scan_config *cfg)
{
    size_t tile = cfg->wg_size * cfg->items, wg = cfg->wg_size;
    if (cfg->log_banks) {
        tile += tile >> cfg->log_banks;
        wg += wg >> cfg->log_banks;
    }
    return (tile + wg) * clscan_type_size(cfg->type);
}

cl_ulong clscan__scan_tile_iterations(const clscan_scan_config *cfg)
{
    /* load, reduce, scan and store loops over the items, the two sweeps, the tile loop
     * itself and a margin for loops the compiler adds. */
    return 4ull * cfg->items + 2ull * log2u(cfg->wg_size) + 16;
}

clscan_status clscan__scan_config_choose(const clscan_context *ctx, const clscan_profile *p,
                                         clscan_type type, clscan_op op,
                                         clscan_scan_config *out)
{
    clscan_scan_config c;
    c.type = type;
    c.op = op;
    c.wg_size = p->wg_size;
    c.items = p->items_per_thread;
    if (clscan_type_size(type) == 8 && c.items > 1) c.items /= 2;
    c.log_banks = p->padding && p->local_banks > 1 ? log2u(p->local_banks) : 0;
    /* Leave room for what the implementation itself keeps in local memory. */
    cl_ulong budget = p->local_mem_size > 1024 ? p->local_mem_size - 256 : p->local_mem_size;
    /* Where loops are limited, a tile must leave room for many tiles per work-item. */
    while (p->max_loop_iterations && c.items > 1 &&
           clscan__scan_tile_iterations(&c) * 8 > p->max_loop_iterations)
        c.items /= 2;
    while (clscan__scan_local_bytes(&c) > budget) {
        if (c.items > 1) c.items /= 2;
        else if (c.wg_size > 1) c.wg_size /= 2;
        else
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                                "no scan tile fits in %llu bytes of local memory",
                                (unsigned long long)p->local_mem_size);
    }
    *out = c;
    return CLSCAN_SUCCESS;
}

size_t clscan__scan_defines(const clscan_scan_config *cfg, const clscan_profile *p,
                            char *buf, size_t size)
{
    char typeop[512];
    clscan__type_op_defines(cfg->type, cfg->op, typeop, sizeof typeop);
    int n = snprintf(buf, size,
                     "/* libclscan %d.%d.%d scan for %s %s on %s */\n"
                     "%s"
                     "#define CLSCAN_WG_SIZE %zu\n"
                     "#define CLSCAN_ITEMS %u\n"
                     "#define CLSCAN_LOG_BANKS %u\n",
                     CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR, CLSCAN_VERSION_PATCH,
                     clscan_type_name(cfg->type), clscan_op_name(cfg->op),
                     p->device_name, typeop, cfg->wg_size, cfg->items, cfg->log_banks);
    return n < 0 ? 0 : (size_t)n;
}

static void release_shape(clscan_program *prog);

static void program_free(clscan_program *prog)
{
    if (!prog) return;
    release_shape(prog);
    pthread_mutex_destroy(&prog->lock);
    free(prog->key);
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
                                  const char *defines)
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
    char prefix[3072];
    snprintf(prefix, sizeof prefix, "clBuildProgram failed: %s (%d)\n--- options ---\n%s"
             "--- build log ---\n",
             clscan_status_string(err), (int)err, defines);
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
    size_t dlen = clscan__scan_defines(&prog->config, &ctx->profile, defines, sizeof defines);
    if (dlen == 0 || dlen >= sizeof defines)
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "kernel options too long");
    enum { NFILES = sizeof scan_files / sizeof scan_files[0] };
    const char *texts[NFILES + 1] = {defines};
    size_t lengths[NFILES + 1] = {dlen};
    for (size_t i = 0; i < NFILES; ++i) {
        texts[i + 1] = clscan__embedded_source(scan_files[i], &lengths[i + 1]);
        if (!texts[i + 1])
            return clscan__fail(ctx, CLSCAN_ERROR_BUILD_FAILED, "embedded source %s missing",
                                scan_files[i]);
    }
    cl_int err;
    prog->program = clCreateProgramWithSource(ctx->cl_ctx, NFILES + 1, texts, lengths, &err);
    if (err != CL_SUCCESS) return clscan__fail_cl(ctx, err, "clCreateProgramWithSource");
    err = clBuildProgram(prog->program, 1, &ctx->device, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) return build_failed(ctx, prog->program, err, defines);
    *max_wg = prog->config.wg_size;
    clscan_status s = create_kernel(ctx, prog->program, "clscan_reduce_tiles", &prog->k_reduce,
                                    max_wg);
    if (s == CLSCAN_SUCCESS)
        s = create_kernel(ctx, prog->program, "clscan_scan_partials", &prog->k_partials,
                          max_wg);
    if (s == CLSCAN_SUCCESS)
        s = create_kernel(ctx, prog->program, "clscan_scan_tiles", &prog->k_scan, max_wg);
    return s;
}

static void release_shape(clscan_program *prog)
{
    if (prog->k_reduce) clReleaseKernel(prog->k_reduce);
    if (prog->k_partials) clReleaseKernel(prog->k_partials);
    if (prog->k_scan) clReleaseKernel(prog->k_scan);
    if (prog->program) clReleaseProgram(prog->program);
    prog->k_reduce = prog->k_partials = prog->k_scan = NULL;
    prog->program = NULL;
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
    prog->key = malloc(strlen(key) + 1);
    if (!prog->key || pthread_mutex_init(&prog->lock, NULL) != 0) {
        free(prog->key);
        free(prog);
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    }
    strcpy(prog->key, key);
    for (;;) {
        size_t max_wg = 0;
        clscan_status s = build_shape(ctx, prog, &max_wg);
        if (s == CLSCAN_SUCCESS && max_wg >= prog->config.wg_size) break;
        release_shape(prog);
        if (s != CLSCAN_SUCCESS || max_wg == 0) {
            program_free(prog);
            return s != CLSCAN_SUCCESS
                       ? s
                       : clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                                      "the scan kernels cannot run with any work-group size");
        }
        while (prog->config.wg_size > max_wg) prog->config.wg_size >>= 1;
    }
    *out = prog;
    return CLSCAN_SUCCESS;
}

clscan_status clscan__program_get(clscan_context *ctx, const clscan_scan_config *cfg,
                                  clscan_program **out)
{
    char key[2048];
    size_t len = clscan__scan_defines(cfg, &ctx->profile, key, sizeof key);
    if (len == 0 || len >= sizeof key)
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "kernel options too long");

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
    clscan_program *built;
    clscan_status s = program_build(ctx, cfg, key, &built);
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
