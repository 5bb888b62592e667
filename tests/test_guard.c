/* test_guard.c - Check suite: no call writes outside its output. Every scan and compaction
 * kind runs at tile edges and offsets, in place and not, with dst a sub-buffer framed by
 * guard bands of their own patterns; bands and results are checked against verify.c. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_devices.h"
#include "verify.h"

#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ devices ------- */

/* The devices under test, their fixture, the seed (20261124 unless $CLSCAN_TEST_SEED
 * says otherwise) and buffers: test_devices.h. Each device's
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes (where a sub-buffer may start), by its index in
 * clscan_test_devs; filled by clscan_guard_setup. */
static size_t clscan_guard_aligns[CLSCAN_TEST_MAX_PLATFORMS];

static void clscan_guard_setup(void)
{
    clscan_test_setup();
    for (int di = 0; di < clscan_test_ndevs; di++) {
        cl_uint align_bits = 0;
        ck_assert_int_eq(clGetDeviceInfo(clscan_test_devs[di].dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                                         sizeof align_bits, &align_bits, NULL), CL_SUCCESS);
        clscan_guard_aligns[di] = align_bits >= 8 ? align_bits / 8 : 1;
    }
}

/* ------------------------------------------------------------ the calls ----- */

/* One kind of call: a scan (type, op, inclusive) or a compaction (kind, type and the
 * pattern of verify.h: flags, predicate index or duplicates). */
typedef struct clscan_guard_call {
    int compaction;
    clscan_type type;
    clscan_op op;
    int inclusive;
    clscan_verify_kind kind;
    int pattern;
} clscan_guard_call;

#define SCAN(t, o, incl) {0, CLSCAN_##t, CLSCAN_OP_##o, incl, CLSCAN_VERIFY_SELECT_FLAGGED, 0}
#define COMPACT(k, t, p) {1, CLSCAN_##t, CLSCAN_OP_ADD, 0, CLSCAN_VERIFY_##k, p}
/* Predicates by their index in clscan_verify_predicates. */
enum { CLSCAN_GUARD_PRED_EVEN = 0, CLSCAN_GUARD_PRED_POSITIVE = 1, CLSCAN_GUARD_PRED_MOD7 = 2 };

/* Both modes on 4- and 8-byte integers, a float tolerance check (float add), an 8-byte
 * float (double min); every compaction kind on a 4- and an 8-byte type. */
static const clscan_guard_call clscan_guard_calls[] = {
    SCAN(INT32, ADD, 0),
    SCAN(INT32, ADD, 1),
    SCAN(UINT32, MAX, 1),
    SCAN(INT64, ADD, 0),
    SCAN(UINT64, XOR, 1),
    SCAN(FLOAT, ADD, 1),
    SCAN(DOUBLE, MIN, 0),
    COMPACT(SELECT_FLAGGED, INT32, CLSCAN_VERIFY_FLAGS_RUNS),
    COMPACT(SELECT_FLAGGED, UINT64, CLSCAN_VERIFY_FLAGS_HALF),
    COMPACT(SELECT_IF, INT32, CLSCAN_GUARD_PRED_EVEN),
    COMPACT(SELECT_IF, DOUBLE, CLSCAN_GUARD_PRED_POSITIVE),
    COMPACT(PARTITION_IF, INT32, CLSCAN_GUARD_PRED_EVEN),
    COMPACT(PARTITION_IF, INT64, CLSCAN_GUARD_PRED_MOD7),
    COMPACT(UNIQUE, INT32, CLSCAN_VERIFY_DUPS_RUNS),
    COMPACT(UNIQUE, UINT64, CLSCAN_VERIFY_DUPS_SPECIAL),
};
#undef SCAN
#undef COMPACT
#define CLSCAN_GUARD_NCALLS ((int)(sizeof clscan_guard_calls / sizeof *clscan_guard_calls))

