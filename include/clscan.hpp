/* clscan.hpp - header-only C++ wrapper of libclscan's C API (clscan.h): an RAII context,
 * element types from C++ types, defaulted offsets and events, errors as exceptions or
 * statuses, and overloads for the Khronos C++ bindings (CL/opencl.hpp). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_HPP
#define CLSCAN_HPP

/* ------------------------------------------------------------------------------
 * C++11 or later. Link libclscan as for C (pkg-config clscan); nothing here is compiled
 * into the library. Every call below is the C function of the same name with the
 * clscan_ prefix (clscan::exclusive_scan is clscan_exclusive_scan, ...; context::create,
 * describe, warm and last_error are clscan_context_create_with_options and
 * clscan_context_describe, _warm, _last_error; make_options and make_part only fill C
 * structs): clscan.h is the manual for what each computes, accepts and refuses, and
 * for who owns what. Only the passing of arguments differs:
 *
 *   context      a clscan::context (RAII, move-only) or a raw clscan_context *.
 *   queue        a cl_command_queue, or a cl::CommandQueue.
 *   buffers      a clscan::buffer_at: a cl_mem or cl::Buffer means its element 0;
 *                clscan::at(buffer, offset), or {buffer, offset}, element `offset`;
 *                nullptr where the C call takes NULL. (Offsets count elements.)
 *   count        the count outputs (compaction, reduce by key, RLE): a clscan::mem_ref,
 *                a cl_mem or cl::Buffer (the count is at byte 0).
 *   types        a template argument, mapped by clscan::type_of<T>
 *                (exclusive_scan<float>(...)), or, in the untyped overloads, a
 *                clscan_type argument where the C call has it.
 *   operators    clscan::op::add, mul, min, max, bit_and, bit_or, bit_xor (the
 *                clscan_op values; `and`, `or`, `xor` are C++ keywords).
 *   wait lists   a clscan::wait_list, last but one: omitted for none, a
 *                std::vector<cl_event>, a std::vector<cl::Event>, or {count, pointer}.
 *   event        a clscan::event_out, last: omitted or nullptr for none, a cl_event *
 *                (the caller releases the event), or a cl::Event * (which then owns it).
 *                Set only when the call succeeds.
 *   texts        predicates: a const char * or a std::string.
 *
 * Errors. Every wrapper returning clscan_status returns the C call's status. With
 * exceptions (the default), a status other than CLSCAN_SUCCESS is thrown instead as a
 * clscan::error (a std::runtime_error) holding the status, the library's message
 * (clscan_context_last_error of the call's context, read right after the failure; of
 * NULL for context creation and scan_parts) and the C function's name, so a returned
 * status is always CLSCAN_SUCCESS. Define CLSCAN_HPP_NO_EXCEPTIONS before including
 * this header, or compile without exceptions (-fno-exceptions), and nothing throws: the
 * status is returned as the C call returned it and clscan::last_error(ctx) reads the
 * message. CLSCAN_HPP_EXCEPTIONS is then 0 (else 1). Functions returning a value
 * (describe, last_error, ...) never fail. Exceptions on or off and the Khronos forms
 * (below) present or not select one of four inline namespaces, so translation units
 * that differ in them do not break the one-definition rule.
 *
 * Khronos bindings: include <CL/opencl.hpp> (or <CL/cl2.hpp>) BEFORE this header to get
 * the cl::Buffer, cl::CommandQueue, cl::Event and cl::Context/cl::Device forms
 * (CLSCAN_HPP_KHRONOS is then 1). Included after, they are not seen.
 *
 *     clscan::context ctx(cl_ctx, device);               // throws clscan::error
 *     cl_event done;
 *     clscan::exclusive_scan<cl_int>(ctx, queue, src, clscan::at(dst, 16), n,
 *                                    clscan::op::add, clscan::wait_list(), &done);
 * ------------------------------------------------------------------------------ */

#include "clscan.h"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if defined(CLSCAN_HPP_NO_EXCEPTIONS) || \
    !(defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND))
#define CLSCAN_HPP_EXCEPTIONS 0
#else
#define CLSCAN_HPP_EXCEPTIONS 1
#endif
#ifdef CL_HPP_ /* the include guard of CL/opencl.hpp (and so of CL/cl2.hpp) */
#define CLSCAN_HPP_KHRONOS 1
#else
#define CLSCAN_HPP_KHRONOS 0
#endif

#if CLSCAN_HPP_EXCEPTIONS && CLSCAN_HPP_KHRONOS
#define CLSCAN_HPP_NS v0_throw_khronos
#elif CLSCAN_HPP_EXCEPTIONS
#define CLSCAN_HPP_NS v0_throw
#elif CLSCAN_HPP_KHRONOS
#define CLSCAN_HPP_NS v0_status_khronos
#else
#define CLSCAN_HPP_NS v0_status
#endif

