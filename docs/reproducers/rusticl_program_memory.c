/* rusticl_program_memory.c - does an OpenCL implementation's memory grow per distinct
 * program built, with at most K programs alive? Plain OpenCL, no libclscan: builds N
 * programs from one source text, each made distinct by a leading
 * `#define CLSCAN_REPRO_VARIANT k` (a source that uses the macro changes its code too),
 * keeps the newest K alive (releasing older ones and their kernels), and prints malloc's
 * bytes in use and what it holds from the system (mallinfo2: uordblks + hblkhd, and
 * arena + hblkhd) and the resident set (/proc/self/statm) every 100 programs (-p).
 * Each of libclscan's program-cache habits can be switched on or off (see usage()).
 * Build: gcc -O1 -Wall -o /tmp/rpm rusticl_program_memory.c -lOpenCL
 * Run:   OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd RUSTICL_ENABLE=llvmpipe \
 *          /tmp/rpm -n 2000 -k 512 -f prog.cl -o "-cl-std=CL1.2" -l NAME -a ARGS
 * prog.cl: any OpenCL C text, e.g. one libclscan gives clCreateProgramWithSource (dumped
 * by an LD_PRELOAD shim) with its predicate replaced by one that uses
 * CLSCAN_REPRO_VARIANT; without -f a small built-in text of six kernels is used. */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *small_source =
    "__kernel void k0(__global uint *d, ulong n) { if (get_global_id(0) < n) d[get_global_id(0)] = CLSCAN_REPRO_VARIANT; }\n"
    "__kernel void k1(__global uint *d, ulong n) { if (get_global_id(0) < n) d[get_global_id(0)] += CLSCAN_REPRO_VARIANT; }\n"
    "__kernel void k2(__global uint *d, ulong n) { if (get_global_id(0) < n) d[get_global_id(0)] *= CLSCAN_REPRO_VARIANT; }\n"
    "__kernel void k3(__global uint *d, ulong n) { if (get_global_id(0) < n) d[get_global_id(0)] ^= CLSCAN_REPRO_VARIANT; }\n"
    "__kernel void k4(__global uint *d, ulong n) { if (get_global_id(0) < n) d[get_global_id(0)] |= CLSCAN_REPRO_VARIANT; }\n"
    "__kernel void k5(__global ulong *c) { c[0] = CLSCAN_REPRO_VARIANT; }\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static double rss_mib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}
static double malloc_mib(void)
{
    const struct mallinfo2 mi = mallinfo2();
    return (double)(mi.uordblks + mi.hblkhd) / (1 << 20);
}
/* What malloc holds from the system, in use or free (all arenas, and its mmapped blocks). */
static double heap_mib(void)
{
    const struct mallinfo2 mi = mallinfo2();
    return (double)(mi.arena + mi.hblkhd) / (1 << 20);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: rpm [-n N] [-k K] [-f FILE] [-o OPTIONS] [-N K1,K2,..] [-c MODE] [-g]\n"
            "           [-l KERNEL -a ARGS] [-b] [-t] [-p EVERY] [-s] [-q]\n"
            "  -n N        programs to build (2000)\n"
            "  -k K        newest programs kept alive (512); 0: each released at once\n"
            "  -f FILE     the source text (default: a built-in text of six small kernels)\n"
            "  -o OPTIONS  clBuildProgram options (\"\")\n"
            "  -N NAMES    kernels to create, comma-separated (default: all, from\n"
            "              CL_PROGRAM_KERNEL_NAMES of the first program)\n"
            "  -c MODE     kernels: 0 none, 1 created and released at once, 2 created and\n"
            "              kept until their program is released (2)\n"
            "  -g          also clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE) per kernel\n"
            "  -l KERNEL   launch KERNEL (one work-item) once per program, then read a\n"
            "              buffer back (needs -c 1 or 2)\n"
            "  -a ARGS     its arguments, comma-separated: s, d, c = three 1 KiB buffers,\n"
            "              a number = a ulong, iNUMBER = an int (default: d,256)\n"
            "  -b          clGetProgramInfo(CL_PROGRAM_BINARY_SIZES, CL_PROGRAM_BINARIES)\n"
            "              after each build (a disk cache's store)\n"
            "  -t          malloc_trim(0) before each line printed (gives whole free pages\n"
            "              inside malloc's heap back to the system)\n"
            "  -p EVERY    print a line every EVERY programs (100)\n"
            "  -s          the same text every time (CLSCAN_REPRO_VARIANT 0): not distinct\n"
            "  -q          print only the first and last lines\n");
    exit(2);
}

