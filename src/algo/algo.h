/* algo.h - the algorithm layer: the device-wide scans (algo/scan.c, the multi-level
 * scan of algo/multilevel.c, the single-pass look-back's host side in algo/lookback.c),
 * reductions (algo/reduce.c), reduce by key and run-length encoding (algo/bykey.c),
 * histograms (algo/histogram.c), compaction (algo/select.c; of any type, algo/compact.c),
 * general scans (algo/general.c), the radix sort (algo/sort.c), scans over several
 * devices (algo/parts.c) and host streams (algo/stream.c), with their public entry
 * points.
 * Builds on runtime/ (docs/ARCHITECTURE.md). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_ALGO_H
#define CLSCAN_ALGO_H

#include "runtime/runtime.h"

/* clscan_run_length_encode's kernels, its arguments checked (by bykey.c): the compaction
 * of the runs' first elements, which also writes each run's length (of length_type,
 * UINT32 or UINT64); n below 2^32, and src disjoint from the outputs. */
clscan_status clscan__select_runs(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                  size_t src_offset, size_t n, clscan_type type, cl_mem unique,
                                  size_t unique_offset, cl_mem lengths, size_t lengths_offset,
                                  clscan_type length_type, cl_mem count, bool in_order,
                                  cl_uint nwait, const cl_event *wait, cl_event *event);

/* clscan_exclusive_scan_carry (inclusive 0) and clscan_inclusive_scan_carry (scan.c). */
clscan_status clscan__scan_carry(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                 size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                                 clscan_type type, clscan_op op, int inclusive,
                                 const clscan_carry *carry, cl_uint nwait,
                                 const cl_event *wait, cl_event *event);

/* The element sizes of a general scan's description (checked as clscan_scan checks it):
 * src's elements, and dst's (the scan type; a segmented scan's value type). */
clscan_status clscan__desc_sizes(clscan_context *ctx, const clscan_scan_desc *desc,
                                 size_t *in_size, size_t *out_size);

/* The checks of a call with a description: clscan__check_call's (ctx, queue, wait list;
 * *in_order) and the description's (its element sizes, as clscan__desc_sizes). */
clscan_status clscan__check_desc_call(clscan_context *ctx, cl_command_queue queue,
                                     const clscan_scan_desc *desc, cl_uint nwait,
                                     const cl_event *wait, bool *in_order, size_t *in_size,
                                     size_t *out_size);

/* Whether a checked description is a built-in operator on a library type as it is (no
 * transform, no segments, no conversion): an ordinary scan or reduction. */
int clscan__desc_is_plain(const clscan_scan_desc *desc);

/* Checks a general scan's description (as clscan__desc_sizes does, filling the same
 * sizes) and returns its program for the scan algorithm algo, built on first use
 * (general.c). */
clscan_status clscan__desc_program(clscan_context *ctx, const clscan_scan_desc *desc,
                                   clscan__scan_algo algo, clscan__program **prog,
                                   size_t *in_size, size_t *out_size);

/* clscan_scan_output without dst or carry, for statements that do nothing except where
 * an element ends its segment (sparse CLSCAN__SPARSE_ENDS: last set), or where it starts
 * or ends one (CLSCAN__SPARSE_ENDS | CLSCAN__SPARSE_HEADS: first or last set): reduce by
 * key. The kernels run them for those elements alone (cl/clscan_general_tile.cl,
 * CLSCAN_GEN_OUTPUT_SPARSE): on devices of several work-items a group the segmented tile
 * of values, each work-item for its own elements in order, where the statements of
 * clscan_scan_output, which may write every element, keep the tile of pairs and write
 * side by side (general.c, clscan_gen_values_store); on one work-item groups the vector
 * path of built-in operators (clscan_gen_vec_emit). The caller has checked the call
 * (clscan__check_call, which gave in_order), src's, the segments' and the outputs' ranges
 * and that the outputs overlap neither one another nor the inputs, so these checks are
 * not made again (a range's check is two driver calls; on the H200 reduce by key's call
 * of 2^16 elements took 0.10-0.15 us less). The description is checked here. */