namespace clscan {
inline namespace CLSCAN_HPP_NS {

/* ---- Names and messages (clscan_version, clscan_status_string, ...) ---- */
inline unsigned version() { return clscan_version(); }
inline const char *status_string(clscan_status s) { return clscan_status_string(s); }
inline size_t type_size(clscan_type t) { return clscan_type_size(t); }
inline const char *type_name(clscan_type t) { return clscan_type_name(t); }
inline const char *op_name(clscan_op o) { return clscan_op_name(o); }
/* clscan_context_last_error as a string ("" when there is none). */
inline std::string last_error(const clscan_context *ctx = nullptr)
{
    const char *m = clscan_context_last_error(ctx);
    return m ? std::string(m) : std::string();
}

/* ---- Operators ---- */
namespace op {
constexpr clscan_op add = CLSCAN_OP_ADD;
constexpr clscan_op mul = CLSCAN_OP_MUL;
constexpr clscan_op min = CLSCAN_OP_MIN;
constexpr clscan_op max = CLSCAN_OP_MAX;
constexpr clscan_op bit_and = CLSCAN_OP_AND;
constexpr clscan_op bit_or = CLSCAN_OP_OR;
constexpr clscan_op bit_xor = CLSCAN_OP_XOR;
} // namespace op

/* ---- Element types: type_of<T>::value is T's clscan_type ----
 * int, unsigned, long, unsigned long, long long and unsigned long long map by size and
 * signedness (so int32_t, uint32_t, int64_t, uint64_t, cl_int ... cl_ulong, size_t all
 * do), float and double to CLSCAN_FLOAT and CLSCAN_DOUBLE; const T as T. Any other T
 * has no `value`, and a typed call with it does not compile. These are also the key and
 * value types of the sorts. */
namespace detail {
template <std::size_t Size, bool Signed> struct int_type {};
template <> struct int_type<4, true> : std::integral_constant<clscan_type, CLSCAN_INT32> {};
template <> struct int_type<4, false> : std::integral_constant<clscan_type, CLSCAN_UINT32> {};
template <> struct int_type<8, true> : std::integral_constant<clscan_type, CLSCAN_INT64> {};
template <> struct int_type<8, false> : std::integral_constant<clscan_type, CLSCAN_UINT64> {};
template <class T> struct identity { typedef T type; };
} // namespace detail
template <class T> struct type_of {};
template <class T> struct type_of<const T> : type_of<T> {};
template <> struct type_of<int> : detail::int_type<sizeof(int), true> {};
template <> struct type_of<unsigned> : detail::int_type<sizeof(unsigned), false> {};
template <> struct type_of<long> : detail::int_type<sizeof(long), true> {};
template <> struct type_of<unsigned long> : detail::int_type<sizeof(unsigned long), false> {};
template <> struct type_of<long long> : detail::int_type<sizeof(long long), true> {};
template <>
struct type_of<unsigned long long> : detail::int_type<sizeof(unsigned long long), false> {};
template <> struct type_of<float> : std::integral_constant<clscan_type, CLSCAN_FLOAT> {};
template <> struct type_of<double> : std::integral_constant<clscan_type, CLSCAN_DOUBLE> {};

/* ---- Errors ---- */
/* What a failed call throws: status() the clscan_status, message() the library's
 * message (may be empty), function() the C function's name; what() joins the three. */
class error : public std::runtime_error {
public:
    error(clscan_status status, const std::string &message, const char *function)
        : std::runtime_error(std::string(function) + ": " + clscan_status_string(status) +
                             (message.empty() ? std::string() : ": " + message)),
          status_(status), message_(message), function_(function)
    {
    }
    clscan_status status() const noexcept { return status_; }
    const std::string &message() const noexcept { return message_; }
    const char *function() const noexcept { return function_; }

private:
    clscan_status status_;
    std::string message_;
    const char *function_;
};

namespace detail {
/* Throws a failure (with exceptions) or hands it back (without). */
inline clscan_status check(clscan_status s, const clscan_context *ctx, const char *function)
{
#if CLSCAN_HPP_EXCEPTIONS
    if (s != CLSCAN_SUCCESS)
        throw error(s, last_error(ctx), function);
#else
    (void)ctx;
    (void)function;
#endif
    return s;
}
} // namespace detail

/* ---- Context ---- */
/* A zeroed clscan_context_options with struct_size set (clscan.h, "Context options"). */
inline clscan_context_options make_options()
{
    clscan_context_options o = clscan_context_options();
    o.struct_size = sizeof o;
    return o;
}

/* Owns one clscan_context (clscan_context_create_with_options ... clscan_context_release).
 * Move-only; an empty one (default, moved from, failed) holds nullptr. */
class context {
public:
    context() noexcept : ctx_(nullptr) {}
    /* Creates it (options nullptr: clscan_context_create). Without exceptions a failure
     * leaves it empty: test it with `if (!ctx)`, or call create() for the status. */
    context(cl_context cl_ctx, cl_device_id device,
            const clscan_context_options *options = nullptr)
        : ctx_(nullptr)
    {
        create(cl_ctx, device, *this, options);
    }
#if CLSCAN_HPP_KHRONOS
    context(const cl::Context &cl_ctx, const cl::Device &device,
            const clscan_context_options *options = nullptr)
        : ctx_(nullptr)
    {
        create(cl_ctx(), device(), *this, options);
    }
#endif
    /* Takes ownership of a context made by the C API. */
    explicit context(clscan_context *adopt) noexcept : ctx_(adopt) {}
    context(context &&o) noexcept : ctx_(o.ctx_) { o.ctx_ = nullptr; }
    context &operator=(context &&o) noexcept
    {
        if (this != &o) {
            reset(o.ctx_);
            o.ctx_ = nullptr;
        }
        return *this;
    }
    context(const context &) = delete;
    context &operator=(const context &) = delete;
    ~context() { clscan_context_release(ctx_); }

    /* Creates a context into out (released first; left empty on failure). */
    static clscan_status create(cl_context cl_ctx, cl_device_id device, context &out,
                                const clscan_context_options *options = nullptr)
    {
        clscan_context *p = nullptr;
        out.reset();
        clscan_status s = clscan_context_create_with_options(cl_ctx, device, options, &p);
        if (s == CLSCAN_SUCCESS)
            out.ctx_ = p;
        return detail::check(s, nullptr, "clscan_context_create_with_options");
    }

    clscan_context *get() const noexcept { return ctx_; }
    explicit operator bool() const noexcept { return ctx_ != nullptr; }
    /* Gives up ownership (the caller releases it); reset releases it (and takes p). */
    clscan_context *release() noexcept
    {
        clscan_context *p = ctx_;
        ctx_ = nullptr;
        return p;
    }
    void reset(clscan_context *p = nullptr) noexcept
    {
        if (p != ctx_)
            clscan_context_release(ctx_);
        ctx_ = p;
    }
    /* clscan_context_last_error(get()), clscan_context_describe, clscan_context_warm. */
    std::string last_error() const { return clscan::last_error(ctx_); }
    std::string describe() const
    {
        size_t len = clscan_context_describe(ctx_, nullptr, 0);
        std::vector<char> buf(len + 1);
        clscan_context_describe(ctx_, buf.data(), buf.size());
        return std::string(buf.data(), len);
    }
    clscan_status warm() const
    {
        return detail::check(clscan_context_warm(ctx_), ctx_, "clscan_context_warm");
    }

private:
    clscan_context *ctx_;
};

/* ---- Argument forms (see the top of this file) ---- */
class context_ref {
public:
    context_ref(clscan_context *ctx) noexcept : ctx_(ctx) {}
    context_ref(const context &ctx) noexcept : ctx_(ctx.get()) {}
    clscan_context *get() const noexcept { return ctx_; }

private:
    clscan_context *ctx_;
};

class queue_ref {
public:
    queue_ref(cl_command_queue queue) noexcept : queue_(queue) {}
#if CLSCAN_HPP_KHRONOS
    queue_ref(const cl::CommandQueue &queue) noexcept : queue_(queue()) {}
#endif
    cl_command_queue get() const noexcept { return queue_; }

private:
    cl_command_queue queue_;
};

struct buffer_at {
    cl_mem mem;
    size_t offset; /* elements */
    buffer_at(cl_mem m = nullptr, size_t element_offset = 0) noexcept
        : mem(m), offset(element_offset)
    {
    }
#if CLSCAN_HPP_KHRONOS
    buffer_at(const cl::Buffer &b, size_t element_offset = 0) noexcept
        : mem(b()), offset(element_offset)
    {
    }
#endif
};
inline buffer_at at(cl_mem m, size_t element_offset) { return buffer_at(m, element_offset); }
#if CLSCAN_HPP_KHRONOS
inline buffer_at at(const cl::Buffer &b, size_t element_offset)
{
    return buffer_at(b, element_offset);
}
#endif

/* A whole buffer (the count of the compactions, reduce by key and RLE). */
class mem_ref {
public:
    mem_ref(cl_mem m) noexcept : mem_(m) {}
#if CLSCAN_HPP_KHRONOS
    mem_ref(const cl::Buffer &b) noexcept : mem_(b()) {}
#endif
    cl_mem get() const noexcept { return mem_; }

private:
    cl_mem mem_;
};

/* Refers to the caller's events, which must outlive the call. */
class wait_list {
public:
    wait_list() noexcept : n_(0), events_(nullptr) {}
    wait_list(cl_uint count, const cl_event *events) noexcept : n_(count), events_(events) {}
    wait_list(const std::vector<cl_event> &events) noexcept
        : n_(static_cast<cl_uint>(events.size())),
          events_(events.empty() ? nullptr : events.data())
    {
    }
#if CLSCAN_HPP_KHRONOS
    /* (cl::Event holds exactly one cl_event, as the bindings' own enqueue calls assume.) */
    wait_list(const std::vector<cl::Event> &events) noexcept
        : n_(static_cast<cl_uint>(events.size())),
          events_(events.empty() ? nullptr
                                 : reinterpret_cast<const cl_event *>(events.data()))
    {
        static_assert(sizeof(cl::Event) == sizeof(cl_event), "cl::Event is not one cl_event");
    }
#endif
    cl_uint size() const noexcept { return n_; }
    const cl_event *data() const noexcept { return events_; }

private:
    cl_uint n_;
    const cl_event *events_;
};

class event_out {
public:
    event_out() noexcept : raw_(nullptr), got_(nullptr) {}
    event_out(std::nullptr_t) noexcept : raw_(nullptr), got_(nullptr) {}
    event_out(cl_event *event) noexcept : raw_(event), got_(nullptr) {}
#if CLSCAN_HPP_KHRONOS
    event_out(cl::Event *event) noexcept : raw_(nullptr), khronos_(event), got_(nullptr) {}
#endif
    /* (For the wrappers:) the pointer to pass the C call, and after it, its status,
     * which hands a new event to the caller's target. */
    cl_event *slot() noexcept
    {
        bool wanted = raw_ != nullptr;
#if CLSCAN_HPP_KHRONOS
        wanted = wanted || khronos_ != nullptr;
#endif
        got_ = nullptr;
        return wanted ? &got_ : nullptr;
    }
    clscan_status finish(clscan_status s)
    {
        if (s == CLSCAN_SUCCESS && got_ != nullptr) {
            if (raw_ != nullptr)
                *raw_ = got_;
#if CLSCAN_HPP_KHRONOS
            else if (khronos_ != nullptr)
                *khronos_ = cl::Event(got_); /* takes the reference */
#endif
        }
        return s;
    }

private:
    cl_event *raw_;
#if CLSCAN_HPP_KHRONOS
    cl::Event *khronos_ = nullptr;
#endif
    cl_event got_;
};

class text {
public:
    text(const char *s) noexcept : s_(s) {}
    text(const std::string &s) noexcept : s_(s.c_str()) {}
    const char *c_str() const noexcept { return s_; }

private:
    const char *s_;
};

/* The C call `fn` with the wrapper's wait list and event appended, checked. */
#define CLSCAN_HPP_CALL(ctx, fn, ...)                                                      \
    return ::clscan::detail::check(                                                        \
        event.finish(fn(__VA_ARGS__, wait.size(), wait.data(), event.slot())), (ctx), #fn)
#define CLSCAN_HPP_EVENTS const wait_list &wait = wait_list(), event_out event = event_out()

/* ---- Scans (clscan_exclusive_scan, clscan_inclusive_scan) ---- */
inline clscan_status exclusive_scan(context_ref ctx, queue_ref queue, buffer_at src,
                                    buffer_at dst, size_t n, clscan_type type, clscan_op op,
                                    CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_exclusive_scan, ctx.get(), queue.get(), src.mem,
                    src.offset, dst.mem, dst.offset, n, type, op);
}
inline clscan_status inclusive_scan(context_ref ctx, queue_ref queue, buffer_at src,
                                    buffer_at dst, size_t n, clscan_type type, clscan_op op,
                                    CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_inclusive_scan, ctx.get(), queue.get(), src.mem,
                    src.offset, dst.mem, dst.offset, n, type, op);
}
template <class T>
clscan_status exclusive_scan(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                             size_t n, clscan_op op, CLSCAN_HPP_EVENTS)
{
    return exclusive_scan(ctx, queue, src, dst, n, type_of<T>::value, op, wait, event);
}
template <class T>
clscan_status inclusive_scan(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                             size_t n, clscan_op op, CLSCAN_HPP_EVENTS)
{
    return inclusive_scan(ctx, queue, src, dst, n, type_of<T>::value, op, wait, event);
}

/* ---- Scans with a carry-in/carry-out (clscan_*_scan_carry); carry nullptr: none ---- */
inline clscan_status exclusive_scan_carry(context_ref ctx, queue_ref queue, buffer_at src,
                                          buffer_at dst, size_t n, clscan_type type,
                                          clscan_op op, const clscan_carry *carry,
                                          CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_exclusive_scan_carry, ctx.get(), queue.get(), src.mem,
                    src.offset, dst.mem, dst.offset, n, type, op, carry);
}
inline clscan_status inclusive_scan_carry(context_ref ctx, queue_ref queue, buffer_at src,
                                          buffer_at dst, size_t n, clscan_type type,
                                          clscan_op op, const clscan_carry *carry,
                                          CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_inclusive_scan_carry, ctx.get(), queue.get(), src.mem,
                    src.offset, dst.mem, dst.offset, n, type, op, carry);
}
template <class T>
clscan_status exclusive_scan_carry(context_ref ctx, queue_ref queue, buffer_at src,
                                   buffer_at dst, size_t n, clscan_op op,
                                   const clscan_carry *carry, CLSCAN_HPP_EVENTS)
{
    return exclusive_scan_carry(ctx, queue, src, dst, n, type_of<T>::value, op, carry, wait,
                                event);
}
template <class T>
clscan_status inclusive_scan_carry(context_ref ctx, queue_ref queue, buffer_at src,
                                   buffer_at dst, size_t n, clscan_op op,
                                   const clscan_carry *carry, CLSCAN_HPP_EVENTS)
{
    return inclusive_scan_carry(ctx, queue, src, dst, n, type_of<T>::value, op, carry, wait,
                                event);
}

