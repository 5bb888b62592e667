/* text.c - small text helpers: whole-token search in an extension list, OpenCL version
 * strings, sizes with K/M/G suffixes, and appending to a bounded buffer. */
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
