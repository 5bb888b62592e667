/* mpi_scan.c - example: one array distributed over MPI ranks, prefix-summed as a whole.
 * Each rank owns a contiguous part (parts differ in size; one may be empty) on its own
 * OpenCL device and takes three steps: (1) clscan_inclusive_scan_carry with dst NULL
 * reduces the part to its total in a device buffer; (2) the rank reads that one value
 * back and MPI_Exscan combines the totals, giving each rank the sum of everything before
 * its part; (3) clscan_exclusive_scan_carry (or inclusive) scans the part from that
 * carry-in, so the part holds its slice of the global scan. Every rank then checks its
 * slice against a host reference of the whole array, which every rank can generate from
 * the seed (element i is splitmix64 of seed and i).
 *
 * usage: mpirun -n 3 mpi_scan [--inclusive] [--type int32|int64|float] [--platform P]
 *                             [--empty-rank R] [n [seed]]
 *   n         elements of the whole array (default 1000003), split over the ranks in
 *             proportion to rank + 1; rank R of --empty-rank gets none (unless it is
 *             the only rank)
 *   seed      for the data (default: the time, chosen by rank 0); printed in the summary
 *   --type    int64 (default) or int32 add, exact (wrapping); or float add, which the
 *             device combines in another order than the reference, so it is checked
 *             with a tolerance
 *   --platform P  look for devices on platform P only (an index of clGetPlatformIDs);
 *             by default every platform. Each rank takes the GPUs, else the CPU
 *             devices, else any device, and of those number (node-local rank % count).
 * Exits 0 when every rank's slice is right, 1 on a wrong element or a failed call
 * anywhere, 2 on bad arguments. */
/* SPDX-License-Identifier: MIT */
#include <clscan.h>
#include <mpi.h>

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE_SIZE 256 /* one rank's report line, gathered to rank 0 */

/* One element or carry of any of the three types. */
typedef union value {
    cl_int i32;
    cl_long i64;
    cl_float f32;
    cl_uint u32;
    cl_ulong u64;
} value;

typedef struct type_info {
    const char *name;
    clscan_type type;
    /* Integer totals are combined as unsigned: the same bits as a wrapping signed sum,
     * without the signed overflow that C (and so MPI_SUM) leaves undefined. */
    MPI_Datatype mpi_type;
} type_info;

/* What one rank holds: all of it released by release_rank, whatever got created. */
typedef struct rank_state {
    int rank, size;
    cl_context cl_ctx;
    cl_command_queue queue;
    clscan_context *scan;
    cl_mem src, dst, total;
    cl_event reduced, scanned;
    void *host_src, *host_dst;
    char device_name[96];
} rank_state;

/* Element i of the global array: splitmix64 of the seed's i-th step, cut to the type.
 * Integers lie in [0, 2^20), so int64 sums stay readable (int32 ones wrap past about
 * 4096 elements, which is checked exactly too); floats are multiples of 2^-24 in [0, 1),
 * exact in a float. */
static value element(clscan_type type, uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    value v;
    memset(&v, 0, sizeof v);
    if (type == CLSCAN_INT32)
        v.u32 = (cl_uint)(z >> 44);
    else if (type == CLSCAN_INT64)
        v.u64 = z >> 44;
    else
        v.f32 = (cl_float)(z >> 40) * 0x1p-24f;
    return v;
}

static void format_value(clscan_type type, value v, char *buf, size_t size)
{
    if (type == CLSCAN_INT32)
        snprintf(buf, size, "%d", (int)v.i32);
    else if (type == CLSCAN_INT64)
        snprintf(buf, size, "%lld", (long long)v.i64);
    else
        snprintf(buf, size, "%.9g", (double)v.f32);
}

static int cl_failed(const rank_state *r, cl_int err, const char *what)
{
    if (err == CL_SUCCESS) return 0;
    fprintf(stderr, "mpi_scan: rank %d: %s failed: %s (%d)\n", r->rank, what,
            clscan_status_string(err), err);
    return 1;
}

static int scan_failed(const rank_state *r, clscan_status s, const char *what)
{
    if (s == CLSCAN_SUCCESS) return 0;
    fprintf(stderr, "mpi_scan: rank %d: %s failed: %s (%d): %s\n", r->rank, what,
            clscan_status_string(s), s, clscan_context_last_error(r->scan));
    return 1;
}

