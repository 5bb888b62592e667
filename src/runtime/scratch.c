/* scratch.c - device scratch buffers owned by the context. A slot goes to one call at
 * a time and remembers its last use: the event of its last command, or, for commands
 * enqueued without events on an in-order queue, that queue alone. A later call takes it
 * without waiting when that use has completed or was on the same in-order queue (the
 * queue orders the two uses); otherwise it takes another slot, growing the pool, and
 * only past CLSCAN_SCRATCH_SLOTS slots does it order itself after an earlier use through
 * its wait list (for a use without an event, a marker enqueued on its queue then).
 * Nothing here blocks on the device. */
/* SPDX-License-Identifier: MIT */
#include "runtime/runtime.h"

#include <stdlib.h>

#define CLSCAN_SCRATCH_SLOTS 16

static void forget_use(clscan__scratch *s)
{
    if (s->last_use) clReleaseEvent(s->last_use);
    if (s->last_queue) clReleaseCommandQueue(s->last_queue);
    s->last_use = NULL;
    s->last_queue = NULL;
}

static int use_completed(clscan__scratch *s)
{
    if (!s->last_use) return s->last_queue == NULL; /* (a use without an event: unknown) */
    cl_int status;
    if (clGetEventInfo(s->last_use, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                       NULL) != CL_SUCCESS)
        return 0;
    /* A negative status is an error: the command is over, the buffer free again, but
     * its look-back state is unknown (a tile counter left off zero). */
    if (status < 0) s->lb_clean = s->zeros_clean = 0;
    return status == CL_COMPLETE || status < 0;
}

/* Makes sure the slot's buffer holds `size` bytes. */
static clscan_status fit(clscan_context *ctx, clscan__scratch *s, size_t size)
{
    if (s->buffer && s->size >= size) return CLSCAN_SUCCESS;
    /* The runtime keeps the old buffer alive until commands using it finish. */
    if (s->buffer) clReleaseMemObject(s->buffer);
    s->buffer = NULL;
    s->size = 0;
    size_t grown = size < 4096 ? 4096 : size;
    s->lb_clean = 0; /* a new buffer holds anything */
    clscan_status st = clscan__create_buffer(ctx, grown, "a scratch buffer", &s->buffer);
    if (st != CLSCAN_SUCCESS) return st;
    s->size = grown;
    return CLSCAN_SUCCESS;
}

clscan_status clscan__scratch_acquire(clscan_context *ctx, cl_command_queue queue,
                                      int queue_in_order, size_t size, clscan__scratch **out,
                                      cl_event *wait_for)
{
    *out = NULL;
    *wait_for = NULL;
    pthread_mutex_lock(&ctx->lock);
    clscan__scratch *pick = NULL, *oldest = NULL;
    for (clscan__scratch *s = ctx->scratch; s && !pick; s = s->next) {
        if (s->busy) continue;
        if (use_completed(s) || (queue_in_order && s->last_queue == queue)) pick = s;
        else oldest = s; /* list is newest first, so the last seen is the oldest */
    }
    if (!pick && ctx->scratch_count < CLSCAN_SCRATCH_SLOTS) {
        pick = calloc(1, sizeof *pick);
        if (!pick) {
            pthread_mutex_unlock(&ctx->lock);
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
        }
        pick->next = ctx->scratch;
        ctx->scratch = pick;
        ctx->scratch_count++;
    }
    /* A wait on another queue's command is valid only once that queue was flushed (the
     * OpenCL spec; rusticl and Intel's CPU runtime hang without it): the queue that
     * last used the slot is flushed below, outside the lock. */
    cl_command_queue flush_queue = NULL;
    if (!pick && oldest) {
        pick = oldest;
        if (!oldest->last_use) { /* commands without events: a marker after them */
            const cl_int err =
                clEnqueueMarkerWithWaitList(oldest->last_queue, 0, NULL, &oldest->last_use);
            if (err != CL_SUCCESS) {
                oldest->last_use = NULL;
                pthread_mutex_unlock(&ctx->lock);
                return clscan__fail_cl(ctx, err, "clEnqueueMarkerWithWaitList (the end of a "
                                                 "scratch slot's last use)");
            }
        }
        *wait_for = oldest->last_use;
        clRetainEvent(*wait_for);
        if (oldest->last_queue && oldest->last_queue != queue) {
            flush_queue = oldest->last_queue;
            clRetainCommandQueue(flush_queue);
        }
    }
    if (!pick) { /* every slot is in the middle of an enqueue on another thread */
        pthread_mutex_unlock(&ctx->lock);
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                            "all %d scratch slots are in use by other threads",
                            CLSCAN_SCRATCH_SLOTS);
    }
    pick->busy = 1;
    pthread_mutex_unlock(&ctx->lock);
    if (flush_queue) {
        const cl_int err = clFlush(flush_queue);
        clReleaseCommandQueue(flush_queue);
        if (err != CL_SUCCESS) {
            clReleaseEvent(*wait_for);
            *wait_for = NULL;
            pthread_mutex_lock(&ctx->lock);
            pick->busy = 0;
            pthread_mutex_unlock(&ctx->lock);
            return clscan__fail_cl(ctx, err, "clFlush (the queue that last used a scratch slot)");
        }
    }

    clscan_status st = fit(ctx, pick, size);
    if (st != CLSCAN_SUCCESS) {
        if (*wait_for) clReleaseEvent(*wait_for);
        *wait_for = NULL;
        pthread_mutex_lock(&ctx->lock);
        pick->busy = 0;
        pthread_mutex_unlock(&ctx->lock);
        return st;
    }
    *out = pick;
    return CLSCAN_SUCCESS;
}

void clscan__scratch_release(clscan_context *ctx, clscan__scratch *slot,
                             cl_command_queue queue, cl_event last_use, bool ordered)
{
    pthread_mutex_lock(&ctx->lock);
    if (last_use || ordered) { /* else the slot keeps its previous use, still the latest */
        if (slot->last_use) clReleaseEvent(slot->last_use);
        slot->last_use = NULL;
        if (slot->last_queue != queue) { /* (retaining a queue cost the H200's host 0.7 us) */
            if (slot->last_queue) clReleaseCommandQueue(slot->last_queue);
            clRetainCommandQueue(queue);
            slot->last_queue = queue;
        }
        if (last_use) clRetainEvent(last_use);
        slot->last_use = last_use;
    }
    slot->busy = 0;
    pthread_mutex_unlock(&ctx->lock);
}

clscan_status clscan__scratch_zeros(clscan_context *ctx, clscan__scratch *slot, size_t size)
{
    if (slot->zeros && slot->zeros_size >= size) return CLSCAN_SUCCESS;
    if (slot->zeros) clReleaseMemObject(slot->zeros); /* (kept alive by its commands) */
    slot->zeros = NULL;
    slot->zeros_size = 0;
    slot->zeros_clean = 0;
    clscan_status st = clscan__create_buffer(ctx, size, "a scratch buffer of zeros", &slot->zeros);
    if (st == CLSCAN_SUCCESS) slot->zeros_size = size;
    return st;
}

void clscan__scratch_free(clscan__scratch *list)
{
    while (list) {
        clscan__scratch *next = list->next;
        forget_use(list);
        if (list->buffer) clReleaseMemObject(list->buffer);
        if (list->zeros) clReleaseMemObject(list->zeros);
        free(list);
        list = next;
    }
}
