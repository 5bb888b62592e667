/* build.c - builds one program: the embedded cl/ files its kind needs after its
 * #define block, from the disk cache or from source, its kernels created into the
 * program's table, rebuilt smaller where the compiled kernels allow fewer work-items or
 * another sub-group width than asked for. */
/* SPDX-License-Identifier: MIT */
#include "kernels/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cl/ files a program is made of, in order; each guards its own #include of the
 * layer below, so concatenating them needs no include path. A program takes the files
 * marked for its kind (the scan kernels also scan a compaction's counts and a general
 * scan's partials; a compaction's or general scan's look-back comes after its tile
 * layer, which tells the look-back what a fallback reads); the look-back only where the
 * program is single-pass. */
enum { F_SCAN = 1, F_SELECT = 2, F_GENERAL = 4, F_SORT = 8, F_HIST = 16, F_ALL = 31 };
static const struct {
    const char *name;
    unsigned kinds; /* F_* */
    int lookback;
} program_files[] = {
    {"clscan_common.cl", F_ALL, 0},
    {"clscan_clear.cl", F_ALL, 0},
    {"clscan_subgroup.cl", F_ALL, 0},
    {"clscan_workgroup.cl", F_ALL, 0},
    {"clscan_lookback.cl", F_SCAN, 1},
    {"clscan_scan.cl", F_SCAN | F_SELECT | F_GENERAL, 0},
    {"clscan_select_tile.cl", F_SELECT, 0},
    {"clscan_general_tile.cl", F_GENERAL, 0},
    {"clscan_lookback.cl", F_SELECT | F_GENERAL, 1},
    {"clscan_select.cl", F_SELECT, 0},
    {"clscan_general.cl", F_GENERAL, 0},
    {"clscan_sort.cl", F_SORT, 0},
    {"clscan_sort_onesweep.cl", F_SORT, 0},
    {"clscan_sort_buckets.cl", F_SORT, 0},
    {"clscan_histogram.cl", F_HIST, 0},
};

/* The F_* bit of the files cfg's program is made of. */
static unsigned program_file_kind(const clscan__scan_config *cfg)
{
    switch (cfg->kind) {
    case CLSCAN__PROGRAM_GENERAL: return F_GENERAL;
    case CLSCAN__PROGRAM_SORT: return F_SORT;
    case CLSCAN__PROGRAM_HIST: return F_HIST;
    default: return cfg->select ? F_SELECT : F_SCAN;
    }
}

/* Each kernel's name in cl/, and whether it must allow the tile's work-group size. */
static const struct {
    const char *name;
    int shaped;
} kernel_table[CLSCAN__KERNEL_COUNT] = {
    [CLSCAN__K_REDUCE] = {"clscan_reduce_tiles", 1},
    [CLSCAN__K_PARTIALS] = {"clscan_scan_partials", 1},
    [CLSCAN__K_SCAN] = {"clscan_scan_tiles", 1},
    [CLSCAN__K_SINGLE] = {"clscan_scan_single", 1},
    [CLSCAN__K_REDUCE_SINGLE] = {"clscan_reduce_single", 1},
    [CLSCAN__K_CLEAR] = {"clscan_clear_words", 0},
    [CLSCAN__K_SEL_COUNT] = {"clscan_sel_count_tiles", 1},
    [CLSCAN__K_SEL_WRITE] = {"clscan_sel_write_tiles", 1},
    [CLSCAN__K_SEL_ZERO] = {"clscan_sel_count_zero", 0},
    [CLSCAN__K_SEL_SINGLE] = {"clscan_sel_single", 1},
    [CLSCAN__K_GEN_REDUCE] = {"clscan_gen_reduce_tiles", 1},
    [CLSCAN__K_GEN_SCAN] = {"clscan_gen_scan_tiles", 1},
    [CLSCAN__K_GEN_SINGLE] = {"clscan_gen_single", 1},
    [CLSCAN__K_SORT_HIST] = {"clscan_sort_histogram", 1},
    [CLSCAN__K_SORT_SCATTER] = {"clscan_sort_scatter", 1},
    [CLSCAN__K_SORT_OS_HIST] = {"clscan_sort_os_histogram", 1},
    [CLSCAN__K_SORT_OS_PASS] = {"clscan_sort_os_pass", 1},
    [CLSCAN__K_SORT_BK_RANGE] = {"clscan_sort_bk_range", 1},
    [CLSCAN__K_SORT_BK_HIST] = {"clscan_sort_bk_histogram", 1},
    [CLSCAN__K_SORT_BK_DECIDE] = {"clscan_sort_bk_decide", 1},
    [CLSCAN__K_SORT_BK_SCATTER] = {"clscan_sort_bk_scatter", 1},
    [CLSCAN__K_SORT_BK_BUCKETS] = {"clscan_sort_bk_buckets", 1},
    [CLSCAN__K_HIST_LOCAL] = {"clscan_hist_local", 1},
    [CLSCAN__K_HIST_GLOBAL] = {"clscan_hist_global", 0},
    [CLSCAN__K_HIST_SUM] = {"clscan_hist_sum", 0},
    [CLSCAN__K_HIST_FUSED] = {"clscan_hist_fused", 1},
};

