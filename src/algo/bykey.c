/* bykey.c - clscan_reduce_by_key: a segmented inclusive scan whose output stage
 * (clscan_scan_output) writes each segment's result, and its key, at the segment's last
 * element, numbered by the segments counted so far, and the number of segments at the
 * range's last element. clscan_run_length_encode: its checks, then a compaction of the
 * runs' first elements that also writes the lengths (select.c). Runs longer than one:
 * two scans through a temporary. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <stdio.h>


/* The statements: segment j's result at out1[j] from its last element, its key at
 * out0[j], the count at out2[0]. Integer keys are written from the segment's last
 * element too, so the statements do nothing except where an element ends its segment
 * (CLSCAN__SPARSE_ENDS); floating-point keys from its first (keys equal by != may differ
 * in bits: -0.0 and +0.0), which the kernels then visit as well (CLSCAN__SPARSE_HEADS).
 * The call runs them through clscan__scan_output_sparse, for those elements alone: on
 * GPUs 8-14% less time at 2^24 and 2^28 on the H200 for the segmented tile of values
 * that this allows, 18-22% less again for visiting heads and ends alone, and 4-5% less
 * again for the ends alone (docs/PERFORMANCE.md, twenty-sixth and thirty-second
 * sessions). In groups of several work-items (GPUs) the kernel gives each element's
 * first and last (include/clscan.h: clscan_scan_output) from the head counts its tile
 * holds, where the statements would read the neighbours' keys again: the H200 took 3-11%
 * less time. With one work-item a group (CPUs) the statements compare the keys
 * themselves: taking last from the kernel there cost PoCL and Intel's runtime 13-47%
 * more at 2^22 (twenty-fifth session). */
static const char keys_first_output[] =
    "if (first) out0[s - 1] = segments[p];\n"
    "if (last) out1[s - 1] = y;\n"
    "if (p + 1 == n) out2[0] = s;\n";
static const char keys_last_output[] =
    "if (last) {\n"
    "    out0[s - 1] = segments[p];\n"
    "    out1[s - 1] = y;\n"
    "}\n"
    "if (p + 1 == n) out2[0] = s;\n";
static const char no_keys_output[] = /* (and by flags) */
    "if (last) out1[s - 1] = y;\n"
    "if (p + 1 == n) out2[0] = s;\n";
static const char keys_first_output_cpu[] =
    "if (p == 0 || segments[p] != segments[p - 1]) out0[s - 1] = segments[p];\n"
    "if (p + 1 == n || segments[p + 1] != segments[p]) out1[s - 1] = y;\n"
    "if (p + 1 == n) out2[0] = s;\n";
static const char keys_last_output_cpu[] =
    "if (p + 1 == n || segments[p + 1] != segments[p]) {\n"
    "    out0[s - 1] = segments[p];\n"
    "    out1[s - 1] = y;\n"
    "}\n"
    "if (p + 1 == n) out2[0] = s;\n";
static const char no_keys_output_cpu[] =
    "if (p + 1 == n || segments[p + 1] != segments[p]) out1[s - 1] = y;\n"
    "if (p + 1 == n) out2[0] = s;\n";
static const char flags_output_cpu[] =
    "if (p + 1 == n || segments[p + 1] != 0) out1[s - 1] = y;\n"
    "if (p + 1 == n) out2[0] = s;\n";

/* Reduce by key's statements for ctx's device and desc (above), and in *sparse the
 * elements outside which they do nothing. */
static const char *bykey_output(const clscan_context *ctx, const clscan_scan_desc *desc,
                                int with_keys, int *sparse)
{
    const clscan__profile *p = &ctx->target.profile;
    const int gpu = p->wg_size > 1 && p->sp_wg_size > 1;
    const int by_keys = desc->segments == CLSCAN_SEGMENTS_KEYS;
    const int first = with_keys && clscan__type_is_float(desc->key_type);
    *sparse = CLSCAN__SPARSE_ENDS | (first ? CLSCAN__SPARSE_HEADS : 0);
    if (!with_keys) return gpu ? no_keys_output : by_keys ? no_keys_output_cpu : flags_output_cpu;
    if (first) return gpu ? keys_first_output : keys_first_output_cpu;
    return gpu ? keys_last_output : keys_last_output_cpu;
}

