/* stream.c - clscan_scan_host: a host range scanned through the device in chunks on two
 * queues. Each chunk is uploaded, scanned with clscan_scan_carry from the previous
 * chunk's total (kept on the device) and read back; chunks alternate between two sets of
 * device buffers and the two queues, ordered by events (markers that keep the chains of
 * events bounded: see "Bounded event chains" below), so one chunk's transfers overlap the
 * other queue's work. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The default chunk (docs/GUIDE.md): a quarter of the range, kept between CHUNK_MIN and
 * CHUNK_MAX bytes of the wider element type and rounded up to a multiple of CHUNK_ROUND
 * elements; then capped so that both sets of chunk buffers take at most a quarter of the
 * device's global memory and one buffer at most its largest allocation. On an H100 over
 * PCIe 5 (int32 exclusive add, pinned memory; docs/perf/h100-2026-11-24-stream*.csv) 4 Mi
 * elements did best from 2^24 to 2^30 elements: 31 to 43 GB/s, 61 to 80 % of the
 * host-to-device rate, against 28 to 36 at 1 Mi, 22 to 42 at 16 Mi, 23 to 39 at 64 Mi. */
#define CHUNK_PARTS 4
#define CHUNK_MIN ((size_t)4 << 20)
#define CHUNK_MAX ((size_t)16 << 20)
#define CHUNK_ROUND ((size_t)1 << 16)

size_t clscan__host_chunk(const clscan_context *ctx, size_t n, size_t chunk, size_t in_size,
                          size_t out_size)
{
    const size_t wider = in_size > out_size ? in_size : out_size;
    if (chunk == 0) {
        chunk = n / CHUNK_PARTS + (n % CHUNK_PARTS != 0);
        chunk = chunk > CHUNK_MAX / wider   ? CHUNK_MAX / wider
                : chunk < CHUNK_MIN / wider ? CHUNK_MIN / wider
                                            : chunk;
        chunk = (chunk + CHUNK_ROUND - 1) / CHUNK_ROUND * CHUNK_ROUND;
        cl_ulong global = 0;
        if (clGetDeviceInfo(ctx->target.device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global,
                            NULL) != CL_SUCCESS ||
            global == 0)
            global = ctx->target.profile.max_alloc; /* (no answer: the largest allocation) */
        const cl_ulong by_memory = global / 4 / (2 * (cl_ulong)(in_size + out_size));
        const cl_ulong by_alloc = ctx->target.profile.max_alloc / wider;
        if ((cl_ulong)chunk > by_memory) chunk = (size_t)by_memory;
        if ((cl_ulong)chunk > by_alloc) chunk = (size_t)by_alloc;
        if (chunk == 0) chunk = 1;
    }
    return chunk < n ? chunk : n;
}

/* Checks the host ranges: present when n > 0, byte counts that fit a size_t, and src and
 * dst either the same range of equal-sized elements or apart. */
static clscan_status check_host(const clscan_context *ctx, const void *src, void *dst, size_t n,
                                size_t in_size, size_t out_size)
{
    if (n == 0) return CLSCAN_SUCCESS;
    CLSCAN__RETURN_IF(ctx, src == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "src is NULL (n is %zu)",
                     n);
    CLSCAN__RETURN_IF(ctx, dst == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "dst is NULL (n is %zu)",
                     n);
    const size_t wider = in_size > out_size ? in_size : out_size;
    CLSCAN__RETURN_IF(ctx, n > SIZE_MAX / wider, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "n %zu elements of %zu bytes overflow a size_t byte count", n, wider);
    const uintptr_t a = (uintptr_t)src, b = (uintptr_t)dst;
    const size_t a_len = n * in_size, b_len = n * out_size;
    CLSCAN__RETURN_IF(ctx, a == b && in_size != out_size, CLSCAN_ERROR_INVALID_ARGUMENT,
                     "src and dst overlap: in place (src == dst) needs input and output "
                     "elements of one size, not %zu and %zu bytes",
                     in_size, out_size);
    CLSCAN__RETURN_IF(ctx, a != b && a < b + b_len && b < a + a_len,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "src (%p, %zu bytes) and dst (%p, %zu bytes) overlap without being the "
                     "same range; only exact in-place use is allowed",
                     src, a_len, (void *)dst, b_len);
    return CLSCAN_SUCCESS;
}

/* n == 0: no transfer. The total (the carry-in, or the identity) still goes to the
 * carry's out_buffer, through clscan_scan_carry over an empty range of a one-element
 * placeholder buffer; otherwise a marker after the wait list. */
