/* parts.c - clscan_scan_parts: one range whose parts lie on several devices of one
 * cl_context. Every part is reduced on its own device, the totals are scanned on part 0's
 * device, and every part is scanned from its combined carry-in, all through
 * clscan_scan_carry, ordered by events across the queues; segmented scans chain the parts
 * instead (a part's total does not say whether a segment started in it). */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <stdlib.h>
#include <string.h>

/* Checks what clscan_scan_carry cannot: the list, one cl_context, keys. */
static clscan_status check_parts(const clscan_scan_desc *desc, const clscan_part *parts,
                                 size_t nparts)
{
    CLSCAN__RETURN_IF(NULL, parts == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "parts is NULL");
    CLSCAN__RETURN_IF(NULL, nparts == 0, CLSCAN_ERROR_INVALID_ARGUMENT, "nparts is 0");
    for (size_t p = 0; p < nparts; ++p) {
        clscan_status s = clscan__check_context(parts[p].ctx);
        if (s != CLSCAN_SUCCESS) return s;
        CLSCAN__RETURN_IF(parts[p].ctx, parts[p].ctx->target.cl_ctx != parts[0].ctx->target.cl_ctx,
                         CLSCAN_ERROR_INVALID_ARGUMENT,
                         "parts[%zu].ctx belongs to another cl_context than parts[0].ctx: "
                         "clscan_scan_parts needs one cl_context (docs/GUIDE.md shows the steps "
                         "across contexts)",
                         p);
    }
    CLSCAN__RETURN_IF(parts[0].ctx, desc == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "desc is NULL");
    CLSCAN__RETURN_IF(parts[0].ctx, desc->segments == CLSCAN_SEGMENTS_KEYS,
                     CLSCAN_ERROR_UNSUPPORTED,
                     "clscan_scan_parts does not take CLSCAN_SEGMENTS_KEYS: the keys at the "
                     "parts' edges would not be compared");
    return CLSCAN_SUCCESS;
}

/* Part p's scan (dst NULL: its reduction) with `carry`, after `wait`. The part's queue is
 * flushed: commands of other queues wait for its event, and OpenCL only promises that a
 * command waited for from another queue runs once its own queue is flushed (rusticl
 * waits forever otherwise). */
static clscan_status scan_part(const clscan_scan_desc *desc, int inclusive,
                               const clscan_part *parts, size_t p, int reduce,
                               const clscan_carry *carry, cl_uint nwait, const cl_event *wait,
                               cl_event *event)
{
    /* The transform sees global indices: part p's first element follows the parts
     * before it. */
    clscan_scan_desc d = *desc;
    for (size_t q = 0; q < p; ++q) d.index_base += parts[q].n;
    const clscan_part *part = &parts[p];
    clscan_status s = clscan_scan_carry(part->ctx, part->queue, &d, inclusive, part->src,
                                        part->src_offset, part->segments,
                                        part->segments_offset, reduce ? NULL : part->dst,
                                        reduce ? 0 : part->dst_offset, part->n, carry, nwait,
                                        wait, event);
    if (s == CLSCAN_SUCCESS) clFlush(part->queue);
    return s;
}

/* The user's carry-in (or none) with the total to `out` at out_off. */
static clscan_carry user_in(const clscan_carry *carry, cl_mem out, size_t out_off)
{
    clscan_carry c = {0};
    if (carry) {
        c.in_value = carry->in_value;
        c.in_buffer = carry->in_buffer;
        c.in_offset = carry->in_offset;
    }
    c.out_buffer = out;
    c.out_offset = out_off;
    return c;
}

/* Segmented: part p starts from part p - 1's total (tmp[p - 1]), after its scan. */
static clscan_status chain(const clscan_scan_desc *desc, int inclusive, const clscan_part *parts,
                           size_t nparts, const clscan_carry *carry, cl_mem tmp, cl_uint nwait,
                           const cl_event *wait, cl_event *done)
{
    clscan_status s = CLSCAN_SUCCESS;
    for (size_t p = 0; p < nparts && s == CLSCAN_SUCCESS; ++p) {
        const int last = p + 1 == nparts;
        clscan_carry c = p == 0 ? user_in(carry, tmp, 0) : user_in(NULL, tmp, p);
        if (p > 0) {
            c.in_buffer = tmp;
            c.in_offset = p - 1;
        }
        if (last) {
            c.out_buffer = carry ? carry->out_buffer : NULL;
            c.out_offset = carry ? carry->out_offset : 0;
        }
        s = p == 0 ? scan_part(desc, inclusive, parts, p, 0, &c, nwait, wait, &done[p])
                   : scan_part(desc, inclusive, parts, p, 0, &c, 1, &done[p - 1], &done[p]);
    }
    return s;
}

