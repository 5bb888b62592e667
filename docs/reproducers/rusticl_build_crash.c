/* rusticl_build_crash.c - builds one OpenCL C source file again and again (clBuildProgram
 * on a new program each time), to show a crash inside the implementation's compiler with
 * no library involved: docs/IMPLEMENTATION-ISSUES.md (rusticl on llvmpipe).
 *   cc rusticl_build_crash.c -lOpenCL -o build_crash
 *   MALLOC_PERTURB_=2 OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd RUSTICL_ENABLE=llvmpipe \
 *     ./build_crash rusticl_build_crash.cl [builds] [options]
 * (Mesa 22.3.6, Debian 12: SIGSEGV in the first build with MALLOC_PERTURB_ 1, 2 or 3;
 * every build succeeds with 4 to 255 or without it.) */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.cl [builds] [options]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)size + 1);
    if (!src || fread(src, 1, (size_t)size, f) != (size_t)size) { fprintf(stderr, "read failed\n"); return 2; }
    src[size] = 0;
    fclose(f);
    const int builds = argc > 2 ? atoi(argv[2]) : 10;
    const char *options = argc > 3 ? argv[3] : "-cl-std=CL1.2";
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) { fprintf(stderr, "no device (%d)\n", err); return 2; }
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) { fprintf(stderr, "clCreateContext: %d\n", err); return 2; }
    for (int i = 0; i < builds; ++i) {
        const char *texts[] = {src};
        cl_program p = clCreateProgramWithSource(ctx, 1, texts, NULL, &err);
        if (err != CL_SUCCESS) { fprintf(stderr, "clCreateProgramWithSource: %d\n", err); return 1; }
        err = clBuildProgram(p, 1, &device, options, NULL, NULL);
        printf("build %d: %d\n", i, err);
        fflush(stdout);
        clReleaseProgram(p);
    }
    clReleaseContext(ctx);
    free(src);
    return 0;
}