static clscan_status empty_call(clscan_context *ctx, cl_command_queue queue,
                                const clscan_scan_desc *desc, int inclusive, size_t in_size,
                                const clscan_carry *carry, cl_uint nwait, const cl_event *wait,
                                cl_event *event)
{
    if (!carry || !carry->out_buffer)
        return clscan__enqueue_marker(ctx, queue, nwait, wait, event);
    cl_mem placeholder = NULL;
    clscan_status s = clscan__create_buffer(ctx, in_size, "clscan_scan_host's empty input",
                                            &placeholder);
    if (s != CLSCAN_SUCCESS) return s;
    s = clscan_scan_carry(ctx, queue, desc, inclusive, placeholder, 0, NULL, 0, NULL, 0, 0, carry,
                          nwait, wait, event);
    clReleaseMemObject(placeholder);
    return s;
}

/* Bounded event chains (issue 20). A driver may keep every event's wait list alive as
 * long as the event itself: rusticl 22.3 does, and freed such a chain recursively on its
 * queue thread's 2 MiB stack, which overflowed some 9,000 events deep (a call of 14,000
 * chunks crashed when each chunk's commands waited for the previous chunks'). So no
 * command here waits for an event of an earlier chunk that has a wait list of its own:
 * what later chunks wait for are markers enqueued with an empty wait list, which complete
 * after every earlier command of their queue (in order or not), and hold no event.
 *   - after each chunk's scan, a marker on its queue (done_scan): the other queue's next
 *     scan waits for it (the total it starts from), and on an out-of-order queue the
 *     upload two chunks later into the same input buffer;
 *   - on an out-of-order queue also a marker after each read-back (done_read), which the
 *     scan two chunks later into the same output buffer waits for. (An in-order queue
 *     orders its own commands: their waits on their own queue are left out.)
 * Within a chunk a read-back waits for its scan (out of order), a scan for its upload
 * (out of order) and the two markers, an upload for a marker or the caller's wait list.
 * So the longest chain of waits any command starts is read-back, scan (its
 * clscan_scan_carry's own commands, a few per call, and a scratch slot's earlier use
 * where more than CLSCAN_SCRATCH_SLOTS uses are in flight on an out-of-order queue:
 * src/runtime/scratch.c), upload, then a marker or the caller's events: a few events
 * deep whatever the number of chunks, and the end marker adds one. */

/* The pipeline's state: two sets of device buffers (set k is always on queues[k]), the
 * ring of two totals, and per set the markers and the last read-back that later
 * commands wait for. */
typedef struct stream {
    clscan_context *ctx;
    bool in_order[2];
    cl_mem in[2], out[2], totals;
    cl_event done_scan[2], done_read[2], read[2];
} stream;

static void stream_free(stream *st)
{
    for (int k = 0; k < 2; ++k) {
        if (st->in[k]) clReleaseMemObject(st->in[k]);
        if (st->out[k]) clReleaseMemObject(st->out[k]);
        if (st->done_scan[k]) clReleaseEvent(st->done_scan[k]);
        if (st->done_read[k]) clReleaseEvent(st->done_read[k]);
        if (st->read[k]) clReleaseEvent(st->read[k]);
    }
    if (st->totals) clReleaseMemObject(st->totals);
}

static clscan_status fail_chunk(clscan_context *ctx, cl_int err, const char *what, size_t c)
{
    char msg[128];
    snprintf(msg, sizeof msg, "%s (clscan_scan_host, chunk %zu)", what, c);
    return clscan__fail_cl(ctx, err, msg);
}

/* Replaces *slot (released) with a marker on queue with an empty wait list. */
static cl_int mark(cl_command_queue queue, cl_event *slot)
{
    cl_event m = NULL;
    const cl_int err = clEnqueueMarkerWithWaitList(queue, 0, NULL, &m);
    if (err != CL_SUCCESS) return err;
    if (*slot) clReleaseEvent(*slot);
    *slot = m;
    return CL_SUCCESS;
}

/* Enqueues chunk c, elements [first, first + count), on queues[k], k = c % 2, as the
 * comment above says: the upload into set k after the wait list (chunks 0 and 1) or, out
 * of order, the marker after chunk c - 2's scan; the scan after the marker after chunk
 * c - 1's scan (whose total it starts from) and, out of order, the upload and the marker
 * after chunk c - 2's read-back; the marker; the read-back, out of order after the scan;
 * out of order its marker. */
