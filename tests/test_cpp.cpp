/* test_cpp.cpp - include/clscan.hpp (the C++ wrapper) against host loops on random inputs:
 * scans, a general segmented scan, select_if, a sort of pairs, a reduction, the RAII
 * context, refused calls (the status and the library's message, as an exception or as
 * the returned status) and the Khronos C++ bindings' forms (cl::Buffer, cl::CommandQueue,
 * cl::Event, cl::Context). tests/meson.build builds it with exceptions, with
 * -DCLSCAN_HPP_NO_EXCEPTIONS and with -fno-exceptions; CLSCAN_TEST_SEED sets the seed,
 * CLSCAN_TEST_PLATFORM picks platforms by name (as the C suites do). */
/* SPDX-License-Identifier: MIT */
#if CLSCAN_TEST_KHRONOS
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#endif
#include "clscan.hpp"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

/* What the build asked for is what the header saw. */
static_assert(CLSCAN_HPP_KHRONOS == CLSCAN_TEST_KHRONOS, "Khronos bindings not detected");
static_assert(CLSCAN_HPP_EXCEPTIONS == CLSCAN_TEST_EXCEPTIONS, "exception mode not detected");
static_assert(std::is_base_of<std::runtime_error, clscan::error>::value, "error base");
/* Type mapping, including the typedefs a user writes. */
static_assert(clscan::type_of<int32_t>::value == CLSCAN_INT32, "int32_t");
static_assert(clscan::type_of<uint32_t>::value == CLSCAN_UINT32, "uint32_t");
static_assert(clscan::type_of<int64_t>::value == CLSCAN_INT64, "int64_t");
static_assert(clscan::type_of<uint64_t>::value == CLSCAN_UINT64, "uint64_t");
static_assert(clscan::type_of<long long>::value == CLSCAN_INT64, "long long");
static_assert(clscan::type_of<unsigned long long>::value == CLSCAN_UINT64, "ull");
static_assert(clscan::type_of<cl_int>::value == CLSCAN_INT32, "cl_int");
static_assert(clscan::type_of<cl_ulong>::value == CLSCAN_UINT64, "cl_ulong");
static_assert(clscan::type_of<const float>::value == CLSCAN_FLOAT, "const float");
static_assert(clscan::type_of<double>::value == CLSCAN_DOUBLE, "double");
static_assert(!std::is_copy_constructible<clscan::context>::value, "context copies");
static_assert(std::is_nothrow_move_constructible<clscan::context>::value, "context moves");

static int failures = 0;
static std::string where; /* the device and step, for messages */

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "FAIL [%s] ", where.c_str());
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
    va_end(ap);
    ++failures;
}
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond))                                                                       \
            fail(__VA_ARGS__);                                                             \
    } while (0)
/* A wrapped call that must succeed: it returns CLSCAN_SUCCESS (with exceptions it would
 * have thrown otherwise, caught by the device's handler). */
#define CALL(ctx, ...)                                                                     \
    do {                                                                                   \
        clscan_status s_ = (__VA_ARGS__);                                                  \
        CHECK(s_ == CLSCAN_SUCCESS, "%s: %s: %s", #__VA_ARGS__, clscan::status_string(s_),  \
              clscan::last_error(ctx).c_str());                                            \
    } while (0)
