/* clscan-bench.c - times libclscan's scans, stream compactions, general scans and sorts
 * (device time of the kernels each call enqueued, wall time per call, and wall time per
 * call in batches of calls back to back) against a buffer copy of the same size, timed the
 * same ways; checks every result on the host; prints a table, CSV, JSON.
 *
 * CSV columns (JSON rows carry the same keys): platform, device, driver; then
 *   type, op, mode, algo     op and mode empty for a compaction, sort, reduce-by-key or
 *                            rle, op for a general scan, whose own types and operator
 *                            come from its case (tools/verify_general.c)
 *   n, elem_bytes            elements per call, bytes per element (a general scan: of
 *                            its output, its case's size; rle: its keys', at least 4)
 *   bytes_moved              the least the call must move: a scan reads and writes n
 *                            elements; a compaction reads n elements (select-flagged: and
 *                            n flag bytes), writes the kept ones (partition: all n) and
 *                            the 8-byte count; a sort reads and writes its keys (and
 *                            values); a general scan reads its input and segments and
 *                            writes its output
 *   rotations, warmup, repeats, kernels (most kernels traced in one timed call),
 *   device_time_usable       0 where the driver's timestamps do not advance
 *   scan_{min,median,max}_us device time of the timed call (scan or compaction)
 *   wall_{min,median,max}_us host clock from the call to its event complete
 *   scan_gbps                bytes_moved / median device time
 *   copy_{min,median,max}_us, copy_wall_{min,median,max}_us, copy_gbps
 *                            clEnqueueCopyBuffer of n elements, 2*n*elem_bytes moved
 *   ratio_pct                scan_gbps / copy_gbps, in %
 *   fallbacks                single-pass fallback reductions over all timed calls
 *   check, note              PASS, FAIL, SKIP, ERROR or UNCHECKED (a predicate the bench
 *                            cannot evaluate on the host), and why
 *   call                     scan, select-if, select-flagged, partition, unique,
 *                            sort-keys, sort-pairs, seg-add, seg-keys-min, seg-keys-add,
 *                            custom-max, mat2, mat2-exact or transform-count
 *   predicate                select-if, partition: the predicate's text
 *   keep_fraction            select-flagged, unique: the share of elements asked kept
 *   kept                     compaction: the count the checked call wrote
 *   gelem_per_s              n / median device time, in 10^9 elements per second
 *   chunk, chunk_used        host-stream: the chunk asked for (0: the library's choice)
 *                            and the one clscan_scan_host took
 *   h2d_median_us, h2d_gbps  host-stream: clEnqueueWriteBuffer of the n elements from the
 *                            same pinned memory (wall time to completion, median)
 *   d2h_median_us, d2h_gbps  host-stream: clEnqueueReadBuffer of them into pinned memory
 *   stream_gbps              host-stream: n * elem_bytes / median wall time of the call
 *   stream_h2d_pct           host-stream: stream_gbps / h2d_gbps, in %
 *   host_memory              host-stream: pinned (a mapped CL_MEM_ALLOC_HOST_PTR buffer)
 *                            or pageable (malloc, where no pinned buffer could be had)
 *   batch_calls              batched wall (empty with --no-batched and for host-stream): K,
 *                            the calls of a batch, 2 GiB / (2*n*elem_bytes) in [3, 2000]
 *                            (as shared/anchors/cub_anchor.cu counts them)
 *   batched_{min,median,max}_us      over 5 batches, each of K calls back to back on one
 *                            in-order queue without profiling, no event asked for, inputs
 *                            rotating as in the timed calls, then one clFinish: the
 *                            batch's wall time / K
 *   copy_batched_{min,median,max}_us the same for K clEnqueueCopyBuffer of the copy's bytes,
 *                            in the same batches (each batch: the K calls, then the K copies)
 *   batched_ratio            batched_median_us / copy_batched_median_us: how many copies'
 *                            time one call costs
 *   batched_enqueue_median_us the host's time in the batched calls themselves, before the
 *                            clFinish, per call (median of the batches): where it nears
 *                            batched_median_us, the enqueues set the batched time, or the
 *                            queue was full and they waited for the device
 *   batched_first_enqueue_median_us the same for the first 16 calls of each batch (the
 *                            queue empty after the last clFinish): the host's own cost of
 *                            a call (0 where K < 17)
 *
 * The batched wall times are taken after a row's checked call (its output is already read)
 * and its per-call copies; --no-batched leaves them out. host-stream rows have none: their
 * commands span two queues and host memory, and their yardstick is the transfers.
 *
 * --call host-stream times clscan_scan_host over n elements of pinned host memory into
 * pinned host memory, on two in-order queues, in chunks of --chunk elements (a list;
 * default the library's choice). Its time is the wall time of the call until its event
 * completes: device time means nothing for commands spread over two queues, so the
 * device-time columns stay empty. The same run measures the host-to-device and
 * device-to-host bandwidth of the same bytes, against which the stream is compared.
 *
 * --first-call measures instead what a fresh process pays before its first results: the
 * wall time of clscan_context_create, of the first scan and the first select-if (the call
 * alone, and with clFinish), and with --first-call warm of clscan_context_warm before
 * them; its line also says where the bank probe's result came from (bank_probe=measured,
 * loaded from the disk cache, remembered in the process, or not-run).
 * tools/first-call.sh runs it with the disk cache off, cold and warm. */
/* SPDX-License-Identifier: MIT */
#include <clscan.h>
#include <clscan_ext.h>

#include "verify_general.h"
#include "verify_histogram.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ITEMS 64                     /* entries per option list */
#define ROTATE_BYTES (256ull << 20)      /* inputs rotate over k buffers, k*bytes >= this */
#define MAX_ROTATE 64
#define TIMED_BYTES_CAP (32ull << 30)    /* scan traffic per row; repeats shrink to fit */
#define MIN_REPEATS 3                    /* ... but never below this */
#define TRACE_CAP 64                     /* kernel events traced per call */
#define BATCH_BYTES (2ull << 30)         /* batched wall: K calls copy this much ... */
#define BATCH_MIN_CALLS 3                /* ... K clamped to [3, 2000] */
#define BATCH_MAX_CALLS 2000
#define BATCHES 5                        /* batched wall: median of this many batches */
#define FIRST_CALLS 16 /* batched wall: the host's time in this many first calls of a batch */
#define LATE_NS 1e6     /* a batch's clFinish returned early: a marker after it waited more */
#define LATE_SHARE 0.05 /* than this and than this share of the batch */

/* What a row times: a scan, or one of the compactions. */
enum { CALL_SCAN, CALL_SELECT_IF, CALL_SELECT_FLAGGED, CALL_PARTITION, CALL_UNIQUE,
       CALL_SORT_KEYS, CALL_SORT_PAIRS, CALL_SEG_ADD, CALL_SEG_KEYS_MIN, CALL_SEG_KEYS_ADD, CALL_CUSTOM_MAX,
       CALL_MAT2, CALL_MAT2_EXACT, CALL_TRANSFORM_COUNT, CALL_REDUCE, CALL_HISTOGRAM,
       CALL_REDUCE_BY_KEY, CALL_RLE, CALL_COMPACT, CALL_HOST_STREAM, CALL_COUNT };
#define HIST_BINS 256 /* histogram: even bins (row_fill picks the samples and range) */
/* The general scans (clscan_scan) a call times: cases of tools/verify_general.c whose input
 * and output elements have one size. */
static int general_case(int call)
{
    switch (call) {
    case CALL_SEG_ADD: return 5;         /* int32 add, segmented by flags */
    case CALL_SEG_KEYS_MIN: return 8;    /* int64 min, segmented by int32 keys */
    case CALL_SEG_KEYS_ADD: return 10;   /* int32 add by int32 keys (CUB's ScanByKey) */
    case CALL_CUSTOM_MAX: return 0;      /* float "a > b ? a : b" */
    case CALL_MAT2: return 1;            /* 2x2 uint matrix product, a 16-byte struct */
    case CALL_MAT2_EXACT: return 1;      /* the same, declared exact (call_case) */
    case CALL_TRANSFORM_COUNT: return 3; /* int32 add of "x > 0.5f ? 1 : 0" over floats */
    case CALL_REDUCE_BY_KEY: return 10;  /* int32 add by int32 keys (CUB's ReduceByKey) */
    case CALL_RLE: return 10;            /* (its keys' runs; keys of --type: rle_keys) */
    default: return -1;
    }
}

/* The description and host reference a general-scan call times (case 0 for the others). */
static clscan_verify_gen_case call_case(int call)
{
    const int k = general_case(call);
    return call == CALL_MAT2_EXACT ? clscan_verify_gen_case_exact(k)
                                   : clscan_verify_gen_case_get(k < 0 ? 0 : k);
}

/* The type a row of a general-scan call is shown with: its case's (--type is ignored for
 * them; they run once), or -1 where the case's elements are a struct of its own (the row
 * then shows the first --type, as before). */
static int own_type(int call)
{
    const int k = general_case(call);
    if (k < 0 || call == CALL_RLE) return -1;
    const clscan_verify_gen_case g = call_case(call);
    return g.desc.type_name ? -1 : (int)g.desc.type;
}

typedef struct options {
    long platform, device; /* -1: default */
    int list;
    int types[MAX_ITEMS], ops[MAX_ITEMS], modes[MAX_ITEMS], algos[MAX_ITEMS], calls[MAX_ITEMS];
    size_t ntypes, nops, nmodes, nalgos, nsizes, ncalls, nchunks;
    size_t sizes[MAX_ITEMS], chunks[MAX_ITEMS]; /* chunks: host-stream's --chunk */
    unsigned repeats, warmup;
    const char *csv, *json;
    const char *predicate; /* NULL: the default for the row's type */
    double keep;           /* --keep-fraction */
    int first_call;        /* --first-call: 0 no, 1 calls, 2 warm */
    int batched;           /* batched wall times (default on; --no-batched) */
    unsigned rotations;    /* --rotations: the most inputs a row rotates over (default 64) */
} options;

typedef struct stats {
    double min, med, max; /* ns */
} stats;

typedef struct row {
    int call;               /* CALL_*; op and inclusive matter for CALL_SCAN only */
    const char *predicate;  /* select-if, partition: the predicate; else NULL */
    double keep;            /* select-flagged, unique: the share of elements asked kept */
    unsigned long long kept; /* compaction: the count the checked call wrote */
    size_t chunk, chunk_used; /* host-stream: asked for (0: the library's), and taken */
    stats h2d, d2h;           /* host-stream: the transfers of the same bytes, wall times */
    const char *host_memory;  /* host-stream: "pinned" or "pageable" */
    unsigned char bounds[16]; /* histogram: lower and upper, 8 bytes each, of type */
    clscan_type type;
    clscan_op op;
    int inclusive;
    clscan_algorithm algo;
    size_t n, k;
    unsigned long long fallbacks; /* single-pass fallback reductions, all timed calls */
    unsigned repeats, kernels; /* kernels: most events traced in one call */
    stats dev, wall, copy, copy_wall;
    size_t batch_k;            /* batched wall: calls per batch; 0 not measured */
    unsigned late_batches;     /* batches whose clFinish returned before their commands ran */
    stats batched, copy_batched; /* batched wall per call and per copy, over BATCHES */
    stats enqueued;            /* batched calls: host time of the enqueues alone, per call */
    stats first_enqueued;      /* ... of the first FIRST_CALLS calls of a batch, per call */
    int clock_ok;              /* device timestamps advance from command to command */
    const char *check;         /* PASS, FAIL, SKIP, ERROR or UNCHECKED */
    char note[512];
} row;

typedef struct bench {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl_ctx;
    cl_command_queue queue;  /* in order, profiling: the per-call timings */
    cl_command_queue plain;  /* in order, no profiling: the batched wall times */
    clscan_context *ctx;
    char platform_name[256], device_name[256], driver[128], version[128];
    cl_ulong global_mem, max_alloc;
    int fp64, unified; /* unified: device memory is host memory (a CPU device) */
    char *describe;
    cl_mem stats;      /* the single-pass scans' fallback counters */
} bench;

static void usage(FILE *f)
{
    fputs("usage: clscan-bench [options]\n"
          "Times libclscan's scans and compactions on one OpenCL device against a buffer copy\n"
          "of the same size, and checks every result on the host.\n"
          "  --platform N, --device N  the device (default: the first GPU, else the first\n"
          "                            device; --device alone: of the first platform with one)\n"
          "  --list                    list platforms and devices with their indices, then exit\n"
          "  --type LIST               int32,uint32,int64,uint64,float,double (default int32)\n"
          "  --call LIST               what to time: scan,select-if,select-flagged,partition,\n"
          "                            unique,sort-keys,sort-pairs (default scan); sort-pairs\n"
          "                            moves a uint32 value (the index) with each key;\n"
          "                            reduce (clscan_reduce with each --op); histogram\n"
          "                            (clscan_histogram_even, 256 bins, uint32 counts);\n"
          "                            reduce-by-key (int32 add by int32 keys in runs of 1\n"
          "                            to 24: unique keys, sums and count, as CUB's\n"
          "                            ReduceByKey; --type, --mode ignored);\n"
          "                            rle (clscan_run_length_encode of those keys, of\n"
          "                            --type: unique values, uint32 lengths, count; --mode\n"
          "                            ignored);\n"
          "                            compact (clscan_compact, the general compaction, of\n"
          "                            --type's OpenCL C type with --predicate, as select-if);\n"
          "                            general scans (clscan_scan, their own types: --type\n"
          "                            ignored, one row per --mode and size, showing the\n"
          "                            case's type, or the first --type for a struct):\n"
          "                            seg-add (int32 add, segmented by flags),\n"
          "                            seg-keys-min (int64 min by int32 keys),\n"
          "                            seg-keys-add (int32 add by int32 keys), custom-max\n"
          "                            (float, \"a > b ? a : b\"), mat2 (2x2 uint matrix\n"
          "                            product), mat2-exact (the same, declared exact:\n"
          "                            CLSCAN_COMBINE_EXACT), transform-count (int32 add of\n"
          "                            x > 0.5f);\n"
          "                            host-stream: clscan_scan_host (--type, --op, --mode)\n"
          "                            from pinned host memory to pinned host memory, timed\n"
          "                            by wall clock against the transfers of the same bytes\n"
          "  --chunk LIST              host-stream: elements per chunk (default 0: the\n"
          "                            library's choice)\n"
          "  --op LIST                 scans, reduce, host-stream: add,mul,min,max,and,or,xor\n"
          "                            (default add)\n"
          "  --mode LIST               scans, general scans, host-stream: exclusive,inclusive\n"
          "                            (default exclusive)\n"
          "  --predicate TEXT          select-if, partition: the predicate (default \"(x & 1) ==\n"
          "                            0\", keep even, on integer types; \"x > 0\" on float\n"
          "                            types: about half of the random inputs). Checked on the\n"
          "                            host for \"(x & 1) == 0\", \"(x & 1) != 0\", \"x > 0\",\n"
          "                            \"x < 0\", \"1\" and \"0\" (spaces ignored); any other is\n"
          "                            timed but UNCHECKED\n"
          "  --keep-fraction F         select-flagged: each flag is nonzero (1..255) with\n"
          "                            probability F; unique: each element after the first\n"
          "                            starts a new run (differs from the one before) with\n"
          "                            probability F, so runs average 1/F elements (default\n"
          "                            0.5: about half kept)\n"
          "  --algo LIST               device scans and compactions: multi-level,single-pass\n"
          "                            (default: the profile's choice)\n"
          "  --sizes LIST              element counts: 2^20, 1000000, 64K, ... (default\n"
          "                            2^16,2^20,2^24)\n"
          "  --repeats R               timed calls per row (default 50; fewer where their scan\n"
          "                            traffic would pass 32 GiB, never fewer than 3)\n"
          "  --warmup W                untimed calls first (default 5)\n"
          "  --no-batched              leave out the batched wall times (each row's K calls\n"
          "                            back to back, then one clFinish, 5 times, and as many\n"
          "                            buffer copies: K = 2 GiB / (2*n*size), in [3, 2000]);\n"
          "                            they are on by default, and lengthen slow rows most\n"
          "  --csv FILE, --json FILE   write every row, with min/median/max, to FILE\n"
          "  --first-call calls|warm   instead of the table: the wall time, in this process,\n"
          "                            of clscan_context_create, the first exclusive add scan\n"
          "                            and the first select-if (first --type and --sizes entry,\n"
          "                            default int32 and 2^20; --predicate), each with and\n"
          "                            without clFinish; warm: clscan_context_warm first. One\n"
          "                            \"first-call:\" line (tools/first-call.sh reads it)\n"
          "  --help                    this text\n"
          "CLSCAN_* environment variables tune the library; the tuning used is printed first.\n"
          "Inputs: scans get data that keeps each operator meaningful; compactions get\n"
          "integers of random bits and floats in [-1, 1), repeated in runs for unique.\n"
          "Exit status: 0 all rows passed, were skipped or unchecked; 1 a wrong result or an\n"
          "error; 2 a usage error.\n",
          f);
}