static clscan_status enqueue_chunk(stream *st, cl_command_queue queue, size_t c, size_t nchunks,
                                   const clscan_scan_desc *desc, int inclusive,
                                   const char *src, char *dst, size_t first, size_t count,
                                   size_t in_size, size_t out_size, const clscan_carry *carry,
                                   cl_uint nwait, const cl_event *wait)
{
    clscan_context *ctx = st->ctx;
    const int k = (int)(c & 1);
    const bool ooo = !st->in_order[k];
    cl_event wrote = NULL, scanned = NULL;
    const cl_uint up_n = c < 2 ? nwait : ooo ? 1 : 0;
    cl_int err = clEnqueueWriteBuffer(queue, st->in[k], CL_FALSE, 0, count * in_size,
                                      src + first * in_size, up_n,
                                      up_n == 0 ? NULL : c < 2 ? wait : &st->done_scan[k],
                                      ooo ? &wrote : NULL);
    if (err != CL_SUCCESS) return fail_chunk(ctx, err, "clEnqueueWriteBuffer", c);

    clscan_carry cc = {0};
    if (c > 0) {
        cc.in_buffer = st->totals; /* chunk c reads total c % 2 and writes the other */
        cc.in_offset = c & 1;
    } else if (carry) {
        cc.in_value = carry->in_value;
        cc.in_buffer = carry->in_buffer;
        cc.in_offset = carry->in_offset;
    }
    if (c + 1 < nchunks) {
        cc.out_buffer = st->totals;
        cc.out_offset = (c + 1) & 1;
    } else if (carry) {
        cc.out_buffer = carry->out_buffer;
        cc.out_offset = carry->out_offset;
    }
    cl_event after[3];
    cl_uint nafter = 0;
    if (c >= 1) after[nafter++] = st->done_scan[!k];
    if (ooo) after[nafter++] = wrote;
    if (ooo && c >= 2) after[nafter++] = st->done_read[k];
    clscan_scan_desc d = *desc; /* (the transform sees the range's indices) */
    d.index_base += first;
    clscan_status s = clscan_scan_carry(ctx, queue, &d, inclusive, st->in[k], 0, NULL, 0,
                                        st->out[k], 0, count, &cc, nafter,
                                        nafter ? after : NULL, ooo ? &scanned : NULL);
    if (wrote) clReleaseEvent(wrote);
    if (s != CLSCAN_SUCCESS) return s;

    /* The marker for chunk c + 1's scan and, out of order, chunk c + 2's upload (it
     * replaces chunk c - 2's, which only this chunk's upload waited for); the read-back,
     * whose event only the end needs (chunks nchunks - 2 and nchunks - 1); out of order
     * the marker for chunk c + 2's scan. */
    const char *what = "clEnqueueMarkerWithWaitList";
    err = c + 1 < nchunks ? mark(queue, &st->done_scan[k]) : CL_SUCCESS;
    if (err == CL_SUCCESS) {
        what = "clEnqueueReadBuffer";
        cl_event read = NULL;
        err = clEnqueueReadBuffer(queue, st->out[k], CL_FALSE, 0, count * out_size,
                                  dst + first * out_size, ooo ? 1 : 0, ooo ? &scanned : NULL,
                                  c + 2 >= nchunks ? &read : NULL);
        if (err == CL_SUCCESS && read) {
            if (st->read[k]) clReleaseEvent(st->read[k]);
            st->read[k] = read;
        }
        if (err == CL_SUCCESS && ooo && c + 2 < nchunks) {
            what = "clEnqueueMarkerWithWaitList";
            err = mark(queue, &st->done_read[k]);
        }
    }
    if (scanned) clReleaseEvent(scanned);
    /* The other queue's next scan waits for this one's marker: submit it now. */
    if (err == CL_SUCCESS) {
        what = "clFlush";
        err = clFlush(queue);
    }
    return err == CL_SUCCESS ? CLSCAN_SUCCESS : fail_chunk(ctx, err, what, c);
}

