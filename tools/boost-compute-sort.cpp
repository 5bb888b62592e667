// boost-compute-sort.cpp - times Boost.Compute's boost::compute::sort of uint32 keys (and
// sort_by_key with uint32 values) on the first OpenCL device, for the comparison with
// clscan_sort_keys / clscan_sort_pairs in docs/PERFORMANCE.md: wall time of the call plus
// queue.finish(), median of repeats after warm-up calls, each result checked against
// std::stable_sort. Not built by meson (it needs Boost's headers: libboost-dev):
//   g++ -O2 -std=c++17 tools/boost-compute-sort.cpp -lOpenCL -o boost-compute-sort
//   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd ./boost-compute-sort 65536 1048576 16777216
// SPDX-License-Identifier: MIT
#define CL_TARGET_OPENCL_VERSION 120
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace compute = boost::compute;

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    compute::device device = compute::system::default_device();
    compute::context context(device);
    compute::command_queue queue(context, device);
    std::printf("device: %s (%s)\n", device.name().c_str(), device.platform().name().c_str());
    const int warmup = 2, repeats = 10;
    std::mt19937 rng(20261124);
    for (int a = 1; a < argc; ++a) {
        const size_t n = std::strtoull(argv[a], nullptr, 0);
        std::vector<cl_uint> keys(n), values(n);
        for (size_t i = 0; i < n; ++i) {
            keys[i] = rng();
            values[i] = (cl_uint)i;
        }
        std::vector<std::pair<cl_uint, cl_uint>> want(n);
        for (size_t i = 0; i < n; ++i) want[i] = {keys[i], values[i]};
        std::stable_sort(want.begin(), want.end(),
                         [](const auto &x, const auto &y) { return x.first < y.first; });
        for (int pairs = 0; pairs < 2; ++pairs) {
            std::vector<double> times;
            bool ok = true;
            for (int r = 0; r < warmup + repeats; ++r) {
                compute::vector<cl_uint> k(keys.begin(), keys.end(), queue);
                compute::vector<cl_uint> v(values.begin(), values.end(), queue);
                queue.finish();
                const auto t0 = std::chrono::steady_clock::now();
                if (pairs) compute::sort_by_key(k.begin(), k.end(), v.begin(), queue);
                else compute::sort(k.begin(), k.end(), queue);
                queue.finish();
                const auto t1 = std::chrono::steady_clock::now();
                if (r >= warmup) times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
                if (r == warmup + repeats - 1) { // check the last one
                    std::vector<cl_uint> gk(n), gv(n);
                    compute::copy(k.begin(), k.end(), gk.begin(), queue);
                    compute::copy(v.begin(), v.end(), gv.begin(), queue);
                    for (size_t i = 0; i < n && ok; ++i)
                        ok = gk[i] == want[i].first && (!pairs || gv[i] == want[i].second);
                }
            }
            std::printf("%s n %zu: median wall %.1f us over %d calls (+%d warm-up): %s\n",
                        pairs ? "sort_by_key" : "sort", n, median(times), repeats, warmup,
                        ok ? "PASS (stable order)" : "FAIL");
        }
    }
    return 0;
}