/* Unsegmented: every part reduced into tot[p]; their inclusive scan into pre (from the
 * user's carry-in, its total the user's); part p > 0 scanned from pre[p - 1]. */
static clscan_status reduce_then_scan(const clscan_scan_desc *desc, int inclusive,
                                      const clscan_part *parts, size_t nparts,
                                      const clscan_carry *carry, cl_mem tot, cl_mem pre,
                                      cl_uint nwait, const cl_event *wait, cl_event *reduced,
                                      cl_event *done)
{
    clscan_status s = CLSCAN_SUCCESS;
    for (size_t p = 0; p + 1 < nparts && s == CLSCAN_SUCCESS; ++p) {
        const clscan_carry c = user_in(NULL, tot, p);
        s = scan_part(desc, inclusive, parts, p, 1, &c, nwait, wait, &reduced[p]);
    }
    if (s != CLSCAN_SUCCESS) return s;
    /* The totals are of the scan type: the same operator, without the transform. */
    clscan_scan_desc totals = *desc;
    totals.transform = NULL;
    totals.input_type_name = NULL;
    totals.input_type_size = 0;
    /* (No total: pre holds the first nparts - 1 prefixes, and the user's total is
     * written by the last part's scan.) */
    const clscan_carry c = user_in(carry, NULL, 0);
    cl_event scanned = NULL;
    const clscan_part *p0 = &parts[0];
    s = clscan_scan_carry(p0->ctx, p0->queue, &totals, 1, tot, 0, NULL, 0, pre, 0, nparts - 1,
                          &c, (cl_uint)(nparts - 1), reduced, &scanned);
    if (s != CLSCAN_SUCCESS) return s;
    clFlush(p0->queue); /* (see scan_part) */
    for (size_t p = 0; p < nparts && s == CLSCAN_SUCCESS; ++p) {
        clscan_carry in = user_in(p == 0 ? carry : NULL, NULL, 0);
        if (p > 0) {
            in.in_buffer = pre;
            in.in_offset = p - 1;
        }
        if (p + 1 == nparts && carry) {
            in.out_buffer = carry->out_buffer;
            in.out_offset = carry->out_offset;
        }
        s = p == 0 ? scan_part(desc, inclusive, parts, p, 0, &in, nwait, wait, &done[p])
                   : scan_part(desc, inclusive, parts, p, 0, &in, 1, &scanned, &done[p]);
    }
    clReleaseEvent(scanned);
    return s;
}

clscan_status clscan_scan_parts(const clscan_scan_desc *desc, int inclusive,
                                const clscan_part *parts, size_t nparts,
                                const clscan_carry *carry, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *events)
{
    clscan_status s = check_parts(desc, parts, nparts);
    if (s != CLSCAN_SUCCESS) return s;
    clscan_context *ctx = parts[0].ctx;
    size_t in_size, out_size;
    if ((s = clscan__desc_sizes(ctx, desc, &in_size, &out_size)) != CLSCAN_SUCCESS) return s;
    (void)in_size;
    if (nparts == 1) /* (one part: the call itself) */
        return scan_part(desc, inclusive, parts, 0, 0, carry, num_events_in_wait_list,
                         event_wait_list, events);

    const int segmented = desc->segments != CLSCAN_SEGMENTS_NONE;
    cl_mem tot = NULL, pre = NULL;
    cl_event *ev = calloc(2 * nparts, sizeof *ev); /* reductions, then each part's scan */
    CLSCAN__RETURN_IF(ctx, !ev, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    s = clscan__create_buffer(ctx, nparts * out_size, "the parts' totals", &tot);
    if (s == CLSCAN_SUCCESS && !segmented)
        s = clscan__create_buffer(ctx, nparts * out_size, "the parts' carries", &pre);
    if (s == CLSCAN_SUCCESS)
        s = segmented ? chain(desc, inclusive, parts, nparts, carry, tot,
                              num_events_in_wait_list, event_wait_list, ev + nparts)
                      : reduce_then_scan(desc, inclusive, parts, nparts, carry, tot, pre,
                                         num_events_in_wait_list, event_wait_list, ev,
                                         ev + nparts);
    /* (The buffers live on until the commands that use them finish.) */
    if (tot) clReleaseMemObject(tot);
    if (pre) clReleaseMemObject(pre);
    for (size_t p = 0; p < nparts; ++p) {
        if (ev[p]) clReleaseEvent(ev[p]);
        cl_event e = ev[nparts + p];
        if (s == CLSCAN_SUCCESS && events) events[p] = e;
        else if (e) clReleaseEvent(e);
    }
    free(ev);
    return s;
}