#define CL_OK(expr)                                                                        \
    do {                                                                                   \
        cl_int e_ = (expr);                                                                \
        CHECK(e_ == CL_SUCCESS, "%s: %s", #expr, clscan::status_string(e_));                \
    } while (0)

static bool contains(const std::string &s, const std::string &part)
{
    return s.find(part) != std::string::npos;
}

/* A call that must be refused with `want`, its message naming `part`: thrown as a
 * clscan::error with exceptions, returned without; the message is the library's. */
template <class F>
static void expect_refused(const char *what, clscan_context *ctx, clscan_status want,
                           const std::string &part, F call)
{
#if CLSCAN_HPP_EXCEPTIONS
    try {
        clscan_status s = call();
        fail("%s: returned %s instead of throwing", what, clscan::status_string(s));
    } catch (const clscan::error &e) {
        CHECK(e.status() == want, "%s: status %s, want %s", what,
              clscan::status_string(e.status()), clscan::status_string(want));
        CHECK(e.message() == clscan::last_error(ctx), "%s: message \"%s\", library \"%s\"",
              what, e.message().c_str(), clscan::last_error(ctx).c_str());
        CHECK(contains(e.message(), part), "%s: message \"%s\" lacks \"%s\"", what,
              e.message().c_str(), part.c_str());
        std::string w = e.what();
        CHECK(contains(w, e.function()) && contains(w, clscan::status_string(want)) &&
                  contains(w, e.message()) && std::strncmp(e.function(), "clscan_", 7) == 0,
              "%s: what() \"%s\"", what, w.c_str());
    }
#else
    clscan_status s = call();
    CHECK(s == want, "%s: status %s, want %s", what, clscan::status_string(s),
          clscan::status_string(want));
    std::string m = clscan::last_error(ctx);
    CHECK(contains(m, part), "%s: message \"%s\" lacks \"%s\"", what, m.c_str(), part.c_str());
#endif
}

template <class T> static cl_mem make_buffer(cl_context c, const std::vector<T> &init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              init.size() * sizeof(T), const_cast<T *>(init.data()), &err);
    CHECK(m != nullptr, "clCreateBuffer(%zu bytes): %s", init.size() * sizeof(T),
          clscan::status_string(err));
    return m;
}
template <class T> static std::vector<T> read(cl_command_queue q, cl_mem m, size_t n,
                                              const std::vector<cl_event> &after = {})
{
    std::vector<T> out(n);
    CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(T), out.data(),
                              static_cast<cl_uint>(after.size()),
                              after.empty() ? nullptr : after.data(), nullptr));
    return out;
}
static cl_ulong read_count(cl_command_queue q, cl_mem count)
{
    return read<cl_ulong>(q, count, 1)[0];
}

struct device_under_test {
    cl_device_id dev;
    cl_context cl_ctx;
    cl_command_queue queue;
    std::string name;
};

/* ---- exclusive add of int32 (offsets, a vector wait list, an output event) and
 * inclusive max of uint64 (the untyped form, a {count, pointer} wait list) ---- */
static void test_scans(device_under_test &d, clscan::context &ctx, std::mt19937_64 &rng)
{
    where = d.name + ": scans";
    const size_t n = 1000 + rng() % 20000, so = rng() % 8, dof = rng() % 8;
    std::vector<cl_int> in(so + n);
    for (auto &x : in) x = static_cast<cl_int>(rng() % 2001) - 1000;
    const cl_int sentinel = 0x5a5a5a5a;
    std::vector<cl_int> init(dof + n + 3, sentinel);
    cl_mem src = make_buffer(d.cl_ctx, std::vector<cl_int>(so + n, 0));
    cl_mem dst = make_buffer(d.cl_ctx, init);
    cl_event up = nullptr, done = nullptr;
    CL_OK(clEnqueueWriteBuffer(d.queue, src, CL_FALSE, 0, in.size() * sizeof(cl_int), in.data(),
                               0, nullptr, &up));
    std::vector<cl_event> waits{up};
    CALL(ctx.get(), clscan::exclusive_scan<cl_int>(ctx, d.queue, clscan::at(src, so),
                                                   clscan::at(dst, dof), n, clscan::op::add,
                                                   waits, &done));
    CHECK(done != nullptr, "no event returned");
    std::vector<cl_int> out = read<cl_int>(d.queue, dst, init.size(), {done});
    cl_int acc = 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (out[dof + i] != acc && bad++ < 5)
            fail("n %zu: exclusive dst[%zu] = %d, host %d", n, i, out[dof + i], acc);
        acc = static_cast<cl_int>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(in[so + i]));
    }
    for (size_t i = 0; i < init.size(); ++i)
        if ((i < dof || i >= dof + n) && out[i] != sentinel && bad++ < 5)
            fail("element %zu outside the range written (%d)", i, out[i]);
    clReleaseEvent(up);
    if (done) clReleaseEvent(done);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);

    std::vector<cl_ulong> in64(n);
    for (auto &x : in64) x = rng() >> (rng() % 64);
    cl_mem s64 = make_buffer(d.cl_ctx, in64);
    cl_mem d64 = make_buffer(d.cl_ctx, std::vector<cl_ulong>(n, 0));
    cl_event marker = nullptr;
    CL_OK(clEnqueueMarkerWithWaitList(d.queue, 0, nullptr, &marker));
    CALL(ctx.get(), clscan::inclusive_scan(ctx.get(), d.queue, s64, d64, n, CLSCAN_UINT64,
                                           clscan::op::max, clscan::wait_list(1, &marker)));
    std::vector<cl_ulong> o64 = read<cl_ulong>(d.queue, d64, n);
    cl_ulong m = 0;
    bad = 0;
    for (size_t i = 0; i < n; ++i) {
        m = std::max(m, in64[i]);
        if (o64[i] != m && bad++ < 5)
            fail("n %zu: inclusive max dst[%zu] = %" PRIu64 ", host %" PRIu64, n, i,
                 (uint64_t)o64[i], (uint64_t)m);
    }
    clReleaseEvent(marker);
    clReleaseMemObject(s64);
    clReleaseMemObject(d64);
}

