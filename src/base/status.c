/* status.c - status codes and their names, and the per-thread "last error" text that
 * clscan_context_last_error returns. */
/* SPDX-License-Identifier: MIT */
#include "base/base.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *clscan_status_string(clscan_status s)
{
    switch (s) {
#define NAME(code) \
    case code: return #code
        NAME(CLSCAN_SUCCESS);
        NAME(CLSCAN_ERROR_INVALID_ARGUMENT);
        NAME(CLSCAN_ERROR_UNSUPPORTED);
        NAME(CLSCAN_ERROR_BUILD_FAILED);
        NAME(CLSCAN_ERROR_OUT_OF_RESOURCES);
        NAME(CLSCAN_ERROR_INVALID_ENVIRONMENT);
        /* OpenCL 1.2 error codes (CL_SUCCESS is CLSCAN_SUCCESS). */
        NAME(CL_DEVICE_NOT_FOUND);
        NAME(CL_DEVICE_NOT_AVAILABLE);
        NAME(CL_COMPILER_NOT_AVAILABLE);
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE);
        NAME(CL_OUT_OF_RESOURCES);
        NAME(CL_OUT_OF_HOST_MEMORY);
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE);
        NAME(CL_MEM_COPY_OVERLAP);
        NAME(CL_IMAGE_FORMAT_MISMATCH);
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED);
        NAME(CL_BUILD_PROGRAM_FAILURE);
        NAME(CL_MAP_FAILURE);
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        NAME(CL_COMPILE_PROGRAM_FAILURE);
        NAME(CL_LINKER_NOT_AVAILABLE);
        NAME(CL_LINK_PROGRAM_FAILURE);
        NAME(CL_DEVICE_PARTITION_FAILED);
        NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        NAME(CL_INVALID_VALUE);
        NAME(CL_INVALID_DEVICE_TYPE);
        NAME(CL_INVALID_PLATFORM);
        NAME(CL_INVALID_DEVICE);
        NAME(CL_INVALID_CONTEXT);
        NAME(CL_INVALID_QUEUE_PROPERTIES);
        NAME(CL_INVALID_COMMAND_QUEUE);
        NAME(CL_INVALID_HOST_PTR);
        NAME(CL_INVALID_MEM_OBJECT);
        NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        NAME(CL_INVALID_IMAGE_SIZE);
        NAME(CL_INVALID_SAMPLER);
        NAME(CL_INVALID_BINARY);
        NAME(CL_INVALID_BUILD_OPTIONS);
        NAME(CL_INVALID_PROGRAM);
        NAME(CL_INVALID_PROGRAM_EXECUTABLE);
        NAME(CL_INVALID_KERNEL_NAME);
        NAME(CL_INVALID_KERNEL_DEFINITION);
        NAME(CL_INVALID_KERNEL);
        NAME(CL_INVALID_ARG_INDEX);
        NAME(CL_INVALID_ARG_VALUE);
        NAME(CL_INVALID_ARG_SIZE);
        NAME(CL_INVALID_KERNEL_ARGS);
        NAME(CL_INVALID_WORK_DIMENSION);
        NAME(CL_INVALID_WORK_GROUP_SIZE);
        NAME(CL_INVALID_WORK_ITEM_SIZE);
        NAME(CL_INVALID_GLOBAL_OFFSET);
        NAME(CL_INVALID_EVENT_WAIT_LIST);
        NAME(CL_INVALID_EVENT);
        NAME(CL_INVALID_OPERATION);
        NAME(CL_INVALID_GL_OBJECT);
        NAME(CL_INVALID_BUFFER_SIZE);
        NAME(CL_INVALID_MIP_LEVEL);
        NAME(CL_INVALID_GLOBAL_WORK_SIZE);
        NAME(CL_INVALID_PROPERTY);
        NAME(CL_INVALID_IMAGE_DESCRIPTOR);
        NAME(CL_INVALID_COMPILER_OPTIONS);
        NAME(CL_INVALID_LINKER_OPTIONS);
        NAME(CL_INVALID_DEVICE_PARTITION_COUNT);
#undef NAME
    /* OpenCL 2.0+ codes, by value, since the 1.2 headers may lack their names. */
    case -70: return "CL_INVALID_PIPE_SIZE";
    case -71: return "CL_INVALID_DEVICE_QUEUE";
    case -72: return "CL_INVALID_SPEC_ID";
    case -73: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    default: return "unknown status";
    }
}

/* ------------------------------------------------------------------ last error -- */

/* One record per thread: which context it belongs to (0 for none) and the text. It is
 * freed by the thread-exit destructor of the key. */
typedef struct last_error {
    unsigned long ctx_id;
    char *text;
    size_t cap;
} last_error;

static pthread_key_t error_key;
static pthread_once_t error_once = PTHREAD_ONCE_INIT;
static int error_key_ok;

static void last_error_free(void *p)
{
    last_error *e = p;
    if (e) free(e->text);
    free(e);
}

static void error_key_init(void)
{
    error_key_ok = pthread_key_create(&error_key, last_error_free) == 0;
}

static last_error *thread_error(int create)
{
    pthread_once(&error_once, error_key_init);
    if (!error_key_ok) return NULL;
    last_error *e = pthread_getspecific(error_key);
    if (!e && create) {
        e = calloc(1, sizeof *e);
        if (e && pthread_setspecific(error_key, e) != 0) {
            free(e);
            e = NULL;
        }
    }
    return e;
}

/* Makes room for len + 1 bytes; on allocation failure keeps the old (smaller) buffer. */
static char *reserve(last_error *e, size_t len)
{
    if (len + 1 > e->cap) {
        char *t = realloc(e->text, len + 1);
        if (!t) return e->cap ? e->text : NULL;
        e->text = t;
        e->cap = len + 1;
    }
    return e->text;
}

static void set_text(const clscan_context *ctx, const char *prefix, const char *body)
{
    last_error *e = thread_error(1);
    if (!e) return;
    size_t lp = strlen(prefix), lb = body ? strlen(body) : 0;
    char *t = reserve(e, lp + lb);
    if (!t) return;
    size_t room = e->cap - 1;
    size_t np = lp < room ? lp : room;
    memcpy(t, prefix, np);
    size_t nb = lb < room - np ? lb : room - np;
    if (nb) memcpy(t + np, body, nb);
    t[np + nb] = '\0';
    e->ctx_id = clscan__context_id(ctx);
}

clscan_status clscan__fail(const clscan_context *ctx, clscan_status status, const char *fmt,
                           ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_text(ctx, msg, NULL);
    return status;
}

clscan_status clscan__fail_cl(const clscan_context *ctx, cl_int err, const char *what)
{
    return clscan__fail(ctx, err, "%s failed: %s (%d)", what, clscan_status_string(err),
                        (int)err);
}

clscan_status clscan__fail_text(const clscan_context *ctx, clscan_status status,
                                const char *prefix, const char *text)
{
    set_text(ctx, prefix, text);
    return status;
}

const char *clscan_context_last_error(const clscan_context *ctx)
{
    last_error *e = thread_error(0);
    if (!e || !e->text) return "";
    /* A pointer that is not a live context reads as NULL (its failures were recorded
     * against no context). */
    const unsigned long id = clscan__context_id(ctx);
    if (id && e->ctx_id != id) return "";
    return e->text;
}
