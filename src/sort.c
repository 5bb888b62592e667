/* sort.c - radix sort (being written). */
#include "clscan_internal.h"