clscan_status clscan_scan_host(clscan_context *ctx, const cl_command_queue queues[2],
                               const clscan_scan_desc *desc, int inclusive, const void *src,
                               void *dst, size_t n, size_t chunk, const clscan_carry *carry,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event)
{
    clscan_status s = clscan__check_context(ctx);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, queues == NULL, CLSCAN_ERROR_INVALID_ARGUMENT, "queues is NULL");
    stream st = {ctx, {false, false}, {NULL, NULL}, {NULL, NULL}, NULL,
                 {NULL, NULL},    {NULL, NULL},   {NULL, NULL}};
    for (int q = 0; q < 2; ++q) {
        CLSCAN__RETURN_IF(ctx, queues[q] == NULL, CLSCAN_ERROR_INVALID_ARGUMENT,
                         "queues[%d] is NULL", q);
        /* (The type and op are placeholders: clscan__desc_sizes checks the real ones.) */
        s = clscan__check_call(ctx, queues[q], CLSCAN_INT32, CLSCAN_OP_ADD,
                               q ? 0 : num_events_in_wait_list, q ? NULL : event_wait_list,
                               &st.in_order[q]);
        if (s != CLSCAN_SUCCESS) return s;
    }
    size_t in_size = 0, out_size = 0;
    if ((s = clscan__desc_sizes(ctx, desc, &in_size, &out_size)) != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, desc->segments != CLSCAN_SEGMENTS_NONE, CLSCAN_ERROR_UNSUPPORTED,
                     "clscan_scan_host takes no segments (desc->segments is %s)",
                     desc->segments == CLSCAN_SEGMENTS_FLAGS ? "CLSCAN_SEGMENTS_FLAGS"
                                                             : "CLSCAN_SEGMENTS_KEYS");
    /* The carry as every chunk's clscan_scan_carry checks it, before anything is enqueued
     * (its device ranges cannot overlap the host ones). */
    clscan__carry_args carry_args;
    if ((s = check_host(ctx, src, dst, n, in_size, out_size)) != CLSCAN_SUCCESS ||
        (s = clscan__check_carry(ctx, carry, out_size, 0, NULL, 0, &carry_args)) !=
            CLSCAN_SUCCESS)
        return s;
    if (n == 0)
        return empty_call(ctx, queues[0], desc, inclusive, in_size, carry,
                          num_events_in_wait_list, event_wait_list, event);

    chunk = clscan__host_chunk(ctx, n, chunk, in_size, out_size);
    const size_t wider = in_size > out_size ? in_size : out_size;
    CLSCAN__RETURN_IF(ctx, (cl_ulong)chunk * wider > ctx->target.profile.max_alloc,
                     CLSCAN_ERROR_INVALID_ARGUMENT,
                     "chunk %zu: a chunk buffer of %zu bytes would exceed the device's largest "
                     "allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) of %llu bytes",
                     chunk, chunk * wider, (unsigned long long)ctx->target.profile.max_alloc);
    const size_t nchunks = (n - 1) / chunk + 1;

    for (int k = 0; k < (nchunks > 1 ? 2 : 1) && s == CLSCAN_SUCCESS; ++k)
        if ((s = clscan__create_buffer(ctx, chunk * in_size, "clscan_scan_host's input chunk",
                                       &st.in[k])) == CLSCAN_SUCCESS)
            s = clscan__create_buffer(ctx, chunk * out_size, "clscan_scan_host's output chunk",
                                      &st.out[k]);
    if (s == CLSCAN_SUCCESS && nchunks > 1)
        s = clscan__create_buffer(ctx, 2 * out_size, "clscan_scan_host's totals", &st.totals);

    for (size_t c = 0; c < nchunks && s == CLSCAN_SUCCESS; ++c) {
        const size_t first = c * chunk, count = n - first < chunk ? n - first : chunk;
        s = enqueue_chunk(&st, queues[c & 1], c, nchunks, desc, inclusive, src, dst, first,
                          count, in_size, out_size, carry, num_events_in_wait_list,
                          event_wait_list);
    }

    /* The end: one chunk's read-back is it; with more, a marker on queues[0] after both
     * queues' last read-backs (each after its queue's earlier commands: in order, or
     * through the markers it waited for), so that later commands on an in-order
     * queues[0] come after the whole call. */
    cl_event last = NULL;
    if (s == CLSCAN_SUCCESS && nchunks == 1) {
        last = st.read[0];
        st.read[0] = NULL;
    } else if (s == CLSCAN_SUCCESS) {
        cl_int err = clEnqueueMarkerWithWaitList(queues[0], 2, st.read, &last);
        if (err == CL_SUCCESS) err = clFlush(queues[0]);
        if (err != CL_SUCCESS)
            s = clscan__fail_cl(ctx, err, "clEnqueueMarkerWithWaitList (clscan_scan_host's end)");
    }
    if (s != CLSCAN_SUCCESS) { /* what was enqueued runs on: submit it */
        clFlush(queues[0]);
        clFlush(queues[1]);
    }
    stream_free(&st); /* (the runtime frees the buffers once their commands finish) */
    if (last && event && s == CLSCAN_SUCCESS) *event = last;
    else if (last) clReleaseEvent(last);
    return s;
}
