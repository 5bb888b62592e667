/* table.c - the device tuning table as data: local-memory banks by vendor, and launch
 * shapes by vendor, device type and device name, each row citing the measurement
 * behind it (docs/PERFORMANCE.md, docs/perf/). The first matching row wins; the last
 * row of each table matches every device, so a lookup never fails. */
/* SPDX-License-Identifier: MIT */
#include "tune/tune.h"

#include <string.h>

/* Local-memory banks, for devices whose local memory is on-chip (a device reporting
 * CL_GLOBAL local memory gets none). Columns: vendor (OTHER: any), banks, bank width in
 * bytes, where the figure comes from. The bank probe (device/banks.c) replaces these
 * where it runs and finds a pattern. */
static const clscan__bank_row bank_table[] = {
    {CLSCAN__VENDOR_NVIDIA, 32, 4, "table: NVIDIA shared memory, 32 banks x 4 B since Fermi"},
    {CLSCAN__VENDOR_AMD, 32, 4, "table: AMD GCN/RDNA LDS, 32 banks x 4 B"},
    {CLSCAN__VENDOR_INTEL, 16, 4, "table: Intel Gen SLM, 16 banks x 4 B"},
    {CLSCAN__VENDOR_APPLE, 32, 4, "table: Apple GPU threadgroup memory, assumed 32 x 4 B"},
    {CLSCAN__VENDOR_OTHER, 32, 4, "table: default for on-chip local memory, 32 x 4 B"},
};

/* Launch shapes. Columns: vendor (OTHER: any), device type (0: any), a part of the
 * device name (NULL: any); for the multi-level scan the work-group size, items per
 * work-item for 4-byte and for 8-byte types, work-groups per compute unit, tiles done by
 * one work-group in a single kernel; for the single-pass scan the work-group size and
 * items per work-item for 4-byte and for 8-byte types; the source shown by
 * clscan_context_describe. The 8-byte columns hold half the 4-byte ones (the same bytes
 * per work-item) on every row: no 8-byte shape has been measured against another yet
 * (int64 runs at the shapes below: docs/perf/h100-2026-11-22-single-pass.csv). */
static const clscan__tuning_row tuning_table[] = {
    /* H100 (docs/perf/h100-2026-11-22-single-pass-tiles.csv): single-pass 256 x 32 was
     * the best of seven shapes, 740.7 us for int32 at 2^28, 96.5% of the buffer copy
     * (256 x 8: 64%, 256 x 16: 93%). Multi-level 256 x 8, 4 groups per CU
     * (docs/perf/h100-2026-11-22-baseline.csv). */
    {CLSCAN__VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL, 256, 8, 4, 4, 2, 256, 32, 16,
     "table: NVIDIA GPU"},
    /* Not measured: written from the vendors' guides, the NVIDIA row's shape with the
     * 16-item single-pass tile that measured 93% there. */
    {CLSCAN__VENDOR_AMD, CL_DEVICE_TYPE_GPU, NULL, 256, 8, 4, 4, 2, 256, 16, 8,
     "table: AMD GPU (untested)"},
    {CLSCAN__VENDOR_INTEL, CL_DEVICE_TYPE_GPU, NULL, 256, 8, 4, 4, 2, 256, 16, 8,
     "table: Intel GPU (untested)"},
    /* CPU implementations run a work-group's work-items as a loop and pay for every
     * barrier by saving their state: one work-item per group scanning 1024 elements
     * serially is 3-4x faster on PoCL than 64 x 16 (docs/PERFORMANCE.md, "CPU tiles";
     * docs/perf/pocl-2026-11-22-single-pass.csv for the single-pass 1 x 8192). */
    {CLSCAN__VENDOR_OTHER, CL_DEVICE_TYPE_CPU, NULL, 1, 1024, 512, 2, 4, 1, 8192, 4096,
     "table: CPU device"},
    /* Any other device: a middle shape that fits 16 KiB of local memory. */
    {CLSCAN__VENDOR_OTHER, 0, NULL, 128, 8, 4, 4, 2, 128, 8, 4, "table: default"},
};

const clscan__bank_row *clscan__table_banks(const clscan__profile *p)
{
    const size_t last = sizeof bank_table / sizeof bank_table[0] - 1;
    for (size_t i = 0; i < last; ++i)
        if (bank_table[i].vendor == p->vendor) return &bank_table[i];
    return &bank_table[last];
}

const clscan__tuning_row *clscan__table_tuning(const clscan__profile *p)
{
    const size_t last = sizeof tuning_table / sizeof tuning_table[0] - 1;
    for (size_t i = 0; i < last; ++i) {
        const clscan__tuning_row *r = &tuning_table[i];
        /* A row for a type matches devices of that type alone: Oclgrind, which reports
         * several types at once, gets the default row. */
        if ((r->vendor == CLSCAN__VENDOR_OTHER || r->vendor == p->vendor) &&
            (r->type == 0 || (p->device_type & ~(r->type | CL_DEVICE_TYPE_DEFAULT)) == 0) &&
            (!r->name || strstr(p->device_name, r->name)))
            return r;
    }
    return &tuning_table[last];
}
