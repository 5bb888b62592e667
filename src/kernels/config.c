/* config.c - what a program is specialised on: the launch shape of a scan, compaction
 * or general scan for a type on a profile, fitted to local memory and the device's
 * limits, and the sizes that follow from a shape. */
/* SPDX-License-Identifier: MIT */
#include "kernels/kernels.h"

#include <string.h>

/* Bytes of one element of the scan type of cfg's program. */
size_t clscan__config_elem_bytes(const clscan__scan_config *cfg)
{
    return cfg->elem_bytes ? cfg->elem_bytes : clscan_type_size(cfg->type);
}

static unsigned log2u(size_t x)
{
    unsigned l = 0;
    while (x > 1) {
        x >>= 1;
        ++l;
    }
    return l;
}

unsigned clscan__pad_shift(const clscan__profile *p, size_t elem_bytes)
{
    if (!p->padding || p->local_banks <= 1) return 0;
    unsigned shift = log2u(p->local_banks);
    /* An element wider than a bank covers elem_bytes / bank_width of them, so a row of
     * banks holds that many times fewer elements (sizes that are powers of two). Padded
     * by the row's count of 4-byte elements instead, 8-byte ones put two work-items of a
     * half-warp in one bank in the tile's serial steps (docs/ALGORITHMS.md). */
    const size_t w = p->bank_width;
    if (w && elem_bytes > w && (elem_bytes & (elem_bytes - 1)) == 0) {
        const unsigned span = log2u(elem_bytes / w);
        shift = shift > span ? shift - span : 1;
    }
    return shift;
}

/* Whether the sub-group layer shuffles through local memory (cl/clscan_subgroup.cl:
 * CLSCAN_SG_SHUFFLE_IN_LOCAL). */
static int sg_shuffles_in_local(const clscan__scan_config *cfg, const clscan__profile *p)
{
    return cfg->sg_impl == CLSCAN__SG_LOCAL ||
           (cfg->sg_impl == CLSCAN__SG_KHR && !p->sg_khr_shuffle_relative);
}

bool clscan__lookback_ordered(const clscan__scan_config *cfg)
{
    return cfg->kind == CLSCAN__PROGRAM_GENERAL || clscan__type_is_float(cfg->type);
}

bool clscan__sg_khr_ballot(const clscan__scan_config *cfg, const clscan__profile *p)
{
    return cfg->sg_impl == CLSCAN__SG_INTEL && cfg->sg_width == 32 && cfg->wg_size >= 32 &&
           clscan__has_token(p->extensions, "cl_khr_subgroup_ballot");
}

/* Whether a compaction program of cfg ranks its elements by ballots of sub-groups of 32
 * (CLSCAN_SEL_BALLOT of cl/clscan_select_tile.cl): NVIDIA's warps, or Intel's sub-groups
 * with the KHR ballot. */
static bool select_ballots(const clscan__scan_config *cfg, const clscan__profile *p)
{
    return cfg->select &&
           (cfg->sg_impl == CLSCAN__SG_NVIDIA || clscan__sg_khr_ballot(cfg, p)) &&
           cfg->sg_width == 32 && cfg->wg_size >= 32 && cfg->items <= 32;
}