/* A short name: "int32 add exclusive", "uint64 select_flagged flags half". */
static const char *clscan_guard_call_name(const clscan_guard_call *k, char *buf, size_t size)
{
    if (!k->compaction) {
        snprintf(buf, size, "%s %s %s", clscan_type_name(k->type), clscan_op_name(k->op),
                 k->inclusive ? "inclusive" : "exclusive");
    } else {
        const clscan_verify_compact_case c = {k->kind, k->type, k->pattern, 0, 0, 0, 0, 0, 0,
                                              NULL};
        char pat[96];
        snprintf(buf, size, "%s %s %s", clscan_type_name(k->type),
                 clscan_verify_kind_name(k->kind), clscan_verify_pattern_name(&c, pat, sizeof pat));
    }
    return buf;
}

static const clscan_verify_predicate *clscan_guard_pred(const clscan_guard_call *k)
{
    return k->compaction && (k->kind == CLSCAN_VERIFY_SELECT_IF ||
                             k->kind == CLSCAN_VERIFY_PARTITION_IF)
               ? &clscan_verify_predicates[k->pattern]
               : NULL;
}

/* Elements per tile of the program the call runs (in_place: a scan then takes the
 * multi-level one; a compaction copies its input and keeps the profile's choice), as
 * the library builds it. 0 when the device cannot build it (DOUBLE without fp64). */
static size_t clscan_guard_tile(clscan_test_dev *d, const clscan_guard_call *k, int in_place)
{
    static const clscan__select_mode modes[CLSCAN_VERIFY_KIND_COUNT] = {
        CLSCAN__SELECT_FLAGGED, CLSCAN__SELECT_IF, CLSCAN__SELECT_PARTITION, CLSCAN__SELECT_UNIQUE};
    const clscan__profile *p = &d->ctx->target.profile;
    clscan__scan_config cfg;
    clscan__program *prog = NULL;
    clscan_status st;
    if (k->type == CLSCAN_DOUBLE && !d->fp64)
        return 0;
    if (!k->compaction) {
        st = clscan__scan_config_choose(d->ctx, p, in_place ? CLSCAN__SCAN_MULTI_LEVEL
                                                            : p->scan_algo,
                                        k->type, k->op, &cfg);
    } else {
        const clscan_verify_predicate *pred = clscan_guard_pred(k);
        st = clscan__select_config_choose(d->ctx, p, p->scan_algo, modes[k->kind], k->type,
                                          CLSCAN_UINT32, pred ? pred->text : NULL, &cfg);
    }
    if (st == CLSCAN_SUCCESS)
        st = clscan__program_get(d->ctx, &cfg, &prog);
    ck_assert_msg(st == CLSCAN_SUCCESS, "%s: building the program: %s: %s", d->name,
                  clscan_status_string(st), clscan_context_last_error(d->ctx));
    return (size_t)prog->config.wg_size * prog->config.items;
}

/* ------------------------------------------------------------ guard bands --- */

/* The regions of a case's buffers, each a band of its own pattern. dst is a sub-buffer
 * of `parent`: BEFORE (parent bytes before the sub-buffer) | OFFSET (dst[0, dst_offset))
 * | the output: dst[dst_offset, +n), prefilled with UNWRITTEN unless in place | AFTER
 * (inside the sub-buffer) | PAST (parent bytes after the sub-buffer). */
enum {
    CLSCAN_BAND_BEFORE,
    CLSCAN_BAND_OFFSET,
    CLSCAN_BAND_UNWRITTEN,
    CLSCAN_BAND_AFTER,
    CLSCAN_BAND_PAST,
    CLSCAN_BAND_COUNT_TAIL, /* count's bytes [8, CLSCAN_GUARD_COUNT_BYTES) */
    CLSCAN_BAND_SRC,        /* around the input, out of place */
    CLSCAN_BAND_FLAGS,      /* around the flags */
    CLSCAN_BAND_N
};
static const char *const clscan_band_names[CLSCAN_BAND_N] = {
    "before the sub-buffer", "dst[0, dst_offset)", "dst[kept, n) (never to be written)",
    "after dst_offset + n", "after the sub-buffer", "count past its 8 bytes", "src's frame",
    "flags' frame"};

#define CLSCAN_GUARD_COUNT_BYTES 4096

/* Byte k of band `band`: a hash of both, so no two bands look alike and no band repeats
 * with an element's period; neither a correct value nor a shifted copy of another band
 * matches it by accident. */
