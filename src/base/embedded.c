/* embedded.c - looks up the cl/ sources that tools/embed_cl.py compiled into the
 * library. */
/* SPDX-License-Identifier: MIT */
#include "base/base.h"
#include "base/embedded.h"

#include <string.h>

const char *clscan__embedded_source(const char *file_name, size_t *length)
{
    for (const clscan__embedded_file *s = clscan__embedded_sources; s->name; ++s)
        if (strcmp(s->name, file_name) == 0) {
            if (length) *length = s->length;
            return s->text;
        }
    return NULL;
}
