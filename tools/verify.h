/* verify.h - host reference scans, input generation and a one-case device runner,
 * shared by clscan-selftest and the Check tests. */
#ifndef CLSCAN_VERIFY_H
#define CLSCAN_VERIFY_H

#include "clscan.h"
#include <stdint.h>

/* Deterministic PRNG (splitmix64): the same seed gives the same stream everywhere. */
typedef struct clscan_verify_rng {
    uint64_t state;
} clscan_verify_rng;

uint64_t clscan_verify_rng_next(clscan_verify_rng *rng);
/* Hashes a value into a seed, so each case gets its own stream from one master seed. */
uint64_t clscan_verify_mix(uint64_t seed, uint64_t value);

/* Fills dst with n inputs of `type` chosen so that scans with `op` stay meaningful
 * (see verify.c for what each (type, op) gets). Same seed, same data. */
void clscan_verify_fill(void *dst, size_t n, clscan_type type, clscan_op op, uint64_t seed);

/* A serial host reference for one scan, with the tolerance each element is checked to. */
typedef struct clscan_verify_ref clscan_verify_ref;

/* Computes the reference scan of src[0..n). Returns NULL when out of memory. */
clscan_verify_ref *clscan_verify_reference(clscan_type type, clscan_op op, int inclusive,
                                           const void *src, size_t n);
void clscan_verify_ref_free(clscan_verify_ref *ref);
/* Checks got[0..n) against the reference. Returns 1 if every element is within its
 * tolerance; otherwise 0 and, in msg, the first bad index, got, expected, tolerance. */
int clscan_verify_compare(const clscan_verify_ref *ref, const void *got, char *msg,
                          size_t msg_size);

/* 1 if the device has double precision (CL_DEVICE_DOUBLE_FP_CONFIG or cl_khr_fp64). */
int clscan_verify_device_has_fp64(cl_device_id device);
/* 1 for the combinations the library must refuse with CLSCAN_ERROR_UNSUPPORTED on every
 * device: a bitwise operator on FLOAT or DOUBLE. */
int clscan_verify_expect_unsupported(clscan_type type, clscan_op op);

/* One scan on a device. in_place: src and dst are one buffer and dst_offset is used for
 * both (src_offset is ignored). */
typedef struct clscan_verify_case {
    clscan_type type;
    clscan_op op;
    int inclusive;
    size_t n, src_offset, dst_offset;
    int in_place;
    uint64_t seed; /* input data seed */
} clscan_verify_case;

typedef enum clscan_verify_result {
    CLSCAN_VERIFY_PASS = 0,
    CLSCAN_VERIFY_FAIL = 1,
    CLSCAN_VERIFY_SKIP = 2 /* DOUBLE on a device without fp64: never counted as a pass */
} clscan_verify_result;

/* Runs one case on `queue` (of cl_ctx and ctx's device) with guard bands around the
 * output, waits for the scan's event, reads back and checks output, guards and input.
 * A bitwise operator on a float type passes when the call is refused with
 * CLSCAN_ERROR_UNSUPPORTED and nothing is written. Always writes a one-line reason
 * into msg (for a pass too). Releases everything it created. */
clscan_verify_result clscan_verify_run_case(clscan_context *ctx, cl_context cl_ctx,
                                            cl_command_queue queue,
                                            const clscan_verify_case *c, char *msg,
                                            size_t msg_size);

/* Sizes to test, with the layouts each one runs at. */
typedef struct clscan_verify_size {
    size_t n;
    int all_layouts; /* also run at nonzero offsets and in place */
} clscan_verify_size;

/* Writes the size list into out (at most cap entries) and returns its length. quick
 * gives the short list for CI and Oclgrind; otherwise the full list, which also holds
 * three random sizes in [1, 300000] drawn from seed. */
size_t clscan_verify_sizes(int quick, uint64_t seed, clscan_verify_size *out, size_t cap);

/* The buffer layouts a size runs at: [0] offsets 0; [1] src 3, dst 17; [2] in place at
 * offset 5. */
typedef struct clscan_verify_layout {
    size_t src_offset, dst_offset;
    int in_place;
} clscan_verify_layout;
#define CLSCAN_VERIFY_LAYOUT_COUNT 3
extern const clscan_verify_layout clscan_verify_layouts[CLSCAN_VERIFY_LAYOUT_COUNT];

#endif /* CLSCAN_VERIFY_H */