/* Checks the output ranges (n elements each, count 8 bytes) against one another and the
 * inputs' byte ranges. */
static clscan_status check_outputs(const clscan_context *ctx, const clscan__byte_range *in,
                                   int nin, const clscan__byte_range *out, int nout)
{
    clscan_status s;
    for (int a = 0; a < nout; ++a) {
        if (!out[a].mem) continue;
        for (int b = 0; b < nin; ++b)
            if (in[b].mem &&
                (s = clscan__check_disjoint(ctx, in[b].mem, in[b].name, in[b].off, in[b].len,
                                            out[a].mem, out[a].name, out[a].off,
                                            out[a].len)) != CLSCAN_SUCCESS)
                return s;
        for (int b = a + 1; b < nout; ++b)
            if (out[b].mem &&
                (s = clscan__check_disjoint(ctx, out[a].mem, out[a].name, out[a].off,
                                            out[a].len, out[b].mem, out[b].name, out[b].off,
                                            out[b].len)) != CLSCAN_SUCCESS)
                return s;
    }
    return CLSCAN_SUCCESS;
}

/* What both run-length encodings check first: the call (queue, wait list, type; whether
 * the queue is in order) and the length type (`what` names the outputs of that type in
 * the message). */
static clscan_status check_rle_call(clscan_context *ctx, cl_command_queue queue,
                                    clscan_type type, clscan_type length_type, cl_uint nwait,
                                    const cl_event *wait, const char *what, bool *in_order)
{
    clscan_status s = clscan__check_call(ctx, queue, type, CLSCAN_OP_ADD, nwait, wait, in_order);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, length_type != CLSCAN_UINT32 && length_type != CLSCAN_UINT64,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "length_type %d: the %s are CLSCAN_UINT32 or CLSCAN_UINT64",
                     (int)length_type, what);
    return CLSCAN_SUCCESS;
}

/* One output of a run-length encoding: `room` elements of `size` bytes from `offset`. */
typedef struct rle_output {
    cl_mem mem;
    const char *name;
    size_t offset, room, size;
} rle_output;

/* The ranges both run-length encodings check: src (n elements of e bytes), their two
 * outputs and the count (one cl_ulong), none overlapping another or src. */
static clscan_status check_rle_ranges(clscan_context *ctx, cl_mem src, size_t src_offset,
                                      size_t n, size_t e, const rle_output out[2], cl_mem count)
{
    clscan_status s = clscan__check_range(ctx, src, "src", src_offset, n, e);
    for (int a = 0; a < 2 && s == CLSCAN_SUCCESS; ++a)
        s = clscan__check_range(ctx, out[a].mem, out[a].name, out[a].offset, out[a].room,
                                out[a].size);
    if (s == CLSCAN_SUCCESS) s = clscan__check_range(ctx, count, "count (one cl_ulong)", 0, 1, 8);
    if (s != CLSCAN_SUCCESS) return s;
    const clscan__byte_range in[1] = {{src, "src", src_offset * e, n * e}};
    const clscan__byte_range ranges[3] = {
        {out[0].mem, out[0].name, out[0].offset * out[0].size, out[0].room * out[0].size},
        {out[1].mem, out[1].name, out[1].offset * out[1].size, out[1].room * out[1].size},
        {count, "count", 0, 8}};
    return check_outputs(ctx, in, 1, ranges, 3);
}

/* The segmented scan whose value at a run's last element is the run's length (of
 * length_type): 1 for each element, summed over runs of equal elements of `type`. */
static clscan_scan_desc run_lengths_desc(clscan_type type, clscan_type length_type)
{
    clscan_scan_desc d = {0};
    d.type = length_type;
    d.op = CLSCAN_OP_ADD;
    d.transform = "1";
    d.input_type_name = clscan__type_cl_name(type);
    d.segments = CLSCAN_SEGMENTS_KEYS;
    d.key_type = type;
    return d;
}

