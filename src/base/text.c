/* text.c - small text helpers: whole-token search in an extension list, OpenCL version
 * strings, sizes with K/M/G suffixes, and appending to a bounded buffer. */
/* SPDX-License-Identifier: MIT */
#include "base/base.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool clscan__has_token(const char *list, const char *token)
{
    if (!list || !token || !*token) return 0;
    size_t len = strlen(token);
    for (const char *p = list; (p = strstr(p, token)) != NULL; p += len) {
        int starts = p == list || isspace((unsigned char)p[-1]);
        int ends = p[len] == '\0' || isspace((unsigned char)p[len]);
        if (starts && ends) return 1;
    }
    return 0;
}

/* The words that make the preprocessor read a file, or ask whether one exists. */
static const char *const file_words[] = {"include", "include_next", "import", "embed",
                                         "__has_include", "__has_include_next", "__has_embed"};

const char *clscan__text_reads_files(const char *text)
{
    if (!text || (!strchr(text, '#') && !strstr(text, "%:"))) return NULL; /* no directive */
    /* Identifiers, read across line splices (a backslash, or the trigraph ??/, before a
     * newline): "#inc\<newline>lude" is an include. */
    char word[24];
    size_t len = 0;
    int overflow = 0;
    for (const char *p = text;; ++p) {
        if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
            p += p[1] == '\r' ? 2 : 1;
            continue;
        }
        if (p[0] == '?' && p[1] == '?' && p[2] == '/' &&
            (p[3] == '\n' || (p[3] == '\r' && p[4] == '\n'))) {
            p += p[3] == '\r' ? 4 : 3;
            continue;
        }
        const int ident = *p && (isalnum((unsigned char)*p) || *p == '_');
        if (ident) {
            if (len + 1 < sizeof word) word[len++] = *p;
            else overflow = 1;
            continue;
        }
        if (len && !overflow) {
            word[len] = '\0';
            for (size_t k = 0; k < sizeof file_words / sizeof *file_words; ++k)
                if (strcmp(word, file_words[k]) == 0) return file_words[k];
        }
        len = 0;
        overflow = 0;
        if (!*p) return NULL;
    }
}

bool clscan__parse_version(const char *text, const char *prefix, int *major, int *minor)
{
    size_t lp = strlen(prefix);
    if (!text || strncmp(text, prefix, lp) != 0) return 0;
    int ma, mi;
    if (sscanf(text + lp, "%d.%d", &ma, &mi) != 2 || ma < 1 || mi < 0) return 0;
    *major = ma;
    *minor = mi;
    return 1;
}

bool clscan__parse_size(const char *text, unsigned long long *out)
{
    if (!text || !isdigit((unsigned char)*text)) return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno) return 0;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; ++end; break;
    case 'M': shift = 20; ++end; break;
    case 'G': shift = 30; ++end; break;
    default: break;
    }
    if (*end != '\0') return 0;
    if (shift && v > (~0ull >> shift)) return 0;
    *out = v << shift;
    return 1;
}

void clscan__append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *len += (size_t)n;
}