static unsigned char clscan_band_byte(int band, size_t k)
{
    uint64_t h = ((uint64_t)k + 1) * 0x9e3779b97f4a7c15u ^
                 ((uint64_t)band + 1) * 0xd6e8feb86659fd93u;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    return (unsigned char)h;
}

static void clscan_band_fill(unsigned char *p, size_t len, int band)
{
    for (size_t k = 0; k < len; k++)
        p[k] = clscan_band_byte(band, k);
}

/* One case: a call at one size and layout. in_place: src is dst at dst_offset. */
typedef struct clscan_guard_case {
    const clscan_guard_call *call;
    size_t n, src_offset, dst_offset, flags_offset;
    int in_place;
    uint64_t seed;
} clscan_guard_case;

/* Where the regions of a case lie, in bytes of the parent buffer. */
typedef struct clscan_guard_layout {
    size_t es, band;      /* element size; the size of the bands around the output */
    size_t sub_start;     /* the sub-buffer: [sub_start, sub_start + sub_len) */
    size_t sub_len;
    size_t out_start;     /* the output: [out_start, out_start + n * es) */
    size_t parent_len;
    size_t src_len, flags_len;
} clscan_guard_layout;

/* Bands of at least 4 KiB and two tiles on each side of the output; the band before
 * the sub-buffer ends where a sub-buffer may start. */
static clscan_guard_layout clscan_guard_plan(const clscan_test_dev *d, const clscan_guard_case *c,
                                             size_t tile)
{
    clscan_guard_layout g;
    g.es = clscan_type_size(c->call->type);
    g.band = 2 * tile * g.es > 4096 ? 2 * tile * g.es : 4096;
    const size_t align = clscan_guard_aligns[d - clscan_test_devs];
    g.sub_start = (g.band + align - 1) / align * align;
    g.sub_len = (c->dst_offset + c->n) * g.es + g.band;
    g.out_start = g.sub_start + c->dst_offset * g.es;
    g.parent_len = g.sub_start + g.sub_len + g.band;
    g.src_len = c->in_place ? 0 : (c->src_offset + c->n) * g.es + g.band;
    g.flags_len = c->call->compaction && c->call->kind == CLSCAN_VERIFY_SELECT_FLAGGED
                      ? c->flags_offset + c->n + g.band
                      : 0;
    return g;
}

/* Names the region byte b of the parent lies in, with its place relative to the
 * output, into buf; the call writes dst[0, written). */
static const char *clscan_guard_where(const clscan_guard_layout *g, const clscan_guard_case *c,
                                      size_t written, size_t b, char *buf, size_t size)
{
    const size_t out_end = g->out_start + c->n * g->es;
    int band = b < g->sub_start                  ? CLSCAN_BAND_BEFORE
               : b < g->out_start                ? CLSCAN_BAND_OFFSET
               : b < g->out_start + written * g->es ? -1
               : b < out_end                     ? CLSCAN_BAND_UNWRITTEN
               : b < g->sub_start + g->sub_len   ? CLSCAN_BAND_AFTER
                                                 : CLSCAN_BAND_PAST;
    if (b < g->out_start)
        snprintf(buf, size, "%s, %zu bytes before dst[dst_offset]",
                 clscan_band_names[band], g->out_start - b);
    else if (band == -1)
        snprintf(buf, size, "dst[%zu], a result", (b - g->out_start) / g->es);
    else if (band == CLSCAN_BAND_UNWRITTEN)
        snprintf(buf, size, "dst[%zu] of dst[%zu, %zu) (%s)", (b - g->out_start) / g->es,
                 written, c->n, c->in_place ? "the input left in place" : "never to be written");
    else
        snprintf(buf, size, "%s, %zu bytes after dst[dst_offset + n]",
                 clscan_band_names[band], b - out_end);
    return buf;
}

