/* test_probecache.c - Check suite for the bank probe's record in the disk cache
 * (device/banks.c through kernels/diskcache.c): a context created with a fresh cache
 * directory measures and writes clscan-probe-*.bin, whose payload decodes to exactly the
 * result it measured, field by field; a context in a later process loads that file and
 * has the same result, field by field; a damaged file (truncated, flipped bits, another
 * format, garbage, a payload the probe cannot give) is measured over and rewritten; a
 * file keyed for another driver, library version or probe is not used, whether it stands
 * at this key's name or beside it; with the disk cache off nothing is read or written.
 *
 * Every context is made in a child process of its own (the device's result is otherwise
 * kept in memory for the process), which reports back through a pipe; the test's own
 * process opens no OpenCL. The probe is forced on (CLSCAN_BANK_PROBE=1: CPUs skip it by
 * default) and so is the disk cache (CLSCAN_DISK_CACHE=1: PoCL leaves it off by default).
 * Runs on the first device of the first platform that has one (CLSCAN_TEST_PLATFORM: of
 * the first platform whose name contains it). Each test makes its own directory under
 * $CLSCAN_CACHE_DIR (tests/meson.build points it into the build tree; without it, a new
 * directory in /tmp). */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"
#include "test_cacheroot.h"

#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

enum { PC_ROOT_MAX = 1024, PC_DIR_MAX = 1280, PC_HEADER = 40 };
static char pc_root[PC_ROOT_MAX];

/* ------------------------------------------------------------ files --------- */

/* A new, empty cache directory for the test `name`, and the library's environment set
 * to use it with the probe and the disk cache on. */