/* The definition of a compaction's predicate, appended after the kernels (which
 * declare it): the user's expression on lines of its own, which compiler messages call
 * "predicate" from line 1; the library's lines after it they call "libclscan" from line 1
 * (as src/algo/general.c does after a general scan's texts), so that an error there, such
 * as the `)` after a predicate that is not an expression, is not counted as a line of the
 * predicate's (issue 21: "return x > 3;" gave predicate:1:1 and predicate:2:5). Returns
 * a malloc'd string, or NULL when out of memory. */
static char *predicate_source(const char *predicate)
{
    static const char head[] = "\nint clscan_sel_predicate(const CLSCAN_E x, const ulong i)\n"
                               "{\n    (void)x;\n    (void)i;\n    return (\n"
                               "#line 1 \"predicate\"\n";
    static const char tail[] = "\n#line 1 \"libclscan\"\n    ) != 0;\n}\n";
    const size_t len = strlen(predicate);
    char *text = malloc(sizeof head - 1 + len + sizeof tail);
    if (!text) return NULL;
    memcpy(text, head, sizeof head - 1);
    memcpy(text + sizeof head - 1, predicate, len);
    memcpy(text + sizeof head - 1 + len, tail, sizeof tail);
    return text;
}

static void release_shape(clscan__program *prog);

void clscan__program_free(clscan__program *prog)
{
    if (!prog) return;
    release_shape(prog);
    pthread_mutex_destroy(&prog->lock);
    free(prog->key);
    free(prog->predicate);
    free(prog->prelude);
    free(prog);
}

void clscan__programs_free(clscan__program *list)
{
    while (list) {
        clscan__program *next = list->next;
        clscan__program_free(list);
        list = next;
    }
}

/* The program's build log for the device, malloc'd (possibly ""), or NULL. */
static char *read_build_log(cl_program program, cl_device_id device)
{
    size_t len = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) ==
            CL_SUCCESS &&
        (log = malloc(len + 1)) != NULL) {
        if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, len, log, NULL) !=
            CL_SUCCESS)
            len = 0;
        log[len] = '\0';
    }
    return log;
}

/* ------------------------------------------------------------ build logs -- */

/* The names #line gives the caller's texts in a program: a compaction's predicate (above),
 * a general scan's source and expressions (src/algo/general.c, which calls what the
 * library writes there itself "libclscan", like every library line after a caller's). */
static const char *const user_text_names[] = {"predicate", "source",    "combine",
                                              "identity",  "transform", "output"};

/* Where a #line directive names a caller's text: from physical line `first` of the
 * program on, user_text_names[name]'s line `number` and on. */
typedef struct {
    size_t first, number;
    size_t name;
} line_mark;

