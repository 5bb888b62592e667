/* sort.c - radix sort: clscan_sort_keys and clscan_sort_pairs. Argument checks, the
 * tile shape of the sort kernels (cl/clscan_sort.cl), then per 8-bit digit of the keys,
 * least significant first, three steps: a histogram of each work-group's digits, the
 * exclusive scan of those counts by the multi-level scan of a scan program (scan.c),
 * and the stable scatter. The passes ping-pong between the output and a temporary in
 * the context's scratch memory, so that the last one writes the output. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <string.h>

/* CLSCAN_SORT_BITS, CLSCAN_SORT_RADIX and CLSCAN_SORT_SUB_RADIX of cl/clscan_sort.cl. */
enum { SORT_BITS = 8, SORT_RADIX = 256, SORT_SUB_RADIX = 16 };

/* One sort call's arguments; the names are the ones messages use. */
typedef struct sort_call {
    cl_mem keys, values, keys_out, values_out;
    size_t keys_offset, values_offset, keys_out_offset, values_out_offset, n;
    clscan_type key_type, value_type;
    int pairs; /* values and values_out are used */
    const char *keys_name, *keys_out_name;
} sort_call;

/* Bytes of local memory the sort kernels of cfg's shape declare (an upper bound): the
 * tile's keys and values, the sub-digit matrix, the digit bins, starts and next slots,
 * and the work-group scan's scratch. */
static size_t sort_local_bytes(const clscan__scan_config *cfg, const clscan__profile *p)
{
    const size_t count_bytes = clscan_type_size(cfg->type);
    if (cfg->wg_size == 1) return SORT_RADIX * (4 + count_bytes);
    size_t tile = cfg->wg_size * cfg->items, matrix = SORT_SUB_RADIX * cfg->wg_size;
    size_t bins = cfg->wg_size > SORT_RADIX ? cfg->wg_size : SORT_RADIX;
    if (cfg->log_banks) {
        tile += tile >> cfg->log_banks;
        matrix += matrix >> cfg->log_banks;
        bins += bins >> cfg->log_banks;
    }
    clscan__scan_config one = *cfg; /* the scan layers' scratch, with a tile of one item */
    one.kind = CLSCAN__PROGRAM_SCAN;
    one.items = 1;
    return tile * (clscan_type_size(cfg->elem_type) + cfg->value_bytes) + matrix * 4 +
           bins * 8 + SORT_RADIX * count_bytes + clscan__scan_local_bytes(&one, p);
}

/* Loop iterations one work-item runs per tile (an upper bound, with the compiler's
 * margin), and per kernel besides its tiles. */
static cl_ulong sort_tile_iterations(const clscan__scan_config *cfg)
{
    if (cfg->wg_size == 1) return cfg->items + 4;
    cl_ulong log_wg = 0;
    for (size_t w = cfg->wg_size; w > 1; w >>= 1) ++log_wg;
    const cl_ulong bins = cfg->wg_size > SORT_RADIX ? 1 : SORT_RADIX / cfg->wg_size;
    return 12ull * cfg->items + 2 * (3 * SORT_SUB_RADIX + 2 * log_wg) + 6 * bins + 4 * log_wg +
           32;
}
static const cl_ulong sort_kernel_iterations = 4 * SORT_RADIX + 32;

/* The shape of the sort program for keys of key_type, values of value_bytes, counts of
 * count_type: the multi-level scan's shape for the count type, with items halved until
 * the tile fits local memory and the loop budget. The KHR sub-group layer is replaced
 * by local memory: program.c checks that layer's width on the scan kernel, which a
 * sort program does not have. */
static clscan_status sort_config_choose(const clscan_context *ctx, clscan_type key_type,
                                        cl_uint value_bytes, clscan_type count_type,
                                        clscan__scan_config *out)
{
    const clscan__profile *p = &ctx->target.profile;
    clscan_status s = clscan__scan_config_choose(ctx, p, CLSCAN__SCAN_MULTI_LEVEL, count_type,
                                                 CLSCAN_OP_ADD, out);
    if (s != CLSCAN_SUCCESS) return s;
    out->kind = CLSCAN__PROGRAM_SORT;
    out->elem_type = key_type;
    out->value_bytes = value_bytes;
    out->log_banks = clscan__pad_shift(p, 4); /* (padding measured with 4-byte counts) */
    if (out->sg_impl == CLSCAN__SG_KHR) {
        out->sg_impl = CLSCAN__SG_LOCAL;
        out->wg_algo = CLSCAN__WG_BLELLOCH;
    }
    /* Each work-item holds its keys and values in registers: 8-byte ones halve the
     * items, as for compaction. */
    if (clscan_type_size(key_type) + value_bytes > 8 && out->items > 1) out->items /= 2;
    const cl_ulong budget = clscan__local_budget(p);
    while (p->max_loop_iterations && out->items > 1 &&
           (sort_tile_iterations(out) + sort_kernel_iterations) * 8 > p->max_loop_iterations)
        out->items /= 2;
    while (sort_local_bytes(out, p) > budget) {
        if (out->items > 1) {
            out->items /= 2;
        } else if (out->wg_size > 1) {
            out->wg_size /= 2;
            if (out->sg_width > out->wg_size) {
                out->sg_impl = CLSCAN__SG_LOCAL;
                out->wg_algo = CLSCAN__WG_BLELLOCH;
                out->sg_width = (cl_uint)out->wg_size;
            }
        } else {
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                                "no sort tile fits in %llu bytes of local memory",
                                (unsigned long long)p->local_mem_size);
        }
    }
    /* Groups of one work-item (CPUs) get the bucket form, whose per-bucket loops need a
     * device without a loop budget. */
    out->sort_buckets = out->wg_size == 1 && !p->max_loop_iterations;
    return CLSCAN_SUCCESS;
}