clscan_status clscan_reduce_by_key(clscan_context *ctx, cl_command_queue queue,
                                   const clscan_scan_desc *desc, cl_mem keys, size_t keys_offset,
                                   cl_mem values, size_t values_offset, size_t n,
                                   cl_mem unique_keys, size_t unique_keys_offset, cl_mem reduced,
                                   size_t reduced_offset, cl_mem count,
                                   cl_uint num_events_in_wait_list,
                                   const cl_event *event_wait_list, cl_event *event)
{
    bool in_order = true;
    size_t in_size, out_size;
    clscan_status s = clscan__check_desc_call(ctx, queue, desc, num_events_in_wait_list,
                                              event_wait_list, &in_order, &in_size, &out_size);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, desc->segments == CLSCAN_SEGMENTS_NONE, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->segments is CLSCAN_SEGMENTS_NONE: reduce by key needs keys or "
                     "flags (clscan_reduce_desc reduces a whole range)");
    CLSCAN__RETURN_IF(ctx, desc->output != NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->output is given: reduce by key writes its own outputs");
    const int by_keys = desc->segments == CLSCAN_SEGMENTS_KEYS;
    CLSCAN__RETURN_IF(ctx, !by_keys && unique_keys, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "unique_keys is given but the segments are flags (no keys to write)");
    CLSCAN__RETURN_IF(ctx, n > 0xffffffffull, CLSCAN_ERROR_UNSUPPORTED,
                     "n is %zu: reduce by key numbers segments in 32 bits (n below 2^32)", n);
    const size_t ks = by_keys ? clscan_type_size(desc->key_type) : 1;
    if ((s = clscan__check_range(ctx, keys, "keys", keys_offset, n, ks)) != CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, values, "values", values_offset, n, in_size)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, reduced, "reduced", reduced_offset, n, out_size)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__check_range(ctx, count, "count (one cl_ulong)", 0, 1, 8)) != CLSCAN_SUCCESS ||
        (unique_keys && (s = clscan__check_range(ctx, unique_keys, "unique_keys",
                                                 unique_keys_offset, n, ks)) != CLSCAN_SUCCESS))
        return s;
    const clscan__byte_range in[2] = {{keys, "keys", keys_offset * ks, n * ks},
                                      {values, "values", values_offset * in_size, n * in_size}};
    const clscan__byte_range out[3] = {
        {reduced, "reduced", reduced_offset * out_size, n * out_size},
        {unique_keys, "unique_keys", unique_keys_offset * ks, n * ks},
        {count, "count", 0, 8}};
    if ((s = check_outputs(ctx, in, 2, out, 3)) != CLSCAN_SUCCESS) return s;
    if (n == 0) /* nothing to count: the count alone */
        return clscan__enqueue_zero_count(ctx, queue, count, num_events_in_wait_list,
                                          event_wait_list, event);
    clscan_scan_desc d = *desc;
    int sparse;
    d.output = bykey_output(ctx, desc, unique_keys != NULL, &sparse);
    d.output_types[0] = by_keys && unique_keys ? clscan__type_cl_name(desc->key_type) : NULL;
    d.output_types[1] = desc->type_name ? desc->type_name : clscan__type_cl_name(desc->type);
    d.output_types[2] = "ulong";
    d.output_types[3] = NULL;
    const cl_mem outs[3] = {unique_keys, reduced, count};
    const size_t offs[3] = {unique_keys_offset, reduced_offset, 0};
    return clscan__scan_output_sparse(ctx, queue, in_order, &d, 1, values, values_offset, keys,
                                      keys_offset, n, outs, offs, 3, sparse,
                                      num_events_in_wait_list,
                                      event_wait_list, event);
}

clscan_status clscan_run_length_encode(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                       size_t src_offset, size_t n, clscan_type type,
                                       cl_mem unique, size_t unique_offset, cl_mem lengths,
                                       size_t lengths_offset, clscan_type length_type,
                                       cl_mem count, cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event)
{
    bool in_order = true;
    clscan_status s = check_rle_call(ctx, queue, type, length_type, num_events_in_wait_list,
                                     event_wait_list, "lengths", &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, unique == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "unique is NULL");
    CLSCAN__RETURN_IF(ctx, n > 0xffffffffull, CLSCAN_ERROR_UNSUPPORTED,
                     "n is %zu: run-length encoding numbers runs in 32 bits (n below 2^32)", n);
    const size_t e = clscan_type_size(type), le = clscan_type_size(length_type);
    const rle_output checked[2] = {{unique, "unique", unique_offset, n, e},
                                   {lengths, "lengths", lengths_offset, n, le}};
    if ((s = check_rle_ranges(ctx, src, src_offset, n, e, checked, count)) != CLSCAN_SUCCESS)
        return s;
    return clscan__select_runs(ctx, queue, src, src_offset, n, type, unique, unique_offset,
                               lengths, lengths_offset, length_type, count, in_order,
                               num_events_in_wait_list, event_wait_list, event);
}

