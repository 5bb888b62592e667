/* lookback.c - the host side of the single-pass look-back: whether n elements fit, the
 * status words a call needs, and clearing or reusing them by epochs. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

/* Bytes before the first status word (cl/clscan_lookback.cl: CLSCAN_LB_HEADER_WORDS);
 * the tile counter is its first cl_uint, the statistics its cl_uints 8 to 10. */
#define LB_HEADER_BYTES 128
#define LB_STATS_OFFSET 8

bool clscan__lookback_fits(const clscan__scan_config *cfg, cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    return cfg->algo == CLSCAN__SCAN_SINGLE_PASS && (n + tile - 1) / tile < 0xffffffffull;
}

/* A header, then per tile the value split over words that each carry a tag (2 bytes of
 * word per value byte, either width). */
size_t clscan__lookback_bytes(const clscan__scan_config *cfg, cl_ulong n)
{
    const cl_ulong tile = (cl_ulong)cfg->wg_size * cfg->items;
    return LB_HEADER_BYTES + (size_t)((n + tile - 1) / tile) * 2 * clscan__config_elem_bytes(cfg);
}

clscan_status clscan__lookback_begin(clscan__launch *l, clscan__program *prog,
                                     clscan__lookback_args *out)
{
    const clscan__scan_config *cfg = &prog->config;
    clscan__scratch *slot = l->scratch;
    const cl_uint max_epoch = (1u << (cfg->lb_word_bits / 2 - 2)) - 1;
    if (!slot->lb_clean || slot->lb_word_bits != cfg->lb_word_bits ||
        slot->lb_epoch >= max_epoch) {
        clscan_status s = clscan__enqueue_clear(l, prog, slot->buffer, slot->size / 4);
        if (s != CLSCAN_SUCCESS) return s;
        slot->lb_clean = 1;
        slot->lb_word_bits = cfg->lb_word_bits;
        slot->lb_epoch = 0;
    }
    cl_mem hook = clscan__lookback_stats_buffer();
    out->state = slot->buffer;
    out->epoch = ++slot->lb_epoch;
    out->spins = l->ctx->target.profile.lb_spins;
    out->stats = hook; /* (NULL: the kernels count in the status buffer's header) */
    out->stats_off = hook ? 0 : LB_STATS_OFFSET;
    return CLSCAN_SUCCESS;
}
