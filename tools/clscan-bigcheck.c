/* clscan-bigcheck.c - scans and compactions at sizes past 2^31 and 2^32 elements (64-bit
 * counts, indices and byte offsets), checked against verify.c's host reference by
 * streaming, chunk by chunk on every core; sizes above the largest allocation must be
 * refused. Prints the device's limits, each case, and a table. */
/* SPDX-License-Identifier: MIT */
#include <clscan.h>
#include <clscan_ext.h>

#include "verify.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define MAX_ITEMS 32
#define PIECE_BYTES ((size_t)1 << 30) /* transfers, copies and fills go in pieces of this */
#define GUARD_BYTES ((size_t)1 << 20) /* guard windows before and after the output */
#define COUNT_BYTES 64                /* the count buffer: the cl_ulong, then guard bytes */
/* 4-byte patterns: the guard windows before and after the output, and the output of an
 * out-of-place call before it (what a select must leave in dst[kept, n)). Count's bytes
 * start as COUNT_GUARD. */
#define PATTERN_BEFORE 0xA1B2C3D4u
#define PATTERN_AFTER 0xE5F60718u
#define PATTERN_OUTPUT 0x5EEDF00Du
#define COUNT_GUARD 0xA5

/* ------------------------------------------------------------ options ------- */

enum { CALL_SCAN, CALL_SELECT_IF, CALL_PARTITION_IF, CALL_SELECT_FLAGGED };
static const char *const call_names[] = {"scan", "select-if", "partition-if", "select-flagged"};

/* One call on one type. */
typedef struct bc_case {
    clscan_type type;
    int call;      /* CALL_* */
    clscan_op op;  /* scans */
    int inclusive; /* scans */
} bc_case;

enum { LAYOUT_OFFSET, LAYOUT_IN_PLACE };
static const char *const layout_names[] = {"offset", "in-place"};

typedef struct options {
    unsigned platform, device;
    const char *platform_name; /* if set: the first platform whose name contains it */
    size_t sizes[MAX_ITEMS], nsizes;
    bc_case cases[MAX_ITEMS];
    size_t ncases;
    int layouts[2], nlayouts;
    int small_offsets;
    unsigned long long max_size;
    unsigned threads;
    size_t chunk; /* 0: from n and the thread count */
    int pinned;
    double time_limit; /* s; 0: none */
    uint64_t seed;
} options;

static void usage(FILE *f)
{
    fputs("usage: clscan-bigcheck [options]\n"
          "Checks libclscan's scans and compactions at large sizes on one OpenCL device\n"
          "against the host reference, streaming (no second full-size array).\n"
          "  --platform N, --device N  the device (default 0, 0)\n"
          "  --platform-name TEXT  the first platform whose name contains TEXT (any case);\n"
          "                    none: exit status 77, meson's \"skipped\"\n"
          "  --sizes LIST      element counts: 2^31-1, 2^32+3, 1048577, 64K, 1G+5 ...\n"
          "                    (default 2^32+3,2^31+1,2^31-1: the largest first, should\n"
          "                    --time-limit cut the run short)\n"
          "  --max-size N      leave out (and list) sizes above N\n"
          "  --cases LIST      TYPE:CALL items; TYPE int32, uint32, int64 or uint64;\n"
          "                    CALL exclusive-OP or inclusive-OP (OP add, mul, min, max,\n"
          "                    and, or, xor), select-if (keep even), partition-if (keep\n"
          "                    even) or select-flagged (runs of set and clear flags);\n"
          "                    TYPE alone: exclusive-add, inclusive-xor and the three\n"
          "                    compactions (default int32,int64)\n"
          "  --layouts LIST    offset: out of place, src, dst and flags at offsets that\n"
          "                    reach past 2^32 bytes where the buffers fit the device's\n"
          "                    largest allocation (else 3, 5, 7); in-place: src == dst\n"
          "                    at dst's offset (default offset,in-place)\n"
          "  --small-offsets   offsets 3, 5 and 7 always\n"
          "  --threads N       host threads for making and checking data (default: all\n"
          "                    cores)\n"
          "  --chunk N         elements per chunk of the check (default: n / (8 threads),\n"
          "                    within [2^16, 2^22])\n"
          "  --no-pinned       host staging in malloc'd memory (default: a mapped\n"
          "                    CL_MEM_ALLOC_HOST_PTR buffer, pinned on GPUs)\n"
          "  --time-limit S    start no case after S seconds (the rest: not run)\n"
          "  --seed S          input seed (default: from the clock; always printed)\n"
          "Exit status: 0 when every case that ran passed (sizes above the largest\n"
          "allocation refused by OpenCL count as passed) and one did; 1 otherwise; 2 usage;\n"
          "77 no platform matches --platform-name.\n",
          f);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "clscan-bigcheck: %s '%s'\n", what, arg);
    usage(stderr);
    return 2;
}

/* Parses "2^K", or a number with an optional K, M or G suffix, then optionally "+N" or
 * "-N"; 0 on success. */
static int parse_count(const char *s, unsigned long long *out)
{
    char base[64];
    size_t len = strcspn(s + 1, "+-") + 1; /* (a leading sign is no split) */
    if (len >= sizeof base) return -1;
    memcpy(base, s, len);
    base[len] = '\0';
    unsigned long long v, adj = 0;
    if (base[0] == '2' && base[1] == '^') {
        unsigned long long e;
        if (!clscan_ext_parse_size(base + 2, &e) || e > 62) return -1;
        v = 1ull << e;
    } else if (!clscan_ext_parse_size(base, &v)) {
        return -1;
    }
    if (s[len] && !clscan_ext_parse_size(s + len + 1, &adj)) return -1;
    if (s[len] == '-' && adj > v) return -1;
    *out = s[len] == '-' ? v - adj : v + adj;
    return 0;
}