/* Finds device number `pick` (modulo their count) among the GPUs of the platforms
 * considered (platform P only when P >= 0), else among their CPU devices, else among
 * all their devices. */
static cl_int pick_device(int platform_index, unsigned pick, cl_device_id *out)
{
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    if (err != CL_SUCCESS) return err;
    if (nplat == 0) return CL_DEVICE_NOT_FOUND;
    cl_platform_id *plats = malloc(nplat * sizeof *plats);
    if (!plats) return CL_OUT_OF_HOST_MEMORY;
    err = clGetPlatformIDs(nplat, plats, NULL);
    cl_uint first = 0, last = nplat;
    if (platform_index >= 0) {
        if ((cl_uint)platform_index >= nplat) err = CL_INVALID_PLATFORM;
        first = (cl_uint)platform_index;
        last = first + 1;
    }
    static const cl_device_type kinds[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU,
                                           CL_DEVICE_TYPE_ALL};
    for (size_t k = 0; err == CL_SUCCESS && k < sizeof kinds / sizeof kinds[0]; ++k) {
        cl_uint total = 0;
        for (cl_uint p = first; p < last; ++p) {
            cl_uint count = 0;
            if (clGetDeviceIDs(plats[p], kinds[k], 0, NULL, &count) == CL_SUCCESS)
                total += count;
        }
        if (total == 0) continue;
        cl_uint want = pick % total;
        for (cl_uint p = first; p < last; ++p) {
            cl_uint count = 0;
            if (clGetDeviceIDs(plats[p], kinds[k], 0, NULL, &count) != CL_SUCCESS) continue;
            if (want < count) {
                cl_device_id *devs = malloc(count * sizeof *devs);
                if (!devs) {
                    err = CL_OUT_OF_HOST_MEMORY;
                } else {
                    err = clGetDeviceIDs(plats[p], kinds[k], count, devs, NULL);
                    if (err == CL_SUCCESS) *out = devs[want];
                    free(devs);
                }
                free(plats);
                return err;
            }
            want -= count;
        }
    }
    free(plats);
    return err == CL_SUCCESS ? CL_DEVICE_NOT_FOUND : err;
}

/* The context, queue, clscan context and buffers of a rank owning `count` elements from
 * `begin` on (the buffers hold at least one element: OpenCL has no empty buffer). */
static int setup(rank_state *r, const type_info *t, int platform_index, unsigned pick,
                 uint64_t seed, size_t begin, size_t count)
{
    cl_device_id dev;
    cl_int err = pick_device(platform_index, pick, &dev);
    if (err != CL_SUCCESS) {
        char what[64] = "finding an OpenCL device";
        if (platform_index >= 0)
            snprintf(what, sizeof what, "finding an OpenCL device on platform %d",
                     platform_index);
        cl_failed(r, err, what);
        return 1;
    }
    if (clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof r->device_name, r->device_name, NULL) !=
        CL_SUCCESS)
        snprintf(r->device_name, sizeof r->device_name, "?");
    r->device_name[sizeof r->device_name - 1] = '\0';
    r->cl_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (cl_failed(r, err, "clCreateContext")) return 1;
    r->queue = clCreateCommandQueue(r->cl_ctx, dev, 0, &err);
    if (cl_failed(r, err, "clCreateCommandQueue")) return 1;
    clscan_status s = clscan_context_create(r->cl_ctx, dev, &r->scan);
    if (s != CLSCAN_SUCCESS) {
        fprintf(stderr, "mpi_scan: rank %d: clscan_context_create failed: %s: %s\n", r->rank,
                clscan_status_string(s), clscan_context_last_error(NULL));
        return 1;
    }

    const size_t esize = clscan_type_size(t->type), bytes = (count ? count : 1) * esize;
    r->host_src = calloc(count ? count : 1, esize);
    r->host_dst = calloc(count ? count : 1, esize);
    if (!r->host_src || !r->host_dst) {
        fprintf(stderr, "mpi_scan: rank %d: out of host memory for %zu elements\n", r->rank,
                count);
        return 1;
    }
    for (size_t i = 0; i < count; ++i) {
        const value v = element(t->type, seed, begin + i);
        memcpy((char *)r->host_src + i * esize, &v, esize);
    }
    r->src = clCreateBuffer(r->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                            r->host_src, &err);
    if (cl_failed(r, err, "clCreateBuffer (src)")) return 1;
    r->dst = clCreateBuffer(r->cl_ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (cl_failed(r, err, "clCreateBuffer (dst)")) return 1;
    r->total = clCreateBuffer(r->cl_ctx, CL_MEM_READ_WRITE, esize, NULL, &err);
    if (cl_failed(r, err, "clCreateBuffer (total)")) return 1;
    return 0;
}