/* ---- General scans (clscan_scan, clscan_scan_carry, clscan_scan_output) ----
 * segments: nullptr without segments. dst may be nullptr where the C call allows. */
inline clscan_status scan(context_ref ctx, queue_ref queue, const clscan_scan_desc &desc,
                          bool inclusive, buffer_at src, buffer_at segments, buffer_at dst,
                          size_t n, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_scan, ctx.get(), queue.get(), &desc, inclusive ? 1 : 0,
                    src.mem, src.offset, segments.mem, segments.offset, dst.mem, dst.offset,
                    n);
}
inline clscan_status scan_carry(context_ref ctx, queue_ref queue, const clscan_scan_desc &desc,
                                bool inclusive, buffer_at src, buffer_at segments,
                                buffer_at dst, size_t n, const clscan_carry *carry,
                                CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_scan_carry, ctx.get(), queue.get(), &desc,
                    inclusive ? 1 : 0, src.mem, src.offset, segments.mem, segments.offset,
                    dst.mem, dst.offset, n, carry);
}
/* outputs[k] is out k, at its offset (up to four; clscan.h, "The output stage"). */
inline clscan_status scan_output(context_ref ctx, queue_ref queue,
                                 const clscan_scan_desc &desc, bool inclusive, buffer_at src,
                                 buffer_at segments, buffer_at dst, size_t n,
                                 const std::vector<buffer_at> &outputs,
                                 const clscan_carry *carry = nullptr, CLSCAN_HPP_EVENTS)
{
    std::vector<cl_mem> mems(outputs.size());
    std::vector<size_t> offsets(outputs.size());
    for (size_t k = 0; k < outputs.size(); ++k) {
        mems[k] = outputs[k].mem;
        offsets[k] = outputs[k].offset;
    }
    CLSCAN_HPP_CALL(ctx.get(), clscan_scan_output, ctx.get(), queue.get(), &desc,
                    inclusive ? 1 : 0, src.mem, src.offset, segments.mem, segments.offset,
                    dst.mem, dst.offset, n, mems.empty() ? nullptr : mems.data(),
                    offsets.empty() ? nullptr : offsets.data(),
                    static_cast<cl_uint>(outputs.size()), carry);
}

