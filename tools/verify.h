/* verify.h - host references for the scans and the stream compactions, element access,
 * input generation and one-case device runners, shared by the tools (clscan-selftest,
 * clscan-bench, clscan-bigcheck) and the Check tests. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_VERIFY_H
#define CLSCAN_VERIFY_H

#include <clscan.h>
#include <stdint.h>

/* Deterministic PRNG (splitmix64): the same seed gives the same stream everywhere. */
typedef struct clscan_verify_rng {
    uint64_t state;
} clscan_verify_rng;

uint64_t clscan_verify_rng_next(clscan_verify_rng *rng);
/* Hashes a value into a seed, so each case gets its own stream from one master seed. */
uint64_t clscan_verify_mix(uint64_t seed, uint64_t value);

/* ------------------------------------------------------------- elements ------ */

/* Element i of p as raw bits in a uint64: integers as clscan_verify_fill stores them
 * (INT32 sign-extended, UINT32 zero-extended, so that integer arithmetic on them wraps as
 * the type's does), floats as their IEEE bits (zero-extended for FLOAT). */
uint64_t clscan_verify_load_bits(const void *p, size_t i, clscan_type type);
/* Stores the low 4 or 8 bytes of v (as the type's size says) as element i of p. */
void clscan_verify_store_bits(void *p, size_t i, clscan_type type, uint64_t v);
/* Element i of p, of FLOAT or DOUBLE, as a long double (exactly); and the store of v,
 * rounded to the type. */
long double clscan_verify_load_float(const void *p, size_t i, clscan_type type);
void clscan_verify_store_float(void *p, size_t i, clscan_type type, long double v);
/* The identity of op on an integer type, and a op b, both held as load_bits holds them. */
uint64_t clscan_verify_int_identity(clscan_type type, clscan_op op);
uint64_t clscan_verify_int_combine(uint64_t a, uint64_t b, clscan_type type, clscan_op op);
/* 1 where elements a and b of p differ as OpenCL C's != says (floats: NaN differs from
 * everything, -0.0 equals +0.0). */
int clscan_verify_differs(const void *p, size_t a, size_t b, clscan_type type);

/* ------------------------------------------------------------- inputs -------- */

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
/* The same for got[0..count) against the reference's elements [first, first + count). */
int clscan_verify_compare_range(const clscan_verify_ref *ref, size_t first, size_t count,
                                const void *got, char *msg, size_t msg_size);

/* 1 if the device has double precision (CL_DEVICE_DOUBLE_FP_CONFIG or cl_khr_fp64). */
int clscan_verify_device_has_fp64(cl_device_id device);
/* 1 for the combinations the library must refuse with CLSCAN_ERROR_UNSUPPORTED on every
 * device: a bitwise operator on FLOAT or DOUBLE. */
int clscan_verify_expect_unsupported(clscan_type type, clscan_op op);

/* Waits for the event of a call (clWaitForEvents, never clFinish) and checks that it
 * completed. Returns CL_SUCCESS; or the error of the OpenCL call that failed, or the
 * event's negative execution status, with *what naming which. */
cl_int clscan_verify_wait(cl_event ev, const char **what);

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
 * output, waits for the call's event, reads back and checks output, guards and input.
 * A bitwise operator on a float type passes when the call is refused with
 * CLSCAN_ERROR_UNSUPPORTED and nothing is written. Always writes a one-line reason
 * into msg (for a pass too). Releases everything it created. */
clscan_verify_result clscan_verify_run_case(clscan_context *ctx, cl_context cl_ctx,
                                            cl_command_queue queue,
                                            const clscan_verify_case *c, char *msg,
                                            size_t msg_size);

/* The same for clscan_reduce of c's type, op and n (inclusive and in_place are
 * ignored): its one result goes to element dst_offset of dst and is checked against the
 * inclusive reference's last element (the identity for n == 0). */
