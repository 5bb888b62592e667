/* clscan-selftest.c - checks every scan (type x op x inclusive/exclusive x sizes x layouts)
 * and reduction (type x op x sizes), the general scans and their reductions, the
 * histograms, every stream compaction (kind x type x pattern x sizes x layouts) and
 * every radix sort (keys or pairs x key type x key pattern x sizes x layouts) on every
 * OpenCL device found against a host reference; prints what was detected and tables. */
/* SPDX-License-Identifier: MIT */
#include <clscan.h>

#include "verify.h"
#include "verify_general.h"
#include "verify_histogram.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

enum { CLSCAN_FMT_TEXT, CLSCAN_FMT_CSV, CLSCAN_FMT_JSON };

typedef struct clscan_selftest {
    long platform, device; /* -1: all */
    const char *platform_arg, *device_arg; /* --platform/--device as given (NULL: none) */
    int progress;        /* a progress line on stderr (a terminal, text format) */
    int quick, list, verbose, format;
    unsigned types, ops; /* bit masks of the types and operators to check */
    unsigned value_types; /* bit mask of the value types sort_pairs takes in turn */
    unsigned kinds;      /* bit mask of the compaction kinds (clscan_verify_kind) to check */
    unsigned long long min_size, max_size; /* sizes outside these are left out */
    uint64_t seed;
    FILE *info;          /* human-readable text: stdout in text mode, else stderr */
    int shown;           /* a progress line is on the terminal */
    unsigned long passed, failed, skipped;
    int records;         /* csv/json records written so far */
} clscan_selftest;

static void clscan_usage(FILE *f)
{
    fputs("usage: clscan-selftest [options]\n"
          "Checks libclscan's scans and compactions on every OpenCL device found (or the\n"
          "ones chosen).\n"
          "  --list             list platforms and devices with their indices, then exit\n"
          "  --platform P       only platform P: an index of --list, or a part of the\n"
          "                     platform's name or vendor in any case (pocl, rusticl,\n"
          "                     nvidia)\n"
          "  --device D         only device D: an index (of each platform run), or a part\n"
          "                     of one device's name in any case\n"
          "  --quick            a short size list (for CI and Oclgrind); compactions then\n"
          "                     run one pattern per size and layout, in turn\n"
          "  --types LIST       only these types (int32,uint32,int64,uint64,float,double)\n"
          "  --value-types LIST the value types sort_pairs takes in turn (default: all;\n"
          "                     under Oclgrind one size of value a process, as below)\n"
          "  --ops LIST         only these scan operators (add,mul,min,max,and,or,xor),\n"
          "                     or none: no scans (each operator's cells count its\n"
          "                     reductions, clscan_reduce, with its scans)\n"
          "  --kinds LIST       only these compactions, sorts, general scans and histograms\n"
          "                     (select_flagged,select_if,partition_if,unique,sort_keys,\n"
          "                     sort_pairs; general: every case of custom operators and\n"
          "                     types, transforms, segments, its reduction and reduction\n"
          "                     by key, and run-length encoding;\n"
          "                     histogram: even and level bins, 32- and 64-bit counts;\n"
          "                     run_length: run-length encoding alone),\n"
          "                     or none. Default: all of them. Under Oclgrind name the\n"
          "                     kinds without the sorts: they are slow there, and trip\n"
          "                     its shadow-memory bug with a grown scratch buffer\n"
          "                     (docs/ALGORITHMS.md)\n"
          "  --max-size N       leave out the sizes above N (for slow simulators)\n"
          "  --min-size N       leave out the sizes below N (with --max-size: one size\n"
          "                     a process, for Oclgrind, docs/IMPLEMENTATION-ISSUES.md)\n"
          "  --seed S           input seed (default: from the clock; always printed)\n"
          "  --format F         text (default), csv or json: one record per case on\n"
          "                     stdout; the rest, and the summary line, on stderr\n"
          "  --verbose          print every case\n"
          "On a terminal (stderr), text format, one line on stderr shows the progress: the\n"
          "device, what runs, checks done of the device's total, time spent and left.\n"
          "  --help             this text\n"
          "Exit status: 0 all passed, 1 a failure or nothing ran, 2 usage error.\n",
          f);
}

/* A usage error: one line saying what was wrong, and where the help is; returns 2. */
static int clscan_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "clscan-selftest: ");
    fprintf(stderr, fmt, arg);
    fputs("\ntry 'clscan-selftest --help'\n", stderr);
    return 2;
}

/* Parses a non-negative decimal number; 0 on success. */
static int clscan_parse_num(const char *s, unsigned long long *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return -1;
    *out = strtoull(s, &end, 0);
    return *end ? -1 : 0;
}

enum { CLSCAN_NAMES_TYPES, CLSCAN_NAMES_OPS, CLSCAN_NAMES_KINDS, CLSCAN_NAMES_SORTS };

/* --kinds bits: the compaction kinds, then the sort kinds from this bit on. */
#define CLSCAN_SORT_KIND_BIT CLSCAN_VERIFY_KIND_COUNT
#define CLSCAN_COMPACTION_KINDS ((1u << CLSCAN_VERIFY_KIND_COUNT) - 1)
/* ... and the general scans (every case of tools/verify_general.c) after the sorts. */
#define CLSCAN_GENERAL_KIND_BIT (CLSCAN_SORT_KIND_BIT + CLSCAN_VERIFY_SORT_KIND_COUNT)
/* ... and the histograms after them. */
#define CLSCAN_HIST_KIND_BIT (CLSCAN_GENERAL_KIND_BIT + 1)
/* ... and run-length encoding alone (the general kind runs it too). */
#define CLSCAN_RLE_KIND_BIT (CLSCAN_HIST_KIND_BIT + 1)
#define CLSCAN_RLE_KINDS ((1u << CLSCAN_GENERAL_KIND_BIT) | (1u << CLSCAN_RLE_KIND_BIT))

/* Name k of a list of names (a type, an operator, a compaction or sort kind: --kinds
 * names the sorts after the compactions; a sort table's columns are the sorts alone). */
static const char *clscan_list_name(int which, int k)
{
    if (which == CLSCAN_NAMES_KINDS && k == CLSCAN_GENERAL_KIND_BIT)
        return "general";
    if (which == CLSCAN_NAMES_KINDS && k == CLSCAN_HIST_KIND_BIT)
        return "histogram";
    if (which == CLSCAN_NAMES_KINDS && k == CLSCAN_RLE_KIND_BIT)
        return "run_length";
    if (which == CLSCAN_NAMES_KINDS && k >= CLSCAN_SORT_KIND_BIT)
        return clscan_verify_sort_kind_name((clscan_verify_sort_kind)(k - CLSCAN_SORT_KIND_BIT));
    return which == CLSCAN_NAMES_TYPES ? clscan_type_name((clscan_type)k)
           : which == CLSCAN_NAMES_OPS ? clscan_op_name((clscan_op)k)
           : which == CLSCAN_NAMES_SORTS
               ? clscan_verify_sort_kind_name((clscan_verify_sort_kind)k)
               : clscan_verify_kind_name((clscan_verify_kind)k);
}

/* Parses a comma-separated list of type, operator or kind names (`which`) into a bit
 * mask, "none" (operators and kinds) into 0; returns NULL, or the list if a name is
 * unknown. */
