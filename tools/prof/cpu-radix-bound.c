/* cpu-radix-bound.c - what one core of this machine does for a radix sort of uint32 keys,
 * in plain C without OpenCL: four least-significant-digit passes over the whole range
 * (the CPU path of cl/clscan_sort.cl, one work-item), against one pass by the most
 * significant digit and then each of its 256 buckets sorted by the other three digits
 * on its own (in cache). A profiling aid for the CPU sort: docs/PERFORMANCE.md.
 * Usage: cpu-radix-bound [log2n]; cc -O2 cpu-radix-bound.c -o cpu-radix-bound */
/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One stable pass by the digit at `shift` of m keys, from `from` to `to`. */
static void pass(const uint32_t *from, uint32_t *to, size_t m, int shift)
{
    size_t at[256] = {0}, run = 0;
    for (size_t i = 0; i < m; i++) at[(from[i] >> shift) & 255]++;
    for (int d = 0; d < 256; d++) {
        const size_t x = at[d];
        at[d] = run;
        run += x;
    }
    for (size_t i = 0; i < m; i++) to[at[(from[i] >> shift) & 255]++] = from[i];
}

static int sorted(const uint32_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (a[i - 1] > a[i]) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    const int lg = argc > 1 ? atoi(argv[1]) : 24;
    const size_t n = (size_t)1 << lg;
    uint32_t *in = malloc(n * 4), *a = malloc(n * 4), *b = malloc(n * 4);
    if (!in || !a || !b) return 1;
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        in[i] = (uint32_t)s;
    }
    memset(b, 0, n * 4);
    for (int round = 0; round < 3; round++) {
        double t0 = now_ms();
        memcpy(a, in, n * 4);
        const double copy = now_ms() - t0;
        t0 = now_ms();
        for (int p = 0; p < 4; p++) {
            pass(a, b, n, 8 * p);
            uint32_t *t = a;
            a = b;
            b = t;
        }
        const double lsd = now_ms() - t0;
        const int lsd_ok = sorted(a, n);
        memcpy(a, in, n * 4);
        t0 = now_ms();
        size_t start[257] = {0};
        for (size_t i = 0; i < n; i++) start[(a[i] >> 24) + 1]++;
        for (int d = 0; d < 256; d++) start[d + 1] += start[d];
        pass(a, b, n, 24);
        const double msd = now_ms() - t0;
        for (int d = 0; d < 256; d++) {
            const size_t m = start[d + 1] - start[d];
            pass(b + start[d], a + start[d], m, 0);
            pass(a + start[d], b + start[d], m, 8);
            pass(b + start[d], a + start[d], m, 16);
        }
        const double both = now_ms() - t0;
        printf("2^%d keys: copy of the keys %.2f ms; four passes %.2f ms%s; one pass by the "
               "top digit %.2f ms, then the buckets %.2f ms: %.2f ms%s\n",
               lg, copy, lsd, lsd_ok ? "" : " (NOT SORTED)", msd, both - msd, both,
               sorted(a, n) ? "" : " (NOT SORTED)");
    }
    free(in);
    free(a);
    free(b);
    return 0;
}
