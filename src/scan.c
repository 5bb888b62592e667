/* scan.c - clscan_exclusive_scan and clscan_inclusive_scan: argument checks, then the
 * dispatch: the single-pass scan (one kernel) or the multi-level reduce-then-scan (one
 * kernel for small n, three otherwise), as the device profile chose. */
#include "clscan_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ tracing -- */

static _Thread_local cl_event *trace_buf;
static _Thread_local size_t trace_cap;
static _Thread_local size_t *trace_count;

void clscan__trace_events(cl_event *trace, size_t cap, size_t *count)
{
    trace_buf = trace;
    trace_cap = cap;
    trace_count = count;
    if (count) *count = 0;
}

static _Thread_local cl_mem lookback_stats;

void clscan__lookback_stats(cl_mem stats) { lookback_stats = stats; }

static void trace(cl_event e)
{
    if (trace_buf && trace_count && *trace_count < trace_cap && e) {
        clRetainEvent(e);
        trace_buf[(*trace_count)++] = e;
    }
}

/* --------------------------------------------------------------- validation -- */

/* Checks that `mem` is a buffer of ctx holding elements [offset, offset + n). */
static clscan_status check_range(const clscan_context *ctx, cl_mem mem, const char *name,
                                 size_t offset, size_t n, size_t elem)
{
    CLSCAN_RETURN_IF(ctx, mem == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "%s is NULL", name);
    size_t bytes = 0;
    cl_context owner = NULL;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    CLSCAN_RETURN_IF(ctx, err != CL_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s is not a valid buffer (%s)", name, clscan_status_string(err));
    CLSCAN_RETURN_IF(ctx, owner != ctx->cl_ctx, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s belongs to another cl_context than the clscan context", name);
    CLSCAN_RETURN_IF(ctx, offset > SIZE_MAX - n || offset + n > SIZE_MAX / elem,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s: offset %zu + n %zu elements overflows a size_t byte count", name,
                     offset, n);
    CLSCAN_RETURN_IF(ctx, (offset + n) * elem > bytes, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "%s: elements [%zu, %zu) of %zu bytes each need %zu bytes, but the "
                     "buffer has %zu",
                     name, offset, offset + n, elem, (offset + n) * elem, bytes);
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_type_op(const clscan_context *ctx, clscan_type type, clscan_op op)
{
    CLSCAN_RETURN_IF(ctx, !clscan__type_valid((int)type), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "type %d is not a clscan_type", (int)type);
    CLSCAN_RETURN_IF(ctx, !clscan__op_valid((int)op), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "op %d is not a clscan_op", (int)op);
    CLSCAN_RETURN_IF(ctx, clscan__type_is_float(type) && op >= CLSCAN_OP_AND,
                     CLSCAN_ERROR_UNSUPPORTED, "operator %s is not defined on %s",
                     clscan_op_name(op), clscan_type_name(type));
    CLSCAN_RETURN_IF(ctx, type == CLSCAN_DOUBLE && !ctx->profile.fp64,
                     CLSCAN_ERROR_UNSUPPORTED, "device %s has no double precision (fp64)",
                     ctx->profile.device_name);
    return CLSCAN_SUCCESS;
}

/* Validates everything about a scan call except the buffers' ranges. */
static clscan_status check_call(const clscan_context *ctx, cl_command_queue queue,
                                clscan_type type, clscan_op op, cl_uint nwait,
                                const cl_event *wait, int *in_order)
{
    CLSCAN_RETURN_IF(NULL, ctx == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "context is NULL");
    CLSCAN_RETURN_IF(ctx, queue == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "queue is NULL");
    clscan_status s = clscan__check_type_op(ctx, type, op);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN_RETURN_IF(ctx, (nwait == 0) != (wait == NULL), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "event wait list: %u events but the list is %s", nwait,
                     wait ? "not NULL" : "NULL");

    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    CLSCAN_RETURN_IF(ctx, err != CL_SUCCESS, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "queue is not a valid command queue (%s)", clscan_status_string(err));
    CLSCAN_RETURN_IF(ctx, qctx != ctx->cl_ctx || qdev != ctx->device,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "queue belongs to another cl_context or device than the clscan context");
    *in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    return CLSCAN_SUCCESS;
}

/* ----------------------------------------------------------------- dispatch -- */

typedef struct launch {
    clscan_context *ctx;
    cl_command_queue queue;
    int in_order;
    cl_uint nwait;          /* wait list for the next kernel */
    const cl_event *wait;
    cl_event last;          /* event of the last kernel enqueued (owned) */
} launch;

static void launch_chain(launch *l, cl_event ev);

/* Enqueues kernel k on groups work-groups of wg_size; the new event becomes l->last and,
 * on an out-of-order queue, the next kernel's wait list. */
static clscan_status enqueue(launch *l, cl_kernel k, size_t groups, size_t wg_size,
                             const char *what)
{
    size_t global = groups * wg_size;
    cl_event ev = NULL;
    cl_int err = clEnqueueNDRangeKernel(l->queue, k, 1, NULL, &global, &wg_size, l->nwait,
                                        l->wait, &ev);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, what);
    launch_chain(l, ev);
    return CLSCAN_SUCCESS;
}

/* Makes ev (owned) the launch's last command, which the next one waits for. */
static void launch_chain(launch *l, cl_event ev)
{
    trace(ev);
    if (l->last) clReleaseEvent(l->last);
    l->last = ev;
    if (l->in_order) {
        l->nwait = 0;
        l->wait = NULL;
    } else {
        l->nwait = 1;
        l->wait = &l->last;
    }
}

#define SET_ARG(k, i, v)                                                            \
    do {                                                                            \
        if (err == CL_SUCCESS) err = clSetKernelArg((k), (i), sizeof(v), &(v));     \
    } while (0)

/* How one level of the multi-level scan splits n elements. */
typedef struct level_plan {
    cl_ulong groups;     /* work-groups; 1: a single kernel does the level */
    cl_ulong per_group;  /* tiles each work-group owns */
} level_plan;

/* Tiles of wg * items elements; a bounded number of work-groups, each taking a
 * contiguous run of tiles, so that the partials normally fit in one tile. Where the
 * device limits a work-item's loop iterations, more groups are used (each with fewer
 * tiles), and the partials are then scanned recursively. */
static level_plan plan_level(const clscan_profile *p, const clscan_scan_config *cfg,
                             cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    const cl_ulong ntiles = (n + tile - 1) / tile;
    cl_ulong max_groups = p->max_groups ? p->max_groups
                                        : (cl_ulong)p->compute_units * p->groups_per_cu;
    if (max_groups > tile) max_groups = tile;
    if (max_groups < 1) max_groups = 1;
    cl_ulong max_tiles = ~(cl_ulong)0; /* per work-group */
    if (p->max_loop_iterations) {
        cl_ulong per_tile = clscan__scan_tile_iterations(cfg);
        max_tiles = p->max_loop_iterations > 2 * per_tile
                        ? (p->max_loop_iterations - per_tile) / per_tile
                        : 1;
    }
    level_plan lp;
    if (ntiles <= p->single_group_tiles && ntiles <= max_tiles) lp.groups = 1;
    else lp.groups = ntiles < max_groups ? ntiles : max_groups;
    if ((ntiles + lp.groups - 1) / lp.groups > max_tiles)
        lp.groups = (ntiles + max_tiles - 1) / max_tiles;
    lp.per_group = (ntiles + lp.groups - 1) / lp.groups;
    lp.groups = (ntiles + lp.per_group - 1) / lp.per_group; /* no group without a tile */
    return lp;
}

/* Elements of scratch the partials of all levels below an n-element scan need. */
static cl_ulong scratch_elements(const clscan_profile *p, const clscan_scan_config *cfg,
                                 cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    cl_ulong total = 0;
    for (level_plan lp = plan_level(p, cfg, n); lp.groups > 1;
         lp = plan_level(p, cfg, lp.groups)) {
        total += lp.groups;
        if (lp.groups <= tile) break; /* one work-group scans them */
    }
    return total;
}

/* Enqueues the scan of src[src_off, +n) into dst[dst_off, +n), keeping this level's
 * partials at scratch[part_off, +groups) and deeper levels' after them. Kernel
 * arguments are set right before each enqueue, since a level may reuse a kernel. */
static clscan_status enqueue_level(launch *l, clscan_program *prog, cl_mem src,
                                   cl_ulong src_off, cl_mem dst, cl_ulong dst_off, cl_ulong n,
                                   cl_int inclusive, cl_mem scratch, cl_ulong part_off)
{
    const clscan_scan_config *cfg = &prog->config;
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    const level_plan lp = plan_level(&l->ctx->profile, cfg, n);
    const cl_int use_partials = lp.groups > 1;
    cl_int err = CL_SUCCESS;
    clscan_status s;
    if (use_partials) {
        SET_ARG(prog->k_reduce, 0, src);
        SET_ARG(prog->k_reduce, 1, src_off);
        SET_ARG(prog->k_reduce, 2, n);
        SET_ARG(prog->k_reduce, 3, lp.per_group);
        SET_ARG(prog->k_reduce, 4, scratch);
        SET_ARG(prog->k_reduce, 5, part_off);
        if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(reduce)");
        s = enqueue(l, prog->k_reduce, (size_t)lp.groups, cfg->wg_size, "enqueue reduce_tiles");
        if (s != CLSCAN_SUCCESS) return s;
        if (lp.groups <= tile) {
            const cl_uint count = (cl_uint)lp.groups;
            SET_ARG(prog->k_partials, 0, scratch);
            SET_ARG(prog->k_partials, 1, part_off);
            SET_ARG(prog->k_partials, 2, count);
            if (err != CL_SUCCESS)
                return clscan__fail_cl(l->ctx, err, "clSetKernelArg(scan_partials)");
            s = enqueue(l, prog->k_partials, 1, cfg->wg_size, "enqueue scan_partials");
        } else { /* too many partials for one work-group: scan them the same way */
            s = enqueue_level(l, prog, scratch, part_off, scratch, part_off, lp.groups, 0,
                              scratch, part_off + lp.groups);
        }
        if (s != CLSCAN_SUCCESS) return s;
    }
    SET_ARG(prog->k_scan, 0, src);
    SET_ARG(prog->k_scan, 1, src_off);
    SET_ARG(prog->k_scan, 2, dst);
    SET_ARG(prog->k_scan, 3, dst_off);
    SET_ARG(prog->k_scan, 4, n);
    SET_ARG(prog->k_scan, 5, lp.per_group);
    SET_ARG(prog->k_scan, 6, scratch);
    SET_ARG(prog->k_scan, 7, part_off);
    SET_ARG(prog->k_scan, 8, use_partials);
    SET_ARG(prog->k_scan, 9, inclusive);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(scan_tiles)");
    return enqueue(l, prog->k_scan, (size_t)lp.groups, cfg->wg_size, "enqueue scan_tiles");
}

/* ---------------------------------------------------------------- single-pass -- */

/* Bytes before the first status word (cl/clscan_lookback.cl: CLSCAN_LB_HEADER_WORDS);
 * the tile counter is its first cl_uint, the statistics its cl_uints 8 to 10. */
#define LB_HEADER_BYTES 128
#define LB_STATS_OFFSET 8

/* Whether n elements go through the single-pass kernel: its tile counter is 32 bits. */
static int single_pass_fits(const clscan_scan_config *cfg, cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    return cfg->algo == CLSCAN_SCAN_SINGLE_PASS && (n + tile - 1) / tile < 0xffffffffull;
}

/* Status bytes of an n-element single-pass scan: a header, then per tile the value
 * split over words that each carry a tag (2 bytes of word per value byte, either width). */
static size_t single_pass_bytes(const clscan_scan_config *cfg, cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    return LB_HEADER_BYTES + (size_t)((n + tile - 1) / tile) * 2 * clscan_type_size(cfg->type);
}

/* Enqueues the single-pass kernel over the slot's status words, first clearing them
 * where the slot's content is unknown or its epochs ran out (a kernel, ordered before
 * the scan like any command of the launch). */
static clscan_status enqueue_single(launch *l, clscan_program *prog, cl_mem src,
                                   cl_ulong src_off, cl_mem dst, cl_ulong dst_off, cl_ulong n,
                                   cl_int inclusive, clscan_scratch *slot)
{
    const clscan_scan_config *cfg = &prog->config;
    const cl_uint max_epoch = (1u << (cfg->lb_word_bits / 2 - 2)) - 1;
    cl_int err = CL_SUCCESS;
    if (!slot->lb_clean || slot->lb_word_bits != cfg->lb_word_bits ||
        slot->lb_epoch >= max_epoch) {
        /* A kernel of its own rather than a fill: see clscan_lb_clear. */
        const cl_ulong words = slot->size / 4;
        size_t groups = (size_t)((words + cfg->wg_size - 1) / cfg->wg_size);
        if (groups > 1024) groups = 1024;
        SET_ARG(prog->k_clear, 0, slot->buffer);
        SET_ARG(prog->k_clear, 1, words);
        if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(lb_clear)");
        clscan_status s = enqueue(l, prog->k_clear, groups, cfg->wg_size, "enqueue lb_clear");
        if (s != CLSCAN_SUCCESS) return s;
        slot->lb_clean = 1;
        slot->lb_word_bits = cfg->lb_word_bits;
        slot->lb_epoch = 0;
    }
    const cl_uint epoch = ++slot->lb_epoch;
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    const cl_uint spins = l->ctx->profile.lb_spins;
    cl_mem stats = lookback_stats ? lookback_stats : slot->buffer;
    const cl_uint stats_off = lookback_stats ? 0 : LB_STATS_OFFSET;
    cl_kernel k = prog->k_single;
    SET_ARG(k, 0, src);
    SET_ARG(k, 1, src_off);
    SET_ARG(k, 2, dst);
    SET_ARG(k, 3, dst_off);
    SET_ARG(k, 4, n);
    SET_ARG(k, 5, slot->buffer);
    SET_ARG(k, 6, epoch);
    SET_ARG(k, 7, spins);
    SET_ARG(k, 8, inclusive);
    SET_ARG(k, 9, stats);
    SET_ARG(k, 10, stats_off);
    if (err != CL_SUCCESS) return clscan__fail_cl(l->ctx, err, "clSetKernelArg(scan_single)");
    return enqueue(l, k, (size_t)((n + tile - 1) / tile), cfg->wg_size, "enqueue scan_single");
}

static clscan_status scan(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                          size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                          clscan_type type, clscan_op op, int inclusive, cl_uint nwait,
                          const cl_event *wait, cl_event *event)
{
    int in_order = 1;
    clscan_status s = check_call(ctx, queue, type, op, nwait, wait, &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    size_t elem = clscan_type_size(type);
    if ((s = check_range(ctx, src, "src", src_offset, n, elem)) != CLSCAN_SUCCESS) return s;
    if ((s = check_range(ctx, dst, "dst", dst_offset, n, elem)) != CLSCAN_SUCCESS) return s;
    CLSCAN_RETURN_IF(ctx,
                     src == dst && src_offset != dst_offset &&
                         (src_offset < dst_offset ? dst_offset - src_offset
                                                  : src_offset - dst_offset) < n,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "src and dst overlap without being the same range (offsets %zu and "
                     "%zu, n %zu); only exact in-place use is allowed",
                     src_offset, dst_offset, n);

    if (n == 0) {
        if (!event && nwait == 0) return CLSCAN_SUCCESS;
        cl_event marker = NULL;
        /* With a wait list and no event the marker still orders later commands on an
         * in-order queue after the wait list, as a kernel would have. */
        CLSCAN_FORWARD_CL(ctx, clEnqueueMarkerWithWaitList(queue, nwait, wait, &marker),
                          "clEnqueueMarkerWithWaitList");
        if (event) *event = marker;
        else clReleaseEvent(marker);
        return CLSCAN_SUCCESS;
    }

    /* In place, a look-back fallback would read tiles their owners are overwriting:
     * those calls take the multi-level scan (with its own tile shape), whose kernels
     * never share a range. */
    const int in_place = src == dst && src_offset == dst_offset;
    const clscan_scan_algo algo = in_place ? CLSCAN_SCAN_MULTI_LEVEL : ctx->profile.scan_algo;
    clscan_scan_config cfg;
    if ((s = clscan__scan_config_choose(ctx, &ctx->profile, algo, type, op, &cfg)) !=
        CLSCAN_SUCCESS)
        return s;
    clscan_program *prog;
    if ((s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS) return s;
    cfg = prog->config; /* the shape actually built */
    const int single = single_pass_fits(&cfg, n);
    const size_t scratch_bytes = single ? single_pass_bytes(&cfg, n)
                                        : (size_t)scratch_elements(&ctx->profile, &cfg, n) * elem;
    launch l = {ctx, queue, in_order, nwait, wait, NULL};
    clscan_scratch *scratch = NULL;
    cl_event scratch_wait = NULL;
    cl_event *first_wait = NULL;
    if (scratch_bytes) {
        s = clscan__scratch_acquire(ctx, queue, in_order, scratch_bytes, &scratch,
                                    &scratch_wait);
        if (s != CLSCAN_SUCCESS) return s;
        if (scratch_wait) { /* the first kernel also waits for the scratch's last use */
            first_wait = malloc((nwait + 1) * sizeof *first_wait);
            if (!first_wait) {
                clReleaseEvent(scratch_wait);
                clscan__scratch_release(ctx, scratch, queue, NULL);
                return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
            }
            if (nwait) memcpy(first_wait, wait, nwait * sizeof *wait);
            first_wait[nwait] = scratch_wait;
            l.nwait = nwait + 1;
            l.wait = first_wait;
        }
    }

    pthread_mutex_lock(&prog->lock);
    if (single) {
        s = enqueue_single(&l, prog, src, src_offset, dst, dst_offset, n, inclusive, scratch);
    } else {
        if (scratch) scratch->lb_clean = 0; /* partials overwrite status words */
        s = enqueue_level(&l, prog, src, src_offset, dst, dst_offset, n, inclusive,
                          scratch ? scratch->buffer : NULL, 0);
    }
    pthread_mutex_unlock(&prog->lock);

    if (scratch_wait) clReleaseEvent(scratch_wait);
    free(first_wait);
    if (scratch) clscan__scratch_release(ctx, scratch, queue, l.last);
    if (s == CLSCAN_SUCCESS && event) *event = l.last;
    else if (l.last) clReleaseEvent(l.last);
    return s;
}

clscan_status clscan_exclusive_scan(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                    size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                    clscan_type type, clscan_op op,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    return scan(ctx, queue, src, src_offset, dst, dst_offset, n, type, op, 0,
                num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_inclusive_scan(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                    size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                    clscan_type type, clscan_op op,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    return scan(ctx, queue, src, src_offset, dst, dst_offset, n, type, op, 1,
                num_events_in_wait_list, event_wait_list, event);
}
