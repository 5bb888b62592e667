/* tune.h - the tune layer: the device table (tune/table.c), the CLSCAN_* overrides and
 * context options that feed it (tune/overrides.c, tune/options.c), the choices made
 * from them with their reasons (tune/choose.c), and the profile's description
 * (tune/describe.c). Builds on device/ (docs/ARCHITECTURE.md). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_TUNE_H
#define CLSCAN_TUNE_H

#include "device/device.h"

/* ---------------------------------------------------------------- table ----- */

/* A row of the bank table: banks and their width for a vendor's on-chip local memory. */
typedef struct clscan__bank_row {
    clscan__vendor vendor;   /* OTHER: any */
    cl_uint banks;
    cl_uint width;          /* bytes */
    const char *source;     /* shown as the banks' reason */
} clscan__bank_row;
/* A row of the tuning table: the launch shapes for matching devices. */
typedef struct clscan__tuning_row {
    clscan__vendor vendor;   /* OTHER: any */
    cl_device_type type;    /* 0: any */
    const char *name;       /* a part of the device name; NULL: any */
    size_t wg_size;         /* multi-level scan: work-items per group */
    cl_uint items;          /* elements per work-item, 4-byte types */
    cl_uint items8;         /* elements per work-item, 8-byte types */
    cl_uint groups_per_cu;
    cl_uint single_group_tiles;
    size_t sp_wg_size;      /* single-pass scan */
    cl_uint sp_items;       /* 4-byte types */
    cl_uint sp_items8;      /* 8-byte types */
    const char *source;     /* shown as the tuning's reason */
} clscan__tuning_row;
/* The first matching row of each table for p's (possibly overridden) facts; never NULL. */
const clscan__bank_row *clscan__table_banks(const clscan__profile *p);
const clscan__tuning_row *clscan__table_tuning(const clscan__profile *p);

/* ------------------------------------------------------------- overrides ---- */

/* The two phases of the overrides: device facts are applied before the tables are
 * consulted (so CLSCAN_VENDOR=amd picks AMD's rows), tuning after. */
typedef enum clscan__override_phase { CLSCAN__PHASE_FACT, CLSCAN__PHASE_TUNING } clscan__override_phase;
/* Applies every CLSCAN_* setting of `phase` that getenv_fn (NULL: none) returns. A bad
 * value fails with CLSCAN_ERROR_INVALID_ENVIRONMENT and a message naming it. */
clscan_status clscan__apply_overrides(const clscan_context *ctx, clscan__profile *p,
                                      clscan__override_phase phase, clscan__getenv_fn getenv_fn,
                                      void *user);
/* The names the overrides take, for messages and the description. */
const char *clscan__sg_impl_name(clscan__sg_impl impl);
const char *clscan__wg_algo_name(clscan__wg_algo algo);
const char *clscan__scan_algo_name(clscan__scan_algo algo);
const char *clscan__sort_algo_name(clscan__sort_algo algo);
const char *clscan__lb_atomics_name(clscan__lb_atomics a);
const char *clscan__lb_test_name(clscan__lb_test mode);
const char *clscan__lb_walk_name(clscan__lb_walk mode);

/* The process environment as a clscan__getenv_fn (user is ignored). */
const char *clscan__env_getter(const char *name, void *user);

/* Context options (clscan.h) over the environment: a clscan__getenv_fn whose user is a
 * clscan__options_env. Init checks options (struct_size, flags); the getter formats a
 * field that is set as the text its variable would hold, so messages name the variable. */
typedef struct clscan__options_env {
    const clscan_context_options *options; /* NULL: the environment alone */
    int ignore_environment;
    char values[48][64];                   /* formatted numeric and named fields */
} clscan__options_env;
clscan_status clscan__options_env_init(clscan__options_env *env,
                                       const clscan_context_options *options);
const char *clscan__options_getenv(const char *name, void *user);

/* ---------------------------------------------------------------- choose ---- */

/* Completes a profile that clscan__device_probe filled: runs the bank probe where it can
 * tell something (CLSCAN_BANK_PROBE), or loads its result from store (NULL: none; the
 * runtime layer passes the disk cache's), then clscan__profile_finish. getenv_fn NULL:
 * the environment. On failure the profile holds nothing that needs freeing. */
clscan_status clscan__profile_complete(const clscan_context *ctx, cl_context cl_ctx,
                                       cl_device_id device, clscan__getenv_fn getenv_fn,
                                       void *user, const clscan__probe_store *store,
                                       clscan__profile *p);
/* Fills banks and tuning from the tables for the device facts already in p, then
 * applies the overrides from getenv_fn (both phases) and records each choice's reason.
 * Split out for tests. */
clscan_status clscan__profile_finish(const clscan_context *ctx, clscan__profile *p,
                                     clscan__getenv_fn getenv_fn, void *user);

/* -------------------------------------------------------------- describe ---- */

size_t clscan__profile_describe(const clscan__profile *p, char *buf, size_t size);

#endif /* CLSCAN_TUNE_H */