/* One-sweep sorts (cl/clscan_sort_onesweep.cl): ranks are kept below 2^30 in the
 * status words, so larger sorts take the three-step kernels. */
#define ONESWEEP_MAX_N (1ull << 30)

/* Bytes of local memory the one-sweep pass kernel declares (an upper bound): the
 * tile's keys and values, the warps' digit counts, the digit starts, destinations and
 * ticket, the work-group scan's scratch, and the local-memory match's two slots per
 * work-item, or with NVIDIA's warps their match words (one per warp and digit, and one
 * for none) where the tile's keys cannot hold them. */
size_t clscan__onesweep_local_bytes(const clscan__scan_config *cfg, const clscan__profile *p)
{
    size_t bins = cfg->wg_size > SORT_RADIX ? cfg->wg_size : SORT_RADIX;
    if (cfg->log_banks) bins += bins >> cfg->log_banks;
    const size_t warps = cfg->wg_size >= 32 ? cfg->wg_size / 32 : 1;
    clscan__scan_config one = *cfg;
    one.kind = CLSCAN__PROGRAM_SCAN;
    one.items = 1;
    const size_t key_bytes = cfg->wg_size * cfg->items * clscan_type_size(cfg->elem_type);
    const size_t match_bytes = warps * (SORT_RADIX + 1) * 4;
    /* The local-memory match's two words a work-item; NVIDIA's match words (in the keys'
     * memory where they fit, their own where keys are placed as they are ranked). */
    const size_t tile = cfg->wg_size * cfg->items;
    size_t extra = cfg->sg_impl != CLSCAN__SG_NVIDIA || cfg->wg_size < 32 ? 2 * cfg->wg_size * 4
                   : cfg->sort_place_early || match_bytes > key_bytes     ? match_bytes
                                                                         : 0;
    /* Placed as ranked, values follow the keys through their memory, and each place's
     * digit (a byte) stays in the match words' memory or, where that is too small, its
     * own. */
    const size_t value_bytes = cfg->sort_place_early ? 0 : tile * cfg->value_bytes;
    if (cfg->sort_place_early && cfg->value_bytes && tile > match_bytes) extra += tile;
    return key_bytes + value_bytes + warps * SORT_RADIX * 4 + bins * 4 + SORT_RADIX * 4 + 16 +
           clscan__scan_local_bytes(&one, p) + extra;
}

/* Turns the sort shape in *cfg into the one-sweep one where the device's choice and n
 * allow: work-groups of 256 (or the device's largest power of two below), 24 keys per
 * work-item (16 where a key and its value take 8 bytes, 8 above), halved until local
 * memory holds them. With NVIDIA's warps, keys go to local memory as they are ranked
 * where local memory holds their match words beside them, values no wider than the
 * keys following them through the same memory (the items then by the key's bytes
 * alone); 4-byte keys then run with the profile's register caps (sort_max_registers,
 * sort_pair_max_registers: tune/choose.c). Leaves *cfg alone otherwise. */
void clscan__onesweep_shape(const clscan__profile *p, cl_ulong n, clscan__scan_config *cfg)
{
    if (p->sort_algo != CLSCAN__SORT_ONESWEEP || n >= ONESWEEP_MAX_N) return;
    clscan__scan_config os = *cfg;
    os.sort_onesweep = 1;
    os.sort_buckets = 0;
    os.lb_test = p->lb_test;
    /* (Its own work-group size: a CPU's scan tuning may have groups of one.) */
    os.wg_size = 1;
    while (os.wg_size * 2 <= SORT_RADIX && os.wg_size * 2 <= p->max_wg_size) os.wg_size *= 2;
    if (os.wg_size < 2) return;
    if (os.sg_impl != CLSCAN__SG_NVIDIA || os.sg_width > os.wg_size) {
        os.sg_impl = CLSCAN__SG_LOCAL;
        os.wg_algo = CLSCAN__WG_BLELLOCH;
        os.sg_width = (cl_uint)os.wg_size;
    }
    const size_t key_bytes = clscan_type_size(os.elem_type);
    const cl_ulong budget = clscan__local_budget(p);
    /* Items by the bytes a work-item holds through the ranking (measured:
     * PERFORMANCE.md): placed as ranked, values come after the keys' ranking. */
    if (os.sg_impl == CLSCAN__SG_NVIDIA && os.value_bytes <= key_bytes) {
        os.sort_place_early = 1;
        os.items = key_bytes <= 4 ? 24 : 16;
        if (clscan__onesweep_local_bytes(&os, p) > budget) os.sort_place_early = 0;
        else if (key_bytes == 4 && os.wg_size == 256)
            os.ptx_maxnreg = os.value_bytes ? p->sort_pair_max_registers : p->sort_max_registers;
    }
    if (!os.sort_place_early) {
        const size_t item_bytes = key_bytes + os.value_bytes;
        os.items = item_bytes <= 4 ? 24 : item_bytes <= 8 ? 16 : 8;
    }
    while (clscan__onesweep_local_bytes(&os, p) > budget && os.items > 1) os.items /= 2;
    if (clscan__onesweep_local_bytes(&os, p) > budget) return;
    *cfg = os;
}