/* For compilers that ignore #line: NVIDIA's (driver 580) names every position
 * "<kernel>:LINE:COL", LINE counted over the whole program. Rewrites each such position
 * inside a caller's text as #line asked ("predicate:2:5"); positions in the library's
 * own lines stay as they are. Returns a malloc'd log, or NULL (out of memory, or nothing
 * to rewrite: then the log stands). */
static char *apply_line_directives(const char *log, const char *const *texts,
                                   const size_t *lengths, cl_uint count)
{
    static const char anon[] = "<kernel>:";
    if (!strstr(log, anon)) return NULL;
    line_mark marks[64];
    size_t nmarks = 0, phys = 1;
    int at_start = 1;
    for (cl_uint t = 0; t < count; ++t) {
        const char *c = texts[t], *end = texts[t] + lengths[t];
        for (; c < end; ++c) {
            if (*c == '\n') {
                ++phys;
                at_start = 1;
                continue;
            }
            if (!at_start) continue;
            at_start = 0;
            /* "#line N \"name\"" (the library writes them whole, in one text) */
            const char *q = c;
            while (q < end && (*q == ' ' || *q == '\t')) ++q;
            if ((size_t)(end - q) < 8 || memcmp(q, "#line ", 6) != 0) continue;
            char *num_end = NULL;
            const unsigned long long number = strtoull(q + 6, &num_end, 10);
            if (num_end == q + 6 || *num_end != ' ' || num_end[1] != '"') continue;
            const char *name = num_end + 2, *close = memchr(name, '"', (size_t)(end - name));
            if (!close || nmarks == sizeof marks / sizeof marks[0]) continue;
            size_t which = sizeof user_text_names / sizeof user_text_names[0];
            for (size_t k = 0; k < sizeof user_text_names / sizeof user_text_names[0]; ++k)
                if (strlen(user_text_names[k]) == (size_t)(close - name) &&
                    memcmp(user_text_names[k], name, (size_t)(close - name)) == 0)
                    which = k;
            marks[nmarks++] = (line_mark){phys + 1, (size_t)number, which};
        }
    }
    if (nmarks == 0) return NULL;
    const size_t len = strlen(log);
    char *out = malloc(3 * len + 64), *o = out; /* (each rewrite: 10 bytes or more to 30 or fewer) */
    if (!out) return NULL;
    for (const char *c = log; *c;) {
        char *digits_end = NULL;
        const unsigned long long line = strncmp(c, anon, sizeof anon - 1) == 0
                                            ? strtoull(c + sizeof anon - 1, &digits_end, 10)
                                            : 0;
        const line_mark *m = NULL;
        if (line && digits_end && *digits_end == ':')
            for (size_t k = 0; k < nmarks && marks[k].first <= line; ++k) m = &marks[k];
        if (m && m->name < sizeof user_text_names / sizeof user_text_names[0] &&
            (size_t)(o - out) + 48 < 3 * len + 64) {
            o += sprintf(o, "%s:%llu", user_text_names[m->name],
                         (unsigned long long)(m->number + (line - m->first)));
            c = digits_end;
        } else {
            *o++ = *c++;
        }
    }
    *o = '\0';
    return out;
}

/* Whether line[0, n) holds `word` (not the end of a longer name) followed by ':' and a
 * digit, as compilers write a position: "predicate:2:3". */
