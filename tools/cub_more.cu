// cub_more.cu - CUB's calls for the primitives .gpu-kit/anchors/cub_anchor.cu does not
// time, timed the same way (as a user calls them): K calls back to back on one stream,
// then one synchronize; wall time / K, median of 5 batches, K = 2 GiB / (2 * the input's
// bytes) in [3, 2000]; the device-to-device copy of the same bytes timed alike. Results
// are not checked here (clscan-bench checks ours), but for the matrix scans' last prefix.
// Build (GPU machine): nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/cub_more tools/cub_more.cu
// Usage: cub_more OP log2n...   OP: reduce (DeviceReduce::Sum of int32), bykey
// (DeviceReduce::ReduceByKey, int32 add by int32 keys in runs of 1 to 24), rle
// (DeviceRunLengthEncode::Encode of int32 in runs of 1 to 24, uint32 lengths), histogram
// (DeviceHistogram::HistogramEven, int32 samples in [-128, 384), 256 bins over [0, 256)),
// sortkB (DeviceRadixSort::SortKeys of random uint32 keys by their bits [0, B): B = 8 is
// the histogram and one digit pass, each 8 more bits one pass more), sort64 and sortf
// (DeviceRadixSort::SortKeys of int64 and float keys of random bits, as clscan-bench's
// sort rows; their copy moves the same bytes), rle64 and rlef (rle's keys as int64 and
// float, as clscan-bench's rle rows of those types; the copy moves the keys' bytes),
// unique (DeviceSelect::Unique of int32 where each element after the first starts a new
// run with probability 1/2, as clscan-bench's unique rows by default), mat2 and mat2a
// (DeviceScan::InclusiveScan of 2x2 uint32 matrices under their product, as
// clscan-bench's mat2 rows: a plain struct of four uints, and the same declared
// alignas(16); the copy moves the matrices' bytes, and the last prefix is checked against
// the host's product).
// Prints "cub_OP n=2^K us=... copy_us=... K=...".
// SPDX-License-Identifier: MIT
#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cub_common.cuh"