size_t clscan__scan_local_bytes(const clscan__scan_config *cfg, const clscan__profile *p)
{
    size_t tile = cfg->wg_size * cfg->items, scratch = cfg->wg_size;
    if (cfg->log_banks) {
        tile += tile >> cfg->log_banks;
        scratch += scratch >> cfg->log_banks;
    }
    if (cfg->wg_algo == CLSCAN__WG_SUBGROUP) {
        /* CLSCAN_WG_SCRATCH of cl/clscan_workgroup.cl. */
        size_t sg = cfg->sg_width < cfg->wg_size ? cfg->sg_width : cfg->wg_size;
        scratch = (sg_shuffles_in_local(cfg, p) ? cfg->wg_size : 0) + 2 * (cfg->wg_size / sg);
    }
    /* A compaction whose ranks come from ballots keeps one count per (row, warp) instead
     * of the tile (CLSCAN_SEL_BALLOT of cl/clscan_select_tile.cl). */
    size_t edges = 0;
    if (select_ballots(cfg, p)) {
        tile = cfg->items * (cfg->wg_size / 32);
        /* unique and run-length encoding: an element per row and warp (CLSCAN_SEL_EDGES) */
        if (cfg->select == CLSCAN__SELECT_UNIQUE || cfg->select == CLSCAN__SELECT_RUNS)
            edges = tile * clscan_type_size(cfg->elem_type);
        /* the tile's elements (CLSCAN_SEL_STASH) */
        if (cfg->sel_stash) edges += cfg->wg_size * cfg->items * clscan_type_size(cfg->elem_type);
    }
    const size_t elem = clscan__config_elem_bytes(cfg);
    size_t bytes = (tile + scratch) * elem + edges;
    /* A general program's segmented tile of values and heads (clscan_general.cl). */
    if (cfg->kind == CLSCAN__PROGRAM_GENERAL && cfg->value_bytes)
        bytes = tile * cfg->value_bytes + cfg->wg_size * (cfg->items + 4) + scratch * elem;
    if (cfg->select && cfg->algo == CLSCAN__SCAN_SINGLE_PASS && cfg->wg_size == 1) {
        bytes += cfg->items * clscan_type_size(cfg->elem_type); /* clscan_sel_single's stage */
        if (cfg->select == CLSCAN__SELECT_RUNS) bytes += cfg->items * 4; /* and heads */
    }
    if (cfg->algo == CLSCAN__SCAN_SINGLE_PASS) { /* clscan_lb_local and the ticket */
        const size_t window = cfg->wg_size < 32 ? cfg->wg_size : 32;
        /* the window's values and kinds, and where the order is fixed
         * (CLSCAN_LB_ORDERED: floats, general scans) CLSCAN_LB_NEAR = 8 windows of
         * totals; acc, and where the order is fixed the walk in blocks' block_prefix */
        const size_t near = clscan__lookback_ordered(cfg) ? 8 : 0;
        bytes += window * ((1 + near) * elem + 4) + 32 + (near ? 2 : 1) * elem;
    }
    return bytes;
}

cl_ulong clscan__scan_tile_iterations(const clscan__scan_config *cfg)
{
    /* load, reduce, scan and store loops over the items, the two sweeps, the tile loop
     * itself and a margin for loops the compiler adds. */
    return 4ull * cfg->items + 2ull * log2u(cfg->wg_size) + 16;
}

/* Makes the sub-group fields of c fit its work-group size: a native implementation
 * needs whole sub-groups, so a group narrower than one falls back to local memory and
 * Blelloch; emulated sub-groups are capped at the group. */
void clscan__config_subgroups_fit(clscan__scan_config *c)
{
    if (c->sg_impl != CLSCAN__SG_LOCAL && c->sg_width > c->wg_size) {
        c->sg_impl = CLSCAN__SG_LOCAL;
        c->wg_algo = CLSCAN__WG_BLELLOCH;
    }
    if (c->sg_impl == CLSCAN__SG_LOCAL && c->sg_width > c->wg_size) c->sg_width = (cl_uint)c->wg_size;
}

static void config_subgroups(clscan__scan_config *c, const clscan__profile *p)
{
    c->wg_algo = p->wg_algo;
    c->sg_impl = p->sg_impl;
    c->sg_width = p->sg_width ? p->sg_width : 1;
    clscan__config_subgroups_fit(c);
}

cl_ulong clscan__local_budget(const clscan__profile *p)
{
    return p->local_mem_size > 1024 ? p->local_mem_size - 256 : p->local_mem_size;
}

/* Shrinks c's tile (items first, then the work-group) until it fits the device's local
 * memory and loop budget. */
static clscan_status config_fit(const clscan_context *ctx, const clscan__profile *p,
                                clscan__scan_config *c)
{
    const cl_ulong budget = clscan__local_budget(p);
    /* Where loops are limited, a tile must leave room for many tiles per work-item. */
    while (p->max_loop_iterations && c->items > 1 &&
           clscan__scan_tile_iterations(c) * 8 > p->max_loop_iterations)
        c->items /= 2;
    while (clscan__scan_local_bytes(c, p) > budget) {
        if (c->items > 1) c->items /= 2;
        else if (c->wg_size > 1) {
            c->wg_size /= 2;
            clscan__config_subgroups_fit(c);
        } else
            return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES,
                                "no scan tile fits in %llu bytes of local memory",
                                (unsigned long long)p->local_mem_size);
    }
    return CLSCAN_SUCCESS;
}