static int usage_error(const char *what, const char *opt, const char *val)
{
    fprintf(stderr, "clscan-bench: %s %s%s%s%s\n", what, opt, val ? ": '" : "", val ? val : "",
            val ? "'" : "");
    usage(stderr);
    return 2;
}

/* ------------------------------------------------------------- options ------ */

static const char *mode_name(int inclusive) { return inclusive ? "inclusive" : "exclusive"; }
static const char *type_name(int i) { return clscan_type_name((clscan_type)i); }
static const char *op_name(int i) { return clscan_op_name((clscan_op)i); }
/* The device-wide scans --algo names, in its list's order. */
static const clscan_algorithm algorithms[] = {CLSCAN_ALGORITHM_MULTI_LEVEL,
                                              CLSCAN_ALGORITHM_SINGLE_PASS};
enum { ALGORITHM_COUNT = sizeof algorithms / sizeof *algorithms };
static const char *algo_list_name(int i) { return clscan_ext_algorithm_name(algorithms[i]); }
static const char *call_name(int i)
{
    static const char *const names[CALL_COUNT] = {"scan",      "select-if", "select-flagged",
                                                  "partition", "unique",    "sort-keys",
                                                  "sort-pairs", "seg-add",  "seg-keys-min",
                                                  "seg-keys-add", "custom-max", "mat2", "mat2-exact",
                                                  "transform-count",
                                                  "reduce", "histogram", "reduce-by-key",
                                                  "rle", "compact", "host-stream"};
    return names[i];
}
static int takes_predicate(int call)
{
    return call == CALL_SELECT_IF || call == CALL_PARTITION || call == CALL_COMPACT;
}
static int takes_fraction(int call) { return call == CALL_SELECT_FLAGGED || call == CALL_UNIQUE; }
static int is_sort(int call) { return call == CALL_SORT_KEYS || call == CALL_SORT_PAIRS; }
static int is_compaction(int call)
{
    return call != CALL_SCAN && call != CALL_REDUCE && call != CALL_HISTOGRAM &&
           call != CALL_HOST_STREAM && !is_sort(call) && general_case(call) < 0;
}
/* Whether a call combines with --op: the scans, host-stream and reduce; and whether it
 * also takes --mode (all but reduce). */
static int takes_op(int call)
{
    return call == CALL_SCAN || call == CALL_HOST_STREAM || call == CALL_REDUCE;
}
static int takes_mode(int call) { return takes_op(call) && call != CALL_REDUCE; }
/* host-stream's chunks per (op, mode): the --chunk list, or the library's choice. */
static size_t stream_chunks(const options *o) { return o->nchunks ? o->nchunks : 1; }
/* Rows a call makes per type: scans one per (op, mode), reduce one per op, general scans
 * one per mode, host-stream one per (op, mode, chunk). */
static size_t rows_per_call(const options *o, int call)
{
    return call == CALL_SCAN          ? o->nops * o->nmodes
         : call == CALL_REDUCE        ? o->nops
         : call == CALL_HOST_STREAM   ? o->nops * o->nmodes * stream_chunks(o)
         : call == CALL_REDUCE_BY_KEY ? 1
         : call == CALL_RLE           ? 1
         : general_case(call) >= 0    ? o->nmodes
                                      : 1;
}

/* Rows a call makes for the t-th --type: rows_per_call's, but a general-scan call (its
 * own types, a struct's too) only for the first; rle, whose keys are of --type, for
 * each. */
static size_t rows_for_type(const options *o, int call, size_t t)
{
    return t > 0 && general_case(call) >= 0 && call != CALL_RLE ? 0 : rows_per_call(o, call);
}

/* Parses "2^K" or a number with an optional K, M or G suffix; 0 on success. */
static int parse_count(const char *s, unsigned long long *out)
{
    if (s[0] == '2' && s[1] == '^') {
        unsigned long long e;
        if (!clscan_ext_parse_size(s + 2, &e) || e > 62) return -1;
        *out = 1ull << e;
        return 0;
    }
    return clscan_ext_parse_size(s, out) ? 0 : -1;
}

/* Splits a comma-separated list into out[] (at most MAX_ITEMS): names are looked up
 * with name(0..count-1), or, with name == NULL, parsed as element counts >= count. */
static int parse_list(const char *s, const char *(*name)(int), int count, void *out,
                      size_t *n)
{
    *n = 0;
    for (;;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char item[64];
        if (len == 0 || len >= sizeof item || *n == MAX_ITEMS) return -1;
        memcpy(item, s, len);
        item[len] = '\0';
        if (name) {
            int i = 0;
            while (i < count && strcmp(item, name(i))) i++;
            if (i == count) return -1;
            ((int *)out)[(*n)++] = i;
        } else {
            unsigned long long v;
            if (parse_count(item, &v) || v < (unsigned)count || v > SIZE_MAX) return -1;
            ((size_t *)out)[(*n)++] = (size_t)v;
        }
        if (!end) return 0;
        s = end + 1;
    }
}

static int parse_args(options *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long num;
        int bad = 0;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--list")) {
            o->list = 1;
            continue;
        } else if (!strcmp(a, "--no-batched")) {
            o->batched = 0;
            continue;
        }
        static const char *const valued[] = {"--platform", "--device", "--type", "--op",
                                             "--mode", "--algo", "--sizes", "--repeats",
                                             "--warmup", "--call", "--predicate",
                                             "--keep-fraction", "--csv", "--json",
                                             "--first-call", "--chunk", "--rotations"};
        size_t known = 0;
        while (known < sizeof valued / sizeof *valued && strcmp(a, valued[known])) known++;
        if (known == sizeof valued / sizeof *valued) return usage_error("unknown option", a, NULL);
        if (!v) return usage_error("no value for", a, NULL);
        i++;
        if (!strcmp(a, "--type"))
            bad = parse_list(v, type_name, CLSCAN_TYPE_COUNT, o->types, &o->ntypes);
        else if (!strcmp(a, "--op"))
            bad = parse_list(v, op_name, CLSCAN_OP_COUNT, o->ops, &o->nops);
        else if (!strcmp(a, "--mode")) bad = parse_list(v, mode_name, 2, o->modes, &o->nmodes);
        else if (!strcmp(a, "--algo")) {
            bad = parse_list(v, algo_list_name, ALGORITHM_COUNT, o->algos, &o->nalgos);
            for (size_t k = 0; !bad && k < o->nalgos; k++) o->algos[k] = algorithms[o->algos[k]];
        }
        else if (!strcmp(a, "--sizes")) bad = parse_list(v, NULL, 1, o->sizes, &o->nsizes);
        else if (!strcmp(a, "--chunk")) bad = parse_list(v, NULL, 0, o->chunks, &o->nchunks);
        else if (!strcmp(a, "--call"))
            bad = parse_list(v, call_name, CALL_COUNT, o->calls, &o->ncalls);
        else if (!strcmp(a, "--predicate")) bad = !*(o->predicate = v);
        else if (!strcmp(a, "--keep-fraction")) {
            char *end;
            o->keep = strtod(v, &end);
            bad = end == v || *end || !(o->keep >= 0 && o->keep <= 1);
        } else if (!strcmp(a, "--first-call")) {
            o->first_call = !strcmp(v, "calls") ? 1 : !strcmp(v, "warm") ? 2 : 0;
            bad = !o->first_call;
        } else if (!strcmp(a, "--csv")) o->csv = v;
        else if (!strcmp(a, "--json")) o->json = v;
        else {
            bad = !clscan_ext_parse_size(v, &num) || num > 1000000;
            if (!bad && !strcmp(a, "--platform")) o->platform = (long)num;
            else if (!bad && !strcmp(a, "--device")) o->device = (long)num;
            else if (!bad && !strcmp(a, "--repeats")) bad = (o->repeats = (unsigned)num) == 0;
            else if (!bad && !strcmp(a, "--rotations"))
                bad = (o->rotations = (unsigned)num) == 0 || num > MAX_ROTATE;
            else if (!bad) o->warmup = (unsigned)num;
        }
        if (bad) return usage_error("bad value for", a, v);
    }
    return 0;
}

/* ------------------------------------------------------------- devices ------ */

static void info_string(int is_device, void *obj, cl_uint param, char *buf, size_t size)
{
    cl_int err = is_device ? clGetDeviceInfo((cl_device_id)obj, param, size, buf, NULL)
                           : clGetPlatformInfo((cl_platform_id)obj, param, size, buf, NULL);
    if (err != CL_SUCCESS) snprintf(buf, size, "(%s)", clscan_status_string(err));
    buf[size - 1] = '\0';
}

/* Lists the devices (list != 0), or finds the one asked for: platform p (-1: any) and
 * device d (-1: the first GPU, else the first device). Returns 0 when b->device is set. */
static int find_device(bench *b, long p, long d, int list)
{
    cl_platform_id plats[32];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(32, plats, &np);
    if (err != CL_SUCCESS || np == 0) {
        fprintf(stderr, "clscan-bench: no OpenCL platform (%s)\n", clscan_status_string(err));
        return -1;
    }
    np = np > 32 ? 32 : np;
    cl_platform_id fallback_p = NULL;
    cl_device_id fallback_d = NULL;
    for (cl_uint i = 0; i < np; i++) {
        if (p >= 0 && (cl_uint)p != i) continue;
        cl_device_id devs[64];
        cl_uint nd = 0;
        char name[256];
        err = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 64, devs, &nd);
        if (err != CL_SUCCESS) nd = 0;
        nd = nd > 64 ? 64 : nd;
        if (list) {
            info_string(0, plats[i], CL_PLATFORM_NAME, name, sizeof name);
            printf("platform %u: %s%s%s\n", i, name, err ? " - " : "",
                   err ? clscan_status_string(err) : "");
        }
        for (cl_uint j = 0; j < nd; j++) {
            cl_device_type type = 0;
            if (clGetDeviceInfo(devs[j], CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS)
                type = 0;
            if (list) {
                char ver[128];
                info_string(1, devs[j], CL_DEVICE_NAME, name, sizeof name);
                info_string(1, devs[j], CL_DEVICE_VERSION, ver, sizeof ver);
                printf("  device %u: %s [%s] %s\n", j, name,
                       type & CL_DEVICE_TYPE_GPU   ? "GPU"
                       : type & CL_DEVICE_TYPE_CPU ? "CPU"
                                                   : "other",
                       ver);
                continue;
            }
            int pick = d >= 0 ? (cl_uint)d == j : (type & CL_DEVICE_TYPE_GPU) != 0;
            if (pick) {
                b->platform = plats[i];
                b->device = devs[j];
                return 0;
            }
            if (!fallback_d && d < 0) {
                fallback_p = plats[i];
                fallback_d = devs[j];
            }
        }
    }
    if (list) return 0;
    if (!fallback_d) {
        fprintf(stderr, "clscan-bench: no device %ld on platform %ld (see --list)\n", d, p);
        return -1;
    }
    b->platform = fallback_p;
    b->device = fallback_d;
    return 0;
}