/* Runs longer than one (CUB's NonTrivialRuns), in two passes over a temporary of n
 * uints. Pass 1, a segmented scan of 1 over the runs of src, writes each run's length at
 * its last element and 0 elsewhere; pass 2 counts the nonzero lengths above 1 with an
 * unsegmented scan of "x > 1" and writes run c's offset (its last index + 1 - length)
 * and length at slot c - 1, and the count at the range's last element. */
static const char nontrivial_lengths[] =
    "out0[i] = (i + 1 == n || segments[i + 1] != segments[i]) ? y : 0u;\n";
static const char nontrivial_output[] =
    "if (x > 1u) { out0[y - 1] = i + 1 - x; out1[y - 1] = x; }\n"
    "if (i + 1 == n) out2[0] = y;\n";

clscan_status clscan_run_length_encode_nontrivial(
    clscan_context *ctx, cl_command_queue queue, cl_mem src, size_t src_offset, size_t n,
    clscan_type type, cl_mem offsets, size_t offsets_offset, cl_mem lengths,
    size_t lengths_offset, clscan_type length_type, cl_mem count,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    bool in_order = true;
    clscan_status s = check_rle_call(ctx, queue, type, length_type, num_events_in_wait_list,
                                     event_wait_list, "offsets and lengths", &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, n > 0xffffffffull, CLSCAN_ERROR_UNSUPPORTED,
                     "n is %zu: run-length encoding numbers runs in 32 bits (n below 2^32)", n);
    /* (At most n / 2 runs are longer than one.) */
    const size_t e = clscan_type_size(type), le = clscan_type_size(length_type), room = n / 2;
    const rle_output checked[2] = {{offsets, "offsets", offsets_offset, room, le},
                                   {lengths, "lengths", lengths_offset, room, le}};
    if ((s = check_rle_ranges(ctx, src, src_offset, n, e, checked, count)) != CLSCAN_SUCCESS)
        return s;
    if (n == 0)
        return clscan__enqueue_zero_count(ctx, queue, count, num_events_in_wait_list,
                                          event_wait_list, event);
    cl_mem tmp;
    if ((s = clscan__create_buffer(ctx, n * sizeof(cl_uint), "run lengths", &tmp)) !=
        CLSCAN_SUCCESS)
        return s;
    clscan_scan_desc d1 = run_lengths_desc(type, CLSCAN_UINT32);
    d1.output = nontrivial_lengths;
    d1.output_types[0] = "uint";
    const size_t zero = 0;
    cl_event first = NULL;
    s = clscan_scan_output(ctx, queue, &d1, 1, src, src_offset, src, src_offset, NULL, 0, n,
                           &tmp, &zero, 1, NULL, num_events_in_wait_list, event_wait_list,
                           &first);
    if (s == CLSCAN_SUCCESS) {
        clscan_scan_desc d2 = {0};
        d2.type = CLSCAN_UINT32;
        d2.op = CLSCAN_OP_ADD;
        d2.transform = "x > 1u ? 1u : 0u";
        d2.input_type_name = "uint";
        d2.output = nontrivial_output;
        d2.output_types[0] = clscan__type_cl_name(length_type);
        d2.output_types[1] = clscan__type_cl_name(length_type);
        d2.output_types[2] = "ulong";
        const cl_mem outs[3] = {offsets, lengths, count};
        const size_t offs[3] = {offsets_offset, lengths_offset, 0};
        s = clscan_scan_output(ctx, queue, &d2, 1, tmp, 0, NULL, 0, NULL, 0, n, outs, offs, 3,
                               NULL, 1, &first, event);
    }
    if (first) clReleaseEvent(first);
    /* (OpenCL frees it once the commands that use it have finished.) */
    clReleaseMemObject(tmp);
    return s;
}
