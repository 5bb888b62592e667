// small-vs-cub.cu - libclscan's small calls against CUB's in one process, interleaved:
// batches of CALLS calls (then one clFinish / cudaDeviceSynchronize) alternate between
// CUB, libclscan, CUDA's device-to-device copy and OpenCL's buffer copy of the same
// bytes, ROUNDS rounds after 2 of warm-up, so that the drift between rounds and machine
// starts (up to 1.6x at 2^16, docs/PERFORMANCE.md) falls on all four alike. Printed per
// call and size: each side's median wall time a call (batch / CALLS), and the median
// and quartiles over the rounds of the ratio libclscan / CUB within a round. Before the
// timing, each call's output is checked against CUB's output of the same input.
// Calls: scan (int32 exclusive sum), select (int32 if even), bykey (int32 inclusive sum
// by int32 keys in runs of 1 to 64), rbk (int32 reduce by key, the same keys), reduce
// (int32 sum), unique (of those keys); values int32 in [0, 255], as cub_anchor's.
// Inputs do not rotate: each side reads the same buffers in every call (as cub_anchor).
// Build (GPU machine, after the library's build in build-gpu):
//   nvcc -O3 -arch=sm_90 -std=c++17 -Iinclude -o /tmp/small-vs-cub tools/prof/small-vs-cub.cu \
//        -Lbuild-gpu -lclscan -lOpenCL -Xlinker -rpath=$PWD/build-gpu
// Use: /tmp/small-vs-cub 16 20 [calls...]
// SPDX-License-Identifier: MIT
#define CL_TARGET_OPENCL_VERSION 300
#include <clscan.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../cub_common.cuh"
#include "prof-time.h"

#define CL(x)                                                                            \
    do {                                                                                 \
        long e_ = (long)(x);                                                             \
        if (e_ != 0) {                                                                   \
            std::printf("OpenCL/clscan status %ld at line %d\n", e_, __LINE__);           \
            std::exit(2);                                                                \
        }                                                                                \
    } while (0)

enum { ROUNDS = 21, WARMUP = 2, CALLS = 200 };
static const char *const CALL_NAMES[] = {"scan", "select", "bykey", "rbk", "reduce", "unique"};
enum { NCALLS = sizeof CALL_NAMES / sizeof *CALL_NAMES };

struct IsEven {
    __device__ bool operator()(int x) const { return (x & 1) == 0; }
};
static double median(std::vector<double> v, double q = 0.5)
{
    std::sort(v.begin(), v.end());
    return v[(size_t)(q * (double)(v.size() - 1) + 0.5)];
}

// Both sides' buffers for one n: vals, keys, out, out2 (unique keys), count.
struct sides {
    size_t n;
    int32_t *a, *k, *o, *o2;
    unsigned long long *cnt;
    void *tmp = nullptr;
    size_t tb = 0;
    cl_mem va, vk, vo, vo2, vcnt;
};

static void cub_call(int call, sides &s, bool size_only)
{
    size_t x = size_only ? 0 : s.tb;
    void *t = size_only ? nullptr : s.tmp;
    const int64_t n = (int64_t)s.n;
    switch (call) {
    case 0: cub::DeviceScan::ExclusiveSum(t, x, s.a, s.o, n); break;
    case 1: cub::DeviceSelect::If(t, x, s.a, s.o, s.cnt, n, IsEven()); break;
    case 2: cub::DeviceScan::InclusiveSumByKey(t, x, s.k, s.a, s.o, n); break;
    case 3:
        cub::DeviceReduce::ReduceByKey(t, x, s.k, s.o2, s.a, s.o, s.cnt,
                                       cuda::std::plus<int32_t>(), n);
        break;
    case 4: cub::DeviceReduce::Sum(t, x, s.a, s.o, n); break;
    case 5: cub::DeviceSelect::Unique(t, x, s.k, s.o, s.cnt, n); break;
    }
    if (size_only) s.tb = x > s.tb ? x : s.tb;
}