/* Creates the OpenCL context, a profiling queue and the clscan context. */
static int open_bench(bench *b)
{
    cl_int err;
    cl_ulong fp = 0;
    info_string(0, b->platform, CL_PLATFORM_NAME, b->platform_name, sizeof b->platform_name);
    info_string(1, b->device, CL_DEVICE_NAME, b->device_name, sizeof b->device_name);
    info_string(1, b->device, CL_DRIVER_VERSION, b->driver, sizeof b->driver);
    info_string(1, b->device, CL_DEVICE_VERSION, b->version, sizeof b->version);
    if ((err = clGetDeviceInfo(b->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof b->global_mem,
                               &b->global_mem, NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(b->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof b->max_alloc,
                               &b->max_alloc, NULL)) != CL_SUCCESS) {
        fprintf(stderr, "clscan-bench: clGetDeviceInfo: %s\n", clscan_status_string(err));
        return -1;
    }
    cl_bool unified = CL_FALSE;
    cl_device_type type = 0;
    err = clGetDeviceInfo(b->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    if (err != CL_SUCCESS) unified = CL_FALSE;
    err = clGetDeviceInfo(b->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    b->unified = unified || (err == CL_SUCCESS && (type & CL_DEVICE_TYPE_CPU));
    /* Old devices without fp64 may refuse the query; the library then says UNSUPPORTED. */
    b->fp64 = clGetDeviceInfo(b->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) !=
                  CL_SUCCESS || fp != 0;
    b->cl_ctx = clCreateContext(NULL, 1, &b->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clscan-bench: clCreateContext: %s\n", clscan_status_string(err));
        return -1;
    }
    b->queue = clCreateCommandQueue(b->cl_ctx, b->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err == CL_SUCCESS) b->plain = clCreateCommandQueue(b->cl_ctx, b->device, 0, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clscan-bench: clCreateCommandQueue: %s\n", clscan_status_string(err));
        return -1;
    }
    clscan_status s = clscan_context_create(b->cl_ctx, b->device, &b->ctx);
    if (s != CLSCAN_SUCCESS) {
        fprintf(stderr, "clscan-bench: clscan_context_create: %s: %s\n",
                clscan_status_string(s), clscan_context_last_error(NULL));
        return -1;
    }
    b->stats = clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE, 16, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clscan-bench: clCreateBuffer: %s\n", clscan_status_string(err));
        return -1;
    }
    char tiny[1];
    size_t len = clscan_context_describe(b->ctx, tiny, sizeof tiny);
    if (!(b->describe = malloc(len + 1))) return -1;
    clscan_context_describe(b->ctx, b->describe, len + 1);
    return 0;
}

static void close_bench(bench *b)
{
    clscan_context_release(b->ctx);
    if (b->stats) clReleaseMemObject(b->stats);
    if (b->queue) clReleaseCommandQueue(b->queue);
    if (b->plain) clReleaseCommandQueue(b->plain);
    if (b->cl_ctx) clReleaseContext(b->cl_ctx);
    free(b->describe);
}

/* ------------------------------------------------------ inputs, checking ---- */

static int is_float(clscan_type t) { return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE; }

/* Random inputs that keep each scan meaningful: integers get full-range bits, odd
 * numbers for MUL (an even factor would zero the product after ~64 elements), and for
 * AND/OR all ones/zero with a random bit flipped about 3*bits times over the array;
 * floats get [0, 1) for ADD (positive: the relative check below stays meaningful),
 * 1 +- 2^-10 for MUL (products neither overflow nor vanish), [-1, 1) for MIN/MAX. */
static void fill_input(void *h, size_t n, clscan_type t, clscan_op op, uint64_t seed)
{
    unsigned bits = 8 * (unsigned)clscan_type_size(t);
    uint64_t flip = n / (3 * bits) + 1; /* AND/OR: one flip per `flip` elements */
    clscan_verify_rng rng = {seed};
    for (size_t i = 0; i < n; i++) {
        uint64_t r = clscan_verify_rng_next(&rng);
        double u = (double)(r >> 11) * 0x1p-53;
        if (is_float(t)) {
            clscan_verify_store_float(h, i, t, op == CLSCAN_OP_ADD   ? u
                                               : op == CLSCAN_OP_MUL ? 1 + (u - 0.5) * 0x1p-9
                                                                     : 2 * u - 1);
        } else if (op == CLSCAN_OP_AND || op == CLSCAN_OP_OR) {
            uint64_t bit = r % flip == 0 ? 1ull << (r >> 58) % bits : 0;
            clscan_verify_store_bits(h, i, t, op == CLSCAN_OP_AND ? ~bit : bit);
        } else {
            clscan_verify_store_bits(h, i, t, op == CLSCAN_OP_MUL ? r | 1 : r);
        }
    }
}

/* Compares got[0..n) with a serial host scan of in[0..n) (reduce: got[0] with its
 * inclusive scan's last element, the identity for n == 0). Integers and float MIN/MAX
 * must match exactly. Float ADD and MUL are compared with a long double reference of k
 * terms (k = i + 1 inclusive, i exclusive), relatively, with D = 2*ceil(log2(n+1)) + 64
 * (a tree's two sweeps with room to spare) and eps the type's epsilon:
 *   ADD within (D + 8*sqrt(k)) * eps: the inputs are positive, so the relative error of
 *     any evaluation order is at most its depth * eps; 8*sqrt(k) allows for carries
 *     chained serially through many tiles, whose roundings add up like a random walk;
 *   MUL within (D + k) * eps: k roundings bound any evaluation order of a product (the
 *     same bound as clscan-selftest's), so this catches garbage, not drift, at large k.
 * Returns 1 if all match (for float ADD/MUL msg then says how close the worst element
 * came to its tolerance); else 0 and msg names the first bad element. */
static int check_scan(const void *in, const void *got, size_t n, clscan_type t, clscan_op op,
                      int inclusive, int reduce, char *msg, size_t size)
{
    if (reduce && n == 0) { /* the identity */
        if (!is_float(t)) {
            const uint64_t want = clscan_verify_int_identity(t, op);
            if (clscan_verify_load_bits(got, 0, t) == want) return 1;
            snprintf(msg, size, "n 0: the result is not the identity");
            return 0;
        }
        const long double want = op == CLSCAN_OP_ADD ? 0 : op == CLSCAN_OP_MUL ? 1
                               : op == CLSCAN_OP_MIN ? INFINITY : -INFINITY;
        if (clscan_verify_load_float(got, 0, t) == want) return 1;
        snprintf(msg, size, "n 0: the result is not the identity");
        return 0;
    }
    if (!is_float(t)) {
        uint64_t acc = clscan_verify_int_identity(t, op);
        for (size_t i = 0; i < n; i++) {
            uint64_t x = clscan_verify_load_bits(in, i, t);
            uint64_t next = clscan_verify_int_combine(acc, x, t, op);
            if (reduce && i + 1 < n) { /* only the total is compared, at got[0] */
                acc = next;
                continue;
            }
            uint64_t want = inclusive ? next : acc;
            uint64_t g = clscan_verify_load_bits(got, reduce ? 0 : i, t);
            if (g != want) {
                uint64_t mask = clscan_type_size(t) == 4 ? 0xffffffffu : ~0ull;
                snprintf(msg, size, "index %zu: got 0x%llx, expected 0x%llx", i,
                         (unsigned long long)(g & mask), (unsigned long long)(want & mask));
                return 0;
            }
            acc = next;
        }
        return 1;
    }
    long double eps = t == CLSCAN_FLOAT ? FLT_EPSILON : DBL_EPSILON, depth = 64;
    long double worst = 0, worst_rel = 0; /* of |error| / tolerance, |error| / |want| */
    for (size_t m = n + 1; m > 1; m = (m + 1) / 2) depth += 2;
    long double acc = op == CLSCAN_OP_ADD ? 0 : op == CLSCAN_OP_MUL ? 1
                    : op == CLSCAN_OP_MIN ? INFINITY : -INFINITY;
    size_t worst_rel_i = 0;
    for (size_t i = 0; i < n; i++) {
        long double x = clscan_verify_load_float(in, i, t), next;
        long double k = (long double)i + (inclusive ? 1 : 0);
        next = op == CLSCAN_OP_ADD ? acc + x : op == CLSCAN_OP_MUL ? acc * x
             : op == CLSCAN_OP_MIN ? fminl(acc, x) : fmaxl(acc, x);
        if (reduce && i + 1 < n) {
            acc = next;
            continue;
        }
        long double want = inclusive ? next : acc, tol = 0;
        long double g = clscan_verify_load_float(got, reduce ? 0 : i, t);
        if (op == CLSCAN_OP_ADD)
            tol = (depth + 8 * sqrtl(k)) * eps * fabsl(want);
        else if (op == CLSCAN_OP_MUL)
            tol = (depth + k) * eps * fabsl(want);
        else
            want = t == CLSCAN_FLOAT ? (float)want : (double)want; /* exact */
        if (tol == 0 ? g != want : !(fabsl(g - want) <= tol)) { /* NaN fails */
            snprintf(msg, size, "index %zu: got %.17Lg, expected %.17Lg (tolerance %.3Lg)", i,
                     g, want, tol);
            return 0;
        }
        if (tol > 0) {
            worst = fmaxl(worst, fabsl(g - want) / tol);
            if (fabsl(g - want) / fabsl(want) > worst_rel) {
                worst_rel = fabsl(g - want) / fabsl(want);
                worst_rel_i = i;
            }
        }
        acc = next;
    }
    if (op == CLSCAN_OP_ADD || op == CLSCAN_OP_MUL)
        snprintf(msg, size, "largest relative error %.2Le (index %zu); no error above "
                 "%.2Lg%% of its tolerance", worst_rel, worst_rel_i, 100 * worst);
    return 1;
}

/* Compaction inputs: fill_input's MIN data (integers of random bits, so "(x & 1) == 0"
 * keeps about half; floats in [-1, 1), so "x > 0" does). Unique: element i > 0 repeats
 * element i - 1, or with probability `keep` starts a new run with a value that differs
 * from it. Select-flagged: flags[i] is 1..255 with probability `keep`, else 0. */
static void fill_compaction(const row *r, void *h, cl_uchar *flags, uint64_t seed)
{
    const size_t e = clscan_type_size(r->type);
    fill_input(h, r->n, r->type, CLSCAN_OP_MIN, seed);
    clscan_verify_rng rng = {~seed};
    for (size_t i = 0; i < r->n && takes_fraction(r->call); i++) {
        uint64_t x = clscan_verify_rng_next(&rng);
        int hit = (double)(x >> 11) * 0x1p-53 < r->keep;
        if (r->call == CALL_SELECT_FLAGGED) {
            flags[i] = hit ? (cl_uchar)(1 + x % 255) : 0;
        } else if (i > 0 && !hit) {
            memcpy((char *)h + i * e, (char *)h + (i - 1) * e, e);
        } else if (i > 0 && !clscan_verify_differs(h, i, i - 1, r->type)) {
            /* a new run, by chance equal */
            if (is_float(r->type)) {
                long double f = clscan_verify_load_float(h, i, r->type);
                clscan_verify_store_float(h, i, r->type, f < 0 ? f + 0.5 : f - 0.5);
            } else {
                const uint64_t v = clscan_verify_load_bits(h, i, r->type);
                clscan_verify_store_bits(h, i, r->type, v ^ 1);
            }
        }
    }
}

/* The predicates the bench evaluates on the host, as written with no spaces. */
static const char *const known_predicates[] = {"(x&1)==0", "(x&1)!=0", "x>0", "x<0", "1", "0"};

/* The index of text in known_predicates, spaces ignored, or -1 (also for the bitwise
 * ones on float types, which do not compile). */
static int predicate_index(const char *text, clscan_type t)
{
    char packed[16];
    size_t len = 0;
    for (; *text && len < sizeof packed - 1; text++)
        if (*text != ' ' && *text != '\t') packed[len++] = *text;
    if (*text) return -1;
    packed[len] = '\0';
    const int count = (int)(sizeof known_predicates / sizeof *known_predicates);
    for (int i = is_float(t) ? 2 : 0; i < count; i++)
        if (!strcmp(packed, known_predicates[i])) return i;
    return -1;
}

/* Whether the compaction of r keeps element i of in (pred: predicate_index's). */
static int host_keeps(const row *r, int pred, const void *in, const cl_uchar *flags, size_t i)
{
    int sgn = r->type == CLSCAN_INT32 || r->type == CLSCAN_INT64;
    if (r->call == CALL_SELECT_FLAGGED) return flags[i] != 0;
    if (r->call == CALL_UNIQUE) return i == 0 || clscan_verify_differs(in, i, i - 1, r->type);
    if (pred == 4 || pred == 5) return pred == 4;
    if (is_float(r->type)) {
        long double x = clscan_verify_load_float(in, i, r->type);
        return pred == 2 ? x > 0 : x < 0;
    }
    uint64_t x = clscan_verify_load_bits(in, i, r->type);
    switch (pred) {
    case 0: return (x & 1) == 0;
    case 1: return (x & 1) != 0;
    case 2: return sgn ? (int64_t)x > 0 : x > 0;
    default: return sgn && (int64_t)x < 0;
    }
}

static unsigned long long raw_bits(const void *p, size_t i, size_t e)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)p + i * e, e); /* little-endian hosts: the element's value */
    return (unsigned long long)v;
}

/* Checks a compaction's count and output got[0..n) (poisoned before the call) against
 * a host reference: the kept elements in order at got[0, kept); for partition the others
 * in reverse order at got[kept, n), else got[kept, n) still poison. Returns "PASS",
 * "FAIL" (msg names the first difference) or, for a predicate the bench cannot evaluate,
 * "UNCHECKED" (only count <= n is checked). */
static const char *check_compaction(const row *r, const void *in, const cl_uchar *flags,
                                    const void *got, cl_ulong count, char *msg, size_t size)
{
    const size_t n = r->n, e = clscan_type_size(r->type);
    int pred = takes_predicate(r->call) ? predicate_index(r->predicate, r->type) : 0;
    size_t kept = 0, rejected = 0;
    if (count > n) {
        snprintf(msg, size, "count %llu: more than n", (unsigned long long)count);
        return "FAIL";
    }
    if (pred < 0) {
        snprintf(msg, size, "the bench cannot evaluate this predicate: output unchecked");
        return "UNCHECKED";
    }
    for (size_t i = 0; i < n; i++) kept += host_keeps(r, pred, in, flags, i);
    if (count != kept) {
        snprintf(msg, size, "count %llu where %zu was expected", (unsigned long long)count, kept);
        return "FAIL";
    }
    kept = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = host_keeps(r, pred, in, flags, i) ? kept++
                  : r->call == CALL_PARTITION ? n - 1 - rejected++ : n;
        if (at < n && memcmp((const char *)got + at * e, (const char *)in + i * e, e)) {
            snprintf(msg, size, "dst[%zu]: got 0x%llx where 0x%llx (src[%zu]) was expected", at,
                     raw_bits(got, at, e), raw_bits(in, i, e), i);
            return "FAIL";
        }
    }
    for (size_t b = kept * e; r->call != CALL_PARTITION && b < n * e; b++)
        if (((const unsigned char *)got)[b] != 0xa5) {
            snprintf(msg, size, "dst[%zu] (past the kept elements) was written", b / e);
            return "FAIL";
        }
    return "PASS";
}

/* Sort inputs: keys of random bits (floats included: every bit pattern, NaNs among
 * them, sorts by its bits), and for pairs the index of each key as its uint32 value. */
static void fill_sort(const row *r, void *h, cl_uchar *values, uint64_t seed)
{
    const size_t e = clscan_type_size(r->type);
    clscan_verify_rng rng = {seed};
    for (size_t i = 0; i < r->n; i++) {
        const uint64_t x = clscan_verify_rng_next(&rng);
        memcpy((char *)h + i * e, &x, e); /* little-endian hosts: the low bytes */
    }
    for (size_t i = 0; values && i < r->n; i++) {
        const cl_uint v = (cl_uint)i;
        memcpy(values + i * sizeof v, &v, sizeof v);
    }
}

/* Checks a sort's keys (and, for pairs, values: the input indices) against a stable
 * host sort of the input (clscan_verify_sort_reference). Returns "PASS" or "FAIL" (msg
 * names the first difference). */
static const char *check_sort(const row *r, const void *in, const void *got,
                              const cl_uint *got_values, char *msg, size_t size)
{
    const size_t n = r->n, e = clscan_type_size(r->type);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    if (!perm || clscan_verify_sort_reference(r->type, in, n, perm)) {
        free(perm);
        snprintf(msg, size, "out of host memory for the reference");
        return "FAIL";
    }
    for (size_t i = 0; i < n; i++) {
        if (raw_bits(got, i, e) != raw_bits(in, perm[i], e) ||
            (got_values && got_values[i] != (cl_uint)perm[i])) {
            snprintf(msg, size, "keys_out[%zu] = 0x%llx%s%u, expected 0x%llx (input %zu)", i,
                     raw_bits(got, i, e), got_values ? ", value " : "",
                     got_values ? got_values[i] : 0, raw_bits(in, perm[i], e), perm[i]);
            free(perm);
            return "FAIL";
        }
    }
    free(perm);
    return "PASS";
}

