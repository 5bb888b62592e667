/* verify_general.h - host references and runners for general scans (clscan_scan),
 * reductions (clscan_reduce_desc), reductions by key (clscan_reduce_by_key) and run-length
 * encoding, shared by clscan-selftest and the tests. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_VERIFY_GENERAL_H
#define CLSCAN_VERIFY_GENERAL_H

#include "verify.h"

#include <clscan.h>
#include <stddef.h>
#include <stdint.h>

/* Host versions of a case's parts: r = a op b (r never aliases a or b); the transform of
 * input element x at index i into scan element r; n input elements from rng. */
typedef void (*clscan_verify_gen_op)(void *r, const void *a, const void *b);
typedef void (*clscan_verify_gen_transform)(void *r, const void *x, size_t i);
typedef void (*clscan_verify_gen_fill)(void *dst, size_t n, clscan_verify_rng *rng);

/* One general scan to test: its description, and the host's version of it. Every case's
 * results are exact (integers, small integers in floats, max), so they are compared bit
 * for bit. */
typedef struct clscan_verify_gen_case {
    const char *name;
    clscan_scan_desc desc;
    size_t in_size, out_size;       /* bytes of src's and dst's elements */
    clscan_verify_gen_fill fill;
    clscan_verify_gen_transform transform; /* NULL: the input is the scan element */
    clscan_verify_gen_op op;
    unsigned char identity[16];
} clscan_verify_gen_case;

#define CLSCAN_VERIFY_GEN_CASES 12
/* Case k of the table (0 <= k < CLSCAN_VERIFY_GEN_CASES). */
clscan_verify_gen_case clscan_verify_gen_case_get(int k);
/* Case k, its operator declared exact (CLSCAN_COMBINE_EXACT) where the case's source is the
 * 2x2 matrix product's (cases 1 and 7); any other case as it is. */
clscan_verify_gen_case clscan_verify_gen_case_exact(int k);

/* The serial reference: out[i] combines the elements of i's segment up to i (inclusive)
 * or before it (exclusive). seg: the case's flags or int32 keys (unused without). */
void clscan_verify_gen_reference(const clscan_verify_gen_case *c, int inclusive,
                                 const void *in, const void *seg, size_t n, void *out);

/* Fills n segment entries for d: flags (about one in eight set, as random nonzero bytes)
 * or int32 keys in runs of 1 to 24; nothing without segments. */
void clscan_verify_gen_fill_segments(const clscan_scan_desc *d, void *seg, size_t n,
                                     clscan_verify_rng *rng);
/* A random integer below `below`, and n random floats (multiples of 1/8 within +-125000). */
uint32_t clscan_verify_gen_below(clscan_verify_rng *rng, uint32_t below);
void clscan_verify_gen_fill_float(void *dst, size_t n, clscan_verify_rng *rng);

/* Runs case c at size n on queue: layout 0 with offsets (src 3, segments 7, dst 5),
 * layout 1 in place at offset 2 (only for cases whose in and out sizes are equal), with
 * inputs and segments drawn from seed; checks dst against the reference and that
 * nothing around it was written. Always writes a one-line reason into msg. */
clscan_verify_result clscan_verify_run_general(clscan_context *ctx, cl_context cl_ctx,
                                               cl_command_queue queue,
                                               const clscan_verify_gen_case *c, size_t n,
                                               int inclusive, int layout, uint64_t seed,
                                               char *msg, size_t msg_size);

/* Runs clscan_reduce_desc of case c's description without its segments over n inputs
 * drawn from seed (src at offset 3, the result at element 3 of a poisoned buffer), and
 * checks the result against the host's fold and that nothing else was written. */
clscan_verify_result clscan_verify_run_general_reduce(clscan_context *ctx, cl_context cl_ctx,
                                                      cl_command_queue queue,
                                                      const clscan_verify_gen_case *c,
                                                      size_t n, uint64_t seed, char *msg,
                                                      size_t msg_size);

/* Runs clscan_reduce_by_key of case c (one with segments: its keys or flags, values of
 * its type and operator) over n inputs drawn from seed, with unique keys where with_keys
 * is set and the segments are keys, into poisoned buffers at offsets, and checks every
 * segment's result and key and the count against the inclusive reference's values at
 * the segments' last elements, and that nothing else was written. */
clscan_verify_result clscan_verify_run_general_by_key(clscan_context *ctx, cl_context cl_ctx,
                                                      cl_command_queue queue,
                                                      const clscan_verify_gen_case *c,
                                                      size_t n, int with_keys, uint64_t seed,
                                                      char *msg, size_t msg_size);

/* How clscan_verify_run_rle calls and draws (bits of its `mode`). */
#define CLSCAN_VERIFY_RLE_NONTRIVIAL 1 /* clscan_run_length_encode_nontrivial */
#define CLSCAN_VERIFY_RLE_LONG 2       /* one run in 4 is up to n / 3 long, not 6000 */
#define CLSCAN_VERIFY_RLE_BY_KEY 4     /* clscan_reduce_by_key of ones by the elements as keys */
/* Runs clscan_run_length_encode (or, with CLSCAN_VERIFY_RLE_NONTRIVIAL in mode,
 * clscan_run_length_encode_nontrivial; with CLSCAN_VERIFY_RLE_BY_KEY, reduce by key of a
 * one for each element, of length_type, with the elements as keys: the sums are the
 * lengths) over n elements of `type` in runs of 1 to 20 and
 * longer ones (floats with NaNs and signed zeros) drawn from seed, with lengths (and
 * offsets) of length_type, into poisoned buffers at offsets, and checks the runs and
 * count against the host's and that nothing else was written. DOUBLE refused without
 * fp64: CLSCAN_VERIFY_SKIP. */
clscan_verify_result clscan_verify_run_rle(clscan_context *ctx, cl_context cl_ctx,
                                           cl_command_queue queue, clscan_type type,
                                           clscan_type length_type, int mode, size_t n,
                                           uint64_t seed, char *msg, size_t msg_size);

#endif /* CLSCAN_VERIFY_GENERAL_H */
