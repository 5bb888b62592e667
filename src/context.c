/* context.c - clscan_context: creation (device probe), description and release. */
#include "clscan_internal.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_ulong next_context_id = 1;

/* Every live context, so that a call on a released one (or on a pointer that never was
 * one) is refused instead of reading freed memory. A read lock per call. */
static pthread_rwlock_t live_lock = PTHREAD_RWLOCK_INITIALIZER;
static const clscan_context **live;
static size_t live_count, live_cap;

int clscan__context_track(const clscan_context *ctx)
{
    int ok = 1;
    pthread_rwlock_wrlock(&live_lock);
    if (live_count == live_cap) {
        size_t cap = live_cap ? 2 * live_cap : 16;
        const clscan_context **grown = realloc(live, cap * sizeof *grown);
        if (grown) {
            live = grown;
            live_cap = cap;
        } else {
            ok = 0;
        }
    }
    if (ok) live[live_count++] = ctx;
    pthread_rwlock_unlock(&live_lock);
    return ok;
}

/* Removes ctx; returns 0 if it was not live. The table is freed once empty, so a
 * program that releases every context leaves nothing behind. */
int clscan__context_untrack(const clscan_context *ctx)
{
    int found = 0;
    pthread_rwlock_wrlock(&live_lock);
    for (size_t i = 0; i < live_count; ++i)
        if (live[i] == ctx) {
            live[i] = live[--live_count];
            found = 1;
            break;
        }
    if (live_count == 0) {
        free(live);
        live = NULL;
        live_cap = 0;
    }
    pthread_rwlock_unlock(&live_lock);
    return found;
}

int clscan__context_live(const clscan_context *ctx)
{
    int found = 0;
    if (!ctx) return 0;
    pthread_rwlock_rdlock(&live_lock);
    for (size_t i = 0; i < live_count && !found; ++i) found = live[i] == ctx;
    pthread_rwlock_unlock(&live_lock);
    return found;
}

clscan_status clscan__check_context(const clscan_context *ctx)
{
    CLSCAN_RETURN_IF(NULL, ctx == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "context is NULL");
    CLSCAN_RETURN_IF(NULL, !clscan__context_live(ctx), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "context %p is not a live clscan context (released, or not made by "
                     "clscan_context_create)",
                     (const void *)ctx);
    return CLSCAN_SUCCESS;
}

clscan_status clscan_context_create(cl_context cl_ctx, cl_device_id device,
                                    clscan_context **out)
{
    CLSCAN_RETURN_IF(NULL, out == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    CLSCAN_RETURN_IF(NULL, cl_ctx == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "cl_context is NULL");
    CLSCAN_RETURN_IF(NULL, device == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "device is NULL");

    /* The device must be one of the context's. */
    size_t bytes = 0;
    CLSCAN_FORWARD_CL(NULL, clGetContextInfo(cl_ctx, CL_CONTEXT_DEVICES, 0, NULL, &bytes),
                      "clGetContextInfo(CL_CONTEXT_DEVICES)");
    cl_device_id *devices = malloc(bytes ? bytes : 1);
    CLSCAN_RETURN_IF(NULL, !devices, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
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
    CLSCAN_RETURN_IF(NULL, !found, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "device is not one of the cl_context's devices");

    clscan_context *ctx = calloc(1, sizeof *ctx);
    CLSCAN_RETURN_IF(NULL, !ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx);
        return clscan__fail(NULL, CLSCAN_ERROR_OUT_OF_RESOURCES, "pthread_mutex_init failed");
    }
    ctx->id = atomic_fetch_add(&next_context_id, 1);
    ctx->cl_ctx = cl_ctx;
    ctx->device = device;
    /* Errors during the probe are reported against no context: the caller never sees
     * this one. */
    clscan_status s = clscan__profile_probe(NULL, cl_ctx, device, NULL, NULL, &ctx->profile);
    if (s != CLSCAN_SUCCESS) {
        pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return s;
    }
    if (!clscan__context_track(ctx)) {
        clscan__profile_free(&ctx->profile);
        pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return clscan__fail(NULL, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    }
    clRetainContext(cl_ctx);
    clRetainDevice(device);
    *out = ctx;
    return CLSCAN_SUCCESS;
}

void clscan_context_release(clscan_context *ctx)
{
    if (!ctx || !clscan__context_untrack(ctx)) return; /* NULL, or released already */
    clscan__programs_free(ctx->programs);
    clscan__scratch_free(ctx->scratch);
    clscan__profile_free(&ctx->profile);
    pthread_mutex_destroy(&ctx->lock);
    clReleaseDevice(ctx->device);
    clReleaseContext(ctx->cl_ctx);
    free(ctx);
}

size_t clscan_context_describe(const clscan_context *ctx, char *buf, size_t size)
{
    if (!buf) size = 0;
    if (!clscan__context_live(ctx)) {
        if (size) buf[0] = '\0';
        return 0;
    }
    return clscan__profile_describe(&ctx->profile, buf, size);
}