/* How the tiles of n keys are split over work-groups: as the multi-level scan splits
 * them (a bounded number of groups, each a contiguous run of tiles), with fewer tiles
 * per group where the device limits a work-item's loop iterations. */
typedef struct sort_plan {
    cl_ulong groups, per_group;
} sort_plan;

static sort_plan sort_plan_groups(const clscan__profile *p, const clscan__scan_config *cfg,
                                  cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    const cl_ulong ntiles = (n + tile - 1) / tile;
    cl_ulong max_groups = p->max_groups ? p->max_groups
                                        : (cl_ulong)p->compute_units * p->groups_per_cu;
    if (max_groups < 1) max_groups = 1;
    cl_ulong max_tiles = ~(cl_ulong)0;
    if (p->max_loop_iterations) {
        const cl_ulong per_tile = sort_tile_iterations(cfg);
        max_tiles = p->max_loop_iterations > sort_kernel_iterations + 2 * per_tile
                        ? (p->max_loop_iterations - sort_kernel_iterations) / per_tile
                        : 1;
    }
    sort_plan sp;
    sp.groups = ntiles < max_groups ? ntiles : max_groups;
    if ((ntiles + sp.groups - 1) / sp.groups > max_tiles)
        sp.groups = (ntiles + max_tiles - 1) / max_tiles;
    sp.per_group = (ntiles + sp.groups - 1) / sp.groups;
    sp.groups = (ntiles + sp.per_group - 1) / sp.per_group; /* no group without a tile */
    return sp;
}

/* Byte offsets rounded up to 256, so that every temporary starts aligned for any type
 * (and for the devices' base address alignment of sub-ranges, should they be used). */
static cl_ulong align_up(cl_ulong x) { return (x + 255) & ~(cl_ulong)255; }

/* Every check that needs no OpenCL object created. */
static clscan_status check_sort(const clscan_context *ctx, cl_command_queue queue,
                                const sort_call *c, cl_uint nwait, const cl_event *wait,
                                bool *in_order)
{
    clscan_status s = clscan__check_call(ctx, queue, CLSCAN_UINT32, CLSCAN_OP_ADD, nwait, wait,
                                         in_order);
    if (s != CLSCAN_SUCCESS) return s;
    CLSCAN__RETURN_IF(ctx, !clscan__type_valid((int)c->key_type), CLSCAN_ERROR_INVALID_ARGUMENT,
                     "key_type %d is not a clscan_type", (int)c->key_type);
    CLSCAN__RETURN_IF(ctx, c->pairs && !clscan__type_valid((int)c->value_type),
                     CLSCAN_ERROR_INVALID_ARGUMENT, "value_type %d is not a clscan_type",
                     (int)c->value_type);
    CLSCAN__RETURN_IF(ctx, c->key_type == CLSCAN_DOUBLE && !ctx->target.profile.fp64,
                     CLSCAN_ERROR_UNSUPPORTED,
                     "key_type double: device %s has no double precision (fp64)",
                     ctx->target.profile.device_name);
    const size_t kb = clscan_type_size(c->key_type);
    const size_t vb = c->pairs ? clscan_type_size(c->value_type) : 0;
    if ((s = clscan__check_range(ctx, c->keys, c->keys_name, c->keys_offset, c->n, kb)) !=
            CLSCAN_SUCCESS ||
        (c->pairs && (s = clscan__check_range(ctx, c->values, "values", c->values_offset, c->n,
                                              vb)) != CLSCAN_SUCCESS) ||
        (s = clscan__check_range(ctx, c->keys_out, c->keys_out_name, c->keys_out_offset, c->n,
                                 kb)) != CLSCAN_SUCCESS ||
        (c->pairs && (s = clscan__check_range(ctx, c->values_out, "values_out",
                                              c->values_out_offset, c->n, vb)) !=
                         CLSCAN_SUCCESS))
        return s;
    if (!c->pairs)
        return clscan__check_in_place(ctx, c->keys, c->keys_offset, c->keys_out,
                                      c->keys_out_offset, c->n);
    /* Pairs: each output is its own input's exact range (in place) or shares no byte with
     * the inputs and the other output; the inputs, only read, may overlap each other.
     * (Offsets times sizes cannot overflow once the ranges checked out.) */
    const size_t kin = c->keys_offset * kb, kout = c->keys_out_offset * kb;
    const size_t vin = c->values_offset * vb, vout = c->values_out_offset * vb;
    const size_t klen = c->n * kb, vlen = c->n * vb;
    const int keys_in_place = c->keys == c->keys_out && kin == kout;
    const int values_in_place = c->values == c->values_out && vin == vout;
    if ((!keys_in_place &&
         (s = clscan__check_disjoint(ctx, c->keys, "keys", kin, klen, c->keys_out, "keys_out",
                                     kout, klen)) != CLSCAN_SUCCESS) ||
        (!values_in_place &&
         (s = clscan__check_disjoint(ctx, c->values, "values", vin, vlen, c->values_out,
                                     "values_out", vout, vlen)) != CLSCAN_SUCCESS) ||
        (s = clscan__check_disjoint(ctx, c->keys_out, "keys_out", kout, klen, c->values_out,
                                    "values_out", vout, vlen)) != CLSCAN_SUCCESS ||
        (s = clscan__check_disjoint(ctx, c->keys_out, "keys_out", kout, klen, c->values,
                                    "values", vin, vlen)) != CLSCAN_SUCCESS ||
        (s = clscan__check_disjoint(ctx, c->values_out, "values_out", vout, vlen, c->keys,
                                    "keys", kin, klen)) != CLSCAN_SUCCESS)
        return s;
    return CLSCAN_SUCCESS;
}

