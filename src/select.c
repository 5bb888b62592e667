/* select.c - stream compaction: clscan_select_flagged, clscan_select_if,
 * clscan_partition_if and clscan_unique. (Being written: returns UNSUPPORTED.) */
#include "clscan_internal.h"

#define STUB(...) return clscan__fail(ctx, CLSCAN_ERROR_UNSUPPORTED, "compaction not yet built")

clscan_status clscan_select_flagged(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                    size_t src_offset, cl_mem flags, size_t flags_offset,
                                    cl_mem dst, size_t dst_offset, cl_mem count, size_t n,
                                    clscan_type type, cl_uint nwait, const cl_event *wait,
                                    cl_event *event)
{
    (void)queue; (void)src; (void)src_offset; (void)flags; (void)flags_offset; (void)dst;
    (void)dst_offset; (void)count; (void)n; (void)type; (void)nwait; (void)wait; (void)event;
    STUB();
}
clscan_status clscan_select_if(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                               size_t src_offset, cl_mem dst, size_t dst_offset, cl_mem count,
                               size_t n, clscan_type type, const char *predicate, cl_uint nwait,
                               const cl_event *wait, cl_event *event)
{
    (void)queue; (void)src; (void)src_offset; (void)predicate; (void)dst;
    (void)dst_offset; (void)count; (void)n; (void)type; (void)nwait; (void)wait; (void)event;
    STUB();
}
clscan_status clscan_partition_if(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                                  size_t src_offset, cl_mem dst, size_t dst_offset,
                                  cl_mem count, size_t n, clscan_type type,
                                  const char *predicate, cl_uint nwait, const cl_event *wait,
                                  cl_event *event)
{
    (void)queue; (void)src; (void)src_offset; (void)predicate; (void)dst;
    (void)dst_offset; (void)count; (void)n; (void)type; (void)nwait; (void)wait; (void)event;
    STUB();
}
clscan_status clscan_unique(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                            size_t src_offset, cl_mem dst, size_t dst_offset, cl_mem count,
                            size_t n, clscan_type type, cl_uint nwait, const cl_event *wait,
                            cl_event *event)
{
    (void)queue; (void)src; (void)src_offset; (void)dst;
    (void)dst_offset; (void)count; (void)n; (void)type; (void)nwait; (void)wait; (void)event;
    STUB();
}