/* ---- a general scan: exclusive running maximum (combine/identity texts) over segments
 * given by flags, at offsets ---- */
static void test_general(device_under_test &d, clscan::context &ctx, std::mt19937_64 &rng)
{
    where = d.name + ": general scan";
    const size_t n = 500 + rng() % 10000, so = rng() % 5, fo = rng() % 5;
    std::vector<cl_int> in(so + n);
    for (auto &x : in) x = static_cast<cl_int>(rng() % 200001) - 100000;
    std::vector<cl_uchar> flags(fo + n);
    for (auto &f : flags) f = rng() % 50 == 0;
    cl_mem src = make_buffer(d.cl_ctx, in), seg = make_buffer(d.cl_ctx, flags);
    cl_mem dst = make_buffer(d.cl_ctx, std::vector<cl_int>(n, 0));
    clscan_scan_desc desc = clscan_scan_desc();
    desc.type = CLSCAN_INT32;
    desc.combine = "max(a, b)";
    desc.identity = "INT_MIN";
    desc.segments = CLSCAN_SEGMENTS_FLAGS;
    cl_event done = nullptr;
    CALL(ctx.get(), clscan::scan(ctx, d.queue, desc, false, clscan::at(src, so),
                                 clscan::at(seg, fo), dst, n, clscan::wait_list(), &done));
    std::vector<cl_int> out = read<cl_int>(d.queue, dst, n, {done});
    cl_int acc = INT_MIN;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && flags[fo + i]) acc = INT_MIN;
        if (out[i] != acc && bad++ < 5)
            fail("n %zu: dst[%zu] = %d, host %d", n, i, out[i], acc);
        acc = std::max(acc, in[so + i]);
    }
    if (done) clReleaseEvent(done);
    clReleaseMemObject(src);
    clReleaseMemObject(seg);
    clReleaseMemObject(dst);
}

/* ---- select_if on floats with a std::string predicate ---- */
static void test_select(device_under_test &d, clscan::context &ctx, std::mt19937_64 &rng)
{
    where = d.name + ": select_if";
    const size_t n = 1 + rng() % 30000;
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<cl_float> in(n);
    for (auto &x : in) x = u(rng);
    cl_mem src = make_buffer(d.cl_ctx, in), dst = make_buffer(d.cl_ctx, std::vector<cl_float>(n));
    cl_mem count = make_buffer(d.cl_ctx, std::vector<cl_ulong>(1, ~(cl_ulong)0));
    const std::string predicate = "x > 0.25f";
    CALL(ctx.get(), clscan::select_if<cl_float>(ctx, d.queue, src, dst, count, n, predicate));
    std::vector<cl_float> want;
    for (float x : in)
        if (x > 0.25f) want.push_back(x);
    cl_ulong kept = read_count(d.queue, count);
    CHECK(kept == want.size(), "n %zu: kept %" PRIu64 ", host %zu", n, (uint64_t)kept,
          want.size());
    std::vector<cl_float> out = read<cl_float>(d.queue, dst, n);
    CHECK(std::equal(want.begin(), want.end(), out.begin()), "n %zu: kept elements differ", n);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseMemObject(count);
}

