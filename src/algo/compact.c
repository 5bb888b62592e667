/* compact.c - clscan_compact: compaction and partition of elements of any OpenCL C type,
 * stable or not, as a general scan of the predicate's 0/1 (exclusive, 64-bit) whose
 * output stage moves each element to its place; a stable partition reduces the count
 * first, so the rejected elements can follow the kept ones in input order. Selects and
 * unstable partitions of the library's own types go to clscan_select_if and
 * clscan_partition_if. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TYPE_NAME 64

/* The output statements: out0 is dst (from dst_offset), out1 the count; y counts the
 * elements kept before i. */
static const char select_output[] =
    "const int keep = (%s) != 0;\n"
    "if (keep) out0[y] = x;\n"
    "if (i + 1 == n) out1[0] = y + (keep ? 1ul : 0ul);\n";
static const char partition_output[] =
    "const int keep = (%s) != 0;\n"
    "if (keep) out0[y] = x;\n"
    "else out0[n - 1 - (i - y)] = x;\n"
    "if (i + 1 == n) out1[0] = y + (keep ? 1ul : 0ul);\n";
static const char stable_output[] = /* (the count is the reduction's, already in out1) */
    "if ((%s) != 0) out0[y] = x;\n"
    "else out0[out1[0] + (i - y)] = x;\n";

/* printf of fmt with the predicate into a new string (NULL when out of memory). */
static char *with_predicate(const char *fmt, const char *predicate)
{
    const int len = snprintf(NULL, 0, fmt, predicate);
    char *t = len < 0 ? NULL : malloc((size_t)len + 1);
    if (t) snprintf(t, (size_t)len + 1, fmt, predicate);
    return t;
}

static clscan_status check_compact(const clscan_context *ctx, const clscan_compact_desc *d,
                                   cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset,
                                   cl_mem count, size_t n)
{
    CLSCAN__RETURN_IF(ctx, !d, CLSCAN_ERROR_INVALID_ARGUMENT, "desc is NULL");
    CLSCAN__RETURN_IF(ctx, !d->type_name || !d->predicate, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->%s is NULL", !d->type_name ? "type_name" : "predicate");
    CLSCAN__RETURN_IF(ctx, strlen(d->type_name) > MAX_TYPE_NAME, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->type_name is longer than %d characters", MAX_TYPE_NAME);
    clscan_status s;
    if ((s = clscan__check_text_length(ctx, d->predicate, "desc->predicate")) != CLSCAN_SUCCESS ||
        (s = clscan__check_text_length(ctx, d->source, "desc->source")) != CLSCAN_SUCCESS)
        return s;
    CLSCAN__RETURN_IF(ctx, d->type_size == 0, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->type_size is 0");
    /* (The general scan takes a library type's size from its name, not from type_size.) */
    const int lib = clscan__type_from_cl_name(d->type_name);
    CLSCAN__RETURN_IF(ctx, lib >= 0 && d->type_size != clscan_type_size((clscan_type)lib),
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->type_size %zu is not the size of %s (%zu bytes)", d->type_size,
                     d->type_name, clscan_type_size((clscan_type)lib));
    CLSCAN__RETURN_IF(ctx, d->stable && !d->partition, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->stable is set without desc->partition (a select keeps its order)");
    const size_t e = d->type_size;
    if ((s = clscan__check_range(ctx, src, "src", src_offset, n, e)) != CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, dst, "dst", dst_offset, n, e)) != CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, count, "count (one cl_ulong)", 0, 1, 8)) != CLSCAN_SUCCESS ||
        (s = clscan__check_disjoint(ctx, src, "src", src_offset * e, n * e, dst, "dst",
                                    dst_offset * e, n * e)) != CLSCAN_SUCCESS ||
        (s = clscan__check_disjoint(ctx, src, "src", src_offset * e, n * e, count, "count", 0,
                                    8)) != CLSCAN_SUCCESS)
        return s;
    return clscan__check_disjoint(ctx, dst, "dst", dst_offset * e, n * e, count, "count", 0, 8);
}

