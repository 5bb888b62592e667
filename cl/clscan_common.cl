/* clscan_common.cl - the knobs every libclscan kernel is specialised on, each with a
 * default so the file compiles on its own, and the padding used against bank conflicts. */
#ifndef CLSCAN_COMMON_CL
#define CLSCAN_COMMON_CL

/* Element type, combine operator and its identity (the library generates these).
 * CLSCAN_OP may evaluate each argument more than once (integer MIN is a ?: expression):
 * pass it plain values, never calls. */
#ifndef CLSCAN_T
#define CLSCAN_T int
#define CLSCAN_OP(a, b) as_int(as_uint(a) + as_uint(b))
#define CLSCAN_IDENTITY ((int)0)
#define CLSCAN_TYPE_ID 0
#define CLSCAN_OP_ID 0
#endif

/* CLSCAN_TYPE_ID 5 is double. */
#if CLSCAN_TYPE_ID == 5
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Work-items per work-group (a power of two) and elements each one owns. */
#ifndef CLSCAN_WG_SIZE
#define CLSCAN_WG_SIZE 128
#endif
#ifndef CLSCAN_ITEMS
#define CLSCAN_ITEMS 4
#endif
#define CLSCAN_TILE (CLSCAN_WG_SIZE * CLSCAN_ITEMS)

/* Bank-conflict padding: one extra slot after every 2^CLSCAN_LOG_BANKS elements, so
 * that work-items walking local memory with a power-of-two stride land in different
 * banks. 0 turns padding off (devices whose local memory is ordinary memory). */
#ifndef CLSCAN_LOG_BANKS
#define CLSCAN_LOG_BANKS 0
#endif
#if CLSCAN_LOG_BANKS > 0
#define CLSCAN_PAD(i) ((i) + ((i) >> CLSCAN_LOG_BANKS))
#define CLSCAN_PADDED(n) ((n) + ((n) >> CLSCAN_LOG_BANKS))
#else
#define CLSCAN_PAD(i) (i)
#define CLSCAN_PADDED(n) (n)
#endif

#endif /* CLSCAN_COMMON_CL */