/* ------------------------------------------------------------- timing ------- */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stats summarise(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    stats s = {v[0], n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[n - 1]};
    return s;
}

/* First start to last end over events[0..count) into *ns, the first start into *first;
 * then releases the events. */
static cl_int span_and_release(cl_event *events, size_t count, double *ns, cl_ulong *first_start)
{
    cl_ulong first = UINT64_MAX, last = 0;
    cl_int err = CL_SUCCESS;
    for (size_t i = 0; i < count; i++) {
        cl_ulong start = 0, end = 0;
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_START, sizeof start,
                                          &start, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_END, sizeof end, &end,
                                          NULL);
        first = start < first ? start : first;
        last = end > last ? end : last;
        clReleaseEvent(events[i]);
    }
    *ns = count && last > first ? (double)(last - first) : 0;
    *first_start = first;
    return err;
}

/* ------------------------------------------------------------- one row ------ */

static int alloc_error(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
           err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE;
}

/* Fills buf with 0xa5 bytes (no valid scan output everywhere) and waits. The pattern is
 * 4 bytes wide (every element size is a multiple): NVIDIA's driver 580 never finishes a
 * 1-byte-pattern fill of 2 GiB or more (docs/DEVICES.md). */
static cl_int poison(cl_command_queue queue, cl_mem buf, size_t bytes)
{
    const cl_uint pattern = 0xa5a5a5a5u;
    cl_int err = clEnqueueFillBuffer(queue, buf, &pattern, sizeof pattern, 0, bytes, 0, NULL,
                                     NULL);
    return err == CL_SUCCESS ? clFinish(queue) : err;
}

/* Creates a buffer of `bytes` holding host[0, bytes); NULL (and *err) on failure. */
static cl_mem upload(bench *b, const void *host, size_t bytes, cl_int *err)
{
    cl_mem m = clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, err);
    if (*err == CL_SUCCESS)
        *err = clEnqueueWriteBuffer(b->queue, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    return m;
}

/* Enqueues r's call on queue q: src (and flags) to out, the count (compactions) to count;
 * a sort of pairs takes its values from flags and writes them to count. done may be NULL
 * (no event asked for). */
static clscan_status enqueue_call(bench *b, cl_command_queue q, const row *r, cl_mem src,
                                  cl_mem flags, cl_mem out, cl_mem count, cl_mem aux,
                                  cl_event *done)
{
    switch (r->call) {
    case CALL_SORT_KEYS:
        return clscan_sort_keys(b->ctx, q, src, 0, out, 0, r->n, r->type, 0, NULL, done);
    case CALL_SORT_PAIRS:
        return clscan_sort_pairs(b->ctx, q, src, 0, flags, 0, out, 0, count, 0, r->n,
                                 r->type, CLSCAN_UINT32, 0, NULL, done);
    case CALL_SEG_ADD:
    case CALL_SEG_KEYS_MIN:
    case CALL_SEG_KEYS_ADD:
    case CALL_CUSTOM_MAX:
    case CALL_MAT2:
    case CALL_MAT2_EXACT:
    case CALL_TRANSFORM_COUNT: {
        const clscan_verify_gen_case g = call_case(r->call);
        return clscan_scan(b->ctx, q, &g.desc, r->inclusive, src, 0,
                           g.desc.segments ? flags : NULL, 0, out, 0, r->n, 0, NULL, done);
    }
    case CALL_SCAN:
        return (r->inclusive ? clscan_inclusive_scan : clscan_exclusive_scan)(
            b->ctx, q, src, 0, out, 0, r->n, r->type, r->op, 0, NULL, done);
    case CALL_REDUCE:
        return clscan_reduce(b->ctx, q, src, 0, r->n, r->type, r->op, out, 0, 0, NULL, done);
    case CALL_REDUCE_BY_KEY: { /* (the keys in flags' place; unique keys into aux, sums
                                  * into out, count) */
        const clscan_verify_gen_case g = call_case(r->call);
        return clscan_reduce_by_key(b->ctx, q, &g.desc, flags, 0, src, 0, r->n, aux, 0, out, 0,
                                    count, 0, NULL, done);
    }
    case CALL_RLE: /* (the keys in flags' place; unique values into out, lengths into aux) */
        return clscan_run_length_encode(b->ctx, q, flags, 0, r->n, r->type, out, 0, aux, 0,
                                        CLSCAN_UINT32, count, 0, NULL, done);
    case CALL_HISTOGRAM:
        return clscan_histogram_even(b->ctx, q, src, 0, r->n, r->type, HIST_BINS, r->bounds,
                                     r->bounds + 8, count, 0, CLSCAN_UINT32, 0, NULL, done);
    case CALL_SELECT_IF:
        return clscan_select_if(b->ctx, q, src, 0, out, 0, count, r->n, r->type,
                                r->predicate, 0, NULL, done);
    case CALL_SELECT_FLAGGED:
        return clscan_select_flagged(b->ctx, q, src, 0, flags, 0, out, 0, count, r->n,
                                     r->type, 0, NULL, done);
    case CALL_COMPACT: { /* (the general compaction: any OpenCL C type, here a library one) */
        static const char *const cl_names[] = {"int", "uint", "long", "ulong", "float", "double"};
        const clscan_compact_desc d = {cl_names[r->type], clscan_type_size(r->type), NULL,
                                       r->predicate, 0, 0};
        return clscan_compact(b->ctx, q, &d, src, 0, out, 0, count, r->n, 0, NULL, done);
    }
    case CALL_PARTITION:
        return clscan_partition_if(b->ctx, q, src, 0, out, 0, count, r->n, r->type,
                                   r->predicate, 0, NULL, done);
    default:
        return clscan_unique(b->ctx, q, src, 0, out, 0, count, r->n, r->type, 0, NULL,
                             done);
    }
}

/* "add exclusive" and the like for a scan, else the call's name; in buf. */
static const char *row_label(const row *r, char *buf, size_t size)
{
    if (general_case(r->call) >= 0)
        snprintf(buf, size, "%s %s", call_name(r->call), mode_name(r->inclusive));
    else if (r->call == CALL_HOST_STREAM)
        snprintf(buf, size, "stream %s %s", clscan_op_name(r->op), mode_name(r->inclusive));
    else if (r->call == CALL_REDUCE)
        snprintf(buf, size, "reduce %s", clscan_op_name(r->op));
    else if (r->call != CALL_SCAN) snprintf(buf, size, "%s", call_name(r->call));
    else snprintf(buf, size, "%s %s", clscan_op_name(r->op), mode_name(r->inclusive));
    return buf;
}

/* What one row (not host-stream) holds while it runs: the general case it times (gcase
 * < 0: none), sizes, the k rotating inputs (with their flags, segments or sort values),
 * the output and count buffers, the host copies and the timings. */
typedef struct row_run {
    int gcase;
    clscan_verify_gen_case gc;
    size_t elem, bytes, fbytes, count_bytes, k;
    cl_mem out, count, in[MAX_ROTATE], flags[MAX_ROTATE];
    cl_mem aux; /* rle: the lengths; reduce-by-key: the unique keys */
    void *host, *got;
    cl_uchar *hflags;
    double *dev, *wall, *copy, *copy_wall;
    cl_ulong prev_start; /* the last command's start: timestamps must advance */
} row_run;

/* Sets r->check to status and r->note to the message; returns -1. */
static int row_fail(row *r, const char *status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int row_fail(row *r, const char *status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->check = status;
    vsnprintf(r->note, sizeof r->note, fmt, ap);
    va_end(ap);
    return -1;
}

#define ROW_FAIL(status, ...)                   \
    do {                                        \
        row_fail(r, (status), __VA_ARGS__);     \
        goto done;                              \
    } while (0)

/* Bytes per element of r's output, which the copy moves: a general scan's own (its case's,
 * whatever --type said), rle's the larger of its keys' and its uint32 lengths' (both go to
 * buffers of that many bytes an element), else the row's type's. */
static size_t elem_bytes(const row *r)
{
    const size_t ks = clscan_type_size(r->type);
    if (r->call == CALL_RLE) return ks > 4 ? ks : 4;
    const int g = general_case(r->call);
    return g >= 0 ? call_case(r->call).out_size : ks;
}

/* Sizes row r: SKIP where the device cannot run it or it does not fit; the rotation k
 * and the repeats; the host buffers. 0, or -1 with r->check and r->note set. */
static int row_plan(bench *b, const options *o, row *r, row_run *d)
{
    d->gcase = general_case(r->call);
    d->gc = call_case(r->call);
    const size_t gseg = d->gc.desc.segments == CLSCAN_SEGMENTS_FLAGS  ? 1
                        : d->gc.desc.segments == CLSCAN_SEGMENTS_KEYS ? 4
                                                                      : 0;
    const size_t n = r->n, ks = clscan_type_size(r->type);
    const size_t elem = elem_bytes(r);
    const int pairs = r->call == CALL_SORT_PAIRS;
    const size_t bytes = n * elem;
    /* (fbytes: select-flagged's flags, or the values of sort-pairs, each input's own, or
     * a general scan's segments.) */
    d->elem = elem;
    d->bytes = bytes;
    d->fbytes = r->call == CALL_SELECT_FLAGGED ? n : pairs ? n * sizeof(cl_uint) : 0;
    if (d->gcase >= 0) d->fbytes = n * (r->call == CALL_RLE ? ks : gseg);
    d->count_bytes = pairs                        ? d->fbytes
                     : r->call == CALL_HISTOGRAM ? HIST_BINS * sizeof(cl_uint)
                                                 : sizeof(cl_ulong);
    const size_t fbytes = d->fbytes;

    clscan_status set = clscan_ext_context_set_algorithm(b->ctx, r->algo); /* (this thread
                                                                  alone uses the context) */
    if (set != CLSCAN_SUCCESS)
        return row_fail(r, set == CLSCAN_ERROR_UNSUPPORTED ? "SKIP" : "ERROR", "%s: %s",
                        clscan_status_string(set), clscan_context_last_error(b->ctx));
    if (is_float(r->type) && takes_op(r->call) && r->op >= CLSCAN_OP_AND)
        return row_fail(r, "SKIP", "unsupported: no bitwise operators on floating-point types");
    if (r->type == CLSCAN_DOUBLE && !b->fp64)
        return row_fail(r, "SKIP", "unsupported: device has no fp64");
    if (n > SIZE_MAX / elem || bytes > b->max_alloc)
        return row_fail(r, "SKIP", "%zu elements of %zu bytes exceed "
                        "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu)", n, elem,
                        (unsigned long long)b->max_alloc);
    /* k inputs (with their flags) + 1 output in 7/8 of the device memory (the rest:
     * scratch, the runtime); where that is host memory, it also holds the host copies
     * (input, flags, result). */
    cl_ulong avail = b->global_mem - b->global_mem / 8;
    cl_ulong fixed = bytes + (b->unified ? 2 * (cl_ulong)bytes + fbytes : 0);
    cl_ulong fit = avail > fixed ? (avail - fixed) / (bytes + fbytes) : 0;
    size_t k = (size_t)((ROTATE_BYTES + bytes - 1) / bytes);
    k = k > o->rotations ? o->rotations : k;
    if (fit < 1)
        return row_fail(r, "SKIP", "input + output (%zu bytes each)%s do not fit in 7/8 of "
                        "CL_DEVICE_GLOBAL_MEM_SIZE (%llu)", bytes,
                        b->unified ? " + host copies" : "", (unsigned long long)b->global_mem);
    d->k = r->k = k > fit ? (size_t)fit : k;
    r->repeats = o->repeats;
    if ((unsigned long long)r->repeats * 2 * bytes > TIMED_BYTES_CAP) {
        unsigned long long cap = TIMED_BYTES_CAP / (2 * bytes);
        r->repeats = cap < MIN_REPEATS ? MIN_REPEATS : (unsigned)cap;
    }
    d->host = malloc(bytes);
    d->got = malloc(bytes);
    d->hflags = fbytes ? malloc(fbytes) : NULL;
    d->dev = malloc(4 * sizeof *d->dev * r->repeats);
    if (!d->host || !d->got || (fbytes && !d->hflags) || !d->dev)
        return row_fail(r, "SKIP", "out of host memory for %zu-byte buffers", bytes);
    d->wall = d->dev + r->repeats;
    d->copy = d->wall + r->repeats;
    d->copy_wall = d->copy + r->repeats;
    return 0;
}

/* Run-length encoding's keys of `type`: the int32 keys at keys[0, n) (runs of 1 to 24,
 * as reduce by key's) widened in place to that type, from the last (a key of 4 or 8
 * bytes overwrites only int32 keys already read). */
static void rle_keys(clscan_type type, void *keys, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        const int32_t k = ((const int32_t *)keys)[i];
        if (is_float(type)) clscan_verify_store_float(keys, i, type, (long double)k);
        else clscan_verify_store_bits(keys, i, type, (uint64_t)(int64_t)k);
    }
}

/* Fills the host input (and flags, segments or sort values) of row r, as its call needs. */
static void row_fill(row *r, row_run *d)
{
    uint64_t seed = 0x5eed0000ull + r->n * 64 + (uint64_t)r->type * 8 + r->op;
    if (r->call == CALL_HISTOGRAM) {
        /* As tools/cub_more.cu's: integers in [-128, 384) (unsigned: [0, 512)) into bins
         * over [0, 256); floats in [-0.5, 1.5) over [0, 1): half the samples counted. */
        clscan_verify_rng rng = {seed};
        const int fl = is_float(r->type), sg = r->type == CLSCAN_INT32 || r->type == CLSCAN_INT64;
        for (size_t i = 0; i < r->n; i++) {
            const uint64_t x = clscan_verify_rng_next(&rng) % 512;
            if (fl)
                clscan_verify_store_float(d->host, i, r->type, ((long double)x - 128) / 256);
            else
                clscan_verify_store_bits(d->host, i, r->type, sg ? (uint64_t)((int64_t)x - 128) : x);
        }
        memset(r->bounds, 0, sizeof r->bounds);
        if (fl) {
            clscan_verify_store_float(r->bounds, 0, r->type, 0);
            clscan_verify_store_float(r->bounds + 8, 0, r->type, 1);
        } else {
            clscan_verify_store_bits(r->bounds + 8, 0, r->type, 256);
        }
    } else if (is_compaction(r->call)) {
        fill_compaction(r, d->host, d->hflags, seed + (uint64_t)r->call * 0x100000);
    } else if (is_sort(r->call)) {
        fill_sort(r, d->host, d->hflags, seed);
    } else if (d->gcase >= 0) {
        clscan_verify_rng rng = {seed};
        d->gc.fill(d->host, r->n, &rng);
        clscan_verify_gen_fill_segments(&d->gc.desc, d->hflags, r->n, &rng);
        if (r->call == CALL_RLE) rle_keys(r->type, d->hflags, r->n);
    } else {
        fill_input(d->host, r->n, r->type, r->op, seed);
    }
}