clscan_verify_result clscan_verify_run_reduce(clscan_context *ctx, cl_context cl_ctx,
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

/* ------------------------------------------------------------- compaction ---- */

/* The four compaction calls. */
typedef enum clscan_verify_kind {
    CLSCAN_VERIFY_SELECT_FLAGGED = 0, /* clscan_select_flagged */
    CLSCAN_VERIFY_SELECT_IF = 1,      /* clscan_select_if */
    CLSCAN_VERIFY_PARTITION_IF = 2,   /* clscan_partition_if */
    CLSCAN_VERIFY_UNIQUE = 3          /* clscan_unique */
} clscan_verify_kind;
#define CLSCAN_VERIFY_KIND_COUNT 4

/* "select_flagged", "select_if", "partition_if", "unique"; "invalid" otherwise. */
const char *clscan_verify_kind_name(clscan_verify_kind kind);

/* A test predicate: its OpenCL C text and a host function that gives the same answer
 * for element bits x (as clscan_verify_load_bits returns them) at index i. */
typedef struct clscan_verify_predicate {
    const char *text;
    unsigned types; /* bit mask of the clscan_types the text is valid for */
    int quick;      /* part of the short matrix (CI, Oclgrind) */
    int (*host)(clscan_type type, uint64_t x, uint64_t i);
} clscan_verify_predicate;

/* The predicate table: keep-even and x % 7 == 3 (integers), x > 0 (every type),
 * NaN-or-below--0.5 (floats), i % 3 == 0, runs of 1000 kept and 1000 dropped, nothing,
 * everything. The quick ones: a data predicate per type (keep-even, NaN-or-below),
 * the runs and nothing. */
#define CLSCAN_VERIFY_PREDICATE_COUNT 8
extern const clscan_verify_predicate clscan_verify_predicates[CLSCAN_VERIFY_PREDICATE_COUNT];

/* Flag patterns of select_flagged: no flag set, all set (random nonzero bytes, not just
 * 1), half set at random, alternating runs of set and clear flags of random lengths up
 * to 4000, about 1 in 100 set. */
enum {
    CLSCAN_VERIFY_FLAGS_NONE,
    CLSCAN_VERIFY_FLAGS_ALL,
    CLSCAN_VERIFY_FLAGS_HALF,
    CLSCAN_VERIFY_FLAGS_RUNS,
    CLSCAN_VERIFY_FLAGS_SPARSE,
    CLSCAN_VERIFY_FLAGS_COUNT
};
/* Data patterns of unique: runs of equal elements (lengths random, mostly short, some
 * up to 4000), all equal, no two neighbours equal, and runs of the type's special values
 * (floats: +0.0, -0.0, NaNs, infinities; integers: 0, 1, all ones, the minimum and the
 * maximum). */
enum {
    CLSCAN_VERIFY_DUPS_RUNS,
    CLSCAN_VERIFY_DUPS_EQUAL,
    CLSCAN_VERIFY_DUPS_DISTINCT,
    CLSCAN_VERIFY_DUPS_SPECIAL,
    CLSCAN_VERIFY_DUPS_COUNT
};

/* One compaction on a device. `pattern` is the flag pattern (select_flagged), the index
 * in clscan_verify_predicates (select_if, partition_if; unless `predicate` is set) or the
 * data pattern (unique). in_place: src and dst are one buffer and dst_offset is used for
 * both (src_offset is ignored). */
typedef struct clscan_verify_compact_case {
    clscan_verify_kind kind;
    clscan_type type;
    int pattern;
    size_t n, src_offset, flags_offset, dst_offset;
    int in_place;
    uint64_t seed; /* input data seed */
    const clscan_verify_predicate *predicate; /* if not NULL, used instead of the table */
} clscan_verify_compact_case;

/* The patterns that apply to (kind, type), written into out (at most cap); quick: only
 * those of the short matrix (for select_if and partition_if two predicates, each a
 * program build: the type's data predicate, and the runs or keep-nothing one, which
 * alternate over kinds and types). Returns how many. */
size_t clscan_verify_compact_patterns(clscan_verify_kind kind, clscan_type type, int quick,
                                      int *out, size_t cap);
/* A short name of the case's pattern for reports ("flags runs", "predicate \"x > 0\"",
 * "dups special"); static or c->predicate's text. */
const char *clscan_verify_pattern_name(const clscan_verify_compact_case *c, char *buf,
                                       size_t size);
/* Sets c's offsets and in_place for layout l of clscan_verify_layouts; the flags go at
 * offset 0 in layout 0 and at 5 otherwise. */
void clscan_verify_compact_layout(clscan_verify_compact_case *c, int l);

/* Fills src with c->n elements of c->type and, for select_flagged, flags with c->n flag
 * bytes, as c's kind, pattern and seed say. Selects and partitions get random values,
 * with special values (zeros, extremes, NaNs, infinities) mixed in; no float input is
 * denormal, so a device that flushes them compares as the host does. */
void clscan_verify_compact_fill(const clscan_verify_compact_case *c, void *src,
                                unsigned char *flags);

/* The host reference: writes into out (room for n elements) what the call must leave in
 * dst (the kept elements in order; for a partition then the rejected ones in reverse
 * order) and returns the count kept. pred is used by select_if and partition_if, flags
 * by select_flagged; unique compares neighbours with C's != on the type itself. */
size_t clscan_verify_compact_reference(clscan_verify_kind kind, clscan_type type,
                                       const clscan_verify_predicate *pred, const void *src,
                                       const unsigned char *flags, size_t n, void *out);

/* Runs one compaction case on `queue` with guard bands of poison around dst, src and
 * flags and a 64-byte count buffer, waits for the call's event, reads back and checks:
 * the count (bytes 0..7, a cl_ulong) exactly and bytes 8..63 untouched; dst bit for bit
 * ([0, kept) for selects and unique, whose [kept, n) must hold what was there before;
 * all n for a partition); nothing written outside; src and flags unchanged (src unless
 * in place). DOUBLE on a device without fp64 must be refused with
 * CLSCAN_ERROR_UNSUPPORTED and nothing written: a SKIP. Always writes a one-line reason
 * into msg. Releases everything it created. */
clscan_verify_result clscan_verify_run_compact(clscan_context *ctx, cl_context cl_ctx,
                                               cl_command_queue queue,
                                               const clscan_verify_compact_case *c,
                                               char *msg, size_t msg_size);

/* Compaction sizes: quick, a short list up to 2999 elements (Oclgrind runs it);
 * otherwise clscan_verify_sizes's full list and 2^20 + 7. */
size_t clscan_verify_compact_sizes(int quick, uint64_t seed, clscan_verify_size *out,
                                   size_t cap);

/* ------------------------------------------------------------------ sorts ------ */

/* The two sort calls. */
typedef enum clscan_verify_sort_kind {
    CLSCAN_VERIFY_SORT_KEYS = 0, /* clscan_sort_keys */
    CLSCAN_VERIFY_SORT_PAIRS = 1 /* clscan_sort_pairs */
} clscan_verify_sort_kind;
#define CLSCAN_VERIFY_SORT_KIND_COUNT 2

/* "sort_keys", "sort_pairs"; "invalid" otherwise. */
const char *clscan_verify_sort_kind_name(clscan_verify_sort_kind kind);

/* Key patterns: random bits (floats: NaNs and infinities included, at their rate among
 * all bit patterns), 16 distinct values (most keys equal to many others: the stability
 * check), random values mixed half and half with the type's special ones (floats: +-0.0,
 * +-INFINITY, NaNs of either sign, denormals, 1.0; integers: 0, 1, all ones, minimum,
 * maximum), distinct keys in descending order, random bits below 2^24 (the keys then
 * differ in their three lowest bytes only, the second of which is the highest that
 * varies: an even count of bytes below it), keys of which 15 in 16 are one value,
 * the others random (one bucket holding most keys), and random keys whose second byte is
 * always 0x5a ("gapped": a byte below the highest that no pass needs), and random bits
 * below 2^20, or 2^29 for 8-byte keys ("low": the highest bit that varies is not a
 * byte's highest). */
enum {
    CLSCAN_VERIFY_KEYS_RANDOM,
    CLSCAN_VERIFY_KEYS_FEW,
    CLSCAN_VERIFY_KEYS_SPECIAL,
    CLSCAN_VERIFY_KEYS_DESCENDING,
    CLSCAN_VERIFY_KEYS_NARROW,
    CLSCAN_VERIFY_KEYS_SKEWED,
    CLSCAN_VERIFY_KEYS_GAPPED,
    CLSCAN_VERIFY_KEYS_LOW,
    CLSCAN_VERIFY_KEYS_COUNT
};
/* "random", "few", "special", "descending", "narrow", "skewed", "gapped", "low";
 * "invalid" otherwise. */
const char *clscan_verify_keys_name(int pattern);

/* One sort on a device. Values (pairs) are the bits of their index i, so that the
 * output shows where each came from: i ^ 0xa5a5a5a5 in 4 bytes, or i in the low and ~i
 * in the high 4 of 8. in_place: keys_out and values_out are the input ranges (the
 * *_out offsets are ignored). */
typedef struct clscan_verify_sort_case {
    clscan_verify_sort_kind kind;
    clscan_type key_type, value_type;
    int pattern;
    size_t n, keys_offset, values_offset, keys_out_offset, values_out_offset;
    int in_place;
    uint64_t seed;
} clscan_verify_sort_case;

/* The key's bits (zero-extended) as an unsigned integer with the sort's order (see
 * clscan.h: signed integers flip the sign bit, floats the usual radix flip). */
uint64_t clscan_verify_sort_ordered(uint64_t bits, clscan_type type);
/* Sets c's offsets and in_place for layout l of clscan_verify_layouts: [0] all offsets
 * 0; [1] keys 3, values 5, keys_out 17, values_out 9; [2] in place, keys at 5, values
 * at 7. */
void clscan_verify_sort_layout(clscan_verify_sort_case *c, int l);
/* Fills keys with c->n keys of c->key_type as c's pattern and seed say. */
void clscan_verify_sort_fill(const clscan_verify_sort_case *c, void *keys);
/* The host reference: perm[i] receives the input index of the key that belongs at
 * output i (a stable sort by the ordered bits). Returns 0, or -1 when out of memory. */
int clscan_verify_sort_reference(clscan_type key_type, const void *keys, size_t n,
                                 size_t *perm);
/* Runs one sort case on `queue` with guard bands of poison before and after every
 * range, waits for the call's event, reads back and checks: keys_out (and values_out)
 * bit for bit against the reference, nothing written outside them, the inputs unchanged
 * (unless in place). DOUBLE keys on a device without fp64 must be refused with
 * CLSCAN_ERROR_UNSUPPORTED and nothing written: a SKIP. Always writes a one-line reason
 * into msg. Releases everything it created. */
clscan_verify_result clscan_verify_run_sort(clscan_context *ctx, cl_context cl_ctx,
                                            cl_command_queue queue,
                                            const clscan_verify_sort_case *c, char *msg,
                                            size_t msg_size);

#endif /* CLSCAN_VERIFY_H */