/* ---- One range over several devices (clscan_scan_parts) ----
 * Failures' messages: last_error(nullptr), the thread's. events: nullptr, or nparts
 * events (the vector form resizes it to parts.size()), set on success only. */
inline clscan_part make_part(context_ref ctx, queue_ref queue, buffer_at src,
                             buffer_at segments, buffer_at dst, size_t n)
{
    clscan_part p = clscan_part();
    p.ctx = ctx.get();
    p.queue = queue.get();
    p.src = src.mem;
    p.src_offset = src.offset;
    p.segments = segments.mem;
    p.segments_offset = segments.offset;
    p.dst = dst.mem;
    p.dst_offset = dst.offset;
    p.n = n;
    return p;
}
inline clscan_status scan_parts(const clscan_scan_desc &desc, bool inclusive,
                                const clscan_part *parts, size_t nparts,
                                const clscan_carry *carry = nullptr,
                                const wait_list &wait = wait_list(), cl_event *events = nullptr)
{
    return detail::check(clscan_scan_parts(&desc, inclusive ? 1 : 0, parts, nparts, carry,
                                           wait.size(), wait.data(), events),
                         nullptr, "clscan_scan_parts");
}
inline clscan_status scan_parts(const clscan_scan_desc &desc, bool inclusive,
                                const std::vector<clscan_part> &parts,
                                const clscan_carry *carry = nullptr,
                                const wait_list &wait = wait_list(),
                                std::vector<cl_event> *events = nullptr)
{
    std::vector<cl_event> got(events ? parts.size() : 0);
    clscan_status s = clscan_scan_parts(&desc, inclusive ? 1 : 0,
                                        parts.empty() ? nullptr : parts.data(), parts.size(),
                                        carry, wait.size(), wait.data(),
                                        got.empty() ? nullptr : got.data());
    if (s == CLSCAN_SUCCESS && events)
        events->swap(got);
    return detail::check(s, nullptr, "clscan_scan_parts");
}