#define CLSCAN__SPARSE_ENDS 1
#define CLSCAN__SPARSE_HEADS 2
clscan_status clscan__scan_output_sparse(clscan_context *ctx, cl_command_queue queue,
                                         bool in_order, const clscan_scan_desc *desc,
                                         int inclusive, cl_mem src, size_t src_offset,
                                         cl_mem segments, size_t segments_offset, size_t n,
                                         const cl_mem *outputs, const size_t *output_offsets,
                                         cl_uint num_outputs, int sparse,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event);

/* The chunk clscan_scan_host takes for n > 0 elements of in_size and out_size bytes when
 * asked for `chunk` (0: its default, docs/GUIDE.md): at most n (stream.c). */
size_t clscan__host_chunk(const clscan_context *ctx, size_t n, size_t chunk, size_t in_size,
                          size_t out_size);

/* How one level of the multi-level scan splits n elements (scan.c). */
typedef struct clscan__level_plan {
    cl_ulong groups;     /* work-groups; 1: a single kernel does the level */
    cl_ulong per_group;  /* tiles each work-group owns */
} clscan__level_plan;
clscan__level_plan clscan__plan_level(const clscan__profile *p, const clscan__scan_config *cfg,
                                     cl_ulong n);
/* Elements of scratch the partials of all levels below an n-element scan need. */
cl_ulong clscan__scan_scratch_elements(const clscan__profile *p, const clscan__scan_config *cfg,
                                       cl_ulong n);
/* Enqueues the multi-level scan of src[src_off, +n) into dst[dst_off, +n) with prog's
 * scan kernels (prog->lock held), keeping this level's partials at scratch[part_off,
 * +groups) and deeper levels' after them; carry: the call's (NULL: none). */
clscan_status clscan__enqueue_scan_level(clscan__launch *l, clscan__program *prog, cl_mem src,
                                         cl_ulong src_off, cl_mem dst, cl_ulong dst_off,
                                         cl_ulong n, cl_int inclusive, cl_mem scratch,
                                         cl_ulong part_off, const clscan__carry_args *carry);

/* Enqueues the exclusive scan, in place, of scratch[part_off, +count) (partials of one
 * level): one work-group, or the levels above when there are more than a tile. */
clscan_status clscan__enqueue_scan_partials(clscan__launch *l, clscan__program *prog,
                                            cl_mem scratch, cl_ulong part_off, cl_ulong count);

/* The single-pass look-back over a scratch slot (scan.c). fits: whether n elements go
 * through a single-pass program with cfg (its tile counter is 32 bits); bytes: the
 * status buffer it needs; begin: clears the slot's status words where their content is
 * unknown or the epochs ran out (a kernel of the launch) and returns the kernel
 * arguments of this call. */
typedef struct clscan__lookback_args {
    cl_mem state;           /* the status buffer */
    cl_uint epoch;          /* this call's tag */
    cl_uint spins;          /* fruitless reads before a fallback */
    cl_mem stats;           /* fallback counters: the test hook's, or NULL (the slot's header) */
    cl_uint stats_off;
} clscan__lookback_args;
bool clscan__lookback_fits(const clscan__scan_config *cfg, cl_ulong n);
size_t clscan__lookback_bytes(const clscan__scan_config *cfg, cl_ulong n);
clscan_status clscan__lookback_begin(clscan__launch *l, clscan__program *prog,
                                     clscan__lookback_args *out);

/* The one-sweep sort's shape (sort.c): cfg, a sort program's shape for n keys, turned
 * into the one-sweep one where the profile and n allow; and the local memory its pass
 * kernel declares. */
void clscan__onesweep_shape(const clscan__profile *p, cl_ulong n, clscan__scan_config *cfg);
size_t clscan__onesweep_local_bytes(const clscan__scan_config *cfg, const clscan__profile *p);

#endif /* CLSCAN_ALGO_H */