/* Where one pass reads and writes keys or values: a buffer and an element offset. */
typedef struct sort_side {
    cl_mem mem;
    cl_ulong off;
} sort_side;

/* Where pass `pass` reads and writes: the input (pass 0), the temporary (odd passes) or
 * the output (even passes), writing the temporary (even) or the output (odd); the passes
 * are even in number, so the last writes the output. Keys only: the value sides are NULL
 * (the kernels have no values; a NULL buffer argument costs NVIDIA's enqueue less than
 * naming the key buffers again: src/runtime/runtime.h, clscan__no_carry). */
typedef struct sort_pass_sides {
    sort_side from, to, vfrom, vto;
} sort_pass_sides;

static sort_pass_sides pass_sides(const sort_call *c, cl_mem scratch, cl_ulong tmp_keys,
                                  cl_ulong tmp_values, cl_ulong vb, cl_uint pass)
{
    const cl_ulong kb = clscan_type_size(c->key_type);
    const sort_side kin = {c->keys, c->keys_offset}, kout = {c->keys_out, c->keys_out_offset};
    const sort_side ktmp = {scratch, tmp_keys / kb};
    const sort_side none = {NULL, 0};
    const sort_side vin = c->pairs ? (sort_side){c->values, c->values_offset} : none;
    const sort_side vout = c->pairs ? (sort_side){c->values_out, c->values_out_offset} : none;
    const sort_side vtmp = vb ? (sort_side){scratch, tmp_values / vb} : none;
    sort_pass_sides ps;
    ps.from = pass == 0 ? kin : (pass & 1) ? ktmp : kout;
    ps.to = (pass & 1) ? kout : ktmp;
    ps.vfrom = pass == 0 ? vin : (pass & 1) ? vtmp : vout;
    ps.vto = (pass & 1) ? vout : vtmp;
    return ps;
}

/* Sets a pass kernel's first eight arguments: keys from, keys to, values from, values
 * to, each a buffer and an element offset. */
static void set_pass_sides(clscan__kernel_args *a, const sort_pass_sides *ps)
{
    CLSCAN__ARG(*a, ps->from.mem);
    CLSCAN__ARG(*a, ps->from.off);
    CLSCAN__ARG(*a, ps->to.mem);
    CLSCAN__ARG(*a, ps->to.off);
    CLSCAN__ARG(*a, ps->vfrom.mem);
    CLSCAN__ARG(*a, ps->vfrom.off);
    CLSCAN__ARG(*a, ps->vto.mem);
    CLSCAN__ARG(*a, ps->vto.off);
}

/* Sets a bucket kernel's sides: keys out, keys temporary, values out, values temporary,
 * each a buffer and an element offset (ps: a pass that reads the temporary and writes
 * the output). */
static void set_bucket_sides(clscan__kernel_args *a, const sort_pass_sides *ps)
{
    CLSCAN__ARG(*a, ps->to.mem);
    CLSCAN__ARG(*a, ps->to.off);
    CLSCAN__ARG(*a, ps->from.mem);
    CLSCAN__ARG(*a, ps->from.off);
    CLSCAN__ARG(*a, ps->vto.mem);
    CLSCAN__ARG(*a, ps->vto.off);
    CLSCAN__ARG(*a, ps->vfrom.mem);
    CLSCAN__ARG(*a, ps->vfrom.off);
}

/* Where the three-step sort keeps its data in the scratch slot: the counts (digit-major,
 * from byte 0), the scan's partials; with the bucket form the decision's three words
 * (which form runs, and the bits in which the keys differ: clscan_sort_bk_decide) and
 * the runs' ORs and ANDs of keys; then the temporary keys and values (byte offsets, and
 * the slot's size). */
typedef struct three_step_plan {
    sort_plan sp;
    cl_ulong counts_len;
    cl_ulong state, ranges, tmp_keys, tmp_values, bytes;
} three_step_plan;

/* The bucket form: tried where the passes over the whole range would not stay in cache
 * (their keys and values, and the temporary, at least the profile's global memory
 * cache: at least 32 MiB, device/probe.c), and taken where no bucket then holds more
 * than half a compute unit's share of the keys, nor more than 1 MiB of keys and values
 * (so that a bucket's passes stay in cache). On the 2-core development machine, both
 * stacks, with up to 12 bits a bucket pass (eighteenth session): 2^22 keys 0.65-0.93x
 * the passes' time, 2^21 keys 0.8x on PoCL but 1.1-1.3x on Intel's runtime; with byte
 * passes 2^22 pairs 0.62x, 2^23 keys 0.5x, 2^24 keys and pairs 0.46-0.51x
 * (docs/PERFORMANCE.md). */
static cl_ulong bucket_bytes(const sort_call *c)
{
    return clscan_type_size(c->key_type) + (c->pairs ? clscan_type_size(c->value_type) : 0);
}
static int bucket_tried(const clscan__profile *p, const sort_call *c)
{
    return 2 * (cl_ulong)c->n * bucket_bytes(c) >= p->global_cache_size;
}
/* Whether the scatter to the buckets combines its writes into whole lines streamed
 * past the caches (clscan_sort_bk_scatter_combined): where the keys and values fill the
 * global memory cache, so that the buckets' passes would not find them there anyway. On
 * the 2-core development machine, both stacks (twenty-eighth session): uint32 pairs
 * 0.74-0.78x the time at 2^22 to 2^24, keys 0.82-0.89x at 2^23 and 2^24, but keys at
 * 2^22 (16 MiB, the cache 32 MiB) 1.13-1.15x, which this leaves direct. */