/* ---- Host ranges through the device in chunks (clscan_scan_host) ----
 * queue0, queue1: the C call's queues[0] and queues[1]; chunk 0: the library chooses. */
inline clscan_status scan_host(context_ref ctx, queue_ref queue0, queue_ref queue1,
                               const clscan_scan_desc &desc, bool inclusive, const void *src,
                               void *dst, size_t n, size_t chunk = 0,
                               const clscan_carry *carry = nullptr, CLSCAN_HPP_EVENTS)
{
    const cl_command_queue queues[2] = {queue0.get(), queue1.get()};
    CLSCAN_HPP_CALL(ctx.get(), clscan_scan_host, ctx.get(), queues, &desc, inclusive ? 1 : 0,
                    src, dst, n, chunk, carry);
}

/* ---- Reductions (clscan_reduce, clscan_reduce_desc): one element into result ---- */
inline clscan_status reduce(context_ref ctx, queue_ref queue, buffer_at src, size_t n,
                            clscan_type type, clscan_op op, buffer_at result,
                            CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_reduce, ctx.get(), queue.get(), src.mem, src.offset, n,
                    type, op, result.mem, result.offset);
}
template <class T>
clscan_status reduce(context_ref ctx, queue_ref queue, buffer_at src, size_t n, clscan_op op,
                     buffer_at result, CLSCAN_HPP_EVENTS)
{
    return reduce(ctx, queue, src, n, type_of<T>::value, op, result, wait, event);
}
inline clscan_status reduce_desc(context_ref ctx, queue_ref queue, const clscan_scan_desc &desc,
                                 buffer_at src, size_t n, buffer_at result, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_reduce_desc, ctx.get(), queue.get(), &desc, src.mem,
                    src.offset, n, result.mem, result.offset);
}

