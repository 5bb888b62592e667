/* diskcache_file.c - the disk cache's file format: reading a file back and checking it
 * (magic, format version, lengths, both checksums), and writing one atomically (a
 * temporary file in the same directory, then rename), directories included. Integers
 * are little-endian:
 *   bytes  0..7   magic "CLSCANPB"
 *          8..11  format version (CLSCAN__DISKCACHE_FORMAT)
 *         12..15  key text length K
 *         16..23  payload length P (the driver's program binary)
 *         24..31  payload checksum (hash_mix64 of the payload)
 *         32..39  header checksum (hash_mix64 of bytes 0..31, then of the key text)
 *         40..    the key text (K bytes, no NUL), then the payload (P bytes)
 * A file is used only if its length is exactly 40 + K + P, both checksums match and (in
 * kernels/diskcache.c) its key text equals the one asked for, byte for byte. */
/* SPDX-License-Identifier: MIT */
#include "kernels/kernels.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define HEADER_BYTES 40
#define MAX_PAYLOAD_BYTES (1ull << 30)          /* larger files are not ours */
static const unsigned char magic[8] = {'C', 'L', 'S', 'C', 'A', 'N', 'P', 'B'};
#define SEED_PAYLOAD 0x7061796c6f616431ull /* "payload1" */
#define SEED_HEADER 0x6865616465723031ull  /* "header01" */

static _Thread_local const char *last_reason = "";

/* Whether a cache directory or file may be trusted: owned by this process's effective
 * user and writable by no one else (NULL), or why not. Whoever can write the cache runs
 * code in every process that loads from it (docs/RELIABILITY.md, section 6). */
const char *clscan__diskcache_untrusted(const struct stat *st)
{
    if (st->st_uid != geteuid()) return "not owned by this user";
    if (st->st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
    return NULL;
}

const char *clscan__diskcache_last_reason(void) { return last_reason; }
void clscan__diskcache_set_reason(const char *reason) { last_reason = reason; }

/* Reads all of fd (a regular file of `size` bytes) into a new buffer. */
static unsigned char *read_all(int fd, size_t size)
{
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf) return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t n = read(fd, buf + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            free(buf);
            return NULL;
        }
        done += (size_t)n;
    }
    return buf;
}

clscan__file_read clscan__diskcache_read_file(const char *path, clscan__diskcache_file *out)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int missing = errno == ENOENT || errno == ENOTDIR;
        last_reason = missing ? "no file" : "the file cannot be opened";
        return missing ? CLSCAN__FILE_MISSING : CLSCAN__FILE_INVALID;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        last_reason = "not a regular file";
        return CLSCAN__FILE_INVALID;
    }
    const char *untrusted = clscan__diskcache_untrusted(&st);
    if (untrusted) {
        close(fd);
        last_reason = untrusted;
        return CLSCAN__FILE_INVALID;
    }
    if ((unsigned long long)st.st_size > HEADER_BYTES + CLSCAN__DISKCACHE_MAX_KEY_BYTES + MAX_PAYLOAD_BYTES) {
        close(fd);
        last_reason = "larger than any file of the cache";
        return CLSCAN__FILE_INVALID;
    }
    const size_t size = (size_t)st.st_size;
    unsigned char *buf = read_all(fd, size);
    close(fd);
    if (!buf) {
        last_reason = "the file cannot be read";
        return CLSCAN__FILE_INVALID;
    }
    const char *why = NULL;
    uint32_t klen = 0;
    uint64_t plen = 0;
    if (size < HEADER_BYTES)
        why = "shorter than the header";
    else if (memcmp(buf, magic, sizeof magic) != 0)
        why = "wrong magic";
    else if (clscan__load_le32(buf + 8) != CLSCAN__DISKCACHE_FORMAT)
        why = "another format version";
    else if ((klen = clscan__load_le32(buf + 12)) > CLSCAN__DISKCACHE_MAX_KEY_BYTES ||
             (plen = clscan__load_le64(buf + 16)) > MAX_PAYLOAD_BYTES ||
             size != HEADER_BYTES + (uint64_t)klen + plen)
        why = "its length is not the one its header gives";
    else if (clscan__hash_mix64(clscan__hash_mix64(SEED_HEADER, buf, 32), buf + HEADER_BYTES,
                                klen) != clscan__load_le64(buf + 32))
        why = "bad header checksum";
    else if (plen == 0 || clscan__hash_mix64(SEED_PAYLOAD, buf + HEADER_BYTES + klen,
                                             (size_t)plen) != clscan__load_le64(buf + 24))
        why = "bad payload checksum";
    if (why) {
        free(buf);
        last_reason = why;
        return CLSCAN__FILE_INVALID;
    }
    out->data = buf;
    out->key = (const char *)buf + HEADER_BYTES;
    out->key_length = klen;
    out->payload = buf + HEADER_BYTES + klen;
    out->payload_length = (size_t)plen;
    return CLSCAN__FILE_VALID;
}

