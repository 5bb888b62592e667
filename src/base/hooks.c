/* hooks.c - process-wide and per-thread observation points for tools and tests: the
 * program-cache counters, the event trace and the look-back statistics buffer
 * (clscan_ext.h exports them), and the build-log hook (for tests only). */
/* SPDX-License-Identifier: MIT */
#include "base/base.h"

#include <stdatomic.h>

static atomic_ulong stats[CLSCAN__CACHE_STAT_COUNT];

static _Thread_local cl_event *trace_buf;
static _Thread_local size_t trace_cap;
static _Thread_local size_t *trace_count;

static _Thread_local cl_mem lookback_stats;

static _Atomic(clscan__build_log_fn) build_log_fn;
static void *_Atomic build_log_user;

void clscan__build_log_hook(clscan__build_log_fn fn, void *user)
{
    atomic_store(&build_log_user, user);
    atomic_store(&build_log_fn, fn);
}

clscan__build_log_fn clscan__build_log_hook_get(void **user)
{
    clscan__build_log_fn fn = atomic_load(&build_log_fn);
    *user = atomic_load(&build_log_user);
    return fn;
}

void clscan__lookback_stats(cl_mem stats_buffer) { lookback_stats = stats_buffer; }
cl_mem clscan__lookback_stats_buffer(void) { return lookback_stats; }

void clscan__cache_stat_add(clscan__cache_counter which)
{
    if ((unsigned)which < CLSCAN__CACHE_STAT_COUNT) atomic_fetch_add(&stats[which], 1);
}

unsigned long clscan__cache_stat(clscan__cache_counter which)
{
    return (unsigned)which < CLSCAN__CACHE_STAT_COUNT ? atomic_load(&stats[which]) : 0;
}

void clscan__trace_events(cl_event *trace, size_t cap, size_t *count)
{
    trace_buf = trace;
    trace_cap = cap;
    trace_count = count;
    if (count) *count = 0;
}

bool clscan__tracing(void) { return trace_buf != NULL; }

void clscan__trace_event(cl_event e)
{
    if (trace_buf && trace_count && *trace_count < trace_cap && e) {
        clRetainEvent(e);
        trace_buf[(*trace_count)++] = e;
    }
}
