/* nvidia_fill_2g.c - minimal reproducer: NVIDIA's OpenCL (driver 580.159.04, H100) never
 * finishes clEnqueueFillBuffer with a 1-byte pattern over 2 GiB; a 4-byte pattern, a
 * copy and a write of the same size take milliseconds. Arguments: what (0: fill with a
 * 1-byte pattern, 1: with a 4-byte pattern, 2: copy, 3: write), bytes.
 *   cc nvidia_fill_2g.c -lOpenCL -o fill2g
 *   for w in 0 1 2 3; do for s in 1073741824 2147483648; do
 *       timeout 40 ./fill2g $w $s || echo "what $w bytes $s: exit $?"; done; done */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    int what = atoi(argv[1]);
    size_t bytes = strtoull(argv[2], NULL, 0);
    cl_platform_id p; cl_device_id d; cl_int e;
    clGetPlatformIDs(1, &p, NULL);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, NULL);
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
    cl_mem a = clCreateBuffer(c, 0, bytes, NULL, &e), b = clCreateBuffer(c, 0, bytes, NULL, &e);
    const unsigned char pat1 = 0xa5;
    const cl_uint pat4 = 0xa5a5a5a5u;
    double t = now();
    if (what == 0) e = clEnqueueFillBuffer(q, a, &pat1, 1, 0, bytes, 0, NULL, NULL);
    if (what == 1) e = clEnqueueFillBuffer(q, a, &pat4, 4, 0, bytes, 0, NULL, NULL);
    if (what == 2) e = clEnqueueCopyBuffer(q, a, b, 0, 0, bytes, 0, NULL, NULL);
    if (what == 3) {
        void *h = calloc(1, bytes);
        e = clEnqueueWriteBuffer(q, a, CL_TRUE, 0, bytes, h, 0, NULL, NULL);
    }
    cl_int f = clFinish(q);
    printf("what %d bytes %zu: enqueue %d finish %d, %.3f s\n", what, bytes, e, f, now() - t);
    return 0;
}