static int names_position(const char *line, size_t n, const char *word)
{
    const size_t w = strlen(word);
    for (const char *p = line; p + w + 1 < line + n; ++p) {
        if (memcmp(p, word, w) != 0 || p[w] != ':' || p[w + 1] < '0' || p[w + 1] > '9')
            continue;
        if (p == line) return 1;
        const unsigned char c = (unsigned char)p[-1];
        if (!(c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')))
            return 1;
    }
    return 0;
}

/* Whether the line s[0, n) begins a compiler's diagnostic: "error: ...", "warning: ...",
 * "note: ..." (PoCL writes the kind first), or "file:line[:col]: kind: ..." (Clang). The
 * lines up to the next such line (source quoted, a caret) belong to it. */
static int diagnostic_start(const char *s, size_t n)
{
    static const char *const kinds[] = {"error:", "warning:", "note:", "fatal error:", "remark:"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        const size_t len = strlen(kinds[k]);
        if (n >= len && memcmp(s, kinds[k], len) == 0) return 1;
    }
    for (size_t i = 0; i + 1 < n; ++i) { /* ":<digits>: kind:" or ":<digits>:<digits>: kind:" */
        if (s[i] != ':' || s[i + 1] < '0' || s[i + 1] > '9') continue;
        size_t j = i + 1;
        while (j < n && s[j] >= '0' && s[j] <= '9') ++j;
        if (j + 1 < n && s[j] == ':' && s[j + 1] >= '0' && s[j + 1] <= '9')
            for (++j; j < n && s[j] >= '0' && s[j] <= '9';) ++j;
        if (j >= n || s[j] != ':') continue;
        for (++j; j < n && s[j] == ' ';) ++j;
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
            const size_t len = strlen(kinds[k]);
            if (n - j >= len && memcmp(s + j, kinds[k], len) == 0) return 1;
        }
    }
    return 0;
}

/* Whether the line s[0, n) is a caret line under a quoted source line ("    ^~~~"). */
static int caret_line(const char *s, size_t n)
{
    int caret = 0;
    for (size_t i = 0; i < n; ++i) {
        if (s[i] == '^') caret = 1;
        else if (!strchr(" \t~\r\n", s[i])) return 0;
    }
    return caret;
}

/* Splits a build log into the diagnostics on the caller's texts (where user_texts is
 * set: those whose first line names one of user_text_names with a position) and the
 * rest, each in the log's order, into two malloc'd strings. Returns 0 when out of
 * memory (both NULL). */
static int build_log_split(const char *log, int user_texts, char **user, char **library)
{
    const size_t len = strlen(log);
    *user = malloc(len + 1);
    *library = malloc(len + 1);
    if (!*user || !*library) {
        free(*user);
        free(*library);
        *user = *library = NULL;
        return 0;
    }
    size_t nu = 0, nl = 0;
    int in_user = 0; /* whether the diagnostic the current line belongs to is the caller's */
    for (const char *s = log; *s;) {
        const char *e = strchr(s, '\n');
        const size_t n = e ? (size_t)(e - s) + 1 : strlen(s);
        const char *next = s + n, *next_end = strchr(next, '\n');
        const size_t next_n = next_end ? (size_t)(next_end - next) : strlen(next);
        if (diagnostic_start(s, n)) {
            in_user = 0;
            for (size_t k = 0; user_texts && k < sizeof user_text_names / sizeof *user_text_names;
                 ++k)
                in_user |= names_position(s, n, user_text_names[k]);
        } else if (!caret_line(s, n) && !caret_line(next, next_n)) {
            in_user = 0; /* not the quoted line and caret of a diagnostic: the library's */
        }
        memcpy(in_user ? *user + nu : *library + nl, s, n);
        *(in_user ? &nu : &nl) += n;
        s += n;
    }
    if (nu && (*user)[nu - 1] != '\n') (*user)[nu++] = '\n';
    (*user)[nu] = (*library)[nl] = '\0';
    return 1;
}

/* Reads the build log for a failed build into the thread's last error: the compiler's
 * diagnostics on the caller's texts first (with their own names and line numbers), then
 * the rest of the log, then the #define block the library's code was compiled with. */
static clscan_status build_failed(const clscan_context *ctx, const clscan__target *t,
                                  cl_program program, cl_int err, const char *const *texts,
                                  const size_t *lengths, cl_uint count, const char *defines,
                                  const char *predicate, int general)
{
    char *log = read_build_log(program, t->device), *rewritten;
    if (log && (rewritten = apply_line_directives(log, texts, lengths, count))) {
        free(log);
        log = rewritten;
    }
    /* A compaction's program that does not build names the predicate first: compilers
     * differ in how their logs name the source it came from. */
    char prefix[1024], head[300] = "";
    if (predicate)
        snprintf(head, sizeof head, "the predicate \"%.200s%s\" does not compile; ", predicate,
                 strlen(predicate) > 200 ? "..." : "");
    else if (general)
        snprintf(head, sizeof head, "the general scan's OpenCL C (desc->source, combine, "
                 "identity, transform or output) does not compile; ");
    snprintf(prefix, sizeof prefix, "%sclBuildProgram failed: %s (%d)\n--- build log ---\n",
             head, clscan_status_string(err), (int)err);
    char *user = NULL, *library = NULL, *body = NULL;
    if (log && build_log_split(log, predicate || general, &user, &library)) {
        static const char rest[] = "--- build log: the library's lines ---\n";
        static const char options[] = "--- options ---\n";
        const size_t nu = strlen(user), nl = strlen(library), nd = strlen(defines);
        if ((body = malloc(nu + sizeof rest + nl + sizeof options + nd + 1)) != NULL) {
            char *b = body;
            memcpy(b, user, nu);
            b += nu;
            if (nu && nl) {
                memcpy(b, rest, sizeof rest - 1);
                b += sizeof rest - 1;
            }
            memcpy(b, library, nl);
            b += nl;
            if (b > body && b[-1] != '\n') *b++ = '\n';
            memcpy(b, options, sizeof options - 1);
            b += sizeof options - 1;
            memcpy(b, defines, nd + 1);
        }
    }
    clscan__fail_text(ctx, CLSCAN_ERROR_BUILD_FAILED, prefix,
                      body ? body : log ? log : "(no log)");
    free(body);
    free(user);
    free(library);
    free(log);
    return CLSCAN_ERROR_BUILD_FAILED;
}

/* Passes a successful build's log to the build-log hook, where one is set (tests). */
static void report_build_log(const clscan__target *t, cl_program program,
                             const char *const *texts, const size_t *lengths, cl_uint count,
                             const char *defines, int user_texts)
{
    void *hook_user = NULL;
    clscan__build_log_fn fn = clscan__build_log_hook_get(&hook_user);
    if (!fn) return;
    char *log = read_build_log(program, t->device), *user = NULL, *library = NULL, *rewritten;
    if (log && (rewritten = apply_line_directives(log, texts, lengths, count))) {
        free(log);
        log = rewritten;
    }
    char what[512];
    const char *nl = strchr(defines, '\n');
    snprintf(what, sizeof what, "%.*s", nl ? (int)(nl - defines) : (int)strlen(defines),
             defines);
    if (log && build_log_split(log, user_texts, &user, &library))
        fn(library, user, what, hook_user);
    else
        fn(log ? log : "(the build log could not be read)", "", what, hook_user);
    free(user);
    free(library);
    free(log);
}

/* Creates kernel `name`; *max_wg receives the largest work-group it can run with. */
static clscan_status create_kernel(const clscan_context *ctx, const clscan__target *t,
                                   cl_program program, const char *name,
                                   cl_kernel *out, size_t *max_wg)
{
    cl_int err;
    *out = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) return clscan__fail_cl(ctx, err, name);
    size_t wg = 0;
    err = clGetKernelWorkGroupInfo(*out, t->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                   NULL);
    if (err != CL_SUCCESS) return clscan__fail_cl(ctx, err, "clGetKernelWorkGroupInfo");
    if (wg < *max_wg) *max_wg = wg;
    return CLSCAN_SUCCESS;
}