/* ---- Reduce by key, run-length encoding ----
 * unique_keys: nullptr to leave them out (and with flags). count: one cl_ulong. The
 * typed forms take the element type T and the lengths' type L (cl_uint or cl_ulong). */
inline clscan_status reduce_by_key(context_ref ctx, queue_ref queue,
                                   const clscan_scan_desc &desc, buffer_at keys,
                                   buffer_at values, size_t n, buffer_at unique_keys,
                                   buffer_at reduced, mem_ref count, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_reduce_by_key, ctx.get(), queue.get(), &desc, keys.mem,
                    keys.offset, values.mem, values.offset, n, unique_keys.mem,
                    unique_keys.offset, reduced.mem, reduced.offset, count.get());
}
inline clscan_status run_length_encode(context_ref ctx, queue_ref queue, buffer_at src,
                                       size_t n, clscan_type type, buffer_at unique,
                                       buffer_at lengths, clscan_type length_type,
                                       mem_ref count, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_run_length_encode, ctx.get(), queue.get(), src.mem,
                    src.offset, n, type, unique.mem, unique.offset, lengths.mem,
                    lengths.offset, length_type, count.get());
}
template <class T, class L = cl_uint>
clscan_status run_length_encode(context_ref ctx, queue_ref queue, buffer_at src, size_t n,
                                buffer_at unique, buffer_at lengths, mem_ref count,
                                CLSCAN_HPP_EVENTS)
{
    return run_length_encode(ctx, queue, src, n, type_of<T>::value, unique, lengths,
                             type_of<L>::value, count, wait, event);
}
inline clscan_status run_length_encode_nontrivial(context_ref ctx, queue_ref queue,
                                                  buffer_at src, size_t n, clscan_type type,
                                                  buffer_at offsets, buffer_at lengths,
                                                  clscan_type length_type, mem_ref count,
                                                  CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_run_length_encode_nontrivial, ctx.get(), queue.get(),
                    src.mem, src.offset, n, type, offsets.mem, offsets.offset, lengths.mem,
                    lengths.offset, length_type, count.get());
}
template <class T, class L = cl_uint>
clscan_status run_length_encode_nontrivial(context_ref ctx, queue_ref queue, buffer_at src,
                                           size_t n, buffer_at offsets, buffer_at lengths,
                                           mem_ref count, CLSCAN_HPP_EVENTS)
{
    return run_length_encode_nontrivial(ctx, queue, src, n, type_of<T>::value, offsets,
                                        lengths, type_of<L>::value, count, wait, event);
}

/* ---- Histograms (clscan_histogram_even, clscan_histogram_range) ----
 * Typed forms: samples of T, counts of C (cl_uint or cl_ulong); lower and upper by
 * value (the untyped form points to them). */