/* Creates the output (and count) buffer and the k inputs (with their flags), and
 * poisons the output. 0, or -1 with r->check and r->note set. */
static int row_upload(bench *b, row *r, row_run *d)
{
    const int counted = is_compaction(r->call) || r->call == CALL_SORT_PAIRS ||
                        r->call == CALL_HISTOGRAM || r->call == CALL_REDUCE_BY_KEY ||
                        r->call == CALL_RLE;
    cl_int err = CL_SUCCESS;
    d->out = clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE, d->bytes, NULL, &err);
    if (counted && err == CL_SUCCESS)
        d->count = clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE, d->count_bytes, NULL, &err);
    for (size_t j = 0; j < d->k && err == CL_SUCCESS; j++) {
        d->in[j] = upload(b, d->host, d->bytes, &err);
        if (d->fbytes && err == CL_SUCCESS) d->flags[j] = upload(b, d->hflags, d->fbytes, &err);
    }
    if ((r->call == CALL_RLE || r->call == CALL_REDUCE_BY_KEY) && err == CL_SUCCESS) {
        d->aux = clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE, d->bytes, NULL, &err);
        if (err == CL_SUCCESS) err = poison(b->queue, d->aux, d->bytes);
    }
    if (err == CL_SUCCESS) err = poison(b->queue, d->out, d->bytes); /* touches it, too */
    if (d->count && err == CL_SUCCESS) err = poison(b->queue, d->count, d->count_bytes);
    if (err != CL_SUCCESS)
        return row_fail(r, alloc_error(err) ? "SKIP" : "ERROR", "allocating and filling %zu "
                        "buffers of %zu bytes: %s", d->k + 1, d->bytes,
                        clscan_status_string(err));
    return 0;
}

/* Runs the warmup and timed calls of row r: call c reads in[(c - w) mod k], each traced
 * (device time: its kernels' span) and timed by the host clock. The last call is the
 * checked one: the output (and count) are poisoned before it. 0, or -1 with r->check and
 * r->note set. */
static int row_time_calls(bench *b, const options *o, row *r, row_run *d)
{
    const unsigned w = o->warmup;
    const size_t k = d->k;
    const cl_uint zeros[4] = {0};
    cl_event trace[TRACE_CAP];
    char label[32];
    for (unsigned c = 0; c < w + r->repeats; c++) {
        size_t rot = (c + k - w % k) % k;
        cl_int err = CL_SUCCESS;
        cl_ulong start = 0;
        if (c == w) { /* count fallbacks over the timed calls */
            err = clEnqueueWriteBuffer(b->queue, b->stats, CL_TRUE, 0, sizeof zeros, zeros, 0,
                                       NULL, NULL);
            if (err != CL_SUCCESS)
                return row_fail(r, "ERROR", "clEnqueueWriteBuffer: %s", clscan_status_string(err));
        }
        clscan_ext_lookback_stats(b->stats);
        cl_event done = NULL;
        size_t traced = 0;
        double t0 = now_ns(), span;
        clscan_ext_trace_events(trace, TRACE_CAP, &traced);
        clscan_status s = enqueue_call(b, b->queue, r, d->in[rot], d->flags[rot], d->out,
                                       d->count, d->aux, &done);
        clscan_ext_trace_events(NULL, 0, NULL);
        clscan_ext_lookback_stats(NULL);
        if (s == CLSCAN_SUCCESS) err = clWaitForEvents(1, &done);
        double t1 = now_ns();
        if (done) clReleaseEvent(done);
        cl_int perr = span_and_release(trace, traced, &span, &start);
        if (s != CLSCAN_SUCCESS)
            return row_fail(r, s == CLSCAN_ERROR_UNSUPPORTED && c == 0 ? "SKIP" : "ERROR",
                            "%s: %s: %s", row_label(r, label, sizeof label),
                            clscan_status_string(s), clscan_context_last_error(b->ctx));
        if (err != CL_SUCCESS)
            return row_fail(r, "ERROR", "clWaitForEvents: %s", clscan_status_string(err));
        if (perr != CL_SUCCESS)
            return row_fail(r, "ERROR", "clGetEventProfilingInfo: %s",
                            clscan_status_string(perr));
        if (traced == 0 || traced == TRACE_CAP)
            return row_fail(r, "ERROR", "%zu kernel events traced for one call: device time "
                            "unknown", traced);
        if (c >= w) /* timed calls only: the first call may also clear scratch */
            r->kernels = traced > r->kernels ? (unsigned)traced : r->kernels;
        r->clock_ok &= c == 0 || start > d->prev_start;
        d->prev_start = start;
        /* The checked call must write every element it claims: poison before it. */
        if (c + 2 == w + r->repeats) {
            err = poison(b->queue, d->out, d->bytes);
            if (d->count && err == CL_SUCCESS) err = poison(b->queue, d->count, d->count_bytes);
            if (err != CL_SUCCESS)
                return row_fail(r, "ERROR", "clEnqueueFillBuffer: %s", clscan_status_string(err));
        }
        if (c < w) continue;
        d->dev[c - w] = span;
        d->wall[c - w] = t1 - t0;
    }
    return 0;
}

/* Compares a general scan's output got with the host reference; sets r->check and
 * r->note where an element differs. 0, or -1 (SKIP) when out of host memory. */
static int row_check_general(row *r, const row_run *d)
{
    void *want = malloc(d->bytes ? d->bytes : 1);
    if (!want) return row_fail(r, "SKIP", "out of host memory for %zu-byte buffers", d->bytes);
    clscan_verify_gen_reference(&d->gc, r->inclusive, d->host, d->hflags, r->n, want);
    for (size_t i = 0; i < r->n; ++i)
        if (memcmp((char *)d->got + i * d->elem, (char *)want + i * d->elem, d->elem) != 0) {
            r->check = "FAIL";
            snprintf(r->note, sizeof r->note, "element %zu differs from the host reference", i);
            break;
        }
    free(want);
    return 0;
}

/* A row's device count m of segments (or runs) against the host's j, where the row has
 * passed so far; the count is what the row kept. */
static void check_segment_count(row *r, cl_ulong m, size_t j)
{
    if (!strcmp(r->check, "PASS") && m != j) {
        r->check = "FAIL";
        snprintf(r->note, sizeof r->note, "count %llu, expected %zu", (unsigned long long)m, j);
    }
    r->kept = m;
}

/* Compares reduce-by-key's unique keys (in d->aux), sums (d->got) and count with the
 * host's: each segment's key, and the inclusive segmented scan at its last element. 0,
 * or -1 where it could not check. */
static int check_by_key(bench *b, row *r, const row_run *d)
{
    cl_ulong m = 0;
    int32_t *scan = malloc(d->bytes ? d->bytes : 1), *unique = malloc(d->bytes ? d->bytes : 1);
    if (!scan || !unique) {
        free(scan);
        free(unique);
        return row_fail(r, "SKIP", "out of host memory for %zu-byte buffers", d->bytes);
    }
    cl_int err = clEnqueueReadBuffer(b->queue, d->count, CL_TRUE, 0, sizeof m, &m, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(b->queue, d->aux, CL_TRUE, 0, d->bytes, unique, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        free(scan);
        free(unique);
        return row_fail(r, "ERROR", "clEnqueueReadBuffer: %s", clscan_status_string(err));
    }
    clscan_verify_gen_reference(&d->gc, 1, d->host, d->hflags, r->n, scan);
    const int32_t *keys = (const int32_t *)d->hflags, *got = d->got;
    size_t j = 0;
    for (size_t i = 0; i < r->n && !strcmp(r->check, "PASS"); ++i) {
        if (i + 1 < r->n && keys[i + 1] == keys[i]) continue;
        if (j >= m || got[j] != scan[i] || unique[j] != keys[i]) {
            r->check = "FAIL";
            snprintf(r->note, sizeof r->note, "segment %zu: got %d (key %d), expected %d (%d)",
                     j, j < m ? got[j] : 0, j < m ? unique[j] : 0, scan[i], keys[i]);
        }
        ++j;
    }
    check_segment_count(r, m, j);
    free(scan);
    free(unique);
    return 0;
}

/* Compares run-length encoding's unique values (in d->got), lengths (d->aux) and count
 * with the runs of the keys (d->hflags). 0, or -1 where it could not check. */
static int check_rle(bench *b, row *r, const row_run *d)
{
    cl_ulong m = 0;
    cl_uint *lengths = malloc(d->bytes ? d->bytes : 1);
    if (!lengths) return row_fail(r, "SKIP", "out of host memory for %zu-byte buffers", d->bytes);
    cl_int err = clEnqueueReadBuffer(b->queue, d->count, CL_TRUE, 0, sizeof m, &m, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(b->queue, d->aux, CL_TRUE, 0, d->bytes, lengths, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        free(lengths);
        return row_fail(r, "ERROR", "clEnqueueReadBuffer: %s", clscan_status_string(err));
    }
    const size_t ks = clscan_type_size(r->type);
    const unsigned char *keys = d->hflags, *got = d->got;
    size_t j = 0, start = 0;
    for (size_t i = 0; i < r->n && !strcmp(r->check, "PASS"); ++i) {
        if (i + 1 < r->n && !memcmp(keys + (i + 1) * ks, keys + i * ks, ks)) continue;
        if (j >= m || memcmp(got + j * ks, keys + i * ks, ks) || lengths[j] != i + 1 - start) {
            r->check = "FAIL";
            snprintf(r->note, sizeof r->note,
                     "run %zu (of elements %zu to %zu): %s, length %u (expected %zu)", j, start,
                     i, j >= m ? "past the count" : memcmp(got + j * ks, keys + i * ks, ks)
                                                        ? "its unique value differs"
                                                        : "its unique value right",
                     j < m ? lengths[j] : 0, i + 1 - start);
        }
        ++j;
        start = i + 1;
    }
    check_segment_count(r, m, j);
    free(lengths);
    return 0;
}

/* Compares the histogram's counts (in d->count) with the host's; sets r->check and r->note
 * where a bin differs. 0, or -1 where the counts could not be read. */
static int check_histogram(bench *b, row *r, const row_run *d)
{
    cl_uint got[HIST_BINS];
    uint64_t want[HIST_BINS];
    cl_int err = clEnqueueReadBuffer(b->queue, d->count, CL_TRUE, 0, sizeof got, got, 0, NULL,
                                     NULL);
    if (err != CL_SUCCESS)
        return row_fail(r, "ERROR", "clEnqueueReadBuffer: %s", clscan_status_string(err));
    clscan_verify_histogram_even(d->host, r->n, r->type, HIST_BINS, r->bounds, r->bounds + 8,
                                 want);
    for (int k = 0; k < HIST_BINS; k++)
        if (got[k] != (cl_uint)want[k]) {
            r->check = "FAIL";
            snprintf(r->note, sizeof r->note, "bin %d: got %u, expected %llu", k, got[k],
                     (unsigned long long)want[k]);
            break;
        }
    return 0;
}

/* Reads the checked call's output (and count or sort values) back and checks it against
 * the host; reads the fallback counters of the timed calls. 0, or -1 with r->check and
 * r->note set where it could not. */
static int row_check(bench *b, row *r, row_run *d)
{
    const int pairs = r->call == CALL_SORT_PAIRS, compaction = is_compaction(r->call);
    cl_ulong kept = 0;
    cl_int err = clEnqueueReadBuffer(b->queue, d->out, CL_TRUE, 0, d->bytes, d->got, 0, NULL,
                                     NULL);
    if (compaction && err == CL_SUCCESS)
        err = clEnqueueReadBuffer(b->queue, d->count, CL_TRUE, 0, sizeof kept, &kept, 0, NULL,
                                  NULL);
    cl_uint *got_values = pairs ? malloc(d->fbytes) : NULL;
    if (pairs && !got_values)
        return row_fail(r, "SKIP", "out of host memory for %zu-byte buffers", d->fbytes);
    if (pairs && err == CL_SUCCESS)
        err = clEnqueueReadBuffer(b->queue, d->count, CL_TRUE, 0, d->fbytes, got_values, 0, NULL,
                                  NULL);
    if (err != CL_SUCCESS) {
        free(got_values);
        return row_fail(r, "ERROR", "clEnqueueReadBuffer: %s", clscan_status_string(err));
    }
    if (r->call == CALL_REDUCE_BY_KEY) {
        if (check_by_key(b, r, d)) return -1;
    } else if (r->call == CALL_RLE) {
        if (check_rle(b, r, d)) return -1;
    } else if (d->gcase >= 0) {
        if (row_check_general(r, d)) return -1;
    } else if (r->call == CALL_HISTOGRAM) {
        if (check_histogram(b, r, d)) return -1;
    } else if (is_sort(r->call)) {
        r->check = check_sort(r, d->host, d->got, got_values, r->note, sizeof r->note);
        free(got_values);
    } else if (compaction) {
        r->kept = kept > r->n ? r->n : kept;
        r->check = check_compaction(r, d->host, d->hflags, d->got, kept, r->note, sizeof r->note);
    } else if (!check_scan(d->host, d->got, r->n, r->type, r->op, r->inclusive,
                           r->call == CALL_REDUCE, r->note, sizeof r->note)) {
        r->check = "FAIL";
    }

    cl_uint counted[4];
    err = clEnqueueReadBuffer(b->queue, b->stats, CL_TRUE, 0, sizeof counted, counted, 0, NULL,
                              NULL);
    if (err != CL_SUCCESS)
        return row_fail(r, "ERROR", "clEnqueueReadBuffer: %s", clscan_status_string(err));
    r->fallbacks = counted[0];
    return 0;
}

/* Times buffer copies of the same bytes, same rotation and count, by their own events.
 * 0, or -1 with r->check and r->note set. */
static int row_time_copies(bench *b, const options *o, row *r, row_run *d)
{
    const unsigned w = o->warmup;
    const size_t k = d->k;
    for (unsigned c = 0; c < w + r->repeats; c++) {
        cl_event ev = NULL;
        cl_ulong start = 0;
        double span = 0, t0 = now_ns();
        cl_int err = clEnqueueCopyBuffer(b->queue, d->in[(c + k - w % k) % k], d->out, 0, 0,
                                         d->bytes, 0, NULL, &ev);
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
        double t1 = now_ns();
        if (err == CL_SUCCESS) err = span_and_release(&ev, 1, &span, &start);
        else if (ev) clReleaseEvent(ev);
        if (err != CL_SUCCESS)
            return row_fail(r, "ERROR", "timing a buffer copy: %s", clscan_status_string(err));
        r->clock_ok &= start > d->prev_start;
        d->prev_start = start;
        if (c >= w) {
            d->copy[c - w] = span;
            d->copy_wall[c - w] = t1 - t0;
        }
    }
    return 0;
}

/* Calls per batch for the batched wall times of a call whose copy moves copy_bytes:
 * BATCH_BYTES of copies, at least BATCH_MIN_CALLS, at most BATCH_MAX_CALLS (as
 * shared/anchors/cub_anchor.cu counts them, so the figures compare with CUB's). */
static size_t batch_calls(double copy_bytes)
{
    const double k = copy_bytes > 0 ? floor((double)BATCH_BYTES / copy_bytes) : BATCH_MAX_CALLS;
    return k < BATCH_MIN_CALLS ? BATCH_MIN_CALLS : k > BATCH_MAX_CALLS ? BATCH_MAX_CALLS
                                                                       : (size_t)k;
}

/* Enqueues `count` calls of row r (copy: buffer copies of the same bytes instead) back to
 * back on the bench's plain queue, asking for no event, the j-th reading
 * in[(first + j) mod k], then waits for them with one clFinish; *ns: the wall time from
 * the first enqueue to the end of the clFinish. Untimed, a marker enqueued after the
 * clFinish is waited for: where that takes longer than LATE_NS and LATE_SHARE of the
 * batch, the clFinish returned before the commands had run (rusticl 22.3 does so after a
 * clFlush), and *ns runs to the marker's completion instead, *late set. 0, or -1 with
 * r->check and r->note set. */
static int run_batch(bench *b, row *r, row_run *d, int copy, size_t first, size_t count,
                     double *ns, double *enq_ns, double *first_ns, int *late)
{
    clscan_status s = CLSCAN_SUCCESS;
    cl_int err = CL_SUCCESS;
    char label[32];
    const double t0 = now_ns();
    *first_ns = 0;
    for (size_t j = 0; j < count && s == CLSCAN_SUCCESS && err == CL_SUCCESS; j++) {
        if (j == FIRST_CALLS) *first_ns = (now_ns() - t0) / FIRST_CALLS;
        const size_t rot = (first + j) % d->k;
        if (copy)
            err = clEnqueueCopyBuffer(b->plain, d->in[rot], d->out, 0, 0, d->bytes, 0, NULL,
                                      NULL);
        else
            s = enqueue_call(b, b->plain, r, d->in[rot], d->flags[rot], d->out, d->count,
                             d->aux, NULL);
    }
    *enq_ns = now_ns() - t0;
    const cl_int fin = clFinish(b->plain); /* (after a failure too: nothing left running) */
    const double t1 = now_ns();
    cl_event marker = NULL;
    cl_int mark = clEnqueueMarkerWithWaitList(b->plain, 0, NULL, &marker);
    if (mark == CL_SUCCESS) mark = clWaitForEvents(1, &marker);
    if (marker) clReleaseEvent(marker);
    const double t2 = now_ns();
    *late = t2 - t1 > LATE_NS && t2 - t1 > LATE_SHARE * (t1 - t0);
    *ns = (*late ? t2 : t1) - t0;
    if (s != CLSCAN_SUCCESS)
        return row_fail(r, "ERROR", "batched calls: %s: %s: %s",
                        row_label(r, label, sizeof label), clscan_status_string(s),
                        clscan_context_last_error(b->ctx));
    if (err != CL_SUCCESS)
        return row_fail(r, "ERROR", "batched buffer copies: clEnqueueCopyBuffer: %s",
                        clscan_status_string(err));
    if (fin != CL_SUCCESS || mark != CL_SUCCESS)
        return row_fail(r, "ERROR", "batched %s: %s: %s", copy ? "buffer copies" : "calls",
                        fin != CL_SUCCESS ? "clFinish" : "waiting for a marker after clFinish",
                        clscan_status_string(fin != CL_SUCCESS ? fin : mark));
    return 0;
}

/* The batched wall times of row r, after its checked call and its copies (the output they
 * overwrite has been read): BATCHES batches, each K calls back to back then K buffer
 * copies of the same bytes, each set ended by one clFinish (run_batch), the inputs
 * rotating as in the timed calls; per call and per copy the batch's wall time / K, in
 * r->batched and r->copy_batched, and K in r->batch_k; r->note says how many batches
 * ran to a marker because their clFinish returned early. One untimed call and copy first
 * (the first use of the plain queue). 0, or -1 with r->check and r->note set. */
static int row_time_batched(bench *b, row *r, row_run *d)
{
    const size_t K = batch_calls(2.0 * (double)d->bytes);
    double calls[BATCHES], copies[BATCHES], enqueued[BATCHES], firsts[BATCHES], ns, enq, fst;
    size_t first = 0;
    int late[2];
    cl_int err = clFinish(b->queue); /* the profiling queue's commands come first */
    if (err != CL_SUCCESS)
        return row_fail(r, "ERROR", "clFinish: %s", clscan_status_string(err));
    if (run_batch(b, r, d, 0, 0, 1, &ns, &enq, &fst, &late[0]) ||
        run_batch(b, r, d, 1, 0, 1, &ns, &enq, &fst, &late[1]))
        return -1;
    for (int i = 0; i < BATCHES; i++, first += K) {
        if (run_batch(b, r, d, 0, first, K, &calls[i], &enqueued[i], &firsts[i], &late[0]))
            return -1;
        if (run_batch(b, r, d, 1, first, K, &copies[i], &enq, &fst, &late[1])) return -1;
        r->late_batches += (unsigned)(late[0] + late[1]);
        calls[i] /= (double)K;
        copies[i] /= (double)K;
        enqueued[i] /= (double)K;
    }
    r->batched = summarise(calls, BATCHES);
    r->enqueued = summarise(enqueued, BATCHES);
    r->first_enqueued = summarise(firsts, BATCHES);
    r->copy_batched = summarise(copies, BATCHES);
    r->batch_k = K;
    if (r->late_batches) /* (no commas: tools/gpu-run.sh splits the CSV at every one) */
        snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note),
                 "%sclFinish returned before the commands of %u of %d batches had run: those "
                 "were timed until a marker after them completed", r->note[0] ? "; " : "",
                 r->late_batches, 2 * BATCHES);
    return 0;
}