/* Builds the program for one shape into prog (no locks held: builds are slow and may
 * run in parallel). *max_wg receives the largest work-group all its kernels allow. */
static clscan_status build_shape(const clscan_context *ctx, const clscan__target *t,
                                 clscan__program *prog, size_t *max_wg)
{
    char defines[2048];
    size_t dlen = clscan__kernel_defines(&prog->config, &t->profile, CLSCAN__DEFINES_BLOCK, defines,
                                         sizeof defines);
    if (dlen == 0 || dlen >= sizeof defines)
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "kernel options too long");
    enum { NFILES = sizeof program_files / sizeof program_files[0] };
    const clscan__scan_config *cfg = &prog->config;
    const char *texts[NFILES + 3] = {defines};
    size_t lengths[NFILES + 3] = {dlen};
    cl_uint count = 1;
    if (cfg->prelude) {
        texts[count] = cfg->prelude;
        lengths[count++] = strlen(cfg->prelude);
    }
    for (size_t i = 0; i < NFILES; ++i) {
        if (!(program_files[i].kinds & program_file_kind(cfg)) ||
            (program_files[i].lookback && cfg->algo != CLSCAN__SCAN_SINGLE_PASS))
            continue;
        texts[count] = clscan__embedded_source(program_files[i].name, &lengths[count]);
        if (!texts[count])
            return clscan__fail(ctx, CLSCAN_ERROR_BUILD_FAILED, "embedded source %s missing",
                                program_files[i].name);
        ++count;
    }
    char *predicate = NULL;
    if (cfg->predicate) {
        if (!(predicate = predicate_source(cfg->predicate)))
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
        texts[count] = predicate;
        lengths[count++] = strlen(predicate);
    }
    /* The disk cache first (diskcache.c): a binary built earlier from exactly these texts
     * and options, for this device and driver. Anything wrong with it, or with the cache
     * itself, means a build from source, whose binary then replaces the file. */
    const char *options = clscan__cl_std_option(cfg, &t->profile);
    clscan__cache_key dkey;
    const int cached = clscan__diskcache_key(&t->cache, texts, lengths, count, options, &dkey);
    if (cached) prog->program = clscan__diskcache_load(t, &dkey, options);
    cl_int err = CL_SUCCESS;
    if (!prog->program) {
        prog->program = clCreateProgramWithSource(t->cl_ctx, count, texts, lengths, &err);
        if (err == CL_SUCCESS) {
            clscan__cache_stat_add(CLSCAN__CACHE_SOURCE_BUILDS);
            err = clBuildProgram(prog->program, 1, &t->device, options, NULL, NULL);
            if (err == CL_SUCCESS) {
                report_build_log(t, prog->program, texts, lengths, count, defines,
                                 cfg->predicate || cfg->kind == CLSCAN__PROGRAM_GENERAL);
                /* (The register cap goes into the binary the disk cache keeps. A general
                 * single-pass program on NVIDIA's warps without one may ask for the cap
                 * that fits its local memory: cl/clscan_general.cl.) */
                cl_uint cap = cfg->ptx_maxnreg;
                if (!cap && cfg->kind == CLSCAN__PROGRAM_GENERAL &&
                    cfg->algo == CLSCAN__SCAN_SINGLE_PASS && cfg->sg_impl == CLSCAN__SG_NVIDIA &&
                    cfg->lb_walk == CLSCAN__LB_WALK_AUTO)
                    cap = clscan__ptx_fit_registers(t, prog->program, "clscan_gen_single",
                                                    cfg->wg_size);
                if (cap)
                    prog->program =
                        clscan__program_with_register_cap(t, prog->program, cap, options);
                if (cached) clscan__diskcache_store(t, &dkey, prog->program);
            }
        }
    }
    if (cached) clscan__diskcache_key_free(&dkey);
    if (!prog->program) {
        free(predicate);
        return clscan__fail_cl(ctx, err, "clCreateProgramWithSource");
    }
    if (err != CL_SUCCESS) {
        const clscan_status failed =
            build_failed(ctx, t, prog->program, err, texts, lengths, count, defines,
                         cfg->predicate, cfg->kind == CLSCAN__PROGRAM_GENERAL);
        free(predicate);
        return failed;
    }
    free(predicate);
    /* Kernels with a tile shape must allow the configured work-group size; the others
     * (one work-item, or any size) are asked nothing. */
    const int single = cfg->algo == CLSCAN__SCAN_SINGLE_PASS;
    const int general = cfg->kind == CLSCAN__PROGRAM_GENERAL;
    const int sort = cfg->kind == CLSCAN__PROGRAM_SORT;
    const int hist = cfg->kind == CLSCAN__PROGRAM_HIST;
    /* Which kernels the program holds, and whether each has the tile's shape (the
     * others, one work-item or any size, are asked nothing). A sort program holds only
     * its own kernels (it scans its counts with a scan program); a general program scans
     * its partials, recursively, with the first three; a histogram program holds its own
     * and the clear kernel. */
    int wanted[CLSCAN__KERNEL_COUNT] = {0};
    wanted[CLSCAN__K_REDUCE] = wanted[CLSCAN__K_PARTIALS] = wanted[CLSCAN__K_SCAN] =
        !sort && !hist;
    wanted[CLSCAN__K_SINGLE] = wanted[CLSCAN__K_REDUCE_SINGLE] =
        single && !cfg->select && !general;
    wanted[CLSCAN__K_CLEAR] = (single && !hist) || (sort && cfg->sort_onesweep) || hist;
    wanted[CLSCAN__K_SEL_COUNT] = wanted[CLSCAN__K_SEL_WRITE] = wanted[CLSCAN__K_SEL_ZERO] =
        cfg->select != 0;
    wanted[CLSCAN__K_SEL_SINGLE] = single && cfg->select;
    wanted[CLSCAN__K_GEN_REDUCE] = wanted[CLSCAN__K_GEN_SCAN] = general;
    wanted[CLSCAN__K_GEN_SINGLE] = general && single;
    wanted[CLSCAN__K_SORT_HIST] = wanted[CLSCAN__K_SORT_SCATTER] = sort && !cfg->sort_onesweep;
    wanted[CLSCAN__K_SORT_OS_HIST] = wanted[CLSCAN__K_SORT_OS_PASS] = sort && cfg->sort_onesweep;
    for (int k = CLSCAN__K_SORT_BK_RANGE; k <= CLSCAN__K_SORT_BK_BUCKETS; ++k)
        wanted[k] = sort && !cfg->sort_onesweep && cfg->sort_buckets;
    wanted[CLSCAN__K_HIST_LOCAL] = wanted[CLSCAN__K_HIST_GLOBAL] = wanted[CLSCAN__K_HIST_SUM] =
        hist;
    wanted[CLSCAN__K_HIST_FUSED] = hist && cfg->hist_fused;
    *max_wg = cfg->wg_size;
    clscan_status s = CLSCAN_SUCCESS;
    for (int k = 0; k < CLSCAN__KERNEL_COUNT && s == CLSCAN_SUCCESS; ++k) {
        size_t any = (size_t)-1;
        if (wanted[k])
            s = create_kernel(ctx, t, prog->program, kernel_table[k].name, &prog->kernels[k],
                              kernel_table[k].shaped ? max_wg : &any);
    }
    return s;
}

