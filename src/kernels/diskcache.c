/* diskcache.c - the disk cache of built programs: where it lives (CLSCAN_DISK_CACHE,
 * CLSCAN_CACHE_DIR, settled at context creation), the key that identifies a program
 * (device, driver, library version, build options, a digest of the full source text),
 * and loading and storing a program through the files of kernels/diskcache_file.c; and
 * the small records kept beside the programs (the bank probe's result).
 * Nothing here ever fails a call: a cache that cannot be read or written is simply not
 * used. A program's file is <cache dir>/clscan-<32 hex digits>.bin, a record's
 * clscan-<name>-<32 hex digits>.bin, the digits two independent 64-bit hashes of the key
 * text. */
/* SPDX-License-Identifier: MIT */
#include "kernels/kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_DIR_LENGTH 3800                     /* leaves room for the file names */

/* The hashes' starting points. */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define SEED_NAME 0x6e616d6530303031ull    /* "name0001" */
#define SEED_SOURCE 0x736f757263653031ull  /* "source01" */

/* ---------------------------------------------------------------- settings -- */

/* The lines every key of this device starts with: library and format version, then
 * what the device and its driver say they are (the profile's identity, queried once by
 * device/probe.c). NULL when the identity is unknown or memory runs out. */
static char *cache_identity(const char *device_lines)
{
    if (!device_lines) return NULL;
    const char *fmt = "libclscan %d.%d.%d, disk cache format %u\n%s";
    int len = snprintf(NULL, 0, fmt, CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR,
                       CLSCAN_VERSION_PATCH, CLSCAN__DISKCACHE_FORMAT, device_lines);
    char *out = len > 0 ? malloc((size_t)len + 1) : NULL;
    if (out)
        snprintf(out, (size_t)len + 1, fmt, CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR,
                 CLSCAN_VERSION_PATCH, CLSCAN__DISKCACHE_FORMAT, device_lines);
    return out;
}

/* dir + suffix as a new string, or NULL. */
static char *join(const char *dir, const char *suffix)
{
    size_t ld = strlen(dir), ls = strlen(suffix);
    char *out = malloc(ld + ls + 1);
    if (!out) return NULL;
    memcpy(out, dir, ld);
    memcpy(out + ld, suffix, ls + 1);
    return out;
}

