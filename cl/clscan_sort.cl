/* clscan_sort.cl - radix sort kernels (being written). */