static void release_shape(clscan__program *prog)
{
    for (int k = 0; k < CLSCAN__KERNEL_COUNT; ++k) {
        if (prog->kernels[k]) clReleaseKernel(prog->kernels[k]);
        prog->kernels[k] = NULL;
    }
    if (prog->program) clReleaseProgram(prog->program);
    prog->program = NULL;
}

/* clGetKernelSubGroupInfo is OpenCL 2.1; the library compiles against the 1.2 API, so
 * it is declared here, weak: a loader without it leaves the pointer NULL. */
#define CLSCAN_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE 0x2033
typedef cl_int(CL_API_CALL *kernel_sg_info_fn)(cl_kernel, cl_device_id, cl_uint, size_t,
                                               const void *, size_t, void *, size_t *);
extern CL_API_ENTRY cl_int CL_API_CALL clGetKernelSubGroupInfo(cl_kernel, cl_device_id,
                                                               cl_uint, size_t, const void *,
                                                               size_t, void *, size_t *)
    __attribute__((weak));

/* The KHR sub-group layer is compiled for prog->config.sg_width, but the compiler picks
 * the width: ask the built kernel (clGetKernelSubGroupInfo, or clGetKernelSubGroupInfoKHR
 * of cl_khr_subgroups). Returns 1 if they agree; otherwise changes the config (to the
 * reported width, or to local memory and Blelloch when no usable answer comes) and
 * returns 0, so the caller rebuilds. */