inline clscan_status histogram_even(context_ref ctx, queue_ref queue, buffer_at samples,
                                    size_t n, clscan_type sample_type, size_t num_bins,
                                    const void *lower, const void *upper, buffer_at counts,
                                    clscan_type count_type, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_histogram_even, ctx.get(), queue.get(), samples.mem,
                    samples.offset, n, sample_type, num_bins, lower, upper, counts.mem,
                    counts.offset, count_type);
}
template <class T, class C = cl_uint>
clscan_status histogram_even(context_ref ctx, queue_ref queue, buffer_at samples, size_t n,
                             size_t num_bins, typename detail::identity<T>::type lower,
                             typename detail::identity<T>::type upper, buffer_at counts,
                             CLSCAN_HPP_EVENTS)
{
    return histogram_even(ctx, queue, samples, n, type_of<T>::value, num_bins, &lower, &upper,
                          counts, type_of<C>::value, wait, event);
}
inline clscan_status histogram_range(context_ref ctx, queue_ref queue, buffer_at samples,
                                     size_t n, clscan_type sample_type, size_t num_bins,
                                     buffer_at levels, buffer_at counts,
                                     clscan_type count_type, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_histogram_range, ctx.get(), queue.get(), samples.mem,
                    samples.offset, n, sample_type, num_bins, levels.mem, levels.offset,
                    counts.mem, counts.offset, count_type);
}
template <class T, class C = cl_uint>
clscan_status histogram_range(context_ref ctx, queue_ref queue, buffer_at samples, size_t n,
                              size_t num_bins, buffer_at levels, buffer_at counts,
                              CLSCAN_HPP_EVENTS)
{
    return histogram_range(ctx, queue, samples, n, type_of<T>::value, num_bins, levels, counts,
                           type_of<C>::value, wait, event);
}

/* ---- Stream compaction (clscan_select_flagged, _select_if, _partition_if, _unique) ----
 * count: a buffer receiving the kept count as one cl_ulong at byte 0. */
inline clscan_status select_flagged(context_ref ctx, queue_ref queue, buffer_at src,
                                    buffer_at flags, buffer_at dst, mem_ref count, size_t n,
                                    clscan_type type, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_select_flagged, ctx.get(), queue.get(), src.mem,
                    src.offset, flags.mem, flags.offset, dst.mem, dst.offset, count.get(), n, type);
}
template <class T>
clscan_status select_flagged(context_ref ctx, queue_ref queue, buffer_at src, buffer_at flags,
                             buffer_at dst, mem_ref count, size_t n, CLSCAN_HPP_EVENTS)
{
    return select_flagged(ctx, queue, src, flags, dst, count, n, type_of<T>::value, wait,
                          event);
}
inline clscan_status select_if(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                               mem_ref count, size_t n, clscan_type type, text predicate,
                               CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_select_if, ctx.get(), queue.get(), src.mem, src.offset,
                    dst.mem, dst.offset, count.get(), n, type, predicate.c_str());
}
template <class T>
clscan_status select_if(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                        mem_ref count, size_t n, text predicate, CLSCAN_HPP_EVENTS)
{
    return select_if(ctx, queue, src, dst, count, n, type_of<T>::value, predicate, wait, event);
}
inline clscan_status partition_if(context_ref ctx, queue_ref queue, buffer_at src,
                                  buffer_at dst, mem_ref count, size_t n, clscan_type type,
                                  text predicate, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_partition_if, ctx.get(), queue.get(), src.mem,
                    src.offset, dst.mem, dst.offset, count.get(), n, type, predicate.c_str());
}
template <class T>
clscan_status partition_if(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                           mem_ref count, size_t n, text predicate, CLSCAN_HPP_EVENTS)
{
    return partition_if(ctx, queue, src, dst, count, n, type_of<T>::value, predicate, wait,
                        event);
}
inline clscan_status unique(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                            mem_ref count, size_t n, clscan_type type, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_unique, ctx.get(), queue.get(), src.mem, src.offset,
                    dst.mem, dst.offset, count.get(), n, type);
}
template <class T>
clscan_status unique(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                     mem_ref count, size_t n, CLSCAN_HPP_EVENTS)
{
    return unique(ctx, queue, src, dst, count, n, type_of<T>::value, wait, event);
}

/* ---- Compaction of any type, stable partition (clscan_compact) ---- */
inline clscan_status compact(context_ref ctx, queue_ref queue, const clscan_compact_desc &desc,
                             buffer_at src, buffer_at dst, mem_ref count, size_t n,
                             CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_compact, ctx.get(), queue.get(), &desc, src.mem,
                    src.offset, dst.mem, dst.offset, count.get(), n);
}