/* The look-back's atomics mode for a single-pass program whose status values are
 * value_bytes each: the profile's mode for values of whole pairs of words
 * (lb_atomics_pair) where a value is a multiple of 8 bytes in 64-bit words, else the
 * one for the rest. */
static clscan__lb_atomics lb_atomics_for(const clscan__profile *p, size_t value_bytes)
{
    return value_bytes % 8 == 0 && p->lb_word_bits == 64 ? p->lb_atomics_pair : p->lb_atomics;
}

/* A plain single-pass scan on NVIDIA's warps: for integers sub-group 0 walks its
 * look-back (the kernels' own choice for integers is the work-group, whose two barriers a
 * window cost the few-tile calls most) under the profile's register cap, which keeps the
 * walk's registers from costing work-groups a multiprocessor (uncapped, int64 took 58
 * registers to the group walk's 40). On the H200 int32 exclusive sums took 0.80-0.97x
 * the time at 2^20, 0.85-0.87x at 2^22, 0.94-0.97x at 2^24 and 0.94-0.95x at 2^28, int64
 * 0.81x at 2^20 to 0.98x at 2^28 (docs/PERFORMANCE.md, thirtieth session). The float
 * and double scans, whose ordered look-back sub-group 0 already walks in blocks, take the
 * same caps (uncapped, ptxas gave both 64 registers): float inclusive sums 0.95x the time
 * at 2^24 and 2^28, double 0.93-0.95x at 2^24 and 2^27 (thirty-third session). A profile
 * whose walk is forced (CLSCAN_LOOKBACK_WALK) keeps it, uncapped. */
static void plain_scan_walk(const clscan__profile *p, clscan__scan_config *c)
{
    if (c->algo != CLSCAN__SCAN_SINGLE_PASS || c->sg_impl != CLSCAN__SG_NVIDIA ||
        p->lb_walk != CLSCAN__LB_WALK_AUTO)
        return;
    if (!clscan__type_is_float(c->type)) c->lb_walk = CLSCAN__LB_WALK_SUBGROUP;
    c->ptx_maxnreg =
        clscan_type_size(c->type) == 8 ? p->scan_max_registers_8 : p->scan_max_registers;
}

/* The shape every program of the scan layers starts from (a plain scan's, before the
 * plain scans' own rule; compaction and general programs build on it). */
static clscan_status base_config_choose(const clscan_context *ctx, const clscan__profile *p,
                                        clscan__scan_algo algo, clscan_type type, clscan_op op,
                                        clscan__scan_config *out)
{
    clscan__scan_config c;
    memset(&c, 0, sizeof c);
    c.type = type;
    c.op = op;
    c.algo = algo;
    c.wg_size = c.algo == CLSCAN__SCAN_SINGLE_PASS ? p->sp_wg_size : p->wg_size;
    const bool wide = clscan_type_size(type) == 8;
    if (c.algo == CLSCAN__SCAN_SINGLE_PASS) c.items = wide ? p->sp_items_8 : p->sp_items;
    else c.items = wide ? p->items_per_thread_8 : p->items_per_thread;
    if (c.algo == CLSCAN__SCAN_SINGLE_PASS) {
        c.lb_atomics = lb_atomics_for(p, clscan_type_size(type));
        c.lb_word_bits = p->lb_word_bits;
        c.lb_test = p->lb_test;
        c.lb_walk = p->lb_walk;
    }
    c.log_banks = clscan__pad_shift(p, clscan_type_size(type));
    config_subgroups(&c, p);
    *out = c;
    return config_fit(ctx, p, out);
}

clscan_status clscan__scan_config_choose(const clscan_context *ctx, const clscan__profile *p,
                                         clscan__scan_algo algo, clscan_type type,
                                         clscan_op op, clscan__scan_config *out)
{
    const clscan_status s = base_config_choose(ctx, p, algo, type, op, out);
    if (s == CLSCAN_SUCCESS) plain_scan_walk(p, out);
    return s;
}

