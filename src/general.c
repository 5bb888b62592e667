/* general.c - general scans (being written). */
#include "clscan_internal.h"