/* Parses one TYPE or TYPE:CALL item into cases; returns how many it added, 0 if bad. */
static size_t parse_case(const char *item, bc_case *out, size_t room)
{
    char type_name[16];
    const char *colon = strchr(item, ':');
    size_t tl = colon ? (size_t)(colon - item) : strlen(item);
    if (tl >= sizeof type_name) return 0;
    memcpy(type_name, item, tl);
    type_name[tl] = '\0';
    int type = -1;
    for (int t = CLSCAN_INT32; t <= CLSCAN_UINT64; t++)
        if (!strcmp(type_name, clscan_type_name((clscan_type)t))) type = t;
    if (type < 0) return 0;
    static const char *const all[] = {"exclusive-add", "inclusive-xor", "select-if",
                                      "partition-if", "select-flagged"};
    const char *const *calls = colon ? &colon : all;
    size_t ncalls = colon ? 1 : sizeof all / sizeof *all, k = 0;
    for (size_t i = 0; i < ncalls && k < room; i++) {
        const char *c = colon ? colon + 1 : calls[i];
        bc_case bcase = {(clscan_type)type, CALL_SCAN, CLSCAN_OP_ADD, 0};
        int found = 0;
        for (int call = CALL_SELECT_IF; call <= CALL_SELECT_FLAGGED; call++)
            if (!strcmp(c, call_names[call])) bcase.call = call, found = 1;
        for (int incl = 0; incl < 2 && !found; incl++) {
            const char *mode = incl ? "inclusive-" : "exclusive-";
            if (strncmp(c, mode, strlen(mode))) continue;
            for (int op = 0; op < CLSCAN_OP_COUNT; op++)
                if (!strcmp(c + strlen(mode), clscan_op_name((clscan_op)op)))
                    bcase.op = (clscan_op)op, bcase.inclusive = incl, found = 1;
        }
        if (!found) return 0;
        out[k++] = bcase;
    }
    return k;
}

static int parse_args(options *o, int argc, char **argv)
{
    const char *sizes = "2^32+3,2^31+1,2^31-1", *cases = "int32,int64",
               *layouts = "offset,in-place";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--small-offsets")) {
            o->small_offsets = 1;
            continue;
        } else if (!strcmp(a, "--no-pinned")) {
            o->pinned = 0;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long num = 0;
        if (!v) return usage_error("a value is missing after", a);
        i++;
        if (!strcmp(a, "--sizes")) sizes = v;
        else if (!strcmp(a, "--cases")) cases = v;
        else if (!strcmp(a, "--layouts")) layouts = v;
        else if (!strcmp(a, "--time-limit")) o->time_limit = atof(v);
        else if (!strcmp(a, "--platform-name")) o->platform_name = v;
        else if (parse_count(v, &num)) return usage_error("not a number:", v);
        else if (!strcmp(a, "--platform")) o->platform = (unsigned)num;
        else if (!strcmp(a, "--device")) o->device = (unsigned)num;
        else if (!strcmp(a, "--max-size")) o->max_size = num;
        else if (!strcmp(a, "--threads")) o->threads = num ? (unsigned)num : 1;
        else if (!strcmp(a, "--chunk")) o->chunk = num ? (size_t)num : 1;
        else if (!strcmp(a, "--seed")) o->seed = num;
        else return usage_error("unknown option", a);
    }
    char item[64];
    for (const char *p = sizes; *p && o->nsizes < MAX_ITEMS; p += *p == ',') {
        size_t len = strcspn(p, ",");
        unsigned long long n;
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (parse_count(item, &n) || n == 0) return usage_error("not a size:", item);
        o->sizes[o->nsizes++] = (size_t)n;
        p += len;
    }
    for (const char *p = cases; *p; p += *p == ',') {
        size_t len = strcspn(p, ","), added;
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (!(added = parse_case(item, o->cases + o->ncases, MAX_ITEMS - o->ncases)))
            return usage_error("not a case (TYPE or TYPE:CALL):", item);
        o->ncases += added;
        p += len;
    }
    for (const char *p = layouts; *p && o->nlayouts < 2; p += *p == ',') {
        size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (!strcmp(item, "offset")) o->layouts[o->nlayouts++] = LAYOUT_OFFSET;
        else if (!strcmp(item, "in-place")) o->layouts[o->nlayouts++] = LAYOUT_IN_PLACE;
        else return usage_error("not a layout:", item);
        p += len;
    }
    if (!o->nsizes || !o->ncases || !o->nlayouts) return usage_error("nothing to run in", argv[0]);
    return 0;
}

/* ------------------------------------------------------------ the run ------- */

enum { RES_PASS, RES_FAIL, RES_REFUSED, RES_NOT_RUN };
static const char *const res_names[] = {"PASS", "FAIL", "refused", "not run"};

/* One line of the table. */
typedef struct bc_row {
    size_t n;
    const bc_case *c; /* NULL: every case of the size and type (refused, not run) */
    clscan_type type;
    int layout;
    size_t src_off, dst_off, flags_off;
    int res;
    double call_ms, case_s;
    char msg[400];
} bc_row;

/* The state of the whole run. */
typedef struct bigcheck {
    options o;
    cl_context cl_ctx;
    cl_command_queue queue;
    cl_device_id dev;
    clscan_context *ctx;
    cl_ulong max_alloc, global_mem;
    unsigned char *host; /* staging: input, flags and results pass through here */
    size_t host_len;
    cl_mem host_mem;     /* its buffer, when pinned */
    unsigned char *ref;  /* host_len bytes for the compactions' reference, or NULL */
    struct timespec start;
    bc_row *rows;
    size_t nrows, rows_cap;
} bigcheck;

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static const char *case_name(const bc_case *c, char *buf, size_t size)
{
    if (!c) return "(all)";
    if (c->call != CALL_SCAN) return call_names[c->call];
    snprintf(buf, size, "%s-%s", c->inclusive ? "inclusive" : "exclusive", clscan_op_name(c->op));
    return buf;
}

static bc_row *add_row(bigcheck *b, const bc_row *r)
{
    if (b->nrows == b->rows_cap) {
        size_t cap = b->rows_cap ? 2 * b->rows_cap : 64;
        bc_row *grown = realloc(b->rows, cap * sizeof *grown);
        if (!grown) {
            fputs("clscan-bigcheck: out of host memory\n", stderr);
            exit(1);
        }
        b->rows = grown;
        b->rows_cap = cap;
    }
    b->rows[b->nrows] = *r;
    bc_row *row = &b->rows[b->nrows++];
    char name[32];
    printf("[%7.1f s] %-6s n=%-11zu %-15s %-8s %s%s%s\n", seconds_since(&b->start),
           clscan_type_name(row->type), row->n, case_name(row->c, name, sizeof name),
           row->c ? layout_names[row->layout] : "", res_names[row->res],
           row->msg[0] ? ": " : "", row->msg);
    fflush(stdout);
    return row;
}

/* ------------------------------------------------------------ chunks -------- */