/* NVIDIA's single-pass compactions: a register cap that lets more work-groups onto each
 * multiprocessor. 4-byte elements: run-length encoding took 80 registers uncapped, three
 * work-groups of 256, under 64 four: on the H200, run-length encoding of int32 took 0.90x
 * the time at 2^28, select-if and select-flagged (48, their elements stashed)
 * 0.95-0.96x, partition 0.98x (docs/PERFORMANCE.md, thirty-first session). Unique,
 * whose elements are stashed (clscan__select_config_choose), takes select-if's 48 (64
 * uncapped, four work-groups; five under 48): int32 and float unique 0.92x the time at
 * 2^28 and 0.97-0.99x at 2^24 (thirty-seventh session; kept in registers it lost under
 * every cap, thirtieth); so do 8-byte elements' run-length encoding, also stashed:
 * int64 and double keys 0.91-0.95x the time at 2^24 and 2^28, 8-byte unique 0.87-0.92x
 * (thirty-sixth session; the stash alone kept 64 registers and was slower, and caps
 * without it spilled or lost). Select-if and select-flagged of 8-byte elements keep none
 * (no change under 48). A forced walk (CLSCAN_LOOKBACK_WALK) leaves the programs
 * uncapped. */
static void compaction_register_cap(const clscan__profile *p, clscan__scan_config *c)
{
    if (c->algo != CLSCAN__SCAN_SINGLE_PASS || c->sg_impl != CLSCAN__SG_NVIDIA ||
        p->lb_walk != CLSCAN__LB_WALK_AUTO)
        return;
    const int wide = clscan_type_size(c->elem_type) == 8;
    if (c->select == CLSCAN__SELECT_UNIQUE || (c->select == CLSCAN__SELECT_RUNS && wide)) {
        if (c->sel_stash) c->ptx_maxnreg = p->select_max_registers;
    } else if (c->select == CLSCAN__SELECT_RUNS) {
        c->ptx_maxnreg = p->runs_max_registers;
    } else if (!wide && clscan_type_size(c->type) == 4) {
        c->ptx_maxnreg = p->select_max_registers;
    }
}

clscan_status clscan__select_config_choose(const clscan_context *ctx, const clscan__profile *p,
                                           clscan__scan_algo algo, clscan__select_mode mode,
                                           clscan_type elem_type, clscan_type count_type,
                                           const char *predicate, clscan__scan_config *out)
{
    /* Run-length encoding scans a count and a place in a ulong (count_type UINT64), but
     * its tile takes the shape of a compaction with 4-byte counts: each work-item's
     * elements, not their ulongs, are what it holds (where ballots rank them). */
    const int runs = mode == CLSCAN__SELECT_RUNS;
    clscan_status s = base_config_choose(ctx, p, algo, runs ? CLSCAN_UINT32 : count_type,
                                         CLSCAN_OP_ADD, out);
    if (s != CLSCAN_SUCCESS) return s;
    if (runs) {
        out->type = count_type;
        out->op = CLSCAN__OP_ID_RUNS;
    }
    out->select = mode;
    out->elem_type = elem_type;
    /* (Counts of 8 bytes, run-length encoding's pair or those of 2^32 elements and more,
     * take two words: run-length encoding was 5-7% faster from 2^20 with PTX words on
     * the H200; docs/PERFORMANCE.md, eleventh session.) */
    if (algo == CLSCAN__SCAN_SINGLE_PASS)
        out->lb_atomics = lb_atomics_for(p, clscan_type_size(count_type));
    out->predicate =
        mode == CLSCAN__SELECT_IF || mode == CLSCAN__SELECT_PARTITION ? predicate : NULL;
    /* Each work-item holds its elements in registers between the two phases: 8-byte
     * elements halve the items, as 8-byte counts already did. */
    if (clscan_type_size(elem_type) == 8 && (runs || clscan_type_size(count_type) == 4) &&
        out->items > 1)
        out->items /= 2;
    if ((s = config_fit(ctx, p, out)) != CLSCAN_SUCCESS) /* with what compaction adds */
        return s;
    /* Elements in local memory between the phases where ballots rank them and the fitted
     * tile leaves room (held in registers, they kept the select kernel at 64 registers on
     * the H200, four work-groups a multiprocessor; stashed, 48: select-if 7-9% faster at
     * 2^24 and 2^28, select-flagged 13-15%; docs/PERFORMANCE.md, twentieth session).
     * Run-length encoding of 4-byte elements shuffles them across lanes and keeps them
     * in registers (stashed, it was 3-9% slower, under every cap too: thirty-sixth
     * session); of 8-byte elements it stashes them, as unique does, under a register cap
     * (compaction_register_cap). */
    if (select_ballots(out, p) && (!runs || clscan_type_size(elem_type) == 8)) {
        out->sel_stash = 1;
        if (clscan__scan_local_bytes(out, p) > clscan__local_budget(p)) out->sel_stash = 0;
    }
    compaction_register_cap(p, out);
    return CLSCAN_SUCCESS;
}