/* Step 1: the part's total, one element in r->total (the identity for an empty part),
 * read back into *total: one read of the part, no dst. */
static int reduce_part(rank_state *r, const type_info *t, size_t count, value *total)
{
    clscan_carry carry = {0};
    carry.out_buffer = r->total;
    carry.out_offset = 0;
    clscan_status s = clscan_inclusive_scan_carry(r->scan, r->queue, r->src, 0, NULL, 0, count,
                                                  t->type, CLSCAN_OP_ADD, &carry, 0, NULL,
                                                  &r->reduced);
    if (scan_failed(r, s, "clscan_inclusive_scan_carry (reduce, dst NULL)")) return 1;
    memset(total, 0, sizeof *total);
    return cl_failed(r,
                     clEnqueueReadBuffer(r->queue, r->total, CL_TRUE, 0,
                                         clscan_type_size(t->type), total, 1, &r->reduced,
                                         NULL),
                     "clEnqueueReadBuffer (total)");
}

/* Step 3: the part scanned from carry_in (NULL: none, on rank 0), read back. */
static int scan_part(rank_state *r, const type_info *t, int inclusive, size_t count,
                     const value *carry_in)
{
    clscan_carry carry = {0};
    carry.in_value = carry_in;
    clscan_status s =
        inclusive ? clscan_inclusive_scan_carry(r->scan, r->queue, r->src, 0, r->dst, 0, count,
                                                t->type, CLSCAN_OP_ADD, &carry, 0, NULL,
                                                &r->scanned)
                  : clscan_exclusive_scan_carry(r->scan, r->queue, r->src, 0, r->dst, 0, count,
                                                t->type, CLSCAN_OP_ADD, &carry, 0, NULL,
                                                &r->scanned);
    if (scan_failed(r, s, inclusive ? "clscan_inclusive_scan_carry"
                                    : "clscan_exclusive_scan_carry"))
        return 1;
    if (count == 0) return 0;
    return cl_failed(r,
                     clEnqueueReadBuffer(r->queue, r->dst, CL_TRUE, 0,
                                         count * clscan_type_size(t->type), r->host_dst, 1,
                                         &r->scanned, NULL),
                     "clEnqueueReadBuffer (dst)");
}

/* Step 4: the part's slice against the global scan computed on the host (the prefix
 * before the part first, then along it). Integers must match exactly. Floats must lie
 * within (2 * (2 ceil(log2(n + 1)) + 64) + ranks) * FLT_EPSILON * (sum of |x| up to
 * there) of the double-precision sum: the self-test's tolerance for one device's order,
 * for the part's reduction and for its scan, plus one rounding per rank for the float
 * additions of MPI_Exscan. (Measured on PoCL: about 50 FLT_EPSILON at 10^6 elements, 100
 * at 10^7. Beyond a running sum of 2^24, about 3.4 * 10^7 elements of this data, PoCL's
 * long serial runs per work-item stop adding elements below one half, and floats fail.)
 * Returns the number of wrong elements; reports the first five. */