// A 2x2 matrix of uints, row-major, and its product (tools/verify_general.c's mat2u).
struct mat2u {
    uint32_t a, b, c, d;
};
struct alignas(16) mat2a {
    uint32_t a, b, c, d;
};
template <class M> struct mat2_mul {
    __host__ __device__ M operator()(const M &x, const M &y) const
    {
        return M{x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
                 x.c * y.b + x.d * y.d};
    }
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: cub_more reduce|bykey|rle|rle64|rlef|histogram|unique|"
                             "sortkB|sort64|sortf|mat2|mat2a log2n...\n");
        return 2;
    }
    const char *op = argv[1];
    for (int ai = 2; ai < argc; ai++) {
        const int lg = std::atoi(argv[ai]);
        const int wide = !std::strcmp(op, "sort64") || !std::strcmp(op, "rle64");
        const int mat = !std::strncmp(op, "mat2", 4);
        const size_t n = (size_t)1 << lg, bytes = n * (mat ? 16 : wide ? 8 : 4);
        std::vector<int32_t> vals(n), keys(n);
        int32_t key = 0;
        for (size_t i = 0, left = 0; i < n; i++) {
            if (!left) {
                key++;
                left = 1 + mix(i * 7 + 3) % 24;
            }
            keys[i] = key;
            left--;
            vals[i] = !std::strcmp(op, "histogram") ? (int32_t)(mix(i) % 512) - 128
                      : !std::strncmp(op, "sort", 4) ? (int32_t)mix(i)
                                                     : (int32_t)(mix(i) & 0xff);
        }
        int32_t *a, *b, *k, *o, *o2;
        uint64_t *cnt;
        CK(cudaMalloc(&a, bytes));
        CK(cudaMalloc(&b, bytes));
        CK(cudaMalloc(&k, bytes));
        CK(cudaMalloc(&o, bytes));
        CK(cudaMalloc(&o2, bytes));
        CK(cudaMalloc(&cnt, 8));
        std::vector<int64_t> wide_keys(wide ? n : 0);
        for (size_t i = 0; i < wide_keys.size(); i++)
            wide_keys[i] = !std::strcmp(op, "rle64")
                               ? (int64_t)keys[i]
                               : (int64_t)((uint64_t)mix(i) << 32 | mix(i + (1ull << 40)));
        std::vector<int32_t> runs(!std::strcmp(op, "unique") ? n : 0);
        for (size_t i = 0, v = 0; i < runs.size(); i++) runs[i] = (int32_t)(v += i && mix(i * 11 + 5) & 1);
        std::vector<float> float_keys(!std::strcmp(op, "rlef") ? n : 0);
        for (size_t i = 0; i < float_keys.size(); i++) float_keys[i] = (float)keys[i];
        // Matrices with odd determinants (a and d odd, b and c not both odd), as
        // verify_general.c draws them, so that the prefixes never collapse to 0.
        std::vector<mat2u> mats(mat ? n : 0);
        for (size_t i = 0; i < mats.size(); i++) {
            const uint32_t h = mix(i * 5 + 1);
            uint32_t b = h >> 2 & 3, c = h >> 4 & 3;
            if (b & c & 1) b ^= 1;
            mats[i] = mat2u{1 + 2 * (h & 1), b, c, 1 + 2 * (h >> 1 & 1)};
        }
        const void *src = mat ? (const void *)mats.data()
                          : wide ? (const void *)wide_keys.data()
                          : !std::strcmp(op, "rle") ? (const void *)keys.data()
                          : !std::strcmp(op, "rlef") ? (const void *)float_keys.data()
                          : !std::strcmp(op, "unique") ? (const void *)runs.data()
                                                     : (const void *)vals.data();
        CK(cudaMemcpy(a, src, bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(k, keys.data(), n * 4, cudaMemcpyHostToDevice));
        void *tmp = nullptr;
        size_t tb = 0;
        auto run = [&](bool size_only) {
            size_t x = size_only ? 0 : tb;
            void *t = size_only ? nullptr : tmp;
            if (!std::strcmp(op, "reduce"))
                cub::DeviceReduce::Sum(t, x, a, o, (int64_t)n);
            else if (!std::strcmp(op, "bykey"))
                cub::DeviceReduce::ReduceByKey(t, x, k, o2, a, o, cnt, cuda::std::plus<int32_t>(),
                                               (int64_t)n);
            else if (!std::strcmp(op, "rle"))
                cub::DeviceRunLengthEncode::Encode(t, x, a, o, (uint32_t *)o2, cnt, (int64_t)n);
            else if (!std::strcmp(op, "rle64"))
                cub::DeviceRunLengthEncode::Encode(t, x, (int64_t *)a, (int64_t *)o, (uint32_t *)o2,
                                                   cnt, (int64_t)n);
            else if (!std::strcmp(op, "rlef"))
                cub::DeviceRunLengthEncode::Encode(t, x, (float *)a, (float *)o, (uint32_t *)o2,
                                                   cnt, (int64_t)n);
            else if (!std::strcmp(op, "unique"))
                cub::DeviceSelect::Unique(t, x, a, o, cnt, (int64_t)n);
            else if (!std::strcmp(op, "mat2"))
                cub::DeviceScan::InclusiveScan(t, x, (mat2u *)a, (mat2u *)o, mat2_mul<mat2u>(),
                                               (int64_t)n);
            else if (!std::strcmp(op, "mat2a"))
                cub::DeviceScan::InclusiveScan(t, x, (mat2a *)a, (mat2a *)o, mat2_mul<mat2a>(),
                                               (int64_t)n);
            else if (!std::strcmp(op, "histogram"))
                cub::DeviceHistogram::HistogramEven(t, x, a, o, 257, 0, 256, (int64_t)n);
            else if (!std::strncmp(op, "sortk", 5) && std::atoi(op + 5) > 0)
                cub::DeviceRadixSort::SortKeys(t, x, (uint32_t *)a, (uint32_t *)o, (int64_t)n, 0,
                                               std::atoi(op + 5));
            else if (wide)
                cub::DeviceRadixSort::SortKeys(t, x, (int64_t *)a, (int64_t *)o, (int64_t)n);
            else if (!std::strcmp(op, "sortf"))
                cub::DeviceRadixSort::SortKeys(t, x, (float *)a, (float *)o, (int64_t)n);
            else {
                std::fprintf(stderr, "cub_more: unknown op %s\n", op);
                std::exit(2);
            }
            if (size_only) tb = x;
        };
        run(true);
        CK(cudaMalloc(&tmp, tb ? tb : 1));
        size_t K = (2ull << 30) / (2 * bytes);
        K = K < 3 ? 3 : K > 2000 ? 2000 : K;
        run(false);
        CK(cudaDeviceSynchronize());
        if (mat) { // the last prefix against the host's product of all n
            mat2u want{1, 0, 0, 1}, got;
            for (size_t i = 0; i < n; i++) want = mat2_mul<mat2u>()(want, mats[i]);
            CK(cudaMemcpy(&got, (const char *)o + bytes - 16, 16, cudaMemcpyDeviceToHost));
            if (std::memcmp(&got, &want, 16)) {
                std::printf("cub_%s n=2^%d: wrong last prefix\n", op, lg);
                std::exit(1);
            }
        }
        std::vector<double> tl, tc;
        for (int r = 0; r < 5; r++) {
            const double t0 = now();
            for (size_t j = 0; j < K; j++) run(false);
            CK(cudaDeviceSynchronize());
            const double t1 = now();
            for (size_t j = 0; j < K; j++)
                CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
            CK(cudaDeviceSynchronize());
            const double t2 = now();
            tl.push_back((t1 - t0) / K);
            tc.push_back((t2 - t1) / K);
        }
        std::sort(tl.begin(), tl.end());
        std::sort(tc.begin(), tc.end());
        std::printf("cub_%s n=2^%d us=%.1f copy_us=%.1f K=%zu\n", op, lg, tl[2] * 1e6,
                    tc[2] * 1e6, K);
        std::fflush(stdout);
        cudaFree(a);
        cudaFree(b);
        cudaFree(k);
        cudaFree(o);
        cudaFree(o2);
        cudaFree(cnt);
        cudaFree(tmp);
    }
    return 0;
}