static cl_uint bucket_combined(const clscan__profile *p, const sort_call *c)
{
    return (cl_ulong)c->n * bucket_bytes(c) >= p->global_cache_size;
}
static cl_ulong bucket_limit(const clscan__profile *p, const sort_call *c)
{
    const cl_ulong share = c->n / (2 * (cl_ulong)(p->compute_units ? p->compute_units : 1));
    const cl_ulong cache = ((cl_ulong)1 << 20) / bucket_bytes(c);
    return share < cache ? share : cache;
}

/* A bucket kernel's arguments: the keys in, their count and the tiles a group takes,
 * and the runs' ranges (set_run_args); the scanned counts (from element 0) and the
 * decision's words, both in the scratch buffer (set_decision_args). */
static void set_run_args(clscan__kernel_args *a, const sort_call *c, cl_ulong per_group,
                         cl_mem scratch, cl_ulong ranges)
{
    const cl_ulong off = c->keys_offset, n = c->n;
    CLSCAN__ARG(*a, c->keys);
    CLSCAN__ARG(*a, off);
    CLSCAN__ARG(*a, n);
    CLSCAN__ARG(*a, per_group);
    CLSCAN__ARG(*a, scratch);
    CLSCAN__ARG(*a, ranges);
}
static void set_decision_args(clscan__kernel_args *a, cl_mem scratch, cl_ulong state)
{
    const cl_ulong zero = 0;
    CLSCAN__ARG(*a, scratch);
    CLSCAN__ARG(*a, zero);
    CLSCAN__ARG(*a, scratch);
    CLSCAN__ARG(*a, state);
}

/* Enqueues the bucket form's kernels (the program's lock held): each run's OR and AND of
 * the keys, the counts of their bucket digit and the counts' scan, the decision, then the
 * scatter to the buckets and the buckets' passes (both returning at once where the
 * passes over the whole range sort the keys). Where they are not tried
 * (bucket_tried), the decision alone, which then leaves the passes to sort. */
static clscan_status enqueue_buckets(clscan__launch *l, clscan__program *prog,
                                     clscan__program *scan_prog, const sort_call *c,
                                     const three_step_plan *tp)
{
    const clscan__scan_config *cfg = &prog->config;
    cl_mem scratch = l->scratch->buffer;
    const cl_ulong kb = clscan_type_size(c->key_type), n = c->n, zero = 0;
    const cl_ulong groups = tp->sp.groups, per_group = tp->sp.per_group;
    const cl_ulong ranges = tp->ranges / kb, state = tp->state / 4;
    const cl_ulong limit = bucket_limit(&l->ctx->target.profile, c);
    const cl_uint enabled = bucket_tried(&l->ctx->target.profile, c);
    const sort_pass_sides ps = pass_sides(c, scratch, tp->tmp_keys, tp->tmp_values,
                                          cfg->value_bytes, 1); /* (to: output; from: temporary) */
    /* Whether the scatter may put the keys in the output: no input is sorted in place
     * (clscan_sort_bk_scatter_to_out). */
    const cl_uint out_free =
        !(c->keys == c->keys_out && c->keys_offset == c->keys_out_offset) &&
        !(c->pairs && c->values == c->values_out && c->values_offset == c->values_out_offset);
    clscan_status s = CLSCAN_SUCCESS;
    clscan__kernel_args a;
    cl_kernel k;
    if (enabled) {
        k = prog->kernels[CLSCAN__K_SORT_BK_RANGE];
        a = clscan__args_begin(k, 0);
        set_run_args(&a, c, per_group, scratch, ranges);
        if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_bk_range)");
        if ((s = clscan__enqueue(l, k, (size_t)groups, 1, "enqueue sort_bk_range")) != CLSCAN_SUCCESS)
            return s;
        k = prog->kernels[CLSCAN__K_SORT_BK_HIST];
        a = clscan__args_begin(k, 0);
        set_run_args(&a, c, per_group, scratch, ranges);
        CLSCAN__ARG(a, scratch);
        CLSCAN__ARG(a, zero);
        if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_bk_histogram)");
        if ((s = clscan__enqueue(l, k, (size_t)groups, 1, "enqueue sort_bk_histogram")) != CLSCAN_SUCCESS)
            return s;
        s = clscan__enqueue_scan_level(l, scan_prog, scratch, 0, scratch, 0, tp->counts_len, 0,
                                       scratch, tp->counts_len, NULL);
        if (s != CLSCAN_SUCCESS) return s;
    }
    k = prog->kernels[CLSCAN__K_SORT_BK_DECIDE];
    a = clscan__args_begin(k, 0);
    CLSCAN__ARG(a, scratch);
    CLSCAN__ARG(a, ranges);
    CLSCAN__ARG(a, groups);
    CLSCAN__ARG(a, scratch);
    CLSCAN__ARG(a, zero);
    CLSCAN__ARG(a, n);
    CLSCAN__ARG(a, limit);
    CLSCAN__ARG(a, enabled);
    CLSCAN__ARG(a, scratch);
    CLSCAN__ARG(a, state);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_bk_decide)");
    if ((s = clscan__enqueue(l, k, 1, 1, "enqueue sort_bk_decide")) != CLSCAN_SUCCESS || !enabled)
        return s;
    const sort_side none = {NULL, 0}; /* (keys only: pass_sides) */
    const sort_side vin = c->pairs ? (sort_side){c->values, c->values_offset} : none;
    k = prog->kernels[CLSCAN__K_SORT_BK_SCATTER];
    a = clscan__args_begin(k, 0);
    CLSCAN__ARG(a, c->keys);
    CLSCAN__ARG(a, (cl_ulong){c->keys_offset});
    CLSCAN__ARG(a, vin.mem);
    CLSCAN__ARG(a, vin.off);
    set_bucket_sides(&a, &ps);
    CLSCAN__ARG(a, n);
    CLSCAN__ARG(a, per_group);
    set_decision_args(&a, scratch, state);
    CLSCAN__ARG(a, out_free);
    CLSCAN__ARG(a, (cl_uint){bucket_combined(&l->ctx->target.profile, c)});
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_bk_scatter)");
    if ((s = clscan__enqueue(l, k, (size_t)groups, 1, "enqueue sort_bk_scatter")) != CLSCAN_SUCCESS)
        return s;
    k = prog->kernels[CLSCAN__K_SORT_BK_BUCKETS];
    a = clscan__args_begin(k, 0);
    set_bucket_sides(&a, &ps);
    CLSCAN__ARG(a, n);
    CLSCAN__ARG(a, groups);
    set_decision_args(&a, scratch, state);
    CLSCAN__ARG(a, out_free);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_bk_buckets)");
    return clscan__enqueue(l, k, SORT_RADIX, 1, "enqueue sort_bk_buckets");
}