static void pc_start(const char *name, char dir[PC_DIR_MAX])
{
    snprintf(dir, PC_DIR_MAX, "%s/%s-%ld", pc_root, name, (long)getpid());
    clscan_test_remove_tree(dir);
    ck_assert_msg(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
    setenv("CLSCAN_CACHE_DIR", dir, 1);
    setenv("CLSCAN_DISK_CACHE", "1", 1);
    setenv("CLSCAN_BANK_PROBE", "1", 1);
}



/* How many clscan-probe-*.bin files dir holds; the last one's path in path. Fails on
 * anything else there but program files (no temporary file left behind). */
static int pc_probe_files(const char *dir, char path[PATH_MAX])
{
    int n = 0;
    DIR *dp = opendir(dir);
    ck_assert_msg(dp != NULL, "opendir %s: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(dp)) != NULL;) {
        const char *name = e->d_name;
        if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
        ck_assert_msg(!strncmp(name, "clscan-", 7) && strlen(name) > 4 &&
                          !strcmp(name + strlen(name) - 4, ".bin"),
                      "%s: unexpected file %s", dir, name);
        if (!strncmp(name, "clscan-probe-", 13)) {
            snprintf(path, PATH_MAX, "%s/%s", dir, name);
            n++;
        }
    }
    closedir(dp);
    return n;
}

/* The one probe file of dir, checked: valid, keyed by the library, device and probe, its
 * payload a result. Fills path, *out, and (if not NULL) the file's key text (malloc'd). */
static void pc_read_probe_file(const char *dir, char path[PATH_MAX], clscan__bank_result *out,
                               char **key)
{
    ck_assert_int_eq(pc_probe_files(dir, path), 1);
    clscan__diskcache_file f;
    ck_assert_msg(clscan__diskcache_read_file(path, &f) == CLSCAN__FILE_VALID, "%s: %s", path,
                  clscan__diskcache_last_reason());
    char *text = strndup(f.key, f.key_length);
    ck_assert(text != NULL);
    ck_assert_msg(!strncmp(text, "libclscan ", 10) && strstr(text, "\ndriver: ") &&
                      strstr(text, "\nrecord: probe\nbank probe: record "),
                  "%s: key text\n%s", path, text);
    ck_assert_msg(clscan__bank_record_decode(f.payload, f.payload_length, out),
                  "%s: the payload is not a bank probe result", path);
    clscan__diskcache_file_free(&f);
    if (key) *key = text;
    else free(text);
}

/* ------------------------------------------------------------ children ------ */

/* What a child process found when it created a context. */
typedef struct pc_report {
    char error[512];            /* "" when all went well */
    int ran;                    /* profile.bank_probe_ran */
    clscan__probe_origin how;
    char why[200];              /* origin.why, or "" for NULL */
    clscan__bank_result result; /* profile.bank_probe */
    char line[800];             /* describe's "bank probe:" line */
} pc_report;

/* In the child: opens the device, creates a context and fills r. */
static void pc_child_create(pc_report *r)
{
    const char *want = getenv("CLSCAN_TEST_PLATFORM");
    cl_platform_id plats[16];
    cl_uint count = 0;
    cl_device_id device = NULL;
    if (clGetPlatformIDs(16, plats, &count) != CL_SUCCESS) count = 0;
    for (cl_uint p = 0; p < count && p < 16 && !device; p++) {
        char name[200] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        int match = !want;
        for (size_t i = 0; want && !match && name[i]; ++i)
            match = !strncasecmp(name + i, want, strlen(want));
        if (match && clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
            device = NULL;
    }
    if (!device) {
        snprintf(r->error, sizeof r->error, "no OpenCL device found");
        return;
    }
    cl_int err;
    cl_context cl_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!cl_ctx) {
        snprintf(r->error, sizeof r->error, "clCreateContext: %s", clscan_status_string(err));
        return;
    }
    clscan_context *ctx = NULL;
    clscan_status s = clscan_context_create(cl_ctx, device, &ctx);
    if (s != CLSCAN_SUCCESS) {
        snprintf(r->error, sizeof r->error, "clscan_context_create: %s: %s",
                 clscan_status_string(s), clscan_context_last_error(NULL));
    } else {
        const clscan__profile *p = &ctx->target.profile;
        r->ran = p->bank_probe_ran;
        r->how = p->bank_probe_origin.how;
        snprintf(r->why, sizeof r->why, "%s", p->bank_probe_origin.why ? p->bank_probe_origin.why : "");
        r->result = p->bank_probe;
        char text[8192];
        clscan_context_describe(ctx, text, sizeof text);
        const char *at = strstr(text, "bank probe:");
        if (at) snprintf(r->line, sizeof r->line, "%.*s", (int)strcspn(at, "\n"), at);
        /* Tools find the disk cache's line by its text: no other line may hold it. */
        int lines = 0;
        for (const char *t = text; (t = strstr(t, "disk cache:")) != NULL; ++t) lines++;
        if (lines != 1)
            snprintf(r->error, sizeof r->error, "describe holds \"disk cache:\" %d times:\n%.400s",
                     lines, text);
    }
    clscan_context_release(ctx);
    clReleaseContext(cl_ctx);
}

/* Creates a context in a new process; returns what it found (failing on an error). */
static pc_report pc_child(const char *what)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        static pc_report r;
        close(fds[0]);
        pc_child_create(&r);
        const char *p = (const char *)&r;
        for (size_t done = 0; done < sizeof r;) {
            ssize_t n = write(fds[1], p + done, sizeof r - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) _exit(3);
            done += (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    pc_report r;
    memset(&r, 0, sizeof r);
    size_t done = 0;
    while (done < sizeof r) {
        ssize_t n = read(fds[0], (char *)&r + done, sizeof r - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && done == sizeof r,
                  "%s: the child failed (status 0x%x, %zu bytes reported)", what, status, done);
    ck_assert_msg(!r.error[0], "%s: %s", what, r.error);
    ck_assert_msg(r.ran, "%s: the bank probe did not run (CLSCAN_BANK_PROBE=1)", what);
    fprintf(stderr, "%s: %s\n", what, r.line);
    return r;
}

/* Field by field: what the record carries must come back unchanged. */
static void pc_same(const char *what, const clscan__bank_result *got,
                    const clscan__bank_result *want)
{
    ck_assert_msg(got->measured == want->measured && got->banks == want->banks &&
                      got->width == want->width && !strcmp(got->detail, want->detail),
                  "%s: %d, %u banks x %u B, \"%s\"; expected %d, %u x %u, \"%s\"", what,
                  got->measured, got->banks, got->width, got->detail, want->measured,
                  want->banks, want->width, want->detail);
    ck_assert_msg(memcmp(got, want, sizeof *got) == 0, "%s: the bytes differ", what);
}

/* A child that measures (why containing `why`), rewrites the probe file with the right
 * key (`key`) and its result, and a second one that loads it. */
static void pc_expect_remeasured(const char *what, const char *dir, const char *key,
                                 const char *why)
{
    pc_report r = pc_child(what);
    ck_assert_msg(r.how == CLSCAN__PROBE_MEASURED, "%s: origin %d, not measured", what, r.how);
    ck_assert_msg(strstr(r.why, why) != NULL, "%s: why \"%s\", expected \"%s\"", what, r.why,
                  why);
    ck_assert_msg(strstr(r.line, "(measured now; probe file: ") != NULL, "%s: %s", what, r.line);
    char path[PATH_MAX], *text;
    clscan__bank_result kept;
    pc_read_probe_file(dir, path, &kept, &text);
    ck_assert_msg(!strcmp(text, key), "%s: rewritten with another key:\n%s", what, text);
    free(text);
    pc_same(what, &kept, &r.result);
    pc_report again = pc_child(what);
    ck_assert_msg(again.how == CLSCAN__PROBE_LOADED, "%s, then: origin %d, not loaded", what,
                  again.how);
    pc_same(what, &again.result, &r.result);
}

/* ------------------------------------------------------------ tests --------- */

/* Fresh directory: the first context measures and writes the file, whose payload is its
 * result field by field; the second, in another process, loads it and has that result;
 * with the disk cache off, the probe runs and the file is neither used nor touched. */
START_TEST(test_probe_second_process)
{
    char dir[PC_DIR_MAX], path[PATH_MAX];
    pc_start("second", dir);
    ck_assert_int_eq(pc_probe_files(dir, path), 0);

    pc_report first = pc_child("first context");
    ck_assert_int_eq(first.how, CLSCAN__PROBE_MEASURED);
    ck_assert_str_eq(first.why, "no file");
    ck_assert(strstr(first.line, "(measured now; probe file: no file): ") != NULL);
    clscan__bank_result stored;
    pc_read_probe_file(dir, path, &stored, NULL);
    pc_same("the file written", &stored, &first.result);
    size_t len;
    unsigned char *bytes = clscan_test_slurp(path, &len);

    pc_report second = pc_child("second context");
    ck_assert_int_eq(second.how, CLSCAN__PROBE_LOADED);
    ck_assert(strstr(second.line, "(loaded from the disk cache): ") != NULL);
    pc_same("the second context", &second.result, &first.result);
    size_t len2;
    unsigned char *bytes2 = clscan_test_slurp(path, &len2);
    ck_assert_msg(len2 == len && !memcmp(bytes, bytes2, len), "loading rewrote the file");
    free(bytes2);
    ck_assert_int_eq(pc_probe_files(dir, path), 1);

    setenv("CLSCAN_DISK_CACHE", "0", 1);
    pc_report off = pc_child("disk cache off");
    ck_assert_int_eq(off.how, CLSCAN__PROBE_MEASURED);
    ck_assert_str_eq(off.why, "");
    ck_assert(strstr(off.line, "(measured now; the disk cache is off): ") != NULL);
    bytes2 = clscan_test_slurp(path, &len2);
    ck_assert_msg(len2 == len && !memcmp(bytes, bytes2, len), "the cache off wrote the file");
    ck_assert_int_eq(pc_probe_files(dir, path), 1);
    free(bytes2);
    free(bytes);
    clscan_test_remove_tree(dir);
}
END_TEST

/* Each damage to the file: measured over, rewritten with the right key, then loaded. */
START_TEST(test_probe_damaged_file)
{
    char dir[PC_DIR_MAX], path[PATH_MAX], *key;
    pc_start("damaged", dir);
    pc_child("first context");
    clscan__bank_result stored;
    pc_read_probe_file(dir, path, &stored, &key);
    size_t len;
    unsigned char *good = clscan_test_slurp(path, &len);
    const size_t k = strlen(key), payload = len - PC_HEADER - k;
    ck_assert(payload >= 16);
    unsigned char *bad = malloc(len + 100);
    ck_assert(bad != NULL);

    /* Where each damage falls: offsets into the file of 40 header bytes, k of key text,
     * then the payload. */
    enum { TRUNCATE, FLIP, APPEND, GARBAGE };
    const struct {
        const char *what;
        int kind;
        size_t at;       /* TRUNCATE: bytes kept; FLIP: the byte flipped */
        const char *why; /* a part of the reason the child must give */
    } damages[] = {
        {"zero-length file", TRUNCATE, 0, "shorter than the header"},
        {"truncated in the header", TRUNCATE, 20, "shorter than the header"},
        {"truncated payload", TRUNCATE, PC_HEADER + k + payload / 2, "length"},
        {"100 bytes appended", APPEND, 0, "length"},
        {"one bit of the payload flipped", FLIP, PC_HEADER + k + 2, "payload checksum"},
        {"one bit of the key text flipped", FLIP, PC_HEADER + k / 2, "header checksum"},
        {"another format version", FLIP, 8, "format version"},
        {"wrong magic", FLIP, 3, "magic"},
        {"random bytes", GARBAGE, 0, "wrong magic"},
    };
    for (size_t d = 0; d < sizeof damages / sizeof damages[0]; ++d) {
        memcpy(bad, good, len);
        size_t n = len;
        switch (damages[d].kind) {
        case TRUNCATE: n = damages[d].at; break;
        case FLIP: bad[damages[d].at] ^= 0x04; break;
        case APPEND: memset(bad + len, 0x5a, 100), n = len + 100; break;
        default:
            for (size_t i = 0; i < len; ++i) bad[i] = (unsigned char)(i * 131 + 17);
        }
        clscan_test_spit(path, bad, n);
        pc_expect_remeasured(damages[d].what, dir, key, damages[d].why);
    }
    /* A valid file with the right key whose payload the probe cannot have given (3 banks). */
    static const unsigned char three[16] = {1, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0};
    ck_assert(clscan__diskcache_write_file(path, key, k, three, sizeof three));
    pc_expect_remeasured("a payload that is no probe result", dir, key,
                         "the record is not a bank probe result");
    free(bad);
    free(good);
    free(key);
    clscan_test_remove_tree(dir);
}
END_TEST

/* key with the line starting with `line` replaced by `with` (malloc'd). */
static char *pc_replace_line(const char *key, const char *line, const char *with)
{
    const char *at = strstr(key, line);
    ck_assert_msg(at != NULL, "the key text has no \"%s\" line:\n%s", line, key);
    const char *eol = strchr(at, '\n');
    ck_assert(eol != NULL);
    size_t n = strlen(key) + strlen(with) + 2;
    char *out = malloc(n);
    ck_assert(out != NULL);
    snprintf(out, n, "%.*s%s%s", (int)(at - key), key, with, eol);
    return out;
}

/* A record keyed for another driver, library version or probe is not used: where it
 * stands at this key's file name, it is measured over and replaced; where it stands at
 * its own name (as that driver would have written it), it is left alone and this key's
 * file is written beside it. */
START_TEST(test_probe_key_mismatch)
{
    char dir[PC_DIR_MAX], path[PATH_MAX], *key;
    pc_start("key", dir);
    pc_child("first context");
    clscan__bank_result stored;
    pc_read_probe_file(dir, path, &stored, &key);
    unsigned char payload[16 + sizeof stored.detail];
    const size_t plen = clscan__bank_record_encode(&stored, payload, sizeof payload);

    static const struct {
        const char *what, *line, *with;
    } foreign[] = {
        {"another driver version", "driver: ", "driver: another driver 0.0"},
        {"another library version", "libclscan ", "libclscan 99.0.0, disk cache format 1"},
        {"another device", "device: ", "device: another device; vendor none (0x0); OpenCL 3.0"},
        {"another probe version", "bank probe: ",
         "bank probe: record 0; clscan_banks.cl 1 bytes, mix64 0; max work-group 1; "
         "local memory 1 bytes"},
    };
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; ++i) {
        char *other = pc_replace_line(key, foreign[i].line, foreign[i].with);
        ck_assert(clscan__diskcache_write_file(path, other, strlen(other), payload, plen));
        pc_expect_remeasured(foreign[i].what, dir, key, "the key text differs");
        free(other);
    }

    /* Another driver's record under its own name: the name is the hash of its key text,
     * as clscan__diskcache_record_key makes it from that identity. */
    char *other = pc_replace_line(key, "driver: ", "driver: another driver 0.0");
    const char *rec = strstr(other, "record: probe\n");
    ck_assert(rec != NULL);
    char *identity = strndup(other, (size_t)(rec - other));
    clscan__diskcache_config cfg = {1, dir, "test", identity, NULL};
    char *other_path, *other_text;
    ck_assert(clscan__diskcache_record_key(&cfg, "probe", rec + strlen("record: probe\n"),
                                           &other_path, &other_text));
    ck_assert_str_eq(other_text, other);
    ck_assert_str_ne(other_path, path);
    ck_assert(clscan__diskcache_write_file(other_path, other, strlen(other), payload, plen));
    unlink(path);
    size_t olen;
    unsigned char *obytes = clscan_test_slurp(other_path, &olen);
    pc_report r = pc_child("only another driver's file");
    ck_assert_int_eq(r.how, CLSCAN__PROBE_MEASURED);
    ck_assert_str_eq(r.why, "no file");
    size_t olen2;
    unsigned char *obytes2 = clscan_test_slurp(other_path, &olen2);
    ck_assert_msg(olen2 == olen && !memcmp(obytes, obytes2, olen),
                  "another driver's file was touched");
    unlink(other_path); /* leaves this key's, newly written */
    clscan__bank_result kept;
    char *text;
    pc_read_probe_file(dir, path, &kept, &text);
    ck_assert_str_eq(text, key);
    pc_same("beside another driver's", &kept, &r.result);
    free(text);
    free(obytes);
    free(obytes2);
    free(other_path);
    free(other_text);
    free(identity);
    free(other);
    free(key);
    clscan_test_remove_tree(dir);
}
END_TEST

static Suite *pc_suite(void)
{
    Suite *s = suite_create("probecache");
    TCase *tc = tcase_create("probe");
    tcase_set_timeout(tc, 280);
    tcase_add_test(tc, test_probe_second_process);
    tcase_add_test(tc, test_probe_damaged_file);
    tcase_add_test(tc, test_probe_key_mismatch);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return clscan_test_cache_main(pc_suite(), pc_root, sizeof pc_root, "probecache");
}
