/* parts.c - clscan_scan_parts: one range over the devices of one cl_context
 * (PLACEHOLDER: being written). */
#include "clscan_internal.h"

clscan_status clscan_scan_parts(const clscan_scan_desc *desc, int inclusive,
                                const clscan_part *parts, size_t nparts,
                                const clscan_carry *carry, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *events)
{
    (void)desc, (void)inclusive, (void)carry, (void)num_events_in_wait_list;
    (void)event_wait_list, (void)events;
    return clscan__fail(nparts && parts ? parts[0].ctx : NULL, CLSCAN_ERROR_UNSUPPORTED,
                        "clscan_scan_parts is not written yet");
}
