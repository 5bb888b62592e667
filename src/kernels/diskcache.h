/* diskcache.h - the kernels layer's disk cache of built programs and of the bank probe's
 * records (kernels/diskcache.c, its file format in kernels/diskcache_file.c), and the
 * binaries of built programs: a register cap put into NVIDIA's PTX (kernels/ptx.c). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_KERNELS_DISKCACHE_H
#define CLSCAN_KERNELS_DISKCACHE_H

#include "kernels/kernels.h" /* (whose end includes this file, after the types it uses) */

/* ------------------------------------------------------------ disk cache ---- */

/* Settles p from getenv_fn: CLSCAN_DISK_CACHE (0 or 1, else
 * CLSCAN_ERROR_INVALID_ENVIRONMENT), CLSCAN_CACHE_DIR (not empty; relative to the working
 * directory), else $XDG_CACHE_HOME/clscan (if absolute), else $HOME/.cache/clscan, else
 * off. The key's identity lines are the device profile's (its platform decides the
 * default; an unknown identity turns the cache off). Creates nothing on disk. */
clscan_status clscan__diskcache_settings(const clscan_context *ctx,
                                         const clscan__profile *profile,
                                         clscan__getenv_fn getenv_fn, void *user,
                                         clscan__diskcache_config *p);

/* What identifies one program build: the key text and the file it is cached in. */
typedef struct clscan__cache_key {
    char *text;     /* owned: identity lines, build options, source digest, #define block */
    size_t length;  /* of text, without the NUL */
    char *path;     /* owned: <cache dir>/clscan-<32 hex digits>.bin */
} clscan__cache_key;
/* Makes the key of the program built from texts[0..count) (as passed to
 * clCreateProgramWithSource; texts[0] is the #define block) with `options`. Returns true,
 * or false when the disk cache p is off or memory ran out (out is then empty). */
bool clscan__diskcache_key(const clscan__diskcache_config *p, const char *const *texts,
                          const size_t *lengths, cl_uint count, const char *options,
                          clscan__cache_key *out);
void clscan__diskcache_key_free(clscan__cache_key *key);
/* The program of key from its file, created from the binary and built with options; NULL
 * when there is no file, it is truncated, corrupt or foreign, or the driver refuses it
 * (each counted below; clscan__diskcache_last_reason says which). Never fails a call. */
cl_program clscan__diskcache_load(const clscan__target *t, const clscan__cache_key *key,
                                  const char *options);
/* The program created from binary[0, length) for t's device and built with options, or
 * NULL where the driver refuses it (nothing reported). */
cl_program clscan__program_from_binary(const clscan__target *t, const unsigned char *binary,
                                       size_t length, const char *options);
/* program's binary for t's device (malloc'd, *size bytes), or NULL. */
unsigned char *clscan__program_binary(const clscan__target *t, cl_program program, size_t *size);
/* The PTX text ptx[0, length) with `.maxnreg maxnreg` put before the body of every kernel
 * entry (malloc'd, *out_length bytes, what followed the text kept), or NULL where it is
 * not PTX with kernel entries or already carries a register or occupancy directive
 * (kernels/ptx.c). */
char *clscan__ptx_with_maxnreg(const char *ptx, size_t length, unsigned maxnreg,
                               size_t *out_length);
/* NVIDIA's OpenCL: program rebuilt from its PTX with every kernel held to maxnreg
 * registers, built with options; program itself where its binary is not such PTX or the
 * rebuild fails (then only slower). Releases program when it returns another. */
cl_program clscan__program_with_register_cap(const clscan__target *t, cl_program program,
                                             unsigned maxnreg, const char *options);
/* NVIDIA's OpenCL: the register cap that lets as many work-groups of wg_size work-items
 * run kernel on a multiprocessor as its local memory allows, where program's PTX asks
 * for one (the comment `// clscan-fit-registers`, which the kernel's source writes) and the
 * device is one whose multiprocessor is known here; 0 elsewhere (kernels/ptx.c). */