static void row_release(row_run *d)
{
    if (d->out) clReleaseMemObject(d->out);
    if (d->count) clReleaseMemObject(d->count);
    if (d->aux) clReleaseMemObject(d->aux);
    for (size_t j = 0; j < d->k; j++) {
        if (d->in[j]) clReleaseMemObject(d->in[j]);
        if (d->flags[j]) clReleaseMemObject(d->flags[j]);
    }
    free(d->host);
    free(d->got);
    free(d->hflags);
    free(d->dev);
}

/* Allocates, fills, times and checks one row; fills in r. Returns -1 on an error after
 * which the device cannot be trusted (the run stops), else 0. */
static int run_row(bench *b, const options *o, row *r)
{
    row_run d = {0};
    r->check = "PASS";
    r->clock_ok = 1;
    if (!row_plan(b, o, r, &d)) {
        row_fill(r, &d);
        if (!row_upload(b, r, &d) && !row_time_calls(b, o, r, &d) && !row_check(b, r, &d) &&
            !row_time_copies(b, o, r, &d) && (!o->batched || !row_time_batched(b, r, &d))) {
            r->dev = summarise(d.dev, r->repeats);
            r->wall = summarise(d.wall, r->repeats);
            r->copy = summarise(d.copy, r->repeats);
            r->copy_wall = summarise(d.copy_wall, r->repeats);
            if (!r->clock_ok) /* Mesa 22's rusticl, for one, reports 0, 1, 2, 3 for every event */
                snprintf(r->note + strlen(r->note), sizeof r->note - strlen(r->note),
                         "%sthe driver's profiling timestamps do not advance from one command "
                         "to the next: no device times", r->note[0] ? "; " : "");
        }
    }
    row_release(&d);
    return strcmp(r->check, "ERROR") ? 0 : -1;
}

/* ------------------------------------------------------- host stream ------ */

/* Host memory of `bytes`, pinned where the device allows: a CL_MEM_ALLOC_HOST_PTR buffer
 * mapped for reading and writing (returned; *host is the mapping), else malloc (NULL
 * returned). *host is NULL when neither could be had. */
static cl_mem pinned(bench *b, size_t bytes, void **host)
{
    cl_int err;
    cl_mem m = clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                              &err);
    if (err == CL_SUCCESS) {
        *host = clEnqueueMapBuffer(b->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                   NULL, NULL, &err);
        if (err == CL_SUCCESS) return m;
        clReleaseMemObject(m);
    }
    *host = malloc(bytes);
    return NULL;
}

static void unpin(bench *b, cl_mem m, void *host)
{
    if (!m) {
        free(host);
        return;
    }
    clEnqueueUnmapMemObject(b->queue, m, host, 0, NULL, NULL);
    clFinish(b->queue);
    clReleaseMemObject(m);
}

/* Moves `bytes` between host and the device buffer dev (of `piece` bytes: a larger
 * transfer goes in pieces, one after the other) on the bench's queue; *ns: the wall time
 * until all of it is complete. */
static cl_int transfer(bench *b, cl_mem dev, size_t piece, void *host, size_t bytes,
                       int to_device, double *ns)
{
    cl_int err = CL_SUCCESS;
    const double t0 = now_ns();
    for (size_t off = 0; off < bytes && err == CL_SUCCESS; off += piece) {
        const size_t len = bytes - off < piece ? bytes - off : piece;
        err = to_device ? clEnqueueWriteBuffer(b->queue, dev, CL_FALSE, 0, len, (char *)host + off,
                                               0, NULL, NULL)
                        : clEnqueueReadBuffer(b->queue, dev, CL_FALSE, 0, len, (char *)host + off,
                                              0, NULL, NULL);
    }
    if (err == CL_SUCCESS) err = clFinish(b->queue);
    *ns = now_ns() - t0;
    return err;
}

/* host-stream: times clscan_scan_host over r->n elements from pinned host memory into
 * pinned host memory (wall time of the call until its event completes), on the bench's
 * queue and a second in-order one; checks the last call's result; then times the
 * host-to-device and device-to-host transfers of the same bytes from the same memory.
 * Returns -1 on an error after which the device cannot be trusted, else 0. */
static int run_stream_row(bench *b, const options *o, row *r)
{
    const size_t es = clscan_type_size(r->type), n = r->n, bytes = n * es;
    const unsigned w = o->warmup;
    cl_mem hsrc = NULL, hdst = NULL, dev = NULL;
    void *src = NULL, *dst = NULL;
    cl_command_queue q2 = NULL;
    double *wall = NULL, *h2d = NULL, *d2h = NULL;
    cl_int err = CL_SUCCESS;
    char label[32];

    r->check = "PASS";
    r->clock_ok = 0; /* (no device time: the call's commands span two queues) */
    r->k = 1;
    clscan_status set = clscan_ext_context_set_algorithm(b->ctx, r->algo);
    if (set != CLSCAN_SUCCESS)
        ROW_FAIL(set == CLSCAN_ERROR_UNSUPPORTED ? "SKIP" : "ERROR", "%s: %s",
                 clscan_status_string(set), clscan_context_last_error(b->ctx));
    if (is_float(r->type) && r->op >= CLSCAN_OP_AND)
        ROW_FAIL("SKIP", "unsupported: no bitwise operators on floating-point types");
    if (r->type == CLSCAN_DOUBLE && !b->fp64) ROW_FAIL("SKIP", "unsupported: device has no fp64");
    if (n > SIZE_MAX / es) ROW_FAIL("SKIP", "%zu elements of %zu bytes overflow a size_t", n, es);
    r->repeats = o->repeats;
    if ((unsigned long long)r->repeats * 2 * bytes > TIMED_BYTES_CAP) {
        unsigned long long cap = TIMED_BYTES_CAP / (2 * bytes);
        r->repeats = cap < MIN_REPEATS ? MIN_REPEATS : (unsigned)cap;
    }
    wall = malloc(3 * sizeof *wall * r->repeats);
    hsrc = pinned(b, bytes, &src);
    hdst = pinned(b, bytes, &dst);
    if (!wall || !src || !dst)
        ROW_FAIL("SKIP", "out of host memory for two %zu-byte host buffers", bytes);
    h2d = wall + r->repeats;
    d2h = h2d + r->repeats;
    r->host_memory = hsrc && hdst ? "pinned" : "pageable";
    fill_input(src, n, r->type, r->op, 0x5eed0000ull + n * 64 + (uint64_t)r->type * 8 + r->op);
    q2 = clCreateCommandQueue(b->cl_ctx, b->device, 0, &err);
    if (err != CL_SUCCESS) ROW_FAIL("ERROR", "clCreateCommandQueue: %s", clscan_status_string(err));
    const cl_command_queue qs[2] = {b->queue, q2};
    clscan_scan_desc d = {0};
    d.type = r->type;
    d.op = r->op;
    r->chunk_used = clscan_ext_host_chunk(b->ctx, n, r->chunk, es, es);

    for (unsigned c = 0; c < w + r->repeats; c++) {
        if (c + 1 == w + r->repeats) memset(dst, 0xa5, bytes); /* the checked call */
        cl_event done = NULL;
        const double t0 = now_ns();
        clscan_status s = clscan_scan_host(b->ctx, qs, &d, r->inclusive, src, dst, n, r->chunk,
                                           NULL, 0, NULL, &done);
        if (s == CLSCAN_SUCCESS) err = clWaitForEvents(1, &done);
        const double t1 = now_ns();
        if (done) clReleaseEvent(done);
        if (s != CLSCAN_SUCCESS)
            ROW_FAIL(s == CLSCAN_ERROR_UNSUPPORTED && c == 0 ? "SKIP" : "ERROR", "%s: %s: %s",
                     row_label(r, label, sizeof label), clscan_status_string(s),
                     clscan_context_last_error(b->ctx));
        if (err != CL_SUCCESS) ROW_FAIL("ERROR", "clWaitForEvents: %s", clscan_status_string(err));
        if (c >= w) wall[c - w] = t1 - t0;
    }
    if (!check_scan(src, dst, n, r->type, r->op, r->inclusive, 0, r->note, sizeof r->note))
        r->check = "FAIL";

    /* The transfers of the same bytes, through one device buffer as large as allowed. */
    const size_t piece = bytes < b->max_alloc ? bytes : (size_t)b->max_alloc;
    dev = clCreateBuffer(b->cl_ctx, CL_MEM_READ_WRITE, piece ? piece : 1, NULL, &err);
    if (err != CL_SUCCESS)
        ROW_FAIL(alloc_error(err) ? "SKIP" : "ERROR", "a %zu-byte buffer for the transfers: %s",
                 piece, clscan_status_string(err));
    for (int to_host = 0; to_host < 2; to_host++)
        for (unsigned c = 0; c < w + r->repeats; c++) {
            double ns;
            err = transfer(b, dev, piece, to_host ? dst : src, bytes, !to_host, &ns);
            if (err != CL_SUCCESS)
                ROW_FAIL("ERROR", "timing a %s transfer: %s", to_host ? "device-to-host"
                         : "host-to-device", clscan_status_string(err));
            if (c >= w) (to_host ? d2h : h2d)[c - w] = ns;
        }
    r->wall = summarise(wall, r->repeats);
    r->h2d = summarise(h2d, r->repeats);
    r->d2h = summarise(d2h, r->repeats);

done:
    /* (After a failed call its commands may still run: finish them before the memory goes.) */
    if (q2) {
        clFinish(q2);
        clReleaseCommandQueue(q2);
    }
    clFinish(b->queue);
    if (dev) clReleaseMemObject(dev);
    if (src) unpin(b, hsrc, src);
    if (dst) unpin(b, hdst, dst);
    free(wall);
    return strcmp(r->check, "ERROR") ? 0 : -1;
}