/* Enqueues the passes (both programs' locks held), after the bucket form's kernels
 * where the program has them, each reading and writing as pass_sides says. */
static clscan_status enqueue_passes(clscan__launch *l, clscan__program *prog,
                                    clscan__program *scan_prog, const sort_call *c,
                                    const three_step_plan *tp)
{
    const sort_plan sp = tp->sp;
    const cl_ulong counts_len = tp->counts_len, tmp_keys = tp->tmp_keys,
                   tmp_values = tp->tmp_values, state = tp->state / 4;
    const clscan__scan_config *cfg = &prog->config;
    cl_mem scratch = l->scratch->buffer;
    const cl_ulong kb = clscan_type_size(c->key_type);
    const cl_ulong n = c->n, zero = 0;
    const cl_uint passes = (cl_uint)(kb * 8 / SORT_BITS);
    clscan_status s = CLSCAN_SUCCESS;
    if (cfg->sort_buckets && (s = enqueue_buckets(l, prog, scan_prog, c, tp)) != CLSCAN_SUCCESS)
        return s;
    for (cl_uint pass = 0; pass < passes && s == CLSCAN_SUCCESS; ++pass) {
        const sort_pass_sides ps =
            pass_sides(c, scratch, tmp_keys, tmp_values, cfg->value_bytes, pass);
        const cl_uint shift = pass * SORT_BITS;
        cl_kernel k = prog->kernels[CLSCAN__K_SORT_HIST];
        clscan__kernel_args a = clscan__args_begin(k, 0);
        CLSCAN__ARG(a, ps.from.mem);
        CLSCAN__ARG(a, ps.from.off);
        CLSCAN__ARG(a, n);
        CLSCAN__ARG(a, sp.per_group);
        CLSCAN__ARG(a, shift);
        CLSCAN__ARG(a, scratch);
        CLSCAN__ARG(a, zero);
        if (cfg->sort_buckets) {
            CLSCAN__ARG(a, scratch);
            CLSCAN__ARG(a, state);
        }
        if (a.err != CL_SUCCESS)
            return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_histogram)");
        s = clscan__enqueue(l, k, (size_t)sp.groups, cfg->wg_size, "enqueue sort_histogram");
        if (s != CLSCAN_SUCCESS) return s;
        /* The counts' exclusive scan, in place, its partials after the counts. */
        s = clscan__enqueue_scan_level(l, scan_prog, scratch, 0, scratch, 0, counts_len, 0,
                                       scratch, counts_len, NULL);
        if (s != CLSCAN_SUCCESS) return s;
        k = prog->kernels[CLSCAN__K_SORT_SCATTER];
        a = clscan__args_begin(k, 0);
        set_pass_sides(&a, &ps);
        CLSCAN__ARG(a, n);
        CLSCAN__ARG(a, sp.per_group);
        CLSCAN__ARG(a, shift);
        CLSCAN__ARG(a, scratch);
        CLSCAN__ARG(a, zero);
        if (cfg->sort_buckets) {
            CLSCAN__ARG(a, scratch);
            CLSCAN__ARG(a, state);
        }
        if (a.err != CL_SUCCESS)
            return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_scatter)");
        s = clscan__enqueue(l, k, (size_t)sp.groups, cfg->wg_size, "enqueue sort_scatter");
    }
    return s;
}

/* The one-sweep sort's words in the scratch slot, in 32-bit words: every pass's digit
 * counts, every pass's ticket, and two rows of status words per tile (the pass's, and
 * the next one's, which the pass clears); the temporary keys and values follow. */
typedef struct onesweep_plan {
    cl_ulong tiles, passes;
    cl_ulong hist, tickets, status[2]; /* word offsets */
    cl_ulong zeroed_bytes;             /* zeroed before the first pass */
    cl_ulong tmp_keys, tmp_values, bytes; /* byte offsets, and the slot's size */
} onesweep_plan;