/* A blocking read whose failure names the device and the status. */
static void clscan_guard_read(clscan_test_dev *d, cl_mem m, size_t bytes, void *out)
{
    cl_int err = clEnqueueReadBuffer(d->queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    ck_assert_msg(err == CL_SUCCESS, "%s: clEnqueueReadBuffer: %s", d->name,
                  clscan_status_string(err));
}

/* First byte in [from, to) where got differs from want, or (size_t)-1. */
static size_t clscan_guard_diff(const unsigned char *got, const unsigned char *want, size_t from,
                                size_t to)
{
    for (size_t b = from; b < to; b++)
        if (got[b] != want[b])
            return b;
    return (size_t)-1;
}

/* Where a planted write goes (the self-test of the checks): a region, and an element
 * that a kernel off by one would hit first. */
enum {
    CLSCAN_PLANT_NONE = -1,
    CLSCAN_PLANT_BEFORE_OUTPUT, /* the element before dst[0] */
    CLSCAN_PLANT_AFTER_OUTPUT,  /* the element after dst[n - 1] */
    CLSCAN_PLANT_PAST_SUB,      /* the parent's first byte after the sub-buffer */
    CLSCAN_PLANT_BEFORE_SUB,    /* the parent's last byte before it */
    CLSCAN_PLANT_UNWRITTEN,     /* dst[kept] of a select */
    CLSCAN_PLANT_COUNT_TAIL,    /* count's byte 8 */
    CLSCAN_PLANT_RESULT,        /* one result, off by one in its last bit */
    CLSCAN_PLANT_N
};

/* Runs case c on d. Returns 1 if the call and every check passed; otherwise 0 with the
 * reason in msg. plant (CLSCAN_PLANT_*): after the call, one byte of that place is
 * changed, to show that the checks see it. DOUBLE on a device without fp64 must be
 * refused with CLSCAN_ERROR_UNSUPPORTED and nothing written: that passes, with *skipped
 * set. */
static int clscan_guard_run(clscan_test_dev *d, const clscan_guard_case *c, size_t tile,
                            int plant, int *skipped, char *msg, size_t msg_size)
{
    const clscan_guard_call *k = c->call;
    const clscan_guard_layout g = clscan_guard_plan(d, c, tile);
    const size_t es = g.es, n = c->n;
    const int flagged = k->compaction && k->kind == CLSCAN_VERIFY_SELECT_FLAGGED;
    const clscan_verify_predicate *pred = clscan_guard_pred(k);
    unsigned char *img = malloc(g.parent_len), *got = malloc(g.parent_len);
    unsigned char *want = malloc(g.parent_len);
    unsigned char *src_img = g.src_len ? malloc(g.src_len) : NULL;
    unsigned char *src_got = g.src_len ? malloc(g.src_len) : NULL;
    unsigned char *flags_img = flagged ? malloc(g.flags_len) : NULL;
    unsigned char *flags_got = flagged ? malloc(g.flags_len) : NULL;
    unsigned char count_img[CLSCAN_GUARD_COUNT_BYTES], count_got[CLSCAN_GUARD_COUNT_BYTES];
    int ok = 0;
    *skipped = 0;
    ck_assert(img && got && want && (!g.src_len || (src_img && src_got)) &&
              (!flagged || (flags_img && flags_got)));

    /* The parent's image: every band, the output prefilled, or holding the input. */
    clscan_band_fill(img, g.sub_start, CLSCAN_BAND_BEFORE);
    clscan_band_fill(img + g.sub_start, c->dst_offset * es, CLSCAN_BAND_OFFSET);
    clscan_band_fill(img + g.out_start, n * es, CLSCAN_BAND_UNWRITTEN);
    clscan_band_fill(img + g.out_start + n * es, g.band, CLSCAN_BAND_AFTER);
    clscan_band_fill(img + g.sub_start + g.sub_len, g.band, CLSCAN_BAND_PAST);
    unsigned char *input = c->in_place ? img + g.out_start : src_img + c->src_offset * es;
    if (!c->in_place)
        clscan_band_fill(src_img, g.src_len, CLSCAN_BAND_SRC);
    if (flagged)
        clscan_band_fill(flags_img, g.flags_len, CLSCAN_BAND_FLAGS);
    clscan_band_fill(count_img, sizeof count_img, CLSCAN_BAND_COUNT_TAIL);

    /* The input and what the output must become: scans against the reference (with its
     * tolerance), compactions byte for byte. */
    clscan_verify_ref *ref = NULL;
    size_t kept = n;
    memcpy(want, img, g.parent_len);
    if (!k->compaction) {
        clscan_verify_fill(input, n, k->type, k->op, c->seed);
        ref = clscan_verify_reference(k->type, k->op, k->inclusive, input, n);
        ck_assert(ref != NULL);
    } else {
        const clscan_verify_compact_case cc = {k->kind, k->type, k->pattern, n, 0, 0, 0, 0,
                                               c->seed, NULL};
        unsigned char *out = malloc(n ? n * es : 1);
        ck_assert(out != NULL);
        clscan_verify_compact_fill(&cc, input, flagged ? flags_img + c->flags_offset : NULL);
        kept = clscan_verify_compact_reference(k->kind, k->type, pred, input,
                                               flagged ? flags_img + c->flags_offset : NULL, n,
                                               out);
        if (c->in_place)
            memcpy(want + g.out_start, input, n * es);
        memcpy(want + g.out_start, out, (k->kind == CLSCAN_VERIFY_PARTITION_IF ? n : kept) * es);
        free(out);
    }

    cl_mem parent = clscan_test_buffer(d, g.parent_len, img);
    const cl_buffer_region region = {g.sub_start, g.sub_len};
    cl_int err;
    cl_mem dst = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                   &region, &err);
    ck_assert_msg(dst != NULL, "%s: clCreateSubBuffer(origin %zu, %zu bytes): %s", d->name,
                  region.origin, region.size, clscan_status_string(err));
    cl_mem src = c->in_place ? dst : clscan_test_buffer(d, g.src_len, src_img);
    cl_mem flags = flagged ? clscan_test_buffer(d, g.flags_len, flags_img) : NULL;
    cl_mem count = k->compaction ? clscan_test_buffer(d, sizeof count_img, count_img) : NULL;
    const size_t soff = c->in_place ? c->dst_offset : c->src_offset;

    static char sentinel_obj;
    cl_event const sentinel = (cl_event)(void *)&sentinel_obj;
    cl_event ev = sentinel;
    clscan_status st;
    if (!k->compaction) {
        st = (k->inclusive ? clscan_inclusive_scan : clscan_exclusive_scan)(
            d->ctx, d->queue, src, soff, dst, c->dst_offset, n, k->type, k->op, 0, NULL, &ev);
    } else {
        switch (k->kind) {
        case CLSCAN_VERIFY_SELECT_FLAGGED:
            st = clscan_select_flagged(d->ctx, d->queue, src, soff, flags, c->flags_offset, dst,
                                       c->dst_offset, count, n, k->type, 0, NULL, &ev);
            break;
        case CLSCAN_VERIFY_SELECT_IF:
            st = clscan_select_if(d->ctx, d->queue, src, soff, dst, c->dst_offset, count, n,
                                  k->type, pred->text, 0, NULL, &ev);
            break;
        case CLSCAN_VERIFY_PARTITION_IF:
            st = clscan_partition_if(d->ctx, d->queue, src, soff, dst, c->dst_offset, count, n,
                                     k->type, pred->text, 0, NULL, &ev);
            break;
        default:
            st = clscan_unique(d->ctx, d->queue, src, soff, dst, c->dst_offset, count, n,
                               k->type, 0, NULL, &ev);
        }
    }
    const int refused = k->type == CLSCAN_DOUBLE && !d->fp64;
    if (st != CLSCAN_SUCCESS || refused) {
        ck_assert_int_eq(clFinish(d->queue), CL_SUCCESS);
        clscan_guard_read(d, parent, g.parent_len, got);
        size_t bad = clscan_guard_diff(got, img, 0, g.parent_len);
        if (st == CLSCAN_ERROR_UNSUPPORTED && refused && ev == sentinel &&
            bad == (size_t)-1) {
            *skipped = ok = 1;
            snprintf(msg, msg_size, "device has no fp64: refused as it must be");
        } else {
            snprintf(msg, msg_size, "%s: %s%s%s", clscan_status_string(st),
                     clscan_context_last_error(d->ctx), ev != sentinel ? "; *event changed" : "",
                     bad != (size_t)-1 ? "; the parent buffer was written" : "");
            if (st == CLSCAN_SUCCESS && ev != sentinel && ev)
                clReleaseEvent(ev);
        }
        goto done;
    }
    if (ev == sentinel || ev == NULL) {
        snprintf(msg, msg_size, "CLSCAN_SUCCESS but no event was returned");
        goto done;
    }
    const char *step = "";
    err = clscan_verify_wait(ev, &step);
    clReleaseEvent(ev);
    ck_assert_msg(err == CL_SUCCESS, "%s: %s: %s", d->name, step, clscan_status_string(err));

    if (plant != CLSCAN_PLANT_NONE) {
        const size_t last = (k->compaction ? kept : n) - 1; /* the last result */
        size_t at = plant == CLSCAN_PLANT_BEFORE_OUTPUT ? g.out_start - es
                    : plant == CLSCAN_PLANT_AFTER_OUTPUT ? g.out_start + n * es
                    : plant == CLSCAN_PLANT_PAST_SUB     ? g.sub_start + g.sub_len
                    : plant == CLSCAN_PLANT_BEFORE_SUB   ? g.sub_start - 1
                    : plant == CLSCAN_PLANT_UNWRITTEN    ? g.out_start + kept * es
                    : plant == CLSCAN_PLANT_RESULT       ? g.out_start + last * es
                                                         : 8;
        cl_mem into = plant == CLSCAN_PLANT_COUNT_TAIL ? count : parent;
        unsigned char b;
        clscan_guard_read(d, into, 1, &b); /* (just a valid read before the write) */
        if (plant == CLSCAN_PLANT_COUNT_TAIL)
            b = (unsigned char)~count_img[8];
        else if (plant == CLSCAN_PLANT_RESULT)
            b = (unsigned char)(want[at] ^ 1); /* the lowest byte: little-endian */
        else
            b = (unsigned char)~want[at];
        ck_assert_int_eq(clEnqueueWriteBuffer(d->queue, into, CL_TRUE, at, 1, &b, 0, NULL, NULL),
                         CL_SUCCESS);
    }

    /* The count, and count's bytes past it. */
    size_t bad;
    if (k->compaction) {
        clscan_guard_read(d, count, sizeof count_got, count_got);
        cl_ulong got_count;
        memcpy(&got_count, count_got, sizeof got_count);
        if ((bad = clscan_guard_diff(count_got, count_img, 8, sizeof count_got)) != (size_t)-1) {
            snprintf(msg, msg_size, "count byte %zu (past its cl_ulong) was written", bad);
            goto done;
        }
        if (got_count != kept) {
            snprintf(msg, msg_size, "count: got %llu, expected %zu", (unsigned long long)got_count,
                     kept);
            goto done;
        }
    }
    /* Every band of the parent, and for compactions the output, byte for byte. */
    clscan_guard_read(d, parent, g.parent_len, got);
    size_t out_end = g.out_start + (k->compaction ? n * es : 0);
    if ((bad = clscan_guard_diff(got, want, 0, g.out_start)) != (size_t)-1 ||
        (bad = clscan_guard_diff(got, want, g.out_start + n * es, g.parent_len)) != (size_t)-1 ||
        (bad = clscan_guard_diff(got, want, g.out_start, out_end)) != (size_t)-1) {
        char where[160];
        clscan_guard_where(&g, c, k->compaction && k->kind != CLSCAN_VERIFY_PARTITION_IF ? kept : n,
                           bad, where, sizeof where);
        const int inside = bad >= g.out_start && bad < g.out_start + n * es;
        snprintf(msg, msg_size, "byte %zu of the parent (%s): got 0x%02x, expected 0x%02x (%s)",
                 bad, where, got[bad], want[bad],
                 !inside                              ? "a write outside the output"
                 : bad < g.out_start + kept * es      ? "a wrong result"
                 : k->kind == CLSCAN_VERIFY_PARTITION_IF ? "a wrong rejected element"
                                                      : "a write the call must not make");
        goto done;
    }
    if (ref && !clscan_verify_compare(ref, got + g.out_start, msg, msg_size))
        goto done;
    if (!c->in_place) {
        clscan_guard_read(d, src, g.src_len, src_got);
        if ((bad = clscan_guard_diff(src_got, src_img, 0, g.src_len)) != (size_t)-1) {
            snprintf(msg, msg_size, "src byte %zu (element %zu; input at %zu) was changed", bad,
                     bad / es, c->src_offset);
            goto done;
        }
    }
    if (flagged) {
        clscan_guard_read(d, flags, g.flags_len, flags_got);
        if ((bad = clscan_guard_diff(flags_got, flags_img, 0, g.flags_len)) != (size_t)-1) {
            snprintf(msg, msg_size, "flags byte %zu was changed", bad);
            goto done;
        }
    }
    ok = 1;
    snprintf(msg, msg_size, "ok");
done:
    clscan_verify_ref_free(ref);
    clReleaseMemObject(dst);
    clReleaseMemObject(parent);
    if (!c->in_place)
        clReleaseMemObject(src);
    if (flags)
        clReleaseMemObject(flags);
    if (count)
        clReleaseMemObject(count);
    free(img);
    free(got);
    free(want);
    free(src_img);
    free(src_got);
    free(flags_img);
    free(flags_got);
    return ok;
}