static size_t verify_part(const rank_state *r, const type_info *t, int inclusive,
                          uint64_t seed, size_t n, size_t begin, size_t count)
{
    uint64_t isum = 0;
    double fsum = 0;
    for (size_t i = 0; i < begin; ++i) {
        const value v = element(t->type, seed, i);
        if (t->type == CLSCAN_FLOAT)
            fsum += v.f32;
        else
            isum += t->type == CLSCAN_INT32 ? (uint64_t)v.u32 : v.u64;
    }
    unsigned levels = 0; /* ceil(log2(n + 1)) */
    while (levels < 64 && (1ull << levels) < (unsigned long long)n + 1) ++levels;
    const double factor = 2.0 * (2.0 * levels + 64.0) + r->size;
    const size_t esize = clscan_type_size(t->type);
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i) {
        const value x = element(t->type, seed, begin + i);
        if (inclusive) {
            fsum += x.f32;
            isum += t->type == CLSCAN_INT32 ? (uint64_t)x.u32 : x.u64;
        }
        value got, want;
        memset(&want, 0, sizeof want);
        memcpy(&got, (const char *)r->host_dst + i * esize, esize);
        int wrong;
        if (t->type == CLSCAN_FLOAT) {
            /* every x >= 0, so the sum of |x| is the sum itself */
            want.f32 = (cl_float)fsum;
            const double diff = (double)got.f32 - fsum;
            wrong = !((diff < 0 ? -diff : diff) <= factor * FLT_EPSILON * fsum);
        } else if (t->type == CLSCAN_INT32) {
            want.u32 = (cl_uint)isum;
            wrong = got.u32 != want.u32;
        } else {
            want.u64 = isum;
            wrong = got.u64 != want.u64;
        }
        if (wrong && bad++ < 5) {
            char g[48], w[48];
            format_value(t->type, got, g, sizeof g);
            format_value(t->type, want, w, sizeof w);
            fprintf(stderr, "mpi_scan: rank %d: dst[%zu] (global %zu) = %s, expected %s\n",
                    r->rank, i, begin + i, g, w);
        }
        if (!inclusive) {
            fsum += x.f32;
            isum += t->type == CLSCAN_INT32 ? (uint64_t)x.u32 : x.u64;
        }
    }
    return bad;
}

static void release_rank(rank_state *r)
{
    if (r->scanned) clReleaseEvent(r->scanned);
    if (r->reduced) clReleaseEvent(r->reduced);
    if (r->total) clReleaseMemObject(r->total);
    if (r->dst) clReleaseMemObject(r->dst);
    if (r->src) clReleaseMemObject(r->src);
    clscan_context_release(r->scan);
    if (r->queue) clReleaseCommandQueue(r->queue);
    if (r->cl_ctx) clReleaseContext(r->cl_ctx);
    free(r->host_src);
    free(r->host_dst);
}

/* The first element of rank `rank`'s part: parts are in proportion to rank + 1, except
 * that rank `empty` (if any) has weight 0. */
static size_t part_begin(size_t n, int rank, int size, int empty)
{
    unsigned long long before = 0, all = 0;
    for (int q = 0; q < size; ++q) {
        const unsigned long long w = q == empty ? 0 : (unsigned long long)q + 1;
        if (q < rank) before += w;
        all += w;
    }
    if (all == 0) return 0; /* one rank, and it is the empty one */
    /* n * before / all without overflow for any n below 2^64 / all */
    return (size_t)((n / all) * before + (n % all) * before / all);
}

static int usage(int rank)
{
    if (rank == 0)
        fprintf(stderr, "usage: mpirun -n RANKS mpi_scan [--inclusive] "
                        "[--type int32|int64|float] [--platform P] [--empty-rank R] "
                        "[n [seed]]\n");
    return 2;
}