unsigned clscan__ptx_fit_registers(const clscan__target *t, cl_program program,
                                   const char *kernel, size_t wg_size);
/* Whether the PTX text ptx[0, length) holds that comment. */
int clscan__ptx_asks_fit(const char *ptx, size_t length);
/* The registers a work-item may take so that as many work-groups of wg_size work-items,
 * each with local_bytes of local memory, fit a multiprocessor of compute capability 9.0
 * as its shared memory allows; 0 where that is under 40 or no group fits. */
unsigned clscan__sm90_fit_registers(cl_ulong local_bytes, size_t wg_size);
/* Writes program's binary for t's device to key's file, atomically (a temporary file in
 * the same directory, then rename), creating the directories (mode 0700) as needed.
 * Failures are counted, never reported. */
void clscan__diskcache_store(const clscan__target *t, const clscan__cache_key *key,
                             cl_program program);

/* Small records of the library's own kept beside the programs (the bank probe's result,
 * device/banks.c): the file <cache dir>/clscan-<name>-<32 hex digits>.bin, in the format
 * of kernels/diskcache_file.c, whose key text is the cache identity (library, format,
 * platform, device, driver), a line naming the record, then `key`. Load returns true and a
 * malloc'd copy of the payload only for a valid file whose key text is exactly that;
 * else false and *why (a static text). Store writes atomically, as for programs, and
 * returns false where it could not. Neither is counted in the program counters. */
bool clscan__diskcache_record_load(const clscan__diskcache_config *p, const char *name,
                                   const char *key, unsigned char **payload, size_t *length,
                                   const char **why);
bool clscan__diskcache_record_store(const clscan__diskcache_config *p, const char *name,
                                    const char *key, const void *payload, size_t length);
/* The record's file and full key text (malloc'd into *path and *text; false when the cache
 * is off or memory ran out). For load, store and tests. */
bool clscan__diskcache_record_key(const clscan__diskcache_config *p, const char *name,
                                  const char *key, char **path, char **text);

/* A cache file read back and checked (magic, format version, lengths, both checksums);
 * its key text is not compared here. key and payload point into data. */
typedef struct clscan__diskcache_file {
    unsigned char *data; /* owned: the whole file */
    const char *key;
    size_t key_length;
    const unsigned char *payload;
    size_t payload_length;
} clscan__diskcache_file;
/* What reading a cache file found: a valid file (*out filled), none, or one that cannot
 * be read or is not a valid cache file (clscan__diskcache_last_reason says why). */
typedef enum clscan__file_read {
    CLSCAN__FILE_INVALID = -1,
    CLSCAN__FILE_VALID = 0,
    CLSCAN__FILE_MISSING = 1
} clscan__file_read;
/* For load and tests. */
clscan__file_read clscan__diskcache_read_file(const char *path, clscan__diskcache_file *out);
/* NULL where st (a cache directory's or file's) is owned by the effective user and
 * writable by no one else; else why it is not trusted. */
struct stat;
const char *clscan__diskcache_untrusted(const struct stat *st);
void clscan__diskcache_file_free(clscan__diskcache_file *f);
/* Writes a cache file (header, key text, payload) atomically; false if it could not. For
 * store and tests (which write files with a foreign key or a payload the driver refuses). */
bool clscan__diskcache_write_file(const char *path, const char *key, size_t key_length,
                                 const void *payload, size_t payload_length);
/* The calling thread's reason why its last load found no usable file ("" after a load),
 * and its setter (load and read_file set it). */
const char *clscan__diskcache_last_reason(void);
void clscan__diskcache_set_reason(const char *reason);
/* The file format's version (part of every key) and the longest key text. */
#define CLSCAN__DISKCACHE_FORMAT 1u
#define CLSCAN__DISKCACHE_MAX_KEY_BYTES (1u << 20)

#endif /* CLSCAN_KERNELS_DISKCACHE_H */