/* ------------------------------------------------------------ the matrix ---- */

/* Offsets the cases rotate through: 0, 1, odd, and past several tiles (odd too). */
static const size_t clscan_guard_offsets[] = {0, 1, 37, 70001};
#define CLSCAN_GUARD_NOFFSETS (sizeof clscan_guard_offsets / sizeof *clscan_guard_offsets)

/* Sizes around the call's tile: 0, 1, tile - 1, tile, tile + 1, two and a half tiles
 * (no power of two), and 17 tiles and a bit (many tiles; each work-group of the
 * multi-level tunings loops over several). Duplicates (tiny tiles) are left out. */
static size_t clscan_guard_sizes(size_t tile, size_t *out)
{
    const size_t cand[] = {0, 1, tile - 1, tile, tile + 1, tile * 5 / 2 + 3, tile * 17 + 5};
    size_t k = 0;
    for (size_t i = 0; i < sizeof cand / sizeof *cand; i++) {
        int dup = 0;
        for (size_t j = 0; j < k; j++)
            dup |= out[j] == cand[i];
        if (!dup)
            out[k++] = cand[i];
    }
    return k;
}

/* Loop test over clscan_guard_calls: every size, out of place at each dst offset (src
 * and flags offsets rotating against it) and in place at two of them. */