/* Parses a whole decimal (or 0x) number into *out; 0 if it is not one. */
static int parse_u64(const char *s, unsigned long long *out)
{
    char *end;
    if (!*s || *s == '-') return 0;
    *out = strtoull(s, &end, 0);
    return *end == '\0';
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rank_state r;
    memset(&r, 0, sizeof r);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);

    static const type_info types[] = {
        {"int64", CLSCAN_INT64, MPI_UINT64_T},
        {"int32", CLSCAN_INT32, MPI_UINT32_T},
        {"float", CLSCAN_FLOAT, MPI_FLOAT},
    };
    const type_info *t = &types[0];
    int inclusive = 0, platform_index = -1, empty = -1, positional = 0;
    unsigned long long n = 1000003, seed = 0, num;
    int have_seed = 0, bad_args = 0;
    for (int a = 1; a < argc && !bad_args; ++a) {
        if (strcmp(argv[a], "--inclusive") == 0) {
            inclusive = 1;
        } else if (strcmp(argv[a], "--type") == 0 && a + 1 < argc) {
            ++a;
            t = NULL;
            for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k)
                if (strcmp(argv[a], types[k].name) == 0) t = &types[k];
            bad_args = !t;
        } else if (strcmp(argv[a], "--platform") == 0 && a + 1 < argc) {
            bad_args = !parse_u64(argv[++a], &num) || num > 65535;
            platform_index = (int)num;
        } else if (strcmp(argv[a], "--empty-rank") == 0 && a + 1 < argc) {
            bad_args = !parse_u64(argv[++a], &num) || num > 1000000;
            empty = (int)num;
        } else if (argv[a][0] != '-' && positional < 2) {
            bad_args = !parse_u64(argv[a], positional == 0 ? &n : &seed);
            have_seed |= positional == 1;
            ++positional;
        } else {
            bad_args = 1;
        }
    }
    if (!bad_args && n > SIZE_MAX / sizeof(cl_long)) bad_args = 1;
    if (r.size == 1) empty = -1; /* a lone rank owns everything */
    if (bad_args) {
        MPI_Finalize();
        return usage(r.rank);
    }
    /* Every rank must generate the same array: rank 0 picks the seed. */
    if (!have_seed) seed = (unsigned long long)time(NULL);
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);

    /* The device: GPUs are shared out by rank within a node. */
    MPI_Comm node;
    int node_rank = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);

    const size_t begin = part_begin((size_t)n, r.rank, r.size, empty);
    const size_t count = part_begin((size_t)n, r.rank + 1, r.size, empty) - begin;
    int failed = setup(&r, t, platform_index, (unsigned)node_rank, seed, begin, count);

    /* 1. Reduce the part. */
    value total, carry_in;
    memset(&total, 0, sizeof total);
    memset(&carry_in, 0, sizeof carry_in);
    if (!failed) failed = reduce_part(&r, t, count, &total);
    /* A rank that failed would leave the ranks after it a wrong carry-in: all stop. */
    int any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

    /* 2. Combine the totals: rank k receives the totals of ranks 0 .. k-1. Rank 0
     * receives nothing defined and scans without a carry-in. */
    MPI_Exscan(&total, &carry_in, 1, t->mpi_type, MPI_SUM, MPI_COMM_WORLD);

    /* 3. Scan the part from its carry-in; 4. check it. */
    size_t bad = 0;
    if (!any_failed) failed = scan_part(&r, t, inclusive, count, r.rank ? &carry_in : NULL);
    if (!any_failed && !failed) bad = verify_part(&r, t, inclusive, seed, n, begin, count);

    char line[LINE_SIZE] = {0}, tot[48], cin[48]; /* (all of line is sent) */
    format_value(t->type, total, tot, sizeof tot);
    format_value(t->type, carry_in, cin, sizeof cin);
    if (failed || any_failed)
        snprintf(line, sizeof line, "rank %d/%d: [%zu, %zu) on %s: %s", r.rank, r.size, begin,
                 begin + count, r.device_name[0] ? r.device_name : "(no device)",
                 failed ? "FAILED (see the error above)" : "not scanned: another rank failed");
    else
        snprintf(line, sizeof line, "rank %d/%d: [%zu, %zu) on %s: total %s, carry-in %s: %s"
                 " (%zu of %zu wrong)",
                 r.rank, r.size, begin, begin + count, r.device_name, tot,
                 r.rank ? cin : "none", bad ? "FAILED" : "OK", bad, count);
    char *lines = r.rank == 0 ? malloc((size_t)r.size * LINE_SIZE) : NULL;
    if (r.rank == 0 && !lines) {
        fprintf(stderr, "mpi_scan: rank 0: out of host memory for the report\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(line, LINE_SIZE, MPI_CHAR, lines, LINE_SIZE, MPI_CHAR, 0, MPI_COMM_WORLD);

    unsigned long long mine[2] = {bad, (unsigned long long)failed}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (r.rank == 0) {
        for (int q = 0; q < r.size; ++q) printf("%s\n", lines + (size_t)q * LINE_SIZE);
        printf("mpi_scan: %llu elements over %d ranks, %s add, %s, seed %llu: %s", n, r.size,
               t->name, inclusive ? "inclusive" : "exclusive", seed,
               all[0] || all[1] ? "FAILED" : "OK");
        if (all[0] || all[1])
            printf(" (%llu wrong elements, %llu failed ranks)", all[0], all[1]);
        printf("\n");
        fflush(stdout);
    }
    free(lines);
    release_rank(&r);
    MPI_Finalize();
    return all[0] || all[1] ? 1 : 0;
}
