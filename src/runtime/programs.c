/* programs.c - a context's cache of built programs (built by kernels/build.c, keyed by
 * their #define block and texts): found by hash, pinned while a call uses them, the
 * least recently used released past the profile's caps; clscan_context_warm, which
 * fills it, and clscan_kernel_build_options for users' kernels. */
/* SPDX-License-Identifier: MIT */
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The program cache's hash of a fingerprint and the texts. */
static uint64_t program_hash(const clscan__scan_config *fp, const clscan__scan_config *cfg)
{
    uint64_t h = clscan__hash_mix64(0x70726f6772616d31ull, fp, sizeof *fp);
    if (cfg->predicate) h = clscan__hash_mix64(h ^ 1, cfg->predicate, strlen(cfg->predicate));
    if (cfg->prelude) h = clscan__hash_mix64(h ^ 2, cfg->prelude, strlen(cfg->prelude));
    return h;
}

/* Whether prog was asked for with fingerprint fp (hash `hash`) and these texts. */
static bool program_matches(const clscan__program *prog, uint64_t hash,
                            const clscan__scan_config *fp, const clscan__scan_config *cfg)
{
    return prog->hash == hash && memcmp(&prog->asked, fp, sizeof *fp) == 0 &&
           (cfg->predicate ? prog->predicate && strcmp(prog->predicate, cfg->predicate) == 0
                           : !prog->predicate) &&
           (cfg->prelude ? prog->prelude && strcmp(prog->prelude, cfg->prelude) == 0
                         : !prog->prelude);
}

/* (ctx->lock held.) The use order, newest first: unlink p; link p as the newest. */
static void lru_unlink(clscan_context *ctx, clscan__program *p)
{
    if (p->lru_prev) p->lru_prev->lru_next = p->lru_next;
    else ctx->lru_head = p->lru_next;
    if (p->lru_next) p->lru_next->lru_prev = p->lru_prev;
    else ctx->lru_tail = p->lru_prev;
    p->lru_prev = p->lru_next = NULL;
}
static void lru_push(clscan_context *ctx, clscan__program *p)
{
    p->lru_prev = NULL;
    p->lru_next = ctx->lru_head;
    if (ctx->lru_head) ctx->lru_head->lru_prev = p;
    ctx->lru_head = p;
    if (!ctx->lru_tail) ctx->lru_tail = p;
}

/* (ctx->lock held.) The matching program, made the newest and pinned, or NULL. */
static clscan__program *program_find(clscan_context *ctx, uint64_t hash,
                                     const clscan__scan_config *fp, const clscan__scan_config *cfg)
{
    for (clscan__program *p = ctx->buckets[hash & (CLSCAN__PROGRAM_BUCKETS - 1)]; p; p = p->next)
        if (program_matches(p, hash, fp, cfg)) {
            lru_unlink(ctx, p);
            lru_push(ctx, p);
            ++p->pins;
            return p;
        }
    return NULL;
}

/* (ctx->lock held.) While the cache is over its caps, unlinks the oldest unpinned
 * programs; returns them as a list (through next) for the caller to free without the
 * lock. */
static clscan__program *programs_trim(clscan_context *ctx)
{
    const clscan__profile *pr = &ctx->target.profile;
    clscan__program *released = NULL;
    clscan__program *p = ctx->lru_tail;
    while (p && (ctx->program_count > pr->max_programs ||
                 ctx->program_bytes > pr->max_program_bytes)) {
        clscan__program *newer = p->lru_prev;
        if (!p->pins) {
            clscan__program **at = &ctx->buckets[p->hash & (CLSCAN__PROGRAM_BUCKETS - 1)];
            while (*at != p) at = &(*at)->next;
            *at = p->next;
            lru_unlink(ctx, p);
            --ctx->program_count;
            ctx->program_bytes -= p->text_bytes;
            p->next = released;
            released = p;
            clscan__cache_stat_add(CLSCAN__CACHE_EVICTED);
        }
        p = newer;
    }
    return released;
}

void clscan__program_put(clscan_context *ctx, clscan__program *prog)
{
    if (!prog) return;
    pthread_mutex_lock(&ctx->lock);
    --prog->pins;
    clscan__program *released = programs_trim(ctx);
    pthread_mutex_unlock(&ctx->lock);
    clscan__programs_free(released);
}

void clscan__programs_clear(clscan_context *ctx)
{
    clscan__program *p = ctx->lru_head;
    while (p) {
        clscan__program *next = p->lru_next;
        clscan__program_free(p);
        p = next;
    }
    memset(ctx->buckets, 0, sizeof ctx->buckets);
    ctx->lru_head = ctx->lru_tail = NULL;
    ctx->program_count = ctx->program_bytes = 0;
}