/* A parallel loop over the chunks of one size: fn(job, chunk, thread scratch). The
 * first failure by element index is kept, so a report does not depend on timing. */
typedef struct bc_scratch {
    unsigned char *src;   /* one element, then a chunk */
    unsigned char *flags; /* a chunk of flags */
} bc_scratch;

typedef struct bc_job bc_job;
struct bc_job {
    const bigcheck *b;
    const bc_case *c;
    size_t n, chunk, nchunks, es;
    int layout;
    const unsigned char *got; /* the result, n elements */
    size_t *kept;             /* compactions: per chunk, then its prefix sum */
    size_t total_kept;        /* the device's count in pass one, then the reference's */
    unsigned char *ref;       /* compactions: the reference, chunk by chunk, n elements */
    void (*fn)(bc_job *, size_t, bc_scratch *);
    atomic_size_t next;
    pthread_mutex_t lock;
    size_t bad_at;            /* element index of the first failure; (size_t)-1: none */
    char bad[320];
};

static void job_fail(bc_job *j, size_t at, const char *fmt, ...)
{
    pthread_mutex_lock(&j->lock);
    if (at < j->bad_at) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->bad, sizeof j->bad, fmt, ap);
        va_end(ap);
        j->bad_at = at;
    }
    pthread_mutex_unlock(&j->lock);
}

typedef struct bc_worker {
    bc_job *job;
    bc_scratch s;
} bc_worker;

static void *worker_main(void *arg)
{
    bc_worker *w = arg;
    for (;;) {
        size_t k = atomic_fetch_add(&w->job->next, 1);
        if (k >= w->job->nchunks) break;
        w->job->fn(w->job, k, &w->s);
    }
    return NULL;
}

/* Runs j->fn over every chunk on `threads` threads, the calling one among them; 0 when
 * out of host memory. */
static int run_chunks(bc_job *j, unsigned threads)
{
    bc_worker *w = calloc(threads, sizeof *w);
    pthread_t *tid = calloc(threads, sizeof *tid);
    int ok = w && tid;
    for (unsigned t = 0; ok && t < threads; t++) {
        w[t].job = j;
        w[t].s.src = malloc((j->chunk + 1) * 8);
        w[t].s.flags = malloc(j->chunk);
        ok = w[t].s.src && w[t].s.flags;
    }
    if (ok) {
        unsigned started = 0;
        atomic_store(&j->next, 0);
        for (unsigned t = 1; t < threads; t++)
            if (pthread_create(&tid[t], NULL, worker_main, &w[t]) == 0)
                tid[started++] = tid[t];
        worker_main(&w[0]); /* also whatever threads that did not start would have done */
        for (unsigned t = 0; t < started; t++) pthread_join(tid[t], NULL);
    }
    for (unsigned t = 0; w && t < threads; t++) {
        free(w[t].s.src);
        free(w[t].s.flags);
    }
    free(w);
    free(tid);
    return ok;
}

/* The input of chunk k (its elements, and flags when not NULL), from the chunk's own
 * seed: clscan_verify_compact_fill as for select_flagged with runs of flags, so every
 * call of a size reads the same data. */
static size_t chunk_fill(const bc_job *j, size_t k, void *src, unsigned char *flags)
{
    const size_t m = k + 1 < j->nchunks ? j->chunk : j->n - k * j->chunk;
    const clscan_verify_compact_case c = {CLSCAN_VERIFY_SELECT_FLAGGED, j->c->type,
                                          CLSCAN_VERIFY_FLAGS_RUNS, m, 0, 0, 0, 0,
                                          clscan_verify_mix(j->b->o.seed, k), NULL};
    clscan_verify_compact_fill(&c, src, flags);
    return m;
}

/* Makes chunk k of the input in the staging buffer: elements, or with j->es == 1 the
 * flags. */
static void job_make(bc_job *j, size_t k, bc_scratch *s)
{
    unsigned char *at = j->b->host + k * j->chunk * j->es;
    if (j->es == 1) {
        const size_t m = chunk_fill(j, k, s->src, s->flags);
        memcpy(at, s->flags, m);
    } else {
        chunk_fill(j, k, at, NULL);
    }
}

/* Reports the first element where got[0, len) and want differ, as element base + i. */
static int compare_elems(bc_job *j, const unsigned char *got, const unsigned char *want,
                         size_t len, size_t base, const char *what)
{
    if (!memcmp(got, want, len * j->es)) return 1;
    size_t i = 0;
    while (!memcmp(got + i * j->es, want + i * j->es, j->es)) i++;
    uint64_t g = 0, w = 0;
    memcpy(&g, got + i * j->es, j->es);
    memcpy(&w, want + i * j->es, j->es);
    job_fail(j, base + i, "dst[%zu] (%s): got 0x%" PRIx64 ", expected 0x%" PRIx64, base + i,
             what, g, w);
    return 0;
}

/* A scan's chunk [s, s + m): the reference of the chunk's elements after a known-good
 * value y[s-1] (inclusive) or y[s] (exclusive) checks the results that follow it; the
 * first chunk starts from the reference's own first value. So every result is checked
 * against clscan_verify_reference, and no chunk waits for another. */
static void job_scan(bc_job *j, size_t k, bc_scratch *s)
{
    const bc_case *c = j->c;
    const size_t es = j->es, start = k * j->chunk;
    unsigned char *a = s->src; /* [a base value, then the chunk's elements] */
    size_t m = chunk_fill(j, k, a + es, NULL), len, from;
    clscan_verify_ref *ref;
    if (k == 0 && c->inclusive) {
        ref = clscan_verify_reference(c->type, c->op, 1, a + es, m);
        len = m, from = 0;
    } else if (c->inclusive) {
        memcpy(a, j->got + (start - 1) * es, es);
        ref = clscan_verify_reference(c->type, c->op, 1, a, m + 1);
        len = m + 1, from = start - 1;
    } else {
        if (k == 0) { /* the identity first */
            clscan_verify_ref *first = clscan_verify_reference(c->type, c->op, 0, a + es, 1);
            char msg[256];
            if (!first) {
                job_fail(j, 0, "host out of memory");
                return;
            }
            if (!clscan_verify_compare(first, j->got, msg, sizeof msg))
                job_fail(j, 0, "dst[0], the identity: %s",
                         strstr(msg, ": ") ? strstr(msg, ": ") + 2 : msg);
            clscan_verify_ref_free(first);
        }
        memcpy(a, j->got + start * es, es);
        len = start + m < j->n ? m + 1 : m;
        ref = clscan_verify_reference(c->type, c->op, 1, a, len);
        from = start;
    }
    if (!ref) {
        job_fail(j, start, "host out of memory");
        return;
    }
    char msg[256];
    if (!clscan_verify_compare(ref, j->got + from * es, msg, sizeof msg)) {
        size_t i = 0; /* the message starts "index I: ", I counted from `from` */
        const char *rest = strstr(msg, ": ");
        sscanf(msg, "index %zu", &i);
        job_fail(j, from + i, "dst[%zu]: %s", from + i, rest ? rest + 2 : msg);
    }
    clscan_verify_ref_free(ref);
}