static const char *clscan_parse_names(const char *list, int which, unsigned *mask)
{
    *mask = 0;
    if (which != CLSCAN_NAMES_TYPES && !strcmp(list, "none"))
        return NULL;
    const int count = which == CLSCAN_NAMES_TYPES ? CLSCAN_TYPE_COUNT
                      : which == CLSCAN_NAMES_OPS ? CLSCAN_OP_COUNT
                                                  : CLSCAN_RLE_KIND_BIT + 1;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int k = 0; k < count && !found; k++) {
            const char *name = clscan_list_name(which, k);
            if (strlen(name) == len && !strncmp(p, name, len)) {
                *mask |= 1u << k;
                found = 1;
            }
        }
        if (!found)
            return list;
        p += len + (p[len] == ',');
    }
    return *mask ? NULL : list;
}

static int clscan_parse_args(clscan_selftest *t, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        unsigned long long v;
        if (!strcmp(a, "--help")) {
            clscan_usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--list")) {
            t->list = 1;
        } else if (!strcmp(a, "--quick")) {
            t->quick = 1;
        } else if (!strcmp(a, "--verbose")) {
            t->verbose = 1;
        } else if (!strcmp(a, "--platform") || !strcmp(a, "--device") ||
                   !strcmp(a, "--seed") || !strcmp(a, "--format") ||
                   !strcmp(a, "--types") || !strcmp(a, "--ops") ||
                   !strcmp(a, "--kinds") || !strcmp(a, "--value-types") ||
                   !strcmp(a, "--max-size") ||
                   !strcmp(a, "--min-size")) {
            const char *val = i + 1 < argc ? argv[++i] : NULL;
            if (!val)
                return clscan_usage_error("%s needs a value", a);
            if (!strcmp(a, "--types") || !strcmp(a, "--ops") || !strcmp(a, "--kinds") ||
                !strcmp(a, "--value-types")) {
                const int which = a[2] == 't' || a[2] == 'v' ? CLSCAN_NAMES_TYPES
                                  : a[2] == 'o'              ? CLSCAN_NAMES_OPS
                                                             : CLSCAN_NAMES_KINDS;
                const char *bad = clscan_parse_names(val, which,
                                                     a[2] == 'v' ? &t->value_types
                                                     : a[2] == 't' ? &t->types
                                                     : which == CLSCAN_NAMES_OPS ? &t->ops
                                                                                 : &t->kinds);
                if (bad)
                    return clscan_usage_error("unknown name in '%s'", bad);
            } else if (!strcmp(a, "--format")) {
                if (!strcmp(val, "text"))
                    t->format = CLSCAN_FMT_TEXT;
                else if (!strcmp(val, "csv"))
                    t->format = CLSCAN_FMT_CSV;
                else if (!strcmp(val, "json"))
                    t->format = CLSCAN_FMT_JSON;
                else
                    return clscan_usage_error("unknown format '%s'", val);
            } else if (!strcmp(a, "--platform") || !strcmp(a, "--device")) {
                if (!*val)
                    return clscan_usage_error("%s needs an index or a part of a name", a);
                *(a[2] == 'p' ? &t->platform_arg : &t->device_arg) = val; /* (main resolves) */
            } else if (clscan_parse_num(val, &v)) {
                return clscan_usage_error("'%s' is not a number", val);
            } else if (!strcmp(a, "--seed")) {
                t->seed = v;
            } else if (!strcmp(a, "--max-size")) {
                t->max_size = v;
            } else {
                t->min_size = v;
            }
        } else {
            return clscan_usage_error("unknown option '%s'", a);
        }
    }
    return 0;
}

/* A device or platform info string (malloc'd, never NULL). */
static char *clscan_info_string(int is_device, void *obj, cl_uint param)
{
    size_t len = 0;
    cl_int err = is_device ? clGetDeviceInfo((cl_device_id)obj, param, 0, NULL, &len)
                           : clGetPlatformInfo((cl_platform_id)obj, param, 0, NULL, &len);
    char *s = malloc(len + 1);
    if (!s)
        abort();
    s[0] = '\0';
    if (err == CL_SUCCESS && len > 0)
        err = is_device ? clGetDeviceInfo((cl_device_id)obj, param, len, s, NULL)
                        : clGetPlatformInfo((cl_platform_id)obj, param, len, s, NULL);
    s[err == CL_SUCCESS ? len : 0] = '\0';
    return s;
}

