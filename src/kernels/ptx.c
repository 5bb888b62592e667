/* ptx.c - a register cap for programs on NVIDIA's OpenCL, whose compiler does not take
 * -cl-nv-maxrregcount: the program's binary there is PTX text, which gets a `.maxnreg`
 * directive on every kernel entry and is built again from that binary. */
/* SPDX-License-Identifier: MIT */
#include "kernels/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether s[i, i + wlen) is the word w with a delimiter (or the text's edge) each side. */
static int word_at(const char *s, size_t n, size_t i, const char *w, size_t wlen)
{
    if (i + wlen > n || memcmp(s + i, w, wlen) != 0) return 0;
    const int before = i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\n' ||
                       s[i - 1] == '\r';
    const char after = i + wlen < n ? s[i + wlen] : ' ';
    return before && (after == ' ' || after == '\t' || after == '\n' || after == '\r');
}

/* The first index of word w in s[from, n) as word_at finds it, or n. */
static size_t find_word(const char *s, size_t n, size_t from, const char *w)
{
    const size_t wlen = strlen(w);
    for (size_t i = from; i + wlen <= n; ++i)
        if (word_at(s, n, i, w, wlen)) return i;
    return n;
}

char *clscan__ptx_with_maxnreg(const char *ptx, size_t length, unsigned maxnreg,
                               size_t *out_length)
{
    if (!ptx || maxnreg == 0) return NULL;
    const char *nul = memchr(ptx, '\0', length);
    const size_t n = nul ? (size_t)(nul - ptx) : length; /* the text; bytes after kept */
    if (find_word(ptx, n, 0, ".version") == n || find_word(ptx, n, 0, ".target") == n) return NULL;
    static const char *const taken[] = {".maxnreg", ".maxntid", ".minnctapersm"};
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; ++i)
        if (find_word(ptx, n, 0, taken[i]) != n) return NULL;
    char directive[32];
    const int dlen = snprintf(directive, sizeof directive, "\n.maxnreg %u\n", maxnreg);
    if (dlen <= 0 || (size_t)dlen >= sizeof directive) return NULL;
    /* Where each entry's body starts: its first brace (no brace comes before it, in the
     * parameter list or the directives). */
    size_t entries = 0;
    for (size_t at = find_word(ptx, n, 0, ".entry"); at < n; at = find_word(ptx, n, at + 1, ".entry")) {
        const char *brace = memchr(ptx + at, '{', n - at);
        const size_t next = find_word(ptx, n, at + 1, ".entry");
        if (!brace || (size_t)(brace - ptx) > next) return NULL;
        ++entries;
    }
    if (entries == 0) return NULL;
    const size_t total = length + entries * (size_t)dlen;
    char *out = malloc(total + 1);
    if (!out) return NULL;
    size_t copied = 0, w = 0;
    for (size_t at = find_word(ptx, n, 0, ".entry"); at < n; at = find_word(ptx, n, at + 1, ".entry")) {
        const size_t body = (size_t)((const char *)memchr(ptx + at, '{', n - at) - ptx);
        memcpy(out + w, ptx + copied, body - copied);
        w += body - copied;
        memcpy(out + w, directive, (size_t)dlen);
        w += (size_t)dlen;
        copied = body;
    }
    memcpy(out + w, ptx + copied, length - copied);
    w += length - copied;
    out[w] = '\0';
    *out_length = w;
    return out;
}

cl_program clscan__program_with_register_cap(const clscan__target *t, cl_program program,
                                             unsigned maxnreg, const char *options)
{
    size_t size = 0, capped_size = 0;
    unsigned char *binary = clscan__program_binary(t, program, &size);
    char *capped = binary ? clscan__ptx_with_maxnreg((const char *)binary, size, maxnreg,
                                                     &capped_size)
                          : NULL;
    free(binary);
    if (!capped) return program;
    cl_program rebuilt =
        clscan__program_from_binary(t, (const unsigned char *)capped, capped_size, options);
    free(capped);
    if (!rebuilt) return program;
    clReleaseProgram(program);
    return rebuilt;
}