void clscan__diskcache_file_free(clscan__diskcache_file *f)
{
    free(f->data);
    memset(f, 0, sizeof *f);
}

/* Creates dir and its missing parents, each with mode 0700. 0 when it exists after. */
static int make_dirs(const char *dir)
{
    char *path = strdup(dir);
    if (!path) return -1;
    int ok = 1;
    for (char *s = path + 1; ok && *s; ++s) {
        if (*s != '/') continue;
        *s = '\0';
        ok = mkdir(path, 0700) == 0 || errno == EEXIST;
        *s = '/';
    }
    if (ok) ok = mkdir(path, 0700) == 0 || errno == EEXIST;
    free(path);
    /* (Written into only where this user alone can write it.) */
    struct stat st;
    return ok && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && !clscan__diskcache_untrusted(&st)
               ? 0
               : -1;
}

static int write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

bool clscan__diskcache_write_file(const char *path, const char *key, size_t key_length,
                                 const void *payload, size_t payload_length)
{
    static atomic_ulong counter;
    if (key_length > CLSCAN__DISKCACHE_MAX_KEY_BYTES || payload_length > MAX_PAYLOAD_BYTES) return false;
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return false;
    char *dir = malloc((size_t)(slash - path) + 1);
    if (!dir) return false;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    const int dir_ok = make_dirs(dir) == 0;
    free(dir);
    if (!dir_ok) return false;

    unsigned char header[HEADER_BYTES];
    memcpy(header, magic, sizeof magic);
    clscan__store_le32(header + 8, CLSCAN__DISKCACHE_FORMAT);
    clscan__store_le32(header + 12, (uint32_t)key_length);
    clscan__store_le64(header + 16, (uint64_t)payload_length);
    clscan__store_le64(header + 24, clscan__hash_mix64(SEED_PAYLOAD, payload, payload_length));
    clscan__store_le64(header + 32, clscan__hash_mix64(clscan__hash_mix64(SEED_HEADER, header, 32), key,
                                               key_length));

    /* A name no other writer uses: ours in the same directory (rename needs one file
     * system), hidden, with the process id, a per-process counter (threads) and the
     * clock (a pid reused after a crash). */
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 96);
    if (!tmp) return false;
    int fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(tmp, plen + 96, "%.*s.%s.%ld.%lu.%lx.tmp", (int)(slash + 1 - path), path,
                 slash + 1, (long)getpid(), atomic_fetch_add(&counter, 1),
                 (unsigned long)ts.tv_nsec ^ (unsigned long)ts.tv_sec);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    int ok = fd >= 0;
    if (ok) {
        ok = write_all(fd, header, sizeof header) == 0 && write_all(fd, key, key_length) == 0 &&
             write_all(fd, payload, payload_length) == 0;
        ok &= close(fd) == 0;
        /* rename replaces the file in one step: a reader opens the old one or the new. */
        ok = ok && rename(tmp, path) == 0;
        if (!ok) unlink(tmp);
    }
    free(tmp);
    return ok;
}