/* A compaction, pass one: the reference of chunk k into j->ref at the chunk's own
 * positions (its kept elements, then for a partition its rejected ones in reverse) and
 * its count kept into j->kept[k]; and, for a select, dst over the chunk's positions
 * from the count the device wrote (j->total_kept) on as before the call (a wrong count
 * fails anyway). */
static void job_reference(bc_job *j, size_t k, bc_scratch *s)
{
    const int flagged = j->c->call == CALL_SELECT_FLAGGED;
    const size_t es = j->es, start = k * j->chunk;
    const size_t m = chunk_fill(j, k, s->src, flagged ? s->flags : NULL);
    const clscan_verify_kind kind = flagged                           ? CLSCAN_VERIFY_SELECT_FLAGGED
                                    : j->c->call == CALL_PARTITION_IF ? CLSCAN_VERIFY_PARTITION_IF
                                                                      : CLSCAN_VERIFY_SELECT_IF;
    j->kept[k] = clscan_verify_compact_reference(kind, j->c->type, &clscan_verify_predicates[0],
                                                 s->src, flagged ? s->flags : NULL, m,
                                                 j->ref + start * es);
    const size_t from = j->total_kept > start ? j->total_kept : start;
    if (kind == CLSCAN_VERIFY_PARTITION_IF || from >= start + m) return;
    if (j->layout == LAYOUT_IN_PLACE) { /* the input, where nothing was kept */
        compare_elems(j, j->got + from * es, s->src + (from - start) * es, start + m - from,
                      from, "past the kept ones: the input left in place");
        return;
    }
    for (size_t p = from; p < start + m; p++)
        for (size_t b = 0; b < es; b += 4) {
            uint32_t w;
            memcpy(&w, j->got + p * es + b, 4);
            if (w != PATTERN_OUTPUT) {
                job_fail(j, p, "dst[%zu], past the %zu kept, was written (0x%08x)", p,
                         j->total_kept, w);
                return;
            }
        }
}

/* Pass two (j->kept now holds each chunk's prefix): the chunk's kept elements at their
 * place after the earlier chunks', a partition's rejected ones at theirs from the end. */
static void job_compact(bc_job *j, size_t k, bc_scratch *s)
{
    const size_t es = j->es, start = k * j->chunk, before = j->kept[k];
    const size_t m = k + 1 < j->nchunks ? j->chunk : j->n - start, kept = j->kept[k + 1] - before;
    const unsigned char *ref = j->ref + start * es;
    (void)s;
    if (!compare_elems(j, j->got + before * es, ref, kept, before, "a kept element"))
        return;
    if (j->c->call == CALL_PARTITION_IF) {
        const size_t rejected_before = start - before, rejected = m - kept;
        const size_t at = j->n - rejected_before - rejected;
        compare_elems(j, j->got + at * es, ref + kept * es, rejected, at,
                      "a rejected element, in reverse");
    }
}

/* ------------------------------------------------------------ device -------- */

/* Transfers and fills in pieces of PIECE_BYTES (drivers differ on what one command may
 * move). what: 'r' read, 'w' write, 'c' copy from `from`, 'f' fill with a 4-byte
 * pattern. Blocking. Fills are writes of a host piece holding the pattern: on the H100
 * (driver 580) clEnqueueFillBuffer pieces over a 16 GiB buffer left the queue invalid
 * (CL_INVALID_COMMAND_QUEUE on the next command), while writes of the same ranges work. */
static cl_int move(bigcheck *b, int what, cl_mem mem, size_t off, size_t len, void *host,
                   cl_mem from, size_t from_off, cl_uint pattern)
{
    cl_int err = CL_SUCCESS;
    cl_uint *fill = NULL;
    if (what == 'f') {
        const size_t words = (len < PIECE_BYTES ? len : PIECE_BYTES) / sizeof *fill + 1;
        if (!(fill = malloc(words * sizeof *fill))) return CL_OUT_OF_HOST_MEMORY;
        for (size_t i = 0; i < words; i++) fill[i] = pattern;
    }
    for (size_t done = 0; done < len && err == CL_SUCCESS; done += PIECE_BYTES) {
        size_t piece = len - done < PIECE_BYTES ? len - done : PIECE_BYTES;
        unsigned char *h = host ? (unsigned char *)host + done : NULL;
        switch (what) {
        case 'r':
            err = clEnqueueReadBuffer(b->queue, mem, CL_FALSE, off + done, piece, h, 0, NULL, NULL);
            break;
        case 'w':
            err = clEnqueueWriteBuffer(b->queue, mem, CL_FALSE, off + done, piece, h, 0, NULL,
                                       NULL);
            break;
        case 'c':
            err = clEnqueueCopyBuffer(b->queue, from, mem, from_off + done, off + done, piece, 0,
                                      NULL, NULL);
            break;
        default: /* (every piece starts on a pattern boundary: pieces are multiples of 4) */
            err = clEnqueueWriteBuffer(b->queue, mem, CL_FALSE, off + done, piece, fill, 0, NULL,
                                       NULL);
        }
    }
    cl_int fin = clFinish(b->queue);
    free(fill);
    return err != CL_SUCCESS ? err : fin;
}

static cl_mem create(bigcheck *b, size_t bytes, cl_int *err)
{
    return clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, err);
}

/* Offsets (elements; flags in bytes) and the bytes of every buffer of one size and type. */
typedef struct bc_plan {
    size_t n, es;
    size_t src_off, dst_off, flags_off;
    size_t src_len, dst_len, flags_len, guard;
    int flagged, in_place_compaction;
} bc_plan;

static int plan_fits(const bigcheck *b, const bc_plan *p, size_t *total)
{
    *total = p->src_len + p->dst_len + p->flags_len +
             (p->in_place_compaction ? p->n * p->es : 0);
    return p->src_len <= b->max_alloc && p->dst_len <= b->max_alloc &&
           p->flags_len <= b->max_alloc;
}

