/* base.h - the bottom layer of src/: errors and the per-thread last error, kernel
 * arguments set in order, type and operator checks, small parsers, hashes, the registry
 * of live contexts, the embedded cl/ sources, and the observation hooks for tools.
 * Includes nothing of the library's but clscan.h; every other layer builds on it
 * (docs/ARCHITECTURE.md). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_BASE_H
#define CLSCAN_BASE_H

#include "clscan.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Conventions: a function that can fail for a reason returns clscan_status (and records
 * the reason); a question or a step that can only succeed or not returns bool. */

/* ---------------------------------------------------------------- errors ---- */

/* Records a message for the calling thread (see clscan_context_last_error) and returns
 * `status`, so that validation reads `return clscan__fail(ctx, CODE, "...", ...)`. ctx
 * is only compared with the live contexts: any layer may pass it. */
clscan_status clscan__fail(const clscan_context *ctx, clscan_status status, const char *fmt,
                           ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Like clscan__fail for an OpenCL error: "what: CL_NAME (code)". */
clscan_status clscan__fail_cl(const clscan_context *ctx, cl_int err, const char *what);
/* Stores a long text (a build log) as the calling thread's last error, with a prefix. */
clscan_status clscan__fail_text(const clscan_context *ctx, clscan_status status,
                                const char *prefix, const char *text);

#define CLSCAN__RETURN_IF(ctx, cond, status, ...)                  \
    do {                                                          \
        if (cond) return clscan__fail((ctx), (status), __VA_ARGS__); \
    } while (0)
#define CLSCAN__FORWARD_CL(ctx, call, what)                        \
    do {                                                          \
        cl_int clscan_err_ = (call);                              \
        if (clscan_err_ != CL_SUCCESS) return clscan__fail_cl((ctx), clscan_err_, (what)); \
    } while (0)

/* ---------------------------------------------------------- kernel args ---- */

/* A kernel's arguments, set in the order of its parameter list: clscan__args_begin
 * starts at argument `first`, and each CLSCAN__ARG or clscan__arg_bytes sets the next
 * one and counts, unless an earlier one failed: err keeps the first error, for one check
 * at the end (`if (a.err != CL_SUCCESS) return clscan__fail_cl(ctx, a.err, ...)`). */
typedef struct clscan__kernel_args {
    cl_kernel kernel;
    cl_uint next;   /* the index the next argument gets */
    cl_int err;     /* CL_SUCCESS, or the first failure */
} clscan__kernel_args;

static inline clscan__kernel_args clscan__args_begin(cl_kernel kernel, cl_uint first)
{
    clscan__kernel_args a = {kernel, first, CL_SUCCESS};
    return a;
}
/* Sets the next argument to `size` bytes at `value` (NULL with a size: local memory). */
static inline void clscan__arg_bytes(clscan__kernel_args *a, size_t size, const void *value)
{
    if (a->err == CL_SUCCESS) a->err = clSetKernelArg(a->kernel, a->next, size, value);
    ++a->next;
}
/* Sets the next argument of `a` (a clscan__kernel_args) to the lvalue v, of its size. */
#define CLSCAN__ARG(a, v) clscan__arg_bytes(&(a), sizeof(v), &(v))

/* ---------------------------------------------------------------- types ----- */

bool clscan__type_valid(int type);
bool clscan__op_valid(int op);
bool clscan__type_is_float(clscan_type type);
/* The OpenCL C name of a valid type: "int", "uint", "long", "ulong", "float", "double". */
const char *clscan__type_cl_name(clscan_type type);
/* The library type whose OpenCL C name is `name` (int, uint, long, ulong, float,
 * double), or -1. */
int clscan__type_from_cl_name(const char *name);

/* ---------------------------------------------------------------- text ------ */

/* Whole-token search in a space-separated list ("cl_khr_fp64 cl_khr_int64..."). */
bool clscan__has_token(const char *list, const char *token);
/* Parses "OpenCL 3.0 ..." (prefix "OpenCL ") or "OpenCL C 1.2 ..." ("OpenCL C "). */
bool clscan__parse_version(const char *text, const char *prefix, int *major, int *minor);
/* Whether a user text may make the OpenCL C preprocessor read a file: where it has a
 * directive sign (# or %:) and, read across line splices, one of the words include,
 * include_next, import, embed, __has_include, __has_include_next, __has_embed, that word;
 * else NULL. (Conservative: the word in a comment or a name of the text's own counts.) */
const char *clscan__text_reads_files(const char *text);
/* Parses a size with an optional K, M or G suffix (powers of 1024). */
bool clscan__parse_size(const char *text, unsigned long long *out);

/* Appends to buf (size bytes in all) like snprintf at offset *len, and adds to *len the
 * length the text needs, so that a caller learns the full length after a truncation. */
void clscan__append(char *buf, size_t size, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Looks `name` up; returns its value or NULL. The library reads its settings through
 * one of these: the environment, context options over the environment, or a test's
 * table. */
typedef const char *(*clscan__getenv_fn)(const char *name, void *user);

/* ---------------------------------------------------------------- hashes ---- */

/* FNV-1a over bytes, continuing from h (start: 0xcbf29ce484222325), and an unrelated
 * hash over 64-bit little-endian words with a final avalanche. */
uint64_t clscan__hash_fnv1a64(uint64_t h, const void *data, size_t len);
uint64_t clscan__hash_mix64(uint64_t seed, const void *data, size_t len);
/* Little-endian integers in byte buffers (the disk cache's file format). */
uint64_t clscan__load_le64(const unsigned char *p);
uint32_t clscan__load_le32(const unsigned char *p);
void clscan__store_le64(unsigned char *p, uint64_t v);
void clscan__store_le32(unsigned char *p, uint32_t v);

/* -------------------------------------------------------------- registry ---- */

/* Whether ctx is a context clscan_context_create made and clscan_context_release has
 * not released. Track adds ctx and returns its process-unique id (0: out of memory);
 * untrack removes it (0: it was not there); id is ctx's id, 0 when it is not live.
 * Creation and release use them, and unit tests with contexts of their own. */
unsigned long clscan__context_track(const clscan_context *ctx);
bool clscan__context_untrack(const clscan_context *ctx);
unsigned long clscan__context_id(const clscan_context *ctx);
bool clscan__context_live(const clscan_context *ctx);
/* CLSCAN_ERROR_INVALID_ARGUMENT, with a message, unless ctx is live. */
clscan_status clscan__check_context(const clscan_context *ctx);

/* -------------------------------------------------------------- embedded ---- */

/* The embedded cl/ file of that name and its length, or NULL. */
const char *clscan__embedded_source(const char *file_name, size_t *length);

/* ----------------------------------------------------------------- hooks ---- */

/* Process-wide counters of the program cache, for tests and clscan_ext.h. */
typedef enum clscan__cache_counter {
    CLSCAN__CACHE_PROGRAMS = 0,  /* programs a context did not have and made */
    CLSCAN__CACHE_SOURCE_BUILDS, /* clBuildProgram from source */
    CLSCAN__CACHE_LOADED,        /* programs built from a cached binary */
    CLSCAN__CACHE_MISSING,       /* lookups that found no file */
    CLSCAN__CACHE_REJECTED,      /* files truncated, corrupt or foreign */
    CLSCAN__CACHE_REFUSED,       /* valid files whose binary the driver refused */
    CLSCAN__CACHE_WRITTEN,       /* files written */
    CLSCAN__CACHE_WRITE_FAILED,  /* binaries that could not be written */
    CLSCAN__CACHE_EVICTED,       /* programs a context released to stay within its caps */
    CLSCAN__CACHE_STAT_COUNT
} clscan__cache_counter;
void clscan__cache_stat_add(clscan__cache_counter which);
unsigned long clscan__cache_stat(clscan__cache_counter which);

/* While set on the calling thread, every kernel the library enqueues from this thread
 * has its event retained into trace[*count] (up to cap; the caller releases them). Pass
 * NULL to stop. clscan__trace_event records one event (the launch layer calls it). */
void clscan__trace_events(cl_event *trace, size_t cap, size_t *count);
void clscan__trace_event(cl_event e);
/* Whether a trace is set on the calling thread (its kernels then need events). */
bool clscan__tracing(void);
/* While set on the calling thread (NULL stops), single-pass scans count into buffer
 * `stats` (cl_uint [0]: fallback reductions, [1]: fallbacks published) instead of their
 * scratch header; the second returns the calling thread's buffer, or NULL. */
void clscan__lookback_stats(cl_mem stats);
cl_mem clscan__lookback_stats_buffer(void);
/* While set (process-wide, set before the builds it watches; NULL stops), every program
 * the library builds from source that compiles passes its build log to fn, split
 * (src/kernels/build.c): the lines on the library's own code, those on the caller's
 * texts (a predicate, a general scan's source and expressions: "" where none), and the
 * program's first line (what it is). For the test that fails on a compiler's warnings in
 * the library's code (tests/test_build_log.c). fn may be called from any thread. */
typedef void (*clscan__build_log_fn)(const char *library_lines, const char *user_lines,
                                     const char *program, void *user);
void clscan__build_log_hook(clscan__build_log_fn fn, void *user);
clscan__build_log_fn clscan__build_log_hook_get(void **user);

#endif /* CLSCAN_BASE_H */