static int kernel_sg_width_matches(const clscan__target *t, clscan__program *prog)
{
    kernel_sg_info_fn fn = NULL;
    cl_platform_id platform = NULL;
    if (clGetDeviceInfo(t->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) ==
            CL_SUCCESS &&
        clscan__has_token(t->profile.extensions, "cl_khr_subgroups"))
        fn = (kernel_sg_info_fn)clGetExtensionFunctionAddressForPlatform(
            platform, "clGetKernelSubGroupInfoKHR");
    if (!fn && (t->profile.cl_major > 2 || (t->profile.cl_major == 2 &&
                                              t->profile.cl_minor >= 1)))
        fn = clGetKernelSubGroupInfo;
    size_t wg = prog->config.wg_size, width = 0;
    if (!fn || fn(prog->kernels[CLSCAN__K_SCAN], t->device, CLSCAN_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                  sizeof wg, &wg, sizeof width, &width, NULL) != CL_SUCCESS)
        width = 0;
    if (width == prog->config.sg_width) return 1;
    if (width && !(width & (width - 1)) && width <= wg) {
        prog->config.sg_width = (cl_uint)width;
    } else {
        prog->config.sg_impl = CLSCAN__SG_LOCAL;
        prog->config.wg_algo = CLSCAN__WG_BLELLOCH;
    }
    return 0;
}