/* ---- a stable sort of (uint32 key, int32 value) pairs, keys with many repeats ---- */
static void test_sort(device_under_test &d, clscan::context &ctx, std::mt19937_64 &rng)
{
    where = d.name + ": sort_pairs";
    const size_t n = 1 + rng() % 20000;
    const uint32_t range = rng() % 2 ? 0xffffffffu : 1000u;
    std::vector<cl_uint> keys(n);
    std::vector<cl_int> values(n);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = static_cast<cl_uint>(rng() % (uint64_t(range) + 1));
        values[i] = static_cast<cl_int>(i);
    }
    cl_mem k = make_buffer(d.cl_ctx, keys), v = make_buffer(d.cl_ctx, values);
    cl_mem ko = make_buffer(d.cl_ctx, std::vector<cl_uint>(n)),
           vo = make_buffer(d.cl_ctx, std::vector<cl_int>(n));
    CALL(ctx.get(), clscan::sort_pairs<cl_uint, cl_int>(ctx, d.queue, k, v, ko, vo, n));
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    std::vector<cl_uint> got_k = read<cl_uint>(d.queue, ko, n);
    std::vector<cl_int> got_v = read<cl_int>(d.queue, vo, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        if ((got_k[i] != keys[order[i]] || got_v[i] != values[order[i]]) && bad++ < 5)
            fail("n %zu: out[%zu] = (%u, %d), host (%u, %d)", n, i, got_k[i], got_v[i],
                 keys[order[i]], values[order[i]]);
    clReleaseMemObject(k);
    clReleaseMemObject(v);
    clReleaseMemObject(ko);
    clReleaseMemObject(vo);
}

/* ---- a reduction: int64 sum into element 1 of the result buffer ---- */
static void test_reduce(device_under_test &d, clscan::context &ctx, std::mt19937_64 &rng)
{
    where = d.name + ": reduce";
    const size_t n = rng() % 50000;
    std::vector<cl_long> in(n);
    for (auto &x : in) x = static_cast<cl_long>(rng() % 2000000001) - 1000000000;
    cl_mem src = make_buffer(d.cl_ctx, n ? in : std::vector<cl_long>(1));
    std::vector<cl_long> init{-7, -7, -7};
    cl_mem result = make_buffer(d.cl_ctx, init);
    CALL(ctx.get(), clscan::reduce<cl_long>(ctx, d.queue, src, n, clscan::op::add,
                                            clscan::at(result, 1)));
    std::vector<cl_long> out = read<cl_long>(d.queue, result, 3);
    cl_long sum = 0;
    for (cl_long x : in) sum += x;
    CHECK(out[1] == sum && out[0] == -7 && out[2] == -7,
          "n %zu: result {%" PRId64 ", %" PRId64 ", %" PRId64 "}, host sum %" PRId64, n,
          (int64_t)out[0], (int64_t)out[1], (int64_t)out[2], (int64_t)sum);
    clReleaseMemObject(src);
    clReleaseMemObject(result);
}

/* ---- refused calls: the status and the library's message; *event untouched ---- */
static void test_errors(device_under_test &d, clscan::context &ctx)
{
    where = d.name + ": errors";
    const size_t n = 100;
    cl_mem src = make_buffer(d.cl_ctx, std::vector<cl_int>(n, 1));
    cl_mem dst = make_buffer(d.cl_ctx, std::vector<cl_int>(n, 0));
    cl_mem count = make_buffer(d.cl_ctx, std::vector<cl_ulong>(1));
    cl_event ev = nullptr;
    /* dst[3, 103) of a 100-element buffer: 412 bytes needed, 400 there. */
    expect_refused("dst past its end", ctx.get(), CLSCAN_ERROR_INVALID_ARGUMENT,
                   "dst: elements [3, 103) of 4 bytes each need 412 bytes", [&] {
                       return clscan::exclusive_scan<cl_int>(ctx, d.queue, src,
                                                             clscan::at(dst, 3), n,
                                                             clscan::op::add,
                                                             clscan::wait_list(), &ev);
                   });
    CHECK(ev == nullptr, "a refused call set its event");
    expect_refused("xor on float", ctx.get(), CLSCAN_ERROR_UNSUPPORTED,
                   "operator xor is not defined on float", [&] {
                       return clscan::inclusive_scan<float>(ctx, d.queue, src, dst, n,
                                                            clscan::op::bit_xor);
                   });
    expect_refused("NULL predicate", ctx.get(), CLSCAN_ERROR_INVALID_ARGUMENT,
                   "predicate is NULL", [&] {
                       return clscan::select_if<cl_int>(ctx, d.queue, src, dst, count, n,
                                                        static_cast<const char *>(nullptr));
                   });
    /* A failed context: the thread's message (last_error(nullptr)). */
    expect_refused("context of NULL", nullptr, CLSCAN_ERROR_INVALID_ARGUMENT,
                   "cl_context is NULL", [&] {
                       clscan::context bad;
                       return clscan::context::create(nullptr, d.dev, bad);
                   });
#if CLSCAN_HPP_EXCEPTIONS
    try {
        clscan::context bad(nullptr, d.dev);
        fail("the constructor did not throw on a NULL cl_context");
    } catch (const clscan::error &e) {
        CHECK(e.status() == CLSCAN_ERROR_INVALID_ARGUMENT, "constructor: %s", e.what());
    }
#else
    clscan::context bad(nullptr, d.dev);
    CHECK(!bad && bad.get() == nullptr, "a failed constructor left a context");
#endif
    /* A working call after the refused ones: they enqueued nothing that breaks it. */
    CALL(ctx.get(), clscan::exclusive_scan<cl_int>(ctx, d.queue, src, dst, n, clscan::op::add));
    std::vector<cl_int> out = read<cl_int>(d.queue, dst, n);
    for (size_t i = 0; i < n; ++i)
        if (out[i] != static_cast<cl_int>(i)) {
            fail("after the refusals: dst[%zu] = %d", i, out[i]);
            break;
        }
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseMemObject(count);
}