START_TEST(test_guard)
{
    const clscan_guard_call *k = &clscan_guard_calls[_i];
    const uint64_t seed = clscan_test_seed(20261124u);
    char name[128];
    clscan_guard_call_name(k, name, sizeof name);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        unsigned cases = 0, skipped = 0;
        for (int in_place = 0; in_place < 2; in_place++) {
            const size_t tile = clscan_guard_tile(d, k, in_place);
            size_t sizes[8];
            const size_t nsizes = clscan_guard_sizes(tile ? tile : 1024, sizes);
            fprintf(stderr, "%s: %s, %s: tile %zu\n", d->name, name,
                    in_place ? "in place" : "out of place", tile);
            for (size_t s = 0; s < nsizes; s++) {
                for (size_t o = 0; o < (in_place ? 2 : CLSCAN_GUARD_NOFFSETS); o++) {
                    clscan_guard_case c = {k, sizes[s], 0, 0, 0, in_place, 0};
                    c.dst_offset = clscan_guard_offsets[(s + o) % CLSCAN_GUARD_NOFFSETS];
                    c.src_offset = clscan_guard_offsets[(s + 2 * o + 1) % CLSCAN_GUARD_NOFFSETS];
                    c.flags_offset = clscan_guard_offsets[(s + 3 * o + 2) % CLSCAN_GUARD_NOFFSETS];
                    c.seed = clscan_verify_mix(seed, (uint64_t)_i << 40 ^ (uint64_t)in_place << 36 ^
                                                         (uint64_t)o << 32 ^ c.n);
                    char msg[1024];
                    int skip;
                    int ok = clscan_guard_run(d, &c, tile, CLSCAN_PLANT_NONE, &skip, msg,
                                              sizeof msg);
                    ck_assert_msg(ok, "%s: %s n=%zu src_offset=%zu flags_offset=%zu "
                                  "dst_offset=%zu in_place=%d (tile %zu; seed %" PRIu64 "): %s",
                                  d->name, name, c.n, in_place ? c.dst_offset : c.src_offset,
                                  c.flags_offset, c.dst_offset, in_place, tile, seed, msg);
                    cases++;
                    skipped += (unsigned)skip;
                }
            }
        }
        fprintf(stderr, "%s: %s: %u cases passed%s\n", d->name, name, cases - skipped,
                skipped ? " (the rest refused: no fp64)" : "");
    }
}
END_TEST

