/* nvmaxreg.c - LD_PRELOAD shim for NVIDIA's OpenCL, to try register caps the compiler
 * does not take as an option (-cl-nv-maxrregcount is ignored, docs/PERFORMANCE.md): after
 * each successful clBuildProgram whose PTX has the entry $NVMAXREG_KERNEL, it puts the
 * directive text $NVMAXREG_DIRECTIVE (say ".maxnreg 64") before that entry's body,
 * builds the edited PTX as a program of its own, and clCreateKernel then hands out
 * kernels of that program. ptxas's report of the rebuilt program is appended to
 * $REG_LOG where set. An experiment aid; run with CLSCAN_DISK_CACHE=0.
 * gcc -shared -fPIC -O2 -o /tmp/nvmaxreg.so tools/prof/nvmaxreg.c -ldl */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PROGRAMS = 512 };
static struct {
    cl_program from, to;
} swapped[MAX_PROGRAMS];
static size_t nswapped;

/* The PTX of p with the directive before the body of `.entry <kernel>(...)`, or NULL. */
static char *edited_ptx(cl_program p, cl_device_id dev, const char *kernel, const char *directive,
                        size_t *len)
{
    size_t size = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size)
        return NULL;
    unsigned char *bin = malloc(size + 1);
    if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(bin);
        return NULL;
    }
    bin[size] = 0;
    (void)dev;
    char pattern[256];
    snprintf(pattern, sizeof pattern, ".entry %s(", kernel);
    char *at = strstr((char *)bin, pattern), *body = at ? strchr(at, '{') : NULL;
    if (!body) {
        free(bin);
        return NULL;
    }
    const size_t head = (size_t)(body - (char *)bin), dl = strlen(directive);
    char *out = malloc(size + dl + 3);
    memcpy(out, bin, head);
    out[head] = '\n';
    memcpy(out + head + 1, directive, dl);
    out[head + 1 + dl] = '\n';
    memcpy(out + head + 2 + dl, body, size - head);
    *len = size + dl + 2;
    out[*len] = 0;
    free(bin);
    return out;
}

cl_int clBuildProgram(cl_program p, cl_uint nd, const cl_device_id *d, const char *o,
                      void(CL_CALLBACK *cb)(cl_program, void *), void *ud)
{
    typedef cl_int (*build_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                               void(CL_CALLBACK *)(cl_program, void *), void *);
    build_fn real = (build_fn)dlsym(RTLD_NEXT, "clBuildProgram");
    cl_int e = real(p, nd, d, o, cb, ud);
    const char *kernel = getenv("NVMAXREG_KERNEL"), *directive = getenv("NVMAXREG_DIRECTIVE");
    if (e != CL_SUCCESS || !kernel || !directive || nswapped == MAX_PROGRAMS) return e;
    cl_device_id dev;
    cl_context ctx;
    if (clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL) != CL_SUCCESS ||
        clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL) != CL_SUCCESS)
        return e;
    size_t len = 0;
    char *ptx = edited_ptx(p, dev, kernel, directive, &len);
    if (!ptx) return e;
    cl_int err, bs;
    const unsigned char *bin = (const unsigned char *)ptx;
    cl_program q = clCreateProgramWithBinary(ctx, 1, &dev, &len, &bin, &bs, &err);
    if (err == CL_SUCCESS) err = real(q, 1, &dev, "-cl-nv-verbose", NULL, NULL);
    static char log[1 << 20];
    size_t n = 0;
    if (q) clGetProgramBuildInfo(q, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &n);
    log[n < sizeof log ? n : sizeof log - 1] = 0;
    FILE *f = getenv("REG_LOG") ? fopen(getenv("REG_LOG"), "a") : NULL;
    if (f) {
        fprintf(f, "== rebuilt with [%s]: %d\n%s\n", directive, err, log);
        fclose(f);
    }
    free(ptx);
    if (err == CL_SUCCESS) {
        swapped[nswapped].from = p;
        swapped[nswapped++].to = q;
    } else {
        fprintf(stderr, "nvmaxreg: rebuilding failed (%d): %s\n", err, log);
    }
    return e;
}

cl_kernel clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    typedef cl_kernel (*create_fn)(cl_program, const char *, cl_int *);
    create_fn real = (create_fn)dlsym(RTLD_NEXT, "clCreateKernel");
    for (size_t i = 0; i < nswapped; ++i)
        if (swapped[i].from == p) return real(swapped[i].to, name, err);
    return real(p, name, err);
}