/* Writes s as a CSV field or a JSON string. */
static void clscan_put_escaped(const char *s, int format)
{
    if (format == CLSCAN_FMT_CSV) {
        putchar('"');
        for (; *s; s++) {
            if (*s == '"')
                putchar('"');
            putchar(*s);
        }
        putchar('"');
        return;
    }
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", stdout);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

static const char *const clscan_result_names[] = {"pass", "fail", "skip"};

/* What a csv/json record says about one case: mode is "inclusive" or "exclusive" for a
 * scan, the kind for a compaction; op is "-" for a compaction, pattern "-" for a scan. */
typedef struct clscan_rec {
    const char *type, *op, *mode, *pattern;
    size_t n, src_offset, flags_offset, dst_offset;
    int in_place;
} clscan_rec;

/* One csv/json record. rec is NULL for a device-level failure. */
static void clscan_record(clscan_selftest *t, cl_uint p, cl_uint d, const char *dev_name,
                          const clscan_rec *rec, clscan_verify_result r, const char *msg)
{
    static const clscan_rec none = {"-", "-", "-", "-", 0, 0, 0, 0, 0};
    if (!rec)
        rec = &none;
    if (t->format == CLSCAN_FMT_CSV) {
        if (t->records++ == 0)
            puts("platform,device,device_name,type,op,mode,pattern,n,src_offset,flags_offset,"
                 "dst_offset,in_place,result,seed,message");
        printf("%u,%u,", p, d);
        clscan_put_escaped(dev_name, t->format);
        printf(",%s,%s,%s,", rec->type, rec->op, rec->mode);
        clscan_put_escaped(rec->pattern, t->format);
        printf(",%zu,%zu,%zu,%zu,%d,%s,%" PRIu64 ",", rec->n, rec->src_offset,
               rec->flags_offset, rec->dst_offset, rec->in_place, clscan_result_names[r],
               t->seed);
        clscan_put_escaped(msg, t->format);
        putchar('\n');
    } else {
        fputs(t->records++ == 0 ? "[\n" : ",\n", stdout);
        printf("{\"platform\": %u, \"device\": %u, \"device_name\": ", p, d);
        clscan_put_escaped(dev_name, t->format);
        printf(", \"type\": \"%s\", \"op\": \"%s\", \"mode\": \"%s\", \"pattern\": ", rec->type,
               rec->op, rec->mode);
        clscan_put_escaped(rec->pattern, t->format);
        printf(", \"n\": %zu, \"src_offset\": %zu, \"flags_offset\": %zu, \"dst_offset\": %zu, "
               "\"in_place\": %s, \"result\": \"%s\", \"seed\": %" PRIu64 ", \"message\": ",
               rec->n, rec->src_offset, rec->flags_offset, rec->dst_offset,
               rec->in_place ? "true" : "false", clscan_result_names[r], t->seed);
        clscan_put_escaped(msg, t->format);
        putchar('}');
    }
}

/* Per (type, op) or (type, kind) tallies for the tables. */
typedef struct clscan_cell {
    unsigned pass, fail, skip;
} clscan_cell;

/* A table of cells[type * ncols + col], columns named by clscan_list_name(which, col). */
static void clscan_print_table(FILE *f, const clscan_cell *cells, int which, int ncols,
                               int width)
{
    fprintf(f, "  %-8s", "");
    for (int k = 0; k < ncols; k++)
        fprintf(f, " %-*s", width, clscan_list_name(which, k));
    fputc('\n', f);
    for (int ty = 0; ty < CLSCAN_TYPE_COUNT; ty++) {
        fprintf(f, "  %-8s", clscan_type_name((clscan_type)ty));
        for (int k = 0; k < ncols; k++) {
            const clscan_cell *c = &cells[ty * ncols + k];
            char cell[32];
            int refused = which == CLSCAN_NAMES_OPS &&
                          clscan_verify_expect_unsupported((clscan_type)ty, (clscan_op)k);
            if (c->fail)
                snprintf(cell, sizeof cell, "FAIL %u/%u", c->fail, c->fail + c->pass);
            else if (c->pass && c->skip)
                snprintf(cell, sizeof cell, "ok %u +%u skip", c->pass, c->skip);
            else if (c->pass)
                snprintf(cell, sizeof cell, "%s %u", refused ? "refused" : "ok", c->pass);
            else
                snprintf(cell, sizeof cell, c->skip ? "skip" : "-");
            fprintf(f, " %-*s", width, cell);
        }
        fputc('\n', f);
    }
}

/* Where one device's cases are counted and reported. */
typedef struct clscan_device_run {
    clscan_selftest *t;
    cl_uint p, d;
    const char *dev_name;
    clscan_cell scans[CLSCAN_TYPE_COUNT * CLSCAN_OP_COUNT];
    clscan_cell compactions[CLSCAN_TYPE_COUNT * CLSCAN_VERIFY_KIND_COUNT];
    clscan_cell sorts[CLSCAN_TYPE_COUNT * CLSCAN_VERIFY_SORT_KIND_COUNT];
    clscan_cell general[CLSCAN_VERIFY_GEN_CASES];
    clscan_cell histograms[CLSCAN_TYPE_COUNT];
    clscan_cell rle[CLSCAN_TYPE_COUNT];
    char *failures; /* newline-separated failure lines */
    size_t failures_len;
    int counting;            /* the run functions only count the checks into total */
    unsigned long total, done; /* checks on this device: all, and done so far */
    char phase[64];          /* what runs now, for the progress line */
    double started, last_shown; /* clscan_now() at the first check, at the last line */
} clscan_device_run;

static double clscan_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Takes the progress line off the terminal, before other text is written there. */
static void clscan_progress_clear(clscan_selftest *t)
{
    if (t->shown) {
        fflush(stdout);
        fputs("\r\033[K", stderr);
        t->shown = 0;
    }
}

/* Seconds as m:ss or h:mm:ss. */
static void clscan_fmt_time(char *buf, size_t size, double sec)
{
    const unsigned long s = (unsigned long)(sec + 0.5);
    if (s >= 3600)
        snprintf(buf, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, size, "%lu:%02lu", s / 60, s % 60);
}

/* The progress line (on a terminal, at most four times a second unless `force`): the
 * device, what runs, checks done of the device's total, time spent and an estimate of
 * the time left (from the rate so far). */
static void clscan_progress(clscan_device_run *run, int force)
{
    clscan_selftest *t = run->t;
    if (!t->progress || run->counting)
        return;
    const double now = clscan_now();
    if (!force && now - run->last_shown < 0.25)
        return;
    run->last_shown = now;
    char spent[24], left[24] = "?";
    clscan_fmt_time(spent, sizeof spent, now - run->started);
    if (run->done > 0 && run->total >= run->done)
        clscan_fmt_time(left, sizeof left,
                        (now - run->started) * (double)(run->total - run->done) /
                            (double)run->done);
    char head[160], tail[96];
    snprintf(head, sizeof head, "  [%u.%u %.24s] %s: ", run->p, run->d, run->dev_name,
             run->phase);
    snprintf(tail, sizeof tail, "%lu/%lu checks, %s spent, ~%s left", run->done, run->total,
             spent, left);
    /* One line of the terminal, or the \r would not take it back: the head gives way. */
    struct winsize ws;
    size_t cols = sizeof head + sizeof tail;
    if (ioctl(fileno(stderr), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
        cols = ws.ws_col - 1u;
    const size_t tl = strlen(tail);
    if (strlen(head) + tl > cols) {
        const size_t keep = tl + 2 < cols ? cols - tl - 2 : 0;
        head[keep] = '\0';
        if (keep)
            strcat(head, ": ");
    }
    fflush(stdout);
    fprintf(stderr, "\r\033[K%s%.*s", head, (int)(cols < tl ? cols : tl), tail);
    t->shown = 1;
}

/* Names what runs now (printf-style) and shows it. */
static void clscan_phase(clscan_device_run *run, const char *fmt, const char *a, const char *b)
{
    snprintf(run->phase, sizeof run->phase, fmt, a, b);
    clscan_progress(run, 1);
}

/* Counts one case in cell and the totals, writes its record, prints it if it failed (or
 * with --verbose) and keeps its line for the failure list. */
static void clscan_tally(clscan_device_run *run, clscan_cell *cell, const clscan_rec *rec,
                         clscan_verify_result r, const char *line, const char *msg)
{
    clscan_selftest *t = run->t;
    if (run->counting) {
        run->total++;
        return;
    }
    if (r == CLSCAN_VERIFY_PASS)
        cell->pass++, t->passed++;
    else if (r == CLSCAN_VERIFY_SKIP)
        cell->skip++, t->skipped++;
    else
        cell->fail++, t->failed++;
    if (r == CLSCAN_VERIFY_FAIL) {
        size_t len = strlen(line);
        char *grown = realloc(run->failures, run->failures_len + len + 2);
        if (grown) {
            run->failures = grown;
            memcpy(run->failures + run->failures_len, line, len);
            run->failures_len += len;
            run->failures[run->failures_len++] = '\n';
            run->failures[run->failures_len] = '\0';
        }
    }
    if (t->format != CLSCAN_FMT_TEXT)
        clscan_record(t, run->p, run->d, run->dev_name, rec, r, msg);
    if (t->verbose || r == CLSCAN_VERIFY_FAIL) {
        clscan_progress_clear(t);
        fprintf(t->info, "  %s %s\n", r == CLSCAN_VERIFY_FAIL ? "FAIL" :
                r == CLSCAN_VERIFY_SKIP ? "skip" : "ok  ", line);
    }
    run->done++;
    clscan_progress(run, 0);
}

/* Writes into out the sizes of list (quick or full) from --min-size to --max-size; returns
 * how many, after printing them on a line that starts with `title`. */
static size_t clscan_pick_sizes(clscan_selftest *t, int compaction, const char *title,
                                const char *legend, clscan_verify_size *out, size_t cap)
{
    size_t nsizes = compaction ? clscan_verify_compact_sizes(t->quick, t->seed, out, cap)
                               : clscan_verify_sizes(t->quick, t->seed, out, cap);
    size_t kept = 0;
    for (size_t s = 0; s < nsizes; s++)
        if (out[s].n >= t->min_size && out[s].n <= t->max_size)
            out[kept++] = out[s];
    fprintf(t->info, "  %s:", title);
    for (size_t s = 0; s < kept; s++)
        fprintf(t->info, " %zu%s", out[s].n, out[s].all_layouts ? "*" : "");
    fprintf(t->info, "  %s\n", legend);
    return kept;
}

/* Every scan of the type: the operators chosen, both modes, all sizes and layouts. */
static void clscan_run_scans(clscan_device_run *run, clscan_context *ctx, cl_context cl_ctx,
                             cl_command_queue queue, int ty, const clscan_verify_size *sizes,
                             size_t nsizes)
{
    clscan_selftest *t = run->t;
    char msg[1024] = "", line[1400];
    for (int o = 0; o < CLSCAN_OP_COUNT; o++) {
        if (!(t->ops >> o & 1))
            continue;
        clscan_phase(run, "%s %s scans", clscan_type_name((clscan_type)ty),
                     clscan_op_name((clscan_op)o));
        for (int incl = 1; incl >= 0; incl--) {
            for (size_t s = 0; s < nsizes; s++) {
                int layouts = sizes[s].all_layouts ? CLSCAN_VERIFY_LAYOUT_COUNT : 1;
                for (int l = 0; l < layouts; l++) {
                    const clscan_verify_layout *lay = &clscan_verify_layouts[l];
                    clscan_verify_case c = {(clscan_type)ty, (clscan_op)o, incl, sizes[s].n,
                                            lay->src_offset, lay->dst_offset, lay->in_place,
                                            0};
                    c.seed = clscan_verify_mix(
                        t->seed, ((uint64_t)sizes[s].n << 24) ^
                                     (uint64_t)(ty | o << 4 | incl << 8 | l << 12));
                    clscan_verify_result r =
                        run->counting ? CLSCAN_VERIFY_SKIP
                        : clscan_verify_run_case(ctx, cl_ctx, queue, &c, msg, sizeof msg);
                    size_t so = c.in_place ? c.dst_offset : c.src_offset;
                    const char *mode = incl ? "inclusive" : "exclusive";
                    snprintf(line, sizeof line,
                             "%s %s %s n=%zu src_offset=%zu dst_offset=%zu in_place=%d "
                             "(seed %" PRIu64 "): %s",
                             clscan_type_name(c.type), clscan_op_name(c.op), mode, c.n, so,
                             c.dst_offset, c.in_place, t->seed, msg);
                    const clscan_rec rec = {clscan_type_name(c.type), clscan_op_name(c.op),
                                            mode, "-", c.n, so, 0, c.dst_offset, c.in_place};
                    clscan_tally(run, &run->scans[ty * CLSCAN_OP_COUNT + o], &rec, r, line,
                                 msg);
                }
            }
        }
        /* The reduction with the operator: every size, offsets 0 and 3 / 17. */
        for (size_t s = 0; s < nsizes; s++)
            for (int l = 0; l < (sizes[s].all_layouts ? 2 : 1); l++) {
                const clscan_verify_layout *lay = &clscan_verify_layouts[l];
                clscan_verify_case c = {(clscan_type)ty, (clscan_op)o, 1, sizes[s].n,
                                        lay->src_offset, lay->dst_offset, 0, 0};
                c.seed = clscan_verify_mix(t->seed, ((uint64_t)sizes[s].n << 24) ^
                                                        (uint64_t)(ty | o << 4 | 3 << 8 | l << 12));
                clscan_verify_result r =
                    run->counting ? CLSCAN_VERIFY_SKIP
                    : clscan_verify_run_reduce(ctx, cl_ctx, queue, &c, msg, sizeof msg);
                snprintf(line, sizeof line,
                         "%s %s reduce n=%zu src_offset=%zu result_offset=%zu (seed %" PRIu64
                         "): %s",
                         clscan_type_name(c.type), clscan_op_name(c.op), c.n, c.src_offset,
                         c.dst_offset, t->seed, msg);
                const clscan_rec rec = {clscan_type_name(c.type), clscan_op_name(c.op), "reduce",
                                        "-", c.n, c.src_offset, 0, c.dst_offset, 0};
                clscan_tally(run, &run->scans[ty * CLSCAN_OP_COUNT + o], &rec, r, line, msg);
            }
    }
}

/* Every compaction of the type: the kinds chosen, all sizes and layouts, with every
 * pattern that applies (--quick: one at each size and layout, in turn). */
static void clscan_run_compactions(clscan_device_run *run, clscan_context *ctx,
                                   cl_context cl_ctx, cl_command_queue queue, int ty,
                                   const clscan_verify_size *sizes, size_t nsizes)
{
    clscan_selftest *t = run->t;
    char msg[1024] = "", line[1500], pname[96];
    for (int kind = 0; kind < CLSCAN_VERIFY_KIND_COUNT; kind++) {
        if (!(t->kinds >> kind & 1))
            continue;
        clscan_phase(run, "%s %s", clscan_type_name((clscan_type)ty),
                     clscan_verify_kind_name((clscan_verify_kind)kind));
        int pats[16];
        size_t np = clscan_verify_compact_patterns((clscan_verify_kind)kind, (clscan_type)ty,
                                                   t->quick, pats, 16);
        size_t turn = (size_t)ty; /* --quick: the next pattern's index */
        for (size_t s = 0; s < nsizes; s++) {
            int layouts = sizes[s].all_layouts ? CLSCAN_VERIFY_LAYOUT_COUNT : 1;
            for (int l = 0; l < layouts; l++) {
                for (size_t k = 0; k < (t->quick ? (np > 0) : np); k++) {
                    int pattern = t->quick ? pats[turn++ % np] : pats[k];
                    clscan_verify_compact_case c = {(clscan_verify_kind)kind, (clscan_type)ty,
                                                    pattern, sizes[s].n, 0, 0, 0, 0, 0, NULL};
                    clscan_verify_compact_layout(&c, l);
                    c.seed = clscan_verify_mix(
                        t->seed, ((uint64_t)sizes[s].n << 24) ^
                                     (uint64_t)(ty | kind << 4 | pattern << 8 | l << 14 |
                                                1 << 20));
                    clscan_verify_result r =
                        run->counting ? CLSCAN_VERIFY_SKIP
                        : clscan_verify_run_compact(ctx, cl_ctx, queue, &c, msg, sizeof msg);
                    const char *pat = clscan_verify_pattern_name(&c, pname, sizeof pname);
                    size_t so = c.in_place ? c.dst_offset : c.src_offset;
                    snprintf(line, sizeof line,
                             "%s %s %s n=%zu src_offset=%zu flags_offset=%zu dst_offset=%zu "
                             "in_place=%d (seed %" PRIu64 "): %s",
                             clscan_type_name(c.type), clscan_verify_kind_name(c.kind), pat,
                             c.n, so, c.flags_offset, c.dst_offset, c.in_place, t->seed, msg);
                    const clscan_rec rec = {clscan_type_name(c.type), "-",
                                            clscan_verify_kind_name(c.kind), pat, c.n, so,
                                            c.flags_offset, c.dst_offset, c.in_place};
                    clscan_tally(run, &run->compactions[ty * CLSCAN_VERIFY_KIND_COUNT + kind],
                                 &rec, r, line, msg);
                }
            }
        }
    }
}

/* Every sort with keys of the type: the sort kinds chosen, all sizes (the compaction
 * sizes) and layouts, with every key pattern (--quick: one at each size and layout, in
 * turn); pairs take each value type (of --value-types) in turn. */
static void clscan_run_sorts(clscan_device_run *run, clscan_context *ctx, cl_context cl_ctx,
                             cl_command_queue queue, int ty, const clscan_verify_size *sizes,
                             size_t nsizes)
{
    clscan_selftest *t = run->t;
    char msg[1024] = "", line[1500];
    for (int kind = 0; kind < CLSCAN_VERIFY_SORT_KIND_COUNT; kind++) {
        if (!(t->kinds >> (CLSCAN_SORT_KIND_BIT + kind) & 1))
            continue;
        clscan_phase(run, "%s %s", clscan_type_name((clscan_type)ty),
                     clscan_verify_sort_kind_name((clscan_verify_sort_kind)kind));
        size_t turn = (size_t)ty, vturn = (size_t)ty;
        for (size_t s = 0; s < nsizes; s++) {
            int layouts = sizes[s].all_layouts ? CLSCAN_VERIFY_LAYOUT_COUNT : 1;
            for (int l = 0; l < layouts; l++) {
                for (int k = 0; k < (t->quick ? 1 : CLSCAN_VERIFY_KEYS_COUNT); k++) {
                    const int pattern = t->quick ? (int)(turn++ % CLSCAN_VERIFY_KEYS_COUNT) : k;
                    clscan_type vt = CLSCAN_UINT32;
                    if (kind) /* (--value-types leaves at least one) */
                        do
                            vt = (clscan_type)(vturn++ % CLSCAN_TYPE_COUNT);
                        while (!(t->value_types >> vt & 1));
                    clscan_verify_sort_case c = {(clscan_verify_sort_kind)kind, (clscan_type)ty,
                                                 vt, pattern, sizes[s].n, 0, 0, 0, 0, 0, 0};
                    clscan_verify_sort_layout(&c, l);
                    c.seed = clscan_verify_mix(
                        t->seed, ((uint64_t)sizes[s].n << 24) ^
                                     (uint64_t)(ty | kind << 4 | pattern << 8 | l << 14 |
                                                2 << 20));
                    clscan_verify_result r =
                        run->counting ? CLSCAN_VERIFY_SKIP
                        : clscan_verify_run_sort(ctx, cl_ctx, queue, &c, msg, sizeof msg);
                    const char *pat = clscan_verify_keys_name(pattern);
                    const char *mode = clscan_verify_sort_kind_name(c.kind);
                    const size_t ko = c.in_place ? c.keys_offset : c.keys_out_offset;
                    snprintf(line, sizeof line,
                             "%s %s%s%s keys %s n=%zu keys_offset=%zu values_offset=%zu "
                             "keys_out_offset=%zu in_place=%d (seed %" PRIu64 "): %s",
                             clscan_type_name(c.key_type), mode, kind ? " values " : "",
                             kind ? clscan_type_name(vt) : "", pat, c.n, c.keys_offset,
                             c.values_offset, ko, c.in_place, t->seed, msg);
                    /* (A record's op column holds the value type of a pair sort.) */
                    const clscan_rec rec = {clscan_type_name(c.key_type),
                                            kind ? clscan_type_name(vt) : "-", mode, pat, c.n,
                                            c.keys_offset, c.values_offset, ko, c.in_place};
                    clscan_tally(run, &run->sorts[ty * CLSCAN_VERIFY_SORT_KIND_COUNT + kind],
                                 &rec, r, line, msg);
                }
            }
        }
    }
}

/* Every general scan case (once per device, not per type): inclusive and exclusive, at
 * the compaction sizes, with offsets, and in place where input and output elements have
 * one size. */
static void clscan_run_general(clscan_device_run *run, clscan_context *ctx, cl_context cl_ctx,
                               cl_command_queue queue, const clscan_verify_size *sizes,
                               size_t nsizes)
{
    clscan_selftest *t = run->t;
    char msg[1024] = "", line[1500];
    if (!(t->kinds >> CLSCAN_GENERAL_KIND_BIT & 1)) return;
    for (int k = 0; k < CLSCAN_VERIFY_GEN_CASES; k++) {
        const clscan_verify_gen_case c = clscan_verify_gen_case_get(k);
        clscan_phase(run, "general scans: %s%s", c.name, "");
        const uint64_t seed = clscan_verify_mix(t->seed, 0x6e000u + (uint64_t)k);
        for (size_t s = 0; s < nsizes; s++)
            for (int inclusive = 0; inclusive < 2; inclusive++)
                for (int l = 0; l < (c.in_size == c.out_size ? 2 : 1); l++) {
                    clscan_verify_result r = run->counting
                            ? CLSCAN_VERIFY_SKIP
                            : clscan_verify_run_general(
                        ctx, cl_ctx, queue, &c, sizes[s].n, inclusive, l, seed, msg, sizeof msg);
                    snprintf(line, sizeof line, "general %d (%s) (seed %" PRIu64 "): %s", k,
                             c.name, t->seed, msg);
                    char pat[8];
                    snprintf(pat, sizeof pat, "case%d", k);
                    const clscan_rec rec = {"-", "-", inclusive ? "general-inclusive"
                                                                : "general-exclusive",
                                            pat, sizes[s].n, l ? 2 : 3, 7, l ? 2 : 5, l};
                    clscan_tally(run, &run->general[k], &rec, r, line, msg);
                }
        /* Its reduction by key, where it has segments (clscan_reduce_by_key). */
        for (size_t s = 0; s < nsizes && c.desc.segments; s++) {
            clscan_verify_result r = run->counting
                    ? CLSCAN_VERIFY_SKIP
                    : clscan_verify_run_general_by_key(
                ctx, cl_ctx, queue, &c, sizes[s].n, 1, seed, msg, sizeof msg);
            snprintf(line, sizeof line, "general %d (%s) by key (seed %" PRIu64 "): %s", k,
                     c.name, t->seed, msg);
            char pat[8];
            snprintf(pat, sizeof pat, "case%d", k);
            const clscan_rec rec = {"-", "-", "general-by-key", pat, sizes[s].n, 3, 4, 5, 0};
            clscan_tally(run, &run->general[k], &rec, r, line, msg);
        }
        /* Its reduction (clscan_reduce_desc, without the segments). */
        for (size_t s = 0; s < nsizes; s++) {
            clscan_verify_result r = run->counting
                    ? CLSCAN_VERIFY_SKIP
                    : clscan_verify_run_general_reduce(
                ctx, cl_ctx, queue, &c, sizes[s].n, seed, msg, sizeof msg);
            snprintf(line, sizeof line, "general %d (%s) reduce (seed %" PRIu64 "): %s", k,
                     c.name, t->seed, msg);
            char pat[8];
            snprintf(pat, sizeof pat, "case%d", k);
            const clscan_rec rec = {"-", "-", "general-reduce", pat, sizes[s].n, 3, 0, 3, 0};
            clscan_tally(run, &run->general[k], &rec, r, line, msg);
        }
    }
    if (run->counting)
        return;
    clscan_progress_clear(t);
    fprintf(t->info, "  general scans (case: passed/failed):");
    for (int k = 0; k < CLSCAN_VERIFY_GEN_CASES; k++)
        fprintf(t->info, " %d: %lu/%lu", k, (unsigned long)run->general[k].pass,
                (unsigned long)run->general[k].fail);
    fputc('\n', t->info);
}

/* The histograms of the type: even bins and bins between levels, 7, 256 and 40000 bins
 * (the last past local memory), at every size, counts alternating 32 and 64 bits. */
static void clscan_run_histograms(clscan_device_run *run, clscan_context *ctx,
                                  cl_context cl_ctx, cl_command_queue queue, int ty,
                                  const clscan_verify_size *sizes, size_t nsizes)
{
    static const size_t bins[] = {7, 256, 40000};
    clscan_selftest *t = run->t;
    char msg[1024] = "", line[1500];
    if (!(t->kinds >> CLSCAN_HIST_KIND_BIT & 1)) return;
    clscan_phase(run, "%s histograms%s", clscan_type_name((clscan_type)ty), "");
    unsigned k = 0;
    for (int levels = 0; levels < 2; levels++)
        for (size_t b = 0; b < sizeof bins / sizeof *bins; b++)
            for (size_t z = 0; z < nsizes; z++, k++) {
                const clscan_verify_hist_case c = {
                    (clscan_type)ty, k % 2 ? CLSCAN_UINT64 : CLSCAN_UINT32, levels, 0, bins[b],
                    sizes[z].n, k % 3 ? 3 : 0, k % 5 ? 2 : 0,
                    clscan_verify_mix(t->seed, 0x41000u + ((uint64_t)ty << 16) + k)};
                clscan_verify_result r =
                    run->counting ? CLSCAN_VERIFY_SKIP
                    : clscan_verify_run_histogram(ctx, cl_ctx, queue, &c, msg, sizeof msg);
                snprintf(line, sizeof line,
                         "histogram %s %s bins %zu n=%zu counts %s (seed %" PRIu64 "): %s",
                         clscan_type_name(c.type), levels ? "levels" : "even", c.num_bins, c.n,
                         clscan_type_name(c.count_type), t->seed, msg);
                const clscan_rec rec = {clscan_type_name(c.type), "-",
                                        levels ? "histogram-levels" : "histogram-even", "-",
                                        c.n, c.samples_offset, 0, c.counts_offset, 0};
                clscan_tally(run, &run->histograms[ty], &rec, r, line, msg);
            }
}

/* Run-length encoding of the type (with the general or the run_length kind): every size,
 * lengths alternating 32 and 64 bits. */
static void clscan_run_rle(clscan_device_run *run, clscan_context *ctx, cl_context cl_ctx,
                           cl_command_queue queue, int ty, const clscan_verify_size *sizes,
                           size_t nsizes)
{
    clscan_selftest *t = run->t;
    char msg[1024] = "", line[1500];
    if (!(t->kinds & CLSCAN_RLE_KINDS)) return;
    clscan_phase(run, "%s run-length encode%s", clscan_type_name((clscan_type)ty), "");
    for (size_t z = 0; z < 2 * nsizes; z++) {
        /* (Every size twice: all runs, then only those longer than one.) */
        const clscan_type lt = z % 2 ? CLSCAN_UINT64 : CLSCAN_UINT32;
        const int nontrivial = z >= nsizes;
        const size_t n = sizes[z % nsizes].n;
        const clscan_verify_result r = run->counting ? CLSCAN_VERIFY_SKIP : clscan_verify_run_rle(
            ctx, cl_ctx, queue, (clscan_type)ty, lt, nontrivial ? CLSCAN_VERIFY_RLE_NONTRIVIAL : 0, n,
            clscan_verify_mix(t->seed, 0x7e000u + ((uint64_t)ty << 20) + z), msg, sizeof msg);
        snprintf(line, sizeof line, "run-length encode%s %s n=%zu lengths %s (seed %" PRIu64
                 "): %s", nontrivial ? " (runs longer than one)" : "",
                 clscan_type_name((clscan_type)ty), n, clscan_type_name(lt), t->seed, msg);
        const clscan_rec rec = {clscan_type_name((clscan_type)ty), "-",
                                nontrivial ? "run-length-encode-nontrivial" : "run-length-encode",
                                "-", n, 2, 0, 3, 0};
        clscan_tally(run, &run->rle[ty], &rec, r, line, msg);
    }
}

/* Every check chosen, on one device; with run->counting, only counts them into
 * run->total. */
static void clscan_run_all(clscan_device_run *run, clscan_context *ctx, cl_context cl_ctx,
                           cl_command_queue queue, const clscan_verify_size *sizes,
                           size_t nsizes, const clscan_verify_size *csizes, size_t ncsizes)
{
    clscan_selftest *t = run->t;
    for (int ty = 0; ty < CLSCAN_TYPE_COUNT; ty++) {
        if (!(t->types >> ty & 1))
            continue;
        clscan_run_scans(run, ctx, cl_ctx, queue, ty, sizes, nsizes);
        clscan_run_compactions(run, ctx, cl_ctx, queue, ty, csizes, ncsizes);
        clscan_run_sorts(run, ctx, cl_ctx, queue, ty, csizes, ncsizes);
        clscan_run_histograms(run, ctx, cl_ctx, queue, ty, csizes, ncsizes);
        clscan_run_rle(run, ctx, cl_ctx, queue, ty, csizes, ncsizes);
        if (!run->counting && !t->verbose) {
            clscan_progress_clear(t);
            fprintf(t->info, "  %s done\n", clscan_type_name((clscan_type)ty));
        }
        fflush(t->info);
    }
    clscan_run_general(run, ctx, cl_ctx, queue, csizes, ncsizes);
}

/* Runs the whole matrix on one device. */
static void clscan_run_device(clscan_selftest *t, cl_platform_id plat, cl_uint p,
                              cl_device_id dev, cl_uint d)
{
    FILE *f = t->info;
    char *dev_name = clscan_info_string(1, dev, CL_DEVICE_NAME);
    char *plat_name = clscan_info_string(0, plat, CL_PLATFORM_NAME);
    cl_context cl_ctx = NULL;
    cl_command_queue queue = NULL;
    clscan_context *ctx = NULL;
    cl_int err;
    char msg[1024];
    const char *what = "clCreateContext";
    clscan_device_run *run = calloc(1, sizeof *run);
    unsigned long before_failed = t->failed;
    clock_t started = clock();
    time_t wall_started = time(NULL);

    if (!run)
        abort();
    *run = (clscan_device_run){.t = t, .p = p, .d = d, .dev_name = dev_name};
    fprintf(f, "\n== platform %u device %u: %s (platform: %s)\n", p, d, dev_name, plat_name);
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    cl_ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    if (cl_ctx) {
        what = "clCreateCommandQueue";
        queue = clCreateCommandQueue(cl_ctx, dev, 0, &err);
    }
    if (!queue) {
        snprintf(msg, sizeof msg, "%s failed: %s", what, clscan_status_string(err));
        goto device_failed;
    }
    clscan_status st = clscan_context_create(cl_ctx, dev, &ctx);
    if (st != CLSCAN_SUCCESS) {
        snprintf(msg, sizeof msg, "clscan_context_create failed: %s: %s",
                 clscan_status_string(st), clscan_context_last_error(NULL));
        goto device_failed;
    }
    size_t need = clscan_context_describe(ctx, NULL, 0);
    char *desc = malloc(need + 1);
    if (desc) {
        clscan_context_describe(ctx, desc, need + 1);
        fputs("  detected:\n    ", f);
        for (const char *s = desc; *s; s++) {
            fputc(*s, f);
            if (*s == '\n' && s[1])
                fputs("    ", f);
        }
        if (need == 0 || desc[need - 1] != '\n')
            fputc('\n', f);
        free(desc);
    }

    clscan_verify_size sizes[64], csizes[64];
    size_t nsizes = t->ops ? clscan_pick_sizes(t, 0, "sizes",
                                               "(* also at src/dst offsets 3/17 and in place "
                                               "at 5)", sizes, 64) : 0;
    size_t ncsizes = t->kinds ? clscan_pick_sizes(t, 1, "compaction sizes",
                                                  "(* also at src/flags/dst offsets 3/5/17 "
                                                  "and in place at 5)", csizes, 64) : 0;
    fflush(f);
    if (t->progress) { /* (the checks' count first, for the progress line) */
        run->counting = 1;
        clscan_run_all(run, ctx, cl_ctx, queue, sizes, nsizes, csizes, ncsizes);
        run->counting = 0;
        run->started = clscan_now();
    }
    clscan_run_all(run, ctx, cl_ctx, queue, sizes, nsizes, csizes, ncsizes);
    clscan_progress_clear(t);
    unsigned long ncases = 0;
    for (int k = 0; k < CLSCAN_TYPE_COUNT * CLSCAN_OP_COUNT; k++)
        ncases += run->scans[k].pass + run->scans[k].fail + run->scans[k].skip;
    for (int k = 0; k < CLSCAN_TYPE_COUNT * CLSCAN_VERIFY_KIND_COUNT; k++)
        ncases += run->compactions[k].pass + run->compactions[k].fail + run->compactions[k].skip;
    for (int k = 0; k < CLSCAN_TYPE_COUNT * CLSCAN_VERIFY_SORT_KIND_COUNT; k++)
        ncases += run->sorts[k].pass + run->sorts[k].fail + run->sorts[k].skip;
    for (int k = 0; k < CLSCAN_VERIFY_GEN_CASES; k++)
        ncases += run->general[k].pass + run->general[k].fail + run->general[k].skip;
    for (int k = 0; k < CLSCAN_TYPE_COUNT; k++)
        ncases += run->histograms[k].pass + run->histograms[k].fail + run->histograms[k].skip +
                  run->rle[k].pass + run->rle[k].fail + run->rle[k].skip;
    fprintf(f, "  %lu cases in %.0f s wall, %.1f s CPU (all threads); seed %" PRIu64 "\n", ncases,
            difftime(time(NULL), wall_started), (double)(clock() - started) / CLOCKS_PER_SEC,
            t->seed);
    if (t->ops)
        clscan_print_table(f, run->scans, CLSCAN_NAMES_OPS, CLSCAN_OP_COUNT, 12);
    if (t->kinds & CLSCAN_COMPACTION_KINDS)
        clscan_print_table(f, run->compactions, CLSCAN_NAMES_KINDS, CLSCAN_VERIFY_KIND_COUNT,
                           14);
    if (t->kinds >> CLSCAN_SORT_KIND_BIT & ((1u << CLSCAN_VERIFY_SORT_KIND_COUNT) - 1))
        clscan_print_table(f, run->sorts, CLSCAN_NAMES_SORTS, CLSCAN_VERIFY_SORT_KIND_COUNT, 14);
    if (t->kinds & CLSCAN_RLE_KINDS) {
        fprintf(f, "  run-length encode, all runs and those longer than one\n"
                   "  (type: passed/failed/skipped):");
        for (int ty = 0; ty < CLSCAN_TYPE_COUNT; ty++)
            fprintf(f, " %s: %u/%u/%u", clscan_type_name((clscan_type)ty), run->rle[ty].pass,
                    run->rle[ty].fail, run->rle[ty].skip);
        fputc('\n', f);
    }
    if (t->kinds >> CLSCAN_HIST_KIND_BIT & 1) {
        fprintf(f, "  histograms (type: passed/failed/skipped):");
        for (int ty = 0; ty < CLSCAN_TYPE_COUNT; ty++)
            fprintf(f, " %s: %u/%u/%u", clscan_type_name((clscan_type)ty),
                    run->histograms[ty].pass, run->histograms[ty].fail,
                    run->histograms[ty].skip);
        fputc('\n', f);
    }
    if (t->ops)
        fputs("  (refused N: a bitwise op on a float type, correctly refused with\n"
              "   CLSCAN_ERROR_UNSUPPORTED and nothing written; counted as passed error-path "
              "checks.)\n", f);
    fputs("  (skip: DOUBLE on a device without fp64; never counted as passed.)\n", f);
    if (t->failed > before_failed)
        fprintf(f, "  failures (%lu):\n%s", t->failed - before_failed,
                run->failures ? run->failures : "");
    goto cleanup;

device_failed:
    fprintf(f, "  FAIL %s\n", msg);
    t->failed++;
    if (t->format != CLSCAN_FMT_TEXT)
        clscan_record(t, p, d, dev_name, NULL, CLSCAN_VERIFY_FAIL, msg);
cleanup:
    free(run->failures);
    free(run);
    clscan_context_release(ctx);
    if (queue)
        clReleaseCommandQueue(queue);
    if (cl_ctx)
        clReleaseContext(cl_ctx);
    free(dev_name);
    free(plat_name);
    fflush(f);
}

/* Whether part occurs in name, in any case. */
static int clscan_name_has(const char *name, const char *part)
{
    const size_t len = strlen(part);
    for (const char *p = name; strlen(p) >= len; p++)
        if (!strncasecmp(p, part, len))
            return 1;
    return 0;
}

/* Whether s is an index (decimal digits only). */
static int clscan_is_index(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

/* Appends "'name' (where)" to a list of matches in buf. */
static void clscan_add_match(char *buf, size_t size, const char *name, const char *where)
{
    const size_t used = strlen(buf);
    if (used + 8 < size)
        snprintf(buf + used, size - used, "%s'%s' (%s)", used ? ", " : "", name, where);
}

/* --platform as given into t->platform: an index below np, or the one platform whose name
 * or vendor contains the text in any case (or whose name equals it); returns 0, or 2
 * after a usage error. */
static int clscan_pick_platform(clscan_selftest *t, cl_uint np, cl_platform_id *plats)
{
    const char *a = t->platform_arg;
    char msg[1200], list[900] = "", where[32];
    if (!a)
        return 0;
    if (clscan_is_index(a)) {
        const unsigned long long v = strtoull(a, NULL, 10);
        if (v >= np) {
            snprintf(msg, sizeof msg, "--platform %s: no such platform: there %s %u (see --list)",
                     a, np == 1 ? "is" : "are", np);
            return clscan_usage_error("%s", msg);
        }
        t->platform = (long)v;
        return 0;
    }
    long found = -1, exact = -1;
    unsigned matches = 0;
    for (cl_uint p = 0; p < np; p++) {
        char *name = clscan_info_string(0, plats[p], CL_PLATFORM_NAME);
        char *vendor = clscan_info_string(0, plats[p], CL_PLATFORM_VENDOR);
        if (clscan_name_has(name, a) || clscan_name_has(vendor, a)) {
            matches++;
            found = (long)p;
            snprintf(where, sizeof where, "%u", p);
            clscan_add_match(list, sizeof list, name, where);
            if (!strcasecmp(name, a))
                exact = (long)p;
        }
        free(name);
        free(vendor);
    }
    if (exact >= 0)
        found = exact, matches = 1;
    if (matches != 1) {
        if (matches == 0)
            snprintf(msg, sizeof msg,
                     "--platform '%s' is in no platform's name or vendor (see --list)", a);
        else
            snprintf(msg, sizeof msg, "--platform '%s' is in %u platforms' names or vendors: %s",
                     a, matches, list);
        return clscan_usage_error("%s", msg);
    }
    t->platform = found;
    char *name = clscan_info_string(0, plats[found], CL_PLATFORM_NAME);
    fprintf(t->info, "--platform %s: platform %ld (%s)\n", a, found, name);
    fflush(t->info);
    free(name);
    return 0;
}

/* --device as given into t->device (and t->platform for a name): an index below the
 * device count of some platform chosen, or the one device of the platforms chosen whose
 * name contains the text in any case (or equals it); returns 0, or 2 after a usage
 * error. */
static int clscan_pick_device(clscan_selftest *t, cl_uint np, cl_platform_id *plats,
                              const cl_uint *nd, cl_device_id *const *devs)
{
    const char *a = t->device_arg;
    char msg[1200], list[900] = "", where[48];
    if (!a)
        return 0;
    if (clscan_is_index(a)) {
        const unsigned long long v = strtoull(a, NULL, 10);
        cl_uint most = 0;
        for (cl_uint p = 0; p < np; p++)
            if ((t->platform < 0 || (cl_uint)t->platform == p) && nd[p] > most)
                most = nd[p];
        if (v >= most) {
            if (t->platform >= 0 || np == 1) {
                const cl_uint p = t->platform >= 0 ? (cl_uint)t->platform : 0;
                char *name = clscan_info_string(0, plats[p], CL_PLATFORM_NAME);
                snprintf(msg, sizeof msg,
                         "--device %s: no such device: platform %u (%s) has %u device%s "
                         "(see --list)", a, p, name, nd[p], nd[p] == 1 ? "" : "s");
                free(name);
            } else {
                snprintf(msg, sizeof msg,
                         "--device %s: no such device: none of the %u platforms has more than "
                         "%u device%s (see --list)", a, np, most, most == 1 ? "" : "s");
            }
            return clscan_usage_error("%s", msg);
        }
        t->device = (long)v;
        return 0;
    }
    long fp = -1, fd = -1, ep = -1, ed = -1;
    unsigned matches = 0;
    for (cl_uint p = 0; p < np; p++) {
        if (t->platform >= 0 && (cl_uint)t->platform != p)
            continue;
        for (cl_uint d = 0; d < nd[p]; d++) {
            char *name = clscan_info_string(1, devs[p][d], CL_DEVICE_NAME);
            if (clscan_name_has(name, a)) {
                matches++;
                fp = (long)p, fd = (long)d;
                snprintf(where, sizeof where, "platform %u device %u", p, d);
                clscan_add_match(list, sizeof list, name, where);
                if (!strcasecmp(name, a))
                    ep = (long)p, ed = (long)d;
            }
            free(name);
        }
    }
    if (ep >= 0)
        fp = ep, fd = ed, matches = 1;
    if (matches != 1) {
        if (matches == 0)
            snprintf(msg, sizeof msg, "--device '%s' is in no device's name%s (see --list)", a,
                     t->platform >= 0 ? " on the platform chosen" : "");
        else
            snprintf(msg, sizeof msg,
                     "--device '%s' is in %u devices' names: %s; add --platform, or give an "
                     "index", a, matches, list);
        return clscan_usage_error("%s", msg);
    }
    t->platform = fp;
    t->device = fd;
    char *name = clscan_info_string(1, devs[fp][fd], CL_DEVICE_NAME);
    fprintf(t->info, "--device %s: platform %ld device %ld (%s)\n", a, fp, fd, name);
    fflush(t->info);
    free(name);
    return 0;
}

int main(int argc, char **argv)
{
    clscan_selftest t = {.platform = -1, .device = -1, .format = CLSCAN_FMT_TEXT,
                         .types = (1u << CLSCAN_TYPE_COUNT) - 1,
                         .value_types = (1u << CLSCAN_TYPE_COUNT) - 1,
                         .ops = (1u << CLSCAN_OP_COUNT) - 1,
                         .kinds = CLSCAN_COMPACTION_KINDS |
                                  ((1u << CLSCAN_VERIFY_SORT_KIND_COUNT) - 1)
                                      << CLSCAN_SORT_KIND_BIT |
                                  1u << CLSCAN_GENERAL_KIND_BIT | 1u << CLSCAN_HIST_KIND_BIT,
                         .max_size = ~0ull};
    t.seed = (uint64_t)time(NULL);
    int rc = clscan_parse_args(&t, argc, argv);
    if (rc)
        return rc;
    t.info = t.format == CLSCAN_FMT_TEXT ? stdout : stderr;
    t.progress = t.format == CLSCAN_FMT_TEXT && !t.list && isatty(fileno(stderr));
    const double started = clscan_now();

    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    cl_platform_id *plats = np ? malloc(np * sizeof *plats) : NULL;
    if (err != CL_SUCCESS || np == 0 || !plats ||
        clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
        fprintf(stderr, "clscan-selftest: no OpenCL platform found (clGetPlatformIDs: %s, %d)\n",
                clscan_status_string(err), (int)err);
        free(plats);
        return 1;
    }
    /* Every platform's devices, for --platform/--device and the runs. */
    cl_uint *nd = calloc(np, sizeof *nd);
    cl_device_id **devs = calloc(np, sizeof *devs);
    if (!nd || !devs)
        abort();
    for (cl_uint p = 0; p < np; p++) {
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd[p]) != CL_SUCCESS)
            nd[p] = 0;
        devs[p] = nd[p] ? malloc(nd[p] * sizeof *devs[p]) : NULL;
        if (nd[p] && (!devs[p] ||
                      clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd[p], devs[p], NULL)))
            nd[p] = 0;
    }
    rc = clscan_pick_platform(&t, np, plats);
    if (!rc)
        rc = clscan_pick_device(&t, np, plats, nd, devs);
    if (!rc && !t.list) {
        const unsigned v = clscan_version();
        fprintf(t.info, "clscan-selftest, libclscan %u.%u.%u: seed %" PRIu64
                " (reproduce with --seed %" PRIu64 "%s)\n", v / 10000, v / 100 % 100, v % 100,
                t.seed, t.seed, t.quick ? " --quick" : "");
    }
    unsigned devices_run = 0;
    for (cl_uint p = 0; p < np && !rc; p++) {
        if (t.platform >= 0 && (cl_uint)t.platform != p)
            continue;
        if (t.list) {
            char *name = clscan_info_string(0, plats[p], CL_PLATFORM_NAME);
            printf("platform %u: %s\n", p, name);
            free(name);
            for (cl_uint d = 0; d < nd[p]; d++) {
                name = clscan_info_string(1, devs[p][d], CL_DEVICE_NAME);
                printf("  device %u: %s\n", d, name);
                free(name);
            }
        } else {
            for (cl_uint d = 0; d < nd[p]; d++) {
                if (t.device >= 0 && (cl_uint)t.device != d)
                    continue;
                clscan_run_device(&t, plats[p], p, devs[p][d], d);
                devices_run++;
            }
        }
    }
    for (cl_uint p = 0; p < np; p++)
        free(devs[p]);
    free(devs);
    free(nd);
    free(plats);
    if (rc)
        return rc;
    if (t.list)
        return 0;
    if (t.format == CLSCAN_FMT_JSON)
        puts(t.records ? "\n]" : "[]");
    fflush(stdout);
    if (devices_run == 0)
        fprintf(t.info, "\nno OpenCL device found%s\n",
                t.platform >= 0 || t.device >= 0 ? " (with the --platform/--device chosen)" : "");
    else if (t.passed == 0 && t.failed == 0)
        fprintf(t.info, "\nno case ran\n");
    char spent[24];
    clscan_fmt_time(spent, sizeof spent, clscan_now() - started);
    fprintf(t.info, "%lu passed, %lu failed, %lu skipped (%u device%s, %s)\n", t.passed,
            t.failed, t.skipped, devices_run, devices_run == 1 ? "" : "s", spent);
    return t.failed == 0 && t.passed > 0 && devices_run > 0 ? 0 : 1;
}
