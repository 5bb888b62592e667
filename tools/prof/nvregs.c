/* nvregs.c - LD_PRELOAD shim for NVIDIA's OpenCL: builds every program with -cl-nv-verbose
 * (and $NV_EXTRA_OPTS, e.g. "-cl-nv-maxrregcount=64") added and appends the build logs
 * (ptxas: registers, spills per kernel) to $REG_LOG.
 * gcc -shared -fPIC -O2 -o /tmp/nvregs.so tools/prof/nvregs.c -ldl; then
 * CLSCAN_DISK_CACHE=0 REG_LOG=$OUT/regs.log LD_PRELOAD=/tmp/nvregs.so build-gpu/clscan-bench ... */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
cl_int clBuildProgram(cl_program p, cl_uint nd, const cl_device_id *d, const char *o,
                      void (CL_CALLBACK *cb)(cl_program, void *), void *ud)
{
    typedef cl_int (*build_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                               void (CL_CALLBACK *)(cl_program, void *), void *);
    build_fn real = (build_fn)dlsym(RTLD_NEXT, "clBuildProgram");
    const char *extra = getenv("NV_EXTRA_OPTS") ? getenv("NV_EXTRA_OPTS") : "";
    char *opts = malloc((o ? strlen(o) : 0) + strlen(extra) + 32);
    sprintf(opts, "%s -cl-nv-verbose %s", o ? o : "", extra);
    cl_int e = real(p, nd, d, opts, NULL, NULL);
    cl_device_id dev; clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL);
    static char log[1 << 20]; size_t n = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &n);
    log[n < sizeof log ? n : sizeof log - 1] = 0;
    FILE *f = fopen(getenv("REG_LOG") ? getenv("REG_LOG") : "/tmp/regs.log", "a");
    if (f) { fprintf(f, "== build %d opts [%s]\n%s\n", e, opts, log); fclose(f); }
    free(opts);
    if (cb) cb(p, ud);
    return e;
}
