/* registry.c - the list of live contexts: every call checks its context against it, so
 * that a released context (or a pointer that never was one) is refused instead of read,
 * and each context gets a process-unique id that ties last errors to it. */
/* SPDX-License-Identifier: MIT */
#include "base/base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct live_entry {
    const clscan_context *ctx;
    unsigned long id;
} live_entry;

static atomic_ulong next_context_id = 1;
/* A read lock per call. */
static pthread_rwlock_t live_lock = PTHREAD_RWLOCK_INITIALIZER;
static live_entry *live;
static size_t live_count, live_cap;

unsigned long clscan__context_track(const clscan_context *ctx)
{
    unsigned long id = 0;
    pthread_rwlock_wrlock(&live_lock);
    if (live_count == live_cap) {
        size_t cap = live_cap ? 2 * live_cap : 16;
        live_entry *grown = realloc(live, cap * sizeof *grown);
        if (grown) {
            live = grown;
            live_cap = cap;
        }
    }
    if (live_count < live_cap) {
        id = atomic_fetch_add(&next_context_id, 1);
        live[live_count].ctx = ctx;
        live[live_count++].id = id;
    }
    pthread_rwlock_unlock(&live_lock);
    return id;
}

/* Removes ctx; returns 0 if it was not live. The table is freed once empty, so a
 * program that releases every context leaves nothing behind. */
bool clscan__context_untrack(const clscan_context *ctx)
{
    int found = 0;
    pthread_rwlock_wrlock(&live_lock);
    for (size_t i = 0; i < live_count; ++i)
        if (live[i].ctx == ctx) {
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

unsigned long clscan__context_id(const clscan_context *ctx)
{
    unsigned long id = 0;
    if (!ctx) return 0;
    pthread_rwlock_rdlock(&live_lock);
    for (size_t i = 0; i < live_count && !id; ++i)
        if (live[i].ctx == ctx) id = live[i].id;
    pthread_rwlock_unlock(&live_lock);
    return id;
}

bool clscan__context_live(const clscan_context *ctx) { return clscan__context_id(ctx) != 0; }

clscan_status clscan__check_context(const clscan_context *ctx)
{
    CLSCAN__RETURN_IF(NULL, ctx == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "context is NULL");
    CLSCAN__RETURN_IF(NULL, !clscan__context_live(ctx), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "context %p is not a live clscan context (released, or not made by "
                     "clscan_context_create)",
                     (const void *)ctx);
    return CLSCAN_SUCCESS;
}
