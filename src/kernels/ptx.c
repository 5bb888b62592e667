/* ptx.c - a register cap for programs on NVIDIA's OpenCL, whose compiler does not take
 * -cl-nv-maxrregcount: the program's binary there is PTX text, which gets a `.maxnreg`
 * directive on every kernel entry and is built again from that binary; and the cap that
 * fits a kernel's registers to the work-groups its local memory allows. */
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

int clscan__ptx_asks_fit(const char *ptx, size_t length)
{
    return ptx && find_word(ptx, length, 0, "clscan-fit-registers") != length;
}

/* A multiprocessor of compute capability 9.0 (H100, H200): 228 KiB of shared memory, of
 * which each work-group also takes 1 KiB the system keeps; 64 Ki registers, given out a
 * multiple of 8 a work-item; at most 2048 work-items. The cap stays at 40 or more: no
 * lower cap was measured, and at 40 the ordered matrix scan already spilled
 * (docs/PERFORMANCE.md, forty-third session). */
unsigned clscan__sm90_fit_registers(cl_ulong local_bytes, size_t wg_size)
{
    const cl_ulong shared = 228 * 1024, reserved = 1024, registers = 65536, items = 2048;
    if (wg_size == 0 || wg_size > items) return 0;
    cl_ulong groups = shared / (local_bytes + reserved);
    if (groups > items / wg_size) groups = items / wg_size;
    if (groups == 0) return 0;
    const cl_ulong cap = registers / (groups * wg_size) / 8 * 8;
    return cap >= 40 && cap <= 255 ? (unsigned)cap : 0;
}

/* (cl_nv_device_attribute_query) */
#define CLSCAN_NV_COMPUTE_CAPABILITY_MAJOR 0x4000
#define CLSCAN_NV_COMPUTE_CAPABILITY_MINOR 0x4001

unsigned clscan__ptx_fit_registers(const clscan__target *t, cl_program program,
                                   const char *kernel, size_t wg_size)
{
    /* (Only compute capability 9.0 was measured; other NVIDIA GPUs get no cap here.) */
    cl_uint major = 0, minor = 0;
    if (clGetDeviceInfo(t->device, CLSCAN_NV_COMPUTE_CAPABILITY_MAJOR, sizeof major, &major,
                        NULL) != CL_SUCCESS ||
        clGetDeviceInfo(t->device, CLSCAN_NV_COMPUTE_CAPABILITY_MINOR, sizeof minor, &minor,
                        NULL) != CL_SUCCESS ||
        major != 9 || minor != 0)
        return 0;
    size_t size = 0;
    unsigned char *binary = clscan__program_binary(t, program, &size);
    const int asks = clscan__ptx_asks_fit((const char *)binary, size);
    free(binary);
    if (!asks) return 0;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program, kernel, &err);
    if (err != CL_SUCCESS) return 0;
    cl_ulong local = 0;
    err = clGetKernelWorkGroupInfo(k, t->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local,
                                   NULL);
    clReleaseKernel(k);
    return err == CL_SUCCESS ? clscan__sm90_fit_registers(local, wg_size) : 0;
}