/* Builds the program for cfg (fingerprint fp, hash) under key without holding the
 * context's lock, and caches it, pinned. Two threads may build the same program at once;
 * the first to finish is kept and the other discarded. */
static clscan_status program_build(clscan_context *ctx, const clscan__scan_config *cfg,
                                   const clscan__scan_config *fp, uint64_t hash,
                                   const char *key, clscan__program **out)
{
    clscan__cache_stat_add(CLSCAN__CACHE_PROGRAMS);
    clscan__program *built;
    const clscan_status s = clscan__program_build(ctx, &ctx->target, cfg, key, &built);
    if (s != CLSCAN_SUCCESS) return s;
    built->asked = *fp;
    built->hash = hash;
    built->text_bytes = strlen(built->key) + (built->predicate ? strlen(built->predicate) : 0) +
                        (built->prelude ? strlen(built->prelude) : 0);
    built->pins = 1;
    pthread_mutex_lock(&ctx->lock);
    clscan__program *other = program_find(ctx, hash, fp, cfg);
    clscan__program *released = NULL;
    if (!other) {
        clscan__program **bucket = &ctx->buckets[hash & (CLSCAN__PROGRAM_BUCKETS - 1)];
        built->next = *bucket;
        *bucket = built;
        lru_push(ctx, built);
        ++ctx->program_count;
        ctx->program_bytes += built->text_bytes;
        released = programs_trim(ctx);
    }
    pthread_mutex_unlock(&ctx->lock);
    clscan__programs_free(released);
    if (other) clscan__program_free(built);
    *out = other ? other : built;
    return CLSCAN_SUCCESS;
}

clscan_status clscan__program_get(clscan_context *ctx, const clscan__scan_config *cfg,
                                  clscan__program **out)
{
    uint64_t hash = 0;
    return clscan__program_get_hashed(ctx, cfg, &hash, out);
}

clscan_status clscan__program_get_hashed(clscan_context *ctx, const clscan__scan_config *cfg,
                                         uint64_t *known_hash, clscan__program **out)
{
    /* First by the shape asked for, without formatting the key (every call comes here:
     * the key's formatting cost more host time than the enqueue itself). */
    clscan__scan_config fp;
    clscan__config_fingerprint(cfg, &fp);
    if (!*known_hash) *known_hash = program_hash(&fp, cfg);
    const uint64_t hash = *known_hash;
    pthread_mutex_lock(&ctx->lock);
    clscan__program *found = program_find(ctx, hash, &fp, cfg);
    pthread_mutex_unlock(&ctx->lock);
    if (found) {
        *out = found;
        return CLSCAN_SUCCESS;
    }
    /* The key: the #define block, then a compaction's predicate and a general scan's
     * prelude, each after a newline. */
    char defines[2048];
    size_t len = clscan__kernel_defines(cfg, &ctx->target.profile, CLSCAN__DEFINES_BLOCK, defines, sizeof defines);
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
    clscan_status s = program_build(ctx, cfg, &fp, hash, key, out);
    free(key);
    return s;
}

/* Whether the calls take type and op on this device: clscan__check_type_op's
 * conditions, asked without recording an error. */
static int warm_supported(const clscan__profile *p, clscan_type type, clscan_op op)
{
    return !(clscan__type_is_float(type) && op >= CLSCAN_OP_AND) &&
           !(type == CLSCAN_DOUBLE && !p->fp64);
}

/* Gets (builds, or loads from the disk cache) the program a scan of type and op by
 * device scan algo uses. */
static clscan_status warm_scan(clscan_context *ctx, clscan__scan_algo algo, clscan_type type,
                               clscan_op op)
{
    clscan__scan_config cfg;
    clscan__program *prog;
    clscan_status s = clscan__scan_config_choose(ctx, &ctx->target.profile, algo, type, op, &cfg);
    if (s == CLSCAN_SUCCESS && (s = clscan__program_get(ctx, &cfg, &prog)) == CLSCAN_SUCCESS)
        clscan__program_put(ctx, prog);
    return s;
}

