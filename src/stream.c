/* stream.c - clscan_scan_host: host ranges scanned through the device in chunks on two
 * queues (PLACEHOLDER: being written; returns CLSCAN_ERROR_UNSUPPORTED until then). */
#include "clscan_internal.h"

clscan_status clscan_scan_host(clscan_context *ctx, const cl_command_queue queues[2],
                               const clscan_scan_desc *desc, int inclusive, const void *src,
                               void *dst, size_t n, size_t chunk, const clscan_carry *carry,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event)
{
    (void)queues, (void)desc, (void)inclusive, (void)src, (void)dst, (void)n, (void)chunk;
    (void)carry, (void)num_events_in_wait_list, (void)event_wait_list, (void)event;
    return clscan__fail(ctx, CLSCAN_ERROR_UNSUPPORTED, "clscan_scan_host is not written yet");
}