/* Offsets that reach past 2^32 bytes (src 2^32/es + 3, dst + 5, flags 2^32 + 7) where
 * the buffers fit the largest allocation and 95% of the device's memory together, else
 * 3, 5 and 7; the guard windows shrink where dst would not fit otherwise. */
static bc_plan make_plan(const bigcheck *b, size_t n, clscan_type type, int flagged,
                         int in_place_compaction)
{
    bc_plan p = {n, clscan_type_size(type), 0, 0, 0, 0, 0, 0, 0, flagged, in_place_compaction};
    for (int small = b->o.small_offsets; small < 2; small++) {
        size_t big = ((size_t)1 << 32) / p.es;
        p.src_off = small ? 3 : big + 3;
        p.dst_off = small ? 5 : big + 5;
        p.flags_off = flagged ? (small ? 7 : ((size_t)1 << 32) + 7) : 0;
        p.guard = GUARD_BYTES;
        const size_t dst_bytes = (p.dst_off + n) * p.es;
        if (dst_bytes + p.guard > b->max_alloc && dst_bytes <= b->max_alloc)
            p.guard = (b->max_alloc - dst_bytes) / 8 * 8;
        p.src_len = (p.src_off + n) * p.es;
        p.dst_len = (p.dst_off + n) * p.es + p.guard;
        p.flags_len = flagged ? p.flags_off + n : 0;
        size_t total;
        if (plan_fits(b, &p, &total) && (double)total <= 0.95 * (double)b->global_mem)
            break;
    }
    return p;
}

/* Makes the input (or the flags, es 1) of a size in the staging buffer, on all threads. */
static int make_input(bigcheck *b, const bc_case *c, size_t n, size_t es, size_t chunk)
{
    bc_job j = {.b = b, .c = c, .n = n, .chunk = chunk, .nchunks = (n + chunk - 1) / chunk,
                .es = es, .fn = job_make, .bad_at = (size_t)-1};
    pthread_mutex_init(&j.lock, NULL);
    int ok = run_chunks(&j, b->o.threads);
    pthread_mutex_destroy(&j.lock);
    return ok;
}

/* Enqueues case c over plan p: the scan or compaction of s[soff, +n) into dst. */
static clscan_status enqueue_case(bigcheck *b, const bc_case *c, const bc_plan *p, cl_mem s,
                                  size_t soff, cl_mem dst, cl_mem flags, cl_mem count,
                                  cl_event *ev)
{
    const size_t n = p->n;
    switch (c->call) {
    case CALL_SCAN:
        return (c->inclusive ? clscan_inclusive_scan : clscan_exclusive_scan)(
            b->ctx, b->queue, s, soff, dst, p->dst_off, n, c->type, c->op, 0, NULL, ev);
    case CALL_SELECT_FLAGGED:
        return clscan_select_flagged(b->ctx, b->queue, s, soff, flags, p->flags_off, dst,
                                     p->dst_off, count, n, c->type, 0, NULL, ev);
    case CALL_SELECT_IF:
        return clscan_select_if(b->ctx, b->queue, s, soff, dst, p->dst_off, count, n, c->type,
                                clscan_verify_predicates[0].text, 0, NULL, ev);
    default:
        return clscan_partition_if(b->ctx, b->queue, s, soff, dst, p->dst_off, count, n,
                                   c->type, clscan_verify_predicates[0].text, 0, NULL, ev);
    }
}

/* Whether the guard windows read back (guard_before bytes before dst's output at byte
 * out, p->guard after it) still hold their patterns: 1, else 0 and r->msg says where. */
static int guards_intact(const bc_plan *p, size_t out, size_t guard_before,
                         const unsigned char *before, const unsigned char *after, bc_row *r)
{
    for (size_t i = 0; i + 4 <= guard_before; i += 4) {
        uint32_t w;
        memcpy(&w, before + i, 4);
        if (w != PATTERN_BEFORE) {
            snprintf(r->msg, sizeof r->msg, "write before the output: dst byte %zu, %zu bytes "
                     "before dst[dst_offset]", out - guard_before + i, guard_before - i);
            return 0;
        }
    }
    for (size_t i = 0; i + 4 <= p->guard; i += 4) {
        uint32_t w;
        memcpy(&w, after + i, 4);
        if (w != PATTERN_AFTER) {
            snprintf(r->msg, sizeof r->msg, "write after the output: %zu bytes after "
                     "dst[dst_offset + n]", i);
            return 0;
        }
    }
    return 1;
}

/* Checks the output read back into b->host (and count_got, the count buffer's bytes)
 * against the reference, chunk by chunk on all threads; RES_PASS in r, or r->msg says
 * what differs. */
static void check_result(bigcheck *b, const bc_case *c, int layout, const bc_plan *p,
                         size_t chunk, const unsigned char *count_got, bc_row *r)
{
    const size_t n = p->n, es = p->es;
    bc_job j = {.b = b, .c = c, .n = n, .chunk = chunk, .nchunks = (n + chunk - 1) / chunk,
                .es = es, .layout = layout, .got = b->host, .bad_at = (size_t)-1};
    pthread_mutex_init(&j.lock, NULL);
    int ok = 1;
    cl_ulong got_count = 0;
    if (c->call == CALL_SCAN) {
        j.fn = job_scan;
        ok = run_chunks(&j, b->o.threads);
    } else {
        memcpy(&got_count, count_got, sizeof got_count);
        for (size_t i = 8; i < COUNT_BYTES && ok; i++)
            if (count_got[i] != COUNT_GUARD) {
                snprintf(r->msg, sizeof r->msg, "count byte %zu (past its cl_ulong) was written",
                         i);
                ok = -1;
            }
        j.kept = calloc(j.nchunks + 1, sizeof *j.kept);
        j.ref = b->ref;
        j.total_kept = (size_t)got_count;
        j.fn = job_reference;
        if (ok == 1) ok = j.kept && run_chunks(&j, b->o.threads);
        for (size_t k = 0, sum = 0; ok == 1 && k <= j.nchunks; k++) {
            size_t here = k < j.nchunks ? j.kept[k] : 0;
            j.kept[k] = sum;
            sum += here;
        }
        if (ok == 1) {
            j.total_kept = j.kept[j.nchunks];
            j.fn = job_compact;
            ok = run_chunks(&j, b->o.threads);
        }
    }
    pthread_mutex_destroy(&j.lock);
    if (ok == 1 && c->call != CALL_SCAN && got_count != j.total_kept)
        snprintf(r->msg, sizeof r->msg, "count: got %llu, expected %zu%s%s",
                 (unsigned long long)got_count, j.total_kept, j.bad_at != (size_t)-1 ? "; " : "",
                 j.bad_at != (size_t)-1 ? j.bad : "");
    else if (ok == 1 && j.bad_at != (size_t)-1)
        snprintf(r->msg, sizeof r->msg, "%s", j.bad);
    else if (ok == 0)
        snprintf(r->msg, sizeof r->msg, "host out of memory in the check");
    else if (ok == 1) {
        r->res = RES_PASS;
        if (c->call != CALL_SCAN)
            snprintf(r->msg, sizeof r->msg, "kept %zu", j.total_kept);
    }
    free(j.kept);
}