/* The same for a compaction of elements of `type` by `mode` with counts of count_type. */
static clscan_status warm_select(clscan_context *ctx, clscan__select_mode mode, clscan_type type,
                                 clscan_type count_type)
{
    clscan__scan_config cfg;
    clscan__program *prog;
    clscan_status s = clscan__select_config_choose(ctx, &ctx->target.profile, ctx->target.profile.scan_algo,
                                                   mode, type, count_type, NULL, &cfg);
    if (s == CLSCAN_SUCCESS && (s = clscan__program_get(ctx, &cfg, &prog)) == CLSCAN_SUCCESS)
        clscan__program_put(ctx, prog);
    return s;
}

clscan_status clscan_context_warm(clscan_context *ctx)
{
    clscan_status s = clscan__check_context(ctx);
    if (s != CLSCAN_SUCCESS) return s;
    const clscan__profile *p = &ctx->target.profile;
    /* Scans (scan.c): the profile's device scan, and the multi-level one that calls in
     * place take; one program serves exclusive and inclusive calls at every n. */
    const clscan__scan_algo algos[2] = {p->scan_algo, CLSCAN__SCAN_MULTI_LEVEL};
    const int nalgos = p->scan_algo == CLSCAN__SCAN_MULTI_LEVEL ? 1 : 2;
    for (int t = 0; t < CLSCAN_TYPE_COUNT && s == CLSCAN_SUCCESS; ++t)
        for (int o = 0; o < CLSCAN_OP_COUNT && s == CLSCAN_SUCCESS; ++o)
            for (int a = 0; a < nalgos && s == CLSCAN_SUCCESS &&
                            warm_supported(p, (clscan_type)t, (clscan_op)o);
                 ++a)
                s = warm_scan(ctx, algos[a], (clscan_type)t, (clscan_op)o);
    /* Compactions without a predicate (select.c): the profile's device scan for every
     * call (in place, the input is copied first); counts of 32 bits, and of 64 bits
     * (from n = 2^32 on) where one buffer can hold 2^32 elements of the type. */
    const clscan__select_mode modes[2] = {CLSCAN__SELECT_FLAGGED, CLSCAN__SELECT_UNIQUE};
    for (int t = 0; t < CLSCAN_TYPE_COUNT && s == CLSCAN_SUCCESS; ++t) {
        if (!warm_supported(p, (clscan_type)t, CLSCAN_OP_ADD)) continue;
        const int wide = p->max_alloc / clscan_type_size((clscan_type)t) > 0xffffffffull;
        for (int m = 0; m < 2 && s == CLSCAN_SUCCESS; ++m)
            for (int c = 0; c < 1 + wide && s == CLSCAN_SUCCESS; ++c)
                s = warm_select(ctx, modes[m], (clscan_type)t, c ? CLSCAN_UINT64 : CLSCAN_UINT32);
    }
    return s;
}

/* The options text for users' kernels of shape c (the multi-level scan's tile functions). */
static clscan_status kernel_options_write(clscan_context *ctx, clscan__scan_config c,
                                          char *options, size_t options_size,
                                          size_t *options_length, size_t *work_group_size,
                                          size_t *tile_size)
{
    /* The user's kernels get the tile functions; the look-back stays the library's. */
    c.algo = CLSCAN__SCAN_MULTI_LEVEL;
    c.lb_atomics = CLSCAN__LB_CL12;
    c.lb_word_bits = 0;
    c.lb_test = CLSCAN__LB_TEST_OFF;
    c.lb_walk = CLSCAN__LB_WALK_AUTO;
    c.ptx_maxnreg = 0; /* (the library's own builds only) */
    const char *dir = ctx->kernel_include_dir;
    if (!dir || !*dir) dir = CLSCAN_INSTALL_INCLUDEDIR;
    const char *quote = strpbrk(dir, " \t") ? "\"" : "";
    char head[4200];
    int hl = snprintf(head, sizeof head, "-I %s%s%s ", quote, dir, quote);
    CLSCAN__RETURN_IF(ctx, hl < 0 || (size_t)hl >= sizeof head, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "CLSCAN_KERNEL_INCLUDE_DIR is longer than %zu bytes", sizeof head - 16);
    CLSCAN__RETURN_IF(ctx, strchr(dir, '"') != NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "the kernel include directory \"%s\" contains a double quote", dir);
    char defs[1024];
    size_t dl = clscan__kernel_defines(&c, &ctx->target.profile, CLSCAN__DEFINES_OPTIONS, defs, sizeof defs);
    CLSCAN__RETURN_IF(ctx, dl == 0 || dl >= sizeof defs, CLSCAN_ERROR_OUT_OF_RESOURCES,
                     "kernel options too long");
    const size_t need = (size_t)hl + dl;
    if (options_length) *options_length = need;
    if (work_group_size) *work_group_size = c.wg_size;
    if (tile_size) *tile_size = c.wg_size * c.items;
    if (options_size) snprintf(options, options_size, "%s%s", head, defs);
    CLSCAN__RETURN_IF(ctx, options_size > 0 && options_size <= need, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "options buffer of %zu bytes is too small: %zu needed", options_size,
                     need + 1);
    return CLSCAN_SUCCESS;
}

