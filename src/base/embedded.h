/* embedded.h - the table of cl/ sources that tools/embed_cl.py compiles into the
 * library at build time. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_EMBEDDED_H
#define CLSCAN_EMBEDDED_H

#include <stddef.h>

typedef struct clscan__embedded_file {
    const char *name;   /* file name in cl/, e.g. "clscan_scan.cl"; NULL ends the table */
    const char *text;
    size_t length;
} clscan__embedded_file;

extern const clscan__embedded_file clscan__embedded_sources[];

#endif /* CLSCAN_EMBEDDED_H */
