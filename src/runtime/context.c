/* context.c - clscan_context: creation from options over the environment (device
 * probe, disk cache settings, the bank probe through the disk cache, tuning), description
 * and release. */
/* SPDX-License-Identifier: MIT */
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

/* Checks that device is one of cl_ctx's devices. */
static clscan_status check_device(cl_context cl_ctx, cl_device_id device)
{
    CLSCAN__RETURN_IF(NULL, cl_ctx == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "cl_context is NULL");
    CLSCAN__RETURN_IF(NULL, device == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "device is NULL");

    /* The device must be one of the context's. */
    size_t bytes = 0;
    CLSCAN__FORWARD_CL(NULL, clGetContextInfo(cl_ctx, CL_CONTEXT_DEVICES, 0, NULL, &bytes),
                      "clGetContextInfo(CL_CONTEXT_DEVICES)");
    cl_device_id *devices = malloc(bytes ? bytes : 1);
    CLSCAN__RETURN_IF(NULL, !devices, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    cl_int err = clGetContextInfo(cl_ctx, CL_CONTEXT_DEVICES, bytes, devices, NULL);
    /* A sub-device also counts where the context lists one of its ancestors: PoCL 3.1
     * lists only the parent for a context made of sub-devices
     * (docs/IMPLEMENTATION-ISSUES.md); a device truly outside the context still fails,
     * at its first program build. */
    int found = 0;
    for (cl_device_id d = device; d && !found && err == CL_SUCCESS;) {
        for (size_t i = 0; i < bytes / sizeof *devices; ++i) found |= devices[i] == d;
        cl_device_id parent = NULL;
        if (clGetDeviceInfo(d, CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent, NULL) !=
            CL_SUCCESS)
            parent = NULL;
        d = parent;
    }
    free(devices);
    if (err != CL_SUCCESS) return clscan__fail_cl(NULL, err, "clGetContextInfo");
    CLSCAN__RETURN_IF(NULL, !found, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "device is not one of the cl_context's devices");
    return CLSCAN_SUCCESS;
}

/* Frees what context creation made; ctx is not tracked. */
static void context_free(clscan_context *ctx)
{
    clscan__programs_clear(ctx);
    clscan__memo_clear(ctx);
    clscan__scratch_free(ctx->scratch);
    clscan__profile_free(&ctx->target.profile);
    clscan__diskcache_settings_free(&ctx->target.cache);
    free(ctx->kernel_include_dir);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

/* The bank probe's results in the disk cache: device/banks.c reads and writes them
 * through a clscan__probe_store, since the device layer may not call up into kernels/. */
static bool probe_record_load(void *user, const char *key, unsigned char **payload,
                              size_t *length, const char **why)
{
    return clscan__diskcache_record_load(user, "probe", key, payload, length, why);
}
static void probe_record_save(void *user, const char *key, const unsigned char *payload,
                              size_t length)
{
    clscan__diskcache_record_store(user, "probe", key, payload, length);
}

/* Settles everything a context reads from its settings (options over the environment):
 * the device's facts, where its programs go on disk (read once here, so that they go to
 * one place all its life), the bank probe's result (from the disk cache where it holds
 * one for this device and driver, else measured and written there), the tuning, and the
 * kernel include directory. Errors are reported against no context: the caller never
 * sees this one. */
static clscan_status context_settle(clscan_context *ctx, clscan__getenv_fn getenv_fn, void *user)
{
    clscan__target *t = &ctx->target;
    clscan_status s = clscan__device_probe(NULL, t->device, &t->profile);
    if (s == CLSCAN_SUCCESS)
        s = clscan__diskcache_settings(NULL, &t->profile, getenv_fn, user, &t->cache);
    if (s != CLSCAN_SUCCESS) return s;
    const clscan__probe_store disk = {probe_record_load, probe_record_save, &t->cache};
    s = clscan__profile_complete(NULL, t->cl_ctx, t->device, getenv_fn, user,
                                 t->cache.disk_cache ? &disk : NULL, &t->profile);
    if (s != CLSCAN_SUCCESS) return s;
    const char *dir = getenv_fn("CLSCAN_KERNEL_INCLUDE_DIR", user);
    if (dir && *dir && !(ctx->kernel_include_dir = strdup(dir)))
        return clscan__fail(NULL, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    ctx->created_scan_algo = t->profile.scan_algo;
    ctx->created_scan_algo_source = t->profile.scan_algo_source;
    return CLSCAN_SUCCESS;
}

clscan_status clscan_context_create_with_options(cl_context cl_ctx, cl_device_id device,
                                                 const clscan_context_options *options,
                                                 clscan_context **out)
{
    CLSCAN__RETURN_IF(NULL, out == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    clscan__options_env env;
    clscan_status s = clscan__options_env_init(&env, options);
    if (s == CLSCAN_SUCCESS) s = check_device(cl_ctx, device);
    if (s != CLSCAN_SUCCESS) return s;

    clscan_context *ctx = calloc(1, sizeof *ctx);
    CLSCAN__RETURN_IF(NULL, !ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx);
        return clscan__fail(NULL, CLSCAN_ERROR_OUT_OF_RESOURCES, "pthread_mutex_init failed");
    }
    ctx->target.cl_ctx = cl_ctx;
    ctx->target.device = device;
    s = context_settle(ctx, clscan__options_getenv, &env);
    if (s == CLSCAN_SUCCESS && !clscan__context_track(ctx))
        s = clscan__fail(NULL, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    if (s != CLSCAN_SUCCESS) {
        context_free(ctx);
        return s;
    }
    clRetainContext(cl_ctx);
    clRetainDevice(device);
    *out = ctx;
    return CLSCAN_SUCCESS;
}

clscan_status clscan_context_create(cl_context cl_ctx, cl_device_id device,
                                    clscan_context **out)
{
    return clscan_context_create_with_options(cl_ctx, device, NULL, out);
}

void clscan_context_release(clscan_context *ctx)
{
    if (!ctx || !clscan__context_untrack(ctx)) return; /* NULL, or released already */
    cl_context cl_ctx = ctx->target.cl_ctx;
    cl_device_id device = ctx->target.device;
    context_free(ctx);
    clReleaseDevice(device);
    clReleaseContext(cl_ctx);
}

size_t clscan_context_describe(const clscan_context *ctx, char *buf, size_t size)
{
    if (!buf) size = 0;
    if (!clscan__context_live(ctx)) {
        if (size) buf[0] = '\0';
        return 0;
    }
    size_t len = clscan__profile_describe(&ctx->target.profile, buf, size);
    const clscan__diskcache_config *c = &ctx->target.cache;
    if (c->disk_cache)
        clscan__append(buf, size, &len, "disk cache:    on, %s (%s)\n", c->cache_dir,
                       c->cache_source);
    else
        clscan__append(buf, size, &len, "disk cache:    %s\n",
                       c->cache_source ? c->cache_source : "off");
    return len;
}