static onesweep_plan onesweep_plan_make(const clscan__scan_config *cfg, const sort_call *c)
{
    onesweep_plan op;
    const cl_ulong kb = clscan_type_size(c->key_type), tile = (cl_ulong)cfg->wg_size * cfg->items;
    op.tiles = (c->n + tile - 1) / tile;
    op.passes = kb * 8 / SORT_BITS;
    op.hist = 0;
    op.tickets = op.passes * SORT_RADIX;
    op.status[0] = align_up((op.tickets + op.passes) * 4) / 4;
    op.status[1] = op.status[0] + op.tiles * SORT_RADIX;
    op.zeroed_bytes = op.status[1] * 4;
    op.tmp_keys = align_up((op.status[1] + op.tiles * SORT_RADIX) * 4);
    op.tmp_values = align_up(op.tmp_keys + (cl_ulong)c->n * kb);
    op.bytes = op.tmp_values + (cl_ulong)c->n * cfg->value_bytes;
    return op;
}

/* Enqueues the one-sweep sort (the program's lock held): the clearing, the histograms of
 * every digit, then a pass per digit, reading and writing as enqueue_passes does. */
static clscan_status enqueue_onesweep(clscan__launch *l, clscan__program *prog,
                                      const sort_call *c, const onesweep_plan *op)
{
    const clscan__scan_config *cfg = &prog->config;
    const clscan__profile *p = &l->ctx->target.profile;
    cl_mem scratch = l->scratch->buffer;
    const cl_ulong n = c->n;
    const sort_side kin = {c->keys, c->keys_offset};
    clscan_status s = clscan__enqueue_clear(l, prog, scratch, op->zeroed_bytes / 4);
    if (s != CLSCAN_SUCCESS) return s;
    cl_ulong groups = p->max_groups ? p->max_groups : (cl_ulong)p->compute_units * p->groups_per_cu;
    cl_kernel k = prog->kernels[CLSCAN__K_SORT_OS_HIST];
    clscan__kernel_args a = clscan__args_begin(k, 0);
    CLSCAN__ARG(a, kin.mem);
    CLSCAN__ARG(a, kin.off);
    CLSCAN__ARG(a, n);
    CLSCAN__ARG(a, scratch);
    if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_os_histogram)");
    const cl_ulong per_group = (cl_ulong)cfg->wg_size * cfg->items;
    if (groups > (n + per_group - 1) / per_group) groups = (n + per_group - 1) / per_group;
    if (groups < 1) groups = 1;
    s = clscan__enqueue(l, k, (size_t)groups, cfg->wg_size, "enqueue sort_os_histogram");
    k = prog->kernels[CLSCAN__K_SORT_OS_PASS];
    for (cl_uint pass = 0; pass < op->passes && s == CLSCAN_SUCCESS; ++pass) {
        const sort_pass_sides ps =
            pass_sides(c, scratch, op->tmp_keys, op->tmp_values, cfg->value_bytes, pass);
        const cl_uint shift = pass * SORT_BITS;
        const cl_ulong hist = op->hist + (cl_ulong)pass * SORT_RADIX;
        const cl_ulong ticket = op->tickets + pass;
        const cl_ulong st = op->status[pass & 1], st_next = op->status[(pass + 1) & 1];
        const cl_uint clear_next = pass + 1 < op->passes, spins = p->lb_spins;
        a = clscan__args_begin(k, 0);
        set_pass_sides(&a, &ps);
        CLSCAN__ARG(a, n);
        CLSCAN__ARG(a, shift);
        CLSCAN__ARG(a, scratch);
        CLSCAN__ARG(a, hist);
        CLSCAN__ARG(a, ticket);
        CLSCAN__ARG(a, st);
        CLSCAN__ARG(a, st_next);
        CLSCAN__ARG(a, clear_next);
        CLSCAN__ARG(a, spins);
        if (a.err != CL_SUCCESS) return clscan__fail_cl(l->ctx, a.err, "clSetKernelArg(sort_os_pass)");
        s = clscan__enqueue(l, k, (size_t)op->tiles, cfg->wg_size, "enqueue sort_os_pass");
    }
    return s;
}

/* The sort of c; the programs it takes (pinned) are left in held[0..1] for the caller to
 * hand back. */
