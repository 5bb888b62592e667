/* general.c - clscan_scan: general scans (custom operators and types, input transforms,
 * segments by flags or keys). Argument checks; the prelude of OpenCL C generated from the
 * description (types, operator, transform, the segmented pair) that a general program is
 * built with; then the single-pass kernel or the multi-level scan, as for the scans. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest user type the library takes (local memory holds a tile of them), and the
 * longest type name (the prelude's function signatures are written into fixed buffers). */
#define MAX_TYPE_SIZE 256
#define MAX_TYPE_NAME 64
/* The longest memo key of a description (its fields and texts, desc_key), and the prelude
 * a call copies out of the memo without allocating. */
#define MEMO_KEY_BYTES 4096
#define MEMO_VALUE_BYTES 4096


/* What the checks settle about a call's description. */
typedef struct general_plan {
    const clscan_scan_desc *d;
    const char *out_name; /* OpenCL C name of the scan (and dst) type */
    const char *in_name;  /* of src's elements */
    size_t out_size, in_size, seg_size;
    int uses_double;      /* some type is double: the prelude enables fp64 */
    int widens;           /* input_type_name without a transform: converted to the scan
                             type as it is loaded */
    int sparse;           /* 0, or the elements outside which the output stage does
                             nothing (CLSCAN__SPARSE_ENDS, _HEADS; reduce by key:
                             clscan__scan_output_sparse, tiled_value_bytes) */
    /* The description's memo key (desc_key; key_len 0: none, the texts too long for it)
     * and the scan algorithm and tile (small_tiles) it was made for. */
    size_t key_len;
    clscan__scan_algo key_algo;
    int key_small;
    unsigned char key[MEMO_KEY_BYTES];
} general_plan;

/* Whether the kernels have the vector path for the plan's segmented scans (a library
 * type under a built-in operator, no transform or user type: CLSCAN_GEN_VEC_OP), taken
 * where a work-group has one work-item. */
static int vector_path(const general_plan *g)
{
    const clscan_scan_desc *d = g->d;
    return d->segments != CLSCAN_SEGMENTS_NONE && !d->combine && !d->transform && !g->widens &&
           !d->type_name;
}

static int is_blank(const char *text)
{
    return text[strspn(text, " \t\r\n")] == '\0';
}

/* Checks one optional expression or source text: NULL is fine, empty is not. */
static clscan_status check_text(const clscan_context *ctx, const char *text, const char *name)
{
    char full[40];
    snprintf(full, sizeof full, "desc->%s", name);
    clscan_status s = clscan__check_text_length(ctx, text, full);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, text && is_blank(text), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->%s is empty", name);
    return CLSCAN_SUCCESS;
}

/* Whether elements of `from` convert to `to` without loss (or are of it). */
static int widens_to(clscan_type from, clscan_type to)
{
    return from == to || (from == CLSCAN_INT32 && to == CLSCAN_INT64) ||
           (from == CLSCAN_UINT32 && (to == CLSCAN_UINT64 || to == CLSCAN_INT64)) ||
           (from == CLSCAN_FLOAT && to == CLSCAN_DOUBLE);
}

/* The OpenCL C names of a checked plan's scan type and input type (the prelude's). */
static void plan_names(general_plan *g)
{
    const clscan_scan_desc *d = g->d;
    g->out_name = d->type_name ? d->type_name : clscan__type_cl_name(d->type);
    g->in_name = d->input_type_name ? d->input_type_name : g->out_name;
}