/* Whether desc's elements are one of the library's types, named as in OpenCL C, with no
 * source of the caller's, and desc asks for what clscan_select_if or clscan_partition_if
 * does (a select, or a partition with the rejected elements in reverse): the call is then
 * theirs, one pass of the compaction kernel instead of a general scan of 64-bit places
 * with an output stage (docs/PERFORMANCE.md). A predicate of spaces alone stays on the
 * general path, whose compiler reports it, as the header says. */
static bool library_compaction(const clscan_context *ctx, const clscan_compact_desc *d,
                               clscan_type *type)
{
    const int t = clscan__type_from_cl_name(d->type_name);
    if (t < 0 || d->source || (d->partition && d->stable) ||
        d->predicate[strspn(d->predicate, " \t\r\n")] == '\0')
        return false;
    *type = (clscan_type)t;
    return *type != CLSCAN_DOUBLE || ctx->target.profile.fp64;
}

clscan_status clscan_compact(clscan_context *ctx, cl_command_queue queue,
                             const clscan_compact_desc *desc, cl_mem src, size_t src_offset,
                             cl_mem dst, size_t dst_offset, cl_mem count, size_t n,
                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                             cl_event *event)
{
    bool in_order = true;
    clscan_status s = clscan__check_call(ctx, queue, CLSCAN_INT32, CLSCAN_OP_ADD,
                                         num_events_in_wait_list, event_wait_list, &in_order);
    if (s != CLSCAN_SUCCESS ||
        (s = check_compact(ctx, desc, src, src_offset, dst, dst_offset, count, n)) !=
            CLSCAN_SUCCESS)
        return s;
    if (n == 0) /* nothing to count: the count alone */
        return clscan__enqueue_zero_count(ctx, queue, count, num_events_in_wait_list,
                                          event_wait_list, event);
    clscan_type type;
    if (library_compaction(ctx, desc, &type))
        return (desc->partition ? clscan_partition_if : clscan_select_if)(
            ctx, queue, src, src_offset, dst, dst_offset, count, n, type, desc->predicate,
            num_events_in_wait_list, event_wait_list, event);
    /* The scan: 1 where the predicate keeps, exclusive, in 64 bits. */
    char *transform = with_predicate("(ulong)(((\n%s\n)) != 0)", desc->predicate);
    char *output = with_predicate(!desc->partition ? select_output
                                  : desc->stable   ? stable_output
                                                   : partition_output,
                                  desc->predicate);
    if (!transform || !output) {
        free(transform);
        free(output);
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    }
    clscan_scan_desc d = {0};
    d.type = CLSCAN_UINT64;
    d.op = CLSCAN_OP_ADD;
    d.source = desc->source;
    d.input_type_name = desc->type_name;
    d.input_type_size = desc->type_size;
    d.transform = transform;
    cl_uint nwait = num_events_in_wait_list;
    const cl_event *wait = event_wait_list;
    cl_event counted = NULL;
    if (desc->stable) /* the count first: the rejected start after the kept */
        s = clscan_reduce_desc(ctx, queue, &d, src, src_offset, n, count, 0, nwait, wait,
                               &counted);
    if (s == CLSCAN_SUCCESS) {
        d.output = output;
        d.output_types[0] = desc->type_name;
        d.output_types[1] = "ulong";
        const cl_mem outs[2] = {dst, count};
        const size_t offs[2] = {dst_offset, 0};
        if (counted) {
            nwait = 1;
            wait = &counted;
        }
        s = clscan_scan_output(ctx, queue, &d, 0, src, src_offset, NULL, 0, NULL, 0, n, outs,
                               offs, 2, NULL, nwait, wait, event);
    }
    if (counted) clReleaseEvent(counted);
    free(transform);
    free(output);
    return s;
}