clscan_status clscan__diskcache_settings(const clscan_context *ctx,
                                         const clscan__profile *profile,
                                         clscan__getenv_fn getenv_fn, void *user,
                                         clscan__diskcache_config *p)
{
    p->disk_cache = 0;
    p->cache_dir = NULL;
    p->cache_identity = NULL;
    p->cache_note = NULL;
    const char *sw = getenv_fn("CLSCAN_DISK_CACHE", user);
    if (sw && strcmp(sw, "0") != 0 && strcmp(sw, "1") != 0)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_DISK_CACHE=\"%s\": expected 0 (off) or 1 (on)", sw);
    const char *env_dir = getenv_fn("CLSCAN_CACHE_DIR", user);
    if (env_dir && !*env_dir)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_CACHE_DIR is empty: expected a directory "
                            "(CLSCAN_DISK_CACHE=0 turns the disk cache off)");
    if (env_dir && strlen(env_dir) > MAX_DIR_LENGTH)
        return clscan__fail(ctx, CLSCAN_ERROR_INVALID_ENVIRONMENT,
                            "CLSCAN_CACHE_DIR is %zu bytes long: at most %d allowed",
                            strlen(env_dir), MAX_DIR_LENGTH);
    if (sw && sw[0] == '0') {
        p->cache_source = "off: CLSCAN_DISK_CACHE=0";
        return CLSCAN_SUCCESS;
    }
    /* PoCL keeps every program it builds in its own cache (POCL_CACHE_DIR), and asking it
     * for a binary makes it compile every kernel of the program at once: on 2 cores a
     * cold first scan took 2.0 s instead of 0.7 s, and saved 21 ms once both caches were
     * warm (docs/PERFORMANCE.md). There the cache is on only when asked for. */
    if (!sw && strstr(profile->platform_name, "Portable Computing Language")) {
        p->cache_source = "off by default on PoCL, which caches programs itself "
                          "(CLSCAN_DISK_CACHE=1 turns it on)";
        return CLSCAN_SUCCESS;
    }

    const char *xdg = getenv_fn("XDG_CACHE_HOME", user), *home = getenv_fn("HOME", user);
    char *dir = NULL;
    if (env_dir && env_dir[0] == '/') {
        dir = join(env_dir, "");
        p->cache_source = "CLSCAN_CACHE_DIR";
    } else if (env_dir) { /* relative: to the working directory at context creation */
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd) || strlen(cwd) + strlen(env_dir) + 1 > MAX_DIR_LENGTH) {
            p->cache_source = "off: CLSCAN_CACHE_DIR is relative and the working directory "
                              "cannot be read";
            return CLSCAN_SUCCESS;
        }
        strcat(cwd, "/");
        dir = join(cwd, env_dir);
        p->cache_source = "CLSCAN_CACHE_DIR, relative to the working directory";
    } else if (xdg && xdg[0] == '/' && strlen(xdg) <= MAX_DIR_LENGTH) {
        /* (The XDG specification says to ignore a relative XDG_CACHE_HOME.) */
        dir = join(xdg, "/clscan");
        p->cache_source = "default: $XDG_CACHE_HOME/clscan";
    } else if (home && *home && strlen(home) <= MAX_DIR_LENGTH) {
        dir = join(home, "/.cache/clscan");
        p->cache_source = "default: $HOME/.cache/clscan";
    } else {
        p->cache_source = "off: none of CLSCAN_CACHE_DIR, XDG_CACHE_HOME and HOME is set";
        return CLSCAN_SUCCESS;
    }
    if (!dir) return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    /* "a/b/" and "a/b" are one directory: drop trailing slashes (but keep "/"). */
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; --n) dir[n - 1] = '\0';
    /* An existing directory someone else owns or may write is not used (one that does
     * not exist yet is made with mode 0700 when the first program is written). */
    struct stat st;
    const char *untrusted;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (untrusted = clscan__diskcache_untrusted(&st))) {
        const size_t size = strlen(dir) + 200;
        p->cache_note = malloc(size);
        if (p->cache_note)
            snprintf(p->cache_note, size,
                     "off: %s is %s (owner uid %lu, mode %03o; this user is uid %lu), and "
                     "whoever can write the cache runs code in the processes that load it",
                     dir, untrusted, (unsigned long)st.st_uid, (unsigned)(st.st_mode & 0777),
                     (unsigned long)geteuid());
        p->cache_source = p->cache_note ? p->cache_note : "off: the directory is not trusted";
        free(dir);
        return CLSCAN_SUCCESS;
    }
    if (!(p->cache_identity = cache_identity(profile->identity))) {
        free(dir);
        p->cache_source = "off: the device's identity could not be queried";
        return CLSCAN_SUCCESS;
    }
    p->cache_dir = dir;
    p->disk_cache = 1;
    return CLSCAN_SUCCESS;
}

/* --------------------------------------------------------------------- keys -- */

void clscan__diskcache_key_free(clscan__cache_key *key)
{
    free(key->text);
    free(key->path);
    key->text = key->path = NULL;
    key->length = 0;
}

bool clscan__diskcache_key(const clscan__diskcache_config *p, const char *const *texts,
                          const size_t *lengths, cl_uint count, const char *options,
                          clscan__cache_key *out)
{
    memset(out, 0, sizeof *out);
    if (!p->disk_cache || !p->cache_dir || !p->cache_identity || count == 0) return false;
    /* The digest: both hashes over every text, each preceded by its length, so that
     * moving a boundary between texts changes it. */
    uint64_t a = FNV_OFFSET, b = SEED_SOURCE;
    size_t total = 0;
    for (cl_uint i = 0; i < count; ++i) {
        unsigned char len8[8];
        clscan__store_le64(len8, (uint64_t)lengths[i]);
        a = clscan__hash_fnv1a64(a, len8, sizeof len8);
        a = clscan__hash_fnv1a64(a, texts[i], lengths[i]);
        b = clscan__hash_mix64(b ^ lengths[i], texts[i], lengths[i]);
        total += lengths[i];
    }
    /* The key text: the device lines, the options, the digest, and the first text (the
     * #define block) in full, so that a file says what it holds. */
    const char *fmt = "%soptions: %s\nsource: %u texts, %zu bytes, fnv1a64 %016llx, "
                      "mix64 %016llx\n--- first text ---\n%.*s";
    const int defines = lengths[0] > 4096 ? 4096 : (int)lengths[0];
    int len = snprintf(NULL, 0, fmt, p->cache_identity, options, count, total,
                       (unsigned long long)a, (unsigned long long)b, defines, texts[0]);
    if (len <= 0 || (size_t)len > CLSCAN__DISKCACHE_MAX_KEY_BYTES || !(out->text = malloc((size_t)len + 1)))
        return false;
    snprintf(out->text, (size_t)len + 1, fmt, p->cache_identity, options, count, total,
             (unsigned long long)a, (unsigned long long)b, defines, texts[0]);
    out->length = (size_t)len;
    char name[64];
    snprintf(name, sizeof name, "/clscan-%016llx%016llx.bin",
             (unsigned long long)clscan__hash_fnv1a64(FNV_OFFSET, out->text, out->length),
             (unsigned long long)clscan__hash_mix64(SEED_NAME, out->text, out->length));
    if (!(out->path = join(p->cache_dir, name))) {
        clscan__diskcache_key_free(out);
        return false;
    }
    return true;
}