static clscan_status cl_call(int call, sides &s, clscan_context *ctx, cl_command_queue q)
{
    clscan_scan_desc d = {};
    d.type = CLSCAN_INT32;
    d.op = CLSCAN_OP_ADD;
    d.segments = CLSCAN_SEGMENTS_KEYS;
    d.key_type = CLSCAN_INT32;
    switch (call) {
    case 0:
        return clscan_exclusive_scan(ctx, q, s.va, 0, s.vo, 0, s.n, CLSCAN_INT32, CLSCAN_OP_ADD,
                                     0, NULL, NULL);
    case 1:
        return clscan_select_if(ctx, q, s.va, 0, s.vo, 0, s.vcnt, s.n, CLSCAN_INT32,
                                "(x & 1) == 0", 0, NULL, NULL);
    case 2: return clscan_scan(ctx, q, &d, 1, s.va, 0, s.vk, 0, s.vo, 0, s.n, 0, NULL, NULL);
    case 3:
        return clscan_reduce_by_key(ctx, q, &d, s.vk, 0, s.va, 0, s.n, s.vo2, 0, s.vo, 0, s.vcnt,
                                    0, NULL, NULL);
    case 4:
        return clscan_reduce(ctx, q, s.va, 0, s.n, CLSCAN_INT32, CLSCAN_OP_ADD, s.vo, 0, 0, NULL,
                             NULL);
    default:
        return clscan_unique(ctx, q, s.vk, 0, s.vo, 0, s.vcnt, s.n, CLSCAN_INT32, 0, NULL, NULL);
    }
}

// How many int32 of out (and of out2) the call wrote; 0 out2 where it has none.
static size_t written(int call, const sides &s, unsigned long long count, size_t *out2)
{
    *out2 = call == 3 ? (size_t)count : 0;
    return call == 0 || call == 2 ? s.n : call == 4 ? 1 : (size_t)count;
}