static clscan_status sort_held(clscan_context *ctx, cl_command_queue queue, const sort_call *c,
                               cl_uint nwait, const cl_event *wait, cl_event *event,
                               clscan__program **held)
{
    bool in_order = true;
    clscan_status s = check_sort(ctx, queue, c, nwait, wait, &in_order);
    if (s != CLSCAN_SUCCESS) return s;
    if (c->n == 0) return clscan__enqueue_marker(ctx, queue, nwait, wait, event);

    /* Counts of 32 bits while they cannot overflow; 64 from 2^32 keys on. */
    const clscan_type count_type = c->n > 0xffffffffull ? CLSCAN_UINT64 : CLSCAN_UINT32;
    const cl_uint vb = c->pairs ? (cl_uint)clscan_type_size(c->value_type) : 0;
    clscan__scan_config cfg, scan_cfg;
    clscan__program *prog, *scan_prog;
    if ((s = sort_config_choose(ctx, c->key_type, vb, count_type, &cfg)) != CLSCAN_SUCCESS)
        return s;
    clscan__onesweep_shape(&ctx->target.profile, c->n, &cfg);
    if (cfg.sort_onesweep) {
        if ((s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS) return s;
        held[0] = prog;
        const onesweep_plan op = onesweep_plan_make(&prog->config, c);
        CLSCAN__RETURN_IF(ctx, op.bytes > ctx->target.profile.max_alloc || op.bytes > (cl_ulong)SIZE_MAX,
                          CLSCAN_ERROR_OUT_OF_RESOURCES,
                          "the sort's temporaries (%zu keys%s, digit counts and status words) "
                          "need %llu bytes, more than the device's largest allocation "
                          "(CL_DEVICE_MAX_MEM_ALLOC_SIZE) of %llu bytes",
                          c->n, c->pairs ? " and values" : "", (unsigned long long)op.bytes,
                          (unsigned long long)ctx->target.profile.max_alloc);
        clscan__launch l;
        if ((s = clscan__launch_begin(&l, ctx, queue, in_order, nwait, wait, (size_t)op.bytes,
                                      event)) !=
            CLSCAN_SUCCESS)
            return s;
        l.scratch->lb_clean = 0; /* counts and keys overwrite status words */
        pthread_mutex_lock(&prog->lock);
        s = enqueue_onesweep(&l, prog, c, &op);
        pthread_mutex_unlock(&prog->lock);
        return clscan__launch_end(&l, s, event);
    }
    if ((s = clscan__program_get(ctx, &cfg, &prog)) != CLSCAN_SUCCESS) return s;
    held[0] = prog;
    if ((s = clscan__scan_config_choose(ctx, &ctx->target.profile, CLSCAN__SCAN_MULTI_LEVEL,
                                        count_type, CLSCAN_OP_ADD, &scan_cfg)) !=
            CLSCAN_SUCCESS ||
        (s = clscan__program_get(ctx, &scan_cfg, &scan_prog)) != CLSCAN_SUCCESS)
        return s;
    held[1] = scan_prog;
    cfg = prog->config; /* the shapes actually built */
    scan_cfg = scan_prog->config;

    /* The scratch slot (three_step_plan). */
    three_step_plan tp;
    tp.sp = sort_plan_groups(&ctx->target.profile, &cfg, c->n);
    const cl_ulong cb = clscan_type_size(count_type), kb = clscan_type_size(c->key_type);
    tp.counts_len = SORT_RADIX * tp.sp.groups;
    const cl_ulong partials =
        clscan__scan_scratch_elements(&ctx->target.profile, &scan_cfg, tp.counts_len);
    tp.state = align_up((tp.counts_len + partials) * cb);
    tp.ranges = cfg.sort_buckets ? align_up(tp.state + 12) : tp.state;
    tp.tmp_keys = align_up(tp.ranges + (cfg.sort_buckets ? 2 * tp.sp.groups * kb : 0));
    tp.tmp_values = align_up(tp.tmp_keys + (cl_ulong)c->n * kb);
    tp.bytes = tp.tmp_values + (cl_ulong)c->n * vb;
    const cl_ulong bytes = tp.bytes;
    CLSCAN__RETURN_IF(ctx, bytes > ctx->target.profile.max_alloc || bytes > (cl_ulong)SIZE_MAX,
                     CLSCAN_ERROR_OUT_OF_RESOURCES,
                     "the sort's temporaries (%zu keys%s and the digit counts) need %llu bytes, "
                     "more than the device's largest allocation "
                     "(CL_DEVICE_MAX_MEM_ALLOC_SIZE) of %llu bytes",
                     c->n, c->pairs ? " and values" : "", (unsigned long long)bytes,
                     (unsigned long long)ctx->target.profile.max_alloc);
    clscan__launch l;
    if ((s = clscan__launch_begin(&l, ctx, queue, in_order, nwait, wait, (size_t)bytes, event)) !=
        CLSCAN_SUCCESS)
        return s;
    l.scratch->lb_clean = 0; /* counts and keys overwrite status words */
    pthread_mutex_lock(&prog->lock);
    pthread_mutex_lock(&scan_prog->lock);
    s = enqueue_passes(&l, prog, scan_prog, c, &tp);
    pthread_mutex_unlock(&scan_prog->lock);
    pthread_mutex_unlock(&prog->lock);
    return clscan__launch_end(&l, s, event);
}

static clscan_status sort(clscan_context *ctx, cl_command_queue queue, const sort_call *c,
                          cl_uint nwait, const cl_event *wait, cl_event *event)
{
    clscan__program *held[2] = {NULL, NULL};
    const clscan_status s = sort_held(ctx, queue, c, nwait, wait, event, held);
    clscan__program_put(ctx, held[0]);
    clscan__program_put(ctx, held[1]);
    return s;
}

clscan_status clscan_sort_keys(clscan_context *ctx, cl_command_queue queue, cl_mem src,
                               size_t src_offset, cl_mem dst, size_t dst_offset, size_t n,
                               clscan_type key_type, cl_uint num_events_in_wait_list,
                               const cl_event *event_wait_list, cl_event *event)
{
    const sort_call c = {src,       NULL,       dst, NULL, src_offset, 0, dst_offset, 0, n,
                         key_type, CLSCAN_UINT32, 0,   "src", "dst"};
    return sort(ctx, queue, &c, num_events_in_wait_list, event_wait_list, event);
}

clscan_status clscan_sort_pairs(clscan_context *ctx, cl_command_queue queue, cl_mem keys,
                                size_t keys_offset, cl_mem values, size_t values_offset,
                                cl_mem keys_out, size_t keys_out_offset, cl_mem values_out,
                                size_t values_out_offset, size_t n, clscan_type key_type,
                                clscan_type value_type, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *event)
{
    const sort_call c = {keys,        values,          keys_out,          values_out,
                         keys_offset, values_offset,   keys_out_offset,   values_out_offset,
                         n,           key_type,        value_type,        1,
                         "keys",      "keys_out"};
    return sort(ctx, queue, &c, num_events_in_wait_list, event_wait_list, event);
}
