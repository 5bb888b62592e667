/* clscan_clear.cl - clscan_clear_words, the kernel that zeroes a range of a buffer where
 * the library needs zeros it will read back (the single-pass look-back's status words,
 * the one-sweep sort's counts). A kernel rather than clEnqueueFillBuffer: Oclgrind 21.10
 * counts filled memory as uninitialised (docs/IMPLEMENTATION-ISSUES.md). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_CLEAR_CL
#define CLSCAN_CLEAR_CL

/* words[0, n) = 0, by any number of work-items of any group size. */
__kernel void clscan_clear_words(__global uint *words, ulong n)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) words[i] = 0u;
}

#endif /* CLSCAN_CLEAR_CL */