#if CLSCAN_TEST_KHRONOS
/* ---- the Khronos bindings: a context from cl::Context and cl::Device, cl::Buffer
 * arguments (at offsets), a cl::CommandQueue, a std::vector<cl::Event> wait list and a
 * cl::Event output; a reduction and select_if into cl::Buffers; a refused call ---- */
static void test_khronos(device_under_test &d, std::mt19937_64 &rng)
{
    where = d.name + ": Khronos bindings";
    cl::Context kctx(d.cl_ctx, true);
    cl::Device kdev(d.dev, true);
    cl_int err = CL_SUCCESS;
    cl::CommandQueue kq(kctx, kdev, 0, &err);
    CHECK(err == CL_SUCCESS, "cl::CommandQueue: %s", clscan::status_string(err));
    clscan::context kc(kctx, kdev);
    if (!kc) {
        fail("clscan::context(cl::Context, cl::Device): %s", clscan::last_error().c_str());
        return;
    }
    const size_t n = 1 + rng() % 20000;
    std::vector<cl_int> in(n);
    for (auto &x : in) x = static_cast<cl_int>(rng() % 1001) - 500;
    cl::Buffer src(kctx, CL_MEM_READ_WRITE, n * sizeof(cl_int));
    cl::Buffer dst(kctx, CL_MEM_READ_WRITE, (n + 2) * sizeof(cl_int));
    cl::Buffer result(kctx, CL_MEM_READ_WRITE, sizeof(cl_int));
    cl::Buffer kept(kctx, CL_MEM_READ_WRITE, n * sizeof(cl_int));
    cl::Buffer count(kctx, CL_MEM_READ_WRITE, sizeof(cl_ulong));
    cl::Event up, done;
    CL_OK(kq.enqueueWriteBuffer(src, CL_FALSE, 0, n * sizeof(cl_int), in.data(), nullptr, &up));
    std::vector<cl::Event> waits{up};
    CALL(kc.get(), clscan::inclusive_scan<cl_int>(kc, kq, src, clscan::at(dst, 2), n,
                                                  clscan::op::add, waits, &done));
    CHECK(done() != nullptr, "no cl::Event returned");
    CALL(kc.get(), clscan::reduce<cl_int>(kc, kq, src, n, clscan::op::min, result));
    CALL(kc.get(), clscan::select_if<cl_int>(kc, kq, src, kept, count, n, "(x & 1) == 0"));
    std::vector<cl_int> out(n + 2), sel(n);
    cl_int got_min = 0;
    cl_ulong got_count = 0;
    std::vector<cl::Event> after{done};
    CL_OK(kq.enqueueReadBuffer(dst, CL_TRUE, 0, (n + 2) * sizeof(cl_int), out.data(), &after));
    CL_OK(kq.enqueueReadBuffer(result, CL_TRUE, 0, sizeof got_min, &got_min));
    CL_OK(kq.enqueueReadBuffer(count, CL_TRUE, 0, sizeof got_count, &got_count));
    CL_OK(kq.enqueueReadBuffer(kept, CL_TRUE, 0, n * sizeof(cl_int), sel.data()));
    CHECK(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE,
          "the cl::Event did not complete");
    cl_int acc = 0, mn = INT_MAX;
    std::vector<cl_int> want;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        acc += in[i];
        mn = std::min(mn, in[i]);
        if ((in[i] & 1) == 0) want.push_back(in[i]);
        if (out[2 + i] != acc && bad++ < 5)
            fail("n %zu: inclusive dst[%zu] = %d, host %d", n, i, out[2 + i], acc);
    }
    CHECK(got_min == mn, "n %zu: min %d, host %d", n, got_min, mn);
    CHECK(got_count == want.size() && std::equal(want.begin(), want.end(), sel.begin()),
          "n %zu: select_if kept %" PRIu64 ", host %zu (or the elements differ)", n,
          (uint64_t)got_count, want.size());
    cl::Event untouched;
    expect_refused("cl::Buffer past its end", kc.get(), CLSCAN_ERROR_INVALID_ARGUMENT,
                   "dst: elements [3, ", [&] {
                       return clscan::exclusive_scan<cl_int>(kc, kq, src, clscan::at(dst, 3),
                                                             n, clscan::op::add,
                                                             clscan::wait_list(), &untouched);
                   });
    CHECK(untouched() == nullptr, "a refused call set its cl::Event");
}
#endif