// libclscan's output against CUB's for the same input: 0 when equal.
static int check(int call, sides &s, clscan_context *ctx, cl_command_queue q)
{
    CK(cudaMemset(s.o, 0x5a, s.n * 4));
    CK(cudaMemset(s.o2, 0x5a, s.n * 4));
    CK(cudaMemset(s.cnt, 0, 8));
    cub_call(call, s, false);
    CK(cudaDeviceSynchronize());
    CL(cl_call(call, s, ctx, q));
    CL(clFinish(q));
    unsigned long long cc = 0, oc = 0;
    const bool counted = call == 1 || call == 3 || call == 5;
    if (counted) {
        CK(cudaMemcpy(&cc, s.cnt, 8, cudaMemcpyDeviceToHost));
        CL(clEnqueueReadBuffer(q, s.vcnt, CL_TRUE, 0, 8, &oc, 0, NULL, NULL));
        if (cc != oc || cc > s.n)
            return std::printf("%s n=%zu: count %llu, CUB's %llu\n", CALL_NAMES[call], s.n, oc,
                               cc),
                   1;
    }
    size_t w2, w = written(call, s, cc, &w2);
    std::vector<int32_t> c(s.n), o(s.n);
    for (int side = 0; side < 2; ++side) {
        const size_t m = side ? w2 : w;
        if (!m) continue;
        CK(cudaMemcpy(c.data(), side ? s.o2 : s.o, m * 4, cudaMemcpyDeviceToHost));
        CL(clEnqueueReadBuffer(q, side ? s.vo2 : s.vo, CL_TRUE, 0, m * 4, o.data(), 0, NULL,
                               NULL));
        for (size_t i = 0; i < m; ++i)
            if (c[i] != o[i])
                return std::printf("%s n=%zu: %s[%zu] = %d, CUB's %d\n", CALL_NAMES[call], s.n,
                                   side ? "keys" : "out", i, o[i], c[i]),
                       1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    std::vector<int> logs;
    bool want[NCALLS] = {};
    int any = 0;
    for (int i = 1; i < argc; ++i) {
        int c = 0;
        while (c < NCALLS && std::strcmp(argv[i], CALL_NAMES[c])) ++c;
        if (c < NCALLS) want[c] = true, any = 1;
        else if (std::atoi(argv[i]) > 0 && std::atoi(argv[i]) <= 28)
            logs.push_back(std::atoi(argv[i]));
        else
            return std::printf("usage: small-vs-cub log2n... "
                               "[scan|select|bykey|rbk|reduce|unique...]\n"),
                   2;
    }
    if (logs.empty()) logs = {16, 20};
    if (!any) std::fill(want, want + NCALLS, true);
    cl_platform_id pl;
    cl_device_id dev;
    cl_int err;
    CL(clGetPlatformIDs(1, &pl, NULL));
    CL(clGetDeviceIDs(pl, CL_DEVICE_TYPE_GPU, 1, &dev, NULL));
    cl_context cx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL(err);
    cl_command_queue q = clCreateCommandQueueWithProperties(cx, dev, NULL, &err);
    CL(err);
    clscan_context *ctx = nullptr;
    CL(clscan_context_create(cx, dev, &ctx));
    std::printf("%-7s %-5s %9s %9s %9s %9s  %s\n", "call", "n", "cub_us", "ours_us",
                "cuda_copy", "cl_copy", "ours/cub per round: median (quartiles)");
    for (int lg : logs) {
        sides s;
        s.n = (size_t)1 << lg;
        const size_t bytes = s.n * 4;
        std::vector<int32_t> vals(s.n), keys(s.n);
        int32_t key = 0;
        for (size_t i = 0, left = 0; i < s.n; ++i, --left) {
            vals[i] = (int32_t)(mix(i) & 0xff);
            if (!left) key++, left = 1 + (mix(i * 7 + 3) & 63);
            keys[i] = key;
        }
        CK(cudaMalloc(&s.a, bytes));
        CK(cudaMalloc(&s.k, bytes));
        CK(cudaMalloc(&s.o, bytes));
        CK(cudaMalloc(&s.o2, bytes));
        CK(cudaMalloc(&s.cnt, 8));
        CK(cudaMemcpy(s.a, vals.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(s.k, keys.data(), bytes, cudaMemcpyHostToDevice));
        const cl_mem_flags cp = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
        s.va = clCreateBuffer(cx, cp, bytes, vals.data(), &err);
        CL(err);
        s.vk = clCreateBuffer(cx, cp, bytes, keys.data(), &err);
        CL(err);
        s.vo = clCreateBuffer(cx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        CL(err);
        s.vo2 = clCreateBuffer(cx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        CL(err);
        s.vcnt = clCreateBuffer(cx, CL_MEM_READ_WRITE, 8, NULL, &err);
        CL(err);
        for (int c = 0; c < NCALLS; ++c) cub_call(c, s, true);
        CK(cudaMalloc(&s.tmp, s.tb ? s.tb : 1));
        for (int call = 0; call < NCALLS; ++call) {
            if (!want[call]) continue;
            if (check(call, s, ctx, q)) return 1;
            std::vector<double> t[4], ratio;
            for (int r = -WARMUP; r < ROUNDS; ++r) {
                double w[4];
                for (int side = 0; side < 4; ++side) {
                    const double t0 = now_us();
                    for (int i = 0; i < CALLS; ++i) {
                        if (side == 0) cub_call(call, s, false);
                        else if (side == 1) CL(cl_call(call, s, ctx, q));
                        else if (side == 2)
                            CK(cudaMemcpyAsync(s.o, s.a, bytes, cudaMemcpyDeviceToDevice));
                        else CL(clEnqueueCopyBuffer(q, s.va, s.vo, 0, 0, bytes, 0, NULL, NULL));
                    }
                    if (side == 0 || side == 2) CK(cudaDeviceSynchronize());
                    else CL(clFinish(q));
                    w[side] = (now_us() - t0) / CALLS;
                }
                if (r < 0) continue;
                for (int side = 0; side < 4; ++side) t[side].push_back(w[side]);
                ratio.push_back(w[1] / w[0]);
            }
            std::printf("%-7s 2^%-3d %9.2f %9.2f %9.2f %9.2f  %.2f (%.2f %.2f)\n", CALL_NAMES[call],
                        lg, median(t[0]), median(t[1]), median(t[2]), median(t[3]), median(ratio),
                        median(ratio, 0.25), median(ratio, 0.75));
            std::fflush(stdout);
        }
        cudaFree(s.a), cudaFree(s.k), cudaFree(s.o), cudaFree(s.o2), cudaFree(s.cnt);
        cudaFree(s.tmp);
        clReleaseMemObject(s.va), clReleaseMemObject(s.vk), clReleaseMemObject(s.vo);
        clReleaseMemObject(s.vo2), clReleaseMemObject(s.vcnt);
    }
    clscan_context_release(ctx);
    clReleaseCommandQueue(q);
    clReleaseContext(cx);
    return 0;
}
