/* prof-time.h - what the profiling tools of tools/prof share: a monotonic clock in
 * microseconds and a comparison of doubles for qsort (medians of rounds). A header of
 * static functions, so that each tool still builds from its one .c file. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_PROF_TIME_H
#define CLSCAN_PROF_TIME_H
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
#endif