/* Checks the description and fills *g. */
static clscan_status check_desc(const clscan_context *ctx, const clscan_scan_desc *d,
                                general_plan *g)
{
    memset(g, 0, offsetof(general_plan, key_len));
    g->d = d;
    CLSCAN__RETURN_IF(ctx, d == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "desc is NULL");
    clscan_status s;
    if ((s = check_text(ctx, d->source, "source")) != CLSCAN_SUCCESS ||
        (s = check_text(ctx, d->combine, "combine")) != CLSCAN_SUCCESS ||
        (s = check_text(ctx, d->identity, "identity")) != CLSCAN_SUCCESS ||
        (s = check_text(ctx, d->transform, "transform")) != CLSCAN_SUCCESS ||
        (s = check_text(ctx, d->type_name, "type_name")) != CLSCAN_SUCCESS ||
        (s = check_text(ctx, d->input_type_name, "input_type_name")) != CLSCAN_SUCCESS)
        return s;
    if ((s = check_text(ctx, d->output, "output")) != CLSCAN_SUCCESS) return s;
    for (int k = 0; k < 4; ++k) {
        char name[24];
        snprintf(name, sizeof name, "output_types[%d]", k);
        if ((s = check_text(ctx, d->output_types[k], name)) != CLSCAN_SUCCESS) return s;
        CLSCAN__RETURN_IF(ctx, d->output_types[k] && !d->output, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "desc->output_types[%d] is given without desc->output", k);
        CLSCAN__RETURN_IF(ctx, d->output_types[k] && strlen(d->output_types[k]) > MAX_TYPE_NAME,
                         CLSCAN_ERROR_INVALID_ARGUMENT,
                         "desc->output_types[%d] is longer than %d characters", k,
                         MAX_TYPE_NAME);
    }
    CLSCAN__RETURN_IF(ctx, d->type_name && strlen(d->type_name) > MAX_TYPE_NAME,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->type_name is longer than %d characters", MAX_TYPE_NAME);
    CLSCAN__RETURN_IF(ctx, d->input_type_name && strlen(d->input_type_name) > MAX_TYPE_NAME,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->input_type_name is longer than %d characters", MAX_TYPE_NAME);
    CLSCAN__RETURN_IF(ctx, (d->combine == NULL) != (d->identity == NULL),
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->%s is given without desc->%s: a custom operator needs both",
                     d->combine ? "combine" : "identity", d->combine ? "identity" : "combine");
    if (d->type_name) {
        CLSCAN__RETURN_IF(ctx, d->combine == NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "desc->type_name \"%s\" needs desc->combine and desc->identity "
                         "(built-in operators work on the library's types only)",
                         d->type_name);
        CLSCAN__RETURN_IF(ctx, d->type_size == 0 || d->type_size % 4 != 0 ||
                                  d->type_size > MAX_TYPE_SIZE,
                         CLSCAN_ERROR_INVALID_ARGUMENT,
                         "desc->type_size is %zu: the size of \"%s\" must be a multiple of 4 "
                         "from 4 to %d bytes",
                         d->type_size, d->type_name, MAX_TYPE_SIZE);
        g->out_size = d->type_size;
    } else {
        CLSCAN__RETURN_IF(ctx, !clscan__type_valid((int)d->type), CLSCAN_ERROR_INVALID_ARGUMENT,
                         "desc->type %d is not a clscan_type", (int)d->type);
        if (!d->combine && (s = clscan__check_type_op(ctx, d->type, d->op)) != CLSCAN_SUCCESS)
            return s;
        g->out_size = clscan_type_size(d->type);
        g->uses_double |= d->type == CLSCAN_DOUBLE;
    }
    if (d->transform && d->input_type_name) {
        const int t = clscan__type_from_cl_name(d->input_type_name);
        if (t >= 0) {
            g->in_size = clscan_type_size((clscan_type)t);
            g->uses_double |= t == CLSCAN_DOUBLE;
        } else {
            CLSCAN__RETURN_IF(ctx, d->input_type_size == 0, CLSCAN_ERROR_INVALID_ARGUMENT,
                             "desc->input_type_name \"%s\" is not a library type's name "
                             "(int, uint, long, ulong, float, double): give its size in "
                             "desc->input_type_size",
                             d->input_type_name);
            g->in_size = d->input_type_size;
        }
    } else if (d->input_type_name) {
        /* No transform: a library type the scan type holds without loss. */
        const int t = clscan__type_from_cl_name(d->input_type_name);
        CLSCAN__RETURN_IF(ctx, t < 0 || d->type_name || !widens_to((clscan_type)t, d->type),
                         CLSCAN_ERROR_INVALID_ARGUMENT,
                         "desc->input_type_name \"%s\" is given without desc->transform: "
                         "only a library type the scan type holds without loss converts "
                         "implicitly (int to long; uint to ulong or long; float to double)",
                         d->input_type_name);
        g->in_size = clscan_type_size((clscan_type)t);
        g->widens = t != (int)d->type;
    } else {
        g->in_size = g->out_size;
    }
    switch (d->segments) {
    case CLSCAN_SEGMENTS_NONE: break;
    case CLSCAN_SEGMENTS_FLAGS: g->seg_size = 1; break;
    case CLSCAN_SEGMENTS_KEYS:
        CLSCAN__RETURN_IF(ctx, !clscan__type_valid((int)d->key_type),
                         CLSCAN_ERROR_INVALID_ARGUMENT, "desc->key_type %d is not a clscan_type",
                         (int)d->key_type);
        g->seg_size = clscan_type_size(d->key_type);
        g->uses_double |= d->key_type == CLSCAN_DOUBLE;
        break;
    default:
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ARGUMENT,
                            "desc->segments %d is not a clscan_segments value",
                            (int)d->segments);
    }
    CLSCAN__RETURN_IF(ctx, d->compensated && (d->type_name || d->combine ||
                                              (d->type != CLSCAN_FLOAT &&
                                               d->type != CLSCAN_DOUBLE) ||
                                              d->op != CLSCAN_OP_ADD),
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->compensated is set: a compensated sum is CLSCAN_FLOAT or "
                     "CLSCAN_DOUBLE with the built-in CLSCAN_OP_ADD");
    CLSCAN__RETURN_IF(ctx, d->compensated && d->segments != CLSCAN_SEGMENTS_NONE,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->compensated is set: compensated sums take no segments");
    CLSCAN__RETURN_IF(ctx, g->uses_double && !ctx->target.profile.fp64, CLSCAN_ERROR_UNSUPPORTED,
                     "device %s has no double precision (fp64)", ctx->target.profile.device_name);
    plan_names(g);
    return CLSCAN_SUCCESS;
}

/* ------------------------------------------------------------------- memo --- */

/* A description is checked, and its prelude formatted, once: the context's memo
 * (runtime/memo.c) keeps what they gave under the exact bytes of every field they read,
 * so that a later call with the same bytes (whatever its pointers) skips both. Formatting
 * the prelude took longer on the host than the enqueue itself. */

/* The description's texts, in the order its key holds them. */
enum { DESC_TEXTS = 11 };
static void desc_texts(const clscan_scan_desc *d, const char *t[DESC_TEXTS])
{
    const char *const all[DESC_TEXTS] = {d->type_name, d->source, d->combine, d->identity,
                                         d->transform, d->input_type_name, d->output,
                                         d->output_types[0], d->output_types[1],
                                         d->output_types[2], d->output_types[3]};
    memcpy(t, all, sizeof all);
}

/* What a key holds before the texts: every other field the checks, the prelude and the
 * program's shape read (not index_base, a kernel argument), the scan algorithm, whether
 * the tile is the small one (small_tiles), and each text's length + 1 (0: NULL). */
typedef struct desc_key_head {
    int type, op, segments, key_type, compensated, algo, sparse, small;
    size_t type_size, input_type_size;
    size_t lens[DESC_TEXTS];
} desc_key_head;

/* What the memo keeps: the checks' sizes and, once a program was shaped (general_program),
 * its configuration, whose prelude's bytes follow (with their terminating zero). */
typedef struct desc_memo {
    size_t out_size, in_size, seg_size;
    int uses_double, widens;
    int shaped;
    clscan__scan_config cfg; /* (prelude: NULL here) */
    uint64_t program_hash;   /* of cfg with the prelude (clscan__program_get_hashed) */
} desc_memo;

/* Writes d's key for algo and sparse (general_plan.sparse) into g (key_len 0 where it
 * does not fit: no memo). */
static void desc_key(const clscan_scan_desc *d, clscan__scan_algo algo, int sparse,
                     int small, general_plan *g)
{
    desc_key_head h;
    memset(&h, 0, sizeof h); /* (padding too: keys are compared as bytes) */
    h.type = (int)d->type;
    h.op = (int)d->op;
    h.segments = (int)d->segments;
    h.key_type = (int)d->key_type;
    h.compensated = d->compensated;
    h.algo = (int)algo;
    h.sparse = sparse;
    h.small = small;
    h.type_size = d->type_size;
    h.input_type_size = d->input_type_size;
    const char *t[DESC_TEXTS];
    desc_texts(d, t);
    g->key_len = 0;
    g->key_algo = algo;
    g->key_small = small;
    size_t len = sizeof h;
    for (int i = 0; i < DESC_TEXTS; ++i) {
        if (!t[i]) continue;
        h.lens[i] = strnlen(t[i], sizeof g->key) + 1;
        if ((len += h.lens[i]) > sizeof g->key) return;
    }
    memcpy(g->key, &h, sizeof h);
    len = sizeof h;
    for (int i = 0; i < DESC_TEXTS; ++i) {
        if (!t[i]) continue;
        memcpy(g->key + len, t[i], h.lens[i]);
        len += h.lens[i];
    }
    g->key_len = len;
}

/* Copies what check_desc settled about g into m. */
static void memo_sizes(const general_plan *g, desc_memo *m)
{
    m->out_size = g->out_size;
    m->in_size = g->in_size;
    m->seg_size = g->seg_size;
    m->uses_double = g->uses_double;
    m->widens = g->widens;
}

/* check_desc through the memo, with the key of the device's scan algorithm; sparse:
 * general_plan.sparse. */
static clscan_status plan_desc(clscan_context *ctx, const clscan_scan_desc *d, int sparse,
                               general_plan *g)
{
    CLSCAN__RETURN_IF(ctx, d == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "desc is NULL");
    desc_key(d, ctx->target.profile.scan_algo, sparse, 0, g);
    desc_memo m;
    if (g->key_len && clscan__memo_get(ctx, g->key, g->key_len, &m, sizeof m)) {
        memset(g, 0, offsetof(general_plan, key_len));
        g->d = d;
        g->out_size = m.out_size;
        g->in_size = m.in_size;
        g->seg_size = m.seg_size;
        g->uses_double = m.uses_double;
        g->widens = m.widens;
        g->sparse = sparse;
        plan_names(g);
        return CLSCAN_SUCCESS;
    }
    clscan_status s = check_desc(ctx, d, g);
    g->sparse = sparse;
    if (s == CLSCAN_SUCCESS && g->key_len) {
        memset(&m, 0, sizeof m);
        memo_sizes(g, &m);
        clscan__memo_put(ctx, g->key, g->key_len, &m, sizeof m);
    }
    return s;
}

clscan_status clscan__desc_sizes(clscan_context *ctx, const clscan_scan_desc *desc,
                                 size_t *in_size, size_t *out_size)
{
    general_plan g;
    clscan_status s = plan_desc(ctx, desc, 0, &g);
    if (s != CLSCAN_SUCCESS) return s;
    *in_size = g.in_size;
    *out_size = g.out_size;
    return CLSCAN_SUCCESS;
}

clscan_status clscan__check_desc_call(clscan_context *ctx, cl_command_queue queue,
                                     const clscan_scan_desc *desc, cl_uint nwait,
                                     const cl_event *wait, bool *in_order, size_t *in_size,
                                     size_t *out_size)
{
    /* (The type and op checked first are placeholders: the description's are checked
     * with it.) */
    clscan_status s = clscan__check_call(ctx, queue, CLSCAN_INT32, CLSCAN_OP_ADD, nwait, wait,
                                         in_order);
    if (s != CLSCAN_SUCCESS) return s;
    return clscan__desc_sizes(ctx, desc, in_size, out_size);
}

int clscan__desc_is_plain(const clscan_scan_desc *desc)
{
    return !desc->combine && !desc->transform && !desc->output && !desc->compensated &&
           desc->segments == CLSCAN_SEGMENTS_NONE &&
           !desc->type_name &&
           (!desc->input_type_name ||
            clscan__type_from_cl_name(desc->input_type_name) == (int)desc->type);
}

/* Checks the carry of a call whose other ranges are checked. */
static clscan_status check_carry(const clscan_context *ctx, const general_plan *g, cl_mem src,
                                 size_t src_b, cl_mem seg, size_t seg_offset, cl_mem dst,
                                 size_t dst_b, size_t n, bool no_dst, const clscan_carry *carry,
                                 clscan__carry_args *ca)
{
    const clscan__byte_range ranges[3] = {
        {src, "src", src_b, n * g->in_size},
        {no_dst ? NULL : dst, "dst", dst_b, n * g->out_size},
        {seg, "segments", seg_offset * g->seg_size, n * g->seg_size}};
    return clscan__check_carry(ctx, carry, g->out_size, no_dst, ranges, 3, ca);
}

/* Checks the buffers of the call against the plan, and the carry (filling *ca). dst
 * NULL with a total asked for: a reduction. */
static clscan_status check_buffers(const clscan_context *ctx, const general_plan *g, cl_mem src,
                                   size_t src_offset, cl_mem seg, size_t seg_offset, cl_mem dst,
                                   size_t dst_offset, size_t n, const clscan_carry *carry,
                                   clscan__carry_args *ca)
{
    clscan_status s;
    /* dst NULL: an output stage alone, or else a reduction (which needs the total). */
    const bool skip_store = dst == NULL && g->d->output;
    const bool no_dst = dst == NULL && !skip_store && carry && carry->out_buffer;
    if ((s = clscan__check_range(ctx, src, "src", src_offset, n, g->in_size)) != CLSCAN_SUCCESS)
        return s;
    if (no_dst || skip_store)
        CLSCAN__RETURN_IF(ctx, dst_offset != 0, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "dst is NULL (%s) but dst_offset is %zu",
                         skip_store ? "the output stage alone" : "a reduction", dst_offset);
    else if ((s = clscan__check_range(ctx, dst, "dst", dst_offset, n, g->out_size)) !=
             CLSCAN_SUCCESS)
        return s;
    /* (Byte offsets cannot overflow once the ranges checked out.) */
    const size_t src_b = src_offset * g->in_size, dst_b = no_dst ? 0 : dst_offset * g->out_size;
    const int in_place = src == dst && src_b == dst_b && g->in_size == g->out_size;
    if (!in_place &&
        (s = clscan__check_disjoint(ctx, src, "src", src_b, n * g->in_size, dst, "dst", dst_b,
                                    n * g->out_size)) != CLSCAN_SUCCESS)
        return s;
    if (g->d->segments == CLSCAN_SEGMENTS_NONE) {
        CLSCAN__RETURN_IF(ctx, seg != NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "segments is given but desc->segments is CLSCAN_SEGMENTS_NONE");
        return check_carry(ctx, g, src, src_b, NULL, 0, dst, dst_b, n, no_dst, carry, ca);
    }
    CLSCAN__RETURN_IF(ctx, seg == NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "segments is NULL but desc->segments asks for %s",
                     g->d->segments == CLSCAN_SEGMENTS_FLAGS ? "flags" : "keys");
    if ((s = clscan__check_range(ctx, seg, "segments", seg_offset, n, g->seg_size)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__check_disjoint(ctx, seg, "segments", seg_offset * g->seg_size,
                                    n * g->seg_size, dst, "dst", dst_b, n * g->out_size)) !=
            CLSCAN_SUCCESS)
        return s;
    return check_carry(ctx, g, src, src_b, seg, seg_offset, dst, dst_b, n, no_dst, carry, ca);
}

/* ------------------------------------------------------------------ prelude -- */

/* A growing string; on allocation failure it becomes NULL and stays so. */
typedef struct text {
    char *buf;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(text *t, const char *fmt, ...)
{
    if (t->failed) return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (t->len + (size_t)n + 1 > cap) cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b) {
            t->failed = 1;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* A function `ret name(params)` returning the user's expression, which compiler messages
 * then call line 1 of `label`. */
static void put_expression(text *t, const char *ret, const char *name, const char *params,
                           const char *unused, const char *label, const char *expr)
{
    put(t, "%s %s(%s)\n{\n%s    return (\n#line 1 \"%s\"\n%s\n#line 1 \"libclscan\"\n    );\n}\n",
        ret, name, params, unused, label, expr);
}

/* The combine and identity expressions of built-in op on a library type, for the prelude
 * (as cl/clscan_common.cl defines them: integers wrap, float MIN/MAX ignore NaN). lanes
 * "" combines two values a and b; "8" two vectors of eight (the vector path of
 * cl/clscan_general_tile.cl, as a macro over a and b: the operands are parenthesised). */
static void builtin_op_text(clscan_type t, clscan_op op, const char *lanes, char *combine,
                            size_t csize, char *identity, size_t isize)
{
    const char *T = clscan__type_cl_name((clscan_type)t);
    const int fl = clscan__type_is_float(t), is_signed = t == CLSCAN_INT32 || t == CLSCAN_INT64;
    const char *U = t == CLSCAN_INT32 ? "uint" : "ulong";
    static const char *const max_names[CLSCAN_TYPE_COUNT] = {"INT_MAX",   "UINT_MAX",
                                                             "LONG_MAX",  "ULONG_MAX",
                                                             "INFINITY", "(double)INFINITY"};
    static const char *const min_names[CLSCAN_TYPE_COUNT] = {"INT_MIN",    "0u",
                                                             "LONG_MIN",   "0ul",
                                                             "-INFINITY", "-(double)INFINITY"};
    switch (op) {
    case CLSCAN_OP_ADD:
    case CLSCAN_OP_MUL: {
        const char sym = op == CLSCAN_OP_ADD ? '+' : '*';
        if (is_signed)
            snprintf(combine, csize, "as_%s%s(as_%s%s(a) %c as_%s%s(b))", T, lanes, U, lanes,
                     sym, U, lanes);
        else
            snprintf(combine, csize, "(a) %c (b)", sym);
        snprintf(identity, isize, "(%s)%d", T, op == CLSCAN_OP_ADD ? 0 : 1);
        break;
    }
    case CLSCAN_OP_MIN:
    case CLSCAN_OP_MAX: {
        const int mn = op == CLSCAN_OP_MIN;
        /* (On vectors of doubles, in halves of four lanes: cl/clscan_common.cl,
         * CLSCAN_VLOAD8, says why.) */
        const char *f = mn ? "fmin" : "fmax";
        if (t == CLSCAN_DOUBLE && lanes[0])
            snprintf(combine, csize, "(%s%s)(%s((a).lo, (b).lo), %s((a).hi, (b).hi))", T, lanes, f,
                     f);
        else if (fl) snprintf(combine, csize, "%s(a, b)", f);
        else snprintf(combine, csize, "(a) %c (b) ? (a) : (b)", mn ? '<' : '>');
        snprintf(identity, isize, "(%s)%s", T, mn ? max_names[t] : min_names[t]);
        break;
    }
    default: {
        const char sym = op == CLSCAN_OP_AND ? '&' : op == CLSCAN_OP_OR ? '|' : '^';
        snprintf(combine, csize, "(a) %c (b)", sym);
        if (op == CLSCAN_OP_AND) snprintf(identity, isize, "(%s)~(%s)0", T, T);
        else snprintf(identity, isize, "(%s)0", T);
        break;
    }
    }
}

/* Whether the scan's elements are a type of the prelude's (a user's type, or the
 * segmented pair) rather than a library type cl/clscan_common.cl defines. */
static int custom_scan_type(const clscan_scan_desc *d)
{
    return d->type_name != NULL || d->segments != CLSCAN_SEGMENTS_NONE || d->compensated;
}

/* 32-bit words of explicit padding in a segmented scan's pair { value; uint f; pad },
 * so that the pair has no implicit padding (whose bytes would be copied uninitialised)
 * and its size is known on the host: the value's alignment divides its size, so padding
 * the pair to the largest of 16, 8 and 4 that divides the value's size suffices (the
 * prelude checks the size). */
static size_t pair_pad_words(size_t value_size)
{
    const size_t align = value_size % 16 == 0 ? 16 : value_size % 8 == 0 ? 8 : 4;
    return (align - (value_size + 4) % align) % align / 4;
}

/* Bytes of the scan's element on the device (a user's type or a pair: checked there). */
static size_t scan_elem_bytes(const general_plan *g)
{
    if (g->d->compensated) return 2 * g->out_size; /* (s, c) */
    if (g->d->segments == CLSCAN_SEGMENTS_NONE) return g->out_size;
    return g->out_size + 4 + 4 * pair_pad_words(g->out_size);
}

/* Whether any association of the scan's operator gives the same bits: a built-in
 * operator on an integer type (wrapping add and multiply, min, max and the bitwise ones).
 * A transform or an output stage does not change the operator. */
static int exact_operator(const clscan_scan_desc *d)
{
    return !d->combine && !d->compensated && !clscan__type_is_float(d->type);
}

/* The prelude: the user's source, then the value operator, its identity and the
 * transform as functions around the user's expressions, the segmented pair and its
 * operator, and static checks of the sizes the host was told. */
static char *make_prelude(const general_plan *g)
{
    const clscan_scan_desc *d = g->d;
    const char *V = g->out_name;
    text t = {0};
    put(&t, "/* libclscan general scan: the user's source and the generated operator */\n");
    if (g->uses_double) put(&t, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    if (d->source) put(&t, "#line 1 \"source\"\n%s\n#line 1 \"libclscan\"\n", d->source);
    /* A macro of the source named like a keyword would reach the library's code, and
     * could make the size checks below pass a wrong size (a `#define sizeof(x) 8` let a
     * scan write past dst on PoCL, issue 20): from here on they are keywords again. */
    put(&t, "#undef sizeof\n#undef typedef\n#undef char\n#undef struct\n#undef union\n");
    char combine[96], identity[96];
    if (!d->combine)
        builtin_op_text(d->type, d->op, "", combine, sizeof combine, identity, sizeof identity);
    const char *cexpr = d->combine ? d->combine : combine;
    const char *iexpr = d->combine ? d->identity : identity;
    char params[160];
    snprintf(params, sizeof params, "const %s a, const %s b", V, V);
    put_expression(&t, V, "clscan_user_value_op", params, "", "combine", cexpr);
    put_expression(&t, V, "clscan_user_value_identity", "void", "", "identity", iexpr);
    put(&t, "#define CLSCAN_GEN_OUT %s\n#define CLSCAN_GEN_IN %s\n", V, g->in_name);
    if (g->widens) { /* the implicit conversion, as a transform */
        snprintf(params, sizeof params, "const %s x, const ulong i", g->in_name);
        put(&t, "#define CLSCAN_GEN_TRANSFORM_GIVEN 1\n");
        char convert[96];
        snprintf(convert, sizeof convert, "(%s)x", V);
        put_expression(&t, V, "clscan_user_transform", params, "    (void)i;\n", "transform",
                       convert);
    } else if (d->transform) {
        snprintf(params, sizeof params, "const %s x, const ulong i", g->in_name);
        put(&t, "#define CLSCAN_GEN_TRANSFORM_GIVEN 1\n");
        put_expression(&t, V, "clscan_user_transform", params, "    (void)x;\n    (void)i;\n",
                       "transform", d->transform);
    }
    if (d->output) { /* the output stage: its buffers' types, then the user's statements */
        put(&t, "#define CLSCAN_GEN_OUTPUT_GIVEN 1\n");
        if (g->sparse) put(&t, "#define CLSCAN_GEN_OUTPUT_SPARSE %d\n", g->sparse);
        for (int k = 0; k < 4; ++k) {
            if (d->output_types[k])
                put(&t, "#define CLSCAN_GEN_O%d %s\n#define CLSCAN_GEN_O%d_GIVEN 1\n", k,
                    d->output_types[k], k);
            else /* (a null pointer the statements cannot index) */
                put(&t, "#define CLSCAN_GEN_O%d const void\n", k);
        }
        put(&t,
            "void clscan_user_output(const %s y, const %s x, const ulong i, const ulong p,\n"
            "    const ulong n, const ulong s, const uint first, const uint last,\n"
            "    __global const %s *segments,\n"
            "    __global CLSCAN_GEN_O0 *out0, __global CLSCAN_GEN_O1 *out1,\n"
            "    __global CLSCAN_GEN_O2 *out2, __global CLSCAN_GEN_O3 *out3)\n{\n"
            "    (void)y; (void)x; (void)i; (void)p; (void)n; (void)s; (void)first; (void)last;\n"
            "    (void)segments;\n"
            "    (void)out0; (void)out1; (void)out2; (void)out3;\n"
            "{\n#line 1 \"output\"\n%s\n#line 1 \"libclscan\"\n}\n}\n",
            V, g->in_name,
            d->segments == CLSCAN_SEGMENTS_KEYS ? clscan__type_cl_name(d->key_type) : "uchar",
            d->output);
    }
    /* The single-pass look-back combines tile totals in a fixed order (cl/clscan_lookback.cl,
     * CLSCAN_LB_ORDERED), so that results are the same bits whatever the timing, except
     * where every association gives the same bits: a built-in operator on an integer
     * type (segment heads are counted with a saturating add, which is associative too).
     * The fixed order cost the H100 1.2-1.5x the time of a segmented scan of built-in
     * integer values (docs/PERFORMANCE.md). A user's operator is taken as rounding
     * unless the source declares it exact (CLSCAN_COMBINE_EXACT, include/clscan.h), which
     * the preprocessor sees after the source: the host never reads the source's text. */
    if (exact_operator(d))
        put(&t, "#define CLSCAN_LB_ORDERED 0\n");
    else if (d->combine)
        put(&t, "#ifdef CLSCAN_COMBINE_EXACT\n#define CLSCAN_LB_ORDERED 0\n#else\n"
                "#define CLSCAN_LB_ORDERED 1\n#endif\n");
    else
        put(&t, "#define CLSCAN_LB_ORDERED 1\n");
    if (d->type_name)
        put(&t, "typedef char clscan_type_size_differs_from_device_sizeof[sizeof(%s) == %zu ? 1 "
                ": -1];\n", V, g->out_size);
    if (d->transform && d->input_type_name && clscan__type_from_cl_name(d->input_type_name) < 0)
        put(&t, "typedef char clscan_input_type_size_differs_from_device_sizeof[sizeof(%s) == "
                "%zu ? 1 : -1];\n", g->in_name, g->in_size);
    if (d->compensated) {
        /* (s, c): c holds what the additions of s rounded away, exactly (TwoSum). */
        put(&t,
            "typedef struct clscan_comp { %s s; %s c; } clscan_comp;\n"
            "clscan_comp clscan_gen_wrap(const %s v)\n"
            "{\n    clscan_comp r;\n    r.s = v;\n    r.c = (%s)0;\n    return r;\n}\n"
            "%s clscan_gen_unwrap(const clscan_comp v) { return v.s + v.c; }\n"
            "clscan_comp clscan_user_op(const clscan_comp a, const clscan_comp b)\n"
            "{\n"
            "    const %s s = a.s + b.s, bv = s - a.s, av = s - bv;\n"
            "    const %s e = (a.s - av) + (b.s - bv);\n"
            "    clscan_comp r;\n    r.s = s;\n    r.c = (a.c + b.c) + e;\n    return r;\n"
            "}\n"
            "clscan_comp clscan_user_identity(void) { return clscan_gen_wrap((%s)0); }\n"
            "typedef char clscan_comp_size_differs_from_host[sizeof(clscan_comp) == "
            "CLSCAN_T_BYTES ? 1 : -1];\n"
            "#define CLSCAN_T clscan_comp\n#define CLSCAN_GEN_WRAP 1\n",
            V, V, V, V, V, V, V, V);
    } else if (d->segments == CLSCAN_SEGMENTS_NONE) {
        put(&t, "#define clscan_user_op clscan_user_value_op\n"
                "#define clscan_user_identity clscan_user_value_identity\n");
        /* A user's type of 8 or 16 bytes is scanned as an alias of it aligned to its size:
         * a struct of four uints is aligned to 4 bytes, so the compiler would move it as
         * four words, and at 16 bytes apart the lanes of a warp reading one word each
         * meet four to a bank of local memory; aligned, the tile, the scratch and the
         * look-back's values move an element in one access. src and dst keep the user's
         * type, since a buffer over host memory, CL_MEM_USE_HOST_PTR, may start anywhere
         * on a CPU device (PoCL takes the pointer as it is, and a 16-byte vector load from
         * it faulted): the kernels read and write them through the alias where the pointer
         * is aligned (clscan_gen_read, cl/clscan_general_tile.cl, which says where a
         * compiler merges the read's two sides). docs/PERFORMANCE.md, twenty-second,
         * twenty-third and thirty-fifth sessions. */
        if (d->type_name && (g->out_size == 8 || g->out_size == 16)) {
            put(&t, "typedef %s __attribute__((__aligned__(%zu))) clscan_gen_scan_t;\n"
                    "#define CLSCAN_T clscan_gen_scan_t\n"
                    "#define CLSCAN_GEN_ALIGNED_OUT clscan_gen_scan_t\n", V, g->out_size);
            if (!d->transform && !g->widens && strcmp(g->in_name, V) == 0)
                put(&t, "#define CLSCAN_GEN_ALIGNED_IN clscan_gen_scan_t\n");
        } else if (d->type_name)
            put(&t, "#define CLSCAN_T %s\n", V);
    } else {
        put(&t, "#define CLSCAN_GEN_SEGMENTS %d\n#define CLSCAN_GEN_SEG %s\n", (int)d->segments,
            d->segments == CLSCAN_SEGMENTS_FLAGS ? "uchar" : clscan__type_cl_name(d->key_type));
        /* A segmented scan is the plain scan of (value, heads) pairs under the operator
         * that restarts where the right operand holds a segment head; it is associative
         * when op is. The heads are counted (saturating at 2^32 - 1), so an element's
         * scanned pair also says how many segments began up to it (`s` of the output
         * stage). */
        const size_t pad = pair_pad_words(g->out_size);
        char pad_member[48] = "", pad_zero[64] = "";
        if (pad) {
            snprintf(pad_member, sizeof pad_member, " uint pad[%zu];", pad);
            for (size_t k = 0; k < pad; ++k) {
                char one[20];
                snprintf(one, sizeof one, " r.pad[%zu] = 0u;", k);
                strcat(pad_zero, one);
            }
        }
        put(&t,
            "typedef struct clscan_seg_pair { %s v; uint f;%s } clscan_seg_pair;\n"
            "clscan_seg_pair clscan_seg_make(const %s v, const uint f)\n"
            "{\n    clscan_seg_pair r;\n    r.v = v;\n    r.f = f;%s\n    return r;\n}\n"
            "clscan_seg_pair clscan_user_op(const clscan_seg_pair a, const clscan_seg_pair b)\n"
            "{\n"
            "    return clscan_seg_make(b.f ? b.v : clscan_user_value_op(a.v, b.v), add_sat(a.f, b.f));\n"
            "}\n"
            "clscan_seg_pair clscan_user_identity(void)\n"
            "{\n    return clscan_seg_make(clscan_user_value_identity(), 0u);\n}\n"
            "typedef char clscan_pair_size_differs_from_host[sizeof(clscan_seg_pair) == "
            "CLSCAN_T_BYTES ? 1 : -1];\n"
            "#define CLSCAN_T clscan_seg_pair\n",
            V, pad_member, V, pad_zero);
        /* A library type under a built-in operator, no transform or user type: the
         * vector path (taken where a work-group has one work-item; an output stage's
         * statements run after it, element by element). */
        if (vector_path(g)) {
            char vec[96], vec_identity[96];
            builtin_op_text(d->type, d->op, "8", vec, sizeof vec, vec_identity,
                            sizeof vec_identity);
            const int wide_key = d->segments == CLSCAN_SEGMENTS_KEYS && g->seg_size == 8;
            put(&t,
                "#define CLSCAN_GEN_VEC_OP(a, b) (%s)\n#define CLSCAN_GEN_VEC_MASK_LANE %s\n"
                "#define CLSCAN_GEN_VEC_HALVES %d\n",
                vec, g->out_size == 8 ? "long" : "int", g->out_size == 8 || wide_key);
        }
    }
    if (t.failed) {
        free(t.buf);
        return NULL;
    }
    return t.buf;
}

/* Loop iterations an element's output statements are allowed on devices that stop a
 * work-item after a budget of them (Mesa's llvmpipe): tiles shrink to leave that room
 * (include/clscan.h, clscan_scan_output). */
#define OUTPUT_LOOP_ALLOWANCE 16

/* The profile a description's calls are planned with: the device's, with the loop
 * budget divided among an output stage's iterations. (An output stage keeps the
 * profile's look-back words: until the thirty-seventh session it took the one-word
 * mode for values of two words too, which made reduce by key 7% faster on the H200
 * then; with PTX pairs it now takes 0.85-0.97x the time from 2^20 to 2^28,
 * docs/PERFORMANCE.md.) */
static clscan__profile plan_profile(const clscan_context *ctx, const clscan_scan_desc *d)
{
    clscan__profile p = ctx->target.profile;
    if (d->output) p.max_loop_iterations /= OUTPUT_LOOP_ALLOWANCE;
    return p;
}

/* Keeps the checked plan g with its program's configuration m->cfg and its prelude in
 * the memo, under g's key. */
static void remember_shape(clscan_context *ctx, const general_plan *g, desc_memo *m,
                           const char *prelude)
{
    const size_t plen = strlen(prelude) + 1;
    unsigned char *v = malloc(sizeof *m + plen);
    if (!v) return; /* (the next call formats it again) */
    memo_sizes(g, m);
    m->shaped = 1;
    desc_memo copy = *m;
    copy.cfg.prelude = NULL;
    memcpy(v, &copy, sizeof copy);
    memcpy(v + sizeof copy, prelude, plen);
    clscan__memo_put(ctx, g->key, g->key_len, v, sizeof copy + plen);
    free(v);
}

/* The bytes a segmented scan's tile holds a value in (the segmented tile of values and
 * head bits: cl/clscan_general_tile.cl, CLSCAN_GEN_VALUE_TILE), or 0 for scans that tile
 * other elements (general_program's value_bytes). An output stage takes that tile only
 * where its statements do nothing away from segments' heads and ends (g->sparse): the
 * tile runs them there alone (clscan_gen_values_store). */
static size_t tiled_value_bytes(const general_plan *g)
{
    return g->d->segments != CLSCAN_SEGMENTS_NONE && (!g->d->output || g->sparse) ? g->out_size
                                                                                : 0;
}

/* Whether a single-pass call of n elements takes the small tile: a quarter of the
 * profile's items a work-item, for segmented scans of 4-byte values, where the profile's
 * tile would leave compute units without one (fewer tiles than units) on a device whose
 * groups have several work-items. On the H200 (132 units, 256 x 32 tiles), batched wall,
 * medians of three rounds, twenty-eighth session (docs/PERFORMANCE.md): int32 scans by
 * key of 2^16, 2^18 and 2^20 took 0.86, 0.66 and 0.94 times as long with 256 x 8 tiles,
 * by flags 1.00, 0.84 and 1.00, reduce by key 0.81, 0.70 and 0.93; 256 x 8 took 1.31
 * times as long at 2^22 (by key), where 256 x 32 leaves no unit idle. Not for other
 * scans: the 2x2 matrix scan (16-byte elements, 256 x 8 tiles) took 1.3 times as long at
 * 2^18 and 1.8 at 2^20 with a quarter of them, and the plain int32 scan 1.07 and 1.23
 * times at 2^18 and 2^20 with 256 x 8. */
static int small_tiles(const clscan_context *ctx, const general_plan *g, size_t n)
{
    const clscan__profile *p = &ctx->target.profile;
    if (p->scan_algo != CLSCAN__SCAN_SINGLE_PASS || p->sp_wg_size <= 1 || p->sp_items < 2 ||
        tiled_value_bytes(g) != 4)
        return 0;
    return n > 0 &&
           clscan__tiles_leave_units_idle(p, (cl_ulong)p->sp_wg_size * p->sp_items, n);
}

/* The program of a checked description for the scan algorithm algo and, where small
 * (small_tiles), a quarter of the profile's items a work-item (built on first use), its
 * shape and prelude taken from the memo where they were made before. */
static clscan_status general_program(clscan_context *ctx, general_plan *g,
                                     clscan__scan_algo algo, int small, clscan__program **prog)
{
    if (g->key_algo != algo || g->key_small != small) desc_key(g->d, algo, g->sparse, small, g);
    /* The memo's value: desc_memo, then the prelude (in buf where it fits). */
    union {
        desc_memo m;
        unsigned char bytes[MEMO_VALUE_BYTES];
    } buf;
    unsigned char *value = buf.bytes;
    size_t len = g->key_len ? clscan__memo_get(ctx, g->key, g->key_len, value, sizeof buf) : 0;
    if (len > sizeof buf) { /* (a long prelude) */
        if (!(value = malloc(len)))
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
        if (clscan__memo_get(ctx, g->key, g->key_len, value, len) != len) len = 0;
    }
    clscan_status s;
    desc_memo m;
    if (len > sizeof m) memcpy(&m, value, sizeof m);
    if (len > sizeof m && m.shaped) {
        m.cfg.prelude = (const char *)value + sizeof m;
        s = clscan__program_get_hashed(ctx, &m.cfg, &m.program_hash, prog);
    } else {
        clscan__profile planned = plan_profile(ctx, g->d);
        if (small) {
            planned.sp_items = planned.sp_items / 4 ? planned.sp_items / 4 : 1;
            planned.sp_items_8 = planned.sp_items_8 / 4 ? planned.sp_items_8 / 4 : 1;
        }
        char *prelude = make_prelude(g);
        if (!prelude) {
            if (value != buf.bytes) free(value);
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
        }
        memset(&m, 0, sizeof m);
        s = clscan__general_config_choose(
            ctx, &planned, algo,
            custom_scan_type(g->d) ? CLSCAN__TYPE_ID_CUSTOM : g->d->type, scan_elem_bytes(g),
            tiled_value_bytes(g), prelude, &m.cfg);
        if (s == CLSCAN_SUCCESS) s = clscan__program_get_hashed(ctx, &m.cfg, &m.program_hash, prog);
        if (s == CLSCAN_SUCCESS && g->key_len) remember_shape(ctx, g, &m, prelude);
        free(prelude);
    }
    if (value != buf.bytes) free(value);
    return s;
}

clscan_status clscan__desc_program(clscan_context *ctx, const clscan_scan_desc *desc,
                                   clscan__scan_algo algo, clscan__program **prog,
                                   size_t *in_size, size_t *out_size)
{
    general_plan g;
    clscan_status s = plan_desc(ctx, desc, 0, &g);
    if (s != CLSCAN_SUCCESS) return s;
    *in_size = g.in_size;
    *out_size = g.out_size;
    return general_program(ctx, &g, algo, 0, prog);
}

/* ---------------------------------------------------------------- dispatch --- */

/* One call's program and ranges. */
typedef struct general_call {
    cl_mem src, seg, dst;
    cl_ulong src_off, seg_off, dst_off, n;
    cl_int inclusive;
    clscan__carry_args carry;
    cl_mem outs[4]; /* the output stage's buffers (NULL where none) */
    cl_ulong out_offs[4]; /* element offsets into them */
    const clscan__profile *profile; /* what the levels are planned with (plan_profile) */
    cl_ulong index_base;            /* desc->index_base */
    bool output;                    /* an output stage: its buffers are kernel arguments */
} general_call;

/* Sets the output stage's four buffers as a's next arguments (a program without an output
 * stage has none: cl/clscan_general_tile.cl, CLSCAN_GEN_OUTPUT_PARAMS). */
static void set_output_args(clscan__kernel_args *a, const general_call *c)
{
    if (!c->output) return;
    for (int k = 0; k < 4; ++k) CLSCAN__ARG(*a, c->outs[k]);
    for (int k = 0; k < 4; ++k) CLSCAN__ARG(*a, c->out_offs[k]);
}

/* Sets the arguments every general kernel starts with, as a's next ones: src, src_off,
 * seg, seg_off, index_base. */
static void set_source_args(clscan__kernel_args *a, const general_call *c)
{
    CLSCAN__ARG(*a, c->src);
    CLSCAN__ARG(*a, c->src_off);
    CLSCAN__ARG(*a, c->seg);
    CLSCAN__ARG(*a, c->seg_off);
    CLSCAN__ARG(*a, c->index_base);
}

static clscan_status enqueue_single(clscan__launch *l, clscan__program *prog,
                                    const general_call *c)
{
    const clscan__scan_config *cfg = &prog->config;
    clscan__lookback_args lb;
    clscan_status s = clscan__lookback_begin(l, prog, &lb);
    if (s != CLSCAN_SUCCESS) return s;
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    cl_kernel k = prog->kernels[CLSCAN__K_GEN_SINGLE];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    set_source_args(&a, c);
    CLSCAN__ARG(a, c->dst);
    CLSCAN__ARG(a, c->dst_off);
    CLSCAN__ARG(a, c->n);
    CLSCAN__ARG(a, c->inclusive);
    CLSCAN__ARG(a, lb.state);
    CLSCAN__ARG(a, lb.epoch);
    CLSCAN__ARG(a, lb.spins);
    CLSCAN__ARG(a, lb.stats);
    CLSCAN__ARG(a, lb.stats_off);
    clscan__set_carry_args(&a, &c->carry);
    set_output_args(&a, c);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(gen_single)");
    return clscan__enqueue(l, k, (size_t)((c->n + tile - 1) / tile), cfg->wg_size,
                           "enqueue gen_single");
}

/* Partials of each work-group's tiles into the scratch slot, their exclusive scan, then
 * the scan of the tiles from them (one kernel when one work-group does it all). */
static clscan_status enqueue_multi(clscan__launch *l, clscan__program *prog, const general_call *c)
{
    const clscan__scan_config *cfg = &prog->config;
    const clscan__level_plan lp = clscan__plan_level(c->profile, cfg, c->n);
    const cl_int use_partials = lp.groups > 1;
    const cl_ulong part_off = 0;
    cl_mem partials = l->scratch ? l->scratch->buffer : NULL; /* (unused with one group) */
    clscan_status s;
    if (use_partials) {
        l->scratch->lb_clean = 0; /* partials overwrite status words */
        cl_kernel k = prog->kernels[CLSCAN__K_GEN_REDUCE];
        clscan__kernel_args a = clscan__args_begin(k, 0);
        set_source_args(&a, c);
        CLSCAN__ARG(a, c->n);
        CLSCAN__ARG(a, c->inclusive);
        CLSCAN__ARG(a, lp.per_group);
        CLSCAN__ARG(a, partials);
        CLSCAN__ARG(a, part_off);
        CLSCAN__ARG(a, c->carry.flags);
        if (a.err != CL_SUCCESS)
            return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(gen_reduce)");
        s = clscan__enqueue(l, k, (size_t)lp.groups, cfg->wg_size, "enqueue gen_reduce_tiles");
        if (s != CLSCAN_SUCCESS) return s;
        s = clscan__enqueue_scan_partials(l, prog, partials, part_off, lp.groups);
        if (s != CLSCAN_SUCCESS) return s;
    }
    cl_kernel k = prog->kernels[CLSCAN__K_GEN_SCAN];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    set_source_args(&a, c);
    CLSCAN__ARG(a, c->dst);
    CLSCAN__ARG(a, c->dst_off);
    CLSCAN__ARG(a, c->n);
    CLSCAN__ARG(a, c->inclusive);
    CLSCAN__ARG(a, lp.per_group);
    CLSCAN__ARG(a, partials);
    CLSCAN__ARG(a, part_off);
    CLSCAN__ARG(a, use_partials);
    clscan__set_carry_args(&a, &c->carry);
    set_output_args(&a, c);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(gen_scan)");
    return clscan__enqueue(l, k, (size_t)lp.groups, cfg->wg_size, "enqueue gen_scan_tiles");
}

clscan_status clscan_scan(clscan_context *ctx, cl_command_queue queue,
                          const clscan_scan_desc *desc, int inclusive, cl_mem src,
                          size_t src_offset, cl_mem segments, size_t segments_offset, cl_mem dst,
                          size_t dst_offset, size_t n, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event)
{
    return clscan_scan_carry(ctx, queue, desc, inclusive, src, src_offset, segments,
                             segments_offset, dst, dst_offset, n, NULL, num_events_in_wait_list,
                             event_wait_list, event);
}

/* Checks clscan_scan_output's buffers against desc (which has output) into outs. */
static clscan_status check_outputs(const clscan_context *ctx, const clscan_scan_desc *desc,
                                   const cl_mem *outputs, cl_uint num_outputs, cl_mem outs[4])
{
    CLSCAN__RETURN_IF(ctx, !desc->output, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->output is NULL: clscan_scan_output runs an output stage");
    CLSCAN__RETURN_IF(ctx, num_outputs > 4, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "num_outputs is %u: at most 4 output buffers", num_outputs);
    CLSCAN__RETURN_IF(ctx, num_outputs && !outputs, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "outputs is NULL but num_outputs is %u", num_outputs);
    for (cl_uint k = 0; k < 4; ++k) {
        const cl_mem m = k < num_outputs ? outputs[k] : NULL;
        CLSCAN__RETURN_IF(ctx, (m != NULL) != (desc->output_types[k] != NULL),
                         CLSCAN_ERROR_INVALID_ARGUMENT,
                         "output buffer %u is %s but desc->output_types[%u] is %s", k,
                         m ? "given" : "missing", k, desc->output_types[k] ? "set" : "NULL");
        if (m) {
            static const char *const names[4] = {"outputs[0]", "outputs[1]", "outputs[2]",
                                                 "outputs[3]"};
            clscan_status s = clscan__check_range(ctx, m, names[k], 0, 0, 1);
            if (s != CLSCAN_SUCCESS) return s;
        }
        outs[k] = m;
    }
    return CLSCAN_SUCCESS;
}

/* clscan_scan_carry (output_call 0: a desc with output is refused), clscan_scan_output
 * (1, with its buffers) and clscan__scan_output_sparse (2, with its sparse; its caller
 * checked the call, giving *checked_in_order, and the buffers: no dst, no carry). */
static clscan_status scan_general(clscan_context *ctx, cl_command_queue queue,
                                  const clscan_scan_desc *desc, int inclusive, cl_mem src,
                                  size_t src_offset, cl_mem segments, size_t segments_offset,
                                  cl_mem dst, size_t dst_offset, size_t n, int output_call,
                                  int sparse, const bool *checked_in_order,
                                  const cl_mem *outputs, const size_t *output_offsets,
                                  cl_uint num_outputs,
                                  const clscan_carry *carry, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list, cl_event *event)
{
    bool in_order = true;
    clscan_status s = CLSCAN_SUCCESS;
    if (checked_in_order)
        in_order = *checked_in_order;
    /* (The type and op checked here are placeholders: check_desc checks the real ones.) */
    else if ((s = clscan__check_call(ctx, queue, CLSCAN_INT32, CLSCAN_OP_ADD,
                                     num_events_in_wait_list, event_wait_list, &in_order)) !=
             CLSCAN_SUCCESS)
        return s;
    general_plan g;
    clscan__carry_args ca;
    cl_mem outs[4] = {NULL, NULL, NULL, NULL};
    if ((s = plan_desc(ctx, desc, output_call == 2 ? sparse : 0, &g)) != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, desc->output && !output_call, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "desc->output is given: call clscan_scan_output, which takes the output "
                     "stage's buffers");
    if (checked_in_order) { /* (clscan__scan_output_sparse: checked by its caller) */
        for (cl_uint k = 0; k < num_outputs && k < 4; ++k) outs[k] = outputs[k];
        ca = clscan__no_carry(g.out_size);
    } else if ((output_call &&
                (s = check_outputs(ctx, desc, outputs, num_outputs, outs)) != CLSCAN_SUCCESS) ||
               (s = check_buffers(ctx, &g, src, src_offset, segments, segments_offset, dst,
                                  dst_offset, n, carry, &ca)) != CLSCAN_SUCCESS)
        return s;
    /* A built-in operator on a library type, as it is: the ordinary scan. */
    if (clscan__desc_is_plain(desc))
        return clscan__scan_carry(ctx, queue, src, src_offset, dst, dst_offset, n, desc->type,
                                  desc->op, inclusive != 0, carry, num_events_in_wait_list,
                                  event_wait_list, event);
    const int want_total = (ca.flags & CLSCAN__CARRY_FLAG_OUT) != 0;
    if (n == 0 && !want_total)
        return clscan__enqueue_marker(ctx, queue, num_events_in_wait_list, event_wait_list,
                                      event);
    if (!dst && desc->output) ca.flags |= CLSCAN__CARRY_FLAG_SKIP_STORE;
    /* (A NULL dst is not written: CLSCAN__CARRY_FLAG_NO_DST or _SKIP_STORE. Absent
     * buffers go to the kernels as NULL: clscan__no_carry says why. The segments stay src
     * where an output stage runs without segments, whose statements may read them.) */

    clscan__program *prog = NULL;
    if ((s = general_program(ctx, &g, ctx->target.profile.scan_algo, small_tiles(ctx, &g, n),
                             &prog)) != CLSCAN_SUCCESS)
        return s;
    const clscan__scan_config cfg = prog->config; /* the shape actually built */
    const clscan__profile planned = plan_profile(ctx, desc);

    const int single = n > 0 && clscan__lookback_fits(&cfg, n);
    const size_t scratch_bytes =
        single ? clscan__lookback_bytes(&cfg, n)
               : (size_t)clscan__scan_scratch_elements(&planned, &cfg, n) * cfg.elem_bytes;
    clscan__launch l;
    if ((s = clscan__launch_begin(&l, ctx, queue, in_order, num_events_in_wait_list,
                                  event_wait_list, scratch_bytes, event)) != CLSCAN_SUCCESS) {
        clscan__program_put(ctx, prog);
        return s;
    }
    general_call c = {src, segments ? segments : desc->output ? src : NULL, dst, src_offset,
                      segments_offset, dst_offset, n, inclusive != 0, ca,
                      {NULL, NULL, NULL, NULL}, {0, 0, 0, 0},
                      &planned, desc->index_base, desc->output != NULL};
    for (int k = 0; k < 4; ++k)
        if (outs[k]) {
            c.outs[k] = outs[k];
            c.out_offs[k] = output_offsets ? output_offsets[k] : 0;
        }
    cl_mem copy = NULL;
    if (src == dst && src_offset * g.in_size == dst_offset * g.out_size &&
        !(ca.flags & (CLSCAN__CARRY_FLAG_NO_DST | CLSCAN__CARRY_FLAG_SKIP_STORE)) && n > 0) {
        s = clscan__enqueue_copy_input(&l, src, src_offset * g.in_size, n * g.in_size, &copy);
        c.src = copy;
        c.src_off = 0;
    }
    /* (Only the vector path of one work-item groups streams its outputs, and it writes
     * them in its first pass only without an output stage.) */
    if (single && cfg.wg_size == 1 && vector_path(&g) && !desc->output)
        c.carry.flags |= clscan__stream_flag(ctx, n, g.in_size + g.seg_size, g.out_size);
    if (s == CLSCAN_SUCCESS) {
        pthread_mutex_lock(&prog->lock);
        s = single ? enqueue_single(&l, prog, &c) : enqueue_multi(&l, prog, &c);
        pthread_mutex_unlock(&prog->lock);
    }
    clscan__program_put(ctx, prog);
    if (copy) clReleaseMemObject(copy);
    return clscan__launch_end(&l, s, event);
}

clscan_status clscan_scan_carry(clscan_context *ctx, cl_command_queue queue,
                                const clscan_scan_desc *desc, int inclusive, cl_mem src,
                                size_t src_offset, cl_mem segments, size_t segments_offset,
                                cl_mem dst, size_t dst_offset, size_t n,
                                const clscan_carry *carry, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *event)
{
    return scan_general(ctx, queue, desc, inclusive, src, src_offset, segments,
                        segments_offset, dst, dst_offset, n, 0, 0, NULL, NULL, NULL, 0, carry,
                        num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_scan_output(clscan_context *ctx, cl_command_queue queue,
                                 const clscan_scan_desc *desc, int inclusive, cl_mem src,
                                 size_t src_offset, cl_mem segments, size_t segments_offset,
                                 cl_mem dst, size_t dst_offset, size_t n,
                                 const cl_mem *outputs, const size_t *output_offsets,
                                 cl_uint num_outputs, const clscan_carry *carry,
                                 cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return scan_general(ctx, queue, desc, inclusive, src, src_offset, segments,
                        segments_offset, dst, dst_offset, n, 1, 0, NULL, outputs, output_offsets,
                        num_outputs, carry,
                        num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan__scan_output_sparse(clscan_context *ctx, cl_command_queue queue,
                                         bool in_order, const clscan_scan_desc *desc,
                                         int inclusive, cl_mem src, size_t src_offset,
                                         cl_mem segments, size_t segments_offset, size_t n,
                                         const cl_mem *outputs, const size_t *output_offsets,
                                         cl_uint num_outputs, int sparse,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event)
{
    return scan_general(ctx, queue, desc, inclusive, src, src_offset, segments,
                        segments_offset, NULL, 0, n, 2, sparse, &in_order, outputs,
                        output_offsets, num_outputs, NULL, num_events_in_wait_list,
                        event_wait_list, event);
}