/* ---- Radix sort (clscan_sort_keys, clscan_sort_pairs): keys K, values V ---- */
inline clscan_status sort_keys(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                               size_t n, clscan_type key_type, CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_sort_keys, ctx.get(), queue.get(), src.mem, src.offset,
                    dst.mem, dst.offset, n, key_type);
}
template <class K>
clscan_status sort_keys(context_ref ctx, queue_ref queue, buffer_at src, buffer_at dst,
                        size_t n, CLSCAN_HPP_EVENTS)
{
    return sort_keys(ctx, queue, src, dst, n, type_of<K>::value, wait, event);
}
inline clscan_status sort_pairs(context_ref ctx, queue_ref queue, buffer_at keys,
                                buffer_at values, buffer_at keys_out, buffer_at values_out,
                                size_t n, clscan_type key_type, clscan_type value_type,
                                CLSCAN_HPP_EVENTS)
{
    CLSCAN_HPP_CALL(ctx.get(), clscan_sort_pairs, ctx.get(), queue.get(), keys.mem,
                    keys.offset, values.mem, values.offset, keys_out.mem, keys_out.offset,
                    values_out.mem, values_out.offset, n, key_type, value_type);
}
template <class K, class V>
clscan_status sort_pairs(context_ref ctx, queue_ref queue, buffer_at keys, buffer_at values,
                         buffer_at keys_out, buffer_at values_out, size_t n, CLSCAN_HPP_EVENTS)
{
    return sort_pairs(ctx, queue, keys, values, keys_out, values_out, n, type_of<K>::value,
                      type_of<V>::value, wait, event);
}

#undef CLSCAN_HPP_CALL
#undef CLSCAN_HPP_EVENTS

/* ---- Context-wide calls as free functions ---- */
inline std::string describe(context_ref ctx)
{
    size_t len = clscan_context_describe(ctx.get(), nullptr, 0);
    std::vector<char> buf(len + 1);
    clscan_context_describe(ctx.get(), buf.data(), buf.size());
    return std::string(buf.data(), len);
}
inline clscan_status warm(context_ref ctx)
{
    return detail::check(clscan_context_warm(ctx.get()), ctx.get(), "clscan_context_warm");
}
/* clscan_kernel_build_options into `options` (left as it was on failure); the sizes
 * are written where the pointers are not nullptr. */
inline clscan_status kernel_build_options(context_ref ctx, clscan_type type, clscan_op op,
                                          std::string &options,
                                          size_t max_work_group_size = 0,
                                          size_t *work_group_size = nullptr,
                                          size_t *tile_size = nullptr)
{
    size_t len = 0;
    clscan_status s = clscan_kernel_build_options(ctx.get(), type, op, max_work_group_size,
                                                  nullptr, 0, &len, nullptr, nullptr);
    if (s == CLSCAN_SUCCESS) {
        std::vector<char> buf(len + 1);
        s = clscan_kernel_build_options(ctx.get(), type, op, max_work_group_size, buf.data(),
                                        buf.size(), &len, work_group_size, tile_size);
        if (s == CLSCAN_SUCCESS)
            options.assign(buf.data(), len);
    }
    return detail::check(s, ctx.get(), "clscan_kernel_build_options");
}
template <class T>
clscan_status kernel_build_options(context_ref ctx, clscan_op op, std::string &options,
                                   size_t max_work_group_size = 0,
                                   size_t *work_group_size = nullptr,
                                   size_t *tile_size = nullptr)
{
    return kernel_build_options(ctx, type_of<T>::value, op, options, max_work_group_size,
                                work_group_size, tile_size);
}
/* clscan_kernel_build_options_wg (a work-group size of the caller's) into `options` (left
 * as it was on failure); the tile size is written where tile_size is not nullptr. */
inline clscan_status kernel_build_options_wg(context_ref ctx, clscan_type type, clscan_op op,
                                             size_t work_group_size, std::string &options,
                                             size_t *tile_size = nullptr)
{
    size_t len = 0;
    clscan_status s = clscan_kernel_build_options_wg(ctx.get(), type, op, work_group_size,
                                                     nullptr, 0, &len, nullptr);
    if (s == CLSCAN_SUCCESS) {
        std::vector<char> buf(len + 1);
        s = clscan_kernel_build_options_wg(ctx.get(), type, op, work_group_size, buf.data(),
                                           buf.size(), &len, tile_size);
        if (s == CLSCAN_SUCCESS)
            options.assign(buf.data(), len);
    }
    return detail::check(s, ctx.get(), "clscan_kernel_build_options_wg");
}
template <class T>
clscan_status kernel_build_options_wg(context_ref ctx, clscan_op op, size_t work_group_size,
                                      std::string &options, size_t *tile_size = nullptr)
{
    return kernel_build_options_wg(ctx, type_of<T>::value, op, work_group_size, options,
                                   tile_size);
}

} // namespace CLSCAN_HPP_NS
} // namespace clscan

#endif /* CLSCAN_HPP */
