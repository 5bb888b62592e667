/* rusticl_build_crash.c - builds the OpenCL C source made of the files named (one text
 * each, in order) again and again (clBuildProgram on a new program each time), to show a
 * crash inside the implementation's compiler with no library in the process:
 * docs/IMPLEMENTATION-ISSUES.md (Mesa 22.3). The program that crashed is
 * rusticl_build_crash.cl (its #define block and a general scan's operator texts) followed
 * by seven of the library's kernel files, as of c093755 (git show c093755:cl/FILE):
 *   cc rusticl_build_crash.c -lOpenCL -o build_crash
 *   cl=cl; MALLOC_PERTURB_=2 OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd \
 *     RUSTICL_ENABLE=llvmpipe BUILDS=1 ./build_crash docs/reproducers/rusticl_build_crash.cl \
 *     $cl/clscan_common.cl $cl/clscan_clear.cl $cl/clscan_subgroup.cl $cl/clscan_workgroup.cl \
 *     $cl/clscan_scan.cl $cl/clscan_general_tile.cl $cl/clscan_general.cl
 * (Mesa 22.3.6, Debian 12: SIGSEGV in the first build with MALLOC_PERTURB_ 1, 2 or 3;
 * every build succeeds with 4 to 255 or without it. BUILDS: builds, default 10;
 * OPTIONS: build options, default -cl-std=CL1.2.) */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1))) {
            if (fread(text, 1, (size_t)n, f) == (size_t)n) {
                text[n] = 0;
                *size = (size_t)n;
            } else {
                free(text);
                text = NULL;
            }
        }
    }
    fclose(f);
    return text;
}

int main(int argc, char **argv)
{
    enum { MAX_FILES = 16 };
    if (argc < 2 || argc - 1 > MAX_FILES) {
        fprintf(stderr, "usage: %s FILE.cl... (at most %d)\n", argv[0], MAX_FILES);
        return 2;
    }
    const char *texts[MAX_FILES];
    size_t lengths[MAX_FILES];
    const cl_uint count = (cl_uint)(argc - 1);
    for (cl_uint i = 0; i < count; ++i)
        if (!(texts[i] = read_file(argv[i + 1], &lengths[i]))) {
            perror(argv[i + 1]);
            return 2;
        }
    const int builds = getenv("BUILDS") ? atoi(getenv("BUILDS")) : 10;
    const char *options = getenv("OPTIONS") ? getenv("OPTIONS") : "-cl-std=CL1.2";
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) { fprintf(stderr, "no device (%d)\n", err); return 2; }
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) { fprintf(stderr, "clCreateContext: %d\n", err); return 2; }
    for (int i = 0; i < builds; ++i) {
        cl_program p = clCreateProgramWithSource(ctx, count, texts, lengths, &err);
        if (err != CL_SUCCESS) { fprintf(stderr, "clCreateProgramWithSource: %d\n", err); return 1; }
        err = clBuildProgram(p, 1, &device, options, NULL, NULL);
        printf("build %d: %d\n", i, err);
        fflush(stdout);
        clReleaseProgram(p);
    }
    clReleaseContext(ctx);
    for (cl_uint i = 0; i < count; ++i) free((void *)texts[i]);
    return 0;
}