/* ---- the RAII context: moves, release/reset, describe ---- */
static void test_context(device_under_test &d, clscan::context &ctx)
{
    where = d.name + ": context";
    clscan_context *raw = ctx.get();
    clscan::context moved(std::move(ctx));
    CHECK(!ctx && moved.get() == raw, "move construction");
    ctx = std::move(moved);
    CHECK(ctx.get() == raw && !moved, "move assignment");
    std::string text = ctx.describe();
    CHECK(!text.empty() && text == clscan::describe(ctx), "describe: \"%s\"", text.c_str());
    clscan_context_options o = clscan::make_options();
    o.algorithm = CLSCAN_ALGORITHM_MULTI_LEVEL;
    clscan::context other;
    CALL(nullptr, clscan::context::create(d.cl_ctx, d.dev, other, &o));
    CHECK(other && other.get() != raw, "create with options");
    clscan_context *given = other.release();
    CHECK(!other && given != nullptr, "release");
    other.reset(given); /* owned again, released by other's destructor */
    CHECK(other.get() == given, "reset");
}

/* Compile-time coverage, never called: every wrapper in its typed and untyped forms, so
 * that a wrapper that no longer matches its C call fails the build. (The calls the
 * tests above run are checked against the host.) */
void compile_every_wrapper(clscan::context &ctx, cl_command_queue q, cl_mem m);
void compile_every_wrapper(clscan::context &ctx, cl_command_queue q, cl_mem m)
{
    clscan_scan_desc desc = clscan_scan_desc();
    clscan_compact_desc cdesc = clscan_compact_desc();
    clscan_carry carry = clscan_carry();
    std::vector<cl_event> evs;
    cl_event ev;
    float lo = 0, hi = 1, host[4];
    std::string opts;
    size_t wg, tile;
    clscan::exclusive_scan(ctx, q, m, m, 1, CLSCAN_INT32, clscan::op::add, evs, &ev);
    clscan::inclusive_scan<double>(ctx, q, m, m, 1, clscan::op::mul, evs, nullptr);
    clscan::exclusive_scan_carry<cl_uint>(ctx, q, m, m, 1, clscan::op::bit_or, &carry);
    clscan::inclusive_scan_carry(ctx, q, m, m, 1, CLSCAN_UINT64, clscan::op::bit_and, nullptr);
    clscan::exclusive_scan_carry(ctx, q, m, m, 1, CLSCAN_INT64, clscan::op::min, &carry);
    clscan::inclusive_scan_carry<cl_long>(ctx, q, m, m, 1, clscan::op::max, &carry);
    clscan::scan(ctx, q, desc, true, {m, 1}, nullptr, m, 1, {1, &ev});
    clscan::scan_carry(ctx, q, desc, false, m, m, nullptr, 1, &carry, evs, &ev);
    clscan::scan_output(ctx, q, desc, true, m, nullptr, nullptr, 1, {m, clscan::at(m, 2)});
    std::vector<clscan_part> parts{clscan::make_part(ctx, q, m, nullptr, m, 1)};
    clscan::scan_parts(desc, true, parts, &carry, evs, &evs);
    clscan::scan_parts(desc, false, parts.data(), parts.size(), nullptr, evs, &ev);
    clscan::scan_host(ctx, q, q, desc, true, host, host, 4, 0, nullptr, evs, &ev);
    clscan::reduce(ctx, q, m, 1, CLSCAN_FLOAT, clscan::op::add, m);
    clscan::reduce<cl_ulong>(ctx, q, m, 1, clscan::op::bit_xor, m);
    clscan::reduce_desc(ctx, q, desc, m, 1, m, evs, &ev);
    clscan::reduce_by_key(ctx, q, desc, m, m, 1, nullptr, m, m);
    clscan::run_length_encode(ctx, q, m, 1, CLSCAN_INT32, m, m, CLSCAN_UINT32, m);
    clscan::run_length_encode<cl_float, cl_ulong>(ctx, q, m, 1, m, m, m);
    clscan::run_length_encode_nontrivial(ctx, q, m, 1, CLSCAN_INT32, m, m, CLSCAN_UINT64, m);
    clscan::run_length_encode_nontrivial<cl_int>(ctx, q, m, 1, m, m, m);
    clscan::histogram_even(ctx, q, m, 1, CLSCAN_FLOAT, 8, &lo, &hi, m, CLSCAN_UINT32);
    clscan::histogram_even<float, cl_ulong>(ctx, q, m, 1, 8, 0.0, 1.0, m);
    clscan::histogram_range(ctx, q, m, 1, CLSCAN_INT32, 8, m, m, CLSCAN_UINT64);
    clscan::histogram_range<cl_int>(ctx, q, m, 1, 8, m, m);
    clscan::select_flagged(ctx, q, m, m, m, m, 1, CLSCAN_INT32);
    clscan::select_flagged<cl_uint>(ctx, q, m, m, m, m, 1);
    clscan::select_if(ctx, q, m, m, m, 1, CLSCAN_INT32, "x > 0");
    clscan::partition_if(ctx, q, m, m, m, 1, CLSCAN_INT32, opts);
    clscan::partition_if<cl_long>(ctx, q, m, m, m, 1, "x > 0", evs, &ev);
    clscan::unique(ctx, q, m, m, m, 1, CLSCAN_INT32);
    clscan::unique<double>(ctx, q, m, m, m, 1);
    clscan::compact(ctx, q, cdesc, m, m, m, 1);
    clscan::sort_keys(ctx, q, m, m, 1, CLSCAN_FLOAT);
    clscan::sort_keys<cl_long>(ctx, q, m, m, 1, evs, &ev);
    clscan::sort_pairs(ctx, q, m, m, m, m, 1, CLSCAN_INT32, CLSCAN_DOUBLE);
    clscan::warm(ctx);
    ctx.warm();
    clscan::kernel_build_options(ctx, CLSCAN_INT32, clscan::op::add, opts, 0, &wg, &tile);
    clscan::kernel_build_options_wg(ctx, CLSCAN_INT32, clscan::op::add, 2, opts, &tile);
    (void)clscan::version();
    (void)clscan::type_size(CLSCAN_INT32);
    (void)clscan::type_name(CLSCAN_INT32);
    (void)clscan::op_name(clscan::op::add);
#if CLSCAN_TEST_KHRONOS
    cl::Buffer b;
    cl::CommandQueue kq;
    cl::Event kev;
    std::vector<cl::Event> kevs;
    clscan::select_if<float>(ctx, kq, b, clscan::at(b, 1), b, 1, "x > 0", kevs, &kev);
    clscan::reduce_by_key(ctx, kq, desc, b, b, 1, b, b, b, kevs, &kev);
#endif
}