#define CHECK(e, what)                                                                  \
    do {                                                                                \
        cl_int e_ = (e);                                                                \
        if (e_ != CL_SUCCESS) {                                                         \
            fprintf(stderr, "%s failed: %d\n", what, e_);                               \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

enum { MAX_KERNELS = 64 };
typedef struct {
    cl_program program;
    cl_kernel kernels[MAX_KERNELS];
    int nkernels;
} slot;

int main(int argc, char **argv)
{
    long n = 2000, keep = 512;
    const char *file = NULL, *options = "", *names_arg = NULL, *launch = NULL, *args = "d,256";
    int kmode = 2, wginfo = 0, binaries = 0, trim = 0, quiet = 0, same = 0;
    long every = 100;
    for (int opt; (opt = getopt(argc, argv, "n:k:f:o:N:c:gl:a:btp:qs")) != -1;) {
        switch (opt) {
        case 'n': n = atol(optarg); break;
        case 'k': keep = atol(optarg); break;
        case 'f': file = optarg; break;
        case 'o': options = optarg; break;
        case 'N': names_arg = optarg; break;
        case 'c': kmode = atoi(optarg); break;
        case 'g': wginfo = 1; break;
        case 'l': launch = optarg; break;
        case 'a': args = optarg; break;
        case 'b': binaries = 1; break;
        case 't': trim = 1; break;
        case 'p': every = atol(optarg); break;
        case 's': same = 1; break;
        case 'q': quiet = 1; break;
        default: usage();
        }
    }
    if (n <= 0 || keep < 0 || every <= 0 || kmode < 0 || kmode > 2 || (launch && kmode == 0)) usage();
    char *text = NULL;
    if (file) {
        FILE *f = fopen(file, "rb");
        if (!f) {
            perror(file);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        const long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = malloc((size_t)len + 1);
        if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) return 1;
        text[len] = 0;
        fclose(f);
    }
    const char *source = file ? text : small_source;

    cl_platform_id pl;
    cl_device_id dev;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &pl, NULL), "clGetPlatformIDs");
    CHECK(clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
    char devname[256] = "", version[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof devname, devname, NULL);
    clGetPlatformInfo(pl, CL_PLATFORM_VERSION, sizeof version, version, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err, "clCreateContext");
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK(err, "clCreateCommandQueueWithProperties");
    cl_mem bufs[3];
    for (int b = 0; b < 3; ++b) {
        bufs[b] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1024, NULL, &err);
        CHECK(err, "clCreateBuffer");
    }
    printf("%s (%s); source %s (%zu bytes), options \"%s\", keep %ld, kernels mode %d%s, "
           "launch %s%s%s%s\n", devname, version, file ? file : "built-in", strlen(source), options,
           keep, kmode, wginfo ? " +wg info" : "", launch ? launch : "none",
           binaries ? ", binaries read" : "", trim ? ", malloc_trim" : "", same ? ", the same text each time" : "");
    printf("%8s %6s %8s %14s %10s %10s\n", "programs", "alive", "seconds", "malloc_MiB",
           "heap_MiB", "RSS_MiB");
    printf("%8d %6d %8.1f %14.1f %10.1f %10.1f\n", 0, 0, 0.0, malloc_mib(), heap_mib(),
           rss_mib());

    const size_t ring = keep > 0 ? (size_t)keep : 1;
    slot *slots = calloc(ring, sizeof *slots);
    char *names[MAX_KERNELS];
    int nnames = 0;
    char *names_buf = NULL;
    long alive = 0;
    const double t0 = now();
    for (long k = 0; k < n; ++k) {
        slot *s = &slots[(size_t)k % ring];
        if (s->program) { /* the oldest: released, as an LRU cache would */
            for (int j = 0; j < s->nkernels; ++j) clReleaseKernel(s->kernels[j]);
            clReleaseProgram(s->program);
            s->program = NULL;
            s->nkernels = 0;
            --alive;
        }
        char define[64];
        snprintf(define, sizeof define, "#define CLSCAN_REPRO_VARIANT %ld\n", same ? 0 : k);
        const char *texts[2] = {define, source};
        cl_program p = clCreateProgramWithSource(ctx, 2, texts, NULL, &err);
        CHECK(err, "clCreateProgramWithSource");
        err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
        if (err != CL_SUCCESS) {
            size_t len = 0;
            clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
            char *log = malloc(len + 1);
            if (log && clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL) == 0)
                fprintf(stderr, "build log:\n%s\n", log);
            CHECK(err, "clBuildProgram");
        }
        if (binaries) {
            size_t size = 0;
            CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL),
                  "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
            unsigned char *bin = malloc(size ? size : 1);
            CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL),
                  "clGetProgramInfo(CL_PROGRAM_BINARIES)");
            free(bin);
        }
        if (nnames == 0 && kmode > 0) { /* the kernel names, once */
            if (names_arg) {
                names_buf = strdup(names_arg);
            } else {
                size_t len = 0;
                CHECK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &len),
                      "clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)");
                names_buf = malloc(len + 1);
                CHECK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, len, names_buf, NULL),
                      "clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)");
            }
            for (char *save = NULL, *t = strtok_r(names_buf, ",;", &save);
                 t && nnames < MAX_KERNELS; t = strtok_r(NULL, ",;", &save))
                names[nnames++] = t;
            printf("kernels: %d (", nnames);
            for (int j = 0; j < nnames; ++j) printf("%s%s", j ? " " : "", names[j]);
            printf(")\n");
        }
        cl_kernel launched = NULL;
        for (int j = 0; kmode > 0 && j < nnames; ++j) {
            cl_kernel kern = clCreateKernel(p, names[j], &err);
            CHECK(err, names[j]);
            if (wginfo) {
                size_t wg = 0;
                CHECK(clGetKernelWorkGroupInfo(kern, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                               &wg, NULL),
                      "clGetKernelWorkGroupInfo");
            }
            if (launch && strcmp(names[j], launch) == 0) {
                launched = kern;
                clRetainKernel(kern);
            }
            if (kmode == 2) s->kernels[s->nkernels++] = kern;
            else clReleaseKernel(kern);
        }
        if (launch) {
            if (!launched) {
                fprintf(stderr, "kernel %s not among the kernels created\n", launch);
                return 1;
            }
            char *a = strdup(args), *save = NULL;
            cl_uint i = 0;
            for (char *t = strtok_r(a, ",", &save); t; t = strtok_r(NULL, ",", &save), ++i) {
                if (t[0] == 's' || t[0] == 'd' || t[0] == 'c') {
                    const cl_mem m = bufs[t[0] == 's' ? 0 : t[0] == 'd' ? 1 : 2];
                    CHECK(clSetKernelArg(launched, i, sizeof m, &m), "clSetKernelArg(buffer)");
                } else if (t[0] == 'i') {
                    const cl_int v = atoi(t + 1);
                    CHECK(clSetKernelArg(launched, i, sizeof v, &v), "clSetKernelArg(int)");
                } else {
                    const cl_ulong v = strtoull(t, NULL, 0);
                    CHECK(clSetKernelArg(launched, i, sizeof v, &v), "clSetKernelArg(ulong)");
                }
            }
            free(a);
            const size_t one = 1;
            CHECK(clEnqueueNDRangeKernel(q, launched, 1, NULL, &one, &one, 0, NULL, NULL),
                  "clEnqueueNDRangeKernel");
            cl_ulong back = 0;
            CHECK(clEnqueueReadBuffer(q, bufs[2], CL_TRUE, 0, sizeof back, &back, 0, NULL, NULL),
                  "clEnqueueReadBuffer");
            clReleaseKernel(launched);
        }
        if (keep > 0) {
            s->program = p;
            ++alive;
        } else {
            for (int j = 0; j < s->nkernels; ++j) clReleaseKernel(s->kernels[j]);
            s->nkernels = 0;
            clReleaseProgram(p);
        }
        if ((k + 1) % every == 0 || k + 1 == n)
            if (!quiet || k + 1 == n || k + 1 == every) {
                if (trim) malloc_trim(0);
                printf("%8ld %6ld %8.1f %14.1f %10.1f %10.1f\n", k + 1, alive, now() - t0,
                       malloc_mib(), heap_mib(), rss_mib());
            }
        fflush(stdout);
    }
    for (size_t i = 0; i < ring; ++i) {
        for (int j = 0; j < slots[i].nkernels; ++j) clReleaseKernel(slots[i].kernels[j]);
        if (slots[i].program) clReleaseProgram(slots[i].program);
    }
    clFinish(q);
    if (trim) malloc_trim(0);
    printf("all released: malloc in use %.1f MiB, heap %.1f MiB, RSS %.1f MiB\n", malloc_mib(),
           heap_mib(), rss_mib());
    for (int b = 0; b < 3; ++b) clReleaseMemObject(bufs[b]);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(slots);
    free(names_buf);
    free(text);
    return 0;
}
