/* describe.c - clscan_context_describe's text: the device's facts (the bank probe's with
 * where they came from: measured now, earlier in this process, or the disk cache) and
 * every tuning choice with its reason. */
/* SPDX-License-Identifier: MIT */
#include "tune/tune.h"

#include <stdarg.h>
#include <stdio.h>


size_t clscan__profile_describe(const clscan__profile *p, char *buf, size_t size)
{
    size_t len = 0;
    if (size) buf[0] = '\0';
    const char *type = (p->device_type & CL_DEVICE_TYPE_GPU)           ? "GPU"
                       : (p->device_type & CL_DEVICE_TYPE_CPU)         ? "CPU"
                       : (p->device_type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                                       : "other";
    clscan__append(buf, size, &len, "device:        %s (%s), platform %s\n", p->device_name, type,
           p->platform_name);
    clscan__append(buf, size, &len, "vendor:        %s (\"%s\", id 0x%x)\n",
           clscan__vendor_name(p->vendor), p->vendor_name, p->vendor_id);
    clscan__append(buf, size, &len, "versions:      OpenCL %d.%d, OpenCL C %d.%d, driver %s\n",
           p->cl_major, p->cl_minor, p->c_major, p->c_minor, p->driver_version);
    clscan__append(buf, size, &len, "compute units: %u, max work-group %zu, wg multiple %zu%s\n",
           p->compute_units, p->max_wg_size, p->wg_multiple,
           p->wg_multiple ? "" : " (unknown)");
    clscan__append(buf, size, &len, "local memory:  %llu KiB, %s, banks %u x %u B (%s)\n",
           (unsigned long long)(p->local_mem_size / 1024),
           p->local_mem_is_global ? "global (no padding)" : "on-chip", p->local_banks,
           p->bank_width, p->banks_source);
    if (p->bank_probe_ran) {
        const clscan__bank_origin *o = &p->bank_probe_origin;
        char from[160];
        if (o->how == CLSCAN__PROBE_LOADED)
            snprintf(from, sizeof from, "loaded from the disk cache");
        else if (o->how == CLSCAN__PROBE_REMEMBERED)
            snprintf(from, sizeof from, "from earlier in this process");
        else if (o->how == CLSCAN__PROBE_MEASURED && o->why)
            snprintf(from, sizeof from, "measured now; probe file: %s", o->why);
        else if (o->how == CLSCAN__PROBE_MEASURED)
            snprintf(from, sizeof from, "measured now; the disk cache is off");
        else
            snprintf(from, sizeof from, "not measured");
        /* (In parentheses: the context's "disk cache:" line must be the only one that
         * holds that text.) */
        clscan__append(buf, size, &len, "bank probe:    %s (%s): %s\n",
               p->bank_probe.measured ? "found" : "no result", from, p->bank_probe.detail);
    } else
        clscan__append(buf, size, &len, "bank probe:    not run (%s)\n",
               p->local_mem_is_global ? "local memory is global memory"
                                      : "runs on GPUs only; CLSCAN_BANK_PROBE=1 forces it");
    clscan__append(buf, size, &len, "sub-groups:    width %u (%s)%s%s%s%s\n", p->subgroup_width,
           p->subgroup_source ? p->subgroup_source : "override", p->sg_khr ? ", khr" : "",
           p->sg_khr_shuffle_relative ? ", khr relative shuffles" : "",
           p->sg_intel ? ", intel" : "", p->nvidia_platform ? ", NVIDIA platform" : "");
    clscan__append(buf, size, &len, "scan layers:   %s work-group scan (%s), %s sub-groups of %u (%s)\n",
           clscan__wg_algo_name(p->wg_algo), p->wg_algo_source,
           clscan__sg_impl_name(p->sg_impl), p->sg_width, p->sg_source);
    char pair[64] = ""; /* (where values of whole pairs of words take another mode) */
    if (p->lb_atomics_pair != p->lb_atomics)
        snprintf(pair, sizeof pair, ", %s for values of word pairs",
                 clscan__lb_atomics_name(p->lb_atomics_pair));
    clscan__append(buf, size, &len, "device scan:   %s (%s); single-pass tiles %zu x %u (x %u for 8-byte types), %u-bit "
           "status words, %s atomics (%s)%s, fallback after %u reads, look-back walk "
           "%s%s%s\n",
           clscan__scan_algo_name(p->scan_algo), p->scan_algo_source, p->sp_wg_size,
           p->sp_items, p->sp_items_8, p->lb_word_bits, clscan__lb_atomics_name(p->lb_atomics),
           p->lb_atomics_source, pair, p->lb_spins, clscan__lb_walk_name(p->lb_walk),
           p->lb_test ? ", TEST MODE " : "", p->lb_test ? clscan__lb_test_name(p->lb_test) : "");
    if (p->scan_max_registers || p->scan_max_registers_8)
        clscan__append(buf, size, &len, "               plain scans: integers' look-back walked "
                       "by sub-group 0, and at most %u registers (4-byte types), %u (8-byte), "
                       "unless a walk is forced\n",
                       p->scan_max_registers, p->scan_max_registers_8);
    if (p->select_max_registers || p->runs_max_registers)
        clscan__append(buf, size, &len, "               compactions of 4-byte elements: at most "
                       "%u registers (select, partition; unique, stashed), %u (run-length "
                       "encoding); of 8-byte elements, stashed: %u (unique, run-length "
                       "encoding)\n",
                       p->select_max_registers, p->runs_max_registers,
                       p->select_max_registers);
    char cap[80] = "no register cap"; /* (one-sweep passes of 4-byte keys on NVIDIA) */
    if (p->sort_max_registers || p->sort_pair_max_registers)
        snprintf(cap, sizeof cap, "at most %u registers (keys alone), %u (pairs)",
                 p->sort_max_registers, p->sort_pair_max_registers);
    clscan__append(buf, size, &len, "radix sort:    %s (%s); one-sweep passes of 4-byte keys "
                   "with NVIDIA's warps: %s (%s)\n",
                   clscan__sort_algo_name(p->sort_algo), p->sort_algo_source, cap,
                   p->sort_max_registers_source);
    clscan__append(buf, size, &len, "reductions:    %s (%s)\n",
                   p->reduce_single ? "levels in one kernel, single-pass groups of several "
                                      "work-items, up to 8 tiles a compute unit"
                                    : "levels in kernels of their own",
                   p->reduce_single_source);
    clscan__append(buf, size, &len, "histograms:    bins in local memory %s; one-work-item "
                   "groups count without a branch on samples in no bin for %s\n",
                   p->int64_atomics ? "in one kernel (64-bit arrival words)"
                                    : "as rows of partial counts, then their sums",
                   p->hist_branch_free_source);
    clscan__append(buf, size, &len, "user texts:    up to %llu bytes each\n",
                   (unsigned long long)p->max_text_bytes);
    clscan__append(buf, size, &len,
                   "programs:      up to %llu kept, %llu bytes of keys and texts (least "
                   "recently used released first)\n",
                   (unsigned long long)p->max_programs, (unsigned long long)p->max_program_bytes);
    clscan__append(buf, size, &len, "capabilities:  fp64 %s, 64-bit atomics %s, max alloc %llu MiB, "
           "cache the CPUs' sort plans for %llu KiB\n",
           p->fp64 ? "yes" : "no", p->int64_atomics ? "yes" : "no",
           (unsigned long long)(p->max_alloc >> 20), (unsigned long long)(p->global_cache_size >> 10));
    if (p->max_loop_iterations)
        clscan__append(buf, size, &len, "quirks:        a work-item stops after %llu loop iterations\n",
               (unsigned long long)p->max_loop_iterations);
    clscan__append(buf, size, &len,
           "tuning:        work-group %zu, %u items/work-item (4-byte types; %u for 8-byte), padding %s, "
           "%u groups/CU, one group up to %u tiles (%s)\n",
           p->wg_size, p->items_per_thread, p->items_per_thread_8,
           p->padding && p->local_banks ? "on" : "off", p->groups_per_cu,
           p->single_group_tiles, p->tuning_source);
    return len;
}
