/* verify_histogram.h - host reference and a one-case device runner for the histograms
 * (clscan_histogram_even, clscan_histogram_range), shared by clscan-selftest,
 * clscan-bench and tests/test_histogram.c. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_VERIFY_HISTOGRAM_H
#define CLSCAN_VERIFY_HISTOGRAM_H

#include "verify.h"

#include <clscan.h>
#include <stddef.h>
#include <stdint.h>

/* One histogram to check. Even bins over [lower, upper) chosen from the seed and the
 * type (integers: a span inside the type, for 64-bit types often most of it, so the
 * exact 128-bit bin arithmetic is exercised; floats: a few units wide), or num_bins + 1
 * sorted levels drawn from the same distribution (levels = 1); samples spread past both
 * ends of the range, with bounds, bin edges, extremes and (floats) NaNs and infinities
 * mixed in. shuffled: levels in random order (not ascending), where only the contract's
 * safety is checked (counts sum to at most n, nothing outside counts written). */
typedef struct clscan_verify_hist_case {
    clscan_type type, count_type;
    int levels, shuffled;
    size_t num_bins, n;
    size_t samples_offset, counts_offset;
    uint64_t seed;
} clscan_verify_hist_case;

/* The call's inputs for case c: n samples (of c->type) into samples, and either lower
 * and upper (8 bytes each, of c->type) or num_bins + 1 levels. */
void clscan_verify_hist_fill(const clscan_verify_hist_case *c, void *samples, void *lower,
                             void *upper, void *levels);

/* counts[0, num_bins) of n samples of `type`, as clscan_histogram_even defines them. */
void clscan_verify_histogram_even(const void *samples, size_t n, clscan_type type,
                                  size_t num_bins, const void *lower, const void *upper,
                                  uint64_t *counts);
/* The same for bins between ascending levels (clscan_histogram_range). */
void clscan_verify_histogram_range(const void *samples, size_t n, clscan_type type,
                                   size_t num_bins, const void *levels, uint64_t *counts);

/* Runs case c on queue with guard bands around counts (and checks that samples and
 * levels are unchanged), against the host reference. Always writes a one-line reason
 * into msg. DOUBLE on a device without fp64 must be refused (CLSCAN_VERIFY_SKIP). */
clscan_verify_result clscan_verify_run_histogram(clscan_context *ctx, cl_context cl_ctx,
                                                 cl_command_queue queue,
                                                 const clscan_verify_hist_case *c, char *msg,
                                                 size_t msg_size);

#endif /* CLSCAN_VERIFY_HISTOGRAM_H */