/* clscan_kernel_build_options through the wrapper: the text, the sizes, the length. */
static void test_build_options(device_under_test &d, clscan::context &ctx)
{
    where = d.name + ": kernel_build_options";
    std::string opts = "unchanged";
    size_t wg = 0, tile = 0;
    CALL(ctx.get(), clscan::kernel_build_options<cl_int>(ctx, clscan::op::add, opts, 0, &wg,
                                                         &tile));
    CHECK(contains(opts, "-D CLSCAN_WG_SIZE=" + std::to_string(wg)) ||
              contains(opts, "-DCLSCAN_WG_SIZE=" + std::to_string(wg)),
          "options \"%s\" lack the work-group size %zu", opts.c_str(), wg);
    CHECK(wg > 0 && tile >= wg && opts.size() == std::strlen(opts.c_str()),
          "work-group size %zu, tile %zu", wg, tile);
    /* A work-group size of the caller's: 2 fits every device; 3 is refused. */
    where = d.name + ": kernel_build_options_wg";
    tile = 0;
    CALL(ctx.get(), clscan::kernel_build_options_wg<cl_int>(ctx, clscan::op::add, 2, opts,
                                                            &tile));
    CHECK(contains(opts, "-D CLSCAN_WG_SIZE=2 ") || contains(opts, "-DCLSCAN_WG_SIZE=2 "),
          "options \"%s\" lack the work-group size 2", opts.c_str());
    CHECK(tile >= 2, "tile %zu for a work-group of 2", tile);
    const std::string before = opts;
    const clscan_status refused = clscan_kernel_build_options_wg(
        ctx.get(), CLSCAN_INT32, CLSCAN_OP_ADD, 3, nullptr, 0, nullptr, nullptr);
    CHECK(refused == CLSCAN_ERROR_INVALID_ARGUMENT && opts == before,
          "work-group size 3: status %d", static_cast<int>(refused));
}

