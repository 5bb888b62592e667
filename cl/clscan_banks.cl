/* clscan_banks.cl - the local-memory bank probe: one work-group chases pointers through
 * local memory at a given stride, so that src/banks.c can time where reads conflict. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_BANKS_CL
#define CLSCAN_BANKS_CL

/* Words (uint) of local memory the probe declares: at least 64 lanes x the largest
 * stride the host asks for. The host sets it; the default is 64 x stride 64 (16 KiB). */
#ifndef CLSCAN_BANKS_WORDS
#define CLSCAN_BANKS_WORDS 4096
#endif
/* Distinct addresses: work-item i reads word (i % CLSCAN_BANKS_LANES) * stride. */
#define CLSCAN_BANKS_LANES 64u
/* Independent chains per work-item, so that the loads overlap: throughput, not latency,
 * must decide the time, so that a conflict of degree k costs about k times as much. */
#ifndef CLSCAN_BANKS_CHAINS
#define CLSCAN_BANKS_CHAINS 8
#endif

/* Every word holds its own index, so `idx = buf[idx]` stays on the lane's address yet
 * is a load the compiler cannot fold or hoist: each iteration waits on the previous
 * one. `key` must be 0 at run time (it only keeps the compiler from proving that the
 * chains start at the same address and merging them); any value stays in bounds.
 * out[get_local_id(0)] receives the sum of the chains' last indices. Launch one
 * work-group; `stride` * 64 must not exceed CLSCAN_BANKS_WORDS. */
__kernel void clscan_bank_probe(__global uint *out, uint stride, uint iterations, uint key)
{
    __local uint buf[CLSCAN_BANKS_WORDS];
    const uint lid = (uint)get_local_id(0);
    const uint n = (uint)get_local_size(0);
    for (uint j = lid; j < CLSCAN_BANKS_WORDS; j += n) buf[j] = j;
    barrier(CLK_LOCAL_MEM_FENCE);

    const uint base = (lid % CLSCAN_BANKS_LANES) * stride;
    uint idx[CLSCAN_BANKS_CHAINS];
    for (uint c = 0; c < CLSCAN_BANKS_CHAINS; ++c)
        idx[c] = (base + c * key) % CLSCAN_BANKS_WORDS;
    for (uint it = 0; it < iterations; ++it)
        for (uint c = 0; c < CLSCAN_BANKS_CHAINS; ++c) idx[c] = buf[idx[c]];
    uint sum = 0;
    for (uint c = 0; c < CLSCAN_BANKS_CHAINS; ++c) sum += idx[c];
    out[lid] = sum;
}

#endif /* CLSCAN_BANKS_CL */