/* The arguments both clscan_kernel_build_options calls check first. */
static clscan_status check_options_args(clscan_context *ctx, clscan_type type, clscan_op op,
                                        const char *options, size_t options_size)
{
    clscan_status s = clscan__check_context(ctx);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, options == NULL && options_size > 0, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "options is NULL but options_size is %zu", options_size);
    return clscan__check_type_op(ctx, type, op);
}

clscan_status clscan_kernel_build_options(clscan_context *ctx, clscan_type type, clscan_op op,
                                          size_t max_work_group_size, char *options,
                                          size_t options_size, size_t *options_length,
                                          size_t *work_group_size, size_t *tile_size)
{
    clscan_status s = check_options_args(ctx, type, op, options, options_size);
    if (s != CLSCAN_SUCCESS) return s;
    clscan__scan_config cfg;
    clscan__program *prog;
    if ((s = clscan__scan_config_choose(ctx, &ctx->target.profile, ctx->target.profile.scan_algo, type, op,
                                           &cfg)) != CLSCAN_SUCCESS ||
        (s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS)
        return s;
    clscan__scan_config c = prog->config;
    clscan__program_put(ctx, prog);
    if (max_work_group_size && c.wg_size > max_work_group_size) {
        while (c.wg_size > max_work_group_size && c.wg_size > 1) c.wg_size >>= 1;
        clscan__config_subgroups_fit(&c);
    }
    return kernel_options_write(ctx, c, options, options_size, options_length, work_group_size,
                                tile_size);
}

clscan_status clscan_kernel_build_options_wg(clscan_context *ctx, clscan_type type, clscan_op op,
                                             size_t work_group_size, char *options,
                                             size_t options_size, size_t *options_length,
                                             size_t *tile_size)
{
    clscan_status s = check_options_args(ctx, type, op, options, options_size);
    if (s != CLSCAN_SUCCESS) return s;
    const clscan__profile *dp = &ctx->target.profile;
    const size_t wg = work_group_size;
    CLSCAN__RETURN_IF(ctx, wg == 0 || (wg & (wg - 1)) != 0, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "work_group_size %zu is not a power of two", wg);
    CLSCAN__RETURN_IF(ctx, wg > dp->max_wg_size, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "work_group_size %zu exceeds the device's maximum work-group size %zu", wg,
                     dp->max_wg_size);
    /* The profile's multi-level shape with this work-group: the tile keeps about the
     * profile's elements (fewer items a work-item for a wider group), then shrinks as the
     * library's own shapes do to fit local memory and the loop budget. */
    clscan__profile p = *dp;
    if (wg > p.wg_size) {
        p.items_per_thread = (cl_uint)(p.items_per_thread * p.wg_size / wg);
        p.items_per_thread_8 = (cl_uint)(p.items_per_thread_8 * p.wg_size / wg);
        if (p.items_per_thread == 0) p.items_per_thread = 1;
        if (p.items_per_thread_8 == 0) p.items_per_thread_8 = 1;
    }
    p.wg_size = wg;
    clscan__scan_config cfg;
    s = clscan__scan_config_choose(ctx, &p, CLSCAN__SCAN_MULTI_LEVEL, type, op, &cfg);
    if (s == CLSCAN_ERROR_OUT_OF_RESOURCES || (s == CLSCAN_SUCCESS && cfg.wg_size != wg))
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ARGUMENT,
                            "work_group_size %zu: a work-group scan of %s needs more than the "
                            "device's %llu bytes of local memory", wg, clscan_type_name(type),
                            (unsigned long long)dp->local_mem_size);
    if (s != CLSCAN_SUCCESS) return s;
    /* Built as the library's own program of that shape, so that the shape (sub-groups
     * included) is one that compiled and runs with this work-group on the device. */
    clscan__program *prog;
    if ((s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS) return s;
    clscan__scan_config c = prog->config;
    clscan__program_put(ctx, prog);
    CLSCAN__RETURN_IF(ctx, c.wg_size != wg, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "work_group_size %zu: the scan kernels built for this device run with "
                     "at most %zu work-items a group", wg, c.wg_size);
    return kernel_options_write(ctx, c, options, options_size, options_length, NULL, tile_size);
}