static bool name_matches(const std::string &name, const char *part)
{
    std::string a = name, b = part;
    for (auto &c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (auto &c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return contains(a, b);
}

static void run_device(device_under_test &d, uint64_t seed)
{
    std::mt19937_64 rng(seed);
#if CLSCAN_HPP_EXCEPTIONS
    try {
#endif
        where = d.name + ": context";
        clscan::context ctx(d.cl_ctx, d.dev);
        if (!ctx) {
            fail("clscan::context: %s", clscan::last_error().c_str());
            return;
        }
        test_context(d, ctx);
        test_scans(d, ctx, rng);
        test_general(d, ctx, rng);
        test_select(d, ctx, rng);
        test_sort(d, ctx, rng);
        test_reduce(d, ctx, rng);
        test_errors(d, ctx);
        test_build_options(d, ctx);
#if CLSCAN_TEST_KHRONOS
        test_khronos(d, rng);
#endif
#if CLSCAN_HPP_EXCEPTIONS
    } catch (const clscan::error &e) {
        fail("unexpected clscan::error: %s", e.what());
    }
#endif
}

int main()
{
    const char *s = std::getenv("CLSCAN_TEST_SEED");
    const uint64_t seed = s && *s ? std::strtoull(s, nullptr, 0) : 20261128u;
    std::fprintf(stderr, "seed %" PRIu64 " (set CLSCAN_TEST_SEED to change it); %s, %s\n",
                 seed, CLSCAN_HPP_EXCEPTIONS ? "exceptions" : "statuses",
                 CLSCAN_HPP_KHRONOS ? "with the Khronos bindings" : "no Khronos bindings");
    const char *want = std::getenv("CLSCAN_TEST_PLATFORM");
    cl_uint np = 0;
    cl_platform_id platforms[16];
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS) np = 0;
    int devices = 0;
    for (cl_uint p = 0; p < std::min<cl_uint>(np, 16); ++p) {
        char pname[256] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname, pname, nullptr);
        if (want && *want && !name_matches(pname, want)) continue;
        device_under_test d;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &d.dev, nullptr) != CL_SUCCESS)
            continue;
        char dname[256] = "";
        clGetDeviceInfo(d.dev, CL_DEVICE_NAME, sizeof dname, dname, nullptr);
        d.name = std::string(pname) + " / " + dname;
        cl_int err;
        d.cl_ctx = clCreateContext(nullptr, 1, &d.dev, nullptr, nullptr, &err);
        if (!d.cl_ctx) continue;
        d.queue = clCreateCommandQueue(d.cl_ctx, d.dev, 0, &err);
        if (d.queue) {
            ++devices;
            const int before = failures;
            run_device(d, seed);
            std::fprintf(stderr, "%s: %s\n", d.name.c_str(),
                         failures == before ? "passed" : "FAILED");
            clReleaseCommandQueue(d.queue);
        }
        clReleaseContext(d.cl_ctx);
    }
    if (devices == 0) {
        std::fprintf(stderr, "no OpenCL device to test\n");
        return 1;
    }
    std::fprintf(stderr, "%d failure(s) on %d device(s)\n", failures, devices);
    return failures ? 1 : 0;
}