/* Builds the program cached under `key` for cfg. Where the compiled kernels allow
 * fewer work-items than asked for (registers, or an implementation's own limit), it
 * is rebuilt with the largest power of two they allow; the cache entry keeps the
 * shape actually built in prog->config. */
clscan_status clscan__program_build(const clscan_context *ctx, const clscan__target *t,
                                    const clscan__scan_config *cfg, const char *key,
                                    clscan__program **out)
{
    *out = NULL;
    clscan__program *prog = calloc(1, sizeof *prog);
    if (!prog) return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    prog->config = *cfg;
    prog->key = strdup(key);
    prog->predicate = cfg->predicate ? strdup(cfg->predicate) : NULL;
    prog->prelude = cfg->prelude ? strdup(cfg->prelude) : NULL;
    if (!prog->key || (cfg->predicate && !prog->predicate) ||
        (cfg->prelude && !prog->prelude) || pthread_mutex_init(&prog->lock, NULL) != 0) {
        free(prog->key);
        free(prog->predicate);
        free(prog->prelude);
        free(prog);
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    }
    prog->config.predicate = prog->predicate;
    prog->config.prelude = prog->prelude;
    int width_rebuilds = 0;
    for (;;) {
        size_t max_wg = 0;
        clscan_status s = build_shape(ctx, t, prog, &max_wg);
        if (s == CLSCAN_SUCCESS && max_wg >= prog->config.wg_size) {
            if (prog->config.sg_impl != CLSCAN__SG_KHR ||
                kernel_sg_width_matches(t, prog))
                break;
            release_shape(prog); /* rebuilt for the width the kernel really has */
            /* A compiler whose width keeps changing with the source gets local memory. */
            if (++width_rebuilds > 2) {
                prog->config.sg_impl = CLSCAN__SG_LOCAL;
                prog->config.wg_algo = CLSCAN__WG_BLELLOCH;
            }
            continue;
        }
        release_shape(prog);
        if (s != CLSCAN_SUCCESS || max_wg == 0) {
            clscan__program_free(prog);
            return s != CLSCAN_SUCCESS
                       ? s
                       : clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                                      "the scan kernels cannot run with any work-group size");
        }
        if (s == CLSCAN_SUCCESS && max_wg < prog->config.wg_size) {
            while (prog->config.wg_size > max_wg) prog->config.wg_size >>= 1;
            clscan__config_subgroups_fit(&prog->config);
        }
    }
    *out = prog;
    return CLSCAN_SUCCESS;
}

/* ---------------------------------------------------------------- warming -- */

/* ------------------------------------------------------ options for users -- */

#ifndef CLSCAN_INSTALL_INCLUDEDIR
#error "the build defines CLSCAN_INSTALL_INCLUDEDIR, where clscan/*.cl are installed"
#endif
