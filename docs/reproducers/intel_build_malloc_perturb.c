/* intel_build_malloc_perturb.c - builds one OpenCL C file with given options on the first
 * device of the first platform and prints the result: with MALLOC_PERTURB_ set, Intel's
 * OpenCL CPU runtime 2026.2.0 crashes inside its compiler (docs/IMPLEMENTATION-ISSUES.md).
 *   cc intel_build_malloc_perturb.c -lOpenCL -o repro
 *   MALLOC_PERTURB_=96 ./repro cl/clscan_sort_onesweep.cl "-cl-std=CL1.2 -I cl
 *       -D CLSCAN_SORT_ONESWEEP=1 -D CLSCAN_WG_ALGO=1 -D CLSCAN_SG_WIDTH=8
 *       -D CLSCAN_TYPE_ID=CLSCAN_UINT64 -D CLSCAN_OP_ID=CLSCAN_OP_XOR" [times]
 * (one build crashes; unset or 0, MALLOC_PERTURB_ lets it pass) */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s file.cl \"options\" [times]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)len + 1);
    if (!src || fread(src, 1, (size_t)len, f) != (size_t)len) return 2;
    src[len] = '\0';
    fclose(f);
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) return 2;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    const char *text = src;
    const int times = argc == 4 ? atoi(argv[3]) : 1;
    for (int i = 0; i < times && err == CL_SUCCESS; ++i) {
        cl_program prog = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);
        err = clBuildProgram(prog, 1, &device, argv[2], NULL, NULL);
        printf("clBuildProgram %d: %d\n", i, err);
        clReleaseProgram(prog);
    }
    clReleaseContext(ctx);
    free(src);
    return err == CL_SUCCESS ? 0 : 1;
}
