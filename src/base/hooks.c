/* hooks.c - process-wide and per-thread observation points for tools and tests: the
 * program-cache counters, the event trace and the look-back statistics buffer
 * (clscan_ext.h exports them). */
#include "base/base.h"

#include <stdatomic.h>

static atomic_ulong stats[CLSCAN__CACHE_STAT_COUNT];

static _Thread_local cl_event *trace_buf;
static _Thread_local size_t trace_cap;
static _Thread_local size_t *trace_count;

static _Thread_local cl_mem lookback_stats;

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

void clscan__trace_event(cl_event e)
{
    if (trace_buf && trace_count && *trace_count < trace_cap && e) {
        clRetainEvent(e);
        trace_buf[(*trace_count)++] = e;
    }
}