/* The checks catch what they are for: one byte changed after a correct call, in each
 * place that a kernel off by one would hit first, fails the case with a message naming
 * the place; the same case without the change passes. */
START_TEST(test_detects)
{
    static const clscan_guard_call scan = {0, CLSCAN_INT64, CLSCAN_OP_ADD, 1,
                                           CLSCAN_VERIFY_SELECT_FLAGGED, 0};
    static const clscan_guard_call select = {1, CLSCAN_INT32, CLSCAN_OP_ADD, 0,
                                             CLSCAN_VERIFY_SELECT_IF, CLSCAN_GUARD_PRED_EVEN};
    /* Where the byte goes, on which call, and what the failure must say. */
    static const struct {
        int plant;
        const clscan_guard_call *call;
        const char *says;
    } steps[] = {
        {CLSCAN_PLANT_NONE, &scan, "ok"},
        {CLSCAN_PLANT_NONE, &select, "ok"},
        {CLSCAN_PLANT_BEFORE_OUTPUT, &scan, "dst[0, dst_offset)"},
        {CLSCAN_PLANT_AFTER_OUTPUT, &scan, "after dst_offset + n"},
        {CLSCAN_PLANT_PAST_SUB, &select, "after the sub-buffer"},
        {CLSCAN_PLANT_BEFORE_SUB, &scan, "before the sub-buffer"},
        {CLSCAN_PLANT_UNWRITTEN, &select, "never to be written"},
        {CLSCAN_PLANT_COUNT_TAIL, &select, "count byte 8"},
        {CLSCAN_PLANT_RESULT, &scan, "index"},
        {CLSCAN_PLANT_RESULT, &select, "a wrong result"}};
    const uint64_t seed = clscan_test_seed(20261124u);
    for (int di = 0; di < clscan_test_ndevs; di++) {
        clscan_test_dev *d = &clscan_test_devs[di];
        for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
            const size_t tile = clscan_guard_tile(d, steps[s].call, 0);
            const clscan_guard_case c = {steps[s].call, 3 * tile + 1, 3, 5, 0, 0,
                                         clscan_verify_mix(seed, 77 + s)};
            char msg[1024];
            int skip, ok = clscan_guard_run(d, &c, tile, steps[s].plant, &skip, msg, sizeof msg);
            fprintf(stderr, "%s: step %zu: %s\n", d->name, s, msg);
            const int clean = steps[s].plant == CLSCAN_PLANT_NONE;
            ck_assert_msg(ok == clean && strstr(msg, steps[s].says),
                          "%s: step %zu (a byte changed at place %d): expected %s \"%s\", got "
                          "\"%s\"", d->name, s, steps[s].plant,
                          clean ? "a pass:" : "a failure naming", steps[s].says, msg);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ suite --------- */

static Suite *clscan_guard_suite(void)
{
    Suite *s = suite_create("guard");
    TCase *tc = tcase_create("device");
    tcase_add_checked_fixture(tc, clscan_guard_setup, clscan_test_teardown);
    tcase_set_timeout(tc, 280);
    tcase_add_test(tc, test_detects);
    tcase_add_loop_test(tc, test_guard, 0, CLSCAN_GUARD_NCALLS);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return clscan_test_run(clscan_guard_suite());
}