bool clscan__tiles_leave_units_idle(const clscan__profile *p, cl_ulong tile, cl_ulong n)
{
    return n < tile * p->compute_units;
}

clscan_status clscan__general_config_choose(const clscan_context *ctx, const clscan__profile *p,
                                            clscan__scan_algo algo, clscan_type type,
                                            size_t elem_bytes, size_t value_bytes,
                                            const char *prelude, clscan__scan_config *out)
{
    clscan_status s = base_config_choose(ctx, p, algo, CLSCAN_UINT32, CLSCAN_OP_ADD, out);
    if (s != CLSCAN_SUCCESS) return s;
    out->kind = CLSCAN__PROGRAM_GENERAL;
    out->type = type;
    out->op = CLSCAN__OP_ID_CUSTOM;
    out->elem_bytes = elem_bytes;
    out->prelude = prelude;
    if (algo == CLSCAN__SCAN_SINGLE_PASS) out->lb_atomics = lb_atomics_for(p, elem_bytes);
    const clscan__scan_config start = *out;
    /* The segmented tile of values and head bits (cl/clscan_general_tile.cl:
     * CLSCAN_GEN_VALUE_TILE) takes a group of several work-items and at most 32 items a
     * work-item, a multiple of 4; where the fitted shape is not one, the pairs'. */
    for (int values = value_bytes && out->wg_size > 1; values >= 0; --values) {
        *out = start;
        const size_t tiled = values ? value_bytes : elem_bytes;
        out->value_bytes = values ? (cl_uint)value_bytes : 0;
        out->log_banks = clscan__pad_shift(p, tiled); /* (a segmented scan's pairs: 8+) */
        /* About as many bytes per work-item as a tile of 4-byte elements holds. */
        const size_t budget = 4 * (size_t)out->items;
        while (out->items > 1 && (out->items * tiled > budget || (values && out->items > 32)))
            out->items /= 2;
        s = config_fit(ctx, p, out);
        if (!values || (s == CLSCAN_SUCCESS && out->wg_size > 1 && out->items % 4 == 0))
            return s;
    }
    return s;
}

const char *clscan__select_mode_name(clscan__select_mode mode)
{
    static const char *const names[] = {"scan", "select-flagged", "select-if", "partition-if",
                                        "unique", "run-length-encode"};
    return (unsigned)mode < sizeof names / sizeof names[0] ? names[mode] : "invalid";
}

/* (A field added to clscan__scan_config must be added here too: the size check below,
 * made on 64-bit builds, fails until it is, since a field left out would let two
 * shapes share a program.) */
_Static_assert(sizeof(void *) != 8 || sizeof(clscan__scan_config) == 136,
               "clscan__scan_config changed: update clscan__config_fingerprint");
void clscan__config_fingerprint(const clscan__scan_config *cfg, clscan__scan_config *out)
{
    memset(out, 0, sizeof *out);
    out->kind = cfg->kind;
    out->type = cfg->type;
    out->op = cfg->op;
    out->wg_size = cfg->wg_size;
    out->items = cfg->items;
    out->log_banks = cfg->log_banks;
    out->wg_algo = cfg->wg_algo;
    out->sg_impl = cfg->sg_impl;
    out->sg_width = cfg->sg_width;
    out->algo = cfg->algo;
    out->lb_atomics = cfg->lb_atomics;
    out->lb_word_bits = cfg->lb_word_bits;
    out->lb_test = cfg->lb_test;
    out->lb_walk = cfg->lb_walk;
    out->select = cfg->select;
    out->elem_type = cfg->elem_type;
    out->elem_bytes = cfg->elem_bytes;
    out->value_bytes = cfg->value_bytes;
    out->sort_onesweep = cfg->sort_onesweep;
    out->sort_buckets = cfg->sort_buckets;
    out->sort_place_early = cfg->sort_place_early;
    out->ptx_maxnreg = cfg->ptx_maxnreg;
    out->sel_stash = cfg->sel_stash;
    out->hist_mode = cfg->hist_mode;
    out->hist_local_bins = cfg->hist_local_bins;
    out->hist_fused = cfg->hist_fused;
}