/* ----------------------------------------------------------------- records -- */

bool clscan__diskcache_record_key(const clscan__diskcache_config *p, const char *name,
                                  const char *key, char **path, char **text)
{
    *path = *text = NULL;
    if (!p->disk_cache || !p->cache_dir || !p->cache_identity) return false;
    const char *fmt = "%srecord: %s\n%s";
    int len = snprintf(NULL, 0, fmt, p->cache_identity, name, key);
    if (len <= 0 || (size_t)len > CLSCAN__DISKCACHE_MAX_KEY_BYTES ||
        !(*text = malloc((size_t)len + 1)))
        return false;
    snprintf(*text, (size_t)len + 1, fmt, p->cache_identity, name, key);
    char file[96];
    snprintf(file, sizeof file, "/clscan-%.24s-%016llx%016llx.bin", name,
             (unsigned long long)clscan__hash_fnv1a64(FNV_OFFSET, *text, (size_t)len),
             (unsigned long long)clscan__hash_mix64(SEED_NAME, *text, (size_t)len));
    if (!(*path = join(p->cache_dir, file))) {
        free(*text);
        *text = NULL;
        return false;
    }
    return true;
}

bool clscan__diskcache_record_load(const clscan__diskcache_config *p, const char *name,
                                   const char *key, unsigned char **payload, size_t *length,
                                   const char **why)
{
    *payload = NULL;
    *length = 0;
    char *path, *text;
    if (!clscan__diskcache_record_key(p, name, key, &path, &text)) {
        *why = p->disk_cache ? "out of host memory" : "the disk cache is off";
        return false;
    }
    clscan__diskcache_file f;
    const clscan__file_read r = clscan__diskcache_read_file(path, &f);
    if (r != CLSCAN__FILE_VALID) *why = clscan__diskcache_last_reason();
    else if (f.key_length != strlen(text) || memcmp(f.key, text, f.key_length) != 0)
        *why = "the key text differs (another device, driver, version or probe)";
    else if (!(*payload = malloc(f.payload_length)))
        *why = "out of host memory";
    else {
        memcpy(*payload, f.payload, f.payload_length);
        *length = f.payload_length;
    }
    if (r == CLSCAN__FILE_VALID) clscan__diskcache_file_free(&f);
    free(path);
    free(text);
    return *payload != NULL;
}

bool clscan__diskcache_record_store(const clscan__diskcache_config *p, const char *name,
                                    const char *key, const void *payload, size_t length)
{
    char *path, *text;
    if (!clscan__diskcache_record_key(p, name, key, &path, &text)) return false;
    const bool ok = clscan__diskcache_write_file(path, text, strlen(text), payload, length);
    free(path);
    free(text);
    return ok;
}

/* ---------------------------------------------------------------- programs -- */

cl_program clscan__program_from_binary(const clscan__target *t, const unsigned char *binary,
                                       size_t length, const char *options)
{
    cl_int err, status = CL_SUCCESS;
    cl_program program = clCreateProgramWithBinary(t->cl_ctx, 1, &t->device, &length,
                                                   &binary, &status, &err);
    if (err == CL_SUCCESS && status == CL_SUCCESS)
        err = clBuildProgram(program, 1, &t->device, options, NULL, NULL);
    if (err == CL_SUCCESS && status == CL_SUCCESS) return program;
    if (program) clReleaseProgram(program);
    return NULL;
}