/* ------------------------------------------------------------- output ------- */

static int measured(const row *r)
{
    return !strcmp(r->check, "PASS") || !strcmp(r->check, "FAIL") ||
           !strcmp(r->check, "UNCHECKED");
}
/* The least the timed call must move, in bytes (the CSV's bytes_moved), and what a copy
 * of the input moves. */
static double moved_bytes(const row *r)
{
    double n = (double)r->n, e = (double)clscan_type_size(r->type);
    if (r->call == CALL_SCAN || r->call == CALL_HOST_STREAM) return 2 * n * e; /* (both ways) */
    if (r->call == CALL_REDUCE) return n * e + e;
    if (r->call == CALL_HISTOGRAM) return n * e + HIST_BINS * 4;
    if (r->call == CALL_REDUCE_BY_KEY) /* values, keys, the sums written, the count */
        return n * 8 + (double)r->kept * 4 + 8;
    if (r->call == CALL_RLE) /* keys, the unique values and lengths written, the count */
        return n * e + (double)r->kept * (e + 4) + 8;
    if (general_case(r->call) >= 0) { /* input, output, segments */
        const clscan_verify_gen_case g = call_case(r->call);
        return n * (double)(g.in_size + g.out_size) +
               n * (g.desc.segments == CLSCAN_SEGMENTS_FLAGS  ? 1.0
                    : g.desc.segments == CLSCAN_SEGMENTS_KEYS ? 4.0
                                                              : 0.0);
    }
    if (is_sort(r->call)) return 2 * n * (e + (r->call == CALL_SORT_PAIRS ? 4 : 0));
    return n * e + (r->call == CALL_SELECT_FLAGGED ? n : 0) +
           (r->call == CALL_PARTITION ? n : (double)r->kept) * e + 8;
}
static double copy_bytes(const row *r) { return 2.0 * (double)r->n * (double)elem_bytes(r); }
static double per_ns(double amount, double ns) { return ns > 0 ? amount / ns : 0; }
static double call_gbps(const row *r) { return per_ns(moved_bytes(r), r->dev.med); }
static double copy_gbps(const row *r) { return per_ns(copy_bytes(r), r->copy.med); }
static double ratio_pct(const row *r) /* call GB/s / copy GB/s, in % */
{
    return copy_gbps(r) > 0 ? 100 * call_gbps(r) / copy_gbps(r) : 0;
}
/* Batched wall per call over batched wall per copy: how many copies' time one call costs. */
static double batched_ratio(const row *r)
{
    return r->copy_batched.med > 0 ? r->batched.med / r->copy_batched.med : 0;
}
/* host-stream: GB/s of the stream (n elements per wall time) and of the transfers, and
 * the stream's share of the host-to-device rate, in %. */
static double stream_bytes(const row *r) { return (double)r->n * clscan_type_size(r->type); }
static double stream_gbps(const row *r) { return per_ns(stream_bytes(r), r->wall.med); }
static double h2d_gbps(const row *r) { return per_ns(stream_bytes(r), r->h2d.med); }
static double d2h_gbps(const row *r) { return per_ns(stream_bytes(r), r->d2h.med); }
static double stream_pct(const row *r)
{
    return h2d_gbps(r) > 0 ? 100 * stream_gbps(r) / h2d_gbps(r) : 0;
}

static void size_text(size_t n, char *buf, size_t size)
{
    int e = 0;
    while (e < 63 && ((size_t)1 << e) < n) e++;
    if (((size_t)1 << e) == n) snprintf(buf, size, "2^%d", e);
    else snprintf(buf, size, "%zu", n);
}

static void print_table(const bench *b, const row *rows, size_t count)
{
    printf("\n%s (%s, driver %s)\n"
           "Medians over reps timed calls. dev us: device time, first kernel start to last "
           "kernel end.\nwall us: host clock from the call to its event complete. GB/s: the "
           "least the call moves\n(a scan: one read + one write of n elements; a compaction: "
           "a read of n elements, of n\nflag bytes for select-flagged, a write of the kept "
           "ones, all n for partition, and the\n8-byte count) / dev us. Gel/s: n / dev us. "
           "copy: clEnqueueCopyBuffer of n*size bytes, as\nmany reps. ratio: GB/s / copy GB/s. "
           "call: a scan's operator and mode, or the compaction\n(with its predicate or keep "
           "fraction last). Inputs rotate over min(--rotations (64), 256 MiB /\n(n*size)) "
           "buffers (at least 1, as memory allows), all into one output buffer.\n"
           "batch us: batched wall, K calls back to back on one in-order queue (no profiling, "
           "no events\nasked for), then one clFinish: wall time / K, median of %d batches; "
           "K = 2 GiB / (2*n*size)\nin [%d, %d], inputs rotating as above. copy batch: "
           "clEnqueueCopyBuffer of the same bytes\ntimed the same way, in the same batches. "
           "x copy: batch us / copy batch, how many copies'\ntime one call costs. "
           "(--no-batched: not measured.)\nstream rows (host-stream): "
           "clscan_scan_host, pinned host memory to pinned host memory on two\nqueues; no "
           "device time (its commands span both queues): wall us, GB/s = n*size / wall us,\n"
           "Gel/s = n / wall us; copy: clEnqueueWriteBuffer of the same n*size bytes (H2D), "
           "ratio: stream\nGB/s / H2D GB/s; the chunk and the D2H rate last; not batched.\n",
           b->device_name, b->platform_name, b->driver, BATCHES, BATCH_MIN_CALLS,
           BATCH_MAX_CALLS);
    /* (The call column as wide as its longest label, so that the columns stay aligned.) */
    int lw = 14;
    for (size_t i = 0; i < count; i++) {
        char call[32];
        const int len = (int)strlen(row_label(&rows[i], call, sizeof call));
        if (len > lw) lw = len;
    }
    printf("%-7s %-*s %-11s %10s %4s %10s %10s %9s %7s %10s %9s %7s %10s %10s %6s %10s %6s  "
           "%s\n", "type", lw, "call", "algo", "n", "reps", "dev us", "wall us", "GB/s", "Gel/s",
           "copy us", "copy GB/s", "ratio %", "batch us", "copy batch", "x copy", "kept", "fb",
           "check");
    for (size_t i = 0; i < count; i++) {
        const row *r = &rows[i];
        const int m = measured(r), stream = r->call == CALL_HOST_STREAM;
        char n[32], call[32], kept[32] = "-", fb[32] = "-";
        size_text(r->n, n, sizeof n);
        if (is_compaction(r->call) && m) snprintf(kept, sizeof kept, "%llu", r->kept);
        if (m && !stream) snprintf(fb, sizeof fb, "%llu", r->fallbacks);
        printf("%-7s %-*s %-11s %10s ", clscan_type_name(r->type), lw, row_label(r, call, sizeof call),
               clscan_ext_algorithm_name(r->algo), n);
        if (m && stream)
            printf("%4u %10s %10.1f %9.2f %7.3f %10.1f %9.2f %7.1f", r->repeats, "n/a",
                   r->wall.med / 1e3, stream_gbps(r), per_ns(r->n, r->wall.med),
                   r->h2d.med / 1e3, h2d_gbps(r), stream_pct(r));
        else if (m && r->clock_ok)
            printf("%4u %10.1f %10.1f %9.1f %7.3f %10.1f %9.1f %7.1f", r->repeats,
                   r->dev.med / 1e3, r->wall.med / 1e3, call_gbps(r), per_ns(r->n, r->dev.med),
                   r->copy.med / 1e3, copy_gbps(r), ratio_pct(r));
        else if (m) /* wall time only */
            printf("%4u %10s %10.1f %9s %7s %10s %9s %7s", r->repeats, "n/a", r->wall.med / 1e3,
                   "n/a", "n/a", "n/a", "n/a", "n/a");
        else
            printf("%4s %10s %10s %9s %7s %10s %9s %7s", "-", "-", "-", "-", "-", "-", "-", "-");
        if (m && r->batch_k)
            printf(" %10.1f %10.1f %6.2f", r->batched.med / 1e3, r->copy_batched.med / 1e3,
                   batched_ratio(r));
        else
            printf(" %10s %10s %6s", "-", "-", "-");
        printf(" %10s %6s  %s", kept, fb, r->check);
        if (m && stream)
            printf("  chunk %zu, D2H %.2f GB/s, %s", r->chunk_used, d2h_gbps(r), r->host_memory);
        else if (m && !r->clock_ok)
            fputs(" (no device times)", stdout);
        if (r->predicate) printf("  if %s", r->predicate);
        if (takes_fraction(r->call)) printf("  keep %g", r->keep);
        putchar('\n');
    }
}