/* Runs and checks one case; fills r. */
static void run_case(bigcheck *b, const bc_case *c, int layout, const bc_plan *p, cl_mem src,
                     cl_mem dst, cl_mem flags, cl_mem count, size_t chunk, bc_row *r)
{
    const size_t n = p->n, es = p->es;
    const int in_place = layout == LAYOUT_IN_PLACE;
    const size_t out = p->dst_off * es, guard_before = out < p->guard ? out : p->guard;
    unsigned char count_img[COUNT_BYTES], count_got[COUNT_BYTES];
    unsigned char *before = malloc(guard_before + 1), *after = malloc(p->guard + 1);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cl_int err;
    const char *what;
    r->res = RES_FAIL;
    if (!before || !after) {
        snprintf(r->msg, sizeof r->msg, "host out of memory");
        goto done;
    }
    /* dst: guard windows, and the output prefilled (out of place) or the input (in
     * place); the count's bytes. */
    what = "filling dst's guard windows";
    if ((err = move(b, 'f', dst, out - guard_before, guard_before, NULL, NULL, 0,
                    PATTERN_BEFORE)) ||
        (err = move(b, 'f', dst, out + n * es, p->guard, NULL, NULL, 0, PATTERN_AFTER)))
        goto cl_fail;
    what = in_place ? "copying the input into dst" : "filling dst";
    if ((err = in_place ? move(b, 'c', dst, out, n * es, NULL, src, p->src_off * es, 0)
                        : move(b, 'f', dst, out, n * es, NULL, NULL, 0, PATTERN_OUTPUT)))
        goto cl_fail;
    memset(count_img, COUNT_GUARD, sizeof count_img);
    what = "writing count";
    if (count && (err = move(b, 'w', count, 0, sizeof count_img, count_img, NULL, 0, 0)))
        goto cl_fail;

    cl_mem s = in_place ? dst : src;
    const size_t soff = in_place ? p->dst_off : p->src_off;
    cl_event ev = NULL;
    struct timespec tc;
    clock_gettime(CLOCK_MONOTONIC, &tc);
    clscan_status st = enqueue_case(b, c, p, s, soff, dst, flags, count, &ev);
    if (st != CLSCAN_SUCCESS) {
        snprintf(r->msg, sizeof r->msg, "%s: %s", clscan_status_string(st),
                 clscan_context_last_error(b->ctx));
        clFinish(b->queue);
        goto done;
    }
    err = clscan_verify_wait(ev, &what);
    clReleaseEvent(ev);
    r->call_ms = 1e3 * seconds_since(&tc);
    if (err) goto cl_fail;

    /* Read back: count, the guard windows, the output. */
    what = "reading back";
    if ((count && (err = move(b, 'r', count, 0, sizeof count_got, count_got, NULL, 0, 0))) ||
        (err = move(b, 'r', dst, out - guard_before, guard_before, before, NULL, 0, 0)) ||
        (err = move(b, 'r', dst, out + n * es, p->guard, after, NULL, 0, 0)) ||
        (err = move(b, 'r', dst, out, n * es, b->host, NULL, 0, 0)))
        goto cl_fail;
    if (guards_intact(p, out, guard_before, before, after, r))
        check_result(b, c, layout, p, chunk, count_got, r);
    goto done;

cl_fail:
    snprintf(r->msg, sizeof r->msg, "%s: %s", what, clscan_status_string(err));
    clFinish(b->queue);
done:
    r->case_s = seconds_since(&t0);
    free(before);
    free(after);
}


/* Whether the cases of `type` include select-flagged, and a compaction in place (which
 * copies its input). */
static void group_needs(const options *o, clscan_type type, int *flagged,
                        int *in_place_compaction)
{
    *flagged = *in_place_compaction = 0;
    for (size_t i = 0; i < o->ncases; i++)
        if (o->cases[i].type == type) {
            *flagged |= o->cases[i].call == CALL_SELECT_FLAGGED;
            for (int l = 0; l < o->nlayouts; l++)
                *in_place_compaction |= o->cases[i].call != CALL_SCAN &&
                                        o->layouts[l] == LAYOUT_IN_PLACE;
        }
}