cl_program clscan__diskcache_load(const clscan__target *t, const clscan__cache_key *key,
                                  const char *options)
{
    clscan__diskcache_file f;
    const clscan__file_read r = clscan__diskcache_read_file(key->path, &f);
    if (r == CLSCAN__FILE_VALID && (f.key_length != key->length || memcmp(f.key, key->text, key->length) != 0)) {
        clscan__diskcache_file_free(&f);
        clscan__diskcache_set_reason("the key text differs (another device, driver, version or source)");
        clscan__cache_stat_add(CLSCAN__CACHE_REJECTED);
        return NULL;
    }
    if (r != CLSCAN__FILE_VALID) {
        clscan__cache_stat_add(r == CLSCAN__FILE_MISSING ? CLSCAN__CACHE_MISSING
                                                         : CLSCAN__CACHE_REJECTED);
        return NULL;
    }
    cl_program program = clscan__program_from_binary(t, f.payload, f.payload_length, options);
    clscan__diskcache_file_free(&f);
    if (!program) {
        clscan__diskcache_set_reason("the driver refused the binary");
        clscan__cache_stat_add(CLSCAN__CACHE_REFUSED);
        return NULL;
    }
    clscan__diskcache_set_reason("");
    clscan__cache_stat_add(CLSCAN__CACHE_LOADED);
    return program;
}

unsigned char *clscan__program_binary(const clscan__target *t, cl_program program, size_t *size)
{
    /* The program belongs to all the context's devices and was built for one: take the
     * binary at that device's index (the other entries may be empty). */
    cl_uint ndev = 0;
    cl_device_id *devices = NULL;
    size_t *sizes = NULL;
    unsigned char **binaries = NULL;
    int ok = clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, NULL) ==
                 CL_SUCCESS &&
             ndev > 0 && (devices = calloc(ndev, sizeof *devices)) != NULL &&
             (sizes = calloc(ndev, sizeof *sizes)) != NULL &&
             (binaries = calloc(ndev, sizeof *binaries)) != NULL &&
             clGetProgramInfo(program, CL_PROGRAM_DEVICES, ndev * sizeof *devices, devices,
                              NULL) == CL_SUCCESS &&
             clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, ndev * sizeof *sizes, sizes,
                              NULL) == CL_SUCCESS;
    cl_uint mine = ndev;
    for (cl_uint i = 0; ok && i < ndev; ++i) {
        if (devices[i] == t->device) mine = i;
        /* Some drivers write every entry whatever its size: give each a buffer. */
        ok = (binaries[i] = malloc(sizes[i] ? sizes[i] : 1)) != NULL;
    }
    ok = ok && mine < ndev && sizes[mine] > 0 &&
         clGetProgramInfo(program, CL_PROGRAM_BINARIES, ndev * sizeof *binaries, binaries,
                          NULL) == CL_SUCCESS;
    unsigned char *mine_binary = NULL;
    if (ok) {
        mine_binary = binaries[mine];
        binaries[mine] = NULL;
        *size = sizes[mine];
    }
    for (cl_uint i = 0; binaries && i < ndev; ++i) free(binaries[i]);
    free(binaries);
    free(sizes);
    free(devices);
    return mine_binary;
}

void clscan__diskcache_store(const clscan__target *t, const clscan__cache_key *key,
                             cl_program program)
{
    size_t size = 0;
    unsigned char *binary = clscan__program_binary(t, program, &size);
    const bool ok = binary && clscan__diskcache_write_file(key->path, key->text, key->length,
                                                           binary, size);
    clscan__cache_stat_add(ok ? CLSCAN__CACHE_WRITTEN : CLSCAN__CACHE_WRITE_FAILED);
    free(binary);
}

void clscan__diskcache_settings_free(clscan__diskcache_config *p)
{
    free(p->cache_dir);
    free(p->cache_identity);
    free(p->cache_note);
    p->cache_dir = p->cache_identity = p->cache_note = NULL;
    p->disk_cache = 0;
}