/* Writes s as a JSON string (csv: a quoted CSV field). */
static void put_string(FILE *f, const char *s, int csv)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (csv ? ch == '"' : ch == '"' || ch == '\\') fputc(csv ? '"' : '\\', f);
        if (!csv && ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* Whether a number field of kind k (see write_file) has a value in row r. */
static int has_number(char k, const row *r)
{
    int m = measured(r);
    switch (k) {
    case 'a': return 1;
    case 'b': return r->call == CALL_SCAN || m;
    case 'm': return m;
    case 'd': return m && r->clock_ok;
    case 'f': return takes_fraction(r->call);
    case 'k': return m && r->call != CALL_HOST_STREAM;
    case 'h': return m && r->call == CALL_HOST_STREAM;
    case 's': return r->call == CALL_HOST_STREAM;
    case 'w': return m && r->batch_k > 0;
    default: return m && is_compaction(r->call); /* 'c' */
    }
}

static int write_file(const char *path, const bench *b, const options *o, const row *rows,
                      size_t count, int csv)
{
    static const char *const fields[] = {
        "type", "op", "mode", "algo", "n", "elem_bytes", "bytes_moved", "rotations", "warmup",
        "repeats",
        "kernels", "device_time_usable", "scan_min_us", "scan_median_us", "scan_max_us",
        "wall_min_us", "wall_median_us", "wall_max_us", "scan_gbps", "copy_min_us",
        "copy_median_us", "copy_max_us", "copy_wall_min_us", "copy_wall_median_us",
        "copy_wall_max_us", "copy_gbps", "ratio_pct", "fallbacks", "check", "note", "call",
        "predicate", "keep_fraction", "kept", "gelem_per_s", "chunk", "chunk_used",
        "h2d_median_us", "h2d_gbps", "d2h_median_us", "d2h_gbps", "stream_gbps",
        "stream_h2d_pct", "host_memory", "batch_calls", "batched_min_us", "batched_median_us",
        "batched_max_us", "copy_batched_min_us", "copy_batched_median_us",
        "copy_batched_max_us", "batched_ratio", "batched_enqueue_median_us",
        "batched_first_enqueue_median_us"};
    /* Each field: t text (NULL: empty in CSV, null in JSON), a number, b a number for a
     * scan or a measured compaction (bytes_moved counts the kept elements), m a number if
     * measured, d a number if measured with usable device times, k a number if measured
     * and not host-stream, f a number for a call with a keep fraction, c a number for a
     * measured compaction, s a number for host-stream, h one for a measured host-stream,
     * w one for a measured row with batched wall times (else empty in CSV, null in JSON).
     * New fields go last, so that older CSVs keep their column numbers. */
    static const char kind[] = "tttt" "aab" "mmmkm" "ddd" "mmm" "d" "ddd" "kkk" "dd" "k"
                               "tttt" "fcd" "shhhhhhh" "t" "wwwwwwwwww";
    /* where they start: numbers, the texts from check on, host_memory, the batched times */
    enum { NF = sizeof fields / sizeof *fields, NUMS = 4, TEXTS = 28, HOST_MEMORY = 43,
           BATCHED = 44 };
    _Static_assert(sizeof kind - 1 == NF, "one kind per field");
    _Static_assert(HOST_MEMORY + 1 == BATCHED && BATCHED + 10 == NF,
                   "host_memory, then the ten batched fields, last");
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "clscan-bench: cannot write %s\n", path);
        return -1;
    }
    if (csv) {
        fputs("platform,device,driver", f);
        for (int i = 0; i < NF; i++) fprintf(f, ",%s", fields[i]);
        fputc('\n', f);
    } else {
        fputs("{\"tool\": \"clscan-bench\", \"platform\": ", f);
        put_string(f, b->platform_name, 0);
        fputs(", \"device\": ", f);
        put_string(f, b->device_name, 0);
        fputs(", \"driver\": ", f);
        put_string(f, b->driver, 0);
        fputs(", \"device_version\": ", f);
        put_string(f, b->version, 0);
        fputs(", \"describe\": ", f);
        put_string(f, b->describe, 0);
        fprintf(f, ", \"repeats_asked\": %u, \"warmup\": %u, \"batched\": %s, \"batches\": %d,\n"
                "\"bytes_moved_per_call\": "
                "\"the least the call moves: a scan 2*n*elem_bytes (one read, one write); a "
                "compaction n*elem_bytes read, n flag bytes read (select-flagged), "
                "kept*elem_bytes written (partition: n*elem_bytes), 8 for the count; a "
                "reduction n*elem_bytes read and one element written; a histogram "
                "n*elem_bytes read and 4 bytes a bin written\",\n"
                "\"rows\": [", o->repeats, o->warmup, o->batched ? "true" : "false", BATCHES);
    }
    for (size_t i = 0; i < count; i++) {
        const row *r = &rows[i];
        int scan = takes_op(r->call);
        double v[NF] = {[NUMS] = (double)r->n, (double)elem_bytes(r),
                        moved_bytes(r), (double)r->k, o->warmup, r->repeats, r->kernels,
                        r->clock_ok, r->dev.min / 1e3, r->dev.med / 1e3, r->dev.max / 1e3,
                        r->wall.min / 1e3, r->wall.med / 1e3, r->wall.max / 1e3, call_gbps(r),
                        r->copy.min / 1e3, r->copy.med / 1e3, r->copy.max / 1e3,
                        r->copy_wall.min / 1e3, r->copy_wall.med / 1e3,
                        r->copy_wall.max / 1e3, copy_gbps(r), ratio_pct(r),
                        (double)r->fallbacks, [TEXTS + 4] = r->keep, (double)r->kept,
                        per_ns((double)r->n, r->dev.med), (double)r->chunk,
                        (double)r->chunk_used, r->h2d.med / 1e3, h2d_gbps(r),
                        r->d2h.med / 1e3, d2h_gbps(r), stream_gbps(r), stream_pct(r),
                        [BATCHED] = (double)r->batch_k, r->batched.min / 1e3,
                        r->batched.med / 1e3, r->batched.max / 1e3, r->copy_batched.min / 1e3,
                        r->copy_batched.med / 1e3, r->copy_batched.max / 1e3,
                        batched_ratio(r), r->enqueued.med / 1e3, r->first_enqueued.med / 1e3};
        const char *text[NF] = {clscan_type_name(r->type), scan ? clscan_op_name(r->op) : NULL,
                                takes_mode(r->call) || (general_case(r->call) >= 0 &&
                                                        r->call != CALL_REDUCE_BY_KEY &&
                                                        r->call != CALL_RLE)
                                    ? mode_name(r->inclusive) : NULL,
                                clscan_ext_algorithm_name(r->algo),
                                [TEXTS] = r->check, r->note, call_name(r->call), r->predicate,
                                [HOST_MEMORY] = r->host_memory};
        if (csv) {
            put_string(f, b->platform_name, 1);
            fputc(',', f);
            put_string(f, b->device_name, 1);
            fputc(',', f);
            put_string(f, b->driver, 1);
        } else {
            fputs(i ? ",\n {" : "\n {", f);
        }
        for (int j = 0; j < NF; j++) {
            if (!csv) fprintf(f, "%s\"%s\": ", j ? ", " : "", fields[j]);
            else fputc(',', f);
            if (kind[j] == 't' ? text[j] != NULL : has_number(kind[j], r)) {
                if (kind[j] == 't') put_string(f, text[j], csv);
                else fprintf(f, "%.10g", v[j]);
            } else {
                fputs(csv ? "" : "null", f);
            }
        }
        if (csv) fputc('\n', f);
        else fputc('}', f);
    }
    if (!csv) fputs("\n]}\n", f);
    if (fclose(f) != 0) {
        fprintf(stderr, "clscan-bench: error writing %s\n", path);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------- first call -- */

/* --first-call: see the top of the file. Returns the exit status. */
static int first_call(const options *o)
{
    bench b = {0};
    if (find_device(&b, o->platform, o->device, 0)) return 1;
    row r = {0};
    r.call = CALL_SELECT_IF;
    r.type = o->ntypes ? (clscan_type)o->types[0] : CLSCAN_INT32;
    r.n = o->nsizes ? o->sizes[0] : (size_t)1 << 20;
    r.predicate = o->predicate ? o->predicate : is_float(r.type) ? "x > 0" : "(x & 1) == 0";
    const size_t bytes = r.n * clscan_type_size(r.type);
    const int warm = o->first_call == 2;
    void *in = malloc(bytes), *got = malloc(bytes);
    cl_mem src = NULL, dst = NULL, count = NULL;
    cl_ulong kept = 0;
    int bad = 1;
    char msg[256] = "";
    const char *check = "ERROR", *what = "";
    cl_int err = CL_SUCCESS;
    clscan_status s = CLSCAN_SUCCESS;
    double t[10] = {0};
    unsigned long before[CLSCAN_EXT_CACHE_STAT_COUNT];
    for (int i = 0; i < CLSCAN_EXT_CACHE_STAT_COUNT; i++)
        before[i] = clscan_ext_cache_stat((clscan_ext_cache_counter)i);
#define FC_STEP(call, name) \
    if (err == CL_SUCCESS && s == CLSCAN_SUCCESS && (what = (name), 1)) call

    if (!in || !got) goto done;
    t[0] = now_ns();
    b.cl_ctx = clCreateContext(NULL, 1, &b.device, NULL, NULL, &err);
    FC_STEP(b.queue = clCreateCommandQueue(b.cl_ctx, b.device, 0, &err), "clCreateCommandQueue");
    t[1] = now_ns();
    FC_STEP(s = clscan_context_create(b.cl_ctx, b.device, &b.ctx), "clscan_context_create");
    t[2] = now_ns();
    fill_input(in, r.n, r.type, CLSCAN_OP_ADD, 20261124u);
    FC_STEP(src = upload(&b, in, bytes, &err), "upload");
    FC_STEP(dst = clCreateBuffer(b.cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err), "clCreateBuffer");
    FC_STEP(count = clCreateBuffer(b.cl_ctx, CL_MEM_READ_WRITE, 8, NULL, &err), "clCreateBuffer");
    t[3] = now_ns();
    if (warm) FC_STEP(s = clscan_context_warm(b.ctx), "clscan_context_warm");
    t[4] = now_ns();
    FC_STEP(s = clscan_exclusive_scan(b.ctx, b.queue, src, 0, dst, 0, r.n, r.type, CLSCAN_OP_ADD,
                                      0, NULL, NULL), "clscan_exclusive_scan");
    t[5] = now_ns();
    FC_STEP(err = clFinish(b.queue), "clFinish");
    t[6] = now_ns();
    FC_STEP(err = clEnqueueReadBuffer(b.queue, dst, CL_TRUE, 0, bytes, got, 0, NULL, NULL),
            "read the scan");
    if (err == CL_SUCCESS && s == CLSCAN_SUCCESS &&
        !check_scan(in, got, r.n, r.type, CLSCAN_OP_ADD, 0, 0, msg, sizeof msg)) {
        check = "FAIL";
        goto done;
    }
    FC_STEP(err = poison(b.queue, dst, bytes), "poison");
    t[7] = now_ns();
    FC_STEP(s = clscan_select_if(b.ctx, b.queue, src, 0, dst, 0, count, r.n, r.type, r.predicate,
                                 0, NULL, NULL), "clscan_select_if");
    t[8] = now_ns();
    FC_STEP(err = clFinish(b.queue), "clFinish");
    t[9] = now_ns();
    FC_STEP(err = clEnqueueReadBuffer(b.queue, dst, CL_TRUE, 0, bytes, got, 0, NULL, NULL),
            "read the select-if");
    FC_STEP(err = clEnqueueReadBuffer(b.queue, count, CL_TRUE, 0, 8, &kept, 0, NULL, NULL),
            "read the count");
    if (err == CL_SUCCESS && s == CLSCAN_SUCCESS) {
        check = check_compaction(&r, in, NULL, got, kept, msg, sizeof msg);
        bad = !strcmp(check, "FAIL");
    }
#undef FC_STEP
done:
    if (err != CL_SUCCESS || s != CLSCAN_SUCCESS)
        snprintf(msg, sizeof msg, "%s: %s%s%s", what, clscan_status_string(err ? err : s),
                 s ? ": " : "", s ? clscan_context_last_error(b.ctx) : "");
    const char *bank_probe = "unknown";
    if (b.ctx) {
        char line[512] = "", *text = malloc(clscan_context_describe(b.ctx, NULL, 0) + 1);
        if (text) {
            clscan_context_describe(b.ctx, text, clscan_context_describe(b.ctx, NULL, 0) + 1);
            const char *at = strstr(text, "disk cache:");
            if (at) snprintf(line, sizeof line, "%.*s", (int)strcspn(at, "\n"), at);
            /* Where the bank probe's result came from (describe's "bank probe:" line). */
            char probe[160] = "";
            const char *bp = strstr(text, "bank probe:");
            if (bp) snprintf(probe, sizeof probe, "%.*s", (int)strcspn(bp, "\n"), bp);
            bank_probe = !bp                                          ? "unknown"
                         : strstr(probe, "loaded from the disk cache") ? "loaded"
                         : strstr(probe, "earlier in this process")    ? "remembered"
                         : strstr(probe, "measured now")               ? "measured"
                         : strstr(probe, "not run")                    ? "not-run"
                                                                       : "unknown";
        }
        info_string(0, b.platform, CL_PLATFORM_NAME, b.platform_name, sizeof b.platform_name);
        info_string(1, b.device, CL_DEVICE_NAME, b.device_name, sizeof b.device_name);
        info_string(1, b.device, CL_DRIVER_VERSION, b.driver, sizeof b.driver);
        printf("clscan-bench --first-call %s: %s, %s, driver %s; %s, select-if %s, n %zu; %s\n",
               warm ? "warm" : "calls", b.device_name, b.platform_name, b.driver,
               clscan_type_name(r.type), r.predicate, r.n, line);
        free(text);
    }
    printf("first-call: mode=%s cl_setup_ms=%.2f create_ms=%.2f warm_ms=%.2f scan_call_ms=%.2f "
           "scan_total_ms=%.2f select_call_ms=%.2f select_total_ms=%.2f",
           warm ? "warm" : "calls", (t[1] - t[0]) / 1e6, (t[2] - t[1]) / 1e6,
           (t[4] - t[3]) / 1e6, (t[5] - t[4]) / 1e6, (t[6] - t[4]) / 1e6, (t[8] - t[7]) / 1e6,
           (t[9] - t[7]) / 1e6);
    for (int i = 0; i < CLSCAN_EXT_CACHE_STAT_COUNT; i++)
        printf(" %s=%lu", clscan_ext_cache_stat_name((clscan_ext_cache_counter)i),
               clscan_ext_cache_stat((clscan_ext_cache_counter)i) - before[i]);
    printf(" bank_probe=%s check=%s%s%s\n", bank_probe, check, msg[0] ? " note=" : "", msg);
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    if (count) clReleaseMemObject(count);
    close_bench(&b);
    free(in);
    free(got);
    return bad;
}

/* ------------------------------------------------------------- main --------- */

int main(int argc, char **argv)
{
    options o = {.platform = -1, .device = -1, .repeats = 50, .warmup = 5, .keep = 0.5,
                 .batched = 1, .rotations = MAX_ROTATE};
    if (parse_args(&o, argc, argv)) return 2;
    if (o.first_call && !o.list) return first_call(&o);
    if (!o.ntypes) o.types[o.ntypes++] = CLSCAN_INT32;
    if (!o.ncalls) o.calls[o.ncalls++] = CALL_SCAN;
    if (!o.nops) o.ops[o.nops++] = CLSCAN_OP_ADD;
    if (!o.nmodes) o.modes[o.nmodes++] = 0;
    if (!o.nsizes) {
        o.sizes[o.nsizes++] = (size_t)1 << 16;
        o.sizes[o.nsizes++] = (size_t)1 << 20;
        o.sizes[o.nsizes++] = (size_t)1 << 24;
    }
    bench b = {0};
    if (o.list) return find_device(&b, o.platform, o.device, 1) ? 1 : 0;
    if (find_device(&b, o.platform, o.device, 0) || open_bench(&b)) {
        close_bench(&b);
        return 1;
    }
    printf("clscan-bench: platform %s; device %s; %s; driver %s; global memory %llu MiB, "
           "largest buffer %llu MiB\n%s",
           b.platform_name, b.device_name, b.version, b.driver,
           (unsigned long long)(b.global_mem >> 20), (unsigned long long)(b.max_alloc >> 20),
           b.describe);
    fflush(stdout);

    if (!o.nalgos) o.algos[o.nalgos++] = (int)clscan_ext_context_algorithm(b.ctx);
    size_t total = 0, count = 0, bad = 0; /* rows: (op, mode) pairs of scans, compactions */
    for (size_t t = 0; t < o.ntypes; t++)
        for (size_t c = 0; c < o.ncalls; c++) total += rows_for_type(&o, o.calls[c], t);
    total *= o.nalgos * o.nsizes;
    row *rows = calloc(total, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "clscan-bench: out of memory for %zu rows\n", total);
        close_bench(&b);
        return 1;
    }
    int stop = 0;
    for (size_t t = 0; t < o.ntypes && !stop; t++)
        for (size_t c = 0; c < o.ncalls && !stop; c++)
            for (size_t p = 0; p < rows_for_type(&o, o.calls[c], t) && !stop; p++)
                for (size_t g = 0; g < o.nalgos * o.nsizes && !stop; g++) {
                    row *r = &rows[count++];
                    char n[32], label[32];
                    const int own = own_type(o.calls[c]);
                    r->type = (clscan_type)(own >= 0 ? own : o.types[t]);
                    r->call = o.calls[c];
                    /* (host-stream: p counts (op, mode, chunk), the chunk fastest) */
                    const int streamed = r->call == CALL_HOST_STREAM;
                    const size_t nc = streamed ? stream_chunks(&o) : 1, q = p / nc;
                    r->op = !takes_op(r->call)   ? CLSCAN_OP_ADD
                            : takes_mode(r->call) ? (clscan_op)o.ops[q / o.nmodes]
                                                  : (clscan_op)o.ops[q];
                    r->inclusive = takes_mode(r->call) || general_case(r->call) >= 0
                                       ? o.modes[q % o.nmodes]
                                       : r->call == CALL_REDUCE;
                    r->chunk = streamed && o.nchunks ? o.chunks[p % nc] : 0;
                    r->predicate = !takes_predicate(r->call) ? NULL
                                 : o.predicate                ? o.predicate
                                 : is_float(r->type)          ? "x > 0"
                                                              : "(x & 1) == 0";
                    r->keep = takes_fraction(r->call) ? o.keep : 0;
                    r->algo = (clscan_algorithm)o.algos[g / o.nsizes];
                    r->n = o.sizes[g % o.nsizes];
                    stop = (streamed ? run_stream_row : run_row)(&b, &o, r) != 0;
                    size_text(r->n, n, sizeof n);
                    fprintf(stderr, "[%zu/%zu] %s %s %s %s: %s", count, total,
                            clscan_type_name(r->type), row_label(r, label, sizeof label),
                            clscan_ext_algorithm_name(r->algo), n, r->check);
                    if (measured(r) && streamed)
                        fprintf(stderr, ", %u reps, chunk %zu (%s host memory), wall %.1f us: "
                                "%.2f GB/s; H2D %.2f GB/s (%.1f%%), D2H %.2f GB/s", r->repeats,
                                r->chunk_used, r->host_memory, r->wall.med / 1e3,
                                stream_gbps(r), h2d_gbps(r), stream_pct(r), d2h_gbps(r));
                    else if (measured(r))
                        fprintf(stderr, ", %u reps, %zu inputs, %u kernel(s)/call, %s %.1f us, "
                                "copy %.1f us", r->repeats, r->k, r->kernels,
                                r->clock_ok ? "device" : "wall times: call",
                                (r->clock_ok ? r->dev : r->wall).med / 1e3,
                                (r->clock_ok ? r->copy : r->copy_wall).med / 1e3);
                    if (measured(r) && r->batch_k)
                        fprintf(stderr,
                                ", batched %.1f us (copy %.1f us, x%.2f; K %zu; enqueue %.1f "
                                "us, the first %d %.1f us)",
                                r->batched.med / 1e3, r->copy_batched.med / 1e3,
                                batched_ratio(r), r->batch_k, r->enqueued.med / 1e3,
                                FIRST_CALLS, r->first_enqueued.med / 1e3);
                    if (measured(r) && r->call && !streamed)
                        fprintf(stderr, ", kept %llu", r->kept);
                    fprintf(stderr, "%s%s\n", r->note[0] ? ": " : "", r->note);
                    bad += !strcmp(r->check, "FAIL") || !strcmp(r->check, "ERROR");
                }
    if (stop) fprintf(stderr, "clscan-bench: stopped after an error\n");
    if (bad) fprintf(stderr, "clscan-bench: %zu of %zu rows FAILED or hit an error\n", bad, count);
    fflush(stderr);
    print_table(&b, rows, count);
    int io = (o.csv && write_file(o.csv, &b, &o, rows, count, 1)) |
             (o.json && write_file(o.json, &b, &o, rows, count, 0));
    free(rows);
    close_bench(&b);
    return bad || io ? 1 : 0;
}