/* Every case of one size and type. */
static void run_group(bigcheck *b, size_t n, clscan_type type)
{
    const size_t es = clscan_type_size(type);
    const options *o = &b->o;
    int flagged, in_place_compaction;
    group_needs(o, type, &flagged, &in_place_compaction);
    bc_row r = {.n = n, .type = type, .res = RES_NOT_RUN};
    /* Above the largest allocation: OpenCL must refuse the buffer. */
    if (n > SIZE_MAX / es || (cl_ulong)(n * es) > b->max_alloc) {
        cl_int err = CL_SUCCESS;
        cl_mem m = n <= SIZE_MAX / es ? create(b, n * es, &err) : NULL;
        if (m) {
            clReleaseMemObject(m);
            snprintf(r.msg, sizeof r.msg, "clCreateBuffer of %zu bytes, above the largest "
                     "allocation (%llu), succeeded: the implementation does not enforce "
                     "CL_DEVICE_MAX_MEM_ALLOC_SIZE; not run", n * es,
                     (unsigned long long)b->max_alloc);
        } else {
            r.res = RES_REFUSED;
            snprintf(r.msg, sizeof r.msg, "clCreateBuffer refused it with %s, as it must: "
                     "%zu bytes > the largest allocation %llu", clscan_status_string(err),
                     n * es, (unsigned long long)b->max_alloc);
        }
        add_row(b, &r);
        return;
    }
    bc_plan p = make_plan(b, n, type, flagged, in_place_compaction);
    size_t total;
    const int fits = plan_fits(b, &p, &total);
    size_t chunk = o->chunk ? o->chunk : n / (8 * (size_t)o->threads);
    if (!o->chunk && chunk < ((size_t)1 << 16)) chunk = (size_t)1 << 16;
    if (!o->chunk && chunk > ((size_t)1 << 22)) chunk = (size_t)1 << 22;
    if (chunk > n && n) chunk = n;
    if (!chunk) chunk = 1;
    printf("== %s n=%zu (%.2f GiB a buffer): offsets src %zu, dst %zu, flags %zu; guard "
           "windows of %zu bytes; %.2f GiB of device memory in all; chunks of %zu\n",
           clscan_type_name(type), n, (double)(n * es) / (1u << 30), p.src_off, p.dst_off,
           p.flags_off, p.guard, (double)total / (1u << 30), chunk);
    if (!fits) {
        snprintf(r.msg, sizeof r.msg, "src or dst with offsets 3 and 5 (and %zu guard bytes) "
                 "does not fit the largest allocation", p.guard);
        add_row(b, &r);
        return;
    }

    cl_int err = CL_SUCCESS;
    cl_mem src = NULL, dst = NULL, flags = NULL, count = NULL;
    const char *what = "clCreateBuffer";
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!(src = create(b, p.src_len, &err)) || !(dst = create(b, p.dst_len, &err)) ||
        (flagged && !(flags = create(b, p.flags_len, &err))) ||
        !(count = create(b, COUNT_BYTES, &err)))
        goto cl_fail;
    /* The input, then the flags, through the staging buffer. */
    bc_case maker = {type, CALL_SCAN, CLSCAN_OP_ADD, 0};
    what = "making the input";
    if (!make_input(b, &maker, n, es, chunk)) {
        snprintf(r.msg, sizeof r.msg, "host out of memory");
        goto fail;
    }
    what = "writing the input";
    if ((err = move(b, 'w', src, p.src_off * es, n * es, b->host, NULL, 0, 0))) goto cl_fail;
    if (flagged) {
        maker.call = CALL_SELECT_FLAGGED;
        if (!make_input(b, &maker, n, 1, chunk)) {
            snprintf(r.msg, sizeof r.msg, "host out of memory");
            goto fail;
        }
        what = "writing the flags";
        if ((err = move(b, 'w', flags, p.flags_off, n, b->host, NULL, 0, 0))) goto cl_fail;
    }
    printf("   input made and written in %.1f s\n", seconds_since(&t0));
    for (size_t i = 0; i < o->ncases; i++) {
        const bc_case *c = &o->cases[i];
        if (c->type != type) continue;
        for (int l = 0; l < o->nlayouts; l++) {
            bc_row row = {.n = n, .c = c, .type = type, .layout = o->layouts[l],
                          .src_off = o->layouts[l] == LAYOUT_IN_PLACE ? p.dst_off : p.src_off,
                          .dst_off = p.dst_off, .flags_off = p.flags_off, .res = RES_NOT_RUN};
            const double need = (double)(p.src_len + p.dst_len + p.flags_len +
                                         (c->call != CALL_SCAN && o->layouts[l] == LAYOUT_IN_PLACE
                                              ? n * es
                                              : 0));
            if (o->time_limit > 0 && seconds_since(&b->start) > o->time_limit)
                snprintf(row.msg, sizeof row.msg, "past --time-limit %g s", o->time_limit);
            else if (need > 0.95 * (double)b->global_mem)
                snprintf(row.msg, sizeof row.msg, "needs %.2f GiB of device memory, more than "
                         "95%% of the device's %.2f GiB", need / (1u << 30),
                         (double)b->global_mem / (1u << 30));
            else {
                char name[32];
                printf("[%7.1f s] %-6s n=%-11zu %-15s %-8s ...\n", seconds_since(&b->start),
                       clscan_type_name(type), n, case_name(c, name, sizeof name),
                       layout_names[o->layouts[l]]);
                run_case(b, c, o->layouts[l], &p, src, dst, flags, count, chunk, &row);
            }
            add_row(b, &row);
        }
    }
    goto release;
cl_fail:
    snprintf(r.msg, sizeof r.msg, "%s: %s", what, clscan_status_string(err));
fail:
    r.res = RES_FAIL;
    add_row(b, &r);
release:
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    if (flags) clReleaseMemObject(flags);
    if (count) clReleaseMemObject(count);
}

/* The staging buffer for the largest size that fits: a mapped CL_MEM_ALLOC_HOST_PTR
 * buffer (pinned memory on GPUs, so transfers run at full speed), else malloc. */
static int make_staging(bigcheck *b)
{
    size_t need = 0;
    for (size_t s = 0; s < b->o.nsizes; s++)
        for (size_t c = 0; c < b->o.ncases; c++) {
            const clscan_type t = b->o.cases[c].type;
            const size_t n = b->o.sizes[s], es = clscan_type_size(t);
            int flagged, in_place_compaction;
            size_t total;
            group_needs(&b->o, t, &flagged, &in_place_compaction);
            if (n > b->o.max_size || n > SIZE_MAX / es || n * es > b->max_alloc || n * es <= need)
                continue;
            const bc_plan p = make_plan(b, n, t, flagged, in_place_compaction);
            if (plan_fits(b, &p, &total)) need = n * es;
        }
    b->host_len = need ? need : 1;
    cl_int err = CL_INVALID_VALUE;
    if (b->o.pinned)
        b->host_mem = clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                     b->host_len, NULL, &err);
    if (b->host_mem)
        b->host = clEnqueueMapBuffer(b->queue, b->host_mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                     0, b->host_len, 0, NULL, NULL, &err);
    if (!b->host) {
        if (b->host_mem) clReleaseMemObject(b->host_mem);
        b->host_mem = NULL;
        b->host = malloc(b->host_len);
    }
    int compaction = 0;
    for (size_t c = 0; c < b->o.ncases; c++) compaction |= b->o.cases[c].call != CALL_SCAN;
    if (compaction) b->ref = malloc(b->host_len);
    printf("host staging: %.2f GiB, %s%s\n", (double)b->host_len / (1u << 30),
           b->host_mem ? "mapped CL_MEM_ALLOC_HOST_PTR buffer"
           : b->o.pinned ? "malloc (the mapped buffer failed)" : "malloc (--no-pinned)",
           compaction ? "; as much again for the compactions' reference" : "");
    (void)err;
    return b->host && (b->ref || !compaction);
}

static void print_table(const bigcheck *b)
{
    printf("\ntable (seed %" PRIu64 "; offsets in elements, flags in bytes):\n", b->o.seed);
    printf("%-6s %-11s %-15s %-8s %-10s %-10s %-10s %-8s %9s %8s  %s\n", "type", "n", "call",
           "layout", "src_off", "dst_off", "flags_off", "result", "call_ms", "case_s", "note");
    for (size_t i = 0; i < b->nrows; i++) {
        const bc_row *r = &b->rows[i];
        char name[32], so[24] = "-", d[24] = "-", f[24] = "-", ms[24] = "-", cs[24] = "-";
        if (r->c && r->res != RES_NOT_RUN) {
            snprintf(so, sizeof so, "%zu", r->src_off);
            snprintf(d, sizeof d, "%zu", r->dst_off);
            if (r->c->call == CALL_SELECT_FLAGGED) snprintf(f, sizeof f, "%zu", r->flags_off);
            snprintf(ms, sizeof ms, "%.1f", r->call_ms);
            snprintf(cs, sizeof cs, "%.1f", r->case_s);
        }
        printf("%-6s %-11zu %-15s %-8s %-10s %-10s %-10s %-8s %9s %8s  %.90s\n",
               clscan_type_name(r->type), r->n, case_name(r->c, name, sizeof name),
               r->c ? layout_names[r->layout] : "-", so, d, f, res_names[r->res], ms, cs,
               r->msg);
    }
}

int main(int argc, char **argv)
{
    bigcheck b = {.o = {.pinned = 1, .max_size = ~0ull}};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b.o.threads = cores > 0 ? (unsigned)cores : 1;
    b.o.seed = (uint64_t)time(NULL);
    int rc = parse_args(&b.o, argc, argv);
    if (rc) return rc;
    clock_gettime(CLOCK_MONOTONIC, &b.start);
    setvbuf(stdout, NULL, _IOLBF, 0);

    cl_platform_id plats[16];
    cl_device_id devs[16];
    cl_uint np = 0, nd = 0;
    cl_int err;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) np = 0;
    if (b.o.platform_name) {
        cl_uint found = np;
        for (cl_uint p = 0; p < np && found == np; p++) {
            char pn[256] = "";
            clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
            for (char *q = pn; *q && found == np; q++)
                if (!strncasecmp(q, b.o.platform_name, strlen(b.o.platform_name))) found = p;
        }
        if (found == np) {
            printf("clscan-bigcheck: no platform whose name contains '%s': skipped\n",
                   b.o.platform_name);
            return 77;
        }
        b.o.platform = found;
    }
    if (b.o.platform >= np ||
        clGetDeviceIDs(plats[b.o.platform], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS ||
        b.o.device >= nd) {
        fprintf(stderr, "clscan-bigcheck: no platform %u device %u\n", b.o.platform, b.o.device);
        return 1;
    }
    b.dev = devs[b.o.device];
    char name[256] = "", pname[256] = "";
    clGetDeviceInfo(b.dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetPlatformInfo(plats[b.o.platform], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetDeviceInfo(b.dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof b.max_alloc, &b.max_alloc, NULL);
    clGetDeviceInfo(b.dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof b.global_mem, &b.global_mem, NULL);
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           (cl_context_properties)plats[b.o.platform], 0};
    b.cl_ctx = clCreateContext(props, 1, &b.dev, NULL, NULL, &err);
    if (b.cl_ctx) b.queue = clCreateCommandQueue(b.cl_ctx, b.dev, 0, &err);
    clscan_status st = b.queue ? clscan_context_create(b.cl_ctx, b.dev, &b.ctx) : err;
    if (st != CLSCAN_SUCCESS) {
        fprintf(stderr, "clscan-bigcheck: %s: %s: %s\n", name, clscan_status_string(st),
                clscan_context_last_error(NULL));
        return 1;
    }
    printf("clscan-bigcheck, libclscan %u: seed %" PRIu64 " (reproduce with --seed %" PRIu64
           ")\ndevice: %s (platform: %s)\nCL_DEVICE_MAX_MEM_ALLOC_SIZE %llu bytes (%.2f GiB), "
           "CL_DEVICE_GLOBAL_MEM_SIZE %llu bytes (%.2f GiB); %u host threads\n",
           clscan_version(), b.o.seed, b.o.seed, name, pname, (unsigned long long)b.max_alloc,
           (double)b.max_alloc / (1u << 30), (unsigned long long)b.global_mem,
           (double)b.global_mem / (1u << 30), b.o.threads);
    if (!make_staging(&b)) {
        fputs("clscan-bigcheck: no host memory for the staging buffer\n", stderr);
        return 1;
    }
    for (size_t s = 0; s < b.o.nsizes; s++) {
        const size_t n = b.o.sizes[s];
        clscan_type done[MAX_ITEMS];
        size_t ndone = 0;
        for (size_t c = 0; c < b.o.ncases; c++) {
            const clscan_type t = b.o.cases[c].type;
            int seen = 0;
            for (size_t k = 0; k < ndone; k++) seen |= done[k] == t;
            if (seen) continue;
            done[ndone++] = t;
            if (n > b.o.max_size) {
                bc_row r = {.n = n, .type = t, .res = RES_NOT_RUN};
                snprintf(r.msg, sizeof r.msg, "above --max-size %llu", b.o.max_size);
                add_row(&b, &r);
                continue;
            }
            run_group(&b, n, t);
        }
    }
    print_table(&b);
    unsigned counts[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < b.nrows; i++) counts[b.rows[i].res]++;
    printf("%u passed, %u failed, %u refused as they must be, %u not run; %.0f s\n", counts[0],
           counts[1], counts[2], counts[3], seconds_since(&b.start));
    if (b.host_mem) {
        clEnqueueUnmapMemObject(b.queue, b.host_mem, b.host, 0, NULL, NULL);
        clFinish(b.queue);
        clReleaseMemObject(b.host_mem);
    } else {
        free(b.host);
    }
    free(b.ref);
    free(b.rows);
    clscan_context_release(b.ctx);
    clReleaseCommandQueue(b.queue);
    clReleaseContext(b.cl_ctx);
    return counts[1] == 0 && counts[0] > 0 ? 0 : 1;
}
